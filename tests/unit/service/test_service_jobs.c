/*
 * tests/unit/service/test_service_jobs.c — the job registry and its
 * history file (service/jobs.c): records survive a restart, jobs that were
 * queued or running come back failed with "service restarted", a torn
 * last line is skipped, ids continue, the history is bounded (and the file
 * rewritten), the JSON of a job; global-index jobs keep their type.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "pm_test.h"
#include "svc.h"

static size_t lines_of(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = 0;
    int c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void test_restart(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/.paimon-service", dir);
    svc_jobs js;
    PM_OK_OR_FAIL(svc_jobs_open(&js, sub, 100));
    svc_job *a = NULL, *b = NULL, *c = NULL;
    PM_OK_OR_FAIL(svc_jobs_add(&js, SVC_JOB_COMPACTION, "db.t", "dt=1", "dt=1", 3, SVC_TRIGGER_COUNT, 1000, &a));
    PM_OK_OR_FAIL(svc_jobs_add(&js, SVC_JOB_COMPACTION, "db.t", "", NULL, 0, SVC_TRIGGER_MANUAL, 1001, &b));
    PM_OK_OR_FAIL(svc_jobs_add(&js, SVC_JOB_EXPIRE, "db.u", NULL, NULL, -1, SVC_TRIGGER_INTERVAL, 1002, &c));
    a->state = SVC_SUCCEEDED;
    a->started_at = 1100;
    a->finished_at = 1200;
    a->input_files = 4;
    a->snapshot = 9;
    PM_OK_OR_FAIL(svc_jobs_save(&js, a));
    b->state = SVC_RUNNING;
    b->started_at = 1300;
    PM_OK_OR_FAIL(svc_jobs_save(&js, b));
    char path[4200];
    snprintf(path, sizeof path, "%s/jobs.jsonl", sub);
    svc_jobs_close(&js);
    /* a crash mid-append leaves a torn line */
    FILE *f = fopen(path, "a");
    fputs("{\"id\": 2, \"type\": \"compac", f);
    fclose(f);

    PM_OK_OR_FAIL(svc_jobs_open(&js, sub, 100));
    assert_int_equal(js.n, 3);
    svc_job *ra = svc_jobs_find(&js, 1), *rb = svc_jobs_find(&js, 2), *rc = svc_jobs_find(&js, 3);
    assert_non_null(ra);
    assert_int_equal(ra->state, SVC_SUCCEEDED);
    assert_int_equal(ra->snapshot, 9);
    assert_int_equal(ra->input_files, 4);
    assert_string_equal(ra->partition, "dt=1");
    assert_int_equal(ra->bucket, 3);
    assert_int_equal(rb->state, SVC_FAILED);
    assert_string_equal(rb->error, "service restarted");
    assert_int_equal(rc->state, SVC_FAILED); /* it was queued */
    assert_int_equal(rc->bucket, -1);
    assert_null(rc->partition);
    svc_job *d = NULL;
    PM_OK_OR_FAIL(svc_jobs_add(&js, SVC_JOB_ORPHANS, "db.u", NULL, NULL, -1, SVC_TRIGGER_INTERVAL, 2000, &d));
    assert_int_equal(d->id, 4);
    json_t *o = svc_job_to_json(ra);
    assert_string_equal(json_string_value(json_object_get(o, "type")), "compaction");
    assert_string_equal(json_string_value(json_object_get(o, "trigger")), "count");
    assert_string_equal(json_string_value(json_object_get(o, "state")), "succeeded");
    assert_int_equal(json_integer_value(json_object_get(o, "finished_at")), 1200);
    json_decref(o);
    o = svc_job_to_json(d);
    assert_true(json_is_null(json_object_get(o, "bucket")));
    assert_true(json_is_null(json_object_get(o, "started_at")));
    assert_string_equal(json_string_value(json_object_get(o, "type")), "remove-orphan-files");
    json_decref(o);
    svc_jobs_close(&js);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_bounded_history(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/jobs.jsonl", dir);
    svc_jobs js;
    PM_OK_OR_FAIL(svc_jobs_open(&js, dir, 5));
    for (int i = 0; i < 40; i++) {
        svc_job *j = NULL;
        PM_OK_OR_FAIL(svc_jobs_add(&js, SVC_JOB_COMPACTION, "db.t", "", NULL, 0, SVC_TRIGGER_COUNT, i, &j));
        j->state = SVC_SUCCEEDED;
        PM_OK_OR_FAIL(svc_jobs_save(&js, j));
    }
    svc_job *q = NULL;
    PM_OK_OR_FAIL(svc_jobs_add(&js, SVC_JOB_COMPACTION, "db.t", "", NULL, 1, SVC_TRIGGER_COUNT, 99, &q));
    assert_int_equal(js.n, 6);              /* 5 finished + the queued one */
    assert_null(svc_jobs_find(&js, 1));
    assert_non_null(svc_jobs_find(&js, 40));
    assert_true(lines_of(path) <= 2 * 5 + 2); /* rewritten, not ever growing */
    svc_jobs_close(&js);
    PM_OK_OR_FAIL(svc_jobs_open(&js, dir, 5));
    assert_non_null(svc_jobs_find(&js, 40));
    assert_int_equal(svc_jobs_find(&js, 41)->state, SVC_FAILED);
    assert_int_equal(js.next_id, 42);
    svc_jobs_close(&js);
    pm_test_rmtree(dir);
    free(dir);
}

/* a global-index job keeps its type through the history file */
static void test_index_job_type(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    svc_jobs js;
    PM_OK_OR_FAIL(svc_jobs_open(&js, dir, 10));
    svc_job *j = NULL;
    PM_OK_OR_FAIL(svc_jobs_add(&js, SVC_JOB_INDEX, "db.t", NULL, NULL, -1, SVC_TRIGGER_INTERVAL, 10, &j));
    j->state = SVC_SUCCEEDED;
    j->snapshot = 7;
    PM_OK_OR_FAIL(svc_jobs_save(&js, j));
    json_t *o = svc_job_to_json(j);
    assert_string_equal(json_string_value(json_object_get(o, "type")), "global-index");
    assert_true(json_is_null(json_object_get(o, "bucket")));
    json_decref(o);
    svc_jobs_close(&js);
    PM_OK_OR_FAIL(svc_jobs_open(&js, dir, 10));
    svc_job *r = svc_jobs_find(&js, 1);
    assert_non_null(r);
    assert_int_equal(r->type, SVC_JOB_INDEX);
    assert_int_equal(r->snapshot, 7);
    assert_string_equal(svc_job_type_name(r->type), "global-index");
    svc_jobs_close(&js);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restart),
        cmocka_unit_test(test_bounded_history),
        cmocka_unit_test(test_index_job_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
