/*
 * tests/unit/table/test_write.c — the append-table writer: routing to
 * (partition, bucket), bucket assignment, rolling by rows and size,
 * sequence numbers, DataFileMeta fields, value statistics (modes, dense
 * store, truncation), Avro data files, errors, abort.
 */
#include <math.h>
#include <sys/stat.h>

#include "types/binary_row.h"
#include "types/bucket.h"
#include "table/write_stats.h"
#include "write_test_util.h"

static void expect_empty_row(const pm_bytes *b)
{
    assert_true(b->has);
    assert_int_equal(b->len, 12);
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(b->data[i], 0);
}

static bool file_exists(pm_table *t, const char *rel_dir, const char *name)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s/%s", pm_table_path(t), rel_dir, name);
    struct stat st;
    return stat(p, &st) == 0;
}

static void test_unaware_basic(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT NOT NULL, name STRING, v DOUBLE>", NULL, NULL, 0);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    size_t n = 0;
    pm_commit_message *m = wt_write(w, t,
                                    "{\"id\":3,\"name\":\"c\",\"v\":1.5}\n"
                                    "{\"id\":1,\"name\":null,\"v\":-2}\n"
                                    "{\"id\":5,\"name\":\"abcdefghijklmnopqrstuvwxyz\",\"v\":null}\n",
                                    &n);
    assert_int_equal(n, 1);
    expect_empty_row(&m[0].partition);
    assert_int_equal(m[0].bucket, 0);
    assert_int_equal(m[0].total_buckets, -1);
    assert_int_equal(m[0].n_new_files, 1);
    const pm_data_file_meta *f = &m[0].new_files[0];
    assert_int_equal(f->row_count, 3);
    assert_int_equal(f->min_sequence_number, 0);
    assert_int_equal(f->max_sequence_number, 2);
    assert_int_equal(f->level, 0);
    assert_int_equal(f->schema_id, 0);
    assert_true(f->file_source.has);
    assert_int_equal(f->file_source.v, PM_FILE_SOURCE_APPEND);
    assert_true(f->delete_row_count.has);
    assert_int_equal(f->delete_row_count.v, 0);
    assert_true(f->creation_time.has);
    assert_int_equal(f->extra_files.count, 0);
    assert_false(f->has_value_stats_cols); /* every column kept */
    assert_null(f->external_path);
    assert_false(f->first_row_id.has);
    assert_false(f->has_write_cols);
    expect_empty_row(&f->min_key);
    expect_empty_row(&f->max_key);
    assert_int_equal(f->key_stats.null_count_len, 0);
    assert_true(strncmp(f->file_name, "data-", 5) == 0);
    assert_true(strstr(f->file_name, "-0.parquet") != NULL);
    assert_true(file_exists(t, "bucket-0", f->file_name));
    struct stat st;
    char p[2048];
    snprintf(p, sizeof p, "%s/bucket-0/%s", pm_table_path(t), f->file_name);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal((int64_t)st.st_size, f->file_size);

    /* value stats: id [1,5], name ["c", truncated max], v [-2, 1.5] */
    pm_binrow mn, mx;
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 3));
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mx, f->value_stats.max_values.data, f->value_stats.max_values.len, 3));
    assert_int_equal(pm_binrow_i64(&mn, 0), 1);
    assert_int_equal(pm_binrow_i64(&mx, 0), 5);
    const uint8_t *s;
    size_t sl;
    PM_OK_OR_FAIL(pm_binrow_bytes(&mn, 1, &s, &sl));
    assert_int_equal(sl, 16);
    assert_memory_equal(s, "abcdefghijklmnop", 16);
    PM_OK_OR_FAIL(pm_binrow_bytes(&mx, 1, &s, &sl));
    assert_int_equal(sl, 1);
    assert_memory_equal(s, "c", 1);
    assert_true(pm_binrow_f64(&mn, 2) == -2.0);
    assert_true(pm_binrow_f64(&mx, 2) == 1.5);
    assert_int_equal(f->value_stats.null_count_len, 3);
    assert_int_equal(f->value_stats.null_counts[0].v, 0);
    assert_int_equal(f->value_stats.null_counts[1].v, 1);
    assert_int_equal(f->value_stats.null_counts[2].v, 1);
    char first[256];
    snprintf(first, sizeof first, "%s", f->file_name);
    pm_commit_message_array_free(m, n);

    /* the writer is reusable: sequence numbers and file numbers continue */
    m = wt_write(w, t, "{\"id\":9}\n{\"id\":10}\n", &n);
    assert_int_equal(n, 1);
    f = &m[0].new_files[0];
    assert_int_equal(f->min_sequence_number, 3);
    assert_int_equal(f->max_sequence_number, 4);
    assert_true(strstr(f->file_name, "-1.parquet") != NULL);
    assert_memory_equal(f->file_name, first, strlen(first) - strlen("0.parquet")); /* same uuid */
    pm_commit_message_array_free(m, n);

    /* nothing written: no messages */
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    assert_int_equal(n, 0);
    assert_null(m);
    pm_table_writer_free(w);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_rolling_rows(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"target-file-row-num=3"};
    pm_table *t = wt_create(dir, "t", "ROW<id INT>", NULL, opts, 1);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_batch *b = wt_rows(t, "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n{\"id\":4}\n{\"id\":5}\n");
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    PM_OK_OR_FAIL(pm_table_writer_write(w, b)); /* 10 rows in two batches */
    pm_batch_free(b);
    size_t n = 0;
    pm_commit_message *m = NULL;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    assert_int_equal(n, 1);
    assert_int_equal(m[0].n_new_files, 4);
    int64_t expect_rows[] = {3, 3, 3, 1};
    int64_t seq = 0;
    for (size_t i = 0; i < 4; i++) {
        const pm_data_file_meta *f = &m[0].new_files[i];
        assert_int_equal(f->row_count, expect_rows[i]);
        assert_int_equal(f->min_sequence_number, seq);
        assert_int_equal(f->max_sequence_number, seq + expect_rows[i] - 1);
        seq += expect_rows[i];
        char suffix[32];
        snprintf(suffix, sizeof suffix, "-%zu.parquet", i);
        assert_true(strstr(f->file_name, suffix) != NULL);
    }
    /* stats of the third file: ids 2, 3, 4 (the batches were 1..5, 1..5) */
    const pm_data_file_meta *f = &m[0].new_files[2];
    pm_binrow mn, mx;
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 1));
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mx, f->value_stats.max_values.data, f->value_stats.max_values.len, 1));
    assert_int_equal(pm_binrow_i32(&mn, 0), 2);
    assert_int_equal(pm_binrow_i32(&mx, 0), 4);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_rolling_size(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"target-file-size=20 kb", "file.compression=none", "parquet.enable.dictionary=false"};
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT, s STRING>", NULL, opts, 3);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_buf text = PM_BUF_INIT;
    for (int i = 0; i < 6500; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&text, "{\"id\":%d,\"s\":\"row-%08d\"}\n", i * 7919 % 100003, i));
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, pm_table_schema(t)->row_type, (const char *)text.data, text.len));
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    pm_buf_free(&text);
    size_t n = 0;
    pm_commit_message *m = NULL;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    assert_int_equal(n, 1);
    /* ~20 bytes a row uncompressed: 20 kb is reached after 1000 rows, and
     * the size is only checked at every 1000th record */
    assert_true(m[0].n_new_files >= 3);
    int64_t total = 0;
    for (size_t i = 0; i < m[0].n_new_files; i++) {
        const pm_data_file_meta *f = &m[0].new_files[i];
        if (i + 1 < m[0].n_new_files) {
            assert_int_equal(f->row_count % 1000, 0);
            assert_true(f->file_size >= 20 * 1024);
        }
        assert_int_equal(f->min_sequence_number, total);
        total += f->row_count;
    }
    assert_int_equal(total, 6500);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static int32_t expected_bucket(int64_t id, int32_t nb)
{
    pm_binrow_writer bw = PM_BINROW_WRITER_INIT;
    pm_error *e = pm_binrow_writer_reset(&bw, 1);
    assert_null(e);
    pm_binrow_set_i64(&bw, 0, id);
    int32_t b = pm_bucket_default(pm_binrow_hash(&bw), nb);
    pm_binrow_writer_free(&bw);
    return b;
}

static void test_partitioned_bucketed(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=3", "bucket-key=id"};
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT NOT NULL, dt STRING, v INT>", "dt", opts, 2);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_buf text = PM_BUF_INIT;
    for (int i = 0; i < 60; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&text, "{\"id\":%d,\"dt\":%s,\"v\":%d}\n", i * 31,
                                    i % 3 == 0 ? "\"2024-01-01\"" : i % 3 == 1 ? "\"2024-01-02\"" : "null", i));
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, pm_table_schema(t)->row_type, (const char *)text.data, text.len));
    pm_buf_free(&text);
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    size_t n = 0;
    pm_commit_message *m = NULL;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    assert_true(n >= 6 && n <= 9);
    int64_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(m[i].total_buckets, 3);
        assert_true(m[i].bucket >= 0 && m[i].bucket < 3);
        pm_binrow pr;
        PM_OK_OR_FAIL(pm_binrow_deserialize(&pr, m[i].partition.data, m[i].partition.len, 1));
        char rel[256];
        if (pm_binrow_is_null(&pr, 0)) {
            snprintf(rel, sizeof rel, "dt=__DEFAULT_PARTITION__/bucket-%d", (int)m[i].bucket);
        } else {
            const uint8_t *s;
            size_t sl;
            PM_OK_OR_FAIL(pm_binrow_bytes(&pr, 0, &s, &sl));
            snprintf(rel, sizeof rel, "dt=%.*s/bucket-%d", (int)sl, (const char *)s, (int)m[i].bucket);
        }
        for (size_t k = 0; k < m[i].n_new_files; k++) {
            const pm_data_file_meta *f = &m[i].new_files[k];
            assert_true(file_exists(t, rel, f->file_name));
            rows += f->row_count;
            /* every id in the file hashes to this bucket: check the min/max ids */
            pm_binrow mn, mx;
            PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data,
                                                f->value_stats.min_values.len, 3));
            PM_OK_OR_FAIL(pm_binrow_deserialize(&mx, f->value_stats.max_values.data,
                                                f->value_stats.max_values.len, 3));
            assert_int_equal(expected_bucket(pm_binrow_i64(&mn, 0), 3), m[i].bucket);
            assert_int_equal(expected_bucket(pm_binrow_i64(&mx, 0), 3), m[i].bucket);
        }
    }
    assert_int_equal(rows, 60);
    pm_commit_message_array_free(m, n);
    pm_batch_free(b);
    pm_table_writer_free(w);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_bucket_vectors(void **state)
{
    (void)state;
    /* Java-generated hashes from the spec; bucket = abs(hash % n) */
    assert_int_equal(pm_bucket_default(243722546, 4), 2);
    assert_int_equal(pm_bucket_default(-201703277, 4), 1);
    assert_int_equal(pm_bucket_default(-2066620165, 10), 5);
    assert_int_equal(pm_bucket_default(1465514398, 3), 1465514398 % 3);
    pm_binrow_writer bw = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&bw, 1));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&bw, 0, "hello", 5));
    assert_int_equal(pm_binrow_hash(&bw), 243722546);
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&bw, 1));
    pm_binrow_set_i32(&bw, 0, 1);
    assert_int_equal(pm_binrow_hash(&bw), 1465514398);
    pm_binrow_writer_free(&bw);
}

static void test_truncate_rules(void **state)
{
    (void)state;
    pm_buf out = PM_BUF_INIT;
    bool ok;
    const char *abc = "abcdefghijklmnopqrstuvwxyz";
    PM_OK_OR_FAIL(pm_stats_truncate_string_min((const uint8_t *)abc, 26, 16, &out));
    assert_int_equal(out.len, 16);
    PM_OK_OR_FAIL(pm_stats_truncate_string_max((const uint8_t *)abc, 26, 16, &out, &ok));
    assert_true(ok);
    assert_int_equal(out.len, 16);
    assert_memory_equal(out.data, "abcdefghijklmnoq", 16);
    /* short values stay */
    PM_OK_OR_FAIL(pm_stats_truncate_string_max((const uint8_t *)"abc", 3, 16, &out, &ok));
    assert_true(ok);
    assert_int_equal(out.len, 3);
    /* code points, not bytes: 3 × "é" (2 bytes each) + "z" with n = 2 → "é" + "ê" */
    const char *e4 = "\xc3\xa9\xc3\xa9\xc3\xa9z";
    PM_OK_OR_FAIL(pm_stats_truncate_string_min((const uint8_t *)e4, 7, 2, &out));
    assert_int_equal(out.len, 4);
    PM_OK_OR_FAIL(pm_stats_truncate_string_max((const uint8_t *)e4, 7, 2, &out, &ok));
    assert_true(ok);
    assert_int_equal(out.len, 4);
    assert_memory_equal(out.data, "\xc3\xa9\xc3\xaa", 4);
    /* last code point U+10FFFF cannot grow: increment the one before */
    const char *hi = "a\xf4\x8f\xbf\xbf" "bc";
    PM_OK_OR_FAIL(pm_stats_truncate_string_max((const uint8_t *)hi, 7, 2, &out, &ok));
    assert_true(ok);
    assert_int_equal(out.len, 1);
    assert_int_equal(out.data[0], 'b');
    /* all U+10FFFF: impossible */
    const char *all = "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf";
    PM_OK_OR_FAIL(pm_stats_truncate_string_max((const uint8_t *)all, 12, 2, &out, &ok));
    assert_false(ok);
    /* U+D7FF + 1 is a surrogate: Java's encoder writes '?' */
    const char *sur = "\xed\x9f\xbf" "xyz";
    PM_OK_OR_FAIL(pm_stats_truncate_string_max((const uint8_t *)sur, 6, 1, &out, &ok));
    assert_true(ok);
    assert_int_equal(out.len, 1);
    assert_int_equal(out.data[0], '?');
    /* bytes */
    const uint8_t by[] = {0x01, 0xff, 0xff, 0x05};
    PM_OK_OR_FAIL(pm_stats_truncate_bytes_max(by, 4, 3, &out, &ok));
    assert_true(ok);
    assert_int_equal(out.len, 1);
    assert_int_equal(out.data[0], 0x02);
    const uint8_t ff[] = {0xff, 0xff, 0xff};
    PM_OK_OR_FAIL(pm_stats_truncate_bytes_max(ff, 3, 2, &out, &ok));
    assert_false(ok);
    PM_OK_OR_FAIL(pm_stats_truncate_bytes_max(ff, 3, 3, &out, &ok));
    assert_true(ok);
    assert_int_equal(out.len, 3);
    pm_buf_free(&out);
}

/* Stats of the first file for a table with these options and rows. */
static pm_commit_message *one_file(const char *dir, const char *name, const char *type, const char *const *opts,
                                   size_t nopts, const char *jsonl, size_t *n, pm_table **tout)
{
    pm_table *t = wt_create(dir, name, type, NULL, opts, nopts);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_commit_message *m = wt_write(w, t, jsonl, n);
    pm_table_writer_free(w);
    *tout = t;
    return m;
}

static void test_stats_modes_dense(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    size_t n;
    pm_table *t;
    /* per-field none → dropped from the dense row; full keeps long strings;
     * nested columns have no Parquet stats at all; BYTES has a null count
     * but, as Java 1.4.2 writes Parquet files (ParquetSimpleStatsExtractor;
     * the fixture append_complex_data and Java's write-rows in
     * tests/interop/test_table_formats.py), no min/max */
    const char *o1[] = {"metadata.stats-mode=full", "fields.b.stats-mode=none"};
    pm_commit_message *m = one_file(dir, "t1", "ROW<a STRING, b INT, c ARRAY<INT>, d BYTES>", o1, 2,
                                    "{\"a\":\"abcdefghijklmnopqrstuvwxyz\",\"b\":1,\"c\":[1],\"d\":\"AAE=\"}\n"
                                    "{\"a\":null,\"b\":2,\"c\":null,\"d\":\"/w==\"}\n",
                                    &n, &t);
    const pm_data_file_meta *f = &m[0].new_files[0];
    assert_true(f->has_value_stats_cols);
    assert_int_equal(f->value_stats_cols.count, 2);
    assert_string_equal(f->value_stats_cols.items[0], "a");
    assert_string_equal(f->value_stats_cols.items[1], "d");
    pm_binrow mn, mx;
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 2));
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mx, f->value_stats.max_values.data, f->value_stats.max_values.len, 2));
    const uint8_t *s;
    size_t sl;
    PM_OK_OR_FAIL(pm_binrow_bytes(&mx, 0, &s, &sl));
    assert_int_equal(sl, 26);
    assert_false(pm_binrow_is_null(&mn, 0));
    assert_true(pm_binrow_is_null(&mn, 1));
    assert_true(pm_binrow_is_null(&mx, 1));
    assert_int_equal(f->value_stats.null_counts[0].v, 1);
    assert_int_equal(f->value_stats.null_counts[1].v, 0);
    pm_commit_message_array_free(m, n);
    pm_table_free(t);

    /* counts: null counts only; keep-first-n: later columns none */
    const char *o2[] = {"metadata.stats-mode=counts", "metadata.stats-keep-first-n-columns=1"};
    m = one_file(dir, "t2", "ROW<a INT, b INT>", o2, 2, "{\"a\":1,\"b\":null}\n{\"a\":null,\"b\":2}\n", &n, &t);
    f = &m[0].new_files[0];
    assert_true(f->has_value_stats_cols);
    assert_int_equal(f->value_stats_cols.count, 1);
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 1));
    assert_true(pm_binrow_is_null(&mn, 0));
    assert_int_equal(f->value_stats.null_counts[0].v, 1);
    pm_commit_message_array_free(m, n);
    pm_table_free(t);

    /* none everywhere: stats disabled, empty dense row, empty column list */
    const char *o3[] = {"metadata.stats-mode=none"};
    m = one_file(dir, "t3", "ROW<a INT, b STRING>", o3, 1, "{\"a\":1,\"b\":\"x\"}\n", &n, &t);
    f = &m[0].new_files[0];
    assert_true(f->has_value_stats_cols);
    assert_int_equal(f->value_stats_cols.count, 0);
    assert_int_equal(f->value_stats.null_count_len, 0);
    expect_empty_row(&f->value_stats.min_values);
    pm_commit_message_array_free(m, n);
    pm_table_free(t);

    /* non-dense: every column present, NONE columns all null */
    const char *o4[] = {"metadata.stats-dense-store=false", "fields.b.stats-mode=none"};
    m = one_file(dir, "t4", "ROW<a INT, b INT>", o4, 2, "{\"a\":4,\"b\":5}\n", &n, &t);
    f = &m[0].new_files[0];
    assert_false(f->has_value_stats_cols);
    assert_int_equal(f->value_stats.null_count_len, 2);
    assert_true(f->value_stats.null_counts[0].has);
    assert_false(f->value_stats.null_counts[1].has);
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 2));
    assert_int_equal(pm_binrow_i32(&mn, 0), 4);
    assert_true(pm_binrow_is_null(&mn, 1));
    pm_commit_message_array_free(m, n);
    pm_table_free(t);

    /* truncate default: a max that cannot be rounded up drops min and max */
    m = one_file(dir, "t5", "ROW<a STRING>", NULL, 0,
                 "{\"a\":\"\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf"
                 "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf"
                 "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf"
                 "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\"}\n{\"a\":\"b\"}\n",
                 &n, &t);
    f = &m[0].new_files[0];
    assert_false(f->has_value_stats_cols); /* kept, with null min/max */
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 1));
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mx, f->value_stats.max_values.data, f->value_stats.max_values.len, 1));
    assert_true(pm_binrow_is_null(&mn, 0));
    assert_true(pm_binrow_is_null(&mx, 0));
    assert_int_equal(f->value_stats.null_counts[0].v, 0);
    pm_commit_message_array_free(m, n);
    pm_table_free(t);

    /* TIMESTAMP(9) (INT96): null min/max; TIMESTAMP(6): micros → millis + nanos */
    m = one_file(dir, "t6", "ROW<a TIMESTAMP(9), b TIMESTAMP(6)>", NULL, 0,
                 "{\"a\":\"2024-01-01T00:00:00.123456789\",\"b\":\"2024-01-01T00:00:00.123456\"}\n", &n, &t);
    f = &m[0].new_files[0];
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 2));
    assert_true(pm_binrow_is_null(&mn, 0));
    int64_t ms;
    int32_t ns;
    PM_OK_OR_FAIL(pm_binrow_timestamp(&mn, 1, 6, &ms, &ns));
    assert_int_equal(ms, 1704067200123LL);
    assert_int_equal(ns, 456000);
    pm_commit_message_array_free(m, n);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_avro_files(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"file.format=avro", "metadata.stats-mode=truncate(2)"};
    size_t n;
    pm_table *t;
    pm_commit_message *m = one_file(dir, "t", "ROW<a DOUBLE, s STRING, arr ARRAY<INT>>", opts, 2,
                                    "{\"a\":1.5,\"s\":\"zzz\",\"arr\":[1]}\n"
                                    "{\"a\":\"NaN\",\"s\":\"abc\",\"arr\":null}\n"
                                    "{\"a\":-0.0,\"s\":null,\"arr\":[]}\n",
                                    &n, &t);
    const pm_data_file_meta *f = &m[0].new_files[0];
    assert_true(strstr(f->file_name, ".avro") != NULL);
    assert_true(file_exists(t, "bucket-0", f->file_name));
    /* Avro collects per row: NaN is the largest double, nested columns count nulls */
    assert_false(f->has_value_stats_cols);
    pm_binrow mn, mx;
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 3));
    PM_OK_OR_FAIL(pm_binrow_deserialize(&mx, f->value_stats.max_values.data, f->value_stats.max_values.len, 3));
    assert_true(pm_binrow_f64(&mn, 0) == 0.0 && signbit(pm_binrow_f64(&mn, 0)));
    assert_true(isnan(pm_binrow_f64(&mx, 0)));
    const uint8_t *s;
    size_t sl;
    PM_OK_OR_FAIL(pm_binrow_bytes(&mn, 1, &s, &sl));
    assert_int_equal(sl, 2);
    assert_memory_equal(s, "ab", 2);
    PM_OK_OR_FAIL(pm_binrow_bytes(&mx, 1, &s, &sl));
    assert_int_equal(sl, 2);
    assert_memory_equal(s, "z{", 2);
    assert_true(pm_binrow_is_null(&mn, 2));
    assert_int_equal(f->value_stats.null_counts[1].v, 1);
    assert_int_equal(f->value_stats.null_counts[2].v, 1);
    pm_commit_message_array_free(m, n);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_errors_and_abort(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id INT NOT NULL, s STRING>", NULL, NULL, 0);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    /* unknown column */
    pm_type *other = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&other, "ROW<id INT, zz INT>"));
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, other, "{\"id\":1,\"zz\":2}\n", 16));
    PM_EXPECT_ERR(pm_table_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    pm_type_free(other);
    /* null in a NOT NULL column, wrong type */
    PM_OK_OR_FAIL(pm_type_parse(&other, "ROW<id INT, s STRING>"));
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, other, "{\"id\":null,\"s\":\"x\"}\n", 20));
    PM_EXPECT_ERR(pm_table_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    pm_type_free(other);
    PM_OK_OR_FAIL(pm_type_parse(&other, "ROW<id BIGINT, s STRING>"));
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, other, "{\"id\":1}\n", 9));
    PM_EXPECT_ERR(pm_table_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    pm_type_free(other);
    /* missing nullable column: fine; then abort removes the file */
    PM_OK_OR_FAIL(pm_type_parse(&other, "ROW<id INT NOT NULL>"));
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, other, "{\"id\":7}\n", 9));
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    pm_type_free(other);
    char bdir[1024];
    snprintf(bdir, sizeof bdir, "%s/bucket-0", pm_table_path(t));
    assert_int_equal(wt_count_files(bdir, "data-"), 1);
    pm_table_writer_abort(w);
    assert_int_equal(wt_count_files(bdir, "data-"), 0);
    pm_table_free(t);

    /* primary keys with dynamic buckets (bucket=-1, the default); orc is written */
    char path[1024];
    snprintf(path, sizeof path, "%s/db.db/pk", dir);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<id INT NOT NULL, v INT>"));
    const char *pk[] = {"id"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, pk, 1, NULL, NULL, 0, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL)); /* dynamic buckets are written (pk/test_pk_dynamic.c) */
    pm_table_writer_free(w);
    w = NULL;
    pm_table_free(t);
    const char *orc[] = {"file.format=orc"};
    t = wt_create(dir, "orc", "ROW<id INT>", NULL, orc, 1);
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL)); /* ORC data files are written */
    pm_table_writer_free(w);
    w = NULL;
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_threads(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT NOT NULL, s STRING, b BOOLEAN>", NULL, NULL, 0);
    pm_table_write_options o = {0, false, 2, NULL};
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, &o));
    /* a large batch of flat columns goes to two lanes: two files, each with
     * its own sequence numbers from 0, rows split in order */
    pm_type *rt = pm_table_schema(t)->row_type;
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_new(&b, rt));
    int64_t n = 50001;
    for (int64_t i = 0; i < n; i++) {
        char s[16];
        snprintf(s, sizeof s, "v%lld", (long long)(i % 977));
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], i));
        PM_OK_OR_FAIL(i % 3 ? pm_column_append_bytes(b->columns[1], s, strlen(s)) : pm_column_append_null(b->columns[1]));
        PM_OK_OR_FAIL(i % 5 ? pm_column_append_bool(b->columns[2], i % 2) : pm_column_append_null(b->columns[2]));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, n));
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    size_t nm = 0;
    pm_commit_message *m = NULL;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &nm));
    assert_int_equal(nm, 2);
    int64_t rows = 0, nulls = 0;
    for (size_t i = 0; i < nm; i++) {
        assert_int_equal(m[i].n_new_files, 1);
        const pm_data_file_meta *f = &m[i].new_files[0];
        assert_int_equal(f->min_sequence_number, 0);
        assert_int_equal(f->max_sequence_number, f->row_count - 1);
        pm_binrow mn, mx;
        PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->value_stats.min_values.data, f->value_stats.min_values.len, 3));
        PM_OK_OR_FAIL(pm_binrow_deserialize(&mx, f->value_stats.max_values.data, f->value_stats.max_values.len, 3));
        assert_int_equal(pm_binrow_i64(&mn, 0), rows); /* contiguous ranges, in order */
        assert_int_equal(pm_binrow_i64(&mx, 0), rows + f->row_count - 1);
        rows += f->row_count;
        nulls += f->value_stats.null_counts[1].v;
    }
    assert_int_equal(rows, n);
    assert_int_equal(nulls, (n + 2) / 3);
    pm_commit_message_array_free(m, nm);
    /* small batches stay on one lane */
    m = wt_write(w, t, "{\"id\":1}\n", &nm);
    assert_int_equal(nm, 1);
    pm_commit_message_array_free(m, nm);
    pm_table_writer_free(w);

    /* partitioned + bucketed: writers run in parallel, same routing */
    const char *opts[] = {"bucket=4", "bucket-key=id"};
    pm_table *t2 = wt_create(dir, "t2", "ROW<id BIGINT NOT NULL, s STRING, b BOOLEAN>", "b", opts, 2);
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t2, &o));
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &nm));
    rows = 0;
    for (size_t i = 0; i < nm; i++)
        for (size_t k = 0; k < m[i].n_new_files; k++)
            rows += m[i].new_files[k].row_count;
    assert_int_equal(rows, n);
    assert_int_equal(nm, 12); /* 3 partitions (true, false, null) x 4 buckets */
    pm_commit_message_array_free(m, nm);
    pm_table_writer_free(w);
    pm_batch_free(b);
    pm_table_free(t2);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unaware_basic),
        cmocka_unit_test(test_rolling_rows),
        cmocka_unit_test(test_rolling_size),
        cmocka_unit_test(test_partitioned_bucketed),
        cmocka_unit_test(test_bucket_vectors),
        cmocka_unit_test(test_truncate_rules),
        cmocka_unit_test(test_stats_modes_dense),
        cmocka_unit_test(test_avro_files),
        cmocka_unit_test(test_errors_and_abort),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests_name("table_write", tests, NULL, NULL);
}
