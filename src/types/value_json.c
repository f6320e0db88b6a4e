/*
 * types/value_json.c — JSON text of column values, the encoding `paimon cat`
 * prints (see value.h for the per-type rules).
 *
 * Floating point: the shortest decimal that reads back as the same value:
 * print 15 significant digits (6 for FLOAT) with "%.*e"; if that reads back
 * (strtod/strtof) as the same value, drop trailing zeros (every decimal of
 * at most 15 digits survives a trip through a double, so this is the
 * shortest); else try 16, then 17 digits (9 for FLOAT).  Subnormals have
 * fewer significant bits, so for them every digit count from 1 is tried.  The digits are
 * then laid out like
 * Python's repr: fixed notation with at least one fraction digit for
 * decimal exponents -4..15, otherwise d.ddde±XX.  Strings are written as
 * JSON strings with ", \ and control characters escaped; valid UTF-8 is
 * kept, invalid bytes become U+FFFD.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "types/column.h"
#include "types/temporal.h"
#include "types/value.h"

/* ------------------------------------------------------------------ */
/* Numbers                                                             */

static pm_error *layout_digits(pm_buf *out, bool neg, const char *dig, int nd, int exp)
{
    char buf[64];
    size_t k = 0;
    if (neg)
        buf[k++] = '-';
    if (exp >= -4 && exp < 16) {
        int point = exp + 1; /* digits before the decimal point */
        if (point <= 0) {
            buf[k++] = '0';
            buf[k++] = '.';
            for (int i = 0; i < -point; i++)
                buf[k++] = '0';
            memcpy(buf + k, dig, (size_t)nd);
            k += (size_t)nd;
        } else if (point >= nd) {
            memcpy(buf + k, dig, (size_t)nd);
            k += (size_t)nd;
            for (int i = nd; i < point; i++)
                buf[k++] = '0';
            buf[k++] = '.';
            buf[k++] = '0';
        } else {
            memcpy(buf + k, dig, (size_t)point);
            k += (size_t)point;
            buf[k++] = '.';
            memcpy(buf + k, dig + point, (size_t)(nd - point));
            k += (size_t)(nd - point);
        }
    } else {
        buf[k++] = dig[0];
        if (nd > 1) {
            buf[k++] = '.';
            memcpy(buf + k, dig + 1, (size_t)(nd - 1));
            k += (size_t)(nd - 1);
        }
        k += (size_t)snprintf(buf + k, sizeof buf - k, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
    return pm_buf_append(out, buf, k);
}

/* Split "d.ddde±x" into significant digits (trailing zeros dropped) and exponent. */
static void split_sci(const char *s, char *dig, int *nd, int *exp)
{
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            dig[n++] = *s;
    while (n > 1 && dig[n - 1] == '0')
        n--;
    *nd = n;
    *exp = *s == 'e' ? atoi(s + 1) : 0;
}

pm_error *pm_format_double(pm_buf *out, double v)
{
    if (!isfinite(v))
        return pm_error_new(PM_EINVALID, "pm_format_double: not a finite value");
    bool neg = signbit(v);
    double a = fabs(v);
    /* Any decimal of <= 15 significant digits survives decimal -> double ->
     * 15 digits, so when 15 digits round-trip, dropping trailing zeros gives
     * the shortest form; otherwise 16, else 17 digits. */
    char sci[40];
    for (int p = a < DBL_MIN ? 1 : 15; p <= 17; p++) { /* subnormals carry fewer digits: search all */
        snprintf(sci, sizeof sci, "%.*e", p - 1, a);
        if (strtod(sci, NULL) == a)
            break;
    }
    char dig[40];
    int nd, exp;
    split_sci(sci, dig, &nd, &exp);
    return layout_digits(out, neg, dig, nd, exp);
}

pm_error *pm_format_float(pm_buf *out, float v)
{
    if (!isfinite(v))
        return pm_error_new(PM_EINVALID, "pm_format_float: not a finite value");
    bool neg = signbit(v);
    float a = fabsf(v);
    /* same argument with 6 digits, which every float keeps */
    char sci[40];
    for (int p = a < FLT_MIN ? 1 : 6; p <= 9; p++) {
        snprintf(sci, sizeof sci, "%.*e", p - 1, (double)a);
        if (strtof(sci, NULL) == a)
            break;
    }
    char dig[40];
    int nd, exp;
    split_sci(sci, dig, &nd, &exp);
    return layout_digits(out, neg, dig, nd, exp);
}

pm_error *pm_decimal_format(pm_buf *out, __int128 v, int32_t scale)
{
    char tmp[64];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale)
        tmp[n++] = '0'; /* at least one digit before the point */
    char buf[72];
    size_t k = 0;
    if (neg)
        buf[k++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        buf[k++] = tmp[i];
        if (i == scale && scale > 0)
            buf[k++] = '.';
    }
    return pm_buf_append(out, buf, k);
}

static pm_error *put_int(pm_buf *out, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[n++] = '-';
    PM_TRY(pm_buf_reserve(out, (size_t)n));
    while (n)
        out->data[out->len++] = (uint8_t)tmp[--n];
    return NULL;
}

static pm_error *float_json(pm_buf *out, double v, bool is_float)
{
    if (isnan(v))
        return pm_buf_append_str(out, "\"NaN\"");
    if (isinf(v))
        return pm_buf_append_str(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return is_float ? pm_format_float(out, (float)v) : pm_format_double(out, v);
}

/* ------------------------------------------------------------------ */
/* Strings                                                             */

/* Length of the valid UTF-8 sequence at p (0 when invalid). */
static size_t utf8_len(const uint8_t *p, size_t left)
{
    uint8_t c = p[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
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

static pm_error *put_json_string(pm_buf *out, const uint8_t *s, size_t n)
{
    PM_TRY(pm_buf_reserve(out, n + 2));
    PM_TRY(pm_buf_append_byte(out, '"'));
    size_t run = 0; /* start of the pending run of bytes copied verbatim */
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        const char *esc = NULL;
        char ubuf[8];
        size_t len = 1;
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c == '\b')
            esc = "\\b";
        else if (c == '\f')
            esc = "\\f";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(ubuf, sizeof ubuf, "\\u%04x", c);
            esc = ubuf;
        } else if (c >= 0x80) {
            len = utf8_len(s + i, n - i);
            if (len == 0) {
                esc = "\xef\xbf\xbd"; /* U+FFFD */
                len = 1;
            }
        }
        if (esc) {
            PM_TRY(pm_buf_append(out, s + run, i - run));
            PM_TRY(pm_buf_append_str(out, esc));
            run = i + len;
        }
        i += len;
    }
    PM_TRY(pm_buf_append(out, s + run, n - run));
    return pm_buf_append_byte(out, '"');
}

static pm_error *base64_json(pm_buf *out, const uint8_t *p, size_t n)
{
    PM_TRY(pm_buf_append_byte(out, '"'));
    PM_TRY(pm_base64_encode(out, p, n));
    return pm_buf_append_byte(out, '"');
}

/* ------------------------------------------------------------------ */
/* Values                                                              */

pm_error *pm_column_format_json(const pm_column *c, int64_t row, pm_buf *out)
{
    if (row < 0 || row >= c->length)
        return pm_error_new(PM_EINVALID, "row %lld out of range (length %lld)", (long long)row,
                            (long long)c->length);
    if (pm_column_is_null(c, row))
        return pm_buf_append_str(out, "null");
    const pm_type *t = c->type;
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        return pm_buf_append_str(out, pm_column_bool(c, row) ? "true" : "false");
    case PM_TYPE_TINYINT:
        return put_int(out, pm_column_i8(c, row));
    case PM_TYPE_SMALLINT:
        return put_int(out, pm_column_i16(c, row));
    case PM_TYPE_INT:
        return put_int(out, pm_column_i32(c, row));
    case PM_TYPE_BIGINT:
        return put_int(out, pm_column_i64(c, row));
    case PM_TYPE_FLOAT:
        return float_json(out, (double)pm_column_f32(c, row), true);
    case PM_TYPE_DOUBLE:
        return float_json(out, pm_column_f64(c, row), false);
    case PM_TYPE_DECIMAL:
        PM_TRY(pm_buf_append_byte(out, '"'));
        PM_TRY(pm_decimal_format(out, pm_column_decimal(c, row), t->scale));
        return pm_buf_append_byte(out, '"');
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        return put_json_string(out, p, n);
    }
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        return base64_json(out, p, n);
    }
    case PM_TYPE_DATE:
        PM_TRY(pm_buf_append_byte(out, '"'));
        PM_TRY(pm_format_date(out, pm_column_i32(c, row)));
        return pm_buf_append_byte(out, '"');
    case PM_TYPE_TIME:
        PM_TRY(pm_buf_append_byte(out, '"'));
        PM_TRY(pm_format_time(out, pm_column_i32(c, row), t->precision));
        return pm_buf_append_byte(out, '"');
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        PM_TRY(pm_buf_append_byte(out, '"'));
        PM_TRY(pm_format_timestamp(out, pm_column_i64(c, row), t->precision, t->id == PM_TYPE_TIMESTAMP_LTZ));
        return pm_buf_append_byte(out, '"');
    case PM_TYPE_ARRAY: {
        const int32_t *o = pm_column_offsets(c);
        PM_TRY(pm_buf_append_byte(out, '['));
        for (int32_t j = o[row]; j < o[row + 1]; j++) {
            if (j > o[row])
                PM_TRY(pm_buf_append_byte(out, ','));
            PM_TRY(pm_column_format_json(c->children[0], j, out));
        }
        return pm_buf_append_byte(out, ']');
    }
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        const int32_t *o = pm_column_offsets(c);
        PM_TRY(pm_buf_append_byte(out, '['));
        for (int32_t j = o[row]; j < o[row + 1]; j++) {
            PM_TRY(pm_buf_append_str(out, j > o[row] ? ",{\"key\":" : "{\"key\":"));
            PM_TRY(pm_column_format_json(c->children[0], j, out));
            PM_TRY(pm_buf_append_str(out, ",\"value\":"));
            PM_TRY(pm_column_format_json(c->children[1], j, out));
            PM_TRY(pm_buf_append_byte(out, '}'));
        }
        return pm_buf_append_byte(out, ']');
    }
    case PM_TYPE_ROW:
        PM_TRY(pm_buf_append_byte(out, '{'));
        for (size_t i = 0; i < c->nchildren; i++) {
            if (i)
                PM_TRY(pm_buf_append_byte(out, ','));
            const char *name = t->fields[i].name;
            PM_TRY(put_json_string(out, (const uint8_t *)name, strlen(name)));
            PM_TRY(pm_buf_append_byte(out, ':'));
            PM_TRY(pm_column_format_json(c->children[i], row, out));
        }
        return pm_buf_append_byte(out, '}');
    default:
        return pm_error_new(PM_EUNSUPPORTED, "JSON output of %s values", pm_type_id_name(t->id));
    }
}

pm_error *pm_batch_format_row_json(const pm_batch *b, int64_t row, pm_buf *out)
{
    PM_TRY(pm_buf_append_byte(out, '{'));
    for (size_t i = 0; i < b->ncolumns; i++) {
        if (i)
            PM_TRY(pm_buf_append_byte(out, ','));
        const char *name = b->type->fields[i].name;
        PM_TRY(put_json_string(out, (const uint8_t *)name, strlen(name)));
        PM_TRY(pm_buf_append_byte(out, ':'));
        PM_TRY(pm_error_wrap(pm_column_format_json(b->columns[i], row, out), 0, "column '%s'", name));
    }
    return pm_buf_append_byte(out, '}');
}
