/*
 * tests/fuzz/fuzz_meta_schema.c — schema JSON parser, writer and derived
 * keys.  A parsed schema must serialize to text that parses back and
 * serializes to the same bytes (compat defaults are applied on the first
 * read, so the written text is already a fixed point); derived-key
 * functions must not crash.
 */
#include <stdlib.h>
#include <string.h>

#include "meta/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pm_schema *s = NULL;
    pm_error *e = pm_schema_parse(data, size, "fuzz", &s);
    if (e) {
        pm_error_free(e);
        return 0;
    }
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
    if ((e = pm_schema_to_json(s, &a)) == NULL) {
        pm_schema *t = NULL;
        if ((e = pm_schema_parse(a.data, a.len, "fuzz-2", &t)) != NULL)
            abort(); /* our own output must parse */
        if ((e = pm_schema_to_json(t, &b)) != NULL || a.len != b.len || memcmp(a.data, b.data, a.len))
            abort();
        pm_schema_free(t);
    }
    pm_error_free(e);
    pm_type *pt = NULL;
    if ((e = pm_schema_partition_type(s, &pt)) == NULL)
        pm_type_free(pt);
    pm_error_free(e);
    pm_str_list l;
    if ((e = pm_schema_bucket_keys(s, &l)) == NULL)
        pm_str_list_free(&l);
    pm_error_free(e);
    pm_buf_free(&a);
    pm_buf_free(&b);
    pm_schema_free(s);
    return 0;
}
