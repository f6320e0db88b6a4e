/*
 * compact/pk/pk_global_index.h — source-backed global indexes of
 * primary-key tables, maintained by data compaction (the seed's
 * "Primary-key compaction"; payload layout and source metadata in
 * index/pk_index_source.h, payload bytes in index/global_index_file.h).
 *
 * Maintenance (pm_pk_gi_maintain, at the end of a task, before anything
 * is published): with declarations (index/global_index_decl.h: btree and
 * bitmap columns), the bucket's file set after the task is the captured
 * snapshot's bucket minus the result's before plus its after.  For every
 * declared column and every positive level that has files or a payload:
 *   - exactly one payload of the column's family for that level whose
 *     source equals the level's files (sorted by name, row counts), all
 *     holding the column with its declared type → retained (nothing in
 *     the result);
 *   - otherwise every payload of the column at that level is removed
 *     (index_removed) and, when the level has files, one new payload over
 *     them is built (index_added, `index-<uuid>-<n>` in the index
 *     directory): the column's values of each file in name order, every
 *     physical row (retracts and deleted positions included, nulls kept),
 *     one payload file for the whole level.
 * Level 0 is never indexed.  Both automatic and explicit compaction run
 * it; `write-only` does not apply (explicit compaction maintains indexes).
 * A bucket that no task compacts keeps its payloads as they are.
 * Memory: one level's indexed column at a time.  Source metadata that
 * does not decode is an error naming the index file (never skipped).
 *
 * Commit (pm_pk_gi_validate, from pk_commit.c on every attempt, against
 * the latest snapshot): after applying the bucket's results, every added
 * payload's source must equal its level's live files and no other live
 * payload of that column may remain at that level; else PM_ECONFLICT
 * ("replan").
 */
#ifndef PM_COMPACT_PK_PK_GLOBAL_INDEX_H
#define PM_COMPACT_PK_PK_GLOBAL_INDEX_H

#include <stddef.h>

#include "compact/compact_internal.h"
#include "table/scan.h"

struct pm_pk_exec;

/* Maintain the indexes of x's bucket (see top): entries join x->r's
 * index_added / index_removed; files written before an error are in
 * index_added (the executor deletes them). */
pm_error *pm_pk_gi_maintain(struct pm_pk_exec *x);

/* The results r[first..n) of live bucket bf (those of other buckets are
 * skipped). */
pm_error *pm_pk_gi_validate(pm_compact_result *const *r, size_t n, size_t first, const pm_bucket_files *bf);

#endif
