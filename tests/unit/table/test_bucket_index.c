/*
 * tests/unit/table/test_bucket_index.c — the writers' (partition, bucket)
 * hash index (table/bucket_index.h) and the sequence-number restore table
 * built on it (table/bucket_restore.h).
 */
#include <string.h>

#include "pm_test.h"
#include "table/bucket_index.h"
#include "table/bucket_restore.h"
#include "write_test_util.h"

/* A 12-byte "partition": arity prefix 1 and a distinct payload. */
static void make_part(uint8_t p[12], uint32_t v)
{
    memset(p, 0, 12);
    p[0] = 1;
    memcpy(p + 4, &v, sizeof v);
}

static void test_index_many_keys(void **state)
{
    (void)state;
    enum { N = 1000 };
    static uint8_t parts[N][12];
    pm_bucket_index ix;
    PM_OK_OR_FAIL(pm_bucket_index_init(&ix));
    for (int i = 0; i < N; i++) {
        make_part(parts[i], (uint32_t)(i / 4));
        uint64_t h = pm_bucket_hash(parts[i], 12, i % 4);
        assert_int_equal(pm_bucket_index_find(&ix, parts[i], 12, i % 4, h), -1);
        PM_OK_OR_FAIL(pm_bucket_index_add(&ix, parts[i], 12, i % 4, h, 3 * i));
    }
    assert_int_equal(ix.nkeys, N);
    assert_true(ix.nslots >= 2 * N);
    for (int i = 0; i < N; i++) {
        uint8_t q[12];
        make_part(q, (uint32_t)(i / 4)); /* equal bytes, other memory */
        assert_int_equal(pm_bucket_index_find(&ix, q, 12, i % 4, pm_bucket_hash(q, 12, i % 4)), 3 * i);
    }
    uint8_t q[12];
    make_part(q, 7);
    assert_int_equal(pm_bucket_index_find(&ix, q, 12, 9, pm_bucket_hash(q, 12, 9)), -1);
    assert_int_equal(pm_bucket_index_find(&ix, q, 11, 0, pm_bucket_hash(q, 11, 0)), -1);
    pm_bucket_index_free(&ix);
    pm_bucket_index_free(&ix); /* idempotent on a freed index */
}

static void test_hash_depends_on_bucket_and_bytes(void **state)
{
    (void)state;
    uint8_t a[12], b[12];
    make_part(a, 1);
    make_part(b, 2);
    assert_true(pm_bucket_hash(a, 12, 0) != pm_bucket_hash(a, 12, 1));
    assert_true(pm_bucket_hash(a, 12, 0) != pm_bucket_hash(b, 12, 0));
    assert_true(pm_bucket_hash(a, 12, 0) == pm_bucket_hash(a, 12, 0));
}

static void test_restore_merge_and_next_seq(void **state)
{
    (void)state;
    pm_bucket_restore r;
    memset(&r, 0, sizeof r);
    uint8_t p[12], other[12];
    make_part(p, 5);
    make_part(other, 6);
    PM_OK_OR_FAIL(pm_bucket_restore_add(&r, p, 12, 1, 2, 10));
    PM_OK_OR_FAIL(pm_bucket_restore_add(&r, p, 12, 1, 3, 40)); /* first total kept, larger seq */
    PM_OK_OR_FAIL(pm_bucket_restore_add(&r, p, 12, 1, 2, 20));
    PM_OK_OR_FAIL(pm_bucket_restore_add(&r, p, 12, 0, 2, 7));
    assert_int_equal(r.n, 2);
    assert_int_equal(r.entries[0].total_buckets, 2);
    assert_int_equal(r.entries[0].max_seq, 40);

    int64_t seq = -5;
    PM_OK_OR_FAIL(pm_bucket_restore_next_seq(&r, NULL, false, p, 12, 1, 2, &seq));
    assert_int_equal(seq, 41);
    PM_OK_OR_FAIL(pm_bucket_restore_next_seq(&r, NULL, false, p, 12, 0, 2, &seq));
    assert_int_equal(seq, 8);
    seq = -5;
    PM_OK_OR_FAIL(pm_bucket_restore_next_seq(&r, NULL, false, other, 12, 1, 2, &seq));
    assert_int_equal(seq, -5); /* no entry: left alone */
    pm_bucket_restore_free(&r);
    assert_int_equal(r.n, 0);
    assert_false(r.loaded);
}

static void test_restore_new_bucket_num(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=2", "bucket-key=a"};
    pm_table *t = wt_create(dir, "t", "ROW<a INT, b STRING>", NULL, opts, 2);
    pm_bucket_restore r;
    memset(&r, 0, sizeof r);
    uint8_t p[12];
    make_part(p, 0);
    p[0] = 0; /* unpartitioned: arity 0 */
    PM_OK_OR_FAIL(pm_bucket_restore_add(&r, p, 4, 1, 2, 3));
    int64_t seq = 0;
    pm_error *e = pm_bucket_restore_next_seq(&r, t, false, p, 4, 1, 4, &seq);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    assert_string_equal(pm_error_message(e), "try to write table with a new bucket num 4, but the previous "
                                             "bucket num is 2; overwrite the table to rescale it");
    pm_error_free(e);
    assert_int_equal(seq, 0);
    pm_bucket_restore_free(&r);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_many_keys),
        cmocka_unit_test(test_hash_depends_on_bucket_and_bytes),
        cmocka_unit_test(test_restore_merge_and_next_seq),
        cmocka_unit_test(test_restore_new_bucket_num),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
