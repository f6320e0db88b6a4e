/*
 * types/binary_row.h — Paimon's BinaryRow: the byte form of partitions,
 * keys, stats rows and bucket keys, byte-identical to Java.
 *
 * Layout (all values little-endian):
 *   [header + null bitmap: W = ((arity + 63 + 8) / 64) * 8 bytes]
 *     byte 0 = RowKind (0 +I, 1 -U, 2 +U, 3 -D); null bit of field i is
 *     bit i+8 (byte (i+8)/8, mask 1 << ((i+8) % 8)); set = null
 *   [fixed part: one 8-byte slot per field at W + 8*i]
 *   [variable part: values padded with zeros to multiples of 8]
 * Slots:
 *   BOOLEAN/TINYINT 1 byte, SMALLINT 2, INT/DATE/TIME 4, BIGINT 8,
 *   FLOAT 4, DOUBLE 8 (IEEE), DECIMAL p<=18 unscaled int64,
 *   TIMESTAMP(_LTZ) p<=3 epoch millis
 *   CHAR/VARCHAR/BINARY/VARBINARY/BLOB: length <= 7 inline (data in bytes
 *     0..len-1, byte 7 = 0x80 | len), else (offset << 32) | len with the
 *     bytes in the variable part (offset from the row start)
 *   DECIMAL p>18: 16 reserved var bytes holding the minimal big-endian
 *     two's-complement unscaled value (BigInteger.toByteArray);
 *     slot = (offset << 32) | byte length
 *   TIMESTAMP p>3: 8 var bytes of epoch millis; slot = (offset << 32) |
 *     nanoOfMillisecond
 *   null: bit set, slot zero — except non-compact DECIMAL/TIMESTAMP, which
 *     Java still gives their 16/8 zero var bytes and slot (offset << 32).
 * Serialized form (manifests): 4-byte big-endian arity, then the row.
 *
 * The writer appends var data in call order, like Java's BinaryRowWriter:
 * set fields in index order to get Java's bytes.  The reader checks every
 * offset and length against the row before use.  ARRAY/MAP/ROW/VARIANT
 * fields are PM_EUNSUPPORTED.
 */
#ifndef PM_TYPES_BINARY_ROW_H
#define PM_TYPES_BINARY_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/types.h"
#include "types/column.h"

enum { PM_ROWKIND_INSERT = 0, PM_ROWKIND_UPDATE_BEFORE = 1, PM_ROWKIND_UPDATE_AFTER = 2, PM_ROWKIND_DELETE = 3 };

/* Header + null bitmap width in bytes. */
static inline size_t pm_binrow_null_bytes(int32_t arity) { return ((size_t)arity + 63 + 8) / 64 * 8; }
static inline size_t pm_binrow_fixed_len(int32_t arity) { return pm_binrow_null_bytes(arity) + 8 * (size_t)arity; }
/* True when the type's value lives entirely in its slot. */
bool pm_binrow_decimal_compact(int32_t precision);   /* p <= 18 */
bool pm_binrow_timestamp_compact(int32_t precision); /* p <= 3 */

/* ------------------------------------------------------------------ */
/* Writer                                                              */

typedef struct pm_binrow_writer {
    pm_buf buf;     /* the row; len = current end of the var part */
    int32_t arity;
} pm_binrow_writer;

#define PM_BINROW_WRITER_INIT {PM_BUF_INIT, 0}

/* Start a new row of `arity` fields (RowKind +I, all slots zero). */
pm_error *pm_binrow_writer_reset(pm_binrow_writer *w, int32_t arity);
void pm_binrow_writer_free(pm_binrow_writer *w);
void pm_binrow_set_kind(pm_binrow_writer *w, uint8_t kind);

/* Null as Java writes it for a field of `type`: non-compact DECIMAL and
 * TIMESTAMP reserve their var bytes; NULL type = plain setNullAt. */
pm_error *pm_binrow_set_null(pm_binrow_writer *w, int32_t i, const pm_type *type);
/* Fixed-width setters do not check i: the caller keeps 0 <= i < arity. */
void pm_binrow_set_bool(pm_binrow_writer *w, int32_t i, bool v);
void pm_binrow_set_i8(pm_binrow_writer *w, int32_t i, int8_t v);
void pm_binrow_set_i16(pm_binrow_writer *w, int32_t i, int16_t v);
void pm_binrow_set_i32(pm_binrow_writer *w, int32_t i, int32_t v); /* INT, DATE, TIME */
void pm_binrow_set_i64(pm_binrow_writer *w, int32_t i, int64_t v);
void pm_binrow_set_f32(pm_binrow_writer *w, int32_t i, float v);
void pm_binrow_set_f64(pm_binrow_writer *w, int32_t i, double v);
/* CHAR/VARCHAR/BINARY/VARBINARY/BLOB bytes. */
pm_error *pm_binrow_set_bytes(pm_binrow_writer *w, int32_t i, const void *p, size_t n);
pm_error *pm_binrow_set_decimal(pm_binrow_writer *w, int32_t i, int32_t precision, __int128 unscaled);
/* TIMESTAMP(_LTZ) of `precision`: epoch millis + nanoOfMillisecond (0..999999). */
pm_error *pm_binrow_set_timestamp(pm_binrow_writer *w, int32_t i, int32_t precision, int64_t millis,
                                  int32_t nano_of_milli);
/* Field i from row `row` of column c (any supported atomic type; null as
 * Java writes it). */
pm_error *pm_binrow_set_from_column(pm_binrow_writer *w, int32_t i, const pm_column *c, int64_t row);

/* Build the whole row from `n` columns (cols[fields[k]] becomes field k;
 * fields NULL = columns in order) at row `row`.  The row stays in w. */
pm_error *pm_binrow_from_columns(pm_binrow_writer *w, pm_column *const *cols, const size_t *fields, size_t n,
                                 int64_t row);
pm_error *pm_binrow_from_batch_row(pm_binrow_writer *w, const pm_batch *b, int64_t row, const size_t *fields,
                                   size_t n);

/* The finished row bytes (owned by w, valid until its next call). */
static inline const uint8_t *pm_binrow_data(const pm_binrow_writer *w, size_t *len)
{
    *len = w->buf.len;
    return w->buf.data;
}
/* BinaryRow.hashCode(): hashBytesByWords over the row bytes. */
int32_t pm_binrow_hash(const pm_binrow_writer *w);
/* Append the serialized form (BE arity + row) to out. */
pm_error *pm_binrow_serialize(const pm_binrow_writer *w, pm_buf *out);

/* ------------------------------------------------------------------ */
/* Reader                                                              */

typedef struct pm_binrow {
    const uint8_t *data; /* borrowed */
    size_t len;
    int32_t arity;
} pm_binrow;

/* View `len` bytes as a row of `arity` fields (checks the fixed part fits). */
pm_error *pm_binrow_view(pm_binrow *r, const void *data, size_t len, int32_t arity);
/* View a serialized row (4-byte BE arity prefix); expect_arity < 0 = any. */
pm_error *pm_binrow_deserialize(pm_binrow *r, const void *data, size_t len, int32_t expect_arity);

static inline uint8_t pm_binrow_kind(const pm_binrow *r) { return r->data[0]; }
static inline bool pm_binrow_is_null(const pm_binrow *r, int32_t i)
{
    int32_t b = i + 8;
    return (r->data[b >> 3] >> (b & 7)) & 1;
}
/* The 8-byte slot as a little-endian integer. */
uint64_t pm_binrow_slot(const pm_binrow *r, int32_t i);
static inline bool pm_binrow_bool(const pm_binrow *r, int32_t i) { return pm_binrow_slot(r, i) & 0xff; }
static inline int8_t pm_binrow_i8(const pm_binrow *r, int32_t i) { return (int8_t)(uint8_t)pm_binrow_slot(r, i); }
static inline int16_t pm_binrow_i16(const pm_binrow *r, int32_t i) { return (int16_t)(uint16_t)pm_binrow_slot(r, i); }
static inline int32_t pm_binrow_i32(const pm_binrow *r, int32_t i) { return (int32_t)(uint32_t)pm_binrow_slot(r, i); }
static inline int64_t pm_binrow_i64(const pm_binrow *r, int32_t i) { return (int64_t)pm_binrow_slot(r, i); }
float pm_binrow_f32(const pm_binrow *r, int32_t i);
double pm_binrow_f64(const pm_binrow *r, int32_t i);
/* Var-length bytes (inline or in the var part), pointer into the row. */
pm_error *pm_binrow_bytes(const pm_binrow *r, int32_t i, const uint8_t **p, size_t *n);
pm_error *pm_binrow_decimal(const pm_binrow *r, int32_t i, int32_t precision, __int128 *out);
pm_error *pm_binrow_timestamp(const pm_binrow *r, int32_t i, int32_t precision, int64_t *millis,
                              int32_t *nano_of_milli);
/* Append field i, read as `c->type`, to column c (null when the bit is set). */
pm_error *pm_binrow_append_to_column(const pm_binrow *r, int32_t i, pm_column *c);

/* Timestamp conversions between a column value (unit by precision) and
 * Paimon's (millis, nanoOfMillisecond). */
void pm_timestamp_to_millis_nanos(int64_t value, int32_t precision, int64_t *millis, int32_t *nano_of_milli);
pm_error *pm_timestamp_from_millis_nanos(int64_t millis, int32_t nano_of_milli, int32_t precision, int64_t *value);

#endif
