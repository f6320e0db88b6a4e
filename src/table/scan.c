/*
 * table/scan.c — the live files of a snapshot (see scan.h).
 *
 * Steps of pm_table_scan:
 *  1. Snapshot: the given id (PM_ENOTFOUND naming it when missing) or the
 *     latest (none → empty result).  Manifests are Avro or ORC, whatever
 *     `manifest.format` says: the manifest reader goes by each file's
 *     magic (meta/manifest_format.h).
 *  2. Manifest lists: base then delta (meta/manifest.h).  A manifest is
 *     skipped when its bucket range excludes the bucket filter or its
 *     partition stats prove no partition can match (partition.h).
 *  3. Entries of the kept manifests, in order, filtered by partition and
 *     bucket (the merge key contains both, so filtering first is exact),
 *     merged ADD/DELETE (FileEntry.mergeEntries); DELETE entries left over
 *     refer to files outside this state and are dropped.
 *  4. Grouped by (partition bytes, bucket), stably sorted, files kept in
 *     manifest order; each group owns its DataFileMeta structs.
 *  5. Index manifest (full state, ADD entries): every index file of a
 *     scanned bucket is attached; DELETION_VECTORS ranges become
 *     pm_deletion_file records keyed by data file name.  The DV index file
 *     is at its `_EXTERNAL_PATH` when set, else next to the data files
 *     (`index-file-in-data-file-dir`), else in `<table>/index/`.
 *  Untrusted paths: the readers of meta/ refuse file names that are not
 *  plain names; every `_EXTERNAL_PATH` of a manifest entry or index file
 *  must lie under the table's data-file.external-paths roots (current
 *  options, or those of the snapshot's schema, the read schema of time
 *  travel), else PM_ECORRUPT naming the file
 *  and the field (pm_table_check_external_path), so nothing outside the
 *  table is read.
 *  6. Fallback branch (opt-in, reads): partitions found by step 3 in the
 *     scanned branch are complete; the fallback branch is scanned the same
 *     way and contributes only partitions the scanned branch lacks.  Its
 *     row type must equal ours ignoring nullability, and primary keys must
 *     agree, as FallbackReadFileStoreTable checks.
 */
#include "table/scan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/mem.h"
#include "meta/index_path.h"
#include "meta/manifest.h"
#include "table/partition.h"

/* ---------------------------------------------------------------- */
/* result ownership                                                  */

static void bucket_files_clear(pm_bucket_files *b)
{
    pm_bytes_clear(&b->partition);
    for (size_t i = 0; i < b->nfiles; i++)
        pm_data_file_meta_clear(&b->files[i]);
    free(b->files);
    for (size_t i = 0; i < b->ndvs; i++)
        free(b->dvs[i].index_path);
    free(b->dvs);
    pm_index_manifest_entries_free(b->index_entries, b->nindex_entries);
    memset(b, 0, sizeof *b);
}

void pm_scan_result_free(pm_scan_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nbuckets; i++)
        bucket_files_clear(&r->buckets[i]);
    free(r->buckets);
    pm_snapshot_free(r->snapshot);
    pm_snapshot_free(r->fallback_snapshot);
    pm_table_free(r->fallback);
    free(r);
}

/* ---------------------------------------------------------------- */
/* helpers                                                           */

static int cmp_part_bucket(const pm_bytes *pa, int32_t ba, const pm_bytes *pb, int32_t bb)
{
    size_t n = pa->len < pb->len ? pa->len : pb->len;
    int c = n ? memcmp(pa->data, pb->data, n) : 0;
    if (c)
        return c;
    if (pa->len != pb->len)
        return pa->len < pb->len ? -1 : 1;
    return ba < bb ? -1 : ba > bb;
}

/* Every external path of the entries lies under the table's roots (the
 * reader checked the file names). */
static pm_error *check_external_paths(pm_table *t, int64_t read_schema_id, const char *path,
                                      const pm_manifest_entry *es, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!es[i].file.external_path)
            continue;
        char field[768];
        snprintf(field, sizeof field, "manifest %s: _EXTERNAL_PATH of the entry of %s", path, es[i].file.file_name);
        PM_TRY(pm_table_check_external_path(t, read_schema_id, field, es[i].file.external_path));
    }
    return NULL;
}

/* Read one manifest into ev and keep the entries that pass the filters
 * (the others are cleared in place). */
static pm_error *collect_manifest(pm_table *t, int64_t read_schema_id, const char *name, pm_part_matcher *pm,
                                  int32_t bucket, pm_manifest_entry_list *ev)
{
    char *path = NULL;
    PM_TRY(pm_path_factory_manifest_path(t->paths, name, &path));
    size_t start = ev->n;
    pm_error *e = pm_manifest_read_append(t->fio, path, ev);
    if (!e)
        e = check_external_paths(t, read_schema_id, path, ev->v + start, ev->n - start);
    free(path);
    /* consecutive entries usually share a partition: remember the last
     * answer (a copy of its bytes: a dropped entry is cleared at once) */
    pm_buf last = PM_BUF_INIT;
    bool has_last = false, last_match = true;
    size_t w = start;
    for (size_t i = start; i < ev->n && !e; i++) {
        pm_manifest_entry *me = &ev->v[i];
        bool keep = bucket == PM_SCAN_ALL_BUCKETS || me->bucket == bucket;
        if (keep && !pm_part_matcher_all(pm)) {
            if (has_last && last.len == me->partition.len &&
                (last.len == 0 || !memcmp(last.data, me->partition.data, last.len))) {
                keep = last_match;
            } else {
                e = pm_part_matcher_match(pm, me->partition.data, me->partition.len, &keep);
                if (e) {
                    e = pm_error_wrap(e, 0, "manifest %s entry %zu", name, i - start);
                    break;
                }
                pm_buf_clear(&last);
                has_last = false;
                e = pm_buf_append(&last, me->partition.data, me->partition.len);
                if (e)
                    break;
                has_last = true;
                last_match = keep;
            }
        }
        if (!keep) {
            pm_manifest_entry_clear(me);
            continue;
        }
        if (w != i) {
            ev->v[w] = *me;
            memset(me, 0, sizeof *me);
        }
        w++;
    }
    pm_buf_free(&last);
    if (e) {
        for (size_t i = start; i < ev->n; i++)
            pm_manifest_entry_clear(&ev->v[i]);
        ev->n = start;
        return e;
    }
    ev->n = w;
    return NULL;
}

static bool manifest_bucket_may_match(const pm_manifest_file_meta *m, int32_t bucket)
{
    if (bucket == PM_SCAN_ALL_BUCKETS)
        return true;
    if (m->min_bucket.has && bucket < m->min_bucket.v)
        return false;
    if (m->max_bucket.has && bucket > m->max_bucket.v)
        return false;
    return true;
}

typedef struct sort_item {
    pm_manifest_entry *e;
    size_t order;
} sort_item;

static int cmp_item(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    int c = cmp_part_bucket(&x->e->partition, x->e->bucket, &y->e->partition, y->e->bucket);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The usual large case, every entry an ADD of one (partition, bucket):
 * the file metas move to the front of ev's own array, which becomes the
 * bucket's file array, so the entries and the files are not held at once
 * (about 40 MB each at 100,000 files).  Moving meta k to offset
 * k * sizeof(meta) never touches entries after k: a meta is smaller than
 * an entry.  *done = false when the entries are not of that shape. */
_Static_assert(sizeof(pm_data_file_meta) <= sizeof(pm_manifest_entry), "a file meta fits in its entry");
static pm_error *group_in_place(pm_table *t, pm_manifest_entry_list *ev, pm_bucket_files **out, size_t *nout,
                                bool *done)
{
    *done = false;
    pm_manifest_entry *v = ev->v;
    size_t n = ev->n;
    if (!n || ev->borrowed)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (v[i].kind != PM_FILE_ADD || cmp_part_bucket(&v[0].partition, v[0].bucket, &v[i].partition, v[i].bucket))
            return NULL;
    pm_bucket_files *b;
    PM_TRY(pm_calloc(&b, 1, sizeof *b));
    b->table = t;
    b->bucket = v[0].bucket;
    b->total_buckets = v[0].total_buckets;
    b->partition = v[0].partition; /* move */
    uint8_t *base = (uint8_t *)v;
    for (size_t k = 0; k < n; k++) {
        pm_manifest_entry *src = (pm_manifest_entry *)(base + k * sizeof(pm_manifest_entry));
        if (k)
            pm_bytes_clear(&src->partition);
        memmove(base + k * sizeof(pm_data_file_meta), &src->file, sizeof(pm_data_file_meta));
    }
    pm_data_file_meta *files = (pm_data_file_meta *)base;
    pm_error *shrink = pm_realloc_array(&files, n, sizeof *files); /* a failed shrink keeps the larger block */
    pm_error_free(shrink);
    b->files = files;
    b->nfiles = n;
    memset(ev, 0, sizeof *ev);
    *out = b;
    *nout = 1;
    *done = true;
    return NULL;
}

/* Group merged ADD entries into buckets (entries are consumed). */
static pm_error *group_entries(pm_table *t, pm_manifest_entry_list *ev, pm_bucket_files **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    bool done;
    PM_TRY(group_in_place(t, ev, out, nout, &done));
    if (done)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < ev->n; i++)
        if (ev->v[i].kind == PM_FILE_ADD)
            n++;
    if (!n)
        return NULL;
    sort_item *items;
    PM_TRY(pm_calloc(&items, n, sizeof *items));
    size_t k = 0;
    for (size_t i = 0; i < ev->n; i++)
        if (ev->v[i].kind == PM_FILE_ADD) {
            items[k].e = &ev->v[i];
            items[k].order = k;
            k++;
        }
    bool sorted = true; /* the usual case: one bucket, or manifests in key order */
    for (size_t i = 1; i < n && sorted; i++)
        sorted = cmp_item(&items[i - 1], &items[i]) < 0;
    if (!sorted)
        qsort(items, n, sizeof *items, cmp_item);
    pm_bucket_files *bs = NULL;
    size_t nb = 0;
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e;) {
        size_t j = i + 1;
        while (j < n && !cmp_part_bucket(&items[i].e->partition, items[i].e->bucket, &items[j].e->partition,
                                         items[j].e->bucket))
            j++;
        PM_TRY_GOTO(e, pm_realloc_array(&bs, nb + 1, sizeof *bs), done);
        pm_bucket_files *b = &bs[nb++];
        memset(b, 0, sizeof *b);
        b->table = t;
        b->bucket = items[i].e->bucket;
        b->total_buckets = items[i].e->total_buckets;
        b->partition = items[i].e->partition; /* move */
        memset(&items[i].e->partition, 0, sizeof items[i].e->partition);
        PM_TRY_GOTO(e, pm_calloc(&b->files, j - i, sizeof *b->files), done);
        for (size_t q = i; q < j; q++) {
            b->files[b->nfiles++] = items[q].e->file; /* move */
            memset(&items[q].e->file, 0, sizeof items[q].e->file);
        }
        i = j;
    }
done:
    free(items);
    if (e) {
        for (size_t i = 0; i < nb; i++)
            bucket_files_clear(&bs[i]);
        free(bs);
        return e;
    }
    *out = bs;
    *nout = nb;
    return NULL;
}

pm_error *pm_scan_manifest_list_entries(pm_table *t, int64_t read_schema_id, const char *list,
                                        const pm_partition_spec *specs, size_t nspecs, pm_manifest_entry_list *ev)
{
    pm_part_matcher *pm = NULL;
    PM_TRY(pm_part_matcher_new(t, specs, nspecs, &pm));
    char *path = NULL;
    pm_manifest_file_meta *metas = NULL;
    size_t nm = 0;
    pm_error *e = pm_path_factory_manifest_path(t->paths, list, &path);
    if (!e)
        e = pm_manifest_list_read(t->fio, path, &metas, &nm);
    for (size_t i = 0; i < nm && !e; i++)
        if (pm_part_matcher_may_match_stats(pm, &metas[i].partition_stats))
            e = collect_manifest(t, read_schema_id, metas[i].file_name, pm, PM_SCAN_ALL_BUCKETS, ev);
    pm_manifest_file_metas_free(metas, nm);
    free(path);
    pm_part_matcher_free(pm);
    return e ? pm_error_wrap(e, 0, "manifest list %s", list) : NULL;
}

pm_error *pm_scan_group_entries(pm_table *t, pm_manifest_entry_list *ev, pm_bucket_files **out, size_t *nout)
{
    return group_entries(t, ev, out, nout);
}

static pm_bucket_files *find_bucket(pm_bucket_files *bs, size_t n, const pm_bytes *p, int32_t bucket)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_part_bucket(&bs[mid].partition, bs[mid].bucket, p, bucket);
        if (!c)
            return &bs[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static pm_error *dv_index_path(pm_table *t, const pm_bucket_files *b, const pm_index_file_meta *f, char **out)
{
    char *dir = NULL;
    if (!f->external_path && pm_path_factory_index_in_data_dir(t->paths))
        PM_TRY(pm_table_bucket_dir(t, b->partition.data, b->partition.len, b->bucket, &dir));
    pm_error *e = pm_index_file_path(t->paths, dir, f, out);
    free(dir);
    return e;
}

pm_error *pm_bucket_files_add_dvs(pm_table *t, pm_bucket_files *b, const pm_index_file_meta *f, const char *what)
{
    if (strcmp(f->index_type, "DELETION_VECTORS") || !f->has_dv_ranges)
        return NULL;
    for (size_t r = 0; r < f->dv_range_len; r++) {
        const pm_dv_meta *dm = &f->dv_ranges[r];
        const char *data_file = NULL;
        for (size_t q = 0; q < b->nfiles; q++)
            if (!strcmp(b->files[q].file_name, dm->data_file_name)) {
                data_file = b->files[q].file_name;
                break;
            }
        if (!data_file)
            continue; /* DV of a file not in this state (e.g. level 0 skipped later) */
        for (size_t q = 0; q < b->ndvs; q++)
            if (b->dvs[q].data_file == data_file)
                return pm_error_new(PM_ECORRUPT, "%s: two deletion vectors for data file %s", what, data_file);
        PM_TRY(pm_realloc_array(&b->dvs, b->ndvs + 1, sizeof *b->dvs));
        pm_deletion_file *df = &b->dvs[b->ndvs];
        memset(df, 0, sizeof *df);
        PM_TRY(dv_index_path(t, b, f, &df->index_path));
        df->data_file = data_file;
        df->offset = dm->offset;
        df->length = dm->length;
        df->cardinality = dm->cardinality;
        b->ndvs++;
    }
    return NULL;
}

static pm_error *attach_index(pm_table *t, const pm_snapshot *s, pm_bucket_files *bs, size_t nb)
{
    if (!s->index_manifest || !nb)
        return NULL;
    char *path = NULL;
    PM_TRY(pm_path_factory_manifest_path(t->paths, s->index_manifest, &path));
    pm_index_manifest_entry *es = NULL;
    size_t n = 0;
    pm_error *e = pm_index_manifest_read(t->fio, path, &es, &n);
    if (e) {
        free(path);
        return e;
    }
    for (size_t i = 0; i < n && !e; i++) {
        pm_index_manifest_entry *ie = &es[i];
        if (ie->kind != PM_FILE_ADD)
            continue;
        const pm_index_file_meta *f = &ie->index_file;
        if (f->external_path) {
            char field[768];
            snprintf(field, sizeof field, "index manifest %s: _EXTERNAL_PATH of index file %s", path, f->file_name);
            e = pm_table_check_index_external_path(t, s->schema_id, field, f->external_path);
            if (e)
                break;
        }
        pm_bucket_files *b = find_bucket(bs, nb, &ie->partition, ie->bucket);
        if (!b)
            continue;
        e = pm_bucket_files_add_dvs(t, b, f, s->index_manifest);
        if (e)
            break;
        PM_TRY_GOTO(e, pm_realloc_array(&b->index_entries, b->nindex_entries + 1, sizeof *b->index_entries),
                    done);
        b->index_entries[b->nindex_entries] = *ie; /* move */
        memset(ie, 0, sizeof *ie);
        b->nindex_entries++;
    }
done:
    pm_index_manifest_entries_free(es, n);
    if (e)
        e = pm_error_wrap(e, 0, "index manifest %s", path);
    free(path);
    return e;
}

/* Scan one table at snapshot `s` (borrowed). */
static pm_error *scan_snapshot(pm_table *t, const pm_snapshot *s, pm_part_matcher *pm, int32_t bucket,
                               pm_bucket_files **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    pm_manifest_file_meta *metas = NULL;
    size_t nm = 0;
    PM_TRY(pm_snapshot_data_manifests(t->fio, t->paths, s, &metas, &nm));
    pm_manifest_entry_list ev = {0};
    pm_error *e = NULL;
    /* the kept manifests' entry counts bound the entries: one array, no doubling */
    bool *keep = NULL;
    size_t bound = 0;
    if (nm)
        e = pm_calloc(&keep, nm, sizeof *keep);
    for (size_t i = 0; i < nm && !e; i++) {
        keep[i] = manifest_bucket_may_match(&metas[i], bucket) &&
                  pm_part_matcher_may_match_stats(pm, &metas[i].partition_stats);
        if (keep[i] && metas[i].num_added_files >= 0 && metas[i].num_deleted_files >= 0)
            bound += (size_t)metas[i].num_added_files + (size_t)metas[i].num_deleted_files;
    }
    if (!e && bound <= ((size_t)1 << 21)) /* counts come from disk: past 2 M entries the array grows as read */
        e = pm_manifest_entry_list_reserve(&ev, bound);
    for (size_t i = 0; i < nm && !e; i++)
        if (keep[i])
            e = collect_manifest(t, s->schema_id, metas[i].file_name, pm, bucket, &ev);
    free(keep);
    pm_manifest_file_metas_free(metas, nm);
    if (!e)
        e = pm_manifest_entries_merge(ev.v, &ev.n);
    pm_bucket_files *bs = NULL;
    size_t nb = 0;
    if (!e)
        e = group_entries(t, &ev, &bs, &nb);
    pm_manifest_entry_list_free(&ev);
    if (!e)
        e = attach_index(t, s, bs, nb);
    if (e) {
        for (size_t i = 0; i < nb; i++)
            bucket_files_clear(&bs[i]);
        free(bs);
        return pm_error_wrap(e, 0, "snapshot %" PRId64, s->id);
    }
    *out = bs;
    *nout = nb;
    return NULL;
}

static pm_error *load_snapshot(pm_table *t, int64_t id, pm_snapshot **out)
{
    *out = NULL;
    if (id < 0)
        return pm_error_new(PM_EINVALID, "snapshot id %" PRId64 " is negative", id);
    if (id == 0)
        return pm_snapshot_store_load_latest(t->snapshots, out);
    pm_error *e = pm_snapshot_store_load(t->snapshots, id, out);
    if (e && pm_error_root_code(e) == PM_ENOTFOUND) {
        pm_error_free(e);
        return pm_error_new(PM_ENOTFOUND, "snapshot %" PRId64 " not found in table %s (branch %s)", id,
                            t->path, t->branch);
    }
    return e;
}

/* Java's SnapshotManager.earlierOrEqualTimeMills, then FIRST_SNAPSHOT_ID. */
static pm_error *fallback_snapshot_at(pm_table *fb, int64_t millis, pm_snapshot **out)
{
    *out = NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    PM_TRY(pm_snapshot_store_list_ids(fb->snapshots, &ids, &n));
    pm_error *e = NULL;
    for (size_t i = n; i-- > 0 && !e;) {
        pm_snapshot *s = NULL;
        e = pm_snapshot_store_load(fb->snapshots, ids[i], &s);
        if (!e && s->time_millis <= millis) {
            *out = s;
            break;
        }
        pm_snapshot_free(s);
    }
    free(ids);
    if (!e && !*out)
        e = load_snapshot(fb, 1, out);
    return e;
}

static pm_error *check_fallback_schema(const pm_table *t, const pm_schema *main, const pm_table *fb,
                                       const pm_schema *fs)
{
    const pm_type *a = main->row_type, *b = fs->row_type;
    bool same = a->nfields == b->nfields;
    for (size_t i = 0; same && i < a->nfields; i++) {
        pm_type *x = pm_type_clone(a->fields[i].type), *y = pm_type_clone(b->fields[i].type);
        if (!x || !y) {
            pm_type_free(x);
            pm_type_free(y);
            return pm_oom();
        }
        /* top-level: types only (names may differ), nested: ignoring nullability */
        same = pm_type_equals_ignore_nullable(x, y);
        pm_type_free(x);
        pm_type_free(y);
    }
    if (!same)
        return pm_error_new(PM_EINVALID, "branch %s and fallback branch %s of table %s do not have the same row type",
                            t->branch, fb->branch, t->path);
    const pm_str_list *mk = &main->primary_keys, *fk = &fs->primary_keys;
    if (mk->count) {
        bool eq = mk->count == fk->count;
        for (size_t i = 0; eq && i < mk->count; i++)
            eq = !strcmp(mk->items[i], fk->items[i]);
        if (!eq)
            return pm_error_new(PM_EINVALID,
                                "branch %s has primary keys that fallback branch %s of table %s does not share",
                                t->branch, fb->branch, t->path);
    }
    return NULL;
}

/* Add the fallback branch's partitions that `r` lacks. */
static pm_error *scan_fallback(pm_table *t, const pm_scan_options *o, pm_scan_result *r)
{
    const char *name = pm_options_get(pm_table_options(t), "scan.fallback-branch");
    if (!name || !*name || !strcmp(name, t->branch))
        return NULL;
    PM_TRY(pm_error_wrap(pm_table_open(&r->fallback, t->path, name), 0, "fallback branch (scan.fallback-branch=%s)",
                         name));
    pm_table *fb = r->fallback;
    if (o->snapshot_id > 0 && r->snapshot)
        PM_TRY(fallback_snapshot_at(fb, r->snapshot->time_millis, &r->fallback_snapshot));
    else
        PM_TRY(pm_snapshot_store_load_latest(fb->snapshots, &r->fallback_snapshot));
    if (o->snapshot_id > 0 && r->fallback_snapshot)
        PM_TRY(pm_table_schema_by_id(fb, r->fallback_snapshot->schema_id, &r->fallback_schema));
    else
        r->fallback_schema = pm_table_schema(fb);
    PM_TRY(check_fallback_schema(t, r->schema, fb, r->fallback_schema));
    if (!r->fallback_snapshot)
        return NULL;
    pm_part_matcher *pm = NULL;
    PM_TRY(pm_part_matcher_new(fb, o->partitions, o->npartitions, &pm));
    pm_bucket_files *fbs = NULL;
    size_t nf = 0;
    pm_error *e = scan_snapshot(fb, r->fallback_snapshot, pm, o->bucket, &fbs, &nf);
    pm_part_matcher_free(pm);
    if (e)
        return pm_error_wrap(e, 0, "fallback branch %s", name);
    /* keep the partitions main lacks */
    size_t keep = 0;
    for (size_t i = 0; i < nf; i++) {
        bool in_main = false;
        for (size_t j = 0; j < r->nbuckets && !in_main; j++)
            in_main = r->buckets[j].partition.len == fbs[i].partition.len &&
                      (fbs[i].partition.len == 0 ||
                       !memcmp(r->buckets[j].partition.data, fbs[i].partition.data, fbs[i].partition.len));
        if (in_main)
            bucket_files_clear(&fbs[i]);
        else
            fbs[keep++] = fbs[i];
    }
    if (keep) {
        e = pm_realloc_array(&r->buckets, r->nbuckets + keep, sizeof *r->buckets);
        if (!e) {
            memcpy(r->buckets + r->nbuckets, fbs, keep * sizeof *fbs);
            r->nbuckets += keep;
            keep = 0;
        }
    }
    for (size_t i = 0; i < keep; i++)
        bucket_files_clear(&fbs[i]);
    free(fbs);
    return e;
}

static int cmp_bucket_files(const void *a, const void *b)
{
    const pm_bucket_files *x = a, *y = b;
    return cmp_part_bucket(&x->partition, x->bucket, &y->partition, y->bucket);
}

pm_error *pm_table_scan(pm_table *t, const pm_scan_options *o, pm_scan_result **out)
{
    *out = NULL;
    pm_scan_options defaults = pm_scan_options_default();
    if (!o)
        o = &defaults;
    pm_scan_result *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    pm_part_matcher *pm = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_part_matcher_new(t, o->partitions, o->npartitions, &pm), fail);
    PM_TRY_GOTO(e, load_snapshot(t, o->snapshot_id, &r->snapshot), fail);
    r->schema = pm_table_schema(t);
    if (r->snapshot && o->snapshot_id > 0)
        PM_TRY_GOTO(e, pm_error_wrap(pm_table_schema_by_id(t, r->snapshot->schema_id, &r->schema), 0,
                                     "schema of snapshot %" PRId64, r->snapshot->id),
                    fail);
    if (r->snapshot)
        PM_TRY_GOTO(e, scan_snapshot(t, r->snapshot, pm, o->bucket, &r->buckets, &r->nbuckets), fail);
    if (o->fallback_branch) {
        PM_TRY_GOTO(e, scan_fallback(t, o, r), fail);
        if (r->nbuckets > 1)
            qsort(r->buckets, r->nbuckets, sizeof *r->buckets, cmp_bucket_files);
    }
    pm_part_matcher_free(pm);
    *out = r;
    return NULL;
fail:
    pm_part_matcher_free(pm);
    pm_scan_result_free(r);
    return pm_error_wrap(e, 0, "scan table %s", t->path);
}
