/*
 * tests/unit/pkc/test_pkc_gather.c — pm_column_append_gather
 * (types/column.h) and pm_pk_append_range (table/pk_column.h), the copies the primary-key
 * compaction executor and merge-on-read use for records kept unchanged:
 * every cell equals pm_column_append_from of the same source cells, for
 * fixed-width, boolean, string, decimal and nested columns, with and
 * without nulls, appended after existing rows.
 */
#include <string.h>

#include "pm_test.h"
#include "table/pk_column.h"
#include "types/column.h"
#include "types/value.h"

static pm_batch *batch(const char *type, const char *jsonl)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, type));
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, t, jsonl, strlen(jsonl)));
    pm_type_free(t);
    return b;
}

static char *column_json(const pm_column *c)
{
    pm_buf out = PM_BUF_INIT;
    for (int64_t i = 0; i < c->length; i++) {
        PM_OK_OR_FAIL(pm_column_format_json(c, i, &out));
        PM_OK_OR_FAIL(pm_buf_append_str(&out, "|"));
    }
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &s));
    char *r = strdup(s);
    pm_buf_free(&out);
    return r;
}

static const char *TYPE = "ROW<i BIGINT, n INT, b BOOLEAN, s STRING, d DECIMAL(20, 3), t TINYINT, a ARRAY<INT>>";

static void test_gather_equals_append_from(void **state)
{
    (void)state;
    pm_batch *x = batch(TYPE, "{\"i\":1,\"n\":10,\"b\":true,\"s\":\"a\",\"d\":\"1.500\",\"t\":1,\"a\":[1]}\n"
                              "{\"i\":2,\"n\":null,\"b\":false,\"s\":\"\",\"d\":null,\"t\":2,\"a\":null}\n"
                              "{\"i\":3,\"n\":30,\"b\":null,\"s\":\"ccc\",\"d\":\"-3.000\",\"t\":3,\"a\":[]}\n");
    pm_batch *y = batch(TYPE, "{\"i\":4,\"n\":40,\"b\":true,\"s\":\"dddd\",\"d\":\"4.000\",\"t\":4,\"a\":[4,5]}\n"
                              "{\"i\":5,\"n\":50,\"b\":false,\"s\":null,\"d\":\"5.000\",\"t\":null,\"a\":[6]}\n");
    const uint16_t which[] = {1, 0, 0, 1, 0, 1, 1};
    const int64_t rows[] = {0, 2, 1, 1, 0, 0, 1};
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t c = 0; c < x->ncolumns; c++) {
        pm_column *want = NULL, *got = NULL, *range = NULL, *rwant = NULL;
        PM_OK_OR_FAIL(pm_column_new(&want, x->columns[c]->type));
        PM_OK_OR_FAIL(pm_column_new(&got, x->columns[c]->type));
        PM_OK_OR_FAIL(pm_column_new(&range, x->columns[c]->type));
        PM_OK_OR_FAIL(pm_column_new(&rwant, x->columns[c]->type));
        /* a row already there (no nulls) */
        PM_OK_OR_FAIL(pm_column_append_from(want, y->columns[c], 0));
        PM_OK_OR_FAIL(pm_column_append_from(got, y->columns[c], 0));
        const pm_column *srcs[2] = {x->columns[c], y->columns[c]};
        for (size_t i = 0; i < n; i++)
            PM_OK_OR_FAIL(pm_column_append_from(want, srcs[which[i]], rows[i]));
        PM_OK_OR_FAIL(pm_column_append_gather(got, srcs, which, rows, (int64_t)n));
        char *a = column_json(want), *b = column_json(got);
        assert_string_equal(a, b);
        assert_int_equal(want->null_count, got->null_count);
        free(a);
        free(b);
        /* range: rows 1..2 of x after row 1 of y */
        PM_OK_OR_FAIL(pm_column_append_from(rwant, y->columns[c], 1));
        PM_OK_OR_FAIL(pm_column_append_from(range, y->columns[c], 1));
        PM_OK_OR_FAIL(pm_column_append_from(rwant, x->columns[c], 1));
        PM_OK_OR_FAIL(pm_column_append_from(rwant, x->columns[c], 2));
        PM_OK_OR_FAIL(pm_pk_append_range(range, x->columns[c], 1, 2));
        a = column_json(rwant);
        b = column_json(range);
        assert_string_equal(a, b);
        free(a);
        free(b);
        pm_column_release(want);
        pm_column_release(got);
        pm_column_release(range);
        pm_column_release(rwant);
    }
    pm_batch_free(x);
    pm_batch_free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather_equals_append_from),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
