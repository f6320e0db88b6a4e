/*
 * format/parquet/pq_write_index.c — page index (ColumnIndex, OffsetIndex)
 * and size statistics of a column chunk (layout and rules in
 * pq_write_index.h).
 */
#include "format/parquet/pq_write_index.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/utf8.h"
#include "format/parquet/thrift.h"

void pq_page_index_reset(pq_page_index *pi)
{
    pi->n = 0;
    pm_buf_clear(&pi->vals);
    pm_buf_clear(&pi->rep_hist);
    pm_buf_clear(&pi->def_hist);
    pi->invalid = false;
    pi->no_unencoded = false;
}

void pq_page_index_free(pq_page_index *pi)
{
    free(pi->pages);
    pm_buf_free(&pi->vals);
    pm_buf_free(&pi->rep_hist);
    pm_buf_free(&pi->def_hist);
    memset(pi, 0, sizeof *pi);
}

/* ---- UTF-8 and truncation ------------------------------------------------ */

/* Longest prefix of at most `limit` bytes that is valid UTF-8 (0 if none). */
static size_t utf8_prefix(const uint8_t *v, size_t limit)
{
    size_t k = limit;
    while (k > 0 && !pm_utf8_valid(v, k))
        k--;
    return k;
}

size_t pq_truncate_min(const uint8_t *v, size_t n, size_t limit, uint8_t *out)
{
    size_t k = n;
    if (n > limit) {
        k = pm_utf8_valid(v, n) ? utf8_prefix(v, limit) : limit;
        if (k == 0)
            k = n;   /* cannot shorten: keep the whole value */
    }
    if (k)
        memcpy(out, v, k);
    return k;
}

size_t pq_truncate_max(const uint8_t *v, size_t n, size_t limit, uint8_t *out)
{
    if (n > limit) {
        if (pm_utf8_valid(v, n)) {
            size_t k = utf8_prefix(v, limit);
            memcpy(out, v, k);
            /* raise the last byte that can go up by one and stay valid UTF-8 */
            for (size_t i = k; i-- > 0;) {
                uint8_t prev = out[i];
                if (prev != 0xFF) {
                    out[i] = (uint8_t)(prev + 1);
                    if (pm_utf8_valid(out, k))
                        return k;
                }
                out[i] = prev;
            }
        } else {
            memcpy(out, v, limit);
            for (size_t i = limit; i-- > 0;)
                if (++out[i] != 0)
                    return limit;
        }
    }
    if (n)
        memcpy(out, v, n);   /* short enough, or no larger prefix exists */
    return n;
}

/* ---- recording pages ----------------------------------------------------- */

pm_error *pq_page_index_add_bytes(pq_page_index *pi, const pq_leaf *leaf, int64_t offset, int32_t size,
                                  int64_t first_row, int64_t null_count, int64_t unencoded, bool null_page,
                                  const uint8_t *vmin, size_t nmin, const uint8_t *vmax, size_t nmax)
{
    if (pi->n == pi->cap) {
        size_t cap = pi->cap ? pi->cap * 2 : 16;
        PM_TRY(pm_realloc_array(&pi->pages, cap, sizeof *pi->pages));
        pi->cap = cap;
    }
    pq_page_info *p = &pi->pages[pi->n];
    memset(p, 0, sizeof *p);
    p->offset = offset;
    p->size = size;
    p->first_row = first_row;
    p->null_count = null_count;
    p->unencoded = unencoded;
    p->null_page = null_page;
    if (!null_page && vmin && vmax) {
        PM_TRY(pm_buf_reserve(&pi->vals, nmin + nmax + 1));   /* never NULL below */
        uint8_t *d = pi->vals.data + pi->vals.len;
        if (leaf->phys == PQ_BYTE_ARRAY) {
            p->min_len = (uint32_t)pq_truncate_min(vmin, nmin, PQ_COLUMN_INDEX_TRUNCATE, d);
            p->max_len = (uint32_t)pq_truncate_max(vmax, nmax, PQ_COLUMN_INDEX_TRUNCATE, d + p->min_len);
        } else {
            memcpy(d, vmin, nmin);
            memcpy(d + nmin, vmax, nmax);
            p->min_len = (uint32_t)nmin;
            p->max_len = (uint32_t)nmax;
        }
        p->min_off = (uint32_t)pi->vals.len;
        p->max_off = p->min_off + p->min_len;
        pi->vals.len += p->min_len + p->max_len;
    }
    pi->n++;
    return NULL;
}

pm_error *pq_page_index_add(pq_page_index *pi, const pq_leaf *leaf, const pq_stats *st, int64_t values,
                            int64_t offset, int32_t size, int64_t first_row, int64_t unencoded,
                            const int64_t *rep_hist, const int64_t *def_hist)
{
    if (st->has_nan)
        pi->invalid = true;
    bool null_page = values - st->null_count == 0;
    uint8_t bmin[16], bmax[16];
    const uint8_t *vmin = NULL, *vmax = NULL;
    size_t nmin = 0, nmax = 0;
    if (!null_page && st->has_minmax && st->kind != PQS_INT96) {
        nmin = pq_stats_value_bytes(st, 0, leaf->type_length, bmin, &vmin);
        nmax = pq_stats_value_bytes(st, 1, leaf->type_length, bmax, &vmax);
    }
    PM_TRY(pq_page_index_add_bytes(pi, leaf, offset, size, first_row, st->null_count, unencoded, null_page, vmin,
                                   nmin, vmax, nmax));
    if (rep_hist)
        PM_TRY(pm_buf_append(&pi->rep_hist, rep_hist, sizeof(int64_t) * (size_t)(leaf->max_rep + 1)));
    if (def_hist)
        PM_TRY(pm_buf_append(&pi->def_hist, def_hist, sizeof(int64_t) * (size_t)(leaf->max_def + 1)));
    return NULL;
}

/* ---- boundary order ------------------------------------------------------ */

int pq_plain_compare(const pq_leaf *l, const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    switch (l->stats) {
    case PQS_BOOL:
        return (a[0] > b[0]) - (a[0] < b[0]);
    case PQS_I32: {
        int32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PQS_I64: {
        int64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PQS_F32: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PQS_F64: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PQS_DEC128:   /* big-endian two's complement, equal widths */
        if ((a[0] ^ b[0]) & 0x80)
            return (a[0] & 0x80) ? -1 : 1;
        return memcmp(a, b, na);
    default: {         /* unsigned lexicographic */
        size_t n = na < nb ? na : nb;
        int c = n ? memcmp(a, b, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return (na > nb) - (na < nb);
    }
    }
}

/* 1 ASCENDING, 2 DESCENDING, 0 UNORDERED (thrift BoundaryOrder). */
static int32_t boundary_order(const pq_page_index *pi, const pq_leaf *l)
{
    bool asc = true, desc = true;
    const pq_page_info *prev = NULL;
    static const uint8_t none[1];
    const uint8_t *v = pi->vals.data ? pi->vals.data : none; /* no bounds kept yet: every length is 0 */
    for (size_t i = 0; i < pi->n; i++) {
        const pq_page_info *p = &pi->pages[i];
        if (p->null_page)
            continue;
        if (prev) {
            int cmin = pq_plain_compare(l, v + prev->min_off, prev->min_len, v + p->min_off, p->min_len);
            int cmax = pq_plain_compare(l, v + prev->max_off, prev->max_len, v + p->max_off, p->max_len);
            if (cmin > 0 || cmax > 0)
                asc = false;
            if (cmin < 0 || cmax < 0)
                desc = false;
        }
        prev = p;
    }
    return asc ? 1 : desc ? 2 : 0;
}

/* ---- serialization ------------------------------------------------------- */

static pm_error *i64_list(pq_thrift_writer *w, int16_t id, const int64_t *v, size_t n)
{
    PM_TRY(pq_thrift_w_field(w, id, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(w, PQ_TT_I64, (uint32_t)n));
    for (size_t i = 0; i < n; i++)
        PM_TRY(pq_thrift_w_i64(w, v[i]));
    return NULL;
}

pm_error *pq_page_index_column_index(const pq_page_index *pi, const pq_leaf *leaf, pm_buf *out,
                                     bool *written)
{
    *written = false;
    if (pi->n == 0 || pi->invalid || leaf->stats == PQS_INT96)
        return NULL;
    pq_thrift_writer w;
    pq_thrift_writer_init(&w, out);
    PM_TRY(pq_thrift_w_struct_begin(&w));
    PM_TRY(pq_thrift_w_field(&w, 1, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(&w, PQ_TT_BOOL_TRUE, (uint32_t)pi->n));
    for (size_t i = 0; i < pi->n; i++)
        PM_TRY(pq_thrift_w_bool_elem(&w, pi->pages[i].null_page));
    for (int16_t f = 2; f <= 3; f++) {
        PM_TRY(pq_thrift_w_field(&w, f, PQ_TT_LIST));
        PM_TRY(pq_thrift_w_list(&w, PQ_TT_BINARY, (uint32_t)pi->n));
        for (size_t i = 0; i < pi->n; i++) {
            const pq_page_info *p = &pi->pages[i];
            uint32_t off = f == 2 ? p->min_off : p->max_off, len = f == 2 ? p->min_len : p->max_len;
            PM_TRY(pq_thrift_w_binary(&w, len ? pi->vals.data + off : (const uint8_t *)"", len));
        }
    }
    PM_TRY(pq_thrift_w_field_i32(&w, 4, boundary_order(pi, leaf)));
    PM_TRY(pq_thrift_w_field(&w, 5, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(&w, PQ_TT_I64, (uint32_t)pi->n));
    for (size_t i = 0; i < pi->n; i++)
        PM_TRY(pq_thrift_w_i64(&w, pi->pages[i].null_count));
    if (pq_has_rep_hist(leaf))
        PM_TRY(i64_list(&w, 6, (const int64_t *)(const void *)pi->rep_hist.data, pi->rep_hist.len / 8));
    if (pq_has_def_hist(leaf))
        PM_TRY(i64_list(&w, 7, (const int64_t *)(const void *)pi->def_hist.data, pi->def_hist.len / 8));
    PM_TRY(pq_thrift_w_struct_end(&w));
    *written = true;
    return NULL;
}

pm_error *pq_page_index_offset_index(const pq_page_index *pi, const pq_leaf *leaf, int64_t base,
                                     pm_buf *out)
{
    pq_thrift_writer w;
    pq_thrift_writer_init(&w, out);
    PM_TRY(pq_thrift_w_struct_begin(&w));
    PM_TRY(pq_thrift_w_field(&w, 1, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(&w, PQ_TT_STRUCT, (uint32_t)pi->n));
    for (size_t i = 0; i < pi->n; i++) {
        const pq_page_info *p = &pi->pages[i];
        PM_TRY(pq_thrift_w_struct_begin(&w));
        PM_TRY(pq_thrift_w_field_i64(&w, 1, base + p->offset));
        PM_TRY(pq_thrift_w_field_i32(&w, 2, p->size));
        PM_TRY(pq_thrift_w_field_i64(&w, 3, p->first_row));
        PM_TRY(pq_thrift_w_struct_end(&w));
    }
    if (leaf->phys == PQ_BYTE_ARRAY && !pi->no_unencoded) {
        PM_TRY(pq_thrift_w_field(&w, 2, PQ_TT_LIST));
        PM_TRY(pq_thrift_w_list(&w, PQ_TT_I64, (uint32_t)pi->n));
        for (size_t i = 0; i < pi->n; i++)
            PM_TRY(pq_thrift_w_i64(&w, pi->pages[i].unencoded));
    }
    return pq_thrift_w_struct_end(&w);
}

static pm_error *sum_hist(const pm_buf *h, size_t width, pm_arena *a, int64_t **out, uint32_t *n)
{
    int64_t *sum = pm_arena_calloc(a, sizeof(int64_t) * width, _Alignof(int64_t));
    if (!sum)
        return pm_oom();
    const int64_t *v = (const int64_t *)(const void *)h->data;
    for (size_t i = 0; i < h->len / 8; i++)
        sum[i % width] += v[i];
    *out = sum;
    *n = (uint32_t)width;
    return NULL;
}

pm_error *pq_page_index_size_stats(const pq_page_index *pi, const pq_leaf *leaf, pm_arena *a,
                                   pq_size_statistics *out)
{
    memset(out, 0, sizeof *out);
    if (leaf->phys == PQ_BYTE_ARRAY && !pi->no_unencoded) {
        out->has_unencoded_byte_array_data_bytes = true;
        for (size_t i = 0; i < pi->n; i++)
            out->unencoded_byte_array_data_bytes += pi->pages[i].unencoded;
    }
    if (pq_has_rep_hist(leaf))
        PM_TRY(sum_hist(&pi->rep_hist, (size_t)leaf->max_rep + 1, a, &out->repetition_level_histogram,
                        &out->num_repetition_level_histogram));
    if (pq_has_def_hist(leaf))
        PM_TRY(sum_hist(&pi->def_hist, (size_t)leaf->max_def + 1, a, &out->definition_level_histogram,
                        &out->num_definition_level_histogram));
    return NULL;
}
