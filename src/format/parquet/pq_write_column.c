/*
 * format/parquet/pq_write_column.c — the leaf column writer (rules in
 * pq_write_column.h).
 *
 * Steps for rows [r0, r1) of a leaf:
 *   1. cut the range at the page limits (row count; raw size estimated from
 *      fixed widths or byte-string offsets);
 *   2. levels: flat leaves read the validity bitmap directly (runs of equal
 *      bits become RLE runs); nested leaves go through pq_levels;
 *   3. values: gathered in blocks of PQ_BLOCK from the column buffers (or
 *      used in place when contiguous and already in physical form),
 *      statistics updated per block, then dictionary ids or PLAIN bytes
 *      (byte strings of contiguous rows: short values whose prefix lies
 *      inside the cached min/max copied in an inner loop of their own,
 *      every other value through the general step);
 *   4. a full page is closed: levels + values assembled, compressed
 *      straight into the chunk's page blocks behind room for its page
 *      header (with CRC32 of the compressed bytes), which goes in front.
 */
#include "format/parquet/pq_write_column.h"
#include "format/parquet/pq_page_copy.h"

#include <stdlib.h>

#include "base/cursor.h"
#include "base/fault.h"
#include "base/mem.h"

#define PQ_BLOCK 1024
#define PQ_LEVEL_ROOM 64 /* bytes kept before a page's PLAIN values for its levels */
#define PQ_VALS_RESERVE ((size_t)4 << 20) /* at most this much page buffer reserved up front */

static int dict_width(int32_t phys)
{
    switch (phys) {
    case PQ_INT32:
    case PQ_FLOAT:
        return 4;
    case PQ_INT64:
    case PQ_DOUBLE:
        return 8;
    case PQ_INT96:
        return 12;
    default:
        return 0;
    }
}

int pq_raw_width(const pq_leaf *l)
{
    switch (l->phys) {
    case PQ_BOOLEAN:
        return 1;
    case PQ_INT32:
    case PQ_FLOAT:
        return 4;
    case PQ_INT64:
    case PQ_DOUBLE:
        return 8;
    case PQ_INT96:
        return 12;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        return l->type_length;
    default:
        return 0;
    }
}

static void page_reset(pq_colw *cw)
{
    pm_buf_clear(&cw->rep_buf);
    pm_buf_clear(&cw->def_buf);
    pq_rle_init(&cw->rep_enc, &cw->rep_buf, cw->rep_width);
    pq_rle_init(&cw->def_enc, &cw->def_buf, cw->def_width);
    cw->vals.len = cw->vals_room;
    cw->bool_acc = 0;
    cw->bool_bits = 0;
    cw->nids = 0;
    cw->page_values = 0;
    cw->page_rows = 0;
    cw->page_raw = 0;
    pq_stats_reset(&cw->pstats);
    cw->page_unencoded = 0;
    if (cw->rep_hist)
        memset(cw->rep_hist, 0, sizeof(int64_t) * (size_t)(cw->leaf->max_rep + 1));
    if (cw->def_hist)
        memset(cw->def_hist, 0, sizeof(int64_t) * (size_t)(cw->leaf->max_def + 1));
    if (++cw->epoch == 0)
        cw->epoch = 1;
}

/* The chunk's dictionary switch at its start. */
static bool chunk_dict_on(const pq_colw *cw)
{
    return cw->opt->dictionary && cw->leaf->dict_ok && !cw->plain_source;
}

pm_error *pq_colw_init(pq_colw *cw, const pq_leaf *leaf, const pm_pq_writer_options *opt,
                       pm_codec_ctx *codec)
{
    memset(cw, 0, sizeof *cw);
    cw->leaf = leaf;
    cw->opt = opt;
    cw->codec = codec;
    cw->def_width = pq_bit_width((uint64_t)leaf->max_def);
    cw->rep_width = pq_bit_width((uint64_t)leaf->max_rep);
    if (leaf->dict_ok)
        PM_TRY(pq_dict_init(&cw->dict, dict_width(leaf->phys)));
    cw->dict_on = chunk_dict_on(cw);
    cw->first_page = true;
    cw->bytes_generic = pm_fault("pq-bytes-generic");
    pq_stats_init(&cw->stats, leaf->stats);
    pq_stats_init(&cw->total, leaf->stats);
    pq_stats_init(&cw->pstats, leaf->stats);
    /* a spare page buffer of the owner's earlier writers, when there is
     * one: no growing to the page size, no fresh pages to fault in (a page
     * passes the page size by its last value: a quarter of slack) */
    if (opt->page_size > 0 && opt->buffers) {
        size_t want = (size_t)opt->page_size + (size_t)opt->page_size / 4 + PQ_LEVEL_ROOM;
        if (want > PQ_VALS_RESERVE)
            want = PQ_VALS_RESERVE;
        /* none spare: reserve that size now (touched only as far as pages
         * fill it), so the buffer given back at the end serves the next
         * writer; grown by doubling it would mostly stay below `want`, and
         * every writer would fault in a fresh one again */
        if (!pm_buf_pool_take(opt->buffers, want, &cw->vals))
            PM_TRY(pm_buf_reserve(&cw->vals, want));
    }
    if (leaf->max_def > 0 || leaf->max_rep > 0) {
        PM_TRY(pm_buf_reserve(&cw->vals, PQ_LEVEL_ROOM));
        cw->vals_room = PQ_LEVEL_ROOM;
    }
    if (pq_has_rep_hist(leaf))
        PM_TRY(pm_calloc(&cw->rep_hist, (size_t)leaf->max_rep + 1, sizeof(int64_t)));
    if (pq_has_def_hist(leaf))
        PM_TRY(pm_calloc(&cw->def_hist, (size_t)leaf->max_def + 1, sizeof(int64_t)));
    page_reset(cw);
    return NULL;
}

void pq_colw_set_plain_source(pq_colw *cw, bool plain)
{
    cw->plain_source = plain;
    /* a chunk that holds no value yet takes the hint now (not one that
     * starts with an offered page: PLAIN, pq_page_copy.h) */
    if (cw->first_page && cw->page_values == 0 && cw->dict.count == 0 && !cw->fwd_dict && !cw->copy_rows)
        cw->dict_on = chunk_dict_on(cw);
}

void pq_colw_free(pq_colw *cw)
{
    if (!cw)
        return;
    pm_buf_free(&cw->rep_buf);
    pm_buf_free(&cw->def_buf);
    /* the big buffers go to the owner's next writers (base/buf_pool.h) */
    pm_buf_pool *pool = cw->opt ? cw->opt->buffers : NULL;
    pm_buf_pool_give(pool, &cw->vals);
    free(cw->ids);
    pq_dict_free(&cw->dict);
    pm_column_release(cw->fwd_dict);
    free(cw->fwd_map);
    pq_page_blocks_free(&cw->chunk, pool);
    pq_stats_free(&cw->stats);
    pq_stats_free(&cw->total);
    pq_stats_free(&cw->pstats);
    free(cw->rep_hist);
    free(cw->def_hist);
    free(cw->seen);
    pq_page_index_free(&cw->pidx);
    pm_buf_free(&cw->ci_ser);
    pm_buf_free(&cw->oi_ser);
    pm_buf_free(&cw->body);
    pm_buf_free(&cw->comp);
    pm_buf_free(&cw->hdr);
    pm_buf_free(&cw->copy);
    pm_buf_free(&cw->lazy_min);
    pm_buf_free(&cw->lazy_max);
    pm_buf_free(&cw->lazy_page);
    pm_column_release(cw->lazy_col);
    pq_levels_free(&cw->lv);
    memset(cw, 0, sizeof *cw);
}

static int64_t page_bytes(const pq_colw *cw)
{
    return (int64_t)(cw->rep_buf.len + cw->def_buf.len) + cw->page_raw;
}

/* parquet-java's ColumnWriterBase.getTotalBufferedSize: the levels, the
 * open page's raw value bytes (FallbackValuesWriter counts raw bytes, also
 * while the dictionary is on) and the finished pages; the dictionary page
 * is not counted.  Paimon rolls files and parquet-java cuts row groups on
 * this figure, so counting the same keeps files and row groups alike. */
uint64_t pq_colw_buffered(const pq_colw *cw)
{
    return cw->chunk.len + (uint64_t)page_bytes(cw);
}

/* ---- values -------------------------------------------------------------- */

static pm_error *reserve_ids(pq_colw *cw, size_t k)
{
    if (cw->nids + k <= cw->ids_cap)
        return NULL;
    size_t cap = cw->ids_cap ? cw->ids_cap : 4096;
    while (cap < cw->nids + k)
        cap *= 2;
    PM_TRY(pm_realloc_array(&cw->ids, cap, sizeof *cw->ids));
    cw->ids_cap = cap;
    return NULL;
}

/* Give up the dictionary for the rest of the chunk: the page's ids become
 * PLAIN values, the dictionary keeps the entries written pages use. */
static pm_error *fallback(pq_colw *cw)
{
    const pq_dict *d = &cw->dict;
    size_t need = d->width ? cw->nids * (size_t)d->width : 0;
    PM_TRY(pm_buf_reserve(&cw->vals, need));
    for (size_t i = 0; i < cw->nids; i++) {
        uint32_t len;
        const uint8_t *p = pq_dict_entry(d, cw->ids[i], &len);
        if (!d->width)
            PM_TRY(pm_buf_append_u32le(&cw->vals, len));
        PM_TRY(pm_buf_append(&cw->vals, p, len));
    }
    cw->nids = 0;
    cw->dict_on = false;
    pq_dict_truncate(&cw->dict, cw->dict_used);
    return NULL;
}

static inline bool dict_full(const pq_colw *cw)
{
    return cw->dict.byte_size > cw->opt->dictionary_page_size;
}

static pm_error *emit32(pq_colw *cw, const uint32_t *v, size_t k)
{
    if (cw->dict_on) {
        PM_TRY(reserve_ids(cw, k));
        uint32_t id = 0, *ids = cw->ids + cw->nids;
        for (size_t i = 0; i < k; i++) {
            bool added = false;
            if (!i || v[i] != v[i - 1])   /* a repeat keeps the previous id, no lookup */
                PM_TRY(pq_dict_put32(&cw->dict, v[i], &id, &added));
            ids[i] = id;
            if (added && dict_full(cw)) {
                cw->nids += i + 1;
                cw->page_raw += 4 * (int64_t)(i + 1);
                PM_TRY(fallback(cw));
                v += i + 1;
                k -= i + 1;
                goto plain;
            }
        }
        cw->nids += k;
        cw->page_raw += 4 * (int64_t)k;
        return NULL;
    }
plain:
    cw->page_raw += 4 * (int64_t)k;
    return pm_buf_append(&cw->vals, v, 4 * k);
}

static pm_error *emit64(pq_colw *cw, const uint64_t *v, size_t k)
{
    if (cw->dict_on) {
        PM_TRY(reserve_ids(cw, k));
        uint32_t id = 0, *ids = cw->ids + cw->nids;
        for (size_t i = 0; i < k; i++) {
            bool added = false;
            if (!i || v[i] != v[i - 1])   /* a repeat keeps the previous id, no lookup */
                PM_TRY(pq_dict_put64(&cw->dict, v[i], &id, &added));
            ids[i] = id;
            if (added && dict_full(cw)) {
                cw->nids += i + 1;
                cw->page_raw += 8 * (int64_t)(i + 1);
                PM_TRY(fallback(cw));
                v += i + 1;
                k -= i + 1;
                goto plain;
            }
        }
        cw->nids += k;
        cw->page_raw += 8 * (int64_t)k;
        return NULL;
    }
plain:
    cw->page_raw += 8 * (int64_t)k;
    return pm_buf_append(&cw->vals, v, 8 * k);
}

static pm_error *emit96(pq_colw *cw, const uint8_t *v, size_t k)
{
    if (cw->dict_on) {
        PM_TRY(reserve_ids(cw, k));
        for (size_t i = 0; i < k; i++) {
            uint32_t id;
            bool added;
            PM_TRY(pq_dict_put96(&cw->dict, v + 12 * i, &id, &added));
            cw->ids[cw->nids++] = id;
            cw->page_raw += 16;   /* parquet-java counts binary values as 4 + length */
            if (added && dict_full(cw)) {
                PM_TRY(fallback(cw));
                v += 12 * (i + 1);
                k -= i + 1;
                goto plain;
            }
        }
        return NULL;
    }
plain:
    cw->page_raw += (cw->opt->dictionary ? 16 : 12) * (int64_t)k;
    return pm_buf_append(&cw->vals, v, 12 * k);
}

#define POS(i) (pos ? pos[i] : start + (int64_t)(i))

static void to_int96(int64_t ns, uint8_t out[12])
{
    /* Paimon Timestamp: millis = floor(ns / 1e6), nanos of milli in [0, 1e6).
     * julian day and nanos of day use Java's truncating division. */
    int64_t millis = ns / 1000000;
    int64_t nano_of_milli = ns % 1000000;
    if (nano_of_milli < 0) {
        millis -= 1;
        nano_of_milli += 1000000;
    }
    int32_t julian = (int32_t)(millis / 86400000 + 2440588);
    int64_t nanos_of_day = (millis % 86400000) * 1000000 + nano_of_milli;
    memcpy(out, &nanos_of_day, 8);
    memcpy(out + 8, &julian, 4);
}

/* Count dictionary entry `id` in the page statistics once per page. */
static pm_error *mark_entry(pq_colw *cw, uint32_t id, const uint8_t *v, uint32_t len)
{
    if (id >= cw->seen_cap) {
        size_t cap = cw->seen_cap ? cw->seen_cap : 1024;
        while (cap <= id)
            cap *= 2;
        PM_TRY(pm_realloc_array(&cw->seen, cap, sizeof *cw->seen));
        memset(cw->seen + cw->seen_cap, 0, (cap - cw->seen_cap) * sizeof *cw->seen);
        cw->seen_cap = cap;
    }
    if (cw->seen[id] == cw->epoch)
        return NULL;
    cw->seen[id] = cw->epoch;
    return pq_stats_update_bytes(&cw->pstats, v, len);
}

/* PLAIN byte strings of contiguous rows from offsets op (up to oend), the
 * common case in a loop of its own: a value whose prefix lies strictly
 * inside the cached min/max (one 8-byte load) moves behind its length, a
 * short one (its source at or below `safe`: 32 readable bytes) by one or
 * two 16-byte copies, a longer one by memcpy.  Returns where it stopped
 * (oend, or the first other value, left for the general step: a new min or
 * max, a short value near the end of the data); *dstp advanced. */
/* (out of line: inside put_values its values would live on the stack) */
__attribute__((noinline)) static const int32_t *bytes_run(const int32_t *op, const int32_t *oend,
                                                          const uint8_t *data, uintptr_t safe,
                                                          const pq_stats *st, uint8_t **dstp)
{
    if (!st->has_minmax)
        return op;
    uint64_t lo = st->min_pfx, hi = st->max_pfx;
    uint8_t *dst = *dstp;
    for (; op < oend; op++) {
        const uint8_t *src = data + op[0];
        uint32_t len = (uint32_t)(op[1] - op[0]);
        if (len > 32) {
            uint64_t pp = pq_stats_prefix8_at(src, 8);
            if (pp <= lo || pp >= hi)
                break;
            memcpy(dst, &len, 4); /* little-endian, as decode_plain.c reads it */
            memcpy(dst + 4, src, len);
        } else {
            if ((uintptr_t)src > safe)
                break;
            uint64_t pp = pq_stats_prefix8_at(src, len);
            if (pp <= lo || pp >= hi)
                break;
            memcpy(dst, &len, 4);
            memcpy(dst + 4, src, 16);
            if (len > 16)
                memcpy(dst + 20, src + 16, 16);
        }
        dst += 4 + (size_t)len;
    }
    *dstp = dst;
    return op;
}

static pm_error *put_bytes_values(pq_colw *cw, const pm_column *col, const int64_t *pos,
                                  int64_t start, int64_t n)
{
    const int32_t *off = pm_column_offsets(col);
    const uint8_t *data = col->data.data ? col->data.data : (const uint8_t *)"";   /* all empty */
    pq_stats *st = &cw->pstats;
    int64_t i = 0;
    if (cw->dict_on) {
        PM_TRY(reserve_ids(cw, (size_t)n));
        for (; i < n; i++) {
            int64_t p = POS(i);
            uint32_t len = (uint32_t)(off[p + 1] - off[p]);
            const uint8_t *v = data + off[p];
            uint32_t id;
            bool added;
            PM_TRY(pq_dict_put_bytes(&cw->dict, v, len, &id, &added));
            cw->ids[cw->nids++] = id;
            cw->page_raw += 4 + (int64_t)len;
            cw->page_unencoded += len;
            PM_TRY(mark_entry(cw, id, v, len));
            if (added && dict_full(cw)) {
                PM_TRY(fallback(cw));
                i++;
                break;
            }
        }
        if (cw->dict_on)
            return NULL;
    }
    if (i >= n)
        return NULL;
    /* PLAIN: every length + value into room reserved once, statistics in
     * the same pass */
    uint64_t bytes = 0;
    if (!pos) {
        bytes = (uint64_t)(off[start + n] - off[start + i]);
    } else {
        for (int64_t k = i; k < n; k++)
            bytes += (uint64_t)(off[pos[k] + 1] - off[pos[k]]);
    }
    size_t total = (size_t)bytes + 4 * (size_t)(n - i);
    /* 32 bytes of slack: a short value whose source has 32 readable bytes
     * moves as one or two fixed-size copies */
    PM_TRY(pm_buf_reserve(&cw->vals, total + 32));
    uint8_t *dst = cw->vals.data + cw->vals.len;
    size_t readable = col->data.len;
    /* contiguous rows (with at least 32 bytes of data): bytes_run first, a
     * source at or below `safe` has 32 readable bytes */
    bool fast = !pos && !cw->bytes_generic && readable >= 32;
    uintptr_t safe = fast ? (uintptr_t)(data + readable - 32) : 0;
    for (; i < n; i++) {
        if (fast) {
            const int32_t *op = bytes_run(off + start + i, off + start + n, data, safe, st, &dst);
            i = (int64_t)(op - off) - start;
            if (i == n)
                break;
        }
        int64_t p = POS(i);
        size_t o = (size_t)off[p];
        uint32_t len = (uint32_t)(off[p + 1] - off[p]);
        if (!pq_stats_bytes_inside(st, data + o, len))
            PM_TRY(pq_stats_update_bytes(st, data + o, len));
        pm_store_u32le(dst, len);
        if (len <= 32 && o + 32 <= readable) {
            memcpy(dst + 4, data + o, 16);
            if (len > 16)
                memcpy(dst + 20, data + o + 16, 16);
        } else if (len) {
            memcpy(dst + 4, data + o, len);
        }
        dst += 4 + (size_t)len;
    }
    cw->vals.len += total;
    cw->page_raw += (int64_t)total;
    cw->page_unencoded += (int64_t)bytes;
    return NULL;
}

/* The input dictionary becomes the chunk's (see the header). */
static pm_error *adopt(pq_colw *cw, const pm_column *dict)
{
    size_t n = (size_t)dict->length;
    if (n > cw->fwd_map_cap) {
        PM_TRY(pm_realloc_array(&cw->fwd_map, n, sizeof *cw->fwd_map));
        cw->fwd_map_cap = n;
    }
    for (size_t e = 0; e < n; e++) {
        size_t len;
        const uint8_t *v = pm_column_bytes(dict, (int64_t)e, &len);
        bool added;
        PM_TRY(pq_dict_put_bytes(&cw->dict, v, (uint32_t)len, &cw->fwd_map[e], &added));
    }
    if (dict_full(cw))
        return fallback(cw);
    cw->fwd_dict = pm_column_retain((pm_column *)(uintptr_t)dict);
    return NULL;
}

/* Two dictionaries with the same entries in the same order. */
static bool same_entries(const pm_column *a, const pm_column *b)
{
    if (a->length != b->length)
        return false;
    if (!a->length)
        return true;
    const int32_t *oa = pm_column_offsets(a), *ob = pm_column_offsets(b);
    size_t bytes = (size_t)(oa[a->length] - oa[0]);
    return !memcmp(oa, ob, ((size_t)a->length + 1) * 4) && oa[0] == ob[0] &&
           (!bytes || !memcmp(a->data.data + oa[0], b->data.data + ob[0], bytes));
}

/* Byte strings of a dictionary-encoded column: ids through the adopted
 * dictionary, else PLAIN values looked up in the input dictionary. */
static pm_error *put_dict_values(pq_colw *cw, const pm_column *col, const int64_t *pos, int64_t start,
                                 int64_t n)
{
    const pm_column *dict = col->dictionary;
    const int32_t *in = (const int32_t *)(const void *)col->values.data;
    if (cw->dict_on && cw->fwd_dict != dict) {
        if (!cw->fwd_dict && cw->dict.count == 0) {
            PM_TRY(adopt(cw, dict));
        } else if (cw->fwd_dict && same_entries(cw->fwd_dict, dict)) {
            /* the same dictionary again (another input file): the map holds */
            pm_column_release(cw->fwd_dict);
            cw->fwd_dict = pm_column_retain((pm_column *)(uintptr_t)dict);
        } else {
            PM_TRY(fallback(cw)); /* another dictionary: PLAIN for the rest of the row group */
        }
    }
    if (cw->dict_on) {
        PM_TRY(reserve_ids(cw, (size_t)n));
        for (int64_t i = 0; i < n; i++) {
            int32_t e = in[POS(i)];
            size_t len;
            const uint8_t *v = pm_column_bytes(dict, e, &len);
            uint32_t id = cw->fwd_map[e];
            cw->ids[cw->nids++] = id;
            cw->page_raw += 4 + (int64_t)len;
            cw->page_unencoded += (int64_t)len;
            PM_TRY(mark_entry(cw, id, v, (uint32_t)len));
        }
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        size_t len;
        const uint8_t *v = pm_column_bytes(dict, in[POS(i)], &len);
        PM_TRY(pq_stats_update_bytes(&cw->pstats, v, (uint32_t)len));
        PM_TRY(pm_buf_reserve(&cw->vals, 4 + len));
        uint8_t le[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24)};
        pm_buf_put(&cw->vals, le, 4);
        if (len)
            pm_buf_put(&cw->vals, v, len);
        cw->page_raw += 4 + (int64_t)len;
        cw->page_unencoded += (int64_t)len;
    }
    return NULL;
}

static pm_error *put_bools(pq_colw *cw, const pm_column *col, const int64_t *pos, int64_t start,
                           int64_t n)
{
    PM_TRY(pm_buf_reserve(&cw->vals, (size_t)(n / 8) + 2));
    const uint8_t *bm = col->values.data;
    int64_t i = 0;
    if (!pos) {
        /* contiguous rows, 8 at a time while the output is byte aligned */
        for (; i < n && cw->bool_bits; i++) {
            bool v = pm_column_bool(col, start + i);
            pq_stats_update_bool(&cw->pstats, v);
            cw->bool_acc |= (uint8_t)((v ? 1 : 0) << cw->bool_bits);
            if (++cw->bool_bits == 8) {
                cw->vals.data[cw->vals.len++] = cw->bool_acc;
                cw->bool_acc = 0;
                cw->bool_bits = 0;
            }
        }
        uint8_t any1 = 0, all1 = 0xff;
        for (; i + 8 <= n; i += 8) {
            int64_t r = start + i;
            uint8_t b = (uint8_t)(bm[r >> 3] >> (r & 7));
            if (r & 7)
                b |= (uint8_t)(bm[(r >> 3) + 1] << (8 - (r & 7)));
            cw->vals.data[cw->vals.len++] = b;
            any1 |= b;
            all1 &= b;
        }
        if (any1)
            pq_stats_update_bool(&cw->pstats, true);
        if (all1 != 0xff)
            pq_stats_update_bool(&cw->pstats, false);
    }
    for (; i < n; i++) {
        bool v = pm_column_bool(col, POS(i));
        pq_stats_update_bool(&cw->pstats, v);
        cw->bool_acc |= (uint8_t)((v ? 1 : 0) << cw->bool_bits);
        if (++cw->bool_bits == 8) {
            cw->vals.data[cw->vals.len++] = cw->bool_acc;
            cw->bool_acc = 0;
            cw->bool_bits = 0;
        }
    }
    cw->page_raw = (int64_t)(cw->vals.len - cw->vals_room) + (cw->bool_bits ? 1 : 0);
    return NULL;
}

/* Values at positions POS(0..n-1) of the leaf column. */
static pm_error *put_values(pq_colw *cw, const pm_column *col, const int64_t *pos, int64_t start,
                            int64_t n)
{
    const pq_leaf *l = cw->leaf;
    pq_stats *st = &cw->pstats;
    switch (l->kind) {
    case PQV_BOOL:
        return put_bools(cw, col, pos, start, n);
    case PQV_BYTES:
        return col->dictionary ? put_dict_values(cw, col, pos, start, n) : put_bytes_values(cw, col, pos, start, n);
    default:
        break;
    }
    union {
        uint32_t u32[PQ_BLOCK];
        uint64_t u64[PQ_BLOCK];
        uint8_t b[16 * PQ_BLOCK];
    } tmp;
    const uint8_t *vals = col->values.data;
    for (int64_t o = 0; o < n; o += PQ_BLOCK) {
        size_t k = (size_t)(n - o < PQ_BLOCK ? n - o : PQ_BLOCK);
        const int64_t *pp = pos ? pos + o : NULL;
        int64_t s0 = start + o;
#define P(i) (pp ? pp[i] : s0 + (int64_t)(i))
        switch (l->kind) {
        case PQV_I32:
        case PQV_F32: {
            const uint32_t *v;
            if (!pp) {
                v = (const uint32_t *)(const void *)vals + s0;
            } else {
                const uint32_t *src = (const uint32_t *)(const void *)vals;
                for (size_t i = 0; i < k; i++)
                    tmp.u32[i] = src[pp[i]];
                v = tmp.u32;
            }
            if (l->kind == PQV_F32)
                pq_stats_update_f32(st, (const float *)(const void *)v, k);
            else
                pq_stats_update_i32(st, (const int32_t *)(const void *)v, k);
            PM_TRY(emit32(cw, v, k));
            break;
        }
        case PQV_I8:
            for (size_t i = 0; i < k; i++)
                tmp.u32[i] = (uint32_t)(int32_t)((const int8_t *)vals)[P(i)];
            pq_stats_update_i32(st, (const int32_t *)(const void *)tmp.u32, k);
            PM_TRY(emit32(cw, tmp.u32, k));
            break;
        case PQV_I16:
            for (size_t i = 0; i < k; i++)
                tmp.u32[i] = (uint32_t)(int32_t)((const int16_t *)(const void *)vals)[P(i)];
            pq_stats_update_i32(st, (const int32_t *)(const void *)tmp.u32, k);
            PM_TRY(emit32(cw, tmp.u32, k));
            break;
        case PQV_DEC32:
            for (size_t i = 0; i < k; i++) {
                __int128 d;
                memcpy(&d, vals + 16 * P(i), 16);
                tmp.u32[i] = (uint32_t)(int32_t)d;
            }
            pq_stats_update_i32(st, (const int32_t *)(const void *)tmp.u32, k);
            PM_TRY(emit32(cw, tmp.u32, k));
            break;
        case PQV_I64:
        case PQV_F64: {
            const uint64_t *v;
            if (!pp) {
                v = (const uint64_t *)(const void *)vals + s0;
            } else {
                const uint64_t *src = (const uint64_t *)(const void *)vals;
                for (size_t i = 0; i < k; i++)
                    tmp.u64[i] = src[pp[i]];
                v = tmp.u64;
            }
            if (l->kind == PQV_F64)
                pq_stats_update_f64(st, (const double *)(const void *)v, k);
            else
                pq_stats_update_i64(st, (const int64_t *)(const void *)v, k);
            PM_TRY(emit64(cw, v, k));
            break;
        }
        case PQV_DEC64:
            for (size_t i = 0; i < k; i++) {
                __int128 d;
                memcpy(&d, vals + 16 * P(i), 16);
                tmp.u64[i] = (uint64_t)(int64_t)d;
            }
            pq_stats_update_i64(st, (const int64_t *)(const void *)tmp.u64, k);
            PM_TRY(emit64(cw, tmp.u64, k));
            break;
        case PQV_INT96:
            for (size_t i = 0; i < k; i++) {
                int64_t ns;
                memcpy(&ns, vals + 8 * P(i), 8);
                to_int96(ns, tmp.b + 12 * i);
                PM_TRY(pq_stats_update_bytes(st, tmp.b + 12 * i, 12));
            }
            PM_TRY(emit96(cw, tmp.b, k));
            break;
        case PQV_DECFLBA: {
            int32_t w = l->type_length;
            for (size_t i = 0; i < k; i++) {
                __int128 d;
                memcpy(&d, vals + 16 * P(i), 16);
                pq_stats_update_d128(st, d);
                pq_decimal_to_be(d, w, tmp.b + (size_t)w * i);
            }
            cw->page_raw += (int64_t)w * (int64_t)k;
            PM_TRY(pm_buf_append(&cw->vals, tmp.b, (size_t)w * k));
            break;
        }
        default:
            return pm_error_new(PM_EINTERNAL, "unexpected value kind %d", (int)l->kind);
        }
#undef P
    }
    return NULL;
}

/* ---- levels and rows ----------------------------------------------------- */

static pm_error *write_flat(pq_colw *cw, const pm_column *col, int64_t r0, int64_t n)
{
    const pq_leaf *l = cw->leaf;
    bool has_nulls = col->null_count > 0;
    int64_t nulls = 0;
    if (has_nulls) {
        const uint8_t *bm = col->validity.data;
        if (!l->steps[0].nullable) {
            for (int64_t r = r0; r < r0 + n; r++)
                if (!((bm[r >> 3] >> (r & 7)) & 1))
                    return pm_error_new(PM_EINVALID, "field '%s' is NOT NULL but has a null value",
                                        l->steps[0].name);
            has_nulls = false;
        }
    }
    if (l->max_def > 0) {
        if (has_nulls)
            PM_TRY(pq_rle_put_bitmap(&cw->def_enc, col->validity.data, r0, n, 0, 1));
        else
            PM_TRY(pq_rle_put_run(&cw->def_enc, 1, (uint64_t)n));
    }
    cw->page_values += n;
    if (!has_nulls)
        return put_values(cw, col, NULL, r0, n);

    /* Positions of the valid rows. */
    pq_levels *lv = &cw->lv;
    if (lv->pos_cap < (size_t)n) {
        PM_TRY(pm_realloc_array(&lv->pos, (size_t)n, sizeof *lv->pos));
        lv->pos_cap = (size_t)n;
    }
    const uint8_t *bm = col->validity.data;
    size_t k = 0;
    for (int64_t r = r0; r < r0 + n; r++) {
        lv->pos[k] = r;
        k += (bm[r >> 3] >> (r & 7)) & 1;
    }
    nulls = n - (int64_t)k;
    cw->pstats.null_count += nulls;
    return put_values(cw, col, lv->pos, 0, (int64_t)k);
}

static pm_error *write_nested(pq_colw *cw, const pm_column *top, int64_t r0, int64_t n)
{
    const pq_leaf *l = cw->leaf;
    pq_levels *lv = &cw->lv;
    PM_TRY(pq_levels_compute(lv, l, top, r0, r0 + n));
    if (l->max_rep > 0)
        for (size_t i = 0; i < lv->n; i++)
            PM_TRY(pq_rle_put(&cw->rep_enc, lv->rep[i]));
    if (l->max_def > 0)
        for (size_t i = 0; i < lv->n; i++)
            PM_TRY(pq_rle_put(&cw->def_enc, lv->def[i]));
    if (cw->rep_hist)
        for (size_t i = 0; i < lv->n; i++)
            cw->rep_hist[lv->rep[i]]++;
    if (cw->def_hist)
        for (size_t i = 0; i < lv->n; i++)
            cw->def_hist[lv->def[i]]++;
    cw->page_values += (int64_t)lv->n;
    cw->pstats.null_count += lv->nulls;
    return put_values(cw, lv->leaf_col, lv->pos, 0, (int64_t)lv->npos);
}

/* Rows from r0 (at most n) that fill the rest of the page. */
static int64_t rows_fitting(pq_colw *cw, const pm_column *col, int64_t r0, int64_t n)
{
    int64_t left = cw->opt->page_size - page_bytes(cw);
    if (left <= 0)
        return 1;
    const pq_leaf *l = cw->leaf;
    if (!l->flat) {
        double avg = cw->avg_row_bytes > 0 ? cw->avg_row_bytes : 64;
        int64_t fit = (int64_t)((double)left / avg) + 1;
        return fit < n ? fit : n;
    }
    int w = pq_raw_width(l);
    if (w > 0) {
        int64_t fit = left / w + 1;
        return fit < n ? fit : n;
    }
    if (col->dictionary) {
        int64_t acc = 0;
        for (int64_t i = 0; i < n; i++) {
            size_t len = 0;
            if (!pm_column_is_null(col, r0 + i))
                pm_column_bytes(col, r0 + i, &len);
            acc += 4 + (int64_t)len;
            if (acc >= left)
                return i + 1;
        }
        return n;
    }
    /* plain byte strings: the bytes of rows r0..r0+i, 4 (i + 1) + off[r0 +
     * i + 1] - off[r0], grow with i; the first i where they reach `left`
     * by bisection instead of a walk over every row */
    const int32_t *off = pm_column_offsets(col);
#define UPTO(i) (4 * ((i) + 1) + (int64_t)off[r0 + (i) + 1] - (int64_t)off[r0])
    if (UPTO(n - 1) < left)
        return n;
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (UPTO(mid) >= left)
            hi = mid;
        else
            lo = mid + 1;
    }
#undef UPTO
    return lo + 1;
}

static pm_error *flush_page(pq_colw *cw);

/* The open page is due to close: at the limits, or an offered page's rows. */
static bool page_full(const pq_colw *cw)
{
    if (cw->copy_rows)
        return cw->page_rows >= cw->copy_rows;
    return cw->page_rows >= cw->opt->page_row_limit || page_bytes(cw) >= cw->opt->page_size;
}

pm_error *pq_colw_write(pq_colw *cw, const pm_column *top, int64_t r0, int64_t r1)
{
    const pm_pq_writer_options *o = cw->opt;
    while (r0 < r1) {
        if (page_full(cw)) {
            PM_TRY(flush_page(cw));
            continue;
        }
        int64_t n = r1 - r0;
        if (cw->subst_left) {
            /* rows of a lazy offer whose page ended early: values from it */
            if (n > cw->subst_left)
                n = cw->subst_left;
            if (n > o->page_row_limit - cw->page_rows)
                n = o->page_row_limit - cw->page_rows;
            n = rows_fitting(cw, cw->lazy_col, cw->subst_at, n);
            PM_TRY(write_flat(cw, cw->lazy_col, cw->subst_at, n));
            cw->page_rows += n;
            cw->subst_at += n;
            cw->subst_left -= n;
            r0 += n;
            continue;
        }
        if (cw->copy_lazy) {
            /* a lazy offer's rows carry no values: counted, not encoded */
            if (n > cw->copy_rows - cw->page_rows)
                n = cw->copy_rows - cw->page_rows;
            PM_TRY(pq_colw_lazy_rows(cw, n));
            r0 += n;
            continue;
        }
        if (cw->copy_rows) {
            /* an offered page (pq_page_copy.h) closes at its own rows */
            if (n > cw->copy_rows - cw->page_rows)
                n = cw->copy_rows - cw->page_rows;
        } else {
            if (n > o->page_row_limit - cw->page_rows)
                n = o->page_row_limit - cw->page_rows;
            n = rows_fitting(cw, top, r0, n);
        }
        int64_t before = page_bytes(cw);
        if (cw->leaf->flat)
            PM_TRY(write_flat(cw, top, r0, n));
        else
            PM_TRY(write_nested(cw, top, r0, n));
        if (!cw->leaf->flat) {
            double per_row = (double)(page_bytes(cw) - before) / (double)n;
            cw->avg_row_bytes = cw->avg_row_bytes > 0 ? (cw->avg_row_bytes + per_row) / 2 : per_row;
            if (cw->avg_row_bytes < 1)
                cw->avg_row_bytes = 1;
        }
        cw->page_rows += n;
        r0 += n;
    }
    if (page_full(cw))
        PM_TRY(flush_page(cw));
    return NULL;
}

pm_error *pq_colw_put_rows(pq_colw *cw, const pm_column *col, int64_t r0, int64_t n)
{
    PM_TRY(write_flat(cw, col, r0, n));
    cw->page_rows += n;
    return NULL;
}

/* ---- pages --------------------------------------------------------------- */

static pm_error *append_levels(pm_buf *body, pq_rle_encoder *enc)
{
    PM_TRY(pq_rle_finish(enc));
    PM_TRY(pm_buf_append_u32le(body, (uint32_t)enc->out->len));
    return pm_buf_append(body, enc->out->data, enc->out->len);
}

/* The page header of a body of body_len bytes stored as data[0, data_len):
 * sizes and CRC set in h, serialized into cw->hdr. */
static pm_error *page_header(pq_colw *cw, pq_page_header *h, size_t body_len, const uint8_t *data, size_t data_len)
{
    if (body_len > INT32_MAX || data_len > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "page larger than 2 GiB");
    h->uncompressed_page_size = (int32_t)body_len;
    h->compressed_page_size = (int32_t)data_len;
    if (cw->opt->page_crc) {
        h->has_crc = true;
        h->crc = (int32_t)pq_crc32(0, data, data_len);
    }
    pm_buf_clear(&cw->hdr);
    return pm_pq_page_header_serialize(h, &cw->hdr);
}

/* Compress the page body (into cw->comp; none: the body itself) and
 * serialize its header into cw->hdr; the header is filled except sizes
 * and CRC.  *data / *data_len: the bytes that follow the header. */
static pm_error *emit_page(pq_colw *cw, pq_page_header *h, const uint8_t *body, size_t body_len,
                           const uint8_t **data_out, size_t *data_len_out)
{
    const uint8_t *data = body;
    size_t data_len = body_len;
    if (cw->opt->codec != PM_CODEC_NONE) {
        pm_buf_clear(&cw->comp);
        PM_TRY(pm_codec_compress(cw->codec, cw->opt->codec, cw->opt->codec_level, body, body_len,
                                 &cw->comp));
        data = cw->comp.data;
        data_len = cw->comp.len;
    }
    PM_TRY(page_header(cw, h, body_len, data, data_len));
    *data_out = data;
    *data_len_out = data_len;
    return NULL;
}

/* The block that has room for `need` more bytes: the chunk's last one, or
 * the next (spare, from the pool or new) one. */
static pm_error *blocks_room(pq_page_blocks *pb, pm_buf_pool *pool, size_t need, pm_buf **out)
{
    pm_buf *b = pb->nused ? &pb->blocks[pb->nused - 1] : NULL;
    if (!b || b->cap - b->len < need) {
        if (pb->nused == pb->nblocks) {
            PM_TRY(pm_realloc_array(&pb->blocks, pb->nblocks + 1, sizeof *pb->blocks));
            pm_buf_init(&pb->blocks[pb->nblocks++]);
        }
        b = &pb->blocks[pb->nused];
        b->len = 0;
        if (b->cap < need) {
            /* 64 KiB, doubling per block up to PQ_PAGE_BLOCK: small chunks stay small */
            size_t size = pb->nused < 4 ? (size_t)PQ_PAGE_BLOCK >> (4 - pb->nused) : PQ_PAGE_BLOCK;
            pm_buf_pool_give(pool, b);
            if (!pm_buf_pool_take(pool, need > size ? need : size, b))
                PM_TRY(pm_buf_reserve(b, need > size ? need : size));
        }
        pb->nused++;
    }
    *out = b;
    return NULL;
}

pm_error *pq_page_blocks_take(pq_page_blocks *pb, pm_buf_pool *pool, size_t need, uint8_t **at)
{
    pm_buf *b;
    PM_TRY(blocks_room(pb, pool, need, &b));
    *at = b->data + b->len;
    b->len += need;
    pb->len += need;
    return NULL;
}

void pq_page_blocks_clear(pq_page_blocks *pb)
{
    pb->nused = 0;
    pb->len = 0;
}

void pq_page_blocks_free(pq_page_blocks *pb, pm_buf_pool *pool)
{
    for (size_t i = 0; i < pb->nblocks; i++)
        pm_buf_pool_give(pool, &pb->blocks[i]);
    free(pb->blocks);
    memset(pb, 0, sizeof *pb);
}

pm_error *pq_page_blocks_write(const pq_page_blocks *pb, pm_output *out)
{
    for (size_t i = 0; i < pb->nused; i++)
        PM_TRY(pm_output_write(out, pb->blocks[i].data, pb->blocks[i].len));
    return NULL;
}

/* Append header + data of a page to the chunk's blocks. */
static pm_error *blocks_append(pq_page_blocks *pb, pm_buf_pool *pool, const pm_buf *hdr, const uint8_t *data,
                               size_t n)
{
    uint8_t *at;
    PM_TRY(pq_page_blocks_take(pb, pool, hdr->len + n, &at));
    memcpy(at, hdr->data, hdr->len);
    if (n)
        memcpy(at + hdr->len, data, n);
    return NULL;
}

/* A compressed data page straight into the chunk's blocks (no copy of the
 * compressed bytes): the body is compressed behind room for its header,
 * whose length is guessed from the column's last page (the sizes' varints,
 * a 5-byte CRC); the header then goes in front.  A header of another
 * length moves the compressed bytes once.  h: filled except sizes and CRC;
 * cw->hdr holds the header afterwards. */
static pm_error *put_compressed_page(pq_colw *cw, pq_page_header *h, const uint8_t *body, size_t body_len)
{
    if (body_len > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "page larger than 2 GiB");
    pq_page_header g = *h;
    g.uncompressed_page_size = (int32_t)body_len;
    g.compressed_page_size = cw->last_comp ? cw->last_comp : (int32_t)(body_len / 2);
    g.has_crc = cw->opt->page_crc;
    g.crc = INT32_MIN; /* the longest varint */
    pm_buf_clear(&cw->hdr);
    PM_TRY(pm_pq_page_header_serialize(&g, &cw->hdr));
    size_t guess = cw->hdr.len;
    /* at least every codec's bound (zstd, lz4: n/255, snappy: n/6), so the
     * codec writes into the block without growing it */
    pm_buf *b;
    PM_TRY(blocks_room(&cw->chunk, cw->opt->buffers, guess + body_len + body_len / 4 + 4096, &b));
    size_t at = b->len;
    b->len = at + guess;
    pm_error *e = pm_codec_compress(cw->codec, cw->opt->codec, cw->opt->codec_level, body, body_len, b);
    size_t data_len = b->len - at - guess;
    b->len = at;
    PM_TRY(e);
    uint8_t *data = b->data + at + guess;
    PM_TRY(page_header(cw, h, body_len, data, data_len));
    size_t hl = cw->hdr.len;
    if (hl != guess) {
        if (hl > guess && b->cap - at < hl + data_len) {
            b->len = at + guess + data_len;
            PM_TRY(pm_buf_reserve(b, hl - guess));
            b->len = at;
            data = b->data + at + guess;
        }
        memmove(b->data + at + hl, data, data_len);
    }
    memcpy(b->data + at, cw->hdr.data, hl);
    b->len = at + hl + data_len;
    cw->chunk.len += hl + data_len;
    cw->last_comp = (int32_t)data_len;
    return NULL;
}

static pm_error *flush_page(pq_colw *cw)
{
    if (cw->page_values == 0)
        return NULL;
    if (cw->copy_rows) {
        bool copied = false;
        PM_TRY(pq_colw_put_offered(cw, &copied));
        if (copied) {
            page_reset(cw);
            return NULL;
        }
    }
    const pq_leaf *l = cw->leaf;
    pm_buf *body = &cw->body;
    pm_buf_clear(body);
    if (l->max_rep > 0)
        PM_TRY(append_levels(body, &cw->rep_enc));
    if (l->max_def > 0)
        PM_TRY(append_levels(body, &cw->def_enc));
    size_t levels_len = body->len;

    int32_t encoding = PQ_ENC_PLAIN;
    if (cw->dict_on) {
        /* parquet-java: bit width of the largest id the dictionary holds now. */
        int width = cw->dict.count ? pq_bit_width(cw->dict.count - 1) : 32;
        PM_TRY(pm_buf_append_byte(body, (uint8_t)width));
        PM_TRY(pq_rle_encode(body, width, cw->ids, cw->nids));
        int64_t encoded = (int64_t)(body->len - levels_len);
        if (cw->first_page && !(encoded + cw->dict.byte_size < cw->page_raw)) {
            PM_TRY(fallback(cw));
            body->len = levels_len;
        } else {
            encoding = PQ_ENC_PLAIN_DICTIONARY;
            cw->dict_used = cw->dict.count;
        }
    }
    /* A PLAIN page is its levels + values: levels that fit the room before
     * the values are put there (no copy of the values). */
    const uint8_t *page = body->data;
    size_t page_len = body->len;
    if (encoding == PQ_ENC_PLAIN) {
        if (cw->bool_bits) {
            PM_TRY(pm_buf_append_byte(&cw->vals, cw->bool_acc));
            cw->bool_acc = 0;
            cw->bool_bits = 0;
        }
        size_t room = cw->vals_room;
        if (levels_len <= room) {
            uint8_t *start = cw->vals.data + room - levels_len;
            if (levels_len)
                memcpy(start, body->data, levels_len);
            page = start;
            page_len = cw->vals.len - room + levels_len;
        } else {
            PM_TRY(pm_buf_append(body, cw->vals.data + room, cw->vals.len - room));
            page = body->data;
            page_len = body->len;
        }
    }
    cw->first_page = false;

    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_DATA_PAGE;
    h.has_data_page_header = true;
    if (cw->page_values > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "page with more than 2^31 values");
    h.data_page_header.num_values = (int32_t)cw->page_values;
    h.data_page_header.encoding = encoding;
    h.data_page_header.definition_level_encoding = l->max_def > 0 ? PQ_ENC_RLE : PQ_ENC_BIT_PACKED;
    h.data_page_header.repetition_level_encoding = l->max_rep > 0 ? PQ_ENC_RLE : PQ_ENC_BIT_PACKED;
    uint64_t at = cw->chunk.len;
    if (cw->opt->codec != PM_CODEC_NONE) {
        PM_TRY(put_compressed_page(cw, &h, page, page_len));
    } else {
        const uint8_t *data;
        size_t data_len;
        PM_TRY(emit_page(cw, &h, page, page_len, &data, &data_len));
        PM_TRY(blocks_append(&cw->chunk, cw->opt->buffers, &cw->hdr, data, data_len));
    }
    size_t hdr_len = cw->hdr.len;
    PM_TRY(pq_page_index_add(&cw->pidx, l, &cw->pstats, cw->page_values, (int64_t)at,
                             (int32_t)(cw->chunk.len - at), cw->chunk_rows, cw->page_unencoded,
                             cw->rep_hist, cw->def_hist));
    PM_TRY(pq_stats_merge(&cw->stats, &cw->pstats));
    cw->chunk_rows += cw->page_rows;
    cw->chunk_uncompressed += (int64_t)(hdr_len + page_len);
    cw->chunk_values += cw->page_values;
    if (encoding == PQ_ENC_PLAIN)
        cw->pages_plain++;
    else
        cw->pages_dict++;
    page_reset(cw);
    return NULL;
}

int64_t pq_colw_page_bytes(const pq_colw *cw) { return page_bytes(cw); }

pm_error *pq_colw_close_page(pq_colw *cw) { return flush_page(cw); }

/* ---- chunk --------------------------------------------------------------- */

pm_error *pq_colw_write_chunk(pq_colw *cw, const pq_leaf *l, pm_output *out, pm_arena *a, pq_column_chunk *cc)
{
    PM_TRY(flush_page(cw));
    memset(cc, 0, sizeof *cc);
    pq_column_meta *m = &cc->meta_data;
    cc->has_meta_data = true;
    int64_t start = (int64_t)pm_output_pos(out);
    int64_t uncompressed = cw->chunk_uncompressed;
    bool has_dict = cw->dict_used > 0;
    if (has_dict) {
        pm_buf_clear(&cw->body);
        PM_TRY(pq_dict_write_plain(&cw->dict, cw->dict_used, &cw->body));
        pq_page_header h;
        memset(&h, 0, sizeof h);
        h.type = PQ_DICTIONARY_PAGE;
        h.has_dictionary_page_header = true;
        h.dictionary_page_header.num_values = (int32_t)cw->dict_used;
        h.dictionary_page_header.encoding = PQ_ENC_PLAIN_DICTIONARY;
        const uint8_t *data;
        size_t data_len;
        PM_TRY(emit_page(cw, &h, cw->body.data, cw->body.len, &data, &data_len));
        PM_TRY(pm_output_write(out, cw->hdr.data, cw->hdr.len));
        PM_TRY(pm_output_write(out, data, data_len));
        uncompressed += (int64_t)(cw->hdr.len + cw->body.len);
        m->has_dictionary_page_offset = true;
        m->dictionary_page_offset = start;
    }
    m->data_page_offset = (int64_t)pm_output_pos(out);
    PM_TRY(pq_page_blocks_write(&cw->chunk, out));
    int64_t end = (int64_t)pm_output_pos(out);

    m->type = l->phys;
    int32_t encs[4];
    uint32_t nenc = 0;
    if (cw->pages_plain)
        encs[nenc++] = PQ_ENC_PLAIN;
    if (has_dict)
        encs[nenc++] = PQ_ENC_PLAIN_DICTIONARY;
    if (l->max_def > 0 || l->max_rep > 0)
        encs[nenc++] = PQ_ENC_RLE;
    if (l->max_def == 0 || l->max_rep == 0)
        encs[nenc++] = PQ_ENC_BIT_PACKED;
    m->encodings = pm_arena_alloc(a, sizeof(int32_t) * nenc, _Alignof(int32_t));
    pq_page_encoding_stats *es = pm_arena_alloc(a, sizeof *es * 3, _Alignof(pq_page_encoding_stats));
    if (!m->encodings || !es)
        return pm_error_new(PM_ENOMEM, "out of memory");
    memcpy(m->encodings, encs, sizeof(int32_t) * nenc);
    m->num_encodings = nenc;
    m->path_in_schema = l->path;
    m->path_len = l->path_len;
    m->codec = (int32_t)cw->opt->codec;
    m->num_values = cw->chunk_values;
    m->total_uncompressed_size = uncompressed;
    m->total_compressed_size = end - start;
    m->has_statistics = true;
    PM_TRY(pq_stats_to_thrift(&cw->stats, l, a, &m->statistics));
    uint32_t nes = 0;
    if (has_dict)
        es[nes++] = (pq_page_encoding_stats){PQ_DICTIONARY_PAGE, PQ_ENC_PLAIN_DICTIONARY, 1};
    if (cw->pages_dict)
        es[nes++] = (pq_page_encoding_stats){PQ_DATA_PAGE, PQ_ENC_PLAIN_DICTIONARY, cw->pages_dict};
    if (cw->pages_plain)
        es[nes++] = (pq_page_encoding_stats){PQ_DATA_PAGE, PQ_ENC_PLAIN, cw->pages_plain};
    m->encoding_stats = es;
    m->num_encoding_stats = nes;
    m->has_size_statistics = true;
    PM_TRY(pq_page_index_size_stats(&cw->pidx, l, a, &m->size_statistics));
    pm_buf_clear(&cw->ci_ser);
    pm_buf_clear(&cw->oi_ser);
    PM_TRY(pq_page_index_column_index(&cw->pidx, l, &cw->ci_ser, &cw->has_ci));
    PM_TRY(pq_page_index_offset_index(&cw->pidx, l, m->data_page_offset, &cw->oi_ser));
    return NULL;
}

pm_error *pq_colw_reset_chunk(pq_colw *cw)
{
    const pq_leaf *l = cw->leaf;
    pq_page_index_reset(&cw->pidx);
    cw->chunk_rows = 0;
    PM_TRY(pq_stats_merge(&cw->total, &cw->stats));
    pq_stats_reset(&cw->stats);
    pq_page_blocks_clear(&cw->chunk);
    cw->chunk_values = 0;
    cw->chunk_uncompressed = 0;
    cw->pages_dict = cw->pages_plain = 0;
    if (l->dict_ok)
        pq_dict_clear(&cw->dict);
    cw->dict_on = chunk_dict_on(cw);
    cw->dict_used = 0;
    cw->first_page = true;
    pm_column_release(cw->fwd_dict);
    cw->fwd_dict = NULL;
    return NULL;
}

pm_error *pq_colw_flush_chunk(pq_colw *cw, pm_output *out, pm_arena *a, pq_column_chunk *cc)
{
    PM_TRY(pq_colw_write_chunk(cw, cw->leaf, out, a, cc));
    return pq_colw_reset_chunk(cw);
}
