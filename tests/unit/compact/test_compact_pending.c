/*
 * tests/unit/compact/test_compact_pending.c — pending files per bucket
 * (pm_compact_pending) and bounded, bucket-scoped passes
 * (pm_compact_options version 2: has_bucket, max_input_files,
 * max_input_bytes), through the public API only: unaware and fixed-bucket
 * append tables, primary-key tables (level-0 prefix folded, newer level-0
 * files kept, rows unchanged), version-1 options still accepted, bad
 * values refused.
 */
#include <string.h>

#include "../api/api_test_util.h"
#include "paimon/compact.h"

static pm_table *open_table(const char *path)
{
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    return t;
}

static pm_compact_pending_list *pending(pm_table *t, const pm_compact_options *o)
{
    pm_compact_pending_list *l = NULL;
    PM_OK_OR_FAIL(pm_compact_pending(&l, t, o));
    return l;
}

static const pm_compact_pending_bucket *find(const pm_compact_pending_list *l, const char *part, int32_t bucket)
{
    for (size_t i = 0; i < pm_compact_pending_count(l); i++) {
        const pm_compact_pending_bucket *b = pm_compact_pending_get(l, i);
        if (!strcmp(b->partition, part) && b->bucket == bucket)
            return b;
    }
    return NULL;
}

static bool has_name(const pm_compact_pending_bucket *b, const char *name)
{
    for (size_t i = 0; i < b->npending; i++)
        if (!strcmp(b->pending[i].file_name, name))
            return true;
    return false;
}

static pm_compact_metrics run(pm_table *t, const pm_compact_options *o)
{
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    pm_compact_builder_free(b);
    return m;
}

/* Unaware-bucket table, partitions p0 and p1, 6 commits of one row each. */
static void test_unaware_prefix(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char *path = api_path(dir, "t");
    const char *opts[] = {"bucket=-1", "write-only=true"};
    api_create(path, "id BIGINT, pt STRING", "pt", NULL, opts, 2);
    pm_table *t = open_table(path);
    for (int c = 0; c < 6; c++) {
        char rows[128];
        snprintf(rows, sizeof rows, "{\"id\":%d,\"pt\":\"p0\"}\n{\"id\":%d,\"pt\":\"p1\"}\n", c, 100 + c);
        api_write_json(t, rows, NULL);
    }
    pm_compact_pending_list *l = pending(t, NULL);
    assert_string_equal(pm_compact_pending_mode(l), "append-unaware");
    assert_int_equal(pm_compact_pending_snapshot_id(l), 6);
    assert_int_equal(pm_compact_pending_count(l), 2);
    assert_null(pm_compact_pending_get(l, 2));
    const pm_compact_pending_bucket *b0 = find(l, "pt=p0", 0);
    assert_non_null(b0);
    assert_string_equal(b0->partition_filter, "pt=p0");
    assert_int_equal(b0->files, 6);
    assert_int_equal(b0->npending, 6);
    int64_t bytes = 0;
    for (size_t i = 0; i < b0->npending; i++) {
        bytes += b0->pending[i].file_size;
        if (i)
            assert_true(b0->pending[i - 1].min_sequence_number <= b0->pending[i].min_sequence_number);
        assert_true(b0->pending[i].has_creation_time);
    }
    assert_int_equal(bytes, b0->pending_bytes);
    assert_true(b0->oldest_pending_age_ms >= 0);
    char oldest[6][128];
    for (int i = 0; i < 6; i++)
        snprintf(oldest[i], sizeof oldest[i], "%s", b0->pending[i].file_name);
    int64_t two = b0->pending[0].file_size + b0->pending[1].file_size;

    /* bucket 0 of p0, at most 4 files: exactly the 4 oldest are folded */
    const char *p0[] = {"pt=p0"};
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.partitions = p0;
    o.npartitions = 1;
    o.has_bucket = true;
    o.bucket = 0;
    o.max_input_files = 4;
    pm_compact_metrics m = run(t, &o);
    assert_int_equal(m.files_removed, 4);
    assert_int_equal(m.files_added, 1);
    pm_compact_pending_list_free(l);
    l = pending(t, NULL);
    b0 = find(l, "pt=p0", 0);
    assert_int_equal(b0->files, 3);
    for (int i = 0; i < 4; i++)
        assert_false(has_name(b0, oldest[i]));
    assert_true(has_name(b0, oldest[4]) && has_name(b0, oldest[5]));
    assert_int_equal(find(l, "pt=p1", 0)->npending, 6); /* the other partition is untouched */
    pm_compact_pending_list_free(l);

    /* a byte budget of two files in p1 */
    const char *p1[] = {"pt=p1"};
    o.partitions = p1;
    o.max_input_files = 0;
    o.max_input_bytes = two;
    l = pending(t, &o);
    assert_int_equal(pm_compact_pending_count(l), 1);
    two = l ? pm_compact_pending_get(l, 0)->pending[0].file_size + pm_compact_pending_get(l, 0)->pending[1].file_size
            : 0;
    pm_compact_pending_list_free(l);
    o.max_input_bytes = two;
    m = run(t, &o);
    assert_int_equal(m.files_removed, 2);
    /* a bucket the table does not have: nothing */
    o.bucket = 3;
    m = run(t, &o);
    assert_int_equal(m.snapshot_id, 0);
    char *rows = api_read_table(t, NULL);
    assert_int_equal(api_count_lines(rows), 12);
    free(rows);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(path);
    free(dir);
}

/* Fixed buckets: the contiguous run from the oldest pending file. */
static void test_bucketed_prefix(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char *path = api_path(dir, "t");
    const char *opts[] = {"bucket=1", "bucket-key=id", "write-only=true"};
    api_create(path, "id BIGINT, s STRING", NULL, NULL, opts, 3);
    pm_table *t = open_table(path);
    for (int c = 0; c < 5; c++) {
        char row[64];
        snprintf(row, sizeof row, "{\"id\":%d,\"s\":\"x\"}\n", c);
        api_write_json(t, row, NULL);
    }
    pm_compact_pending_list *l = pending(t, NULL);
    assert_string_equal(pm_compact_pending_mode(l), "append-bucketed");
    assert_int_equal(pm_compact_pending_get(l, 0)->npending, 5);
    assert_null(pm_compact_pending_get(l, 0)->partition_filter);
    pm_compact_pending_list_free(l);
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.max_input_files = 3;
    pm_compact_metrics m = run(t, &o);
    assert_int_equal(m.files_removed, 3);
    l = pending(t, NULL);
    assert_int_equal(pm_compact_pending_get(l, 0)->files, 3);
    pm_compact_pending_list_free(l);
    char *rows = api_read_table(t, NULL);
    assert_int_equal(api_count_lines(rows), 5);
    free(rows);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(path);
    free(dir);
}

/* Primary keys: level-0 files are pending; a pass folds the oldest ones
 * only and the rows stay those of the last writes. */
static void test_pk_prefix(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char *path = api_path(dir, "t");
    const char *opts[] = {"bucket=1", "write-only=true"};
    api_create(path, "id BIGINT NOT NULL, v STRING", NULL, "id", opts, 2);
    pm_table *t = open_table(path);
    for (int c = 0; c < 5; c++) {
        char rows[128];
        snprintf(rows, sizeof rows, "{\"id\":1,\"v\":\"v%d\"}\n{\"id\":%d,\"v\":\"w\"}\n", c, 10 + c);
        api_write_json(t, rows, NULL);
    }
    pm_compact_pending_list *l = pending(t, NULL);
    assert_string_equal(pm_compact_pending_mode(l), "primary-key");
    const pm_compact_pending_bucket *b = pm_compact_pending_get(l, 0);
    assert_int_equal(b->npending, 5);
    assert_int_equal(b->max_level, 0);
    char newest[2][128];
    snprintf(newest[0], sizeof newest[0], "%s", b->pending[3].file_name);
    snprintf(newest[1], sizeof newest[1], "%s", b->pending[4].file_name);
    for (size_t i = 0; i < b->npending; i++)
        assert_int_equal(b->pending[i].level, 0);
    pm_compact_pending_list_free(l);
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.has_bucket = true;
    o.bucket = 0;
    o.max_input_files = 3;
    pm_compact_metrics m = run(t, &o);
    assert_int_equal(m.files_removed, 3);
    l = pending(t, NULL);
    b = pm_compact_pending_get(l, 0);
    assert_int_equal(b->npending, 2);
    assert_true(has_name(b, newest[0]) && has_name(b, newest[1]));
    assert_true(b->max_level > 0);
    pm_compact_pending_list_free(l);
    char *rows = api_read_table(t, NULL);
    assert_non_null(strstr(rows, "\"v\":\"v4\""));
    assert_null(strstr(rows, "\"v\":\"v3\""));
    assert_int_equal(api_count_lines(rows), 6);
    free(rows);
    /* the rest: one more pass folds the two newer level-0 files */
    m = run(t, &o);
    assert_int_equal(m.files_removed >= 2, 1);
    l = pending(t, NULL);
    assert_int_equal(pm_compact_pending_get(l, 0)->npending, 0);
    pm_compact_pending_list_free(l);
    rows = api_read_table(t, NULL);
    assert_non_null(strstr(rows, "\"v\":\"v4\""));
    assert_int_equal(api_count_lines(rows), 6);
    free(rows);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(path);
    free(dir);
}

/* Data-evolution tables: small files and column-version groups are
 * pending; a pass folds whole groups from the lowest row IDs. */
static void test_de_prefix(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char *path = api_path(dir, "t");
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                          "write-only=true"};
    api_create(path, "id BIGINT, v STRING", NULL, NULL, opts, 4);
    pm_table *t = open_table(path);
    for (int c = 0; c < 5; c++) {
        char rows[128];
        snprintf(rows, sizeof rows, "{\"id\":%d,\"v\":\"a\"}\n{\"id\":%d,\"v\":\"b\"}\n", c, 100 + c);
        api_write_json(t, rows, NULL);
    }
    pm_compact_pending_list *l = pending(t, NULL);
    assert_string_equal(pm_compact_pending_mode(l), "data-evolution");
    assert_int_equal(pm_compact_pending_get(l, 0)->npending, 5);
    pm_compact_pending_list_free(l);
    char *before = api_read_table(t, NULL);
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.max_input_files = 3;
    pm_compact_metrics m = run(t, &o);
    assert_int_equal(m.files_removed, 3);
    assert_int_equal(m.files_added, 1);
    l = pending(t, NULL);
    assert_int_equal(pm_compact_pending_get(l, 0)->files, 3);
    pm_compact_pending_list_free(l);
    o.max_input_files = 0;
    o.max_input_bytes = 1; /* the first group always */
    m = run(t, &o);
    assert_int_equal(m.snapshot_id, 0); /* one group of one file folds nothing */
    o.max_input_bytes = 0;
    o.max_input_files = 32;
    m = run(t, &o);
    assert_int_equal(m.files_removed, 3);
    char *after = api_read_table(t, NULL);
    assert_string_equal(before, after);
    free(before);
    free(after);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(path);
    free(dir);
}

static void test_options_checked(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char *path = api_path(dir, "t");
    const char *opts[] = {"bucket=-1"};
    api_create(path, "id BIGINT", NULL, NULL, opts, 1);
    pm_table *t = open_table(path);
    api_write_json(t, "{\"id\":1}\n", NULL);
    api_write_json(t, "{\"id\":2}\n", NULL);
    pm_compact_builder *b = NULL;
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.full = true;
    o.max_input_files = 2;
    pm_test_expect_error(pm_compact_builder_new(&b, t, &o), PM_EINVALID, "cannot be full");
    pm_compact_options_init(&o);
    o.has_bucket = true;
    o.bucket = -2;
    pm_test_expect_error(pm_compact_builder_new(&b, t, &o), PM_EINVALID, "bucket -2");
    pm_compact_options_init(&o);
    o.max_input_bytes = -1;
    PM_EXPECT_ERR(pm_compact_builder_new(&b, t, &o), PM_EINVALID);
    o.version = 3;
    PM_EXPECT_ERR(pm_compact_builder_new(&b, t, &o), PM_EINVALID);
    /* a version-1 caller: the fields after parallelism are not read */
    pm_compact_options v1 = PM_COMPACT_OPTIONS_INIT;
    v1.version = 1;
    v1.has_bucket = true;
    v1.bucket = -7;
    v1.max_input_files = 1;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &v1));
    pm_compact_builder_free(b);
    pm_compact_pending_list *l = NULL;
    PM_EXPECT_ERR(pm_compact_pending(&l, t, &o), PM_EINVALID);
    assert_null(l);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unaware_prefix),
        cmocka_unit_test(test_bucketed_prefix),
        cmocka_unit_test(test_pk_prefix),
        cmocka_unit_test(test_de_prefix),
        cmocka_unit_test(test_options_checked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
