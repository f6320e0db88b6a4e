/*
 * types/normkey.h — normalized keys: typed key fields encoded into bytes
 * whose memcmp order is the typed order (and memcmp-equal iff equal), so
 * sorts and merges compare keys as plain bytes.
 *
 * Per field: one null byte, then the value bytes.
 *   null byte  0x00 null / 0x01 value with nulls first (default);
 *              0x02 null / 0x01 value with nulls last.  It is never
 *              inverted: null placement does not depend on direction.
 *   value      (all bytes inverted, b ^ 0xff, for a descending field)
 *     BOOLEAN                       1 byte 0/1
 *     TINYINT, SMALLINT, INT, DATE, TIME, BIGINT, TIMESTAMP(_LTZ) (column
 *       value in its unit), DECIMAL p<=18 / p>18 (unscaled, 8 / 16 bytes)
 *                                   big-endian two's complement with the
 *                                   sign bit flipped, at the type's width
 *     FLOAT / DOUBLE                IEEE bits, big-endian; negative values
 *                                   all bits flipped, others the sign bit;
 *                                   every NaN canonical (Java's order:
 *                                   -Inf < .. < -0.0 < 0.0 < .. < +Inf < NaN)
 *     CHAR/VARCHAR/BINARY/VARBINARY/BLOB
 *                                   bytes with 0x00 escaped as 0x00 0xff,
 *                                   then terminator 0x00 0x00 (prefix-free,
 *                                   unsigned lexicographic order)
 * Nested types and VARIANT are PM_EUNSUPPORTED.
 */
#ifndef PM_TYPES_NORMKEY_H
#define PM_TYPES_NORMKEY_H

#include <stdbool.h>

#include "base/buf.h"
#include "types/column.h"

typedef struct pm_normkey_field {
    size_t column;   /* index into the columns array */
    bool descending;
    bool nulls_last;
} pm_normkey_field;

/* Check that a type can be part of a normalized key. */
pm_error *pm_normkey_check_type(const pm_type *t);

/* Typed appenders (one field each). */
pm_error *pm_normkey_put_null(pm_buf *out, bool nulls_last);
/* Signed integer of `width` bytes (1, 2, 4, 8). */
pm_error *pm_normkey_put_int(pm_buf *out, int64_t v, int width, bool descending, bool nulls_last);
pm_error *pm_normkey_put_bool(pm_buf *out, bool v, bool descending, bool nulls_last);
pm_error *pm_normkey_put_f32(pm_buf *out, float v, bool descending, bool nulls_last);
pm_error *pm_normkey_put_f64(pm_buf *out, double v, bool descending, bool nulls_last);
pm_error *pm_normkey_put_decimal(pm_buf *out, __int128 unscaled, int32_t precision, bool descending, bool nulls_last);
pm_error *pm_normkey_put_bytes(pm_buf *out, const void *p, size_t n, bool descending, bool nulls_last);

/* One field from row `row` of column c. */
pm_error *pm_normkey_put_value(pm_buf *out, const pm_column *c, int64_t row, bool descending, bool nulls_last);
/* A whole key: fields[k] names the column and its ordering. */
pm_error *pm_normkey_encode(pm_buf *out, pm_column *const *cols, const pm_normkey_field *fields, size_t n,
                            int64_t row);

#endif
