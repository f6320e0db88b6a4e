/*
 * tests/unit/support/pm_test.h — shared helpers for cmocka unit tests.
 *
 * Include this instead of <cmocka.h>.  PM_OK_OR_FAIL(expr) fails the test
 * with the full error chain when a paimon call returns an error;
 * PM_EXPECT_ERR(expr, code) asserts a specific error code and frees it;
 * pm_test_expect_error also checks the message.
 * pm_test_tmpdir() makes a fresh temporary directory per test process;
 * pm_test_dir_setup / pm_test_dir_teardown do it for a cmocka group.
 * pm_test_xorshift64(&state) is a seeded xorshift64 step for tests that
 * draw reproducible random inputs.
 */
#ifndef PM_TEST_H
#define PM_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "paimon/error.h"

/* Next value of Marsaglia's xorshift64 (13, 7, 17) from *state (non-zero). */
static inline uint64_t pm_test_xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#define PM_OK_OR_FAIL(expr)                                              \
    do {                                                                 \
        pm_error *pm_t_e_ = (expr);                                      \
        if (pm_t_e_) {                                                   \
            char *pm_t_s_ = pm_error_format(pm_t_e_);                    \
            print_error("%s:%d: %s failed: %s\n", __FILE__, __LINE__,     \
                        #expr, pm_t_s_ ? pm_t_s_ : "?");                  \
            free(pm_t_s_);                                               \
            pm_error_free(pm_t_e_);                                      \
            fail();                                                      \
        }                                                                \
    } while (0)

#define PM_EXPECT_ERR(expr, code)                                        \
    do {                                                                 \
        pm_error *pm_t_e_ = (expr);                                      \
        if (!pm_t_e_) {                                                  \
            print_error("%s:%d: %s unexpectedly succeeded\n", __FILE__,   \
                        __LINE__, #expr);                                \
            fail();                                                      \
        }                                                                \
        assert_int_equal(pm_error_code(pm_t_e_), (code));                \
        pm_error_free(pm_t_e_);                                          \
    } while (0)

/* Fails the test unless e is an error of `code` whose whole message
 * (pm_error_format) contains `needle`; frees e. */
void pm_test_expect_error(pm_error *e, pm_code code, const char *needle);

/* A fresh directory under $TMPDIR, removed by pm_test_rmtree. Caller frees. */
char *pm_test_tmpdir(void);
/* cmocka group setup and teardown of one temporary directory, pm_test_dir:
 * made by the setup, removed by the teardown (kept and its path printed on
 * stderr when PM_KEEP_TMP is set). */
extern char *pm_test_dir;
int pm_test_dir_setup(void **state);
int pm_test_dir_teardown(void **state);
/* "<pm_test_dir>/<name>", malloc'd (the caller frees it); fails the test
 * when out of memory. */
char *pm_test_path(const char *name);
/* rm -rf path (test helper only). */
void pm_test_rmtree(const char *path);
/* Read a whole file; caller frees. NULL on failure. */
uint8_t *pm_test_read_file(const char *path, size_t *len);

#endif
