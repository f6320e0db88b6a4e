/*
 * meta/stats.c — full-mode SimpleStats over BinaryRows (see stats.h).
 */
#include "meta/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/compare.h"
#include "base/mem.h"
#include "types/binary_row.h"

typedef struct stat_value {
    bool set;
    int64_t i;          /* integers, DATE, TIME, TIMESTAMP millis */
    int32_t nanos;      /* TIMESTAMP nano of millisecond */
    double d;           /* FLOAT / DOUBLE */
    __int128 dec;       /* DECIMAL */
    pm_buf bytes;       /* strings / binaries */
} stat_value;

typedef struct field_stats {
    stat_value min, max;
    int64_t null_count;
} field_stats;

struct pm_stats_collector {
    pm_type *type;
    field_stats *fields;
};

pm_error *pm_stats_collector_new(pm_stats_collector **out, const pm_type *row_type)
{
    *out = NULL;
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "stats need a ROW type");
    pm_stats_collector *c;
    PM_TRY(pm_calloc(&c, 1, sizeof *c));
    c->type = pm_type_clone(row_type);
    pm_error *e = c->type ? pm_calloc(&c->fields, row_type->nfields ? row_type->nfields : 1,
                                      sizeof(field_stats))
                          : pm_oom();
    if (e) {
        pm_stats_collector_free(c);
        return e;
    }
    /* the stats row type: every field nullable */
    for (size_t i = 0; i < c->type->nfields; i++)
        c->type->fields[i].type->nullable = true;
    *out = c;
    return NULL;
}

void pm_stats_collector_free(pm_stats_collector *c)
{
    if (!c)
        return;
    if (c->fields)
        for (size_t i = 0; i < c->type->nfields; i++) {
            pm_buf_free(&c->fields[i].min.bytes);
            pm_buf_free(&c->fields[i].max.bytes);
        }
    free(c->fields);
    pm_type_free(c->type);
    free(c);
}

/* Compare the row's value v with a stored one (same type). */
static int cmp_value(pm_type_id id, const stat_value *v, const stat_value *s)
{
    switch (id) {
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
        return pm_cmp_java_double(v->d, s->d);
    case PM_TYPE_DECIMAL:
        return v->dec < s->dec ? -1 : v->dec > s->dec;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        if (v->i != s->i)
            return v->i < s->i ? -1 : 1;
        return v->nanos < s->nanos ? -1 : v->nanos > s->nanos;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
        return pm_cmp_bytes(v->bytes.data, v->bytes.len, s->bytes.data, s->bytes.len);
    default:
        return v->i < s->i ? -1 : v->i > s->i;
    }
}

static pm_error *store(pm_type_id id, stat_value *dst, const stat_value *src)
{
    dst->set = true;
    dst->i = src->i;
    dst->nanos = src->nanos;
    dst->d = src->d;
    dst->dec = src->dec;
    if (id == PM_TYPE_CHAR || id == PM_TYPE_VARCHAR || id == PM_TYPE_BINARY || id == PM_TYPE_VARBINARY) {
        pm_buf_clear(&dst->bytes);
        PM_TRY(pm_buf_append(&dst->bytes, src->bytes.data, src->bytes.len));
    }
    return NULL;
}

/* Read field i into v; *comparable=false for types without min/max. */
static pm_error *read_value(const pm_binrow *r, int32_t i, const pm_type *t, stat_value *v,
                            bool *comparable)
{
    *comparable = true;
    switch (t->id) {
    case PM_TYPE_BOOLEAN: v->i = pm_binrow_bool(r, i); return NULL;
    case PM_TYPE_TINYINT: v->i = pm_binrow_i8(r, i); return NULL;
    case PM_TYPE_SMALLINT: v->i = pm_binrow_i16(r, i); return NULL;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: v->i = pm_binrow_i32(r, i); return NULL;
    case PM_TYPE_BIGINT: v->i = pm_binrow_i64(r, i); return NULL;
    case PM_TYPE_FLOAT: v->d = pm_binrow_f32(r, i); return NULL;
    case PM_TYPE_DOUBLE: v->d = pm_binrow_f64(r, i); return NULL;
    case PM_TYPE_DECIMAL: return pm_binrow_decimal(r, i, t->precision, &v->dec);
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: return pm_binrow_timestamp(r, i, t->precision, &v->i, &v->nanos);
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY: {
        const uint8_t *p;
        size_t n;
        PM_TRY(pm_binrow_bytes(r, i, &p, &n));
        /* borrow: the caller copies when it keeps the value */
        v->bytes.data = (uint8_t *)(uintptr_t)p;
        v->bytes.len = n;
        return NULL;
    }
    default:
        *comparable = false;
        return NULL;
    }
}

pm_error *pm_stats_collector_add(pm_stats_collector *c, const uint8_t *serialized_row, size_t len)
{
    pm_binrow r;
    int32_t arity = (int32_t)c->type->nfields;
    PM_TRY(pm_binrow_deserialize(&r, serialized_row, len, arity));
    for (int32_t i = 0; i < arity; i++) {
        field_stats *fs = &c->fields[i];
        const pm_type *t = c->type->fields[i].type;
        if (pm_binrow_is_null(&r, i)) {
            fs->null_count++;
            continue;
        }
        stat_value v = {0};
        bool comparable;
        PM_TRY(pm_error_wrap(read_value(&r, i, t, &v, &comparable), 0, "field '%s'",
                             c->type->fields[i].name));
        if (!comparable)
            continue;
        if (!fs->min.set || cmp_value(t->id, &v, &fs->min) < 0)
            PM_TRY(store(t->id, &fs->min, &v));
        if (!fs->max.set || cmp_value(t->id, &v, &fs->max) > 0)
            PM_TRY(store(t->id, &fs->max, &v));
    }
    return NULL;
}

static pm_error *write_row(const pm_stats_collector *c, bool max, pm_bytes *out)
{
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    pm_buf ser = PM_BUF_INIT;
    int32_t arity = (int32_t)c->type->nfields;
    pm_error *e = pm_binrow_writer_reset(&w, arity);
    for (int32_t i = 0; !e && i < arity; i++) {
        const pm_type *t = c->type->fields[i].type;
        const stat_value *v = max ? &c->fields[i].max : &c->fields[i].min;
        if (!v->set) {
            e = pm_binrow_set_null(&w, i, t);
            continue;
        }
        switch (t->id) {
        case PM_TYPE_BOOLEAN: pm_binrow_set_bool(&w, i, v->i != 0); break;
        case PM_TYPE_TINYINT: pm_binrow_set_i8(&w, i, (int8_t)v->i); break;
        case PM_TYPE_SMALLINT: pm_binrow_set_i16(&w, i, (int16_t)v->i); break;
        case PM_TYPE_INT:
        case PM_TYPE_DATE:
        case PM_TYPE_TIME: pm_binrow_set_i32(&w, i, (int32_t)v->i); break;
        case PM_TYPE_BIGINT: pm_binrow_set_i64(&w, i, v->i); break;
        case PM_TYPE_FLOAT: pm_binrow_set_f32(&w, i, (float)v->d); break;
        case PM_TYPE_DOUBLE: pm_binrow_set_f64(&w, i, v->d); break;
        case PM_TYPE_DECIMAL: e = pm_binrow_set_decimal(&w, i, t->precision, v->dec); break;
        case PM_TYPE_TIMESTAMP:
        case PM_TYPE_TIMESTAMP_LTZ: e = pm_binrow_set_timestamp(&w, i, t->precision, v->i, v->nanos); break;
        default: e = pm_binrow_set_bytes(&w, i, v->bytes.data, v->bytes.len); break;
        }
    }
    if (!e)
        e = pm_binrow_serialize(&w, &ser);
    if (!e)
        e = pm_bytes_set(out, ser.data, ser.len);
    pm_buf_free(&ser);
    pm_binrow_writer_free(&w);
    return e;
}

pm_error *pm_stats_collector_result(const pm_stats_collector *c, pm_simple_stats *out)
{
    memset(out, 0, sizeof *out);
    pm_error *e = write_row(c, false, &out->min_values);
    if (!e)
        e = write_row(c, true, &out->max_values);
    size_t n = c->type->nfields;
    if (!e && n)
        e = pm_calloc(&out->null_counts, n, sizeof(pm_opt_long));
    if (!e) {
        out->has_null_counts = true;
        out->null_count_len = n;
        for (size_t i = 0; i < n; i++)
            out->null_counts[i] = (pm_opt_long){true, c->fields[i].null_count};
    }
    if (e)
        pm_simple_stats_clear(out);
    return e;
}
