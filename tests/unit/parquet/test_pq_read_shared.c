/*
 * tests/unit/parquet/test_pq_read_shared.c — reading files one after
 * another with one borrowed decompression context
 * (pm_pq_reader_options.codec), and both ways the reader fetches bytes:
 * a small file read whole at open, a large one (> 256 KiB) through 1 MiB
 * windows of its column chunks.
 * Each file is read from disk with its own context, with the shared
 * context, and from memory: every way must give the same rows; so must a
 * reader given the footer already parsed (pm_pq_reader_options.meta, and
 * chunks_only: the small file not read whole), which still checks the
 * magic.
 * A chain of readers each given the previous one to recycle
 * (pm_pq_reader_options.recycle: its chunk and whole-file buffers), over
 * small and large files of growing and shrinking sizes, reads the same rows
 * as fresh readers; a failed open leaves the old reader freeable.  Of the
 * same projection, the new reader takes the old one's batch (its spare
 * columns come back); of another, it makes its own.
 * Byte strings read with their offsets written in place (a batch column's
 * first page without nulls) and through the rebasing copy give the same
 * values, batches of any size.
 */
#include <stdio.h>
#include <string.h>

#include "pm_test.h"
#include "pm_test_pq.h"
#include "codec/codec.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "types/column.h"

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* rows of (id BIGINT NOT NULL, s STRING): s is 24 pseudo-random letters
 * (hardly compressible), null every 9th row */
static char *write_file(const char *name, const pm_type *t, int64_t n, int64_t rg_size, uint64_t *size)
{
    size_t plen = strlen(pm_test_dir) + strlen(name) + 2;
    char *path = malloc(plen);
    assert_non_null(path);
    snprintf(path, plen, "%s/%s", pm_test_dir, name);
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    for (int64_t i = 0; i < n; i++) {
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], i));
        if (i % 9 == 0) {
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[1]));
            continue;
        }
        char s[25];
        uint64_t h = mix((uint64_t)i);
        for (int k = 0; k < 24; k++) {
            if (k == 12)
                h = mix(h);
            s[k] = (char)('a' + (h & 15) + (k % 2) * 10);
            h >>= 4;
        }
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[1], (const uint8_t *)s, 24));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, n));
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.codec = PM_CODEC_ZSTD;
    o.row_group_size = rg_size;
    pm_test_pq_write(path, b, &o, size);
    pm_batch_free(b);
    return path;
}

/* Every row of the reader as "id|s" lines (s "-" for null). */
static char *dump(pm_pq_reader *r, int64_t *rows)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    *rows = 0;
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_pq_reader_next_batch(r, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            const pm_column *id = b->columns[0], *s = b->columns[1];
            fprintf(f, "%lld|", (long long)pm_column_i64(id, i));
            if (pm_column_is_null(s, i)) {
                fputs("-\n", f);
            } else {
                size_t n;
                const uint8_t *p = pm_column_bytes(s, i, &n);
                fprintf(f, "%.*s\n", (int)n, (const char *)p);
            }
        }
        *rows += b->num_rows;
    }
    fclose(f);
    return text;
}

static char *read_disk(const char *path, pm_codec_ctx *codec, int64_t *rows)
{
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_input *in;
    PM_OK_OR_FAIL(pm_input_open(fio, path, &in));
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.codec = codec;
    pm_pq_reader *r;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r, in, &o));
    char *text = dump(r, rows);
    pm_pq_reader_free(r);
    pm_input_close(in);
    pm_fileio_free(fio);
    return text;
}

static char *read_mem(const char *path, uint64_t size, int64_t *rows)
{
    uint8_t *data = malloc(size);
    assert_non_null(data);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(data, 1, size, f), size);
    fclose(f);
    pm_pq_reader *r;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, data, size, NULL));
    char *text = dump(r, rows);
    pm_pq_reader_free(r);
    free(data);
    return text;
}


/* A reader given the footer another reader parsed (footer_only), reading
 * only its chunks. */
static char *read_given(const char *path, int64_t *rows)
{
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_input *in;
    PM_OK_OR_FAIL(pm_input_open(fio, path, &in));
    pm_pq_reader_options fo = PM_PQ_READER_OPTIONS_INIT;
    fo.footer_only = true;
    pm_pq_reader *r0;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r0, in, &fo));
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.meta = pm_pq_reader_meta(r0);
    o.chunks_only = true;
    pm_pq_reader *r;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r, in, &o));
    assert_ptr_equal(pm_pq_reader_meta(r), o.meta);
    char *text = dump(r, rows);
    pm_pq_reader_free(r);
    pm_pq_reader_free(r0);
    pm_input_close(in);
    pm_fileio_free(fio);
    return text;
}

static void test_shared_codec_small_and_large(void **state)
{
    (void)state;
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<id BIGINT NOT NULL, s STRING>"));
    uint64_t small_size = 0, large_size = 0;
    char *small = write_file("small.parquet", t, 500, 128 * 1024, &small_size);
    /* one row group: the string chunk (> 1 MiB) is read in several windows */
    char *large = write_file("large.parquet", t, 120000, 64 << 20, &large_size);
    assert_true(small_size <= 256 * 1024);  /* read whole at open */
    assert_true(large_size > 1536 * 1024);  /* read window by window */
    pm_codec_ctx *shared;
    PM_OK_OR_FAIL(pm_codec_ctx_new(&shared));
    const char *paths[] = {small, large, small, large};
    uint64_t sizes[] = {small_size, large_size, small_size, large_size};
    int64_t want_rows[] = {500, 120000, 500, 120000};
    for (size_t i = 0; i < 4; i++) {
        int64_t r1, r2, r3, r4;
        char *given = read_given(paths[i], &r4);
        assert_int_equal(r4, want_rows[i]);
        char *own = read_disk(paths[i], NULL, &r1);
        char *sh = read_disk(paths[i], shared, &r2);
        char *mem = read_mem(paths[i], sizes[i], &r3);
        assert_int_equal(r1, want_rows[i]);
        assert_int_equal(r2, want_rows[i]);
        assert_int_equal(r3, want_rows[i]);
        assert_string_equal(own, mem);
        assert_string_equal(sh, mem);
        assert_string_equal(given, mem);
        free(given);
        assert_non_null(strstr(own, "0|-\n"));
        free(own);
        free(sh);
        free(mem);
    }
    pm_codec_ctx_free(shared);
    free(small);
    free(large);
    pm_type_free(t);
}

/* A small file (read whole) with a damaged first page header: the error
 * comes from the bytes read at open, as it would chunk by chunk. */
static void test_small_file_damaged(void **state)
{
    (void)state;
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<id BIGINT NOT NULL, s STRING>"));
    uint64_t size = 0;
    char *path = write_file("cut.parquet", t, 300, 128 * 1024, &size);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 4, SEEK_SET), 0);
    fputs("XXXXXXXX", f); /* damage the first page header */
    fclose(f);
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_input *in;
    PM_OK_OR_FAIL(pm_input_open(fio, path, &in));
    pm_pq_reader *r;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r, in, NULL));
    {
        /* given the footer, a chunks-only reader meets the damage too */
        pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
        o.meta = pm_pq_reader_meta(r);
        o.chunks_only = true;
        pm_pq_reader *r2;
        PM_OK_OR_FAIL(pm_pq_reader_open(&r2, in, &o));
        pm_batch *b2 = NULL;
        pm_error *e2 = pm_pq_reader_next_batch(r2, &b2);
        assert_non_null(e2);
        pm_error_free(e2);
        pm_pq_reader_free(r2);
    }
    pm_batch *b = NULL;
    pm_error *e = pm_pq_reader_next_batch(r, &b);
    assert_non_null(e);
    pm_error_free(e);
    /* the magic is checked even with a given footer */
    f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    fputs("XXXX", f);
    fclose(f);
    pm_input *in2;
    PM_OK_OR_FAIL(pm_input_open(fio, path, &in2));
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.meta = pm_pq_reader_meta(r);
    pm_pq_reader *r3 = NULL;
    PM_EXPECT_ERR(pm_pq_reader_open(&r3, in2, &o), PM_ECORRUPT);
    pm_input_close(in2);
    pm_pq_reader_free(r);
    pm_input_close(in);
    pm_fileio_free(fio);
    free(path);
    pm_type_free(t);
}

/* Reader i takes the buffers of reader i - 1 (recycle), which is then
 * freed: the rows stay those of a fresh reader. */
static void test_recycled_buffers(void **state)
{
    (void)state;
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<id BIGINT NOT NULL, s STRING>"));
    uint64_t sz[4] = {0};
    char *p[4];
    p[0] = write_file("r500.parquet", t, 500, 128 * 1024, &sz[0]);
    p[1] = write_file("r3000.parquet", t, 3000, 128 * 1024, &sz[1]);
    p[2] = write_file("r60.parquet", t, 60, 128 * 1024, &sz[2]);
    p[3] = write_file("r120k.parquet", t, 120000, 64 << 20, &sz[3]);
    assert_true(sz[0] < sz[1] && sz[1] <= 256 * 1024 && sz[3] > 1536 * 1024);
    int64_t want[4] = {500, 3000, 60, 120000};
    /* small, bigger small (a new whole-file buffer), smaller (the buffer
     * reused), large (windows), small, large, large */
    const int order[] = {0, 1, 2, 0, 3, 0, 3, 3, 2};
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_codec_ctx *codec;
    PM_OK_OR_FAIL(pm_codec_ctx_new(&codec));
    pm_pq_reader *prev = NULL;
    pm_input *prev_in = NULL;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int i = order[k];
        pm_input *in;
        PM_OK_OR_FAIL(pm_input_open(fio, p[i], &in));
        pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
        o.codec = codec;
        o.recycle = prev;
        size_t before = prev ? pm_pq_reader_memory(prev) : 0;
        pm_pq_reader *r;
        PM_OK_OR_FAIL(pm_pq_reader_open(&r, in, &o));
        if (prev) {
            /* what the new reader took, the old one no longer holds: a
             * small file's whole-file buffer when the new file fits, a
             * large file's chunk buffers (window, page, levels) always */
            int j = order[k - 1];
            size_t after = pm_pq_reader_memory(prev);
            assert_true(after <= before);
            if (j == 3 || sz[i] <= sz[j])
                assert_true(after < before);
            if (after < before)
                assert_true(pm_pq_reader_memory(r) >= before - after);
            pm_pq_reader_free(prev);
            pm_input_close(prev_in);
        }
        int64_t rows, mrows;
        char *text = dump(r, &rows);
        char *mem = read_mem(p[i], sz[i], &mrows);
        assert_int_equal(rows, want[i]);
        assert_int_equal(mrows, want[i]);
        assert_string_equal(text, mem);
        free(text);
        free(mem);
        prev = r;
        prev_in = in;
    }
    /* a failed open (damaged magic) with a reader to recycle: both the
     * failure and the old reader are cleaned up without a leak */
    FILE *f = fopen(p[2], "r+b");
    assert_non_null(f);
    fputs("XXXX", f);
    fclose(f);
    pm_input *bad;
    PM_OK_OR_FAIL(pm_input_open(fio, p[2], &bad));
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.recycle = prev;
    pm_pq_reader *r = NULL;
    PM_EXPECT_ERR(pm_pq_reader_open(&r, bad, &o), PM_ECORRUPT);
    assert_null(r);
    pm_pq_reader_free(prev);
    pm_input_close(prev_in);
    pm_input_close(bad);
    pm_codec_ctx_free(codec);
    pm_fileio_free(fio);
    for (int i = 0; i < 4; i++)
        free(p[i]);
    pm_type_free(t);
}

/* A recycled reader of the same projection hands its batch (columns and
 * spare columns, pm_batch_keep_spares) to the next file's reader: the
 * next reader's batches are the old reader's batch, its column buffers
 * reused; another projection gets a batch of its own. */
static void test_recycled_batch(void **state)
{
    (void)state;
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<id BIGINT NOT NULL, s STRING>"));
    uint64_t sz[2];
    char *p[2];
    p[0] = write_file("b3000.parquet", t, 3000, 128 * 1024, &sz[0]);
    p[1] = write_file("b120k.parquet", t, 120000, 64 << 20, &sz[1]);
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_input *in0, *in1, *in2;
    PM_OK_OR_FAIL(pm_input_open(fio, p[1], &in0));
    PM_OK_OR_FAIL(pm_input_open(fio, p[0], &in1));
    PM_OK_OR_FAIL(pm_input_open(fio, p[1], &in2));
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    pm_pq_reader *r0, *r1, *r2;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r0, in0, &o));
    pm_batch *b0, *b;
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(r0, &b0));
    assert_non_null(b0);
    /* a consumer holds the last batch's string column: the next batch
     * replaces it by a fresh one, which becomes the spare */
    pm_column *held = pm_column_retain(pm_batch_column(b0, 1));
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(r0, &b));
    assert_ptr_equal(b, b0);
    assert_int_equal(b0->columns_fresh, 1);
    pm_column_release(held);
    held = pm_column_retain(pm_batch_column(b0, 1));
    o.recycle = r0;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r1, in1, &o)); /* r0 stays alive: its batch must move */
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(r1, &b));
    assert_ptr_equal(b, b0);
    assert_int_equal(b->columns_reused, 1); /* the spare released before came back */
    assert_int_equal(b->num_rows, 3000);
    assert_int_equal(pm_column_i64(pm_batch_column(b, 0), 2999), 2999);
    pm_column_release(held);
    pm_pq_reader_free(r0);
    /* another projection: a batch of its own */
    const char *only_id[] = {"id"};
    pm_pq_reader_options o2 = PM_PQ_READER_OPTIONS_INIT;
    o2.columns = only_id;
    o2.ncolumns = 1;
    o2.recycle = r1;
    PM_OK_OR_FAIL(pm_pq_reader_open(&r2, in2, &o2));
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(r2, &b));
    assert_ptr_not_equal(b, b0);
    assert_int_equal(b->ncolumns, 1);
    pm_pq_reader_free(r1);
    pm_pq_reader_free(r2);
    pm_input_close(in0);
    pm_input_close(in1);
    pm_input_close(in2);
    pm_fileio_free(fio);
    for (int i = 0; i < 2; i++)
        free(p[i]);
    pm_type_free(t);
}

/* Byte strings whose offsets the reader writes straight into the batch
 * column (pm_pq_reader_offsets_in_place: a column's first page of a batch,
 * no nulls) and those going through the rebasing copy (later pages of a
 * batch, pages with nulls) read the same values: PLAIN pages of 700 rows,
 * empty, short and long strings, batches of several sizes cutting pages
 * anywhere. */
static void offsets_row(int64_t i, char *buf, size_t *len, bool *null)
{
    uint64_t h = mix((uint64_t)i);
    *null = h % 11 == 0;
    size_t n = (size_t)(h >> 8) % 5 == 0 ? 0 : (size_t)(h >> 16) % 70;
    for (size_t k = 0; k < n; k++)
        buf[k] = (char)('a' + (k + (size_t)i) % 26);
    *len = n;
}

static void test_offsets_in_place(void **state)
{
    (void)state;
    enum { N = 5000 };
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<s STRING NOT NULL, u STRING>"));
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    char buf[80];
    for (int64_t i = 0; i < N; i++) {
        size_t n;
        bool null;
        offsets_row(i, buf, &n, &null);
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[0], (const uint8_t *)buf, n));
        PM_OK_OR_FAIL(null ? pm_column_append_null(b->columns[1])
                           : pm_column_append_bytes(b->columns[1], (const uint8_t *)buf, n));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, N));
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.dictionary = false;
    o.page_row_limit = 700;
    char *path = pm_test_path("offsets.parquet");
    pm_test_pq_write(path, b, &o, NULL);
    pm_batch_free(b);
    const int64_t sizes[] = {1, 333, 700, 1000, 4096, 10000};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
        ro.batch_rows = sizes[si];
        pm_test_pq_file f;
        pm_test_pq_open_path(&f, path, &ro);
        int64_t row = 0;
        for (;;) {
            pm_batch *got;
            PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &got));
            if (!got)
                break;
            for (int64_t i = 0; i < got->num_rows; i++, row++) {
                size_t n, gn;
                bool null;
                offsets_row(row, buf, &n, &null);
                const uint8_t *g = pm_column_bytes(got->columns[0], i, &gn);
                assert_int_equal(gn, n);
                assert_memory_equal(g, buf, n);
                assert_int_equal(pm_column_is_null(got->columns[1], i), null);
                if (!null) {
                    g = pm_column_bytes(got->columns[1], i, &gn);
                    assert_int_equal(gn, n);
                    assert_memory_equal(g, buf, n);
                }
            }
        }
        assert_int_equal(row, N);
        uint64_t in_place = pm_pq_reader_offsets_in_place(f.r);
        /* every batch's first piece of `s` at least (all of it in batches
         * of one row); never all of `u` (nulls) */
        int64_t batches = (N + sizes[si] - 1) / sizes[si];
        assert_true(in_place >= (uint64_t)(sizes[si] == 1 ? N : batches));
        assert_true(in_place < 2 * (uint64_t)N);
        pm_test_pq_close(&f);
    }
    free(path);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_codec_small_and_large),
        cmocka_unit_test(test_small_file_damaged),
        cmocka_unit_test(test_recycled_buffers),
        cmocka_unit_test(test_recycled_batch),
        cmocka_unit_test(test_offsets_in_place),
    };
    return cmocka_run_group_tests(tests, pm_test_dir_setup, pm_test_dir_teardown);
}
