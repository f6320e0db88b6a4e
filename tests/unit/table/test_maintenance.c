/*
 * tests/unit/table/test_maintenance.c — snapshot expiration and orphan-file
 * removal (paimon/maintenance.h) through the public API: the retained
 * range (min, max, time retained, expire limit, consumers), files deleted
 * only when no retained snapshot or tag references them, every retained
 * snapshot still readable, the EARLIEST hint; orphans by age, keep names
 * and dry runs; bad options refused with nothing deleted.
 */
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

#include "../api/api_test_util.h"
#include "paimon/compact.h"
#include "paimon/files.h"
#include "paimon/maintenance.h"

static pm_table *open_table(const char *path)
{
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    return t;
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static size_t snapshot_count(pm_table *t)
{
    int64_t *ids = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_snapshot_ids(&ids, &n, t));
    pm_free(ids);
    return n;
}

static size_t rows_at(pm_table *t, int64_t id)
{
    pm_read_options ro = PM_READ_OPTIONS_INIT;
    ro.snapshot_id = id;
    char *s = api_read_table(t, &ro);
    size_t n = api_count_lines(s);
    free(s);
    return n;
}

/* Paths of the live data files of snapshot id (NULL-terminated, malloc'd). */
static char **live_paths(pm_table *t, int64_t id)
{
    pm_read_options ro = PM_READ_OPTIONS_INIT;
    ro.snapshot_id = id;
    pm_file_list *l = NULL;
    PM_OK_OR_FAIL(pm_table_files(&l, t, &ro));
    size_t n = pm_file_list_count(l);
    char **out = calloc(n + 1, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = strdup(pm_file_list_get(l, i)->path);
    pm_file_list_free(l);
    return out;
}

static void free_paths(char **p)
{
    for (size_t i = 0; p[i]; i++)
        free(p[i]);
    free(p);
}

/* Six appends of one row, then one compaction: snapshots 1..7. */
static pm_table *make(const char *path)
{
    const char *opts[] = {"bucket=-1", "write-only=true"};
    api_create(path, "id BIGINT", NULL, NULL, opts, 2);
    pm_table *t = open_table(path);
    for (int i = 0; i < 6; i++) {
        char row[32];
        snprintf(row, sizeof row, "{\"id\":%d}\n", i);
        api_write_json(t, row, NULL);
    }
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, NULL));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    pm_compact_builder_free(b);
    assert_int_equal(m.snapshot_id, 7);
    return t;
}

static void test_expire_keeps_retained(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char *path = api_path(dir, "t");
    pm_table *t = make(path);
    char **before = live_paths(t, 6); /* the six small files, compacted away in 7 */
    char **after = live_paths(t, 7);
    /* defaults: min 10 retained → nothing expires */
    pm_expire_result r = PM_EXPIRE_RESULT_INIT;
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, NULL));
    assert_int_equal(r.snapshots_expired, 0);
    assert_int_equal(snapshot_count(t), 7);
    /* keep 2, everything old enough: 1..5 expire; 6 still needs the small files */
    pm_expire_options o = PM_EXPIRE_OPTIONS_INIT;
    o.retain_min = 2;
    o.retain_max = 2;
    o.has_time_retained = true;
    o.time_retained_ms = 0;
    o.dry_run = true;
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, &o));
    assert_int_equal(r.snapshots_expired, 5);
    assert_int_equal(snapshot_count(t), 7); /* dry run */
    o.dry_run = false;
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, &o));
    assert_int_equal(r.earliest_before, 1);
    assert_int_equal(r.earliest_after, 6);
    assert_int_equal(r.snapshots_expired, 5);
    assert_int_equal(r.data_files_deleted, 0);
    assert_true(r.manifest_files_deleted > 0);
    assert_int_equal(snapshot_count(t), 2);
    for (size_t i = 0; before[i]; i++)
        assert_true(exists(before[i]));
    assert_int_equal(rows_at(t, 6), 6);
    assert_int_equal(rows_at(t, 7), 6);
    char *hint = api_path(path, "snapshot/EARLIEST");
    size_t hl = 0;
    char *h = (char *)pm_test_read_file(hint, &hl);
    assert_non_null(h);
    assert_true(hl >= 1 && h[0] == '6');
    free(h);
    free(hint);
    /* keep 1: snapshot 6 goes, and with it the six compacted files */
    o.retain_min = 1;
    o.retain_max = 1;
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, &o));
    assert_int_equal(r.snapshots_expired, 1);
    assert_int_equal(r.data_files_deleted, 6);
    assert_true(r.bytes_deleted > 0);
    for (size_t i = 0; before[i]; i++)
        assert_false(exists(before[i]));
    for (size_t i = 0; after[i]; i++)
        assert_true(exists(after[i]));
    assert_int_equal(rows_at(t, 7), 6);
    /* nothing is left to expire; orphan removal finds nothing either */
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, &o));
    assert_int_equal(r.snapshots_expired, 0);
    pm_orphan_options oo = PM_ORPHAN_OPTIONS_INIT;
    oo.has_older_than = true;
    oo.older_than_ms = 0;
    oo.now_ms = 4102444800000LL; /* 2100: everything is old */
    pm_orphan_result orr = PM_ORPHAN_RESULT_INIT;
    PM_OK_OR_FAIL(pm_table_remove_orphan_files(&orr, t, &oo));
    assert_int_equal(orr.files_deleted, 0);
    pm_orphan_result_clear(&orr);
    assert_int_equal(rows_at(t, 7), 6);
    free_paths(before);
    free_paths(after);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(path);
    free(dir);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void write_text(const char *path, const char *text) { write_bytes(path, text, strlen(text)); }

static void test_expire_tags_consumers_time(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char *path = api_path(dir, "t");
    pm_table *t = make(path);
    char **before = live_paths(t, 6);
    /* a tag of snapshot 6 keeps its files */
    char *tagdir = api_path(path, "tag");
    mkdir(tagdir, 0755);
    char *tag = api_path(tagdir, "tag-keep");
    char *s6 = api_path(path, "snapshot/snapshot-6");
    size_t n6 = 0;
    char *j6 = (char *)pm_test_read_file(s6, &n6);
    assert_non_null(j6);
    write_bytes(tag, j6, n6);
    free(j6);
    /* a consumer still at snapshot 3 */
    char *cdir = api_path(path, "consumer");
    mkdir(cdir, 0755);
    char *cons = api_path(cdir, "consumer-c1");
    write_text(cons, "{\"nextSnapshot\":3}");
    pm_expire_options o = PM_EXPIRE_OPTIONS_INIT;
    o.retain_min = 1;
    o.retain_max = 1;
    o.has_time_retained = true;
    o.time_retained_ms = 0;
    pm_expire_result r = PM_EXPIRE_RESULT_INIT;
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, &o));
    assert_int_equal(r.earliest_after, 3);
    assert_int_equal(r.snapshots_expired, 2);
    write_text(cons, "{\"nextSnapshot\":7}");
    /* the expire limit: at most 2 per run */
    o.max_deletes = 2;
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, &o));
    assert_int_equal(r.earliest_after, 5);
    o.max_deletes = 0;
    /* time retained (within retain max; beyond it age does not matter, as
     * in Paimon): snapshots younger than an hour stay */
    o.retain_max = 10;
    o.has_time_retained = false;
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, &o));
    assert_int_equal(r.snapshots_expired, 0);
    o.has_time_retained = true;
    PM_OK_OR_FAIL(pm_table_expire_snapshots(&r, t, &o));
    assert_int_equal(r.earliest_after, 7);
    assert_int_equal(r.data_files_deleted, 0); /* the tag holds them */
    for (size_t i = 0; before[i]; i++)
        assert_true(exists(before[i]));
    assert_int_equal(rows_at(t, 7), 6);
    /* bad options delete nothing */
    o.retain_min = 5;
    o.retain_max = 2;
    pm_test_expect_error(pm_table_expire_snapshots(&r, t, &o), PM_EINVALID, "above");
    o.version = 9;
    PM_EXPECT_ERR(pm_table_expire_snapshots(&r, t, &o), PM_EINVALID);
    assert_int_equal(snapshot_count(t), 1);
    free_paths(before);
    free(tagdir);
    free(tag);
    free(s6);
    free(cdir);
    free(cons);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(path);
    free(dir);
}

static void test_orphans(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char *path = api_path(dir, "t");
    pm_table *t = make(path);
    char *junk_data = api_path(path, "bucket-0/data-junk-0.parquet");
    char *junk_manifest = api_path(path, "manifest/manifest-junk-0");
    char *young = api_path(path, "bucket-0/data-young-0.parquet");
    char *kept = api_path(path, "bucket-0/data-inflight-0.parquet");
    char *schema_junk = api_path(path, "schema/not-a-schema");
    write_text(junk_data, "x");
    write_text(junk_manifest, "xy");
    write_text(kept, "z");
    write_text(schema_junk, "s");
    struct utimbuf old = {1000000000, 1000000000};
    utime(junk_data, &old);
    utime(junk_manifest, &old);
    utime(kept, &old);
    utime(schema_junk, &old);
    write_text(young, "y");
    const char *keep[] = {"data-inflight-0.parquet"};
    pm_orphan_options o = PM_ORPHAN_OPTIONS_INIT;
    o.keep = keep;
    o.nkeep = 1;
    o.dry_run = true;
    pm_orphan_result r = PM_ORPHAN_RESULT_INIT;
    PM_OK_OR_FAIL(pm_table_remove_orphan_files(&r, t, &o));
    assert_int_equal(r.files_deleted, 2);
    assert_int_equal(r.npaths, 2);
    assert_int_equal(r.bytes_deleted, 3);
    assert_true(exists(junk_data) && exists(junk_manifest));
    pm_orphan_result_clear(&r);
    o.dry_run = false;
    PM_OK_OR_FAIL(pm_table_remove_orphan_files(&r, t, &o));
    assert_int_equal(r.files_deleted, 2);
    pm_orphan_result_clear(&r);
    assert_false(exists(junk_data) || exists(junk_manifest));
    assert_true(exists(young) && exists(kept) && exists(schema_junk));
    assert_int_equal(rows_at(t, 7), 6);
    assert_int_equal(rows_at(t, 1), 1);
    o.has_older_than = true;
    o.older_than_ms = -1;
    PM_EXPECT_ERR(pm_table_remove_orphan_files(&r, t, &o), PM_EINVALID);
    free(junk_data);
    free(junk_manifest);
    free(young);
    free(kept);
    free(schema_junk);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expire_keeps_retained),
        cmocka_unit_test(test_expire_tags_consumers_time),
        cmocka_unit_test(test_orphans),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
