/*
 * tests/unit/parquet/test_pq_read_schema.c — Parquet schema → Paimon type
 * mapping (§5.1 of the data-format spec read backwards): logical types,
 * legacy converted types, unsigned integers, temporal units and UTC
 * adjustment, decimals on every physical type, nullability, field ids with
 * their positional fallback, and the errors for unsupported or broken
 * types (which only fail when the field is projected).
 */
#include <string.h>

#include "pm_test.h"
#include "base/buf.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"

/* A file with no row groups: "PAR1" + footer(schema) + length + "PAR1". */
static uint8_t *schema_file(const pq_schema_element *el, uint32_t n, size_t *size)
{
    pm_pq_file_meta *m;
    PM_OK_OR_FAIL(pm_pq_file_meta_new(&m));
    m->schema = (pq_schema_element *)el;
    m->num_schema = n;
    pm_buf f = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_buf_append(&f, "PAR1", 4));
    PM_OK_OR_FAIL(pm_pq_file_meta_serialize(m, &f));
    PM_OK_OR_FAIL(pm_buf_append_u32le(&f, (uint32_t)(f.len - 4)));
    PM_OK_OR_FAIL(pm_buf_append(&f, "PAR1", 4));
    m->schema = NULL;
    pm_pq_file_meta_free(m);
    return pm_buf_detach(&f, size);
}

/* Paimon type string of a single top-level leaf. */
static char *leaf_type(pq_schema_element leaf)
{
    pq_schema_element el[2] = {{.name = "root", .has_num_children = true, .num_children = 1}, leaf};
    el[1].name = "c";
    size_t size;
    uint8_t *f = schema_file(el, 2, &size);
    pm_pq_reader *r;
    pm_error *e = pm_pq_reader_open_memory(&r, f, size, NULL);
    free(f);
    if (e) {
        char *s = pm_error_format(e);
        char *out = malloc(strlen(s) + 32);
        sprintf(out, "ERR %s: %s", pm_code_name(pm_error_root_code(e)), s);
        free(s);
        pm_error_free(e);
        return out;
    }
    char *s = pm_type_to_string(pm_pq_reader_schema(r)->fields[0].type);
    pm_pq_reader_free(r);
    return s;
}

#define OPT .has_repetition = true, .repetition = PQ_OPTIONAL
#define REQ .has_repetition = true, .repetition = PQ_REQUIRED
#define T(pt) .has_type = true, .type = (pt)
#define CT(c) .has_converted_type = true, .converted_type = (c)
#define LT(...) .has_logical_type = true, .logical_type = {__VA_ARGS__}

static void expect_type(pq_schema_element leaf, const char *want)
{
    char *got = leaf_type(leaf);
    if (strncmp(want, "ERR ", 4) == 0) {
        if (strncmp(got, want, strlen(want)) != 0)
            print_error("got '%s'\n", got);
        assert_true(strncmp(got, want, strlen(want)) == 0);
    } else {
        assert_string_equal(got, want);
    }
    free(got);
}

static void test_atomic_mapping(void **state)
{
    (void)state;
    expect_type((pq_schema_element){T(PQ_BOOLEAN), REQ}, "BOOLEAN NOT NULL");
    expect_type((pq_schema_element){T(PQ_INT32), OPT}, "INT");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_INTEGER, .int_bit_width = 8, .int_is_signed = true)}, "TINYINT");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_INTEGER, .int_bit_width = 16, .int_is_signed = true)}, "SMALLINT");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_INTEGER, .int_bit_width = 8, .int_is_signed = false)}, "SMALLINT");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_INTEGER, .int_bit_width = 16, .int_is_signed = false)}, "INT");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_INTEGER, .int_bit_width = 32, .int_is_signed = false)}, "BIGINT");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, LT(.kind = PQ_LT_INTEGER, .int_bit_width = 64, .int_is_signed = false)}, "DECIMAL(20, 0)");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, CT(PQ_CT_INT_8)}, "TINYINT");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, CT(PQ_CT_UINT_16)}, "INT");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, CT(PQ_CT_UINT_64)}, "DECIMAL(20, 0)");
    expect_type((pq_schema_element){T(PQ_INT64), OPT}, "BIGINT");
    expect_type((pq_schema_element){T(PQ_FLOAT), OPT}, "FLOAT");
    expect_type((pq_schema_element){T(PQ_DOUBLE), REQ}, "DOUBLE NOT NULL");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_DATE)}, "DATE");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, CT(PQ_CT_DATE)}, "DATE");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_TIME, .unit = PQ_UNIT_MILLIS, .is_adjusted_to_utc = true)}, "TIME(3)");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, LT(.kind = PQ_LT_TIME, .unit = PQ_UNIT_MICROS)}, "TIME(6)");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, CT(PQ_CT_TIME_MICROS)}, "TIME(6)");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, LT(.kind = PQ_LT_TIMESTAMP, .unit = PQ_UNIT_MILLIS)}, "TIMESTAMP(3)");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, LT(.kind = PQ_LT_TIMESTAMP, .unit = PQ_UNIT_MICROS, .is_adjusted_to_utc = true)},
                "TIMESTAMP(6) WITH LOCAL TIME ZONE");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, LT(.kind = PQ_LT_TIMESTAMP, .unit = PQ_UNIT_NANOS)}, "TIMESTAMP(9)");
    /* the logical type wins over the legacy converted type */
    expect_type((pq_schema_element){T(PQ_INT64), OPT, CT(PQ_CT_TIMESTAMP_MILLIS), LT(.kind = PQ_LT_TIMESTAMP, .unit = PQ_UNIT_MILLIS)},
                "TIMESTAMP(3)");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, CT(PQ_CT_TIMESTAMP_MICROS)}, "TIMESTAMP(6) WITH LOCAL TIME ZONE");
    expect_type((pq_schema_element){T(PQ_INT96), OPT}, "TIMESTAMP(9)");
    expect_type((pq_schema_element){T(PQ_BYTE_ARRAY), OPT}, "BYTES");
    expect_type((pq_schema_element){T(PQ_BYTE_ARRAY), OPT, LT(.kind = PQ_LT_STRING)}, "STRING");
    expect_type((pq_schema_element){T(PQ_BYTE_ARRAY), REQ, CT(PQ_CT_UTF8)}, "STRING NOT NULL");
    expect_type((pq_schema_element){T(PQ_BYTE_ARRAY), OPT, CT(PQ_CT_ENUM)}, "STRING");
    expect_type((pq_schema_element){T(PQ_BYTE_ARRAY), OPT, LT(.kind = PQ_LT_JSON)}, "STRING");
    expect_type((pq_schema_element){T(PQ_BYTE_ARRAY), OPT, CT(PQ_CT_BSON)}, "BYTES");
    expect_type((pq_schema_element){T(PQ_FIXED_LEN_BYTE_ARRAY), OPT, .has_type_length = true, .type_length = 7}, "BINARY(7)");
    expect_type((pq_schema_element){T(PQ_FIXED_LEN_BYTE_ARRAY), OPT, .has_type_length = true, .type_length = 16, LT(.kind = PQ_LT_UUID)},
                "BINARY(16)");
    expect_type((pq_schema_element){T(PQ_FIXED_LEN_BYTE_ARRAY), OPT, .has_type_length = true, .type_length = 2, LT(.kind = PQ_LT_FLOAT16)},
                "FLOAT");
}

static void test_decimals_and_errors(void **state)
{
    (void)state;
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_DECIMAL, .decimal_precision = 9, .decimal_scale = 2)},
                "DECIMAL(9, 2)");
    expect_type((pq_schema_element){T(PQ_INT64), OPT, CT(PQ_CT_DECIMAL), .has_precision = true, .precision = 18, .has_scale = true, .scale = 4},
                "DECIMAL(18, 4)");
    expect_type((pq_schema_element){T(PQ_FIXED_LEN_BYTE_ARRAY), OPT, .has_type_length = true, .type_length = 16,
                                    LT(.kind = PQ_LT_DECIMAL, .decimal_precision = 38, .decimal_scale = 10)},
                "DECIMAL(38, 10)");
    expect_type((pq_schema_element){T(PQ_BYTE_ARRAY), OPT, LT(.kind = PQ_LT_DECIMAL, .decimal_precision = 30, .decimal_scale = 0)},
                "DECIMAL(30, 0)");
    expect_type((pq_schema_element){T(PQ_FIXED_LEN_BYTE_ARRAY), OPT, .has_type_length = true, .type_length = 20,
                                    LT(.kind = PQ_LT_DECIMAL, .decimal_precision = 40, .decimal_scale = 0)},
                "ERR EUNSUPPORTED");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_DECIMAL, .decimal_precision = 5, .decimal_scale = 6)},
                "ERR EUNSUPPORTED");
    expect_type((pq_schema_element){T(PQ_FIXED_LEN_BYTE_ARRAY), OPT, .has_type_length = true, .type_length = 12, CT(PQ_CT_INTERVAL)},
                "ERR EUNSUPPORTED");
    expect_type((pq_schema_element){T(PQ_FIXED_LEN_BYTE_ARRAY), OPT}, "ERR ECORRUPT");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_STRING)}, "ERR EUNSUPPORTED");
    expect_type((pq_schema_element){T(PQ_INT32), OPT, LT(.kind = PQ_LT_INTEGER, .int_bit_width = 64, .int_is_signed = true)},
                "ERR EUNSUPPORTED");
    expect_type((pq_schema_element){T(9), OPT}, "ERR ECORRUPT");
    expect_type((pq_schema_element){T(PQ_INT32), .has_repetition = true, .repetition = 7}, "ERR ECORRUPT");
}

static void test_ids_and_projection(void **state)
{
    (void)state;
    /* a (id 10), b INTERVAL (unsupported, no id), c (no id → position 2), s ROW<x (no id → 0), y (id 7)> */
    pq_schema_element el[7] = {
        {.name = "root", .has_num_children = true, .num_children = 4},
        {.name = "a", T(PQ_INT32), REQ, .has_field_id = true, .field_id = 10},
        {.name = "b", T(PQ_FIXED_LEN_BYTE_ARRAY), OPT, .has_type_length = true, .type_length = 12, CT(PQ_CT_INTERVAL)},
        {.name = "c", T(PQ_DOUBLE), OPT},
        {.name = "s", OPT, .has_num_children = true, .num_children = 2, .has_field_id = true, .field_id = 3},
        {.name = "x", T(PQ_INT64), OPT},
        {.name = "y", T(PQ_BOOLEAN), REQ, .has_field_id = true, .field_id = 7},
    };
    size_t size;
    uint8_t *f = schema_file(el, 7, &size);
    pm_pq_reader *r;
    /* all columns: b makes it fail, naming the field */
    pm_error *e = pm_pq_reader_open_memory(&r, f, size, NULL);
    assert_non_null(e);
    assert_int_equal(pm_error_root_code(e), PM_EUNSUPPORTED);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "field 'b'"));
    assert_non_null(strstr(msg, "INTERVAL"));
    free(msg);
    pm_error_free(e);
    /* projecting around it works, in the requested order */
    const char *cols[] = {"s", "c", "a"};
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.columns = cols;
    o.ncolumns = 3;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, f, size, &o));
    const pm_type *t = pm_pq_reader_schema(r);
    char *ts = pm_type_to_string(t);
    assert_string_equal(ts, "ROW<s ROW<x BIGINT, y BOOLEAN NOT NULL>, c DOUBLE, a INT NOT NULL> NOT NULL");
    free(ts);
    assert_int_equal(t->fields[0].id, 3);
    assert_int_equal(t->fields[0].type->fields[0].id, 0);
    assert_int_equal(t->fields[0].type->fields[1].id, 7);
    assert_int_equal(t->fields[1].id, 2);
    assert_int_equal(t->fields[2].id, 10);
    /* no row groups: the first batch is the end */
    pm_batch *b;
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(r, &b));
    assert_null(b);
    pm_pq_reader_free(r);
    /* footer only: succeeds despite b, and reports why b cannot be read */
    o.columns = NULL;
    o.ncolumns = 0;
    o.footer_only = true;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, f, size, &o));
    assert_int_equal(pm_pq_reader_num_leaves(r), 5);
    assert_null(pm_pq_reader_leaf_error(r, 0));
    assert_non_null(pm_pq_reader_leaf_error(r, 1));
    assert_null(pm_pq_reader_leaf_type(r, 1));
    assert_string_equal(pm_pq_reader_leaf_path(r, 3), "s.x");
    PM_EXPECT_ERR(pm_pq_reader_next_batch(r, &b), PM_EINVALID);
    pm_pq_reader_free(r);
    /* duplicates and unknown names are invalid */
    const char *dup[] = {"a", "a"};
    o.footer_only = false;
    o.columns = dup;
    o.ncolumns = 2;
    PM_EXPECT_ERR(pm_pq_reader_open_memory(&r, f, size, &o), PM_EINVALID);
    free(f);
}

static void test_bad_files(void **state)
{
    (void)state;
    pm_pq_reader *r;
    PM_EXPECT_ERR(pm_pq_reader_open_memory(&r, (const uint8_t *)"PAR1PAR1", 8, NULL), PM_ECORRUPT);
    const uint8_t enc[] = {'P', 'A', 'R', '1', 0, 0, 0, 0, 0, 0, 0, 0, 'P', 'A', 'R', 'E'};
    PM_EXPECT_ERR(pm_pq_reader_open_memory(&r, enc, sizeof enc, NULL), PM_EUNSUPPORTED);
    const uint8_t big[] = {'P', 'A', 'R', '1', 0, 0, 0, 0, 0xff, 0, 0, 0, 'P', 'A', 'R', '1'};
    PM_EXPECT_ERR(pm_pq_reader_open_memory(&r, big, sizeof big, NULL), PM_ECORRUPT);
    const uint8_t nomagic[] = {'X', 'A', 'R', '1', 0, 0, 0, 0, 0, 0, 0, 0, 'P', 'A', 'R', '1'};
    PM_EXPECT_ERR(pm_pq_reader_open_memory(&r, nomagic, sizeof nomagic, NULL), PM_ECORRUPT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomic_mapping),
        cmocka_unit_test(test_decimals_and_errors),
        cmocka_unit_test(test_ids_and_projection),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
