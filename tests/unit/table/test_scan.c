/*
 * tests/unit/table/test_scan.c — partition specs (parse, match, stats
 * pruning) and pm_table_scan on a table built by hand with the meta
 * writers: snapshot selection, ADD/DELETE merge, grouping, partition and
 * bucket filters, deletion-vector index attachment, error cases.
 */
#include <string.h>

#include "base/mem.h"
#include "meta/manifest.h"
#include "pm_test.h"
#include "table/partition.h"
#include "table/scan.h"
#include "types/binary_row.h"

static void test_spec_parse(void **state)
{
    (void)state;
    pm_partition_spec s;
    PM_OK_OR_FAIL(pm_partition_spec_parse("dt=2024-01-01", &s));
    assert_int_equal(s.count, 1);
    assert_string_equal(s.keys[0], "dt");
    assert_string_equal(s.values[0], "2024-01-01");
    pm_partition_spec_clear(&s);
    PM_OK_OR_FAIL(pm_partition_spec_parse("a=1,b=x=y,c=", &s));
    assert_int_equal(s.count, 3);
    assert_string_equal(s.values[1], "x=y");
    assert_string_equal(s.keys[2], "c");
    assert_string_equal(s.values[2], "");
    pm_partition_spec_clear(&s);
    PM_EXPECT_ERR(pm_partition_spec_parse("", &s), PM_EINVALID);
    PM_EXPECT_ERR(pm_partition_spec_parse("=x", &s), PM_EINVALID);
    PM_EXPECT_ERR(pm_partition_spec_parse("novalue", &s), PM_EINVALID);
    PM_EXPECT_ERR(pm_partition_spec_parse("a=1,a=2", &s), PM_EINVALID);
    PM_EXPECT_ERR(pm_partition_spec_parse("a=1,", &s), PM_EINVALID);
    assert_int_equal(s.count, 0);
}

/* ---- a hand-built table ---- */

typedef struct fixture {
    char *dir;
    char path[512];
    pm_table *t;
} fixture;

static void part_row(const char *dt, int32_t h, bool h_null, pm_bytes *out)
{
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 2));
    if (dt)
        PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, dt, strlen(dt)));
    else
        PM_OK_OR_FAIL(pm_binrow_set_null(&w, 0, NULL));
    if (h_null)
        PM_OK_OR_FAIL(pm_binrow_set_null(&w, 1, NULL));
    else
        pm_binrow_set_i32(&w, 1, h);
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_binrow_serialize(&w, &b));
    PM_OK_OR_FAIL(pm_bytes_set(out, b.data, b.len));
    out->has = true;
    pm_buf_free(&b);
    pm_binrow_writer_free(&w);
}

static void make_entry(pm_manifest_entry *e, pm_file_kind kind, const char *dt, int32_t h, bool h_null,
                       int32_t bucket, const char *file, int32_t level, int64_t rows)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
    part_row(dt, h, h_null, &e->partition);
    e->bucket = bucket;
    e->total_buckets = 2;
    pm_data_file_meta *f = &e->file;
    PM_OK_OR_FAIL(pm_strdup(&f->file_name, file));
    f->file_size = 100;
    f->row_count = rows;
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 0));
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_binrow_serialize(&w, &b));
    PM_OK_OR_FAIL(pm_bytes_set(&f->min_key, b.data, b.len));
    PM_OK_OR_FAIL(pm_bytes_set(&f->max_key, b.data, b.len));
    f->min_key.has = f->max_key.has = true;
    pm_buf_free(&b);
    pm_binrow_writer_free(&w);
    PM_OK_OR_FAIL(pm_simple_stats_empty(&f->key_stats));
    PM_OK_OR_FAIL(pm_simple_stats_empty(&f->value_stats));
    f->min_sequence_number = 0;
    f->max_sequence_number = rows - 1;
    f->schema_id = 0;
    f->level = level;
    f->creation_time.has = true;
    f->creation_time.v = 1700000000000;
    f->delete_row_count.has = true;
    f->file_source.has = true;
}

/* Write entries as one manifest; returns the manifest metas. */
static void write_manifest(pm_table *t, pm_manifest_entry *es, size_t n, pm_manifest_file_meta **metas,
                           size_t *nmetas)
{
    PM_OK_OR_FAIL(pm_manifest_write(t->fio, t->paths, pm_table_options(t), t->partition_type, 0, es, n, metas,
                                    nmetas));
}

static char *write_list(pm_table *t, const pm_manifest_file_meta *m, size_t n)
{
    char *name = NULL;
    int64_t size = 0;
    PM_OK_OR_FAIL(pm_manifest_list_write(t->fio, t->paths, pm_table_options(t), m, n, &name, &size));
    return name;
}

/* Publish snapshot `id` (takes the three names). */
static void commit(pm_table *t, int64_t id, char *base, char *delta, char *index, int64_t time)
{
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_snapshot_new(&s));
    s->id = id;
    s->schema_id = 0;
    s->base_manifest_list = base;
    s->delta_manifest_list = delta;
    s->index_manifest = index;
    PM_OK_OR_FAIL(pm_strdup(&s->commit_user, "test"));
    s->commit_identifier = id;
    s->commit_kind = PM_COMMIT_APPEND;
    s->time_millis = time;
    bool ok = false;
    PM_OK_OR_FAIL(pm_snapshot_store_commit(t->snapshots, s, &ok));
    assert_true(ok);
    pm_snapshot_free(s);
}

static void free_entries(pm_manifest_entry *es, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_manifest_entry_clear(&es[i]);
}

/*
 * snapshot 1: ADD f1 (a,1,b0) f2 (a,1,b1) f3 (b,2,b0) f5 (null,null,b0)
 * snapshot 2: DELETE f1, ADD f4 (a,1,b0, level 1); index: DV for f3 and
 *             one for a file that is not live (ignored), HASH for (a,1,b1)
 */
static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    fx->dir = pm_test_tmpdir();
    snprintf(fx->path, sizeof fx->path, "%s/db.db/t", fx->dir);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<id BIGINT NOT NULL, dt STRING, h INT>"));
    const char *pk[] = {"dt", "h"};
    const char *ok[] = {"bucket", "bucket-key"}, *ov[] = {"2", "id"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, pk, 2, NULL, 0, ok, ov, 2, NULL};
    PM_OK_OR_FAIL(pm_table_create(fx->path, &spec, false));
    pm_type_free(rt);
    PM_OK_OR_FAIL(pm_table_open(&fx->t, fx->path, NULL));
    pm_table *t = fx->t;

    pm_manifest_entry s1[4];
    make_entry(&s1[0], PM_FILE_ADD, "a", 1, false, 0, "f1.parquet", 0, 10);
    make_entry(&s1[1], PM_FILE_ADD, "a", 1, false, 1, "f2.parquet", 0, 20);
    make_entry(&s1[2], PM_FILE_ADD, "b", 2, false, 0, "f3.parquet", 0, 30);
    make_entry(&s1[3], PM_FILE_ADD, NULL, 0, true, 0, "f5.parquet", 0, 5);
    pm_manifest_file_meta *m1 = NULL;
    size_t nm1 = 0;
    write_manifest(t, s1, 4, &m1, &nm1);
    char *base1 = write_list(t, NULL, 0);
    char *delta1 = write_list(t, m1, nm1);
    commit(t, 1, base1, delta1, NULL, 1000);

    pm_manifest_entry s2[2];
    make_entry(&s2[0], PM_FILE_DELETE, "a", 1, false, 0, "f1.parquet", 0, 10);
    make_entry(&s2[1], PM_FILE_ADD, "a", 1, false, 0, "f4.parquet", 1, 10);
    pm_manifest_file_meta *m2 = NULL;
    size_t nm2 = 0;
    write_manifest(t, s2, 2, &m2, &nm2);
    char *base2 = write_list(t, m1, nm1);
    char *delta2 = write_list(t, m2, nm2);

    pm_index_manifest_entry ie[2];
    memset(ie, 0, sizeof ie);
    ie[0].kind = PM_FILE_ADD;
    part_row("b", 2, false, &ie[0].partition);
    ie[0].bucket = 0;
    PM_OK_OR_FAIL(pm_strdup(&ie[0].index_file.index_type, "DELETION_VECTORS"));
    PM_OK_OR_FAIL(pm_strdup(&ie[0].index_file.file_name, "index-x-0"));
    ie[0].index_file.file_size = 50;
    ie[0].index_file.row_count = 2;
    ie[0].index_file.has_dv_ranges = true;
    ie[0].index_file.dv_range_len = 2;
    PM_OK_OR_FAIL(pm_calloc(&ie[0].index_file.dv_ranges, 2, sizeof(pm_dv_meta)));
    PM_OK_OR_FAIL(pm_strdup(&ie[0].index_file.dv_ranges[0].data_file_name, "f3.parquet"));
    ie[0].index_file.dv_ranges[0].offset = 1;
    ie[0].index_file.dv_ranges[0].length = 22;
    ie[0].index_file.dv_ranges[0].cardinality.has = true;
    ie[0].index_file.dv_ranges[0].cardinality.v = 3;
    PM_OK_OR_FAIL(pm_strdup(&ie[0].index_file.dv_ranges[1].data_file_name, "gone.parquet"));
    ie[1].kind = PM_FILE_ADD;
    part_row("a", 1, false, &ie[1].partition);
    ie[1].bucket = 1;
    PM_OK_OR_FAIL(pm_strdup(&ie[1].index_file.index_type, "HASH"));
    PM_OK_OR_FAIL(pm_strdup(&ie[1].index_file.file_name, "index-x-1"));
    char *iname = NULL;
    int64_t isize = 0;
    PM_OK_OR_FAIL(pm_index_manifest_write(t->fio, t->paths, pm_table_options(t), ie, 2, &iname, &isize));
    commit(t, 2, base2, delta2, iname, 2000);

    pm_index_manifest_entry_clear(&ie[0]);
    pm_index_manifest_entry_clear(&ie[1]);
    free_entries(s1, 4);
    free_entries(s2, 2);
    pm_manifest_file_metas_free(m1, nm1);
    pm_manifest_file_metas_free(m2, nm2);
    *state = fx; /* commit() took the list and index names */
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    pm_table_free(fx->t);
    pm_test_rmtree(fx->dir);
    free(fx->dir);
    free(fx);
    return 0;
}

static const pm_bucket_files *find(const pm_scan_result *r, const char *display, int32_t bucket, pm_table *t)
{
    for (size_t i = 0; i < r->nbuckets; i++) {
        pm_buf b = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_partition_display(t, r->buckets[i].partition.data, r->buckets[i].partition.len, &b));
        bool eq = b.len == strlen(display) && !memcmp(b.data, display, b.len);
        pm_buf_free(&b);
        if (eq && r->buckets[i].bucket == bucket)
            return &r->buckets[i];
    }
    return NULL;
}

static size_t total_files(const pm_scan_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nbuckets; i++)
        n += r->buckets[i].nfiles;
    return n;
}

static void test_scan_latest_and_time_travel(void **state)
{
    fixture *fx = *state;
    pm_scan_result *r = NULL;
    PM_OK_OR_FAIL(pm_table_scan(fx->t, NULL, &r));
    assert_non_null(r->snapshot);
    assert_int_equal(r->snapshot->id, 2);
    assert_int_equal(r->nbuckets, 4);
    assert_int_equal(total_files(r), 4);
    const pm_bucket_files *b = find(r, "dt=a/h=1", 0, fx->t);
    assert_non_null(b);
    assert_int_equal(b->nfiles, 1);
    assert_string_equal(b->files[0].file_name, "f4.parquet");
    assert_int_equal(b->files[0].level, 1);
    assert_int_equal(b->total_buckets, 2);
    assert_ptr_equal(b->table, fx->t);
    b = find(r, "dt=a/h=1", 1, fx->t);
    assert_non_null(b);
    assert_int_equal(b->ndvs, 0);
    assert_int_equal(b->nindex_entries, 1);
    assert_string_equal(b->index_entries[0].index_file.index_type, "HASH");
    b = find(r, "dt=b/h=2", 0, fx->t);
    assert_non_null(b);
    assert_int_equal(b->ndvs, 1);
    assert_string_equal(b->dvs[0].data_file, "f3.parquet");
    assert_ptr_equal(b->dvs[0].data_file, b->files[0].file_name);
    assert_int_equal(b->dvs[0].offset, 1);
    assert_int_equal(b->dvs[0].length, 22);
    assert_true(b->dvs[0].cardinality.has);
    char want[600];
    snprintf(want, sizeof want, "%s/index/index-x-0", fx->path);
    assert_string_equal(b->dvs[0].index_path, want);
    b = find(r, "dt=__DEFAULT_PARTITION__/h=__DEFAULT_PARTITION__", 0, fx->t);
    assert_non_null(b);
    assert_string_equal(b->files[0].file_name, "f5.parquet");
    /* sorted by (partition bytes, bucket) */
    for (size_t i = 1; i < r->nbuckets; i++) {
        const pm_bucket_files *x = &r->buckets[i - 1], *y = &r->buckets[i];
        size_t n = x->partition.len < y->partition.len ? x->partition.len : y->partition.len;
        int c = memcmp(x->partition.data, y->partition.data, n);
        assert_true(c < 0 || (c == 0 && (x->partition.len < y->partition.len ||
                                         (x->partition.len == y->partition.len && x->bucket < y->bucket))));
    }
    assert_ptr_equal(r->schema, pm_table_schema(fx->t));
    pm_scan_result_free(r);

    pm_scan_options o = pm_scan_options_default();
    o.snapshot_id = 1;
    PM_OK_OR_FAIL(pm_table_scan(fx->t, &o, &r));
    assert_int_equal(r->snapshot->id, 1);
    b = find(r, "dt=a/h=1", 0, fx->t);
    assert_non_null(b);
    assert_string_equal(b->files[0].file_name, "f1.parquet");
    assert_int_equal(total_files(r), 4);
    b = find(r, "dt=b/h=2", 0, fx->t);
    assert_int_equal(b->ndvs, 0); /* snapshot 1 has no index manifest */
    pm_scan_result_free(r);

    o.snapshot_id = 3;
    PM_EXPECT_ERR(pm_table_scan(fx->t, &o, &r), PM_ENOTFOUND);
    assert_null(r);
    o.snapshot_id = -1;
    PM_EXPECT_ERR(pm_table_scan(fx->t, &o, &r), PM_EINVALID);
}

static size_t scan_count(fixture *fx, const char *spec_text, int32_t bucket)
{
    pm_partition_spec spec;
    pm_scan_options o = pm_scan_options_default();
    if (spec_text) {
        PM_OK_OR_FAIL(pm_partition_spec_parse(spec_text, &spec));
        o.partitions = &spec;
        o.npartitions = 1;
    }
    o.bucket = bucket;
    pm_scan_result *r = NULL;
    PM_OK_OR_FAIL(pm_table_scan(fx->t, &o, &r));
    size_t n = total_files(r);
    pm_scan_result_free(r);
    if (spec_text)
        pm_partition_spec_clear(&spec);
    return n;
}

static void test_scan_filters(void **state)
{
    fixture *fx = *state;
    assert_int_equal(scan_count(fx, "dt=b", PM_SCAN_ALL_BUCKETS), 1);
    assert_int_equal(scan_count(fx, "dt=a", PM_SCAN_ALL_BUCKETS), 2);
    assert_int_equal(scan_count(fx, "dt=a,h=1", PM_SCAN_ALL_BUCKETS), 2);
    assert_int_equal(scan_count(fx, "h=01", PM_SCAN_ALL_BUCKETS), 2); /* typed match */
    assert_int_equal(scan_count(fx, "dt=a,h=2", PM_SCAN_ALL_BUCKETS), 0);
    assert_int_equal(scan_count(fx, "dt=zzz", PM_SCAN_ALL_BUCKETS), 0);
    assert_int_equal(scan_count(fx, "dt=__DEFAULT_PARTITION__", PM_SCAN_ALL_BUCKETS), 1);
    assert_int_equal(scan_count(fx, NULL, 1), 1);
    assert_int_equal(scan_count(fx, NULL, 0), 3);
    assert_int_equal(scan_count(fx, "dt=a", 0), 1);
    assert_int_equal(scan_count(fx, NULL, 7), 0);

    /* OR of two specs */
    pm_partition_spec specs[2];
    PM_OK_OR_FAIL(pm_partition_spec_parse("dt=b", &specs[0]));
    PM_OK_OR_FAIL(pm_partition_spec_parse("h=1", &specs[1]));
    pm_scan_options o = pm_scan_options_default();
    o.partitions = specs;
    o.npartitions = 2;
    pm_scan_result *r = NULL;
    PM_OK_OR_FAIL(pm_table_scan(fx->t, &o, &r));
    assert_int_equal(total_files(r), 3);
    pm_scan_result_free(r);
    pm_partition_spec_clear(&specs[0]);
    pm_partition_spec_clear(&specs[1]);

    pm_partition_spec bad;
    PM_OK_OR_FAIL(pm_partition_spec_parse("id=1", &bad));
    o.partitions = &bad;
    o.npartitions = 1;
    PM_EXPECT_ERR(pm_table_scan(fx->t, &o, &r), PM_EINVALID);
    pm_partition_spec_clear(&bad);
}

static void test_spec_match_and_pruning(void **state)
{
    fixture *fx = *state;
    pm_bytes p = {0};
    part_row("2024-01-01", 7, false, &p);
    pm_partition_spec s;
    bool m = false;
    PM_OK_OR_FAIL(pm_partition_spec_parse("dt=2024-01-01,h=7", &s));
    PM_OK_OR_FAIL(pm_partition_spec_match(fx->t, &s, p.data, p.len, &m));
    assert_true(m);
    pm_partition_spec_clear(&s);
    PM_OK_OR_FAIL(pm_partition_spec_parse("h=+7", &s));
    PM_OK_OR_FAIL(pm_partition_spec_match(fx->t, &s, p.data, p.len, &m));
    assert_true(m);
    pm_partition_spec_clear(&s);
    PM_OK_OR_FAIL(pm_partition_spec_parse("h=8", &s));
    PM_OK_OR_FAIL(pm_partition_spec_match(fx->t, &s, p.data, p.len, &m));
    assert_false(m);
    pm_partition_spec_clear(&s);
    PM_OK_OR_FAIL(pm_partition_spec_parse("h=__DEFAULT_PARTITION__", &s));
    PM_OK_OR_FAIL(pm_partition_spec_match(fx->t, &s, p.data, p.len, &m));
    assert_false(m);
    pm_bytes_clear(&p);
    part_row("  ", 0, true, &p); /* blank string and null: default name */
    PM_OK_OR_FAIL(pm_partition_spec_match(fx->t, &s, p.data, p.len, &m));
    assert_true(m);
    pm_partition_spec_clear(&s);
    PM_OK_OR_FAIL(pm_partition_spec_parse("dt=__DEFAULT_PARTITION__", &s));
    PM_OK_OR_FAIL(pm_partition_spec_match(fx->t, &s, p.data, p.len, &m));
    assert_true(m);
    pm_partition_spec_clear(&s);
    PM_OK_OR_FAIL(pm_partition_spec_parse("nope=1", &s));
    PM_EXPECT_ERR(pm_partition_spec_match(fx->t, &s, p.data, p.len, &m), PM_EINVALID);
    pm_partition_spec_clear(&s);
    pm_bytes_clear(&p);

    /* stats pruning: stats over (a,1)..(b,2) with no nulls */
    pm_simple_stats st = {0};
    part_row("a", 1, false, &st.min_values);
    part_row("b", 2, false, &st.max_values);
    st.has_null_counts = true;
    st.null_count_len = 2;
    PM_OK_OR_FAIL(pm_calloc(&st.null_counts, 2, sizeof *st.null_counts));
    st.null_counts[0].has = st.null_counts[1].has = true;
    const char *cases[][2] = {{"dt=a", "1"},   {"dt=ab", "1"}, {"dt=c", "0"}, {"dt=0", "0"},
                              {"h=2", "1"},    {"h=3", "0"},   {"h=x", "1"},  {"dt=__DEFAULT_PARTITION__", "0"},
                              {"h=0,dt=a", "0"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pm_part_matcher *pmx = NULL;
        PM_OK_OR_FAIL(pm_partition_spec_parse(cases[i][0], &s));
        PM_OK_OR_FAIL(pm_part_matcher_new(fx->t, &s, 1, &pmx));
        bool may = pm_part_matcher_may_match_stats(pmx, &st);
        if (may != (cases[i][1][0] == '1'))
            fail_msg("pruning of '%s' gave %d", cases[i][0], may);
        pm_part_matcher_free(pmx);
        pm_partition_spec_clear(&s);
    }
    st.null_counts[0].v = 1;
    pm_part_matcher *pmx = NULL;
    PM_OK_OR_FAIL(pm_partition_spec_parse("dt=__DEFAULT_PARTITION__", &s));
    PM_OK_OR_FAIL(pm_part_matcher_new(fx->t, &s, 1, &pmx));
    assert_true(pm_part_matcher_may_match_stats(pmx, &st));
    pm_part_matcher_free(pmx);
    pm_partition_spec_clear(&s);
    pm_simple_stats_clear(&st);
}

static void test_bucket_dir_and_orc(void **state)
{
    fixture *fx = *state;
    pm_bytes p = {0};
    part_row("x/y", 3, false, &p);
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(fx->t, p.data, p.len, 1, &dir));
    char want[600];
    snprintf(want, sizeof want, "%s/dt=x%%2Fy/h=3/bucket-1", fx->path);
    assert_string_equal(dir, want);
    free(dir);
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_partition_display(fx->t, p.data, p.len, &b));
    assert_int_equal(b.len, strlen("dt=x/y/h=3"));
    pm_buf_free(&b);
    pm_bytes_clear(&p);

    /* manifest.format=orc: the Avro manifests written before still read
     * (the reader goes by each file's magic) and give the same files */
    pm_scan_result *r0 = NULL, *r = NULL;
    PM_OK_OR_FAIL(pm_table_scan(fx->t, NULL, &r0));
    PM_OK_OR_FAIL(pm_options_set(fx->t->schema->options, "manifest.format", "orc"));
    PM_OK_OR_FAIL(pm_table_scan(fx->t, NULL, &r));
    assert_int_equal(r->nbuckets, r0->nbuckets);
    for (size_t i = 0; i < r->nbuckets; i++) {
        assert_int_equal(r->buckets[i].nfiles, r0->buckets[i].nfiles);
        for (size_t k = 0; k < r->buckets[i].nfiles; k++)
            assert_string_equal(r->buckets[i].files[k].file_name, r0->buckets[i].files[k].file_name);
    }
    pm_scan_result_free(r);
    pm_scan_result_free(r0);
    pm_options_remove(fx->t->schema->options, "manifest.format");
}

static void test_empty_and_corrupt(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/db.db/e", dir);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<id BIGINT>"));
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, NULL, 0, NULL, NULL, 0, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    pm_scan_result *r = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, NULL, &r));
    assert_null(r->snapshot);
    assert_int_equal(r->nbuckets, 0);
    pm_scan_result_free(r);
    /* a snapshot naming a missing manifest list */
    commit(t, 1, strdup("manifest-list-missing-0"), strdup("manifest-list-missing-1"), NULL, 1);
    PM_EXPECT_ERR(pm_table_scan(t, NULL, &r), PM_ENOTFOUND);
    /* a manifest list with bad bytes */
    char lp[600];
    snprintf(lp, sizeof lp, "%s/manifest/manifest-list-missing-0", path);
    bool pub = false;
    PM_OK_OR_FAIL(pm_fileio_publish_if_absent(t->fio, lp, "garbage!", 8, &pub));
    PM_EXPECT_ERR(pm_table_scan(t, NULL, &r), PM_ECORRUPT);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_parse),
        cmocka_unit_test_setup_teardown(test_scan_latest_and_time_travel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scan_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spec_match_and_pruning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bucket_dir_and_orc, setup, teardown),
        cmocka_unit_test(test_empty_and_corrupt),
    };
    return cmocka_run_group_tests_name("table_scan", tests, NULL, NULL);
}
