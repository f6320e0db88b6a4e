/*
 * base/arena.c — bump allocator (see arena.h).
 *
 * Layout: a singly linked list of blocks, newest first.  Each block has a
 * header followed by its payload; `used` is the bump offset.  Requests larger
 * than a quarter of the block size get a dedicated block so that big
 * allocations do not waste the tail of the current block.
 */
#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pm_arena_block {
    pm_arena_block *next;
    size_t size;
    size_t used;
    unsigned char data[];
};

/* Offset >= used at which `data + offset` is aligned to `align`. */
static size_t aligned_offset(const pm_arena_block *b, size_t used, size_t align)
{
    uintptr_t at = (uintptr_t)(b->data + used);
    return used + (size_t)((align - (at & (align - 1))) & (align - 1));
}

void pm_arena_init(pm_arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
    a->bytes_reserved = 0;
}

static pm_arena_block *new_block(pm_arena *a, size_t size)
{
    if (size > SIZE_MAX - sizeof(pm_arena_block))
        return NULL;
    pm_arena_block *b = malloc(sizeof(pm_arena_block) + size);
    if (!b)
        return NULL;
    b->size = size;
    b->used = 0;
    a->bytes_reserved += size;
    return b;
}

void *pm_arena_alloc(pm_arena *a, size_t size, size_t align)
{
    if (align == 0)
        align = 1;
    pm_arena_block *b = a->head;
    if (b) {
        size_t off = aligned_offset(b, b->used, align);
        if (off <= b->size && size <= b->size - off) {
            b->used = off + size;
            return b->data + off;
        }
    }
    if (size > SIZE_MAX - align)
        return NULL;
    if (size > a->block_size / 4) {
        pm_arena_block *big = new_block(a, size + align);
        if (!big)
            return NULL;
        size_t off = aligned_offset(big, 0, align);
        big->used = off + size;
        /* Keep the current block at the head so its free tail stays usable. */
        if (b) {
            big->next = b->next;
            b->next = big;
        } else {
            big->next = NULL;
            a->head = big;
        }
        return big->data + off;
    }
    pm_arena_block *nb = new_block(a, a->block_size + align);
    if (!nb)
        return NULL;
    nb->next = b;
    a->head = nb;
    size_t off = aligned_offset(nb, 0, align);
    nb->used = off + size;
    return nb->data + off;
}

void *pm_arena_calloc(pm_arena *a, size_t size, size_t align)
{
    void *p = pm_arena_alloc(a, size, align);
    if (p)
        memset(p, 0, size);
    return p;
}

char *pm_arena_strndup(pm_arena *a, const char *s, size_t n)
{
    char *d = pm_arena_alloc(a, n + 1, 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *pm_arena_strdup(pm_arena *a, const char *s) { return pm_arena_strndup(a, s, strlen(s)); }

void pm_arena_reset(pm_arena *a)
{
    pm_arena_block *keep = NULL;
    pm_arena_block *b = a->head;
    a->bytes_reserved = 0;
    while (b) {
        pm_arena_block *next = b->next;
        if (!keep && b->size >= a->block_size && b->size <= a->block_size + 64) {
            keep = b;
            keep->used = 0;
            keep->next = NULL;
            a->bytes_reserved = keep->size;
        } else {
            free(b);
        }
        b = next;
    }
    a->head = keep;
}

void pm_arena_free(pm_arena *a)
{
    pm_arena_block *b = a->head;
    while (b) {
        pm_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->bytes_reserved = 0;
}
