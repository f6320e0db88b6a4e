/*
 * lsm/interval_partition.h — split files into key-disjoint sections of
 * sorted runs (Java's IntervalPartition), and decide per compaction unit
 * which files are merged and rewritten and which are only moved to the
 * output level (Java's MergeTreeCompactTask.doCompact).
 *
 * Partition:
 *   1. sort the files by (min key, max key), stable;
 *   2. sections: walk the files keeping the section's right bound (largest
 *      max key so far); a file whose min key is above the bound starts a
 *      new section, so key ranges of different sections never overlap;
 *   3. runs inside a section: greedily append each file to the run whose
 *      last max key is smallest, if the file's min key is above it,
 *      otherwise open a new run (each run is non-overlapping and ordered).
 *   Sections come out in key order; runs in creation order.
 *
 * Task plan, in section order, with a candidate list of pending sections:
 *   - a section with several runs is a candidate (it must be merged);
 *   - in a single-run section each file is examined in order: a file
 *     smaller than the compaction file size (target-file-size ×
 *     compaction.small-file-ratio) becomes a candidate of its own; a large
 *     file first flushes the candidates (rewrite) and is then upgraded;
 *   - at the end the candidates are flushed.
 *   flush: nothing if empty; a lone single-run candidate is not rewritten
 *   but each of its files upgraded; otherwise one REWRITE step merging
 *   all candidate sections (output = their concatenation, in order).
 *   upgrade(file): rewritten alone (REWRITE) when the output is the max
 *   level and the file may hold deletes (_DELETE_ROW_COUNT absent or > 0),
 *   or all files must be rewritten, or it holds expired records;
 *   otherwise an UPGRADE step when its level differs from the output
 *   level; nothing when it is already there.
 */
#ifndef PM_LSM_INTERVAL_PARTITION_H
#define PM_LSM_INTERVAL_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lsm/levels.h"

typedef struct pm_iv_run {
    size_t nfiles;
    const pm_lsm_file **files;   /* borrowed, key order */
} pm_iv_run;

typedef struct pm_iv_section {
    size_t nruns;
    pm_iv_run *runs;
} pm_iv_section;

typedef struct pm_iv_partition {
    size_t nsections;
    pm_iv_section *sections;
} pm_iv_partition;

/* Partition `files` (pointers borrowed; they must outlive the result). */
pm_error *pm_interval_partition(const pm_lsm_file *const *files, size_t n, pm_iv_partition *out);
void pm_iv_partition_clear(pm_iv_partition *p);

typedef enum pm_task_step_kind { PM_STEP_REWRITE, PM_STEP_UPGRADE } pm_task_step_kind;

typedef struct pm_task_step {
    pm_task_step_kind kind;
    /* REWRITE: sections to merge, each a set of runs; output in order */
    size_t nsections;
    pm_iv_section *sections;
    /* UPGRADE: the file that only changes level */
    const pm_lsm_file *file;
} pm_task_step;

typedef struct pm_task_plan {
    int32_t output_level;
    size_t nsteps;
    pm_task_step *steps;
} pm_task_plan;

typedef struct pm_task_options {
    int64_t min_file_size;      /* compaction file size: target × small-file ratio */
    int32_t output_level;
    int32_t max_level;
    bool force_rewrite_all;     /* compaction.force-rewrite-all-files */
    /* Optional: files holding expired records (record-level expire). */
    bool (*expired)(void *ctx, const pm_lsm_file *f);
    void *expired_ctx;
} pm_task_options;

pm_error *pm_compact_task_plan(const pm_lsm_file *const *files, size_t n, const pm_task_options *o,
                               pm_task_plan *out);
void pm_task_plan_clear(pm_task_plan *p);

#endif
