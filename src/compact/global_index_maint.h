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
 *  2. per declared column, the coverage = ranges of the partition's
 *     global index entries of that field and family; entries of the field
 *     with another family (an incompatible definition) are retired in the
 *     same snapshot; missing = stretches − coverage, cut at multiples of the
 *     column's row-count-per-shard (row-ID shards);
 *  3. each missing range is read (field + _ROW_ID through table/de_read.h,
 *     rows in row-ID order; a row id no file yields reads as null) and
 *     built into payload files `<type>-global-index-<uuid>.index` in
 *     `<table>/index/`; entries carry the range, the field id, the row count
 *     and the btree meta;
 *  4. commit (APPEND, commit user / identifier of the options): on every
 *     attempt the validate hook refuses (conflict) when a data file the
 *     round read is no longer live or a live entry of the same field and
 *     partition now overlaps a built range; a conflict or a schema change
 *     discards the round's files and replans, up to commit.max-retries
 *     rounds; an empty plan publishes nothing.
 * Consolidation of adjacent index runs, and the global-index.external-path
 * option, are PM_EUNSUPPORTED when they would apply (external path: always;
 * consolidation: never selected, existing payloads are kept).
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
