/*
 * tests/unit/compact/test_de_bounded.c — the pending files and the bounded
 * prefix of data-evolution compaction (compact/de/de_rules.h
 * pm_de_pending, pm_de_bounded_prefix) as pure rules: small files and
 * column-version groups are pending, whole groups are taken in row order
 * while contiguous and within the bounds, dedicated files inside the range
 * come along.
 */
#include <string.h>

#include "compact/de/de_rules.h"
#include "pm_test.h"

#define T 100 /* target */

static void test_pending(void **state)
{
    (void)state;
    pm_de_file_info f[] = {
        {0, 10, 500, false},   /* large, alone: not pending */
        {10, 10, 50, false},   /* small */
        {20, 10, 500, false},  /* large, but a version of the next one */
        {20, 10, 500, false},
        {30, 10, 50, true},    /* dedicated: never pending */
    };
    bool p[5];
    PM_OK_OR_FAIL(pm_de_pending(f, 5, T, p));
    assert_false(p[0]);
    assert_true(p[1]);
    assert_true(p[2] && p[3]);
    assert_false(p[4]);
}

static void test_prefix(void **state)
{
    (void)state;
    pm_de_file_info f[] = {
        {0, 10, 500, false},   /* large, skipped */
        {10, 10, 50, false},   /* group A */
        {20, 5, 50, false},    /* group B: two versions */
        {20, 5, 40, false},
        {22, 2, 10, true},     /* dedicated inside B */
        {25, 5, 50, false},    /* group C */
        {40, 5, 50, false},    /* after a gap: never with C */
    };
    bool take[7];
    PM_OK_OR_FAIL(pm_de_bounded_prefix(f, 7, T, 0, 0, take));
    bool want[7] = {false, true, true, true, true, true, false};
    assert_memory_equal(take, want, sizeof want);
    PM_OK_OR_FAIL(pm_de_bounded_prefix(f, 7, T, 3, 0, take)); /* A + B (3 files), C would be the 4th */
    bool want3[7] = {false, true, true, true, true, false, false};
    assert_memory_equal(take, want3, sizeof want3);
    PM_OK_OR_FAIL(pm_de_bounded_prefix(f, 7, T, 2, 0, take)); /* B does not fit whole: A alone */
    bool want2[7] = {false, true, false, false, false, false, false};
    assert_memory_equal(take, want2, sizeof want2);
    PM_OK_OR_FAIL(pm_de_bounded_prefix(f, 7, T, 0, 60, take)); /* bytes: A (50); B (90) would pass 60 */
    assert_memory_equal(take, want2, sizeof want2);
    PM_OK_OR_FAIL(pm_de_bounded_prefix(f, 1, T, 0, 0, take)); /* nothing pending */
    assert_false(take[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending),
        cmocka_unit_test(test_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
