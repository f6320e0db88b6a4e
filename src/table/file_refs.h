/*
 * table/file_refs.h — which files of a table its snapshots reference, as
 * sets of full paths by kind, for snapshot expiration and orphan removal
 * (paimon/maintenance.h).
 *
 * A set is a sorted, deduplicated array of malloc'd paths (add, then seal,
 * then query).  What a snapshot references:
 *   manifests   its base, delta and changelog manifest lists and every
 *               manifest they list, its index manifest
 *   data        the data files its manifests name (live ones: the merge of
 *               base + delta; or every ADD of its delta), each with its
 *               extra files; an external path when the file has one
 *   changelog   the files of its changelog manifests
 *   index       the index files its index manifest adds
 *   stats       its statistics file
 * Live files of a run of snapshots [a, b] are live(a) plus the ADDs of the
 * deltas of a+1..b, which is what pm_file_refs_add_range collects, so a
 * range costs one full manifest read.  Tags (tag/tag-<name>) are
 * snapshots.  Every path is checked: names must be plain, external paths
 * under the table's roots (PM_ECORRUPT otherwise).
 */
#ifndef PM_TABLE_FILE_REFS_H
#define PM_TABLE_FILE_REFS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "meta/snapshot.h"
#include "paimon/table.h"

typedef struct pm_path_set {
    char **paths;
    size_t n, cap;
} pm_path_set;

void pm_path_set_clear(pm_path_set *s);
/* Takes ownership of path (also on failure). */
pm_error *pm_path_set_add(pm_path_set *s, char *path);
pm_error *pm_path_set_add_copy(pm_path_set *s, const char *path);
/* Sort and deduplicate; queries need a sealed set. */
void pm_path_set_seal(pm_path_set *s);
bool pm_path_set_has(const pm_path_set *s, const char *path);

typedef struct pm_file_refs {
    pm_path_set manifests, data, changelog, index, stats;
} pm_file_refs;

void pm_file_refs_clear(pm_file_refs *r);
void pm_file_refs_seal(pm_file_refs *r);

/* Everything snapshot s of t references, with its live data files
 * (live_data) or the ADDs of its delta (otherwise). */
pm_error *pm_file_refs_add_snapshot(pm_file_refs *r, pm_table *t, const pm_snapshot *s, bool live_data);
/* Everything snapshots [from, to] of t reference (missing ids skipped;
 * the first existing one contributes its live files). */
pm_error *pm_file_refs_add_range(pm_file_refs *r, pm_table *t, int64_t from, int64_t to);
/* fn(ctx, path, name after the prefix, content) for every file of
 * <branch root>/<dir_name>/ whose name starts with prefix (tags,
 * consumers); a missing directory has none. */
pm_error *pm_table_meta_files(pm_table *t, const char *dir_name, const char *prefix,
                              pm_error *(*fn)(void *ctx, const char *path, const char *name, const pm_buf *data),
                              void *ctx);
/* The tags of t's branch (tag/tag-*), each a snapshot with its live files. */
pm_error *pm_file_refs_add_tags(pm_file_refs *r, pm_table *t);
/* Every snapshot and tag of every other branch of the table (branch/branch-*). */
pm_error *pm_file_refs_add_other_branches(pm_file_refs *r, pm_table *t);

#endif
