/*
 * compact/compact_mode.h — the one interface through which the shared
 * compaction core (values and JSON, planning loop, runner, commit
 * protocol, automatic rounds) reaches what depends on the table mode, and
 * the dispatch that picks the mode.
 *
 * A mode is a constant pm_compact_mode_ops:
 *   append-unaware    append table, bucket = -1            (append/append.h)
 *   append-bucketed   append table, bucket > 0             (append/append.h)
 *   primary-key       primary-key table, fixed or dynamic  (pk/pk_compact.h)
 *   data-evolution    append table, data-evolution.enabled (de/de_compact.h)  The shared files never test
 * the mode: they call the mode's functions, read its two flags, and hand
 * its part around.
 *
 * Stages and their hooks, in the order the core calls them:
 *   table     pm_compact_table_mode: each family's `select` is asked in
 *             turn (primary keys, data evolution, then append) whether the table is its
 *             own; the one that claims it names the mode or refuses the
 *             table (PM_EUNSUPPORTED naming what is unsupported).
 *   pending   pending(planner, bucket files, flags): which live files the
 *             mode has not folded yet (pm_compact_pending, bounded passes).
 *   plan      planner_new(builder) once → plan_bucket(planner, plan,
 *             bucket files) for every (partition, bucket) of the captured
 *             snapshot the builder wants → planner_free.  plan_bucket
 *             appends zero or more tasks (pm_compact_task_new, compact_internal.h).
 *   schedule  ordered_buckets: the tasks of one (partition, bucket) depend
 *             on each other's order and run one after another in plan
 *             order; otherwise every task is independent.
 *   execute   execute(table, task, memory share): private outputs only.
 *             The core has checked the task (same table, same mode, file
 *             names, the part) before.
 *   commit    validate(state, table, results, live): after the shared
 *             checks, on every commit attempt against the latest
 *             snapshot; *state caches work across attempts and is freed
 *             with validate_free.  NULL = nothing beyond the shared checks.
 *             rebase_index (optional): index changes of the attempt.
 *   stall     write_stall(table, touched buckets, new file counts, scan of
 *             the latest snapshot, out flags): which buckets a writer must
 *             compact before it adds files (NULL = never).
 * The part: a mode may keep a part of its own in every task and result
 * (primary keys: output level, max level, drop-delete, the selection
 * policy).  Its struct starts with pm_compact_part (which names the mode
 * that owns it), it travels in JSON under the mode's part_key (every
 * document carries every registered key; the ones of other modes are
 * null), and the core copies, frees, checks and serializes it only
 * through these functions.
 */
#ifndef PM_COMPACT_MODE_H
#define PM_COMPACT_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/compact.h"
#include "table/scan.h"

struct json_t;
struct pm_jnode;

typedef struct pm_compact_mode_ops pm_compact_mode_ops;
typedef struct pm_compact_planner pm_compact_planner; /* a mode's planning state */

/* The head of a mode's part of a task or result. */
typedef struct pm_compact_part {
    const pm_compact_mode_ops *mode;
} pm_compact_part;

struct pm_compact_mode_ops {
    const char *name;             /* a task's JSON "mode" */
    const char *part_key;         /* JSON key of the mode's part; NULL = the mode has none */
    bool ordered_buckets;         /* tasks of one bucket run in plan order, one at a time */

    pm_error *(*planner_new)(pm_compact_planner **out, pm_compact_builder *b);
    pm_error *(*plan_bucket)(pm_compact_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf);
    void (*planner_free)(pm_compact_planner *pl);
    /* pending[i] = file bf->files[i] is pending (not folded yet). */
    pm_error *(*pending)(pm_compact_planner *pl, const pm_bucket_files *bf, bool *pending);

    pm_error *(*execute)(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget);

    pm_error *(*validate)(void **state, pm_table *t, pm_compact_result *const *r, size_t n,
                          const pm_scan_result *live);
    void (*validate_free)(void *state);
    /* Index changes computed on every commit attempt from the latest
     * snapshot `live` (data evolution moves the inputs' deletion vectors to
     * the outputs): *added (files written by the hook) and *removed
     * (malloc'd arrays) join the commit.  When set, the inputs' deletion
     * vectors may change between plan and commit (concurrent deletes are
     * carried over, not a conflict).  NULL = the results' own changes. */
    pm_error *(*rebase_index)(pm_table *t, pm_compact_result *const *r, size_t n, const pm_scan_result *live,
                              pm_index_manifest_entry **added, size_t *nadded, pm_index_manifest_entry **removed,
                              size_t *nremoved);

    /* Optional: a whole pm_compact_run for tables of the mode that are not
     * compacted as planned tasks (primary keys: postpone buckets); *done =
     * false leaves the run to the planning loop.  NULL = never. */
    pm_error *(*run)(pm_compact_metrics *out, pm_compact_builder *b, bool *done);

    /* stalled[i] = bucket (partitions[i], buckets[i]) of the latest
     * snapshot `live` must compact before new_files[i] more files. */
    pm_error *(*write_stall)(pm_table *t, const pm_scan_result *live, const pm_bytes *partitions,
                             const int32_t *buckets, const size_t *new_files, size_t n, bool *stalled);

    /* the part (all NULL when part_key is NULL) */
    void (*part_free)(pm_compact_part *p);
    pm_error *(*part_copy)(pm_compact_part **out, const pm_compact_part *p);
    struct json_t *(*part_to_json)(const pm_compact_part *p);     /* NULL on allocation failure */
    pm_error *(*part_from_json)(const struct pm_jnode *n, pm_compact_part **out);
    /* The part agrees with the rest of its task; `doc` names the task in
     * messages ("task", "plan.tasks[2]"). */
    pm_error *(*part_check)(const pm_compact_task *t, const char *doc);
};

/* ---- dispatch (compact_mode.c) ---- */

/* The table's compaction mode, or PM_EUNSUPPORTED / PM_EINVALID saying why
 * the table cannot be compacted. */
pm_error *pm_compact_table_mode(pm_table *t, const pm_compact_mode_ops **out);
/* The mode of a task's JSON "mode" (NULL when unknown). */
const pm_compact_mode_ops *pm_compact_mode_named(const char *name);
/* Every registered mode (in a fixed order). */
const pm_compact_mode_ops *const *pm_compact_modes(size_t *n);
/* The distinct part keys of the registered modes, in registration order,
 * into out[0..cap); returns how many. */
size_t pm_compact_part_keys(const char **out, size_t cap);

/* The owner of parts under `key` (NULL when no mode uses it). */
const pm_compact_mode_ops *pm_compact_part_owner(const char *key);

void pm_compact_part_free(pm_compact_part *p);
pm_error *pm_compact_part_copy(pm_compact_part **out, const pm_compact_part *p);
/* A value of mode `mode` carries that mode's part, and no other; `doc`
 * names the value in messages.  PM_EINVALID naming the part's field. */
pm_error *pm_compact_part_expected(const pm_compact_mode_ops *mode, const pm_compact_part *p, const char *doc);

#endif
