/*
 * table/bucket_index.h — open-addressing hash index from a (partition,
 * bucket) key to an int32 value (a writer's slot number), shared by the
 * append writer (table_write.c), the primary-key writer (pk_write.c) and
 * the sequence-number restore table (bucket_restore.c).
 *
 * Keys are a serialized partition BinaryRow plus a bucket number; the
 * hash is FNV-1a over the partition bytes and the bucket, folded once.
 * The table is a power of two (64 slots to start), linear probing, and
 * doubles when more than half full.  Ownership: the index owns its arrays;
 * the partition bytes of each key are borrowed from the caller and must
 * stay valid (and unchanged) while the index holds the key.
 */
#ifndef PM_TABLE_BUCKET_INDEX_H
#define PM_TABLE_BUCKET_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"

typedef struct pm_bucket_index_key {
    const uint8_t *partition;  /* borrowed */
    size_t plen;
    int32_t bucket;
    int32_t value;
    uint64_t hash;
} pm_bucket_index_key;

typedef struct pm_bucket_index {
    pm_bucket_index_key *keys;
    size_t nkeys, capkeys;
    int32_t *slots;            /* index into keys, or -1 */
    size_t nslots;
} pm_bucket_index;

/* Hash of a (partition bytes, bucket) key. */
uint64_t pm_bucket_hash(const uint8_t *partition, size_t plen, int32_t bucket);

/* An empty index; free with pm_bucket_index_free. */
pm_error *pm_bucket_index_init(pm_bucket_index *ix);
/* Frees the index's arrays (not the borrowed partitions); accepts a zeroed index. */
void pm_bucket_index_free(pm_bucket_index *ix);

/* The value of the key, or -1 when absent; `hash` is pm_bucket_hash of the key. */
int32_t pm_bucket_index_find(const pm_bucket_index *ix, const uint8_t *partition, size_t plen, int32_t bucket,
                             uint64_t hash);
/* Adds a key that is not in the index yet (borrowing `partition`) with `value`. */
pm_error *pm_bucket_index_add(pm_bucket_index *ix, const uint8_t *partition, size_t plen, int32_t bucket,
                              uint64_t hash, int32_t value);

#endif
