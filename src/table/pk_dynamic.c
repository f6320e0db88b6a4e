/*
 * table/pk_dynamic.c — dynamic-bucket routing of the primary-key writer
 * (contract in pk_dynamic.h).
 *
 * State: the assigner; the HASH entries in effect per (partition, bucket)
 * (those of the base snapshot, replaced by each prepare's new files); the
 * paths of the last prepare's files until they are handed out.
 */
#include "table/pk_dynamic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/util.h"
#include "index/dynamic_bucket.h"
#include "index/hash_index.h"
#include "meta/index_path.h"
#include "meta/manifest.h"
#include "table/partition.h"

struct pm_pk_dynamic {
    pm_table *t;
    bool ignore_previous;
    pm_dyn_assigner *a;
    bool loaded;                   /* base entries read */
    int64_t base_schema;
    pm_index_manifest_entry *cur;  /* HASH entries in effect */
    size_t ncur;
    char **pending;                /* files of the last prepare, not handed out */
    size_t npending;
};

static void drop_pending(pm_pk_dynamic *d, bool delete_files)
{
    for (size_t i = 0; i < d->npending; i++) {
        if (delete_files)
            pm_error_free(pm_fileio_delete(d->t->fio, d->pending[i]));
        free(d->pending[i]);
    }
    free(d->pending);
    d->pending = NULL;
    d->npending = 0;
}

void pm_pk_dynamic_free(pm_pk_dynamic *d)
{
    if (!d)
        return;
    drop_pending(d, false);
    pm_dyn_assigner_free(d->a);
    pm_index_manifest_entries_free(d->cur, d->ncur);
    free(d);
}

void pm_pk_dynamic_abort(pm_pk_dynamic *d)
{
    if (!d)
        return;
    drop_pending(d, true);
    pm_pk_dynamic_free(d);
}

void pm_pk_dynamic_handed_out(pm_pk_dynamic *d) { drop_pending(d, false); }

pm_error *pm_pk_dynamic_new(pm_pk_dynamic **out, pm_table *t, bool ignore_previous)
{
    *out = NULL;
    const pm_options *o = pm_table_options(t);
    pm_dyn_options dopts = {0};
    bool has = false;
    PM_TRY(pm_options_long(o, PM_OPT_DYNAMIC_BUCKET_TARGET_ROW_NUM, NULL, &dopts.target_rows));
    PM_TRY(pm_options_int(o, PM_OPT_DYNAMIC_BUCKET_MAX_BUCKETS, NULL, &dopts.max_buckets));
    PM_TRY(pm_options_int(o, PM_OPT_DYNAMIC_BUCKET_INITIAL_BUCKETS, &has, &dopts.num_assigners));
    if (!has)
        dopts.num_assigners = 1;
    PM_TRY(pm_random_bytes(&dopts.seed, sizeof dopts.seed));
    pm_pk_dynamic *d;
    PM_TRY(pm_calloc(&d, 1, sizeof *d));
    d->t = t;
    d->ignore_previous = ignore_previous;
    pm_error *e = pm_dyn_assigner_new(&d->a, &dopts);
    if (e) {
        pm_pk_dynamic_free(d);
        return pm_error_wrap(e, 0, "dynamic bucket options of table %s", pm_table_path(t));
    }
    *out = d;
    return NULL;
}

/* The HASH entries of the latest snapshot's index manifest. */
static pm_error *load_base(pm_pk_dynamic *d)
{
    d->loaded = true;
    if (d->ignore_previous)
        return NULL;
    pm_snapshot *s = NULL;
    PM_TRY(pm_snapshot_store_load_latest(d->t->snapshots, &s));
    if (!s)
        return NULL;
    d->base_schema = s->schema_id;
    pm_error *e = NULL;
    char *path = NULL;
    pm_index_manifest_entry *es = NULL;
    size_t n = 0;
    if (s->index_manifest) {
        e = pm_path_factory_manifest_path(d->t->paths, s->index_manifest, &path);
        if (!e)
            e = pm_index_manifest_read(d->t->fio, path, &es, &n);
    }
    for (size_t i = 0; !e && i < n; i++) {
        pm_index_manifest_entry *ie = &es[i];
        if (ie->kind != PM_FILE_ADD || !ie->index_file.index_type ||
            strcmp(ie->index_file.index_type, PM_HASH_INDEX_TYPE))
            continue;
        if (ie->index_file.external_path) {
            char field[768];
            snprintf(field, sizeof field, "index manifest %s: _EXTERNAL_PATH of index file %s", path,
                     ie->index_file.file_name);
            e = pm_table_check_external_path(d->t, s->schema_id, field, ie->index_file.external_path);
            if (e)
                break;
        }
        e = pm_realloc_array(&d->cur, d->ncur + 1, sizeof *d->cur);
        if (!e) {
            d->cur[d->ncur++] = *ie; /* move */
            memset(ie, 0, sizeof *ie);
        }
    }
    pm_index_manifest_entries_free(es, n);
    free(path);
    int64_t id = s->id;
    pm_snapshot_free(s);
    return e ? pm_error_wrap(e, 0, "HASH index of snapshot %lld", (long long)id) : NULL;
}

static bool same_partition(const pm_bytes *p, const uint8_t *part, size_t plen)
{
    return p->len == plen && (!plen || !memcmp(p->data, part, plen));
}

static pm_error *index_path(pm_pk_dynamic *d, const uint8_t *part, size_t plen, int32_t bucket,
                            const pm_index_file_meta *f, char **out)
{
    char *dir = NULL;
    PM_TRY(pm_table_bucket_dir(d->t, part, plen, bucket, &dir));
    pm_error *e = pm_index_file_path(d->t->paths, dir, f, out);
    free(dir);
    return e;
}

/* A partition's buckets from their HASH files in effect. */
static pm_error *load_partition(pm_pk_dynamic *d, pm_dyn_partition *p, const uint8_t *part, size_t plen)
{
    for (size_t i = 0; i < d->ncur; i++) {
        const pm_index_manifest_entry *ie = &d->cur[i];
        if (!same_partition(&ie->partition, part, plen))
            continue;
        char *path = NULL;
        int32_t *hashes = NULL;
        size_t n = 0;
        pm_error *e = index_path(d, part, plen, ie->bucket, &ie->index_file, &path);
        if (!e)
            e = pm_hash_index_read(d->t->fio, path, ie->index_file.row_count, &hashes, &n);
        if (!e)
            e = pm_dyn_partition_load(p, ie->bucket, hashes, n);
        free(hashes);
        free(path);
        if (e)
            return pm_error_wrap(e, 0, "HASH index of bucket %d", (int)ie->bucket);
    }
    return NULL;
}

pm_error *pm_pk_dynamic_assign(pm_pk_dynamic *d, const uint8_t *part, size_t plen, int32_t part_hash,
                               int32_t key_hash, int32_t *bucket)
{
    pm_dyn_partition *p = pm_dyn_partition_find(d->a, part, plen);
    if (!p) {
        if (!d->loaded)
            PM_TRY(load_base(d));
        PM_TRY(pm_dyn_partition_add(d->a, part, plen, part_hash, &p));
        pm_error *e = load_partition(d, p, part, plen);
        if (e) {
            pm_buf txt = PM_BUF_INIT;
            pm_error_free(pm_partition_display(d->t, part, plen, &txt));
            e = pm_error_wrap(e, 0, "dynamic bucket index of partition '%.*s'", (int)txt.len,
                              txt.data ? (const char *)txt.data : "");
            pm_buf_free(&txt);
            return e;
        }
    }
    return pm_dyn_assign(d->a, p, key_hash, bucket);
}

void pm_pk_dynamic_changes_free(pm_pk_dynamic_change *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        pm_bytes_clear(&c[i].partition);
        pm_index_manifest_entry_clear(&c[i].added);
        if (c[i].has_removed)
            pm_index_manifest_entry_clear(&c[i].removed);
    }
    free(c);
}

/* The entry in effect for (partition, bucket), or NULL. */
static pm_index_manifest_entry *current(pm_pk_dynamic *d, const uint8_t *part, size_t plen, int32_t bucket)
{
    for (size_t i = 0; i < d->ncur; i++)
        if (d->cur[i].bucket == bucket && same_partition(&d->cur[i].partition, part, plen))
            return &d->cur[i];
    return NULL;
}

/* One changed bucket: its new file, the change, the entry in effect. */
static pm_error *prepare_bucket(pm_pk_dynamic *d, pm_dyn_partition *p, int32_t bucket, pm_pk_dynamic_change *c)
{
    size_t plen = 0;
    const uint8_t *part = pm_dyn_partition_bytes(p, &plen);
    memset(c, 0, sizeof *c);
    c->bucket = bucket;
    PM_TRY(pm_bytes_set(&c->partition, part, plen));
    int32_t *hashes = NULL;
    size_t n = 0;
    char *bdir = NULL, *dir = NULL, *path = NULL;
    pm_error *e = pm_dyn_partition_hashes(p, bucket, &hashes, &n);
    if (!e)
        e = pm_table_bucket_dir(d->t, part, plen, bucket, &bdir);
    if (!e)
        e = pm_index_dir(d->t->paths, bdir, &dir);
    if (!e)
        e = pm_fileio_mkdirs(d->t->fio, dir);
    pm_index_file_meta meta;
    memset(&meta, 0, sizeof meta);
    if (!e)
        e = pm_hash_index_write(d->t->fio, d->t->paths, dir, hashes, n, &meta);
    if (!e) {
        path = pm_path_join(dir, meta.file_name);
        e = path ? pm_realloc_array(&d->pending, d->npending + 1, sizeof *d->pending) : pm_oom();
        if (!e) {
            d->pending[d->npending++] = path;
            path = NULL;
        }
    }
    free(hashes);
    free(bdir);
    free(dir);
    free(path);
    if (e) {
        pm_index_meta_clear(&meta);
        return e;
    }
    c->added.kind = PM_FILE_ADD;
    c->added.bucket = bucket;
    c->added.index_file = meta; /* move */
    e = pm_bytes_set(&c->added.partition, part, plen);
    pm_index_manifest_entry *cur = current(d, part, plen, bucket);
    if (!e && cur) {
        e = pm_index_manifest_entry_copy(&c->removed, cur);
        c->has_removed = !e;
        c->removed.kind = PM_FILE_DELETE;
    }
    /* the new file is in effect for the next prepare */
    if (!e && cur) {
        pm_index_manifest_entry_clear(cur);
        e = pm_index_manifest_entry_copy(cur, &c->added);
    } else if (!e) {
        e = pm_realloc_array(&d->cur, d->ncur + 1, sizeof *d->cur);
        if (!e) {
            memset(&d->cur[d->ncur], 0, sizeof *d->cur);
            e = pm_index_manifest_entry_copy(&d->cur[d->ncur], &c->added);
            if (!e)
                d->ncur++;
        }
    }
    if (!e)
        pm_dyn_partition_mark_written(p, bucket);
    return e;
}

pm_error *pm_pk_dynamic_prepare(pm_pk_dynamic *d, pm_pk_dynamic_change **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    drop_pending(d, false);
    pm_pk_dynamic_change *cs = NULL;
    size_t nc = 0;
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < pm_dyn_partition_count(d->a); i++) {
        pm_dyn_partition *p = pm_dyn_partition_at(d->a, i);
        int32_t *buckets = NULL;
        size_t nb = 0;
        e = pm_dyn_partition_changed(p, &buckets, &nb);
        if (!e && nb)
            e = pm_realloc_array(&cs, nc + nb, sizeof *cs);
        for (size_t k = 0; !e && k < nb; k++) {
            e = prepare_bucket(d, p, buckets[k], &cs[nc]);
            if (!e || cs[nc].partition.data)
                nc++; /* a half-made change is freed with the others */
        }
        free(buckets);
    }
    if (e) {
        pm_pk_dynamic_changes_free(cs, nc);
        drop_pending(d, true);
        return pm_error_wrap(e, 0, "write the dynamic bucket index of table %s", pm_table_path(d->t));
    }
    *out = cs;
    *n = nc;
    return NULL;
}
