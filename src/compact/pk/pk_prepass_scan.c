/*
 * compact/pk/pk_prepass_scan.c — the key pre-pass of pk_superseded.c
 * without the general merge, where the key is one INT or BIGINT field and
 * the files' sequence ranges order the records (synthesized sequence
 * numbers, no `sequence.field`, no ignore-delete): the sources' key
 * values are compared as integers, no sort key is encoded.
 *
 * Steps: one head per run source (its current key-only batch and row), in
 * a binary min-heap ordered by (key, source index) as the merge orders
 * sources of equal sort keys.
 *   lone    while the top's next key in its batch is above its own and
 *           below every other head's key, its rows are lone records
 *           (nothing superseded): the head moves on without a heap step;
 *   group   otherwise every head row of the top key is taken (a source's
 *           equal keys one after another); the winner is the record the
 *           merge puts last — the highest (sequence number, source index),
 *           the later row of one source — as pm_pk_pass_through keeps it
 *           without ignore-delete; every other record is marked
 *           (pm_pk_skips_mark);
 *   pairs   while the top and the second head hold the same key, below
 *           every other head's, and neither source repeats a key next,
 *           each pair is such a group of two, taken without a heap step.
 * Declines (*declined = true, the sources closed, the marks to be
 * discarded: the caller runs the general merge, which reports what it
 * finds) on a null key or a source out of (key, sequence) order, and when
 * the sources' first batches and reader buffers exceed `budget` (bytes;
 * 0 = none): the merge then takes the runs in passes.
 * Memory: one batch per source and its reader's buffers.
 */
#include <stdlib.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"

typedef struct scan_head {
    pm_batch *b;
    int64_t row, n;
    bool wide;                    /* BIGINT keys (else INT) */
    const void *keys;
    const int64_t *seq, *pos;
    const int32_t *file;
} scan_head;

typedef struct scan {
    const pm_kv_source *srcs;
    scan_head *h;
    uint32_t *heap;
    size_t nheap;
    size_t key_col, seq_col, pos_col, file_col;
    bool declined;
} scan;

static inline int64_t key_at(const scan_head *h, int64_t r)
{
    return h->wide ? ((const int64_t *)h->keys)[r] : ((const int32_t *)h->keys)[r];
}

static inline bool head_less(const scan *s, uint32_t a, uint32_t b)
{
    int64_t ka = key_at(&s->h[a], s->h[a].row), kb = key_at(&s->h[b], s->h[b].row);
    return ka < kb || (ka == kb && a < b);
}

static void sift_down(scan *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && head_less(s, s->heap[l], s->heap[m]))
            m = l;
        if (r < s->nheap && head_less(s, s->heap[r], s->heap[m]))
            m = r;
        if (m == i)
            return;
        uint32_t t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

/* The next non-empty batch of source i; *got = false at its end. */
static pm_error *fetch(scan *s, uint32_t i, bool *got)
{
    scan_head *h = &s->h[i];
    pm_batch_free(h->b);
    h->b = NULL;
    *got = false;
    for (;;) {
        pm_batch *b = NULL;
        PM_TRY(s->srcs[i].next(s->srcs[i].ctx, &b));
        if (!b)
            return NULL;
        if (b->num_rows == 0) {
            pm_batch_free(b);
            continue;
        }
        const pm_column *k = b->columns[s->key_col];
        if (k->null_count) {
            pm_batch_free(b);
            s->declined = true;
            return NULL;
        }
        h->b = b;
        h->row = 0;
        h->n = b->num_rows;
        h->keys = k->values.data;
        h->seq = (const int64_t *)(const void *)b->columns[s->seq_col]->values.data;
        h->pos = (const int64_t *)(const void *)b->columns[s->pos_col]->values.data;
        h->file = (const int32_t *)(const void *)b->columns[s->file_col]->values.data;
        *got = true;
        return NULL;
    }
}

/* Move the top head (source i) one row on: re-sifted, or out of the heap
 * at its end; declines when the source goes back in (key, sequence). */
static pm_error *advance_top(scan *s, uint32_t i)
{
    scan_head *h = &s->h[i];
    int64_t k = key_at(h, h->row), q = h->seq[h->row];
    if (++h->row == h->n) {
        bool got = false;
        PM_TRY(fetch(s, i, &got));
        if (s->declined)
            return NULL;
        if (!got) {
            s->heap[0] = s->heap[--s->nheap];
            sift_down(s, 0);
            return NULL;
        }
    }
    int64_t nk = key_at(h, h->row);
    if (nk < k || (nk == k && h->seq[h->row] < q)) {
        s->declined = true;
        return NULL;
    }
    sift_down(s, 0);
    return NULL;
}

/* Mark a superseded record: row `pos` of file f. */
static pm_error *mark_at(int32_t f, int64_t pos, pm_pk_file_skips *sk, size_t nfiles)
{
    if (f < 0 || (size_t)f >= nfiles)
        return pm_error_new(PM_EINTERNAL, "pre-pass record of file %d outside the section's %zu", f, nfiles);
    return pm_pk_skips_mark(&sk[f], pos);
}

/* Pairs: while the top and the second head hold the same key, below every
 * other head, and each source's next key is above its own, each pair is a
 * group of two (the second wins unless its sequence number is lower: it
 * comes after the top in the merge's order); the heads move on without a
 * heap step.  Stops before either batch's last row (the group step takes
 * it, and what follows). */
static pm_error *pair_gallop(scan *s, pm_pk_file_skips *sk, size_t nfiles)
{
    size_t ci = s->nheap > 2 && head_less(s, s->heap[2], s->heap[1]) ? 2 : 1;
    scan_head *t = &s->h[s->heap[0]], *c = &s->h[s->heap[ci]];
    int64_t rt = t->row, rc = c->row;
    if (key_at(t, rt) != key_at(c, rc))
        return NULL;
    /* the third smallest: the other child or a child of the second */
    bool bounded = false;
    int64_t bound = INT64_MAX;
    size_t cand[3] = {3 - ci, 2 * ci + 1, 2 * ci + 2};
    for (size_t j = 0; j < 3; j++)
        if (cand[j] < s->nheap) {
            const scan_head *o = &s->h[s->heap[cand[j]]];
            int64_t ko = key_at(o, o->row);
            if (!bounded || ko < bound)
                bound = ko;
            bounded = true;
        }
    while (rt + 1 < t->n && rc + 1 < c->n) {
        int64_t k = key_at(t, rt);
        if (key_at(c, rc) != k || (bounded && k >= bound) || key_at(t, rt + 1) <= k || key_at(c, rc + 1) <= k)
            break;
        if (c->seq[rc] >= t->seq[rt])
            PM_TRY(mark_at(t->file[rt], t->pos[rt], sk, nfiles));
        else
            PM_TRY(mark_at(c->file[rc], c->pos[rc], sk, nfiles));
        rt++;
        rc++;
    }
    if (rt == t->row)
        return NULL;
    t->row = rt;
    c->row = rc;
    sift_down(s, ci);
    sift_down(s, 0);
    return NULL;
}

typedef struct grec {
    int64_t seq, pos;
    int32_t file;
    uint32_t src;
} grec;

/* Bytes the heads hold: their batches (flat columns) and what each source
 * holds besides (its reader's buffers). */
static size_t held_bytes(const scan *s, size_t nsrc)
{
    size_t n = 0;
    for (size_t i = 0; i < nsrc; i++) {
        const pm_batch *b = s->h[i].b;
        for (size_t j = 0; b && j < b->ncolumns; j++)
            n += b->columns[j]->validity.len + b->columns[j]->values.len;
        if (s->srcs[i].memory)
            n += s->srcs[i].memory(s->srcs[i].ctx);
    }
    return n;
}

pm_error *pm_pk_prepass_scan(const pm_kv_source *srcs, size_t nsrc, const pm_kv_layout *l, size_t pos_col,
                             size_t file_col, bool wide, size_t budget, pm_pk_file_skips *sk, size_t nfiles,
                             bool *declined)
{
    *declined = false;
    scan s = {srcs, NULL, NULL, 0, l->key_cols[0], l->seq_col, pos_col, file_col, false};
    grec *g = NULL;
    size_t gcap = 0;
    pm_error *e = pm_calloc(&s.h, nsrc ? nsrc : 1, sizeof *s.h);
    if (!e)
        e = pm_calloc(&s.heap, nsrc ? nsrc : 1, sizeof *s.heap);
    for (uint32_t i = 0; !e && !s.declined && i < nsrc; i++) {
        bool got = false;
        s.h[i].wide = wide;
        e = fetch(&s, i, &got);
        if (!e && got)
            s.heap[s.nheap++] = i;
    }
    if (!e && budget && held_bytes(&s, nsrc) > budget)
        s.declined = true; /* the general merge takes the runs in passes */
    for (size_t i = s.nheap / 2; !e && i-- > 0;)
        sift_down(&s, i);
    while (!e && !s.declined && s.nheap) {
        uint32_t t = s.heap[0];
        scan_head *h = &s.h[t];
        /* lone rows: below every other head (the root's children hold the
         * smallest of them) */
        int64_t bound = INT64_MAX;
        bool bounded = false;
        for (size_t c = 1; c <= 2 && c < s.nheap; c++) {
            int64_t kc = key_at(&s.h[s.heap[c]], s.h[s.heap[c]].row);
            if (!bounded || kc < bound)
                bound = kc;
            bounded = true;
        }
        int64_t k = key_at(h, h->row);
        if (!bounded || k < bound) {
            int64_t r = h->row;
            while (r + 1 < h->n) {
                int64_t nk = key_at(h, r + 1);
                if (nk <= key_at(h, r) || (bounded && nk >= bound))
                    break;
                r++;
            }
            h->row = r; /* row r: through the group step (it may have equal keys next) */
        } else if (s.nheap >= 2) {
            e = pair_gallop(&s, sk, nfiles);
        }
        if (e)
            break;
        h = &s.h[s.heap[0]];
        k = key_at(h, h->row);
        /* the group of key k */
        size_t gn = 0, win = 0;
        while (!e && !s.declined && s.nheap) {
            uint32_t i = s.heap[0];
            scan_head *x = &s.h[i];
            if (key_at(x, x->row) != k)
                break;
            if (gn == gcap) {
                gcap = gcap ? 2 * gcap : 16;
                e = pm_realloc_array(&g, gcap, sizeof *g);
                if (e)
                    break;
            }
            g[gn] = (grec){x->seq[x->row], x->pos[x->row], x->file[x->row], i};
            /* the merge's last: (sequence, source) highest, later rows of a
             * source after earlier ones */
            if (gn == 0 || g[gn].seq > g[win].seq || (g[gn].seq == g[win].seq && g[gn].src >= g[win].src))
                win = gn;
            gn++;
            e = advance_top(&s, i);
        }
        for (size_t j = 0; !e && !s.declined && gn > 1 && j < gn; j++) {
            if (j == win)
                continue;
            e = mark_at(g[j].file, g[j].pos, sk, nfiles);
        }
    }
    for (size_t i = 0; s.h && i < nsrc; i++)
        pm_batch_free(s.h[i].b);
    for (size_t i = 0; i < nsrc; i++)
        if (srcs[i].close)
            srcs[i].close(srcs[i].ctx);
    free(s.h);
    free(s.heap);
    free(g);
    *declined = !e && s.declined;
    return e;
}
