/*
 * tests/unit/parquet/test_pq_page_merge.c — PLAIN data pages merged into a
 * column writer without decoding (format/parquet/pq_page_merge.h):
 *   - level merge: random level sequences (runs, bit-packed stretches,
 *     widths 1..12) cut into pages at random points (page edges inside runs
 *     and groups), each page RLE-encoded alone, re-encoded into one
 *     encoder: the bytes of one encoding of the whole sequence, nulls
 *     counted; a level above the maximum and a short stream are refused;
 *   - merged chunks: a column written in small pages (30 rows; nulls at
 *     the page edges, INT / BIGINT NOT NULL / FLOAT / DOUBLE / STRING), its
 *     pages merged into a writer of 90-row pages, with and without the
 *     ColumnIndex bounds, v1 and v2 input pages: the chunk, its statistics,
 *     ColumnIndex and OffsetIndex are byte for byte those of writing the
 *     values directly with 90-row pages;
 *   - page cutting: 100-row (not a multiple) and byte-size limits: no input
 *     page is split, no merged page passes a limit, the levels and value
 *     bytes are the direct writer's;
 *   - merged pages and decoded rows in one writer; refused pages (BOOLEAN,
 *     dictionary-encoded, a dictionary on), a bad checksum and value bytes
 *     that do not match the levels (PM_ECORRUPT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_test.h"
#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_decode.h"
#include "format/parquet/pq_page_merge.h"
#include "format/parquet/pq_read_index.h"
#include "format/parquet/pq_schema_write.h"
#include "format/parquet/pq_write_column.h"
#include "io/fileio.h"
#include "types/column.h"

/* ------------------------------------------------------------------ */
/* level merge                                                         */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void test_levels_transcode_random(void **state)
{
    (void)state;
    for (int round = 0; round < 300; round++) {
        int bw = 1 + (int)rnd(12);
        uint32_t max = (1u << bw) - 1;
        size_t n = 1 + rnd(3000);
        uint32_t *v = malloc(n * sizeof *v);
        assert_non_null(v);
        for (size_t i = 0; i < n;) {
            /* runs of one value (long and short) and random stretches */
            size_t len = 1 + rnd(rnd(4) == 0 ? 200 : 12);
            bool run = rnd(2);
            uint32_t x = rnd(max + 1);
            for (size_t k = 0; k < len && i < n; k++, i++)
                v[i] = run ? x : rnd(max + 1);
        }
        pm_buf whole = PM_BUF_INIT, merged = PM_BUF_INIT;
        PM_OK_OR_FAIL(pq_rle_encode(&whole, bw, v, n));
        pq_rle_encoder enc;
        pq_rle_init(&enc, &merged, bw);
        int64_t below = 0, want_below = 0;
        uint32_t below_of = rnd(max + 1);
        for (size_t i = 0; i < n; i++)
            want_below += v[i] < below_of;
        for (size_t at = 0; at < n;) {
            size_t len = 1 + rnd(rnd(2) ? 9 : 400); /* page edges inside groups and runs */
            if (len > n - at)
                len = n - at;
            pm_buf page = PM_BUF_INIT;
            PM_OK_OR_FAIL(pq_rle_encode(&page, bw, v + at, len));
            PM_OK_OR_FAIL(pq_levels_transcode(&enc, page.data, page.len, bw, (int64_t)len, max, below_of, &below));
            pm_buf_free(&page);
            at += len;
        }
        PM_OK_OR_FAIL(pq_rle_finish(&enc));
        assert_int_equal(merged.len, whole.len);
        assert_memory_equal(merged.data, whole.data, whole.len);
        assert_int_equal(below, want_below);
        pm_buf_free(&whole);
        pm_buf_free(&merged);
        free(v);
    }
}

static void test_levels_transcode_refused(void **state)
{
    (void)state;
    uint32_t v[20];
    for (int i = 0; i < 20; i++)
        v[i] = (uint32_t)(i % 4);
    pm_buf page = PM_BUF_INIT, out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pq_rle_encode(&page, 2, v, 20));
    pq_rle_encoder enc;
    pq_rle_init(&enc, &out, 2);
    int64_t below = 0;
    pm_test_expect_error(pq_levels_transcode(&enc, page.data, page.len, 2, 20, 2, 2, &below), PM_ECORRUPT,
                         "maximum");
    pm_buf_clear(&out);
    pq_rle_init(&enc, &out, 2);
    pm_test_expect_error(pq_levels_transcode(&enc, page.data, page.len, 2, 40, 3, 3, &below), PM_ECORRUPT, "ended");
    uint32_t r[30];
    for (int i = 0; i < 30; i++)
        r[i] = 3;
    pm_buf_clear(&page);
    PM_OK_OR_FAIL(pq_rle_encode(&page, 2, r, 30)); /* one RLE run */
    pm_buf_clear(&out);
    pq_rle_init(&enc, &out, 2);
    pm_test_expect_error(pq_levels_transcode(&enc, page.data, page.len, 2, 30, 2, 2, &below), PM_ECORRUPT,
                         "maximum");
    pm_buf_clear(&out);
    pq_rle_init(&enc, &out, 1);
    pm_test_expect_error(pq_levels_transcode(&enc, page.data, page.len, 2, 30, 3, 3, &below), PM_EINTERNAL, "width");
    pm_buf_free(&page);
    pm_buf_free(&out);
}

/* ------------------------------------------------------------------ */
/* merged chunks                                                       */

enum { C_I32, C_I64, C_F32, C_F64, C_STR, C_BOOL, NCOLS };
#define ROWS 1000

typedef struct fixture {
    pm_arena arena;
    pq_write_schema ws;
    pm_type *row;
    pm_batch *b;
    pm_codec_ctx *codec;
    pm_fileio *fio;
} fixture;

static int setup(void **state)
{
    pm_test_dir_setup(state);
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    pm_arena_init(&f->arena, 0);
    f->row = pm_type_new_row(false);
    PM_OK_OR_FAIL(pm_type_add_field(f->row, 0, "i", pm_type_new(PM_TYPE_INT, true)));
    PM_OK_OR_FAIL(pm_type_add_field(f->row, 1, "l", pm_type_new(PM_TYPE_BIGINT, false)));
    PM_OK_OR_FAIL(pm_type_add_field(f->row, 2, "f", pm_type_new(PM_TYPE_FLOAT, true)));
    PM_OK_OR_FAIL(pm_type_add_field(f->row, 3, "d", pm_type_new(PM_TYPE_DOUBLE, true)));
    PM_OK_OR_FAIL(pm_type_add_field(f->row, 4, "s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    PM_OK_OR_FAIL(pm_type_add_field(f->row, 5, "b", pm_type_new(PM_TYPE_BOOLEAN, true)));
    PM_OK_OR_FAIL(pq_schema_build(&f->arena, f->row, &f->ws));
    assert_int_equal(f->ws.nleaves, NCOLS);
    PM_OK_OR_FAIL(pm_batch_new(&f->b, f->row));
    char tmp[96];
    for (int r = 0; r < ROWS; r++) {
        /* nulls at the 30-row page edges, and some inside */
        bool null = r % 30 == 0 || r % 30 == 29 || r % 13 == 5 || (r >= 300 && r < 330);
        if (null) {
            PM_OK_OR_FAIL(pm_column_append_null(f->b->columns[0]));
            PM_OK_OR_FAIL(pm_column_append_null(f->b->columns[2]));
            PM_OK_OR_FAIL(pm_column_append_null(f->b->columns[3]));
            PM_OK_OR_FAIL(pm_column_append_null(f->b->columns[4]));
            PM_OK_OR_FAIL(pm_column_append_null(f->b->columns[5]));
        } else {
            PM_OK_OR_FAIL(pm_column_append_i32(f->b->columns[0], (int32_t)(r * 7919 % 10007) - 5000));
            PM_OK_OR_FAIL(pm_column_append_f32(f->b->columns[2], (float)(r % 97) - 48.5f));
            PM_OK_OR_FAIL(pm_column_append_f64(f->b->columns[3], (double)(r * 13 % 99991) / 100.0 - 300.0));
            int k = snprintf(tmp, sizeof tmp, "v%06d-%.*s", r * 31 % 999983, r % 40, "abcdefghijklmnopqrstuvwxyz0123456789ABCD");
            PM_OK_OR_FAIL(pm_column_append_bytes(f->b->columns[4], tmp, (size_t)k));
            PM_OK_OR_FAIL(pm_column_append_bool(f->b->columns[5], r % 3 == 0));
        }
        PM_OK_OR_FAIL(pm_column_append_i64(f->b->columns[1], (int64_t)r * 1000003 - 77));
    }
    PM_OK_OR_FAIL(pm_batch_finish(f->b, ROWS));
    PM_OK_OR_FAIL(pm_codec_ctx_new(&f->codec));
    PM_OK_OR_FAIL(pm_fileio_local_new(&f->fio));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pm_batch_free(f->b);
    pm_type_free(f->row);
    pm_arena_free(&f->arena);
    pm_codec_ctx_free(f->codec);
    pm_fileio_free(f->fio);
    free(f);
    return pm_test_dir_teardown(state);
}

static pm_pq_writer_options opts(int64_t rows, int64_t size, bool dict)
{
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.codec = PM_CODEC_ZSTD;
    o.page_row_limit = rows;
    o.page_size = size;
    o.dictionary = dict;
    return o;
}

/* A written chunk: its bytes (data pages from offset 0), metadata and page
 * index. */
typedef struct chunk {
    uint8_t *data;
    size_t len;
    pm_arena a;
    pq_column_chunk cc;
    pm_buf ci, oi;
    bool has_ci;
} chunk;

static void chunk_free(chunk *c)
{
    free(c->data);
    pm_arena_free(&c->a);
    pm_buf_free(&c->ci);
    pm_buf_free(&c->oi);
}

static int nfile;

/* Flush the writer's chunk into a file of its own and read it back. */
static void flush(fixture *f, pq_colw *cw, chunk *out)
{
    memset(out, 0, sizeof *out);
    pm_arena_init(&out->a, 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/chunk-%d", pm_test_dir, nfile++);
    pm_output *o = NULL;
    PM_OK_OR_FAIL(pm_output_create(f->fio, path, true, &o));
    PM_OK_OR_FAIL(pq_colw_flush_chunk(cw, o, &out->a, &out->cc));
    PM_OK_OR_FAIL(pm_output_close(o, false));
    out->data = pm_test_read_file(path, &out->len);
    assert_non_null(out->data);
    assert_int_equal(out->len, out->cc.meta_data.total_compressed_size);
    PM_OK_OR_FAIL(pm_buf_append(&out->ci, cw->ci_ser.data, cw->ci_ser.len));
    PM_OK_OR_FAIL(pm_buf_append(&out->oi, cw->oi_ser.data, cw->oi_ser.len));
    out->has_ci = cw->has_ci;
}

static void write_direct(fixture *f, int col, const pm_pq_writer_options *o, chunk *out)
{
    pq_colw cw;
    PM_OK_OR_FAIL(pq_colw_init(&cw, &f->ws.leaves[col], o, f->codec));
    for (int64_t r = 0; r < ROWS; r += 250) /* in batches, as a reader hands them */
        PM_OK_OR_FAIL(pq_colw_write(&cw, f->b->columns[col], r, r + 250 < ROWS ? r + 250 : ROWS));
    flush(f, &cw, out);
    pq_colw_free(&cw);
}

/* The v1 page at `p` rewritten as a data page v2 (levels apart,
 * uncompressed; values compressed) into `dst`. */
static void to_v2(fixture *f, const pq_leaf *L, const pq_page_header *h, const uint8_t *body, pm_buf *dst)
{
    pm_buf raw = PM_BUF_INIT, comp = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_buf_reserve(&raw, (size_t)h->uncompressed_page_size));
    PM_OK_OR_FAIL(pm_codec_decompress(f->codec, PM_CODEC_ZSTD, body, (size_t)h->compressed_page_size, raw.data,
                                      (size_t)h->uncompressed_page_size));
    raw.len = (size_t)h->uncompressed_page_size;
    size_t dl = 0, pos = 0;
    if (L->max_def > 0) {
        dl = (size_t)raw.data[0] | (size_t)raw.data[1] << 8 | (size_t)raw.data[2] << 16 | (size_t)raw.data[3] << 24;
        pos = 4;
    }
    const uint8_t *vals = raw.data + pos + dl;
    size_t nvals = raw.len - pos - dl;
    PM_OK_OR_FAIL(pm_codec_compress(f->codec, PM_CODEC_ZSTD, 1, vals, nvals, &comp));
    /* nulls from the levels */
    int64_t nulls = 0;
    if (dl) {
        pqd_rle d;
        PM_OK_OR_FAIL(pqd_rle_init(&d, raw.data + 4, dl, 1));
        for (int32_t i = 0; i < h->data_page_header.num_values; i++) {
            uint32_t x;
            PM_OK_OR_FAIL(pqd_rle_get_u32(&d, &x, 1));
            nulls += x == 0;
        }
    }
    pq_page_header v2;
    memset(&v2, 0, sizeof v2);
    v2.type = PQ_DATA_PAGE_V2;
    v2.has_data_page_header_v2 = true;
    v2.data_page_header_v2.num_values = h->data_page_header.num_values;
    v2.data_page_header_v2.num_rows = h->data_page_header.num_values;
    v2.data_page_header_v2.num_nulls = (int32_t)nulls;
    v2.data_page_header_v2.encoding = PQ_ENC_PLAIN;
    v2.data_page_header_v2.definition_levels_byte_length = (int32_t)dl;
    v2.data_page_header_v2.is_compressed = true;
    v2.uncompressed_page_size = (int32_t)(dl + nvals);
    v2.compressed_page_size = (int32_t)(dl + comp.len);
    PM_OK_OR_FAIL(pm_pq_page_header_serialize(&v2, dst));
    PM_OK_OR_FAIL(pm_buf_append(dst, raw.data + pos, dl));
    PM_OK_OR_FAIL(pm_buf_append(dst, comp.data, comp.len));
    pm_buf_free(&raw);
    pm_buf_free(&comp);
}

/* Merge the pages of `in` into a new writer (options o), its ColumnIndex
 * bounds used when `bounds`; v2: the pages turned into data pages v2 first. */
static void merge_chunk(fixture *f, int col, const chunk *in, const pm_pq_writer_options *o, bool bounds, bool v2,
                        chunk *out)
{
    const pq_leaf *L = &f->ws.leaves[col];
    pq_column_index ci;
    pm_arena a;
    pm_arena_init(&a, 0);
    bool use_ci = bounds && in->has_ci;
    if (use_ci)
        PM_OK_OR_FAIL(pq_column_index_parse(&ci, in->ci.data, in->ci.len, &a));
    pq_colw cw;
    PM_OK_OR_FAIL(pq_colw_init(&cw, L, o, f->codec));
    pm_buf scratch = PM_BUF_INIT, pg = PM_BUF_INIT;
    uint32_t page = 0;
    for (size_t pos = 0; pos < in->len; page++) {
        pq_page_header h;
        size_t hl;
        PM_OK_OR_FAIL(pm_pq_page_header_parse(&h, in->data + pos, in->len - pos, &hl));
        assert_true(pq_page_merge_ok(L, &h));
        const uint8_t *body = in->data + pos + hl;
        pq_merge_bounds b = {0};
        const pq_merge_bounds *bp = NULL;
        if (use_ci && !ci.null_pages[page]) {
            b = (pq_merge_bounds){ci.min[page], ci.max[page], ci.min_len[page], ci.max_len[page]};
            bp = &b;
        }
        if (v2) {
            pm_buf_clear(&pg);
            to_v2(f, L, &h, body, &pg);
            pq_page_header h2;
            size_t hl2;
            PM_OK_OR_FAIL(pm_pq_page_header_parse(&h2, pg.data, pg.len, &hl2));
            assert_true(pq_page_merge_ok(L, &h2));
            PM_OK_OR_FAIL(pq_colw_merge_page(&cw, &h2, pg.data + hl2, PM_CODEC_ZSTD, bp, &scratch));
        } else {
            PM_OK_OR_FAIL(pq_colw_merge_page(&cw, &h, body, PM_CODEC_ZSTD, bp, &scratch));
        }
        pos += hl + (size_t)h.compressed_page_size;
    }
    flush(f, &cw, out);
    pq_colw_free(&cw);
    pm_buf_free(&scratch);
    pm_buf_free(&pg);
    pm_arena_free(&a);
}

static void assert_stats_equal(const pq_statistics *a, const pq_statistics *b)
{
    assert_int_equal(a->has_null_count, b->has_null_count);
    assert_int_equal(a->null_count, b->null_count);
    assert_int_equal(a->has_min_value, b->has_min_value);
    assert_int_equal(a->has_max_value, b->has_max_value);
    if (a->has_min_value) {
        assert_int_equal(a->min_value_len, b->min_value_len);
        assert_memory_equal(a->min_value, b->min_value, a->min_value_len);
        assert_int_equal(a->max_value_len, b->max_value_len);
        assert_memory_equal(a->max_value, b->max_value, a->max_value_len);
    }
    assert_int_equal(a->has_min, b->has_min);
    if (a->has_min) {
        assert_int_equal(a->min_len, b->min_len);
        assert_memory_equal(a->min, b->min, a->min_len);
        assert_memory_equal(a->max, b->max, a->max_len);
    }
}

static void assert_chunks_equal(const chunk *a, const chunk *b)
{
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len);
    const pq_column_meta *x = &a->cc.meta_data, *y = &b->cc.meta_data;
    assert_int_equal(x->num_values, y->num_values);
    assert_int_equal(x->total_uncompressed_size, y->total_uncompressed_size);
    assert_int_equal(x->num_encodings, y->num_encodings);
    assert_memory_equal(x->encodings, y->encodings, sizeof(int32_t) * x->num_encodings);
    assert_int_equal(x->num_encoding_stats, y->num_encoding_stats);
    for (uint32_t k = 0; k < x->num_encoding_stats; k++)
        assert_int_equal(x->encoding_stats[k].count, y->encoding_stats[k].count);
    assert_stats_equal(&x->statistics, &y->statistics);
    assert_int_equal(x->size_statistics.has_unencoded_byte_array_data_bytes,
                     y->size_statistics.has_unencoded_byte_array_data_bytes);
    assert_int_equal(x->size_statistics.unencoded_byte_array_data_bytes,
                     y->size_statistics.unencoded_byte_array_data_bytes);
    assert_int_equal(a->has_ci, b->has_ci);
    assert_int_equal(a->ci.len, b->ci.len);
    assert_memory_equal(a->ci.data, b->ci.data, a->ci.len);
    assert_int_equal(a->oi.len, b->oi.len);
    assert_memory_equal(a->oi.data, b->oi.data, a->oi.len);
}

static void test_merged_equals_direct(void **state)
{
    fixture *f = *state;
    pm_pq_writer_options small = opts(30, 1 << 20, false), big = opts(90, 1 << 20, false);
    for (int col = C_I32; col <= C_STR; col++)
        for (int mode = 0; mode < 3; mode++) { /* bounds from the ColumnIndex, from the values, v2 pages */
            chunk in, merged, direct;
            write_direct(f, col, &small, &in);
            merge_chunk(f, col, &in, &big, mode == 0, mode == 2, &merged);
            write_direct(f, col, &big, &direct);
            assert_true(in.cc.meta_data.num_values == ROWS);
            assert_chunks_equal(&merged, &direct);
            chunk_free(&in);
            chunk_free(&merged);
            chunk_free(&direct);
        }
}

/* Levels and value bytes of every page of a chunk, concatenated; the row
 * count of each page to rows[] (at most 64 pages). */
static void page_contents(fixture *f, const chunk *c, bool has_levels, pm_buf *levels, pm_buf *vals, int32_t *rows, int32_t *sizes,
                          size_t *npages)
{
    *npages = 0;
    for (size_t pos = 0; pos < c->len;) {
        pq_page_header h;
        size_t hl;
        PM_OK_OR_FAIL(pm_pq_page_header_parse(&h, c->data + pos, c->len - pos, &hl));
        assert_int_equal(h.type, PQ_DATA_PAGE);
        assert_true(*npages < 64);
        uint8_t *raw = malloc((size_t)h.uncompressed_page_size);
        assert_non_null(raw);
        PM_OK_OR_FAIL(pm_codec_decompress(f->codec, PM_CODEC_ZSTD, c->data + pos + hl, (size_t)h.compressed_page_size,
                                          raw, (size_t)h.uncompressed_page_size));
        size_t dl = 0, at = 0;
        if (has_levels) {
            dl = (size_t)raw[0] | (size_t)raw[1] << 8 | (size_t)raw[2] << 16 | (size_t)raw[3] << 24;
            at = 4 + dl;
            pqd_rle d;
            PM_OK_OR_FAIL(pqd_rle_init(&d, raw + 4, dl, 1));
            for (int32_t i = 0; i < h.data_page_header.num_values; i++) {
                uint32_t x;
                PM_OK_OR_FAIL(pqd_rle_get_u32(&d, &x, 1));
                PM_OK_OR_FAIL(pm_buf_append_byte(levels, (uint8_t)x));
            }
        }
        PM_OK_OR_FAIL(pm_buf_append(vals, raw + at, (size_t)h.uncompressed_page_size - at));
        rows[*npages] = h.data_page_header.num_values;
        sizes[*npages] = h.uncompressed_page_size;
        (*npages)++;
        free(raw);
        pos += hl + (size_t)h.compressed_page_size;
    }
}

static void test_page_cutting(void **state)
{
    fixture *f = *state;
    pm_pq_writer_options small = opts(30, 1 << 20, false), one = opts(ROWS, 1 << 20, false);
    /* a row limit that is not a multiple of the input pages: 3 pages (90 rows) each */
    pm_pq_writer_options r100 = opts(100, 1 << 20, false), bytes = opts(ROWS, 4000, false);
    for (int col = C_I32; col <= C_STR; col++) {
        chunk in, direct;
        write_direct(f, col, &small, &in);
        write_direct(f, col, &one, &direct);
        pm_buf dl = PM_BUF_INIT, dv = PM_BUF_INIT;
        int32_t drows[64], dsizes[64];
        size_t dn;
        page_contents(f, &direct, f->ws.leaves[col].max_def > 0, &dl, &dv, drows, dsizes, &dn);
        assert_int_equal(dn, 1);
        for (int which = 0; which < 2; which++) {
            chunk merged;
            merge_chunk(f, col, &in, which ? &bytes : &r100, true, false, &merged);
            pm_buf ml = PM_BUF_INIT, mv = PM_BUF_INIT;
            int32_t mrows[64], msizes[64];
            size_t mn;
            page_contents(f, &merged, f->ws.leaves[col].max_def > 0, &ml, &mv, mrows, msizes, &mn);
            assert_int_equal(ml.len, dl.len);
            assert_memory_equal(ml.data, dl.data, dl.len);
            assert_int_equal(mv.len, dv.len);
            assert_memory_equal(mv.data, dv.data, dv.len);
            int64_t total = 0;
            for (size_t p = 0; p < mn; p++) {
                assert_int_equal(mrows[p] % 30 == 0 || p + 1 == mn, true); /* whole input pages */
                if (!which) {
                    assert_true(mrows[p] <= 100);
                    assert_true(p + 1 == mn || mrows[p] == 90);
                } else {
                    assert_true(msizes[p] <= 4000 + 64); /* page_size plus the levels' last run */
                }
                total += mrows[p];
            }
            assert_int_equal(total, ROWS);
            if (which && col == C_I64)
                assert_true(mn > 2); /* 8,000 value bytes: cut by size */
            pm_buf_free(&ml);
            pm_buf_free(&mv);
            chunk_free(&merged);
        }
        pm_buf_free(&dl);
        pm_buf_free(&dv);
        chunk_free(&in);
        chunk_free(&direct);
    }
}

/* Merged pages and decoded rows alternate in one writer: the same chunk as
 * writing every row directly. */
static void test_mixed_with_rows(void **state)
{
    fixture *f = *state;
    pm_pq_writer_options small = opts(30, 1 << 20, false), big = opts(90, 1 << 20, false);
    int col = C_F64;
    chunk in, direct, mixed;
    write_direct(f, col, &small, &in);
    write_direct(f, col, &big, &direct);
    pq_colw cw;
    PM_OK_OR_FAIL(pq_colw_init(&cw, &f->ws.leaves[col], &big, f->codec));
    pm_buf scratch = PM_BUF_INIT;
    int64_t row = 0;
    for (size_t pos = 0; pos < in.len;) {
        pq_page_header h;
        size_t hl;
        PM_OK_OR_FAIL(pm_pq_page_header_parse(&h, in.data + pos, in.len - pos, &hl));
        if ((row / 30) % 4 == 1) /* every fourth input page decoded: its rows written as values */
            PM_OK_OR_FAIL(pq_colw_write(&cw, f->b->columns[col], row, row + h.data_page_header.num_values));
        else
            PM_OK_OR_FAIL(pq_colw_merge_page(&cw, &h, in.data + pos + hl, PM_CODEC_ZSTD, NULL, &scratch));
        row += h.data_page_header.num_values;
        pos += hl + (size_t)h.compressed_page_size;
    }
    assert_int_equal(row, ROWS);
    flush(f, &cw, &mixed);
    assert_chunks_equal(&mixed, &direct);
    pq_colw_free(&cw);
    pm_buf_free(&scratch);
    chunk_free(&in);
    chunk_free(&direct);
    chunk_free(&mixed);
}

/* The first page of a chunk, re-made with `body` bytes as its uncompressed
 * body (compressed again, no checksum). */
static void remake_page(fixture *f, const uint8_t *body, size_t n, int32_t num_values, pm_buf *out)
{
    pm_buf comp = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_codec_compress(f->codec, PM_CODEC_ZSTD, 1, body, n, &comp));
    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_DATA_PAGE;
    h.has_data_page_header = true;
    h.data_page_header.num_values = num_values;
    h.data_page_header.encoding = PQ_ENC_PLAIN;
    h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
    h.data_page_header.repetition_level_encoding = PQ_ENC_BIT_PACKED;
    h.uncompressed_page_size = (int32_t)n;
    h.compressed_page_size = (int32_t)comp.len;
    PM_OK_OR_FAIL(pm_pq_page_header_serialize(&h, out));
    PM_OK_OR_FAIL(pm_buf_append(out, comp.data, comp.len));
    pm_buf_free(&comp);
}

static void test_refused_and_corrupt(void **state)
{
    fixture *f = *state;
    pm_pq_writer_options small = opts(30, 1 << 20, false), dict = opts(30, 1 << 20, true),
                         big = opts(90, 1 << 20, false);
    /* BOOLEAN pages (bit-packed PLAIN) are not merged */
    assert_false(pq_page_merge_leaf_ok(&f->ws.leaves[C_BOOL]));
    assert_true(pq_page_merge_leaf_ok(&f->ws.leaves[C_STR]));
    chunk in;
    write_direct(f, C_I32, &small, &in);
    pq_page_header h;
    size_t hl;
    PM_OK_OR_FAIL(pm_pq_page_header_parse(&h, in.data, in.len, &hl));
    assert_true(pq_page_merge_ok(&f->ws.leaves[C_I32], &h));
    pq_page_header hd = h;
    hd.data_page_header.encoding = PQ_ENC_PLAIN_DICTIONARY;
    assert_false(pq_page_merge_ok(&f->ws.leaves[C_I32], &hd));
    hd = h;
    hd.data_page_header.encoding = PQ_ENC_DELTA_BINARY_PACKED;
    assert_false(pq_page_merge_ok(&f->ws.leaves[C_I32], &hd));
    pm_buf scratch = PM_BUF_INIT;
    pq_colw cw;
    /* a writer with its dictionary on */
    PM_OK_OR_FAIL(pq_colw_init(&cw, &f->ws.leaves[C_I32], &dict, f->codec));
    pm_test_expect_error(pq_colw_merge_page(&cw, &h, in.data + hl, PM_CODEC_ZSTD, NULL, &scratch), PM_EINTERNAL,
                         "dictionary");
    pq_colw_free(&cw);
    /* a bad checksum */
    assert_true(h.has_crc);
    uint8_t *copy = malloc((size_t)h.compressed_page_size);
    assert_non_null(copy);
    memcpy(copy, in.data + hl, (size_t)h.compressed_page_size);
    copy[h.compressed_page_size / 2] ^= 0x40;
    PM_OK_OR_FAIL(pq_colw_init(&cw, &f->ws.leaves[C_I32], &big, f->codec));
    pm_test_expect_error(pq_colw_merge_page(&cw, &h, copy, PM_CODEC_ZSTD, NULL, &scratch), PM_ECORRUPT, "checksum");
    free(copy);
    /* value bytes that do not match the levels: the page's body with its
     * last value cut off */
    uint8_t *raw = malloc((size_t)h.uncompressed_page_size);
    assert_non_null(raw);
    PM_OK_OR_FAIL(pm_codec_decompress(f->codec, PM_CODEC_ZSTD, in.data + hl, (size_t)h.compressed_page_size, raw,
                                      (size_t)h.uncompressed_page_size));
    pm_buf bad = PM_BUF_INIT;
    remake_page(f, raw, (size_t)h.uncompressed_page_size - 4, h.data_page_header.num_values, &bad);
    pq_page_header hb;
    size_t hbl;
    PM_OK_OR_FAIL(pm_pq_page_header_parse(&hb, bad.data, bad.len, &hbl));
    pm_test_expect_error(pq_colw_merge_page(&cw, &hb, bad.data + hbl, PM_CODEC_ZSTD, NULL, &scratch), PM_ECORRUPT,
                         "value bytes");
    /* levels longer than the page */
    pm_buf_clear(&bad);
    raw[0] = 0xff;
    raw[1] = 0xff;
    remake_page(f, raw, (size_t)h.uncompressed_page_size, h.data_page_header.num_values, &bad);
    PM_OK_OR_FAIL(pm_pq_page_header_parse(&hb, bad.data, bad.len, &hbl));
    pm_test_expect_error(pq_colw_merge_page(&cw, &hb, bad.data + hbl, PM_CODEC_ZSTD, NULL, &scratch), PM_ECORRUPT,
                         "definition levels");
    pq_colw_free(&cw);
    free(raw);
    pm_buf_free(&bad);
    pm_buf_free(&scratch);
    chunk_free(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_transcode_random),
        cmocka_unit_test(test_levels_transcode_refused),
        cmocka_unit_test(test_merged_equals_direct),
        cmocka_unit_test(test_page_cutting),
        cmocka_unit_test(test_mixed_with_rows),
        cmocka_unit_test(test_refused_and_corrupt),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
