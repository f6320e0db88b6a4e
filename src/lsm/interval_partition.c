/*
 * lsm/interval_partition.c — interval partitioning and the compaction task
 * plan (algorithms in interval_partition.h).  The run assignment inside a
 * section uses a binary min-heap of runs keyed by their last max key.
 */
#include "lsm/interval_partition.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "lsm/kv.h"

static int cmp_key(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) { return pm_kv_keycmp(a, al, b, bl); }

static void section_clear(pm_iv_section *s)
{
    for (size_t i = 0; i < s->nruns; i++)
        free(s->runs[i].files);
    free(s->runs);
    s->runs = NULL;
    s->nruns = 0;
}

void pm_iv_partition_clear(pm_iv_partition *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nsections; i++)
        section_clear(&p->sections[i]);
    free(p->sections);
    memset(p, 0, sizeof *p);
}

typedef struct sort_item {
    const pm_lsm_file *f;
    size_t idx;
} sort_item;

static int cmp_item(const void *x, const void *y)
{
    const sort_item *a = x, *b = y;
    int c = cmp_key(a->f->min_key, a->f->min_len, b->f->min_key, b->f->min_len);
    if (!c)
        c = cmp_key(a->f->max_key, a->f->max_len, b->f->max_key, b->f->max_len);
    if (!c)
        c = a->idx < b->idx ? -1 : a->idx > b->idx;
    return c;
}

static const pm_lsm_file *run_last(const pm_iv_run *r) { return r->files[r->nfiles - 1]; }

static bool run_less(const pm_iv_run *runs, size_t a, size_t b)
{
    const pm_lsm_file *x = run_last(&runs[a]), *y = run_last(&runs[b]);
    int c = cmp_key(x->max_key, x->max_len, y->max_key, y->max_len);
    return c < 0 || (c == 0 && a < b);
}

static void heap_down(size_t *h, size_t n, size_t i, const pm_iv_run *runs)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && run_less(runs, h[l], h[m]))
            m = l;
        if (r < n && run_less(runs, h[r], h[m]))
            m = r;
        if (m == i)
            return;
        size_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_up(size_t *h, size_t i, const pm_iv_run *runs)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!run_less(runs, h[i], h[p]))
            return;
        size_t t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

/* Split one section's files (sorted) into runs. */
static pm_error *partition_section(const sort_item *items, size_t n, pm_iv_section *out)
{
    memset(out, 0, sizeof *out);
    pm_iv_run *runs = calloc(n, sizeof *runs);
    size_t *caps = calloc(n, sizeof *caps);
    size_t *heap = calloc(n, sizeof *heap);
    pm_error *e = NULL;
    size_t nruns = 0, hn = 0;
    if (!runs || !caps || !heap) {
        e = pm_oom();
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const pm_lsm_file *f = items[i].f;
        size_t target = nruns;
        if (hn) {
            const pm_lsm_file *last = run_last(&runs[heap[0]]);
            if (cmp_key(f->min_key, f->min_len, last->max_key, last->max_len) > 0)
                target = heap[0];
        }
        pm_iv_run *r = &runs[target];
        if (r->nfiles == caps[target]) {
            size_t nc = caps[target] ? 2 * caps[target] : 4;
            const pm_lsm_file **nf = realloc(r->files, nc * sizeof *nf);
            if (!nf) {
                e = pm_oom();
                nruns += target == nruns;
                goto done;
            }
            r->files = nf;
            caps[target] = nc;
        }
        r->files[r->nfiles++] = f;
        if (target == nruns) {
            nruns++;
            heap[hn] = target;
            heap_up(heap, hn++, runs);
        } else {
            heap_down(heap, hn, 0, runs); /* its last max key grew */
        }
    }
done:
    free(caps);
    free(heap);
    if (e) {
        for (size_t i = 0; i < nruns; i++)
            free(runs[i].files);
        free(runs);
        return e;
    }
    out->runs = runs;
    out->nruns = nruns;
    return NULL;
}

pm_error *pm_interval_partition(const pm_lsm_file *const *files, size_t n, pm_iv_partition *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return NULL;
    sort_item *items = malloc(n * sizeof *items);
    pm_iv_section *secs = calloc(n, sizeof *secs);
    pm_error *e = NULL;
    if (!items || !secs) {
        free(items);
        free(secs);
        return pm_oom();
    }
    for (size_t i = 0; i < n; i++) {
        items[i].f = files[i];
        items[i].idx = i;
    }
    qsort(items, n, sizeof *items, cmp_item);
    size_t nsec = 0, start = 0;
    const pm_lsm_file *bound = items[0].f;
    for (size_t i = 1; i <= n && !e; i++) {
        bool cut = i == n;
        if (!cut) {
            const pm_lsm_file *f = items[i].f;
            if (cmp_key(f->min_key, f->min_len, bound->max_key, bound->max_len) > 0)
                cut = true;
            else if (cmp_key(f->max_key, f->max_len, bound->max_key, bound->max_len) > 0)
                bound = f;
        }
        if (cut) {
            e = partition_section(items + start, i - start, &secs[nsec]);
            if (!e)
                nsec++;
            start = i;
            if (i < n)
                bound = items[i].f;
        }
    }
    free(items);
    out->sections = secs;
    out->nsections = nsec;
    if (e)
        pm_iv_partition_clear(out);
    return e;
}

/* ------------------------------------------------------------------ */
/* Task plan                                                           */

static pm_error *section_copy(pm_iv_section *dst, const pm_iv_section *src)
{
    memset(dst, 0, sizeof *dst);
    dst->runs = calloc(src->nruns ? src->nruns : 1, sizeof *dst->runs);
    if (!dst->runs)
        return pm_oom();
    for (size_t i = 0; i < src->nruns; i++) {
        dst->runs[i].files = malloc((src->runs[i].nfiles ? src->runs[i].nfiles : 1) * sizeof(pm_lsm_file *));
        if (!dst->runs[i].files) {
            dst->nruns = i;
            section_clear(dst);
            return pm_oom();
        }
        memcpy(dst->runs[i].files, src->runs[i].files, src->runs[i].nfiles * sizeof(pm_lsm_file *));
        dst->runs[i].nfiles = src->runs[i].nfiles;
    }
    dst->nruns = src->nruns;
    return NULL;
}

static pm_error *section_single(pm_iv_section *dst, const pm_lsm_file *f)
{
    pm_iv_run r = {1, (const pm_lsm_file **)&f};
    pm_iv_section s = {1, &r};
    return section_copy(dst, &s);
}

typedef struct planner {
    const pm_task_options *o;
    pm_task_plan *plan;
    size_t cap;
    pm_iv_section *cand;
    size_t ncand, candcap;
} planner;

static pm_error *push_step(planner *p, pm_task_step *s)
{
    if (p->plan->nsteps == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 8;
        pm_task_step *ns = realloc(p->plan->steps, nc * sizeof *ns);
        if (!ns)
            return pm_oom();
        p->plan->steps = ns;
        p->cap = nc;
    }
    p->plan->steps[p->plan->nsteps++] = *s;
    return NULL;
}

static pm_error *push_cand(planner *p, const pm_iv_section *s, const pm_lsm_file *single)
{
    if (p->ncand == p->candcap) {
        size_t nc = p->candcap ? 2 * p->candcap : 8;
        pm_iv_section *ns = realloc(p->cand, nc * sizeof *ns);
        if (!ns)
            return pm_oom();
        p->cand = ns;
        p->candcap = nc;
    }
    PM_TRY(single ? section_single(&p->cand[p->ncand], single) : section_copy(&p->cand[p->ncand], s));
    p->ncand++;
    return NULL;
}

/* rewriteImpl: one REWRITE step taking the candidate sections. */
static pm_error *rewrite_impl(planner *p)
{
    pm_task_step s;
    memset(&s, 0, sizeof s);
    s.kind = PM_STEP_REWRITE;
    s.sections = p->cand;
    s.nsections = p->ncand;
    pm_error *e = push_step(p, &s);
    if (e)
        return e;
    p->cand = NULL;
    p->ncand = p->candcap = 0;
    return NULL;
}

static bool may_hold_deletes(const pm_lsm_file *f)
{
    return !f->meta.delete_row_count.has || f->meta.delete_row_count.v > 0;
}

static pm_error *upgrade(planner *p, const pm_lsm_file *f)
{
    const pm_task_options *o = p->o;
    bool expired = o->expired && o->expired(o->expired_ctx, f);
    if ((o->output_level == o->max_level && may_hold_deletes(f)) || o->force_rewrite_all || expired) {
        /* rewrite this file alone; pending candidates stay pending */
        planner q = {o, p->plan, p->cap, NULL, 0, 0};
        pm_error *e = push_cand(&q, NULL, f);
        if (!e)
            e = rewrite_impl(&q);
        p->cap = q.cap;
        if (e) {
            for (size_t i = 0; i < q.ncand; i++)
                section_clear(&q.cand[i]);
            free(q.cand);
        }
        return e;
    }
    if (f->meta.level != o->output_level) {
        pm_task_step s;
        memset(&s, 0, sizeof s);
        s.kind = PM_STEP_UPGRADE;
        s.file = f;
        return push_step(p, &s);
    }
    return NULL;
}

static pm_error *flush(planner *p)
{
    if (p->ncand == 0)
        return NULL;
    if (p->ncand == 1) {
        pm_iv_section *s = &p->cand[0];
        if (s->nruns == 0) {
            section_clear(s);
            p->ncand = 0;
            return NULL;
        }
        if (s->nruns == 1) {
            pm_iv_section keep = *s;
            p->ncand = 0;
            pm_error *e = NULL;
            for (size_t i = 0; i < keep.runs[0].nfiles && !e; i++)
                e = upgrade(p, keep.runs[0].files[i]);
            section_clear(&keep);
            return e;
        }
    }
    return rewrite_impl(p);
}

void pm_task_plan_clear(pm_task_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nsteps; i++) {
        for (size_t j = 0; j < p->steps[i].nsections; j++)
            section_clear(&p->steps[i].sections[j]);
        free(p->steps[i].sections);
    }
    free(p->steps);
    memset(p, 0, sizeof *p);
}

pm_error *pm_compact_task_plan(const pm_lsm_file *const *files, size_t n, const pm_task_options *o,
                               pm_task_plan *out)
{
    memset(out, 0, sizeof *out);
    out->output_level = o->output_level;
    pm_iv_partition part;
    PM_TRY(pm_interval_partition(files, n, &part));
    planner p = {o, out, 0, NULL, 0, 0};
    pm_error *e = NULL;
    for (size_t i = 0; i < part.nsections && !e; i++) {
        pm_iv_section *sec = &part.sections[i];
        if (sec->nruns > 1) {
            e = push_cand(&p, sec, NULL);
            continue;
        }
        const pm_iv_run *run = &sec->runs[0];
        for (size_t j = 0; j < run->nfiles && !e; j++) {
            const pm_lsm_file *f = run->files[j];
            if (f->meta.file_size < o->min_file_size) {
                e = push_cand(&p, NULL, f);
            } else {
                e = flush(&p);
                if (!e)
                    e = upgrade(&p, f);
            }
        }
    }
    if (!e)
        e = flush(&p);
    for (size_t i = 0; i < p.ncand; i++)
        section_clear(&p.cand[i]);
    free(p.cand);
    pm_iv_partition_clear(&part);
    if (e)
        pm_task_plan_clear(out);
    return e;
}
