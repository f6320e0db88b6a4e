/*
 * dv/roaring_check.c — validation of portable Roaring bitmaps (see
 * roaring_check.h for the layout and the rules).
 */
#include "dv/roaring_check.h"

#include <stdbool.h>

#include "base/cursor.h"

#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u
#define NO_OFFSET_THRESHOLD 4u
#define ARRAY_MAX 4096u
#define BITSET_BYTES 8192u
#define MAX_CONTAINERS 65536u

static pm_error *check_run(pm_cursor *c, unsigned idx, uint32_t card)
{
    const uint8_t *p;
    uint32_t nruns;
    PM_TRY(pm_cursor_take(c, 2, &p, "roaring run count"));
    nruns = pm_load_u16le(p);
    if (nruns == 0)
        return pm_error_new(PM_ECORRUPT, "roaring container %u: run container without runs", idx);
    PM_TRY(pm_cursor_take(c, (size_t)nruns * 4, &p, "roaring runs"));
    uint64_t total = 0;
    int64_t prev_end = -1; /* last value of the previous run */
    for (uint32_t r = 0; r < nruns; r++) {
        uint32_t start = pm_load_u16le(p + 4 * r);
        uint32_t len = pm_load_u16le(p + 4 * r + 2); /* length - 1 */
        if ((int64_t)start <= prev_end)
            return pm_error_new(PM_ECORRUPT, "roaring container %u: run %u overlaps or is out of order", idx, r);
        if (start + len > 65535u)
            return pm_error_new(PM_ECORRUPT, "roaring container %u: run %u passes 65535", idx, r);
        prev_end = (int64_t)(start + len);
        total += (uint64_t)len + 1;
    }
    if (total != card)
        return pm_error_new(PM_ECORRUPT, "roaring container %u: runs hold %u values, header says %u", idx,
                       (unsigned)total, card);
    return NULL;
}

static pm_error *check_bitset(pm_cursor *c, unsigned idx, uint32_t card)
{
    const uint8_t *p;
    PM_TRY(pm_cursor_take(c, BITSET_BYTES, &p, "roaring bitset container"));
    uint64_t pop = 0;
    for (size_t i = 0; i < BITSET_BYTES; i += 8)
        pop += (uint64_t)__builtin_popcountll(pm_load_u64le(p + i));
    if (pop != card)
        return pm_error_new(PM_ECORRUPT, "roaring container %u: bitset holds %u values, header says %u", idx,
                       (unsigned)pop, card);
    return NULL;
}

static pm_error *check_array(pm_cursor *c, unsigned idx, uint32_t card)
{
    const uint8_t *p;
    PM_TRY(pm_cursor_take(c, (size_t)card * 2, &p, "roaring array container"));
    int32_t prev = -1;
    for (uint32_t i = 0; i < card; i++) {
        int32_t v = pm_load_u16le(p + 2 * i);
        if (v <= prev)
            return pm_error_new(PM_ECORRUPT, "roaring container %u: array value %u not increasing", idx, i);
        prev = v;
    }
    return NULL;
}

pm_error *pm_roaring_check(const uint8_t *data, size_t n, size_t *size, uint64_t *cardinality)
{
    pm_cursor c = pm_cursor_make(data, n);
    uint32_t cookie, count;
    const uint8_t *runs = NULL, *header;
    bool has_run;

    PM_TRY(pm_cursor_u32le(&c, &cookie, "roaring cookie"));
    if ((cookie & 0xFFFFu) == COOKIE_RUN) {
        has_run = true;
        count = (cookie >> 16) + 1;
        PM_TRY(pm_cursor_take(&c, (count + 7) / 8, &runs, "roaring run-container flags"));
    } else if (cookie == COOKIE_NO_RUN) {
        has_run = false;
        PM_TRY(pm_cursor_u32le(&c, &count, "roaring container count"));
        if (count > MAX_CONTAINERS)
            return pm_error_new(PM_ECORRUPT, "roaring bitmap: %u containers (at most %u)", count, MAX_CONTAINERS);
    } else {
        return pm_error_new(PM_ECORRUPT, "roaring bitmap: bad cookie 0x%08x", cookie);
    }
    PM_TRY(pm_cursor_take(&c, (size_t)count * 4, &header, "roaring container headers"));
    if (!has_run || count >= NO_OFFSET_THRESHOLD)
        PM_TRY(pm_cursor_skip(&c, (size_t)count * 4, "roaring container offsets"));

    uint64_t total = 0;
    int32_t prev_key = -1;
    for (uint32_t i = 0; i < count; i++) {
        int32_t key = pm_load_u16le(header + 4 * i);
        uint32_t card = (uint32_t)pm_load_u16le(header + 4 * i + 2) + 1;
        if (key <= prev_key)
            return pm_error_new(PM_ECORRUPT, "roaring container %u: key %u not increasing", i, (unsigned)key);
        prev_key = key;
        if (has_run && (runs[i / 8] >> (i % 8) & 1))
            PM_TRY(check_run(&c, i, card));
        else if (card > ARRAY_MAX)
            PM_TRY(check_bitset(&c, i, card));
        else
            PM_TRY(check_array(&c, i, card));
        total += card;
    }
    *size = (size_t)(c.p - data);
    *cardinality = total;
    return NULL;
}
