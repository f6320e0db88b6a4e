/*
 * dv/dv_maintainer.c — deletion-vector maintainers for bucketed and
 * bucket-unaware tables (behaviour in dv_maintainer.h).
 */
#include "dv/dv_maintainer.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "dv/dv_index_file.h"
#include "meta/index_path.h"
#include "meta/manifest.h"

pm_error *pm_dv_options(const pm_options *o, bool *bitmap64, int64_t *target_size)
{
    bool present;
    PM_TRY(pm_options_bool(o, PM_OPT_DELETION_VECTORS_BITMAP64, bitmap64));
    PM_TRY(pm_options_memory(o, PM_OPT_DELETION_VECTOR_INDEX_FILE_TARGET_SIZE, &present, target_size));
    if (!present || *target_size <= 0)
        *target_size = PM_DV_INDEX_TARGET_SIZE_DEFAULT;
    return NULL;
}

static bool same_bucket(const pm_index_manifest_entry *e, const pm_bytes *partition, int32_t bucket)
{
    return e->kind == PM_FILE_ADD && e->bucket == bucket && e->index_file.index_type &&
           !strcmp(e->index_file.index_type, PM_DV_INDEX_TYPE) && e->partition.len == partition->len &&
           (partition->len == 0 || !memcmp(e->partition.data, partition->data, partition->len));
}

static pm_error *io_copy(pm_dv_io *dst, const pm_dv_io *src)
{
    *dst = *src;
    dst->bucket_dir = NULL;
    return pm_strdup((char **)&dst->bucket_dir, src->bucket_dir);
}

static pm_error *read_entry(const pm_dv_io *io, const pm_index_manifest_entry *e, pm_dv_map *into)
{
    char *path;
    PM_TRY(pm_index_file_path(io->pf, io->bucket_dir, &e->index_file, &path));
    pm_error *err = pm_dv_index_read(io->fio, path, &e->index_file, into);
    free(path);
    return err;
}

/* Fill an entry of `kind` for (partition, bucket) taking *meta. */
static pm_error *make_entry(pm_index_manifest_entry *out, pm_file_kind kind, const pm_bytes *partition,
                            int32_t bucket, pm_index_file_meta *meta)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->bucket = bucket;
    out->index_file = *meta;
    memset(meta, 0, sizeof *meta);
    pm_error *e = pm_bytes_set(&out->partition, partition->data, partition->len);
    if (e)
        pm_index_manifest_entry_clear(out);
    return e;
}

/* ------------------------------------------------------------------ */
/* bucketed                                                             */
/* ------------------------------------------------------------------ */

struct pm_dv_maintainer {
    pm_dv_io io;
    pm_bytes partition;
    int32_t bucket;
    bool bitmap64;
    bool modified;
    pm_dv_map *dvs;
};

pm_error *pm_dv_maintainer_new(const pm_dv_io *io, const pm_bytes *partition, int32_t bucket,
                               bool bitmap64, const pm_index_manifest_entry *entries, size_t n,
                               pm_dv_maintainer **out)
{
    *out = NULL;
    pm_dv_maintainer *m;
    PM_TRY(pm_calloc(&m, 1, sizeof *m));
    m->bucket = bucket;
    m->bitmap64 = bitmap64;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, io_copy(&m->io, io), fail);
    PM_TRY_GOTO(e, pm_bytes_set(&m->partition, partition->data, partition->len), fail);
    PM_TRY_GOTO(e, pm_dv_map_new(&m->dvs), fail);
    for (size_t i = 0; i < n; i++)
        if (same_bucket(&entries[i], partition, bucket))
            PM_TRY_GOTO(e, read_entry(io, &entries[i], m->dvs), fail);
    *out = m;
    return NULL;
fail:
    pm_dv_maintainer_free(m);
    return pm_error_wrap(e, 0, "restore deletion vectors of bucket %d", bucket);
}

void pm_dv_maintainer_free(pm_dv_maintainer *m)
{
    if (!m)
        return;
    free((char *)m->io.bucket_dir);
    pm_bytes_clear(&m->partition);
    pm_dv_map_free(m->dvs);
    free(m);
}

const pm_dv *pm_dv_maintainer_get(const pm_dv_maintainer *m, const char *data_file)
{
    return pm_dv_map_get(m->dvs, data_file);
}

const pm_dv_map *pm_dv_maintainer_vectors(const pm_dv_maintainer *m) { return m->dvs; }

pm_error *pm_dv_maintainer_delete_row(pm_dv_maintainer *m, const char *data_file, int64_t pos)
{
    pm_dv *dv = pm_dv_map_get(m->dvs, data_file);
    if (!dv) {
        PM_TRY(pm_dv_new(m->bitmap64, &dv));
        PM_TRY(pm_dv_map_put(m->dvs, data_file, dv));
    }
    bool added;
    PM_TRY(pm_dv_add(dv, pos, &added));
    m->modified |= added;
    return NULL;
}

pm_error *pm_dv_maintainer_put(pm_dv_maintainer *m, const char *data_file, pm_dv *dv)
{
    PM_TRY(pm_dv_map_put(m->dvs, data_file, dv));
    m->modified = true;
    return NULL;
}

pm_error *pm_dv_maintainer_merge(pm_dv_maintainer *m, const char *data_file, const pm_dv *dv)
{
    pm_dv *cur = pm_dv_map_get(m->dvs, data_file);
    if (cur) {
        PM_TRY(pm_dv_merge(cur, dv));
    } else {
        pm_dv *copy;
        PM_TRY(pm_dv_copy(dv, &copy));
        PM_TRY(pm_dv_map_put(m->dvs, data_file, copy));
    }
    m->modified = true;
    return NULL;
}

void pm_dv_maintainer_remove(pm_dv_maintainer *m, const char *data_file)
{
    pm_dv *dv = pm_dv_map_take(m->dvs, data_file);
    if (dv) {
        pm_dv_free(dv);
        m->modified = true;
    }
}

bool pm_dv_maintainer_modified(const pm_dv_maintainer *m) { return m->modified; }

pm_error *pm_dv_maintainer_write(pm_dv_maintainer *m, pm_index_manifest_entry *added, bool *written)
{
    *written = false;
    memset(added, 0, sizeof *added);
    if (!m->modified)
        return NULL;
    char *dir;
    PM_TRY(pm_index_dir(m->io.pf, m->io.bucket_dir, &dir));
    pm_index_file_meta meta;
    pm_error *e = pm_dv_index_write_single(m->io.fio, m->io.pf, dir, m->dvs, &meta);
    free(dir);
    PM_TRY(e);
    PM_TRY(make_entry(added, PM_FILE_ADD, &m->partition, m->bucket, &meta));
    m->modified = false;
    *written = true;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* bucket-unaware append                                                */
/* ------------------------------------------------------------------ */

typedef struct restored_file {
    pm_index_manifest_entry entry; /* copy */
    char *path;
    bool touched;
    bool *removed; /* per DV range */
} restored_file;

struct pm_dv_append_maintainer {
    pm_dv_io io;
    pm_bytes partition;
    int64_t target;
    restored_file *files;
    size_t nfiles;
    pm_dv_map *fresh; /* new vectors, merged with their previous ones */
};

pm_error *pm_dv_append_maintainer_new(const pm_dv_io *io, const pm_bytes *partition,
                                      int64_t target_size, const pm_index_manifest_entry *entries,
                                      size_t n, pm_dv_append_maintainer **out)
{
    *out = NULL;
    pm_dv_append_maintainer *m;
    PM_TRY(pm_calloc(&m, 1, sizeof *m));
    m->target = target_size;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, io_copy(&m->io, io), fail);
    PM_TRY_GOTO(e, pm_bytes_set(&m->partition, partition->data, partition->len), fail);
    PM_TRY_GOTO(e, pm_dv_map_new(&m->fresh), fail);
    PM_TRY_GOTO(e, pm_calloc(&m->files, n ? n : 1, sizeof *m->files), fail);
    for (size_t i = 0; i < n; i++) {
        if (!same_bucket(&entries[i], partition, 0))
            continue;
        restored_file *f = &m->files[m->nfiles++];
        PM_TRY_GOTO(e, pm_index_manifest_entry_copy(&f->entry, &entries[i]), fail);
        PM_TRY_GOTO(e, pm_calloc(&f->removed, f->entry.index_file.dv_range_len + 1, sizeof(bool)), fail);
        PM_TRY_GOTO(e, pm_index_file_path(io->pf, io->bucket_dir, &f->entry.index_file, &f->path), fail);
    }
    *out = m;
    return NULL;
fail:
    pm_dv_append_maintainer_free(m);
    return e;
}

void pm_dv_append_maintainer_free(pm_dv_append_maintainer *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nfiles; i++) {
        pm_index_manifest_entry_clear(&m->files[i].entry);
        free(m->files[i].removed);
        free(m->files[i].path);
    }
    free(m->files);
    free((char *)m->io.bucket_dir);
    pm_bytes_clear(&m->partition);
    pm_dv_map_free(m->fresh);
    free(m);
}

/* The live (not removed) range of a data file in the restored files. */
static bool find_range(const pm_dv_append_maintainer *m, const char *data_file, size_t *fi, size_t *ri)
{
    for (size_t i = 0; i < m->nfiles; i++) {
        const pm_index_file_meta *f = &m->files[i].entry.index_file;
        for (size_t j = 0; j < f->dv_range_len; j++)
            if (!m->files[i].removed[j] && !strcmp(f->dv_ranges[j].data_file_name, data_file)) {
                *fi = i;
                *ri = j;
                return true;
            }
    }
    return false;
}

static pm_error *read_range(const pm_dv_append_maintainer *m, size_t fi, size_t ri, pm_dv **out)
{
    const pm_dv_meta *r = &m->files[fi].entry.index_file.dv_ranges[ri];
    return pm_dv_index_read_one(m->io.fio, m->files[fi].path, r->offset, r->length, out);
}

pm_error *pm_dv_append_maintainer_get(pm_dv_append_maintainer *m, const char *data_file, pm_dv **out)
{
    *out = NULL;
    const pm_dv *fresh = pm_dv_map_get(m->fresh, data_file);
    if (fresh)
        return pm_dv_copy(fresh, out);
    size_t fi, ri;
    if (find_range(m, data_file, &fi, &ri))
        return read_range(m, fi, ri, out);
    return NULL;
}

pm_error *pm_dv_append_maintainer_add(pm_dv_append_maintainer *m, const char *data_file, pm_dv *dv)
{
    size_t fi, ri;
    pm_error *e = NULL;
    if (find_range(m, data_file, &fi, &ri)) {
        pm_dv *prev;
        PM_TRY_GOTO(e, read_range(m, fi, ri, &prev), fail);
        e = pm_dv_merge(dv, prev);
        pm_dv_free(prev);
        if (e)
            goto fail;
        m->files[fi].removed[ri] = true;
        m->files[fi].touched = true;
    }
    pm_dv *cur = pm_dv_map_get(m->fresh, data_file);
    if (cur) {
        e = pm_dv_merge(cur, dv);
        pm_dv_free(dv);
        return e;
    }
    return pm_dv_map_put(m->fresh, data_file, dv);
fail:
    pm_dv_free(dv);
    return e;
}

void pm_dv_append_maintainer_remove(pm_dv_append_maintainer *m, const char *data_file)
{
    size_t fi, ri;
    if (find_range(m, data_file, &fi, &ri)) {
        m->files[fi].removed[ri] = true;
        m->files[fi].touched = true;
    }
    pm_dv_free(pm_dv_map_take(m->fresh, data_file));
}

typedef struct entry_list {
    pm_index_manifest_entry *items;
    size_t n, cap;
} entry_list;

static pm_error *list_slot(entry_list *l, pm_index_manifest_entry **slot)
{
    if (l->n == l->cap) {
        size_t cap = pm_grow_cap(l->cap, l->n + 1);
        PM_TRY(pm_realloc_array(&l->items, cap, sizeof *l->items));
        l->cap = cap;
    }
    *slot = &l->items[l->n];
    memset(*slot, 0, sizeof **slot);
    return NULL;
}

/* Write `dvs` with rolling and append one ADD per file. */
static pm_error *add_rolled(pm_dv_append_maintainer *m, const char *dir, pm_dv_map *dvs, entry_list *l)
{
    pm_index_file_meta *metas;
    size_t n;
    PM_TRY(pm_dv_index_write_rolling(m->io.fio, m->io.pf, dir, dvs, m->target, &metas, &n));
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        pm_index_manifest_entry *slot;
        e = list_slot(l, &slot);
        if (!e)
            e = make_entry(slot, PM_FILE_ADD, &m->partition, 0, &metas[i]);
        if (!e)
            l->n++;
    }
    pm_index_metas_free(metas, n);
    return e;
}

/* The untouched vectors of restored file fi. */
static pm_error *remaining(pm_dv_append_maintainer *m, size_t fi, pm_dv_map *into)
{
    restored_file *f = &m->files[fi];
    const pm_index_file_meta *meta = &f->entry.index_file;
    pm_dv_meta *keep;
    size_t k = 0;
    PM_TRY(pm_calloc(&keep, meta->dv_range_len + 1, sizeof *keep));
    for (size_t j = 0; j < meta->dv_range_len; j++)
        if (!f->removed[j])
            keep[k++] = meta->dv_ranges[j];
    pm_error *e = NULL;
    if (k) {
        pm_buf buf = PM_BUF_INIT;
        e = pm_fileio_read_file(m->io.fio, f->path, &buf);
        if (!e)
            e = pm_dv_index_parse(buf.data, buf.len, keep, k, f->path, into);
        pm_buf_free(&buf);
    }
    free(keep);
    return e;
}

pm_error *pm_dv_append_maintainer_persist(pm_dv_append_maintainer *m, pm_index_manifest_entry **out,
                                          size_t *n)
{
    *out = NULL;
    *n = 0;
    entry_list l = {NULL, 0, 0};
    char *dir = NULL;
    pm_dv_map *keep = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_index_dir(m->io.pf, m->io.bucket_dir, &dir), fail);
    for (size_t i = 0; i < m->nfiles; i++) {
        restored_file *f = &m->files[i];
        if (!f->touched)
            continue;
        PM_TRY_GOTO(e, pm_dv_map_new(&keep), fail);
        PM_TRY_GOTO(e, remaining(m, i, keep), fail);
        PM_TRY_GOTO(e, add_rolled(m, dir, keep, &l), fail);
        pm_dv_map_free(keep);
        keep = NULL;
        pm_index_manifest_entry *slot;
        PM_TRY_GOTO(e, list_slot(&l, &slot), fail);
        PM_TRY_GOTO(e, pm_index_manifest_entry_copy(slot, &f->entry), fail);
        slot->kind = PM_FILE_DELETE;
        l.n++;
    }
    PM_TRY_GOTO(e, add_rolled(m, dir, m->fresh, &l), fail);
    free(dir);
    *out = l.items;
    *n = l.n;
    return NULL;
fail:
    pm_dv_map_free(keep);
    free(dir);
    pm_index_manifest_entries_free(l.items, l.n);
    return pm_error_wrap(e, 0, "persist deletion vectors");
}
