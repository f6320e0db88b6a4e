/*
 * tests/unit/parquet/test_pq_dict_passthrough.c — dictionary passthrough
 * in the Parquet reader and writer (compaction's
 * parquet.read.enable-dictionary-passthrough):
 *   - the reader returns a requested STRING column as ids + the row
 *     group's dictionary only when every row group's data pages are
 *     dictionary-encoded (per file, per column); values are the plain
 *     read's;
 *   - the writer adopts the first dictionary of a row group, keeps it for
 *     batches of the same dictionary (or one with the same entries), falls
 *     back to PLAIN for the rest of the row group when another arrives, and
 *     starts afresh in the next row group; statistics and values are those
 *     of the plain rewrite;
 *   - encoded columns through pm_batch_filter, append_from / gather and
 *     pm_column_decode; ids outside the dictionary are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_test.h"
#include "dv/dv_apply.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "types/column.h"

static pm_type *schema(void)
{
    pm_type *t = pm_type_new_row(false);
    assert_non_null(t);
    PM_OK_OR_FAIL(pm_type_add_field(t, 0, "id", pm_type_new(PM_TYPE_BIGINT, false)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 1, "s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 2, "u", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    return t;
}

/* Rows [from, from + n): s = "<prefix>-(i % card)" (every 9th null), u =
 * "u<i>" (all distinct). */
static pm_batch *rows(const pm_type *t, const char *prefix, int card, int64_t from, int64_t n)
{
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    char tmp[64];
    for (int64_t i = from; i < from + n; i++) {
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], i));
        if (i % 9 == 4) {
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[1]));
        } else {
            int k = snprintf(tmp, sizeof tmp, "%s-%d", prefix, (int)(i % card));
            PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[1], tmp, (size_t)k));
        }
        int k = snprintf(tmp, sizeof tmp, "u%lld", (long long)i);
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[2], tmp, (size_t)k));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, n));
    return b;
}

/* A file of the batches (one row group unless row_group_size cuts). */
static void write_file(const char *name, const pm_type *t, const pm_batch *const *bs, size_t nb,
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

typedef struct opened {
    pm_fileio *fio;
    pm_input *in;
    pm_pq_reader *r;
} opened;

static void open_file(opened *f, const char *name, bool dict, int64_t batch_rows)
{
    char *path = pm_test_path(name);
    PM_OK_OR_FAIL(pm_fileio_local_new(&f->fio));
    PM_OK_OR_FAIL(pm_input_open(f->fio, path, &f->in));
    free(path);
    static const char *const names[] = {"s", "u", "id"};
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.batch_rows = batch_rows;
    if (dict) {
        o.dict_columns = names;
        o.ndict_columns = 3; /* id is no string: never encoded */
    }
    PM_OK_OR_FAIL(pm_pq_reader_open(&f->r, f->in, &o));
}

static void close_file(opened *f)
{
    pm_pq_reader_free(f->r);
    pm_input_close(f->in);
    pm_fileio_free(f->fio);
}

/* Every row of the file as "id|s|u" lines, through pm_column_bytes. */
static void file_text(const char *name, bool dict, pm_buf *out, bool *s_encoded, bool *u_encoded)
{
    opened f;
    open_file(&f, name, dict, 700);
    *s_encoded = pm_pq_reader_column_encoded(f.r, 1);
    *u_encoded = pm_pq_reader_column_encoded(f.r, 2);
    assert_false(pm_pq_reader_column_encoded(f.r, 0));
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
        if (!b)
            break;
        assert_true((b->columns[1]->dictionary != NULL) == *s_encoded);
        assert_true((b->columns[2]->dictionary != NULL) == *u_encoded);
        for (int64_t i = 0; i < b->num_rows; i++) {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "%lld|", (long long)pm_column_i64(b->columns[0], i));
            PM_OK_OR_FAIL(pm_buf_append(out, tmp, strlen(tmp)));
            for (int c = 1; c <= 2; c++) {
                const pm_column *col = b->columns[c];
                if (pm_column_is_null(col, i)) {
                    PM_OK_OR_FAIL(pm_buf_append(out, "<null>", 6));
                } else {
                    size_t len;
                    const uint8_t *p = pm_column_bytes(col, i, &len);
                    PM_OK_OR_FAIL(pm_buf_append(out, p, len));
                }
                PM_OK_OR_FAIL(pm_buf_append(out, c == 1 ? "|" : "\n", 1));
            }
        }
    }
    close_file(&f);
}

static pm_pq_writer_options small_dict_options(void)
{
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.dictionary_page_size = 4096; /* u (all distinct) falls back, s (20 values) does not */
    return o;
}

/* Encodings of column chunk `leaf` in row group `rg` of a file. */
static bool chunk_has(const char *name, uint32_t rg, uint32_t leaf, int32_t enc)
{
    opened f;
    open_file(&f, name, false, 0);
    const pm_pq_file_meta *m = pm_pq_reader_meta(f.r);
    assert_true(rg < m->num_row_groups);
    const pq_column_meta *cm = &m->row_groups[rg].columns[leaf].meta_data;
    bool has = false;
    for (uint32_t i = 0; i < cm->num_encoding_stats; i++)
        has |= cm->encoding_stats[i].page_type == PQ_DATA_PAGE && cm->encoding_stats[i].encoding == enc &&
               cm->encoding_stats[i].count > 0;
    close_file(&f);
    return has;
}

static void test_reader_eligibility(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_pq_writer_options o = small_dict_options();
    o.row_group_size = 16 * 1024; /* several row groups */
    pm_batch *b = rows(t, "a", 20, 0, 6000);
    write_file("a.parquet", t, (const pm_batch *const *)&b, 1, &o, NULL);
    opened f;
    open_file(&f, "a.parquet", false, 0);
    assert_true(pm_pq_reader_meta(f.r)->num_row_groups > 1);
    close_file(&f);

    pm_buf plain = {0}, enc = {0};
    bool s_enc, u_enc;
    file_text("a.parquet", false, &plain, &s_enc, &u_enc);
    assert_false(s_enc);
    assert_false(u_enc);
    file_text("a.parquet", true, &enc, &s_enc, &u_enc);
    assert_true(s_enc);  /* 20 values: dictionary-encoded throughout */
    assert_false(u_enc); /* fell back to PLAIN: read as values */
    assert_int_equal(plain.len, enc.len);
    assert_memory_equal(plain.data, enc.data, plain.len);

    /* without dictionaries nothing is encoded */
    o.dictionary = false;
    write_file("plain.parquet", t, (const pm_batch *const *)&b, 1, &o, NULL);
    pm_buf p2 = {0};
    file_text("plain.parquet", true, &p2, &s_enc, &u_enc);
    assert_false(s_enc);
    assert_false(u_enc);
    assert_memory_equal(plain.data, p2.data, plain.len);
    pm_buf_free(&plain);
    pm_buf_free(&enc);
    pm_buf_free(&p2);
    pm_batch_free(b);
    pm_type_free(t);
}

/* The encoded batches of a file, each retained (valid after the reader). */
static size_t encoded_batches(const char *name, pm_batch **out, size_t cap)
{
    opened f;
    open_file(&f, name, true, 1000);
    size_t n = 0;
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
        if (!b)
            break;
        assert_true(n < cap);
        assert_non_null(b->columns[1]->dictionary);
        PM_OK_OR_FAIL(pm_batch_new(&out[n], b->type));
        for (size_t c = 0; c < b->ncolumns; c++) {
            pm_column_release(out[n]->columns[c]);
            out[n]->columns[c] = pm_column_retain(b->columns[c]);
        }
        out[n]->num_rows = b->num_rows;
        n++;
    }
    close_file(&f);
    return n;
}

static void check_rewrite(const char *src_names[], size_t nsrc, const char *name, const pm_pq_writer_options *o,
                          bool want_plain_pages)
{
    pm_batch *bs[64];
    size_t n = 0;
    for (size_t i = 0; i < nsrc; i++)
        n += encoded_batches(src_names[i], bs + n, 64 - n);
    pm_type *t = schema();
    pm_pq_write_result res = {0};
    write_file(name, t, (const pm_batch *const *)bs, n, o, &res);
    /* the same values as the inputs, row for row */
    pm_buf want = {0}, got = {0};
    bool s_enc, u_enc;
    for (size_t i = 0; i < nsrc; i++)
        file_text(src_names[i], false, &want, &s_enc, &u_enc);
    file_text(name, false, &got, &s_enc, &u_enc);
    assert_int_equal(want.len, got.len);
    assert_memory_equal(want.data, got.data, want.len);
    assert_true(chunk_has(name, 0, 1, PQ_ENC_PLAIN_DICTIONARY));
    assert_true(chunk_has(name, 0, 1, PQ_ENC_PLAIN) == want_plain_pages);
    /* statistics as a plain rewrite of the same rows gives them */
    pm_batch *plain[64];
    for (size_t i = 0; i < n; i++) {
        PM_OK_OR_FAIL(pm_batch_new(&plain[i], t));
        for (size_t c = 0; c < 3; c++) {
            pm_column *d;
            PM_OK_OR_FAIL(pm_column_decode(&d, bs[i]->columns[c]));
            assert_null(d->dictionary);
            pm_column_release(plain[i]->columns[c]);
            plain[i]->columns[c] = d;
        }
        plain[i]->num_rows = bs[i]->num_rows;
    }
    pm_pq_write_result pres = {0};
    write_file("plain-rewrite.parquet", t, (const pm_batch *const *)plain, n, o, &pres);
    assert_int_equal(res.row_count, pres.row_count);
    const pm_pq_column_stats *a = &res.stats[1], *b = &pres.stats[1];
    assert_int_equal(a->null_count, b->null_count);
    assert_true(a->has_min_max && b->has_min_max);
    assert_int_equal(a->min.bytes.len, b->min.bytes.len);
    assert_memory_equal(a->min.bytes.data, b->min.bytes.data, a->min.bytes.len);
    assert_int_equal(a->max.bytes.len, b->max.bytes.len);
    assert_memory_equal(a->max.bytes.data, b->max.bytes.data, a->max.bytes.len);
    for (size_t i = 0; i < n; i++) {
        pm_batch_free(bs[i]);
        pm_batch_free(plain[i]);
    }
    pm_pq_write_result_free(&res);
    pm_pq_write_result_free(&pres);
    pm_buf_free(&want);
    pm_buf_free(&got);
    pm_type_free(t);
}

static void test_writer_adopts_and_falls_back(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_pq_writer_options o = small_dict_options();
    /* x1, x2: the same 20 values first seen in the same order (3060 = 17 * 180: the same
     * dictionary); y: other values */
    pm_batch *x1 = rows(t, "x", 20, 0, 3000), *x2 = rows(t, "x", 20, 3060, 3000), *y = rows(t, "y", 20, 0, 3000);
    write_file("x1.parquet", t, (const pm_batch *const *)&x1, 1, &o, NULL);
    write_file("x2.parquet", t, (const pm_batch *const *)&x2, 1, &o, NULL);
    write_file("y.parquet", t, (const pm_batch *const *)&y, 1, &o, NULL);
    /* one input: its dictionary throughout */
    check_rewrite((const char *[]){"x1.parquet"}, 1, "r1.parquet", &o, false);
    /* the same dictionary again in the second input: still one dictionary */
    check_rewrite((const char *[]){"x1.parquet", "x2.parquet"}, 2, "r2.parquet", &o, false);
    /* another dictionary: PLAIN for the rest of the row group (small pages,
     * so the first input's pages keep the dictionary) */
    pm_pq_writer_options small = o;
    small.page_size = 2048;
    check_rewrite((const char *[]){"x1.parquet", "y.parquet"}, 2, "r3.parquet", &small, true);
    /* row groups cut inside the first input: every row group starts afresh
     * and adopts the dictionary of its first batch */
    pm_pq_writer_options rg = small;
    rg.row_group_size = 8 * 1024;
    check_rewrite((const char *[]){"x1.parquet"}, 1, "r4.parquet", &rg, false);
    opened f;
    open_file(&f, "r4.parquet", false, 0);
    uint32_t ngroups = pm_pq_reader_meta(f.r)->num_row_groups;
    close_file(&f);
    assert_true(ngroups > 1);
    for (uint32_t g = 0; g < ngroups; g++)
        assert_false(chunk_has("r4.parquet", g, 1, PQ_ENC_PLAIN));
    pm_batch_free(x1);
    pm_batch_free(x2);
    pm_batch_free(y);
    pm_type_free(t);
}

static void test_encoded_columns_elsewhere(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_pq_writer_options o = small_dict_options();
    pm_batch *x = rows(t, "x", 20, 0, 500);
    write_file("e.parquet", t, (const pm_batch *const *)&x, 1, &o, NULL);
    pm_batch *bs[4];
    assert_int_equal(encoded_batches("e.parquet", bs, 4), 1);
    pm_column *enc = bs[0]->columns[1];

    /* append_from / gather give values */
    pm_column *d1, *d2, *dec;
    PM_OK_OR_FAIL(pm_column_new(&d1, enc->type));
    PM_OK_OR_FAIL(pm_column_new(&d2, enc->type));
    int64_t sel[3] = {0, 4, 17};
    uint16_t which[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        PM_OK_OR_FAIL(pm_column_append_from(d1, enc, sel[k]));
    PM_OK_OR_FAIL(pm_column_append_gather(d2, (const pm_column *const *)&enc, which, sel, 3));
    PM_OK_OR_FAIL(pm_column_decode(&dec, enc));
    for (int k = 0; k < 3; k++) {
        for (int m = 0; m < 2; m++) {
            const pm_column *c = m ? d2 : d1;
            assert_null(c->dictionary);
            assert_true(pm_column_is_null(c, k) == pm_column_is_null(enc, sel[k]));
            if (pm_column_is_null(c, k))
                continue;
            size_t la, lb;
            const uint8_t *a = pm_column_bytes(c, k, &la), *b = pm_column_bytes(enc, sel[k], &lb);
            assert_int_equal(la, lb);
            assert_memory_equal(a, b, la);
            const uint8_t *e = pm_column_bytes(dec, sel[k], &la);
            assert_memory_equal(e, b, lb);
        }
    }
    pm_column_release(d1);
    pm_column_release(d2);
    pm_column_release(dec);

    /* the deletion-vector filter keeps the dictionary where it can (no
     * nulls) and gives values otherwise */
    uint8_t keep[63];
    memset(keep, 0x55, sizeof keep);
    pm_batch *v;
    PM_OK_OR_FAIL(pm_batch_new(&v, t));
    for (size_t c = 0; c < 3; c++) {
        pm_column_release(v->columns[c]);
        v->columns[c] = pm_column_retain(bs[0]->columns[c]);
    }
    v->num_rows = bs[0]->num_rows;
    PM_OK_OR_FAIL(pm_batch_filter(v, keep));
    assert_int_equal(v->num_rows, 250);
    assert_null(v->columns[1]->dictionary); /* s has nulls */
    for (int64_t i = 0; i < v->num_rows; i++) {
        assert_true(pm_column_is_null(v->columns[1], i) == pm_column_is_null(enc, 2 * i));
        if (!pm_column_is_null(enc, 2 * i)) {
            size_t la, lb;
            const uint8_t *a = pm_column_bytes(v->columns[1], i, &la), *b = pm_column_bytes(enc, 2 * i, &lb);
            assert_int_equal(la, lb);
            assert_memory_equal(a, b, la);
        }
    }
    pm_batch_free(v);

    /* an id outside the dictionary is refused before anything is written */
    ((int32_t *)(void *)enc->values.data)[1] = (int32_t)enc->dictionary->length;
    char *path = pm_test_path("bad.parquet");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_pq_writer *w;
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, &o));
    pm_error *e = pm_pq_writer_write(w, bs[0]);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    assert_non_null(strstr(pm_error_message(e), "outside its"));
    pm_error_free(e);
    pm_pq_writer_abort(w);
    pm_output_abort(out);
    pm_fileio_free(fio);
    free(path);
    pm_batch_free(bs[0]);
    pm_batch_free(x);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_eligibility),
        cmocka_unit_test(test_writer_adopts_and_falls_back),
        cmocka_unit_test(test_encoded_columns_elsewhere),
    };
    return cmocka_run_group_tests(tests, pm_test_dir_setup, pm_test_dir_teardown);
}
