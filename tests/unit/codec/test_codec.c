/*
 * tests/unit/codec/test_codec.c — every codec: round trips on empty, tiny,
 * random and compressible inputs in both decompression modes; zstd frames
 * without content size and concatenated frames; gzip members; hand-built
 * Hadoop-framed LZ4 and the raw-block fallback; truncated and corrupt
 * inputs; output limits; names.
 */
#include <lz4.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "pm_test.h"
#include "base/buf.h"
#include "base/cursor.h"
#include "codec/codec.h"

static const pm_codec_id all_codecs[] = {PM_CODEC_NONE, PM_CODEC_SNAPPY, PM_CODEC_GZIP,
                                         PM_CODEC_DEFLATE, PM_CODEC_LZ4, PM_CODEC_LZ4_RAW,
                                         PM_CODEC_ZSTD};
#define NCODECS (sizeof all_codecs / sizeof all_codecs[0])

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint8_t *make_random(size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rng();
    return p;
}

/* Text-like data: words from a small vocabulary plus counters. */
static uint8_t *make_compressible(size_t n)
{
    static const char *words[] = {"paimon ", "table ", "snapshot ", "manifest ", "bucket ",
                                  "partition ", "12345 ", "\n"};
    uint8_t *p = malloc(n ? n : 1);
    size_t i = 0;
    while (i < n) {
        const char *w = words[rng() % 8];
        for (size_t k = 0; w[k] && i < n; k++)
            p[i++] = (uint8_t)w[k];
    }
    return p;
}

static void round_trip(pm_codec_ctx *ctx, pm_codec_id id, const uint8_t *data, size_t n)
{
    pm_buf comp = PM_BUF_INIT, dec = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_codec_compress(ctx, id, 0, data, n, &comp));
    uint8_t *out = malloc(n + 1);
    PM_OK_OR_FAIL(pm_codec_decompress(ctx, id, comp.data, comp.len, out, n));
    if (n)
        assert_memory_equal(out, data, n);
    /* Append mode after existing bytes. */
    PM_OK_OR_FAIL(pm_buf_append(&dec, "xy", 2));
    PM_OK_OR_FAIL(pm_codec_decompress_append(ctx, id, comp.data, comp.len, &dec, 0));
    assert_int_equal(dec.len, n + 2);
    assert_memory_equal(dec.data, "xy", 2);
    if (n)
        assert_memory_equal(dec.data + 2, data, n);
    /* Wrong expected sizes. */
    if (comp.len) {
        PM_EXPECT_ERR(pm_codec_decompress(ctx, id, comp.data, comp.len, out, n + 1), PM_ECORRUPT);
        if (n)
            PM_EXPECT_ERR(pm_codec_decompress(ctx, id, comp.data, comp.len, out, n - 1),
                          PM_ECORRUPT);
    }
    /* A limit one byte short fails and leaves the buffer as it was. */
    if (n > 1) {
        dec.len = 2;
        PM_EXPECT_ERR(pm_codec_decompress_append(ctx, id, comp.data, comp.len, &dec, n - 1),
                      PM_ECORRUPT);
        assert_int_equal(dec.len, 2);
        PM_OK_OR_FAIL(pm_codec_decompress_append(ctx, id, comp.data, comp.len, &dec, n));
        assert_int_equal(dec.len, n + 2);
    }
    free(out);
    pm_buf_free(&comp);
    pm_buf_free(&dec);
}

static void test_round_trips(void **state)
{
    (void)state;
    const size_t mib = 1 << 20;
    uint8_t one = 0x5a;
    uint8_t *rnd = make_random(mib);
    uint8_t *txt = make_compressible(mib);
    pm_codec_ctx *ctx;
    PM_OK_OR_FAIL(pm_codec_ctx_new(&ctx));
    for (size_t i = 0; i < NCODECS; i++) {
        for (int with_ctx = 0; with_ctx < 2; with_ctx++) {
            pm_codec_ctx *c = with_ctx ? ctx : NULL;
            round_trip(c, all_codecs[i], (const uint8_t *)"", 0);
            round_trip(c, all_codecs[i], &one, 1);
            round_trip(c, all_codecs[i], rnd, mib);
            round_trip(c, all_codecs[i], txt, mib);
            round_trip(c, all_codecs[i], txt, 1000);
        }
    }
    /* Compressible data really shrinks. */
    for (size_t i = 1; i < NCODECS; i++) {
        pm_buf comp = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_codec_compress(ctx, all_codecs[i], 0, txt, mib, &comp));
        assert_true(comp.len < mib / 2);
        pm_buf_free(&comp);
    }
    pm_codec_ctx_free(ctx);
    free(rnd);
    free(txt);
}

static void test_levels(void **state)
{
    (void)state;
    uint8_t *txt = make_compressible(200000);
    pm_codec_ctx *ctx;
    PM_OK_OR_FAIL(pm_codec_ctx_new(&ctx));
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_codec_compress(ctx, PM_CODEC_ZSTD, 1, txt, 200000, &a));
    PM_OK_OR_FAIL(pm_codec_compress(ctx, PM_CODEC_ZSTD, 19, txt, 200000, &b));
    assert_true(b.len < a.len); /* the cached context picked up the new level */
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_codec_compress(ctx, PM_CODEC_ZSTD, 0, txt, 200000, &b));
    assert_int_equal(a.len, b.len); /* 0 = level 1 */
    PM_EXPECT_ERR(pm_codec_compress(ctx, PM_CODEC_ZSTD, 1000, txt, 10, &b), PM_EINVALID);
    PM_EXPECT_ERR(pm_codec_compress(ctx, PM_CODEC_GZIP, 10, txt, 10, &b), PM_EINVALID);
    pm_buf_clear(&a);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_codec_compress(ctx, PM_CODEC_DEFLATE, 1, txt, 200000, &a));
    PM_OK_OR_FAIL(pm_codec_compress(ctx, PM_CODEC_DEFLATE, 9, txt, 200000, &b));
    assert_true(b.len < a.len);
    pm_buf_free(&a);
    pm_buf_free(&b);
    pm_codec_ctx_free(ctx);
    free(txt);
}

/* A zstd frame written with the streaming API carries no content size. */
static void zstd_stream_frame(const uint8_t *data, size_t n, pm_buf *out)
{
    ZSTD_CStream *cs = ZSTD_createCStream();
    ZSTD_initCStream(cs, 3);
    size_t cap = ZSTD_compressBound(n) + 64;
    PM_OK_OR_FAIL(pm_buf_reserve(out, cap));
    ZSTD_inBuffer ib = {data, n, 0};
    ZSTD_outBuffer ob = {out->data + out->len, cap, 0};
    while (ib.pos < ib.size)
        assert_false(ZSTD_isError(ZSTD_compressStream(cs, &ob, &ib)));
    size_t r;
    do {
        r = ZSTD_endStream(cs, &ob);
        assert_false(ZSTD_isError(r));
    } while (r);
    out->len += ob.pos;
    ZSTD_freeCStream(cs);
}

static void test_zstd_streaming_and_frames(void **state)
{
    (void)state;
    size_t n = 300000;
    uint8_t *txt = make_compressible(n);
    pm_buf f = PM_BUF_INIT;
    zstd_stream_frame(txt, n, &f);
    assert_true(ZSTD_getFrameContentSize(f.data, f.len) == ZSTD_CONTENTSIZE_UNKNOWN);
    uint8_t *out = malloc(2 * n);
    pm_codec_ctx *ctx;
    PM_OK_OR_FAIL(pm_codec_ctx_new(&ctx));
    PM_OK_OR_FAIL(pm_codec_decompress(ctx, PM_CODEC_ZSTD, f.data, f.len, out, n));
    assert_memory_equal(out, txt, n);
    pm_buf d = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_codec_decompress_append(ctx, PM_CODEC_ZSTD, f.data, f.len, &d, 0));
    assert_int_equal(d.len, n);
    assert_memory_equal(d.data, txt, n);

    /* Two frames back to back (one streamed, one with content size). */
    size_t first = f.len;
    PM_OK_OR_FAIL(pm_codec_compress(ctx, PM_CODEC_ZSTD, 0, txt, n / 2, &f));
    PM_OK_OR_FAIL(pm_codec_decompress(ctx, PM_CODEC_ZSTD, f.data, f.len, out, n + n / 2));
    assert_memory_equal(out, txt, n);
    assert_memory_equal(out + n, txt, n / 2);
    pm_buf_clear(&d);
    PM_OK_OR_FAIL(pm_codec_decompress_append(ctx, PM_CODEC_ZSTD, f.data, f.len, &d, 0));
    assert_int_equal(d.len, n + n / 2);
    /* Expecting only the first frame's size: the second frame is too much. */
    PM_EXPECT_ERR(pm_codec_decompress(ctx, PM_CODEC_ZSTD, f.data, f.len, out, n), PM_ECORRUPT);
    /* Second frame cut short. */
    PM_EXPECT_ERR(pm_codec_decompress(ctx, PM_CODEC_ZSTD, f.data, f.len - 3, out, n + n / 2),
                  PM_ECORRUPT);
    pm_buf_clear(&d);
    PM_EXPECT_ERR(pm_codec_decompress_append(ctx, PM_CODEC_ZSTD, f.data, first + 5, &d, 0),
                  PM_ECORRUPT);
    /* Garbage after the last frame. */
    PM_OK_OR_FAIL(pm_buf_append(&f, "junk", 4));
    PM_EXPECT_ERR(pm_codec_decompress(ctx, PM_CODEC_ZSTD, f.data, f.len, out, n + n / 2),
                  PM_ECORRUPT);
    /* Fewer bytes than expected. */
    PM_EXPECT_ERR(pm_codec_decompress(ctx, PM_CODEC_ZSTD, f.data, first, out, n + 1), PM_ECORRUPT);
    /* A skippable frame between two frames is skipped in both modes. */
    pm_buf sk = PM_BUF_INIT;
    static const uint8_t skip[12] = {0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 'p', 'a', 'd', '!'};
    PM_OK_OR_FAIL(pm_buf_append(&sk, f.data, first));
    PM_OK_OR_FAIL(pm_buf_append(&sk, skip, sizeof skip));
    PM_OK_OR_FAIL(pm_buf_append(&sk, f.data + first, f.len - 4 - first));
    PM_OK_OR_FAIL(pm_codec_decompress(ctx, PM_CODEC_ZSTD, sk.data, sk.len, out, n + n / 2));
    assert_memory_equal(out, txt, n);
    assert_memory_equal(out + n, txt, n / 2);
    pm_buf_clear(&d);
    PM_OK_OR_FAIL(pm_codec_decompress_append(ctx, PM_CODEC_ZSTD, sk.data, sk.len, &d, 0));
    assert_int_equal(d.len, n + n / 2);
    pm_buf_free(&sk);
    /* The context is still usable after errors. */
    PM_OK_OR_FAIL(pm_codec_decompress(ctx, PM_CODEC_ZSTD, f.data, first, out, n));
    assert_memory_equal(out, txt, n);
    pm_codec_ctx_free(ctx);
    pm_buf_free(&f);
    pm_buf_free(&d);
    free(out);
    free(txt);
}

static void test_gzip_members(void **state)
{
    (void)state;
    pm_buf g = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_codec_compress(NULL, PM_CODEC_GZIP, 0, (const uint8_t *)"hello ", 6, &g));
    PM_OK_OR_FAIL(pm_codec_compress(NULL, PM_CODEC_GZIP, 0, (const uint8_t *)"world", 5, &g));
    assert_int_equal(g.data[0], 0x1f);
    assert_int_equal(g.data[1], 0x8b);
    uint8_t out[11];
    PM_OK_OR_FAIL(pm_codec_decompress(NULL, PM_CODEC_GZIP, g.data, g.len, out, 11));
    assert_memory_equal(out, "hello world", 11);
    pm_buf d = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_codec_decompress_append(NULL, PM_CODEC_GZIP, g.data, g.len, &d, 0));
    assert_int_equal(d.len, 11);
    assert_memory_equal(d.data, "hello world", 11);
    /* Trailing garbage after the last member is rejected. */
    PM_OK_OR_FAIL(pm_buf_append(&g, "\x01\x02", 2));
    PM_EXPECT_ERR(pm_codec_decompress(NULL, PM_CODEC_GZIP, g.data, g.len, out, 11), PM_ECORRUPT);
    /* A zlib-wrapped stream is accepted too (header auto-detection). */
    uLongf zl = 64;
    uint8_t z[64];
    assert_int_equal(compress(z, &zl, (const Bytef *)"abcabcabc", 9), Z_OK);
    PM_OK_OR_FAIL(pm_codec_decompress(NULL, PM_CODEC_GZIP, z, zl, out, 9));
    assert_memory_equal(out, "abcabcabc", 9);
    pm_buf_free(&g);
    pm_buf_free(&d);
}

/* Hadoop framing by hand: [u32 BE ulen] ([u32 BE clen][raw lz4])+ per block. */
static void put_chunk(pm_buf *b, const uint8_t *data, size_t n)
{
    char tmp[LZ4_COMPRESSBOUND(70000)];
    int c = LZ4_compress_default((const char *)data, tmp, (int)n, (int)sizeof tmp);
    assert_true(c > 0);
    PM_OK_OR_FAIL(pm_buf_append_u32be(b, (uint32_t)c));
    PM_OK_OR_FAIL(pm_buf_append(b, tmp, (size_t)c));
}

static void test_lz4_hadoop(void **state)
{
    (void)state;
    size_t n = 60000;
    uint8_t *txt = make_compressible(n);
    uint8_t *out = malloc(2 * n);
    pm_buf h = PM_BUF_INIT, d = PM_BUF_INIT;
    /* Block 1: two chunks (Hadoop splits large writes); block 2: one chunk. */
    PM_OK_OR_FAIL(pm_buf_append_u32be(&h, (uint32_t)n));
    put_chunk(&h, txt, n / 3);
    put_chunk(&h, txt + n / 3, n - n / 3);
    PM_OK_OR_FAIL(pm_buf_append_u32be(&h, 1000));
    put_chunk(&h, txt, 1000);
    PM_OK_OR_FAIL(pm_codec_decompress(NULL, PM_CODEC_LZ4, h.data, h.len, out, n + 1000));
    assert_memory_equal(out, txt, n);
    assert_memory_equal(out + n, txt, 1000);
    PM_OK_OR_FAIL(pm_codec_decompress_append(NULL, PM_CODEC_LZ4, h.data, h.len, &d, 0));
    assert_int_equal(d.len, n + 1000);
    assert_memory_equal(d.data, txt, n);
    /* Our own LZ4 output is the same framing: one block, one chunk. */
    pm_buf c = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_codec_compress(NULL, PM_CODEC_LZ4, 0, txt, 1000, &c));
    assert_int_equal(pm_load_u32be(c.data), 1000);
    assert_int_equal(pm_load_u32be(c.data + 4), c.len - 8);
    /* Truncated framing that is not a raw block either. */
    PM_EXPECT_ERR(pm_codec_decompress(NULL, PM_CODEC_LZ4, h.data, h.len - 10, out, n + 1000),
                  PM_ECORRUPT);
    pm_buf_free(&h);
    pm_buf_free(&d);
    pm_buf_free(&c);
    free(out);
    free(txt);
}

static void test_lz4_raw_fallback(void **state)
{
    (void)state;
    size_t n = 50000;
    uint8_t *txt = make_compressible(n);
    uint8_t *out = malloc(n);
    pm_buf raw = PM_BUF_INIT, d = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_codec_compress(NULL, PM_CODEC_LZ4_RAW, 0, txt, n, &raw));
    /* A raw block under the deprecated LZ4 id decodes via the fallback. */
    PM_OK_OR_FAIL(pm_codec_decompress(NULL, PM_CODEC_LZ4, raw.data, raw.len, out, n));
    assert_memory_equal(out, txt, n);
    PM_OK_OR_FAIL(pm_codec_decompress_append(NULL, PM_CODEC_LZ4, raw.data, raw.len, &d, 0));
    assert_int_equal(d.len, n);
    assert_memory_equal(d.data, txt, n);
    /* Raw block sizes are found without a header: append with exact limit. */
    pm_buf_clear(&d);
    PM_OK_OR_FAIL(pm_codec_decompress_append(NULL, PM_CODEC_LZ4_RAW, raw.data, raw.len, &d, n));
    assert_int_equal(d.len, n);
    pm_buf_clear(&d);
    PM_EXPECT_ERR(pm_codec_decompress_append(NULL, PM_CODEC_LZ4_RAW, raw.data, raw.len, &d, n - 1),
                  PM_ECORRUPT);
    pm_buf_free(&raw);
    pm_buf_free(&d);
    free(out);
    free(txt);
}

static void test_truncated_and_corrupt(void **state)
{
    (void)state;
    size_t n = 20000;
    uint8_t *txt = make_compressible(n);
    uint8_t *out = malloc(n);
    pm_codec_ctx *ctx;
    PM_OK_OR_FAIL(pm_codec_ctx_new(&ctx));
    for (size_t i = 0; i < NCODECS; i++) {
        pm_codec_id id = all_codecs[i];
        pm_buf c = PM_BUF_INIT, d = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_codec_compress(ctx, id, 0, txt, n, &c));
        size_t cuts[] = {1, c.len / 2, c.len - 1};
        for (size_t k = 0; k < 3; k++) {
            PM_EXPECT_ERR(pm_codec_decompress(ctx, id, c.data, cuts[k], out, n), PM_ECORRUPT);
            if (id != PM_CODEC_NONE) { /* NONE has no size to miss in append mode */
                pm_buf_clear(&d);
                pm_error *e = pm_codec_decompress_append(ctx, id, c.data, cuts[k], &d, 0);
                /* A cut raw block may still parse as shorter valid data; never longer. */
                if (e) {
                    assert_int_equal(pm_error_code(e), PM_ECORRUPT);
                    assert_int_equal(d.len, 0);
                    pm_error_free(e);
                } else {
                    assert_true(d.len < n);
                }
            }
        }
        /* Random garbage of the same length never yields the original. */
        uint8_t *junk = make_random(c.len);
        pm_error *e = pm_codec_decompress(ctx, id, junk, c.len, out, n);
        if (e) {
            assert_int_equal(pm_error_root_code(e), PM_ECORRUPT);
            pm_error_free(e);
        }
        free(junk);
        pm_buf_free(&c);
        pm_buf_free(&d);
    }
    /* Snappy header claiming far more than the input could hold. */
    const uint8_t liar[] = {0xff, 0xff, 0xff, 0x7f, 0x00};
    pm_buf d = PM_BUF_INIT;
    PM_EXPECT_ERR(pm_codec_decompress_append(ctx, PM_CODEC_SNAPPY, liar, sizeof liar, &d, 0),
                  PM_ECORRUPT);
    pm_buf_free(&d);
    pm_codec_ctx_free(ctx);
    free(out);
    free(txt);
}

static void test_names_and_unsupported(void **state)
{
    (void)state;
    pm_codec_id id;
    PM_OK_OR_FAIL(pm_codec_from_name("ZSTD", &id));
    assert_int_equal(id, PM_CODEC_ZSTD);
    PM_OK_OR_FAIL(pm_codec_from_name("zstandard", &id));
    assert_int_equal(id, PM_CODEC_ZSTD);
    PM_OK_OR_FAIL(pm_codec_from_name("Uncompressed", &id));
    assert_int_equal(id, PM_CODEC_NONE);
    PM_OK_OR_FAIL(pm_codec_from_name("lz4_raw", &id));
    assert_int_equal(id, PM_CODEC_LZ4_RAW);
    PM_OK_OR_FAIL(pm_codec_from_name("deflate", &id));
    assert_int_equal(id, PM_CODEC_DEFLATE);
    PM_EXPECT_ERR(pm_codec_from_name("lzo", &id), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(pm_codec_from_name("brotli", &id), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(pm_codec_from_name("bzip2", &id), PM_EINVALID);
    assert_string_equal(pm_codec_name(PM_CODEC_LZ4_RAW), "lz4_raw");
    uint8_t b[4] = {1, 2, 3, 4}, o[4];
    pm_buf buf = PM_BUF_INIT;
    PM_EXPECT_ERR(pm_codec_compress(NULL, PM_CODEC_LZO, 0, b, 4, &buf), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(pm_codec_decompress(NULL, PM_CODEC_BROTLI, b, 4, o, 4), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(pm_codec_decompress_append(NULL, PM_CODEC_LZO, b, 4, &buf, 0), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(pm_codec_decompress(NULL, (pm_codec_id)42, b, 4, o, 4), PM_EUNSUPPORTED);
    pm_buf_free(&buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_zstd_streaming_and_frames),
        cmocka_unit_test(test_gzip_members),
        cmocka_unit_test(test_lz4_hadoop),
        cmocka_unit_test(test_lz4_raw_fallback),
        cmocka_unit_test(test_truncated_and_corrupt),
        cmocka_unit_test(test_names_and_unsupported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
