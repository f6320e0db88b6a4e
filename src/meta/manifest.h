/*
 * meta/manifest.h — manifest files, manifest lists and index manifests on
 * disk (Avro object containers, or ORC files with `manifest.format=orc`,
 * under <table>/manifest/; the formats are meta/manifest_format.h's), and
 * the ADD/DELETE merge of manifest entries.
 *
 * Reading: the format comes from the file's magic (Avro or ORC; Parquet
 * manifests are PM_EUNSUPPORTED, anything else PM_ECORRUPT).  Names
 * read from disk (a manifest list's manifest `_FILE_NAME`s, a manifest's
 * data or changelog `_FILE_NAME` and `_EXTRA_FILES`, an index manifest's
 * index `_FILE_NAME`) must be plain file names (meta/safe_path.h), else
 * PM_ECORRUPT naming the file and the field; `_EXTERNAL_PATH`s are left to
 * the table layer, which knows the table's external roots.  Rows
 * are decoded by field name with the newest field set, so files written by
 * any Paimon version (0.5 … master, top-level row nullable or not) read.
 *
 * Writing (what Paimon 2.0 does):
 *   - format `manifest.format` (avro, orc); Avro codec: table option
 *     `avro.codec` if set (Avro codec names), else `manifest.compression`:
 *     "zstd" (any case) → zstandard at `file.compression.zstd-level`;
 *     otherwise an Avro codec name (null, deflate, snappy, zstandard at
 *     level 3); bzip2/xz are unsupported.  ORC: manifest_format.h.
 *   - manifest files roll: after every 1000th entry, a new file is started
 *     when the current one reached `manifest.target-file-size`.  Each file
 *     yields a ManifestFileMeta: counts of ADD/DELETE entries, partition
 *     stats over the entries' partitions (full mode, meta/stats.h), max
 *     schema id of the entries (the latest schema id for an empty file),
 *     min/max bucket and level, and min/max row id when every entry has a
 *     first row id (max = firstRowId + rowCount - 1).
 *   - a manifest list or index manifest is one file, never rolled, written
 *     even when empty.
 *   Names come from the path factory (manifest-<uuid>-<n>, manifest-list-…,
 *   index-manifest-…).  Files are created with overwrite=false and synced.
 *
 * Merge (FileEntry.mergeEntries): entries are applied in order; the key is
 * (partition bytes, bucket, level, file name, extra files, embedded index,
 * external path).  ADD inserts (an ADD whose key is present is PM_ECORRUPT);
 * DELETE removes a present key, otherwise the DELETE is kept.  The result
 * keeps first-insertion order, like Java's LinkedHashMap.
 */
#ifndef PM_META_MANIFEST_H
#define PM_META_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/fileio.h"
#include "meta/data_file_meta.h"
#include "meta/manifest_format.h"
#include "meta/options.h"
#include "meta/paths.h"
#include "meta/snapshot.h"

/* Arrays returned by the readers; free with the matching *_free. */
void pm_manifest_entries_free(pm_manifest_entry *e, size_t n);
void pm_manifest_file_metas_free(pm_manifest_file_meta *m, size_t n);
void pm_index_manifest_entries_free(pm_index_manifest_entry *e, size_t n);

/* ---- reading (path = full file path) ---- */
pm_error *pm_manifest_read(pm_fileio *fio, const char *path, pm_manifest_entry **out, size_t *count);
pm_error *pm_manifest_list_read(pm_fileio *fio, const char *path, pm_manifest_file_meta **out,
                                size_t *count);
pm_error *pm_index_manifest_read(pm_fileio *fio, const char *path, pm_index_manifest_entry **out,
                                 size_t *count);

/* The data manifests of a snapshot: its base list, then its delta list. */
pm_error *pm_snapshot_data_manifests(pm_fileio *fio, const pm_path_factory *pf, const pm_snapshot *s,
                                     pm_manifest_file_meta **out, size_t *count);
/* Read the manifests in order and merge their entries (see top). */
pm_error *pm_manifest_read_merged(pm_fileio *fio, const pm_path_factory *pf,
                                  const pm_manifest_file_meta *metas, size_t n,
                                  pm_manifest_entry **out, size_t *count);

/* Which of `keys` are live files after merging the manifests (in order,
 * as pm_manifest_read_merged would: an ADD makes an identifier live, a
 * DELETE removes it): live[i] for keys[i] (only their identifiers count,
 * not their kinds).  Reads one manifest at a time: memory is the keys' set
 * and one manifest, not every live entry. */
pm_error *pm_manifest_keys_live(pm_fileio *fio, const pm_path_factory *pf, const pm_manifest_file_meta *metas,
                                size_t n, const pm_manifest_entry *keys, size_t nkeys, bool *live);

/* ---- merging ---- */
/* Merge in place: *n shrinks; removed entries are cleared. */
pm_error *pm_manifest_entries_merge(pm_manifest_entry *entries, size_t *n);

/* The merge key above (FileEntry.Identifier): hash and equality. */
uint64_t pm_manifest_entry_ident_hash(const pm_manifest_entry *e);
bool pm_manifest_entry_ident_eq(const pm_manifest_entry *a, const pm_manifest_entry *b);
/* The same of a file in (partition, bucket), without an entry around it. */
uint64_t pm_manifest_file_ident_hash(const pm_bytes *partition, int32_t bucket, const pm_data_file_meta *f);
bool pm_manifest_file_ident_eq(const pm_bytes *pa, int32_t ba, const pm_data_file_meta *a, const pm_bytes *pb,
                               int32_t bb, const pm_data_file_meta *b);

/* A set of borrowed items by file identifier (they must outlive the set).
 * The items are manifest entries, or, with `key` set before the first add,
 * any struct `key` reads (partition, bucket, file) from: one set for the
 * entries of a manifest merge and the commit's delta references alike.  A
 * zero-initialized set holds entries. */
typedef void (*pm_manifest_ident_key_fn)(const void *item, const pm_bytes **partition, int32_t *bucket,
                                         const pm_data_file_meta **file);
typedef struct pm_manifest_ident_set {
    const void **slots;
    size_t cap, n;
    pm_manifest_ident_key_fn key; /* NULL: the items are pm_manifest_entry */
} pm_manifest_ident_set;
/* Adds item unless an item with its identifier is in the set already. */
pm_error *pm_manifest_ident_set_add_item(pm_manifest_ident_set *s, const void *item);
/* The item with the identifier of `file` in (partition, bucket) (the first one added), or NULL. */
const void *pm_manifest_ident_set_find_file(const pm_manifest_ident_set *s, const pm_bytes *partition,
                                            int32_t bucket, const pm_data_file_meta *file);
/* The entry forms of the two above (a set of entries). */
pm_error *pm_manifest_ident_set_add(pm_manifest_ident_set *s, const pm_manifest_entry *e);
bool pm_manifest_ident_set_has(const pm_manifest_ident_set *s, const pm_manifest_entry *e);
const pm_manifest_entry *pm_manifest_ident_set_find(const pm_manifest_ident_set *s, const pm_manifest_entry *e);
void pm_manifest_ident_set_free(pm_manifest_ident_set *s);

/* A growable array of entries (zero-initialized = empty), owned or, when
 * `borrowed`, shallow views whose strings and arrays belong to the structs
 * they were pushed from (those must outlive the list and stay unchanged;
 * the list's own scalar fields may be changed).  A list is one or the
 * other: the first push decides. */
typedef struct pm_manifest_entry_list {
    pm_manifest_entry *v;
    size_t n, cap;
    bool borrowed;
} pm_manifest_entry_list;
/* Append a copy of (kind, partition, bucket, total buckets, file). */
pm_error *pm_manifest_entry_list_push(pm_manifest_entry_list *l, pm_file_kind kind, const pm_bytes *partition,
                                      int32_t bucket, int32_t total_buckets, const pm_data_file_meta *f);
/* Append a view of them (no copy: see `borrowed`). */
pm_error *pm_manifest_entry_list_push_view(pm_manifest_entry_list *l, pm_file_kind kind, const pm_bytes *partition,
                                           int32_t bucket, int32_t total_buckets, const pm_data_file_meta *f);
/* Append *e itself, moved (*e is zeroed); an owned list only. */
pm_error *pm_manifest_entry_list_take(pm_manifest_entry_list *l, pm_manifest_entry *e);
/* Room for `extra` more entries without growing (the capacity becomes
 * exactly n + extra when it was smaller): a caller that knows how many
 * entries come saves the doubling's slack (100,000 entries of ~460 bytes). */
pm_error *pm_manifest_entry_list_reserve(pm_manifest_entry_list *l, size_t extra);
/* Frees the array, and the entries unless borrowed. */
void pm_manifest_entry_list_free(pm_manifest_entry_list *l);

/* Append the entries of manifest `path` (read as pm_manifest_read does)
 * to the owned list l, with no array of the file's own: a manifest of
 * 100,000 entries is not held twice.  On error l is as before. */
pm_error *pm_manifest_read_append(pm_fileio *fio, const char *path, pm_manifest_entry_list *l);

/* ---- writing ---- */
/* Write entries into one or more manifest files (see top); *metas gets one
 * ManifestFileMeta per file (none when n == 0). */
pm_error *pm_manifest_write(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                            const pm_type *partition_type, int64_t latest_schema_id,
                            const pm_manifest_entry *entries, size_t n,
                            pm_manifest_file_meta **metas, size_t *nmetas);
/* The same over entries handed out one at a time: at(arg, i, scratch) is
 * entry i (0 <= i < n, asked in order), either a pointer of the caller's
 * or `scratch` filled (a view, valid until the next call): a writer of
 * 100,000 entries needs no array of them. */
typedef const pm_manifest_entry *(*pm_manifest_entry_at_fn)(void *arg, size_t i, pm_manifest_entry *scratch);
pm_error *pm_manifest_write_each(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                                 const pm_type *partition_type, int64_t latest_schema_id,
                                 pm_manifest_entry_at_fn at, void *arg, size_t n,
                                 pm_manifest_file_meta **metas, size_t *nmetas);
/* Write one manifest list; returns its file name (malloc'd) and size. */
pm_error *pm_manifest_list_write(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                                 const pm_manifest_file_meta *metas, size_t n, char **name,
                                 int64_t *size);
/* Write one index manifest; returns its file name (malloc'd) and size. */
pm_error *pm_index_manifest_write(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                                  const pm_index_manifest_entry *entries, size_t n, char **name,
                                  int64_t *size);

#endif
