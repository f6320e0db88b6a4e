/*
 * format/parquet/pqr_schema.c — Parquet schema → Paimon types and the
 * record-assembly tree (see pqr_schema.h).
 *
 * Steps:
 *  1. The footer's depth-first element list becomes a tree (each group says
 *     how many children follow); counts are checked against the elements
 *     left, nesting is limited to PQ_MAX_NESTING, and every element must be
 *     used exactly once.
 *  2. Each top-level field converts recursively, carrying the definition
 *     level D and repetition level R of its parent:
 *       OPTIONAL   → nullable, D+1       REQUIRED → NOT NULL, D
 *       REPEATED   (no LIST/MAP around it) → ARRAY<element NOT NULL> NOT NULL
 *       group LIST → ARRAY; its one repeated child is the list level; the
 *                    element is (backward-compatibility rules of the
 *                    parquet-format spec) the repeated field itself when it
 *                    is primitive, has several children, or is named
 *                    "array" / "<list>_tuple"; else its single child
 *       group MAP / MAP_KEY_VALUE → MAP of the repeated group's key, value
 *       other group → ROW of its children
 *       primitive  → atomic type from physical + logical (or converted)
 *                    type, §5.1 of the data-format spec read backwards.
 *     Field ids come from field_id; a field without one gets its position
 *     among its siblings.
 *  3. A field whose type cannot be read keeps its error; its leaves still
 *     occupy their column indexes so later fields stay aligned.
 */
#include "format/parquet/pqr_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

#define PQ_MAX_NESTING 64

typedef struct snode snode;
struct snode {
    const pq_schema_element *e;
    uint32_t index;
    snode **ch;
    uint32_t nch;
    uint32_t nprim;   /* primitive leaves in the subtree */
};

typedef struct build_ctx {
    const pm_pq_file_meta *m;
    pm_arena *a;
    uint32_t pos;
} build_ctx;

static pm_error *build_tree(build_ctx *cx, snode **out, int depth)
{
    if (depth > PQ_MAX_NESTING)
        return pm_error_new(PM_EUNSUPPORTED, "schema nesting deeper than %d levels", PQ_MAX_NESTING);
    if (cx->pos >= cx->m->num_schema)
        return pm_error_new(PM_ECORRUPT, "schema ends inside a group (%u elements)", cx->m->num_schema);
    snode *n = pm_arena_calloc(cx->a, sizeof *n, 8);
    if (!n)
        return pm_oom();
    n->index = cx->pos;
    n->e = &cx->m->schema[cx->pos++];
    bool group = depth == 0 || (n->e->has_num_children && !n->e->has_type) ||
                 (n->e->has_num_children && n->e->num_children > 0);
    if (group) {
        int32_t nc = n->e->has_num_children ? n->e->num_children : 0;
        if (nc < 0 || (uint32_t)nc > cx->m->num_schema - cx->pos)
            return pm_error_new(PM_ECORRUPT, "schema element '%s' claims %d children, %u elements left",
                                n->e->name, nc, cx->m->num_schema - cx->pos);
        n->nch = (uint32_t)nc;
        if (nc) {
            n->ch = pm_arena_calloc(cx->a, (size_t)nc * sizeof *n->ch, 8);
            if (!n->ch)
                return pm_oom();
        }
        for (uint32_t i = 0; i < n->nch; i++) {
            PM_TRY(build_tree(cx, &n->ch[i], depth + 1));
            n->nprim += n->ch[i]->nprim;
        }
    } else {
        if (!n->e->has_type)
            return pm_error_new(PM_ECORRUPT, "schema leaf '%s' has no physical type", n->e->name);
        if (n->e->type < PQ_BOOLEAN || n->e->type > PQ_FIXED_LEN_BYTE_ARRAY)
            return pm_error_new(PM_ECORRUPT, "schema leaf '%s' has invalid physical type %d", n->e->name,
                                n->e->type);
        n->nprim = 1;
    }
    *out = n;
    return NULL;
}

static bool is_group(const snode *n)
{
    return n->ch != NULL || (n->e->has_num_children && !n->e->has_type);
}

static int32_t repetition(const snode *n)
{
    return n->e->has_repetition ? n->e->repetition : PQ_OPTIONAL;
}

/* ------------------------------------------------------------------ */
/* Leaf types                                                          */
/* ------------------------------------------------------------------ */

typedef struct leaf_map {
    pm_type *type;
    pqr_conv conv;
    pqr_value_kind vkind;
    int width;
} leaf_map;

static pm_error *unsupported(const pq_schema_element *e, const char *what)
{
    return pm_error_new(PM_EUNSUPPORTED, "column '%s': %s (physical type %s) is not supported", e->name, what,
                        pq_type_name(e->type));
}

static pm_error *set_decimal(leaf_map *lm, const pq_schema_element *e, int32_t precision, int32_t scale, pqr_conv conv,
                             bool nullable)
{
    if (precision < 1 || precision > 38)
        return pm_error_new(PM_EUNSUPPORTED, "column '%s': DECIMAL precision %d is outside 1..38", e->name,
                            precision);
    if (scale < 0 || scale > precision)
        return pm_error_new(PM_EUNSUPPORTED, "column '%s': DECIMAL scale %d is outside 0..%d", e->name, scale,
                            precision);
    lm->type = pm_type_new_decimal(precision, scale, nullable);
    lm->conv = conv;
    lm->vkind = PQR_FIXED;
    lm->width = 16;
    return NULL;
}

static void set_atomic(leaf_map *lm, pm_type_id id, bool nullable, pqr_conv conv, int width)
{
    lm->type = pm_type_new(id, nullable);
    lm->conv = conv;
    lm->vkind = id == PM_TYPE_BOOLEAN ? PQR_BOOL : PQR_FIXED;
    lm->width = width;
}

static void set_temporal(leaf_map *lm, pm_type_id id, int32_t precision, bool nullable, pqr_conv conv, int width)
{
    lm->type = pm_type_new_temporal(id, precision, nullable);
    lm->conv = conv;
    lm->vkind = PQR_FIXED;
    lm->width = width;
}

static void set_var(leaf_map *lm, pm_type_id id, int32_t length, bool nullable)
{
    lm->type = pm_type_new_string(id, length, nullable);
    lm->conv = PQC_NONE;
    lm->vkind = PQR_VAR;
    lm->width = 0;
}

static int32_t unit_precision(pq_time_unit u)
{
    return u == PQ_UNIT_MILLIS ? 3 : u == PQ_UNIT_MICROS ? 6 : 9;
}

static pm_error *map_int(leaf_map *lm, const pq_schema_element *e, int bw, bool is_signed, bool nullable)
{
    bool i32 = e->type == PQ_INT32;
    if (i32) {
        if (is_signed && bw == 8) set_atomic(lm, PM_TYPE_TINYINT, nullable, PQC_I32_I8, 1);
        else if (is_signed && bw == 16) set_atomic(lm, PM_TYPE_SMALLINT, nullable, PQC_I32_I16, 2);
        else if (is_signed && bw == 32) set_atomic(lm, PM_TYPE_INT, nullable, PQC_NONE, 4);
        else if (!is_signed && bw == 8) set_atomic(lm, PM_TYPE_SMALLINT, nullable, PQC_I32_I16, 2);
        else if (!is_signed && bw == 16) set_atomic(lm, PM_TYPE_INT, nullable, PQC_NONE, 4);
        else if (!is_signed && bw == 32) set_atomic(lm, PM_TYPE_BIGINT, nullable, PQC_U32_I64, 8);
        else return unsupported(e, "INTEGER bit width on INT32");
        return NULL;
    }
    if (e->type == PQ_INT64 && bw == 64) {
        if (is_signed)
            set_atomic(lm, PM_TYPE_BIGINT, nullable, PQC_NONE, 8);
        else
            return set_decimal(lm, e, 20, 0, PQC_U64_I128, nullable);
        return NULL;
    }
    return unsupported(e, "INTEGER annotation");
}

static pm_error *map_leaf(const pq_schema_element *e, bool nullable, leaf_map *lm)
{
    memset(lm, 0, sizeof *lm);
    const pq_logical_type *lt = e->has_logical_type ? &e->logical_type : NULL;
    pq_logical_kind lk = lt ? lt->kind : PQ_LT_NONE;
    int32_t ct = e->has_converted_type ? e->converted_type : -1;
    pm_error *err = NULL;
    switch (e->type) {
    case PQ_BOOLEAN:
        set_atomic(lm, PM_TYPE_BOOLEAN, nullable, PQC_NONE, 0);
        break;
    case PQ_INT32:
        if (lk == PQ_LT_INTEGER) err = map_int(lm, e, lt->int_bit_width, lt->int_is_signed, nullable);
        else if (lk == PQ_LT_DECIMAL) err = set_decimal(lm, e, lt->decimal_precision, lt->decimal_scale, PQC_I32_I128, nullable);
        else if (lk == PQ_LT_DATE) set_atomic(lm, PM_TYPE_DATE, nullable, PQC_NONE, 4);
        else if (lk == PQ_LT_TIME && lt->unit == PQ_UNIT_MILLIS) set_temporal(lm, PM_TYPE_TIME, 3, nullable, PQC_NONE, 4);
        else if (lk != PQ_LT_NONE) err = unsupported(e, "this logical type on INT32");
        else if (ct == PQ_CT_INT_8) set_atomic(lm, PM_TYPE_TINYINT, nullable, PQC_I32_I8, 1);
        else if (ct == PQ_CT_INT_16) set_atomic(lm, PM_TYPE_SMALLINT, nullable, PQC_I32_I16, 2);
        else if (ct == PQ_CT_UINT_8) set_atomic(lm, PM_TYPE_SMALLINT, nullable, PQC_I32_I16, 2);
        else if (ct == PQ_CT_UINT_16) set_atomic(lm, PM_TYPE_INT, nullable, PQC_NONE, 4);
        else if (ct == PQ_CT_UINT_32) set_atomic(lm, PM_TYPE_BIGINT, nullable, PQC_U32_I64, 8);
        else if (ct == PQ_CT_DECIMAL) err = set_decimal(lm, e, e->precision, e->has_scale ? e->scale : 0, PQC_I32_I128, nullable);
        else if (ct == PQ_CT_DATE) set_atomic(lm, PM_TYPE_DATE, nullable, PQC_NONE, 4);
        else if (ct == PQ_CT_TIME_MILLIS) set_temporal(lm, PM_TYPE_TIME, 3, nullable, PQC_NONE, 4);
        else if (ct == -1 || ct == PQ_CT_INT_32) set_atomic(lm, PM_TYPE_INT, nullable, PQC_NONE, 4);
        else err = unsupported(e, pq_converted_type_name(ct));
        break;
    case PQ_INT64:
        if (lk == PQ_LT_INTEGER) err = map_int(lm, e, lt->int_bit_width, lt->int_is_signed, nullable);
        else if (lk == PQ_LT_DECIMAL) err = set_decimal(lm, e, lt->decimal_precision, lt->decimal_scale, PQC_I64_I128, nullable);
        else if (lk == PQ_LT_TIMESTAMP)
            set_temporal(lm, lt->is_adjusted_to_utc ? PM_TYPE_TIMESTAMP_LTZ : PM_TYPE_TIMESTAMP,
                         unit_precision(lt->unit), nullable, PQC_NONE, 8);
        else if (lk == PQ_LT_TIME && lt->unit == PQ_UNIT_MICROS) set_temporal(lm, PM_TYPE_TIME, 6, nullable, PQC_MICROS_MS32, 4);
        else if (lk == PQ_LT_TIME && lt->unit == PQ_UNIT_NANOS) set_temporal(lm, PM_TYPE_TIME, 9, nullable, PQC_NANOS_MS32, 4);
        else if (lk != PQ_LT_NONE) err = unsupported(e, "this logical type on INT64");
        else if (ct == PQ_CT_UINT_64) err = set_decimal(lm, e, 20, 0, PQC_U64_I128, nullable);
        else if (ct == PQ_CT_DECIMAL) err = set_decimal(lm, e, e->precision, e->has_scale ? e->scale : 0, PQC_I64_I128, nullable);
        else if (ct == PQ_CT_TIMESTAMP_MILLIS) set_temporal(lm, PM_TYPE_TIMESTAMP_LTZ, 3, nullable, PQC_NONE, 8);
        else if (ct == PQ_CT_TIMESTAMP_MICROS) set_temporal(lm, PM_TYPE_TIMESTAMP_LTZ, 6, nullable, PQC_NONE, 8);
        else if (ct == PQ_CT_TIME_MICROS) set_temporal(lm, PM_TYPE_TIME, 6, nullable, PQC_MICROS_MS32, 4);
        else if (ct == -1 || ct == PQ_CT_INT_64) set_atomic(lm, PM_TYPE_BIGINT, nullable, PQC_NONE, 8);
        else err = unsupported(e, pq_converted_type_name(ct));
        break;
    case PQ_INT96:
        set_temporal(lm, PM_TYPE_TIMESTAMP, 9, nullable, PQC_INT96_NS, 8);
        break;
    case PQ_FLOAT:
        set_atomic(lm, PM_TYPE_FLOAT, nullable, PQC_NONE, 4);
        break;
    case PQ_DOUBLE:
        set_atomic(lm, PM_TYPE_DOUBLE, nullable, PQC_NONE, 8);
        break;
    case PQ_BYTE_ARRAY:
        if (lk == PQ_LT_STRING || lk == PQ_LT_ENUM || lk == PQ_LT_JSON) set_var(lm, PM_TYPE_VARCHAR, PM_MAX_LENGTH, nullable);
        else if (lk == PQ_LT_DECIMAL) err = set_decimal(lm, e, lt->decimal_precision, lt->decimal_scale, PQC_BE_I128, nullable);
        else if (lk == PQ_LT_BSON || lk == PQ_LT_GEOMETRY || lk == PQ_LT_GEOGRAPHY) set_var(lm, PM_TYPE_VARBINARY, PM_MAX_LENGTH, nullable);
        else if (lk != PQ_LT_NONE) err = unsupported(e, "this logical type on BYTE_ARRAY");
        else if (ct == PQ_CT_UTF8 || ct == PQ_CT_ENUM || ct == PQ_CT_JSON) set_var(lm, PM_TYPE_VARCHAR, PM_MAX_LENGTH, nullable);
        else if (ct == PQ_CT_DECIMAL) err = set_decimal(lm, e, e->precision, e->has_scale ? e->scale : 0, PQC_BE_I128, nullable);
        else if (ct == -1 || ct == PQ_CT_BSON) set_var(lm, PM_TYPE_VARBINARY, PM_MAX_LENGTH, nullable);
        else err = unsupported(e, pq_converted_type_name(ct));
        break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (!e->has_type_length || e->type_length < 1)
            return pm_error_new(PM_ECORRUPT, "column '%s': FIXED_LEN_BYTE_ARRAY without a positive type_length",
                                e->name);
        if (lk == PQ_LT_DECIMAL) err = set_decimal(lm, e, lt->decimal_precision, lt->decimal_scale, PQC_BE_I128, nullable);
        else if (lk == PQ_LT_FLOAT16 && e->type_length == 2) set_atomic(lm, PM_TYPE_FLOAT, nullable, PQC_F16_F32, 4);
        else if (lk == PQ_LT_UUID && e->type_length == 16) set_var(lm, PM_TYPE_BINARY, 16, nullable);
        else if (lk != PQ_LT_NONE) err = unsupported(e, "this logical type on FIXED_LEN_BYTE_ARRAY");
        else if (ct == PQ_CT_DECIMAL) err = set_decimal(lm, e, e->precision, e->has_scale ? e->scale : 0, PQC_BE_I128, nullable);
        else if (ct == PQ_CT_INTERVAL) err = unsupported(e, "INTERVAL");
        else if (ct == -1) set_var(lm, PM_TYPE_BINARY, e->type_length, nullable);
        else err = unsupported(e, pq_converted_type_name(ct));
        break;
    default:
        return pm_error_new(PM_ECORRUPT, "column '%s' has invalid physical type %d", e->name, e->type);
    }
    if (err)
        return err;
    if (!lm->type)
        return pm_oom();
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Conversion of fields                                                */
/* ------------------------------------------------------------------ */

typedef struct conv_ctx {
    pqr_schema *s;
    pm_arena *a;
    uint32_t next_leaf;
} conv_ctx;

static pqr_node *new_rnode(conv_ctx *cx, pqr_node_kind kind, int16_t def, int16_t rep, pqr_node *parent,
                           const char *name, uint32_t nchildren)
{
    pqr_node *r = pm_arena_calloc(cx->a, sizeof *r, 8);
    if (!r)
        return NULL;
    r->kind = kind;
    r->def = def;
    r->rep_begin = rep;
    r->parent = parent;
    r->name = name;
    r->first_leaf = cx->next_leaf;
    if (nchildren) {
        r->children = pm_arena_calloc(cx->a, nchildren * sizeof *r->children, 8);
        if (!r->children)
            return NULL;
    }
    r->nchildren = nchildren;
    return r;
}

static char *join_path(pm_arena *a, const char *parent, const char *name)
{
    if (!parent)
        return pm_arena_strdup(a, name);
    size_t n = strlen(parent) + strlen(name) + 2;
    char *p = pm_arena_alloc(a, n, 1);
    if (p)
        snprintf(p, n, "%s.%s", parent, name);
    return p;
}

static int32_t field_id_of(const snode *n, uint32_t position)
{
    return n->e->has_field_id ? n->e->field_id : (int32_t)position;
}

static pm_error *conv_node(conv_ctx *cx, const snode *n, int16_t d, int16_t r, bool nullable, pqr_node *parent,
                           const char *path, pm_type **type, pqr_node **node);

static pm_error *make_leaf(conv_ctx *cx, const snode *n, int16_t d, int16_t r, bool nullable, pqr_node *parent,
                           const char *path, pm_type **type, pqr_node **node)
{
    leaf_map lm;
    PM_TRY(map_leaf(n->e, nullable, &lm));
    pqr_node *rn = new_rnode(cx, PQN_LEAF, d, r, parent, n->e->name, 0);
    if (!rn) {
        pm_type_free(lm.type);
        return pm_oom();
    }
    rn->nleaves = 1;
    uint32_t li = cx->next_leaf++;
    if (li >= cx->s->nleaves) {
        pm_type_free(lm.type);
        return pm_error_new(PM_EINTERNAL, "leaf count mismatch");
    }
    pqr_leaf *L = &cx->s->leaves[li];
    L->column = li;
    L->ptype = n->e->type;
    L->type_length = n->e->has_type_length ? n->e->type_length : 0;
    L->max_def = d;
    L->max_rep = r;
    L->conv = lm.conv;
    L->vkind = lm.vkind;
    L->width = lm.width;
    switch (n->e->type) {
    case PQ_INT32: case PQ_FLOAT: L->pwidth = 4; break;
    case PQ_INT64: case PQ_DOUBLE: L->pwidth = 8; break;
    case PQ_INT96: L->pwidth = 12; break;
    case PQ_FIXED_LEN_BYTE_ARRAY: L->pwidth = L->type_length; break;
    default: L->pwidth = 0; break;
    }
    L->path = path;
    L->type = lm.type; /* fixed up to point into the final tree by the caller chain */
    /* Path of nodes, top-level first. */
    int depth = 0;
    for (pqr_node *p = rn; p; p = p->parent)
        depth++;
    L->nodes = pm_arena_calloc(cx->a, (size_t)depth * sizeof *L->nodes, 8);
    if (!L->nodes) {
        pm_type_free(lm.type);
        return pm_oom();
    }
    L->depth = depth;
    int k = depth;
    for (pqr_node *p = rn; p; p = p->parent)
        L->nodes[--k] = p;
    *type = lm.type;
    *node = rn;
    return NULL;
}

static pm_error *conv_row(conv_ctx *cx, const snode *n, int16_t d, int16_t r, bool nullable, pqr_node *parent,
                          const char *path, pm_type **type, pqr_node **node)
{
    if (n->nch == 0)
        return pm_error_new(PM_EUNSUPPORTED, "group '%s' has no fields", n->e->name);
    pqr_node *rn = new_rnode(cx, PQN_ROW, d, r, parent, n->e->name, n->nch);
    if (!rn)
        return pm_oom();
    pm_type *row = pm_type_new_row(nullable);
    if (!row)
        return pm_oom();
    for (uint32_t i = 0; i < n->nch; i++) {
        const snode *c = n->ch[i];
        pm_type *ct = NULL;
        pqr_node *cn = NULL;
        char *cpath = join_path(cx->a, path, c->e->name);
        pm_error *e = cpath ? NULL : pm_oom();
        if (!e)
            e = conv_node(cx, c, d, r, false, rn, cpath, &ct, &cn);
        if (!e)
            e = pm_type_add_field(row, field_id_of(c, i), c->e->name, ct);
        if (e) {
            pm_type_free(row);
            return e;
        }
        rn->children[i] = cn;
        rn->nleaves += cn->nleaves;
    }
    *type = row;
    *node = rn;
    return NULL;
}

/* ARRAY built around the repeated node `rep` (the list level), with the
 * list itself present at def `d` and rep_begin `r`. */
static pm_error *conv_list_level(conv_ctx *cx, const snode *rep, const snode *outer, int16_t d, int16_t r,
                                 bool nullable, pqr_node *parent, const char *path, pm_type **type,
                                 pqr_node **node)
{
    int16_t ed = (int16_t)(d + 1), er = (int16_t)(r + 1);
    pqr_node *rn = new_rnode(cx, PQN_ARRAY, d, r, parent, outer->e->name, 1);
    if (!rn)
        return pm_oom();
    rn->elem_def = ed;
    pm_type *et = NULL;
    pqr_node *en = NULL;
    char *epath = join_path(cx->a, path, rep->e->name);
    if (!epath)
        return pm_oom();
    bool rep_is_element;
    if (rep == outer || !is_group(rep))
        rep_is_element = true;
    else if (rep->nch != 1)
        rep_is_element = true;
    else if (!strcmp(rep->e->name, "array"))
        rep_is_element = true;
    else {
        size_t on = strlen(outer->e->name);
        rep_is_element = strlen(rep->e->name) == on + 6 &&
                         !strncmp(rep->e->name, outer->e->name, on) && !strcmp(rep->e->name + on, "_tuple");
    }
    if (rep_is_element) {
        /* The repeated field is the element (required). */
        if (is_group(rep))
            PM_TRY(conv_row(cx, rep, ed, er, false, rn, epath, &et, &en));
        else
            PM_TRY(make_leaf(cx, rep, ed, er, false, rn, epath, &et, &en));
    } else {
        const snode *el = rep->ch[0];
        char *p2 = join_path(cx->a, epath, el->e->name);
        if (!p2)
            return pm_oom();
        PM_TRY(conv_node(cx, el, ed, er, false, rn, p2, &et, &en));
    }
    rn->children[0] = en;
    rn->nleaves = en->nleaves;
    pm_type *t = pm_type_new_array(et, nullable);
    if (!t) {
        pm_type_free(et);
        return pm_oom();
    }
    *type = t;
    *node = rn;
    return NULL;
}

static pm_error *conv_map(conv_ctx *cx, const snode *n, int16_t d, int16_t r, bool nullable, pqr_node *parent,
                          const char *path, pm_type **type, pqr_node **node)
{
    if (n->nch != 1 || !is_group(n->ch[0]) || repetition(n->ch[0]) != PQ_REPEATED)
        return pm_error_new(PM_EUNSUPPORTED, "MAP '%s' is not a group of one repeated key_value group",
                            n->e->name);
    const snode *kv = n->ch[0];
    if (kv->nch != 2)
        return pm_error_new(PM_EUNSUPPORTED, "MAP '%s': key_value group has %u fields, expected key and value",
                            n->e->name, kv->nch);
    int16_t ed = (int16_t)(d + 1), er = (int16_t)(r + 1);
    pqr_node *rn = new_rnode(cx, PQN_MAP, d, r, parent, n->e->name, 2);
    if (!rn)
        return pm_oom();
    rn->elem_def = ed;
    char *kvpath = join_path(cx->a, path, kv->e->name);
    if (!kvpath)
        return pm_oom();
    pm_type *kt = NULL, *vt = NULL;
    pqr_node *kn = NULL, *vn = NULL;
    char *kp = join_path(cx->a, kvpath, kv->ch[0]->e->name);
    char *vp = join_path(cx->a, kvpath, kv->ch[1]->e->name);
    if (!kp || !vp)
        return pm_oom();
    PM_TRY(conv_node(cx, kv->ch[0], ed, er, false, rn, kp, &kt, &kn));
    pm_error *e = conv_node(cx, kv->ch[1], ed, er, false, rn, vp, &vt, &vn);
    if (e) {
        pm_type_free(kt);
        return e;
    }
    rn->children[0] = kn;
    rn->children[1] = vn;
    rn->nleaves = kn->nleaves + vn->nleaves;
    pm_type *t = pm_type_new_map(kt, vt, nullable);
    if (!t)
        return pm_oom();
    *type = t;
    *node = rn;
    return NULL;
}

/* Convert field n whose parent sits at def d, rep r.  `nullable` is ignored
 * (computed from the repetition). */
static pm_error *conv_node(conv_ctx *cx, const snode *n, int16_t d, int16_t r, bool nullable_unused,
                           pqr_node *parent, const char *path, pm_type **type, pqr_node **node)
{
    (void)nullable_unused;
    int32_t rp = repetition(n);
    if (rp != PQ_REQUIRED && rp != PQ_OPTIONAL && rp != PQ_REPEATED)
        return pm_error_new(PM_ECORRUPT, "field '%s' has invalid repetition %d", n->e->name, rp);
    if (rp == PQ_REPEATED) {
        /* A bare repeated field: a required list of required elements. */
        return conv_list_level(cx, n, n, d, r, false, parent, path, type, node);
    }
    bool nullable = rp == PQ_OPTIONAL;
    int16_t nd = (int16_t)(d + (nullable ? 1 : 0));
    if (!is_group(n))
        return make_leaf(cx, n, nd, r, nullable, parent, path, type, node);
    const pq_schema_element *e = n->e;
    bool is_list = (e->has_logical_type && e->logical_type.kind == PQ_LT_LIST) ||
                   (e->has_converted_type && e->converted_type == PQ_CT_LIST);
    bool is_map = (e->has_logical_type && e->logical_type.kind == PQ_LT_MAP) ||
                  (e->has_converted_type &&
                   (e->converted_type == PQ_CT_MAP || e->converted_type == PQ_CT_MAP_KEY_VALUE));
    if (is_list) {
        if (n->nch != 1 || repetition(n->ch[0]) != PQ_REPEATED)
            return pm_error_new(PM_EUNSUPPORTED, "LIST '%s' is not a group of one repeated field", e->name);
        return conv_list_level(cx, n->ch[0], n, nd, r, nullable, parent, path, type, node);
    }
    if (is_map)
        return conv_map(cx, n, nd, r, nullable, parent, path, type, node);
    return conv_row(cx, n, nd, r, nullable, parent, path, type, node);
}

/* Make every leaf's `type` point into the field's final type tree (leaf
 * types were moved into parents while building). */
static void fix_leaf_types(pqr_schema *s, const pqr_node *rn, const pm_type *t)
{
    switch (rn->kind) {
    case PQN_LEAF:
        s->leaves[rn->first_leaf].type = t;
        break;
    case PQN_ROW:
        for (uint32_t i = 0; i < rn->nchildren; i++)
            fix_leaf_types(s, rn->children[i], t->fields[i].type);
        break;
    case PQN_ARRAY:
        fix_leaf_types(s, rn->children[0], t->element);
        break;
    case PQN_MAP:
        fix_leaf_types(s, rn->children[0], t->key);
        fix_leaf_types(s, rn->children[1], t->value);
        break;
    }
}

pm_error *pqr_schema_build(pqr_schema **out, const pm_pq_file_meta *m)
{
    *out = NULL;
    if (m->num_schema == 0)
        return pm_error_new(PM_ECORRUPT, "parquet schema is empty");
    pqr_schema *s;
    PM_TRY(pm_calloc(&s, 1, sizeof *s));
    pm_arena_init(&s->arena, 0);
    pm_error *e = NULL;
    build_ctx bx = {m, &s->arena, 0};
    snode *root = NULL;
    PM_TRY_GOTO(e, build_tree(&bx, &root, 0), fail);
    if (bx.pos != m->num_schema) {
        e = pm_error_new(PM_ECORRUPT, "schema has %u elements but the tree uses %u", m->num_schema, bx.pos);
        goto fail;
    }
    s->nleaves = root->nprim;
    s->leaves = pm_arena_calloc(&s->arena, (s->nleaves ? s->nleaves : 1) * sizeof *s->leaves, 8);
    s->nfields = root->nch;
    s->fields = pm_arena_calloc(&s->arena, (s->nfields ? s->nfields : 1) * sizeof *s->fields, 8);
    if (!s->leaves || !s->fields) {
        e = pm_oom();
        goto fail;
    }
    conv_ctx cx = {s, &s->arena, 0};
    for (uint32_t i = 0; i < root->nch; i++) {
        const snode *c = root->ch[i];
        pqr_field *f = &s->fields[i];
        f->name = c->e->name;
        f->has_field_id = c->e->has_field_id;
        f->id = field_id_of(c, i);
        f->first_leaf = cx.next_leaf;
        f->nleaves = c->nprim;
        char *path = pm_arena_strdup(&s->arena, c->e->name);
        if (!path) {
            e = pm_oom();
            goto fail;
        }
        pm_error *fe = conv_node(&cx, c, 0, 0, false, NULL, path, &f->type, &f->node);
        if (fe) {
            if (pm_error_code(fe) == PM_ENOMEM || pm_error_code(fe) == PM_EINTERNAL) {
                e = fe;
                goto fail;
            }
            f->err = pm_error_wrap(fe, 0, "field '%s'", c->e->name);
            f->type = NULL;
            f->node = NULL;
            /* Leaves of a failed field: keep their slots, no assembly info. */
            for (uint32_t k = f->first_leaf; k < f->first_leaf + f->nleaves; k++) {
                memset(&s->leaves[k], 0, sizeof s->leaves[k]);
                s->leaves[k].column = k;
            }
            cx.next_leaf = f->first_leaf + f->nleaves;
        } else {
            fix_leaf_types(s, f->node, f->type);
        }
    }
    *out = s;
    return NULL;
fail:
    pqr_schema_free(s);
    return pm_error_wrap(e, 0, "parquet schema");
}

void pqr_schema_free(pqr_schema *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->nfields; i++) {
        if (s->fields) {
            pm_type_free(s->fields[i].type);
            pm_error_free(s->fields[i].err);
        }
    }
    pm_arena_free(&s->arena);
    free(s);
}

const pm_type *pqr_schema_leaf_type(const pqr_schema *s, uint32_t leaf)
{
    return leaf < s->nleaves ? s->leaves[leaf].type : NULL;
}
