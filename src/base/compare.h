/*
 * base/compare.h — three-way comparisons that several layers need with
 * Java's exact semantics (statistics min/max, merge functions):
 *  - pm_cmp_java_double: Double.compare / Float.compare order: -0.0 < 0.0,
 *    NaN above everything and equal to NaN;
 *  - pm_cmp_bytes: unsigned lexicographic order, a prefix first.
 * Both return -1, 0 or 1.
 */
#ifndef PM_BASE_COMPARE_H
#define PM_BASE_COMPARE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int pm_cmp_java_double(double a, double b)
{
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    bool an = isnan(a), bn = isnan(b);
    if (an || bn)
        return an == bn ? 0 : (an ? 1 : -1);
    bool as = signbit(a), bs = signbit(b);
    return as == bs ? 0 : (as ? -1 : 1);
}

static inline int pm_cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

#endif
