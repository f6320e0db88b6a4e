/*
 * tests/unit/table/test_catalog.c — filesystem catalog: databases, tables,
 * listing, drop with and without cascade, name validation.
 */
#include <string.h>

#include "pm_test.h"
#include "paimon/catalog.h"

static void make_spec(pm_table_spec *spec, pm_type **rt)
{
    PM_OK_OR_FAIL(pm_type_parse(rt, "ROW<id BIGINT NOT NULL, v STRING>"));
    pm_table_spec_init(spec);
    spec->row_type = *rt;
}

static void test_databases_and_tables(void **state)
{
    (void)state;
    char *wh = pm_test_tmpdir();
    pm_catalog *c;
    PM_OK_OR_FAIL(pm_catalog_open(&c, wh));
    char **names;
    size_t n;
    PM_OK_OR_FAIL(pm_catalog_list_databases(c, &names, &n));
    assert_int_equal(n, 0);
    pm_catalog_names_free(names, n);

    PM_OK_OR_FAIL(pm_catalog_create_database(c, "sales", false));
    PM_OK_OR_FAIL(pm_catalog_create_database(c, "ops", false));
    PM_EXPECT_ERR(pm_catalog_create_database(c, "sales", false), PM_EEXIST);
    PM_OK_OR_FAIL(pm_catalog_create_database(c, "sales", true));
    PM_EXPECT_ERR(pm_catalog_create_database(c, "a/b", false), PM_EINVALID);
    PM_EXPECT_ERR(pm_catalog_create_database(c, ".hidden", false), PM_EINVALID);
    PM_EXPECT_ERR(pm_catalog_create_database(c, "x.db", false), PM_EINVALID);
    PM_OK_OR_FAIL(pm_catalog_list_databases(c, &names, &n));
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "ops");
    assert_string_equal(names[1], "sales");
    pm_catalog_names_free(names, n);

    pm_type *rt;
    pm_table_spec spec;
    make_spec(&spec, &rt);
    PM_EXPECT_ERR(pm_catalog_create_table(c, "nodb", "t", &spec, false), PM_ENOTFOUND);
    PM_OK_OR_FAIL(pm_catalog_create_table(c, "sales", "orders", &spec, false));
    PM_OK_OR_FAIL(pm_catalog_create_table(c, "sales", "items", &spec, false));
    PM_EXPECT_ERR(pm_catalog_create_table(c, "sales", "orders", &spec, false), PM_EEXIST);
    PM_OK_OR_FAIL(pm_catalog_list_tables(c, "sales", &names, &n));
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "items");
    assert_string_equal(names[1], "orders");
    pm_catalog_names_free(names, n);
    PM_EXPECT_ERR(pm_catalog_list_tables(c, "nodb", &names, &n), PM_ENOTFOUND);

    pm_table *t;
    PM_OK_OR_FAIL(pm_catalog_get_table(c, "sales", "orders", &t));
    char *path;
    PM_OK_OR_FAIL(pm_catalog_table_path(c, "sales", "orders", &path));
    assert_string_equal(pm_table_path(t), path);
    free(path);
    pm_table_free(t);
    PM_EXPECT_ERR(pm_catalog_get_table(c, "sales", "nope", &t), PM_ENOTFOUND);

    PM_EXPECT_ERR(pm_catalog_drop_database(c, "sales", false, false), PM_EINVALID);
    PM_OK_OR_FAIL(pm_catalog_drop_table(c, "sales", "items", false));
    PM_EXPECT_ERR(pm_catalog_drop_table(c, "sales", "items", false), PM_ENOTFOUND);
    PM_OK_OR_FAIL(pm_catalog_drop_table(c, "sales", "items", true));
    PM_OK_OR_FAIL(pm_catalog_list_tables(c, "sales", &names, &n));
    assert_int_equal(n, 1);
    pm_catalog_names_free(names, n);
    PM_OK_OR_FAIL(pm_catalog_drop_database(c, "sales", false, true));
    PM_EXPECT_ERR(pm_catalog_drop_database(c, "sales", false, false), PM_ENOTFOUND);
    PM_OK_OR_FAIL(pm_catalog_drop_database(c, "sales", true, false));
    PM_OK_OR_FAIL(pm_catalog_drop_database(c, "ops", false, false));
    PM_OK_OR_FAIL(pm_catalog_list_databases(c, &names, &n));
    assert_int_equal(n, 0);
    pm_catalog_names_free(names, n);

    pm_type_free(rt);
    pm_catalog_free(c);
    pm_test_rmtree(wh);
    free(wh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_databases_and_tables)};
    return cmocka_run_group_tests_name("catalog", tests, NULL, NULL);
}
