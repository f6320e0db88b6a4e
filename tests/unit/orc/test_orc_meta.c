/*
 * tests/unit/orc/test_orc_meta.c — ORC metadata: the protobuf wire codec
 * (varints, every wire type skipped when unknown, packed and unpacked
 * repeated fields, truncation and groups rejected), message round trips,
 * a Java-written file's tail from the fixtures; statistics accumulators
 * (string bounds past 1024 bytes with orc-core's code point quirk,
 * decimal texts, HiveDecimal sums, timestamps, doubles, integer overflow,
 * merging) and Paimon's view of them; writer time zones (fixed offsets,
 * TZif zones with daylight saving and POSIX rules, unsafe ids).
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "pm_test.h"
#include "format/orc/orc_meta.h"
#include "format/orc/orc_pb.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_stats.h"
#include "format/orc/orc_tz.h"
#include "types/column.h"
#include "types/temporal.h"
#include "types/value.h"

/* ---- protobuf ---- */

static void test_pb_varints_and_skipping(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(orc_pb_put_u64(&b, 1, UINT64_MAX));
    PM_OK_OR_FAIL(orc_pb_put_i64(&b, 2, -5));         /* int32 on the wire: 10 bytes */
    PM_OK_OR_FAIL(orc_pb_put_s64(&b, 3, INT64_MIN));
    PM_OK_OR_FAIL(orc_pb_put_double(&b, 4, -2.5));
    PM_OK_OR_FAIL(orc_pb_put_str(&b, 5, "ab"));
    PM_OK_OR_FAIL(orc_pb_put_uvarint(&b, (9u << 3) | 5)); /* fixed32, unknown */
    PM_OK_OR_FAIL(pm_buf_append(&b, "\1\2\3\4", 4));
    uint64_t packed[] = {0, 127, 128, 300};
    PM_OK_OR_FAIL(orc_pb_put_packed(&b, 6, packed, 4));
    pm_cursor c = pm_cursor_make(b.data, b.len);
    orc_pb_field f;
    bool more;
    uint64_t u;
    int64_t s;
    int32_t i;
    double d;
    PM_OK_OR_FAIL(orc_pb_next(&c, &f, &more, "t"));
    PM_OK_OR_FAIL(orc_pb_u64(&f, &u, "t"));
    assert_true(u == UINT64_MAX);
    PM_OK_OR_FAIL(orc_pb_next(&c, &f, &more, "t"));
    PM_OK_OR_FAIL(orc_pb_i32(&f, &i, "t"));
    assert_int_equal(i, -5);
    PM_OK_OR_FAIL(orc_pb_next(&c, &f, &more, "t"));
    PM_OK_OR_FAIL(orc_pb_s64(&f, &s, "t"));
    assert_true(s == INT64_MIN);
    PM_OK_OR_FAIL(orc_pb_next(&c, &f, &more, "t"));
    PM_OK_OR_FAIL(orc_pb_double(&f, &d, "t"));
    assert_true(d == -2.5);
    PM_OK_OR_FAIL(orc_pb_next(&c, &f, &more, "t"));
    assert_int_equal(f.len, 2);
    PM_OK_OR_FAIL(orc_pb_next(&c, &f, &more, "t"));
    assert_int_equal(f.num, 9);
    assert_int_equal(f.wire, ORC_PB_I32);
    PM_OK_OR_FAIL(orc_pb_next(&c, &f, &more, "t"));
    size_t n;
    PM_OK_OR_FAIL(orc_pb_repeated_count(&f, &n, "t"));
    assert_int_equal(n, 4);
    uint64_t got[4];
    PM_OK_OR_FAIL(orc_pb_repeated_u64(&f, got, 4, "t"));
    assert_memory_equal(got, packed, sizeof packed);
    PM_OK_OR_FAIL(orc_pb_next(&c, &f, &more, "t"));
    assert_false(more);
    /* wrong wire type for the asked value */
    f.wire = ORC_PB_LEN;
    PM_EXPECT_ERR(orc_pb_u64(&f, &u, "t"), PM_ECORRUPT);
    pm_buf_free(&b);

    const uint8_t group[] = {0x0b};                /* field 1, start group */
    const uint8_t zero[] = {0x00, 0x01};           /* field 0 */
    const uint8_t longlen[] = {0x0a, 0x05, 'a'};   /* 5 bytes declared, 1 left */
    const uint8_t cut[] = {0x08, 0x80};            /* varint cut short */
    const uint8_t *bad[] = {group, zero, longlen, cut};
    const size_t lens[] = {1, 2, 3, 2};
    for (int k = 0; k < 4; k++) {
        c = pm_cursor_make(bad[k], lens[k]);
        PM_EXPECT_ERR(orc_pb_next(&c, &f, &more, "t"), PM_ECORRUPT);
    }
}

static void test_messages_roundtrip(void **state)
{
    (void)state;
    pm_orc_stats st;
    memset(&st, 0, sizeof st);
    st.has_count = st.has_has_null = st.has_bytes_on_disk = true;
    st.count = 7;
    st.has_null = true;
    st.bytes_on_disk = 99;
    st.ints.present = st.ints.has_min = st.ints.has_sum = true;
    st.ints.min = -3;
    st.ints.sum = 12;
    st.str.present = st.str.has_lower = true;
    st.str.lower = (pm_orc_str){"abc", 3};
    uint64_t trues = 4;
    st.bucket.present = true;
    st.bucket.count = &trues;
    st.bucket.ncount = 1;
    st.ts.present = st.ts.has_min_utc = st.ts.has_max_nanos = true;
    st.ts.min_utc = -1234;
    st.ts.max_nanos = 1000;
    st.coll.present = st.coll.has_total = true;
    st.coll.total = 2048;
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(orc_put_stats(&b, &st));
    pm_arena a;
    pm_arena_init(&a, 0);
    pm_orc_stats back;
    PM_OK_OR_FAIL(orc_parse_stats(&a, b.data, b.len, &back));
    assert_true(back.has_count && back.count == 7 && back.has_null && back.bytes_on_disk == 99);
    assert_true(back.ints.has_min && !back.ints.has_max && back.ints.min == -3 && back.ints.sum == 12);
    assert_true(back.str.has_lower && !back.str.has_min);
    assert_string_equal(back.str.lower.data, "abc");
    assert_int_equal(back.bucket.ncount, 1);
    assert_int_equal(back.bucket.count[0], 4);
    assert_true(back.ts.has_min_utc && back.ts.min_utc == -1234 && back.ts.max_nanos == 1000);
    assert_true(back.coll.has_total && back.coll.total == 2048 && !back.coll.has_min);
    /* a Type with packed subtypes, names and an attribute */
    orc_type t;
    memset(&t, 0, sizeof t);
    uint32_t subs[] = {1, 2};
    const char *names[] = {"a", "b"};
    orc_attr attr = {"paimon.id", "7"};
    t.kind = ORC_STRUCT;
    t.subtypes = subs;
    t.nsub = 2;
    t.names = names;
    t.nnames = 2;
    t.attrs = &attr;
    t.nattrs = 1;
    pm_buf fb = PM_BUF_INIT, tb = PM_BUF_INIT;
    PM_OK_OR_FAIL(orc_put_type(&tb, &t));
    PM_OK_OR_FAIL(orc_pb_put_bytes(&fb, 4, tb.data, tb.len));
    /* subtypes unpacked are accepted too */
    pm_buf_clear(&tb);
    PM_OK_OR_FAIL(orc_pb_put_u64(&tb, 1, ORC_INT));
    PM_OK_OR_FAIL(orc_pb_put_bytes(&fb, 4, tb.data, tb.len));
    pm_buf_clear(&tb);
    PM_OK_OR_FAIL(orc_pb_put_u64(&tb, 1, ORC_LIST));
    PM_OK_OR_FAIL(orc_pb_put_u64(&tb, 2, 3));
    PM_OK_OR_FAIL(orc_pb_put_bytes(&fb, 4, tb.data, tb.len));
    orc_footer ft;
    PM_OK_OR_FAIL(orc_parse_footer(&a, fb.data, fb.len, &ft));
    assert_int_equal(ft.ntypes, 3);
    assert_int_equal(ft.types[0].nsub, 2);
    assert_string_equal(ft.types[0].names[1], "b");
    assert_string_equal(ft.types[0].attrs[0].value, "7");
    assert_int_equal(ft.types[2].nsub, 1);
    assert_int_equal(ft.types[2].subtypes[0], 3);
    pm_buf_free(&b);
    pm_buf_free(&fb);
    pm_buf_free(&tb);
    pm_arena_free(&a);
}

/* A manifest Apache Paimon Java wrote with manifest.format=orc. */
static void test_java_written_tail(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/java-written-orc-manifests/append_09.db/append_09/manifest/"
             "manifest-7008d4c0-b1b0-4237-ac6d-845b887efc92-0", PM_FIXTURES_DIR);
    size_t len;
    uint8_t *data = pm_test_read_file(path, &len);
    if (!data)
        skip();
    pm_orc_reader *r;
    PM_OK_OR_FAIL(pm_orc_reader_open_memory(&r, data, len, NULL));
    const pm_orc_file_info *fi = pm_orc_reader_info(r);
    assert_int_equal(fi->compression, ORC_COMP_ZSTD);
    assert_int_equal(fi->block_size, 131072);
    assert_int_equal(fi->version[1], 12);
    assert_int_equal(fi->writer, 0);
    assert_int_equal(fi->writer_version, 9);
    assert_string_equal(fi->software_version, "1.9.2");
    assert_int_equal(fi->calendar, ORC_CALENDAR_JULIAN_GREGORIAN);
    assert_int_equal(fi->rows, 1);
    const orc_stripe_footer *sf;
    PM_OK_OR_FAIL(pm_orc_reader_stripe_footer(r, 0, &sf));
    assert_string_equal(sf->writer_timezone, "Asia/Shanghai");
    pm_batch *b;
    PM_OK_OR_FAIL(pm_orc_reader_next_batch(r, &b));
    assert_int_equal(pm_batch_num_rows(b), 1);
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_batch_format_row_json(b, 0, &out));
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, 0));
    /* the wall clock of the creation time in the writer's zone */
    assert_non_null(strstr((const char *)out.data, "\"_CREATION_TIME\":\"2025-08-21T14:37:44.077"));
    assert_non_null(strstr((const char *)out.data, "data-bb891df7-ea12-4b7e-9017-41aabe08c8ec-0.parquet"));
    pm_buf_free(&out);
    pm_orc_reader_free(r);
    free(data);
}

/* ---- statistics ---- */

static void serialize(orc_stats_acc *s, pm_arena *a, pm_orc_stats *out)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(orc_stats_serialize(s, &b));
    PM_OK_OR_FAIL(orc_parse_stats(a, b.data ? b.data : (const uint8_t *)"", b.len, out));
    pm_buf_free(&b);
}

static void test_string_bounds(void **state)
{
    (void)state;
    pm_arena a;
    pm_arena_init(&a, 0);
    orc_stats_acc s;
    orc_stats_init(&s, ORC_STRING, 0, 0);
    uint8_t big[1500];
    memset(big, 'a', sizeof big);
    big[1023] = 0x7e; /* the character at the cut: 0x7e + 1 = 0x7f, encoded in 2 bytes by orc-core */
    orc_stats_nonnull(&s, 2);
    PM_OK_OR_FAIL(orc_stats_string(&s, big, sizeof big));
    PM_OK_OR_FAIL(orc_stats_string(&s, (const uint8_t *)"b", 1));
    pm_orc_stats st;
    serialize(&s, &a, &st);
    assert_true(st.str.has_lower && !st.str.has_min);
    assert_int_equal(st.str.lower.len, 1024);
    assert_true(st.str.has_max && !st.str.has_upper);
    assert_string_equal(st.str.max.data, "b");
    assert_int_equal(st.str.sum, 1501);
    /* upper bound alone: a bigger long value */
    orc_stats_reset(&s);
    orc_stats_nonnull(&s, 1);
    memset(big, 'z', sizeof big);
    big[1023] = 0x7e;
    PM_OK_OR_FAIL(orc_stats_string(&s, big, sizeof big));
    serialize(&s, &a, &st);
    assert_true(st.str.has_upper);
    /* 0x7f became the overlong 0xc1 0xbf, which Java's Text.toString then
     * decodes to two U+FFFD before protobuf writes the string */
    assert_int_equal(st.str.upper.len, 1023 + 6);
    assert_memory_equal(st.str.upper.data + 1023, "\xef\xbf\xbd\xef\xbf\xbd", 6);
    /* a multi-byte character across the cut stays whole in the lower bound */
    orc_stats_reset(&s);
    orc_stats_nonnull(&s, 1);
    memset(big, 'q', sizeof big);
    memcpy(big + 1023, "\xc3\xa9", 2);
    PM_OK_OR_FAIL(orc_stats_string(&s, big, sizeof big));
    serialize(&s, &a, &st);
    assert_int_equal(st.str.lower.len, 1023);
    /* invalid UTF-8 is written as Java decodes it */
    orc_stats_reset(&s);
    orc_stats_nonnull(&s, 1);
    PM_OK_OR_FAIL(orc_stats_string(&s, (const uint8_t *)"a\xff", 2));
    serialize(&s, &a, &st);
    assert_string_equal(st.str.min.data, "a\xef\xbf\xbd");
    orc_stats_free(&s);
    pm_arena_free(&a);
}

static void test_decimals(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    const struct {
        long long v;
        int s;
        const char *text;
    } cases[] = {{150, 2, "1.5"}, {-5, 3, "-0.005"}, {0, 4, "0"}, {12300, 2, "123"}, {100, 0, "100"}, {-7, 0, "-7"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pm_buf_clear(&b);
        PM_OK_OR_FAIL(orc_decimal_text(&b, cases[i].v, cases[i].s));
        PM_OK_OR_FAIL(pm_buf_append_byte(&b, 0));
        assert_string_equal((const char *)b.data, cases[i].text);
    }

    /* HiveDecimal sums keep 38 digits, rounding the fraction (values from orc-core) */
    pm_arena a;
    pm_arena_init(&a, 0);
    orc_stats_acc s;
    orc_stats_init(&s, ORC_DECIMAL, 38, 10);
    __int128 x;
    PM_OK_OR_FAIL(pm_decimal_parse("9999999999999999999999999999.1234567891", 39, 38, 10, &x));
    orc_stats_nonnull(&s, 2);
    orc_stats_decimal(&s, x);
    orc_stats_decimal(&s, x);
    pm_orc_stats st;
    serialize(&s, &a, &st);
    assert_string_equal(st.dec.sum.data, "19999999999999999999999999998.246913578");
    assert_string_equal(st.dec.min.data, "9999999999999999999999999999.1234567891");
    /* precision <= 18: sums past 18 digits are dropped */
    orc_stats_free(&s);
    orc_stats_init(&s, ORC_DECIMAL, 18, 0);
    orc_stats_nonnull(&s, 2);
    orc_stats_decimal(&s, 999999999999999999LL);
    orc_stats_decimal(&s, 1);
    serialize(&s, &a, &st);
    assert_false(st.dec.has_sum);
    assert_string_equal(st.dec.max.data, "999999999999999999");
    orc_stats_free(&s);
    pm_arena_free(&a);
    pm_buf_free(&b);
}

static void test_numbers_and_times(void **state)
{
    (void)state;
    pm_arena a;
    pm_arena_init(&a, 0);
    pm_orc_stats st;
    orc_stats_acc s;
    /* integers: the sum disappears on overflow, also after a merge */
    orc_stats_init(&s, ORC_LONG, 0, 0);
    orc_stats_nonnull(&s, 2);
    orc_stats_int(&s, INT64_MAX);
    orc_stats_int(&s, 1);
    serialize(&s, &a, &st);
    assert_true(st.ints.has_min && st.ints.min == 1 && st.ints.max == INT64_MAX && !st.ints.has_sum);
    orc_stats_acc f;
    orc_stats_init(&f, ORC_LONG, 0, 0);
    PM_OK_OR_FAIL(orc_stats_merge(&f, &s));
    serialize(&f, &a, &st);
    assert_false(st.ints.has_sum);
    assert_int_equal(st.count, 2);
    orc_stats_free(&f);
    orc_stats_free(&s);
    /* doubles: NaN first sticks, later NaNs are ignored, the sum is NaN */
    orc_stats_init(&s, ORC_DOUBLE, 0, 0);
    orc_stats_nonnull(&s, 3);
    orc_stats_double(&s, NAN);
    orc_stats_double(&s, 1.0);
    orc_stats_double(&s, -1.0);
    serialize(&s, &a, &st);
    assert_true(isnan(st.dbl.min) && isnan(st.dbl.max) && isnan(st.dbl.sum));
    orc_stats_free(&s);
    /* timestamps: sub-millisecond nanos + 1 unless 0 (min) / 999999 (max) */
    orc_stats_init(&s, ORC_TIMESTAMP, 0, 0);
    orc_stats_nonnull(&s, 2);
    orc_stats_timestamp(&s, 1000, 5);
    orc_stats_timestamp(&s, 2000, 999999);
    serialize(&s, &a, &st);
    assert_true(st.ts.min_utc == 1000 && st.ts.max_utc == 2000);
    assert_true(st.ts.has_min_nanos && st.ts.min_nanos == 6 && !st.ts.has_max_nanos);
    pm_type *t = pm_type_new_temporal(PM_TYPE_TIMESTAMP, 9, true);
    pm_orc_field_stats fs;
    orc_field_stats(&st, t, 5, &fs);
    assert_int_equal(fs.null_count, 3);
    assert_true(fs.has_min && fs.min.i == 1000000005 && fs.max.i == 2000999999);
    pm_type_free(t);
    orc_stats_free(&s);
    /* booleans: Paimon's min = no false, max = any true */
    orc_stats_init(&s, ORC_BOOLEAN, 0, 0);
    orc_stats_nonnull(&s, 2);
    orc_stats_bool(&s, true);
    orc_stats_bool(&s, false);
    serialize(&s, &a, &st);
    t = pm_type_new(PM_TYPE_BOOLEAN, true);
    orc_field_stats(&st, t, 2, &fs);
    assert_true(fs.has_min && !fs.min.b && fs.max.b);
    pm_type_free(t);
    orc_stats_free(&s);
    /* decimals: the texts at the column's scale; no bounds when they do not
     * fit the field's precision */
    orc_stats_init(&s, ORC_DECIMAL, 5, 2);
    orc_stats_nonnull(&s, 2);
    orc_stats_decimal(&s, -150);
    orc_stats_decimal(&s, 12345);
    serialize(&s, &a, &st);
    assert_string_equal(st.dec.min.data, "-1.5");
    assert_string_equal(st.dec.max.data, "123.45");
    t = pm_type_new_decimal(5, 2, true);
    orc_field_stats(&st, t, 2, &fs);
    assert_true(fs.has_min && fs.min.dec == -150 && fs.max.dec == 12345);
    pm_type_free(t);
    t = pm_type_new_decimal(4, 2, true);
    orc_field_stats(&st, t, 2, &fs);
    assert_false(fs.has_min || fs.has_max);
    pm_type_free(t);
    orc_stats_free(&s);
    /* all null: a null count and no min/max */
    orc_stats_init(&s, ORC_INT, 0, 0);
    orc_stats_set_null(&s);
    serialize(&s, &a, &st);
    t = pm_type_new(PM_TYPE_INT, true);
    orc_field_stats(&st, t, 4, &fs);
    assert_true(fs.has_null_count && fs.null_count == 4 && !fs.has_min);
    pm_type_free(t);
    orc_stats_free(&s);
    pm_arena_free(&a);
}

/* ---- time zones ---- */

static void test_fixed_zones(void **state)
{
    (void)state;
    int32_t o;
    assert_true(orc_tz_fixed_offset("UTC", &o) && o == 0);
    assert_true(orc_tz_fixed_offset("", &o) && o == 0);
    assert_true(orc_tz_fixed_offset("GMT+08:00", &o) && o == 28800);
    assert_true(orc_tz_fixed_offset("UTC-5", &o) && o == -18000);
    assert_true(orc_tz_fixed_offset("+0530", &o) && o == 19800);
    assert_true(orc_tz_fixed_offset("Etc/GMT+5", &o) && o == -18000);
    assert_false(orc_tz_fixed_offset("GMT+25", &o));
    assert_false(orc_tz_fixed_offset("Asia/Shanghai", &o));
}

static int64_t at(int64_t y, int m, int d, int h)
{
    return pm_days_from_civil(y, m, d) * 86400 + h * 3600;
}

static void test_tzif_zones(void **state)
{
    (void)state;
    if (access("/usr/share/zoneinfo/America/New_York", R_OK))
        skip();
    orc_tz *z;
    PM_OK_OR_FAIL(orc_tz_load("Asia/Shanghai", &z));
    assert_int_equal(orc_tz_offset(z, at(2025, 8, 21, 6)), 28800);
    assert_int_equal(orc_tz_offset(z, at(1988, 7, 1, 0)), 32400); /* China's daylight saving years */
    assert_int_equal(orc_tz_local_to_utc(z, 1420070400), 1420070400 - 28800);
    orc_tz_free(z);
    PM_OK_OR_FAIL(orc_tz_load("America/New_York", &z));
    assert_int_equal(orc_tz_offset(z, at(2020, 7, 1, 12)), -14400);
    assert_int_equal(orc_tz_offset(z, at(2020, 1, 1, 12)), -18000);
    /* past the table (2037): the POSIX rule EST5EDT,M3.2.0,M11.1.0 */
    assert_int_equal(orc_tz_offset(z, at(2050, 7, 1, 12)), -14400);
    assert_int_equal(orc_tz_offset(z, at(2050, 1, 15, 12)), -18000);
    assert_int_equal(orc_tz_offset(z, at(2050, 3, 13, 6)), -18000);  /* 01:00 EST, before 2 am */
    assert_int_equal(orc_tz_offset(z, at(2050, 3, 13, 8)), -14400);  /* after the switch */
    orc_tz_free(z);
    PM_OK_OR_FAIL(orc_tz_load("GMT+02:00", &z));
    assert_int_equal(orc_tz_offset(z, 0), 7200);
    orc_tz_free(z);
    const char *bad[] = {"../../etc/passwd", "/usr/share/zoneinfo/UTC", "Nowhere/City", "a b"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        PM_EXPECT_ERR(orc_tz_load(bad[i], &z), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(orc_tz_parse((const uint8_t *)"TZif2", 5, &z), PM_ECORRUPT);
    PM_EXPECT_ERR(orc_tz_parse((const uint8_t *)"nope nope nope nope nope nope nope nope nope", 44, &z),
                  PM_ECORRUPT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pb_varints_and_skipping), cmocka_unit_test(test_messages_roundtrip),
        cmocka_unit_test(test_java_written_tail),       cmocka_unit_test(test_string_bounds),
        cmocka_unit_test(test_decimals),                cmocka_unit_test(test_numbers_and_times),
        cmocka_unit_test(test_fixed_zones),             cmocka_unit_test(test_tzif_zones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
