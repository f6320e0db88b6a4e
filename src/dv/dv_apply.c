/*
 * dv/dv_apply.c — keep bitmaps, selections and batch compaction for
 * deletion vectors (see dv_apply.h).
 */
#include "dv/dv_apply.h"

#include <stdlib.h>
#include <string.h>

#include "types/column.h"

static inline bool bit(const uint8_t *keep, int64_t i) { return keep[i >> 3] >> (i & 7) & 1; }

static pm_error *oom(void) { return pm_error_new(PM_ENOMEM, "deletion vector filter: out of memory"); }

/* Keep bitmap for [start, start + n) with the deleted rows cleared. */
static pm_error *keep_bitmap(const pm_dv *dv, int64_t start, int64_t n, uint8_t **keep, int64_t *ndel)
{
    size_t bytes = (size_t)(n + 7) / 8;
    *keep = malloc(bytes ? bytes : 1);
    if (!*keep)
        return oom();
    memset(*keep, 0xFF, bytes);
    *ndel = 0;
    if (dv)
        pm_dv_clear_deleted(dv, start, n, *keep, ndel);
    return NULL;
}

pm_error *pm_dv_selection(const pm_dv *dv, int64_t start, int64_t n, int64_t *sel, int64_t *nsel)
{
    if (start < 0 || n < 0)
        return pm_error_new(PM_EINVALID, "deletion vector selection: bad range start %lld, %lld rows",
                            (long long)start, (long long)n);
    uint8_t *keep;
    int64_t ndel, k = 0;
    PM_TRY(keep_bitmap(dv, start, n, &keep, &ndel));
    for (int64_t i = 0; i < n; i++)
        if (bit(keep, i))
            sel[k++] = i;
    free(keep);
    *nsel = k;
    return NULL;
}

/* Fixed-width column without nulls: copy the kept runs of values. */
static pm_error *filter_fixed(const pm_column *src, const uint8_t *keep, int64_t n, int64_t kept,
                              int w, pm_column *dst)
{
    PM_TRY(pm_buf_reserve(&dst->values, (size_t)kept * (size_t)w));
    for (int64_t i = 0; i < n;) {
        if (!bit(keep, i)) {
            i++;
            continue;
        }
        int64_t j = i + 1;
        while (j < n && bit(keep, j))
            j++;
        pm_buf_put(&dst->values, src->values.data + (size_t)i * (size_t)w, (size_t)(j - i) * (size_t)w);
        i = j;
    }
    dst->length = kept;
    return NULL;
}

/* Variable-width column without nulls: rebuild the offsets, copy the kept
 * runs of bytes. */
static pm_error *filter_varlen(const pm_column *src, const uint8_t *keep, int64_t n, int64_t kept,
                               pm_column *dst)
{
    const int32_t *o = pm_column_offsets(src);
    PM_TRY(pm_buf_reserve(&dst->offsets, (size_t)(kept + 1) * sizeof(int32_t)));
    int32_t *no = (int32_t *)(void *)dst->offsets.data;
    int64_t k = 0;
    no[0] = 0;
    for (int64_t i = 0; i < n;) {
        if (!bit(keep, i)) {
            i++;
            continue;
        }
        int64_t j = i + 1;
        while (j < n && bit(keep, j))
            j++;
        size_t bytes = (size_t)(o[j] - o[i]);
        if (bytes) {
            PM_TRY(pm_buf_reserve(&dst->data, bytes));
            pm_buf_put(&dst->data, src->data.data + o[i], bytes);
        }
        for (int64_t r = i; r < j; r++, k++)
            no[k + 1] = no[k] + (o[r + 1] - o[r]);
        i = j;
    }
    dst->offsets.len = (size_t)(kept + 1) * sizeof(int32_t);
    dst->length = kept;
    return NULL;
}

static pm_error *filter_column(const pm_column *src, const uint8_t *keep, int64_t n, int64_t kept,
                               pm_column **out)
{
    pm_column *dst;
    PM_TRY(pm_column_new(&dst, src->type));
    pm_error *e;
    int w = pm_type_value_width(src->type);
    if (kept == 0) {
        e = NULL;
    } else if (w > 0 && src->null_count == 0 && src->nchildren == 0) {
        e = filter_fixed(src, keep, n, kept, w, dst);
    } else if (src->dictionary && src->null_count == 0) {
        /* dictionary-encoded: the kept ids, the same dictionary */
        e = filter_fixed(src, keep, n, kept, 4, dst);
        if (!e)
            dst->dictionary = pm_column_retain(src->dictionary);
    } else if (pm_type_is_varlen(src->type) && !src->dictionary && src->null_count == 0 && n > 0) {
        e = filter_varlen(src, keep, n, kept, dst);
    } else {
        e = pm_column_reserve(dst, kept);
        for (int64_t i = 0; !e && i < n; i++)
            if (bit(keep, i))
                e = pm_column_append_from(dst, src, i);
    }
    if (e) {
        pm_column_release(dst);
        return pm_error_wrap(e, 0, "filter column");
    }
    *out = dst;
    return NULL;
}

pm_error *pm_batch_filter(pm_batch *b, const uint8_t *keep)
{
    int64_t n = b->num_rows, kept = 0;
    for (int64_t i = 0; i < n; i++)
        kept += bit(keep, i);
    if (kept == n)
        return NULL;
    pm_column **cols = calloc(b->ncolumns ? b->ncolumns : 1, sizeof *cols);
    if (!cols)
        return oom();
    for (size_t c = 0; c < b->ncolumns; c++) {
        pm_error *e = filter_column(b->columns[c], keep, n, kept, &cols[c]);
        if (e) {
            for (size_t k = 0; k < c; k++)
                pm_column_release(cols[k]);
            free(cols);
            return pm_error_wrap(e, 0, "field '%s'", b->type->fields[c].name);
        }
    }
    for (size_t c = 0; c < b->ncolumns; c++) {
        pm_column_release(b->columns[c]);
        b->columns[c] = cols[c];
    }
    free(cols);
    b->num_rows = kept;
    return NULL;
}

pm_error *pm_dv_filter_batch(const pm_dv *dv, int64_t start, pm_batch *b)
{
    if (!dv || b->num_rows == 0)
        return NULL;
    if (start < 0)
        return pm_error_new(PM_EINVALID, "deletion vector filter: negative start %lld", (long long)start);
    uint8_t *keep;
    int64_t ndel;
    PM_TRY(keep_bitmap(dv, start, b->num_rows, &keep, &ndel));
    pm_error *e = ndel ? pm_batch_filter(b, keep) : NULL;
    free(keep);
    return e;
}
