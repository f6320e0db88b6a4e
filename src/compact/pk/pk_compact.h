/*
 * compact/pk/pk_compact.h — compaction of primary-key tables through the
 * shared plan → execute → commit API (compact_internal.h).  The shared
 * code calls in here when a table (or task, or result) is in mode
 * PM_COMPACT_MODE_PK; values, JSON framing, scheduling, idempotent commit
 * and abort stay in the shared files.
 *
 * Selection (pm_pk_select, pure: no I/O), per (partition, bucket):
 *   1. the bucket's live files become Levels (lsm/levels.h: level-0 files
 *      newest first, one run per positive level);
 *   2. the strategy picks a unit of leading runs and an output level
 *      (lsm/universal.h): automatic = UniversalCompaction (ForceUpLevel0
 *      when lookup is needed: merge-engine=first-row, or
 *      compaction.force-up-level-0=true) + the manager filter; explicit
 *      (`paimon compact`) = the same, and when the normal triggers select
 *      nothing, progress on every level-0 run absorbing adjacent runs by
 *      size (a single positive run is never rewritten to compact itself);
 *      full (`--full`) = every run to the max level (pickFullCompaction:
 *      a single run already at the max level is left alone unless
 *      compaction.force-rewrite-all-files);
 *   3. order-sensitive engine configurations (whole_bucket, see
 *      pm_pk_policy_from_options) keep the seed's previous selection:
 *      when the strategy selects anything, every file of the bucket
 *      participates and the output level is the highest input level, or
 *      1 when all inputs are level 0;
 *   4. drop_delete (MergeTreeCompactManager): output level != 0 and
 *      output level >= the highest non-empty level;
 *   5. first-row, deletion vectors and changelog-producer=lookup: the
 *      files outside the unit (all above the output level) are the lookup
 *      levels of the executor.
 * Deletion vectors (deduplicate, partial-update, aggregation; first-row has
 * none): ForceUpLevel0, deletes dropped from
 * every output above level 0, and a full compaction of a single max-level
 * run rewrites the files that have a vector.
 * The task captures the selected files (run order), the output level and
 * the whole policy (strategy numbers, pick mode, clock), so the committer
 * can recompute the selection from the captured snapshot.
 *
 * Execution (pk_execute.c) and commit checks (pk_commit.c) are described
 * in those files.
 */
#ifndef PM_COMPACT_PK_COMPACT_H
#define PM_COMPACT_PK_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compact/compact_internal.h"
#include "lsm/universal.h"
#include "meta/data_file_meta.h"
#include "meta/schema.h"
#include "table/scan.h"

/* Everything the selection depends on besides the files. */
typedef struct pm_pk_policy {
    pm_pick_mode pick;            /* PM_PICK_AUTO / _EXPLICIT / _FULL */
    pm_compact_strategy strategy; /* universal numbers + force_up_level0 */
    int32_t num_levels;           /* num-levels option (levels may grow past it) */
    bool whole_bucket;            /* order-sensitive engine: all files participate */
    bool first_row;               /* merge-engine=first-row: lookup retained levels */
    bool dv;                      /* deletion-vectors.enabled (deduplicate): lookup
                                     retained levels, mark replaced rows deleted */
    bool changelog;               /* changelog-producer=lookup: changelog files from
                                     level-0 inputs and retained history */
    bool force_rewrite_all;       /* compaction.force-rewrite-all-files */
    int64_t min_file_size;        /* target-file-size × compaction.small-file-ratio */
    int64_t now_ms;               /* plan clock (early full compaction) */
    int32_t hour;                 /* local hour (off-peak ratio) */
} pm_pk_policy;

/* The PK part of a task and of its result. */
struct pm_compact_pk {
    pm_pk_policy policy;
    int32_t output_level;
    int32_t max_level;            /* the bucket's max level (levels may exceed num-levels) */
    bool drop_delete;
};

void pm_compact_pk_free(pm_compact_pk *p);
pm_error *pm_compact_pk_copy(pm_compact_pk **out, const pm_compact_pk *src);

/* Is the table's PK mode compactible?  PM_EUNSUPPORTED naming the mode
 * (dynamic or postpone bucket, deletion vectors, changelog-producer
 * full-compaction / lookup, record-level expiration, ...). */
pm_error *pm_pk_check_table(pm_table *t, const pm_options *o);

/* Policy from options (table + dynamic).  automatic: after-write rounds
 * (lookup-compact=gentle is PM_EUNSUPPORTED there). */
pm_error *pm_pk_policy_from_options(const pm_schema *s, const pm_options *o, pm_pick_mode pick, bool automatic,
                                    int64_t now_ms, int32_t hour, pm_pk_policy *out);

typedef struct pm_pk_selection {
    bool has;
    int32_t output_level;
    bool drop_delete;
    size_t *files;                /* indexes into the bucket's files, run order */
    size_t nfiles;
    size_t *lookup;               /* first-row: files outside the unit */
    size_t nlookup;
    int32_t num_levels;           /* levels of the bucket (may exceed num-levels) */
} pm_pk_selection;

void pm_pk_selection_clear(pm_pk_selection *s);

/* The unit of one bucket (steps 1–5 above).  key_type: ROW of the trimmed
 * primary key; has_dv[i] (may be NULL): file i has a deletion vector (full
 * compaction of a single max-level run rewrites those). */
pm_error *pm_pk_select(const pm_pk_policy *p, const pm_type *key_type, const pm_data_file_meta *files, size_t n,
                       const bool *has_dv, pm_pk_selection *out);

/* Planner hook: append the task of one bucket (if any) to plan p. */
typedef struct pm_pk_planner {
    pm_table *t;
    const pm_schema *schema;
    const pm_options *opts;       /* table + dynamic options (the builder's) */
    pm_type *key_type;            /* owned */
    pm_pk_policy policy;
} pm_pk_planner;

pm_error *pm_pk_planner_init(pm_pk_planner *pl, pm_compact_builder *b);
void pm_pk_planner_clear(pm_pk_planner *pl);
pm_error *pm_pk_plan_bucket(pm_pk_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf);

/* Executor hook (pk_execute.c). */
pm_error *pm_pk_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget);

/* Committer hook (pk_commit.c), run on every commit attempt after the
 * shared checks: *state caches the recomputation from the captured
 * snapshot across attempts (free with pm_pk_commit_state_free). */
typedef struct pm_pk_commit_state pm_pk_commit_state;
pm_error *pm_pk_validate(pm_pk_commit_state **state, pm_table *t, pm_compact_result *const *r, size_t n,
                         const pm_scan_result *live);
void pm_pk_commit_state_free(pm_pk_commit_state *s);

/* JSON of the PK part ("pk" of a task or result; pk_json.c).  to_json
 * returns a new jansson object (NULL on allocation failure); from_json
 * reads strictly, errors name the path (e.g. "task.pk.output_level"). */
struct json_t;
struct pm_jnode;
struct json_t *pm_compact_pk_to_json(const pm_compact_pk *p);
pm_error *pm_compact_pk_from_json(const struct pm_jnode *n, pm_compact_pk **out);

/* Write stall (pk_stall.c): before a writer commits new_files[i] level-0
 * files into (partitions[i], buckets[i]), compact every such bucket whose
 * sorted runs plus new files exceed num-sorted-run.stop-trigger.  Nothing
 * for append, write-only or unsupported tables. */
pm_error *pm_compact_pk_stall(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                              const pm_bytes *partitions, const int32_t *buckets, const size_t *new_files, size_t n);

#endif
