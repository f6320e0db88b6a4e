/*
 * tests/unit/pk/test_pk_write.c — the primary-key writer:
 *  - every merge engine folds equal keys at flush (deduplicate keeps a
 *    winning -D; first-row the first; partial-update non-null fields;
 *    aggregation sums), checked on the level-0 file's records (kind,
 *    sequence number) and on the table read;
 *  - sequence numbers continue per bucket across commits;
 *  - row-kind filter (ignore-delete), _ROW_KIND as STRING or TINYINT, bad kinds;
 *  - sequence.field ordering within a flush and across commits;
 *  - a tiny write-buffer-size spills sorted runs (and more than 256 runs
 *    merge in several passes); a non-spillable buffer flushes early to
 *    several level-0 files; the results equal a model;
 *  - bucket assignment (golden: bucket=4, INT id=1 → bucket 2);
 *  - changelog-producer=input writes the raw records as changelog files;
 *  - unsupported modes and bad merge options fail before any file exists.
 */
#include <string.h>

#include "lsm/kv.h"
#include "pk_test_util.h"
#include "table/file_read.h"
#include "table/partition.h"

/* The records of one data file with their system columns, as JSON lines. */
static char *file_records(pm_table *t, const pm_bucket_files *b, const pm_data_file_meta *f)
{
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, b->partition.data, b->partition.len, b->bucket, &dir));
    pm_file_read_options o = {pm_table_schema(t)->row_type, 0, true, NULL};
    pm_file_reader *r = NULL;
    PM_OK_OR_FAIL(pm_file_reader_open(&r, t, dir, f, &o));
    pm_buf out = PM_BUF_INIT;
    for (;;) {
        const pm_batch *bb = NULL;
        PM_OK_OR_FAIL(pm_file_reader_next(r, &bb));
        if (!bb)
            break;
        for (int64_t i = 0; i < bb->num_rows; i++) {
            PM_OK_OR_FAIL(pm_batch_format_row_json(bb, i, &out));
            PM_OK_OR_FAIL(pm_buf_append_str(&out, "\n"));
        }
    }
    pm_file_reader_free(r);
    free(dir);
    char *s = malloc(out.len + 1);
    memcpy(s, out.data ? (const char *)out.data : "", out.len);
    s[out.len] = 0;
    pm_buf_free(&out);
    return s;
}

/* The newest level-0 file of bucket 0 (largest max sequence number). */
static char *newest_file_records(pm_table *t, pm_data_file_meta *meta_out)
{
    pm_scan_result *s = NULL;
    const pm_bucket_files *b = pk_bucket(t, 0, &s);
    assert_non_null(b);
    const pm_data_file_meta *best = NULL;
    for (size_t i = 0; i < b->nfiles; i++)
        if (!best || b->files[i].max_sequence_number > best->max_sequence_number)
            best = &b->files[i];
    char *r = file_records(t, b, best);
    if (meta_out)
        PM_OK_OR_FAIL(pm_data_file_meta_copy(meta_out, best));
    pm_scan_result_free(s);
    return r;
}

static void test_deduplicate(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1"};
    pm_table *t = pk_create(dir, "dedup", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 1);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n{\"id\":1,\"v\":\"a2\",\"_ROW_KIND\":\"+U\"}\n"
                      "{\"id\":3,\"v\":\"c\"}\n{\"id\":2,\"v\":\"b\",\"_ROW_KIND\":\"-D\"}\n");
    pm_data_file_meta m;
    char *recs = newest_file_records(t, &m);
    assert_string_equal(recs, "{\"_SEQUENCE_NUMBER\":2,\"_VALUE_KIND\":2,\"id\":1,\"v\":\"a2\"}\n"
                              "{\"_SEQUENCE_NUMBER\":4,\"_VALUE_KIND\":3,\"id\":2,\"v\":\"b\"}\n"
                              "{\"_SEQUENCE_NUMBER\":3,\"_VALUE_KIND\":0,\"id\":3,\"v\":\"c\"}\n");
    free(recs);
    assert_int_equal(m.row_count, 3);
    assert_int_equal(m.delete_row_count.v, 1);
    assert_int_equal(m.min_sequence_number, 2);
    assert_int_equal(m.max_sequence_number, 4);
    assert_int_equal(m.level, 0);
    pm_data_file_meta_clear(&m);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"a2\"}\n{\"id\":3,\"v\":\"c\"}\n");
    /* the next commit continues the bucket's sequence numbers */
    pk_commit_rows(t, "{\"id\":4,\"v\":\"d\"}\n{\"id\":3,\"v\":\"c\",\"_ROW_KIND\":\"-D\"}\n");
    recs = newest_file_records(t, &m);
    assert_int_equal(m.min_sequence_number, 5);
    assert_int_equal(m.max_sequence_number, 6);
    pm_data_file_meta_clear(&m);
    free(recs);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"a2\"}\n{\"id\":4,\"v\":\"d\"}\n");
    PK_EXPECT_ROWS(t, 1, "{\"id\":1,\"v\":\"a2\"}\n{\"id\":3,\"v\":\"c\"}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_first_row(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "merge-engine=first-row", "ignore-delete=true"};
    pm_table *t = pk_create(dir, "first", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 3);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":1,\"v\":\"b\"}\n{\"id\":2,\"v\":\"c\"}\n"
                      "{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"-D\"}\n");
    char *recs = newest_file_records(t, NULL);
    assert_string_equal(recs, "{\"_SEQUENCE_NUMBER\":0,\"_VALUE_KIND\":0,\"id\":1,\"v\":\"a\"}\n"
                              "{\"_SEQUENCE_NUMBER\":2,\"_VALUE_KIND\":0,\"id\":2,\"v\":\"c\"}\n");
    free(recs);
    /* batch reads of first-row tables skip level 0 (Java): nothing visible */
    PK_EXPECT_ROWS(t, 0, "");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_partial_update(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "merge-engine=partial-update"};
    pm_table *t = pk_create(dir, "pu", "ROW<id INT NOT NULL, a STRING, b INT, c DOUBLE>", NULL, "id", opts, 2);
    pk_commit_rows(t, "{\"id\":1,\"a\":\"x\",\"b\":null,\"c\":null}\n{\"id\":1,\"a\":null,\"b\":5,\"c\":null}\n"
                      "{\"id\":2,\"a\":\"y\",\"b\":1,\"c\":1.5}\n");
    char *recs = newest_file_records(t, NULL);
    assert_string_equal(recs, "{\"_SEQUENCE_NUMBER\":1,\"_VALUE_KIND\":0,\"id\":1,\"a\":\"x\",\"b\":5,\"c\":null}\n"
                              "{\"_SEQUENCE_NUMBER\":2,\"_VALUE_KIND\":0,\"id\":2,\"a\":\"y\",\"b\":1,\"c\":1.5}\n");
    free(recs);
    /* a later partial row merges on read with the file above */
    pk_commit_rows(t, "{\"id\":1,\"a\":null,\"b\":null,\"c\":2.5}\n{\"id\":2,\"a\":\"z\",\"b\":null,\"c\":null}\n");
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"a\":\"x\",\"b\":5,\"c\":2.5}\n{\"id\":2,\"a\":\"z\",\"b\":1,\"c\":1.5}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_aggregation(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "merge-engine=aggregation", "fields.n.aggregate-function=sum",
                          "fields.m.aggregate-function=max"};
    pm_table *t = pk_create(dir, "agg", "ROW<id INT NOT NULL, v STRING, n BIGINT, m INT>", NULL, "id", opts, 4);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"x\",\"n\":1,\"m\":3}\n{\"id\":1,\"v\":\"y\",\"n\":2,\"m\":9}\n"
                      "{\"id\":1,\"v\":null,\"n\":3,\"m\":4}\n{\"id\":2,\"v\":\"q\",\"n\":10,\"m\":1}\n");
    char *recs = newest_file_records(t, NULL);
    assert_string_equal(recs, "{\"_SEQUENCE_NUMBER\":2,\"_VALUE_KIND\":0,\"id\":1,\"v\":\"y\",\"n\":6,\"m\":9}\n"
                              "{\"_SEQUENCE_NUMBER\":3,\"_VALUE_KIND\":0,\"id\":2,\"v\":\"q\",\"n\":10,\"m\":1}\n");
    free(recs);
    pk_commit_rows(t, "{\"id\":1,\"v\":null,\"n\":4,\"m\":1}\n{\"id\":2,\"v\":\"r\",\"n\":-10,\"m\":0}\n");
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"y\",\"n\":10,\"m\":9}\n{\"id\":2,\"v\":\"r\",\"n\":0,\"m\":1}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_sequence_field(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "sequence.field=ts"};
    pm_table *t = pk_create(dir, "seqf", "ROW<id INT NOT NULL, v STRING, ts BIGINT>", NULL, "id", opts, 2);
    /* within one flush: the larger ts wins although it arrived first */
    pk_commit_rows(t, "{\"id\":1,\"v\":\"new\",\"ts\":10}\n{\"id\":1,\"v\":\"old\",\"ts\":5}\n");
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"new\",\"ts\":10}\n");
    /* across commits (merge on read) */
    pk_commit_rows(t, "{\"id\":1,\"v\":\"older\",\"ts\":7}\n{\"id\":2,\"v\":\"b\",\"ts\":1}\n");
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"new\",\"ts\":10}\n{\"id\":2,\"v\":\"b\",\"ts\":1}\n");
    pk_commit_rows(t, "{\"id\":1,\"v\":\"newest\",\"ts\":11}\n");
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"newest\",\"ts\":11}\n{\"id\":2,\"v\":\"b\",\"ts\":1}\n");
    pm_table_free(t);

    /* descending order: the smaller ts wins */
    const char *desc[] = {"bucket=1", "sequence.field=ts", "sequence.field.sort-order=descending"};
    t = pk_create(dir, "seqd", "ROW<id INT NOT NULL, v STRING, ts BIGINT>", NULL, "id", desc, 3);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\",\"ts\":10}\n{\"id\":1,\"v\":\"b\",\"ts\":5}\n{\"id\":1,\"v\":\"c\",\"ts\":7}\n");
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"b\",\"ts\":5}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_row_kinds(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "ignore-delete=true"};
    pm_table *t = pk_create(dir, "kinds", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    /* TINYINT kinds; ignore-delete drops -D and -U */
    pm_batch *b = NULL;
    const char *rows = "{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":0}\n{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":3}\n"
                       "{\"id\":2,\"v\":\"b\",\"_ROW_KIND\":1}\n{\"id\":2,\"v\":\"b2\",\"_ROW_KIND\":2}\n";
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, "ROW<id INT NOT NULL, v STRING, _ROW_KIND TINYINT>", rows,
                                                 strlen(rows)));
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    /* bad kinds */
    b = pk_rows(t, "{\"id\":3,\"v\":\"x\",\"_ROW_KIND\":\"U\"}\n");
    PM_EXPECT_ERR(pm_table_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, "ROW<id INT NOT NULL, _ROW_KIND TINYINT>",
                                                 "{\"id\":3,\"_ROW_KIND\":7}\n",
                                                 strlen("{\"id\":3,\"_ROW_KIND\":7}\n")));
    PM_EXPECT_ERR(pm_table_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, "ROW<id INT NOT NULL, _ROW_KIND DOUBLE>",
                                                 "{\"id\":3,\"_ROW_KIND\":1.0}\n",
                                                 strlen("{\"id\":3,\"_ROW_KIND\":1.0}\n")));
    PM_EXPECT_ERR(pm_table_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    pk_commit_msgs(t, m, n);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b2\"}\n");
    uint8_t k;
    PM_OK_OR_FAIL(pm_row_kind_parse("-U", 2, &k));
    assert_int_equal(k, 1);
    PM_EXPECT_ERR(pm_row_kind_parse("+D", 2, &k), PM_EINVALID);
    PM_EXPECT_ERR(pm_row_kind_parse("+I ", 3, &k), PM_EINVALID);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_rowkind_field(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "rowkind.field=op"};
    pm_table *t = pk_create(dir, "rkf", "ROW<id INT NOT NULL, v STRING, op STRING>", NULL, "id", opts, 2);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\",\"op\":\"+I\"}\n{\"id\":2,\"v\":\"b\",\"op\":\"+I\"}\n"
                      "{\"id\":1,\"v\":\"a\",\"op\":\"-D\"}\n");
    PK_EXPECT_ROWS(t, 0, "{\"id\":2,\"v\":\"b\",\"op\":\"+I\"}\n");
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_batch *b = pk_rows(t, "{\"id\":3,\"v\":\"c\",\"op\":null}\n");
    PM_EXPECT_ERR(pm_table_writer_write(w, b), PM_EINVALID); /* null kind */
    pm_batch_free(b);
    b = pk_rows(t, "{\"id\":3,\"v\":\"c\",\"op\":\"+I\",\"_ROW_KIND\":\"+I\"}\n");
    PM_EXPECT_ERR(pm_table_writer_write(w, b), PM_EINVALID); /* two sources of kinds */
    pm_batch_free(b);
    pm_table_writer_free(w);
    pm_table_free(t);
    const char *bad[] = {"bucket=1", "rowkind.field=n"};
    t = pk_create(dir, "rkfbad", "ROW<id INT NOT NULL, n INT>", NULL, "id", bad, 2);
    PM_EXPECT_ERR(pm_table_writer_new(&w, t, NULL), PM_EINVALID);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* ---- spilling ---- */

typedef struct model {
    int nkeys;
    int *val;      /* -1 = absent */
} model;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random upserts/deletes through a pm_pk_writer with the given options;
 * returns the writer's stats and checks the table against the model. */
static void spill_round(const char *name, const char *const *opts, size_t nopts, int batches, int rows,
                        pm_pk_write_stats *st)
{
    char *dir = pm_test_tmpdir();
    pm_table *t = pk_create(dir, name, "ROW<id INT NOT NULL, v STRING, n BIGINT>", NULL, "id", opts, nopts);
    model md = {997, NULL};
    md.val = malloc(sizeof *md.val * (size_t)md.nkeys);
    for (int i = 0; i < md.nkeys; i++)
        md.val[i] = -1;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    pm_pk_writer *w = NULL;
    PM_OK_OR_FAIL(pm_pk_writer_new(&w, t, NULL));
    pm_buf in = PM_BUF_INIT;
    int counter = 0;
    for (int bt = 0; bt < batches; bt++) {
        pm_buf_clear(&in);
        for (int r = 0; r < rows; r++) {
            int id = (int)(rng_next(&seed) % (uint64_t)md.nkeys);
            bool del = rng_next(&seed) % 5 == 0;
            counter++;
            PM_OK_OR_FAIL(pm_buf_printf(&in, "{\"id\":%d,\"v\":\"value-%d-padding-padding\",\"n\":%d,\"_ROW_KIND\":\"%s\"}\n",
                                        id, counter, counter, del ? "-D" : "+I"));
            md.val[id] = del ? -1 : counter;
        }
        const char *text = NULL;
        PM_OK_OR_FAIL(pm_buf_cstr(&in, &text));
        pm_batch *b = pk_rows(t, text);
        PM_OK_OR_FAIL(pm_pk_writer_write(w, b));
        pm_batch_free(b);
    }
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_pk_writer_prepare_commit(w, &m, &n));
    pm_pk_writer_stats(w, st);
    pk_commit_msgs(t, m, n);
    pm_commit_message_array_free(m, n);
    pm_pk_writer_free(w);
    pm_buf want = PM_BUF_INIT;
    for (int i = 0; i < md.nkeys; i++)
        if (md.val[i] >= 0)
            PM_OK_OR_FAIL(pm_buf_printf(&want, "{\"id\":%d,\"v\":\"value-%d-padding-padding\",\"n\":%d}\n", i, md.val[i],
                                        md.val[i]));
    const char *ws = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&want, &ws));
    PK_EXPECT_ROWS(t, 0, ws);
    assert_int_equal(st->rows_in, (int64_t)batches * rows);
    pm_buf_free(&want);
    pm_buf_free(&in);
    free(md.val);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_spill(void **state)
{
    (void)state;
    pm_pk_write_stats st;
    const char *opts[] = {"bucket=1", "write-buffer-size=32 kb"};
    spill_round("spill", opts, 2, 40, 250, &st);
    assert_true(st.spilled_runs >= 4);
    assert_int_equal(st.early_flushes, 0);
}

static void test_spill_multipass(void **state)
{
    (void)state;
    pm_pk_write_stats st;
    /* every batch overflows the buffer: one run per batch, > 256 runs */
    const char *opts[] = {"bucket=1", "write-buffer-size=1 b"};
    spill_round("multi", opts, 2, 300, 7, &st);
    assert_int_equal(st.spilled_runs, 300);
}

static void test_not_spillable(void **state)
{
    (void)state;
    pm_pk_write_stats st;
    const char *opts[] = {"bucket=1", "write-buffer-size=16 kb", "write-buffer-spillable=false"};
    spill_round("nospill", opts, 3, 20, 200, &st);
    assert_int_equal(st.spilled_runs, 0);
    assert_true(st.early_flushes >= 2);
}

static void test_bucket_golden(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=4"};
    pm_table *t = pk_create(dir, "golden", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 1);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\"}\n");
    pm_scan_result *s = NULL;
    const pm_bucket_files *b = pk_bucket(t, 2, &s);
    assert_non_null(b);
    assert_int_equal(b->nfiles, 1);
    assert_int_equal(b->total_buckets, 4);
    assert_int_equal(s->nbuckets, 1);
    pm_scan_result_free(s);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_changelog_input(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "changelog-producer=input"};
    pm_table *t = pk_create(dir, "cl", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_batch *b = pk_rows(t, "{\"id\":2,\"v\":\"b\"}\n{\"id\":1,\"v\":\"a\"}\n{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"-U\"}\n"
                             "{\"id\":1,\"v\":\"a2\",\"_ROW_KIND\":\"+U\"}\n");
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    assert_int_equal(n, 1);
    assert_int_equal(m[0].n_new_files, 1);
    assert_int_equal(m[0].new_files[0].row_count, 2);
    assert_int_equal(m[0].n_changelog, 1);
    assert_int_equal(m[0].changelog[0].row_count, 4);
    assert_int_equal(m[0].changelog[0].delete_row_count.v, 1);
    assert_int_equal(strncmp(m[0].changelog[0].file_name, "changelog-", 10), 0);
    int64_t id = pk_commit_msgs(t, m, n);
    assert_int_equal(id, 1);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    char cldir[1024];
    snprintf(cldir, sizeof cldir, "%s/bucket-0", pm_table_path(t));
    assert_int_equal(pk_count_files(cldir, "changelog-"), 1);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"a2\"}\n{\"id\":2,\"v\":\"b\"}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_unsupported(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table_writer *w = NULL;
    /* (dynamic buckets are written: test_pk_dynamic.c) */
    const char *dyn[] = {"bucket=-1"};
    pm_table *t = pk_create(dir, "dyn", "ROW<id INT NOT NULL, v STRING>", NULL, "id", dyn, 1);
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_table_writer_free(w);
    w = NULL;
    pm_table_free(t);
    /* (postpone buckets are written: pkc/test_pkc_postpone.c) */
    const char *pp[] = {"bucket=-2"};
    t = pk_create(dir, "postpone", "ROW<id INT NOT NULL, v STRING>", NULL, "id", pp, 1);
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_table_writer_free(w);
    w = NULL;
    pm_table_free(t);
    const char *bad[] = {"bucket=1", "merge-engine=aggregation", "fields.v.aggregate-function=no_such_fn"};
    t = pk_create(dir, "badagg", "ROW<id INT NOT NULL, v STRING>", NULL, "id", bad, 3);
    PM_EXPECT_ERR(pm_table_writer_new(&w, t, NULL), PM_EINVALID);
    char b0[1024];
    snprintf(b0, sizeof b0, "%s/bucket-0", pm_table_path(t));
    assert_int_equal(pk_count_files(b0, ""), 0);
    pm_table_free(t);
    const char *cross[] = {"bucket=2"};
    t = pk_create(dir, "cross", "ROW<id INT NOT NULL, dt STRING>", "dt", "id", cross, 1);
    PM_EXPECT_ERR(pm_table_writer_new(&w, t, NULL), PM_EINVALID);
    pm_table_free(t);
    const char *snap[] = {"bucket=1", "write.sequence-number-init-mode=snapshot"};
    t = pk_create(dir, "snapinit", "ROW<id INT NOT NULL, v STRING>", NULL, "id", snap, 2);
    PM_EXPECT_ERR(pm_table_writer_new(&w, t, NULL), PM_EUNSUPPORTED);
    pm_table_free(t);
    /* abort removes written files */
    const char *ok[] = {"bucket=1"};
    t = pk_create(dir, "abort", "ROW<id INT NOT NULL, v STRING>", NULL, "id", ok, 1);
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_batch *b = pk_rows(t, "{\"id\":1,\"v\":\"a\"}\n");
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    pm_commit_message_array_free(m, n); /* handed out: the caller owns those files now */
    b = pk_rows(t, "{\"id\":2,\"v\":\"b\"}\n");
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    snprintf(b0, sizeof b0, "%s/bucket-0", pm_table_path(t));
    assert_int_equal(pk_count_files(b0, "data-"), 1);
    pm_table_writer_abort(w);
    assert_int_equal(pk_count_files(b0, "data-"), 1);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Partitioned table, several buckets: rows land where the key says and
 * each (partition, bucket) keeps its own sequence counter. */
static void test_partitioned(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=3"};
    pm_table *t = pk_create(dir, "parts", "ROW<dt STRING, id INT NOT NULL, v INT>", "dt", "dt,id", opts, 1);
    pm_buf in = PM_BUF_INIT;
    for (int i = 0; i < 60; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&in, "{\"dt\":\"d%d\",\"id\":%d,\"v\":%d}\n", i % 2, i / 2, i));
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&in, &text));
    pk_commit_rows(t, text);
    pk_commit_rows(t, "{\"dt\":\"d0\",\"id\":0,\"v\":-1}\n{\"dt\":\"d1\",\"id\":0,\"v\":-2,\"_ROW_KIND\":\"-D\"}\n");
    pm_scan_result *s = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &s));
    assert_int_equal(s->nbuckets, 6);
    int64_t rows = 0;
    for (size_t i = 0; i < s->nbuckets; i++)
        for (size_t f = 0; f < s->buckets[i].nfiles; f++) {
            rows += s->buckets[i].files[f].row_count;
            /* per-bucket counters start at 0 */
            if (s->buckets[i].nfiles == 1)
                assert_int_equal(s->buckets[i].files[f].min_sequence_number, 0);
        }
    assert_int_equal(rows, 62);
    pm_scan_result_free(s);
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_non_null(strstr(got, "{\"dt\":\"d0\",\"id\":0,\"v\":-1}\n"));
    assert_null(strstr(got, "{\"dt\":\"d1\",\"id\":0,"));
    size_t lines = 0;
    for (const char *p = got; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 59);
    free(got);
    pm_buf_free(&in);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deduplicate),    cmocka_unit_test(test_first_row),
        cmocka_unit_test(test_partial_update), cmocka_unit_test(test_aggregation),
        cmocka_unit_test(test_sequence_field), cmocka_unit_test(test_row_kinds),
        cmocka_unit_test(test_rowkind_field),
        cmocka_unit_test(test_spill),          cmocka_unit_test(test_spill_multipass),
        cmocka_unit_test(test_not_spillable),  cmocka_unit_test(test_bucket_golden),
        cmocka_unit_test(test_changelog_input), cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_partitioned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
