/*
 * types/value_parse.c — values from JSON (jansson) and from text cells, the
 * inverse of value_json.c (see value.h for what is accepted).
 *
 * Text parsing of atomic values is the core; JSON strings for non-string
 * types go through it, JSON numbers are range-checked directly.  Decimals
 * are parsed digit by digit into an __int128 at the column's scale (an
 * exponent shifts the decimal point), so no precision is lost on the way;
 * a JSON real for a DECIMAL is first printed as its shortest round-trip
 * text.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "base/mem.h"
#include "base/util.h"
#include "types/column.h"
#include "types/temporal.h"
#include "types/value.h"

static pm_error *bad_text(const pm_type *t, const char *s, size_t n, const char *why)
{
    char *ts = pm_type_to_string(t);
    pm_error *e = pm_error_new(PM_EINVALID, "'%.*s' is not a valid %s value: %s", (int)(n > 64 ? 64 : n), s,
                               ts ? ts : pm_type_id_name(t->id), why);
    free(ts);
    return e;
}

/* ------------------------------------------------------------------ */
/* Scalars from text                                                   */

static pm_error *parse_int(const pm_type *t, const char *s, size_t n, int64_t lo, int64_t hi, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return bad_text(t, s, n, "expected an integer");
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return bad_text(t, s, n, "expected an integer");
        if (v > (UINT64_MAX - 9) / 10)
            return bad_text(t, s, n, "out of range");
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if ((!neg && v > (uint64_t)hi) || (neg && v > (uint64_t)hi + 1))
        return bad_text(t, s, n, "out of range");
    int64_t r = neg ? (int64_t)(0 - v) : (int64_t)v;
    if (r < lo || r > hi)
        return bad_text(t, s, n, "out of range");
    *out = r;
    return NULL;
}

static pm_error *parse_double(const pm_type *t, const char *s, size_t n, double *out)
{
    if ((n == 3 && !strncasecmp(s, "NaN", 3))) {
        *out = NAN;
        return NULL;
    }
    if ((n == 8 && !strncasecmp(s, "Infinity", 8)) || (n == 9 && !strncasecmp(s, "+Infinity", 9))) {
        *out = INFINITY;
        return NULL;
    }
    if (n == 9 && !strncasecmp(s, "-Infinity", 9)) {
        *out = -INFINITY;
        return NULL;
    }
    if (n == 0 || n > 400)
        return bad_text(t, s, n, "expected a number");
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789+-.eE", s[i]) || s[i] == '\0')
            return bad_text(t, s, n, "expected a number");
    char buf[404];
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + n)
        return bad_text(t, s, n, "expected a number");
    *out = v;
    return NULL;
}

pm_error *pm_decimal_parse(const char *s, size_t n, int32_t precision, int32_t scale, __int128 *out)
{
    pm_type t = {.id = PM_TYPE_DECIMAL, .nullable = true, .precision = precision, .scale = scale};
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    /* Collect significant digits and the position of the decimal point. */
    char dig[128];
    int nd = 0;           /* digits kept (leading zeros dropped) */
    int int_digits = 0;   /* digits before the point, leading zeros dropped */
    int frac_digits = 0;  /* digits after the point */
    bool any = false, point = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.' && !point) {
            point = true;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        any = true;
        if (point)
            frac_digits++;
        if (nd == 0 && c == '0' && !point)
            continue; /* leading zero of the integer part */
        if (nd >= (int)sizeof dig)
            return bad_text(&t, s, n, "too many digits");
        dig[nd++] = c;
        if (!point)
            int_digits++;
    }
    if (!any)
        return bad_text(&t, s, n, "expected a decimal number");
    long exp = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        if (i == n)
            return bad_text(&t, s, n, "expected exponent digits");
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            exp = exp * 10 + (s[i] - '0');
            if (exp > 1000)
                return bad_text(&t, s, n, "exponent out of range");
        }
        if (eneg)
            exp = -exp;
    }
    if (i != n)
        return bad_text(&t, s, n, "expected a decimal number");
    /* dig[0..nd) are the digits; those after the first (nd - frac part) are
     * fraction digits.  Value = digits * 10^(exp - frac_digits). */
    long shift = exp - frac_digits + scale; /* unscaled = digits * 10^shift */
    (void)int_digits;
    __int128 v = 0;
    int keep = nd;
    if (shift < 0) {
        /* drop -shift trailing digits; they must be zero */
        long drop = -shift;
        for (long k = 0; k < drop && keep > 0; k++) {
            if (dig[keep - 1] != '0')
                return bad_text(&t, s, n, "more fraction digits than the scale");
            keep--;
        }
        shift = 0;
    }
    /* strip leading zeros that came from the fraction part */
    int first = 0;
    while (first < keep && dig[first] == '0')
        first++;
    long total = (keep - first) + shift;
    if (keep - first > 0 && total > precision)
        return bad_text(&t, s, n, "too many digits for the precision");
    for (int k = first; k < keep; k++)
        v = v * 10 + (dig[k] - '0');
    for (long k = 0; k < shift && v != 0; k++)
        v *= 10;
    *out = neg ? -v : v;
    return NULL;
}

static pm_error *append_bool_text(pm_column *c, const char *s, size_t n)
{
    if (n == 4 && !strncasecmp(s, "true", 4))
        return pm_column_append_bool(c, true);
    if (n == 5 && !strncasecmp(s, "false", 5))
        return pm_column_append_bool(c, false);
    return bad_text(c->type, s, n, "expected true or false");
}

static pm_error *append_json_text_nested(pm_column *c, const char *s, size_t n)
{
    json_error_t jerr;
    json_t *v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!v)
        return bad_text(c->type, s, n, jerr.text);
    pm_error *e = pm_column_append_json(c, v);
    json_decref(v);
    return e;
}

pm_error *pm_column_append_text(pm_column *c, const char *s, size_t n)
{
    const pm_type *t = c->type;
    int64_t v;
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        return append_bool_text(c, s, n);
    case PM_TYPE_TINYINT:
        PM_TRY(parse_int(t, s, n, INT8_MIN, INT8_MAX, &v));
        return pm_column_append_i8(c, (int8_t)v);
    case PM_TYPE_SMALLINT:
        PM_TRY(parse_int(t, s, n, INT16_MIN, INT16_MAX, &v));
        return pm_column_append_i16(c, (int16_t)v);
    case PM_TYPE_INT:
        PM_TRY(parse_int(t, s, n, INT32_MIN, INT32_MAX, &v));
        return pm_column_append_i32(c, (int32_t)v);
    case PM_TYPE_BIGINT:
        PM_TRY(parse_int(t, s, n, INT64_MIN, INT64_MAX, &v));
        return pm_column_append_i64(c, v);
    case PM_TYPE_FLOAT: {
        double d;
        PM_TRY(parse_double(t, s, n, &d));
        /* Round to the nearest float first (3.4028235e38 is FLT_MAX, as in
         * Java's Float.parseFloat); only a finite value that rounds to
         * infinity is out of range. */
        if (isfinite(d) && isinf((float)d))
            return bad_text(t, s, n, "out of range for FLOAT");
        return pm_column_append_f32(c, (float)d);
    }
    case PM_TYPE_DOUBLE: {
        double d;
        PM_TRY(parse_double(t, s, n, &d));
        return pm_column_append_f64(c, d);
    }
    case PM_TYPE_DECIMAL: {
        __int128 d;
        PM_TRY(pm_decimal_parse(s, n, t->precision, t->scale, &d));
        return pm_column_append_decimal(c, d);
    }
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        return pm_column_append_bytes(c, s, n);
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        pm_buf b = PM_BUF_INIT;
        pm_error *e = pm_base64_decode(&b, s, n);
        if (e) {
            pm_error_free(e);
            pm_buf_free(&b);
            return bad_text(t, s, n, "expected base64");
        }
        e = pm_column_append_bytes(c, b.data ? b.data : (const uint8_t *)"", b.len);
        pm_buf_free(&b);
        return e;
    }
    case PM_TYPE_DATE: {
        int32_t d;
        PM_TRY(pm_parse_date(s, n, &d));
        return pm_column_append_i32(c, d);
    }
    case PM_TYPE_TIME: {
        int32_t ms;
        PM_TRY(pm_parse_time(s, n, t->precision, &ms));
        return pm_column_append_i32(c, ms);
    }
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        int64_t ts;
        PM_TRY(pm_parse_timestamp(s, n, t->precision, t->id == PM_TYPE_TIMESTAMP_LTZ, &ts));
        return pm_column_append_i64(c, ts);
    }
    case PM_TYPE_ARRAY:
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET:
    case PM_TYPE_ROW:
        return append_json_text_nested(c, s, n);
    default:
        return pm_error_new(PM_EUNSUPPORTED, "%s values from text", pm_type_id_name(t->id));
    }
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static pm_error *bad_json(const pm_type *t, const json_t *v, const char *expected)
{
    char *ts = pm_type_to_string(t);
    pm_error *e = pm_error_new(PM_EINVALID, "expected %s for %s, got %s", expected,
                               ts ? ts : pm_type_id_name(t->id), json_kind(v));
    free(ts);
    return e;
}

static pm_error *json_int(pm_column *c, const json_t *v, int64_t lo, int64_t hi, int64_t *out)
{
    const pm_type *t = c->type;
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < lo || x > hi) {
            char buf[32];
            int n = snprintf(buf, sizeof buf, "%lld", (long long)x);
            return bad_text(t, buf, (size_t)n, "out of range");
        }
        *out = x;
        return NULL;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d != floor(d) || d < (double)lo || d > (double)hi || (hi == INT64_MAX && d >= 9223372036854775808.0))
            return bad_json(t, v, "an integer in range");
        *out = (int64_t)d;
        return NULL;
    }
    if (json_is_string(v))
        return parse_int(t, json_string_value(v), json_string_length(v), lo, hi, out);
    return bad_json(t, v, "an integer");
}

static pm_error *append_map_json(pm_column *c, const json_t *v)
{
    const pm_type *t = c->type;
    if (json_is_object(v)) {
        const char *k;
        json_t *val;
        json_object_foreach((json_t *)v, k, val) {
            PM_TRY(pm_error_wrap(pm_column_append_text(c->children[0], k, strlen(k)), 0, "map key"));
            PM_TRY(pm_error_wrap(pm_column_append_json(c->children[1], val), 0, "value of key '%s'", k));
        }
        return pm_column_end_nested(c);
    }
    if (!json_is_array(v))
        return bad_json(t, v, "an array of {\"key\",\"value\"} objects");
    size_t i;
    json_t *ent;
    json_array_foreach(v, i, ent) {
        json_t *k = json_object_get(ent, "key"), *val = json_object_get(ent, "value");
        if (!json_is_object(ent) || !k || !val || json_object_size(ent) != 2)
            return pm_error_new(PM_EINVALID, "%s entry %zu is not an object {\"key\": .., \"value\": ..}",
                                pm_type_id_name(t->id), i);
        PM_TRY(pm_error_wrap(pm_column_append_json(c->children[0], k), 0, "key of entry %zu", i));
        PM_TRY(pm_error_wrap(pm_column_append_json(c->children[1], val), 0, "value of entry %zu", i));
    }
    return pm_column_end_nested(c);
}

static pm_error *append_row_json(pm_column *c, const json_t *v)
{
    const pm_type *t = c->type;
    if (json_is_array(v)) {
        if (json_array_size(v) != t->nfields)
            return pm_error_new(PM_EINVALID, "ROW with %zu fields given an array of %zu values", t->nfields,
                                json_array_size(v));
        for (size_t i = 0; i < t->nfields; i++)
            PM_TRY(pm_error_wrap(pm_column_append_json(c->children[i], json_array_get(v, i)), 0, "field '%s'",
                                 t->fields[i].name));
        return pm_column_end_nested(c);
    }
    if (!json_is_object(v))
        return bad_json(t, v, "an object");
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)v, k, val) {
        if (pm_type_field_index(t, k) < 0)
            return pm_error_new(PM_EINVALID, "unknown field '%s'", k);
    }
    for (size_t i = 0; i < t->nfields; i++) {
        json_t *fv = json_object_get(v, t->fields[i].name);
        pm_error *e = fv ? pm_column_append_json(c->children[i], fv) : NULL;
        if (!fv) {
            if (!t->fields[i].type->nullable)
                e = pm_error_new(PM_EINVALID, "missing value for NOT NULL field");
            else
                e = pm_column_append_null(c->children[i]);
        }
        PM_TRY(pm_error_wrap(e, 0, "field '%s'", t->fields[i].name));
    }
    return pm_column_end_nested(c);
}

pm_error *pm_column_append_json(pm_column *c, const json_t *v)
{
    const pm_type *t = c->type;
    if (!v || json_is_null(v)) {
        if (!t->nullable) {
            char *ts = pm_type_to_string(t);
            pm_error *e = pm_error_new(PM_EINVALID, "null for %s", ts ? ts : "a NOT NULL type");
            free(ts);
            return e;
        }
        return pm_column_append_null(c);
    }
    int64_t x;
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        if (json_is_boolean(v))
            return pm_column_append_bool(c, json_is_true(v));
        if (json_is_string(v))
            return append_bool_text(c, json_string_value(v), json_string_length(v));
        return bad_json(t, v, "true or false");
    case PM_TYPE_TINYINT:
        PM_TRY(json_int(c, v, INT8_MIN, INT8_MAX, &x));
        return pm_column_append_i8(c, (int8_t)x);
    case PM_TYPE_SMALLINT:
        PM_TRY(json_int(c, v, INT16_MIN, INT16_MAX, &x));
        return pm_column_append_i16(c, (int16_t)x);
    case PM_TYPE_INT:
        PM_TRY(json_int(c, v, INT32_MIN, INT32_MAX, &x));
        return pm_column_append_i32(c, (int32_t)x);
    case PM_TYPE_BIGINT:
        PM_TRY(json_int(c, v, INT64_MIN, INT64_MAX, &x));
        return pm_column_append_i64(c, x);
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
        if (json_is_number(v)) {
            double d = json_number_value(v);
            if (t->id == PM_TYPE_DOUBLE)
                return pm_column_append_f64(c, d);
            if (isfinite(d) && isinf((float)d))
                return bad_json(t, v, "a number in FLOAT range");
            return pm_column_append_f32(c, (float)d);
        }
        if (json_is_string(v))
            return pm_column_append_text(c, json_string_value(v), json_string_length(v));
        return bad_json(t, v, "a number");
    case PM_TYPE_DECIMAL:
        if (json_is_integer(v) || json_is_real(v)) {
            pm_buf b = PM_BUF_INIT;
            pm_error *e = json_is_integer(v) ? pm_buf_printf(&b, "%lld", (long long)json_integer_value(v))
                                             : pm_format_double(&b, json_real_value(v));
            if (!e)
                e = pm_column_append_text(c, (const char *)b.data, b.len);
            pm_buf_free(&b);
            return e;
        }
        if (json_is_string(v))
            return pm_column_append_text(c, json_string_value(v), json_string_length(v));
        return bad_json(t, v, "a decimal string or number");
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        if (json_is_string(v))
            return pm_column_append_bytes(c, json_string_value(v), json_string_length(v));
        return bad_json(t, v, "a string");
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB:
        if (json_is_string(v))
            return pm_column_append_text(c, json_string_value(v), json_string_length(v));
        return bad_json(t, v, "a base64 string");
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        if (json_is_string(v))
            return pm_column_append_text(c, json_string_value(v), json_string_length(v));
        return bad_json(t, v, "an ISO date/time string");
    case PM_TYPE_ARRAY: {
        if (!json_is_array(v))
            return bad_json(t, v, "an array");
        size_t i;
        json_t *el;
        json_array_foreach(v, i, el)
            PM_TRY(pm_error_wrap(pm_column_append_json(c->children[0], el), 0, "element %zu", i));
        return pm_column_end_nested(c);
    }
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET:
        return append_map_json(c, v);
    case PM_TYPE_ROW:
        return append_row_json(c, v);
    default:
        return pm_error_new(PM_EUNSUPPORTED, "%s values from JSON", pm_type_id_name(t->id));
    }
}

/* ------------------------------------------------------------------ */
/* JSON lines -> batch                                                 */

pm_error *pm_batch_from_json_lines(pm_batch **out, const pm_type *row_type, const char *text, size_t len)
{
    *out = NULL;
    pm_batch *b;
    PM_TRY(pm_batch_new(&b, row_type));
    pm_error *e = NULL;
    size_t line_no = 0;
    int64_t rows = 0;
    const char *p = text, *end = text + len;
    while (p < end && !e) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line_no++;
        const char *q = p;
        while (q < le && isspace((unsigned char)*q))
            q++;
        if (q < le) {
            json_error_t jerr;
            json_t *v = json_loadb(p, (size_t)(le - p), JSON_ALLOW_NUL, &jerr);
            if (!v) {
                e = pm_error_new(PM_EINVALID, "line %zu: not a JSON object: %s", line_no, jerr.text);
                break;
            }
            if (!json_is_object(v)) {
                json_decref(v);
                e = pm_error_new(PM_EINVALID, "line %zu: expected a JSON object", line_no);
                break;
            }
            const char *k;
            json_t *val;
            json_object_foreach(v, k, val) {
                if (pm_type_field_index(row_type, k) < 0) {
                    e = pm_error_new(PM_EINVALID, "line %zu: unknown field '%s'", line_no, k);
                    break;
                }
            }
            for (size_t i = 0; i < b->ncolumns && !e; i++) {
                const pm_field *f = &row_type->fields[i];
                json_t *fv = json_object_get(v, f->name);
                e = pm_column_append_json(b->columns[i], fv);
                if (e)
                    e = pm_error_wrap(e, 0, "line %zu: field '%s'", line_no, f->name);
            }
            json_decref(v);
            rows++;
        }
        p = nl ? nl + 1 : end;
    }
    if (!e)
        e = pm_batch_finish(b, rows);
    if (e) {
        pm_batch_free(b);
        return e;
    }
    *out = b;
    return NULL;
}

pm_error *pm_batch_from_json_lines_typed(pm_batch **out, const char *row_type, const char *text, size_t len)
{
    *out = NULL;
    pm_type *t;
    PM_TRY(pm_type_parse(&t, row_type));
    pm_error *e = pm_batch_from_json_lines(out, t, text, len);
    pm_type_free(t);
    return e;
}
