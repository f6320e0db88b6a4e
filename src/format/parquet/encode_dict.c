/*
 * format/parquet/encode_dict.c — the writer's dictionary: a hash table from
 * physical values to dense entry indices (see pq_encode.h).
 *
 * Layout: `slots` is a power-of-two open-addressing table of entry index + 1
 * (0 = empty), probed linearly from hash & mask; it doubles when more than
 * half full.  Entries live in insertion order in `values` (fixed width:
 * entry i at i*width; byte strings: offsets[i]..offsets[i+1], with the
 * entry's hash kept in `hashes` so probes rarely touch the bytes).
 */
#include "format/parquet/pq_encode.h"

#include <stdlib.h>

#include "base/mem.h"

#define PQ_DICT_MIN_SLOTS 1024u

#define hash64 pq_hash64
#define hash32 pq_hash32

uint32_t pq_hash_bytes(const uint8_t *p, size_t n)
{
    const uint64_t m = 0x9E3779B97F4A7C15ull;
    uint64_t h = 0x243F6A8885A308D3ull ^ (n * m);
    size_t k = n;
    while (k >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
        p += 8;
        k -= 8;
    }
    if (k) {
        /* the last 1..7 bytes by fixed-size (possibly overlapping) loads */
        uint64_t w;
        if (k >= 4) {
            uint32_t a, b;
            memcpy(&a, p, 4);
            memcpy(&b, p + k - 4, 4);
            w = a | (uint64_t)b << 32;
        } else {
            w = p[0] | (uint64_t)p[k / 2] << 8 | (uint64_t)p[k - 1] << 16;
        }
        h = (h ^ w ^ ((uint64_t)k << 56)) * m;
        h ^= h >> 29;
    }
    return hash64(h);
}

/* a[0..n) == b[0..n) with fixed-size loads for short values. */
static inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t x, y;
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return false;
        }
        uint64_t x, y; /* the last 8 bytes (overlapping) */
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t x0, y0, x1, y1;
        memcpy(&x0, a, 4);
        memcpy(&y0, b, 4);
        memcpy(&x1, a + n - 4, 4);
        memcpy(&y1, b + n - 4, 4);
        return x0 == y0 && x1 == y1;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

pm_error *pq_dict_init(pq_dict *d, int width)
{
    memset(d, 0, sizeof *d);
    d->width = width;
    PM_TRY(pm_calloc(&d->slots, PQ_DICT_MIN_SLOTS, sizeof *d->slots));
    d->mask = PQ_DICT_MIN_SLOTS - 1;
    if (width == 0) {
        d->cap = 256;
        pm_error *e = pm_calloc(&d->offsets, d->cap + 1, sizeof *d->offsets);
        if (!e)
            e = pm_calloc(&d->hashes, d->cap, sizeof *d->hashes);
        if (e) {
            pq_dict_free(d);
            return e;
        }
    }
    return NULL;
}

void pq_dict_free(pq_dict *d)
{
    if (!d)
        return;
    free(d->slots);
    free(d->offsets);
    free(d->hashes);
    pm_buf_free(&d->values);
    memset(d, 0, sizeof *d);
}

void pq_dict_clear(pq_dict *d)
{
    pq_dict_truncate(d, 0);
}

static uint32_t entry_hash(const pq_dict *d, uint32_t i)
{
    switch (d->width) {
    case 0:
        return d->hashes[i];
    case 4: {
        uint32_t v;
        memcpy(&v, d->values.data + 4 * (size_t)i, 4);
        return hash32(v);
    }
    case 8: {
        uint64_t v;
        memcpy(&v, d->values.data + 8 * (size_t)i, 8);
        return hash64(v);
    }
    default:
        return pq_hash_bytes(d->values.data + (size_t)d->width * i, (size_t)d->width);
    }
}

/* Fill an empty slot table with entries [0, count). */
static void fill_slots(const pq_dict *d, uint32_t *slots, uint32_t mask)
{
    for (uint32_t i = 0; i < d->count; i++) {
        uint32_t s = entry_hash(d, i) & mask;
        while (slots[s])
            s = (s + 1) & mask;
        slots[s] = i + 1;
    }
}

static pm_error *rehash(pq_dict *d, uint32_t nslots)
{
    uint32_t *slots;
    PM_TRY(pm_calloc(&slots, nslots, sizeof *slots));
    fill_slots(d, slots, nslots - 1);
    free(d->slots);
    d->slots = slots;
    d->mask = nslots - 1;
    return NULL;
}

void pq_dict_truncate(pq_dict *d, uint32_t n)
{
    if (n >= d->count)
        return;
    if (d->width) {
        d->byte_size = (int64_t)n * d->width;
        d->values.len = (size_t)n * (size_t)d->width;
    } else {
        d->values.len = d->offsets[n];
        d->byte_size = (int64_t)d->offsets[n] + 4 * (int64_t)n;
    }
    d->count = n;
    /* Removing entries breaks linear-probe chains: rebuild the table in place. */
    memset(d->slots, 0, ((size_t)d->mask + 1) * sizeof *d->slots);
    fill_slots(d, d->slots, d->mask);
}

static inline pm_error *maybe_grow(pq_dict *d)
{
    if ((uint64_t)(d->count + 1) * 2 > (uint64_t)d->mask + 1) {
        if (d->mask >= 0x7fffffffu)
            return pm_error_new(PM_ENOMEM, "dictionary too large");
        return rehash(d, (d->mask + 1) * 2);
    }
    return NULL;
}

pm_error *pq_dict_insert32(pq_dict *d, uint32_t v, uint32_t slot, uint32_t *idx)
{
    PM_TRY(pm_buf_append(&d->values, &v, 4));
    d->slots[slot] = d->count + 1;
    *idx = d->count++;
    d->byte_size += 4;
    return maybe_grow(d);
}

pm_error *pq_dict_insert64(pq_dict *d, uint64_t v, uint32_t slot, uint32_t *idx)
{
    PM_TRY(pm_buf_append(&d->values, &v, 8));
    d->slots[slot] = d->count + 1;
    *idx = d->count++;
    d->byte_size += 8;
    return maybe_grow(d);
}

pm_error *pq_dict_put96(pq_dict *d, const uint8_t v[12], uint32_t *idx, bool *added)
{
    uint32_t s = pq_hash_bytes(v, 12) & d->mask;
    for (;;) {
        uint32_t e = d->slots[s];
        if (!e)
            break;
        if (!memcmp(d->values.data + 12 * (size_t)(e - 1), v, 12)) {
            *idx = e - 1;
            *added = false;
            return NULL;
        }
        s = (s + 1) & d->mask;
    }
    PM_TRY(pm_buf_append(&d->values, v, 12));
    d->slots[s] = d->count + 1;
    *idx = d->count++;
    *added = true;
    d->byte_size += 12;
    return maybe_grow(d);
}

pm_error *pq_dict_put_bytes(pq_dict *d, const uint8_t *p, uint32_t len, uint32_t *idx, bool *added)
{
    uint32_t h = pq_hash_bytes(p, len);
    uint32_t s = h & d->mask;
    for (;;) {
        uint32_t e = d->slots[s];
        if (!e)
            break;
        uint32_t i = e - 1;
        if (d->hashes[i] == h && d->offsets[i + 1] - d->offsets[i] == len &&
            (len == 0 || same_bytes(d->values.data + d->offsets[i], p, len))) {
            *idx = i;
            *added = false;
            return NULL;
        }
        s = (s + 1) & d->mask;
    }
    if ((uint64_t)d->values.len + len > UINT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "dictionary larger than 4 GiB");
    if (d->count == d->cap) {
        uint32_t cap = d->cap * 2;
        PM_TRY(pm_realloc_array(&d->offsets, (size_t)cap + 1, sizeof *d->offsets));
        PM_TRY(pm_realloc_array(&d->hashes, cap, sizeof *d->hashes));
        d->cap = cap;
    }
    PM_TRY(pm_buf_append(&d->values, p, len));
    d->hashes[d->count] = h;
    d->offsets[d->count + 1] = (uint32_t)d->values.len;
    d->slots[s] = d->count + 1;
    *idx = d->count++;
    *added = true;
    d->byte_size += 4 + (int64_t)len;
    return maybe_grow(d);
}

pm_error *pq_dict_write_plain(const pq_dict *d, uint32_t n, pm_buf *out)
{
    if (n > d->count)
        n = d->count;
    if (d->width)
        return pm_buf_append(out, d->values.data, (size_t)n * (size_t)d->width);
    PM_TRY(pm_buf_reserve(out, (size_t)d->offsets[n] + 4 * (size_t)n));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = d->offsets[i + 1] - d->offsets[i];
        uint8_t le[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24)};
        pm_buf_put(out, le, 4);
        if (len)
            pm_buf_put(out, d->values.data + d->offsets[i], len);
    }
    return NULL;
}
