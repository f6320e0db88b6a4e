/*
 * tests/unit/orc/test_orc_rle.c — ORC run-length encodings: the byte
 * sequences of the ORC v1 specification's examples (byte RLE, booleans,
 * RLE v1, the four RLE v2 sub-encodings) decoded and produced bit for bit
 * by our encoders, randomized round trips of every shape (runs, deltas,
 * outliers, extremes; signed and unsigned; aligned and unaligned widths),
 * encoder positions, and corrupt runs rejected.
 */
#include <string.h>

#include "pm_test.h"
#include "format/orc/orc_meta.h"
#include "format/orc/orc_rle.h"

static orc_codec none_codec(void)
{
    orc_codec c;
    pm_error *e = orc_codec_init(&c, ORC_COMP_NONE, 0, NULL);
    assert_null(e);
    return c;
}

/* ---- decoding golden bytes ---- */

static void decode_ints(const uint8_t *p, size_t n, bool is_signed, int version, int64_t *out, size_t count)
{
    orc_codec c = none_codec();
    orc_in in;
    orc_in_init(&in, &c, p, n);
    orc_int_dec d;
    PM_OK_OR_FAIL(orc_int_dec_init(&d, &in, is_signed, version));
    PM_OK_OR_FAIL(orc_int_dec_next(&d, out, count));
    bool end;
    PM_OK_OR_FAIL(orc_in_at_end(&in, &end));
    assert_true(end);
    orc_int_dec_free(&d);
    orc_in_free(&in);
}

/* Encode with our writer and return the bytes (caller frees). */
static uint8_t *encode_ints(const int64_t *v, size_t n, bool is_signed, int version, bool aligned, size_t *len)
{
    orc_codec c = none_codec();
    orc_out out;
    orc_out_init(&out, &c);
    orc_int_enc *e;
    PM_OK_OR_FAIL(orc_int_enc_new(&e, &out, is_signed, version, aligned));
    for (size_t i = 0; i < n; i++)
        PM_OK_OR_FAIL(orc_int_enc_put(e, v[i]));
    PM_OK_OR_FAIL(orc_int_enc_flush(e));
    orc_int_enc_free(e);
    uint8_t *r = pm_buf_detach(&out.out, len);
    orc_out_free(&out);
    return r;
}

static void expect_golden(const int64_t *v, size_t n, bool is_signed, int version, const uint8_t *bytes,
                          size_t nbytes)
{
    int64_t got[1024];
    decode_ints(bytes, nbytes, is_signed, version, got, n);
    assert_memory_equal(got, v, n * sizeof *v);
    size_t len;
    uint8_t *enc = encode_ints(v, n, is_signed, version, true, &len);
    assert_int_equal(len, nbytes);
    assert_memory_equal(enc, bytes, nbytes);
    free(enc);
}

static void test_spec_v2_short_repeat(void **state)
{
    (void)state;
    const int64_t v[] = {10000, 10000, 10000, 10000, 10000};
    const uint8_t b[] = {0x0a, 0x27, 0x10};
    expect_golden(v, 5, false, 2, b, sizeof b);
}

static void test_spec_v2_direct(void **state)
{
    (void)state;
    const int64_t v[] = {23713, 43806, 57005, 48879};
    const uint8_t b[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef};
    expect_golden(v, 4, false, 2, b, sizeof b);
}

static void test_spec_v2_patched_base(void **state)
{
    (void)state;
    const int64_t v[] = {2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090,
                         2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190};
    const uint8_t b[] = {0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46,
                         0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8};
    expect_golden(v, 20, false, 2, b, sizeof b);
}

static void test_spec_v2_delta(void **state)
{
    (void)state;
    const int64_t v[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};
    const uint8_t b[] = {0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46};
    expect_golden(v, 10, false, 2, b, sizeof b);
}

static void test_spec_v1(void **state)
{
    (void)state;
    int64_t sevens[100], down[100];
    for (int i = 0; i < 100; i++) {
        sevens[i] = 7;
        down[i] = 100 - i;
    }
    const uint8_t b1[] = {0x61, 0x00, 0x07};
    expect_golden(sevens, 100, false, 1, b1, sizeof b1);
    const uint8_t b2[] = {0x61, 0xff, 0x64};
    expect_golden(down, 100, false, 1, b2, sizeof b2);
    const int64_t lits[] = {2, 3, 6, 7, 11};
    const uint8_t b3[] = {0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b};
    expect_golden(lits, 5, false, 1, b3, sizeof b3);
}

static void byte_roundtrip(const uint8_t *v, size_t n, const uint8_t *bytes, size_t nbytes)
{
    orc_codec c = none_codec();
    orc_out out;
    orc_out_init(&out, &c);
    orc_byte_enc e;
    orc_byte_enc_init(&e, &out);
    for (size_t i = 0; i < n; i++)
        PM_OK_OR_FAIL(orc_byte_enc_put(&e, v[i]));
    PM_OK_OR_FAIL(orc_byte_enc_flush(&e));
    if (bytes) {
        assert_int_equal(out.out.len, nbytes);
        assert_memory_equal(out.out.data, bytes, nbytes);
    }
    orc_in in;
    orc_in_init(&in, &c, out.out.data, out.out.len);
    orc_byte_dec d;
    orc_byte_dec_init(&d, &in);
    uint8_t *got = malloc(n ? n : 1);
    PM_OK_OR_FAIL(orc_byte_dec_next(&d, got, n));
    assert_memory_equal(got, v, n);
    bool end;
    PM_OK_OR_FAIL(orc_in_at_end(&in, &end));
    assert_true(end);
    free(got);
    orc_in_free(&in);
    orc_out_free(&out);
}

static void test_spec_byte_rle(void **state)
{
    (void)state;
    uint8_t zeros[100] = {0};
    const uint8_t b1[] = {0x61, 0x00};
    byte_roundtrip(zeros, 100, b1, sizeof b1);
    const uint8_t two[] = {0x44, 0x45};
    const uint8_t b2[] = {0xfe, 0x44, 0x45};
    byte_roundtrip(two, 2, b2, sizeof b2);
    /* literals, then a run found at its third value */
    const uint8_t mixed[] = {1, 2, 3, 3, 3, 3, 4};
    const uint8_t b3[] = {0xfe, 1, 2, 0x01, 3, 0xff, 4};
    byte_roundtrip(mixed, sizeof mixed, b3, sizeof b3);
    /* long runs split at 130, literals at 128 */
    uint8_t big[1000];
    for (int i = 0; i < 1000; i++)
        big[i] = i < 400 ? 9 : (uint8_t)(i * 7);
    byte_roundtrip(big, sizeof big, NULL, 0);
}

static void test_spec_booleans(void **state)
{
    (void)state;
    const uint8_t b[] = {0xff, 0x80};
    orc_codec c = none_codec();
    orc_in in;
    orc_in_init(&in, &c, b, sizeof b);
    orc_bool_dec d;
    orc_bool_dec_init(&d, &in);
    uint8_t got[8];
    PM_OK_OR_FAIL(orc_bool_dec_next(&d, got, 8));
    const uint8_t want[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(got, want, 8);
    orc_in_free(&in);

    /* encoder: 1 true + 7 false → the same bytes; 21 values round trip */
    orc_out out;
    orc_out_init(&out, &c);
    orc_bool_enc e;
    orc_bool_enc_init(&e, &out);
    for (int i = 0; i < 8; i++)
        PM_OK_OR_FAIL(orc_bool_enc_put(&e, i == 0));
    PM_OK_OR_FAIL(orc_bool_enc_flush(&e));
    assert_int_equal(out.out.len, 2);
    assert_memory_equal(out.out.data, b, 2);
    orc_out_reset(&out);
    uint8_t vals[21];
    for (int i = 0; i < 21; i++) {
        vals[i] = (uint8_t)((i * 5 + 1) % 3 == 0);
        PM_OK_OR_FAIL(orc_bool_enc_put(&e, vals[i]));
    }
    PM_OK_OR_FAIL(orc_bool_enc_flush(&e));
    orc_in_init(&in, &c, out.out.data, out.out.len);
    orc_bool_dec_init(&d, &in);
    uint8_t back[21];
    PM_OK_OR_FAIL(orc_bool_dec_next(&d, back, 21));
    assert_memory_equal(back, vals, 21);
    orc_in_free(&in);
    orc_out_free(&out);
}

/* ---- randomized round trips ---- */

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void roundtrip(const int64_t *v, size_t n, bool is_signed, int version, bool aligned)
{
    size_t len;
    uint8_t *enc = encode_ints(v, n, is_signed, version, aligned, &len);
    int64_t *got = malloc((n ? n : 1) * sizeof *got);
    decode_ints(enc, len, is_signed, version, got, n);
    for (size_t i = 0; i < n; i++)
        if (got[i] != v[i])
            fail_msg("value %zu: got %lld, want %lld (signed %d, v%d, aligned %d)", i, (long long)got[i],
                     (long long)v[i], is_signed, version, aligned);
    free(got);
    free(enc);
}

static void fill_shape(int64_t *v, size_t n, int shape, bool is_signed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_rand();
        int64_t x;
        switch (shape) {
        case 0: x = (int64_t)(r % 16); break;                               /* small */
        case 1: x = (int64_t)(i / 37) * 5; break;                           /* runs */
        case 2: x = (int64_t)i * 3 + 100; break;                            /* fixed delta */
        case 3: x = (int64_t)(i * i); break;                                 /* increasing */
        case 4: x = (r % 50 == 0) ? (int64_t)(r >> 20) : (int64_t)(r % 300); break; /* outliers */
        case 5: x = (int64_t)r; break;                                       /* full range */
        case 6: x = (r & 1) ? INT64_MAX : INT64_MIN; break;                  /* extremes */
        case 7: x = (int64_t)(1000000 - (int64_t)i * (int64_t)(r % 7)); break; /* decreasing */
        case 8: x = (i % 13 < 4) ? 42 : (int64_t)(r % 1000); break;         /* short repeats */
        default: x = -(int64_t)(r % 100000); break;                          /* negatives */
        }
        if (!is_signed && x < 0)
            x = x == INT64_MIN ? 0 : -x;
        v[i] = x;
    }
}

static void test_random_roundtrips(void **state)
{
    (void)state;
    static int64_t v[5000];
    const size_t sizes[] = {0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 100, 511, 512, 513, 1024, 5000};
    for (int shape = 0; shape < 10; shape++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int sg = 0; sg < 2; sg++)
                for (int version = 1; version <= 2; version++)
                    for (int al = 0; al < 2; al++) {
                        if (version == 1 && al)
                            continue;
                        fill_shape(v, sizes[si], shape, sg);
                        if (!sg && shape == 6)
                            continue;
                        roundtrip(v, sizes[si], sg, version, al);
                    }
}

/* Every width 1..64 through DIRECT and PATCHED_BASE. */
static void test_all_widths(void **state)
{
    (void)state;
    int64_t v[300];
    for (int w = 1; w <= 63; w++) {
        for (int i = 0; i < 300; i++) {
            uint64_t r = next_rand() & (((uint64_t)1 << w) - 1);
            v[i] = (int64_t)r;
        }
        roundtrip(v, 300, false, 2, false);
        roundtrip(v, 300, false, 2, true);
        for (int i = 0; i < 300; i++)
            v[i] = (i % 40 == 7) ? (int64_t)(((uint64_t)1 << w) - 1) : i % 5;
        roundtrip(v, 300, true, 2, false);
        roundtrip(v, 300, false, 2, false);
    }
}

static void test_positions(void **state)
{
    (void)state;
    orc_codec c = none_codec();
    orc_out out;
    orc_out_init(&out, &c);
    orc_int_enc *e;
    PM_OK_OR_FAIL(orc_int_enc_new(&e, &out, true, 2, true));
    for (int i = 0; i < 5; i++)
        PM_OK_OR_FAIL(orc_int_enc_put(e, i * 1000 + (i & 1)));
    orc_positions p = {0};
    PM_OK_OR_FAIL(orc_int_enc_position(e, &p));
    assert_int_equal(p.n, 2);
    assert_int_equal(p.v[0], 0);   /* nothing written yet */
    assert_int_equal(p.v[1], 5);   /* five values buffered */
    orc_positions_free(&p);
    orc_int_enc_free(e);
    orc_out_free(&out);
}

static void expect_corrupt(const uint8_t *b, size_t n, size_t count)
{
    orc_codec c = none_codec();
    orc_in in;
    orc_in_init(&in, &c, b, n);
    orc_int_dec d;
    PM_OK_OR_FAIL(orc_int_dec_init(&d, &in, false, 2));
    int64_t out[600];
    PM_EXPECT_ERR(orc_int_dec_next(&d, out, count), PM_ECORRUPT);
    orc_int_dec_free(&d);
    orc_in_free(&in);
}

static void test_corrupt(void **state)
{
    (void)state;
    /* direct run of 4 16-bit values cut short */
    const uint8_t cut[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab};
    expect_corrupt(cut, sizeof cut, 4);
    /* patched base: patch width 64 + gap width 8 > 64 */
    const uint8_t wide[] = {0x80, 0x00, 0x1f, 0xe1, 0x00, 0x00, 0xff};
    expect_corrupt(wide, sizeof wide, 1);
    /* patched base whose patch lands past the run */
    const uint8_t far[] = {0x80, 0x00, 0x00, 0x41, 0x00, 0x00, 0xf8};
    expect_corrupt(far, sizeof far, 1);
    /* empty stream */
    expect_corrupt(NULL, 0, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_v2_short_repeat), cmocka_unit_test(test_spec_v2_direct),
        cmocka_unit_test(test_spec_v2_patched_base), cmocka_unit_test(test_spec_v2_delta),
        cmocka_unit_test(test_spec_v1),            cmocka_unit_test(test_spec_byte_rle),
        cmocka_unit_test(test_spec_booleans),      cmocka_unit_test(test_random_roundtrips),
        cmocka_unit_test(test_all_widths),         cmocka_unit_test(test_positions),
        cmocka_unit_test(test_corrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
