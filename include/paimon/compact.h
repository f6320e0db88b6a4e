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
 *   pm_compact_run(builder)                       all three in one call
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
 * Plans, tasks and results may come from anywhere (other processes,
 * machines, a network): they are checked when read from JSON and again
 * before they are executed, committed or aborted, and a bad one changes
 * nothing on disk.
 *
 * Ownership: every *_new has a *_free; getters return values owned by the
 * object they are called on, valid while it lives.  Options, metrics and
 * counters are versioned structs: initialize them with their _INIT macro
 * (or pm_compact_options_init).
 */
#ifndef PAIMON_COMPACT_H
#define PAIMON_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/table.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PM_COMPACT_OPTIONS_VERSION 2
#define PM_COMPACT_METRICS_VERSION 2
#define PM_COMPACT_COUNTERS_VERSION 1
#define PM_COMPACT_FORMAT_VERSION 1

typedef struct pm_compact_builder pm_compact_builder;
typedef struct pm_compact_plan pm_compact_plan;
typedef struct pm_compact_task pm_compact_task;
typedef struct pm_compact_result pm_compact_result;
typedef struct pm_resources pm_resources;

/* Memory budget and thread pool shared by reading and writing.
 * memory_budget_bytes > 0; threads 0 = no pool (tasks run on the caller's
 * thread).  Free with pm_resources_free (after every builder using it). */
PM_API pm_error *pm_resources_new(pm_resources **out, int64_t memory_budget_bytes, size_t threads);
PM_API void pm_resources_free(pm_resources *r);

/* Called after each task of pm_compact_run: `done` of `total` tasks are
 * finished; r is the task's result (NULL when the task failed), valid
 * only during the call.  Calls are serialized (never two at once), from
 * the pool's threads or the caller's. */
typedef void (*pm_compact_progress_fn)(void *ctx, size_t done, size_t total, const pm_compact_result *r);

typedef struct pm_compact_options {
    int version;                         /* PM_COMPACT_OPTIONS_VERSION */
    const char *commit_user;             /* stable across retries; NULL = random */
    const char *const *partitions;       /* partition filters "k=v[,k2=v2]" (OR); NULL = all */
    size_t npartitions;
    bool full;                           /* explicit full compaction */
    pm_resources *resources;             /* NULL = 256 MiB and min(CPUs, 4) threads */
    /* Dynamic table options "k=v" for this compaction only (planning
     * thresholds and output settings), like Java's compact procedure
     * options; they override the table's options.  NULL = none. */
    const char *const *dynamic_options;
    size_t ndynamic_options;
    pm_compact_progress_fn progress;     /* pm_compact_run: NULL = none */
    void *progress_ctx;
    /* pm_compact_run: buckets compacted at once; 0 = the resources'
     * threads.  Capped by the pool's threads and by the number of buckets
     * to compact (append-unaware tables: tasks, which are independent). */
    size_t parallelism;
    /* ---- version 2 (a version-1 struct ends above; its passes are unbounded) ---- */
    /* Only bucket `bucket` (of the partitions filtered) when has_bucket;
     * unaware-bucket append tables have the one bucket 0. */
    bool has_bucket;
    int32_t bucket;
    /* A bounded pass when either is > 0: of every bucket planned, only a
     * prefix of its pending files (pm_compact_pending's, oldest first) of
     * at most max_input_files files and max_input_bytes bytes (the oldest
     * file is taken even when it alone is larger) is compacted.  Primary
     * keys: the prefix's level-0 files are picked as by `paimon compact`
     * over the bucket without its newer level-0 files (so every file of the
     * prefix is folded, with the runs above them universal compaction
     * absorbs); append tables: the prefix is one task when it holds two
     * files or more (fixed buckets: the contiguous run of files in
     * sequence order from the oldest pending file; unaware buckets with
     * deletion vectors: widened to whole DV index files).  Not with full. */
    size_t max_input_files;
    int64_t max_input_bytes;
} pm_compact_options;

#define PM_COMPACT_OPTIONS_INIT {.version = PM_COMPACT_OPTIONS_VERSION}
/* *o = PM_COMPACT_OPTIONS_INIT (every other field zero / NULL).  Version 1
 * structs are still accepted (they stop before has_bucket). */
PM_API void pm_compact_options_init(pm_compact_options *o);

/* What a run or a commit did.  The caller sets `version`
 * (PM_COMPACT_METRICS_INIT); the library fills the fields that version
 * knows and refuses (PM_EINVALID) a version it does not know, before doing
 * anything.  Version 1 ends at duration_ms; version 2 adds the changelog
 * counts.  The data counts (files_*, rows_*, bytes_*) never include
 * changelog files. */
typedef struct pm_compact_metrics {
    int version;                         /* PM_COMPACT_METRICS_VERSION */
    int64_t snapshot_id;                 /* published (or found on retry); 0 = none */
    int64_t tasks;
    int64_t files_removed;
    int64_t files_added;
    int64_t rows_read;
    int64_t rows_written;
    int64_t bytes_read;
    int64_t bytes_written;
    int64_t duration_ms;
    /* version 2: changelog files the compaction wrote (changelog-producer
     * lookup or full-compaction), their rows and bytes */
    int64_t changelog_files_added;
    int64_t changelog_rows_written;
    int64_t changelog_bytes_written;
} pm_compact_metrics;

#define PM_COMPACT_METRICS_INIT {.version = PM_COMPACT_METRICS_VERSION}

/* What one task did (versioned like the metrics). */
typedef struct pm_compact_counters {
    int version;                         /* PM_COMPACT_COUNTERS_VERSION */
    int64_t rows_read;                   /* rows in the input files */
    int64_t rows_deleted;                /* of those, dropped by deletion vectors */
    int64_t rows_written;
    int64_t bytes_read;                  /* input file sizes */
    int64_t bytes_written;               /* output file sizes */
    int64_t duration_ms;
} pm_compact_counters;

#define PM_COMPACT_COUNTERS_INIT {.version = PM_COMPACT_COUNTERS_VERSION}

/* Round counters a long-lived caller (a streaming writer, a compaction
 * service) keeps across the compactions of one table, per bucket, so
 * lookup-compact=gentle can work: when the automatic pick selects nothing,
 * a bucket's counter advances, and every lookup-compact.max-interval-th
 * time (default 2 × num-sorted-run.compaction-trigger, at least the
 * trigger) its level-0 files are forced up (Java's ForceUpLevel0Compaction
 * with a max interval).  Without counters, automatic rounds refuse
 * lookup-compact=gentle (PM_EUNSUPPORTED).  Not thread-safe: one caller at
 * a time. */
typedef struct pm_compact_triggers pm_compact_triggers;
PM_API pm_error *pm_compact_triggers_new(pm_compact_triggers **out);
PM_API void pm_compact_triggers_free(pm_compact_triggers *t);

/* The builder borrows t (and o->resources) until it is freed; it copies
 * everything else it needs from o (NULL = defaults). */
PM_API pm_error *pm_compact_builder_new(pm_compact_builder **out, pm_table *t, const pm_compact_options *o);
PM_API void pm_compact_builder_free(pm_compact_builder *b);
/* Plan as an automatic round (the strategies' own triggers, no forced
 * progress) counting lookup-compact=gentle rounds in t (borrowed until the
 * builder is freed; NULL = back to an explicit plan). */
PM_API void pm_compact_builder_set_triggers(pm_compact_builder *b, pm_compact_triggers *t);

/* Plan against the latest snapshot (nothing is written).  The plan is
 * independent of the builder and the table afterwards.  A plan of the whole
 * table (no partition or bucket filter) holds its scan of the table's live
 * files until freed: pm_compact_run_plan's commit through the same table
 * handle then validates against it instead of reading the manifests again
 * when no snapshot came after the plan's. */
PM_API pm_error *pm_compact_plan_new(pm_compact_plan **out, pm_compact_builder *b);
PM_API void pm_compact_plan_free(pm_compact_plan *p);
/* Plan getters: strings owned by the plan, valid while it lives. */
PM_API int64_t pm_compact_plan_snapshot_id(const pm_compact_plan *p);   /* 0 = the table had no snapshot */
PM_API const char *pm_compact_plan_id(const pm_compact_plan *p);
PM_API const char *pm_compact_plan_commit_user(const pm_compact_plan *p);
PM_API const char *pm_compact_plan_table_path(const pm_compact_plan *p);
PM_API size_t pm_compact_plan_task_count(const pm_compact_plan *p);
/* Task i, owned by the plan (valid while it lives); NULL when i is out of range. */
PM_API const pm_compact_task *pm_compact_plan_task(const pm_compact_plan *p, size_t i);

/* Task getters: strings owned by the task, valid while it lives. */
PM_API size_t pm_compact_task_index(const pm_compact_task *t);
PM_API const char *pm_compact_task_table_path(const pm_compact_task *t);
PM_API const char *pm_compact_task_plan_id(const pm_compact_task *t);
PM_API int32_t pm_compact_task_bucket(const pm_compact_task *t);
PM_API size_t pm_compact_task_file_count(const pm_compact_task *t);       /* input files */

/* Execute one task (private outputs only) with the resources' memory
 * budget (r NULL = 256 MiB).  The task is checked first (its table is t,
 * t's mode, every file name plain, external paths under t's roots).
 * *out owned by the caller (pm_compact_result_free). */
PM_API pm_error *pm_compact_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, pm_resources *r);
/* Plan, execute every task (tasks of different buckets in parallel on the
 * resources' pool, tasks of one bucket in order; the options' progress
 * and parallelism) and commit them in one COMPACT snapshot.  *out (may be
 * NULL) gets the metrics (all zero and snapshot id 0 when nothing was to
 * be compacted). */
PM_API pm_error *pm_compact_run(pm_compact_metrics *out, pm_compact_builder *b);

/* Publish results of ONE plan in one COMPACT snapshot.  commit_user NULL =
 * the plan's commit user recorded in the results.  The results are
 * checked first (their table is t, t's mode, file names, external paths):
 * PM_EINVALID naming the field, nothing published. */
PM_API pm_error *pm_compact_commit(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                            pm_compact_result *const *results, size_t n);
/* Delete the prepared files of results never submitted: only files of t
 * that a result could have produced (plain names as the writers name data,
 * changelog and index files, in t's bucket directories, index directory or
 * external roots) and that no snapshot references (a live one is refused
 * naming it, and nothing is deleted).  Names every file it could not
 * delete. */
PM_API pm_error *pm_compact_abort(pm_table *t, pm_compact_result *const *results, size_t n);
PM_API void pm_compact_result_free(pm_compact_result *r);
PM_API void pm_compact_task_free(pm_compact_task *t);

/* Result getters: strings owned by the result, valid while it lives. */
PM_API size_t pm_compact_result_task_index(const pm_compact_result *r);
PM_API const char *pm_compact_result_table_path(const pm_compact_result *r);
PM_API const char *pm_compact_result_plan_id(const pm_compact_result *r);
PM_API size_t pm_compact_result_files_before(const pm_compact_result *r);     /* inputs removed or upgraded */
PM_API size_t pm_compact_result_files_after(const pm_compact_result *r);      /* outputs (and upgraded inputs) */
PM_API size_t pm_compact_result_changelog_files(const pm_compact_result *r);
PM_API size_t pm_compact_result_index_files_added(const pm_compact_result *r);
/* The task's counters into *out (out->version set by the caller with
 * PM_COMPACT_COUNTERS_INIT; PM_EINVALID for an unknown version). */
PM_API pm_error *pm_compact_result_counters(const pm_compact_result *r, pm_compact_counters *out);

/* ---- pending files: what a bounded pass would fold, per bucket ----
 * A file is pending when its mode has not folded it yet: level-0 files of
 * primary-key tables, files below the compaction threshold of append
 * tables (target-file-size x compaction.small-file-ratio, and with
 * deletion vectors files above compaction.delete-ratio-threshold).  The
 * order is oldest first: (min sequence number, max sequence number, file
 * name). */
typedef struct pm_compact_pending_file {
    const char *file_name;
    int32_t level;
    int64_t file_size;
    int64_t min_sequence_number;
    int64_t max_sequence_number;
    bool has_creation_time;
    int64_t creation_time_ms;            /* epoch millis of the local date-time stored */
} pm_compact_pending_file;

/* One (partition, bucket) of the snapshot with its live and pending files. */
typedef struct pm_compact_pending_bucket {
    const char *partition;               /* "k1=v1/k2=v2" ("" unpartitioned), as in files.h */
    /* The pm_compact_options.partitions entry selecting exactly this
     * partition ("k1=v1,k2=v2"); NULL when unpartitioned. */
    const char *partition_filter;
    int32_t bucket;
    size_t files;                        /* live files */
    int64_t bytes;
    int32_t max_level;                   /* highest level of a live file */
    size_t npending;
    int64_t pending_bytes;
    /* now - the oldest pending creation time at listing (local clock,
     * epoch millis of the local date-time as stored; >= 0), or -1 when no
     * pending file records its creation time. */
    int64_t oldest_pending_age_ms;
    const pm_compact_pending_file *pending; /* npending files, oldest first */
} pm_compact_pending_bucket;

typedef struct pm_compact_pending_list pm_compact_pending_list;

/* Pending files of every bucket of the latest snapshot that o selects
 * (o: partitions, has_bucket/bucket, dynamic_options for the thresholds;
 * NULL = all, table options), buckets without files left out, ordered
 * by partition and bucket.  The table's mode decides what is pending: a
 * table compaction does not support is PM_EUNSUPPORTED saying why. */
PM_API pm_error *pm_compact_pending(pm_compact_pending_list **out, pm_table *t, const pm_compact_options *o);
PM_API void pm_compact_pending_list_free(pm_compact_pending_list *l);
/* The snapshot listed (0 = the table has none). */
PM_API int64_t pm_compact_pending_snapshot_id(const pm_compact_pending_list *l);
/* The table's compaction mode ("append-unaware", "append-bucketed",
 * "primary-key", ...); owned by l. */
PM_API const char *pm_compact_pending_mode(const pm_compact_pending_list *l);
PM_API size_t pm_compact_pending_count(const pm_compact_pending_list *l);
/* Bucket i (NULL when out of range); owned by l, valid while it lives. */
PM_API const pm_compact_pending_bucket *pm_compact_pending_get(const pm_compact_pending_list *l, size_t i);

/* Serde: JSON text with "format": PM_COMPACT_FORMAT_VERSION.  *out is
 * malloc'd (free()).  Reading is strict (unknown or missing keys, wrong
 * types, ranges, file names that are not plain names: PM_EINVALID naming
 * the field, e.g. "result.after[0].file_name"). */
PM_API pm_error *pm_compact_plan_to_json(char **out, const pm_compact_plan *p);
PM_API pm_error *pm_compact_plan_from_json(pm_compact_plan **out, const char *json, size_t len);
PM_API pm_error *pm_compact_task_to_json(char **out, const pm_compact_task *t);
PM_API pm_error *pm_compact_task_from_json(pm_compact_task **out, const char *json, size_t len);
PM_API pm_error *pm_compact_result_to_json(char **out, const pm_compact_result *r);
PM_API pm_error *pm_compact_result_from_json(pm_compact_result **out, const char *json, size_t len);

typedef enum { PM_COMPACT_DOC_PLAN, PM_COMPACT_DOC_TASK, PM_COMPACT_DOC_RESULT } pm_compact_doc_kind;
/* Which document a JSON text is (its "format" and "kind"), without
 * reading the rest: PM_EINVALID for malformed JSON or an unknown kind,
 * PM_EUNSUPPORTED for another format version. */
PM_API pm_error *pm_compact_doc_kind_of(pm_compact_doc_kind *out, const char *json, size_t len);

/* ---- data-evolution tables: materializing deletion vectors ----
 * pm_materialize_deletions rewrites the row-ID groups whose deletion
 * vectors hold logical deletes: each group is read with its deletions
 * applied and its surviving rows written as new files (they get NEW row
 * IDs at commit, from the snapshot's nextRowId), its files are replaced,
 * its vector removed and the global index entries of its range dropped,
 * in one COMPACT snapshot per batch.  A batch gathers groups until about
 * `batch_vectors` vectors (a soft target: a group is never split); batches
 * repeat until nothing is left, each reported through `progress`.
 * Needs a data-evolution table with deletion-vectors.enabled=true;
 * a table without logical deletes is reported as nothing to materialize
 * (metrics all zero).  A group's `.blob` files are rewritten with it
 * (each new normal file followed by its blob files); dedicated vector
 * files are PM_EUNSUPPORTED.  A batch whose groups changed before its commit (a
 * concurrent write, delete or compaction) fails with PM_ECONFLICT and
 * publishes nothing (its files are deleted); the batches before it stay. */
/* Version 2 added `where`; a version 1 struct (without it) is still
 * accepted. */
#define PM_MATERIALIZE_OPTIONS_VERSION 2
typedef struct pm_materialize_options {
    int version;                       /* PM_MATERIALIZE_OPTIONS_VERSION */
    const char *const *partitions;     /* "k=v[,k2=v2]" specs (any of them); NULL = every partition */
    size_t npartitions;
    int64_t batch_vectors;             /* soft target per batch; 0 = 100000 */
    const char *commit_user;           /* NULL = a random UUID */
    /* after each committed batch (may be NULL) */
    void (*progress)(void *ctx, int64_t batch, int64_t groups, int64_t rows_removed, int64_t snapshot_id);
    void *progress_ctx;
    /* Only partitions satisfying this predicate, e.g. "dt >= 20260801"
     * (the language of pm_read_options.filter; every column must be a
     * partition key); exclusive with `partitions` (both: PM_EINVALID).
     * Borrowed.  NULL = every partition. */
    const char *where;
} pm_materialize_options;
#define PM_MATERIALIZE_OPTIONS_INIT {PM_MATERIALIZE_OPTIONS_VERSION, NULL, 0, 0, NULL, NULL, NULL, NULL}
PM_API void pm_materialize_options_init(pm_materialize_options *o);

#define PM_MATERIALIZE_METRICS_VERSION 1
typedef struct pm_materialize_metrics {
    int version;                       /* PM_MATERIALIZE_METRICS_VERSION */
    int64_t batches;                   /* COMMIT snapshots published */
    int64_t groups;                    /* row-ID groups rewritten */
    int64_t rows_removed;              /* logically deleted rows dropped */
    int64_t rows_kept;                 /* surviving rows rewritten (new row IDs) */
    int64_t last_snapshot_id;          /* 0 = none */
} pm_materialize_metrics;
#define PM_MATERIALIZE_METRICS_INIT {PM_MATERIALIZE_METRICS_VERSION, 0, 0, 0, 0, 0}
/* *m = PM_MATERIALIZE_METRICS_INIT. */
PM_API void pm_materialize_metrics_init(pm_materialize_metrics *m);

/* out must be initialized with PM_MATERIALIZE_METRICS_INIT; o NULL = defaults. */
PM_API pm_error *pm_materialize_deletions(pm_materialize_metrics *out, pm_table *t,
                                          const pm_materialize_options *o);

#ifdef __cplusplus
}
#endif
#endif
