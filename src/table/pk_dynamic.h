/*
 * table/pk_dynamic.h — dynamic-bucket routing of the primary-key writer
 * (bucket = -1 without cross-partition updates; pk_write.c).
 *
 * Base: the latest snapshot when the first row is routed (the snapshot
 * the writer's sequence numbers restore from).  A partition is loaded the
 * first time one of its rows arrives: the HASH entries of the base
 * snapshot's index manifest for that partition are read
 * (index/hash_index.h; their _EXTERNAL_PATH checked against the table's
 * roots) into the assigner (index/dynamic_bucket.h), which then places
 * each key hash (the BinaryRow hashCode of the trimmed primary key) in
 * one bucket.  Options: dynamic-bucket.target-row-num (default
 * 2000000), dynamic-bucket.max-buckets (-1), dynamic-bucket.initial-buckets
 * (the number of Java assigners emulated side by side, default 1).
 *
 * Prepare: for every bucket that got new key hashes a new HASH index file
 * with all of the bucket's hashes (in the bucket's index directory:
 * index/, or the bucket directory with index-file-in-data-file-dir), its
 * ADD entry and, when the bucket had a HASH file in the base, that
 * file's DELETE entry — the committer replaces it by (partition, bucket)
 * and refuses the commit when the bucket's latest HASH file is another
 * one (a concurrent writer changed the assignment: PM_ECONFLICT).  After
 * a prepare the new files are the base of the next one.  Files written
 * and not handed out are deleted by abort.
 */
#ifndef PM_TABLE_PK_DYNAMIC_H
#define PM_TABLE_PK_DYNAMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "table/table_internal.h"

typedef struct pm_pk_dynamic pm_pk_dynamic;

/* ignore_previous: start from empty indexes (overwrite). */
pm_error *pm_pk_dynamic_new(pm_pk_dynamic **out, pm_table *t, bool ignore_previous);
void pm_pk_dynamic_free(pm_pk_dynamic *d);
/* Delete the index files of the last prepare that were not committed
 * (the writer's abort), then free. */
void pm_pk_dynamic_abort(pm_pk_dynamic *d);

pm_error *pm_pk_dynamic_assign(pm_pk_dynamic *d, const uint8_t *part, size_t plen, int32_t part_hash,
                               int32_t key_hash, int32_t *bucket);

/* The index change of one (partition, bucket). */
typedef struct pm_pk_dynamic_change {
    pm_bytes partition;
    int32_t bucket;
    pm_index_manifest_entry added;    /* the new HASH file (kind ADD) */
    bool has_removed;
    pm_index_manifest_entry removed;  /* the base HASH file it replaces (kind DELETE) */
} pm_pk_dynamic_change;

/* Write the new HASH files; *out malloc'd (free with
 * pm_pk_dynamic_changes_free, which does not delete files). */
pm_error *pm_pk_dynamic_prepare(pm_pk_dynamic *d, pm_pk_dynamic_change **out, size_t *n);
void pm_pk_dynamic_changes_free(pm_pk_dynamic_change *c, size_t n);
/* The files of the last prepare now belong to commit messages (abort no
 * longer deletes them). */
void pm_pk_dynamic_handed_out(pm_pk_dynamic *d);

#endif
