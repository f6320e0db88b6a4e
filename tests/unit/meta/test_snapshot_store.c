/*
 * tests/unit/meta/test_snapshot_store.c — snapshot directory on the local
 * file system: hint rules (LATEST/EARLIEST validation and fallback to
 * listing), listing that skips foreign names, load, publish-if-absent commit
 * with idempotent retry and conflict, branches; fixtures copied to a temp dir.
 */
#include "meta_fixtures.h"

#include <inttypes.h>
#include <string.h>

#include "pm_test.h"
#include "meta/snapshot_store.h"

#define BRANCH_TABLE "/java-written/parquet/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch"

static pm_fileio *fio;
static char *tmp;

static int setup(void **state)
{
    (void)state;
    tmp = pm_test_tmpdir();
    return pm_fileio_local_new(&fio) == NULL && tmp ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pm_test_rmtree(tmp);
    free(tmp);
    pm_fileio_free(fio);
    return 0;
}

/* Copy every file of src_dir into dst_dir (flat). */
static void copy_dir(const char *src_dir, const char *dst_dir)
{
    pm_name_list names;
    PM_OK_OR_FAIL(pm_fileio_list(fio, src_dir, &names));
    assert_true(names.count > 0);
    for (size_t i = 0; i < names.count; i++) {
        char *s = pm_path_join(src_dir, names.names[i]);
        char *d = pm_path_join(dst_dir, names.names[i]);
        bool is_dir;
        PM_OK_OR_FAIL(pm_fileio_is_dir(fio, s, &is_dir));
        if (!is_dir) {
            pm_buf b = PM_BUF_INIT;
            bool published;
            PM_OK_OR_FAIL(pm_fileio_read_file(fio, s, &b));
            PM_OK_OR_FAIL(pm_fileio_publish_if_absent(fio, d, b.data, b.len, &published));
            assert_true(published);
            pm_buf_free(&b);
        }
        free(s);
        free(d);
    }
    pm_fileio_list_free(&names);
}

static char *table_copy(const char *name)
{
    char *root = pm_path_join(tmp, name);
    char *dst = pm_path_join(root, "snapshot");
    char src[1024];
    snprintf(src, sizeof src, "%s%s/snapshot", PM_FIXTURES_DIR, BRANCH_TABLE);
    copy_dir(src, dst);
    free(dst);
    return root;
}

static void put(const char *dir, const char *name, const char *text)
{
    char *p = pm_path_join(dir, name);
    PM_OK_OR_FAIL(pm_fileio_overwrite_atomic(fio, p, text, strlen(text)));
    free(p);
}

static void expect_latest(pm_snapshot_store *st, bool found, int64_t id)
{
    bool f;
    int64_t got;
    PM_OK_OR_FAIL(pm_snapshot_store_latest_id(st, &f, &got));
    assert_int_equal(f, found);
    assert_int_equal(got, id);
}

static void expect_earliest(pm_snapshot_store *st, bool found, int64_t id)
{
    bool f;
    int64_t got;
    PM_OK_OR_FAIL(pm_snapshot_store_earliest_id(st, &f, &got));
    assert_int_equal(f, found);
    assert_int_equal(got, id);
}

static void test_fixture_tables(void **state)
{
    (void)state;
    /* every fixture snapshot dir: hints agree with listing, all load */
    meta_paths latest = meta_find_files("snapshot", "LATEST");
    assert_true(latest.count >= 30);
    for (size_t i = 0; i < latest.count; i++) {
        char *dir = strdup(latest.paths[i]);
        *strrchr(dir, '/') = 0; /* .../snapshot */
        *strrchr(dir, '/') = 0; /* branch root */
        pm_snapshot_store *st;
        PM_OK_OR_FAIL(pm_snapshot_store_open(&st, fio, dir, NULL));
        int64_t *ids;
        size_t n;
        PM_OK_OR_FAIL(pm_snapshot_store_list_ids(st, &ids, &n));
        assert_true(n > 0);
        for (size_t k = 1; k < n; k++)
            assert_true(ids[k] == ids[k - 1] + 1); /* continuous */
        bool found;
        int64_t hint;
        PM_OK_OR_FAIL(pm_snapshot_store_read_hint(st, "LATEST", &found, &hint));
        assert_true(found);
        assert_int_equal(hint, ids[n - 1]);
        expect_latest(st, true, ids[n - 1]);
        expect_earliest(st, true, ids[0]);
        for (size_t k = 0; k < n; k++) {
            pm_snapshot *s;
            PM_OK_OR_FAIL(pm_snapshot_store_load(st, ids[k], &s));
            assert_int_equal(s->id, ids[k]);
            pm_snapshot_free(s);
        }
        pm_snapshot *s;
        PM_OK_OR_FAIL(pm_snapshot_store_load_latest(st, &s));
        assert_int_equal(s->id, ids[n - 1]);
        pm_snapshot_free(s);
        free(ids);
        pm_snapshot_store_free(st);
        free(dir);
    }
    meta_paths_free(&latest);
}

static void test_branch(void **state)
{
    (void)state;
    char root[1024];
    snprintf(root, sizeof root, "%s%s", PM_FIXTURES_DIR, BRANCH_TABLE);
    pm_snapshot_store *st;
    PM_OK_OR_FAIL(pm_snapshot_store_open(&st, fio, root, "test"));
    assert_non_null(strstr(pm_snapshot_store_dir(st), "/branch/branch-test/snapshot"));
    expect_latest(st, true, 2);
    pm_snapshot *main_s, *branch_s;
    PM_OK_OR_FAIL(pm_snapshot_store_load(st, 2, &branch_s));
    pm_snapshot_store_free(st);
    PM_OK_OR_FAIL(pm_snapshot_store_open(&st, fio, root, "main"));
    PM_OK_OR_FAIL(pm_snapshot_store_load(st, 2, &main_s));
    /* the branch forked: snapshot 2 differs between main and branch */
    assert_true(strcmp(main_s->delta_manifest_list, branch_s->delta_manifest_list) != 0);
    pm_snapshot_free(main_s);
    pm_snapshot_free(branch_s);
    pm_snapshot_store_free(st);
}

static void test_hint_rules(void **state)
{
    (void)state;
    char *root = table_copy("hints");
    pm_snapshot_store *st;
    PM_OK_OR_FAIL(pm_snapshot_store_open(&st, fio, root, NULL));
    const char *dir = pm_snapshot_store_dir(st);
    expect_latest(st, true, 2);
    /* stale LATEST (next snapshot exists) → listing */
    put(dir, "LATEST", "1");
    expect_latest(st, true, 2);
    /* garbage, newline, zero, negative → listing */
    put(dir, "LATEST", "abc");
    expect_latest(st, true, 2);
    put(dir, "LATEST", "2\n");
    expect_latest(st, true, 2);
    put(dir, "LATEST", "0");
    expect_latest(st, true, 2);
    /* Java trusts a LATEST whose successor is absent, even if it is itself missing */
    put(dir, "LATEST", "99");
    expect_latest(st, true, 99);
    /* missing hint → listing */
    char *hint = pm_path_join(dir, "LATEST");
    PM_OK_OR_FAIL(pm_fileio_delete(fio, hint));
    free(hint);
    expect_latest(st, true, 2);
    /* EARLIEST pointing at a missing snapshot → listing min */
    put(dir, "EARLIEST", "5");
    expect_earliest(st, true, 1);
    put(dir, "EARLIEST", "2");
    expect_earliest(st, true, 2);
    /* foreign names are skipped by listing */
    put(dir, "snapshot-7abc.tmp", "x");
    put(dir, ".snapshot-9.1234.tmp", "x");
    put(dir, "snapshot-", "x");
    int64_t *ids;
    size_t n;
    PM_OK_OR_FAIL(pm_snapshot_store_list_ids(st, &ids, &n));
    assert_int_equal(n, 2);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 2);
    free(ids);
    pm_snapshot_store_free(st);

    /* empty table: nothing found, load_latest gives NULL */
    PM_OK_OR_FAIL(pm_snapshot_store_open(&st, fio, tmp, NULL));
    expect_latest(st, false, 0);
    expect_earliest(st, false, 0);
    pm_snapshot *s;
    PM_OK_OR_FAIL(pm_snapshot_store_load_latest(st, &s));
    assert_null(s);
    PM_EXPECT_ERR(pm_snapshot_store_load(st, 1, &s), PM_ENOTFOUND);
    pm_snapshot_store_free(st);
    free(root);
}

static void test_commit(void **state)
{
    (void)state;
    char *root = table_copy("commit");
    pm_snapshot_store *st;
    PM_OK_OR_FAIL(pm_snapshot_store_open(&st, fio, root, NULL));
    pm_snapshot *s;
    PM_OK_OR_FAIL(pm_snapshot_store_load_latest(st, &s));
    s->id = 3;
    free(s->delta_manifest_list);
    s->delta_manifest_list = strdup("manifest-list-x-9");
    s->legacy_has_log_offsets = false;
    s->legacy_changelog_list_null = false;
    bool committed;
    PM_OK_OR_FAIL(pm_snapshot_store_commit(st, s, &committed));
    assert_true(committed);
    bool found;
    int64_t hint;
    PM_OK_OR_FAIL(pm_snapshot_store_read_hint(st, "LATEST", &found, &hint));
    assert_true(found);
    assert_int_equal(hint, 3);
    expect_latest(st, true, 3);
    /* the published bytes are exactly the serializer's */
    char *p;
    PM_OK_OR_FAIL(pm_snapshot_store_path(st, 3, &p));
    pm_buf disk = PM_BUF_INIT, mine = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_fileio_read_file(fio, p, &disk));
    PM_OK_OR_FAIL(pm_snapshot_to_json(s, &mine));
    assert_int_equal(disk.len, mine.len);
    assert_memory_equal(disk.data, mine.data, mine.len);
    /* retry of the same commit succeeds; a different snapshot 3 conflicts */
    PM_OK_OR_FAIL(pm_snapshot_store_commit(st, s, &committed));
    assert_true(committed);
    s->time_millis += 1;
    PM_OK_OR_FAIL(pm_snapshot_store_commit(st, s, &committed));
    assert_false(committed);
    pm_buf_clear(&disk);
    PM_OK_OR_FAIL(pm_fileio_read_file(fio, p, &disk));
    assert_memory_equal(disk.data, mine.data, mine.len);
    /* LATEST was rewritten to a stale value; the commit of 4 fixes it */
    PM_OK_OR_FAIL(pm_snapshot_store_write_hint(st, "LATEST", 1));
    s->id = 4;
    PM_OK_OR_FAIL(pm_snapshot_store_commit(st, s, &committed));
    assert_true(committed);
    expect_latest(st, true, 4);
    /* a file whose content names another id is corrupt */
    pm_snapshot *bad;
    char *p5;
    PM_OK_OR_FAIL(pm_snapshot_store_path(st, 5, &p5));
    bool published;
    PM_OK_OR_FAIL(pm_fileio_publish_if_absent(fio, p5, mine.data, mine.len, &published));
    PM_EXPECT_ERR(pm_snapshot_store_load(st, 5, &bad), PM_ECORRUPT);
    s->id = 0;
    PM_EXPECT_ERR(pm_snapshot_store_commit(st, s, &committed), PM_EINVALID);
    free(p5);
    pm_buf_free(&disk);
    pm_buf_free(&mine);
    free(p);
    pm_snapshot_free(s);
    pm_snapshot_store_free(st);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_tables),
        cmocka_unit_test(test_branch),
        cmocka_unit_test(test_hint_rules),
        cmocka_unit_test(test_commit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
