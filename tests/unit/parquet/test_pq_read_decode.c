/*
 * tests/unit/parquet/test_pq_read_decode.c — the reader's decoders on
 * hand-built and reference-encoded vectors: bit unpacking at every width
 * 0..64, the RLE / bit-packed hybrid (runs of both kinds, odd read sizes,
 * cut final runs, errors), legacy MSB-first BIT_PACKED levels, PLAIN
 * (fixed, booleans across calls, byte arrays), DELTA_BINARY_PACKED (spec
 * example, random sequences with extreme deltas, 32-bit wrap-around,
 * errors) and BYTE_STREAM_SPLIT.
 */
#include <string.h>

#include "pm_test.h"
#include "base/buf.h"
#include "base/cursor.h"
#include "format/parquet/pq_decode.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Reference LSB-first packer: n values of bw bits. */
static void pack_lsb(const uint64_t *v, size_t n, int bw, uint8_t *out)
{
    memset(out, 0, (n * (size_t)bw + 7) / 8);
    uint64_t bit = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < bw; k++, bit++)
            if ((v[i] >> k) & 1)
                out[bit >> 3] |= (uint8_t)(1u << (bit & 7));
}

static uint64_t mask(int bw) { return bw == 64 ? ~0ull : (1ull << bw) - 1; }

static void test_unpack_all_widths(void **state)
{
    (void)state;
    for (int bw = 0; bw <= 64; bw++) {
        for (int rep = 0; rep < 20; rep++) {
            uint64_t v[8], got[8];
            uint8_t buf[64];
            for (int i = 0; i < 8; i++)
                v[i] = rnd() & mask(bw);
            if (rep == 0)
                for (int i = 0; i < 8; i++)
                    v[i] = mask(bw); /* all ones */
            pack_lsb(v, 8, bw, buf);
            pqd_unpack8_u64(buf, bw, got);
            for (int i = 0; i < 8; i++)
                assert_true(got[i] == v[i]);
            if (bw <= 32) {
                uint32_t g32[8];
                pqd_unpack8_u32(buf, bw, g32);
                for (int i = 0; i < 8; i++)
                    assert_int_equal(g32[i], (uint32_t)v[i]);
            }
        }
    }
}

/* Reference hybrid encoder: alternate RLE runs and bit-packed runs. */
static size_t put_uvarint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static size_t encode_hybrid(const uint32_t *v, size_t n, int bw, uint8_t *out)
{
    size_t o = 0, i = 0;
    int kind = 0;
    while (i < n) {
        if (kind++ % 2 == 0) {
            /* RLE run of the current value */
            size_t j = i;
            while (j < n && v[j] == v[i])
                j++;
            o += put_uvarint(out + o, (uint64_t)(j - i) << 1);
            for (int b = 0; b < (bw + 7) / 8; b++)
                out[o++] = (uint8_t)(v[i] >> (8 * b));
            i = j;
        } else {
            /* bit-packed run of up to 3 groups (last group zero-padded) */
            size_t groups = (n - i + 7) / 8;
            if (groups > 3)
                groups = 3;
            uint64_t tmp[24] = {0};
            size_t k = 0;
            for (; k < groups * 8 && i + k < n; k++)
                tmp[k] = v[i + k];
            o += put_uvarint(out + o, (uint64_t)groups << 1 | 1);
            pack_lsb(tmp, groups * 8, bw, out + o);
            o += groups * (size_t)bw;
            i += k;
        }
    }
    return o;
}

static void test_rle_hybrid_random(void **state)
{
    (void)state;
    enum { N = 1000 };
    static uint32_t v[N], got[N];
    static uint16_t got16[N];
    static uint8_t enc[N * 8];
    for (int bw = 0; bw <= 32; bw++) {
        for (size_t i = 0; i < N; i++) {
            /* runs of repeats and noise */
            v[i] = (i / 37) % 3 == 0 && i ? v[i - 1] : (uint32_t)(rnd() & mask(bw));
        }
        size_t len = encode_hybrid(v, N, bw, enc);
        pqd_rle d;
        PM_OK_OR_FAIL(pqd_rle_init(&d, enc, len, bw));
        size_t pos = 0, step = 1;
        while (pos < N) {
            size_t k = step < N - pos ? step : N - pos;
            PM_OK_OR_FAIL(pqd_rle_get_u32(&d, got + pos, k));
            pos += k;
            step = step * 3 % 29 + 1;
        }
        assert_memory_equal(got, v, sizeof v);
        if (bw <= 16) {
            PM_OK_OR_FAIL(pqd_rle_init(&d, enc, len, bw));
            PM_OK_OR_FAIL(pqd_rle_get_u16(&d, got16, N));
            for (size_t i = 0; i < N; i++)
                assert_int_equal(got16[i], v[i]);
        }
        /* Asking for one more value than encoded (beyond padding) fails. */
        PM_OK_OR_FAIL(pqd_rle_init(&d, enc, len, bw));
        PM_OK_OR_FAIL(pqd_rle_get_u32(&d, got, N));
        uint32_t extra[64];
        pm_error *e = pqd_rle_get_u32(&d, extra, 64);
        assert_non_null(e);
        assert_int_equal(pm_error_code(e), PM_ECORRUPT);
        pm_error_free(e);
    }
}

static void test_rle_hand_vectors(void **state)
{
    (void)state;
    /* bw 3: RLE 10 x 5, bit-packed 1 group [0..7], RLE 300 x 2 */
    const uint8_t s[] = {0x14, 0x05, 0x03, 0x88, 0xc6, 0xfa, 0xd8, 0x04, 0x02};
    pqd_rle d;
    uint32_t out[318];
    PM_OK_OR_FAIL(pqd_rle_init(&d, s, sizeof s, 3));
    PM_OK_OR_FAIL(pqd_rle_get_u32(&d, out, 318));
    for (int i = 0; i < 10; i++)
        assert_int_equal(out[i], 5);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[10 + i], i);
    for (int i = 18; i < 318; i++)
        assert_int_equal(out[i], 2);

    /* A bit-packed run claiming 2 groups but cut after 1 byte (bw 1): 8 values available. */
    const uint8_t cut[] = {0x05, 0xa5};
    PM_OK_OR_FAIL(pqd_rle_init(&d, cut, sizeof cut, 1));
    PM_OK_OR_FAIL(pqd_rle_get_u32(&d, out, 8));
    const uint32_t want[8] = {1, 0, 1, 0, 0, 1, 0, 1};
    assert_memory_equal(out, want, sizeof want);
    PM_EXPECT_ERR(pqd_rle_get_u32(&d, out, 1), PM_ECORRUPT);

    /* Dictionary indices are checked against the dictionary size. */
    const uint8_t idx[] = {0x06, 0x07}; /* RLE 3 x 7 */
    PM_OK_OR_FAIL(pqd_rle_init(&d, idx, sizeof idx, 3));
    PM_EXPECT_ERR(pqd_rle_get_indices(&d, out, 3, 7), PM_ECORRUPT);
    PM_OK_OR_FAIL(pqd_rle_init(&d, idx, sizeof idx, 3));
    PM_OK_OR_FAIL(pqd_rle_get_indices(&d, out, 3, 8));

    /* RLE value truncated; width out of range; empty stream. */
    const uint8_t trunc[] = {0x04, 0x01};
    PM_OK_OR_FAIL(pqd_rle_init(&d, trunc, sizeof trunc, 9));
    PM_EXPECT_ERR(pqd_rle_get_u32(&d, out, 1), PM_ECORRUPT);
    PM_EXPECT_ERR(pqd_rle_init(&d, trunc, sizeof trunc, 33), PM_ECORRUPT);
    PM_OK_OR_FAIL(pqd_rle_init(&d, trunc, 0, 1));
    PM_EXPECT_ERR(pqd_rle_get_u32(&d, out, 1), PM_ECORRUPT);
    PM_OK_OR_FAIL(pqd_rle_get_u32(&d, out, 0));

    /* bw 0: RLE run with no value bytes, bit-packed run of zeros. */
    const uint8_t zero[] = {0x08, 0x03};
    PM_OK_OR_FAIL(pqd_rle_init(&d, zero, sizeof zero, 0));
    PM_OK_OR_FAIL(pqd_rle_get_u32(&d, out, 12));
    for (int i = 0; i < 12; i++)
        assert_int_equal(out[i], 0);
}

static void test_bitpacked_msb_levels(void **state)
{
    (void)state;
    /* bw 1: 1,0,1,1,0,0,0,1, 1 → 10110001 1....... */
    const uint8_t b1[] = {0xb1, 0x80};
    uint16_t out[9];
    PM_OK_OR_FAIL(pqd_bitpacked_msb_get_u16(b1, sizeof b1, 1, out, 9));
    const uint16_t w1[9] = {1, 0, 1, 1, 0, 0, 0, 1, 1};
    assert_memory_equal(out, w1, sizeof w1);
    /* bw 3: 0..7 MSB-first = 000 001 010 011 100 101 110 111 */
    const uint8_t b3[] = {0x05, 0x39, 0x77};
    PM_OK_OR_FAIL(pqd_bitpacked_msb_get_u16(b3, sizeof b3, 3, out, 8));
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[i], i);
    PM_EXPECT_ERR(pqd_bitpacked_msb_get_u16(b3, 2, 3, out, 8), PM_ECORRUPT);
}

static void test_plain(void **state)
{
    (void)state;
    const uint8_t ints[] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 3, 0, 0};
    const uint8_t *p = ints;
    int32_t out[2];
    PM_OK_OR_FAIL(pqd_plain_fixed(&p, ints + sizeof ints, 4, 2, out));
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], -1);
    PM_EXPECT_ERR(pqd_plain_fixed(&p, ints + sizeof ints, 4, 1, out), PM_ECORRUPT);

    /* booleans across calls: 0b00000101, 0b1 */
    const uint8_t bools[] = {0x05, 0x01};
    uint64_t bit = 0;
    uint8_t b[9];
    PM_OK_OR_FAIL(pqd_plain_bool(bools, 2, &bit, 3, b));
    PM_OK_OR_FAIL(pqd_plain_bool(bools, 2, &bit, 6, b + 3));
    const uint8_t wb[9] = {1, 0, 1, 0, 0, 0, 0, 0, 1};
    assert_memory_equal(b, wb, 9);
    PM_EXPECT_ERR(pqd_plain_bool(bools, 2, &bit, 8, b), PM_ECORRUPT);

    /* byte arrays */
    const uint8_t ba[] = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z', 9, 0, 0, 0, 'q'};
    p = ba;
    int32_t off[4];
    pm_buf data = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_buf_append(&data, "PRE", 3));
    PM_OK_OR_FAIL(pqd_plain_byte_array(&p, ba + sizeof ba, 3, off, &data));
    assert_int_equal(off[0], 0);
    assert_int_equal(off[1], 2);
    assert_int_equal(off[2], 2);
    assert_int_equal(off[3], 5);
    assert_int_equal(data.len, 8);
    assert_memory_equal(data.data, "PREhixyz", 8);
    PM_EXPECT_ERR(pqd_plain_byte_array(&p, ba + sizeof ba, 1, off, &data), PM_ECORRUPT);
    const uint8_t *q = ba;
    PM_EXPECT_ERR(pqd_plain_byte_array(&q, ba + 3, 1, off, &data), PM_ECORRUPT);
    pm_buf_free(&data);
}

/* PLAIN byte arrays long enough for the short-value fast path (a 32-byte
 * copy while 36 bytes are left) and its edges: lengths 0-40 around 16 and
 * 32, the tail where fewer than 36 bytes are left, a long length that
 * overruns the page while many bytes are left. */
static void test_plain_byte_array_long_page(void **state)
{
    (void)state;
    static const uint32_t lens[] = {0, 1, 15, 16, 17, 31, 32, 33, 40, 5, 32, 0, 7, 32, 3};
    enum { N = sizeof lens / sizeof lens[0] };
    uint8_t page[1024];
    size_t n = 0, total = 0;
    for (size_t i = 0; i < N; i++) {
        memcpy(page + n, &lens[i], 4);
        n += 4;
        for (uint32_t k = 0; k < lens[i]; k++)
            page[n++] = (uint8_t)('a' + (i * 7 + k) % 26);
        total += lens[i];
    }
    const uint8_t *p = page;
    int32_t off[N + 1];
    pm_buf data = PM_BUF_INIT;
    PM_OK_OR_FAIL(pqd_plain_byte_array(&p, page + n, N, off, &data));
    assert_ptr_equal(p, page + n);
    assert_int_equal(data.len, total);
    size_t at = 0, src = 0;
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(off[i], (int32_t)at);
        src += 4;
        assert_memory_equal(data.data + at, page + src, lens[i]);
        src += lens[i];
        at += lens[i];
    }
    assert_int_equal(off[N], (int32_t)total);
    /* the same page cut inside the last value: its length now overruns */
    p = page;
    data.len = 0;
    PM_EXPECT_ERR(pqd_plain_byte_array(&p, page + n - 1, N, off, &data), PM_ECORRUPT);
    /* a length of 1000 with 60 bytes left (not a short value) */
    uint8_t bad[64] = {0};
    uint32_t big = 1000;
    memcpy(bad, &big, 4);
    p = bad;
    PM_EXPECT_ERR(pqd_plain_byte_array(&p, bad + 64, 1, off, &data), PM_ECORRUPT);
    /* a length of 33 with exactly 36 bytes left: 3 bytes short */
    uint32_t l33 = 33;
    memcpy(bad, &l33, 4);
    p = bad;
    PM_EXPECT_ERR(pqd_plain_byte_array(&p, bad + 36, 1, off, &data), PM_ECORRUPT);
    /* a length of 32 with exactly 36 bytes left: the fast path, exact fit */
    uint32_t l32 = 32;
    memcpy(bad, &l32, 4);
    for (int k = 0; k < 32; k++)
        bad[4 + k] = (uint8_t)('A' + k % 26);
    p = bad;
    data.len = 0;
    PM_OK_OR_FAIL(pqd_plain_byte_array(&p, bad + 36, 1, off, &data));
    assert_ptr_equal(p, bad + 36);
    assert_int_equal(off[1], 32);
    assert_memory_equal(data.data, bad + 4, 32);
    pm_buf_free(&data);
}

/* Reference DELTA_BINARY_PACKED encoder (block 128, 4 miniblocks of 32). */
static size_t encode_delta(const int64_t *v, size_t n, bool is32, uint8_t *out)
{
    size_t o = 0;
    o += put_uvarint(out + o, 128);
    o += put_uvarint(out + o, 4);
    o += put_uvarint(out + o, n);
    o += put_uvarint(out + o, n ? pm_zigzag_encode(v[0]) : 0);
    size_t i = 1;
    while (i < n) {
        uint64_t d[128] = {0};
        size_t k = 0;
        for (; k < 128 && i + k < n; k++) {
            uint64_t a = (uint64_t)v[i + k], b = (uint64_t)v[i + k - 1];
            d[k] = is32 ? (uint64_t)(int64_t)(int32_t)(uint32_t)(a - b) : a - b;
        }
        int64_t min = (int64_t)d[0];
        for (size_t j = 1; j < k; j++)
            if ((int64_t)d[j] < min)
                min = (int64_t)d[j];
        o += put_uvarint(out + o, pm_zigzag_encode(min));
        uint64_t rel[128] = {0};
        int widths[4] = {0};
        for (size_t j = 0; j < k; j++) {
            rel[j] = d[j] - (uint64_t)min;
            if (is32)
                rel[j] &= 0xffffffffu;
        }
        for (int m = 0; m < 4; m++) {
            uint64_t mx = 0;
            for (size_t j = (size_t)m * 32; j < (size_t)m * 32 + 32 && j < k; j++)
                mx |= rel[j];
            while (widths[m] < 64 && (mx >> widths[m]))
                widths[m]++;
            out[o + (size_t)m] = (uint8_t)widths[m];
        }
        o += 4;
        for (int m = 0; m < 4 && (size_t)m * 32 < k; m++) {
            pack_lsb(rel + m * 32, 32, widths[m], out + o);
            o += (size_t)widths[m] * 4;
        }
        i += k;
    }
    return o;
}

static void check_delta(const int64_t *v, size_t n, bool is32)
{
    static uint8_t enc[1 << 16];
    static int64_t got[4096];
    size_t len = encode_delta(v, n, is32, enc);
    enc[len] = 0xAB; /* a byte after the stream */
    pqd_delta d;
    PM_OK_OR_FAIL(pqd_delta_init(&d, enc, len + 1, is32 ? 32 : 64, n));
    assert_int_equal(pqd_delta_count(&d), n);
    size_t pos = 0, step = 5;
    while (pos < n) {
        size_t k = step < n - pos ? step : n - pos;
        PM_OK_OR_FAIL(pqd_delta_get_i64(&d, got + pos, k));
        pos += k;
        step = step * 7 % 61 + 1;
    }
    for (size_t i = 0; i < n; i++)
        assert_true(got[i] == v[i]);
    const uint8_t *end;
    PM_OK_OR_FAIL(pqd_delta_end(&d, &end));
    assert_ptr_equal(end, enc + len);
    PM_EXPECT_ERR(pqd_delta_get_i64(&d, got, 1), PM_ECORRUPT);
}

static void test_delta_binary_packed(void **state)
{
    (void)state;
    /* spec example: 1 2 3 4 5 → deltas all 1, min delta 1, widths 0 */
    const uint8_t ex[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
    pqd_delta d;
    int64_t out[5];
    PM_OK_OR_FAIL(pqd_delta_init(&d, ex, sizeof ex, 64, 100));
    PM_OK_OR_FAIL(pqd_delta_get_i64(&d, out, 5));
    for (int i = 0; i < 5; i++)
        assert_int_equal(out[i], i + 1);
    /* one value only: no blocks follow the header */
    const uint8_t one[] = {0x80, 0x01, 0x04, 0x01, 0x0d, 0xEE};
    PM_OK_OR_FAIL(pqd_delta_init(&d, one, sizeof one, 32, 10));
    int32_t o32;
    PM_OK_OR_FAIL(pqd_delta_get_i32(&d, &o32, 1));
    assert_int_equal(o32, -7);
    const uint8_t *end;
    PM_OK_OR_FAIL(pqd_delta_end(&d, &end));
    assert_ptr_equal(end, one + 5);

    static int64_t v[3000];
    /* extreme 64-bit deltas (width 64) */
    for (size_t i = 0; i < 3000; i++)
        v[i] = (int64_t)rnd();
    v[1] = INT64_MIN;
    v[2] = INT64_MAX;
    check_delta(v, 3000, false);
    /* small sorted values, mixed widths, partial last block */
    for (size_t i = 0; i < 1000; i++)
        v[i] = (int64_t)(i * 3 + (rnd() & 7));
    check_delta(v, 1000, false);
    check_delta(v, 129, false);
    check_delta(v, 2, false);
    check_delta(v, 0, false);
    /* 32-bit: wrap-around between INT32_MIN and INT32_MAX */
    for (size_t i = 0; i < 777; i++)
        v[i] = (int32_t)(uint32_t)rnd();
    v[3] = INT32_MIN;
    v[4] = INT32_MAX;
    check_delta(v, 777, true);

    /* errors */
    const uint8_t bad_block[] = {0x81, 0x01, 0x04, 0x05, 0x02};
    PM_EXPECT_ERR(pqd_delta_init(&d, bad_block, sizeof bad_block, 64, 100), PM_ECORRUPT);
    const uint8_t bad_mini[] = {0x80, 0x01, 0x03, 0x05, 0x02};
    PM_EXPECT_ERR(pqd_delta_init(&d, bad_mini, sizeof bad_mini, 64, 100), PM_ECORRUPT);
    PM_EXPECT_ERR(pqd_delta_init(&d, ex, sizeof ex, 64, 4), PM_ECORRUPT); /* more values than allowed */
    const uint8_t wide32[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 33, 0, 0, 0};
    PM_OK_OR_FAIL(pqd_delta_init(&d, wide32, sizeof wide32, 32, 100));
    PM_EXPECT_ERR(pqd_delta_get_i64(&d, out, 5), PM_ECORRUPT);
    const uint8_t trunc[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 8, 0, 0, 0, 1, 2};
    PM_OK_OR_FAIL(pqd_delta_init(&d, trunc, sizeof trunc, 64, 100));
    PM_EXPECT_ERR(pqd_delta_get_i64(&d, out, 5), PM_ECORRUPT);
}

static void test_byte_stream_split(void **state)
{
    (void)state;
    /* 3 values of 4 bytes: 0x04030201, 0x14131211, 0x24232221 */
    const uint8_t s[] = {0x01, 0x11, 0x21, 0x02, 0x12, 0x22, 0x03, 0x13, 0x23, 0x04, 0x14, 0x24};
    uint32_t v[3];
    pqd_bss_get(s, 3, 4, 0, 3, (uint8_t *)v);
    assert_int_equal(v[0], 0x04030201);
    assert_int_equal(v[1], 0x14131211);
    assert_int_equal(v[2], 0x24232221);
    pqd_bss_get(s, 3, 4, 2, 1, (uint8_t *)v);
    assert_int_equal(v[0], 0x24232221);
    /* width 3 (FLBA): 2 values */
    const uint8_t t[] = {'a', 'x', 'b', 'y', 'c', 'z'};
    uint8_t o[6];
    pqd_bss_get(t, 2, 3, 0, 2, o);
    assert_memory_equal(o, "abcxyz", 6);
    /* width 8 */
    uint8_t s8[16], o8[16];
    for (int i = 0; i < 16; i++)
        s8[i] = (uint8_t)i;
    pqd_bss_get(s8, 2, 8, 1, 1, o8);
    for (int k = 0; k < 8; k++)
        assert_int_equal(o8[k], 2 * k + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unpack_all_widths),
        cmocka_unit_test(test_plain_byte_array_long_page),
        cmocka_unit_test(test_rle_hybrid_random),
        cmocka_unit_test(test_rle_hand_vectors),
        cmocka_unit_test(test_bitpacked_msb_levels),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_delta_binary_packed),
        cmocka_unit_test(test_byte_stream_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
