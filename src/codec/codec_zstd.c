/*
 * codec/codec_zstd.c — zstd frames via libzstd.
 *
 * Compression uses one cached ZSTD_CCtx per pm_codec_ctx (level re-set only
 * when it changes; level 0 means 1, Paimon's default) and writes a single
 * frame with the content size.
 *
 * Decompression into a buffer of known size (Parquet pages) is one call of
 * ZSTD_decompressDCtx straight into the caller's buffer: it decodes frames
 * with or without a content size (Apache Paimon Java writes them without),
 * several concatenated frames and skippable frames; the input is valid
 * only when it is consumed whole and yields exactly the expected size (a
 * destination too small means more data than announced: PM_ECORRUPT).
 * Decompression of unknown size (Avro blocks) is streaming
 * (ZSTD_decompressStream).  Steps:
 *   1. reset the cached ZSTD_DCtx (session only, keeps its buffers);
 *   2. feed the whole input, appending output to the caller's buffer;
 *   3. the input is valid only when every byte was consumed AND the last
 *      call reported a finished frame (return value 0); a frame cut short
 *      is PM_ECORRUPT;
 *   4. when the limit is reached but the frame is not finished, probe with
 *      a one-byte buffer — any further byte is PM_ECORRUPT.
 */
#include <stdlib.h>
#include <zstd_errors.h>

#include "codec/codec_impl.h"

void pm_codec_zstd_release(pm_codec_ctx *ctx)
{
    ZSTD_freeCCtx(ctx->zcctx);
    ctx->zcctx = NULL;
    ZSTD_freeDCtx(ctx->zdctx);
    ctx->zdctx = NULL;
}

static pm_error *zstd_err(const char *what, size_t r)
{
    return pm_error_new(PM_ECORRUPT, "%s: %s", what, ZSTD_getErrorName(r));
}

pm_error *pm_codec_zstd_compress(pm_codec_ctx *ctx, int level, const uint8_t *in, size_t n,
                                 pm_buf *out)
{
    if (level == 0)
        level = 1;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
        return pm_error_new(PM_EINVALID, "zstd level %d out of range [%d, %d]", level,
                            ZSTD_minCLevel(), ZSTD_maxCLevel());
    ZSTD_CCtx *cctx = ctx ? ctx->zcctx : NULL;
    bool temp = false;
    if (!cctx) {
        cctx = ZSTD_createCCtx();
        if (!cctx)
            return pm_error_new(PM_ENOMEM, "cannot create zstd compression context");
        if (ctx) {
            ctx->zcctx = cctx;
            ctx->zcctx_level = 0;
        } else {
            temp = true;
        }
    }
    pm_error *e = NULL;
    if (temp || ctx->zcctx_level != level) {
        size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
        if (ZSTD_isError(r)) {
            e = pm_error_new(PM_EINVALID, "zstd level %d: %s", level, ZSTD_getErrorName(r));
            goto done;
        }
        if (!temp)
            ctx->zcctx_level = level;
    }
    size_t bound = ZSTD_compressBound(n);
    PM_TRY_GOTO(e, pm_buf_reserve(out, bound), done);
    size_t r = ZSTD_compress2(cctx, out->data + out->len, bound, in, n);
    if (ZSTD_isError(r)) {
        ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
        e = pm_error_new(PM_EINTERNAL, "zstd compress: %s", ZSTD_getErrorName(r));
        goto done;
    }
    out->len += r;
done:
    if (temp)
        ZSTD_freeCCtx(cctx);
    return e;
}

/* The cached (reset) or a new decompression context; *temp tells the caller to free it. */
static pm_error *get_dctx(pm_codec_ctx *ctx, ZSTD_DCtx **out, bool *temp)
{
    *temp = false;
    if (ctx && ctx->zdctx) {
        ZSTD_DCtx_reset(ctx->zdctx, ZSTD_reset_session_only);
        *out = ctx->zdctx;
        return NULL;
    }
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!d)
        return pm_error_new(PM_ENOMEM, "cannot create zstd decompression context");
    if (ctx)
        ctx->zdctx = d;
    else
        *temp = true;
    *out = d;
    return NULL;
}

/*
 * Streaming driver: output is appended to `grow` up to `cap` bytes.  Once
 * the limit is reached a one-byte probe checks that nothing more comes out.
 */
static pm_error *zstd_run(ZSTD_DCtx *d, const uint8_t *in, size_t n, pm_buf *grow, size_t cap,
                          size_t *produced_out)
{
    ZSTD_inBuffer ib = {in, n, 0};
    size_t produced = 0;
    size_t start = grow->len;
    uint8_t probe;
    for (;;) {
        ZSTD_outBuffer ob;
        bool probing = produced == cap;
        if (probing) {
            ob = (ZSTD_outBuffer){&probe, 1, 0};
        } else {
            if (grow->cap == grow->len)
                PM_TRY(pm_buf_reserve(grow, pm_codec_grow_step(produced, n, cap)));
            size_t room = grow->cap - grow->len;
            if (room > cap - produced)
                room = cap - produced;
            ob = (ZSTD_outBuffer){grow->data + start + produced, room, 0};
        }
        size_t in_before = ib.pos;
        size_t r = ZSTD_decompressStream(d, &ob, &ib);
        if (ZSTD_isError(r))
            return zstd_err("corrupt zstd data", r);
        if (probing && ob.pos)
            return pm_error_new(PM_ECORRUPT, "zstd data is larger than the limit of %zu bytes", cap);
        if (!probing) {
            produced += ob.pos;
            grow->len += ob.pos;
        }
        if (r == 0 && ib.pos == ib.size)
            break;
        if (ob.pos == 0 && ib.pos == in_before)
            return pm_error_new(PM_ECORRUPT, ib.pos == ib.size ? "truncated zstd frame"
                                                               : "zstd decoder made no progress");
    }
    *produced_out = produced;
    return NULL;
}

pm_error *pm_codec_zstd_exact(pm_codec_ctx *ctx, const uint8_t *in, size_t n, uint8_t *out,
                              size_t out_len)
{
    ZSTD_DCtx *d = NULL;
    bool temp = false;
    PM_TRY(get_dctx(ctx, &d, &temp));
    pm_error *e = NULL;
    size_t r = ZSTD_decompressDCtx(d, out, out_len, in, n);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
            e = pm_error_new(PM_ECORRUPT, "zstd data is larger than the expected %zu bytes", out_len);
        else
            e = zstd_err("corrupt zstd data", r);
    } else if (r != out_len) {
        e = pm_error_new(PM_ECORRUPT, "zstd data has %zu bytes, expected %zu", r, out_len);
    }
    if (temp)
        ZSTD_freeDCtx(d);
    return e;
}

pm_error *pm_codec_zstd_append(pm_codec_ctx *ctx, const uint8_t *in, size_t n, pm_buf *out,
                               size_t limit)
{
    ZSTD_DCtx *d = NULL;
    bool temp = false;
    PM_TRY(get_dctx(ctx, &d, &temp));
    size_t produced = 0;
    pm_error *e = zstd_run(d, in, n, out, limit, &produced);
    if (temp)
        ZSTD_freeDCtx(d);
    return e;
}
