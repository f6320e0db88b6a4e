/*
 * codec/codec.h — block compression used by Parquet pages and Avro blocks.
 *
 * Codec ids follow Parquet's CompressionCodec numbering so page headers map
 * directly; PM_CODEC_DEFLATE (raw deflate, Avro "deflate") is ours.
 *   NONE      copy
 *   SNAPPY    raw snappy block (Parquet); Avro adds its own CRC trailer
 *   GZIP      gzip member(s) (Parquet GZIP)
 *   LZ4       Parquet's deprecated LZ4: Hadoop framing (BE uncompressed len,
 *             BE compressed len, raw block, repeated), falling back to raw
 *             LZ4 block when the framing does not fit, as parquet-mr does
 *   ZSTD      zstd frame(s); decoding is streaming because Java writes frames
 *             without a content size
 *   LZ4_RAW   one raw LZ4 block
 *   DEFLATE   raw deflate stream (no zlib header)
 * A pm_codec_ctx caches compressor/decompressor state between calls; use one
 * per thread.  Decompressors never write past the buffer they are given and
 * return PM_ECORRUPT when the input is malformed or the size is not exact.
 */
#ifndef PM_CODEC_CODEC_H
#define PM_CODEC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/error.h"

typedef enum pm_codec_id {
    PM_CODEC_NONE = 0,
    PM_CODEC_SNAPPY = 1,
    PM_CODEC_GZIP = 2,
    PM_CODEC_LZO = 3,     /* recognized, unsupported */
    PM_CODEC_BROTLI = 4,  /* recognized, unsupported */
    PM_CODEC_LZ4 = 5,
    PM_CODEC_ZSTD = 6,
    PM_CODEC_LZ4_RAW = 7,
    PM_CODEC_DEFLATE = 100
} pm_codec_id;

typedef struct pm_codec_ctx pm_codec_ctx;

pm_error *pm_codec_ctx_new(pm_codec_ctx **out);
void pm_codec_ctx_free(pm_codec_ctx *ctx);

/* Parse a codec name as used in options: none/uncompressed, snappy, gzip,
 * lz4, lz4_raw, zstd/zstandard, deflate (case-insensitive). */
pm_error *pm_codec_from_name(const char *name, pm_codec_id *out);
const char *pm_codec_name(pm_codec_id id);

/* Compress `n` bytes and append to `out`.  level: codec-specific, 0 = default
 * (zstd level 1 matches Paimon's default). ctx may be NULL (slower). */
pm_error *pm_codec_compress(pm_codec_ctx *ctx, pm_codec_id id, int level,
                            const uint8_t *in, size_t n, pm_buf *out);
/* Decompress into a buffer of exactly `out_len` bytes (Parquet knows the
 * uncompressed size); PM_ECORRUPT unless exactly out_len bytes result. */
pm_error *pm_codec_decompress(pm_codec_ctx *ctx, pm_codec_id id,
                              const uint8_t *in, size_t n, uint8_t *out, size_t out_len);
/* Decompress when the size is unknown (Avro blocks), appending to `out`;
 * `limit` caps the output size (0 = 1 GiB) so a hostile input cannot
 * exhaust memory. */
pm_error *pm_codec_decompress_append(pm_codec_ctx *ctx, pm_codec_id id,
                                     const uint8_t *in, size_t n, pm_buf *out, size_t limit);

#endif
