/*
 * compact/pk/lookup_levels.c — lookup of the retained levels (Paimon's
 * LookupLevels): the files of the task's bucket in the captured snapshot
 * that are not inputs and sit above the output level, read as one merge
 * per section key range, advanced in step with the main merge.
 *
 *   first-row           key fields only: does the key already exist above?
 *   deletion vectors,   whole rows with their position (_POS) and file
 *   lookup changelog    (_FILE): the record of the lowest retained level
 *                       holding the key (the history) joins the merge in
 *                       merge order; with deletion vectors its row is then
 *                       marked deleted in its file (pk_dv.c).
 * One source per level, levels ascending, so a key's record from the
 * lowest level has the smallest source index; files outside [lo, hi] are
 * not opened.  With the local cache (local-cache.enabled;
 * table/lookup_file.h) keys are point lookups instead: per level, the
 * candidate files overlapping [lo, hi] in key order, at most two Lookup
 * Files open (the file looked in and the next one, whose first key ends
 * the current file's range), the first level holding the key (its row not
 * deleted by the bucket's vectors) wins.  When the group has a freshest positive-level record of its
 * own (a selected input above level 0), deduplicate merges only the
 * level-0 records with it (Java's LookupMergeFunction).
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"
#include "dv/deletion_vector.h"
#include "table/lookup_file.h"
#include "table/scan.h"

/* The local cache of the table's options (local-cache.enabled). */
static pm_error *cache_setup(pm_pk_exec *x)
{
    bool enabled = false;
    pm_lookup_cache_options co;
    PM_TRY(pm_lookup_cache_options_parse(x->schema->options, &enabled, &co));
    pm_error *e = enabled ? pm_lookup_cache_new(&x->lk.cache, &co) : NULL;
    pm_lookup_cache_options_clear(&co);
    return e;
}

pm_error *pm_pk_lookup_setup(pm_pk_exec *x)
{
    const pm_type *rt = x->schema->row_type;
    const pm_kv_layout *in = &x->in_layout;
    if (x->lookup)
        PM_TRY(cache_setup(x));
    if (x->pk->policy.first_row) {
        /* key fields only */
        pm_type *kt = pm_type_new_row(false);
        PM_TRY(kt ? NULL : pm_oom());
        x->lk.keys = kt;
        x->lk.fields = kt;
        size_t *kc = NULL;
        pm_error *e = pm_calloc(&kc, in->nkey ? in->nkey : 1, sizeof *kc);
        for (size_t k = 0; !e && k < in->nkey; k++) {
            const pm_field *f = &rt->fields[in->key_cols[k] - 2];
            e = pm_pk_add_field(kt, f->id, f->name, pm_type_clone(f->type));
            kc[k] = 2 + k;
        }
        if (!e)
            e = pm_pk_system_type(kt, &x->lk.type);
        if (!e)
            e = pm_kv_layout_init(&x->lk.layout, kc, in->nkey, 0, 1, NULL, 0);
        free(kc);
        PM_TRY(e);
        return pm_kv_layout_check(&x->lk.layout, x->lk.type);
    }
    if (!x->lookup)
        return NULL;
    /* deletion vectors, changelog, force-lookup: whole rows + _POS BIGINT + _FILE INT */
    PM_TRY(pm_pk_system_type(rt, &x->lk.type));
    PM_TRY(pm_pk_add_field(x->lk.type, PM_PK_POS_ID, "_POS", pm_type_new(PM_TYPE_BIGINT, false)));
    PM_TRY(pm_pk_add_field(x->lk.type, PM_PK_FILE_ID, "_FILE", pm_type_new(PM_TYPE_INT, false)));
    x->lk.fields = rt;
    PM_TRY(pm_kv_layout_copy(&x->lk.layout, in));
    PM_TRY(pm_kv_layout_check(&x->lk.layout, x->lk.type));
    if (!in->nseqf)
        return NULL;
    PM_TRY(pm_kv_keyenc_new(&x->lk.enc_in, in, x->in_type));
    return pm_kv_keyenc_new(&x->lk.enc_lk, &x->lk.layout, x->lk.type);
}

void pm_pk_lookup_clear(pm_pk_lookup *lk)
{
    pm_lookup_cache_free(lk->cache);
    pm_levels_free(lk->levels);
    free(lk->files);
    pm_type_free(lk->type);
    pm_type_free(lk->keys);
    pm_kv_layout_clear(&lk->layout);
    pm_kv_keyenc_free(lk->enc_in);
    pm_kv_keyenc_free(lk->enc_lk);
    pm_buf_free(&lk->ka);
    pm_buf_free(&lk->kb);
    free(lk->tmp);
    memset(lk, 0, sizeof *lk);
}

pm_error *pm_pk_lookup_load(pm_pk_exec *x, const pm_type *key_type)
{
    const pm_compact_task *task = x->task;
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = task->snapshot_id;
    so.bucket = task->bucket;
    pm_scan_result *sr = NULL;
    PM_TRY(pm_error_wrap(pm_table_scan(x->t, &so, &sr), 0, "captured snapshot %lld (lookup of retained levels)",
                         (long long)task->snapshot_id));
    pm_error *e = NULL;
    pm_data_file_meta *keep = NULL;
    size_t nkeep = 0;
    for (size_t i = 0; i < sr->nbuckets && !e; i++) {
        const pm_bucket_files *bf = &sr->buckets[i];
        if (bf->bucket != task->bucket || !pm_compact_bytes_equal(&bf->partition, &task->partition))
            continue;
        e = pm_calloc(&keep, bf->nfiles ? bf->nfiles : 1, sizeof *keep);
        for (size_t k = 0; !e && k < bf->nfiles; k++)
            if (bf->files[k].level > x->pk->output_level && !pm_pk_is_input(task, bf->files[k].file_name))
                keep[nkeep++] = bf->files[k]; /* shallow: copied by pm_levels_new */
        break;
    }
    if (!e && nkeep)
        e = pm_levels_new(&x->lk.levels, key_type, x->max_level + 1, keep, nkeep);
    free(keep);
    pm_scan_result_free(sr);
    if (e || !x->lk.levels)
        return e;
    /* the lookup files in level order (the _FILE numbering of pm_pk_lookup_open) */
    PM_TRY(pm_calloc(&x->lk.files, pm_levels_file_count(x->lk.levels), sizeof *x->lk.files));
    for (int32_t lvl = 1; lvl < pm_levels_num_levels(x->lk.levels); lvl++) {
        size_t n = 0;
        pm_lsm_file *const *files = pm_levels_files(x->lk.levels, lvl, &n);
        for (size_t i = 0; i < n; i++)
            x->lk.files[x->lk.nfiles++] = files[i];
    }
    return NULL;
}

void pm_pk_lookup_close(pm_pk_lookup_cursor *c)
{
    pm_merge_reader_free(c->mr);
    pm_buf_free(&c->cur);
    for (size_t i = 0; i < c->nlv; i++) {
        pm_lookup_file_close(c->lv[i].cur);
        pm_lookup_file_close(c->lv[i].next);
        free(c->lv[i].files);
        free(c->lv[i].file_idx);
    }
    free(c->lv);
    pm_batch_free(c->one);
    memset(c, 0, sizeof *c);
}

/* Local cache: the candidate files of every level. */
static pm_error *open_levels(pm_pk_exec *x, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen,
                             pm_pk_lookup_cursor *c);

static bool overlaps(const pm_lsm_file *f, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen)
{
    return pm_kv_keycmp(f->max_key, f->max_len, lo, lolen) >= 0 && pm_kv_keycmp(f->min_key, f->min_len, hi, hilen) <= 0;
}

pm_error *pm_pk_lookup_open(pm_pk_exec *x, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen,
                            pm_pk_lookup_cursor *c)
{
    memset(c, 0, sizeof *c);
    c->x = x;
    c->eof = true;
    if (!x->lk.levels)
        return NULL;
    if (x->lk.cache)
        return open_levels(x, lo, lolen, hi, hilen, c);
    int32_t nl = pm_levels_num_levels(x->lk.levels);
    pm_kv_source *srcs = NULL;
    const pm_lsm_file **sel = NULL;
    size_t nsrc = 0;
    pm_error *e = pm_calloc(&srcs, (size_t)nl, sizeof *srcs);
    size_t total = pm_levels_file_count(x->lk.levels);
    if (!e)
        e = pm_calloc(&sel, total ? total : 1, sizeof *sel);
    /* one source per level, levels ascending: a key's record from the
     * lowest level has the smallest source index */
    int32_t base = 0;
    for (int32_t lvl = 1; !e && lvl < nl; lvl++) {
        size_t n = 0, k = 0;
        pm_lsm_file *const *files = pm_levels_files(x->lk.levels, lvl, &n);
        int32_t first = -1;
        for (size_t i = 0; i < n; i++)
            if (overlaps(files[i], lo, lolen, hi, hilen)) {
                if (first < 0)
                    first = base + (int32_t)i;
                sel[k++] = files[i];
            }
        base += (int32_t)n;
        if (!k)
            continue;
        /* the selected files of a level are consecutive: _FILE = first + i */
        e = pm_pk_run_source(x, x->lk.fields, sel, k, false, x->pk->policy.first_row ? NULL : x->lk.type, first,
                             &srcs[nsrc]);
        if (!e)
            nsrc++;
    }
    free(sel);
    if (!e && nsrc) {
        pm_merge_options mo = {x->lk.type, &x->lk.layout, 0, NULL, PM_PK_READ_ROWS};
        e = pm_merge_reader_new(&c->mr, srcs, nsrc, &mo);
        nsrc = 0; /* closed by the reader, also on failure */
        c->eof = e != NULL;
    } else {
        for (size_t i = 0; i < nsrc; i++)
            srcs[i].close(srcs[i].ctx);
    }
    free(srcs);
    return e;
}

static pm_error *open_levels(pm_pk_exec *x, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen,
                             pm_pk_lookup_cursor *c)
{
    int32_t nl = pm_levels_num_levels(x->lk.levels);
    PM_TRY(pm_calloc(&c->lv, (size_t)nl, sizeof *c->lv));
    int32_t base = 0;
    for (int32_t lvl = 1; lvl < nl; lvl++) {
        size_t n = 0;
        pm_lsm_file *const *files = pm_levels_files(x->lk.levels, lvl, &n);
        pm_pk_lookup_level *L = &c->lv[c->nlv];
        PM_TRY(pm_calloc(&L->files, n ? n : 1, sizeof *L->files));
        PM_TRY(pm_calloc(&L->file_idx, n ? n : 1, sizeof *L->file_idx));
        c->nlv++;
        for (size_t i = 0; i < n; i++)
            if (overlaps(files[i], lo, lolen, hi, hilen)) {
                L->files[L->n] = files[i];
                L->file_idx[L->n++] = base + (int32_t)i;
            }
        base += (int32_t)n;
    }
    c->has = true;
    return pm_batch_new(&c->one, x->lk.type);
}

static pm_error *open_file(pm_pk_exec *x, const pm_lsm_file *f, struct pm_lookup_file **out)
{
    return pm_lookup_file_open(out, x->lk.cache, x->t, x->dir, &f->meta, x->lk.fields, &x->lk.layout);
}

/* Key in level L?  *row of its file's batch; keys come in ascending order. */
static pm_error *level_find(pm_pk_exec *x, pm_pk_lookup_level *L, const uint8_t *key, size_t len, bool *found,
                            const pm_batch **b, int64_t *row, int32_t *file)
{
    *found = false;
    while (L->j < L->n) {
        if (!L->cur)
            PM_TRY(open_file(x, L->files[L->j], &L->cur));
        const uint8_t *fk = NULL;
        size_t fl = 0;
        if (!pm_lookup_file_first_key(L->cur, &fk, &fl)) { /* an empty file */
            pm_lookup_file_close(L->cur);
            L->cur = L->next;
            L->next = NULL;
            L->j++;
            continue;
        }
        if (pm_kv_keycmp(key, len, fk, fl) < 0)
            return NULL; /* before this file: not in the level */
        if (L->j + 1 < L->n) {
            if (!L->next)
                PM_TRY(open_file(x, L->files[L->j + 1], &L->next));
            const uint8_t *nk = NULL;
            size_t nl = 0;
            if (pm_lookup_file_first_key(L->next, &nk, &nl) && pm_kv_keycmp(key, len, nk, nl) >= 0) {
                pm_lookup_file_close(L->cur);
                L->cur = L->next;
                L->next = NULL;
                L->j++;
                continue;
            }
        }
        PM_TRY(pm_lookup_file_get(L->cur, key, len, found, b, row));
        *file = L->file_idx[L->j];
        return NULL;
    }
    return NULL;
}

/* Local cache: the key's record of the lowest level holding it. */
static pm_error *files_find(pm_pk_lookup_cursor *c, const uint8_t *key, size_t len, bool *found,
                            const pm_kv_rec **rec)
{
    pm_pk_exec *x = c->x;
    for (size_t i = 0; i < c->nlv; i++) {
        bool hit = false;
        const pm_batch *b = NULL;
        int64_t row = 0;
        int32_t file = 0;
        PM_TRY(level_find(x, &c->lv[i], key, len, &hit, &b, &row, &file));
        if (!hit)
            continue;
        int64_t pos = pm_column_i64(b->columns[b->ncolumns - 1], row);
        const char *name = x->lk.files[file]->meta.file_name;
        const pm_dv *dv = x->dv.m ? pm_dv_maintainer_get(x->dv.m, name) : NULL;
        if (dv && pm_dv_contains(dv, pos))
            continue; /* deleted there: the key lives lower */
        *found = true;
        if (!rec)
            return NULL;
        PM_TRY(pm_batch_reset(c->one));
        for (size_t k = 0; k < b->ncolumns; k++)
            PM_TRY(pm_column_append_from(c->one->columns[k], b->columns[k], row));
        PM_TRY(pm_column_append_i32(c->one->columns[b->ncolumns], file));
        PM_TRY(pm_batch_finish(c->one, 1));
        pm_kv_rec_at(&c->rec, c->one, &x->lk.layout, 0);
        *rec = &c->rec;
        return NULL;
    }
    return NULL;
}

pm_error *pm_pk_lookup_find(pm_pk_lookup_cursor *c, const uint8_t *key, size_t len, bool *found, const pm_kv_rec **rec)
{
    *found = false;
    if (rec)
        *rec = NULL;
    if (c->lv)
        return files_find(c, key, len, found, rec);
    for (;;) {
        if (c->has) {
            int cmp = pm_kv_keycmp(c->cur.data, c->cur.len, key, len);
            if (cmp == 0) {
                *found = true;
                if (rec) {
                    const pm_kv_rec *best = &c->g.recs[0];
                    for (size_t i = 1; i < c->g.n; i++)
                        if (c->g.recs[i].source < best->source)
                            best = &c->g.recs[i];
                    *rec = best;
                }
                return NULL;
            }
            if (cmp > 0)
                return NULL;
        }
        if (c->eof)
            return NULL;
        pm_kv_group g;
        bool eof = false;
        PM_TRY(pm_merge_reader_next(c->mr, &g, &eof));
        if (eof) {
            c->eof = true;
            c->has = false;
            return NULL;
        }
        pm_buf_clear(&c->cur);
        PM_TRY(pm_buf_append(&c->cur, g.key, g.key_len));
        c->g = g;
        c->has = true;
    }
}

static pm_error *tmp_room(pm_pk_lookup *lk, size_t n)
{
    if (n > lk->tmp_cap) {
        PM_TRY(pm_realloc_array(&lk->tmp, n, sizeof *lk->tmp));
        lk->tmp_cap = n;
    }
    return NULL;
}

pm_error *pm_pk_lookup_pick(pm_pk_exec *x, const pm_kv_group *g, const int32_t *level, size_t nlevel)
{
    PM_TRY(tmp_room(&x->lk, g->n));
    x->lk.ntmp = pm_merge_lookup_pick(g->recs, g->n, level, nlevel, x->lk.tmp);
    return NULL;
}

/* Merge order of the history record: (sequence fields), _SEQUENCE_NUMBER. */
pm_error *pm_pk_lookup_take_history(pm_pk_exec *x, const pm_kv_group *g, const pm_kv_rec *hist)
{
    const pm_batch *hb = hist->batch;
    size_t ncol = hb->ncolumns;
    int64_t pos = pm_column_i64(hb->columns[ncol - 2], hist->row);
    int32_t file = pm_column_i32(hb->columns[ncol - 1], hist->row);
    if (file < 0 || (size_t)file >= x->lk.nfiles)
        return pm_error_new(PM_EINTERNAL, "lookup file index %d out of range", (int)file);
    PM_TRY(pm_pk_dv_mark(x, x->lk.files[file]->meta.file_name, pos));
    PM_TRY(tmp_room(&x->lk, g->n + 1));
    /* number of group records ordered before the history record */
    size_t at = 0;
    if (x->lk.enc_in) {
        pm_buf_clear(&x->lk.kb);
        uint32_t kl = 0;
        PM_TRY(pm_kv_keyenc_row(x->lk.enc_lk, hb, hist->row, true, &x->lk.kb, &kl));
        for (size_t i = 0; i < g->n; i++) {
            pm_buf_clear(&x->lk.ka);
            PM_TRY(pm_kv_keyenc_row(x->lk.enc_in, g->recs[i].batch, g->recs[i].row, true, &x->lk.ka, &kl));
            if (pm_kv_keycmp(x->lk.ka.data, x->lk.ka.len, x->lk.kb.data, x->lk.kb.len) < 0)
                at = i + 1;
        }
    } else {
        for (size_t i = 0; i < g->n; i++)
            if (g->recs[i].seq < hist->seq)
                at = i + 1;
    }
    memcpy(x->lk.tmp, g->recs, at * sizeof *x->lk.tmp);
    x->lk.tmp[at] = *hist;
    memcpy(x->lk.tmp + at + 1, g->recs + at, (g->n - at) * sizeof *x->lk.tmp);
    x->lk.ntmp = g->n + 1;
    return NULL;
}
