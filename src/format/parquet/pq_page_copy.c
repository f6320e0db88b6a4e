/*
 * format/parquet/pq_page_copy.c — offered input pages taken into a column
 * writer's chunk unchanged, and lazy offers whose rows carry no values
 * (rules and steps in pq_page_copy.h).
 */
#include "format/parquet/pq_page_copy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_decode.h"

/* Elements of the subtree at e[i] (itself included); n bounds the walk. */
static uint32_t subtree(const pq_schema_element *e, uint32_t n, uint32_t i)
{
    uint32_t end = i + 1;
    int32_t kids = e[i].has_num_children ? e[i].num_children : 0;
    for (int32_t k = 0; k < kids && end < n; k++)
        end += subtree(e, n, end);
    return end - i;
}

const pq_schema_element *pq_schema_top_element(const pq_schema_element *e, uint32_t n, const char *name)
{
    if (!n || !e[0].has_num_children)
        return NULL;
    uint32_t i = 1;
    for (int32_t k = 0; k < e[0].num_children && i < n; k++) {
        if (e[i].name && strcmp(e[i].name, name) == 0)
            return &e[i];
        i += subtree(e, n, i);
    }
    return NULL;
}

bool pq_schema_same_storage(const pq_schema_element *a, const pq_schema_element *b)
{
    if (a->has_num_children || b->has_num_children || !a->has_type || !b->has_type || a->type != b->type)
        return false;
    if (a->has_type_length != b->has_type_length || (a->has_type_length && a->type_length != b->type_length))
        return false;
    int32_t ra = a->has_repetition ? a->repetition : 0, rb = b->has_repetition ? b->repetition : 0;
    if (ra != rb || a->has_converted_type != b->has_converted_type ||
        (a->has_converted_type && a->converted_type != b->converted_type))
        return false;
    if (a->has_scale != b->has_scale || (a->has_scale && a->scale != b->scale) ||
        a->has_precision != b->has_precision || (a->has_precision && a->precision != b->precision))
        return false;
    if (a->has_logical_type != b->has_logical_type)
        return false;
    if (!a->has_logical_type)
        return true;
    const pq_logical_type *x = &a->logical_type, *y = &b->logical_type;
    return x->kind == y->kind && x->decimal_scale == y->decimal_scale && x->decimal_precision == y->decimal_precision &&
           x->is_adjusted_to_utc == y->is_adjusted_to_utc && x->unit == y->unit &&
           x->int_bit_width == y->int_bit_width && x->int_is_signed == y->int_is_signed;
}

/* The width of a lazy offer's fixed min/max for the leaf (0: byte
 * strings), or -1 when the leaf takes no lazy offer. */
static int lazy_width(const pq_leaf *l)
{
    if (!l->flat || l->max_rep > 0 || l->max_def > 1)
        return -1;
    switch (l->kind) {
    case PQV_I32:
        return l->stats == PQS_I32 ? 4 : -1;
    case PQV_F32:
        return l->stats == PQS_F32 ? 4 : -1;
    case PQV_I64:
        return l->stats == PQS_I64 ? 8 : -1;
    case PQV_F64:
        return l->stats == PQS_F64 ? 8 : -1;
    case PQV_BYTES:
        return l->stats == PQS_BYTES ? 0 : -1;
    default:
        return -1;
    }
}

/* A float min/max the facts cannot stand for: zero (its sign is the
 * values') or NaN. */
static bool float_unsure(const uint8_t *p, int w)
{
    double d;
    if (w == 4) {
        float f;
        memcpy(&f, p, 4);
        d = f;
    } else {
        memcpy(&d, p, 8);
    }
    return d == 0 || isnan(d);
}

static bool facts_exact(const pq_leaf *l, const pq_page_facts *f, int64_t rows)
{
    int w = lazy_width(l);
    if (w < 0 || f->null_count < 0 || f->null_count > rows || (f->null_count > 0 && l->max_def == 0))
        return false;
    if (f->all_null)
        return f->null_count == rows;
    if (f->null_count == rows || !f->min || !f->max)
        return false;
    if (w == 0)
        return f->unencoded >= 0 && f->min_len <= PQ_LAZY_MAX_BYTES && f->max_len <= PQ_LAZY_MAX_BYTES;
    if (f->min_len != (uint32_t)w || f->max_len != (uint32_t)w)
        return false;
    if ((l->kind == PQV_F32 || l->kind == PQV_F64) && (float_unsure(f->min, w) || float_unsure(f->max, w)))
        return false;
    return true;
}

pm_error *pq_colw_offer_page(pq_colw *cw, const uint8_t *page, size_t len, pm_codec_id codec, int64_t rows,
                             const pq_page_facts *facts, bool *taken)
{
    *taken = false;
    const pq_leaf *l = cw->leaf;
    if (!l->flat || l->max_rep > 0 || rows <= 0 || rows > INT32_MAX || codec != cw->opt->codec ||
        codec == PM_CODEC_NONE)
        return NULL;
    if (facts && !facts_exact(l, facts, rows))
        return NULL;
    if (cw->dict_on) {
        /* a chunk that holds no value yet may start PLAIN */
        if (!(cw->first_page && cw->page_values == 0 && cw->dict.count == 0 && !cw->fwd_dict))
            return NULL;
    }
    pq_page_header h;
    size_t hl = 0;
    pm_error *e = pm_pq_page_header_parse(&h, page, len, &hl);
    if (e) {
        pm_error_free(e); /* not a page we can vouch for: encoded as usual */
        return NULL;
    }
    if (h.type != PQ_DATA_PAGE || !h.has_data_page_header || h.data_page_header.num_values != rows ||
        h.data_page_header.encoding != PQ_ENC_PLAIN || h.compressed_page_size < 0 ||
        (size_t)h.compressed_page_size != len - hl || h.uncompressed_page_size < 0 ||
        (l->max_def > 0 && h.data_page_header.definition_level_encoding != PQ_ENC_RLE))
        return NULL;
    PM_TRY(pq_colw_close_page(cw));
    cw->copy.len = 0;
    PM_TRY(pm_buf_append(&cw->copy, page, len));
    cw->dict_on = false;
    cw->copy_rows = rows;
    cw->copy_uncompressed = (int64_t)hl + h.uncompressed_page_size;
    cw->copy_lazy = facts != NULL;
    if (facts) {
        cw->lazy_nulls = facts->null_count;
        cw->lazy_all_null = facts->all_null;
        cw->lazy_unencoded = facts->unencoded;
        cw->lazy_body = h.uncompressed_page_size;
        cw->lazy_total = rows;
        cw->subst_left = 0;
        cw->lazy_min.len = cw->lazy_max.len = 0;
        if (!facts->all_null) {
            PM_TRY(pm_buf_append(&cw->lazy_min, facts->min, facts->min_len));
            PM_TRY(pm_buf_append(&cw->lazy_max, facts->max, facts->max_len));
        }
    }
    *taken = true;
    return NULL;
}

pm_error *pq_colw_lazy_rows(pq_colw *cw, int64_t n)
{
    cw->page_rows += n;
    cw->page_values += n;
    /* the raw size (row groups and files are cut on it): for fixed-width
     * values without nulls what their encoding would count (levels: one
     * run, their encoder run as usual), else it grows in proportion to the
     * page's body */
    int w = lazy_width(cw->leaf);
    if (w > 0 && cw->lazy_nulls == 0) {
        cw->page_raw += (int64_t)w * n;
        if (cw->leaf->max_def > 0)
            PM_TRY(pq_rle_put_run(&cw->def_enc, 1, (uint64_t)n));
    } else {
        cw->page_raw = cw->copy_rows > 0 ? cw->lazy_body * cw->page_rows / cw->copy_rows : 0;
    }
    return NULL;
}

/* The first `rows` rows of the offered page decoded into lazy_col. */
static pm_error *lazy_decode(pq_colw *cw, int64_t k)
{
    const pq_leaf *l = cw->leaf;
    pq_page_header h;
    size_t hl = 0;
    PM_TRY(pm_pq_page_header_parse(&h, cw->copy.data, cw->copy.len, &hl));
    size_t ul = (size_t)h.uncompressed_page_size;
    cw->lazy_page.len = 0;
    PM_TRY(pm_buf_reserve(&cw->lazy_page, ul ? ul : 1));
    PM_TRY(pm_codec_decompress(cw->codec, cw->opt->codec, cw->copy.data + hl, cw->copy.len - hl, cw->lazy_page.data,
                               ul));
    const uint8_t *p = cw->lazy_page.data, *end = p + ul;
    uint16_t *def = NULL;
    pm_error *e = NULL;
    if (l->max_def > 0) {
        uint32_t dl = 0;
        if (end - p < 4)
            return pm_error_new(PM_ECORRUPT, "offered page: no definition levels");
        memcpy(&dl, p, 4);
        p += 4;
        if (dl > (size_t)(end - p))
            return pm_error_new(PM_ECORRUPT, "offered page: definition levels past its end");
        pqd_rle rle;
        PM_TRY(pm_calloc(&def, k ? (size_t)k : 1, sizeof *def));
        e = pqd_rle_init(&rle, p, dl, 1);
        if (!e)
            e = pqd_rle_get_u16(&rle, def, (size_t)k);
        p += dl;
    }
    if (!e && !cw->lazy_col)
        e = pm_column_new(&cw->lazy_col, l->type);
    else if (!e)
        pm_column_reset(cw->lazy_col);
    pm_column *c = cw->lazy_col;
    for (int64_t i = 0; !e && i < k; i++) {
        if (def && def[i] == 0) {
            e = pm_column_append_null(c);
            continue;
        }
        uint32_t n = l->kind == PQV_I32 || l->kind == PQV_F32 ? 4 : 8;
        if (l->kind == PQV_BYTES) {
            if (end - p < 4) {
                e = pm_error_new(PM_ECORRUPT, "offered page: values past its end");
                break;
            }
            memcpy(&n, p, 4);
            p += 4;
        }
        if (n > (size_t)(end - p)) {
            e = pm_error_new(PM_ECORRUPT, "offered page: values past its end");
            break;
        }
        union {
            int32_t i32;
            int64_t i64;
            float f32;
            double f64;
        } v;
        if (l->kind != PQV_BYTES)
            memcpy(&v, p, n);
        switch (l->kind) {
        case PQV_I32:
            e = pm_column_append_i32(c, v.i32);
            break;
        case PQV_I64:
            e = pm_column_append_i64(c, v.i64);
            break;
        case PQV_F32:
            e = pm_column_append_f32(c, v.f32);
            break;
        case PQV_F64:
            e = pm_column_append_f64(c, v.f64);
            break;
        default:
            e = pm_column_append_bytes(c, p, n);
            break;
        }
        p += n;
    }
    free(def);
    return e ? pm_error_wrap(e, 0, "decoding the rows of an offered page") : NULL;
}

/* A lazy offer's rows given so far, decoded from the offered page and
 * encoded into the open page as if given with their values; the offer
 * becomes an ordinary one (copied or not as pq_colw_put_offered decides).
 * rest: the offer ends before its page does (a row group closes): the
 * page's other rows are decoded too and stand in for the values of the
 * next rows given (pq_colw_write). */
static pm_error *lazy_values(pq_colw *cw, bool rest)
{
    int64_t k = cw->page_rows, total = cw->lazy_total;
    cw->copy_lazy = false;
    cw->page_rows = 0;
    cw->page_values = 0;
    cw->page_raw = 0;
    /* the levels counted so far (pq_colw_lazy_rows) are encoded again below */
    pm_buf_clear(&cw->def_buf);
    pq_rle_init(&cw->def_enc, &cw->def_buf, cw->def_width);
    int64_t n = rest ? total : k;
    if (n == 0)
        return NULL;
    PM_TRY(lazy_decode(cw, n));
    if (k)
        PM_TRY(pq_colw_put_rows(cw, cw->lazy_col, 0, k));
    cw->subst_at = k;
    cw->subst_left = rest ? total - k : 0;
    return NULL;
}

pm_error *pq_colw_cancel_page(pq_colw *cw)
{
    if (cw->copy_lazy)
        PM_TRY(lazy_values(cw, false));
    cw->copy_rows = 0;
    cw->subst_left = 0; /* the rows from now on are not the page's */
    return NULL;
}

pm_error *pq_colw_offer_ends(pq_colw *cw)
{
    if (cw->copy_lazy)
        PM_TRY(lazy_values(cw, true));
    cw->copy_rows = 0;
    return NULL;
}

bool pq_colw_lazy_pending(const pq_colw *cw) { return cw->copy_lazy || cw->subst_left > 0; }

/* A lazy offer's page statistics from its facts. */
static pm_error *lazy_stats(pq_colw *cw)
{
    const pq_leaf *l = cw->leaf;
    pq_stats *st = &cw->pstats;
    st->null_count = cw->lazy_nulls;
    cw->page_unencoded = l->kind == PQV_BYTES ? cw->lazy_unencoded : 0;
    if (cw->lazy_all_null)
        return NULL;
    const uint8_t *mn = cw->lazy_min.data, *mx = cw->lazy_max.data;
    switch (l->kind) {
    case PQV_I32: {
        int32_t v[2];
        memcpy(&v[0], mn, 4);
        memcpy(&v[1], mx, 4);
        pq_stats_update_i32(st, v, 2);
        return NULL;
    }
    case PQV_F32: {
        float v[2];
        memcpy(&v[0], mn, 4);
        memcpy(&v[1], mx, 4);
        pq_stats_update_f32(st, v, 2);
        return NULL;
    }
    case PQV_I64: {
        int64_t v[2];
        memcpy(&v[0], mn, 8);
        memcpy(&v[1], mx, 8);
        pq_stats_update_i64(st, v, 2);
        return NULL;
    }
    case PQV_F64: {
        double v[2];
        memcpy(&v[0], mn, 8);
        memcpy(&v[1], mx, 8);
        pq_stats_update_f64(st, v, 2);
        return NULL;
    }
    default:
        PM_TRY(pq_stats_update_bytes(st, mn, cw->lazy_min.len));
        return pq_stats_update_bytes(st, mx, cw->lazy_max.len);
    }
}

pm_error *pq_colw_put_offered(pq_colw *cw, bool *done)
{
    *done = false;
    int64_t rows = cw->copy_rows;
    cw->copy_rows = 0;
    bool lazy = cw->copy_lazy;
    if (lazy) {
        if (!rows || cw->page_rows != rows || cw->page_values != rows || cw->dict_on)
            return lazy_values(cw, true); /* encoded as usual by the caller */
        cw->copy_lazy = false;
        PM_TRY(lazy_stats(cw));
    }
    if (!rows || cw->page_rows != rows || cw->page_values != rows || cw->dict_on)
        return NULL;
    const pq_leaf *l = cw->leaf;
    uint64_t at = cw->chunk.len;
    uint8_t *to;
    PM_TRY(pq_page_blocks_take(&cw->chunk, cw->opt->buffers, cw->copy.len, &to));
    memcpy(to, cw->copy.data, cw->copy.len);
    PM_TRY(pq_page_index_add(&cw->pidx, l, &cw->pstats, cw->page_values, (int64_t)at, (int32_t)cw->copy.len,
                             cw->chunk_rows, cw->page_unencoded, cw->rep_hist, cw->def_hist));
    PM_TRY(pq_stats_merge(&cw->stats, &cw->pstats));
    cw->first_page = false;
    cw->chunk_rows += cw->page_rows;
    cw->chunk_uncompressed += cw->copy_uncompressed;
    cw->chunk_values += cw->page_values;
    cw->pages_plain++;
    cw->copied++;
    cw->copied_lazy += lazy;
    *done = true;
    return NULL;
}
