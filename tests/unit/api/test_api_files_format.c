/*
 * tests/unit/api/test_api_files_format.c — paimon/files.h, paimon/rows.h
 * and paimon/format.h through the public headers only: the $files and
 * levels views and their JSON, the text rows reader/writer (JSON lines,
 * CSV quoting, errors with line numbers), and single Parquet/Avro files
 * (round trip, projection, atomic publication, option checks, footer JSON).
 */
#include <sys/stat.h>

#include "api_test_util.h"
#include "paimon/files.h"
#include "paimon/format.h"

static void test_files_view(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/files");
    const char *opts[] = {"write-only=true"};
    api_create(path, "id INT, dt STRING", "dt", NULL, opts, 1);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    pm_file_list *l = NULL;
    PM_OK_OR_FAIL(pm_table_files(&l, t, NULL));
    assert_int_equal(pm_file_list_snapshot_id(l), 0);
    assert_int_equal(pm_file_list_count(l), 0);
    char *json = NULL;
    PM_OK_OR_FAIL(pm_file_list_to_json(&json, l));
    assert_string_equal(json, "[]");
    pm_free(json);
    pm_file_list_free(l);
    (void)api_write_json(t, "{\"id\":1,\"dt\":\"a\"}\n{\"id\":2,\"dt\":\"b\"}\n", NULL);
    (void)api_write_json(t, "{\"id\":3,\"dt\":\"a\"}\n", NULL);
    PM_OK_OR_FAIL(pm_table_files(&l, t, NULL));
    assert_int_equal(pm_file_list_snapshot_id(l), 2);
    assert_int_equal(pm_file_list_count(l), 3);
    const pm_file_info *f = pm_file_list_get(l, 0);
    assert_string_equal(f->partition, "dt=a");
    assert_int_equal(f->bucket, 0);
    assert_string_equal(f->format, "parquet");
    assert_int_equal(f->record_count, 1);
    assert_int_equal(f->level, 0);
    assert_string_equal(f->file_source, "APPEND");
    assert_non_null(f->creation_time);
    assert_null(f->min_key); /* append table */
    assert_false(f->has_deletion_vector);
    assert_non_null(strstr(f->path, "/dt=a/bucket-0/"));
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_size, f->file_size);
    assert_null(pm_file_list_get(l, 3));
    PM_OK_OR_FAIL(pm_file_list_to_json(&json, l));
    assert_non_null(strstr(json, "\"file_format\":\"parquet\""));
    assert_non_null(strstr(json, "\"deleted_rows\":0"));
    pm_free(json);
    pm_file_list_free(l);
    /* snapshot and partition filter */
    pm_read_options o = PM_READ_OPTIONS_INIT;
    const char *parts[] = {"dt=b"};
    o.snapshot_id = 1;
    o.partitions = parts;
    o.npartitions = 1;
    PM_OK_OR_FAIL(pm_table_files(&l, t, &o));
    assert_int_equal(pm_file_list_count(l), 1);
    assert_string_equal(pm_file_list_get(l, 0)->partition, "dt=b");
    pm_file_list_free(l);
    o.snapshot_id = 9;
    PM_EXPECT_ERR(pm_table_files(&l, t, &o), PM_ENOTFOUND);
    /* levels are for primary-key tables */
    pm_level_list *lv = NULL;
    PM_EXPECT_ERR(pm_table_levels(&lv, t, NULL), PM_EINVALID);
    pm_table_free(t);
    free(path);
}

static void test_levels_view(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/levels");
    const char *opts[] = {"bucket=1", "write-only=true"};
    api_create(path, "id INT, v STRING", NULL, "id", opts, 2);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    (void)api_write_json(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":5,\"v\":\"b\"}\n", NULL);
    (void)api_write_json(t, "{\"id\":3,\"v\":\"c\"}\n", NULL);
    pm_level_list *l = NULL;
    PM_OK_OR_FAIL(pm_table_levels(&l, t, NULL));
    assert_int_equal(pm_level_list_snapshot_id(l), 2);
    assert_int_equal(pm_level_list_count(l), 1);
    const pm_bucket_levels *b = pm_level_list_get(l, 0);
    assert_null(pm_level_list_get(l, 1));
    assert_string_equal(b->partition, "");
    assert_int_equal(b->bucket, 0);
    assert_null(b->error);
    assert_int_equal(b->nfiles, 2);
    assert_int_equal(b->record_count, 3);
    assert_int_equal(b->nruns, 2);
    /* level-0 runs newest first */
    assert_int_equal(b->runs[0].level, 0);
    assert_int_equal(b->runs[0].record_count, 1);
    assert_string_equal(b->runs[0].min_key, "[3]");
    assert_string_equal(b->runs[1].min_key, "[1]");
    assert_string_equal(b->runs[1].max_key, "[5]");
    assert_int_equal(b->runs[1].nfiles, 1);
    assert_non_null(b->runs[1].files[0]);
    assert_string_equal(b->runs[1].files[0]->min_key, "[1]");
    char *json = NULL;
    PM_OK_OR_FAIL(pm_level_list_to_json(&json, l));
    assert_non_null(strstr(json, "\"min_key\":[1]"));
    assert_non_null(strstr(json, "\"error\":null"));
    pm_free(json);
    pm_level_list_free(l);
    /* files of a primary-key table carry their keys */
    pm_file_list *fl = NULL;
    PM_OK_OR_FAIL(pm_table_files(&fl, t, NULL));
    assert_string_equal(pm_file_list_get(fl, 0)->max_key, "[5]");
    pm_file_list_free(fl);
    pm_table_free(t);
    free(path);
}

static void test_rows_text(void **state)
{
    (void)state;
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<a INT, s STRING, d DECIMAL(5, 2)>"));
    const char *csv = "a,s,d\n1,\"x,\"\"y\"\"\",1.5\n2,,\n3,\"\",-0.25\n";
    pm_mem_source src = {csv, strlen(csv), 0, 3};
    pm_rows_reader *r = NULL;
    PM_OK_OR_FAIL(pm_rows_reader_new(&r, PM_ROWS_CSV, rt, pm_mem_source_read, &src, 2));
    api_text out = {NULL, 0, 0};
    pm_rows_writer *w = NULL, *j = NULL;
    api_text jout = {NULL, 0, 0};
    PM_OK_OR_FAIL(pm_rows_writer_new(&w, PM_ROWS_CSV, rt, api_text_sink, &out));
    PM_OK_OR_FAIL(pm_rows_writer_new(&j, PM_ROWS_JSONL, rt, api_text_sink, &jout));
    int batches = 0;
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_rows_reader_next(&b, r));
        if (!b)
            break;
        batches++;
        assert_true(pm_batch_num_rows(b) <= 2);
        PM_OK_OR_FAIL(pm_rows_writer_write(w, b, 0, pm_batch_num_rows(b)));
        PM_OK_OR_FAIL(pm_rows_writer_write(j, b, 0, pm_batch_num_rows(b)));
        PM_EXPECT_ERR(pm_rows_writer_write(w, b, 0, pm_batch_num_rows(b) + 1), PM_EINVALID);
    }
    assert_int_equal(batches, 2);
    PM_OK_OR_FAIL(pm_rows_writer_finish(w));
    PM_OK_OR_FAIL(pm_rows_writer_finish(j));
    assert_string_equal(out.data, "a,s,d\n1,\"x,\"\"y\"\"\",1.50\n2,,\n3,\"\",-0.25\n");
    assert_string_equal(jout.data, "{\"a\":1,\"s\":\"x,\\\"y\\\"\",\"d\":\"1.50\"}\n{\"a\":2,\"s\":null,\"d\":null}\n"
                                   "{\"a\":3,\"s\":\"\",\"d\":\"-0.25\"}\n");
    free(out.data);
    free(jout.data);
    pm_rows_writer_free(w);
    pm_rows_writer_free(j);
    pm_rows_reader_free(r);
    /* errors name the line */
    const char *bad = "{\"a\":1}\n{\"a\":\"x\"}\n";
    pm_mem_source bs = {bad, strlen(bad), 0, 0};
    PM_OK_OR_FAIL(pm_rows_reader_new(&r, PM_ROWS_JSONL, rt, pm_mem_source_read, &bs, 0));
    const pm_batch *b = NULL;
    pm_error *e = pm_rows_reader_next(&b, r);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "line 2"));
    free(msg);
    pm_error_free(e);
    pm_rows_reader_free(r);
    pm_rows_format fmt;
    PM_OK_OR_FAIL(pm_rows_format_parse(&fmt, "csv"));
    assert_int_equal(fmt, PM_ROWS_CSV);
    PM_OK_OR_FAIL(pm_rows_format_parse(&fmt, "JSONL"));
    assert_int_equal(fmt, PM_ROWS_JSONL);
    PM_EXPECT_ERR(pm_rows_format_parse(&fmt, "xml"), PM_EINVALID);
    PM_EXPECT_ERR(pm_rows_reader_new(&r, PM_ROWS_CSV, rt, NULL, NULL, 0), PM_EINVALID);
    pm_type_free(rt);
}

static void roundtrip(const char *format)
{
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<a INT, s STRING, l ARRAY<BIGINT>>"));
    const char *rows = "{\"a\":1,\"s\":\"x\",\"l\":[1,2]}\n{\"a\":2,\"s\":null,\"l\":null}\n";
    pm_mem_source src = {rows, strlen(rows), 0, 0};
    pm_rows_reader *r = NULL;
    PM_OK_OR_FAIL(pm_rows_reader_new(&r, PM_ROWS_JSONL, rt, pm_mem_source_read, &src, 0));
    const pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_rows_reader_next(&b, r));
    char name[32];
    snprintf(name, sizeof name, "out.%s", format);
    char *path = api_path(dir, name);
    pm_format_options o = PM_FORMAT_OPTIONS_INIT;
    o.format = format;
    const char *k[] = {"file.compression"}, *v[] = {"snappy"};
    o.option_keys = k;
    o.option_values = v;
    o.noptions = 1;
    pm_format_writer *w = NULL;
    PM_OK_OR_FAIL(pm_format_writer_create(&w, path, rt, &o));
    PM_OK_OR_FAIL(pm_format_writer_write(w, b));
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0); /* not published before close */
    PM_OK_OR_FAIL(pm_format_writer_close(w));
    assert_int_equal(stat(path, &st), 0);
    PM_EXPECT_ERR(pm_format_writer_create(&w, path, rt, &o), PM_EEXIST);
    pm_rows_reader_free(r);
    /* read it back, projected */
    pm_format_reader *fr = NULL;
    const char *cols[] = {"s", "a"};
    pm_format_options ro;
    pm_format_options_init(&ro);
    ro.columns = cols;
    ro.ncolumns = 2;
    PM_OK_OR_FAIL(pm_format_reader_open(&fr, path, &ro));
    assert_string_equal(pm_format_reader_format(fr), format);
    assert_int_equal(pm_format_reader_type(fr)->nfields, 2);
    if (!strcmp(format, "parquet"))
        assert_int_equal(pm_format_reader_row_count(fr), 2);
    api_text out = {NULL, 0, 0};
    pm_rows_writer *tw = NULL;
    PM_OK_OR_FAIL(pm_rows_writer_new(&tw, PM_ROWS_JSONL, pm_format_reader_type(fr), api_text_sink, &out));
    for (;;) {
        const pm_batch *rb = NULL;
        PM_OK_OR_FAIL(pm_format_reader_next(&rb, fr));
        if (!rb)
            break;
        PM_OK_OR_FAIL(pm_rows_writer_write(tw, rb, 0, pm_batch_num_rows(rb)));
    }
    PM_OK_OR_FAIL(pm_rows_writer_finish(tw));
    assert_string_equal(out.data, "{\"s\":\"x\",\"a\":1}\n{\"s\":null,\"a\":2}\n");
    free(out.data);
    pm_rows_writer_free(tw);
    pm_format_reader_free(fr);
    free(path);
    pm_type_free(rt);
}

static void test_format_files(void **state)
{
    (void)state;
    roundtrip("parquet");
    roundtrip("avro");
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<a INT>"));
    char *path = api_path(dir, "x.parquet");
    pm_format_options o = PM_FORMAT_OPTIONS_INIT;
    const char *k[] = {"bucket"}, *v[] = {"1"};
    o.option_keys = k;
    o.option_values = v;
    o.noptions = 1;
    pm_format_writer *w = NULL;
    PM_EXPECT_ERR(pm_format_writer_create(&w, path, rt, &o), PM_EINVALID);
    o.noptions = 0;
    o.format = "orc";
    PM_EXPECT_ERR(pm_format_writer_create(&w, path, rt, &o), PM_EUNSUPPORTED);
    o.format = NULL;
    PM_OK_OR_FAIL(pm_format_writer_create(&w, path, rt, &o));
    pm_format_writer_abort(w);
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
    /* footer JSON */
    char *pq = api_path(dir, "out.parquet");
    char *json = NULL;
    PM_OK_OR_FAIL(pm_parquet_footer_json(&json, pq));
    assert_non_null(strstr(json, "\"codec\": \"SNAPPY\""));
    assert_non_null(strstr(json, "\"paimon_schema\""));
    pm_free(json);
    /* not a data file */
    char *junk = api_path(dir, "junk.bin");
    FILE *f = fopen(junk, "wb");
    fputs("hello world, not parquet", f);
    fclose(f);
    pm_format_reader *r = NULL;
    PM_EXPECT_ERR(pm_format_reader_open(&r, junk, NULL), PM_EUNSUPPORTED);
    f = fopen(junk, "wb");
    fclose(f);
    PM_EXPECT_ERR(pm_format_reader_open(&r, junk, NULL), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_parquet_footer_json(&json, junk), PM_ECORRUPT);
    char *missing = api_path(dir, "missing.parquet");
    PM_EXPECT_ERR(pm_format_reader_open(&r, missing, NULL), PM_ENOTFOUND);
    free(missing);
    free(junk);
    free(pq);
    free(path);
    pm_type_free(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_view),
        cmocka_unit_test(test_levels_view),
        cmocka_unit_test(test_rows_text),
        cmocka_unit_test(test_format_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
