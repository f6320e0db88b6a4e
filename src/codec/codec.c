/*
 * codec/codec.c — codec names, the cached-state context and dispatch to the
 * per-library backends (see codec.h for the contract, codec_impl.h for the
 * backend interface).
 *
 * Common rules enforced here so every backend sees sane arguments:
 *   - an empty input decodes to an empty output (and nothing else);
 *   - LZO and BROTLI are recognized ids that fail with PM_EUNSUPPORTED;
 *   - decompress_append's limit 0 means 1 GiB.
 */
#include "codec/codec.h"

#include <stdlib.h>
#include <strings.h>

#include "base/mem.h"
#include "codec/codec_impl.h"

#define PM_CODEC_DEFAULT_LIMIT ((size_t)1 << 30)

pm_error *pm_codec_ctx_new(pm_codec_ctx **out)
{
    *out = NULL;
    pm_codec_ctx *ctx;
    PM_TRY(pm_calloc(&ctx, 1, sizeof *ctx));
    *out = ctx;
    return NULL;
}

void pm_codec_ctx_free(pm_codec_ctx *ctx)
{
    if (!ctx)
        return;
    pm_codec_zstd_release(ctx);
    pm_codec_zlib_release(ctx);
    free(ctx);
}

static const struct {
    const char *name;
    pm_codec_id id;
} codec_names[] = {
    {"none", PM_CODEC_NONE},       {"uncompressed", PM_CODEC_NONE},
    {"snappy", PM_CODEC_SNAPPY},   {"gzip", PM_CODEC_GZIP},
    {"lzo", PM_CODEC_LZO},         {"brotli", PM_CODEC_BROTLI},
    {"lz4", PM_CODEC_LZ4},         {"zstd", PM_CODEC_ZSTD},
    {"zstandard", PM_CODEC_ZSTD},  {"lz4_raw", PM_CODEC_LZ4_RAW},
    {"deflate", PM_CODEC_DEFLATE},
};

pm_error *pm_codec_from_name(const char *name, pm_codec_id *out)
{
    if (!name)
        return pm_error_new(PM_EINVALID, "codec name is missing");
    for (size_t i = 0; i < sizeof codec_names / sizeof codec_names[0]; i++) {
        if (strcasecmp(name, codec_names[i].name) == 0) {
            if (codec_names[i].id == PM_CODEC_LZO || codec_names[i].id == PM_CODEC_BROTLI)
                return pm_error_new(PM_EUNSUPPORTED, "compression codec '%s' is not supported",
                                    name);
            *out = codec_names[i].id;
            return NULL;
        }
    }
    return pm_error_new(PM_EINVALID,
                        "unknown compression codec '%s' (expected none, snappy, gzip, lz4, "
                        "lz4_raw, zstd or deflate)",
                        name);
}

const char *pm_codec_name(pm_codec_id id)
{
    switch (id) {
    case PM_CODEC_NONE: return "none";
    case PM_CODEC_SNAPPY: return "snappy";
    case PM_CODEC_GZIP: return "gzip";
    case PM_CODEC_LZO: return "lzo";
    case PM_CODEC_BROTLI: return "brotli";
    case PM_CODEC_LZ4: return "lz4";
    case PM_CODEC_ZSTD: return "zstd";
    case PM_CODEC_LZ4_RAW: return "lz4_raw";
    case PM_CODEC_DEFLATE: return "deflate";
    }
    return "unknown";
}

static pm_error *unsupported(pm_codec_id id)
{
    if (id == PM_CODEC_LZO || id == PM_CODEC_BROTLI)
        return pm_error_new(PM_EUNSUPPORTED, "compression codec %s is not supported",
                            pm_codec_name(id));
    return pm_error_new(PM_EUNSUPPORTED, "unknown compression codec id %d", (int)id);
}

size_t pm_codec_grow_step(size_t len, size_t in_len, size_t limit)
{
    if (len >= limit)
        return 0;
    /* Start near a typical ratio, then double what we have. */
    size_t step = len ? len : (in_len < ((size_t)1 << 28) ? in_len * 4 : in_len);
    if (step < 4096)
        step = 4096;
    if (step > limit - len)
        step = limit - len;
    return step;
}

pm_error *pm_codec_compress(pm_codec_ctx *ctx, pm_codec_id id, int level, const uint8_t *in,
                            size_t n, pm_buf *out)
{
    pm_error *e;
    switch (id) {
    case PM_CODEC_NONE: e = pm_buf_append(out, in, n); break;
    case PM_CODEC_SNAPPY: e = pm_codec_snappy_compress(in, n, out); break;
    case PM_CODEC_GZIP: e = pm_codec_zlib_compress(ctx, true, level, in, n, out); break;
    case PM_CODEC_DEFLATE: e = pm_codec_zlib_compress(ctx, false, level, in, n, out); break;
    case PM_CODEC_LZ4: e = pm_codec_lz4_compress(true, in, n, out); break;
    case PM_CODEC_LZ4_RAW: e = pm_codec_lz4_compress(false, in, n, out); break;
    case PM_CODEC_ZSTD: e = pm_codec_zstd_compress(ctx, level, in, n, out); break;
    default: return unsupported(id);
    }
    return pm_error_wrap(e, 0, "%s compression", pm_codec_name(id));
}

pm_error *pm_codec_decompress(pm_codec_ctx *ctx, pm_codec_id id, const uint8_t *in, size_t n,
                              uint8_t *out, size_t out_len)
{
    pm_error *e;
    uint8_t dummy;
    if (!out && out_len == 0)
        out = &dummy; /* backends may not take NULL even for zero bytes */
    if (n == 0 && id != PM_CODEC_LZO && id != PM_CODEC_BROTLI) {
        if (out_len == 0)
            return NULL;
        return pm_error_new(PM_ECORRUPT, "%s: empty input, expected %zu bytes", pm_codec_name(id),
                            out_len);
    }
    switch (id) {
    case PM_CODEC_NONE:
        if (n != out_len)
            return pm_error_new(PM_ECORRUPT, "uncompressed data has %zu bytes, expected %zu", n,
                                out_len);
        memcpy(out, in, n);
        return NULL;
    case PM_CODEC_SNAPPY: e = pm_codec_snappy_exact(in, n, out, out_len); break;
    case PM_CODEC_GZIP: e = pm_codec_zlib_exact(ctx, true, in, n, out, out_len); break;
    case PM_CODEC_DEFLATE: e = pm_codec_zlib_exact(ctx, false, in, n, out, out_len); break;
    case PM_CODEC_LZ4: e = pm_codec_lz4_exact(true, in, n, out, out_len); break;
    case PM_CODEC_LZ4_RAW: e = pm_codec_lz4_exact(false, in, n, out, out_len); break;
    case PM_CODEC_ZSTD: e = pm_codec_zstd_exact(ctx, in, n, out, out_len); break;
    default: return unsupported(id);
    }
    return pm_error_wrap(e, 0, "%s decompression", pm_codec_name(id));
}

pm_error *pm_codec_decompress_append(pm_codec_ctx *ctx, pm_codec_id id, const uint8_t *in,
                                     size_t n, pm_buf *out, size_t limit)
{
    pm_error *e;
    if (limit == 0)
        limit = PM_CODEC_DEFAULT_LIMIT;
    if (n == 0 && id != PM_CODEC_LZO && id != PM_CODEC_BROTLI)
        return NULL;
    size_t start = out->len;
    switch (id) {
    case PM_CODEC_NONE:
        if (n > limit)
            return pm_error_new(PM_ECORRUPT, "uncompressed data of %zu bytes exceeds limit %zu",
                                n, limit);
        return pm_buf_append(out, in, n);
    case PM_CODEC_SNAPPY: e = pm_codec_snappy_append(in, n, out, limit); break;
    case PM_CODEC_GZIP: e = pm_codec_zlib_append(ctx, true, in, n, out, limit); break;
    case PM_CODEC_DEFLATE: e = pm_codec_zlib_append(ctx, false, in, n, out, limit); break;
    case PM_CODEC_LZ4: e = pm_codec_lz4_append(true, in, n, out, limit); break;
    case PM_CODEC_LZ4_RAW: e = pm_codec_lz4_append(false, in, n, out, limit); break;
    case PM_CODEC_ZSTD: e = pm_codec_zstd_append(ctx, in, n, out, limit); break;
    default: return unsupported(id);
    }
    if (e)
        out->len = start; /* leave no partial output behind */
    return pm_error_wrap(e, 0, "%s decompression", pm_codec_name(id));
}
