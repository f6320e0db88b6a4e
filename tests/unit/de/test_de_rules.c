/*
 * tests/unit/de/test_de_rules.c — every boundary of the data-evolution
 * planning rules (compact/de/de_rules.h): a bin drains only when its weight
 * STRICTLY exceeds the target, a row-ID gap drains it, a group alone above
 * the target is isolated, min.file-num counts normal files (1 forces a
 * rewrite), every version of an aligned group stays together, dedicated
 * files never become inputs, split cuts are moved past dedicated files
 * (overlapping ones too), no split possible means no task from size alone,
 * and misaligned normal files are PM_ECORRUPT.
 */
#include <stdlib.h>
#include <string.h>

#include "compact/de/de_rules.h"
#include "pm_test.h"

static pm_de_rules rules(int64_t target, int64_t open_cost, int32_t min_files)
{
    pm_de_rules r = {target, open_cost, min_files, false, 2.0};
    return r;
}

static pm_de_file_info nf(int64_t first, int64_t rows, int64_t size)
{
    return (pm_de_file_info){first, rows, size, false};
}

static pm_de_file_info df(int64_t first, int64_t rows)
{
    return (pm_de_file_info){first, rows, 10, true};
}

static void expect_pick(const pm_de_pick *k, const size_t *files, size_t n, int64_t first, int64_t rows)
{
    assert_int_equal(k->nfiles, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(k->files[i], files[i]);
    assert_int_equal(k->first_row_id, first);
    assert_int_equal(k->rows, rows);
}

/* weight exactly the target does not drain; one byte more does */
static void test_strictly_exceeds(void **s)
{
    (void)s;
    pm_de_rules r = rules(100, 0, 2);
    pm_de_file_info f[] = {nf(0, 10, 50), nf(10, 10, 50), nf(20, 10, 50)};
    pm_de_picks p;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 3, &r, &p));
    /* 50 + 50 = 100 (not > 100): still one bin; + 50 → 150 > 100 drains all three */
    assert_int_equal(p.n, 1);
    expect_pick(&p.v[0], (size_t[]){0, 1, 2}, 3, 0, 30);
    pm_de_picks_free(&p);
    f[1].size = 51; /* 101 > 100 after two files */
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 3, &r, &p));
    assert_int_equal(p.n, 1); /* the third alone is below min 2 */
    expect_pick(&p.v[0], (size_t[]){0, 1}, 2, 0, 20);
    pm_de_picks_free(&p);
}

/* a gap in row IDs drains the bin */
static void test_gap_drains(void **s)
{
    (void)s;
    pm_de_rules r = rules(1000, 0, 2);
    pm_de_file_info f[] = {nf(0, 10, 1), nf(10, 10, 1), nf(25, 10, 1), nf(35, 5, 1)};
    pm_de_picks p;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 4, &r, &p));
    assert_int_equal(p.n, 2);
    expect_pick(&p.v[0], (size_t[]){0, 1}, 2, 0, 20);
    expect_pick(&p.v[1], (size_t[]){2, 3}, 2, 25, 15);
    pm_de_picks_free(&p);
}

/* a group whose weight alone exceeds the target is its own task */
static void test_isolated_group(void **s)
{
    (void)s;
    pm_de_rules r = rules(100, 0, 2);
    /* group [10,20) has two versions weighing 80 + 80 */
    pm_de_file_info f[] = {nf(0, 10, 10), nf(10, 10, 80), nf(10, 10, 80), nf(20, 10, 10), nf(30, 10, 10)};
    pm_de_picks p;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 5, &r, &p));
    /* [0] alone before it: below min 2, no task; the group; then [3,4] */
    assert_int_equal(p.n, 2);
    expect_pick(&p.v[0], (size_t[]){1, 2}, 2, 10, 10);
    expect_pick(&p.v[1], (size_t[]){3, 4}, 2, 20, 20);
    pm_de_picks_free(&p);
}

/* open-file cost is the floor of a file's weight */
static void test_open_cost_weight(void **s)
{
    (void)s;
    pm_de_rules r = rules(100, 60, 1);
    pm_de_file_info f[] = {nf(0, 10, 1), nf(10, 10, 1)};
    pm_de_picks p;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 2, &r, &p));
    /* 60 + 60 = 120 > 100: the bin drains after the second file */
    assert_int_equal(p.n, 1);
    expect_pick(&p.v[0], (size_t[]){0, 1}, 2, 0, 20);
    pm_de_picks_free(&p);
}

/* min.file-num 1 rewrites a single file; default-like 5 leaves 4 alone */
static void test_min_files(void **s)
{
    (void)s;
    pm_de_file_info f[] = {nf(0, 10, 1), nf(10, 10, 1), nf(20, 10, 1), nf(30, 10, 1)};
    pm_de_rules r = rules(1000, 0, 5);
    pm_de_picks p;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 4, &r, &p));
    assert_int_equal(p.n, 0);
    pm_de_picks_free(&p);
    r.min_files = 4;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 4, &r, &p));
    assert_int_equal(p.n, 1);
    pm_de_picks_free(&p);
    r.min_files = 1;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 1, &r, &p));
    assert_int_equal(p.n, 1);
    expect_pick(&p.v[0], (size_t[]){0}, 1, 0, 10);
    pm_de_picks_free(&p);
}

/* every version of a group is in the same task; dedicated files are never inputs */
static void test_versions_together_dedicated_aside(void **s)
{
    (void)s;
    pm_de_rules r = rules(1000, 0, 2);
    pm_de_file_info f[] = {nf(0, 10, 5), df(0, 6), nf(0, 10, 5), df(6, 4)};
    pm_de_picks p;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 4, &r, &p));
    assert_int_equal(p.n, 1);
    expect_pick(&p.v[0], (size_t[]){0, 2}, 2, 0, 10);
    pm_de_picks_free(&p);
}

/* normal files that overlap without the same range are corrupt */
static void test_misaligned(void **s)
{
    (void)s;
    pm_de_rules r = rules(1000, 0, 1);
    pm_de_file_info f[] = {nf(0, 10, 5), nf(5, 10, 5)};
    pm_de_picks p;
    PM_EXPECT_ERR(pm_de_plan_partition(f, 2, &r, &p), PM_ECORRUPT);
}

/* a large file is split even below min.file-num; cuts every
 * target × rows / size rows */
static void test_split_plain(void **s)
{
    (void)s;
    pm_de_rules r = rules(100, 0, 5);
    r.split_large = true;
    r.ratio = 2.0;
    pm_de_file_info f[] = {nf(0, 1000, 201)}; /* 201 > 200 */
    pm_de_picks p;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 1, &r, &p));
    assert_int_equal(p.n, 1);
    /* 100 * 1000 / 201 = 497.5 → 497 rows per output: cuts 497, 994 */
    assert_int_equal(p.v[0].ncuts, 2);
    assert_int_equal(p.v[0].cuts[0], 497);
    assert_int_equal(p.v[0].cuts[1], 994);
    pm_de_picks_free(&p);
    f[0].size = 200; /* not strictly larger than 200: no split, below min files */
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 1, &r, &p));
    assert_int_equal(p.n, 0);
    pm_de_picks_free(&p);
    r.ratio = 1.5; /* fractional ratio: 200 > 150 */
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 1, &r, &p));
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0].ncuts, 1);
    assert_int_equal(p.v[0].cuts[0], 500);
    pm_de_picks_free(&p);
}

/* a cut inside a dedicated file moves to its end, through overlapping ones */
static void test_split_cut_moved(void **s)
{
    (void)s;
    pm_de_file_info ded[] = {df(400, 200), df(550, 100)}; /* [400,600) and [550,650) */
    int64_t *cuts = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_de_split_cuts(0, 1000, 201, 100, ded, 2, &cuts, &n));
    /* 497 → inside [400,600) → 600 → inside [550,650) → 650; 994 stays */
    assert_int_equal(n, 2);
    assert_int_equal(cuts[0], 650);
    assert_int_equal(cuts[1], 994);
    free(cuts);
    /* a cut exactly at a dedicated file's start is safe */
    pm_de_file_info at[] = {df(497, 10)};
    PM_OK_OR_FAIL(pm_de_split_cuts(0, 1000, 201, 100, at, 1, &cuts, &n));
    assert_int_equal(n, 2);
    assert_int_equal(cuts[0], 497);
    free(cuts);
}

/* no split possible: size alone makes no task */
static void test_split_impossible(void **s)
{
    (void)s;
    pm_de_rules r = rules(100, 0, 5);
    r.split_large = true;
    pm_de_file_info f[] = {nf(0, 1000, 500), df(0, 1000)}; /* one blob file over the whole range */
    pm_de_picks p;
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 2, &r, &p));
    assert_int_equal(p.n, 0);
    pm_de_picks_free(&p);
    r.min_files = 1; /* still a normal (unsplit) merge candidate */
    PM_OK_OR_FAIL(pm_de_plan_partition(f, 2, &r, &p));
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0].ncuts, 0);
    pm_de_picks_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strictly_exceeds),
        cmocka_unit_test(test_gap_drains),
        cmocka_unit_test(test_isolated_group),
        cmocka_unit_test(test_open_cost_weight),
        cmocka_unit_test(test_min_files),
        cmocka_unit_test(test_versions_together_dedicated_aside),
        cmocka_unit_test(test_misaligned),
        cmocka_unit_test(test_split_plain),
        cmocka_unit_test(test_split_cut_moved),
        cmocka_unit_test(test_split_impossible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
