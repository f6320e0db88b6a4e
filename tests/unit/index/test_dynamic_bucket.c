/*
 * tests/unit/index/test_dynamic_bucket.c — the dynamic-bucket assigner
 * (index/dynamic_bucket.h): known hashes keep their bucket, buckets fill
 * up to the target in ascending order, new buckets take the smallest free
 * id, loaded indexes count toward the target, several assigners own
 * disjoint buckets, max-buckets makes a full partition pick one of its
 * buckets, changed buckets report their whole hash sets, corrupt loads.
 */
#include <stdlib.h>

#include "index/dynamic_bucket.h"
#include "pm_test.h"

static pm_dyn_assigner *assigner(int64_t target, int32_t max, int32_t n)
{
    pm_dyn_options o = {target, max, n, 42};
    pm_dyn_assigner *a = NULL;
    PM_OK_OR_FAIL(pm_dyn_assigner_new(&a, &o));
    return a;
}

static int32_t assign(pm_dyn_assigner *a, pm_dyn_partition *p, int32_t h)
{
    int32_t b = -1;
    PM_OK_OR_FAIL(pm_dyn_assign(a, p, h, &b));
    return b;
}

static void test_fill_and_reuse(void **state)
{
    (void)state;
    pm_dyn_assigner *a = assigner(2, -1, 1);
    pm_dyn_partition *p = NULL;
    static const uint8_t part[] = {1, 2, 3};
    PM_OK_OR_FAIL(pm_dyn_partition_add(a, part, 3, 7, &p));
    assert_ptr_equal(pm_dyn_partition_find(a, part, 3), p);
    assert_null(pm_dyn_partition_find(a, part, 2));
    assert_int_equal(assign(a, p, 10), 0);
    assert_int_equal(assign(a, p, 11), 0);
    assert_int_equal(assign(a, p, 12), 1); /* bucket 0 is full */
    assert_int_equal(assign(a, p, 10), 0); /* known */
    assert_int_equal(assign(a, p, -5), 1);
    assert_int_equal(assign(a, p, 13), 2);
    int32_t *ch = NULL, *hs = NULL;
    size_t nch = 0, nh = 0;
    PM_OK_OR_FAIL(pm_dyn_partition_changed(p, &ch, &nch));
    assert_int_equal(nch, 3);
    PM_OK_OR_FAIL(pm_dyn_partition_hashes(p, 1, &hs, &nh));
    assert_int_equal(nh, 2);
    assert_int_equal(hs[0], -5);
    assert_int_equal(hs[1], 12);
    free(ch);
    free(hs);
    pm_dyn_partition_mark_written(p, 0);
    PM_OK_OR_FAIL(pm_dyn_partition_changed(p, &ch, &nch));
    assert_int_equal(nch, 2);
    free(ch);
    pm_dyn_assigner_free(a);
}

static void test_loaded_index(void **state)
{
    (void)state;
    pm_dyn_assigner *a = assigner(3, -1, 1);
    pm_dyn_partition *p = NULL;
    PM_OK_OR_FAIL(pm_dyn_partition_add(a, NULL, 0, 0, &p));
    int32_t b0[] = {1, 2, 3}, b2[] = {7};
    PM_OK_OR_FAIL(pm_dyn_partition_load(p, 0, b0, 3));
    PM_OK_OR_FAIL(pm_dyn_partition_load(p, 2, b2, 1));
    assert_int_equal(assign(a, p, 2), 0);
    assert_int_equal(assign(a, p, 7), 2);
    assert_int_equal(assign(a, p, 100), 2); /* bucket 0 is full, 2 has room */
    assert_int_equal(assign(a, p, 101), 2);
    assert_int_equal(assign(a, p, 102), 1); /* the smallest free id */
    int32_t *ch = NULL;
    size_t nch = 0;
    PM_OK_OR_FAIL(pm_dyn_partition_changed(p, &ch, &nch));
    assert_int_equal(nch, 2);
    assert_int_equal(ch[0], 1);
    assert_int_equal(ch[1], 2);
    free(ch);
    /* a hash in two buckets, a bucket twice, a load after assignment */
    pm_dyn_partition *q = NULL;
    PM_OK_OR_FAIL(pm_dyn_partition_add(a, (const uint8_t *)"q", 1, 1, &q));
    int32_t d1[] = {5}, d2[] = {5};
    PM_OK_OR_FAIL(pm_dyn_partition_load(q, 0, d1, 1));
    pm_error *e = pm_dyn_partition_load(q, 1, d2, 1);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_ECORRUPT);
    pm_error_free(e);
    e = pm_dyn_partition_load(q, 0, NULL, 0);
    assert_int_equal(pm_error_code(e), PM_ECORRUPT);
    pm_error_free(e);
    assign(a, q, 9);
    e = pm_dyn_partition_load(q, 3, NULL, 0);
    assert_non_null(e);
    pm_error_free(e);
    pm_dyn_assigner_free(a);
}

/* N assigners: a hash goes to assigner (|p % N| + |h % N|) % N, which
 * owns buckets b % N == its id. */
static void test_assigners(void **state)
{
    (void)state;
    pm_dyn_assigner *a = assigner(100, -1, 4);
    pm_dyn_partition *p = NULL;
    PM_OK_OR_FAIL(pm_dyn_partition_add(a, NULL, 0, 6, &p)); /* |6 % 4| = 2 */
    for (int32_t h = -20; h < 20; h++) {
        int32_t want = (2 + abs(h % 4)) % 4;
        assert_int_equal(assign(a, p, h), want);
    }
    pm_dyn_assigner_free(a);
}

static void test_max_buckets(void **state)
{
    (void)state;
    pm_dyn_assigner *a = assigner(1, 3, 1);
    pm_dyn_partition *p = NULL;
    PM_OK_OR_FAIL(pm_dyn_partition_add(a, NULL, 0, 0, &p));
    assert_int_equal(assign(a, p, 1), 0);
    assert_int_equal(assign(a, p, 2), 1);
    assert_int_equal(assign(a, p, 3), 2);
    for (int32_t h = 4; h < 40; h++) {
        int32_t b = assign(a, p, h);
        assert_true(b >= 0 && b <= 2);
        assert_int_equal(assign(a, p, h), b); /* and it stays */
    }
    pm_dyn_options bad = {0, -1, 1, 0};
    pm_dyn_assigner *x = NULL;
    pm_error *e = pm_dyn_assigner_new(&x, &bad);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    pm_error_free(e);
    bad.target_rows = 1;
    bad.max_buckets = 0;
    e = pm_dyn_assigner_new(&x, &bad);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    pm_error_free(e);
    pm_dyn_assigner_free(a);
}

/* Many hashes: the table grows, every hash keeps its bucket. */
static void test_many(void **state)
{
    (void)state;
    pm_dyn_assigner *a = assigner(1000, -1, 1);
    pm_dyn_partition *p = NULL;
    PM_OK_OR_FAIL(pm_dyn_partition_add(a, NULL, 0, 0, &p));
    for (int32_t h = 0; h < 20000; h++)
        assert_int_equal(assign(a, p, h * 7919), h / 1000);
    for (int32_t h = 0; h < 20000; h += 37)
        assert_int_equal(assign(a, p, h * 7919), h / 1000);
    pm_dyn_assigner_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_and_reuse),
        cmocka_unit_test(test_loaded_index),
        cmocka_unit_test(test_assigners),
        cmocka_unit_test(test_max_buckets),
        cmocka_unit_test(test_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
