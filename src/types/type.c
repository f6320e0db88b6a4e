/*
 * types/type.c — Paimon logical types: construction, copying, comparison,
 * and the SQL string form of Paimon's schema JSON (printing and parsing).
 *
 * String form (printed exactly as Paimon Java's asSQLString, except that ROW
 * field names are only backquoted when they are not plain identifiers):
 *   BOOLEAN TINYINT SMALLINT INT BIGINT FLOAT DOUBLE DATE VARIANT BLOB
 *   CHAR(n) VARCHAR(n) BINARY(n) VARBINARY(n)   VARCHAR(max) = STRING,
 *                                               VARBINARY(max) = BYTES
 *   DECIMAL(p, s)  TIME(p)  TIMESTAMP(p)  TIMESTAMP(p) WITH LOCAL TIME ZONE
 *   ARRAY<T>  MULTISET<T>  MAP<K, V>  ROW<name T ['description'], ...>
 * each followed by " NOT NULL" when the type is not nullable.
 *
 * Parsing is a small recursive-descent parser over a tokenizer (identifiers,
 * backquoted identifiers with `` as escaped backquote, integers, quoted
 * 'strings' with '' escape, punctuation).  Keywords are case-insensitive;
 * aliases INTEGER, NUMERIC, DEC, STRING, BYTES, TIMESTAMP_LTZ and the
 * optional "WITHOUT TIME ZONE" are accepted, as is ROW(...) with
 * parentheses.  Omitted parameters take Paimon's defaults (CHAR/VARCHAR/
 * BINARY/VARBINARY length 1, DECIMAL(10, 0), TIME(0), TIMESTAMP(6)).  ROW
 * fields parsed from a string get ids 0, 1, 2, ... in pre-order over the
 * whole tree (a field's id before the ids of its nested fields), which is
 * how Paimon's schema builder numbers new columns.
 */
#include "paimon/types.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/utf8.h"

/* ------------------------------------------------------------------ */
/* Construction                                                        */

static pm_type *alloc_type(pm_type_id id, bool nullable)
{
    pm_type *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->id = id;
    t->nullable = nullable;
    return t;
}

pm_type *pm_type_new(pm_type_id id, bool nullable)
{
    switch (id) {
    case PM_TYPE_ARRAY:
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET:
        return NULL; /* need element types: use the dedicated constructors */
    case PM_TYPE_DECIMAL:
        return pm_type_new_decimal(10, 0, nullable);
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
        return pm_type_new_string(id, 1, nullable);
    case PM_TYPE_TIME:
        return pm_type_new_temporal(id, 0, nullable);
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return pm_type_new_temporal(id, 6, nullable);
    default:
        return alloc_type(id, nullable);
    }
}

pm_type *pm_type_new_decimal(int32_t precision, int32_t scale, bool nullable)
{
    pm_type *t = alloc_type(PM_TYPE_DECIMAL, nullable);
    if (t) {
        t->precision = precision;
        t->scale = scale;
    }
    return t;
}

pm_type *pm_type_new_string(pm_type_id id, int32_t length, bool nullable)
{
    pm_type *t = alloc_type(id, nullable);
    if (t)
        t->length = length;
    return t;
}

pm_type *pm_type_new_temporal(pm_type_id id, int32_t precision, bool nullable)
{
    pm_type *t = alloc_type(id, nullable);
    if (t)
        t->precision = precision;
    return t;
}

pm_type *pm_type_new_array(pm_type *element, bool nullable)
{
    if (!element)
        return NULL;
    pm_type *t = alloc_type(PM_TYPE_ARRAY, nullable);
    if (!t) {
        pm_type_free(element);
        return NULL;
    }
    t->element = element;
    return t;
}

pm_type *pm_type_new_multiset(pm_type *element, bool nullable)
{
    pm_type *t = pm_type_new_array(element, nullable);
    if (t)
        t->id = PM_TYPE_MULTISET;
    return t;
}

pm_type *pm_type_new_map(pm_type *key, pm_type *value, bool nullable)
{
    pm_type *t = (key && value) ? alloc_type(PM_TYPE_MAP, nullable) : NULL;
    if (!t) {
        pm_type_free(key);
        pm_type_free(value);
        return NULL;
    }
    t->key = key;
    t->value = value;
    return t;
}

pm_type *pm_type_new_row(bool nullable)
{
    return alloc_type(PM_TYPE_ROW, nullable);
}

pm_error *pm_type_add_field(pm_type *row, int32_t id, const char *name, pm_type *type)
{
    if (!row || row->id != PM_TYPE_ROW || !name || !type) {
        pm_type_free(type);
        return pm_error_new(PM_EINVALID, "pm_type_add_field needs a ROW type, a name and a type");
    }
    pm_error *e = pm_realloc_array(&row->fields, row->nfields + 1, sizeof *row->fields);
    if (e) {
        pm_type_free(type);
        return e;
    }
    pm_field *f = &row->fields[row->nfields];
    memset(f, 0, sizeof *f);
    e = pm_strdup(&f->name, name);
    if (e) {
        pm_type_free(type);
        return e;
    }
    f->id = id;
    f->type = type;
    row->nfields++;
    return NULL;
}

static void free_fields(pm_field *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(fields[i].name);
        free(fields[i].description);
        free(fields[i].default_value);
        pm_type_free(fields[i].type);
    }
    free(fields);
}

void pm_type_free(pm_type *t)
{
    if (!t)
        return;
    pm_type_free(t->element);
    pm_type_free(t->key);
    pm_type_free(t->value);
    free_fields(t->fields, t->nfields);
    free(t);
}

pm_type *pm_type_clone(const pm_type *t)
{
    if (!t)
        return NULL;
    pm_type *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *t;
    c->element = c->key = c->value = NULL;
    c->fields = NULL;
    c->nfields = 0;
    if ((t->element && !(c->element = pm_type_clone(t->element))) ||
        (t->key && !(c->key = pm_type_clone(t->key))) ||
        (t->value && !(c->value = pm_type_clone(t->value))))
        goto fail;
    if (t->nfields) {
        c->fields = calloc(t->nfields, sizeof *c->fields);
        if (!c->fields)
            goto fail;
        for (size_t i = 0; i < t->nfields; i++) {
            const pm_field *s = &t->fields[i];
            pm_field *d = &c->fields[i];
            c->nfields = i + 1;
            d->id = s->id;
            if ((s->name && !(d->name = strdup(s->name))) ||
                (s->description && !(d->description = strdup(s->description))) ||
                (s->default_value && !(d->default_value = strdup(s->default_value))) ||
                !(d->type = pm_type_clone(s->type)))
                goto fail;
        }
    }
    return c;
fail:
    pm_type_free(c);
    return NULL;
}

static bool type_equals(const pm_type *a, const pm_type *b, bool nullability)
{
    if (a == b)
        return true;
    if (!a || !b || a->id != b->id)
        return false;
    if (nullability && a->nullable != b->nullable)
        return false;
    switch (a->id) {
    case PM_TYPE_DECIMAL:
        return a->precision == b->precision && a->scale == b->scale;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
        return a->length == b->length;
    case PM_TYPE_TIME:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return a->precision == b->precision;
    case PM_TYPE_ARRAY:
    case PM_TYPE_MULTISET:
        return type_equals(a->element, b->element, nullability);
    case PM_TYPE_MAP:
        return type_equals(a->key, b->key, nullability) && type_equals(a->value, b->value, nullability);
    case PM_TYPE_ROW:
        if (a->nfields != b->nfields)
            return false;
        for (size_t i = 0; i < a->nfields; i++) {
            const pm_field *fa = &a->fields[i], *fb = &b->fields[i];
            if (fa->id != fb->id || strcmp(fa->name, fb->name) != 0 ||
                !type_equals(fa->type, fb->type, nullability))
                return false;
        }
        return true;
    default:
        return true;
    }
}

bool pm_type_equals(const pm_type *a, const pm_type *b) { return type_equals(a, b, true); }
bool pm_type_equals_ignore_nullable(const pm_type *a, const pm_type *b) { return type_equals(a, b, false); }

ptrdiff_t pm_type_field_index(const pm_type *row, const char *name)
{
    if (!row || row->id != PM_TYPE_ROW || !name)
        return -1;
    for (size_t i = 0; i < row->nfields; i++)
        if (strcmp(row->fields[i].name, name) == 0)
            return (ptrdiff_t)i;
    return -1;
}

ptrdiff_t pm_type_field_index_by_id(const pm_type *row, int32_t id)
{
    if (!row || row->id != PM_TYPE_ROW)
        return -1;
    for (size_t i = 0; i < row->nfields; i++)
        if (row->fields[i].id == id)
            return (ptrdiff_t)i;
    return -1;
}

static const char *const type_names[] = {
    [PM_TYPE_BOOLEAN] = "BOOLEAN",   [PM_TYPE_TINYINT] = "TINYINT",
    [PM_TYPE_SMALLINT] = "SMALLINT", [PM_TYPE_INT] = "INT",
    [PM_TYPE_BIGINT] = "BIGINT",     [PM_TYPE_FLOAT] = "FLOAT",
    [PM_TYPE_DOUBLE] = "DOUBLE",     [PM_TYPE_DECIMAL] = "DECIMAL",
    [PM_TYPE_CHAR] = "CHAR",         [PM_TYPE_VARCHAR] = "VARCHAR",
    [PM_TYPE_BINARY] = "BINARY",     [PM_TYPE_VARBINARY] = "VARBINARY",
    [PM_TYPE_DATE] = "DATE",         [PM_TYPE_TIME] = "TIME",
    [PM_TYPE_TIMESTAMP] = "TIMESTAMP",
    [PM_TYPE_TIMESTAMP_LTZ] = "TIMESTAMP_LTZ",
    [PM_TYPE_ARRAY] = "ARRAY",       [PM_TYPE_MAP] = "MAP",
    [PM_TYPE_MULTISET] = "MULTISET", [PM_TYPE_ROW] = "ROW",
    [PM_TYPE_VARIANT] = "VARIANT",   [PM_TYPE_BLOB] = "BLOB",
};

const char *pm_type_id_name(pm_type_id id)
{
    if ((unsigned)id < sizeof type_names / sizeof type_names[0] && type_names[id])
        return type_names[id];
    return "UNKNOWN";
}

bool pm_type_is_nested(const pm_type *t)
{
    return t && (t->id == PM_TYPE_ARRAY || t->id == PM_TYPE_MAP || t->id == PM_TYPE_MULTISET ||
                 t->id == PM_TYPE_ROW);
}

/* ------------------------------------------------------------------ */
/* Printing                                                            */

static bool plain_identifier(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

static pm_error *print_type(pm_buf *b, const pm_type *t)
{
    if (!t)
        return pm_error_new(PM_EINVALID, "missing type");
    switch (t->id) {
    case PM_TYPE_DECIMAL:
        PM_TRY(pm_buf_printf(b, "DECIMAL(%d, %d)", (int)t->precision, (int)t->scale));
        break;
    case PM_TYPE_CHAR:
    case PM_TYPE_BINARY:
        PM_TRY(pm_buf_printf(b, "%s(%d)", pm_type_id_name(t->id), (int)t->length));
        break;
    case PM_TYPE_VARCHAR:
    case PM_TYPE_VARBINARY:
        if (t->length == PM_MAX_LENGTH)
            PM_TRY(pm_buf_append_str(b, t->id == PM_TYPE_VARCHAR ? "STRING" : "BYTES"));
        else
            PM_TRY(pm_buf_printf(b, "%s(%d)", pm_type_id_name(t->id), (int)t->length));
        break;
    case PM_TYPE_TIME:
    case PM_TYPE_TIMESTAMP:
        PM_TRY(pm_buf_printf(b, "%s(%d)", pm_type_id_name(t->id), (int)t->precision));
        break;
    case PM_TYPE_TIMESTAMP_LTZ:
        PM_TRY(pm_buf_printf(b, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", (int)t->precision));
        break;
    case PM_TYPE_ARRAY:
    case PM_TYPE_MULTISET:
        PM_TRY(pm_buf_printf(b, "%s<", pm_type_id_name(t->id)));
        PM_TRY(print_type(b, t->element));
        PM_TRY(pm_buf_append_byte(b, '>'));
        break;
    case PM_TYPE_MAP:
        PM_TRY(pm_buf_append_str(b, "MAP<"));
        PM_TRY(print_type(b, t->key));
        PM_TRY(pm_buf_append_str(b, ", "));
        PM_TRY(print_type(b, t->value));
        PM_TRY(pm_buf_append_byte(b, '>'));
        break;
    case PM_TYPE_ROW:
        PM_TRY(pm_buf_append_str(b, "ROW<"));
        for (size_t i = 0; i < t->nfields; i++) {
            const pm_field *f = &t->fields[i];
            if (i)
                PM_TRY(pm_buf_append_str(b, ", "));
            if (plain_identifier(f->name)) {
                PM_TRY(pm_buf_append_str(b, f->name));
            } else {
                PM_TRY(pm_buf_append_byte(b, '`'));
                for (const char *p = f->name; *p; p++) {
                    if (*p == '`')
                        PM_TRY(pm_buf_append_byte(b, '`'));
                    PM_TRY(pm_buf_append_byte(b, (uint8_t)*p));
                }
                PM_TRY(pm_buf_append_byte(b, '`'));
            }
            PM_TRY(pm_buf_append_byte(b, ' '));
            PM_TRY(print_type(b, f->type));
            if (f->description) {
                PM_TRY(pm_buf_append_str(b, " '"));
                for (const char *p = f->description; *p; p++) {
                    if (*p == '\'')
                        PM_TRY(pm_buf_append_byte(b, '\''));
                    PM_TRY(pm_buf_append_byte(b, (uint8_t)*p));
                }
                PM_TRY(pm_buf_append_byte(b, '\''));
            }
        }
        PM_TRY(pm_buf_append_byte(b, '>'));
        break;
    default:
        PM_TRY(pm_buf_append_str(b, pm_type_id_name(t->id)));
        break;
    }
    if (!t->nullable)
        PM_TRY(pm_buf_append_str(b, " NOT NULL"));
    return NULL;
}

char *pm_type_to_string(const pm_type *t)
{
    pm_buf b = PM_BUF_INIT;
    const char *s;
    pm_error *e = print_type(&b, t);
    if (!e)
        e = pm_buf_cstr(&b, &s);
    if (e) {
        pm_error_free(e);
        pm_buf_free(&b);
        return NULL;
    }
    size_t n;
    return (char *)pm_buf_detach(&b, &n);
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */

typedef enum { TK_END, TK_IDENT, TK_QIDENT, TK_INT, TK_STRING, TK_PUNCT } tok_kind;

typedef struct parser {
    const char *text;
    const char *p;        /* next unread character */
    tok_kind kind;        /* current token */
    const char *tok;      /* start of current token */
    size_t len;           /* its length */
    char punct;
    int32_t next_field_id;
    int depth;
} parser;

#define MAX_DEPTH 64

static pm_error *perr(const parser *ps, const char *fmt, const char *detail)
{
    pm_error *e = pm_error_new(PM_EINVALID, fmt, detail);
    return pm_error_wrap(e, 0, "type '%s' at position %d", ps->text, (int)(ps->tok - ps->text));
}

static pm_error *next(parser *ps)
{
    const char *p = ps->p;
    while (*p && isspace((unsigned char)*p))
        p++;
    ps->tok = p;
    if (!*p) {
        ps->kind = TK_END;
        ps->len = 0;
    } else if (isalpha((unsigned char)*p) || *p == '_') {
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        ps->kind = TK_IDENT;
        ps->len = (size_t)(p - ps->tok);
    } else if (isdigit((unsigned char)*p)) {
        while (isdigit((unsigned char)*p))
            p++;
        ps->kind = TK_INT;
        ps->len = (size_t)(p - ps->tok);
    } else if (*p == '`' || *p == '\'') {
        char q = *p++;
        for (;;) {
            if (!*p)
                return perr(ps, "unterminated %s", q == '`' ? "quoted identifier" : "string");
            if (*p == q) {
                if (p[1] == q) {
                    p += 2;
                    continue;
                }
                p++;
                break;
            }
            p++;
        }
        ps->kind = q == '`' ? TK_QIDENT : TK_STRING;
        ps->len = (size_t)(p - ps->tok);
        /* names and comments are text: Paimon's schema JSON, Parquet's
         * SchemaElement.name and ORC's field names must be UTF-8 */
        if (!pm_utf8_valid((const uint8_t *)ps->tok + 1, ps->len - 2))
            return perr(ps, "%s is not UTF-8", q == '`' ? "quoted identifier" : "string");
    } else if (strchr("(),<>", *p)) {
        ps->kind = TK_PUNCT;
        ps->punct = *p++;
        ps->len = 1;
    } else {
        char c[2] = {*p, 0};
        return perr(ps, "unexpected character '%s'", c);
    }
    ps->p = p;
    return NULL;
}

static bool is_kw(const parser *ps, const char *kw)
{
    return ps->kind == TK_IDENT && strlen(kw) == ps->len && strncasecmp(ps->tok, kw, ps->len) == 0;
}

static bool is_punct(const parser *ps, char c) { return ps->kind == TK_PUNCT && ps->punct == c; }

static pm_error *expect_punct(parser *ps, char c)
{
    if (!is_punct(ps, c)) {
        char s[2] = {c, 0};
        return perr(ps, "expected '%s'", s);
    }
    return next(ps);
}

static pm_error *expect_kw(parser *ps, const char *kw)
{
    if (!is_kw(ps, kw))
        return perr(ps, "expected %s", kw);
    return next(ps);
}

/* Current token as a non-negative int32. */
static pm_error *take_int(parser *ps, const char *what, int32_t *out)
{
    if (ps->kind != TK_INT)
        return perr(ps, "expected a number for the %s", what);
    long long v = 0;
    for (size_t i = 0; i < ps->len; i++) {
        v = v * 10 + (ps->tok[i] - '0');
        if (v > INT32_MAX)
            return perr(ps, "%s is larger than 2147483647", what);
    }
    *out = (int32_t)v;
    return next(ps);
}

/* Optional "(n)"; keeps *out when absent. */
static pm_error *opt_param(parser *ps, const char *what, int32_t *out)
{
    if (!is_punct(ps, '('))
        return NULL;
    PM_TRY(next(ps));
    PM_TRY(take_int(ps, what, out));
    return expect_punct(ps, ')');
}

/* Unquote the current identifier or quoted-identifier/string token. */
static pm_error *token_text(const parser *ps, char **out)
{
    if (ps->kind == TK_IDENT)
        return pm_strndup(out, ps->tok, ps->len);
    char q = ps->tok[0];
    char *s = malloc(ps->len);
    if (!s)
        return pm_oom();
    size_t n = 0;
    for (size_t i = 1; i + 1 < ps->len; i++) {
        s[n++] = ps->tok[i];
        if (ps->tok[i] == q)
            i++; /* doubled quote */
    }
    s[n] = '\0';
    *out = s;
    return NULL;
}

static pm_error *parse_type(parser *ps, pm_type **out);

static pm_error *parse_row_fields(parser *ps, pm_type *row, char close)
{
    if (is_punct(ps, close))
        return next(ps); /* ROW<> */
    for (;;) {
        if (ps->kind != TK_IDENT && ps->kind != TK_QIDENT)
            return perr(ps, "expected a field name%s", "");
        char *name = NULL;
        PM_TRY(token_text(ps, &name));
        if (pm_type_field_index(row, name) >= 0) {
            pm_error *e = perr(ps, "duplicate field name '%s'", name);
            free(name);
            return e;
        }
        int32_t id = ps->next_field_id++;
        pm_type *ft = NULL;
        pm_error *e = next(ps);
        if (!e)
            e = parse_type(ps, &ft);
        if (!e)
            e = pm_type_add_field(row, id, name, ft);
        free(name);
        if (e)
            return e;
        if (ps->kind == TK_STRING) {
            pm_field *f = &row->fields[row->nfields - 1];
            PM_TRY(token_text(ps, &f->description));
            PM_TRY(next(ps));
        }
        if (is_punct(ps, close))
            return next(ps);
        PM_TRY(expect_punct(ps, ','));
    }
}

static pm_error *check_range(parser *ps, const char *tok, const char *fmt, long v, long lo, long hi)
{
    if (v < lo || v > hi) {
        ps->tok = tok;
        pm_error *e = pm_error_new(PM_EINVALID, fmt, v, lo, hi);
        return pm_error_wrap(e, 0, "type '%s' at position %d", ps->text, (int)(tok - ps->text));
    }
    return NULL;
}

/* DECIMAL | NUMERIC | DEC [(p [, s])] at the keyword. */
static pm_error *parse_decimal(parser *ps, pm_type **out)
{
    int32_t p = 10, s = 0;
    PM_TRY(next(ps));
    const char *ptok = ps->tok, *stok = ps->tok;
    if (is_punct(ps, '(')) {
        PM_TRY(next(ps));
        ptok = ps->tok;
        PM_TRY(take_int(ps, "DECIMAL precision", &p));
        if (is_punct(ps, ',')) {
            PM_TRY(next(ps));
            stok = ps->tok;
            PM_TRY(take_int(ps, "DECIMAL scale", &s));
        }
        PM_TRY(expect_punct(ps, ')'));
    }
    PM_TRY(check_range(ps, ptok, "DECIMAL precision %ld is out of range %ld..%ld", p, 1, 38));
    PM_TRY(check_range(ps, stok, "DECIMAL scale %ld is out of range %ld..%ld (the precision)", s, 0, p));
    *out = pm_type_new_decimal(p, s, true);
    return *out ? NULL : pm_oom();
}

/* TIME [(p)] [WITHOUT TIME ZONE], TIMESTAMP [(p)] [WITH[OUT] [LOCAL] TIME
 * ZONE], TIMESTAMP_LTZ [(p)] at the keyword. */
static pm_error *parse_temporal(parser *ps, pm_type **out)
{
    pm_type_id id = is_kw(ps, "TIME") ? PM_TYPE_TIME
                    : is_kw(ps, "TIMESTAMP") ? PM_TYPE_TIMESTAMP
                                             : PM_TYPE_TIMESTAMP_LTZ;
    int32_t p = id == PM_TYPE_TIME ? 0 : 6;
    PM_TRY(next(ps));
    const char *ptok = ps->tok;
    PM_TRY(opt_param(ps, id == PM_TYPE_TIME ? "TIME precision" : "TIMESTAMP precision", &p));
    ptok = ptok[0] == '(' ? ptok + 1 : ptok;
    PM_TRY(check_range(ps, ptok,
                       id == PM_TYPE_TIME ? "TIME precision %ld is out of range %ld..%ld"
                                          : "TIMESTAMP precision %ld is out of range %ld..%ld",
                       p, 0, 9));
    if (id != PM_TYPE_TIMESTAMP_LTZ && is_kw(ps, "WITHOUT")) {
        PM_TRY(next(ps));
        PM_TRY(expect_kw(ps, "TIME"));
        PM_TRY(expect_kw(ps, "ZONE"));
    } else if (id == PM_TYPE_TIMESTAMP && is_kw(ps, "WITH")) {
        PM_TRY(next(ps));
        PM_TRY(expect_kw(ps, "LOCAL"));
        PM_TRY(expect_kw(ps, "TIME"));
        PM_TRY(expect_kw(ps, "ZONE"));
        id = PM_TYPE_TIMESTAMP_LTZ;
    }
    *out = pm_type_new_temporal(id, p, true);
    return *out ? NULL : pm_oom();
}

/* ARRAY<t> | MULTISET<t> at the keyword. */
static pm_error *parse_collection(parser *ps, pm_type **out)
{
    bool multiset = is_kw(ps, "MULTISET");
    PM_TRY(next(ps));
    PM_TRY(expect_punct(ps, '<'));
    pm_type *el = NULL;
    PM_TRY(parse_type(ps, &el));
    pm_error *e = expect_punct(ps, '>');
    if (e) {
        pm_type_free(el);
        return e;
    }
    *out = multiset ? pm_type_new_multiset(el, true) : pm_type_new_array(el, true);
    return *out ? NULL : pm_oom();
}

/* MAP<k, v> at the keyword. */
static pm_error *parse_map(parser *ps, pm_type **out)
{
    PM_TRY(next(ps));
    PM_TRY(expect_punct(ps, '<'));
    pm_type *k = NULL, *v = NULL;
    PM_TRY(parse_type(ps, &k));
    pm_error *e = expect_punct(ps, ',');
    if (!e)
        e = parse_type(ps, &v);
    if (!e)
        e = expect_punct(ps, '>');
    if (e) {
        pm_type_free(k);
        pm_type_free(v);
        return e;
    }
    *out = pm_type_new_map(k, v, true);
    return *out ? NULL : pm_oom();
}

/* ROW<...> | ROW(...) at the keyword. */
static pm_error *parse_row(parser *ps, pm_type **out)
{
    PM_TRY(next(ps));
    char close;
    if (is_punct(ps, '<'))
        close = '>';
    else if (is_punct(ps, '('))
        close = ')';
    else
        return perr(ps, "expected '<' after ROW%s", "");
    PM_TRY(next(ps));
    pm_type *row = pm_type_new_row(true);
    if (!row)
        return pm_oom();
    pm_error *e = parse_row_fields(ps, row, close);
    if (e) {
        pm_type_free(row);
        return e;
    }
    *out = row;
    return NULL;
}

static pm_error *parse_base(parser *ps, pm_type **out)
{
    const char *start = ps->tok;
    if (ps->kind != TK_IDENT)
        return perr(ps, "expected a type name%s", "");
    static const struct {
        const char *kw;
        pm_type_id id;
    } simple[] = {
        {"BOOLEAN", PM_TYPE_BOOLEAN}, {"TINYINT", PM_TYPE_TINYINT}, {"SMALLINT", PM_TYPE_SMALLINT},
        {"INT", PM_TYPE_INT},         {"INTEGER", PM_TYPE_INT},     {"BIGINT", PM_TYPE_BIGINT},
        {"FLOAT", PM_TYPE_FLOAT},     {"DATE", PM_TYPE_DATE},       {"VARIANT", PM_TYPE_VARIANT},
        {"BLOB", PM_TYPE_BLOB},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        if (is_kw(ps, simple[i].kw)) {
            PM_TRY(next(ps));
            *out = pm_type_new(simple[i].id, true);
            return *out ? NULL : pm_oom();
        }
    }
    if (is_kw(ps, "DOUBLE")) {
        PM_TRY(next(ps));
        if (is_kw(ps, "PRECISION"))
            PM_TRY(next(ps));
        *out = pm_type_new(PM_TYPE_DOUBLE, true);
        return *out ? NULL : pm_oom();
    }
    if (is_kw(ps, "STRING") || is_kw(ps, "BYTES")) {
        pm_type_id id = is_kw(ps, "STRING") ? PM_TYPE_VARCHAR : PM_TYPE_VARBINARY;
        PM_TRY(next(ps));
        *out = pm_type_new_string(id, PM_MAX_LENGTH, true);
        return *out ? NULL : pm_oom();
    }
    if (is_kw(ps, "DECIMAL") || is_kw(ps, "NUMERIC") || is_kw(ps, "DEC"))
        return parse_decimal(ps, out);
    static const struct {
        const char *kw;
        pm_type_id id;
    } sized[] = {
        {"CHAR", PM_TYPE_CHAR},
        {"VARCHAR", PM_TYPE_VARCHAR},
        {"BINARY", PM_TYPE_BINARY},
        {"VARBINARY", PM_TYPE_VARBINARY},
    };
    for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
        if (is_kw(ps, sized[i].kw)) {
            int32_t len = 1;
            PM_TRY(next(ps));
            const char *ltok = ps->tok;
            char what[32];
            snprintf(what, sizeof what, "%s length", sized[i].kw);
            PM_TRY(opt_param(ps, what, &len));
            ltok = ltok[0] == '(' ? ltok + 1 : ltok;
            char fmt[64];
            snprintf(fmt, sizeof fmt, "%s length %%ld is out of range %%ld..%%ld", sized[i].kw);
            PM_TRY(check_range(ps, ltok, fmt, len, 1, PM_MAX_LENGTH));
            *out = pm_type_new_string(sized[i].id, len, true);
            return *out ? NULL : pm_oom();
        }
    }
    if (is_kw(ps, "TIME") || is_kw(ps, "TIMESTAMP") || is_kw(ps, "TIMESTAMP_LTZ"))
        return parse_temporal(ps, out);
    if (is_kw(ps, "ARRAY") || is_kw(ps, "MULTISET"))
        return parse_collection(ps, out);
    if (is_kw(ps, "MAP"))
        return parse_map(ps, out);
    if (is_kw(ps, "ROW"))
        return parse_row(ps, out);
    ps->tok = start;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(ps->len < 60 ? ps->len : 60), ps->tok);
    return perr(ps, "unknown type '%s'", name);
}

static pm_error *parse_type(parser *ps, pm_type **out)
{
    *out = NULL;
    if (++ps->depth > MAX_DEPTH) {
        ps->depth--;
        return perr(ps, "type nesting deeper than %s levels", "64");
    }
    pm_type *t = NULL;
    pm_error *e = parse_base(ps, &t);
    if (!e && is_kw(ps, "NOT")) {
        e = next(ps);
        if (!e)
            e = expect_kw(ps, "NULL");
        if (t)
            t->nullable = false;
    } else if (!e && is_kw(ps, "NULL")) {
        e = next(ps);
    }
    ps->depth--;
    if (e) {
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

pm_error *pm_type_parse(pm_type **out, const char *text)
{
    *out = NULL;
    if (!text)
        return pm_error_new(PM_EINVALID, "type string is NULL");
    parser ps = {.text = text, .p = text, .tok = text};
    PM_TRY(next(&ps));
    if (ps.kind == TK_END)
        return pm_error_new(PM_EINVALID, "type string is empty");
    pm_type *t = NULL;
    PM_TRY(parse_type(&ps, &t));
    if (ps.kind != TK_END) {
        pm_type_free(t);
        return perr(&ps, "unexpected text after the type%s", "");
    }
    *out = t;
    return NULL;
}
