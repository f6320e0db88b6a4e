/*
 * tests/unit/base/test_fault.c — the fault-injection lookup (base/fault.h):
 * unset, one name, a comma-separated list, no prefix or substring matches.
 * The unit tests build without NDEBUG, so points are live.
 */
#include <stdlib.h>

#include "base/fault.h"
#include "pm_test.h"

static void test_unset_and_empty(void **state)
{
    (void)state;
    unsetenv("PAIMON_FAULT_INJECT");
    assert_false(pm_fault("writer-open"));
    setenv("PAIMON_FAULT_INJECT", "", 1);
    assert_false(pm_fault("writer-open"));
    assert_false(pm_fault(""));
    unsetenv("PAIMON_FAULT_INJECT");
}

static void test_list(void **state)
{
    (void)state;
    setenv("PAIMON_FAULT_INJECT", "writer-open", 1);
    assert_true(pm_fault("writer-open"));
    assert_false(pm_fault("writer-close"));
    setenv("PAIMON_FAULT_INJECT", "commit-before-publish,writer-close", 1);
    assert_true(pm_fault("commit-before-publish"));
    assert_true(pm_fault("writer-close"));
    assert_false(pm_fault("writer-open"));
    /* whole items only: no prefixes, suffixes or case folding */
    assert_false(pm_fault("commit"));
    assert_false(pm_fault("writer-close-x"));
    assert_false(pm_fault("compact-commit-before-publish"));
    assert_false(pm_fault("Writer-Close"));
    setenv("PAIMON_FAULT_INJECT", ",writer-open,,", 1);
    assert_true(pm_fault("writer-open"));
    assert_false(pm_fault(NULL));
    unsetenv("PAIMON_FAULT_INJECT");
    assert_false(pm_fault("writer-open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unset_and_empty),
        cmocka_unit_test(test_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
