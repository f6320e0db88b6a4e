/*
 * tests/fuzz/fuzz_codec.c — decompressors on hostile input.
 *
 * Input layout: byte 0 picks the codec (mod 7), bytes 1-2 (LE) the expected
 * decompressed size, the rest is the compressed data.  Both decompression
 * modes run into buffers of exactly the permitted size (ASan catches any
 * write past them); when a decode succeeds, its output is compressed again
 * and must round-trip exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "codec/codec.h"

static const pm_codec_id ids[] = {PM_CODEC_NONE, PM_CODEC_SNAPPY, PM_CODEC_GZIP,
                                  PM_CODEC_DEFLATE, PM_CODEC_LZ4, PM_CODEC_LZ4_RAW,
                                  PM_CODEC_ZSTD};

static void check_round_trip(pm_codec_ctx *ctx, pm_codec_id id, const uint8_t *p, size_t n)
{
    pm_buf c = PM_BUF_INIT;
    if (pm_codec_compress(ctx, id, 0, p, n, &c))
        abort();
    uint8_t *back = malloc(n ? n : 1);
    if (pm_codec_decompress(ctx, id, c.data, c.len, back, n) || (n && memcmp(back, p, n)))
        abort();
    free(back);
    pm_buf_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    pm_codec_id id = ids[data[0] % 7];
    size_t expect = (size_t)data[1] | (size_t)data[2] << 8;
    const uint8_t *in = data + 3;
    size_t n = size - 3;
    pm_codec_ctx *ctx;
    if (pm_codec_ctx_new(&ctx))
        return 0;

    uint8_t *out = malloc(expect ? expect : 1);
    pm_error *e = pm_codec_decompress(ctx, id, in, n, out, expect);
    if (!e)
        check_round_trip(ctx, id, out, expect);
    pm_error_free(e);
    free(out);

    /* Append mode, limited to the expected size (0 would mean 1 GiB). */
    pm_buf b = PM_BUF_INIT;
    size_t limit = expect ? expect : 1;
    e = pm_codec_decompress_append(ctx, id, in, n, &b, limit);
    if (e && b.len != 0)
        abort(); /* failures leave no partial output */
    if (!e) {
        if (b.len > limit)
            abort();
        check_round_trip(ctx, id, b.data, b.len);
    }
    pm_error_free(e);
    pm_buf_free(&b);
    pm_codec_ctx_free(ctx);
    return 0;
}
