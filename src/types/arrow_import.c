/*
 * types/arrow_import.c — Arrow C Data Interface -> pm_batch (import).
 *
 * The target type of each column comes from `row_type`
 * (matched by name) or is derived from the Arrow format (ids from
 * PARQUET:field_id metadata, else numbered in pre-order from 0).  The
 * schema is first compiled into a tree of import nodes that checks every
 * format against its target type once, then each array node is checked
 * for its buffer and child counts, then rows are appended with the column
 * builders.  Accepted besides the export formats: U/Z large strings, w:n
 * fixed-size binary, +L large lists, tss: timestamps, tdm dates, tts/ttu/
 * ttn times (converted to the target's unit; finer-to-coarser conversions
 * floor).  Dictionary-encoded, view, run-end, union and unsigned types are
 * PM_EUNSUPPORTED.
 *
 * Moving import (pm_batch_import_move): the array is taken into a shared,
 * reference-counted owner; top-level columns whose Arrow layout is the
 * column's (no offset; booleans; fixed-width values in the column's unit;
 * 32-bit offsets from 0) borrow its buffers (base/buf.h borrowed bytes,
 * copied before any write) and hold a reference on the owner, which
 * releases the array with the last of them; other columns are copied.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "types/column.h"

/* ------------------------------------------------------------------ */
/* Import                                                              */

typedef enum {
    IK_BOOL, IK_FIXED,      /* same width, plain copy */
    IK_SCALE_DOWN32,        /* int64 source / div -> int32 (floor) */
    IK_SCALE_UP32,          /* int32 source * mul -> int32 */
    IK_TS,                  /* int64 source, unit conversion */
    IK_VAR32, IK_VAR64, IK_FIXEDBIN,
    IK_LIST32, IK_LIST64, IK_MAP, IK_STRUCT
} imp_kind;

typedef struct imp_node {
    imp_kind kind;
    int width;              /* IK_FIXED value width; IK_FIXEDBIN byte width */
    int64_t mul, div;       /* unit conversion */
    const struct ArrowSchema *schema;
    size_t nchildren;
    struct imp_node *children;
    ptrdiff_t *child_index; /* IK_STRUCT: arrow child for each target field, -1 = absent */
} imp_node;

static void imp_free(imp_node *n)
{
    for (size_t i = 0; i < n->nchildren; i++)
        imp_free(&n->children[i]);
    free(n->children);
    free(n->child_index);
}

/* Metadata lookup of PARQUET:field_id; returns false when absent. */
static bool meta_field_id(const char *m, int32_t *out)
{
    if (!m)
        return false;
    int32_t n;
    memcpy(&n, m, 4);
    const char *p = m + 4;
    for (int32_t i = 0; i < n; i++) {
        int32_t kl, vl;
        memcpy(&kl, p, 4);
        p += 4;
        const char *k = p;
        p += kl;
        memcpy(&vl, p, 4);
        p += 4;
        const char *v = p;
        p += vl;
        if (kl == 16 && memcmp(k, "PARQUET:field_id", 16) == 0 && vl > 0 && vl < 12) {
            char buf[12];
            memcpy(buf, v, (size_t)vl);
            buf[vl] = 0;
            char *end;
            long id = strtol(buf, &end, 10);
            if (*end || id < INT32_MIN || id > INT32_MAX)
                return false;
            *out = (int32_t)id;
            return true;
        }
    }
    return false;
}

static pm_error *unsupported_format(const struct ArrowSchema *s)
{
    return pm_error_new(PM_EUNSUPPORTED, "Arrow format '%s'%s%s%s is not supported", s->format,
                        s->name && *s->name ? " (field '" : "", s->name && *s->name ? s->name : "",
                        s->name && *s->name ? "')" : "");
}

/* Derive a Paimon type from an Arrow schema node. */
static pm_error *derive_type(const struct ArrowSchema *s, int32_t *next_id, pm_type **out)
{
    *out = NULL;
    const char *f = s->format;
    bool nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
    pm_type *t = NULL;
    if (s->dictionary)
        return pm_error_new(PM_EUNSUPPORTED, "dictionary-encoded Arrow field '%s' is not supported",
                            s->name ? s->name : "");
    if (!strcmp(f, "b")) t = pm_type_new(PM_TYPE_BOOLEAN, nullable);
    else if (!strcmp(f, "c")) t = pm_type_new(PM_TYPE_TINYINT, nullable);
    else if (!strcmp(f, "s")) t = pm_type_new(PM_TYPE_SMALLINT, nullable);
    else if (!strcmp(f, "i")) t = pm_type_new(PM_TYPE_INT, nullable);
    else if (!strcmp(f, "l")) t = pm_type_new(PM_TYPE_BIGINT, nullable);
    else if (!strcmp(f, "f")) t = pm_type_new(PM_TYPE_FLOAT, nullable);
    else if (!strcmp(f, "g")) t = pm_type_new(PM_TYPE_DOUBLE, nullable);
    else if (!strcmp(f, "u") || !strcmp(f, "U")) t = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, nullable);
    else if (!strcmp(f, "z") || !strcmp(f, "Z")) t = pm_type_new_string(PM_TYPE_VARBINARY, PM_MAX_LENGTH, nullable);
    else if (!strncmp(f, "w:", 2)) {
        long n = strtol(f + 2, NULL, 10);
        if (n < 1 || n > INT32_MAX)
            return unsupported_format(s);
        t = pm_type_new_string(PM_TYPE_BINARY, (int32_t)n, nullable);
    } else if (!strcmp(f, "tdD") || !strcmp(f, "tdm")) t = pm_type_new(PM_TYPE_DATE, nullable);
    else if (!strcmp(f, "tts")) t = pm_type_new_temporal(PM_TYPE_TIME, 0, nullable);
    else if (!strcmp(f, "ttm")) t = pm_type_new_temporal(PM_TYPE_TIME, 3, nullable);
    else if (!strcmp(f, "ttu")) t = pm_type_new_temporal(PM_TYPE_TIME, 6, nullable);
    else if (!strcmp(f, "ttn")) t = pm_type_new_temporal(PM_TYPE_TIME, 9, nullable);
    else if (!strncmp(f, "ts", 2) && f[2] && f[3] == ':') {
        int p = f[2] == 's' ? 0 : f[2] == 'm' ? 3 : f[2] == 'u' ? 6 : f[2] == 'n' ? 9 : -1;
        if (p < 0)
            return unsupported_format(s);
        t = pm_type_new_temporal(f[4] ? PM_TYPE_TIMESTAMP_LTZ : PM_TYPE_TIMESTAMP, p, nullable);
    } else if (!strncmp(f, "d:", 2)) {
        int p, sc, bits = 128;
        int n = sscanf(f + 2, "%d,%d,%d", &p, &sc, &bits);
        if (n < 2 || bits != 128 || p < 1 || p > 38 || sc < 0 || sc > p)
            return unsupported_format(s);
        t = pm_type_new_decimal(p, sc, nullable);
    } else if (!strcmp(f, "+l") || !strcmp(f, "+L")) {
        if (s->n_children != 1)
            return pm_error_new(PM_EINVALID, "Arrow list '%s' needs one child", s->name ? s->name : "");
        pm_type *el;
        PM_TRY(derive_type(s->children[0], next_id, &el));
        t = pm_type_new_array(el, nullable);
    } else if (!strcmp(f, "+m")) {
        const struct ArrowSchema *es = s->n_children == 1 ? s->children[0] : NULL;
        if (!es || es->n_children != 2)
            return pm_error_new(PM_EINVALID, "Arrow map '%s' needs an entries struct of key and value",
                                s->name ? s->name : "");
        pm_type *k, *v;
        PM_TRY(derive_type(es->children[0], next_id, &k));
        pm_error *e = derive_type(es->children[1], next_id, &v);
        if (e) {
            pm_type_free(k);
            return e;
        }
        t = pm_type_new_map(k, v, nullable);
    } else if (!strcmp(f, "+s")) {
        t = pm_type_new_row(nullable);
        if (!t)
            return pm_oom();
        for (int64_t i = 0; i < s->n_children; i++) {
            const struct ArrowSchema *c = s->children[i];
            int32_t id;
            if (!meta_field_id(c->metadata, &id))
                id = (*next_id)++;
            pm_type *ct;
            pm_error *e = derive_type(c, next_id, &ct);
            if (!e)
                e = pm_type_add_field(t, id, c->name ? c->name : "", ct);
            if (e) {
                pm_type_free(t);
                return pm_error_wrap(e, 0, "field '%s'", c->name ? c->name : "");
            }
        }
        return (*out = t), NULL;
    } else {
        return unsupported_format(s);
    }
    if (!t)
        return pm_oom();
    *out = t;
    return NULL;
}

static pm_error *mismatch(const struct ArrowSchema *s, const pm_type *t)
{
    return pm_error_new(PM_EINVALID, "Arrow format '%s' of field '%s' does not fit %s", s->format,
                        s->name ? s->name : "", pm_type_id_name(t->id));
}

static int64_t unit_of(char c)
{
    return c == 's' ? 1 : c == 'm' ? 1000 : c == 'u' ? 1000000 : c == 'n' ? 1000000000 : 0;
}

static void set_conv(imp_node *n, int64_t from, int64_t to)
{
    n->mul = to >= from ? to / from : 1;
    n->div = from > to ? from / to : 1;
}

static pm_error *compile(const struct ArrowSchema *s, const pm_type *t, imp_node *n);

static pm_error *compile_decimal(const struct ArrowSchema *s, const char *f, const pm_type *t, imp_node *n)
{
    int p, sc, bits = 128;
    if (strncmp(f, "d:", 2) || sscanf(f + 2, "%d,%d,%d", &p, &sc, &bits) < 2)
        return mismatch(s, t);
    if (bits != 128)
        return pm_error_new(PM_EUNSUPPORTED, "Arrow decimal%d field '%s' (only decimal128)", bits,
                            s->name ? s->name : "");
    if (sc != t->scale || p > t->precision)
        return pm_error_new(PM_EINVALID, "Arrow decimal(%d, %d) of field '%s' does not fit DECIMAL(%d, %d)",
                            p, sc, s->name ? s->name : "", (int)t->precision, (int)t->scale);
    n->kind = IK_FIXED;
    n->width = 16;
    return NULL;
}

static pm_error *compile_binary(const struct ArrowSchema *s, const char *f, const pm_type *t, imp_node *n)
{
    if (!strcmp(f, "z"))
        n->kind = IK_VAR32;
    else if (!strcmp(f, "Z"))
        n->kind = IK_VAR64;
    else if (!strncmp(f, "w:", 2)) {
        long w = strtol(f + 2, NULL, 10);
        if (w < 1 || w > INT32_MAX)
            return unsupported_format(s);
        n->kind = IK_FIXEDBIN;
        n->width = (int)w;
    } else
        return mismatch(s, t);
    return NULL;
}

/* DATE, TIME, TIMESTAMP(_LTZ): the Arrow unit scaled to Paimon's. */
static pm_error *compile_temporal(const struct ArrowSchema *s, const char *f, const pm_type *t, imp_node *n)
{
    if (t->id == PM_TYPE_DATE) {
        if (!strcmp(f, "tdD")) {
            n->kind = IK_FIXED;
            n->width = 4;
        } else if (!strcmp(f, "tdm")) {
            n->kind = IK_SCALE_DOWN32;
            n->div = 86400000;
        } else
            return mismatch(s, t);
        return NULL;
    }
    if (t->id == PM_TYPE_TIME) {
        if (!strcmp(f, "ttm")) {
            n->kind = IK_FIXED;
            n->width = 4;
        } else if (!strcmp(f, "tts")) {
            n->kind = IK_SCALE_UP32;
            n->mul = 1000;
        } else if (!strcmp(f, "ttu") || !strcmp(f, "ttn")) {
            n->kind = IK_SCALE_DOWN32;
            n->div = f[2] == 'u' ? 1000 : 1000000;
        } else
            return mismatch(s, t);
        return NULL;
    }
    if (strncmp(f, "ts", 2) || !f[2] || f[3] != ':' || !unit_of(f[2]))
        return mismatch(s, t);
    n->kind = IK_TS;
    set_conv(n, unit_of(f[2]), pm_timestamp_units_per_second(t->precision));
    return NULL;
}

static pm_error *compile_list(const struct ArrowSchema *s, const char *f, const pm_type *t, imp_node *n)
{
    if (strcmp(f, "+l") && strcmp(f, "+L"))
        return mismatch(s, t);
    if (s->n_children != 1)
        return pm_error_new(PM_EINVALID, "Arrow list '%s' needs one child", s->name ? s->name : "");
    n->kind = f[1] == 'l' ? IK_LIST32 : IK_LIST64;
    if (!(n->children = calloc(1, sizeof *n->children)))
        return pm_oom();
    n->nchildren = 1;
    return compile(s->children[0], t->element, &n->children[0]);
}

/* MAP, and MULTISET as a map of element → INT count. */
static pm_error *compile_map(const struct ArrowSchema *s, const char *f, const pm_type *t, imp_node *n)
{
    if (strcmp(f, "+m"))
        return mismatch(s, t);
    const struct ArrowSchema *es = s->n_children == 1 ? s->children[0] : NULL;
    if (!es || es->n_children != 2 || strcmp(es->format, "+s"))
        return pm_error_new(PM_EINVALID, "Arrow map '%s' needs an entries struct of key and value",
                            s->name ? s->name : "");
    n->kind = IK_MAP;
    if (!(n->children = calloc(2, sizeof *n->children)))
        return pm_oom();
    n->nchildren = 2;
    pm_type *count = NULL;
    if (t->id == PM_TYPE_MULTISET && !(count = pm_type_new(PM_TYPE_INT, false)))
        return pm_oom();
    pm_error *e = compile(es->children[0], t->id == PM_TYPE_MAP ? t->key : t->element, &n->children[0]);
    if (!e)
        e = compile(es->children[1], t->id == PM_TYPE_MAP ? t->value : count, &n->children[1]);
    pm_type_free(count);
    return e;
}

/* ROW: struct children matched by name; missing nullable fields read null. */
static pm_error *compile_struct(const struct ArrowSchema *s, const char *f, const pm_type *t, imp_node *n)
{
    if (strcmp(f, "+s"))
        return mismatch(s, t);
    n->kind = IK_STRUCT;
    if (t->nfields) {
        n->children = calloc(t->nfields, sizeof *n->children);
        n->child_index = calloc(t->nfields, sizeof *n->child_index);
        if (!n->children || !n->child_index)
            return pm_oom();
    }
    n->nchildren = t->nfields;
    for (size_t i = 0; i < t->nfields; i++) {
        const pm_field *fd = &t->fields[i];
        n->child_index[i] = -1;
        for (int64_t j = 0; j < s->n_children; j++)
            if (s->children[j]->name && !strcmp(s->children[j]->name, fd->name))
                n->child_index[i] = j;
        if (n->child_index[i] < 0) {
            if (!fd->type->nullable)
                return pm_error_new(PM_EINVALID, "Arrow struct '%s' lacks NOT NULL field '%s'",
                                    s->name ? s->name : "", fd->name);
            n->children[i].schema = NULL;
            continue;
        }
        PM_TRY(pm_error_wrap(compile(s->children[n->child_index[i]], fd->type, &n->children[i]), 0,
                             "field '%s'", fd->name));
    }
    return NULL;
}

/* Compile the import of Arrow schema `s` into a column of type `t`. */
static pm_error *compile(const struct ArrowSchema *s, const pm_type *t, imp_node *n)
{
    memset(n, 0, sizeof *n);
    n->schema = s;
    n->mul = n->div = 1;
    const char *f = s->format;
    if (!f)
        return pm_error_new(PM_EINVALID, "Arrow schema without a format");
    if (s->dictionary)
        return pm_error_new(PM_EUNSUPPORTED, "dictionary-encoded Arrow field '%s' is not supported",
                            s->name ? s->name : "");
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        if (strcmp(f, "b"))
            return mismatch(s, t);
        n->kind = IK_BOOL;
        return NULL;
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT:
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE: {
        static const char fm[] = {[PM_TYPE_TINYINT] = 'c', [PM_TYPE_SMALLINT] = 's', [PM_TYPE_INT] = 'i',
                                  [PM_TYPE_BIGINT] = 'l', [PM_TYPE_FLOAT] = 'f', [PM_TYPE_DOUBLE] = 'g'};
        if (f[0] != fm[t->id] || f[1])
            return mismatch(s, t);
        n->kind = IK_FIXED;
        n->width = pm_type_value_width(t);
        return NULL;
    }
    case PM_TYPE_DECIMAL:
        return compile_decimal(s, f, t, n);
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        if (!strcmp(f, "u"))
            n->kind = IK_VAR32;
        else if (!strcmp(f, "U"))
            n->kind = IK_VAR64;
        else
            return mismatch(s, t);
        return NULL;
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB:
        return compile_binary(s, f, t, n);
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return compile_temporal(s, f, t, n);
    case PM_TYPE_ARRAY:
        return compile_list(s, f, t, n);
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET:
        return compile_map(s, f, t, n);
    case PM_TYPE_ROW:
        return compile_struct(s, f, t, n);
    default:
        return pm_error_new(PM_EUNSUPPORTED, "importing %s columns from Arrow", pm_type_id_name(t->id));
    }
}

/* Check an array node's shape against its compiled import node. */
static pm_error *check_array(const imp_node *n, const struct ArrowArray *a)
{
    if (!a || a->length < 0 || a->offset < 0)
        return pm_error_new(PM_EINVALID, "Arrow array with negative length or offset");
    int64_t nb = 2, nc = 0;
    switch (n->kind) {
    case IK_VAR32:
    case IK_VAR64:
        nb = 3;
        break;
    case IK_LIST32:
    case IK_LIST64:
    case IK_MAP:
        nc = 1;
        break;
    case IK_STRUCT:
        nb = 1;
        nc = n->schema->n_children;
        break;
    default:
        break;
    }
    if (a->n_buffers != nb || a->n_children != nc)
        return pm_error_new(PM_EINVALID, "Arrow array for '%s' (format %s) has %lld buffers and %lld children, expected %lld and %lld",
                            n->schema->name ? n->schema->name : "", n->schema->format, (long long)a->n_buffers,
                            (long long)a->n_children, (long long)nb, (long long)nc);
    if (a->dictionary)
        return pm_error_new(PM_EUNSUPPORTED, "dictionary-encoded Arrow array");
    for (int64_t i = 1; i < nb; i++)
        if (!a->buffers[i] && a->length > 0)
            return pm_error_new(PM_EINVALID, "Arrow array for '%s' lacks buffer %lld",
                                n->schema->name ? n->schema->name : "", (long long)i);
    if (n->kind == IK_MAP) {
        const struct ArrowArray *e = a->children[0];
        if (!e || e->n_children != 2)
            return pm_error_new(PM_EINVALID, "Arrow map entries need two children");
        PM_TRY(check_array(&n->children[0], e->children[0]));
        return check_array(&n->children[1], e->children[1]);
    }
    if (n->kind == IK_STRUCT) {
        for (size_t i = 0; i < n->nchildren; i++)
            if (n->child_index[i] >= 0)
                PM_TRY(check_array(&n->children[i], a->children[n->child_index[i]]));
        return NULL;
    }
    if (nc)
        return check_array(&n->children[0], a->children[0]);
    return NULL;
}

static bool arrow_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->buffers[0];
    if (!v || a->null_count == 0)
        return true;
    int64_t k = a->offset + i;
    return (v[k >> 3] >> (k & 7)) & 1;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static pm_error *import_row(const imp_node *n, pm_column *c, const struct ArrowArray *a, int64_t i);

static pm_error *import_entries(const imp_node *n, pm_column *c, const struct ArrowArray *a, int64_t i,
                                int64_t begin, int64_t end)
{
    (void)i;
    for (int64_t j = begin; j < end; j++) {
        if (n->kind == IK_MAP) {
            const struct ArrowArray *e = a->children[0];
            int64_t k = e->offset + j;
            PM_TRY(import_row(&n->children[0], c->children[0], e->children[0], k));
            PM_TRY(import_row(&n->children[1], c->children[1], e->children[1], k));
        } else {
            PM_TRY(import_row(&n->children[0], c->children[0], a->children[0], j));
        }
    }
    return pm_column_end_nested(c);
}

/* Append logical row i of array a (a->offset not yet applied) to c. */
static pm_error *import_row(const imp_node *n, pm_column *c, const struct ArrowArray *a, int64_t i)
{
    if (!arrow_valid(a, i)) {
        if (!c->type->nullable)
            return pm_error_new(PM_EINVALID, "null in NOT NULL field '%s'",
                                n->schema->name ? n->schema->name : "");
        return pm_column_append_null(c);
    }
    int64_t k = a->offset + i;
    const uint8_t *b1 = a->n_buffers > 1 ? a->buffers[1] : NULL;
    switch (n->kind) {
    case IK_BOOL:
        return pm_column_append_bool(c, (b1[k >> 3] >> (k & 7)) & 1);
    case IK_FIXED:
        switch (n->width) {
        case 1: return pm_column_append_i8(c, ((const int8_t *)b1)[k]);
        case 2: {
            int16_t v;
            memcpy(&v, b1 + 2 * k, 2);
            return pm_column_append_i16(c, v);
        }
        case 4:
            if (c->type->id == PM_TYPE_FLOAT) {
                float v;
                memcpy(&v, b1 + 4 * k, 4);
                return pm_column_append_f32(c, v);
            } else {
                int32_t v;
                memcpy(&v, b1 + 4 * k, 4);
                return pm_column_append_i32(c, v);
            }
        case 8:
            if (c->type->id == PM_TYPE_DOUBLE) {
                double v;
                memcpy(&v, b1 + 8 * k, 8);
                return pm_column_append_f64(c, v);
            } else {
                int64_t v;
                memcpy(&v, b1 + 8 * k, 8);
                return pm_column_append_i64(c, v);
            }
        default: {
            __int128 v;
            memcpy(&v, b1 + 16 * k, 16);
            return pm_column_append_decimal(c, v);
        }
        }
    case IK_SCALE_DOWN32:
    case IK_SCALE_UP32: {
        int64_t v;
        if (n->kind == IK_SCALE_UP32) {
            int32_t w;
            memcpy(&w, b1 + 4 * k, 4);
            v = (int64_t)w * n->mul;
        } else {
            memcpy(&v, b1 + 8 * k, 8);
            v = floor_div(v, n->div);
        }
        if (v < INT32_MIN || v > INT32_MAX)
            return pm_error_new(PM_EINVALID, "value of field '%s' out of range for %s",
                                n->schema->name ? n->schema->name : "", pm_type_id_name(c->type->id));
        return pm_column_append_i32(c, (int32_t)v);
    }
    case IK_TS: {
        int64_t v;
        memcpy(&v, b1 + 8 * k, 8);
        if (n->mul > 1) {
            if (__builtin_mul_overflow(v, n->mul, &v))
                return pm_error_new(PM_EINVALID, "timestamp of field '%s' out of range",
                                    n->schema->name ? n->schema->name : "");
        } else if (n->div > 1) {
            v = floor_div(v, n->div);
        }
        return pm_column_append_i64(c, v);
    }
    case IK_VAR32: {
        int32_t o0, o1;
        memcpy(&o0, b1 + 4 * k, 4);
        memcpy(&o1, b1 + 4 * (k + 1), 4);
        if (o1 < o0 || o0 < 0)
            return pm_error_new(PM_EINVALID, "Arrow offsets of field '%s' decrease",
                                n->schema->name ? n->schema->name : "");
        return pm_column_append_bytes(c, (const uint8_t *)a->buffers[2] + o0, (size_t)(o1 - o0));
    }
    case IK_VAR64: {
        int64_t o0, o1;
        memcpy(&o0, b1 + 8 * k, 8);
        memcpy(&o1, b1 + 8 * (k + 1), 8);
        if (o1 < o0 || o0 < 0)
            return pm_error_new(PM_EINVALID, "Arrow offsets of field '%s' decrease",
                                n->schema->name ? n->schema->name : "");
        return pm_column_append_bytes(c, (const uint8_t *)a->buffers[2] + o0, (size_t)(o1 - o0));
    }
    case IK_FIXEDBIN:
        return pm_column_append_bytes(c, b1 + (size_t)k * (size_t)n->width, (size_t)n->width);
    case IK_LIST32:
    case IK_MAP: {
        int32_t o0, o1;
        memcpy(&o0, b1 + 4 * k, 4);
        memcpy(&o1, b1 + 4 * (k + 1), 4);
        if (o1 < o0 || o0 < 0)
            return pm_error_new(PM_EINVALID, "Arrow offsets of field '%s' decrease",
                                n->schema->name ? n->schema->name : "");
        return import_entries(n, c, a, i, o0, o1);
    }
    case IK_LIST64: {
        int64_t o0, o1;
        memcpy(&o0, b1 + 8 * k, 8);
        memcpy(&o1, b1 + 8 * (k + 1), 8);
        if (o1 < o0 || o0 < 0)
            return pm_error_new(PM_EINVALID, "Arrow offsets of field '%s' decrease",
                                n->schema->name ? n->schema->name : "");
        return import_entries(n, c, a, i, o0, o1);
    }
    case IK_STRUCT:
        for (size_t f = 0; f < n->nchildren; f++) {
            if (n->child_index[f] < 0)
                PM_TRY(pm_column_append_null(c->children[f]));
            else
                PM_TRY(import_row(&n->children[f], c->children[f], a->children[n->child_index[f]], k));
        }
        return pm_column_end_nested(c);
    }
    return pm_error_new(PM_EINTERNAL, "bad import node");
}

/* The row type of an imported struct array, in Arrow field order: the
 * fields of row_type matched by name, or types derived from the schema. */
static pm_error *import_row_type(const pm_type *row_type, const struct ArrowSchema *schema, pm_type **out)
{
    *out = NULL;
    if (!schema || !schema->format || strcmp(schema->format, "+s"))
        return pm_error_new(PM_EINVALID, "Arrow import needs a struct array (format '+s'), got '%s'",
                            schema && schema->format ? schema->format : "(none)");
    if (row_type && row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "Arrow import needs a ROW type");
    pm_type *rt = pm_type_new_row(row_type ? row_type->nullable : (schema->flags & ARROW_FLAG_NULLABLE) != 0);
    if (!rt)
        return pm_oom();
    pm_error *e = NULL;
    int32_t next_id = 0;
    for (int64_t i = 0; i < schema->n_children && !e; i++) {
        const struct ArrowSchema *c = schema->children[i];
        const char *name = c->name ? c->name : "";
        pm_type *ft = NULL;
        int32_t id;
        if (row_type) {
            ptrdiff_t k = pm_type_field_index(row_type, name);
            if (k < 0) {
                e = pm_error_new(PM_EINVALID, "Arrow column '%s' is not in the row type", name);
                break;
            }
            id = row_type->fields[k].id;
            if (!(ft = pm_type_clone(row_type->fields[k].type)))
                e = pm_oom();
        } else {
            if (!meta_field_id(c->metadata, &id))
                id = next_id++;
            e = pm_error_wrap(derive_type(c, &next_id, &ft), 0, "column '%s'", name);
        }
        if (!e)
            e = pm_type_add_field(rt, id, name, ft);
    }
    if (e) {
        pm_type_free(rt);
        return e;
    }
    *out = rt;
    return NULL;
}

/* The Arrow array a moving import owns, shared by the columns that borrow
 * its buffers; released with the last of them. */
typedef struct arrow_owner {
    atomic_int refs;
    struct ArrowArray array;
} arrow_owner;

static void owner_release(void *p)
{
    arrow_owner *o = p;
    if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (o->array.release)
        o->array.release(&o->array);
    free(o);
}

static int64_t count_nulls_bitmap(const uint8_t *v, int64_t n)
{
    int64_t valid = 0;
    for (int64_t i = 0; i < n / 8; i++)
        valid += __builtin_popcount(v[i]);
    for (int64_t i = n / 8 * 8; i < n; i++)
        valid += (v[i >> 3] >> (i & 7)) & 1;
    return n - valid;
}

/* Column c (empty, of the field's type) borrows the buffers of child array
 * a when the layouts agree: no offset, booleans, fixed-width values in the
 * column's unit, strings and binaries with 32-bit offsets from 0.  *done
 * false = the layout needs the copying import. */
static pm_error *borrow_column(const imp_node *n, pm_column *c, const struct ArrowArray *a, arrow_owner *own,
                               bool *done)
{
    *done = false;
    bool fits = n->kind == IK_BOOL || n->kind == IK_FIXED || n->kind == IK_VAR32 ||
                (n->kind == IK_TS && n->mul == 1 && n->div == 1);
    if (!fits || a->offset != 0 || a->length <= 0)
        return NULL;
    int64_t len = a->length, nulls = 0;
    const uint8_t *valid = a->buffers[0];
    if (valid && a->null_count != 0)
        nulls = a->null_count > 0 ? a->null_count : count_nulls_bitmap(valid, len);
    if (nulls > len)
        return pm_error_new(PM_EINVALID, "Arrow array for '%s' has %lld nulls in %lld rows",
                            n->schema->name ? n->schema->name : "", (long long)nulls, (long long)len);
    if (nulls && !c->type->nullable)
        return pm_error_new(PM_EINVALID, "null in NOT NULL field '%s'", n->schema->name ? n->schema->name : "");
    size_t data_len = 0;
    if (n->kind == IK_VAR32) {
        const int32_t *off = a->buffers[1];
        if (off[0] != 0)
            return NULL;
        for (int64_t i = 0; i < len; i++)
            if (off[i + 1] < off[i])
                return pm_error_new(PM_EINVALID, "Arrow offsets of field '%s' decrease",
                                    n->schema->name ? n->schema->name : "");
        data_len = (size_t)off[len];
        pm_buf_borrow(&c->offsets, off, (size_t)(len + 1) * 4);
        pm_buf_borrow(&c->data, a->buffers[2], data_len);
    } else if (n->kind == IK_BOOL) {
        pm_buf_borrow(&c->values, a->buffers[1], (size_t)(len + 7) / 8);
    } else {
        pm_buf_borrow(&c->values, a->buffers[1], (size_t)len * (size_t)(n->kind == IK_TS ? 8 : n->width));
    }
    if (nulls)
        pm_buf_borrow(&c->validity, valid, (size_t)(len + 7) / 8);
    c->length = len;
    c->null_count = nulls;
    atomic_fetch_add_explicit(&own->refs, 1, memory_order_relaxed);
    c->owner = own;
    c->owner_release = owner_release;
    *done = true;
    return NULL;
}

/* Steps 2 and 3 of both imports: compile, check the shapes, then fill each
 * column, borrowing from `own` where it can (own NULL: always copy). */
static pm_error *import_columns(pm_batch *b, const struct ArrowSchema *schema, const struct ArrowArray *array,
                                arrow_owner *own)
{
    imp_node root;
    memset(&root, 0, sizeof root);
    pm_error *e = compile(schema, b->type, &root);
    if (!e)
        e = check_array(&root, array);
    for (int64_t r = 0; !e && r < array->length; r++)
        if (!arrow_valid(array, r))
            e = pm_error_new(PM_EINVALID, "Arrow struct array has a null top-level row %lld", (long long)r);
    for (size_t f = 0; !e && f < b->ncolumns; f++) {
        const struct ArrowArray *ca = array->children[root.child_index[f]];
        bool borrowed = false;
        if (own && array->offset == 0)
            e = borrow_column(&root.children[f], b->columns[f], ca, own, &borrowed);
        for (int64_t r = 0; !e && !borrowed && r < array->length; r++)
            e = import_row(&root.children[f], b->columns[f], ca, array->offset + r);
        if (e)
            e = pm_error_wrap(e, 0, "column '%s'", b->type->fields[f].name);
    }
    if (!e)
        e = pm_batch_finish(b, array->length);
    imp_free(&root);
    return e;
}

pm_error *pm_batch_import(pm_batch **out, const pm_type *row_type, const struct ArrowSchema *schema,
                          const struct ArrowArray *array)
{
    *out = NULL;
    if (!array)
        return pm_error_new(PM_EINVALID, "Arrow import needs an array");
    pm_type *rt = NULL;
    PM_TRY(import_row_type(row_type, schema, &rt));
    pm_batch *b = NULL;
    pm_error *e = pm_batch_new(&b, rt);
    if (!e)
        e = import_columns(b, schema, array, NULL);
    pm_type_free(rt);
    if (e) {
        pm_batch_free(b);
        return e;
    }
    *out = b;
    return NULL;
}

pm_error *pm_batch_import_move(pm_batch **out, const pm_type *row_type, const struct ArrowSchema *schema,
                               struct ArrowArray *array)
{
    *out = NULL;
    if (!array || !array->release)
        return pm_error_new(PM_EINVALID, "Arrow import needs an array that is not released");
    arrow_owner *own = calloc(1, sizeof *own);
    if (!own) {
        array->release(array);
        array->release = NULL;
        return pm_oom();
    }
    own->array = *array; /* moved: the caller's struct is released from now on */
    array->release = NULL;
    atomic_init(&own->refs, 1);
    pm_type *rt = NULL;
    pm_batch *b = NULL;
    pm_error *e = import_row_type(row_type, schema, &rt);
    if (!e)
        e = pm_batch_new(&b, rt);
    if (!e)
        e = import_columns(b, schema, &own->array, own);
    pm_type_free(rt);
    owner_release(own); /* the columns that borrow keep it alive */
    if (e) {
        pm_batch_free(b);
        return e;
    }
    *out = b;
    return NULL;
}
