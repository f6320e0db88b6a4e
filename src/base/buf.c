/*
 * base/buf.c — growable byte buffer (see buf.h).
 */
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"

void pm_buf_free(pm_buf *b)
{
    if (b->cap) /* borrowed bytes (cap 0) belong to someone else */
        free(b->data);
    pm_buf_init(b);
}

void pm_buf_borrow(pm_buf *b, const void *data, size_t len)
{
    b->data = (uint8_t *)(uintptr_t)data;
    b->len = len;
    b->cap = 0;
}

pm_error *pm_buf_reserve(pm_buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len)
        return pm_error_new(PM_ENOMEM, "buffer size overflow");
    size_t need = b->len + extra;
    if (need <= b->cap)
        return NULL;
    size_t cap = pm_grow_cap(b->cap, need);
    if (!b->cap && b->data) { /* borrowed: copy before the first write */
        uint8_t *p = malloc(cap);
        if (!p)
            return pm_oom();
        memcpy(p, b->data, b->len);
        b->data = p;
        b->cap = cap;
        return NULL;
    }
    if (!b->len) { /* nothing to keep: no copy of the old capacity's stale bytes */
        uint8_t *p = malloc(cap);
        if (!p)
            return pm_oom();
        free(b->data);
        b->data = p;
        b->cap = cap;
        return NULL;
    }
    uint8_t *p = realloc(b->data, cap);
    if (!p)
        return pm_oom();
    b->data = p;
    b->cap = cap;
    return NULL;
}

pm_error *pm_buf_resize(pm_buf *b, size_t len)
{
    if (len > b->len) {
        PM_TRY(pm_buf_reserve(b, len - b->len));
        memset(b->data + b->len, 0, len - b->len);
    }
    b->len = len;
    return NULL;
}

pm_error *pm_buf_set_len(pm_buf *b, size_t len)
{
    if (len > b->len)
        PM_TRY(pm_buf_reserve(b, len - b->len));
    b->len = len;
    return NULL;
}

pm_error *pm_buf_append(pm_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return NULL;
    PM_TRY(pm_buf_reserve(b, n));
    pm_buf_put(b, p, n);
    return NULL;
}

pm_error *pm_buf_append_byte(pm_buf *b, uint8_t c) { return pm_buf_append(b, &c, 1); }

pm_error *pm_buf_append_str(pm_buf *b, const char *s) { return pm_buf_append(b, s, strlen(s)); }

pm_error *pm_buf_append_zeros(pm_buf *b, size_t n) { return pm_buf_resize(b, b->len + n); }

pm_error *pm_buf_printf(pm_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return pm_error_new(PM_EINVALID, "bad format string");
    PM_TRY(pm_buf_reserve(b, (size_t)n + 1));
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return NULL;
}

pm_error *pm_buf_append_u32le(pm_buf *b, uint32_t v)
{
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return pm_buf_append(b, t, 4);
}

pm_error *pm_buf_append_u64le(pm_buf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    return pm_buf_append(b, t, 8);
}

pm_error *pm_buf_append_u32be(pm_buf *b, uint32_t v)
{
    uint8_t t[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return pm_buf_append(b, t, 4);
}

pm_error *pm_buf_append_uvarint(pm_buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    return pm_buf_append(b, t, n);
}

pm_error *pm_buf_cstr(pm_buf *b, const char **out)
{
    PM_TRY(pm_buf_reserve(b, 1));
    b->data[b->len] = '\0';
    *out = (const char *)b->data;
    return NULL;
}

uint8_t *pm_buf_detach(pm_buf *b, size_t *len)
{
    uint8_t *p = b->data;
    if (!b->cap && p) { /* borrowed: hand out a copy the caller owns */
        p = malloc(b->len ? b->len : 1);
        if (p)
            memcpy(p, b->data, b->len);
    }
    if (len)
        *len = b->len;
    pm_buf_init(b);
    return p;
}
