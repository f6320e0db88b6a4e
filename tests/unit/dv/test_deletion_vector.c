/*
 * tests/unit/dv/test_deletion_vector.c — deletion vectors: Java golden
 * entries (dvindex-32 / dvindex-64 from Apache Paimon), byte-identical
 * round trips, exact run-optimized layouts, 64-bit positions, range
 * queries against brute force, and corrupt entries.
 */
#include <string.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "dv/deletion_vector.h"
#include "dv/roaring_check.h"
#include "pm_test.h"

static uint8_t *golden(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/unit/dv/data/%s", PM_SOURCE_DIR, name);
    uint8_t *p = pm_test_read_file(path, n);
    assert_non_null(p);
    return p;
}

static void expect_positions(const pm_dv *dv, const int64_t *want, size_t nwant)
{
    int64_t *got;
    size_t n;
    PM_OK_OR_FAIL(pm_dv_positions(dv, &got, &n));
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
    assert_int_equal(pm_dv_cardinality(dv), nwant);
    free(got);
}

/* Read the two entries of a golden file, check values, re-serialize and
 * compare every byte. */
static void check_golden(const char *name, bool bitmap64, int64_t len1, int64_t len2)
{
    size_t n;
    uint8_t *file = golden(name, &n);
    assert_int_equal(file[0], 1);
    pm_dv *dv1, *dv2;
    size_t used1, used2;
    PM_OK_OR_FAIL(pm_dv_deserialize(file + 1, n - 1, len1, true, &dv1, &used1));
    PM_OK_OR_FAIL(pm_dv_deserialize(file + 1 + used1, n - 1 - used1, len2, true, &dv2, &used2));
    assert_int_equal(1 + used1 + used2, n);
    assert_true(pm_dv_is_bitmap64(dv1) == bitmap64);
    assert_true(pm_dv_is_bitmap64(dv2) == bitmap64);
    expect_positions(dv1, (const int64_t[]){2, 3}, 2);
    expect_positions(dv2, (const int64_t[]){1}, 1);
    assert_true(pm_dv_contains(dv1, 2) && pm_dv_contains(dv1, 3) && !pm_dv_contains(dv1, 1));
    assert_true(pm_dv_contains(dv2, 1) && !pm_dv_contains(dv2, 2));

    /* Round trip: same bytes, same meta lengths. */
    pm_buf out = PM_BUF_INIT;
    int32_t l1, l2;
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, 1));
    PM_OK_OR_FAIL(pm_dv_serialize(dv1, &out, &l1));
    PM_OK_OR_FAIL(pm_dv_serialize(dv2, &out, &l2));
    assert_int_equal(l1, len1);
    assert_int_equal(l2, len2);
    assert_int_equal(out.len, n);
    assert_memory_equal(out.data, file, n);

    /* Built from scratch: the same bytes again. */
    pm_dv *a, *b;
    PM_OK_OR_FAIL(pm_dv_new(bitmap64, &a));
    PM_OK_OR_FAIL(pm_dv_new(bitmap64, &b));
    PM_OK_OR_FAIL(pm_dv_add(a, 3, NULL));
    PM_OK_OR_FAIL(pm_dv_add(a, 2, NULL));
    PM_OK_OR_FAIL(pm_dv_add(b, 1, NULL));
    pm_buf_clear(&out);
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, 1));
    PM_OK_OR_FAIL(pm_dv_serialize(a, &out, NULL));
    PM_OK_OR_FAIL(pm_dv_serialize(b, &out, NULL));
    assert_int_equal(out.len, n);
    assert_memory_equal(out.data, file, n);
    assert_true(pm_dv_equal(a, dv1) && pm_dv_equal(b, dv2) && !pm_dv_equal(a, b));

    pm_dv_free(a);
    pm_dv_free(b);
    pm_dv_free(dv1);
    pm_dv_free(dv2);
    pm_buf_free(&out);
    free(file);
}

static void test_golden_32(void **state)
{
    (void)state;
    check_golden("dvindex-32", false, 24, 22);
}

static void test_golden_64(void **state)
{
    (void)state;
    check_golden("dvindex-64", true, 44, 42);
}

/* A run of 10000 positions becomes one run container: exact bytes. */
static void test_run_optimized_layout(void **state)
{
    (void)state;
    pm_dv *dv;
    PM_OK_OR_FAIL(pm_dv_new(false, &dv));
    for (int64_t i = 0; i < 10000; i++)
        PM_OK_OR_FAIL(pm_dv_add(dv, i, NULL));
    pm_buf out = PM_BUF_INIT;
    int32_t len;
    PM_OK_OR_FAIL(pm_dv_serialize(dv, &out, &len));
    static const uint8_t want[] = {
        0, 0, 0, 19,                         /* size = 4 + 15 */
        0x5E, 0x43, 0xF2, 0xD0,              /* magic BE */
        0x3B, 0x30, 0, 0,                    /* cookie 12347, 1 container */
        0x01,                                /* container 0 is a run */
        0, 0, 0x0F, 0x27,                    /* key 0, card - 1 = 9999 */
        1, 0, 0, 0, 0x0F, 0x27,              /* 1 run: start 0, length - 1 = 9999 */
    };
    assert_int_equal(len, 19);
    assert_int_equal(out.len, sizeof want + 4);
    assert_memory_equal(out.data, want, sizeof want);
    pm_dv *back;
    PM_OK_OR_FAIL(pm_dv_deserialize(out.data, out.len, 19, true, &back, NULL));
    assert_int_equal(pm_dv_cardinality(back), 10000);
    assert_true(pm_dv_equal(dv, back));
    pm_dv_free(back);
    pm_dv_free(dv);
    pm_buf_free(&out);
}

/* Every even position below 20000: one bitset container (10000 values). */
static void test_bitset_round_trip(void **state)
{
    (void)state;
    for (int v64 = 0; v64 < 2; v64++) {
        pm_dv *dv, *back;
        PM_OK_OR_FAIL(pm_dv_new(v64, &dv));
        for (int64_t i = 0; i < 20000; i += 2)
            PM_OK_OR_FAIL(pm_dv_add(dv, i, NULL));
        pm_buf out = PM_BUF_INIT, again = PM_BUF_INIT;
        int32_t len;
        PM_OK_OR_FAIL(pm_dv_serialize(dv, &out, &len));
        /* header (8) + cookie/count (8) + key/card (4) + offset (4) + 8192 + crc */
        size_t bitmap = 8 + 4 + 4 + 8192;
        assert_int_equal(out.len, 4 + 4 + (v64 ? 12 : 0) + bitmap + 4);
        assert_int_equal(len, v64 ? (int32_t)out.len : (int32_t)out.len - 8);
        PM_OK_OR_FAIL(pm_dv_deserialize(out.data, out.len, len, true, &back, NULL));
        assert_true(pm_dv_equal(dv, back));
        assert_int_equal(pm_dv_cardinality(back), 10000);
        PM_OK_OR_FAIL(pm_dv_serialize(back, &again, NULL));
        assert_int_equal(again.len, out.len);
        assert_memory_equal(again.data, out.data, out.len);
        pm_dv_free(dv);
        pm_dv_free(back);
        pm_buf_free(&out);
        pm_buf_free(&again);
    }
}

static void test_64bit_positions(void **state)
{
    (void)state;
    pm_dv *dv, *back;
    PM_OK_OR_FAIL(pm_dv_new(true, &dv));
    const int64_t pos[] = {0, 7, (INT64_C(1) << 32) + 5, (INT64_C(3) << 32) + 7, (INT64_C(1000) << 32) + 1};
    for (size_t i = 0; i < 5; i++) {
        bool added;
        PM_OK_OR_FAIL(pm_dv_add(dv, pos[4 - i], &added));
        assert_true(added);
    }
    bool added = true;
    PM_OK_OR_FAIL(pm_dv_add(dv, 7, &added));
    assert_false(added);
    PM_EXPECT_ERR(pm_dv_add(dv, PM_DV_MAX_POS64 + 1, NULL), PM_EINVALID);
    PM_EXPECT_ERR(pm_dv_add(dv, -1, NULL), PM_EINVALID);
    expect_positions(dv, pos, 5);
    assert_false(pm_dv_contains(dv, (INT64_C(2) << 32) + 5));
    assert_true(pm_dv_contains(dv, (INT64_C(3) << 32) + 7));

    pm_buf out = PM_BUF_INIT;
    int32_t len;
    PM_OK_OR_FAIL(pm_dv_serialize(dv, &out, &len));
    /* count = 1001 bitmaps (Java's dense array up to the max key). */
    assert_int_equal(pm_load_u64le(out.data + 8), 1001);
    assert_int_equal(len, (int32_t)out.len);
    PM_OK_OR_FAIL(pm_dv_deserialize(out.data, out.len, len, true, &back, NULL));
    expect_positions(back, pos, 5);
    pm_dv_free(back);
    pm_buf_clear(&out);

    /* The largest position needs 2^31 bitmaps: over 2 GiB, refused like Java. */
    PM_OK_OR_FAIL(pm_dv_add(dv, PM_DV_MAX_POS64, NULL));
    assert_true(pm_dv_contains(dv, PM_DV_MAX_POS64));
    PM_EXPECT_ERR(pm_dv_serialize(dv, &out, &len), PM_EINVALID);
    assert_int_equal(out.len, 0);
    pm_dv_free(dv);
    pm_buf_free(&out);

    /* Keys 0, 1, 3 → 4 bitmaps written (key 2 empty) and read back. */
    PM_OK_OR_FAIL(pm_dv_new(true, &dv));
    PM_OK_OR_FAIL(pm_dv_add(dv, 1, NULL));
    PM_OK_OR_FAIL(pm_dv_add(dv, (INT64_C(1) << 32) | 2, NULL));
    PM_OK_OR_FAIL(pm_dv_add(dv, (INT64_C(3) << 32) | 3, NULL));
    pm_buf_init(&out);
    PM_OK_OR_FAIL(pm_dv_serialize(dv, &out, &len));
    assert_int_equal(pm_load_u64le(out.data + 8), 4);
    /* key 2 at: 16 + (4 + 18) * 2 = 60 → key bytes then the empty bitmap */
    assert_int_equal(pm_load_u32le(out.data + 60), 2);
    assert_int_equal(pm_load_u32le(out.data + 64), 12346);
    assert_int_equal(pm_load_u32le(out.data + 68), 0);
    PM_OK_OR_FAIL(pm_dv_deserialize(out.data, out.len, len, true, &back, NULL));
    assert_true(pm_dv_equal(dv, back));
    pm_buf again = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_dv_serialize(back, &again, NULL));
    assert_int_equal(again.len, out.len);
    assert_memory_equal(again.data, out.data, out.len);
    pm_buf_free(&again);
    pm_buf_free(&out);
    pm_dv_free(back);
    pm_dv_free(dv);
}

static void test_32bit_limits_merge(void **state)
{
    (void)state;
    pm_dv *a, *b, *c;
    PM_OK_OR_FAIL(pm_dv_new(false, &a));
    PM_OK_OR_FAIL(pm_dv_new(false, &b));
    PM_OK_OR_FAIL(pm_dv_new(true, &c));
    assert_true(pm_dv_is_empty(a));
    PM_OK_OR_FAIL(pm_dv_add(a, PM_DV_MAX_POS32, NULL));
    PM_EXPECT_ERR(pm_dv_add(a, PM_DV_MAX_POS32 + 1, NULL), PM_EINVALID);
    PM_EXPECT_ERR(pm_dv_add(a, -5, NULL), PM_EINVALID);
    assert_false(pm_dv_contains(a, PM_DV_MAX_POS32 + 1));
    PM_OK_OR_FAIL(pm_dv_add_range(b, 10, 20));
    PM_OK_OR_FAIL(pm_dv_add(b, 5, NULL));
    PM_OK_OR_FAIL(pm_dv_merge(a, b));
    assert_int_equal(pm_dv_cardinality(a), 12);
    assert_true(pm_dv_contains(a, 19) && !pm_dv_contains(a, 20) && pm_dv_contains(a, 5));
    PM_EXPECT_ERR(pm_dv_merge(a, c), PM_EINVALID);
    PM_EXPECT_ERR(pm_dv_merge(c, a), PM_EINVALID);
    PM_EXPECT_ERR(pm_dv_add_range(b, 5, 4), PM_EINVALID);
    PM_EXPECT_ERR(pm_dv_add_range(b, 0, PM_DV_MAX_POS32 + 2), PM_EINVALID);

    /* 32 → 64 conversion keeps positions; V2 bytes of one bitmap. */
    pm_dv *d;
    PM_OK_OR_FAIL(pm_dv_to_bitmap64(a, &d));
    assert_true(pm_dv_is_bitmap64(d));
    assert_true(pm_dv_equal(a, d));
    PM_OK_OR_FAIL(pm_dv_merge(c, d));
    assert_int_equal(pm_dv_cardinality(c), 12);

    /* 64-bit range over a key boundary. */
    pm_dv *e;
    PM_OK_OR_FAIL(pm_dv_new(true, &e));
    int64_t k1 = INT64_C(1) << 32;
    PM_OK_OR_FAIL(pm_dv_add_range(e, k1 - 3, k1 + 2));
    assert_int_equal(pm_dv_cardinality(e), 5);
    assert_true(pm_dv_contains(e, k1 - 1) && pm_dv_contains(e, k1 + 1) && !pm_dv_contains(e, k1 + 2));

    pm_dv *copy;
    PM_OK_OR_FAIL(pm_dv_copy(e, &copy));
    assert_true(pm_dv_equal(copy, e));
    PM_OK_OR_FAIL(pm_dv_add(copy, 0, NULL));
    assert_false(pm_dv_equal(copy, e));
    pm_dv_free(copy);
    pm_dv_free(e);
    pm_dv_free(d);
    pm_dv_free(a);
    pm_dv_free(b);
    pm_dv_free(c);
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* pm_dv_clear_deleted against brute force over arrays, runs and bitsets,
 * in both variants and across a 64-bit key boundary. */
static void test_clear_deleted(void **state)
{
    (void)state;
    for (int v64 = 0; v64 < 2; v64++) {
        pm_dv *dv;
        PM_OK_OR_FAIL(pm_dv_new(v64, &dv));
        int64_t base = v64 ? (INT64_C(1) << 32) - 150000 : 0;
        for (int i = 0; i < 3000; i++) /* sparse */
            PM_OK_OR_FAIL(pm_dv_add(dv, base + (int64_t)(rnd() % 300000), NULL));
        PM_OK_OR_FAIL(pm_dv_add_range(dv, base + 70000, base + 90000)); /* run */
        for (int64_t i = 140000; i < 160000; i += 3) /* bitset, crosses the key in V2 */
            PM_OK_OR_FAIL(pm_dv_add(dv, base + i, NULL));
        pm_buf tmp = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_dv_serialize(dv, &tmp, NULL)); /* run-optimize */
        pm_buf_free(&tmp);
        for (int t = 0; t < 300; t++) {
            int64_t start = base + (int64_t)(rnd() % 320000), n = (int64_t)(rnd() % 70000) + 1;
            if (t % 50 == 0)
                start = base; /* from the beginning */
            uint8_t *keep = malloc((size_t)(n + 7) / 8);
            memset(keep, 0xFF, (size_t)(n + 7) / 8);
            int64_t nd, want = 0;
            pm_dv_clear_deleted(dv, start, n, keep, &nd);
            for (int64_t i = 0; i < n; i++) {
                bool del = pm_dv_contains(dv, start + i);
                want += del;
                assert_int_equal(!((keep[i >> 3] >> (i & 7)) & 1), del);
            }
            assert_int_equal(nd, want);
            free(keep);
        }
        pm_dv_free(dv);
    }
}

/* Every truncation of a valid entry is rejected, never read out of bounds. */
static void test_truncated(void **state)
{
    (void)state;
    for (int v64 = 0; v64 < 2; v64++) {
        pm_dv *dv;
        PM_OK_OR_FAIL(pm_dv_new(v64, &dv));
        PM_OK_OR_FAIL(pm_dv_add_range(dv, 0, 100));
        for (int64_t i = 1000; i < 9000; i += 2)
            PM_OK_OR_FAIL(pm_dv_add(dv, i, NULL));
        pm_buf out = PM_BUF_INIT;
        int32_t len;
        PM_OK_OR_FAIL(pm_dv_serialize(dv, &out, &len));
        for (size_t n = 0; n < out.len; n++) {
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, out.data, n);
            pm_dv *x = NULL;
            PM_EXPECT_ERR(pm_dv_deserialize(copy, n, len, false, &x, NULL), PM_ECORRUPT);
            assert_null(x);
            free(copy);
        }
        pm_buf_free(&out);
        pm_dv_free(dv);
    }
}

static pm_error *deser(const uint8_t *p, size_t n, int64_t len, bool crc)
{
    pm_dv *dv = NULL;
    pm_error *e = pm_dv_deserialize(p, n, len, crc, &dv, NULL);
    pm_dv_free(dv);
    return e;
}

/* Recompute the CRC of an edited entry. */
static void fix_crc(uint8_t *entry)
{
    uint32_t size = pm_load_u32be(entry);
    pm_store_u32be(entry + 4 + size, (uint32_t)crc32(0, entry + 4, size));
}

/* A 64-bit vector whose last key (Integer.MAX_VALUE - 1) holds a low half
 * above the largest position: refused, not accepted with positions that
 * contains() denies (a fuzz finding). */
static void test_bitmap64_position_above_max(void **state)
{
    (void)state;
    static const uint8_t entry[] = {
        0x00, 0x00, 0x00, 0x24, 0xd1, 0xd3, 0x39, 0x64, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0xfe, 0xff, 0xff, 0x7f, 0x3a, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x01,
        0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x7a, 0x81, 0x38, 0x47};
    pm_dv *dv = NULL;
    PM_EXPECT_ERR(pm_dv_deserialize(entry, sizeof entry, -1, false, &dv, NULL), PM_ECORRUPT);
    assert_null(dv);
    /* the largest position itself is fine, one more is not */
    PM_OK_OR_FAIL(pm_dv_new(true, &dv));
    PM_OK_OR_FAIL(pm_dv_add(dv, PM_DV_MAX_POS64, NULL));
    assert_true(pm_dv_contains(dv, PM_DV_MAX_POS64));
    PM_EXPECT_ERR(pm_dv_add(dv, PM_DV_MAX_POS64 + 1, NULL), PM_EINVALID);
    pm_dv_free(dv);
}

static void test_corrupt(void **state)
{
    (void)state;
    size_t n;
    uint8_t *file = golden("dvindex-32", &n);
    uint8_t *e1 = file + 1; /* 32 bytes: size 24, magic, bitmap(20), crc */
    uint8_t buf[64];

    PM_OK_OR_FAIL(deser(e1, 32, 24, true));
    PM_OK_OR_FAIL(deser(e1, 32, -1, true));
    PM_EXPECT_ERR(deser(e1, 32, 23, false), PM_ECORRUPT); /* length mismatch */
    PM_EXPECT_ERR(deser(e1, 32, 32, false), PM_ECORRUPT); /* V2 semantics on V1 */

    memcpy(buf, e1, 32);
    buf[30] ^= 1; /* CRC byte */
    PM_EXPECT_ERR(deser(buf, 32, 24, true), PM_ECORRUPT);
    PM_OK_OR_FAIL(deser(buf, 32, 24, false)); /* Java skips the CRC */

    memcpy(buf, e1, 32);
    buf[7] ^= 1; /* magic */
    PM_EXPECT_ERR(deser(buf, 32, -1, false), PM_ECORRUPT);

    memcpy(buf, e1, 32);
    pm_store_u32be(buf, 0x80000000u); /* negative size */
    PM_EXPECT_ERR(deser(buf, 32, -1, false), PM_ECORRUPT);
    pm_store_u32be(buf, 3); /* too small for the magic */
    PM_EXPECT_ERR(deser(buf, 32, -1, false), PM_ECORRUPT);

    /* bitmap: cookie 3A30, count 1, key 0 card-1 = 1, offset, values 2 3 (at 8..27) */
    memcpy(buf, e1, 32);
    buf[24] = 3; buf[26] = 2; /* values 3, 2: not increasing */
    fix_crc(buf);
    PM_EXPECT_ERR(deser(buf, 32, 24, true), PM_ECORRUPT);
    memcpy(buf, e1, 32);
    buf[18] = 2; /* card 3 but only 2 values + CRC bytes available */
    PM_EXPECT_ERR(deser(buf, 32, 24, false), PM_ECORRUPT);
    memcpy(buf, e1, 32);
    buf[18] = 0; /* card 1: one value, 2 bytes left over inside size */
    fix_crc(buf);
    PM_EXPECT_ERR(deser(buf, 32, 24, true), PM_ECORRUPT);
    memcpy(buf, e1, 32);
    buf[8] = 0x3C; /* bad cookie */
    PM_EXPECT_ERR(deser(buf, 32, 24, false), PM_ECORRUPT);
    memcpy(buf, e1, 32);
    pm_store_u32le(buf + 12, 70000); /* too many containers */
    PM_EXPECT_ERR(deser(buf, 32, 24, false), PM_ECORRUPT);
    free(file);

    /* V2: key order, negative key, huge count. */
    file = golden("dvindex-64", &n);
    uint8_t *f1 = file + 1; /* 44 bytes; key at 16..19 */
    PM_OK_OR_FAIL(deser(f1, 44, 44, true));
    PM_EXPECT_ERR(deser(f1, 44, 36, false), PM_ECORRUPT);
    memcpy(buf, f1, 44);
    pm_store_u32le(buf + 16, 0x80000000u);
    PM_EXPECT_ERR(deser(buf, 44, 44, false), PM_ECORRUPT);
    memcpy(buf, f1, 44);
    pm_store_u32le(buf + 16, 0x7FFFFFFFu); /* > Integer.MAX_VALUE - 1 */
    PM_EXPECT_ERR(deser(buf, 44, 44, false), PM_ECORRUPT);
    memcpy(buf, f1, 44);
    pm_store_u64le(buf + 8, UINT64_C(1) << 40);
    PM_EXPECT_ERR(deser(buf, 44, 44, false), PM_ECORRUPT);
    memcpy(buf, f1, 44);
    pm_store_u64le(buf + 8, 0); /* zero bitmaps but 24 bytes follow */
    PM_EXPECT_ERR(deser(buf, 44, 44, false), PM_ECORRUPT);
    free(file);
}

/* Hand-made portable bitmaps that CRoaring's own safe reader would take
 * but whose contents break its invariants. */
static void test_roaring_check(void **state)
{
    (void)state;
    size_t used;
    uint64_t card;
    /* run container: cookie 12347 | count-1 = 0, flags 1, key 0 card-1 = 9, 1 run (65530, len-1 9) */
    uint8_t run[] = {0x3B, 0x30, 0, 0, 1, 0, 0, 9, 0, 1, 0, 0xFA, 0xFF, 9, 0};
    PM_EXPECT_ERR(pm_roaring_check(run, sizeof run, &used, &card), PM_ECORRUPT); /* passes 65535 */
    run[11] = 0xF0; /* start 65520: ends at 65529 */
    PM_OK_OR_FAIL(pm_roaring_check(run, sizeof run, &used, &card));
    assert_int_equal(used, sizeof run);
    assert_int_equal(card, 10);
    run[7] = 10; /* header card 11 != 10 */
    PM_EXPECT_ERR(pm_roaring_check(run, sizeof run, &used, &card), PM_ECORRUPT);

    /* two overlapping runs */
    uint8_t runs2[] = {0x3B, 0x30, 0, 0, 1, 0, 0, 19, 0, 2, 0, 0, 0, 9, 0, 5, 0, 9, 0};
    PM_EXPECT_ERR(pm_roaring_check(runs2, sizeof runs2, &used, &card), PM_ECORRUPT);
    runs2[15] = 10; /* second run starts right after the first: fine */
    PM_OK_OR_FAIL(pm_roaring_check(runs2, sizeof runs2, &used, &card));
    assert_int_equal(card, 20);
    runs2[9] = 0; /* zero runs */
    PM_EXPECT_ERR(pm_roaring_check(runs2, 11, &used, &card), PM_ECORRUPT);

    /* bitset with a popcount differing from the header */
    size_t bn = 8 + 4 + 4 + 8192;
    uint8_t *bs = calloc(1, bn);
    pm_store_u32le(bs, 12346);
    pm_store_u32le(bs + 4, 1);
    bs[10] = 0x00; bs[11] = 0x10; /* card - 1 = 4096 → 4097 values expected */
    memset(bs + 16, 0xFF, 512);  /* 4096 bits set */
    PM_EXPECT_ERR(pm_roaring_check(bs, bn, &used, &card), PM_ECORRUPT);
    bs[16 + 512] = 1;            /* 4097 */
    PM_OK_OR_FAIL(pm_roaring_check(bs, bn, &used, &card));
    assert_int_equal(used, bn);
    assert_int_equal(card, 4097);
    free(bs);

    /* duplicate container keys */
    uint8_t keys[] = {0x3A, 0x30, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0,
                      0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0};
    PM_EXPECT_ERR(pm_roaring_check(keys, sizeof keys, &used, &card), PM_ECORRUPT);
    keys[12] = 6;
    PM_OK_OR_FAIL(pm_roaring_check(keys, sizeof keys, &used, &card));
    assert_int_equal(card, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_32),
        cmocka_unit_test(test_golden_64),
        cmocka_unit_test(test_run_optimized_layout),
        cmocka_unit_test(test_bitset_round_trip),
        cmocka_unit_test(test_64bit_positions),
        cmocka_unit_test(test_32bit_limits_merge),
        cmocka_unit_test(test_clear_deleted),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_bitmap64_position_above_max),
        cmocka_unit_test(test_roaring_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
