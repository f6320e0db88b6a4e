/*
 * table/write_input.h — text rows for table writes: JSON lines and CSV
 * turned into batches of the table's columns, streaming from any byte
 * source (a file, stdin, memory), never holding more than one batch.
 *
 * JSON lines: one object per line in the `paimon cat` encoding
 * (types/value.h pm_batch_from_json_lines); blank lines are skipped; the
 * input is cut into blocks of at most batch_rows lines (or 32 MiB) and
 * error messages give the line number within the whole input.
 *
 * CSV (RFC 4180): records end at a line break outside quotes (LF or CRLF);
 * cells are separated by ','; a cell starting with '"' is quoted, '""'
 * inside stands for '"', and nothing but ',' or the record end may follow
 * its closing quote; quotes inside an unquoted cell are errors.  The first
 * record is the header: column names that must be table fields (each at
 * most once); table fields missing from it are left to the writer (null,
 * or an error for NOT NULL fields).  An empty unquoted cell is null, an
 * empty quoted cell ("") an empty string; other cells are parsed with
 * pm_column_append_text.  A record with a different number of cells than
 * the header is an error naming its line; an empty line is skipped.
 * Errors are PM_EINVALID naming the line and column.
 */
#ifndef PM_TABLE_WRITE_INPUT_H
#define PM_TABLE_WRITE_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/rows.h"
#include "paimon/types.h"

/* Byte source (pm_read_fn of paimon/rows.h): fill buf with up to cap bytes, *n = 0 at the end. */
typedef pm_read_fn pm_byte_source;

typedef struct pm_text_rows pm_text_rows;

typedef enum { PM_TEXT_JSONL, PM_TEXT_CSV } pm_text_format;

/* Rows of `row_type` (the table's ROW type, borrowed) from a byte source.
 * batch_rows <= 0 means 65,536. */
pm_error *pm_text_rows_new(pm_text_rows **out, pm_text_format fmt, const pm_type *row_type,
                           pm_byte_source src, void *ctx, int64_t batch_rows);
/* Next batch (owned by the reader, valid until the next call); *out = NULL
 * at the end.  JSON batches have the table's columns; CSV batches the
 * header's columns. */
pm_error *pm_text_rows_next(pm_text_rows *r, pm_batch **out);
void pm_text_rows_free(pm_text_rows *r);

/* A byte source over memory: pm_mem_source / pm_mem_source_read of
 * paimon/rows.h (for tests and fuzzing too). */

#endif
