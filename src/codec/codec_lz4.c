/*
 * codec/codec_lz4.c — LZ4_RAW and Parquet's deprecated LZ4 via liblz4.
 *
 * LZ4_RAW is one raw LZ4 block (no frame, no sizes).
 *
 * LZ4 (Parquet codec 5) is Hadoop's block framing:
 *   block := [u32 BE uncompressed size U] chunk+
 *   chunk := [u32 BE compressed size C] [C bytes of raw LZ4]
 * chunks of a block are decoded until U bytes result (Hadoop splits large
 * writes into several chunks; Arrow writes one chunk per block).  Blocks
 * repeat until the input ends.  Older writers put a plain raw block in
 * codec-5 pages, so when the framing does not parse exactly (sizes out of
 * range, a chunk that does not decode to the announced size, leftover
 * bytes) the whole input is decoded as one raw LZ4 block instead, as
 * parquet-java and Arrow do.  We write the Arrow form: one block, one chunk.
 *
 * Raw blocks carry no size, so decompress_append first walks the block's
 * sequences (token, literal length, literals, offset, match length) to learn
 * the exact output size without decoding, checks it against the limit, then
 * decodes with LZ4_decompress_safe into exactly that many bytes.
 */
#include <limits.h>
#include <lz4.h>

#include "base/cursor.h"
#include "codec/codec_impl.h"

static pm_error *too_big(size_t n)
{
    return pm_error_new(PM_EINVALID, "lz4 input of %zu bytes exceeds the block limit of %d", n,
                        LZ4_MAX_INPUT_SIZE);
}

pm_error *pm_codec_lz4_compress(bool hadoop, const uint8_t *in, size_t n, pm_buf *out)
{
    if (n > LZ4_MAX_INPUT_SIZE)
        return too_big(n);
    int bound = LZ4_compressBound((int)n);
    size_t hdr = hadoop ? 8 : 0;
    PM_TRY(pm_buf_reserve(out, hdr + (size_t)bound));
    uint8_t *dst = out->data + out->len;
    int c = LZ4_compress_default((const char *)in, (char *)dst + hdr, (int)n, bound);
    if (c <= 0)
        return pm_error_new(PM_EINTERNAL, "LZ4_compress_default failed");
    if (hadoop) {
        pm_store_u32be(dst, (uint32_t)n);
        pm_store_u32be(dst + 4, (uint32_t)c);
    }
    out->len += hdr + (size_t)c;
    return NULL;
}

/* Exact decoded size of one raw LZ4 block by walking its sequences. */
static pm_error *raw_size(const uint8_t *in, size_t n, size_t *out)
{
    pm_cursor c = pm_cursor_make(in, n);
    size_t total = 0;
    for (;;) {
        uint8_t token;
        PM_TRY(pm_cursor_u8(&c, &token, "lz4 token"));
        size_t lit = token >> 4;
        if (lit == 15) {
            uint8_t b;
            do {
                PM_TRY(pm_cursor_u8(&c, &b, "lz4 literal length"));
                lit += b;
            } while (b == 255);
        }
        PM_TRY(pm_cursor_skip(&c, lit, "lz4 literals"));
        total += lit;
        if (pm_cursor_left(&c) == 0)
            break; /* last sequence: literals only */
        PM_TRY(pm_cursor_skip(&c, 2, "lz4 match offset"));
        size_t match = (size_t)(token & 15) + 4;
        if ((token & 15) == 15) {
            uint8_t b;
            do {
                PM_TRY(pm_cursor_u8(&c, &b, "lz4 match length"));
                match += b;
            } while (b == 255);
        }
        total += match;
        if (total > (size_t)INT_MAX)
            return pm_error_new(PM_ECORRUPT, "lz4 block decodes to more than %d bytes", INT_MAX);
    }
    *out = total;
    return NULL;
}

static pm_error *raw_exact(const uint8_t *in, size_t n, uint8_t *out, size_t out_len)
{
    if (n > INT_MAX || out_len > INT_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "lz4 block larger than %d bytes", INT_MAX);
    int r = LZ4_decompress_safe((const char *)in, (char *)out, (int)n, (int)out_len);
    if (r < 0)
        return pm_error_new(PM_ECORRUPT, "corrupt lz4 block (or larger than %zu bytes)", out_len);
    if ((size_t)r != out_len)
        return pm_error_new(PM_ECORRUPT, "lz4 block has %d bytes, expected %zu", r, out_len);
    return NULL;
}

/* Output window: fixed[0..cap) or appended to grow (at most cap bytes). */
typedef struct outwin {
    uint8_t *fixed;
    pm_buf *grow;
    size_t cap;
    size_t produced;
} outwin;

/*
 * Decode Hadoop framing.  *ok=false (no error) when the input does not fit
 * the framing; the window is then rewound.  Errors are allocation failures.
 */
static pm_error *hadoop_decode(const uint8_t *in, size_t n, outwin *w, bool *ok)
{
    size_t start_len = w->grow ? w->grow->len : 0;
    size_t pos = 0;
    *ok = false;
    while (pos < n) {
        if (n - pos < 8)
            goto nofit;
        size_t ulen = pm_load_u32be(in + pos);
        pos += 4;
        /* LZ4 expands at most ~255x: a larger claim cannot be real. */
        if (ulen > w->cap - w->produced || ulen / 255 > n - pos)
            goto nofit;
        if (w->grow)
            PM_TRY(pm_buf_reserve(w->grow, ulen ? ulen : 1)); /* non-NULL data */
        uint8_t *dst = w->grow ? w->grow->data + w->grow->len : w->fixed + w->produced;
        size_t done = 0;
        do {
            if (n - pos < 4)
                goto nofit;
            size_t clen = pm_load_u32be(in + pos);
            pos += 4;
            if (clen == 0 || clen > n - pos || clen > INT_MAX || ulen - done > INT_MAX)
                goto nofit;
            int r = LZ4_decompress_safe((const char *)in + pos, (char *)dst + done, (int)clen,
                                        (int)(ulen - done));
            if (r < 0)
                goto nofit;
            done += (size_t)r;
            pos += clen;
        } while (done < ulen);
        w->produced += ulen;
        if (w->grow)
            w->grow->len += ulen;
    }
    *ok = true;
    return NULL;
nofit:
    w->produced = 0;
    if (w->grow)
        w->grow->len = start_len;
    return NULL;
}

pm_error *pm_codec_lz4_exact(bool hadoop, const uint8_t *in, size_t n, uint8_t *out,
                             size_t out_len)
{
    if (hadoop) {
        outwin w = {out, NULL, out_len, 0};
        bool ok = false;
        PM_TRY(hadoop_decode(in, n, &w, &ok));
        if (ok && w.produced == out_len)
            return NULL;
    }
    return raw_exact(in, n, out, out_len);
}

pm_error *pm_codec_lz4_append(bool hadoop, const uint8_t *in, size_t n, pm_buf *out,
                              size_t limit)
{
    if (hadoop) {
        outwin w = {NULL, out, limit, 0};
        bool ok = false;
        PM_TRY(hadoop_decode(in, n, &w, &ok));
        if (ok)
            return NULL;
    }
    size_t size = 0;
    PM_TRY(raw_size(in, n, &size));
    if (size > limit)
        return pm_error_new(PM_ECORRUPT, "lz4 block of %zu bytes exceeds the limit of %zu", size,
                            limit);
    PM_TRY(pm_buf_reserve(out, size ? size : 1)); /* non-NULL data */
    PM_TRY(raw_exact(in, n, out->data + out->len, size));
    out->len += size;
    return NULL;
}
