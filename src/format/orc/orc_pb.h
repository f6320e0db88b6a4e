/*
 * format/orc/orc_pb.h — the protobuf wire format, as much of it as ORC's
 * metadata (orc_proto.proto, proto2) uses: a bounds-checked field reader and
 * an appending writer.
 *
 * Why our own codec and not protobuf-c: ORC needs a dozen small messages
 * and five wire types; a codec of our own is ~300 lines, needs no code
 * generation or extra dependency, and keeps the rule "every byte format has
 * a bounds-checked reader that never trusts a length" in our hands (every
 * length is checked against the bytes left before use, unknown fields are
 * skipped by wire type, and nesting depth is the caller's recursion, which
 * the ORC messages bound to three levels).
 *
 * Wire format: a message is a sequence of fields; each starts with a varint
 * key = (field number << 3) | wire type:
 *   0 VARINT   LEB128 value (int32/uint32/uint64/bool/enum; sint = zig-zag)
 *   1 I64      8 bytes little-endian (double, fixed64)
 *   2 LEN      varint length + that many bytes (string, bytes, message, packed)
 *   5 I32      4 bytes little-endian (float, fixed32)
 *   3/4        groups: never used by ORC, rejected as corrupt
 * Repeated scalars may arrive packed (one LEN field of varints) or unpacked
 * (one field per value); readers accept both (orc_pb_repeated_*).
 * The writer emits fields in the order it is called; callers write them in
 * field-number order, as Java's generated code does, so the bytes match.
 */
#ifndef PM_ORC_PB_H
#define PM_ORC_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "paimon/error.h"

enum { ORC_PB_VARINT = 0, ORC_PB_I64 = 1, ORC_PB_LEN = 2, ORC_PB_I32 = 5 };

/* One decoded field: `v` for VARINT/I64/I32, `p`/`len` for LEN. */
typedef struct orc_pb_field {
    uint32_t num;
    uint8_t wire;
    uint64_t v;
    const uint8_t *p;
    size_t len;
} orc_pb_field;

/* Next field of the message in `c`; *more = false (and nothing read) at
 * the end.  `msg` names the message for errors. */
pm_error *orc_pb_next(pm_cursor *c, orc_pb_field *f, bool *more, const char *msg);

/* Checked conversions of a field's value (errors name `what`). */
pm_error *orc_pb_u32(const orc_pb_field *f, uint32_t *out, const char *what);
pm_error *orc_pb_u64(const orc_pb_field *f, uint64_t *out, const char *what);
pm_error *orc_pb_s64(const orc_pb_field *f, int64_t *out, const char *what);   /* sint64 */
pm_error *orc_pb_s32(const orc_pb_field *f, int32_t *out, const char *what);   /* sint32 */
pm_error *orc_pb_i32(const orc_pb_field *f, int32_t *out, const char *what);   /* int32 */
pm_error *orc_pb_bool(const orc_pb_field *f, bool *out, const char *what);
pm_error *orc_pb_double(const orc_pb_field *f, double *out, const char *what);
pm_error *orc_pb_bytes(const orc_pb_field *f, const uint8_t **p, size_t *len, const char *what);

/* Values of a repeated unsigned varint field (packed or one unpacked
 * occurrence): count them, then decode into `out` (count entries). */
pm_error *orc_pb_repeated_count(const orc_pb_field *f, size_t *count, const char *what);
pm_error *orc_pb_repeated_u64(const orc_pb_field *f, uint64_t *out, size_t count, const char *what);

/* ---- writer: each appends one field to `b` ---- */
pm_error *orc_pb_put_uvarint(pm_buf *b, uint64_t v);          /* bare varint, no key */
/* Base-128 varint of v into tmp (at most 10 bytes); returns its length.
 * Shared with the RLE writer's varints. */
static inline size_t orc_uvarint_encode(uint8_t tmp[10], uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    return n;
}
pm_error *orc_pb_put_u64(pm_buf *b, uint32_t num, uint64_t v);   /* VARINT */
pm_error *orc_pb_put_s64(pm_buf *b, uint32_t num, int64_t v);    /* VARINT, zig-zag */
pm_error *orc_pb_put_i64(pm_buf *b, uint32_t num, int64_t v);    /* VARINT, two's complement (int32/int64) */
pm_error *orc_pb_put_double(pm_buf *b, uint32_t num, double v);  /* I64 */
pm_error *orc_pb_put_bytes(pm_buf *b, uint32_t num, const void *p, size_t n); /* LEN */
pm_error *orc_pb_put_str(pm_buf *b, uint32_t num, const char *s);
/* Packed repeated uint64 (nothing written for n == 0, as protobuf does). */
pm_error *orc_pb_put_packed(pm_buf *b, uint32_t num, const uint64_t *v, size_t n);

#endif
