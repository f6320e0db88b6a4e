/*
 * tests/unit/table/test_table_open.c — create, open, reopen, errors.
 */
#include <string.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_create_open)};
    return cmocka_run_group_tests_name("table_open", tests, NULL, NULL);
}
