/*
 * tests/unit/pk/test_pk_column.c — pm_pk_append_range against row-by-row
 * pm_column_append_from: random ranges of columns of every layout (fixed
 * width, decimal, boolean, strings, nested fallback) with and without
 * nulls, appended one after another onto columns that already hold rows,
 * must print the same JSON and keep null counts and bitmaps consistent.
 */
#include <string.h>

#include "pm_test.h"
#include "table/pk_column.h"
#include "types/value.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void column_json(const pm_column *c, pm_buf *out)
{
    pm_buf_clear(out);
    for (int64_t i = 0; i < c->length; i++) {
        PM_OK_OR_FAIL(pm_column_format_json(c, i, out));
        PM_OK_OR_FAIL(pm_buf_append_str(out, "\n"));
    }
}

static void test_ranges(void **state)
{
    (void)state;
    const char *type = "ROW<i INT, b BOOLEAN, d DECIMAL(10, 2), big DECIMAL(30, 2), s STRING, x DOUBLE, "
                       "a ARRAY<INT>, nn BIGINT NOT NULL>";
    uint64_t seed = 42;
    pm_buf in = PM_BUF_INIT;
    for (int i = 0; i < 300; i++) {
        bool nulls = i >= 100; /* the first 100 rows have no null at all */
#define F(fmt, ...)                                                                         \
    do {                                                                                    \
        if (nulls && rnd(&seed) % 3 == 0)                                                   \
            PM_OK_OR_FAIL(pm_buf_printf(&in, fmt, "null"));                                 \
        else                                                                                \
            PM_OK_OR_FAIL(pm_buf_printf(&in, __VA_ARGS__));                                 \
    } while (0)
        int v = (int)(rnd(&seed) % 10000);
        PM_OK_OR_FAIL(pm_buf_append_str(&in, "{"));
        F("\"i\":%s", "\"i\":%d", v);
        F(",\"b\":%s", ",\"b\":%s", v % 2 ? "true" : "false");
        F(",\"d\":%s", ",\"d\":\"%d.%02d\"", v, v % 100);
        F(",\"big\":%s", ",\"big\":\"%d%d.%02d\"", v, v, v % 100);
        F(",\"s\":%s", ",\"s\":\"%.*s\"", v % 17, "abcdefghijklmnopqrstuvwxyz");
        F(",\"x\":%s", ",\"x\":%d.25", v);
        F(",\"a\":%s", ",\"a\":[%d,null]", v);
        PM_OK_OR_FAIL(pm_buf_printf(&in, ",\"nn\":%d}\n", v));
#undef F
    }
    pm_batch *src = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&src, type, (const char *)in.data, in.len));
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
    for (size_t c = 0; c < src->ncolumns; c++) {
        for (int round = 0; round < 20; round++) {
            pm_column *bulk = NULL, *slow = NULL;
            PM_OK_OR_FAIL(pm_column_new(&bulk, src->columns[c]->type));
            PM_OK_OR_FAIL(pm_column_new(&slow, src->columns[c]->type));
            for (int k = 0; k < 6; k++) {
                int64_t from = (int64_t)(rnd(&seed) % 300);
                int64_t n = (int64_t)(rnd(&seed) % (uint64_t)(300 - from + 1));
                if (round < 5)
                    from = (int64_t)(rnd(&seed) % 90), n = (int64_t)(rnd(&seed) % 10); /* null-free part */
                PM_OK_OR_FAIL(pm_pk_append_range(bulk, src->columns[c], from, n));
                for (int64_t r = from; r < from + n; r++)
                    PM_OK_OR_FAIL(pm_column_append_from(slow, src->columns[c], r));
                assert_int_equal(bulk->length, slow->length);
                assert_int_equal(bulk->null_count, slow->null_count);
            }
            column_json(bulk, &a);
            column_json(slow, &b);
            assert_int_equal(a.len, b.len);
            if (a.len)
                assert_memory_equal(a.data, b.data, a.len);
            /* bitmap consistent with the null count */
            int64_t nulls = 0;
            for (int64_t r = 0; r < bulk->length; r++)
                nulls += pm_column_is_null(bulk, r);
            assert_int_equal(nulls, bulk->null_count);
            pm_column_release(bulk);
            pm_column_release(slow);
        }
    }
    pm_buf_free(&a);
    pm_buf_free(&b);
    pm_buf_free(&in);
    pm_batch_free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
