/*
 * table/commit_message.h — what a writer or a compaction task hands to a
 * committer for one (partition, bucket).  Plain owned data.
 *
 *   new_files        data files added by a write (FileSource APPEND)
 *   compact_before   files a compaction removes
 *   compact_after    files a compaction adds (FileSource COMPACT)
 *   changelog        changelog files (primary keys, later issues)
 *   index_added / index_removed   index files (DV, HASH) that change
 */
#ifndef PM_TABLE_COMMIT_MESSAGE_H
#define PM_TABLE_COMMIT_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "paimon/error.h"

typedef struct pm_commit_message {
    pm_bytes partition;           /* serialized BinaryRow */
    int32_t bucket;
    int32_t total_buckets;
    pm_data_file_meta *new_files;        size_t n_new_files;
    pm_data_file_meta *compact_before;   size_t n_compact_before;
    pm_data_file_meta *compact_after;    size_t n_compact_after;
    pm_data_file_meta *changelog;        size_t n_changelog;
    pm_index_manifest_entry *index_added;   size_t n_index_added;
    pm_index_manifest_entry *index_removed; size_t n_index_removed;
} pm_commit_message;

void pm_commit_message_clear(pm_commit_message *m);
void pm_commit_message_array_free(pm_commit_message *m, size_t n);
pm_error *pm_commit_message_copy(const pm_commit_message *src, pm_commit_message *dst);

#endif
