/*
 * format/avro/avro_binary.c — Avro binary value decoding, skipping and
 * encoding (layout in avro_binary.h).
 */
#include "format/avro/avro_binary.h"

pm_error *pm_avro_read_long_slow(pm_cursor *c, int64_t *out)
{
    return pm_cursor_svarint(c, out, "avro long");
}

pm_error *pm_avro_read_int(pm_cursor *c, int32_t *out)
{
    int64_t v = 0;
    PM_TRY(pm_avro_read_long(c, &v));
    if (v < INT32_MIN || v > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "avro int out of range: %lld", (long long)v);
    *out = (int32_t)v;
    return NULL;
}

pm_error *pm_avro_read_bool(pm_cursor *c, bool *out)
{
    uint8_t b;
    PM_TRY(pm_cursor_u8(c, &b, "avro boolean"));
    if (b > 1)
        return pm_error_new(PM_ECORRUPT, "avro boolean byte %u is neither 0 nor 1", b);
    *out = b;
    return NULL;
}

pm_error *pm_avro_read_float(pm_cursor *c, float *out)
{
    uint32_t u;
    PM_TRY(pm_cursor_u32le(c, &u, "avro float"));
    memcpy(out, &u, 4);
    return NULL;
}

pm_error *pm_avro_read_double(pm_cursor *c, double *out)
{
    uint64_t u = 0;
    PM_TRY(pm_cursor_u64le(c, &u, "avro double"));
    memcpy(out, &u, 8);
    return NULL;
}

pm_error *pm_avro_read_bytes(pm_cursor *c, const uint8_t **p, size_t *n)
{
    int64_t len = 0;
    PM_TRY(pm_avro_read_long(c, &len));
    if (len < 0)
        return pm_error_new(PM_ECORRUPT, "negative avro bytes length %lld", (long long)len);
    if ((uint64_t)len > pm_cursor_left(c))
        return pm_cursor_short(c, (size_t)len, "avro bytes");
    *p = c->p;
    *n = (size_t)len;
    c->p += len;
    return NULL;
}

pm_error *pm_avro_read_branch(pm_cursor *c, const pm_avro_node *u, size_t *branch)
{
    int64_t b = 0;
    PM_TRY(pm_avro_read_long(c, &b));
    if (b < 0 || (uint64_t)b >= u->n)
        return pm_error_new(PM_ECORRUPT, "avro union branch %lld out of range (%zu branches)",
                            (long long)b, u->n);
    *branch = (size_t)b;
    return NULL;
}

pm_error *pm_avro_read_block_count(pm_cursor *c, size_t item_min, int64_t *count)
{
    int64_t n = 0;
    PM_TRY(pm_avro_read_long(c, &n));
    if (n < 0) {
        if (n == INT64_MIN)
            return pm_error_new(PM_ECORRUPT, "avro block count overflows");
        n = -n;
        int64_t bytes = 0;
        PM_TRY(pm_avro_read_long(c, &bytes));
        if (bytes < 0 || (uint64_t)bytes > pm_cursor_left(c))
            return pm_error_new(PM_ECORRUPT, "avro block byte size %lld out of range",
                                (long long)bytes);
    }
    if (item_min > 0 ? (uint64_t)n > pm_cursor_left(c) / item_min
                     : n > PM_AVRO_MAX_EMPTY_ITEMS)
        return pm_error_new(PM_ECORRUPT, "avro block claims %lld items, more than its bytes hold",
                            (long long)n);
    *count = n;
    return NULL;
}

pm_error *pm_avro_skip(pm_cursor *c, const pm_avro_node *n, int depth)
{
    if (depth > PM_AVRO_MAX_VALUE_DEPTH)
        return pm_error_new(PM_ECORRUPT, "avro value nested deeper than %d levels",
                            PM_AVRO_MAX_VALUE_DEPTH);
    int64_t v = 0;
    const uint8_t *p = NULL;
    size_t len = 0;
    switch (n->kind) {
    case PM_AVRO_NULL: return NULL;
    case PM_AVRO_BOOLEAN: return pm_cursor_skip(c, 1, "avro boolean");
    case PM_AVRO_INT:
    case PM_AVRO_LONG:
    case PM_AVRO_ENUM: return pm_avro_read_long(c, &v);
    case PM_AVRO_FLOAT: return pm_cursor_skip(c, 4, "avro float");
    case PM_AVRO_DOUBLE: return pm_cursor_skip(c, 8, "avro double");
    case PM_AVRO_BYTES:
    case PM_AVRO_STRING: return pm_avro_read_bytes(c, &p, &len);
    case PM_AVRO_FIXED: return pm_cursor_skip(c, n->size, "avro fixed");
    case PM_AVRO_RECORD:
        for (size_t i = 0; i < n->n; i++)
            PM_TRY(pm_avro_skip(c, n->fields[i].type, depth + 1));
        return NULL;
    case PM_AVRO_UNION: {
        size_t b = 0;
        PM_TRY(pm_avro_read_branch(c, n, &b));
        return pm_avro_skip(c, n->branches[b], depth + 1);
    }
    case PM_AVRO_ARRAY:
    case PM_AVRO_MAP: {
        bool map = n->kind == PM_AVRO_MAP;
        size_t item_min = n->items->min_size + map;
        int64_t total = 0;
        for (;;) {
            /* A block with a byte size can be jumped over whole. */
            int64_t cnt = 0;
            const uint8_t *start = c->p;
            PM_TRY(pm_avro_read_long(c, &cnt));
            if (cnt == 0)
                return NULL;
            if (cnt < 0) {
                int64_t bytes = 0;
                PM_TRY(pm_avro_read_long(c, &bytes));
                if (bytes < 0)
                    return pm_error_new(PM_ECORRUPT, "negative avro block byte size");
                PM_TRY(pm_cursor_skip(c, (size_t)bytes, "avro array/map block"));
                continue;
            }
            c->p = start;
            PM_TRY(pm_avro_read_block_count(c, item_min, &cnt));
            total += cnt;
            if (item_min == 0 && total > PM_AVRO_MAX_EMPTY_ITEMS)
                return pm_error_new(PM_ECORRUPT, "avro array of more than %d empty items",
                                    PM_AVRO_MAX_EMPTY_ITEMS);
            for (int64_t i = 0; i < cnt; i++) {
                if (map)
                    PM_TRY(pm_avro_read_bytes(c, &p, &len));
                PM_TRY(pm_avro_skip(c, n->items, depth + 1));
            }
        }
    }
    }
    return pm_error_new(PM_EINTERNAL, "unknown avro kind %d", (int)n->kind);
}

pm_error *pm_avro_put_long(pm_buf *b, int64_t v)
{
    PM_TRY(pm_buf_reserve(b, 10));
    uint64_t u = pm_zigzag_encode(v);
    while (u >= 0x80) {
        b->data[b->len++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    b->data[b->len++] = (uint8_t)u;
    return NULL;
}

pm_error *pm_avro_put_float(pm_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return pm_buf_append_u32le(b, u);
}

pm_error *pm_avro_put_double(pm_buf *b, double v)
{
    uint64_t u = 0;
    memcpy(&u, &v, 8);
    return pm_buf_append_u64le(b, u);
}

pm_error *pm_avro_put_bytes(pm_buf *b, const void *p, size_t n)
{
    PM_TRY(pm_avro_put_long(b, (int64_t)n));
    return pm_buf_append(b, p, n);
}
