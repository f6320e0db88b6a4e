/*
 * dv/roaring_java.c — Java's runOptimize + portable serialization (see
 * roaring_java.h).  Two passes over the values (CRoaring's iterator): the
 * first counts each container's values and runs, the second writes; the
 * size alone is one pass without allocation.
 */
#include "dv/roaring_java.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

typedef enum { C_ARRAY, C_BITMAP, C_RUN } ckind;

typedef struct cinfo {
    uint16_t key;
    uint32_t card;
    uint32_t runs;
    ckind kind;
} cinfo;

static size_t cbytes(const cinfo *c)
{
    switch (c->kind) {
    case C_ARRAY: return 2 * (size_t)c->card;
    case C_BITMAP: return 8192;
    default: return 2 + 4 * (size_t)c->runs;
    }
}

/* One container's kind by Java's runOptimize rule. */
static ckind kind_of(uint32_t card, uint32_t runs)
{
    size_t run = 2 + 4 * (size_t)runs;
    if (card <= 4096)
        return 2 * (size_t)card > run ? C_RUN : C_ARRAY;
    return 8192 > run ? C_RUN : C_BITMAP;
}

/* The containers of bm with Java's kinds; *n of them (malloc'd array). */
static pm_error *containers(const roaring_bitmap_t *bm, cinfo **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    cinfo *cs = NULL;
    size_t cap = 0, k = 0;
    roaring_uint32_iterator_t it;
    roaring_init_iterator(bm, &it);
    uint32_t buf[1024];
    int64_t prev = -2;
    for (;;) {
        uint32_t got = roaring_read_uint32_iterator(&it, buf, 1024);
        if (!got)
            break;
        for (uint32_t i = 0; i < got; i++) {
            uint32_t v = buf[i];
            uint16_t key = (uint16_t)(v >> 16);
            if (k == 0 || cs[k - 1].key != key) {
                if (k == cap) {
                    size_t c = cap ? cap * 2 : 16;
                    pm_error *e = pm_realloc_array(&cs, c, sizeof *cs);
                    if (e) {
                        free(cs);
                        return e;
                    }
                    cap = c;
                }
                cs[k++] = (cinfo){key, 0, 0, C_ARRAY};
                prev = -2;
            }
            cinfo *c = &cs[k - 1];
            c->card++;
            if ((int64_t)(v & 0xFFFF) != prev + 1)
                c->runs++;
            prev = v & 0xFFFF;
        }
    }
    for (size_t i = 0; i < k; i++)
        cs[i].kind = kind_of(cs[i].card, cs[i].runs);
    *out = cs;
    *n = k;
    return NULL;
}

static size_t head_size(const cinfo *cs, size_t n, int *has_run)
{
    *has_run = 0;
    for (size_t i = 0; i < n; i++)
        if (cs[i].kind == C_RUN)
            *has_run = 1;
    size_t h = *has_run ? 4 + (n + 7) / 8 : 8;
    h += 4 * n;
    if (!*has_run || n >= 4)
        h += 4 * n;
    return h;
}

size_t pm_roaring_java_size(const roaring_bitmap_t *bm)
{
    size_t n = 0, body = 0;
    int has_run = 0;
    cinfo c = {0, 0, 0, C_ARRAY};
    int64_t prev = -2;
    roaring_uint32_iterator_t it;
    roaring_init_iterator(bm, &it);
    uint32_t buf[1024], got;
    while ((got = roaring_read_uint32_iterator(&it, buf, 1024)) > 0) {
        for (uint32_t i = 0; i < got; i++) {
            uint16_t key = (uint16_t)(buf[i] >> 16);
            if (n == 0 || key != c.key) {
                if (n) {
                    c.kind = kind_of(c.card, c.runs);
                    has_run |= c.kind == C_RUN;
                    body += cbytes(&c);
                }
                c = (cinfo){key, 0, 0, C_ARRAY};
                prev = -2;
                n++;
            }
            uint32_t low = buf[i] & 0xFFFF;
            c.card++;
            if ((int64_t)low != prev + 1)
                c.runs++;
            prev = low;
        }
    }
    if (n) {
        c.kind = kind_of(c.card, c.runs);
        has_run |= c.kind == C_RUN;
        body += cbytes(&c);
    }
    size_t head = has_run ? 4 + (n + 7) / 8 : 8;
    head += 4 * n;
    if (!has_run || n >= 4)
        head += 4 * n;
    return head + body;
}

static void put16(uint8_t **p, uint32_t v)
{
    (*p)[0] = (uint8_t)v;
    (*p)[1] = (uint8_t)(v >> 8);
    *p += 2;
}

static void put32(uint8_t **p, uint32_t v)
{
    put16(p, v & 0xFFFF);
    put16(p, v >> 16);
}

pm_error *pm_roaring_java_put(pm_buf *out, const roaring_bitmap_t *bm)
{
    cinfo *cs;
    size_t n;
    PM_TRY(containers(bm, &cs, &n));
    int has_run;
    size_t head = head_size(cs, n, &has_run), total = head;
    for (size_t i = 0; i < n; i++)
        total += cbytes(&cs[i]);
    pm_error *e = pm_buf_reserve(out, total);
    if (e) {
        free(cs);
        return e;
    }
    uint8_t *base = out->data + out->len, *p = base;
    memset(base, 0, total);
    if (has_run) {
        put32(&p, 12347u | (uint32_t)(n - 1) << 16);
        for (size_t i = 0; i < n; i++)
            if (cs[i].kind == C_RUN)
                p[i / 8] |= (uint8_t)(1u << (i % 8));
        p += (n + 7) / 8;
    } else {
        put32(&p, 12346u);
        put32(&p, (uint32_t)n);
    }
    for (size_t i = 0; i < n; i++) {
        put16(&p, cs[i].key);
        put16(&p, cs[i].card - 1);
    }
    if (!has_run || n >= 4) {
        size_t off = head;
        for (size_t i = 0; i < n; i++) {
            put32(&p, (uint32_t)off);
            off += cbytes(&cs[i]);
        }
    }
    /* containers, in key order, from the values */
    roaring_uint32_iterator_t it;
    roaring_init_iterator(bm, &it);
    uint32_t buf[1024];
    size_t ci = 0;
    uint8_t *cstart = p;
    uint8_t *runcount = NULL;
    int64_t prev = -2;
    uint32_t nruns = 0;
    for (;;) {
        uint32_t got = roaring_read_uint32_iterator(&it, buf, 1024);
        if (!got)
            break;
        for (uint32_t i = 0; i < got; i++) {
            uint32_t v = buf[i], low = v & 0xFFFF;
            if ((uint16_t)(v >> 16) != cs[ci].key) {
                /* next container */
                if (cs[ci].kind == C_BITMAP)
                    p = cstart + 8192;
                ci++;
                cstart = p;
                runcount = NULL;
                prev = -2;
                nruns = 0;
            }
            const cinfo *c = &cs[ci];
            if (c->kind == C_ARRAY) {
                put16(&p, low);
            } else if (c->kind == C_BITMAP) {
                cstart[low / 8] |= (uint8_t)(1u << (low % 8));
            } else {
                if (!runcount) {
                    runcount = p;
                    p += 2;
                }
                if ((int64_t)low != prev + 1) {
                    put16(&p, low);
                    put16(&p, 0);
                    nruns++;
                    put16(&runcount, nruns);
                    runcount -= 2;
                } else {
                    /* extend the last run's length - 1 */
                    uint8_t *len = p - 2;
                    uint32_t l = (uint32_t)len[0] | (uint32_t)len[1] << 8;
                    l++;
                    len[0] = (uint8_t)l;
                    len[1] = (uint8_t)(l >> 8);
                }
            }
            prev = low;
        }
    }
    if (n && cs[ci].kind == C_BITMAP)
        p = cstart + 8192;
    free(cs);
    if ((size_t)(p - base) != total)
        return pm_error_new(PM_EINTERNAL, "roaring serialization wrote %zu bytes, expected %zu",
                            (size_t)(p - base), total);
    out->len += total;
    return NULL;
}
