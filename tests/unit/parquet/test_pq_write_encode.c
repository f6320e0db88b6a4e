/*
 * tests/unit/parquet/test_pq_write_encode.c — writer encoders: the RLE /
 * bit-packing hybrid (known bytes, run detection as parquet-java does it,
 * every bit width 0..32 round-tripped through an independent decoder), the
 * dictionary hash table and column statistics.
 */
#include <math.h>
#include <string.h>

#include "pm_test.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_stats.h"
#include "format/parquet/pq_write_index.h"

/* ---- an independent RLE-hybrid decoder ----------------------------------- */

static uint64_t rd_uvarint(const uint8_t *p, size_t len, size_t *i)
{
    uint64_t v = 0;
    int sh = 0;
    while (*i < len) {
        uint8_t b = p[(*i)++];
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return v;
        sh += 7;
    }
    fail_msg("truncated varint");
    return 0;
}

/* Decode up to `n` values; returns how many were decoded (bit-packed runs
 * may carry padding beyond n). */
static size_t rle_decode(const uint8_t *p, size_t len, int w, uint32_t *out, size_t n)
{
    size_t i = 0, k = 0;
    while (i < len && k < n) {
        uint64_t h = rd_uvarint(p, len, &i);
        if (h & 1) {
            uint64_t count = (h >> 1) * 8;
            uint64_t bitpos = 0;
            for (uint64_t j = 0; j < count; j++) {
                uint32_t v = 0;
                for (int b = 0; b < w; b++, bitpos++) {
                    size_t byte = i + bitpos / 8;
                    assert_true(byte < len);
                    v |= (uint32_t)((p[byte] >> (bitpos % 8)) & 1) << b;
                }
                if (k < n)
                    out[k++] = v;
            }
            i += (size_t)((h >> 1) * (uint64_t)w);
        } else {
            uint64_t count = h >> 1;
            uint32_t v = 0;
            int bw = (w + 7) / 8;
            for (int b = 0; b < bw; b++)
                v |= (uint32_t)p[i + b] << (8 * b);
            i += (size_t)bw;
            for (uint64_t j = 0; j < count && k < n; j++)
                out[k++] = v;
        }
    }
    assert_int_equal(i, len);
    return k;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* ---- RLE ----------------------------------------------------------------- */

static void test_rle_known_bytes(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    /* parquet-format's example: 0..7 at width 3 = one group 88 c6 fa. */
    uint32_t v8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    PM_OK_OR_FAIL(pq_rle_encode(&b, 3, v8, 8));
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "\x03\x88\xc6\xfa", 4);

    /* Ten ones at width 1: one RLE run (header 10 << 1, one value byte). */
    uint32_t ones[10];
    for (int i = 0; i < 10; i++)
        ones[i] = 1;
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pq_rle_encode(&b, 1, ones, 10));
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "\x14\x01", 2);

    /* 300 copies of 0x1234 at width 13: header 600 as varint, 2 value bytes. */
    uint32_t many[300];
    for (int i = 0; i < 300; i++)
        many[i] = 0x1234;
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pq_rle_encode(&b, 13, many, 300));
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "\xd8\x04\x34\x12", 4);

    /* Three values: padded to one group. */
    uint32_t three[3] = {1, 0, 1};
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pq_rle_encode(&b, 1, three, 3));
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "\x03\x05", 2);

    /* Seven equal values are not enough for a run: one padded group. */
    uint32_t seven[7] = {2, 2, 2, 2, 2, 2, 2};
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pq_rle_encode(&b, 2, seven, 7));
    assert_int_equal(b.len, 3);
    assert_memory_equal(b.data, "\x03\xaa\x2a", 3);

    /* Width 0 (a one-entry dictionary): headers only. */
    uint32_t zeros[20] = {0};
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pq_rle_encode(&b, 0, zeros, 20));
    assert_int_equal(b.len, 1);
    assert_int_equal(b.data[0], 40);
    pm_buf_free(&b);
}

static void test_rle_run_rules(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    /* 3 distinct values then 20 copies of 5: the copies fill the group
     * (5 of them are bit-packed), the remaining 15 become an RLE run. */
    uint32_t v[23] = {1, 2, 3};
    for (int i = 3; i < 23; i++)
        v[i] = 5;
    PM_OK_OR_FAIL(pq_rle_encode(&b, 3, v, 23));
    /* group header, 3 packed bytes, RLE header (15 << 1), value */
    assert_int_equal(b.len, 6);
    assert_int_equal(b.data[0], 0x03);
    assert_int_equal(b.data[4], 30);
    assert_int_equal(b.data[5], 5);
    uint32_t out[23];
    assert_int_equal(rle_decode(b.data, b.len, 3, out, 23), 23);
    assert_memory_equal(out, v, sizeof v);

    /* 64 groups of alternating values: one run of 63 groups, then one more. */
    uint32_t alt[512];
    for (int i = 0; i < 512; i++)
        alt[i] = (uint32_t)(i & 1);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pq_rle_encode(&b, 1, alt, 512));
    assert_int_equal(b.len, 1 + 63 + 1 + 1);
    assert_int_equal(b.data[0], 63 << 1 | 1);
    assert_int_equal(b.data[64], 1 << 1 | 1);
    uint32_t out2[512];
    assert_int_equal(rle_decode(b.data, b.len, 1, out2, 512), 512);
    assert_memory_equal(out2, alt, sizeof alt);
    pm_buf_free(&b);
}

static void test_rle_all_widths(void **state)
{
    (void)state;
    enum { N = 5000 };
    static uint32_t v[N], out[N];
    pm_buf b = PM_BUF_INIT;
    for (int w = 0; w <= 32; w++) {
        uint32_t mask = w == 32 ? 0xffffffffu : (uint32_t)((1ull << w) - 1);
        for (int pattern = 0; pattern < 3; pattern++) {
            for (int i = 0; i < N; i++) {
                uint64_t r = rnd();
                if (pattern == 0)
                    v[i] = (uint32_t)r & mask;                         /* random: bit-packed */
                else if (pattern == 1)
                    v[i] = (uint32_t)((i / 37) * 2654435761u) & mask;  /* runs of 37 */
                else
                    v[i] = (r % 5 == 0) ? ((uint32_t)(r >> 8) & mask) : (mask & 3); /* mixed */
            }
            pm_buf_clear(&b);
            PM_OK_OR_FAIL(pq_rle_encode(&b, w, v, N));
            memset(out, 0xee, sizeof out);
            assert_int_equal(rle_decode(b.data, b.len, w, out, N), N);
            assert_memory_equal(out, v, sizeof v);
        }
    }
    pm_buf_free(&b);
}

static void test_rle_bulk_equals_single(void **state)
{
    (void)state;
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT, c = PM_BUF_INIT;
    for (int round = 0; round < 50; round++) {
        int n = (int)(rnd() % 3000) + 1;
        uint8_t bm[400];
        for (size_t i = 0; i < sizeof bm; i++) {
            uint64_t r = rnd();
            bm[i] = round % 3 == 0 ? (uint8_t)r : round % 3 == 1 ? (r % 10 ? 0xff : (uint8_t)r) : (r % 7 ? 0 : 0xff);
        }
        int start = (int)(rnd() % 64);
        if (start + n > (int)sizeof bm * 8)
            n = (int)sizeof bm * 8 - start;
        pq_rle_encoder ea, eb, ec;
        pm_buf_clear(&a);
        pm_buf_clear(&b);
        pm_buf_clear(&c);
        pq_rle_init(&ea, &a, 2);
        pq_rle_init(&eb, &b, 2);
        pq_rle_init(&ec, &c, 2);
        for (int i = start; i < start + n; i++)
            PM_OK_OR_FAIL(pq_rle_put(&ea, ((bm[i >> 3] >> (i & 7)) & 1) ? 3 : 1));
        PM_OK_OR_FAIL(pq_rle_put_bitmap(&eb, bm, start, n, 1, 3));
        /* put_run over the same runs */
        int i = start;
        while (i < start + n) {
            int bit = (bm[i >> 3] >> (i & 7)) & 1, j = i;
            while (j < start + n && ((bm[j >> 3] >> (j & 7)) & 1) == bit)
                j++;
            PM_OK_OR_FAIL(pq_rle_put_run(&ec, bit ? 3 : 1, (uint64_t)(j - i)));
            i = j;
        }
        PM_OK_OR_FAIL(pq_rle_finish(&ea));
        PM_OK_OR_FAIL(pq_rle_finish(&eb));
        PM_OK_OR_FAIL(pq_rle_finish(&ec));
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        assert_int_equal(a.len, c.len);
        assert_memory_equal(a.data, c.data, a.len);
    }
    pm_buf_free(&a);
    pm_buf_free(&b);
    pm_buf_free(&c);
}

/* The group fast paths of put_many and put_bitmap, entered in any encoder
 * state (mid-group, pending run, open bit-packed run) and over calls split
 * at random points, give the bytes of one pq_rle_put per value. */
static void test_rle_fast_paths_equal_single(void **state)
{
    (void)state;
    enum { N = 2500 };
    static uint32_t v[N];
    static uint8_t bm[N / 8 + 8];
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT, c = PM_BUF_INIT;
    for (int round = 0; round < 300; round++) {
        int w = round % 4 == 0 ? 1 : (int)(rnd() % 20) + 1;
        uint32_t mask = (uint32_t)((1ull << w) - 1);
        int n = (int)(rnd() % N) + 1;
        int kind = round % 5;
        for (int i = 0; i < n; i++) {
            uint64_t r = rnd();
            v[i] = kind == 0 ? (uint32_t)r & mask                                  /* random */
                 : kind == 1 ? (uint32_t)(i / (1 + (int)(r % 3) + 7)) & mask       /* runs around 8 */
                 : kind == 2 ? (r % 9 ? mask & 1 : (uint32_t)(r >> 9) & mask)      /* mostly one value */
                 : kind == 3 ? (uint32_t)((i / 8) & 1)                              /* 8-aligned blocks */
                             : (uint32_t)((r >> 5) % 3 == 0);                      /* sparse */
        }
        for (size_t k = 0; k < sizeof bm; k++) {
            uint64_t r = rnd();
            bm[k] = kind == 0 ? (uint8_t)r : kind == 1 ? (r % 4 ? 0xff : (uint8_t)r) : kind == 2 ? (r % 3 ? 0 : 0xff)
                  : kind == 3 ? (uint8_t)(r % 2 ? 0xff : 0x7f) : (uint8_t)(r & (r >> 8));
        }
        pq_rle_encoder ea, eb, ec;
        pm_buf_clear(&a);
        pm_buf_clear(&b);
        pm_buf_clear(&c);
        pq_rle_init(&ea, &a, w);
        pq_rle_init(&eb, &b, w);
        pq_rle_init(&ec, &c, 1);
        /* a random prefix puts the encoders in some state first */
        int pre = (int)(rnd() % 20);
        for (int i = 0; i < pre; i++) {
            uint32_t x = (uint32_t)(rnd() % 2);
            PM_OK_OR_FAIL(pq_rle_put(&ea, x));
            PM_OK_OR_FAIL(pq_rle_put(&eb, x));
        }
        for (int i = 0; i < n; i++)
            PM_OK_OR_FAIL(pq_rle_put(&ea, v[i]));
        for (int i = 0; i < n;) {
            int k = (int)(rnd() % 40) + 1;
            if (k > n - i)
                k = n - i;
            PM_OK_OR_FAIL(pq_rle_put_many(&eb, v + i, (size_t)k));
            i += k;
        }
        PM_OK_OR_FAIL(pq_rle_finish(&ea));
        PM_OK_OR_FAIL(pq_rle_finish(&eb));
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        /* bitmaps: single puts against put_bitmap over random splits */
        pm_buf_clear(&a);
        pq_rle_init(&ea, &a, 1);
        int start = (int)(rnd() % 16), m = n < N - 16 ? n : N - 16;
        for (int i = 0; i < pre; i++) {
            uint32_t x = (uint32_t)(rnd() % 2);
            PM_OK_OR_FAIL(pq_rle_put(&ea, x));
            PM_OK_OR_FAIL(pq_rle_put(&ec, x));
        }
        for (int i = start; i < start + m; i++)
            PM_OK_OR_FAIL(pq_rle_put(&ea, (bm[i >> 3] >> (i & 7)) & 1));
        for (int i = start; i < start + m;) {
            int k = (int)(rnd() % 100) + 1;
            if (k > start + m - i)
                k = start + m - i;
            PM_OK_OR_FAIL(pq_rle_put_bitmap(&ec, bm, i, k, 0, 1));
            i += k;
        }
        PM_OK_OR_FAIL(pq_rle_finish(&ea));
        PM_OK_OR_FAIL(pq_rle_finish(&ec));
        assert_int_equal(a.len, c.len);
        assert_memory_equal(a.data, c.data, a.len);
    }
    pm_buf_free(&a);
    pm_buf_free(&b);
    pm_buf_free(&c);
}

static void test_pack8(void **state)
{
    (void)state;
    for (int w = 1; w <= 32; w++) {
        uint32_t v[8], out[8];
        uint32_t mask = w == 32 ? 0xffffffffu : (uint32_t)((1ull << w) - 1);
        for (int i = 0; i < 8; i++)
            v[i] = (uint32_t)rnd() & mask;
        uint8_t packed[33];
        packed[w] = 0xa5;
        pq_pack8(v, w, packed);
        assert_int_equal(packed[w], 0xa5);   /* exactly w bytes written */
        uint8_t framed[34];
        framed[0] = 0x03;
        memcpy(framed + 1, packed, (size_t)w);
        assert_int_equal(rle_decode(framed, (size_t)w + 1, w, out, 8), 8);
        assert_memory_equal(out, v, sizeof v);
    }
}

/* ---- dictionary ---------------------------------------------------------- */

static void test_dict_fixed(void **state)
{
    (void)state;
    pq_dict d;
    PM_OK_OR_FAIL(pq_dict_init(&d, 8));
    enum { N = 20000 };
    uint32_t id;
    bool added;
    for (uint64_t i = 0; i < N; i++) {
        PM_OK_OR_FAIL(pq_dict_put64(&d, i * 7919u, &id, &added));
        assert_true(added);
        assert_int_equal(id, i);
    }
    assert_int_equal(d.count, N);
    assert_int_equal(d.byte_size, 8 * N);
    for (uint64_t i = 0; i < N; i += 17) {
        PM_OK_OR_FAIL(pq_dict_put64(&d, i * 7919u, &id, &added));
        assert_false(added);
        assert_int_equal(id, i);
    }
    pq_dict_truncate(&d, 100);
    assert_int_equal(d.count, 100);
    assert_int_equal(d.byte_size, 800);
    PM_OK_OR_FAIL(pq_dict_put64(&d, 99 * 7919u, &id, &added));
    assert_false(added);
    assert_int_equal(id, 99);
    PM_OK_OR_FAIL(pq_dict_put64(&d, 100 * 7919u, &id, &added));
    assert_true(added);
    assert_int_equal(id, 100);
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pq_dict_write_plain(&d, 3, &out));
    assert_int_equal(out.len, 24);
    uint64_t x;
    memcpy(&x, out.data + 16, 8);
    assert_int_equal(x, 2 * 7919u);
    pm_buf_free(&out);
    pq_dict_free(&d);

    PM_OK_OR_FAIL(pq_dict_init(&d, 4));
    PM_OK_OR_FAIL(pq_dict_put32(&d, 0xffffffffu, &id, &added));
    PM_OK_OR_FAIL(pq_dict_put32(&d, 0, &id, &added));
    assert_int_equal(id, 1);
    PM_OK_OR_FAIL(pq_dict_put32(&d, 0xffffffffu, &id, &added));
    assert_int_equal(id, 0);
    assert_false(added);
    pq_dict_free(&d);

    PM_OK_OR_FAIL(pq_dict_init(&d, 12));
    uint8_t a[12] = {1, 2, 3}, b2[12] = {1, 2, 4};
    PM_OK_OR_FAIL(pq_dict_put96(&d, a, &id, &added));
    PM_OK_OR_FAIL(pq_dict_put96(&d, b2, &id, &added));
    assert_int_equal(id, 1);
    PM_OK_OR_FAIL(pq_dict_put96(&d, a, &id, &added));
    assert_int_equal(id, 0);
    assert_int_equal(d.byte_size, 24);
    pq_dict_free(&d);
}

static void test_dict_bytes(void **state)
{
    (void)state;
    pq_dict d;
    PM_OK_OR_FAIL(pq_dict_init(&d, 0));
    char s[64];
    uint32_t id;
    bool added;
    int64_t expect_size = 0;
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(s, sizeof s, "value-%d", i * 31);
        PM_OK_OR_FAIL(pq_dict_put_bytes(&d, (const uint8_t *)s, (uint32_t)n, &id, &added));
        assert_true(added);
        assert_int_equal(id, i);
        expect_size += 4 + n;
    }
    PM_OK_OR_FAIL(pq_dict_put_bytes(&d, (const uint8_t *)"", 0, &id, &added));
    assert_true(added);
    expect_size += 4;
    assert_int_equal(d.byte_size, expect_size);
    for (int i = 0; i < 5000; i += 7) {
        int n = snprintf(s, sizeof s, "value-%d", i * 31);
        PM_OK_OR_FAIL(pq_dict_put_bytes(&d, (const uint8_t *)s, (uint32_t)n, &id, &added));
        assert_false(added);
        assert_int_equal(id, i);
    }
    PM_OK_OR_FAIL(pq_dict_put_bytes(&d, (const uint8_t *)"", 0, &id, &added));
    assert_false(added);
    assert_int_equal(id, 5000);
    uint32_t len;
    const uint8_t *p = pq_dict_entry(&d, 2, &len);
    assert_int_equal(len, 8);
    assert_memory_equal(p, "value-62", 8);
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pq_dict_write_plain(&d, 2, &out));
    assert_int_equal(out.len, 4 + 7 + 4 + 8);
    assert_memory_equal(out.data, "\x07\x00\x00\x00value-0\x08\x00\x00\x00value-31", out.len);
    pq_dict_clear(&d);
    assert_int_equal(d.count, 0);
    assert_int_equal(d.byte_size, 0);
    PM_OK_OR_FAIL(pq_dict_put_bytes(&d, (const uint8_t *)"value-0", 7, &id, &added));
    assert_true(added);
    assert_int_equal(id, 0);
    pm_buf_free(&out);
    pq_dict_free(&d);
    assert_true(pq_hash_bytes((const uint8_t *)"abc", 3) != pq_hash_bytes((const uint8_t *)"abd", 3));
}

/* ---- CRC-32 -------------------------------------------------------------- */

static void test_crc32(void **state)
{
    (void)state;
    static uint8_t buf[1 << 20];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)rnd();
    /* known answer: CRC-32 of "123456789" */
    assert_int_equal(pq_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
    for (size_t n = 0; n <= 1024; n++)
        assert_int_equal(pq_crc32(0, buf + (n % 7), n), pq_crc32_portable(0, buf + (n % 7), n));
    for (int i = 0; i < 20; i++) {
        size_t off = rnd() % 64, n = rnd() % (sizeof buf - 64);
        uint32_t seed = (uint32_t)rnd();
        assert_int_equal(pq_crc32(seed, buf + off, n), pq_crc32_portable(seed, buf + off, n));
    }
    /* continuing a CRC in pieces equals one pass */
    uint32_t a = pq_crc32(pq_crc32(0, buf, 1000), buf + 1000, 5000);
    assert_int_equal(a, pq_crc32(0, buf, 6000));
}

/* ---- column-index truncation --------------------------------------------- */

static void test_truncation(void **state)
{
    (void)state;

    uint8_t in[200], out[200];
    /* short values stay */
    assert_int_equal(pq_truncate_min((const uint8_t *)"abc", 3, 64, out), 3);
    assert_int_equal(pq_truncate_max((const uint8_t *)"abc", 3, 64, out), 3);
    /* ASCII: 64-byte prefix; the max's last byte goes up by one */
    memset(in, 'a', 100);
    in[63] = 'b';
    assert_int_equal(pq_truncate_min(in, 100, 64, out), 64);
    assert_memory_equal(out, in, 64);
    assert_int_equal(pq_truncate_max(in, 100, 64, out), 64);
    assert_memory_equal(out, in, 63);
    assert_int_equal(out[63], 'c');
    /* 2-byte characters straddling the limit: cut before the partial one */
    for (int i = 0; i < 50; i++) {
        in[2 * i] = 0xc3;
        in[2 * i + 1] = 0xa9;   /* é */
    }
    memmove(in + 1, in, 99);
    in[0] = 'x';                /* 'x' + 49 é (99 bytes): byte 63 starts an é */
    assert_int_equal(pq_truncate_min(in, 99, 64, out), 63);
    assert_int_equal(pq_truncate_max(in, 99, 64, out), 63);
    assert_int_equal(out[61], 0xc3);
    assert_int_equal(out[62], 0xaa);   /* é + 1 = ê */
    /* all U+10FFFF: nothing can go up, the whole value is kept */
    for (int i = 0; i < 25; i++)
        memcpy(in + 4 * i, "\xf4\x8f\xbf\xbf", 4);
    assert_int_equal(pq_truncate_max(in, 100, 64, out), 100);
    assert_memory_equal(out, in, 100);
    assert_int_equal(pq_truncate_min(in, 100, 64, out), 64);
    /* not UTF-8: byte-wise prefix, max incremented with carry */
    memset(in, 0xff, 100);
    in[62] = 0x10;
    assert_int_equal(pq_truncate_max(in, 100, 64, out), 64);
    assert_int_equal(out[62], 0x11);
    assert_int_equal(out[63], 0x00);
    memset(in, 0xff, 100);
    assert_int_equal(pq_truncate_max(in, 100, 64, out), 100);   /* cannot increment */
    assert_int_equal(pq_truncate_min(in, 100, 64, out), 64);
}

/* ---- statistics ---------------------------------------------------------- */

static pq_leaf leaf_of(int32_t phys, pq_stats_kind k, bool legacy, int32_t tl)
{
    pq_leaf l;
    memset(&l, 0, sizeof l);
    l.phys = phys;
    l.stats = k;
    l.legacy_stats = legacy;
    l.type_length = tl;
    return l;
}

static void test_stats_numbers(void **state)
{
    (void)state;
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_stats s;
    pq_statistics t;
    pq_stats_init(&s, PQS_I32);
    int32_t v[] = {5, -3, 17, 0};
    pq_stats_update_i32(&s, v, 4);
    s.null_count = 2;
    pq_leaf l = leaf_of(PQ_INT32, PQS_I32, true, 0);
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_true(t.has_null_count && t.null_count == 2);
    assert_true(t.has_min_value && t.has_max_value && t.has_min && t.has_max);
    assert_memory_equal(t.min_value, "\xfd\xff\xff\xff", 4);
    assert_memory_equal(t.max_value, "\x11\x00\x00\x00", 4);
    /* DECIMAL on INT32: no legacy min/max (sort order UNKNOWN) ... */
    l.legacy_stats = false;
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_true(t.has_min_value && !t.has_min && !t.has_max);
    /* ... unless min == max */
    pq_stats_reset(&s);
    int32_t one = 42;
    pq_stats_update_i32(&s, &one, 1);
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_true(t.has_min && t.has_max && t.has_min_value);
    pq_stats_free(&s);

    /* Doubles: NaN ignored, zeros normalized. */
    pq_stats_init(&s, PQS_F64);
    double d[] = {NAN, 0.0, 2.5, NAN};
    pq_stats_update_f64(&s, d, 4);
    l = leaf_of(PQ_DOUBLE, PQS_F64, true, 0);
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    double mn, mx;
    memcpy(&mn, t.min_value, 8);
    memcpy(&mx, t.max_value, 8);
    assert_true(mn == 0.0 && signbit(mn));
    assert_true(mx == 2.5);
    pq_stats_reset(&s);
    double nans[] = {NAN, NAN};
    pq_stats_update_f64(&s, nans, 2);
    assert_false(s.has_minmax);
    double negz[] = {-0.0};
    pq_stats_update_f64(&s, negz, 1);
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    memcpy(&mn, t.min_value, 8);
    memcpy(&mx, t.max_value, 8);
    assert_true(signbit(mn) && !signbit(mx));
    pq_stats_free(&s);

    /* int64 merge */
    pq_stats x, y;
    pq_stats_init(&x, PQS_I64);
    pq_stats_init(&y, PQS_I64);
    int64_t a1[] = {10, 20}, a2[] = {-5, 7};
    pq_stats_update_i64(&x, a1, 2);
    pq_stats_update_i64(&y, a2, 2);
    x.null_count = 1;
    y.null_count = 3;
    PM_OK_OR_FAIL(pq_stats_merge(&x, &y));
    assert_int_equal(x.min.i64, -5);
    assert_int_equal(x.max.i64, 20);
    assert_int_equal(x.null_count, 4);
    pq_stats_free(&x);
    pq_stats_free(&y);
    pm_arena_free(&a);
}

/* Min/max over arrays longer than one 4-wide step, with the extremes at
 * every position of a step and in the tail, against a plain scan. */
/* The vector min/max (pq_stats.c) against the scalar loops (s.portable) on
 * random blocks of every length up to 300 at odd offsets, in random pieces,
 * with NaN, infinities, signed zeros and the integer extremes mixed in:
 * the same has_minmax / has_nan and the same min/max bytes; vector_values
 * shows the vector loops ran (on CPUs with AVX2) and the scalar side never. */
static void stats_pair(pq_stats *vec, pq_stats *sca, pq_stats_kind k)
{
    pq_stats_init(vec, k);
    pq_stats_init(sca, k);
    sca->portable = true;
}

static void stats_same(const pq_stats *a, const pq_stats *b)
{
    assert_int_equal(a->has_minmax, b->has_minmax);
    assert_int_equal(a->has_nan, b->has_nan);
    if (!a->has_minmax)
        return;
    for (int w = 0; w < 2; w++) {
        uint8_t ba[16], bb[16];
        const uint8_t *pa = NULL, *pb = NULL;
        size_t la = pq_stats_value_bytes(a, w, 0, ba, &pa);
        size_t lb = pq_stats_value_bytes(b, w, 0, bb, &pb);
        assert_int_equal(la, lb);
        assert_memory_equal(pa ? pa : ba, pb ? pb : bb, la);
    }
}

static void test_stats_vector_equals_scalar(void **state)
{
    (void)state;
    enum { MAXN = 300 };
    static int32_t v32[MAXN + 1];
    static int64_t v64[MAXN + 1];
    static float f32[MAXN + 1];
    static double f64[MAXN + 1];
    uint64_t rng = 0x9e3779b97f4a7c15ull, vec_values = 0;
    for (int round = 0; round < 4 * MAXN; round++) {
        size_t n = (size_t)(pm_test_xorshift64(&rng) % (MAXN + 1));
        size_t off = (size_t)(pm_test_xorshift64(&rng) & 1);
        int special = (int)(pm_test_xorshift64(&rng) % 4);   /* 0: none; else that many in 16 */
        for (size_t i = 0; i < MAXN + 1; i++) {
            uint64_t r = pm_test_xorshift64(&rng);
            int64_t x = (int64_t)(r >> 1) - (int64_t)(UINT64_C(1) << 62);
            if (round & 1)
                x %= 1000;   /* narrow values: many ties */
            v32[i] = (int32_t)x;
            v64[i] = x;
            f32[i] = (float)x / 7.0f;
            f64[i] = (double)x / 3.0;
            if (special && (r & 15) < (uint64_t)special) {
                switch ((r >> 8) % 6) {
                case 0: v32[i] = INT32_MIN; v64[i] = INT64_MIN; f32[i] = NAN; f64[i] = NAN; break;
                case 1: v32[i] = INT32_MAX; v64[i] = INT64_MAX; f32[i] = INFINITY; f64[i] = -INFINITY; break;
                case 2: f32[i] = -0.0f; f64[i] = 0.0; break;
                case 3: f32[i] = 0.0f; f64[i] = -0.0; break;
                case 4: f32[i] = -INFINITY; f64[i] = INFINITY; break;
                default: f32[i] = NAN; f64[i] = -NAN; break;
                }
            }
        }
        if (round % 7 == 0)   /* all NaN */
            for (size_t i = 0; i < MAXN + 1; i++)
                f32[i] = f64[i] = NAN;
        pq_stats a, b;
        /* in pieces: the running values carry from one call to the next */
        for (int kind = 0; kind < 4; kind++) {
            static const pq_stats_kind kinds[4] = {PQS_I32, PQS_I64, PQS_F32, PQS_F64};
            stats_pair(&a, &b, kinds[kind]);
            size_t at = 0;
            uint64_t cut = pm_test_xorshift64(&rng);
            while (at < n) {
                size_t piece = (cut & 1) ? n - at : 1 + (size_t)(cut % (n - at));
                cut = pm_test_xorshift64(&rng);
                for (pq_stats *s = &a;; s = &b) {
                    switch (kind) {
                    case 0: pq_stats_update_i32(s, v32 + off + at, piece); break;
                    case 1: pq_stats_update_i64(s, v64 + off + at, piece); break;
                    case 2: pq_stats_update_f32(s, f32 + off + at, piece); break;
                    default: pq_stats_update_f64(s, f64 + off + at, piece); break;
                    }
                    if (s == &b)
                        break;
                }
                at += piece;
            }
            stats_same(&a, &b);
            assert_int_equal(b.vector_values, 0);
            vec_values += a.vector_values;
            pq_stats_free(&a);
            pq_stats_free(&b);
        }
    }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx2"))
        assert_true(vec_values > 100000);
#endif
}

static void test_stats_blocks(void **state)
{
    (void)state;
    enum { N = 39 };
    for (int at = 0; at < N; at++) {
        int32_t v32[N];
        int64_t v64[N];
        float f32[N];
        double f64[N];
        for (int i = 0; i < N; i++) {
            v32[i] = (int32_t)((i * 7919) % 101) - 50;
            v64[i] = (int64_t)v32[i] * 1000000007LL;
            f32[i] = (float)v32[i] / 4.0f;
            f64[i] = (double)v32[i] / 8.0;
        }
        v32[at] = INT32_MIN;
        v32[(at + 5) % N] = INT32_MAX;
        v64[at] = INT64_MAX;
        v64[(at + 3) % N] = INT64_MIN;
        f32[at] = NAN;
        f32[(at + 1) % N] = -1e30f;
        f64[at] = INFINITY;
        f64[(at + 2) % N] = NAN;
        f64[(at + 6) % N] = -1e300;
        pq_stats s;
        pq_stats_init(&s, PQS_I32);
        pq_stats_update_i32(&s, v32, N);
        assert_int_equal(s.min.i32, INT32_MIN);
        assert_int_equal(s.max.i32, INT32_MAX);
        pq_stats_init(&s, PQS_I64);
        pq_stats_update_i64(&s, v64 + 1, N - 1);   /* unaligned start, odd count */
        int64_t mn = INT64_MAX, mx = INT64_MIN;
        for (int i = 1; i < N; i++) {
            mn = v64[i] < mn ? v64[i] : mn;
            mx = v64[i] > mx ? v64[i] : mx;
        }
        assert_true(s.min.i64 == mn && s.max.i64 == mx);
        pq_stats_init(&s, PQS_F32);
        pq_stats_update_f32(&s, f32, N);
        assert_true(s.has_minmax && s.has_nan);
        float fmx = -INFINITY;
        for (int i = 0; i < N; i++)
            fmx = f32[i] > fmx ? f32[i] : fmx;   /* NaN never wins */
        assert_true(fmx > 0.0f);
        assert_true(s.min.f32 == -1e30f && s.max.f32 == fmx);
        pq_stats_init(&s, PQS_F64);
        pq_stats_update_f64(&s, f64, N);
        assert_true(s.has_minmax && s.has_nan);
        assert_true(s.min.f64 == -1e300 && s.max.f64 == INFINITY);
        /* running values are kept across calls */
        int32_t more[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        pq_stats_init(&s, PQS_I32);
        pq_stats_update_i32(&s, v32, N);
        pq_stats_update_i32(&s, more, 9);
        assert_int_equal(s.min.i32, INT32_MIN);
        assert_int_equal(s.max.i32, INT32_MAX);
    }
    /* only NaN: no min/max; only +inf (or -inf): that value is both */
    double nans[11], pinf[10], ninf[9];
    for (int i = 0; i < 11; i++)
        nans[i] = NAN;
    for (int i = 0; i < 10; i++)
        pinf[i] = INFINITY;
    for (int i = 0; i < 9; i++)
        ninf[i] = -INFINITY;
    pq_stats s;
    pq_stats_init(&s, PQS_F64);
    pq_stats_update_f64(&s, nans, 11);
    assert_false(s.has_minmax);
    assert_true(s.has_nan);
    pq_stats_init(&s, PQS_F64);
    pq_stats_update_f64(&s, pinf, 10);
    assert_true(s.has_minmax && !s.has_nan && s.min.f64 == INFINITY && s.max.f64 == INFINITY);
    pq_stats_init(&s, PQS_F64);
    pq_stats_update_f64(&s, ninf, 9);
    assert_true(s.has_minmax && s.min.f64 == -INFINITY && s.max.f64 == -INFINITY);
    float fn[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    pq_stats_init(&s, PQS_F32);
    pq_stats_update_f32(&s, fn, 6);
    assert_false(s.has_minmax);
    assert_true(s.has_nan);
}

static void test_stats_binary_and_decimal(void **state)
{
    (void)state;
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_stats s;
    pq_statistics t;
    pq_stats_init(&s, PQS_BYTES);
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, (const uint8_t *)"b", 1));
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, (const uint8_t *)"\xff", 1));   /* unsigned: largest */
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, (const uint8_t *)"a", 1));
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, (const uint8_t *)"", 0));      /* empty: smallest */
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, (const uint8_t *)"ab", 2));
    pq_leaf l = leaf_of(PQ_BYTE_ARRAY, PQS_BYTES, false, 0);
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_true(t.has_min_value && t.min_value_len == 0);
    assert_true(t.has_max_value && t.max_value_len == 1 && t.max_value[0] == 0xff);
    assert_false(t.has_min);   /* UNSIGNED order: no legacy stats */
    /* min + max >= 4096 bytes: statistics dropped entirely */
    uint8_t big[4096];
    memset(big, 0xff, sizeof big);   /* becomes the max: 0 + 4096 bytes */
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, big, sizeof big));
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_false(t.has_null_count || t.has_min_value || t.has_max_value);
    pq_stats_free(&s);

    pq_stats_init(&s, PQS_DEC128);
    pq_stats_update_d128(&s, -1);
    pq_stats_update_d128(&s, (__int128)123456789012345678LL * 1000);
    pq_stats_update_d128(&s, -300);
    l = leaf_of(PQ_FIXED_LEN_BYTE_ARRAY, PQS_DEC128, false, 10);
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_int_equal(t.min_value_len, 10);
    assert_memory_equal(t.min_value, "\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xd4", 10);
    uint8_t be[10];
    pq_decimal_to_be((__int128)123456789012345678LL * 1000, 10, be);
    assert_memory_equal(t.max_value, be, 10);
    assert_false(t.has_min);
    pq_stats_free(&s);

    /* INT96: null count, and min/max only when every value is the same */
    pq_stats_init(&s, PQS_INT96);
    s.null_count = 7;
    l = leaf_of(PQ_INT96, PQS_INT96, false, 12);
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, (const uint8_t *)"abcdefghijkl", 12));
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, (const uint8_t *)"abcdefghijkl", 12));
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_true(t.has_null_count && t.null_count == 7);
    assert_true(t.has_min_value && t.has_min && t.min_len == 12);
    PM_OK_OR_FAIL(pq_stats_update_bytes(&s, (const uint8_t *)"abcdefghijkm", 12));
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_true(t.has_null_count && t.null_count == 7);
    assert_false(t.has_min_value || t.has_min);
    pq_stats_free(&s);

    pq_stats_init(&s, PQS_BOOL);
    pq_stats_update_bool(&s, true);
    pq_stats_update_bool(&s, false);
    l = leaf_of(PQ_BOOLEAN, PQS_BOOL, true, 0);
    PM_OK_OR_FAIL(pq_stats_to_thrift(&s, &l, &a, &t));
    assert_true(t.has_min && t.min[0] == 0 && t.max[0] == 1);
    pq_stats_free(&s);
    pm_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rle_known_bytes),
        cmocka_unit_test(test_rle_run_rules),
        cmocka_unit_test(test_rle_all_widths),
        cmocka_unit_test(test_rle_bulk_equals_single),
        cmocka_unit_test(test_rle_fast_paths_equal_single), cmocka_unit_test(test_pack8),
        cmocka_unit_test(test_dict_fixed),
        cmocka_unit_test(test_dict_bytes),
        cmocka_unit_test(test_crc32),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_stats_numbers),
        cmocka_unit_test(test_stats_blocks),
        cmocka_unit_test(test_stats_vector_equals_scalar),
        cmocka_unit_test(test_stats_binary_and_decimal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
