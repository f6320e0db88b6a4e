/*
 * table/incremental.h — incremental reads: the changes of the snapshots
 * (A, B] of a table as rows with their row kinds (Java's
 * `incremental-between` with `incremental-between-scan-mode`).
 *
 * Scan (pm_incremental_scan), per snapshot id in A+1 .. B:
 *   delta      APPEND snapshots: the files their delta manifests add
 *              (COMPACT and OVERWRITE snapshots are skipped);
 *   changelog  every snapshot but OVERWRITE: the files of its changelog
 *              manifests (changelog-producer input, lookup or
 *              full-compaction);
 *   auto       changelog when the table has a changelog producer, else
 *              delta (Java's AUTO).
 * Entries must all be ADD (a delta that deletes files is PM_EUNSUPPORTED);
 * partition filters apply; the files are grouped by (partition, bucket) in
 * snapshot order.  A = B gives nothing; A must be >= earliest - 1 and B
 * <= latest (PM_EINVALID otherwise).  Rows are read in the table's
 * current schema, deletion vectors are not applied (Java passes none for
 * incremental splits), and the fallback branch is not consulted.
 *
 * Read (pm_incr_reader): every file on its own, no merge (Java's
 * IncrementalSplit / no-merge reader): every record with its kind, as the
 * requested columns plus `_ROW_KIND` STRING ("+I", "-U", "+U", "-D"; "+I"
 * for rows of append tables).  `_ROW_KIND` may be named in the projection
 * to place it; otherwise it is the last column.
 */
#ifndef PM_TABLE_INCREMENTAL_H
#define PM_TABLE_INCREMENTAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table/scan.h"

typedef enum pm_incr_mode {
    PM_INCR_AUTO = 0,
    PM_INCR_DELTA = 1,
    PM_INCR_CHANGELOG = 2
} pm_incr_mode;

/* "auto", "delta", "changelog" */
const char *pm_incr_mode_name(pm_incr_mode m);
/* AUTO resolved for table t (changelog-producer none → delta). */
pm_error *pm_incr_mode_resolve(pm_table *t, pm_incr_mode m, pm_incr_mode *out);

/* *out->snapshot is snapshot B (NULL when A = B or the table has none);
 * out->schema the table's current schema. */
pm_error *pm_incremental_scan(pm_table *t, int64_t from, int64_t to, pm_incr_mode mode,
                              const pm_partition_spec *specs, size_t nspecs, pm_scan_result **out);

typedef struct pm_incr_reader pm_incr_reader;

/* scan (borrowed, must outlive the reader): buckets of an incremental
 * scan of t; columns NULL = every field (then `_ROW_KIND`). */
pm_error *pm_incr_reader_new(pm_incr_reader **out, pm_table *t, const pm_scan_result *scan,
                             const char *const *columns, size_t ncolumns, int64_t batch_rows);
const pm_type *pm_incr_reader_type(const pm_incr_reader *r);
/* Next batch (owned by the reader, valid until the next call); NULL at the end. */
pm_error *pm_incr_reader_next(pm_incr_reader *r, const pm_batch **out);
void pm_incr_reader_free(pm_incr_reader *r);

#endif
