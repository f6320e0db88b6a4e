/*
 * base/buf_pool.c — the bounded pool of spare byte buffers (buf_pool.h).
 *
 * Layout: an array of spare pm_bufs (unordered) and their total capacity,
 * under one mutex.  take: the smallest spare with cap >= min_cap (one scan;
 * the array stays short: it holds big buffers only, bounded by cap), moved
 * out by swapping the last spare into its slot.  give: appended when the
 * total stays within cap, else freed.
 */
#include "base/buf_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/mem.h"

struct pm_buf_pool {
    pthread_mutex_t mu;
    pm_buf *spare;
    size_t n, alloc;
    size_t bytes; /* total cap of the spares */
    size_t cap;
};

pm_error *pm_buf_pool_new(pm_buf_pool **out, size_t cap)
{
    *out = NULL;
    pm_buf_pool *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pthread_mutex_init(&p->mu, NULL);
    p->cap = cap;
    *out = p;
    return NULL;
}

void pm_buf_pool_free(pm_buf_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        pm_buf_free(&p->spare[i]);
    free(p->spare);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void pm_buf_pool_trim(pm_buf_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->n; i++)
        pm_buf_free(&p->spare[i]);
    p->n = 0;
    p->bytes = 0;
    pthread_mutex_unlock(&p->mu);
}

bool pm_buf_pool_take(pm_buf_pool *p, size_t min_cap, pm_buf *b)
{
    if (!p || b->cap)
        return false;
    pthread_mutex_lock(&p->mu);
    size_t best = p->n;
    for (size_t i = 0; i < p->n; i++)
        if (p->spare[i].cap >= min_cap && (best == p->n || p->spare[i].cap < p->spare[best].cap))
            best = i;
    bool found = best < p->n;
    if (found) {
        *b = p->spare[best];
        b->len = 0;
        p->bytes -= b->cap;
        p->spare[best] = p->spare[--p->n];
    }
    pthread_mutex_unlock(&p->mu);
    return found;
}

void pm_buf_pool_give(pm_buf_pool *p, pm_buf *b)
{
    if (!p || !b->cap) {
        pm_buf_free(b);
        return;
    }
    pthread_mutex_lock(&p->mu);
    bool kept = false;
    if (p->bytes + b->cap <= p->cap) {
        if (p->n == p->alloc) {
            size_t na = p->alloc ? 2 * p->alloc : 16;
            pm_buf *s = realloc(p->spare, na * sizeof *s);
            if (s) {
                p->spare = s;
                p->alloc = na;
            }
        }
        if (p->n < p->alloc) {
            p->spare[p->n++] = *b;
            p->bytes += b->cap;
            kept = true;
        }
    }
    pthread_mutex_unlock(&p->mu);
    if (kept)
        pm_buf_init(b);
    else
        pm_buf_free(b);
}

size_t pm_buf_pool_spare(pm_buf_pool *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->mu);
    size_t n = p->bytes;
    pthread_mutex_unlock(&p->mu);
    return n;
}
