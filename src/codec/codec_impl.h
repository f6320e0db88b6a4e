/*
 * codec/codec_impl.h — private glue between the codec dispatcher (codec.c)
 * and the per-library backends (codec_zstd.c, codec_zlib.c, codec_lz4.c,
 * codec_snappy.c).
 *
 * Every backend offers three operations with the contract of codec.h:
 *   compress   append the compressed form of `in` to `out`
 *   exact      decompress into out[0..out_len) and fail unless exactly
 *              out_len bytes result (never writes past out_len)
 *   append     decompress appending to a pm_buf, failing with PM_ECORRUPT
 *              once the output would exceed `limit`
 * The library state each backend may cache lives in pm_codec_ctx; a NULL ctx
 * makes the backend use temporary state.
 */
#ifndef PM_CODEC_CODEC_IMPL_H
#define PM_CODEC_CODEC_IMPL_H

#include <stdbool.h>
#include <zlib.h>
#include <zstd.h>

#include "codec/codec.h"

struct pm_codec_ctx {
    ZSTD_CCtx *zcctx;
    int zcctx_level;       /* level last set on zcctx */
    ZSTD_DCtx *zdctx;
    z_stream inflater;
    int inflater_bits;     /* windowBits of `inflater`, 0 = not initialized */
    z_stream deflater;
    int deflater_bits;     /* windowBits of `deflater`, 0 = not initialized */
    int deflater_level;
};

/* Release cached library state (the struct itself stays). */
void pm_codec_zstd_release(pm_codec_ctx *ctx);
void pm_codec_zlib_release(pm_codec_ctx *ctx);

pm_error *pm_codec_zstd_compress(pm_codec_ctx *ctx, int level, const uint8_t *in, size_t n,
                                 pm_buf *out);
pm_error *pm_codec_zstd_exact(pm_codec_ctx *ctx, const uint8_t *in, size_t n, uint8_t *out,
                              size_t out_len);
pm_error *pm_codec_zstd_append(pm_codec_ctx *ctx, const uint8_t *in, size_t n, pm_buf *out,
                               size_t limit);

/* gzip=true: gzip (or zlib) members, possibly concatenated; false: raw deflate. */
pm_error *pm_codec_zlib_compress(pm_codec_ctx *ctx, bool gzip, int level, const uint8_t *in,
                                 size_t n, pm_buf *out);
pm_error *pm_codec_zlib_exact(pm_codec_ctx *ctx, bool gzip, const uint8_t *in, size_t n,
                              uint8_t *out, size_t out_len);
pm_error *pm_codec_zlib_append(pm_codec_ctx *ctx, bool gzip, const uint8_t *in, size_t n,
                               pm_buf *out, size_t limit);

/* hadoop=true: Parquet's deprecated LZ4 (Hadoop framing, raw fallback);
 * false: LZ4_RAW (one raw block). */
pm_error *pm_codec_lz4_compress(bool hadoop, const uint8_t *in, size_t n, pm_buf *out);
pm_error *pm_codec_lz4_exact(bool hadoop, const uint8_t *in, size_t n, uint8_t *out,
                             size_t out_len);
pm_error *pm_codec_lz4_append(bool hadoop, const uint8_t *in, size_t n, pm_buf *out,
                              size_t limit);

pm_error *pm_codec_snappy_compress(const uint8_t *in, size_t n, pm_buf *out);
pm_error *pm_codec_snappy_exact(const uint8_t *in, size_t n, uint8_t *out, size_t out_len);
pm_error *pm_codec_snappy_append(const uint8_t *in, size_t n, pm_buf *out, size_t limit);

/* Growth step for streaming decoders: how many more bytes to reserve in
 * `out` (already holding `len`), never beyond `limit`; 0 when at the limit. */
size_t pm_codec_grow_step(size_t len, size_t in_len, size_t limit);

#endif
