/*
 * tests/fuzz/fuzz_lsm_merge.c — libFuzzer target for the LSM merge: the
 * input bytes describe a merge engine, a fan-in (small fan-ins force the
 * multi-pass path), and runs of records (key deltas, sequence numbers,
 * kinds, values, strings, batch sizes); the runs are sorted as sorted runs
 * are, merged by the loser tree, folded by the engine and compared with
 * the plain reference of tests/unit/lsm/lm_ref.h.  Any difference or
 * unexpected error aborts.
 *
 * Byte layout (missing bytes read as 0):
 *   [0] engine (mod 5)  [1] mode bit 0 = FULL  [2] fan-in (0 = 256, else
 *   2 + b % 6)  [3] batch rows (1 + b % 16)
 *   then per record 5 bytes: run (b0 % 12; a later record with the same
 *   key in the same run replaces the earlier one, so runs have unique
 *   keys), key (b1 % 32), sequence (b2), kind (b3 % 4), value / null /
 *   string selector (b4)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/lsm/lm_ref.h"
#include "lsm/merge_engine.h"
#include "lsm/merge_reader.h"

#define NRUNS 12
#define MAXREC 4096

typedef struct fsrc {
    pm_batch **b;
    size_t n, pos;
} fsrc;

static pm_error *fsrc_next(void *ctx, pm_batch **out)
{
    fsrc *s = ctx;
    *out = s->pos < s->n ? s->b[s->pos] : NULL;
    if (s->pos < s->n)
        s->b[s->pos++] = NULL;
    return NULL;
}

static void fsrc_close(void *ctx)
{
    fsrc *s = ctx;
    for (size_t i = 0; i < s->n; i++)
        pm_batch_free(s->b[i]);
    free(s->b);
    free(s);
}

static void check(pm_error *e)
{
    if (e) {
        char *s = pm_error_format(e);
        fprintf(stderr, "unexpected error: %s\n", s ? s : "?");
        abort();
    }
}

static const char *STRS[] = {"a", "b", "", "zz"};

static int cmp_in_run(const void *x, const void *y)
{
    const lm_rec *a = x, *b = y;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t h[4] = {0};
    for (size_t i = 0; i < 4 && i < size; i++)
        h[i] = data[i];
    int engine = h[0] % 5;
    bool full = h[1] & 1;
    size_t fan = h[2] == 0 ? 0 : 2 + h[2] % 6;
    size_t per = 1 + h[3] % 16;
    size_t nrec = size > 4 ? (size - 4) / 5 : 0;
    if (nrec > MAXREC)
        nrec = MAXREC;
    lm_rec *all = calloc(nrec ? nrec : 1, sizeof *all);
    /* assign records to runs; a run keeps one record per key (the last) */
    size_t cnt[NRUNS] = {0};
    lm_rec *runs[NRUNS];
    for (int r = 0; r < NRUNS; r++)
        runs[r] = calloc(nrec ? nrec : 1, sizeof(lm_rec));
    for (size_t i = 0; i < nrec; i++) {
        const uint8_t *p = data + 4 + 5 * i;
        int r = p[0] % NRUNS;
        lm_rec x;
        memset(&x, 0, sizeof x);
        x.k = (int64_t)(p[1] % 32) - 8;
        x.seq = p[2];
        x.kind = p[3] % 4;
        x.v_null = (p[4] & 7) == 0;
        x.v = (int64_t)(p[4] >> 3) - 16;
        x.s = (p[4] & 0x18) == 0x18 ? NULL : STRS[(p[4] >> 1) & 3];
        x.src = (size_t)r;
        x.pos = cnt[r];
        size_t k;
        for (k = 0; k < cnt[r]; k++)
            if (runs[r][k].k == x.k)
                break;
        if (k < cnt[r]) {
            x.pos = runs[r][k].pos;
            runs[r][k] = x;
        } else {
            runs[r][cnt[r]++] = x;
        }
    }
    pm_type *t, *vt;
    check(pm_type_parse(&t, "ROW<_KEY_k BIGINT NOT NULL, _SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT "
                            "NULL, k BIGINT NOT NULL, v BIGINT, s STRING>"));
    check(pm_type_parse(&vt, "ROW<k BIGINT NOT NULL, v BIGINT, s STRING>"));
    pm_kv_source srcs[NRUNS];
    size_t total = 0;
    for (int r = 0; r < NRUNS; r++) {
        qsort(runs[r], cnt[r], sizeof(lm_rec), cmp_in_run);
        for (size_t i = 0; i < cnt[r]; i++) {
            runs[r][i].pos = i;
            all[total++] = runs[r][i];
        }
        fsrc *s = calloc(1, sizeof *s);
        s->b = calloc(cnt[r] / per + 2, sizeof *s->b);
        for (size_t i = 0; i < cnt[r]; i += per) {
            size_t m = cnt[r] - i < per ? cnt[r] - i : per;
            pm_batch *b;
            check(pm_batch_new(&b, t));
            for (size_t q = i; q < i + m; q++) {
                const lm_rec *x = &runs[r][q];
                check(pm_column_append_i64(b->columns[0], x->k));
                check(pm_column_append_i64(b->columns[1], x->seq));
                check(pm_column_append_i8(b->columns[2], (int8_t)x->kind));
                check(pm_column_append_i64(b->columns[3], x->k));
                check(x->v_null ? pm_column_append_null(b->columns[4]) : pm_column_append_i64(b->columns[4], x->v));
                check(x->s ? pm_column_append_bytes(b->columns[5], x->s, strlen(x->s))
                           : pm_column_append_null(b->columns[5]));
            }
            check(pm_batch_finish(b, (int64_t)m));
            s->b[s->n++] = b;
        }
        srcs[r] = (pm_kv_source){s, fsrc_next, fsrc_close, NULL};
    }
    static const char *ENGINES[] = {"", "ignore-delete=true", "merge-engine=first-row;ignore-delete=true",
                                    "merge-engine=aggregation;fields.v.aggregate-function=sum",
                                    "merge-engine=partial-update;ignore-delete=true"};
    pm_options *o;
    check(pm_options_new(&o));
    char spec[128];
    snprintf(spec, sizeof spec, "%s", ENGINES[engine]);
    char *save = NULL;
    for (char *kv = strtok_r(spec, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        *eq = 0;
        check(pm_options_set(o, kv, eq + 1));
    }
    pm_kv_layout l;
    check(pm_kv_layout_physical(&l, 1, 3));
    const char *pk[] = {"k"};
    pm_merge_fn_options eo = {full ? PM_MERGE_FULL : PM_MERGE_REDUCE, false};
    pm_merge_fn *e;
    check(pm_merge_fn_new(&e, vt, pk, 1, o, &eo));
    pm_merge_options mo = {t, &l, fan, NULL, (int64_t)per};
    pm_merge_reader *m;
    check(pm_merge_reader_new(&m, srcs, NRUNS, &mo));
    lm_out *want = calloc(total ? total : 1, sizeof *want);
    size_t nwant = lm_reference(all, total, engine, full, want), at = 0;
    pm_batch *out;
    check(pm_batch_new(&out, t));
    for (;;) {
        pm_kv_group g;
        bool eof;
        check(pm_merge_reader_next(m, &g, &eof));
        if (eof)
            break;
        pm_merge_result res;
        check(pm_merge_fn_fold(e, &l, g.recs, g.n, &res));
        if (!res.has)
            continue;
        check(pm_batch_reset(out));
        check(pm_merge_fn_emit(e, out, &l));
        check(pm_batch_finish(out, 1));
        lm_out got;
        memset(&got, 0, sizeof got);
        got.k = pm_column_i64(out->columns[0], 0);
        got.seq = pm_column_i64(out->columns[1], 0);
        got.kind = (uint8_t)pm_column_i8(out->columns[2], 0);
        got.v_null = pm_column_is_null(out->columns[4], 0);
        got.v = got.v_null ? 0 : pm_column_i64(out->columns[4], 0);
        got.s_null = pm_column_is_null(out->columns[5], 0);
        size_t sn = 0;
        const uint8_t *sp = got.s_null ? NULL : pm_column_bytes(out->columns[5], 0, &sn);
        snprintf(got.s, sizeof got.s, "%.*s", (int)sn, sp ? (const char *)sp : "");
        if (at >= nwant || !lm_equal(&got, &want[at])) {
            char a[128], b[128] = "(none)";
            lm_format(&got, a, sizeof a);
            if (at < nwant)
                lm_format(&want[at], b, sizeof b);
            fprintf(stderr, "mismatch at %zu: got %s expected %s\n", at, a, b);
            abort();
        }
        at++;
    }
    if (at != nwant) {
        fprintf(stderr, "%zu rows, expected %zu\n", at, nwant);
        abort();
    }
    pm_batch_free(out);
    free(want);
    pm_merge_reader_free(m);
    pm_merge_fn_free(e);
    pm_kv_layout_clear(&l);
    pm_options_free(o);
    pm_type_free(vt);
    pm_type_free(t);
    for (int r = 0; r < NRUNS; r++)
        free(runs[r]);
    free(all);
    return 0;
}
