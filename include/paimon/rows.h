/*
 * paimon/rows.h — rows as text: JSON lines and CSV, in both directions,
 * streaming (never more than one batch in memory).
 *
 * JSON lines: one object per line, keys = column names, values in the
 * `paimon cat` encoding: BOOLEAN true/false; integers as numbers;
 * FLOAT/DOUBLE as the shortest numbers that read back ("NaN", "Infinity",
 * "-Infinity" as strings); CHAR/VARCHAR strings; BINARY/VARBINARY base64
 * strings; DECIMAL strings with exactly `scale` fraction digits ("-0.50");
 * DATE "2024-01-01"; TIME "12:00:00.123"; TIMESTAMP(p)
 * "2024-01-01T12:00:00.123456" with p fraction digits (LTZ in UTC with a
 * trailing 'Z'); ARRAY arrays; MAP and MULTISET arrays of {"key", "value"}
 * objects; ROW objects by field name.  Input also takes plain numbers for
 * decimals, strings for numbers and booleans, a space instead of 'T', an
 * object {"k": v} for a MAP and an array for a ROW.  Missing keys are null,
 * unknown keys an error; blank lines are skipped.
 * CSV (RFC 4180): a header row of column names, then one record per line
 * (LF or CRLF); a cell starting with '"' is quoted ('""' inside is a
 * quote); an empty unquoted cell is null, "" an empty string; atomic cells
 * use the JSON text above without quotes; nested cells are JSON.
 * Errors name the line and the column (PM_EINVALID).
 */
#ifndef PAIMON_ROWS_H
#define PAIMON_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_rows_format {
    PM_ROWS_JSONL = 0,
    PM_ROWS_CSV = 1
} pm_rows_format;

/* A byte source: fill buf with up to cap bytes and set *n (0 = the end). */
typedef pm_error *(*pm_read_fn)(void *ctx, void *buf, size_t cap, size_t *n);
/* A byte sink: take all n bytes or fail. */
typedef pm_error *(*pm_write_fn)(void *ctx, const void *data, size_t n);

/* Parse "jsonl"/"json" or "csv". */
PM_API pm_error *pm_rows_format_parse(pm_rows_format *out, const char *name);

/* ---- text → batches ---- */

typedef struct pm_rows_reader pm_rows_reader;

/* Rows of `row_type` (a ROW, copied) read from src in batches of at most
 * batch_rows rows (0 = 65,536).  Unknown columns are errors; CSV batches
 * hold the header's columns, JSON batches every column of row_type. */
PM_API pm_error *pm_rows_reader_new(pm_rows_reader **out, pm_rows_format fmt, const pm_type *row_type,
                                    pm_read_fn src, void *ctx, int64_t batch_rows);
/* Next batch (owned by the reader, valid until the next call); NULL at the end. */
PM_API pm_error *pm_rows_reader_next(const pm_batch **out, pm_rows_reader *r);
PM_API void pm_rows_reader_free(pm_rows_reader *r);

/* A byte source over memory: ctx is a pm_mem_source. */
typedef struct pm_mem_source {
    const void *data;
    size_t len;
    size_t pos;     /* bytes handed out so far */
    size_t chunk;   /* at most this many bytes per call; 0 = no limit */
} pm_mem_source;
PM_API pm_error *pm_mem_source_read(void *ctx, void *buf, size_t cap, size_t *n);

/* ---- batches → text ---- */

typedef struct pm_rows_writer pm_rows_writer;

/* Text of rows of `row_type` (copied) to sink; CSV writes the header
 * first.  Output is buffered: call pm_rows_writer_finish at the end. */
PM_API pm_error *pm_rows_writer_new(pm_rows_writer **out, pm_rows_format fmt, const pm_type *row_type,
                                    pm_write_fn sink, void *ctx);
/* Rows [from, to) of b (its columns must have the writer's names and
 * types; field ids and nullability may differ). */
PM_API pm_error *pm_rows_writer_write(pm_rows_writer *w, const pm_batch *b, int64_t from, int64_t to);
/* Flush what is buffered. */
PM_API pm_error *pm_rows_writer_finish(pm_rows_writer *w);
PM_API void pm_rows_writer_free(pm_rows_writer *w);

#ifdef __cplusplus
}
#endif
#endif
