/*
 * tests/unit/api/test_api_read_filter.c — pm_read_options.filter and
 * pm_reader_files_skipped through the public API: = / IN / AND rows on
 * append and primary-key tables (after the merge), the comparison
 * operators (<> != < <= > >=: nulls never match, Java's order of floats,
 * strings by bytes, dates and decimals by value; files are never skipped
 * for them), projections that leave
 * the filter's columns out, every literal form, file indexes that skip
 * files (bloom filter, bitmap, bsi, range bitmap; embedded and sidecar)
 * giving the same rows as a read without them (file-index.read.enabled=
 * false), version 1 options without the field, and the errors of bad
 * filters.
 */
#include "api_test_util.h"

static char *read_filtered(pm_table *t, const char *filter, const char *const *cols, size_t ncols,
                           size_t *skipped)
{
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.filter = filter;
    o.columns = cols;
    o.ncolumns = ncols;
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_read(&r, t, &o));
    char *s = api_read_all(r);
    if (skipped)
        *skipped = pm_reader_files_skipped(r);
    pm_reader_free(r);
    return s;
}

/* Each filter is refused with PM_EINVALID. */
static void expect_bad_filters(pm_table *t, const char *const *bad, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pm_read_options b = PM_READ_OPTIONS_INIT;
        b.filter = bad[i];
        pm_reader *r = NULL;
        pm_error *e = pm_table_read(&r, t, &b);
        if (!e) {
            print_error("filter '%s' was accepted\n", bad[i]);
            fail();
        }
        assert_int_equal(pm_error_root_code(e), PM_EINVALID);
        pm_error_free(e);
    }
}

static void test_rows(void **state)
{
    (void)state;
    char *path = api_path(dir, "rows");
    api_create(path, "id INT NOT NULL, s STRING, d DOUBLE, day DATE, dec DECIMAL(5,2), ok BOOLEAN, `odd name` BIGINT",
               NULL, NULL, (const char *[]){"bucket=-1"}, 1);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    api_write_json(t,
                   "{\"id\":1,\"s\":\"a\",\"d\":1.5,\"day\":\"2024-01-01\",\"dec\":\"1.10\",\"ok\":true,\"odd name\":7}\n"
                   "{\"id\":2,\"s\":\"it's\",\"d\":\"NaN\",\"day\":\"2024-01-02\",\"dec\":\"-2.00\",\"ok\":false}\n"
                   "{\"id\":3,\"s\":null,\"d\":-0.0,\"day\":null,\"dec\":null,\"ok\":null,\"odd name\":7}\n",
                   NULL);
    char *s = read_filtered(t, "id = 2", NULL, 0, NULL);
    assert_int_equal(api_count_lines(s), 1);
    assert_non_null(strstr(s, "\"id\":2"));
    free(s);
    s = read_filtered(t, "s = 'it''s'", (const char *[]){"id"}, 1, NULL);
    assert_string_equal(s, "{\"id\":2}\n"); /* the filter's column is read but not returned */
    free(s);
    s = read_filtered(t, "d IN ('NaN', 0.0)", (const char *[]){"id"}, 1, NULL);
    assert_string_equal(s, "{\"id\":2}\n"); /* NaN = NaN, -0.0 <> 0.0 */
    free(s);
    s = read_filtered(t, "day = '2024-01-01' AND dec = 1.1 AND ok = TRUE", (const char *[]){"id"}, 1, NULL);
    assert_string_equal(s, "{\"id\":1}\n");
    free(s);
    s = read_filtered(t, "(\"odd name\" = 7) AND (id IN (1, 3))", (const char *[]){"id"}, 1, NULL);
    assert_string_equal(s, "{\"id\":1}\n{\"id\":3}\n");
    free(s);
    s = read_filtered(t, "id IN (4, 5)", NULL, 0, NULL);
    assert_string_equal(s, "");
    free(s);
    /* a version 1 struct has no filter */
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.version = 1;
    o.filter = "id = 99"; /* not looked at */
    s = api_read_table(t, &o);
    assert_int_equal(api_count_lines(s), 3);
    free(s);
    /* errors */
    const char *bad[] = {"id", "id = ", "id = 1 OR id = 2", "nope = 1", "id = 'x'", "id IN (1", "s = NULL",
                         "id = 1 AND", "(id = 1", "id == 1"};
    expect_bad_filters(t, bad, sizeof bad / sizeof bad[0]);
    pm_table_free(t);
    free(path);
}

static void test_primary_key_after_merge(void **state)
{
    (void)state;
    char *path = api_path(dir, "pk");
    api_create(path, "k INT NOT NULL, v STRING", NULL, "k", (const char *[]){"bucket=1"}, 1);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    api_write_json(t, "{\"k\":1,\"v\":\"old\"}\n{\"k\":2,\"v\":\"x\"}\n", NULL);
    api_write_json(t, "{\"k\":1,\"v\":\"new\"}\n", NULL);
    char *s = read_filtered(t, "v = 'old'", NULL, 0, NULL);
    assert_string_equal(s, ""); /* the old version is merged away before the filter */
    free(s);
    s = read_filtered(t, "v IN ('new', 'x')", (const char *[]){"k"}, 1, NULL);
    assert_string_equal(s, "{\"k\":1}\n{\"k\":2}\n");
    free(s);
    pm_table_free(t);
    free(path);
}

/* Each commit one file; the indexes skip the files without the value. */
static void check_index_skips(const char *name, const char *const *opts, size_t nopts)
{
    char *path = api_path(dir, name);
    api_create(path, "id INT, s STRING, b BIGINT", NULL, NULL, opts, nopts);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    /* file k holds s in {"k-0".."k-9"} and b in [100k, 100k + 9], id 1..3 in every file
     * (min/max statistics cannot exclude a file for id) */
    for (int k = 0; k < 4; k++) {
        char rows[4096];
        size_t n = 0;
        for (int i = 0; i < 10; i++)
            n += (size_t)snprintf(rows + n, sizeof rows - n, "{\"id\":%d,\"s\":\"%d-%d\",\"b\":%d}\n",
                                  i % 3 == 0 ? 1 : i % 3 == 1 ? 3 : 1, k, i, 100 * k + i);
        api_write_json(t, rows, NULL);
    }
    size_t skipped = 0;
    char *s = read_filtered(t, "s = '2-5'", (const char *[]){"b"}, 1, &skipped);
    assert_string_equal(s, "{\"b\":205}\n");
    assert_int_equal(skipped, 3);
    free(s);
    s = read_filtered(t, "b IN (5, 305)", (const char *[]){"s"}, 1, &skipped);
    assert_string_equal(s, "{\"s\":\"0-5\"}\n{\"s\":\"3-5\"}\n");
    assert_int_equal(skipped, 2);
    free(s);
    s = read_filtered(t, "s = 'none'", NULL, 0, &skipped);
    assert_string_equal(s, "");
    assert_int_equal(skipped, 4);
    free(s);
    /* AND: each atom alone matches file 1, together no row there */
    s = read_filtered(t, "s = '1-1' AND b = 102", NULL, 0, &skipped);
    assert_string_equal(s, "");
    free(s);
    /* the same rows without the indexes, and nothing skipped */
    const char *k[] = {"file-index.read.enabled"}, *v[] = {"false"};
    PM_OK_OR_FAIL(pm_table_alter_options(t, k, v, 1, NULL, 0));
    s = read_filtered(t, "s = '2-5'", (const char *[]){"b"}, 1, &skipped);
    assert_string_equal(s, "{\"b\":205}\n");
    assert_int_equal(skipped, 0);
    free(s);
    s = read_filtered(t, "b IN (5, 305)", (const char *[]){"s"}, 1, &skipped);
    assert_string_equal(s, "{\"s\":\"0-5\"}\n{\"s\":\"3-5\"}\n");
    assert_int_equal(skipped, 0);
    free(s);
    pm_table_free(t);
    free(path);
}

static void test_file_indexes_skip_files(void **state)
{
    (void)state;
    check_index_skips("bitmap", (const char *[]){"bucket=-1", "write-only=true", "file-index.bitmap.columns=s,b"}, 3);
    check_index_skips("bloom", (const char *[]){"bucket=-1", "write-only=true", "file-index.bloom-filter.columns=s,b",
                                                "file-index.bloom-filter.s.items=100",
                                                "file-index.bloom-filter.b.items=100"}, 5);
    check_index_skips("mixed", (const char *[]){"bucket=-1", "write-only=true", "file-index.bsi.columns=b",
                                                "file-index.range-bitmap.columns=s",
                                                "file-index.in-manifest-threshold=1B"}, 5);
}

/* The comparison operators: nulls never match; NaN is above every number,
 * -0.0 below 0.0 (Double.compare); strings by their bytes; dates and
 * decimals by value; booleans false < true. */
static void test_comparisons(void **state)
{
    (void)state;
    char *path = api_path(dir, "cmp");
    api_create(path, "id INT NOT NULL, s STRING, d DOUBLE, day DATE, dec DECIMAL(5,2), ok BOOLEAN", NULL, NULL,
               (const char *[]){"bucket=-1", "write-only=true", "file-index.bloom-filter.columns=id"}, 3);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    api_write_json(t,
                   "{\"id\":1,\"s\":\"a\",\"d\":1.5,\"day\":\"2024-01-01\",\"dec\":\"1.10\",\"ok\":true}\n"
                   "{\"id\":2,\"s\":\"ab\",\"d\":\"NaN\",\"day\":\"2024-01-02\",\"dec\":\"-2.00\",\"ok\":false}\n"
                   "{\"id\":3,\"s\":null,\"d\":-0.0,\"day\":null,\"dec\":null,\"ok\":null}\n"
                   "{\"id\":4,\"s\":\"b\",\"d\":0.0,\"day\":\"2023-12-31\",\"dec\":\"10.00\",\"ok\":true}\n",
                   NULL);
    static const struct {
        const char *filter, *ids;
    } cases[] = {
        {"id > 2", "3,4"},
        {"id >= 2 AND id < 4", "2,3"},
        {"id <= 1", "1"},
        {"id <> 2", "1,3,4"},
        {"id != 2 AND id != 3", "1,4"},
        {"s > 'a'", "2,4"},          /* 'ab' > 'a' (a prefix first); null never */
        {"s <> 'a'", "2,4"},         /* null never */
        {"d > 1.5", "2"},            /* NaN above every number */
        {"d < 0.0", "3"},            /* -0.0 < 0.0 */
        {"d >= 0.0 AND d < 'NaN'", "1,4"},
        {"day < '2024-01-01'", "4"},
        {"day >= '2024-01-01'", "1,2"},
        {"dec > 1.1", "4"},          /* by value, not by text */
        {"dec < 0", "2"},
        {"ok > FALSE", "1,4"},
        {"(id > 1) AND s IN ('ab', 'b') AND id<4", "2"},
        {"id > 99", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t skipped = 99;
        char *got = read_filtered(t, cases[i].filter, (const char *[]){"id"}, 1, &skipped);
        char want[64] = "";
        size_t n = 0;
        for (const char *p = cases[i].ids; *p; p++)
            if (*p != ',')
                n += (size_t)snprintf(want + n, sizeof want - n, "{\"id\":%c}\n", *p);
        if (strcmp(got, want)) {
            print_error("filter '%s': got '%s', want '%s'\n", cases[i].filter, got, want);
            fail();
        }
        assert_int_equal(skipped, 0); /* a bloom filter cannot exclude by order */
        free(got);
    }
    const char *bad[] = {"id >", "id => 1", "id < NULL", "id <> 'x'", "id >= 1 OR id < 0", "id ! 1"};
    expect_bad_filters(t, bad, sizeof bad / sizeof bad[0]);
    pm_table_free(t);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_comparisons),
        cmocka_unit_test(test_primary_key_after_merge),
        cmocka_unit_test(test_file_indexes_skip_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
