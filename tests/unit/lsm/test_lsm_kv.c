/*
 * tests/unit/lsm/test_lsm_kv.c — the merge sort-key encoder and file key
 * bounds: for random rows of every atomic key type (extremes, NaN, ±0.0,
 * nulls, strings with zero bytes and prefixes), ascending and descending
 * sequence fields, memcmp of the encodings orders rows exactly as a typed
 * comparator with Java semantics (nulls first in both directions); the
 * column-wise batch encoder produces the same bytes as the row encoder;
 * key parts are equal iff the keys are equal; _MIN_KEY BinaryRows
 * normalize in typed order; layouts validate their columns.
 */
#include <math.h>

#include "lsm_test_util.h"
#include "types/binary_row.h"

static const char *TYPES[] = {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                              "DECIMAL(10, 2)", "DECIMAL(30, 3)", "STRING", "BYTES", "DATE", "TIMESTAMP(6)"};
#define NT (sizeof TYPES / sizeof TYPES[0])

static void append_random(pm_column *c, bool nullable)
{
    if (nullable && lt_below(6) == 0) {
        PM_OK_OR_FAIL(pm_column_append_null(c));
        return;
    }
    uint64_t v = lt_rand();
    int pick = (int)lt_below(6);
    switch (c->type->id) {
    case PM_TYPE_BOOLEAN: PM_OK_OR_FAIL(pm_column_append_bool(c, v & 1)); break;
    case PM_TYPE_TINYINT: PM_OK_OR_FAIL(pm_column_append_i8(c, (int8_t)(pick < 3 ? pick - 1 : (int64_t)v))); break;
    case PM_TYPE_SMALLINT: PM_OK_OR_FAIL(pm_column_append_i16(c, (int16_t)(pick < 3 ? pick - 1 : (int64_t)v))); break;
    case PM_TYPE_INT:
    case PM_TYPE_DATE: {
        static const int32_t sp[] = {INT32_MIN, INT32_MAX, 0, -1};
        PM_OK_OR_FAIL(pm_column_append_i32(c, pick < 4 ? sp[pick] : (int32_t)v));
        break;
    }
    case PM_TYPE_BIGINT:
    case PM_TYPE_TIMESTAMP: {
        static const int64_t sp[] = {INT64_MIN, INT64_MAX, 0, -1};
        PM_OK_OR_FAIL(pm_column_append_i64(c, pick < 4 ? sp[pick] : (int64_t)(v % 7) - 3));
        break;
    }
    case PM_TYPE_FLOAT: {
        static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.5f};
        PM_OK_OR_FAIL(pm_column_append_f32(c, lt_below(2) ? sp[pick] : (float)((int)(v % 9) - 4)));
        break;
    }
    case PM_TYPE_DOUBLE: {
        static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -2.5};
        PM_OK_OR_FAIL(pm_column_append_f64(c, lt_below(2) ? sp[pick] : (double)((int)(v % 9) - 4)));
        break;
    }
    case PM_TYPE_DECIMAL: {
        __int128 x = (__int128)(int64_t)(v % 2001) - 1000;
        if (c->type->precision > 18 && pick == 0)
            x *= (__int128)1000000000000000000ll;
        PM_OK_OR_FAIL(pm_column_append_decimal(c, x));
        break;
    }
    default: {
        static const uint8_t alpha[] = {0, 1, 'a', 0xff};
        uint8_t b[4];
        size_t n = lt_below(4);
        for (size_t i = 0; i < n; i++)
            b[i] = alpha[lt_below(4)];
        PM_OK_OR_FAIL(pm_column_append_bytes(c, b, n));
    }
    }
}

/* Java-semantics comparison of two cells (nulls first, not flipped). */
static int cell_cmp(const pm_column *c, int64_t a, int64_t b, bool desc)
{
    bool na = pm_column_is_null(c, a), nb = pm_column_is_null(c, b);
    if (na || nb)
        return na == nb ? 0 : na ? -1 : 1;
    int r = 0;
    switch (c->type->id) {
    case PM_TYPE_BOOLEAN: r = (int)pm_column_bool(c, a) - (int)pm_column_bool(c, b); break;
    case PM_TYPE_TINYINT: r = (pm_column_i8(c, a) > pm_column_i8(c, b)) - (pm_column_i8(c, a) < pm_column_i8(c, b)); break;
    case PM_TYPE_SMALLINT: r = (pm_column_i16(c, a) > pm_column_i16(c, b)) - (pm_column_i16(c, a) < pm_column_i16(c, b)); break;
    case PM_TYPE_INT:
    case PM_TYPE_DATE: r = (pm_column_i32(c, a) > pm_column_i32(c, b)) - (pm_column_i32(c, a) < pm_column_i32(c, b)); break;
    case PM_TYPE_BIGINT:
    case PM_TYPE_TIMESTAMP: r = (pm_column_i64(c, a) > pm_column_i64(c, b)) - (pm_column_i64(c, a) < pm_column_i64(c, b)); break;
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE: {
        double x = c->type->id == PM_TYPE_FLOAT ? pm_column_f32(c, a) : pm_column_f64(c, a);
        double y = c->type->id == PM_TYPE_FLOAT ? pm_column_f32(c, b) : pm_column_f64(c, b);
        /* Double.compare: -0.0 < 0.0, NaN largest and equal to itself */
        if (isnan(x) || isnan(y))
            r = isnan(x) == isnan(y) ? 0 : isnan(x) ? 1 : -1;
        else if (x != y)
            r = x < y ? -1 : 1;
        else
            r = (int)!signbit(x) - (int)!signbit(y);
        break;
    }
    case PM_TYPE_DECIMAL: {
        __int128 x = pm_column_decimal(c, a), y = pm_column_decimal(c, b);
        r = (x > y) - (x < y);
        break;
    }
    default: {
        size_t la, lb;
        const uint8_t *pa = pm_column_bytes(c, a, &la), *pb = pm_column_bytes(c, b, &lb);
        size_t n = la < lb ? la : lb;
        r = n ? memcmp(pa, pb, n) : 0;
        r = r ? (r < 0 ? -1 : 1) : (la > lb) - (la < lb);
    }
    }
    return desc ? -r : r;
}

static void test_encoding_order(void **state)
{
    (void)state;
    for (int iter = 0; iter < 400; iter++) {
        lt_seed(42 + (uint64_t)iter);
        /* row: key fields, seq, kind, then sequence fields */
        size_t nkey = 1 + lt_below(2), nseqf = lt_below(3);
        pm_type *t = pm_type_new_row(false);
        size_t tidx[8];
        bool nullable[8];
        int32_t id = 0;
        for (size_t i = 0; i < nkey + nseqf; i++) {
            tidx[i] = lt_below(NT);
            nullable[i] = lt_below(2);
            pm_type *ft;
            PM_OK_OR_FAIL(pm_type_parse(&ft, TYPES[tidx[i]]));
            ft->nullable = nullable[i];
            char name[32];
            snprintf(name, sizeof name, "f%u", (unsigned)i);
            PM_OK_OR_FAIL(pm_type_add_field(t, id++, name, ft));
            if (i == nkey - 1) {
                PM_OK_OR_FAIL(pm_type_add_field(t, id++, "_SEQUENCE_NUMBER", pm_type_new(PM_TYPE_BIGINT, false)));
                PM_OK_OR_FAIL(pm_type_add_field(t, id++, "_VALUE_KIND", pm_type_new(PM_TYPE_TINYINT, false)));
            }
        }
        size_t kc[8], sc[8];
        for (size_t i = 0; i < nkey; i++)
            kc[i] = i;
        for (size_t i = 0; i < nseqf; i++)
            sc[i] = nkey + 2 + i;
        bool desc = lt_below(2);
        pm_kv_layout l;
        PM_OK_OR_FAIL(pm_kv_layout_init(&l, kc, nkey, nkey, nkey + 1, NULL, 0));
        PM_OK_OR_FAIL(pm_kv_layout_set_seq_fields(&l, sc, nseqf, desc));
        pm_batch *b;
        PM_OK_OR_FAIL(pm_batch_new(&b, t));
        int64_t n = 40;
        for (int64_t r = 0; r < n; r++) {
            for (size_t i = 0; i < nkey + nseqf; i++)
                append_random(b->columns[i < nkey ? i : i + 2], nullable[i]);
            PM_OK_OR_FAIL(pm_column_append_i64(b->columns[nkey], (int64_t)lt_below(3) - 1));
            PM_OK_OR_FAIL(pm_column_append_i8(b->columns[nkey + 1], 0));
        }
        PM_OK_OR_FAIL(pm_batch_finish(b, n));
        pm_kv_keyenc *e;
        PM_OK_OR_FAIL(pm_kv_keyenc_new(&e, &l, t));
        pm_buf keys = PM_BUF_INIT, one = PM_BUF_INIT;
        uint32_t off[41], klen[40];
        PM_OK_OR_FAIL(pm_kv_keyenc_batch(e, b, &keys, off, klen));
        /* batch bytes == row bytes */
        for (int64_t r = 0; r < n; r++) {
            uint32_t kl;
            pm_buf_clear(&one);
            PM_OK_OR_FAIL(pm_kv_keyenc_row(e, b, r, true, &one, &kl));
            assert_int_equal(kl, klen[r]);
            assert_int_equal(one.len, off[r + 1] - off[r]);
            assert_memory_equal(one.data, keys.data + off[r], one.len);
        }
        for (int64_t x = 0; x < n; x++)
            for (int64_t y = 0; y < n; y++) {
                int want = 0;
                for (size_t i = 0; i < nkey && !want; i++)
                    want = cell_cmp(b->columns[i], x, y, false);
                bool key_equal = want == 0;
                for (size_t i = 0; i < nseqf && !want; i++)
                    want = cell_cmp(b->columns[nkey + 2 + i], x, y, desc);
                if (!want) {
                    int64_t sx = pm_column_i64(b->columns[nkey], x), sy = pm_column_i64(b->columns[nkey], y);
                    want = (sx > sy) - (sx < sy);
                }
                int got = pm_kv_keycmp(keys.data + off[x], off[x + 1] - off[x], keys.data + off[y],
                                       off[y + 1] - off[y]);
                if (got != want) {
                    print_error("iter %d rows %lld/%lld: got %d want %d\n", iter, (long long)x, (long long)y, got,
                                want);
                    fail();
                }
                bool kp_equal = klen[x] == klen[y] && memcmp(keys.data + off[x], keys.data + off[y], klen[x]) == 0;
                assert_int_equal(kp_equal, key_equal);
            }
        pm_buf_free(&keys);
        pm_buf_free(&one);
        pm_kv_keyenc_free(e);
        pm_batch_free(b);
        pm_kv_layout_clear(&l);
        pm_type_free(t);
    }
}

static void test_not_null_violation(void **state)
{
    (void)state;
    pm_type *t = lt_row_type();
    pm_kv_layout l;
    lt_layout(&l);
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    PM_OK_OR_FAIL(pm_column_append_null(b->columns[0])); /* NOT NULL key column */
    PM_OK_OR_FAIL(pm_column_append_i64(b->columns[1], 1));
    PM_OK_OR_FAIL(pm_column_append_i8(b->columns[2], 0));
    PM_OK_OR_FAIL(pm_column_append_i64(b->columns[3], 1));
    PM_OK_OR_FAIL(pm_column_append_i64(b->columns[4], 1));
    PM_OK_OR_FAIL(pm_column_append_null(b->columns[5]));
    PM_OK_OR_FAIL(pm_batch_finish(b, 1));
    pm_kv_keyenc *e;
    PM_OK_OR_FAIL(pm_kv_keyenc_new(&e, &l, t));
    pm_buf keys = PM_BUF_INIT;
    uint32_t off[2], klen[1];
    PM_EXPECT_ERR(pm_kv_keyenc_batch(e, b, &keys, off, klen), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_kv_keyenc_row(e, b, 0, true, &keys, klen), PM_ECORRUPT);
    pm_buf_free(&keys);
    pm_kv_keyenc_free(e);
    /* layout checks */
    pm_kv_layout bad;
    size_t k = 4; /* v is a key: fine type-wise */
    PM_OK_OR_FAIL(pm_kv_layout_init(&bad, &k, 1, 1, 2, NULL, 0));
    PM_OK_OR_FAIL(pm_kv_layout_check(&bad, t));
    pm_kv_layout_clear(&bad);
    k = 9;
    PM_OK_OR_FAIL(pm_kv_layout_init(&bad, &k, 1, 1, 2, NULL, 0));
    PM_EXPECT_ERR(pm_kv_layout_check(&bad, t), PM_EINVALID);
    pm_kv_layout_clear(&bad);
    k = 0;
    PM_OK_OR_FAIL(pm_kv_layout_init(&bad, &k, 1, 2, 1, NULL, 0)); /* seq/kind swapped */
    PM_EXPECT_ERR(pm_kv_layout_check(&bad, t), PM_EINVALID);
    pm_kv_layout_clear(&bad);
    pm_type *arr = pm_type_new_row(false);
    PM_OK_OR_FAIL(pm_type_add_field(arr, 0, "a", pm_type_new_array(pm_type_new(PM_TYPE_INT, true), false)));
    PM_OK_OR_FAIL(pm_type_add_field(arr, 1, "s", pm_type_new(PM_TYPE_BIGINT, false)));
    PM_OK_OR_FAIL(pm_type_add_field(arr, 2, "k", pm_type_new(PM_TYPE_TINYINT, false)));
    k = 0;
    PM_OK_OR_FAIL(pm_kv_layout_init(&bad, &k, 1, 1, 2, NULL, 0));
    PM_EXPECT_ERR(pm_kv_layout_check(&bad, arr), PM_EUNSUPPORTED);
    pm_kv_layout_clear(&bad);
    pm_type_free(arr);
    assert_string_equal(pm_kind_name(0), "+I");
    assert_string_equal(pm_kind_name(1), "-U");
    assert_string_equal(pm_kind_name(2), "+U");
    assert_string_equal(pm_kind_name(3), "-D");
    assert_true(pm_kind_is_retract(1) && pm_kind_is_retract(3) && !pm_kind_is_retract(0) && !pm_kind_is_retract(2));
    pm_batch_free(b);
    pm_kv_layout_clear(&l);
    pm_type_free(t);
}

static void test_binrow_keys(void **state)
{
    (void)state;
    /* (TIMESTAMP(6), DOUBLE, STRING) keys in typed order */
    pm_type *kt = pm_type_new_row(false);
    PM_OK_OR_FAIL(pm_type_add_field(kt, 0, "t", pm_type_new_temporal(PM_TYPE_TIMESTAMP, 6, true)));
    PM_OK_OR_FAIL(pm_type_add_field(kt, 1, "d", pm_type_new(PM_TYPE_DOUBLE, true)));
    PM_OK_OR_FAIL(pm_type_add_field(kt, 2, "s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    struct { bool tnull; int64_t ms; int32_t ns; double d; const char *s; } rows[] = {
        {true, 0, 0, 0, "a"},          {false, -5, 999000, 1.0, "a"}, {false, -4, 0, 1.0, "a"},
        {false, -4, 1000, -0.0, "a"},  {false, -4, 1000, 0.0, NULL},  {false, -4, 1000, 0.0, ""},
        {false, -4, 1000, 0.0, "ab"},  {false, -4, 1000, 0.0, "b"},   {false, -4, 1000, NAN, "a"},
        {false, 7, 0, -INFINITY, "z"},
    };
    size_t n = sizeof rows / sizeof rows[0];
    pm_buf prev = PM_BUF_INIT, cur = PM_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        pm_binrow_writer w = PM_BINROW_WRITER_INIT;
        PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 3));
        if (rows[i].tnull)
            PM_OK_OR_FAIL(pm_binrow_set_null(&w, 0, kt->fields[0].type));
        else
            PM_OK_OR_FAIL(pm_binrow_set_timestamp(&w, 0, 6, rows[i].ms, rows[i].ns));
        pm_binrow_set_f64(&w, 1, rows[i].d);
        if (rows[i].s)
            PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 2, rows[i].s, strlen(rows[i].s)));
        else
            PM_OK_OR_FAIL(pm_binrow_set_null(&w, 2, NULL));
        pm_buf ser = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_binrow_serialize(&w, &ser));
        pm_buf_clear(&cur);
        PM_OK_OR_FAIL(pm_kv_normkey_from_binrow(kt, ser.data, ser.len, &cur));
        if (i)
            assert_true(pm_kv_keycmp(prev.data, prev.len, cur.data, cur.len) < 0);
        pm_buf_clear(&prev);
        PM_OK_OR_FAIL(pm_buf_append(&prev, cur.data, cur.len));
        pm_buf_free(&ser);
        pm_binrow_writer_free(&w);
    }
    pm_buf_free(&prev);
    pm_buf_free(&cur);
    pm_type_free(kt);
}

static void test_batch_share(void **state)
{
    (void)state;
    pm_type *t = lt_row_type();
    lt_rec r[2] = {{1, 1, 0, 5, false, "x"}, {2, 2, 0, 6, false, "y"}};
    pm_batch *b = lt_batch(t, r, 2), *s;
    PM_OK_OR_FAIL(pm_kv_batch_share(b, &s));
    PM_OK_OR_FAIL(pm_batch_reset(b)); /* the reader reuses its batch */
    assert_int_equal(pm_batch_num_rows(s), 2);
    assert_int_equal(pm_column_i64(s->columns[4], 1), 6);
    pm_batch_free(b);
    assert_int_equal(pm_column_i64(s->columns[0], 0), 1);
    pm_batch_free(s);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encoding_order),
        cmocka_unit_test(test_not_null_violation),
        cmocka_unit_test(test_binrow_keys),
        cmocka_unit_test(test_batch_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
