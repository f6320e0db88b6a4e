/*
 * compact/compact_internal.h — the three compaction values (plan, task,
 * result) and the builder as the compact module sees them, plus helpers
 * shared by its files (value copies and equality, the commit identifier).
 *
 * A task is self-contained: a worker that only has the task (and the table
 * path it names) can run it.  It fixes
 *   - identity: plan id, task index, commit user, captured snapshot and
 *     schema id;
 *   - where: table mode, partition (serialized BinaryRow), bucket, total
 *     buckets;
 *   - what: the input files (full DataFileMeta, in the order the executor
 *     streams them), the deletion vectors of those inputs and the DV index
 *     files the task rewrites;
 *   - how: output settings (format, compression, target size and row
 *     count, level).
 * A result repeats the identity and location, lists files before/after,
 * the index changes (DV index files removed and added), the inputs' DV
 * references (for validation at commit) and counters.
 */
#ifndef PM_COMPACT_INTERNAL_H
#define PM_COMPACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "paimon/compact.h"
#include "table/scan.h"

typedef enum pm_compact_mode {
    PM_COMPACT_MODE_UNAWARE = 0,  /* append table, bucket = -1 */
    PM_COMPACT_MODE_BUCKETED = 1, /* append table, bucket > 0 */
    PM_COMPACT_MODE_PK = 2        /* primary-key table, bucket > 0 (pk_compact.h) */
} pm_compact_mode;

/* The primary-key part of a task / result (pk_compact.h); NULL otherwise. */
typedef struct pm_compact_pk pm_compact_pk;

const char *pm_compact_mode_name(pm_compact_mode m);

typedef struct pm_compact_output {
    char *format;                 /* "parquet" or "avro" */
    char *compression;            /* file.compression of the output level */
    int64_t target_file_size;
    int64_t target_file_row_num;  /* INT64_MAX = unlimited */
    int32_t level;                /* 0 for append tables */
    bool rg_passthrough;          /* compaction.parquet.row-group-passthrough */
    int64_t rg_passthrough_min;   /* ...row-group-passthrough.min-size (bytes) */
} pm_compact_output;

/* The deletion vector of one input file at plan time. */
typedef struct pm_compact_dv_ref {
    char *data_file;
    char *index_file;             /* DV index file name (not a path) */
    int64_t offset;
    int64_t length;
    pm_opt_long cardinality;
} pm_compact_dv_ref;

struct pm_compact_task {
    char *table_path;
    char *plan_id;
    char *commit_user;
    int64_t task_index;
    int64_t snapshot_id;
    int64_t schema_id;
    pm_compact_mode mode;
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
    pm_compact_pk *pk;            /* primary keys: output level, policy */
};

typedef struct pm_compact_counters {
    int64_t rows_read;            /* rows in the input files */
    int64_t rows_deleted;         /* of those, dropped by deletion vectors */
    int64_t rows_written;
    int64_t bytes_read;           /* input file sizes */
    int64_t bytes_written;        /* output file sizes */
    int64_t duration_ms;
} pm_compact_counters;

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
    pm_compact_counters counters;
    pm_compact_pk *pk;            /* primary keys: copied from the task */
    pm_data_file_meta *changelog; /* primary keys, changelog-producer=lookup: changelog files */
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
    pm_resources *resources;      /* borrowed, or owned_resources */
    pm_resources *owned_resources;
    /* automatic compaction: restrict to these (partition, bucket) pairs */
    const pm_bytes *only_partitions;
    const int32_t *only_buckets;
    size_t nonly;
    int64_t only_snapshot_id;     /* 0 = latest */
    bool automatic;               /* an after-write round (primary keys pick differently) */
};

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

/* Commit identifier of a subset of one plan: a positive 63-bit hash of the
 * plan id and the sorted task indexes (below PM_BATCH_COMMIT_IDENTIFIER),
 * so the same subset in any order gives the same identifier. */
int64_t pm_compact_commit_identifier(const char *plan_id, const int64_t *task_indexes, size_t n);

/* ---- planning (compact_plan.c) ---- */
/* Check that the table is an append table whose mode compaction supports;
 * *mode gets it.  PM_EUNSUPPORTED naming the mode otherwise. */
pm_error *pm_compact_check_table(pm_table *t, pm_compact_mode *mode);

/* ---- execution (compact_execute.c) ---- */
/* Executor with an explicit memory share (bytes) for this task. */
pm_error *pm_compact_execute_with_budget(pm_compact_result **out, pm_table *t, const pm_compact_task *task,
                                         int64_t memory_budget);

/* ---- results ---- */
pm_error *pm_compact_result_new_for_task(pm_compact_result **out, const pm_compact_task *task);

/* Test failpoints: PAIMON_FAULT_INJECT names one (comma-separated list).
 * Only builds without NDEBUG check the variable. */
bool pm_compact_fault(const char *name);

#endif
