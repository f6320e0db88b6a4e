/*
 * tests/unit/table/test_read_cast.c — schema-evolution casts (cast.h):
 * plans per type pair and values of every conversion family against
 * Paimon Java's results (CastExecutors rules), null handling, copies
 * with mixed validity, unsupported pairs.
 */
#include <stdlib.h>
#include <string.h>

#include "pm_test.h"
#include "table/cast.h"
#include "types/value.h"

static pm_type *ty(const char *s)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, s));
    return t;
}

/* Cast JSON values of type `from` to `to`; returns the JSON of each result
 * joined by '|'. */
static char *cast_json(const char *from, const char *to, const char *const *vals, size_t n, pm_code *err)
{
    pm_type *ft = ty(from), *tt = ty(to);
    pm_column *src = NULL, *dst = NULL;
    PM_OK_OR_FAIL(pm_column_new(&src, ft));
    PM_OK_OR_FAIL(pm_column_new(&dst, tt));
    for (size_t i = 0; i < n; i++) {
        json_error_t je;
        json_t *j = json_loads(vals[i], JSON_DECODE_ANY, &je);
        assert_non_null(j);
        PM_OK_OR_FAIL(pm_column_append_json(src, j));
        json_decref(j);
    }
    pm_cast_kind k;
    pm_buf scratch = PM_BUF_INIT, out = PM_BUF_INIT;
    pm_error *e = pm_cast_plan(ft, tt, &k);
    if (!e)
        e = pm_cast_append(src, dst, k, &scratch);
    char *res = NULL;
    if (e) {
        *err = pm_error_code(e);
        pm_error_free(e);
    } else {
        *err = PM_OK;
        assert_int_equal(dst->length, (int64_t)n);
        for (int64_t i = 0; i < dst->length; i++) {
            if (i)
                PM_OK_OR_FAIL(pm_buf_append_byte(&out, '|'));
            PM_OK_OR_FAIL(pm_column_format_json(dst, i, &out));
        }
        PM_OK_OR_FAIL(pm_buf_append_byte(&out, 0));
        res = strdup((const char *)out.data);
    }
    pm_buf_free(&scratch);
    pm_buf_free(&out);
    pm_column_release(src);
    pm_column_release(dst);
    pm_type_free(ft);
    pm_type_free(tt);
    return res;
}

#define CHECK(from, to, expect, ...)                                                        \
    do {                                                                                    \
        const char *v_[] = {__VA_ARGS__};                                                   \
        pm_code c_;                                                                         \
        char *r_ = cast_json(from, to, v_, sizeof v_ / sizeof v_[0], &c_);                  \
        if (!r_ || strcmp(r_, expect))                                                      \
            fail_msg("%s -> %s: got %s, want %s (code %d)", from, to, r_ ? r_ : "(error)", \
                     expect, (int)c_);                                                      \
        free(r_);                                                                           \
    } while (0)

#define CHECK_ERR(from, to, code, ...)                                       \
    do {                                                                     \
        const char *v_[] = {__VA_ARGS__};                                    \
        pm_code c_;                                                          \
        char *r_ = cast_json(from, to, v_, sizeof v_ / sizeof v_[0], &c_);   \
        if (r_ || c_ != (code))                                              \
            fail_msg("%s -> %s: expected error %d, got %s / %d", from, to,   \
                     (int)(code), r_ ? r_ : "(error)", (int)c_);             \
        free(r_);                                                            \
    } while (0)

static void test_plans(void **state)
{
    (void)state;
    struct {
        const char *a, *b;
        int kind; /* 0 identity, 1 copy, 2 convert, -1 unsupported */
    } cases[] = {
        {"INT", "INT NOT NULL", 0},
        {"STRING", "STRING", 0},
        {"CHAR(4)", "STRING", 1},
        {"VARCHAR(4)", "VARCHAR(9)", 2},
        {"STRING", "CHAR(3)", 2},
        {"INT", "BIGINT", 2},
        {"DECIMAL(5, 2)", "DECIMAL(6, 3)", 2},
        {"TIMESTAMP(3)", "TIMESTAMP(6)", 2},
        {"ARRAY<INT>", "ARRAY<INT NOT NULL>", 0},
        {"ARRAY<INT>", "ARRAY<BIGINT>", -1},
        {"ROW<a INT>", "INT", -1},
        {"FLOAT", "BOOLEAN", -1},
        {"DATE", "INT", -1},
        {"TIMESTAMP(3)", "SMALLINT", -1},
        {"BYTES", "INT", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pm_type *a = ty(cases[i].a), *b = ty(cases[i].b);
        pm_cast_kind k;
        pm_error *e = pm_cast_plan(a, b, &k);
        if (cases[i].kind < 0) {
            assert_non_null(e);
            assert_int_equal(pm_error_code(e), PM_EUNSUPPORTED);
            pm_error_free(e);
        } else {
            if (e)
                fail_msg("%s -> %s unexpectedly unsupported", cases[i].a, cases[i].b);
            if ((int)k != cases[i].kind)
                fail_msg("%s -> %s: kind %d, want %d", cases[i].a, cases[i].b, (int)k, cases[i].kind);
        }
        pm_type_free(a);
        pm_type_free(b);
    }
    /* relabel plans: physical layout only */
    const char *rel[][2] = {{"TIMESTAMP(3)", "TIMESTAMP(0)"},
                            {"TIMESTAMP(9)", "TIMESTAMP(9) WITH LOCAL TIME ZONE"},
                            {"STRING", "CHAR(10)"},
                            {"DECIMAL(10, 2)", "DECIMAL(5, 2)"},
                            {"BYTES", "BINARY(4)"}};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        pm_type *a = ty(rel[i][0]), *b = ty(rel[i][1]);
        pm_cast_kind k = PM_CAST_CONVERT;
        PM_OK_OR_FAIL(pm_cast_plan_relabel(a, b, &k));
        if (k != PM_CAST_COPY)
            fail_msg("relabel %s -> %s: kind %d", rel[i][0], rel[i][1], (int)k);
        pm_type_free(a);
        pm_type_free(b);
    }
}

static void test_numeric(void **state)
{
    (void)state;
    CHECK("INT", "BIGINT", "1|-2|null|2147483647", "1", "-2", "null", "2147483647");
    CHECK("BIGINT", "INT", "1|-1|0", "1", "4294967295", "4294967296");
    CHECK("INT", "TINYINT", "-56|127", "200", "127");
    CHECK("DOUBLE", "INT", "2147483647|-2147483648|0|-1", "1e20", "-1e20", "\"NaN\"", "-1.9");
    CHECK("DOUBLE", "BIGINT", "9223372036854775807|3", "1e30", "3.99");
    CHECK("DOUBLE", "SMALLINT", "-1", "65535.5");
    CHECK("INT", "DOUBLE", "3.0|-7.0", "3", "-7");
    CHECK("FLOAT", "DOUBLE", "0.5", "0.5");
    CHECK("DOUBLE", "FLOAT", "0.25", "0.25");
    CHECK("BOOLEAN", "INT", "1|0", "true", "false");
    CHECK("INT", "BOOLEAN", "true|false|true", "5", "0", "-1");
    CHECK("BOOLEAN", "DOUBLE", "1.0", "true");
}

static void test_decimal(void **state)
{
    (void)state;
    CHECK("DECIMAL(5, 2)", "DECIMAL(6, 3)", "\"0.020\"|\"-999.420\"|null", "\"0.02\"", "\"-999.42\"", "null");
    CHECK("DECIMAL(6, 3)", "DECIMAL(5, 2)", "\"1.24\"|\"-1.24\"|\"1.23\"", "\"1.235\"", "\"-1.235\"", "\"1.234\"");
    CHECK("DECIMAL(6, 2)", "DECIMAL(4, 2)", "null|\"99.99\"", "\"1000.00\"", "\"99.99\"");
    CHECK("DECIMAL(20, 2)", "DECIMAL(38, 10)", "\"-123456789012345678.9900000000\"", "\"-123456789012345678.99\"");
    CHECK("INT", "DECIMAL(5, 2)", "\"12.00\"|null", "12", "1000");
    CHECK("DOUBLE", "DECIMAL(10, 3)", "\"0.100\"|\"2.346\"", "0.1", "2.3455");
    CHECK("STRING", "DECIMAL(6, 2)", "\"1.50\"|\"1200.00\"|null", "\"1.5\"", "\"1.2e3\"", "\"123456\"");
    CHECK_ERR("STRING", "DECIMAL(6, 2)", PM_EINVALID, "\"abc\"");
    CHECK("DECIMAL(6, 2)", "INT", "-1|12", "\"-1.99\"", "\"12.5\"");
    CHECK("DECIMAL(6, 2)", "DOUBLE", "1.25", "\"1.25\"");
    CHECK("DECIMAL(6, 2)", "STRING", "\"-0.50\"", "\"-0.50\"");
}

static void test_strings(void **state)
{
    (void)state;
    CHECK("STRING", "INT", "100|-5|1|null", "\"100\"", "\"-5\"", "\"1.9\"", "null");
    CHECK_ERR("STRING", "INT", PM_EINVALID, "\"abc\"");
    CHECK_ERR("STRING", "TINYINT", PM_EINVALID, "\"300\"");
    CHECK_ERR("STRING", "INT", PM_EINVALID, "\" 1\"");
    CHECK("STRING", "BOOLEAN", "true|true|false|false|true|false", "\"True\"", "\"1\"", "\"nO\"", "\"0\"", "\"Yes\"",
          "\"F\"");
    CHECK_ERR("STRING", "BOOLEAN", PM_EINVALID, "\"maybe\"");
    CHECK("STRING", "DOUBLE", "1.5|\"NaN\"", "\"1.5\"", "\"NaN\"");
    CHECK("STRING", "DATE", "\"2024-01-05\"|\"1970-01-11\"", "\"2024-01-05\"", "\"10\"");
    CHECK("STRING", "TIMESTAMP(3)", "\"2024-11-26T15:28:31.123\"|\"1970-01-01T00:00:01.000\"",
          "\"2024-11-26 15:28:31.123456\"", "\"1000\"");
    CHECK("STRING", "TIMESTAMP(0)", "\"1970-01-01T00:00:05\"", "\"5\"");
    CHECK("STRING", "BYTES", "\"YWI=\"", "\"ab\"");
    CHECK("STRING", "CHAR(4)", "\"ab  \"|\"abcd\"", "\"ab\"", "\"abcdef\"");
    CHECK("STRING", "VARCHAR(2)", "\"h\xc3\xa9\"|\"x\"", "\"h\xc3\xa9llo\"", "\"x\"");
    CHECK("INT", "STRING", "\"42\"|\"-1\"", "42", "-1");
    CHECK("BIGINT", "CHAR(3)", "\"123\"|\"1  \"", "12345", "1");
    CHECK("DOUBLE", "STRING", "\"1.0E10\"|\"0.1\"|\"-0.0\"", "1e10", "0.1", "-0.0");
    CHECK("FLOAT", "STRING", "\"0.1\"", "0.1");
    CHECK("BOOLEAN", "STRING", "\"true\"", "true");
    CHECK("DATE", "STRING", "\"2024-01-05\"", "\"2024-01-05\"");
    CHECK("TIME(3)", "STRING", "\"01:02:03.004\"", "\"01:02:03.004\"");
    CHECK("BYTES", "STRING", "\"ab\"", "\"YWI=\"");
    CHECK("BYTES", "BINARY(4)", "\"YWIAAA==\"|\"YWJjZA==\"", "\"YWI=\"", "\"YWJjZGU=\"");
}

static void test_temporal(void **state)
{
    (void)state;
    setenv("TZ", "UTC", 1);
    /* TIMESTAMP → STRING: trailing zeros trimmed down to the precision */
    CHECK("TIMESTAMP(9)", "STRING", "\"2024-11-26 06:38:56.001000001\"|\"2024-11-26 15:28:31.000000000\"",
          "\"2024-11-26T06:38:56.001000001\"", "\"2024-11-26T15:28:31\"");
    CHECK("TIMESTAMP(3)", "STRING", "\"1970-01-01 00:00:00.500\"|\"1970-01-01 00:00:01.000\"", "\"1970-01-01T00:00:00.5\"",
          "\"1970-01-01T00:00:01\"");
    CHECK("TIMESTAMP(0)", "STRING", "\"1970-01-01 00:00:01\"", "\"1970-01-01T00:00:01\"");
    CHECK("DATE", "TIMESTAMP(9)", "\"1970-01-05T00:00:00.000000000\"|\"1957-11-01T00:00:00.000000000\"",
          "\"1970-01-05\"", "\"1957-11-01\"");
    CHECK("TIMESTAMP(3)", "DATE", "\"1969-12-31\"|\"1970-01-01\"", "\"1969-12-31T23:59:59.999\"",
          "\"1970-01-01T00:00:00.001\"");
    CHECK("TIMESTAMP(0)", "INT", "1|-1", "\"1970-01-01T00:00:01\"", "\"1969-12-31T23:59:59\"");
    CHECK("TIMESTAMP(3)", "BIGINT", "0", "\"1969-12-31T23:59:59.5\"");
    CHECK("INT", "TIMESTAMP(0)", "\"1970-01-01T00:00:01\"|\"1969-12-31T23:59:59\"", "1", "-1");
    CHECK_ERR("BIGINT", "TIMESTAMP(0)", PM_EINVALID, "9223372036854775807");
    CHECK_ERR("STRING", "TIMESTAMP(0)", PM_EINVALID, "\"99999999999999999\"");
    CHECK("INT", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "\"1970-01-01T00:00:02.000000Z\"", "2");
    CHECK("TIMESTAMP(9)", "TIMESTAMP(3)", "\"1970-01-01T00:00:00.001\"|\"1969-12-31T23:59:59.999\"",
          "\"1970-01-01T00:00:00.001999999\"", "\"1969-12-31T23:59:59.999\"");
    CHECK("TIMESTAMP(3)", "TIMESTAMP(0)", "\"1970-01-01T00:00:01\"|\"1969-12-31T23:59:59\"",
          "\"1970-01-01T00:00:01.999\"", "\"1969-12-31T23:59:58.5\"");
    CHECK("TIMESTAMP(9)", "TIMESTAMP(9) WITH LOCAL TIME ZONE", "\"1970-01-01T00:00:00.000000001Z\"",
          "\"1970-01-01T00:00:00.000000001\"");
    CHECK("TIMESTAMP(3)", "TIME(3)", "\"23:59:59.999\"", "\"1969-12-31T23:59:59.999\"");
    CHECK("TIME(0)", "TIMESTAMP(3)", "\"1970-01-01T01:00:00.000\"", "\"01:00:00\"");
    /* LTZ conversions follow the process time zone */
    setenv("TZ", "Asia/Shanghai", 1);
    CHECK("TIMESTAMP(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", "\"1969-12-31T16:00:00.000Z\"",
          "\"1970-01-01T00:00:00\"");
    CHECK("TIMESTAMP(3) WITH LOCAL TIME ZONE", "STRING", "\"1970-01-01 08:00:00.000\"", "\"1970-01-01T00:00:00Z\"");
    CHECK("TIMESTAMP(3) WITH LOCAL TIME ZONE", "DATE", "\"1970-01-01\"", "\"1969-12-31T20:00:00Z\"");
    setenv("TZ", "UTC", 1);
}

static void test_copy_validity(void **state)
{
    (void)state;
    /* COPY into a column that already has rows, mixing null / no-null batches */
    pm_type *a = ty("CHAR(4)"), *b = ty("STRING");
    pm_column *s1 = NULL, *s2 = NULL, *d = NULL;
    PM_OK_OR_FAIL(pm_column_new(&s1, a));
    PM_OK_OR_FAIL(pm_column_new(&s2, a));
    PM_OK_OR_FAIL(pm_column_new(&d, b));
    for (int i = 0; i < 5; i++)
        PM_OK_OR_FAIL(pm_column_append_bytes(s1, "abcd", (size_t)(i % 5)));
    for (int i = 0; i < 11; i++) {
        if (i % 3 == 0)
            PM_OK_OR_FAIL(pm_column_append_null(s2));
        else
            PM_OK_OR_FAIL(pm_column_append_bytes(s2, "xy", 2));
    }
    pm_cast_kind k;
    PM_OK_OR_FAIL(pm_cast_plan(a, b, &k));
    assert_int_equal(k, PM_CAST_COPY);
    pm_buf scratch = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_cast_append(s1, d, k, &scratch));
    PM_OK_OR_FAIL(pm_cast_append(s2, d, k, &scratch));
    PM_OK_OR_FAIL(pm_cast_append(s1, d, k, &scratch));
    assert_int_equal(d->length, 21);
    assert_int_equal(d->null_count, 4);
    for (int64_t i = 0; i < 21; i++) {
        size_t n;
        if (i < 5 || i >= 16) {
            assert_false(pm_column_is_null(d, i));
            pm_column_bytes(d, i, &n);
            assert_int_equal(n, (size_t)((i < 5 ? i : i - 16) % 5));
        } else {
            bool null = (i - 5) % 3 == 0;
            assert_int_equal(pm_column_is_null(d, i), null);
            if (!null) {
                const uint8_t *p = pm_column_bytes(d, i, &n);
                assert_int_equal(n, 2);
                assert_memory_equal(p, "xy", 2);
            }
        }
    }
    pm_buf_free(&scratch);
    pm_column_release(s1);
    pm_column_release(s2);
    pm_column_release(d);
    pm_type_free(a);
    pm_type_free(b);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plans),   cmocka_unit_test(test_numeric),  cmocka_unit_test(test_decimal),
        cmocka_unit_test(test_strings), cmocka_unit_test(test_temporal), cmocka_unit_test(test_copy_validity),
    };
    return cmocka_run_group_tests_name("table_read_cast", tests, NULL, NULL);
}
