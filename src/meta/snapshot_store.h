/*
 * meta/snapshot_store.h — the snapshot directory of one branch:
 * `snapshot/snapshot-<N>` files plus the LATEST and EARLIEST hint files.
 *
 * Hint files hold the decimal id as UTF-8 text without a newline.  Reading
 * follows Paimon's HintFileUtils:
 *   latest   = LATEST if it parses to id > 0 and snapshot-(id+1) does not
 *              exist; otherwise the largest id found by listing.
 *   earliest = EARLIEST if it parses and snapshot-<id> exists; otherwise
 *              the smallest id found by listing.
 * A hint that is missing, unreadable or not exactly a Java long counts as
 * no hint.  Listing keeps names `snapshot-<long>` and skips everything
 * else (temporary files, pypaimon's `snapshot-1<uuid>.tmp`).
 *
 * Commit (RenamingSnapshotCommit): snapshot-<id> is published with
 * pm_fileio_publish_if_absent (write temp, fsync, link — fails if the target
 * exists, even across processes).  If it already exists with exactly the
 * same bytes the commit counts as done (a retry after an uncertain
 * outcome); otherwise it is a conflict (*committed = false).  After a
 * successful publication LATEST is replaced atomically; a failure to write
 * the hint is logged, not returned: the snapshot is visible and readers fall
 * back to listing.
 */
#ifndef PM_META_SNAPSHOT_STORE_H
#define PM_META_SNAPSHOT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/fileio.h"
#include "meta/snapshot.h"
#include "paimon/error.h"

typedef struct pm_snapshot_store pm_snapshot_store;

/* `fio` is borrowed and must outlive the store.  branch NULL = "main". */
pm_error *pm_snapshot_store_open(pm_snapshot_store **out, pm_fileio *fio, const char *table_root,
                                 const char *branch);
void pm_snapshot_store_free(pm_snapshot_store *st);
/* <branch root>/snapshot (owned by the store). */
const char *pm_snapshot_store_dir(const pm_snapshot_store *st);
/* Full path of snapshot-<id> (malloc'd). */
pm_error *pm_snapshot_store_path(const pm_snapshot_store *st, int64_t id, char **out);

pm_error *pm_snapshot_store_exists(pm_snapshot_store *st, int64_t id, bool *exists);
/* All snapshot ids, ascending (malloc'd array; NULL when none). */
pm_error *pm_snapshot_store_list_ids(pm_snapshot_store *st, int64_t **ids, size_t *count);
/* *found=false when the directory holds no snapshot. */
pm_error *pm_snapshot_store_latest_id(pm_snapshot_store *st, bool *found, int64_t *id);
pm_error *pm_snapshot_store_earliest_id(pm_snapshot_store *st, bool *found, int64_t *id);
/* Read a hint file ("LATEST" or "EARLIEST"); *found=false when absent or invalid. */
pm_error *pm_snapshot_store_read_hint(pm_snapshot_store *st, const char *name, bool *found,
                                      int64_t *id);
/* Replace a hint file atomically with the decimal id. */
pm_error *pm_snapshot_store_write_hint(pm_snapshot_store *st, const char *name, int64_t id);

/* Load snapshot-<id>: PM_ENOTFOUND when missing, PM_ECORRUPT when broken. */
pm_error *pm_snapshot_store_load(pm_snapshot_store *st, int64_t id, pm_snapshot **out);
/* Load the latest snapshot; *out = NULL when there is none. */
pm_error *pm_snapshot_store_load_latest(pm_snapshot_store *st, pm_snapshot **out);

/* Publish snapshot-<s->id> if absent, then LATEST (see top). */
pm_error *pm_snapshot_store_commit(pm_snapshot_store *st, const pm_snapshot *s, bool *committed);

#endif
