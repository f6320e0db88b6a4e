/*
 * compact/pk/pk_rewrite.c — the REWRITE of a primary-key compaction
 * (Paimon's MergeTreeCompactRewriter, and LookupMergeTreeCompactRewriter
 * for tables that look up retained levels; pk_exec.h): sections of
 * overlapping sorted runs merged into one rolling KeyValue writer.
 *
 * Per section: one source per sorted run (its files one after another,
 * batches shared with the file reader) → loser-tree merge
 * (lsm/merge_reader.h; more than 256 runs merge in several passes through
 * a spill on local disk) → per key:
 *   plain          the table's merge engine in reducer mode (a lone
 *                  record, a deduplicate winner pass unchanged: gathered
 *                  column by column, original sequence numbers kept);
 *   lookup mode    (first-row, deletion vectors, lookup changelog, output
 *                  above level 0, level-0 inputs) the engine in full mode
 *                  with the key's history (lookup_levels.c): first-row
 *                  drops a key that exists above; deletion vectors mark
 *                  the replaced row; changelog events
 *                  (changelog_producer.c);
 *   full changelog (changelog-producer=full-compaction, output at the max
 *                  level) the max-level record is the before image;
 * → records of kind -U/-D dropped when the task says drop_delete → output
 * batches of PM_PK_OUT_ROWS rows → writer (FileSource COMPACT, the output
 * level, target-file-size / target-file-row-num), which regenerates key
 * bounds, sequence bounds, delete counts and statistics per file.
 * Memory: half the task's share to the merge (per sorted run two batches
 * and its reader's buffers, measured on the first run; more runs than fit
 * merge in passes through the spill, fewer than two fitting is
 * PM_EINVALID naming the budget before the section writes a row), half
 * to the writer's open row group.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"

/* ------------------------------------------------------------------ */
/* output                                                              */

pm_error *pm_pk_output_init(pm_pk_exec *x)
{
    pm_pk_output *o = &x->o;
    size_t nf = x->schema->row_type->nfields;
    PM_TRY(pm_batch_new(&o->out, x->kv_type));
    o->nin = x->in_type->nfields;
    PM_TRY(pm_calloc(&o->src_col, x->kv_type->nfields, sizeof *o->src_col));
    PM_TRY(pm_calloc(&o->runs, PM_PK_OUT_ROWS, sizeof *o->runs));
    for (size_t k = 0; k < x->nkey; k++)
        o->src_col[k] = x->in_layout.key_cols[k];
    o->src_col[x->nkey] = 0;
    o->src_col[x->nkey + 1] = 1;
    for (size_t j = 0; j < nf; j++)
        o->src_col[x->nkey + 2 + j] = 2 + j;
    return NULL;
}

static void pins_release(pm_pk_output *o)
{
    for (size_t p = 0; p < o->npins; p++) {
        for (size_t c = 0; c < o->nin; c++)
            pm_column_release(o->pins[p][c]);
        free(o->pins[p]);
        o->pins[p] = NULL;
    }
    o->npins = 0;
    o->nruns = 0;
}

void pm_pk_output_clear(pm_pk_output *o)
{
    pins_release(o);
    free(o->pins);
    free(o->srcs);
    free(o->runs);
    free(o->src_col);
    pm_batch_free(o->out);
    memset(o, 0, sizeof *o);
}

/* Copy the gathered rows to the output batch. */
static pm_error *gather_flush(pm_pk_exec *x)
{
    if (!x->o.nruns)
        return NULL;
    pm_error *e = NULL;
    for (size_t i = 0; i < x->kv_type->nfields && !e; i++) {
        for (size_t p = 0; p < x->o.npins; p++)
            x->o.srcs[p] = x->o.pins[p][x->o.src_col[i]];
        e = pm_column_append_runs(x->o.out->columns[i], x->o.srcs, x->o.runs, x->o.nruns);
    }
    pins_release(&x->o);
    return e;
}

/* n unchanged consecutive rows of a batch into the gather list (its batch
 * pinned once; rows right after the last run's extend that run); the
 * caller keeps n within the output batch's room. */
static pm_error *gather_rows(pm_pk_exec *x, const pm_batch *b, int64_t row, uint32_t n)
{
    pm_column *const *cols = b->columns;
    if (x->o.nruns) {
        pm_column_run *last = &x->o.runs[x->o.nruns - 1];
        if (x->o.pins[last->src][0] == cols[0] && last->row + last->n == row) {
            last->n += n;
            return NULL;
        }
    }
    size_t p = x->o.npins;
    while (p-- > 0)
        if (x->o.pins[p][0] == cols[0])
            break;
    if (p == SIZE_MAX) {
        if (x->o.npins == UINT16_MAX)
            PM_TRY(gather_flush(x));
        if (x->o.npins == x->o.cap_pins) {
            size_t cap = x->o.cap_pins ? 2 * x->o.cap_pins : 16;
            PM_TRY(pm_realloc_array(&x->o.pins, cap, sizeof *x->o.pins));
            PM_TRY(pm_realloc_array(&x->o.srcs, cap, sizeof *x->o.srcs));
            x->o.cap_pins = cap;
        }
        pm_column **pin = NULL;
        PM_TRY(pm_calloc(&pin, x->o.nin, sizeof *pin));
        for (size_t c = 0; c < x->o.nin; c++)
            pin[c] = pm_column_retain(cols[c]);
        p = x->o.npins++;
        x->o.pins[p] = pin;
    }
    x->o.runs[x->o.nruns++] = (pm_column_run){row, n, (uint16_t)p};
    return NULL;
}

static pm_error *gather_add(pm_pk_exec *x, const pm_kv_rec *rec)
{
    int64_t n = 1;
    PM_TRY(pm_pk_copy_rows(x, rec->source, rec->batch, rec->row, &n));
    return gather_rows(x, rec->batch, rec->row, 1);
}

const pm_kv_rec *pm_pk_pass_through(const pm_pk_exec *x, const pm_kv_group *g, bool *none)
{
    *none = false;
    if (g->n == 1)
        return &g->recs[0];
    if (!x->dedup)
        return NULL;
    for (size_t j = g->n; j-- > 0;)
        if (!(x->ignore_delete && pm_kind_is_retract(g->recs[j].kind)))
            return &g->recs[j];
    *none = true;
    return NULL;
}

static pm_error *drain(pm_pk_exec *x, pm_pk_file_writer *w)
{
    PM_TRY(gather_flush(x));
    if (!x->o.nout)
        return NULL;
    PM_TRY(pm_batch_finish(x->o.out, x->o.nout));
    PM_TRY(pm_pk_file_writer_write(w, x->o.out));
    x->r->counters.rows_written += x->o.nout;
    x->o.nout = 0;
    return pm_batch_reset(x->o.out);
}

pm_error *pm_pk_output_drain(pm_pk_exec *x, pm_pk_file_writer *w) { return drain(x, w); }

pm_error *pm_pk_output_flush(pm_pk_exec *x) { return gather_flush(x); }

/* A folded merge result into the output (none without a writer, nor a
 * dropped retract). */
static pm_error *emit_merged(pm_pk_exec *x, pm_merge_fn *mf, pm_pk_file_writer *w, const pm_merge_result *res,
                             bool drop_delete)
{
    if (!w || !res->has || (drop_delete && pm_kind_is_retract(res->kind)))
        return NULL;
    PM_TRY(pm_pk_copy_break(x)); /* not an input row unchanged */
    PM_TRY(gather_flush(x));
    PM_TRY(pm_merge_fn_emit(mf, x->o.out, &x->out_layout));
    if (++x->o.nout == PM_PK_OUT_ROWS)
        return drain(x, w);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* merging a section                                                   */

/* One section being merged: a source per sorted run — in lookup mode and
 * for LookupMergeFunction one per (run, level), so every record's level is
 * its source's (a run of the interval partition may chain files of
 * different levels) — the level of
 * each source, the section's key range, the merge, and in lookup mode the
 * cursor over the retained levels in that range. */
typedef struct section_merge {
    const pm_iv_section *sec;
    bool lookup_mode, drop_delete;
    bool per_level;               /* one source per (run, level): lookup mode, LookupMergeFunction */
    pm_pk_file_writer *w;         /* NULL: marks and changelog only */
    pm_merge_fn *mf;
    pm_kv_source *srcs;
    int32_t *run_level;           /* level of source i */
    bool lazy;                    /* sources read value columns on demand (pk_source.c) */
    size_t nr;
    size_t nopen;                 /* sources still ours (not handed to the reader) */
    const uint8_t *lo, *hi;
    size_t lolen, hilen;
    pm_merge_reader *mr;
    pm_pk_lookup_cursor lc;
} section_merge;

static void key_range(section_merge *m)
{
    for (size_t i = 0; i < m->sec->nruns; i++)
        for (size_t k = 0; k < m->sec->runs[i].nfiles; k++) {
            const pm_lsm_file *f = m->sec->runs[i].files[k];
            if (!m->lo || pm_kv_keycmp(f->min_key, f->min_len, m->lo, m->lolen) < 0) {
                m->lo = f->min_key;
                m->lolen = f->min_len;
            }
            if (!m->hi || pm_kv_keycmp(f->max_key, f->max_len, m->hi, m->hilen) > 0) {
                m->hi = f->max_key;
                m->hilen = f->max_len;
            }
        }
}

static pm_error *add_source(pm_pk_exec *x, section_merge *m, const pm_lsm_file *const *files, size_t n, int32_t level)
{
    PM_TRY(pm_pk_run_source(x, x->schema->row_type, files, n, true, NULL, 0, &m->srcs[m->nr]));
    pm_pk_run_source_defer(&m->srcs[m->nr]); /* page copies ask it about its batches to the end */
    if (m->lazy) {
        pm_error *e = pm_pk_run_source_lazy(&m->srcs[m->nr]);
        if (e) {
            m->nr++; /* freed with the others */
            m->nopen = m->nr;
            return e;
        }
    }
    m->run_level[m->nr++] = level;
    m->nopen = m->nr;
    return NULL;
}

static pm_error *make_sources(pm_pk_exec *x, section_merge *m)
{
    const pm_iv_section *sec = m->sec;
    size_t cap = 0, maxf = 0;
    for (size_t i = 0; i < sec->nruns; i++) {
        cap += m->per_level ? sec->runs[i].nfiles : 1;
        if (sec->runs[i].nfiles > maxf)
            maxf = sec->runs[i].nfiles;
    }
    PM_TRY(pm_calloc(&m->srcs, cap ? cap : 1, sizeof *m->srcs));
    PM_TRY(pm_calloc(&m->run_level, cap ? cap : 1, sizeof *m->run_level));
    const pm_lsm_file **pick = NULL;
    PM_TRY(pm_calloc(&pick, maxf ? maxf : 1, sizeof *pick));
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < sec->nruns; i++) {
        const pm_iv_run *run = &sec->runs[i];
        if (!m->per_level) {
            e = add_source(x, m, (const pm_lsm_file *const *)run->files, run->nfiles,
                           run->nfiles ? run->files[0]->meta.level : 0);
            continue;
        }
        for (size_t k = 0; !e && k < run->nfiles; k++) {
            int32_t lvl = run->files[k]->meta.level;
            bool seen = false;
            for (size_t j = 0; j < k && !seen; j++)
                seen = run->files[j]->meta.level == lvl;
            if (seen)
                continue;
            size_t np = 0;
            for (size_t j = k; j < run->nfiles; j++)
                if (run->files[j]->meta.level == lvl)
                    pick[np++] = run->files[j];
            e = add_source(x, m, pick, np, lvl);
        }
    }
    free(pick);
    return e;
}

/* The merge reader over the sources (which it then owns) and, in lookup
 * mode, the cursor over the retained levels. */
static pm_error *open_merge(pm_pk_exec *x, section_merge *m)
{
    if (m->per_level && m->nr > PM_MERGE_MAX_FAN_IN)
        return pm_error_new(PM_EUNSUPPORTED, "lookup compaction (first-row, deletion vectors, lookup changelog, "
                            "force-lookup) of %zu overlapping sorted runs (more than %d) is not supported", m->nr,
                            PM_MERGE_MAX_FAN_IN);
    /* the merge may hold half the task's memory (the writer's row group the
     * rest); beyond that it merges in passes through the spill (not when
     * records must keep their level) */
    bool budgeted = !m->per_level && x->budget > 0;
    if ((m->nr > PM_MERGE_MAX_FAN_IN || budgeted) && !x->spill)
        PM_TRY(pm_pk_spill_new(&x->spill, NULL));
    const pm_kv_spill *spill = NULL;
    if (x->spill)
        PM_TRY(pm_pk_spill_callbacks(x->spill, &spill));
    pm_merge_options mo = {x->in_type, &x->in_layout, 0, spill, PM_PK_READ_ROWS};
    pm_error *e = pm_merge_reader_new(&m->mr, m->srcs, m->nr, &mo);
    m->nopen = 0; /* closed by the reader, also on failure */
    PM_TRY(e);
    if (budgeted)
        pm_merge_reader_set_memory_budget(m->mr, (size_t)(x->budget / 2));
    return m->lookup_mode ? pm_pk_lookup_open(x, m->lo, m->lolen, m->hi, m->hilen, &m->lc) : NULL;
}

static void close_merge(section_merge *m)
{
    for (size_t i = 0; i < m->nopen; i++)
        m->srcs[i].close(m->srcs[i].ctx);
    pm_merge_reader_free(m->mr); /* closes the sources it holds */
    m->mr = NULL;
    for (size_t i = 0; i < m->nr; i++)
        pm_pk_run_source_free(&m->srcs[i]);
    free(m->srcs);
    free(m->run_level);
    pm_pk_lookup_close(&m->lc);
    pm_merge_reader_free(m->mr);
}

static int32_t level_of(const section_merge *m, const pm_kv_rec *r)
{
    return r->source < m->nr ? m->run_level[r->source] : 0;
}

/* Lookup mode (first-row, deletion vectors, lookup changelog,
 * force-lookup; Java's LookupChangelogMergeFunctionWrapper over
 * LookupMergeFunction): the key's history — its lowest selected
 * positive-level record, else the record looked up in the retained
 * levels — joins the merge (first-row: a key that exists above is
 * dropped).  Other engines than first-row merge only the level-0 records
 * with the history, and run their merge function on single records too
 * (a lone retract of an aggregation becomes state). */
static pm_error *group_lookup(pm_pk_exec *x, section_merge *m, const pm_kv_group *g)
{
    const pm_kv_rec *recs = g->recs, *before = NULL, *high = NULL;
    size_t nrecs = g->n;
    bool l0 = false;
    int32_t high_level = 0;
    for (size_t i = 0; i < g->n; i++) {
        int32_t lvl = level_of(m, &g->recs[i]);
        if (lvl == 0) {
            l0 = true;
        } else if (!high || lvl < high_level) {
            high = &g->recs[i];
            high_level = lvl;
        }
    }
    if (high) {
        if (x->lookup_merge) {
            PM_TRY(pm_pk_lookup_pick(x, g, m->run_level, m->nr));
            recs = x->lk.tmp;
            nrecs = x->lk.ntmp;
        }
        before = high;
    } else {
        bool exists = false;
        const pm_kv_rec *hist = NULL;
        PM_TRY(pm_pk_lookup_find(&m->lc, g->key, g->key_len, &exists, x->pk->policy.first_row ? NULL : &hist));
        if (exists && x->pk->policy.first_row)
            return NULL; /* first-row: the key is already accepted above, nothing new */
        if (hist) {
            /* the history record joins the merge; with deletion vectors its
             * row is deleted where it is */
            PM_TRY(pm_pk_lookup_take_history(x, g, hist));
            recs = x->lk.tmp;
            nrecs = g->n + 1;
            before = hist;
        }
    }
    bool changelog = x->pk->policy.changelog && l0;
    if (!m->w && !changelog && !x->cl.full)
        return NULL; /* a lookup pass: the marks are all it does */
    pm_merge_result res;
    PM_TRY(pm_merge_fn_fold(m->mf, &x->in_layout, recs, nrecs, &res));
    if (changelog && x->pk->policy.first_row) {
        /* first-row: a newly accepted key's first record, its kind kept */
        if (!before && res.has && pm_pk_kind_is_add(res.kind))
            PM_TRY(pm_pk_changelog_result(x, m->mf, res.kind));
    } else if (changelog) {
        PM_TRY(pm_pk_changelog_events(x, m->mf, before, &res));
    }
    return emit_merged(x, m->mf, m->w, &res, m->drop_delete);
}

/* LookupMergeFunction outside lookup mode (ReducerMergeFunctionWrapper
 * over it): a group of several records merges its level-0 records and its
 * lowest positive-level one with the merge function in full mode.
 * *view = the group to merge (g itself, or the kept records). */
static pm_error *lookup_merge_view(pm_pk_exec *x, section_merge *m, const pm_kv_group *g, pm_kv_group *view,
                                   pm_merge_fn **mf)
{
    *view = *g;
    *mf = m->mf;
    if (!x->lookup_merge || g->n < 2)
        return NULL;
    PM_TRY(pm_pk_lookup_pick(x, g, m->run_level, m->nr));
    view->recs = x->lk.tmp;
    view->n = x->lk.ntmp;
    *mf = x->mf_full;
    return NULL;
}

/* changelog-producer=full-compaction (FullChangelogMergeFunctionWrapper):
 * the key's record at the max level (if any) is the before image of the
 * merge.  *done = nothing is left for the plain merge. */
static pm_error *group_full_changelog(pm_pk_exec *x, section_merge *m, const pm_kv_group *g0, bool *done)
{
    *done = true;
    pm_kv_group view;
    pm_merge_fn *mf = NULL;
    PM_TRY(lookup_merge_view(x, m, g0, &view, &mf));
    const pm_kv_group *g = &view;
    const pm_kv_rec *top = NULL;
    for (size_t i = 0; i < g0->n && !top; i++)
        if (level_of(m, &g0->recs[i]) == x->max_level)
            top = &g0->recs[i];
    if (g0->n > 1) {
        pm_merge_result res;
        PM_TRY(pm_merge_fn_fold(mf, &x->in_layout, g->recs, g->n, &res));
        PM_TRY(pm_pk_changelog_events(x, mf, top, &res));
        return emit_merged(x, mf, m->w, &res, m->drop_delete);
    }
    if (!top && pm_pk_kind_is_add(g->recs[0].kind))
        PM_TRY(pm_pk_changelog_rec(x, &g->recs[0], PM_KIND_INSERT));
    *done = !m->w;
    return NULL;
}

/* A lone record or a deduplicate winner passes unchanged; others fold. */
static pm_error *group_plain(pm_pk_exec *x, section_merge *m, const pm_kv_group *g0)
{
    pm_kv_group view;
    pm_merge_fn *mf = NULL;
    PM_TRY(lookup_merge_view(x, m, g0, &view, &mf));
    const pm_kv_group *g = &view;
    if (mf != m->mf) {
        pm_merge_result res;
        PM_TRY(pm_merge_fn_fold(mf, &x->in_layout, g->recs, g->n, &res));
        return emit_merged(x, mf, m->w, &res, m->drop_delete);
    }
    bool none = false;
    const pm_kv_rec *pt = pm_pk_pass_through(x, g, &none);
    if (none)
        return NULL;
    if (pt) {
        if (m->drop_delete && pm_kind_is_retract(pt->kind))
            return NULL;
        PM_TRY(gather_add(x, pt));
        return ++x->o.nout == PM_PK_OUT_ROWS ? drain(x, m->w) : NULL;
    }
    pm_merge_result res;
    PM_TRY(pm_merge_fn_fold(m->mf, &x->in_layout, g->recs, g->n, &res));
    return emit_merged(x, m->mf, m->w, &res, m->drop_delete);
}

/* A run of `n` lone records from rec on (pm_merge_reader_next_run): each
 * passes unchanged as group_plain passes a lone record (retracts dropped
 * when the task drops deletes), gathered as runs of rows. */
static pm_error *group_lone_run(pm_pk_exec *x, section_merge *m, const pm_kv_rec *rec, int64_t n)
{
    const pm_batch *b = rec->batch;
    const int8_t *kind = (const int8_t *)(const void *)b->columns[x->in_layout.kind_col]->values.data;
    int64_t r = rec->row, end = rec->row + n;
    while (r < end) {
        if (m->drop_delete && pm_kind_is_retract((uint8_t)kind[r])) {
            r++;
            continue;
        }
        int64_t to = r + 1;
        while (to < end && !(m->drop_delete && pm_kind_is_retract((uint8_t)kind[to])))
            to++;
        while (r < to) {
            int64_t room = PM_PK_OUT_ROWS - x->o.nout, k = to - r < room ? to - r : room;
            PM_TRY(pm_pk_copy_rows(x, rec->source, b, r, &k));
            PM_TRY(gather_rows(x, b, r, (uint32_t)k));
            r += k;
            x->o.nout += k;
            if (x->o.nout == PM_PK_OUT_ROWS)
                PM_TRY(drain(x, m->w));
        }
    }
    return NULL;
}

/* A merge failure names the section's input files (a source's own errors
 * already name their file, pk_source.c). */
static pm_error *name_inputs(pm_error *e, const pm_iv_section *sec)
{
    char names[512];
    size_t used = 0, total = 0, shown = 0;
    names[0] = 0;
    for (size_t i = 0; i < sec->nruns; i++)
        for (size_t k = 0; k < sec->runs[i].nfiles; k++, total++) {
            const char *n = sec->runs[i].files[k]->meta.file_name;
            if (shown == 4 || used + strlen(n) + 3 >= sizeof names)
                continue;
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", shown ? ", " : "", n);
            shown++;
        }
    if (total > shown)
        return pm_error_wrap(e, 0, "merging input files %s (and %zu more)", names, total - shown);
    return pm_error_wrap(e, 0, "merging input files %s", names);
}

pm_error *pm_pk_merge_section(pm_pk_exec *x, const pm_iv_section *sec, bool lookup_mode, bool drop_delete,
                              pm_pk_file_writer *w)
{
    section_merge m;
    memset(&m, 0, sizeof m);
    m.sec = sec;
    m.lookup_mode = lookup_mode;
    m.per_level = lookup_mode || x->lookup_merge;
    m.drop_delete = drop_delete;
    m.w = w;
    m.mf = lookup_mode ? x->mf_full : x->mf;
    key_range(&m);
    /* lone records come in runs where nothing but group_plain sees them */
    bool runs = !lookup_mode && !x->cl.full && w;
    /* deduplicate in reducer mode: superseded records' values are never
     * read, so the sources pass over their stretches (pk_superseded.c);
     * other engines fold every version of a key and read them all */
    pm_pk_file_skips *skips = NULL;
    size_t nfiles = 0;
    for (size_t i = 0; i < sec->nruns; i++)
        nfiles += sec->runs[i].nfiles;
    pm_error *e = NULL;
    if (runs && x->dedup && x->skip_superseded && !m.per_level)
        e = pm_pk_superseded_find(x, sec, &skips);
    /* ... and values only pass unchanged: value columns are read where no
     * lazy offer takes their page (pk_source.c, pk_page_copy.c) */
    m.lazy = runs && x->dedup && !m.per_level && x->cp.enabled && x->cp.lazy && !x->dv.m;
    /* each value column's reader holds about a window and a page (taken
     * as 1 MiB) per run: only where that fits the merge's half of the
     * budget (it is not measured before the readers open) */
    size_t nval = x->in_type->nfields > 2 + x->nkey ? x->in_type->nfields - 2 - x->nkey : 0;
    if (m.lazy && x->budget > 0 && (uint64_t)sec->nruns * nval * ((uint64_t)1 << 20) > (uint64_t)x->budget / 2)
        m.lazy = false;
    if (!e)
        e = make_sources(x, &m);
    for (size_t i = 0, base = 0; !e && skips && i < sec->nruns && i < m.nr; base += sec->runs[i].nfiles, i++)
        pm_pk_run_source_set_skips(&m.srcs[i], skips + base);
    if (!e)
        e = open_merge(x, &m);
    /* page copies where rows pass unchanged through group_plain and runs */
    if (!e)
        pm_pk_copy_begin(x, m.srcs, m.nr, runs ? w : NULL);
    bool first = true;
    while (!e) {
        pm_kv_group g;
        bool eof = false;
        int64_t run = 0;
        e = runs ? pm_merge_reader_next_run(m.mr, &g, &run, &eof) : pm_merge_reader_next(m.mr, &g, &eof);
        if (e && pm_merge_reader_over_budget(m.mr))
            e = pm_error_wrap(e, 0, "the task's memory budget of %lld bytes (half for the merge, half for the "
                              "output row group; --memory is shared by the running tasks) is too small",
                              (long long)x->budget);
        if (e || eof)
            break;
        if (first && pm_merge_reader_passes(m.mr) > 0)
            e = pm_pk_copy_end(x); /* records come from intermediate runs, not the sources */
        else if (first && m.lazy && x->cp.on) {
            for (size_t i = 0; i < m.nr; i++)
                pm_pk_run_source_lazy_on(&m.srcs[i]); /* the merge reads from the sources themselves */
            x->cp.lazy_srcs = true;
        }
        if (e)
            break;
        first = false;
        if (run) {
            e = group_lone_run(x, &m, &g.recs[0], run);
            continue;
        }
        if (lookup_mode) {
            e = group_lookup(x, &m, &g);
            continue;
        }
        bool done = !w;
        if (x->cl.full)
            e = group_full_changelog(x, &m, &g, &done);
        if (!e && !done)
            e = group_plain(x, &m, &g);
    }
    if (!e && w)
        e = drain(x, w);
    pm_error *ce = pm_pk_copy_end(x);
    if (e)
        pm_error_free(ce);
    else
        e = ce;
    pins_release(&x->o);
    close_merge(&m);
    pm_pk_skips_free(skips, nfiles);
    return e ? name_inputs(e, sec) : NULL;
}


static bool has_level0(const pm_iv_section *secs, size_t n)
{
    for (size_t s = 0; s < n; s++)
        for (size_t r = 0; r < secs[s].nruns; r++)
            for (size_t k = 0; k < secs[s].runs[r].nfiles; k++)
                if (secs[s].runs[r].files[k]->meta.level == 0)
                    return true;
    return false;
}

pm_error *pm_pk_rewrite(pm_pk_exec *x, const pm_iv_section *secs, size_t nsec, bool drop_delete)
{
    const pm_compact_task *task = x->task;
    /* lookup mode below the max level; a full-compaction changelog at the
     * max level has nothing retained to look up */
    bool lookup_mode = pm_pk_uses_lookup(x) && x->pk->output_level != 0 && !x->cl.full && has_level0(secs, nsec);
    pm_pk_file_writer_options wo = {x->pk->output_level, PM_FILE_SOURCE_COMPACT, false, task->output.target_file_size,
                                    task->output.target_file_row_num};
    pm_pk_file_writer *w = NULL;
    PM_TRY(pm_pk_file_writer_new(&w, x->t, &x->wschema, task->partition.data, task->partition.len, task->bucket,
                                 &wo));
    pm_error *e = NULL;
    for (size_t s = 0; s < nsec && !e; s++)
        e = pm_pk_merge_section(x, &secs[s], lookup_mode, drop_delete, w);
    pm_data_file_meta *files = NULL;
    size_t nfiles = 0;
    if (!e)
        e = pm_pk_file_writer_finish(w, &files, &nfiles);
    pm_compact_pk *rp = pm_pk_part(x->r->part);
    if (!e && rp)
        rp->pages_copied += pm_pk_file_writer_pages_copied(w);
    if (!e && rp)
        rp->pages_lazy += pm_pk_file_writer_pages_lazy(w);
    if (e) {
        pm_pk_file_writer_abort(w);
        return e;
    }
    pm_pk_file_writer_free(w);
    for (size_t i = 0; i < nfiles; i++)
        x->r->counters.bytes_written += files[i].file_size;
    e = pm_realloc_array(&x->r->after, x->r->nafter + nfiles, sizeof *x->r->after);
    if (!e) {
        if (nfiles)
            memcpy(x->r->after + x->r->nafter, files, nfiles * sizeof *files);
        x->r->nafter += nfiles;
        free(files);
        files = NULL;
        nfiles = 0;
    }
    for (size_t s = 0; !e && s < nsec; s++)
        for (size_t r = 0; !e && r < secs[s].nruns; r++)
            for (size_t k = 0; !e && k < secs[s].runs[r].nfiles; k++)
                e = pm_pk_record_before(x, secs[s].runs[r].files[k]);
    if (files) {
        /* not handed over: delete them */
        for (size_t i = 0; i < nfiles; i++) {
            char *p = pm_path_join(x->dir, files[i].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(x->t->fio, p));
            free(p);
            pm_data_file_meta_clear(&files[i]);
        }
        free(files);
    }
    return e;
}
