/*
 * tests/unit/meta/test_paths.c — table paths, Hive escaping, partition value
 * strings (legacy toString and CAST rules), Java float/double/timestamp
 * formatting, bucket directories and new file names.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pm_test.h"
#include "meta/paths.h"

static pm_type T_INT = {.id = PM_TYPE_INT, .nullable = true};
static pm_type T_STRING = {.id = PM_TYPE_VARCHAR, .nullable = true, .length = PM_MAX_LENGTH};
static pm_type T_BOOL = {.id = PM_TYPE_BOOLEAN, .nullable = true};
static pm_type T_DATE = {.id = PM_TYPE_DATE, .nullable = true};
static pm_type T_TIME3 = {.id = PM_TYPE_TIME, .nullable = true, .precision = 3};
static pm_type T_TIME0 = {.id = PM_TYPE_TIME, .nullable = true, .precision = 0};
static pm_type T_TS6 = {.id = PM_TYPE_TIMESTAMP, .nullable = true, .precision = 6};
static pm_type T_TS9 = {.id = PM_TYPE_TIMESTAMP, .nullable = true, .precision = 9};
static pm_type T_TS3 = {.id = PM_TYPE_TIMESTAMP, .nullable = true, .precision = 3};
static pm_type T_LTZ6 = {.id = PM_TYPE_TIMESTAMP_LTZ, .nullable = true, .precision = 6};
static pm_type T_DEC = {.id = PM_TYPE_DECIMAL, .nullable = true, .precision = 10, .scale = 2};
static pm_type T_DEC0 = {.id = PM_TYPE_DECIMAL, .nullable = true, .precision = 10, .scale = 0};
static pm_type T_DEC3 = {.id = PM_TYPE_DECIMAL, .nullable = true, .precision = 10, .scale = 3};
static pm_type T_BIN = {.id = PM_TYPE_VARBINARY, .nullable = true, .length = PM_MAX_LENGTH};
static pm_type T_FLOAT = {.id = PM_TYPE_FLOAT, .nullable = true};
static pm_type T_DOUBLE = {.id = PM_TYPE_DOUBLE, .nullable = true};

static char *s_out;

static const char *to_str(const pm_type *t, pm_part_value v, bool legacy)
{
    free(s_out);
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_partition_value_to_string(t, &v, legacy, &b));
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 0));
    s_out = (char *)pm_buf_detach(&b, NULL);
    return s_out;
}

static pm_part_value vi(int64_t i) { pm_part_value v = {.v.i = i}; return v; }
static pm_part_value vts(int64_t ms, int32_t ns) { pm_part_value v = {.v.ts = {ms, ns}}; return v; }
static pm_part_value vdec(__int128 d) { pm_part_value v = {.v.dec = d}; return v; }
static pm_part_value vstr(const char *s)
{
    pm_part_value v = {.v.bytes = {(const uint8_t *)s, strlen(s)}};
    return v;
}

static void test_branch_and_files(void **state)
{
    (void)state;
    char *p;
    PM_OK_OR_FAIL(pm_branch_root("/w/db.db/t", "main", &p));
    assert_string_equal(p, "/w/db.db/t");
    free(p);
    PM_OK_OR_FAIL(pm_branch_root("/w/db.db/t", "test", &p));
    assert_string_equal(p, "/w/db.db/t/branch/branch-test");
    free(p);
    PM_EXPECT_ERR(pm_branch_root("/w/t", "", &p), PM_EINVALID);
    PM_OK_OR_FAIL(pm_snapshot_file_path("/t", 12, &p));
    assert_string_equal(p, "/t/snapshot/snapshot-12");
    free(p);
    PM_OK_OR_FAIL(pm_schema_file_path("/t/branch/branch-b", 0, &p));
    assert_string_equal(p, "/t/branch/branch-b/schema/schema-0");
    free(p);
}

static void test_escape(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    const char in[] = "a/b:c=d%e\"#'*?\\{}[]^\x01\x1f\x7f \xc3\xa9-_.~";
    PM_OK_OR_FAIL(pm_partition_escape(&b, in, sizeof in - 1));
    const char want[] = "a%2Fb%3Ac%3Dd%25e%22%23%27%2A%3F%5C%7B%7D%5B%5D%5E%01%1F%7F \xc3\xa9-_.~";
    assert_int_equal(b.len, sizeof want - 1);
    assert_memory_equal(b.data, want, b.len);
    pm_buf u = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_partition_unescape(&u, (const char *)b.data, b.len));
    assert_int_equal(u.len, sizeof in - 1);
    assert_memory_equal(u.data, in, u.len);
    pm_buf_clear(&u);
    PM_OK_OR_FAIL(pm_partition_unescape(&u, "%zz%4", 5)); /* invalid escapes stay */
    assert_memory_equal(u.data, "%zz%4", 5);
    PM_EXPECT_ERR(pm_partition_escape(&b, "", 0), PM_EINVALID);
    pm_buf_free(&b);
    pm_buf_free(&u);
}

static void test_java_numbers(void **state)
{
    (void)state;
    struct { double d; const char *s; } dv[] = {
        {1.0, "1.0"}, {0.1, "0.1"}, {1e7, "1.0E7"}, {9999999.0, "9999999.0"}, {1e-4, "1.0E-4"},
        {0.001, "0.001"}, {123456.789, "123456.789"}, {1.0 / 3, "0.3333333333333333"},
        {100.0, "100.0"}, {-2.5, "-2.5"}, {1.7976931348623157e308, "1.7976931348623157E308"},
        {4.9e-324, "4.9E-324"}, {-0.0, "-0.0"}, {0.0, "0.0"}, {12345678.9, "1.23456789E7"},
        {2e-3, "0.002"},
    };
    for (size_t i = 0; i < sizeof dv / sizeof *dv; i++) {
        pm_part_value v = {.v.d = dv[i].d};
        assert_string_equal(to_str(&T_DOUBLE, v, true), dv[i].s);
    }
    struct { float f; const char *s; } fv[] = {
        {0.1f, "0.1"}, {1.1f, "1.1"}, {3.4028235e38f, "3.4028235E38"}, {1e10f, "1.0E10"},
        {12345678.0f, "1.2345678E7"}, {-1.5f, "-1.5"}, {0.3f, "0.3"},
    };
    for (size_t i = 0; i < sizeof fv / sizeof *fv; i++) {
        pm_part_value v = {.v.f = fv[i].f};
        assert_string_equal(to_str(&T_FLOAT, v, true), fv[i].s);
    }
    assert_string_equal(to_str(&T_DEC, vdec(1234), true), "12.34");
    assert_string_equal(to_str(&T_DEC, vdec(-5), true), "-0.05");
    assert_string_equal(to_str(&T_DEC3, vdec(0), false), "0.000");
    assert_string_equal(to_str(&T_DEC0, vdec(-42), true), "-42");
    __int128 big = (__int128)99999999999999999LL * 1000000000000000000LL + 999999999999999999LL;
    pm_type t38 = {.id = PM_TYPE_DECIMAL, .precision = 38, .scale = 5};
    assert_string_equal(to_str(&t38, vdec(big), true), "999999999999999999999999999999.99999");
}

static void test_temporal(void **state)
{
    (void)state;
    /* 2024-05-14 01:02:03.004005 = 1715648523004 ms + 5000 ns (spec §7.3) */
    assert_string_equal(to_str(&T_TS6, vts(1715648523004, 5000), true), "2024-05-14T01:02:03.004005");
    assert_string_equal(to_str(&T_TS6, vts(1715648523004, 5000), false), "2024-05-14 01:02:03.004005");
    assert_string_equal(to_str(&T_TS9, vts(1715648523004, 5000), false),
                        "2024-05-14 01:02:03.004005000");
    assert_string_equal(to_str(&T_TS3, vts(1715648523004, 0), false), "2024-05-14 01:02:03.004");
    assert_string_equal(to_str(&T_TS3, vts(1715648523000, 0), false), "2024-05-14 01:02:03.000");
    assert_string_equal(to_str(&T_TS3, vts(1715648523004, 0), true), "2024-05-14T01:02:03.004");
    assert_string_equal(to_str(&T_TS6, vts(1715644800000, 0), true), "2024-05-14T00:00");
    assert_string_equal(to_str(&T_TS6, vts(1715644801000, 0), true), "2024-05-14T00:00:01");
    assert_string_equal(to_str(&T_TS9, vts(1715644800000, 1), true), "2024-05-14T00:00:00.000000001");
    assert_string_equal(to_str(&T_TS6, vts(-1, 0), true), "1969-12-31T23:59:59.999");
    assert_string_equal(to_str(&T_TS6, vts(-62167219200000LL - 86400000LL, 0), true),
                        "-0001-12-31T00:00");
    assert_string_equal(to_str(&T_TS6, vts(253402300800000LL, 0), true), "+10000-01-01T00:00");
    /* DATE: legacy = day number, cast = yyyy-MM-dd */
    assert_string_equal(to_str(&T_DATE, vi(19857), true), "19857");
    assert_string_equal(to_str(&T_DATE, vi(19857), false), "2024-05-14");
    assert_string_equal(to_str(&T_DATE, vi(-1), false), "1969-12-31");
    assert_string_equal(to_str(&T_DATE, vi(0), false), "1970-01-01");
    assert_string_equal(to_str(&T_DATE, vi(-719528), false), "0000-01-01");
    /* TIME */
    assert_string_equal(to_str(&T_TIME3, vi(3723004), true), "3723004");
    assert_string_equal(to_str(&T_TIME3, vi(3723004), false), "01:02:03.004");
    assert_string_equal(to_str(&T_TIME3, vi(3723120), false), "01:02:03.12");
    assert_string_equal(to_str(&T_TIME3, vi(3723000), false), "01:02:03.0");
    assert_string_equal(to_str(&T_TIME0, vi(3723004), false), "01:02:03");
    /* LTZ cast uses the local zone; legacy does not shift */
    char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    setenv("TZ", "XXX-8", 1); /* UTC+8 */
    tzset();
    assert_string_equal(to_str(&T_LTZ6, vts(1715648523004, 5000), false), "2024-05-14 09:02:03.004005");
    assert_string_equal(to_str(&T_LTZ6, vts(1715648523004, 5000), true), "2024-05-14T01:02:03.004005");
    if (old) {
        setenv("TZ", old, 1);
        free(old);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

static void test_other_types(void **state)
{
    (void)state;
    pm_part_value b = {.v.b = true};
    assert_string_equal(to_str(&T_BOOL, b, true), "true");
    b.v.b = false;
    assert_string_equal(to_str(&T_BOOL, b, false), "false");
    assert_string_equal(to_str(&T_INT, vi(-7), true), "-7");
    assert_string_equal(to_str(&T_STRING, vstr("2025-04-14"), true), "2025-04-14");
    assert_string_equal(to_str(&T_BIN, vstr("ab"), false), "ab");
    pm_buf out = PM_BUF_INIT;
    pm_part_value bin = vstr("ab");
    PM_EXPECT_ERR(pm_partition_value_to_string(&T_BIN, &bin, true, &out), PM_EUNSUPPORTED);
    pm_type arr = {.id = PM_TYPE_ARRAY, .element = &T_INT};
    PM_EXPECT_ERR(pm_partition_value_to_string(&arr, &bin, true, &out), PM_EUNSUPPORTED);
    pm_buf_free(&out);
}

static void test_partition_path(void **state)
{
    (void)state;
    pm_field fields[] = {{1, "dt", &T_STRING, NULL, NULL}, {2, "hr", &T_INT, NULL, NULL}};
    pm_type row = {.id = PM_TYPE_ROW, .nfields = 2, .fields = fields};
    pm_part_value vals[2] = {vstr("2025-04-14"), vi(10)};
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_partition_path(&row, vals, "__DEFAULT_PARTITION__", true, &b));
    assert_int_equal(b.len, strlen("dt=2025-04-14/hr=10/"));
    assert_memory_equal(b.data, "dt=2025-04-14/hr=10/", b.len);

    /* null and blank values → default name; escaping of names and values */
    pm_field f2[] = {{0, "f0", &T_STRING, NULL, NULL}, {1, "a=b", &T_STRING, NULL, NULL},
                     {2, "c", &T_STRING, NULL, NULL}};
    pm_type row2 = {.id = PM_TYPE_ROW, .nfields = 3, .fields = f2};
    pm_part_value v2[3] = {{.is_null = true}, vstr(" \t\xe3\x80\x80"), vstr("x/y")};
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_partition_path(&row2, v2, "__HIVE_DEFAULT_PARTITION__", true, &b));
    const char *want = "f0=__HIVE_DEFAULT_PARTITION__/a%3Db=__HIVE_DEFAULT_PARTITION__/c=x%2Fy/";
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.data, want, b.len);
    /* an empty default name cannot name a directory */
    pm_buf_clear(&b);
    PM_EXPECT_ERR(pm_partition_path(&row2, v2, "", true, &b), PM_EINVALID);
    pm_type empty = {.id = PM_TYPE_ROW};
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_partition_path(&empty, NULL, "d", true, &b));
    assert_int_equal(b.len, 0);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_bucket_dir_name(3, &b));
    PM_OK_OR_FAIL(pm_bucket_dir_name(PM_BUCKET_POSTPONE, &b));
    assert_memory_equal(b.data, "bucket-3bucket-postpone", b.len);
    pm_buf_free(&b);
}

static bool matches(const char *re, const char *s)
{
    regex_t r;
    assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
    bool m = regexec(&r, s, 0, NULL, 0) == 0;
    regfree(&r);
    return m;
}

#define UUID_RE "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"

static void test_factory(void **state)
{
    (void)state;
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    pm_field fields[] = {{1, "dt", &T_STRING, NULL, NULL}};
    pm_type row = {.id = PM_TYPE_ROW, .nfields = 1, .fields = fields};
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, "/w/db.db/t", &row, o));
    pm_part_value v = vstr("20240725");
    char *p;
    PM_OK_OR_FAIL(pm_path_factory_bucket_path(pf, &v, 0, &p));
    assert_string_equal(p, "/w/db.db/t/dt=20240725/bucket-0");
    free(p);
    PM_OK_OR_FAIL(pm_path_factory_new_manifest_name(pf, &p));
    assert_true(matches("^manifest-" UUID_RE "-0$", p));
    assert_non_null(strstr(p, pm_path_factory_uuid(pf)));
    free(p);
    PM_OK_OR_FAIL(pm_path_factory_new_manifest_name(pf, &p));
    assert_true(matches("^manifest-" UUID_RE "-1$", p));
    free(p);
    PM_OK_OR_FAIL(pm_path_factory_new_manifest_list_name(pf, &p));
    assert_true(matches("^manifest-list-" UUID_RE "-0$", p));
    free(p);
    PM_OK_OR_FAIL(pm_path_factory_new_index_manifest_name(pf, &p));
    assert_true(matches("^index-manifest-" UUID_RE "-0$", p));
    free(p);
    PM_OK_OR_FAIL(pm_path_factory_new_index_file_name(pf, &p));
    assert_true(matches("^index-" UUID_RE "-0$", p));
    free(p);
    PM_OK_OR_FAIL(pm_path_factory_new_stats_file_name(pf, &p));
    assert_true(matches("^stat-" UUID_RE "-0$", p));
    free(p);
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, "manifest-x-0", &p));
    assert_string_equal(p, "/w/db.db/t/manifest/manifest-x-0");
    free(p);
    PM_OK_OR_FAIL(pm_path_factory_index_path(pf, "index-x-0", &p));
    assert_string_equal(p, "/w/db.db/t/index/index-x-0");
    free(p);
    assert_false(pm_path_factory_index_in_data_dir(pf));
    PM_OK_OR_FAIL(pm_path_factory_check_writable(pf));
    /* the same bucket path from a serialized BinaryRow: arity 1, STRING "20240725" (8 bytes, var part) */
    uint8_t brow[4 + 8 + 8 + 8] = {0, 0, 0, 1};
    uint64_t slot = (uint64_t)16 << 32 | 8;
    memcpy(brow + 12, &slot, 8);
    memcpy(brow + 20, "20240725", 8);
    PM_OK_OR_FAIL(pm_path_factory_bucket_path_binrow(pf, brow, sizeof brow, 3, &p));
    assert_string_equal(p, "/w/db.db/t/dt=20240725/bucket-3");
    free(p);
    PM_EXPECT_ERR(pm_path_factory_bucket_path_binrow(pf, brow, 10, 3, &p), PM_ECORRUPT);
    pm_path_factory_free(pf);

    /* data-file.path-directory, unpartitioned, postpone bucket */
    PM_OK_OR_FAIL(pm_options_set(o, "data-file.path-directory", "data"));
    pm_type none = {.id = PM_TYPE_ROW};
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, "/t", &none, o));
    PM_OK_OR_FAIL(pm_path_factory_relative_bucket_path(pf, NULL, PM_BUCKET_POSTPONE, &p));
    assert_string_equal(p, "data/bucket-postpone");
    free(p);
    pm_path_factory_free(pf);

    /* external paths with a strategy: writing there is not supported yet */
    PM_OK_OR_FAIL(pm_options_set(o, "data-file.external-paths", "file:///tmp/ext"));
    PM_OK_OR_FAIL(pm_options_set(o, "data-file.external-paths.strategy", "round-robin"));
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, "/t", &none, o));
    PM_EXPECT_ERR(pm_path_factory_check_writable(pf), PM_EUNSUPPORTED);
    PM_OK_OR_FAIL(pm_path_factory_relative_bucket_path(pf, NULL, 0, &p)); /* reading still works */
    assert_string_equal(p, "data/bucket-0");
    free(p);
    pm_path_factory_free(pf);
    /* a bad option value surfaces when the factory is built */
    PM_OK_OR_FAIL(pm_options_set(o, "partition.legacy-name", "sometimes"));
    PM_EXPECT_ERR(pm_path_factory_new(&pf, "/t", &none, o), PM_EINVALID);
    pm_options_free(o);
}

static void test_data_file_names(void **state)
{
    (void)state;
    char *ext;
    struct { const char *fmt, *comp; bool inc; const char *want; } cases[] = {
        {"parquet", "zstd", false, ".parquet"}, {"parquet", "zstd", true, ".zst.parquet"},
        {"orc", "gzip", true, ".gz.orc"},       {"parquet", "none", true, ".parquet"},
        {"json", "gzip", false, ".json.gz"},    {"csv", "bzip2", false, ".csv.bz2"},
        {"avro", "lzo", true, ".lzo.avro"},     {"parquet", "", true, ".parquet"},
        {"parquet", "SNAPPY", true, ".snappy.parquet"}, {"json", "none", false, ".json"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        PM_OK_OR_FAIL(pm_data_file_extension(cases[i].fmt, cases[i].comp, cases[i].inc, &ext));
        assert_string_equal(ext, cases[i].want);
        free(ext);
    }
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    PM_OK_OR_FAIL(pm_options_set(o, "file.suffix.include.compression", "true"));
    PM_OK_OR_FAIL(pm_options_set(o, "data-file.prefix", "d-"));
    pm_data_file_namer n;
    PM_OK_OR_FAIL(pm_data_file_namer_init(&n, o, "parquet", "zstd"));
    char *a, *b, *c, *d, *idx;
    PM_OK_OR_FAIL(pm_data_file_namer_next_data(&n, &a));
    PM_OK_OR_FAIL(pm_data_file_namer_next_changelog(&n, &b));
    PM_OK_OR_FAIL(pm_data_file_namer_next_data(&n, &c));
    PM_OK_OR_FAIL(pm_data_file_namer_next_blob(&n, &d));
    PM_OK_OR_FAIL(pm_data_file_index_name(a, &idx));
    assert_true(matches("^d-" UUID_RE "-0\\.zst\\.parquet$", a));
    assert_true(matches("^changelog-" UUID_RE "-1\\.zst\\.parquet$", b));
    assert_true(matches("^d-" UUID_RE "-2\\.zst\\.parquet$", c));
    assert_true(matches("^d-" UUID_RE "-3\\.blob$", d));
    assert_true(matches("^d-" UUID_RE "-0\\.zst\\.parquet\\.index$", idx));
    assert_memory_equal(a + 2, n.uuid, 36); /* one uuid per namer */
    assert_memory_equal(c + 2, n.uuid, 36);
    free(a), free(b), free(c), free(d), free(idx);
    pm_data_file_namer_destroy(&n);
    pm_options_free(o);
}

static void teardown_all(void)
{
    free(s_out);
    s_out = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_branch_and_files),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_java_numbers),
        cmocka_unit_test(test_temporal),
        cmocka_unit_test(test_other_types),
        cmocka_unit_test(test_partition_path),
        cmocka_unit_test(test_factory),
        cmocka_unit_test(test_data_file_names),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    teardown_all();
    return rc;
}
