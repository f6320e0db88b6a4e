/*
 * tests/unit/pkc/test_pkc_gather.c — pm_column_append_gather,
 * pm_column_append_runs (types/column.h) and pm_pk_append_range
 * (table/pk_column.h), the copies the primary-key compaction executor and
 * merge-on-read use for records kept unchanged: every cell equals
 * pm_column_append_from of the same source cells, for fixed-width,
 * boolean, string, decimal and nested columns, with and without nulls,
 * appended after existing rows; on random inputs, runs of random lengths
 * at every bit alignment.
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

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* Random rows of TYPE; each field null with probability null_pct %. */
static pm_batch *random_batch(size_t rows, unsigned null_pct)
{
    pm_buf j = PM_BUF_INIT;
    for (size_t r = 0; r < rows; r++) {
#define NUL() (rnd() % 100 < null_pct)
        PM_OK_OR_FAIL(pm_buf_append_str(&j, "{"));
        if (NUL())
            PM_OK_OR_FAIL(pm_buf_append_str(&j, "\"i\":null"));
        else
            PM_OK_OR_FAIL(pm_buf_printf(&j, "\"i\":%lld", (long long)(rnd() % 2000000) - 1000000));
        if (NUL())
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"n\":null"));
        else
            PM_OK_OR_FAIL(pm_buf_printf(&j, ",\"n\":%d", (int)(rnd() % 1000)));
        PM_OK_OR_FAIL(pm_buf_printf(&j, ",\"b\":%s", NUL() ? "null" : rnd() % 2 ? "true" : "false"));
        if (NUL()) {
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"s\":null"));
        } else {
            size_t len = rnd() % 40;
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"s\":\""));
            for (size_t k = 0; k < len; k++)
                PM_OK_OR_FAIL(pm_buf_append_byte(&j, (uint8_t)('a' + rnd() % 26)));
            PM_OK_OR_FAIL(pm_buf_append_str(&j, "\""));
        }
        if (NUL())
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"d\":null"));
        else
            PM_OK_OR_FAIL(pm_buf_printf(&j, ",\"d\":\"%d.%03d\"", (int)(rnd() % 100000), (int)(rnd() % 1000)));
        if (NUL())
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"t\":null"));
        else
            PM_OK_OR_FAIL(pm_buf_printf(&j, ",\"t\":%d", (int)(rnd() % 200) - 100));
        if (NUL())
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"a\":null}\n"));
        else
            PM_OK_OR_FAIL(pm_buf_printf(&j, ",\"a\":[%d,%d]}\n", (int)(rnd() % 10), (int)(rnd() % 10)));
#undef NUL
    }
    const char *txt = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&j, &txt));
    pm_batch *b = batch(TYPE, txt);
    pm_buf_free(&j);
    return b;
}

/* Random runs over three random sources (one without nulls, two with
 * many), appended after 0..9 existing rows, equal row by row
 * pm_column_append_from; the same cells through pm_column_append_gather. */
static void test_runs_equal_append_from_random(void **state)
{
    (void)state;
    for (int round = 0; round < 40; round++) {
        pm_batch *src[3] = {random_batch(300, 0), random_batch(300, 30), random_batch(300, 70)};
        pm_column_run runs[64];
        size_t nruns = 1 + rnd() % 64;
        uint16_t which[64 * 40];
        int64_t rows[64 * 40];
        size_t ncell = 0;
        for (size_t r = 0; r < nruns; r++) {
            uint16_t s = (uint16_t)(rnd() % 3);
            uint32_t n = (uint32_t)(1 + rnd() % (rnd() % 4 ? 12 : 40));
            int64_t row = (int64_t)(rnd() % (300 - n));
            runs[r] = (pm_column_run){row, n, s};
            for (uint32_t i = 0; i < n; i++) {
                which[ncell] = s;
                rows[ncell++] = row + i;
            }
        }
        size_t pre = rnd() % 10;
        const pm_batch *pre_src = src[rnd() % 3];
        for (size_t c = 0; c < src[0]->ncolumns; c++) {
            const pm_column *cols[3] = {src[0]->columns[c], src[1]->columns[c], src[2]->columns[c]};
            pm_column *want = NULL, *got = NULL, *gath = NULL;
            PM_OK_OR_FAIL(pm_column_new(&want, cols[0]->type));
            PM_OK_OR_FAIL(pm_column_new(&got, cols[0]->type));
            PM_OK_OR_FAIL(pm_column_new(&gath, cols[0]->type));
            for (size_t i = 0; i < pre; i++) {
                PM_OK_OR_FAIL(pm_column_append_from(want, pre_src->columns[c], (int64_t)i));
                PM_OK_OR_FAIL(pm_column_append_from(got, pre_src->columns[c], (int64_t)i));
                PM_OK_OR_FAIL(pm_column_append_from(gath, pre_src->columns[c], (int64_t)i));
            }
            for (size_t i = 0; i < ncell; i++)
                PM_OK_OR_FAIL(pm_column_append_from(want, cols[which[i]], rows[i]));
            PM_OK_OR_FAIL(pm_column_append_runs(got, cols, runs, nruns));
            PM_OK_OR_FAIL(pm_column_append_gather(gath, cols, which, rows, (int64_t)ncell));
            char *a = column_json(want), *b = column_json(got), *g = column_json(gath);
            assert_string_equal(a, b);
            assert_string_equal(a, g);
            assert_int_equal(want->length, got->length);
            assert_int_equal(want->null_count, got->null_count);
            assert_int_equal(want->null_count, gath->null_count);
            /* no bitmap appears for rows without nulls */
            if (!want->null_count)
                assert_int_equal(got->validity.len, want->validity.len);
            free(a);
            free(b);
            free(g);
            pm_column_release(want);
            pm_column_release(got);
            pm_column_release(gath);
        }
        for (int k = 0; k < 3; k++)
            pm_batch_free(src[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather_equals_append_from),
        cmocka_unit_test(test_runs_equal_append_from_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
