/*
 * meta/option_parse.c — the value syntax of table options, as Paimon Java
 * parses it (options.h: OptionsUtils, MemorySize.parseBytes,
 * TimeUtils.parseDuration, stats modes, maps with Java's quoting, lists);
 * every parser takes the whole text and refuses anything else with
 * PM_EINVALID naming it.
 */
#include "meta/options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/util.h"

/* Java String.trim(): strip chars <= ' ' at both ends. */
static void java_trim(const char *s, size_t n, const char **b, size_t *len)
{
    size_t i = 0, j = n;
    while (i < j && (unsigned char)s[i] <= ' ')
        i++;
    while (j > i && (unsigned char)s[j - 1] <= ' ')
        j--;
    *b = s + i;
    *len = j - i;
}

/* Long.parseLong over [s, s+n): sign, then at least one ASCII digit. */
static bool parse_java_long(const char *s, size_t n, int64_t *out)
{
    if (n == 0)
        return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
        if (n == 1)
            return false;
    }
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

pm_error *pm_parse_int64(const char *text, int64_t *out)
{
    if (!parse_java_long(text, strlen(text), out))
        return pm_error_new(PM_EINVALID, "'%s' is not a valid long", text);
    return NULL;
}

pm_error *pm_parse_int32(const char *text, int32_t *out)
{
    int64_t v;
    if (!parse_java_long(text, strlen(text), &v) || v < INT32_MIN || v > INT32_MAX)
        return pm_error_new(PM_EINVALID, "'%s' is not a valid int", text);
    *out = (int32_t)v;
    return NULL;
}

pm_error *pm_parse_bool(const char *text, bool *out)
{
    size_t n = strlen(text);
    if (pm_ascii_eq_nocase(text, n, "true"))
        *out = true;
    else if (pm_ascii_eq_nocase(text, n, "false"))
        *out = false;
    else
        return pm_error_new(PM_EINVALID, "'%s' is not a boolean (expected true or false)", text);
    return NULL;
}

pm_error *pm_parse_double(const char *text, double *out)
{
    const char *s;
    size_t n;
    java_trim(text, strlen(text), &s, &n);
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    if (n - i == 3 && memcmp(s + i, "NaN", 3) == 0) {
        *out = NAN;
        return NULL;
    }
    if (n - i == 8 && memcmp(s + i, "Infinity", 8) == 0) {
        *out = neg ? -INFINITY : INFINITY;
        return NULL;
    }
    /* digits [. digits] [e [sign] digits] [fFdD], at least one mantissa digit */
    size_t mant = 0, j = i;
    while (j < n && s[j] >= '0' && s[j] <= '9')
        j++, mant++;
    if (j < n && s[j] == '.') {
        j++;
        while (j < n && s[j] >= '0' && s[j] <= '9')
            j++, mant++;
    }
    bool ok = mant > 0;
    if (ok && j < n && (s[j] == 'e' || s[j] == 'E')) {
        j++;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        size_t ed = 0;
        while (j < n && s[j] >= '0' && s[j] <= '9')
            j++, ed++;
        ok = ed > 0;
    }
    size_t end = j;
    if (ok && j < n && strchr("fFdD", s[j]))
        j++;
    if (!ok || j != n)
        return pm_error_new(PM_EINVALID, "'%s' is not a valid double", text);
    char buf[128];
    if (end >= sizeof buf)
        return pm_error_new(PM_EINVALID, "'%s' is not a valid double (too long)", text);
    memcpy(buf, s, end);
    buf[end] = '\0';
    *out = strtod(buf, NULL);
    return NULL;
}

typedef struct unit_def {
    const char *label;
    int64_t mult;
} unit_def;

static const unit_def MEMORY_UNITS[] = {
    {"b", 1}, {"bytes", 1},
    {"k", 1024}, {"kb", 1024}, {"kibibytes", 1024},
    {"m", 1024 * 1024}, {"mb", 1024 * 1024}, {"mebibytes", 1024 * 1024},
    {"g", 1024LL * 1024 * 1024}, {"gb", 1024LL * 1024 * 1024}, {"gibibytes", 1024LL * 1024 * 1024},
    {"t", 1024LL * 1024 * 1024 * 1024}, {"tb", 1024LL * 1024 * 1024 * 1024},
    {"tebibytes", 1024LL * 1024 * 1024 * 1024},
};

/* Split trimmed text into leading digits and a trimmed unit (shared by memory and duration). */
static pm_error *split_number_unit(const char *text, const char *what, int64_t *value,
                                   const char **unit, size_t *unit_len)
{
    const char *s;
    size_t n;
    java_trim(text, strlen(text), &s, &n);
    if (n == 0)
        return pm_error_new(PM_EINVALID, "'%s' is not a valid %s: empty", text, what);
    size_t pos = 0;
    while (pos < n && s[pos] >= '0' && s[pos] <= '9')
        pos++;
    if (pos == 0)
        return pm_error_new(PM_EINVALID, "'%s' is not a valid %s: does not start with a number",
                            text, what);
    if (!parse_java_long(s, pos, value))
        return pm_error_new(PM_EINVALID, "'%s' is not a valid %s: numeric overflow", text, what);
    java_trim(s + pos, n - pos, unit, unit_len);
    return NULL;
}

pm_error *pm_parse_memory_size(const char *text, int64_t *bytes)
{
    int64_t v;
    const char *u;
    size_t un;
    PM_TRY(split_number_unit(text, "memory size", &v, &u, &un));
    int64_t mult = 1;
    if (un) {
        bool found = false;
        for (size_t i = 0; i < sizeof MEMORY_UNITS / sizeof *MEMORY_UNITS; i++) {
            if (pm_ascii_eq_nocase(u, un, MEMORY_UNITS[i].label)) {
                mult = MEMORY_UNITS[i].mult;
                found = true;
                break;
            }
        }
        if (!found)
            return pm_error_new(PM_EINVALID,
                                "'%s' is not a valid memory size: unknown unit '%.*s' (expected "
                                "b, bytes, k, kb, kibibytes, m, mb, mebibytes, g, gb, gibibytes, t, "
                                "tb, tebibytes)",
                                text, (int)un, u);
    }
    int64_t r;
    if (__builtin_mul_overflow(v, mult, &r))
        return pm_error_new(PM_EINVALID, "'%s' is not a valid memory size: numeric overflow", text);
    *bytes = r;
    return NULL;
}

/* Duration units: label → (multiplier to ms, divisor from value to ms). */
typedef struct dur_unit {
    const char *label;
    int64_t ms_mult;  /* >0: value * ms_mult */
    int64_t ms_div;   /* >0: value / ms_div (sub-millisecond units) */
} dur_unit;

static const dur_unit DURATION_UNITS[] = {
    {"d", 86400000, 0}, {"day", 86400000, 0}, {"days", 86400000, 0},
    {"h", 3600000, 0}, {"hour", 3600000, 0}, {"hours", 3600000, 0},
    {"min", 60000, 0}, {"m", 60000, 0}, {"minute", 60000, 0}, {"minutes", 60000, 0},
    {"s", 1000, 0}, {"sec", 1000, 0}, {"secs", 1000, 0}, {"second", 1000, 0}, {"seconds", 1000, 0},
    {"ms", 1, 0}, {"milli", 1, 0}, {"millis", 1, 0}, {"millisecond", 1, 0}, {"milliseconds", 1, 0},
    {"\xc2\xb5s", 0, 1000}, {"micro", 0, 1000}, {"micros", 0, 1000}, {"microsecond", 0, 1000},
    {"microseconds", 0, 1000},
    {"ns", 0, 1000000}, {"nano", 0, 1000000}, {"nanos", 0, 1000000}, {"nanosecond", 0, 1000000},
    {"nanoseconds", 0, 1000000},
};

pm_error *pm_parse_duration_ms(const char *text, int64_t *millis)
{
    int64_t v;
    const char *u;
    size_t un;
    PM_TRY(split_number_unit(text, "duration", &v, &u, &un));
    if (un == 0) {
        *millis = v;
        return NULL;
    }
    for (size_t i = 0; i < sizeof DURATION_UNITS / sizeof *DURATION_UNITS; i++) {
        const dur_unit *d = &DURATION_UNITS[i];
        if (!pm_ascii_eq_nocase(u, un, d->label))
            continue;
        if (d->ms_div) {
            *millis = v / d->ms_div;
            return NULL;
        }
        int64_t r;
        if (__builtin_mul_overflow(v, d->ms_mult, &r))
            return pm_error_new(PM_EINVALID, "'%s' is not a valid duration: numeric overflow", text);
        *millis = r;
        return NULL;
    }
    return pm_error_new(PM_EINVALID,
                        "'%s' is not a valid duration: unknown unit '%.*s' (expected d, h, min, m, "
                        "s, ms, \xc2\xb5s, ns or their long forms)",
                        text, (int)un, u);
}

pm_error *pm_parse_stats_mode(const char *text, pm_stats_mode *out)
{
    size_t n = strlen(text);
    if (pm_ascii_eq_nocase(text, n, "none")) {
        *out = (pm_stats_mode){PM_STATS_NONE, 0};
        return NULL;
    }
    if (pm_ascii_eq_nocase(text, n, "full")) {
        *out = (pm_stats_mode){PM_STATS_FULL, 0};
        return NULL;
    }
    if (pm_ascii_eq_nocase(text, n, "counts")) {
        *out = (pm_stats_mode){PM_STATS_COUNTS, 0};
        return NULL;
    }
    /* TRUNCATE\((\d+)\) on the upper-cased text; the number must fit an int */
    if (n > 10 && pm_ascii_eq_nocase(text, 9, "truncate(") && text[n - 1] == ')') {
        const char *d = text + 9;
        size_t dn = n - 10;
        bool digits = dn > 0;
        for (size_t i = 0; i < dn; i++)
            digits = digits && d[i] >= '0' && d[i] <= '9';
        int64_t v;
        if (digits && parse_java_long(d, dn, &v) && v <= INT32_MAX) {
            *out = (pm_stats_mode){PM_STATS_TRUNCATE, (int32_t)v};
            return NULL;
        }
    }
    return pm_error_new(PM_EINVALID,
                        "'%s' is not a valid stats mode (expected none, counts, full or truncate(N))",
                        text);
}

void pm_kv_list_free(pm_kv_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].key);
        free(l->items[i].value);
    }
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

void pm_str_list_free(pm_str_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

static pm_error *str_list_push(pm_str_list *l, const char *s, size_t n)
{
    PM_TRY(pm_realloc_array(&l->items, l->count + 1, sizeof(char *)));
    PM_TRY(pm_strndup(&l->items[l->count], s, n));
    l->count++;
    return NULL;
}

/*
 * Java StructuredOptionsSplitter.splitEscaped: tokens are quoted strings
 * ('..' or "..", a doubled quote escapes it), delimiters, or unquoted runs
 * (trimmed); whitespace between tokens is skipped.  A quoted token must be
 * followed by a delimiter or the end.  Two delimiters in a row yield "".
 */
static pm_error *split_escaped(const char *s, size_t n, char delim, pm_str_list *out)
{
    enum { T_QUOTED, T_UNQUOTED, T_DELIM } prev = T_DELIM;
    bool have_prev = false;
    pm_buf tok = PM_BUF_INIT;
    pm_error *e = NULL;
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            if (have_prev && prev == T_QUOTED) {
                e = pm_error_new(PM_EINVALID, "illegal quoting at position %zu", i);
                goto done;
            }
            pm_buf_clear(&tok);
            size_t j = i + 1;
            bool closed = false;
            while (j < n) {
                if (s[j] == c) {
                    if (j + 1 < n && s[j + 1] == c) {
                        PM_TRY_GOTO(e, pm_buf_append_byte(&tok, (uint8_t)c), done);
                        j += 2;
                        continue;
                    }
                    closed = true;
                    j++;
                    break;
                }
                PM_TRY_GOTO(e, pm_buf_append_byte(&tok, (uint8_t)s[j]), done);
                j++;
            }
            if (!closed) {
                e = pm_error_new(PM_EINVALID, "quoting was not closed properly");
                goto done;
            }
            PM_TRY_GOTO(e, str_list_push(out, tok.data ? (const char *)tok.data : "", tok.len),
                        done);
            prev = T_QUOTED;
            have_prev = true;
            i = j;
        } else if (c == delim) {
            if (have_prev && prev == T_DELIM)
                PM_TRY_GOTO(e, str_list_push(out, "", 0), done);
            prev = T_DELIM;
            have_prev = true;
            i++;
        } else if ((unsigned char)c <= ' ') {
            i++;
        } else {
            if (have_prev && prev == T_QUOTED) {
                e = pm_error_new(PM_EINVALID, "illegal quoting at position %zu", i - 1);
                goto done;
            }
            size_t j = i;
            while (j < n && s[j] != delim)
                j++;
            const char *b;
            size_t len;
            java_trim(s + i, j - i, &b, &len);
            PM_TRY_GOTO(e, str_list_push(out, b, len), done);
            prev = T_UNQUOTED;
            have_prev = true;
            i = j;
        }
    }
done:
    pm_buf_free(&tok);
    if (e)
        pm_str_list_free(out);
    return e;
}

pm_error *pm_parse_map(const char *text, pm_kv_list *out)
{
    out->items = NULL;
    out->count = 0;
    pm_str_list items = {0};
    PM_TRY(split_escaped(text, strlen(text), ',', &items));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_calloc(&out->items, items.count, sizeof(pm_kv)), fail);
    for (size_t i = 0; i < items.count; i++) {
        pm_str_list kv = {0};
        PM_TRY_GOTO(e, split_escaped(items.items[i], strlen(items.items[i]), ':', &kv), fail);
        if (kv.count != 2) {
            pm_str_list_free(&kv);
            e = pm_error_new(PM_EINVALID, "map item '%s' is not a key-value pair (missing ':'?)",
                             items.items[i]);
            goto fail;
        }
        for (size_t j = 0; j < out->count; j++) {
            if (strcmp(out->items[j].key, kv.items[0]) == 0) {
                e = pm_error_new(PM_EINVALID, "duplicate map key '%s'", kv.items[0]);
                pm_str_list_free(&kv);
                goto fail;
            }
        }
        out->items[out->count].key = kv.items[0];
        out->items[out->count].value = kv.items[1];
        out->count++;
        free(kv.items);
    }
    pm_str_list_free(&items);
    return NULL;
fail:
    pm_str_list_free(&items);
    pm_kv_list_free(out);
    return e;
}

pm_error *pm_parse_list(const char *text, pm_str_list *out)
{
    out->items = NULL;
    out->count = 0;
    const char *s;
    size_t n;
    java_trim(text, strlen(text), &s, &n);
    if (n == 0)
        return NULL;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == ',') {
            const char *b;
            size_t len;
            java_trim(s + start, i - start, &b, &len);
            pm_error *e = str_list_push(out, b, len);
            if (e) {
                pm_str_list_free(out);
                return e;
            }
            start = i + 1;
        }
    }
    return NULL;
}

