/*
 * index/dynamic_bucket.c — the dynamic-bucket assigner (rules in
 * dynamic_bucket.h).
 *
 * Per partition: an open-addressing table hash → bucket (int32 keys,
 * int16 values, -1 = empty slot, linear probing, doubled above 5/8 full)
 * and per bucket id its key count, a "changed" flag and whether the
 * partition has it.  Partitions are found by FNV-1a of their bytes in a
 * second open-addressing table.  Per assigner: the largest bucket id it
 * assigned (all partitions).
 */
#include "index/dynamic_bucket.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

typedef struct bucket_info {
    int64_t keys;
    bool present, changed;
} bucket_info;

struct pm_dyn_partition {
    uint8_t *bytes;
    size_t plen;
    int32_t hash;            /* BinaryRow hashCode */
    int32_t *hkeys;          /* hash table */
    int16_t *hvals;          /* bucket, -1 = empty */
    size_t cap, used;
    bucket_info *buckets;    /* by bucket id, ncap entries */
    size_t ncap;
    bool assigned;           /* an assignment happened (no more loads) */
};

struct pm_dyn_assigner {
    pm_dyn_options o;
    pm_dyn_partition **parts;
    size_t nparts, capparts;
    size_t *pslots;          /* index into parts + 1, 0 = empty */
    size_t npslots;
    int32_t *max_id;         /* per assigner */
    uint64_t rng;
};

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint32_t mix32(int32_t k)
{
    uint32_t h = (uint32_t)k * 0x9e3779b1u;
    return h ^ (h >> 16);
}

pm_error *pm_dyn_assigner_new(pm_dyn_assigner **out, const pm_dyn_options *o)
{
    *out = NULL;
    if (o->target_rows <= 0)
        return pm_error_new(PM_EINVALID, "dynamic-bucket.target-row-num must be positive, got %lld",
                            (long long)o->target_rows);
    if (o->max_buckets != -1 && (o->max_buckets < 1 || o->max_buckets > PM_DYN_MAX_BUCKETS))
        return pm_error_new(PM_EINVALID, "dynamic-bucket.max-buckets must be -1 or 1..%d, got %d", PM_DYN_MAX_BUCKETS,
                            (int)o->max_buckets);
    if (o->num_assigners < 1 || o->num_assigners > PM_DYN_MAX_BUCKETS)
        return pm_error_new(PM_EINVALID, "dynamic-bucket.initial-buckets must be 1..%d, got %d", PM_DYN_MAX_BUCKETS,
                            (int)o->num_assigners);
    pm_dyn_assigner *a;
    PM_TRY(pm_calloc(&a, 1, sizeof *a));
    a->o = *o;
    a->rng = o->seed ? o->seed : 0x9e3779b97f4a7c15ULL;
    pm_error *e = pm_calloc(&a->max_id, (size_t)o->num_assigners, sizeof *a->max_id);
    if (!e) {
        a->npslots = 16;
        e = pm_calloc(&a->pslots, a->npslots, sizeof *a->pslots);
    }
    if (e) {
        pm_dyn_assigner_free(a);
        return e;
    }
    *out = a;
    return NULL;
}

static void partition_free(pm_dyn_partition *p)
{
    if (!p)
        return;
    free(p->bytes);
    free(p->hkeys);
    free(p->hvals);
    free(p->buckets);
    free(p);
}

void pm_dyn_assigner_free(pm_dyn_assigner *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nparts; i++)
        partition_free(a->parts[i]);
    free(a->parts);
    free(a->pslots);
    free(a->max_id);
    free(a);
}

size_t pm_dyn_partition_count(const pm_dyn_assigner *a) { return a->nparts; }
pm_dyn_partition *pm_dyn_partition_at(pm_dyn_assigner *a, size_t i) { return i < a->nparts ? a->parts[i] : NULL; }

const uint8_t *pm_dyn_partition_bytes(const pm_dyn_partition *p, size_t *plen)
{
    *plen = p->plen;
    return p->bytes;
}

pm_dyn_partition *pm_dyn_partition_find(pm_dyn_assigner *a, const uint8_t *part, size_t plen)
{
    size_t mask = a->npslots - 1;
    for (size_t i = (size_t)fnv(part, plen) & mask;; i = (i + 1) & mask) {
        size_t s = a->pslots[i];
        if (!s)
            return NULL;
        pm_dyn_partition *p = a->parts[s - 1];
        if (p->plen == plen && (!plen || !memcmp(p->bytes, part, plen)))
            return p;
    }
}

static pm_error *pslots_grow(pm_dyn_assigner *a)
{
    size_t n = a->npslots * 2;
    size_t *s = NULL;
    PM_TRY(pm_calloc(&s, n, sizeof *s));
    for (size_t k = 0; k < a->nparts; k++) {
        const pm_dyn_partition *p = a->parts[k];
        size_t i = (size_t)fnv(p->bytes, p->plen) & (n - 1);
        while (s[i])
            i = (i + 1) & (n - 1);
        s[i] = k + 1;
    }
    free(a->pslots);
    a->pslots = s;
    a->npslots = n;
    return NULL;
}

static pm_error *hash_init(pm_dyn_partition *p, size_t cap)
{
    PM_TRY(pm_calloc(&p->hkeys, cap, sizeof *p->hkeys));
    PM_TRY(pm_calloc(&p->hvals, cap, sizeof *p->hvals));
    memset(p->hvals, 0xff, cap * sizeof *p->hvals);
    p->cap = cap;
    p->used = 0;
    return NULL;
}

pm_error *pm_dyn_partition_add(pm_dyn_assigner *a, const uint8_t *part, size_t plen, int32_t part_hash,
                               pm_dyn_partition **out)
{
    *out = NULL;
    if ((a->nparts + 1) * 2 > a->npslots)
        PM_TRY(pslots_grow(a));
    if (a->nparts == a->capparts) {
        size_t cap = a->capparts ? a->capparts * 2 : 8;
        PM_TRY(pm_realloc_array(&a->parts, cap, sizeof *a->parts));
        a->capparts = cap;
    }
    pm_dyn_partition *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pm_error *e = pm_calloc(&p->bytes, plen ? plen : 1, 1);
    if (!e)
        e = hash_init(p, 64);
    if (e) {
        partition_free(p);
        return e;
    }
    if (plen)
        memcpy(p->bytes, part, plen);
    p->plen = plen;
    p->hash = part_hash;
    size_t mask = a->npslots - 1, i = (size_t)fnv(part, plen) & mask;
    while (a->pslots[i])
        i = (i + 1) & mask;
    a->parts[a->nparts++] = p;
    a->pslots[i] = a->nparts;
    *out = p;
    return NULL;
}

/* Slot of hash k: its own, or the empty one where it would go. */
static size_t hash_slot(const pm_dyn_partition *p, int32_t k)
{
    size_t mask = p->cap - 1;
    size_t i = mix32(k) & mask;
    while (p->hvals[i] >= 0 && p->hkeys[i] != k)
        i = (i + 1) & mask;
    return i;
}

static pm_error *hash_grow(pm_dyn_partition *p)
{
    int32_t *ok = p->hkeys;
    int16_t *ov = p->hvals;
    size_t ocap = p->cap;
    p->hkeys = NULL;
    p->hvals = NULL;
    pm_error *e = hash_init(p, ocap * 2);
    if (e) {
        free(p->hkeys);
        free(p->hvals);
        p->hkeys = ok;
        p->hvals = ov;
        p->cap = ocap;
        return e;
    }
    size_t used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (ov[i] >= 0) {
            size_t s = hash_slot(p, ok[i]);
            p->hkeys[s] = ok[i];
            p->hvals[s] = ov[i];
            used++;
        }
    p->used = used;
    free(ok);
    free(ov);
    return NULL;
}

static pm_error *bucket_room(pm_dyn_partition *p, int32_t b)
{
    if ((size_t)b < p->ncap)
        return NULL;
    size_t n = p->ncap ? p->ncap : 8;
    while (n <= (size_t)b)
        n *= 2;
    PM_TRY(pm_realloc_array(&p->buckets, n, sizeof *p->buckets));
    memset(p->buckets + p->ncap, 0, (n - p->ncap) * sizeof *p->buckets);
    p->ncap = n;
    return NULL;
}

/* Put hash k → bucket b (k not present). */
static pm_error *hash_put(pm_dyn_partition *p, int32_t k, int32_t b)
{
    if ((p->used + 1) * 8 > p->cap * 5)
        PM_TRY(hash_grow(p));
    size_t s = hash_slot(p, k);
    p->hkeys[s] = k;
    p->hvals[s] = (int16_t)b;
    p->used++;
    return NULL;
}

pm_error *pm_dyn_partition_load(pm_dyn_partition *p, int32_t bucket, const int32_t *hashes, size_t n)
{
    if (p->assigned)
        return pm_error_new(PM_EINTERNAL, "dynamic bucket: loading a partition after assignments");
    if (bucket < 0 || bucket >= PM_DYN_MAX_BUCKETS)
        return pm_error_new(PM_ECORRUPT, "HASH index of bucket %d: a dynamic bucket id is 0..%d", (int)bucket,
                            PM_DYN_MAX_BUCKETS - 1);
    PM_TRY(bucket_room(p, bucket));
    bucket_info *bi = &p->buckets[bucket];
    if (bi->present)
        return pm_error_new(PM_ECORRUPT, "two HASH index files for bucket %d of one partition", (int)bucket);
    bi->present = true;
    for (size_t i = 0; i < n; i++) {
        size_t s = hash_slot(p, hashes[i]);
        if (p->hvals[s] >= 0) {
            if (p->hvals[s] == bucket)
                continue; /* listed twice in one file */
            return pm_error_new(PM_ECORRUPT, "key hash %d is in the HASH index of buckets %d and %d", (int)hashes[i],
                                (int)p->hvals[s], (int)bucket);
        }
        PM_TRY(hash_put(p, hashes[i], bucket));
        bi->keys++;
    }
    return NULL;
}

static int32_t java_rem_abs(int32_t v, int32_t n)
{
    int32_t r = v % n; /* C and Java both truncate toward zero */
    return r < 0 ? -r : r;
}

pm_error *pm_dyn_assign(pm_dyn_assigner *a, pm_dyn_partition *p, int32_t key_hash, int32_t *bucket)
{
    p->assigned = true;
    size_t s = hash_slot(p, key_hash);
    if (p->hvals[s] >= 0) {
        *bucket = p->hvals[s];
        return NULL;
    }
    int32_t n = a->o.num_assigners;
    int32_t id = (java_rem_abs(p->hash, n) + java_rem_abs(key_hash, n)) % n;
    int32_t b = -1;
    /* 2. the first non-full bucket of the assigner */
    for (size_t k = (size_t)id; k < p->ncap && b < 0; k += (size_t)n)
        if (p->buckets[k].present && p->buckets[k].keys < a->o.target_rows)
            b = (int32_t)k;
    if (b < 0) {
        int32_t global_max = (a->o.max_buckets == -1 ? PM_DYN_MAX_BUCKETS : a->o.max_buckets) - 1;
        bool any = false;
        for (size_t k = (size_t)id; k < p->ncap && !any; k += (size_t)n)
            any = p->buckets[k].present;
        if (!any || a->max_id[id] < global_max) {
            /* 3. a new bucket: the smallest free id of the assigner */
            for (int32_t k = id; k <= global_max; k += n)
                if ((size_t)k >= p->ncap || !p->buckets[k].present) {
                    b = k;
                    break;
                }
            if (b < 0 && a->o.max_buckets == -1)
                return pm_error_new(PM_EUNSUPPORTED, "dynamic bucket: no bucket id left below %d in a partition; "
                                    "increase dynamic-bucket.target-row-num (%lld)", PM_DYN_MAX_BUCKETS,
                                    (long long)a->o.target_rows);
        }
        if (b < 0) {
            /* 4. max-buckets reached: a random bucket of the assigner */
            size_t count = 0;
            for (size_t k = (size_t)id; k < p->ncap; k += (size_t)n)
                count += p->buckets[k].present;
            if (!count)
                return pm_error_new(PM_EUNSUPPORTED, "dynamic bucket: assigner %d has no bucket below "
                                    "dynamic-bucket.max-buckets=%d (dynamic-bucket.initial-buckets=%d is too "
                                    "large for it)", (int)id, (int)a->o.max_buckets, (int)n);
            a->rng ^= a->rng << 13;
            a->rng ^= a->rng >> 7;
            a->rng ^= a->rng << 17;
            size_t pick = (size_t)(a->rng % count);
            for (size_t k = (size_t)id; k < p->ncap; k += (size_t)n)
                if (p->buckets[k].present && pick-- == 0) {
                    b = (int32_t)k;
                    break;
                }
        }
    }
    PM_TRY(bucket_room(p, b));
    PM_TRY(hash_put(p, key_hash, b));
    bucket_info *bi = &p->buckets[b];
    bi->present = true;
    bi->keys++;
    bi->changed = true;
    if (b > a->max_id[id])
        a->max_id[id] = b;
    *bucket = b;
    return NULL;
}

pm_error *pm_dyn_partition_changed(const pm_dyn_partition *p, int32_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t c = 0;
    for (size_t k = 0; k < p->ncap; k++)
        c += p->buckets[k].changed;
    if (!c)
        return NULL;
    PM_TRY(pm_calloc(out, c, sizeof **out));
    for (size_t k = 0; k < p->ncap; k++)
        if (p->buckets[k].changed)
            (*out)[(*n)++] = (int32_t)k;
    return NULL;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return a < b ? -1 : a > b;
}

pm_error *pm_dyn_partition_hashes(const pm_dyn_partition *p, int32_t bucket, int32_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    int64_t c = bucket >= 0 && (size_t)bucket < p->ncap ? p->buckets[bucket].keys : 0;
    if (!c)
        return NULL;
    PM_TRY(pm_calloc(out, (size_t)c, sizeof **out));
    for (size_t i = 0; i < p->cap && *n < (size_t)c; i++)
        if (p->hvals[i] == bucket)
            (*out)[(*n)++] = p->hkeys[i];
    qsort(*out, *n, sizeof **out, cmp_i32);
    return NULL;
}

void pm_dyn_partition_mark_written(pm_dyn_partition *p, int32_t bucket)
{
    if (bucket >= 0 && (size_t)bucket < p->ncap)
        p->buckets[bucket].changed = false;
}
