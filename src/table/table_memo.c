/*
 * table/table_memo.c — the table handle's memo (protocol in table_memo.h).
 *
 * A fixed array of PM_TABLE_MEMO_MAX slots under one mutex: a slot is
 * free, claimed (a thread computes its value; claimants of the key wait
 * on the condition variable) or stored (with the order it was stored in,
 * for eviction).  Linear search: the memo holds a handful of keys.
 */
#include "table/table_memo.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "table/table_internal.h"

typedef enum { SLOT_FREE, SLOT_CLAIMED, SLOT_STORED } slot_state;

typedef struct memo_slot {
    slot_state state;
    char *key;
    pm_buf value;
    uint64_t order;
} memo_slot;

struct pm_table_memo {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    memo_slot slots[PM_TABLE_MEMO_MAX];
    uint64_t next_order;
};

pm_error *pm_table_memo_new(pm_table_memo **out)
{
    *out = NULL;
    pm_table_memo *m;
    PM_TRY(pm_calloc(&m, 1, sizeof *m));
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    *out = m;
    return NULL;
}

static void slot_clear(memo_slot *s)
{
    free(s->key);
    s->key = NULL;
    pm_buf_free(&s->value);
    s->state = SLOT_FREE;
}

void pm_table_memo_free(pm_table_memo *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < PM_TABLE_MEMO_MAX; i++)
        slot_clear(&m->slots[i]);
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static memo_slot *find(pm_table_memo *m, const char *key)
{
    for (size_t i = 0; i < PM_TABLE_MEMO_MAX; i++)
        if (m->slots[i].state != SLOT_FREE && !strcmp(m->slots[i].key, key))
            return &m->slots[i];
    return NULL;
}

/* A free slot, else the oldest stored one emptied; NULL when every slot
 * is claimed. */
static memo_slot *take_slot(pm_table_memo *m)
{
    memo_slot *old = NULL;
    for (size_t i = 0; i < PM_TABLE_MEMO_MAX; i++) {
        memo_slot *s = &m->slots[i];
        if (s->state == SLOT_FREE)
            return s;
        if (s->state == SLOT_STORED && (!old || s->order < old->order))
            old = s;
    }
    if (old)
        slot_clear(old);
    return old;
}

pm_error *pm_table_memo_claim(pm_table *t, const char *key, pm_buf *value, bool *found)
{
    *found = false;
    pm_table_memo *m = t->memo;
    pm_error *e = NULL;
    pthread_mutex_lock(&m->mu);
    memo_slot *s;
    while ((s = find(m, key)) && s->state == SLOT_CLAIMED)
        pthread_cond_wait(&m->cv, &m->mu);
    if (s) {
        e = pm_buf_append(value, s->value.data, s->value.len);
        *found = !e;
    } else if (!(s = take_slot(m))) {
        e = pm_error_new(PM_EINTERNAL, "table memo: all %d keys are being computed", PM_TABLE_MEMO_MAX);
    } else if (!(e = pm_strdup(&s->key, key))) {
        s->state = SLOT_CLAIMED;
    }
    pthread_mutex_unlock(&m->mu);
    return e;
}

pm_error *pm_table_memo_put(pm_table *t, const char *key, const void *value, size_t len)
{
    pm_table_memo *m = t->memo;
    pm_error *e = NULL;
    pthread_mutex_lock(&m->mu);
    memo_slot *s = find(m, key);
    if (!s || s->state != SLOT_CLAIMED) {
        e = pm_error_new(PM_EINTERNAL, "table memo: key %s was not claimed", key);
    } else {
        pm_buf_clear(&s->value);
        e = pm_buf_append(&s->value, value, len);
        if (e) {
            slot_clear(s);
        } else {
            s->state = SLOT_STORED;
            s->order = m->next_order++;
        }
    }
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    return e;
}

void pm_table_memo_abandon(pm_table *t, const char *key)
{
    pm_table_memo *m = t->memo;
    pthread_mutex_lock(&m->mu);
    memo_slot *s = find(m, key);
    if (s && s->state == SLOT_CLAIMED)
        slot_clear(s);
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}
