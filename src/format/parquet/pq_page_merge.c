/*
 * format/parquet/pq_page_merge.c — PLAIN data pages merged into a column
 * writer (rules, page layouts and steps in pq_page_merge.h).
 */
#include "format/parquet/pq_page_merge.h"

#include <string.h>

#include "format/parquet/pq_decode.h"
#include "format/parquet/pq_stats.h"

#define MERGE_MAX_PAGE ((size_t)1 << 30) /* largest uncompressed page, as the reader's default */
#define LEVEL_PIECE 512                  /* levels of a bit-packed piece re-encoded at once */
#define STATS_BLOCK 1024                 /* fixed-width values copied aligned for the statistics */

bool pq_page_merge_leaf_ok(const pq_leaf *L)
{
    if (!L->flat || L->max_rep != 0 || L->max_def > 1)
        return false;
    switch (L->phys) {
    case PQ_INT32:
    case PQ_INT64:
        return L->stats == PQS_I32 || L->stats == PQS_I64;
    case PQ_FLOAT:
        return L->stats == PQS_F32;
    case PQ_DOUBLE:
        return L->stats == PQS_F64;
    case PQ_BYTE_ARRAY:
        return L->stats == PQS_BYTES;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        return L->stats == PQS_BYTES && L->type_length > 0;
    default:
        return false; /* BOOLEAN (bit-packed), INT96 */
    }
}

bool pq_page_merge_ok(const pq_leaf *L, const pq_page_header *h)
{
    if (!pq_page_merge_leaf_ok(L))
        return false;
    if (h->type == PQ_DATA_PAGE && h->has_data_page_header) {
        const pq_data_page_header *d = &h->data_page_header;
        return d->encoding == PQ_ENC_PLAIN && (L->max_def == 0 || d->definition_level_encoding == PQ_ENC_RLE);
    }
    if (h->type == PQ_DATA_PAGE_V2 && h->has_data_page_header_v2) {
        const pq_data_page_header_v2 *d = &h->data_page_header_v2;
        return d->encoding == PQ_ENC_PLAIN && d->repetition_levels_byte_length == 0 &&
               (L->max_def > 0 || d->definition_levels_byte_length == 0);
    }
    return false;
}

pm_error *pq_levels_transcode(pq_rle_encoder *enc, const uint8_t *p, size_t len, int bw, int64_t n, uint32_t max,
                              uint32_t below_of, int64_t *below)
{
    if (enc->bit_width != bw)
        return pm_error_new(PM_EINTERNAL, "levels of width %d into an encoder of width %d", bw, enc->bit_width);
    if (n < 0)
        return pm_error_new(PM_ECORRUPT, "%lld levels", (long long)n);
    pqd_rle d;
    PM_TRY(pqd_rle_init(&d, p, len, bw));
    uint32_t buf[LEVEL_PIECE];
    int64_t nb = 0;
    while (n > 0) {
        size_t got = 0;
        bool repeated = false;
        uint32_t v = 0;
        PM_TRY(pqd_rle_get_piece(&d, buf, n < LEVEL_PIECE ? (size_t)n : LEVEL_PIECE, &got, &repeated, &v));
        if (repeated) {
            if (v > max)
                return pm_error_new(PM_ECORRUPT, "level %u exceeds the maximum %u", v, max);
            nb += v < below_of ? (int64_t)got : 0;
            PM_TRY(pq_rle_put_run(enc, v, got));
        } else {
            uint32_t bad = 0;
            int64_t k = 0;
            for (size_t i = 0; i < got; i++) {
                bad |= buf[i] > max;
                k += buf[i] < below_of;
            }
            if (bad)
                return pm_error_new(PM_ECORRUPT, "a level exceeds the maximum %u", max);
            nb += k;
            PM_TRY(pq_rle_put_many(enc, buf, got));
        }
        n -= (int64_t)got;
    }
    *below += nb;
    return NULL;
}

/* min/max of n fixed-width PLAIN values (no alignment assumed). */
static pm_error *stats_fixed(pq_stats *s, const pq_leaf *L, const uint8_t *p, int64_t n)
{
    union {
        int32_t i32[STATS_BLOCK];
        int64_t i64[STATS_BLOCK];
        float f32[STATS_BLOCK];
        double f64[STATS_BLOCK];
    } t;
    int w = pq_raw_width(L);
    for (int64_t o = 0; o < n; o += STATS_BLOCK) {
        size_t k = (size_t)(n - o < STATS_BLOCK ? n - o : STATS_BLOCK);
        const uint8_t *q = p + (size_t)o * (size_t)w;
        switch (L->stats) {
        case PQS_I32:
            memcpy(t.i32, q, 4 * k);
            pq_stats_update_i32(s, t.i32, k);
            break;
        case PQS_I64:
            memcpy(t.i64, q, 8 * k);
            pq_stats_update_i64(s, t.i64, k);
            break;
        case PQS_F32:
            memcpy(t.f32, q, 4 * k);
            pq_stats_update_f32(s, t.f32, k);
            break;
        case PQS_F64:
            memcpy(t.f64, q, 8 * k);
            pq_stats_update_f64(s, t.f64, k);
            break;
        case PQS_BYTES: /* FIXED_LEN_BYTE_ARRAY */
            for (size_t i = 0; i < k; i++)
                PM_TRY(pq_stats_update_bytes(s, q + i * (size_t)w, (size_t)w));
            break;
        default:
            return pm_error_new(PM_EINTERNAL, "statistics kind %d of merged pages", (int)L->stats);
        }
    }
    return NULL;
}

/* BYTE_ARRAY PLAIN values: exactly n of them in p[0..len), into the
 * statistics. */
static pm_error *walk_bytes(pq_stats *s, const uint8_t *p, size_t len, int64_t n)
{
    size_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
        if (len - pos < 4)
            return pm_error_new(PM_ECORRUPT, "PLAIN byte array %lld of %lld truncated", (long long)i, (long long)n);
        uint32_t l = (uint32_t)p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16 |
                     (uint32_t)p[pos + 3] << 24;
        pos += 4;
        if (l > len - pos)
            return pm_error_new(PM_ECORRUPT, "PLAIN byte array %lld of %u bytes runs past the page", (long long)i,
                                l);
        PM_TRY(pq_stats_update_bytes(s, p + pos, l));
        pos += l;
    }
    if (pos != len)
        return pm_error_new(PM_ECORRUPT, "%zu bytes after the page's %lld PLAIN byte arrays", len - pos,
                            (long long)n);
    return NULL;
}

/* The `us` uncompressed bytes of cs compressed ones (in place when not
 * compressed). */
static pm_error *body_of(pq_colw *cw, const uint8_t *data, size_t cs, size_t us, pm_codec_id codec, pm_buf *scratch,
                         const uint8_t **out)
{
    if (codec == PM_CODEC_NONE) {
        if (cs != us)
            return pm_error_new(PM_ECORRUPT, "uncompressed page of %zu bytes says %zu", cs, us);
        *out = data;
        return NULL;
    }
    pm_buf_clear(scratch);
    PM_TRY(pm_buf_reserve(scratch, us ? us : 1));
    PM_TRY(pm_codec_decompress(cw->codec, codec, data, cs, scratch->data, us));
    scratch->len = us;
    *out = scratch->data;
    return NULL;
}

static bool page_full(const pq_colw *cw)
{
    return cw->page_rows >= cw->opt->page_row_limit || pq_colw_page_bytes(cw) >= cw->opt->page_size;
}

pm_error *pq_colw_merge_page(pq_colw *cw, const pq_page_header *h, const uint8_t *data, pm_codec_id codec,
                             const pq_merge_bounds *bounds, pm_buf *scratch)
{
    const pq_leaf *L = cw->leaf;
    if (!pq_page_merge_ok(L, h) || cw->dict_on)
        return pm_error_new(PM_EINTERNAL, "a page of type %d cannot be merged into column '%s'%s", (int)h->type,
                            L->path[0], cw->dict_on ? " (dictionary on)" : "");
    if (h->compressed_page_size < 0 || h->uncompressed_page_size < 0)
        return pm_error_new(PM_ECORRUPT, "page of %d bytes (%d uncompressed)", (int)h->compressed_page_size,
                            (int)h->uncompressed_page_size);
    size_t cs = (size_t)h->compressed_page_size, us = (size_t)h->uncompressed_page_size;
    if (us > MERGE_MAX_PAGE)
        return pm_error_new(PM_EUNSUPPORTED, "page of %zu uncompressed bytes (limit %zu)", us, MERGE_MAX_PAGE);
    if (h->has_crc) {
        uint32_t crc = pq_crc32(0, data, cs);
        if (crc != (uint32_t)h->crc)
            return pm_error_new(PM_ECORRUPT, "page checksum mismatch (stored %08x, computed %08x)", (uint32_t)h->crc,
                                crc);
    }
    int64_t nv;
    const uint8_t *lv = NULL, *vals;
    size_t nlv = 0, nvals;
    if (h->type == PQ_DATA_PAGE) {
        nv = h->data_page_header.num_values;
        const uint8_t *body;
        PM_TRY(body_of(cw, data, cs, us, codec, scratch, &body));
        size_t pos = 0;
        if (L->max_def > 0) {
            if (us < 4)
                return pm_error_new(PM_ECORRUPT, "data page of %zu bytes without its levels' length", us);
            uint32_t ll = (uint32_t)body[0] | (uint32_t)body[1] << 8 | (uint32_t)body[2] << 16 |
                          (uint32_t)body[3] << 24;
            if (ll > us - 4)
                return pm_error_new(PM_ECORRUPT, "definition levels of %u bytes in a page of %zu", ll, us);
            lv = body + 4;
            nlv = ll;
            pos = 4 + (size_t)ll;
        }
        vals = body + pos;
        nvals = us - pos;
    } else {
        const pq_data_page_header_v2 *d = &h->data_page_header_v2;
        nv = d->num_values;
        if (d->num_rows != d->num_values)
            return pm_error_new(PM_ECORRUPT, "data page v2 of %d values in %d rows of a flat column", d->num_values,
                                d->num_rows);
        int32_t dl = d->definition_levels_byte_length;
        if (dl < 0 || (size_t)dl > cs || (size_t)dl > us)
            return pm_error_new(PM_ECORRUPT, "data page v2 definition levels of %d bytes exceed the page", dl);
        lv = data;
        nlv = (size_t)dl;
        PM_TRY(body_of(cw, data + dl, cs - (size_t)dl, us - (size_t)dl, d->is_compressed ? codec : PM_CODEC_NONE,
                       scratch, &vals));
        nvals = us - (size_t)dl;
    }
    if (nv < 0)
        return pm_error_new(PM_ECORRUPT, "data page with %lld values", (long long)nv);
    if (cw->page_values > 0 && (cw->page_rows + nv > cw->opt->page_row_limit ||
                                pq_colw_page_bytes(cw) + (int64_t)nvals > cw->opt->page_size))
        PM_TRY(pq_colw_close_page(cw));

    int64_t nulls = 0;
    if (L->max_def > 0)
        PM_TRY(pm_error_wrap(pq_levels_transcode(&cw->def_enc, lv, nlv, cw->def_width, nv, (uint32_t)L->max_def,
                                                 (uint32_t)L->max_def, &nulls),
                             0, "definition levels"));
    if (h->type == PQ_DATA_PAGE_V2 && h->data_page_header_v2.num_nulls != nulls)
        return pm_error_new(PM_ECORRUPT, "data page v2 says %d nulls, its levels hold %lld",
                            h->data_page_header_v2.num_nulls, (long long)nulls);
    int64_t present = nv - nulls;
    int w = pq_raw_width(L);
    int64_t unencoded = 0;
    if (w > 0) {
        if ((uint64_t)nvals != (uint64_t)present * (uint64_t)w)
            return pm_error_new(PM_ECORRUPT, "page of %lld values of %d bytes holds %zu value bytes",
                                (long long)present, w, nvals);
        if (present > 0) {
            if (bounds && bounds->min && bounds->max && bounds->nmin == (size_t)w && bounds->nmax == (size_t)w) {
                PM_TRY(stats_fixed(&cw->pstats, L, bounds->min, 1));
                PM_TRY(stats_fixed(&cw->pstats, L, bounds->max, 1));
            } else {
                PM_TRY(stats_fixed(&cw->pstats, L, vals, present));
            }
        }
    } else {
        PM_TRY(walk_bytes(&cw->pstats, vals, nvals, present));
        unencoded = (int64_t)nvals - 4 * present;
    }
    PM_TRY(pm_buf_append(&cw->vals, vals, nvals));
    cw->page_values += nv;
    cw->page_rows += nv;
    cw->page_raw += (int64_t)nvals;
    cw->page_unencoded += unencoded;
    cw->pstats.null_count += nulls;
    if (page_full(cw))
        PM_TRY(pq_colw_close_page(cw));
    return NULL;
}
