/*
 * compact/compact_triggers.c — round counters of long-lived callers
 * (paimon/compact.h pm_compact_triggers): per (partition, bucket) the
 * automatic rounds that selected nothing since the bucket's level-0 files
 * were last forced up (lookup-compact=gentle, Java's
 * ForceUpLevel0Compaction with maxCompactInterval).
 */
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "compact/compact_internal.h"
#include "table/bucket_index.h"

struct pm_compact_triggers {
    pm_bucket_index ix;          /* (partition, bucket) → counter index */
    pm_arena arena;              /* partition bytes */
    int32_t *counts;
    size_t n, cap;
};

pm_error *pm_compact_triggers_new(pm_compact_triggers **out)
{
    *out = NULL;
    pm_compact_triggers *t;
    PM_TRY(pm_calloc(&t, 1, sizeof *t));
    pm_arena_init(&t->arena, 0);
    pm_error *e = pm_bucket_index_init(&t->ix);
    if (e) {
        pm_compact_triggers_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

void pm_compact_triggers_free(pm_compact_triggers *t)
{
    if (!t)
        return;
    pm_bucket_index_free(&t->ix);
    pm_arena_free(&t->arena);
    free(t->counts);
    free(t);
}

pm_error *pm_compact_triggers_bump(pm_compact_triggers *t, const pm_bytes *part, int32_t bucket, int32_t interval,
                                   bool *fire)
{
    *fire = false;
    const uint8_t *p = part->data ? part->data : (const uint8_t *)"";
    uint64_t h = pm_bucket_hash(p, part->len, bucket);
    int32_t i = pm_bucket_index_find(&t->ix, p, part->len, bucket, h);
    if (i < 0) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 16;
            PM_TRY(pm_realloc_array(&t->counts, cap, sizeof *t->counts));
            t->cap = cap;
        }
        uint8_t *copy = pm_arena_alloc(&t->arena, part->len ? part->len : 1, 1);
        if (!copy)
            return pm_oom();
        if (part->len)
            memcpy(copy, p, part->len);
        PM_TRY(pm_bucket_index_add(&t->ix, copy, part->len, bucket, h, (int32_t)t->n));
        t->counts[t->n] = 0;
        i = (int32_t)t->n++;
    }
    if (++t->counts[i] >= interval) {
        t->counts[i] = 0;
        *fire = true;
    }
    return NULL;
}
