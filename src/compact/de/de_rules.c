/*
 * compact/de/de_rules.c — data-evolution planning rules (de_rules.h).
 *
 * pm_de_pick: files sorted by first row ID (ties: normal before dedicated,
 * then the given order); a sweep cuts stretches at gaps, and inside each
 * stretch the normal files into aligned groups; the bin packing of rule 3
 * runs over the groups with rule 5 deciding splits.  Arithmetic on sizes
 * saturates (weights of huge files stay comparable).
 */
#include "compact/de/de_rules.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void pm_de_picks_free(pm_de_picks *p)
{
    for (size_t i = 0; p && i < p->n; i++) {
        free(p->v[i].files);
        free(p->v[i].cuts);
    }
    if (p)
        free(p->v);
    if (p)
        memset(p, 0, sizeof *p);
}

static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

typedef struct sorter {
    const pm_de_file_info *f;
    size_t i;
} sorter;

static int cmp_sorter(const void *x, const void *y)
{
    const sorter *a = x, *b = y;
    if (a->f->first_row_id != b->f->first_row_id)
        return a->f->first_row_id < b->f->first_row_id ? -1 : 1;
    if (a->f->dedicated != b->f->dedicated)
        return a->f->dedicated ? 1 : -1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

pm_error *pm_de_split_cuts(int64_t first, int64_t rows, int64_t size, int64_t target, const pm_de_file_info *ded,
                           size_t nd, int64_t **cuts, size_t *ncuts)
{
    *cuts = NULL;
    *ncuts = 0;
    if (rows <= 1 || size <= 0 || target <= 0)
        return NULL;
    /* rows per output from the total normal size, the logical rows and the target */
    double per = (double)target * (double)rows / (double)size;
    int64_t step = per >= (double)rows ? rows : (int64_t)per;
    if (step < 1)
        step = 1;
    if (step >= rows)
        return NULL;
    size_t cap = (size_t)((rows - 1) / step);
    int64_t *c = NULL;
    PM_TRY(pm_calloc(&c, cap ? cap : 1, sizeof *c));
    size_t n = 0;
    int64_t end = first + rows;
    for (int64_t p = first + step; p < end && n < cap; p += step) {
        int64_t cut = p;
        /* move past every dedicated file the cut falls strictly inside */
        for (bool moved = true; moved;) {
            moved = false;
            for (size_t k = 0; k < nd; k++) {
                int64_t s = ded[k].first_row_id, e = ded[k].first_row_id + ded[k].rows;
                if (s < cut && cut < e) {
                    cut = e;
                    moved = true;
                }
            }
        }
        if (cut < end && (!n || c[n - 1] != cut))
            c[n++] = cut;
    }
    qsort(c, n, sizeof *c, cmp_i64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || c[m - 1] != c[i])
            c[m++] = c[i];
    if (!m) {
        free(c);
        return NULL;
    }
    *cuts = c;
    *ncuts = m;
    return NULL;
}

/* One group: normal files [gs, ge) of the sorted array, with its range. */
typedef struct group {
    size_t gs, ge;
    int64_t first, rows, weight, size;
    bool large;
} group;

typedef struct packer {
    const pm_de_rules *r;
    const sorter *s;
    pm_de_picks *out;
    /* the bin */
    size_t *files;
    size_t nfiles, cap;
    int64_t weight;
    int64_t first, end;
} packer;

static pm_error *bin_add(packer *p, const group *g)
{
    size_t need = p->nfiles + (g->ge - g->gs);
    if (need > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        while (cap < need)
            cap *= 2;
        PM_TRY(pm_realloc_array(&p->files, cap, sizeof *p->files));
        p->cap = cap;
    }
    if (!p->nfiles)
        p->first = g->first;
    for (size_t k = g->gs; k < g->ge; k++)
        p->files[p->nfiles++] = p->s[k].i;
    p->end = g->first + g->rows;
    p->weight = sat_add(p->weight, g->weight);
    return NULL;
}

static pm_error *emit(packer *p, const size_t *files, size_t n, int64_t first, int64_t rows, int64_t *cuts,
                      size_t ncuts, bool force)
{
    if (!n || (!force && n < (size_t)p->r->min_files)) {
        free(cuts);
        return NULL;
    }
    pm_error *e = pm_realloc_array(&p->out->v, p->out->n + 1, sizeof *p->out->v);
    if (e) {
        free(cuts);
        return e;
    }
    pm_de_pick *k = &p->out->v[p->out->n];
    memset(k, 0, sizeof *k);
    e = pm_calloc(&k->files, n, sizeof *k->files);
    if (e) {
        free(cuts);
        return e;
    }
    memcpy(k->files, files, n * sizeof *files);
    k->nfiles = n;
    k->cuts = cuts;
    k->ncuts = ncuts;
    k->first_row_id = first;
    k->rows = rows;
    p->out->n++;
    return NULL;
}

static pm_error *drain(packer *p)
{
    pm_error *e = emit(p, p->files, p->nfiles, p->first, p->end - p->first, NULL, 0, false);
    p->nfiles = 0;
    p->weight = 0;
    return e;
}

static pm_error *isolate(packer *p, const group *g, const pm_de_file_info *ded, size_t nd)
{
    PM_TRY(drain(p));
    size_t n = g->ge - g->gs;
    size_t *idx = NULL;
    PM_TRY(pm_calloc(&idx, n, sizeof *idx));
    for (size_t k = 0; k < n; k++)
        idx[k] = p->s[g->gs + k].i;
    int64_t *cuts = NULL;
    size_t ncuts = 0;
    pm_error *e = NULL;
    if (g->large)
        e = pm_de_split_cuts(g->first, g->rows, g->size, p->r->target, ded, nd, &cuts, &ncuts);
    if (!e)
        e = emit(p, idx, n, g->first, g->rows, cuts, ncuts, ncuts > 0);
    free(idx);
    return e;
}

pm_error *pm_de_plan_partition(const pm_de_file_info *f, size_t n, const pm_de_rules *r, pm_de_picks *out)
{
    memset(out, 0, sizeof *out);
    if (!n)
        return NULL;
    sorter *s = NULL;
    PM_TRY(pm_calloc(&s, n, sizeof *s));
    for (size_t i = 0; i < n; i++)
        s[i] = (sorter){&f[i], i};
    qsort(s, n, sizeof *s, cmp_sorter);
    packer p = {r, s, out, NULL, 0, 0, 0, 0, 0};
    pm_de_file_info *ded = NULL;
    pm_error *e = pm_calloc(&ded, n, sizeof *ded);
    double threshold = (double)r->target * r->ratio;
    for (size_t i = 0; i < n && !e;) {
        /* one stretch: files overlapping or touching */
        int64_t end = s[i].f->first_row_id + s[i].f->rows;
        size_t j = i + 1;
        while (j < n && s[j].f->first_row_id <= end) {
            if (s[j].f->first_row_id + s[j].f->rows > end)
                end = s[j].f->first_row_id + s[j].f->rows;
            j++;
        }
        /* normal files first (kept in sorted order), dedicated ones aside */
        sorter *norm = NULL;
        size_t nn = 0, nd = 0;
        e = pm_calloc(&norm, j - i, sizeof *norm);
        for (size_t k = i; k < j && !e; k++) {
            if (s[k].f->dedicated)
                ded[nd++] = *s[k].f;
            else
                norm[nn++] = s[k];
        }
        p.s = norm;
        for (size_t a = 0; a < nn && !e;) {
            group g = {a, a + 1, norm[a].f->first_row_id, norm[a].f->rows, 0, 0, false};
            int64_t gend = g.first + g.rows; /* exclusive */
            size_t b = a + 1;
            while (b < nn && norm[b].f->first_row_id < gend) {
                if (norm[b].f->first_row_id + norm[b].f->rows > gend)
                    gend = norm[b].f->first_row_id + norm[b].f->rows;
                b++;
            }
            g.ge = b;
            for (size_t k = a; k < b; k++) {
                const pm_de_file_info *x = norm[k].f;
                if (x->first_row_id != g.first || x->rows != g.rows) {
                    e = pm_error_new(PM_ECORRUPT, "normal data files of row IDs [%" PRId64 ", %" PRId64 "] overlap "
                                     "without covering the same range", g.first, gend - 1);
                    break;
                }
                g.weight = sat_add(g.weight, x->size > r->open_cost ? x->size : r->open_cost);
                g.size = sat_add(g.size, x->size);
                if (r->split_large && (double)x->size > threshold)
                    g.large = true;
            }
            if (e)
                break;
            if (g.weight > r->target) {
                e = isolate(&p, &g, ded, nd);
            } else {
                e = bin_add(&p, &g);
                if (!e && p.weight > r->target)
                    e = drain(&p);
            }
            a = b;
        }
        if (!e)
            e = drain(&p); /* the end of a stretch (a gap) drains the bin */
        free(norm);
        i = j;
    }
    free(ded);
    free(p.files);
    free(s);
    if (e)
        pm_de_picks_free(out);
    return e;
}

/* ------------------------------------------------------------------ */
/* pending files and bounded passes                                    */

typedef struct de_ord {
    const pm_de_file_info *f;
    size_t idx;
} de_ord;

static int de_ord_cmp(const void *a, const void *b)
{
    const de_ord *x = a, *y = b;
    if (x->f->first_row_id != y->f->first_row_id)
        return x->f->first_row_id < y->f->first_row_id ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The normal files of f in row order (*out malloc'd, *n of them). */
static pm_error *normal_in_row_order(const pm_de_file_info *f, size_t n, de_ord **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    de_ord *o;
    PM_TRY(pm_calloc(&o, n ? n : 1, sizeof *o));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!f[i].dedicated)
            o[k++] = (de_ord){&f[i], i};
    qsort(o, k, sizeof *o, de_ord_cmp);
    *out = o;
    *nout = k;
    return NULL;
}

pm_error *pm_de_pending(const pm_de_file_info *f, size_t n, int64_t target, bool *pending)
{
    memset(pending, 0, n * sizeof *pending);
    de_ord *o;
    size_t k;
    PM_TRY(normal_in_row_order(f, n, &o, &k));
    for (size_t i = 0; i < k; i++) {
        const pm_de_file_info *x = o[i].f;
        if (x->size < target)
            pending[o[i].idx] = true;
        /* a group of versions: every overlapping normal file */
        for (size_t j = i + 1; j < k && o[j].f->first_row_id < x->first_row_id + x->rows; j++)
            pending[o[i].idx] = pending[o[j].idx] = true;
    }
    free(o);
    return NULL;
}

pm_error *pm_de_bounded_prefix(const pm_de_file_info *f, size_t n, int64_t target, int64_t max_files,
                               int64_t max_bytes, bool *take)
{
    memset(take, 0, n * sizeof *take);
    bool *pend = NULL;
    de_ord *o = NULL;
    size_t k = 0;
    pm_error *e = pm_calloc(&pend, n ? n : 1, sizeof *pend);
    if (!e)
        e = pm_de_pending(f, n, target, pend);
    if (!e)
        e = normal_in_row_order(f, n, &o, &k);
    int64_t files = 0, bytes = 0, lo = 0, hi = -1; /* the taken row range [lo, hi] */
    bool started = false;
    for (size_t i = 0; !e && i < k;) {
        /* the group starting at i: normal files overlapping transitively */
        size_t j = i + 1;
        int64_t end = o[i].f->first_row_id + o[i].f->rows - 1, gbytes = o[i].f->size;
        bool any = pend[o[i].idx];
        while (j < k && o[j].f->first_row_id <= end) {
            int64_t e2 = o[j].f->first_row_id + o[j].f->rows - 1;
            if (e2 > end)
                end = e2;
            gbytes += o[j].f->size;
            any |= pend[o[j].idx];
            j++;
        }
        int64_t gfiles = (int64_t)(j - i);
        if (!started && !any) {
            i = j;
            continue;
        }
        if (started && (!any || o[i].f->first_row_id != hi + 1 ||
                        (max_files > 0 && files + gfiles > max_files) ||
                        (max_bytes > 0 && gbytes > max_bytes - bytes)))
            break;
        if (!started)
            lo = o[i].f->first_row_id;
        started = true;
        for (size_t m = i; m < j; m++)
            take[o[m].idx] = true;
        files += gfiles;
        bytes += gbytes;
        hi = end;
        i = j;
    }
    /* dedicated files inside the taken range travel with it (cut points) */
    for (size_t i = 0; !e && started && i < n; i++)
        if (f[i].dedicated && f[i].first_row_id >= lo && f[i].first_row_id + f[i].rows - 1 <= hi)
            take[i] = true;
    free(o);
    free(pend);
    return e;
}
