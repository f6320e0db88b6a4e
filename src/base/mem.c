/*
 * base/mem.c — allocation helpers returning pm_error on failure.
 */
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

pm_error *pm_oom(void)
{
    /* pm_error_new falls back to its static OOM object when it cannot
     * allocate; asking for an impossible message is not needed: we build a
     * regular error and only get the static one under real memory pressure. */
    return pm_error_new(PM_ENOMEM, "out of memory");
}

pm_error *pm_calloc(void *out_ptr, size_t n, size_t size)
{
    void **out = out_ptr;
    *out = NULL;
    if (size && n > SIZE_MAX / size)
        return pm_error_new(PM_ENOMEM, "allocation of %zu x %zu bytes overflows", n, size);
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        return pm_oom();
    *out = p;
    return NULL;
}

pm_error *pm_realloc_array(void *p_ptr, size_t n, size_t size)
{
    void **p = p_ptr;
    if (size && n > SIZE_MAX / size)
        return pm_error_new(PM_ENOMEM, "allocation of %zu x %zu bytes overflows", n, size);
    size_t bytes = n * size;
    void *q = realloc(*p, bytes ? bytes : 1);
    if (!q)
        return pm_oom();
    *p = q;
    return NULL;
}

pm_error *pm_strndup(char **out, const char *s, size_t n)
{
    *out = NULL;
    if (!s)
        return NULL;
    char *d = malloc(n + 1);
    if (!d)
        return pm_oom();
    memcpy(d, s, n);
    d[n] = '\0';
    *out = d;
    return NULL;
}

pm_error *pm_strdup(char **out, const char *s)
{
    *out = NULL;
    if (!s)
        return NULL;
    return pm_strndup(out, s, strlen(s));
}

size_t pm_grow_cap(size_t cap, size_t need)
{
    if (need <= cap)
        return cap;
    size_t c = cap ? cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return need;
        c *= 2;
    }
    return c;
}
