/*
 * tests/unit/parquet/test_pq_read_skip.c — passing over rows
 * (pm_pq_reader_skip): random stretches skipped and read alternately,
 * starting and ending mid-page and mid-row-group, give exactly the rows a
 * full read gives at those positions (flat required, optional dictionary,
 * optional byte-string and nested ARRAY fields, several row groups, small
 * pages); a stretch ending on a page boundary passes its pages over by
 * their headers (counted: pm_pq_reader_page_counts, none decompressed);
 * skipping past the end stops there; a negative count is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_test.h"
#include "pm_test_pq.h"
#include "base/arena.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "format/parquet/pq_read_index.h"
#include "io/fileio.h"
#include "types/column.h"

#define NROWS 6000

static const char *TYPE = "ROW<id BIGINT NOT NULL, k INT, s STRING, a ARRAY<INT>>";

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void string_of(int64_t i, char s[12])
{
    uint64_t h = mix((uint64_t)i);
    for (int k = 0; k < 12; k++, h >>= 5)
        s[k] = (char)('a' + (h & 15));
}

static char *write_file(const pm_type *t)
{
    char *path = pm_test_path("skip.parquet");
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    for (int64_t i = 0; i < NROWS; i++) {
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], i));
        if (i % 5 == 0)
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[1]));
        else
            PM_OK_OR_FAIL(pm_column_append_i32(b->columns[1], (int32_t)(i % 7)));
        if (i % 9 == 0) {
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[2]));
        } else {
            char s[12];
            string_of(i, s);
            PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[2], s, sizeof s));
        }
        if (i % 11 == 0) {
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[3]));
        } else {
            for (int64_t e = 0; e < i % 3; e++)
                PM_OK_OR_FAIL(pm_column_append_i32(b->columns[3]->children[0], (int32_t)(i + e)));
            PM_OK_OR_FAIL(pm_column_end_nested(b->columns[3]));
        }
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, NROWS));
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.codec = PM_CODEC_ZSTD;
    o.page_row_limit = 100;
    o.row_group_size = 8 * 1024;
    pm_test_pq_write(path, b, &o, NULL);
    pm_batch_free(b);
    return path;
}

/* Row i of the batch holds file row `row` as written. */
static void check_row(const pm_batch *b, int64_t i, int64_t row)
{
    assert_int_equal(pm_column_i64(b->columns[0], i), row);
    const pm_column *k = b->columns[1], *s = b->columns[2], *a = b->columns[3];
    assert_int_equal(pm_column_is_null(k, i), row % 5 == 0);
    if (row % 5)
        assert_int_equal(pm_column_i32(k, i), row % 7);
    assert_int_equal(pm_column_is_null(s, i), row % 9 == 0);
    if (row % 9) {
        char want[12];
        string_of(row, want);
        size_t n;
        const uint8_t *p = pm_column_bytes(s, i, &n);
        assert_int_equal(n, sizeof want);
        assert_memory_equal(p, want, sizeof want);
    }
    assert_int_equal(pm_column_is_null(a, i), row % 11 == 0);
    if (row % 11) {
        const int32_t *off = (const int32_t *)(const void *)a->offsets.data;
        assert_int_equal(off[i + 1] - off[i], row % 3);
        for (int32_t e = off[i]; e < off[i + 1]; e++)
            assert_int_equal(pm_column_i32(a->children[0], e), row + (e - off[i]));
    }
}

static void open_file(pm_test_pq_file *f, const char *path, int64_t batch_rows, const char *const *cols, size_t ncols)
{
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.batch_rows = batch_rows;
    o.columns = cols;
    o.ncolumns = ncols;
    pm_test_pq_open_path(f, path, &o);
}

static void test_random_stretches(void **state)
{
    (void)state;
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, TYPE));
    char *path = write_file(t);
    uint64_t seed = 7;
    uint64_t skipped_pages = 0;
    for (int round = 0; round < 20; round++) {
        pm_test_pq_file f;
        int64_t batch_rows = 16 + (int64_t)(mix(seed++) % 300);
        open_file(&f, path, batch_rows, NULL, 0);
        assert_true(pm_pq_reader_meta(f.r)->num_row_groups > 2);
        int64_t pos = 0;
        for (;;) {
            int64_t want = (int64_t)(mix(seed++) % (round % 2 ? 2500 : 700)), got = -1;
            PM_OK_OR_FAIL(pm_pq_reader_skip(f.r, want, &got));
            assert_int_equal(got, pos + want <= NROWS ? want : NROWS - pos);
            pos += got;
            int64_t reads = 1 + (int64_t)(mix(seed++) % 3);
            pm_batch *b = NULL;
            for (int64_t k = 0; k < reads; k++) {
                PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
                if (!b)
                    break;
                assert_true(b->num_rows <= batch_rows);
                for (int64_t i = 0; i < b->num_rows; i++)
                    check_row(b, i, pos + i);
                pos += b->num_rows;
            }
            if (!b)
                break;
        }
        assert_int_equal(pos, NROWS);
        uint64_t sk = 0;
        pm_pq_reader_page_counts(f.r, NULL, &sk);
        skipped_pages += sk;
        pm_test_pq_close(&f);
    }
    assert_true(skipped_pages > 0);
    free(path);
    pm_type_free(t);
}

static void test_whole_pages_not_decompressed(void **state)
{
    (void)state;
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, TYPE));
    char *path = write_file(t);
    /* the pages of `id` in row group 0, from its offset index */
    const char *cols[] = {"id"};
    pm_test_pq_file f;
    open_file(&f, path, 64, cols, 1);
    const pm_pq_file_meta *m = pm_pq_reader_meta(f.r);
    const pq_column_chunk *cc = &m->row_groups[0].columns[0];
    assert_true(cc->has_offset_index);
    uint8_t *bytes = malloc((size_t)cc->offset_index_length);
    assert_non_null(bytes);
    PM_OK_OR_FAIL(pm_input_read_at(f.in, (uint64_t)cc->offset_index_offset, bytes, (size_t)cc->offset_index_length));
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_offset_index oi;
    PM_OK_OR_FAIL(pq_offset_index_parse(&oi, bytes, (size_t)cc->offset_index_length, &a));
    assert_true(oi.n > 6);
    int64_t start5 = oi.pages[5].first_row;
    assert_true(oi.pages[6].first_row - start5 > 64);
    uint64_t loaded = 9, skipped = 9;
    int64_t got = 0;
    /* pages 0-4 passed over by their headers: nothing decompressed */
    PM_OK_OR_FAIL(pm_pq_reader_skip(f.r, start5, &got));
    assert_int_equal(got, start5);
    pm_pq_reader_page_counts(f.r, &loaded, &skipped);
    assert_int_equal(loaded, 0);
    assert_int_equal(skipped, 5);
    pm_batch *b;
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
    assert_non_null(b);
    assert_int_equal(pm_column_i64(b->columns[0], 0), start5);
    pm_pq_reader_page_counts(f.r, &loaded, &skipped);
    assert_int_equal(loaded, 1);
    /* from inside page 5 to the middle of page 7: page 6 passed over,
     * 5 and 7 decoded */
    int64_t mid7 = oi.pages[7].first_row + 3;
    PM_OK_OR_FAIL(pm_pq_reader_skip(f.r, mid7 - (start5 + b->num_rows), &got));
    pm_pq_reader_page_counts(f.r, &loaded, &skipped);
    assert_int_equal(skipped, 6);
    assert_int_equal(loaded, 2);
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
    assert_non_null(b);
    assert_int_equal(pm_column_i64(b->columns[0], 0), mid7);
    /* the rest of the file: every later row group whole, never opened */
    PM_OK_OR_FAIL(pm_pq_reader_skip(f.r, NROWS, &got));
    assert_int_equal(got, NROWS - mid7 - b->num_rows);
    PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
    assert_null(b);
    PM_OK_OR_FAIL(pm_pq_reader_skip(f.r, 10, &got));
    assert_int_equal(got, 0);
    PM_EXPECT_ERR(pm_pq_reader_skip(f.r, -1, &got), PM_EINVALID);
    pm_arena_free(&a);
    free(bytes);
    pm_test_pq_close(&f);
    free(path);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_stretches),
        cmocka_unit_test(test_whole_pages_not_decompressed),
    };
    return cmocka_run_group_tests(tests, pm_test_dir_setup, pm_test_dir_teardown);
}
