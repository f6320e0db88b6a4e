/*
 * tests/unit/pkc/test_pkc_compact.c — plan → execute → commit of
 * primary-key tables written by the PK writer: the task captures the
 * selected files and the output level; the executor rewrites overlapping
 * runs into one file (COMPACT, sequence numbers kept, deletes dropped only
 * at the highest level) and upgrades non-overlapping large files without
 * I/O; the committer recomputes the selection from the captured snapshot
 * (tampered results are PM_EINVALID), rejects overlapping key ranges in a
 * positive level introduced by a concurrent compaction (PM_ECONFLICT
 * "replan"), lets level-0 appends commit alongside, and retries
 * idempotently; abort keeps upgraded inputs; first-row looks keys up in the
 * retained levels; more than 256 runs merge in several passes; order-
 * sensitive aggregation compacts the whole bucket; the write stall;
 * JSON round trip; unsupported modes; deletion vectors (replaced rows
 * marked in retained files, full compaction applies the vectors);
 * changelog-producer=lookup events for deduplicate and first-row;
 * changelog-producer=full-compaction events of an upgraded file; errors
 * name the input file.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../pk/pk_test_util.h"
#include "compact/compact_internal.h"
#include "compact/compact_auto.h"
#include "compact/compact_run.h"
#include "compact/pk/pk_compact.h"
#include "meta/snapshot_store.h"
#include "table/file_read.h"
#include "table/partition.h"

static pm_compact_plan *plan_of(pm_table *t, bool full, const char *user)
{
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, user, NULL, 0, full, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    pm_compact_builder_free(b);
    return p;
}

static pm_compact_result **exec_all(pm_table *t, const pm_compact_plan *p)
{
    pm_compact_result **r = calloc(p->ntasks ? p->ntasks : 1, sizeof *r);
    for (size_t i = 0; i < p->ntasks; i++)
        PM_OK_OR_FAIL(pm_compact_execute(&r[i], t, p->tasks[i], NULL));
    return r;
}

static int64_t commit_all(pm_table *t, pm_compact_result **r, size_t n)
{
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_commit(&m, t, NULL, r, n));
    return m.snapshot_id;
}

static void free_results(pm_compact_result **r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_compact_result_free(r[i]);
    free(r);
}

/* Levels of bucket 0 as "L<level>:<rows>" sorted by level then rows. */
static void expect_levels(pm_table *t, const char *want)
{
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    char items[64][32];
    size_t n = 0;
    for (size_t i = 0; bf && i < bf->nfiles && n < 64; i++, n++)
        snprintf(items[n], sizeof items[n], "L%d:%03lld", (int)bf->files[i].level, (long long)bf->files[i].row_count);
    qsort(items, n, sizeof items[0], (int (*)(const void *, const void *))strcmp);
    char got[2048] = "";
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(got, " ");
        strcat(got, items[i]);
    }
    pm_scan_result_free(scan);
    assert_string_equal(got, want);
}

static char *bucket_dir(pm_table *t)
{
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, 0, &dir));
    pm_scan_result_free(scan);
    return dir;
}

static bool file_exists(pm_table *t, const char *name)
{
    char *dir = bucket_dir(t);
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    free(dir);
    struct stat st;
    return stat(path, &st) == 0;
}

/* Overlapping level-0 runs merge into one max-level file; sequence numbers
 * are kept, the delete is dropped, JSON round-trips. */
static void test_rewrite_to_max_level(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1"};
    pm_table *t = pk_create(dir, "t1", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 1);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"a\"}\n{\"id\":3,\"v\":\"a\"}\n");
    pk_commit_rows(t, "{\"id\":2,\"v\":\"b\"}\n{\"id\":3,\"v\":\"b\",\"_ROW_KIND\":\"-D\"}\n");
    pk_commit_rows(t, "{\"id\":1,\"v\":\"c\"}\n{\"id\":4,\"v\":\"c\"}\n");
    const char *want = "{\"id\":1,\"v\":\"c\"}\n{\"id\":2,\"v\":\"b\"}\n{\"id\":4,\"v\":\"c\"}\n";
    PK_EXPECT_ROWS(t, 0, want);
    expect_levels(t, "L0:002 L0:002 L0:003");

    pm_compact_plan *p = plan_of(t, false, "u1");
    assert_int_equal(p->ntasks, 1);
    pm_compact_task *task = p->tasks[0];
    assert_ptr_equal(task->mode, &pm_compact_pk_mode);
    assert_int_equal(task->nfiles, 3);
    assert_non_null(pm_pk_part(task->part));
    assert_int_equal(pm_pk_part(task->part)->output_level, 5);
    assert_int_equal(task->output.level, 5);
    assert_true(pm_pk_part(task->part)->drop_delete);
    assert_int_equal(pm_pk_part(task->part)->policy.pick, PM_PICK_EXPLICIT);
    /* level-0 runs newest first */
    assert_true(task->files[0].max_sequence_number > task->files[2].max_sequence_number);

    /* JSON round trip of task and result */
    char *j1 = NULL, *j2 = NULL;
    PM_OK_OR_FAIL(pm_compact_task_to_json(&j1, task));
    pm_compact_task *back = NULL;
    PM_OK_OR_FAIL(pm_compact_task_from_json(&back, j1, strlen(j1)));
    PM_OK_OR_FAIL(pm_compact_task_to_json(&j2, back));
    assert_string_equal(j1, j2);
    assert_non_null(strstr(j1, "\"mode\": \"primary-key\"") ? strstr(j1, "\"mode\": \"primary-key\"")
                                                           : strstr(j1, "\"mode\":\"primary-key\""));
    free(j1);
    free(j2);

    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, t, back, NULL));
    pm_compact_task_free(back);
    assert_int_equal(r->nbefore, 3);
    assert_int_equal(r->nafter, 1);
    const pm_data_file_meta *o = &r->after[0];
    assert_int_equal(o->level, 5);
    assert_int_equal(o->file_source.v, PM_FILE_SOURCE_COMPACT);
    assert_int_equal(o->row_count, 3);
    assert_int_equal(o->delete_row_count.v, 0);
    assert_int_equal(o->min_sequence_number, 3); /* id 2 v=b (commit 2 continues at 3) */
    assert_int_equal(o->max_sequence_number, 6);
    assert_int_equal(r->counters.rows_read, 7);
    assert_int_equal(r->counters.rows_written, 3);
    PM_OK_OR_FAIL(pm_compact_result_to_json(&j1, r));
    pm_compact_result *rb = NULL;
    PM_OK_OR_FAIL(pm_compact_result_from_json(&rb, j1, strlen(j1)));
    PM_OK_OR_FAIL(pm_compact_result_to_json(&j2, rb));
    assert_string_equal(j1, j2);
    free(j1);
    free(j2);
    pm_compact_result_free(r);
    int64_t snap = commit_all(t, &rb, 1);
    assert_int_equal(snap, 4);
    /* idempotent retry */
    assert_int_equal(commit_all(t, &rb, 1), 4);
    PK_EXPECT_ROWS(t, 0, want);
    expect_levels(t, "L5:003");
    pm_compact_result_free(rb);
    pm_compact_plan_free(p);

    /* nothing left to do */
    p = plan_of(t, false, "u2");
    assert_int_equal(p->ntasks, 0);
    pm_compact_plan_free(p);
    p = plan_of(t, true, "u2");
    assert_int_equal(p->ntasks, 0);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Non-overlapping large files are upgraded (same file, new level), except
 * at the max level when they may hold deletes: then rewritten. */
static void test_upgrade_vs_rewrite(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "target-file-size=10 b"};
    pm_table *t = pk_create(dir, "t2", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"a\"}\n{\"id\":3,\"v\":\"a\"}\n");
    pk_commit_rows(t, "{\"id\":10,\"v\":\"b\"}\n{\"id\":11,\"v\":\"b\",\"_ROW_KIND\":\"-D\"}\n{\"id\":12,\"v\":\"b\"}\n");
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    assert_int_equal(pm_pk_part(p->tasks[0]->part)->output_level, 5);
    char plain[256] = "", deleting[256] = "";
    for (size_t i = 0; i < 2; i++) {
        const pm_data_file_meta *f = &p->tasks[0]->files[i];
        strcpy(f->delete_row_count.v ? deleting : plain, f->file_name);
    }
    pm_compact_result **r = exec_all(t, p);
    assert_int_equal(r[0]->nbefore, 2);
    assert_int_equal(r[0]->nafter, 2);
    bool upgraded = false, rewritten = false;
    for (size_t i = 0; i < 2; i++) {
        const pm_data_file_meta *a = &r[0]->after[i];
        assert_int_equal(a->level, 5);
        if (!strcmp(a->file_name, plain)) {
            upgraded = true;
            assert_int_equal(a->file_source.v, PM_FILE_SOURCE_APPEND); /* untouched file */
            assert_int_equal(a->row_count, 3);
        } else {
            rewritten = true;
            assert_string_not_equal(a->file_name, deleting);
            assert_int_equal(a->file_source.v, PM_FILE_SOURCE_COMPACT);
            assert_int_equal(a->row_count, 2); /* the delete is dropped at the max level */
            assert_int_equal(a->delete_row_count.v, 0);
        }
    }
    assert_true(upgraded && rewritten);
    assert_int_equal(r[0]->counters.rows_read, 3); /* only the rewritten file was read */

    /* abort keeps the upgraded input, deletes the new file */
    char newname[256];
    for (size_t i = 0; i < 2; i++)
        if (strcmp(r[0]->after[i].file_name, plain))
            strcpy(newname, r[0]->after[i].file_name);
    PM_OK_OR_FAIL(pm_compact_abort(t, r, 1));
    assert_true(file_exists(t, plain));
    assert_false(file_exists(t, newname));
    free_results(r, 1);

    r = exec_all(t, p);
    commit_all(t, r, 1);
    PK_EXPECT_ROWS(t, 0,
                   "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"a\"}\n{\"id\":3,\"v\":\"a\"}\n"
                   "{\"id\":10,\"v\":\"b\"}\n{\"id\":12,\"v\":\"b\"}\n");
    expect_levels(t, "L5:002 L5:003");
    assert_true(file_exists(t, plain));
    free_results(r, 1);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void big_base(pm_table *t, int n)
{
    pm_buf in = PM_BUF_INIT;
    for (int i = 0; i < n; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&in, "{\"id\":%d,\"v\":\"base-%d-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n", i, i));
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&in, &s));
    pk_commit_rows(t, s);
    pm_buf_free(&in);
    pm_compact_plan *p = plan_of(t, true, "base");
    pm_compact_result **r = exec_all(t, p);
    commit_all(t, r, p->ntasks);
    free_results(r, p->ntasks);
    pm_compact_plan_free(p);
}

/* Level-0 runs over a large max-level run go to level 4 and keep their
 * delete records (older data stays below).  A concurrent compaction that
 * puts an overlapping range into level 4 makes the commit a conflict;
 * concurrent level-0 appends do not. */
static void test_overlap_conflict_and_kept_deletes(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1"};
    pm_table *t = pk_create(dir, "t3", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 1);
    big_base(t, 500);
    expect_levels(t, "L5:500");
    pk_commit_rows(t, "{\"id\":5,\"v\":\"n\"}\n{\"id\":6,\"v\":\"x\",\"_ROW_KIND\":\"-D\"}\n");
    pk_commit_rows(t, "{\"id\":7,\"v\":\"n\"}\n{\"id\":8,\"v\":\"n\"}\n");
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    assert_int_equal(pm_pk_part(p->tasks[0]->part)->output_level, 4);
    assert_false(pm_pk_part(p->tasks[0]->part)->drop_delete);
    pm_compact_result **r = exec_all(t, p);
    assert_int_equal(r[0]->nafter, 1);
    assert_int_equal(r[0]->after[0].row_count, 4);
    assert_int_equal(r[0]->after[0].delete_row_count.v, 1); /* kept: L5 still has id 6 */

    /* a concurrent level-0 append commits alongside */
    pk_commit_rows(t, "{\"id\":9,\"v\":\"late\"}\n");

    /* a concurrent compaction moves the L5 file to level 4: overlap */
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    pm_data_file_meta before, after;
    bool found = false;
    for (size_t i = 0; i < bf->nfiles && !found; i++)
        if (bf->files[i].level == 5) {
            PM_OK_OR_FAIL(pm_data_file_meta_copy(&before, &bf->files[i]));
            PM_OK_OR_FAIL(pm_data_file_meta_copy(&after, &bf->files[i]));
            after.level = 4;
            found = true;
        }
    assert_true(found);
    pm_commit_message m;
    memset(&m, 0, sizeof m);
    m.partition = bf->partition;
    m.bucket = 0;
    m.total_buckets = 1;
    m.compact_before = &before;
    m.n_compact_before = 1;
    m.compact_after = &after;
    m.n_compact_after = 1;
    pm_commit_options co = {0};
    co.kind = PM_COMMIT_COMPACT;
    co.commit_identifier = 77;
    int64_t id = 0;
    PM_OK_OR_FAIL(pm_table_commit(t, &co, &m, 1, &id));
    pm_data_file_meta_clear(&before);
    pm_data_file_meta_clear(&after);
    pm_scan_result_free(scan);

    pm_error *e = pm_compact_commit(NULL, t, NULL, r, 1);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_int_equal(pm_error_code(e), PM_ECONFLICT);
    assert_non_null(strstr(msg, "replan"));
    assert_non_null(strstr(msg, "overlapping"));
    free(msg);
    pm_error_free(e);
    PM_OK_OR_FAIL(pm_compact_abort(t, r, 1));
    free_results(r, 1);
    pm_compact_plan_free(p);

    /* replan: everything still reads right */
    p = plan_of(t, false, "u2");
    r = exec_all(t, p);
    commit_all(t, r, p->ntasks);
    free_results(r, p->ntasks);
    pm_compact_plan_free(p);
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_non_null(strstr(got, "{\"id\":5,\"v\":\"n\"}"));
    assert_null(strstr(got, "{\"id\":6,"));
    assert_non_null(strstr(got, "{\"id\":9,\"v\":\"late\"}"));
    assert_non_null(strstr(got, "{\"id\":499,\"v\":\"base-499"));
    free(got);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Results that do not describe the captured selection are rejected. */
static void test_recomputed_selection(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1"};
    pm_table *t = pk_create(dir, "t4", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 1);
    big_base(t, 300);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"n\"}\n");
    pk_commit_rows(t, "{\"id\":2,\"v\":\"n\"}\n");
    pm_compact_plan *p = plan_of(t, false, "u");
    pm_compact_result **r = exec_all(t, p);
    assert_int_equal(pm_pk_part(r[0]->part)->output_level, 4);
    /* output at another level */
    r[0]->after[0].level = 3;
    PM_EXPECT_ERR(pm_compact_commit(NULL, t, NULL, r, 1), PM_EINVALID);
    r[0]->after[0].level = 4;
    /* a different recorded output level */
    pm_pk_part(r[0]->part)->output_level = 3;
    PM_EXPECT_ERR(pm_compact_commit(NULL, t, NULL, r, 1), PM_EINVALID);
    pm_pk_part(r[0]->part)->output_level = 4;
    /* a selected level-0 file left out of the result */
    pm_data_file_meta keep = r[0]->before[1];
    r[0]->nbefore = 1;
    PM_EXPECT_ERR(pm_compact_commit(NULL, t, NULL, r, 1), PM_EINVALID);
    r[0]->nbefore = 2;
    assert_string_equal(r[0]->before[1].file_name, keep.file_name);
    /* a policy that selects nothing */
    pm_pk_part(r[0]->part)->policy.pick = PM_PICK_AUTO;
    PM_EXPECT_ERR(pm_compact_commit(NULL, t, NULL, r, 1), PM_EINVALID);
    pm_pk_part(r[0]->part)->policy.pick = PM_PICK_EXPLICIT;
    int64_t snap = commit_all(t, r, 1);
    assert_true(snap > 0);
    expect_levels(t, "L4:002 L5:300");
    free_results(r, 1);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* first-row: keys already accepted in a retained level are not output. */
static void test_first_row_lookup(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "merge-engine=first-row"};
    pm_table *t = pk_create(dir, "t5", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    big_base(t, 300);
    pm_buf in = PM_BUF_INIT;
    for (int i = 295; i < 310; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&in, "{\"id\":%d,\"v\":\"new\"}\n", i));
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&in, &s));
    pk_commit_rows(t, s);
    pm_buf_free(&in);
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    assert_true(pm_pk_part(p->tasks[0]->part)->policy.first_row);
    assert_int_equal(pm_pk_part(p->tasks[0]->part)->output_level, 4);
    pm_compact_result **r = exec_all(t, p);
    assert_int_equal(r[0]->nafter, 1);
    assert_int_equal(r[0]->after[0].row_count, 10); /* 300..309: 295..299 already exist */
    commit_all(t, r, 1);
    free_results(r, 1);
    pm_compact_plan_free(p);
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_non_null(strstr(got, "{\"id\":299,\"v\":\"base-299"));
    assert_non_null(strstr(got, "{\"id\":300,\"v\":\"new\"}"));
    assert_null(strstr(got, "{\"id\":299,\"v\":\"new\"}"));
    size_t lines = 0;
    for (const char *c = got; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 310);
    free(got);

    /* every key already exists: the level-0 file is retired without output */
    pk_commit_rows(t, "{\"id\":1,\"v\":\"dup\"}\n{\"id\":2,\"v\":\"dup\"}\n");
    p = plan_of(t, false, "u2");
    assert_int_equal(p->ntasks, 1);
    r = exec_all(t, p);
    commit_all(t, r, 1);
    free_results(r, 1);
    pm_compact_plan_free(p);
    got = pk_read_sorted(t, 0, NULL, 0);
    assert_null(strstr(got, "dup"));
    free(got);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* More than 256 overlapping runs: multi-pass merge through the spill. */
static void test_many_runs(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "write-buffer-size=1 b", "write-buffer-spillable=false"};
    pm_table *t = pk_create(dir, "t6", "ROW<id INT NOT NULL, v INT>", NULL, "id", opts, 3);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    int last[64];
    for (int k = 0; k < 64; k++)
        last[k] = -1;
    for (int b = 0; b < 300; b++) {
        char rows[256];
        int k1 = (b * 7) % 64, k2 = (b * 13 + 5) % 64;
        snprintf(rows, sizeof rows, "{\"id\":%d,\"v\":%d}\n{\"id\":%d,\"v\":%d}\n", k1 < k2 ? k1 : k2, b,
                 k1 < k2 ? k2 : k1, b);
        last[k1] = b;
        last[k2] = b;
        pm_batch *bt = pk_rows(t, rows);
        PM_OK_OR_FAIL(pm_table_writer_write(w, bt));
        pm_batch_free(bt);
    }
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    pk_commit_msgs(t, m, n);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    assert_true(p->tasks[0]->nfiles >= 257);
    pm_compact_result **r = exec_all(t, p);
    commit_all(t, r, 1);
    free_results(r, 1);
    pm_compact_plan_free(p);
    pm_buf want = PM_BUF_INIT;
    int keys = 0;
    for (int k = 0; k < 64; k++)
        if (last[k] >= 0) {
            PM_OK_OR_FAIL(pm_buf_printf(&want, "{\"id\":%d,\"v\":%d}\n", k, last[k]));
            keys++;
        }
    const char *ws = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&want, &ws));
    PK_EXPECT_ROWS(t, 0, ws);
    char lv[32];
    snprintf(lv, sizeof lv, "L5:%03d", keys);
    expect_levels(t, lv);
    pm_buf_free(&want);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Order-sensitive aggregation (sum): the whole bucket, output level 1. */
static void test_whole_bucket_aggregation(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "merge-engine=aggregation", "fields.n.aggregate-function=sum"};
    pm_table *t = pk_create(dir, "t7", "ROW<id INT NOT NULL, n BIGINT>", NULL, "id", opts, 3);
    pk_commit_rows(t, "{\"id\":1,\"n\":1}\n{\"id\":2,\"n\":10}\n");
    pk_commit_rows(t, "{\"id\":1,\"n\":2}\n");
    pk_commit_rows(t, "{\"id\":1,\"n\":4}\n{\"id\":2,\"n\":5,\"_ROW_KIND\":\"-U\"}\n");
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    assert_true(pm_pk_part(p->tasks[0]->part)->policy.whole_bucket);
    assert_int_equal(pm_pk_part(p->tasks[0]->part)->output_level, 1);
    assert_int_equal(p->tasks[0]->nfiles, 3);
    pm_compact_result **r = exec_all(t, p);
    commit_all(t, r, 1);
    free_results(r, 1);
    pm_compact_plan_free(p);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"n\":7}\n{\"id\":2,\"n\":5}\n");
    expect_levels(t, "L1:002");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* The write stall compacts a bucket above the stop trigger first. */
static void test_write_stall(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "num-sorted-run.compaction-trigger=2"}; /* stop trigger 5 */
    pm_table *t = pk_create(dir, "t8", "ROW<id INT NOT NULL, v INT>", NULL, "id", opts, 2);
    for (int i = 0; i < 5; i++) {
        char rows[64];
        snprintf(rows, sizeof rows, "{\"id\":%d,\"v\":%d}\n{\"id\":100,\"v\":%d}\n", i, i, i);
        pk_commit_rows(t, rows);
    }
    pm_bytes part = {0};
    PM_OK_OR_FAIL(pm_bytes_set(&part, (const uint8_t *)"\0\0\0\0\0\0\0\0", 0));
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    pm_bytes_clear(&part);
    PM_OK_OR_FAIL(pm_bytes_set(&part, bf->partition.data, bf->partition.len));
    pm_scan_result_free(scan);
    int32_t bucket = 0;
    size_t nnew = 0;
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_write_stall(&m, t, "w", &part, &bucket, &nnew, 1));
    assert_int_equal(m.snapshot_id, 0); /* 5 runs: not above 5 */
    nnew = 1;
    PM_OK_OR_FAIL(pm_compact_write_stall(&m, t, "w", &part, &bucket, &nnew, 1));
    assert_int_equal(m.snapshot_id, 6);
    PK_EXPECT_ROWS(t, 0,
                   "{\"id\":0,\"v\":0}\n{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":2}\n{\"id\":3,\"v\":3}\n"
                   "{\"id\":4,\"v\":4}\n{\"id\":100,\"v\":4}\n");
    scan = NULL;
    bf = pk_bucket(t, 0, &scan);
    assert_int_equal(bf->nfiles, 1);
    pm_scan_result_free(scan);
    pm_bytes_clear(&part);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void expect_builder_error(pm_table *t, pm_code code, const char *needle)
{
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, NULL, NULL, 0, false, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    pm_error *e = pm_compact_builder_new(&b, t, &o);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    if (pm_error_code(e) != code || !strstr(msg, needle))
        print_error("error: %s\n", msg);
    assert_int_equal(pm_error_code(e), code);
    assert_non_null(strstr(msg, needle));
    free(msg);
    pm_error_free(e);
}

static void test_unsupported_modes(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *o1[] = {"bucket=1", "deletion-vectors.enabled=true", "merge-engine=first-row"};
    pm_table *t = pk_create(dir, "dvfr", "ROW<id INT NOT NULL, v INT>", NULL, "id", o1, 3);
    expect_builder_error(t, PM_EINVALID, "first-row does not use deletion vectors");
    pm_table_free(t);
    /* (lookup changelog with aggregation and full-compaction changelog with
     * deletion vectors are supported: test_pkc_changelog.c) */
    const char *o3[] = {"bucket=1", "changelog-producer=full-compaction", "merge-engine=first-row"};
    t = pk_create(dir, "fc", "ROW<id INT NOT NULL, v INT>", NULL, "id", o3, 3);
    expect_builder_error(t, PM_EUNSUPPORTED, "changelog-producer=full-compaction is not supported with merge-engine=first-row");
    pm_table_free(t);
    const char *o4[] = {"bucket=1", "record-level.expire-time=1 d", "record-level.time-field=v"};
    t = pk_create(dir, "exp", "ROW<id INT NOT NULL, v INT>", NULL, "id", o4, 3);
    expect_builder_error(t, PM_EUNSUPPORTED, "record-level.expire-time");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Deletion vectors: rows replaced by a compaction are marked deleted in
 * the retained level (no I/O on that file), the DV index file is replaced,
 * and a full compaction applies the vectors. */
static void test_deletion_vectors(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "deletion-vectors.enabled=true"};
    pm_table *t = pk_create(dir, "dv", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    big_base(t, 300);
    pk_commit_rows(t, "{\"id\":5,\"v\":\"new\"}\n{\"id\":7,\"v\":null,\"_ROW_KIND\":\"-D\"}\n");
    /* level 0 is invisible to batch reads of DV tables */
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_non_null(strstr(got, "{\"id\":5,\"v\":\"base-5"));
    free(got);
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    assert_true(pm_pk_part(p->tasks[0]->part)->policy.dv);
    assert_int_equal(pm_pk_part(p->tasks[0]->part)->output_level, 4);
    assert_true(pm_pk_part(p->tasks[0]->part)->drop_delete);
    pm_compact_result **r = exec_all(t, p);
    assert_int_equal(r[0]->nafter, 1);
    assert_int_equal(r[0]->after[0].row_count, 1); /* the delete is dropped */
    assert_int_equal(r[0]->nindex_added, 1);
    commit_all(t, r, 1);
    free_results(r, 1);
    pm_compact_plan_free(p);
    got = pk_read_sorted(t, 0, NULL, 0);
    assert_non_null(strstr(got, "{\"id\":5,\"v\":\"new\"}"));
    assert_null(strstr(got, "{\"id\":5,\"v\":\"base-5"));
    assert_null(strstr(got, "{\"id\":7,"));
    size_t lines = 0;
    for (const char *c = got; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 299);
    free(got);
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    assert_int_equal(bf->ndvs, 1);
    assert_int_equal(bf->dvs[0].cardinality.v, 2); /* id 5 and id 7 in the L5 file */
    pm_scan_result_free(scan);
    /* full compaction: one file, the vectors applied */
    p = plan_of(t, true, "u2");
    r = exec_all(t, p);
    commit_all(t, r, p->ntasks);
    free_results(r, p->ntasks);
    pm_compact_plan_free(p);
    expect_levels(t, "L5:299");
    scan = NULL;
    bf = pk_bucket(t, 0, &scan);
    assert_int_equal(bf->ndvs, 0);
    pm_scan_result_free(scan);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* The changelog files of a result as "kind:id:a" lines (file order). */
static char *changelog_of(pm_table *t, const pm_compact_result *r)
{
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, r->partition.data, r->partition.len, r->bucket, &dir));
    pm_buf out = PM_BUF_INIT;
    for (size_t i = 0; i < r->nchangelog; i++) {
        assert_int_equal(r->changelog[i].level, pm_pk_part(r->part)->output_level);
        assert_non_null(strstr(r->changelog[i].file_name, "changelog-"));
        pm_file_read_options fo = {pm_table_schema(t)->row_type, 0, true, NULL};
        pm_file_reader *fr = NULL;
        PM_OK_OR_FAIL(pm_file_reader_open(&fr, t, dir, &r->changelog[i], &fo));
        for (;;) {
            const pm_batch *b = NULL;
            PM_OK_OR_FAIL(pm_file_reader_next(fr, &b));
            if (!b)
                break;
            for (int64_t k = 0; k < b->num_rows; k++) {
                static const char *names[] = {"+I", "-U", "+U", "-D"};
                int kind = pm_column_i8(b->columns[1], k);
                PM_OK_OR_FAIL(pm_buf_printf(&out, "%s:%d:", names[kind & 3], (int)pm_column_i32(b->columns[2], k)));
                if (pm_column_is_null(b->columns[3], k))
                    PM_OK_OR_FAIL(pm_buf_append_str(&out, "null\n"));
                else
                    PM_OK_OR_FAIL(pm_buf_printf(&out, "%d\n", (int)pm_column_i32(b->columns[3], k)));
            }
        }
        pm_file_reader_free(fr);
    }
    free(dir);
    const char *cs = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &cs));
    char *res = strdup(cs);
    pm_buf_free(&out);
    return res;
}

static pm_compact_result *compact_one(pm_table *t, const char *user)
{
    pm_compact_plan *p = plan_of(t, false, user);
    assert_int_equal(p->ntasks, 1);
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, t, p->tasks[0], NULL));
    pm_compact_plan_free(p);
    /* through JSON, as a worker would return it */
    char *j = NULL;
    PM_OK_OR_FAIL(pm_compact_result_to_json(&j, r));
    pm_compact_result_free(r);
    PM_OK_OR_FAIL(pm_compact_result_from_json(&r, j, strlen(j)));
    free(j);
    commit_all(t, &r, 1);
    return r;
}

/* changelog-producer=lookup (deduplicate): events from level-0 inputs and
 * the history looked up above; published with the COMPACT snapshot. */
static void test_lookup_changelog(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "changelog-producer=lookup", "changelog-producer.row-deduplicate=true"};
    pm_table *t = pk_create(dir, "cl", "ROW<id INT NOT NULL, a INT>", NULL, "id", opts, 3);
    pk_commit_rows(t, "{\"id\":1,\"a\":1}\n{\"id\":2,\"a\":1}\n{\"id\":3,\"a\":1}\n{\"id\":5,\"a\":5}\n");
    pm_compact_result *r = compact_one(t, "c1");
    char *cl = changelog_of(t, r);
    assert_string_equal(cl, "+I:1:1\n+I:2:1\n+I:3:1\n+I:5:5\n");
    free(cl);
    pm_compact_result_free(r);
    /* the snapshot carries the changelog */
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    assert_non_null(scan->snapshot->changelog_manifest_list);
    pm_scan_result_free(scan);

    pk_commit_rows(t, "{\"id\":2,\"a\":2}\n{\"id\":3,\"a\":null,\"_ROW_KIND\":\"-D\"}\n{\"id\":4,\"a\":4}\n"
                      "{\"id\":1,\"a\":1}\n{\"id\":6,\"a\":null,\"_ROW_KIND\":\"-D\"}\n");
    r = compact_one(t, "c2");
    assert_int_equal(pm_pk_part(r->part)->output_level, 4);
    cl = changelog_of(t, r);
    /* 1 unchanged (row-deduplicate), 2 updated, 3 deleted, 4 new, 6 never existed */
    assert_string_equal(cl, "-U:2:1\n+U:2:2\n-D:3:1\n+I:4:4\n");
    free(cl);
    pm_compact_result_free(r);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"a\":1}\n{\"id\":2,\"a\":2}\n{\"id\":4,\"a\":4}\n{\"id\":5,\"a\":5}\n");

    /* history at level 4 wins over level 5 (the freshest positive level) */
    pk_commit_rows(t, "{\"id\":2,\"a\":3}\n");
    r = compact_one(t, "c3");
    cl = changelog_of(t, r);
    assert_string_equal(cl, "-U:2:2\n+U:2:3\n");
    free(cl);
    pm_compact_result_free(r);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* first-row + lookup changelog: only newly accepted keys. */
static void test_first_row_changelog(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "merge-engine=first-row", "changelog-producer=lookup"};
    pm_table *t = pk_create(dir, "frcl", "ROW<id INT NOT NULL, a INT>", NULL, "id", opts, 3);
    pk_commit_rows(t, "{\"id\":1,\"a\":1}\n{\"id\":2,\"a\":1}\n");
    pm_compact_result *r = compact_one(t, "c1");
    char *cl = changelog_of(t, r);
    assert_string_equal(cl, "+I:1:1\n+I:2:1\n");
    free(cl);
    pm_compact_result_free(r);
    pk_commit_rows(t, "{\"id\":2,\"a\":2}\n{\"id\":3,\"a\":3,\"_ROW_KIND\":\"+U\"}\n");
    r = compact_one(t, "c2");
    cl = changelog_of(t, r);
    assert_string_equal(cl, "+U:3:3\n"); /* 2 exists above; 3 keeps its kind */
    free(cl);
    pm_compact_result_free(r);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"a\":1}\n{\"id\":2,\"a\":1}\n{\"id\":3,\"a\":3}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* changelog-producer=full-compaction: a level-0 file that only moves up to
 * the max level (no overlap, no deletes, large enough to be upgraded) stays
 * where it is and its rows become +I events (Java's upgrade with
 * changelog). */
static void test_full_changelog_upgrade(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "changelog-producer=full-compaction", "target-file-size=1 b"};
    pm_table *t = pk_create(dir, "fcu", "ROW<id INT NOT NULL, a INT>", NULL, "id", opts, 3);
    pk_commit_rows(t, "{\"id\":1,\"a\":1}\n{\"id\":2,\"a\":2}\n");
    pm_compact_plan *p = plan_of(t, true, "u");
    assert_int_equal(p->ntasks, 1);
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, t, p->tasks[0], NULL));
    pm_compact_plan_free(p);
    /* upgraded: the same file at level 5 */
    assert_int_equal(r->nbefore, 1);
    assert_int_equal(r->nafter, 1);
    assert_string_equal(r->after[0].file_name, r->before[0].file_name);
    assert_int_equal(r->after[0].level, 5);
    char *cl = changelog_of(t, r);
    assert_string_equal(cl, "+I:1:1\n+I:2:2\n");
    free(cl);
    commit_all(t, &r, 1);
    pm_compact_result_free(r);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* A corrupt input: the error names the file and says why. */
static void test_error_names_input(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "file.compression=none"};
    pm_table *t = pk_create(dir, "bad", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"aaaaaaaaaaaaaaaa\"}\n{\"id\":2,\"v\":\"bbbbbbbbbbbbbbbb\"}\n");
    pk_commit_rows(t, "{\"id\":1,\"v\":\"cccccccccccccccc\"}\n{\"id\":3,\"v\":\"dddddddddddddddd\"}\n");
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    const pm_compact_task *task = p->tasks[0];
    assert_int_equal(task->nfiles, 2);
    /* the pages of the second input become garbage, its footer stays */
    const char *victim = task->files[1].file_name;
    char *bdir = bucket_dir(t);
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", bdir, victim);
    free(bdir);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    unsigned char junk[48];
    memset(junk, 0xEE, sizeof junk);
    assert_int_equal(fseek(f, 4, SEEK_SET), 0);
    assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
    fclose(f);
    pm_compact_result *r = NULL;
    pm_error *e = pm_compact_execute(&r, t, task, NULL);
    assert_non_null(e);
    assert_null(r);
    /* "... input <file>: <the reader's cause>" */
    char *msg = pm_error_format(e);
    char want[512];
    snprintf(want, sizeof want, "input %s: ", victim);
    const char *at = strstr(msg, want);
    if (!at || strlen(at + strlen(want)) < 10) {
        print_error("message lacks the input file %s and its cause: %s\n", victim, msg);
        fail();
    }
    free(msg);
    pm_error_free(e);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* A small memory share: the merge goes through passes, rows stay exact. */
static void test_small_memory_budget(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "write-buffer-size=1 b", "write-buffer-spillable=false"};
    pm_table *t = pk_create(dir, "mem", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 3);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_buf want = PM_BUF_INIT;
    for (int b = 0; b < 40; b++) {
        pm_buf rows = PM_BUF_INIT;
        for (int k = 0; k < 50; k++)
            PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":\"r%d-%d-xxxxxxxxxxxxxxxx\"}\n", k * 40 + b, b, k));
        const char *text = NULL;
        PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
        PM_OK_OR_FAIL(pm_buf_append_str(&want, text));
        pm_batch *bt = pk_rows(t, text);
        PM_OK_OR_FAIL(pm_table_writer_write(w, bt));
        pm_batch_free(bt);
        pm_buf_free(&rows);
    }
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    pk_commit_msgs(t, m, n);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    assert_int_equal(p->tasks[0]->nfiles, 40);
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute_with_budget(&r, t, p->tasks[0], 64 << 10));
    commit_all(t, &r, 1);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    const char *ws = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&want, &ws));
    PK_EXPECT_ROWS(t, 0, ws);
    expect_levels(t, "L5:2000");
    pm_buf_free(&want);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static size_t count_files(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Two overlapping runs whose batches alone exceed the merge's half of the
 * budget: PM_EINVALID naming the budget and what a run needs, no file
 * left behind; a budget that holds them compacts. */
static void test_budget_too_small_for_two_runs(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "write-only=true"};
    pm_table *t = pk_create(dir, "tiny", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    for (int run = 0; run < 2; run++) {
        pm_table_writer *w = NULL;
        PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
        pm_buf rows = PM_BUF_INIT;
        for (int k = 0; k < 3000; k++)
            PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":\"%0200d\"}\n", k + run * 1000, k));
        const char *text = NULL;
        PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
        pm_batch *bt = pk_rows(t, text);
        PM_OK_OR_FAIL(pm_table_writer_write(w, bt));
        pm_batch_free(bt);
        pm_buf_free(&rows);
        pm_commit_message *m = NULL;
        size_t n = 0;
        PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
        pk_commit_msgs(t, m, n);
        pm_commit_message_array_free(m, n);
        pm_table_writer_free(w);
    }
    char bucket[4096];
    snprintf(bucket, sizeof bucket, "%s/db.db/tiny/bucket-0", dir);
    size_t files_before = count_files(bucket);
    pm_compact_plan *p = plan_of(t, false, "u");
    assert_int_equal(p->ntasks, 1);
    assert_int_equal(p->tasks[0]->nfiles, 2);
    pm_compact_result *r = NULL;
    pm_error *e = pm_compact_execute_with_budget(&r, t, p->tasks[0], 256 << 10);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "memory budget of 262144 bytes"));
    assert_non_null(strstr(msg, "cannot merge 2 sorted runs"));
    free(msg);
    pm_error_free(e);
    assert_null(r);
    assert_int_equal(count_files(bucket), files_before);
    PM_OK_OR_FAIL(pm_compact_execute_with_budget(&r, t, p->tasks[0], 16 << 20));
    commit_all(t, &r, 1);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    expect_levels(t, "L5:4000");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rewrite_to_max_level),
        cmocka_unit_test(test_upgrade_vs_rewrite),
        cmocka_unit_test(test_overlap_conflict_and_kept_deletes),
        cmocka_unit_test(test_recomputed_selection),
        cmocka_unit_test(test_first_row_lookup),
        cmocka_unit_test(test_many_runs),
        cmocka_unit_test(test_small_memory_budget),
        cmocka_unit_test(test_budget_too_small_for_two_runs),
        cmocka_unit_test(test_whole_bucket_aggregation),
        cmocka_unit_test(test_write_stall),
        cmocka_unit_test(test_unsupported_modes),
        cmocka_unit_test(test_deletion_vectors),
        cmocka_unit_test(test_lookup_changelog),
        cmocka_unit_test(test_first_row_changelog),
        cmocka_unit_test(test_full_changelog_upgrade),
        cmocka_unit_test(test_error_names_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
