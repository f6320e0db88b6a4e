/*
 * format/parquet/pq_write_levels.c — definition and repetition levels of a
 * nested leaf, computed by walking the column tree along the leaf's steps
 * (pq_schema_write.h).
 *
 * For each top-level row, visit(step 0, top column, row, def 0, rep 0):
 *   - a null node: OPTIONAL → emit (def, rep) without a value; REQUIRED →
 *     error (Paimon refuses nulls in NOT NULL fields and null map keys);
 *   - a present OPTIONAL node adds 1 to def;
 *   - ROW: visit the member column at the same position (a null ROW still
 *     has a row in every child, so positions line up);
 *   - LIST / MAP key / MAP value: an empty collection emits (def, rep); else
 *     each element j visits the child at offsets[pos] + j with def + 1 and
 *     rep = the incoming rep for j = 0, the group's repetition level after;
 *   - the leaf emits (def, rep) and its position.
 */
#include <stdlib.h>

#include "base/mem.h"
#include "format/parquet/pq_write_column.h"

void pq_levels_free(pq_levels *lv)
{
    free(lv->def);
    free(lv->rep);
    free(lv->pos);
    memset(lv, 0, sizeof *lv);
}

static pm_error *grow_levels(pq_levels *lv)
{
    size_t cap = lv->cap ? lv->cap * 2 : 4096;
    PM_TRY(pm_realloc_array(&lv->def, cap, sizeof *lv->def));
    PM_TRY(pm_realloc_array(&lv->rep, cap, sizeof *lv->rep));
    lv->cap = cap;
    return NULL;
}

static inline pm_error *push(pq_levels *lv, int def, int rep)
{
    if (lv->n == lv->cap)
        PM_TRY(grow_levels(lv));
    lv->def[lv->n] = (uint16_t)def;
    lv->rep[lv->n] = (uint16_t)rep;
    lv->n++;
    return NULL;
}

static inline pm_error *push_pos(pq_levels *lv, int64_t pos)
{
    if (lv->npos == lv->pos_cap) {
        size_t cap = lv->pos_cap ? lv->pos_cap * 2 : 4096;
        PM_TRY(pm_realloc_array(&lv->pos, cap, sizeof *lv->pos));
        lv->pos_cap = cap;
    }
    lv->pos[lv->npos++] = pos;
    return NULL;
}

static pm_error *visit(pq_levels *lv, const pq_leaf *leaf, uint32_t s, const pm_column *col,
                       int64_t pos, int def, int rep)
{
    const pq_step *st = &leaf->steps[s];
    if (pos < 0 || pos >= col->length)
        return pm_error_new(PM_EINVALID, "field '%s': position %lld outside column of %lld rows",
                            st->name, (long long)pos, (long long)col->length);
    if (pm_column_is_null(col, pos)) {
        if (!st->nullable) {
            if (s > 0 && leaf->steps[s - 1].kind == PQ_STEP_MAP_KEY)
                return pm_error_new(PM_EINVALID, "map '%s' has a null key", leaf->steps[s - 1].name);
            return pm_error_new(PM_EINVALID, "field '%s' is NOT NULL but has a null value", st->name);
        }
        lv->nulls++;
        return push(lv, def, rep);
    }
    if (st->nullable)
        def++;
    switch (st->kind) {
    case PQ_STEP_LEAF:
        if (lv->leaf_col != col)
            return pm_error_new(PM_EINTERNAL, "leaf column changed");
        PM_TRY(push(lv, def, rep));
        return push_pos(lv, pos);
    case PQ_STEP_ROW:
        if ((size_t)st->child >= col->nchildren)
            return pm_error_new(PM_EINVALID, "row '%s' has %zu children", st->name, col->nchildren);
        return visit(lv, leaf, s + 1, col->children[st->child], pos, def, rep);
    default: {
        size_t ci = st->kind == PQ_STEP_MAP_VALUE ? 1 : 0;
        if (ci >= col->nchildren || col->offsets.len < (size_t)(col->length + 1) * 4)
            return pm_error_new(PM_EINVALID, "collection '%s' lacks offsets or children", st->name);
        const int32_t *off = pm_column_offsets(col);
        int32_t b = off[pos], e = off[pos + 1];
        const pm_column *child = col->children[ci];
        if (b < 0 || e < b || e > child->length)
            return pm_error_new(PM_EINVALID, "collection '%s': bad offsets %d..%d at row %lld",
                                st->name, b, e, (long long)pos);
        if (b == e) {
            lv->nulls++;
            return push(lv, def, rep);
        }
        for (int32_t j = b; j < e; j++)
            PM_TRY(visit(lv, leaf, s + 1, child, j, def + 1, j == b ? rep : st->rep_level));
        return NULL;
    }
    }
}

/* The column the leaf step reaches (the same for every value). */
static pm_error *find_leaf_column(const pq_leaf *leaf, const pm_column *top, const pm_column **out)
{
    const pm_column *c = top;
    for (uint32_t s = 0; s + 1 < leaf->nsteps; s++) {
        const pq_step *st = &leaf->steps[s];
        size_t ci = st->kind == PQ_STEP_ROW ? (size_t)st->child : st->kind == PQ_STEP_MAP_VALUE ? 1 : 0;
        if (ci >= c->nchildren)
            return pm_error_new(PM_EINVALID, "field '%s' has %zu children, expected more", st->name,
                                c->nchildren);
        c = c->children[ci];
    }
    *out = c;
    return NULL;
}

pm_error *pq_levels_compute(pq_levels *lv, const pq_leaf *leaf, const pm_column *top, int64_t r0,
                            int64_t r1)
{
    lv->n = lv->npos = 0;
    lv->nulls = 0;
    PM_TRY(find_leaf_column(leaf, top, &lv->leaf_col));
    for (int64_t r = r0; r < r1; r++)
        PM_TRY(visit(lv, leaf, 0, top, r, 0, 0));
    return NULL;
}
