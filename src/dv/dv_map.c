/*
 * dv/dv_map.c — insertion-ordered name → deletion vector map (see
 * dv_map.h).
 */
#include "dv/dv_map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

typedef struct entry {
    char *name;
    pm_dv *dv;
} entry;

struct pm_dv_map {
    entry *items;
    size_t n, cap;
    size_t *slots; /* index + 1, 0 = empty; size nslots (power of two) */
    size_t nslots;
};

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* Slot holding `name`, or the empty slot where it would go. */
static size_t probe(const pm_dv_map *m, const char *name)
{
    size_t mask = m->nslots - 1, i = (size_t)name_hash(name) & mask;
    while (m->slots[i] && strcmp(m->items[m->slots[i] - 1].name, name))
        i = (i + 1) & mask;
    return i;
}

static pm_error *rehash(pm_dv_map *m, size_t nslots)
{
    size_t *s;
    PM_TRY(pm_calloc(&s, nslots, sizeof *s));
    free(m->slots);
    m->slots = s;
    m->nslots = nslots;
    for (size_t k = 0; k < m->n; k++)
        m->slots[probe(m, m->items[k].name)] = k + 1;
    return NULL;
}

pm_error *pm_dv_map_new(pm_dv_map **out)
{
    pm_dv_map *m;
    PM_TRY(pm_calloc(&m, 1, sizeof *m));
    pm_error *e = rehash(m, 16);
    if (e) {
        free(m);
        return e;
    }
    *out = m;
    return NULL;
}

void pm_dv_map_free(pm_dv_map *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->items[i].name);
        pm_dv_free(m->items[i].dv);
    }
    free(m->items);
    free(m->slots);
    free(m);
}

size_t pm_dv_map_count(const pm_dv_map *m) { return m->n; }
const char *pm_dv_map_name(const pm_dv_map *m, size_t i) { return m->items[i].name; }
pm_dv *pm_dv_map_at(const pm_dv_map *m, size_t i) { return m->items[i].dv; }

pm_dv *pm_dv_map_get(const pm_dv_map *m, const char *name)
{
    size_t s = m->slots[probe(m, name)];
    return s ? m->items[s - 1].dv : NULL;
}

pm_error *pm_dv_map_put(pm_dv_map *m, const char *name, pm_dv *dv)
{
    size_t i = probe(m, name);
    if (m->slots[i]) {
        entry *e = &m->items[m->slots[i] - 1];
        if (e->dv != dv)
            pm_dv_free(e->dv);
        e->dv = dv;
        return NULL;
    }
    pm_error *err = NULL;
    char *copy = NULL;
    if (m->n == m->cap) {
        size_t cap = pm_grow_cap(m->cap, m->n + 1);
        if (!cap || (err = pm_realloc_array(&m->items, cap, sizeof *m->items)))
            goto fail;
        m->cap = cap;
    }
    if ((err = pm_strdup(&copy, name)))
        goto fail;
    m->items[m->n].name = copy;
    m->items[m->n].dv = dv;
    m->n++;
    if (m->n * 2 > m->nslots) {
        if ((err = rehash(m, m->nslots * 2))) {
            m->n--;
            free(copy);
            goto fail;
        }
    } else {
        m->slots[i] = m->n;
    }
    return NULL;
fail:
    pm_dv_free(dv);
    return err ? err : pm_oom();
}

pm_dv *pm_dv_map_take(pm_dv_map *m, const char *name)
{
    size_t s = m->slots[probe(m, name)];
    if (!s)
        return NULL;
    size_t k = s - 1;
    pm_dv *dv = m->items[k].dv;
    free(m->items[k].name);
    memmove(m->items + k, m->items + k + 1, (m->n - k - 1) * sizeof *m->items);
    m->n--;
    /* Rebuild the index in place (same size: no allocation can fail). */
    memset(m->slots, 0, m->nslots * sizeof *m->slots);
    for (size_t j = 0; j < m->n; j++)
        m->slots[probe(m, m->items[j].name)] = j + 1;
    return dv;
}
