/*
 * format/avro/avro_binary.h — Avro binary encoding of single values.
 *
 *   boolean   one byte, 0 or 1
 *   int/long  zig-zag varint (int must fit 32 bits; at most 10 bytes)
 *   float     4 bytes little-endian IEEE; double 8 bytes
 *   bytes     long length, then the bytes; string the same (UTF-8)
 *   fixed     exactly `size` bytes; enum an int symbol index
 *   union     long branch index, then the branch value
 *   array/map blocks: long count (negative: |count| then a long byte size
 *             of the block), items (map: string key then value), until a
 *             block of count 0
 *   record    fields in order, nothing else
 * Readers work on a pm_cursor and never read past its end; a decoded count
 * or length is checked against what remains before it is used.
 */
#ifndef PM_FORMAT_AVRO_BINARY_H
#define PM_FORMAT_AVRO_BINARY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "format/avro/avro_schema.h"

/* Deepest value nesting decoded (arrays in records in maps ...). */
#define PM_AVRO_MAX_VALUE_DEPTH 100
/* Items of one array/map value (all blocks) when an item can encode to
 * zero bytes; other items are bounded by the bytes they occupy. */
#define PM_AVRO_MAX_EMPTY_ITEMS (1 << 20)

pm_error *pm_avro_read_long_slow(pm_cursor *c, int64_t *out);

static inline pm_error *pm_avro_read_long(pm_cursor *c, int64_t *out)
{
    /* Fast path: one or two bytes. */
    if (c->end - c->p >= 2) {
        uint8_t b0 = c->p[0];
        if (!(b0 & 0x80)) {
            c->p++;
            *out = pm_zigzag_decode(b0);
            return NULL;
        }
        uint8_t b1 = c->p[1];
        if (!(b1 & 0x80)) {
            c->p += 2;
            *out = pm_zigzag_decode((uint64_t)(b0 & 0x7f) | (uint64_t)b1 << 7);
            return NULL;
        }
    }
    return pm_avro_read_long_slow(c, out);
}

pm_error *pm_avro_read_int(pm_cursor *c, int32_t *out);
pm_error *pm_avro_read_bool(pm_cursor *c, bool *out);
pm_error *pm_avro_read_float(pm_cursor *c, float *out);
pm_error *pm_avro_read_double(pm_cursor *c, double *out);
/* bytes/string: borrowed pointer into the cursor's data. */
pm_error *pm_avro_read_bytes(pm_cursor *c, const uint8_t **p, size_t *n);
/* Union branch index, checked against the union's branch count. */
pm_error *pm_avro_read_branch(pm_cursor *c, const pm_avro_node *u, size_t *branch);
/*
 * Start of an array/map block: *count items follow (0 = end of the value).
 * Rejects negative overflow and counts that cannot fit in the remaining
 * bytes given the item's minimum encoded size (`item_min`, per item; for a
 * map add the key's 1 byte).
 */
pm_error *pm_avro_read_block_count(pm_cursor *c, size_t item_min, int64_t *count);

/* Skip one value of type `n`. */
pm_error *pm_avro_skip(pm_cursor *c, const pm_avro_node *n, int depth);

/* Encoders (append to a pm_buf). */
pm_error *pm_avro_put_long(pm_buf *b, int64_t v);
pm_error *pm_avro_put_float(pm_buf *b, float v);
pm_error *pm_avro_put_double(pm_buf *b, double v);
pm_error *pm_avro_put_bytes(pm_buf *b, const void *p, size_t n);

#endif
