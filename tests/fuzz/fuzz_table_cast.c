/*
 * tests/fuzz/fuzz_table_cast.c — schema-evolution casts and partition
 * specs from hostile text.
 *
 * Input: byte 0 picks a target type; the rest, split at the first '\n',
 * is (1) a string value cast from STRING (and from CHAR/BYTES) to that
 * type, every result formatted as JSON, and its decimal/double/timestamp
 * parse re-cast back to STRING; (2) a partition spec text parsed and,
 * when valid, its keys and values walked.
 */
#include <stdlib.h>
#include <string.h>

#include "table/cast.h"
#include "table/scan.h"
#include "types/column.h"

static const char *const TARGETS[] = {
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(38, 10)", "DECIMAL(5, 2)",
    "DECIMAL(18, 0)", "CHAR(3)", "VARCHAR(4)", "BINARY(3)", "BYTES", "DATE", "TIME(3)", "TIMESTAMP(0)",
    "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)", "TIMESTAMP(6) WITH LOCAL TIME ZONE",
};

static void cast_one(const char *from, const char *to, const uint8_t *p, size_t n)
{
    pm_type *ft = NULL, *tt = NULL, *st = NULL;
    pm_column *src = NULL, *dst = NULL, *back = NULL;
    pm_buf scratch = PM_BUF_INIT, out = PM_BUF_INIT;
    pm_error *e = pm_type_parse(&ft, from);
    if (!e)
        e = pm_type_parse(&tt, to);
    if (!e)
        e = pm_type_parse(&st, "STRING");
    if (!e)
        e = pm_column_new(&src, ft);
    if (!e)
        e = pm_column_new(&dst, tt);
    if (!e)
        e = pm_column_new(&back, st);
    if (!e)
        e = pm_column_append_bytes(src, p, n);
    if (!e)
        e = pm_column_append_null(src);
    pm_cast_kind k;
    if (!e)
        e = pm_cast_plan(ft, tt, &k);
    if (!e)
        e = pm_cast_append(src, dst, k, &scratch);
    for (int64_t i = 0; !e && i < dst->length; i++)
        e = pm_column_format_json(dst, i, &out);
    if (!e)
        e = pm_cast_plan(tt, st, &k);
    if (!e)
        e = pm_cast_append(dst, back, k, &scratch);
    pm_error_free(e);
    pm_buf_free(&scratch);
    pm_buf_free(&out);
    pm_column_release(src);
    pm_column_release(dst);
    pm_column_release(back);
    pm_type_free(ft);
    pm_type_free(tt);
    pm_type_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    const char *to = TARGETS[data[0] % (sizeof TARGETS / sizeof TARGETS[0])];
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    const uint8_t *nl = memchr(p, '\n', n);
    size_t vn = nl ? (size_t)(nl - p) : n;
    cast_one("STRING", to, p, vn);
    cast_one("CHAR(5)", to, p, vn);
    cast_one("BYTES", "BINARY(2)", p, vn);
    if (nl) {
        char *spec = malloc(n - vn);
        if (!spec)
            return 0;
        memcpy(spec, nl + 1, n - vn - 1);
        spec[n - vn - 1] = 0;
        pm_partition_spec s;
        pm_error *e = pm_partition_spec_parse(spec, &s);
        if (!e) {
            size_t total = 0;
            for (size_t i = 0; i < s.count; i++)
                total += strlen(s.keys[i]) + strlen(s.values[i]);
            (void)total;
            pm_partition_spec_clear(&s);
        }
        pm_error_free(e);
        free(spec);
    }
    return 0;
}
