/*
 * table/bucket_index.c — open-addressing (partition, bucket) → value index
 * (bucket_index.h).
 *
 * keys[] holds the keys in insertion order; slots[] (a power of two) holds
 * an index into keys[] or -1.  find probes linearly from hash & (n - 1)
 * comparing hash, bucket, length and bytes.  add appends to keys[], puts
 * it in the first free slot of its probe run and doubles the table (a
 * full re-insert in key order) when keys exceed half the slots.
 */
#include "table/bucket_index.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

#define INITIAL_SLOTS 64

uint64_t pm_bucket_hash(const uint8_t *p, size_t n, int32_t bucket)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    h = (h ^ (uint32_t)bucket) * 1099511628211ull;
    return h ^ (h >> 29);
}

static pm_error *alloc_slots(int32_t **out, size_t n)
{
    int32_t *s;
    PM_TRY(pm_calloc(&s, n, sizeof *s));
    for (size_t i = 0; i < n; i++)
        s[i] = -1;
    *out = s;
    return NULL;
}

pm_error *pm_bucket_index_init(pm_bucket_index *ix)
{
    memset(ix, 0, sizeof *ix);
    PM_TRY(alloc_slots(&ix->slots, INITIAL_SLOTS));
    ix->nslots = INITIAL_SLOTS;
    return NULL;
}

void pm_bucket_index_free(pm_bucket_index *ix)
{
    if (!ix)
        return;
    free(ix->keys);
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}

int32_t pm_bucket_index_find(const pm_bucket_index *ix, const uint8_t *part, size_t plen, int32_t bucket,
                             uint64_t h)
{
    if (!ix->nslots)
        return -1;
    size_t k = (size_t)h & (ix->nslots - 1);
    while (ix->slots[k] >= 0) {
        const pm_bucket_index_key *e = &ix->keys[ix->slots[k]];
        if (e->hash == h && e->bucket == bucket && e->plen == plen && (!plen || !memcmp(e->partition, part, plen)))
            return e->value;
        k = (k + 1) & (ix->nslots - 1);
    }
    return -1;
}

static void place(int32_t *slots, size_t n, uint64_t h, int32_t i)
{
    size_t k = (size_t)h & (n - 1);
    while (slots[k] >= 0)
        k = (k + 1) & (n - 1);
    slots[k] = i;
}

static pm_error *grow(pm_bucket_index *ix)
{
    size_t n = ix->nslots * 2;
    int32_t *s;
    PM_TRY(alloc_slots(&s, n));
    for (size_t i = 0; i < ix->nkeys; i++)
        place(s, n, ix->keys[i].hash, (int32_t)i);
    free(ix->slots);
    ix->slots = s;
    ix->nslots = n;
    return NULL;
}

pm_error *pm_bucket_index_add(pm_bucket_index *ix, const uint8_t *part, size_t plen, int32_t bucket, uint64_t h,
                              int32_t value)
{
    if (!ix->nslots)
        PM_TRY(pm_bucket_index_init(ix));
    if (ix->nkeys >= INT32_MAX - 1)
        return pm_error_new(PM_EUNSUPPORTED, "too many (partition, bucket) writers");
    if ((ix->nkeys + 1) * 2 > ix->nslots)
        PM_TRY(grow(ix));
    if (ix->nkeys == ix->capkeys) {
        size_t cap = ix->capkeys ? ix->capkeys * 2 : 8;
        PM_TRY(pm_realloc_array(&ix->keys, cap, sizeof *ix->keys));
        ix->capkeys = cap;
    }
    ix->keys[ix->nkeys] = (pm_bucket_index_key){part, plen, bucket, value, h};
    place(ix->slots, ix->nslots, h, (int32_t)ix->nkeys);
    ix->nkeys++;
    return NULL;
}
