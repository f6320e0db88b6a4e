/*
 * lsm/levels.c — per-bucket LSM levels (rules in levels.h).
 *
 * Storage: one array of file pointers per level, kept sorted (level 0 by
 * the newest-first order, others by min key), plus a cached run list
 * rebuilt after every change.  update() builds the new arrays aside,
 * validates them (non-overlap in levels > 0) and only then swaps them in,
 * so a failed update leaves the levels as they were.
 */
#include "lsm/levels.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "lsm/kv.h"

typedef struct level_files {
    pm_lsm_file **v;
    size_t n;
} level_files;

struct pm_levels {
    pm_type *key_type;
    int32_t num_levels;
    level_files *lv;        /* num_levels entries */
    pm_lsm_run *runs;
    size_t nruns;
};

static void lsm_file_free(pm_lsm_file *f)
{
    if (!f)
        return;
    pm_data_file_meta_clear(&f->meta);
    free(f->min_key);
    free(f->max_key);
    free(f);
}

static pm_error *lsm_file_new(const pm_type *key_type, const pm_data_file_meta *m, pm_lsm_file **out)
{
    *out = NULL;
    pm_lsm_file *f = calloc(1, sizeof *f);
    if (!f)
        return pm_oom();
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_data_file_meta_copy(&f->meta, m);
    if (!e)
        e = pm_error_wrap(pm_kv_normkey_from_binrow(key_type, m->min_key.data, m->min_key.len, &b), 0,
                          "_MIN_KEY");
    if (!e) {
        f->min_len = b.len;
        f->min_key = pm_buf_detach(&b, &f->min_len);
        e = pm_error_wrap(pm_kv_normkey_from_binrow(key_type, m->max_key.data, m->max_key.len, &b), 0,
                          "_MAX_KEY");
    }
    if (!e)
        f->max_key = pm_buf_detach(&b, &f->max_len);
    pm_buf_free(&b);
    if (e) {
        lsm_file_free(f);
        return pm_error_wrap(e, 0, "file %s", m->file_name ? m->file_name : "?");
    }
    *out = f;
    return NULL;
}

int pm_lsm_level0_cmp(const pm_data_file_meta *a, const pm_data_file_meta *b)
{
    if (a->max_sequence_number != b->max_sequence_number)
        return a->max_sequence_number > b->max_sequence_number ? -1 : 1;
    if (a->min_sequence_number != b->min_sequence_number)
        return a->min_sequence_number < b->min_sequence_number ? -1 : 1;
    if (a->creation_time.has != b->creation_time.has)
        return a->creation_time.has ? 1 : -1;
    if (a->creation_time.has && a->creation_time.v != b->creation_time.v)
        return a->creation_time.v < b->creation_time.v ? -1 : 1;
    return strcmp(a->file_name ? a->file_name : "", b->file_name ? b->file_name : "");
}

static int cmp_level0(const void *x, const void *y)
{
    const pm_lsm_file *a = *(pm_lsm_file *const *)x, *b = *(pm_lsm_file *const *)y;
    return pm_lsm_level0_cmp(&a->meta, &b->meta);
}

static int cmp_min_key(const void *x, const void *y)
{
    const pm_lsm_file *a = *(pm_lsm_file *const *)x, *b = *(pm_lsm_file *const *)y;
    int c = pm_kv_keycmp(a->min_key, a->min_len, b->min_key, b->min_len);
    if (c)
        return c;
    /* equal min keys overlap anyway; keep the order deterministic */
    return strcmp(a->meta.file_name, b->meta.file_name);
}

static void sort_level(level_files *l, int32_t level)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, level == 0 ? cmp_level0 : cmp_min_key);
}

/* Positive levels: each file's min key must be above the previous max. */
static pm_error *check_level(const level_files *l, int32_t level, pm_code code)
{
    if (level == 0)
        return NULL;
    for (size_t i = 1; i < l->n; i++) {
        const pm_lsm_file *p = l->v[i - 1], *f = l->v[i];
        if (pm_kv_keycmp(f->min_key, f->min_len, p->max_key, p->max_len) <= 0)
            return pm_error_new(code, "level %d: key ranges of files %s and %s overlap", (int)level,
                                p->meta.file_name, f->meta.file_name);
    }
    return NULL;
}

static pm_error *rebuild_runs(pm_levels *lv)
{
    size_t n = lv->lv[0].n;
    for (int32_t i = 1; i < lv->num_levels; i++)
        n += lv->lv[i].n > 0;
    pm_lsm_run *r = n ? calloc(n, sizeof *r) : NULL;
    if (n && !r)
        return pm_oom();
    size_t k = 0;
    for (size_t i = 0; i < lv->lv[0].n; i++) {
        r[k].level = 0;
        r[k].size = lv->lv[0].v[i]->meta.file_size;
        r[k].nfiles = 1;
        r[k].files = &lv->lv[0].v[i];
        k++;
    }
    for (int32_t i = 1; i < lv->num_levels; i++) {
        level_files *l = &lv->lv[i];
        if (!l->n)
            continue;
        r[k].level = i;
        r[k].nfiles = l->n;
        r[k].files = l->v;
        for (size_t j = 0; j < l->n; j++)
            r[k].size += l->v[j]->meta.file_size;
        k++;
    }
    free(lv->runs);
    lv->runs = r;
    lv->nruns = n;
    return NULL;
}

static pm_lsm_file *find_file(const pm_levels *lv, const char *name, int32_t *level, size_t *idx)
{
    for (int32_t i = 0; i < lv->num_levels; i++)
        for (size_t j = 0; j < lv->lv[i].n; j++)
            if (strcmp(lv->lv[i].v[j]->meta.file_name, name) == 0) {
                if (level)
                    *level = i;
                if (idx)
                    *idx = j;
                return lv->lv[i].v[j];
            }
    return NULL;
}

void pm_levels_free(pm_levels *lv)
{
    if (!lv)
        return;
    if (lv->lv) {
        for (int32_t i = 0; i < lv->num_levels; i++) {
            for (size_t j = 0; j < lv->lv[i].n; j++)
                lsm_file_free(lv->lv[i].v[j]);
            free(lv->lv[i].v);
        }
        free(lv->lv);
    }
    free(lv->runs);
    pm_type_free(lv->key_type);
    free(lv);
}

pm_error *pm_levels_new(pm_levels **out, const pm_type *key_type, int32_t num_levels,
                        const pm_data_file_meta *files, size_t nfiles)
{
    *out = NULL;
    if (!key_type || key_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "levels need the ROW type of the trimmed primary key");
    int32_t n = num_levels;
    for (size_t i = 0; i < nfiles; i++) {
        if (files[i].level < 0)
            return pm_error_new(PM_ECORRUPT, "file %s has negative level %d", files[i].file_name,
                                (int)files[i].level);
        if (files[i].level >= INT32_MAX - 1)
            return pm_error_new(PM_ECORRUPT, "file %s has level %d", files[i].file_name, (int)files[i].level);
        if (files[i].level + 1 > n)
            n = files[i].level + 1;
    }
    if (n < 2)
        return pm_error_new(PM_EINVALID, "number of levels must be at least 2, got %d", (int)n);
    if (n > 1000)
        return pm_error_new(PM_EUNSUPPORTED, "%d levels", (int)n);
    pm_levels *lv = calloc(1, sizeof *lv);
    if (!lv)
        return pm_oom();
    lv->num_levels = n;
    lv->key_type = pm_type_clone(key_type);
    lv->lv = calloc((size_t)n, sizeof *lv->lv);
    pm_error *e = NULL;
    if (!lv->key_type || !lv->lv) {
        e = pm_oom();
        goto fail;
    }
    size_t *counts = calloc((size_t)n, sizeof *counts);
    if (!counts) {
        e = pm_oom();
        goto fail;
    }
    for (size_t i = 0; i < nfiles; i++)
        counts[files[i].level]++;
    for (int32_t i = 0; i < n && !e; i++)
        if (counts[i] && !(lv->lv[i].v = calloc(counts[i], sizeof(pm_lsm_file *))))
            e = pm_oom();
    free(counts);
    for (size_t i = 0; i < nfiles && !e; i++) {
        if (find_file(lv, files[i].file_name, NULL, NULL)) {
            e = pm_error_new(PM_ECORRUPT, "file %s listed twice", files[i].file_name);
            break;
        }
        pm_lsm_file *f;
        e = lsm_file_new(lv->key_type, &files[i], &f);
        if (!e) {
            level_files *l = &lv->lv[files[i].level];
            l->v[l->n++] = f;
        }
    }
    for (int32_t i = 0; i < n && !e; i++) {
        sort_level(&lv->lv[i], i);
        e = check_level(&lv->lv[i], i, PM_ECORRUPT);
    }
    if (!e)
        e = rebuild_runs(lv);
    if (e)
        goto fail;
    *out = lv;
    return NULL;
fail:
    pm_levels_free(lv);
    return e;
}

pm_error *pm_levels_update(pm_levels *lv, const pm_data_file_meta *before, size_t nbefore,
                           const pm_data_file_meta *after, size_t nafter)
{
    pm_error *e = NULL;
    int32_t nl = lv->num_levels;
    pm_lsm_file **removed = nbefore ? calloc(nbefore, sizeof *removed) : NULL;
    pm_lsm_file **added = nafter ? calloc(nafter, sizeof *added) : NULL;
    level_files *next = calloc((size_t)nl, sizeof *next);
    if ((nbefore && !removed) || (nafter && !added) || !next) {
        e = pm_oom();
        goto done;
    }
    for (size_t i = 0; i < nbefore; i++) {
        pm_lsm_file *f = find_file(lv, before[i].file_name, NULL, NULL);
        if (!f) {
            e = pm_error_new(PM_EINVALID, "file %s is not in the levels", before[i].file_name);
            goto done;
        }
        for (size_t j = 0; j < i; j++)
            if (removed[j] == f) {
                e = pm_error_new(PM_EINVALID, "file %s removed twice", before[i].file_name);
                goto done;
            }
        removed[i] = f;
    }
    for (size_t i = 0; i < nafter; i++) {
        if (after[i].level < 0 || after[i].level >= nl) {
            e = pm_error_new(PM_EINVALID, "file %s has level %d outside 0..%d", after[i].file_name,
                             (int)after[i].level, (int)(nl - 1));
            goto done;
        }
        pm_lsm_file *old = find_file(lv, after[i].file_name, NULL, NULL);
        bool leaving = false;
        for (size_t j = 0; old && j < nbefore; j++)
            leaving |= removed[j] == old;
        if (old && !leaving) {
            e = pm_error_new(PM_EINVALID, "file %s is already in the levels", after[i].file_name);
            goto done;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(after[j].file_name, after[i].file_name) == 0) {
                e = pm_error_new(PM_EINVALID, "file %s added twice", after[i].file_name);
                goto done;
            }
        PM_TRY_GOTO(e, lsm_file_new(lv->key_type, &after[i], &added[i]), done);
    }
    for (int32_t l = 0; l < nl; l++) {
        size_t cap = lv->lv[l].n;
        for (size_t i = 0; i < nafter; i++)
            cap += after[i].level == l;
        next[l].v = cap ? calloc(cap, sizeof(pm_lsm_file *)) : NULL;
        if (cap && !next[l].v) {
            e = pm_oom();
            goto done;
        }
        for (size_t j = 0; j < lv->lv[l].n; j++) {
            pm_lsm_file *f = lv->lv[l].v[j];
            bool gone = false;
            for (size_t k = 0; k < nbefore && !gone; k++)
                gone = removed[k] == f;
            if (!gone)
                next[l].v[next[l].n++] = f;
        }
        for (size_t i = 0; i < nafter; i++)
            if (after[i].level == l)
                next[l].v[next[l].n++] = added[i];
        sort_level(&next[l], l);
        PM_TRY_GOTO(e, check_level(&next[l], l, PM_ECONFLICT), done);
    }
    /* commit */
    for (int32_t l = 0; l < nl; l++) {
        free(lv->lv[l].v);
        lv->lv[l] = next[l];
        next[l].v = NULL;
    }
    for (size_t i = 0; i < nbefore; i++)
        lsm_file_free(removed[i]);
    nafter = 0; /* now owned by the levels */
    e = rebuild_runs(lv);
done:
    if (next) {
        for (int32_t l = 0; l < nl; l++)
            free(next[l].v);
        free(next);
    }
    for (size_t i = 0; i < nafter; i++)
        lsm_file_free(added[i]);
    free(added);
    free(removed);
    return e;
}

pm_error *pm_levels_add(pm_levels *lv, const pm_data_file_meta *file)
{
    return pm_levels_update(lv, NULL, 0, file, 1);
}

int32_t pm_levels_num_levels(const pm_levels *lv) { return lv->num_levels; }
int32_t pm_levels_max_level(const pm_levels *lv) { return lv->num_levels - 1; }
size_t pm_levels_num_sorted_runs(const pm_levels *lv) { return lv->nruns; }
const pm_type *pm_levels_key_type(const pm_levels *lv) { return lv->key_type; }

int32_t pm_levels_nonempty_highest_level(const pm_levels *lv)
{
    for (int32_t i = lv->num_levels - 1; i >= 1; i--)
        if (lv->lv[i].n)
            return i;
    return lv->lv[0].n ? 0 : -1;
}

int64_t pm_levels_total_size(const pm_levels *lv)
{
    int64_t s = 0;
    for (size_t i = 0; i < lv->nruns; i++)
        s += lv->runs[i].size;
    return s;
}

size_t pm_levels_file_count(const pm_levels *lv)
{
    size_t n = 0;
    for (int32_t i = 0; i < lv->num_levels; i++)
        n += lv->lv[i].n;
    return n;
}

pm_lsm_file *const *pm_levels_files(const pm_levels *lv, int32_t level, size_t *n)
{
    if (level < 0 || level >= lv->num_levels) {
        *n = 0;
        return NULL;
    }
    *n = lv->lv[level].n;
    return lv->lv[level].v;
}

const pm_lsm_run *pm_levels_runs(const pm_levels *lv, size_t *nruns)
{
    *nruns = lv->nruns;
    return lv->runs;
}

const pm_lsm_file *pm_levels_find(const pm_levels *lv, const char *file_name)
{
    return find_file(lv, file_name, NULL, NULL);
}

void pm_levels_last_full_compaction(const pm_levels *lv, bool *has, int64_t *millis)
{
    *has = false;
    *millis = 0;
    const level_files *l = &lv->lv[lv->num_levels - 1];
    for (size_t i = 0; i < l->n; i++) {
        const pm_opt_long *t = &l->v[i]->meta.creation_time;
        if (t->has && t->v >= 0 && (!*has || t->v > *millis)) {
            *has = true;
            *millis = t->v;
        }
    }
}
