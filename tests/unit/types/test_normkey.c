/*
 * tests/unit/types/test_normkey.c — normalized keys: for random rows of
 * every atomic key type (with NaN, ±0.0, ±Inf, extremes, empty strings,
 * embedded zero bytes, prefixes, nulls), random directions and null
 * placement, and multi-field keys, memcmp of the encoded keys orders every
 * pair exactly as a typed comparator with Java semantics does (equal iff
 * equal).
 */
#include <math.h>
#include <string.h>

#include "pm_test.h"
#include "types/normkey.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static pm_column *column(const char *type)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, type));
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    pm_type_free(t);
    return c;
}

static const char *TYPES[] = {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                              "DECIMAL(10, 2)", "DECIMAL(38, 4)", "STRING", "BYTES", "DATE", "TIME(3)",
                              "TIMESTAMP(6)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", "CHAR(4)"};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

static void append_random(pm_column *c)
{
    uint64_t r = next_rand();
    if (r % 10 == 0) {
        PM_OK_OR_FAIL(pm_column_append_null(c));
        return;
    }
    uint64_t v = next_rand();
    int pick = (int)(next_rand() % 8); /* small domain sometimes, to get ties */
    switch (c->type->id) {
    case PM_TYPE_BOOLEAN: PM_OK_OR_FAIL(pm_column_append_bool(c, v & 1)); break;
    case PM_TYPE_TINYINT: PM_OK_OR_FAIL(pm_column_append_i8(c, (int8_t)(pick < 3 ? pick - 1 : (int64_t)v))); break;
    case PM_TYPE_SMALLINT: PM_OK_OR_FAIL(pm_column_append_i16(c, (int16_t)(pick < 3 ? pick - 1 : (int64_t)v))); break;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: {
        static const int32_t special[] = {INT32_MIN, INT32_MAX, 0, -1};
        PM_OK_OR_FAIL(pm_column_append_i32(c, pick < 4 ? special[pick] : (int32_t)v));
        break;
    }
    case PM_TYPE_BIGINT:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        static const int64_t special[] = {INT64_MIN, INT64_MAX, 0, -1};
        PM_OK_OR_FAIL(pm_column_append_i64(c, pick < 4 ? special[pick] : (int64_t)v));
        break;
    }
    case PM_TYPE_FLOAT: {
        static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f};
        float f;
        if (pick < 7)
            f = pick == 4 && (v & 1) ? -NAN : special[pick];
        else {
            uint32_t u = (uint32_t)v;
            memcpy(&f, &u, 4);
        }
        PM_OK_OR_FAIL(pm_column_append_f32(c, f));
        break;
    }
    case PM_TYPE_DOUBLE: {
        static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0};
        double d;
        if (pick < 7)
            d = pick == 4 && (v & 1) ? -NAN : special[pick];
        else
            memcpy(&d, &v, 8);
        PM_OK_OR_FAIL(pm_column_append_f64(c, d));
        break;
    }
    case PM_TYPE_DECIMAL: {
        __int128 x;
        if (c->type->precision <= 18)
            x = (int64_t)(v % 2000000000001ull) - 1000000000000LL;
        else
            x = (__int128)(((unsigned __int128)v << 64 | next_rand()) % ((unsigned __int128)1 << 121)) - ((__int128)1 << 120);
        if (pick < 2)
            x = pick - 1 + 0;
        PM_OK_OR_FAIL(pm_column_append_decimal(c, x));
        break;
    }
    default: {
        /* short strings over a tiny alphabet with zero bytes: many prefixes and ties */
        static const uint8_t alpha[] = {0x00, 0x01, 'a', 'b', 0xff};
        uint8_t buf[8];
        size_t n = (size_t)(v % 6);
        for (size_t i = 0; i < n; i++)
            buf[i] = alpha[next_rand() % 5];
        PM_OK_OR_FAIL(pm_column_append_bytes(c, buf, n));
        break;
    }
    }
}

static int cmp_num(double a, double b) { return a < b ? -1 : a > b; }

/* Java Float.compare / Double.compare semantics on doubles. */
static int java_fcmp(double a, double b)
{
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    bool an = isnan(a), bn = isnan(b);
    if (an || bn)
        return an == bn ? 0 : an ? 1 : -1;
    /* equal numerically: -0.0 < 0.0 */
    return (signbit(b) ? 1 : 0) - (signbit(a) ? 1 : 0);
}

static int typed_cmp(const pm_column *c, int64_t i, int64_t j, bool desc, bool nulls_last)
{
    bool ni = pm_column_is_null(c, i), nj = pm_column_is_null(c, j);
    if (ni || nj) {
        if (ni && nj)
            return 0;
        int r = ni ? -1 : 1;
        return nulls_last ? -r : r;
    }
    int r;
    switch (c->type->id) {
    case PM_TYPE_BOOLEAN: r = (int)pm_column_bool(c, i) - (int)pm_column_bool(c, j); break;
    case PM_TYPE_TINYINT: r = cmp_num(pm_column_i8(c, i), pm_column_i8(c, j)); break;
    case PM_TYPE_SMALLINT: r = cmp_num(pm_column_i16(c, i), pm_column_i16(c, j)); break;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: r = cmp_num(pm_column_i32(c, i), pm_column_i32(c, j)); break;
    case PM_TYPE_BIGINT:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        int64_t a = pm_column_i64(c, i), b = pm_column_i64(c, j);
        r = a < b ? -1 : a > b;
        break;
    }
    case PM_TYPE_FLOAT: r = java_fcmp(pm_column_f32(c, i), pm_column_f32(c, j)); break;
    case PM_TYPE_DOUBLE: r = java_fcmp(pm_column_f64(c, i), pm_column_f64(c, j)); break;
    case PM_TYPE_DECIMAL: {
        __int128 a = pm_column_decimal(c, i), b = pm_column_decimal(c, j);
        r = a < b ? -1 : a > b;
        break;
    }
    default: {
        size_t na, nb;
        const uint8_t *a = pm_column_bytes(c, i, &na), *b = pm_column_bytes(c, j, &nb);
        size_t m = na < nb ? na : nb;
        r = m ? memcmp(a, b, m) : 0;
        r = r < 0 ? -1 : r > 0;
        if (r == 0)
            r = na < nb ? -1 : na > nb;
        break;
    }
    }
    return desc ? -r : r;
}

static int sign(int x) { return x < 0 ? -1 : x > 0; }

static int key_cmp(const pm_buf *a, const pm_buf *b)
{
    size_t m = a->len < b->len ? a->len : b->len;
    int r = m ? memcmp(a->data, b->data, m) : 0;
    if (r == 0)
        r = a->len < b->len ? -1 : a->len > b->len;
    return sign(r);
}

static void check_keys(pm_column **cols, const pm_normkey_field *fields, size_t nf, int64_t rows)
{
    pm_buf *keys = calloc((size_t)rows, sizeof *keys);
    for (int64_t r = 0; r < rows; r++)
        PM_OK_OR_FAIL(pm_normkey_encode(&keys[r], cols, fields, nf, r));
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = 0; j < rows; j++) {
            int want = 0;
            for (size_t k = 0; k < nf && !want; k++)
                want = typed_cmp(cols[fields[k].column], i, j, fields[k].descending, fields[k].nulls_last);
            int got = key_cmp(&keys[i], &keys[j]);
            if (want != got) {
                print_error("rows %lld/%lld: typed %d, memcmp %d (field 0 type %s)\n", (long long)i, (long long)j,
                            want, got, pm_type_id_name(cols[fields[0].column]->type->id));
                fail();
            }
        }
    }
    for (int64_t r = 0; r < rows; r++)
        pm_buf_free(&keys[r]);
    free(keys);
}

static void test_single_fields(void **state)
{
    (void)state;
    for (size_t t = 0; t < NTYPES; t++) {
        pm_column *c = column(TYPES[t]);
        for (int i = 0; i < 200; i++)
            append_random(c);
        for (int mode = 0; mode < 4; mode++) {
            pm_normkey_field f = {0, mode & 1, (mode >> 1) & 1};
            check_keys(&c, &f, 1, c->length);
        }
        pm_column_release(c);
    }
}

static void test_multi_fields(void **state)
{
    (void)state;
    for (int round = 0; round < 30; round++) {
        pm_column *cols[3];
        pm_normkey_field fields[3];
        for (int k = 0; k < 3; k++) {
            cols[k] = column(TYPES[next_rand() % NTYPES]);
            fields[k].column = (size_t)k;
            fields[k].descending = next_rand() & 1;
            fields[k].nulls_last = next_rand() & 1;
        }
        for (int i = 0; i < 120; i++)
            for (int k = 0; k < 3; k++)
                append_random(cols[k]);
        check_keys(cols, fields, 3, 120);
        for (int k = 0; k < 3; k++)
            pm_column_release(cols[k]);
    }
}

static void test_fixed_bytes_and_errors(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_normkey_put_int(&b, -1, 4, false, false));
    assert_memory_equal(b.data, "\x01\x7f\xff\xff\xff", 5);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_normkey_put_bytes(&b, "a\0", 2, false, false));
    assert_int_equal(b.len, 6);
    assert_memory_equal(b.data, "\x01" "a\x00\xff\x00\x00", 6);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_normkey_put_null(&b, false));
    PM_OK_OR_FAIL(pm_normkey_put_null(&b, true));
    assert_memory_equal(b.data, "\x00\x02", 2);
    PM_EXPECT_ERR(pm_normkey_put_int(&b, 1, 3, false, false), PM_EINVALID);
    PM_EXPECT_ERR(pm_normkey_put_decimal(&b, (__int128)1 << 70, 10, false, false), PM_EINVALID);
    pm_buf_free(&b);
    pm_column *c = column("ARRAY<INT>");
    PM_OK_OR_FAIL(pm_column_append_null(c));
    pm_normkey_field f = {0, false, false};
    pm_buf k = PM_BUF_INIT;
    PM_EXPECT_ERR(pm_normkey_encode(&k, &c, &f, 1, 0), PM_EUNSUPPORTED);
    pm_buf_free(&k);
    pm_column_release(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_fields),
        cmocka_unit_test(test_multi_fields),
        cmocka_unit_test(test_fixed_bytes_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
