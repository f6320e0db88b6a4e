/*
 * meta/json.c — Jackson-compatible pretty JSON writer and the strict
 * jansson reading helpers.  Layout and message rules are in json.h.
 */
#include "meta/json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/util.h"

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
/* reading                                                             */

/* path = prefix + sep + seg, truncated with "..." when too long. */
static void path_append(pm_jnode *n, const char *prefix, const char *sep, const char *seg)
{
    int w = snprintf(n->path, sizeof n->path, "%s%s%s", prefix, sep, seg);
    if (w < 0 || (size_t)w >= sizeof n->path)
        memcpy(n->path + sizeof n->path - 4, "...", 4);
}

void pm_json_root(pm_jnode *out, const json_t *v, pm_code code, const char *doc, bool file)
{
    out->v = v;
    out->code = code;
    out->doc = doc ? doc : "JSON";
    out->file = file;
    out->leaf = 0;
    out->path[0] = 0;
}

void pm_json_get(pm_jnode *out, const pm_jnode *obj, const char *key)
{
    pm_jnode c;
    c.v = json_is_object(obj->v) ? json_object_get(obj->v, key) : NULL;
    c.code = obj->code;
    c.doc = obj->doc;
    c.file = obj->file;
    size_t plen = strlen(obj->path);
    c.leaf = plen && plen + 1 < sizeof c.path ? plen + 1 : 0;
    path_append(&c, obj->path, plen ? "." : "", key);
    *out = c;
}

void pm_json_at(pm_jnode *out, const pm_jnode *arr, size_t i)
{
    pm_jnode c;
    c.v = json_is_array(arr->v) ? json_array_get(arr->v, i) : NULL;
    c.code = arr->code;
    c.doc = arr->doc;
    c.file = arr->file;
    c.leaf = arr->leaf; /* an element belongs to its array's key */
    char idx[32];
    snprintf(idx, sizeof idx, "[%zu]", i);
    path_append(&c, arr->path, "", idx);
    *out = c;
}

bool pm_json_is_null(const pm_jnode *n) { return !n->v || json_is_null(n->v); }

pm_error *pm_json_error(const pm_jnode *n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!n->path[0])
        return pm_error_new(n->code, "%s: %s", n->doc, msg);
    if (!n->file)
        return pm_error_new(n->code, "%s.%s: %s", n->doc, n->path, msg);
    if (!n->leaf)
        return pm_error_new(n->code, "%s: field '%s': %s", n->doc, n->path, msg);
    return pm_error_new(n->code, "%s: field '%s' of %.*s: %s", n->doc, n->path + n->leaf, (int)(n->leaf - 1),
                        n->path, msg);
}

pm_error *pm_json_parse_doc(const void *data, size_t len, pm_code code, const char *doc, unsigned flags,
                            json_t **tree, pm_jnode *root)
{
    *tree = NULL;
    pm_jnode r;
    pm_json_root(&r, NULL, code, doc, flags & PM_JSON_FILE);
    if (root)
        *root = r;
    const char *p = data;
    size_t blank = 0;
    while (p && blank < len && (p[blank] == ' ' || p[blank] == '\t' || p[blank] == '\n' || p[blank] == '\r'))
        blank++;
    if (!p || blank == len)
        return pm_json_error(&r, "%s", flags & PM_JSON_FILE ? "empty file" : "empty document");
    json_error_t jerr;
    json_t *v = json_loadb(data, len, flags & PM_JSON_NO_DUPLICATES ? JSON_REJECT_DUPLICATES : 0, &jerr);
    if (!v)
        return pm_json_error(&r, "malformed JSON at line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
    if (!json_is_object(v)) {
        json_decref(v);
        return pm_json_error(&r, "JSON document is not an object");
    }
    *tree = v;
    if (root)
        root->v = v;
    return NULL;
}

pm_error *pm_json_parse_object(const void *data, size_t len, const char *what, json_t **out)
{
    return pm_json_parse_doc(data, len, PM_ECORRUPT, what, PM_JSON_FILE, out, NULL);
}

pm_error *pm_json_keys(const pm_jnode *obj, const char *const *keys)
{
    if (!json_is_object(obj->v))
        return pm_json_error(obj, obj->v ? "expected an object" : "missing");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj->v, k, v) {
        bool known = false;
        for (size_t i = 0; keys[i] && !known; i++)
            known = !strcmp(keys[i], k);
        if (!known)
            return pm_json_error(obj, "unknown field '%s'", k);
    }
    for (size_t i = 0; keys[i]; i++)
        if (!json_object_get(obj->v, keys[i])) {
            pm_jnode c;
            pm_json_get(&c, obj, keys[i]);
            return pm_json_error(&c, "missing");
        }
    return NULL;
}

/* NULL: a value is there; *none = absent/null accepted (nullable) */
static pm_error *presence(const pm_jnode *n, unsigned flags, const char *what, bool *none)
{
    *none = false;
    if (!n->v)
        return flags & PM_JSON_NULLABLE ? (*none = true, NULL) : pm_json_error(n, "missing");
    if (json_is_null(n->v)) {
        if (flags & PM_JSON_NULLABLE) {
            *none = true;
            return NULL;
        }
        return pm_json_error(n, "expected %s", what);
    }
    return NULL;
}

static pm_error *wrong_type(const pm_jnode *n, unsigned flags, const char *what)
{
    return pm_json_error(n, "expected %s%s", what, flags & PM_JSON_NULLABLE ? " or null" : "");
}

pm_error *pm_json_as_object(const pm_jnode *n, unsigned flags, bool *has)
{
    bool none;
    if (has)
        *has = false;
    PM_TRY(presence(n, flags, "an object", &none));
    if (none)
        return NULL;
    if (!json_is_object(n->v))
        return wrong_type(n, flags, "an object");
    if (has)
        *has = true;
    return NULL;
}

pm_error *pm_json_as_opt_i64(const pm_jnode *n, int64_t lo, int64_t hi, bool *has, int64_t *out)
{
    *has = false;
    *out = 0;
    bool none;
    PM_TRY(presence(n, PM_JSON_NULLABLE, "an integer", &none));
    if (none)
        return NULL;
    if (!json_is_integer(n->v))
        return wrong_type(n, PM_JSON_NULLABLE, "an integer");
    int64_t x = (int64_t)json_integer_value(n->v);
    if (x < lo || x > hi)
        return pm_json_error(n, "%" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", x, lo, hi);
    *has = true;
    *out = x;
    return NULL;
}

pm_error *pm_json_as_i64(const pm_jnode *n, int64_t lo, int64_t hi, int64_t *out)
{
    bool none;
    PM_TRY(presence(n, 0, "an integer", &none));
    if (!json_is_integer(n->v))
        return wrong_type(n, 0, "an integer");
    bool has;
    return pm_json_as_opt_i64(n, lo, hi, &has, out);
}

pm_error *pm_json_as_i32(const pm_jnode *n, int32_t lo, int32_t hi, int32_t *out)
{
    int64_t x = 0;
    PM_TRY(pm_json_as_i64(n, lo, hi, &x));
    *out = (int32_t)x;
    return NULL;
}

pm_error *pm_json_as_bool(const pm_jnode *n, bool *out)
{
    bool none;
    PM_TRY(presence(n, 0, "true or false", &none));
    if (!json_is_boolean(n->v))
        return pm_json_error(n, "expected true or false");
    *out = json_is_true(n->v);
    return NULL;
}

/* The node's string (borrowed) after the type and NUL checks. */
static pm_error *string_of(const pm_jnode *n, unsigned flags, const char **s, size_t *len)
{
    *s = NULL;
    *len = 0;
    bool none;
    PM_TRY(presence(n, flags, "a string", &none));
    if (none)
        return NULL;
    if (!json_is_string(n->v))
        return wrong_type(n, flags, "a string");
    *s = json_string_value(n->v);
    *len = json_string_length(n->v);
    if (strlen(*s) != *len)
        return pm_json_error(n, "string contains a NUL character");
    if ((flags & PM_JSON_NONEMPTY) && !*len)
        return pm_json_error(n, "must not be empty");
    return NULL;
}

pm_error *pm_json_as_str(const pm_jnode *n, unsigned flags, char **out)
{
    *out = NULL;
    const char *s;
    size_t len;
    PM_TRY(string_of(n, flags, &s, &len));
    return s ? pm_strndup(out, s, len) : NULL;
}

pm_error *pm_json_as_base64(const pm_jnode *n, unsigned flags, bool *has, pm_buf *out)
{
    *has = false;
    bool none;
    PM_TRY(presence(n, flags, "a base64 string", &none));
    if (none)
        return NULL;
    if (!json_is_string(n->v))
        return wrong_type(n, flags, "a base64 string");
    const char *s = json_string_value(n->v);
    size_t len = json_string_length(n->v);
    if (len % 4)
        return pm_json_error(n, "invalid base64 (length %zu)", len);
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                  c == '/' || (c == '=' && i + 2 >= len && (i + 1 == len || s[i + 1] == '='));
        if (!ok)
            return pm_json_error(n, "invalid base64 character at %zu", i);
    }
    pm_error *e = pm_base64_decode(out, s, len);
    if (e) {
        pm_code c = pm_error_code(e);
        pm_error_free(e);
        return c == PM_ENOMEM ? pm_oom() : pm_json_error(n, "invalid base64");
    }
    *has = true;
    return NULL;
}

pm_error *pm_json_as_enum(const pm_jnode *n, const char *const *names, size_t count, unsigned flags, int *out)
{
    *out = -1;
    const char *s;
    size_t len;
    PM_TRY(string_of(n, flags, &s, &len));
    if (!s)
        return NULL;
    for (size_t i = 0; i < count; i++)
        if (names[i] && !strcmp(names[i], s)) {
            *out = (int)i;
            return NULL;
        }
    char list[256];
    size_t used = 0;
    list[0] = 0;
    for (size_t i = 0; i < count && used + 1 < sizeof list; i++) {
        if (!names[i])
            continue;
        int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return pm_json_error(n, "unknown value \"%.64s\" (expected %s)", s, list);
}

pm_error *pm_json_as_array(const pm_jnode *n, unsigned flags, bool *has, size_t *count)
{
    *count = 0;
    if (has)
        *has = false;
    bool none;
    PM_TRY(presence(n, flags, "an array", &none));
    if (none)
        return NULL;
    if (!json_is_array(n->v))
        return wrong_type(n, flags, "an array");
    *count = json_array_size(n->v);
    if (has)
        *has = true;
    return NULL;
}

pm_error *pm_json_as_str_list(const pm_jnode *n, unsigned flags, bool *has, pm_str_list *out)
{
    memset(out, 0, sizeof *out);
    size_t count = 0;
    PM_TRY(pm_json_as_array(n, flags, has, &count));
    if (!count)
        return NULL;
    PM_TRY(pm_calloc(&out->items, count, sizeof *out->items));
    for (size_t i = 0; i < count; i++) {
        pm_jnode el;
        pm_json_at(&el, n, i);
        pm_error *e = pm_json_as_str(&el, 0, &out->items[i]);
        if (e) {
            pm_str_list_free(out);
            return e;
        }
        out->count = i + 1;
    }
    return NULL;
}

pm_error *pm_json_as_str_map(const pm_jnode *n, unsigned flags, pm_json_member_fn fn, void *ctx)
{
    bool has = false;
    PM_TRY(pm_json_as_object(n, flags, &has));
    if (!has)
        return NULL;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)n->v, k, v) {
        pm_jnode m;
        pm_json_get(&m, n, k);
        const char *s;
        size_t len;
        PM_TRY(string_of(&m, 0, &s, &len));
        PM_TRY(fn(ctx, k, s));
    }
    return NULL;
}

pm_error *pm_json_object(const pm_jnode *obj, const char *key, unsigned flags, pm_jnode *out)
{
    pm_json_get(out, obj, key);
    bool has = false;
    PM_TRY(pm_json_as_object(out, flags, &has));
    if (!has)
        out->v = NULL;
    return NULL;
}

pm_error *pm_json_i64(const pm_jnode *obj, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_i64(&n, lo, hi, out);
}

pm_error *pm_json_i32(const pm_jnode *obj, const char *key, int32_t lo, int32_t hi, int32_t *out)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_i32(&n, lo, hi, out);
}

pm_error *pm_json_opt_i64(const pm_jnode *obj, const char *key, int64_t lo, int64_t hi, bool *has, int64_t *out)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_opt_i64(&n, lo, hi, has, out);
}

pm_error *pm_json_bool(const pm_jnode *obj, const char *key, bool *out)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_bool(&n, out);
}

pm_error *pm_json_str(const pm_jnode *obj, const char *key, unsigned flags, char **out)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_str(&n, flags, out);
}

pm_error *pm_json_base64(const pm_jnode *obj, const char *key, unsigned flags, bool *has, pm_buf *out)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_base64(&n, flags, has, out);
}

pm_error *pm_json_enum(const pm_jnode *obj, const char *key, const char *const *names, size_t count, unsigned flags,
                       int *out)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_enum(&n, names, count, flags, out);
}

pm_error *pm_json_array(const pm_jnode *obj, const char *key, unsigned flags, pm_jnode *arr, size_t *count)
{
    pm_json_get(arr, obj, key);
    bool has = false;
    PM_TRY(pm_json_as_array(arr, flags, &has, count));
    if (!has)
        arr->v = NULL;
    return NULL;
}

pm_error *pm_json_str_list(const pm_jnode *obj, const char *key, unsigned flags, bool *has, pm_str_list *out)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_str_list(&n, flags, has, out);
}

pm_error *pm_json_str_map(const pm_jnode *obj, const char *key, unsigned flags, pm_json_member_fn fn, void *ctx)
{
    pm_jnode n;
    pm_json_get(&n, obj, key);
    return pm_json_as_str_map(&n, flags, fn, ctx);
}
