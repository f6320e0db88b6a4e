/*
 * tests/unit/table/test_untrusted_paths.c — paths taken from snapshots and
 * manifests stay inside the table (meta/safe_path.h): hostile metadata
 * written next to a real table (a manifest list named "../...", a manifest
 * named "../...", a data file name holding '/', an absolute external path
 * outside data-file.external-paths) makes the scan PM_ECORRUPT naming the
 * field and the file, although a readable copy of the named file waits
 * outside the table; an external path under a configured root reads;
 * global-index.external-path admits index files (only) under it.
 */
#include <string.h>
#include <unistd.h>

#include "meta/manifest.h"
#include "table/scan.h"
#include "table/table_internal.h"
#include "table/table_read.h"
#include "write_test_util.h"

typedef struct fx {
    char *dir;
    pm_table *t;
    char *data_path;    /* the one data file of snapshot 1 */
    char *data_name;
} fx;

static void copy_file(pm_fileio *fio, const char *from, const char *to)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_fileio_read_file(fio, from, &b));
    pm_output *o = NULL;
    PM_OK_OR_FAIL(pm_output_create(fio, to, true, &o));
    PM_OK_OR_FAIL(pm_output_write(o, b.data, b.len));
    PM_OK_OR_FAIL(pm_output_close(o, false));
    pm_buf_free(&b);
}

static fx setup_table(const char *name)
{
    fx f;
    memset(&f, 0, sizeof f);
    f.dir = pm_test_tmpdir();
    f.t = wt_create(f.dir, name, "ROW<id BIGINT, s STRING>", NULL, NULL, 0);
    wt_commit_rows(f.t, "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n", PM_COMMIT_APPEND, NULL, 0);
    pm_scan_result *r = NULL;
    PM_OK_OR_FAIL(pm_table_scan(f.t, NULL, &r));
    assert_int_equal(r->nbuckets, 1);
    assert_int_equal(r->buckets[0].nfiles, 1);
    char *bdir = NULL;
    PM_OK_OR_FAIL(pm_path_factory_bucket_path_binrow(f.t->paths, r->buckets[0].partition.data,
                                                     r->buckets[0].partition.len, 0, &bdir));
    f.data_name = strdup(r->buckets[0].files[0].file_name);
    f.data_path = pm_path_join(bdir, f.data_name);
    free(bdir);
    pm_scan_result_free(r);
    return f;
}

static void teardown_table(fx *f)
{
    pm_table_free(f->t);
    pm_test_rmtree(f->dir);
    free(f->dir);
    free(f->data_path);
    free(f->data_name);
}

/* Publish the next snapshot: the latest one with its base list replaced
 * (delta list: empty). */
static void publish_snapshot(pm_table *t, const char *base_list)
{
    pm_snapshot *s = NULL, *n = NULL;
    PM_OK_OR_FAIL(pm_snapshot_store_load_latest(t->snapshots, &s));
    PM_OK_OR_FAIL(pm_snapshot_clone(s, &n));
    char *empty = NULL;
    int64_t size = 0;
    PM_OK_OR_FAIL(pm_manifest_list_write(t->fio, t->paths, pm_table_options(t), NULL, 0, &empty, &size));
    n->id = s->id + 1;
    free(n->base_manifest_list);
    n->base_manifest_list = strdup(base_list);
    free(n->delta_manifest_list);
    n->delta_manifest_list = empty;
    bool committed = false;
    PM_OK_OR_FAIL(pm_snapshot_store_commit(t->snapshots, n, &committed));
    assert_true(committed);
    pm_snapshot_free(s);
    pm_snapshot_free(n);
}

/* The live entries of the latest snapshot, changed by `mutate`, as the
 * next snapshot. */
static void publish_entries(pm_table *t, void (*mutate)(pm_manifest_entry *e, void *arg), void *arg)
{
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_snapshot_store_load_latest(t->snapshots, &s));
    pm_manifest_file_meta *metas = NULL, *nm = NULL;
    size_t nmetas = 0, nnm = 0;
    pm_manifest_entry *es = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_snapshot_data_manifests(t->fio, t->paths, s, &metas, &nmetas));
    PM_OK_OR_FAIL(pm_manifest_read_merged(t->fio, t->paths, metas, nmetas, &es, &n));
    assert_int_equal(n, 1);
    mutate(&es[0], arg);
    PM_OK_OR_FAIL(pm_manifest_write(t->fio, t->paths, pm_table_options(t), t->partition_type, 0, es, n, &nm, &nnm));
    char *list = NULL;
    int64_t size = 0;
    PM_OK_OR_FAIL(pm_manifest_list_write(t->fio, t->paths, pm_table_options(t), nm, nnm, &list, &size));
    publish_snapshot(t, list);
    free(list);
    pm_manifest_entries_free(es, n);
    pm_manifest_file_metas_free(metas, nmetas);
    pm_manifest_file_metas_free(nm, nnm);
    pm_snapshot_free(s);
}

/* The scan of the latest snapshot fails with PM_ECORRUPT naming each of
 * the words. */
static void expect_corrupt(pm_table *t, const char *w1, const char *w2)
{
    pm_scan_result *r = NULL;
    pm_error *e = pm_table_scan(t, NULL, &r);
    if (!e) {
        print_error("scan accepted hostile metadata\n");
        pm_scan_result_free(r);
        fail();
    }
    char *msg = pm_error_format(e);
    if (pm_error_root_code(e) != PM_ECORRUPT || !strstr(msg, w1) || (w2 && !strstr(msg, w2))) {
        print_error("unexpected error (want ECORRUPT naming '%s' and '%s'): %s\n", w1, w2 ? w2 : "", msg);
        fail();
    }
    free(msg);
    pm_error_free(e);
}

static int64_t count_rows(pm_table *t)
{
    pm_scan_result *r = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, NULL, &r));
    pm_table_reader *rd = NULL;
    PM_OK_OR_FAIL(pm_table_reader_new(&rd, t, r, NULL));
    int64_t rows = 0;
    const pm_batch *b = NULL;
    do {
        PM_OK_OR_FAIL(pm_table_reader_next(rd, &b));
        if (b)
            rows += b->num_rows;
    } while (b);
    pm_table_reader_free(rd);
    pm_scan_result_free(r);
    return rows;
}

static void test_snapshot_manifest_list_name(void **state)
{
    (void)state;
    fx f = setup_table("t1");
    /* a readable manifest list waits outside the table */
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_snapshot_store_load_latest(f.t->snapshots, &s));
    char *real = NULL, outside[600];
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(f.t->paths, s->base_manifest_list, &real));
    snprintf(outside, sizeof outside, "%s/db.db/outside-list", f.dir);
    copy_file(f.t->fio, real, outside);
    publish_snapshot(f.t, "../../outside-list");
    expect_corrupt(f.t, "baseManifestList", "snapshot-2");
    free(real);
    pm_snapshot_free(s);
    teardown_table(&f);
}

static void test_manifest_name_in_list(void **state)
{
    (void)state;
    fx f = setup_table("t2");
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_snapshot_store_load_latest(f.t->snapshots, &s));
    pm_manifest_file_meta *metas = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_snapshot_data_manifests(f.t->fio, f.t->paths, s, &metas, &n));
    assert_true(n >= 1);
    /* the named manifest exists, one directory up */
    char *real = NULL, outside[600];
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(f.t->paths, metas[0].file_name, &real));
    snprintf(outside, sizeof outside, "%s/db.db/t2/outside-manifest", f.dir);
    copy_file(f.t->fio, real, outside);
    free(metas[0].file_name);
    metas[0].file_name = strdup("../outside-manifest");
    char *list = NULL;
    int64_t size = 0;
    PM_OK_OR_FAIL(pm_manifest_list_write(f.t->fio, f.t->paths, pm_table_options(f.t), metas, n, &list, &size));
    publish_snapshot(f.t, list);
    expect_corrupt(f.t, "_FILE_NAME", list);
    free(list);
    free(real);
    pm_manifest_file_metas_free(metas, n);
    pm_snapshot_free(s);
    teardown_table(&f);
}

static void set_name(pm_manifest_entry *e, void *arg)
{
    PM_OK_OR_FAIL(pm_data_file_meta_unpack(&e->file));
    free(e->file.file_name);
    e->file.file_name = strdup(arg);
}

static void set_external(pm_manifest_entry *e, void *arg)
{
    PM_OK_OR_FAIL(pm_data_file_meta_unpack(&e->file));
    free(e->file.external_path);
    e->file.external_path = strdup(arg);
}

static void test_data_file_name_with_slash(void **state)
{
    (void)state;
    fx f = setup_table("t3");
    char outside[600], name[700];
    snprintf(outside, sizeof outside, "%s/outside.parquet", f.dir);
    copy_file(f.t->fio, f.data_path, outside);
    /* bucket-0 → t3 → db.db → dir */
    snprintf(name, sizeof name, "../../../outside.parquet");
    publish_entries(f.t, set_name, name);
    expect_corrupt(f.t, "_FILE_NAME", "path separator");
    teardown_table(&f);
}

static void test_external_path_outside_roots(void **state)
{
    (void)state;
    fx f = setup_table("t4");
    char outside[600];
    snprintf(outside, sizeof outside, "%s/outside.parquet", f.dir);
    copy_file(f.t->fio, f.data_path, outside);
    publish_entries(f.t, set_external, outside);
    expect_corrupt(f.t, "_EXTERNAL_PATH", "outside the table's data-file.external-paths");
    /* dot segments cannot climb out of a root either */
    char sneaky[700];
    snprintf(sneaky, sizeof sneaky, "file:%s/db.db/t4/../../outside.parquet", f.dir);
    publish_entries(f.t, set_external, sneaky);
    expect_corrupt(f.t, "_EXTERNAL_PATH", "'..'");
    teardown_table(&f);
}

static void test_external_path_under_root_reads(void **state)
{
    (void)state;
    fx f = setup_table("t5");
    /* schema 1 configures an external root; the data file moves there */
    char root[600], moved[700], uri[800];
    snprintf(root, sizeof root, "%s/ext", f.dir);
    snprintf(moved, sizeof moved, "%s/%s", root, f.data_name);
    copy_file(f.t->fio, f.data_path, moved);
    PM_OK_OR_FAIL(pm_fileio_delete(f.t->fio, f.data_path));
    pm_schema *s1 = NULL;
    PM_OK_OR_FAIL(pm_schema_clone(pm_table_schema(f.t), &s1));
    s1->id = 1;
    char opt[620];
    snprintf(opt, sizeof opt, "file://%s", root);
    PM_OK_OR_FAIL(pm_options_set(s1->options, "data-file.external-paths", opt));
    bool committed = false;
    PM_OK_OR_FAIL(pm_schema_commit(f.t->fio, f.t->branch_root, s1, &committed));
    assert_true(committed);
    pm_schema_free(s1);
    bool changed = false;
    PM_OK_OR_FAIL(pm_table_reload(f.t, &changed));
    assert_true(changed);
    snprintf(uri, sizeof uri, "FILE:%s", moved);
    publish_entries(f.t, set_external, uri);
    assert_int_equal(count_rows(f.t), 2);
    /* a sibling directory of the root is not under it */
    snprintf(uri, sizeof uri, "%s2/%s", root, f.data_name);
    publish_entries(f.t, set_external, uri);
    expect_corrupt(f.t, "_EXTERNAL_PATH", uri);
    teardown_table(&f);
}

/* global-index.external-path: its value checked and made local; an
 * index file's external path may lie under it (not a data file's) */
static void test_global_index_root(void **state)
{
    (void)state;
    pm_options *o = NULL;
    PM_OK_OR_FAIL(pm_options_new(&o));
    const char *root;
    char *local = NULL;
    PM_OK_OR_FAIL(pm_table_gi_external_root(o, &root, &local));
    assert_null(root);
    assert_null(local);
    PM_OK_OR_FAIL(pm_options_set(o, "global-index.external-path", "file:///idx/gi//"));
    PM_OK_OR_FAIL(pm_table_gi_external_root(o, &root, &local));
    assert_string_equal(root, "file:///idx/gi//");
    assert_string_equal(local, "/idx/gi");
    free(local);
    static const struct {
        const char *v;
        pm_code code;
        const char *needle;
    } bad[] = {{"rel/dir", PM_EINVALID, "absolute local directory"},
               {"/a/../b", PM_EINVALID, "'..'"},
               {"s3://bucket/gi", PM_EUNSUPPORTED, "s3"},
               {"/a,/b", PM_EINVALID, "one directory, not a list"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        PM_OK_OR_FAIL(pm_options_set(o, "global-index.external-path", bad[i].v));
        pm_test_expect_error(pm_table_gi_external_root(o, &root, &local), bad[i].code, bad[i].needle);
        assert_null(local);
    }
    pm_options_free(o);

    fx f = setup_table("t6");
    char root_dir[600], idx[700], sib[700];
    snprintf(root_dir, sizeof root_dir, "%s/gi", f.dir);
    snprintf(idx, sizeof idx, "file:%s/btree-global-index-1.index", root_dir);
    snprintf(sib, sizeof sib, "%s/gi2/btree-global-index-1.index", f.dir);
    pm_test_expect_error(pm_table_check_index_external_path(f.t, -1, "f", idx), PM_ECORRUPT, "outside");
    pm_schema *s1 = NULL;
    PM_OK_OR_FAIL(pm_schema_clone(pm_table_schema(f.t), &s1));
    s1->id = 1;
    PM_OK_OR_FAIL(pm_options_set(s1->options, "global-index.external-path", root_dir));
    bool committed = false, changed = false;
    PM_OK_OR_FAIL(pm_schema_commit(f.t->fio, f.t->branch_root, s1, &committed));
    pm_schema_free(s1);
    PM_OK_OR_FAIL(pm_table_reload(f.t, &changed));
    PM_OK_OR_FAIL(pm_table_check_index_external_path(f.t, -1, "f", idx));
    pm_test_expect_error(pm_table_check_index_external_path(f.t, -1, "f", sib), PM_ECORRUPT, "outside");
    /* a data file there is still refused */
    pm_test_expect_error(pm_table_check_external_path(f.t, -1, "f", idx), PM_ECORRUPT, "outside");
    teardown_table(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_manifest_list_name),
        cmocka_unit_test(test_manifest_name_in_list),
        cmocka_unit_test(test_data_file_name_with_slash),
        cmocka_unit_test(test_external_path_outside_roots),
        cmocka_unit_test(test_external_path_under_root_reads),
        cmocka_unit_test(test_global_index_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
