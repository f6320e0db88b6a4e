/*
 * index/fi_bsi.c — the bit-sliced index (BitSliceIndexBitmapFileIndex over
 * BitSliceIndexRoaringBitmap; integers big-endian).
 *
 * Values as longs: TINYINT..BIGINT, DATE, TIME as themselves, DECIMAL its
 * unscaled value (must fit 64 bits), TIMESTAMP(_LTZ) millis (p <= 3) or
 * micros.  Negative values go to a second BSI of their absolute values.
 * Layout: version u8 1 | row count i32 | has positive u8 | [BSI] | has
 * negative u8 | [BSI];  BSI: version u8 1 | min i64 | max i64 | existence
 * bitmap | slice count i32 | slices (run-optimized Roaring bitmaps; slice
 * i holds the rows whose value - min has bit i set).
 * As Java's writer does, min starts at 0 and max at 0 and both only move
 * by min()/max() with the values, so min is always 0 and the slice count
 * is the bit length of max.  Long.MIN_VALUE has no absolute value: an
 * error, as in Java.
 * Reading `= v`: the BSI of v's sign, v's absolute value: outside [min,
 * max] → no rows; min = max = v → the existence bitmap; else O'Neil's
 * comparison over the slices.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "index/fi_internal.h"

typedef struct bsi_w {
    fv_kind kind;
    int64_t *vals;
    uint8_t *nulls;
    size_t n, cap;
} bsi_w;

static pm_error *bsi_check(const pm_type *t, const pm_fi_spec *sp)
{
    (void)sp;
    switch (t->id) {
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_DECIMAL:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: return NULL;
    default: return pm_error_new(PM_EUNSUPPORTED, "type %s is not supported by the bsi index",
                                 pm_type_id_name(t->id));
    }
}

static void bsi_free(void *st)
{
    bsi_w *b = st;
    if (!b)
        return;
    free(b->vals);
    free(b->nulls);
    free(b);
}

static pm_error *bsi_new(void **out, const pm_type *t, const pm_fi_spec *sp)
{
    *out = NULL;
    PM_TRY(bsi_check(t, sp));
    bsi_w *b;
    PM_TRY(pm_calloc(&b, 1, sizeof *b));
    fi_value_kind(t, &b->kind);
    *out = b;
    return NULL;
}

static pm_error *bsi_add(void *st, const pm_column *c, int64_t from, int64_t to)
{
    bsi_w *b = st;
    size_t need = b->n + (size_t)(to - from);
    if (need > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "a bsi index holds at most 2^31 - 1 rows");
    if (need > b->cap) {
        size_t cap = pm_grow_cap(b->cap, need);
        PM_TRY(pm_realloc_array(&b->vals, cap, sizeof *b->vals));
        PM_TRY(pm_realloc_array(&b->nulls, cap, 1));
        b->cap = cap;
    }
    for (int64_t r = from; r < to; r++, b->n++) {
        b->nulls[b->n] = pm_column_is_null(c, r);
        b->vals[b->n] = 0;
        if (b->nulls[b->n])
            continue;
        fi_val v;
        PM_TRY(fi_value_get(c, r, b->kind, &v));
        if (v.i == INT64_MIN)
            return pm_error_new(PM_EUNSUPPORTED, "the bsi index cannot hold %lld (no absolute value)",
                                (long long)v.i);
        b->vals[b->n] = v.i;
    }
    return NULL;
}

static int bit_length(uint64_t v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* One BSI (Appender) over the rows whose sign is `negative`. */
static pm_error *put_bsi(pm_buf *out, const bsi_w *b, bool negative, int64_t min, int64_t max, bool *any)
{
    int nslices = bit_length((uint64_t)(max - min));
    roaring_bitmap_t *ebm = roaring_bitmap_create();
    roaring_bitmap_t *slices[64] = {0};
    pm_error *e = ebm ? NULL : pm_oom();
    for (int i = 0; !e && i < nslices; i++)
        if (!(slices[i] = roaring_bitmap_create()))
            e = pm_oom();
    for (size_t r = 0; !e && r < b->n; r++) {
        if (b->nulls[r] || (b->vals[r] < 0) != negative)
            continue;
        uint64_t v = (uint64_t)(negative ? -b->vals[r] : b->vals[r]) - (uint64_t)min;
        while (v) {
            int bit = __builtin_ctzll(v);
            roaring_bitmap_add(slices[bit], (uint32_t)r);
            v &= v - 1;
        }
        roaring_bitmap_add(ebm, (uint32_t)r);
    }
    *any = !e && !roaring_bitmap_is_empty(ebm);
    if (!e && *any) {
        uint8_t b8[8];
        e = pm_buf_append_byte(out, 1);
        pm_store_u64be(b8, (uint64_t)min);
        if (!e)
            e = pm_buf_append(out, b8, 8);
        pm_store_u64be(b8, (uint64_t)max);
        if (!e)
            e = pm_buf_append(out, b8, 8);
        if (!e)
            e = fi_bitmap_put(out, ebm);
        if (!e)
            e = pm_buf_append_u32be(out, (uint32_t)nslices);
        for (int i = 0; !e && i < nslices; i++)
            e = fi_bitmap_put(out, slices[i]);
    }
    if (ebm)
        roaring_bitmap_free(ebm);
    for (int i = 0; i < nslices; i++)
        if (slices[i])
            roaring_bitmap_free(slices[i]);
    return e;
}

static pm_error *bsi_finish(void *st, pm_buf *out)
{
    bsi_w *b = st;
    int64_t pmin = 0, pmax = 0, nmin = 0, nmax = 0; /* Java's collector starts at 0 */
    for (size_t r = 0; r < b->n; r++) {
        if (b->nulls[r])
            continue;
        int64_t v = b->vals[r];
        if (v < 0) {
            int64_t a = -v;
            nmin = a < nmin ? a : nmin;
            nmax = a > nmax ? a : nmax;
        } else {
            pmin = v < pmin ? v : pmin;
            pmax = v > pmax ? v : pmax;
        }
    }
    PM_TRY(pm_buf_append_byte(out, 1));
    PM_TRY(pm_buf_append_u32be(out, (uint32_t)b->n));
    /* has-flag then the BSI: write the BSI after a placeholder flag */
    for (int neg = 0; neg < 2; neg++) {
        size_t flag = out->len;
        PM_TRY(pm_buf_append_byte(out, 0));
        bool any = false;
        PM_TRY(put_bsi(out, b, neg, neg ? nmin : pmin, neg ? nmax : pmax, &any));
        out->data[flag] = any;
    }
    return NULL;
}

/* ---- reading ---- */

typedef struct bsi_r {
    bool present;
    int64_t min, max;
    roaring_bitmap_t *ebm;
    roaring_bitmap_t *slices[64];
    uint32_t nslices;
} bsi_r;

static void bsi_r_clear(bsi_r *r)
{
    if (r->ebm)
        roaring_bitmap_free(r->ebm);
    for (uint32_t i = 0; i < r->nslices; i++)
        if (r->slices[i])
            roaring_bitmap_free(r->slices[i]);
    memset(r, 0, sizeof *r);
}

static pm_error *read_bsi(pm_cursor *c, bsi_r *r)
{
    memset(r, 0, sizeof *r);
    uint8_t has, version;
    PM_TRY(pm_cursor_u8(c, &has, "bsi presence"));
    if (!has)
        return NULL;
    r->present = true;
    uint64_t u;
    PM_TRY(pm_cursor_u8(c, &version, "bsi version"));
    if (version != 1)
        return pm_error_new(PM_EUNSUPPORTED, "bsi version %u", version);
    PM_TRY(pm_cursor_u64be(c, &u, "bsi min"));
    r->min = (int64_t)u;
    PM_TRY(pm_cursor_u64be(c, &u, "bsi max"));
    r->max = (int64_t)u;
    if (r->min < 0 || r->min > r->max)
        return pm_error_new(PM_ECORRUPT, "bsi range [%lld, %lld]", (long long)r->min, (long long)r->max);
    PM_TRY(fi_bitmap_read(c, &r->ebm, "bsi existence bitmap"));
    uint32_t n;
    PM_TRY(pm_cursor_u32be(c, &n, "bsi slice count"));
    if (n > 64)
        return pm_error_new(PM_ECORRUPT, "bsi with %u slices", n);
    for (uint32_t i = 0; i < n; i++) {
        PM_TRY(fi_bitmap_read(c, &r->slices[i], "bsi slice"));
        r->nslices = i + 1;
    }
    return NULL;
}

/* Rows equal to v (>= 0) in r: a new bitmap. */
static roaring_bitmap_t *bsi_eq(const bsi_r *r, int64_t v)
{
    if (!r->present || v < r->min || v > r->max)
        return roaring_bitmap_create();
    if (r->min == r->max)
        return roaring_bitmap_copy(r->ebm);
    uint64_t pred = (uint64_t)(v - r->min);
    roaring_bitmap_t *eq = roaring_bitmap_copy(r->ebm);
    if (!eq)
        return NULL;
    for (int i = (int)r->nslices - 1; i >= 0; i--) {
        if ((pred >> i) & 1)
            roaring_bitmap_and_inplace(eq, r->slices[i]);
        else
            roaring_bitmap_andnot_inplace(eq, r->slices[i]);
    }
    return eq;
}

static pm_error *bsi_test(const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits, fi_result *out)
{
    out->kind = FI_REMAIN;
    fv_kind k;
    if (bsi_check(t, NULL) || !fi_value_kind(t, &k))
        return NULL;
    for (int64_t r = 0; r < lits->length; r++)
        if (pm_column_is_null(lits, r))
            return NULL;
    pm_cursor c = pm_cursor_make(p, n);
    uint8_t version;
    uint32_t rows;
    PM_TRY(pm_cursor_u8(&c, &version, "bsi index version"));
    if (version != 1)
        return pm_error_new(PM_EUNSUPPORTED, "bsi index version %u", version);
    PM_TRY(pm_cursor_u32be(&c, &rows, "bsi index row count"));
    bsi_r pos, neg;
    memset(&neg, 0, sizeof neg);
    pm_error *e = read_bsi(&c, &pos);
    if (!e)
        e = read_bsi(&c, &neg);
    roaring_bitmap_t *acc = e ? NULL : roaring_bitmap_create();
    if (!e && !acc)
        e = pm_oom();
    for (int64_t r = 0; !e && r < lits->length; r++) {
        fi_val v;
        pm_error *ve = fi_value_get(lits, r, k, &v);
        if (ve || v.i == INT64_MIN) {
            pm_error_free(ve); /* not representable: cannot exclude */
            roaring_bitmap_free(acc);
            acc = NULL;
            break;
        }
        roaring_bitmap_t *eq = v.i < 0 ? bsi_eq(&neg, -v.i) : bsi_eq(&pos, v.i);
        if (!eq) {
            e = pm_oom();
            break;
        }
        roaring_bitmap_or_inplace(acc, eq);
        roaring_bitmap_free(eq);
    }
    bsi_r_clear(&pos);
    bsi_r_clear(&neg);
    if (e) {
        if (acc)
            roaring_bitmap_free(acc);
        return e;
    }
    if (acc) {
        out->kind = FI_ROWS;
        out->rows = acc;
    }
    return NULL;
}

const fi_ops pm_fi_bsi_ops = {"bsi", bsi_check, bsi_new, bsi_add, bsi_finish, bsi_free, bsi_test};
