/*
 * types/column.c — the in-memory column (see column.h for the layout).
 *
 * Children per type:
 *   ARRAY     children[0] = elements (type = element type)
 *   MAP       children[0] = keys, children[1] = values
 *   MULTISET  children[0] = elements, children[1] = counts (INT NOT NULL):
 *             a multiset is stored exactly like MAP<element, INT NOT NULL>
 *   ROW       children[i] = field i
 * Offsets (var-width and ARRAY/MAP/MULTISET) hold length+1 int32 values
 * once a row was appended; a column with no rows may have none, and every
 * appender writes the leading 0 itself when it is missing.
 *
 * The validity bitmap is created lazily at the first null: until then it is
 * empty and every row is valid.  Once it exists, every append sets or
 * clears its row's bit.  BOOLEAN values are a bitmap too; both bitmaps are
 * grown with zero bytes and bits are always written explicitly, so reused
 * (reset) buffers never leak stale bits.
 *
 * Appenders check that the value kind matches the column type (an INT
 * column takes pm_column_append_i32, a TIMESTAMP column takes _i64 in its
 * precision's unit, ...) and return PM_EINVALID otherwise.  Var-width data
 * and child lengths are limited to INT32_MAX by the int32 offsets
 * (PM_EUNSUPPORTED beyond).
 */
#include "types/column.h"

#include <stdlib.h>

#include "base/mem.h"

int pm_type_value_width(const pm_type *t)
{
    switch (t->id) {
    case PM_TYPE_TINYINT:
        return 1;
    case PM_TYPE_SMALLINT:
        return 2;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_FLOAT:
        return 4;
    case PM_TYPE_BIGINT:
    case PM_TYPE_DOUBLE:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return 8;
    case PM_TYPE_DECIMAL:
        return 16;
    default:
        return 0;
    }
}

bool pm_type_is_varlen(const pm_type *t)
{
    switch (t->id) {
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB:
        return true;
    default:
        return false;
    }
}

int64_t pm_timestamp_units_per_second(int32_t precision)
{
    if (precision <= 3)
        return 1000;
    if (precision <= 6)
        return 1000000;
    return 1000000000;
}

static bool has_offsets(const pm_type *t)
{
    return pm_type_is_varlen(t) || t->id == PM_TYPE_ARRAY || t->id == PM_TYPE_MAP ||
           t->id == PM_TYPE_MULTISET;
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                            */

static void column_destroy(pm_column *c)
{
    for (size_t i = 0; i < c->nchildren; i++)
        pm_column_release(c->children[i]);
    free(c->children);
    pm_column_release(c->dictionary);
    pm_buf_free(&c->validity);
    pm_buf_free(&c->values);
    pm_buf_free(&c->offsets);
    pm_buf_free(&c->data);
    if (c->owner_release)
        c->owner_release(c->owner);
    pm_type_free(c->type);
    free(c);
}

/* Create a column that takes ownership of `type`. */
static pm_error *column_new_owned(pm_column **out, pm_type *type)
{
    *out = NULL;
    if (!type)
        return pm_oom();
    if (type->id == PM_TYPE_VARIANT) {
        pm_type_free(type);
        return pm_error_new(PM_EUNSUPPORTED, "VARIANT columns are not supported");
    }
    pm_column *c = calloc(1, sizeof *c);
    if (!c) {
        pm_type_free(type);
        return pm_oom();
    }
    c->type = type;
    atomic_init(&c->refs, 1);
    size_t n = 0;
    switch (type->id) {
    case PM_TYPE_ARRAY:
        n = 1;
        break;
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET:
        n = 2;
        break;
    case PM_TYPE_ROW:
        n = type->nfields;
        break;
    default:
        break;
    }
    pm_error *e = NULL;
    if (n) {
        e = pm_calloc(&c->children, n, sizeof *c->children);
        if (e)
            goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        pm_type *ct;
        switch (type->id) {
        case PM_TYPE_ARRAY:
            ct = pm_type_clone(type->element);
            break;
        case PM_TYPE_MAP:
            ct = pm_type_clone(i == 0 ? type->key : type->value);
            break;
        case PM_TYPE_MULTISET:
            ct = i == 0 ? pm_type_clone(type->element) : pm_type_new(PM_TYPE_INT, false);
            break;
        default:
            ct = pm_type_clone(type->fields[i].type);
            break;
        }
        e = column_new_owned(&c->children[i], ct);
        if (e) {
            if (type->id == PM_TYPE_ROW)
                e = pm_error_wrap(e, 0, "field '%s'", type->fields[i].name);
            goto fail;
        }
        c->nchildren = i + 1;
    }
    *out = c;
    return NULL;
fail:
    column_destroy(c);
    return e;
}

pm_error *pm_column_new(pm_column **out, const pm_type *type)
{
    if (!type) {
        *out = NULL;
        return pm_error_new(PM_EINVALID, "pm_column_new: type is NULL");
    }
    return column_new_owned(out, pm_type_clone(type));
}

pm_column *pm_column_retain(pm_column *c)
{
    if (c)
        atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
    return c;
}

void pm_column_release(pm_column *c)
{
    if (c && atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
        column_destroy(c);
}

void pm_column_reset(pm_column *c)
{
    c->length = 0;
    c->null_count = 0;
    pm_buf_clear(&c->validity);
    pm_buf_clear(&c->values);
    pm_buf_clear(&c->offsets);
    pm_buf_clear(&c->data);
    pm_column_release(c->dictionary);
    c->dictionary = NULL;
    for (size_t i = 0; i < c->nchildren; i++)
        pm_column_reset(c->children[i]);
}

pm_error *pm_column_reserve(pm_column *c, int64_t rows)
{
    if (rows <= 0)
        return NULL;
    size_t r = (size_t)rows;
    int w = pm_type_value_width(c->type);
    if (w)
        PM_TRY(pm_buf_reserve(&c->values, r * (size_t)w));
    else if (c->type->id == PM_TYPE_BOOLEAN)
        PM_TRY(pm_buf_reserve(&c->values, r / 8 + 1));
    if (has_offsets(c->type))
        PM_TRY(pm_buf_reserve(&c->offsets, (r + 1) * 4));
    if (c->type->id == PM_TYPE_ROW)
        for (size_t i = 0; i < c->nchildren; i++)
            PM_TRY(pm_column_reserve(c->children[i], rows));
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Validity                                                            */

static pm_error *mark_valid(pm_column *c)
{
    if (c->validity.len == 0)
        return NULL; /* no null yet: all valid */
    size_t byte = (size_t)(c->length >> 3);
    if (c->validity.len <= byte)
        PM_TRY(pm_buf_resize(&c->validity, byte + 1));
    c->validity.data[byte] |= (uint8_t)(1u << (c->length & 7));
    return NULL;
}

static pm_error *mark_null(pm_column *c)
{
    size_t byte = (size_t)(c->length >> 3);
    if (c->validity.len == 0) {
        PM_TRY(pm_buf_resize(&c->validity, byte + 1));
        memset(c->validity.data, 0xff, byte);
        c->validity.data[byte] = (uint8_t)((1u << (c->length & 7)) - 1);
    } else if (c->validity.len <= byte) {
        PM_TRY(pm_buf_resize(&c->validity, byte + 1));
    }
    c->validity.data[byte] &= (uint8_t)~(1u << (c->length & 7));
    c->null_count++;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Appenders                                                           */

static pm_error *wrong_kind(const pm_column *c, const char *fn)
{
    return pm_error_new(PM_EINVALID, "%s does not fit a %s column", fn, pm_type_id_name(c->type->id));
}

static pm_error *push_offset(pm_column *c, int64_t end)
{
    if (end > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "%s column holds more than 2147483647 %s (int32 offsets)",
                            pm_type_id_name(c->type->id),
                            pm_type_is_varlen(c->type) ? "bytes" : "elements");
    if (c->offsets.len == 0)
        PM_TRY(pm_buf_append_u32le(&c->offsets, 0));
    int32_t v = (int32_t)end;
    return pm_buf_append(&c->offsets, &v, 4);
}

static int32_t last_offset(const pm_column *c)
{
    if (c->offsets.len < 4)
        return 0;
    int32_t v;
    memcpy(&v, c->offsets.data + c->offsets.len - 4, 4);
    return v;
}

static pm_error *append_fixed(pm_column *c, const void *v, size_t w)
{
    PM_TRY(pm_buf_reserve(&c->values, w));
    PM_TRY(mark_valid(c));
    pm_buf_put(&c->values, v, w);
    c->length++;
    return NULL;
}

static pm_error *set_bool_value(pm_column *c, bool v)
{
    size_t byte = (size_t)(c->length >> 3);
    if (c->values.len <= byte)
        PM_TRY(pm_buf_resize(&c->values, byte + 1));
    uint8_t mask = (uint8_t)(1u << (c->length & 7));
    if (v)
        c->values.data[byte] |= mask;
    else
        c->values.data[byte] &= (uint8_t)~mask;
    return NULL;
}

pm_error *pm_column_append_null(pm_column *c)
{
    const pm_type *t = c->type;
    int w = pm_type_value_width(t);
    if (w) {
        PM_TRY(pm_buf_append_zeros(&c->values, (size_t)w));
    } else if (t->id == PM_TYPE_BOOLEAN) {
        PM_TRY(set_bool_value(c, false));
    } else if (has_offsets(t)) {
        PM_TRY(push_offset(c, last_offset(c)));
    } else if (t->id == PM_TYPE_ROW) {
        for (size_t i = 0; i < c->nchildren; i++) {
            if (c->children[i]->length != c->length)
                return pm_error_new(PM_EINVALID, "ROW field '%s' has %lld rows, expected %lld before a null row",
                                    t->fields[i].name, (long long)c->children[i]->length,
                                    (long long)c->length);
            PM_TRY(pm_column_append_null(c->children[i]));
        }
    }
    PM_TRY(mark_null(c));
    c->length++;
    return NULL;
}

pm_error *pm_column_append_bool(pm_column *c, bool v)
{
    if (c->type->id != PM_TYPE_BOOLEAN)
        return wrong_kind(c, "append_bool");
    PM_TRY(set_bool_value(c, v));
    PM_TRY(mark_valid(c));
    c->length++;
    return NULL;
}

pm_error *pm_column_append_i8(pm_column *c, int8_t v)
{
    if (c->type->id != PM_TYPE_TINYINT)
        return wrong_kind(c, "append_i8");
    return append_fixed(c, &v, 1);
}

pm_error *pm_column_append_i16(pm_column *c, int16_t v)
{
    if (c->type->id != PM_TYPE_SMALLINT)
        return wrong_kind(c, "append_i16");
    return append_fixed(c, &v, 2);
}

pm_error *pm_column_append_i32(pm_column *c, int32_t v)
{
    pm_type_id id = c->type->id;
    if (id != PM_TYPE_INT && id != PM_TYPE_DATE && id != PM_TYPE_TIME)
        return wrong_kind(c, "append_i32");
    return append_fixed(c, &v, 4);
}

pm_error *pm_column_append_i64(pm_column *c, int64_t v)
{
    pm_type_id id = c->type->id;
    if (id != PM_TYPE_BIGINT && id != PM_TYPE_TIMESTAMP && id != PM_TYPE_TIMESTAMP_LTZ)
        return wrong_kind(c, "append_i64");
    return append_fixed(c, &v, 8);
}

pm_error *pm_column_append_f32(pm_column *c, float v)
{
    if (c->type->id != PM_TYPE_FLOAT)
        return wrong_kind(c, "append_f32");
    return append_fixed(c, &v, 4);
}

pm_error *pm_column_append_f64(pm_column *c, double v)
{
    if (c->type->id != PM_TYPE_DOUBLE)
        return wrong_kind(c, "append_f64");
    return append_fixed(c, &v, 8);
}

pm_error *pm_column_append_decimal(pm_column *c, __int128 unscaled)
{
    if (c->type->id != PM_TYPE_DECIMAL)
        return wrong_kind(c, "append_decimal");
    return append_fixed(c, &unscaled, 16);
}

pm_error *pm_column_append_bytes(pm_column *c, const void *p, size_t n)
{
    if (!pm_type_is_varlen(c->type))
        return wrong_kind(c, "append_bytes");
    int64_t end = (int64_t)c->data.len + (int64_t)n;
    if (n > INT32_MAX || end > INT32_MAX)
        return push_offset(c, (int64_t)INT32_MAX + 1); /* reports the limit */
    PM_TRY(pm_buf_reserve(&c->offsets, c->offsets.len ? 4 : 8));
    /* reserve even for empty values: readers form data.data + offset */
    PM_TRY(pm_buf_reserve(&c->data, n ? n : 1));
    PM_TRY(pm_buf_append(&c->data, p, n));
    PM_TRY(push_offset(c, end));
    PM_TRY(mark_valid(c));
    c->length++;
    return NULL;
}

pm_error *pm_column_end_nested(pm_column *c)
{
    const pm_type *t = c->type;
    switch (t->id) {
    case PM_TYPE_ARRAY:
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        int64_t end = c->children[0]->length;
        if (c->nchildren == 2 && c->children[1]->length != end)
            return pm_error_new(PM_EINVALID, "%s entry has %lld keys but %lld values",
                                pm_type_id_name(t->id), (long long)end,
                                (long long)c->children[1]->length);
        if (end < last_offset(c))
            return pm_error_new(PM_EINVALID, "%s child shrank below the previous offset",
                                pm_type_id_name(t->id));
        PM_TRY(pm_buf_reserve(&c->offsets, c->offsets.len ? 4 : 8));
        PM_TRY(push_offset(c, end));
        break;
    }
    case PM_TYPE_ROW:
        for (size_t i = 0; i < c->nchildren; i++)
            if (c->children[i]->length != c->length + 1)
                return pm_error_new(PM_EINVALID, "ROW field '%s' has %lld rows, expected %lld",
                                    t->fields[i].name, (long long)c->children[i]->length,
                                    (long long)(c->length + 1));
        break;
    default:
        return wrong_kind(c, "end_nested");
    }
    PM_TRY(mark_valid(c));
    c->length++;
    return NULL;
}

pm_error *pm_column_append_from(pm_column *dst, const pm_column *src, int64_t row)
{
    const pm_type *t = dst->type;
    if (t->id != src->type->id || dst->nchildren != src->nchildren)
        return pm_error_new(PM_EINVALID, "append_from: %s row into a %s column",
                            pm_type_id_name(src->type->id), pm_type_id_name(t->id));
    if (row < 0 || row >= src->length)
        return pm_error_new(PM_EINVALID, "append_from: row %lld out of range (length %lld)",
                            (long long)row, (long long)src->length);
    if (pm_column_is_null(src, row))
        return pm_column_append_null(dst);
    int w = pm_type_value_width(t);
    if (w)
        return append_fixed(dst, src->values.data + (size_t)row * (size_t)w, (size_t)w);
    if (t->id == PM_TYPE_BOOLEAN)
        return pm_column_append_bool(dst, pm_column_bool(src, row));
    if (pm_type_is_varlen(t)) {
        size_t n;
        const uint8_t *p = pm_column_bytes(src, row, &n);
        return pm_column_append_bytes(dst, p, n);
    }
    if (t->id == PM_TYPE_ROW) {
        for (size_t i = 0; i < dst->nchildren; i++)
            PM_TRY(pm_column_append_from(dst->children[i], src->children[i], row));
        return pm_column_end_nested(dst);
    }
    /* ARRAY / MAP / MULTISET */
    const int32_t *o = pm_column_offsets(src);
    for (int32_t j = o[row]; j < o[row + 1]; j++)
        for (size_t k = 0; k < dst->nchildren; k++)
            PM_TRY(pm_column_append_from(dst->children[k], src->children[k], j));
    return pm_column_end_nested(dst);
}

/* ---- bulk appends of row runs (pm_column_append_runs, column.h) ----
 * Bitmaps (validity, BOOLEAN values): bit i is bit (i & 7) of byte i >> 3. */

static inline void bit_put(uint8_t *d, int64_t k, unsigned v)
{
    uint8_t m = (uint8_t)(1u << (k & 7));
    d[k >> 3] = (uint8_t)((d[k >> 3] & ~m) | (v ? m : 0));
}

/* Bits [spos, spos + n) of s to bits [dpos, dpos + n) of d: single bits up
 * to a byte boundary of d, then whole bytes (shifted when s is not
 * aligned alike), then single bits. */
static void bits_copy(uint8_t *d, int64_t dpos, const uint8_t *s, int64_t spos, int64_t n)
{
    for (; n > 0 && (dpos & 7); n--, dpos++, spos++)
        bit_put(d, dpos, (s[spos >> 3] >> (spos & 7)) & 1);
    int64_t bytes = n >> 3;
    uint8_t *o = d + (dpos >> 3);
    const uint8_t *p = s + (spos >> 3);
    unsigned sh = (unsigned)(spos & 7);
    if (sh == 0) {
        if (bytes)
            memcpy(o, p, (size_t)bytes);
    } else {
        /* byte i takes bits of p[i] and p[i + 1], both inside the source range */
        for (int64_t i = 0; i < bytes; i++)
            o[i] = (uint8_t)((p[i] >> sh) | (p[i + 1] << (8 - sh)));
    }
    dpos += bytes * 8;
    spos += bytes * 8;
    for (n &= 7; n > 0; n--, dpos++, spos++)
        bit_put(d, dpos, (s[spos >> 3] >> (spos & 7)) & 1);
}

/* Bits [dpos, dpos + n) of d set. */
static void bits_set(uint8_t *d, int64_t dpos, int64_t n)
{
    for (; n > 0 && (dpos & 7); n--, dpos++)
        d[dpos >> 3] |= (uint8_t)(1u << (dpos & 7));
    if (n >= 8)
        memset(d + (dpos >> 3), 0xff, (size_t)(n >> 3));
    dpos += n & ~(int64_t)7;
    for (n &= 7; n > 0; n--, dpos++)
        d[dpos >> 3] |= (uint8_t)(1u << (dpos & 7));
}

/* Clear bits among [pos, pos + n) of s. */
static int64_t bits_count_zero(const uint8_t *s, int64_t pos, int64_t n)
{
    int64_t ones = 0, total = n;
    for (; n > 0 && (pos & 7); n--, pos++)
        ones += (s[pos >> 3] >> (pos & 7)) & 1;
    const uint8_t *p = s + (pos >> 3);
    int64_t bytes = n >> 3, i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        ones += __builtin_popcountll(w);
    }
    for (; i < bytes; i++)
        ones += __builtin_popcount(p[i]);
    pos += bytes * 8;
    for (n &= 7; n > 0; n--, pos++)
        ones += (s[pos >> 3] >> (pos & 7)) & 1;
    return total - ones;
}

/* Grow bitmap b to cover `bits` bits, new bytes set to `fill`. */
static pm_error *bitmap_cover(pm_buf *b, int64_t bits, uint8_t fill)
{
    size_t need = (size_t)((bits + 7) / 8), old = b->len;
    if (old >= need)
        return NULL;
    PM_TRY(pm_buf_resize(b, need));
    memset(b->data + old, fill, need - old);
    return NULL;
}

/* pm_column_append_runs (column.h): per buffer one pass over the runs —
 * validity (only when a copied row is null or dst has a bitmap already),
 * then fixed-width values (one memcpy per run), BOOLEAN bits, or
 * variable-width offsets (rebased per run) and bytes (one memcpy per run).
 * Nested types and dictionary-encoded sources go row by row. */
pm_error *pm_column_append_runs(pm_column *dst, const pm_column *const *srcs, const pm_column_run *runs,
                                size_t nruns)
{
    const pm_type *t = dst->type;
    int w = pm_type_value_width(t);
    bool var = pm_type_is_varlen(t);
    int64_t n = 0, nulls = 0;
    bool dict = false;
    for (size_t r = 0; r < nruns; r++) {
        const pm_column *src = srcs[runs[r].src];
        n += runs[r].n;
        dict |= src->dictionary != NULL;
        if (src->null_count)
            nulls += bits_count_zero(src->validity.data, runs[r].row, runs[r].n);
    }
    if (n <= 0)
        return NULL;
    if (dict || (!w && !var && t->id != PM_TYPE_BOOLEAN)) {
        for (size_t r = 0; r < nruns; r++)
            for (int64_t i = 0; i < runs[r].n; i++)
                PM_TRY(pm_column_append_from(dst, srcs[runs[r].src], runs[r].row + i));
        return NULL;
    }
    int64_t len0 = dst->length;
    if (nulls || dst->validity.len) {
        bool fresh = dst->validity.len == 0;
        PM_TRY(bitmap_cover(&dst->validity, len0 + n, 0));
        if (fresh)
            memset(dst->validity.data, 0xff, dst->validity.len);
        int64_t k = len0;
        for (size_t r = 0; r < nruns; r++) {
            const pm_column *src = srcs[runs[r].src];
            if (src->null_count)
                bits_copy(dst->validity.data, k, src->validity.data, runs[r].row, runs[r].n);
            else
                bits_set(dst->validity.data, k, runs[r].n);
            k += runs[r].n;
        }
        dst->null_count += nulls;
    }
    if (w) {
        size_t sw = (size_t)w;
        PM_TRY(pm_buf_reserve(&dst->values, (size_t)n * sw));
        for (size_t r = 0; r < nruns; r++)
            pm_buf_put(&dst->values, srcs[runs[r].src]->values.data + (size_t)runs[r].row * sw,
                       (size_t)runs[r].n * sw);
    } else if (t->id == PM_TYPE_BOOLEAN) {
        PM_TRY(bitmap_cover(&dst->values, len0 + n, 0));
        int64_t k = len0;
        for (size_t r = 0; r < nruns; r++) {
            bits_copy(dst->values.data, k, srcs[runs[r].src]->values.data, runs[r].row, runs[r].n);
            k += runs[r].n;
        }
    } else {
        int32_t last = 0;
        if (dst->offsets.len >= 4)
            memcpy(&last, dst->offsets.data + dst->offsets.len - 4, 4);
        int64_t bytes = 0;
        for (size_t r = 0; r < nruns; r++) {
            const int32_t *so = pm_column_offsets(srcs[runs[r].src]);
            bytes += (int64_t)so[runs[r].row + runs[r].n] - so[runs[r].row];
        }
        if ((int64_t)last + bytes > INT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "column of more than 2147483647 bytes (int32 offsets)");
        PM_TRY(pm_buf_reserve(&dst->offsets, (size_t)(n + 1) * 4));
        PM_TRY(pm_buf_reserve(&dst->data, (size_t)(bytes ? bytes : 1)));
        if (dst->offsets.len == 0) {
            int32_t z = 0;
            pm_buf_put(&dst->offsets, &z, 4);
        }
        int32_t pos = last;
        for (size_t r = 0; r < nruns; r++) {
            const pm_column *src = srcs[runs[r].src];
            const int32_t *so = pm_column_offsets(src) + runs[r].row;
            int64_t rn = runs[r].n;
            int32_t a = so[0], len = so[rn] - a;
            if (len)
                pm_buf_put(&dst->data, src->data.data + a, (size_t)len);
            int32_t *o = (int32_t *)(void *)(dst->offsets.data + dst->offsets.len);
            int32_t base = pos - a;
            for (int64_t i = 0; i < rn; i++)
                o[i] = so[i + 1] + base;
            dst->offsets.len += (size_t)rn * 4;
            pos += len;
        }
    }
    dst->length += n;
    return NULL;
}

/* pm_column_append_gather (column.h): the cells grouped into runs of
 * consecutive rows of one source, appended in chunks of runs. */
pm_error *pm_column_append_gather(pm_column *dst, const pm_column *const *srcs, const uint16_t *which,
                                  const int64_t *rows, int64_t n)
{
    enum { CHUNK = 256 };
    pm_column_run runs[CHUNK];
    size_t nr = 0;
    for (int64_t i = 0; i < n; i++) {
        if (nr && runs[nr - 1].src == which[i] && runs[nr - 1].row + runs[nr - 1].n == rows[i] &&
            runs[nr - 1].n < UINT32_MAX) {
            runs[nr - 1].n++;
            continue;
        }
        if (nr == CHUNK) {
            PM_TRY(pm_column_append_runs(dst, srcs, runs, nr));
            nr = 0;
        }
        runs[nr++] = (pm_column_run){rows[i], 1, which[i]};
    }
    return nr ? pm_column_append_runs(dst, srcs, runs, nr) : NULL;
}

pm_error *pm_column_decode(pm_column **out, pm_column *c)
{
    *out = NULL;
    if (!c->dictionary) {
        *out = pm_column_retain(c);
        return NULL;
    }
    pm_column *d;
    PM_TRY(pm_column_new(&d, c->type));
    pm_error *e = pm_column_reserve(d, c->length);
    for (int64_t i = 0; !e && i < c->length; i++)
        e = pm_column_append_from(d, c, i);
    if (e) {
        pm_column_release(d);
        return e;
    }
    *out = d;
    return NULL;
}

/* Bits [0, n) of two bitmaps are equal. */
static bool bits_equal(const uint8_t *a, const uint8_t *b, int64_t n)
{
    size_t full = (size_t)(n >> 3);
    if (full && memcmp(a, b, full))
        return false;
    unsigned rest = (unsigned)(n & 7);
    return !rest || !((a[full] ^ b[full]) & ((1u << rest) - 1));
}

bool pm_column_same_values(const pm_column *a, const pm_column *b, int64_t n)
{
    if (a == b)
        return true;
    if (n < 0 || a->length < n || b->length < n || a->dictionary || b->dictionary ||
        !pm_type_equals_ignore_nullable(a->type, b->type))
        return false;
    if (n == 0)
        return true;
    if ((a->null_count != 0) != (b->null_count != 0))
        return false;
    if (a->null_count && !bits_equal(a->validity.data, b->validity.data, n))
        return false;
    if (a->type->id == PM_TYPE_BOOLEAN)
        return bits_equal(a->values.data, b->values.data, n);
    int w = pm_type_value_width(a->type);
    if (w > 0)
        return !memcmp(a->values.data, b->values.data, (size_t)n * (size_t)w);
    if (!pm_type_is_varlen(a->type))
        return false;
    const int32_t *ao = (const int32_t *)(const void *)a->offsets.data;
    const int32_t *bo = (const int32_t *)(const void *)b->offsets.data;
    if (memcmp(ao, bo, (size_t)(n + 1) * sizeof *ao))
        return false;
    return !memcmp(a->data.data + ao[0], b->data.data + bo[0], (size_t)(ao[n] - ao[0]));
}
