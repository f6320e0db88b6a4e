/*
 * compact/compact_auto.h — automatic compaction around a data commit, for
 * the layers above compaction (the API's write transaction, front ends).
 *
 * After a successful data commit (pm_compact_after_write):
 *   - nothing when `write-only` is true (legacy `write.compaction-skip`;
 *     write-only wins when both are set), or when the table's mode is one
 *     compaction does not support (the write keeps its plain behavior);
 *   - otherwise one synchronous round: plan against the latest snapshot of
 *     the branch restricted to the (partition, bucket) pairs the write
 *     touched, with the planners' automatic thresholds; at most
 *     `write.compaction.parallelism` (default 4, positive) buckets at once;
 *     commit as a separate COMPACT snapshot with the writer's commit user
 *     (an empty plan publishes nothing).  A conflict with another
 *     compaction replans against the new latest snapshot, up to
 *     commit.max-retries times with the commit backoff.  Primary-key tables
 *     with changelog-producer=full-compaction or
 *     full-compaction.delta-commits=N (default 1) get a full compaction
 *     instead when the data commit's identifier is a multiple of N or the
 *     batch identifier, over every pair the commit user wrote since its
 *     previous such commit (Java's GlobalFullCompactionSinkWrite).  On failure queued
 *     buckets are skipped, started ones finish, unpublished outputs are
 *     deleted, and the error (with its cause) says the data commit stays.
 *   - touched pairs NULL/0: reconstructed from the data snapshot's delta
 *     manifests (recovery of an interrupted round: the data commit is not
 *     repeated, and a COMPACT snapshot already published removed its inputs
 *     from the latest snapshot, so it is not repeated either).
 *
 * Before a data commit (pm_compact_write_stall): a writer about to add
 * new_files[i] files to (partitions[i], buckets[i]) asks the table's mode
 * which of those buckets stall (primary keys: sorted runs above
 * num-sorted-run.stop-trigger); the stalled buckets are compacted first in
 * one COMPACT snapshot with the explicit pick, replanning on conflicts
 * (commit.max-retries).  Nothing for modes without a stall, write-only or
 * unsupported tables.
 *
 * *out (may be NULL) gets the metrics of the COMPACT snapshot (snapshot id
 * 0 = none published); out->version is set by the caller
 * (PM_COMPACT_METRICS_INIT): an unknown version is PM_EINVALID before
 * anything is done.
 */
#ifndef PM_COMPACT_AUTO_H
#define PM_COMPACT_AUTO_H

#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "paimon/compact.h"

/* triggers (may be NULL): a long-lived writer's round counters
 * (lookup-compact=gentle). */
pm_error *pm_compact_after_write(pm_compact_metrics *out, pm_table *t, int64_t data_snapshot_id,
                                 const char *commit_user, const pm_bytes *partitions, const int32_t *buckets,
                                 size_t ntouched, pm_compact_triggers *triggers);

/* The global index round (compact/global_index_maint.h) after snapshot
 * `snapshot_id` (a data commit, or an explicit compaction's): nothing
 * without declarations; its identity (user "<commit user>:global-index",
 * identifier = snapshot_id) makes a repeated recovery find the published
 * round.  Callers skip it for write-only tables. */
pm_error *pm_compact_global_index_round(pm_table *t, int64_t snapshot_id, const char *commit_user);

pm_error *pm_compact_write_stall(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                                 const pm_bytes *partitions, const int32_t *buckets, const size_t *new_files,
                                 size_t n);

#endif
