/*
 * tests/unit/meta/test_manifest_file_merger.c — ManifestFileMerger
 * (meta/manifest_file_merger.h) on manifests written in a temporary
 * directory: minor merges (a tail of merge-min-count, runs reaching the
 * target size, runs of one kept), full compaction (deleted files dropped,
 * manifests of other partitions kept by the partition predicate), every
 * written file reported, inputs never changed, a failing report stops the
 * merge.
 */
#include <string.h>

#include "pm_test.h"
#include "meta/manifest.h"
#include "meta/manifest_file_merger.h"
#include "meta/stats.h"

static pm_fileio *fio;
static char *tmp;
static pm_type *ptype;

static int setup(void **state)
{
    (void)state;
    tmp = pm_test_tmpdir();
    if (!tmp || pm_fileio_local_new(&fio) || pm_type_parse(&ptype, "ROW<p INT>"))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pm_test_rmtree(tmp);
    free(tmp);
    pm_fileio_free(fio);
    pm_type_free(ptype);
    return 0;
}

static void make_entry(pm_manifest_entry *e, pm_file_kind kind, const char *file, int32_t part)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
    uint8_t row[4 + 16] = {0, 0, 0, 1};
    memcpy(row + 4 + 8, &part, 4); /* one INT field */
    PM_OK_OR_FAIL(pm_bytes_set(&e->partition, row, sizeof row));
    e->total_buckets = 1;
    e->file.file_name = strdup(file);
    e->file.file_size = 100;
    e->file.row_count = 10;
    static const uint8_t empty_row[12] = {0};
    PM_OK_OR_FAIL(pm_bytes_set(&e->file.min_key, empty_row, 12));
    PM_OK_OR_FAIL(pm_bytes_set(&e->file.max_key, empty_row, 12));
    PM_OK_OR_FAIL(pm_simple_stats_empty(&e->file.key_stats));
    PM_OK_OR_FAIL(pm_simple_stats_empty(&e->file.value_stats));
}

/* One manifest holding "kind:file@partition" items (kind + or -). */
static void write_manifest(pm_path_factory *pf, const pm_options *o, const char *const *items, size_t n,
                           pm_manifest_file_meta *out)
{
    pm_manifest_entry e[8];
    assert_true(n <= 8);
    for (size_t i = 0; i < n; i++) {
        char name[64];
        int part = 0;
        assert_int_equal(sscanf(items[i] + 1, "%63[^@]@%d", name, &part), 2);
        make_entry(&e[i], items[i][0] == '+' ? PM_FILE_ADD : PM_FILE_DELETE, name, part);
    }
    pm_manifest_file_meta *m = NULL;
    size_t nm = 0;
    PM_OK_OR_FAIL(pm_manifest_write(fio, pf, o, ptype, 0, e, n, &m, &nm));
    assert_int_equal(nm, 1);
    *out = m[0];
    free(m);
    for (size_t i = 0; i < n; i++)
        pm_manifest_entry_clear(&e[i]);
}

typedef struct written_log {
    int count;
    int fail_at; /* report number that fails (0 = none) */
} written_log;

static pm_error *on_written(void *arg, const char *name)
{
    written_log *w = arg;
    assert_non_null(name);
    w->count++;
    if (w->count == w->fail_at)
        return pm_error_new(PM_EIO, "cannot remember %s", name);
    return NULL;
}

static pm_options *opts(const char *target, const char *threshold, const char *min_count)
{
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.target-file-size", target));
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.full-compaction-threshold-size", threshold));
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.merge-min-count", min_count));
    return o;
}

/* The ADD file names of a manifest, sorted into one string "a,b,". */
static void adds_of(pm_path_factory *pf, const pm_manifest_file_meta *m, char *buf, size_t cap)
{
    char *p = NULL;
    pm_manifest_entry *e = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, m->file_name, &p));
    PM_OK_OR_FAIL(pm_manifest_read(fio, p, &e, &n));
    buf[0] = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(e[i].kind, PM_FILE_ADD);
        strncat(buf, e[i].file.file_name, cap - strlen(buf) - 2);
        strcat(buf, ",");
    }
    pm_manifest_entries_free(e, n);
    free(p);
}

static void test_minor_tail(void **state)
{
    (void)state;
    pm_options *o = opts("8 mb", "16 mb", "3");
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, tmp, ptype, o));
    const char *m1[] = {"+a@1", "+b@1"}, *m2[] = {"+c@2"}, *m3[] = {"-a@1"};
    pm_manifest_file_meta in[3];
    write_manifest(pf, o, m1, 2, &in[0]);
    write_manifest(pf, o, m2, 1, &in[1]);
    write_manifest(pf, o, m3, 1, &in[2]);
    written_log log = {0, 0};
    pm_manifest_merge_ctx c = {fio, pf, o, ptype, 0, on_written, &log};
    pm_manifest_file_meta *out = NULL;
    size_t n = 0;
    /* three small manifests = merge-min-count: one new manifest, a deleted */
    PM_OK_OR_FAIL(pm_manifest_file_merger_merge(&c, in, 3, &out, &n));
    assert_int_equal(n, 1);
    assert_int_equal(log.count, 1);
    assert_int_equal(out[0].num_added_files, 2);
    assert_int_equal(out[0].num_deleted_files, 0);
    char buf[128];
    adds_of(pf, &out[0], buf, sizeof buf);
    assert_string_equal(buf, "b,c,");
    pm_manifest_file_metas_free(out, n);
    /* the inputs are still there, unchanged */
    adds_of(pf, &in[0], buf, sizeof buf);
    assert_string_equal(buf, "a,b,");

    /* two of them are below merge-min-count: kept as they are, nothing written */
    PM_OK_OR_FAIL(pm_manifest_file_merger_merge(&c, in, 2, &out, &n));
    assert_int_equal(n, 2);
    assert_string_equal(out[0].file_name, in[0].file_name);
    assert_string_equal(out[1].file_name, in[1].file_name);
    assert_int_equal(log.count, 1);
    pm_manifest_file_metas_free(out, n);
    for (size_t i = 0; i < 3; i++)
        pm_manifest_file_meta_clear(&in[i]);
    pm_path_factory_free(pf);
    pm_options_free(o);
}

static void test_minor_runs_reaching_target(void **state)
{
    (void)state;
    pm_options *o = opts("1000 b", "1 gb", "100");
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, tmp, ptype, o));
    const char *m1[] = {"+a@1"}, *m2[] = {"+b@1"}, *m3[] = {"+c@1"}, *m4[] = {"+d@1"};
    pm_manifest_file_meta in[4];
    write_manifest(pf, o, m1, 1, &in[0]);
    write_manifest(pf, o, m2, 1, &in[1]);
    write_manifest(pf, o, m3, 1, &in[2]);
    write_manifest(pf, o, m4, 1, &in[3]);
    /* the decision uses the metas' sizes: 600 + 500 reach the target (a
     * run of two), 2000 alone is a run of one (kept), 10 is a short tail */
    in[0].file_size = 600;
    in[1].file_size = 500;
    in[2].file_size = 2000;
    in[3].file_size = 10;
    written_log log = {0, 0};
    pm_manifest_merge_ctx c = {fio, pf, o, ptype, 0, on_written, &log};
    pm_manifest_file_meta *out = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_manifest_file_merger_merge(&c, in, 4, &out, &n));
    assert_int_equal(n, 3);
    assert_int_equal(log.count, 1);
    char buf[128];
    adds_of(pf, &out[0], buf, sizeof buf);
    assert_string_equal(buf, "a,b,");
    assert_string_equal(out[1].file_name, in[2].file_name);
    assert_string_equal(out[2].file_name, in[3].file_name);
    pm_manifest_file_metas_free(out, n);

    /* a failing report stops the merge with its error; the unreported
     * file is not left behind */
    char *mdir = NULL;
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, "x", &mdir));
    mdir[strlen(mdir) - 2] = 0;
    pm_name_list before, after;
    PM_OK_OR_FAIL(pm_fileio_list(fio, mdir, &before));
    log = (written_log){0, 1};
    PM_EXPECT_ERR(pm_manifest_file_merger_merge(&c, in, 4, &out, &n), PM_EIO);
    assert_null(out);
    assert_int_equal(n, 0);
    PM_OK_OR_FAIL(pm_fileio_list(fio, mdir, &after));
    assert_int_equal(after.count, before.count);
    pm_fileio_list_free(&before);
    pm_fileio_list_free(&after);
    free(mdir);
    for (size_t i = 0; i < 4; i++)
        pm_manifest_file_meta_clear(&in[i]);
    pm_path_factory_free(pf);
    pm_options_free(o);
}

static void test_full_compaction(void **state)
{
    (void)state;
    pm_options *o = opts("1000 b", "1 b", "100");
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, tmp, ptype, o));
    const char *ma[] = {"+x@1", "+y@1"}, *mb[] = {"+z@2"}, *mc[] = {"-x@1"};
    pm_manifest_file_meta in[3];
    write_manifest(pf, o, ma, 2, &in[0]);
    write_manifest(pf, o, mb, 1, &in[1]);
    write_manifest(pf, o, mc, 1, &in[2]);
    /* A and B are "large"; C (a delete) must change.  B's partition 2
     * cannot hold the deleted file: kept.  A holds it: rewritten. */
    in[0].file_size = 5000;
    in[1].file_size = 5000;
    written_log log = {0, 0};
    pm_manifest_merge_ctx c = {fio, pf, o, ptype, 0, on_written, &log};
    pm_manifest_file_meta *out = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_manifest_file_merger_merge(&c, in, 3, &out, &n));
    assert_int_equal(n, 2);
    assert_string_equal(out[0].file_name, in[1].file_name);
    assert_int_equal(log.count, 1);
    assert_int_equal(out[1].num_deleted_files, 0);
    char buf[128];
    adds_of(pf, &out[1], buf, sizeof buf);
    assert_string_equal(buf, "y,");
    pm_manifest_file_metas_free(out, n);

    /* below the threshold: minor rules, and nothing reaches the target or
     * the min count, so all three stay */
    pm_options *o2 = opts("1000 b", "1 gb", "100");
    c.options = o2;
    PM_OK_OR_FAIL(pm_manifest_file_merger_merge(&c, in, 3, &out, &n));
    assert_int_equal(n, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(out[i].file_name, in[i].file_name);
    pm_manifest_file_metas_free(out, n);
    /* a threshold of zero is refused */
    PM_OK_OR_FAIL(pm_options_set(o2, "manifest.full-compaction-threshold-size", "0 b"));
    PM_EXPECT_ERR(pm_manifest_file_merger_merge(&c, in, 3, &out, &n), PM_EINVALID);
    pm_options_free(o2);
    for (size_t i = 0; i < 3; i++)
        pm_manifest_file_meta_clear(&in[i]);
    pm_path_factory_free(pf);
    pm_options_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minor_tail),
        cmocka_unit_test(test_minor_runs_reaching_target),
        cmocka_unit_test(test_full_compaction),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
