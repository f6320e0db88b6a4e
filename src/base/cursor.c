/*
 * base/cursor.c — bounds-checked reads (see cursor.h).
 */
#include "base/cursor.h"

#include <string.h>

pm_error *pm_cursor_short(const pm_cursor *c, size_t need, const char *what)
{
    return pm_error_new(PM_ECORRUPT, "truncated data reading %s: need %zu bytes, %zu left",
                        what ? what : "value", need, pm_cursor_left(c));
}

pm_error *pm_cursor_take(pm_cursor *c, size_t n, const uint8_t **out, const char *what)
{
    if (!pm_cursor_has(c, n))
        return pm_cursor_short(c, n, what);
    *out = c->p;
    c->p += n;
    return NULL;
}

pm_error *pm_cursor_skip(pm_cursor *c, size_t n, const char *what)
{
    if (!pm_cursor_has(c, n))
        return pm_cursor_short(c, n, what);
    c->p += n;
    return NULL;
}

pm_error *pm_cursor_u8(pm_cursor *c, uint8_t *out, const char *what)
{
    if (!pm_cursor_has(c, 1))
        return pm_cursor_short(c, 1, what);
    *out = *c->p++;
    return NULL;
}

#define FIXED_READER(name, type, n, load)                              \
    pm_error *name(pm_cursor *c, type *out, const char *what)          \
    {                                                                  \
        if (!pm_cursor_has(c, n))                                      \
            return pm_cursor_short(c, n, what);                        \
        *out = load(c->p);                                             \
        c->p += n;                                                     \
        return NULL;                                                   \
    }

FIXED_READER(pm_cursor_u32le, uint32_t, 4, pm_load_u32le)
FIXED_READER(pm_cursor_u64le, uint64_t, 8, pm_load_u64le)
FIXED_READER(pm_cursor_u32be, uint32_t, 4, pm_load_u32be)
FIXED_READER(pm_cursor_u64be, uint64_t, 8, pm_load_u64be)

pm_error *pm_cursor_uvarint(pm_cursor *c, uint64_t *out, const char *what)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end)
            return pm_cursor_short(c, 1, what);
        uint8_t b = *c->p++;
        if (shift == 63 && (b & 0x7e))
            return pm_error_new(PM_ECORRUPT, "varint overflows 64 bits reading %s", what ? what : "value");
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return NULL;
        }
    }
    return pm_error_new(PM_ECORRUPT, "varint longer than 10 bytes reading %s", what ? what : "value");
}

pm_error *pm_cursor_svarint(pm_cursor *c, int64_t *out, const char *what)
{
    uint64_t u;
    PM_TRY(pm_cursor_uvarint(c, &u, what));
    *out = pm_zigzag_decode(u);
    return NULL;
}
