/*
 * lsm/lsm_compact.h — one bucket's compaction decision end to end, without
 * I/O: what MergeTreeCompactManager.triggerCompaction and the task it
 * submits decide in Java.
 *
 * Steps:
 *   1. runs of the levels (levels.h) → pm_sorted_run[] → pm_compact_pick
 *      with the strategy, mode and clock (universal.h), manager filter
 *      included;
 *   2. the unit's files: the first nruns runs' files in run order, or for a
 *      file-rewrite unit (full compaction of a single max-level run) the
 *      flagged files;
 *   3. drop_delete = pm_lsm_drop_delete(output level, highest non-empty
 *      level, deletion vectors, force_keep_delete);
 *   4. the task: a merge-tree unit is planned by pm_compact_task_plan
 *      (interval partition; rewrite vs upgrade); a file-rewrite unit
 *      rewrites each file alone (Java's FileRewriteCompactTask).
 * The caller executes the steps (REWRITE: merge the sections' runs with
 * merge_iter into the rolling writer at output_level, dropping retracts
 * when drop_delete; UPGRADE: same file, new level), then applies the
 * result with pm_levels_update and, when `unit.full`, records the time as
 * the last full compaction.
 */
#ifndef PM_LSM_LSM_COMPACT_H
#define PM_LSM_LSM_COMPACT_H

#include "lsm/interval_partition.h"
#include "lsm/levels.h"
#include "lsm/universal.h"

typedef struct pm_lsm_compact_options {
    pm_pick_mode mode;
    pm_pick_clock clock;
    int64_t min_file_size;        /* compaction file size (pm_options_compaction_file_size) */
    bool dv_enabled;              /* deletion-vectors.enabled */
    bool force_keep_delete;       /* keep deletes regardless of level */
    bool force_rewrite_all;       /* compaction.force-rewrite-all-files */
    /* Full compaction of a single max-level run: files that must be
     * rewritten (deletion vector present, expired records).  May be NULL. */
    bool (*must_rewrite)(void *ctx, const pm_lsm_file *f);
    void *must_rewrite_ctx;
    /* Record-level expiration for the task plan (may be NULL). */
    bool (*expired)(void *ctx, const pm_lsm_file *f);
    void *expired_ctx;
} pm_lsm_compact_options;

typedef struct pm_lsm_compaction {
    pm_compact_unit unit;         /* unit.has = false: nothing to do */
    size_t nfiles;
    const pm_lsm_file **files;    /* the unit's files (borrowed from the levels) */
    bool drop_delete;
    pm_task_plan plan;
} pm_lsm_compaction;

pm_error *pm_lsm_plan_compaction(const pm_levels *lv, const pm_compact_strategy *s, const pm_lsm_compact_options *o,
                                 pm_lsm_compaction *out);
void pm_lsm_compaction_clear(pm_lsm_compaction *c);

#endif
