/*
 * tests/unit/dv/test_dv_apply.c — applying deletion vectors to batches:
 * selections and in-place filtering of every column kind (fixed width with
 * and without nulls, strings, booleans, arrays, nested rows) compared row
 * by row with the original batch.
 */
#include <string.h>

#include "dv/dv_apply.h"
#include "pm_test.h"
#include "types/column.h"

#define ROWS 1000

static pm_batch *make_batch(void)
{
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<a BIGINT NOT NULL, b STRING, c INT, d ARRAY<INT>, "
                                    "e BOOLEAN, f ROW<x DOUBLE, y STRING>, g STRING NOT NULL, h BYTES>"));
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    pm_type_free(t);
    char s[32];
    for (int64_t i = 0; i < ROWS; i++) {
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], i * 10));
        snprintf(s, sizeof s, "row-%lld", (long long)i);
        if (i % 7 == 0)
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[1]));
        else
            PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[1], s, strlen(s)));
        if (i % 5 == 0)
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[2]));
        else
            PM_OK_OR_FAIL(pm_column_append_i32(b->columns[2], (int32_t)i));
        pm_column *arr = b->columns[3];
        for (int k = 0; k < (int)(i % 3); k++)
            PM_OK_OR_FAIL(pm_column_append_i32(arr->children[0], (int32_t)(i + k)));
        PM_OK_OR_FAIL(pm_column_end_nested(arr));
        PM_OK_OR_FAIL(pm_column_append_bool(b->columns[4], i % 2 == 0));
        pm_column *row = b->columns[5];
        PM_OK_OR_FAIL(pm_column_append_f64(row->children[0], (double)i / 4));
        PM_OK_OR_FAIL(pm_column_append_bytes(row->children[1], s, strlen(s)));
        PM_OK_OR_FAIL(pm_column_end_nested(row));
        /* no nulls: the variable-width fast path; every 4th value empty */
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[6], s, i % 4 ? strlen(s) : 0));
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[7], "", 0)); /* all empty */
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, ROWS));
    return b;
}

static char *row_json(const pm_batch *b, int64_t r)
{
    pm_buf out = PM_BUF_INIT;
    const char *s;
    PM_OK_OR_FAIL(pm_batch_format_row_json(b, r, &out));
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &s));
    return (char *)pm_buf_detach(&out, NULL);
}

static void test_filter_batch(void **state)
{
    (void)state;
    const int64_t start = 5000; /* the batch holds positions 5000..5999 */
    pm_dv *dv;
    PM_OK_OR_FAIL(pm_dv_new(false, &dv));
    PM_OK_OR_FAIL(pm_dv_add(dv, 17, NULL));          /* before the batch */
    PM_OK_OR_FAIL(pm_dv_add(dv, 7000, NULL));        /* after it */
    PM_OK_OR_FAIL(pm_dv_add(dv, start, NULL));       /* first row */
    PM_OK_OR_FAIL(pm_dv_add(dv, start + ROWS - 1, NULL)); /* last row */
    PM_OK_OR_FAIL(pm_dv_add_range(dv, start + 100, start + 250));
    for (int64_t i = 300; i < ROWS; i += 13)
        PM_OK_OR_FAIL(pm_dv_add(dv, start + i, NULL));

    pm_batch *orig = make_batch(), *b = make_batch();
    pm_column *held = pm_column_retain(b->columns[1]); /* like an Arrow export */

    int64_t *sel = malloc(ROWS * sizeof *sel), nsel;
    PM_OK_OR_FAIL(pm_dv_selection(dv, start, ROWS, sel, &nsel));
    PM_OK_OR_FAIL(pm_dv_filter_batch(dv, start, b));
    assert_int_equal(pm_batch_num_rows(b), nsel);
    int64_t expect = 0;
    for (int64_t i = 0; i < ROWS; i++)
        expect += !pm_dv_contains(dv, start + i);
    assert_int_equal(nsel, expect);
    assert_int_equal(nsel, ROWS - 2 - 150 - 54);
    for (int64_t k = 0; k < nsel; k++) {
        assert_false(pm_dv_contains(dv, start + sel[k]));
        char *want = row_json(orig, sel[k]), *got = row_json(b, k);
        assert_string_equal(got, want);
        free(want);
        free(got);
    }
    for (size_t c = 0; c < b->ncolumns; c++)
        assert_int_equal(b->columns[c]->length, nsel);
    assert_int_equal(held->length, ROWS); /* the old column is untouched */
    pm_column_release(held);

    /* A range with no deletions leaves the batch alone. */
    pm_batch *c = make_batch();
    pm_column *first = c->columns[0];
    PM_OK_OR_FAIL(pm_dv_filter_batch(dv, 100000, c));
    assert_int_equal(pm_batch_num_rows(c), ROWS);
    assert_ptr_equal(c->columns[0], first);
    PM_OK_OR_FAIL(pm_dv_filter_batch(NULL, 0, c));
    assert_int_equal(pm_batch_num_rows(c), ROWS);

    /* Everything deleted. */
    pm_dv *all;
    PM_OK_OR_FAIL(pm_dv_new(true, &all));
    PM_OK_OR_FAIL(pm_dv_add_range(all, 0, ROWS));
    PM_OK_OR_FAIL(pm_dv_filter_batch(all, 0, c));
    assert_int_equal(pm_batch_num_rows(c), 0);
    assert_int_equal(c->columns[3]->length, 0);
    PM_OK_OR_FAIL(pm_dv_selection(all, 0, ROWS, sel, &nsel));
    assert_int_equal(nsel, 0);
    PM_OK_OR_FAIL(pm_dv_selection(NULL, 3, 10, sel, &nsel));
    assert_int_equal(nsel, 10);
    assert_int_equal(sel[9], 9);
    PM_EXPECT_ERR(pm_dv_selection(all, -1, 10, sel, &nsel), PM_EINVALID);

    free(sel);
    pm_dv_free(all);
    pm_dv_free(dv);
    pm_batch_free(orig);
    pm_batch_free(b);
    pm_batch_free(c);
}

/* pm_batch_filter with an explicit keep bitmap, 64-bit positions. */
static void test_filter_keep_bitmap(void **state)
{
    (void)state;
    pm_batch *b = make_batch(), *orig = make_batch();
    uint8_t keep[(ROWS + 7) / 8];
    memset(keep, 0, sizeof keep);
    keep[0] = 0x81;        /* rows 0 and 7 */
    keep[ROWS / 8 - 1] = 0x80; /* row 999 */
    PM_OK_OR_FAIL(pm_batch_filter(b, keep));
    assert_int_equal(pm_batch_num_rows(b), 3);
    const int64_t rows[] = {0, 7, 999};
    for (int k = 0; k < 3; k++) {
        char *want = row_json(orig, rows[k]), *got = row_json(b, k);
        assert_string_equal(got, want);
        free(want);
        free(got);
    }

    /* 64-bit: the batch sits just below a key boundary and crosses it. */
    pm_batch *c = make_batch();
    int64_t start = (INT64_C(1) << 32) - 500;
    pm_dv *dv;
    PM_OK_OR_FAIL(pm_dv_new(true, &dv));
    PM_OK_OR_FAIL(pm_dv_add(dv, start + 499, NULL));
    PM_OK_OR_FAIL(pm_dv_add(dv, start + 500, NULL));
    PM_OK_OR_FAIL(pm_dv_add(dv, start + 0, NULL));
    PM_OK_OR_FAIL(pm_dv_filter_batch(dv, start, c));
    assert_int_equal(pm_batch_num_rows(c), ROWS - 3);
    char *want = row_json(orig, 501), *got = row_json(c, 498);
    assert_string_equal(got, want);
    free(want);
    free(got);
    pm_dv_free(dv);
    pm_batch_free(c);
    pm_batch_free(b);
    pm_batch_free(orig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_batch),
        cmocka_unit_test(test_filter_keep_bitmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
