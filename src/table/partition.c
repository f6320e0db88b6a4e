/*
 * table/partition.c — partition rows and partition specs for scans (see
 * partition.h for the matching rule).
 *
 * Spec text: "k=v" or "k1=v1,k2=v2" (one spec; all entries must match).
 * Keys and values are taken verbatim (no trimming, no unescaping); a key
 * may appear once; an empty key, a missing '=' or an empty spec is
 * PM_EINVALID.
 *
 * Compiled matcher: per spec entry the field index, the value text, and
 * the value parsed as the field's type (CAST-to-STRING form, or none when
 * it does not parse).  Matching decodes the partition row once, renders the
 * directory and cast strings of the fields a spec names, and compares.
 * Manifest pruning uses the typed value of integer and string fields
 * against the partition stats min/max (full mode, as Paimon writes them).
 */
#include "table/partition.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "paimon/batch.h"
#include "table/table_internal.h"
#include "types/column.h"
#include "types/value.h"

/* ---------------------------------------------------------------- */
/* spec text                                                         */

void pm_partition_spec_clear(pm_partition_spec *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++) {
        free(s->keys[i]);
        free(s->values[i]);
    }
    free(s->keys);
    free(s->values);
    s->keys = s->values = NULL;
    s->count = 0;
}

pm_error *pm_partition_spec_parse(const char *text, pm_partition_spec *out)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text)
        return pm_error_new(PM_EINVALID, "empty partition spec (expected k=v[,k2=v2])");
    pm_error *e = NULL;
    const char *p = text;
    while (!e) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (!eq || eq == p) {
            e = pm_error_new(PM_EINVALID, "bad partition spec '%s': '%.*s' is not k=v", text, (int)n, p);
            break;
        }
        size_t kn = (size_t)(eq - p);
        for (size_t i = 0; i < out->count; i++)
            if (strlen(out->keys[i]) == kn && !memcmp(out->keys[i], p, kn)) {
                e = pm_error_new(PM_EINVALID, "bad partition spec '%s': key '%.*s' given twice", text,
                                 (int)kn, p);
                break;
            }
        if (e)
            break;
        PM_TRY_GOTO(e, pm_realloc_array(&out->keys, out->count + 1, sizeof *out->keys), fail);
        PM_TRY_GOTO(e, pm_realloc_array(&out->values, out->count + 1, sizeof *out->values), fail);
        out->keys[out->count] = out->values[out->count] = NULL;
        out->count++;
        PM_TRY_GOTO(e, pm_strndup(&out->keys[out->count - 1], p, kn), fail);
        PM_TRY_GOTO(e, pm_strndup(&out->values[out->count - 1], eq + 1, n - kn - 1), fail);
        if (!end)
            break;
        p = end + 1;
    }
fail:
    if (e)
        pm_partition_spec_clear(out);
    return e;
}

/* ---------------------------------------------------------------- */
/* partition rows                                                    */

pm_error *pm_partition_decode(const pm_type *ptype, const uint8_t *p, size_t n, pm_part_value *vals)
{
    pm_binrow r;
    PM_TRY(pm_binrow_deserialize(&r, p, n, (int32_t)ptype->nfields));
    for (size_t i = 0; i < ptype->nfields; i++) {
        const pm_type *ft = ptype->fields[i].type;
        int32_t k = (int32_t)i;
        pm_part_value *v = &vals[i];
        memset(v, 0, sizeof *v);
        if (pm_binrow_is_null(&r, k)) {
            v->is_null = true;
            continue;
        }
        switch (ft->id) {
        case PM_TYPE_BOOLEAN: v->v.b = pm_binrow_bool(&r, k); break;
        case PM_TYPE_TINYINT: v->v.i = pm_binrow_i8(&r, k); break;
        case PM_TYPE_SMALLINT: v->v.i = pm_binrow_i16(&r, k); break;
        case PM_TYPE_INT:
        case PM_TYPE_DATE:
        case PM_TYPE_TIME: v->v.i = pm_binrow_i32(&r, k); break;
        case PM_TYPE_BIGINT: v->v.i = pm_binrow_i64(&r, k); break;
        case PM_TYPE_FLOAT: v->v.f = pm_binrow_f32(&r, k); break;
        case PM_TYPE_DOUBLE: v->v.d = pm_binrow_f64(&r, k); break;
        case PM_TYPE_DECIMAL: PM_TRY(pm_binrow_decimal(&r, k, ft->precision, &v->v.dec)); break;
        case PM_TYPE_TIMESTAMP:
        case PM_TYPE_TIMESTAMP_LTZ:
            PM_TRY(pm_binrow_timestamp(&r, k, ft->precision, &v->v.ts.millis, &v->v.ts.nanos));
            break;
        case PM_TYPE_CHAR:
        case PM_TYPE_VARCHAR:
        case PM_TYPE_BINARY:
        case PM_TYPE_VARBINARY:
            PM_TRY(pm_binrow_bytes(&r, k, &v->v.bytes.p, &v->v.bytes.n));
            break;
        default:
            return pm_error_new(PM_EUNSUPPORTED, "partition field '%s' of type %s",
                                ptype->fields[i].name, pm_type_id_name(ft->id));
        }
    }
    return NULL;
}

static bool is_blank(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == ' ' || (s[i] >= 9 && s[i] <= 13) || (s[i] >= 0x1c && s[i] <= 0x1f)))
            return false;
    return true;
}

static const char *default_name(pm_table *t)
{
    const char *d = pm_options_raw(pm_table_options(t), PM_OPT_PARTITION_DEFAULT_NAME);
    return d ? d : "__DEFAULT_PARTITION__";
}

static pm_error *legacy_name(pm_table *t, bool *legacy)
{
    return pm_options_bool(pm_table_options(t), PM_OPT_PARTITION_LEGACY_NAME, legacy);
}

/* Directory string of one value (null / blank → default name). */
static pm_error *dir_string(const pm_type *ft, const pm_part_value *v, bool legacy, const char *defname,
                            pm_buf *out)
{
    size_t start = out->len;
    if (!v->is_null) {
        PM_TRY(pm_partition_value_to_string(ft, v, legacy, out));
        if (!is_blank(out->data + start, out->len - start))
            return NULL;
    }
    out->len = start;
    return pm_buf_append_str(out, defname);
}

pm_error *pm_partition_display(pm_table *t, const uint8_t *p, size_t n, pm_buf *out)
{
    const pm_type *pt = t->partition_type;
    if (!pt->nfields)
        return NULL;
    bool legacy = true;
    PM_TRY(legacy_name(t, &legacy));
    pm_part_value *vals;
    PM_TRY(pm_calloc(&vals, pt->nfields, sizeof *vals));
    pm_error *e = pm_partition_decode(pt, p, n, vals);
    for (size_t i = 0; !e && i < pt->nfields; i++) {
        if (i)
            e = pm_buf_append_byte(out, '/');
        if (!e)
            e = pm_buf_append_str(out, pt->fields[i].name);
        if (!e)
            e = pm_buf_append_byte(out, '=');
        if (!e)
            e = dir_string(pt->fields[i].type, &vals[i], legacy, default_name(t), out);
    }
    free(vals);
    return e;
}

pm_error *pm_table_bucket_dir(pm_table *t, const uint8_t *partition, size_t n, int32_t bucket, char **out)
{
    const pm_type *pt = t->partition_type;
    pm_part_value *vals = NULL;
    if (pt->nfields)
        PM_TRY(pm_calloc(&vals, pt->nfields, sizeof *vals));
    pm_error *e = pm_partition_decode(pt, partition, n, vals);
    if (!e)
        e = pm_path_factory_bucket_path(t->paths, vals, bucket, out);
    free(vals);
    return e;
}

/* ---------------------------------------------------------------- */
/* compiled matcher                                                  */

typedef struct m_entry {
    size_t field;
    char *text;          /* spec value, verbatim */
    bool is_default;     /* text == partition.default-name */
    char *canon;         /* parsed value CAST to STRING, or NULL */
    bool has_int;        /* typed value for stats pruning */
    int64_t ival;
    bool is_string;
} m_entry;

typedef struct m_spec {
    m_entry *e;
    size_t n;
} m_spec;

struct pm_part_matcher {
    pm_table *t;
    bool legacy;
    const char *defname;
    m_spec *specs;
    size_t nspecs;
    pm_part_value *vals;
    pm_buf dir;
    pm_buf cast;
};

void pm_part_matcher_free(pm_part_matcher *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nspecs; i++) {
        for (size_t j = 0; j < m->specs[i].n; j++) {
            free(m->specs[i].e[j].text);
            free(m->specs[i].e[j].canon);
        }
        free(m->specs[i].e);
    }
    free(m->specs);
    free(m->vals);
    pm_buf_free(&m->dir);
    pm_buf_free(&m->cast);
    free(m);
}

bool pm_part_matcher_all(const pm_part_matcher *m) { return m->nspecs == 0; }

/* Value of row 0 of a one-row column as a partition value. */
static void column_value(const pm_column *c, pm_part_value *v)
{
    memset(v, 0, sizeof *v);
    const pm_type *t = c->type;
    switch (t->id) {
    case PM_TYPE_BOOLEAN: v->v.b = pm_column_bool(c, 0); break;
    case PM_TYPE_TINYINT: v->v.i = pm_column_i8(c, 0); break;
    case PM_TYPE_SMALLINT: v->v.i = pm_column_i16(c, 0); break;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: v->v.i = pm_column_i32(c, 0); break;
    case PM_TYPE_BIGINT: v->v.i = pm_column_i64(c, 0); break;
    case PM_TYPE_FLOAT: v->v.f = pm_column_f32(c, 0); break;
    case PM_TYPE_DOUBLE: v->v.d = pm_column_f64(c, 0); break;
    case PM_TYPE_DECIMAL: v->v.dec = pm_column_decimal(c, 0); break;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        pm_timestamp_to_millis_nanos(pm_column_i64(c, 0), t->precision, &v->v.ts.millis, &v->v.ts.nanos);
        break;
    default:
        v->v.bytes.p = pm_column_bytes(c, 0, &v->v.bytes.n);
        break;
    }
}

/* Parse `text` as a value of `ft`; on success canon = its CAST string. */
static pm_error *compile_value(const pm_type *ft, m_entry *me)
{
    pm_column *c = NULL;
    pm_type *nt = pm_type_clone(ft);
    if (!nt)
        return pm_oom();
    nt->nullable = true;
    pm_error *e = pm_column_new(&c, nt);
    pm_type_free(nt);
    if (e)
        return e;
    pm_error *pe = pm_column_append_text(c, me->text, strlen(me->text));
    if (pe) {
        pm_error_free(pe); /* not a value of the type: string rules only */
        pm_column_release(c);
        return NULL;
    }
    pm_part_value v;
    column_value(c, &v);
    pm_buf b = PM_BUF_INIT;
    pe = pm_partition_value_to_string(ft, &v, false, &b);
    if (!pe) {
        const char *s = NULL;
        e = pm_buf_cstr(&b, &s);
        if (!e)
            e = pm_strdup(&me->canon, s);
    } else {
        pm_error_free(pe);
    }
    switch (ft->id) {
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT:
        me->has_int = true;
        me->ival = v.v.i;
        break;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        me->is_string = true;
        break;
    default:
        break;
    }
    pm_buf_free(&b);
    pm_column_release(c);
    return e;
}

pm_error *pm_part_matcher_new(pm_table *t, const pm_partition_spec *specs, size_t nspecs,
                              pm_part_matcher **out)
{
    *out = NULL;
    pm_part_matcher *m;
    PM_TRY(pm_calloc(&m, 1, sizeof *m));
    m->t = t;
    m->defname = default_name(t);
    pm_error *e = legacy_name(t, &m->legacy);
    const pm_type *pt = t->partition_type;
    if (!e && pt->nfields)
        e = pm_calloc(&m->vals, pt->nfields, sizeof *m->vals);
    if (!e && nspecs)
        e = pm_calloc(&m->specs, nspecs, sizeof *m->specs);
    for (size_t i = 0; !e && i < nspecs; i++) {
        const pm_partition_spec *s = &specs[i];
        m->nspecs++;
        if (s->count == 0) {
            e = pm_error_new(PM_EINVALID, "empty partition spec");
            break;
        }
        e = pm_calloc(&m->specs[i].e, s->count, sizeof *m->specs[i].e);
        for (size_t j = 0; !e && j < s->count; j++) {
            ptrdiff_t fi = pm_type_field_index(pt, s->keys[j]);
            if (fi < 0) {
                e = pt->nfields ? pm_error_new(PM_EINVALID, "'%s' is not a partition key of table %s",
                                               s->keys[j], t->path)
                                : pm_error_new(PM_EINVALID,
                                               "table %s is not partitioned (partition filter '%s')",
                                               t->path, s->keys[j]);
                break;
            }
            m_entry *me = &m->specs[i].e[j];
            m->specs[i].n++;
            me->field = (size_t)fi;
            e = pm_strdup(&me->text, s->values[j]);
            if (!e) {
                me->is_default = !strcmp(me->text, m->defname);
                e = compile_value(pt->fields[fi].type, me);
            }
        }
    }
    if (e) {
        pm_part_matcher_free(m);
        return e;
    }
    *out = m;
    return NULL;
}

static bool buf_eq(const pm_buf *b, const char *s)
{
    size_t n = strlen(s);
    return b->len == n && (n == 0 || !memcmp(b->data, s, n));
}

pm_error *pm_part_matcher_match(pm_part_matcher *m, const uint8_t *partition, size_t n, bool *match)
{
    *match = true;
    if (!m->nspecs)
        return NULL;
    const pm_type *pt = m->t->partition_type;
    PM_TRY(pm_partition_decode(pt, partition, n, m->vals));
    for (size_t i = 0; i < m->nspecs; i++) {
        bool all = true;
        for (size_t j = 0; all && j < m->specs[i].n; j++) {
            const m_entry *me = &m->specs[i].e[j];
            const pm_type *ft = pt->fields[me->field].type;
            const pm_part_value *v = &m->vals[me->field];
            pm_buf_clear(&m->dir);
            PM_TRY(dir_string(ft, v, m->legacy, m->defname, &m->dir));
            if (buf_eq(&m->dir, me->text))
                continue;
            if (v->is_null) {
                all = false;
                break;
            }
            pm_buf_clear(&m->cast);
            pm_error *ce = pm_partition_value_to_string(ft, v, false, &m->cast);
            if (ce) {
                pm_error_free(ce);
                all = false;
                break;
            }
            if (buf_eq(&m->cast, me->text) || (me->canon && buf_eq(&m->cast, me->canon)))
                continue;
            all = false;
        }
        if (all)
            return NULL;
    }
    *match = false;
    return NULL;
}

/* Can entry `me` match some value in [min, max] / nulls of the stats? */
static bool entry_may_match(const m_entry *me, const pm_type *ft, const pm_binrow *mn, const pm_binrow *mx,
                            const pm_simple_stats *st)
{
    int32_t k = (int32_t)me->field;
    if (me->is_default) {
        if (!st->has_null_counts || me->field >= st->null_count_len)
            return true;
        const pm_opt_long *nc = &st->null_counts[me->field];
        if (!nc->has || nc->v > 0)
            return true;
        /* no nulls: only a (blank) string equal to the name itself */
    }
    if (!me->has_int && !me->is_string)
        return true;
    if (k >= mn->arity || k >= mx->arity)
        return true;
    if (pm_binrow_is_null(mn, k) || pm_binrow_is_null(mx, k)) {
        /* all-null (or no stats): a non-null value cannot be inside */
        if (!st->has_null_counts || me->field >= st->null_count_len)
            return true;
        return me->is_default && (!st->null_counts[me->field].has || st->null_counts[me->field].v > 0);
    }
    if (me->has_int) {
        int64_t lo, hi;
        switch (ft->id) {
        case PM_TYPE_TINYINT: lo = pm_binrow_i8(mn, k); hi = pm_binrow_i8(mx, k); break;
        case PM_TYPE_SMALLINT: lo = pm_binrow_i16(mn, k); hi = pm_binrow_i16(mx, k); break;
        case PM_TYPE_INT: lo = pm_binrow_i32(mn, k); hi = pm_binrow_i32(mx, k); break;
        default: lo = pm_binrow_i64(mn, k); hi = pm_binrow_i64(mx, k); break;
        }
        return me->ival >= lo && me->ival <= hi;
    }
    /* string: byte-wise comparison, as BinaryString */
    const uint8_t *lp, *hp;
    size_t ln, hn;
    pm_error *e = pm_binrow_bytes(mn, k, &lp, &ln);
    if (!e)
        e = pm_binrow_bytes(mx, k, &hp, &hn);
    if (e) {
        pm_error_free(e);
        return true;
    }
    const uint8_t *v = (const uint8_t *)me->text;
    size_t vn = strlen(me->text);
    size_t c1 = vn < ln ? vn : ln;
    int lo = memcmp(v, lp, c1);
    if (lo == 0)
        lo = vn < ln ? -1 : vn > ln;
    size_t c2 = vn < hn ? vn : hn;
    int hi = memcmp(v, hp, c2);
    if (hi == 0)
        hi = vn < hn ? -1 : vn > hn;
    return lo >= 0 && hi <= 0;
}

bool pm_part_matcher_may_match_stats(pm_part_matcher *m, const pm_simple_stats *stats)
{
    if (!m->nspecs)
        return true;
    const pm_type *pt = m->t->partition_type;
    pm_binrow mn, mx;
    pm_error *e = NULL;
    if (!stats->min_values.data || !stats->max_values.data)
        return true;
    e = pm_binrow_deserialize(&mn, stats->min_values.data, stats->min_values.len, -1);
    if (!e)
        e = pm_binrow_deserialize(&mx, stats->max_values.data, stats->max_values.len, -1);
    if (e) {
        pm_error_free(e);
        return true;
    }
    for (size_t i = 0; i < m->nspecs; i++) {
        bool all = true;
        for (size_t j = 0; all && j < m->specs[i].n; j++) {
            const m_entry *me = &m->specs[i].e[j];
            all = entry_may_match(me, pt->fields[me->field].type, &mn, &mx, stats);
        }
        if (all)
            return true;
    }
    return false;
}

pm_error *pm_partition_spec_match(const pm_table *t, const pm_partition_spec *spec, const uint8_t *partition,
                                  size_t len, bool *match)
{
    pm_part_matcher *m = NULL;
    PM_TRY(pm_part_matcher_new((pm_table *)t, spec, 1, &m));
    pm_error *e = pm_part_matcher_match(m, partition, len, match);
    pm_part_matcher_free(m);
    return e;
}
