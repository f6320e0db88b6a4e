/*
 * table/write_stats.c — value statistics of written data files, as Paimon
 * Java 2.0 computes them (see write_stats.h for the rules and steps).
 */
#include "table/write_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/compare.h"
#include "base/mem.h"
#include "types/binary_row.h"

/* ------------------------------------------------------------------ */
/* values                                                              */

static void value_clear(pm_stat_value *v)
{
    pm_buf_free(&v->bytes);
    memset(v, 0, sizeof *v);
}

void pm_col_stats_clear(pm_col_stats *s)
{
    value_clear(&s->min);
    value_clear(&s->max);
    memset(s, 0, sizeof *s);
}

static bool is_bytes_type(pm_type_id id)
{
    return id == PM_TYPE_CHAR || id == PM_TYPE_VARCHAR || id == PM_TYPE_BINARY ||
           id == PM_TYPE_VARBINARY;
}

static bool is_string_type(pm_type_id id) { return id == PM_TYPE_CHAR || id == PM_TYPE_VARCHAR; }

/* Types whose values are java.lang.Comparable (or byte[]) in Paimon's
 * internal representation: everything atomic except BLOB and VARIANT. */
static bool is_comparable(const pm_type *t)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT:
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
    case PM_TYPE_DECIMAL:
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return true;
    default:
        return false;
    }
}

static int cmp_value(pm_type_id id, const pm_stat_value *a, const pm_stat_value *b)
{
    switch (id) {
    case PM_TYPE_BOOLEAN:
        return (int)a->b - (int)b->b;
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
        return pm_cmp_java_double(a->d, b->d);
    case PM_TYPE_DECIMAL:
        return a->dec < b->dec ? -1 : a->dec > b->dec;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        if (a->i != b->i)
            return a->i < b->i ? -1 : 1;
        return a->nanos < b->nanos ? -1 : a->nanos > b->nanos;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
        return pm_cmp_bytes(a->bytes.data, a->bytes.len, b->bytes.data, b->bytes.len);
    default:
        return a->i < b->i ? -1 : a->i > b->i;
    }
}

static pm_error *value_copy(pm_stat_value *dst, const pm_stat_value *src)
{
    dst->b = src->b;
    dst->i = src->i;
    dst->nanos = src->nanos;
    dst->d = src->d;
    dst->dec = src->dec;
    pm_buf_clear(&dst->bytes);
    if (src->bytes.len)
        PM_TRY(pm_buf_append(&dst->bytes, src->bytes.data, src->bytes.len));
    return NULL;
}

/* ------------------------------------------------------------------ */
/* step 1: modes                                                       */

static bool is_system_field(const char *name)
{
    static const char *const names[] = {"_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "rowkind",
                                        "_ROW_ID"};
    if (!strncmp(name, "_KEY_", 5))
        return true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i]))
            return true;
    return false;
}

pm_error *pm_write_stats_modes(const pm_options *o, const pm_type *row_type, pm_stats_mode *modes,
                               bool *disabled)
{
    pm_stats_mode table_mode;
    bool present;
    PM_TRY(pm_options_stats_mode(o, PM_OPT_METADATA_STATS_MODE, &present, &table_mode));
    if (!present) {
        table_mode.kind = PM_STATS_TRUNCATE;
        table_mode.truncate_length = 16;
    }
    int32_t keep_first = -1;
    PM_TRY(pm_options_int(o, PM_OPT_METADATA_STATS_KEEP_FIRST_N_COLUMNS, NULL, &keep_first));
    int32_t counted = 0;
    *disabled = true;
    for (size_t i = 0; i < row_type->nfields; i++) {
        const char *name = row_type->fields[i].name;
        pm_stats_mode m;
        PM_TRY(pm_options_field_stats_mode(o, name, &present, &m));
        if (present) {
            counted++;
        } else if (is_system_field(name)) {
            m.kind = PM_STATS_TRUNCATE;
            m.truncate_length = 128;
        } else {
            if (keep_first >= 0 && counted >= keep_first) {
                m.kind = PM_STATS_NONE;
                m.truncate_length = 0;
            } else {
                m = table_mode;
            }
            counted++;
        }
        modes[i] = m;
        if (m.kind != PM_STATS_NONE)
            *disabled = false;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* step 3: truncation                                                  */

/* BinaryString.numBytesForFirstByte. */
static size_t utf8_lead_len(uint8_t b)
{
    if (b < 0x80)
        return 1;
    if ((b >> 5) == 0x6 && (b & 0x1e))
        return 2;
    if ((b >> 4) == 0xe)
        return 3;
    if ((b >> 3) == 0x1e)
        return 4;
    return 1;
}

/* Byte length of the first `len` code points (BinaryString.substring(0, len)). */
static size_t utf8_prefix(const uint8_t *s, size_t n, int32_t len)
{
    size_t i = 0;
    for (int32_t c = 0; i < n && c < len; c++)
        i += utf8_lead_len(s[i]);
    return i > n ? n : i;
}

pm_error *pm_stats_truncate_string_min(const uint8_t *s, size_t n, int32_t len, pm_buf *out)
{
    pm_buf_clear(out);
    size_t k = utf8_prefix(s, n, len);
    return k ? pm_buf_append(out, s, k) : NULL;
}

/* Decode one code point (invalid sequences give U+FFFD for one byte). */
static uint32_t utf8_decode(const uint8_t *s, size_t n, size_t *used)
{
    uint8_t b = s[0];
    size_t need = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    if (need == 1) {
        *used = 1;
        return b;
    }
    if (need == 0 || need > n) {
        *used = 1;
        return 0xfffd;
    }
    uint32_t cp = need == 2 ? (b & 0x1fu) : need == 3 ? (b & 0x0fu) : (b & 0x07u);
    for (size_t k = 1; k < need; k++) {
        if ((s[k] & 0xc0) != 0x80) {
            *used = 1;
            return 0xfffd;
        }
        cp = (cp << 6) | (s[k] & 0x3fu);
    }
    *used = need;
    return cp;
}

/* Encode as Paimon's BinaryString.encodeUTF8 (a lone surrogate → '?'). */
static pm_error *utf8_encode(pm_buf *out, uint32_t cp)
{
    uint8_t b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (uint8_t)(0xc0 | (cp >> 6));
        b[1] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
        b[0] = '?';
        n = 1;
    } else if (cp < 0x10000) {
        b[0] = (uint8_t)(0xe0 | (cp >> 12));
        b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (uint8_t)(0xf0 | (cp >> 18));
        b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return pm_buf_append(out, b, n);
}

pm_error *pm_stats_truncate_string_max(const uint8_t *s, size_t n, int32_t len, pm_buf *out, bool *ok)
{
    pm_buf_clear(out);
    *ok = true;
    size_t k = utf8_prefix(s, n, len);
    if (k == n)
        return n ? pm_buf_append(out, s, n) : NULL;
    /* The prefix as code points; increment from the end. */
    uint32_t *cps;
    size_t ncp = 0;
    PM_TRY(pm_calloc(&cps, k ? k : 1, sizeof *cps));
    for (size_t i = 0; i < k;) {
        size_t used;
        cps[ncp++] = utf8_decode(s + i, k - i, &used);
        i += used;
    }
    pm_error *e = NULL;
    for (size_t i = ncp; i-- > 0;) {
        uint32_t next = cps[i] + 1;
        if (next <= 0x10ffff) {
            for (size_t j = 0; j < i && !e; j++)
                e = utf8_encode(out, cps[j]);
            if (!e)
                e = utf8_encode(out, next);
            free(cps);
            return e;
        }
    }
    free(cps);
    *ok = false;
    return NULL;
}

pm_error *pm_stats_truncate_bytes_max(const uint8_t *s, size_t n, int32_t len, pm_buf *out, bool *ok)
{
    pm_buf_clear(out);
    *ok = true;
    if (n <= (size_t)len)
        return n ? pm_buf_append(out, s, n) : NULL;
    for (size_t i = (size_t)len; i-- > 0;) {
        if (s[i] != 0xff) {
            PM_TRY(pm_buf_append(out, s, i + 1));
            out->data[i]++;
            return NULL;
        }
    }
    *ok = false;
    return NULL;
}

static pm_error *truncate_min(const pm_type *t, int32_t len, pm_stat_value *v)
{
    if (!is_bytes_type(t->id))
        return NULL;
    pm_buf tmp = PM_BUF_INIT;
    pm_error *e = NULL;
    if (is_string_type(t->id)) {
        e = pm_stats_truncate_string_min(v->bytes.data, v->bytes.len, len, &tmp);
    } else if (v->bytes.len > (size_t)len) {
        e = pm_buf_append(&tmp, v->bytes.data, (size_t)len);
    } else {
        return NULL;
    }
    if (e) {
        pm_buf_free(&tmp);
        return e;
    }
    pm_buf_free(&v->bytes);
    v->bytes = tmp;
    return NULL;
}

static pm_error *truncate_max(const pm_type *t, int32_t len, pm_stat_value *v, bool *ok)
{
    *ok = true;
    if (!is_bytes_type(t->id))
        return NULL;
    pm_buf tmp = PM_BUF_INIT;
    pm_error *e = is_string_type(t->id)
                      ? pm_stats_truncate_string_max(v->bytes.data, v->bytes.len, len, &tmp, ok)
                      : pm_stats_truncate_bytes_max(v->bytes.data, v->bytes.len, len, &tmp, ok);
    if (e || !*ok) {
        pm_buf_free(&tmp);
        return e;
    }
    pm_buf_free(&v->bytes);
    v->bytes = tmp;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* step 2: Parquet                                                     */

static pm_error *value_from_pq(const pm_type *t, const pm_pq_value *p, pm_stat_value *v)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        v->b = p->b;
        return NULL;
    case PM_TYPE_TINYINT:
        v->i = (int8_t)p->i;
        return NULL;
    case PM_TYPE_SMALLINT:
        v->i = (int16_t)p->i;
        return NULL;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
        v->i = (int32_t)p->i;
        return NULL;
    case PM_TYPE_BIGINT:
        v->i = p->i;
        return NULL;
    case PM_TYPE_FLOAT:
        v->d = p->f;
        return NULL;
    case PM_TYPE_DOUBLE:
        v->d = p->d;
        return NULL;
    case PM_TYPE_DECIMAL:
        v->dec = p->dec;
        return NULL;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        pm_timestamp_to_millis_nanos(p->i, t->precision, &v->i, &v->nanos);
        return NULL;
    default:
        pm_buf_clear(&v->bytes);
        return p->bytes.len ? pm_buf_append(&v->bytes, p->bytes.data, p->bytes.len) : NULL;
    }
}

/* SimpleColStatsCollector.convert of the mode. */
static pm_error *convert(const pm_type *t, pm_stats_mode mode, pm_col_stats *s)
{
    switch (mode.kind) {
    case PM_STATS_NONE:
        pm_col_stats_clear(s);
        return NULL;
    case PM_STATS_COUNTS:
        value_clear(&s->min);
        value_clear(&s->max);
        s->has_min = s->has_max = false;
        return NULL;
    case PM_STATS_FULL:
        return NULL;
    case PM_STATS_TRUNCATE: {
        if (s->has_min)
            PM_TRY(truncate_min(t, mode.truncate_length, &s->min));
        bool ok = s->has_max;
        if (s->has_max)
            PM_TRY(truncate_max(t, mode.truncate_length, &s->max, &ok));
        if (!ok) {
            value_clear(&s->min);
            value_clear(&s->max);
            s->has_min = s->has_max = false;
        }
        return NULL;
    }
    }
    return pm_error_new(PM_EINTERNAL, "unknown stats mode %d", (int)mode.kind);
}

pm_error *pm_col_stats_from_parquet(const pm_type *type, pm_stats_mode mode,
                                    const pm_pq_column_stats *s, pm_col_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!s->has_stats)
        return NULL; /* no column chunk of that name: NONE, not converted */
    out->has_null_count = true;
    out->null_count = s->null_count;
    bool typed = s->has_min_max;
    switch (type->id) {
    case PM_TYPE_BOOLEAN:
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_BIGINT:
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
    case PM_TYPE_DECIMAL:
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        break;
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
        typed = false; /* Java keeps no min/max of Parquet binary columns */
        break;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        if (type->precision > 6)
            typed = false;
        break;
    default:
        typed = false;
    }
    pm_error *e = NULL;
    if (typed) {
        out->has_min = out->has_max = true;
        e = value_from_pq(type, &s->min, &out->min);
        if (!e)
            e = value_from_pq(type, &s->max, &out->max);
    }
    /* Java 1.4.2's Parquet statistics order NaN above every number: a
     * column holding NaN has max NaN (and min NaN when it holds nothing else) */
    if (!e && s->has_nan && (type->id == PM_TYPE_FLOAT || type->id == PM_TYPE_DOUBLE)) {
        if (!out->has_min) {
            out->has_min = true;
            out->min.d = NAN;
        }
        out->has_max = true;
        out->max.d = NAN;
    }
    if (!e)
        e = convert(type, mode, out);
    if (e)
        pm_col_stats_clear(out);
    return e;
}

/* ------------------------------------------------------------------ */
/* step 2: ORC                                                         */

static pm_error *value_from_orc(const pm_type *t, const pm_orc_value *o, pm_stat_value *v)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: v->b = o->b; return NULL;
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_BIGINT: v->i = o->i; return NULL;
    case PM_TYPE_FLOAT: v->d = o->f; return NULL;
    case PM_TYPE_DOUBLE: v->d = o->d; return NULL;
    case PM_TYPE_DECIMAL: v->dec = o->dec; return NULL;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: pm_timestamp_to_millis_nanos(o->i, t->precision, &v->i, &v->nanos); return NULL;
    default:
        pm_buf_clear(&v->bytes);
        return o->bytes.len ? pm_buf_append(&v->bytes, o->bytes.data, o->bytes.len) : NULL;
    }
}

pm_error *pm_col_stats_from_orc(const pm_type *type, pm_stats_mode mode, const pm_orc_field_stats *s,
                                pm_col_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!s->has_null_count)
        return NULL; /* no statistics: NONE, not converted */
    out->has_null_count = true;
    out->null_count = s->null_count;
    pm_error *e = NULL;
    if (s->has_min) {
        out->has_min = true;
        e = value_from_orc(type, &s->min, &out->min);
    }
    if (!e && s->has_max) {
        out->has_max = true;
        e = value_from_orc(type, &s->max, &out->max);
    }
    if (!e)
        e = convert(type, mode, out);
    if (e)
        pm_col_stats_clear(out);
    return e;
}

/* ------------------------------------------------------------------ */
/* step 2: Avro (per-row collection)                                   */

void pm_stats_accum_init(pm_stats_accum *a, const pm_type *type, pm_stats_mode mode)
{
    memset(a, 0, sizeof *a);
    a->type = type;
    a->mode = mode;
}

void pm_stats_accum_clear(pm_stats_accum *a)
{
    pm_col_stats_clear(&a->st);
    a->failed = false;
}

/* Read row i of c into v (bytes borrowed into a view buffer). */
static void read_value(const pm_type *t, const pm_column *c, int64_t i, pm_stat_value *v)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: v->b = pm_column_bool(c, i); break;
    case PM_TYPE_TINYINT: v->i = pm_column_i8(c, i); break;
    case PM_TYPE_SMALLINT: v->i = pm_column_i16(c, i); break;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: v->i = pm_column_i32(c, i); break;
    case PM_TYPE_BIGINT: v->i = pm_column_i64(c, i); break;
    case PM_TYPE_FLOAT: v->d = pm_column_f32(c, i); break;
    case PM_TYPE_DOUBLE: v->d = pm_column_f64(c, i); break;
    case PM_TYPE_DECIMAL: v->dec = pm_column_decimal(c, i); break;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        pm_timestamp_to_millis_nanos(pm_column_i64(c, i), t->precision, &v->i, &v->nanos);
        break;
    default: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, i, &n);
        /* a borrowed view: data points into the column */
        v->bytes.data = (uint8_t *)(uintptr_t)p;
        v->bytes.len = n;
        v->bytes.cap = 0;
    }
    }
}

pm_error *pm_stats_accum_add(pm_stats_accum *a, const pm_column *c, int64_t from, int64_t to)
{
    if (a->mode.kind == PM_STATS_NONE)
        return NULL;
    a->st.has_null_count = true;
    bool minmax = a->mode.kind != PM_STATS_COUNTS && is_comparable(a->type);
    bool trunc = a->mode.kind == PM_STATS_TRUNCATE;
    pm_type_id id = a->type->id;
    for (int64_t i = from; i < to; i++) {
        if (pm_column_is_null(c, i)) {
            a->st.null_count++;
            continue;
        }
        if (!minmax || a->failed)
            continue;
        pm_stat_value v = {0};
        read_value(a->type, c, i, &v);
        if (!a->st.has_min || cmp_value(id, &v, &a->st.min) < 0) {
            PM_TRY(value_copy(&a->st.min, &v));
            if (trunc)
                PM_TRY(truncate_min(a->type, a->mode.truncate_length, &a->st.min));
            a->st.has_min = true;
        }
        if (!a->st.has_max || cmp_value(id, &v, &a->st.max) > 0) {
            if (!trunc) {
                PM_TRY(value_copy(&a->st.max, &v));
                a->st.has_max = true;
            } else {
                pm_stat_value m = {0};
                pm_error *e = value_copy(&m, &v);
                bool ok = true;
                if (!e)
                    e = truncate_max(a->type, a->mode.truncate_length, &m, &ok);
                if (e) {
                    value_clear(&m);
                    return e;
                }
                if (ok) {
                    value_clear(&a->st.max);
                    a->st.max = m;
                    a->st.has_max = true;
                } else {
                    value_clear(&m);
                    a->failed = true;
                }
            }
        }
    }
    return NULL;
}

void pm_stats_accum_result(pm_stats_accum *a, pm_col_stats *out)
{
    *out = a->st;
    memset(&a->st, 0, sizeof a->st);
    if (a->mode.kind == PM_STATS_NONE) {
        pm_col_stats_clear(out);
    } else {
        out->has_null_count = true; /* a collector always reports its count */
        if (a->failed) {
            value_clear(&out->min);
            value_clear(&out->max);
            out->has_min = out->has_max = false;
        }
    }
    a->failed = false;
}

/* ------------------------------------------------------------------ */
/* step 4: SimpleStats                                                 */

static pm_error *set_value(pm_binrow_writer *w, int32_t pos, const pm_type *t, const pm_stat_value *v)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: pm_binrow_set_bool(w, pos, v->b); return NULL;
    case PM_TYPE_TINYINT: pm_binrow_set_i8(w, pos, (int8_t)v->i); return NULL;
    case PM_TYPE_SMALLINT: pm_binrow_set_i16(w, pos, (int16_t)v->i); return NULL;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: pm_binrow_set_i32(w, pos, (int32_t)v->i); return NULL;
    case PM_TYPE_BIGINT: pm_binrow_set_i64(w, pos, v->i); return NULL;
    case PM_TYPE_FLOAT: pm_binrow_set_f32(w, pos, (float)v->d); return NULL;
    case PM_TYPE_DOUBLE: pm_binrow_set_f64(w, pos, v->d); return NULL;
    case PM_TYPE_DECIMAL: return pm_binrow_set_decimal(w, pos, t->precision, v->dec);
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: return pm_binrow_set_timestamp(w, pos, t->precision, v->i, v->nanos);
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY: return pm_binrow_set_bytes(w, pos, v->bytes.data, v->bytes.len);
    default:
        return pm_error_new(PM_EINTERNAL, "statistics value for type %s", pm_type_id_name(t->id));
    }
}

static pm_error *row_bytes(pm_binrow_writer *w, pm_buf *tmp, pm_bytes *out)
{
    pm_buf_clear(tmp);
    PM_TRY(pm_binrow_serialize(w, tmp));
    return pm_bytes_set(out, tmp->data, tmp->len);
}

pm_error *pm_col_stats_to_simple(const pm_type *row_type, const pm_col_stats *stats, bool dense,
                                 pm_simple_stats *out, bool *has_cols, pm_str_list *cols)
{
    memset(out, 0, sizeof *out);
    memset(cols, 0, sizeof *cols);
    *has_cols = false;
    size_t n = row_type->nfields, kept = 0;
    size_t *idx;
    PM_TRY(pm_calloc(&idx, n ? n : 1, sizeof *idx));
    for (size_t i = 0; i < n; i++)
        if (!dense || !pm_col_stats_is_none(&stats[i]))
            idx[kept++] = i;
    pm_binrow_writer wmin = PM_BINROW_WRITER_INIT, wmax = PM_BINROW_WRITER_INIT;
    pm_buf tmp = PM_BUF_INIT;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_binrow_writer_reset(&wmin, (int32_t)kept), fail);
    PM_TRY_GOTO(e, pm_binrow_writer_reset(&wmax, (int32_t)kept), fail);
    PM_TRY_GOTO(e, pm_calloc(&out->null_counts, kept ? kept : 1, sizeof *out->null_counts), fail);
    out->has_null_counts = true;
    out->null_count_len = kept;
    for (size_t k = 0; k < kept; k++) {
        const pm_field *f = &row_type->fields[idx[k]];
        const pm_col_stats *s = &stats[idx[k]];
        int32_t pos = (int32_t)k;
        if (s->has_min)
            PM_TRY_GOTO(e, set_value(&wmin, pos, f->type, &s->min), fail);
        else
            PM_TRY_GOTO(e, pm_binrow_set_null(&wmin, pos, f->type), fail);
        if (s->has_max)
            PM_TRY_GOTO(e, set_value(&wmax, pos, f->type, &s->max), fail);
        else
            PM_TRY_GOTO(e, pm_binrow_set_null(&wmax, pos, f->type), fail);
        out->null_counts[k].has = s->has_null_count;
        out->null_counts[k].v = s->has_null_count ? s->null_count : 0;
    }
    PM_TRY_GOTO(e, row_bytes(&wmin, &tmp, &out->min_values), fail);
    PM_TRY_GOTO(e, row_bytes(&wmax, &tmp, &out->max_values), fail);
    if (dense && kept != n) {
        *has_cols = true;
        PM_TRY_GOTO(e, pm_calloc(&cols->items, kept ? kept : 1, sizeof *cols->items), fail);
        for (size_t k = 0; k < kept; k++) {
            PM_TRY_GOTO(e, pm_strdup(&cols->items[k], row_type->fields[idx[k]].name), fail);
            cols->count++;
        }
    }
    goto done;
fail:
    pm_simple_stats_clear(out);
    pm_str_list_free(cols);
    *has_cols = false;
done:
    pm_binrow_writer_free(&wmin);
    pm_binrow_writer_free(&wmax);
    pm_buf_free(&tmp);
    free(idx);
    return e;
}
