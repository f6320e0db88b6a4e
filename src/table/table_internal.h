/*
 * table/table_internal.h — the pm_table handle as the table layer sees it.
 *
 * A handle pins: the file I/O, the table root and branch root, the latest
 * schema of the branch at open time (`schema`, with its options), the
 * partition row type, the snapshot store and a path factory.  Older schemas
 * (needed to read files written before an ALTER) are loaded on demand into a
 * cache guarded by a mutex, so readers on several threads may share one
 * handle.  pm_table_reload refreshes the latest schema (used by committers
 * that must detect a schema change).  The memo (table_memo.h) holds values
 * computed once for all threads of the handle.
 */
#ifndef PM_TABLE_INTERNAL_H
#define PM_TABLE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buf_pool.h"
#include "io/fileio.h"
#include "meta/options.h"
#include "meta/paths.h"
#include "meta/schema.h"
#include "meta/snapshot_store.h"
#include "paimon/table.h"

struct pm_table {
    pm_fileio *fio;                 /* owned */
    char *path;                     /* table root, no trailing '/' */
    char *branch;                   /* "main" unless opened on a branch */
    char *branch_root;              /* path or path/branch/branch-<name> */
    pm_schema *schema;              /* latest schema at open / reload; owned */
    pm_type *partition_type;        /* ROW of partition fields (may have 0 fields) */
    pm_snapshot_store *snapshots;   /* owned */
    pm_path_factory *paths;         /* owned; manifest names use its uuid */
    pthread_mutex_t cache_mu;
    pm_schema **schema_cache;       /* by id; index = schema id; owned */
    size_t schema_cache_len;
    pm_buf_pool *buffers;           /* owned: spare writer buffers of this handle's writers (base/buf_pool.h) */
    struct pm_table_memo *memo;     /* values shared by the handle's threads (table_memo.h); owned */
};

/* pm_table_schema and pm_table_has_primary_key are public (paimon/table.h). */
static inline const pm_options *pm_table_options(const pm_table *t) { return t->schema->options; }

/* Schema with `id` (the latest one or a cached older one); owned by t and
 * valid while t lives.  PM_ENOTFOUND when the schema file is missing. */
pm_error *pm_table_schema_by_id(pm_table *t, int64_t id, const pm_schema **out);
/* Re-read the latest schema of the branch; *changed tells whether its id moved. */
pm_error *pm_table_reload(pm_table *t, bool *changed);
/* Number of buckets from the `bucket` option (-1 unaware / dynamic, -2 postpone). */
int32_t pm_table_num_buckets(const pm_table *t);

/* An external path (`_EXTERNAL_PATH` of a data, changelog or index file)
 * taken from the table's metadata lies under a root of the table's
 * current `data-file.external-paths`, or of those of schema
 * `read_schema_id` when it differs (the schema a data file is read with;
 * -1: none); else PM_ECORRUPT naming `field` (meta/safe_path.h).  Other
 * schemes than file are PM_EUNSUPPORTED. */
pm_error *pm_table_check_external_path(pm_table *t, int64_t read_schema_id, const char *field, const char *path);
/* The same for an index file's `_EXTERNAL_PATH` (index manifests): a root
 * of data-file.external-paths as above, or the table's current
 * `global-index.external-path` (one root). */
pm_error *pm_table_check_index_external_path(pm_table *t, int64_t read_schema_id, const char *field,
                                             const char *path);
/* The `global-index.external-path` of options o (NULL when unset or
 * blank): an absolute path, `file:` scheme optional, without "." / ".."
 * segments (PM_EINVALID; other schemes PM_EUNSUPPORTED).  *local = its
 * local directory without a trailing '/' (malloc'd), NULL when unset. */
pm_error *pm_table_gi_external_root(const pm_options *o, const char **root, char **local);

#endif
