/*
 * format/parquet/pqr_assemble.c — record assembly: definition and
 * repetition levels of each leaf column → Arrow-layout pm_columns (validity
 * bitmaps, int32 offsets, child columns) for arbitrarily nested ROW, ARRAY
 * and MAP with nulls at every level.
 *
 * Steps for one top-level field and a batch of `rows` records:
 *  1. Each leaf, in schema order, consumes level entries page by page until
 *     it has seen `rows` records (a record starts at repetition level 0; a
 *     record may continue across pages).
 *  2. Flat leaf (the field itself is the leaf): each entry is one row,
 *     valid iff its definition level is the maximum.  The page's values are
 *     decoded straight into the column's value buffer and spread backwards
 *     over the null slots; no per-value function calls.  Byte strings: the
 *     decoder's offsets (relative to the page's first value) go into the
 *     column directly when the column is still empty and the page has no
 *     nulls, else through a scratch array, rebased and spread.
 *  3. Nested leaf: each entry walks the leaf's node path top-down (see
 *     pqr_schema.h for the thresholds).  At node N an entry with repetition
 *     level r <= N.rep_begin starts a new instance of N: null when
 *     d < N.def; a new instance under an ARRAY/MAP also adds one element to
 *     the parent (its last offset grows by one).  An ARRAY/MAP instance
 *     with d < elem_def is null or empty and the walk stops; a ROW passes
 *     its instance (null or not) to every child, so a null row still has
 *     one null row in each child.  The owner of a nested node (its first
 *     leaf) is the only leaf that appends to it; other leaves only append
 *     below.  The leaf's slots (valid or null) are collected and appended
 *     in bulk like a flat leaf.
 *  4. Afterwards the whole column tree is checked for consistent lengths
 *     (sibling leaves of a broken file could disagree).
 */
#include "format/parquet/pqr_assemble.h"

#include "format/parquet/page_reader.h"

#include <string.h>

#include "base/mem.h"

/* ------------------------------------------------------------------ */
/* Column buffer helpers                                               */
/* ------------------------------------------------------------------ */

static pm_error *bitmap_fit(pm_buf *b, int64_t bits)
{
    size_t need = (size_t)((bits + 7) >> 3);
    if (b->len < need)
        return pm_buf_resize(b, need);
    return NULL;
}

static inline void bit_put(uint8_t *bm, int64_t i, bool v)
{
    uint8_t m = (uint8_t)(1u << (i & 7));
    if (v)
        bm[i >> 3] |= m;
    else
        bm[i >> 3] &= (uint8_t)~m;
}

/* Bits [base, base+n) of bm from 0/1 bytes (flags NULL = all ones).  Full
 * bytes are packed 8 flags at a time: with the flags as a little-endian
 * u64 (byte k = flag k), (f * 0x0102040810204080) >> 56 moves flag k to
 * bit k without carries. */
static void put_bits(uint8_t *bm, int64_t base, const uint8_t *flags, size_t n)
{
    size_t s = 0;
    while (s < n && ((base + (int64_t)s) & 7)) {
        bit_put(bm, base + (int64_t)s, flags ? flags[s] : 1);
        s++;
    }
    uint8_t *out = bm + ((base + (int64_t)s) >> 3);
    if (!flags) {
        size_t full = (n - s) / 8;
        memset(out, 0xff, full);
        s += full * 8;
    } else {
        for (; s + 8 <= n; s += 8) {
            uint64_t f;
            memcpy(&f, flags + s, 8);
            *out++ = (uint8_t)((f * 0x0102040810204080ull) >> 56);
        }
    }
    for (; s < n; s++)
        bit_put(bm, base + (int64_t)s, flags ? flags[s] : 1);
}

/* Give the column a validity bitmap covering its current rows (all valid). */
static pm_error *validity_materialize(pm_column *col)
{
    if (col->validity.len > 0 || col->null_count > 0)
        return NULL;
    int64_t n = col->length;
    PM_TRY(pm_buf_resize(&col->validity, (size_t)((n + 7) >> 3)));
    if (n >> 3)
        memset(col->validity.data, 0xff, (size_t)(n >> 3));
    if (n & 7)
        col->validity.data[n >> 3] = (uint8_t)((1u << (n & 7)) - 1);
    return NULL;
}

/* Validity of nslots new rows starting at col->length (flags NULL = all valid). */
static pm_error *validity_append(pm_column *col, const uint8_t *flags, size_t nslots, size_t nvalid)
{
    int64_t base = col->length;
    if (nvalid == nslots) {
        if (col->validity.len == 0)
            return NULL;
        PM_TRY(bitmap_fit(&col->validity, base + (int64_t)nslots));
        put_bits(col->validity.data, base, NULL, nslots);
        return NULL;
    }
    PM_TRY(validity_materialize(col));
    PM_TRY(bitmap_fit(&col->validity, base + (int64_t)nslots));
    put_bits(col->validity.data, base, flags, nslots);
    col->null_count += (int64_t)(nslots - nvalid);
    return NULL;
}

static pm_error *validity_push(pm_column *col, bool valid)
{
    uint8_t f = valid;
    return validity_append(col, &f, 1, valid ? 1 : 0);
}

static int32_t last_offset(const pm_column *col)
{
    int32_t v = 0;
    if (col->offsets.len >= 4)
        memcpy(&v, col->offsets.data + col->offsets.len - 4, 4);
    return v;
}

static pm_error *offsets_start(pm_column *col)
{
    if (col->offsets.len == 0)
        return pm_buf_append_u32le(&col->offsets, 0);
    return NULL;
}

/* New ARRAY/MAP instance: offsets gains an entry equal to the last one. */
static pm_error *list_push(pm_column *col, bool valid)
{
    PM_TRY(offsets_start(col));
    int32_t v = last_offset(col);
    PM_TRY(pm_buf_append(&col->offsets, &v, 4));
    PM_TRY(validity_push(col, valid));
    col->length++;
    return NULL;
}

/* One more element in the current (last) ARRAY/MAP instance. */
static pm_error *list_bump(pm_column *col)
{
    if (col->offsets.len < 8)
        return pm_error_new(PM_EINTERNAL, "element before list instance");
    int32_t v;
    memcpy(&v, col->offsets.data + col->offsets.len - 4, 4);
    if (v == INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "more than 2^31-1 list elements in one batch");
    v++;
    memcpy(col->offsets.data + col->offsets.len - 4, &v, 4);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Leaf values                                                         */
/* ------------------------------------------------------------------ */

/* Spread nvalid dense values of w bytes at dst over nslots slots (flags),
 * back to front so nothing is overwritten before it moved; nulls are 0. */
#define SPREAD_T(T)                                \
    do {                                           \
        T *v = (T *)(void *)dst;                   \
        size_t j = nvalid;                         \
        for (size_t s = nslots; s-- > 0;) {        \
            T f = flags[s];                        \
            j -= (size_t)f;                        \
            /* j <= s: in bounds; branch-free */   \
            v[s] = v[j] & (T)(0 - f);              \
        }                                          \
    } while (0)

static void spread(uint8_t *dst, size_t w, const uint8_t *flags, size_t nslots, size_t nvalid)
{
    switch (w) {
    case 1: SPREAD_T(uint8_t); return;
    case 2: SPREAD_T(uint16_t); return;
    case 4: SPREAD_T(uint32_t); return;
    case 8: SPREAD_T(uint64_t); return;
    case 16: {
        uint64_t *v = (uint64_t *)(void *)dst;
        size_t j = nvalid;
        for (size_t s = nslots; s-- > 0;) {
            if (flags[s]) {
                j--;
                v[2 * s] = v[2 * j];
                v[2 * s + 1] = v[2 * j + 1];
            } else {
                v[2 * s] = v[2 * s + 1] = 0;
            }
        }
        return;
    }
    default: {
        size_t j = nvalid;
        for (size_t s = nslots; s-- > 0;) {
            if (flags[s]) {
                j--;
                if (j != s)
                    memmove(dst + s * w, dst + j * w, w);
            } else {
                memset(dst + s * w, 0, w);
            }
        }
    }
    }
}

/* Append nslots leaf rows (flags NULL = all valid) taking nvalid values
 * from the chunk's current page. */
static pm_error *leaf_append(pqr_assembler *a, pqr_chunk *c, pm_column *col, const uint8_t *flags, size_t nslots,
                             size_t nvalid)
{
    const pqr_leaf *L = c->leaf;
    int64_t base = col->length;
    if (nslots == 0)
        return NULL;
    if (base + (int64_t)nslots > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "more than 2^31-1 values in one batch column");
    if (c->ids_out) {
        /* dictionary ids (int32) and the row group's dictionary */
        pm_column *dict;
        PM_TRY(pqr_chunk_dict_column(c, col->type, &dict));
        if (!col->dictionary)
            col->dictionary = pm_column_retain(dict);
        else if (col->dictionary != dict)
            return pm_error_new(PM_EINTERNAL, "one batch column holds ids of two dictionaries");
        if (col->values.len != (size_t)base * 4)
            return pm_error_new(PM_EINTERNAL, "column id buffer out of step");
        PM_TRY(pm_buf_reserve(&col->values, nslots * 4));
        uint8_t *dst = col->values.data + (size_t)base * 4;
        pqr_dest d = {NULL, NULL, NULL, (uint32_t *)(void *)dst};
        PM_TRY(pqr_chunk_values(c, nvalid, &d));
        if (nvalid < nslots)
            spread(dst, 4, flags, nslots, nvalid);
        col->values.len = (size_t)(base + (int64_t)nslots) * 4;
        PM_TRY(validity_append(col, flags, nslots, nvalid));
        col->length += (int64_t)nslots;
        return NULL;
    }
    switch (L->vkind) {
    case PQR_FIXED: {
        size_t w = (size_t)L->width;
        if (col->values.len != (size_t)base * w)
            return pm_error_new(PM_EINTERNAL, "column value buffer out of step");
        PM_TRY(pm_buf_reserve(&col->values, nslots * w));
        uint8_t *dst = col->values.data + (size_t)base * w;
        pqr_dest d = {dst, NULL, NULL, NULL};
        PM_TRY(pqr_chunk_values(c, nvalid, &d));
        if (nvalid < nslots)
            spread(dst, w, flags, nslots, nvalid);
        col->values.len = (size_t)(base + (int64_t)nslots) * w;
        break;
    }
    case PQR_BOOL: {
        PM_TRY(pm_buf_resize(&a->tmp, nslots));
        pqr_dest d = {a->tmp.data, NULL, NULL, NULL};
        PM_TRY(pqr_chunk_values(c, nvalid, &d));
        if (nvalid < nslots)
            spread(a->tmp.data, 1, flags, nslots, nvalid);
        PM_TRY(bitmap_fit(&col->values, base + (int64_t)nslots));
        put_bits(col->values.data, base, a->tmp.data, nslots);
        break;
    }
    case PQR_VAR: {
        PM_TRY(offsets_start(col));
        /* keep data non-NULL even when every value is empty (readers add offsets to it) */
        PM_TRY(pm_buf_reserve(&col->data, 1));
        int32_t data_base = last_offset(col);
        if ((size_t)data_base != col->data.len)
            return pm_error_new(PM_EINTERNAL, "column data buffer out of step");
        if (!flags && data_base == 0) {
            /* the column's first values, none null: the decoder's relative
             * offsets are the column's own, written in place from its
             * leading 0 (no second pass) */
            PM_TRY(pm_buf_reserve(&col->offsets, nslots * 4));
            int32_t *at = (int32_t *)(void *)(col->offsets.data + col->offsets.len - 4);
            pqr_dest d = {NULL, at, &col->data, NULL};
            PM_TRY(pqr_chunk_values(c, nvalid, &d));
            if (col->data.len > INT32_MAX)
                return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of byte data in one batch column");
            col->offsets.len += nslots * 4;
            a->offsets_in_place += nslots;
            break;
        }
        PM_TRY(pm_buf_set_len(&a->rel, (nvalid + 1) * 4));
        int32_t *rel = (int32_t *)(void *)a->rel.data;
        pqr_dest d = {NULL, rel, &col->data, NULL};
        PM_TRY(pqr_chunk_values(c, nvalid, &d));
        if (col->data.len > INT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of byte data in one batch column");
        PM_TRY(pm_buf_reserve(&col->offsets, nslots * 4));
        int32_t *off = (int32_t *)(void *)(col->offsets.data + col->offsets.len);
        if (!flags) {
            for (size_t s = 0; s < nslots; s++)
                off[s] = data_base + rel[s + 1];
        } else {
            size_t j = 0;
            for (size_t s = 0; s < nslots; s++) {
                if (flags[s])
                    j++;
                off[s] = data_base + rel[j];
            }
        }
        col->offsets.len += nslots * 4;
        break;
    }
    }
    PM_TRY(validity_append(col, flags, nslots, nvalid));
    col->length += (int64_t)nslots;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Entry processing                                                    */
/* ------------------------------------------------------------------ */

static pm_error *flat_entries(pqr_assembler *a, pqr_chunk *c, pm_column *col, uint32_t first, uint32_t n)
{
    const pqr_leaf *L = c->leaf;
    if (L->max_def == 0 || c->nvalid == c->n)
        return leaf_append(a, c, col, NULL, n, n); /* no nulls in this page */
    const uint16_t *def = pqr_chunk_def(c) + first;
    PM_TRY(pm_buf_resize(&a->flags, n ? n : 1));
    uint8_t *f = a->flags.data;
    uint16_t md = (uint16_t)L->max_def;
    size_t nvalid = 0;
    for (uint32_t i = 0; i < n; i++) {
        f[i] = def[i] == md;
        nvalid += f[i];
    }
    return leaf_append(a, c, col, nvalid == n ? NULL : f, n, nvalid);
}

static pm_error *nested_entries(pqr_assembler *a, pqr_chunk *c, pm_column *top, uint32_t first, uint32_t n)
{
    const pqr_leaf *L = c->leaf;
    int k = L->depth;
    pm_column *cols[PQ_ASM_MAX_DEPTH];
    if (k > PQ_ASM_MAX_DEPTH)
        return pm_error_new(PM_EUNSUPPORTED, "nesting deeper than %d", PQ_ASM_MAX_DEPTH);
    /* Columns along the leaf's path. */
    cols[0] = top;
    for (int i = 1; i < k; i++) {
        const pqr_node *p = L->nodes[i - 1];
        uint32_t ci = 0;
        while (ci < p->nchildren && p->children[ci] != L->nodes[i])
            ci++;
        if (ci >= p->nchildren || ci >= cols[i - 1]->nchildren)
            return pm_error_new(PM_EINTERNAL, "column tree does not match the schema");
        cols[i] = cols[i - 1]->children[ci];
    }
    const uint16_t *def = L->max_def ? pqr_chunk_def(c) + first : NULL;
    const uint16_t *rep = L->max_rep ? pqr_chunk_rep(c) + first : NULL;
    PM_TRY(pm_buf_resize(&a->flags, n ? n : 1));
    uint8_t *flags = a->flags.data;
    size_t nslots = 0, nvalid = 0;
    uint32_t me = L->column;
    for (uint32_t e = 0; e < n; e++) {
        int d = def ? def[e] : 0, r = rep ? rep[e] : 0;
        for (int i = 0; i < k; i++) {
            const pqr_node *node = L->nodes[i];
            bool newi = r <= node->rep_begin;
            bool is_list = node->kind == PQN_ARRAY || node->kind == PQN_MAP;
            if (!newi) {
                if (!c->open_inst[i] || d < node->def || node->kind == PQN_LEAF || (is_list && d < node->elem_def))
                    return pm_error_new(PM_ECORRUPT, "levels (def %d, rep %d) continue a null or empty value at '%s'",
                                        d, r, node->name);
                continue;
            }
            bool valid = d >= node->def;
            c->open_inst[i] = is_list ? d >= node->elem_def : valid;
            if (i > 0) {
                const pqr_node *parent = L->nodes[i - 1];
                if ((parent->kind == PQN_ARRAY || parent->kind == PQN_MAP) && parent->first_leaf == me)
                    PM_TRY(list_bump(cols[i - 1]));
            }
            if (node->kind == PQN_LEAF) {
                flags[nslots++] = valid;
                nvalid += valid;
                break;
            }
            if (node->first_leaf == me) {
                if (node->kind == PQN_ROW) {
                    PM_TRY(validity_push(cols[i], valid));
                    cols[i]->length++;
                } else {
                    PM_TRY(list_push(cols[i], valid));
                }
            }
            if ((node->kind == PQN_ARRAY || node->kind == PQN_MAP) && d < node->elem_def)
                break;
        }
    }
    return leaf_append(a, c, cols[k - 1], nvalid == nslots ? NULL : flags, nslots, nvalid);
}

/* ------------------------------------------------------------------ */
/* Public                                                              */
/* ------------------------------------------------------------------ */

void pqr_assembler_init(pqr_assembler *a)
{
    pm_buf_init(&a->flags);
    pm_buf_init(&a->tmp);
    pm_buf_init(&a->rel);
    a->offsets_in_place = 0;
}

void pqr_assembler_free(pqr_assembler *a)
{
    pm_buf_free(&a->flags);
    pm_buf_free(&a->tmp);
    pm_buf_free(&a->rel);
}

pm_error *pqr_assemble_leaf(pqr_assembler *a, pqr_chunk *c, pm_column *top, int64_t rows, int64_t *done_out)
{
    const pqr_leaf *L = c->leaf;
    int64_t done = 0;
    for (;;) {
        if (c->pos >= c->n) {
            bool eof;
            PM_TRY(pqr_chunk_next_page(c, &eof));
            if (eof)
                break;
        }
        uint32_t avail = c->n - c->pos;
        uint32_t take;
        bool boundary = false;
        if (L->max_rep == 0) {
            int64_t want = rows - done;
            take = (int64_t)avail < want ? avail : (uint32_t)want;
            done += take;
            c->records += take;
        } else {
            const uint16_t *rep = pqr_chunk_rep(c) + c->pos;
            uint32_t i = 0;
            for (; i < avail; i++) {
                if (rep[i] == 0) {
                    if (done == rows) {
                        boundary = true;
                        break;
                    }
                    done++;
                    c->records++;
                } else if (c->records == 0) {
                    return pm_error_new(PM_ECORRUPT, "column starts with repetition level %u instead of 0", rep[i]);
                }
            }
            take = i;
        }
        if (take) {
            if (L->depth == 1)
                PM_TRY(flat_entries(a, c, top, c->pos, take));
            else
                PM_TRY(nested_entries(a, c, top, c->pos, take));
            c->pos += take;
        }
        if (boundary || (L->max_rep == 0 && done == rows))
            break;
    }
    *done_out = done;
    return NULL;
}

pm_error *pqr_check_column(const pm_column *col)
{
    const pm_type *t = col->type;
    if (col->validity.len && col->validity.len * 8 < (size_t)col->length)
        return pm_error_new(PM_EINTERNAL, "validity bitmap shorter than the column");
    switch (t->id) {
    case PM_TYPE_ROW:
        for (size_t i = 0; i < col->nchildren; i++) {
            if (col->children[i]->length != col->length)
                return pm_error_new(PM_ECORRUPT, "struct field '%s' has %lld rows, the struct %lld",
                                    t->fields[i].name, (long long)col->children[i]->length, (long long)col->length);
            PM_TRY(pqr_check_column(col->children[i]));
        }
        return NULL;
    case PM_TYPE_ARRAY:
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        int64_t end = col->length ? last_offset(col) : 0;
        if (col->length && col->offsets.len != (size_t)(col->length + 1) * 4)
            return pm_error_new(PM_EINTERNAL, "list offsets out of step");
        for (size_t i = 0; i < col->nchildren; i++) {
            if (col->children[i]->length != end)
                return pm_error_new(PM_ECORRUPT, "list/map has %lld elements but its child column %lld",
                                    (long long)end, (long long)col->children[i]->length);
            PM_TRY(pqr_check_column(col->children[i]));
        }
        return NULL;
    }
    default:
        return NULL;
    }
}
