/*
 * compact/compact_page_passthrough.c — page-level Parquet passthrough
 * (rules, recomputed metadata and page index in compact_page_passthrough.h).
 *
 * Steps of an output row group: pm_pg_group_add per input row group (copied
 * leaves: chunk bytes read, pages walked, page index entries and statistics
 * merged; re-encoded leaves: the input's columns decoded by a projected
 * Parquet reader limited to that row group and encoded by one column
 * writer per leaf) → pm_pg_group_flush (chunks written in leaf order,
 * metadata filled in, page indexes serialized).
 */
#include "compact/compact_page_passthrough.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/pq_page_merge.h"
#include "format/parquet/pq_read_index.h"
#include "format/parquet/pq_write_column.h"
#include "format/parquet/pq_write_index.h"

#define MAX_ENC 16
#define SAMPLE_BYTES ((size_t)256 << 10) /* most uncompressed page bytes sampled per column */
#define MAX_SAMPLE_PAGE (64 << 20)

typedef struct enc_count {
    int32_t page_type, encoding, count;
} enc_count;

/* A merged min/max pair of PLAIN statistics bytes. */
typedef struct mm_acc {
    bool ok;        /* every chunk with values had the pair */
    bool has;
    pm_buf min, max;
} mm_acc;

typedef struct pg_leaf {
    const pq_leaf *leaf;
    bool decode;               /* re-encoded in the pending group */
    bool cw_init;
    pq_colw cw;
    /* copied */
    pq_page_blocks data;       /* the chunk so far (an input chunk never spans blocks: no copy as it grows) */
    pq_page_index pidx;        /* its pages, offsets relative to the chunk */
    bool no_ci;                /* an input page without min/max/null count */
    int64_t values, uncompressed;
    int32_t enc[MAX_ENC];
    uint32_t nenc;
    enc_count es[MAX_ENC];
    uint32_t nes;
    bool nc_ok;
    int64_t null_count;
    mm_acc mm, legacy;
    /* sampling (pm_pg_sample): the inputs' page bodies decompressed, and
     * their compressed size */
    pm_buf sample;
    int64_t sample_comp, sample_values;
    bool reencode;             /* decided from the sample: merged pages compress much better */
    bool merge_ok;             /* its plain pages can be merged without decoding (pq_page_merge.h) */
    bool merge_rg;             /* the current add merged the input chunk's pages */
} pg_leaf;

struct pm_pg_group {
    pm_pg_options o;
    pm_pq_writer_options plain;    /* o.pq without dictionary: columns re-encoded for the sample's sake */
    pg_leaf *leaves;
    uint32_t nleaves;
    int64_t rows;
    pm_arena scratch;          /* input page indexes of one add */
    pm_buf ibuf;               /* their bytes */
    pm_buf cbuf, mbuf;         /* a merged chunk's bytes, one page of it decompressed */
    const char **names;        /* re-encoded top-level fields of one add */
    uint32_t *tops;
    bool *want_rg;             /* reader filter: the one row group */
    bool sampled;              /* pm_pg_sample_decide judged some column's sample */
};

bool pm_pg_schema_ok(const pq_write_schema *ws)
{
    for (uint32_t i = 0; i < ws->nleaves; i++)
        if (!ws->leaves[i].flat || ws->leaves[i].max_rep != 0)
            return false;
    return ws->nleaves > 0;
}

static void mm_reset(mm_acc *m)
{
    m->ok = true;
    m->has = false;
    pm_buf_clear(&m->min);
    pm_buf_clear(&m->max);
}

static void leaf_reset(pg_leaf *l)
{
    l->decode = false;
    pq_page_blocks_clear(&l->data);
    pq_page_index_reset(&l->pidx);
    l->no_ci = false;
    l->values = l->uncompressed = 0;
    l->nenc = l->nes = 0;
    l->nc_ok = true;
    l->null_count = 0;
    mm_reset(&l->mm);
    mm_reset(&l->legacy);
}

pm_error *pm_pg_group_new(pm_pg_group **out, const pm_pg_options *o)
{
    *out = NULL;
    pm_pg_group *g;
    PM_TRY(pm_calloc(&g, 1, sizeof *g));
    g->o = *o;
    g->plain = *o->pq;
    g->plain.dictionary = false;
    g->nleaves = o->ws->nleaves;
    pm_arena_init(&g->scratch, 0);
    pm_error *e = pm_calloc(&g->leaves, g->nleaves ? g->nleaves : 1, sizeof *g->leaves);
    if (!e)
        e = pm_calloc(&g->names, g->nleaves ? g->nleaves : 1, sizeof *g->names);
    if (!e)
        e = pm_calloc(&g->tops, g->nleaves ? g->nleaves : 1, sizeof *g->tops);
    if (e) {
        pm_pg_group_free(g);
        return e;
    }
    for (uint32_t i = 0; i < g->nleaves; i++) {
        g->leaves[i].leaf = &o->ws->leaves[i];
        g->leaves[i].merge_ok = pq_page_merge_leaf_ok(&o->ws->leaves[i]) &&
                                !(o->force_decode && o->force_decode[o->ws->leaves[i].top]);
        leaf_reset(&g->leaves[i]);
    }
    *out = g;
    return NULL;
}

void pm_pg_group_free(pm_pg_group *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; g->leaves && i < g->nleaves; i++) {
        pg_leaf *l = &g->leaves[i];
        if (l->cw_init)
            pq_colw_free(&l->cw);
        pq_page_blocks_free(&l->data, g->o.pq->buffers);
        pq_page_index_free(&l->pidx);
        pm_buf_free(&l->mm.min);
        pm_buf_free(&l->mm.max);
        pm_buf_free(&l->legacy.min);
        pm_buf_free(&l->legacy.max);
        pm_buf_free(&l->sample);
    }
    free(g->leaves);
    free(g->names);
    free(g->tops);
    free(g->want_rg);
    pm_arena_free(&g->scratch);
    pm_buf_free(&g->ibuf);
    pm_buf_free(&g->cbuf);
    pm_buf_free(&g->mbuf);
    free(g);
}

static bool is_dict_encoding(int32_t e) { return e == PQ_ENC_PLAIN_DICTIONARY || e == PQ_ENC_RLE_DICTIONARY; }

/* Whether an input chunk can be copied page by page (no dictionary). */
static bool chunk_copyable(const pq_column_meta *cm)
{
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0)
        return false;
    for (uint32_t k = 0; k < cm->num_encodings; k++)
        if (is_dict_encoding(cm->encodings[k]))
            return false;
    for (uint32_t k = 0; k < cm->num_encoding_stats; k++)
        if (cm->encoding_stats[k].page_type == PQ_DICTIONARY_PAGE || is_dict_encoding(cm->encoding_stats[k].encoding))
            return false;
    return true;
}

static bool forced(const pm_pg_group *g, const pg_leaf *l)
{
    return l->reencode || (g->o.force_decode && g->o.force_decode[l->leaf->top]);
}

bool pm_pg_group_fits(const pm_pg_group *g, const pm_pq_file_meta *m, uint32_t rg)
{
    if (!g->rows)
        return true;
    const pq_row_group *r = &m->row_groups[rg];
    for (uint32_t c = 0; c < g->nleaves; c++)
        if (!g->leaves[c].decode && !chunk_copyable(&r->columns[c].meta_data))
            return false;
    return true;
}

int64_t pm_pg_group_rows(const pm_pg_group *g) { return g->rows; }

uint64_t pm_pg_group_bytes(const pm_pg_group *g)
{
    uint64_t n = 0;
    for (uint32_t c = 0; c < g->nleaves; c++) {
        const pg_leaf *l = &g->leaves[c];
        n += l->decode ? (l->cw_init ? pq_colw_buffered(&l->cw) : 0) : l->data.len;
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* statistics                                                          */

/* Whether PLAIN statistics bytes have the width the leaf's order needs. */
static bool width_ok(const pq_leaf *L, uint32_t n)
{
    switch (L->stats) {
    case PQS_BOOL:
        return n == 1;
    case PQS_I32:
    case PQS_F32:
        return n == 4;
    case PQS_I64:
    case PQS_F64:
        return n == 8;
    case PQS_DEC128:
        return n >= 1 && n <= 16 && (L->phys != PQ_FIXED_LEN_BYTE_ARRAY || (int32_t)n == L->type_length);
    case PQS_BYTES:
        return true;
    default:
        return false; /* INT96: no order */
    }
}

static pm_error *mm_merge(const pq_leaf *L, mm_acc *m, const uint8_t *lo, uint32_t nlo, const uint8_t *hi,
                          uint32_t nhi)
{
    if (!m->ok)
        return NULL;
    if (!lo || !hi || !width_ok(L, nlo) || !width_ok(L, nhi)) {
        m->ok = false;
        return NULL;
    }
    if (!m->has || pq_plain_compare(L, lo, nlo, m->min.data, m->min.len) < 0) {
        pm_buf_clear(&m->min);
        PM_TRY(pm_buf_append(&m->min, lo, nlo));
    }
    if (!m->has || pq_plain_compare(L, hi, nhi, m->max.data, m->max.len) > 0) {
        pm_buf_clear(&m->max);
        PM_TRY(pm_buf_append(&m->max, hi, nhi));
    }
    m->has = true;
    return NULL;
}

static pm_error *merge_stats(pg_leaf *l, const pq_column_meta *cm)
{
    const pq_statistics *s = &cm->statistics;
    if (!cm->has_statistics || !s->has_null_count) {
        l->nc_ok = false;
        l->mm.ok = l->legacy.ok = false;
        return NULL;
    }
    l->null_count += s->null_count;
    if (cm->num_values - s->null_count <= 0)
        return NULL; /* only nulls */
    PM_TRY(mm_merge(l->leaf, &l->mm, s->has_min_value ? s->min_value : NULL, s->min_value_len,
                    s->has_max_value ? s->max_value : NULL, s->max_value_len));
    if (l->leaf->legacy_stats)
        PM_TRY(mm_merge(l->leaf, &l->legacy, s->has_min ? s->min : NULL, s->min_len, s->has_max ? s->max : NULL,
                        s->max_len));
    return NULL;
}

static const uint8_t *arena_copy(pm_arena *a, const pm_buf *b)
{
    uint8_t *q = pm_arena_alloc(a, b->len ? b->len : 1, 1);
    if (q && b->len)
        memcpy(q, b->data, b->len);
    return q;
}

/* A zero float bound as the Parquet writer stores it (min -0.0, max +0.0). */
static void signed_zero(const pq_leaf *L, pm_buf *b, bool min)
{
    if (L->stats == PQS_F64 && b->len == 8) {
        double d;
        memcpy(&d, b->data, 8);
        if (d == 0.0) {
            d = min ? -0.0 : 0.0;
            memcpy(b->data, &d, 8);
        }
    } else if (L->stats == PQS_F32 && b->len == 4) {
        float f;
        memcpy(&f, b->data, 4);
        if (f == 0.0f) {
            f = min ? -0.0f : 0.0f;
            memcpy(b->data, &f, 4);
        }
    }
}

static pm_error *stats_out(pg_leaf *l, pm_arena *a, pq_column_meta *m)
{
    signed_zero(l->leaf, &l->mm.min, true);
    signed_zero(l->leaf, &l->mm.max, false);
    signed_zero(l->leaf, &l->legacy.min, true);
    signed_zero(l->leaf, &l->legacy.max, false);
    memset(&m->statistics, 0, sizeof m->statistics);
    if (!l->nc_ok)
        return NULL;
    pq_statistics *s = &m->statistics;
    m->has_statistics = true;
    s->has_null_count = true;
    s->null_count = l->null_count;
    if (l->mm.ok && l->mm.has) {
        if (!(s->min_value = arena_copy(a, &l->mm.min)) || !(s->max_value = arena_copy(a, &l->mm.max)))
            return pm_oom();
        s->has_min_value = s->has_max_value = true;
        s->min_value_len = (uint32_t)l->mm.min.len;
        s->max_value_len = (uint32_t)l->mm.max.len;
    }
    if (l->leaf->legacy_stats && l->legacy.ok && l->legacy.has) {
        if (!(s->min = arena_copy(a, &l->legacy.min)) || !(s->max = arena_copy(a, &l->legacy.max)))
            return pm_oom();
        s->has_min = s->has_max = true;
        s->min_len = (uint32_t)l->legacy.min.len;
        s->max_len = (uint32_t)l->legacy.max.len;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* copied chunks                                                       */

static void add_encoding(pg_leaf *l, int32_t e)
{
    for (uint32_t k = 0; k < l->nenc; k++)
        if (l->enc[k] == e)
            return;
    if (l->nenc < MAX_ENC)
        l->enc[l->nenc++] = e;
}

static pm_error *count_page(pg_leaf *l, int32_t type, int32_t enc)
{
    for (uint32_t k = 0; k < l->nes; k++)
        if (l->es[k].page_type == type && l->es[k].encoding == enc) {
            l->es[k].count++;
            return NULL;
        }
    if (l->nes == MAX_ENC)
        return pm_error_new(PM_EUNSUPPORTED, "more than %d page encodings in one column chunk", MAX_ENC);
    l->es[l->nes++] = (enc_count){type, enc, 1};
    return NULL;
}

/* The input chunk's page index, when it has a usable one (else NULL). */
static pm_error *read_index(pm_pg_group *g, pm_input *in, bool column, const pq_column_chunk *cc,
                            pq_column_index *ci, pq_offset_index *oi, bool *have)
{
    *have = false;
    int64_t off = column ? cc->column_index_offset : cc->offset_index_offset;
    int32_t len = column ? cc->column_index_length : cc->offset_index_length;
    if (!(column ? cc->has_column_index : cc->has_offset_index) || off < 4 || len <= 0 ||
        (uint64_t)off > pm_input_size(in) || (uint64_t)len > pm_input_size(in) - (uint64_t)off)
        return NULL; /* absent (or pointing outside the file: treated as absent) */
    pm_buf_clear(&g->ibuf);
    PM_TRY(pm_buf_reserve(&g->ibuf, (size_t)len));
    PM_TRY(pm_input_read_at(in, (uint64_t)off, g->ibuf.data, (size_t)len));
    if (column)
        PM_TRY(pq_column_index_parse(ci, g->ibuf.data, (size_t)len, &g->scratch));
    else
        PM_TRY(pq_offset_index_parse(oi, g->ibuf.data, (size_t)len, &g->scratch));
    *have = true;
    return NULL;
}

/* The input chunk's byte range checked against the file. */
static pm_error *chunk_range(pm_input *in, const pq_column_meta *cm)
{
    if (cm->data_page_offset < 4 || cm->total_compressed_size <= 0 ||
        (uint64_t)cm->data_page_offset > pm_input_size(in) ||
        (uint64_t)cm->total_compressed_size > pm_input_size(in) - (uint64_t)cm->data_page_offset)
        return pm_error_new(PM_ECORRUPT, "column chunk at %lld of %lld bytes lies outside the file",
                            (long long)cm->data_page_offset, (long long)cm->total_compressed_size);
    return NULL;
}

/* The input chunk's bytes appended to `buf`. */
static pm_error *read_chunk(pm_input *in, const pq_column_meta *cm, pm_buf *buf)
{
    PM_TRY(chunk_range(in, cm));
    size_t len = (size_t)cm->total_compressed_size;
    PM_TRY(pm_buf_reserve(buf, len));
    PM_TRY(pm_input_read_at(in, (uint64_t)cm->data_page_offset, buf->data + buf->len, len));
    buf->len += len;
    return NULL;
}

static pm_error *copy_chunk(pm_pg_group *g, pg_leaf *l, pm_input *in, const pq_column_chunk *cc, int64_t rg_rows)
{
    const pq_column_meta *cm = &cc->meta_data;
    const pq_leaf *L = l->leaf;
    pq_column_index ci;
    pq_offset_index oi;
    bool have_ci = false, have_oi = false;
    memset(&ci, 0, sizeof ci);
    memset(&oi, 0, sizeof oi);
    PM_TRY(read_index(g, in, true, cc, &ci, NULL, &have_ci));
    if (L->phys == PQ_BYTE_ARRAY)
        PM_TRY(read_index(g, in, false, cc, NULL, &oi, &have_oi));
    /* the chunk's bytes, appended to the output chunk */
    PM_TRY(chunk_range(in, cm));
    size_t base = (size_t)l->data.len;
    size_t len = (size_t)cm->total_compressed_size;
    uint8_t *d;
    PM_TRY(pq_page_blocks_take(&l->data, g->o.pq->buffers, len, &d));
    PM_TRY(pm_input_read_at(in, (uint64_t)cm->data_page_offset, d, len));
    size_t pos = 0;
    int64_t values = 0, rows = 0;
    uint32_t page = 0;
    while (pos < len) {
        pq_page_header h;
        size_t hl = 0;
        PM_TRY(pm_pq_page_header_parse(&h, d + pos, len - pos, &hl));
        if (h.compressed_page_size < 0 || (uint64_t)h.compressed_page_size > len - pos - hl)
            return pm_error_new(PM_ECORRUPT, "page %u of %lld bytes runs past its column chunk", page,
                                (long long)h.compressed_page_size);
        int64_t nv, nr;
        int32_t enc;
        const pq_statistics *ps = NULL;
        if (h.type == PQ_DATA_PAGE && h.has_data_page_header) {
            nv = nr = h.data_page_header.num_values;
            enc = h.data_page_header.encoding;
            if (h.data_page_header.has_statistics)
                ps = &h.data_page_header.statistics;
        } else if (h.type == PQ_DATA_PAGE_V2 && h.has_data_page_header_v2) {
            nv = h.data_page_header_v2.num_values;
            nr = h.data_page_header_v2.num_rows;
            enc = h.data_page_header_v2.encoding;
            if (h.data_page_header_v2.has_statistics)
                ps = &h.data_page_header_v2.statistics;
        } else {
            return pm_error_new(PM_ECORRUPT, "page %u of a chunk without dictionary has page type %d", page,
                                (int)h.type);
        }
        if (is_dict_encoding(enc))
            return pm_error_new(PM_ECORRUPT, "page %u is dictionary-encoded in a chunk without dictionary page", page);
        if (nv < 0 || nr != nv)
            return pm_error_new(PM_ECORRUPT, "page %u has %lld values for %lld rows of a flat column", page,
                                (long long)nv, (long long)nr);
        PM_TRY(count_page(l, h.type, enc));
        int64_t size = (int64_t)hl + h.compressed_page_size;
        /* page index entry: the input's ColumnIndex, else the header's statistics */
        int64_t nulls = 0;
        bool null_page = false, known = false;
        const uint8_t *mn = NULL, *mx = NULL;
        uint32_t nmn = 0, nmx = 0;
        if (have_ci && ci.n > page && ci.has_null_counts) {
            known = true;
            nulls = ci.null_counts[page];
            null_page = ci.null_pages[page];
            mn = ci.min[page], nmn = ci.min_len[page], mx = ci.max[page], nmx = ci.max_len[page];
        } else if (!have_ci && ps && ps->has_null_count && L->stats != PQS_F32 && L->stats != PQS_F64) {
            /* (not for floats: a writer drops a NaN page's index, while its
             * header statistics leave the NaN out) */
            known = true;
            nulls = ps->null_count;
            null_page = nv - nulls == 0;
            if (ps->has_min_value && ps->has_max_value)
                mn = ps->min_value, nmn = ps->min_value_len, mx = ps->max_value, nmx = ps->max_value_len;
            else
                known = null_page;
        }
        if (known && !null_page && (!width_ok(L, nmn) || !width_ok(L, nmx)))
            known = false;
        if (!known)
            l->no_ci = true;
        int64_t unenc = 0;
        if (have_oi && oi.has_unencoded && oi.n > page)
            unenc = oi.unencoded[page];
        else if (L->phys == PQ_BYTE_ARRAY)
            l->pidx.no_unencoded = true;
        PM_TRY(pq_page_index_add_bytes(&l->pidx, L, (int64_t)(base + pos), (int32_t)size, g->rows + rows,
                                       known ? nulls : 0, unenc, known && null_page, known ? mn : NULL, nmn,
                                       known ? mx : NULL, nmx));
        values += nv;
        rows += nr;
        pos += (size_t)size;
        page++;
    }
    if (values != cm->num_values || rows != rg_rows)
        return pm_error_new(PM_ECORRUPT, "the pages hold %lld values in %lld rows, the chunk says %lld values in "
                            "%lld rows", (long long)values, (long long)rows, (long long)cm->num_values,
                            (long long)rg_rows);
    if (have_ci && ci.n != page)
        l->no_ci = true;
    if (have_oi && oi.n != page && L->phys == PQ_BYTE_ARRAY)
        l->pidx.no_unencoded = true;
    for (uint32_t k = 0; k < cm->num_encodings; k++)
        add_encoding(l, cm->encodings[k]);
    l->values += cm->num_values;
    l->uncompressed += cm->total_uncompressed_size;
    return merge_stats(l, cm);
}

/* ------------------------------------------------------------------ */
/* re-encoded chunks                                                   */

static pm_error *init_writer(pm_pg_group *g, pg_leaf *l);

/* A chunk of a leaf the sample re-encodes, merged page by page into the
 * leaf's writer (pq_page_merge.h) when every page of it can be (no
 * dictionary, PLAIN values, RLE levels): *merged tells; otherwise nothing
 * happened and the chunk is decoded with the others. */
static pm_error *merge_chunk(pm_pg_group *g, pg_leaf *l, pm_input *in, const pq_column_chunk *cc, int64_t rg_rows,
                             bool *merged)
{
    *merged = false;
    const pq_column_meta *cm = &cc->meta_data;
    const pq_leaf *L = l->leaf;
    if (!l->reencode || !l->merge_ok || !chunk_copyable(cm))
        return NULL;
    PM_TRY(init_writer(g, l));
    if (l->cw.dict_on)
        return NULL;
    pm_buf_clear(&g->cbuf);
    PM_TRY(read_chunk(in, cm, &g->cbuf));
    const uint8_t *d = g->cbuf.data;
    size_t len = g->cbuf.len;
    int64_t values = 0;
    uint32_t npages = 0;
    for (size_t pos = 0; pos < len; npages++) {
        pq_page_header h;
        size_t hl = 0;
        PM_TRY(pm_pq_page_header_parse(&h, d + pos, len - pos, &hl));
        if (h.compressed_page_size < 0 || (uint64_t)h.compressed_page_size > len - pos - hl)
            return pm_error_new(PM_ECORRUPT, "page %u of %lld bytes runs past its column chunk", npages,
                                (long long)h.compressed_page_size);
        if (!pq_page_merge_ok(L, &h))
            return NULL; /* decoded */
        values += h.type == PQ_DATA_PAGE ? h.data_page_header.num_values : h.data_page_header_v2.num_values;
        pos += hl + (size_t)h.compressed_page_size;
    }
    if (values != cm->num_values || values != rg_rows)
        return pm_error_new(PM_ECORRUPT, "the pages hold %lld values, the chunk says %lld in %lld rows",
                            (long long)values, (long long)cm->num_values, (long long)rg_rows);
    /* fixed-width bounds from the ColumnIndex (exact); byte strings' may be
     * truncated: their min/max come from the values */
    pq_column_index ci;
    memset(&ci, 0, sizeof ci);
    bool have_ci = false;
    if (L->stats != PQS_BYTES)
        PM_TRY(read_index(g, in, true, cc, &ci, NULL, &have_ci));
    if (have_ci && ci.n != npages)
        have_ci = false;
    size_t pos = 0;
    for (uint32_t p = 0; p < npages; p++) {
        pq_page_header h;
        size_t hl = 0;
        PM_TRY(pm_pq_page_header_parse(&h, d + pos, len - pos, &hl));
        pq_merge_bounds b = {0};
        bool bounded = have_ci && !ci.null_pages[p] && ci.min[p] && ci.max[p];
        if (bounded)
            b = (pq_merge_bounds){ci.min[p], ci.max[p], ci.min_len[p], ci.max_len[p]};
        PM_TRY(pm_error_wrap(pq_colw_merge_page(&l->cw, &h, d + pos + hl, (pm_codec_id)cm->codec,
                                                bounded ? &b : NULL, &g->mbuf),
                             0, "page %u", p));
        pos += hl + (size_t)h.compressed_page_size;
    }
    *merged = true;
    return NULL;
}

static bool only_rg(void *ctx, const pm_pq_reader *r, uint32_t rg)
{
    (void)r;
    const bool *want = ctx;
    return want[rg];
}

static pm_error *decode_columns(pm_pg_group *g, pm_input *in, const pm_pq_file_meta *m, uint32_t rg)
{
    size_t n = 0;
    for (uint32_t c = 0; c < g->nleaves; c++) {
        pg_leaf *l = &g->leaves[c];
        if (!l->decode || l->merge_rg)
            continue;
        PM_TRY(init_writer(g, l));
        g->names[n] = l->leaf->path[0];
        g->tops[n++] = l->leaf->top;
    }
    if (!n)
        return NULL;
    free(g->want_rg);
    g->want_rg = NULL;
    PM_TRY(pm_calloc(&g->want_rg, m->num_row_groups, sizeof *g->want_rg));
    g->want_rg[rg] = true;
    pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
    ro.columns = g->names;
    ro.ncolumns = n;
    ro.filter = only_rg;
    ro.filter_ctx = g->want_rg;
    ro.codec = g->o.codec;
    ro.meta = m;            /* the footer is parsed once per input */
    ro.chunks_only = true;  /* the copied chunks are read by copy_chunk */
    ro.batch_rows = 8192;
    pm_pq_reader *r = NULL;
    PM_TRY(pm_pq_reader_open(&r, in, &ro));
    pm_error *e = NULL;
    int64_t got = 0;
    for (;;) {
        pm_batch *b = NULL;
        if ((e = pm_pq_reader_next_batch(r, &b)) || !b)
            break;
        size_t k = 0;
        for (uint32_t c = 0; !e && c < g->nleaves; c++) {
            pg_leaf *l = &g->leaves[c];
            if (l->decode && !l->merge_rg)
                e = pm_error_wrap(pq_colw_write(&l->cw, b->columns[k++], 0, b->num_rows), 0, "column '%s'",
                                  l->leaf->path[0]);
        }
        if (!e && g->o.on_batch)
            e = g->o.on_batch(g->o.ctx, b, g->tops, n);
        got += b->num_rows;
        if (e)
            break;
    }
    pm_pq_reader_free(r);
    if (!e && got != m->row_groups[rg].num_rows)
        e = pm_error_new(PM_ECORRUPT, "row group %u decoded to %lld rows, its footer says %lld", rg, (long long)got,
                         (long long)m->row_groups[rg].num_rows);
    return e;
}

static pm_error *init_writer(pm_pg_group *g, pg_leaf *l)
{
    if (!l->cw_init) {
        /* a column re-encoded because its plain pages compress better merged
         * was written without dictionary by every sampled input: no attempt */
        PM_TRY(pq_colw_init(&l->cw, l->leaf, l->reencode ? &g->plain : g->o.pq, g->o.codec));
        l->cw_init = true;
    }
    return NULL;
}

bool pm_pg_group_copies(const pm_pg_group *g)
{
    for (uint32_t c = 0; g->rows && c < g->nleaves; c++)
        if (!g->leaves[c].decode)
            return true;
    return false;
}

pm_error *pm_pg_group_add_rows(pm_pg_group *g, const pm_batch *b, int64_t r0, int64_t r1)
{
    if (pm_pg_group_copies(g))
        return pm_error_new(PM_EINTERNAL, "decoded rows into a row group that copies pages");
    for (uint32_t c = 0; c < g->nleaves; c++) {
        pg_leaf *l = &g->leaves[c];
        l->decode = true;
        PM_TRY(init_writer(g, l));
        if (l->leaf->top >= b->ncolumns)
            return pm_error_new(PM_EINTERNAL, "batch of %zu columns for field %u", b->ncolumns, l->leaf->top);
        PM_TRY(pm_error_wrap(pq_colw_write(&l->cw, b->columns[l->leaf->top], r0, r1), 0, "column '%s'",
                             l->leaf->path[0]));
    }
    g->rows += r1 - r0;
    return NULL;
}

pm_error *pm_pg_group_add(pm_pg_group *g, pm_input *in, const pm_pq_file_meta *m, uint32_t rg)
{
    const pq_row_group *r = &m->row_groups[rg];
    if (r->num_columns != g->nleaves)
        return pm_error_new(PM_EINTERNAL, "row group %u has %u columns, the output %u", rg, r->num_columns,
                            g->nleaves);
    if (!g->rows)
        for (uint32_t c = 0; c < g->nleaves; c++)
            g->leaves[c].decode = forced(g, &g->leaves[c]) || !chunk_copyable(&r->columns[c].meta_data);
    else if (!pm_pg_group_fits(g, m, rg))
        return pm_error_new(PM_EINTERNAL, "row group %u does not fit the pending row group", rg);
    pm_error *e = NULL;
    for (uint32_t c = 0; !e && c < g->nleaves; c++) {
        pg_leaf *l = &g->leaves[c];
        l->merge_rg = false;
        if (!l->decode)
            e = pm_error_wrap(copy_chunk(g, l, in, &r->columns[c], r->num_rows), 0, "column '%s' of row group %u",
                              l->leaf->path[0], rg);
        else
            e = pm_error_wrap(merge_chunk(g, l, in, &r->columns[c], r->num_rows, &l->merge_rg), 0,
                              "column '%s' of row group %u", l->leaf->path[0], rg);
        pm_arena_reset(&g->scratch);
    }
    if (!e)
        e = decode_columns(g, in, m, rg);
    if (e)
        return e;
    g->rows += r->num_rows;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* sampling                                                            */

/* The bytes a column's sample needs: about one merged page (the writer's
 * page limits at the sampled pages' bytes per value), at most SAMPLE_BYTES.
 * zstd picks its parameters by the input's size, so a sample of the merged
 * page's size predicts its ratio (a 160 KiB page of doubles compresses
 * markedly better than a 256 KiB sample), and costs no more than needed. */
static size_t sample_target(const pm_pg_group *g, const pg_leaf *l)
{
    if (!l->sample_values || !l->sample.len)
        return SAMPLE_BYTES;
    double page = (double)l->sample.len / (double)l->sample_values * (double)g->o.pq->page_row_limit;
    if (page > (double)g->o.pq->page_size)
        page = (double)g->o.pq->page_size;
    return page < (double)SAMPLE_BYTES ? (size_t)page : SAMPLE_BYTES;
}

/* The v1 data pages of one input chunk, decompressed, to the leaf's sample. */
static pm_error *sample_chunk(pm_pg_group *g, pg_leaf *l, pm_input *in, const pq_column_meta *cm)
{
    size_t len = (size_t)cm->total_compressed_size;
    pm_buf_clear(&g->ibuf);
    PM_TRY(read_chunk(in, cm, &g->ibuf));
    const uint8_t *d = g->ibuf.data;
    for (size_t pos = 0; pos < len && l->sample.len < sample_target(g, l);) {
        pq_page_header h;
        size_t hl = 0;
        PM_TRY(pm_pq_page_header_parse(&h, d + pos, len - pos, &hl));
        if (h.compressed_page_size < 0 || (uint64_t)h.compressed_page_size > len - pos - hl ||
            h.uncompressed_page_size < 0 || h.uncompressed_page_size > MAX_SAMPLE_PAGE)
            return pm_error_new(PM_ECORRUPT, "page of %d bytes (%d uncompressed) in a chunk of %zu bytes",
                                (int)h.compressed_page_size, (int)h.uncompressed_page_size, len);
        if (h.type == PQ_DATA_PAGE) { /* v2 pages are not sampled */
            size_t at = l->sample.len;
            PM_TRY(pm_buf_reserve(&l->sample, (size_t)h.uncompressed_page_size));
            PM_TRY(pm_codec_decompress(g->o.codec, (pm_codec_id)cm->codec, d + pos + hl,
                                       (size_t)h.compressed_page_size, l->sample.data + at,
                                       (size_t)h.uncompressed_page_size));
            l->sample.len += (size_t)h.uncompressed_page_size;
            l->sample_comp += h.compressed_page_size;
            l->sample_values += h.has_data_page_header ? h.data_page_header.num_values : 0;
        }
        pos += hl + (size_t)h.compressed_page_size;
    }
    return NULL;
}

pm_error *pm_pg_sample(pm_pg_group *g, pm_input *in, const pm_pq_file_meta *m, bool *done)
{
    *done = true;
    for (uint32_t rg = 0; rg < m->num_row_groups; rg++) {
        const pq_row_group *r = &m->row_groups[rg];
        if (r->num_columns != g->nleaves)
            return pm_error_new(PM_EINTERNAL, "row group %u has %u columns, the output %u", rg, r->num_columns,
                                g->nleaves);
        for (uint32_t c = 0; c < g->nleaves; c++) {
            pg_leaf *l = &g->leaves[c];
            const pq_column_meta *cm = &r->columns[c].meta_data;
            if (forced(g, l) || !chunk_copyable(cm) || l->sample.len >= sample_target(g, l))
                continue;
            PM_TRY(pm_error_wrap(sample_chunk(g, l, in, cm), 0, "column '%s' of row group %u", l->leaf->path[0],
                                 rg));
        }
    }
    for (uint32_t c = 0; c < g->nleaves; c++)
        if (!forced(g, &g->leaves[c]) && g->leaves[c].sample.len < sample_target(g, &g->leaves[c]))
            *done = false;
    return NULL;
}

pm_error *pm_pg_sample_decide(pm_pg_group *g)
{
    pm_buf z = PM_BUF_INIT;
    pm_error *e = NULL;
    for (uint32_t c = 0; !e && c < g->nleaves; c++) {
        pg_leaf *l = &g->leaves[c];
        if (l->sample.len && l->sample_comp > 0)
            g->sampled = true;
        if (g->o.reencode_ratio > 0 && l->sample.len && l->sample_comp > 0) {
            pm_buf_clear(&z);
            e = pm_codec_compress(g->o.codec, g->o.pq->codec, g->o.pq->codec_level, l->sample.data, l->sample.len,
                                  &z);
            if (!e && (double)z.len <= g->o.reencode_ratio * (double)l->sample_comp)
                l->reencode = true;
        }
        pm_buf_free(&l->sample);
        l->sample_comp = l->sample_values = 0;
    }
    pm_buf_free(&z);
    return e;
}

/* The decision's validity: the writer settings the sample was judged by
 * and the leaves always re-encoded (indexed fields). */
pm_error *pm_pg_decision_key(const pm_pg_group *g, pm_buf *key)
{
    PM_TRY(pm_buf_printf(key, "codec=%d:%d;page=%lld:%lld;ratio=%.6f;leaves=%u;forced=", (int)g->o.pq->codec,
                         g->o.pq->codec_level, (long long)g->o.pq->page_size, (long long)g->o.pq->page_row_limit,
                         g->o.reencode_ratio, g->nleaves));
    for (uint32_t c = 0; c < g->nleaves; c++)
        PM_TRY(pm_buf_append_byte(key, g->o.force_decode && g->o.force_decode[g->leaves[c].leaf->top] ? '1' : '0'));
    return NULL;
}

pm_error *pm_pg_decision_get(const pm_pg_group *g, pm_buf *out, bool *sampled)
{
    *sampled = g->sampled;
    for (uint32_t c = 0; c < g->nleaves; c++)
        PM_TRY(pm_buf_append_byte(out, g->leaves[c].reencode ? '1' : '0'));
    return NULL;
}

pm_error *pm_pg_decision_set(pm_pg_group *g, const uint8_t *d, size_t n)
{
    if (n != g->nleaves)
        return pm_error_new(PM_EINTERNAL, "a page passthrough decision of %zu columns for %u", n, g->nleaves);
    for (uint32_t c = 0; c < g->nleaves; c++) {
        if (d[c] != '0' && d[c] != '1')
            return pm_error_new(PM_EINTERNAL, "page passthrough decision byte %u is %d", c, (int)d[c]);
    }
    for (uint32_t c = 0; c < g->nleaves; c++) {
        g->leaves[c].reencode = d[c] == '1';
        pm_buf_free(&g->leaves[c].sample);
        g->leaves[c].sample_comp = g->leaves[c].sample_values = 0;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* output                                                              */

static void group_clear(pm_pg_group *g, bool drop_writers);

static pm_error *index_out(pm_buf *ci, pm_buf *oi, pq_column_chunk *cc, const pm_buf *ci_ser, bool has_ci,
                           const pm_buf *oi_ser)
{
    if (has_ci) {
        cc->has_column_index = true;
        cc->column_index_offset = (int64_t)ci->len;
        cc->column_index_length = (int32_t)ci_ser->len;
        PM_TRY(pm_buf_append(ci, ci_ser->data, ci_ser->len));
    }
    cc->has_offset_index = true;
    cc->offset_index_offset = (int64_t)oi->len;
    cc->offset_index_length = (int32_t)oi_ser->len;
    return pm_buf_append(oi, oi_ser->data, oi_ser->len);
}

static pm_error *flush_copied(pg_leaf *l, pm_output *out, pm_arena *a, pq_column_chunk *cc, pm_buf *ci,
                              pm_buf *oi)
{
    const pq_leaf *L = l->leaf;
    memset(cc, 0, sizeof *cc);
    cc->has_meta_data = true;
    pq_column_meta *m = &cc->meta_data;
    m->data_page_offset = (int64_t)pm_output_pos(out);
    PM_TRY(pq_page_blocks_write(&l->data, out));
    m->type = L->phys;
    m->encodings = pm_arena_alloc(a, sizeof(int32_t) * (l->nenc ? l->nenc : 1), _Alignof(int32_t));
    m->encoding_stats = pm_arena_alloc(a, sizeof *m->encoding_stats * (l->nes ? l->nes : 1),
                                       _Alignof(pq_page_encoding_stats));
    if (!m->encodings || !m->encoding_stats)
        return pm_oom();
    memcpy(m->encodings, l->enc, sizeof(int32_t) * l->nenc);
    m->num_encodings = l->nenc;
    for (uint32_t k = 0; k < l->nes; k++)
        m->encoding_stats[k] = (pq_page_encoding_stats){l->es[k].page_type, l->es[k].encoding, l->es[k].count};
    m->num_encoding_stats = l->nes;
    m->path_in_schema = L->path;
    m->path_len = L->path_len;
    m->codec = -1; /* set by the caller's codec below */
    m->num_values = l->values;
    m->total_uncompressed_size = l->uncompressed;
    m->total_compressed_size = (int64_t)l->data.len;
    PM_TRY(stats_out(l, a, m));
    m->has_size_statistics = true;
    PM_TRY(pq_page_index_size_stats(&l->pidx, L, a, &m->size_statistics));
    pm_buf cis = PM_BUF_INIT, ois = PM_BUF_INIT;
    bool has_ci = false;
    pm_error *e = NULL;
    if (!l->no_ci)
        e = pq_page_index_column_index(&l->pidx, L, &cis, &has_ci);
    if (!e)
        e = pq_page_index_offset_index(&l->pidx, L, m->data_page_offset, &ois);
    if (!e)
        e = index_out(ci, oi, cc, &cis, has_ci, &ois);
    pm_buf_free(&cis);
    pm_buf_free(&ois);
    return e;
}

pm_error *pm_pg_group_flush(pm_pg_group *g, pm_output *out, pm_arena *a, pq_row_group *dst, pm_buf *ci,
                            pm_buf *oi)
{
    memset(dst, 0, sizeof *dst);
    dst->columns = pm_arena_calloc(a, sizeof(pq_column_chunk) * (g->nleaves ? g->nleaves : 1),
                                   _Alignof(pq_column_chunk));
    if (!dst->columns)
        return pm_oom();
    int64_t start = (int64_t)pm_output_pos(out);
    for (uint32_t c = 0; c < g->nleaves; c++) {
        pg_leaf *l = &g->leaves[c];
        pq_column_chunk *cc = &dst->columns[c];
        if (l->decode) {
            PM_TRY(pm_error_wrap(pq_colw_flush_chunk(&l->cw, out, a, cc), 0, "column '%s'", l->leaf->path[0]));
            PM_TRY(index_out(ci, oi, cc, &l->cw.ci_ser, l->cw.has_ci, &l->cw.oi_ser));
        } else {
            PM_TRY(pm_error_wrap(flush_copied(l, out, a, cc, ci, oi), 0, "column '%s'", l->leaf->path[0]));
            cc->meta_data.codec = (int32_t)g->o.pq->codec;
        }
        dst->total_byte_size += cc->meta_data.total_uncompressed_size;
    }
    dst->num_columns = g->nleaves;
    dst->num_rows = g->rows;
    dst->has_file_offset = true;
    dst->file_offset = start;
    dst->has_total_compressed_size = true;
    dst->total_compressed_size = (int64_t)pm_output_pos(out) - start;
    group_clear(g, false);
    return NULL;
}

/* Empty the group; drop_writers also frees the column writers (whose
 * buffers may hold a failed add's pages). */
static void group_clear(pm_pg_group *g, bool drop_writers)
{
    for (uint32_t c = 0; c < g->nleaves; c++) {
        pg_leaf *l = &g->leaves[c];
        if (drop_writers && l->cw_init) {
            pq_colw_free(&l->cw);
            l->cw_init = false;
        }
        leaf_reset(l);
    }
    g->rows = 0;
}

void pm_pg_group_reset(pm_pg_group *g) { group_clear(g, true); }
