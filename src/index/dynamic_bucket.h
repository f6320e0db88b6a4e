/*
 * index/dynamic_bucket.h — key → bucket assignment of dynamic-bucket
 * primary-key tables (bucket = -1 without cross-partition updates), as
 * Java's HashBucketAssigner and PartitionIndex do it, in memory.
 *
 * A key is its hash: the BinaryRow hashCode of the trimmed primary key.
 * Per partition the assigner holds hash → bucket (loaded from the
 * partition's HASH index files, then extended) and per bucket the number
 * of keys it holds.  `num_assigners` (dynamic-bucket.initial-buckets)
 * emulates Java's assigner operators run side by side in one writer: a
 * key belongs to assigner (|partHash % N| + |keyHash % N|) % N
 * (BucketAssigner.computeAssigner with N channels and N assigners), and
 * assigner i creates and fills only buckets b with b % N == i
 * (isMyBucket).  Assignment of a hash (PartitionIndex.assign):
 *   1. a hash already known keeps its bucket;
 *   2. else the first of the assigner's buckets (ascending) holding fewer
 *      than `target_rows` keys takes it (full buckets are never reused);
 *   3. else, while the assigner's largest bucket id so far (over all
 *      partitions, as Java's maxBucketId) is below max_buckets - 1
 *      (32766 when unlimited) or the partition has no bucket of the
 *      assigner yet, a new bucket: the smallest id of the assigner not yet
 *      in the partition;
 *   4. else a bucket of the assigner chosen at random (max-buckets
 *      reached; an unlimited table with no id left is PM_EUNSUPPORTED
 *      "increase dynamic-bucket.target-row-num").
 * Buckets changed by new hashes are reported with their complete hash
 * sets, so the writer can write their new HASH index files (which replace
 * the previous ones: Java's index maintainer writes whole files).
 * Memory: about 12 bytes per known hash; nothing on disk.
 */
#ifndef PM_INDEX_DYNAMIC_BUCKET_H
#define PM_INDEX_DYNAMIC_BUCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"

#define PM_DYN_MAX_BUCKETS 32767   /* bucket ids fit a Java short */

typedef struct pm_dyn_options {
    int64_t target_rows;           /* dynamic-bucket.target-row-num (> 0) */
    int32_t max_buckets;           /* dynamic-bucket.max-buckets: -1 or 1..32767 */
    int32_t num_assigners;         /* dynamic-bucket.initial-buckets: 1..32767 */
    uint64_t seed;                 /* of the random pick in step 4 */
} pm_dyn_options;

typedef struct pm_dyn_assigner pm_dyn_assigner;
typedef struct pm_dyn_partition pm_dyn_partition;

pm_error *pm_dyn_assigner_new(pm_dyn_assigner **out, const pm_dyn_options *o);
void pm_dyn_assigner_free(pm_dyn_assigner *a);

/* The partition (serialized BinaryRow bytes, copied), NULL when not added yet. */
pm_dyn_partition *pm_dyn_partition_find(pm_dyn_assigner *a, const uint8_t *part, size_t plen);
/* Add an empty partition; part_hash = BinaryRow hashCode of the partition. */
pm_error *pm_dyn_partition_add(pm_dyn_assigner *a, const uint8_t *part, size_t plen, int32_t part_hash,
                               pm_dyn_partition **out);
/* Load one bucket's HASH index (before any assignment in the partition).
 * A hash listed for two buckets is PM_ECORRUPT naming both. */
pm_error *pm_dyn_partition_load(pm_dyn_partition *p, int32_t bucket, const int32_t *hashes, size_t n);

/* The bucket of key_hash in partition p (steps 1-4). */
pm_error *pm_dyn_assign(pm_dyn_assigner *a, pm_dyn_partition *p, int32_t key_hash, int32_t *bucket);

/* Buckets of p that got new hashes since they were loaded or last
 * reported, ascending; *out malloc'd (NULL when none). */
pm_error *pm_dyn_partition_changed(const pm_dyn_partition *p, int32_t **out, size_t *n);
/* Every hash of bucket b in p, ascending; *out malloc'd (NULL when none). */
pm_error *pm_dyn_partition_hashes(const pm_dyn_partition *p, int32_t bucket, int32_t **out, size_t *n);
/* Forget that bucket b changed (its index file was written). */
void pm_dyn_partition_mark_written(pm_dyn_partition *p, int32_t bucket);

/* Partitions, in the order they were added (for iteration). */
size_t pm_dyn_partition_count(const pm_dyn_assigner *a);
pm_dyn_partition *pm_dyn_partition_at(pm_dyn_assigner *a, size_t i);
const uint8_t *pm_dyn_partition_bytes(const pm_dyn_partition *p, size_t *plen);

#endif
