/*
 * base/cursor.h — bounds-checked reading of untrusted bytes.
 *
 * Every decoder (thrift, Parquet pages, Avro, BinaryRow, deletion vectors)
 * reads through a pm_cursor: a borrowed byte range plus a position.  No read
 * ever moves past `end`; a short read returns PM_ECORRUPT naming what was
 * being read.  Lengths found in the data are checked against what is left
 * before they are used, never trusted.
 */
#ifndef PM_BASE_CURSOR_H
#define PM_BASE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"

typedef struct pm_cursor {
    const uint8_t *p;   /* next byte */
    const uint8_t *end; /* one past the last byte */
} pm_cursor;

static inline pm_cursor pm_cursor_make(const void *data, size_t len)
{
    pm_cursor c = {(const uint8_t *)data, (const uint8_t *)data + len};
    return c;
}
static inline size_t pm_cursor_left(const pm_cursor *c) { return (size_t)(c->end - c->p); }
static inline bool pm_cursor_has(const pm_cursor *c, size_t n) { return n <= pm_cursor_left(c); }

/* Error for a short read of `what`. */
pm_error *pm_cursor_short(const pm_cursor *c, size_t need, const char *what);

/* Borrow n bytes (pointer into the input). */
pm_error *pm_cursor_take(pm_cursor *c, size_t n, const uint8_t **out, const char *what);
pm_error *pm_cursor_skip(pm_cursor *c, size_t n, const char *what);
pm_error *pm_cursor_u8(pm_cursor *c, uint8_t *out, const char *what);
pm_error *pm_cursor_u32le(pm_cursor *c, uint32_t *out, const char *what);
pm_error *pm_cursor_u64le(pm_cursor *c, uint64_t *out, const char *what);
pm_error *pm_cursor_u32be(pm_cursor *c, uint32_t *out, const char *what);
pm_error *pm_cursor_u64be(pm_cursor *c, uint64_t *out, const char *what);
/* Unsigned LEB128 varint, at most 10 bytes; rejects overlong encodings that overflow 64 bits. */
pm_error *pm_cursor_uvarint(pm_cursor *c, uint64_t *out, const char *what);
/* Zig-zag signed varint (Avro long, thrift i32/i64). */
pm_error *pm_cursor_svarint(pm_cursor *c, int64_t *out, const char *what);

/* Little/big-endian loads from memory already known to be in bounds. */
static inline uint16_t pm_load_u16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t pm_load_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t pm_load_u64le(const uint8_t *p)
{
    return (uint64_t)pm_load_u32le(p) | (uint64_t)pm_load_u32le(p + 4) << 32;
}
static inline uint32_t pm_load_u32be(const uint8_t *p)
{
    return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}
static inline uint64_t pm_load_u64be(const uint8_t *p)
{
    return (uint64_t)pm_load_u32be(p) << 32 | (uint64_t)pm_load_u32be(p + 4);
}
static inline void pm_store_u16le(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void pm_store_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void pm_store_u64le(uint8_t *p, uint64_t v)
{
    pm_store_u32le(p, (uint32_t)v);
    pm_store_u32le(p + 4, (uint32_t)(v >> 32));
}
static inline void pm_store_u32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void pm_store_u64be(uint8_t *p, uint64_t v)
{
    pm_store_u32be(p, (uint32_t)(v >> 32));
    pm_store_u32be(p + 4, (uint32_t)v);
}

static inline uint64_t pm_zigzag_encode(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t pm_zigzag_decode(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

#endif
