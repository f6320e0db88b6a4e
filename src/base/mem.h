/*
 * base/mem.h — allocation helpers that turn a failed malloc into a pm_error.
 *
 * Plain malloc/free are used everywhere; these helpers only save the
 * NULL-check boilerplate and make overflow of n*size impossible.
 */
#ifndef PM_BASE_MEM_H
#define PM_BASE_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"

/* The shared out-of-memory error (static; pm_error_free ignores it). */
pm_error *pm_oom(void);

/* *out = calloc(n, size); PM_ENOMEM on failure or overflow. */
pm_error *pm_calloc(void *out_ptr, size_t n, size_t size);
/* *p = realloc(*p, n*size) keeping *p on failure. */
pm_error *pm_realloc_array(void *p_ptr, size_t n, size_t size);
/* Duplicate a NUL-terminated string or n bytes (+NUL). NULL in → NULL out, no error. */
pm_error *pm_strdup(char **out, const char *s);
pm_error *pm_strndup(char **out, const char *s, size_t n);

/* Grow *cap geometrically so that it is >= need; returns 0 on overflow. */
size_t pm_grow_cap(size_t cap, size_t need);

#endif
