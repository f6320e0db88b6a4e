/*
 * table/cast.c — column casts for schema evolution (see cast.h).
 *
 * Structure: pm_cast_plan classifies the pair (identity / copy / convert,
 * or unsupported); pm_cast_append runs it.  Copy moves whole buffers for
 * flat columns and uses pm_column_append_from for nested ones.  Convert
 * reads each source value into a small tagged scalar (integer, double,
 * decimal with scale, bytes, date, time, timestamp as millis + nanos of
 * milli) and writes it with the target type's rule; string targets go
 * through `scratch`.  Decimal text and rounding use 128-bit integers:
 * values beyond 38 digits do not fit any DECIMAL and become null, as
 * Java's Decimal.fromBigDecimal returns null on precision overflow.
 */
#include "table/cast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "meta/options.h"
#include "meta/paths.h"
#include "types/binary_row.h"
#include "types/temporal.h"
#include "types/value.h"

#define MILLIS_PER_DAY INT64_C(86400000)

/* ---------------------------------------------------------------- */
/* classification                                                    */

typedef enum kind {
    K_BOOL,
    K_INT,     /* TINYINT..BIGINT */
    K_FLOAT,   /* FLOAT, DOUBLE */
    K_DEC,
    K_STR,     /* CHAR, VARCHAR */
    K_BIN,     /* BINARY, VARBINARY */
    K_DATE,
    K_TIME,
    K_TS,      /* TIMESTAMP */
    K_LTZ,     /* TIMESTAMP WITH LOCAL TIME ZONE */
    K_OTHER    /* nested, VARIANT, BLOB */
} kind;

static kind kind_of(const pm_type *t)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return K_BOOL;
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT: return K_INT;
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE: return K_FLOAT;
    case PM_TYPE_DECIMAL: return K_DEC;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: return K_STR;
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY: return K_BIN;
    case PM_TYPE_DATE: return K_DATE;
    case PM_TYPE_TIME: return K_TIME;
    case PM_TYPE_TIMESTAMP: return K_TS;
    case PM_TYPE_TIMESTAMP_LTZ: return K_LTZ;
    default: return K_OTHER;
    }
}

/* Same physical layout and the same value rules (only metadata differs)? */
static bool same_layout(const pm_type *a, const pm_type *b)
{
    if (a->id != b->id) {
        kind ka = kind_of(a), kb = kind_of(b);
        /* VARCHAR values read for a VARCHAR(n)/CHAR(n) column are kept as
         * stored (the writer already applied the length rules) */
        return (ka == K_STR && kb == K_STR && b->id == PM_TYPE_VARCHAR) ||
               (ka == K_BIN && kb == K_BIN && b->id == PM_TYPE_VARBINARY) ||
               (a->id == PM_TYPE_BLOB && b->id == PM_TYPE_VARBINARY) ||
               (a->id == PM_TYPE_VARBINARY && b->id == PM_TYPE_BLOB);
    }
    switch (a->id) {
    case PM_TYPE_DECIMAL:
        return a->scale == b->scale && a->precision == b->precision;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return a->precision == b->precision;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
        return a->length == b->length || b->length == PM_MAX_LENGTH;
    case PM_TYPE_ARRAY:
    case PM_TYPE_MULTISET:
        return same_layout(a->element, b->element);
    case PM_TYPE_MAP:
        return same_layout(a->key, b->key) && same_layout(a->value, b->value);
    case PM_TYPE_ROW:
        if (a->nfields != b->nfields)
            return false;
        for (size_t i = 0; i < a->nfields; i++)
            if (!same_layout(a->fields[i].type, b->fields[i].type))
                return false;
        return true;
    default:
        return true;
    }
}

static pm_error *unsupported(const pm_type *from, const pm_type *to)
{
    char *a = pm_type_to_string(from), *b = pm_type_to_string(to);
    pm_error *e = pm_error_new(PM_EUNSUPPORTED, "reading %s values as %s (schema evolution cast) is not supported",
                               a ? a : "?", b ? b : "?");
    free(a);
    free(b);
    return e;
}

static bool convertible(const pm_type *from, const pm_type *to)
{
    kind f = kind_of(from), t = kind_of(to);
    if (f == K_OTHER || t == K_OTHER)
        return false;
    switch (t) {
    case K_BOOL: return f == K_BOOL || f == K_INT || f == K_STR;
    case K_INT:
        return f == K_BOOL || f == K_INT || f == K_FLOAT || f == K_DEC || f == K_STR ||
               ((f == K_TS || f == K_LTZ) && (to->id == PM_TYPE_INT || to->id == PM_TYPE_BIGINT));
    case K_FLOAT: return f == K_BOOL || f == K_INT || f == K_FLOAT || f == K_DEC || f == K_STR;
    case K_DEC: return f == K_BOOL || f == K_INT || f == K_FLOAT || f == K_DEC || f == K_STR;
    case K_STR: return true;
    case K_BIN: return f == K_BIN || f == K_STR;
    case K_DATE: return f == K_DATE || f == K_STR || f == K_TS || f == K_LTZ;
    case K_TIME: return f == K_TIME || f == K_STR || f == K_TS || f == K_LTZ;
    case K_TS:
    case K_LTZ:
        return f == K_TS || f == K_LTZ || f == K_DATE || f == K_TIME || f == K_STR ||
               (f == K_INT && (from->id == PM_TYPE_INT || from->id == PM_TYPE_BIGINT));
    default: return false;
    }
}

pm_error *pm_cast_plan(const pm_type *from, const pm_type *to, pm_cast_kind *out)
{
    if (pm_type_equals_ignore_nullable(from, to)) {
        *out = PM_CAST_IDENTITY;
        return NULL;
    }
    if (same_layout(from, to)) {
        *out = PM_CAST_COPY;
        return NULL;
    }
    if (!convertible(from, to))
        return unsupported(from, to);
    tzset();
    *out = PM_CAST_CONVERT;
    return NULL;
}

/* Physically interchangeable (a relabel keeps every value)? */
static bool relabel_ok(const pm_type *a, const pm_type *b)
{
    kind ka = kind_of(a), kb = kind_of(b);
    if ((ka == K_TS || ka == K_LTZ) && (kb == K_TS || kb == K_LTZ))
        return pm_timestamp_units_per_second(a->precision) == pm_timestamp_units_per_second(b->precision);
    bool va = pm_type_is_varlen(a), vb = pm_type_is_varlen(b);
    if (va || vb)
        return va && vb;
    if (a->id != b->id)
        return false;
    switch (a->id) {
    case PM_TYPE_DECIMAL:
        return a->scale == b->scale;
    case PM_TYPE_ARRAY:
    case PM_TYPE_MULTISET:
        return a->element->id == b->element->id && relabel_ok(a->element, b->element);
    case PM_TYPE_MAP:
        return a->key->id == b->key->id && a->value->id == b->value->id && relabel_ok(a->key, b->key) &&
               relabel_ok(a->value, b->value);
    case PM_TYPE_ROW:
        if (a->nfields != b->nfields)
            return false;
        for (size_t i = 0; i < a->nfields; i++)
            if (a->fields[i].type->id != b->fields[i].type->id ||
                !relabel_ok(a->fields[i].type, b->fields[i].type))
                return false;
        return true;
    default:
        return true;
    }
}

pm_error *pm_cast_plan_relabel(const pm_type *from, const pm_type *to, pm_cast_kind *out)
{
    if (pm_type_equals_ignore_nullable(from, to)) {
        *out = PM_CAST_IDENTITY;
        return NULL;
    }
    if (relabel_ok(from, to)) {
        *out = PM_CAST_COPY;
        return NULL;
    }
    return pm_cast_plan(from, to, out);
}

/* ---------------------------------------------------------------- */
/* copy                                                              */

static pm_error *copy_bits(pm_buf *dst, int64_t dst_len, const uint8_t *src, int64_t n)
{
    /* dst has dst_len bits; append n bits from src */
    size_t need = (size_t)((dst_len + n + 7) / 8);
    if (dst->len < need)
        PM_TRY(pm_buf_append_zeros(dst, need - dst->len));
    if ((dst_len & 7) == 0) {
        memcpy(dst->data + dst_len / 8, src, (size_t)((n + 7) / 8));
        /* clear bits past the end copied from src */
        if (n & 7)
            dst->data[(dst_len + n) / 8] &= (uint8_t)((1u << (n & 7)) - 1);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t d = dst_len + i;
        if ((src[i >> 3] >> (i & 7)) & 1)
            dst->data[d >> 3] |= (uint8_t)(1u << (d & 7));
        else
            dst->data[d >> 3] &= (uint8_t)~(1u << (d & 7));
    }
    return NULL;
}

static pm_error *copy_column(const pm_column *src, pm_column *dst)
{
    const pm_type *t = dst->type;
    int64_t n = src->length;
    if (!n)
        return NULL;
    bool flat = pm_type_value_width(t) || t->id == PM_TYPE_BOOLEAN || pm_type_is_varlen(t);
    if (!flat || pm_type_value_width(src->type) != pm_type_value_width(t)) {
        for (int64_t i = 0; i < n; i++)
            PM_TRY(pm_column_append_from(dst, src, i));
        return NULL;
    }
    int64_t base = dst->length;
    /* validity exists once a column saw a null; from then on every row has a bit */
    if (dst->validity.len > 0 || src->null_count) {
        if (dst->validity.len == 0 && base > 0) {
            PM_TRY(pm_buf_append_zeros(&dst->validity, (size_t)(base + 7) / 8));
            memset(dst->validity.data, 0xff, dst->validity.len);
        }
        if (src->null_count) {
            PM_TRY(copy_bits(&dst->validity, base, src->validity.data, n));
        } else {
            size_t need = (size_t)((base + n + 7) / 8);
            if (dst->validity.len < need)
                PM_TRY(pm_buf_append_zeros(&dst->validity, need - dst->validity.len));
            for (int64_t i = 0; i < n; i++)
                dst->validity.data[(base + i) >> 3] |= (uint8_t)(1u << ((base + i) & 7));
        }
    }
    if (t->id == PM_TYPE_BOOLEAN) {
        PM_TRY(copy_bits(&dst->values, base, src->values.data, n));
    } else if (pm_type_is_varlen(t)) {
        const int32_t *so = pm_column_offsets(src);
        if (dst->offsets.len == 0)
            PM_TRY(pm_buf_append_zeros(&dst->offsets, 4));
        int32_t start = ((const int32_t *)(const void *)dst->offsets.data)[base];
        int32_t delta = start - so[0];
        PM_TRY(pm_buf_reserve(&dst->offsets, (size_t)n * 4));
        for (int64_t i = 1; i <= n; i++) {
            int32_t v = so[i] + delta;
            pm_buf_put(&dst->offsets, &v, 4);
        }
        size_t bytes = (size_t)(so[n] - so[0]);
        if (bytes)
            PM_TRY(pm_buf_append(&dst->data, src->data.data + so[0], bytes));
    } else {
        size_t w = (size_t)pm_type_value_width(t);
        PM_TRY(pm_buf_append(&dst->values, src->values.data, (size_t)n * w));
    }
    dst->length += n;
    dst->null_count += src->null_count;
    return NULL;
}

/* ---------------------------------------------------------------- */
/* time zone (process default, like Java's TimeZone.getDefault())     */

static int64_t zone_offset_ms(int64_t utc_ms)
{
    time_t s = (time_t)pm_floor_div(utc_ms, 1000);
    struct tm tm;
    if (!localtime_r(&s, &tm))
        return 0;
    return (int64_t)tm.tm_gmtoff * 1000;
}

/* Local wall-clock millis → instant millis (gaps move forward). */
static int64_t local_to_utc_ms(int64_t local_ms)
{
    int64_t off = zone_offset_ms(local_ms);
    int64_t off2 = zone_offset_ms(local_ms - off);
    return local_ms - off2;
}

static int64_t utc_to_local_ms(int64_t utc_ms) { return utc_ms + zone_offset_ms(utc_ms); }

/* Zone shifts are at most a day: beyond ±2^62 ms (far outside any
 * timestamp a TIMESTAMP column can hold) values are left as they are, so
 * the arithmetic above never overflows. */
#define TZ_SAFE(ms) ((ms) > -(INT64_C(1) << 62) && (ms) < (INT64_C(1) << 62))
static int64_t to_utc(int64_t local_ms) { return TZ_SAFE(local_ms) ? local_to_utc_ms(local_ms) : local_ms; }
static int64_t to_local(int64_t utc_ms) { return TZ_SAFE(utc_ms) ? utc_to_local_ms(utc_ms) : utc_ms; }

static pm_error *out_of_range(int64_t v, const pm_type *to)
{
    char *b = pm_type_to_string(to);
    pm_error *e = pm_error_new(PM_EINVALID, "cannot cast %lld to %s: out of range", (long long)v, b ? b : "?");
    free(b);
    return e;
}

/* ---------------------------------------------------------------- */
/* source values                                                     */

typedef struct scalar {
    bool b;
    int64_t i;
    double d;
    float f;          /* FLOAT source kept for its Java string form */
    bool is_float;
    __int128 dec;
    int32_t scale;
    const uint8_t *p;
    size_t n;
    int64_t millis;   /* timestamps; DATE/TIME use i */
    int32_t nanos;
} scalar;

static void read_scalar(const pm_column *c, int64_t r, scalar *s)
{
    const pm_type *t = c->type;
    switch (t->id) {
    case PM_TYPE_BOOLEAN: s->b = pm_column_bool(c, r); break;
    case PM_TYPE_TINYINT: s->i = pm_column_i8(c, r); break;
    case PM_TYPE_SMALLINT: s->i = pm_column_i16(c, r); break;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: s->i = pm_column_i32(c, r); break;
    case PM_TYPE_BIGINT: s->i = pm_column_i64(c, r); break;
    case PM_TYPE_FLOAT:
        s->f = pm_column_f32(c, r);
        s->d = s->f;
        s->is_float = true;
        break;
    case PM_TYPE_DOUBLE:
        s->d = pm_column_f64(c, r);
        s->is_float = false;
        break;
    case PM_TYPE_DECIMAL:
        s->dec = pm_column_decimal(c, r);
        s->scale = t->scale;
        break;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        pm_timestamp_to_millis_nanos(pm_column_i64(c, r), t->precision, &s->millis, &s->nanos);
        break;
    default:
        s->p = pm_column_bytes(c, r, &s->n);
        break;
    }
}

static pm_error *bad_value(const scalar *s, const pm_type *to, const char *why)
{
    char *b = pm_type_to_string(to);
    pm_error *e = pm_error_new(PM_EINVALID, "cannot cast '%.*s' to %s%s%s", (int)(s->n > 200 ? 200 : s->n),
                               (const char *)s->p, b ? b : "?", why ? ": " : "", why ? why : "");
    free(b);
    return e;
}

/* ---------------------------------------------------------------- */
/* decimals                                                          */

static const __int128 P10_18 = (__int128)1000000000000000000LL;

static __int128 pow10_128(int n)
{
    __int128 v = 1;
    while (n-- > 0)
        v *= 10;
    return v;
}

static bool fits_precision(__int128 v, int32_t precision)
{
    if (v < 0)
        v = -v;
    return precision >= 38 ? v < pow10_128(38) : v < pow10_128(precision);
}

/* Rescale an unscaled value from scale `from` to `to` with HALF_UP. */
static bool rescale(__int128 v, int32_t from, int32_t to, __int128 *out)
{
    if (to >= from) {
        int d = to - from;
        if (d > 38)
            return v == 0 ? (*out = 0, true) : false;
        __int128 m = pow10_128(d);
        __int128 lim = pow10_128(38) / m;
        if (v >= lim || v <= -lim)
            return false;
        *out = v * m;
        return true;
    }
    int d = from - to;
    if (d > 38) {
        *out = 0;
        return true;
    }
    __int128 m = pow10_128(d);
    __int128 q = v / m, r = v % m;
    if (r < 0)
        r = -r;
    if (2 * r >= m)
        q += v < 0 ? -1 : 1;
    *out = q;
    return true;
}

/* Parse Java BigDecimal text ([+-]digits[.digits][e[+-]digits]) into an
 * unscaled value at `scale` (HALF_UP).  *ok=false: not a number; *fits=false:
 * too large for 38 digits. */
static void parse_decimal_text(const char *s, size_t n, int32_t scale, bool *ok, bool *fits, __int128 *out)
{
    *ok = false;
    *fits = true;
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    __int128 v = 0;
    int digits = 0, frac = 0, dropped_exp = 0;
    bool any = false, dot = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.' && !dot) {
            dot = true;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        any = true;
        if (digits < 38) {
            if (v || c != '0')
                digits++;
            v = v * 10 + (c - '0');
            if (dot)
                frac++;
        } else if (!dot) {
            dropped_exp++; /* digits past 38: too large for any DECIMAL (checked below) */
        } /* fraction digits past 38 significant ones are dropped */
    }
    if (!any)
        return;
    int64_t exp = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        bool ed = false;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            ed = true;
            if (exp < 100000)
                exp = exp * 10 + (s[i] - '0');
        }
        if (!ed)
            return;
        if (eneg)
            exp = -exp;
    }
    if (i != n)
        return;
    *ok = true;
    /* value = v * 10^(exp + dropped_exp - frac) */
    int64_t cur_scale = (int64_t)frac - exp - dropped_exp;
    __int128 r;
    if (cur_scale < -76 || cur_scale > 1000) {
        if (cur_scale > 1000) {
            *out = 0;
            return;
        }
        *fits = v == 0;
        *out = 0;
        return;
    }
    if (!rescale(v, (int32_t)cur_scale, scale, &r)) {
        *fits = false;
        return;
    }
    *out = neg ? -r : r;
}

static pm_error *append_decimal_checked(pm_column *c, __int128 v, bool fits)
{
    if (!fits || !fits_precision(v, c->type->precision))
        return pm_column_append_null(c); /* Java: null on precision overflow */
    return pm_column_append_decimal(c, v);
}

static double decimal_to_double(__int128 v, int32_t scale, pm_buf *scratch)
{
    if (v < P10_18 && v > -P10_18 && scale <= 18) {
        static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                     1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
        return (double)(int64_t)v / p10[scale];
    }
    pm_buf_clear(scratch);
    if (pm_decimal_format(scratch, v, scale) || pm_buf_append_byte(scratch, 0))
        return NAN;
    return strtod((const char *)scratch->data, NULL);
}

/* ---------------------------------------------------------------- */
/* string forms                                                      */

static pm_error *format_ts(pm_buf *out, int64_t millis, int32_t nanos, int32_t precision)
{
    int64_t days = pm_floor_div(millis, MILLIS_PER_DAY);
    int64_t ms = pm_floor_mod(millis, MILLIS_PER_DAY);
    int64_t y;
    int mo, d;
    pm_civil_from_days(days, &y, &mo, &d);
    int64_t h = ms / 3600000, mi = ms / 60000 % 60, sec = ms / 1000 % 60;
    int64_t nano = (ms % 1000) * 1000000 + nanos;
    PM_TRY(pm_buf_printf(out, "%04lld-%02d-%02d %02lld:%02lld:%02lld", (long long)y, mo, d, (long long)h,
                         (long long)mi, (long long)sec));
    char frac[24];
    snprintf(frac, sizeof frac, "%09lld", (long long)nano);
    int len = 9;
    while (len > precision && frac[len - 1] == '0')
        len--;
    if (len > 0) {
        PM_TRY(pm_buf_append_byte(out, '.'));
        PM_TRY(pm_buf_append(out, frac, (size_t)len));
    }
    return NULL;
}

static pm_error *format_time(pm_buf *out, int64_t time, int32_t precision)
{
    while (time < 0)
        time += MILLIS_PER_DAY;
    int64_t h = time / 3600000, r = time % 3600000, m = r / 60000, s = r % 60000 / 1000, ms = time % 1000;
    PM_TRY(pm_buf_printf(out, "%02lld:%02lld:%02lld", (long long)h, (long long)m, (long long)s));
    if (precision > 0) {
        PM_TRY(pm_buf_append_byte(out, '.'));
        for (int i = 0; i < precision; i++) {
            PM_TRY(pm_buf_append_byte(out, (uint8_t)('0' + ms / 100)));
            ms = ms % 100 * 10;
        }
    }
    return NULL;
}

/* Java string of a source scalar of type `t` (the value-to-string rules). */
static pm_error *to_string(const pm_type *t, const scalar *s, pm_buf *out)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return pm_buf_append_str(out, s->b ? "true" : "false");
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT: return pm_buf_printf(out, "%lld", (long long)s->i);
    case PM_TYPE_FLOAT: return pm_java_float_to_string(s->f, out);
    case PM_TYPE_DOUBLE: return pm_java_double_to_string(s->d, out);
    case PM_TYPE_DECIMAL: return pm_decimal_format(out, s->dec, s->scale);
    case PM_TYPE_DATE: return pm_format_date(out, s->i);
    case PM_TYPE_TIME: return format_time(out, s->i, t->precision);
    case PM_TYPE_TIMESTAMP: return format_ts(out, s->millis, s->nanos, t->precision);
    case PM_TYPE_TIMESTAMP_LTZ: return format_ts(out, to_local(s->millis), s->nanos, t->precision);
    default: return pm_buf_append(out, s->p, s->n);
    }
}

/* Java BinaryStringUtils.toCharacterString: truncate to `length` code
 * points, pad CHAR with spaces. */
static pm_error *append_char_string(pm_column *c, const uint8_t *p, size_t n, pm_buf *scratch)
{
    const pm_type *t = c->type;
    size_t chars = 0, cut = n;
    for (size_t i = 0; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            if ((int64_t)chars == t->length) {
                cut = i;
                break;
            }
            chars++;
        }
    }
    if (cut < n)
        return pm_column_append_bytes(c, p, cut);
    if (t->id == PM_TYPE_CHAR && (int64_t)chars < t->length) {
        if (p != scratch->data) {
            pm_buf_clear(scratch);
            PM_TRY(pm_buf_append(scratch, p, n));
        }
        for (int64_t k = (int64_t)chars; k < t->length; k++)
            PM_TRY(pm_buf_append_byte(scratch, ' '));
        return pm_column_append_bytes(c, scratch->data, scratch->len);
    }
    return pm_column_append_bytes(c, p, n);
}

static pm_error *append_binary(pm_column *c, const uint8_t *p, size_t n, pm_buf *scratch)
{
    const pm_type *t = c->type;
    size_t len = (size_t)t->length;
    if (n == len || (t->id == PM_TYPE_VARBINARY && n <= len))
        return pm_column_append_bytes(c, p, n);
    if (n > len)
        return pm_column_append_bytes(c, p, len);
    pm_buf_clear(scratch);
    PM_TRY(pm_buf_append(scratch, p, n));
    PM_TRY(pm_buf_append_zeros(scratch, len - n));
    return pm_column_append_bytes(c, scratch->data, scratch->len);
}

/* ---------------------------------------------------------------- */
/* parsing strings (BinaryStringUtils)                               */

static bool parse_java_int(const uint8_t *s, size_t n, int64_t lo, int64_t hi, int64_t *out)
{
    if (!n)
        return false;
    size_t i = 0;
    bool neg = s[0] == '-';
    if (neg || s[0] == '+') {
        i++;
        if (n == 1)
            return false;
    }
    __int128 v = 0;
    for (; i < n; i++) {
        if (s[i] == '.') {
            for (i++; i < n; i++)
                if (s[i] < '0' || s[i] > '9')
                    return false;
            break;
        }
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
        if (v > (__int128)hi + 1)
            return false;
    }
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        return false;
    *out = (int64_t)v;
    return true;
}

static bool is_numeric(const uint8_t *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool parse_java_bool(const uint8_t *s, size_t n, bool *out)
{
    static const char *t[] = {"t", "true", "y", "yes", "1"};
    static const char *f[] = {"f", "false", "n", "no", "0"};
    for (size_t k = 0; k < 5; k++) {
        if (n == strlen(t[k]) && !strncasecmp((const char *)s, t[k], n)) {
            *out = true;
            return true;
        }
        if (n == strlen(f[k]) && !strncasecmp((const char *)s, f[k], n)) {
            *out = false;
            return true;
        }
    }
    return false;
}

static pm_error *cstr(pm_buf *scratch, const uint8_t *p, size_t n, const char **out)
{
    pm_buf_clear(scratch);
    PM_TRY(pm_buf_append(scratch, p, n));
    return pm_buf_cstr(scratch, out);
}

/* ---------------------------------------------------------------- */
/* timestamps                                                        */

/* Java DateTimeUtils.truncate to `precision` digits. */
static void truncate_ts(int64_t *millis, int32_t *nanos, int32_t precision)
{
    if (precision <= 3) {
        int64_t m = 1;
        for (int k = precision; k < 3; k++)
            m *= 10;
        *millis = *millis / m * m;
        *nanos = 0;
    } else {
        int32_t m = 1;
        for (int k = precision; k < 9; k++)
            m *= 10;
        *nanos = *nanos / m * m;
    }
}

static pm_error *append_ts(pm_column *c, int64_t millis, int32_t nanos)
{
    truncate_ts(&millis, &nanos, c->type->precision);
    int64_t v;
    PM_TRY(pm_timestamp_from_millis_nanos(millis, nanos, c->type->precision, &v));
    return pm_column_append_i64(c, v);
}

/* ---------------------------------------------------------------- */
/* convert one value                                                 */

static int64_t double_to_long(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

static int32_t double_to_int(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 2147483647.0)
        return INT32_MAX;
    if (d <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)d;
}

static pm_error *append_int(pm_column *c, int64_t v)
{
    switch (c->type->id) {
    case PM_TYPE_TINYINT: return pm_column_append_i8(c, (int8_t)(uint8_t)(uint64_t)v);
    case PM_TYPE_SMALLINT: return pm_column_append_i16(c, (int16_t)(uint16_t)(uint64_t)v);
    case PM_TYPE_INT: return pm_column_append_i32(c, (int32_t)(uint32_t)(uint64_t)v);
    default: return pm_column_append_i64(c, v);
    }
}

static pm_error *append_float(pm_column *c, double d)
{
    if (c->type->id == PM_TYPE_FLOAT)
        return pm_column_append_f32(c, (float)d);
    return pm_column_append_f64(c, d);
}

/* ---- convert_one, per target kind (f = the source value's kind) ---- */

static pm_error *to_bool(const pm_type *tt, kind f, scalar *s, pm_column *c)
{
    if (f == K_BOOL)
        return pm_column_append_bool(c, s->b);
    if (f == K_INT)
        return pm_column_append_bool(c, s->i != 0);
    bool b;
    if (!parse_java_bool(s->p, s->n, &b))
        return bad_value(s, tt, NULL);
    return pm_column_append_bool(c, b);
}

static pm_error *to_int(const pm_type *tt, kind f, scalar *s, pm_column *c)
{
    switch (f) {
    case K_BOOL: return append_int(c, s->b);
    case K_INT: return append_int(c, s->i);
    case K_FLOAT:
        if (tt->id == PM_TYPE_BIGINT)
            return append_int(c, double_to_long(s->d));
        return append_int(c, double_to_int(s->d));
    case K_DEC: {
        __int128 q = s->dec / pow10_128(s->scale); /* toward zero */
        return append_int(c, (int64_t)(uint64_t)(unsigned __int128)q);
    }
    case K_TS:
    case K_LTZ: return append_int(c, s->millis / 1000);
    default: {
        int64_t lo = INT64_MIN, hi = INT64_MAX, v;
        if (tt->id == PM_TYPE_TINYINT)
            lo = INT8_MIN, hi = INT8_MAX;
        else if (tt->id == PM_TYPE_SMALLINT)
            lo = INT16_MIN, hi = INT16_MAX;
        else if (tt->id == PM_TYPE_INT)
            lo = INT32_MIN, hi = INT32_MAX;
        if (!parse_java_int(s->p, s->n, lo, hi, &v))
            return bad_value(s, tt, NULL);
        return append_int(c, v);
    }
    }
}

static pm_error *to_float(const pm_type *tt, kind f, scalar *s, pm_column *c, pm_buf *scratch)
{
    const char *z = NULL;
    switch (f) {
    case K_BOOL: return append_float(c, s->b ? 1.0 : 0.0);
    case K_INT:
        if (tt->id == PM_TYPE_FLOAT)
            return pm_column_append_f32(c, (float)s->i);
        return pm_column_append_f64(c, (double)s->i);
    case K_FLOAT:
        if (tt->id == PM_TYPE_FLOAT)
            return pm_column_append_f32(c, s->is_float ? s->f : (float)s->d);
        return pm_column_append_f64(c, s->d);
    case K_DEC: return append_float(c, decimal_to_double(s->dec, s->scale, scratch));
    default: {
        double d;
        PM_TRY(cstr(scratch, s->p, s->n, &z));
        pm_error *pe = pm_parse_double(z, &d);
        if (pe) {
            pm_error_free(pe);
            return bad_value(s, tt, NULL);
        }
        return append_float(c, d);
    }
    }
}

static pm_error *to_decimal(const pm_type *tt, kind f, scalar *s, pm_column *c, pm_buf *scratch)
{
    bool ok = true, fits = true;
    __int128 v = 0;
    switch (f) {
    case K_BOOL: fits = rescale(s->b ? 1 : 0, 0, tt->scale, &v); break;
    case K_INT: fits = rescale(s->i, 0, tt->scale, &v); break;
    case K_DEC: fits = rescale(s->dec, s->scale, tt->scale, &v); break;
    case K_FLOAT:
        if (!isfinite(s->d))
            return bad_value(s, tt, "not a finite number");
        pm_buf_clear(scratch);
        /* BigDecimal.valueOf(double) = new BigDecimal(Double.toString(d)) */
        PM_TRY(pm_java_double_to_string(s->d, scratch));
        parse_decimal_text((const char *)scratch->data, scratch->len, tt->scale, &ok, &fits, &v);
        break;
    default:
        parse_decimal_text((const char *)s->p, s->n, tt->scale, &ok, &fits, &v);
        if (!ok)
            return bad_value(s, tt, NULL);
        break;
    }
    return append_decimal_checked(c, v, fits);
}

static pm_error *to_date(const pm_type *tt, kind f, scalar *s, pm_column *c)
{
    switch (f) {
    case K_DATE: return pm_column_append_i32(c, (int32_t)s->i);
    case K_TS: return pm_column_append_i32(c, (int32_t)pm_floor_div(s->millis, MILLIS_PER_DAY));
    case K_LTZ:
        return pm_column_append_i32(c, (int32_t)pm_floor_div(to_local(s->millis), MILLIS_PER_DAY));
    default: {
        int64_t v;
        int32_t days;
        if (is_numeric(s->p, s->n)) {
            if (!parse_java_int(s->p, s->n, INT32_MIN, INT32_MAX, &v))
                return bad_value(s, tt, NULL);
            return pm_column_append_i32(c, (int32_t)v);
        }
        pm_error *pe = pm_parse_date((const char *)s->p, s->n, &days);
        if (pe) {
            pm_error_free(pe);
            return bad_value(s, tt, NULL);
        }
        return pm_column_append_i32(c, days);
    }
    }
}

static pm_error *to_time(const pm_type *tt, kind f, scalar *s, pm_column *c)
{
    switch (f) {
    case K_TIME: return pm_column_append_i32(c, (int32_t)s->i);
    case K_TS: return pm_column_append_i32(c, (int32_t)pm_floor_mod(s->millis, MILLIS_PER_DAY));
    case K_LTZ:
        return pm_column_append_i32(c, (int32_t)pm_floor_mod(to_local(s->millis), MILLIS_PER_DAY));
    default: {
        int64_t v;
        int32_t ms;
        if (is_numeric(s->p, s->n)) {
            if (!parse_java_int(s->p, s->n, INT32_MIN, INT32_MAX, &v))
                return bad_value(s, tt, NULL);
            return pm_column_append_i32(c, (int32_t)v);
        }
        pm_error *pe = pm_parse_time((const char *)s->p, s->n, 3, &ms);
        if (pe) {
            pm_error_free(pe);
            return bad_value(s, tt, NULL);
        }
        return pm_column_append_i32(c, ms);
    }
    }
}

static pm_error *to_timestamp(const pm_type *tt, kind f, scalar *s, pm_column *c)
{
    bool to_ltz = tt->id == PM_TYPE_TIMESTAMP_LTZ;
    int64_t millis = 0;
    int32_t nanos = 0;
    switch (f) {
    case K_TS:
        millis = s->millis;
        nanos = s->nanos;
        if (to_ltz)
            millis = to_utc(millis);
        break;
    case K_LTZ:
        millis = s->millis;
        nanos = s->nanos;
        if (!to_ltz)
            millis = to_local(millis);
        break;
    case K_DATE:
        millis = s->i * MILLIS_PER_DAY;
        if (to_ltz)
            millis = to_utc(millis);
        break;
    case K_TIME:
        millis = s->i;
        if (to_ltz)
            millis = to_utc(millis);
        break;
    case K_INT:
        /* Timestamp.fromLocalDateTime(toLocalDateTime(v * 1000, zone)):
         * the wall-clock time of that instant in UTC or the local zone */
        if (__builtin_mul_overflow(s->i, 1000, &millis))
            return out_of_range(s->i, tt);
        if (to_ltz)
            millis = to_local(millis);
        break;
    default: {
        if (!to_ltz && is_numeric(s->p, s->n)) {
            int64_t v;
            if (!parse_java_int(s->p, s->n, INT64_MIN, INT64_MAX, &v))
                return bad_value(s, tt, NULL);
            switch (tt->precision) {
            case 0:
                if (__builtin_mul_overflow(v, 1000, &millis))
                    return out_of_range(v, tt);
                break;
            case 3: millis = v; break;
            case 6: millis = v / 1000; nanos = (int32_t)(v % 1000 * 1000); break;
            case 9: millis = v / 1000000; nanos = (int32_t)(v % 1000000); break;
            default: return bad_value(s, tt, "epoch numbers need precision 0, 3, 6 or 9");
            }
            if (nanos < 0) {
                nanos += 1000000;
                millis -= 1;
            }
            break;
        }
        int64_t v;
        pm_error *pe = pm_parse_timestamp((const char *)s->p, s->n, 9, false, &v);
        if (pe) {
            pm_error_free(pe);
            return bad_value(s, tt, NULL);
        }
        pm_timestamp_to_millis_nanos(v, 9, &millis, &nanos);
        if (to_ltz)
            millis = to_utc(millis);
        break;
    }
    }
    return append_ts(c, millis, nanos);
}

/* One value s of type ft appended to c in c's type (the rules at the top). */
static pm_error *convert_one(const pm_type *ft, scalar *s, pm_column *c, pm_buf *scratch)
{
    const pm_type *tt = c->type;
    kind f = kind_of(ft);
    switch (kind_of(tt)) {
    case K_BOOL:
        return to_bool(tt, f, s, c);
    case K_INT:
        return to_int(tt, f, s, c);
    case K_FLOAT:
        return to_float(tt, f, s, c, scratch);
    case K_DEC:
        return to_decimal(tt, f, s, c, scratch);
    case K_STR:
        if (f == K_STR)
            return append_char_string(c, s->p, s->n, scratch);
        pm_buf_clear(scratch);
        PM_TRY(to_string(ft, s, scratch));
        return append_char_string(c, scratch->data, scratch->len, scratch);
    case K_BIN:
        return append_binary(c, s->p, s->n, scratch);
    case K_DATE:
        return to_date(tt, f, s, c);
    case K_TIME:
        return to_time(tt, f, s, c);
    case K_TS:
    case K_LTZ:
        return to_timestamp(tt, f, s, c);
    default:
        return unsupported(ft, tt);
    }
}

pm_error *pm_cast_append(const pm_column *src, pm_column *dst, pm_cast_kind kind, pm_buf *scratch)
{
    if (kind != PM_CAST_CONVERT)
        return copy_column(src, dst);
    const pm_type *ft = src->type;
    PM_TRY(pm_column_reserve(dst, src->length));
    scalar s;
    memset(&s, 0, sizeof s);
    for (int64_t r = 0; r < src->length; r++) {
        if (pm_column_is_null(src, r)) {
            PM_TRY(pm_column_append_null(dst));
            continue;
        }
        read_scalar(src, r, &s);
        PM_TRY(convert_one(ft, &s, dst, scratch));
    }
    return NULL;
}
