/*
 * tests/unit/types/test_arrow.c — Arrow C Data Interface export/import:
 * formats and flags of every type, zero-copy buffers, lifetimes (release
 * after the batch is freed, children moved out), export→import round trips
 * with and without a row type, sliced arrays, conversions and errors.
 */
#include <string.h>

#include "pm_test.h"
#include "types/column.h"
#include "types/value.h"

static const char *ALL_TYPES =
    "ROW<b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT NOT NULL, i64 BIGINT, f FLOAT, d DOUBLE,"
    " dec DECIMAL(10, 2), dec38 DECIMAL(38, 5), ch CHAR(3), s STRING, bin BINARY(2), by BYTES, dt DATE,"
    " tm TIME(3), ts0 TIMESTAMP(0), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ts9 TIMESTAMP(9),"
    " ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, arr ARRAY<INT>,"
    " m MAP<STRING, ARRAY<ROW<x INT, y STRING>>>, ms MULTISET<STRING>, r ROW<p DOUBLE, q ARRAY<BYTES>>>";

static const char *ALL_ROWS =
    "{\"b\":true,\"i8\":-128,\"i16\":300,\"i32\":1,\"i64\":-9223372036854775808,\"f\":1.5,\"d\":-0.0,"
    "\"dec\":\"-0.50\",\"dec38\":\"123456789012345678901234567890123.12345\",\"ch\":\"abc\",\"s\":\"h\xc3\xa9\","
    "\"bin\":\"AAE=\",\"by\":\"\",\"dt\":\"1969-12-31\",\"tm\":\"01:02:03.004\",\"ts0\":\"2024-05-14T01:02:03\","
    "\"ts3\":\"2024-05-14T01:02:03.004\",\"ts6\":\"1960-01-01T00:00:00.000001\",\"ts9\":\"2024-05-14T01:02:03.123456789\","
    "\"ltz\":\"2024-05-14T01:02:03.000001Z\",\"arr\":[1,null,3],"
    "\"m\":[{\"key\":\"k\",\"value\":[{\"x\":1,\"y\":\"z\"},null]},{\"key\":\"n\",\"value\":null}],"
    "\"ms\":[{\"key\":\"a\",\"value\":2}],\"r\":{\"p\":\"NaN\",\"q\":[\"AQ==\",null]}}\n"
    "{\"b\":null,\"i8\":null,\"i16\":null,\"i32\":-2147483648,\"i64\":null,\"f\":null,\"d\":null,\"dec\":null,"
    "\"dec38\":null,\"ch\":null,\"s\":null,\"bin\":null,\"by\":null,\"dt\":null,\"tm\":null,\"ts0\":null,\"ts3\":null,"
    "\"ts6\":null,\"ts9\":null,\"ltz\":null,\"arr\":null,\"m\":null,\"ms\":null,\"r\":null}\n"
    "{\"b\":false,\"i8\":127,\"i16\":-1,\"i32\":3,\"i64\":9223372036854775807,\"f\":\"-Infinity\",\"d\":1e+300,"
    "\"dec\":\"99999999.99\",\"dec38\":\"-0.00001\",\"ch\":\"x  \",\"s\":\"\",\"bin\":\"//8=\",\"by\":\"AAH/fw==\","
    "\"dt\":\"2024-02-29\",\"tm\":\"23:59:59.999\",\"ts0\":\"1969-12-31T23:59:59\",\"ts3\":\"1969-12-31T23:59:59.999\","
    "\"ts6\":\"2024-05-14T01:02:03.123456\",\"ts9\":\"1677-09-21T00:12:43.145224192\",\"ltz\":\"1970-01-01T00:00:00.000000Z\","
    "\"arr\":[],\"m\":[],\"ms\":[],\"r\":{\"p\":null,\"q\":null}}\n";

static pm_batch *all_types_batch(void)
{
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, ALL_TYPES, ALL_ROWS, strlen(ALL_ROWS)));
    return b;
}

/* Every row printed as JSON lines; caller frees. */
static char *batch_text(const pm_batch *b)
{
    pm_buf o = PM_BUF_INIT;
    for (int64_t i = 0; i < pm_batch_num_rows(b); i++) {
        PM_OK_OR_FAIL(pm_batch_format_row_json(b, i, &o));
        PM_OK_OR_FAIL(pm_buf_append_byte(&o, '\n'));
    }
    const char *s;
    PM_OK_OR_FAIL(pm_buf_cstr(&o, &s));
    return (char *)pm_buf_detach(&o, NULL);
}

static void test_text_matches_input(void **state)
{
    (void)state;
    pm_batch *b = all_types_batch();
    char *s = batch_text(b);
    assert_string_equal(s, ALL_ROWS);
    free(s);
    pm_batch_free(b);
}

static const struct ArrowSchema *child_named(const struct ArrowSchema *s, const char *name)
{
    for (int64_t i = 0; i < s->n_children; i++)
        if (!strcmp(s->children[i]->name, name))
            return s->children[i];
    fail_msg("no child %s", name);
    return NULL;
}

static void test_schema_formats(void **state)
{
    (void)state;
    pm_batch *b = all_types_batch();
    struct ArrowSchema s;
    struct ArrowArray a;
    PM_OK_OR_FAIL(pm_batch_export(b, &s, &a));
    assert_string_equal(s.format, "+s");
    assert_int_equal(s.n_children, 24);
    const struct {
        const char *name, *format;
    } want[] = {
        {"b", "b"},        {"i8", "c"},           {"i16", "s"},           {"i32", "i"},   {"i64", "l"},
        {"f", "f"},        {"d", "g"},            {"dec", "d:10,2"},      {"dec38", "d:38,5"},
        {"ch", "u"},       {"s", "u"},            {"bin", "z"},           {"by", "z"},    {"dt", "tdD"},
        {"tm", "ttm"},     {"ts0", "tsm:"},       {"ts3", "tsm:"},        {"ts6", "tsu:"}, {"ts9", "tsn:"},
        {"ltz", "tsu:UTC"}, {"arr", "+l"},        {"m", "+m"},            {"ms", "+m"},   {"r", "+s"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct ArrowSchema *c = s.children[i];
        assert_string_equal(c->name, want[i].name);
        assert_string_equal(c->format, want[i].format);
        /* PARQUET:field_id metadata = field index (ids 0..) */
        int32_t n, kl, vl;
        memcpy(&n, c->metadata, 4);
        memcpy(&kl, c->metadata + 4, 4);
        assert_int_equal(n, 1);
        assert_int_equal(kl, 16);
        assert_memory_equal(c->metadata + 8, "PARQUET:field_id", 16);
        memcpy(&vl, c->metadata + 24, 4);
        char id[16] = {0};
        memcpy(id, c->metadata + 28, (size_t)vl);
        assert_int_equal(atoi(id), pm_batch_type(b)->fields[i].id);
        assert_int_equal(c->flags & ARROW_FLAG_NULLABLE, strcmp(want[i].name, "i32") ? ARROW_FLAG_NULLABLE : 0);
    }
    const struct ArrowSchema *m = child_named(&s, "m");
    assert_int_equal(m->n_children, 1);
    assert_string_equal(m->children[0]->name, "entries");
    assert_string_equal(m->children[0]->format, "+s");
    assert_int_equal(m->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
    assert_string_equal(m->children[0]->children[0]->name, "key");
    assert_int_equal(m->children[0]->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
    assert_string_equal(m->children[0]->children[1]->name, "value");
    assert_string_equal(m->children[0]->children[1]->format, "+l");
    assert_string_equal(m->children[0]->children[1]->children[0]->name, "element");
    assert_string_equal(m->children[0]->children[1]->children[0]->children[1]->name, "y");
    const struct ArrowSchema *ms = child_named(&s, "ms");
    assert_string_equal(ms->children[0]->children[1]->format, "i");
    assert_int_equal(ms->children[0]->children[1]->flags & ARROW_FLAG_NULLABLE, 0);

    /* zero-copy: the int column's values buffer is the column's own */
    assert_ptr_equal(a.children[3]->buffers[1], pm_batch_column(b, 3)->values.data);
    assert_null(a.children[3]->buffers[0]); /* no nulls in i32 */
    assert_non_null(a.children[4]->buffers[0]);
    assert_int_equal(a.children[4]->null_count, 1);
    assert_int_equal(a.length, 3);
    assert_int_equal(a.children[21]->n_children, 1);
    assert_int_equal(a.children[21]->children[0]->n_children, 2);
    a.release(&a);
    s.release(&s);
    assert_null(a.release);
    assert_null(s.release);
    pm_batch_free(b);
}

static void test_lifetime(void **state)
{
    (void)state;
    pm_batch *b = all_types_batch();
    struct ArrowSchema s;
    struct ArrowArray a;
    PM_OK_OR_FAIL(pm_batch_export(b, &s, &a));
    pm_column *strings = pm_batch_column(b, 10);
    assert_int_equal(atomic_load(&strings->refs), 2);
    /* reuse the batch: exported columns are swapped out, not cleared */
    PM_OK_OR_FAIL(pm_batch_reset(b));
    assert_ptr_not_equal(pm_batch_column(b, 10), strings);
    pm_batch_free(b);
    /* move one child out, release the parent, then the child */
    struct ArrowArray moved = *a.children[10];
    a.children[10]->release = NULL;
    a.release(&a);
    assert_int_equal(moved.length, 3);
    const int32_t *o = moved.buffers[1];
    assert_int_equal(o[1] - o[0], 3);
    assert_memory_equal((const char *)moved.buffers[2] + o[0], "h\xc3\xa9", 3);
    moved.release(&moved);
    s.release(&s);
}

static void test_roundtrip(void **state)
{
    (void)state;
    pm_batch *b = all_types_batch();
    char *want = batch_text(b);
    struct ArrowSchema s;
    struct ArrowArray a;
    PM_OK_OR_FAIL(pm_batch_export(b, &s, &a));

    /* with the row type: identical type and values */
    pm_batch *c;
    PM_OK_OR_FAIL(pm_batch_import(&c, pm_batch_type(b), &s, &a));
    assert_true(pm_type_equals(pm_batch_type(c), pm_batch_type(b)));
    char *got = batch_text(c);
    assert_string_equal(got, want);
    free(got);
    pm_batch_free(c);

    /* without: types derived from Arrow, ids from field metadata */
    PM_OK_OR_FAIL(pm_batch_import(&c, NULL, &s, &a));
    char *ts = pm_type_to_string(pm_batch_type(c));
    assert_string_equal(ts, "ROW<b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT NOT NULL, i64 BIGINT, f FLOAT, "
                            "d DOUBLE, dec DECIMAL(10, 2), dec38 DECIMAL(38, 5), ch STRING, s STRING, bin BYTES, "
                            "by BYTES, dt DATE, tm TIME(3), ts0 TIMESTAMP(3), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), "
                            "ts9 TIMESTAMP(9), ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, arr ARRAY<INT>, "
                            "m MAP<STRING NOT NULL, ARRAY<ROW<x INT, y STRING>>>, ms MAP<STRING NOT NULL, INT NOT NULL>, "
                            "r ROW<p DOUBLE, q ARRAY<BYTES>>> NOT NULL");
    free(ts);
    for (size_t i = 0; i < 24; i++)
        assert_int_equal(pm_batch_type(c)->fields[i].id, pm_batch_type(b)->fields[i].id);
    assert_int_equal(pm_batch_type(b)->fields[23].id, 25); /* pre-order ids: m's x, y come before ms */
    assert_int_equal(pm_batch_type(c)->fields[23].type->fields[1].id, 27); /* nested ids kept too */
    pm_batch_free(c);

    /* a slice: rows 1..2 through the top-level offset */
    a.offset = 1;
    a.length = 2;
    PM_OK_OR_FAIL(pm_batch_import(&c, pm_batch_type(b), &s, &a));
    got = batch_text(c);
    assert_string_equal(got, strchr(want, '\n') + 1);
    free(got);
    pm_batch_free(c);
    a.offset = 0;
    a.length = 3;

    /* a child with its own offset: struct rows 0..1 read arr rows 1..2 */
    a.length = 2;
    a.children[20]->offset = 1;
    a.children[20]->length = 2;
    PM_OK_OR_FAIL(pm_batch_import(&c, pm_batch_type(b), &s, &a));
    assert_int_equal(pm_batch_num_rows(c), 2);
    assert_true(pm_column_is_null(pm_batch_column(c, 20), 0));
    assert_false(pm_column_is_null(pm_batch_column(c, 20), 1));
    assert_int_equal(pm_column_offsets(pm_batch_column(c, 20))[2], 0); /* [] */
    assert_int_equal(pm_column_i32(pm_batch_column(c, 3), 1), -2147483648); /* other columns unshifted */
    pm_batch_free(c);
    a.length = 3;
    a.children[20]->offset = 0;
    a.children[20]->length = 3;

    a.release(&a);
    s.release(&s);
    free(want);
    pm_batch_free(b);
}

/* A release callback that counts, around an exported array's own. */
static int released;
static void (*inner_release)(struct ArrowArray *);
static void counting_release(struct ArrowArray *a)
{
    released++;
    a->release = inner_release;
    a->release(a);
}

static void test_import_move(void **state)
{
    (void)state;
    pm_batch *b = all_types_batch();
    char *want = batch_text(b);
    struct ArrowSchema s;
    struct ArrowArray a;
    PM_OK_OR_FAIL(pm_batch_export(b, &s, &a));
    const void *i64_values = a.children[4]->buffers[1], *s_data = a.children[10]->buffers[2];
    const void *b_values = a.children[0]->buffers[1], *ts6_values = a.children[17]->buffers[1];
    inner_release = a.release;
    a.release = counting_release;
    released = 0;
    pm_batch *c = NULL;
    PM_OK_OR_FAIL(pm_batch_import_move(&c, pm_batch_type(b), &s, &a));
    assert_null(a.release); /* moved */
    char *got = batch_text(c);
    assert_string_equal(got, want);
    free(got);
    /* zero copy where the layout is the batch's ... */
    assert_ptr_equal(pm_batch_column(c, 4)->values.data, i64_values);
    assert_ptr_equal(pm_batch_column(c, 10)->data.data, s_data);
    assert_ptr_equal(pm_batch_column(c, 0)->values.data, b_values);
    assert_ptr_equal(pm_batch_column(c, 17)->values.data, ts6_values);
    assert_int_equal(pm_batch_column(c, 4)->values.cap, 0);
    /* ... copies elsewhere (nested, converted units) */
    assert_int_not_equal(pm_batch_column(c, 20)->values.cap + pm_batch_column(c, 20)->offsets.cap, 0);
    /* the array lives as long as a borrowing column, also through an export */
    struct ArrowSchema s2;
    struct ArrowArray a2;
    PM_OK_OR_FAIL(pm_batch_export(c, &s2, &a2));
    pm_batch_free(c);
    assert_int_equal(released, 0);
    a2.release(&a2);
    s2.release(&s2);
    assert_int_equal(released, 1);
    /* a borrowed column written to copies first */
    PM_OK_OR_FAIL(pm_batch_export(b, &s2, &a2));
    PM_OK_OR_FAIL(pm_batch_import_move(&c, pm_batch_type(b), &s2, &a2));
    pm_column *col = pm_batch_column(c, 4);
    const void *before = col->values.data;
    PM_OK_OR_FAIL(pm_column_append_i64(col, 7));
    assert_ptr_not_equal(col->values.data, before);
    assert_int_equal(pm_column_i64(col, 3), 7);
    pm_batch_free(c);
    s2.release(&s2);

    /* refusals release the array too: nulls in NOT NULL, decreasing offsets */
    PM_OK_OR_FAIL(pm_batch_export(b, &s2, &a2));
    pm_type *strict = pm_type_clone(pm_batch_type(b));
    strict->fields[4].type->nullable = false;
    inner_release = a2.release;
    a2.release = counting_release;
    released = 0;
    PM_EXPECT_ERR(pm_batch_import_move(&c, strict, &s2, &a2), PM_EINVALID);
    assert_null(a2.release);
    assert_int_equal(released, 1);
    s2.release(&s2);
    pm_type_free(strict);
    PM_OK_OR_FAIL(pm_batch_export(b, &s2, &a2));
    int32_t *off = (int32_t *)(uintptr_t)a2.children[10]->buffers[1];
    int32_t keep = off[1];
    off[1] = off[2] + 1; /* offsets 0, 3, 2: decreasing (shared with b's column: restored below) */
    PM_EXPECT_ERR(pm_batch_import_move(&c, pm_batch_type(b), &s2, &a2), PM_EINVALID);
    off[1] = keep;
    s2.release(&s2);
    PM_EXPECT_ERR(pm_batch_import_move(&c, pm_batch_type(b), &s, NULL), PM_EINVALID);
    s.release(&s);
    free(want);
    pm_batch_free(b);
}

static void test_conversions_and_errors(void **state)
{
    (void)state;
    const char *rows = "{\"t\":\"2024-05-14T01:02:03.123456\",\"n\":5}\n{\"t\":\"1969-12-31T23:59:59.999999\",\"n\":null}\n";
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, "ROW<t TIMESTAMP(6), n INT>", rows, strlen(rows)));
    struct ArrowSchema s;
    struct ArrowArray a;
    PM_OK_OR_FAIL(pm_batch_export(b, &s, &a));

    /* TIMESTAMP(6) -> TIMESTAMP(3) (floor) and TIMESTAMP(9) */
    pm_type *t3;
    PM_OK_OR_FAIL(pm_type_parse(&t3, "ROW<t TIMESTAMP(3), n INT>"));
    pm_batch *c;
    PM_OK_OR_FAIL(pm_batch_import(&c, t3, &s, &a));
    char *got = batch_text(c);
    assert_string_equal(got, "{\"t\":\"2024-05-14T01:02:03.123\",\"n\":5}\n{\"t\":\"1969-12-31T23:59:59.999\",\"n\":null}\n");
    free(got);
    pm_batch_free(c);
    pm_type_free(t3);
    PM_OK_OR_FAIL(pm_type_parse(&t3, "ROW<t TIMESTAMP(9), n INT>"));
    PM_OK_OR_FAIL(pm_batch_import(&c, t3, &s, &a));
    got = batch_text(c);
    assert_string_equal(got, "{\"t\":\"2024-05-14T01:02:03.123456000\",\"n\":5}\n{\"t\":\"1969-12-31T23:59:59.999999000\",\"n\":null}\n");
    free(got);
    pm_batch_free(c);
    pm_type_free(t3);

    /* mismatches and constraint violations */
    const struct {
        const char *type;
        pm_code code;
    } bad[] = {
        {"ROW<t TIMESTAMP(6), n BIGINT>", PM_EINVALID},       /* int32 into BIGINT */
        {"ROW<t TIMESTAMP(6), n INT NOT NULL>", PM_EINVALID}, /* null into NOT NULL */
        {"ROW<t TIMESTAMP(6)>", PM_EINVALID},                 /* column n not in the row type */
        {"ROW<t STRING, n INT>", PM_EINVALID},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pm_type *t;
        PM_OK_OR_FAIL(pm_type_parse(&t, bad[i].type));
        pm_error *e = pm_batch_import(&c, t, &s, &a);
        assert_non_null(e);
        assert_int_equal(pm_error_root_code(e), bad[i].code);
        assert_null(c);
        pm_error_free(e);
        pm_type_free(t);
    }
    /* unsupported Arrow formats are named */
    const char *saved = s.children[1]->format;
    s.children[1]->format = "I"; /* uint32 */
    pm_error *e = pm_batch_import(&c, NULL, &s, &a);
    assert_non_null(e);
    assert_int_equal(pm_error_root_code(e), PM_EUNSUPPORTED);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "'I'"));
    free(msg);
    pm_error_free(e);
    s.children[1]->format = saved;
    /* wrong buffer count */
    a.children[1]->n_buffers = 3;
    PM_EXPECT_ERR(pm_batch_import(&c, NULL, &s, &a), PM_EINVALID);
    a.children[1]->n_buffers = 2;
    /* non-struct top level */
    PM_EXPECT_ERR(pm_batch_import(&c, NULL, s.children[1], a.children[1]), PM_EINVALID);

    a.release(&a);
    s.release(&s);
    pm_batch_free(b);
}

static void test_empty_batch(void **state)
{
    (void)state;
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, "ROW<s STRING, a ARRAY<INT>, m MAP<INT, INT>>", "", 0));
    struct ArrowSchema s;
    struct ArrowArray a;
    PM_OK_OR_FAIL(pm_batch_export(b, &s, &a));
    assert_int_equal(a.length, 0);
    /* offsets of empty columns read as [0] */
    assert_int_equal(((const int32_t *)a.children[0]->buffers[1])[0], 0);
    assert_int_equal(((const int32_t *)a.children[2]->buffers[1])[0], 0);
    pm_batch *c;
    PM_OK_OR_FAIL(pm_batch_import(&c, NULL, &s, &a));
    assert_int_equal(pm_batch_num_rows(c), 0);
    pm_batch_free(c);
    a.release(&a);
    s.release(&s);
    pm_batch_free(b);
    /* batch whose column lengths disagree with num_rows */
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<x INT>"));
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    PM_OK_OR_FAIL(pm_column_append_i32(pm_batch_column(b, 0), 1));
    PM_EXPECT_ERR(pm_batch_export(b, &s, &a), PM_EINVALID);
    PM_OK_OR_FAIL(pm_type_export_schema(t, &s));
    assert_int_equal(s.n_children, 1);
    s.release(&s);
    pm_batch_free(b);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_matches_input),
        cmocka_unit_test(test_schema_formats),
        cmocka_unit_test(test_lifetime),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_import_move),
        cmocka_unit_test(test_conversions_and_errors),
        cmocka_unit_test(test_empty_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
