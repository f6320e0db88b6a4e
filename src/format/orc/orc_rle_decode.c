/*
 * format/orc/orc_rle_decode.c — decoders of ORC's run-length encodings
 * (formats in orc_rle.h).
 *
 * Every decoder refills a small buffer with one whole run and serves
 * values from it, so a run never needs more than 512 values of memory.
 * Lengths, widths and patch positions come from the data and are checked
 * before use: a patch beyond the run, a patch width plus gap width above
 * 64 bits, a base wider than 8 bytes or a varint above 64 (128 for
 * decimals) bits is PM_ECORRUPT, as is a stream ending inside a run.
 */
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/mem.h"
#include "format/orc/orc_rle.h"

#define MAX_RUN 512

/* ------------------------------------------------------------------ */
/* Width table                                                         */

int orc_rle_decode_width(int code)
{
    static const int wide[8] = {26, 28, 30, 32, 40, 48, 56, 64};
    if (code < 24)
        return code + 1;
    return wide[(code - 24) & 7];
}

int orc_rle_closest_width(int n)
{
    if (n == 0)
        return 1;
    if (n <= 24)
        return n;
    static const int wide[8] = {26, 28, 30, 32, 40, 48, 56, 64};
    for (int i = 0; i < 8; i++)
        if (n <= wide[i])
            return wide[i];
    return 64;
}

int orc_rle_encode_width(int n)
{
    n = orc_rle_closest_width(n);
    if (n <= 24)
        return n - 1;
    static const int wide[8] = {26, 28, 30, 32, 40, 48, 56, 64};
    for (int i = 0; i < 8; i++)
        if (n == wide[i])
            return 24 + i;
    return 31;
}

int orc_rle_aligned_width(int n)
{
    static const int steps[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (n <= steps[i])
            return steps[i];
    return 64;
}

/* ------------------------------------------------------------------ */
/* Byte RLE                                                            */

void orc_byte_dec_init(orc_byte_dec *d, orc_in *in)
{
    memset(d, 0, sizeof *d);
    d->in = in;
}

static pm_error *byte_refill(orc_byte_dec *d)
{
    uint8_t c;
    PM_TRY(orc_in_byte(d->in, &c, "byte RLE header"));
    if (c < 0x80) {
        d->run = c + 3;
        PM_TRY(orc_in_byte(d->in, &d->run_value, "byte RLE run value"));
    } else {
        d->n = 256 - c;
        d->pos = 0;
        PM_TRY(orc_in_read(d->in, d->lit, (size_t)d->n, "byte RLE literals"));
    }
    return NULL;
}

pm_error *orc_byte_dec_next(orc_byte_dec *d, uint8_t *out, size_t n)
{
    while (n) {
        if (d->run > 0) {
            size_t k = (size_t)d->run < n ? (size_t)d->run : n;
            memset(out, d->run_value, k);
            d->run -= (int)k;
            out += k;
            n -= k;
        } else if (d->pos < d->n) {
            size_t k = (size_t)(d->n - d->pos);
            if (k > n)
                k = n;
            memcpy(out, d->lit + d->pos, k);
            d->pos += (int)k;
            out += k;
            n -= k;
        } else {
            PM_TRY(byte_refill(d));
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Booleans                                                            */

void orc_bool_dec_init(orc_bool_dec *d, orc_in *in)
{
    memset(d, 0, sizeof *d);
    orc_byte_dec_init(&d->bytes, in);
}

pm_error *orc_bool_dec_next(orc_bool_dec *d, uint8_t *out, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (d->left == 0) {
            /* Whole bytes at once when aligned. */
            if (n - i >= 8) {
                uint8_t tmp[64];
                size_t k = (n - i) / 8;
                if (k > sizeof tmp)
                    k = sizeof tmp;
                PM_TRY(orc_byte_dec_next(&d->bytes, tmp, k));
                for (size_t j = 0; j < k; j++)
                    for (int b = 7; b >= 0; b--)
                        out[i++] = (uint8_t)((tmp[j] >> b) & 1);
                continue;
            }
            PM_TRY(orc_byte_dec_next(&d->bytes, &d->cur, 1));
            d->left = 8;
        }
        d->left--;
        out[i++] = (uint8_t)((d->cur >> d->left) & 1);
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Integers                                                            */

pm_error *orc_int_dec_init(orc_int_dec *d, orc_in *in, bool is_signed, int version)
{
    memset(d, 0, sizeof *d);
    d->in = in;
    d->is_signed = is_signed;
    d->version = version;
    return pm_calloc(&d->vals, MAX_RUN, sizeof *d->vals);
}

void orc_int_dec_free(orc_int_dec *d)
{
    free(d->vals);
    d->vals = NULL;
}

static pm_error *read_uvarint(orc_in *in, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        PM_TRY(orc_in_byte(in, &b, "varint"));
        if (shift == 63 && (b & 0x7e))
            return pm_error_new(PM_ECORRUPT, "varint overflows 64 bits");
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return NULL;
        }
    }
    return pm_error_new(PM_ECORRUPT, "varint longer than 10 bytes");
}

static pm_error *read_varint(orc_in *in, bool is_signed, int64_t *out)
{
    uint64_t u;
    PM_TRY(read_uvarint(in, &u));
    *out = is_signed ? pm_zigzag_decode(u) : (int64_t)u;
    return NULL;
}

/* n big-endian bit-packed values of `width` bits (1..64), byte aligned start. */
static pm_error *read_packed(orc_in *in, uint64_t *out, size_t n, int width)
{
    if (width % 8 == 0) {
        int bytes = width / 8;
        for (size_t i = 0; i < n; i++) {
            uint8_t b[8];
            PM_TRY(orc_in_read(in, b, (size_t)bytes, "bit-packed values"));
            uint64_t v = 0;
            for (int k = 0; k < bytes; k++)
                v = v << 8 | b[k];
            out[i] = v;
        }
        return NULL;
    }
    uint8_t cur = 0;
    int left = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        int need = width;
        while (need > 0) {
            if (left == 0) {
                PM_TRY(orc_in_byte(in, &cur, "bit-packed values"));
                left = 8;
            }
            int k = need < left ? need : left;
            uint64_t bits = (uint64_t)(cur >> (left - k)) & ((1u << k) - 1);
            v = (k == 64 ? 0 : v << k) | bits;
            left -= k;
            need -= k;
        }
        out[i] = v;
    }
    return NULL;
}

static pm_error *v1_refill(orc_int_dec *d)
{
    uint8_t c;
    PM_TRY(orc_in_byte(d->in, &c, "RLE v1 header"));
    d->pos = 0;
    if (c < 0x80) {
        size_t len = (size_t)c + 3;
        uint8_t db;
        PM_TRY(orc_in_byte(d->in, &db, "RLE v1 delta"));
        int64_t delta = (int8_t)db, v;
        PM_TRY(read_varint(d->in, d->is_signed, &v));
        for (size_t i = 0; i < len; i++)
            d->vals[i] = (int64_t)((uint64_t)v + (uint64_t)delta * i);
        d->n = len;
    } else {
        size_t len = 256 - (size_t)c;
        for (size_t i = 0; i < len; i++)
            PM_TRY(read_varint(d->in, d->is_signed, &d->vals[i]));
        d->n = len;
    }
    return NULL;
}

static int64_t unzig(bool is_signed, uint64_t v)
{
    return is_signed ? pm_zigzag_decode(v) : (int64_t)v;
}

static pm_error *v2_short_repeat(orc_int_dec *d, uint8_t h)
{
    int bytes = ((h >> 3) & 7) + 1;
    size_t count = (size_t)(h & 7) + 3;
    uint8_t b[8];
    PM_TRY(orc_in_read(d->in, b, (size_t)bytes, "short repeat value"));
    uint64_t v = 0;
    for (int k = 0; k < bytes; k++)
        v = v << 8 | b[k];
    int64_t x = unzig(d->is_signed, v);
    for (size_t i = 0; i < count; i++)
        d->vals[i] = x;
    d->n = count;
    return NULL;
}

static pm_error *v2_direct(orc_int_dec *d, uint8_t h)
{
    int width = orc_rle_decode_width((h >> 1) & 0x1f);
    uint8_t b2;
    PM_TRY(orc_in_byte(d->in, &b2, "direct header"));
    size_t len = ((size_t)(h & 1) << 8 | b2) + 1;
    uint64_t *u = (uint64_t *)d->vals;
    PM_TRY(read_packed(d->in, u, len, width));
    for (size_t i = 0; i < len; i++)
        d->vals[i] = unzig(d->is_signed, u[i]);
    d->n = len;
    return NULL;
}

static pm_error *v2_patched(orc_int_dec *d, uint8_t h)
{
    int width = orc_rle_decode_width((h >> 1) & 0x1f);
    uint8_t b[3];
    PM_TRY(orc_in_read(d->in, b, 3, "patched base header"));
    size_t len = ((size_t)(h & 1) << 8 | b[0]) + 1;
    int base_bytes = ((b[1] >> 5) & 7) + 1;
    int pw = orc_rle_decode_width(b[1] & 0x1f);
    int pgw = ((b[2] >> 5) & 7) + 1;
    size_t pl = b[2] & 0x1f;
    if (pw + pgw > 64)
        return pm_error_new(PM_ECORRUPT, "patched base: patch width %d + gap width %d exceed 64 bits", pw, pgw);
    uint8_t bb[8];
    PM_TRY(orc_in_read(d->in, bb, (size_t)base_bytes, "patched base value"));
    uint64_t ub = 0;
    for (int k = 0; k < base_bytes; k++)
        ub = ub << 8 | bb[k];
    uint64_t sign = (uint64_t)1 << (base_bytes * 8 - 1);
    int64_t base = (ub & sign) ? -(int64_t)(ub & ~sign) : (int64_t)ub;
    uint64_t *u = (uint64_t *)d->vals;
    PM_TRY(read_packed(d->in, u, len, width));
    uint64_t patches[31];
    if (pl)
        PM_TRY(read_packed(d->in, patches, pl, orc_rle_closest_width(pw + pgw)));
    uint64_t pmask = pw == 64 ? UINT64_MAX : ((uint64_t)1 << pw) - 1;
    size_t at = 0;
    for (size_t k = 0; k < pl; k++) {
        uint64_t gap = pw == 64 ? 0 : patches[k] >> pw;
        uint64_t patch = patches[k] & pmask;
        at += gap;
        if (gap == 255 && patch == 0)
            continue; /* a filler entry: only moves the position */
        if (at >= len)
            return pm_error_new(PM_ECORRUPT, "patched base: patch at %zu beyond the run of %zu values", at, len);
        if (width < 64)
            u[at] |= patch << width;
    }
    for (size_t i = 0; i < len; i++)
        d->vals[i] = (int64_t)((uint64_t)base + u[i]);
    d->n = len;
    return NULL;
}

static pm_error *v2_delta(orc_int_dec *d, uint8_t h)
{
    int code = (h >> 1) & 0x1f;
    int width = code ? orc_rle_decode_width(code) : 0;
    uint8_t b2;
    PM_TRY(orc_in_byte(d->in, &b2, "delta header"));
    size_t len = ((size_t)(h & 1) << 8 | b2) + 1;
    int64_t first, delta;
    PM_TRY(read_varint(d->in, d->is_signed, &first));
    PM_TRY(read_varint(d->in, true, &delta));
    d->vals[0] = first;
    if (width == 0) {
        for (size_t i = 1; i < len; i++)
            d->vals[i] = (int64_t)((uint64_t)d->vals[i - 1] + (uint64_t)delta);
    } else {
        if (len < 2)
            return pm_error_new(PM_ECORRUPT, "delta run of one value with a delta width");
        d->vals[1] = (int64_t)((uint64_t)first + (uint64_t)delta);
        uint64_t *u = (uint64_t *)d->vals + 2;
        PM_TRY(read_packed(d->in, u, len - 2, width));
        for (size_t i = 2; i < len; i++) {
            uint64_t prev = (uint64_t)d->vals[i - 1];
            d->vals[i] = (int64_t)(delta < 0 ? prev - u[i - 2] : prev + u[i - 2]);
        }
    }
    d->n = len;
    return NULL;
}

static pm_error *v2_refill(orc_int_dec *d)
{
    uint8_t h;
    PM_TRY(orc_in_byte(d->in, &h, "RLE v2 header"));
    d->pos = 0;
    switch (h >> 6) {
    case 0: return v2_short_repeat(d, h);
    case 1: return v2_direct(d, h);
    case 2: return v2_patched(d, h);
    default: return v2_delta(d, h);
    }
}

pm_error *orc_int_dec_next(orc_int_dec *d, int64_t *out, size_t n)
{
    while (n) {
        if (d->pos == d->n) {
            PM_TRY(d->version == 1 ? v1_refill(d) : v2_refill(d));
            continue;
        }
        size_t k = d->n - d->pos;
        if (k > n)
            k = n;
        memcpy(out, d->vals + d->pos, k * sizeof *out);
        d->pos += k;
        out += k;
        n -= k;
    }
    return NULL;
}

pm_error *orc_read_varint128(orc_in *in, __int128 *out)
{
    /* fast path: a value of at most 9 bytes (63 bits) inside the chunk */
    if (in->end - in->cur >= 9) {
        uint64_t v = 0;
        for (int k = 0; k < 9; k++) {
            uint8_t b = in->cur[k];
            v |= (uint64_t)(b & 0x7f) << (7 * k);
            if (!(b & 0x80)) {
                in->cur += k + 1;
                *out = (__int128)(v >> 1) ^ -(__int128)(v & 1);
                return NULL;
            }
        }
    }
    unsigned __int128 v = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t b;
        PM_TRY(orc_in_byte(in, &b, "decimal varint"));
        if (shift >= 128 || (shift > 121 && (b & 0x7f) >> (128 - shift)))
            return pm_error_new(PM_ECORRUPT, "decimal value wider than 128 bits");
        v |= (unsigned __int128)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    *out = (__int128)(v >> 1) ^ -(__int128)(v & 1);
    return NULL;
}
