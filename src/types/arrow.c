/*
 * types/arrow.c — pm_batch -> Arrow C Data Interface (export).
 *
 * Export (zero-copy).  A batch becomes a struct array ("+s", no validity)
 * with one child per column; every ArrowArray node points straight at a
 * column's buffers and holds its own reference on that column, so a
 * consumer may move children out and release nodes in any order.  The
 * release callback of a node releases its remaining children, drops its
 * column reference and frees the node's private data.  Formats:
 *   BOOLEAN b   TINYINT c   SMALLINT s   INT i   BIGINT l   FLOAT f
 *   DOUBLE g    DECIMAL(p,s) d:p,s (decimal128)   CHAR/VARCHAR u
 *   BINARY/VARBINARY/BLOB z   DATE tdD   TIME ttm (int32 millis)
 *   TIMESTAMP(p) tsm:/tsu:/tsn: (unit by precision, empty time zone)
 *   TIMESTAMP_LTZ(p) tsm:UTC/tsu:UTC/tsn:UTC
 *   ARRAY +l (child "element")   ROW +s (children = fields)
 *   MAP +m with one non-nullable "+s" child "entries" whose children are
 *   "key" (non-nullable) and "value"; MULTISET as map<element, int32>.
 * Buffers: [validity or NULL when null_count == 0, values] for fixed
 * width, [validity, int32 offsets, data] for var-width, [validity,
 * offsets] for lists and maps, [validity] for structs.  Empty buffers are
 * replaced by a static block of zeros (so offsets of an empty column read
 * as [0]).  Nullability flags follow the Paimon types; every ROW field
 * carries its field id as schema metadata "PARQUET:field_id", as Arrow
 * does for Parquet.
 *
 * Import: types/arrow_import.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/mem.h"
#include "types/column.h"

static _Alignas(64) const uint8_t zero_block[64];

static const void *buf_or_zero(const pm_buf *b)
{
    return b->len ? (const void *)b->data : (const void *)zero_block;
}

/* ------------------------------------------------------------------ */
/* Export: arrays                                                      */

typedef struct exp_array {
    pm_column *col;                 /* one reference, NULL for the batch root */
    const void *buffers[3];
    struct ArrowArray *child_mem;   /* n_children structs */
    struct ArrowArray **child_ptrs;
} exp_array;

static void release_array(struct ArrowArray *a)
{
    if (!a || !a->release)
        return;
    exp_array *p = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++) {
        struct ArrowArray *c = a->children[i];
        if (c && c->release)
            c->release(c);
    }
    pm_column_release(p->col);
    free(p->child_mem);
    free(p->child_ptrs);
    free(p);
    a->release = NULL;
}

/* Allocate the node's private data and child slots. */
static pm_error *array_node(struct ArrowArray *out, int64_t nchildren, exp_array **pp)
{
    memset(out, 0, sizeof *out);
    exp_array *p = calloc(1, sizeof *p);
    if (!p)
        return pm_oom();
    if (nchildren) {
        p->child_mem = calloc((size_t)nchildren, sizeof *p->child_mem);
        p->child_ptrs = calloc((size_t)nchildren, sizeof *p->child_ptrs);
        if (!p->child_mem || !p->child_ptrs) {
            free(p->child_mem);
            free(p->child_ptrs);
            free(p);
            return pm_oom();
        }
        for (int64_t i = 0; i < nchildren; i++)
            p->child_ptrs[i] = &p->child_mem[i];
    }
    out->private_data = p;
    out->buffers = p->buffers;
    out->children = p->child_ptrs;
    out->n_children = 0; /* raised as children are filled, so release is always safe */
    out->release = release_array;
    *pp = p;
    return NULL;
}

static pm_error *check_column(const pm_column *c)
{
    const pm_type *t = c->type;
    size_t n = (size_t)c->length;
    if (c->length < 0 || c->null_count < 0 || c->null_count > c->length)
        return pm_error_new(PM_EINTERNAL, "%s column has length %lld and %lld nulls",
                            pm_type_id_name(t->id), (long long)c->length, (long long)c->null_count);
    if (c->null_count && c->validity.len * 8 < n)
        return pm_error_new(PM_EINTERNAL, "%s column validity bitmap shorter than its %zu rows",
                            pm_type_id_name(t->id), n);
    int w = pm_type_value_width(t);
    if (w && c->values.len < n * (size_t)w)
        return pm_error_new(PM_EINTERNAL, "%s column values shorter than its %zu rows",
                            pm_type_id_name(t->id), n);
    if (t->id == PM_TYPE_BOOLEAN && c->values.len * 8 < n)
        return pm_error_new(PM_EINTERNAL, "BOOLEAN column bitmap shorter than its %zu rows", n);
    bool offs = pm_type_is_varlen(t) || t->id == PM_TYPE_ARRAY || t->id == PM_TYPE_MAP ||
                t->id == PM_TYPE_MULTISET;
    if (offs && n) {
        if (c->offsets.len < (n + 1) * 4)
            return pm_error_new(PM_EINTERNAL, "%s column has fewer than %zu offsets",
                                pm_type_id_name(t->id), n + 1);
        int32_t last = pm_column_offsets(c)[n];
        int64_t limit = pm_type_is_varlen(t) ? (int64_t)c->data.len : c->children[0]->length;
        if (last < 0 || last > limit)
            return pm_error_new(PM_EINTERNAL, "%s column offset %d beyond its data",
                                pm_type_id_name(t->id), (int)last);
    }
    if (t->id == PM_TYPE_ROW)
        for (size_t i = 0; i < c->nchildren; i++)
            if (c->children[i]->length < c->length)
                return pm_error_new(PM_EINTERNAL, "ROW field '%s' has fewer rows than the row",
                                    t->fields[i].name);
    return NULL;
}

static pm_error *export_column(pm_column *c, struct ArrowArray *out);

/* The "entries" struct of a MAP/MULTISET column: children keys and values. */
static pm_error *export_entries(pm_column *c, struct ArrowArray *out)
{
    exp_array *p;
    PM_TRY(array_node(out, 2, &p));
    p->col = pm_column_retain(c);
    out->length = c->children[0]->length;
    out->null_count = 0;
    out->n_buffers = 1;
    p->buffers[0] = NULL;
    for (int i = 0; i < 2; i++) {
        pm_error *e = export_column(c->children[i], p->child_ptrs[i]);
        if (e) {
            release_array(out);
            return e;
        }
        out->n_children = i + 1;
    }
    return NULL;
}

static pm_error *export_column(pm_column *c, struct ArrowArray *out)
{
    memset(out, 0, sizeof *out);
    PM_TRY(check_column(c));
    const pm_type *t = c->type;
    int64_t nchildren = t->id == PM_TYPE_ROW ? (int64_t)c->nchildren
                        : (t->id == PM_TYPE_ARRAY || t->id == PM_TYPE_MAP || t->id == PM_TYPE_MULTISET) ? 1
                                                                                                        : 0;
    exp_array *p;
    PM_TRY(array_node(out, nchildren, &p));
    p->col = pm_column_retain(c);
    out->length = c->length;
    out->null_count = c->null_count;
    out->offset = 0;
    p->buffers[0] = c->null_count ? (const void *)c->validity.data : NULL;
    pm_error *e = NULL;
    switch (t->id) {
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB:
        out->n_buffers = 3;
        p->buffers[1] = buf_or_zero(&c->offsets);
        p->buffers[2] = buf_or_zero(&c->data);
        break;
    case PM_TYPE_ARRAY:
        out->n_buffers = 2;
        p->buffers[1] = buf_or_zero(&c->offsets);
        e = export_column(c->children[0], p->child_ptrs[0]);
        break;
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET:
        out->n_buffers = 2;
        p->buffers[1] = buf_or_zero(&c->offsets);
        e = export_entries(c, p->child_ptrs[0]);
        break;
    case PM_TYPE_ROW:
        out->n_buffers = 1;
        for (size_t i = 0; i < c->nchildren && !e; i++) {
            e = export_column(c->children[i], p->child_ptrs[i]);
            if (!e)
                out->n_children = (int64_t)i + 1;
        }
        if (!e)
            return NULL;
        break;
    default:
        out->n_buffers = 2;
        p->buffers[1] = buf_or_zero(&c->values);
        break;
    }
    if (e) {
        release_array(out);
        return e;
    }
    out->n_children = nchildren;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Export: schemas                                                     */

typedef struct exp_schema {
    char *format;
    char *name;
    char *metadata;
    struct ArrowSchema *child_mem;
    struct ArrowSchema **child_ptrs;
} exp_schema;

static void release_schema(struct ArrowSchema *s)
{
    if (!s || !s->release)
        return;
    exp_schema *p = s->private_data;
    for (int64_t i = 0; i < s->n_children; i++) {
        struct ArrowSchema *c = s->children[i];
        if (c && c->release)
            c->release(c);
    }
    free(p->format);
    free(p->name);
    free(p->metadata);
    free(p->child_mem);
    free(p->child_ptrs);
    free(p);
    s->release = NULL;
}

static pm_error *format_of(const pm_type *t, char *buf, size_t cap)
{
    const char *f = NULL;
    switch (t->id) {
    case PM_TYPE_BOOLEAN: f = "b"; break;
    case PM_TYPE_TINYINT: f = "c"; break;
    case PM_TYPE_SMALLINT: f = "s"; break;
    case PM_TYPE_INT: f = "i"; break;
    case PM_TYPE_BIGINT: f = "l"; break;
    case PM_TYPE_FLOAT: f = "f"; break;
    case PM_TYPE_DOUBLE: f = "g"; break;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: f = "u"; break;
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: f = "z"; break;
    case PM_TYPE_DATE: f = "tdD"; break;
    case PM_TYPE_TIME: f = "ttm"; break;
    case PM_TYPE_ARRAY: f = "+l"; break;
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: f = "+m"; break;
    case PM_TYPE_ROW: f = "+s"; break;
    case PM_TYPE_DECIMAL:
        snprintf(buf, cap, "d:%d,%d", (int)t->precision, (int)t->scale);
        return NULL;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        int64_t u = pm_timestamp_units_per_second(t->precision);
        snprintf(buf, cap, "ts%c:%s", u == 1000 ? 'm' : u == 1000000 ? 'u' : 'n',
                 t->id == PM_TYPE_TIMESTAMP_LTZ ? "UTC" : "");
        return NULL;
    }
    default:
        return pm_error_new(PM_EUNSUPPORTED, "%s has no Arrow export", pm_type_id_name(t->id));
    }
    snprintf(buf, cap, "%s", f);
    return NULL;
}

/* Arrow metadata blob with one key/value pair (int32 native-endian lengths). */
static char *field_id_metadata(int32_t id)
{
    static const char key[] = "PARQUET:field_id";
    char val[16];
    int32_t klen = (int32_t)(sizeof key - 1), vlen = (int32_t)snprintf(val, sizeof val, "%d", (int)id);
    int32_t one = 1;
    size_t n = 12 + (size_t)klen + (size_t)vlen;
    char *m = malloc(n);
    if (!m)
        return NULL;
    char *w = m;
    memcpy(w, &one, 4), w += 4;
    memcpy(w, &klen, 4), w += 4;
    memcpy(w, key, (size_t)klen), w += klen;
    memcpy(w, &vlen, 4), w += 4;
    memcpy(w, val, (size_t)vlen);
    return m;
}

/* Export one schema node.  has_id: attach PARQUET:field_id. */
static pm_error *export_schema(const pm_type *t, const char *name, bool has_id, int32_t id,
                               bool nullable, struct ArrowSchema *out)
{
    memset(out, 0, sizeof *out);
    char fmt[32];
    PM_TRY(format_of(t, fmt, sizeof fmt));
    int64_t n = t->id == PM_TYPE_ROW ? (int64_t)t->nfields
                : (t->id == PM_TYPE_ARRAY || t->id == PM_TYPE_MAP || t->id == PM_TYPE_MULTISET) ? 1
                                                                                                : 0;
    exp_schema *p = calloc(1, sizeof *p);
    if (!p)
        return pm_oom();
    out->private_data = p;
    out->release = release_schema;
    out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
    pm_error *e = NULL;
    if (!(p->format = strdup(fmt)) || !(p->name = strdup(name ? name : "")) ||
        (has_id && !(p->metadata = field_id_metadata(id)))) {
        e = pm_oom();
        goto fail;
    }
    out->format = p->format;
    out->name = p->name;
    out->metadata = p->metadata;
    if (n) {
        p->child_mem = calloc((size_t)n, sizeof *p->child_mem);
        p->child_ptrs = calloc((size_t)n, sizeof *p->child_ptrs);
        if (!p->child_mem || !p->child_ptrs) {
            e = pm_oom();
            goto fail;
        }
        for (int64_t i = 0; i < n; i++)
            p->child_ptrs[i] = &p->child_mem[i];
        out->children = p->child_ptrs;
    }
    if (t->id == PM_TYPE_ROW) {
        for (size_t i = 0; i < t->nfields; i++) {
            const pm_field *f = &t->fields[i];
            e = export_schema(f->type, f->name, true, f->id, f->type->nullable, p->child_ptrs[i]);
            if (e) {
                e = pm_error_wrap(e, 0, "field '%s'", f->name);
                goto fail;
            }
            out->n_children = (int64_t)i + 1;
        }
    } else if (t->id == PM_TYPE_ARRAY) {
        e = export_schema(t->element, "element", false, 0, t->element->nullable, p->child_ptrs[0]);
        if (e)
            goto fail;
        out->n_children = 1;
    } else if (t->id == PM_TYPE_MAP || t->id == PM_TYPE_MULTISET) {
        /* entries struct: key (never nullable) and value */
        pm_type *entries = pm_type_new_row(false);
        if (!entries) {
            e = pm_oom();
            goto fail;
        }
        pm_type *k = pm_type_clone(t->id == PM_TYPE_MAP ? t->key : t->element);
        pm_type *v = t->id == PM_TYPE_MAP ? pm_type_clone(t->value) : pm_type_new(PM_TYPE_INT, false);
        if (!k || !v) {
            pm_type_free(k);
            pm_type_free(v);
            pm_type_free(entries);
            e = pm_oom();
            goto fail;
        }
        k->nullable = false;
        e = pm_type_add_field(entries, 0, "key", k);
        if (!e)
            e = pm_type_add_field(entries, 1, "value", v);
        else
            pm_type_free(v);
        if (!e) {
            /* no field ids on the synthetic entries/key/value nodes */
            struct ArrowSchema *es = p->child_ptrs[0];
            e = export_schema(entries, "entries", false, 0, false, es);
            if (!e) {
                out->n_children = 1;
                exp_schema *ep = es->private_data;
                for (int i = 0; i < 2; i++) {
                    exp_schema *cp = ep->child_ptrs[i]->private_data;
                    free(cp->metadata);
                    cp->metadata = NULL;
                    ep->child_ptrs[i]->metadata = NULL;
                }
            }
        }
        pm_type_free(entries);
        if (e)
            goto fail;
    }
    return NULL;
fail:
    release_schema(out);
    return e;
}

pm_error *pm_type_export_schema(const pm_type *row_type, struct ArrowSchema *schema)
{
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "Arrow schema export needs a ROW type");
    return export_schema(row_type, "", false, 0, false, schema);
}

pm_error *pm_batch_export(const pm_batch *b, struct ArrowSchema *schema, struct ArrowArray *array)
{
    memset(array, 0, sizeof *array);
    for (size_t i = 0; i < b->ncolumns; i++)
        if (b->columns[i]->length != b->num_rows)
            return pm_error_new(PM_EINVALID, "column '%s' has %lld rows, the batch %lld",
                                b->type->fields[i].name, (long long)b->columns[i]->length,
                                (long long)b->num_rows);
    PM_TRY(pm_type_export_schema(b->type, schema));
    exp_array *p;
    pm_error *e = array_node(array, (int64_t)b->ncolumns, &p);
    if (e) {
        schema->release(schema);
        return e;
    }
    array->length = b->num_rows;
    array->null_count = 0;
    array->n_buffers = 1;
    p->buffers[0] = NULL;
    for (size_t i = 0; i < b->ncolumns; i++) {
        e = export_column(b->columns[i], p->child_ptrs[i]);
        if (e) {
            e = pm_error_wrap(e, 0, "column '%s'", b->type->fields[i].name);
            goto fail;
        }
        array->n_children = (int64_t)i + 1;
    }
    return NULL;
fail:
    release_array(array);
    schema->release(schema);
    return e;
}
