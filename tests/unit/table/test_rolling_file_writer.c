/*
 * tests/unit/table/test_rolling_file_writer.c — the rolling data-file
 * writer (table/rolling_file_writer.h): its steps (row-range copies and
 * views, the raw size estimate, Avro-accumulator column stats, the append
 * files' empty keys, the creation/delete/source stamp, the finished-file
 * list, the Avro codec) and the writer itself (rolling at the row count
 * and at the size checked every 1000th record or every batch, sequence
 * numbers, the key-value layout's keys, sequence range and deletes, thin
 * files, a raw body, fault points, abort and discard).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "pm_test.h"
#include "table/rolling_file_writer.h"
#include "types/binary_row.h"
#include "types/column.h"
#include "types/value.h"

static const char *RT = "ROW<a INT, s STRING>";
static const char *RT64 = "ROW<a BIGINT, s STRING>";

static pm_batch *rows(const char *jsonl)
{
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, RT, jsonl, strlen(jsonl)));
    return b;
}

static void test_copy_range_and_raw_bytes(void **state)
{
    (void)state;
    pm_batch *b = rows("{\"a\":1,\"s\":\"x\"}\n{\"a\":2,\"s\":\"yy\"}\n{\"a\":3,\"s\":null}\n{\"a\":4,\"s\":\"zzz\"}\n");
    pm_batch *dst = NULL;
    PM_OK_OR_FAIL(pm_batch_new(&dst, pm_batch_type(b)));
    PM_OK_OR_FAIL(pm_roll_copy_range(dst, b, 1, 3));
    assert_int_equal(dst->num_rows, 2);
    assert_int_equal(pm_column_i32(dst->columns[0], 0), 2);
    assert_int_equal(pm_column_i32(dst->columns[0], 1), 3);
    assert_int_equal(dst->columns[1]->null_count, 1);
    /* reset on every copy */
    PM_OK_OR_FAIL(pm_roll_copy_range(dst, b, 3, 4));
    assert_int_equal(dst->num_rows, 1);
    assert_int_equal(pm_column_i32(dst->columns[0], 0), 4);

    uint64_t want = 0;
    for (size_t c = 0; c < b->ncolumns; c++) {
        const pm_column *col = b->columns[c];
        want += col->values.len + col->data.len + col->offsets.len + col->validity.len;
    }
    assert_true(want >= 4 * 4 + 6); /* four INTs and six string bytes at least */
    assert_int_equal(pm_roll_raw_bytes(b), want);
    pm_batch_free(dst);
    pm_batch_free(b);
}

static void test_col_stats_from_accumulators(void **state)
{
    (void)state;
    pm_batch *b = rows("{\"a\":5,\"s\":\"b\"}\n{\"a\":-2,\"s\":null}\n");
    const pm_type *rt = pm_batch_type(b);
    pm_stats_mode modes[2] = {{PM_STATS_FULL, 0}, {PM_STATS_FULL, 0}};
    pm_stats_accum accs[2];
    for (size_t i = 0; i < 2; i++) {
        pm_stats_accum_init(&accs[i], rt->fields[i].type, modes[i]);
        PM_OK_OR_FAIL(pm_stats_accum_add(&accs[i], b->columns[i], 0, 2));
    }
    pm_col_stats *cs = NULL;
    PM_OK_OR_FAIL(pm_roll_col_stats(rt, modes, false, accs, NULL, NULL, &cs));
    assert_true(cs[0].has_min && cs[0].has_max);
    assert_int_equal(cs[0].min.i, -2);
    assert_int_equal(cs[0].max.i, 5);
    assert_int_equal(cs[1].null_count, 1);
    for (size_t i = 0; i < 2; i++)
        pm_col_stats_clear(&cs[i]);
    free(cs);

    /* disabled: every field NONE */
    PM_OK_OR_FAIL(pm_roll_col_stats(rt, modes, true, accs, NULL, NULL, &cs));
    assert_true(pm_col_stats_is_none(&cs[0]) && pm_col_stats_is_none(&cs[1]));
    free(cs);
    for (size_t i = 0; i < 2; i++)
        pm_stats_accum_clear(&accs[i]);
    pm_batch_free(b);
}

static void test_meta_keys_stamp_and_list(void **state)
{
    (void)state;
    pm_data_file_meta *list = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 9; i++) {
        pm_data_file_meta m;
        memset(&m, 0, sizeof m);
        PM_OK_OR_FAIL(pm_roll_empty_keys(&m));
        assert_int_equal(m.min_key.len, 12);
        assert_int_equal(m.max_key.len, 12);
        for (size_t k = 0; k < 12; k++)
            assert_int_equal(m.min_key.data[k], 0);
        pm_roll_stamp(&m, i, i % 2 ? PM_FILE_SOURCE_COMPACT : PM_FILE_SOURCE_APPEND);
        assert_true(m.creation_time.has && m.creation_time.v > 0);
        assert_true(m.delete_row_count.has);
        assert_int_equal(m.delete_row_count.v, i);
        assert_int_equal(m.file_source.v, i % 2);
        m.row_count = 100 + i;
        PM_OK_OR_FAIL(pm_roll_push_file(&list, &n, &cap, &m));
    }
    assert_int_equal(n, 9);
    assert_int_equal(cap, 16);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(list[i].row_count, 100 + (int64_t)i);
        pm_data_file_meta_clear(&list[i]);
    }
    free(list);
}

/* The Avro codec every data-file writer derives from the options. */
static void test_avro_codec(void **state)
{
    (void)state;
    pm_options *o = NULL;
    PM_OK_OR_FAIL(pm_options_new(&o));
    pm_avro_write_options a;
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, NULL, &a)); /* file.compression default zstd, level 1 */
    assert_int_equal(a.codec, PM_CODEC_ZSTD);
    assert_int_equal(a.level, 1);
    PM_OK_OR_FAIL(pm_options_set(o, "file.compression.zstd-level", "5"));
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, "ZSTD", &a));
    assert_int_equal(a.level, 5);
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, "none", &a));
    assert_int_equal(a.codec, PM_CODEC_NONE);
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, "uncompressed", &a));
    assert_int_equal(a.codec, PM_CODEC_NONE);
    PM_EXPECT_ERR(pm_roll_avro_codec(o, "lz4", &a), PM_EUNSUPPORTED);
    PM_OK_OR_FAIL(pm_options_set(o, "avro.codec", "zstandard"));
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, "lz4", &a)); /* avro.codec wins */
    assert_int_equal(a.codec, PM_CODEC_ZSTD);
    assert_int_equal(a.level, 3);
    PM_OK_OR_FAIL(pm_options_set(o, "avro.codec", "brotli"));
    PM_EXPECT_ERR(pm_roll_avro_codec(o, NULL, &a), PM_EUNSUPPORTED);
    pm_options_free(o);
}


/* ------------------------------------------------------------------ */
/* the writer                                                          */

typedef struct wfx {
    char *dir;
    pm_fileio *fio;
    pm_options *opts;
    pm_type *type;
} wfx;

static wfx wfx_new(const char *row_type)
{
    wfx f;
    f.dir = pm_test_tmpdir();
    PM_OK_OR_FAIL(pm_fileio_local_new(&f.fio));
    PM_OK_OR_FAIL(pm_options_new(&f.opts));
    PM_OK_OR_FAIL(pm_type_parse(&f.type, row_type));
    return f;
}

static void wfx_free(wfx *f)
{
    pm_type_free(f->type);
    pm_options_free(f->opts);
    pm_fileio_free(f->fio);
    pm_test_rmtree(f->dir);
    free(f->dir);
}

static pm_rolling_file_writer_options wopts(wfx *f, const char *format)
{
    pm_rolling_file_writer_options o;
    memset(&o, 0, sizeof o);
    o.fio = f->fio;
    o.dir = f->dir;
    o.file_type = f->type;
    o.options = f->opts;
    o.format = format;
    o.compression = "zstd";
    o.target_size = INT64_MAX;
    o.target_rows = INT64_MAX;
    o.schema_id = 3;
    o.level = 2;
    o.source = PM_FILE_SOURCE_COMPACT;
    return o;
}

/* n rows {"a": first + i, "s": "v<i>"} */
static pm_batch *seq_rows(int64_t first, int64_t n)
{
    char *buf = malloc((size_t)n * 40 + 1);
    size_t len = 0;
    for (int64_t i = 0; i < n; i++)
        len += (size_t)sprintf(buf + len, "{\"a\":%lld,\"s\":\"v%lld\"}\n", (long long)(first + i), (long long)i);
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, RT64, buf, len));
    free(buf);
    return b;
}

static size_t files_in(const char *dir)
{
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_name_list l;
    PM_OK_OR_FAIL(pm_fileio_list(fio, dir, &l));
    size_t n = l.count;
    pm_fileio_list_free(&l);
    pm_fileio_free(fio);
    return n;
}

static void free_files(pm_data_file_meta *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_data_file_meta_clear(&f[i]);
    free(f);
}

/* A file closes at target_rows (batches are split exactly there);
 * sequence numbers run on across files from start_seq. */
static void test_roll_at_row_count(void **state)
{
    (void)state;
    wfx f = wfx_new(RT64);
    pm_rolling_file_writer_options o = wopts(&f, "parquet");
    o.target_rows = 250;
    o.start_seq = 10;
    pm_rolling_file_writer *w = NULL;
    PM_OK_OR_FAIL(pm_rolling_file_writer_new(&w, &o));
    assert_int_equal(files_in(f.dir), 0); /* nothing before the first row */
    for (int k = 0; k < 3; k++) {
        pm_batch *b = seq_rows(k * 300, 300);
        PM_OK_OR_FAIL(pm_rolling_file_writer_write(w, b));
        pm_batch_free(b);
    }
    assert_true(pm_rolling_file_writer_is_open(w));
    assert_int_equal(pm_rolling_file_writer_pending(w), 3);
    assert_int_equal(pm_rolling_file_writer_rows(w), 900);
    assert_int_equal(pm_rolling_file_writer_next_seq(w), 910);
    pm_data_file_meta *fs = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_rolling_file_writer_finish(w, &fs, &n));
    assert_int_equal(n, 4);
    int64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(fs[i].row_count, i < 3 ? 250 : 150);
        assert_int_equal(fs[i].min_sequence_number, 10 + 250 * (int64_t)i);
        assert_int_equal(fs[i].max_sequence_number, fs[i].min_sequence_number + fs[i].row_count - 1);
        assert_int_equal(fs[i].schema_id, 3);
        assert_int_equal(fs[i].level, 2);
        assert_int_equal(fs[i].file_source.v, PM_FILE_SOURCE_COMPACT);
        assert_int_equal(fs[i].delete_row_count.v, 0);
        assert_int_equal(fs[i].min_key.len, 12); /* append layout: empty keys */
        assert_true(!strncmp(fs[i].file_name, "data-", 5));
        bytes += fs[i].file_size;
    }
    assert_int_equal(pm_rolling_file_writer_bytes(w), bytes);
    assert_int_equal(files_in(f.dir), 4);
    free_files(fs, n);
    pm_rolling_file_writer_free(w); /* handed-out files stay */
    assert_int_equal(files_in(f.dir), 4);
    wfx_free(&f);
}

/* The size check: every 1000th record (Java's write), or after each batch
 * (writeBundle). */
static void test_roll_at_size(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        for (int avro = 0; avro < 2; avro++) {
            wfx f = wfx_new(RT64);
            pm_rolling_file_writer_options o = wopts(&f, avro ? "avro" : "parquet");
            o.target_size = 1;
            o.avro_size_buffered = true;
            o.check = mode ? PM_ROLL_CHECK_WRITE : PM_ROLL_CHECK_RECORDS;
            pm_rolling_file_writer *w = NULL;
            PM_OK_OR_FAIL(pm_rolling_file_writer_new(&w, &o));
            for (int k = 0; k < 5; k++) {
                pm_batch *b = seq_rows(k * 500, 500);
                PM_OK_OR_FAIL(pm_rolling_file_writer_write(w, b));
                pm_batch_free(b);
            }
            pm_data_file_meta *fs = NULL;
            size_t n = 0;
            PM_OK_OR_FAIL(pm_rolling_file_writer_finish(w, &fs, &n));
            if (mode == 0) { /* files close at records 1000, 2000; the rest at finish */
                assert_int_equal(n, 3);
                assert_int_equal(fs[0].row_count, 1000);
                assert_int_equal(fs[1].row_count, 1000);
                assert_int_equal(fs[2].row_count, 500);
            } else { /* one file per batch */
                assert_int_equal(n, 5);
                for (size_t i = 0; i < n; i++)
                    assert_int_equal(fs[i].row_count, 500);
            }
            free_files(fs, n);
            pm_rolling_file_writer_free(w);
            wfx_free(&f);
        }
    }
}

static void binrow_bigint(int64_t v, pm_buf *out)
{
    pm_binrow_writer bw = {0};
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&bw, 1));
    pm_binrow_set_i64(&bw, 0, v);
    pm_buf_clear(out);
    PM_OK_OR_FAIL(pm_binrow_serialize(&bw, out));
    pm_binrow_writer_free(&bw);
}

/* Key-value layout: the keys of the first and last row, the sequence
 * range and the -U/-D count per file; thin files leave the keys out. */
static void test_key_value_layout(void **state)
{
    (void)state;
    for (int thin = 0; thin < 2; thin++) {
        const char *kvt = "ROW<_KEY_a BIGINT NOT NULL, _SEQUENCE_NUMBER BIGINT NOT NULL, "
                          "_VALUE_KIND TINYINT NOT NULL, a BIGINT, s STRING>";
        wfx f = wfx_new(thin ? "ROW<_SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT NULL, a BIGINT, s STRING>"
                             : kvt);
        pm_type *key_type = NULL, *value_type = NULL;
        PM_OK_OR_FAIL(pm_type_parse(&key_type, "ROW<_KEY_a BIGINT NOT NULL>"));
        PM_OK_OR_FAIL(pm_type_parse(&value_type, RT64));
        size_t key_stat[1] = {thin ? 2 : 0};
        pm_rolling_kv_layout kv = {1, key_type, key_stat, thin ? 1 : 0};
        pm_rolling_file_writer_options o = wopts(&f, "parquet");
        o.kv = &kv;
        o.value_type = value_type;
        o.value_offset = thin ? 2 : 3;
        o.target_rows = 3;
        pm_rolling_file_writer *w = NULL;
        PM_OK_OR_FAIL(pm_rolling_file_writer_new(&w, &o));
        const char *in = "{\"_KEY_a\":1,\"_SEQUENCE_NUMBER\":103,\"_VALUE_KIND\":0,\"a\":1,\"s\":\"x\"}\n"
                         "{\"_KEY_a\":2,\"_SEQUENCE_NUMBER\":100,\"_VALUE_KIND\":3,\"a\":2,\"s\":null}\n"
                         "{\"_KEY_a\":3,\"_SEQUENCE_NUMBER\":101,\"_VALUE_KIND\":1,\"a\":3,\"s\":\"z\"}\n"
                         "{\"_KEY_a\":7,\"_SEQUENCE_NUMBER\":90,\"_VALUE_KIND\":2,\"a\":7,\"s\":\"w\"}\n"
                         "{\"_KEY_a\":9,\"_SEQUENCE_NUMBER\":95,\"_VALUE_KIND\":3,\"a\":9,\"s\":\"q\"}\n";
        pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, kvt, in, strlen(in)));
        PM_OK_OR_FAIL(pm_rolling_file_writer_write(w, b));
        pm_batch_free(b);
        pm_data_file_meta *fs = NULL;
        size_t n = 0;
        PM_OK_OR_FAIL(pm_rolling_file_writer_finish(w, &fs, &n));
        assert_int_equal(n, 2);
        int64_t want_min[2] = {100, 90}, want_max[2] = {103, 95}, want_del[2] = {2, 1}, first[2] = {1, 7},
                last[2] = {3, 9};
        pm_buf k = PM_BUF_INIT;
        for (size_t i = 0; i < 2; i++) {
            assert_int_equal(fs[i].min_sequence_number, want_min[i]);
            assert_int_equal(fs[i].max_sequence_number, want_max[i]);
            assert_int_equal(fs[i].delete_row_count.v, want_del[i]);
            binrow_bigint(first[i], &k);
            assert_int_equal(fs[i].min_key.len, k.len);
            assert_memory_equal(fs[i].min_key.data, k.data, k.len);
            binrow_bigint(last[i], &k);
            assert_memory_equal(fs[i].max_key.data, k.data, k.len);
            /* key stats: min/max of the key column, one field */
            assert_memory_equal(fs[i].key_stats.max_values.data, k.data, k.len);
            assert_int_equal(fs[i].key_stats.null_count_len, 1);
        }
        /* value stats cover the value fields: s has one null in the first file */
        assert_true(fs[0].value_stats.null_count_len >= 1);
        pm_buf_free(&k);
        free_files(fs, n);
        pm_rolling_file_writer_free(w);
        pm_type_free(key_type);
        pm_type_free(value_type);
        wfx_free(&f);
    }
}

/* A raw body writes the bytes; the writer names, rolls and stamps. */
typedef struct raw_ctx {
    int opens, finishes, discards;
} raw_ctx;

static pm_error *raw_open(void *ctx, pm_output *out)
{
    ((raw_ctx *)ctx)->opens++;
    return pm_output_write(out, "HEAD", 4);
}

static pm_error *raw_finish(void *ctx, pm_output *out, pm_pq_write_result *st)
{
    ((raw_ctx *)ctx)->finishes++;
    PM_TRY(pm_calloc(&st->stats, 2, sizeof *st->stats));
    st->ncolumns = 2;
    return pm_output_write(out, "FOOT", 4);
}

static void raw_discard(void *ctx) { ((raw_ctx *)ctx)->discards++; }

static void test_raw_body(void **state)
{
    (void)state;
    wfx f = wfx_new(RT64);
    raw_ctx rc = {0, 0, 0};
    pm_rolling_raw_body raw = {&rc, raw_open, raw_finish, raw_discard};
    pm_rolling_file_writer_options o = wopts(&f, "parquet");
    o.raw = &raw;
    o.target_rows = 10;
    o.start_seq = 5;
    pm_rolling_file_writer *w = NULL;
    PM_OK_OR_FAIL(pm_rolling_file_writer_new(&w, &o));
    pm_batch *b = seq_rows(0, 2);
    PM_EXPECT_ERR(pm_rolling_file_writer_write(w, b), PM_EINTERNAL); /* raw writes only */
    pm_batch_free(b);
    for (int k = 0; k < 3; k++) {
        pm_output *out = NULL;
        PM_OK_OR_FAIL(pm_rolling_file_writer_raw_begin(w, 6, &out));
        PM_OK_OR_FAIL(pm_output_write(out, "rows", 4));
        PM_OK_OR_FAIL(pm_rolling_file_writer_raw_end(w, 6));
    }
    PM_OK_OR_FAIL(pm_rolling_file_writer_close_file(w));
    /* a failed copy: the open file goes, the writer goes on */
    pm_output *out = NULL;
    PM_OK_OR_FAIL(pm_rolling_file_writer_raw_begin(w, 1, &out));
    pm_rolling_file_writer_discard_open(w);
    pm_data_file_meta *fs = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_rolling_file_writer_finish(w, &fs, &n));
    assert_int_equal(n, 3); /* 6 + 6 would pass 10: each 6 starts a file */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(fs[i].row_count, 6);
        assert_int_equal(fs[i].file_size, 12);
        assert_int_equal(fs[i].min_sequence_number, 5 + 6 * (int64_t)i);
        char *p = pm_path_join(f.dir, fs[i].file_name);
        size_t len = 0;
        uint8_t *data = pm_test_read_file(p, &len);
        assert_int_equal(len, 12);
        assert_memory_equal(data, "HEADrowsFOOT", 12);
        free(data);
        free(p);
    }
    assert_int_equal(rc.opens, 4);
    assert_int_equal(rc.finishes, 3);
    assert_int_equal(rc.discards, 4); /* every released file, closed or not */
    assert_int_equal(files_in(f.dir), 3);
    free_files(fs, n);
    pm_rolling_file_writer_free(w);
    wfx_free(&f);
}

/* Fault points, abort and discard leave nothing behind. */
static void test_faults_abort_discard(void **state)
{
    (void)state;
    wfx f = wfx_new(RT64);
    pm_rolling_file_writer_options o = wopts(&f, "avro");
    o.fault_open = "test-open";
    o.fault_close = "test-close";
    o.target_rows = 100;
    pm_rolling_file_writer *w = NULL;
    PM_OK_OR_FAIL(pm_rolling_file_writer_new(&w, &o));
    pm_batch *b = seq_rows(0, 150);
    setenv("PAIMON_FAULT_INJECT", "test-open", 1);
    PM_EXPECT_ERR(pm_rolling_file_writer_write(w, b), PM_EIO);
    assert_int_equal(files_in(f.dir), 0);
    setenv("PAIMON_FAULT_INJECT", "test-close", 1);
    PM_EXPECT_ERR(pm_rolling_file_writer_write(w, b), PM_EIO); /* the first file fails to close */
    assert_int_equal(files_in(f.dir), 0);
    unsetenv("PAIMON_FAULT_INJECT");
    PM_OK_OR_FAIL(pm_rolling_file_writer_write(w, b));
    assert_int_equal(pm_rolling_file_writer_pending(w), 1);
    assert_true(pm_rolling_file_writer_is_open(w));
    assert_int_equal(files_in(f.dir), 2);
    pm_rolling_file_writer_discard_open(w);
    assert_false(pm_rolling_file_writer_is_open(w));
    assert_int_equal(files_in(f.dir), 1);
    PM_OK_OR_FAIL(pm_rolling_file_writer_write(w, b));
    pm_rolling_file_writer_abort(w); /* finished and open files go */
    assert_int_equal(files_in(f.dir), 0);
    pm_batch_free(b);

    o.format = "lance";
    PM_EXPECT_ERR(pm_rolling_file_writer_new(&w, &o), PM_EUNSUPPORTED);
    o.format = "parquet";
    o.target_rows = 0;
    PM_EXPECT_ERR(pm_rolling_file_writer_new(&w, &o), PM_EINVALID);
    wfx_free(&f);
}

/* A view shares the rows; a start that is not a multiple of 8 copies. */
static void test_batch_view(void **state)
{
    (void)state;
    pm_batch *b = seq_rows(100, 20);
    assert_true(pm_roll_viewable(b));
    pm_column cols[2];
    pm_column *ptrs[2];
    pm_batch v;
    pm_roll_batch_view(&v, cols, ptrs, b, 8, 5);
    assert_int_equal(v.num_rows, 5);
    for (int64_t r = 0; r < 5; r++) {
        assert_int_equal(pm_column_i64(v.columns[0], r), 108 + r);
        size_t n = 0;
        const uint8_t *p = pm_column_bytes(v.columns[1], r, &n);
        char want[8];
        snprintf(want, sizeof want, "v%d", (int)(8 + r));
        assert_int_equal(n, strlen(want));
        assert_memory_equal(p, want, n);
    }
    pm_batch_free(b);
    pm_batch *nested = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&nested, "ROW<l ARRAY<INT>>", "{\"l\":[1]}\n", 10));
    assert_false(pm_roll_viewable(nested));
    pm_batch_free(nested);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_range_and_raw_bytes),
        cmocka_unit_test(test_col_stats_from_accumulators),
        cmocka_unit_test(test_meta_keys_stamp_and_list),
        cmocka_unit_test(test_avro_codec),
        cmocka_unit_test(test_roll_at_row_count),
        cmocka_unit_test(test_roll_at_size),
        cmocka_unit_test(test_key_value_layout),
        cmocka_unit_test(test_raw_body),
        cmocka_unit_test(test_faults_abort_discard),
        cmocka_unit_test(test_batch_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
