/*
 * tests/unit/service/test_service_trigger.c — the service's trigger rules
 * (service/trigger.c) and their scheduling (service/scheduler.c
 * svc_schedule_table): count, bytes, age, whichever first, the minimum
 * pending files per mode, interval 0, the backpressure re-check, prefix
 * bounds, buckets a pass could not fold, options and table names
 * (service/config.c).
 */
#include <string.h>

#include "pm_test.h"
#include "svc.h"

static svc_thresholds th(void)
{
    svc_config c;
    svc_config_defaults(&c);
    return c.th;
}

static void test_each_trigger(void **state)
{
    (void)state;
    svc_thresholds t = th();
    svc_load l = {3, 100, 1000, 1};
    assert_int_equal(svc_trigger_check(&t, &l), SVC_TRIGGER_NONE);
    l.pending_files = 4;
    assert_int_equal(svc_trigger_check(&t, &l), SVC_TRIGGER_COUNT);
    l.pending_files = 1;
    l.pending_bytes = 1LL << 30;
    assert_int_equal(svc_trigger_check(&t, &l), SVC_TRIGGER_BYTES);
    l.pending_bytes = 10;
    l.oldest_age_ms = 7LL * 24 * 3600 * 1000;
    assert_int_equal(svc_trigger_check(&t, &l), SVC_TRIGGER_AGE);
    l.oldest_age_ms = -1; /* unknown creation time never triggers by age */
    assert_int_equal(svc_trigger_check(&t, &l), SVC_TRIGGER_NONE);
}

static void test_whichever_first(void **state)
{
    (void)state;
    svc_thresholds t = th();
    svc_load all = {10, 2LL << 30, 8LL * 24 * 3600 * 1000, 1};
    assert_int_equal(svc_trigger_check(&t, &all), SVC_TRIGGER_COUNT);
    all.pending_files = 2;
    assert_int_equal(svc_trigger_check(&t, &all), SVC_TRIGGER_BYTES);
    all.pending_bytes = 5;
    assert_int_equal(svc_trigger_check(&t, &all), SVC_TRIGGER_AGE);
    /* append tables need two files to fold anything: an old lone file waits */
    svc_load lone = {1, 5, 30LL * 24 * 3600 * 1000, 2};
    assert_int_equal(svc_trigger_check(&t, &lone), SVC_TRIGGER_NONE);
    lone.pending_files = 2;
    assert_int_equal(svc_trigger_check(&t, &lone), SVC_TRIGGER_AGE);
    svc_load none = {0, 0, -1, 1};
    assert_int_equal(svc_trigger_check(&t, &none), SVC_TRIGGER_NONE);
}

static void test_prefix_bounds(void **state)
{
    (void)state;
    svc_thresholds t = th();
    t.prefix_max = 3;
    t.pass_target_bytes = 100;
    int64_t sizes[] = {40, 40, 10, 10, 10};
    assert_int_equal(svc_prefix_count(&t, sizes, 5), 3);  /* files bound */
    t.prefix_max = 32;
    assert_int_equal(svc_prefix_count(&t, sizes, 5), 4);  /* bytes bound: 40+40+10+10 */
    int64_t big[] = {500, 1};
    assert_int_equal(svc_prefix_count(&t, big, 2), 1);    /* the first always */
    assert_int_equal(svc_prefix_count(&t, big, 0), 0);
}

/* A service with one primary-key table of two buckets, in memory. */
typedef struct fx {
    svc s;
    svc_table *t;
} fx;

static void fx_init(fx *f)
{
    memset(f, 0, sizeof *f);
    svc_config_defaults(&f->s.cfg);
    pthread_mutex_init(&f->s.mu, NULL);
    pthread_cond_init(&f->s.changed, NULL);
    PM_OK_OR_FAIL(svc_jobs_open(&f->s.jobs, NULL, 100));
    svc_table *t = calloc(1, sizeof *t);
    t->name = strdup("db.t");
    t->path = strdup("/nowhere");
    t->mode = strdup("primary-key");
    t->primary_key = true;
    t->snapshot = 7;
    t->th = f->s.cfg.th;
    t->last_refresh = svc_now_ms();
    t->nbuckets = 2;
    t->buckets = calloc(2, sizeof *t->buckets);
    for (int i = 0; i < 2; i++) {
        t->buckets[i].partition = strdup("dt=1");
        t->buckets[i].bucket = i;
        t->buckets[i].pending_files = i == 0 ? 5 : 1;
        t->buckets[i].oldest_age_ms = 1000;
    }
    f->s.tables = calloc(1, sizeof *f->s.tables);
    f->s.tables[0] = t;
    f->s.ntables = 1;
    f->t = t;
}

static void fx_free(fx *f)
{
    svc_table_free(f->t);
    free(f->s.tables);
    free(f->s.queue);
    svc_jobs_close(&f->s.jobs);
    svc_latches_clear(&f->s.latches);
    svc_metrics_clear(&f->s.metrics);
    svc_config_clear(&f->s.cfg);
    pthread_cond_destroy(&f->s.changed);
    pthread_mutex_destroy(&f->s.mu);
}

static void test_schedule(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    /* the periodic walk: bucket 0 crosses count, bucket 1 nothing */
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_INTERVAL);
    assert_int_equal(f.s.nqueue, 1);
    assert_int_equal(f.s.queue[0]->bucket, 0);
    assert_int_equal(f.s.queue[0]->trigger, SVC_TRIGGER_COUNT);
    assert_string_equal(f.s.queue[0]->partition, "dt=1");
    /* latched now: the next walk skips it and counts a collision */
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_INTERVAL);
    assert_int_equal(f.s.nqueue, 1);
    assert_int_equal(f.s.metrics.latch_collisions, 1);
    /* a backpressure re-check of the same bucket is no collision */
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_BACKPRESSURE);
    assert_int_equal(f.s.metrics.latch_collisions, 1);
    /* a manual pass on the latched bucket is refused */
    assert_false(svc_enqueue_pass(&f.s, f.t, &f.t->buckets[0], SVC_TRIGGER_MANUAL, NULL));
    assert_true(svc_enqueue_pass(&f.s, f.t, &f.t->buckets[1], SVC_TRIGGER_MANUAL, NULL));
    assert_int_equal(f.s.nqueue, 2);
    fx_free(&f);
}

static void test_interval_zero_and_backpressure(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    f.t->th.interval_ms = 0;
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_INTERVAL);
    assert_int_equal(f.s.nqueue, 0); /* no periodic walk */
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_BACKPRESSURE);
    assert_int_equal(f.s.nqueue, 1); /* a new snapshot still re-checks */
    assert_int_equal(f.s.queue[0]->trigger, SVC_TRIGGER_BACKPRESSURE);
    fx_free(&f);
    fx_init(&f);
    f.t->th.interval_ms = 0;
    f.t->th.backpressure = false;
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_BACKPRESSURE);
    assert_int_equal(f.s.nqueue, 0);
    /* a bucket a pass could not fold at this snapshot waits for the next one */
    f.t->th.backpressure = true;
    f.t->buckets[0].no_progress_snapshot = 7;
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_BACKPRESSURE);
    assert_int_equal(f.s.nqueue, 0);
    f.t->snapshot = 8;
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_BACKPRESSURE);
    assert_int_equal(f.s.nqueue, 1);
    /* draining: nothing new */
    f.s.draining = true;
    f.t->buckets[1].pending_files = 9;
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_BACKPRESSURE);
    assert_int_equal(f.s.nqueue, 1);
    fx_free(&f);
}

static void test_age_counts_from_the_read(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    f.t->buckets[0].pending_files = 1;
    f.t->th.trigger_age_ms = 60000;
    f.t->buckets[0].oldest_age_ms = 30000;
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_INTERVAL);
    assert_int_equal(f.s.nqueue, 0);
    f.t->last_refresh -= 31000; /* read 31 s ago: now 61 s old */
    svc_schedule_table(&f.s, f.t, SVC_TRIGGER_INTERVAL);
    assert_int_equal(f.s.nqueue, 1);
    assert_int_equal(f.s.queue[0]->trigger, SVC_TRIGGER_AGE);
    fx_free(&f);
}

static void test_config(void **state)
{
    (void)state;
    svc_config c;
    svc_config_defaults(&c);
    PM_OK_OR_FAIL(svc_config_set(&c, "compaction-service.interval=0"));
    PM_OK_OR_FAIL(svc_config_set(&c, "compaction-service.trigger.bytes = 64 mb"));
    PM_OK_OR_FAIL(svc_config_set(&c, "compaction-service.trigger.age=2h"));
    PM_OK_OR_FAIL(svc_config_set(&c, "include=db.*,other.t"));
    PM_OK_OR_FAIL(svc_config_set(&c, "exclude=db.secret"));
    assert_int_equal(c.th.interval_ms, 0);
    assert_int_equal(c.th.trigger_bytes, 64LL << 20);
    assert_int_equal(c.th.trigger_age_ms, 2LL * 3600 * 1000);
    assert_true(svc_config_owns(&c, "db.a"));
    assert_true(svc_config_owns(&c, "other.t"));
    assert_false(svc_config_owns(&c, "db.secret"));
    assert_false(svc_config_owns(&c, "x.y"));
    pm_test_expect_error(svc_config_set(&c, "compaction-service.nope=1"), PM_EINVALID, "unknown service option");
    pm_test_expect_error(svc_config_set(&c, "compaction-service.trigger.count=0"), PM_EINVALID, "trigger.count");
    pm_test_expect_error(svc_config_set(&c, "compaction-service.concurrency=x"), PM_EINVALID, "concurrency");
    pm_test_expect_error(svc_config_set(&c, "novalue"), PM_EINVALID, "key=value");
    assert_false(c.ray);
    PM_OK_OR_FAIL(svc_config_set(&c, "compaction-service.executor=ray"));
    PM_OK_OR_FAIL(svc_config_set(&c, "compaction-service.ray.address=10.0.0.1:6379"));
    PM_OK_OR_FAIL(svc_config_set(&c, "compaction-service.ray.address = 10.0.0.2:6379"));
    PM_OK_OR_FAIL(svc_config_set(&c, "compaction-service.ray.python=/opt/py/bin/python"));
    assert_true(c.ray);
    assert_string_equal(c.ray_address, "10.0.0.2:6379");
    assert_string_equal(c.ray_python, "/opt/py/bin/python");
    pm_test_expect_error(svc_config_set(&c, "compaction-service.executor=spark"), PM_EINVALID, "local or ray");
    pm_test_expect_error(svc_config_set(&c, "compaction-service.ray.address="), PM_EINVALID, "empty");
    PM_OK_OR_FAIL(svc_config_set(&c, "compaction-service.executor=local"));
    assert_false(c.ray);
    svc_config_clear(&c);
    assert_true(svc_valid_table_name("db.t"));
    assert_true(svc_valid_table_name("db.t.v"));
    assert_false(svc_valid_table_name("dbt"));
    assert_false(svc_valid_table_name("../etc.passwd"));
    assert_false(svc_valid_table_name("db./x"));
    assert_false(svc_valid_table_name(".db.t"));
    assert_false(svc_valid_table_name("db..t"));
    assert_false(svc_valid_table_name("db.t\x01"));
    assert_false(svc_valid_table_name(".t"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_trigger),
        cmocka_unit_test(test_whichever_first),
        cmocka_unit_test(test_prefix_bounds),
        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_interval_zero_and_backpressure),
        cmocka_unit_test(test_age_counts_from_the_read),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
