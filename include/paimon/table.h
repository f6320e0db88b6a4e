/*
 * paimon/table.h — opening and creating Paimon tables by path.
 *
 * A table lives at `<warehouse>/<db>.db/<table>/` (the filesystem catalog
 * layout) but is addressed here by its own path.  pm_table_open loads the
 * latest schema of a branch ("main" by default); the handle is then used by
 * scans, readers, writers, committers and compaction.
 *
 * Thread safety: a pm_table may be shared by threads that read through it
 * (scans, readers, compaction tasks).  Its schema cache is internally
 * locked.  Writers and committers are separate objects.
 */
#ifndef PAIMON_TABLE_H
#define PAIMON_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "paimon/version.h"
#include "paimon/error.h"
#include "paimon/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_table pm_table;

/* What a new table looks like. */
typedef struct pm_table_spec {
    const pm_type *row_type;               /* ROW with field ids */
    const char *const *partition_keys;
    size_t npartition_keys;
    const char *const *primary_keys;
    size_t nprimary_keys;
    const char *const *option_keys;        /* table options, parallel arrays */
    const char *const *option_values;
    size_t noptions;
    const char *comment;                   /* NULL = none */
} pm_table_spec;

/* Open the table at `path` on `branch` (NULL = "main").  PM_ENOTFOUND when
 * there is no table (no schema) at that path or branch. */
PM_API pm_error *pm_table_open(pm_table **out, const char *path, const char *branch);
/* Create a table: validates the spec and options, then publishes
 * `schema/schema-0` atomically.  PM_EEXIST if a table is already there
 * (unless ignore_if_exists).  Nothing is left on disk on failure. */
PM_API pm_error *pm_table_create(const char *path, const pm_table_spec *spec, bool ignore_if_exists);
PM_API void pm_table_free(pm_table *t);

/* Table root path; owned by t. */
PM_API const char *pm_table_path(const pm_table *t);
/* Branch name; owned by t. */
PM_API const char *pm_table_branch(const pm_table *t);

#ifdef __cplusplus
}
#endif
#endif
