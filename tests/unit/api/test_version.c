/*
 * tests/unit/api/test_version.c — pm_version / pm_abi_version agree with
 * the macros of paimon/version.h, and PM_VERSION is MAJOR.MINOR.PATCH.
 */
#include <stdio.h>
#include <string.h>

#include "pm_test.h"
#include "paimon/version.h"

static void test_version_matches_macros(void **state)
{
    (void)state;
    char expect[64];
    snprintf(expect, sizeof expect, "%d.%d.%d", PM_VERSION_MAJOR, PM_VERSION_MINOR, PM_VERSION_PATCH);
    assert_string_equal(PM_VERSION, expect);
    assert_string_equal(pm_version(), expect);
    /* A static string: the same pointer on every call. */
    assert_ptr_equal(pm_version(), pm_version());
}

static void test_abi_version(void **state)
{
    (void)state;
    assert_int_equal(pm_abi_version(), PM_ABI_VERSION);
    assert_true(PM_ABI_VERSION >= 0);
    assert_true(PM_VERSION_MAJOR >= 0 && PM_VERSION_MINOR >= 0 && PM_VERSION_PATCH >= 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_matches_macros),
        cmocka_unit_test(test_abi_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
