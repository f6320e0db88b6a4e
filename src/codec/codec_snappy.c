/*
 * codec/codec_snappy.c — raw snappy blocks via snappy-c.
 *
 * A snappy block starts with its uncompressed length as a varint, so both
 * decompression modes learn the size first (snappy_uncompressed_length),
 * check it (exact size, or the limit) and only then decode into a buffer of
 * exactly that size; snappy_uncompress never writes past the length it is
 * given.  Avro's per-block CRC32 trailer is handled by the Avro reader.
 */
#include <snappy-c.h>

#include "codec/codec_impl.h"

pm_error *pm_codec_snappy_compress(const uint8_t *in, size_t n, pm_buf *out)
{
    size_t bound = snappy_max_compressed_length(n);
    PM_TRY(pm_buf_reserve(out, bound));
    size_t len = bound;
    if (snappy_compress((const char *)in, n, (char *)out->data + out->len, &len) != SNAPPY_OK)
        return pm_error_new(PM_EINTERNAL, "snappy_compress failed");
    out->len += len;
    return NULL;
}

static pm_error *snappy_size(const uint8_t *in, size_t n, size_t *size)
{
    if (snappy_uncompressed_length((const char *)in, n, size) != SNAPPY_OK)
        return pm_error_new(PM_ECORRUPT, "corrupt snappy length header");
    return NULL;
}

pm_error *pm_codec_snappy_exact(const uint8_t *in, size_t n, uint8_t *out, size_t out_len)
{
    size_t size = 0;
    PM_TRY(snappy_size(in, n, &size));
    if (size != out_len)
        return pm_error_new(PM_ECORRUPT, "snappy data has %zu bytes, expected %zu", size,
                            out_len);
    size_t len = out_len;
    if (snappy_uncompress((const char *)in, n, (char *)out, &len) != SNAPPY_OK || len != out_len)
        return pm_error_new(PM_ECORRUPT, "corrupt snappy data");
    return NULL;
}

pm_error *pm_codec_snappy_append(const uint8_t *in, size_t n, pm_buf *out, size_t limit)
{
    size_t size = 0;
    PM_TRY(snappy_size(in, n, &size));
    if (size > limit)
        return pm_error_new(PM_ECORRUPT, "snappy data of %zu bytes exceeds the limit of %zu",
                            size, limit);
    /* A snappy element of >= 2 input bytes yields at most 64 output bytes,
     * so a header claiming more than 32x the input is a lie; refuse it before
     * allocating. */
    if (size / 32 > n)
        return pm_error_new(PM_ECORRUPT, "snappy header claims %zu bytes from %zu input bytes",
                            size, n);
    PM_TRY(pm_buf_reserve(out, size ? size : 1)); /* a real pointer even for 0 bytes */
    size_t len = size;
    if (snappy_uncompress((const char *)in, n, (char *)out->data + out->len, &len) != SNAPPY_OK ||
        len != size)
        return pm_error_new(PM_ECORRUPT, "corrupt snappy data");
    out->len += size;
    return NULL;
}
