/*
 * format/orc/orc_stream.c — compression framing of ORC streams (see
 * orc_stream.h).
 */
#include "format/orc/orc_stream.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "format/orc/orc_meta.h"

#define HEADER 3
#define RAW_BUFFER ((size_t)64 << 10)
#define MAX_CHUNK (((size_t)1 << 23) - 1)

pm_error *orc_codec_init(orc_codec *c, uint32_t kind, uint64_t block_size, pm_codec_ctx *ctx)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->ctx = ctx;
    switch (kind) {
    case ORC_COMP_NONE: c->id = PM_CODEC_NONE; break;
    case ORC_COMP_ZLIB: c->id = PM_CODEC_DEFLATE; break;
    case ORC_COMP_SNAPPY: c->id = PM_CODEC_SNAPPY; break;
    case ORC_COMP_LZ4: c->id = PM_CODEC_LZ4_RAW; break;
    case ORC_COMP_ZSTD: c->id = PM_CODEC_ZSTD; break;
    case ORC_COMP_LZO:
        return pm_error_new(PM_EUNSUPPORTED, "ORC compression LZO is not supported");
    default:
        return pm_error_new(PM_EUNSUPPORTED, "unknown ORC compression kind %u", kind);
    }
    if (kind != ORC_COMP_NONE && (block_size == 0 || block_size > ORC_MAX_BLOCK_SIZE))
        return pm_error_new(block_size ? PM_EUNSUPPORTED : PM_ECORRUPT,
                            "ORC compression block size %llu is outside [1, %llu]", (unsigned long long)block_size,
                            (unsigned long long)ORC_MAX_BLOCK_SIZE);
    c->block_size = (size_t)block_size;
    return NULL;
}

/* Split off the next chunk: its bytes and whether they are original. */
static pm_error *next_chunk(const uint8_t **src, const uint8_t *end, const uint8_t **p, size_t *n, bool *orig)
{
    if ((size_t)(end - *src) < HEADER)
        return pm_error_new(PM_ECORRUPT, "truncated chunk header: %zu bytes left", (size_t)(end - *src));
    uint32_t h = (uint32_t)(*src)[0] | (uint32_t)(*src)[1] << 8 | (uint32_t)(*src)[2] << 16;
    *src += HEADER;
    *orig = h & 1;
    *n = h >> 1;
    if (*n > (size_t)(end - *src))
        return pm_error_new(PM_ECORRUPT, "chunk of %zu bytes, %zu left in the stream", *n, (size_t)(end - *src));
    *p = *src;
    *src += *n;
    return NULL;
}

static pm_error *decode_chunk(const orc_codec *c, const uint8_t *p, size_t n, bool orig, pm_buf *out)
{
    if (orig) {
        if (n > c->block_size)
            return pm_error_new(PM_ECORRUPT, "original chunk of %zu bytes exceeds the block size %zu", n,
                                c->block_size);
        return pm_buf_append(out, p, n);
    }
    size_t before = out->len;
    pm_error *e = pm_codec_decompress_append(c->ctx, c->id, p, n, out, c->block_size);
    if (e)
        return pm_error_wrap(e, PM_ECORRUPT, "%s chunk", orc_compression_name(c->kind));
    if (out->len - before > c->block_size)
        return pm_error_new(PM_ECORRUPT, "chunk decodes to %zu bytes, more than the block size %zu",
                            out->len - before, c->block_size);
    return NULL;
}

pm_error *orc_decompress_all(const orc_codec *c, const uint8_t *p, size_t n, size_t limit, pm_buf *out)
{
    if (c->kind == ORC_COMP_NONE) {
        if (n > limit)
            return pm_error_new(PM_ECORRUPT, "stream of %zu bytes exceeds the limit of %zu", n, limit);
        return pm_buf_append(out, p, n);
    }
    const uint8_t *src = p, *end = p + n;
    size_t start = out->len;
    while (src < end) {
        const uint8_t *q;
        size_t m;
        bool orig;
        PM_TRY(next_chunk(&src, end, &q, &m, &orig));
        PM_TRY(decode_chunk(c, q, m, orig, out));
        if (out->len - start > limit)
            return pm_error_new(PM_ECORRUPT, "stream decodes to more than %zu bytes", limit);
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */

void orc_in_init(orc_in *s, const orc_codec *codec, const uint8_t *p, size_t n)
{
    static const uint8_t empty[1];
    memset(s, 0, sizeof *s);
    if (!p) {
        p = empty;
        n = 0;
    }
    s->codec = codec;
    s->src = p;
    s->src_end = p + n;
    s->cur = s->end = p;
}

void orc_in_free(orc_in *s)
{
    pm_buf_free(&s->chunk);
}

pm_error *orc_in_refill(orc_in *s, bool *got)
{
    *got = false;
    s->consumed += (uint64_t)(s->end - s->cur);
    while (s->src < s->src_end) {
        if (s->codec->kind == ORC_COMP_NONE) {
            s->cur = s->src;
            s->end = s->src_end;
            s->src = s->src_end;
        } else {
            const uint8_t *q;
            size_t m;
            bool orig;
            PM_TRY(next_chunk(&s->src, s->src_end, &q, &m, &orig));
            if (orig) {
                if (m > s->codec->block_size)
                    return pm_error_new(PM_ECORRUPT, "original chunk of %zu bytes exceeds the block size %zu", m,
                                        s->codec->block_size);
                s->cur = q;
                s->end = q + m;
            } else {
                pm_buf_clear(&s->chunk);
                PM_TRY(decode_chunk(s->codec, q, m, false, &s->chunk));
                if (s->chunk.len == 0)
                    continue; /* an empty chunk */
                s->cur = s->chunk.data;
                s->end = s->chunk.data + s->chunk.len;
            }
        }
        if (s->cur < s->end) {
            *got = true;
            return NULL;
        }
    }
    s->cur = s->end = s->src_end;
    return NULL;
}

pm_error *orc_in_at_end(orc_in *s, bool *at_end)
{
    if (s->cur < s->end) {
        *at_end = false;
        return NULL;
    }
    bool got;
    PM_TRY(orc_in_refill(s, &got));
    *at_end = !got;
    return NULL;
}

pm_error *orc_in_read(orc_in *s, void *dst, size_t n, const char *what)
{
    uint8_t *d = dst;
    while (n) {
        if (s->cur == s->end) {
            bool got;
            PM_TRY(orc_in_refill(s, &got));
            if (!got)
                return pm_error_new(PM_ECORRUPT, "stream ends while reading %s (%zu bytes missing)", what, n);
        }
        size_t k = (size_t)(s->end - s->cur);
        if (k > n)
            k = n;
        memcpy(d, s->cur, k);
        d += k;
        s->cur += k;
        n -= k;
    }
    return NULL;
}

pm_error *orc_in_skip(orc_in *s, uint64_t n, const char *what)
{
    while (n) {
        if (s->cur == s->end) {
            bool got;
            PM_TRY(orc_in_refill(s, &got));
            if (!got)
                return pm_error_new(PM_ECORRUPT, "stream ends while skipping %s", what);
        }
        size_t k = (size_t)(s->end - s->cur);
        if (k > n)
            k = (size_t)n;
        s->cur += k;
        n -= k;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

pm_error *orc_reserve(void *pp, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return NULL;
    size_t c = pm_grow_cap(*cap, need);
    if (!c)
        return pm_oom();
    PM_TRY(pm_realloc_array(pp, c, size));
    *cap = c;
    return NULL;
}

pm_error *orc_positions_add(orc_positions *p, uint64_t v)
{
    PM_TRY(orc_reserve(&p->v, &p->cap, p->n + 1, sizeof *p->v));
    p->v[p->n++] = v;
    return NULL;
}

void orc_positions_free(orc_positions *p)
{
    free(p->v);
    memset(p, 0, sizeof *p);
}

void orc_out_init(orc_out *s, const orc_codec *codec)
{
    memset(s, 0, sizeof *s);
    s->codec = codec;
    s->limit = codec->block_size ? codec->block_size : RAW_BUFFER;
}

void orc_out_free(orc_out *s)
{
    pm_buf_free(&s->cur);
    pm_buf_free(&s->out);
    pm_buf_free(&s->scratch);
}

static void put_header(uint8_t *h, size_t len, bool orig)
{
    uint32_t v = (uint32_t)(len << 1) | (orig ? 1u : 0u);
    h[0] = (uint8_t)v;
    h[1] = (uint8_t)(v >> 8);
    h[2] = (uint8_t)(v >> 16);
}

/* Close the open buffer into `out`. */
static pm_error *spill(orc_out *s)
{
    if (!s->open || s->cur.len == 0)
        return NULL;
    const orc_codec *c = s->codec;
    if (c->kind == ORC_COMP_NONE) {
        PM_TRY(pm_buf_append(&s->out, s->cur.data, s->cur.len));
    } else {
        bool keep = false;
        if (c->kind != ORC_COMP_ZSTD || s->cur.len >= 10) {
            pm_buf_clear(&s->scratch);
            PM_TRY(pm_codec_compress(c->ctx, c->id, c->level, s->cur.data, s->cur.len, &s->scratch));
            keep = s->scratch.len < s->cur.len;
        }
        const uint8_t *p = keep ? s->scratch.data : s->cur.data;
        size_t n = keep ? s->scratch.len : s->cur.len;
        if (n > MAX_CHUNK)
            return pm_error_new(PM_EINVALID, "ORC chunk of %zu bytes does not fit the 23-bit header", n);
        uint8_t h[HEADER];
        put_header(h, n, !keep);
        PM_TRY(pm_buf_reserve(&s->out, HEADER + n));
        pm_buf_put(&s->out, h, HEADER);
        pm_buf_put(&s->out, p, n);
    }
    s->cur.len = 0;
    return NULL;
}

pm_error *orc_out_write(orc_out *s, const void *p, size_t n)
{
    const uint8_t *q = p;
    while (n) {
        if (!s->open) {
            PM_TRY(pm_buf_reserve(&s->cur, s->limit));
            s->cur.len = 0;
            s->open = true;
        }
        if (s->cur.len == s->limit)
            PM_TRY(spill(s));
        size_t k = s->limit - s->cur.len;
        if (k > n)
            k = n;
        memcpy(s->cur.data + s->cur.len, q, k);
        s->cur.len += k;
        s->total += k;
        q += k;
        n -= k;
    }
    return NULL;
}

pm_error *orc_out_flush(orc_out *s)
{
    PM_TRY(spill(s));
    s->open = false;
    return NULL;
}

pm_error *orc_out_position(const orc_out *s, orc_positions *pos)
{
    if (s->codec->kind == ORC_COMP_NONE)
        return orc_positions_add(pos, s->total);
    PM_TRY(orc_positions_add(pos, s->out.len));
    return orc_positions_add(pos, s->open ? s->cur.len : 0);
}

void orc_out_reset(orc_out *s)
{
    s->cur.len = 0;
    s->open = false;
    pm_buf_clear(&s->out);
    s->total = 0;
}

uint64_t orc_out_buffered(const orc_out *s)
{
    return s->out.len + (s->open ? s->limit : 0);
}
