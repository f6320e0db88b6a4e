/*
 * tests/fuzz/fuzz_meta_snapshot.c — snapshot JSON parser and writer.
 * Any input must parse or fail cleanly; a parsed snapshot must serialize,
 * and the serialized text must parse back and serialize to the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "meta/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pm_snapshot *s = NULL;
    pm_error *e = pm_snapshot_parse(data, size, "fuzz", &s);
    if (e) {
        pm_error_free(e);
        return 0;
    }
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
    if ((e = pm_snapshot_to_json(s, &a)) == NULL) {
        pm_snapshot *t = NULL;
        if ((e = pm_snapshot_parse(a.data, a.len, "fuzz-2", &t)) != NULL)
            abort(); /* our own output must parse */
        if ((e = pm_snapshot_to_json(t, &b)) != NULL || a.len != b.len || memcmp(a.data, b.data, a.len))
            abort(); /* and be a fixed point */
        pm_snapshot_free(t);
    }
    pm_error_free(e);
    pm_buf_free(&a);
    pm_buf_free(&b);
    pm_snapshot_free(s);
    return 0;
}
