/*
 * tests/unit/lsm/lm_ref.h — the reference ("model") merge used by the lsm
 * model test and the fuzz_lsm_merge target: sort every record by (key,
 * sequence number, run, position) and fold each key with the engine's
 * rules written out plainly.  Records have the columns k (key), v BIGINT,
 * s STRING.  Engines: 0 deduplicate, 1 deduplicate + ignore-delete,
 * 2 first-row + ignore-delete, 3 aggregation (v sum, s
 * last_non_null_value), 4 partial-update + ignore-delete.  `full` folds
 * single records too; otherwise they pass through unchanged.
 * No test framework dependency.
 */
#ifndef LM_REF_H
#define LM_REF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lm_rec {
    int64_t k, seq;
    uint8_t kind;
    int64_t v;
    bool v_null;
    const char *s;     /* NULL = null */
    size_t src, pos;
} lm_rec;

typedef struct lm_out {
    int64_t k, seq;
    uint8_t kind;
    int64_t v;
    bool v_null;
    bool s_null;
    char s[16];
} lm_out;

static int lm_cmp(const void *x, const void *y)
{
    const lm_rec *a = x, *b = y;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static inline bool lm_retract(uint8_t k) { return k == 1 || k == 3; }

static void lm_pass(const lm_rec *r, lm_out *o)
{
    memset(o, 0, sizeof *o);
    o->k = r->k;
    o->seq = r->seq;
    o->kind = r->kind;
    o->v = r->v;
    o->v_null = r->v_null;
    o->s_null = r->s == NULL;
    if (r->s)
        snprintf(o->s, sizeof o->s, "%s", r->s);
}

/* Sorts `all`; writes one output per kept key; returns the count. */
static size_t lm_reference(lm_rec *all, size_t n, int engine, bool full, lm_out *out)
{
    if (n)
        qsort(all, n, sizeof *all, lm_cmp);
    size_t nout = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && all[j].k == all[i].k)
            j++;
        const lm_rec *g = all + i;
        size_t gn = j - i;
        i = j;
        if (gn == 1 && !full) {
            lm_pass(&g[0], &out[nout++]);
            continue;
        }
        switch (engine) {
        case 0: lm_pass(&g[gn - 1], &out[nout++]); break;
        case 1:
        case 2: {
            long pick = -1;
            for (size_t q = 0; q < gn; q++)
                if (!lm_retract(g[q].kind) && (engine == 1 || pick < 0))
                    pick = (long)q;
            if (pick >= 0)
                lm_pass(&g[pick], &out[nout++]);
            break;
        }
        case 3: {
            bool vn = true, sn = true;
            int64_t v = 0;
            const char *s = NULL;
            for (size_t q = 0; q < gn; q++) {
                const lm_rec *r = &g[q];
                if (lm_retract(r->kind)) {
                    if (vn) {
                        if (!r->v_null) {
                            vn = false;
                            v = -r->v;
                        }
                    } else if (!r->v_null) {
                        v -= r->v;
                    }
                    if (r->s)
                        sn = true;
                } else {
                    if (vn) {
                        vn = r->v_null;
                        v = r->v;
                    } else if (!r->v_null) {
                        v += r->v;
                    }
                    if (r->s) {
                        sn = false;
                        s = r->s;
                    }
                }
            }
            lm_out *o = &out[nout++];
            memset(o, 0, sizeof *o);
            o->k = g[0].k;
            o->seq = g[gn - 1].seq;
            o->kind = 0;
            o->v = vn ? 0 : v;
            o->v_null = vn;
            o->s_null = sn;
            if (!sn)
                snprintf(o->s, sizeof o->s, "%s", s);
            break;
        }
        default: { /* partial-update, ignore-delete */
            bool filled = false, insert = false;
            int64_t latest = 0, v = 0;
            bool vn = true, sn = true;
            const char *s = NULL;
            for (size_t q = 0; q < gn; q++) {
                const lm_rec *r = &g[q];
                if (lm_retract(r->kind)) {
                    if (!filled) {
                        vn = r->v_null;
                        v = r->v;
                        sn = r->s == NULL;
                        s = r->s;
                        filled = true;
                    }
                    continue;
                }
                latest = r->seq;
                if (!r->v_null) {
                    vn = false;
                    v = r->v;
                }
                if (r->s) {
                    sn = false;
                    s = r->s;
                }
                insert = filled = true;
            }
            lm_out *o = &out[nout++];
            memset(o, 0, sizeof *o);
            o->k = g[0].k;
            o->seq = latest;
            o->kind = insert ? 0 : 3;
            o->v = vn ? 0 : v;
            o->v_null = vn;
            o->s_null = sn;
            if (!sn)
                snprintf(o->s, sizeof o->s, "%s", s);
        }
        }
    }
    return nout;
}

static bool lm_equal(const lm_out *a, const lm_out *b)
{
    return a->k == b->k && a->seq == b->seq && a->kind == b->kind && a->v_null == b->v_null &&
           (a->v_null || a->v == b->v) && a->s_null == b->s_null && (a->s_null || strcmp(a->s, b->s) == 0);
}

static void lm_format(const lm_out *o, char *buf, size_t cap)
{
    char v[32] = "null";
    if (!o->v_null)
        snprintf(v, sizeof v, "%lld", (long long)o->v);
    snprintf(buf, cap, "k=%lld seq=%lld kind=%u v=%s s=%s%s%s", (long long)o->k, (long long)o->seq, o->kind, v,
             o->s_null ? "" : "'", o->s_null ? "null" : o->s, o->s_null ? "" : "'");
}

#endif
