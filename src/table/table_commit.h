/*
 * table/table_commit.h — publish commit messages as one snapshot.
 * CONTRACT (table_commit.c).
 *
 * Protocol for one commit (kinds APPEND, COMPACT, OVERWRITE):
 *  1. Idempotency: if a snapshot newer than `since_snapshot_id` already has
 *     this commit user and identifier, report it (*snapshot_id) and stop.
 *  2. Load the latest snapshot L (may be none).
 *  3. Build entries: ADD for new_files / compact_after, DELETE for
 *     compact_before; OVERWRITE adds DELETE for every live file of the
 *     overwritten partitions (all partitions if no spec).  Run the caller's
 *     `validate` hook against L's live files (compaction uses it to detect
 *     removed inputs, schema changes, rollbacks → PM_ECONFLICT).  A DELETE
 *     of a file that is not live in L is a conflict.
 *  4. Write the delta manifest(s), the base manifest list (L's base + delta
 *     manifests, merged by ManifestFileMerger, meta/manifest_file_merger.h),
 *     the delta manifest list, the index manifest if index files changed,
 *     then the snapshot L+1 with publish-if-absent.  Lost the race → delete what this
 *     attempt wrote, back off (commit.min/max-retry-wait) and go to 2, up to
 *     commit.max-retries; then PM_ECONFLICT.
 *  5. LATEST hint (failure is logged only).
 * Row-tracking tables: every attempt stamps the new files' sequence
 * numbers and assigns first row IDs from L's nextRowId (table_commit.c).
 * Any failure before publication removes this attempt's manifests and
 * leaves the table at L.  A failure whose outcome is unknown (the snapshot
 * may have been published) is PM_EUNCERTAIN: the caller keeps its files and
 * retries the commit, which step 1 makes safe.  An empty commit (no
 * entries) publishes nothing unless `allow_empty`.
 */
#ifndef PM_TABLE_TABLE_COMMIT_H
#define PM_TABLE_TABLE_COMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/snapshot.h"
#include "paimon/error.h"
#include "table/commit_message.h"
#include "table/scan.h"

/* Validation hook: called on each attempt with the latest snapshot (NULL if
 * none) and its live files; return PM_ECONFLICT to abort. */
typedef pm_error *(*pm_commit_validate_fn)(void *arg, const pm_snapshot *latest,
                                           const pm_scan_result *live);

typedef struct pm_commit_options {
    const char *commit_user;            /* NULL = a random UUID */
    int64_t commit_identifier;          /* PM_BATCH_COMMIT_IDENTIFIER for batch writes */
    pm_commit_kind kind;                /* APPEND, COMPACT, OVERWRITE */
    const pm_partition_spec *overwrite; /* OVERWRITE: partitions to replace (NULL = whole table) */
    size_t noverwrite;
    int64_t since_snapshot_id;          /* idempotency search starts after this id (0 = all) */
    pm_commit_validate_fn validate;     /* may be NULL */
    void *validate_arg;                 /* also the argument of the index hooks */
    /* Index changes computed on every attempt from the latest snapshot
     * (after validate): *added (written by the hook) and *removed join the
     * attempt's (malloc'd arrays, the commit frees them).  NULL = none. */
    pm_error *(*index_rebase)(void *arg, const pm_snapshot *latest, const pm_scan_result *live,
                              pm_index_manifest_entry **added, size_t *nadded, pm_index_manifest_entry **removed,
                              size_t *nremoved);
    /* Delete the files of `added` (an attempt that lost or failed). */
    void (*index_discard)(void *arg, const pm_index_manifest_entry *added, size_t n);
    bool allow_empty;
    /* A scan of the whole table (no partition or bucket filter) the
     * caller already holds (borrowed; NULL = none): the hooks get it as
     * L's live files when it is a scan of L through this handle (same
     * snapshot id, manifest lists and index manifest, the handle's schema
     * of L, no fallback branch: the same files), so L's manifests are not
     * read again; otherwise L is scanned. */
    const pm_scan_result *latest_scan;
} pm_commit_options;

/* *snapshot_id = the published (or already existing) snapshot id, or 0 when
 * nothing was published. */
pm_error *pm_table_commit(pm_table *t, const pm_commit_options *o, const pm_commit_message *msgs,
                          size_t n, int64_t *snapshot_id);

/* Step 1 alone: the id of a snapshot after since_snapshot_id committed by
 * `commit_user` with `commit_identifier`, or 0 (searched newest first).
 * Lets a caller skip preparing files for a commit that already landed. */
pm_error *pm_table_commit_find(pm_table *t, const char *commit_user, int64_t commit_identifier,
                               int64_t since_snapshot_id, int64_t *snapshot_id);

#endif
