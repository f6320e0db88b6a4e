/*
 * compact/append/append_rules.c — the file-selection rules of append_rules.h.
 * Sorting is by index arrays over the caller's file infos, with total
 * orders (size or min sequence, then the other, then name) so a plan is
 * deterministic.
 */
#include "compact/append/append_rules.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void pm_compact_groups_free(pm_compact_groups *g)
{
    free(g->idx);
    free(g->end);
    memset(g, 0, sizeof *g);
}

static pm_error *push_idx(pm_compact_groups *g, size_t i)
{
    if (g->nidx == g->capidx) {
        size_t cap = g->capidx ? g->capidx * 2 : 16;
        PM_TRY(pm_realloc_array(&g->idx, cap, sizeof *g->idx));
        g->capidx = cap;
    }
    g->idx[g->nidx++] = i;
    return NULL;
}

static pm_error *close_group(pm_compact_groups *g)
{
    if (g->ngroups == g->capgroups) {
        size_t cap = g->capgroups ? g->capgroups * 2 : 4;
        PM_TRY(pm_realloc_array(&g->end, cap, sizeof *g->end));
        g->capgroups = cap;
    }
    g->end[g->ngroups++] = g->nidx;
    return NULL;
}

static pm_error *emit(pm_compact_groups *g, const size_t *idx, size_t n)
{
    for (size_t i = 0; i < n; i++)
        PM_TRY(push_idx(g, idx[i]));
    return close_group(g);
}

static int32_t min_files(const pm_compact_rules *r) { return r->min_file_num < 2 ? 2 : r->min_file_num; }

/* ---- sorting with a context (qsort has none) ---- */

typedef int (*cmp_fn)(const pm_compact_file_info *a, const pm_compact_file_info *b);

static int cmp_name(const pm_compact_file_info *a, const pm_compact_file_info *b)
{
    const char *x = a->name ? a->name : "", *y = b->name ? b->name : "";
    return strcmp(x, y);
}

static int cmp_size(const pm_compact_file_info *a, const pm_compact_file_info *b)
{
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    if (a->min_seq != b->min_seq)
        return a->min_seq < b->min_seq ? -1 : 1;
    return cmp_name(a, b);
}

static int cmp_seq(const pm_compact_file_info *a, const pm_compact_file_info *b)
{
    if (a->min_seq != b->min_seq)
        return a->min_seq < b->min_seq ? -1 : 1;
    return cmp_name(a, b);
}

/* insertion sort for short runs, merge sort otherwise: stable, no context globals */
static void sort_idx(size_t *idx, size_t n, const pm_compact_file_info *f, cmp_fn cmp, size_t *tmp)
{
    if (n < 16) {
        for (size_t i = 1; i < n; i++) {
            size_t v = idx[i], j = i;
            while (j > 0 && cmp(&f[idx[j - 1]], &f[v]) > 0) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        return;
    }
    size_t h = n / 2;
    sort_idx(idx, h, f, cmp, tmp);
    sort_idx(idx + h, n - h, f, cmp, tmp);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp(&f[idx[j]], &f[idx[i]]) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

static pm_error *sorted_indexes(const pm_compact_file_info *f, size_t n, cmp_fn cmp, size_t **out)
{
    *out = NULL;
    size_t *idx, *tmp;
    PM_TRY(pm_calloc(&idx, n ? n : 1, sizeof *idx));
    pm_error *e = pm_calloc(&tmp, n ? n : 1, sizeof *tmp);
    if (e) {
        free(idx);
        return e;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_idx(idx, n, f, cmp, tmp);
    free(tmp);
    *out = idx;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* unaware bucket                                                      */

static bool too_many_deletes(const pm_compact_file_info *f, const pm_compact_rules *r)
{
    if (!r->dv_enabled || !f->has_dv)
        return false;
    if (!f->dv_card_known)
        return true;
    return (double)f->dv_card > (double)f->rows * r->delete_ratio;
}

typedef struct bin {
    size_t *idx;
    size_t n;
    int64_t weight;
} bin;

static void bin_add(bin *b, const pm_compact_file_info *f, size_t i, const pm_compact_rules *r)
{
    b->idx[b->n++] = i;
    b->weight += f[i].size + r->open_cost;
}

static bool bin_enough(const bin *b, const pm_compact_rules *r)
{
    return b->n > 1 && b->weight >= 2 * r->target;
}

static pm_error *bin_drain(bin *b, pm_compact_groups *out)
{
    PM_TRY(emit(out, b->idx, b->n));
    b->n = 0;
    b->weight = 0;
    return NULL;
}

/* pack(): cand[0..n) are indexes into f. */
static pm_error *pack(const pm_compact_file_info *f, size_t *cand, size_t n, const pm_compact_rules *r,
                      pm_compact_groups *out)
{
    if (!n)
        return NULL;
    size_t *tmp;
    bin b = {0};
    PM_TRY(pm_calloc(&tmp, n, sizeof *tmp));
    pm_error *e = pm_calloc(&b.idx, n, sizeof *b.idx);
    if (e) {
        free(tmp);
        return e;
    }
    sort_idx(cand, n, f, cmp_size, tmp);
    for (size_t i = 0; i < n && !e; i++) {
        bin_add(&b, f, cand[i], r);
        if (bin_enough(&b, r))
            e = bin_drain(&b, out);
    }
    if (!e && b.n >= (size_t)min_files(r))
        e = bin_drain(&b, out);
    free(b.idx);
    free(tmp);
    return e;
}

typedef struct dv_group {
    const char *index;
    size_t *idx;
    size_t n;
    int64_t size;
} dv_group;

static pm_error *pick_unaware_dv(const pm_compact_file_info *f, const size_t *cand, size_t n,
                                 const pm_compact_rules *r, pm_compact_groups *out)
{
    dv_group *groups = NULL;
    size_t ngroups = 0;
    size_t *rest = NULL, nrest = 0;
    size_t *order = NULL;
    bin b = {0};
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_calloc(&groups, n ? n : 1, sizeof *groups), done);
    PM_TRY_GOTO(e, pm_calloc(&rest, n ? n : 1, sizeof *rest), done);
    PM_TRY_GOTO(e, pm_calloc(&b.idx, n ? n : 1, sizeof *b.idx), done);
    for (size_t i = 0; i < n; i++) {
        const pm_compact_file_info *fi = &f[cand[i]];
        if (!fi->has_dv || !fi->dv_index) {
            rest[nrest++] = cand[i];
            continue;
        }
        dv_group *g = NULL;
        for (size_t k = 0; k < ngroups; k++)
            if (!strcmp(groups[k].index, fi->dv_index)) {
                g = &groups[k];
                break;
            }
        if (!g) {
            g = &groups[ngroups++];
            g->index = fi->dv_index;
            PM_TRY_GOTO(e, pm_calloc(&g->idx, n, sizeof *g->idx), done);
        }
        g->idx[g->n++] = cand[i];
        g->size += fi->size;
    }
    /* groups by total size (then index file name), files inside by min sequence */
    PM_TRY_GOTO(e, pm_calloc(&order, ngroups ? ngroups : 1, sizeof *order), done);
    for (size_t i = 0; i < ngroups; i++)
        order[i] = i;
    for (size_t i = 1; i < ngroups; i++) {
        size_t v = order[i], j = i;
        while (j > 0) {
            const dv_group *a = &groups[order[j - 1]], *c = &groups[v];
            bool gt = a->size > c->size || (a->size == c->size && strcmp(a->index, c->index) > 0);
            if (!gt)
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (size_t gi = 0; gi < ngroups; gi++) {
        dv_group *g = &groups[order[gi]];
        size_t *tmp;
        PM_TRY_GOTO(e, pm_calloc(&tmp, g->n, sizeof *tmp), done);
        sort_idx(g->idx, g->n, f, cmp_seq, tmp);
        free(tmp);
        for (size_t k = 0; k < g->n; k++)
            bin_add(&b, f, g->idx[k], r);
        if (bin_enough(&b, r))
            PM_TRY_GOTO(e, bin_drain(&b, out), done);
    }
    if (b.n)
        PM_TRY_GOTO(e, bin_drain(&b, out), done); /* deletes must be applied */
    if (nrest > 1)
        PM_TRY_GOTO(e, pack(f, rest, nrest, r, out), done);
done:
    for (size_t i = 0; i < ngroups; i++)
        free(groups[i].idx);
    free(groups);
    free(rest);
    free(order);
    free(b.idx);
    return e;
}

pm_error *pm_compact_pick_unaware(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                                  pm_compact_groups *out)
{
    size_t *cand;
    PM_TRY(pm_calloc(&cand, n ? n : 1, sizeof *cand));
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].size < r->small || too_many_deletes(&f[i], r))
            cand[nc++] = i;
    pm_error *e = r->dv_enabled ? pick_unaware_dv(f, cand, nc, r, out) : pack(f, cand, nc, r, out);
    free(cand);
    return e;
}

/* ------------------------------------------------------------------ */
/* fixed bucket                                                        */

pm_error *pm_compact_pick_bucketed(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                                   pm_compact_groups *out)
{
    size_t *order;
    PM_TRY(sorted_indexes(f, n, cmp_seq, &order));
    size_t start = 0, count = 0;
    int64_t bytes = 0;
    pm_error *e = NULL;
    size_t need = (size_t)min_files(r);
    for (size_t i = 0; i < n && !e; i++) {
        count++;
        bytes += f[order[i]].size;
        if (count >= need) {
            e = emit(out, order + start, count);
            if (r->single_window)
                break;
            start = i + 1;
            count = 0;
            bytes = 0;
        } else if (bytes >= 2 * r->target) {
            bytes -= f[order[start]].size;
            start++;
            count--;
        }
    }
    free(order);
    return e;
}

/* ------------------------------------------------------------------ */
/* full compaction                                                     */

pm_error *pm_compact_pick_full(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                               pm_compact_groups *out)
{
    if (!r->force_rewrite_all && (n == 0 || (!r->dv_enabled && n < 3)))
        return NULL;
    if (n == 0)
        return NULL;
    size_t *order;
    PM_TRY(sorted_indexes(f, n, cmp_seq, &order));
    size_t start = 0;
    if (!r->force_rewrite_all)
        while (start < n && f[order[start]].size >= r->small && !f[order[start]].has_dv)
            start++;
    size_t m = n - start;
    pm_error *e = NULL;
    if (m == 0) {
        /* nothing left */
    } else if (r->dv_enabled && !r->force_rewrite_all) {
        if (!(m == 1 && !f[order[start]].has_dv))
            e = emit(out, order + start, m);
    } else if (r->force_rewrite_all) {
        e = emit(out, order + start, m);
    } else {
        size_t big = 0, smallc = 0;
        for (size_t i = start; i < n; i++) {
            if (f[order[i]].size >= r->small)
                big++;
            else
                smallc++;
        }
        if (smallc > big && m >= 3)
            e = emit(out, order + start, m);
    }
    free(order);
    return e;
}

/* ------------------------------------------------------------------ */
/* bounded passes                                                      */

bool pm_compact_append_pending(const pm_compact_file_info *f, const pm_compact_rules *r)
{
    return f->size < r->small || too_many_deletes(f, r);
}

pm_error *pm_compact_pick_bounded_unaware(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                                          const size_t *prefix, size_t nprefix, pm_compact_groups *out)
{
    if (!nprefix)
        return NULL;
    bool *in = NULL;
    PM_TRY(pm_calloc(&in, n, sizeof *in));
    bool any_dv = false;
    for (size_t i = 0; i < nprefix; i++) {
        in[prefix[i]] = true;
        any_dv |= f[prefix[i]].has_dv;
    }
    pm_error *e = NULL;
    size_t cnt = nprefix;
    for (size_t i = 0; i < nprefix; i++)
        if (prefix[i] >= n)
            e = pm_error_new(PM_EINTERNAL, "prefix index %zu out of range", prefix[i]);
    /* a task rewrites whole DV index files: take every pending file whose
     * vector lies in an index file of the prefix */
    for (size_t i = 0; !e && r->dv_enabled && i < n; i++) {
        if (in[i] || !f[i].dv_index || !pm_compact_append_pending(&f[i], r))
            continue;
        for (size_t k = 0; k < nprefix; k++) {
            const char *x = f[prefix[k]].dv_index;
            if (x && !strcmp(x, f[i].dv_index)) {
                in[i] = true;
                cnt++;
                break;
            }
        }
    }
    if (!e && (cnt >= 2 || (r->dv_enabled && any_dv))) {
        for (size_t i = 0; !e && i < nprefix; i++)
            e = push_idx(out, prefix[i]);
        for (size_t i = 0; !e && i < n; i++) {
            bool listed = false;
            for (size_t k = 0; k < nprefix && !listed; k++)
                listed = prefix[k] == i;
            if (in[i] && !listed)
                e = push_idx(out, i);
        }
        if (!e)
            e = close_group(out);
    }
    free(in);
    return e;
}

pm_error *pm_compact_pick_bounded_bucketed(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                                           int64_t max_files, int64_t max_bytes, pm_compact_groups *out)
{
    size_t *order;
    PM_TRY(sorted_indexes(f, n, cmp_seq, &order));
    size_t start = 0;
    while (start < n && !pm_compact_append_pending(&f[order[start]], r))
        start++;
    size_t count = 0;
    int64_t bytes = 0;
    while (start + count < n) {
        const pm_compact_file_info *x = &f[order[start + count]];
        if (count && max_files > 0 && (int64_t)count >= max_files)
            break;
        if (count && max_bytes > 0 && x->size > max_bytes - bytes)
            break;
        bytes += x->size;
        count++;
    }
    pm_error *e = NULL;
    bool dv = count == 1 && r->dv_enabled && f[order[start]].has_dv;
    if (count >= 2 || dv)
        e = emit(out, order + start, count);
    free(order);
    return e;
}
