/*
 * table/table_read.h — read a scanned table state as batches.  CONTRACT
 * (table_read.c).
 *
 * Append tables: every file of every selected bucket, in order, through
 * pm_file_reader, deletion vectors applied.  Primary-key tables: each
 * bucket through table/pk_read.h (merge-on-read of overlapping sorted runs
 * with the table's merge engine, raw reads where no merge is needed, level
 * 0 skipped for DV and first-row tables as Java's batch scan does, retracts
 * dropped).  Row-tracking tables (and data-evolution tables, which need
 * row tracking) are read group by group through table/de_read.h: files
 * sharing a row-ID range merged column by column (newest version of each
 * field first, blob files as their columns), the anchor's deletion vector
 * applied to the group, `_ROW_ID` / `_SEQUENCE_NUMBER` readable by name.
 * Rows are read in the scan's schema (scan->schema: the latest, or the
 * snapshot's for time travel); buckets of a fallback branch are read with
 * the same columns by position in its schema.
 */
#ifndef PM_TABLE_TABLE_READ_H
#define PM_TABLE_TABLE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/scan.h"

typedef struct pm_table_reader pm_table_reader;

typedef struct pm_table_read_options {
    const char *const *columns; /* projection by name; NULL = all columns */
    size_t ncolumns;
    int64_t batch_rows;         /* 0 = 4096 */
} pm_table_read_options;

/* `scan` is borrowed and must outlive the reader. */
pm_error *pm_table_reader_new(pm_table_reader **out, pm_table *t, const pm_scan_result *scan,
                              const pm_table_read_options *o);
/* Decoding threads (default 1: the caller's thread only).  With more, up
 * to `threads` data files of append buckets are read ahead in parallel on
 * a private pool; batches still come out in the same order.  Call before
 * the first pm_table_reader_next. */
void pm_table_reader_set_threads(pm_table_reader *r, size_t threads);
/* Row type of the batches (owned by the reader). */
const pm_type *pm_table_reader_type(const pm_table_reader *r);
/* *out = NULL at the end. */
pm_error *pm_table_reader_next(pm_table_reader *r, const pm_batch **out);
void pm_table_reader_free(pm_table_reader *r);

#endif
