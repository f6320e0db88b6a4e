/*
 * paimon/files.h — what a snapshot holds, file by file: the live data files
 * (like Paimon's `$files` system table) and, for primary-key tables, the
 * sorted runs of every bucket's LSM tree (levels).
 *
 * Both views are read-only values built from one snapshot's manifests.
 * The structs they hand out are owned by the list and valid until it is
 * freed; new fields are only ever added at the end of the structs, which
 * the library allocates, so a caller never allocates one.  Text fields are
 * display strings: partitions as "k1=v1/k2=v2" ("" when unpartitioned,
 * values as in the partition directory names), keys as JSON arrays of the
 * key's values in the `paimon cat` encoding ("[1, \"a\"]"), times as
 * "YYYY-MM-DDTHH:MM:SS.mmm" (a local date-time, as Paimon stores it).
 */
#ifndef PAIMON_FILES_H
#define PAIMON_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/read.h"
#include "paimon/table.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One live data file. */
typedef struct pm_file_info {
    const char *partition;
    int32_t bucket;
    const char *path;                 /* where the file is (table path or external path) */
    const char *file_name;
    const char *format;               /* "parquet", "avro", ... (from the name) */
    int64_t schema_id;
    int32_t level;
    int64_t record_count;
    int64_t file_size;
    int64_t min_sequence_number;
    int64_t max_sequence_number;
    const char *creation_time;        /* NULL when absent */
    bool has_delete_row_count;
    int64_t delete_row_count;
    const char *file_source;          /* "APPEND", "COMPACT" or NULL */
    bool has_first_row_id;
    int64_t first_row_id;
    const char *const *write_cols;    /* NULL when absent (all columns) */
    size_t nwrite_cols;
    const char *external_path;        /* NULL when in the table directory */
    bool has_deletion_vector;
    bool has_deleted_rows;            /* the vector's cardinality is known */
    int64_t deleted_rows;             /* rows the deletion vector removes */
    const char *min_key;              /* primary-key tables; NULL otherwise */
    const char *max_key;
} pm_file_info;

typedef struct pm_file_list pm_file_list;

/* Live data files of the snapshot o picks (o: snapshot_id, partitions;
 * NULL = latest, all), ordered by partition, bucket and manifest order. */
PM_API pm_error *pm_table_files(pm_file_list **out, pm_table *t, const pm_read_options *o);
PM_API void pm_file_list_free(pm_file_list *l);
/* The snapshot listed (0 = the table has none). */
PM_API int64_t pm_file_list_snapshot_id(const pm_file_list *l);
PM_API size_t pm_file_list_count(const pm_file_list *l);
/* File i (NULL when out of range); owned by l. */
PM_API const pm_file_info *pm_file_list_get(const pm_file_list *l, size_t i);
/* The list as a JSON array of objects keyed like pm_file_info (malloc'd;
 * release with pm_free). */
PM_API pm_error *pm_file_list_to_json(char **out, const pm_file_list *l);

/* One sorted run of a bucket: a level-0 file, or all files of a level. */
typedef struct pm_run_info {
    int32_t level;
    size_t nfiles;
    const pm_file_info *const *files; /* the run's files, key order */
    int64_t record_count;
    int64_t size;
    int64_t min_sequence_number;
    int64_t max_sequence_number;
    const char *min_key;
    const char *max_key;
} pm_run_info;

/* One bucket of a primary-key table. */
typedef struct pm_bucket_levels {
    const char *partition;
    int32_t bucket;
    size_t nfiles;
    const pm_file_info *const *files; /* every file of the bucket */
    int64_t record_count;
    int64_t size;
    /* NULL, or why the files have no valid LSM shape (then nruns = 0). */
    const char *error;
    size_t nruns;
    const pm_run_info *runs;          /* level-0 runs newest first, then levels ascending */
} pm_bucket_levels;

typedef struct pm_level_list pm_level_list;

/* Sorted runs of every bucket (o as for pm_table_files).  PM_EINVALID for
 * a table without a primary key. */
PM_API pm_error *pm_table_levels(pm_level_list **out, pm_table *t, const pm_read_options *o);
PM_API void pm_level_list_free(pm_level_list *l);
PM_API int64_t pm_level_list_snapshot_id(const pm_level_list *l);
PM_API size_t pm_level_list_count(const pm_level_list *l);
/* Bucket i (NULL when out of range); owned by l. */
PM_API const pm_bucket_levels *pm_level_list_get(const pm_level_list *l, size_t i);
/* The list as a JSON array of buckets with their runs (malloc'd; release
 * with pm_free). */
PM_API pm_error *pm_level_list_to_json(char **out, const pm_level_list *l);

#ifdef __cplusplus
}
#endif
#endif
