/*
 * tests/unit/lsm/test_lsm_model.c — seeded model test of merge + fold:
 * random sorted runs of (key, seq, kind, v, s) — duplicate sequence
 * numbers across runs, all four kinds, nulls — are merged by the loser
 * tree (sometimes multi-pass: small fan-in, or more than 256 runs) and
 * folded by a merge engine (deduplicate with/without ignore-delete,
 * first-row with ignore-delete, aggregation sum + last_non_null_value,
 * partial-update with ignore-delete), in REDUCE and FULL modes; the
 * output rows must equal a reference that sorts all records and folds
 * each key with the engine's rules written out plainly.
 */
#include <stdio.h>

#include "lm_ref.h"
#include "lsm/merge_engine.h"
#include "lsm_test_util.h"

static const char *ENGINES[] = {"", "ignore-delete=true", "merge-engine=first-row;ignore-delete=true",
                                "merge-engine=aggregation;fields.v.aggregate-function=sum",
                                "merge-engine=partial-update;ignore-delete=true"};

static void run_model(uint64_t seed, size_t nruns, size_t fan_in, int engine, pm_merge_mode mode)
{
    lt_seed(seed);
    pm_type *t = lt_row_type();
    pm_type *vt;
    PM_OK_OR_FAIL(pm_type_parse(&vt, "ROW<k BIGINT NOT NULL, v BIGINT, s STRING>"));
    static const char *STRS[] = {"a", "b", "", "zz"};
    size_t keyspace = 1 + lt_below(40);
    lm_rec *all = NULL;
    size_t total = 0, cap = 0;
    pm_kv_source *srcs = calloc(nruns, sizeof *srcs);
    for (size_t s = 0; s < nruns; s++) {
        size_t n = lt_below(keyspace + 1);
        lt_rec *r = calloc(n ? n : 1, sizeof *r);
        /* unique sorted keys: walk the key space choosing each with probability n/keyspace */
        size_t m = 0;
        for (size_t k = 0; k < keyspace && m < n; k++) {
            if (lt_below(keyspace) >= n)
                continue;
            r[m].k = (int64_t)k - 5;
            r[m].seq = (int64_t)lt_below(50);
            r[m].kind = (uint8_t)(lt_below(3) ? (lt_below(2) ? PM_KIND_INSERT : PM_KIND_UPDATE_AFTER)
                                              : (lt_below(2) ? PM_KIND_DELETE : PM_KIND_UPDATE_BEFORE));
            r[m].v_null = lt_below(5) == 0;
            r[m].v = (int64_t)lt_below(21) - 10;
            r[m].s = lt_below(4) == 0 ? NULL : STRS[lt_below(4)];
            if (total == cap) {
                cap = cap ? 2 * cap : 256;
                all = realloc(all, cap * sizeof *all);
            }
            all[total] = (lm_rec){r[m].k, r[m].seq, r[m].kind, r[m].v, r[m].v_null, r[m].s, s, m};
            total++;
            m++;
        }
        srcs[s] = lt_source_of(t, r, m, 1 + lt_below(8), lt_below(4) == 0, NULL);
        free(r);
    }
    pm_kv_layout l;
    lt_layout(&l);
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    char *spec = strdup(ENGINES[engine]), *save = NULL;
    for (char *kv = strtok_r(spec, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        *eq = 0;
        PM_OK_OR_FAIL(pm_options_set(o, kv, eq + 1));
    }
    free(spec);
    const char *pk[] = {"k"};
    pm_merge_fn_options eo = {mode, false};
    pm_merge_fn *e;
    PM_OK_OR_FAIL(pm_merge_fn_new(&e, vt, pk, 1, o, &eo));
    pm_merge_options mo = {t, &l, fan_in, NULL, (int64_t)(1 + lt_below(64))};
    pm_merge_reader *m;
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, srcs, nruns, &mo));
    pm_batch *out;
    PM_OK_OR_FAIL(pm_batch_new(&out, t));
    int64_t rows = 0;
    for (;;) {
        pm_kv_group g;
        bool eof;
        PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
        if (eof)
            break;
        pm_merge_result res;
        PM_OK_OR_FAIL(pm_merge_fn_fold(e, &l, g.recs, g.n, &res));
        if (res.has) {
            PM_OK_OR_FAIL(pm_merge_fn_emit(e, out, &l));
            rows++;
        }
    }
    PM_OK_OR_FAIL(pm_batch_finish(out, rows));
    /* reference */
    lm_out *want = calloc(total ? total : 1, sizeof *want);
    size_t nwant = lm_reference(all, total, engine, mode == PM_MERGE_FULL, want);
    if ((size_t)rows != nwant) {
        print_error("seed %llu engine %d: %lld rows, expected %zu\n", (unsigned long long)seed, engine,
                    (long long)rows, nwant);
        fail();
    }
    for (int64_t i = 0; i < rows; i++) {
        lm_out got;
        got.k = pm_column_i64(out->columns[0], i);
        assert_int_equal(got.k, pm_column_i64(out->columns[3], i));
        got.seq = pm_column_i64(out->columns[1], i);
        got.kind = (uint8_t)pm_column_i8(out->columns[2], i);
        got.v_null = pm_column_is_null(out->columns[4], i);
        got.v = got.v_null ? 0 : pm_column_i64(out->columns[4], i);
        got.s_null = pm_column_is_null(out->columns[5], i);
        size_t sn = 0;
        const uint8_t *sp = got.s_null ? NULL : pm_column_bytes(out->columns[5], i, &sn);
        snprintf(got.s, sizeof got.s, "%.*s", (int)sn, sp ? (const char *)sp : "");
        if (!lm_equal(&got, &want[i])) {
            char a[128], b[128];
            lm_format(&got, a, sizeof a);
            lm_format(&want[i], b, sizeof b);
            print_error("seed %llu engine %d mode %d row %lld: got %s expected %s\n", (unsigned long long)seed,
                        engine, (int)mode, (long long)i, a, b);
            fail();
        }
    }
    free(want);
    pm_batch_free(out);
    pm_merge_reader_free(m);
    pm_merge_fn_free(e);
    pm_options_free(o);
    pm_kv_layout_clear(&l);
    pm_type_free(vt);
    pm_type_free(t);
    free(srcs);
    free(all);
}

static void test_model(void **state)
{
    (void)state;
    for (uint64_t i = 1; i <= 2500; i++) {
        size_t nruns = 1 + (size_t)(i * 2654435761u % 10);
        size_t fan = i % 7 == 0 ? 2 + (size_t)(i % 4) : 0;
        run_model(i * 0x9e3779b97f4a7c15ull + 1, nruns, fan, (int)(i % 5), i % 3 ? PM_MERGE_REDUCE : PM_MERGE_FULL);
    }
}

static void test_model_many_runs(void **state)
{
    (void)state;
    for (int engine = 0; engine < 5; engine++)
        run_model(500 + (uint64_t)engine, 300, 0, engine, PM_MERGE_REDUCE); /* > 256: two passes */
    run_model(600, 70, 3, 0, PM_MERGE_FULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_model_many_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
