/*
 * tests/unit/lsm/test_lsm_interval.c — interval partitioning (a worked
 * example, then random interval sets checked against brute force: sections
 * are the connected overlap components in key order, every run is ordered
 * and non-overlapping, the run count of a section equals its maximum
 * overlap depth, each file appears once) and the compaction task plan
 * (rewrite of overlapping sections, upgrade of large files, small files
 * rewritten with their neighbours, a lone small file upgraded, max-level
 * delete rule, force-rewrite-all, expired records).
 */
#include <string.h>

#include "lsm/interval_partition.h"
#include "pm_test.h"
#include "types/normkey.h"

static void set_key(uint8_t **p, size_t *len, int64_t v)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_normkey_put_int(&b, v, 8, false, false));
    *p = pm_buf_detach(&b, len);
}

static pm_lsm_file *mk(const char *name, int level, int64_t min, int64_t max, int64_t size)
{
    pm_lsm_file *f = calloc(1, sizeof *f);
    f->meta.file_name = strdup(name);
    f->meta.level = level;
    f->meta.file_size = size;
    f->meta.delete_row_count = (pm_opt_long){true, 0};
    f->meta.min_key.has = f->meta.max_key.has = false;
    set_key(&f->min_key, &f->min_len, min);
    set_key(&f->max_key, &f->max_len, max);
    f->meta.min_sequence_number = min; /* reuse as readable bounds in asserts */
    f->meta.max_sequence_number = max;
    return f;
}

static void free_file(pm_lsm_file *f)
{
    pm_data_file_meta_clear(&f->meta);
    free(f->min_key);
    free(f->max_key);
    free(f);
}

static void test_worked_example(void **state)
{
    (void)state;
    pm_lsm_file *f[6] = {mk("a", 0, 1, 5, 1), mk("b", 0, 3, 8, 1), mk("c", 0, 9, 10, 1),
                         mk("d", 0, 6, 7, 1), mk("e", 0, 11, 15, 1), mk("g", 0, 12, 13, 1)};
    pm_iv_partition p;
    PM_OK_OR_FAIL(pm_interval_partition((const pm_lsm_file *const *)f, 6, &p));
    assert_int_equal(p.nsections, 3);
    /* section 1: runs a,d and b */
    assert_int_equal(p.sections[0].nruns, 2);
    assert_int_equal(p.sections[0].runs[0].nfiles, 2);
    assert_string_equal(p.sections[0].runs[0].files[0]->meta.file_name, "a");
    assert_string_equal(p.sections[0].runs[0].files[1]->meta.file_name, "d");
    assert_string_equal(p.sections[0].runs[1].files[0]->meta.file_name, "b");
    assert_int_equal(p.sections[1].nruns, 1);
    assert_string_equal(p.sections[1].runs[0].files[0]->meta.file_name, "c");
    assert_int_equal(p.sections[2].nruns, 2);
    pm_iv_partition_clear(&p);
    PM_OK_OR_FAIL(pm_interval_partition(NULL, 0, &p));
    assert_int_equal(p.nsections, 0);
    for (int i = 0; i < 6; i++)
        free_file(f[i]);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_random_partitions(void **state)
{
    (void)state;
    for (int iter = 0; iter < 2000; iter++) {
        size_t n = 1 + rnd() % 40;
        int span = 5 + (int)(rnd() % 200);
        pm_lsm_file *f[40];
        for (size_t i = 0; i < n; i++) {
            int64_t a = (int64_t)(rnd() % (uint64_t)span) - span / 2;
            int64_t len = (int64_t)(rnd() % 12);
            char name[32];
            snprintf(name, sizeof name, "f%zu", i);
            f[i] = mk(name, 0, a, a + len, 1);
        }
        pm_iv_partition p;
        PM_OK_OR_FAIL(pm_interval_partition((const pm_lsm_file *const *)f, n, &p));
        size_t seen = 0;
        int64_t prev_max = INT64_MIN;
        for (size_t s = 0; s < p.nsections; s++) {
            pm_iv_section *sec = &p.sections[s];
            int64_t smin = INT64_MAX, smax = INT64_MIN;
            assert_true(sec->nruns >= 1);
            for (size_t r = 0; r < sec->nruns; r++) {
                pm_iv_run *run = &sec->runs[r];
                assert_true(run->nfiles >= 1);
                for (size_t k = 0; k < run->nfiles; k++) {
                    const pm_lsm_file *x = run->files[k];
                    if (k)
                        assert_true(x->meta.min_sequence_number > run->files[k - 1]->meta.max_sequence_number);
                    if (x->meta.min_sequence_number < smin)
                        smin = x->meta.min_sequence_number;
                    if (x->meta.max_sequence_number > smax)
                        smax = x->meta.max_sequence_number;
                    seen++;
                }
            }
            assert_true(smin > prev_max); /* sections disjoint and in key order */
            prev_max = smax;
            /* maximum overlap depth inside the section = number of runs */
            size_t depth = 0;
            for (int64_t x = smin; x <= smax; x++) {
                size_t d = 0;
                for (size_t r = 0; r < sec->nruns; r++)
                    for (size_t k = 0; k < sec->runs[r].nfiles; k++) {
                        const pm_lsm_file *y = sec->runs[r].files[k];
                        d += y->meta.min_sequence_number <= x && x <= y->meta.max_sequence_number;
                    }
                if (d > depth)
                    depth = d;
            }
            assert_int_equal(depth, sec->nruns);
            /* connected: every point of [smin, smax] is covered */
            for (int64_t x = smin; x <= smax; x++) {
                bool cov = false;
                for (size_t r = 0; r < sec->nruns && !cov; r++)
                    for (size_t k = 0; k < sec->runs[r].nfiles && !cov; k++) {
                        const pm_lsm_file *y = sec->runs[r].files[k];
                        cov = y->meta.min_sequence_number <= x && x <= y->meta.max_sequence_number;
                    }
                assert_true(cov);
            }
        }
        assert_int_equal(seen, n);
        pm_iv_partition_clear(&p);
        for (size_t i = 0; i < n; i++)
            free_file(f[i]);
    }
}

static void expect_steps(const pm_task_plan *p, const char *want)
{
    char buf[512] = "";
    size_t k = 0;
    for (size_t i = 0; i < p->nsteps; i++) {
        const pm_task_step *s = &p->steps[i];
        if (s->kind == PM_STEP_UPGRADE) {
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%sU(%s)", i ? " " : "", s->file->meta.file_name);
            continue;
        }
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%sR(", i ? " " : "");
        for (size_t j = 0; j < s->nsections; j++) {
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s[", j ? "," : "");
            for (size_t r = 0; r < s->sections[j].nruns; r++) {
                k += (size_t)snprintf(buf + k, sizeof buf - k, "%s", r ? "|" : "");
                for (size_t q = 0; q < s->sections[j].runs[r].nfiles; q++)
                    k += (size_t)snprintf(buf + k, sizeof buf - k, "%s", s->sections[j].runs[r].files[q]->meta.file_name);
            }
            k += (size_t)snprintf(buf + k, sizeof buf - k, "]");
        }
        k += (size_t)snprintf(buf + k, sizeof buf - k, ")");
    }
    if (strcmp(buf, want)) {
        print_error("plan: got '%s' expected '%s'\n", buf, want);
        fail();
    }
}

static bool expired_e(void *ctx, const pm_lsm_file *f)
{
    (void)ctx;
    return strcmp(f->meta.file_name, "E") == 0;
}

static void test_task_plan(void **state)
{
    (void)state;
    pm_lsm_file *f[6] = {mk("A", 0, 0, 10, 100),  mk("B", 0, 5, 15, 100),  mk("C", 1, 20, 30, 1000),
                         mk("D", 1, 40, 50, 10),  mk("E", 1, 60, 70, 10),  mk("F", 2, 80, 90, 1000)};
    const pm_lsm_file *const *ff = (const pm_lsm_file *const *)f;
    pm_task_options o = {500, 2, 5, false, NULL, NULL};
    pm_task_plan p;
    PM_OK_OR_FAIL(pm_compact_task_plan(ff, 6, &o, &p));
    assert_int_equal(p.output_level, 2);
    expect_steps(&p, "R([A|B]) U(C) R([D],[E])");
    pm_task_plan_clear(&p);
    /* output = max level: files that may hold deletes are rewritten */
    o.max_level = 2;
    f[5]->meta.delete_row_count = (pm_opt_long){false, 0}; /* unknown → may hold deletes */
    f[2]->meta.delete_row_count = (pm_opt_long){true, 3};
    PM_OK_OR_FAIL(pm_compact_task_plan(ff, 6, &o, &p));
    expect_steps(&p, "R([A|B]) R([C]) R([D],[E]) R([F])");
    pm_task_plan_clear(&p);
    /* force-rewrite-all */
    o.max_level = 5;
    o.force_rewrite_all = true;
    PM_OK_OR_FAIL(pm_compact_task_plan(ff, 6, &o, &p));
    expect_steps(&p, "R([A|B]) R([C]) R([D],[E]) R([F])");
    pm_task_plan_clear(&p);
    o.force_rewrite_all = false;
    /* a lone small file is upgraded, not rewritten */
    PM_OK_OR_FAIL(pm_compact_task_plan(ff + 3, 1, &o, &p));
    expect_steps(&p, "U(D)");
    pm_task_plan_clear(&p);
    /* already at the output level: nothing to do */
    o.output_level = 1;
    PM_OK_OR_FAIL(pm_compact_task_plan(ff + 3, 1, &o, &p));
    expect_steps(&p, "");
    pm_task_plan_clear(&p);
    /* two small then the end: rewritten together */
    PM_OK_OR_FAIL(pm_compact_task_plan(ff + 3, 2, &o, &p));
    expect_steps(&p, "R([D],[E])");
    pm_task_plan_clear(&p);
    /* small, large, small: each lone small candidate is upgraded (or kept) */
    o.output_level = 3;
    /* key order C, D, E: C large alone, then D and E small together */
    const pm_lsm_file *mix0[3] = {f[3], f[2], f[4]};
    PM_OK_OR_FAIL(pm_compact_task_plan(mix0, 3, &o, &p));
    expect_steps(&p, "U(C) R([D],[E])");
    pm_task_plan_clear(&p);
    /* key order D (small), L (large), E (small) */
    pm_lsm_file *big = mk("L", 1, 55, 58, 1000);
    const pm_lsm_file *mix[3] = {f[4], big, f[3]};
    PM_OK_OR_FAIL(pm_compact_task_plan(mix, 3, &o, &p));
    expect_steps(&p, "U(D) U(L) U(E)");
    pm_task_plan_clear(&p);
    /* expired records force a rewrite of that file */
    o.expired = expired_e;
    PM_OK_OR_FAIL(pm_compact_task_plan(mix, 3, &o, &p));
    expect_steps(&p, "U(D) U(L) R([E])");
    pm_task_plan_clear(&p);
    o.expired = NULL;
    /* overlapping section followed by a lone small file: both rewritten together */
    const pm_lsm_file *ov[3] = {f[0], f[1], f[3]};
    PM_OK_OR_FAIL(pm_compact_task_plan(ov, 3, &o, &p));
    expect_steps(&p, "R([A|B],[D])");
    pm_task_plan_clear(&p);
    free_file(big);
    for (int i = 0; i < 6; i++)
        free_file(f[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_random_partitions),
        cmocka_unit_test(test_task_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
