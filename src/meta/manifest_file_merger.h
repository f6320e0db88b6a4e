/*
 * meta/manifest_file_merger.h — Paimon's ManifestFileMerger: before a
 * commit writes its base manifest list, the data manifests of the latest
 * snapshot are merged so the list stays short.
 *
 * Options (of the table): manifest.target-file-size (T),
 * manifest.full-compaction-threshold-size (F, must be positive),
 * manifest.merge-min-count (M); the merged manifests are written like any
 * manifest (meta/manifest.h: codec, rolling at T).
 *
 * Full compaction (tried first): the "must change" manifests are those
 * with a DELETE entry or smaller than T.  When their sizes total at least
 * F: the DELETE entries of all inputs are collected; a manifest that is
 * not "must change" still takes part when it may hold a partition of those
 * deletes (PartitionPredicate over its partition stats; every manifest for
 * an unpartitioned table, none when there are no deletes); the others are
 * kept as they are.  When more than one takes part, each one's ADD entries
 * whose file is not deleted are gathered; a manifest none of whose ADD
 * entries is deleted and which is not "must change" is kept as it is; the
 * gathered entries are written as new manifests.  With at most one taking
 * part, or below F, minor compaction runs instead.
 * Minor compaction: in order, runs of manifests whose sizes reach T are
 * merged (their entries read and ADD/DELETE-merged, meta/manifest.h); a
 * tail of at least M manifests is merged too; the rest are kept.  A run
 * of one manifest is kept as it is.
 *
 * The inputs are never changed or deleted: the caller publishes the
 * result or removes the new files.
 */
#ifndef PM_META_MANIFEST_FILE_MERGER_H
#define PM_META_MANIFEST_FILE_MERGER_H

#include <stddef.h>
#include <stdint.h>

#include "io/fileio.h"
#include "meta/data_file_meta.h"
#include "meta/options.h"
#include "meta/paths.h"

typedef struct pm_manifest_merge_ctx {
    pm_fileio *fio;
    pm_path_factory *paths;
    const pm_options *options;      /* the table's options */
    const pm_type *partition_type;  /* ROW of the partition keys */
    int64_t schema_id;              /* latest schema id, for the new manifests' metas */
    /* Told the name of every manifest file the merge writes (before the
     * merge goes on), so the caller can remove them if its attempt fails;
     * an error stops the merge (the files not reported are deleted). */
    pm_error *(*written)(void *arg, const char *file_name);
    void *written_arg;
} pm_manifest_merge_ctx;

/* Merge the manifests in[0..n) (see top).  *out (malloc'd, free with
 * pm_manifest_file_metas_free) lists the result in order: kept inputs
 * (copies) and the new manifests. */
pm_error *pm_manifest_file_merger_merge(const pm_manifest_merge_ctx *c, const pm_manifest_file_meta *in, size_t n,
                                        pm_manifest_file_meta **out, size_t *nout);

#endif
