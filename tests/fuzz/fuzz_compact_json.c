/*
 * tests/fuzz/fuzz_compact_json.c — the strict JSON readers of compaction
 * plans, tasks and results.  The first byte picks the reader; any input
 * must parse or fail cleanly; a parsed value must serialize, parse back and
 * serialize to the same text (a fixed point).
 */
#include <stdlib.h>
#include <string.h>

#include "compact/compact_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int which = data[0] % 3;
    const char *json = (const char *)data + 1;
    size_t len = size - 1;
    char *a = NULL, *b = NULL;
    pm_error *e = NULL;
    if (which == 0) {
        pm_compact_task *t = NULL, *u = NULL;
        if ((e = pm_compact_task_from_json(&t, json, len)) == NULL) {
            if ((e = pm_compact_task_to_json(&a, t)) == NULL) {
                if (pm_compact_task_from_json(&u, a, strlen(a)) || pm_compact_task_to_json(&b, u) || strcmp(a, b))
                    abort();
            }
        }
        pm_compact_task_free(t);
        pm_compact_task_free(u);
    } else if (which == 1) {
        pm_compact_result *r = NULL, *s = NULL;
        if ((e = pm_compact_result_from_json(&r, json, len)) == NULL) {
            if ((e = pm_compact_result_to_json(&a, r)) == NULL) {
                if (pm_compact_result_from_json(&s, a, strlen(a)) || pm_compact_result_to_json(&b, s) ||
                    strcmp(a, b))
                    abort();
            }
        }
        pm_compact_result_free(r);
        pm_compact_result_free(s);
    } else {
        pm_compact_plan *p = NULL, *q = NULL;
        if ((e = pm_compact_plan_from_json(&p, json, len)) == NULL) {
            if ((e = pm_compact_plan_to_json(&a, p)) == NULL) {
                if (pm_compact_plan_from_json(&q, a, strlen(a)) || pm_compact_plan_to_json(&b, q) || strcmp(a, b))
                    abort();
            }
        }
        pm_compact_plan_free(p);
        pm_compact_plan_free(q);
    }
    pm_error_free(e);
    free(a);
    free(b);
    return 0;
}
