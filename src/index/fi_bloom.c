/*
 * index/fi_bloom.c — the bloom-filter file index (BloomFilterFileIndex
 * over BloomFilter64).
 *
 * Layout: numHashFunctions i32 BE | bit set (numBits / 8 bytes; bit i is
 * bit i % 8 of byte i / 8).
 * Size: nb = (int)(-items * ln(fpp) / ln(2)^2); numBits = nb + 8 - nb % 8;
 * numHashFunctions = max(1, round(numBits / items * ln 2)).
 * Hash of a value (FastHash): CHAR/VARCHAR/BINARY/VARBINARY bytes → XXH64
 * seed 0; TINYINT, SMALLINT, INT, DATE, TIME → Thomas Wang's 64-bit hash
 * of the value (sign-extended); BIGINT → the same of the value; FLOAT →
 * of floatToIntBits (as an int); DOUBLE → of doubleToLongBits;
 * TIMESTAMP(_LTZ) → of epoch millis (p <= 3) or micros.  Other types
 * (BOOLEAN, DECIMAL, nested) are refused, as in Java.  Nulls are not
 * added.
 * Adding / testing a hash h: h1 = (int)h, h2 = (int)(h >>> 32); for i in
 * 1..k: c = h1 + i * h2 (int arithmetic), c < 0 → ~c; bit c % numBits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"
#include "index/fi_internal.h"
#include "index/fi_java.h"

typedef struct bloom {
    fv_kind kind;
    int32_t nhash;
    uint32_t nbits;
    uint8_t *bits;
} bloom;

static pm_error *bloom_check(const pm_type *t, const pm_fi_spec *sp)
{
    (void)sp;
    switch (t->id) {
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT:
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: return NULL;
    default: return pm_error_new(PM_EUNSUPPORTED, "type %s is not supported by the bloom-filter index",
                                 pm_type_id_name(t->id));
    }
}

/* Thomas Wang's 64-bit integer hash (arithmetic shifts of a long). */
static uint64_t long_hash(int64_t k)
{
    uint64_t key = (uint64_t)k;
#define SAR(x, n) ((uint64_t)((int64_t)(x) >> (n)))
    key = (~key) + (key << 21);
    key = key ^ SAR(key, 24);
    key = (key + (key << 3)) + (key << 8);
    key = key ^ SAR(key, 14);
    key = (key + (key << 2)) + (key << 4);
    key = key ^ SAR(key, 28);
    key = key + (key << 31);
#undef SAR
    return key;
}

static uint64_t value_hash(fv_kind k, const fi_val *v)
{
    switch (k) {
    case FV_BYTES: return pm_xxh64(v->p, v->n, 0);
    case FV_F32: return long_hash((int32_t)pm_java_float_bits(v->f));
    case FV_F64: return long_hash((int64_t)pm_java_double_bits(v->d));
    default: return long_hash(v->i);
    }
}

static void bloom_free(void *st)
{
    bloom *b = st;
    if (b)
        free(b->bits);
    free(b);
}

static pm_error *bloom_new(void **out, const pm_type *t, const pm_fi_spec *sp)
{
    *out = NULL;
    PM_TRY(bloom_check(t, sp));
    bloom *b;
    PM_TRY(pm_calloc(&b, 1, sizeof *b));
    fi_value_kind(t, &b->kind);
    double items = (double)sp->bloom_items;
    double nbd = -items * log(sp->bloom_fpp) / (log(2.0) * log(2.0));
    if (!(nbd < 2147483000.0)) {
        free(b);
        return pm_error_new(PM_EINVALID, "bloom filter of %d items at fpp %g needs more than 2^31 bits",
                            (int)sp->bloom_items, sp->bloom_fpp);
    }
    int32_t nb = (int32_t)nbd;
    int32_t numbits = nb + (8 - nb % 8);
    b->nbits = (uint32_t)numbits;
    int32_t k = (int32_t)llround((double)numbits / items * log(2.0));
    b->nhash = k < 1 ? 1 : k;
    pm_error *e = pm_calloc(&b->bits, (size_t)numbits / 8, 1);
    if (e) {
        bloom_free(b);
        return e;
    }
    *out = b;
    return NULL;
}

/* Bit position i (1..k) of hash h. */
static uint32_t bit_of(uint64_t h, int32_t i, uint32_t nbits)
{
    uint32_t h1 = (uint32_t)h, h2 = (uint32_t)(h >> 32);
    int32_t c = (int32_t)(h1 + (uint32_t)i * h2);
    if (c < 0)
        c = ~c;
    return (uint32_t)c % nbits;
}

static void bits_set(uint8_t *bits, uint32_t nbits, int32_t nhash, uint64_t h)
{
    for (int32_t i = 1; i <= nhash; i++) {
        uint32_t pos = bit_of(h, i, nbits);
        bits[pos >> 3] |= (uint8_t)(1u << (pos & 7));
    }
}

static bool bits_test(const uint8_t *bits, uint32_t nbits, int32_t nhash, uint64_t h)
{
    for (int32_t i = 1; i <= nhash; i++) {
        uint32_t pos = bit_of(h, i, nbits);
        if (!(bits[pos >> 3] & (1u << (pos & 7))))
            return false;
    }
    return true;
}

static pm_error *bloom_add(void *st, const pm_column *c, int64_t from, int64_t to)
{
    bloom *b = st;
    for (int64_t r = from; r < to; r++) {
        if (pm_column_is_null(c, r))
            continue;
        fi_val v;
        PM_TRY(fi_value_get(c, r, b->kind, &v));
        bits_set(b->bits, b->nbits, b->nhash, value_hash(b->kind, &v));
    }
    return NULL;
}

static pm_error *bloom_finish(void *st, pm_buf *out)
{
    bloom *b = st;
    PM_TRY(pm_buf_append_u32be(out, (uint32_t)b->nhash));
    return pm_buf_append(out, b->bits, b->nbits / 8);
}

static pm_error *bloom_test(const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits, fi_result *out)
{
    out->kind = FI_REMAIN;
    fv_kind k;
    if (bloom_check(t, NULL) || !fi_value_kind(t, &k))
        return NULL;
    if (n < 5)
        return pm_error_new(PM_ECORRUPT, "bloom filter of %zu bytes", n);
    if (n - 4 > UINT32_MAX / 8)
        return pm_error_new(PM_ECORRUPT, "bloom filter of %zu bytes is too large", n);
    /* Java reads the count with sign-extended bytes; counts are small */
    int32_t nhash = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
    if (nhash < 1 || nhash > 1000)
        return pm_error_new(PM_ECORRUPT, "bloom filter with %d hash functions", (int)nhash);
    uint32_t nbits = (uint32_t)(n - 4) * 8;
    for (int64_t r = 0; r < lits->length; r++) {
        if (pm_column_is_null(lits, r))
            return NULL; /* a null literal: cannot exclude (Java: REMAIN) */
        fi_val v;
        pm_error *e = fi_value_get(lits, r, k, &v);
        if (e) {
            pm_error_free(e); /* not representable: cannot exclude */
            return NULL;
        }
        if (bits_test(p + 4, nbits, nhash, value_hash(k, &v)))
            return NULL;
    }
    out->kind = FI_SKIP;
    return NULL;
}

const fi_ops pm_fi_bloom_ops = {"bloom-filter", bloom_check, bloom_new, bloom_add, bloom_finish, bloom_free,
                                bloom_test};
