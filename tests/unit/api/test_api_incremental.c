/*
 * tests/unit/api/test_api_incremental.c — incremental reads through the
 * public API only (paimon/read.h, options version 2): delta, changelog
 * and auto modes on a lookup-changelog table and an append table, the
 * `_ROW_KIND` column (last, or where the projection puts it), partition
 * filters, split getters and JSON round trips of incremental splits,
 * empty ranges, and the refusals (bad ranges, snapshot_id with a range,
 * incremental mixed with normal splits, unknown modes); version-1 read
 * options still work.
 */
#include "api_test_util.h"

#include "paimon/compact.h"

typedef struct fixture {
    char *dir, *path;
    pm_table *t;
} fixture;

static void open_table(fixture *f, const char *name, const char *fields, const char *part, const char *pk,
                       const char *const *opts, size_t n)
{
    f->dir = pm_test_tmpdir();
    f->path = api_path(f->dir, name);
    api_create(f->path, fields, part, pk, opts, n);
    PM_OK_OR_FAIL(pm_table_open(&f->t, f->path, NULL));
}

static void close_table(fixture *f)
{
    pm_table_free(f->t);
    pm_test_rmtree(f->dir);
    free(f->path);
    free(f->dir);
}

static char *read_incr(pm_table *t, int64_t from, int64_t to, pm_incremental_mode mode, const char *const *cols,
                       size_t ncols)
{
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.incremental_from = from;
    o.incremental_to = to;
    o.incremental_mode = mode;
    o.columns = cols;
    o.ncolumns = ncols;
    return api_read_table(t, &o);
}

#define EXPECT_INCR(t, from, to, mode, want)                           \
    do {                                                                \
        char *got_ = read_incr((t), (from), (to), (mode), NULL, 0);     \
        assert_string_equal(got_, (want));                              \
        free(got_);                                                     \
    } while (0)

/* Snapshots: 1 APPEND, 2 COMPACT, 3 APPEND, 4 COMPACT (lookup changelog). */
static void test_modes(void **state)
{
    (void)state;
    fixture f;
    const char *opts[] = {"bucket=1", "changelog-producer=lookup"};
    open_table(&f, "t", "id INT NOT NULL, v STRING", NULL, "id", opts, 2);
    pm_commit_outcome o = api_write_json(f.t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"a\"}\n", NULL);
    assert_int_equal(o.compaction.snapshot_id, 2);
    o = api_write_json(f.t, "{\"id\":2,\"v\":\"b\"}\n{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"-D\"}\n{\"id\":3,\"v\":\"c\"}\n",
                       NULL);
    assert_int_equal(o.compaction.snapshot_id, 4);
    const char *cl = "{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"+I\"}\n{\"id\":2,\"v\":\"a\",\"_ROW_KIND\":\"+I\"}\n"
                     "{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"-D\"}\n{\"id\":2,\"v\":\"a\",\"_ROW_KIND\":\"-U\"}\n"
                     "{\"id\":2,\"v\":\"b\",\"_ROW_KIND\":\"+U\"}\n{\"id\":3,\"v\":\"c\",\"_ROW_KIND\":\"+I\"}\n";
    EXPECT_INCR(f.t, 0, 4, PM_INCREMENTAL_CHANGELOG, cl);
    EXPECT_INCR(f.t, 0, 4, PM_INCREMENTAL_AUTO, cl); /* a changelog producer: changelog */
    EXPECT_INCR(f.t, 0, 4, PM_INCREMENTAL_DELTA,
                "{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"+I\"}\n{\"id\":2,\"v\":\"a\",\"_ROW_KIND\":\"+I\"}\n"
                "{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"-D\"}\n{\"id\":2,\"v\":\"b\",\"_ROW_KIND\":\"+I\"}\n"
                "{\"id\":3,\"v\":\"c\",\"_ROW_KIND\":\"+I\"}\n");
    /* (2, 3]: only the APPEND snapshot 3, which has no changelog of its own */
    EXPECT_INCR(f.t, 2, 3, PM_INCREMENTAL_CHANGELOG, "");
    EXPECT_INCR(f.t, 2, 3, PM_INCREMENTAL_DELTA,
                "{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"-D\"}\n{\"id\":2,\"v\":\"b\",\"_ROW_KIND\":\"+I\"}\n"
                "{\"id\":3,\"v\":\"c\",\"_ROW_KIND\":\"+I\"}\n");
    EXPECT_INCR(f.t, 3, 3, PM_INCREMENTAL_AUTO, "");
    /* projection: _ROW_KIND where asked */
    const char *cols[] = {"_ROW_KIND", "v"};
    char *got = read_incr(f.t, 3, 4, PM_INCREMENTAL_CHANGELOG, cols, 2);
    assert_string_equal(got, "{\"_ROW_KIND\":\"-D\",\"v\":\"a\"}\n{\"_ROW_KIND\":\"-U\",\"v\":\"a\"}\n"
                             "{\"_ROW_KIND\":\"+U\",\"v\":\"b\"}\n{\"_ROW_KIND\":\"+I\",\"v\":\"c\"}\n");
    free(got);
    const char *cols2[] = {"id"};
    got = read_incr(f.t, 3, 4, PM_INCREMENTAL_CHANGELOG, cols2, 1);
    assert_string_equal(got, "{\"id\":1,\"_ROW_KIND\":\"-D\"}\n{\"id\":2,\"_ROW_KIND\":\"-U\"}\n"
                             "{\"id\":2,\"_ROW_KIND\":\"+U\"}\n{\"id\":3,\"_ROW_KIND\":\"+I\"}\n");
    free(got);
    close_table(&f);
}

/* Splits: getters, JSON round trip, a reader of parsed splits, and the
 * refusals. */
static void test_splits_and_errors(void **state)
{
    (void)state;
    fixture f;
    const char *opts[] = {"bucket=2", "changelog-producer=input"};
    open_table(&f, "s", "id INT NOT NULL, v STRING, dt STRING", "dt", "id,dt", opts, 2);
    api_write_json(f.t, "{\"id\":1,\"v\":\"a\",\"dt\":\"x\"}\n{\"id\":2,\"v\":\"a\",\"dt\":\"y\"}\n", NULL);
    api_write_json(f.t, "{\"id\":1,\"v\":\"b\",\"dt\":\"x\"}\n", NULL);
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.incremental_from = 0;
    o.incremental_to = 2;
    pm_scan *sc = NULL;
    PM_OK_OR_FAIL(pm_scan_new(&sc, f.t, &o));
    assert_int_equal(pm_scan_snapshot_id(sc), 2);
    size_t n = pm_scan_split_count(sc);
    assert_true(n >= 2);
    pm_split **parsed = calloc(n, sizeof *parsed);
    for (size_t i = 0; i < n; i++) {
        bool inc = false;
        pm_incremental_mode m = PM_INCREMENTAL_AUTO;
        pm_split_incremental(pm_scan_split(sc, i), &inc, &m);
        assert_true(inc);
        assert_int_equal(m, PM_INCREMENTAL_CHANGELOG); /* input producer: auto = changelog */
        char *j = NULL;
        PM_OK_OR_FAIL(pm_split_to_json(&j, pm_scan_split(sc, i)));
        assert_non_null(strstr(j, "\"incremental\":\"changelog\""));
        PM_OK_OR_FAIL(pm_split_from_json(&parsed[i], j, strlen(j)));
        pm_free(j);
    }
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_reader_new(&r, f.t, (const pm_split *const *)parsed, n, NULL));
    char *all = api_read_all(r);
    pm_reader_free(r);
    assert_int_equal(api_count_lines(all), 3); /* the input changelog: 3 rows */
    assert_non_null(strstr(all, "\"_ROW_KIND\":\"+I\""));
    free(all);
    /* partition filter */
    const char *part[] = {"dt=x"};
    o.partitions = part;
    o.npartitions = 1;
    all = api_read_table(f.t, &o);
    assert_string_equal(all, "{\"id\":1,\"v\":\"a\",\"dt\":\"x\",\"_ROW_KIND\":\"+I\"}\n"
                             "{\"id\":1,\"v\":\"b\",\"dt\":\"x\",\"_ROW_KIND\":\"+I\"}\n");
    free(all);
    o.partitions = NULL;
    o.npartitions = 0;
    /* a normal split with incremental ones */
    pm_scan *plain = NULL;
    PM_OK_OR_FAIL(pm_scan_new(&plain, f.t, NULL));
    const pm_split *mix[2] = {parsed[0], pm_scan_split(plain, 0)};
    pm_error *e = pm_reader_new(&r, f.t, mix, 2, NULL);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    char *mm = pm_error_format(e);
    assert_non_null(strstr(mm, "incremental split"));
    free(mm);
    pm_error_free(e);
    bool inc = true;
    pm_incremental_mode m;
    pm_split_incremental(pm_scan_split(plain, 0), &inc, &m);
    assert_false(inc);
    char *j = NULL;
    PM_OK_OR_FAIL(pm_split_to_json(&j, pm_scan_split(plain, 0)));
    assert_non_null(strstr(j, "\"incremental\":null"));
    /* an unknown mode in JSON */
    char *bad = strdup(j);
    char *at = strstr(bad, "\"incremental\":null");
    memcpy(at, "\"incremental\":7   ", strlen("\"incremental\":null"));
    pm_split *bs = NULL;
    e = pm_split_from_json(&bs, bad, strlen(bad));
    assert_non_null(e);
    char *msg = pm_error_format(e);
    if (!strstr(msg, "incremental"))
        print_error("%s\n", msg);
    assert_non_null(strstr(msg, "incremental"));
    free(msg);
    pm_error_free(e);
    free(bad);
    pm_free(j);
    pm_scan_free(plain);
    for (size_t i = 0; i < n; i++)
        pm_split_free(parsed[i]);
    free(parsed);
    pm_scan_free(sc);
    /* ranges */
    int64_t bad_ranges[][2] = {{3, 2}, {0, 9}, {-1, 1}};
    for (size_t i = 0; i < 3; i++) {
        o.incremental_from = bad_ranges[i][0];
        o.incremental_to = bad_ranges[i][1];
        e = pm_table_read(&r, f.t, &o);
        assert_non_null(e);
        assert_int_equal(pm_error_code(e), PM_EINVALID);
        pm_error_free(e);
    }
    o.incremental_from = 0;
    o.incremental_to = 1;
    o.snapshot_id = 1;
    e = pm_table_read(&r, f.t, &o);
    assert_non_null(e);
    mm = pm_error_format(e);
    assert_non_null(strstr(mm, "snapshot_id"));
    free(mm);
    pm_error_free(e);
    o.snapshot_id = 0;
    o.incremental_mode = (pm_incremental_mode)9;
    e = pm_table_read(&r, f.t, &o);
    assert_non_null(e);
    pm_error_free(e);
    close_table(&f);
}

/* Append tables: delta rows are +I; version-1 options still read normally. */
static void test_append_table_and_v1(void **state)
{
    (void)state;
    fixture f;
    const char *opts[] = {"bucket=-1"};
    open_table(&f, "a", "id INT, v STRING", NULL, NULL, opts, 1);
    api_write_json(f.t, "{\"id\":1,\"v\":\"a\"}\n", NULL);
    api_write_json(f.t, "{\"id\":2,\"v\":\"b\"}\n", NULL);
    EXPECT_INCR(f.t, 1, 2, PM_INCREMENTAL_AUTO, "{\"id\":2,\"v\":\"b\",\"_ROW_KIND\":\"+I\"}\n");
    EXPECT_INCR(f.t, 0, 2, PM_INCREMENTAL_CHANGELOG, ""); /* no changelog producer */
    /* a version-1 struct: no incremental fields are read */
    struct {
        int version;
        int64_t snapshot_id;
        const char *const *partitions;
        size_t npartitions;
        const char *const *columns;
        size_t ncolumns;
        int64_t limit;
        int64_t batch_rows;
        size_t threads;
        bool no_fallback_branch;
    } v1 = {1, 1, NULL, 0, NULL, 0, -1, 0, 0, false};
    char *got = api_read_table(f.t, (const pm_read_options *)&v1);
    assert_string_equal(got, "{\"id\":1,\"v\":\"a\"}\n");
    free(got);
    close_table(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_splits_and_errors),
        cmocka_unit_test(test_append_table_and_v1),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
