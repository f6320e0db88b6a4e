/*
 * paimon/compact.h — table compaction as plan → execute → commit.
 *
 *   builder = pm_compact_builder_new(table, options)
 *   plan    = pm_compact_plan_new(builder)        captures one snapshot + schema,
 *                                                 picks files by the table mode's rules
 *   result  = pm_compact_execute(table, task, r)  rewrites one task's files into
 *                                                 private new files (publishes nothing)
 *   pm_compact_commit(table, results)             validates, then publishes ONE
 *                                                 COMPACT snapshot atomically
 *
 * Planning and execution publish nothing.  An empty plan or an empty result
 * list publishes nothing.  Plans, tasks and results are plain values that
 * serialize to JSON (with a "format" version), so tasks can run in other
 * processes or machines: a worker opens the table by path, executes the
 * task (which fixes input snapshot, schema and output settings) and returns
 * the result JSON.  Any subset of results of one plan can be committed.
 *
 * Commit rules: results of different plans, duplicate tasks and overlapping
 * inputs are rejected (PM_EINVALID).  PM_ECONFLICT ("replan") when an input
 * file was removed or rewritten, its metadata changed, the table schema
 * changed, or the latest snapshot is below the plan's snapshot (rollback).
 * Concurrent appends commit alongside.  Retrying the same plan and subset
 * with the same commit user is idempotent in any result order (recovery
 * searches only snapshots after the captured one).  PM_EUNCERTAIN means the
 * outcome of publication is unknown: keep the result files and retry the
 * commit.  pm_compact_abort deletes the prepared files of results that will
 * never be committed and names any file it could not delete.
 *
 * Ownership: every *_new has a *_free; getters return values owned by the
 * object they are called on, valid while it lives.
 */
#ifndef PAIMON_COMPACT_H
#define PAIMON_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/version.h"
#include "paimon/error.h"
#include "paimon/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PM_COMPACT_OPTIONS_VERSION 1
#define PM_COMPACT_FORMAT_VERSION 1

typedef struct pm_compact_builder pm_compact_builder;
typedef struct pm_compact_plan pm_compact_plan;
typedef struct pm_compact_task pm_compact_task;
typedef struct pm_compact_result pm_compact_result;
typedef struct pm_resources pm_resources;

/* Memory budget and thread pool shared by reading and writing. */
PM_API pm_error *pm_resources_new(pm_resources **out, int64_t memory_budget_bytes, size_t threads);
PM_API void pm_resources_free(pm_resources *r);

typedef struct pm_compact_options {
    int version;                         /* PM_COMPACT_OPTIONS_VERSION */
    const char *commit_user;             /* stable across retries; NULL = random */
    const char *const *partitions;       /* partition filters "k=v[,k2=v2]" (OR); NULL = all */
    size_t npartitions;
    bool full;                           /* explicit full compaction */
    pm_resources *resources;             /* NULL = defaults */
    /* Dynamic table options "k=v" for this compaction only (planning
     * thresholds and output settings), like Java's compact procedure
     * options; they override the table's options.  NULL = none. */
    const char *const *dynamic_options;
    size_t ndynamic_options;
} pm_compact_options;

typedef struct pm_compact_metrics {
    int64_t snapshot_id;                 /* published (or found on retry); 0 = none */
    int64_t tasks;
    int64_t files_removed;
    int64_t files_added;
    int64_t rows_read;
    int64_t rows_written;
    int64_t bytes_read;
    int64_t bytes_written;
    int64_t duration_ms;
} pm_compact_metrics;
#define PM_COMPACT_METRICS_INIT {0, 0, 0, 0, 0, 0, 0, 0, 0}

PM_API pm_error *pm_compact_builder_new(pm_compact_builder **out, pm_table *t, const pm_compact_options *o);
PM_API void pm_compact_builder_free(pm_compact_builder *b);

/* Plan against the latest snapshot (nothing is written). */
PM_API pm_error *pm_compact_plan_new(pm_compact_plan **out, pm_compact_builder *b);
PM_API void pm_compact_plan_free(pm_compact_plan *p);
PM_API int64_t pm_compact_plan_snapshot_id(const pm_compact_plan *p);
PM_API const char *pm_compact_plan_id(const pm_compact_plan *p);
PM_API const char *pm_compact_plan_commit_user(const pm_compact_plan *p);
PM_API size_t pm_compact_plan_task_count(const pm_compact_plan *p);
PM_API const pm_compact_task *pm_compact_plan_task(const pm_compact_plan *p, size_t i);

/* Execute one task (private outputs only).  r may be NULL. */
PM_API pm_error *pm_compact_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task,
                                    pm_resources *r);
/* Execute every task of a plan (tasks of different buckets in parallel on
 * the resources' pool, tasks of one bucket in order) and commit them. */
PM_API pm_error *pm_compact_run(pm_compact_metrics *out, pm_compact_builder *b);

/* Publish results of ONE plan in one COMPACT snapshot.  commit_user NULL =
 * the plan's commit user recorded in the results. */
PM_API pm_error *pm_compact_commit(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                                   pm_compact_result *const *results, size_t n);
/* Delete the prepared files of results never submitted. */
PM_API pm_error *pm_compact_abort(pm_table *t, pm_compact_result *const *results, size_t n);
PM_API void pm_compact_result_free(pm_compact_result *r);
PM_API void pm_compact_task_free(pm_compact_task *t);

/* Serde: JSON text with "format": PM_COMPACT_FORMAT_VERSION.  *out malloc'd. */
PM_API pm_error *pm_compact_plan_to_json(const pm_compact_plan *p, char **out);
PM_API pm_error *pm_compact_plan_from_json(pm_compact_plan **out, const char *json, size_t len);
PM_API pm_error *pm_compact_task_to_json(const pm_compact_task *t, char **out);
PM_API pm_error *pm_compact_task_from_json(pm_compact_task **out, const char *json, size_t len);
PM_API pm_error *pm_compact_result_to_json(const pm_compact_result *r, char **out);
PM_API pm_error *pm_compact_result_from_json(pm_compact_result **out, const char *json, size_t len);

#ifdef __cplusplus
}
#endif
#endif
