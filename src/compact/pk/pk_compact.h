/*
 * compact/pk/pk_compact.h — compaction of primary-key tables: the
 * primary-key mode (pm_compact_pk_mode) behind the per-mode interface
 * (compact_mode.h); values, JSON framing, scheduling, idempotent commit
 * and abort stay in the shared core.  Files:
 *   pk_mode.c        the table check, the part (value, copy, checks), the ops
 *   pk_plan.c        policy from options, selection, the planner
 *   pk_json.c        JSON of the part
 *   pk_execute.c     one task: levels → steps (upgrade, rewrite) → result
 *                    (MergeTreeCompactTask); its phases share pk_exec.h:
 *   pk_rewrite.c       merging sections of sorted runs into the writer
 *                      (MergeTreeCompactRewriter, LookupMergeTreeCompactRewriter)
 *   pk_source.c        a sorted run as a merge source
 *   lookup_levels.c    lookup of the retained levels above the output (LookupLevels)
 *   changelog_producer.c  changelog files of the lookup and full-compaction
 *                      producers (LookupChangelogMergeFunctionWrapper,
 *                      FullChangelogMergeFunctionWrapper)
 *   pk_dv.c            the bucket's deletion vectors during a task
 *   pk_commit.c      the commit checks (validate)
 *   pk_stall.c       the write stall (num-sorted-run.stop-trigger)
 *   pk_postpone.c    postpone-bucket tables (bucket = -2): the whole run
 *                    that assigns real buckets to the postponed files
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
 * Bounded passes (policy.limits): steps 1-5 run over the bucket without
 * its level-0 files newer than the prefix; the newer ones keep their
 * sequence numbers above every output, so merge order is unchanged.
 * Pending files are the level-0 files (pm_pk_pending).
 * Deletion vectors (deduplicate, partial-update, aggregation; first-row has
 * none): ForceUpLevel0, deletes dropped from
 * every output above level 0, and a full compaction of a single max-level
 * run rewrites the files that have a vector.
 * The task captures the selected files (run order), the output level and
 * the whole policy (strategy numbers, pick mode, clock), so the committer
 * can recompute the selection from the captured snapshot.
 *
 * Execution (pk_execute.c and the phases in pk_exec.h) and commit checks
 * (pk_commit.c) are described in those files.
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
    /* A bounded pass (pm_compact_options.max_input_*): the selection sees
     * the positive levels and only the oldest level-0 files within the
     * limits (pm_compact_pending_prefix); ignored by whole_bucket. */
    pm_compact_limits limits;
} pm_pk_policy;

/* The PK part of a task and of its result. */
typedef struct pm_compact_pk {
    pm_compact_part base;         /* base.mode = &pm_compact_pk_mode */
    pm_pk_policy policy;
    int32_t output_level;
    int32_t max_level;            /* the bucket's max level (levels may exceed num-levels) */
    bool drop_delete;
    int64_t pages_copied;         /* result: input data pages the rewrite copied
                                     (pk_page_copy.c; not in JSON) */
    int64_t rows_skipped;         /* result: superseded input rows passed over unread
                                     (pk_superseded.c; not in JSON) */
    int64_t prepass_scans;        /* result: key pre-passes done by the direct scan
                                     (pk_prepass_scan.c; not in JSON) */
    int64_t pages_lazy;           /* result: of the pages copied, those offered with
                                     the input's statistics, their values never
                                     encoded (pk_page_copy.c; not in JSON) */
    int64_t pages_unread;         /* result: input data pages of value columns whose
                                     rows no output row decoded: never decompressed
                                     (pk_source.c; not in JSON) */
} pm_compact_pk;

extern const pm_compact_mode_ops pm_compact_pk_mode;

/* The PK part of a task or result: NULL when p is NULL or another mode's. */
pm_compact_pk *pm_pk_part(const pm_compact_part *p);
/* A new part (base set), zeroed. */
pm_error *pm_compact_pk_new(pm_compact_pk **out);

/* Family recognizer (compact_mode.c): tables with primary keys; *out =
 * pm_compact_pk_mode, or PM_EUNSUPPORTED / PM_EINVALID naming what is not
 * supported (postpone bucket, first-row with deletion vectors,
 * changelog-producer combinations, data evolution, row tracking,
 * record-level expiration, blob or VARIANT columns, data-file indexes,
 * external data paths). */
pm_error *pm_pk_mode_select(pm_table *t, const pm_compact_mode_ops **out);
/* The same checks over options o (the table's with dynamic options). */
pm_error *pm_pk_check_options(pm_table *t, const pm_options *o);
/* Dynamic options (o = table options + the compaction's overrides) change
 * planning thresholds and output settings only: the executor reads the
 * merge, changelog, deletion-vector and lookup/local-cache options from
 * the table's schema, so overriding one of those is PM_EUNSUPPORTED
 * naming it (set it on the table instead). */
pm_error *pm_pk_check_dynamic_options(pm_table *t, const pm_options *o);

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

/* ---- the mode's functions (the ops of pk_mode.c) ---- */

/* planner (pk_plan.c) */
pm_error *pm_pk_planner_new(pm_compact_planner **out, pm_compact_builder *b);
pm_error *pm_pk_plan_bucket(pm_compact_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf);
void pm_pk_planner_free(pm_compact_planner *pl);
pm_error *pm_pk_pending(pm_compact_planner *pl, const pm_bucket_files *bf, bool *pending);

/* executor (pk_execute.c) */
pm_error *pm_pk_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget);

/* committer (pk_commit.c): run on every commit attempt after the shared
 * checks; *state caches the recomputation from the captured snapshot
 * across attempts (free with pm_pk_validate_free). */
pm_error *pm_pk_validate(void **state, pm_table *t, pm_compact_result *const *r, size_t n,
                         const pm_scan_result *live);
void pm_pk_validate_free(void *state);

/* JSON of the part ("pk" of a task or result; pk_json.c).  to_json
 * returns a new jansson object (NULL on allocation failure); from_json
 * reads strictly, errors name the path (e.g. "task.pk.output_level"). */
struct json_t;
struct pm_jnode;
struct json_t *pm_compact_pk_to_json(const pm_compact_part *p);
pm_error *pm_compact_pk_from_json(const struct pm_jnode *n, pm_compact_part **out);

/* Postpone bucket (pk_postpone.c). */
bool pm_pk_is_postpone(pm_table *t);
/* The postponed files assigned to real buckets in one COMPACT snapshot;
 * *done = false when there were none (the caller runs a normal round). */
pm_error *pm_pk_postpone_run(pm_compact_metrics *out, pm_compact_builder *b, bool *done);

/* Write stall (pk_stall.c): stalled[i] = the sorted runs of bucket
 * (partitions[i], buckets[i]) in `live` plus new_files[i] new level-0
 * files exceed num-sorted-run.stop-trigger. */
pm_error *pm_pk_write_stall(pm_table *t, const pm_scan_result *live, const pm_bytes *partitions,
                            const int32_t *buckets, const size_t *new_files, size_t n, bool *stalled);

#endif
