/*
 * tests/unit/table/test_table_memo.c — the table handle's memo: claim,
 * put, abandon, a claimant waiting for another thread's value, eviction of
 * the oldest stored key, refusals.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "pm_test.h"
#include "table/table_internal.h"
#include "table/table_memo.h"
#include "write_test_util.h"

static void test_claim_put_abandon(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT>", NULL, NULL, 0);
    pm_buf v = PM_BUF_INIT;
    bool found = true;
    PM_OK_OR_FAIL(pm_table_memo_claim(t, "k", &v, &found));
    assert_false(found);
    PM_OK_OR_FAIL(pm_table_memo_put(t, "k", "abc", 3));
    PM_EXPECT_ERR(pm_table_memo_put(t, "k", "x", 1), PM_EINTERNAL); /* not claimed any more */
    PM_OK_OR_FAIL(pm_table_memo_claim(t, "k", &v, &found));
    assert_true(found);
    assert_int_equal(v.len, 3);
    assert_memory_equal(v.data, "abc", 3);
    /* abandoned: nothing stored, the next claimant computes */
    PM_OK_OR_FAIL(pm_table_memo_claim(t, "other", &v, &found));
    assert_false(found);
    pm_table_memo_abandon(t, "other");
    PM_OK_OR_FAIL(pm_table_memo_claim(t, "other", &v, &found));
    assert_false(found);
    PM_OK_OR_FAIL(pm_table_memo_put(t, "other", "", 0));
    /* more keys than slots: the oldest stored gives way */
    for (int i = 0; i < PM_TABLE_MEMO_MAX; i++) {
        char key[16];
        snprintf(key, sizeof key, "n%d", i);
        PM_OK_OR_FAIL(pm_table_memo_claim(t, key, &v, &found));
        assert_false(found);
        PM_OK_OR_FAIL(pm_table_memo_put(t, key, key, strlen(key)));
    }
    pm_buf_clear(&v);
    PM_OK_OR_FAIL(pm_table_memo_claim(t, "k", &v, &found));
    assert_false(found);
    PM_OK_OR_FAIL(pm_table_memo_claim(t, "n15", &v, &found));
    assert_true(found);
    assert_memory_equal(v.data, "n15", 3);
    pm_table_memo_abandon(t, "k");
    /* every slot claimed: refused */
    for (int i = 0; i < PM_TABLE_MEMO_MAX; i++) {
        char key[16];
        snprintf(key, sizeof key, "c%d", i);
        PM_OK_OR_FAIL(pm_table_memo_claim(t, key, &v, &found));
        assert_false(found);
    }
    PM_EXPECT_ERR(pm_table_memo_claim(t, "more", &v, &found), PM_EINTERNAL);
    pm_buf_free(&v);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

typedef struct waiter {
    pm_table *t;
    bool found;
    pm_buf v;
    pm_error *e;
} waiter;

static void *wait_claim(void *p)
{
    waiter *w = p;
    w->e = pm_table_memo_claim(w->t, "shared", &w->v, &w->found);
    return NULL;
}

/* Claimants of a key being computed wait: for the value when it is put,
 * or (abandoned) one of them computes it. */
static void test_waiters(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT>", NULL, NULL, 0);
    pm_buf v = PM_BUF_INIT;
    bool found = true;
    for (int round = 0; round < 2; round++) {
        PM_OK_OR_FAIL(pm_table_memo_claim(t, "shared", &v, &found));
        assert_false(found);
        waiter w[2];
        pthread_t th[2];
        for (int i = 0; i < 2; i++) {
            w[i] = (waiter){t, false, PM_BUF_INIT, NULL};
            assert_int_equal(pthread_create(&th[i], NULL, wait_claim, &w[i]), 0);
        }
        usleep(20000);
        if (round == 0)
            PM_OK_OR_FAIL(pm_table_memo_put(t, "shared", "1010", 4));
        else
            pm_table_memo_abandon(t, "shared");
        if (round == 1) {
            /* one waiter became the claimant; it stores, the other gets it */
            for (int k = 0; k < 200; k++) {
                pm_error *e = pm_table_memo_put(t, "shared", "0101", 4);
                if (!e)
                    break;
                pm_error_free(e);
                usleep(1000);
            }
        }
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        int got = 0;
        for (int i = 0; i < 2; i++) {
            PM_OK_OR_FAIL(w[i].e);
            if (w[i].found) {
                got++;
                assert_memory_equal(w[i].v.data, round ? "0101" : "1010", 4);
            }
            pm_buf_free(&w[i].v);
        }
        assert_int_equal(got, round ? 1 : 2);
        /* reset for the next round: the key is stored; use a fresh one */
        pm_buf_clear(&v);
        PM_OK_OR_FAIL(pm_table_memo_claim(t, "shared", &v, &found));
        assert_true(found);
        assert_memory_equal(v.data, round ? "0101" : "1010", 4);
        if (round == 0) {
            pm_table_free(t);
            t = wt_create(dir, "t2", "ROW<id BIGINT>", NULL, NULL, 0);
        }
        pm_buf_clear(&v);
    }
    pm_buf_free(&v);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim_put_abandon),
        cmocka_unit_test(test_waiters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
