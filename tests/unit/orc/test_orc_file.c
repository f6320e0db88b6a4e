/*
 * tests/unit/orc/test_orc_file.c — whole ORC files: every Paimon type with
 * nulls at every level written and read back row for row (as `paimon cat`
 * JSON) under each codec, file versions 0.11 / 0.12, dictionary and direct
 * strings, several stripes and row groups; the tail (types with paimon.id,
 * stripes, encodings, writer time zone); file, stripe and row-index
 * statistics and Paimon's view of them; read types and projections; bad
 * batches rejected; every truncation and many corruptions of a file end
 * in an error, never a crash; option parsing.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "pm_test.h"
#include "base/buf.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_stats.h"
#include "format/orc/orc_writer.h"
#include "io/fileio.h"
#include "types/column.h"

static const char *ALL_TYPES =
    "ROW<b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT NOT NULL, i64 BIGINT, f FLOAT, d DOUBLE, "
    "dec DECIMAL(10, 2), dec38 DECIMAL(38, 6), c CHAR(4), vc VARCHAR(6), s STRING, bin BYTES, bn BINARY(3), "
    "dt DATE, tm TIME(3), ts3 TIMESTAMP(3), ts9 TIMESTAMP(9), ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, "
    "arr ARRAY<INT>, arr2 ARRAY<ARRAY<STRING>>, m MAP<STRING, BIGINT>, ms MULTISET<STRING>, "
    "r ROW<x INT, y STRING, z ARRAY<INT>>>";

static pm_type *parse(const char *s)
{
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, s));
    return t;
}

/* ---- building rows ---- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static void put_scalar(pm_column *c, int64_t i, uint64_t h)
{
    static const char *words[] = {"red", "green", "blue", "", "héllo", "sky"};
    const pm_type *t = c->type;
    switch (t->id) {
    case PM_TYPE_BOOLEAN: PM_OK_OR_FAIL(pm_column_append_bool(c, h & 1)); break;
    case PM_TYPE_TINYINT: PM_OK_OR_FAIL(pm_column_append_i8(c, (int8_t)h)); break;
    case PM_TYPE_SMALLINT: PM_OK_OR_FAIL(pm_column_append_i16(c, (int16_t)(h % 7 ? h : 7))); break;
    case PM_TYPE_INT:
        PM_OK_OR_FAIL(pm_column_append_i32(c, i % 3 ? (int32_t)h : (int32_t)i));
        break;
    case PM_TYPE_BIGINT:
        PM_OK_OR_FAIL(pm_column_append_i64(c, i % 5 == 0 ? (int64_t)h : (int64_t)(h % 1000) - 500));
        break;
    case PM_TYPE_FLOAT: PM_OK_OR_FAIL(pm_column_append_f32(c, i % 11 == 0 ? NAN : (float)(int32_t)h / 1000.0f)); break;
    case PM_TYPE_DOUBLE:
        PM_OK_OR_FAIL(pm_column_append_f64(c, i % 13 == 0 ? -INFINITY : (double)(int64_t)h / 3.0e7));
        break;
    case PM_TYPE_DECIMAL: {
        __int128 v = (__int128)(int64_t)(h % 10000000000ULL) - 5000000000LL;
        if (t->precision > 18)
            v = v * (__int128)1000000000000000LL * 1000000 + (__int128)(h % 1000);
        if (i % 4 == 0)
            v = v / 100 * 100; /* trailing zeros */
        PM_OK_OR_FAIL(pm_column_append_decimal(c, v));
        break;
    }
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: {
        const char *w = words[h % 6];
        char tmp[32];
        /* CHAR values without trailing spaces read back as written */
        snprintf(tmp, sizeof tmp, "%.*s", t->length == PM_MAX_LENGTH ? 20 : t->length, w);
        if (t->length == PM_MAX_LENGTH && i % 7 == 0)
            snprintf(tmp, sizeof tmp, "v%lld", (long long)i);
        PM_OK_OR_FAIL(pm_column_append_bytes(c, tmp, strlen(tmp)));
        break;
    }
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY: {
        uint8_t b[8];
        size_t n = t->id == PM_TYPE_BINARY ? 3 : h % 8;
        for (size_t k = 0; k < n; k++)
            b[k] = (uint8_t)(h >> (k * 8));
        PM_OK_OR_FAIL(pm_column_append_bytes(c, b, n));
        break;
    }
    case PM_TYPE_DATE: PM_OK_OR_FAIL(pm_column_append_i32(c, (int32_t)(h % 200000) - 100000)); break;
    case PM_TYPE_TIME: PM_OK_OR_FAIL(pm_column_append_i32(c, (int32_t)(h % 86400000))); break;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        int64_t v = (int64_t)(h % 4000000000000ULL) - 2000000000000LL; /* millis */
        /* just before the epoch; not in (-1 s, 0) with a millisecond part,
         * which no ORC writer can store (orc-core's seconds truncate toward
         * zero and its reader compensates only below -1 s) */
        if (i % 9 == 0)
            v = -1000 - (int64_t)(h % 3000);
        if (t->precision > 3)
            v = v * 1000 + (int64_t)(h % 1000);
        if (t->precision > 6)
            v = v * 1000 + (int64_t)(h % 997);
        PM_OK_OR_FAIL(pm_column_append_i64(c, v));
        break;
    }
    default: fail_msg("no generator for %s", pm_type_id_name(t->id));
    }
}

static void put_value(pm_column *c, int64_t i, uint64_t h, int depth)
{
    if (c->type->nullable && h % 10 == 3) {
        PM_OK_OR_FAIL(pm_column_append_null(c));
        return;
    }
    switch (c->type->id) {
    case PM_TYPE_ARRAY: {
        int n = (int)(h % 4);
        for (int k = 0; k < n; k++)
            put_value(c->children[0], i, mix(h + k + 1), depth + 1);
        PM_OK_OR_FAIL(pm_column_end_nested(c));
        break;
    }
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        int n = (int)(h % 3);
        for (int k = 0; k < n; k++) {
            char key[16];
            snprintf(key, sizeof key, "k%d", k);
            PM_OK_OR_FAIL(pm_column_append_bytes(c->children[0], key, strlen(key)));
            if (c->type->id == PM_TYPE_MULTISET)
                PM_OK_OR_FAIL(pm_column_append_i32(c->children[1], (int32_t)(h % 5) + 1));
            else
                put_value(c->children[1], i, mix(h ^ (uint64_t)k), depth + 1);
        }
        PM_OK_OR_FAIL(pm_column_end_nested(c));
        break;
    }
    case PM_TYPE_ROW:
        for (size_t k = 0; k < c->nchildren; k++)
            put_value(c->children[k], i, mix(h + 77 * (k + 1)), depth + 1);
        PM_OK_OR_FAIL(pm_column_end_nested(c));
        break;
    default: put_scalar(c, i, h); break;
    }
}

static pm_batch *make_batch(const pm_type *t, int64_t first, int64_t n)
{
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    for (size_t f = 0; f < t->nfields; f++)
        for (int64_t i = first; i < first + n; i++)
            put_value(b->columns[f], i, mix((uint64_t)i * 131 + f), 0);
    PM_OK_OR_FAIL(pm_batch_finish(b, n));
    return b;
}

/* ---- files ---- */

/* Write `rows` rows in batches of `chunk`; returns the file bytes. */
static uint8_t *write_file(const pm_type *t, const pm_orc_writer_options *o, int64_t rows, int64_t chunk,
                           size_t *len, pm_orc_write_result *res)
{
    char *path = pm_test_path("t.orc");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_orc_writer *w;
    PM_OK_OR_FAIL(pm_orc_writer_new(&w, out, t, o));
    for (int64_t at = 0; at < rows; at += chunk) {
        pm_batch *b = make_batch(t, at, rows - at < chunk ? rows - at : chunk);
        PM_OK_OR_FAIL(pm_orc_writer_write(w, b));
        pm_batch_free(b);
    }
    PM_OK_OR_FAIL(pm_orc_writer_close(w, res));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    pm_fileio_free(fio);
    uint8_t *data = pm_test_read_file(path, len);
    assert_non_null(data);
    free(path);
    return data;
}

/* JSON lines of all rows read with `o`. */
static char *read_json(const uint8_t *data, size_t len, const pm_orc_reader_options *o, int64_t *rows)
{
    pm_orc_reader *r;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, o));
    pm_buf out = PM_BUF_INIT;
    *rows = 0;
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_orc_reader_next_batch(r, &b));
        if (!b)
            break;
        PM_OK_OR_FAIL(pm_batch_format_rows_json(b, 0, pm_batch_num_rows(b), &out));
        *rows += pm_batch_num_rows(b);
    }
    pm_orc_reader_free(r);
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, 0));
    return (char *)pm_buf_detach(&out, &(size_t){0});
}

static char *expected_json(const pm_type *t, int64_t rows, int64_t chunk)
{
    pm_buf out = PM_BUF_INIT;
    for (int64_t at = 0; at < rows; at += chunk) {
        pm_batch *b = make_batch(t, at, rows - at < chunk ? rows - at : chunk);
        PM_OK_OR_FAIL(pm_batch_format_rows_json(b, 0, pm_batch_num_rows(b), &out));
        pm_batch_free(b);
    }
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, 0));
    return (char *)pm_buf_detach(&out, &(size_t){0});
}

static void expect_roundtrip(const pm_type *t, const pm_orc_writer_options *o, int64_t rows, int64_t chunk,
                             int64_t read_batch)
{
    size_t len;
    uint8_t *data = write_file(t, o, rows, chunk, &len, NULL);
    pm_orc_reader_options ro = PM_ORC_READER_OPTIONS_INIT;
    ro.read_type = t;
    ro.batch_rows = read_batch;
    int64_t n;
    char *got = read_json(data, len, &ro, &n);
    char *want = expected_json(t, rows, chunk);
    assert_int_equal(n, rows);
    if (strcmp(got, want)) {
        size_t k = 0;
        while (got[k] == want[k])
            k++;
        size_t line = k;
        while (line > 0 && want[line - 1] != '\n')
            line--;
        fail_msg("rows differ at byte %zu:\n got  %.300s\n want %.300s", k, got + line, want + line);
    }
    free(got);
    free(want);
    free(data);
}

static void test_all_types_each_codec(void **state)
{
    (void)state;
    pm_type *t = parse(ALL_TYPES);
    const uint32_t codecs[] = {ORC_COMP_NONE, ORC_COMP_ZLIB, ORC_COMP_SNAPPY, ORC_COMP_LZ4, ORC_COMP_ZSTD};
    for (size_t k = 0; k < sizeof codecs / sizeof *codecs; k++) {
        pm_orc_writer_options o;
        pm_orc_writer_options_default(&o);
        o.compression = codecs[k];
        o.buffer_size = 4096; /* many chunks per stream */
        o.enforce_buffer_size = true;
        expect_roundtrip(t, &o, 2500, 700, 333);
    }
    pm_type_free(t);
}

static void test_stripes_versions_dictionaries(void **state)
{
    (void)state;
    pm_type *t = parse(ALL_TYPES);
    pm_orc_writer_options o;
    /* several stripes and row groups */
    pm_orc_writer_options_default(&o);
    o.stripe_size = 200000;
    o.row_index_stride = 1000;
    o.rows_between_checks = 1000;
    expect_roundtrip(t, &o, 12000, 4096, 1000);
    /* every string column direct, then dictionary kept whatever the ratio */
    o.dictionary_threshold = 0;
    expect_roundtrip(t, &o, 3000, 1024, 4096);
    o.dictionary_threshold = 1.0;
    expect_roundtrip(t, &o, 3000, 1024, 4096);
    /* file version 0.11: RLE v1 everywhere */
    pm_orc_writer_options_default(&o);
    o.file_version = 11;
    expect_roundtrip(t, &o, 3000, 999, 4096);
    /* no row index */
    o.row_index_stride = 0;
    expect_roundtrip(t, &o, 1500, 1500, 4096);
    /* encoding strategy COMPRESSION: unaligned RLE v2 widths */
    pm_orc_writer_options_default(&o);
    o.encoding_speed = false;
    expect_roundtrip(t, &o, 3000, 1000, 4096);
    pm_type_free(t);
}

static void test_empty_and_tiny(void **state)
{
    (void)state;
    pm_type *t = parse(ALL_TYPES);
    expect_roundtrip(t, NULL, 0, 1, 10);
    expect_roundtrip(t, NULL, 1, 1, 10);
    expect_roundtrip(t, NULL, 3, 1, 2);
    pm_type_free(t);
}

/* ---- tail, statistics ---- */

static void test_tail_and_statistics(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<id INT NOT NULL, s STRING, d DECIMAL(10, 2), ts TIMESTAMP(3), l ARRAY<INT>>");
    pm_orc_writer_options o;
    pm_orc_writer_options_default(&o);
    o.stripe_size = 50000;
    o.rows_between_checks = 1000;
    pm_orc_write_result res;
    size_t len;
    uint8_t *data = write_file(t, &o, 25000, 5000, &len, &res);
    assert_int_equal(res.row_count, 25000);
    assert_int_equal(res.file_size, len);
    assert_true(res.nstripes > 1);
    assert_int_equal(res.ncolumns, 5);
    /* id: i for i % 3 == 0 else hash: not null, min/max present */
    assert_true(res.stats[0].has_null_count);
    assert_int_equal(res.stats[0].null_count, 0);
    assert_true(res.stats[0].has_min && res.stats[0].has_max);
    assert_true(res.stats[0].min.i <= 0 && res.stats[0].max.i > 0);
    assert_true(res.stats[1].null_count > 0);
    assert_true(res.stats[1].has_min && res.stats[1].min.bytes.len == 0); /* "" is the smallest */
    assert_false(res.stats[4].has_min); /* arrays: null count only */
    assert_true(res.stats[4].has_null_count);

    pm_orc_reader_options ro = PM_ORC_READER_OPTIONS_INIT;
    ro.footer_only = true;
    pm_orc_reader *r;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, &ro));
    const pm_orc_file_info *fi = pm_orc_reader_info(r);
    assert_int_equal(fi->rows, 25000);
    assert_int_equal(fi->nstripes, res.nstripes);
    assert_int_equal(fi->compression, ORC_COMP_ZSTD);
    assert_int_equal(fi->row_index_stride, 10000);
    assert_int_equal(fi->version[0], 0);
    assert_int_equal(fi->version[1], 12);
    assert_int_equal(fi->writer, 0);
    assert_int_equal(fi->writer_version, 9);
    assert_string_equal(fi->software_version, "paimon-c " PM_VERSION);
    assert_int_equal(fi->ncolumns, 7); /* root, 5 fields, list element */
    const orc_footer *ft = pm_orc_reader_footer(r);
    assert_int_equal(ft->types[0].kind, ORC_STRUCT);
    assert_int_equal(ft->types[1].kind, ORC_INT);
    assert_string_equal(ft->types[1].attrs[0].key, "paimon.id");
    assert_string_equal(ft->types[1].attrs[0].value, "0");
    assert_string_equal(ft->types[6].attrs[0].value, "536875008"); /* element of field 4 at depth 1 */
    assert_int_equal(ft->types[3].kind, ORC_DECIMAL);
    assert_int_equal(ft->types[3].precision, 10);
    assert_int_equal(ft->types[3].scale, 2);
    assert_int_equal(pm_orc_reader_column_of(r, "d"), 3);
    /* file statistics: the root counts rows, every column its values */
    const pm_orc_stats *root = pm_orc_reader_file_stats(r, 0);
    assert_int_equal(root->count, 25000);
    const pm_orc_stats *ids = pm_orc_reader_file_stats(r, 1);
    assert_true(ids->ints.present && ids->ints.has_min && ids->ints.has_max);
    assert_false(ids->has_null);
    assert_true(ids->has_bytes_on_disk && ids->bytes_on_disk > 0);
    const pm_orc_stats *ss = pm_orc_reader_file_stats(r, 2);
    assert_true(ss->str.present && ss->str.has_sum && ss->has_null);
    assert_int_equal(ss->count + (uint64_t)res.stats[1].null_count, 25000);
    const pm_orc_stats *dec = pm_orc_reader_file_stats(r, 3);
    assert_true(dec->dec.present && dec->dec.has_min && dec->dec.has_max && dec->dec.has_sum);
    const pm_orc_stats *ts = pm_orc_reader_file_stats(r, 4);
    assert_true(ts->ts.present && ts->ts.has_min_utc && ts->ts.has_max_utc);
    /* Paimon's view of the decimal statistics agrees with the write result */
    pm_orc_field_stats fs;
    pm_type *dt = pm_type_new_decimal(10, 2, true);
    orc_field_stats(dec, dt, fi->rows, &fs);
    assert_true(fs.has_min && fs.has_max);
    assert_true(fs.min.dec == res.stats[2].min.dec && fs.max.dec == res.stats[2].max.dec);
    pm_type_free(dt);
    /* stripe statistics add up to the file's; row indexes have one entry per 10,000 rows */
    uint64_t sum = 0;
    for (uint32_t s = 0; s < fi->nstripes; s++) {
        const pm_orc_stats *st = pm_orc_reader_stripe_stats(r, s, 1);
        assert_non_null(st);
        sum += st->count;
        const orc_row_index *ri;
        PM_OK_OR_FAIL(pm_orc_reader_row_index(r, s, 1, &ri));
        uint64_t rows = ft->stripes[s].rows;
        assert_int_equal(ri->nentries, (rows + 9999) / 10000);
        assert_true(ri->entries[0].has_stats);
        /* zstd: (chunk, offset) of DATA + buffered values; PRESENT suppressed */
        assert_int_equal(ri->entries[0].npositions, 3);
        const orc_stripe_footer *sf;
        PM_OK_OR_FAIL(pm_orc_reader_stripe_footer(r, s, &sf));
        assert_int_equal(sf->nencodings, 7);
        assert_int_equal(sf->encodings[1].kind, ORC_ENC_DIRECT_V2);
        assert_int_equal(sf->encodings[2].kind, ORC_ENC_DICTIONARY_V2);
        assert_string_equal(sf->writer_timezone, "UTC");
    }
    assert_int_equal(sum, ids->count);
    assert_null(pm_orc_reader_metadata_error(r));
    pm_orc_reader_free(r);
    pm_orc_write_result_free(&res);
    free(data);
    pm_type_free(t);
}

/* The stripe filter sees each stripe once, in order, with its statistics;
 * skipped stripes yield no rows. */
typedef struct filter_seen {
    uint32_t calls, next;
    int64_t keep_from;
    uint64_t kept_rows;
} filter_seen;

static bool keep_late_stripes(void *ctx, pm_orc_reader *r, uint32_t stripe)
{
    filter_seen *f = ctx;
    assert_int_equal(stripe, f->next);
    f->next++;
    f->calls++;
    const pm_orc_stats *st = pm_orc_reader_stripe_stats(r, stripe, 1);
    assert_non_null(st);
    assert_true(st->ints.has_max);
    bool keep = st->ints.max >= f->keep_from;
    if (keep)
        f->kept_rows += pm_orc_reader_footer(r)->stripes[stripe].rows;
    return keep;
}

static void test_stripe_filter(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<id BIGINT NOT NULL, s STRING>");
    pm_orc_writer_options o;
    pm_orc_writer_options_default(&o);
    o.stripe_size = 20000;
    o.rows_between_checks = 500;
    char *path = pm_test_path("filter.orc");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_orc_writer *w;
    PM_OK_OR_FAIL(pm_orc_writer_new(&w, out, t, &o));
    const int64_t rows = 20000;
    for (int64_t at = 0; at < rows; at += 1000) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_batch_new(&b, t));
        for (int64_t i = at; i < at + 1000; i++) {
            char v[32];
            snprintf(v, sizeof v, "value-%lld", (long long)(i * 7919 % 100003));
            PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], i));
            PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[1], v, strlen(v)));
        }
        PM_OK_OR_FAIL(pm_batch_finish(b, 1000));
        PM_OK_OR_FAIL(pm_orc_writer_write(w, b));
        pm_batch_free(b);
    }
    pm_orc_write_result res;
    PM_OK_OR_FAIL(pm_orc_writer_close(w, &res));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    pm_fileio_free(fio);
    assert_true(res.nstripes >= 3);
    size_t len;
    uint8_t *data = pm_test_read_file(path, &len);
    assert_non_null(data);

    filter_seen f = {0, 0, rows / 2, 0};
    pm_orc_reader_options ro = PM_ORC_READER_OPTIONS_INIT;
    ro.filter = keep_late_stripes;
    ro.filter_ctx = &f;
    ro.batch_rows = 700;
    pm_orc_reader *r;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, &ro));
    uint64_t got = 0;
    int64_t first = -1, prev = -1;
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_orc_reader_next_batch(r, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < pm_batch_num_rows(b); i++) {
            int64_t id = pm_column_i64(b->columns[0], i);
            if (first < 0)
                first = id;
            else
                assert_int_equal(id, prev + 1); /* kept stripes are contiguous here */
            prev = id;
        }
        got += (uint64_t)pm_batch_num_rows(b);
    }
    assert_int_equal(f.calls, res.nstripes);
    assert_true(f.kept_rows > 0 && f.kept_rows < (uint64_t)rows);
    assert_int_equal(got, f.kept_rows);
    assert_int_equal(prev, rows - 1);
    assert_true(first > 0 && first <= rows / 2);
    pm_orc_reader_free(r);
    /* a filter that keeps nothing: no batches at all */
    f = (filter_seen){0, 0, INT64_MAX, 0};
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, &ro));
    pm_batch *b;
    PM_OK_OR_FAIL(pm_orc_reader_next_batch(r, &b));
    assert_null(b);
    assert_int_equal(f.calls, res.nstripes);
    pm_orc_reader_free(r);
    pm_orc_write_result_free(&res);
    free(data);
    free(path);
    pm_type_free(t);
}

static void test_user_metadata(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<a INT>");
    pm_orc_kv kv[] = {{"z.key", (const uint8_t *)"1", 1}, {"a.key", (const uint8_t *)"\0\1", 2}};
    pm_orc_writer_options o;
    pm_orc_writer_options_default(&o);
    o.user_metadata = kv;
    o.nuser_metadata = 2;
    o.software_version = "1.9.2";
    size_t len;
    uint8_t *data = write_file(t, &o, 10, 10, &len, NULL);
    pm_orc_reader *r;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, NULL));
    const orc_footer *ft = pm_orc_reader_footer(r);
    assert_int_equal(ft->nmeta, 2);
    assert_string_equal(ft->meta[0].name, "a.key"); /* sorted by name, as Java's TreeMap */
    assert_int_equal(ft->meta[0].value.len, 2);
    assert_string_equal(ft->meta[1].name, "z.key");
    assert_string_equal(pm_orc_reader_info(r)->software_version, "1.9.2");
    pm_orc_reader_free(r);
    free(data);
    pm_type_free(t);
}

/* ---- reading: read types, projections ---- */

static void test_read_types_and_projection(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<a INT, tm TIME(3), ts TIMESTAMP(6), c CHAR(3), b BINARY(3)>");
    size_t len;
    uint8_t *data = write_file(t, NULL, 100, 100, &len, NULL);
    /* default types: int, int, timestamp(9), char(3), bytes */
    pm_orc_reader *r;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, NULL));
    const pm_type *s = pm_orc_reader_schema(r);
    assert_int_equal(s->fields[1].type->id, PM_TYPE_INT);
    assert_int_equal(s->fields[2].type->id, PM_TYPE_TIMESTAMP);
    assert_int_equal(s->fields[2].type->precision, 9);
    assert_int_equal(s->fields[3].type->id, PM_TYPE_CHAR);
    assert_int_equal(s->fields[4].type->id, PM_TYPE_VARBINARY);
    assert_int_equal(s->fields[4].id, 4);
    pm_orc_reader_free(r);
    /* projection by name and by id, in the order given */
    const char *names[] = {"c", "a"};
    pm_orc_reader_options o = PM_ORC_READER_OPTIONS_INIT;
    o.columns = names;
    o.ncolumns = 2;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, &o));
    assert_string_equal(pm_orc_reader_schema(r)->fields[0].name, "c");
    pm_batch *b;
    PM_OK_OR_FAIL(pm_orc_reader_next_batch(r, &b));
    assert_int_equal(pm_batch_num_rows(b), 100);
    pm_orc_reader_free(r);
    const int32_t ids[] = {2};
    o = (pm_orc_reader_options)PM_ORC_READER_OPTIONS_INIT;
    o.column_ids = ids;
    o.ncolumn_ids = 1;
    o.read_type = t;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, &o));
    assert_int_equal(pm_orc_reader_schema(r)->fields[0].type->precision, 6);
    pm_orc_reader_free(r);
    /* unknown columns and types that do not fit */
    const char *bad[] = {"nope"};
    o = (pm_orc_reader_options)PM_ORC_READER_OPTIONS_INIT;
    o.columns = bad;
    o.ncolumns = 1;
    PM_EXPECT_ERR(pm_orc_reader_open_memory(&r, data, len, &o), PM_EINVALID);
    pm_type *wrong = parse("ROW<a STRING>");
    o = (pm_orc_reader_options)PM_ORC_READER_OPTIONS_INIT;
    o.read_type = wrong;
    PM_EXPECT_ERR(pm_orc_reader_open_memory(&r, data, len, &o), PM_EINVALID);
    pm_type_free(wrong);
    free(data);
    pm_type_free(t);
}

static void test_char_padding_and_trimming(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<c CHAR(4), v VARCHAR(3)>");
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    const char *cs[] = {"ab", "abcdef", "é", "  x "};
    const char *vs[] = {"abcd", "ééé", "", "xyz"};
    for (int i = 0; i < 4; i++) {
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[0], cs[i], strlen(cs[i])));
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[1], vs[i], strlen(vs[i])));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, 4));
    char *path = pm_test_path("c.orc");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_orc_writer *w;
    PM_OK_OR_FAIL(pm_orc_writer_new(&w, out, t, NULL));
    PM_OK_OR_FAIL(pm_orc_writer_write(w, b));
    PM_OK_OR_FAIL(pm_orc_writer_close(w, NULL));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    pm_fileio_free(fio);
    size_t len;
    uint8_t *data = pm_test_read_file(path, &len);
    int64_t n;
    char *got = read_json(data, len, NULL, &n);
    /* written padded to 4 characters / cut to 3; read back right-trimmed, as orc-core's reader does */
    assert_string_equal(got, "{\"c\":\"ab\",\"v\":\"abc\"}\n{\"c\":\"abcd\",\"v\":\"ééé\"}\n"
                             "{\"c\":\"é\",\"v\":\"\"}\n{\"c\":\"  x\",\"v\":\"xyz\"}\n");
    free(got);
    free(data);
    free(path);
    pm_batch_free(b);
    pm_type_free(t);
}

/* ---- bad input ---- */

static void test_bad_batches(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<a INT NOT NULL, b STRING>");
    char *path = pm_test_path("bad.orc");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_orc_writer *w;
    PM_OK_OR_FAIL(pm_orc_writer_new(&w, out, t, NULL));
    /* a null in a NOT NULL field: rejected, the writer goes on */
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    PM_OK_OR_FAIL(pm_column_append_null(b->columns[0]));
    PM_OK_OR_FAIL(pm_column_append_null(b->columns[1]));
    PM_OK_OR_FAIL(pm_batch_finish(b, 1));
    PM_EXPECT_ERR(pm_orc_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    /* another row type */
    pm_type *other = parse("ROW<a BIGINT NOT NULL, b STRING>");
    PM_OK_OR_FAIL(pm_batch_new(&b, other));
    PM_OK_OR_FAIL(pm_batch_finish(b, 0));
    PM_EXPECT_ERR(pm_orc_writer_write(w, b), PM_EINVALID);
    pm_batch_free(b);
    pm_type_free(other);
    assert_int_equal(pm_orc_writer_num_rows(w), 0);
    PM_OK_OR_FAIL(pm_orc_writer_close(w, NULL));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    /* unsupported types and options */
    pm_type *v = parse("ROW<v VARIANT>");
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    PM_EXPECT_ERR(pm_orc_writer_new(&w, out, v, NULL), PM_EUNSUPPORTED);
    pm_type_free(v);
    pm_orc_writer_options o;
    pm_orc_writer_options_default(&o);
    o.row_index_stride = 10;
    PM_EXPECT_ERR(pm_orc_writer_new(&w, out, t, &o), PM_EINVALID);
    pm_orc_writer_options_default(&o);
    o.compression = ORC_COMP_LZO;
    PM_EXPECT_ERR(pm_orc_writer_new(&w, out, t, &o), PM_EUNSUPPORTED);
    pm_output_abort(out);
    pm_fileio_free(fio);
    free(path);
    pm_type_free(t);
}

static void read_quietly(const uint8_t *data, size_t len)
{
    pm_orc_reader *r;
    pm_error *e = pm_orc_reader_open_memory(&r, data, len, NULL);
    if (e) {
        assert_true(pm_error_code(e) == PM_ECORRUPT || pm_error_code(e) == PM_EUNSUPPORTED);
        pm_error_free(e);
        return;
    }
    pm_buf out = PM_BUF_INIT;
    for (;;) {
        pm_batch *b;
        e = pm_orc_reader_next_batch(r, &b);
        if (e || !b)
            break;
        pm_error_free(pm_batch_format_rows_json(b, 0, pm_batch_num_rows(b), &out));
    }
    if (e)
        assert_true(pm_error_code(e) == PM_ECORRUPT || pm_error_code(e) == PM_EUNSUPPORTED);
    pm_error_free(e);
    for (uint32_t s = 0; s < pm_orc_reader_info(r)->nstripes; s++) {
        (void)pm_orc_reader_stripe_stats(r, s, 1);
        const orc_row_index *ri;
        pm_error_free(pm_orc_reader_row_index(r, s, 1, &ri));
    }
    pm_buf_free(&out);
    pm_orc_reader_free(r);
}

static void test_corrupt_files(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<a INT, s STRING, l ARRAY<BIGINT>, r ROW<x DOUBLE, y DECIMAL(20, 3)>, ts TIMESTAMP(9)>");
    const uint32_t codecs[] = {ORC_COMP_NONE, ORC_COMP_ZSTD, ORC_COMP_ZLIB};
    for (size_t k = 0; k < 3; k++) {
        pm_orc_writer_options o;
        pm_orc_writer_options_default(&o);
        o.compression = codecs[k];
        size_t len;
        uint8_t *data = write_file(t, &o, 300, 300, &len, NULL);
        uint8_t *copy = malloc(len);
        /* every truncation of the tail, a sample of the body */
        for (size_t n = 0; n < len; n += n + 400 < len ? 7 : 1) {
            memcpy(copy, data, n);
            read_quietly(copy, n);
        }
        /* flipped bytes everywhere */
        uint64_t h = 12345;
        for (int i = 0; i < 600; i++) {
            memcpy(copy, data, len);
            h = mix(h + (uint64_t)i);
            copy[h % len] ^= (uint8_t)(1u << (h >> 60 & 7));
            if (i % 3 == 0)
                copy[(h >> 20) % len] = (uint8_t)(h >> 40);
            read_quietly(copy, len);
        }
        free(copy);
        free(data);
    }
    pm_type_free(t);
    /* not ORC at all */
    PM_EXPECT_ERR(pm_orc_reader_open_memory(&(pm_orc_reader *){NULL}, (const uint8_t *)"PAR1xxxx", 8, NULL),
                  PM_ECORRUPT);
}

/* ---- options ---- */

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

static void test_options_from_table(void **state)
{
    (void)state;
    pm_orc_writer_options o;
    char *names;
    pm_orc_writer_options_default(&o);
    kv a[] = {{"file.compression", "lz4"},        {"orc.stripe.size", "1000000"},
              {"orc.row.index.stride", "5000"},   {"orc.dictionary.key.threshold", "0.5"},
              {"orc.column.encoding.direct", "a, b.c"}, {"orc.block.padding", "FALSE"},
              {"orc.create.index", "false"},      {"write.batch-size", "2048"},
              {"orc.write.format", "0.11"},       {NULL, NULL}};
    PM_OK_OR_FAIL(pm_orc_writer_options_from_table(&o, lookup, a, -1, &names));
    assert_int_equal(o.compression, ORC_COMP_LZ4);
    assert_int_equal(o.stripe_size, 1000000);
    assert_int_equal(o.row_index_stride, 5000);
    assert_true(o.dictionary_threshold == 0.5);
    assert_int_equal(o.ndirect_columns, 2);
    assert_string_equal(o.direct_columns[1], "b.c");
    assert_false(o.block_padding);
    assert_int_equal(o.batch_size, 2048);
    assert_int_equal(o.file_version, 11);
    free(names);
    /* orc.compress wins over file.compression; file.block-size over orc.stripe.size */
    pm_orc_writer_options_default(&o);
    kv b[] = {{"orc.compress", "ZLIB"}, {"file.compression", "zstd"}, {"orc.stripe.size", "5"},
              {"file.compression.zstd-level", "3"}, {NULL, NULL}};
    PM_OK_OR_FAIL(pm_orc_writer_options_from_table(&o, lookup, b, 128 << 20, &names));
    assert_int_equal(o.compression, ORC_COMP_ZLIB);
    assert_int_equal(o.stripe_size, 128 << 20);
    assert_int_equal(o.zstd_level, 3);
    /* bad values and unsupported features name the option */
    const kv bad[][2] = {
        {{"orc.compress", "gzip"}, {NULL, NULL}},          {{"orc.stripe.size", "12 mb"}, {NULL, NULL}},
        {{"orc.write.format", "0.13"}, {NULL, NULL}},      {{"orc.encoding.strategy", "speed"}, {NULL, NULL}},
        {{"orc.dictionary.key.threshold", "x"}, {NULL, NULL}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pm_orc_writer_options_default(&o);
        PM_EXPECT_ERR(pm_orc_writer_options_from_table(&o, lookup, (void *)bad[i], -1, &names), PM_EINVALID);
    }
    const kv unsup[][2] = {
        {{"orc.compress", "LZO"}, {NULL, NULL}},           {{"orc.bloom.filter.columns", "a"}, {NULL, NULL}},
        {{"orc.compression.zstd.windowlog", "20"}, {NULL, NULL}}, {{"orc.encrypt", "k:a"}, {NULL, NULL}},
        {{"orc.proleptic.gregorian", "true"}, {NULL, NULL}},
    };
    for (size_t i = 0; i < sizeof unsup / sizeof *unsup; i++) {
        pm_orc_writer_options_default(&o);
        PM_EXPECT_ERR(pm_orc_writer_options_from_table(&o, lookup, (void *)unsup[i], -1, &names), PM_EUNSUPPORTED);
    }
}

static void test_direct_columns(void **state)
{
    (void)state;
    pm_type *t = parse("ROW<a STRING, r ROW<b STRING, c STRING>>");
    const char *direct[] = {"a", "r.c"};
    pm_orc_writer_options o;
    pm_orc_writer_options_default(&o);
    o.direct_columns = direct;
    o.ndirect_columns = 2;
    size_t len;
    uint8_t *data = write_file(t, &o, 200, 200, &len, NULL);
    pm_orc_reader *r;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, NULL));
    const orc_stripe_footer *sf;
    PM_OK_OR_FAIL(pm_orc_reader_stripe_footer(r, 0, &sf));
    assert_int_equal(sf->encodings[1].kind, ORC_ENC_DIRECT_V2);     /* a */
    assert_int_equal(sf->encodings[3].kind, ORC_ENC_DICTIONARY_V2); /* r.b */
    assert_int_equal(sf->encodings[4].kind, ORC_ENC_DIRECT_V2);     /* r.c */
    pm_orc_reader_free(r);
    free(data);
    const char *nope[] = {"r.zz"};
    o.direct_columns = nope;
    o.ndirect_columns = 1;
    char *path = pm_test_path("d.orc");
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_orc_writer *w;
    PM_EXPECT_ERR(pm_orc_writer_new(&w, out, t, &o), PM_EINVALID);
    pm_output_abort(out);
    pm_fileio_free(fio);
    free(path);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_types_each_codec), cmocka_unit_test(test_stripes_versions_dictionaries),
        cmocka_unit_test(test_empty_and_tiny),       cmocka_unit_test(test_tail_and_statistics),
        cmocka_unit_test(test_user_metadata),        cmocka_unit_test(test_stripe_filter),
               cmocka_unit_test(test_read_types_and_projection),
        cmocka_unit_test(test_char_padding_and_trimming), cmocka_unit_test(test_bad_batches),
        cmocka_unit_test(test_corrupt_files),        cmocka_unit_test(test_options_from_table),
        cmocka_unit_test(test_direct_columns),
    };
    return cmocka_run_group_tests(tests, pm_test_dir_setup, pm_test_dir_teardown);
}
