/*
 * tests/unit/lsm/test_lsm_merge_iter.c — merged output batches: an
 * unsorted write buffer (sorted by pm_kv_sort_rows, fed through the
 * sorted-batch source) merged with sorted runs, folded by each engine,
 * with and without dropping retracts, in small output batches, equals the
 * reference fold; the sort is stable for equal keys and sequences; the
 * statistics add up; an output layout with another column order works.
 */
#include "lm_ref.h"
#include "lsm/merge_iter.h"
#include "lsm_test_util.h"

static const char *ENGINES[] = {"", "ignore-delete=true", "merge-engine=first-row;ignore-delete=true",
                                "merge-engine=aggregation;fields.v.aggregate-function=sum",
                                "merge-engine=partial-update;ignore-delete=true"};

static pm_merge_fn *engine_of(int engine)
{
    pm_type *vt;
    PM_OK_OR_FAIL(pm_type_parse(&vt, "ROW<k BIGINT NOT NULL, v BIGINT, s STRING>"));
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
    pm_merge_fn *e;
    PM_OK_OR_FAIL(pm_merge_fn_new(&e, vt, pk, 1, o, NULL));
    pm_options_free(o);
    pm_type_free(vt);
    return e;
}

static void run_case(uint64_t seed, int engine, bool drop)
{
    lt_seed(seed);
    pm_type *t = lt_row_type();
    pm_kv_layout l;
    lt_layout(&l);
    static const char *STRS[] = {"a", "b", NULL};
    lm_rec all[400];
    size_t total = 0;
    /* source 0: an unsorted buffer with repeated keys, sequence = arrival */
    lt_rec buf[120] = {{0}};
    size_t nb = lt_below(120);
    for (size_t i = 0; i < nb; i++) {
        buf[i] = (lt_rec){(int64_t)lt_below(15), 1000 + (int64_t)i, (uint8_t)lt_below(4), (int64_t)lt_below(9) - 4,
                          lt_below(4) == 0, STRS[lt_below(3)]};
        all[total++] = (lm_rec){buf[i].k, buf[i].seq, buf[i].kind, buf[i].v, buf[i].v_null, buf[i].s, 0, i};
    }
    pm_batch *b = lt_batch(t, buf, nb);
    int64_t *perm = malloc((nb ? nb : 1) * sizeof *perm);
    PM_OK_OR_FAIL(pm_kv_sort_rows(&l, b, perm));
    for (size_t i = 1; i < nb; i++) { /* sorted by key then sequence (= arrival) */
        const lt_rec *x = &buf[perm[i - 1]], *y = &buf[perm[i]];
        assert_true(x->k < y->k || (x->k == y->k && perm[i - 1] < perm[i]));
    }
    pm_kv_source srcs[4];
    PM_OK_OR_FAIL(pm_kv_source_sorted(b, perm, (int64_t)nb, 1 + (int64_t)lt_below(10), &srcs[0]));
    /* sources 1..3: older sorted runs */
    for (size_t s = 1; s < 4; s++) {
        lt_rec r[15] = {{0}};
        size_t m = 0;
        for (int64_t k = 0; k < 15; k++) {
            if (lt_below(2))
                continue;
            r[m] = (lt_rec){k, (int64_t)lt_below(1000), (uint8_t)lt_below(4), (int64_t)lt_below(9) - 4,
                            lt_below(4) == 0, STRS[lt_below(3)]};
            all[total++] = (lm_rec){r[m].k, r[m].seq, r[m].kind, r[m].v, r[m].v_null, r[m].s, s, m};
            m++;
        }
        srcs[s] = lt_source_of(t, r, m, 1 + lt_below(5), false, NULL);
    }
    pm_merge_options mo = {t, &l, 0, NULL, 0};
    pm_merge_reader *m;
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, srcs, 4, &mo));
    pm_merge_fn *fn = engine_of(engine);
    pm_merge_iter_options io = {1 + (int64_t)lt_below(5), drop, NULL, NULL};
    pm_merge_iter *it;
    PM_OK_OR_FAIL(pm_merge_iter_new(&it, m, fn, t, &l, &io));
    lm_out want[400];
    size_t nwant = lm_reference(all, total, engine, false, want);
    size_t at = 0, kept_want = 0;
    for (size_t i = 0; i < nwant; i++)
        kept_want += !(drop && lm_retract(want[i].kind));
    for (;;) {
        const pm_batch *ob;
        PM_OK_OR_FAIL(pm_merge_iter_next(it, &ob));
        if (!ob)
            break;
        assert_true(ob->num_rows >= 1 && ob->num_rows <= io.batch_rows);
        for (int64_t r = 0; r < ob->num_rows; r++) {
            while (at < nwant && drop && lm_retract(want[at].kind))
                at++;
            assert_true(at < nwant);
            lm_out got;
            memset(&got, 0, sizeof got);
            got.k = pm_column_i64(ob->columns[3], r);
            got.seq = pm_column_i64(ob->columns[1], r);
            got.kind = (uint8_t)pm_column_i8(ob->columns[2], r);
            got.v_null = pm_column_is_null(ob->columns[4], r);
            got.v = got.v_null ? 0 : pm_column_i64(ob->columns[4], r);
            got.s_null = pm_column_is_null(ob->columns[5], r);
            size_t sn = 0;
            const uint8_t *sp = got.s_null ? NULL : pm_column_bytes(ob->columns[5], r, &sn);
            snprintf(got.s, sizeof got.s, "%.*s", (int)sn, sp ? (const char *)sp : "");
            if (!lm_equal(&got, &want[at])) {
                char x[128], y[128];
                lm_format(&got, x, sizeof x);
                lm_format(&want[at], y, sizeof y);
                print_error("seed %llu engine %d: got %s expected %s\n", (unsigned long long)seed, engine, x, y);
                fail();
            }
            at++;
        }
    }
    while (at < nwant && drop && lm_retract(want[at].kind))
        at++;
    assert_int_equal(at, nwant);
    const pm_merge_iter_stats *st = pm_merge_iter_stats_get(it);
    assert_int_equal(st->records, (int64_t)total);
    assert_int_equal(st->emitted, (int64_t)kept_want);
    assert_int_equal(st->emitted + st->dropped + st->ignored, st->groups);
    pm_merge_iter_free(it);
    pm_merge_fn_free(fn);
    pm_kv_layout_clear(&l);
    pm_type_free(t);
}

static void test_merge_iter(void **state)
{
    (void)state;
    for (uint64_t i = 1; i <= 400; i++)
        run_case(i, (int)(i % 5), i % 2 == 0);
}

static void test_stable_sort_and_layouts(void **state)
{
    (void)state;
    pm_type *t = lt_row_type();
    pm_kv_layout l;
    lt_layout(&l);
    /* equal key and sequence: arrival order kept */
    lt_rec r[6] = {{2, 5, 0, 1, false, "x"}, {1, 5, 0, 2, false, "y"}, {2, 5, 0, 3, false, "z"},
                   {2, 4, 0, 4, false, "w"}, {1, 5, 0, 5, false, "v"}, {0, 9, 0, 6, false, "u"}};
    pm_batch *b = lt_batch(t, r, 6);
    int64_t perm[6];
    PM_OK_OR_FAIL(pm_kv_sort_rows(&l, b, perm));
    int64_t want[6] = {5, 1, 4, 3, 0, 2};
    assert_memory_equal(perm, want, sizeof want);
    /* an output type with another column order: [k, v, s, _KEY_k, _VALUE_KIND, _SEQUENCE_NUMBER] */
    pm_type *ot;
    PM_OK_OR_FAIL(pm_type_parse(&ot, "ROW<k BIGINT NOT NULL, v BIGINT, s STRING, _KEY_k BIGINT NOT NULL, "
                                     "_VALUE_KIND TINYINT NOT NULL, _SEQUENCE_NUMBER BIGINT NOT NULL>"));
    pm_kv_layout ol;
    size_t kc = 3, vc[3] = {0, 1, 2};
    PM_OK_OR_FAIL(pm_kv_layout_init(&ol, &kc, 1, 5, 4, vc, 3));
    int64_t *p = malloc(6 * sizeof *p);
    memcpy(p, perm, sizeof perm);
    pm_kv_source s;
    PM_OK_OR_FAIL(pm_kv_source_sorted(b, p, 6, 4, &s));
    pm_merge_options mo = {t, &l, 0, NULL, 0};
    pm_merge_reader *m;
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, &s, 1, &mo));
    pm_merge_fn *fn = engine_of(0);
    pm_merge_iter_options io = {0, false, ot, &ol};
    pm_merge_iter *it;
    PM_OK_OR_FAIL(pm_merge_iter_new(&it, m, fn, t, &l, &io));
    const pm_batch *ob;
    PM_OK_OR_FAIL(pm_merge_iter_next(it, &ob));
    assert_non_null(ob);
    assert_int_equal(ob->num_rows, 3);
    pm_buf j = PM_BUF_INIT;
    for (int64_t i = 0; i < 3; i++) {
        PM_OK_OR_FAIL(pm_batch_format_row_json(ob, i, &j));
        PM_OK_OR_FAIL(pm_buf_append_byte(&j, '\n'));
    }
    PM_OK_OR_FAIL(pm_buf_append_byte(&j, 0));
    assert_string_equal((char *)j.data,
                        "{\"k\":0,\"v\":6,\"s\":\"u\",\"_KEY_k\":0,\"_VALUE_KIND\":0,\"_SEQUENCE_NUMBER\":9}\n"
                        "{\"k\":1,\"v\":5,\"s\":\"v\",\"_KEY_k\":1,\"_VALUE_KIND\":0,\"_SEQUENCE_NUMBER\":5}\n"
                        "{\"k\":2,\"v\":3,\"s\":\"z\",\"_KEY_k\":2,\"_VALUE_KIND\":0,\"_SEQUENCE_NUMBER\":5}\n");
    pm_buf_free(&j);
    PM_OK_OR_FAIL(pm_merge_iter_next(it, &ob));
    assert_null(ob);
    PM_OK_OR_FAIL(pm_merge_iter_next(it, &ob));
    assert_null(ob);
    pm_merge_iter_free(it);
    pm_merge_fn_free(fn);
    pm_kv_layout_clear(&ol);
    pm_kv_layout_clear(&l);
    pm_type_free(ot);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_iter),
        cmocka_unit_test(test_stable_sort_and_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
