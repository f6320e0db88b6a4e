/*
 * format/parquet/decode_delta.c — DELTA_BINARY_PACKED decoding (the value
 * stream of INT32/INT64 columns and the length streams of
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY; layout in pq_decode.h).
 *
 * Steps: the header gives block size (a multiple of 128), miniblocks per
 * block (values per miniblock a multiple of 32), the total value count and
 * the first value.  Each block starts with its minimum delta and one bit
 * width per miniblock; a miniblock holds per_mini deltas minus the minimum,
 * bit-packed LSB-first.  Values are rebuilt as previous + min_delta + packed
 * delta in wrapping 64-bit arithmetic (INT32 streams wrap at 32 bits).
 * Only the miniblocks that hold values are present in the last block; the
 * widths of the missing ones may be anything and are not checked.  Decoding
 * is incremental: a miniblock is unpacked 8 values at a time, on demand.
 */
#include <string.h>

#include "format/parquet/pq_decode.h"

static pm_error *uvarint(pqd_delta *d, uint64_t *out, const char *what)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (d->p >= d->end)
            return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED %s truncated", what);
        uint8_t b = *d->p++;
        if (shift == 63 && (b & 0x7e))
            return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED %s overflows 64 bits", what);
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return NULL;
        }
    }
    return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED %s varint too long", what);
}

static pm_error *zigzag(pqd_delta *d, uint64_t *out, const char *what)
{
    uint64_t u;
    PM_TRY(uvarint(d, &u, what));
    *out = (u >> 1) ^ (0 - (u & 1));
    return NULL;
}

pm_error *pqd_delta_init(pqd_delta *d, const uint8_t *p, size_t len, int value_bits, uint64_t max_values)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    d->end = p + len;
    d->value_bits = value_bits;
    uint64_t total, first;
    PM_TRY(uvarint(d, &d->block_size, "block size"));
    PM_TRY(uvarint(d, &d->miniblocks, "miniblock count"));
    PM_TRY(uvarint(d, &total, "value count"));
    PM_TRY(zigzag(d, &first, "first value"));
    if (d->block_size == 0 || d->block_size % 128 || d->block_size > (1u << 20))
        return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED block size %llu is not a multiple of 128 in 128..2^20",
                            (unsigned long long)d->block_size);
    if (d->miniblocks == 0 || d->miniblocks > 256 || d->block_size % d->miniblocks ||
        (d->block_size / d->miniblocks) % 32)
        return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED has %llu miniblocks per block of %llu values",
                            (unsigned long long)d->miniblocks, (unsigned long long)d->block_size);
    if (total > max_values)
        return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED holds %llu values, at most %llu expected",
                            (unsigned long long)total, (unsigned long long)max_values);
    d->per_mini = d->block_size / d->miniblocks;
    d->total_left = total;
    d->first_pending = total > 0;
    d->last = value_bits == 32 ? (uint64_t)(int64_t)(int32_t)(uint32_t)first : first;
    d->mini_index = d->miniblocks; /* forces a block header read */
    d->mini_left = 0;
    d->buf_pos = 8;
    return NULL;
}

/* Start the next miniblock (reading a block header when needed). */
static pm_error *next_miniblock(pqd_delta *d)
{
    if (++d->mini_index >= d->miniblocks) {
        PM_TRY(zigzag(d, &d->min_delta, "block min delta"));
        if ((uint64_t)(d->end - d->p) < d->miniblocks)
            return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED block bit widths truncated");
        memcpy(d->widths, d->p, (size_t)d->miniblocks);
        d->p += d->miniblocks;
        d->mini_index = 0;
    }
    int bw = d->widths[d->mini_index];
    if (bw > d->value_bits)
        return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED miniblock bit width %d exceeds %d", bw,
                            d->value_bits);
    /* Values still wanted from this miniblock decide how many bytes must exist. */
    uint64_t need_vals = d->total_left < d->per_mini ? d->total_left : d->per_mini;
    uint64_t need_bytes = (need_vals * (uint64_t)bw + 7) / 8;
    uint64_t full_bytes = d->per_mini * (uint64_t)bw / 8;
    uint64_t avail = (uint64_t)(d->end - d->p);
    if (need_bytes > avail)
        return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED miniblock truncated: %llu bytes needed, %llu left",
                            (unsigned long long)need_bytes, (unsigned long long)avail);
    d->mini_data = d->p;
    d->p += full_bytes < avail ? full_bytes : avail;
    d->mini_left = d->per_mini;
    return NULL;
}

static inline pm_error *refill(pqd_delta *d)
{
    if (d->mini_left == 0)
        PM_TRY(next_miniblock(d));
    int bw = d->widths[d->mini_index];
    size_t avail = (size_t)(d->p - d->mini_data);
    if (avail >= (size_t)bw) {
        pqd_unpack8_u64(d->mini_data, bw, d->buf);
        d->mini_data += bw;
    } else {
        uint8_t tmp[64];
        memset(tmp, 0, sizeof tmp);
        memcpy(tmp, d->mini_data, avail);
        pqd_unpack8_u64(tmp, bw, d->buf);
        d->mini_data = d->p;
    }
    d->buf_pos = 0;
    return NULL;
}

pm_error *pqd_delta_get_i64(pqd_delta *d, int64_t *out, size_t n)
{
    if (n > d->total_left)
        return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED stream has %llu values left, %zu wanted",
                            (unsigned long long)d->total_left, n);
    size_t i = 0;
    if (n && d->first_pending) {
        out[i++] = (int64_t)d->last;
        d->first_pending = false;
    }
    uint64_t last = d->last;
    uint64_t total0 = d->total_left;
    bool narrow = d->value_bits == 32;
    while (i < n) {
        if (d->buf_pos == 8) {
            d->total_left = total0 - i; /* deltas not yet returned, for the size check */
            d->last = last;
            pm_error *e = refill(d);
            if (e) {
                d->total_left = total0;
                return e;
            }
        }
        size_t k = (size_t)(8 - d->buf_pos);
        if (k > n - i)
            k = n - i;
        if (k > d->mini_left)
            k = (size_t)d->mini_left;
        for (size_t j = 0; j < k; j++) {
            last = last + d->min_delta + d->buf[d->buf_pos++];
            if (narrow)
                last = (uint64_t)(int64_t)(int32_t)(uint32_t)last;
            out[i++] = (int64_t)last;
        }
        d->mini_left -= k;
        if (d->mini_left == 0)
            d->buf_pos = 8;
    }
    d->last = last;
    d->total_left = total0 - n;
    return NULL;
}

pm_error *pqd_delta_get_i32(pqd_delta *d, int32_t *out, size_t n)
{
    int64_t tmp[256];
    while (n) {
        size_t k = n < 256 ? n : 256;
        PM_TRY(pqd_delta_get_i64(d, tmp, k));
        for (size_t j = 0; j < k; j++)
            out[j] = (int32_t)tmp[j];
        out += k;
        n -= k;
    }
    return NULL;
}

pm_error *pqd_delta_end(pqd_delta *d, const uint8_t **end_out)
{
    if (d->total_left)
        return pm_error_new(PM_EINTERNAL, "DELTA_BINARY_PACKED end asked before all values were read");
    *end_out = d->p;
    return NULL;
}
