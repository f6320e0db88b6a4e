/*
 * format/parquet/pq_stats.h — column statistics of the Parquet writer:
 * null count and min/max in Parquet's order for the leaf's type, kept typed
 * while writing and turned into thrift Statistics per column chunk the way
 * parquet-java 1.16 writes them:
 *   - null_count always;
 *   - min_value/max_value for every type with a defined column order (all
 *     but INT96, which gets min/max only when all its values are equal);
 *   - the legacy min/max too when the type's sort order is SIGNED (BOOLEAN,
 *     INT32/INT64 incl. INT(8/16), DATE, TIME, TIMESTAMP, FLOAT, DOUBLE) or
 *     when min and max are the same bytes;
 *   - nothing at all (an empty Statistics struct) when a binary min + max
 *     take 4096 bytes or more (parquet-java's MAX_STATS_SIZE).
 * Orders: signed integers; FLOAT/DOUBLE numerically ignoring NaN, with a
 * zero min written as -0.0 and a zero max as +0.0; BYTE_ARRAY unsigned
 * lexicographic; FIXED_LEN_BYTE_ARRAY decimals as signed numbers.
 * Encodings of min/max bytes: PLAIN (little-endian numbers, raw bytes,
 * big-endian two's complement for FIXED_LEN_BYTE_ARRAY decimals).
 */
#ifndef PM_PQ_STATS_H
#define PM_PQ_STATS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_schema_write.h"

/* parquet-java's limit on min + max bytes of binary statistics. */
#define PQ_MAX_STATS_SIZE 4096

typedef union pq_stat_value {
    bool b;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    __int128 d128;
} pq_stat_value;

typedef struct pq_stats {
    pq_stats_kind kind;
    int64_t null_count;
    bool has_minmax;
    bool has_nan;                /* FLOAT/DOUBLE: a NaN was seen (and ignored) */
    pq_stat_value min, max;      /* fixed-width kinds */
    pm_buf min_bytes, max_bytes; /* PQS_BYTES */
    uint64_t min_pfx, max_pfx;   /* their first 8 bytes, big-endian, zero padded */
    bool portable;               /* tests: the scalar min/max loops only, never the vector ones */
    uint64_t vector_values;      /* values whose min/max the vector loops took (tests) */
} pq_stats;

void pq_stats_init(pq_stats *s, pq_stats_kind kind);
void pq_stats_free(pq_stats *s);
/* Forget values and nulls (keeps buffers). */
void pq_stats_reset(pq_stats *s);

/* Bulk updates with non-null values.  INT32/INT64/FLOAT/DOUBLE: on x86-64
 * CPUs with AVX2 the whole 16-value (INT32/FLOAT) or 8-value (INT64/DOUBLE)
 * groups go through vector min/max (same results as the scalar loops: the
 * lane order does not matter for integers, and a float's NaN is skipped
 * and zeros normalized either way), the rest through scalar loops. */
void pq_stats_update_i32(pq_stats *s, const int32_t *v, size_t n);
void pq_stats_update_i64(pq_stats *s, const int64_t *v, size_t n);
void pq_stats_update_f32(pq_stats *s, const float *v, size_t n);
void pq_stats_update_f64(pq_stats *s, const double *v, size_t n);
void pq_stats_update_bool(pq_stats *s, bool v);
void pq_stats_update_d128(pq_stats *s, __int128 v);
pm_error *pq_stats_update_bytes(pq_stats *s, const uint8_t *p, size_t len);

/* The first 8 bytes as a big-endian number (zero padded): comparing two
 * prefixes decides most unsigned byte comparisons without memcmp. */
static inline uint64_t pq_stats_prefix8(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    if (n >= 8)
        memcpy(&v, p, 8);
    else if (n)
        memcpy(&v, p, n);
    return __builtin_bswap64(v);
}

/* pq_stats_prefix8 of p[0, n) when 8 bytes at p are readable: one load,
 * the bytes past n masked off. */
static inline uint64_t pq_stats_prefix8_at(const uint8_t *p, size_t n)
{
    uint64_t v;
    memcpy(&v, p, 8);
    if (n < 8)
        v &= (UINT64_C(1) << (8 * n)) - 1;
    return __builtin_bswap64(v);
}

/* Whether byte string p[0, len) leaves min/max as they are because its
 * prefix lies strictly between the cached ones (most values of a page: one
 * load and two compares, no call); when false, pq_stats_update_bytes. */
static inline bool pq_stats_bytes_inside(const pq_stats *s, const uint8_t *p, size_t len)
{
    uint64_t pp = pq_stats_prefix8(p, len);
    return s->has_minmax && pp > s->min_pfx && pp < s->max_pfx;
}
/* Merge src into dst (same kind). */
pm_error *pq_stats_merge(pq_stats *dst, const pq_stats *src);

/* PLAIN bytes of min (which=0) or max (which=1), zeros normalized;
 * `flba_len` is the FIXED_LEN_BYTE_ARRAY width for PQS_DEC128.  Returns the
 * length; `buf` must hold 16 bytes (PQS_BYTES returns a pointer into s). */
size_t pq_stats_value_bytes(const pq_stats *s, int which, int32_t flba_len, uint8_t buf[16],
                            const uint8_t **out);

/* Footer statistics of a column chunk (bytes copied into the arena). */
pm_error *pq_stats_to_thrift(const pq_stats *s, const pq_leaf *leaf, pm_arena *a, pq_statistics *out);

/* Big-endian two's complement of v in n (1..16) bytes. */
void pq_decimal_to_be(__int128 v, int32_t n, uint8_t *out);

#endif
