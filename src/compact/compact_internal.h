/*
 * compact/compact_internal.h — the compaction values (plan, task, result,
 * builder, resources) as the compact module sees them, and the helpers its
 * files share: value ownership, copies and equality, the commit
 * identifier, building a task from a bucket's files, the checks of
 * untrusted values (file names, external paths), small lookups in scans.
 * The per-mode interface is compact_mode.h.
 *
 * A task is self-contained: a worker that only has the task (and the table
 * path it names) can run it.  It fixes
 *   - identity: plan id, task index, commit user, captured snapshot and
 *     schema id;
 *   - where: mode, partition (serialized BinaryRow), bucket, total
 *     buckets;
 *   - what: the input files (full DataFileMeta, in the order the executor
 *     streams them), the deletion vectors of those inputs and the DV index
 *     files the task rewrites;
 *   - how: output settings (format, compression, target size and row
 *     count, level) and the mode's part (compact_mode.h).
 * A result repeats the identity and location, lists files before/after,
 * the changelog files, the index changes (DV index files removed and
 * added), the inputs' DV references (for validation at commit), counters
 * and the mode's part.
 *
 * Plans, tasks and results travel between processes: every file they name
 * is checked (pm_compact_*_check_files) when a value is read from JSON and
 * again before it is executed, committed or aborted.
 */
#ifndef PM_COMPACT_INTERNAL_H
#define PM_COMPACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "paimon/compact.h"
#include "table/scan.h"

#include "compact/compact_mode.h"

typedef struct pm_compact_output {
    char *format;                 /* "parquet" or "avro" */
    char *compression;            /* file.compression of the output level */
    int64_t target_file_size;
    int64_t target_file_row_num;  /* INT64_MAX = unlimited */
    int32_t level;                /* 0 for append tables */
    bool rg_passthrough;          /* compaction.parquet.row-group-passthrough */
    int64_t rg_passthrough_min;   /* ...row-group-passthrough.min-size (bytes) */
    bool page_passthrough;        /* compaction.parquet.page-passthrough (default true) */
    int64_t page_reencode_permille; /* ...page-passthrough.reencode-ratio x 1000 (default 900) */
    bool keep_superseded;         /* compaction.pk.skip-superseded=false (primary keys:
                                     compact/pk/pk_superseded.c; default false = skip) */
    bool dict_passthrough;        /* parquet.read.enable-dictionary-passthrough, after the vetoes
                                     (append: compact/append/append_mode.c) */
} pm_compact_output;

/* The deletion vector of one input file at plan time. */
typedef struct pm_compact_dv_ref {
    char *data_file;
    char *index_file;             /* DV index file name (not a path) */
    int64_t offset;
    int64_t length;
    pm_opt_long cardinality;
} pm_compact_dv_ref;

/* A bounded pass: at most max_files pending files and max_bytes bytes of
 * each bucket, oldest first (0 = no bound; both 0 = not a bounded pass). */
typedef struct pm_compact_limits {
    int64_t max_files;
    int64_t max_bytes;
} pm_compact_limits;

static inline bool pm_compact_limited(const pm_compact_limits *l)
{
    return l->max_files > 0 || l->max_bytes > 0;
}

struct pm_compact_task {
    char *table_path;
    char *plan_id;
    char *commit_user;
    int64_t task_index;
    int64_t snapshot_id;
    int64_t schema_id;
    const pm_compact_mode_ops *mode;
    bool full;
    pm_bytes partition;
    int32_t bucket;
    int32_t total_buckets;
    pm_compact_output output;
    pm_data_file_meta *files;     /* inputs, in streaming order */
    size_t nfiles;
    pm_compact_dv_ref *dvs;       /* DVs of inputs (subset of files) */
    size_t ndvs;
    pm_index_manifest_entry *dv_index; /* DV index files the task rewrites (kind ADD) */
    size_t ndv_index;
    pm_compact_part *part;        /* the mode's part (NULL for a mode without one) */
};

struct pm_compact_result {
    char *plan_id;
    char *commit_user;
    char *table_path;
    int64_t task_index;
    int64_t snapshot_id;
    int64_t schema_id;
    pm_bytes partition;
    int32_t bucket;
    int32_t total_buckets;
    pm_data_file_meta *before;
    size_t nbefore;
    pm_data_file_meta *after;
    size_t nafter;
    pm_compact_dv_ref *dvs;       /* inputs' DVs at plan time */
    size_t ndvs;
    pm_index_manifest_entry *index_added;   /* kind ADD */
    size_t nindex_added;
    pm_index_manifest_entry *index_removed; /* kind DELETE */
    size_t nindex_removed;
    pm_compact_counters counters;    /* version PM_COMPACT_COUNTERS_VERSION */
    pm_compact_part *part;        /* the task's part, copied */
    pm_data_file_meta *changelog; /* changelog files (primary keys with a changelog producer) */
    size_t nchangelog;
};

struct pm_compact_plan {
    char *table_path;
    char *plan_id;
    char *commit_user;
    int64_t snapshot_id;          /* 0 = the table had no snapshot */
    int64_t schema_id;
    bool full;
    pm_compact_task **tasks;
    size_t ntasks;
    /* The plan's scan of the whole table when it had no partition or
     * bucket filter (owned; NULL otherwise; never serialized):
     * pm_compact_run_plan hands it to the commit as the latest snapshot's
     * live files, so an unchanged table's manifests are not read again. */
    pm_scan_result *scan;
};

struct pm_resources {
    int64_t memory_budget;        /* bytes shared by the tasks running at once */
    size_t threads;
    struct pm_pool *pool;         /* owned; NULL when threads == 0 */
};

struct pm_compact_builder {
    pm_table *table;              /* borrowed */
    char *commit_user;
    pm_partition_spec *specs;
    size_t nspecs;
    pm_options *opts;             /* table options + dynamic options (owned) */
    bool full;
    pm_resources *resources;      /* borrowed; NULL = pm_compact_run makes its own */
    /* automatic compaction: restrict to these (partition, bucket) pairs */
    const pm_bytes *only_partitions;
    const int32_t *only_buckets;
    size_t nonly;
    int64_t only_snapshot_id;     /* 0 = latest */
    bool automatic;               /* an after-write round (primary keys pick differently) */
    pm_compact_progress_fn progress; /* pm_compact_run */
    void *progress_ctx;
    size_t parallelism;           /* pm_compact_run: 0 = the resources' threads */
    pm_compact_triggers *triggers; /* borrowed: a long-lived caller's round counters */
    bool has_bucket;              /* only bucket `bucket` */
    int32_t bucket;
    pm_compact_limits limits;     /* a bounded pass (compact_pending.c) */
};

/* A round that selected nothing for (partition, bucket): its counter
 * advances; *fire when it reaches `interval` (then it restarts at 0). */
pm_error *pm_compact_triggers_bump(pm_compact_triggers *t, const pm_bytes *part, int32_t bucket, int32_t interval,
                                   bool *fire);

/* ---- values ---- */
void pm_compact_output_clear(pm_compact_output *o);
pm_error *pm_compact_output_copy(pm_compact_output *dst, const pm_compact_output *src);
void pm_compact_dv_ref_clear(pm_compact_dv_ref *d);
pm_error *pm_compact_dv_ref_copy(pm_compact_dv_ref *dst, const pm_compact_dv_ref *src);
void pm_compact_dv_refs_free(pm_compact_dv_ref *d, size_t n);
void pm_data_file_metas_free(pm_data_file_meta *f, size_t n);
pm_error *pm_data_file_metas_copy(pm_data_file_meta **dst, const pm_data_file_meta *src, size_t n);
pm_error *pm_index_entries_copy(pm_index_manifest_entry **dst, const pm_index_manifest_entry *src, size_t n);
pm_error *pm_compact_task_copy(pm_compact_task **out, const pm_compact_task *t);

/* Deep equality of every DataFileMeta field (null vs empty distinguished). */
bool pm_data_file_meta_equal(const pm_data_file_meta *a, const pm_data_file_meta *b);
bool pm_compact_bytes_equal(const pm_bytes *a, const pm_bytes *b);

/* Versioned out-structs of the public API: NULL or a known version, else
 * PM_EINVALID naming the struct; put copies the fields out->version knows
 * (nothing for NULL). */
pm_error *pm_compact_metrics_check(const pm_compact_metrics *out);
void pm_compact_metrics_put(pm_compact_metrics *out, const pm_compact_metrics *m);

/* pm_compact_commit with the plan's scan (borrowed, may be NULL): the
 * validation takes it as the latest snapshot's live files when it is a
 * scan of that snapshot (table_commit.h latest_scan). */
pm_error *pm_compact_commit_scanned(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                                    pm_compact_result *const *results, size_t n, const pm_scan_result *scan);

/* Commit identifier of a subset of one plan: a positive 63-bit hash of the
 * plan id and the sorted task indexes (below PM_BATCH_COMMIT_IDENTIFIER),
 * so the same subset in any order gives the same identifier. */
int64_t pm_compact_commit_identifier(const char *plan_id, const int64_t *task_indexes, size_t n);

/* ---- planning (compact_plan.c) ---- */
/* A task of plan p for bucket bf of mode `mode`: identity and location
 * from p and bf, inputs bf->files[idx[0..n)] (copied, in that order) with
 * their deletion vectors, and the bucket's DV index files the task
 * rewrites: all of them (whole_bucket_index) or those holding an input's
 * vector.  The caller sets the output settings and the part, then adds it
 * with pm_compact_plan_add_task. */
pm_error *pm_compact_task_new(pm_compact_task **out, const pm_compact_plan *p, const pm_compact_mode_ops *mode,
                              const pm_bucket_files *bf, const size_t *idx, size_t n, bool whole_bucket_index);
/* Append t (owned from now on, also on failure) as task p->ntasks. */
pm_error *pm_compact_plan_add_task(pm_compact_plan *p, pm_compact_task *t);
/* Output settings of `level` from the options: file format and compression
 * of the level (file.format.per.level / file.compression.per.level, else
 * the table's; parquet or avro), target-file-size (primary-key flavour
 * when pk), target-file-row-num (unset = unlimited). */
pm_error *pm_compact_output_for_level(const pm_options *o, int32_t level, bool pk, pm_compact_output *out);

/* ---- pending files and bounded passes (compact_pending.c) ---- */
/* The oldest-first order of files: (min sequence, max sequence, name). */
int pm_compact_file_age_cmp(const pm_data_file_meta *a, const pm_data_file_meta *b);
/* The prefix of a bounded pass: the files i with pending[i], oldest first,
 * while they fit the limits (the first is always taken), as indexes into
 * files[0..n) in that order into *idx (malloc'd; *nidx = 0 and NULL when
 * nothing is pending). */
pm_error *pm_compact_pending_prefix(const pm_data_file_meta *files, size_t n, const bool *pending,
                                    const pm_compact_limits *l, size_t **idx, size_t *nidx);

/* ---- execution (compact_run.c) ---- */
/* Check a task against the table (same table, the table's mode, its part,
 * its file names and external paths), then run it with an explicit memory
 * share (bytes). */
pm_error *pm_compact_execute_with_budget(pm_compact_result **out, pm_table *t, const pm_compact_task *task,
                                         int64_t memory_budget);

/* ---- results ---- */
pm_error *pm_compact_result_new_for_task(pm_compact_result **out, const pm_compact_task *task);
/* The bucket's one DV index file after a task: when the maintainer m
 * changed, its new file is written and becomes the result's ADD, every DV
 * index file of the task its DELETE. */
struct pm_dv_maintainer;
pm_error *pm_compact_result_dv_rewrite(pm_compact_result *r, const pm_compact_task *task, struct pm_dv_maintainer *m);

/* ---- untrusted values (compact_check.c) ----
 * Every file a task or result names is a plain file name (data files
 * before/after, changelog files, extra files, DV references, DV ranges,
 * index files) and, when the table is at hand (roots_known), every
 * external path lies under `roots` (the table's data-file.external-paths);
 * values read from JSON get the name checks, their external paths are
 * checked against the table at execute, commit and abort.
 * `doc` names the value ("task", "result", "plan.tasks[2]"); errors are
 * PM_EINVALID (PM_EUNSUPPORTED for a non-local scheme) naming the field,
 * e.g. "result.after[0].file_name". */
/* The same checks for any array of data files or index entries (also
 * used for read splits and commit messages): "<doc>.<field>[i].<member>". */
pm_error *pm_compact_check_data_files(const char *doc, const char *field, const pm_data_file_meta *files, size_t n,
                                      bool roots_known, const char *roots);
pm_error *pm_compact_check_index_files(const char *doc, const char *field, const pm_index_manifest_entry *e,
                                       size_t n, bool roots_known, const char *roots);
pm_error *pm_compact_task_check_files(const pm_compact_task *t, const char *doc, bool roots_known, const char *roots);
pm_error *pm_compact_result_check_files(const pm_compact_result *r, const char *doc, bool roots_known,
                                        const char *roots);
/* The table checks every mode shares (over options o): no data evolution,
 * row tracking only on append tables with bucket -1, no blob or VARIANT
 * columns, no data-file indexes (the
 * outputs would lack them), new files not to external paths.  `kind` names
 * the tables in messages ("append tables").  PM_EUNSUPPORTED otherwise. */
pm_error *pm_compact_check_common(pm_table *t, const pm_options *o, const char *kind);
/* The part of those checks about outputs (no data-file indexes, new files
 * not to external paths), for modes with their own table rules. */
pm_error *pm_compact_check_outputs(pm_table *t, const pm_options *o);
/* Delete the index files of `added` (entries of (partition, bucket) whose
 * files were written and will not be published); errors are ignored. */
void pm_compact_delete_index_files(pm_table *t, const pm_index_manifest_entry *added, size_t n);
/* The table's data-file.external-paths (NULL = none). */
const char *pm_compact_external_roots(pm_table *t);
/* Do paths a and b name the same table (textually or after realpath)? */
bool pm_compact_same_table(const char *a, const char *b);

/* ---- lookups in scans (compact_values.c) ---- */
const pm_bucket_files *pm_compact_find_bucket(const pm_scan_result *sr, const pm_bytes *partition, int32_t bucket);
/* The deletion vector of data file `name` in the bucket (NULL = none). */
const pm_deletion_file *pm_compact_find_dv(const pm_bucket_files *bf, const char *name);
/* The last segment of a path. */
const char *pm_compact_base_name(const char *path);
/* fn(ctx, entry) for every entry of the manifests of manifest list `name`
 * (a file of the table's manifest directory). */
pm_error *pm_compact_manifest_list_entries(pm_table *t, const char *name,
                                           pm_error *(*fn)(void *ctx, const pm_manifest_entry *e), void *ctx);


#endif
