/*
 * tests/unit/base/test_compare.c — Java-order comparisons (base/compare.h).
 */
#include <math.h>

#include "base/compare.h"
#include "pm_test.h"

static void test_java_double(void **state)
{
    (void)state;
    assert_int_equal(pm_cmp_java_double(1.0, 2.0), -1);
    assert_int_equal(pm_cmp_java_double(2.0, 1.0), 1);
    assert_int_equal(pm_cmp_java_double(3.5, 3.5), 0);
    assert_int_equal(pm_cmp_java_double(-0.0, 0.0), -1);
    assert_int_equal(pm_cmp_java_double(0.0, -0.0), 1);
    assert_int_equal(pm_cmp_java_double(NAN, INFINITY), 1);
    assert_int_equal(pm_cmp_java_double(-INFINITY, NAN), -1);
    assert_int_equal(pm_cmp_java_double(NAN, NAN), 0);
}

static void test_bytes(void **state)
{
    (void)state;
    const uint8_t a[] = {1, 2, 3}, b[] = {1, 2, 0xff};
    assert_int_equal(pm_cmp_bytes(a, 3, b, 3), -1); /* unsigned */
    assert_int_equal(pm_cmp_bytes(b, 3, a, 3), 1);
    assert_int_equal(pm_cmp_bytes(a, 2, a, 3), -1); /* prefix first */
    assert_int_equal(pm_cmp_bytes(a, 3, a, 2), 1);
    assert_int_equal(pm_cmp_bytes(a, 3, a, 3), 0);
    assert_int_equal(pm_cmp_bytes(NULL, 0, NULL, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_java_double),
        cmocka_unit_test(test_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
