/*
 * index/fi_values.c — what the index types share (fi_internal.h): values
 * as Paimon's index writers see them, the value map (distinct values with
 * their rows), index results and Roaring bitmaps.
 *
 * Value map: open addressing on a 64-bit mix of the Java hash (linear
 * probing, grown at 1/2 load); string bytes are copied into an arena.
 */
#include <stdlib.h>
#include <string.h>

#include "base/compare.h"
#include "base/hash.h"
#include "base/mem.h"
#include "dv/roaring_check.h"
#include "dv/roaring_java.h"
#include "index/fi_internal.h"
#include "index/fi_java.h"

/* ------------------------------------------------------------------ */
/* values                                                              */

bool fi_value_kind(const pm_type *t, fv_kind *out)
{
    switch (t->id) {
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY: *out = FV_BYTES; return true;
    case PM_TYPE_BOOLEAN: *out = FV_BOOL; return true;
    case PM_TYPE_TINYINT: *out = FV_I8; return true;
    case PM_TYPE_SMALLINT: *out = FV_I16; return true;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: *out = FV_I32; return true;
    case PM_TYPE_BIGINT:
    case PM_TYPE_DECIMAL:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: *out = FV_I64; return true;
    case PM_TYPE_FLOAT: *out = FV_F32; return true;
    case PM_TYPE_DOUBLE: *out = FV_F64; return true;
    default: return false;
    }
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

pm_error *fi_value_get(const pm_column *c, int64_t row, fv_kind k, fi_val *v)
{
    const pm_type *t = c->type;
    switch (k) {
    case FV_BYTES: v->p = pm_column_bytes(c, row, &v->n); return NULL;
    case FV_BOOL: v->b = pm_column_bool(c, row); return NULL;
    case FV_I8: v->i = pm_column_i8(c, row); return NULL;
    case FV_I16: v->i = pm_column_i16(c, row); return NULL;
    case FV_I32: v->i = pm_column_i32(c, row); return NULL;
    case FV_F32: v->f = pm_column_f32(c, row); return NULL;
    case FV_F64: v->d = pm_column_f64(c, row); return NULL;
    case FV_I64: break;
    }
    if (t->id == PM_TYPE_DECIMAL) {
        __int128 d = pm_column_decimal(c, row);
        if (d > INT64_MAX || d < INT64_MIN)
            return pm_error_new(PM_EUNSUPPORTED, "a DECIMAL(%d,%d) value whose unscaled value needs more than 64 "
                                "bits cannot be indexed", (int)t->precision, (int)t->scale);
        v->i = (int64_t)d;
        return NULL;
    }
    int64_t raw = pm_column_i64(c, row);
    if (t->id == PM_TYPE_TIMESTAMP || t->id == PM_TYPE_TIMESTAMP_LTZ)
        v->i = t->precision <= 6 ? raw : floor_div(raw, 1000); /* millis (p <= 3) or micros */
    else
        v->i = raw;
    return NULL;
}

int32_t fi_value_hash(fv_kind k, const fi_val *v)
{
    switch (k) {
    case FV_BYTES: return pm_hash_bytes(v->p, v->n);
    case FV_BOOL: return pm_java_bool_hash(v->b);
    case FV_I8:
    case FV_I16:
    case FV_I32: return (int32_t)v->i;
    case FV_I64: return pm_java_long_hash(v->i);
    case FV_F32: return pm_java_float_hash(v->f);
    case FV_F64: return pm_java_double_hash(v->d);
    }
    return 0;
}

bool fi_value_equal(fv_kind k, const fi_val *a, const fi_val *b)
{
    switch (k) {
    case FV_BYTES: return a->n == b->n && (!a->n || !memcmp(a->p, b->p, a->n));
    case FV_BOOL: return a->b == b->b;
    case FV_F32: return pm_java_float_bits(a->f) == pm_java_float_bits(b->f);
    case FV_F64: return pm_java_double_bits(a->d) == pm_java_double_bits(b->d);
    default: return a->i == b->i;
    }
}

int fi_value_compare(fv_kind k, const fi_val *a, const fi_val *b)
{
    switch (k) {
    case FV_BYTES: return pm_cmp_bytes(a->p, a->n, b->p, b->n);
    case FV_BOOL: return a->b == b->b ? 0 : a->b ? 1 : -1;
    case FV_F32: return pm_cmp_java_double(a->f, b->f);
    case FV_F64: return pm_cmp_java_double(a->d, b->d);
    default: return a->i == b->i ? 0 : a->i < b->i ? -1 : 1;
    }
}

size_t fi_value_size(fv_kind k, const fi_val *v)
{
    switch (k) {
    case FV_BYTES: return 4 + v->n;
    case FV_BOOL:
    case FV_I8: return 1;
    case FV_I16: return 2;
    case FV_I32:
    case FV_F32: return 4;
    default: return 8;
    }
}

pm_error *fi_value_put(pm_buf *out, fv_kind k, const fi_val *v)
{
    uint8_t b[8];
    switch (k) {
    case FV_BYTES:
        if (v->n > INT32_MAX)
            return pm_error_new(PM_EINVALID, "an indexed value of %zu bytes is too long", v->n);
        PM_TRY(pm_buf_append_u32be(out, (uint32_t)v->n));
        return v->n ? pm_buf_append(out, v->p, v->n) : NULL;
    case FV_BOOL: return pm_buf_append_byte(out, v->b ? 1 : 0);
    case FV_I8: return pm_buf_append_byte(out, (uint8_t)v->i);
    case FV_I16:
        b[0] = (uint8_t)(v->i >> 8);
        b[1] = (uint8_t)v->i;
        return pm_buf_append(out, b, 2);
    case FV_I32: return pm_buf_append_u32be(out, (uint32_t)v->i);
    case FV_F32: return pm_buf_append_u32be(out, pm_java_float_bits(v->f));
    case FV_F64: pm_store_u64be(b, pm_java_double_bits(v->d)); return pm_buf_append(out, b, 8);
    case FV_I64: pm_store_u64be(b, (uint64_t)v->i); return pm_buf_append(out, b, 8);
    }
    return NULL;
}

pm_error *fi_value_read(pm_cursor *c, fv_kind k, fi_val *v, const char *what)
{
    uint8_t u8;
    uint32_t u32;
    uint64_t u64;
    switch (k) {
    case FV_BYTES:
        PM_TRY(pm_cursor_u32be(c, &u32, what));
        if (u32 > INT32_MAX)
            return pm_error_new(PM_ECORRUPT, "%s: negative length", what);
        v->n = u32;
        return pm_cursor_take(c, u32, &v->p, what);
    case FV_BOOL:
        PM_TRY(pm_cursor_u8(c, &u8, what));
        v->b = u8 != 0;
        return NULL;
    case FV_I8:
        PM_TRY(pm_cursor_u8(c, &u8, what));
        v->i = (int8_t)u8;
        return NULL;
    case FV_I16: {
        const uint8_t *p;
        PM_TRY(pm_cursor_take(c, 2, &p, what));
        v->i = (int16_t)(uint16_t)(p[0] << 8 | p[1]);
        return NULL;
    }
    case FV_I32:
        PM_TRY(pm_cursor_u32be(c, &u32, what));
        v->i = (int32_t)u32;
        return NULL;
    case FV_F32:
        PM_TRY(pm_cursor_u32be(c, &u32, what));
        memcpy(&v->f, &u32, 4);
        return NULL;
    case FV_F64:
        PM_TRY(pm_cursor_u64be(c, &u64, what));
        memcpy(&v->d, &u64, 8);
        return NULL;
    case FV_I64:
        PM_TRY(pm_cursor_u64be(c, &u64, what));
        v->i = (int64_t)u64;
        return NULL;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* results and bitmaps                                                 */

void fi_result_clear(fi_result *r)
{
    if (r->rows)
        roaring_bitmap_free(r->rows);
    r->rows = NULL;
    r->kind = FI_REMAIN;
}

void fi_result_and(fi_result *r, fi_result *x)
{
    if (r->kind == FI_SKIP || x->kind == FI_REMAIN) {
        fi_result_clear(x);
        return;
    }
    if (x->kind == FI_SKIP || r->kind == FI_REMAIN) {
        fi_result_clear(r);
        *r = *x;
        x->rows = NULL;
        x->kind = FI_REMAIN;
        return;
    }
    roaring_bitmap_and_inplace(r->rows, x->rows);
    fi_result_clear(x);
}

pm_error *fi_bitmap_put(pm_buf *out, roaring_bitmap_t *bm) { return pm_roaring_java_put(out, bm); }

pm_error *fi_bitmap_read(pm_cursor *c, roaring_bitmap_t **out, const char *what)
{
    *out = NULL;
    size_t size;
    uint64_t card;
    PM_TRY(pm_error_wrap(pm_roaring_check(c->p, pm_cursor_left(c), &size, &card), 0, "%s", what));
    roaring_bitmap_t *bm = roaring_bitmap_portable_deserialize_safe((const char *)c->p, size);
    if (!bm)
        return pm_error_new(PM_ECORRUPT, "%s: unreadable roaring bitmap", what);
    c->p += size;
    *out = bm;
    return NULL;
}


/* ------------------------------------------------------------------ */
/* value map                                                           */

void fi_valmap_init(fi_valmap *m, fv_kind kind)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    pm_arena_init(&m->arena, 0);
}

void fi_valmap_free(fi_valmap *m)
{
    for (size_t i = 0; i < m->n; i++)
        roaring_bitmap_free(m->e[i].rows);
    free(m->e);
    free(m->slots);
    pm_arena_free(&m->arena);
    memset(m, 0, sizeof *m);
}

static uint64_t slot_hash(int32_t h)
{
    uint64_t x = (uint32_t)h * 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 29);
}

static pm_error *valmap_grow(fi_valmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint32_t *slots;
    PM_TRY(pm_calloc(&slots, cap, sizeof *slots));
    for (size_t i = 0; i < m->n; i++) {
        size_t j = slot_hash(m->e[i].hash) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)i + 1;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return NULL;
}

pm_error *fi_valmap_add(fi_valmap *m, const fi_val *v, uint32_t row)
{
    if ((m->n + 1) * 2 > m->cap)
        PM_TRY(valmap_grow(m));
    int32_t h = fi_value_hash(m->kind, v);
    size_t j = slot_hash(h) & (m->cap - 1);
    while (m->slots[j]) {
        fi_entry *en = &m->e[m->slots[j] - 1];
        if (en->hash == h && fi_value_equal(m->kind, &en->v, v)) {
            roaring_bitmap_add(en->rows, row);
            return NULL;
        }
        j = (j + 1) & (m->cap - 1);
    }
    if (m->n == m->ecap) {
        size_t c = m->ecap ? m->ecap * 2 : 64;
        PM_TRY(pm_realloc_array(&m->e, c, sizeof *m->e));
        m->ecap = c;
    }
    fi_entry *en = &m->e[m->n];
    en->v = *v;
    en->hash = h;
    if (m->kind == FV_BYTES && v->n) {
        uint8_t *copy = pm_arena_alloc(&m->arena, v->n, 1);
        if (!copy)
            return pm_oom();
        memcpy(copy, v->p, v->n);
        en->v.p = copy;
    }
    en->rows = roaring_bitmap_create();
    if (!en->rows)
        return pm_oom();
    roaring_bitmap_add(en->rows, row);
    m->slots[j] = (uint32_t)m->n + 1;
    m->n++;
    return NULL;
}

pm_error *fi_valmap_hash_order(const fi_valmap *m, size_t **order)
{
    int32_t *h;
    PM_TRY(pm_calloc(&h, m->n ? m->n : 1, sizeof *h));
    pm_error *e = pm_calloc(order, m->n ? m->n : 1, sizeof **order);
    for (size_t i = 0; !e && i < m->n; i++)
        h[i] = m->e[i].hash;
    if (!e)
        e = pm_java_hashmap_order(h, m->n, true, *order); /* computeIfAbsent */
    free(h);
    if (e) {
        free(*order);
        *order = NULL;
    }
    return e;
}

/* Merge sort of idx[0..n) by value (stable), tmp of n entries. */
static void sort_idx(const fi_valmap *m, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_idx(m, idx, tmp, h);
    sort_idx(m, idx + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = fi_value_compare(m->kind, &m->e[idx[j]].v, &m->e[idx[i]].v) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

pm_error *fi_valmap_sorted_order(const fi_valmap *m, size_t **order)
{
    size_t *tmp;
    PM_TRY(pm_calloc(order, m->n ? m->n : 1, sizeof **order));
    pm_error *e = pm_calloc(&tmp, m->n ? m->n : 1, sizeof *tmp);
    if (e) {
        free(*order);
        *order = NULL;
        return e;
    }
    for (size_t i = 0; i < m->n; i++)
        (*order)[i] = i;
    sort_idx(m, *order, tmp, m->n);
    free(tmp);
    return NULL;
}
