/*
 * table/bucket_restore.h — what a bucketed writer restores from the latest
 * snapshot before it writes a (partition, bucket) again: the largest max
 * sequence number of the bucket's live files (its next sequence number is
 * that + 1) and the total bucket count the files were written with (a
 * different count is Java's "try to write ... with a new bucket num"
 * error).  Shared by the append writer (table_write.c) and the
 * primary-key writer (pk_write.c); each fills the table from its own view
 * of the snapshot (merged manifest entries, or a scan).
 *
 * Ownership: the table owns copies of the partition bytes it is given and
 * its (partition, bucket) index; pm_bucket_restore_free releases both.
 */
#ifndef PM_TABLE_BUCKET_RESTORE_H
#define PM_TABLE_BUCKET_RESTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "table/bucket_index.h"
#include "paimon/table.h"

typedef struct pm_bucket_restore_entry {
    uint8_t *partition;        /* owned copy of the serialized BinaryRow */
    size_t plen;
    int32_t bucket;
    int32_t total_buckets;     /* of the first file seen for the bucket */
    int64_t max_seq;           /* largest max sequence number seen */
} pm_bucket_restore_entry;

typedef struct pm_bucket_restore {
    bool loaded;               /* set by the caller once it filled the table */
    pm_bucket_restore_entry *entries;
    size_t n, cap;
    pm_bucket_index index;     /* (partition, bucket) → index into entries */
} pm_bucket_restore;

/* Releases everything and leaves an empty, not loaded table; accepts a
 * zeroed table. */
void pm_bucket_restore_free(pm_bucket_restore *r);

/* Records a live file of (partition, bucket): a new entry takes
 * total_buckets and max_seq; an existing one keeps its total_buckets and
 * the larger max_seq. */
pm_error *pm_bucket_restore_add(pm_bucket_restore *r, const uint8_t *partition, size_t plen, int32_t bucket,
                                int32_t total_buckets, int64_t max_seq);

/* For a writer of (partition, bucket) in a table of `nbuckets` buckets:
 * when the table has an entry, *next_seq = its max_seq + 1, or PM_EINVALID
 * when it was written with another bucket count (the message names the
 * partition of `t` when `partitioned`, else "table"); without an entry
 * *next_seq is left alone. */
pm_error *pm_bucket_restore_next_seq(const pm_bucket_restore *r, pm_table *t, bool partitioned,
                                     const uint8_t *partition, size_t plen, int32_t bucket, int32_t nbuckets,
                                     int64_t *next_seq);

#endif
