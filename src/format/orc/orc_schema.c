/*
 * format/orc/orc_schema.c — ORC ↔ Paimon type mapping (see orc_schema.h).
 *
 * Tree check (as orc-core's OrcUtils.isValidTypeTree): walking from the
 * root, each child's id must be the next unused id, so the type list is
 * exactly one pre-order tree (no sharing, no cycles, nothing left over);
 * LIST has one subtype, MAP two, STRUCT one field name per subtype.
 */
#include "format/orc/orc_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

#define ID_BASE (INT32_MAX / 4)
#define DEPTH_LIMIT 1024

int32_t orc_array_element_id(int32_t id, int32_t depth)
{
    return (int32_t)((uint32_t)ID_BASE + (uint32_t)id * DEPTH_LIMIT + (uint32_t)depth);
}

int32_t orc_map_key_id(int32_t id, int32_t depth)
{
    return (int32_t)((uint32_t)ID_BASE - (uint32_t)id * DEPTH_LIMIT - (uint32_t)depth);
}

int32_t orc_map_value_id(int32_t id, int32_t depth)
{
    return orc_array_element_id(id, depth);
}

/* ------------------------------------------------------------------ */
/* File schema                                                         */

static bool parse_field_id(const orc_type *t, int32_t *out)
{
    for (uint32_t i = 0; i < t->nattrs; i++) {
        if (!t->attrs[i].key || strcmp(t->attrs[i].key, ORC_FIELD_ID_KEY) || !t->attrs[i].value)
            continue;
        const char *s = t->attrs[i].value;
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || *end || v < INT32_MIN || v > INT32_MAX)
            return false;
        *out = (int32_t)v;
        return true;
    }
    return false;
}

typedef struct walk {
    orc_schema *s;
    const orc_footer *ft;
    uint32_t next;
} walk;

static pm_error *visit(walk *w, uint32_t id, int depth)
{
    if (depth > ORC_MAX_DEPTH)
        return pm_error_new(PM_EUNSUPPORTED, "ORC schema nested deeper than %d levels", ORC_MAX_DEPTH);
    const orc_type *t = &w->ft->types[id];
    orc_col *c = &w->s->cols[id];
    c->id = id;
    c->kind = t->kind;
    c->type = t;
    c->name = "";
    c->has_field_id = parse_field_id(t, &c->field_id);
    c->precision = t->has_precision && t->precision ? t->precision : 38;
    c->scale = t->has_scale ? t->scale : 10;
    c->max_length = t->has_max_length ? t->max_length : 255;
    switch (t->kind) {
    case ORC_LIST:
        if (t->nsub != 1)
            return pm_error_new(PM_ECORRUPT, "ORC list type %u has %u subtypes", id, t->nsub);
        break;
    case ORC_MAP:
        if (t->nsub != 2)
            return pm_error_new(PM_ECORRUPT, "ORC map type %u has %u subtypes", id, t->nsub);
        break;
    case ORC_STRUCT:
        if (t->nnames != t->nsub)
            return pm_error_new(PM_ECORRUPT, "ORC struct type %u has %u fields and %u names", id, t->nsub,
                                t->nnames);
        break;
    case ORC_UNION:
        break;
    default:
        if (t->kind > ORC_TIMESTAMP_INSTANT)
            return pm_error_new(PM_EUNSUPPORTED, "unknown ORC type kind %u (type %u)", t->kind, id);
        if (t->nsub)
            return pm_error_new(PM_ECORRUPT, "ORC %s type %u has subtypes", orc_kind_name(t->kind), id);
        break;
    }
    if (t->kind == ORC_DECIMAL && (c->precision > 38 || c->scale > c->precision))
        return pm_error_new(PM_EUNSUPPORTED, "ORC decimal(%u, %u) (type %u) is not supported", c->precision,
                            c->scale, id);
    c->nchildren = t->nsub;
    if (t->nsub) {
        c->children = pm_arena_calloc(&w->s->arena, t->nsub * sizeof *c->children, 8);
        if (!c->children)
            return pm_oom();
    }
    for (uint32_t i = 0; i < t->nsub; i++) {
        uint32_t sub = t->subtypes[i];
        if (sub != w->next || sub >= w->ft->ntypes)
            return pm_error_new(PM_ECORRUPT, "ORC type %u: subtype %u is not the next type in pre-order (%u)", id,
                                sub, w->next);
        w->next++;
        PM_TRY(visit(w, sub, depth + 1));
        orc_col *ch = &w->s->cols[sub];
        c->children[i] = ch;
        if (t->kind == ORC_STRUCT)
            ch->name = t->names[i];
        if (!ch->has_field_id && (t->kind == ORC_STRUCT || t->kind == ORC_UNION)) {
            ch->field_id = (int32_t)i;
        }
    }
    if (t->kind == ORC_STRUCT) {
        /* members are found by field id or name: both must be unique */
        for (uint32_t i = 0; i < c->nchildren; i++)
            for (uint32_t k = 0; k < i; k++) {
                const orc_col *a = c->children[i], *b = c->children[k];
                if (!strcmp(a->name, b->name))
                    return pm_error_new(PM_ECORRUPT, "ORC struct type %u has two fields named '%s'", id, a->name);
                if (a->has_field_id && b->has_field_id && a->field_id == b->field_id)
                    return pm_error_new(PM_ECORRUPT, "ORC struct type %u has two fields with id %d", id, a->field_id);
            }
    }
    c->last_id = w->next - 1;
    return NULL;
}

pm_error *orc_schema_build(orc_schema **out, const orc_footer *ft)
{
    *out = NULL;
    if (ft->ntypes == 0)
        return pm_error_new(PM_ECORRUPT, "ORC footer has no types");
    if (ft->types[0].kind != ORC_STRUCT)
        return pm_error_new(PM_EUNSUPPORTED, "ORC root type is %s, not a struct", orc_kind_name(ft->types[0].kind));
    orc_schema *s;
    PM_TRY(pm_calloc(&s, 1, sizeof *s));
    pm_arena_init(&s->arena, 0);
    pm_error *e = NULL;
    s->ncols = ft->ntypes;
    s->cols = pm_arena_calloc(&s->arena, (size_t)ft->ntypes * sizeof *s->cols, 8);
    if (!s->cols) {
        e = pm_oom();
        goto fail;
    }
    walk w = {s, ft, 1};
    PM_TRY_GOTO(e, visit(&w, 0, 0), fail);
    if (w.next != ft->ntypes) {
        e = pm_error_new(PM_ECORRUPT, "ORC footer lists %u types, the schema tree uses %u", ft->ntypes, w.next);
        goto fail;
    }
    *out = s;
    return NULL;
fail:
    orc_schema_free(s);
    return e;
}

void orc_schema_free(orc_schema *s)
{
    if (!s)
        return;
    pm_arena_free(&s->arena);
    free(s);
}

pm_error *orc_schema_paimon_type(const orc_col *c, pm_type **out)
{
    *out = NULL;
    pm_type *t = NULL;
    switch (c->kind) {
    case ORC_BOOLEAN: t = pm_type_new(PM_TYPE_BOOLEAN, true); break;
    case ORC_BYTE: t = pm_type_new(PM_TYPE_TINYINT, true); break;
    case ORC_SHORT: t = pm_type_new(PM_TYPE_SMALLINT, true); break;
    case ORC_INT: t = pm_type_new(PM_TYPE_INT, true); break;
    case ORC_LONG: t = pm_type_new(PM_TYPE_BIGINT, true); break;
    case ORC_FLOAT: t = pm_type_new(PM_TYPE_FLOAT, true); break;
    case ORC_DOUBLE: t = pm_type_new(PM_TYPE_DOUBLE, true); break;
    case ORC_STRING: t = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true); break;
    case ORC_VARCHAR:
    case ORC_CHAR: {
        uint32_t n = c->max_length;
        if (n == 0 || n > INT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "ORC %s(%u) is not supported", orc_kind_name(c->kind), n);
        t = pm_type_new_string(c->kind == ORC_CHAR ? PM_TYPE_CHAR : PM_TYPE_VARCHAR, (int32_t)n, true);
        break;
    }
    case ORC_BINARY: t = pm_type_new_string(PM_TYPE_VARBINARY, PM_MAX_LENGTH, true); break;
    case ORC_DECIMAL: t = pm_type_new_decimal((int32_t)c->precision, (int32_t)c->scale, true); break;
    case ORC_DATE: t = pm_type_new(PM_TYPE_DATE, true); break;
    case ORC_TIMESTAMP: t = pm_type_new_temporal(PM_TYPE_TIMESTAMP, 9, true); break;
    case ORC_TIMESTAMP_INSTANT: t = pm_type_new_temporal(PM_TYPE_TIMESTAMP_LTZ, 9, true); break;
    case ORC_LIST: {
        pm_type *el;
        PM_TRY(orc_schema_paimon_type(c->children[0], &el));
        t = pm_type_new_array(el, true);
        break;
    }
    case ORC_MAP: {
        pm_type *k, *v;
        PM_TRY(orc_schema_paimon_type(c->children[0], &k));
        pm_error *e = orc_schema_paimon_type(c->children[1], &v);
        if (e) {
            pm_type_free(k);
            return e;
        }
        k->nullable = false;
        t = pm_type_new_map(k, v, true);
        break;
    }
    case ORC_STRUCT: {
        t = pm_type_new_row(true);
        if (!t)
            return pm_oom();
        for (uint32_t i = 0; i < c->nchildren; i++) {
            const orc_col *ch = c->children[i];
            pm_type *ft;
            pm_error *e = orc_schema_paimon_type(ch, &ft);
            if (!e)
                e = pm_type_add_field(t, ch->field_id, ch->name, ft);
            if (e) {
                pm_type_free(t);
                return pm_error_wrap(e, 0, "field '%s'", ch->name);
            }
        }
        break;
    }
    case ORC_UNION:
        return pm_error_new(PM_EUNSUPPORTED, "ORC uniontype columns are not supported");
    default:
        return pm_error_new(PM_EUNSUPPORTED, "ORC type %s is not supported", orc_kind_name(c->kind));
    }
    if (!t)
        return pm_oom();
    *out = t;
    return NULL;
}

static pm_error *mismatch(const orc_col *c, const pm_type *want)
{
    char *s = pm_type_to_string(want);
    pm_error *e = pm_error_new(PM_EUNSUPPORTED, "ORC %s column cannot be read as %s", orc_kind_name(c->kind),
                               s ? s : pm_type_id_name(want->id));
    free(s);
    return e;
}

pm_error *orc_schema_check_read(const orc_col *c, const pm_type *want)
{
    bool ok;
    switch (want->id) {
    case PM_TYPE_BOOLEAN: ok = c->kind == ORC_BOOLEAN; break;
    case PM_TYPE_TINYINT: ok = c->kind == ORC_BYTE; break;
    case PM_TYPE_SMALLINT: ok = c->kind == ORC_SHORT; break;
    case PM_TYPE_INT:
    case PM_TYPE_TIME: ok = c->kind == ORC_INT; break;
    case PM_TYPE_BIGINT: ok = c->kind == ORC_LONG; break;
    case PM_TYPE_FLOAT: ok = c->kind == ORC_FLOAT; break;
    case PM_TYPE_DOUBLE: ok = c->kind == ORC_DOUBLE; break;
    case PM_TYPE_DATE: ok = c->kind == ORC_DATE; break;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: ok = c->kind == ORC_TIMESTAMP || c->kind == ORC_TIMESTAMP_INSTANT; break;
    case PM_TYPE_DECIMAL:
        ok = c->kind == ORC_DECIMAL && (uint32_t)want->scale == c->scale && (uint32_t)want->precision >= c->precision;
        break;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: ok = c->kind == ORC_STRING || c->kind == ORC_VARCHAR || c->kind == ORC_CHAR; break;
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: ok = c->kind == ORC_BINARY; break;
    case PM_TYPE_ARRAY:
        if (c->kind != ORC_LIST)
            return mismatch(c, want);
        return pm_error_wrap(orc_schema_check_read(c->children[0], want->element), 0, "array element");
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        if (c->kind != ORC_MAP)
            return mismatch(c, want);
        const pm_type *k = want->id == PM_TYPE_MAP ? want->key : want->element;
        PM_TRY(pm_error_wrap(orc_schema_check_read(c->children[0], k), 0, "map key"));
        if (want->id == PM_TYPE_MULTISET) {
            if (c->children[1]->kind != ORC_INT)
                return pm_error_new(PM_EUNSUPPORTED, "ORC map value %s cannot be a MULTISET count",
                                    orc_kind_name(c->children[1]->kind));
            return NULL;
        }
        return pm_error_wrap(orc_schema_check_read(c->children[1], want->value), 0, "map value");
    }
    case PM_TYPE_ROW:
        if (c->kind != ORC_STRUCT)
            return mismatch(c, want);
        for (size_t i = 0; i < want->nfields; i++) {
            const pm_field *f = &want->fields[i];
            const orc_col *m = NULL;
            for (uint32_t k = 0; k < c->nchildren && !m; k++)
                if (c->children[k]->has_field_id && c->children[k]->field_id == f->id)
                    m = c->children[k];
            for (uint32_t k = 0; k < c->nchildren && !m; k++)
                if (!strcmp(c->children[k]->name, f->name))
                    m = c->children[k];
            if (!m)
                return pm_error_new(PM_EUNSUPPORTED, "ORC struct has no field '%s' (id %d)", f->name, f->id);
            PM_TRY(pm_error_wrap(orc_schema_check_read(m, f->type), 0, "field '%s'", f->name));
        }
        return NULL;
    default: ok = false; break;
    }
    return ok ? NULL : mismatch(c, want);
}

/* ------------------------------------------------------------------ */
/* Paimon → ORC                                                        */

typedef struct build {
    pm_arena *a;
    orc_type *types;
    const pm_type **ptypes;
    uint32_t n, cap;
} build;

static const pm_type multiset_count = {PM_TYPE_INT, false, 0, 0, 0, NULL, NULL, NULL, 0, NULL};

static uint32_t count_types(const pm_type *t)
{
    switch (t->id) {
    case PM_TYPE_ARRAY: return 1 + count_types(t->element);
    case PM_TYPE_MAP: return 1 + count_types(t->key) + count_types(t->value);
    case PM_TYPE_MULTISET: return 2 + count_types(t->element);
    case PM_TYPE_ROW: {
        uint32_t n = 1;
        for (size_t i = 0; i < t->nfields; i++)
            n += count_types(t->fields[i].type);
        return n;
    }
    default: return 1;
    }
}

static pm_error *set_id_attr(build *b, orc_type *ot, int32_t id)
{
    char tmp[16];
    snprintf(tmp, sizeof tmp, "%d", id);
    orc_attr *at = pm_arena_calloc(b->a, sizeof *at, 8);
    char *v = pm_arena_strdup(b->a, tmp);
    if (!at || !v)
        return pm_oom();
    at->key = ORC_FIELD_ID_KEY;
    at->value = v;
    ot->attrs = at;
    ot->nattrs = 1;
    return NULL;
}

static pm_error *add_subtypes(build *b, orc_type *ot, uint32_t n)
{
    ot->subtypes = pm_arena_calloc(b->a, (n ? n : 1) * sizeof(uint32_t), 8);
    return ot->subtypes ? NULL : pm_oom();
}

static pm_error *emit_row(build *b, const pm_type *row, uint32_t self);

/* Append `t` (written with field id `id`, nesting `depth` below its field). */
static pm_error *emit(build *b, const pm_type *t, int32_t field_id, int32_t depth, int32_t attr_id)
{
    uint32_t self = b->n++;
    orc_type *ot = &b->types[self];
    b->ptypes[self] = t;
    switch (t->id) {
    case PM_TYPE_BOOLEAN: ot->kind = ORC_BOOLEAN; break;
    case PM_TYPE_TINYINT: ot->kind = ORC_BYTE; break;
    case PM_TYPE_SMALLINT: ot->kind = ORC_SHORT; break;
    case PM_TYPE_INT:
    case PM_TYPE_TIME: ot->kind = ORC_INT; break;
    case PM_TYPE_BIGINT: ot->kind = ORC_LONG; break;
    case PM_TYPE_FLOAT: ot->kind = ORC_FLOAT; break;
    case PM_TYPE_DOUBLE: ot->kind = ORC_DOUBLE; break;
    case PM_TYPE_DATE: ot->kind = ORC_DATE; break;
    case PM_TYPE_TIMESTAMP: ot->kind = ORC_TIMESTAMP; break;
    case PM_TYPE_TIMESTAMP_LTZ: ot->kind = ORC_TIMESTAMP_INSTANT; break;
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: ot->kind = ORC_BINARY; break;
    case PM_TYPE_CHAR:
        ot->kind = ORC_CHAR;
        ot->has_max_length = true;
        ot->max_length = (uint32_t)t->length;
        break;
    case PM_TYPE_VARCHAR:
        if (t->length == PM_MAX_LENGTH) {
            ot->kind = ORC_STRING;
        } else {
            ot->kind = ORC_VARCHAR;
            ot->has_max_length = true;
            ot->max_length = (uint32_t)t->length;
        }
        break;
    case PM_TYPE_DECIMAL:
        ot->kind = ORC_DECIMAL;
        ot->has_precision = ot->has_scale = true;
        ot->precision = (uint32_t)t->precision;
        ot->scale = (uint32_t)t->scale;
        break;
    case PM_TYPE_ARRAY:
        ot->kind = ORC_LIST;
        PM_TRY(add_subtypes(b, ot, 1));
        ot->nsub = 1;
        ot->subtypes[0] = b->n;
        PM_TRY(emit(b, t->element, field_id, depth + 1, orc_array_element_id(field_id, depth + 1)));
        break;
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        ot->kind = ORC_MAP;
        PM_TRY(add_subtypes(b, ot, 2));
        ot->nsub = 2;
        ot->subtypes[0] = b->n;
        const pm_type *k = t->id == PM_TYPE_MAP ? t->key : t->element;
        PM_TRY(emit(b, k, field_id, depth + 1, orc_map_key_id(field_id, depth + 1)));
        b->types[self].subtypes[1] = b->n;
        PM_TRY(emit(b, t->id == PM_TYPE_MAP ? t->value : &multiset_count, field_id, depth + 1,
                    orc_map_value_id(field_id, depth + 1)));
        break;
    }
    case PM_TYPE_ROW:
        ot->kind = ORC_STRUCT;
        PM_TRY(emit_row(b, t, self));
        break;
    default:
        return pm_error_new(PM_EUNSUPPORTED, "type %s has no ORC mapping", pm_type_id_name(t->id));
    }
    return set_id_attr(b, &b->types[self], attr_id);
}

static pm_error *emit_row(build *b, const pm_type *row, uint32_t self)
{
    orc_type *ot = &b->types[self];
    uint32_t n = (uint32_t)row->nfields;
    PM_TRY(add_subtypes(b, ot, n));
    ot->names = pm_arena_calloc(b->a, (n ? n : 1) * sizeof(char *), 8);
    if (!ot->names)
        return pm_oom();
    ot->nsub = ot->nnames = n;
    for (uint32_t i = 0; i < n; i++) {
        const pm_field *f = &row->fields[i];
        b->types[self].subtypes[i] = b->n;
        b->types[self].names[i] = f->name;
        PM_TRY(pm_error_wrap(emit(b, f->type, f->id, 0, f->id), 0, "field '%s'", f->name));
    }
    return NULL;
}

pm_error *orc_schema_from_paimon(pm_arena *a, const pm_type *row, orc_type **types, const pm_type ***ptypes,
                                 uint32_t *ntypes)
{
    if (row->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "ORC schema needs a ROW type");
    uint32_t n = count_types(row);
    build b = {a, NULL, NULL, 0, n};
    b.types = pm_arena_calloc(a, (size_t)n * sizeof *b.types, 8);
    b.ptypes = pm_arena_calloc(a, (size_t)n * sizeof *b.ptypes, 8);
    if (!b.types || !b.ptypes)
        return pm_oom();
    b.n = 1;
    b.types[0].kind = ORC_STRUCT;
    PM_TRY(emit_row(&b, row, 0));
    *types = b.types;
    *ptypes = b.ptypes;
    *ntypes = b.n;
    return NULL;
}
