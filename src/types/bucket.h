/*
 * types/bucket.h — fixed-bucket assignment (bucket-function.type):
 *   default  bucket = abs(hash % n), hash = BinaryRow.hashCode() of the
 *            bucket-key row (Java int remainder, so always 0..n-1)
 *   mod      single INT/BIGINT key: Math.floorMod(value, n) (a null key
 *            reads as 0, as Java's getInt on a null slot does)
 *   hive     h = 0; h = 31*h + hiveHash(field) per key field;
 *            bucket = (h & INT_MAX) mod n
 * hiveHash: null 0; BOOLEAN 1/0; TINYINT/SMALLINT/INT/DATE/TIME the int;
 * BIGINT Long.hashCode; FLOAT floatToIntBits (0 for ±0.0); DOUBLE
 * Long.hashCode(doubleToLongBits) (0 for ±0.0); strings and binaries
 * r = 31*r + (signed byte); DECIMAL: BigDecimal.hashCode() of the value with
 * trailing zeros stripped (scale not below 0), i.e. 31 * signum *
 * H(|unscaled| as big-endian 32-bit words) + scale.  TIMESTAMP and nested
 * keys are PM_EUNSUPPORTED for hive, as in Java.
 */
#ifndef PM_TYPES_BUCKET_H
#define PM_TYPES_BUCKET_H

#include <stdint.h>

#include "types/binary_row.h"
#include "types/column.h"

typedef enum pm_bucket_fn { PM_BUCKET_FN_DEFAULT, PM_BUCKET_FN_MOD, PM_BUCKET_FN_HIVE } pm_bucket_fn;

/* "default" / "mod" / "hive" (case-insensitive). */
pm_error *pm_bucket_fn_parse(const char *s, pm_bucket_fn *out);

static inline int32_t pm_bucket_default(int32_t hash, int32_t n)
{
    int32_t r = hash % n; /* C and Java both truncate */
    return r < 0 ? -r : r;
}
static inline int32_t pm_bucket_mod(int64_t value, int32_t n)
{
    int64_t r = value % n;
    return (int32_t)(r < 0 ? r + n : r);
}
int32_t pm_hive_hash_bytes(const uint8_t *p, size_t n);
int32_t pm_hive_hash_decimal(__int128 unscaled, int32_t scale);
/* Hive hash of row `row` of column c. */
pm_error *pm_hive_hash_value(const pm_column *c, int64_t row, int32_t *out);

/* Bucket of row `row` for the key columns cols[fields[k]] (fields NULL =
 * all n columns in order).  `scratch` is reused for the BinaryRow. */
pm_error *pm_bucket_of_row(pm_bucket_fn fn, int32_t nbuckets, pm_binrow_writer *scratch, pm_column *const *cols,
                           const size_t *fields, size_t n, int64_t row, int32_t *out);

#endif
