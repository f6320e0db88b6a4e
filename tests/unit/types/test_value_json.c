/*
 * tests/unit/types/test_value_json.c — the `paimon cat` JSON encoding of
 * every type, with edge cases: min/max integers, -0.0, NaN/Infinity,
 * shortest float text, dates before 1970 and outside 0..9999, times and
 * timestamps at every precision 0..9, decimals up to p=38, escaping and
 * invalid UTF-8, base64.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pm_test.h"
#include "types/column.h"
#include "types/temporal.h"
#include "types/value.h"

static pm_column *column(const char *type)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, type));
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    pm_type_free(t);
    return c;
}

static void assert_json(const pm_column *c, int64_t i, const char *want)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_column_format_json(c, i, &b));
    const char *s;
    PM_OK_OR_FAIL(pm_buf_cstr(&b, &s));
    if (strcmp(s, want) != 0) {
        print_error("%s row %lld: got %s, want %s\n", pm_type_id_name(c->type->id), (long long)i, s, want);
        pm_buf_free(&b);
        fail();
    }
    pm_buf_free(&b);
}

static void test_integers(void **state)
{
    (void)state;
    pm_column *a = column("TINYINT"), *b = column("SMALLINT"), *c = column("INT"), *d = column("BIGINT");
    PM_OK_OR_FAIL(pm_column_append_i8(a, INT8_MIN));
    PM_OK_OR_FAIL(pm_column_append_i8(a, INT8_MAX));
    PM_OK_OR_FAIL(pm_column_append_i16(b, INT16_MIN));
    PM_OK_OR_FAIL(pm_column_append_i16(b, INT16_MAX));
    PM_OK_OR_FAIL(pm_column_append_i32(c, INT32_MIN));
    PM_OK_OR_FAIL(pm_column_append_i32(c, INT32_MAX));
    PM_OK_OR_FAIL(pm_column_append_i64(d, INT64_MIN));
    PM_OK_OR_FAIL(pm_column_append_i64(d, INT64_MAX));
    PM_OK_OR_FAIL(pm_column_append_null(d));
    assert_json(a, 0, "-128");
    assert_json(a, 1, "127");
    assert_json(b, 0, "-32768");
    assert_json(b, 1, "32767");
    assert_json(c, 0, "-2147483648");
    assert_json(c, 1, "2147483647");
    assert_json(d, 0, "-9223372036854775808");
    assert_json(d, 1, "9223372036854775807");
    assert_json(d, 2, "null");
    pm_buf o = PM_BUF_INIT;
    PM_EXPECT_ERR(pm_column_format_json(d, 3, &o), PM_EINVALID);
    pm_buf_free(&o);
    pm_column_release(a);
    pm_column_release(b);
    pm_column_release(c);
    pm_column_release(d);
}

/* Significant digits of a printed number ("-0.00120" -> 2, "1.5e-07" -> 2). */
static int significant_digits(const char *s)
{
    char d[64];
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            d[n++] = *s;
    int a = 0;
    while (a < n - 1 && d[a] == '0')
        a++;
    while (n - 1 > a && d[n - 1] == '0')
        n--;
    return n - a;
}

static void test_floats(void **state)
{
    (void)state;
    pm_column *d = column("DOUBLE");
    const struct {
        double v;
        const char *s;
    } dc[] = {
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {1.0, "1.0"},
        {0.1, "0.1"},
        {-2.5, "-2.5"},
        {1.0 / 3.0, "0.3333333333333333"},
        {1e16, "1e+16"},
        {1e15, "1000000000000000.0"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {0.0001, "0.0001"},
        {0.00001, "1e-05"},
        {1.5e-7, "1.5e-07"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {5e-324, "5e-324"},
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {NAN, "\"NaN\""},
        {INFINITY, "\"Infinity\""},
        {-INFINITY, "\"-Infinity\""},
    };
    for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++)
        PM_OK_OR_FAIL(pm_column_append_f64(d, dc[i].v));
    for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++)
        assert_json(d, (int64_t)i, dc[i].s);
    pm_column_release(d);

    pm_column *f = column("FLOAT");
    const struct {
        float v;
        const char *s;
    } fc[] = {
        {0.1f, "0.1"},        {-0.0f, "-0.0"},          {3.4028235e38f, "3.4028235e+38"},
        {1.0f / 3.0f, "0.33333334"}, {16777216.0f, "16777216.0"}, {1e-45f, "1e-45"},
        {NAN, "\"NaN\""},     {-INFINITY, "\"-Infinity\""},
    };
    for (size_t i = 0; i < sizeof fc / sizeof fc[0]; i++)
        PM_OK_OR_FAIL(pm_column_append_f32(f, fc[i].v));
    for (size_t i = 0; i < sizeof fc / sizeof fc[0]; i++)
        assert_json(f, (int64_t)i, fc[i].s);
    pm_column_release(f);

    /* every printed double reads back exactly (random bit patterns) */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    pm_buf b = PM_BUF_INIT;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        uint64_t bits = i % 4 == 0 ? x & 0x800fffffffffffffull : x; /* every 4th: subnormal */
        memcpy(&v, &bits, 8);
        if (!isfinite(v))
            continue;
        pm_buf_clear(&b);
        PM_OK_OR_FAIL(pm_format_double(&b, v));
        const char *s;
        PM_OK_OR_FAIL(pm_buf_cstr(&b, &s));
        double back = strtod(s, NULL);
        assert_memory_equal(&back, &v, 8);
        /* as short as the exhaustive search (1..17 digits) */
        int pmin = 1;
        char sci[40];
        for (; pmin <= 17; pmin++) {
            snprintf(sci, sizeof sci, "%.*e", pmin - 1, fabs(v));
            if (strtod(sci, NULL) == fabs(v))
                break;
        }
        assert_true(significant_digits(s) <= pmin);
        float fv = (float)v;
        if (!isfinite(fv))
            continue;
        pm_buf_clear(&b);
        PM_OK_OR_FAIL(pm_format_float(&b, fv));
        PM_OK_OR_FAIL(pm_buf_cstr(&b, &s));
        float fback = strtof(s, NULL);
        assert_memory_equal(&fback, &fv, 4);
    }
    pm_buf_free(&b);
}

static void test_decimals(void **state)
{
    (void)state;
    pm_column *a = column("DECIMAL(10, 2)"), *b = column("DECIMAL(38, 0)"), *c = column("DECIMAL(38, 38)"),
              *d = column("DECIMAL(5, 0)");
    PM_OK_OR_FAIL(pm_column_append_decimal(a, -50));
    PM_OK_OR_FAIL(pm_column_append_decimal(a, 1234));
    PM_OK_OR_FAIL(pm_column_append_decimal(a, 0));
    PM_OK_OR_FAIL(pm_column_append_decimal(a, 5));
    PM_OK_OR_FAIL(pm_column_append_decimal(a, -9999999999LL));
    __int128 max38 = 0;
    for (int i = 0; i < 38; i++)
        max38 = max38 * 10 + 9;
    PM_OK_OR_FAIL(pm_column_append_decimal(b, max38));
    PM_OK_OR_FAIL(pm_column_append_decimal(b, -max38));
    PM_OK_OR_FAIL(pm_column_append_decimal(c, -max38));
    PM_OK_OR_FAIL(pm_column_append_decimal(c, 1));
    PM_OK_OR_FAIL(pm_column_append_decimal(d, -7));
    assert_json(a, 0, "\"-0.50\"");
    assert_json(a, 1, "\"12.34\"");
    assert_json(a, 2, "\"0.00\"");
    assert_json(a, 3, "\"0.05\"");
    assert_json(a, 4, "\"-99999999.99\"");
    assert_json(b, 0, "\"99999999999999999999999999999999999999\"");
    assert_json(b, 1, "\"-99999999999999999999999999999999999999\"");
    assert_json(c, 0, "\"-0.99999999999999999999999999999999999999\"");
    assert_json(c, 1, "\"0.00000000000000000000000000000000000001\"");
    assert_json(d, 0, "\"-7\"");
    pm_column_release(a);
    pm_column_release(b);
    pm_column_release(c);
    pm_column_release(d);
}

static void test_strings_and_bytes(void **state)
{
    (void)state;
    pm_column *s = column("STRING"), *b = column("BYTES"), *ch = column("CHAR(3)"), *bl = column("BLOB");
    PM_OK_OR_FAIL(pm_column_append_bytes(s, "a\"b\\c\n\t\x01", 8));
    PM_OK_OR_FAIL(pm_column_append_bytes(s, "h\xc3\xa9llo \xe4\xb8\x96\xf0\x9f\x98\x80", 14));
    PM_OK_OR_FAIL(pm_column_append_bytes(s, "bad\xff\xc3(\xed\xa0\x80!", 10));
    PM_OK_OR_FAIL(pm_column_append_bytes(s, "", 0));
    PM_OK_OR_FAIL(pm_column_append_bytes(s, "nul\0x", 5));
    PM_OK_OR_FAIL(pm_column_append_bytes(b, "\x00\x01\xff\x7f", 4));
    PM_OK_OR_FAIL(pm_column_append_bytes(b, "", 0));
    PM_OK_OR_FAIL(pm_column_append_bytes(b, "hello", 5));
    PM_OK_OR_FAIL(pm_column_append_bytes(ch, "ab ", 3));
    PM_OK_OR_FAIL(pm_column_append_bytes(bl, "xy", 2));
    assert_json(s, 0, "\"a\\\"b\\\\c\\n\\t\\u0001\"");
    assert_json(s, 1, "\"h\xc3\xa9llo \xe4\xb8\x96\xf0\x9f\x98\x80\"");
    assert_json(s, 2, "\"bad\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!\"");
    assert_json(s, 3, "\"\"");
    assert_json(s, 4, "\"nul\\u0000x\"");
    assert_json(b, 0, "\"AAH/fw==\"");
    assert_json(b, 1, "\"\"");
    assert_json(b, 2, "\"aGVsbG8=\"");
    assert_json(ch, 0, "\"ab \"");
    assert_json(bl, 0, "\"eHk=\"");
    pm_column_release(s);
    pm_column_release(b);
    pm_column_release(ch);
    pm_column_release(bl);
}

static void test_dates_times(void **state)
{
    (void)state;
    pm_column *d = column("DATE");
    const struct {
        int32_t days;
        const char *s;
    } dc[] = {
        {0, "\"1970-01-01\""},      {-1, "\"1969-12-31\""},      {19857, "\"2024-05-14\""},
        {-719528, "\"0000-01-01\""}, {-719529, "\"-0001-12-31\""}, {2932896, "\"9999-12-31\""},
        {2932897, "\"+10000-01-01\""}, {11016, "\"2000-02-29\""},  {-25567, "\"1900-01-01\""},
        {INT32_MIN, "\"-5877641-06-23\""}, {INT32_MAX, "\"+5881580-07-11\""},
    };
    for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++)
        PM_OK_OR_FAIL(pm_column_append_i32(d, dc[i].days));
    for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++)
        assert_json(d, (int64_t)i, dc[i].s);
    pm_column_release(d);
    /* civil <-> days round trip over a long range */
    for (int64_t z = -800000; z <= 800000; z += 97) {
        int64_t y;
        int m, dd;
        pm_civil_from_days(z, &y, &m, &dd);
        assert_true(pm_days_from_civil(y, m, dd) == z);
    }

    const char *want_time[] = {"\"01:02:03\"", "\"01:02:03.0\"", "\"01:02:03.04\"", "\"01:02:03.045\"",
                               "\"01:02:03.0450\"", "\"01:02:03.04500\"", "\"01:02:03.045000\"",
                               "\"01:02:03.0450000\"", "\"01:02:03.04500000\"", "\"01:02:03.045000000\""};
    for (int p = 0; p <= 9; p++) {
        char ty[16];
        snprintf(ty, sizeof ty, "TIME(%d)", p);
        pm_column *t = column(ty);
        PM_OK_OR_FAIL(pm_column_append_i32(t, 3723045));
        PM_OK_OR_FAIL(pm_column_append_i32(t, 0));
        PM_OK_OR_FAIL(pm_column_append_i32(t, 86399999));
        PM_OK_OR_FAIL(pm_column_append_i32(t, 86400000));
        assert_json(t, 0, want_time[p]);
        char zero[32];
        snprintf(zero, sizeof zero, "\"00:00:00%s%.*s\"", p ? "." : "", p, "000000000");
        assert_json(t, 1, zero);
        pm_buf b = PM_BUF_INIT;
        PM_EXPECT_ERR(pm_column_format_json(t, 3, &b), PM_EINVALID);
        pm_buf_free(&b);
        pm_column_release(t);
    }
}

static void test_time_edges(void **state)
{
    (void)state;
    pm_column *t = column("TIME(3)");
    PM_OK_OR_FAIL(pm_column_append_i32(t, 0));
    PM_OK_OR_FAIL(pm_column_append_i32(t, 86399999));
    assert_json(t, 0, "\"00:00:00.000\"");
    assert_json(t, 1, "\"23:59:59.999\"");
    pm_column_release(t);
}

static void test_timestamps(void **state)
{
    (void)state;
    /* 2024-05-14T01:02:03.123456789 and 1969-12-31T23:59:59.9 (negative) at every precision */
    const int64_t secs = 1715648523;
    const char *want[] = {
        "2024-05-14T01:02:03",           "2024-05-14T01:02:03.1",         "2024-05-14T01:02:03.12",
        "2024-05-14T01:02:03.123",       "2024-05-14T01:02:03.1234",      "2024-05-14T01:02:03.12345",
        "2024-05-14T01:02:03.123456",    "2024-05-14T01:02:03.1234567",   "2024-05-14T01:02:03.12345678",
        "2024-05-14T01:02:03.123456789",
    };
    for (int p = 0; p <= 9; p++) {
        for (int ltz = 0; ltz < 2; ltz++) {
            char ty[64];
            snprintf(ty, sizeof ty, ltz ? "TIMESTAMP(%d) WITH LOCAL TIME ZONE" : "TIMESTAMP(%d)", p);
            pm_column *c = column(ty);
            int64_t units = pm_timestamp_units_per_second(p);
            int64_t frac_ns = 123456789;
            /* value truncated to the precision, as a writer would store it */
            int64_t pow10 = 1;
            for (int k = p; k < 9; k++)
                pow10 *= 10;
            int64_t frac_trunc = frac_ns / pow10 * pow10;
            int64_t v = secs * units + frac_trunc / (1000000000 / units);
            PM_OK_OR_FAIL(pm_column_append_i64(c, v));
            PM_OK_OR_FAIL(pm_column_append_i64(c, -units / 10 * (p ? 1 : 10))); /* -0.1s or -1s */
            char w[64];
            snprintf(w, sizeof w, "\"%s%s\"", want[p], ltz ? "Z" : "");
            assert_json(c, 0, w);
            if (p == 0)
                snprintf(w, sizeof w, "\"1969-12-31T23:59:59%s\"", ltz ? "Z" : "");
            else
                snprintf(w, sizeof w, "\"1969-12-31T23:59:59.9%.*s%s\"", p - 1, "00000000", ltz ? "Z" : "");
            assert_json(c, 1, w);
            pm_column_release(c);
        }
    }
    /* millisecond precision keeps trailing zeros */
    pm_column *c = column("TIMESTAMP(3)");
    PM_OK_OR_FAIL(pm_column_append_i64(c, 0));
    PM_OK_OR_FAIL(pm_column_append_i64(c, -62135596800000LL)); /* 0001-01-01 */
    assert_json(c, 0, "\"1970-01-01T00:00:00.000\"");
    assert_json(c, 1, "\"0001-01-01T00:00:00.000\"");
    pm_column_release(c);
}

static void test_nested_rows(void **state)
{
    (void)state;
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<`we\"ird` INT, m MAP<INT, BOOLEAN>, s MULTISET<STRING>>"));
    pm_column *c;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    PM_OK_OR_FAIL(pm_column_append_i32(c->children[0], 5));
    pm_column *m = c->children[1];
    PM_OK_OR_FAIL(pm_column_append_i32(m->children[0], 1));
    PM_OK_OR_FAIL(pm_column_append_bool(m->children[1], true));
    PM_OK_OR_FAIL(pm_column_append_i32(m->children[0], 2));
    PM_OK_OR_FAIL(pm_column_append_null(m->children[1]));
    PM_OK_OR_FAIL(pm_column_end_nested(m));
    PM_OK_OR_FAIL(pm_column_append_null(c->children[2]));
    PM_OK_OR_FAIL(pm_column_end_nested(c));
    PM_OK_OR_FAIL(pm_column_append_null(c));
    assert_json(c, 0, "{\"we\\\"ird\":5,\"m\":[{\"key\":1,\"value\":true},{\"key\":2,\"value\":null}],\"s\":null}");
    assert_json(c, 1, "null");
    pm_column_release(c);
    pm_type_free(t);
}

/* ---- the fast shortest printer against the reference algorithm ---- */

static uint64_t rng = 0x1234567;

static uint64_t next_rand(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int mismatches;

static void same_double(double v)
{
    if (!isfinite(v))
        return;
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_format_double(&a, v));
    PM_OK_OR_FAIL(pm_format_double_reference(&b, v));
    if (a.len != b.len || memcmp(a.data, b.data, a.len)) {
        if (mismatches++ < 10)
            print_error("double %a: fast %.*s, reference %.*s\n", v, (int)a.len, (const char *)a.data, (int)b.len,
                        (const char *)b.data);
    }
    pm_buf_free(&a);
    pm_buf_free(&b);
}

static void same_float(float v)
{
    if (!isfinite(v))
        return;
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_format_float(&a, v));
    PM_OK_OR_FAIL(pm_format_float_reference(&b, v));
    if (a.len != b.len || memcmp(a.data, b.data, a.len)) {
        if (mismatches++ < 10)
            print_error("float %a: fast %.*s, reference %.*s\n", (double)v, (int)a.len, (const char *)a.data,
                        (int)b.len, (const char *)b.data);
    }
    pm_buf_free(&a);
    pm_buf_free(&b);
}

/* Random bit patterns, short decimals, integers with trailing 5s and
 * zeros (exact ties), and every power of two and ten with its neighbours.
 * (bench/json/ runs the same comparison on many millions of values.) */
static void test_shortest_matches_reference(void **state)
{
    (void)state;
    mismatches = 0;
    for (int i = 0; i < 40000; i++) {
        uint64_t x = next_rand();
        double d;
        memcpy(&d, &x, 8);
        same_double(d);
        uint32_t y = (uint32_t)(x >> 17);
        float f;
        memcpy(&f, &y, 4);
        same_float(f);
        double dec = (double)(int64_t)(x % 2000000001ull - 1000000000) / pow(10, (int)((x >> 40) % 20));
        same_double(dec);
        same_float((float)dec);
        same_double((double)(x % 100000000) / 100.0);
        int a = (int)((x >> 3) % 23);
        uint64_t p5 = 1;
        for (int k = 0; k < a; k++)
            p5 *= 5;
        uint64_t r = (next_rand() % ((1ull << 53) / p5)) | 1;
        same_double(ldexp((double)(r * p5), (int)((x >> 20) % 120) - 10));
        if (p5 < (1u << 24)) {
            uint64_t rf = (next_rand() % ((1ull << 24) / p5)) | 1;
            same_float(ldexpf((float)(rf * p5), (int)((x >> 20) % 100) - 10));
        }
    }
    for (int e = -1074; e <= 1023; e++) {
        double p = ldexp(1, e);
        same_double(p);
        same_double(nextafter(p, 0));
        same_double(nextafter(p, INFINITY));
        same_double(-p);
    }
    for (int e = -149; e <= 127; e++) {
        float p = ldexpf(1, e);
        same_float(p);
        same_float(nextafterf(p, 0));
        same_float(nextafterf(p, INFINITY));
    }
    for (int e = -325; e <= 308; e++) {
        double p = pow(10, e);
        same_double(p);
        same_double(nextafter(p, 0));
        same_double(nextafter(p, INFINITY));
        same_float((float)p);
    }
    same_double(0.0);
    same_double(-0.0);
    same_float(0.0f);
    same_float(-0.0f);
    same_double(DBL_MAX);
    same_double(DBL_MIN);
    same_double(DBL_TRUE_MIN);
    same_float(FLT_MAX);
    same_float(FLT_MIN);
    same_float(FLT_TRUE_MIN);
    assert_int_equal(mismatches, 0);
}

/* ---- string escaping against a byte-at-a-time reference ---- */

static size_t ref_utf8_len(const uint8_t *p, size_t left)
{
    uint8_t c = p[0];
    size_t n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

static void ref_escape(pm_buf *o, const uint8_t *s, size_t n)
{
    PM_OK_OR_FAIL(pm_buf_append_byte(o, '"'));
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        char u[8];
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                        : c == '\t' ? "\\t" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
        if (!esc && (c < 0x20 || c == 0x7f)) {
            snprintf(u, sizeof u, "\\u%04x", c);
            esc = u;
        }
        if (esc) {
            PM_OK_OR_FAIL(pm_buf_append_str(o, esc));
            i++;
        } else if (c < 0x80) {
            PM_OK_OR_FAIL(pm_buf_append_byte(o, c));
            i++;
        } else {
            size_t len = ref_utf8_len(s + i, n - i);
            if (len) {
                PM_OK_OR_FAIL(pm_buf_append(o, s + i, len));
                i += len;
            } else {
                PM_OK_OR_FAIL(pm_buf_append_str(o, "\xef\xbf\xbd"));
                i++;
            }
        }
    }
    PM_OK_OR_FAIL(pm_buf_append_byte(o, '"'));
}

static void test_string_escapes_random(void **state)
{
    (void)state;
    static const uint8_t pool[] = {'a', 'Z', ' ', '~', '"', '\\', '\n', 0, 0x1f, 0x7f, 0x80, 0xbf, 0xc3, 0xa9,
                                   0xe4, 0xb8, 0x96, 0xed, 0xa0, 0xf0, 0x9f, 0x98, 0xff, '/', '0'};
    pm_column *c = column("STRING");
    uint8_t v[64];
    for (int i = 0; i < 20000; i++) {
        uint64_t x = next_rand();
        size_t n = (size_t)(x % 41);
        bool plain = (x >> 8) % 3 == 0; /* mostly-ASCII strings exercise the 8-byte skip */
        for (size_t k = 0; k < n; k++) {
            uint64_t y = next_rand();
            v[k] = plain && y % 16 ? (uint8_t)('a' + y % 26) : pool[y % sizeof pool];
        }
        pm_column_reset(c);
        PM_OK_OR_FAIL(pm_column_append_bytes(c, v, n));
        pm_buf got = PM_BUF_INIT, want = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_column_format_json(c, 0, &got));
        ref_escape(&want, v, n);
        if (got.len != want.len || memcmp(got.data, want.data, got.len))
            fail_msg("escape of a %zu-byte string differs: %.*s vs %.*s", n, (int)got.len, (const char *)got.data,
                     (int)want.len, (const char *)want.data);
        pm_buf_free(&got);
        pm_buf_free(&want);
    }
    pm_column_release(c);
}

/* pm_batch_format_rows_json = each row's pm_batch_format_row_json + '\n'. */
static void test_rows_json(void **state)
{
    (void)state;
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<a INT, `b\"` STRING, c DOUBLE, d DECIMAL(20, 3)>"));
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    for (int i = 0; i < 50; i++) {
        PM_OK_OR_FAIL(i % 7 ? pm_column_append_i32(b->columns[0], i * 1000 - 7) : pm_column_append_null(b->columns[0]));
        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[1], "x\"y", (size_t)(i % 4)));
        PM_OK_OR_FAIL(pm_column_append_f64(b->columns[2], i / 7.0));
        PM_OK_OR_FAIL(pm_column_append_decimal(b->columns[3], (__int128)i * -123456789012345678LL * 1000));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, 50));
    pm_buf got = PM_BUF_INIT, want = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_batch_format_rows_json(b, 3, 50, &got));
    for (int64_t r = 3; r < 50; r++) {
        PM_OK_OR_FAIL(pm_batch_format_row_json(b, r, &want));
        PM_OK_OR_FAIL(pm_buf_append_byte(&want, '\n'));
    }
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.data, want.data, got.len);
    pm_buf_clear(&got);
    PM_OK_OR_FAIL(pm_batch_format_rows_json(b, 7, 7, &got));
    assert_int_equal(got.len, 0);
    PM_EXPECT_ERR(pm_batch_format_rows_json(b, 0, 51, &got), PM_EINVALID);
    pm_buf_free(&got);
    pm_buf_free(&want);
    pm_batch_free(b);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),    cmocka_unit_test(test_floats),
        cmocka_unit_test(test_decimals),    cmocka_unit_test(test_strings_and_bytes),
        cmocka_unit_test(test_dates_times), cmocka_unit_test(test_time_edges),
        cmocka_unit_test(test_timestamps),  cmocka_unit_test(test_nested_rows),
        cmocka_unit_test(test_shortest_matches_reference), cmocka_unit_test(test_string_escapes_random),
        cmocka_unit_test(test_rows_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
