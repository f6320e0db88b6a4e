/*
 * format/avro/avro_type.c — the Paimon type for an Avro schema (how a file
 * is shown without its table; rules in avro.h at pm_avro_schema_to_type).
 *
 * A depth-first walk: unions [null, T] (either order) become T made
 * nullable, a record met again on the current walk path is recursion
 * (unsupported), ROW field ids are numbered in visiting order.
 */
#include <stdlib.h>

#include "base/mem.h"
#include "format/avro/avro.h"
#include "format/avro/avro_binary.h"

#define MAX_PATH 64

typedef struct walker {
    int32_t next_id;
    const pm_avro_node *path[MAX_PATH];
    int depth;
} walker;

static pm_error *to_type(walker *w, const pm_avro_node *n, bool nullable, pm_type **out);

static pm_type *temporal(pm_type_id id, int32_t precision, bool nullable)
{
    return pm_type_new_temporal(id, precision, nullable);
}

static pm_error *record_type(walker *w, const pm_avro_node *n, bool nullable, pm_type **out)
{
    for (int i = 0; i < w->depth; i++)
        if (w->path[i] == n)
            return pm_error_new(PM_EUNSUPPORTED, "recursive avro record %s has no Paimon type",
                                n->name);
    if (w->depth >= MAX_PATH)
        return pm_error_new(PM_EUNSUPPORTED, "avro records nested deeper than %d", MAX_PATH);
    w->path[w->depth++] = n;
    pm_type *row = pm_type_new_row(nullable);
    pm_error *e = row ? NULL : pm_oom();
    for (size_t i = 0; i < n->n && !e; i++) {
        int32_t id = w->next_id++;
        pm_type *ft = NULL;
        e = to_type(w, n->fields[i].type, false, &ft);
        if (!e)
            e = pm_type_add_field(row, id, n->fields[i].name, ft);
        if (e)
            e = pm_error_wrap(e, 0, "field '%s'", n->fields[i].name);
    }
    w->depth--;
    if (e) {
        pm_type_free(row);
        return e;
    }
    *out = row;
    return NULL;
}

static pm_error *to_type(walker *w, const pm_avro_node *n, bool nullable, pm_type **out)
{
    *out = NULL;
    pm_type *t = NULL;
    switch (n->kind) {
    case PM_AVRO_NULL:
        return pm_error_new(PM_EUNSUPPORTED, "a bare avro null type has no Paimon type");
    case PM_AVRO_UNION: {
        const pm_avro_node *only = NULL;
        bool has_null = false;
        for (size_t i = 0; i < n->n; i++) {
            if (n->branches[i]->kind == PM_AVRO_NULL) {
                has_null = true;
            } else if (only) {
                return pm_error_new(PM_EUNSUPPORTED,
                                    "avro union of several non-null types has no Paimon type");
            } else {
                only = n->branches[i];
            }
        }
        if (!only)
            return pm_error_new(PM_EUNSUPPORTED, "avro union of only null has no Paimon type");
        return to_type(w, only, nullable || has_null, out);
    }
    case PM_AVRO_BOOLEAN: t = pm_type_new(PM_TYPE_BOOLEAN, nullable); break;
    case PM_AVRO_INT:
        if (n->logical == PM_AVRO_LT_DATE)
            t = pm_type_new(PM_TYPE_DATE, nullable);
        else if (n->logical == PM_AVRO_LT_TIME_MILLIS)
            t = temporal(PM_TYPE_TIME, 3, nullable);
        else
            t = pm_type_new(PM_TYPE_INT, nullable);
        break;
    case PM_AVRO_LONG:
        switch (n->logical) {
        case PM_AVRO_LT_TIME_MICROS: t = temporal(PM_TYPE_TIME, 6, nullable); break;
        case PM_AVRO_LT_TIMESTAMP_MILLIS: t = temporal(PM_TYPE_TIMESTAMP, 3, nullable); break;
        case PM_AVRO_LT_TIMESTAMP_MICROS: t = temporal(PM_TYPE_TIMESTAMP, 6, nullable); break;
        case PM_AVRO_LT_TIMESTAMP_NANOS: t = temporal(PM_TYPE_TIMESTAMP, 9, nullable); break;
        case PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS:
            t = temporal(PM_TYPE_TIMESTAMP_LTZ, 3, nullable);
            break;
        case PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS:
            t = temporal(PM_TYPE_TIMESTAMP_LTZ, 6, nullable);
            break;
        case PM_AVRO_LT_LOCAL_TIMESTAMP_NANOS:
            t = temporal(PM_TYPE_TIMESTAMP_LTZ, 9, nullable);
            break;
        default: t = pm_type_new(PM_TYPE_BIGINT, nullable); break;
        }
        break;
    case PM_AVRO_FLOAT: t = pm_type_new(PM_TYPE_FLOAT, nullable); break;
    case PM_AVRO_DOUBLE: t = pm_type_new(PM_TYPE_DOUBLE, nullable); break;
    case PM_AVRO_BYTES:
    case PM_AVRO_FIXED:
        if (n->logical == PM_AVRO_LT_DECIMAL && n->precision <= 38)
            t = pm_type_new_decimal(n->precision, n->scale, nullable);
        else if (n->kind == PM_AVRO_FIXED && n->size > 0)
            t = pm_type_new_string(PM_TYPE_BINARY, (int32_t)n->size, nullable);
        else
            t = pm_type_new_string(PM_TYPE_VARBINARY, PM_MAX_LENGTH, nullable);
        break;
    case PM_AVRO_STRING:
    case PM_AVRO_ENUM: t = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, nullable); break;
    case PM_AVRO_RECORD: return record_type(w, n, nullable, out);
    case PM_AVRO_ARRAY: {
        const pm_avro_node *it = n->items;
        ptrdiff_t ki = it->kind == PM_AVRO_RECORD ? pm_avro_field_index(it, "key") : -1;
        ptrdiff_t vi = it->kind == PM_AVRO_RECORD ? pm_avro_field_index(it, "value") : -1;
        if (n->logical == PM_AVRO_LT_MAP && ki >= 0 && vi >= 0 && it->n == 2) {
            pm_type *k, *v;
            PM_TRY(to_type(w, it->fields[ki].type, false, &k));
            pm_error *e = to_type(w, it->fields[vi].type, false, &v);
            if (e) {
                pm_type_free(k);
                return e;
            }
            t = pm_type_new_map(k, v, nullable);
            break;
        }
        pm_type *el = NULL;
        PM_TRY(to_type(w, it, false, &el));
        t = pm_type_new_array(el, nullable);
        break;
    }
    case PM_AVRO_MAP: {
        pm_type *k = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, false);
        if (!k)
            return pm_oom();
        pm_type *v = NULL;
        pm_error *e = to_type(w, n->items, false, &v);
        if (e) {
            pm_type_free(k);
            return e;
        }
        t = pm_type_new_map(k, v, nullable);
        break;
    }
    }
    if (!t)
        return pm_oom();
    *out = t;
    return NULL;
}

pm_error *pm_avro_schema_to_type(const pm_avro_node *n, pm_type **out)
{
    walker w = {0};
    return to_type(&w, n, false, out);
}
