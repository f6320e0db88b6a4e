/*
 * table/pk_column.c — bulk row-range appends between columns of the same
 * type (pk_column.h), used where primary-key reads and writes move runs of
 * consecutive rows: the merge output's pass-through ranges and the write
 * buffer.
 *
 * Steps: count the source range's nulls; materialize the destination's
 * validity bitmap only when either side has nulls (an all-valid column may
 * keep an empty bitmap) and copy the bits; then copy values: fixed-width
 * values with one memcpy, booleans bit by bit, variable-width values as
 * rebased offsets plus one memcpy of the bytes.  Nested types go row by
 * row through pm_column_append_from.
 */
#include "table/pk_column.h"

#include <stdint.h>
#include <string.h>

pm_error *pm_pk_append_range(pm_column *dst, const pm_column *src, int64_t from, int64_t n)
{
    const pm_type *t = dst->type;
    int w = pm_type_value_width(t);
    bool var = pm_type_is_varlen(t);
    if (n <= 0)
        return NULL;
    if (!w && !var && t->id != PM_TYPE_BOOLEAN) {
        for (int64_t i = 0; i < n; i++)
            PM_TRY(pm_column_append_from(dst, src, from + i));
        return NULL;
    }
    int64_t len0 = dst->length;
    int64_t nulls = 0;
    if (src->null_count)
        for (int64_t i = 0; i < n; i++)
            nulls += pm_column_is_null(src, from + i);
    /* validity: materialized once either side has a null */
    if (nulls || dst->validity.len) {
        size_t need = (size_t)((len0 + n + 7) / 8);
        size_t old = dst->validity.len;
        if (old == 0) {
            PM_TRY(pm_buf_resize(&dst->validity, need));
            memset(dst->validity.data, 0xff, need);
        } else if (old < need) {
            PM_TRY(pm_buf_resize(&dst->validity, need));
            memset(dst->validity.data + old, 0, need - old);
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t k = len0 + i;
            uint8_t bit = (uint8_t)(1u << (k & 7));
            if (src->null_count && pm_column_is_null(src, from + i))
                dst->validity.data[k >> 3] &= (uint8_t)~bit;
            else
                dst->validity.data[k >> 3] |= bit;
        }
        dst->null_count += nulls;
    }
    if (w) {
        PM_TRY(pm_buf_reserve(&dst->values, (size_t)n * (size_t)w));
        pm_buf_put(&dst->values, src->values.data + (size_t)from * (size_t)w, (size_t)n * (size_t)w);
    } else if (t->id == PM_TYPE_BOOLEAN) {
        size_t need = (size_t)((len0 + n + 7) / 8);
        if (dst->values.len < need) {
            size_t old = dst->values.len;
            PM_TRY(pm_buf_resize(&dst->values, need));
            memset(dst->values.data + old, 0, need - old);
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t k = len0 + i;
            uint8_t bit = (uint8_t)(1u << (k & 7));
            if (pm_column_bool(src, from + i))
                dst->values.data[k >> 3] |= bit;
            else
                dst->values.data[k >> 3] &= (uint8_t)~bit;
        }
    } else {
        const int32_t *so = pm_column_offsets(src);
        int32_t last = 0;
        if (dst->offsets.len >= 4)
            memcpy(&last, dst->offsets.data + dst->offsets.len - 4, 4);
        int64_t base = last;
        int64_t bytes = (int64_t)so[from + n] - so[from];
        if (base + bytes > INT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "column of more than 2147483647 bytes (int32 offsets)");
        PM_TRY(pm_buf_reserve(&dst->offsets, (size_t)(n + 1) * 4));
        if (dst->offsets.len == 0) {
            int32_t z = 0;
            pm_buf_put(&dst->offsets, &z, 4);
        }
        for (int64_t i = 1; i <= n; i++) {
            int32_t v = (int32_t)(base + (so[from + i] - so[from]));
            pm_buf_put(&dst->offsets, &v, 4);
        }
        if (bytes) {
            PM_TRY(pm_buf_reserve(&dst->data, (size_t)bytes));
            pm_buf_put(&dst->data, src->data.data + so[from], (size_t)bytes);
        }
    }
    dst->length += n;
    return NULL;
}

