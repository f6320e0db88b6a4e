/*
 * index/hash_index.h — the HASH index file of dynamic-bucket primary-key
 * tables (HashIndexFile, IntFileUtils in Paimon Java).
 *
 * One file per (partition, bucket), named `index-<uuid>-<n>` like every
 * index file (meta/index_path.h).  Content: no header, no trailer — one
 * int32 big-endian value per distinct key hash assigned to the bucket
 * (hash = BinaryRow hashCode of the trimmed primary key, base/hash.h), in
 * the writer's set-iteration order.  IndexFileMeta: index type "HASH",
 * row count = number of ints, no DV ranges.
 *
 * Reading checks what Java does not: the size must be a multiple of 4 (Java
 * silently drops a partial trailing int) and, when known, the count must
 * equal the IndexFileMeta row count.
 */
#ifndef PM_INDEX_HASH_INDEX_H
#define PM_INDEX_HASH_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "io/fileio.h"
#include "meta/data_file_meta.h"
#include "meta/paths.h"

#define PM_HASH_INDEX_TYPE "HASH"

/* Decode file bytes; *out malloc'd (NULL when empty), *count ints. */
pm_error *pm_hash_index_decode(const uint8_t *p, size_t n, int32_t **out, size_t *count);
/* Append the encoding of `n` hashes. */
pm_error *pm_hash_index_encode(const int32_t *hashes, size_t n, pm_buf *out);

/* Read a file; expected_count < 0 = unchecked (else the meta's row count). */
pm_error *pm_hash_index_read(pm_fileio *fio, const char *path, int64_t expected_count,
                             int32_t **out, size_t *count);
/* Write a new file in `dir` (named by the path factory); fills *meta
 * (release with pm_index_meta_clear). */
pm_error *pm_hash_index_write(pm_fileio *fio, pm_path_factory *pf, const char *dir,
                              const int32_t *hashes, size_t n, pm_index_file_meta *meta);

#endif
