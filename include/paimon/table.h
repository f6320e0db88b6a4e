/*
 * paimon/table.h — opening, creating and altering Paimon tables by path;
 * their schemas and snapshots.
 *
 * A table lives at `<warehouse>/<db>.db/<table>/` (the filesystem catalog
 * layout) but is addressed here by its own path.  pm_table_open loads the
 * latest schema of a branch ("main" by default); the handle is then used by
 * scans and readers (read.h), writers and commits (write.h), the table's
 * file and level views (files.h) and compaction (compact.h).
 *
 * Thread safety: a pm_table may be shared by threads that read through it
 * (scans, readers, compaction tasks).  Its schema cache is internally
 * locked.  Writers and committers are separate objects.  pm_table_alter_options
 * changes the handle's latest schema and must not run while other threads
 * use the handle.
 */
#ifndef PAIMON_TABLE_H
#define PAIMON_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/schema.h"
#include "paimon/snapshot.h"
#include "paimon/types.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_table pm_table;

#define PM_TABLE_SPEC_VERSION 1

/* What a new table looks like.  Initialize with PM_TABLE_SPEC_INIT or
 * pm_table_spec_init; every pointer is borrowed for the call. */
typedef struct pm_table_spec {
    int version;                           /* PM_TABLE_SPEC_VERSION */
    const pm_type *row_type;               /* ROW; field ids are assigned when all are 0 */
    const char *const *partition_keys;
    size_t npartition_keys;
    const char *const *primary_keys;
    size_t nprimary_keys;
    const char *const *option_keys;        /* table options, parallel arrays */
    const char *const *option_values;
    size_t noptions;
    const char *comment;                   /* NULL = none */
} pm_table_spec;

#define PM_TABLE_SPEC_INIT {PM_TABLE_SPEC_VERSION, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, NULL}
PM_API void pm_table_spec_init(pm_table_spec *spec);

/* Open the table at `path` on `branch` (NULL = "main").  PM_ENOTFOUND when
 * there is no table (no schema) at that path or branch. */
PM_API pm_error *pm_table_open(pm_table **out, const char *path, const char *branch);
/* Create a table: validates the spec and every option Paimon defines
 * (types, ranges, enumerated values; unknown keys are kept), then publishes
 * `schema/schema-0` atomically.  PM_EEXIST if a table is already there,
 * unless ignore_if_exists (then the existing table is left as it is).
 * Nothing is left on disk on failure. */
PM_API pm_error *pm_table_create(const char *path, const pm_table_spec *spec, bool ignore_if_exists);
PM_API void pm_table_free(pm_table *t);

/* Table root path; owned by t. */
PM_API const char *pm_table_path(const pm_table *t);
/* Branch name; owned by t. */
PM_API const char *pm_table_branch(const pm_table *t);

/* The latest schema of the branch when the handle was opened (or last
 * altered); owned by t, valid until pm_table_free. */
PM_API const pm_schema *pm_table_schema(const pm_table *t);
/* Schema `schema_id` of the table (older ones are loaded on demand); owned
 * by t, valid until pm_table_free.  PM_ENOTFOUND when it does not exist. */
PM_API pm_error *pm_table_schema_get(const pm_schema **out, pm_table *t, int64_t schema_id);
/* Every schema id of the branch, ascending (malloc'd; release with
 * pm_free). */
PM_API pm_error *pm_table_schema_ids(int64_t **ids, size_t *count, pm_table *t);
/* The value of option `key` in the latest schema, or NULL when unset. */
PM_API const char *pm_table_option(const pm_table *t, const char *key);
/* Whether the table has a primary key. */
PM_API bool pm_table_has_primary_key(const pm_table *t);

/* ALTER TABLE SET / RESET: publish schema N+1 with options `set_keys[i]` =
 * `set_values[i]` and without `reset_keys`, after validating the result as
 * pm_table_create does.  Once the table has a snapshot, Apache Paimon's
 * rules apply (PM_EUNSUPPORTED naming the option): the immutable options
 * (bucket-key, merge-engine, primary-key, partition, rowkind.field,
 * data-file.path-directory, row-tracking.enabled, data-evolution.enabled,
 * index-file-in-data-file-dir, ...) never change; `bucket` cannot change
 * from or to -1 nor be reset; deletion-vectors.enabled changes only with
 * deletion-vectors.modifiable=true; ignore-delete and ignore-update-before
 * cannot go from true to false.  A concurrent schema change makes this
 * PM_ECONFLICT (nothing published).  On success the handle sees the new
 * schema; schemas returned before stay valid.  No changes publish nothing. */
PM_API pm_error *pm_table_alter_options(pm_table *t, const char *const *set_keys, const char *const *set_values,
                                        size_t nset, const char *const *reset_keys, size_t nreset);

/* Snapshot ids of the branch, ascending (malloc'd; release with pm_free);
 * *count = 0 for a table without snapshots. */
PM_API pm_error *pm_table_snapshot_ids(int64_t **ids, size_t *count, pm_table *t);
/* Load snapshot `id` (0 = the latest); the caller owns *out.  For id 0 on a
 * table without snapshots *out is NULL and no error is returned;
 * PM_ENOTFOUND for a given id that does not exist. */
PM_API pm_error *pm_table_snapshot(pm_snapshot **out, pm_table *t, int64_t id);
/* The snapshot committed by `commit_user` with `commit_identifier`, or 0 in
 * *snapshot_id (newest first).  Lets a writer skip work a previous run
 * already published. */
PM_API pm_error *pm_table_find_commit(int64_t *snapshot_id, pm_table *t, const char *commit_user,
                                      int64_t commit_identifier);

#ifdef __cplusplus
}
#endif
#endif
