/*
 * format/parquet/pq_read_index.c — ColumnIndex / OffsetIndex parsing
 * (layout and checks in pq_read_index.h).
 */
#include "format/parquet/pq_read_index.h"

#include <string.h>

#include "base/mem.h"
#include "format/parquet/thrift.h"

static void *arr(pm_arena *a, uint32_t n, size_t size)
{
    return pm_arena_calloc(a, (size_t)(n ? n : 1) * size, 8);
}

/* A list's length must agree with the pages seen so far (*pages = UINT32_MAX: none yet). */
static pm_error *pages_agree(uint32_t *pages, uint32_t n, const char *what)
{
    if (*pages != UINT32_MAX && *pages != n)
        return pm_error_new(PM_ECORRUPT, "ColumnIndex.%s has %u entries for %u pages", what, n, *pages);
    *pages = n;
    return NULL;
}

static pm_error *i64_list(pq_thrift_reader *r, uint8_t t, pm_arena *a, int64_t **out, uint32_t *n,
                          const char *what)
{
    PM_TRY(pq_thrift_list_of(r, t, PQ_TT_I64, n, what));
    if (!(*out = arr(a, *n, sizeof **out)))
        return pm_oom();
    for (uint32_t i = 0; i < *n; i++)
        PM_TRY(pq_thrift_i64(r, &(*out)[i]));
    return NULL;
}

static pm_error *bin_list(pq_thrift_reader *r, uint8_t t, pm_arena *a, const uint8_t ***vals, uint32_t **lens,
                          uint32_t *n, const char *what)
{
    PM_TRY(pq_thrift_list_of(r, t, PQ_TT_BINARY, n, what));
    *vals = arr(a, *n, sizeof **vals);
    *lens = arr(a, *n, sizeof **lens);
    if (!*vals || !*lens)
        return pm_oom();
    for (uint32_t i = 0; i < *n; i++) {
        const uint8_t *p;
        uint32_t len;
        PM_TRY(pq_thrift_binary(r, &p, &len));
        uint8_t *q = pm_arena_alloc(a, len ? len : 1, 1);
        if (!q)
            return pm_oom();
        if (len)
            memcpy(q, p, len);
        (*vals)[i] = q;
        (*lens)[i] = len;
    }
    return NULL;
}

static pm_error *column_index(pq_thrift_reader *r, pq_column_index *ci, pm_arena *a)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    unsigned seen = 0;
    uint32_t pages = UINT32_MAX, n;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        switch (id) {
        case 1:
            PM_TRY(pq_thrift_list_of(r, t, PQ_TT_BOOL_TRUE, &n, "ColumnIndex.null_pages"));
            PM_TRY(pages_agree(&pages, n, "null_pages"));
            if (!(ci->null_pages = arr(a, n, sizeof *ci->null_pages)))
                return pm_oom();
            for (uint32_t i = 0; i < n; i++)
                PM_TRY(pq_thrift_bool_elem(r, &ci->null_pages[i]));
            seen |= 1;
            break;
        case 2:
            PM_TRY(bin_list(r, t, a, &ci->min, &ci->min_len, &n, "ColumnIndex.min_values"));
            PM_TRY(pages_agree(&pages, n, "min_values"));
            seen |= 2;
            break;
        case 3:
            PM_TRY(bin_list(r, t, a, &ci->max, &ci->max_len, &n, "ColumnIndex.max_values"));
            PM_TRY(pages_agree(&pages, n, "max_values"));
            seen |= 4;
            break;
        case 4: {
            int64_t v;
            PM_TRY(pq_thrift_int_any(r, t, &v, "ColumnIndex.boundary_order"));
            if (v < 0 || v > 2)
                return pm_error_new(PM_ECORRUPT, "ColumnIndex.boundary_order %lld", (long long)v);
            ci->boundary_order = (int32_t)v;
            seen |= 8;
            break;
        }
        case 5:
            PM_TRY(i64_list(r, t, a, &ci->null_counts, &n, "ColumnIndex.null_counts"));
            PM_TRY(pages_agree(&pages, n, "null_counts"));
            ci->has_null_counts = true;
            break;
        default:
            PM_TRY(pq_thrift_skip(r, t));
            break;
        }
    }
    pq_thrift_struct_leave(r);
    if (seen != 15)
        return pm_error_new(PM_ECORRUPT, "ColumnIndex lacks a required field");
    ci->n = pages;
    return NULL;
}

static pm_error *page_location(pq_thrift_reader *r, pq_page_location *p)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    unsigned seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        int64_t v = 0;
        switch (id) {
        case 1:
            PM_TRY(pq_thrift_int_any(r, t, &p->offset, "PageLocation.offset"));
            seen |= 1;
            break;
        case 2:
            PM_TRY(pq_thrift_int_any(r, t, &v, "PageLocation.compressed_page_size"));
            if (v <= 0 || v > INT32_MAX)
                return pm_error_new(PM_ECORRUPT, "PageLocation.compressed_page_size %lld", (long long)v);
            p->size = (int32_t)v;
            seen |= 2;
            break;
        case 3:
            PM_TRY(pq_thrift_int_any(r, t, &p->first_row, "PageLocation.first_row_index"));
            seen |= 4;
            break;
        default:
            PM_TRY(pq_thrift_skip(r, t));
            break;
        }
    }
    pq_thrift_struct_leave(r);
    if (seen != 7)
        return pm_error_new(PM_ECORRUPT, "PageLocation lacks a required field");
    if (p->offset < 0 || p->first_row < 0)
        return pm_error_new(PM_ECORRUPT, "PageLocation with a negative offset or first row");
    return NULL;
}

static pm_error *offset_index(pq_thrift_reader *r, pq_offset_index *oi, pm_arena *a)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    bool have_pages = false;
    uint32_t nu = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        switch (id) {
        case 1:
            PM_TRY(pq_thrift_list_of(r, t, PQ_TT_STRUCT, &oi->n, "OffsetIndex.page_locations"));
            if (!(oi->pages = arr(a, oi->n, sizeof *oi->pages)))
                return pm_oom();
            for (uint32_t i = 0; i < oi->n; i++) {
                PM_TRY(page_location(r, &oi->pages[i]));
                if (i == 0 ? oi->pages[i].first_row != 0 : oi->pages[i].first_row <= oi->pages[i - 1].first_row)
                    return pm_error_new(PM_ECORRUPT, "OffsetIndex: first row of page %u out of order", i);
            }
            have_pages = true;
            break;
        case 2:
            PM_TRY(i64_list(r, t, a, &oi->unencoded, &nu, "OffsetIndex.unencoded_byte_array_data_bytes"));
            oi->has_unencoded = true;
            break;
        default:
            PM_TRY(pq_thrift_skip(r, t));
            break;
        }
    }
    pq_thrift_struct_leave(r);
    if (!have_pages)
        return pm_error_new(PM_ECORRUPT, "OffsetIndex lacks page_locations");
    if (oi->has_unencoded && nu != oi->n)
        return pm_error_new(PM_ECORRUPT, "OffsetIndex has %u unencoded sizes for %u pages", nu, oi->n);
    return NULL;
}

pm_error *pq_column_index_parse(pq_column_index *out, const uint8_t *data, size_t len, pm_arena *a)
{
    memset(out, 0, sizeof *out);
    pq_thrift_reader r;
    pq_thrift_reader_init(&r, data, len);
    return pm_error_wrap(column_index(&r, out, a), 0, "column index");
}

pm_error *pq_offset_index_parse(pq_offset_index *out, const uint8_t *data, size_t len, pm_arena *a)
{
    memset(out, 0, sizeof *out);
    pq_thrift_reader r;
    pq_thrift_reader_init(&r, data, len);
    return pm_error_wrap(offset_index(&r, out, a), 0, "offset index");
}
