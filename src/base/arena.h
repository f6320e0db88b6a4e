/*
 * base/arena.h — bump allocator for per-task scratch memory.
 *
 * Allocations are carved from large blocks and released all at once with
 * pm_arena_reset (keeps the first block for reuse) or pm_arena_free.  The
 * arena tracks the bytes it holds so a task can stay within its budget.
 * Not thread-safe: one arena per task or thread.
 */
#ifndef PM_BASE_ARENA_H
#define PM_BASE_ARENA_H

#include <stddef.h>

typedef struct pm_arena_block pm_arena_block;

typedef struct pm_arena {
    pm_arena_block *head;   /* current block (newest) */
    size_t block_size;      /* default size of new blocks */
    size_t bytes_reserved;  /* total bytes of all blocks */
} pm_arena;

/* block_size 0 picks 64 KiB. */
void pm_arena_init(pm_arena *a, size_t block_size);
/* Aligned allocation (align a power of two <= 64); NULL on OOM. */
void *pm_arena_alloc(pm_arena *a, size_t size, size_t align);
void *pm_arena_calloc(pm_arena *a, size_t size, size_t align);
char *pm_arena_strndup(pm_arena *a, const char *s, size_t n);
char *pm_arena_strdup(pm_arena *a, const char *s);
/* Drop all allocations; keeps one block. */
void pm_arena_reset(pm_arena *a);
void pm_arena_free(pm_arena *a);

#endif
