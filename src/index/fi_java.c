/*
 * index/fi_java.c — Java hash codes, HashMap order and modified UTF-8
 * (see fi_java.h).
 */
#include "index/fi_java.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* One code point of UTF-8 at s (n > 0 bytes): *used bytes; invalid → U+FFFD, 1 byte. */
static uint32_t utf8_next(const uint8_t *s, size_t n, size_t *used)
{
    uint8_t b = s[0];
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    *used = 1;
    if (len == 1)
        return b;
    if (!len || len > n)
        return 0xFFFD;
    uint32_t cp = b & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0xFFFD;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFD;
    *used = len;
    return cp;
}

int32_t pm_java_string_hash(const uint8_t *s, size_t n)
{
    uint32_t h = 0;
    for (size_t i = 0; i < n;) {
        size_t used;
        uint32_t cp = utf8_next(s + i, n - i, &used);
        i += used;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = 31 * h + (0xD800 + (cp >> 10));
            h = 31 * h + (0xDC00 + (cp & 0x3FF));
        } else {
            h = 31 * h + cp;
        }
    }
    return (int32_t)h;
}

uint32_t pm_java_float_bits(float v)
{
    if (isnan(v))
        return 0x7fc00000u;
    uint32_t b;
    memcpy(&b, &v, 4);
    return b;
}

uint64_t pm_java_double_bits(double v)
{
    if (isnan(v))
        return 0x7ff8000000000000ULL;
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

int32_t pm_java_float_hash(float v) { return (int32_t)pm_java_float_bits(v); }

int32_t pm_java_double_hash(double v)
{
    uint64_t b = pm_java_double_bits(v);
    return (int32_t)(uint32_t)(b ^ (b >> 32));
}

typedef struct order_item {
    uint32_t bucket;
    size_t index;   /* insertion index, negated order for head insertion */
    size_t key;
} order_item;

static int order_cmp(const void *a, const void *b)
{
    const order_item *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

pm_error *pm_java_hashmap_order(const int32_t *hashes, size_t n, bool head, size_t *order)
{
    uint64_t cap = 16, threshold = 12;
    for (size_t size = 1; size <= n; size++)
        if (size > threshold) {
            cap *= 2;
            threshold *= 2;
        }
    order_item *items;
    PM_TRY(pm_calloc(&items, n ? n : 1, sizeof *items));
    for (size_t i = 0; i < n; i++) {
        uint32_t h = (uint32_t)hashes[i];
        items[i].bucket = (uint32_t)((h ^ (h >> 16)) & (cap - 1));
        items[i].index = i;
        items[i].key = head ? n - 1 - i : i;
    }
    qsort(items, n, sizeof *items, order_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = items[i].index;
    free(items);
    return NULL;
}

/* Bytes of one UTF-16 unit in modified UTF-8. */
static size_t unit_size(uint32_t u) { return u >= 1 && u <= 0x7F ? 1 : u <= 0x7FF ? 2 : 3; }

static void put_unit(uint8_t **p, uint32_t u)
{
    if (u >= 1 && u <= 0x7F) {
        *(*p)++ = (uint8_t)u;
    } else if (u <= 0x7FF) {
        *(*p)++ = (uint8_t)(0xC0 | (u >> 6));
        *(*p)++ = (uint8_t)(0x80 | (u & 0x3F));
    } else {
        *(*p)++ = (uint8_t)(0xE0 | (u >> 12));
        *(*p)++ = (uint8_t)(0x80 | ((u >> 6) & 0x3F));
        *(*p)++ = (uint8_t)(0x80 | (u & 0x3F));
    }
}

static size_t utf_body_size(const char *s)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t n = strlen(s), total = 0;
    for (size_t i = 0; i < n;) {
        size_t used;
        uint32_t cp = utf8_next(p + i, n - i, &used);
        i += used;
        total += cp >= 0x10000 ? 6 : unit_size(cp);
    }
    return total;
}

size_t pm_java_utf_size(const char *s) { return 2 + utf_body_size(s); }

pm_error *pm_java_write_utf(pm_buf *out, const char *s)
{
    size_t body = utf_body_size(s);
    if (body > 65535)
        return pm_error_new(PM_EINVALID, "name '%.40s...' is longer than 65535 bytes in modified UTF-8", s);
    PM_TRY(pm_buf_reserve(out, body + 2));
    uint8_t *p = out->data + out->len;
    *p++ = (uint8_t)(body >> 8);
    *p++ = (uint8_t)body;
    const uint8_t *q = (const uint8_t *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t used;
        uint32_t cp = utf8_next(q + i, n - i, &used);
        i += used;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            put_unit(&p, 0xD800 + (cp >> 10));
            put_unit(&p, 0xDC00 + (cp & 0x3FF));
        } else {
            put_unit(&p, cp);
        }
    }
    out->len += body + 2;
    return NULL;
}

pm_error *pm_java_read_utf(const uint8_t *p, size_t n, char **out, size_t *used)
{
    *out = NULL;
    if (n < 2)
        return pm_error_new(PM_ECORRUPT, "truncated string length");
    size_t len = (size_t)p[0] << 8 | p[1];
    if (len > n - 2)
        return pm_error_new(PM_ECORRUPT, "string of %zu bytes passes the end (%zu left)", len, n - 2);
    const uint8_t *s = p + 2;
    /* decode into UTF-16 units, then to UTF-8 (surrogate pairs joined) */
    char *r = malloc(len * 2 + 1);
    if (!r)
        return pm_oom();
    size_t o = 0;
    uint32_t hi = 0;
    for (size_t i = 0; i < len;) {
        uint32_t u;
        uint8_t b = s[i];
        if (b < 0x80 && b) {
            u = b;
            i++;
        } else if ((b >> 5) == 6 && i + 1 < len && (s[i + 1] & 0xC0) == 0x80) {
            u = (uint32_t)(b & 0x1F) << 6 | (s[i + 1] & 0x3F);
            i += 2;
        } else if ((b >> 4) == 14 && i + 2 < len && (s[i + 1] & 0xC0) == 0x80 && (s[i + 2] & 0xC0) == 0x80) {
            u = (uint32_t)(b & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
            i += 3;
        } else {
            free(r);
            return pm_error_new(PM_ECORRUPT, "malformed modified UTF-8 at byte %zu", i);
        }
        if (u >= 0xD800 && u <= 0xDBFF) {
            if (hi) {
                free(r);
                return pm_error_new(PM_ECORRUPT, "unpaired surrogate in a string");
            }
            hi = u;
            continue;
        }
        uint32_t cp = u;
        if (u >= 0xDC00 && u <= 0xDFFF) {
            if (!hi) {
                free(r);
                return pm_error_new(PM_ECORRUPT, "unpaired surrogate in a string");
            }
            cp = 0x10000 + ((hi - 0xD800) << 10) + (u - 0xDC00);
            hi = 0;
        } else if (hi) {
            free(r);
            return pm_error_new(PM_ECORRUPT, "unpaired surrogate in a string");
        }
        if (cp < 0x80) {
            r[o++] = (char)cp;
        } else if (cp < 0x800) {
            r[o++] = (char)(0xC0 | (cp >> 6));
            r[o++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            r[o++] = (char)(0xE0 | (cp >> 12));
            r[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            r[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            r[o++] = (char)(0xF0 | (cp >> 18));
            r[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            r[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            r[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    if (hi) {
        free(r);
        return pm_error_new(PM_ECORRUPT, "unpaired surrogate in a string");
    }
    r[o] = 0;
    if (memchr(r, 0, o)) {
        free(r);
        return pm_error_new(PM_ECORRUPT, "NUL character in a column or index name");
    }
    *out = r;
    *used = 2 + len;
    return NULL;
}
