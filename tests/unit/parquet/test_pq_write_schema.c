/*
 * tests/unit/parquet/test_pq_write_schema.c — Paimon type → Parquet schema
 * elements and leaf levels.  The first case is the schema of the Java-written
 * fixture append_complex_build_in_fieldid (elements copied from that file's
 * footer); the others cover every atomic type, nested ids and levels.
 */
#include <string.h>

#include "pm_test.h"
#include "format/parquet/pq_schema_write.h"

/* Types built from static storage (no allocation, nothing to free). */
static pm_type atom(pm_type_id id, bool nullable)
{
    pm_type t;
    memset(&t, 0, sizeof t);
    t.id = id;
    t.nullable = nullable;
    return t;
}

static pm_type prec(pm_type_id id, int32_t p, int32_t s, bool nullable)
{
    pm_type t = atom(id, nullable);
    t.precision = p;
    t.scale = s;
    return t;
}

static pm_type row_of(pm_field *f, size_t n, bool nullable)
{
    pm_type t = atom(PM_TYPE_ROW, nullable);
    t.fields = f;
    t.nfields = n;
    return t;
}

static pm_field field(int32_t id, const char *name, pm_type *t)
{
    pm_field f;
    memset(&f, 0, sizeof f);
    f.id = id;
    f.name = (char *)name;
    f.type = t;
    return f;
}

typedef struct expect_elem {
    const char *name;
    int type;        /* -1 = group */
    int rep;         /* -1 = absent (root) */
    int children;    /* -1 = absent */
    int converted;   /* -1 = absent */
    int field_id;    /* -1 = absent (INT32_MIN never used) */
    int logical;     /* pq_logical_kind, 0 = absent */
} expect_elem;

static void check_elems(const pq_write_schema *s, const expect_elem *x, size_t n)
{
    assert_int_equal(s->nelems, n);
    for (size_t i = 0; i < n; i++) {
        const pq_schema_element *e = &s->elems[i];
        assert_string_equal(e->name, x[i].name);
        assert_int_equal(e->has_type, x[i].type >= 0);
        if (x[i].type >= 0)
            assert_int_equal(e->type, x[i].type);
        assert_int_equal(e->has_repetition, x[i].rep >= 0);
        if (x[i].rep >= 0)
            assert_int_equal(e->repetition, x[i].rep);
        assert_int_equal(e->has_num_children, x[i].children >= 0);
        if (x[i].children >= 0)
            assert_int_equal(e->num_children, x[i].children);
        assert_int_equal(e->has_converted_type, x[i].converted >= 0);
        if (x[i].converted >= 0)
            assert_int_equal(e->converted_type, x[i].converted);
        if (x[i].field_id == -1) {
            assert_false(e->has_field_id);
        } else {
            assert_true(e->has_field_id);
            assert_int_equal(e->field_id, x[i].field_id);
        }
        assert_int_equal(e->has_logical_type, x[i].logical != 0);
        if (x[i].logical)
            assert_int_equal(e->logical_type.kind, x[i].logical);
    }
}

/* Schema of the Java fixture append_complex_build_in_fieldid. */
static void test_java_fixture_schema(void **state)
{
    (void)state;
    pm_type tiny = atom(PM_TYPE_TINYINT, true), small = atom(PM_TYPE_SMALLINT, true);
    pm_type map = atom(PM_TYPE_MAP, true);
    map.key = &tiny;
    map.value = &small;
    pm_type flt = atom(PM_TYPE_FLOAT, true), arr = atom(PM_TYPE_ARRAY, true);
    arr.element = &flt;
    pm_type b = atom(PM_TYPE_BOOLEAN, true), big = atom(PM_TYPE_BIGINT, true);
    pm_field rf[2] = {field(3, "f0", &b), field(4, "f1", &big)};
    pm_type row = row_of(rf, 2, true);
    pm_type ts = prec(PM_TYPE_TIMESTAMP, 9, 0, true), date = atom(PM_TYPE_DATE, true);
    pm_type dec = prec(PM_TYPE_DECIMAL, 2, 2, true);
    pm_field top[6] = {field(0, "f1", &map), field(1, "f2", &arr), field(2, "f3", &row),
                       field(5, "f4", &ts),  field(6, "f5", &date), field(7, "f6", &dec)};
    pm_type schema = row_of(top, 6, false);

    pm_arena a;
    pm_arena_init(&a, 0);
    pq_write_schema s;
    PM_OK_OR_FAIL(pq_schema_build(&a, &schema, &s));
    /* From the fixture footer (thrift field values). */
    const expect_elem x[] = {
        {"paimon_schema", -1, -1, 6, -1, -1, 0},
        {"f1", -1, PQ_OPTIONAL, 1, PQ_CT_MAP, 0, PQ_LT_MAP},
        {"key_value", -1, PQ_REPEATED, 2, PQ_CT_MAP_KEY_VALUE, -1, 0},
        {"key", PQ_INT32, PQ_REQUIRED, -1, PQ_CT_INT_8, 536870910, PQ_LT_INTEGER},
        {"value", PQ_INT32, PQ_OPTIONAL, -1, PQ_CT_INT_16, 536870912, PQ_LT_INTEGER},
        {"f2", -1, PQ_OPTIONAL, 1, PQ_CT_LIST, 1, PQ_LT_LIST},
        {"list", -1, PQ_REPEATED, 1, -1, -1, 0},
        {"element", PQ_FLOAT, PQ_OPTIONAL, -1, -1, 536871936, 0},
        {"f3", -1, PQ_OPTIONAL, 2, -1, 2, 0},
        {"f0", PQ_BOOLEAN, PQ_OPTIONAL, -1, -1, 3, 0},
        {"f1", PQ_INT64, PQ_OPTIONAL, -1, -1, 4, 0},
        {"f4", PQ_INT96, PQ_OPTIONAL, -1, -1, 5, 0},
        {"f5", PQ_INT32, PQ_OPTIONAL, -1, PQ_CT_DATE, 6, PQ_LT_DATE},
        {"f6", PQ_INT32, PQ_OPTIONAL, -1, PQ_CT_DECIMAL, 7, PQ_LT_DECIMAL},
    };
    check_elems(&s, x, sizeof x / sizeof x[0]);
    assert_int_equal(s.elems[3].logical_type.int_bit_width, 8);
    assert_true(s.elems[3].logical_type.int_is_signed);
    assert_int_equal(s.elems[4].logical_type.int_bit_width, 16);
    assert_true(s.elems[13].has_scale && s.elems[13].scale == 2);
    assert_true(s.elems[13].has_precision && s.elems[13].precision == 2);
    assert_int_equal(s.elems[13].logical_type.decimal_precision, 2);
    assert_int_equal(s.elems[13].logical_type.decimal_scale, 2);

    /* Leaves: paths and levels. */
    assert_int_equal(s.nleaves, 8);
    const pq_leaf *k = &s.leaves[0];
    assert_int_equal(k->path_len, 3);
    assert_string_equal(k->path[0], "f1");
    assert_string_equal(k->path[1], "key_value");
    assert_string_equal(k->path[2], "key");
    assert_int_equal(k->max_def, 2);
    assert_int_equal(k->max_rep, 1);
    assert_int_equal(s.leaves[1].max_def, 3);   /* map value */
    assert_int_equal(s.leaves[2].max_def, 3);   /* list element */
    assert_int_equal(s.leaves[2].max_rep, 1);
    assert_int_equal(s.leaves[3].max_def, 2);   /* f3.f0 */
    assert_int_equal(s.leaves[3].max_rep, 0);
    assert_int_equal(s.leaves[3].nsteps, 2);
    assert_int_equal(s.leaves[5].kind, PQV_INT96);
    assert_int_equal(s.leaves[5].stats, PQS_INT96);
    assert_true(s.leaves[6].flat);
    assert_int_equal(s.leaves[7].kind, PQV_DEC32);
    assert_false(s.leaves[7].legacy_stats);
    assert_int_equal(s.top_first_leaf[2], 3);
    assert_int_equal(s.top_nleaves[2], 2);
    pm_arena_free(&a);
}

static void test_atomic_types(void **state)
{
    (void)state;
    pm_type t[] = {
        atom(PM_TYPE_BOOLEAN, false),          prec(PM_TYPE_TIME, 3, 0, true),
        prec(PM_TYPE_DECIMAL, 10, 2, true),    prec(PM_TYPE_DECIMAL, 38, 10, false),
        prec(PM_TYPE_DECIMAL, 19, 0, true),    atom(PM_TYPE_CHAR, true),
        atom(PM_TYPE_VARCHAR, false),          atom(PM_TYPE_BINARY, true),
        atom(PM_TYPE_VARBINARY, true),         prec(PM_TYPE_TIMESTAMP, 3, 0, true),
        prec(PM_TYPE_TIMESTAMP, 6, 0, true),   prec(PM_TYPE_TIMESTAMP_LTZ, 0, 0, true),
        prec(PM_TYPE_TIMESTAMP_LTZ, 6, 0, true), prec(PM_TYPE_TIMESTAMP_LTZ, 9, 0, true),
        atom(PM_TYPE_INT, false),              atom(PM_TYPE_DOUBLE, true),
        atom(PM_TYPE_BLOB, true),
    };
    enum { N = sizeof t / sizeof t[0] };
    pm_field f[N];
    for (int i = 0; i < N; i++)
        f[i] = field(10 + i, "c", &t[i]);
    pm_type schema = row_of(f, N, false);
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_write_schema s;
    PM_OK_OR_FAIL(pq_schema_build(&a, &schema, &s));
    const expect_elem x[] = {
        {"paimon_schema", -1, -1, N, -1, -1, 0},
        {"c", PQ_BOOLEAN, PQ_REQUIRED, -1, -1, 10, 0},
        {"c", PQ_INT32, PQ_OPTIONAL, -1, PQ_CT_TIME_MILLIS, 11, PQ_LT_TIME},
        {"c", PQ_INT64, PQ_OPTIONAL, -1, PQ_CT_DECIMAL, 12, PQ_LT_DECIMAL},
        {"c", PQ_FIXED_LEN_BYTE_ARRAY, PQ_REQUIRED, -1, PQ_CT_DECIMAL, 13, PQ_LT_DECIMAL},
        {"c", PQ_FIXED_LEN_BYTE_ARRAY, PQ_OPTIONAL, -1, PQ_CT_DECIMAL, 14, PQ_LT_DECIMAL},
        {"c", PQ_BYTE_ARRAY, PQ_OPTIONAL, -1, PQ_CT_UTF8, 15, PQ_LT_STRING},
        {"c", PQ_BYTE_ARRAY, PQ_REQUIRED, -1, PQ_CT_UTF8, 16, PQ_LT_STRING},
        {"c", PQ_BYTE_ARRAY, PQ_OPTIONAL, -1, -1, 17, 0},
        {"c", PQ_BYTE_ARRAY, PQ_OPTIONAL, -1, -1, 18, 0},
        {"c", PQ_INT64, PQ_OPTIONAL, -1, PQ_CT_TIMESTAMP_MILLIS, 19, PQ_LT_TIMESTAMP},
        {"c", PQ_INT64, PQ_OPTIONAL, -1, PQ_CT_TIMESTAMP_MICROS, 20, PQ_LT_TIMESTAMP},
        {"c", PQ_INT64, PQ_OPTIONAL, -1, PQ_CT_TIMESTAMP_MILLIS, 21, PQ_LT_TIMESTAMP},
        {"c", PQ_INT64, PQ_OPTIONAL, -1, PQ_CT_TIMESTAMP_MICROS, 22, PQ_LT_TIMESTAMP},
        {"c", PQ_INT96, PQ_OPTIONAL, -1, -1, 23, 0},
        {"c", PQ_INT32, PQ_REQUIRED, -1, -1, 24, 0},
        {"c", PQ_DOUBLE, PQ_OPTIONAL, -1, -1, 25, 0},
        {"c", PQ_BYTE_ARRAY, PQ_OPTIONAL, -1, -1, 26, 0},
    };
    check_elems(&s, x, sizeof x / sizeof x[0]);
    assert_true(s.elems[2].logical_type.is_adjusted_to_utc);
    assert_int_equal(s.elems[2].logical_type.unit, PQ_UNIT_MILLIS);
    assert_int_equal(s.elems[4].type_length, 16);
    assert_true(s.elems[4].has_type_length);
    assert_int_equal(s.elems[5].type_length, 9);
    assert_false(s.elems[10].logical_type.is_adjusted_to_utc);
    assert_int_equal(s.elems[10].logical_type.unit, PQ_UNIT_MILLIS);
    assert_int_equal(s.elems[11].logical_type.unit, PQ_UNIT_MICROS);
    assert_true(s.elems[12].logical_type.is_adjusted_to_utc);
    assert_false(s.elems[1].has_type_length);
    /* value kinds, stats and dictionary eligibility */
    assert_int_equal(s.leaves[0].kind, PQV_BOOL);
    assert_false(s.leaves[0].dict_ok);
    assert_int_equal(s.leaves[2].kind, PQV_DEC64);
    assert_int_equal(s.leaves[3].kind, PQV_DECFLBA);
    assert_false(s.leaves[3].dict_ok);
    assert_int_equal(s.leaves[3].stats, PQS_DEC128);
    assert_int_equal(s.leaves[5].stats, PQS_BYTES);
    assert_false(s.leaves[5].legacy_stats);
    assert_true(s.leaves[9].legacy_stats);
    assert_int_equal(s.leaves[12].kind, PQV_I64);
    assert_int_equal(s.leaves[13].kind, PQV_INT96);
    assert_true(s.leaves[13].dict_ok);
    assert_int_equal(s.leaves[0].max_def, 0);
    assert_int_equal(s.leaves[1].max_def, 1);
    pm_arena_free(&a);
}

static void test_nested_ids_and_levels(void **state)
{
    (void)state;
    /* a ARRAY<ARRAY<INT NOT NULL>> (id 7); m MULTISET<STRING> NOT NULL (id 3);
     * r ROW<x MAP<STRING NOT NULL, ARRAY<BIGINT>> (id 9)> (id 8) */
    pm_type i = atom(PM_TYPE_INT, false), inner = atom(PM_TYPE_ARRAY, true), outer = atom(PM_TYPE_ARRAY, true);
    inner.element = &i;
    outer.element = &inner;
    pm_type str = atom(PM_TYPE_VARCHAR, true), ms = atom(PM_TYPE_MULTISET, false);
    ms.element = &str;
    pm_type k = atom(PM_TYPE_VARCHAR, false), bi = atom(PM_TYPE_BIGINT, true), va = atom(PM_TYPE_ARRAY, true);
    va.element = &bi;
    pm_type mp = atom(PM_TYPE_MAP, true);
    mp.key = &k;
    mp.value = &va;
    pm_field rf[1] = {field(9, "x", &mp)};
    pm_type r = row_of(rf, 1, true);
    pm_field top[3] = {field(7, "a", &outer), field(3, "m", &ms), field(8, "r", &r)};
    pm_type schema = row_of(top, 3, false);
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_write_schema s;
    PM_OK_OR_FAIL(pq_schema_build(&a, &schema, &s));
    const expect_elem x[] = {
        {"paimon_schema", -1, -1, 3, -1, -1, 0},
        {"a", -1, PQ_OPTIONAL, 1, PQ_CT_LIST, 7, PQ_LT_LIST},
        {"list", -1, PQ_REPEATED, 1, -1, -1, 0},
        {"element", -1, PQ_OPTIONAL, 1, PQ_CT_LIST, 536870911 + 7 * 1024 + 1, PQ_LT_LIST},
        {"list", -1, PQ_REPEATED, 1, -1, -1, 0},
        {"element", PQ_INT32, PQ_REQUIRED, -1, -1, 536870911 + 7 * 1024 + 2, 0},
        {"m", -1, PQ_REQUIRED, 1, PQ_CT_MAP, 3, PQ_LT_MAP},
        {"key_value", -1, PQ_REPEATED, 2, PQ_CT_MAP_KEY_VALUE, -1, 0},
        {"key", PQ_BYTE_ARRAY, PQ_REQUIRED, -1, PQ_CT_UTF8, 536870911 - 3 * 1024 - 1, PQ_LT_STRING},
        {"value", PQ_INT32, PQ_REQUIRED, -1, -1, 536870911 + 3 * 1024 + 1, 0},
        {"r", -1, PQ_OPTIONAL, 1, -1, 8, 0},
        {"x", -1, PQ_OPTIONAL, 1, PQ_CT_MAP, 9, PQ_LT_MAP},
        {"key_value", -1, PQ_REPEATED, 2, PQ_CT_MAP_KEY_VALUE, -1, 0},
        {"key", PQ_BYTE_ARRAY, PQ_REQUIRED, -1, PQ_CT_UTF8, 536870911 - 9 * 1024 - 1, PQ_LT_STRING},
        {"value", -1, PQ_OPTIONAL, 1, PQ_CT_LIST, 536870911 + 9 * 1024 + 1, PQ_LT_LIST},
        {"list", -1, PQ_REPEATED, 1, -1, -1, 0},
        {"element", PQ_INT64, PQ_OPTIONAL, -1, -1, 536870911 + 9 * 1024 + 2, 0},
    };
    check_elems(&s, x, sizeof x / sizeof x[0]);
    assert_int_equal(s.nleaves, 5);
    /* a.list.element.list.element: def = a(1) + list(1) + element(1) + list(1) = 4, rep 2 */
    assert_int_equal(s.leaves[0].max_def, 4);
    assert_int_equal(s.leaves[0].max_rep, 2);
    assert_int_equal(s.leaves[0].path_len, 5);
    assert_int_equal(s.leaves[0].nsteps, 3);
    assert_int_equal(s.leaves[0].steps[0].rep_level, 1);
    assert_int_equal(s.leaves[0].steps[1].rep_level, 2);
    assert_int_equal(s.leaves[0].steps[2].kind, PQ_STEP_LEAF);
    /* m key: required map (0) + repeated (1) = 1 */
    assert_int_equal(s.leaves[1].max_def, 1);
    assert_int_equal(s.leaves[1].max_rep, 1);
    assert_false(s.leaves[1].steps[1].nullable);
    assert_int_equal(s.leaves[2].kind, PQV_I32);
    /* r.x.value.list.element: r 1, x 1, kv 1, value 1, list 1, element 1 = 6, rep 2 */
    assert_int_equal(s.leaves[4].max_def, 6);
    assert_int_equal(s.leaves[4].max_rep, 2);
    assert_int_equal(s.leaves[4].nsteps, 4);
    assert_int_equal(s.leaves[4].steps[0].kind, PQ_STEP_ROW);
    assert_int_equal(s.leaves[4].steps[1].kind, PQ_STEP_MAP_VALUE);
    assert_int_equal(s.leaves[4].steps[2].kind, PQ_STEP_LIST);
    assert_int_equal(s.leaves[4].steps[3].kind, PQ_STEP_LEAF);
    pm_arena_free(&a);
}

static void test_ids_wrap_and_errors(void **state)
{
    (void)state;
    /* 32-bit wrapping as Java int arithmetic. */
    assert_int_equal(pq_array_element_id(2147483646, 1), (int32_t)(536870911u + 2147483646u * 1024u + 1u));
    assert_int_equal(pq_map_key_id(3000000, 2), (int32_t)(536870911u - 3000000u * 1024u - 2u));
    assert_int_equal(pq_map_value_id(5, 1), 536870911 + 5 * 1024 + 1);
    /* FLBA widths from spec §5.1 */
    const int32_t widths[][2] = {{19, 9}, {21, 9}, {22, 10}, {23, 10}, {24, 11}, {26, 11}, {27, 12},
                                 {28, 12}, {29, 13}, {31, 13}, {32, 14}, {33, 14}, {34, 15}, {35, 15},
                                 {36, 16}, {38, 16}};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
        assert_int_equal(pq_decimal_flba_len(widths[i][0]), widths[i][1]);

    pm_arena a;
    pm_arena_init(&a, 0);
    pq_write_schema s;
    pm_type v = atom(PM_TYPE_VARIANT, true);
    pm_field f[1] = {field(0, "v", &v)};
    pm_type schema = row_of(f, 1, false);
    PM_EXPECT_ERR(pq_schema_build(&a, &schema, &s), PM_EUNSUPPORTED);
    pm_type notrow = atom(PM_TYPE_INT, false);
    PM_EXPECT_ERR(pq_schema_build(&a, &notrow, &s), PM_EINVALID);
    /* nesting deeper than the limit */
    pm_type chain[PQ_MAX_NESTING + 2];
    chain[0] = atom(PM_TYPE_INT, true);
    for (int i = 1; i < PQ_MAX_NESTING + 2; i++) {
        chain[i] = atom(PM_TYPE_ARRAY, true);
        chain[i].element = &chain[i - 1];
    }
    pm_field deep[1] = {field(0, "d", &chain[PQ_MAX_NESTING + 1])};
    pm_type dschema = row_of(deep, 1, false);
    PM_EXPECT_ERR(pq_schema_build(&a, &dschema, &s), PM_EUNSUPPORTED);
    /* empty row */
    pm_type empty = row_of(NULL, 0, false);
    PM_OK_OR_FAIL(pq_schema_build(&a, &empty, &s));
    assert_int_equal(s.nelems, 1);
    assert_int_equal(s.nleaves, 0);
    pm_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_java_fixture_schema),
        cmocka_unit_test(test_atomic_types),
        cmocka_unit_test(test_nested_ids_and_levels),
        cmocka_unit_test(test_ids_wrap_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
