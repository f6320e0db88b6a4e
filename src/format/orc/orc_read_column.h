/*
 * format/orc/orc_read_column.h — decoding one stripe's streams of a column
 * tree into pm_columns.
 *
 * A reader per ORC column of the projection, built when a stripe starts:
 * it opens the column's streams (PRESENT and, by type and encoding,
 * DATA / LENGTH / SECONDARY / DICTIONARY_DATA) and its children's.
 * Reading n slots of a column:
 *   1. validity: a slot is valid when its parent slot is (struct members
 *      only; `parent` flags) and the PRESENT stream says so (no stream:
 *      present);
 *   2. the non-null count k of values is decoded from the data streams
 *      and placed at the valid slots (null slots get zero values, empty
 *      strings, empty lists);
 *   3. struct members read the same n slots under the struct's validity;
 *      list elements and map keys/values read sum(lengths) slots.
 * Type conversions (ORC value → Paimon column layout) are decided once,
 * from the output Paimon type, when the reader is built.
 */
#ifndef PM_ORC_READ_COLUMN_H
#define PM_ORC_READ_COLUMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/orc/orc_meta.h"
#include "format/orc/orc_schema.h"
#include "format/orc/orc_stream.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct pm_column pm_column;

/* Where the bytes of (column, kind) are in the loaded stripe; *found =
 * false when the stripe has no such stream. */
typedef pm_error *(*orc_stream_lookup)(void *ctx, uint32_t column, uint32_t kind, const uint8_t **p, size_t *n,
                                       bool *found);

typedef struct orc_read_ctx {
    const orc_codec *codec;
    orc_stream_lookup lookup;
    void *lookup_ctx;
    const orc_encoding *encodings;     /* by column id */
    uint32_t nencodings;
    const struct orc_tz *writer_tz;    /* the stripe's writer time zone (timestamp columns) */
    int64_t writer_base;               /* 2015-01-01 00:00:00 in that zone, as epoch seconds */
    size_t max_value_bytes;
    size_t max_elements;               /* list/map elements per read */
} orc_read_ctx;

typedef struct orc_col_reader orc_col_reader;

/* Reader of `col` producing Paimon type `type` (checked by orc_schema_check_read). */
pm_error *orc_col_reader_new(orc_col_reader **out, const orc_col *col, const pm_type *type, const orc_read_ctx *ctx);
void orc_col_reader_free(orc_col_reader *r);
/* Append n slots to `out` (a column of the reader's type). */
pm_error *orc_col_reader_read(orc_col_reader *r, size_t n, const uint8_t *parent, pm_column *out);

/* Epoch seconds of 2015-01-01 00:00:00 UTC, ORC's timestamp base. */
#define ORC_TIMESTAMP_BASE 1420070400LL

#endif
