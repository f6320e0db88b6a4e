/*
 * tests/unit/compact/compact_rows_util.h — the rows of a table as JSON lines
 * (read order, or sorted: the order of a task's inputs depends on their
 * sizes and random names) and its scan, for the passthrough tests.
 */
#ifndef PM_TEST_COMPACT_ROWS_UTIL_H
#define PM_TEST_COMPACT_ROWS_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "pm_test.h"
#include "table/scan.h"
#include "table/table_read.h"

static inline int cmp_line(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The lines of text sorted (in place), joined again. */
static inline char *sorted_lines(char *text)
{
    size_t n = 0, cap = 64;
    char **lines = malloc(cap * sizeof *lines);
    for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n")) {
        if (n == cap)
            lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = p;
    }
    qsort(lines, n, sizeof *lines, cmp_line);
    pm_buf b = PM_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        PM_OK_OR_FAIL(pm_buf_append_str(&b, lines[i]));
        PM_OK_OR_FAIL(pm_buf_append_byte(&b, '\n'));
    }
    free(lines);
    const char *t;
    PM_OK_OR_FAIL(pm_buf_cstr(&b, &t));
    return (char *)pm_buf_detach(&b, &(size_t){0});
}

/* All rows as JSON lines, in read order. */
static inline char *rows_text(pm_table *t)
{
    pm_scan_result *s = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &s));
    pm_table_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_reader_new(&r, t, s, NULL));
    pm_buf out = PM_BUF_INIT;
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_table_reader_next(r, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            PM_OK_OR_FAIL(pm_batch_format_row_json(b, i, &out));
            PM_OK_OR_FAIL(pm_buf_append_byte(&out, '\n'));
        }
    }
    const char *text;
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &text));
    pm_table_reader_free(r);
    pm_scan_result_free(s);
    return (char *)pm_buf_detach(&out, &(size_t){0});
}

static inline pm_scan_result *scan(pm_table *t)
{
    pm_scan_result *s = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &s));
    return s;
}

#endif
