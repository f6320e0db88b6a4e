/*
 * format/parquet/pq_encode.h — value and level encoders of the Parquet
 * writer: the RLE / bit-packing hybrid, PLAIN helpers and the dictionary
 * (hash table with insertion-ordered entries).
 *
 * RLE / bit-packing hybrid (parquet-format Encodings.md), as a sequence of
 * runs, each starting with a ULEB128 header:
 *   header = count << 1        RLE run: `count` copies of one value stored
 *                              in ceil(bit_width/8) little-endian bytes
 *   header = groups << 1 | 1   bit-packed run: groups*8 values, each
 *                              `bit_width` bits, packed LSB first
 * The encoder follows the run-detection rules of parquet-java's
 * RunLengthBitPackingHybridEncoder (the same rules as Arrow's RleEncoder), so
 * it produces the same bytes for the same values:
 *   - values are buffered in groups of 8; a full group is bit-packed and
 *     appended to the open bit-packed run (at most 63 groups per run, the
 *     header is a single byte written back when the run ends);
 *   - once a value has repeated 8 times (counting from the last packed
 *     group), further copies are only counted; the run is written as an RLE
 *     run when a different value arrives or the stream ends (the up to 7
 *     copies still in the group buffer belong to the run);
 *   - at the end a partial group is zero-padded and bit-packed.
 * Bit widths 0..32 are supported (width 0 writes headers only).
 *
 * The dictionary maps physical values (4, 8 or 12 byte fixed width, or
 * byte strings) to dense indices in insertion order with open addressing
 * (linear probing, power-of-two table, load <= 1/2).  `byte_size` counts
 * like parquet-java's dictionaryByteSize (fixed: width per entry; binary:
 * 4 + length per entry) so fallback decisions match.
 */
#ifndef PM_PQ_ENCODE_H
#define PM_PQ_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "paimon/error.h"

/* PLAIN values are copied from the little-endian column buffers as they are. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the Parquet writer needs a little-endian host");

/* ---- bit widths ---------------------------------------------------------- */

/* Bits needed to store values 0..max (0 for max == 0). */
static inline int pq_bit_width(uint64_t max)
{
    return max ? 64 - __builtin_clzll(max) : 0;
}

/* ---- RLE / bit-packing hybrid -------------------------------------------- */

typedef struct pq_rle_encoder {
    pm_buf *out;          /* bytes are appended here */
    int bit_width;        /* 0..32 */
    int byte_width;       /* ceil(bit_width / 8) */
    int nbuf;             /* values in `buf` */
    uint32_t prev;        /* last value seen */
    uint64_t repeat;      /* copies of `prev` since the last packed group */
    uint32_t buf[8];      /* current group */
    int groups;           /* groups in the open bit-packed run */
    size_t header_pos;    /* offset of the open run's header byte, SIZE_MAX if none */
} pq_rle_encoder;

void pq_rle_init(pq_rle_encoder *e, pm_buf *out, int bit_width);
/* Append one value (< 2^bit_width). */
pm_error *pq_rle_put(pq_rle_encoder *e, uint32_t v);
/* Append `n` copies of v (fast once a run is established). */
pm_error *pq_rle_put_run(pq_rle_encoder *e, uint32_t v, uint64_t n);
/* Append n values. */
pm_error *pq_rle_put_many(pq_rle_encoder *e, const uint32_t *v, size_t n);
/* Append the bits start..start+n-1 of an LSB-first bitmap as values 0/1
 * mapped to `zero` / `one` (levels from a validity bitmap). */
pm_error *pq_rle_put_bitmap(pq_rle_encoder *e, const uint8_t *bitmap, int64_t start, int64_t n,
                            uint32_t zero, uint32_t one);
/* Flush buffered values and close the open run. The encoder can be
 * reinitialized afterwards. */
pm_error *pq_rle_finish(pq_rle_encoder *e);

/* Bit-pack 8 values of `bit_width` bits into exactly bit_width bytes. */
void pq_pack8(const uint32_t *v, int bit_width, uint8_t *out);

/* Whole RLE-hybrid encoding of n values into out (convenience for tests and
 * dictionary index pages). */
pm_error *pq_rle_encode(pm_buf *out, int bit_width, const uint32_t *v, size_t n);

/* ---- PLAIN --------------------------------------------------------------- */

/* ULEB128 varint into a buffer that has room (<= 10 bytes). */
static inline size_t pq_put_uvarint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* ---- dictionary ---------------------------------------------------------- */

typedef struct pq_dict {
    int width;            /* 4, 8, 12 for fixed-width values; 0 for byte strings */
    uint32_t *slots;      /* entry index + 1; 0 = empty */
    uint32_t mask;        /* table size - 1 */
    uint32_t count;       /* entries */
    pm_buf values;        /* fixed: count * width bytes; binary: concatenated bytes */
    uint32_t *offsets;    /* binary: count + 1 offsets into values */
    uint32_t *hashes;     /* binary: hash of each entry */
    uint32_t cap;         /* capacity of offsets/hashes (entries) */
    int64_t byte_size;    /* parquet-java dictionaryByteSize */
} pq_dict;

pm_error *pq_dict_init(pq_dict *d, int width);
void pq_dict_free(pq_dict *d);
/* Drop all entries (keeps the allocations). */
void pq_dict_clear(pq_dict *d);
/* Keep only the first n entries (after a fallback: entries used by written pages). */
void pq_dict_truncate(pq_dict *d, uint32_t n);

/* Look up or insert; *idx = entry index; *added = true when inserted.
 * The 4- and 8-byte lookups are inline (the writer calls them per value);
 * inserting a new entry goes out of line. */
pm_error *pq_dict_put96(pq_dict *d, const uint8_t v[12], uint32_t *idx, bool *added);
pm_error *pq_dict_put_bytes(pq_dict *d, const uint8_t *p, uint32_t len, uint32_t *idx, bool *added);
/* Insert v at the empty slot `slot` (found by the lookup). */
pm_error *pq_dict_insert32(pq_dict *d, uint32_t v, uint32_t slot, uint32_t *idx);
pm_error *pq_dict_insert64(pq_dict *d, uint64_t v, uint32_t slot, uint32_t *idx);

static inline uint32_t pq_hash32(uint32_t x)
{
    return (uint32_t)(((uint64_t)x * 0x9E3779B97F4A7C15ull) >> 32);
}

static inline uint32_t pq_hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}

static inline pm_error *pq_dict_put32(pq_dict *d, uint32_t v, uint32_t *idx, bool *added)
{
    uint32_t s = pq_hash32(v) & d->mask;
    const uint8_t *vals = d->values.data;
    for (;;) {
        uint32_t e = d->slots[s];
        if (!e)
            break;
        uint32_t x;
        memcpy(&x, vals + 4 * (size_t)(e - 1), 4);
        if (x == v) {
            *idx = e - 1;
            *added = false;
            return NULL;
        }
        s = (s + 1) & d->mask;
    }
    *added = true;
    return pq_dict_insert32(d, v, s, idx);
}

static inline pm_error *pq_dict_put64(pq_dict *d, uint64_t v, uint32_t *idx, bool *added)
{
    uint32_t s = pq_hash64(v) & d->mask;
    const uint8_t *vals = d->values.data;
    for (;;) {
        uint32_t e = d->slots[s];
        if (!e)
            break;
        uint64_t x;
        memcpy(&x, vals + 8 * (size_t)(e - 1), 8);
        if (x == v) {
            *idx = e - 1;
            *added = false;
            return NULL;
        }
        s = (s + 1) & d->mask;
    }
    *added = true;
    return pq_dict_insert64(d, v, s, idx);
}

static inline const uint8_t *pq_dict_entry(const pq_dict *d, uint32_t i, uint32_t *len)
{
    if (d->width) {
        *len = (uint32_t)d->width;
        return d->values.data + (size_t)i * (size_t)d->width;
    }
    *len = d->offsets[i + 1] - d->offsets[i];
    return *len ? d->values.data + d->offsets[i] : (const uint8_t *)"";
}

/* Append the PLAIN encoding of entries [0, n) (dictionary page body). */
pm_error *pq_dict_write_plain(const pq_dict *d, uint32_t n, pm_buf *out);

/* CRC-32 of the gzip polynomial (page header CRC), continuing from `crc`
 * (0 to start): hardware carry-less multiply when available, else zlib. */
uint32_t pq_crc32(uint32_t crc, const uint8_t *p, size_t n);
/* The same through zlib only (reference for tests). */
uint32_t pq_crc32_portable(uint32_t crc, const uint8_t *p, size_t n);

/* Hash of a byte string (used by the dictionary; exposed for tests). */
uint32_t pq_hash_bytes(const uint8_t *p, size_t n);

#endif
