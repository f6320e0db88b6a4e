/*
 * compact/compact_run.h — running plans (used by pm_compact_run, the CLI
 * and automatic compaction) and automatic compaction after writes.
 *
 * Automatic compaction (pm_compact_after_write), after a successful data
 * commit:
 *   - nothing when `write-only` is true (legacy `write.compaction-skip`;
 *     write-only wins when both are set), or when the table mode is one
 *     compaction does not support (the write keeps its plain behavior);
 *   - otherwise one synchronous round: plan against the latest snapshot of
 *     the branch restricted to the (partition, bucket) pairs the write
 *     touched, with the planners' normal thresholds; at most
 *     `write.compaction.parallelism` (default 4, positive) buckets at once;
 *     commit as a separate COMPACT snapshot (an empty plan publishes
 *     nothing).  On failure queued buckets are skipped, started ones finish,
 *     unpublished outputs are deleted, and the error (with its cause) says
 *     the data commit stays.
 *   - touched pairs NULL/0: reconstructed from the data snapshot's delta
 *     manifests (recovery of an interrupted round: the data commit is not
 *     repeated, and a COMPACT snapshot already published removed its inputs
 *     from the latest snapshot, so it is not repeated either).
 */
#ifndef PM_COMPACT_RUN_H
#define PM_COMPACT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "compact/compact_internal.h"

/* Called after each task (result NULL when it failed); serialized. */
typedef void (*pm_compact_progress_fn)(void *ctx, size_t done, size_t total, const pm_compact_result *r);

/* Execute every task of p (see compact_run.c for the scheduling).  *out =
 * array of p->ntasks results (free with pm_compact_results_free); on error
 * nothing is left on disk. */
pm_error *pm_compact_execute_all(pm_table *t, const pm_compact_plan *p, pm_resources *r, size_t parallelism,
                                 pm_compact_progress_fn progress, void *progress_ctx, pm_compact_result ***out);
void pm_compact_results_free(pm_compact_result **r, size_t n);

/* Execute all tasks and commit them in one COMPACT snapshot. */
pm_error *pm_compact_run_plan(pm_compact_metrics *out, pm_table *t, const pm_compact_plan *p, pm_resources *r,
                              size_t parallelism, pm_compact_progress_fn progress, void *progress_ctx);

/* Automatic compaction round after the data commit `data_snapshot_id`. */
pm_error *pm_compact_after_write(pm_compact_metrics *out, pm_table *t, int64_t data_snapshot_id,
                                 const char *commit_user, const pm_bytes *partitions, const int32_t *buckets,
                                 size_t ntouched);

#endif
