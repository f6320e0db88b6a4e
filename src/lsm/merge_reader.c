/*
 * lsm/merge_reader.c — loser-tree k-way merge of sorted KeyValue streams
 * (algorithm and guarantees in merge_reader.h).
 *
 * Data structures:
 *   slot   one batch of a source with its encoded sort keys (one buffer,
 *          row offsets, key-part lengths) and a reference count: +1 while
 *          it is its source's current batch, +1 per record of the current
 *          group that points into it.  At zero the batch is freed and the
 *          slot (with its grown buffers) goes to a free list.
 *   head   per source: the current row's sort key pointer, length, key
 *          length and its first 16 bytes as two big-endian integers.
 *   tree   tree[0] = index of the winning source, tree[1..k-1] = losers.
 * Exhausted sources compare greater than everything.
 */
#include "lsm/merge_reader.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

typedef struct slot {
    pm_batch *batch;
    int refs;
    int64_t nrows;
    pm_buf keys;
    uint32_t *off;
    uint32_t *klen;
    size_t cap;
    struct slot *next_free;
} slot;

typedef struct head {
    uint64_t p0, p1;
    const uint8_t *key;
    uint32_t len, klen;
} head;

typedef struct msrc {
    pm_kv_source api;
    bool done;          /* no more rows */
    bool closed;        /* api.close called */
    slot *cur;
    int64_t row;
    pm_buf last;        /* previous sort key across a batch boundary */
} msrc;

struct pm_merge_reader {
    pm_type *row_type;
    pm_kv_layout layout;
    pm_kv_keyenc *enc;
    size_t max_fan_in;
    const pm_kv_spill *spill;
    int64_t spill_rows;
    size_t budget;
    bool over_budget;   /* the budget holds fewer than two inputs */
    /* inputs until the first call */
    pm_kv_source *inputs;
    size_t ninputs;
    bool started;
    size_t passes;
    /* final merge */
    msrc *src;
    size_t k;
    head *heads;
    uint32_t *tree;
    slot *free_slots;
    size_t live;
    /* current group */
    pm_kv_rec *recs;
    slot **rslots;
    size_t gn, gcap;
    pm_error *failed;   /* sticky: once set, every call returns a copy */
    uint32_t lone_src;  /* next_run: the source of the last lone record (UINT32_MAX: none) */
};

/* ------------------------------------------------------------------ */
/* Slots                                                               */

static inline uint64_t load_be64_pad(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    size_t m = n < 8 ? n : 8;
    for (size_t i = 0; i < m; i++)
        v |= (uint64_t)p[i] << (56 - 8 * i);
    return v;
}

static void slot_free_all(slot *s)
{
    while (s) {
        slot *n = s->next_free;
        pm_batch_free(s->batch);
        pm_buf_free(&s->keys);
        free(s->off);
        free(s->klen);
        free(s);
        s = n;
    }
}

static void slot_unref(pm_merge_reader *m, slot *s)
{
    if (--s->refs > 0)
        return;
    pm_batch_free(s->batch);
    s->batch = NULL;
    m->live--;
    s->next_free = m->free_slots;
    m->free_slots = s;
}

static pm_error *check_batch(const pm_merge_reader *m, const pm_batch *b)
{
    const pm_type *t = m->row_type;
    if (b->ncolumns != t->nfields)
        return pm_error_new(PM_EINVALID, "merge input batch has %zu columns, expected %zu", b->ncolumns,
                            t->nfields);
    for (size_t i = 0; i < b->ncolumns; i++) {
        if (b->columns[i]->type->id != t->fields[i].type->id)
            return pm_error_new(PM_EINVALID, "merge input column %zu is %s, expected %s", i,
                                pm_type_id_name(b->columns[i]->type->id), pm_type_id_name(t->fields[i].type->id));
        if (b->columns[i]->length != b->num_rows)
            return pm_error_new(PM_EINVALID, "merge input column %zu has %lld rows, the batch %lld", i,
                                (long long)b->columns[i]->length, (long long)b->num_rows);
    }
    const pm_column *seq = b->columns[m->layout.seq_col], *kind = b->columns[m->layout.kind_col];
    if (seq->null_count || kind->null_count)
        return pm_error_new(PM_ECORRUPT, "null _SEQUENCE_NUMBER or _VALUE_KIND");
    for (int64_t r = 0; r < b->num_rows; r++) {
        int8_t k = pm_column_i8(kind, r);
        if (k < 0 || k > 3)
            return pm_error_new(PM_ECORRUPT, "unknown _VALUE_KIND %d", (int)k);
    }
    return NULL;
}

/* Take ownership of b and encode its sort keys into a slot (refs = 1). */
static pm_error *slot_load(pm_merge_reader *m, pm_batch *b, slot **out)
{
    *out = NULL;
    pm_error *e = check_batch(m, b);
    if (e) {
        pm_batch_free(b);
        return e;
    }
    slot *s = m->free_slots;
    if (s) {
        m->free_slots = s->next_free;
    } else {
        s = calloc(1, sizeof *s);
        if (!s) {
            pm_batch_free(b);
            return pm_oom();
        }
    }
    s->next_free = NULL;
    s->batch = b;
    s->refs = 1;
    m->live++;
    int64_t n = b->num_rows;
    if ((size_t)n + 1 > s->cap) {
        size_t nc = (size_t)n + 1;
        uint32_t *o = realloc(s->off, nc * sizeof *o);
        if (o)
            s->off = o;
        uint32_t *kl = realloc(s->klen, nc * sizeof *kl);
        if (kl)
            s->klen = kl;
        if (!o || !kl) {
            e = pm_oom();
            goto fail;
        }
        s->cap = nc;
    }
    PM_TRY_GOTO(e, pm_kv_keyenc_batch(m->enc, b, &s->keys, s->off, s->klen), fail);
    s->nrows = n;
    *out = s;
    return NULL;
fail:
    s->refs = 1;
    slot_unref(m, s);
    return e;
}

/* ------------------------------------------------------------------ */
/* Sources and comparisons                                             */

static inline uint64_t load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

static inline void set_head(head *h, const slot *s, int64_t row)
{
    uint32_t o = s->off[row];
    h->key = s->keys.data + o;
    h->len = s->off[row + 1] - o;
    h->klen = s->klen[row];
    if (h->len >= 16) {
        h->p0 = load_be64(h->key);
        h->p1 = load_be64(h->key + 8);
    } else {
        h->p0 = load_be64_pad(h->key, h->len);
        h->p1 = h->len > 8 ? load_be64_pad(h->key + 8, h->len - 8) : 0;
    }
}

static inline int head_cmp(const head *a, const head *b)
{
    if (a->p0 != b->p0)
        return a->p0 < b->p0 ? -1 : 1;
    if (a->p1 != b->p1)
        return a->p1 < b->p1 ? -1 : 1;
    uint32_t n = a->len < b->len ? a->len : b->len;
    if (n > 16) {
        int c = memcmp(a->key + 16, b->key + 16, n - 16);
        if (c)
            return c < 0 ? -1 : 1;
    }
    return a->len < b->len ? -1 : a->len > b->len;
}

static inline bool src_less(const pm_merge_reader *m, uint32_t a, uint32_t b)
{
    if (m->src[a].done)
        return false;
    if (m->src[b].done)
        return true;
    int c = head_cmp(&m->heads[a], &m->heads[b]);
    return c < 0 || (c == 0 && a < b);
}

static void src_close(msrc *x)
{
    if (!x->closed) {
        x->closed = true;
        if (x->api.close)
            x->api.close(x->api.ctx);
    }
}

/* Load the next non-empty batch of source s; marks it done at the end. */
static pm_error *src_fetch(pm_merge_reader *m, uint32_t s)
{
    msrc *x = &m->src[s];
    for (;;) {
        pm_batch *b = NULL;
        PM_TRY(pm_error_wrap(x->api.next(x->api.ctx, &b), 0, "merge input %u", s));
        if (!b) {
            x->done = true;
            src_close(x);
            return NULL;
        }
        if (b->num_rows == 0) {
            pm_batch_free(b);
            continue;
        }
        slot *sl;
        PM_TRY(pm_error_wrap(slot_load(m, b, &sl), 0, "merge input %u", s));
        x->cur = sl;
        x->row = 0;
        set_head(&m->heads[s], sl, 0);
        return NULL;
    }
}

static pm_error *unsorted(uint32_t s)
{
    return pm_error_new(PM_ECORRUPT, "merge input %u is not sorted by key and sequence", s);
}

/* Move source s to its next row. */
static pm_error *src_advance(pm_merge_reader *m, uint32_t s)
{
    msrc *x = &m->src[s];
    head *h = &m->heads[s];
    if (x->row + 1 < x->cur->nrows) {
        head prev = *h;
        x->row++;
        set_head(h, x->cur, x->row);
        if (head_cmp(&prev, h) > 0)
            return unsorted(s);
        return NULL;
    }
    pm_buf_clear(&x->last);
    PM_TRY(pm_buf_append(&x->last, h->key, h->len));
    slot *old = x->cur;
    x->cur = NULL;
    slot_unref(m, old);
    PM_TRY(src_fetch(m, s));
    if (!x->done) {
        head prev;
        prev.key = x->last.data;
        prev.len = (uint32_t)x->last.len;
        prev.p0 = load_be64_pad(prev.key, prev.len);
        prev.p1 = prev.len > 8 ? load_be64_pad(prev.key + 8, prev.len - 8) : 0;
        if (head_cmp(&prev, h) > 0)
            return unsorted(s);
    }
    return NULL;
}

/* Build the tree bottom-up; tree has 3k entries, [k, 3k) is scratch for
 * the winners of nodes 1..2k-1. */
static void tree_build(pm_merge_reader *m)
{
    size_t k = m->k;
    uint32_t *win = m->tree + k - 1; /* win[node] for node in 1..2k-1 */
    for (size_t s = 0; s < k; s++)
        win[k + s] = (uint32_t)s;
    for (size_t node = k - 1; node >= 1; node--) {
        uint32_t a = win[2 * node], b = win[2 * node + 1];
        if (src_less(m, a, b)) {
            win[node] = a;
            m->tree[node] = b;
        } else {
            win[node] = b;
            m->tree[node] = a;
        }
    }
    m->tree[0] = k == 1 ? 0 : win[1];
}

static inline void tree_replay(pm_merge_reader *m, uint32_t s)
{
    uint32_t *t = m->tree;
    uint32_t w = s;
    for (size_t node = (s + m->k) >> 1; node >= 1; node >>= 1) {
        uint32_t l = t[node];
        if (src_less(m, l, w)) {
            t[node] = w;
            w = l;
        }
    }
    t[0] = w;
}

/* ------------------------------------------------------------------ */
/* Construction                                                        */

static void close_inputs(pm_kv_source *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (in[i].close)
            in[i].close(in[i].ctx);
}

pm_error *pm_merge_reader_new(pm_merge_reader **out, const pm_kv_source *sources, size_t n,
                              const pm_merge_options *o)
{
    *out = NULL;
    pm_error *e = NULL;
    pm_merge_reader *m = calloc(1, sizeof *m);
    if (!m) {
        close_inputs((pm_kv_source *)sources, n);
        return pm_oom();
    }
    m->inputs = n ? malloc(n * sizeof *m->inputs) : NULL;
    if (n && !m->inputs) {
        free(m);
        close_inputs((pm_kv_source *)sources, n);
        return pm_oom();
    }
    if (n)
        memcpy(m->inputs, sources, n * sizeof *sources);
    m->ninputs = n;
    if (!o || !o->row_type || !o->layout) {
        e = pm_error_new(PM_EINVALID, "merge needs a row type and a layout");
        goto fail;
    }
    m->lone_src = UINT32_MAX;
    m->max_fan_in = o->max_fan_in ? o->max_fan_in : PM_MERGE_MAX_FAN_IN;
    if (m->max_fan_in < 2 || m->max_fan_in > PM_MERGE_MAX_FAN_IN) {
        e = pm_error_new(PM_EINVALID, "merge fan-in %zu outside 2..%d", m->max_fan_in, PM_MERGE_MAX_FAN_IN);
        goto fail;
    }
    m->spill = o->spill ? o->spill : pm_kv_spill_memory();
    m->spill_rows = o->spill_batch_rows > 0 ? o->spill_batch_rows : 4096;
    m->row_type = pm_type_clone(o->row_type);
    if (!m->row_type) {
        e = pm_oom();
        goto fail;
    }
    PM_TRY_GOTO(e, pm_kv_layout_copy(&m->layout, o->layout), fail);
    PM_TRY_GOTO(e, pm_kv_keyenc_new(&m->enc, &m->layout, m->row_type), fail);
    *out = m;
    return NULL;
fail:
    pm_merge_reader_free(m);
    return e;
}

static void release_group(pm_merge_reader *m)
{
    for (size_t i = 0; i < m->gn; i++)
        slot_unref(m, m->rslots[i]);
    m->gn = 0;
}

void pm_merge_reader_free(pm_merge_reader *m)
{
    if (!m)
        return;
    release_group(m);
    for (size_t i = 0; i < m->k; i++) {
        msrc *x = &m->src[i];
        if (x->cur) {
            slot *s = x->cur;
            x->cur = NULL;
            slot_unref(m, s);
        }
        src_close(x);
        pm_buf_free(&x->last);
    }
    close_inputs(m->inputs, m->ninputs);
    free(m->inputs);
    free(m->src);
    free(m->heads);
    free(m->tree);
    slot_free_all(m->free_slots);
    free(m->recs);
    free(m->rslots);
    pm_kv_keyenc_free(m->enc);
    pm_kv_layout_clear(&m->layout);
    pm_type_free(m->row_type);
    pm_error_free(m->failed);
    free(m);
}

size_t pm_merge_reader_passes(const pm_merge_reader *m) { return m->passes; }
size_t pm_merge_reader_fan_in(const pm_merge_reader *m) { return m->max_fan_in; }
void pm_merge_reader_set_memory_budget(pm_merge_reader *m, size_t bytes) { m->budget = bytes; }
size_t pm_merge_reader_live_batches(const pm_merge_reader *m) { return m->live; }
bool pm_merge_reader_over_budget(const pm_merge_reader *m) { return m->over_budget; }

/* ------------------------------------------------------------------ */
/* Multi-pass                                                          */

/* Merge `n` sources (taken) into one intermediate run → *out. */
static pm_error *merge_chunk(pm_merge_reader *m, pm_kv_source *in, size_t n, pm_kv_source *out)
{
    pm_merge_options o = {m->row_type, &m->layout, m->max_fan_in, m->spill, m->spill_rows};
    pm_merge_reader *sub;
    PM_TRY(pm_merge_reader_new(&sub, in, n, &o));
    void *run = NULL;
    pm_batch *b = NULL;
    pm_error *e = m->spill->create(m->spill->ctx, m->row_type, &run);
    if (e) {
        pm_merge_reader_free(sub);
        return e;
    }
    int64_t rows = 0;
    size_t ncol = m->row_type->nfields;
    int *width = malloc((ncol ? ncol : 1) * sizeof *width);
    if (!width) {
        e = pm_oom();
        goto fail;
    }
    for (size_t c = 0; c < ncol; c++)
        width[c] = pm_type_value_width(m->row_type->fields[c].type);
    for (;;) {
        pm_kv_group g;
        bool eof;
        PM_TRY_GOTO(e, pm_merge_reader_next(sub, &g, &eof), fail);
        if (eof)
            break;
        for (size_t i = 0; i < g.n; i++) {
            if (!b) {
                PM_TRY_GOTO(e, pm_batch_new(&b, m->row_type), fail);
                for (size_t c = 0; c < ncol; c++)
                    PM_TRY_GOTO(e, pm_column_reserve(b->columns[c], m->spill_rows), fail);
            }
            for (size_t c = 0; c < ncol; c++)
                PM_TRY_GOTO(e, pm_kv_copy_cell(b->columns[c], width[c], g.recs[i].batch->columns[c], g.recs[i].row),
                            fail);
            if (++rows == m->spill_rows) {
                PM_TRY_GOTO(e, pm_batch_finish(b, rows), fail);
                pm_batch *full = b;
                b = NULL;
                rows = 0;
                PM_TRY_GOTO(e, m->spill->write(m->spill->ctx, run, full), fail);
            }
        }
    }
    if (b && rows) {
        PM_TRY_GOTO(e, pm_batch_finish(b, rows), fail);
        pm_batch *full = b;
        b = NULL;
        PM_TRY_GOTO(e, m->spill->write(m->spill->ctx, run, full), fail);
    }
    pm_batch_free(b);
    free(width);
    pm_merge_reader_free(sub);
    return m->spill->finish(m->spill->ctx, run, out);
fail:
    free(width);
    pm_batch_free(b);
    pm_merge_reader_free(sub);
    m->spill->abort(m->spill->ctx, run);
    return e;
}

/* ---- measuring the first batch for the memory budget ---- */

typedef struct pushback {
    pm_kv_source inner;
    pm_batch *first;
} pushback;

static pm_error *pushback_next(void *ctx, pm_batch **out)
{
    pushback *p = ctx;
    if (p->first) {
        *out = p->first;
        p->first = NULL;
        return NULL;
    }
    return p->inner.next(p->inner.ctx, out);
}

static void pushback_close(void *ctx)
{
    pushback *p = ctx;
    pm_batch_free(p->first);
    if (p->inner.close)
        p->inner.close(p->inner.ctx);
    free(p);
}

static size_t column_bytes(const pm_column *c)
{
    size_t n = c->validity.len + c->values.len + c->offsets.len + c->data.len;
    for (size_t i = 0; i < c->nchildren; i++)
        n += column_bytes(c->children[i]);
    return n;
}

/* Lower max_fan_in so that fan-in inputs (two batches each, plus what an
 * input holds besides: its reader's buffers) fit the budget; fewer than
 * two is an error. */
static pm_error *apply_budget(pm_merge_reader *m)
{
    if (!m->budget || m->ninputs == 0)
        return NULL;
    pushback *p = calloc(1, sizeof *p);
    if (!p)
        return pm_oom();
    p->inner = m->inputs[0];
    m->inputs[0] = (pm_kv_source){p, pushback_next, pushback_close, NULL};
    PM_TRY(p->inner.next(p->inner.ctx, &p->first));
    if (!p->first)
        return NULL;
    size_t bytes = 0;
    for (size_t i = 0; i < p->first->ncolumns; i++)
        bytes += column_bytes(p->first->columns[i]);
    /* sort keys, offsets and key lengths: about 16 bytes per row at least */
    bytes += (size_t)p->first->num_rows * 24 + 256;
    size_t held = p->inner.memory ? p->inner.memory(p->inner.ctx) : 0;
    size_t cost = 2 * bytes + held;
    size_t fan = m->budget / cost;
    if (fan < 2 && m->ninputs >= 2) {
        m->over_budget = true;
        return pm_error_new(PM_EINVALID,
                            "a memory budget of %zu bytes cannot merge %zu sorted runs: a run being merged holds "
                            "%zu bytes (two batches of %zu and %zu of reader buffers), so merging two at a time "
                            "needs %zu",
                            m->budget, m->ninputs, cost, bytes, held, 2 * cost);
    }
    if (fan < 2)
        fan = 2;
    if (fan < m->max_fan_in)
        m->max_fan_in = fan;
    return NULL;
}

static pm_error *reduce_inputs(pm_merge_reader *m)
{
    PM_TRY(apply_budget(m));
    while (m->ninputs > m->max_fan_in) {
        size_t f = m->max_fan_in;
        size_t nout = (m->ninputs + f - 1) / f;
        pm_kv_source *next = calloc(nout, sizeof *next);
        if (!next)
            return pm_oom();
        size_t done = 0, produced = 0;
        pm_error *e = NULL;
        while (done < m->ninputs) {
            size_t c = m->ninputs - done < f ? m->ninputs - done : f;
            if (c == 1) {
                next[produced++] = m->inputs[done];
                done++;
                continue;
            }
            /* the chunk is handed over (closed by merge_chunk) */
            size_t first = done;
            done += c;
            e = merge_chunk(m, m->inputs + first, c, &next[produced]);
            if (e)
                break;
            produced++;
        }
        /* inputs [done, n) were not handed over yet */
        if (e) {
            close_inputs(m->inputs + done, m->ninputs - done);
            close_inputs(next, produced);
            free(next);
            free(m->inputs);
            m->inputs = NULL;
            m->ninputs = 0;
            return e;
        }
        free(m->inputs);
        m->inputs = next;
        m->ninputs = produced;
        m->passes++;
    }
    return NULL;
}

static pm_error *start(pm_merge_reader *m)
{
    m->started = true;
    PM_TRY(reduce_inputs(m));
    size_t k = m->ninputs;
    m->k = k;
    if (k == 0) {
        free(m->inputs);
        m->inputs = NULL;
        return NULL;
    }
    m->src = calloc(k, sizeof *m->src);
    m->heads = calloc(k, sizeof *m->heads);
    m->tree = calloc(3 * k, sizeof *m->tree);
    if (!m->src || !m->heads || !m->tree) {
        m->k = 0;
        return pm_oom();
    }
    for (size_t i = 0; i < k; i++)
        m->src[i].api = m->inputs[i];
    free(m->inputs);
    m->inputs = NULL;
    m->ninputs = 0;
    for (size_t i = 0; i < k; i++)
        PM_TRY(src_fetch(m, (uint32_t)i));
    tree_build(m);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Groups                                                              */

static pm_error *group_add(pm_merge_reader *m, uint32_t s)
{
    if (m->gn == m->gcap) {
        size_t nc = m->gcap ? 2 * m->gcap : 16;
        pm_kv_rec *r = realloc(m->recs, nc * sizeof *r);
        if (r)
            m->recs = r;
        slot **ss = realloc(m->rslots, nc * sizeof *ss);
        if (ss)
            m->rslots = ss;
        if (!r || !ss)
            return pm_oom();
        m->gcap = nc;
    }
    msrc *x = &m->src[s];
    slot *sl = x->cur;
    pm_kv_rec *rec = &m->recs[m->gn];
    rec->batch = sl->batch;
    rec->row = x->row;
    rec->seq = pm_column_i64(sl->batch->columns[m->layout.seq_col], x->row);
    rec->kind = (uint8_t)pm_column_i8(sl->batch->columns[m->layout.kind_col], x->row);
    rec->source = s;
    m->rslots[m->gn] = sl;
    sl->refs++;
    m->gn++;
    return NULL;
}

/* Does head h have the key part (key, klen) whose first 16 bytes are k0, k1? */
static inline bool same_key(const head *h, const uint8_t *key, uint32_t klen, uint64_t k0, uint64_t k1)
{
    if (h->klen != klen)
        return false;
    if (klen <= 8) {
        uint64_t mask = klen ? ~0ull << (64 - 8 * klen) : 0;
        return ((h->p0 ^ k0) & mask) == 0;
    }
    if (h->p0 != k0)
        return false;
    if (klen <= 16) {
        uint64_t mask = ~0ull << (64 - 8 * (klen - 8));
        return ((h->p1 ^ k1) & mask) == 0;
    }
    return h->p1 == k1 && memcmp(h->key + 16, key + 16, klen - 16) == 0;
}

/* The reader keeps the failure (later calls repeat it) and returns a copy
 * with the whole chain, so the caller sees the cause too. */
static pm_error *fail_sticky(pm_merge_reader *m, pm_error *e)
{
    m->failed = e;
    char *s = pm_error_format(e);
    pm_error *c = pm_error_new(pm_error_code(e), "%s", s ? s : pm_error_message(e));
    free(s);
    return c;
}

pm_error *pm_merge_reader_next(pm_merge_reader *m, pm_kv_group *out, bool *eof)
{
    memset(out, 0, sizeof *out);
    *eof = false;
    if (m->failed) {
        char *s = pm_error_format(m->failed);
        pm_error *e = pm_error_new(pm_error_code(m->failed), "%s", s ? s : "merge failed before");
        free(s);
        return e;
    }
    release_group(m);
    pm_error *e;
    if (!m->started && (e = start(m)))
        return fail_sticky(m, e);
    if (m->k == 0 || m->src[m->tree[0]].done) {
        *eof = true;
        return NULL;
    }
    uint32_t w = m->tree[0];
    if ((e = group_add(m, w)))
        return fail_sticky(m, e);
    const uint8_t *key = m->heads[w].key;
    uint32_t klen = m->heads[w].klen;
    uint64_t k0 = m->heads[w].p0, k1 = m->heads[w].p1;
    for (;;) {
        if ((e = src_advance(m, w)))
            return fail_sticky(m, e);
        tree_replay(m, w);
        w = m->tree[0];
        if (m->src[w].done || !same_key(&m->heads[w], key, klen, k0, k1))
            break;
        if ((e = group_add(m, w)))
            return fail_sticky(m, e);
    }
    out->n = m->gn;
    out->recs = m->recs;
    out->key = key;
    out->key_len = klen;
    return NULL;
}

/* Key-part comparison of heads (first klen bytes; the sort key's key part
 * is prefix-free, kv.h): <0, 0 or >0. */
static inline uint64_t prefix_mask(uint32_t bytes)
{
    return bytes >= 8 ? ~0ull : bytes ? ~0ull << (64 - 8 * bytes) : 0;
}

static inline int key_cmp(const head *a, const head *b)
{
    uint32_t n = a->klen < b->klen ? a->klen : b->klen;
    uint64_t m0 = prefix_mask(n), m1 = n > 8 ? prefix_mask(n - 8) : 0;
    uint64_t a0 = a->p0 & m0, b0 = b->p0 & m0, a1 = a->p1 & m1, b1 = b->p1 & m1;
    if (a0 != b0)
        return a0 < b0 ? -1 : 1;
    if (a1 != b1)
        return a1 < b1 ? -1 : 1;
    if (n > 16) {
        int c = memcmp(a->key + 16, b->key + 16, n - 16);
        if (c)
            return c;
    }
    return a->klen < b->klen ? -1 : a->klen > b->klen;
}

pm_error *pm_merge_reader_next_run(pm_merge_reader *m, pm_kv_group *out, int64_t *run, bool *eof)
{
    *run = 0;
    if (m->failed || !m->started || m->k == 0)
        return pm_merge_reader_next(m, out, eof);
    uint32_t w = m->tree[0];
    msrc *x = &m->src[w];
    if (x->done || w != m->lone_src) {
        /* a run is tried only after a lone record of the same source */
        pm_error *e = pm_merge_reader_next(m, out, eof);
        m->lone_src = !e && !*eof && out->n == 1 ? out->recs[0].source : UINT32_MAX;
        return e;
    }
    release_group(m);
    /* the smallest other head: the losers on the winner's path */
    const head *second = NULL;
    for (size_t node = (w + m->k) >> 1; node >= 1; node >>= 1) {
        uint32_t l = m->tree[node];
        if (!m->src[l].done && (!second || head_cmp(&m->heads[l], second) < 0))
            second = &m->heads[l];
    }
    const slot *sl = x->cur;
    int64_t r0 = x->row, r = r0;
    head cur = m->heads[w], next;
    while (r + 1 < sl->nrows) {
        if (second && key_cmp(&cur, second) >= 0)
            break;
        set_head(&next, sl, r + 1);
        if (key_cmp(&cur, &next) >= 0)
            break; /* the same key next (a group), or out of order (reported there) */
        cur = next;
        r++;
    }
    if (r == r0) {
        pm_error *e = pm_merge_reader_next(m, out, eof);
        m->lone_src = !e && !*eof && out->n == 1 ? out->recs[0].source : UINT32_MAX;
        return e;
    }
    memset(out, 0, sizeof *out);
    *eof = false;
    pm_error *e = group_add(m, w);
    if (e)
        return fail_sticky(m, e);
    out->n = 1;
    out->recs = m->recs;
    out->key = m->heads[w].key;
    out->key_len = m->heads[w].klen;
    x->row = r;
    m->heads[w] = cur;
    tree_replay(m, w);
    *run = r - r0;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* In-memory spill                                                     */

typedef struct mem_run {
    pm_batch **b;
    size_t n, cap, pos;
} mem_run;

static void mem_run_free(mem_run *r)
{
    if (!r)
        return;
    for (size_t i = r->pos; i < r->n; i++)
        pm_batch_free(r->b[i]);
    free(r->b);
    free(r);
}

static pm_error *mem_create(void *ctx, const pm_type *row_type, void **run)
{
    (void)ctx;
    (void)row_type;
    mem_run *r = calloc(1, sizeof *r);
    if (!r)
        return pm_oom();
    *run = r;
    return NULL;
}

static pm_error *mem_write(void *ctx, void *run, pm_batch *b)
{
    (void)ctx;
    mem_run *r = run;
    if (r->n == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 16;
        pm_batch **nb = realloc(r->b, nc * sizeof *nb);
        if (!nb) {
            pm_batch_free(b);
            return pm_oom();
        }
        r->b = nb;
        r->cap = nc;
    }
    r->b[r->n++] = b;
    return NULL;
}

static pm_error *mem_next(void *ctx, pm_batch **out)
{
    mem_run *r = ctx;
    *out = r->pos < r->n ? r->b[r->pos++] : NULL;
    return NULL;
}

static void mem_close(void *ctx) { mem_run_free(ctx); }

static pm_error *mem_finish(void *ctx, void *run, pm_kv_source *out)
{
    (void)ctx;
    out->ctx = run;
    out->next = mem_next;
    out->close = mem_close;
    return NULL;
}

static void mem_abort(void *ctx, void *run)
{
    (void)ctx;
    mem_run_free(run);
}

static const pm_kv_spill MEM_SPILL = {NULL, mem_create, mem_write, mem_finish, mem_abort};

const pm_kv_spill *pm_kv_spill_memory(void) { return &MEM_SPILL; }
