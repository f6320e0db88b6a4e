/*
 * table/scan.h — what a snapshot contains: the live data files of every
 * (partition, bucket), plus the index files (deletion vectors, hash index)
 * that apply to them.  CONTRACT for the table layer (implemented in scan.c).
 *
 * Steps: pick the snapshot (latest, or a given id for time travel) → read
 * its base + delta manifest lists → read every manifest (skipping manifests
 * whose partition stats cannot match the partition filter) → merge ADD /
 * DELETE entries (meta/manifest.h) → keep entries matching the partition
 * filter and bucket filter → group by (partition bytes, bucket), files in
 * manifest order → load the index manifest for the same buckets (index
 * files at `_EXTERNAL_PATH`, next to the data files with
 * index-file-in-data-file-dir, else in index/) → optionally add the
 * partitions main lacks from `scan.fallback-branch`.  Tables whose
 * `manifest.format` is not avro are PM_EUNSUPPORTED ("unsupported manifest
 * format orc"); a missing snapshot id is PM_ENOTFOUND.
 *
 * Ownership: a pm_scan_result owns everything it points to; free it with
 * pm_scan_result_free.  It is plain data: planners and readers may keep
 * pointers into it while it lives.
 */
#ifndef PM_TABLE_SCAN_H
#define PM_TABLE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "paimon/error.h"
#include "table/table_internal.h"

/* A partition filter as the CLI gives it: field=value pairs (all must
 * match).  Values are compared with the partition path strings Paimon uses
 * (meta/paths.h pm_partition_value_to_string with the table's
 * partition.legacy-name rule), so `dt=2024-01-01` and `__DEFAULT_PARTITION__`
 * for null work as users expect; a value is also accepted when it equals the
 * partition value CAST to STRING or parses as the same typed value
 * (table/partition.h).  Several specs = OR. */
typedef struct pm_partition_spec {
    size_t count;
    char **keys;
    char **values;
} pm_partition_spec;

/* Parse "k=v" / "k1=v1,k2=v2" (one spec). */
pm_error *pm_partition_spec_parse(const char *text, pm_partition_spec *out);
void pm_partition_spec_clear(pm_partition_spec *s);
/* Does the serialized partition row match the spec (names must be partition keys)? */
pm_error *pm_partition_spec_match(const pm_table *t, const pm_partition_spec *spec,
                                  const uint8_t *partition, size_t len, bool *match);

typedef struct pm_scan_options {
    int64_t snapshot_id;                 /* 0 = latest */
    const pm_partition_spec *partitions; /* OR of specs; NULL/0 = all */
    size_t npartitions;
    int32_t bucket;                      /* -1000 = all buckets */
    /* Reads only: when the table has `scan.fallback-branch`, partitions the
     * scanned branch does not have come from that branch (Java's
     * FallbackReadFileStoreTable).  Its snapshot is the latest one, or for
     * time travel the last one not newer than the chosen snapshot (else 1).
     * Writers and committers leave this false. */
    bool fallback_branch;
} pm_scan_options;

#define PM_SCAN_ALL_BUCKETS (-1000)

/* Deletion vector reference of one data file (from the index manifest). */
typedef struct pm_deletion_file {
    const char *data_file;   /* borrowed from the bucket's file list */
    char *index_path;        /* full path of the DV index file */
    int64_t offset;
    int64_t length;
    pm_opt_long cardinality;
} pm_deletion_file;

typedef struct pm_bucket_files {
    pm_table *table;             /* table the files belong to: the scanned one, or
                                    pm_scan_result.fallback (borrowed) */
    pm_bytes partition;          /* serialized BinaryRow (arity prefix) */
    int32_t bucket;
    int32_t total_buckets;
    pm_data_file_meta *files;    /* live files, manifest order */
    size_t nfiles;
    pm_deletion_file *dvs;       /* deletion vectors of these files (may be 0) */
    size_t ndvs;
    pm_index_manifest_entry *index_entries; /* index files of this bucket (HASH, DV) */
    size_t nindex_entries;
} pm_bucket_files;

typedef struct pm_scan_result {
    pm_snapshot *snapshot;       /* NULL when the table has no snapshot */
    pm_bucket_files *buckets;    /* sorted by (partition bytes, bucket) */
    size_t nbuckets;
    /* Schema rows are read in: the table's latest schema, or the snapshot's
     * schema when a snapshot id was given (time travel, as Java and
     * pypaimon do).  Owned by the table. */
    const pm_schema *schema;
    /* Fallback branch (pm_scan_options.fallback_branch), when it was used:
     * its handle (owned), snapshot (owned) and read schema (owned by it). */
    pm_table *fallback;
    pm_snapshot *fallback_snapshot;
    const pm_schema *fallback_schema;
} pm_scan_result;

pm_error *pm_table_scan(pm_table *t, const pm_scan_options *o, pm_scan_result **out);
/* The deletion vectors that index file f (of b's bucket; DELETION_VECTORS
 * with ranges, else nothing) holds for b's files, appended to b->dvs with
 * their index file's path (`what` names the source in errors: two vectors
 * for one data file are PM_ECORRUPT).  Ranges of files b lacks are skipped. */
pm_error *pm_bucket_files_add_dvs(pm_table *t, pm_bucket_files *b, const pm_index_file_meta *f, const char *what);
void pm_scan_result_free(pm_scan_result *r);
/* The entries of the manifests of manifest list `list` (a snapshot's delta
 * or changelog list) whose partition matches the specs (OR; none = all),
 * appended to ev in manifest order; external paths checked against the
 * table's roots as of schema read_schema_id. */
pm_error *pm_scan_manifest_list_entries(pm_table *t, int64_t read_schema_id, const char *list,
                                        const pm_partition_spec *specs, size_t nspecs, pm_manifest_entry_list *ev);
/* The ADD entries of ev grouped into buckets sorted by (partition bytes,
 * bucket), files in entry order; ev's moved parts are zeroed. */
pm_error *pm_scan_group_entries(pm_table *t, pm_manifest_entry_list *ev, pm_bucket_files **out, size_t *nout);
/* Options with defaults: latest snapshot, every partition and bucket. */
static inline pm_scan_options pm_scan_options_default(void)
{
    pm_scan_options o = {0, NULL, 0, PM_SCAN_ALL_BUCKETS, false};
    return o;
}

#endif
