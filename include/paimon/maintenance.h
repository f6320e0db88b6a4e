/*
 * paimon/maintenance.h — keeping a table's disk use bounded: snapshot
 * expiration and orphan-file removal, with Apache Paimon's semantics.
 *
 * Snapshot expiration (pm_table_expire_snapshots), on the table's branch:
 *   options snapshot.num-retained.min (default 10), .max (default
 *   unbounded), snapshot.time-retained (default 1 h), snapshot.expire.limit
 *   (default 10 per run), each overridable per call.  With latest L and
 *   earliest E:
 *     from  = max(L - max + 1, E)
 *     until = min(L - min + 1, the lowest nextSnapshot of a consumer
 *             (consumer/consumer-*), E + limit)
 *     the first snapshot in [from, until) committed within time-retained
 *     lowers until to itself;
 *     snapshots [E, until) expire (at least min are always kept).
 *   A file is deleted only when no retained snapshot, no tag
 *   (tag/tag-*: a tag keeps every file of its snapshot) and no snapshot of
 *   another branch references it: data files (and their extra files),
 *   changelog files, manifests, manifest lists, index manifests, index
 *   files, statistics files.  Order: the expired snapshot files (oldest
 *   first), the EARLIEST hint, then the unreferenced files, so a crash
 *   leaves at most unreferenced files behind (orphans, removed below).
 *   Everything is read before anything is deleted: a metadata file that
 *   cannot be read deletes nothing.  Decoupled changelog lifecycles
 *   (changelog.num-retained.*, changelog.time-retained) are
 *   PM_EUNSUPPORTED.
 *
 * Orphan-file removal (pm_table_remove_orphan_files): files in the
 * table's manifest/, index/, statistics/ directories and in its data
 * directories (partition directories "k=v", bucket directories
 * "bucket-N"), and the global index files (`<type>-global-index-*.index`)
 * directly under its `global-index.external-path` (such a root belongs to
 * one table), that no snapshot, tag or branch references, that are not
 * named in o->keep (the files in-flight jobs will commit) and that were
 * last modified more than older_than ago (default 1 day), are deleted.
 * Other files (schema/, snapshot/, tag/, consumer/, branch/, anything the
 * rules do not name) are never touched.
 *
 * Options and results are versioned structs: initialize with their _INIT
 * macro.  Results own what they hold until their *_clear.
 */
#ifndef PAIMON_MAINTENANCE_H
#define PAIMON_MAINTENANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/table.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PM_EXPIRE_OPTIONS_VERSION 1
#define PM_EXPIRE_RESULT_VERSION 1
#define PM_ORPHAN_OPTIONS_VERSION 1
#define PM_ORPHAN_RESULT_VERSION 1

typedef struct pm_expire_options {
    int version;                  /* PM_EXPIRE_OPTIONS_VERSION */
    int32_t retain_min;           /* > 0 overrides snapshot.num-retained.min */
    int32_t retain_max;           /* > 0 overrides snapshot.num-retained.max */
    bool has_time_retained;       /* overrides snapshot.time-retained */
    int64_t time_retained_ms;     /* >= 0 */
    int32_t max_deletes;          /* > 0 overrides snapshot.expire.limit */
    bool dry_run;                 /* report, delete nothing */
    int64_t now_ms;               /* 0 = the clock (epoch millis) */
} pm_expire_options;

#define PM_EXPIRE_OPTIONS_INIT {.version = PM_EXPIRE_OPTIONS_VERSION}
PM_API void pm_expire_options_init(pm_expire_options *o);

typedef struct pm_expire_result {
    int version;                  /* PM_EXPIRE_RESULT_VERSION, set by the caller */
    int64_t earliest_before;      /* 0 = the table had no snapshot */
    int64_t earliest_after;
    int64_t latest;
    int64_t snapshots_expired;
    int64_t data_files_deleted;   /* with their extra files */
    int64_t changelog_files_deleted;
    int64_t manifest_files_deleted; /* manifests, manifest lists, index manifests */
    int64_t index_files_deleted;
    int64_t statistics_files_deleted;
    int64_t bytes_deleted;
} pm_expire_result;

#define PM_EXPIRE_RESULT_INIT {.version = PM_EXPIRE_RESULT_VERSION}

/* Expire snapshots of t as above; *out (may be NULL) gets what was done.
 * PM_EINVALID for bad options (min > max, an unknown version). */
PM_API pm_error *pm_table_expire_snapshots(pm_expire_result *out, pm_table *t, const pm_expire_options *o);

typedef struct pm_orphan_options {
    int version;                  /* PM_ORPHAN_OPTIONS_VERSION */
    bool has_older_than;
    int64_t older_than_ms;        /* >= 0; default 1 day */
    bool dry_run;                 /* list, delete nothing */
    int64_t now_ms;               /* 0 = the clock (epoch millis) */
    const char *const *keep;      /* file names (last path segment) never deleted */
    size_t nkeep;
} pm_orphan_options;

#define PM_ORPHAN_OPTIONS_INIT {.version = PM_ORPHAN_OPTIONS_VERSION}
PM_API void pm_orphan_options_init(pm_orphan_options *o);

typedef struct pm_orphan_result {
    int version;                  /* PM_ORPHAN_RESULT_VERSION, set by the caller */
    int64_t files_deleted;        /* (dry run: that would be deleted) */
    int64_t bytes_deleted;
    char **paths;                 /* the files' paths, owned until pm_orphan_result_clear */
    size_t npaths;
} pm_orphan_result;

#define PM_ORPHAN_RESULT_INIT {.version = PM_ORPHAN_RESULT_VERSION}
/* Release the paths (the struct itself is the caller's). */
PM_API void pm_orphan_result_clear(pm_orphan_result *r);

/* Remove orphan files of t as above; *out (may be NULL) gets them. */
PM_API pm_error *pm_table_remove_orphan_files(pm_orphan_result *out, pm_table *t, const pm_orphan_options *o);

#ifdef __cplusplus
}
#endif
#endif
