/*
 * tests/unit/base/test_buf_pool.c — the bounded pool of spare byte buffers
 * (base/buf_pool.h): smallest fit, the capacity bound, NULL pools,
 * borrowed buffers, sharing between threads.
 */
#include <pthread.h>

#include "base/buf_pool.h"
#include "pm_test.h"

static void filled(pm_buf *b, size_t cap)
{
    pm_buf_init(b);
    assert_null(pm_buf_reserve(b, cap));
    assert_null(pm_buf_append(b, "abc", 3));
}

static void test_take_smallest_fit(void **state)
{
    (void)state;
    pm_buf_pool *p;
    assert_null(pm_buf_pool_new(&p, 1 << 20));
    pm_buf a, b, c;
    filled(&a, 1000);
    filled(&b, 5000);
    filled(&c, 3000);
    size_t ca = a.cap, cb = b.cap, cc = c.cap;
    pm_buf_pool_give(p, &a);
    pm_buf_pool_give(p, &b);
    pm_buf_pool_give(p, &c);
    assert_null(a.data); /* given buffers become empty */
    assert_int_equal(a.cap, 0);
    assert_int_equal(pm_buf_pool_spare(p), ca + cb + cc);

    pm_buf t = PM_BUF_INIT;
    assert_true(pm_buf_pool_take(p, 2000, &t));
    assert_int_equal(t.cap, cc); /* the smallest spare that fits */
    assert_int_equal(t.len, 0);
    assert_int_equal(pm_buf_pool_spare(p), ca + cb);
    pm_buf t2 = PM_BUF_INIT;
    assert_false(pm_buf_pool_take(p, cb + 1, &t2)); /* none big enough: untouched */
    assert_null(t2.data);
    assert_false(pm_buf_pool_take(p, 10, &t)); /* t owns storage: refused */
    assert_int_equal(t.cap, cc);
    assert_true(pm_buf_pool_take(p, 10, &t2));
    assert_int_equal(t2.cap, ca);
    assert_null(pm_buf_append(&t2, "xyz", 3)); /* usable as any buffer */
    pm_buf_free(&t);
    pm_buf_free(&t2);
    pm_buf_pool_free(p); /* frees the spare left (b) */
}

static void test_capacity_bound(void **state)
{
    (void)state;
    pm_buf_pool *p;
    assert_null(pm_buf_pool_new(&p, 8192));
    pm_buf a, b;
    filled(&a, 6000);
    filled(&b, 6000);
    size_t ca = a.cap;
    pm_buf_pool_give(p, &a);
    pm_buf_pool_give(p, &b); /* over the bound: freed, not kept */
    assert_null(b.data);
    assert_int_equal(pm_buf_pool_spare(p), ca);
    pm_buf_pool_free(p);
}

static void test_trim(void **state)
{
    (void)state;
    pm_buf_pool *p;
    assert_null(pm_buf_pool_new(&p, 1 << 20));
    pm_buf a, b;
    filled(&a, 4000);
    filled(&b, 5000);
    pm_buf_pool_give(p, &a);
    pm_buf_pool_give(p, &b);
    assert_true(pm_buf_pool_spare(p) >= 9000);
    pm_buf_pool_trim(p); /* every spare freed, the pool stays usable */
    assert_int_equal(pm_buf_pool_spare(p), 0);
    pm_buf t = {0};
    assert_false(pm_buf_pool_take(p, 1, &t));
    filled(&a, 3000);
    size_t ca = a.cap;
    pm_buf_pool_give(p, &a);
    assert_int_equal(pm_buf_pool_spare(p), ca);
    assert_true(pm_buf_pool_take(p, 3000, &t));
    assert_int_equal(t.cap, ca);
    pm_buf_free(&t);
    pm_buf_pool_trim(NULL);
    pm_buf_pool_free(p);
}

static void test_null_pool_and_borrowed(void **state)
{
    (void)state;
    pm_buf a;
    filled(&a, 100);
    pm_buf_pool_give(NULL, &a); /* freed */
    assert_null(a.data);
    assert_int_equal(a.cap, 0);
    pm_buf t = PM_BUF_INIT;
    assert_false(pm_buf_pool_take(NULL, 1, &t));
    pm_buf_pool_free(NULL);

    pm_buf_pool *p;
    assert_null(pm_buf_pool_new(&p, 1 << 20));
    static const char bytes[] = "borrowed";
    pm_buf v;
    pm_buf_borrow(&v, bytes, sizeof bytes);
    pm_buf_pool_give(p, &v); /* only forgotten */
    assert_null(v.data);
    assert_int_equal(pm_buf_pool_spare(p), 0);
    pm_buf_pool_free(p);
}

typedef struct worker_arg {
    pm_buf_pool *p;
    int rounds;
} worker_arg;

static void *worker(void *arg)
{
    worker_arg *w = arg;
    for (int i = 0; i < w->rounds; i++) {
        pm_buf b = PM_BUF_INIT;
        if (!pm_buf_pool_take(w->p, 4096, &b) && pm_buf_reserve(&b, 4096))
            return (void *)1;
        if (b.cap < 4096 || pm_buf_append(&b, "x", 1))
            return (void *)1;
        pm_buf_pool_give(w->p, &b);
    }
    return NULL;
}

static void test_threads_share(void **state)
{
    (void)state;
    pm_buf_pool *p;
    assert_null(pm_buf_pool_new(&p, 1 << 20));
    pthread_t th[4];
    worker_arg w = {p, 2000};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, worker, &w), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        assert_null(r);
    }
    /* buffers went back and forth: some are spare, within the bound */
    assert_true(pm_buf_pool_spare(p) > 0);
    assert_true(pm_buf_pool_spare(p) <= (size_t)1 << 20);
    pm_buf_pool_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_smallest_fit),
        cmocka_unit_test(test_capacity_bound),
        cmocka_unit_test(test_trim),
        cmocka_unit_test(test_null_pool_and_borrowed),
        cmocka_unit_test(test_threads_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
