/*
 * format/parquet/pq_schema_write.c — Paimon ROW type → Parquet schema
 * elements and leaf descriptors (mapping and layout in pq_schema_write.h).
 *
 * Steps: count the elements and leaves of the tree, allocate both arrays
 * from the arena, then walk the tree depth-first once, filling elements in
 * order and copying the current step stack and name path into each leaf.
 */
#include "format/parquet/pq_schema_write.h"

#include <string.h>

#define PQ_NESTED_BASE 536870911u   /* Integer.MAX_VALUE / 4 */
#define PQ_DEPTH_LIMIT 1024u

int32_t pq_array_element_id(int32_t id, int32_t depth)
{
    return (int32_t)(PQ_NESTED_BASE + (uint32_t)id * PQ_DEPTH_LIMIT + (uint32_t)depth);
}

int32_t pq_map_key_id(int32_t id, int32_t depth)
{
    return (int32_t)(PQ_NESTED_BASE - (uint32_t)id * PQ_DEPTH_LIMIT - (uint32_t)depth);
}

int32_t pq_map_value_id(int32_t id, int32_t depth)
{
    return pq_array_element_id(id, depth);
}

int32_t pq_decimal_flba_len(int32_t precision)
{
    unsigned __int128 ten_p = 1;
    for (int32_t i = 0; i < precision; i++)
        ten_p *= 10;
    int32_t n = 1;
    while (n < 17 && ((unsigned __int128)1 << (8 * n - 1)) < ten_p)
        n++;
    return n;
}

typedef struct build_ctx {
    pm_arena *a;
    pq_write_schema *s;
    uint32_t next_elem, next_leaf;
    const char *path[2 * PQ_MAX_NESTING + 2];
    uint32_t path_len;
    pq_step steps[PQ_MAX_NESTING + 1];
    uint32_t nsteps;
    uint32_t top;
} build_ctx;

/* Elements and leaves under one node (the node included). */
static pm_error *count_node(const pm_type *t, uint32_t depth, uint32_t *elems, uint32_t *leaves)
{
    if (depth > PQ_MAX_NESTING)
        return pm_error_new(PM_EUNSUPPORTED, "types nested deeper than %d levels", PQ_MAX_NESTING);
    switch (t->id) {
    case PM_TYPE_ROW:
        *elems += 1;
        for (size_t i = 0; i < t->nfields; i++)
            PM_TRY(count_node(t->fields[i].type, depth + 1, elems, leaves));
        return NULL;
    case PM_TYPE_ARRAY:
        *elems += 2;
        return count_node(t->element, depth + 1, elems, leaves);
    case PM_TYPE_MULTISET:
        *elems += 3;   /* group, key_value, value (INT NOT NULL) */
        *leaves += 1;
        return count_node(t->element, depth + 1, elems, leaves);
    case PM_TYPE_MAP:
        *elems += 2;
        PM_TRY(count_node(t->key, depth + 1, elems, leaves));
        return count_node(t->value, depth + 1, elems, leaves);
    default:
        *elems += 1;
        *leaves += 1;
        return NULL;
    }
}

/* Physical type, annotations and value kind of an atomic type. */
static pm_error *atomic_mapping(const pm_type *t, pq_schema_element *e, pq_leaf *l)
{
    pq_logical_type *lt = &e->logical_type;
    e->has_type = true;
    l->type_length = 0;
    l->legacy_stats = true;   /* default sort order of the physical type is SIGNED */
    l->dict_ok = true;
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        e->type = PQ_BOOLEAN;
        l->kind = PQV_BOOL;
        l->stats = PQS_BOOL;
        l->dict_ok = false;
        break;
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
        e->type = PQ_INT32;
        l->kind = t->id == PM_TYPE_TINYINT ? PQV_I8 : PQV_I16;
        l->stats = PQS_I32;
        e->has_converted_type = true;
        e->converted_type = t->id == PM_TYPE_TINYINT ? PQ_CT_INT_8 : PQ_CT_INT_16;
        e->has_logical_type = true;
        lt->kind = PQ_LT_INTEGER;
        lt->int_bit_width = t->id == PM_TYPE_TINYINT ? 8 : 16;
        lt->int_is_signed = true;
        break;
    case PM_TYPE_INT:
        e->type = PQ_INT32;
        l->kind = PQV_I32;
        l->stats = PQS_I32;
        break;
    case PM_TYPE_DATE:
        e->type = PQ_INT32;
        l->kind = PQV_I32;
        l->stats = PQS_I32;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_DATE;
        e->has_logical_type = true;
        lt->kind = PQ_LT_DATE;
        break;
    case PM_TYPE_TIME:
        e->type = PQ_INT32;
        l->kind = PQV_I32;
        l->stats = PQS_I32;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_TIME_MILLIS;
        e->has_logical_type = true;
        lt->kind = PQ_LT_TIME;
        lt->is_adjusted_to_utc = true;
        lt->unit = PQ_UNIT_MILLIS;
        break;
    case PM_TYPE_BIGINT:
        e->type = PQ_INT64;
        l->kind = PQV_I64;
        l->stats = PQS_I64;
        break;
    case PM_TYPE_FLOAT:
        e->type = PQ_FLOAT;
        l->kind = PQV_F32;
        l->stats = PQS_F32;
        break;
    case PM_TYPE_DOUBLE:
        e->type = PQ_DOUBLE;
        l->kind = PQV_F64;
        l->stats = PQS_F64;
        break;
    case PM_TYPE_DECIMAL:
        if (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)
            return pm_error_new(PM_EINVALID, "invalid DECIMAL(%d, %d)", t->precision, t->scale);
        e->has_converted_type = true;
        e->converted_type = PQ_CT_DECIMAL;
        e->has_scale = e->has_precision = true;
        e->scale = t->scale;
        e->precision = t->precision;
        e->has_logical_type = true;
        lt->kind = PQ_LT_DECIMAL;
        lt->decimal_scale = t->scale;
        lt->decimal_precision = t->precision;
        l->legacy_stats = false;   /* parquet-java: DECIMAL sort order UNKNOWN */
        if (t->precision <= 9) {
            e->type = PQ_INT32;
            l->kind = PQV_DEC32;
            l->stats = PQS_I32;
        } else if (t->precision <= 18) {
            e->type = PQ_INT64;
            l->kind = PQV_DEC64;
            l->stats = PQS_I64;
        } else {
            e->type = PQ_FIXED_LEN_BYTE_ARRAY;
            e->has_type_length = true;
            e->type_length = pq_decimal_flba_len(t->precision);
            l->type_length = e->type_length;
            l->kind = PQV_DECFLBA;
            l->stats = PQS_DEC128;
            l->dict_ok = false;   /* PARQUET_1_0: no dictionary for FIXED_LEN_BYTE_ARRAY */
        }
        break;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        e->type = PQ_BYTE_ARRAY;
        l->kind = PQV_BYTES;
        l->stats = PQS_BYTES;
        l->legacy_stats = false;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_UTF8;
        e->has_logical_type = true;
        lt->kind = PQ_LT_STRING;
        break;
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB:
        e->type = PQ_BYTE_ARRAY;
        l->kind = PQV_BYTES;
        l->stats = PQS_BYTES;
        l->legacy_stats = false;
        break;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        bool utc = t->id == PM_TYPE_TIMESTAMP_LTZ;
        if (t->precision < 0 || t->precision > 9)
            return pm_error_new(PM_EINVALID, "invalid timestamp precision %d", t->precision);
        if (t->precision > 6) {
            e->type = PQ_INT96;
            l->kind = PQV_INT96;
            l->stats = PQS_INT96;
            l->legacy_stats = false;
            l->type_length = 12;
            break;
        }
        e->type = PQ_INT64;
        l->kind = PQV_I64;
        l->stats = PQS_I64;
        e->has_logical_type = true;
        lt->kind = PQ_LT_TIMESTAMP;
        lt->is_adjusted_to_utc = utc;
        lt->unit = t->precision <= 3 ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS;
        /* parquet-java derives the legacy annotation from the unit alone,
         * whatever isAdjustedToUTC says. */
        e->has_converted_type = true;
        e->converted_type = t->precision <= 3 ? PQ_CT_TIMESTAMP_MILLIS : PQ_CT_TIMESTAMP_MICROS;
        break;
    }
    default:
        return pm_error_new(PM_EUNSUPPORTED, "type %s cannot be written to Parquet",
                            pm_type_id_name(t->id));
    }
    return NULL;
}

static pm_error *push_path(build_ctx *c, const char *name)
{
    if (c->path_len >= sizeof c->path / sizeof c->path[0])
        return pm_error_new(PM_EUNSUPPORTED, "types nested deeper than %d levels", PQ_MAX_NESTING);
    c->path[c->path_len++] = name;
    return NULL;
}

static pm_error *push_step(build_ctx *c, pq_step st)
{
    if (c->nsteps >= sizeof c->steps / sizeof c->steps[0])
        return pm_error_new(PM_EUNSUPPORTED, "types nested deeper than %d levels", PQ_MAX_NESTING);
    c->steps[c->nsteps++] = st;
    return NULL;
}

static pq_schema_element *next_elem(build_ctx *c, const char *name, int32_t rep)
{
    pq_schema_element *e = &c->s->elems[c->next_elem++];
    memset(e, 0, sizeof *e);
    e->name = name;
    e->has_repetition = true;
    e->repetition = rep;
    return e;
}

/*
 * Convert one node.  `id` is the field id written on this element,
 * `nest_id` the id nested element/key/value ids derive from, `depth` the
 * nesting depth below the field that owns nest_id.  def/rep are the levels
 * above this node.
 */
static pm_error *convert(build_ctx *c, const char *name, const pm_type *t, bool force_required,
                         int32_t id, int32_t nest_id, int32_t depth, int16_t def, int16_t rep)
{
    bool nullable = t->nullable && !force_required;
    int16_t d = (int16_t)(def + (nullable ? 1 : 0));
    pq_schema_element *e = next_elem(c, name, nullable ? PQ_OPTIONAL : PQ_REQUIRED);
    e->has_field_id = true;
    e->field_id = id;
    PM_TRY(push_path(c, name));
    pq_step st = {.kind = PQ_STEP_LEAF, .nullable = nullable, .rep_level = 0, .child = 0, .name = name};

    switch (t->id) {
    case PM_TYPE_ROW:
        e->has_num_children = true;
        e->num_children = (int32_t)t->nfields;
        st.kind = PQ_STEP_ROW;
        for (size_t i = 0; i < t->nfields; i++) {
            const pm_field *f = &t->fields[i];
            st.child = (int32_t)i;
            PM_TRY(push_step(c, st));
            PM_TRY(convert(c, f->name, f->type, false, f->id, f->id, 0, d, rep));
            c->nsteps--;
        }
        break;
    case PM_TYPE_ARRAY: {
        e->has_num_children = true;
        e->num_children = 1;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_LIST;
        e->has_logical_type = true;
        e->logical_type.kind = PQ_LT_LIST;
        pq_schema_element *list = next_elem(c, "list", PQ_REPEATED);
        list->has_num_children = true;
        list->num_children = 1;
        st.kind = PQ_STEP_LIST;
        st.rep_level = (int16_t)(rep + 1);
        PM_TRY(push_step(c, st));
        PM_TRY(push_path(c, "list"));
        PM_TRY(convert(c, "element", t->element, false, pq_array_element_id(nest_id, depth + 1),
                       nest_id, depth + 1, (int16_t)(d + 1), (int16_t)(rep + 1)));
        c->path_len--;
        c->nsteps--;
        break;
    }
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        e->has_num_children = true;
        e->num_children = 1;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_MAP;
        e->has_logical_type = true;
        e->logical_type.kind = PQ_LT_MAP;
        pq_schema_element *kv = next_elem(c, "key_value", PQ_REPEATED);
        kv->has_num_children = true;
        kv->num_children = 2;
        kv->has_converted_type = true;
        kv->converted_type = PQ_CT_MAP_KEY_VALUE;
        PM_TRY(push_path(c, "key_value"));
        st.rep_level = (int16_t)(rep + 1);
        const pm_type *key = t->id == PM_TYPE_MAP ? t->key : t->element;
        st.kind = PQ_STEP_MAP_KEY;
        PM_TRY(push_step(c, st));
        PM_TRY(convert(c, "key", key, true, pq_map_key_id(nest_id, depth + 1), nest_id, depth + 1,
                       (int16_t)(d + 1), (int16_t)(rep + 1)));
        c->nsteps--;
        st.kind = PQ_STEP_MAP_VALUE;
        PM_TRY(push_step(c, st));
        if (t->id == PM_TYPE_MAP) {
            PM_TRY(convert(c, "value", t->value, false, pq_map_value_id(nest_id, depth + 1), nest_id,
                           depth + 1, (int16_t)(d + 1), (int16_t)(rep + 1)));
        } else {
            /* MULTISET counts: INT NOT NULL (a static type: nothing to free). */
            static const pm_type count_type = {.id = PM_TYPE_INT, .nullable = false};
            PM_TRY(convert(c, "value", &count_type, false, pq_map_value_id(nest_id, depth + 1),
                           nest_id, depth + 1, (int16_t)(d + 1), (int16_t)(rep + 1)));
        }
        c->nsteps--;
        c->path_len--;
        break;
    }
    default: {
        pq_leaf *l = &c->s->leaves[c->next_leaf];
        memset(l, 0, sizeof *l);
        PM_TRY(atomic_mapping(t, e, l));
        if (e->has_type_length && e->type != PQ_FIXED_LEN_BYTE_ARRAY)
            e->has_type_length = false;
        PM_TRY(push_step(c, st));
        l->phys = e->type;
        l->max_def = d;
        l->max_rep = rep;
        l->type = t;
        l->top = c->top;
        l->nsteps = c->nsteps;
        l->flat = c->nsteps == 1;
        l->steps = pm_arena_alloc(c->a, sizeof(pq_step) * c->nsteps, _Alignof(pq_step));
        l->path = pm_arena_alloc(c->a, sizeof(char *) * c->path_len, _Alignof(char *));
        if (!l->steps || !l->path)
            return pm_error_new(PM_ENOMEM, "out of memory");
        memcpy(l->steps, c->steps, sizeof(pq_step) * c->nsteps);
        memcpy(l->path, c->path, sizeof(char *) * c->path_len);
        l->path_len = c->path_len;
        c->nsteps--;
        c->next_leaf++;
        break;
    }
    }
    c->path_len--;
    return NULL;
}

pm_error *pq_schema_build(pm_arena *a, const pm_type *row, pq_write_schema *out)
{
    memset(out, 0, sizeof *out);
    if (!row || row->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "a Parquet file schema must be a ROW type");
    uint32_t nelems = 1, nleaves = 0;
    for (size_t i = 0; i < row->nfields; i++)
        PM_TRY(pm_error_wrap(count_node(row->fields[i].type, 1, &nelems, &nleaves), 0, "field '%s'",
                             row->fields[i].name));
    out->elems = pm_arena_calloc(a, sizeof(pq_schema_element) * nelems, _Alignof(pq_schema_element));
    out->leaves = pm_arena_calloc(a, sizeof(pq_leaf) * (nleaves ? nleaves : 1), _Alignof(pq_leaf));
    out->top_first_leaf = pm_arena_calloc(a, sizeof(uint32_t) * (row->nfields + 1), _Alignof(uint32_t));
    out->top_nleaves = pm_arena_calloc(a, sizeof(uint32_t) * (row->nfields + 1), _Alignof(uint32_t));
    if (!out->elems || !out->leaves || !out->top_first_leaf || !out->top_nleaves)
        return pm_error_new(PM_ENOMEM, "out of memory");
    out->nelems = nelems;
    out->nleaves = nleaves;
    out->ntop = (uint32_t)row->nfields;

    build_ctx c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.s = out;
    pq_schema_element *root = &out->elems[c.next_elem++];
    root->name = "paimon_schema";
    root->has_num_children = true;
    root->num_children = (int32_t)row->nfields;
    for (size_t i = 0; i < row->nfields; i++) {
        const pm_field *f = &row->fields[i];
        c.top = (uint32_t)i;
        out->top_first_leaf[i] = c.next_leaf;
        PM_TRY(pm_error_wrap(convert(&c, f->name, f->type, false, f->id, f->id, 0, 0, 0), 0,
                             "field '%s'", f->name));
        out->top_nleaves[i] = c.next_leaf - out->top_first_leaf[i];
    }
    if (c.next_elem != nelems || c.next_leaf != nleaves)
        return pm_error_new(PM_EINTERNAL, "schema element count mismatch");
    return NULL;
}
