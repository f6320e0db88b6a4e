/*
 * tests/unit/api/test_api_index.c — paimon/index.h: pm_table_build_index
 * builds the missing coverage once (a second call publishes nothing), one
 * column at a time, refuses undeclared columns and unknown versions;
 * writes with write-only=false maintain the indexes automatically and
 * write-only=true leaves them; filtered reads skip the files the indexes
 * exclude and return the rows of a full scan; pm_table_index_declared
 * tells tables with declarations from tables without.
 */
#include <dirent.h>

#include "api_test_util.h"
#include "paimon/index.h"
#include "paimon/schema.h"

static char *read_filtered(pm_table *t, const char *filter, size_t *skipped)
{
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.filter = filter;
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_read(&r, t, &o));
    char *s = api_read_all(r);
    *skipped = pm_reader_files_skipped(r);
    pm_reader_free(r);
    return s;
}

static const char *const OPTS[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                                   "global-index.btree.index-columns=id", "global-index.bitmap.index-columns=name",
                                   "write-only=true"};

static void test_init(void **state)
{
    (void)state;
    pm_index_options o;
    memset(&o, 0x5a, sizeof o);
    pm_index_options_init(&o);
    assert_int_equal(o.version, PM_INDEX_OPTIONS_VERSION);
    assert_null(o.column);
    assert_null(o.commit_user);
    assert_int_equal(o.commit_identifier, 0);
}

static void test_build_on_demand(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/demand");
    api_create(path, "id BIGINT, name STRING, v DOUBLE", NULL, NULL, OPTS, 6);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    free(path);
    api_write_json(t, "{\"id\":1,\"name\":\"a\",\"v\":1.0}\n{\"id\":2,\"name\":\"b\",\"v\":2.0}\n", NULL);
    api_write_json(t, "{\"id\":3,\"name\":\"a\",\"v\":3.0}\n", NULL);
    /* write-only: nothing indexed yet; reads scan everything */
    size_t skipped = 9;
    char *s = read_filtered(t, "id = 5", &skipped);
    assert_string_equal(s, "");
    assert_int_equal(skipped, 0);
    free(s);

    pm_index_result r = PM_INDEX_RESULT_INIT;
    pm_index_options o = PM_INDEX_OPTIONS_INIT;
    o.column = "name";
    PM_OK_OR_FAIL(pm_table_build_index(&r, t, &o));
    assert_int_equal(r.snapshot_id, 3);
    assert_int_equal(r.files_added, 1); /* rows 0..2 touch: one range */
    assert_int_equal(r.ranges_built, 1);
    assert_int_equal(r.rows_indexed, 3);
    PM_OK_OR_FAIL(pm_table_build_index(&r, t, NULL));
    assert_int_equal(r.snapshot_id, 4);
    assert_int_equal(r.files_added, 1); /* id */
    PM_OK_OR_FAIL(pm_table_build_index(&r, t, NULL));
    assert_int_equal(r.snapshot_id, 0); /* complete coverage */

    s = read_filtered(t, "id = 5", &skipped);
    assert_string_equal(s, "");
    assert_int_equal(skipped, 2);
    free(s);
    s = read_filtered(t, "name = 'a'", &skipped);
    assert_string_equal(s, "{\"id\":1,\"name\":\"a\",\"v\":1.0}\n{\"id\":3,\"name\":\"a\",\"v\":3.0}\n");
    assert_int_equal(skipped, 0);
    free(s);
    s = read_filtered(t, "id IN (2, 9) AND name = 'b'", &skipped);
    assert_string_equal(s, "{\"id\":2,\"name\":\"b\",\"v\":2.0}\n");
    assert_int_equal(skipped, 1);
    free(s);

    o.column = "v";
    pm_test_expect_error(pm_table_build_index(&r, t, &o), PM_EINVALID, "no global index declaration");
    pm_index_options bad = PM_INDEX_OPTIONS_INIT;
    bad.version = 99;
    pm_test_expect_error(pm_table_build_index(&r, t, &bad), PM_EINVALID, "index options version 99");
    pm_index_result badr = PM_INDEX_RESULT_INIT;
    badr.version = 0;
    pm_test_expect_error(pm_table_build_index(&badr, t, NULL), PM_EINVALID, "index result version 0");
    bool declared = false;
    PM_OK_OR_FAIL(pm_table_index_declared(&declared, t));
    assert_true(declared);
    pm_test_expect_error(pm_table_index_declared(NULL, t), PM_EINVALID, "no result");
    pm_test_expect_error(pm_table_index_declared(&declared, NULL), PM_EINVALID, "no table");
    pm_table_free(t);
    /* a table without declarations */
    char *p2 = api_path(dir, "db.db/plain");
    api_create(p2, "id BIGINT", NULL, NULL, OPTS, 3);
    PM_OK_OR_FAIL(pm_table_open(&t, p2, NULL));
    free(p2);
    declared = true;
    PM_OK_OR_FAIL(pm_table_index_declared(&declared, t));
    assert_false(declared);
    pm_table_free(t);
}

static void test_automatic(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/auto");
    const char *opts[] = {OPTS[0], OPTS[1], OPTS[2], OPTS[3], OPTS[4]};
    api_create(path, "id BIGINT, name STRING, v DOUBLE", NULL, NULL, opts, 5);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    free(path);
    pm_commit_outcome out = api_write_json(t, "{\"id\":1,\"name\":\"a\",\"v\":1.0}\n", NULL);
    assert_int_equal(out.snapshot_id, 1);
    out = api_write_json(t, "{\"id\":2,\"name\":\"b\",\"v\":2.0}\n", NULL);
    assert_int_equal(out.snapshot_id, 3); /* snapshot 2: the first write's index round */
    pm_index_result r = PM_INDEX_RESULT_INIT;
    PM_OK_OR_FAIL(pm_table_build_index(&r, t, NULL));
    assert_int_equal(r.snapshot_id, 0); /* every write maintained the indexes */
    size_t skipped = 0;
    char *s = read_filtered(t, "id = 2", &skipped);
    assert_string_equal(s, "{\"id\":2,\"name\":\"b\",\"v\":2.0}\n");
    assert_int_equal(skipped, 1);
    free(s);
    pm_table_free(t);
}

static size_t index_files(const char *table)
{
    char *d = api_path(table, "index");
    size_t n = 0;
    DIR *dd = opendir(d);
    for (struct dirent *de; dd && (de = readdir(dd));)
        n += de->d_name[0] != '.';
    if (dd)
        closedir(dd);
    free(d);
    return n;
}

/* An index failure after the data commit: the data stays committed, the
 * outcome carries the error with its cause, the round's files are gone;
 * retrying the same write (same commit user and identifier) recovers the
 * index round once, and a further retry publishes nothing. */
static void test_failure_and_recovery(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/recover");
    const char *opts[] = {OPTS[0], OPTS[1], OPTS[2], OPTS[3], OPTS[4]};
    api_create(path, "id BIGINT, name STRING, v DOUBLE", NULL, NULL, opts, 5);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = "u1";
    wo.commit_identifier = 7;
    const char *rows = "{\"id\":1,\"name\":\"a\",\"v\":1.0}\n{\"id\":2,\"name\":\"b\",\"v\":2.0}\n";
    for (int round = 0; round < 3; round++) {
        if (round == 0)
            setenv("PAIMON_FAULT_INJECT", "global-index-after-write", 1);
        pm_writer *w = NULL;
        PM_OK_OR_FAIL(pm_writer_new(&w, t, &wo));
        pm_mem_source src = {rows, strlen(rows), 0, 0};
        PM_OK_OR_FAIL(pm_writer_write_rows(w, PM_ROWS_JSONL, pm_mem_source_read, &src));
        pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
        PM_OK_OR_FAIL(pm_writer_commit(&out, w));
        pm_writer_free(w);
        unsetenv("PAIMON_FAULT_INJECT");
        assert_int_equal(out.snapshot_id, 1);
        assert_int_equal(out.already_committed, round > 0);
        if (round == 0) {
            pm_test_expect_error(out.compaction_error, PM_EIO, "data commit stays committed");
            assert_int_equal(index_files(path), 0);
        } else {
            assert_null(out.compaction_error);
            assert_int_equal(index_files(path), 2);
        }
    }
    pm_index_result r = PM_INDEX_RESULT_INIT;
    PM_OK_OR_FAIL(pm_table_build_index(&r, t, NULL));
    assert_int_equal(r.snapshot_id, 0);
    size_t skipped = 0;
    char *s = read_filtered(t, "id = 2", &skipped);
    assert_string_equal(s, "{\"id\":2,\"name\":\"b\",\"v\":2.0}\n");
    free(s);
    free(path);
    pm_table_free(t);
}

/* ALTER TABLE SET validates declarations as creation does; a declaration
 * added later is maintained by the next round (Java's ALTER TABLE SET of
 * global-index.*.index-columns). */
static void test_alter_options(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/alter");
    const char *opts[] = {OPTS[0], OPTS[1], OPTS[2], "write-only=true"};
    api_create(path, "id BIGINT, name STRING, v DOUBLE", NULL, NULL, opts, 4);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    free(path);
    api_write_json(t, "{\"id\":1,\"name\":\"a\",\"v\":1.0}\n{\"id\":2,\"name\":\"b\",\"v\":2.0}\n", NULL);
    const char *k1[] = {"global-index.full-text.index-columns"}, *v1[] = {"name"};
    pm_test_expect_error(pm_table_alter_options(t, k1, v1, 1, NULL, 0), PM_EUNSUPPORTED,
                         "global index type 'full-text' (column name) is not supported");
    const char *k2[] = {"global-index.btree.index-columns"}, *v2[] = {"id, nope"};
    pm_test_expect_error(pm_table_alter_options(t, k2, v2, 1, NULL, 0), PM_EINVALID, "unknown field 'nope'");
    assert_int_equal(pm_schema_id(pm_table_schema(t)), 0); /* nothing published */
    const char *v3[] = {"id"};
    PM_OK_OR_FAIL(pm_table_alter_options(t, k2, v3, 1, NULL, 0));
    assert_int_equal(pm_schema_id(pm_table_schema(t)), 1);
    pm_index_result r = PM_INDEX_RESULT_INIT;
    PM_OK_OR_FAIL(pm_table_build_index(&r, t, NULL));
    assert_int_equal(r.files_added, 1);
    assert_int_equal(r.rows_indexed, 2);
    size_t skipped = 0;
    char *s = read_filtered(t, "id = 3", &skipped);
    assert_string_equal(s, "");
    assert_int_equal(skipped, 1);
    free(s);
    pm_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_build_on_demand),
        cmocka_unit_test(test_automatic),
        cmocka_unit_test(test_failure_and_recovery),
        cmocka_unit_test(test_alter_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
