/*
 * tests/unit/types/test_binary_row.c — BinaryRow bytes (the worked examples
 * of metadata-format §7.3), Java hash vectors (data-format §0.4), MurmurHash
 * hashBytes, bucket functions, the decoder (round trips, corrupt input).
 */
#include <math.h>
#include <string.h>

#include "pm_test.h"
#include "base/cursor.h"
#include "base/hash.h"
#include "types/binary_row.h"
#include "types/bucket.h"
#include "types/value.h"

/* Hex of serialized bytes (lowercase, no spaces). */
static char *hex(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++)
        sprintf(s + 2 * i, "%02x", p[i]);
    s[2 * n] = 0;
    return s;
}

static void assert_serialized(const pm_binrow_writer *w, const char *want_hex)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_binrow_serialize(w, &b));
    char *h = hex(b.data, b.len);
    if (strcmp(h, want_hex) != 0) {
        print_error("got  %s\nwant %s\n", h, want_hex);
        fail();
    }
    free(h);
    pm_buf_free(&b);
}

/* A one-row batch from JSON; caller frees. */
static pm_batch *batch1(const char *type, const char *json)
{
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, type, json, strlen(json)));
    return b;
}

static void test_worked_examples(void **state)
{
    (void)state;
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    /* () */
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 0));
    assert_serialized(&w, "00000000" "0000000000000000");
    /* ('20240514') STRING */
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, "20240514", 8));
    assert_serialized(&w, "00000001" "0000000000000000" "0800000010000000" "3230323430353134");
    /* (5, 'abc', null) INT, STRING, BIGINT */
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 3));
    pm_binrow_set_i32(&w, 0, 5);
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 1, "abc", 3));
    PM_OK_OR_FAIL(pm_binrow_set_null(&w, 2, NULL));
    assert_serialized(&w, "00000003" "0004000000000000" "0500000000000000" "6162630000000083" "0000000000000000");
    /* (12.34) DECIMAL(10, 2) */
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_decimal(&w, 0, 10, 1234));
    assert_serialized(&w, "00000001" "0000000000000000" "d204000000000000");
    /* (12.34) DECIMAL(20, 2) */
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_decimal(&w, 0, 20, 1234));
    assert_serialized(&w, "00000001" "0000000000000000" "0200000010000000" "04d2" "0000000000000000000000000000");
    /* (2024-05-14 01:02:03.004005) TIMESTAMP(6) */
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_timestamp(&w, 0, 6, 1715648523004LL, 5000));
    assert_serialized(&w, "00000001" "0000000000000000" "8813000010000000" "fcea9e748f010000");
    /* (true, -1, 300, 1.5, 2.5) BOOLEAN, TINYINT, SMALLINT, FLOAT, DOUBLE */
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 5));
    pm_binrow_set_bool(&w, 0, true);
    pm_binrow_set_i8(&w, 1, -1);
    pm_binrow_set_i16(&w, 2, 300);
    pm_binrow_set_f32(&w, 3, 1.5f);
    pm_binrow_set_f64(&w, 4, 2.5);
    assert_serialized(&w, "00000005" "0000000000000000" "0100000000000000" "ff00000000000000" "2c01000000000000"
                          "0000c03f00000000" "0000000000000440");

    /* the same rows built from batch columns */
    pm_batch *b = batch1("ROW<a INT, s STRING, c BIGINT>", "{\"a\":5,\"s\":\"abc\",\"c\":null}");
    PM_OK_OR_FAIL(pm_binrow_from_batch_row(&w, b, 0, NULL, 3));
    assert_serialized(&w, "00000003" "0004000000000000" "0500000000000000" "6162630000000083" "0000000000000000");
    size_t pick[] = {1};
    PM_OK_OR_FAIL(pm_binrow_from_batch_row(&w, b, 0, pick, 1));
    assert_serialized(&w, "00000001" "0000000000000000" "6162630000000083");
    pm_batch_free(b);
    b = batch1("ROW<d DECIMAL(20, 2), t TIMESTAMP(6)>", "{\"d\":\"12.34\",\"t\":\"2024-05-14T01:02:03.004005\"}");
    PM_OK_OR_FAIL(pm_binrow_from_batch_row(&w, b, 0, NULL, 2));
    assert_serialized(&w, "00000002" "0000000000000000" "0200000018000000" "8813000028000000"
                          "04d2" "0000000000000000000000000000" "fcea9e748f010000");
    pm_batch_free(b);
    pm_binrow_writer_free(&w);
}

static void test_null_noncompact_reserves(void **state)
{
    (void)state;
    /* Java: null DECIMAL(20,2) and TIMESTAMP(6) keep 16 / 8 zero var bytes and slot = offset << 32 */
    pm_batch *b = batch1("ROW<d DECIMAL(20, 2), t TIMESTAMP(6), s STRING, e DECIMAL(5, 1)>",
                         "{\"d\":null,\"t\":null,\"s\":null,\"e\":null}");
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_from_batch_row(&w, b, 0, NULL, 4));
    assert_serialized(&w, "00000004" "000f000000000000" "0000000028000000" "0000000038000000" "0000000000000000"
                          "0000000000000000" "00000000000000000000000000000000" "0000000000000000");
    pm_binrow r;
    size_t n;
    const uint8_t *d = pm_binrow_data(&w, &n);
    PM_OK_OR_FAIL(pm_binrow_view(&r, d, n, 4));
    for (int i = 0; i < 4; i++)
        assert_true(pm_binrow_is_null(&r, i));
    pm_binrow_writer_free(&w);
    pm_batch_free(b);
}

static void test_hash_vectors(void **state)
{
    (void)state;
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, "hello", 5));
    assert_int_equal(pm_binrow_hash(&w), 243722546);
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, "hello-java", 10));
    assert_int_equal(pm_binrow_hash(&w), -201703277);
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 2));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, "hello-java", 10));
    pm_binrow_set_i64(&w, 1, 42);
    assert_int_equal(pm_binrow_hash(&w), -2066620165);
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_decimal(&w, 0, 10, 1234567));
    assert_int_equal(pm_binrow_hash(&w), 754928256);
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, "\x00\x01\xff\x7f", 4));
    assert_int_equal(pm_binrow_hash(&w), 586821318);
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", 10));
    assert_int_equal(pm_binrow_hash(&w), 1822312655);
    const int32_t ints[] = {1465514398, 1340390384, -771300025};
    for (int v = 1; v <= 3; v++) {
        PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
        pm_binrow_set_i32(&w, 0, v);
        assert_int_equal(pm_binrow_hash(&w), ints[v - 1]);
    }
    pm_binrow_writer_free(&w);

    /* hashBytes with tails (oracle: pypaimon's murmur_hash_bytes) */
    assert_int_equal(pm_hash_bytes("", 0), 142593372);
    assert_int_equal(pm_hash_bytes("a", 1), 1485273170);
    assert_int_equal(pm_hash_bytes("hello", 5), -1008564952);
    assert_int_equal(pm_hash_bytes("abcde", 5), 814637928);
    assert_int_equal(pm_hash_bytes("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", 10), 1024558071);
    assert_int_equal(pm_hash_bytes("\x80\xff\x7f", 3), 1911184379);
    assert_int_equal(pm_hash_bytes("hello-java!", 11), -805349379);
    /* by-words ignores a tail */
    assert_int_equal(pm_hash_bytes_by_words("abcd", 4), pm_hash_bytes("abcd", 4));
}

static void test_buckets(void **state)
{
    (void)state;
    assert_int_equal(pm_bucket_default(243722546, 10), 6);
    assert_int_equal(pm_bucket_default(-201703277, 10), 7);
    assert_int_equal(pm_bucket_default(INT32_MIN, 7), 2); /* -2147483648 % 7 = -2 */
    assert_int_equal(pm_bucket_mod(17, 5), 2);
    assert_int_equal(pm_bucket_mod(-3, 5), 2);
    assert_int_equal(pm_bucket_mod(5, 5), 0);
    assert_int_equal(pm_bucket_mod(INT64_MIN, 3), 1); /* floorMod(-2^63, 3) = 1 */
    pm_bucket_fn fn;
    PM_OK_OR_FAIL(pm_bucket_fn_parse("HIVE", &fn));
    assert_int_equal(fn, PM_BUCKET_FN_HIVE);
    PM_EXPECT_ERR(pm_bucket_fn_parse("murmur", &fn), PM_EINVALID);

    /* BigDecimal.hashCode after normalization: 31*unscaled + scale */
    assert_int_equal(pm_hive_hash_decimal(150, 2), 31 * 15 + 1);   /* 1.50 -> 1.5 */
    assert_int_equal(pm_hive_hash_decimal(-15, 1), -31 * 15 + 1);
    assert_int_equal(pm_hive_hash_decimal(100, 0), 3100);           /* scale stays >= 0 */
    assert_int_equal(pm_hive_hash_decimal(0, 5), 0);
    assert_int_equal(pm_hive_hash_decimal((__int128)1 << 32, 0), 961); /* mag [1, 0] */
    assert_int_equal(pm_hive_hash_bytes((const uint8_t *)"ab", 2), 97 * 31 + 98);
    assert_int_equal(pm_hive_hash_bytes((const uint8_t *)"\xff", 1), -1);

    pm_batch *b = batch1("ROW<s STRING, i INT, l BIGINT, d DOUBLE, t TIMESTAMP(3)>",
                         "{\"s\":\"hello\",\"i\":-3,\"l\":-1,\"d\":-0.0,\"t\":\"2024-01-01T00:00:00\"}");
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    int32_t bucket;
    size_t s_only[] = {0}, i_only[] = {1}, mixed[] = {0, 1, 2, 3}, ts[] = {4};
    PM_OK_OR_FAIL(pm_bucket_of_row(PM_BUCKET_FN_DEFAULT, 10, &w, b->columns, s_only, 1, 0, &bucket));
    assert_int_equal(bucket, 6);
    PM_OK_OR_FAIL(pm_bucket_of_row(PM_BUCKET_FN_MOD, 5, &w, b->columns, i_only, 1, 0, &bucket));
    assert_int_equal(bucket, 2);
    PM_EXPECT_ERR(pm_bucket_of_row(PM_BUCKET_FN_MOD, 5, &w, b->columns, s_only, 1, 0, &bucket), PM_EINVALID);
    PM_OK_OR_FAIL(pm_bucket_of_row(PM_BUCKET_FN_HIVE, 7, &w, b->columns, mixed, 4, 0, &bucket));
    /* h = hash("hello"); h = 31h + (-3); h = 31h + Long.hashCode(-1)=0; h = 31h + 0 */
    uint32_t h = (uint32_t)pm_hive_hash_bytes((const uint8_t *)"hello", 5);
    h = 31u * h + (uint32_t)-3;
    h = 31u * h + 0;
    h = 31u * h + 0;
    assert_int_equal(bucket, (int32_t)((h & 0x7fffffffu) % 7));
    PM_EXPECT_ERR(pm_bucket_of_row(PM_BUCKET_FN_HIVE, 7, &w, b->columns, ts, 1, 0, &bucket), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(pm_bucket_of_row(PM_BUCKET_FN_DEFAULT, 0, &w, b->columns, s_only, 1, 0, &bucket), PM_EINVALID);
    pm_binrow_writer_free(&w);
    pm_batch_free(b);
}

static const char *RT_TYPE =
    "ROW<b BOOLEAN, i8 TINYINT, i16 SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, d1 DECIMAL(18, 3),"
    " d2 DECIMAL(38, 4), c CHAR(3), s STRING, bin BINARY(9), by BYTES, dt DATE, tm TIME(3),"
    " t0 TIMESTAMP(0), t3 TIMESTAMP(3), t6 TIMESTAMP(6), t9 TIMESTAMP(9), lz TIMESTAMP(7) WITH LOCAL TIME ZONE>";

static void test_roundtrip(void **state)
{
    (void)state;
    const char *rows =
        "{\"b\":true,\"i8\":-128,\"i16\":-32768,\"i\":-2147483648,\"l\":-9223372036854775808,\"f\":\"NaN\","
        "\"d\":-0.0,\"d1\":\"-999999999999999.999\",\"d2\":\"-9999999999999999999999999999999999.9999\","
        "\"c\":\"abc\",\"s\":\"seven77\",\"bin\":\"AAECAwQFBgcI\",\"by\":\"\",\"dt\":\"-0001-01-01\","
        "\"tm\":\"23:59:59.999\",\"t0\":\"1969-12-31T23:59:59\",\"t3\":\"1900-01-01T00:00:00.001\","
        "\"t6\":\"1969-12-31T23:59:59.999999\",\"t9\":\"1677-09-21T00:12:43.145224192\","
        "\"lz\":\"2262-04-11T23:47:16.8547758Z\"}\n"
        "{\"b\":null,\"i8\":null,\"i16\":null,\"i\":null,\"l\":null,\"f\":null,\"d\":null,\"d1\":null,\"d2\":null,"
        "\"c\":null,\"s\":null,\"bin\":null,\"by\":null,\"dt\":null,\"tm\":null,\"t0\":null,\"t3\":null,\"t6\":null,"
        "\"t9\":null,\"lz\":null}\n"
        "{\"b\":false,\"i8\":127,\"i16\":32767,\"i\":2147483647,\"l\":9223372036854775807,\"f\":\"-Infinity\","
        "\"d\":1e-300,\"d1\":\"0.000\",\"d2\":\"0.0001\",\"c\":\"\",\"s\":\"eight888\",\"bin\":\"AA==\","
        "\"by\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"dt\":\"9999-12-31\",\"tm\":\"00:00:00.000\","
        "\"t0\":\"2024-05-14T01:02:03\",\"t3\":\"2024-05-14T01:02:03.004\",\"t6\":\"2024-05-14T01:02:03.004005\","
        "\"t9\":\"2262-04-11T23:47:16.854775807\",\"lz\":\"1970-01-01T00:00:00.0000001Z\"}\n";
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, RT_TYPE, rows, strlen(rows)));
    pm_batch *back;
    PM_OK_OR_FAIL(pm_batch_new(&back, pm_batch_type(b)));
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    pm_buf ser = PM_BUF_INIT;
    for (int64_t row = 0; row < pm_batch_num_rows(b); row++) {
        PM_OK_OR_FAIL(pm_binrow_from_batch_row(&w, b, row, NULL, b->ncolumns));
        size_t n;
        pm_binrow_data(&w, &n);
        assert_int_equal(n % 8, 0);
        pm_buf_clear(&ser);
        PM_OK_OR_FAIL(pm_binrow_serialize(&w, &ser));
        pm_binrow r;
        PM_OK_OR_FAIL(pm_binrow_deserialize(&r, ser.data, ser.len, (int32_t)b->ncolumns));
        assert_int_equal(pm_binrow_kind(&r), PM_ROWKIND_INSERT);
        for (size_t i = 0; i < b->ncolumns; i++)
            PM_OK_OR_FAIL(pm_binrow_append_to_column(&r, (int32_t)i, back->columns[i]));
    }
    PM_OK_OR_FAIL(pm_batch_finish(back, pm_batch_num_rows(b)));
    for (int64_t row = 0; row < pm_batch_num_rows(b); row++) {
        pm_buf x = PM_BUF_INIT, y = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_batch_format_row_json(b, row, &x));
        PM_OK_OR_FAIL(pm_batch_format_row_json(back, row, &y));
        assert_int_equal(x.len, y.len);
        assert_memory_equal(x.data, y.data, x.len);
        pm_buf_free(&x);
        pm_buf_free(&y);
    }
    /* row kind and arity checks */
    pm_binrow_set_kind(&w, PM_ROWKIND_DELETE);
    size_t n;
    const uint8_t *d = pm_binrow_data(&w, &n);
    assert_int_equal(d[0], 3);
    pm_binrow r;
    pm_buf_clear(&ser);
    PM_OK_OR_FAIL(pm_binrow_serialize(&w, &ser));
    PM_EXPECT_ERR(pm_binrow_deserialize(&r, ser.data, ser.len, 3), PM_ECORRUPT);
    pm_buf_free(&ser);
    pm_binrow_writer_free(&w);
    pm_batch_free(back);
    pm_batch_free(b);
}

static void test_decimal_bytes(void **state)
{
    (void)state;
    /* minimal two's complement like BigInteger.toByteArray */
    const struct {
        __int128 v;
        const char *hex;
    } cases[] = {
        {0, "00"}, {1, "01"}, {-1, "ff"}, {127, "7f"}, {128, "0080"}, {-128, "80"}, {-129, "ff7f"},
        {255, "00ff"}, {256, "0100"}, {-256, "ff00"},
    };
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
        PM_OK_OR_FAIL(pm_binrow_set_decimal(&w, 0, 38, cases[k].v));
        size_t n;
        const uint8_t *d = pm_binrow_data(&w, &n);
        size_t len = (size_t)(pm_load_u64le(d + 8) & 0xffffffff);
        char *h = hex(d + 16, len);
        assert_string_equal(h, cases[k].hex);
        free(h);
        pm_binrow r;
        PM_OK_OR_FAIL(pm_binrow_view(&r, d, n, 1));
        __int128 back;
        PM_OK_OR_FAIL(pm_binrow_decimal(&r, 0, 38, &back));
        assert_true(back == cases[k].v);
    }
    /* 10^38 - 1 takes 16 bytes */
    __int128 max = 0;
    for (int i = 0; i < 38; i++)
        max = max * 10 + 9;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_decimal(&w, 0, 38, -max));
    size_t n;
    const uint8_t *d = pm_binrow_data(&w, &n);
    assert_int_equal(pm_load_u64le(d + 8) & 0xffffffff, 16);
    /* compact decimal out of range */
    PM_EXPECT_ERR(pm_binrow_set_decimal(&w, 0, 18, max), PM_EINVALID);
    pm_binrow_writer_free(&w);
}

static void test_corrupt(void **state)
{
    (void)state;
    pm_binrow r;
    uint8_t row[24] = {0};
    /* too short for the fixed part */
    PM_EXPECT_ERR(pm_binrow_view(&r, row, 15, 1), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_binrow_deserialize(&r, "\x00\x00", 2, -1), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_binrow_deserialize(&r, "\x7f\xff\xff\xff" "12345678", 12, -1), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_binrow_deserialize(&r, "\x80\x00\x00\x00" "12345678", 12, -1), PM_ECORRUPT);
    PM_OK_OR_FAIL(pm_binrow_view(&r, row, 24, 1));
    const uint8_t *p;
    size_t n;
    /* var pointer past the end */
    pm_store_u64le(row + 8, (uint64_t)16 << 32 | 9);
    PM_EXPECT_ERR(pm_binrow_bytes(&r, 0, &p, &n), PM_ECORRUPT);
    /* var pointer into the fixed part */
    pm_store_u64le(row + 8, (uint64_t)0 << 32 | 4);
    PM_EXPECT_ERR(pm_binrow_bytes(&r, 0, &p, &n), PM_ECORRUPT);
    /* huge offset */
    pm_store_u64le(row + 8, (uint64_t)0x7fffffff << 32 | 4);
    PM_EXPECT_ERR(pm_binrow_bytes(&r, 0, &p, &n), PM_ECORRUPT);
    /* fits exactly */
    pm_store_u64le(row + 8, (uint64_t)16 << 32 | 8);
    PM_OK_OR_FAIL(pm_binrow_bytes(&r, 0, &p, &n));
    assert_int_equal(n, 8);
    /* decimal byte length 0 and 17 */
    pm_store_u64le(row + 8, (uint64_t)16 << 32 | 0);
    __int128 dv;
    PM_EXPECT_ERR(pm_binrow_decimal(&r, 0, 20, &dv), PM_ECORRUPT);
    pm_store_u64le(row + 8, (uint64_t)16 << 32 | 17);
    PM_EXPECT_ERR(pm_binrow_decimal(&r, 0, 20, &dv), PM_ECORRUPT);
    /* timestamp nanos out of range, and millis past the end */
    int64_t ms;
    int32_t ns;
    pm_store_u64le(row + 8, (uint64_t)16 << 32 | 1000000);
    PM_EXPECT_ERR(pm_binrow_timestamp(&r, 0, 6, &ms, &ns), PM_ECORRUPT);
    pm_store_u64le(row + 8, (uint64_t)20 << 32 | 1);
    PM_EXPECT_ERR(pm_binrow_timestamp(&r, 0, 6, &ms, &ns), PM_ECORRUPT);
    /* field index out of range */
    PM_EXPECT_ERR(pm_binrow_bytes(&r, 1, &p, &n), PM_EINVALID);
    /* TIMESTAMP(9) whose millis overflow nanoseconds */
    pm_store_u64le(row + 8, (uint64_t)16 << 32 | 0);
    pm_store_u64le(row + 16, (uint64_t)INT64_MAX);
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, "TIMESTAMP(9)"));
    pm_column *c;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    PM_EXPECT_ERR(pm_binrow_append_to_column(&r, 0, c), PM_EUNSUPPORTED);
    pm_column_release(c);
    pm_type_free(t);
    /* nested fields are unsupported */
    PM_OK_OR_FAIL(pm_type_parse(&t, "ARRAY<INT>"));
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    PM_EXPECT_ERR(pm_binrow_append_to_column(&r, 0, c), PM_EUNSUPPORTED);
    pm_column_release(c);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_examples), cmocka_unit_test(test_null_noncompact_reserves),
        cmocka_unit_test(test_hash_vectors),    cmocka_unit_test(test_buckets),
        cmocka_unit_test(test_roundtrip),       cmocka_unit_test(test_decimal_bytes),
        cmocka_unit_test(test_corrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
