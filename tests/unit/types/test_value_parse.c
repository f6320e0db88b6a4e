/*
 * tests/unit/types/test_value_parse.c — values from JSON and text: the
 * inverse of the `paimon cat` encoding (format(parse(x)) == x for every
 * type), the extra accepted spellings, and errors that name the problem.
 */
#include <math.h>
#include <string.h>

#include "pm_test.h"
#include "types/column.h"
#include "types/value.h"

static pm_column *column(const char *type)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, type));
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    pm_type_free(t);
    return c;
}

static char *json_of(const pm_column *c, int64_t i)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_column_format_json(c, i, &b));
    const char *s;
    PM_OK_OR_FAIL(pm_buf_cstr(&b, &s));
    return (char *)pm_buf_detach(&b, NULL);
}

/* Append JSON text `in` to a column of `type` and expect it to print as `out`. */
static void json_case(const char *type, const char *in, const char *out)
{
    pm_column *c = column(type);
    json_error_t jerr;
    json_t *v = json_loads(in, JSON_DECODE_ANY, &jerr);
    if (!v) {
        print_error("bad test JSON %s: %s\n", in, jerr.text);
        fail();
    }
    pm_error *e = pm_column_append_json(c, v);
    if (e) {
        char *s = pm_error_format(e);
        print_error("%s <- %s failed: %s\n", type, in, s);
        fail();
    }
    char *got = json_of(c, 0);
    if (strcmp(got, out) != 0) {
        print_error("%s <- %s printed %s, want %s\n", type, in, got, out);
        fail();
    }
    free(got);
    json_decref(v);
    pm_column_release(c);
}

static void roundtrip(const char *type, const char *text) { json_case(type, text, text); }

/* Expect an error whose text contains `needle`. */
static void json_error_case(const char *type, const char *in, const char *needle)
{
    pm_column *c = column(type);
    json_t *v = json_loads(in, JSON_DECODE_ANY, NULL);
    assert_non_null(v);
    pm_error *e = pm_column_append_json(c, v);
    if (!e) {
        print_error("%s <- %s unexpectedly succeeded\n", type, in);
        fail();
    }
    assert_int_equal(pm_error_root_code(e), PM_EINVALID);
    char *s = pm_error_format(e);
    if (!strstr(s, needle)) {
        print_error("%s <- %s: error '%s' lacks '%s'\n", type, in, s, needle);
        fail();
    }
    free(s);
    pm_error_free(e);
    json_decref(v);
    pm_column_release(c);
}

static void test_roundtrip_every_type(void **state)
{
    (void)state;
    roundtrip("BOOLEAN", "true");
    roundtrip("BOOLEAN", "false");
    roundtrip("TINYINT", "-128");
    roundtrip("SMALLINT", "32767");
    roundtrip("INT", "-2147483648");
    roundtrip("BIGINT", "9223372036854775807");
    roundtrip("BIGINT", "-9223372036854775808");
    roundtrip("FLOAT", "0.1");
    roundtrip("FLOAT", "\"NaN\"");
    roundtrip("DOUBLE", "-0.0");
    roundtrip("DOUBLE", "1e+16");
    roundtrip("DOUBLE", "\"Infinity\"");
    roundtrip("DOUBLE", "\"-Infinity\"");
    roundtrip("DOUBLE", "0.3333333333333333");
    roundtrip("DECIMAL(10, 2)", "\"-0.50\"");
    roundtrip("DECIMAL(38, 0)", "\"99999999999999999999999999999999999999\"");
    roundtrip("DECIMAL(38, 38)", "\"-0.99999999999999999999999999999999999999\"");
    json_case("STRING", "\"h\\u00e9llo \\\"q\\\" \\\\ \\n\"", "\"h\xc3\xa9llo \\\"q\\\" \\\\ \\n\"");
    roundtrip("VARCHAR(3)", "\"abc\"");
    roundtrip("BYTES", "\"AAH/fw==\"");
    roundtrip("BINARY(2)", "\"AAE=\"");
    roundtrip("DATE", "\"1969-12-31\"");
    roundtrip("DATE", "\"-0001-12-31\"");
    roundtrip("DATE", "\"+10000-01-01\"");
    roundtrip("TIME(0)", "\"23:59:59\"");
    roundtrip("TIME(3)", "\"00:00:00.001\"");
    roundtrip("TIME(5)", "\"12:00:00.12300\"");
    roundtrip("TIMESTAMP(0)", "\"1969-12-31T23:59:59\"");
    roundtrip("TIMESTAMP(3)", "\"2024-05-14T01:02:03.004\"");
    roundtrip("TIMESTAMP(6)", "\"2024-05-14T01:02:03.004005\"");
    roundtrip("TIMESTAMP(9)", "\"1900-01-01T00:00:00.000000001\"");
    roundtrip("TIMESTAMP(7) WITH LOCAL TIME ZONE", "\"2024-05-14T01:02:03.1234567Z\"");
    roundtrip("ARRAY<INT>", "[1,null,3]");
    roundtrip("ARRAY<ARRAY<STRING>>", "[[\"a\"],null,[]]");
    roundtrip("MAP<STRING, INT>", "[{\"key\":\"a\",\"value\":1},{\"key\":\"b\",\"value\":null}]");
    roundtrip("MULTISET<STRING>", "[{\"key\":\"x\",\"value\":2}]");
    roundtrip("ROW<a INT, b ROW<c STRING>>", "{\"a\":1,\"b\":{\"c\":\"z\"}}");
    roundtrip("ROW<a INT, b ROW<c STRING>>", "{\"a\":null,\"b\":null}");
    roundtrip("ARRAY<MAP<STRING, ROW<x INT, y ARRAY<STRING>>>>",
              "[[{\"key\":\"a\",\"value\":{\"x\":1,\"y\":[\"p\",null]}},{\"key\":\"b\",\"value\":null}],null,[]]");
    roundtrip("INT", "null");
    for (int p = 0; p <= 9; p++) {
        char ty[64], v[64];
        snprintf(ty, sizeof ty, "TIMESTAMP(%d)", p);
        snprintf(v, sizeof v, "\"2024-05-14T01:02:03%s%.*s\"", p ? "." : "", p, "123456789");
        roundtrip(ty, v);
    }
}

static void test_lenient_input(void **state)
{
    (void)state;
    json_case("DECIMAL(10, 2)", "12.3", "\"12.30\"");
    json_case("DECIMAL(10, 2)", "12", "\"12.00\"");
    json_case("DECIMAL(10, 2)", "\"-.5\"", "\"-0.50\"");
    json_case("DECIMAL(10, 2)", "\"1.2300\"", "\"1.23\"");
    json_case("DECIMAL(10, 2)", "\"1.5e2\"", "\"150.00\"");
    json_case("DECIMAL(5, 5)", "1e-05", "\"0.00001\"");
    json_case("DECIMAL(38, 2)", "\"+00012.30\"", "\"12.30\"");
    json_case("TIMESTAMP(6)", "\"2024-05-14 01:02:03.1\"", "\"2024-05-14T01:02:03.100000\"");
    json_case("TIMESTAMP(3)", "\"2024-05-14T01:02:03.123000000\"", "\"2024-05-14T01:02:03.123\"");
    json_case("TIMESTAMP(3)", "\"2024-05-14\"", "\"2024-05-14T00:00:00.000\"");
    json_case("TIMESTAMP(0)", "\"2024-05-14T01:02\"", "\"2024-05-14T01:02:00\"");
    json_case("TIMESTAMP(3) WITH LOCAL TIME ZONE", "\"2024-05-14T01:02:03+02:00\"",
              "\"2024-05-13T23:02:03.000Z\"");
    json_case("TIMESTAMP(3) WITH LOCAL TIME ZONE", "\"2024-05-14T01:02:03\"", "\"2024-05-14T01:02:03.000Z\"");
    json_case("TIME(3)", "\"01:02:03.5\"", "\"01:02:03.500\"");
    json_case("TIME(6)", "\"01:02:03.123000\"", "\"01:02:03.123000\"");
    json_case("INT", "\"42\"", "42");
    json_case("INT", "7.0", "7");
    json_case("BOOLEAN", "\"TRUE\"", "true");
    json_case("DOUBLE", "3", "3.0");
    json_case("DOUBLE", "\"nan\"", "\"NaN\"");
    json_case("MAP<STRING, INT>", "{\"a\":1}", "[{\"key\":\"a\",\"value\":1}]");
    json_case("MAP<INT, STRING>", "{\"5\":\"x\"}", "[{\"key\":5,\"value\":\"x\"}]");
    json_case("ROW<a INT, b STRING>", "[1, \"x\"]", "{\"a\":1,\"b\":\"x\"}");
    json_case("ROW<a INT, b STRING>", "{\"b\":\"x\"}", "{\"a\":null,\"b\":\"x\"}");
    json_case("BYTES", "\"aGVsbG8\"", "\"aGVsbG8=\"");
    /* FLT_MAX as `paimon cat` prints it rounds to FLT_MAX, as Float.parseFloat does */
    roundtrip("FLOAT", "3.4028235e+38");
    roundtrip("FLOAT", "-3.4028235e+38");
}

static void test_errors(void **state)
{
    (void)state;
    json_error_case("TINYINT", "128", "out of range");
    json_error_case("INT", "2147483648", "out of range");
    json_error_case("INT", "\"12x\"", "expected an integer");
    json_error_case("INT", "1.5", "expected an integer in range");
    json_error_case("INT", "true", "expected an integer for INT, got a boolean");
    json_error_case("INT NOT NULL", "null", "null for INT NOT NULL");
    json_error_case("BIGINT", "\"9223372036854775808\"", "out of range");
    json_error_case("BOOLEAN", "1", "expected true or false");
    json_error_case("FLOAT", "1e39", "FLOAT range");
    json_error_case("DOUBLE", "\"1.5x\"", "expected a number");
    json_error_case("DOUBLE", "\"0x10\"", "expected a number");
    json_error_case("DECIMAL(10, 2)", "\"1.234\"", "more fraction digits than the scale");
    json_error_case("DECIMAL(4, 2)", "\"123.4\"", "too many digits for the precision");
    json_error_case("DECIMAL(38, 0)", "\"1e38\"", "too many digits for the precision");
    json_error_case("DECIMAL(10, 2)", "\"abc\"", "expected a decimal number");
    json_error_case("DECIMAL(10, 2)", "[1]", "expected a decimal string or number");
    json_error_case("STRING", "5", "expected a string for STRING, got an integer");
    json_error_case("BYTES", "\"@@@\"", "expected base64");
    json_error_case("DATE", "\"2023-02-29\"", "day out of range");
    json_error_case("DATE", "\"2023-13-01\"", "month out of range");
    json_error_case("DATE", "\"23-01-01\"", "at least 4 digits");
    json_error_case("DATE", "\"2023-01-01x\"", "unexpected text after the date");
    json_error_case("DATE", "19000", "an ISO date/time string");
    json_error_case("TIME(0)", "\"01:02:03.5\"", "more fraction digits than the precision");
    json_error_case("TIME(9)", "\"01:02:03.0005\"", "more fraction digits than the precision");
    json_error_case("TIME(3)", "\"24:00:00\"", "out of range");
    json_error_case("TIMESTAMP(3)", "\"2024-05-14T01:02:03.1234\"", "more fraction digits than the precision");
    json_error_case("TIMESTAMP(9)", "\"2024-05-14T01:02:03.1234567891\"", "more than 9 fraction digits");
    json_error_case("TIMESTAMP(3)", "\"2024-05-14T01:02:03Z\"", "no time zone allowed");
    json_error_case("TIMESTAMP(3) WITH LOCAL TIME ZONE", "\"2024-05-14T01:02:03+25:00\"", "offset out of range");
    json_error_case("ARRAY<INT>", "{}", "expected an array");
    json_error_case("ARRAY<INT>", "[1, \"x\"]", "element 1");
    json_error_case("MAP<STRING, INT>", "[{\"key\":\"a\"}]", "entry 0 is not an object");
    json_error_case("MAP<STRING, INT>", "[{\"key\":\"a\",\"value\":\"b\"}]", "value of entry 0");
    json_error_case("ROW<a INT>", "{\"b\":1}", "unknown field 'b'");
    json_error_case("ROW<a INT NOT NULL>", "{}", "missing value for NOT NULL field");
    json_error_case("ROW<a INT>", "[1, 2]", "ROW with 1 fields given an array of 2 values");
    json_error_case("ROW<a ROW<b INT>>", "{\"a\":{\"b\":\"q\"}}", "field 'a': field 'b'");
}

static void test_text_cells(void **state)
{
    (void)state;
    struct {
        const char *type, *in, *out;
    } cases[] = {
        {"INT", "-17", "-17"},
        {"BOOLEAN", "False", "false"},
        {"DOUBLE", "-Infinity", "\"-Infinity\""},
        {"DOUBLE", "2.5e-3", "0.0025"},
        {"DECIMAL(6, 3)", "-1.5", "\"-1.500\""},
        {"STRING", "a,\"b\"", "\"a,\\\"b\\\"\""},
        {"STRING", "", "\"\""},
        {"BYTES", "AAE=", "\"AAE=\""},
        {"DATE", "2024-02-29", "\"2024-02-29\""},
        {"TIMESTAMP(3)", "2024-05-14 01:02:03", "\"2024-05-14T01:02:03.000\""},
        {"ARRAY<INT>", "[1,2]", "[1,2]"},
        {"MAP<STRING, DOUBLE>", "{\"k\": 1.5}", "[{\"key\":\"k\",\"value\":1.5}]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pm_column *c = column(cases[i].type);
        PM_OK_OR_FAIL(pm_column_append_text(c, cases[i].in, strlen(cases[i].in)));
        char *got = json_of(c, 0);
        if (strcmp(got, cases[i].out) != 0) {
            print_error("%s <- text %s printed %s, want %s\n", cases[i].type, cases[i].in, got, cases[i].out);
            fail();
        }
        free(got);
        pm_column_release(c);
    }
    pm_column *c = column("INT");
    PM_EXPECT_ERR(pm_column_append_text(c, "", 0), PM_EINVALID);
    PM_EXPECT_ERR(pm_column_append_text(c, " 1", 2), PM_EINVALID);
    PM_EXPECT_ERR(pm_column_append_text(c, "+", 1), PM_EINVALID);
    PM_EXPECT_ERR(pm_column_append_text(c, "99999999999999999999999", 23), PM_EINVALID);
    pm_column_release(c);
    c = column("ARRAY<INT>");
    PM_EXPECT_ERR(pm_column_append_text(c, "[1,", 3), PM_EINVALID);
    pm_column_release(c);
}

static void test_json_lines(void **state)
{
    (void)state;
    const char *text = "{\"id\": 1, \"name\": \"a\", \"tags\": [\"x\"]}\n"
                       "\n"
                       "   \n"
                       "{\"id\": 2, \"tags\": null}\r\n"
                       "{\"id\": 3, \"name\": \"c\", \"tags\": []}";
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, "ROW<id BIGINT NOT NULL, name STRING, tags ARRAY<STRING>>",
                                                 text, strlen(text)));
    assert_int_equal(pm_batch_num_rows(b), 3);
    const char *want[] = {"{\"id\":1,\"name\":\"a\",\"tags\":[\"x\"]}", "{\"id\":2,\"name\":null,\"tags\":null}",
                          "{\"id\":3,\"name\":\"c\",\"tags\":[]}"};
    for (int i = 0; i < 3; i++) {
        pm_buf o = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_batch_format_row_json(b, i, &o));
        assert_int_equal(o.len, strlen(want[i]));
        assert_memory_equal(o.data, want[i], o.len);
        pm_buf_free(&o);
    }
    pm_batch_free(b);

    const struct {
        const char *text, *needle;
    } bad[] = {
        {"{\"id\": 1}\n{\"id\": \"x\"}", "line 2: field 'id'"},
        {"{\"id\": 1}\n{\"idd\": 1}", "line 2: unknown field 'idd'"},
        {"{\"id\": 1}\n[1]", "line 2: expected a JSON object"},
        {"{\"id\": 1\n", "line 1: not a JSON object"},
        {"{\"name\": \"q\"}", "line 1: field 'id': null for BIGINT NOT NULL"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pm_error *e = pm_batch_from_json_lines_typed(&b, "ROW<id BIGINT NOT NULL, name STRING>", bad[i].text,
                                                     strlen(bad[i].text));
        assert_non_null(e);
        assert_null(b);
        char *s = pm_error_format(e);
        if (!strstr(s, bad[i].needle)) {
            print_error("error '%s' lacks '%s'\n", s, bad[i].needle);
            fail();
        }
        free(s);
        pm_error_free(e);
    }
    PM_EXPECT_ERR(pm_batch_from_json_lines_typed(&b, "ROW<id INTT>", "", 0), PM_EINVALID);
    PM_EXPECT_ERR(pm_batch_from_json_lines_typed(&b, "INT", "", 0), PM_EINVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_every_type), cmocka_unit_test(test_lenient_input),
        cmocka_unit_test(test_errors),               cmocka_unit_test(test_text_cells),
        cmocka_unit_test(test_json_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
