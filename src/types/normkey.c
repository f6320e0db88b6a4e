/*
 * types/normkey.c — order-preserving key bytes (encoding in normkey.h).
 */
#include "types/normkey.h"

#include <math.h>

#define NK_NULL_FIRST 0x00
#define NK_VALUE 0x01
#define NK_NULL_LAST 0x02

static pm_error *put_marker(pm_buf *out, bool nulls_last)
{
    (void)nulls_last;
    return pm_buf_append_byte(out, NK_VALUE);
}

pm_error *pm_normkey_put_null(pm_buf *out, bool nulls_last)
{
    return pm_buf_append_byte(out, nulls_last ? NK_NULL_LAST : NK_NULL_FIRST);
}

/* Append big-endian bytes of u (width bytes), inverted when descending. */
static pm_error *put_be(pm_buf *out, uint64_t u, int width, bool descending)
{
    uint8_t b[8];
    uint64_t x = descending ? ~u : u;
    for (int k = width - 1; k >= 0; k--) {
        b[k] = (uint8_t)x;
        x >>= 8;
    }
    return pm_buf_append(out, b, (size_t)width);
}

pm_error *pm_normkey_put_int(pm_buf *out, int64_t v, int width, bool descending, bool nulls_last)
{
    if (width != 1 && width != 2 && width != 4 && width != 8)
        return pm_error_new(PM_EINVALID, "normalized key integer width %d", width);
    PM_TRY(put_marker(out, nulls_last));
    uint64_t u = (uint64_t)v ^ ((uint64_t)1 << (8 * width - 1)); /* flip the sign bit */
    if (width < 8)
        u &= ((uint64_t)1 << (8 * width)) - 1;
    return put_be(out, u, width, descending);
}

pm_error *pm_normkey_put_bool(pm_buf *out, bool v, bool descending, bool nulls_last)
{
    PM_TRY(put_marker(out, nulls_last));
    return put_be(out, v ? 1 : 0, 1, descending);
}

pm_error *pm_normkey_put_f32(pm_buf *out, float v, bool descending, bool nulls_last)
{
    PM_TRY(put_marker(out, nulls_last));
    uint32_t u;
    if (isnan(v))
        u = 0x7fc00000u;
    else
        memcpy(&u, &v, 4);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return put_be(out, u, 4, descending);
}

pm_error *pm_normkey_put_f64(pm_buf *out, double v, bool descending, bool nulls_last)
{
    PM_TRY(put_marker(out, nulls_last));
    uint64_t u;
    if (isnan(v))
        u = 0x7ff8000000000000ull;
    else
        memcpy(&u, &v, 8);
    u = (u >> 63) ? ~u : (u | 0x8000000000000000ull);
    return put_be(out, u, 8, descending);
}

pm_error *pm_normkey_put_decimal(pm_buf *out, __int128 unscaled, int32_t precision, bool descending,
                                 bool nulls_last)
{
    if (precision <= 18) {
        if (unscaled < INT64_MIN || unscaled > INT64_MAX)
            return pm_error_new(PM_EINVALID, "decimal value does not fit DECIMAL(%d)", (int)precision);
        return pm_normkey_put_int(out, (int64_t)unscaled, 8, descending, nulls_last);
    }
    PM_TRY(put_marker(out, nulls_last));
    unsigned __int128 u = (unsigned __int128)unscaled ^ ((unsigned __int128)1 << 127);
    PM_TRY(put_be(out, (uint64_t)(u >> 64), 8, descending));
    return put_be(out, (uint64_t)u, 8, descending);
}

pm_error *pm_normkey_put_bytes(pm_buf *out, const void *p, size_t n, bool descending, bool nulls_last)
{
    const uint8_t *s = p;
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++)
        zeros += s[i] == 0;
    PM_TRY(pm_buf_reserve(out, 1 + n + zeros + 2));
    PM_TRY(put_marker(out, nulls_last));
    uint8_t inv = descending ? 0xff : 0x00;
    uint8_t *d = out->data + out->len;
    for (size_t i = 0; i < n; i++) {
        *d++ = s[i] ^ inv;
        if (s[i] == 0)
            *d++ = 0xff ^ inv;
    }
    *d++ = inv;
    *d++ = inv;
    out->len = (size_t)(d - out->data);
    return NULL;
}

pm_error *pm_normkey_check_type(const pm_type *t)
{
    switch (t->id) {
    case PM_TYPE_ARRAY:
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET:
    case PM_TYPE_ROW:
    case PM_TYPE_VARIANT:
        return pm_error_new(PM_EUNSUPPORTED, "%s in a normalized sort key", pm_type_id_name(t->id));
    default:
        return NULL;
    }
}

pm_error *pm_normkey_put_value(pm_buf *out, const pm_column *c, int64_t row, bool desc, bool nulls_last)
{
    const pm_type *t = c->type;
    PM_TRY(pm_normkey_check_type(t));
    if (pm_column_is_null(c, row))
        return pm_normkey_put_null(out, nulls_last);
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return pm_normkey_put_bool(out, pm_column_bool(c, row), desc, nulls_last);
    case PM_TYPE_TINYINT: return pm_normkey_put_int(out, pm_column_i8(c, row), 1, desc, nulls_last);
    case PM_TYPE_SMALLINT: return pm_normkey_put_int(out, pm_column_i16(c, row), 2, desc, nulls_last);
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: return pm_normkey_put_int(out, pm_column_i32(c, row), 4, desc, nulls_last);
    case PM_TYPE_BIGINT:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: return pm_normkey_put_int(out, pm_column_i64(c, row), 8, desc, nulls_last);
    case PM_TYPE_FLOAT: return pm_normkey_put_f32(out, pm_column_f32(c, row), desc, nulls_last);
    case PM_TYPE_DOUBLE: return pm_normkey_put_f64(out, pm_column_f64(c, row), desc, nulls_last);
    case PM_TYPE_DECIMAL:
        return pm_normkey_put_decimal(out, pm_column_decimal(c, row), t->precision, desc, nulls_last);
    default: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        return pm_normkey_put_bytes(out, p, n, desc, nulls_last);
    }
    }
}

pm_error *pm_normkey_encode(pm_buf *out, pm_column *const *cols, const pm_normkey_field *fields, size_t n,
                            int64_t row)
{
    for (size_t k = 0; k < n; k++)
        PM_TRY(pm_error_wrap(pm_normkey_put_value(out, cols[fields[k].column], row, fields[k].descending,
                                                  fields[k].nulls_last),
                             0, "key field %zu", k));
    return NULL;
}
