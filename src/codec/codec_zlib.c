/*
 * codec/codec_zlib.c — gzip (Parquet GZIP) and raw deflate (Avro "deflate")
 * via zlib.
 *
 * gzip: compression writes one gzip member (windowBits 15+16).  Decompression
 * auto-detects a gzip or zlib header (15+32) and accepts several
 * concatenated members (Hadoop's GzipCodec may write them): after each
 * Z_STREAM_END with input left, the inflater is reset and continues; every
 * remaining byte must belong to a valid member.
 * deflate: raw stream (windowBits -15) with no header or checksum.  Bytes
 * after the end of the stream are ignored, as Avro Java's Inflater and
 * Python's zlib.decompress do.
 *
 * Decompression is a loop of inflate() calls over windows of the output
 * (zlib counts in 32-bit units, so large inputs/outputs are fed in chunks);
 * once the output window is exhausted a one-byte probe makes sure no more
 * data follows.  Inflate and deflate states are cached in pm_codec_ctx.
 */
#include <limits.h>
#include <string.h>

#include "codec/codec_impl.h"

#define GZIP_INFLATE_BITS (15 + 32) /* auto-detect gzip / zlib header */
#define GZIP_DEFLATE_BITS (15 + 16)
#define RAW_BITS (-15)

void pm_codec_zlib_release(pm_codec_ctx *ctx)
{
    if (ctx->inflater_bits)
        inflateEnd(&ctx->inflater);
    ctx->inflater_bits = 0;
    if (ctx->deflater_bits)
        deflateEnd(&ctx->deflater);
    ctx->deflater_bits = 0;
}

static size_t chunk(size_t n) { return n > UINT_MAX ? UINT_MAX : n; }

/* ---- compression ---- */

static pm_error *get_deflater(pm_codec_ctx *ctx, z_stream *tmp, int bits, int level,
                              z_stream **out)
{
    if (ctx && ctx->deflater_bits == bits && ctx->deflater_level == level) {
        if (deflateReset(&ctx->deflater) != Z_OK)
            return pm_error_new(PM_EINTERNAL, "deflateReset failed");
        *out = &ctx->deflater;
        return NULL;
    }
    z_stream *s = tmp;
    if (ctx) {
        if (ctx->deflater_bits)
            deflateEnd(&ctx->deflater);
        ctx->deflater_bits = 0;
        s = &ctx->deflater;
    }
    memset(s, 0, sizeof *s);
    int r = deflateInit2(s, level, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY);
    if (r != Z_OK)
        return pm_error_new(r == Z_MEM_ERROR ? PM_ENOMEM : PM_EINTERNAL, "deflateInit2: %d", r);
    if (ctx) {
        ctx->deflater_bits = bits;
        ctx->deflater_level = level;
    }
    *out = s;
    return NULL;
}

pm_error *pm_codec_zlib_compress(pm_codec_ctx *ctx, bool gzip, int level, const uint8_t *in,
                                 size_t n, pm_buf *out)
{
    if (level == 0)
        level = Z_DEFAULT_COMPRESSION;
    if (level != Z_DEFAULT_COMPRESSION && (level < 1 || level > 9))
        return pm_error_new(PM_EINVALID, "%s level %d out of range [1, 9]",
                            gzip ? "gzip" : "deflate", level);
    z_stream tmp, *s = NULL;
    PM_TRY(get_deflater(ctx, &tmp, gzip ? GZIP_DEFLATE_BITS : RAW_BITS, level, &s));
    pm_error *e = NULL;
    size_t consumed = 0;
    s->next_in = (Bytef *)in;
    s->avail_in = 0;
    for (;;) {
        if (s->avail_in == 0 && consumed < n) {
            s->next_in = (Bytef *)in + consumed;
            s->avail_in = (uInt)chunk(n - consumed);
            consumed += s->avail_in;
        }
        size_t want = deflateBound(s, s->avail_in) + 64;
        if (out->cap - out->len < want)
            PM_TRY_GOTO(e, pm_buf_reserve(out, want), done);
        s->next_out = out->data + out->len;
        s->avail_out = (uInt)chunk(out->cap - out->len);
        uInt before = s->avail_out;
        int r = deflate(s, consumed == n ? Z_FINISH : Z_NO_FLUSH);
        out->len += before - s->avail_out;
        if (r == Z_STREAM_END)
            break;
        if (r != Z_OK && r != Z_BUF_ERROR) {
            e = pm_error_new(PM_EINTERNAL, "deflate: %d", r);
            break;
        }
    }
done:
    if (!ctx)
        deflateEnd(s);
    return e;
}

/* ---- decompression ---- */

static pm_error *get_inflater(pm_codec_ctx *ctx, z_stream *tmp, int bits, z_stream **out)
{
    if (ctx && ctx->inflater_bits) {
        if (inflateReset2(&ctx->inflater, bits) != Z_OK)
            return pm_error_new(PM_EINTERNAL, "inflateReset2 failed");
        ctx->inflater_bits = bits;
        *out = &ctx->inflater;
        return NULL;
    }
    z_stream *s = ctx ? &ctx->inflater : tmp;
    memset(s, 0, sizeof *s);
    int r = inflateInit2(s, bits);
    if (r != Z_OK)
        return pm_error_new(r == Z_MEM_ERROR ? PM_ENOMEM : PM_EINTERNAL, "inflateInit2: %d", r);
    if (ctx)
        ctx->inflater_bits = bits;
    *out = s;
    return NULL;
}

/* Output to fixed[0..cap) when grow is NULL, else appended to grow up to cap bytes. */
static pm_error *zlib_run(z_stream *s, bool gzip, const uint8_t *in, size_t n, uint8_t *fixed,
                          pm_buf *grow, size_t cap, size_t *produced_out)
{
    const char *what = gzip ? "gzip" : "deflate";
    size_t produced = 0;
    size_t fed = 0; /* bytes handed to zlib so far */
    uint8_t probe;
    s->next_in = (Bytef *)in;
    s->avail_in = 0;
    for (;;) {
        if (s->avail_in == 0 && fed < n) {
            s->next_in = (Bytef *)in + fed;
            s->avail_in = (uInt)chunk(n - fed);
            fed += s->avail_in;
        }
        bool probing = produced == cap;
        if (probing) {
            s->next_out = &probe;
            s->avail_out = 1;
        } else if (grow) {
            if (grow->cap == grow->len)
                PM_TRY(pm_buf_reserve(grow, pm_codec_grow_step(produced, n, cap)));
            size_t room = grow->cap - grow->len;
            if (room > cap - produced)
                room = cap - produced;
            s->next_out = grow->data + grow->len;
            s->avail_out = (uInt)chunk(room);
        } else {
            s->next_out = fixed + produced;
            s->avail_out = (uInt)chunk(cap - produced);
        }
        uInt out_before = s->avail_out;
        const Bytef *in_before = s->next_in;
        int r = inflate(s, Z_NO_FLUSH);
        size_t got = out_before - s->avail_out;
        if (probing && got)
            return pm_error_new(PM_ECORRUPT, "%s data is larger than %s %zu bytes", what,
                                grow ? "the limit of" : "the expected", cap);
        if (!probing) {
            produced += got;
            if (grow)
                grow->len += got;
        }
        size_t left = s->avail_in + (n - fed); /* input not consumed yet */
        if (r == Z_STREAM_END) {
            if (!gzip || left == 0)
                break;
            if (inflateReset(s) != Z_OK)
                return pm_error_new(PM_EINTERNAL, "inflateReset failed");
            continue;
        }
        if (r == Z_MEM_ERROR)
            return pm_error_new(PM_ENOMEM, "%s: out of memory", what);
        if (r != Z_OK && r != Z_BUF_ERROR)
            return pm_error_new(PM_ECORRUPT, "corrupt %s data: %s", what,
                                s->msg ? s->msg : "inflate failed");
        if (got == 0 && s->next_in == in_before)
            return pm_error_new(PM_ECORRUPT, left == 0 ? "truncated %s data"
                                                       : "%s decoder made no progress", what);
    }
    *produced_out = produced;
    return NULL;
}

pm_error *pm_codec_zlib_exact(pm_codec_ctx *ctx, bool gzip, const uint8_t *in, size_t n,
                              uint8_t *out, size_t out_len)
{
    z_stream tmp, *s = NULL;
    PM_TRY(get_inflater(ctx, &tmp, gzip ? GZIP_INFLATE_BITS : RAW_BITS, &s));
    size_t produced = 0;
    pm_error *e = zlib_run(s, gzip, in, n, out, NULL, out_len, &produced);
    if (!e && produced != out_len)
        e = pm_error_new(PM_ECORRUPT, "%s data has %zu bytes, expected %zu",
                         gzip ? "gzip" : "deflate", produced, out_len);
    if (!ctx)
        inflateEnd(s);
    return e;
}

pm_error *pm_codec_zlib_append(pm_codec_ctx *ctx, bool gzip, const uint8_t *in, size_t n,
                               pm_buf *out, size_t limit)
{
    z_stream tmp, *s = NULL;
    PM_TRY(get_inflater(ctx, &tmp, gzip ? GZIP_INFLATE_BITS : RAW_BITS, &s));
    size_t produced = 0;
    pm_error *e = zlib_run(s, gzip, in, n, NULL, out, limit, &produced);
    if (!ctx)
        inflateEnd(s);
    return e;
}
