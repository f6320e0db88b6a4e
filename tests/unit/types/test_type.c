/*
 * tests/unit/types/test_type.c — pm_type constructors, clone/equals, the SQL
 * string form (printing and parsing, round trips, aliases, errors).
 */
#include <string.h>

#include "pm_test.h"
#include "paimon/types.h"

static void check_type_string(const pm_type *t, const char *want)
{
    char *s = pm_type_to_string(t);
    assert_non_null(s);
    assert_string_equal(s, want);
    free(s);
}

/* Parse `in`, check it prints as `out`, and that `out` parses to an equal type. */
static void roundtrip(const char *in, const char *out)
{
    pm_type *t = NULL, *u = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, in));
    check_type_string(t, out);
    PM_OK_OR_FAIL(pm_type_parse(&u, out));
    assert_true(pm_type_equals(t, u));
    pm_type *c = pm_type_clone(t);
    assert_true(pm_type_equals(t, c));
    pm_type_free(c);
    pm_type_free(t);
    pm_type_free(u);
}

static void test_defaults(void **state)
{
    (void)state;
    struct {
        pm_type_id id;
        const char *s;
    } cases[] = {
        {PM_TYPE_BOOLEAN, "BOOLEAN"},   {PM_TYPE_TINYINT, "TINYINT"},
        {PM_TYPE_SMALLINT, "SMALLINT"}, {PM_TYPE_INT, "INT"},
        {PM_TYPE_BIGINT, "BIGINT"},     {PM_TYPE_FLOAT, "FLOAT"},
        {PM_TYPE_DOUBLE, "DOUBLE"},     {PM_TYPE_DECIMAL, "DECIMAL(10, 0)"},
        {PM_TYPE_CHAR, "CHAR(1)"},      {PM_TYPE_VARCHAR, "VARCHAR(1)"},
        {PM_TYPE_BINARY, "BINARY(1)"},  {PM_TYPE_VARBINARY, "VARBINARY(1)"},
        {PM_TYPE_DATE, "DATE"},         {PM_TYPE_TIME, "TIME(0)"},
        {PM_TYPE_TIMESTAMP, "TIMESTAMP(6)"},
        {PM_TYPE_TIMESTAMP_LTZ, "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
        {PM_TYPE_VARIANT, "VARIANT"},   {PM_TYPE_BLOB, "BLOB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pm_type *t = pm_type_new(cases[i].id, true);
        check_type_string(t, cases[i].s);
        t->nullable = false;
        char want[80];
        snprintf(want, sizeof want, "%s NOT NULL", cases[i].s);
        check_type_string(t, want);
        pm_type_free(t);
        /* the string parses back to the same default */
        pm_type *u;
        PM_OK_OR_FAIL(pm_type_parse(&u, want));
        t = pm_type_new(cases[i].id, false);
        assert_true(pm_type_equals(t, u));
        pm_type_free(t);
        pm_type_free(u);
    }
    assert_null(pm_type_new(PM_TYPE_ARRAY, true));
    assert_string_equal(pm_type_id_name(PM_TYPE_MULTISET), "MULTISET");
}

static void test_atomic_strings(void **state)
{
    (void)state;
    roundtrip("INT NOT NULL", "INT NOT NULL");
    roundtrip("VARCHAR(10)", "VARCHAR(10)");
    roundtrip("VARCHAR(2147483647)", "STRING");
    roundtrip("STRING NOT NULL", "STRING NOT NULL");
    roundtrip("VARBINARY(2147483647)", "BYTES");
    roundtrip("BYTES", "BYTES");
    roundtrip("VARBINARY(8)", "VARBINARY(8)");
    roundtrip("CHAR(5)", "CHAR(5)");
    roundtrip("BINARY(4)", "BINARY(4)");
    roundtrip("DECIMAL(10, 2)", "DECIMAL(10, 2)");
    roundtrip("DECIMAL(38,38)", "DECIMAL(38, 38)");
    roundtrip("DECIMAL", "DECIMAL(10, 0)");
    roundtrip("DECIMAL(5)", "DECIMAL(5, 0)");
    roundtrip("NUMERIC(12, 3)", "DECIMAL(12, 3)");
    roundtrip("dec(7,1)", "DECIMAL(7, 1)");
    roundtrip("TIME", "TIME(0)");
    roundtrip("TIME(3)", "TIME(3)");
    roundtrip("TIME(3) WITHOUT TIME ZONE", "TIME(3)");
    roundtrip("TIMESTAMP", "TIMESTAMP(6)");
    roundtrip("TIMESTAMP(0)", "TIMESTAMP(0)");
    roundtrip("TIMESTAMP(9) WITHOUT TIME ZONE", "TIMESTAMP(9)");
    roundtrip("TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE");
    roundtrip("TIMESTAMP_LTZ(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE");
    roundtrip("timestamp_ltz", "TIMESTAMP(6) WITH LOCAL TIME ZONE");
    roundtrip("integer", "INT");
    roundtrip("Integer null", "INT");
    roundtrip("double precision", "DOUBLE");
    roundtrip("  bigint   not   null  ", "BIGINT NOT NULL");
    roundtrip("VARIANT", "VARIANT");
    roundtrip("BLOB NOT NULL", "BLOB NOT NULL");
    for (int p = 0; p <= 9; p++) {
        char in[64];
        snprintf(in, sizeof in, "TIMESTAMP(%d)", p);
        roundtrip(in, in);
        snprintf(in, sizeof in, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", p);
        roundtrip(in, in);
        snprintf(in, sizeof in, "TIME(%d)", p);
        roundtrip(in, in);
    }
}

static void test_nested_strings(void **state)
{
    (void)state;
    roundtrip("ARRAY<INT>", "ARRAY<INT>");
    roundtrip("array<int not null> not null", "ARRAY<INT NOT NULL> NOT NULL");
    roundtrip("MAP<STRING, INT>", "MAP<STRING, INT>");
    roundtrip("MAP<STRING NOT NULL,ARRAY<DECIMAL(20, 4)>>", "MAP<STRING NOT NULL, ARRAY<DECIMAL(20, 4)>>");
    roundtrip("MULTISET<VARCHAR(3)>", "MULTISET<VARCHAR(3)>");
    roundtrip("ROW<a INT, b STRING>", "ROW<a INT, b STRING>");
    roundtrip("ROW(a INT, b STRING)", "ROW<a INT, b STRING>");
    roundtrip("ROW<>", "ROW<>");
    roundtrip("ROW<`a b` INT, `x``y` STRING NOT NULL>", "ROW<`a b` INT, `x``y` STRING NOT NULL>");
    roundtrip("ROW<a INT 'the ''a'' field', b BIGINT>", "ROW<a INT 'the ''a'' field', b BIGINT>");
    roundtrip("ROW<int INT, string STRING>", "ROW<int INT, string STRING>");
    roundtrip("ARRAY<MAP<STRING, ROW<x ARRAY<TIMESTAMP(3) WITH LOCAL TIME ZONE>, y MULTISET<INT>>>>",
              "ARRAY<MAP<STRING, ROW<x ARRAY<TIMESTAMP(3) WITH LOCAL TIME ZONE>, y MULTISET<INT>>>>");

    /* field ids: pre-order over the tree */
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<a INT, b ROW<c INT, d INT>, e INT>"));
    assert_int_equal(t->nfields, 3);
    assert_int_equal(t->fields[0].id, 0);
    assert_int_equal(t->fields[1].id, 1);
    assert_int_equal(t->fields[1].type->fields[0].id, 2);
    assert_int_equal(t->fields[1].type->fields[1].id, 3);
    assert_int_equal(t->fields[2].id, 4);
    assert_int_equal(pm_type_field_index(t, "e"), 2);
    assert_int_equal(pm_type_field_index(t, "zz"), -1);
    assert_int_equal(pm_type_field_index_by_id(t, 4), 2);
    assert_int_equal(pm_type_field_index_by_id(t, 2), -1);
    assert_true(pm_type_is_nested(t));
    pm_type_free(t);
}

static void test_equals(void **state)
{
    (void)state;
    pm_type *a = pm_type_new_row(true), *b = pm_type_new_row(true);
    PM_OK_OR_FAIL(pm_type_add_field(a, 1, "x", pm_type_new_array(pm_type_new(PM_TYPE_INT, false), true)));
    PM_OK_OR_FAIL(pm_type_add_field(b, 1, "x", pm_type_new_array(pm_type_new(PM_TYPE_INT, true), true)));
    assert_false(pm_type_equals(a, b));
    assert_true(pm_type_equals_ignore_nullable(a, b));
    b->fields[0].type->element->nullable = false;
    assert_true(pm_type_equals(a, b));
    b->fields[0].id = 2;
    assert_false(pm_type_equals(a, b));
    assert_false(pm_type_equals_ignore_nullable(a, b));
    b->fields[0].id = 1;
    PM_OK_OR_FAIL(pm_type_add_field(b, 2, "y", pm_type_new(PM_TYPE_INT, true)));
    assert_false(pm_type_equals(a, b));
    pm_type *c = pm_type_new_decimal(10, 2, true), *d = pm_type_new_decimal(10, 3, true);
    assert_false(pm_type_equals(c, d));
    pm_type *e1 = pm_type_new_string(PM_TYPE_VARCHAR, 5, true), *e2 = pm_type_new_string(PM_TYPE_CHAR, 5, true);
    assert_false(pm_type_equals(e1, e2));
    PM_EXPECT_ERR(pm_type_add_field(c, 0, "z", pm_type_new(PM_TYPE_INT, true)), PM_EINVALID);
    pm_type_free(a);
    pm_type_free(b);
    pm_type_free(c);
    pm_type_free(d);
    pm_type_free(e1);
    pm_type_free(e2);
}

static void expect_parse_error(const char *text, const char *needle)
{
    pm_type *t = (pm_type *)1;
    pm_error *e = pm_type_parse(&t, text);
    if (!e) {
        print_error("parse of '%s' unexpectedly succeeded\n", text);
        fail();
    }
    assert_null(t);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    char *s = pm_error_format(e);
    if (!strstr(s, needle)) {
        print_error("error for '%s' is '%s', expected to contain '%s'\n", text, s, needle);
        fail();
    }
    free(s);
    pm_error_free(e);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_parse_error("", "empty");
    expect_parse_error("DECIMAL(39, 2)", "DECIMAL precision 39 is out of range 1..38");
    expect_parse_error("DECIMAL(0)", "DECIMAL precision 0");
    expect_parse_error("DECIMAL(5, 6)", "DECIMAL scale 6 is out of range 0..5");
    expect_parse_error("VARCHAR(0)", "VARCHAR length 0 is out of range");
    expect_parse_error("CHAR(0)", "CHAR length 0");
    expect_parse_error("VARCHAR(2147483648)", "larger than 2147483647");
    expect_parse_error("TIMESTAMP(10)", "TIMESTAMP precision 10 is out of range 0..9");
    expect_parse_error("TIME(12)", "TIME precision 12");
    expect_parse_error("TIMESTAMP_LTZ(10)", "precision 10");
    expect_parse_error("INTT", "unknown type 'INTT'");
    expect_parse_error("ARRAY<INT", "expected '>'");
    expect_parse_error("ARRAY INT", "expected '<'");
    expect_parse_error("MAP<INT>", "expected ','");
    expect_parse_error("ROW<a INT, a BIGINT>", "duplicate field name 'a'");
    expect_parse_error("ROW<a>", "expected a type name");
    expect_parse_error("ROW<`a INT>", "unterminated quoted identifier");
    expect_parse_error("ROW<`a\xff` INT>", "quoted identifier is not UTF-8");
    expect_parse_error("ROW<a INT 'c\xc0\x80'>", "string is not UTF-8");
    expect_parse_error("INT NOT", "expected NULL");
    expect_parse_error("INT garbage", "unexpected text after the type");
    expect_parse_error("VARCHAR(x)", "expected a number for the VARCHAR length");
    expect_parse_error("INT $", "unexpected character '$'");
    expect_parse_error("TIMESTAMP WITH TIME ZONE", "expected LOCAL");
    /* nesting limit */
    char deep[1200] = "";
    for (int i = 0; i < 100; i++)
        strcat(deep, "ARRAY<");
    strcat(deep, "INT");
    for (int i = 0; i < 100; i++)
        strcat(deep, ">");
    expect_parse_error(deep, "nesting deeper");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_atomic_strings),
        cmocka_unit_test(test_nested_strings), cmocka_unit_test(test_equals),
        cmocka_unit_test(test_parse_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
