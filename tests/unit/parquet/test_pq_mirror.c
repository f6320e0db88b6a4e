/*
 * tests/unit/parquet/test_pq_mirror.c — mirrored columns in the Parquet
 * writer (parquet_writer.h): a field whose column in the batch is the very
 * column object of an earlier field of the same type repeats that field's
 * chunk instead of encoding it again.
 *   - a file written with shared columns is byte for byte the file written
 *     with equal but separate columns (several row groups and pages, nulls,
 *     strings), with the same per-field statistics;
 *   - a batch whose columns are separate objects with the same values
 *     keeps the row group's mirrors (the same file again);
 *   - a batch whose values differ ends the row group first: every chunk
 *     holds its own field's values;
 *   - random batches mixing the three cases read back as written;
 *   - pm_column_same_values against a row-by-row comparison.
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

/* a BIGINT NOT NULL, s STRING, c BIGINT NOT NULL (mirrors a), t STRING
 * (mirrors s), n INT, m INT (mirrors n), d DOUBLE (never shared) */
static pm_type *schema(void)
{
    pm_type *t = pm_type_new_row(false);
    assert_non_null(t);
    PM_OK_OR_FAIL(pm_type_add_field(t, 0, "a", pm_type_new(PM_TYPE_BIGINT, false)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 1, "s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 2, "c", pm_type_new(PM_TYPE_BIGINT, false)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 3, "t", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 4, "n", pm_type_new(PM_TYPE_INT, true)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 5, "m", pm_type_new(PM_TYPE_INT, true)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 6, "d", pm_type_new(PM_TYPE_DOUBLE, true)));
    return t;
}

enum { SHARED, EQUAL, DIFFERENT };
static const int pairs[3][2] = {{0, 2}, {1, 3}, {4, 5}};

static void append_row(pm_batch *b, int col, int64_t i, bool other)
{
    char tmp[64];
    pm_column *c = b->columns[col];
    int64_t v = other ? i * 31 + 7 : i * 3;
    switch (col) {
    case 0:
    case 2:
        PM_OK_OR_FAIL(pm_column_append_i64(c, v));
        break;
    case 1:
    case 3:
        if (i % 11 == 5) {
            PM_OK_OR_FAIL(pm_column_append_null(c));
        } else {
            int k = snprintf(tmp, sizeof tmp, "v%lld-%llx", (long long)(v % 5000),
                             (unsigned long long)(v * 2654435761u));
            PM_OK_OR_FAIL(pm_column_append_bytes(c, tmp, (size_t)k));
        }
        break;
    case 4:
    case 5:
        if (i % 7 == 2)
            PM_OK_OR_FAIL(pm_column_append_null(c));
        else
            PM_OK_OR_FAIL(pm_column_append_i32(c, (int32_t)(v % 100)));
        break;
    default:
        PM_OK_OR_FAIL(pm_column_append_f64(c, (double)i / 8));
    }
}

/* Rows [from, from + n); how the mirror fields get their columns. */
static pm_batch *rows(const pm_type *t, int64_t from, int64_t n, int how)
{
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    for (int64_t i = from; i < from + n; i++)
        for (int col = 0; col < 7; col++)
            append_row(b, col, i, how == DIFFERENT && (col == 2 || col == 3 || col == 5));
    PM_OK_OR_FAIL(pm_batch_finish(b, n));
    if (how == SHARED)
        for (int p = 0; p < 3; p++) {
            pm_column_release(b->columns[pairs[p][1]]);
            b->columns[pairs[p][1]] = pm_column_retain(b->columns[pairs[p][0]]);
        }
    return b;
}

static void write_file(const char *name, const pm_type *t, pm_batch *const *bs, size_t nb,
                       const pm_pq_writer_options *o, pm_pq_write_result *res)
{
    char *path = pm_test_path(name);
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_pq_writer *w;
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, o));
    for (size_t i = 0; i < nb; i++)
        PM_OK_OR_FAIL(pm_pq_writer_write(w, bs[i]));
    PM_OK_OR_FAIL(pm_pq_writer_close(w, res));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    pm_fileio_free(fio);
    free(path);
}

static void file_bytes(const char *name, pm_buf *out)
{
    char *path = pm_test_path(name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        PM_OK_OR_FAIL(pm_buf_append(out, tmp, k));
    fclose(f);
    free(path);
}

static uint32_t row_groups(const char *name)
{
    pm_test_pq_file f;
    pm_test_pq_open(&f, name);
    uint32_t n = pm_pq_reader_meta(f.r)->num_row_groups;
    pm_test_pq_close(&f);
    return n;
}

static void cell_text(const pm_column *c, int64_t i, pm_buf *out)
{
    char tmp[64];
    int k;
    if (pm_column_is_null(c, i)) {
        k = snprintf(tmp, sizeof tmp, "<null>");
    } else {
        switch (c->type->id) {
        case PM_TYPE_BIGINT:
            k = snprintf(tmp, sizeof tmp, "%lld", (long long)pm_column_i64(c, i));
            break;
        case PM_TYPE_INT:
            k = snprintf(tmp, sizeof tmp, "%d", pm_column_i32(c, i));
            break;
        case PM_TYPE_DOUBLE:
            k = snprintf(tmp, sizeof tmp, "%.17g", pm_column_f64(c, i));
            break;
        default: {
            size_t len;
            const uint8_t *p = pm_column_bytes(c, i, &len);
            PM_OK_OR_FAIL(pm_buf_append(out, p, len));
            k = 0;
        }
        }
    }
    PM_OK_OR_FAIL(pm_buf_append(out, tmp, (size_t)k));
    PM_OK_OR_FAIL(pm_buf_append(out, "|", 1));
}

static void batches_text(pm_batch *const *bs, size_t nb, pm_buf *out)
{
    for (size_t k = 0; k < nb; k++)
        for (int64_t i = 0; i < bs[k]->num_rows; i++) {
            for (size_t c = 0; c < bs[k]->ncolumns; c++)
                cell_text(bs[k]->columns[c], i, out);
            PM_OK_OR_FAIL(pm_buf_append(out, "\n", 1));
        }
}

static void file_text(const char *name, pm_buf *out)
{
    pm_test_pq_file f;
    pm_test_pq_open(&f, name);
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
        if (!b)
            break;
        batches_text(&b, 1, out); /* the reader's batch, valid until the next call */
    }
    pm_test_pq_close(&f);
}

static void assert_same_bytes(const char *x, const char *y)
{
    pm_buf a = {0}, b = {0};
    file_bytes(x, &a);
    file_bytes(y, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    pm_buf_free(&a);
    pm_buf_free(&b);
}

static void assert_reads_as(const char *name, pm_batch *const *bs, size_t nb)
{
    pm_buf a = {0}, b = {0};
    file_text(name, &a);
    batches_text(bs, nb, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    pm_buf_free(&a);
    pm_buf_free(&b);
}

static void options(pm_pq_writer_options *o)
{
    pm_pq_writer_options_default(o);
    o->page_size = 4096;            /* many pages */
    o->page_row_limit = 700;
    o->row_group_size = 96 * 1024;  /* several row groups */
}

static void free_batches(pm_batch **bs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_batch_free(bs[i]);
}

static void test_shared_is_the_same_file(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_pq_writer_options o;
    options(&o);
    pm_batch *shared[3] = {rows(t, 0, 5000, SHARED), rows(t, 5000, 3000, SHARED), rows(t, 8000, 7000, SHARED)};
    pm_batch *equal[3] = {rows(t, 0, 5000, EQUAL), rows(t, 5000, 3000, EQUAL), rows(t, 8000, 7000, EQUAL)};
    pm_pq_write_result rs = {0}, re = {0};
    write_file("shared.parquet", t, shared, 3, &o, &rs);
    write_file("equal.parquet", t, equal, 3, &o, &re);
    assert_true(row_groups("equal.parquet") > 2);
    assert_same_bytes("shared.parquet", "equal.parquet");
    assert_reads_as("shared.parquet", equal, 3);
    assert_int_equal(rs.ncolumns, re.ncolumns);
    for (size_t i = 0; i < rs.ncolumns; i++) {
        assert_int_equal(rs.stats[i].has_stats, re.stats[i].has_stats);
        assert_int_equal(rs.stats[i].null_count, re.stats[i].null_count);
        assert_int_equal(rs.stats[i].has_min_max, re.stats[i].has_min_max);
    }
    assert_int_equal(rs.stats[2].min.i, 0);
    assert_int_equal(rs.stats[2].max.i, 14999 * 3);
    assert_int_equal(rs.stats[5].null_count, rs.stats[4].null_count);
    assert_true(rs.stats[5].null_count > 0);
    assert_int_equal(rs.stats[3].min.bytes.len, re.stats[3].min.bytes.len);
    assert_memory_equal(rs.stats[3].min.bytes.data, re.stats[3].min.bytes.data, rs.stats[3].min.bytes.len);
    pm_pq_write_result_free(&rs);
    pm_pq_write_result_free(&re);

    /* separate columns with the same values inside a mirrored row group
     * (a copy of a slice): the same file again */
    pm_batch *mixed[3] = {shared[0], equal[1], shared[2]};
    write_file("mixed.parquet", t, mixed, 3, &o, NULL);
    assert_same_bytes("mixed.parquet", "equal.parquet");
    free_batches(shared, 3);
    free_batches(equal, 3);
    pm_type_free(t);
}

static void test_different_values_end_the_row_group(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_pq_writer_options o;
    options(&o);
    o.row_group_size = 128 * 1024 * 1024; /* one row group unless cut */
    pm_batch *bs[3] = {rows(t, 0, 3000, SHARED), rows(t, 3000, 2000, DIFFERENT), rows(t, 5000, 2500, SHARED)};
    write_file("diff.parquet", t, bs, 3, &o, NULL);
    assert_reads_as("diff.parquet", bs, 3);
    /* the shared row group ends before the different batch; that one does
     * not mirror, so the third batch joins its row group */
    assert_int_equal(row_groups("diff.parquet"), 2);
    pm_test_pq_file f;
    pm_test_pq_open(&f, "diff.parquet");
    assert_int_equal(pm_pq_reader_meta(f.r)->row_groups[0].num_rows, 3000);
    pm_test_pq_close(&f);

    pm_batch *one[1] = {bs[0]};
    write_file("one.parquet", t, one, 1, &o, NULL);
    assert_int_equal(row_groups("one.parquet"), 1);
    free_batches(bs, 3);
    pm_type_free(t);
}

static void test_random_batches(void **state)
{
    (void)state;
    pm_type *t = schema();
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 12; round++) {
        pm_pq_writer_options o;
        options(&o);
        o.row_group_size = (round % 3 + 1) * 40 * 1024;
        o.dictionary = round % 4 != 3;
        pm_batch *bs[8];
        size_t nb = 0;
        int64_t from = 0;
        size_t want = 2 + (size_t)(round % 6);
        while (nb < want) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int64_t n = 1 + (int64_t)((seed >> 33) % 4000);
            int how = (int)((seed >> 20) % 3);
            bs[nb++] = rows(t, from, n, how);
            from += n;
        }
        write_file("rand.parquet", t, bs, nb, &o, NULL);
        assert_reads_as("rand.parquet", bs, nb);
        free_batches(bs, nb);
    }
    pm_type_free(t);
}

/* pm_column_same_values against a comparison of the cells' text. */
static void test_same_values(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_batch *a = rows(t, 0, 300, EQUAL), *d = rows(t, 0, 300, DIFFERENT);
    for (int p = 0; p < 3; p++) {
        const pm_column *x = a->columns[pairs[p][0]], *y = a->columns[pairs[p][1]];
        assert_true(pm_column_same_values(x, y, 300));
        assert_true(pm_column_same_values(x, x, 300));
        assert_false(pm_column_same_values(x, d->columns[pairs[p][1]], 300));
        /* prefixes: equal up to the first row that differs */
        const pm_column *z = d->columns[pairs[p][1]];
        for (int64_t n = 0; n <= 40; n++) {
            bool same = true;
            for (int64_t i = 0; i < n; i++) {
                pm_buf u = {0}, v = {0};
                cell_text(x, i, &u);
                cell_text(z, i, &v);
                same &= u.len == v.len && !memcmp(u.data, v.data, u.len);
                pm_buf_free(&u);
                pm_buf_free(&v);
            }
            assert_int_equal(pm_column_same_values(x, z, n), same);
        }
    }
    /* another type, or more rows than the columns hold */
    assert_false(pm_column_same_values(a->columns[0], a->columns[4], 10));
    assert_false(pm_column_same_values(a->columns[0], a->columns[2], 301));
    pm_batch_free(a);
    pm_batch_free(d);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_is_the_same_file),
        cmocka_unit_test(test_different_values_end_the_row_group),
        cmocka_unit_test(test_random_batches),
        cmocka_unit_test(test_same_values),
    };
    return cmocka_run_group_tests(tests, pm_test_dir_setup, pm_test_dir_teardown);
}
