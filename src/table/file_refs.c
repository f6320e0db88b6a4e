/*
 * table/file_refs.c — the files snapshots reference (file_refs.h).
 */
#include "table/file_refs.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "meta/index_path.h"
#include "meta/json.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "meta/safe_path.h"
#include "table/partition.h"
#include "table/table_internal.h"

/* ------------------------------------------------------------------ */
/* path sets                                                           */

void pm_path_set_clear(pm_path_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->paths[i]);
    free(s->paths);
    memset(s, 0, sizeof *s);
}

pm_error *pm_path_set_add(pm_path_set *s, char *path)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        pm_error *e = pm_realloc_array(&s->paths, cap, sizeof *s->paths);
        if (e) {
            free(path);
            return e;
        }
        s->cap = cap;
    }
    s->paths[s->n++] = path;
    return NULL;
}

pm_error *pm_path_set_add_copy(pm_path_set *s, const char *path)
{
    char *p;
    PM_TRY(pm_strdup(&p, path));
    return pm_path_set_add(s, p);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void pm_path_set_seal(pm_path_set *s)
{
    if (!s->n)
        return;
    qsort(s->paths, s->n, sizeof *s->paths, cmp_str);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++) {
        if (!strcmp(s->paths[i], s->paths[k - 1]))
            free(s->paths[i]);
        else
            s->paths[k++] = s->paths[i];
    }
    s->n = k;
}

bool pm_path_set_has(const pm_path_set *s, const char *path)
{
    return s->n && bsearch(&path, s->paths, s->n, sizeof *s->paths, cmp_str) != NULL;
}

void pm_file_refs_clear(pm_file_refs *r)
{
    pm_path_set_clear(&r->manifests);
    pm_path_set_clear(&r->data);
    pm_path_set_clear(&r->changelog);
    pm_path_set_clear(&r->index);
    pm_path_set_clear(&r->stats);
}

void pm_file_refs_seal(pm_file_refs *r)
{
    pm_path_set_seal(&r->manifests);
    pm_path_set_seal(&r->data);
    pm_path_set_seal(&r->changelog);
    pm_path_set_seal(&r->index);
    pm_path_set_seal(&r->stats);
}

/* ------------------------------------------------------------------ */
/* one snapshot                                                        */

static pm_error *add_manifest(pm_file_refs *r, pm_table *t, const char *name)
{
    char *p;
    PM_TRY(pm_path_factory_manifest_path(t->paths, name, &p));
    return pm_path_set_add(&r->manifests, p);
}

/* The data files (and extra files) of entries es[0..n) (ADDs only unless all). */
static pm_error *add_entries(pm_path_set *set, pm_table *t, const pm_manifest_entry *es, size_t n, bool all)
{
    for (size_t i = 0; i < n; i++) {
        const pm_manifest_entry *me = &es[i];
        if (!all && me->kind != PM_FILE_ADD)
            continue;
        const pm_data_file_meta *f = &me->file;
        if (f->external_path) {
            PM_TRY(pm_table_check_external_path(t, -1, "_EXTERNAL_PATH", f->external_path));
            PM_TRY(pm_path_set_add_copy(set, f->external_path));
        }
        char *dir = NULL;
        PM_TRY(pm_table_bucket_dir(t, me->partition.data, me->partition.len, me->bucket, &dir));
        pm_error *e = NULL;
        if (!f->external_path)
            e = pm_path_set_add(set, pm_path_join(dir, f->file_name));
        for (size_t k = 0; !e && k < f->extra_files.count; k++)
            e = pm_path_set_add(set, pm_path_join(dir, f->extra_files.items[k]));
        free(dir);
        PM_TRY(e);
    }
    return NULL;
}

/* The manifests a list names (the list itself included); their entries
 * into `set` when set is not NULL. */
static pm_error *add_list(pm_file_refs *r, pm_table *t, const char *list, pm_path_set *set)
{
    if (!list)
        return NULL;
    PM_TRY(add_manifest(r, t, list));
    char *p;
    PM_TRY(pm_path_factory_manifest_path(t->paths, list, &p));
    pm_manifest_file_meta *metas = NULL;
    size_t n = 0;
    pm_error *e = pm_manifest_list_read(t->fio, p, &metas, &n);
    free(p);
    for (size_t i = 0; !e && i < n; i++)
        e = add_manifest(r, t, metas[i].file_name);
    if (!e && set) {
        pm_manifest_entry *es = NULL;
        size_t ne = 0;
        for (size_t i = 0; !e && i < n; i++) {
            char *mp;
            e = pm_path_factory_manifest_path(t->paths, metas[i].file_name, &mp);
            if (!e) {
                e = pm_manifest_read(t->fio, mp, &es, &ne);
                free(mp);
            }
            if (!e)
                e = add_entries(set, t, es, ne, false);
            pm_manifest_entries_free(es, ne);
            es = NULL;
            ne = 0;
        }
    }
    pm_manifest_file_metas_free(metas, n);
    return e;
}

static pm_error *add_index(pm_file_refs *r, pm_table *t, const pm_snapshot *s)
{
    if (!s->index_manifest)
        return NULL;
    PM_TRY(add_manifest(r, t, s->index_manifest));
    char *p;
    PM_TRY(pm_path_factory_manifest_path(t->paths, s->index_manifest, &p));
    pm_index_manifest_entry *es = NULL;
    size_t n = 0;
    pm_error *e = pm_index_manifest_read(t->fio, p, &es, &n);
    free(p);
    for (size_t i = 0; !e && i < n; i++) {
        if (es[i].kind != PM_FILE_ADD)
            continue;
        const pm_index_file_meta *f = &es[i].index_file;
        if (f->external_path)
            e = pm_table_check_index_external_path(t, -1, "index _EXTERNAL_PATH", f->external_path);
        char *dir = NULL;
        if (!e && !f->external_path && pm_path_factory_index_in_data_dir(t->paths))
            e = pm_table_bucket_dir(t, es[i].partition.data, es[i].partition.len, es[i].bucket, &dir);
        char *ip = NULL;
        if (!e)
            e = pm_index_file_path(t->paths, dir, f, &ip);
        free(dir);
        if (!e)
            e = pm_path_set_add(&r->index, ip);
    }
    pm_index_manifest_entries_free(es, n);
    return e;
}

pm_error *pm_file_refs_add_snapshot(pm_file_refs *r, pm_table *t, const pm_snapshot *s, bool live_data)
{
    PM_TRY(add_list(r, t, s->base_manifest_list, NULL));
    PM_TRY(add_list(r, t, s->delta_manifest_list, live_data ? NULL : &r->data));
    PM_TRY(add_list(r, t, s->changelog_manifest_list, &r->changelog));
    PM_TRY(add_index(r, t, s));
    if (s->statistics) {
        PM_TRY(pm_safe_file_name(PM_ECORRUPT, "snapshot statistics", s->statistics));
        char *p;
        PM_TRY(pm_path_factory_stats_path(t->paths, s->statistics, &p));
        PM_TRY(pm_path_set_add(&r->stats, p));
    }
    if (!live_data)
        return NULL;
    pm_manifest_file_meta *metas = NULL;
    size_t n = 0;
    PM_TRY(pm_snapshot_data_manifests(t->fio, t->paths, s, &metas, &n));
    pm_manifest_entry *es = NULL;
    size_t ne = 0;
    pm_error *e = pm_manifest_read_merged(t->fio, t->paths, metas, n, &es, &ne);
    pm_manifest_file_metas_free(metas, n);
    if (!e)
        e = add_entries(&r->data, t, es, ne, false);
    pm_manifest_entries_free(es, ne);
    return e;
}

pm_error *pm_file_refs_add_range(pm_file_refs *r, pm_table *t, int64_t from, int64_t to)
{
    bool first = true;
    for (int64_t id = from; id <= to; id++) {
        bool exists = false;
        PM_TRY(pm_snapshot_store_exists(t->snapshots, id, &exists));
        if (!exists)
            continue;
        pm_snapshot *s = NULL;
        PM_TRY(pm_snapshot_store_load(t->snapshots, id, &s));
        pm_error *e = pm_file_refs_add_snapshot(r, t, s, first);
        pm_snapshot_free(s);
        PM_TRY(pm_error_wrap(e, 0, "files of snapshot %lld", (long long)id));
        first = false;
    }
    return NULL;
}

pm_error *pm_table_meta_files(pm_table *t, const char *dir_name, const char *prefix,
                              pm_error *(*fn)(void *ctx, const char *path, const char *name, const pm_buf *data),
                              void *ctx)
{
    char *dir = pm_path_join(t->branch_root, dir_name);
    if (!dir)
        return pm_error_new(PM_ENOMEM, "out of memory");
    size_t pl = strlen(prefix);
    pm_name_list names = {0};
    pm_error *e = pm_fileio_list(t->fio, dir, &names);
    for (size_t i = 0; !e && i < names.count; i++) {
        if (strncmp(names.names[i], prefix, pl))
            continue;
        char *p = pm_path_join(dir, names.names[i]);
        pm_buf b = {0};
        e = p ? pm_fileio_read_file(t->fio, p, &b) : pm_error_new(PM_ENOMEM, "out of memory");
        if (!e)
            e = fn(ctx, p, names.names[i] + pl, &b);
        pm_buf_free(&b);
        free(p);
    }
    pm_fileio_list_free(&names);
    free(dir);
    return e;
}

typedef struct tag_ctx {
    pm_file_refs *r;
    pm_table *t;
} tag_ctx;

static pm_error *add_tag(void *ctx, const char *path, const char *name, const pm_buf *data)
{
    tag_ctx *c = ctx;
    pm_snapshot *s = NULL;
    pm_error *e = pm_snapshot_parse(data->data, data->len, path, &s);
    if (!e)
        e = pm_error_wrap(pm_file_refs_add_snapshot(c->r, c->t, s, true), 0, "files of tag %s", name);
    pm_snapshot_free(s);
    return e;
}

pm_error *pm_file_refs_add_tags(pm_file_refs *r, pm_table *t)
{
    tag_ctx c = {r, t};
    return pm_table_meta_files(t, "tag", "tag-", add_tag, &c);
}

/* Every snapshot and tag of the branch of bt. */
static pm_error *add_branch(pm_file_refs *r, pm_table *bt)
{
    int64_t *ids = NULL;
    size_t nids = 0;
    pm_error *e = pm_snapshot_store_list_ids(bt->snapshots, &ids, &nids);
    if (!e && nids)
        e = pm_file_refs_add_range(r, bt, ids[0], ids[nids - 1]);
    if (!e)
        e = pm_file_refs_add_tags(r, bt);
    free(ids);
    return e;
}

pm_error *pm_file_refs_add_other_branches(pm_file_refs *r, pm_table *t)
{
    char *dir = pm_path_join(t->path, "branch");
    if (!dir)
        return pm_error_new(PM_ENOMEM, "out of memory");
    pm_name_list names = {0};
    pm_error *e = pm_fileio_list(t->fio, dir, &names);
    for (size_t i = 0; !e && i < names.count; i++) {
        const char *br = names.names[i];
        if (strncmp(br, "branch-", 7) || !strcmp(br + 7, t->branch))
            continue;
        pm_table *bt = NULL;
        e = pm_table_open(&bt, t->path, br + 7);
        if (e && pm_error_code(e) == PM_ENOTFOUND) { /* a branch without schema holds nothing */
            pm_error_free(e);
            e = NULL;
            continue;
        }
        if (!e)
            e = add_branch(r, bt);
        pm_table_free(bt);
        if (e)
            e = pm_error_wrap(e, 0, "branch %s", br + 7);
    }
    if (!e && strcmp(t->branch, "main")) {
        /* seen from a branch, main is the other branch */
        pm_table *mt = NULL;
        e = pm_table_open(&mt, t->path, NULL);
        if (!e)
            e = add_branch(r, mt);
        pm_table_free(mt);
    }
    pm_fileio_list_free(&names);
    free(dir);
    return e;
}
