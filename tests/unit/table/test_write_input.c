/*
 * tests/unit/table/test_write_input.c — JSON lines and CSV readers of
 * `paimon write`: batching, records across source-chunk boundaries,
 * quoting, nulls vs empty strings, CRLF, blank lines, error line numbers.
 */
#include <string.h>

#include "pm_test.h"
#include "table/write_input.h"
#include "types/column.h"

static pm_type *row_type(const char *s)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, s));
    return t;
}

/* All rows as JSON text, one per line; the reader's error (if any) in *err. */
static char *read_all(pm_text_format fmt, const pm_type *rt, const char *in, size_t chunk, int64_t batch,
                      int *nbatches, pm_error **err)
{
    pm_mem_source src = {(const uint8_t *)in, strlen(in), 0, chunk};
    pm_text_rows *r = NULL;
    PM_OK_OR_FAIL(pm_text_rows_new(&r, fmt, rt, pm_mem_source_read, &src, batch));
    pm_buf out = PM_BUF_INIT;
    *nbatches = 0;
    *err = NULL;
    for (;;) {
        pm_batch *b = NULL;
        pm_error *e = pm_text_rows_next(r, &b);
        if (e) {
            *err = e;
            break;
        }
        if (!b)
            break;
        (*nbatches)++;
        for (int64_t i = 0; i < b->num_rows; i++) {
            PM_OK_OR_FAIL(pm_batch_format_row_json(b, i, &out));
            PM_OK_OR_FAIL(pm_buf_append_byte(&out, '\n'));
        }
    }
    pm_text_rows_free(r);
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, 0));
    return (char *)pm_buf_detach(&out, NULL);
}

static void test_jsonl(void **state)
{
    (void)state;
    pm_type *rt = row_type("ROW<id INT NOT NULL, s STRING>");
    const char *in = "{\"id\":1,\"s\":\"a\"}\n\n{\"id\":2}\r\n{\"id\":3,\"s\":\"x\\ny\"}";
    for (size_t chunk = 0; chunk < 5; chunk++) {
        int nb;
        pm_error *e;
        char *got = read_all(PM_TEXT_JSONL, rt, in, chunk, 2, &nb, &e);
        assert_null(e);
        assert_string_equal(got, "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":null}\n{\"id\":3,\"s\":\"x\\ny\"}\n");
        assert_int_equal(nb, 2); /* lines 1-2 (one blank), then 3-4 */
        free(got);
    }
    /* errors name the line of the whole input */
    int nb;
    pm_error *e;
    char *got = read_all(PM_TEXT_JSONL, rt, "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n{\"id\":\"x\"}\n", 3, 1, &nb, &e);
    free(got);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "line 4"));
    free(msg);
    pm_error_free(e);
    got = read_all(PM_TEXT_JSONL, rt, "", 0, 10, &nb, &e);
    assert_null(e);
    assert_int_equal(nb, 0);
    free(got);
    pm_type_free(rt);
}

static void test_csv(void **state)
{
    (void)state;
    pm_type *rt = row_type("ROW<id INT NOT NULL, s STRING, d DECIMAL(5, 2), arr ARRAY<INT>>");
    const char *in = "s,id,arr\r\n"
                     "\"a, \"\"q\"\"\",1,\"[1,2]\"\r\n"
                     ",2,\n"
                     "\n"
                     "\"\",3,[]\n"
                     "\"multi\nline\",4,";
    for (size_t chunk = 0; chunk < 6; chunk++) {
        int nb;
        pm_error *e;
        char *got = read_all(PM_TEXT_CSV, rt, in, chunk, 3, &nb, &e);
        assert_null(e);
        assert_string_equal(got, "{\"s\":\"a, \\\"q\\\"\",\"id\":1,\"arr\":[1,2]}\n"
                                 "{\"s\":null,\"id\":2,\"arr\":null}\n"
                                 "{\"s\":\"\",\"id\":3,\"arr\":[]}\n"
                                 "{\"s\":\"multi\\nline\",\"id\":4,\"arr\":null}\n");
        assert_int_equal(nb, 2);
        free(got);
    }
    struct {
        const char *in, *msg;
    } bad[] = {
        {"id,zz\n1,2\n", "unknown column 'zz'"},
        {"id,id\n1,2\n", "appears twice"},
        {"id,s\n1,a\n2\n", "line 3: 1 cells"},
        {"id,s\n1,\"abc\n", "line 2: unterminated"},
        {"id,s\n1,\"ab\"c\n", "line 2: text after a closing quote"},
        {"id,s\n1,a\"b\n", "quote inside an unquoted field"},
        {"id,s\n\n1,a\n,b\n", "line 4: column 'id' is NOT NULL"},
        {"id,d\n1,1.234\n", "line 2, column 'd'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int nb;
        pm_error *e;
        char *got = read_all(PM_TEXT_CSV, rt, bad[i].in, 2, 10, &nb, &e);
        free(got);
        assert_non_null(e);
        assert_int_equal(pm_error_code(e), PM_EINVALID);
        char *msg = pm_error_format(e);
        if (!strstr(msg, bad[i].msg))
            fail_msg("case %zu: '%s' not in '%s'", i, bad[i].msg, msg);
        free(msg);
        pm_error_free(e);
    }
    pm_type_free(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jsonl),
        cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests_name("write_input", tests, NULL, NULL);
}
