/*
 * dv/dv_maintainer.h — keeping the deletion vectors of a table up to date
 * across writes and compactions, and turning changes into index files and
 * index manifest entries.
 *
 * Bucketed tables (primary-key tables, bucketed append tables;
 * BucketedDvMaintainer in Paimon Java).  One DV index file per (partition,
 * bucket) holds every vector of the bucket.  The maintainer starts from the
 * bucket's current DELETION_VECTORS entries of the index manifest (kind ADD,
 * same partition bytes and bucket), reads all their vectors, takes changes
 * (a deleted position, a whole vector, a merge, a removal after the data
 * file was compacted away) and, when anything changed, writes ONE new file
 * with all vectors — an empty (1-byte) file when none are left — and
 * returns it as an ADD entry.  Like Java no DELETE entry is produced: the
 * index manifest keeps one DV file per (partition, bucket, index type), so
 * the ADD replaces the previous file when committed.
 *
 * Bucket-unaware append tables (AppendDeleteFileMaintainer).  Per
 * partition, bucket 0, any number of DV index files, each listing some data
 * files.  A new vector for a data file is merged with its previous vector;
 * the index file that held the previous one (or a removed one) is
 * "touched".  Persisting rewrites, for every touched file, its untouched
 * vectors into new files (rolling at the target size) and emits a DELETE
 * entry for the touched file; then writes the new vectors (rolling) as ADD
 * entries.  Untouched files stay as they are.
 *
 * New files go to meta/index_path.h's directory; the maintainers never
 * delete old files (snapshots still reference them).
 */
#ifndef PM_DV_DV_MAINTAINER_H
#define PM_DV_DV_MAINTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dv/deletion_vector.h"
#include "dv/dv_map.h"
#include "io/fileio.h"
#include "meta/data_file_meta.h"
#include "meta/options.h"
#include "meta/paths.h"

/* Where index files are read and written (all borrowed). */
typedef struct pm_dv_io {
    pm_fileio *fio;
    pm_path_factory *pf;
    const char *bucket_dir; /* absolute; needed only with index-file-in-data-file-dir */
} pm_dv_io;

/* The table options that shape deletion vectors: deletion-vectors.bitmap64
 * (variant of new vectors) and deletion-vector.index-file.target-size
 * (rolling size for bucket-unaware tables, default 2 MiB). */
pm_error *pm_dv_options(const pm_options *o, bool *bitmap64, int64_t *target_size);

/* ---- bucketed tables ---- */

typedef struct pm_dv_maintainer pm_dv_maintainer;

/* `entries` = the snapshot's index manifest entries (any partition, bucket
 * and type: the matching ones are picked); bitmap64 = the table option
 * deletion-vectors.bitmap64 (variant of new vectors). */
pm_error *pm_dv_maintainer_new(const pm_dv_io *io, const pm_bytes *partition, int32_t bucket,
                               bool bitmap64, const pm_index_manifest_entry *entries, size_t n,
                               pm_dv_maintainer **out);
void pm_dv_maintainer_free(pm_dv_maintainer *m);
/* The vector of a data file or NULL (owned by the maintainer). */
const pm_dv *pm_dv_maintainer_get(const pm_dv_maintainer *m, const char *data_file);
/* All current vectors (owned by the maintainer). */
const pm_dv_map *pm_dv_maintainer_vectors(const pm_dv_maintainer *m);
/* Mark a row deleted (modifies only when it was not deleted yet). */
pm_error *pm_dv_maintainer_delete_row(pm_dv_maintainer *m, const char *data_file, int64_t pos);
/* Replace the vector of a data file (takes dv). */
pm_error *pm_dv_maintainer_put(pm_dv_maintainer *m, const char *data_file, pm_dv *dv);
/* Merge dv into the data file's vector (a copy when there is none). */
pm_error *pm_dv_maintainer_merge(pm_dv_maintainer *m, const char *data_file, const pm_dv *dv);
/* Forget the vector of a data file (compacted away). */
void pm_dv_maintainer_remove(pm_dv_maintainer *m, const char *data_file);
bool pm_dv_maintainer_modified(const pm_dv_maintainer *m);
/* When modified: write the new index file and fill *added with its ADD
 * entry (*written = true; release with pm_index_manifest_entry_clear);
 * the maintainer is then unmodified.  Otherwise *written = false. */
pm_error *pm_dv_maintainer_write(pm_dv_maintainer *m, pm_index_manifest_entry *added, bool *written);

/* ---- bucket-unaware append tables ---- */

typedef struct pm_dv_append_maintainer pm_dv_append_maintainer;

/* `entries` as above (those of `partition`, bucket 0 are used);
 * target_size <= 0 = 2 MiB. */
pm_error *pm_dv_append_maintainer_new(const pm_dv_io *io, const pm_bytes *partition,
                                      int64_t target_size, const pm_index_manifest_entry *entries,
                                      size_t n, pm_dv_append_maintainer **out);
void pm_dv_append_maintainer_free(pm_dv_append_maintainer *m);
/* The current vector of a data file as a new object (caller frees), NULL
 * when it has none. */
pm_error *pm_dv_append_maintainer_get(pm_dv_append_maintainer *m, const char *data_file, pm_dv **out);
/* A new vector for a data file (takes dv); merged with its previous one. */
pm_error *pm_dv_append_maintainer_add(pm_dv_append_maintainer *m, const char *data_file, pm_dv *dv);
/* The data file is gone (compacted): drop its vector. */
void pm_dv_append_maintainer_remove(pm_dv_append_maintainer *m, const char *data_file);
/* Write the changes; *out = DELETE/ADD entries (malloc'd array, free with
 * pm_index_manifest_entries_free, meta/manifest.h).  Call once: the
 * maintainer is spent afterwards. */
pm_error *pm_dv_append_maintainer_persist(pm_dv_append_maintainer *m, pm_index_manifest_entry **out,
                                          size_t *n);

#endif
