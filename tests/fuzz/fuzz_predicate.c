/*
 * tests/fuzz/fuzz_predicate.c — the filter language of reads, deletes and
 * materialization (table/predicate.h): parsing against a row of every
 * atomic type (and one nested column, which must be refused), and, for a
 * filter that parses, its evaluation on a partition row.  The input is
 * split at the first NUL into the filter text and the bytes of a
 * serialized BinaryRow (untrusted, as a manifest's partition is).
 */
#include <stdlib.h>
#include <string.h>

#include "table/predicate.h"
#include "paimon/types.h"

static const char ROW[] = "ROW<i INT, b BIGINT, s STRING, d DOUBLE, f FLOAT, dec DECIMAL(10, 2), "
                          "big DECIMAL(38, 4), day DATE, ts TIMESTAMP(6), lts TIMESTAMP(3) WITH LOCAL TIME ZONE, "
                          "ok BOOLEAN, bin BYTES, t TINYINT, sm SMALLINT, tm TIME, c CHAR(3), arr ARRAY<INT>>";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    size_t tl = strlen(text);
    const uint8_t *row = tl < size ? data + tl + 1 : data + size;
    size_t rn = tl < size ? size - tl - 1 : 0;
    pm_type *rt = NULL;
    pm_error *e = pm_type_parse(&rt, ROW);
    if (e) {
        pm_error_free(e);
        free(text);
        return 0;
    }
    pm_predicate *p = NULL;
    e = pm_predicate_parse(&p, text, rt);
    if (!e) {
        bool match = false;
        pm_error_free(pm_predicate_check_partition(p, rt, "fuzz"));
        pm_error_free(pm_predicate_partition_match(p, rt, row, rn, &match));
        pm_predicate_free(p);
    }
    pm_error_free(e);
    pm_type_free(rt);
    free(text);
    return 0;
}
