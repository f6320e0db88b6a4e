/*
 * lsm/universal.h — which sorted runs of a bucket to compact, and to which
 * level: Java's UniversalCompaction, ForceUpLevel0Compaction,
 * EarlyFullCompaction, CompactStrategy.pickFullCompaction and the filter of
 * MergeTreeCompactManager (release-2.0; spec §7.1, §7.2).  Pure functions
 * over (level, size, file count) of the runs; no I/O, no clock reads: the
 * caller passes the time and hour, and records a full compaction when the
 * result says so.
 *
 * Inputs: runs in Levels order (level-0 files newest first, then levels
 * 1..max); maxLevel = numLevels - 1; T = num-sorted-run.compaction-trigger,
 * R = compaction.size-ratio, A = compaction.max-size-amplification-percent.
 *
 * pick (UniversalCompaction.pick):
 *   0 early full compaction, when any of compaction.optimization-interval,
 *     compaction.total-size-threshold, compaction.incremental-size-threshold
 *     is set and there is more than one run: all runs → maxLevel if the
 *     interval elapsed since the last full compaction (or none is known),
 *     else if the total size < total threshold, else if the size of runs
 *     not at maxLevel > incremental threshold.
 *   1 size amplification (#runs >= T): 100 × size(all but the last run) >
 *     A × size(last run) → all runs → maxLevel.
 *   2 size ratio (#runs >= T): pickForSizeRatio(1).
 *   3 run count (#runs > T): pickForSizeRatio(#runs − T + 1), may be none.
 * pickForSizeRatio(c, force): S = size of the first c runs; for each next
 *   run: stop when S × (100 + R + offpeak) / 100 < its size (double
 *   arithmetic as Java), else absorb it.  A unit only when force or c > 1.
 *   offpeak = compaction.offpeak-ratio when the hour is inside
 *   [offpeak.start.hour, offpeak.end.hour) (wrapping past midnight when
 *   start > end; disabled when either is -1 or they are equal), else 0.
 * createUnit(c): output = maxLevel if c == #runs, else max(0, level(run c)
 *   − 1); while the output would be 0, absorb the next run and take its
 *   level once it is not level 0; if all runs end up absorbed, output =
 *   maxLevel.  Every unit reaching all runs counts as a full compaction.
 * forcePickL0 (ForceUpLevel0Compaction, radical): c = number of leading
 *   level-0 runs (none if 0); if the next run is level 1 it is included
 *   too (release-2.0); then pickForSizeRatio(c, force=true).
 * Manager filter (automatic and explicit picks): drop a unit with no files
 *   or made of a single file already at its output level.
 * Explicit compaction (the seed's rule): pick; when that selects nothing,
 *   forcePickL0 — progress on every level-0 run, absorbing adjacent runs by
 *   size; without level-0 runs nothing (a single positive run is never
 *   rewritten to compact itself).
 * Full compaction (pickFullCompaction): no runs → none; a single run at
 *   maxLevel → only its files flagged for rewrite (deletion vectors,
 *   expired records, or force-rewrite-all), as a file-rewrite unit, none
 *   if no file is flagged; otherwise all runs → maxLevel.
 * Strategy choice (MergeTreeCompactManagerFactory): lookup is needed for
 *   changelog-producer=lookup, deletion vectors, merge-engine=first-row or
 *   force-lookup; then ForceUpLevel0 with lookup-compact radical; `gentle`
 *   keeps a writer-lifetime counter and is PM_EUNSUPPORTED for automatic
 *   compaction (as the seed documents); compaction.force-up-level-0=true
 *   also selects ForceUpLevel0.  Otherwise plain universal.
 */
#ifndef PM_LSM_UNIVERSAL_H
#define PM_LSM_UNIVERSAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/options.h"
#include "paimon/error.h"

typedef struct pm_sorted_run {
    int32_t level;
    int64_t size;      /* sum of file sizes */
    size_t nfiles;
} pm_sorted_run;

typedef struct pm_universal_opts {
    int32_t max_size_amp;       /* compaction.max-size-amplification-percent */
    int32_t size_ratio;         /* compaction.size-ratio */
    int32_t run_trigger;        /* num-sorted-run.compaction-trigger */
    bool has_interval;          /* compaction.optimization-interval */
    int64_t interval_ms;
    bool has_total_threshold;   /* compaction.total-size-threshold */
    int64_t total_threshold;
    bool has_incr_threshold;    /* compaction.incremental-size-threshold */
    int64_t incr_threshold;
    int32_t offpeak_start;      /* -1 = off */
    int32_t offpeak_end;
    int32_t offpeak_ratio;
} pm_universal_opts;

typedef struct pm_compact_strategy {
    pm_universal_opts u;
    bool force_up_level0;       /* ForceUpLevel0Compaction (radical) */
} pm_compact_strategy;

/* The caller's clock and the last full compaction (epoch millis). */
typedef struct pm_pick_clock {
    int64_t now_ms;
    int32_t hour;               /* local hour 0..23 for off-peak */
    bool has_last_full;
    int64_t last_full_ms;
} pm_pick_clock;

typedef struct pm_compact_unit {
    bool has;                   /* false = nothing to compact */
    int32_t output_level;
    size_t nruns;               /* the unit is the first nruns runs ... */
    bool file_rewrite;          /* ... or, when set, only these files of run 0: */
    size_t nfiles;
    size_t *files;              /* malloc'd indices into run 0's files */
    bool full;                  /* covers every run: record now as the last full compaction */
} pm_compact_unit;

void pm_compact_unit_clear(pm_compact_unit *u);
/* Files in the unit (sum over its runs, or nfiles for a file rewrite). */
size_t pm_compact_unit_file_count(const pm_compact_unit *u, const pm_sorted_run *runs);

/* Options → strategy.  `automatic` = compaction after writes (rejects
 * lookup-compact=gentle when lookup is needed).  Errors name the option. */
pm_error *pm_universal_opts_from_options(const pm_options *o, pm_universal_opts *out);
pm_error *pm_compact_strategy_from_options(const pm_options *o, bool automatic, pm_compact_strategy *out);

/* UniversalCompaction.pick (steps 0–3; no manager filter). */
pm_error *pm_universal_pick(const pm_universal_opts *o, int32_t num_levels, const pm_sorted_run *runs,
                            size_t n, const pm_pick_clock *clock, pm_compact_unit *out);
/* pickForSizeRatio(candidate_count, force) → createUnit. */
pm_error *pm_universal_pick_for_size_ratio(const pm_universal_opts *o, int32_t num_levels,
                                           const pm_sorted_run *runs, size_t n, size_t candidate_count,
                                           bool force, const pm_pick_clock *clock, pm_compact_unit *out);
/* ForceUpLevel0Compaction.forcePickL0. */
pm_error *pm_universal_force_pick_l0(const pm_universal_opts *o, int32_t num_levels, const pm_sorted_run *runs,
                                     size_t n, const pm_pick_clock *clock, pm_compact_unit *out);
/* The off-peak ratio that applies at `hour`. */
int32_t pm_universal_offpeak_ratio(const pm_universal_opts *o, int32_t hour);

typedef enum pm_pick_mode {
    PM_PICK_AUTO,      /* strategy pick + manager filter */
    PM_PICK_EXPLICIT,  /* strategy pick, else forcePickL0; + manager filter */
    PM_PICK_FULL       /* pickFullCompaction */
} pm_pick_mode;

/* The whole decision for one bucket.  For PM_PICK_FULL, rewrite_files
 * (may be NULL) flags files of a single max-level run that must be
 * rewritten (deletion vector or expired records); force_rewrite_all
 * flags all of them. */
pm_error *pm_compact_pick(const pm_compact_strategy *s, pm_pick_mode mode, int32_t num_levels,
                          const pm_sorted_run *runs, size_t n, const pm_pick_clock *clock,
                          const bool *rewrite_files, bool force_rewrite_all, pm_compact_unit *out);

#endif
