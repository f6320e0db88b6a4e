/*
 * format/parquet/decode_plain.c — PLAIN decoding (see pq_decode.h):
 * fixed-width little-endian values (INT32, INT64, INT96, FLOAT, DOUBLE,
 * FIXED_LEN_BYTE_ARRAY) are copied as a block; BOOLEAN is one bit per value,
 * LSB first, continuing across calls at a bit position; BYTE_ARRAY is a
 * 4-byte little-endian length before each value, decoded in one pass
 * (check the length, copy the bytes, record the offset) into room for
 * the rest of the page reserved up front.
 */
#include <string.h>

#include "format/parquet/pq_decode.h"

pm_error *pqd_plain_fixed(const uint8_t **p, const uint8_t *end, size_t w, size_t n, void *out)
{
    size_t left = (size_t)(end - *p);
    if (w && n > left / w)
        return pm_error_new(PM_ECORRUPT, "PLAIN values need %zu bytes, %zu left in page", n * w, left);
    memcpy(out, *p, n * w);
    *p += n * w;
    return NULL;
}

pm_error *pqd_plain_bool(const uint8_t *p, size_t len, uint64_t *bit, size_t n, uint8_t *out)
{
    uint64_t b = *bit;
    if (b > (uint64_t)len * 8 || n > (uint64_t)len * 8 - b)
        return pm_error_new(PM_ECORRUPT, "PLAIN booleans: %zu values need more than the %zu bytes in page", n,
                            len);
    for (size_t i = 0; i < n; i++, b++)
        out[i] = (p[b >> 3] >> (b & 7)) & 1;
    *bit = b;
    return NULL;
}

pm_error *pqd_plain_byte_array(const uint8_t **pp, const uint8_t *end, size_t n, int32_t *offsets,
                               pm_buf *data)
{
    const uint8_t *p = *pp;
    /* the values' bytes are fewer than the page bytes left: room for all of
     * them (and 32 bytes of slack, so a short value moves as one fixed-size
     * 32-byte copy when the input also has 32 bytes left after its length)
     * at once, then one pass: check each length, copy, record the offset.
     * The values' bytes never exceed the page's, so one test of the page
     * size keeps every offset within int32. */
    if ((size_t)(end - p) > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of BYTE_ARRAY data in one batch");
    PM_TRY(pm_buf_reserve(data, (size_t)(end - p) + 32));
    uint8_t *dst0 = data->data + data->len, *dst = dst0;
    offsets[0] = 0;
    /* p at or below `safe`: the length and 32 bytes after it are readable
     * (0 when the page has fewer than 36 bytes: never) */
    uintptr_t safe = (size_t)(end - p) >= 36 ? (uintptr_t)end - 36 : 0;
    int32_t *op = offsets + 1, *oend = offsets + 1 + n;
    while (op < oend) {
        /* the common case in a loop of its own (nothing else live) */
        for (; op < oend && (uintptr_t)p <= safe; op++) {
            uint32_t len;
            memcpy(&len, p, 4);
            if (len > 32)
                break;
            memcpy(dst, p + 4, 32); /* len <= 32: within the page */
            p += 4 + (size_t)len;
            dst += len;
            *op = (int32_t)(dst - dst0);
        }
        if (op == oend)
            break;
        size_t i = (size_t)(op - offsets - 1), left = (size_t)(end - p);
        uint32_t len;
        if (left < 4)
            return pm_error_new(PM_ECORRUPT, "PLAIN BYTE_ARRAY value %zu: length truncated", i);
        memcpy(&len, p, 4);
        p += 4;
        left -= 4;
        if (len > left)
            return pm_error_new(PM_ECORRUPT, "PLAIN BYTE_ARRAY value %zu: length %u exceeds the %zu bytes left", i,
                                len, left);
        memcpy(dst, p, len);
        p += len;
        dst += len;
        *op++ = (int32_t)(dst - dst0);
    }
    data->len += (size_t)(dst - dst0);
    *pp = p;
    return NULL;
}
