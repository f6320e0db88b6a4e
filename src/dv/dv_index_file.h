/*
 * dv/dv_index_file.h — deletion-vector index files (DeletionVectorsIndexFile,
 * DeletionFileWriter, DeletionVectorIndexFileWriter in Paimon Java).
 *
 * Layout: byte 0 = version 1, then one entry per data file back to back
 * (entry bytes in dv/deletion_vector.h).  Nothing in the file names the
 * data files: the index manifest's IndexFileMeta lists them as
 * DeletionVectorMeta (data file name, offset of the entry's size field,
 * length as defined per variant, cardinality).  The first entry is at
 * offset 1.
 *
 * Reading: check the version byte; for each DeletionVectorMeta decode the
 * entry at its offset with its length (sizes from the file are never
 * trusted: every entry must lie inside the file).  Stricter than Java:
 * each entry's CRC32 is verified and a cardinality given in the meta must
 * match the decoded vector.
 *
 * Writing: entries in the map's order; each file gets IndexFileMeta
 * {index type DELETION_VECTORS, name, size, row count = number of entries,
 * ranges, no external path}.
 *   single file (bucketed tables, BucketedDvMaintainer): all entries in
 *     one file, even none (a 1-byte file);
 *   rolling (bucket-unaware append tables): after writing an entry, the
 *     file is closed when its size exceeds the target size
 *     (deletion-vector.index-file.target-size, default 2 MiB); no file for
 *     an empty map.
 * Files are created next to each other in one directory (meta/index_path.h)
 * with names from the path factory, never overwriting; on failure every
 * file written by the call is removed.
 */
#ifndef PM_DV_DV_INDEX_FILE_H
#define PM_DV_DV_INDEX_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "dv/deletion_vector.h"
#include "dv/dv_map.h"
#include "io/fileio.h"
#include "meta/data_file_meta.h"
#include "meta/index_path.h"
#include "meta/paths.h"

#define PM_DV_INDEX_TYPE "DELETION_VECTORS"
#define PM_DV_INDEX_VERSION 1
#define PM_DV_INDEX_TARGET_SIZE_DEFAULT (INT64_C(2) * 1024 * 1024)

/* Decode the entries listed by `ranges` from the bytes of a whole index
 * file into `into` (replacing vectors of the same name).  `what` names the
 * file in errors. */
pm_error *pm_dv_index_parse(const uint8_t *p, size_t n, const pm_dv_meta *ranges, size_t nranges,
                            const char *what, pm_dv_map *into);

/* Read every vector of one index file (meta->dv_ranges; a file without
 * ranges contributes nothing). */
pm_error *pm_dv_index_read(pm_fileio *fio, const char *path, const pm_index_file_meta *meta,
                           pm_dv_map *into);

/* Read one vector (a DeletionFile: path, offset, length) fetching only its
 * entry; the version byte is checked too.  length < 0 = unknown. */
pm_error *pm_dv_index_read_one(pm_fileio *fio, const char *path, int64_t offset, int64_t length,
                               pm_dv **out);

/* Index-file bytes for entries [from, to) of `dvs`; ranges[k] describes
 * entry from + k (names borrowed from the map; ranges may be NULL).  Run-
 * optimizes the vectors. */
pm_error *pm_dv_index_serialize(pm_dv_map *dvs, size_t from, size_t to, pm_buf *out,
                                pm_dv_meta *ranges);

/* Write every entry into one new file in `dir`; *out is filled (release
 * with pm_index_meta_clear, meta/index_path.h). */
pm_error *pm_dv_index_write_single(pm_fileio *fio, pm_path_factory *pf, const char *dir,
                                   pm_dv_map *dvs, pm_index_file_meta *out);

/* Write with rolling at target_size bytes (<= 0 = default); *out is a
 * malloc'd array of *n metas (NULL/0 for an empty map); free with
 * pm_index_metas_free. */
pm_error *pm_dv_index_write_rolling(pm_fileio *fio, pm_path_factory *pf, const char *dir,
                                    pm_dv_map *dvs, int64_t target_size, pm_index_file_meta **out,
                                    size_t *n);

#endif
