/*
 * tests/unit/pkc/test_pkc_prepass_scan.c — the key pre-pass's direct scan
 * (compact/pk/pk_prepass_scan.c) on in-memory run sources: random sorted
 * runs (gaps, overlaps, keys repeated within a run, equal sequence numbers
 * across runs, batches of random sizes, INT and BIGINT keys) mark exactly
 * the stretches a brute-force reference marks (every record but the one
 * with the highest (sequence number, run, row) of its key); a null key, a
 * run out of order and sources above the budget make it decline; every
 * source is closed once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "compact/pk/pk_exec.h"
#include "lsm/kv.h"
#include "pm_test.h"
#include "types/column.h"

static uint64_t rs = 0x853c49e6748fea9bull;
static uint64_t rnd(void)
{
    return pm_test_xorshift64(&rs);
}

typedef struct rec {
    int64_t key, seq, pos;
    int32_t file;
    bool null_key;
} rec;

typedef struct msrc {
    const pm_type *t;
    rec *r;
    size_t n, at;
    size_t memory;
    int closes;
} msrc;

static pm_error *m_next(void *ctx, pm_batch **out)
{
    msrc *s = ctx;
    *out = NULL;
    if (s->at >= s->n)
        return NULL;
    size_t take = 1 + rnd() % 7;
    if (rnd() % 5 == 0)
        take = 0; /* empty batches are passed over */
    if (take > s->n - s->at)
        take = s->n - s->at;
    pm_batch *b = NULL;
    PM_TRY(pm_batch_new(&b, s->t));
    bool wide = s->t->fields[2].type->id == PM_TYPE_BIGINT;
    for (size_t i = 0; i < take; i++) {
        const rec *r = &s->r[s->at + i];
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], r->seq));
        PM_OK_OR_FAIL(pm_column_append_i8(b->columns[1], 0));
        if (r->null_key)
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[2]));
        else if (wide)
            PM_OK_OR_FAIL(pm_column_append_i64(b->columns[2], r->key));
        else
            PM_OK_OR_FAIL(pm_column_append_i32(b->columns[2], (int32_t)r->key));
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[3], r->pos));
        PM_OK_OR_FAIL(pm_column_append_i32(b->columns[4], r->file));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, (int64_t)take));
    s->at += take;
    *out = b;
    return NULL;
}

static void m_close(void *ctx) { ((msrc *)ctx)->closes++; }
static size_t m_memory(void *ctx) { return ((msrc *)ctx)->memory; }

static pm_type *scan_type(bool wide)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, wide ? "ROW<_SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT NULL, "
                                           "id BIGINT, _POS BIGINT NOT NULL, _FILE INT NOT NULL>"
                                         : "ROW<_SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT NULL, "
                                           "id INT, _POS BIGINT NOT NULL, _FILE INT NOT NULL>"));
    return t;
}

/* nruns random runs of 1..3 files each; half the runs with gaps and
 * repeated keys, the others gapless. */
typedef struct runs {
    msrc *src;
    size_t nsrc, nfiles;
    int64_t *file_rows;
} runs;

static void make_runs(runs *R, const pm_type *t, size_t nruns, bool equal_seqs)
{
    R->nsrc = nruns;
    R->src = calloc(nruns, sizeof *R->src);
    R->nfiles = 0;
    R->file_rows = calloc(nruns * 3, sizeof *R->file_rows);
    for (size_t s = 0; s < nruns; s++) {
        msrc *m = &R->src[s];
        m->t = t;
        size_t n = 1000 + rnd() % 6000;
        m->r = calloc(n, sizeof *m->r);
        int64_t k = (int64_t)(rnd() % 3000);
        size_t nf = 1 + rnd() % 3, per = n / nf + 1;
        int32_t file = -1;
        int64_t seq = equal_seqs ? 7 : (int64_t)(rnd() % 50);
        bool noisy = rnd() % 2 == 0; /* else gapless: long superseded stretches */
        for (size_t i = 0; i < n; i++) {
            if (i % per == 0) {
                file = (int32_t)R->nfiles++;
                if (!equal_seqs)
                    seq += 1 + (int64_t)(rnd() % 3); /* a later file of a run: not lower */
            }
            rec *r = &m->r[i];
            r->key = k;
            r->seq = seq;
            r->file = file;
            r->pos = R->file_rows[file]++;
            /* mostly consecutive keys (long stretches), some gaps, some
             * repeats within the run */
            uint64_t c = noisy ? rnd() % 100 : 99;
            if (c < 3)
                ; /* the same key again */
            else if (c < 10)
                k += 2 + (int64_t)(rnd() % 40);
            else
                k++;
        }
        m->n = n;
    }
}

static void free_runs(runs *R)
{
    for (size_t s = 0; s < R->nsrc; s++)
        free(R->src[s].r);
    free(R->src);
    free(R->file_rows);
}

static int cmp_key(const void *a, const void *b)
{
    const rec *x = *(rec *const *)a, *y = *(rec *const *)b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Reference: the superseded records' stretches, through pm_pk_skips_mark
 * in file order. */
static pm_pk_file_skips *reference(const runs *R)
{
    size_t total = 0;
    for (size_t s = 0; s < R->nsrc; s++)
        total += R->src[s].n;
    rec **all = calloc(total, sizeof *all);
    uint32_t *srcof = calloc(total, sizeof *srcof);
    size_t at = 0;
    for (size_t s = 0; s < R->nsrc; s++)
        for (size_t i = 0; i < R->src[s].n; i++)
            all[at++] = &R->src[s].r[i];
    qsort(all, total, sizeof *all, cmp_key);
    /* superseded[file][pos] */
    bool **sup = calloc(R->nfiles, sizeof *sup);
    for (size_t f = 0; f < R->nfiles; f++)
        sup[f] = calloc((size_t)R->file_rows[f] + 1, 1);
    for (size_t i = 0; i < total;) {
        size_t j = i;
        while (j < total && all[j]->key == all[i]->key)
            j++;
        /* the winner: highest (seq, run, row); runs are found by address */
        const rec *win = NULL;
        size_t wsrc = 0;
        for (size_t g = i; g < j; g++) {
            size_t s = 0;
            while (!(all[g] >= R->src[s].r && all[g] < R->src[s].r + R->src[s].n))
                s++;
            if (!win || all[g]->seq > win->seq || (all[g]->seq == win->seq && s > wsrc) ||
                (all[g]->seq == win->seq && s == wsrc && all[g] > win)) {
                win = all[g];
                wsrc = s;
            }
        }
        for (size_t g = i; g < j; g++)
            if (all[g] != win)
                sup[all[g]->file][all[g]->pos] = true;
        i = j;
    }
    pm_pk_file_skips *sk = calloc(R->nfiles, sizeof *sk);
    for (size_t f = 0; f < R->nfiles; f++) {
        for (int64_t p = 0; p < R->file_rows[f]; p++)
            if (sup[f][p])
                PM_OK_OR_FAIL(pm_pk_skips_mark(&sk[f], p));
        PM_OK_OR_FAIL(pm_pk_skips_mark(&sk[f], -1));
        free(sup[f]);
    }
    free(sup);
    free(all);
    free(srcof);
    return sk;
}

static pm_error *run_scan(runs *R, const pm_kv_layout *l, bool wide, size_t budget, pm_pk_file_skips **out,
                          bool *declined)
{
    pm_kv_source *srcs = calloc(R->nsrc, sizeof *srcs);
    for (size_t s = 0; s < R->nsrc; s++) {
        R->src[s].at = 0;
        R->src[s].closes = 0;
        srcs[s] = (pm_kv_source){&R->src[s], m_next, m_close, m_memory};
    }
    pm_pk_file_skips *sk = calloc(R->nfiles, sizeof *sk);
    pm_error *e = pm_pk_prepass_scan(srcs, R->nsrc, l, 3, 4, wide, budget, sk, R->nfiles, declined);
    for (size_t f = 0; !e && f < R->nfiles; f++)
        e = pm_pk_skips_mark(&sk[f], -1);
    for (size_t s = 0; s < R->nsrc; s++)
        assert_int_equal(R->src[s].closes, 1);
    free(srcs);
    *out = sk;
    return e;
}

static void layout(pm_kv_layout *l, const pm_type *t)
{
    size_t kc[1] = {2};
    memset(l, 0, sizeof *l);
    PM_OK_OR_FAIL(pm_kv_layout_init(l, kc, 1, 0, 1, NULL, 0));
    PM_OK_OR_FAIL(pm_kv_layout_check(l, t));
}

static void test_scan_matches_reference(void **state)
{
    (void)state;
    int64_t ranges = 0;
    for (int round = 0; round < 40; round++) {
        bool wide = round % 2 == 0;
        pm_type *t = scan_type(wide);
        pm_kv_layout l;
        layout(&l, t);
        runs R;
        make_runs(&R, t, 1 + rnd() % 6, round % 5 == 4);
        pm_pk_file_skips *want = reference(&R), *got = NULL;
        bool declined = true;
        PM_OK_OR_FAIL(run_scan(&R, &l, wide, 0, &got, &declined));
        assert_false(declined);
        for (size_t f = 0; f < R.nfiles; f++) {
            assert_int_equal(got[f].n, want[f].n);
            for (size_t i = 0; i < want[f].n; i++) {
                assert_int_equal(got[f].r[i].start, want[f].r[i].start);
                assert_int_equal(got[f].r[i].end, want[f].r[i].end);
            }
            ranges += (int64_t)want[f].n;
        }
        pm_pk_skips_free(want, R.nfiles);
        pm_pk_skips_free(got, R.nfiles);
        free_runs(&R);
        pm_kv_layout_clear(&l);
        pm_type_free(t);
    }
    assert_true(ranges > 20); /* the rounds do pass over stretches */
}

static void test_scan_declines(void **state)
{
    (void)state;
    for (int c = 0; c < 3; c++) {
        pm_type *t = scan_type(true);
        pm_kv_layout l;
        layout(&l, t);
        runs R;
        make_runs(&R, t, 3, false);
        size_t budget = 0;
        if (c == 0) {
            R.src[1].r[R.src[1].n / 2].null_key = true;
        } else if (c == 1) {
            rec *r = &R.src[2].r[R.src[2].n - 2];
            r->key = R.src[2].r[0].key - 1; /* out of order */
        } else {
            for (size_t s = 0; s < R.nsrc; s++)
                R.src[s].memory = 1 << 20;
            budget = 2 << 20; /* three readers of 1 MiB do not fit */
        }
        pm_pk_file_skips *got = NULL;
        bool declined = false;
        PM_OK_OR_FAIL(run_scan(&R, &l, true, budget, &got, &declined));
        assert_true(declined);
        pm_pk_skips_free(got, R.nfiles);
        /* within the budget it scans */
        if (c == 2) {
            declined = true;
            PM_OK_OR_FAIL(run_scan(&R, &l, true, 4 << 20, &got, &declined));
            assert_false(declined);
            pm_pk_skips_free(got, R.nfiles);
        }
        free_runs(&R);
        pm_kv_layout_clear(&l);
        pm_type_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_matches_reference),
        cmocka_unit_test(test_scan_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
