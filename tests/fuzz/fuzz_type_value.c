/*
 * tests/fuzz/fuzz_type_value.c — value text/JSON parsing on arbitrary input.
 *
 * Input: byte 0 picks a column type, the rest is one value's text.  The
 * text goes through pm_column_append_text; when accepted, the value's JSON
 * (pm_column_format_json) must parse back through pm_column_append_json to
 * a value that prints identically (format ∘ parse is a fixed point).  The
 * rest is also fed to pm_batch_from_json_lines for a fixed row type.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "types/column.h"
#include "types/value.h"

static const char *const TYPES[] = {
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)", "DECIMAL(38, 10)",
    "DECIMAL(5, 5)", "STRING", "BYTES", "DATE", "TIME(0)", "TIME(3)", "TIMESTAMP(0)", "TIMESTAMP(3)",
    "TIMESTAMP(6)", "TIMESTAMP(9)", "TIMESTAMP(7) WITH LOCAL TIME ZONE", "ARRAY<INT>",
    "MAP<STRING, ARRAY<DOUBLE>>", "ROW<a INT, b ROW<c STRING, d DATE>>", "MULTISET<BIGINT>",
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    pm_type *t = NULL;
    if (pm_type_parse(&t, TYPES[data[0] % NTYPES]))
        abort();
    pm_column *c = NULL, *d = NULL;
    if (pm_column_new(&c, t) || pm_column_new(&d, t))
        abort();
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    pm_error *e = pm_column_append_text(c, text, n);
    if (!e) {
        pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
        if (pm_column_format_json(c, 0, &a))
            abort();
        json_t *v = json_loadb((const char *)a.data, a.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        if (!v)
            abort();
        pm_error *e2 = pm_column_append_json(d, v);
        if (e2)
            abort();
        if (pm_column_format_json(d, 0, &b) || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
            abort();
        json_decref(v);
        pm_buf_free(&a);
        pm_buf_free(&b);
    }
    pm_error_free(e);
    pm_batch *batch = NULL;
    e = pm_batch_from_json_lines_typed(&batch, "ROW<a INT, b STRING, c ARRAY<TIMESTAMP(3)>, d DECIMAL(20, 3)>", text, n);
    pm_error_free(e);
    pm_batch_free(batch);
    pm_column_release(c);
    pm_column_release(d);
    pm_type_free(t);
    return 0;
}
