/*
 * tests/unit/compact/test_compact_hostile.c — plans, tasks and results as
 * untrusted input: file names that are not plain names are refused when
 * read from JSON and again before execute, commit and abort (values built
 * in process too), naming the field; external paths must lie under the
 * table's data-file.external-paths; a result of another table is refused;
 * a primary-key result without its pk part is refused; abort deletes only
 * what our writers could have produced (data, changelog and index file
 * names) and never a live file or a changelog file of a later snapshot.
 * Every refusal leaves the table and the files outside it unchanged.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../pk/pk_test_util.h"
#include "../table/write_test_util.h"
#include "compact/compact_internal.h"
#include "compact/pk/pk_compact.h"
#include "meta/manifest.h"
#include "meta/snapshot_store.h"
#include "pm_test.h"
#include "table/partition.h"

static int64_t latest_id(pm_table *t)
{
    bool found = false;
    int64_t id = 0;
    PM_OK_OR_FAIL(pm_snapshot_store_latest_id(t->snapshots, &found, &id));
    return found ? id : 0;
}


static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("sentinel", f);
    fclose(f);
}

/* Replace a string of file meta f (unpacked first: packed metas are immutable). */
static void replace(pm_data_file_meta *f, char **field, const char *value)
{
    PM_OK_OR_FAIL(pm_data_file_meta_unpack(f));
    free(*field);
    *field = strdup(value);
}

/* An append table (unaware bucket) with 6 small files in one partition. */
static pm_table *append_table(const char *dir, const char *name)
{
    const char *opts[] = {"bucket=-1"};
    pm_table *t = wt_create(dir, name, "ROW<id BIGINT, s STRING>", NULL, opts, 1);
    for (int c = 0; c < 6; c++) {
        char rows[128];
        snprintf(rows, sizeof rows, "{\"id\":%d,\"s\":\"x\"}\n", c);
        wt_commit_rows(t, rows, PM_COMMIT_APPEND, NULL, 0);
    }
    return t;
}

/* A new schema of t with option k=v; the table reopened. */
static pm_table *with_option(pm_table *t, const char *k, const char *v)
{
    pm_schema *s = NULL;
    PM_OK_OR_FAIL(pm_schema_clone(pm_table_schema(t), &s));
    s->id++;
    PM_OK_OR_FAIL(pm_options_set(s->options, k, v));
    bool committed = false;
    PM_OK_OR_FAIL(pm_schema_commit(t->fio, t->branch_root, s, &committed));
    assert_true(committed);
    pm_schema_free(s);
    char *path = strdup(pm_table_path(t));
    pm_table_free(t);
    pm_table *u = NULL;
    PM_OK_OR_FAIL(pm_table_open(&u, path, NULL));
    free(path);
    return u;
}

static pm_compact_plan *plan_of(pm_table *t)
{
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.commit_user = "hostile";
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    pm_compact_builder_free(b);
    assert_true(p->ntasks >= 1);
    return p;
}

static pm_compact_result *execute_first(pm_table *t, pm_compact_plan *p)
{
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, t, p->tasks[0], NULL));
    return r;
}

/* json with its first `from` replaced by `to` (malloc'd). */
static char *substituted(const char *json, const char *from, const char *to)
{
    const char *at = strstr(json, from);
    assert_non_null(at);
    size_t pre = (size_t)(at - json);
    char *s = malloc(strlen(json) + strlen(to) + 1);
    memcpy(s, json, pre);
    strcpy(s + pre, to);
    strcat(s, at + strlen(from));
    return s;
}

/* The result JSON with `from` replaced by `to` is refused naming needle. */
static void expect_result_json_error(const char *json, const char *from, const char *to, const char *needle)
{
    char *s = substituted(json, from, to);
    pm_compact_result *r = NULL;
    pm_test_expect_error(pm_compact_result_from_json(&r, s, strlen(s)), PM_EINVALID, needle);
    assert_null(r);
    free(s);
}

/* File names with path parts are refused when a result is read. */
static void test_json_refuses_paths(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = append_table(dir, "j");
    pm_compact_plan *p = plan_of(t);
    pm_compact_result *r = execute_first(t, p);
    char *j = NULL;
    PM_OK_OR_FAIL(pm_compact_result_to_json(&j, r));
    char from[512], to[512];
    snprintf(from, sizeof from, "\"file_name\":\"%s\"", r->after[0].file_name);
    snprintf(to, sizeof to, "\"file_name\":\"../../outside.parquet\"");
    expect_result_json_error(j, from, to, "result.after[0].file_name");
    snprintf(to, sizeof to, "\"file_name\":\"/etc/passwd\"");
    expect_result_json_error(j, from, to, "result.after[0].file_name");
    snprintf(to, sizeof to, "\"file_name\":\"..\"");
    expect_result_json_error(j, from, to, "result.after[0].file_name");
    snprintf(from, sizeof from, "\"file_name\":\"%s\"", r->before[2].file_name);
    snprintf(to, sizeof to, "\"file_name\":\"a/b\"");
    expect_result_json_error(j, from, to, "result.before[2].file_name");
    expect_result_json_error(j, "\"extra_files\":[]", "\"extra_files\":[\"x/../y\"]", "extra_files[0]");
    /* the same in a task */
    char *jt = NULL;
    PM_OK_OR_FAIL(pm_compact_task_to_json(&jt, p->tasks[0]));
    snprintf(from, sizeof from, "\"file_name\":\"%s\"", p->tasks[0]->files[0].file_name);
    char *bad = substituted(jt, from, "\"file_name\":\"../x\"");
    pm_compact_task *tk = NULL;
    pm_test_expect_error(pm_compact_task_from_json(&tk, bad, strlen(bad)), PM_EINVALID, "task.files[0].file_name");
    free(bad);
    free(jt);
    free(j);
    pm_error_free(pm_compact_abort(t, &r, 1));
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Values built in process are checked again: execute, commit, abort. */
static void test_in_process_values(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = append_table(dir, "v");
    pm_table *other = append_table(dir, "other");
    char sentinel[1024];
    snprintf(sentinel, sizeof sentinel, "%s/outside.parquet", dir);
    touch(sentinel);
    pm_compact_plan *p = plan_of(t);
    int64_t before = latest_id(t);

    /* a task naming a file outside its bucket */
    pm_compact_task *tk = NULL;
    PM_OK_OR_FAIL(pm_compact_task_copy(&tk, p->tasks[0]));
    replace(&tk->files[0], &tk->files[0].file_name, "../../../outside.parquet");
    pm_compact_result *r = NULL;
    pm_test_expect_error(pm_compact_execute(&r, t, tk, NULL), PM_EINVALID, "task.files[0].file_name");
    /* an external input outside the (absent) roots */
    replace(&tk->files[0], &tk->files[0].file_name, p->tasks[0]->files[0].file_name);
    replace(&tk->files[0], &tk->files[0].external_path, sentinel);
    pm_test_expect_error(pm_compact_execute(&r, t, tk, NULL), PM_EINVALID, "task.files[0].external_path");
    pm_compact_task_free(tk);
    /* a task of another table */
    pm_test_expect_error(pm_compact_execute(&r, other, p->tasks[0], NULL), PM_EINVALID, "belongs to table");

    r = execute_first(t, p);
    char *good = strdup(r->after[0].file_name);
    replace(&r->after[0], &r->after[0].file_name, "../../outside.parquet");
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_test_expect_error(pm_compact_commit(&m, t, NULL, &r, 1), PM_EINVALID, "results[0].after[0].file_name");
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "results[0].after[0].file_name");
    assert_true(exists(sentinel));
    /* absolute external path outside the roots */
    replace(&r->after[0], &r->after[0].file_name, good);
    replace(&r->after[0], &r->after[0].external_path, sentinel);
    pm_test_expect_error(pm_compact_commit(&m, t, NULL, &r, 1), PM_EINVALID, "results[0].after[0].external_path");
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "results[0].after[0].external_path");
    assert_true(exists(sentinel));
    free(r->after[0].external_path);
    r->after[0].external_path = NULL;
    /* a result of another table */
    pm_test_expect_error(pm_compact_commit(&m, other, NULL, &r, 1), PM_EINVALID, "results[0].table");
    pm_test_expect_error(pm_compact_abort(other, &r, 1), PM_EINVALID, "results[0].table");
    /* a DV reference and an index file with path parts */
    pm_compact_result *r2 = NULL;
    PM_OK_OR_FAIL(pm_compact_result_new_for_task(&r2, p->tasks[0]));
    r2->dvs = calloc(1, sizeof *r2->dvs);
    r2->ndvs = 1;
    r2->dvs[0].data_file = strdup(r2->before[0].file_name);
    r2->dvs[0].index_file = strdup("../index-x");
    pm_test_expect_error(pm_compact_commit(&m, t, NULL, &r2, 1), PM_EINVALID, "results[0].deletion_vectors[0].index_file");
    pm_compact_result_free(r2);
    assert_int_equal(latest_id(t), before);
    assert_int_equal(m.snapshot_id, 0);
    /* an output named as a live file that is not an input */
    wt_commit_rows(t, "{\"id\":99,\"s\":\"late\"}\n", PM_COMMIT_APPEND, NULL, 0);
    before = latest_id(t);
    char *late = NULL;
    {
        pm_scan_result *sr = NULL;
        pm_scan_options so = pm_scan_options_default();
        PM_OK_OR_FAIL(pm_table_scan(t, &so, &sr));
        for (size_t k = 0; k < sr->buckets[0].nfiles && !late; k++) {
            bool input = false;
            for (size_t j = 0; j < r->nbefore; j++)
                input |= !strcmp(r->before[j].file_name, sr->buckets[0].files[k].file_name);
            if (!input)
                late = strdup(sr->buckets[0].files[k].file_name);
        }
        pm_scan_result_free(sr);
    }
    assert_non_null(late);
    replace(&r->after[0], &r->after[0].file_name, late);
    pm_test_expect_error(pm_compact_commit(&m, t, NULL, &r, 1), PM_EINVALID, "results[0].after[0].file_name: ");
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "is live in snapshot");
    assert_int_equal(latest_id(t), before);
    replace(&r->after[0], &r->after[0].file_name, good);
    free(late);
    /* the genuine result still commits (the late append alongside) */
    PM_OK_OR_FAIL(pm_compact_commit(&m, t, NULL, &r, 1));
    assert_int_equal(m.snapshot_id, before + 1);
    free(good);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_table_free(other);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Abort deletes only files our writers could have written, never live ones. */
static void test_abort_rules(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = append_table(dir, "a");
    pm_compact_plan *p = plan_of(t);
    pm_compact_result *r = execute_first(t, p);
    char *bdir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, r->partition.data, r->partition.len, r->bucket, &bdir));
    char out[2048], victim[2048];
    snprintf(out, sizeof out, "%s/%s", bdir, r->after[0].file_name);
    assert_true(exists(out));
    char *good = strdup(r->after[0].file_name);

    /* a plain name that no writer of ours gives */
    snprintf(victim, sizeof victim, "%s/victim.txt", bdir);
    touch(victim);
    replace(&r->after[0], &r->after[0].file_name, "victim.txt");
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "is not a name the table's writers give a data file");
    assert_true(exists(victim));
    /* a live file (an input of the task, named as an output) */
    replace(&r->after[0], &r->after[0].file_name, p->tasks[0]->files[0].file_name);
    replace(&r->before[0], &r->before[0].file_name, "data-00000000-0000-0000-0000-000000000000-0.parquet");
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "is live in snapshot");
    char live[2048];
    snprintf(live, sizeof live, "%s/%s", bdir, p->tasks[0]->files[0].file_name);
    assert_true(exists(live));
    replace(&r->before[0], &r->before[0].file_name, p->tasks[0]->files[0].file_name);
    /* an index file name no writer gives */
    replace(&r->after[0], &r->after[0].file_name, good);
    r->index_added = calloc(1, sizeof *r->index_added);
    r->nindex_added = 1;
    r->index_added[0].index_file.file_name = strdup("manifest-list-1");
    r->index_added[0].index_file.index_type = strdup("DELETION_VECTORS");
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "results[0].index_added[0].file_name");
    pm_index_manifest_entries_free(r->index_added, r->nindex_added);
    r->index_added = NULL;
    r->nindex_added = 0;
    assert_true(exists(out));
    /* the genuine result aborts: its output is deleted, nothing else */
    PM_OK_OR_FAIL(pm_compact_abort(t, &r, 1));
    assert_false(exists(out));
    assert_true(exists(victim));
    assert_true(exists(live));
    free(good);
    free(bdir);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* External outputs: deleted when under the table's roots and named as the
 * file, refused otherwise. */
static void test_abort_external_roots(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char root[1024], opt[1100];
    snprintf(root, sizeof root, "%s/ext", dir);
    assert_int_equal(mkdir(root, 0755), 0);
    snprintf(opt, sizeof opt, "file://%s", root);
    pm_table *t = append_table(dir, "x");
    pm_compact_plan *p = plan_of(t);
    pm_compact_result *r = execute_first(t, p);
    t = with_option(t, "data-file.external-paths", opt);
    char ext[2048], out[2048];
    snprintf(ext, sizeof ext, "%s/%s", root, r->after[0].file_name);
    touch(ext);
    char *bdir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, r->partition.data, r->partition.len, r->bucket, &bdir));
    snprintf(out, sizeof out, "%s/%s", bdir, r->after[0].file_name);
    /* under the root but not ending in the file name */
    char wrong[2048];
    snprintf(wrong, sizeof wrong, "file://%s/other.parquet", root);
    replace(&r->after[0], &r->after[0].external_path, wrong);
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "does not end in the file name");
    /* outside the root */
    snprintf(wrong, sizeof wrong, "%s/%s", dir, r->after[0].file_name);
    replace(&r->after[0], &r->after[0].external_path, wrong);
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "lies outside the table's data-file.external-paths");
    char dots[2048];
    snprintf(dots, sizeof dots, "%s/../%s", root, r->after[0].file_name);
    replace(&r->after[0], &r->after[0].external_path, dots);
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "external_path");
    assert_true(exists(ext));
    /* under the root, named as the file: deleted there */
    char good[2048];
    snprintf(good, sizeof good, "file://%s/%s", root, r->after[0].file_name);
    replace(&r->after[0], &r->after[0].external_path, good);
    PM_OK_OR_FAIL(pm_compact_abort(t, &r, 1));
    assert_false(exists(ext));
    assert_true(exists(out)); /* the bucket copy is not what the result names */
    pm_error_free(pm_fileio_delete(t->fio, out));
    free(bdir);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Primary keys: a result without its pk part is refused; abort refuses a
 * changelog file published by a later snapshot. */
static void test_pk_part_and_changelog(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "changelog-producer=lookup"};
    pm_table *t = pk_create(dir, "pk", "ROW<id INT NOT NULL, a INT>", NULL, "id", opts, 2);
    pk_commit_rows(t, "{\"id\":1,\"a\":1}\n{\"id\":2,\"a\":1}\n");
    pm_compact_plan *p = plan_of(t);
    pm_compact_result *r = execute_first(t, p);
    assert_true(r->nchangelog >= 1);
    int64_t before = latest_id(t);
    pm_compact_part *part = r->part;
    r->part = NULL;
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_test_expect_error(pm_compact_commit(&m, t, NULL, &r, 1), PM_EINVALID, "results[0].pk");
    assert_int_equal(latest_id(t), before);
    r->part = part;
    PM_OK_OR_FAIL(pm_compact_commit(&m, t, NULL, &r, 1));
    /* committed: refused (its outputs are live or upgraded inputs, and its
     * changelog belongs to the COMPACT snapshot) */
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "was committed");
    pm_data_file_meta *after = r->after;
    size_t nafter = r->nafter;
    r->after = NULL;
    r->nafter = 0;
    pm_test_expect_error(pm_compact_abort(t, &r, 1), PM_EINVALID, "changelog file");
    char *bdir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, r->partition.data, r->partition.len, r->bucket, &bdir));
    char cl[2048];
    snprintf(cl, sizeof cl, "%s/%s", bdir, r->changelog[0].file_name);
    assert_true(exists(cl));
    r->after = after;
    r->nafter = nafter;
    free(bdir);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_refuses_paths),
        cmocka_unit_test(test_in_process_values),
        cmocka_unit_test(test_abort_rules),
        cmocka_unit_test(test_abort_external_roots),
        cmocka_unit_test(test_pk_part_and_changelog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
