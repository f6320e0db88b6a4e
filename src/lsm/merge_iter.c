/*
 * lsm/merge_iter.c — merged output batches, the sort permutation and the
 * sorted-batch source (behavior in merge_iter.h).
 */
#include "lsm/merge_iter.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

struct pm_merge_iter {
    pm_merge_reader *reader;
    pm_merge_fn *fn;
    pm_kv_layout in;
    pm_kv_layout out_layout;
    pm_batch *out;
    int64_t batch_rows;
    bool drop_retracts;
    bool done;
    pm_merge_iter_stats stats;
};

pm_error *pm_merge_iter_new(pm_merge_iter **out, pm_merge_reader *reader, pm_merge_fn *fn, const pm_type *row_type,
                            const pm_kv_layout *in_layout, const pm_merge_iter_options *o)
{
    *out = NULL;
    pm_merge_iter *it = calloc(1, sizeof *it);
    if (!it) {
        pm_merge_reader_free(reader);
        return pm_oom();
    }
    it->reader = reader;
    it->fn = fn;
    it->batch_rows = o && o->batch_rows > 0 ? o->batch_rows : 4096;
    it->drop_retracts = o && o->drop_retracts;
    const pm_type *ot = o && o->out_type ? o->out_type : row_type;
    const pm_kv_layout *ol = o && o->out_layout ? o->out_layout : in_layout;
    pm_error *e = pm_kv_layout_copy(&it->in, in_layout);
    if (!e)
        e = pm_kv_layout_copy(&it->out_layout, ol);
    if (!e)
        e = pm_kv_layout_check(&it->out_layout, ot);
    if (!e)
        e = pm_batch_new(&it->out, ot);
    if (e) {
        pm_merge_iter_free(it);
        return e;
    }
    *out = it;
    return NULL;
}

void pm_merge_iter_free(pm_merge_iter *it)
{
    if (!it)
        return;
    pm_merge_reader_free(it->reader);
    pm_kv_layout_clear(&it->in);
    pm_kv_layout_clear(&it->out_layout);
    pm_batch_free(it->out);
    free(it);
}

const pm_merge_iter_stats *pm_merge_iter_stats_get(const pm_merge_iter *it) { return &it->stats; }

pm_error *pm_merge_iter_next(pm_merge_iter *it, const pm_batch **out)
{
    *out = NULL;
    if (it->done)
        return NULL;
    PM_TRY(pm_batch_reset(it->out));
    for (size_t c = 0; c < it->out->ncolumns; c++)
        PM_TRY(pm_column_reserve(it->out->columns[c], it->batch_rows));
    int64_t rows = 0;
    while (rows < it->batch_rows) {
        pm_kv_group g;
        bool eof;
        PM_TRY(pm_merge_reader_next(it->reader, &g, &eof));
        if (eof) {
            it->done = true;
            break;
        }
        it->stats.groups++;
        it->stats.records += (int64_t)g.n;
        pm_merge_result res;
        PM_TRY(pm_merge_fn_fold(it->fn, &it->in, g.recs, g.n, &res));
        if (!res.has) {
            it->stats.ignored++;
            continue;
        }
        if (it->drop_retracts && pm_kind_is_retract(res.kind)) {
            it->stats.dropped++;
            continue;
        }
        PM_TRY(pm_merge_fn_emit(it->fn, it->out, &it->out_layout));
        rows++;
    }
    if (rows == 0)
        return NULL;
    PM_TRY(pm_batch_finish(it->out, rows));
    it->stats.emitted += rows;
    *out = it->out;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Sorting an in-memory batch                                          */

typedef struct sort_ctx {
    const uint8_t *keys;
    const uint32_t *off;
} sort_ctx;

static inline bool row_le(const sort_ctx *c, int64_t a, int64_t b)
{
    uint32_t al = c->off[a + 1] - c->off[a], bl = c->off[b + 1] - c->off[b];
    return pm_kv_keycmp(c->keys + c->off[a], al, c->keys + c->off[b], bl) <= 0;
}

pm_error *pm_kv_sort_rows(const pm_kv_layout *l, const pm_batch *b, int64_t *perm)
{
    int64_t n = b->num_rows;
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    if (n < 2)
        return NULL;
    pm_kv_keyenc *enc;
    PM_TRY(pm_kv_keyenc_new(&enc, l, b->type));
    pm_buf keys = PM_BUF_INIT;
    uint32_t *off = malloc(((size_t)n + 1) * sizeof *off);
    uint32_t *klen = malloc((size_t)n * sizeof *klen);
    int64_t *tmp = malloc((size_t)n * sizeof *tmp);
    pm_error *e = NULL;
    if (!off || !klen || !tmp)
        e = pm_oom();
    if (!e)
        e = pm_kv_keyenc_batch(enc, b, &keys, off, klen);
    if (!e) {
        /* bottom-up merge sort: stable */
        sort_ctx c = {keys.data, off};
        int64_t *src = perm, *dst = tmp;
        for (int64_t w = 1; w < n; w *= 2) {
            for (int64_t lo = 0; lo < n; lo += 2 * w) {
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
                int64_t i = lo, j = mid, k = lo;
                while (i < mid && j < hi)
                    dst[k++] = row_le(&c, src[i], src[j]) ? src[i++] : src[j++];
                while (i < mid)
                    dst[k++] = src[i++];
                while (j < hi)
                    dst[k++] = src[j++];
            }
            int64_t *t = src;
            src = dst;
            dst = t;
        }
        if (src != perm)
            memcpy(perm, src, (size_t)n * sizeof *perm);
    }
    free(tmp);
    free(off);
    free(klen);
    pm_buf_free(&keys);
    pm_kv_keyenc_free(enc);
    return e;
}

typedef struct sorted_src {
    pm_batch *b;
    int64_t *perm;
    int64_t n, pos, chunk;
} sorted_src;

static pm_error *sorted_next(void *ctx, pm_batch **out)
{
    sorted_src *s = ctx;
    *out = NULL;
    if (s->pos >= s->n)
        return NULL;
    int64_t m = s->n - s->pos < s->chunk ? s->n - s->pos : s->chunk;
    pm_batch *o;
    PM_TRY(pm_batch_new(&o, s->b->type));
    pm_error *e = NULL;
    for (size_t c = 0; c < s->b->ncolumns && !e; c++) {
        e = pm_column_reserve(o->columns[c], m);
        for (int64_t r = 0; r < m && !e; r++)
            e = pm_column_append_from(o->columns[c], s->b->columns[c], s->perm[s->pos + r]);
    }
    if (!e)
        e = pm_batch_finish(o, m);
    if (e) {
        pm_batch_free(o);
        return e;
    }
    s->pos += m;
    *out = o;
    return NULL;
}

static void sorted_close(void *ctx)
{
    sorted_src *s = ctx;
    pm_batch_free(s->b);
    free(s->perm);
    free(s);
}

pm_error *pm_kv_source_sorted(pm_batch *b, int64_t *perm, int64_t n, int64_t chunk_rows, pm_kv_source *out)
{
    sorted_src *s = calloc(1, sizeof *s);
    if (!s) {
        pm_batch_free(b);
        free(perm);
        return pm_oom();
    }
    s->b = b;
    s->perm = perm;
    s->n = n;
    s->chunk = chunk_rows > 0 ? chunk_rows : 4096;
    out->ctx = s;
    out->next = sorted_next;
    out->close = sorted_close;
    out->memory = NULL;
    return NULL;
}
