/*
 * lsm/kv.h — KeyValue records as the LSM modules see them: where the key,
 * `_SEQUENCE_NUMBER`, `_VALUE_KIND`, value and user sequence fields live in
 * a batch (pm_kv_layout), a record reference (pm_kv_rec: batch + row, never
 * a copy), the sort-key encoder the merge compares with memcmp, and the
 * normalized form of a file's `_MIN_KEY` / `_MAX_KEY` BinaryRow.
 *
 * Physical KeyValue files (spec §1.1) hold [key fields, _SEQUENCE_NUMBER,
 * _VALUE_KIND, value fields]; a reader may instead expose [_SEQUENCE_NUMBER,
 * _VALUE_KIND, value fields] and resolve the key fields to value columns
 * (thin mode, table/file_read.h).  A layout names column indices, so both
 * work; key columns may alias value columns.
 *
 * Sort key of one row (internal to one merge, never persisted):
 *   key part   per trimmed primary-key field, ascending, nulls first:
 *              nullable type: 0x01 followed by the value, or 0x00 for a
 *              null (followed by zeros of the value's width when the
 *              type is fixed-width, so such keys keep one length);
 *              NOT NULL type: the value alone (a null is PM_ECORRUPT)
 *   seq part   per `sequence.field` field, same rules, value bytes
 *              inverted for `sequence.field.sort-order=descending` (the
 *              null marker is never inverted: nulls sort first either way,
 *              as Java's generated comparators do)
 *   seqnum     _SEQUENCE_NUMBER, 8 bytes big-endian, sign bit flipped
 * Value bytes: integers (TINYINT..BIGINT, DATE, TIME, TIMESTAMP in the
 * column's unit, DECIMAL p<=18 as 8 bytes, p>18 as 16) big-endian with the
 * sign bit flipped; BOOLEAN one byte; FLOAT/DOUBLE IEEE bits with negative
 * values fully inverted, others the sign bit set, NaN canonical (Java's
 * Float.compare order); strings/bytes with 0x00 escaped as 0x00 0xff and a
 * 0x00 0x00 terminator.  Every part is prefix-free, so memcmp of whole sort
 * keys orders rows by (key, sequence fields, sequence number) and two rows
 * have the same key iff their key parts are byte-equal.
 *
 * _MIN_KEY/_MAX_KEY (serialized BinaryRow of the trimmed key) are decoded
 * field by field and encoded with types/normkey.h (ascending, nulls first),
 * the order of Java's key comparator; only file-vs-file comparisons use it.
 */
#ifndef PM_LSM_KV_H
#define PM_LSM_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/batch.h"
#include "paimon/types.h"
#include "types/column.h"

/* _VALUE_KIND bytes (spec §0.2). */
enum { PM_KIND_INSERT = 0, PM_KIND_UPDATE_BEFORE = 1, PM_KIND_UPDATE_AFTER = 2, PM_KIND_DELETE = 3 };
static inline bool pm_kind_is_retract(uint8_t k) { return k == PM_KIND_UPDATE_BEFORE || k == PM_KIND_DELETE; }
/* "+I", "-U", "+U", "-D", or "?" for anything else. */
const char *pm_kind_name(uint8_t k);

#define PM_KV_MAX_FIELDS 4096

/* Where a KeyValue record's parts live in a batch.  Owns its arrays. */
typedef struct pm_kv_layout {
    size_t nkey;
    size_t *key_cols;        /* trimmed primary key, in key order */
    size_t seq_col;          /* _SEQUENCE_NUMBER BIGINT */
    size_t kind_col;         /* _VALUE_KIND TINYINT */
    size_t nvalue;
    size_t *value_cols;      /* all table fields, schema order */
    size_t nseqf;
    size_t *seqf_cols;       /* `sequence.field` columns (usually value columns) */
    bool seqf_descending;    /* sequence.field.sort-order = descending */
} pm_kv_layout;

/* The physical file layout: key i at column i, seq at nkey, kind at nkey+1,
 * value j at nkey+2+j.  No sequence fields. */
pm_error *pm_kv_layout_physical(pm_kv_layout *l, size_t nkey, size_t nvalue);
/* A layout from explicit column lists (copied). */
pm_error *pm_kv_layout_init(pm_kv_layout *l, const size_t *key_cols, size_t nkey, size_t seq_col,
                            size_t kind_col, const size_t *value_cols, size_t nvalue);
/* Set the user sequence fields (copied) and their order. */
pm_error *pm_kv_layout_set_seq_fields(pm_kv_layout *l, const size_t *cols, size_t n, bool descending);
pm_error *pm_kv_layout_copy(pm_kv_layout *dst, const pm_kv_layout *src);
void pm_kv_layout_clear(pm_kv_layout *l);
/* Check the layout against a batch row type: indices in range,
 * _SEQUENCE_NUMBER BIGINT, _VALUE_KIND TINYINT, key/sequence types atomic. */
pm_error *pm_kv_layout_check(const pm_kv_layout *l, const pm_type *row_type);

/* One record: row `row` of `batch` (borrowed; see the producer for how
 * long it lives), with its sequence number and kind already read. */
typedef struct pm_kv_rec {
    const pm_batch *batch;
    int64_t row;
    int64_t seq;
    uint8_t kind;
    uint32_t source;         /* input index within the merge that produced it */
} pm_kv_rec;

/* Fill rec from a batch row using the layout's seq/kind columns. */
void pm_kv_rec_at(pm_kv_rec *rec, const pm_batch *b, const pm_kv_layout *l, int64_t row);

/* ---- sort keys ---- */

typedef struct pm_kv_keyenc pm_kv_keyenc;

/* Encoder for batches of `row_type` under layout l (both borrowed for the
 * call only). */
pm_error *pm_kv_keyenc_new(pm_kv_keyenc **out, const pm_kv_layout *l, const pm_type *row_type);
void pm_kv_keyenc_free(pm_kv_keyenc *e);
/* Append the sort key of row `row` of b to out; *key_len = bytes of its
 * key part.  with_seq=false stops after the key part. */
pm_error *pm_kv_keyenc_row(const pm_kv_keyenc *e, const pm_batch *b, int64_t row, bool with_seq,
                           pm_buf *out, uint32_t *key_len);

/* All rows of b at once: keys cleared and filled, off[0..n] row offsets,
 * klen[0..n-1] key-part lengths (off and klen sized n+1 by the caller).
 * Fixed-width keys (no strings) are encoded column by column. */
pm_error *pm_kv_keyenc_batch(const pm_kv_keyenc *e, const pm_batch *b, pm_buf *keys, uint32_t *off,
                             uint32_t *klen);

/* ---- file key bounds ---- */

/* Append the normalized form of a serialized BinaryRow key (4-byte BE
 * arity + row) whose fields have the types of `key_type` (a ROW). */
pm_error *pm_kv_normkey_from_binrow(const pm_type *key_type, const uint8_t *data, size_t len, pm_buf *out);
/* memcmp order with length as tie-break (normalized keys are prefix-free). */
int pm_kv_keycmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* ---- batches ---- */

/* Append cell (src, row) to dst, of the same type.  w = the type's fixed
 * value width (pm_type_value_width), or 0.  Fast path by the documented
 * column layout (column.h): a non-null fixed-width value into a column
 * without nulls so far and with room reserved is one inline memcpy;
 * anything else goes through pm_column_append_from. */
static inline pm_error *pm_kv_copy_cell(pm_column *dst, int w, const pm_column *src, int64_t row)
{
    if (w == 8 && dst->validity.len == 0 && !pm_column_is_null(src, row) && dst->values.cap - dst->values.len >= 8 &&
        src->type->id == dst->type->id) {
        memcpy(dst->values.data + dst->values.len, src->values.data + (size_t)row * 8, 8);
        dst->values.len += 8;
        dst->length++;
        return NULL;
    }
    if (w && dst->validity.len == 0 && !pm_column_is_null(src, row) && dst->values.cap - dst->values.len >= (size_t)w &&
        src->type->id == dst->type->id) {
        memcpy(dst->values.data + dst->values.len, src->values.data + (size_t)row * (size_t)w, (size_t)w);
        dst->values.len += (size_t)w;
        dst->length++;
        return NULL;
    }
    return pm_column_append_from(dst, src, row);
}

/* A new batch sharing b's columns (reference counted, zero copy), so a
 * reader may reuse or drop b while the share stays valid. */
pm_error *pm_kv_batch_share(const pm_batch *b, pm_batch **out);

#endif
