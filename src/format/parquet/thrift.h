/*
 * format/parquet/thrift.h — the thrift compact protocol, as Parquet uses it
 * for its footer (FileMetaData) and page headers.
 *
 * Wire format (Apache Thrift compact protocol):
 *   field header  one byte `dddd tttt`: d = field-id delta (1..15) from the
 *                 previous field of the same struct, t = type; d = 0 means a
 *                 zig-zag varint i16 field id follows.  Type 0 = STOP ends
 *                 the struct.
 *   types         1 BOOL_TRUE, 2 BOOL_FALSE (a bool field's value is its
 *                 type), 3 I8 (one byte), 4 I16, 5 I32, 6 I64 (zig-zag
 *                 varints), 7 DOUBLE (8 bytes LE), 8 BINARY (uvarint length
 *                 + bytes), 9 LIST, 10 SET, 11 MAP, 12 STRUCT, 13 UUID (16
 *                 bytes).
 *   list/set      one byte `ssss tttt`: s = size (0..14) or 15 meaning a
 *                 uvarint size follows, t = element type; bool elements are
 *                 one byte each (1 = true).
 *   map           uvarint size; if non-zero one byte `kkkk vvvv` of key and
 *                 value types, then size key/value pairs.
 *
 * Reader: a pq_thrift_reader wraps a pm_cursor.  Each struct decoder keeps
 * its own `last_id` (the delta base) and calls pq_thrift_struct_enter/leave
 * so nesting depth is bounded (PQ_THRIFT_MAX_DEPTH).  Unknown fields are
 * skipped with pq_thrift_skip, which walks nested structs, lists, sets and
 * maps under the same depth limit.  A list, string or map length is checked
 * against the bytes left (every element takes at least one byte) before it
 * is used.
 *
 * Writer: a pq_thrift_writer appends to a pm_buf; it keeps the delta base of
 * every open struct on a small stack.
 */
#ifndef PM_PARQUET_THRIFT_H
#define PM_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "paimon/error.h"

enum {
    PQ_TT_STOP = 0,
    PQ_TT_BOOL_TRUE = 1,
    PQ_TT_BOOL_FALSE = 2,
    PQ_TT_I8 = 3,
    PQ_TT_I16 = 4,
    PQ_TT_I32 = 5,
    PQ_TT_I64 = 6,
    PQ_TT_DOUBLE = 7,
    PQ_TT_BINARY = 8,
    PQ_TT_LIST = 9,
    PQ_TT_SET = 10,
    PQ_TT_MAP = 11,
    PQ_TT_STRUCT = 12,
    PQ_TT_UUID = 13
};

#define PQ_THRIFT_MAX_DEPTH 32

/* ---- reader ---- */

typedef struct pq_thrift_reader {
    pm_cursor cur;
    int depth;   /* open structs/containers */
} pq_thrift_reader;

static inline void pq_thrift_reader_init(pq_thrift_reader *r, const uint8_t *data, size_t len)
{
    r->cur = pm_cursor_make(data, len);
    r->depth = 0;
}

/* Enter a struct (or container): fails with PM_ECORRUPT past the depth limit. */
pm_error *pq_thrift_struct_enter(pq_thrift_reader *r);
static inline void pq_thrift_struct_leave(pq_thrift_reader *r) { r->depth--; }

/* Next field header of the current struct.  *type = PQ_TT_STOP at the end
 * (then *id is 0).  `last_id` is the struct's delta base, updated here.
 * The common header (one byte: a field-id delta and a valid type) is read
 * inline; anything else goes to pq_thrift_field_full, which checks all. */
pm_error *pq_thrift_field_full(pq_thrift_reader *r, int16_t *last_id, uint8_t *type, int16_t *id);
static inline pm_error *pq_thrift_field(pq_thrift_reader *r, int16_t *last_id, uint8_t *type, int16_t *id)
{
    if (r->cur.p < r->cur.end) {
        uint8_t h = *r->cur.p, t = h & 0x0f, d = h >> 4;
        if (d && t >= PQ_TT_BOOL_TRUE && t <= PQ_TT_UUID && *last_id <= INT16_MAX - 15) {
            r->cur.p++;
            *last_id = (int16_t)(*last_id + d);
            *type = t;
            *id = *last_id;
            return NULL;
        }
    }
    return pq_thrift_field_full(r, last_id, type, id);
}

/* Values (no header). */
pm_error *pq_thrift_i8(pq_thrift_reader *r, int8_t *out);
pm_error *pq_thrift_i16(pq_thrift_reader *r, int16_t *out);
pm_error *pq_thrift_i32(pq_thrift_reader *r, int32_t *out);
pm_error *pq_thrift_i64(pq_thrift_reader *r, int64_t *out);
pm_error *pq_thrift_double(pq_thrift_reader *r, double *out);
/* Borrowed bytes inside the input. */
pm_error *pq_thrift_binary(pq_thrift_reader *r, const uint8_t **p, uint32_t *len);
/* A bool list element (one byte). */
pm_error *pq_thrift_bool_elem(pq_thrift_reader *r, bool *out);
/* List or set header; *count is checked against the bytes left. */
pm_error *pq_thrift_list(pq_thrift_reader *r, uint8_t *elem_type, uint32_t *count);
/* A list field: t must be LIST and its elements of type `want` (for bool
 * lists either bool code; an empty list may name any type); *count from
 * the header.  `what` names the field in errors. */
pm_error *pq_thrift_list_of(pq_thrift_reader *r, uint8_t t, uint8_t want, uint32_t *count, const char *what);
/* Map header; key/value types are 0 when count is 0. */
pm_error *pq_thrift_map(pq_thrift_reader *r, uint8_t *key_type, uint8_t *value_type, uint32_t *count);

/* Read an integer field of any integer wire type (I8/I16/I32/I64) into i64;
 * PM_ECORRUPT naming `what` for a non-integer type.  A one-byte varint of
 * I16/I32/I64 is read inline; the rest by pq_thrift_int_any_full. */
pm_error *pq_thrift_int_any_full(pq_thrift_reader *r, uint8_t type, int64_t *out, const char *what);
static inline pm_error *pq_thrift_int_any(pq_thrift_reader *r, uint8_t type, int64_t *out, const char *what)
{
    if (type >= PQ_TT_I16 && type <= PQ_TT_I64 && r->cur.p < r->cur.end && *r->cur.p < 0x80) {
        uint8_t b = *r->cur.p++;
        *out = (int64_t)(b >> 1) ^ -(int64_t)(b & 1); /* zig-zag */
        return NULL;
    }
    return pq_thrift_int_any_full(r, type, out, what);
}
/* Field value of a bool field: its type must be BOOL_TRUE or BOOL_FALSE. */
pm_error *pq_thrift_field_bool(uint8_t type, bool *out, const char *what);
/* Check a field's wire type; PM_ECORRUPT naming `what` when it differs. */
pm_error *pq_thrift_expect(uint8_t got, uint8_t want, const char *what);

/* Skip one value of `type` (fields are skipped after their header). */
pm_error *pq_thrift_skip(pq_thrift_reader *r, uint8_t type);

/* ---- writer ---- */

typedef struct pq_thrift_writer {
    pm_buf *out;
    int depth;
    int16_t last_id[PQ_THRIFT_MAX_DEPTH + 1];
} pq_thrift_writer;

static inline void pq_thrift_writer_init(pq_thrift_writer *w, pm_buf *out)
{
    w->out = out;
    w->depth = 0;
    w->last_id[0] = 0;
}

/* Open a struct (a top-level one, or after its field header / as a list
 * element); end writes STOP and restores the outer delta base. */
pm_error *pq_thrift_w_struct_begin(pq_thrift_writer *w);
pm_error *pq_thrift_w_struct_end(pq_thrift_writer *w);
/* Field header; ids must increase within a struct for short deltas, but any
 * order is encoded correctly. */
pm_error *pq_thrift_w_field(pq_thrift_writer *w, int16_t id, uint8_t type);
pm_error *pq_thrift_w_field_bool(pq_thrift_writer *w, int16_t id, bool v);
pm_error *pq_thrift_w_field_i32(pq_thrift_writer *w, int16_t id, int32_t v);
pm_error *pq_thrift_w_field_i64(pq_thrift_writer *w, int16_t id, int64_t v);
pm_error *pq_thrift_w_field_binary(pq_thrift_writer *w, int16_t id, const void *p, size_t n);
pm_error *pq_thrift_w_field_string(pq_thrift_writer *w, int16_t id, const char *s);

/* Values (no header). */
pm_error *pq_thrift_w_i8(pq_thrift_writer *w, int8_t v);
pm_error *pq_thrift_w_i16(pq_thrift_writer *w, int16_t v);
pm_error *pq_thrift_w_i32(pq_thrift_writer *w, int32_t v);
pm_error *pq_thrift_w_i64(pq_thrift_writer *w, int64_t v);
pm_error *pq_thrift_w_double(pq_thrift_writer *w, double v);
pm_error *pq_thrift_w_binary(pq_thrift_writer *w, const void *p, size_t n);
pm_error *pq_thrift_w_bool_elem(pq_thrift_writer *w, bool v);
pm_error *pq_thrift_w_list(pq_thrift_writer *w, uint8_t elem_type, uint32_t count);
pm_error *pq_thrift_w_map(pq_thrift_writer *w, uint8_t key_type, uint8_t value_type, uint32_t count);

#endif
