/*
 * tests/unit/avro/test_avro_rw.c — Avro rows in and out of pm_batch:
 * round trips of every type through every codec (values compared as cat
 * JSON), block/batch sizing, projection by name, skipped nested writer
 * fields, missing fields, promotions, nulls in NOT NULL columns, corrupt
 * blocks, the schema → Paimon type mapping, and Java-written files.
 */
#include <string.h>

#include "pm_test.h"
#include "base/buf.h"
#include "base/cursor.h"
#include "format/avro/avro.h"
#include "format/avro/avro_binary.h"
#include "types/column.h"
#include "types/value.h"

static const char *ALL_TYPE =
    "ROW<b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT NOT NULL, i64 BIGINT, f FLOAT, d DOUBLE,"
    " dec DECIMAL(10, 2), dec38 DECIMAL(38, 5), c CHAR(3), s STRING, bin BINARY(2), vb BYTES,"
    " dt DATE, tm TIME(3), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ltz TIMESTAMP(3) WITH LOCAL TIME ZONE,"
    " ltz6 TIMESTAMP(6) WITH LOCAL TIME ZONE,"
    " arr ARRAY<INT>, arr2 ARRAY<ARRAY<STRING NOT NULL>> NOT NULL,"
    " m MAP<STRING, ARRAY<ROW<x INT, y STRING>>>, mi MAP<INT, DOUBLE>,"
    " ms MULTISET<STRING>, r ROW<p DOUBLE, q ARRAY<BYTES>, n ROW<z BIGINT NOT NULL>>>";

static const char *ALL_ROWS =
    "{\"b\":true,\"i8\":-128,\"i16\":32767,\"i32\":-2147483648,\"i64\":9223372036854775807,"
    "\"f\":1.5,\"d\":-2.25e-300,\"dec\":\"12345678.90\",\"dec38\":\"-123456789012345678901234567890123.45678\","
    "\"c\":\"abc\",\"s\":\"h\\u00e9llo \\\"q\\\"\",\"bin\":\"AAE=\",\"vb\":\"\","
    "\"dt\":\"1969-12-31\",\"tm\":\"23:59:59.999\",\"ts3\":\"1900-01-01T00:00:00.001\","
    "\"ts6\":\"2262-04-11T23:47:16.854775\",\"ltz\":\"1970-01-01T00:00:00.000Z\","
    "\"ltz6\":\"1969-12-31T23:59:59.999999Z\","
    "\"arr\":[1,null,3],\"arr2\":[[\"a\"],[],[\"b\",\"c\"]],"
    "\"m\":[{\"key\":\"k1\",\"value\":[{\"x\":1,\"y\":\"one\"},null]},{\"key\":\"k2\",\"value\":null}],"
    "\"mi\":[{\"key\":7,\"value\":0.5},{\"key\":-1,\"value\":null}],"
    "\"ms\":[{\"key\":\"a\",\"value\":2}],"
    "\"r\":{\"p\":1e100,\"q\":[\"AQI=\",null],\"n\":{\"z\":5}}}\n"
    "{\"i32\":0,\"arr2\":[]}\n"
    "{\"b\":false,\"i32\":42,\"dec\":\"-0.01\",\"s\":\"\",\"arr\":[],\"arr2\":[[]],\"m\":[],"
    "\"r\":{\"n\":{\"z\":-1}}}\n";

static pm_type *parse_type(const char *s)
{
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, s));
    return t;
}

static pm_batch *batch_from(const pm_type *t, const char *lines)
{
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, t, lines, strlen(lines)));
    return b;
}

/* All rows of a batch as JSON lines appended to out. */
static void batch_json(const pm_batch *b, pm_buf *out)
{
    for (int64_t r = 0; r < pm_batch_num_rows(b); r++) {
        PM_OK_OR_FAIL(pm_batch_format_row_json(b, r, out));
        PM_OK_OR_FAIL(pm_buf_append_byte(out, '\n'));
    }
}

/* Write batches to a memory output file; returns the bytes (caller frees). */
static uint8_t *write_file(const pm_type *t, pm_batch **batches, size_t nb,
                           const pm_avro_write_options *opt, size_t *len)
{
    char *dir = pm_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/f.avro", dir);
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *o;
    PM_OK_OR_FAIL(pm_output_create(fio, path, false, &o));
    pm_avro_writer *w;
    PM_OK_OR_FAIL(pm_avro_writer_open(o, t, opt, &w));
    for (size_t i = 0; i < nb; i++)
        PM_OK_OR_FAIL(pm_avro_writer_write(w, batches[i]));
    PM_OK_OR_FAIL(pm_avro_writer_finish(w));
    assert_int_equal(pm_avro_writer_estimated_size(w), pm_output_pos(o));
    pm_avro_writer_free(w);
    PM_OK_OR_FAIL(pm_output_close(o, false));
    uint8_t *data = pm_test_read_file(path, len);
    assert_non_null(data);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
    return data;
}

/* Read all rows as JSON lines (and the batch sizes seen). */
static pm_error *read_json(const uint8_t *data, size_t len, const pm_type *t, int64_t batch_rows,
                           pm_buf *out, int64_t *sizes, int *nsizes)
{
    pm_avro_read_options ro = {batch_rows, 0};
    pm_avro_reader *r;
    PM_TRY(pm_avro_reader_open_memory(data, len, "mem", t, &ro, &r));
    pm_error *e = NULL;
    int n = 0;
    for (;;) {
        pm_batch *b;
        e = pm_avro_reader_next(r, &b);
        if (e || !b)
            break;
        if (sizes && n < 64)
            sizes[n] = pm_batch_num_rows(b);
        n++;
        batch_json(b, out);
    }
    if (nsizes)
        *nsizes = n;
    pm_avro_reader_free(r);
    const char *ignored;
    if (!e)
        e = pm_buf_cstr(out, &ignored); /* NUL-terminate for string asserts */
    return e;
}

static void test_round_trip_all_types(void **state)
{
    (void)state;
    pm_type *t = parse_type(ALL_TYPE);
    pm_batch *b = batch_from(t, ALL_ROWS);
    pm_buf want = PM_BUF_INIT;
    batch_json(b, &want);
    const pm_codec_id codecs[] = {PM_CODEC_NONE, PM_CODEC_DEFLATE, PM_CODEC_SNAPPY, PM_CODEC_ZSTD};
    for (size_t k = 0; k < 4; k++) {
        pm_avro_write_options wo = {codecs[k], 0, 0, 0};
        size_t len;
        uint8_t *data = write_file(t, &b, 1, &wo, &len);
        pm_buf got = PM_BUF_INIT;
        PM_OK_OR_FAIL(read_json(data, len, t, 0, &got, NULL, NULL));
        if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0)
            fail_msg("codec %s:\nwant %.*s\ngot  %.*s", pm_codec_name(codecs[k]), (int)want.len,
                     (const char *)want.data, (int)got.len, (const char *)got.data);
        /* The file's own schema maps back to an equivalent type. */
        pm_buf own = PM_BUF_INIT;
        PM_OK_OR_FAIL(read_json(data, len, NULL, 0, &own, NULL, NULL));
        pm_avro_reader *r;
        PM_OK_OR_FAIL(pm_avro_reader_open_memory(data, len, "mem", NULL, NULL, &r));
        const char *cname;
        PM_OK_OR_FAIL(pm_avro_codec_name(codecs[k], &cname));
        assert_string_equal(pm_avro_file_codec(pm_avro_reader_file(r)), cname);
        char *ts = pm_type_to_string(pm_avro_reader_type(r));
        /* CHAR(3) reads back as STRING, BINARY(2) as BYTES, MULTISET as a map of counts. */
        assert_non_null(strstr(ts, "i8 INT"));
        assert_non_null(strstr(ts, "ts6 TIMESTAMP(6)"));
        if (!strstr(ts, "mi MAP<INT, DOUBLE>, ms MAP<STRING NOT NULL, INT>"))
            fail_msg("type %s", ts);
        free(ts);
        pm_avro_reader_free(r);
        pm_buf_free(&own);
        pm_buf_free(&got);
        free(data);
    }
    pm_buf_free(&want);
    pm_batch_free(b);
    pm_type_free(t);
}

static void test_blocks_and_batches(void **state)
{
    (void)state;
    pm_type *t = parse_type("ROW<id BIGINT NOT NULL, s STRING>");
    pm_buf lines = PM_BUF_INIT;
    for (int i = 0; i < 23; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&lines, "{\"id\":%d,\"s\":\"row %d\"}\n", i, i));
    pm_batch *b = batch_from(t, (const char *)lines.data);
    pm_buf want = PM_BUF_INIT;
    batch_json(b, &want);
    /* 5 rows per block, 7 rows per batch: batches cross block boundaries. */
    pm_avro_write_options wo = {PM_CODEC_ZSTD, 3, 5, 0};
    pm_batch *two[] = {b, b};
    size_t len;
    uint8_t *data = write_file(t, two, 2, &wo, &len);
    pm_avro_file *f;
    PM_OK_OR_FAIL(pm_avro_file_open_memory(data, len, "mem", NULL, &f));
    int blocks = 0;
    for (;;) {
        const uint8_t *d;
        size_t n;
        int64_t cnt;
        PM_OK_OR_FAIL(pm_avro_file_next_block(f, &d, &n, &cnt));
        if (!cnt)
            break;
        assert_true(cnt == 5 || (blocks == 9 && cnt == 1));
        blocks++;
    }
    assert_int_equal(blocks, 10); /* 46 rows */
    pm_avro_file_close(f);
    pm_buf got = PM_BUF_INIT;
    int64_t sizes[64];
    int ns;
    PM_OK_OR_FAIL(read_json(data, len, t, 7, &got, sizes, &ns));
    assert_int_equal(ns, 7);
    for (int i = 0; i < 6; i++)
        assert_int_equal(sizes[i], 7);
    assert_int_equal(sizes[6], 4);
    assert_int_equal(got.len, 2 * want.len);
    assert_memory_equal(got.data, want.data, want.len);
    assert_memory_equal(got.data + want.len, want.data, want.len);
    free(data);

    /* Byte-sized blocks: a small block_bytes gives many blocks. */
    pm_avro_write_options small = {PM_CODEC_NONE, 0, 0, 40};
    data = write_file(t, &b, 1, &small, &len);
    PM_OK_OR_FAIL(pm_avro_file_open_memory(data, len, "mem", NULL, &f));
    blocks = 0;
    for (;;) {
        const uint8_t *d;
        size_t n;
        int64_t cnt;
        PM_OK_OR_FAIL(pm_avro_file_next_block(f, &d, &n, &cnt));
        if (!cnt)
            break;
        if (n < 40 && blocks != 4) /* only the last block may be short */
            fail_msg("block %d: %zu bytes, %lld rows", blocks, n, (long long)cnt);
        blocks++;
    }
    assert_int_equal(blocks, 5); /* rows of 8-9 bytes: 5 per block */
    pm_avro_file_close(f);
    free(data);
    pm_buf_free(&got);
    pm_buf_free(&want);
    pm_buf_free(&lines);
    pm_batch_free(b);
    pm_type_free(t);
}

static void test_projection_skip_missing(void **state)
{
    (void)state;
    pm_type *wt = parse_type(
        "ROW<a INT, b ROW<x ARRAY<MAP<STRING, ROW<p INT, q STRING>>>, y INT, w MAP<INT, ARRAY<DOUBLE>>>,"
        " c STRING, d ARRAY<ROW<u BIGINT, v STRING>>>");
    const char *rows =
        "{\"a\":1,\"b\":{\"x\":[[{\"key\":\"k\",\"value\":{\"p\":1,\"q\":\"z\"}}],[]],\"y\":10,"
        "\"w\":[{\"key\":3,\"value\":[1.0,null]}]},\"c\":\"one\",\"d\":[{\"u\":5,\"v\":\"five\"}]}\n"
        "{\"a\":2,\"b\":null,\"c\":\"two\",\"d\":[{\"u\":6,\"v\":null},null]}\n"
        "{\"a\":3,\"b\":{\"x\":null,\"y\":null,\"w\":[]},\"c\":null,\"d\":null}\n";
    pm_batch *b = batch_from(wt, rows);
    size_t len;
    uint8_t *data = write_file(wt, &b, 1, NULL, &len);

    /* Different order, nested subset, a missing nullable field. */
    pm_type *rt = parse_type("ROW<c STRING, b ROW<y BIGINT, extra STRING>, z INT, d ARRAY<ROW<v STRING>>>");
    pm_buf got = PM_BUF_INIT;
    PM_OK_OR_FAIL(read_json(data, len, rt, 0, &got, NULL, NULL));
    const char *want =
        "{\"c\":\"one\",\"b\":{\"y\":10,\"extra\":null},\"z\":null,\"d\":[{\"v\":\"five\"}]}\n"
        "{\"c\":\"two\",\"b\":null,\"z\":null,\"d\":[{\"v\":null},null]}\n"
        "{\"c\":null,\"b\":{\"y\":null,\"extra\":null},\"z\":null,\"d\":null}\n";
    if (got.len != strlen(want) || memcmp(got.data, want, got.len) != 0)
        fail_msg("want %s\ngot  %.*s", want, (int)got.len, (const char *)got.data);
    pm_type_free(rt);

    /* A NOT NULL field missing from the file is an error at open. */
    rt = parse_type("ROW<c STRING, nope INT NOT NULL>");
    pm_avro_reader *r;
    PM_EXPECT_ERR(pm_avro_reader_open_memory(data, len, "mem", rt, NULL, &r), PM_EINVALID);
    pm_type_free(rt);
    /* Incompatible types are refused at open. */
    rt = parse_type("ROW<c INT>");
    PM_EXPECT_ERR(pm_avro_reader_open_memory(data, len, "mem", rt, NULL, &r), PM_EINVALID);
    pm_type_free(rt);
    rt = parse_type("ROW<a STRING>");
    PM_EXPECT_ERR(pm_avro_reader_open_memory(data, len, "mem", rt, NULL, &r), PM_EINVALID);
    pm_type_free(rt);
    /* A nullable writer column read as NOT NULL fails only on an actual null. */
    rt = parse_type("ROW<a INT NOT NULL, c STRING NOT NULL>");
    pm_buf_clear(&got);
    pm_error *e = read_json(data, len, rt, 0, &got, NULL, NULL);
    assert_non_null(e);
    assert_int_equal(pm_error_root_code(e), PM_ECORRUPT);
    pm_error_free(e);
    pm_type_free(rt);
    rt = parse_type("ROW<a INT NOT NULL>");
    pm_buf_clear(&got);
    PM_OK_OR_FAIL(read_json(data, len, rt, 0, &got, NULL, NULL));
    assert_string_equal((const char *)got.data, "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");
    pm_type_free(rt);

    pm_buf_free(&got);
    free(data);
    pm_batch_free(b);
    pm_type_free(wt);
}

static void test_promotions(void **state)
{
    (void)state;
    pm_type *wt = parse_type(
        "ROW<i INT, l BIGINT, f FLOAT, s STRING, ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), t TIME(0)>");
    const char *rows =
        "{\"i\":-7,\"l\":9007199254740993,\"f\":0.1,\"s\":\"txt\",\"ts3\":\"1969-12-31T23:59:59.999\","
        "\"ts6\":\"1969-12-31T23:59:59.999999\",\"t\":\"12:00:01\"}\n";
    pm_batch *b = batch_from(wt, rows);
    size_t len;
    uint8_t *data = write_file(wt, &b, 1, NULL, &len);
    pm_type *rt = parse_type(
        "ROW<i DOUBLE, l DOUBLE, f DOUBLE, s BYTES, ts3 TIMESTAMP(6), ts6 TIMESTAMP(3), t TIME(3)>");
    pm_buf got = PM_BUF_INIT;
    PM_OK_OR_FAIL(read_json(data, len, rt, 0, &got, NULL, NULL));
    const char *want =
        "{\"i\":-7.0,\"l\":9007199254740992.0,\"f\":0.10000000149011612,\"s\":\"dHh0\","
        "\"ts3\":\"1969-12-31T23:59:59.999000\",\"ts6\":\"1969-12-31T23:59:59.999\","
        "\"t\":\"12:00:01.000\"}\n";
    if (got.len != strlen(want) || memcmp(got.data, want, got.len) != 0)
        fail_msg("want %s\ngot  %.*s", want, (int)got.len, (const char *)got.data);
    pm_type_free(rt);
    rt = parse_type("ROW<i BIGINT, f FLOAT, i2 SMALLINT>");
    pm_buf_clear(&got);
    PM_OK_OR_FAIL(read_json(data, len, rt, 0, &got, NULL, NULL));
    assert_string_equal((const char *)got.data, "{\"i\":-7,\"f\":0.1,\"i2\":null}\n");
    pm_type_free(rt);
    /* No demotion: long → INT, double ← float only. */
    rt = parse_type("ROW<l INT>");
    pm_avro_reader *r;
    PM_EXPECT_ERR(pm_avro_reader_open_memory(data, len, "mem", rt, NULL, &r), PM_EINVALID);
    pm_type_free(rt);
    pm_buf_free(&got);
    free(data);
    pm_batch_free(b);
    pm_type_free(wt);
}

/* Hand-written files: unions in any position, enums, fixed, maps of records. */
static void test_generic_writer_schema(void **state)
{
    (void)state;
    const char *schema =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
        "{\"name\":\"u\",\"type\":[\"long\",\"null\"]},"
        "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"RED\",\"GREEN\"]}},"
        "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":3}},"
        "{\"name\":\"dfx\",\"type\":{\"type\":\"fixed\",\"name\":\"DF\",\"size\":4,"
        "  \"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}},"
        "{\"name\":\"tmu\",\"type\":{\"type\":\"long\",\"logicalType\":\"time-micros\"}},"
        "{\"name\":\"tsn\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}},"
        "{\"name\":\"skipme\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":\"E\"}}}"
        "]}";
    pm_buf objs = PM_BUF_INIT;
    for (int row = 0; row < 2; row++) {
        if (row == 0) {
            PM_OK_OR_FAIL(pm_avro_put_long(&objs, 0)); /* branch long */
            PM_OK_OR_FAIL(pm_avro_put_long(&objs, -5));
        } else {
            PM_OK_OR_FAIL(pm_avro_put_long(&objs, 1)); /* branch null */
        }
        PM_OK_OR_FAIL(pm_avro_put_long(&objs, row));                      /* enum */
        PM_OK_OR_FAIL(pm_buf_append(&objs, row ? "xyz" : "\x00\x01\xff", 3)); /* fixed */
        PM_OK_OR_FAIL(pm_buf_append(&objs, row ? "\xff\xff\xff\x85" : "\x00\x00\x30\x39", 4));
        PM_OK_OR_FAIL(pm_avro_put_long(&objs, 3723004005LL));           /* 01:02:03.004005 */
        PM_OK_OR_FAIL(pm_avro_put_long(&objs, -1));                     /* 1 ns before epoch */
        PM_OK_OR_FAIL(pm_avro_put_long(&objs, -1));                     /* map block, sized */
        pm_buf blk = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_avro_put_bytes(&blk, "k", 1));
        PM_OK_OR_FAIL(pm_avro_put_long(&blk, 2));
        PM_OK_OR_FAIL(pm_avro_put_long(&blk, 1));
        PM_OK_OR_FAIL(pm_avro_put_long(&blk, 0));
        PM_OK_OR_FAIL(pm_avro_put_long(&blk, 0));
        PM_OK_OR_FAIL(pm_avro_put_long(&objs, (int64_t)blk.len));
        PM_OK_OR_FAIL(pm_buf_append(&objs, blk.data, blk.len));
        PM_OK_OR_FAIL(pm_avro_put_long(&objs, 0));
        pm_buf_free(&blk);
    }
    static const uint8_t sync[16] = "0123456789abcdef";
    pm_buf file = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_avro_write_header(&file, schema, strlen(schema), "deflate", sync));
    PM_OK_OR_FAIL(pm_avro_write_block(&file, NULL, PM_CODEC_DEFLATE, 0, 2, objs.data, objs.len, sync));

    pm_buf got = PM_BUF_INIT;
    PM_OK_OR_FAIL(read_json(file.data, file.len, NULL, 0, &got, NULL, NULL));
    const char *want =
        "{\"u\":-5,\"e\":\"RED\",\"fx\":\"AAH/\",\"dfx\":\"123.45\",\"tmu\":\"01:02:03.004000\","
        "\"tsn\":\"1969-12-31T23:59:59.999999999\",\"skipme\":[{\"key\":\"k\",\"value\":[\"GREEN\",\"RED\"]}]}\n"
        "{\"u\":null,\"e\":\"GREEN\",\"fx\":\"eHl6\",\"dfx\":\"-1.23\",\"tmu\":\"01:02:03.004000\","
        "\"tsn\":\"1969-12-31T23:59:59.999999999\",\"skipme\":[{\"key\":\"k\",\"value\":[\"GREEN\",\"RED\"]}]}\n";
    if (got.len != strlen(want) || memcmp(got.data, want, got.len) != 0)
        fail_msg("want %s\ngot  %.*s", want, (int)got.len, (const char *)got.data);
    /* Projection skipping the map of enum arrays and reading the union as NOT NULL. */
    pm_type *rt = parse_type("ROW<tsn TIMESTAMP(6), dfx DECIMAL(9, 2), fx BYTES>");
    pm_buf_clear(&got);
    PM_OK_OR_FAIL(read_json(file.data, file.len, rt, 0, &got, NULL, NULL));
    assert_string_equal((const char *)got.data,
                        "{\"tsn\":\"1969-12-31T23:59:59.999999\",\"dfx\":\"123.45\",\"fx\":\"AAH/\"}\n"
                        "{\"tsn\":\"1969-12-31T23:59:59.999999\",\"dfx\":\"-1.23\",\"fx\":\"eHl6\"}\n");
    pm_type_free(rt);
    rt = parse_type("ROW<dfx DECIMAL(9, 3)>"); /* scale differs */
    pm_avro_reader *r;
    PM_EXPECT_ERR(pm_avro_reader_open_memory(file.data, file.len, "m", rt, NULL, &r), PM_EUNSUPPORTED);
    pm_type_free(rt);
    rt = parse_type("ROW<u BIGINT NOT NULL>");
    pm_buf_clear(&got);
    PM_EXPECT_ERR(read_json(file.data, file.len, rt, 0, &got, NULL, NULL), PM_ECORRUPT);
    pm_type_free(rt);

    /* Corrupt block contents: one byte short, and one byte too many. */
    for (int extra = -1; extra <= 1; extra += 2) {
        pm_buf bad = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_avro_write_header(&bad, schema, strlen(schema), "null", sync));
        if (extra < 0) {
            PM_OK_OR_FAIL(pm_avro_write_block(&bad, NULL, PM_CODEC_NONE, 0, 2, objs.data, objs.len - 1, sync));
        } else {
            PM_OK_OR_FAIL(pm_buf_append_byte(&objs, 0));
            PM_OK_OR_FAIL(pm_avro_write_block(&bad, NULL, PM_CODEC_NONE, 0, 2, objs.data, objs.len, sync));
            objs.len--;
        }
        pm_buf_clear(&got);
        PM_EXPECT_ERR(read_json(bad.data, bad.len, NULL, 0, &got, NULL, NULL), PM_ECORRUPT);
        pm_buf_free(&bad);
    }
    pm_buf_free(&got);
    pm_buf_free(&file);
    pm_buf_free(&objs);
}

static void test_empty_items_bound(void **state)
{
    (void)state;
    const char *schema = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\","
                         "\"type\":{\"type\":\"array\",\"items\":\"null\"}}]}";
    static const uint8_t sync[16] = "0123456789abcdef";
    pm_type *rt = parse_type("ROW<a ARRAY<INT>>");
    for (int big = 0; big < 2; big++) {
        pm_buf objs = PM_BUF_INIT, file = PM_BUF_INIT, got = PM_BUF_INIT;
        for (int i = 0; i < (big ? 3 : 1); i++)
            PM_OK_OR_FAIL(pm_avro_put_long(&objs, big ? PM_AVRO_MAX_EMPTY_ITEMS / 2 + 1 : 3));
        PM_OK_OR_FAIL(pm_avro_put_long(&objs, 0));
        PM_OK_OR_FAIL(pm_avro_write_header(&file, schema, strlen(schema), "null", sync));
        PM_OK_OR_FAIL(pm_avro_write_block(&file, NULL, PM_CODEC_NONE, 0, 1, objs.data, objs.len, sync));
        pm_error *e = read_json(file.data, file.len, rt, 0, &got, NULL, NULL);
        if (big) {
            assert_non_null(e);
            assert_int_equal(pm_error_root_code(e), PM_ECORRUPT);
            pm_error_free(e);
        } else {
            PM_OK_OR_FAIL(e);
            assert_string_equal((const char *)got.data, "{\"a\":[null,null,null]}\n");
        }
        pm_buf_free(&objs);
        pm_buf_free(&file);
        pm_buf_free(&got);
    }
    pm_type_free(rt);
}

static void test_schema_to_type(void **state)
{
    (void)state;
    const char *js =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
        "{\"name\":\"a\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}]},"
        "{\"name\":\"b\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":40,\"scale\":2}},"
        "{\"name\":\"c\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"KV\","
        "  \"fields\":[{\"name\":\"key\",\"type\":\"long\"},{\"name\":\"value\",\"type\":[\"null\",\"string\"]}]},"
        "  \"logicalType\":\"map\"}},"
        "{\"name\":\"d\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":8}}]}";
    pm_avro_schema *s;
    PM_OK_OR_FAIL(pm_avro_schema_parse(js, strlen(js), &s));
    pm_type *t;
    PM_OK_OR_FAIL(pm_avro_schema_to_type(s->root, &t));
    char *str = pm_type_to_string(t);
    assert_string_equal(str, "ROW<a DATE, b BYTES NOT NULL, c MAP<BIGINT NOT NULL, STRING> NOT NULL, "
                             "d BINARY(8) NOT NULL> NOT NULL");
    free(str);
    pm_type_free(t);
    pm_avro_schema_free(s);
    const char *bad[] = {
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":[\"int\",\"string\"]}]}",
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"n\",\"type\":[\"null\",\"R\"]}]}",
    };
    for (size_t i = 0; i < 2; i++) {
        PM_OK_OR_FAIL(pm_avro_schema_parse(bad[i], strlen(bad[i]), &s));
        PM_EXPECT_ERR(pm_avro_schema_to_type(s->root, &t), PM_EUNSUPPORTED);
        pm_avro_schema_free(s);
    }
}

/* Java-written files decode to the values fastavro reports. */
static void test_java_files(void **state)
{
    (void)state;
    size_t len;
    uint8_t *data = pm_test_read_file(PM_FIXTURES_DIR "/java-written/avro-format/data/avro_all_types", &len);
    assert_non_null(data);
    pm_type *rt = parse_type(
        "ROW<f0 BOOLEAN, f1 TINYINT, f2 SMALLINT, f3 INT, f4 BIGINT, f5 FLOAT, f6 DOUBLE, f7 STRING,"
        " f8 BYTES, f10 ARRAY<FLOAT>, f11 ROW<f0 BOOLEAN, f1 BIGINT>, f12 TIMESTAMP(6), f13 DATE,"
        " f14 DECIMAL(2, 2), f15 DECIMAL(10, 10), f16 DECIMAL(19, 19)>");
    pm_buf got = PM_BUF_INIT;
    PM_OK_OR_FAIL(read_json(data, len, rt, 0, &got, NULL, NULL));
    const char *want =
        "{\"f0\":true,\"f1\":127,\"f2\":32767,\"f3\":2147483647,\"f4\":9999999999999,\"f5\":1234.56,"
        "\"f6\":1234567890.0987654,\"f7\":\"aa\",\"f8\":\"cXE=\",\"f10\":[0.1,0.2],"
        "\"f11\":{\"f0\":true,\"f1\":null},\"f12\":\"1970-01-01T00:02:03.123123\",\"f13\":\"1976-09-22\","
        "\"f14\":\"0.22\",\"f15\":\"0.1234567890\",\"f16\":\"0.1234567890987654321\"}\n"
        "{\"f0\":false,\"f1\":-128,\"f2\":-32768,\"f3\":-2147483648,\"f4\":-9999999999999,\"f5\":-1234.56,"
        "\"f6\":-1234567890.0987654,\"f7\":null,\"f8\":\"d3c=\",\"f10\":[-0.1,-0.2,null,0.3,0.4],"
        "\"f11\":{\"f0\":null,\"f1\":2},\"f12\":\"1970-01-01T00:16:39.999999\",\"f13\":null,"
        "\"f14\":\"-0.22\",\"f15\":\"-0.1234567890\",\"f16\":null}\n"
        "{\"f0\":null,\"f1\":null,\"f2\":null,\"f3\":null,\"f4\":null,\"f5\":null,\"f6\":null,\"f7\":null,"
        "\"f8\":null,\"f10\":null,\"f11\":null,\"f12\":null,\"f13\":null,\"f14\":null,\"f15\":null,\"f16\":null}\n";
    if (got.len != strlen(want) || memcmp(got.data, want, got.len) != 0)
        fail_msg("want %s\ngot  %.*s", want, (int)got.len, (const char *)got.data);
    pm_type_free(rt);
    free(data);

    /* A manifest list: requested subset, missing newer fields read as null. */
    data = pm_test_read_file(PM_FIXTURES_DIR "/java-written/avro-format/manifest/avro_manifest_list_11", &len);
    rt = parse_type("ROW<_VERSION INT NOT NULL, _FILE_NAME STRING NOT NULL, _NUM_ADDED_FILES BIGINT NOT NULL,"
                    " _MIN_ROW_ID BIGINT, _PARTITION_STATS ROW<_NULL_COUNTS ARRAY<BIGINT>>>");
    pm_buf_clear(&got);
    PM_OK_OR_FAIL(read_json(data, len, rt, 0, &got, NULL, NULL));
    assert_true(strncmp((const char *)got.data, "{\"_VERSION\":2,\"_FILE_NAME\":\"manifest-", 37) == 0);
    assert_non_null(strstr((const char *)got.data, "\"_MIN_ROW_ID\":null"));
    pm_type_free(rt);
    free(data);

    /* Paimon 0.9 wrote the top row as ["null", record]. */
    data = pm_test_read_file(PM_FIXTURES_DIR "/java-written/avro-format/manifest/avro_manifest_09", &len);
    rt = parse_type("ROW<_VERSION INT, _KIND TINYINT, _FILE ROW<_FILE_NAME STRING, _ROW_COUNT BIGINT>>");
    pm_buf_clear(&got);
    PM_OK_OR_FAIL(read_json(data, len, rt, 0, &got, NULL, NULL));
    assert_string_equal((const char *)got.data,
                        "{\"_VERSION\":2,\"_KIND\":0,\"_FILE\":{\"_FILE_NAME\":"
                        "\"data-dd28db13-0f8f-43a5-a0df-684e7dc93c55-0.avro\",\"_ROW_COUNT\":3}}\n");
    pm_type_free(rt);
    free(data);
    pm_buf_free(&got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_all_types),
        cmocka_unit_test(test_blocks_and_batches),
        cmocka_unit_test(test_projection_skip_missing),
        cmocka_unit_test(test_promotions),
        cmocka_unit_test(test_generic_writer_schema),
        cmocka_unit_test(test_empty_items_bound),
        cmocka_unit_test(test_schema_to_type),
        cmocka_unit_test(test_java_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
