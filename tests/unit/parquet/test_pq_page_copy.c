/*
 * tests/unit/parquet/test_pq_page_copy.c — offered pages in the Parquet
 * writer (pq_page_copy.h, pm_pq_writer_offer_page): a file written again
 * from the same rows, with the first file's pages offered at their first
 * rows (some not offered, some cancelled part way), reads back as the rows
 * written, has the same column statistics, counts exactly the offers that
 * completed as copied, and holds those pages byte for byte; the same
 * offers made lazily (the input's page-index statistics, the rows given
 * for them other values) write the same file byte for byte; offers with
 * another row count, codec, storage or a dictionary under way are refused;
 * pq_schema_top_element finds top-level fields past nested ones.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_test.h"
#include "pm_test_pq.h"
#include "base/arena.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "format/parquet/pq_page_copy.h"
#include "format/parquet/pq_read_index.h"
#include "io/fileio.h"
#include "types/column.h"

#define NROWS 6000
#define NCOLS 3

static uint64_t rs = 0x853c49e6748fea9bull;
static uint64_t rnd(void)
{
    return pm_test_xorshift64(&rs);
}

/* a BIGINT NOT NULL, s STRING, d DOUBLE */
static pm_type *schema(void)
{
    pm_type *t = pm_type_new_row(false);
    assert_non_null(t);
    PM_OK_OR_FAIL(pm_type_add_field(t, 0, "a", pm_type_new(PM_TYPE_BIGINT, false)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 1, "s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 2, "d", pm_type_new(PM_TYPE_DOUBLE, true)));
    return t;
}

static pm_batch *all_rows(const pm_type *t)
{
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    char tmp[64];
    for (int64_t i = 0; i < NROWS; i++) {
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], (int64_t)(rnd() % 1000000)));
        if (rnd() % 9 == 0) {
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[1]));
        } else {
            int k = snprintf(tmp, sizeof tmp, "v%llx", (unsigned long long)(rnd() % 100000000));
            PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[1], tmp, (size_t)k));
        }
        if (rnd() % 13 == 0)
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[2]));
        else
            PM_OK_OR_FAIL(pm_column_append_f64(b->columns[2], (double)(rnd() % 100000) / 4));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, NROWS));
    return b;
}

static void options(pm_pq_writer_options *o, bool dict)
{
    pm_pq_writer_options_default(o);
    o->page_size = 1024;
    o->dictionary = dict;
    o->page_crc = true;
}

typedef struct file {
    pm_fileio *fio;
    pm_output *out;
    pm_pq_writer *w;
} file;

static void file_open(file *f, const char *name, const pm_type *t, const pm_pq_writer_options *o)
{
    char *path = pm_test_path(name);
    PM_OK_OR_FAIL(pm_fileio_local_new(&f->fio));
    PM_OK_OR_FAIL(pm_output_create(f->fio, path, true, &f->out));
    PM_OK_OR_FAIL(pm_pq_writer_new(&f->w, f->out, t, o));
    free(path);
}

static void file_close(file *f, pm_pq_write_result *res)
{
    PM_OK_OR_FAIL(pm_pq_writer_close(f->w, res));
    PM_OK_OR_FAIL(pm_output_close(f->out, false));
    pm_fileio_free(f->fio);
}

static uint8_t *slurp(const char *name, size_t *len)
{
    char *path = pm_test_path(name);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n);
    assert_non_null(d);
    assert_int_equal(fread(d, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    free(path);
    *len = (size_t)n;
    return d;
}

/* Rows [r0, r1) of b as a batch of its own (columns sliced by copying). */
static pm_batch *slice(const pm_batch *b, int64_t r0, int64_t r1)
{
    pm_batch *s;
    PM_OK_OR_FAIL(pm_batch_new(&s, b->type));
    for (size_t c = 0; c < b->ncolumns; c++)
        for (int64_t r = r0; r < r1; r++)
            PM_OK_OR_FAIL(pm_column_append_from(s->columns[c], b->columns[c], r));
    PM_OK_OR_FAIL(pm_batch_finish(s, r1 - r0));
    return s;
}

static void write_rows(pm_pq_writer *w, const pm_batch *b, int64_t r0, int64_t r1)
{
    if (r1 <= r0)
        return;
    pm_pq_writer_set_plain_sources(w, NULL, 0); /* as the rolling writer does before every write */
    pm_batch *s = slice(b, r0, r1);
    PM_OK_OR_FAIL(pm_pq_writer_write(w, s));
    pm_batch_free(s);
}

/* As write_rows, column c's values from g where lazy[c] (a lazy offer's
 * rows: the writer must not use them). */
static void write_mixed(pm_pq_writer *w, const pm_batch *b, const pm_batch *g, const bool *lazy, int64_t r0,
                        int64_t r1)
{
    if (r1 <= r0)
        return;
    pm_pq_writer_set_plain_sources(w, NULL, 0);
    pm_batch *s;
    PM_OK_OR_FAIL(pm_batch_new(&s, b->type));
    for (size_t c = 0; c < b->ncolumns; c++)
        for (int64_t r = r0; r < r1; r++)
            PM_OK_OR_FAIL(pm_column_append_from(s->columns[c], (lazy[c] ? g : b)->columns[c], r));
    PM_OK_OR_FAIL(pm_batch_finish(s, r1 - r0));
    PM_OK_OR_FAIL(pm_pq_writer_write(w, s));
    pm_batch_free(s);
}

static char *rows_text(const char *name)
{
    pm_test_pq_file f;
    pm_test_pq_open(&f, name);
    pm_buf out = PM_BUF_INIT;
    for (;;) {
        pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_pq_reader_next_batch(f.r, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            PM_OK_OR_FAIL(pm_batch_format_row_json(b, i, &out));
            PM_OK_OR_FAIL(pm_buf_append_str(&out, "\n"));
        }
    }
    pm_test_pq_close(&f);
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &s));
    char *r = strdup(s);
    pm_buf_free(&out);
    return r;
}

typedef struct page {
    int64_t first, rows;
    const uint8_t *bytes;
    size_t len;
    pq_page_facts facts;          /* from the file's page index */
} page;

typedef struct src_pages {
    page p[NCOLS][4096];
    size_t n[NCOLS];
    const pq_schema_element *elem[NCOLS];
} src_pages;

/* The pages of every column of a one-row-group file in memory. */
static void pages_of(const uint8_t *d, size_t len, pm_pq_reader **r, pm_arena *a, src_pages *sp)
{
    pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
    ro.footer_only = true;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(r, d, len, &ro));
    const pm_pq_file_meta *m = pm_pq_reader_meta(*r);
    assert_int_equal(m->num_row_groups, 1);
    const char *names[NCOLS] = {"a", "s", "d"};
    for (int c = 0; c < NCOLS; c++) {
        const pq_column_chunk *cc = &m->row_groups[0].columns[c];
        assert_true(cc->has_offset_index);
        pq_offset_index oi;
        PM_OK_OR_FAIL(pq_offset_index_parse(&oi, d + cc->offset_index_offset, (size_t)cc->offset_index_length, a));
        assert_true(oi.n > 3 && oi.n <= 4096);
        assert_true(cc->has_column_index);
        pq_column_index ci;
        PM_OK_OR_FAIL(pq_column_index_parse(&ci, d + cc->column_index_offset, (size_t)cc->column_index_length, a));
        assert_int_equal(ci.n, oi.n);
        for (uint32_t i = 0; i < oi.n; i++) {
            int64_t next = i + 1 < oi.n ? oi.pages[i + 1].first_row : m->row_groups[0].num_rows;
            pq_page_facts f = {ci.null_counts[i], ci.null_pages[i], ci.min[i], ci.max[i], ci.min_len[i],
                               ci.max_len[i], oi.has_unencoded ? oi.unencoded[i] : -1};
            sp->p[c][i] = (page){oi.pages[i].first_row, next - oi.pages[i].first_row, d + oi.pages[i].offset,
                                 (size_t)oi.pages[i].size, f};
        }
        sp->n[c] = oi.n;
        sp->elem[c] = pq_schema_top_element(m->schema, m->num_schema, names[c]);
        assert_non_null(sp->elem[c]);
    }
}

static void expect_same_stats(const pm_pq_write_result *x, const pm_pq_write_result *y)
{
    assert_int_equal(x->ncolumns, y->ncolumns);
    for (size_t c = 0; c < x->ncolumns; c++) {
        assert_int_equal(x->stats[c].null_count, y->stats[c].null_count);
        assert_int_equal(x->stats[c].has_min_max, y->stats[c].has_min_max);
    }
    assert_int_equal(x->stats[0].min.i, y->stats[0].min.i);
    assert_int_equal(x->stats[0].max.i, y->stats[0].max.i);
    assert_true(x->stats[2].min.d == y->stats[2].min.d && x->stats[2].max.d == y->stats[2].max.d);
    assert_int_equal(x->stats[1].min.bytes.len, y->stats[1].min.bytes.len);
    assert_memory_equal(x->stats[1].min.bytes.data, y->stats[1].min.bytes.data, x->stats[1].min.bytes.len);
    assert_int_equal(x->stats[1].max.bytes.len, y->stats[1].max.bytes.len);
    assert_memory_equal(x->stats[1].max.bytes.data, y->stats[1].max.bytes.data, x->stats[1].max.bytes.len);
}

static void test_offered_pages_copied(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_batch *b = all_rows(t);
    pm_pq_writer_options o;
    options(&o, false);
    file f1;
    pm_pq_write_result r1 = {0}, r2 = {0};
    file_open(&f1, "src.parquet", t, &o);
    PM_OK_OR_FAIL(pm_pq_writer_write(f1.w, b));
    file_close(&f1, &r1);
    size_t len = 0;
    uint8_t *d = slurp("src.parquet", &len);
    pm_pq_reader *rd = NULL;
    pm_arena a;
    pm_arena_init(&a, 0);
    static src_pages sp;
    pages_of(d, len, &rd, &a, &sp);

    pm_batch *garbage = all_rows(t); /* other values, other nulls */
    int64_t lazy_copied = 0;
    for (int round = 0; round < 8; round++) {
        /* odd rounds: the round before again from the same random draws,
         * offers lazy where the facts allow (values from `garbage` for
         * their rows): the same file byte for byte */
        bool lazy_round = round % 2 == 1;
        static uint64_t seed;
        if (!lazy_round)
            seed = rs;
        else
            rs = seed;
        /* the second file: a dictionary attempt on, which an offer at a
         * chunk's start turns off */
        pm_pq_writer_options o2;
        options(&o2, (round / 2) % 2 == 1);
        file f2;
        file_open(&f2, lazy_round ? "lazy.parquet" : "copy.parquet", t, &o2);
        bool lazy_live[NCOLS] = {false};
        size_t next[NCOLS] = {0};
        int64_t offer_end[NCOLS] = {0}; /* 0: no offer pending */
        int64_t expect = 0, cancel_at = -1, r = 0;
        const page *last_taken = NULL;
        bool first_offer[NCOLS] = {false}, first_copied[NCOLS] = {false};
        while (r < NROWS) {
            /* offers at r */
            for (int c = 0; c < NCOLS; c++) {
                if (next[c] >= sp.n[c] || sp.p[c][next[c]].first != r)
                    continue;
                const page *pg = &sp.p[c][next[c]++];
                if (rnd() % 4 == 0)
                    continue; /* not offered: encoded as usual */
                bool taken = false;
                /* refused: another row count, another codec, another leaf's storage */
                PM_OK_OR_FAIL(pm_pq_writer_offer_page(f2.w, (size_t)c, sp.elem[c], pg->bytes, pg->len, o.codec,
                                                      pg->rows + 1, &taken));
                assert_false(taken);
                PM_OK_OR_FAIL(pm_pq_writer_offer_page(f2.w, (size_t)c, sp.elem[c], pg->bytes, pg->len,
                                                      PM_CODEC_SNAPPY, pg->rows, &taken));
                assert_false(taken);
                PM_OK_OR_FAIL(pm_pq_writer_offer_page(f2.w, (size_t)c, sp.elem[(c + 1) % NCOLS], pg->bytes,
                                                      pg->len, o.codec, pg->rows, &taken));
                assert_false(taken);
                if (lazy_round)
                    PM_OK_OR_FAIL(pm_pq_writer_offer_lazy(f2.w, (size_t)c, sp.elem[c], pg->bytes, pg->len, o.codec,
                                                          pg->rows, &pg->facts, &taken));
                lazy_live[c] = taken;
                if (!taken)
                    PM_OK_OR_FAIL(pm_pq_writer_offer_page(f2.w, (size_t)c, sp.elem[c], pg->bytes, pg->len, o.codec,
                                                          pg->rows, &taken));
                assert_true(taken);
                offer_end[c] = r + pg->rows;
                first_offer[c] = r == 0;
                last_taken = pg;
                if (cancel_at < 0 && rnd() % 5 == 0)
                    cancel_at = r + 1 + (int64_t)(rnd() % (uint64_t)pg->rows);
            }
            /* rows up to the next event: a page start, a page end, a cancel */
            int64_t to = NROWS;
            for (int c = 0; c < NCOLS; c++) {
                if (next[c] < sp.n[c] && sp.p[c][next[c]].first < to)
                    to = sp.p[c][next[c]].first;
                if (offer_end[c] > r && offer_end[c] < to)
                    to = offer_end[c];
            }
            if (cancel_at > r && cancel_at < to)
                to = cancel_at;
            /* in random pieces */
            while (r < to) {
                int64_t k = 1 + (int64_t)(rnd() % 700);
                if (k > to - r)
                    k = to - r;
                write_mixed(f2.w, b, garbage, lazy_live, r, r + k);
                r += k;
            }
            for (int c = 0; c < NCOLS; c++)
                if (offer_end[c] && offer_end[c] <= r) {
                    expect++;
                    offer_end[c] = 0;
                    lazy_live[c] = false;
                    first_copied[c] |= first_offer[c];
                }
            if (r == cancel_at) {
                PM_OK_OR_FAIL(pm_pq_writer_cancel_pages(f2.w));
                for (int c = 0; c < NCOLS; c++) {
                    offer_end[c] = 0;
                    lazy_live[c] = false;
                }
                cancel_at = -1;
                memset(first_offer, 0, sizeof first_offer);
            }
        }
        assert_int_equal(pm_pq_writer_pages_copied(f2.w), expect);
        assert_true(expect > 0);
        file_close(&f2, &r2);
        if (lazy_round) {
            lazy_copied += r2.pages_lazy;
            size_t la = 0, lb = 0;
            uint8_t *fa = slurp("copy.parquet", &la), *fb = slurp("lazy.parquet", &lb);
            assert_int_equal(la, lb);
            assert_memory_equal(fa, fb, la);
            free(fa);
            free(fb);
        } else {
            assert_int_equal(r2.pages_lazy, 0);
        }
        assert_true(r2.pages_copied >= expect); /* and those placed by the close */
        char *want = rows_text("src.parquet"), *got = rows_text(lazy_round ? "lazy.parquet" : "copy.parquet");
        assert_string_equal(want, got);
        free(want);
        free(got);
        expect_same_stats(&r1, &r2);
        pm_pq_write_result_free(&r2);
        /* a chunk that starts with a copied page is PLAIN throughout */
        pm_test_pq_file pf;
        pm_test_pq_open(&pf, lazy_round ? "lazy.parquet" : "copy.parquet");
        const pm_pq_file_meta *m2 = pm_pq_reader_meta(pf.r);
        for (int c = 0; c < NCOLS; c++)
            if (first_copied[c])
                assert_false(m2->row_groups[0].columns[c].meta_data.has_dictionary_page_offset);
        pm_test_pq_close(&pf);
        /* the copied pages are in the file as they were */
        size_t len2 = 0;
        uint8_t *d2 = slurp(lazy_round ? "lazy.parquet" : "copy.parquet", &len2);
        size_t found = 0;
        for (int c = 0; c < NCOLS; c++)
            for (size_t i = 0; i < sp.n[c]; i++)
                found += memmem(d2, len2, sp.p[c][i].bytes, sp.p[c][i].len) != NULL;
        assert_true((int64_t)found >= expect);
        (void)last_taken;
        free(d2);
    }
    assert_true(lazy_copied > 0);
    pm_batch_free(garbage);
    pm_pq_write_result_free(&r1);
    pm_pq_reader_free(rd);
    pm_arena_free(&a);
    free(d);
    pm_batch_free(b);
    pm_type_free(t);
}

/* A chunk whose dictionary already holds values refuses an offer. */
static void test_dictionary_under_way_refuses(void **state)
{
    (void)state;
    pm_type *t = schema();
    pm_batch *b = all_rows(t);
    pm_pq_writer_options o;
    options(&o, false);
    file f1;
    file_open(&f1, "src2.parquet", t, &o);
    PM_OK_OR_FAIL(pm_pq_writer_write(f1.w, b));
    file_close(&f1, NULL);
    size_t len = 0;
    uint8_t *d = slurp("src2.parquet", &len);
    pm_pq_reader *rd = NULL;
    pm_arena a;
    pm_arena_init(&a, 0);
    static src_pages sp;
    pages_of(d, len, &rd, &a, &sp);
    pm_pq_writer_options o2;
    options(&o2, true);
    o2.page_size = 1 << 20; /* the first page stays open: the dictionary is on */
    file f2;
    file_open(&f2, "dict.parquet", t, &o2);
    write_rows(f2.w, b, 0, sp.p[1][1].first);
    bool taken = true;
    PM_OK_OR_FAIL(pm_pq_writer_offer_page(f2.w, 1, sp.elem[1], sp.p[1][1].bytes, sp.p[1][1].len, o.codec,
                                          sp.p[1][1].rows, &taken));
    assert_false(taken);
    /* a field index past the end and a nested-free leaf check */
    PM_OK_OR_FAIL(pm_pq_writer_offer_page(f2.w, 7, sp.elem[1], sp.p[1][1].bytes, sp.p[1][1].len, o.codec,
                                          sp.p[1][1].rows, &taken));
    assert_false(taken);
    write_rows(f2.w, b, sp.p[1][1].first, NROWS);
    assert_int_equal(pm_pq_writer_pages_copied(f2.w), 0);
    file_close(&f2, NULL);
    char *want = rows_text("src2.parquet"), *got = rows_text("dict.parquet");
    assert_string_equal(want, got);
    free(want);
    free(got);
    pm_pq_reader_free(rd);
    pm_arena_free(&a);
    free(d);
    pm_batch_free(b);
    pm_type_free(t);
}

static void test_top_element(void **state)
{
    (void)state;
    /* root { a, g { x, y { z } }, b } */
    pq_schema_element e[7];
    memset(e, 0, sizeof e);
    const char *names[7] = {"root", "a", "g", "x", "y", "z", "b"};
    int kids[7] = {3, 0, 2, 0, 1, 0, 0};
    for (int i = 0; i < 7; i++) {
        e[i].name = names[i];
        e[i].has_num_children = kids[i] > 0;
        e[i].num_children = kids[i];
        e[i].has_type = kids[i] == 0;
        e[i].type = PQ_INT64;
    }
    assert_ptr_equal(pq_schema_top_element(e, 7, "a"), &e[1]);
    assert_ptr_equal(pq_schema_top_element(e, 7, "g"), &e[2]);
    assert_ptr_equal(pq_schema_top_element(e, 7, "b"), &e[6]);
    assert_null(pq_schema_top_element(e, 7, "z"));
    assert_null(pq_schema_top_element(e, 7, "nope"));
    assert_true(pq_schema_same_storage(&e[1], &e[6]));
    assert_false(pq_schema_same_storage(&e[1], &e[2]));
    e[6].has_repetition = true;
    e[6].repetition = 1;
    assert_false(pq_schema_same_storage(&e[1], &e[6]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offered_pages_copied),
        cmocka_unit_test(test_dictionary_under_way_refuses),
        cmocka_unit_test(test_top_element),
    };
    return cmocka_run_group_tests(tests, pm_test_dir_setup, pm_test_dir_teardown);
}
