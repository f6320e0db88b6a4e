/*
 * tests/unit/service/test_service_latch.c — one pass per bucket
 * (service/latch.c) and the waits on it (scheduler.c): bucket and table
 * latches exclude each other, release frees only the named key, drain
 * waits for queued and running jobs and then schedules nothing, a wait
 * for jobs honours its deadline.
 */
#include <string.h>
#include <unistd.h>

#include "pm_test.h"
#include "svc.h"

static void test_latches(void **state)
{
    (void)state;
    svc_latches l = {0};
    assert_true(svc_latch_try(&l, "db.t", "p=1", 0));
    assert_false(svc_latch_try(&l, "db.t", "p=1", 0));      /* the same bucket */
    assert_true(svc_latch_held(&l, "db.t", "p=1", 0));
    assert_true(svc_latch_try(&l, "db.t", "p=1", 1));       /* another bucket */
    assert_true(svc_latch_try(&l, "db.t", "p=2", 0));       /* another partition */
    assert_true(svc_latch_try(&l, "db.u", "p=1", 0));       /* another table */
    assert_false(svc_latch_try(&l, "db.t", NULL, -1));      /* the table: buckets busy */
    svc_latch_release(&l, "db.t", "p=1", 0);
    assert_false(svc_latch_held(&l, "db.t", "p=1", 0));
    assert_true(svc_latch_held(&l, "db.t", "p=1", 1));
    svc_latch_release(&l, "db.t", "p=1", 1);
    svc_latch_release(&l, "db.t", "p=2", 0);
    assert_true(svc_latch_try(&l, "db.t", NULL, -1));       /* now free */
    assert_false(svc_latch_try(&l, "db.t", "p=1", 0));      /* maintenance holds the table */
    assert_true(svc_latch_try(&l, "db.tt", "p=1", 0));      /* a name with the same prefix is another table */
    svc_latch_release(&l, "db.t", NULL, -1);
    assert_true(svc_latch_try(&l, "db.t", "p=1", 0));
    svc_latches_clear(&l);
}

typedef struct runner {
    svc *s;
    int ms;
} runner;

/* Finishes the service's one running job after ms. */
static void *finish_later(void *arg)
{
    runner *r = arg;
    usleep((useconds_t)r->ms * 1000);
    pthread_mutex_lock(&r->s->mu);
    svc_job *j = r->s->jobs.jobs[0];
    j->state = SVC_SUCCEEDED;
    r->s->running--;
    pthread_cond_broadcast(&r->s->changed);
    pthread_mutex_unlock(&r->s->mu);
    return NULL;
}

static void test_drain_waits(void **state)
{
    (void)state;
    svc s;
    memset(&s, 0, sizeof s);
    svc_config_defaults(&s.cfg);
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.changed, NULL);
    PM_OK_OR_FAIL(svc_jobs_open(&s.jobs, NULL, 10));
    svc_job *j = NULL;
    PM_OK_OR_FAIL(svc_jobs_add(&s.jobs, SVC_JOB_COMPACTION, "db.t", "", NULL, 0, SVC_TRIGGER_COUNT, 1, &j));
    j->state = SVC_RUNNING;
    s.running = 1;
    runner r = {&s, 300};
    pthread_t th;
    int64_t t0 = svc_now_ms();
    assert_int_equal(pthread_create(&th, NULL, finish_later, &r), 0);
    pthread_mutex_lock(&s.mu);
    int64_t id = j->id;
    assert_false(svc_wait_jobs(&s, &id, 1, svc_now_ms() + 50)); /* the deadline passes first */
    svc_drain(&s);                                             /* waits for the running pass */
    assert_int_equal(s.running, 0);
    assert_true(s.draining);
    assert_true(svc_now_ms() - t0 >= 250);
    assert_true(svc_wait_jobs(&s, &id, 1, 0));
    pthread_mutex_unlock(&s.mu);
    pthread_join(th, NULL);
    svc_jobs_close(&s.jobs);
    svc_config_clear(&s.cfg);
    pthread_cond_destroy(&s.changed);
    pthread_mutex_destroy(&s.mu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latches),
        cmocka_unit_test(test_drain_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
