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
 * not opened.  When the group has a freshest positive-level record of its
 * own (a selected input above level 0), deduplicate merges only the
 * level-0 records with it (Java's LookupMergeFunction).
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"
#include "table/scan.h"

pm_error *pm_pk_lookup_setup(pm_pk_exec *x)
{
    const pm_type *rt = x->schema->row_type;
    const pm_kv_layout *in = &x->in_layout;
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
    memset(c, 0, sizeof *c);
}

static bool overlaps(const pm_lsm_file *f, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen)
{
    return pm_kv_keycmp(f->max_key, f->max_len, lo, lolen) >= 0 && pm_kv_keycmp(f->min_key, f->min_len, hi, hilen) <= 0;
}

pm_error *pm_pk_lookup_open(pm_pk_exec *x, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen,
                            pm_pk_lookup_cursor *c)
{
    memset(c, 0, sizeof *c);
    c->eof = true;
    if (!x->lk.levels)
        return NULL;
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

pm_error *pm_pk_lookup_find(pm_pk_lookup_cursor *c, const uint8_t *key, size_t len, bool *found, const pm_kv_rec **rec)
{
    *found = false;
    if (rec)
        *rec = NULL;
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
