/*
 * tests/unit/table/test_table_open.c — create, open, reopen, errors.
 */
#include <string.h>
#include <sys/stat.h>

#include "pm_test.h"
#include "table/table_internal.h"

static void test_create_open(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/db.db/t", dir);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<id BIGINT NOT NULL, name STRING, dt STRING>"));
    const char *pk[] = {"dt"};
    const char *ok[] = {"bucket"}, *ov[] = {"-1"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, pk, 1, NULL, 0, ok, ov, 1, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    PM_EXPECT_ERR(pm_table_create(path, &spec, false), PM_EEXIST);
    PM_OK_OR_FAIL(pm_table_create(path, &spec, true));

    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    assert_string_equal(pm_table_branch(t), "main");
    assert_int_equal(pm_table_schema(t)->id, 0);
    assert_int_equal(t->partition_type->nfields, 1);
    assert_int_equal(pm_table_num_buckets(t), -1);
    const pm_schema *s0 = NULL;
    PM_OK_OR_FAIL(pm_table_schema_by_id(t, 0, &s0));
    assert_ptr_equal(s0, pm_table_schema(t));
    PM_EXPECT_ERR(pm_table_schema_by_id(t, 7, &s0), PM_ENOTFOUND);
    bool changed = true;
    PM_OK_OR_FAIL(pm_table_reload(t, &changed));
    assert_false(changed);
    pm_table_free(t);

    PM_EXPECT_ERR(pm_table_open(&t, dir, NULL), PM_ENOTFOUND);
    PM_EXPECT_ERR(pm_table_open(&t, path, "nobranch"), PM_ENOTFOUND);

    /* bad option value: nothing written */
    char path2[512];
    snprintf(path2, sizeof path2, "%s/db.db/t2", dir);
    const char *bk[] = {"bucket"}, *bv[] = {"many"};
    pm_table_spec bad = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, NULL, 0, bk, bv, 1, NULL};
    PM_EXPECT_ERR(pm_table_create(path2, &bad, false), PM_EINVALID);
    PM_EXPECT_ERR(pm_table_open(&t, path2, NULL), PM_ENOTFOUND);
    pm_type_free(rt);
    pm_test_rmtree(dir);
    free(dir);
}

/* Every refusal of the one validation pass happens before anything is
 * written: the table directory does not appear. */
static void expect_refused(const char *dir, const char *schema, const char *const *pk, size_t npk,
                           const char *key, const char *value)
{
    char path[512];
    snprintf(path, sizeof path, "%s/db.db/refused", dir);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, schema));
    const char *k[] = {key}, *v[] = {value};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, pk, npk, k, v, 1, NULL};
    pm_error *e = pm_table_create(path, &spec, false);
    if (!e) {
        print_error("create accepted %s=%s\n", key, value);
        fail();
    }
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    char *msg = pm_error_format(e);
    if (!strstr(msg, value)) {
        print_error("message does not name the value %s: %s\n", value, msg);
        fail();
    }
    free(msg);
    pm_error_free(e);
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
    pm_type_free(rt);
}

static void test_create_validates_options(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *append = "ROW<id BIGINT NOT NULL, v STRING, s BIGINT>";
    const char *pk[] = {"id"};
    expect_refused(dir, append, NULL, 0, "compaction.min.file-num", "-3");
    expect_refused(dir, append, NULL, 0, "bucket", "abc");
    expect_refused(dir, append, pk, 1, "merge-engine", "foo");
    expect_refused(dir, append, pk, 1, "changelog-producer", "bar");
    expect_refused(dir, append, pk, 1, "bucket", "0");
    expect_refused(dir, append, NULL, 0, "target-file-size", "0 b");
    expect_refused(dir, append, pk, 1, "sequence.field", "nope");
    expect_refused(dir, append, pk, 1, "rowkind.field", "nope");
    expect_refused(dir, append, NULL, 0, "bucket-key", "nope");
    /* a fixed-bucket append table needs a bucket key */
    expect_refused(dir, append, NULL, 0, "bucket", "4");
    /* unknown keys stay accepted */
    char path[512];
    snprintf(path, sizeof path, "%s/db.db/ok", dir);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, append));
    const char *k[] = {"my.own.option", "sequence.field"}, *v[] = {"anything", "s"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, pk, 1, k, v, 2, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    pm_table_free(t);
    pm_type_free(rt);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_create_open),
                                       cmocka_unit_test(test_create_validates_options)};
    return cmocka_run_group_tests_name("table_open", tests, NULL, NULL);
}
