/*
 * tests/unit/parquet/test_pq_write_file.c — whole files from the Parquet
 * writer, checked with the footer parser and a small independent page
 * decoder in this file: values and nulls round-trip, page row limits,
 * dictionary pages and fallback to PLAIN, row groups by size, statistics
 * (footer and merged), nested levels, errors and option mapping; PLAIN
 * byte strings through their inner loop and through the general step
 * (fault point pq-bytes-generic) give the same bytes.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "pm_test.h"
#include "base/buf.h"
#include "base/pool.h"
#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_writer.h"
#include "format/parquet/pq_write_column.h"
#include "io/fileio.h"
#include "types/column.h"
#include "types/value.h"

/* ---- independent decoding helpers ---------------------------------------- */

static uint64_t uvarint(const uint8_t *p, size_t len, size_t *i)
{
    uint64_t v = 0;
    int sh = 0;
    while (*i < len) {
        uint8_t b = p[(*i)++];
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return v;
        sh += 7;
    }
    fail_msg("truncated varint");
    return 0;
}

static void rle_decode(const uint8_t *p, size_t len, int w, uint32_t *out, size_t n)
{
    size_t i = 0, k = 0;
    while (k < n) {
        assert_true(i < len);
        uint64_t h = uvarint(p, len, &i);
        if (h & 1) {
            uint64_t count = (h >> 1) * 8, bit = 0;
            for (uint64_t j = 0; j < count; j++) {
                uint32_t v = 0;
                for (int b = 0; b < w; b++, bit++)
                    v |= (uint32_t)((p[i + bit / 8] >> (bit % 8)) & 1) << b;
                if (k < n)
                    out[k++] = v;
            }
            i += (size_t)((h >> 1) * (uint64_t)w);
        } else {
            uint32_t v = 0;
            for (int b = 0; b < (w + 7) / 8; b++)
                v |= (uint32_t)p[i + b] << (8 * b);
            i += (size_t)(w + 7) / 8;
            for (uint64_t j = 0; j < (h >> 1) && k < n; j++)
                out[k++] = v;
        }
    }
}

/* Decoded flat column: one entry per row; strings in `bytes`. */
typedef struct decoded {
    int64_t n;
    bool *null;
    int64_t *ival;          /* INT32 / INT64 / BOOLEAN */
    int32_t *soff;          /* BYTE_ARRAY: offsets into bytes (n + 1) */
    pm_buf bytes;
    int dict_pages, plain_pages, dict_data_pages;
    int64_t dict_entries;
    int pages;
} decoded;

static void decoded_free(decoded *d)
{
    free(d->null);
    free(d->ival);
    free(d->soff);
    pm_buf_free(&d->bytes);
    memset(d, 0, sizeof *d);
}

static void grow(decoded *d, int64_t n)
{
    d->null = realloc(d->null, (size_t)n * sizeof *d->null);
    d->ival = realloc(d->ival, (size_t)n * sizeof *d->ival);
    d->soff = realloc(d->soff, (size_t)(n + 1) * sizeof *d->soff);
    assert_non_null(d->null);
    assert_non_null(d->ival);
    assert_non_null(d->soff);
}

/* Read one PLAIN value at *p; append to d at row r. */
static void plain_value(decoded *d, int phys, const uint8_t *p, size_t len, size_t *i, int64_t r)
{
    switch (phys) {
    case PQ_INT32: {
        int32_t v;
        assert_true(*i + 4 <= len);
        memcpy(&v, p + *i, 4);
        *i += 4;
        d->ival[r] = v;
        break;
    }
    case PQ_INT64: {
        int64_t v;
        assert_true(*i + 8 <= len);
        memcpy(&v, p + *i, 8);
        *i += 8;
        d->ival[r] = v;
        break;
    }
    case PQ_BYTE_ARRAY: {
        uint32_t l;
        assert_true(*i + 4 <= len);
        memcpy(&l, p + *i, 4);
        *i += 4;
        assert_true(*i + l <= len);
        PM_OK_OR_FAIL(pm_buf_append(&d->bytes, p + *i, l));
        *i += l;
        break;
    }
    default:
        fail_msg("unexpected type %d", phys);
    }
    d->soff[r + 1] = (int32_t)d->bytes.len;
}

/* Decode a flat (max_rep 0) column chunk of `file`, appending rows to d. */
static void read_chunk(const uint8_t *file, size_t flen, const pq_column_chunk *cc, int max_def, decoded *d)
{
    const pq_column_meta *m = &cc->meta_data;
    int64_t off = m->has_dictionary_page_offset ? m->dictionary_page_offset : m->data_page_offset;
    int64_t end = off + m->total_compressed_size;
    assert_true(end <= (int64_t)flen);
    pm_codec_ctx *ctx;
    PM_OK_OR_FAIL(pm_codec_ctx_new(&ctx));
    decoded dict = {0};
    int64_t r = d->n;
    if (r == 0)
        grow(d, 1), d->soff[0] = 0;
    while (off < end) {
        pq_page_header h;
        size_t used;
        PM_OK_OR_FAIL(pm_pq_page_header_parse(&h, file + off, (size_t)(end - off), &used));
        const uint8_t *cp = file + off + used;
        uint8_t *body = malloc((size_t)h.uncompressed_page_size + 1);
        PM_OK_OR_FAIL(pm_codec_decompress(ctx, (pm_codec_id)m->codec, cp, (size_t)h.compressed_page_size,
                                          body, (size_t)h.uncompressed_page_size));
        size_t blen = (size_t)h.uncompressed_page_size, i = 0;
        d->pages++;
        if (h.type == PQ_DICTIONARY_PAGE) {
            d->dict_pages++;
            d->dict_entries = h.dictionary_page_header.num_values;
            grow(&dict, h.dictionary_page_header.num_values + 1);
            dict.soff[0] = 0;
            for (int64_t k = 0; k < h.dictionary_page_header.num_values; k++)
                plain_value(&dict, m->type, body, blen, &i, k);
            assert_int_equal(i, blen);
        } else {
            assert_int_equal(h.type, PQ_DATA_PAGE);
            int64_t nv = h.data_page_header.num_values;
            grow(d, r + nv + 1);
            uint32_t *defs = calloc((size_t)nv + 1, sizeof *defs);
            if (max_def > 0) {
                uint32_t dl;
                memcpy(&dl, body, 4);
                rle_decode(body + 4, dl, 1, defs, (size_t)nv);
                i = 4 + dl;
            } else {
                for (int64_t k = 0; k < nv; k++)
                    defs[k] = 0;
            }
            int64_t present = 0;
            for (int64_t k = 0; k < nv; k++)
                present += defs[k] == (uint32_t)max_def;
            uint32_t *ids = NULL;
            if (h.data_page_header.encoding == PQ_ENC_PLAIN_DICTIONARY) {
                d->dict_data_pages++;
                int w = body[i++];
                ids = calloc((size_t)present + 1, sizeof *ids);
                rle_decode(body + i, blen - i, w, ids, (size_t)present);
            } else {
                assert_int_equal(h.data_page_header.encoding, PQ_ENC_PLAIN);
                d->plain_pages++;
            }
            int64_t vi = 0;
            for (int64_t k = 0; k < nv; k++, r++) {
                d->null[r] = defs[k] != (uint32_t)max_def;
                if (d->null[r]) {
                    d->soff[r + 1] = (int32_t)d->bytes.len;
                    continue;
                }
                if (ids) {
                    uint32_t id = ids[vi++];
                    assert_true(id < (uint32_t)d->dict_entries);
                    d->ival[r] = dict.ival[id];
                    PM_OK_OR_FAIL(pm_buf_append(&d->bytes, dict.bytes.data + dict.soff[id],
                                                (size_t)(dict.soff[id + 1] - dict.soff[id])));
                    d->soff[r + 1] = (int32_t)d->bytes.len;
                } else {
                    plain_value(d, m->type, body, blen, &i, r);
                }
            }
            if (!ids)
                assert_int_equal(i, blen);
            free(ids);
            free(defs);
        }
        free(body);
        off += (int64_t)used + h.compressed_page_size;
    }
    assert_int_equal(off, end);
    d->n = r;
    decoded_free(&dict);
    pm_codec_ctx_free(ctx);
}

/* ---- writing helpers ----------------------------------------------------- */

static pm_type *parse_type(const char *s)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, s));
    return t;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    uint8_t *d = pm_test_read_file(path, len);
    assert_non_null(d);
    assert_true(*len >= 12);
    assert_memory_equal(d, "PAR1", 4);
    assert_memory_equal(d + *len - 4, "PAR1", 4);
    return d;
}

static pm_pq_file_meta *footer(const uint8_t *d, size_t len)
{
    uint32_t n;
    memcpy(&n, d + len - 8, 4);
    assert_true(n + 12 <= len);
    pm_pq_file_meta *m = NULL;
    PM_OK_OR_FAIL(pm_pq_file_meta_parse(&m, d + len - 8 - n, n));
    return m;
}

/* Write batches to `name` with options; returns the result. */
static void write_file(const char *name, const pm_type *t, pm_batch **batches, size_t nb,
                       const pm_pq_writer_options *o, pm_pq_write_result *res)
{
    char *path = pm_test_path(name);
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_pq_writer *w;
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, o));
    uint64_t last = 0;
    for (size_t i = 0; i < nb; i++) {
        PM_OK_OR_FAIL(pm_pq_writer_write(w, batches[i]));
        uint64_t est = pm_pq_writer_estimated_size(w);
        assert_true(est >= last);
        last = est;
    }
    PM_OK_OR_FAIL(pm_pq_writer_close(w, res));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    pm_fileio_free(fio);
    free(path);
}

/* id BIGINT NOT NULL, v INT (every 7th null), s STRING (1000 distinct, some
 * null), u STRING (each value twice in a row: 10,000 distinct per page) */
static pm_batch *flat_batch(const pm_type *t, int64_t from, int64_t n)
{
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    char tmp[64];
    for (int64_t i = from; i < from + n; i++) {
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], i));
        if (i % 7 == 0)
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[1]));
        else
            PM_OK_OR_FAIL(pm_column_append_i32(b->columns[1], (int32_t)(i % 100) - 50));
        if (i % 11 == 0) {
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[2]));
        } else {
            int l = snprintf(tmp, sizeof tmp, "s%lld", (long long)(i % 1000));
            PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[2], tmp, (size_t)l));
        }
        int l = snprintf(tmp, sizeof tmp, "unique-%012lld", (long long)(i / 2 * 7919));
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[3], tmp, (size_t)l));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, n));
    return b;
}

static void check_flat_rows(const decoded *d, int col, int64_t n)
{
    assert_int_equal(d->n, n);
    char tmp[64];
    for (int64_t i = 0; i < n; i++) {
        switch (col) {
        case 0:
            assert_false(d->null[i]);
            assert_int_equal(d->ival[i], i);
            break;
        case 1:
            assert_int_equal(d->null[i], i % 7 == 0);
            if (i % 7)
                assert_int_equal(d->ival[i], (i % 100) - 50);
            break;
        case 2: {
            assert_int_equal(d->null[i], i % 11 == 0);
            if (i % 11) {
                int l = snprintf(tmp, sizeof tmp, "s%lld", (long long)(i % 1000));
                assert_int_equal(d->soff[i + 1] - d->soff[i], l);
                assert_memory_equal(d->bytes.data + d->soff[i], tmp, (size_t)l);
            }
            break;
        }
        case 3: {
            int l = snprintf(tmp, sizeof tmp, "unique-%012lld", (long long)(i / 2 * 7919));
            assert_int_equal(d->soff[i + 1] - d->soff[i], l);
            assert_memory_equal(d->bytes.data + d->soff[i], tmp, (size_t)l);
            break;
        }
        }
    }
}

static const int max_defs[4] = {0, 1, 1, 1};

/* ---- tests --------------------------------------------------------------- */

static void test_flat_roundtrip_pages_and_fallback(void **state)
{
    (void)state;
    pm_type *t = parse_type("ROW<id BIGINT NOT NULL, v INT, s STRING, u STRING>");
    enum { N = 50000 };
    pm_batch *b[2] = {flat_batch(t, 0, 30000), flat_batch(t, 30000, N - 30000)};
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.dictionary_page_size = 256 * 1024;   /* u: one page of 10k entries fits, two do not */
    pm_pq_write_result res;
    write_file("flat.parquet", t, b, 2, &o, &res);
    assert_int_equal(res.row_count, N);
    size_t len;
    char *path = pm_test_path("flat.parquet");
    uint8_t *d = slurp(path, &len);
    assert_int_equal(res.file_size, len);
    pm_pq_file_meta *m = footer(d, len);
    assert_int_equal(m->num_rows, N);
    assert_int_equal(m->num_row_groups, 1);
    assert_int_equal(m->version, 1);
    assert_string_equal(m->schema[0].name, "paimon_schema");
    assert_int_equal(m->num_schema, 5);
    assert_true(m->has_column_orders);
    assert_int_equal(m->num_column_orders, 4);
    assert_non_null(m->created_by);
    assert_true(strncmp(m->created_by, "paimon-c version ", 17) == 0);
    const pq_row_group *rg = &m->row_groups[0];
    assert_int_equal(rg->num_rows, N);
    assert_int_equal(rg->file_offset, 4);
    int64_t sum = 0;
    for (int c = 0; c < 4; c++)
        sum += rg->columns[c].meta_data.total_compressed_size;
    assert_int_equal(rg->total_compressed_size, sum);
    assert_int_equal(rg->columns[0].meta_data.num_values, N);

    for (int c = 0; c < 4; c++) {
        decoded dc = {0};
        read_chunk(d, len, &rg->columns[c], max_defs[c], &dc);
        check_flat_rows(&dc, c, N);
        const pq_column_meta *cm = &rg->columns[c].meta_data;
        assert_int_equal(cm->codec, PM_CODEC_ZSTD);
        if (c == 0) {
            /* unique BIGINTs: the first page is not smaller with a dictionary */
            assert_int_equal(dc.dict_pages, 0);
            assert_int_equal(dc.plain_pages, 3);   /* 20000 + 20000 + 10000 rows */
            assert_int_equal(cm->num_encodings, 2);
            assert_int_equal(cm->encodings[0], PQ_ENC_PLAIN);
            assert_int_equal(cm->encodings[1], PQ_ENC_BIT_PACKED);
        } else if (c == 1 || c == 2) {
            assert_int_equal(dc.dict_pages, 1);
            assert_int_equal(dc.plain_pages, 0);
            assert_int_equal(dc.dict_data_pages, 3);
            assert_true(cm->has_dictionary_page_offset);
            assert_int_equal(cm->dictionary_page_offset, c == 1 ? rg->columns[0].meta_data.data_page_offset +
                                                                      rg->columns[0].meta_data.total_compressed_size
                                                                : cm->dictionary_page_offset);
            assert_int_equal(cm->num_encoding_stats, 2);
        } else {
            /* u: the first page is dictionary-encoded; the dictionary
             * overflows during the second, which is rewritten PLAIN; the
             * dictionary page keeps only the first page's entries. */
            assert_int_equal(dc.dict_pages, 1);
            assert_int_equal(dc.dict_data_pages, 1);
            assert_int_equal(dc.plain_pages, 2);
            assert_int_equal(dc.dict_entries, 10000);
            assert_int_equal(cm->num_encoding_stats, 3);
        }
        decoded_free(&dc);
    }
    /* footer statistics */
    const pq_statistics *st = &rg->columns[1].meta_data.statistics;
    assert_true(st->has_null_count);
    assert_int_equal(st->null_count, (N + 6) / 7);
    int32_t mn, mx;
    memcpy(&mn, st->min_value, 4);
    memcpy(&mx, st->max_value, 4);
    assert_int_equal(mn, -50);
    assert_int_equal(mx, 49);
    assert_true(st->has_min && st->has_max);
    const pq_statistics *ss = &rg->columns[2].meta_data.statistics;
    assert_false(ss->has_min);
    assert_int_equal(ss->min_value_len, 2);
    assert_memory_equal(ss->min_value, "s0", 2);   /* row 1000 */
    assert_memory_equal(ss->max_value, "s999", 4);
    /* merged stats for the table layer */
    assert_int_equal(res.ncolumns, 4);
    assert_true(res.stats[0].has_stats && res.stats[0].has_min_max);
    assert_int_equal(res.stats[0].min.i, 0);
    assert_int_equal(res.stats[0].max.i, N - 1);
    assert_int_equal(res.stats[1].null_count, (N + 6) / 7);
    assert_int_equal(res.stats[2].min.bytes.len, 2);
    assert_memory_equal(res.stats[2].max.bytes.data, "s999", 4);
    assert_int_equal(res.stats[3].null_count, 0);
    pm_pq_write_result_free(&res);
    pm_pq_file_meta_free(m);
    free(d);
    free(path);
    pm_batch_free(b[0]);
    pm_batch_free(b[1]);
    pm_type_free(t);
}

/* Columns encoded on a pool (pm_pq_writer_set_pool) give the same bytes as
 * the serial writer: several row groups, dictionaries with fallback, all
 * codecs' contexts per thread, batches below and above the parallel
 * threshold; a nested NOT NULL violation reports the same error. */
static void test_parallel_columns_same_bytes(void **state)
{
    (void)state;
    pm_type *t = parse_type("ROW<id BIGINT NOT NULL, v INT, s STRING, u STRING, a ARRAY<INT NOT NULL>>");
    enum { N = 30000 };
    pm_batch *bs[3];
    for (int k = 0; k < 3; k++) {
        PM_OK_OR_FAIL(pm_batch_new(&bs[k], t));
        int64_t n = k == 1 ? 500 : N; /* one small batch: serial path */
        char tmp[32];
        for (int64_t i = 0; i < n; i++) {
            int64_t r = k * N + i;
            PM_OK_OR_FAIL(pm_column_append_i64(bs[k]->columns[0], r));
            PM_OK_OR_FAIL(r % 7 ? pm_column_append_i32(bs[k]->columns[1], (int32_t)(r % 1000))
                                : pm_column_append_null(bs[k]->columns[1]));
            int m = snprintf(tmp, sizeof tmp, "s%lld", (long long)(r % 3000));
            PM_OK_OR_FAIL(pm_column_append_bytes(bs[k]->columns[2], tmp, (size_t)m));
            m = snprintf(tmp, sizeof tmp, "u%lld", (long long)(r * 7919));
            PM_OK_OR_FAIL(pm_column_append_bytes(bs[k]->columns[3], tmp, (size_t)m));
            pm_column *a = bs[k]->columns[4];
            for (int64_t j = 0; j < r % 3; j++)
                PM_OK_OR_FAIL(pm_column_append_i32(a->children[0], (int32_t)(r + j)));
            PM_OK_OR_FAIL(pm_column_end_nested(a));
        }
        PM_OK_OR_FAIL(pm_batch_finish(bs[k], n));
    }
    pm_pool *pool = NULL;
    PM_OK_OR_FAIL(pm_pool_new(&pool, 2));
    const pm_codec_id codecs[] = {PM_CODEC_ZSTD, PM_CODEC_SNAPPY, PM_CODEC_GZIP};
    for (size_t ci = 0; ci < 3; ci++) {
        uint8_t *bytes[2];
        size_t lens[2];
        for (int par = 0; par < 2; par++) {
            pm_pq_writer_options o;
            pm_pq_writer_options_default(&o);
            o.codec = codecs[ci];
            o.row_group_size = 300 * 1024;
            o.page_row_limit = 4000;
            char *path = pm_test_path(par ? "par.parquet" : "ser.parquet");
            pm_fileio *fio;
            PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
            pm_output *out;
            PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
            pm_pq_writer *w;
            PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, &o));
            if (par)
                pm_pq_writer_set_pool(w, pool, 3);
            for (int k = 0; k < 3; k++)
                PM_OK_OR_FAIL(pm_pq_writer_write(w, bs[k]));
            PM_OK_OR_FAIL(pm_pq_writer_close(w, NULL));
            PM_OK_OR_FAIL(pm_output_close(out, false));
            pm_fileio_free(fio);
            bytes[par] = slurp(path, &lens[par]);
            free(path);
        }
        pm_pq_file_meta *m = footer(bytes[0], lens[0]);
        assert_true(m->num_row_groups > 1);
        pm_pq_file_meta_free(m);
        assert_int_equal(lens[0], lens[1]);
        assert_memory_equal(bytes[0], bytes[1], lens[0]);
        free(bytes[0]);
        free(bytes[1]);
    }
    /* a null element in ARRAY<INT NOT NULL>: the same error either way */
    pm_column *a = bs[0]->columns[4]->children[0];
    a->null_count = 1;
    PM_OK_OR_FAIL(pm_buf_resize(&a->validity, (size_t)(a->length + 7) / 8));
    memset(a->validity.data, 0xff, a->validity.len);
    a->validity.data[100] &= 0xfe;
    char *msgs[2];
    for (int par = 0; par < 2; par++) {
        char *path = pm_test_path("bad.parquet");
        pm_fileio *fio;
        PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
        pm_output *out;
        PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
        pm_pq_writer *w;
        PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, NULL));
        if (par)
            pm_pq_writer_set_pool(w, pool, 3);
        pm_error *e = pm_pq_writer_write(w, bs[0]);
        assert_non_null(e);
        assert_int_equal(pm_error_root_code(e), PM_EINVALID);
        msgs[par] = pm_error_format(e);
        pm_error_free(e);
        pm_pq_writer_abort(w);
        pm_output_abort(out);
        pm_fileio_free(fio);
        free(path);
    }
    assert_string_equal(msgs[0], msgs[1]);
    free(msgs[0]);
    free(msgs[1]);
    pm_pool_free(pool);
    for (int k = 0; k < 3; k++)
        pm_batch_free(bs[k]);
    pm_type_free(t);
}

/* PLAIN byte strings of contiguous rows take an inner loop for short values
 * inside the cached min/max prefixes (pq_write_column.c, bytes_run); the
 * fault point pq-bytes-generic sends every value through the general step.
 * Both give the same file bytes (values, page cuts, statistics): lengths
 * 0..70 around the 8/16/32-byte edges, shared prefixes (ties with the
 * cached min/max prefixes; a column whose values share 7 bytes, so the
 * 8th decides), values at the end of the column's data, a
 * nullable column (positions: general step), batches in slices, PLAIN
 * throughout and a dictionary falling back in the middle of a batch. */
static uint8_t *write_strings(const pm_type *t, pm_batch **bs, int nb, bool dict, size_t *len)
{
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.codec = PM_CODEC_ZSTD;
    o.dictionary = dict;
    o.dictionary_page_size = 4096;
    o.page_row_limit = 900;
    char *path = pm_test_path("strings.parquet");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_pq_writer *w;
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, &o));
    for (int k = 0; k < nb; k++)
        PM_OK_OR_FAIL(pm_pq_writer_write(w, bs[k]));
    PM_OK_OR_FAIL(pm_pq_writer_close(w, NULL));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    pm_fileio_free(fio);
    uint8_t *bytes = slurp(path, len);
    free(path);
    return bytes;
}

static void test_plain_strings_inner_loop_same_bytes(void **state)
{
    (void)state;
    pm_type *t = parse_type("ROW<s STRING NOT NULL, u STRING, v STRING NOT NULL>");
    enum { NB = 4, N = 2500 };
    pm_batch *bs[NB];
    uint64_t rng = 0x2545f4914f6cdd1dull;
    for (int k = 0; k < NB; k++) {
        PM_OK_OR_FAIL(pm_batch_new(&bs[k], t));
        for (int64_t i = 0; i < N; i++) {
            uint64_t r = pm_test_xorshift64(&rng);
            static const size_t edges[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 70};
            size_t n = r & 1 ? edges[(r >> 1) % 12] : (size_t)((r >> 8) % 71);
            char buf[72];
            /* a common prefix of 0..9 'm's, then letters */
            size_t common = (size_t)((r >> 16) % 10);
            for (size_t c = 0; c < n; c++)
                buf[c] = c < common ? 'm' : (char)('a' + (r >> (24 + c % 32)) % 26);
            if (k == 2 && i >= 2000)   /* a dictionary of this batch's values overflows here */
                buf[0] = (char)('A' + i % 26);
            PM_OK_OR_FAIL(pm_column_append_bytes(bs[k]->columns[0], (const uint8_t *)buf, n));
            PM_OK_OR_FAIL((r >> 40) % 13 == 0 ? pm_column_append_null(bs[k]->columns[1])
                                              : pm_column_append_bytes(bs[k]->columns[1], (const uint8_t *)buf, n));
            /* v: seven shared bytes, then the 8th decides against the cached
             * min/max prefixes (short and long values) */
            size_t vn = r & 2 ? 28 : 40;
            for (size_t c = 0; c < vn; c++)
                buf[c] = c < 7 ? 'q' : (char)('a' + (r >> (c % 40)) % 26);
            PM_OK_OR_FAIL(pm_column_append_bytes(bs[k]->columns[2], (const uint8_t *)buf, vn));
        }
        PM_OK_OR_FAIL(pm_batch_finish(bs[k], N));
    }
    for (int dict = 0; dict < 2; dict++) {
        size_t lens[2];
        uint8_t *bytes[2];
        for (int generic = 0; generic < 2; generic++) {
            if (generic)
                setenv("PAIMON_FAULT_INJECT", "pq-bytes-generic", 1);
            bytes[generic] = write_strings(t, bs, NB, dict, &lens[generic]);
            unsetenv("PAIMON_FAULT_INJECT");
        }
        assert_int_equal(lens[0], lens[1]);
        assert_memory_equal(bytes[0], bytes[1], lens[0]);
        pm_pq_file_meta *m = footer(bytes[0], lens[0]);
        assert_int_equal(m->num_rows, NB * N);
        pm_pq_file_meta_free(m);
        free(bytes[0]);
        free(bytes[1]);
    }
    for (int k = 0; k < NB; k++)
        pm_batch_free(bs[k]);
    pm_type_free(t);
}

static void test_row_groups_and_codecs(void **state)
{
    (void)state;
    pm_type *t = parse_type("ROW<id BIGINT NOT NULL, v INT, s STRING, u STRING>");
    enum { N = 40000 };
    pm_batch *b = flat_batch(t, 0, N);
    const pm_codec_id codecs[] = {PM_CODEC_NONE, PM_CODEC_SNAPPY, PM_CODEC_GZIP, PM_CODEC_LZ4_RAW, PM_CODEC_LZ4};
    for (size_t ci = 0; ci < sizeof codecs / sizeof codecs[0]; ci++) {
        pm_pq_writer_options o;
        pm_pq_writer_options_default(&o);
        o.codec = codecs[ci];
        o.row_group_size = 200 * 1024;
        o.page_row_limit = 3000;
        o.dictionary = ci % 2 == 0;
        pm_pq_write_result res;
        write_file("rg.parquet", t, &b, 1, &o, &res);
        size_t len;
        char *path = pm_test_path("rg.parquet");
        uint8_t *d = slurp(path, &len);
        pm_pq_file_meta *m = footer(d, len);
        assert_true(m->num_row_groups > 1);
        int64_t rows = 0, prev_off = 0;
        for (uint32_t g = 0; g < m->num_row_groups; g++) {
            const pq_row_group *rg = &m->row_groups[g];
            assert_true(rg->file_offset > prev_off);
            prev_off = rg->file_offset;
            assert_int_equal(rg->ordinal, g);
            rows += rg->num_rows;
            assert_int_equal(rg->columns[0].meta_data.codec, codecs[ci]);
        }
        assert_int_equal(rows, N);
        for (int c = 0; c < 4; c++) {
            decoded dc = {0};
            for (uint32_t g = 0; g < m->num_row_groups; g++)
                read_chunk(d, len, &m->row_groups[g].columns[c], max_defs[c], &dc);
            check_flat_rows(&dc, c, N);
            if (!o.dictionary)
                assert_int_equal(dc.dict_pages, 0);
            decoded_free(&dc);
        }
        /* merged stats equal the whole data's */
        assert_int_equal(res.stats[0].min.i, 0);
        assert_int_equal(res.stats[0].max.i, N - 1);
        assert_int_equal(res.stats[1].min.i, -50);
        assert_int_equal(res.stats[1].max.i, 49);
        assert_int_equal(res.stats[2].null_count, (N + 10) / 11);
        pm_pq_write_result_free(&res);
        pm_pq_file_meta_free(m);
        free(d);
        free(path);
    }
    pm_batch_free(b);
    pm_type_free(t);
}

static pm_batch *json_batch(const pm_type *t, const char *lines)
{
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, t, lines, strlen(lines)));
    return b;
}

static void test_nested_levels(void **state)
{
    (void)state;
    pm_type *t = parse_type("ROW<a ARRAY<INT>, m MAP<STRING, ARRAY<INT NOT NULL>>, r ROW<x INT, y ARRAY<STRING>>>");
    pm_batch *b = json_batch(t, "{\"a\": [1, 2], \"m\": {\"k\": [1, 2], \"e\": []}, \"r\": {\"x\": 1, \"y\": [\"p\"]}}\n"
                                "{\"a\": [], \"m\": null, \"r\": null}\n"
                                "{\"a\": null, \"m\": {\"n\": null}, \"r\": {\"x\": null, \"y\": []}}\n"
                                "{\"a\": [null, 3], \"m\": {}, \"r\": {\"x\": 2, \"y\": [null, \"q\"]}}\n");
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_write_schema s;
    PM_OK_OR_FAIL(pq_schema_build(&a, t, &s));
    pq_levels lv = {0};
    /* a.list.element: max_def 3, max_rep 1 */
    PM_OK_OR_FAIL(pq_levels_compute(&lv, &s.leaves[0], b->columns[0], 0, 4));
    const uint16_t def_a[] = {3, 3, 1, 0, 2, 3}, rep_a[] = {0, 1, 0, 0, 0, 1};
    assert_int_equal(lv.n, 6);
    assert_memory_equal(lv.def, def_a, sizeof def_a);
    assert_memory_equal(lv.rep, rep_a, sizeof rep_a);
    assert_int_equal(lv.npos, 3);
    /* m.key_value.value.list.element: m 1, kv 2, value 3, list 4, element required: max 4, rep 2 */
    assert_int_equal(s.leaves[2].max_def, 4);
    assert_int_equal(s.leaves[2].max_rep, 2);
    PM_OK_OR_FAIL(pq_levels_compute(&lv, &s.leaves[2], b->columns[1], 0, 4));
    const uint16_t def_m[] = {4, 4, 3, 0, 2, 1}, rep_m[] = {0, 2, 1, 0, 0, 0};
    assert_int_equal(lv.n, 6);
    assert_memory_equal(lv.def, def_m, sizeof def_m);
    assert_memory_equal(lv.rep, rep_m, sizeof rep_m);
    /* r.y.list.element: r 1, y 2, list 3, element 4; rep 1 */
    PM_OK_OR_FAIL(pq_levels_compute(&lv, &s.leaves[4], b->columns[2], 0, 4));
    const uint16_t def_r[] = {4, 0, 2, 3, 4}, rep_r[] = {0, 0, 0, 0, 1};
    assert_int_equal(lv.n, 5);
    assert_memory_equal(lv.def, def_r, sizeof def_r);
    assert_memory_equal(lv.rep, rep_r, sizeof rep_r);
    pq_levels_free(&lv);
    pm_arena_free(&a);

    /* and the whole file writes (the reader and pyarrow tests check values) */
    pm_pq_write_result res;
    write_file("nested.parquet", t, &b, 1, NULL, &res);
    assert_int_equal(res.row_count, 4);
    assert_false(res.stats[0].has_stats);
    assert_false(res.stats[2].has_stats);
    pm_pq_write_result_free(&res);
    pm_batch_free(b);
    pm_type_free(t);
}

static void test_errors(void **state)
{
    (void)state;
    char *path = pm_test_path("err.parquet");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_type *t = parse_type("ROW<a INT NOT NULL, m MAP<STRING, INT>>");
    pm_type *nullable = parse_type("ROW<a INT, m MAP<STRING, INT>>");
    pm_output *out;
    pm_pq_writer *w;

    /* a null in a NOT NULL field (the batch's type allows it) */
    pm_batch *b = json_batch(nullable, "{\"a\": 1}\n{\"a\": null}\n");
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, NULL));
    PM_EXPECT_ERR(pm_pq_writer_write(w, b), PM_EINVALID);
    pm_pq_writer_abort(w);
    pm_output_abort(out);
    pm_batch_free(b);

    /* a rejected batch leaves the writer usable ... */
    pm_batch *good = json_batch(t, "{\"a\": 1, \"m\": {\"k\": 1}}\n");
    b = json_batch(nullable, "{\"a\": 1}\n{\"a\": null}\n");
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, NULL));
    PM_EXPECT_ERR(pm_pq_writer_write(w, b), PM_EINVALID);
    PM_OK_OR_FAIL(pm_pq_writer_write(w, good));
    pm_pq_write_result r1;
    PM_OK_OR_FAIL(pm_pq_writer_close(w, &r1));
    assert_int_equal(r1.row_count, 1);
    pm_pq_write_result_free(&r1);
    PM_OK_OR_FAIL(pm_output_close(out, false));
    pm_batch_free(b);
    /* ... a null deep inside fails it for good */
    pm_type *deep = parse_type("ROW<a INT NOT NULL, m MAP<STRING, INT>, r ROW<x INT NOT NULL>>");
    pm_type *deep_null = parse_type("ROW<a INT NOT NULL, m MAP<STRING, INT>, r ROW<x INT>>");
    b = json_batch(deep_null, "{\"a\": 1, \"r\": {\"x\": null}}\n");
    pm_batch *deep_good = json_batch(deep, "{\"a\": 1, \"r\": {\"x\": 1}}\n");
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, deep, NULL));
    PM_EXPECT_ERR(pm_pq_writer_write(w, b), PM_EINVALID);
    PM_EXPECT_ERR(pm_pq_writer_write(w, deep_good), PM_EINVALID);
    PM_EXPECT_ERR(pm_pq_writer_close(w, NULL), PM_EINVALID);
    pm_output_abort(out);
    pm_batch_free(b);
    pm_batch_free(deep_good);
    pm_batch_free(good);
    pm_type_free(deep);
    pm_type_free(deep_null);

    /* a batch of another type */
    pm_type *other = parse_type("ROW<a STRING, m MAP<STRING, INT>>");
    b = json_batch(other, "{\"a\": \"x\"}\n");
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, NULL));
    PM_EXPECT_ERR(pm_pq_writer_write(w, b), PM_EINVALID);
    pm_pq_writer_abort(w);
    pm_output_abort(out);
    pm_batch_free(b);
    pm_type_free(other);

    /* unsupported type and codec */
    pm_type *v = parse_type("ROW<v VARIANT>");
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    PM_EXPECT_ERR(pm_pq_writer_new(&w, out, v, NULL), PM_EUNSUPPORTED);
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.codec = PM_CODEC_BROTLI;
    PM_EXPECT_ERR(pm_pq_writer_new(&w, out, t, &o), PM_EUNSUPPORTED);
    pm_output_abort(out);
    pm_type_free(v);

    /* empty file: no row groups */
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, NULL));
    pm_pq_write_result res;
    PM_OK_OR_FAIL(pm_pq_writer_close(w, &res));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    assert_int_equal(res.row_count, 0);
    assert_true(res.stats[0].has_stats);
    assert_false(res.stats[0].has_min_max);
    size_t len;
    uint8_t *d = slurp(path, &len);
    pm_pq_file_meta *m = footer(d, len);
    assert_int_equal(m->num_row_groups, 0);
    assert_int_equal(m->num_rows, 0);
    pm_pq_file_meta_free(m);
    free(d);
    pm_pq_write_result_free(&res);

    pm_type_free(t);
    pm_type_free(nullable);
    pm_fileio_free(fio);
    free(path);
}

static void test_null_map_key(void **state)
{
    (void)state;
    /* Build a MAP column whose key is null by hand (JSON keys cannot be null). */
    pm_type *t = parse_type("ROW<m MAP<STRING, INT>>");
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    pm_column *m = b->columns[0];
    PM_OK_OR_FAIL(pm_column_append_null(m->children[0]));
    PM_OK_OR_FAIL(pm_column_append_i32(m->children[1], 1));
    PM_OK_OR_FAIL(pm_column_end_nested(m));
    PM_OK_OR_FAIL(pm_batch_finish(b, 1));
    char *path = pm_test_path("nk.parquet");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_pq_writer *w;
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, t, NULL));
    pm_error *e = pm_pq_writer_write(w, b);
    assert_non_null(e);
    assert_int_equal(pm_error_root_code(e), PM_EINVALID);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "null key"));
    free(msg);
    pm_error_free(e);
    pm_pq_writer_abort(w);
    pm_output_abort(out);
    pm_fileio_free(fio);
    free(path);
    pm_batch_free(b);
    pm_type_free(t);
}

typedef struct kv {
    const char *k, *v;
} kv;

static const char *lookup(void *ctx, const char *key)
{
    for (const kv *p = ctx; p->k; p++)
        if (!strcmp(p->k, key))
            return p->v;
    return NULL;
}

static void test_options(void **state)
{
    (void)state;
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    assert_int_equal(o.codec, PM_CODEC_ZSTD);
    assert_int_equal(o.codec_level, 1);
    assert_int_equal(o.page_size, 1 << 20);
    assert_int_equal(o.row_group_size, 128 << 20);
    assert_int_equal(o.page_row_limit, 20000);
    assert_true(o.dictionary && o.page_crc);

    const kv a[] = {{"file.compression", "snappy"}, {"parquet.compression", "GZIP"},
                    {"file.compression.zstd-level", "3"}, {"parquet.compression.codec.zstd.level", "5"},
                    {"file.block-size", "64 mb"}, {"parquet.page.size", "65536"},
                    {"parquet.enable.dictionary", "false"}, {"parquet.page.row.count.limit", "100"},
                    {"parquet.dictionary.page.size", "2kb"}, {NULL, NULL}};
    PM_OK_OR_FAIL(pm_pq_writer_options_from_table(&o, lookup, (void *)a));
    assert_int_equal(o.codec, PM_CODEC_GZIP);
    assert_int_equal(o.codec_level, 5);
    assert_int_equal(o.row_group_size, 64 << 20);
    assert_int_equal(o.page_size, 65536);
    assert_false(o.dictionary);
    assert_int_equal(o.page_row_limit, 100);
    assert_int_equal(o.dictionary_page_size, 2048);

    const kv b[] = {{"file.block-size", "1g"}, {"parquet.block.size", "1048576"}, {NULL, NULL}};
    PM_OK_OR_FAIL(pm_pq_writer_options_from_table(&o, lookup, (void *)b));
    assert_int_equal(o.row_group_size, 1 << 20);
    const kv none[] = {{"file.compression", "none"}, {NULL, NULL}};
    PM_OK_OR_FAIL(pm_pq_writer_options_from_table(&o, lookup, (void *)none));
    assert_int_equal(o.codec, PM_CODEC_NONE);

    const struct {
        kv bad[2];
        pm_code code;
        const char *name;
    } bad[] = {
        {{{"file.compression", "bogus"}, {NULL, NULL}}, PM_EINVALID, "file.compression"},
        {{{"parquet.compression", "brotli"}, {NULL, NULL}}, PM_EUNSUPPORTED, "parquet.compression"},
        {{{"file.compression.zstd-level", "x"}, {NULL, NULL}}, PM_EINVALID, "file.compression.zstd-level"},
        {{{"parquet.block.size", "12 parsecs"}, {NULL, NULL}}, PM_EINVALID, "parquet.block.size"},
        {{{"parquet.page.size", "0"}, {NULL, NULL}}, PM_EINVALID, "parquet.page.size"},
        {{{"parquet.enable.dictionary", "yes"}, {NULL, NULL}}, PM_EINVALID, "parquet.enable.dictionary"},
        {{{"parquet.writer.version", "v2"}, {NULL, NULL}}, PM_EUNSUPPORTED, "parquet.writer.version"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pm_pq_writer_options_default(&o);
        pm_error *e = pm_pq_writer_options_from_table(&o, lookup, (void *)bad[i].bad);
        assert_non_null(e);
        assert_int_equal(pm_error_root_code(e), bad[i].code);
        char *msg = pm_error_format(e);
        assert_non_null(strstr(msg, bad[i].name));
        free(msg);
        pm_error_free(e);
    }
    int64_t v;
    PM_OK_OR_FAIL(pm_pq_parse_memory_size("  256 mb ", &v));
    assert_int_equal(v, 256ll << 20);
    PM_OK_OR_FAIL(pm_pq_parse_memory_size("2 Gibibytes", &v));
    assert_int_equal(v, 2ll << 30);
    PM_EXPECT_ERR(pm_pq_parse_memory_size("256 MiB", &v), PM_EINVALID);
    PM_OK_OR_FAIL(pm_pq_parse_memory_size("7", &v));
    assert_int_equal(v, 7);
    PM_EXPECT_ERR(pm_pq_parse_memory_size("99999999999999 tb", &v), PM_EINVALID);
    PM_EXPECT_ERR(pm_pq_parse_memory_size("-1", &v), PM_EINVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_roundtrip_pages_and_fallback),
        cmocka_unit_test(test_row_groups_and_codecs),
        cmocka_unit_test(test_parallel_columns_same_bytes),
        cmocka_unit_test(test_plain_strings_inner_loop_same_bytes),
        cmocka_unit_test(test_nested_levels),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_null_map_key),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, pm_test_dir_setup, pm_test_dir_teardown);
}
