/*
 * tests/unit/lsm/lsm_test_util.h — helpers shared by the lsm tests: a
 * seeded PRNG, in-memory sources over lists of batches (counting closes),
 * and a KeyValue table of (k BIGINT key, seq, kind, k, v BIGINT, s STRING)
 * rows built from plain structs.
 */
#ifndef LSM_TEST_UTIL_H
#define LSM_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "lsm/merge_reader.h"
#include "pm_test.h"

static uint64_t lt_rng = 0x243f6a8885a308d3ull;
static inline void lt_seed(uint64_t s) { lt_rng = s ? s : 1; }
static inline uint64_t lt_rand(void)
{
    lt_rng ^= lt_rng << 13;
    lt_rng ^= lt_rng >> 7;
    lt_rng ^= lt_rng << 17;
    return lt_rng;
}
static inline uint64_t lt_below(uint64_t n) { return n ? lt_rand() % n : 0; }

/* ---- in-memory sources ---- */

typedef struct lt_src {
    pm_batch **b;
    size_t n, pos;
    int *closes;
    int fail_at;     /* return an error instead of batch number fail_at (-1 = never) */
} lt_src;

static pm_error *lt_src_next(void *ctx, pm_batch **out)
{
    lt_src *s = ctx;
    if (s->fail_at >= 0 && (size_t)s->fail_at == s->pos)
        return pm_error_new(PM_EIO, "injected read failure");
    *out = s->pos < s->n ? s->b[s->pos] : NULL;
    if (s->pos < s->n)
        s->b[s->pos++] = NULL;
    return NULL;
}

static void lt_src_close(void *ctx)
{
    lt_src *s = ctx;
    for (size_t i = 0; i < s->n; i++)
        pm_batch_free(s->b[i]);
    free(s->b);
    if (s->closes)
        (*s->closes)++;
    free(s);
}

/* A source taking ownership of the batch array (malloc'd). */
static inline pm_kv_source lt_source(pm_batch **b, size_t n, int *closes)
{
    lt_src *s = calloc(1, sizeof *s);
    s->b = b;
    s->n = n;
    s->closes = closes;
    s->fail_at = -1;
    pm_kv_source src = {s, lt_src_next, lt_src_close, NULL};
    return src;
}

/* ---- the test table ---- */

typedef struct lt_rec {
    int64_t k;
    int64_t seq;
    uint8_t kind;
    int64_t v;
    bool v_null;
    const char *s;      /* NULL = null */
} lt_rec;

/* Physical KeyValue row type: _KEY_k, _SEQUENCE_NUMBER, _VALUE_KIND, k, v, s. */
static inline pm_type *lt_row_type(void)
{
    pm_type *t = pm_type_new_row(false);
    pm_type_add_field(t, 1073741823, "_KEY_k", pm_type_new(PM_TYPE_BIGINT, false));
    pm_type_add_field(t, 2147483646, "_SEQUENCE_NUMBER", pm_type_new(PM_TYPE_BIGINT, false));
    pm_type_add_field(t, 2147483645, "_VALUE_KIND", pm_type_new(PM_TYPE_TINYINT, false));
    pm_type_add_field(t, 0, "k", pm_type_new(PM_TYPE_BIGINT, false));
    pm_type_add_field(t, 1, "v", pm_type_new(PM_TYPE_BIGINT, true));
    pm_type_add_field(t, 2, "s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true));
    return t;
}

static inline pm_batch *lt_batch(const pm_type *t, const lt_rec *r, size_t n)
{
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_new(&b, t));
    for (size_t i = 0; i < n; i++) {
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[0], r[i].k));
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[1], r[i].seq));
        PM_OK_OR_FAIL(pm_column_append_i8(b->columns[2], (int8_t)r[i].kind));
        PM_OK_OR_FAIL(pm_column_append_i64(b->columns[3], r[i].k));
        if (r[i].v_null)
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[4]));
        else
            PM_OK_OR_FAIL(pm_column_append_i64(b->columns[4], r[i].v));
        if (r[i].s)
            PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[5], r[i].s, strlen(r[i].s)));
        else
            PM_OK_OR_FAIL(pm_column_append_null(b->columns[5]));
    }
    PM_OK_OR_FAIL(pm_batch_finish(b, (int64_t)n));
    return b;
}

/* Split records into batches of `per` rows (plus, when `empties`, empty
 * batches sprinkled in) → a source. */
static inline pm_kv_source lt_source_of(const pm_type *t, const lt_rec *r, size_t n, size_t per, bool empties,
                                        int *closes)
{
    size_t cap = n / (per ? per : 1) + 4 + (empties ? n + 2 : 0);
    pm_batch **b = calloc(cap, sizeof *b);
    size_t nb = 0;
    for (size_t i = 0; i < n; i += per) {
        if (empties && lt_below(3) == 0)
            b[nb++] = lt_batch(t, NULL, 0);
        size_t m = n - i < per ? n - i : per;
        b[nb++] = lt_batch(t, r + i, m);
    }
    if (empties)
        b[nb++] = lt_batch(t, NULL, 0);
    return lt_source(b, nb, closes);
}

static inline void lt_layout(pm_kv_layout *l)
{
    PM_OK_OR_FAIL(pm_kv_layout_physical(l, 1, 3));
}

#endif
