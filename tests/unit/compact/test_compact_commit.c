/*
 * tests/unit/compact/test_compact_commit.c — plan → execute → commit on real
 * tables written by the table writer: planning captures a snapshot, the
 * executor rewrites with FileSource COMPACT and keeps rows, and the
 * committer's rules: different plans, duplicates and overlapping inputs
 * rejected; removed input, changed metadata, schema change and rollback →
 * PM_ECONFLICT "replan"; idempotent retry in any order; subset commits;
 * concurrent appends survive; abort deletes prepared files and refuses
 * committed ones; an empty result list publishes nothing.
 */
#include <string.h>
#include <unistd.h>

#include "../table/write_test_util.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"
#include "meta/snapshot_store.h"
#include "pm_test.h"
#include "table/partition.h"
#include "table/scan.h"

typedef struct fx {
    char *dir;
    pm_table *t;
} fx;

/* 3 partitions x 6 commits of 4 rows (duplicates and nulls included). */
static fx setup(const char *name, const char *extra_opt)
{
    fx f;
    f.dir = pm_test_tmpdir();
    const char *opts[2] = {"bucket=-1", extra_opt};
    f.t = wt_create(f.dir, name, "ROW<id BIGINT, s STRING, pt STRING>", "pt", opts, extra_opt ? 2 : 1);
    for (int c = 0; c < 6; c++) {
        char rows[512];
        snprintf(rows, sizeof rows,
                 "{\"id\":%d,\"s\":\"a\",\"pt\":\"p0\"}\n{\"id\":%d,\"s\":null,\"pt\":\"p1\"}\n"
                 "{\"id\":%d,\"s\":\"a\",\"pt\":\"p2\"}\n{\"id\":%d,\"s\":\"a\",\"pt\":\"p2\"}\n",
                 c, c, c, c);
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

static int64_t live_rows(pm_table *t, size_t *nfiles, int64_t *compact_files)
{
    pm_scan_result *r = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &r));
    int64_t rows = 0;
    size_t n = 0;
    int64_t c = 0;
    for (size_t i = 0; i < r->nbuckets; i++)
        for (size_t k = 0; k < r->buckets[i].nfiles; k++) {
            rows += r->buckets[i].files[k].row_count;
            n++;
            c += r->buckets[i].files[k].file_source.has &&
                 r->buckets[i].files[k].file_source.v == PM_FILE_SOURCE_COMPACT;
        }
    pm_scan_result_free(r);
    if (nfiles)
        *nfiles = n;
    if (compact_files)
        *compact_files = c;
    return rows;
}

static int64_t latest_id(pm_table *t)
{
    bool found = false;
    int64_t id = 0;
    PM_OK_OR_FAIL(pm_snapshot_store_latest_id(t->snapshots, &found, &id));
    return found ? id : 0;
}

static pm_compact_plan *plan(pm_table *t, const char *user)
{
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, user, NULL, 0, false, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    pm_compact_builder_free(b);
    return p;
}

static pm_compact_result **execute(pm_table *t, const pm_compact_plan *p)
{
    pm_compact_result **r = calloc(p->ntasks, sizeof *r);
    for (size_t i = 0; i < p->ntasks; i++)
        PM_OK_OR_FAIL(pm_compact_execute(&r[i], t, p->tasks[i], NULL));
    return r;
}

static void expect_conflict(pm_error *e)
{
    if (!e) {
        print_error("commit unexpectedly succeeded\n");
        fail();
    }
    char *msg = pm_error_format(e);
    if (pm_error_code(e) != PM_ECONFLICT || !strstr(msg, "replan"))
        print_error("error: %s\n", msg);
    assert_int_equal(pm_error_code(e), PM_ECONFLICT);
    assert_non_null(strstr(msg, "replan"));
    free(msg);
    pm_error_free(e);
}

static void test_plan_execute_commit(void **state)
{
    (void)state;
    fx f = setup("t1", NULL);
    size_t nfiles;
    assert_int_equal(live_rows(f.t, &nfiles, NULL), 24);
    assert_int_equal(nfiles, 18);
    pm_compact_plan *p = plan(f.t, "u1");
    assert_int_equal(p->snapshot_id, 6);
    assert_int_equal(p->ntasks, 3); /* one per partition: 6 small files >= min.file-num 5 */
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(p->tasks[i]->nfiles, 6);
        assert_int_equal(p->tasks[i]->task_index, (int64_t)i);
        assert_string_equal(p->tasks[i]->output.format, "parquet");
    }
    pm_compact_result **r = execute(f.t, p);
    assert_int_equal(latest_id(f.t), 6); /* execution publishes nothing */
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(r[i]->nafter, 1);
        assert_int_equal(r[i]->after[0].file_source.v, PM_FILE_SOURCE_COMPACT);
        assert_int_equal(r[i]->after[0].row_count, r[i]->counters.rows_read);
        assert_int_equal(r[i]->counters.rows_written, r[i]->counters.rows_read);
    }
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_commit(&m, f.t, NULL, r, 3));
    assert_int_equal(m.snapshot_id, 7);
    assert_int_equal(m.files_removed, 18);
    assert_int_equal(m.files_added, 3);
    assert_int_equal(m.rows_written, 24);
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_snapshot_store_load(f.t->snapshots, 7, &s));
    assert_int_equal(s->commit_kind, PM_COMMIT_COMPACT);
    assert_string_equal(s->commit_user, "u1");
    assert_int_equal(s->total_record_count, 24);
    pm_snapshot_free(s);
    int64_t compact_files;
    assert_int_equal(live_rows(f.t, &nfiles, &compact_files), 24);
    assert_int_equal(nfiles, 3);
    assert_int_equal(compact_files, 3);
    /* retry in another order: the same snapshot, nothing new */
    pm_compact_result *rev[3] = {r[2], r[0], r[1]};
    PM_OK_OR_FAIL(pm_compact_commit(&m, f.t, NULL, rev, 3));
    assert_int_equal(m.snapshot_id, 7);
    assert_int_equal(latest_id(f.t), 7);
    /* abort refuses results that were committed */
    PM_EXPECT_ERR(pm_compact_abort(f.t, r, 3), PM_EINVALID);
    assert_int_equal(live_rows(f.t, NULL, NULL), 24);
    /* a second plan has nothing left to do; empty commits publish nothing */
    pm_compact_plan *p2 = plan(f.t, NULL);
    assert_int_equal(p2->ntasks, 0);
    PM_OK_OR_FAIL(pm_compact_commit(&m, f.t, NULL, NULL, 0));
    assert_int_equal(m.snapshot_id, 0);
    assert_int_equal(latest_id(f.t), 7);
    pm_compact_plan_free(p2);
    pm_compact_results_free(r, 3);
    pm_compact_plan_free(p);
    teardown(&f);
}

static void test_rejections(void **state)
{
    (void)state;
    fx f = setup("t2", NULL);
    pm_compact_plan *a = plan(f.t, "u");
    pm_compact_plan *b = plan(f.t, "u");
    pm_compact_result **ra = execute(f.t, a), **rb = execute(f.t, b);
    /* different plans */
    pm_compact_result *mix[2] = {ra[0], rb[1]};
    PM_EXPECT_ERR(pm_compact_commit(NULL, f.t, NULL, mix, 2), PM_EINVALID);
    /* duplicates */
    pm_compact_result *dup[2] = {ra[0], ra[0]};
    PM_EXPECT_ERR(pm_compact_commit(NULL, f.t, NULL, dup, 2), PM_EINVALID);
    /* overlapping inputs (same plan, a forged second task over task 0's files) */
    pm_compact_result *forged = NULL;
    PM_OK_OR_FAIL(pm_compact_result_new_for_task(&forged, a->tasks[0]));
    forged->task_index = 1;
    pm_compact_result *ov[2] = {ra[0], forged};
    PM_EXPECT_ERR(pm_compact_commit(NULL, f.t, NULL, ov, 2), PM_EINVALID);
    pm_compact_result_free(forged);
    assert_int_equal(latest_id(f.t), 6);
    /* plan b commits; plan a's inputs are gone → replan */
    PM_OK_OR_FAIL(pm_compact_commit(NULL, f.t, NULL, rb, 3));
    expect_conflict(pm_compact_commit(NULL, f.t, NULL, ra, 1));
    PM_OK_OR_FAIL(pm_compact_abort(f.t, ra, 3));
    /* abort deleted a's outputs */
    for (size_t i = 0; i < 3; i++) {
        char *dir = NULL;
        PM_OK_OR_FAIL(pm_table_bucket_dir(f.t, ra[i]->partition.data, ra[i]->partition.len, 0, &dir));
        char *p = pm_path_join(dir, ra[i]->after[0].file_name);
        assert_int_not_equal(access(p, F_OK), 0);
        free(p);
        free(dir);
    }
    assert_int_equal(live_rows(f.t, NULL, NULL), 24);
    pm_compact_results_free(ra, 3);
    pm_compact_results_free(rb, 3);
    pm_compact_plan_free(a);
    pm_compact_plan_free(b);
    teardown(&f);
}

static void test_metadata_schema_rollback(void **state)
{
    (void)state;
    fx f = setup("t3", NULL);
    pm_compact_plan *p = plan(f.t, "u");
    pm_compact_result **r = execute(f.t, p);
    /* changed metadata of one input */
    r[0]->before[0].file_size++;
    expect_conflict(pm_compact_commit(NULL, f.t, NULL, r, 1));
    r[0]->before[0].file_size--;
    /* rollback: snapshot 6 disappears, latest is 5 < captured 6 */
    char *s6 = NULL;
    PM_OK_OR_FAIL(pm_snapshot_store_path(f.t->snapshots, 6, &s6));
    char moved[1024];
    snprintf(moved, sizeof moved, "%s.bak", s6);
    assert_int_equal(rename(s6, moved), 0);
    PM_OK_OR_FAIL(pm_snapshot_store_write_hint(f.t->snapshots, "LATEST", 5));
    expect_conflict(pm_compact_commit(NULL, f.t, NULL, r, 3));
    assert_int_equal(rename(moved, s6), 0);
    PM_OK_OR_FAIL(pm_snapshot_store_write_hint(f.t->snapshots, "LATEST", 6));
    free(s6);
    /* schema change: a schema-1 appears */
    char *sch0 = NULL, *sch1 = NULL;
    PM_OK_OR_FAIL(pm_schema_file_path(f.t->branch_root, 0, &sch0));
    PM_OK_OR_FAIL(pm_schema_file_path(f.t->branch_root, 1, &sch1));
    size_t len;
    uint8_t *text = pm_test_read_file(sch0, &len);
    char *s = (char *)text;
    char *id = strstr(s, "\"id\" : 0");
    assert_non_null(id);
    id[7] = '1';
    FILE *out = fopen(sch1, "wb");
    fwrite(text, 1, len, out);
    fclose(out);
    expect_conflict(pm_compact_commit(NULL, f.t, NULL, r, 3));
    unlink(sch1);
    free(text);
    free(sch0);
    free(sch1);
    /* with the schema back, the same results still commit */
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_commit(&m, f.t, NULL, r, 3));
    assert_int_equal(m.snapshot_id, 7);
    pm_compact_results_free(r, 3);
    pm_compact_plan_free(p);
    teardown(&f);
}

static void test_subsets_and_concurrent_append(void **state)
{
    (void)state;
    fx f = setup("t4", NULL);
    pm_compact_plan *p = plan(f.t, "u");
    pm_compact_result **r = execute(f.t, p);
    /* a concurrent append after planning */
    int64_t app = wt_commit_rows(f.t, "{\"id\":100,\"s\":\"new\",\"pt\":\"p0\"}\n", PM_COMMIT_APPEND, NULL, 0);
    assert_int_equal(app, 7);
    pm_compact_metrics m1 = PM_COMPACT_METRICS_INIT, m2 = PM_COMPACT_METRICS_INIT, m3 = PM_COMPACT_METRICS_INIT;
    pm_compact_result *one[1] = {r[1]};
    PM_OK_OR_FAIL(pm_compact_commit(&m1, f.t, NULL, one, 1));
    assert_int_equal(m1.snapshot_id, 8);
    pm_compact_result *rest[2] = {r[2], r[0]};
    PM_OK_OR_FAIL(pm_compact_commit(&m2, f.t, NULL, rest, 2));
    assert_int_equal(m2.snapshot_id, 9);
    /* retries of either subset find their snapshots */
    PM_OK_OR_FAIL(pm_compact_commit(&m3, f.t, NULL, one, 1));
    assert_int_equal(m3.snapshot_id, 8);
    pm_compact_result *rest2[2] = {r[0], r[2]};
    PM_OK_OR_FAIL(pm_compact_commit(&m3, f.t, NULL, rest2, 2));
    assert_int_equal(m3.snapshot_id, 9);
    assert_int_equal(latest_id(f.t), 9);
    size_t nfiles;
    assert_int_equal(live_rows(f.t, &nfiles, NULL), 25); /* the appended row survived */
    assert_int_equal(nfiles, 4);
    /* a different subset of the same plan overlapping a committed one → replan */
    expect_conflict(pm_compact_commit(NULL, f.t, NULL, r, 3));
    pm_compact_results_free(r, 3);
    pm_compact_plan_free(p);
    teardown(&f);
}

static void test_run_and_rolling(void **state)
{
    (void)state;
    /* rows per file limited to 7: outputs roll */
    fx f = setup("t5", "target-file-row-num=7");
    pm_resources *res = NULL;
    PM_OK_OR_FAIL(pm_resources_new(&res, 64 << 20, 2));
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "runner", NULL, 0, false, res, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, f.t, &o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    assert_int_equal(m.snapshot_id, 7);
    assert_int_equal(m.tasks, 3);
    assert_int_equal(m.files_removed, 18);
    /* p0: 6 rows → 1 file, p1: 6 → 1, p2: 12 → 7 + 5 */
    assert_int_equal(m.files_added, 4);
    size_t nfiles;
    assert_int_equal(live_rows(f.t, &nfiles, NULL), 24);
    assert_int_equal(nfiles, 4);
    /* nothing left: a second run publishes nothing */
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    assert_int_equal(m.snapshot_id, 0);
    assert_int_equal(latest_id(f.t), 7);
    pm_compact_builder_free(b);
    pm_resources_free(res);
    teardown(&f);
}

/* --full on a fixed bucket: a bucket the full rule skips (2 small files,
 * fewer than 3) still gets the window rule, as Java's normal round after a
 * full compaction does: with compaction.min.file-num=2 its 2 files compact;
 * with the default 5 nothing does. */
static pm_compact_plan *plan_full(pm_table *t, const char *dyn)
{
    const char *d[1] = {dyn};
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "full", NULL, 0, true, NULL, dyn ? d : NULL, dyn ? 1 : 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    pm_compact_builder_free(b);
    return p;
}

static void test_full_fixed_bucket_falls_back_to_window(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[2] = {"bucket=1", "bucket-key=id"};
    pm_table *t = wt_create(dir, "fb", "ROW<id BIGINT, s STRING>", NULL, opts, 2);
    wt_commit_rows(t, "{\"id\":1,\"s\":\"a\"}\n", PM_COMMIT_APPEND, NULL, 0);
    wt_commit_rows(t, "{\"id\":2,\"s\":\"b\"}\n", PM_COMMIT_APPEND, NULL, 0);
    pm_compact_plan *p = plan_full(t, NULL);
    assert_int_equal(p->ntasks, 0);
    pm_compact_plan_free(p);
    p = plan_full(t, "compaction.min.file-num=2");
    assert_int_equal(p->ntasks, 1);
    assert_int_equal(p->tasks[0]->nfiles, 2);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_unsupported_and_filters(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    /* row tracking without data evolution: only bucket -1 has a mode
     * (append-unaware keeps the row IDs); a fixed bucket is refused */
    const char *opts[] = {"bucket=2", "bucket-key=id", "row-tracking.enabled=true"};
    pm_table *t = wt_create(dir, "rt", "ROW<id BIGINT>", NULL, opts, 3);
    pm_compact_builder *b = NULL;
    PM_EXPECT_ERR(pm_compact_builder_new(&b, t, NULL), PM_EUNSUPPORTED);
    pm_table_free(t);
    const char *rt_opts[] = {"bucket=-1", "row-tracking.enabled=true"};
    t = wt_create(dir, "rt1", "ROW<id BIGINT>", NULL, rt_opts, 2);
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, NULL));
    pm_compact_builder_free(b);
    pm_table_free(t);
    fx f = setup("t6", NULL);
    const char *parts[] = {"pt=p2"};
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, NULL, parts, 1, false, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, f.t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    assert_int_equal(p->ntasks, 1);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    const char *bad[] = {"nope=1"};
    pm_compact_options o2 = {PM_COMPACT_OPTIONS_VERSION, NULL, bad, 1, false, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    PM_EXPECT_ERR(pm_compact_builder_new(&b, f.t, &o2), PM_EINVALID);
    pm_compact_options o3 = {99, NULL, NULL, 0, false, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    PM_EXPECT_ERR(pm_compact_builder_new(&b, f.t, &o3), PM_EINVALID);
    /* dynamic options: min.file-num 7 > 6 files per partition → nothing; a bad value is rejected */
    const char *dyn[] = {"compaction.min.file-num=7"};
    pm_compact_options o4 = {PM_COMPACT_OPTIONS_VERSION, NULL, NULL, 0, false, NULL, dyn, 1, NULL, NULL, 0, false, 0, 0, 0};
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, f.t, &o4));
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    assert_int_equal(p->ntasks, 0);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    const char *dyn2[] = {"compaction.min.file-num=x"};
    pm_compact_options o5 = {PM_COMPACT_OPTIONS_VERSION, NULL, NULL, 0, false, NULL, dyn2, 1, NULL, NULL, 0, false, 0, 0, 0};
    PM_EXPECT_ERR(pm_compact_builder_new(&b, f.t, &o5), PM_EINVALID);
    /* read splits never change grouping */
    const char *dyn3[] = {"source.split.target-size=1b"};
    pm_compact_options o6 = {PM_COMPACT_OPTIONS_VERSION, NULL, NULL, 0, false, NULL, dyn3, 1, NULL, NULL, 0, false, 0, 0, 0};
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, f.t, &o6));
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    assert_int_equal(p->ntasks, 3);
    assert_int_equal(p->tasks[0]->nfiles, 6);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    teardown(&f);
    pm_test_rmtree(dir);
    free(dir);
}

static size_t progress_calls;
static void count_progress(void *ctx, size_t done, size_t total, const pm_compact_result *r)
{
    (void)ctx;
    (void)done;
    (void)total;
    (void)r;
    progress_calls++;
}

static size_t data_files_on_disk(pm_table *t)
{
    size_t n = 0;
    const char *parts[] = {"pt=p0", "pt=p1", "pt=p2"};
    for (int i = 0; i < 3; i++) {
        char d[1024];
        snprintf(d, sizeof d, "%s/%s/bucket-0", pm_table_path(t), parts[i]);
        n += wt_count_files(d, "data-");
    }
    return n;
}

/* A memory share too small for one output row group (half of it under
 * 1 MiB) is refused with PM_EINVALID naming the budget, before anything
 * is written; a share just large enough runs. */
static void test_budget_too_small(void **state)
{
    (void)state;
    fx f = setup("t_budget", NULL);
    size_t files_before = data_files_on_disk(f.t);
    pm_compact_plan *p = plan(f.t, "u");
    assert_true(p->ntasks > 0);
    pm_resources *res = NULL;
    PM_OK_OR_FAIL(pm_resources_new(&res, (1 << 21) - 1, 1));
    pm_compact_result **r = NULL;
    pm_error *e = pm_compact_execute_all(f.t, p, res, 1, NULL, NULL, &r);
    assert_non_null(e);
    assert_int_equal(pm_error_root_code(e), PM_EINVALID);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "memory budget of 2097151 bytes"));
    assert_non_null(strstr(msg, "cannot hold one output row group"));
    free(msg);
    pm_error_free(e);
    assert_null(r);
    assert_int_equal(data_files_on_disk(f.t), files_before); /* nothing written */
    pm_resources_free(res);
    PM_OK_OR_FAIL(pm_resources_new(&res, 1 << 21, 1));
    PM_OK_OR_FAIL(pm_compact_execute_all(f.t, p, res, 1, NULL, NULL, &r));
    for (size_t i = 0; i < p->ntasks; i++)
        assert_non_null(r[i]);
    pm_compact_results_free(r, p->ntasks);
    pm_resources_free(res);
    pm_compact_plan_free(p);
    teardown(&f);
}

static void test_failure_policy(void **state)
{
    (void)state;
    fx f = setup("t7", NULL);
    size_t files_before = data_files_on_disk(f.t);
    pm_compact_plan *p = plan(f.t, "u");
    assert_int_equal(p->ntasks, 3);
    /* one bucket at a time: the first task fails, the queued ones never start */
    setenv("PAIMON_FAULT_INJECT", "execute-after-first-input", 1);
    pm_resources *res = NULL;
    PM_OK_OR_FAIL(pm_resources_new(&res, 64 << 20, 1));
    pm_compact_result **r = NULL;
    progress_calls = 0;
    pm_error *e = pm_compact_execute_all(f.t, p, res, 1, count_progress, NULL, &r);
    unsetenv("PAIMON_FAULT_INJECT");
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "injected fault"));
    free(msg);
    pm_error_free(e);
    assert_null(r);
    assert_int_equal(progress_calls, 1);
    assert_int_equal(data_files_on_disk(f.t), files_before); /* nothing left behind */
    /* two at a time: both started tasks run to their end, the third is skipped */
    pm_resources_free(res);
    PM_OK_OR_FAIL(pm_resources_new(&res, 64 << 20, 2));
    setenv("PAIMON_FAULT_INJECT", "writer-close", 1);
    progress_calls = 0;
    e = pm_compact_execute_all(f.t, p, res, 2, count_progress, NULL, &r);
    unsetenv("PAIMON_FAULT_INJECT");
    assert_non_null(e);
    pm_error_free(e);
    assert_true(progress_calls >= 1 && progress_calls <= 2);
    assert_int_equal(data_files_on_disk(f.t), files_before);
    assert_int_equal(latest_id(f.t), 6);
    /* and without faults the same plan still runs and commits */
    PM_OK_OR_FAIL(pm_compact_execute_all(f.t, p, res, 2, NULL, NULL, &r));
    PM_OK_OR_FAIL(pm_compact_commit(NULL, f.t, NULL, r, 3));
    assert_int_equal(live_rows(f.t, NULL, NULL), 24);
    pm_compact_results_free(r, 3);
    pm_resources_free(res);
    pm_compact_plan_free(p);
    teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_execute_commit),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_metadata_schema_rollback),
        cmocka_unit_test(test_subsets_and_concurrent_append),
        cmocka_unit_test(test_run_and_rolling),
        cmocka_unit_test(test_full_fixed_bucket_falls_back_to_window),
        cmocka_unit_test(test_unsupported_and_filters),
        cmocka_unit_test(test_failure_policy),
        cmocka_unit_test(test_budget_too_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
