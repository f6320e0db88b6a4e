/* tests/unit/support/empty.c — keeps the support library non-empty. */
int pm_test_support_anchor;
