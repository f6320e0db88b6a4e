/*
 * meta/paths.c — table paths, partition directory names (Hive escaping,
 * Java value-to-string rules) and new file names.  Rules are in paths.h.
 *
 * Value-to-string steps for a partition field:
 *   legacy (Java toString of the internal value):
 *     BOOLEAN true/false; integers and DATE/TIME as decimal numbers;
 *     FLOAT/DOUBLE via Float/Double.toString; DECIMAL BigDecimal.toPlainString;
 *     TIMESTAMP(_LTZ) LocalDateTime.toString (UTC, no zone shift);
 *     strings as their bytes; BINARY unsupported.
 *   non-legacy (CAST to STRING, Paimon DateTimeUtils):
 *     DATE yyyy-MM-dd (Julian-day arithmetic of formatDate);
 *     TIME HH:mm:ss[.f] (formatTimestampMillis, digits until the rest is 0);
 *     TIMESTAMP "yyyy-MM-dd HH:mm:ss[.fraction]" with the 9-digit fraction
 *     trimmed of trailing zeros down to the type's precision;
 *     TIMESTAMP_LTZ the same after shifting to the local time zone;
 *     BINARY as its bytes; everything else as for legacy.
 *   Then a blank result (Character.isWhitespace only) → default name.
 */
#include "meta/paths.h"

#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "base/util.h"
#include "types/binary_row.h"

static pm_error *buf_to_str(pm_buf *b, char **out)
{
    const char *s;
    pm_error *e = pm_buf_cstr(b, &s);
    if (e) {
        pm_buf_free(b);
        return e;
    }
    *out = (char *)pm_buf_detach(b, NULL);
    return NULL;
}

static pm_error *sprintf_str(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static pm_error *sprintf_str(char **out, const char *fmt, ...)
{
    *out = NULL;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    if (!s)
        return pm_oom();
    *out = s;
    return NULL;
}

pm_error *pm_branch_root(const char *table_root, const char *branch, char **out)
{
    if (!branch || strcmp(branch, PM_MAIN_BRANCH) == 0)
        return pm_strdup(out, table_root);
    if (!*branch)
        return pm_error_new(PM_EINVALID, "branch name must not be empty");
    return sprintf_str(out, "%s/branch/branch-%s", table_root, branch);
}

pm_error *pm_snapshot_file_path(const char *branch_root, int64_t id, char **out)
{
    return sprintf_str(out, "%s/snapshot/snapshot-%" PRId64, branch_root, id);
}

pm_error *pm_schema_file_path(const char *branch_root, int64_t id, char **out)
{
    return sprintf_str(out, "%s/schema/schema-%" PRId64, branch_root, id);
}

/* ------------------------------------------------------------------ */
/* escaping                                                             */
/* ------------------------------------------------------------------ */

static bool needs_escape(unsigned char c)
{
    if (c < 0x20 || c == 0x7f)
        return true;
    return c < 0x80 && strchr("\"#%'*/:=?\\{}[]^", (char)c) != NULL;
}

pm_error *pm_partition_escape(pm_buf *out, const char *s, size_t n)
{
    static const char HEX[] = "0123456789ABCDEF";
    if (n == 0)
        return pm_error_new(PM_EINVALID, "partition path component must not be empty");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (needs_escape(c)) {
            char e[3] = {'%', HEX[c >> 4], HEX[c & 15]};
            PM_TRY(pm_buf_append(out, e, 3));
        } else {
            PM_TRY(pm_buf_append_byte(out, c));
        }
    }
    return NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

pm_error *pm_partition_unescape(pm_buf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* Java: '%' followed by at least two more chars (i + 2 < length) */
        if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            PM_TRY(pm_buf_append_byte(out, (uint8_t)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]))));
            i += 2;
            continue;
        }
        PM_TRY(pm_buf_append_byte(out, (uint8_t)s[i]));
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Java number formatting                                               */
/* ------------------------------------------------------------------ */

/* Format shortest digits `dig` (no leading zeros) with decimal exponent x
 * (value = d.ddd × 10^x) the way Java's Double/Float.toString does. */
static pm_error *java_fp_layout(bool neg, const char *dig, size_t n, int x, pm_buf *out)
{
    if (neg)
        PM_TRY(pm_buf_append_byte(out, '-'));
    if (x >= -3 && x < 7) {
        if (x >= 0) {
            for (int i = 0; i <= x; i++)
                PM_TRY(pm_buf_append_byte(out, (size_t)i < n ? (uint8_t)dig[i] : '0'));
            PM_TRY(pm_buf_append_byte(out, '.'));
            if ((size_t)x + 1 < n)
                PM_TRY(pm_buf_append(out, dig + x + 1, n - (size_t)x - 1));
            else
                PM_TRY(pm_buf_append_byte(out, '0'));
        } else {
            PM_TRY(pm_buf_append_str(out, "0."));
            for (int i = 0; i < -x - 1; i++)
                PM_TRY(pm_buf_append_byte(out, '0'));
            PM_TRY(pm_buf_append(out, dig, n));
        }
        return NULL;
    }
    PM_TRY(pm_buf_append_byte(out, (uint8_t)dig[0]));
    PM_TRY(pm_buf_append_byte(out, '.'));
    if (n > 1)
        PM_TRY(pm_buf_append(out, dig + 1, n - 1));
    else
        PM_TRY(pm_buf_append_byte(out, '0'));
    return pm_buf_printf(out, "E%d", x);
}

/* Shortest digits that round-trip through strtod/strtof, as Java 19+
 * Double/Float.toString choose them: among decimals that round to the value
 * take the shortest length, but never fewer than 2 digits (then the closest
 * one, which %.*e gives).  Trailing zeros are dropped afterwards. */
static pm_error *java_fp(double d, bool is_float, pm_buf *out)
{
    if (isnan(d))
        return pm_buf_append_str(out, "NaN");
    if (isinf(d))
        return pm_buf_append_str(out, d < 0 ? "-Infinity" : "Infinity");
    if (d == 0)
        return pm_buf_append_str(out, signbit(d) ? "-0.0" : "0.0");
    bool neg = d < 0;
    double a = fabs(d);
    char tmp[64];
    int maxp = is_float ? 9 : 17;
    for (int p = 2; p <= maxp; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, a);
        bool same = is_float ? strtof(tmp, NULL) == (float)a : strtod(tmp, NULL) == a;
        if (same || p == maxp)
            break;
    }
    /* tmp = "D.DDDDe[+-]XX" */
    char dig[32];
    size_t n = 0;
    const char *p = tmp;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            dig[n++] = *p;
    int x = atoi(p + 1);
    while (n > 1 && dig[n - 1] == '0')
        n--;
    return java_fp_layout(neg, dig, n, x, out);
}

pm_error *pm_java_double_to_string(double d, pm_buf *out) { return java_fp(d, false, out); }
pm_error *pm_java_float_to_string(float f, pm_buf *out) { return java_fp((double)f, true, out); }

static pm_error *decimal_plain(__int128 v, int32_t scale, pm_buf *out)
{
    char digits[48];
    size_t n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (neg)
        PM_TRY(pm_buf_append_byte(out, '-'));
    if (scale <= 0) {
        for (size_t i = n; i > 0; i--)
            PM_TRY(pm_buf_append_byte(out, (uint8_t)digits[i - 1]));
        for (int32_t i = 0; i < -scale; i++)
            PM_TRY(pm_buf_append_byte(out, '0'));
        return NULL;
    }
    size_t s = (size_t)scale;
    if (n <= s) {
        PM_TRY(pm_buf_append_str(out, "0."));
        for (size_t i = n; i < s; i++)
            PM_TRY(pm_buf_append_byte(out, '0'));
        for (size_t i = n; i > 0; i--)
            PM_TRY(pm_buf_append_byte(out, (uint8_t)digits[i - 1]));
        return NULL;
    }
    for (size_t i = n; i > 0; i--) {
        PM_TRY(pm_buf_append_byte(out, (uint8_t)digits[i - 1]));
        if (i - 1 == s)
            PM_TRY(pm_buf_append_byte(out, '.'));
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* dates and times                                                      */
/* ------------------------------------------------------------------ */

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* Proleptic Gregorian date of an epoch day (H. Hinnant's civil_from_days). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* Java LocalDate.toString year: 4+ digits, sign for negatives, '+' above 9999. */
static pm_error *java_year(int64_t y, pm_buf *out)
{
    int64_t a = y < 0 ? -y : y;
    if (a < 1000)
        return pm_buf_printf(out, "%s%04" PRId64, y < 0 ? "-" : "", a);
    return pm_buf_printf(out, "%s%" PRId64, y > 9999 ? "+" : "", y);
}

typedef struct ldt {
    int64_t year;
    int month, day, hour, minute, second;
    int32_t nano;
} ldt;

static void to_ldt(int64_t millis, int32_t nanos, ldt *t)
{
    int64_t day = floor_div(millis, 86400000);
    int64_t ms = millis - day * 86400000;
    civil_from_days(day, &t->year, &t->month, &t->day);
    t->hour = (int)(ms / 3600000);
    t->minute = (int)(ms / 60000 % 60);
    t->second = (int)(ms / 1000 % 60);
    t->nano = (int32_t)(ms % 1000) * 1000000 + nanos;
}

pm_error *pm_java_local_datetime_to_string(int64_t millis, int32_t nanos, pm_buf *out)
{
    ldt t;
    to_ldt(millis, nanos, &t);
    PM_TRY(java_year(t.year, out));
    PM_TRY(pm_buf_printf(out, "-%02d-%02dT%02d:%02d", t.month, t.day, t.hour, t.minute));
    if (t.second > 0 || t.nano > 0) {
        PM_TRY(pm_buf_printf(out, ":%02d", t.second));
        if (t.nano > 0) {
            if (t.nano % 1000000 == 0)
                PM_TRY(pm_buf_printf(out, ".%03d", (int)(t.nano / 1000000)));
            else if (t.nano % 1000 == 0)
                PM_TRY(pm_buf_printf(out, ".%06d", (int)(t.nano / 1000)));
            else
                PM_TRY(pm_buf_printf(out, ".%09d", (int)t.nano));
        }
    }
    return NULL;
}

/* Paimon DateTimeUtils.int4/int2 (digit arithmetic as written in Java). */
static pm_error *int_digits(int64_t i, int width, pm_buf *out)
{
    static const int64_t pow10[] = {1, 10, 100, 1000};
    for (int k = width - 1; k >= 0; k--)
        PM_TRY(pm_buf_append_byte(out, (uint8_t)('0' + (int)((i / pow10[k]) % 10))));
    return NULL;
}

/* DateTimeUtils.formatDate via julianToString. */
static pm_error *cast_date(int32_t date, pm_buf *out)
{
    int32_t julian = date + 2440588;
    int32_t j = julian + 32044;
    int32_t g = j / 146097;
    int32_t dg = j % 146097;
    int32_t c = (dg / 36524 + 1) * 3 / 4;
    int32_t dc = dg - c * 36524;
    int32_t b = dc / 1461;
    int32_t db = dc % 1461;
    int32_t a = (db / 365 + 1) * 3 / 4;
    int32_t da = db - a * 365;
    int32_t y = g * 400 + c * 100 + b * 4 + a;
    int32_t m = (da * 5 + 308) / 153 - 2;
    int32_t d = da - (m + 4) * 153 / 5 + 122;
    int32_t year = y - 4800 + (m + 2) / 12;
    int32_t month = (m + 2) % 12 + 1;
    int32_t day = d + 1;
    PM_TRY(int_digits(year, 4, out));
    PM_TRY(pm_buf_append_byte(out, '-'));
    PM_TRY(int_digits(month, 2, out));
    PM_TRY(pm_buf_append_byte(out, '-'));
    return int_digits(day, 2, out);
}

/* DateTimeUtils.formatTimestampMillis(time, precision) for TIME. */
static pm_error *cast_time(int32_t time, int32_t precision, pm_buf *out)
{
    int64_t t = time;
    while (t < 0)
        t += 86400000;
    int32_t h = (int32_t)(t / 3600000);
    int32_t t2 = (int32_t)(t % 3600000);
    int32_t m = t2 / 60000;
    int32_t t3 = t2 % 60000;
    int32_t s = t3 / 1000;
    int32_t ms = t3 % 1000;
    PM_TRY(int_digits(h, 2, out));
    PM_TRY(pm_buf_append_byte(out, ':'));
    PM_TRY(int_digits(m, 2, out));
    PM_TRY(pm_buf_append_byte(out, ':'));
    PM_TRY(int_digits(s, 2, out));
    if (precision > 0) {
        PM_TRY(pm_buf_append_byte(out, '.'));
        while (precision > 0) {
            PM_TRY(pm_buf_append_byte(out, (uint8_t)('0' + ms / 100)));
            ms = ms % 100 * 10;
            if (ms == 0)
                break;
            --precision;
        }
    }
    return NULL;
}

/* DateTimeUtils.formatTimestamp(ts, precision). */
static pm_error *cast_timestamp(int64_t millis, int32_t nanos, int32_t precision, pm_buf *out)
{
    ldt t;
    to_ldt(millis, nanos, &t);
    char frac[10];
    snprintf(frac, sizeof frac, "%09d", (int)t.nano);
    int flen = 9;
    while (flen > precision && frac[flen - 1] == '0')
        flen--;
    PM_TRY(int_digits(t.year, 4, out));
    PM_TRY(pm_buf_append_byte(out, '-'));
    PM_TRY(int_digits(t.month, 2, out));
    PM_TRY(pm_buf_append_byte(out, '-'));
    PM_TRY(int_digits(t.day, 2, out));
    PM_TRY(pm_buf_append_byte(out, ' '));
    PM_TRY(int_digits(t.hour, 2, out));
    PM_TRY(pm_buf_append_byte(out, ':'));
    PM_TRY(int_digits(t.minute, 2, out));
    PM_TRY(pm_buf_append_byte(out, ':'));
    PM_TRY(int_digits(t.second, 2, out));
    if (flen > 0) {
        PM_TRY(pm_buf_append_byte(out, '.'));
        PM_TRY(pm_buf_append(out, frac, (size_t)flen));
    }
    return NULL;
}

/* Offset of the local time zone at an instant, in milliseconds. */
static int64_t local_offset_ms(int64_t millis)
{
    time_t secs = (time_t)floor_div(millis, 1000);
    struct tm tm;
    if (!localtime_r(&secs, &tm))
        return 0;
    return (int64_t)tm.tm_gmtoff * 1000;
}

pm_error *pm_partition_value_to_string(const pm_type *type, const pm_part_value *v, bool legacy,
                                       pm_buf *out)
{
    switch (type->id) {
    case PM_TYPE_BOOLEAN:
        return pm_buf_append_str(out, v->v.b ? "true" : "false");
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT:
        return pm_buf_printf(out, "%" PRId64, v->v.i);
    case PM_TYPE_DATE:
        if (legacy)
            return pm_buf_printf(out, "%" PRId64, v->v.i);
        return cast_date((int32_t)v->v.i, out);
    case PM_TYPE_TIME:
        if (legacy)
            return pm_buf_printf(out, "%" PRId64, v->v.i);
        return cast_time((int32_t)v->v.i, type->precision, out);
    case PM_TYPE_FLOAT:
        return pm_java_float_to_string(v->v.f, out);
    case PM_TYPE_DOUBLE:
        return pm_java_double_to_string(v->v.d, out);
    case PM_TYPE_DECIMAL:
        return decimal_plain(v->v.dec, type->scale, out);
    case PM_TYPE_TIMESTAMP:
        if (legacy)
            return pm_java_local_datetime_to_string(v->v.ts.millis, v->v.ts.nanos, out);
        return cast_timestamp(v->v.ts.millis, v->v.ts.nanos, type->precision, out);
    case PM_TYPE_TIMESTAMP_LTZ:
        if (legacy)
            return pm_java_local_datetime_to_string(v->v.ts.millis, v->v.ts.nanos, out);
        return cast_timestamp(v->v.ts.millis + local_offset_ms(v->v.ts.millis), v->v.ts.nanos,
                              type->precision, out);
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        return pm_buf_append(out, v->v.bytes.p, v->v.bytes.n);
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
        if (legacy)
            return pm_error_new(PM_EUNSUPPORTED,
                                "binary partition field with partition.legacy-name=true (Java "
                                "names the directory after an object identity)");
        return pm_buf_append(out, v->v.bytes.p, v->v.bytes.n);
    case PM_TYPE_ARRAY:
        return pm_error_new(PM_EUNSUPPORTED, "partition field of type ARRAY");
    case PM_TYPE_MAP:
        return pm_error_new(PM_EUNSUPPORTED, "partition field of type MAP");
    case PM_TYPE_MULTISET:
        return pm_error_new(PM_EUNSUPPORTED, "partition field of type MULTISET");
    case PM_TYPE_ROW:
        return pm_error_new(PM_EUNSUPPORTED, "partition field of type ROW");
    case PM_TYPE_VARIANT:
        return pm_error_new(PM_EUNSUPPORTED, "partition field of type VARIANT");
    case PM_TYPE_BLOB:
        return pm_error_new(PM_EUNSUPPORTED, "partition field of type BLOB");
    }
    return pm_error_new(PM_EINVALID, "partition field has an unknown type id %d", (int)type->id);
}

/* Decode one UTF-8 code point (invalid bytes decode as themselves). */
static uint32_t utf8_next(const uint8_t *s, size_t n, size_t *i)
{
    uint8_t c = s[*i];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (*i + (size_t)len > n)
        len = 1;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
    for (int k = 1; k < len; k++)
        cp = cp << 6 | (s[*i + (size_t)k] & 0x3fu);
    *i += (size_t)len;
    return cp;
}

/* Java Character.isWhitespace. */
static bool java_whitespace(uint32_t c)
{
    if ((c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x20))
        return true;
    if (c == 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a) ||
        c == 0x2028 || c == 0x2029 || c == 0x205f || c == 0x3000)
        return true;
    return false;
}

static bool is_blank(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n)
        if (!java_whitespace(utf8_next(s, n, &i)))
            return false;
    return true;
}

pm_error *pm_partition_path(const pm_type *row_type, const pm_part_value *values,
                            const char *default_name, bool legacy, pm_buf *out)
{
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "partition type must be a ROW");
    pm_buf val = PM_BUF_INIT;
    pm_error *e = NULL;
    for (size_t i = 0; i < row_type->nfields; i++) {
        const pm_field *f = &row_type->fields[i];
        pm_buf_clear(&val);
        if (!values[i].is_null) {
            e = pm_partition_value_to_string(f->type, &values[i], legacy, &val);
            if (e) {
                e = pm_error_wrap(e, 0, "partition field '%s'", f->name);
                break;
            }
        }
        const char *vs = (const char *)val.data;
        size_t vn = val.len;
        if (values[i].is_null || is_blank(val.data, val.len)) {
            vs = default_name;
            vn = strlen(default_name);
        }
        PM_TRY_GOTO(e, pm_partition_escape(out, f->name, strlen(f->name)), done);
        PM_TRY_GOTO(e, pm_buf_append_byte(out, '='), done);
        e = pm_partition_escape(out, vs, vn);
        if (e) {
            e = pm_error_wrap(e, 0, "partition field '%s'", f->name);
            break;
        }
        PM_TRY_GOTO(e, pm_buf_append_byte(out, '/'), done);
    }
done:
    pm_buf_free(&val);
    return e;
}

/* Field i of a BinaryRow as a partition value (strings borrow the row). */
static pm_error *binrow_value(const pm_binrow *r, int32_t i, const pm_type *t, pm_part_value *v)
{
    memset(v, 0, sizeof *v);
    if (pm_binrow_is_null(r, i)) {
        v->is_null = true;
        return NULL;
    }
    switch (t->id) {
    case PM_TYPE_BOOLEAN: v->v.b = pm_binrow_bool(r, i); return NULL;
    case PM_TYPE_TINYINT: v->v.i = pm_binrow_i8(r, i); return NULL;
    case PM_TYPE_SMALLINT: v->v.i = pm_binrow_i16(r, i); return NULL;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: v->v.i = pm_binrow_i32(r, i); return NULL;
    case PM_TYPE_BIGINT: v->v.i = pm_binrow_i64(r, i); return NULL;
    case PM_TYPE_FLOAT: v->v.f = pm_binrow_f32(r, i); return NULL;
    case PM_TYPE_DOUBLE: v->v.d = pm_binrow_f64(r, i); return NULL;
    case PM_TYPE_DECIMAL: return pm_binrow_decimal(r, i, t->precision, &v->v.dec);
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return pm_binrow_timestamp(r, i, t->precision, &v->v.ts.millis, &v->v.ts.nanos);
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
        return pm_binrow_bytes(r, i, &v->v.bytes.p, &v->v.bytes.n);
    default:
        return NULL; /* rejected by pm_partition_value_to_string */
    }
}

pm_error *pm_partition_path_binrow(const pm_type *row_type, const uint8_t *row, size_t len,
                                   const char *default_name, bool legacy, pm_buf *out)
{
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "partition type must be a ROW");
    pm_binrow r;
    PM_TRY(pm_binrow_deserialize(&r, row, len, (int32_t)row_type->nfields));
    if (!row_type->nfields)
        return NULL;
    pm_part_value *vals;
    PM_TRY(pm_calloc(&vals, row_type->nfields, sizeof *vals));
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < row_type->nfields; i++) {
        e = binrow_value(&r, (int32_t)i, row_type->fields[i].type, &vals[i]);
        if (e)
            e = pm_error_wrap(e, 0, "partition field '%s'", row_type->fields[i].name);
    }
    if (!e)
        e = pm_partition_path(row_type, vals, default_name, legacy, out);
    free(vals);
    return e;
}

pm_error *pm_bucket_dir_name(int32_t bucket, pm_buf *out)
{
    if (bucket == PM_BUCKET_POSTPONE)
        return pm_buf_append_str(out, "bucket-postpone");
    return pm_buf_printf(out, "bucket-%d", (int)bucket);
}

/* ------------------------------------------------------------------ */
/* path factory                                                         */
/* ------------------------------------------------------------------ */

struct pm_path_factory {
    char *root;
    char uuid[37];
    const pm_type *partition_type;
    char *default_name;
    bool legacy;
    char *data_dir;       /* data-file.path-directory or NULL */
    bool index_in_data_dir;
    bool external_paths;  /* writing to external paths requested */
    atomic_int manifest_count;
    atomic_int manifest_list_count;
    atomic_int index_manifest_count;
    atomic_int index_file_count;
    atomic_int stats_count;
};

void pm_path_factory_free(pm_path_factory *pf)
{
    if (!pf)
        return;
    free(pf->root);
    free(pf->default_name);
    free(pf->data_dir);
    free(pf);
}

pm_error *pm_path_factory_new(pm_path_factory **out, const char *table_root,
                              const pm_type *partition_type, const pm_options *options)
{
    *out = NULL;
    if (partition_type && partition_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "partition type must be a ROW");
    pm_path_factory *pf;
    PM_TRY(pm_calloc(&pf, 1, sizeof *pf));
    pm_error *e = NULL;
    const char *s;
    PM_TRY_GOTO(e, pm_strdup(&pf->root, table_root), fail);
    PM_TRY_GOTO(e, pm_uuid(pf->uuid), fail);
    pf->partition_type = partition_type;
    PM_TRY_GOTO(e, pm_options_string(options, PM_OPT_PARTITION_DEFAULT_NAME, &s), fail);
    PM_TRY_GOTO(e, pm_strdup(&pf->default_name, s), fail);
    PM_TRY_GOTO(e, pm_options_bool(options, PM_OPT_PARTITION_LEGACY_NAME, &pf->legacy), fail);
    PM_TRY_GOTO(e, pm_options_string(options, PM_OPT_DATA_FILE_PATH_DIRECTORY, &s), fail);
    PM_TRY_GOTO(e, pm_strdup(&pf->data_dir, s), fail);
    PM_TRY_GOTO(e, pm_options_bool(options, PM_OPT_INDEX_FILE_IN_DATA_FILE_DIR, &pf->index_in_data_dir), fail);
    int strategy;
    PM_TRY_GOTO(e, pm_options_enum(options, PM_OPT_DATA_FILE_EXTERNAL_PATHS_STRATEGY, &strategy), fail);
    PM_TRY_GOTO(e, pm_options_string(options, PM_OPT_DATA_FILE_EXTERNAL_PATHS, &s), fail);
    pf->external_paths = strategy != PM_EXT_PATH_NONE && s && *s;
    *out = pf;
    return NULL;
fail:
    pm_path_factory_free(pf);
    return e;
}

const char *pm_path_factory_root(const pm_path_factory *pf) { return pf->root; }
const char *pm_path_factory_uuid(const pm_path_factory *pf) { return pf->uuid; }
bool pm_path_factory_index_in_data_dir(const pm_path_factory *pf) { return pf->index_in_data_dir; }

pm_error *pm_path_factory_check_writable(const pm_path_factory *pf)
{
    if (pf->external_paths)
        return pm_error_new(PM_EUNSUPPORTED, "writing data files to data-file.external-paths "
                            "(data-file.external-paths.strategy is not none)");
    return NULL;
}

pm_error *pm_path_factory_relative_bucket_path(pm_path_factory *pf, const pm_part_value *partition,
                                               int32_t bucket, char **out)
{
    *out = NULL;
    pm_buf b = PM_BUF_INIT;
    pm_error *e = NULL;
    if (pf->data_dir) {
        PM_TRY_GOTO(e, pm_buf_append_str(&b, pf->data_dir), fail);
        PM_TRY_GOTO(e, pm_buf_append_byte(&b, '/'), fail);
    }
    if (pf->partition_type && pf->partition_type->nfields)
        PM_TRY_GOTO(e, pm_partition_path(pf->partition_type, partition, pf->default_name, pf->legacy,
                                         &b), fail);
    PM_TRY_GOTO(e, pm_bucket_dir_name(bucket, &b), fail);
    return buf_to_str(&b, out);
fail:
    pm_buf_free(&b);
    return e;
}

pm_error *pm_path_factory_bucket_path(pm_path_factory *pf, const pm_part_value *partition,
                                      int32_t bucket, char **out)
{
    char *rel;
    PM_TRY(pm_path_factory_relative_bucket_path(pf, partition, bucket, &rel));
    pm_error *e = sprintf_str(out, "%s/%s", pf->root, rel);
    free(rel);
    return e;
}

pm_error *pm_path_factory_bucket_path_binrow(pm_path_factory *pf, const uint8_t *row, size_t len,
                                             int32_t bucket, char **out)
{
    *out = NULL;
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_buf_printf(&b, "%s/", pf->root);
    if (!e && pf->data_dir)
        e = pm_buf_printf(&b, "%s/", pf->data_dir);
    if (!e && pf->partition_type)
        e = pm_partition_path_binrow(pf->partition_type, row, len, pf->default_name, pf->legacy, &b);
    if (!e)
        e = pm_bucket_dir_name(bucket, &b);
    if (e) {
        pm_buf_free(&b);
        return e;
    }
    return buf_to_str(&b, out);
}

pm_error *pm_path_factory_new_manifest_name(pm_path_factory *pf, char **out)
{
    return sprintf_str(out, "manifest-%s-%d", pf->uuid, atomic_fetch_add(&pf->manifest_count, 1));
}

pm_error *pm_path_factory_new_manifest_list_name(pm_path_factory *pf, char **out)
{
    return sprintf_str(out, "manifest-list-%s-%d", pf->uuid,
                       atomic_fetch_add(&pf->manifest_list_count, 1));
}

pm_error *pm_path_factory_new_index_manifest_name(pm_path_factory *pf, char **out)
{
    return sprintf_str(out, "index-manifest-%s-%d", pf->uuid,
                       atomic_fetch_add(&pf->index_manifest_count, 1));
}

pm_error *pm_path_factory_new_index_file_name(pm_path_factory *pf, char **out)
{
    return sprintf_str(out, "index-%s-%d", pf->uuid, atomic_fetch_add(&pf->index_file_count, 1));
}

pm_error *pm_path_factory_new_stats_file_name(pm_path_factory *pf, char **out)
{
    return sprintf_str(out, "stat-%s-%d", pf->uuid, atomic_fetch_add(&pf->stats_count, 1));
}

pm_error *pm_path_factory_manifest_path(const pm_path_factory *pf, const char *name, char **out)
{
    return sprintf_str(out, "%s/manifest/%s", pf->root, name);
}

pm_error *pm_path_factory_index_path(const pm_path_factory *pf, const char *name, char **out)
{
    return sprintf_str(out, "%s/index/%s", pf->root, name);
}

pm_error *pm_path_factory_stats_path(const pm_path_factory *pf, const char *name, char **out)
{
    return sprintf_str(out, "%s/statistics/%s", pf->root, name);
}

/* ------------------------------------------------------------------ */
/* data file names                                                      */
/* ------------------------------------------------------------------ */

static bool ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a, y = *b;
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return false;
    }
    return *a == *b;
}

/* HadoopCompressionType file extension, or the compression name itself; NULL for none/empty. */
static const char *compress_extension(const char *compression)
{
    if (!compression || !*compression)
        return NULL;
    static const char *const map[][2] = {{"none", NULL},      {"gzip", "gz"},     {"bzip2", "bz2"},
                                         {"deflate", "deflate"}, {"snappy", "snappy"}, {"lz4", "lz4"},
                                         {"zstd", "zst"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (ieq(compression, map[i][0]))
            return map[i][1];
    return compression;
}

pm_error *pm_data_file_extension(const char *format, const char *compression,
                                 bool suffix_include_compression, char **out)
{
    const char *cext = compress_extension(compression);
    bool text = ieq(format, "json") || ieq(format, "csv");
    if (cext && text)
        return sprintf_str(out, ".%s.%s", format, cext);
    if (cext && suffix_include_compression)
        return sprintf_str(out, ".%s.%s", cext, format);
    return sprintf_str(out, ".%s", format);
}

void pm_data_file_namer_destroy(pm_data_file_namer *n)
{
    if (!n)
        return;
    free(n->data_prefix);
    free(n->changelog_prefix);
    free(n->ext);
    n->data_prefix = n->changelog_prefix = n->ext = NULL;
}

pm_error *pm_data_file_namer_init(pm_data_file_namer *n, const pm_options *options,
                                  const char *format, const char *compression)
{
    memset(n, 0, sizeof *n);
    atomic_init(&n->count, 0);
    pm_error *e = NULL;
    const char *s;
    bool include;
    PM_TRY_GOTO(e, pm_uuid(n->uuid), fail);
    PM_TRY_GOTO(e, pm_options_string(options, PM_OPT_DATA_FILE_PREFIX, &s), fail);
    PM_TRY_GOTO(e, pm_strdup(&n->data_prefix, s), fail);
    PM_TRY_GOTO(e, pm_options_string(options, PM_OPT_CHANGELOG_FILE_PREFIX, &s), fail);
    PM_TRY_GOTO(e, pm_strdup(&n->changelog_prefix, s), fail);
    PM_TRY_GOTO(e, pm_options_bool(options, PM_OPT_FILE_SUFFIX_INCLUDE_COMPRESSION, &include), fail);
    PM_TRY_GOTO(e, pm_data_file_extension(format, compression, include, &n->ext), fail);
    return NULL;
fail:
    pm_data_file_namer_destroy(n);
    return e;
}

pm_error *pm_data_file_namer_next_data(pm_data_file_namer *n, char **out)
{
    return sprintf_str(out, "%s%s-%d%s", n->data_prefix, n->uuid, atomic_fetch_add(&n->count, 1), n->ext);
}

pm_error *pm_data_file_namer_next_changelog(pm_data_file_namer *n, char **out)
{
    return sprintf_str(out, "%s%s-%d%s", n->changelog_prefix, n->uuid, atomic_fetch_add(&n->count, 1),
                       n->ext);
}

pm_error *pm_data_file_namer_next_blob(pm_data_file_namer *n, char **out)
{
    return sprintf_str(out, "%s%s-%d.blob", n->data_prefix, n->uuid, atomic_fetch_add(&n->count, 1));
}

pm_error *pm_data_file_index_name(const char *data_file_name, char **out)
{
    return sprintf_str(out, "%s.index", data_file_name);
}
