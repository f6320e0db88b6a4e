/*
 * base/fault.c — PAIMON_FAULT_INJECT lookup (fault.h): split the value at
 * commas and compare each item with the point name.
 */
#include "base/fault.h"

#include <stdlib.h>
#include <string.h>

bool pm_fault(const char *name)
{
#ifdef NDEBUG
    (void)name;
    return false;
#else
    const char *v = getenv("PAIMON_FAULT_INJECT");
    if (!v || !*v || !name)
        return false;
    size_t n = strlen(name);
    for (const char *p = v;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return true;
        if (!end)
            return false;
        p = end + 1;
    }
#endif
}
