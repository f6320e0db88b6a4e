/*
 * format/parquet/pq_decode.h — Parquet value and level decoders (reader
 * side).  Each decoder is an incremental state machine over one page's
 * bytes: callers ask for `n` more values and get them written densely to a
 * destination they sized.  No decoder trusts a count or length found in the
 * data: every read is bounds-checked and a short or inconsistent stream is
 * PM_ECORRUPT.
 *
 * Encodings:
 *   bit unpacking      8 values at a time, LSB-first, bit widths 0..64
 *                      (pqd_unpack8_u32 for <= 32, pqd_unpack8_u64 for <= 64)
 *   RLE hybrid         <uvarint header> runs: header&1 = 0 → RLE run of
 *                      header>>1 copies of a ceil(bw/8)-byte LE value;
 *                      header&1 = 1 → (header>>1) groups of 8 bit-packed
 *                      values (levels, dictionary indices, v2 booleans)
 *   BIT_PACKED         legacy levels: MSB-first bit packing, no header
 *   PLAIN              fixed-width LE values; BOOLEAN 1 bit LSB-first;
 *                      BYTE_ARRAY 4-byte LE length + bytes; FLBA raw
 *   DELTA_BINARY_PACKED <block size> <miniblocks per block> <total count>
 *                      <first value zigzag>, then blocks: <min delta
 *                      zigzag> <one bit-width byte per miniblock> then the
 *                      miniblocks' packed (delta - min delta) values
 *   DELTA_LENGTH_BYTE_ARRAY  DELTA_BINARY_PACKED lengths, then the bytes
 *   DELTA_BYTE_ARRAY   DELTA_BINARY_PACKED prefix lengths, then suffixes as
 *                      DELTA_LENGTH_BYTE_ARRAY; value = prefix of the
 *                      previous value + suffix
 *   BYTE_STREAM_SPLIT  byte k of value i at k*N + i (N values of w bytes)
 */
#ifndef PM_PARQUET_PQ_DECODE_H
#define PM_PARQUET_PQ_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/error.h"

/* ---- bit unpacking ---- */

/* Unpack 8 values of `bw` bits (0..32) from `in` (bw bytes readable). */
void pqd_unpack8_u32(const uint8_t *in, int bw, uint32_t *out);
/* Unpack 8 values of `bw` bits (0..64) from `in` (bw bytes readable). */
void pqd_unpack8_u64(const uint8_t *in, int bw, uint64_t *out);

/* ---- RLE / bit-packed hybrid ---- */

typedef struct pqd_rle {
    const uint8_t *p, *end;
    int bw;                 /* 0..32 */
    uint32_t run_left;      /* values left in the current run */
    bool packed;            /* current run is bit-packed */
    uint32_t value;         /* RLE run value */
    uint32_t buf[8];        /* unpacked values of the current packed group */
    int buf_pos;            /* next value in buf (8 = empty) */
} pqd_rle;

/* bw 0..32 (wider is PM_ECORRUPT). */
pm_error *pqd_rle_init(pqd_rle *d, const uint8_t *p, size_t len, int bw);
/* Next n values; PM_ECORRUPT if the stream ends first. */
pm_error *pqd_rle_get_u32(pqd_rle *d, uint32_t *out, size_t n);
pm_error *pqd_rle_get_u16(pqd_rle *d, uint16_t *out, size_t n);
/* Next n values, each checked < limit (dictionary indices). */
pm_error *pqd_rle_get_indices(pqd_rle *d, uint32_t *out, size_t n, uint32_t limit);
/* The next piece of the stream, at most n (> 0) values of one run: from an
 * RLE run *repeated = true, its value in *value and nothing written to
 * out; from a bit-packed run *repeated = false and the values written to
 * out.  *got (>= 1) values are consumed; PM_ECORRUPT at the stream's end.
 * (Levels re-encoded run by run: pq_page_merge.h.) */
pm_error *pqd_rle_get_piece(pqd_rle *d, uint32_t *out, size_t n, size_t *got, bool *repeated, uint32_t *value);

/* Legacy BIT_PACKED levels (MSB-first): n values of bw bits from p[0..len). */
pm_error *pqd_bitpacked_msb_get_u16(const uint8_t *p, size_t len, int bw, uint16_t *out, size_t n);

/* Bit width needed for values 0..max. */
static inline int pqd_bit_width(uint32_t max)
{
    int w = 0;
    while (max) {
        w++;
        max >>= 1;
    }
    return w;
}

/* ---- PLAIN ---- */

/* Fixed width: take n*w bytes from *p (bounded by end) into out. */
pm_error *pqd_plain_fixed(const uint8_t **p, const uint8_t *end, size_t w, size_t n, void *out);
/* Booleans: n bits starting at *bit of p[0..len) → bytes 0/1. */
pm_error *pqd_plain_bool(const uint8_t *p, size_t len, uint64_t *bit, size_t n, uint8_t *out);
/* BYTE_ARRAY: n values appended to data; offsets[0..n] written relative to
 * data->len at entry (offsets[0] = 0). */
pm_error *pqd_plain_byte_array(const uint8_t **p, const uint8_t *end, size_t n, int32_t *offsets,
                              pm_buf *data);

/* ---- DELTA_BINARY_PACKED ---- */

typedef struct pqd_delta {
    const uint8_t *p, *end;     /* stream; p = next unread byte */
    int value_bits;             /* 32 or 64: max miniblock bit width */
    uint64_t block_size;        /* values per block */
    uint64_t miniblocks;        /* miniblocks per block */
    uint64_t per_mini;          /* values per miniblock */
    uint64_t total_left;        /* values not yet returned */
    uint64_t last;              /* previous value (wrapping arithmetic) */
    bool first_pending;         /* first value not yet returned */
    uint64_t min_delta;
    uint8_t widths[256];        /* bit widths of the current block */
    uint64_t mini_index;        /* current miniblock in block */
    uint64_t mini_left;         /* values left in the current miniblock */
    const uint8_t *mini_data;   /* next packed group of the current miniblock */
    uint64_t buf[8];
    int buf_pos;                /* 8 = empty */
} pqd_delta;

/* value_bits 32 (INT32, lengths) or 64; max_values bounds the header's count. */
pm_error *pqd_delta_init(pqd_delta *d, const uint8_t *p, size_t len, int value_bits, uint64_t max_values);
static inline uint64_t pqd_delta_count(const pqd_delta *d) { return d->total_left; }
pm_error *pqd_delta_get_i64(pqd_delta *d, int64_t *out, size_t n);
pm_error *pqd_delta_get_i32(pqd_delta *d, int32_t *out, size_t n);
/* After all values were read: end of the encoded stream (for the byte data
 * that follows lengths in DELTA_LENGTH_BYTE_ARRAY). */
pm_error *pqd_delta_end(pqd_delta *d, const uint8_t **end_out);

/* ---- BYTE_STREAM_SPLIT ---- */

/* Values [first, first+n) of a stream of `count` values of w bytes. */
void pqd_bss_get(const uint8_t *stream, size_t count, size_t w, size_t first, size_t n, uint8_t *out);

#endif
