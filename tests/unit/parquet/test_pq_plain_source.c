/*
 * tests/unit/parquet/test_pq_plain_source.c — the plain-source hint
 * (compaction's dictionary switch):
 *   - the reader tells which columns were written without a dictionary
 *     (pm_pq_reader_column_no_dict): no dictionary page and no
 *     dictionary-encoded data page in any row group; a chunk that fell
 *     back after dictionary pages, or a file without rows, does not count;
 *   - the writer writes a hinted column PLAIN with no dictionary attempt
 *     (pm_pq_writer_set_plain_sources), an unhinted dictionary-friendly
 *     column still gets its dictionary; the values read back are the same
 *     as without hints;
 *   - a hint arriving inside a chunk that holds values changes nothing
 *     until the next row group.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_test.h"
#include "pm_test_pq.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "types/column.h"

/* id BIGINT (distinct), k INT (8 values), s STRING (10 values, every 7th
 * null), u STRING (distinct) */
static pm_type *schema(void)
{
    pm_type *t = pm_type_new_row(false);
    assert_non_null(t);
    PM_OK_OR_FAIL(pm_type_add_field(t, 0, "id", pm_type_new(PM_TYPE_BIGINT, false)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 1, "k", pm_type_new(PM_TYPE_INT, true)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 2, "s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 3, "u", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    return t;
}

/* u repeats 10 values below row `repeat_until`, then is distinct. */
static pm_batch *rows_u(const pm_type *t, int64_t from, int64_t n, int64_t repeat_until)
{
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    char tmp[64];
    for (int64_t i = from; i < from + n; i++) {
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], i * 7919));
        PM_OK_OR_FAIL(pm_column_append_i32(b->columns[1], (int32_t)(i % 8)));
        if (i % 7 == 3) {
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[2]));
        } else {
            int k = snprintf(tmp, sizeof tmp, "value-%d", (int)(i % 10));
            PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[2], tmp, (size_t)k));
        }
        int k = i < repeat_until ? snprintf(tmp, sizeof tmp, "r%d", (int)(i % 10))
                                 : snprintf(tmp, sizeof tmp, "u%lld-%llx", (long long)i,
                                            (unsigned long long)(i * 2654435761u));
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[3], tmp, (size_t)k));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, n));
    return b;
}

static pm_batch *rows(const pm_type *t, int64_t from, int64_t n)
{
    return rows_u(t, from, n, 0);
}

/* Write the batches; before batch i the hints hints[i] (NULL entries: none). */
static void write_file(const char *name, const pm_type *t, pm_batch *const *bs, size_t nb,
                       const bool *const *hints, const pm_pq_writer_options *o)
{
    char *path = pm_test_path(name);
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_pq_writer *w;
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, o));
    for (size_t i = 0; i < nb; i++) {
        if (hints)
            pm_pq_writer_set_plain_sources(w, hints[i], hints[i] ? t->nfields : 0);
        PM_OK_OR_FAIL(pm_pq_writer_write(w, bs[i]));
    }
    PM_OK_OR_FAIL(pm_pq_writer_close(w, NULL));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    pm_fileio_free(fio);
    free(path);
}

/* Whether chunk `leaf` of row group `rg` has a dictionary page or
 * dictionary-encoded data pages. */
static bool chunk_dict(const char *name, uint32_t rg, uint32_t leaf)
{
    pm_test_pq_file f;
    pm_test_pq_open(&f, name);
    const pm_pq_file_meta *m = pm_pq_reader_meta(f.r);
    assert_true(rg < m->num_row_groups);
    const pq_column_meta *cm = &m->row_groups[rg].columns[leaf].meta_data;
    bool has = cm->has_dictionary_page_offset;
    for (uint32_t i = 0; i < cm->num_encoding_stats; i++)
        has |= cm->encoding_stats[i].encoding == PQ_ENC_PLAIN_DICTIONARY && cm->encoding_stats[i].count > 0;
    pm_test_pq_close(&f);
    return has;
}

static uint32_t row_groups(const char *name)
{
    pm_test_pq_file f;
    pm_test_pq_open(&f, name);
    uint32_t n = pm_pq_reader_meta(f.r)->num_row_groups;
    pm_test_pq_close(&f);
    return n;
}

/* Every row as text lines. */
static void file_text(const char *name, pm_buf *out)
{
    pm_test_pq_file f;
    pm_test_pq_open(&f, name);
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            char tmp[64];
            int k = snprintf(tmp, sizeof tmp, "%lld|", (long long)pm_column_i64(b->columns[0], i));
            PM_OK_OR_FAIL(pm_buf_append(out, tmp, (size_t)k));
            if (pm_column_is_null(b->columns[1], i))
                k = snprintf(tmp, sizeof tmp, "<null>|");
            else
                k = snprintf(tmp, sizeof tmp, "%d|", pm_column_i32(b->columns[1], i));
            PM_OK_OR_FAIL(pm_buf_append(out, tmp, (size_t)k));
            for (int c = 2; c <= 3; c++) {
                const pm_column *col = b->columns[c];
                if (pm_column_is_null(col, i)) {
                    PM_OK_OR_FAIL(pm_buf_append(out, "<null>", 6));
                } else {
                    size_t len;
                    const uint8_t *p = pm_column_bytes(col, i, &len);
                    PM_OK_OR_FAIL(pm_buf_append(out, p, len));
                }
                PM_OK_OR_FAIL(pm_buf_append(out, c == 2 ? "|" : "\n", 1));
            }
        }
    }
    pm_test_pq_close(&f);
}

static void test_reader_no_dict(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.row_group_size = 64 * 1024; /* several row groups */
    pm_batch *b = rows(t, 0, 20000);
    write_file("d.parquet", t, &b, 1, NULL, &o);
    assert_true(row_groups("d.parquet") > 1);
    pm_test_pq_file f;
    pm_test_pq_open(&f, "d.parquet");
    assert_true(pm_pq_reader_column_no_dict(f.r, 0));  /* distinct: the first page fell back */
    assert_false(pm_pq_reader_column_no_dict(f.r, 1)); /* 8 values: dictionary */
    assert_false(pm_pq_reader_column_no_dict(f.r, 2)); /* 10 values: dictionary */
    assert_true(pm_pq_reader_column_no_dict(f.r, 3));
    assert_false(pm_pq_reader_column_no_dict(f.r, 4)); /* no such column */
    pm_test_pq_close(&f);

    /* a fallback after dictionary pages keeps a dictionary page: not plain */
    pm_pq_writer_options late = o;
    late.page_size = 1024;
    late.dictionary_page_size = 8 * 1024;
    pm_batch *lb = rows_u(t, 0, 20000, 2000);
    write_file("late.parquet", t, &lb, 1, NULL, &late);
    pm_batch_free(lb);
    pm_test_pq_open(&f, "late.parquet");
    assert_true(chunk_dict("late.parquet", 0, 3));
    assert_false(pm_pq_reader_column_no_dict(f.r, 3));
    pm_test_pq_close(&f);

    /* dictionaries off: every column */
    o.dictionary = false;
    write_file("p.parquet", t, &b, 1, NULL, &o);
    pm_test_pq_open(&f, "p.parquet");
    for (size_t i = 0; i < 4; i++)
        assert_true(pm_pq_reader_column_no_dict(f.r, i));
    pm_test_pq_close(&f);

    /* no rows: nothing to go by */
    pm_batch *empty = rows(t, 0, 0);
    write_file("e.parquet", t, &empty, 1, NULL, &o);
    pm_test_pq_open(&f, "e.parquet");
    for (size_t i = 0; i < 4; i++)
        assert_false(pm_pq_reader_column_no_dict(f.r, i));
    pm_test_pq_close(&f);
    pm_batch_free(empty);
    pm_batch_free(b);
    pm_type_free(t);
}

static void test_writer_hints(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    pm_batch *bs[2] = {rows(t, 0, 3000), rows(t, 3000, 3000)};
    write_file("none.parquet", t, bs, 2, NULL, &o);
    assert_true(chunk_dict("none.parquet", 0, 1));
    assert_true(chunk_dict("none.parquet", 0, 2));

    /* k and s hinted plain: written PLAIN although a dictionary would pay;
     * id and u (unhinted) still try theirs, k's sibling columns unchanged */
    bool h[4] = {false, true, true, false};
    const bool *hints[2] = {h, h};
    write_file("hint.parquet", t, bs, 2, hints, &o);
    assert_false(chunk_dict("hint.parquet", 0, 1));
    assert_false(chunk_dict("hint.parquet", 0, 2));
    assert_false(chunk_dict("hint.parquet", 0, 0)); /* distinct: fell back by itself */
    pm_buf a = {0}, c = {0};
    file_text("none.parquet", &a);
    file_text("hint.parquet", &c);
    assert_int_equal(a.len, c.len);
    assert_memory_equal(a.data, c.data, a.len);

    /* a hint cleared for the second batch: the chunk keeps PLAIN */
    const bool *first_only[2] = {h, NULL};
    write_file("first.parquet", t, bs, 2, first_only, &o);
    assert_false(chunk_dict("first.parquet", 0, 2));
    /* a hint arriving after values: the chunk keeps its dictionary */
    const bool *second_only[2] = {NULL, h};
    write_file("second.parquet", t, bs, 2, second_only, &o);
    assert_true(chunk_dict("second.parquet", 0, 2));
    pm_buf d = {0};
    file_text("second.parquet", &d);
    assert_memory_equal(a.data, d.data, a.len);

    /* ... and the next row group takes it */
    pm_pq_writer_options rg = o;
    rg.row_group_size = 32 * 1024;
    write_file("rg.parquet", t, bs, 2, second_only, &rg);
    uint32_t n = row_groups("rg.parquet");
    assert_true(n > 2);
    assert_true(chunk_dict("rg.parquet", 0, 2));
    assert_false(chunk_dict("rg.parquet", n - 1, 2));
    assert_true(chunk_dict("rg.parquet", n - 1, 3) == chunk_dict("none.parquet", 0, 3));
    pm_buf e = {0};
    file_text("rg.parquet", &e);
    assert_int_equal(a.len, e.len);
    assert_memory_equal(a.data, e.data, a.len);
    pm_buf_free(&a);
    pm_buf_free(&c);
    pm_buf_free(&d);
    pm_buf_free(&e);
    pm_batch_free(bs[0]);
    pm_batch_free(bs[1]);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_no_dict),
        cmocka_unit_test(test_writer_hints),
    };
    return cmocka_run_group_tests(tests, pm_test_dir_setup, pm_test_dir_teardown);
}
