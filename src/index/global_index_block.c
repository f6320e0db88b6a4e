/*
 * index/global_index_block.c — compressible blocks and Roaring64 bitmaps
 * of global index files (layouts in global_index_block.h).
 */
#include "index/global_index_block.h"

#include <limits.h>
#include <strings.h>
#include <zlib.h>

#include "base/cursor.h"
#include "codec/codec.h"
#include "index/fi_internal.h"

pm_error *pm_gi_compression_parse(const char *v, const char *key, pm_gi_compression *out)
{
    *out = PM_GI_COMPRESS_NONE;
    if (!strcasecmp(v, "none"))
        return NULL;
    if (!strcasecmp(v, "zstd")) {
        *out = PM_GI_COMPRESS_ZSTD;
        return NULL;
    }
    if (!strcasecmp(v, "lz4")) {
        *out = PM_GI_COMPRESS_LZ4;
        return NULL;
    }
    return pm_error_new(PM_EUNSUPPORTED, "'%s' = '%s' is not supported (none, zstd or lz4)", key, v);
}

const char *pm_gi_compression_name(pm_gi_compression c)
{
    switch (c) {
    case PM_GI_COMPRESS_NONE: return "none";
    case PM_GI_COMPRESS_ZSTD: return "zstd";
    case PM_GI_COMPRESS_LZ4: return "lz4";
    case PM_GI_COMPRESS_LZO: return "lzo";
    }
    return "?";
}

static uint32_t block_crc(const uint8_t *p, size_t n, uint8_t kind)
{
    uLong crc = crc32(0L, p, (uInt)n);
    return (uint32_t)crc32(crc, &kind, 1);
}

/* uvarint n | codec payload of raw, appended to z. */
static pm_error *compress_block(pm_buf *z, const uint8_t *raw, size_t n, pm_gi_compression c, int level)
{
    PM_TRY(pm_buf_append_uvarint(z, n));
    if (c == PM_GI_COMPRESS_ZSTD)
        return pm_codec_compress(NULL, PM_CODEC_ZSTD, level, raw, n, z);
    size_t hdr = z->len;
    PM_TRY(pm_buf_append_zeros(z, 8));
    PM_TRY(pm_codec_compress(NULL, PM_CODEC_LZ4_RAW, 0, raw, n, z));
    size_t clen = z->len - hdr - 8;
    if (clen > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "an lz4 index block above 2 GiB");
    pm_store_u32le(z->data + hdr, (uint32_t)clen);
    pm_store_u32le(z->data + hdr + 4, (uint32_t)n);
    return NULL;
}

pm_error *pm_gi_block_put(pm_buf *out, const uint8_t *raw, size_t n, pm_gi_compression c, int level, uint64_t *off,
                          uint32_t *size)
{
    if (n > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "a global index block above 2 GiB");
    pm_buf z = PM_BUF_INIT;
    uint8_t kind = PM_GI_COMPRESS_NONE;
    if (c != PM_GI_COMPRESS_NONE) {
        pm_error *e = compress_block(&z, raw, n, c, level);
        if (e) {
            pm_buf_free(&z);
            return e;
        }
        if (z.len < n - n / 8) {
            raw = z.data;
            n = z.len;
            kind = (uint8_t)c;
        }
    }
    *off = out->len;
    *size = (uint32_t)n;
    pm_error *e = pm_buf_append(out, raw, n);
    if (!e)
        e = pm_buf_append_byte(out, kind);
    if (!e)
        e = pm_buf_append_u32le(out, block_crc(raw, n, kind));
    pm_buf_free(&z);
    return e;
}

pm_error *pm_gi_block_get(const uint8_t *file, size_t flen, uint64_t off, uint64_t size, pm_buf *scratch,
                          const uint8_t **data, size_t *n, const char *what)
{
    if (off > flen || size > flen - off || PM_GI_BLOCK_TRAILER > flen - off - size)
        return pm_error_new(PM_ECORRUPT, "%s: block [%llu, +%llu) outside the file of %zu bytes", what,
                            (unsigned long long)off, (unsigned long long)size, flen);
    const uint8_t *b = file + off, *tr = b + size;
    if (block_crc(b, size, tr[0]) != pm_load_u32le(tr + 1))
        return pm_error_new(PM_ECORRUPT, "%s: block at %llu fails its CRC", what, (unsigned long long)off);
    if (tr[0] == PM_GI_COMPRESS_NONE) {
        *data = b;
        *n = size;
        return NULL;
    }
    if (tr[0] != PM_GI_COMPRESS_ZSTD && tr[0] != PM_GI_COMPRESS_LZ4)
        return pm_error_new(PM_EUNSUPPORTED, "%s: a block compressed with %s (id %u) is not supported", what,
                            tr[0] == PM_GI_COMPRESS_LZO ? "lzo" : "an unknown codec", tr[0]);
    pm_cursor c = pm_cursor_make(b, size);
    uint64_t ulen;
    PM_TRY(pm_cursor_uvarint(&c, &ulen, what));
    if (ulen > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "%s: block of %llu uncompressed bytes", what, (unsigned long long)ulen);
    pm_codec_id id = PM_CODEC_ZSTD;
    if (tr[0] == PM_GI_COMPRESS_LZ4) {
        uint32_t clen, olen;
        PM_TRY(pm_cursor_u32le(&c, &clen, what));
        PM_TRY(pm_cursor_u32le(&c, &olen, what));
        if (olen != ulen || clen != pm_cursor_left(&c))
            return pm_error_new(PM_ECORRUPT, "%s: lz4 block header (%u -> %u bytes) does not match the block", what,
                                clen, olen);
        id = PM_CODEC_LZ4_RAW;
    }
    PM_TRY(pm_buf_resize(scratch, (size_t)ulen));
    PM_TRY(pm_error_wrap(pm_codec_decompress(NULL, id, c.p, pm_cursor_left(&c), scratch->data, (size_t)ulen),
                         PM_ECORRUPT, "%s: block at %llu", what, (unsigned long long)off));
    *data = scratch->data;
    *n = (size_t)ulen;
    return NULL;
}

pm_error *pm_gi_roaring64_put(pm_buf *out, roaring_bitmap_t *bm)
{
    if (roaring_bitmap_is_empty(bm))
        return pm_buf_append_u64le(out, 0);
    PM_TRY(pm_buf_append_u64le(out, 1));
    PM_TRY(pm_buf_append_u32le(out, 0));
    return fi_bitmap_put(out, bm);
}

pm_error *pm_gi_roaring64_or(const uint8_t *p, size_t n, roaring_bitmap_t *out, const char *what)
{
    pm_cursor c = pm_cursor_make(p, n);
    uint64_t buckets;
    PM_TRY(pm_cursor_u64le(&c, &buckets, what));
    if (buckets > 1)
        return pm_error_new(PM_ECORRUPT, "%s: a bitmap of %llu 2^32 buckets (local row ids are below 2^32)", what,
                            (unsigned long long)buckets);
    if (buckets) {
        uint32_t high;
        PM_TRY(pm_cursor_u32le(&c, &high, what));
        if (high)
            return pm_error_new(PM_ECORRUPT, "%s: a bitmap of row ids at or above 2^32", what);
        roaring_bitmap_t *bm = NULL;
        PM_TRY(fi_bitmap_read(&c, &bm, what));
        roaring_bitmap_or_inplace(out, bm);
        roaring_bitmap_free(bm);
    }
    if (pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "%s: %zu bytes after a bitmap", what, pm_cursor_left(&c));
    return NULL;
}
