/*
 * tests/unit/compact/test_compact_api.c — the public compaction API of
 * include/paimon/compact.h beyond plan/execute/commit mechanics (those are
 * test_compact_commit.c): option initialization, versioned metrics and
 * counters (unknown versions refused before anything happens), every
 * getter of plans, tasks and results, pm_compact_doc_kind_of,
 * pm_compact_run with a progress callback (serialized, once per task,
 * NULL for a failed task) and parallelism, pm_compact_execute with the
 * default budget, pm_resources_new.
 */
#include <pthread.h>
#include <string.h>

#include "../table/write_test_util.h"
#include "compact/compact_internal.h"
#include "meta/snapshot_store.h"
#include "paimon/compact.h"
#include "pm_test.h"

typedef struct fx {
    char *dir;
    pm_table *t;
} fx;

/* Unaware-bucket table, 3 partitions x 6 small files: one task per partition. */
static fx setup(const char *name)
{
    fx f;
    f.dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1"};
    f.t = wt_create(f.dir, name, "ROW<id BIGINT, s STRING, pt STRING>", "pt", opts, 1);
    for (int c = 0; c < 6; c++) {
        char rows[256];
        snprintf(rows, sizeof rows, "{\"id\":%d,\"s\":\"a\",\"pt\":\"p0\"}\n{\"id\":%d,\"s\":\"b\",\"pt\":\"p1\"}\n"
                 "{\"id\":%d,\"s\":\"c\",\"pt\":\"p2\"}\n", c, c, c);
        wt_commit_rows(f.t, rows, PM_COMMIT_APPEND, NULL, 0);
    }
    return f;
}

static void teardown(fx *f)
{
    pm_table_free(f->t);
    pm_test_rmtree(f->dir);
    free(f->dir);
}

static int64_t latest_id(pm_table *t)
{
    bool found = false;
    int64_t id = 0;
    PM_OK_OR_FAIL(pm_snapshot_store_latest_id(t->snapshots, &found, &id));
    return found ? id : 0;
}

static pm_compact_builder *builder(pm_table *t, const pm_compact_options *o)
{
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, o));
    return b;
}


static void test_options_init(void **state)
{
    (void)state;
    pm_compact_options a = PM_COMPACT_OPTIONS_INIT, b;
    memset(&b, 0x5a, sizeof b);
    pm_compact_options_init(&b);
    assert_int_equal(a.version, PM_COMPACT_OPTIONS_VERSION);
    assert_int_equal(b.version, PM_COMPACT_OPTIONS_VERSION);
    assert_null(b.commit_user);
    assert_null(b.partitions);
    assert_int_equal(b.npartitions, 0);
    assert_false(b.full);
    assert_null(b.resources);
    assert_null(b.dynamic_options);
    assert_int_equal(b.ndynamic_options, 0);
    assert_null(b.progress);
    assert_null(b.progress_ctx);
    assert_int_equal(b.parallelism, 0);
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    assert_int_equal(m.version, PM_COMPACT_METRICS_VERSION);
    assert_int_equal(m.snapshot_id, 0);
    pm_compact_counters c = PM_COMPACT_COUNTERS_INIT;
    assert_int_equal(c.version, PM_COMPACT_COUNTERS_VERSION);

    pm_resources *r = NULL;
    PM_EXPECT_ERR(pm_resources_new(&r, 0, 1), PM_EINVALID);
    assert_null(r);
    PM_OK_OR_FAIL(pm_resources_new(&r, 1 << 20, 0));
    pm_resources_free(r);
    pm_resources_free(NULL);
}

typedef struct progress_log {
    pthread_mutex_t mu;
    int inside;                   /* callbacks running now */
    bool overlapped;
    size_t calls, last_done, total, failed;
} progress_log;

static void on_progress(void *ctx, size_t done, size_t total, const pm_compact_result *r)
{
    progress_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    l->overlapped |= l->inside++ > 0;
    pthread_mutex_unlock(&l->mu);
    l->calls++;
    assert_int_equal(done, l->last_done + 1);
    l->last_done = done;
    l->total = total;
    if (!r)
        l->failed++;
    else
        assert_true(pm_compact_result_files_after(r) >= 1);
    pthread_mutex_lock(&l->mu);
    l->inside--;
    pthread_mutex_unlock(&l->mu);
}

static void test_run_progress_parallelism(void **state)
{
    (void)state;
    fx f = setup("run");
    int64_t before = latest_id(f.t);
    /* an unknown metrics version is refused before anything is done */
    pm_compact_metrics bad = PM_COMPACT_METRICS_INIT;
    bad.version = 0;
    pm_compact_builder *b = builder(f.t, NULL);
    pm_test_expect_error(pm_compact_run(&bad, b), PM_EINVALID, "pm_compact_metrics.version 0");
    bad.version = PM_COMPACT_METRICS_VERSION + 1;
    pm_test_expect_error(pm_compact_run(&bad, b), PM_EINVALID, "PM_COMPACT_METRICS_INIT");
    pm_compact_builder_free(b);
    assert_int_equal(latest_id(f.t), before);

    pm_resources *res = NULL;
    PM_OK_OR_FAIL(pm_resources_new(&res, 64 << 20, 4));
    progress_log log = {PTHREAD_MUTEX_INITIALIZER, 0, false, 0, 0, 0, 0};
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.commit_user = "api";
    o.resources = res;
    o.progress = on_progress;
    o.progress_ctx = &log;
    o.parallelism = 2;
    b = builder(f.t, &o);
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    assert_int_equal(m.version, PM_COMPACT_METRICS_VERSION);
    assert_int_equal(m.tasks, 3);
    assert_int_equal(m.files_removed, 18);
    assert_int_equal(m.files_added, 3);
    assert_int_equal(m.rows_read, 18);
    assert_int_equal(m.rows_written, 18);
    assert_int_equal(m.snapshot_id, before + 1);
    assert_int_equal(log.calls, 3);
    assert_int_equal(log.total, 3);
    assert_int_equal(log.failed, 0);
    assert_false(log.overlapped);
    /* nothing left to compact: zero metrics, no snapshot */
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    assert_int_equal(m.snapshot_id, 0);
    assert_int_equal(m.tasks, 0);
    assert_int_equal(latest_id(f.t), before + 1);
    pm_compact_builder_free(b);
    pm_resources_free(res);
    teardown(&f);
}

/* A failing task reaches the callback with r NULL; nothing is published. */
static void test_run_progress_failure(void **state)
{
    (void)state;
    fx f = setup("fail");
    int64_t before = latest_id(f.t);
    progress_log log = {PTHREAD_MUTEX_INITIALIZER, 0, false, 0, 0, 0, 0};
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.progress = on_progress;
    o.progress_ctx = &log;
    o.parallelism = 1; /* the first failure stops the queue */
    pm_compact_builder *b = builder(f.t, &o);
    setenv("PAIMON_FAULT_INJECT", "execute-after-first-input", 1);
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e = pm_compact_run(&m, b);
    unsetenv("PAIMON_FAULT_INJECT");
    pm_test_expect_error(e, PM_EIO, "injected fault");
    assert_int_equal(log.calls, 1);
    assert_int_equal(log.failed, 1);
    assert_int_equal(m.snapshot_id, 0);
    assert_int_equal(latest_id(f.t), before);
    pm_compact_builder_free(b);
    teardown(&f);
}

static void test_getters_and_doc_kind(void **state)
{
    (void)state;
    fx f = setup("get");
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.commit_user = "getter";
    pm_compact_builder *b = builder(f.t, &o);
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    pm_compact_builder_free(b);
    assert_string_equal(pm_compact_plan_table_path(p), pm_table_path(f.t));
    assert_string_equal(pm_compact_plan_commit_user(p), "getter");
    assert_int_equal(strlen(pm_compact_plan_id(p)), 36);
    assert_int_equal(pm_compact_plan_snapshot_id(p), 6);
    assert_int_equal(pm_compact_plan_task_count(p), 3);
    assert_null(pm_compact_plan_task(p, 3));
    const pm_compact_task *task = pm_compact_plan_task(p, 1);
    assert_int_equal(pm_compact_task_index(task), 1);
    assert_string_equal(pm_compact_task_table_path(task), pm_table_path(f.t));
    assert_string_equal(pm_compact_task_plan_id(task), pm_compact_plan_id(p));
    assert_int_equal(pm_compact_task_bucket(task), 0);
    assert_int_equal(pm_compact_task_file_count(task), 6);

    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, f.t, task, NULL));
    assert_int_equal(pm_compact_result_task_index(r), 1);
    assert_string_equal(pm_compact_result_table_path(r), pm_table_path(f.t));
    assert_string_equal(pm_compact_result_plan_id(r), pm_compact_plan_id(p));
    assert_int_equal(pm_compact_result_files_before(r), 6);
    assert_int_equal(pm_compact_result_files_after(r), 1);
    assert_int_equal(pm_compact_result_changelog_files(r), 0);
    assert_int_equal(pm_compact_result_index_files_added(r), 0);
    pm_compact_counters c = PM_COMPACT_COUNTERS_INIT;
    PM_OK_OR_FAIL(pm_compact_result_counters(r, &c));
    assert_int_equal(c.version, PM_COMPACT_COUNTERS_VERSION);
    assert_int_equal(c.rows_read, 6);
    assert_int_equal(c.rows_written, 6);
    assert_int_equal(c.rows_deleted, 0);
    assert_true(c.bytes_read > 0 && c.bytes_written > 0);
    pm_compact_counters old = {0};
    pm_test_expect_error(pm_compact_result_counters(r, &old), PM_EINVALID, "pm_compact_counters.version 0");
    assert_int_equal(old.rows_read, 0); /* untouched */

    /* the three documents by kind */
    char *jp = NULL, *jt = NULL, *jr = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_to_json(&jp, p));
    PM_OK_OR_FAIL(pm_compact_task_to_json(&jt, task));
    PM_OK_OR_FAIL(pm_compact_result_to_json(&jr, r));
    pm_compact_doc_kind k = PM_COMPACT_DOC_RESULT;
    PM_OK_OR_FAIL(pm_compact_doc_kind_of(&k, jp, strlen(jp)));
    assert_int_equal(k, PM_COMPACT_DOC_PLAN);
    PM_OK_OR_FAIL(pm_compact_doc_kind_of(&k, jt, strlen(jt)));
    assert_int_equal(k, PM_COMPACT_DOC_TASK);
    PM_OK_OR_FAIL(pm_compact_doc_kind_of(&k, jr, strlen(jr)));
    assert_int_equal(k, PM_COMPACT_DOC_RESULT);
    const char *bad_kind = "{\"format\":1,\"kind\":\"snapshot\"}";
    pm_test_expect_error(pm_compact_doc_kind_of(&k, bad_kind, strlen(bad_kind)), PM_EINVALID, "document.kind");
    const char *v2 = "{\"format\":2,\"kind\":\"task\"}";
    pm_test_expect_error(pm_compact_doc_kind_of(&k, v2, strlen(v2)), PM_EUNSUPPORTED, "document.format");
    pm_test_expect_error(pm_compact_doc_kind_of(&k, "{", 1), PM_EINVALID, "malformed JSON");
    pm_test_expect_error(pm_compact_doc_kind_of(&k, "", 0), PM_EINVALID, "empty document");
    pm_test_expect_error(pm_compact_doc_kind_of(&k, "[]", 2), PM_EINVALID, "not an object");
    assert_int_equal(k, PM_COMPACT_DOC_RESULT);

    /* commit: an unknown metrics version is refused, nothing published */
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    m.version = 7;
    pm_test_expect_error(pm_compact_commit(&m, f.t, NULL, &r, 1), PM_EINVALID, "pm_compact_metrics.version 7");
    assert_int_equal(latest_id(f.t), 6);
    m.version = PM_COMPACT_METRICS_VERSION;
    PM_OK_OR_FAIL(pm_compact_commit(&m, f.t, NULL, &r, 1));
    assert_int_equal(m.snapshot_id, 7);
    assert_int_equal(m.files_removed, 6);
    PM_OK_OR_FAIL(pm_compact_commit(NULL, f.t, NULL, &r, 1)); /* idempotent retry, no metrics */
    assert_int_equal(latest_id(f.t), 7);
    free(jp);
    free(jt);
    free(jr);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_init),
        cmocka_unit_test(test_run_progress_parallelism),
        cmocka_unit_test(test_run_progress_failure),
        cmocka_unit_test(test_getters_and_doc_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
