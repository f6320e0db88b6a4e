/*
 * compact/global_index_maint.h — maintenance of declared global indexes
 * (index/global_index_decl.h) of append and data-evolution tables (row
 * tracking, no primary key, bucket -1): the missing row-ID coverage of
 * each declared column is built as new btree / bitmap payloads
 * (index/global_index_file.h) and published as one APPEND snapshot that
 * only changes the index manifest.
 *
 * One round:
 *  1. capture the latest schema and snapshot; per partition, the data's
 *     row-ID stretches (files' [firstRowId, firstRowId + rowCount - 1],
 *     touching ranges merged);
 *  2. per declared column, its entries of the partition (same field id):
 *     retired in the round's snapshot when their family differs (an
 *     incompatible definition), they were built while the column had
 *     another type (table/global_index_epoch.h), their range is no longer
 *     inside one data
 *     stretch (removed rows) or crosses a multiple of the column's
 *     row-count-per-shard (a shard-boundary change); the rest are kept
 *     and form the coverage; missing = stretches − coverage, cut at shard
 *     boundaries;
 *  3. runs: each distinct kept range (all its payload files) and each
 *     missing piece; runs of one shard touching each other form a group
 *     (holes separate groups); within a group, newest (highest row ids)
 *     first and sized by logical row counts, the universal run selection
 *     of primary-key compaction (lsm/universal.h: size amplification,
 *     size ratio, run count; global-index.num-sorted-run.compaction-
 *     trigger, global-index.compaction.size-ratio,
 *     global-index.compaction.max-size-amplification-percent, per column
 *     from its index-options) picks runs to consolidate; a unit of fewer
 *     than two runs is never taken, so below the trigger ranges stay
 *     separate files;
 *  4. the selected runs of a group are rebuilt as one range from current
 *     data (their payloads retired), every other missing piece on its
 *     own: values of field + _ROW_ID read through table/de_read.h in
 *     row-id order (a row id no file yields reads as null), built into
 *     payload files `<type>-global-index-<uuid>.index` in `<table>/index/`
 *     whose entries carry the range, the field id, the row count and the
 *     btree meta;
 *  5. commit (APPEND, commit user / identifier of the options; additions
 *     and retirements in one snapshot): on every attempt the validate hook
 *     refuses (conflict) when the schema changed, a data file the round
 *     read is no longer live, a live data file the round did not read
 *     writes the column in rows of a built range (a column update
 *     committed meanwhile: the payload would be stale), or a live entry of
 *     the same field and partition that the round does not retire now
 *     overlaps a built range;
 *     a conflict discards the round's files and replans, up to
 *     commit.max-retries rounds; an empty plan publishes nothing.
 * `global-index.external-path` is PM_EUNSUPPORTED.
 */
#ifndef PM_COMPACT_GLOBAL_INDEX_MAINT_H
#define PM_COMPACT_GLOBAL_INDEX_MAINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/table.h"

typedef struct pm_gi_maint_options {
    const char *column;          /* NULL = every declared column */
    const char *commit_user;     /* NULL = a random one */
    int64_t commit_identifier;   /* with commit_user: idempotent retries */
    int64_t since_snapshot_id;   /* idempotency search starts after this id */
} pm_gi_maint_options;

typedef struct pm_gi_maint_result {
    int64_t snapshot_id;         /* 0 = nothing published */
    int64_t files_added;
    int64_t files_removed;
    int64_t rows_indexed;        /* rows of the built ranges, summed over columns */
    int64_t ranges_built;
} pm_gi_maint_result;

/* Has the table any declaration?  (errors: the resolver's) */
pm_error *pm_gi_maint_declared(pm_table *t, bool *declared);
/* One maintenance round (see top). */
pm_error *pm_gi_maintain(pm_table *t, const pm_gi_maint_options *o, pm_gi_maint_result *out);

#endif
