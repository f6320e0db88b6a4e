/*
 * tests/fuzz/fuzz_compact_json.c — the strict JSON readers and the
 * untrusted-value checks of compaction plans, tasks and results.  The
 * first byte picks the reader (0 task, 1 result, 2 plan, 3 document kind).
 * Any input must parse or fail cleanly.  A parsed value
 *   - names only plain files (the reader checks them: the check run again
 *     must pass, else abort);
 *   - goes through the table-side checks with external roots without
 *     crashing (they may refuse);
 *   - serializes, parses back and serializes to the same text (a fixed
 *     point), and its document kind is the reader's.
 * Seeds in tests/fuzz/corpus/fuzz_compact_json/ (append and primary-key
 * documents, deletion vectors, changelog files, external paths, a `../`
 * name, kind probes).
 */
#include <stdlib.h>
#include <string.h>

#include "compact/compact_internal.h"

#define ROOTS "/fuzz/root, file:///fuzz/other"

static void must(pm_error *e)
{
    if (e)
        abort();
}

static void same_kind(const char *json, pm_compact_doc_kind want)
{
    pm_compact_doc_kind k;
    must(pm_compact_doc_kind_of(&k, json, strlen(json)));
    if (k != want)
        abort();
}

static void fuzz_task(const char *json, size_t len)
{
    pm_compact_task *t = NULL, *u = NULL;
    char *a = NULL, *b = NULL;
    pm_error *e = pm_compact_task_from_json(&t, json, len);
    if (e) {
        pm_error_free(e);
        return;
    }
    must(pm_compact_task_check_files(t, "task", false, NULL));
    pm_error_free(pm_compact_task_check_files(t, "task", true, ROOTS));
    e = pm_compact_task_to_json(&a, t);
    pm_error_free(e);
    if (!e) {
        same_kind(a, PM_COMPACT_DOC_TASK);
        if (pm_compact_task_from_json(&u, a, strlen(a)) || pm_compact_task_to_json(&b, u) || strcmp(a, b))
            abort();
    }
    pm_compact_task_free(t);
    pm_compact_task_free(u);
    free(a);
    free(b);
}

static void fuzz_result(const char *json, size_t len)
{
    pm_compact_result *r = NULL, *s = NULL;
    char *a = NULL, *b = NULL;
    pm_error *e = pm_compact_result_from_json(&r, json, len);
    if (e) {
        pm_error_free(e);
        return;
    }
    must(pm_compact_result_check_files(r, "result", false, NULL));
    pm_error_free(pm_compact_result_check_files(r, "result", true, ROOTS));
    e = pm_compact_result_to_json(&a, r);
    pm_error_free(e);
    if (!e) {
        same_kind(a, PM_COMPACT_DOC_RESULT);
        if (pm_compact_result_from_json(&s, a, strlen(a)) || pm_compact_result_to_json(&b, s) || strcmp(a, b))
            abort();
    }
    pm_compact_result_free(r);
    pm_compact_result_free(s);
    free(a);
    free(b);
}

static void fuzz_plan(const char *json, size_t len)
{
    pm_compact_plan *p = NULL, *q = NULL;
    char *a = NULL, *b = NULL;
    pm_error *e = pm_compact_plan_from_json(&p, json, len);
    if (e) {
        pm_error_free(e);
        return;
    }
    for (size_t i = 0; i < pm_compact_plan_task_count(p); i++)
        must(pm_compact_task_check_files(pm_compact_plan_task(p, i), "task", false, NULL));
    e = pm_compact_plan_to_json(&a, p);
    pm_error_free(e);
    if (!e) {
        same_kind(a, PM_COMPACT_DOC_PLAN);
        if (pm_compact_plan_from_json(&q, a, strlen(a)) || pm_compact_plan_to_json(&b, q) || strcmp(a, b))
            abort();
    }
    pm_compact_plan_free(p);
    pm_compact_plan_free(q);
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *json = (const char *)data + 1;
    size_t len = size - 1;
    switch (data[0] % 4) {
    case 0:
        fuzz_task(json, len);
        break;
    case 1:
        fuzz_result(json, len);
        break;
    case 2:
        fuzz_plan(json, len);
        break;
    default: {
        pm_compact_doc_kind k;
        pm_error_free(pm_compact_doc_kind_of(&k, json, len));
        break;
    }
    }
    return 0;
}
