/*
 * tests/unit/types/test_column.c — column builders (every physical kind,
 * lazy validity, nested ARRAY<MAP<STRING, ROW<..>>> with nulls at every
 * level), append_from, reset/reuse, batches and reference counts.
 */
#include <string.h>

#include "pm_test.h"
#include "types/column.h"
#include "types/value.h"

static pm_type *parse(const char *s)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, s));
    return t;
}

static pm_column *column(const char *type)
{
    pm_type *t = parse(type);
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    pm_type_free(t);
    return c;
}

/* JSON text of row i, as a NUL-terminated string the test frees. */
static char *json_of(const pm_column *c, int64_t i)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_column_format_json(c, i, &b));
    const char *s;
    PM_OK_OR_FAIL(pm_buf_cstr(&b, &s));
    size_t n;
    return (char *)pm_buf_detach(&b, &n);
}

static void assert_json(const pm_column *c, int64_t i, const char *want)
{
    char *s = json_of(c, i);
    if (strcmp(s, want) != 0) {
        print_error("row %lld: got %s, want %s\n", (long long)i, s, want);
        free(s);
        fail();
    }
    free(s);
}

static void test_fixed_and_lazy_validity(void **state)
{
    (void)state;
    pm_column *c = column("INT");
    for (int i = 0; i < 20; i++)
        PM_OK_OR_FAIL(pm_column_append_i32(c, i * 3));
    assert_int_equal(c->validity.len, 0); /* no null yet: no bitmap */
    assert_int_equal(c->null_count, 0);
    PM_OK_OR_FAIL(pm_column_append_null(c));
    PM_OK_OR_FAIL(pm_column_append_i32(c, -7));
    assert_int_equal(c->length, 22);
    assert_int_equal(c->null_count, 1);
    assert_true(c->validity.len >= 3);
    for (int i = 0; i < 20; i++) {
        assert_false(pm_column_is_null(c, i));
        assert_int_equal(pm_column_i32(c, i), i * 3);
    }
    assert_true(pm_column_is_null(c, 20));
    assert_int_equal(pm_column_i32(c, 20), 0);
    assert_false(pm_column_is_null(c, 21));
    assert_int_equal(pm_column_i32(c, 21), -7);
    /* wrong appender for the type */
    PM_EXPECT_ERR(pm_column_append_i64(c, 1), PM_EINVALID);
    PM_EXPECT_ERR(pm_column_append_bytes(c, "x", 1), PM_EINVALID);
    PM_EXPECT_ERR(pm_column_end_nested(c), PM_EINVALID);
    pm_column_release(c);
}

static void test_every_kind(void **state)
{
    (void)state;
    pm_column *b = column("BOOLEAN");
    for (int i = 0; i < 19; i++)
        PM_OK_OR_FAIL(i % 5 == 4 ? pm_column_append_null(b) : pm_column_append_bool(b, i % 3 == 0));
    for (int i = 0; i < 19; i++) {
        assert_int_equal(pm_column_is_null(b, i), i % 5 == 4);
        if (i % 5 != 4)
            assert_int_equal(pm_column_bool(b, i), i % 3 == 0);
    }
    assert_int_equal(b->null_count, 3);
    pm_column_release(b);

    pm_column *t8 = column("TINYINT"), *t16 = column("SMALLINT"), *t64 = column("BIGINT");
    pm_column *f = column("FLOAT"), *d = column("DOUBLE"), *dec = column("DECIMAL(38, 0)");
    pm_column *ts = column("TIMESTAMP(9)"), *dt = column("DATE"), *tm = column("TIME");
    PM_OK_OR_FAIL(pm_column_append_i8(t8, -128));
    PM_OK_OR_FAIL(pm_column_append_i16(t16, 32767));
    PM_OK_OR_FAIL(pm_column_append_i64(t64, INT64_MIN));
    PM_OK_OR_FAIL(pm_column_append_f32(f, 1.5f));
    PM_OK_OR_FAIL(pm_column_append_f64(d, -2.25));
    __int128 big = (__int128)99999999999999999LL * 1000000000000000000LL + 999999999999999999LL; /* 35 nines */
    PM_OK_OR_FAIL(pm_column_append_decimal(dec, -big));
    PM_OK_OR_FAIL(pm_column_append_i64(ts, 1715648523004005006LL));
    PM_OK_OR_FAIL(pm_column_append_i32(dt, -1));
    PM_OK_OR_FAIL(pm_column_append_i32(tm, 3723004));
    assert_int_equal(pm_column_i8(t8, 0), -128);
    assert_int_equal(pm_column_i16(t16, 0), 32767);
    assert_true(pm_column_i64(t64, 0) == INT64_MIN);
    assert_true(pm_column_f32(f, 0) == 1.5f);
    assert_true(pm_column_f64(d, 0) == -2.25);
    assert_true(pm_column_decimal(dec, 0) == -big);
    assert_true(pm_column_i64(ts, 0) == 1715648523004005006LL);
    assert_int_equal(dec->values.len, 16);
    assert_json(dt, 0, "\"1969-12-31\"");
    assert_json(ts, 0, "\"2024-05-14T01:02:03.004005006\"");
    PM_EXPECT_ERR(pm_column_append_i32(ts, 1), PM_EINVALID);
    PM_EXPECT_ERR(pm_column_append_i64(dt, 1), PM_EINVALID);
    pm_column *cols[] = {t8, t16, t64, f, d, dec, ts, dt, tm};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        pm_column_release(cols[i]);

    pm_column *s = column("STRING");
    PM_OK_OR_FAIL(pm_column_append_bytes(s, "abc", 3));
    PM_OK_OR_FAIL(pm_column_append_null(s));
    PM_OK_OR_FAIL(pm_column_append_bytes(s, "", 0));
    PM_OK_OR_FAIL(pm_column_append_bytes(s, "hello world", 11));
    assert_int_equal(s->offsets.len, 5 * 4);
    const int32_t *o = pm_column_offsets(s);
    assert_int_equal(o[0], 0);
    assert_int_equal(o[1], 3);
    assert_int_equal(o[2], 3);
    assert_int_equal(o[3], 3);
    assert_int_equal(o[4], 14);
    size_t n;
    const uint8_t *p = pm_column_bytes(s, 3, &n);
    assert_int_equal(n, 11);
    assert_memory_equal(p, "hello world", 11);
    pm_column_release(s);

    /* a column whose first row is null still has offsets [0, 0] */
    s = column("BYTES");
    PM_OK_OR_FAIL(pm_column_append_null(s));
    assert_int_equal(s->offsets.len, 8);
    assert_int_equal(pm_column_offsets(s)[1], 0);
    pm_column_release(s);

    PM_EXPECT_ERR(pm_column_new(&s, &(pm_type){.id = PM_TYPE_VARIANT, .nullable = true}), PM_EUNSUPPORTED);
}

/* ARRAY<MAP<STRING, ROW<x INT, y ARRAY<STRING>>>> with nulls at every level. */
static const char *NESTED = "ARRAY<MAP<STRING, ROW<x INT, y ARRAY<STRING>>>>";

static void build_nested(pm_column *c)
{
    pm_column *map = c->children[0];
    pm_column *keys = map->children[0], *rows = map->children[1];
    pm_column *x = rows->children[0], *y = rows->children[1], *ys = y->children[0];
    /* row 0: [ {"a": {x:1, y:["p", null]}, "b": null}, null, {} ] */
    PM_OK_OR_FAIL(pm_column_append_bytes(keys, "a", 1));
    PM_OK_OR_FAIL(pm_column_append_i32(x, 1));
    PM_OK_OR_FAIL(pm_column_append_bytes(ys, "p", 1));
    PM_OK_OR_FAIL(pm_column_append_null(ys));
    PM_OK_OR_FAIL(pm_column_end_nested(y));
    PM_OK_OR_FAIL(pm_column_end_nested(rows));
    PM_OK_OR_FAIL(pm_column_append_bytes(keys, "b", 1));
    PM_OK_OR_FAIL(pm_column_append_null(rows));
    PM_OK_OR_FAIL(pm_column_end_nested(map));
    PM_OK_OR_FAIL(pm_column_append_null(map));
    PM_OK_OR_FAIL(pm_column_end_nested(map));
    PM_OK_OR_FAIL(pm_column_end_nested(c));
    /* row 1: null */
    PM_OK_OR_FAIL(pm_column_append_null(c));
    /* row 2: [] */
    PM_OK_OR_FAIL(pm_column_end_nested(c));
    /* row 3: [ {"c": {x:null, y:null}} ] */
    PM_OK_OR_FAIL(pm_column_append_bytes(keys, "c", 1));
    PM_OK_OR_FAIL(pm_column_append_null(x));
    PM_OK_OR_FAIL(pm_column_append_null(y));
    PM_OK_OR_FAIL(pm_column_end_nested(rows));
    PM_OK_OR_FAIL(pm_column_end_nested(map));
    PM_OK_OR_FAIL(pm_column_end_nested(c));
}

static const char *NESTED_JSON[] = {
    "[[{\"key\":\"a\",\"value\":{\"x\":1,\"y\":[\"p\",null]}},{\"key\":\"b\",\"value\":null}],null,[]]",
    "null",
    "[]",
    "[[{\"key\":\"c\",\"value\":{\"x\":null,\"y\":null}}]]",
};

static void check_nested(const pm_column *c)
{
    assert_int_equal(c->length, 4);
    assert_int_equal(c->null_count, 1);
    for (int i = 0; i < 4; i++)
        assert_json(c, i, NESTED_JSON[i]);
    /* null ROW entry still has a (null) row in every child */
    const pm_column *rows = c->children[0]->children[1];
    assert_int_equal(rows->length, 3);
    assert_int_equal(rows->children[0]->length, 3);
    assert_true(pm_column_is_null(rows, 1));
    assert_true(pm_column_is_null(rows->children[0], 1));
    assert_true(pm_column_is_null(rows->children[1], 1));
    /* null ARRAY entry has equal offsets */
    const int32_t *o = pm_column_offsets(c);
    assert_int_equal(o[1], o[2]);
}

static void test_nested(void **state)
{
    (void)state;
    pm_column *c = column(NESTED);
    build_nested(c);
    check_nested(c);

    /* copy every row into a fresh column */
    pm_column *d = column(NESTED);
    for (int64_t i = 0; i < c->length; i++)
        PM_OK_OR_FAIL(pm_column_append_from(d, c, i));
    check_nested(d);

    /* reset keeps buffers and allows the same rows again */
    uint8_t *kept = d->offsets.data;
    pm_column_reset(d);
    assert_int_equal(d->length, 0);
    assert_int_equal(d->children[0]->length, 0);
    assert_int_equal(d->children[0]->children[1]->children[0]->length, 0);
    assert_ptr_equal(d->offsets.data, kept);
    build_nested(d);
    check_nested(d);

    /* append_from checks row range and type */
    PM_EXPECT_ERR(pm_column_append_from(d, c, 4), PM_EINVALID);
    pm_column *e = column("INT");
    PM_EXPECT_ERR(pm_column_append_from(e, c, 0), PM_EINVALID);
    pm_column_release(e);

    /* end_nested on a ROW whose fields were not all filled */
    pm_column *r = column("ROW<a INT, b INT>");
    PM_OK_OR_FAIL(pm_column_append_i32(r->children[0], 1));
    PM_EXPECT_ERR(pm_column_end_nested(r), PM_EINVALID);
    pm_column_release(r);
    /* MAP with more keys than values */
    pm_column *m = column("MAP<INT, INT>");
    PM_OK_OR_FAIL(pm_column_append_i32(m->children[0], 1));
    PM_EXPECT_ERR(pm_column_end_nested(m), PM_EINVALID);
    pm_column_release(m);

    pm_column_release(c);
    pm_column_release(d);
}

static void test_multiset_layout(void **state)
{
    (void)state;
    pm_column *c = column("MULTISET<STRING>");
    assert_int_equal(c->nchildren, 2);
    assert_int_equal(c->children[1]->type->id, PM_TYPE_INT);
    assert_false(c->children[1]->type->nullable);
    PM_OK_OR_FAIL(pm_column_append_bytes(c->children[0], "x", 1));
    PM_OK_OR_FAIL(pm_column_append_i32(c->children[1], 3));
    PM_OK_OR_FAIL(pm_column_end_nested(c));
    assert_json(c, 0, "[{\"key\":\"x\",\"value\":3}]");
    pm_column_release(c);
}

static void test_batch(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<id BIGINT NOT NULL, name STRING>");
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    assert_true(pm_type_equals(pm_batch_type(b), t));
    assert_int_equal(b->ncolumns, 2);
    PM_OK_OR_FAIL(pm_column_append_i64(pm_batch_column(b, 0), 7));
    PM_OK_OR_FAIL(pm_column_append_bytes(pm_batch_column(b, 1), "seven", 5));
    PM_OK_OR_FAIL(pm_column_append_i64(pm_batch_column(b, 0), 8));
    PM_EXPECT_ERR(pm_batch_finish(b, 2), PM_EINVALID);
    PM_OK_OR_FAIL(pm_column_append_null(pm_batch_column(b, 1)));
    PM_OK_OR_FAIL(pm_batch_finish(b, 2));
    assert_int_equal(pm_batch_num_rows(b), 2);
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_batch_format_row_json(b, 0, &out));
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, '\n'));
    PM_OK_OR_FAIL(pm_batch_format_row_json(b, 1, &out));
    assert_int_equal(out.len, strlen("{\"id\":7,\"name\":\"seven\"}\n{\"id\":8,\"name\":null}"));
    assert_memory_equal(out.data, "{\"id\":7,\"name\":\"seven\"}\n{\"id\":8,\"name\":null}", out.len);
    pm_buf_free(&out);

    /* a column still referenced elsewhere is replaced, not cleared */
    pm_column *held = pm_column_retain(pm_batch_column(b, 1));
    pm_column *other = pm_batch_column(b, 0);
    PM_OK_OR_FAIL(pm_batch_reset(b));
    assert_int_equal(pm_batch_num_rows(b), 0);
    assert_ptr_not_equal(pm_batch_column(b, 1), held);
    assert_ptr_equal(pm_batch_column(b, 0), other);
    assert_int_equal(held->length, 2);
    assert_int_equal(pm_batch_column(b, 1)->length, 0);
    assert_int_equal(other->length, 0);
    size_t n;
    const uint8_t *p = pm_column_bytes(held, 0, &n);
    assert_memory_equal(p, "seven", 5);
    pm_batch_free(b);
    /* the held column outlives the batch */
    assert_int_equal(held->length, 2);
    pm_column_release(held);

    PM_EXPECT_ERR(pm_batch_new(&b, &(pm_type){.id = PM_TYPE_INT}), PM_EINVALID);
    pm_type_free(t);
}

/* pm_batch_keep_spares: a column a consumer held comes back, buffers and
 * all, once the consumer released it; while it is still held the batch
 * takes a fresh one and lets the held one go. */
static void test_batch_spares(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<id BIGINT NOT NULL, name STRING>");
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    PM_OK_OR_FAIL(pm_batch_keep_spares(b, 1));
    PM_OK_OR_FAIL(pm_column_append_bytes(pm_batch_column(b, 1), "seven", 5));
    PM_OK_OR_FAIL(pm_column_append_i64(pm_batch_column(b, 0), 7));
    PM_OK_OR_FAIL(pm_batch_finish(b, 1));
    PM_EXPECT_ERR(pm_batch_keep_spares(b, 2), PM_EINVALID); /* not on a batch with rows */

    /* batch 1 held: replaced by a fresh column, the held one kept as a spare */
    pm_column *first = pm_column_retain(pm_batch_column(b, 1));
    uint8_t *first_data = first->data.data;
    size_t first_cap = first->data.cap;
    pm_column *id = pm_batch_column(b, 0);
    PM_OK_OR_FAIL(pm_batch_reset(b));
    pm_column *second = pm_batch_column(b, 1);
    assert_ptr_not_equal(second, first);
    assert_ptr_equal(pm_batch_column(b, 0), id); /* not held: cleared in place */
    assert_int_equal(b->columns_fresh, 1);
    assert_int_equal(b->columns_reused, 0);
    assert_int_equal(atomic_load(&first->refs), 2); /* the consumer's and the spare slot's */
    size_t n;
    assert_memory_equal(pm_column_bytes(first, 0, &n), "seven", 5);
    PM_OK_OR_FAIL(pm_column_append_bytes(second, "eight", 5));
    PM_OK_OR_FAIL(pm_column_append_i64(id, 8));
    PM_OK_OR_FAIL(pm_batch_finish(b, 1));

    /* the consumer lets batch 1 go and holds batch 2: batch 1's column
     * comes back cleared, with its buffer */
    pm_column_release(first);
    pm_column *held2 = pm_column_retain(second);
    PM_OK_OR_FAIL(pm_batch_reset(b));
    assert_ptr_equal(pm_batch_column(b, 1), first);
    assert_int_equal(first->length, 0);
    assert_ptr_equal(first->data.data, first_data);
    assert_int_equal(first->data.cap, first_cap);
    assert_int_equal(b->columns_fresh, 1);
    assert_int_equal(b->columns_reused, 1);
    assert_memory_equal(pm_column_bytes(held2, 0, &n), "eight", 5); /* the held one is untouched */
    PM_OK_OR_FAIL(pm_column_append_bytes(first, "nine", 4));
    PM_OK_OR_FAIL(pm_column_append_i64(id, 9));
    PM_OK_OR_FAIL(pm_batch_finish(b, 1));

    /* both held (the spare slot's too): a fresh column, the held one is
     * not kept (only its holder's reference is left) */
    pm_column *held3 = pm_column_retain(first);
    PM_OK_OR_FAIL(pm_batch_reset(b));
    pm_column *third = pm_batch_column(b, 1);
    assert_ptr_not_equal(third, first);
    assert_ptr_not_equal(third, second);
    assert_int_equal(b->columns_fresh, 2);
    assert_int_equal(b->columns_reused, 1);
    assert_int_equal(atomic_load(&held3->refs), 1);
    assert_memory_equal(pm_column_bytes(held3, 0, &n), "nine", 4);
    pm_column_release(held3);
    /* the spare slot still holds batch 2's column: it outlives its holder's release */
    assert_int_equal(atomic_load(&held2->refs), 2);
    pm_column_release(held2);
    pm_batch_free(b); /* frees the spare (ASan: no leak) */
    pm_type_free(t);
}

static void test_reserve(void **state)
{
    (void)state;
    pm_column *c = column("ROW<a DECIMAL(20, 2), b STRING, c BOOLEAN>");
    PM_OK_OR_FAIL(pm_column_reserve(c, 1000));
    assert_true(c->children[0]->values.cap >= 16000);
    assert_true(c->children[1]->offsets.cap >= 4004);
    assert_true(c->children[2]->values.cap >= 125);
    pm_column_release(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_and_lazy_validity),
        cmocka_unit_test(test_every_kind),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_multiset_layout),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_batch_spares),
        cmocka_unit_test(test_reserve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
