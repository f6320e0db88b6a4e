/*
 * meta/json.c — Jackson-compatible pretty JSON writer and jansson reading
 * helpers for metadata files.  Layout rules are in json.h.
 */
#include "meta/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"

void pm_jw_init(pm_jw *w, pm_buf *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

static void jw_put(pm_jw *w, const char *s, size_t n)
{
    if (!w->err)
        w->err = pm_buf_append(w->out, s, n);
}

static void jw_puts(pm_jw *w, const char *s) { jw_put(w, s, strlen(s)); }

static void jw_newline_indent(pm_jw *w, int level)
{
    jw_put(w, "\n", 1);
    for (int i = 0; i < level; i++)
        jw_put(w, "  ", 2);
}

/* Called before every value: array separators (object values follow their key). */
static void jw_before_value(pm_jw *w)
{
    if (w->depth == 0)
        return;
    if (w->stack[w->depth - 1].array) {
        jw_puts(w, w->stack[w->depth - 1].count ? ", " : " ");
        w->stack[w->depth - 1].count++;
    }
}

static void jw_push(pm_jw *w, bool array)
{
    if (w->depth == PM_JW_MAX_DEPTH) {
        if (!w->err)
            w->err = pm_error_new(PM_EUNSUPPORTED, "JSON nesting deeper than %d levels", PM_JW_MAX_DEPTH);
        return;
    }
    w->stack[w->depth].array = array;
    w->stack[w->depth].count = 0;
    w->depth++;
    if (!array)
        w->objects++;
}

void pm_jw_begin_object(pm_jw *w)
{
    jw_before_value(w);
    jw_put(w, "{", 1);
    jw_push(w, false);
}

void pm_jw_end_object(pm_jw *w)
{
    if (w->err || w->depth == 0)
        return;
    size_t count = w->stack[w->depth - 1].count;
    w->depth--;
    w->objects--;
    if (count)
        jw_newline_indent(w, w->objects);
    else
        jw_put(w, " ", 1);
    jw_put(w, "}", 1);
}

void pm_jw_begin_array(pm_jw *w)
{
    jw_before_value(w);
    jw_put(w, "[", 1);
    jw_push(w, true);
}

void pm_jw_end_array(pm_jw *w)
{
    if (w->err || w->depth == 0)
        return;
    w->depth--;
    jw_put(w, " ]", 2);
}

pm_error *pm_json_append_string(pm_buf *out, const char *s)
{
    static const char HEX[] = "0123456789ABCDEF";
    PM_TRY(pm_buf_append_byte(out, '"'));
    const char *run = s;
    for (const char *p = s;; p++) {
        unsigned char c = (unsigned char)*p;
        if (c && c >= 0x20 && c != '"' && c != '\\')
            continue;
        PM_TRY(pm_buf_append(out, run, (size_t)(p - run)));
        if (!c)
            break;
        char esc[6] = {'\\', 0};
        size_t n = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\t': esc[1] = 't'; break;
        case '\n': esc[1] = 'n'; break;
        case '\f': esc[1] = 'f'; break;
        case '\r': esc[1] = 'r'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = HEX[c >> 4];
            esc[5] = HEX[c & 15];
            n = 6;
        }
        PM_TRY(pm_buf_append(out, esc, n));
        run = p + 1;
    }
    return pm_buf_append_byte(out, '"');
}

void pm_jw_key(pm_jw *w, const char *key)
{
    if (w->err)
        return;
    if (w->depth == 0 || w->stack[w->depth - 1].array) {
        w->err = pm_error_new(PM_EINTERNAL, "JSON key '%s' outside an object", key);
        return;
    }
    if (w->stack[w->depth - 1].count++)
        jw_put(w, ",", 1);
    jw_newline_indent(w, w->objects);
    if (!w->err)
        w->err = pm_json_append_string(w->out, key);
    jw_put(w, " : ", 3);
}

void pm_jw_string(pm_jw *w, const char *s)
{
    if (!s) {
        pm_jw_null(w);
        return;
    }
    jw_before_value(w);
    if (!w->err)
        w->err = pm_json_append_string(w->out, s);
}

void pm_jw_long(pm_jw *w, int64_t v)
{
    jw_before_value(w);
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%" PRId64, v);
    jw_put(w, buf, (size_t)n);
}

void pm_jw_null(pm_jw *w)
{
    jw_before_value(w);
    jw_put(w, "null", 4);
}

void pm_jw_field_string(pm_jw *w, const char *key, const char *s)
{
    pm_jw_key(w, key);
    pm_jw_string(w, s);
}

void pm_jw_field_long(pm_jw *w, const char *key, int64_t v)
{
    pm_jw_key(w, key);
    pm_jw_long(w, v);
}

pm_error *pm_jw_finish(pm_jw *w)
{
    pm_error *e = w->err;
    w->err = NULL;
    if (!e && w->depth)
        e = pm_error_new(PM_EINTERNAL, "JSON writer finished with %d open containers", w->depth);
    return e;
}

/* ------------------------------------------------------------------ */

pm_error *pm_json_parse_object(const void *data, size_t len, const char *what, json_t **out)
{
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(data, len, 0, &jerr);
    if (!root)
        return pm_error_new(PM_ECORRUPT, "%s: malformed JSON at line %d column %d: %s", what,
                            jerr.line, jerr.column, jerr.text);
    if (!json_is_object(root)) {
        json_decref(root);
        return pm_error_new(PM_ECORRUPT, "%s: JSON document is not an object", what);
    }
    *out = root;
    return NULL;
}

pm_error *pm_json_long_opt(const json_t *obj, const char *key, const char *what, bool *present,
                           int64_t *out)
{
    *present = false;
    *out = 0;
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_integer(v))
        return pm_error_new(PM_ECORRUPT, "%s: field '%s' is not an integer", what, key);
    *out = (int64_t)json_integer_value(v);
    *present = true;
    return NULL;
}

pm_error *pm_json_long(const json_t *obj, const char *key, const char *what, int64_t *out)
{
    bool present;
    PM_TRY(pm_json_long_opt(obj, key, what, &present, out));
    if (!present)
        return pm_error_new(PM_ECORRUPT, "%s: required field '%s' is missing", what, key);
    return NULL;
}

pm_error *pm_json_int(const json_t *obj, const char *key, const char *what, int32_t *out)
{
    int64_t v;
    PM_TRY(pm_json_long(obj, key, what, &v));
    if (v < INT32_MIN || v > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "%s: field '%s' value %" PRId64 " does not fit an int", what,
                            key, v);
    *out = (int32_t)v;
    return NULL;
}

pm_error *pm_json_string_opt(const json_t *obj, const char *key, const char *what, char **out)
{
    *out = NULL;
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v))
        return pm_error_new(PM_ECORRUPT, "%s: field '%s' is not a string", what, key);
    return pm_strndup(out, json_string_value(v), json_string_length(v));
}

pm_error *pm_json_string(const json_t *obj, const char *key, const char *what, char **out)
{
    PM_TRY(pm_json_string_opt(obj, key, what, out));
    if (!*out)
        return pm_error_new(PM_ECORRUPT, "%s: required field '%s' is missing", what, key);
    return NULL;
}
