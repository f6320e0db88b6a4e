/*
 * tests/unit/api/test_api_write_read.c — paimon/write.h and paimon/read.h
 * through the public headers only: writers (rows, batches, Arrow arrays
 * and streams), commit messages (count, merge, abort), the commit (outcome,
 * idempotency, overwrite of partitions, the automatic compaction round and
 * its separate report), scans and splits, readers (projection, limit,
 * threads, several splits, wrong splits), and the Arrow C stream.
 */
#include <dirent.h>

#include "api_test_util.h"

static pm_table *open_table(const char *path)
{
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    return t;
}

static void test_write_commit_read(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/append");
    const char *opts[] = {"write-only=true"};
    api_create(path, "id INT, name STRING, dt STRING", "dt", NULL, opts, 1);
    pm_table *t = open_table(path);
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, NULL));
    assert_non_null(pm_writer_commit_user(w));
    assert_int_equal(pm_writer_input_type(w)->nfields, 3); /* no _ROW_KIND for append tables */
    const char *rows = "{\"id\":1,\"name\":\"a\",\"dt\":\"x\"}\n{\"id\":2,\"name\":\"b\",\"dt\":\"y\"}\n";
    pm_mem_source src = {rows, strlen(rows), 0, 5};
    PM_OK_OR_FAIL(pm_writer_write_rows(w, PM_ROWS_JSONL, pm_mem_source_read, &src));
    assert_int_equal(pm_writer_row_count(w), 2);
    const char *csv = "id,dt\n3,x\n";
    pm_mem_source src2 = {csv, strlen(csv), 0, 0};
    PM_OK_OR_FAIL(pm_writer_write_rows(w, PM_ROWS_CSV, pm_mem_source_read, &src2));
    pm_commit_messages *m = NULL;
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m, w));
    assert_int_equal(pm_commit_messages_count(m), 2); /* two partitions */
    assert_int_equal(pm_commit_messages_file_count(m), 2);
    assert_int_equal(pm_commit_messages_row_count(m), 3);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_commit(&out, t, m, NULL));
    assert_int_equal(out.snapshot_id, 1);
    assert_int_equal(out.rows, 3);
    assert_int_equal(out.compaction.snapshot_id, 0); /* write-only */
    assert_null(out.compaction_error);
    pm_commit_messages_free(m);
    pm_writer_free(w);

    /* scan: one split per partition */
    pm_scan *s = NULL;
    PM_OK_OR_FAIL(pm_scan_new(&s, t, NULL));
    assert_int_equal(pm_scan_snapshot_id(s), 1);
    assert_int_equal(pm_scan_schema_id(s), 0);
    assert_int_equal(pm_scan_split_count(s), 2);
    assert_null(pm_scan_split(s, 2));
    const pm_split *sp = pm_scan_split(s, 0);
    assert_string_equal(pm_split_partition(sp), "dt=x");
    assert_int_equal(pm_split_bucket(sp), 0);
    assert_string_equal(pm_split_branch(sp), "main");
    assert_int_equal(pm_split_snapshot_id(sp), 1);
    assert_int_equal(pm_split_file_count(sp), 1);
    assert_int_equal(pm_split_row_count(sp), 2);
    assert_true(pm_split_file_bytes(sp) > 0);
    /* read one split, projected, from a copy that outlives the scan */
    pm_split *copy = NULL;
    PM_OK_OR_FAIL(pm_split_copy(&copy, sp));
    pm_scan_free(s);
    const char *cols[] = {"name", "id"};
    pm_read_options ro;
    pm_read_options_init(&ro);
    ro.columns = cols;
    ro.ncolumns = 2;
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_reader_new(&r, t, (const pm_split *const *)&copy, 1, &ro));
    assert_int_equal(pm_reader_type(r)->nfields, 2);
    char *text = api_read_all(r);
    assert_string_equal(text, "{\"name\":\"a\",\"id\":1}\n{\"name\":null,\"id\":3}\n");
    free(text);
    pm_reader_free(r);
    pm_split_free(copy);

    /* whole table with a partition filter, a limit and threads */
    const char *parts[] = {"dt=y"};
    pm_read_options_init(&ro);
    ro.partitions = parts;
    ro.npartitions = 1;
    text = api_read_table(t, &ro);
    assert_string_equal(text, "{\"id\":2,\"name\":\"b\",\"dt\":\"y\"}\n");
    free(text);
    pm_read_options_init(&ro);
    ro.limit = 2;
    ro.threads = 4;
    ro.batch_rows = 1;
    text = api_read_table(t, &ro);
    assert_int_equal(api_count_lines(text), 2);
    free(text);
    ro.limit = 0;
    text = api_read_table(t, &ro);
    assert_string_equal(text, "");
    free(text);
    /* bad options */
    pm_read_options_init(&ro);
    ro.version = 0;
    PM_EXPECT_ERR(pm_table_read(&r, t, &ro), PM_EINVALID);
    pm_read_options_init(&ro);
    ro.limit = -7;
    PM_EXPECT_ERR(pm_table_read(&r, t, &ro), PM_EINVALID);
    const char *nocol[] = {"nope"};
    pm_read_options_init(&ro);
    ro.columns = nocol;
    ro.ncolumns = 1;
    PM_EXPECT_ERR(pm_table_read(&r, t, &ro), PM_EINVALID);
    const char *badpart[] = {"nokey"};
    pm_read_options_init(&ro);
    ro.partitions = badpart;
    ro.npartitions = 1;
    PM_EXPECT_ERR(pm_scan_new(&s, t, &ro), PM_EINVALID);
    PM_EXPECT_ERR(pm_partition_filter_check("nokey"), PM_EINVALID);
    PM_OK_OR_FAIL(pm_partition_filter_check("dt=x,k=v"));
    pm_table_free(t);
    free(path);
}

static void test_splits_of_another_table(void **state)
{
    (void)state;
    char *a = api_path(dir, "db.db/sa"), *b = api_path(dir, "db.db/sb");
    api_create(a, "id INT", NULL, NULL, NULL, 0);
    api_create(b, "id INT", NULL, NULL, NULL, 0);
    pm_table *ta = open_table(a), *tb = open_table(b);
    (void)api_write_json(ta, "{\"id\":1}\n", NULL);
    pm_scan *s = NULL;
    PM_OK_OR_FAIL(pm_scan_new(&s, ta, NULL));
    assert_int_equal(pm_scan_split_count(s), 1);
    const pm_split *sp = pm_scan_split(s, 0);
    pm_reader *r = NULL;
    PM_EXPECT_ERR(pm_reader_new(&r, tb, &sp, 1, NULL), PM_EINVALID);
    PM_EXPECT_ERR(pm_reader_new(&r, ta, NULL, 1, NULL), PM_EINVALID);
    /* no splits: an empty read */
    PM_OK_OR_FAIL(pm_reader_new(&r, ta, NULL, 0, NULL));
    char *text = api_read_all(r);
    assert_string_equal(text, "");
    free(text);
    pm_reader_free(r);
    pm_scan_free(s);
    pm_table_free(ta);
    pm_table_free(tb);
    free(a);
    free(b);
}

static void test_idempotent_commit_and_overwrite(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/idem");
    const char *opts[] = {"write-only=true"};
    api_create(path, "id INT, dt STRING", "dt", NULL, opts, 1);
    pm_table *t = open_table(path);
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = "job";
    wo.commit_identifier = 1;
    (void)api_write_json(t, "{\"id\":1,\"dt\":\"a\"}\n{\"id\":2,\"dt\":\"b\"}\n", &wo);
    /* the same commit again: reported, nothing added */
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, &wo));
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_commit(&out, t, NULL, &wo));
    assert_true(out.already_committed);
    assert_int_equal(out.snapshot_id, 1);
    pm_writer_free(w);
    /* an outcome that was not initialized is refused */
    pm_commit_outcome bad;
    memset(&bad, 0, sizeof bad);
    PM_EXPECT_ERR(pm_commit(&bad, t, NULL, &wo), PM_EINVALID);
    /* overwrite one partition */
    pm_write_options ow = PM_WRITE_OPTIONS_INIT;
    const char *parts[] = {"dt=a"};
    ow.overwrite = true;
    ow.overwrite_partitions = parts;
    ow.noverwrite_partitions = 1;
    out = api_write_json(t, "{\"id\":10,\"dt\":\"a\"}\n", &ow);
    assert_int_equal(out.snapshot_id, 2);
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_table_snapshot(&s, t, 2));
    assert_string_equal(pm_snapshot_commit_kind(s), "OVERWRITE");
    pm_snapshot_free(s);
    char *text = api_read_table(t, NULL);
    assert_non_null(strstr(text, "\"id\":10"));
    assert_non_null(strstr(text, "\"id\":2"));
    assert_null(strstr(text, "\"id\":1,"));
    free(text);
    /* partitions without overwrite, and a bad spec */
    ow.overwrite = false;
    PM_EXPECT_ERR(pm_writer_new(&w, t, &ow), PM_EINVALID);
    const char *bad_parts[] = {"no-equals"};
    ow.overwrite = true;
    ow.overwrite_partitions = bad_parts;
    PM_EXPECT_ERR(pm_writer_new(&w, t, &ow), PM_EINVALID);
    pm_table_free(t);
    free(path);
}

static size_t count_files(const char *d)
{
    DIR *dd = opendir(d);
    size_t n = 0;
    if (!dd)
        return 0;
    for (struct dirent *e; (e = readdir(dd));)
        n += e->d_name[0] != '.';
    closedir(dd);
    return n;
}

static void test_messages_merge_abort(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/msgs");
    api_create(path, "id INT", NULL, NULL, NULL, 0);
    pm_table *t = open_table(path);
    pm_writer *w1 = NULL, *w2 = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w1, t, NULL));
    PM_OK_OR_FAIL(pm_writer_new(&w2, t, NULL));
    const char *r1 = "{\"id\":1}\n", *r2 = "{\"id\":2}\n{\"id\":3}\n";
    pm_mem_source s1 = {r1, strlen(r1), 0, 0}, s2 = {r2, strlen(r2), 0, 0};
    PM_OK_OR_FAIL(pm_writer_write_rows(w1, PM_ROWS_JSONL, pm_mem_source_read, &s1));
    PM_OK_OR_FAIL(pm_writer_write_rows(w2, PM_ROWS_JSONL, pm_mem_source_read, &s2));
    pm_commit_messages *m1 = NULL, *m2 = NULL;
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m1, w1));
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m2, w2));
    PM_OK_OR_FAIL(pm_commit_messages_merge(m1, m2));
    assert_int_equal(pm_commit_messages_row_count(m1), 3);
    assert_int_equal(pm_commit_messages_file_count(m1), 2);
    char *bucket = api_path(path, "bucket-0");
    assert_int_equal(count_files(bucket), 2);
    PM_OK_OR_FAIL(pm_commit_messages_abort(t, m1));
    assert_int_equal(count_files(bucket), 0);
    pm_commit_messages_free(m1);
    /* a writer aborted before prepare leaves nothing either */
    PM_OK_OR_FAIL(pm_writer_write_rows(w1, PM_ROWS_JSONL, pm_mem_source_read, &(pm_mem_source){r1, strlen(r1), 0, 0}));
    pm_writer_abort(w1);
    assert_int_equal(count_files(bucket), 0);
    pm_writer_free(w2);
    int64_t *ids = NULL;
    size_t n = 9;
    PM_OK_OR_FAIL(pm_table_snapshot_ids(&ids, &n, t));
    assert_int_equal(n, 0);
    pm_free(ids);
    free(bucket);
    pm_table_free(t);
    free(path);
}

static void test_automatic_compaction_reported(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/auto");
    const char *opts[] = {"bucket=1", "bucket-key=id", "compaction.min.file-num=3"};
    api_create(path, "id INT, v STRING", NULL, NULL, opts, 3);
    pm_table *t = open_table(path);
    pm_commit_outcome out;
    for (int i = 0; i < 2; i++) {
        out = api_write_json(t, "{\"id\":1,\"v\":\"x\"}\n", NULL);
        assert_int_equal(out.compaction.snapshot_id, 0);
    }
    out = api_write_json(t, "{\"id\":2,\"v\":\"y\"}\n", NULL);
    assert_int_equal(out.snapshot_id, 3);
    assert_int_equal(out.compaction.snapshot_id, 4);
    assert_int_equal(out.compaction.files_removed, 3);
    assert_int_equal(out.compaction.files_added, 1);
    assert_int_equal(out.compaction.rows_written, 3);
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_table_snapshot(&s, t, 0));
    assert_string_equal(pm_snapshot_commit_kind(s), "COMPACT");
    pm_snapshot_free(s);
    pm_table_free(t);
    free(path);
}

static void test_primary_key_row_kinds(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/pk");
    const char *opts[] = {"bucket=1"};
    api_create(path, "id INT, v STRING", NULL, "id", opts, 1);
    pm_table *t = open_table(path);
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, NULL));
    const pm_type *it = pm_writer_input_type(w);
    assert_int_equal(it->nfields, 3);
    assert_string_equal(it->fields[2].name, "_ROW_KIND");
    pm_writer_free(w);
    (void)api_write_json(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n", NULL);
    (void)api_write_json(t, "{\"id\":1,\"v\":\"c\"}\n{\"id\":2,\"_ROW_KIND\":\"-D\"}\n", NULL);
    char *text = api_read_table(t, NULL);
    assert_string_equal(text, "{\"id\":1,\"v\":\"c\"}\n");
    free(text);
    pm_table_free(t);
    free(path);
}

static void test_arrow_in_and_out(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/arrow");
    api_create(path, "id BIGINT, s STRING", NULL, NULL, NULL, 0);
    pm_table *t = open_table(path);
    /* build a batch through the rows reader, export it, write it as Arrow */
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<id BIGINT, s STRING>"));
    const char *rows = "{\"id\":5,\"s\":\"five\"}\n{\"id\":6}\n";
    pm_mem_source src = {rows, strlen(rows), 0, 0};
    pm_rows_reader *rr = NULL;
    PM_OK_OR_FAIL(pm_rows_reader_new(&rr, PM_ROWS_JSONL, rt, pm_mem_source_read, &src, 0));
    const pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_rows_reader_next(&b, rr));
    struct ArrowSchema as;
    struct ArrowArray aa;
    PM_OK_OR_FAIL(pm_batch_export(b, &as, &aa));
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, NULL));
    PM_OK_OR_FAIL(pm_writer_write_arrow(w, &as, &aa));
    /* and once more, moved in (zero copy; the writer releases it) */
    struct ArrowSchema ms;
    struct ArrowArray ma;
    PM_OK_OR_FAIL(pm_batch_export(b, &ms, &ma));
    PM_OK_OR_FAIL(pm_writer_write_arrow_move(w, &ms, &ma));
    assert_null(ma.release);
    ms.release(&ms);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_writer_commit(&out, w));
    assert_int_equal(out.rows, 4);
    pm_writer_free(w);
    aa.release(&aa);
    as.release(&as);
    pm_rows_reader_free(rr);
    pm_type_free(rt);
    /* read back through an Arrow C stream, and write that stream again */
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_read(&r, t, NULL));
    struct ArrowArrayStream st;
    PM_OK_OR_FAIL(pm_reader_to_arrow_stream(&st, r));
    struct ArrowSchema ss;
    assert_int_equal(st.get_schema(&st, &ss), 0);
    assert_string_equal(ss.format, "+s");
    assert_int_equal(ss.n_children, 2);
    ss.release(&ss);
    pm_writer *w2 = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w2, t, NULL));
    PM_OK_OR_FAIL(pm_writer_write_arrow_stream(w2, &st)); /* releases the stream */
    assert_null(st.release);
    PM_OK_OR_FAIL(pm_writer_commit(&out, w2));
    assert_int_equal(out.rows, 4);
    pm_writer_free(w2);
    char *text = api_read_table(t, NULL);
    assert_int_equal(api_count_lines(text), 8);
    free(text);
    /* an Arrow array of the wrong shape is refused */
    struct ArrowSchema bad = {0};
    bad.format = "i";
    PM_OK_OR_FAIL(pm_writer_new(&w2, t, NULL));
    PM_EXPECT_ERR(pm_writer_write_arrow(w2, &bad, &aa), PM_EINVALID);
    pm_writer_abort(w2);
    pm_table_free(t);
    free(path);
}

static void test_stream_errors_and_end(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/stream");
    api_create(path, "id INT", NULL, NULL, NULL, 0);
    pm_table *t = open_table(path);
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_read(&r, t, NULL));
    struct ArrowArrayStream st;
    PM_OK_OR_FAIL(pm_reader_to_arrow_stream(&st, r));
    struct ArrowArray a;
    assert_int_equal(st.get_next(&st, &a), 0);
    assert_null(a.release); /* empty table: the end at once */
    st.release(&st);
    PM_EXPECT_ERR(pm_reader_to_arrow_stream(NULL, NULL), PM_EINVALID);
    pm_table_free(t);
    free(path);
}

static void test_split_and_message_json(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/json"), *other = api_path(dir, "db.db/json2");
    const char *opts[] = {"write-only=true"};
    api_create(path, "id INT, dt STRING", "dt", NULL, opts, 1);
    api_create(other, "id INT, dt STRING", "dt", NULL, opts, 1);
    pm_table *t = open_table(path), *t2 = open_table(other);
    /* messages written here, shipped as JSON, committed "elsewhere" */
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, NULL));
    const char *rows = "{\"id\":1,\"dt\":\"a\"}\n{\"id\":2,\"dt\":\"b\"}\n";
    pm_mem_source src = {rows, strlen(rows), 0, 0};
    PM_OK_OR_FAIL(pm_writer_write_rows(w, PM_ROWS_JSONL, pm_mem_source_read, &src));
    pm_commit_messages *m = NULL;
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m, w));
    pm_writer_free(w);
    char *json = NULL;
    PM_OK_OR_FAIL(pm_commit_messages_to_json(&json, m));
    pm_commit_messages_free(m);
    pm_commit_messages *back = NULL;
    PM_OK_OR_FAIL(pm_commit_messages_from_json(&back, json, strlen(json)));
    assert_int_equal(pm_commit_messages_file_count(back), 2);
    assert_int_equal(pm_commit_messages_row_count(back), 2);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_EXPECT_ERR(pm_commit(&out, t2, back, NULL), PM_EINVALID); /* another table's files */
    PM_OK_OR_FAIL(pm_commit(&out, t, back, NULL));
    assert_int_equal(out.snapshot_id, 1);
    pm_commit_messages_free(back);
    /* hostile messages: a path for a name, unknown keys */
    char *bad = strdup(json);
    char *name = strstr(bad, "\"file_name\":\"");
    assert_non_null(name);
    memcpy(name + 13, "../", 3);
    PM_EXPECT_ERR(pm_commit_messages_from_json(&back, bad, strlen(bad)), PM_EINVALID);
    free(bad);
    PM_EXPECT_ERR(pm_commit_messages_from_json(&back, "{\"format\":1}", 12), PM_EINVALID);
    PM_EXPECT_ERR(pm_commit_messages_from_json(&back, "", 0), PM_EINVALID);
    pm_free(json);

    /* a split through JSON reads the same rows */
    pm_scan *s = NULL;
    PM_OK_OR_FAIL(pm_scan_new(&s, t, NULL));
    assert_int_equal(pm_scan_split_count(s), 2);
    PM_OK_OR_FAIL(pm_split_to_json(&json, pm_scan_split(s, 1)));
    pm_split *sp = NULL;
    PM_OK_OR_FAIL(pm_split_from_json(&sp, json, strlen(json)));
    assert_string_equal(pm_split_partition(sp), "dt=b");
    assert_int_equal(pm_split_row_count(sp), 1);
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_reader_new(&r, t, (const pm_split *const *)&sp, 1, NULL));
    char *text = api_read_all(r);
    assert_string_equal(text, "{\"id\":2,\"dt\":\"b\"}\n");
    free(text);
    pm_reader_free(r);
    PM_EXPECT_ERR(pm_reader_new(&r, t2, (const pm_split *const *)&sp, 1, NULL), PM_EINVALID);
    pm_split_free(sp);
    bad = strdup(json);
    name = strstr(bad, "\"file_name\":\"");
    memcpy(name + 13, "/tm", 3);
    PM_EXPECT_ERR(pm_split_from_json(&sp, bad, strlen(bad)), PM_EINVALID);
    free(bad);
    pm_free(json);
    pm_scan_free(s);
    pm_table_free(t);
    pm_table_free(t2);
    free(path);
    free(other);
}

/* Splits of Java-written tables with deletion vectors (external paths
 * too) read the same rows after a JSON round trip: the reader rebuilds the
 * vectors from the split's index files. */
static void test_split_json_deletion_vectors(void **state)
{
    (void)state;
    const char *tables[] = {"pk_table_scan_and_read_dv", "pk_dv_index_in_data_no_external",
                            "pk_dv_index_not_in_data_no_external"};
    for (size_t k = 0; k < sizeof tables / sizeof *tables; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/java-written/parquet/%s.db/%s", PM_FIXTURES_DIR, tables[k], tables[k]);
        pm_table *t = open_table(path);
        char *direct = api_read_table(t, NULL);
        pm_scan *s = NULL;
        PM_OK_OR_FAIL(pm_scan_new(&s, t, NULL));
        size_t n = pm_scan_split_count(s);
        assert_true(n > 0);
        pm_split **parsed = calloc(n, sizeof *parsed);
        for (size_t i = 0; i < n; i++) {
            char *json = NULL;
            PM_OK_OR_FAIL(pm_split_to_json(&json, pm_scan_split(s, i)));
            PM_OK_OR_FAIL(pm_split_from_json(&parsed[i], json, strlen(json)));
            pm_free(json);
        }
        pm_reader *r = NULL;
        PM_OK_OR_FAIL(pm_reader_new(&r, t, (const pm_split *const *)parsed, n, NULL));
        char *via_json = api_read_all(r);
        assert_string_equal(via_json, direct);
        assert_true(strlen(direct) > 0);
        free(via_json);
        free(direct);
        pm_reader_free(r);
        for (size_t i = 0; i < n; i++)
            pm_split_free(parsed[i]);
        free(parsed);
        pm_scan_free(s);
        pm_table_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_commit_read),
        cmocka_unit_test(test_splits_of_another_table),
        cmocka_unit_test(test_idempotent_commit_and_overwrite),
        cmocka_unit_test(test_messages_merge_abort),
        cmocka_unit_test(test_automatic_compaction_reported),
        cmocka_unit_test(test_primary_key_row_kinds),
        cmocka_unit_test(test_arrow_in_and_out),
        cmocka_unit_test(test_stream_errors_and_end),
        cmocka_unit_test(test_split_and_message_json),
        cmocka_unit_test(test_split_json_deletion_vectors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
