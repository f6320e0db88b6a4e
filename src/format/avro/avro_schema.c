/*
 * format/avro/avro_schema.c — parse Avro schema JSON into a node graph, and
 * print the Avro schema Paimon derives from a row type.
 *
 * Parsing (jansson), per JSON shape:
 *   "name"         primitive, or a reference to an already defined named
 *                  type (resolved against the enclosing namespace first)
 *   [ ... ]        union (branches parsed in order; the "null" branch noted)
 *   { "type": t }  record/error, enum, array, map, fixed, or a primitive
 *                  with an optional "logicalType"
 * Named types get their full name (namespace rules of the spec) and are
 * registered BEFORE their fields are parsed, so recursive records resolve
 * to the same node.  Nesting is limited to PM_AVRO_MAX_DEPTH levels.
 *
 * Printing mirrors Apache Paimon's AvroSchemaConverter and Avro Java's
 * Schema.toString(): compact JSON, key order type/name/namespace/fields,
 * namespace printed only on the top record (all nested names share it).
 */
#include "format/avro/avro_schema.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

#define PM_AVRO_MAX_DEPTH 64

typedef struct named {
    const char *fullname;
    pm_avro_node *node;
    struct named *next;
} named;

typedef struct parser {
    pm_avro_schema *s;
    named *names;
} parser;

static const struct {
    const char *name;
    pm_avro_kind kind;
} primitives[] = {
    {"null", PM_AVRO_NULL},     {"boolean", PM_AVRO_BOOLEAN}, {"int", PM_AVRO_INT},
    {"long", PM_AVRO_LONG},     {"float", PM_AVRO_FLOAT},     {"double", PM_AVRO_DOUBLE},
    {"bytes", PM_AVRO_BYTES},   {"string", PM_AVRO_STRING},
};

const char *pm_avro_kind_name(pm_avro_kind k)
{
    switch (k) {
    case PM_AVRO_NULL: return "null";
    case PM_AVRO_BOOLEAN: return "boolean";
    case PM_AVRO_INT: return "int";
    case PM_AVRO_LONG: return "long";
    case PM_AVRO_FLOAT: return "float";
    case PM_AVRO_DOUBLE: return "double";
    case PM_AVRO_BYTES: return "bytes";
    case PM_AVRO_STRING: return "string";
    case PM_AVRO_RECORD: return "record";
    case PM_AVRO_ENUM: return "enum";
    case PM_AVRO_ARRAY: return "array";
    case PM_AVRO_MAP: return "map";
    case PM_AVRO_UNION: return "union";
    case PM_AVRO_FIXED: return "fixed";
    }
    return "?";
}

static bool primitive_kind(const char *name, pm_avro_kind *out)
{
    for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++) {
        if (strcmp(name, primitives[i].name) == 0) {
            *out = primitives[i].kind;
            return true;
        }
    }
    return false;
}

static pm_error *bad(const char *fmt, const char *arg)
{
    return pm_error_new(PM_ECORRUPT, fmt, arg);
}

static pm_error *new_node(parser *p, pm_avro_kind kind, pm_avro_node **out)
{
    pm_avro_node *n = pm_arena_calloc(&p->s->arena, sizeof *n, _Alignof(pm_avro_node));
    if (!n)
        return pm_oom();
    n->kind = kind;
    n->null_branch = -1;
    *out = n;
    return NULL;
}

static pm_avro_node *lookup(parser *p, const char *fullname)
{
    for (named *e = p->names; e; e = e->next)
        if (strcmp(e->fullname, fullname) == 0)
            return e->node;
    return NULL;
}

/* Resolve a reference written as `ref` inside namespace `ns`. */
static pm_avro_node *resolve(parser *p, const char *ref, const char *ns)
{
    if (!strchr(ref, '.') && ns && *ns) {
        size_t ln = strlen(ns), lr = strlen(ref);
        char *full = malloc(ln + lr + 2);
        if (!full)
            return NULL;
        memcpy(full, ns, ln);
        full[ln] = '.';
        memcpy(full + ln + 1, ref, lr + 1);
        pm_avro_node *n = lookup(p, full);
        free(full);
        if (n)
            return n;
    }
    return lookup(p, ref);
}

/* Full name and namespace of a named type definition. */
static pm_error *define_name(parser *p, json_t *obj, const char *enclosing_ns, pm_avro_node *node,
                             const char **ns_out)
{
    json_t *jn = json_object_get(obj, "name");
    if (!json_is_string(jn) || !*json_string_value(jn))
        return bad("avro schema: %s without a name", pm_avro_kind_name(node->kind));
    const char *name = json_string_value(jn);
    const char *ns = enclosing_ns;
    json_t *jns = json_object_get(obj, "namespace");
    if (json_is_string(jns))
        ns = json_string_value(jns);
    char *full;
    const char *dot = strrchr(name, '.');
    if (dot) {
        full = pm_arena_strdup(&p->s->arena, name);
        ns = full ? pm_arena_strndup(&p->s->arena, name, (size_t)(dot - name)) : NULL;
        if (full && !ns)
            full = NULL;
    } else if (ns && *ns) {
        size_t ln = strlen(ns), lr = strlen(name);
        full = pm_arena_alloc(&p->s->arena, ln + lr + 2, 1);
        if (full) {
            memcpy(full, ns, ln);
            full[ln] = '.';
            memcpy(full + ln + 1, name, lr + 1);
        }
    } else {
        full = pm_arena_strdup(&p->s->arena, name);
    }
    if (!full)
        return pm_oom();
    if (lookup(p, full))
        return bad("avro schema: type %s defined twice", full);
    named *e = pm_arena_alloc(&p->s->arena, sizeof *e, _Alignof(named));
    if (!e)
        return pm_oom();
    e->fullname = full;
    e->node = node;
    e->next = p->names;
    p->names = e;
    node->name = full;
    *ns_out = ns;
    return NULL;
}

/* Largest decimal precision a fixed of `size` bytes can hold. */
static int32_t fixed_max_precision(size_t size)
{
    if (size == 0)
        return 0;
    if (size > 128)
        return INT32_MAX;
    return (int32_t)floor((double)(8 * size - 1) * log10(2.0));
}

/* Apply "logicalType" (ignored when it does not fit, per the spec). */
static void apply_logical(json_t *obj, pm_avro_node *n)
{
    json_t *jl = json_object_get(obj, "logicalType");
    if (!json_is_string(jl))
        return;
    const char *lt = json_string_value(jl);
    pm_avro_kind k = n->kind;
    if (strcmp(lt, "date") == 0 && k == PM_AVRO_INT)
        n->logical = PM_AVRO_LT_DATE;
    else if (strcmp(lt, "time-millis") == 0 && k == PM_AVRO_INT)
        n->logical = PM_AVRO_LT_TIME_MILLIS;
    else if (strcmp(lt, "time-micros") == 0 && k == PM_AVRO_LONG)
        n->logical = PM_AVRO_LT_TIME_MICROS;
    else if (strcmp(lt, "timestamp-millis") == 0 && k == PM_AVRO_LONG)
        n->logical = PM_AVRO_LT_TIMESTAMP_MILLIS;
    else if (strcmp(lt, "timestamp-micros") == 0 && k == PM_AVRO_LONG)
        n->logical = PM_AVRO_LT_TIMESTAMP_MICROS;
    else if (strcmp(lt, "timestamp-nanos") == 0 && k == PM_AVRO_LONG)
        n->logical = PM_AVRO_LT_TIMESTAMP_NANOS;
    else if (strcmp(lt, "local-timestamp-millis") == 0 && k == PM_AVRO_LONG)
        n->logical = PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS;
    else if (strcmp(lt, "local-timestamp-micros") == 0 && k == PM_AVRO_LONG)
        n->logical = PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS;
    else if (strcmp(lt, "local-timestamp-nanos") == 0 && k == PM_AVRO_LONG)
        n->logical = PM_AVRO_LT_LOCAL_TIMESTAMP_NANOS;
    else if (strcmp(lt, "uuid") == 0 && (k == PM_AVRO_STRING || (k == PM_AVRO_FIXED && n->size == 16)))
        n->logical = PM_AVRO_LT_UUID;
    else if (strcmp(lt, "map") == 0 && k == PM_AVRO_ARRAY)
        n->logical = PM_AVRO_LT_MAP;
    else if (strcmp(lt, "decimal") == 0 && (k == PM_AVRO_BYTES || k == PM_AVRO_FIXED)) {
        json_t *jp = json_object_get(obj, "precision"), *js = json_object_get(obj, "scale");
        if (!json_is_integer(jp) || (js && !json_is_integer(js)))
            return;
        json_int_t prec = json_integer_value(jp), scale = js ? json_integer_value(js) : 0;
        if (prec <= 0 || prec > INT32_MAX || scale < 0 || scale > prec)
            return;
        if (k == PM_AVRO_FIXED && prec > fixed_max_precision(n->size))
            return;
        n->logical = PM_AVRO_LT_DECIMAL;
        n->precision = (int32_t)prec;
        n->scale = (int32_t)scale;
    }
}

static pm_error *parse_node(parser *p, json_t *j, const char *ns, int depth, pm_avro_node **out);

static pm_error *parse_record(parser *p, json_t *obj, const char *ns, int depth, pm_avro_node *n)
{
    const char *own_ns;
    PM_TRY(define_name(p, obj, ns, n, &own_ns));
    json_t *jf = json_object_get(obj, "fields");
    if (!json_is_array(jf))
        return bad("avro schema: record %s has no fields array", n->name);
    size_t nf = json_array_size(jf);
    n->fields = pm_arena_calloc(&p->s->arena, nf ? nf * sizeof *n->fields : 1,
                                _Alignof(pm_avro_field));
    if (!n->fields)
        return pm_oom();
    for (size_t i = 0; i < nf; i++) {
        json_t *f = json_array_get(jf, i);
        json_t *fname = json_object_get(f, "name");
        if (!json_is_object(f) || !json_is_string(fname))
            return bad("avro schema: record %s has a field without a name", n->name);
        const char *name = json_string_value(fname);
        for (size_t k = 0; k < i; k++)
            if (strcmp(n->fields[k].name, name) == 0)
                return pm_error_new(PM_ECORRUPT, "avro schema: record %s has field %s twice",
                                    n->name, name);
        json_t *ft = json_object_get(f, "type");
        if (!ft)
            return pm_error_new(PM_ECORRUPT, "avro schema: field %s.%s has no type", n->name,
                                name);
        n->fields[i].name = pm_arena_strdup(&p->s->arena, name);
        if (!n->fields[i].name)
            return pm_oom();
        pm_error *e = parse_node(p, ft, own_ns, depth + 1, &n->fields[i].type);
        if (e)
            return pm_error_wrap(e, 0, "field %s", name);
        n->n = i + 1; /* count only complete fields */
    }
    return NULL;
}

static pm_error *parse_object(parser *p, json_t *obj, const char *ns, int depth, pm_avro_node **out)
{
    json_t *jt = json_object_get(obj, "type");
    if (!jt)
        return bad("avro schema: object without \"type\"%s", "");
    if (!json_is_string(jt)) {
        /* {"type": {...}} or {"type": [...]}: the nested schema itself. */
        return parse_node(p, jt, ns, depth + 1, out);
    }
    const char *t = json_string_value(jt);
    pm_avro_kind kind;
    pm_avro_node *n = NULL;
    if (primitive_kind(t, &kind)) {
        PM_TRY(new_node(p, kind, &n));
        apply_logical(obj, n);
        *out = n;
        return NULL;
    }
    if (strcmp(t, "record") == 0 || strcmp(t, "error") == 0) {
        PM_TRY(new_node(p, PM_AVRO_RECORD, &n));
        *out = n;
        return parse_record(p, obj, ns, depth, n);
    }
    if (strcmp(t, "enum") == 0) {
        PM_TRY(new_node(p, PM_AVRO_ENUM, &n));
        const char *own_ns;
        PM_TRY(define_name(p, obj, ns, n, &own_ns));
        json_t *js = json_object_get(obj, "symbols");
        if (!json_is_array(js))
            return bad("avro schema: enum %s has no symbols", n->name);
        size_t ns_count = json_array_size(js);
        n->symbols = pm_arena_calloc(&p->s->arena, ns_count ? ns_count * sizeof(char *) : 1,
                                     _Alignof(char *));
        if (!n->symbols)
            return pm_oom();
        for (size_t i = 0; i < ns_count; i++) {
            json_t *sym = json_array_get(js, i);
            if (!json_is_string(sym))
                return bad("avro schema: enum %s has a non-string symbol", n->name);
            n->symbols[i] = pm_arena_strdup(&p->s->arena, json_string_value(sym));
            if (!n->symbols[i])
                return pm_oom();
        }
        n->n = ns_count;
        *out = n;
        return NULL;
    }
    if (strcmp(t, "array") == 0 || strcmp(t, "map") == 0) {
        bool arr = t[0] == 'a';
        PM_TRY(new_node(p, arr ? PM_AVRO_ARRAY : PM_AVRO_MAP, &n));
        json_t *ji = json_object_get(obj, arr ? "items" : "values");
        if (!ji)
            return bad("avro schema: %s without its element type", t);
        PM_TRY(parse_node(p, ji, ns, depth + 1, &n->items));
        apply_logical(obj, n);
        *out = n;
        return NULL;
    }
    if (strcmp(t, "fixed") == 0) {
        PM_TRY(new_node(p, PM_AVRO_FIXED, &n));
        const char *own_ns;
        PM_TRY(define_name(p, obj, ns, n, &own_ns));
        json_t *jsz = json_object_get(obj, "size");
        if (!json_is_integer(jsz) || json_integer_value(jsz) < 0 ||
            json_integer_value(jsz) > INT32_MAX)
            return bad("avro schema: fixed %s has no valid size", n->name);
        n->size = (size_t)json_integer_value(jsz);
        apply_logical(obj, n);
        *out = n;
        return NULL;
    }
    /* {"type": "SomeNamedType"} */
    pm_avro_node *ref = resolve(p, t, ns);
    if (!ref)
        return bad("avro schema: unknown type \"%s\"", t);
    *out = ref;
    return NULL;
}

static pm_error *parse_node(parser *p, json_t *j, const char *ns, int depth, pm_avro_node **out)
{
    if (depth > PM_AVRO_MAX_DEPTH)
        return pm_error_new(PM_EUNSUPPORTED, "avro schema nested deeper than %d levels",
                            PM_AVRO_MAX_DEPTH);
    if (json_is_string(j)) {
        const char *t = json_string_value(j);
        pm_avro_kind kind;
        if (primitive_kind(t, &kind))
            return new_node(p, kind, out);
        pm_avro_node *ref = resolve(p, t, ns);
        if (!ref)
            return bad("avro schema: unknown type \"%s\"", t);
        *out = ref;
        return NULL;
    }
    if (json_is_array(j)) {
        pm_avro_node *n = NULL;
        PM_TRY(new_node(p, PM_AVRO_UNION, &n));
        size_t nb = json_array_size(j);
        if (nb == 0)
            return bad("avro schema: empty union%s", "");
        n->branches = pm_arena_calloc(&p->s->arena, nb * sizeof *n->branches,
                                      _Alignof(pm_avro_node *));
        if (!n->branches)
            return pm_oom();
        for (size_t i = 0; i < nb; i++) {
            PM_TRY(parse_node(p, json_array_get(j, i), ns, depth + 1, &n->branches[i]));
            if (n->branches[i]->kind == PM_AVRO_UNION)
                return bad("avro schema: union directly inside a union%s", "");
            if (n->branches[i]->kind == PM_AVRO_NULL && n->null_branch < 0)
                n->null_branch = (int)i;
            n->n = i + 1;
        }
        *out = n;
        return NULL;
    }
    if (json_is_object(j))
        return parse_object(p, j, ns, depth, out);
    return bad("avro schema: unexpected JSON value%s", "");
}

/* Fewest bytes a value of `n` encodes to; a type reached again while being
 * computed (recursion) counts as 0, which only makes the bound looser. */
static size_t compute_min(pm_avro_node *n)
{
    if (n->min_state == 2)
        return n->min_size;
    if (n->min_state == 1)
        return 0;
    n->min_state = 1;
    size_t m = 0;
    switch (n->kind) {
    case PM_AVRO_NULL: m = 0; break;
    case PM_AVRO_FLOAT: m = 4; break;
    case PM_AVRO_DOUBLE: m = 8; break;
    case PM_AVRO_FIXED: m = n->size; break;
    case PM_AVRO_RECORD:
        for (size_t i = 0; i < n->n; i++) {
            size_t f = compute_min(n->fields[i].type);
            m = f > SIZE_MAX - m ? SIZE_MAX : m + f;
        }
        break;
    case PM_AVRO_UNION: {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < n->n; i++) {
            size_t b = compute_min(n->branches[i]);
            if (b < best)
                best = b;
        }
        m = best == SIZE_MAX ? SIZE_MAX : best + 1;
        break;
    }
    case PM_AVRO_ARRAY:
    case PM_AVRO_MAP:
        compute_min(n->items);
        m = 1;
        break;
    default: m = 1; break; /* boolean, int, long, bytes, string, enum */
    }
    n->min_size = m;
    n->min_state = 2;
    return m;
}

pm_error *pm_avro_schema_parse(const char *json, size_t n, pm_avro_schema **out)
{
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(json, n, JSON_DECODE_ANY, &jerr);
    if (!root)
        return pm_error_new(PM_ECORRUPT, "avro schema is not valid JSON: %s (line %d)", jerr.text,
                            jerr.line);
    pm_avro_schema *s = NULL;
    pm_error *e = pm_calloc(&s, 1, sizeof *s);
    if (e) {
        json_decref(root);
        return e;
    }
    pm_arena_init(&s->arena, 0);
    parser p = {s, NULL};
    e = parse_node(&p, root, NULL, 0, &s->root);
    json_decref(root);
    if (e) {
        pm_avro_schema_free(s);
        return e;
    }
    compute_min(s->root);
    *out = s;
    return NULL;
}

void pm_avro_schema_free(pm_avro_schema *s)
{
    if (!s)
        return;
    pm_arena_free(&s->arena);
    free(s);
}

ptrdiff_t pm_avro_field_index(const pm_avro_node *record, const char *name)
{
    for (size_t i = 0; i < record->n; i++)
        if (strcmp(record->fields[i].name, name) == 0)
            return (ptrdiff_t)i;
    return -1;
}

/* ---- Paimon row type → Avro schema JSON ---- */

static pm_error *put_json_string(pm_buf *out, const char *s)
{
    PM_TRY(pm_buf_append_byte(out, '"'));
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            PM_TRY(pm_buf_append_byte(out, '\\'));
            PM_TRY(pm_buf_append_byte(out, *c));
        } else if (*c < 0x20) {
            PM_TRY(pm_buf_printf(out, "\\u%04x", *c));
        } else {
            PM_TRY(pm_buf_append_byte(out, *c));
        }
    }
    return pm_buf_append_byte(out, '"');
}

static bool is_string_type(const pm_type *t)
{
    return t->id == PM_TYPE_CHAR || t->id == PM_TYPE_VARCHAR;
}

static pm_error *emit_type(const pm_type *t, const char *row_name, bool top, pm_buf *out, int depth);

static pm_error *emit_record(const pm_type *t, const char *row_name, bool top, pm_buf *out,
                             int depth)
{
    PM_TRY(pm_buf_append_str(out, "{\"type\":\"record\",\"name\":"));
    PM_TRY(put_json_string(out, row_name));
    if (top)
        PM_TRY(pm_buf_append_str(out, ",\"namespace\":\"" PM_AVRO_PAIMON_NAMESPACE "\""));
    PM_TRY(pm_buf_append_str(out, ",\"fields\":["));
    pm_buf child = PM_BUF_INIT;
    pm_error *e = NULL;
    for (size_t i = 0; i < t->nfields && !e; i++) {
        const pm_field *f = &t->fields[i];
        if (i)
            PM_TRY_GOTO(e, pm_buf_append_byte(out, ','), done);
        PM_TRY_GOTO(e, pm_buf_append_str(out, "{\"name\":"), done);
        PM_TRY_GOTO(e, put_json_string(out, f->name), done);
        PM_TRY_GOTO(e, pm_buf_append_str(out, ",\"type\":"), done);
        pm_buf_clear(&child);
        PM_TRY_GOTO(e, pm_buf_printf(&child, "%s_%s", row_name, f->name), done);
        const char *cname;
        PM_TRY_GOTO(e, pm_buf_cstr(&child, &cname), done);
        e = emit_type(f->type, cname, false, out, depth + 1);
        if (e) {
            e = pm_error_wrap(e, 0, "field %s", f->name);
            break;
        }
        PM_TRY_GOTO(e, pm_buf_append_str(out, f->type->nullable ? ",\"default\":null}" : "}"),
                    done);
    }
    if (!e)
        e = pm_buf_append_str(out, "]}");
done:
    pm_buf_free(&child);
    return e;
}

/* Array of {key, value} records for maps whose key is not a string. */
static pm_error *emit_array_map(const pm_type *key, const pm_type *value, const char *row_name,
                                pm_buf *out, int depth)
{
    pm_buf name = PM_BUF_INIT;
    pm_error *e = NULL;
    const char *kname, *vname;
    PM_TRY_GOTO(e, pm_buf_append_str(out, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":"),
                done);
    PM_TRY_GOTO(e, put_json_string(out, row_name), done);
    PM_TRY_GOTO(e, pm_buf_append_str(out, ",\"fields\":[{\"name\":\"key\",\"type\":"), done);
    PM_TRY_GOTO(e, pm_buf_printf(&name, "%s_key", row_name), done);
    PM_TRY_GOTO(e, pm_buf_cstr(&name, &kname), done);
    PM_TRY_GOTO(e, emit_type(key, kname, false, out, depth + 1), done);
    PM_TRY_GOTO(e, pm_buf_append_str(out, "},{\"name\":\"value\",\"type\":"), done);
    pm_buf_clear(&name);
    PM_TRY_GOTO(e, pm_buf_printf(&name, "%s_value", row_name), done);
    PM_TRY_GOTO(e, pm_buf_cstr(&name, &vname), done);
    PM_TRY_GOTO(e, emit_type(value, vname, false, out, depth + 1), done);
    PM_TRY_GOTO(e, pm_buf_append_str(out, value->nullable ? ",\"default\":null}" : "}"), done);
    PM_TRY_GOTO(e, pm_buf_append_str(out, "]},\"logicalType\":\"map\"}"), done);
done:
    pm_buf_free(&name);
    return e;
}

static pm_error *emit_nonnull(const pm_type *t, const char *row_name, bool top, pm_buf *out,
                              int depth)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return pm_buf_append_str(out, "\"boolean\"");
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT: return pm_buf_append_str(out, "\"int\"");
    case PM_TYPE_BIGINT: return pm_buf_append_str(out, "\"long\"");
    case PM_TYPE_FLOAT: return pm_buf_append_str(out, "\"float\"");
    case PM_TYPE_DOUBLE: return pm_buf_append_str(out, "\"double\"");
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: return pm_buf_append_str(out, "\"string\"");
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: return pm_buf_append_str(out, "\"bytes\"");
    case PM_TYPE_DATE: return pm_buf_append_str(out, "{\"type\":\"int\",\"logicalType\":\"date\"}");
    case PM_TYPE_TIME:
        if (t->precision > 3)
            return pm_error_new(PM_EUNSUPPORTED,
                                "Avro cannot store TIME(%d): precision above 3 is not supported",
                                t->precision);
        return pm_buf_append_str(out, "{\"type\":\"int\",\"logicalType\":\"time-millis\"}");
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        if (t->precision > 6)
            return pm_error_new(PM_EUNSUPPORTED,
                                "Avro cannot store %s(%d): precision above 6 is not supported",
                                t->id == PM_TYPE_TIMESTAMP ? "TIMESTAMP"
                                                           : "TIMESTAMP WITH LOCAL TIME ZONE",
                                t->precision);
        const char *prefix = t->id == PM_TYPE_TIMESTAMP ? "" : "local-";
        return pm_buf_printf(out, "{\"type\":\"long\",\"logicalType\":\"%stimestamp-%s\"}", prefix,
                             t->precision <= 3 ? "millis" : "micros");
    }
    case PM_TYPE_DECIMAL:
        return pm_buf_printf(out,
                             "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":%d,"
                             "\"scale\":%d}",
                             t->precision, t->scale);
    case PM_TYPE_ROW: return emit_record(t, row_name, top, out, depth);
    case PM_TYPE_ARRAY:
        PM_TRY(pm_buf_append_str(out, "{\"type\":\"array\",\"items\":"));
        PM_TRY(emit_type(t->element, row_name, false, out, depth + 1));
        return pm_buf_append_byte(out, '}');
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        const pm_type *key = t->id == PM_TYPE_MAP ? t->key : t->element;
        /* A MULTISET counts with a nullable INT, as Paimon's converter does. */
        pm_type count = {.id = PM_TYPE_INT, .nullable = true};
        const pm_type *value = t->id == PM_TYPE_MAP ? t->value : &count;
        if (!is_string_type(key))
            return emit_array_map(key, value, row_name, out, depth);
        PM_TRY(pm_buf_append_str(out, "{\"type\":\"map\",\"values\":"));
        PM_TRY(emit_type(value, row_name, false, out, depth + 1));
        return pm_buf_append_byte(out, '}');
    }
    case PM_TYPE_VARIANT:
        return pm_error_new(PM_EUNSUPPORTED, "Avro files cannot store VARIANT columns");
    }
    return pm_error_new(PM_EINVALID, "unknown Paimon type id %d", (int)t->id);
}

static pm_error *emit_type(const pm_type *t, const char *row_name, bool top, pm_buf *out, int depth)
{
    if (depth > PM_AVRO_MAX_DEPTH)
        return pm_error_new(PM_EUNSUPPORTED, "type nested deeper than %d levels",
                            PM_AVRO_MAX_DEPTH);
    if (!t->nullable)
        return emit_nonnull(t, row_name, top, out, depth);
    PM_TRY(pm_buf_append_str(out, "[\"null\","));
    PM_TRY(emit_nonnull(t, row_name, top, out, depth));
    return pm_buf_append_byte(out, ']');
}

pm_error *pm_avro_schema_json_from_type(const pm_type *row, pm_buf *out)
{
    if (row->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "an Avro file schema must be a ROW type");
    /* The top record is never wrapped in a union, whatever its nullability. */
    return emit_nonnull(row, PM_AVRO_PAIMON_RECORD, true, out, 0);
}
