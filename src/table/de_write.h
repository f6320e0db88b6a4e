/*
 * table/de_write.h — changes by row ID to data-evolution tables: partial-
 * column updates and logical deletes, each prepared from the latest
 * snapshot and committed as one APPEND snapshot.  CONTRACT (de_write.c).
 *
 * Update (pypaimon's update_by_arrow_with_row_id): the rows carry
 * `_ROW_ID` (BIGINT, no nulls, no duplicates) and some columns of the
 * table (not partition keys, not BLOB columns), matched by name with the
 * table's types.  Each row ID must lie in a live row-ID group
 * (table/de_read.h).  For every touched group one new normal file covers
 * the group's whole range with `_WRITE_COLS` = the updated columns: the
 * updated rows take the new values, the others the current ones (read
 * through the group reader).  Its first row ID is the group's; sequence
 * numbers are left 0 for the commit to stamp (it becomes the newest
 * version of those columns).
 * Delete: row IDs (no duplicates needed; already deleted ones are no
 * change) → positions in the deletion vector of their group's anchor
 * (row ID − the group's first row ID); per (partition, bucket) one new DV
 * index file holding every vector of the bucket, the bucket's previous DV
 * index files removed.  Needs `deletion-vectors.enabled=true`.
 * Delete where: the row IDs are those of S's live rows satisfying a
 * filter (table/predicate.h, read through table/table_read.h from the
 * same scan), then deleted as above; none matching is no change.
 * Commit validation, on every attempt: every group an update or delete
 * was prepared against must still be live as it was (same normal file
 * range and anchor), and every DV index file a delete replaces must still
 * be live; otherwise PM_ECONFLICT "… prepare again from the latest
 * snapshot" (nothing is published; the prepared files are deleted).
 * Bad input (unknown columns, row IDs outside every range) is PM_EINVALID
 * before anything is written.
 */
#ifndef PM_TABLE_DE_WRITE_H
#define PM_TABLE_DE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/rolling_file_writer.h"
#include "table/table_internal.h"

/* Options of a writer of one data-evolution file of `type` in `dir` (both
 * borrowed): the table's format (into fmt, fmtlen bytes) and compression,
 * the current schema id, no rolling by size or rows, an APPEND source,
 * `what` naming the file in errors.  Update and materialization files. */
pm_error *pm_de_file_writer_options(pm_rolling_file_writer_options *ro, pm_table *t, const char *dir,
                                    const pm_type *type, const char *what, char *fmt, size_t fmtlen);

typedef struct pm_de_change_result {
    int64_t snapshot_id;  /* 0 = nothing changed */
    bool already_committed;
    int64_t rows;         /* rows updated / newly deleted */
    int64_t files;        /* update files / DV index files written */
} pm_de_change_result;

/* commit_user NULL = random; identifier as pm_table_commit's. */
pm_error *pm_de_update(pm_table *t, const pm_batch *rows, const char *commit_user, int64_t identifier,
                       pm_de_change_result *out);
pm_error *pm_de_delete(pm_table *t, const int64_t *row_ids, size_t n, const char *commit_user, int64_t identifier,
                       pm_de_change_result *out);
pm_error *pm_de_delete_where(pm_table *t, const char *filter, const char *commit_user, int64_t identifier,
                             pm_de_change_result *out);

#endif
