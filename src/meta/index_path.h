/*
 * meta/index_path.h — where the index files of a (partition, bucket) live
 * (FileStorePathFactory.indexFileFactory, IndexInDataFileDirPathFactory in
 * Paimon Java).
 *
 * New files: `<table>/index/<name>`, or `<bucket dir>/<name>` when the
 * table option index-file-in-data-file-dir is true; names come from
 * pm_path_factory_new_index_file_name (`index-<uuid>-<n>`).
 * Existing files (IndexFileMeta): the `_EXTERNAL_PATH` when set, else the
 * same directory rule with the file name, which must be a plain name
 * (PM_ECORRUPT, meta/safe_path.h).  A "file:" scheme in an external path is
 * matched without regard to case (Java's URI schemes are case-insensitive;
 * Java writes "FILE:/..." for some configurations) and stripped; other
 * schemes are PM_EUNSUPPORTED.  Whether an external path lies under the
 * table's roots is checked where it is read from the index manifest
 * (table/scan.c), since the roots are table options.
 */
#ifndef PM_META_INDEX_PATH_H
#define PM_META_INDEX_PATH_H

#include "meta/data_file_meta.h"
#include "meta/paths.h"
#include "paimon/error.h"

/* Directory for new index files.  bucket_dir (absolute, e.g. from
 * pm_path_factory_bucket_path) is required only when index files live in
 * data directories; PM_EINVALID if then missing.  malloc'd. */
pm_error *pm_index_dir(const pm_path_factory *pf, const char *bucket_dir, char **out);

/* Full path of an existing index file (see top).  malloc'd. */
pm_error *pm_index_file_path(const pm_path_factory *pf, const char *bucket_dir,
                             const pm_index_file_meta *file, char **out);

/* Release what an IndexFileMeta owns (the struct itself is the caller's;
 * it is zeroed).  _free releases an array of n metas and the array. */
void pm_index_meta_clear(pm_index_file_meta *f);
void pm_index_metas_free(pm_index_file_meta *f, size_t n);

#endif
