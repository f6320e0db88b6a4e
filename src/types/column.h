/*
 * types/column.h — the in-memory column: Arrow-layout buffers for one typed
 * vector of values, and the pm_batch that groups columns into rows.
 *
 * Physical layout per Paimon type (Arrow-compatible, little-endian):
 *   BOOLEAN                 values = bitmap, bit i = value of row i
 *   TINYINT/SMALLINT        values = int8 / int16
 *   INT, DATE, TIME         values = int32 (DATE days since epoch, TIME millis of day)
 *   BIGINT                  values = int64
 *   FLOAT / DOUBLE          values = IEEE float / double
 *   DECIMAL(p,s)            values = 16-byte little-endian two's-complement unscaled (Arrow decimal128)
 *   TIMESTAMP(p), LTZ(p)    values = int64 since epoch in ms (p<=3), us (p<=6) or ns (p<=9)
 *   CHAR/VARCHAR/BINARY/VARBINARY/BLOB
 *                           offsets = int32[length+1], data = bytes
 *   ARRAY, MULTISET(as MAP) offsets = int32[length+1] into children[0]
 *   MAP                     offsets = int32[length+1] into children[0] (keys) and children[1] (values)
 *   ROW                     children[i] = field i, each of `length` rows
 * Dictionary-encoded CHAR/VARCHAR (`dictionary` != NULL): `values` holds
 * one int32 id per row into `dictionary` (a column of the same type without
 * nulls, shared by reference); offsets and data are unused.  Only a reader
 * asked for it produces such a column (the Parquet reader's dict_columns,
 * for compaction's dictionary passthrough); pm_column_bytes,
 * pm_column_append_from / _gather and the Parquet writer take it, code that
 * reads offsets directly must be handed plain columns (pm_column_decode).
 * Validity: `validity` is a bitmap (bit set = valid).  It may be empty
 * (validity.len == 0) only while null_count == 0.  A null ARRAY/MAP entry
 * still has offsets[i+1] == offsets[i]; a null ROW entry still has one
 * (null) row in every child.
 *
 * Ownership: a column owns its buffers and children and is reference
 * counted (pm_column_retain/release) so Arrow exports can outlive the
 * batch.  A column imported without copying borrows its buffers from an
 * owner (see `owner` below; base/buf.h: borrowed bytes are copied before
 * any write).  A column is written by one thread at a time.
 */
#ifndef PM_TYPES_COLUMN_H
#define PM_TYPES_COLUMN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "paimon/batch.h"
#include "paimon/types.h"

typedef struct pm_column pm_column;

struct pm_column {
    pm_type *type;       /* owned */
    int64_t length;      /* rows */
    int64_t null_count;
    pm_buf validity;     /* bitmap, see above */
    pm_buf values;       /* fixed-width values or BOOLEAN bitmap */
    pm_buf offsets;      /* int32 offsets (length+1 once any row is appended) */
    pm_buf data;         /* variable-width bytes */
    size_t nchildren;
    pm_column **children;
    pm_column *dictionary; /* dictionary-encoded CHAR/VARCHAR (see above), one reference; else NULL */
    atomic_int refs;
    /* Zero-copy imports: the buffers are borrowed (pm_buf cap 0) from
     * memory `owner` keeps alive; owner_release(owner) runs when the
     * column is destroyed.  NULL for columns that own their buffers. */
    void (*owner_release)(void *owner);
    void *owner;
};

struct pm_batch {
    pm_type *type;       /* ROW type, owned */
    int64_t num_rows;
    size_t ncolumns;
    pm_column **columns; /* one per field of `type`, each holds one reference */
    /* pm_batch_keep_spares: per column `nspares` slots (column i's at
     * spares[i * nspares]), each NULL or one reference on a column this
     * batch handed out before; a slot whose column nobody else holds any
     * more is taken back by pm_batch_reset with its buffers. */
    size_t nspares;
    pm_column **spares;
    uint64_t columns_fresh; /* columns pm_batch_reset allocated (a held column, no spare free) */
    uint64_t columns_reused; /* columns pm_batch_reset took back from a spare slot */
};

/* Bytes per value in `values` for fixed-width types; 0 for BOOLEAN (bits),
 * variable-width and nested types. */
int pm_type_value_width(const pm_type *t);
/* True for CHAR/VARCHAR/BINARY/VARBINARY/BLOB. */
bool pm_type_is_varlen(const pm_type *t);
/* Time unit of a TIMESTAMP(_LTZ) column: 1000 (ms), 1000000 (us) or 1000000000 (ns) per second. */
int64_t pm_timestamp_units_per_second(int32_t precision);

/* New empty column (type cloned) with one reference. */
pm_error *pm_column_new(pm_column **out, const pm_type *type);
pm_column *pm_column_retain(pm_column *c);
void pm_column_release(pm_column *c);
/* Length 0, buffers kept (recursively). Only when the caller holds the sole reference. */
void pm_column_reset(pm_column *c);
/* Pre-size buffers for `rows` more rows (var data not included). */
pm_error *pm_column_reserve(pm_column *c, int64_t rows);

/* Builders: each appends one row. */
pm_error *pm_column_append_null(pm_column *c);   /* ROW: null rows appended to children too */
pm_error *pm_column_append_bool(pm_column *c, bool v);
pm_error *pm_column_append_i8(pm_column *c, int8_t v);
pm_error *pm_column_append_i16(pm_column *c, int16_t v);
pm_error *pm_column_append_i32(pm_column *c, int32_t v);
pm_error *pm_column_append_i64(pm_column *c, int64_t v);
pm_error *pm_column_append_f32(pm_column *c, float v);
pm_error *pm_column_append_f64(pm_column *c, double v);
pm_error *pm_column_append_decimal(pm_column *c, __int128 unscaled);
pm_error *pm_column_append_bytes(pm_column *c, const void *p, size_t n);
/* ARRAY/MAP/MULTISET: append the elements to the children first, then close
 * the entry (offset = current child length).  ROW: append one value to
 * every child first, then mark the row valid. */
pm_error *pm_column_end_nested(pm_column *c);
/* Copy row `row` of `src` (same type) to the end of `dst`, children included. */
pm_error *pm_column_append_from(pm_column *dst, const pm_column *src, int64_t row);
/* Copy n cells to the end of `dst`: cell i is row rows[i] of srcs[which[i]]
 * (all of dst's type); consecutive rows of one source are copied as runs
 * (pm_column_append_runs). */
pm_error *pm_column_append_gather(pm_column *dst, const pm_column *const *srcs, const uint16_t *which,
                                  const int64_t *rows, int64_t n);
/* Rows [row, row + n) of srcs[src]. */
typedef struct pm_column_run {
    int64_t row;
    uint32_t n;
    uint16_t src;
} pm_column_run;
/* Append the rows of every run, in order, to the end of `dst` (sources of
 * dst's type, rows in range): per run one memcpy of fixed-width values, of
 * variable-width bytes (offsets rebased) and a bit-range copy of validity
 * and BOOLEAN values; no validity bitmap is created unless a copied row is
 * null.  Nested types and dictionary-encoded sources go row by row. */
pm_error *pm_column_append_runs(pm_column *dst, const pm_column *const *srcs, const pm_column_run *runs,
                                size_t nruns);
/* Whether rows [0, n) of a and b (n <= both lengths) hold the same values
 * and nulls in the same physical form: same type, fixed-width values
 * (BOOLEAN bits) or variable-width bytes with the same offsets, and the
 * same validity bits.  Conservative: false for nested and
 * dictionary-encoded columns, and when only one of them has nulls. */
bool pm_column_same_values(const pm_column *a, const pm_column *b, int64_t n);

/* Readers (no bounds checks beyond debug asserts; row < length). */
static inline bool pm_column_is_null(const pm_column *c, int64_t i)
{
    return c->null_count && !((c->validity.data[i >> 3] >> (i & 7)) & 1);
}
static inline bool pm_column_bool(const pm_column *c, int64_t i)
{
    return (c->values.data[i >> 3] >> (i & 7)) & 1;
}
static inline int8_t pm_column_i8(const pm_column *c, int64_t i) { return ((const int8_t *)c->values.data)[i]; }
static inline int16_t pm_column_i16(const pm_column *c, int64_t i) { return ((const int16_t *)(const void *)c->values.data)[i]; }
static inline int32_t pm_column_i32(const pm_column *c, int64_t i) { return ((const int32_t *)(const void *)c->values.data)[i]; }
static inline int64_t pm_column_i64(const pm_column *c, int64_t i) { return ((const int64_t *)(const void *)c->values.data)[i]; }
static inline float pm_column_f32(const pm_column *c, int64_t i) { return ((const float *)(const void *)c->values.data)[i]; }
static inline double pm_column_f64(const pm_column *c, int64_t i) { return ((const double *)(const void *)c->values.data)[i]; }
static inline __int128 pm_column_decimal(const pm_column *c, int64_t i)
{
    __int128 v;
    memcpy(&v, c->values.data + 16 * i, 16);
    return v;
}
static inline const int32_t *pm_column_offsets(const pm_column *c) { return (const int32_t *)(const void *)c->offsets.data; }
/* Var-width value: pointer into data (a dictionary-encoded column's:
 * into its dictionary's) and its length. */
static inline const uint8_t *pm_column_bytes(const pm_column *c, int64_t i, size_t *len)
{
    if (c->dictionary) {
        i = ((const int32_t *)(const void *)c->values.data)[i];
        c = c->dictionary;
    }
    const int32_t *o = pm_column_offsets(c);
    *len = (size_t)(o[i + 1] - o[i]);
    /* Only empty values were appended: data was never allocated. */
    return c->data.data ? c->data.data + o[i] : (const uint8_t *)"";
}

/* A plain copy of a dictionary-encoded column (*out has one reference;
 * for a plain column *out is c retained). */
pm_error *pm_column_decode(pm_column **out, pm_column *c);

/* Batch helpers. */
/* Drop all rows (columns reset; a column still referenced elsewhere, e.g.
 * by an export or a consumer that keeps the last batch's columns, is
 * replaced: by a spare no one holds any more (pm_batch_keep_spares), else
 * by a fresh one). */
pm_error *pm_batch_reset(pm_batch *b);
/* Let pm_batch_reset keep up to `per_column` replaced columns per column
 * and take them back, buffers and all, once their other holders released
 * them: a reader whose consumer holds each batch's columns for a while
 * then allocates (and faults in) no new buffers per batch.  The spares
 * cost at most `per_column` batches of memory beyond what the holders
 * keep.  Call on a batch without rows; 0 = none (the default). */
pm_error *pm_batch_keep_spares(pm_batch *b, size_t per_column);
/* Set num_rows after filling columns directly; checks every column has it. */
pm_error *pm_batch_finish(pm_batch *b, int64_t num_rows);
static inline pm_column *pm_batch_column(const pm_batch *b, size_t i) { return b->columns[i]; }

/* Append the JSON text of row `row` of `c` to out, using the value encoding
 * of `paimon cat` (see docs/cli.md): numbers, NaN/Infinity as strings,
 * base64 bytes, decimal strings with exactly `scale` digits, ISO dates and
 * times, arrays, maps as [{"key":..,"value":..}], rows as objects. */
pm_error *pm_column_format_json(const pm_column *c, int64_t row, pm_buf *out);
/* Append one whole batch row as a JSON object {"field": value, ...}. */
pm_error *pm_batch_format_row_json(const pm_batch *b, int64_t row, pm_buf *out);
/* Rows [from, to) of the batch, each as pm_batch_format_row_json gives it
 * followed by '\n' (JSON lines); faster for many rows. */
pm_error *pm_batch_format_rows_json(const pm_batch *b, int64_t from, int64_t to, pm_buf *out);

#endif
