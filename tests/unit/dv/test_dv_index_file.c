/*
 * tests/unit/dv/test_dv_index_file.c — DV index files: the Java golden
 * files read and re-written byte for byte, every DV index file of the
 * Java-written fixture tables (located through their index manifests and
 * meta/index_path.h, positions checked), single and rolling writes read
 * back, single-entry reads, corrupt files, and the name → vector map.
 */
#include <string.h>

#include "base/buf.h"
#include "dv/dv_index_file.h"
#include "dv/dv_map.h"
#include "meta/index_path.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "pm_test.h"

#define FIX PM_FIXTURES_DIR "/java-written/parquet/"

static uint8_t *golden(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/unit/dv/data/%s", PM_SOURCE_DIR, name);
    uint8_t *p = pm_test_read_file(path, n);
    assert_non_null(p);
    return p;
}

static void expect_positions(const pm_dv *dv, const int64_t *want, size_t nwant)
{
    assert_non_null(dv);
    int64_t *got;
    size_t n;
    PM_OK_OR_FAIL(pm_dv_positions(dv, &got, &n));
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
    free(got);
}

static void check_golden_file(const char *name, int32_t len1, int32_t len2)
{
    size_t n;
    uint8_t *file = golden(name, &n);
    pm_dv_meta ranges[2] = {
        {"data-1.parquet", 1, len1, {true, 2}},
        {"data-2.parquet", 0, len2, {true, 1}},
    };
    ranges[1].offset = 1 + (len1 == 24 ? 32 : 44);
    pm_dv_map *m;
    PM_OK_OR_FAIL(pm_dv_map_new(&m));
    PM_OK_OR_FAIL(pm_dv_index_parse(file, n, ranges, 2, name, m));
    assert_int_equal(pm_dv_map_count(m), 2);
    expect_positions(pm_dv_map_get(m, "data-1.parquet"), (const int64_t[]){2, 3}, 2);
    expect_positions(pm_dv_map_get(m, "data-2.parquet"), (const int64_t[]){1}, 1);

    /* Re-serialize: same bytes, same ranges. */
    pm_buf out = PM_BUF_INIT;
    pm_dv_meta got[2];
    PM_OK_OR_FAIL(pm_dv_index_serialize(m, 0, 2, &out, got));
    assert_int_equal(out.len, n);
    assert_memory_equal(out.data, file, n);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(got[i].data_file_name, ranges[i].data_file_name);
        assert_int_equal(got[i].offset, ranges[i].offset);
        assert_int_equal(got[i].length, ranges[i].length);
        assert_int_equal(got[i].cardinality.v, ranges[i].cardinality.v);
    }

    /* Wrong cardinality, offset or length in the meta, wrong version. */
    ranges[0].cardinality.v = 3;
    PM_EXPECT_ERR(pm_dv_index_parse(file, n, ranges, 2, name, m), PM_ECORRUPT);
    ranges[0].cardinality.has = false;
    PM_OK_OR_FAIL(pm_dv_index_parse(file, n, ranges, 2, name, m));
    ranges[0].offset = 0;
    PM_EXPECT_ERR(pm_dv_index_parse(file, n, ranges, 2, name, m), PM_ECORRUPT);
    ranges[0].offset = (int32_t)n;
    PM_EXPECT_ERR(pm_dv_index_parse(file, n, ranges, 2, name, m), PM_ECORRUPT);
    ranges[0].offset = 2;
    PM_EXPECT_ERR(pm_dv_index_parse(file, n, ranges, 2, name, m), PM_ECORRUPT);
    ranges[0].offset = 1;
    ranges[0].length = len1 + 1;
    PM_EXPECT_ERR(pm_dv_index_parse(file, n, ranges, 2, name, m), PM_ECORRUPT);
    ranges[0].length = len1;
    file[0] = 2;
    PM_EXPECT_ERR(pm_dv_index_parse(file, n, ranges, 2, name, m), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_dv_index_parse(file, 0, ranges, 0, name, m), PM_ECORRUPT);
    pm_buf_free(&out);
    pm_dv_map_free(m);
    free(file);
}

static void test_golden_files(void **state)
{
    (void)state;
    check_golden_file("dvindex-32", 24, 22);
    check_golden_file("dvindex-64", 44, 42);
}

/* One fixture table: every DV entry of every index manifest, with the
 * deleted positions found by pyroaring on the same bytes. */
typedef struct expect_dv {
    const char *file_suffix; /* end of the data file name */
    int64_t pos[3];
    size_t n;
} expect_dv;

static const pm_dv *find_suffix(const pm_dv_map *m, const char *suffix)
{
    size_t ls = strlen(suffix);
    for (size_t i = 0; i < pm_dv_map_count(m); i++) {
        const char *name = pm_dv_map_name(m, i);
        size_t ln = strlen(name);
        if (ln >= ls && !strcmp(name + ln - ls, suffix))
            return pm_dv_map_at(m, i);
    }
    return NULL;
}

static void check_fixture(const char *table, const char *external_root, const expect_dv *want,
                          size_t nwant)
{
    char root[512], dir[600];
    snprintf(root, sizeof root, FIX "%s.db/%s", table, table);
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_schema *schema;
    PM_OK_OR_FAIL(pm_schema_load_latest(fio, root, &schema));
    pm_type *ptype;
    PM_OK_OR_FAIL(pm_schema_partition_type(schema, &ptype));
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, root, ptype, schema->options));
    snprintf(dir, sizeof dir, "%s/manifest", root);
    pm_name_list names;
    PM_OK_OR_FAIL(pm_fileio_list(fio, dir, &names));
    pm_dv_map *all;
    PM_OK_OR_FAIL(pm_dv_map_new(&all));
    size_t nentries = 0;
    for (size_t i = 0; i < names.count; i++) {
        if (strncmp(names.names[i], "index-manifest-", 15))
            continue;
        char *path = pm_path_join(dir, names.names[i]);
        pm_index_manifest_entry *e;
        size_t n;
        PM_OK_OR_FAIL(pm_index_manifest_read(fio, path, &e, &n));
        for (size_t k = 0; k < n; k++) {
            if (strcmp(e[k].index_file.index_type, PM_DV_INDEX_TYPE))
                continue;
            /* In-data-dir tables here have one partition, f1=10. */
            char bucket_dir[700];
            snprintf(bucket_dir, sizeof bucket_dir, "%s/f1=10/bucket-%d", root, e[k].bucket);
            char *ipath;
            PM_OK_OR_FAIL(pm_index_file_path(pf, bucket_dir, &e[k].index_file, &ipath));
            if (e[k].index_file.external_path) {
                /* Java wrote "FILE:/tmp/external/...": the local scheme is stripped */
                assert_memory_equal(ipath, "/tmp/external/", 14);
                char moved[800];
                snprintf(moved, sizeof moved, "%s/%s", external_root, ipath + 14);
                free(ipath);
                ipath = strdup(moved);
            }
            pm_dv_map *m;
            PM_OK_OR_FAIL(pm_dv_map_new(&m));
            PM_OK_OR_FAIL(pm_dv_index_read(fio, ipath, &e[k].index_file, m));
            assert_int_equal(pm_dv_map_count(m), e[k].index_file.row_count);
            for (size_t r = 0; r < e[k].index_file.dv_range_len; r++) {
                const pm_dv_meta *dm = &e[k].index_file.dv_ranges[r];
                pm_dv *one, *copy;
                PM_OK_OR_FAIL(pm_dv_index_read_one(fio, ipath, dm->offset, dm->length, &one));
                assert_true(pm_dv_equal(one, pm_dv_map_get(m, dm->data_file_name)));
                PM_OK_OR_FAIL(pm_dv_copy(one, &copy));
                PM_OK_OR_FAIL(pm_dv_map_put(all, dm->data_file_name, copy));
                pm_dv_free(one);
            }
            /* Our bytes for the same vectors equal Java's file. */
            pm_buf ours = PM_BUF_INIT, theirs = PM_BUF_INIT;
            pm_dv_map *ordered;
            PM_OK_OR_FAIL(pm_dv_map_new(&ordered));
            for (size_t r = 0; r < e[k].index_file.dv_range_len; r++) {
                pm_dv *c;
                PM_OK_OR_FAIL(pm_dv_copy(pm_dv_map_get(m, e[k].index_file.dv_ranges[r].data_file_name), &c));
                PM_OK_OR_FAIL(pm_dv_map_put(ordered, e[k].index_file.dv_ranges[r].data_file_name, c));
            }
            PM_OK_OR_FAIL(pm_dv_index_serialize(ordered, 0, pm_dv_map_count(ordered), &ours, NULL));
            PM_OK_OR_FAIL(pm_fileio_read_file(fio, ipath, &theirs));
            assert_int_equal(ours.len, theirs.len);
            assert_int_equal(ours.len, e[k].index_file.file_size);
            assert_memory_equal(ours.data, theirs.data, ours.len);
            pm_buf_free(&ours);
            pm_buf_free(&theirs);
            pm_dv_map_free(ordered);
            pm_dv_map_free(m);
            free(ipath);
            nentries++;
        }
        pm_index_manifest_entries_free(e, n);
        free(path);
    }
    assert_true(nentries > 0);
    for (size_t i = 0; i < nwant; i++)
        expect_positions(find_suffix(all, want[i].file_suffix), want[i].pos, want[i].n);
    pm_dv_map_free(all);
    pm_fileio_list_free(&names);
    pm_path_factory_free(pf);
    pm_type_free(ptype);
    pm_schema_free(schema);
    pm_fileio_free(fio);
}

static void test_fixture_tables(void **state)
{
    (void)state;
    check_fixture("pk_table_scan_and_read_dv", NULL,
                  (const expect_dv[]){{"93679f-0.parquet", {4}, 1}, {"a17fc1-0.parquet", {0}, 1}}, 2);
    check_fixture("pk_with_bitmap_dv", NULL, (const expect_dv[]){{"973174-0.parquet", {0, 4}, 2}}, 1);
    check_fixture("pk_09", NULL,
                  (const expect_dv[]){{"f1aaab-0.parquet", {4}, 1}, {"1cb76c-1.parquet", {0}, 1},
                                      {"1cb76c-0.parquet", {0}, 1}}, 3);
    check_fixture("pk_table_with_alter_table", NULL,
                  (const expect_dv[]){{"070969-0.parquet", {1}, 1}}, 1);
    check_fixture("pk_dv_index_in_data_no_external", NULL,
                  (const expect_dv[]){{"341fb2-0.parquet", {4}, 1}, {"93f58f-0.parquet", {0}, 1}}, 2);
    check_fixture("pk_dv_index_not_in_data_no_external", NULL,
                  (const expect_dv[]){{"6e1ac4-0.parquet", {4}, 1}, {"abb462-0.parquet", {0}, 1}}, 2);
    check_fixture("pk_dv_index_in_data_with_external", FIX "pk_dv_index_in_data_with_external.db/external",
                  (const expect_dv[]){{"11d44c-0.parquet", {4}, 1}, {"e94d19-0.parquet", {0}, 1}}, 2);
    check_fixture("pk_dv_index_not_in_data_with_external", NULL,
                  (const expect_dv[]){{"f64ed8-0.parquet", {4}, 1}, {"9da3f8-0.parquet", {0}, 1}}, 2);
}

/* ---- writing ---- */

typedef struct env {
    char *tmp;
    pm_fileio *fio;
    pm_path_factory *pf;
    pm_type *ptype;
    pm_options *opts;
    char *dir;
} env;

static void env_init(env *v, bool in_data_dir)
{
    v->tmp = pm_test_tmpdir();
    PM_OK_OR_FAIL(pm_fileio_local_new(&v->fio));
    v->ptype = pm_type_new_row(true);
    PM_OK_OR_FAIL(pm_options_new(&v->opts));
    if (in_data_dir)
        PM_OK_OR_FAIL(pm_options_set(v->opts, "index-file-in-data-file-dir", "true"));
    PM_OK_OR_FAIL(pm_path_factory_new(&v->pf, v->tmp, v->ptype, v->opts));
    char bucket[600];
    snprintf(bucket, sizeof bucket, "%s/bucket-0", v->tmp);
    PM_OK_OR_FAIL(pm_index_dir(v->pf, bucket, &v->dir));
}

static void env_free(env *v)
{
    free(v->dir);
    pm_path_factory_free(v->pf);
    pm_options_free(v->opts);
    pm_type_free(v->ptype);
    pm_fileio_free(v->fio);
    pm_test_rmtree(v->tmp);
    free(v->tmp);
}

static pm_dv_map *make_map(size_t count, bool bitmap64, int64_t rows_each)
{
    pm_dv_map *m;
    PM_OK_OR_FAIL(pm_dv_map_new(&m));
    for (size_t i = 0; i < count; i++) {
        char name[64];
        snprintf(name, sizeof name, "data-%zu.parquet", i);
        pm_dv *dv;
        PM_OK_OR_FAIL(pm_dv_new(bitmap64, &dv));
        for (int64_t k = 0; k < rows_each; k++)
            PM_OK_OR_FAIL(pm_dv_add(dv, (int64_t)i + 3 * k, NULL));
        PM_OK_OR_FAIL(pm_dv_map_put(m, name, dv));
    }
    return m;
}

static void read_back(env *v, const pm_index_file_meta *meta, pm_dv_map *into)
{
    assert_string_equal(meta->index_type, "DELETION_VECTORS");
    assert_true(meta->has_dv_ranges);
    assert_null(meta->external_path);
    assert_int_equal(meta->row_count, meta->dv_range_len);
    char *path;
    PM_OK_OR_FAIL(pm_index_file_path(v->pf, NULL, meta, &path));
    uint64_t size;
    PM_OK_OR_FAIL(pm_fileio_file_size(v->fio, path, &size));
    assert_int_equal(size, meta->file_size);
    PM_OK_OR_FAIL(pm_dv_index_read(v->fio, path, meta, into));
    free(path);
}

static void test_write_single(void **state)
{
    (void)state;
    for (int v64 = 0; v64 < 2; v64++) {
        env v;
        env_init(&v, false);
        pm_dv_map *m = make_map(5, v64, 40);
        pm_index_file_meta meta;
        PM_OK_OR_FAIL(pm_dv_index_write_single(v.fio, v.pf, v.dir, m, &meta));
        assert_int_equal(meta.dv_range_len, 5);
        assert_int_equal(meta.dv_ranges[0].offset, 1);
        for (size_t i = 0; i < 5; i++) {
            assert_string_equal(meta.dv_ranges[i].data_file_name, pm_dv_map_name(m, i));
            assert_int_equal(meta.dv_ranges[i].cardinality.v, 40);
            if (i)
                assert_int_equal(meta.dv_ranges[i].offset,
                                 meta.dv_ranges[i - 1].offset + meta.dv_ranges[i - 1].length + (v64 ? 0 : 8));
        }
        /* The file bytes equal the in-memory serialization. */
        pm_buf mem = PM_BUF_INIT, disk = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_dv_index_serialize(m, 0, 5, &mem, NULL));
        char *path = pm_path_join(v.dir, meta.file_name);
        PM_OK_OR_FAIL(pm_fileio_read_file(v.fio, path, &disk));
        assert_int_equal(mem.len, disk.len);
        assert_memory_equal(mem.data, disk.data, mem.len);
        pm_dv_map *back;
        PM_OK_OR_FAIL(pm_dv_map_new(&back));
        read_back(&v, &meta, back);
        for (size_t i = 0; i < 5; i++)
            assert_true(pm_dv_equal(pm_dv_map_get(back, pm_dv_map_name(m, i)), pm_dv_map_at(m, i)));
        /* read_one of the third entry */
        pm_dv *one;
        PM_OK_OR_FAIL(pm_dv_index_read_one(v.fio, path, meta.dv_ranges[2].offset, meta.dv_ranges[2].length, &one));
        assert_true(pm_dv_equal(one, pm_dv_map_at(m, 2)));
        pm_dv_free(one);
        PM_EXPECT_ERR(pm_dv_index_read_one(v.fio, path, meta.dv_ranges[2].offset, meta.dv_ranges[2].length + 1, &one),
                      PM_ECORRUPT);
        PM_EXPECT_ERR(pm_dv_index_read_one(v.fio, path, (int64_t)disk.len - 3, -1, &one), PM_ECORRUPT);
        PM_EXPECT_ERR(pm_dv_index_read_one(v.fio, path, 0, -1, &one), PM_ECORRUPT);
        /* Truncated file: the last entry no longer fits. */
        char *cut = pm_path_join(v.tmp, "cut");
        PM_OK_OR_FAIL(pm_fileio_overwrite_atomic(v.fio, cut, disk.data, disk.len - 1));
        PM_EXPECT_ERR(pm_dv_index_read_one(v.fio, cut, meta.dv_ranges[4].offset, meta.dv_ranges[4].length, &one),
                      PM_ECORRUPT);
        pm_dv_map *tmp;
        PM_OK_OR_FAIL(pm_dv_map_new(&tmp));
        PM_EXPECT_ERR(pm_dv_index_read(v.fio, cut, &meta, tmp), PM_ECORRUPT);
        pm_dv_map_free(tmp);
        free(cut);
        free(path);
        pm_buf_free(&mem);
        pm_buf_free(&disk);
        pm_dv_map_free(back);
        pm_index_meta_clear(&meta);

        /* No vectors: a 1-byte file (Java writes these for emptied buckets). */
        pm_dv_map *empty;
        PM_OK_OR_FAIL(pm_dv_map_new(&empty));
        PM_OK_OR_FAIL(pm_dv_index_write_single(v.fio, v.pf, v.dir, empty, &meta));
        assert_int_equal(meta.file_size, 1);
        assert_int_equal(meta.row_count, 0);
        assert_true(meta.has_dv_ranges);
        pm_index_meta_clear(&meta);
        pm_index_file_meta *metas;
        size_t nm;
        PM_OK_OR_FAIL(pm_dv_index_write_rolling(v.fio, v.pf, v.dir, empty, 0, &metas, &nm));
        assert_int_equal(nm, 0);
        assert_null(metas);
        pm_dv_map_free(empty);
        pm_dv_map_free(m);
        env_free(&v);
    }
}

static void test_write_rolling(void **state)
{
    (void)state;
    env v;
    env_init(&v, false);
    /* 10 vectors of 1000 positions (step 3): 2008-byte arrays, 2020-byte entries. */
    pm_dv_map *m = make_map(10, false, 1000);
    pm_buf one = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_dv_serialize(pm_dv_map_at(m, 0), &one, NULL));
    int64_t entry = (int64_t)one.len;
    pm_buf_free(&one);
    /* target: a file closes after the entry that passes 2.5 entries → 3 per file */
    int64_t target = 1 + entry * 5 / 2;
    pm_index_file_meta *metas;
    size_t nm;
    PM_OK_OR_FAIL(pm_dv_index_write_rolling(v.fio, v.pf, v.dir, m, target, &metas, &nm));
    assert_int_equal(nm, 4);
    const size_t per[] = {3, 3, 3, 1};
    pm_dv_map *back;
    PM_OK_OR_FAIL(pm_dv_map_new(&back));
    size_t seen = 0;
    for (size_t i = 0; i < nm; i++) {
        assert_int_equal(metas[i].dv_range_len, per[i]);
        assert_int_equal(metas[i].file_size, 1 + entry * (int64_t)per[i]);
        for (size_t k = 0; k < per[i]; k++)
            assert_string_equal(metas[i].dv_ranges[k].data_file_name, pm_dv_map_name(m, seen + k));
        seen += per[i];
        read_back(&v, &metas[i], back);
        for (size_t j = i + 1; j < nm; j++)
            assert_string_not_equal(metas[i].file_name, metas[j].file_name);
    }
    assert_int_equal(pm_dv_map_count(back), 10);
    for (size_t i = 0; i < 10; i++)
        assert_true(pm_dv_equal(pm_dv_map_get(back, pm_dv_map_name(m, i)), pm_dv_map_at(m, i)));
    pm_index_metas_free(metas, nm);

    /* Exactly at the target: not past it, so the file continues. */
    PM_OK_OR_FAIL(pm_dv_index_write_rolling(v.fio, v.pf, v.dir, m, 1 + entry * 2, &metas, &nm));
    assert_int_equal(nm, 4);
    assert_int_equal(metas[0].dv_range_len, 3);
    pm_index_metas_free(metas, nm);
    /* Default target (2 MiB): one file. */
    PM_OK_OR_FAIL(pm_dv_index_write_rolling(v.fio, v.pf, v.dir, m, 0, &metas, &nm));
    assert_int_equal(nm, 1);
    assert_int_equal(metas[0].dv_range_len, 10);
    pm_index_metas_free(metas, nm);
    pm_dv_map_free(back);
    pm_dv_map_free(m);
    env_free(&v);
}

static void test_index_paths(void **state)
{
    (void)state;
    env v;
    env_init(&v, true);
    char bucket[600];
    snprintf(bucket, sizeof bucket, "%s/bucket-0", v.tmp);
    assert_string_equal(v.dir, bucket);
    PM_EXPECT_ERR(pm_index_dir(v.pf, NULL, &(char *){NULL}), PM_EINVALID);
    pm_index_file_meta f;
    memset(&f, 0, sizeof f);
    f.file_name = "index-x-0";
    char *p;
    PM_OK_OR_FAIL(pm_index_file_path(v.pf, bucket, &f, &p));
    assert_string_equal(p + strlen(bucket), "/index-x-0");
    free(p);
    f.external_path = "FILE:/tmp/ext/index-x-0";
    PM_OK_OR_FAIL(pm_index_file_path(v.pf, bucket, &f, &p));
    assert_string_equal(p, "/tmp/ext/index-x-0"); /* the local scheme stripped */
    free(p);
    f.external_path = "file://host/index-x-0"; /* not a local file */
    PM_EXPECT_ERR(pm_index_file_path(v.pf, bucket, &f, &p), PM_EUNSUPPORTED);
    f.external_path = "/abs/index-x-0";
    PM_OK_OR_FAIL(pm_index_file_path(v.pf, bucket, &f, &p));
    assert_string_equal(p, "/abs/index-x-0");
    free(p);
    f.external_path = "oss://bucket/index-x-0";
    PM_EXPECT_ERR(pm_index_file_path(v.pf, bucket, &f, &p), PM_EUNSUPPORTED);
    /* a name from an index manifest is a plain name */
    f.external_path = NULL;
    f.file_name = "../index-x-0";
    PM_EXPECT_ERR(pm_index_file_path(v.pf, bucket, &f, &p), PM_ECORRUPT);
    f.file_name = "a/index-x-0";
    PM_EXPECT_ERR(pm_index_file_path(v.pf, bucket, &f, &p), PM_ECORRUPT);

    /* Written into the bucket directory. */
    pm_dv_map *m = make_map(2, true, 3);
    pm_index_file_meta meta;
    PM_OK_OR_FAIL(pm_dv_index_write_single(v.fio, v.pf, v.dir, m, &meta));
    char *path = pm_path_join(bucket, meta.file_name);
    bool exists;
    PM_OK_OR_FAIL(pm_fileio_exists(v.fio, path, &exists));
    assert_true(exists);
    assert_true(!strncmp(meta.file_name, "index-", 6));
    free(path);
    pm_index_meta_clear(&meta);
    pm_dv_map_free(m);
    env_free(&v);

    env_init(&v, false);
    assert_string_equal(v.dir + strlen(v.tmp), "/index");
    env_free(&v);
}

static void test_map(void **state)
{
    (void)state;
    pm_dv_map *m;
    PM_OK_OR_FAIL(pm_dv_map_new(&m));
    char name[32];
    for (int i = 0; i < 200; i++) {
        pm_dv *dv;
        PM_OK_OR_FAIL(pm_dv_new(false, &dv));
        PM_OK_OR_FAIL(pm_dv_add(dv, i, NULL));
        snprintf(name, sizeof name, "f%d", i);
        PM_OK_OR_FAIL(pm_dv_map_put(m, name, dv));
    }
    assert_int_equal(pm_dv_map_count(m), 200);
    /* Replace keeps the position. */
    pm_dv *r;
    PM_OK_OR_FAIL(pm_dv_new(false, &r));
    PM_OK_OR_FAIL(pm_dv_add(r, 999, NULL));
    PM_OK_OR_FAIL(pm_dv_map_put(m, "f10", r));
    assert_string_equal(pm_dv_map_name(m, 10), "f10");
    assert_true(pm_dv_contains(pm_dv_map_at(m, 10), 999));
    /* Removal shifts later entries; lookups still work. */
    for (int i = 0; i < 200; i += 2) {
        snprintf(name, sizeof name, "f%d", i);
        pm_dv *dv = pm_dv_map_take(m, name);
        assert_non_null(dv);
        pm_dv_free(dv);
    }
    assert_null(pm_dv_map_take(m, "f0"));
    assert_int_equal(pm_dv_map_count(m), 100);
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "f%d", 2 * i + 1);
        assert_string_equal(pm_dv_map_name(m, (size_t)i), name);
        assert_true(pm_dv_contains(pm_dv_map_get(m, name), 2 * i + 1));
    }
    assert_null(pm_dv_map_get(m, "f2"));
    pm_dv_map_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_files),
        cmocka_unit_test(test_fixture_tables),
        cmocka_unit_test(test_write_single),
        cmocka_unit_test(test_write_rolling),
        cmocka_unit_test(test_index_paths),
        cmocka_unit_test(test_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
