/*
 * service/latch.c — one pass per bucket at a time.
 *
 * A latch is a key: "db.t|partition|bucket" for a bucket (held from the
 * moment its pass is queued until it finishes or is cancelled), "db.t|*"
 * for the whole table (maintenance, which must not run beside a pass of
 * its table).  The caller holds the service mutex.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc.h"

void svc_latches_clear(svc_latches *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->keys[i]);
    free(l->keys);
    memset(l, 0, sizeof *l);
}

char *svc_latch_key(const char *table, const char *partition, int32_t bucket)
{
    size_t n = strlen(table) + (partition ? strlen(partition) : 0) + 32;
    char *k = malloc(n);
    if (!k)
        return NULL;
    if (bucket < 0)
        snprintf(k, n, "%s|*", table);
    else
        snprintf(k, n, "%s|%s|%d", table, partition ? partition : "", (int)bucket);
    return k;
}

static bool has_key(const svc_latches *l, const char *k)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->keys[i], k))
            return true;
    return false;
}

static bool has_table_prefix(const svc_latches *l, const char *table)
{
    size_t n = strlen(table);
    for (size_t i = 0; i < l->n; i++)
        if (!strncmp(l->keys[i], table, n) && l->keys[i][n] == '|')
            return true;
    return false;
}

bool svc_latch_held(const svc_latches *l, const char *table, const char *partition, int32_t bucket)
{
    if (bucket < 0)
        return has_table_prefix(l, table);
    char *tk = svc_latch_key(table, NULL, -1), *bk = svc_latch_key(table, partition, bucket);
    bool held = !tk || !bk || has_key(l, tk) || has_key(l, bk);
    free(tk);
    free(bk);
    return held;
}

bool svc_latch_try(svc_latches *l, const char *table, const char *partition, int32_t bucket)
{
    if (svc_latch_held(l, table, partition, bucket))
        return false;
    char *k = svc_latch_key(table, partition, bucket);
    if (!k)
        return false;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **nk = realloc(l->keys, cap * sizeof *nk);
        if (!nk) {
            free(k);
            return false;
        }
        l->keys = nk;
        l->cap = cap;
    }
    l->keys[l->n++] = k;
    return true;
}

void svc_latch_release(svc_latches *l, const char *table, const char *partition, int32_t bucket)
{
    char *k = svc_latch_key(table, partition, bucket);
    for (size_t i = 0; k && i < l->n; i++) {
        if (!strcmp(l->keys[i], k)) {
            free(l->keys[i]);
            l->keys[i] = l->keys[--l->n];
            break;
        }
    }
    free(k);
}
