/*
 * tests/unit/pk/test_pk_file.c — KeyValue file layout and DataFileMeta:
 *  - the rows of a Java-written fixture file (pk_table_with_mor, snapshot
 *    1, partition p0=0/p1=0) written again by our writer give the same
 *    physical schema (names, field ids, required/optional) and the same
 *    metadata bytes: _MIN_KEY/_MAX_KEY, _KEY_STATS (all mode), _VALUE_STATS
 *    (no _VALUE_STATS_COLS), sequence numbers, delete count, level;
 *  - KV type of a schema (trimmed key, ids, NOT NULL);
 *  - rolling by target-file-row-num (key ranges per file), file.format.per.level
 *    (Avro at level 0), changelog files (prefix, FileSource APPEND);
 *  - pk_file_writer checks its input type and refuses thin mode.
 */
#include <string.h>

#include "format/parquet/parquet_reader.h"
#include "pk_test_util.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/pk_file_writer.h"

static void assert_bytes_equal(const pm_bytes *a, const pm_bytes *b)
{
    assert_int_equal(a->len, b->len);
    if (a->len)
        assert_memory_equal(a->data, b->data, a->len);
}

static void assert_stats_equal(const pm_simple_stats *a, const pm_simple_stats *b)
{
    assert_bytes_equal(&a->min_values, &b->min_values);
    assert_bytes_equal(&a->max_values, &b->max_values);
    assert_int_equal(a->has_null_counts, b->has_null_counts);
    assert_int_equal(a->null_count_len, b->null_count_len);
    for (size_t i = 0; i < a->null_count_len; i++) {
        assert_int_equal(a->null_counts[i].has, b->null_counts[i].has);
        assert_int_equal(a->null_counts[i].v, b->null_counts[i].v);
    }
}

static const pm_data_file_meta *find_file(const pm_scan_result *s, const char *name, const pm_bucket_files **bf)
{
    for (size_t i = 0; i < s->nbuckets; i++)
        for (size_t j = 0; j < s->buckets[i].nfiles; j++)
            if (!strcmp(s->buckets[i].files[j].file_name, name)) {
                *bf = &s->buckets[i];
                return &s->buckets[i].files[j];
            }
    return NULL;
}

static pm_pq_reader *open_parquet(pm_table *t, const pm_bucket_files *b, const pm_data_file_meta *f, pm_input **in)
{
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, b->partition.data, b->partition.len, b->bucket, &dir));
    char *path = pm_path_join(dir, f->file_name);
    free(dir);
    PM_OK_OR_FAIL(pm_input_open(t->fio, path, in));
    free(path);
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    pm_pq_reader *r = NULL;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r, *in, &o));
    return r;
}

static void test_matches_fixture(void **state)
{
    (void)state;
    pm_table *java = NULL;
    PM_OK_OR_FAIL(pm_table_open(&java, PM_FIXTURES_DIR "/java-written/parquet/pk_table_with_mor.db/pk_table_with_mor",
                                NULL));
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = 1;
    pm_scan_result *js = NULL;
    PM_OK_OR_FAIL(pm_table_scan(java, &so, &js));
    const pm_bucket_files *jb = NULL;
    const pm_data_file_meta *jf = find_file(js, "data-c80ccf0f-6387-4cbc-8889-ade8cef54c43-0.parquet", &jb);
    assert_non_null(jf);

    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "file.format=parquet", "sequence.field=s0,s1"};
    pm_table *t = pk_create(dir, "mor",
                            "ROW<k0 INT NOT NULL, k1 INT NOT NULL, p0 INT NOT NULL, p1 INT NOT NULL, s0 STRING, "
                            "s1 STRING, v0 DOUBLE, v1 BOOLEAN>",
                            "p0,p1", "k0,k1,p0,p1", opts, 3);
    pk_commit_rows(t, "{\"k0\":0,\"k1\":0,\"p0\":0,\"p1\":0,\"s0\":\"apple\",\"s1\":\"see\",\"v0\":10.0,\"v1\":true}\n"
                      "{\"k0\":0,\"k1\":1,\"p0\":0,\"p1\":0,\"s0\":\"banana\",\"s1\":\"you\",\"v0\":11.1,\"v1\":false}\n"
                      "{\"k0\":1,\"k1\":0,\"p0\":0,\"p1\":0,\"s0\":\"car\",\"s1\":\"later\",\"v0\":12.2,\"v1\":true}\n"
                      "{\"k0\":1,\"k1\":1,\"p0\":0,\"p1\":0,\"s0\":\"driver\",\"s1\":\"!\",\"v0\":13.3,\"v1\":false}\n");
    pm_scan_result *os = NULL;
    so.snapshot_id = 0;
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &os));
    assert_int_equal(os->nbuckets, 1);
    const pm_bucket_files *ob = &os->buckets[0];
    assert_int_equal(ob->nfiles, 1);
    const pm_data_file_meta *of = &ob->files[0];
    assert_bytes_equal(&ob->partition, &jb->partition);
    assert_int_equal(of->row_count, jf->row_count);
    assert_bytes_equal(&of->min_key, &jf->min_key);
    assert_bytes_equal(&of->max_key, &jf->max_key);
    assert_stats_equal(&of->key_stats, &jf->key_stats);
    assert_stats_equal(&of->value_stats, &jf->value_stats);
    assert_int_equal(of->has_value_stats_cols, jf->has_value_stats_cols);
    assert_int_equal(of->min_sequence_number, jf->min_sequence_number);
    assert_int_equal(of->max_sequence_number, jf->max_sequence_number);
    assert_int_equal(of->level, 0);
    assert_int_equal(of->delete_row_count.has, true);
    assert_int_equal(of->delete_row_count.v, 0);
    assert_int_equal(of->file_source.v, PM_FILE_SOURCE_APPEND);
    assert_int_equal(of->schema_id, 0);
    assert_int_equal(of->extra_files.count, 0);
    assert_null(of->external_path);
    assert_false(of->first_row_id.has);
    assert_false(of->has_write_cols);

    /* the physical schemas agree field by field */
    pm_input *ji = NULL, *oi = NULL;
    pm_pq_reader *jr = open_parquet(java, jb, jf, &ji);
    pm_pq_reader *orr = open_parquet(t, ob, of, &oi);
    const pm_type *jt = pm_pq_reader_schema(jr), *ot = pm_pq_reader_schema(orr);
    assert_int_equal(jt->nfields, ot->nfields);
    for (size_t i = 0; i < jt->nfields; i++) {
        assert_string_equal(jt->fields[i].name, ot->fields[i].name);
        assert_int_equal(jt->fields[i].id, ot->fields[i].id);
        assert_int_equal(jt->fields[i].type->id, ot->fields[i].type->id);
        assert_int_equal(jt->fields[i].type->nullable, ot->fields[i].type->nullable);
    }
    /* and the rows */
    pm_batch *jbat = NULL, *obat = NULL;
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(jr, &jbat));
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
    for (int64_t i = 0; i < jbat->num_rows; i++)
        PM_OK_OR_FAIL(pm_batch_format_row_json(jbat, i, &a));
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(orr, &obat));
    for (int64_t i = 0; i < obat->num_rows; i++)
        PM_OK_OR_FAIL(pm_batch_format_row_json(obat, i, &b));
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    pm_buf_free(&a);
    pm_buf_free(&b);
    pm_pq_reader_free(jr);
    pm_pq_reader_free(orr);
    pm_input_close(ji);
    pm_input_close(oi);
    pm_scan_result_free(os);
    pm_scan_result_free(js);
    pm_table_free(java);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* String keys (with a long value), a bucket key, two partitions: every
 * file of snapshot 1 of pk_table_scan_and_read_dv, written again. */
static void test_matches_fixture_string_keys(void **state)
{
    (void)state;
    pm_table *java = NULL;
    PM_OK_OR_FAIL(pm_table_open(
        &java, PM_FIXTURES_DIR "/java-written/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv", NULL));
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = 1;
    pm_scan_result *js = NULL;
    PM_OK_OR_FAIL(pm_table_scan(java, &so, &js));
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=2", "bucket-key=f2", "file.format=parquet", "deletion-vectors.enabled=true"};
    pm_table *t = pk_create(dir, "dv", "ROW<f0 STRING NOT NULL, f1 INT NOT NULL, f2 INT NOT NULL, f3 DOUBLE>", "f1",
                            "f0,f1,f2", opts, 4);
    pk_commit_rows(t, "{\"f0\":\"Two roads diverged in a wood, and I took the one less traveled by, And that has made "
                      "all the difference.\",\"f1\":10,\"f2\":1,\"f3\":11.0}\n"
                      "{\"f0\":\"Alice\",\"f1\":10,\"f2\":1,\"f3\":11.1}\n"
                      "{\"f0\":\"Bob\",\"f1\":10,\"f2\":0,\"f3\":12.1}\n"
                      "{\"f0\":\"Emily\",\"f1\":10,\"f2\":0,\"f3\":13.1}\n"
                      "{\"f0\":\"Tony\",\"f1\":10,\"f2\":0,\"f3\":14.1}\n"
                      "{\"f0\":\"Alex\",\"f1\":10,\"f2\":0,\"f3\":16.1}\n"
                      "{\"f0\":\"David\",\"f1\":10,\"f2\":0,\"f3\":17.1}\n"
                      "{\"f0\":\"Lucy\",\"f1\":20,\"f2\":1,\"f3\":14.1}\n"
                      "{\"f0\":\"Paul\",\"f1\":20,\"f2\":1,\"f3\":18.1}\n");
    pm_scan_result *os = NULL;
    so.snapshot_id = 0;
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &os));
    assert_int_equal(os->nbuckets, js->nbuckets);
    assert_int_equal(os->nbuckets, 3);
    for (size_t i = 0; i < js->nbuckets; i++) {
        const pm_bucket_files *jb = &js->buckets[i], *ob = NULL;
        for (size_t k = 0; k < os->nbuckets; k++)
            if (os->buckets[k].bucket == jb->bucket && os->buckets[k].partition.len == jb->partition.len &&
                !memcmp(os->buckets[k].partition.data, jb->partition.data, jb->partition.len))
                ob = &os->buckets[k];
        assert_non_null(ob); /* same (partition, bucket) */
        assert_int_equal(ob->nfiles, 1);
        assert_int_equal(jb->nfiles, 1);
        const pm_data_file_meta *jf = &jb->files[0], *of = &ob->files[0];
        assert_int_equal(of->row_count, jf->row_count);
        assert_bytes_equal(&of->min_key, &jf->min_key);
        assert_bytes_equal(&of->max_key, &jf->max_key);
        assert_stats_equal(&of->key_stats, &jf->key_stats);
        assert_stats_equal(&of->value_stats, &jf->value_stats);
        assert_int_equal(of->min_sequence_number, jf->min_sequence_number);
        assert_int_equal(of->max_sequence_number, jf->max_sequence_number);
        assert_int_equal(of->delete_row_count.v, jf->delete_row_count.v);
        assert_int_equal(of->level, jf->level);
        assert_int_equal(of->file_source.v, jf->file_source.v);
    }
    pm_scan_result_free(os);
    pm_scan_result_free(js);
    pm_table_free(java);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_kv_type(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=2"};
    pm_table *t = pk_create(dir, "kv", "ROW<dt STRING, id BIGINT, name STRING, v DECIMAL(20,2)>", "dt", "dt,name,id",
                            opts, 1);
    pm_type *kv = NULL;
    size_t nkey = 0;
    PM_OK_OR_FAIL(pm_pk_kv_type(pm_table_schema(t), &kv, &nkey));
    char *s = pm_type_to_string(kv);
    assert_string_equal(s, "ROW<_KEY_name STRING NOT NULL, _KEY_id BIGINT NOT NULL, _SEQUENCE_NUMBER BIGINT NOT NULL, "
                           "_VALUE_KIND TINYINT NOT NULL, dt STRING NOT NULL, id BIGINT NOT NULL, name STRING NOT NULL, "
                           "v DECIMAL(20, 2)> NOT NULL");
    free(s);
    assert_int_equal(nkey, 2);
    assert_int_equal(kv->fields[0].id, 2 + 1073741823);
    assert_int_equal(kv->fields[1].id, 1 + 1073741823);
    assert_int_equal(kv->fields[2].id, 2147483646);
    assert_int_equal(kv->fields[3].id, 2147483645);
    assert_int_equal(kv->fields[4].id, 0);
    pm_type_free(kv);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Rolling by row count: 10 keys, 3 rows per file → 4 files whose key
 * ranges follow the sorted keys; the delete count is per file. */
static void test_rolling_and_meta(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "target-file-row-num=3"};
    pm_table *t = pk_create(dir, "roll", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    pm_buf in = PM_BUF_INIT;
    for (int i = 9; i >= 0; i--)
        PM_OK_OR_FAIL(pm_buf_printf(&in, "{\"id\":%d,\"v\":\"x%d\",\"_ROW_KIND\":\"%s\"}\n", i, i,
                                    i % 4 == 0 ? "-D" : "+I"));
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&in, &text));
    pk_commit_rows(t, text);
    pm_buf_free(&in);
    pm_scan_result *s = NULL;
    const pm_bucket_files *b = pk_bucket(t, 0, &s);
    assert_non_null(b);
    assert_int_equal(b->nfiles, 4);
    int64_t rows = 0, deletes = 0;
    for (size_t i = 0; i < b->nfiles; i++) {
        const pm_data_file_meta *f = &b->files[i];
        rows += f->row_count;
        deletes += f->delete_row_count.v;
        pm_binrow mn, mx;
        PM_OK_OR_FAIL(pm_binrow_deserialize(&mn, f->min_key.data, f->min_key.len, 1));
        PM_OK_OR_FAIL(pm_binrow_deserialize(&mx, f->max_key.data, f->max_key.len, 1));
        int32_t lo = pm_binrow_i32(&mn, 0), hi = pm_binrow_i32(&mx, 0);
        assert_int_equal(hi - lo + 1, f->row_count);
        assert_int_equal(lo % 3, 0);
        /* the key stats hold the same range (all mode: one entry) */
        pm_binrow kmin, kmax;
        PM_OK_OR_FAIL(pm_binrow_deserialize(&kmin, f->key_stats.min_values.data, f->key_stats.min_values.len, 1));
        PM_OK_OR_FAIL(pm_binrow_deserialize(&kmax, f->key_stats.max_values.data, f->key_stats.max_values.len, 1));
        assert_int_equal(pm_binrow_i32(&kmin, 0), lo);
        assert_int_equal(pm_binrow_i32(&kmax, 0), hi);
        /* sequence numbers: row i arrived as the (9 - i)-th */
        assert_int_equal(f->min_sequence_number, 9 - hi);
        assert_int_equal(f->max_sequence_number, 9 - lo);
    }
    assert_int_equal(rows, 10);
    assert_int_equal(deletes, 3); /* keys 0, 4, 8 */
    pm_scan_result_free(s);
    PK_EXPECT_ROWS(t, 0,
                   "{\"id\":1,\"v\":\"x1\"}\n{\"id\":2,\"v\":\"x2\"}\n{\"id\":3,\"v\":\"x3\"}\n{\"id\":5,\"v\":\"x5\"}\n"
                   "{\"id\":6,\"v\":\"x6\"}\n{\"id\":7,\"v\":\"x7\"}\n{\"id\":9,\"v\":\"x9\"}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* file.format.per.level: level-0 files in Avro; the table reads the same. */
static void test_format_per_level(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "file.format.per.level=0:avro", "metadata.stats-mode.per.level=0:none"};
    pm_table *t = pk_create(dir, "avro", "ROW<id INT NOT NULL, v STRING, d DOUBLE>", NULL, "id", opts, 3);
    pk_commit_rows(t, "{\"id\":2,\"v\":\"b\",\"d\":2.5}\n{\"id\":1,\"v\":\"a\",\"d\":null}\n");
    pk_commit_rows(t, "{\"id\":2,\"v\":\"b2\",\"d\":3.5}\n");
    pm_scan_result *s = NULL;
    const pm_bucket_files *b = pk_bucket(t, 0, &s);
    assert_int_equal(b->nfiles, 2);
    for (size_t i = 0; i < b->nfiles; i++) {
        const char *n = b->files[i].file_name;
        assert_string_equal(n + strlen(n) - 5, ".avro");
        /* value stats none: dense store keeps no column */
        assert_true(b->files[i].has_value_stats_cols);
        assert_int_equal(b->files[i].value_stats_cols.count, 0);
        /* key stats are never none */
        assert_int_equal(b->files[i].key_stats.null_count_len, 1);
    }
    pm_scan_result_free(s);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"a\",\"d\":null}\n{\"id\":2,\"v\":\"b2\",\"d\":3.5}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* The writer used directly: changelog files, input type checks. */
static void test_file_writer_direct(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "changelog-file.format=avro"};
    pm_table *t = pk_create(dir, "direct", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    static const uint8_t empty[12] = {0};
    pm_pk_file_writer_options o = {0, PM_FILE_SOURCE_APPEND, true, 0, 0};
    pm_pk_file_writer *w = NULL;
    PM_OK_OR_FAIL(pm_pk_file_writer_new(&w, t, pm_table_schema(t), empty, sizeof empty, 0, &o));
    pm_batch *b = NULL;
    const char *rows = "{\"_KEY_id\":1,\"_SEQUENCE_NUMBER\":7,\"_VALUE_KIND\":0,\"id\":1,\"v\":\"a\"}\n"
                       "{\"_KEY_id\":1,\"_SEQUENCE_NUMBER\":8,\"_VALUE_KIND\":1,\"id\":1,\"v\":\"a\"}\n"
                       "{\"_KEY_id\":1,\"_SEQUENCE_NUMBER\":9,\"_VALUE_KIND\":2,\"id\":1,\"v\":\"b\"}\n";
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, pm_pk_file_writer_type(w), rows, strlen(rows)));
    PM_OK_OR_FAIL(pm_pk_file_writer_write(w, b));
    pm_batch_free(b);
    /* wrong input type */
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, "ROW<id INT NOT NULL>", "{\"id\":1}\n", 9));
    PM_EXPECT_ERR(pm_pk_file_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    pm_data_file_meta *files = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_pk_file_writer_finish(w, &files, &n));
    assert_int_equal(n, 1);
    assert_int_equal(strncmp(files[0].file_name, "changelog-", 10), 0);
    assert_string_equal(files[0].file_name + strlen(files[0].file_name) - 5, ".avro");
    assert_int_equal(files[0].row_count, 3);
    assert_int_equal(files[0].delete_row_count.v, 1);
    assert_int_equal(files[0].min_sequence_number, 7);
    assert_int_equal(files[0].max_sequence_number, 9);
    assert_int_equal(files[0].file_source.v, PM_FILE_SOURCE_APPEND);
    for (size_t i = 0; i < n; i++)
        pm_data_file_meta_clear(&files[i]);
    free(files);
    pm_pk_file_writer_free(w);
    pm_table_free(t);

    pm_test_rmtree(dir);
    free(dir);
}

/* Write one file of rows with the KV layout; hand back its meta and the
 * column names of the Parquet file. */
static pm_data_file_meta write_one(pm_table *t, const char *rows, char ***names, size_t *nnames)
{
    static const uint8_t empty[12] = {0};
    pm_pk_file_writer *w = NULL;
    PM_OK_OR_FAIL(pm_pk_file_writer_new(&w, t, pm_table_schema(t), empty, sizeof empty, 0, NULL));
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, pm_pk_file_writer_type(w), rows, strlen(rows)));
    PM_OK_OR_FAIL(pm_pk_file_writer_write(w, b));
    pm_batch_free(b);
    pm_data_file_meta *files = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_pk_file_writer_finish(w, &files, &n));
    assert_int_equal(n, 1);
    pm_data_file_meta m = files[0];
    free(files);
    pm_pk_file_writer_free(w);
    char *bdir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, empty, sizeof empty, 0, &bdir));
    char *path = pm_path_join(bdir, m.file_name);
    free(bdir);
    pm_input *in = NULL;
    PM_OK_OR_FAIL(pm_input_open(t->fio, path, &in));
    free(path);
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    pm_pq_reader *r = NULL;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r, in, &o));
    const pm_type *ft = pm_pq_reader_schema(r);
    *nnames = ft->nfields;
    *names = calloc(ft->nfields, sizeof **names);
    for (size_t i = 0; i < ft->nfields; i++)
        (*names)[i] = strdup(ft->fields[i].name);
    pm_pq_reader_free(r);
    pm_input_close(in);
    return m;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void assert_same_bytes(const pm_bytes *a, const pm_bytes *b)
{
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len);
}

/* data-file.thin-mode=true: the file has no _KEY_ columns (the key repeats
 * the value field), and its metadata (key bounds, key and value stats,
 * sequence numbers) equals what the writer gives with the keys written. */
static void test_thin_mode(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *rows = "{\"_KEY_k\":\"a\",\"_KEY_id\":1,\"_SEQUENCE_NUMBER\":7,\"_VALUE_KIND\":0,"
                       "\"id\":1,\"v\":\"x\",\"k\":\"a\"}\n"
                       "{\"_KEY_k\":\"b\",\"_KEY_id\":0,\"_SEQUENCE_NUMBER\":8,\"_VALUE_KIND\":3,"
                       "\"id\":0,\"v\":null,\"k\":\"b\"}\n";
    const char *full_opts[] = {"bucket=1"};
    const char *thin_opts[] = {"bucket=1", "data-file.thin-mode=true"};
    pm_table *full = pk_create(dir, "full", "ROW<id INT NOT NULL, v STRING, k STRING NOT NULL>", NULL, "k,id",
                               full_opts, 1);
    pm_table *thin = pk_create(dir, "thin", "ROW<id INT NOT NULL, v STRING, k STRING NOT NULL>", NULL, "k,id",
                               thin_opts, 2);
    char **fn = NULL, **tn = NULL;
    size_t nf = 0, nt = 0;
    pm_data_file_meta a = write_one(full, rows, &fn, &nf);
    pm_data_file_meta b = write_one(thin, rows, &tn, &nt);
    assert_int_equal(nf, 7);
    assert_string_equal(fn[0], "_KEY_k");
    assert_int_equal(nt, 5);
    assert_string_equal(tn[0], "_SEQUENCE_NUMBER");
    assert_string_equal(tn[1], "_VALUE_KIND");
    assert_string_equal(tn[2], "id");
    assert_same_bytes(&a.min_key, &b.min_key);
    assert_same_bytes(&a.max_key, &b.max_key);
    assert_same_bytes(&a.key_stats.min_values, &b.key_stats.min_values);
    assert_same_bytes(&a.key_stats.max_values, &b.key_stats.max_values);
    assert_int_equal(a.key_stats.null_count_len, b.key_stats.null_count_len);
    assert_same_bytes(&a.value_stats.min_values, &b.value_stats.min_values);
    assert_same_bytes(&a.value_stats.max_values, &b.value_stats.max_values);
    assert_int_equal(b.row_count, 2);
    assert_int_equal(b.delete_row_count.v, 1);
    assert_int_equal(a.min_sequence_number, b.min_sequence_number);
    assert_int_equal(a.max_sequence_number, b.max_sequence_number);
    free_names(fn, nf);
    free_names(tn, nt);
    pm_data_file_meta_clear(&a);
    pm_data_file_meta_clear(&b);
    pm_table_free(full);
    pm_table_free(thin);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_fixture),
        cmocka_unit_test(test_matches_fixture_string_keys),
        cmocka_unit_test(test_kv_type),
        cmocka_unit_test(test_rolling_and_meta),
        cmocka_unit_test(test_format_per_level),
        cmocka_unit_test(test_file_writer_direct),
        cmocka_unit_test(test_thin_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
