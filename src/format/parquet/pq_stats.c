/*
 * format/parquet/pq_stats.c — writer-side column statistics (orders and the
 * thrift layout rules are in pq_stats.h).
 *
 * Min/max of fixed-width blocks: on x86-64 with AVX2 (checked per call with
 * __builtin_cpu_supports, no state of our own) the leading whole groups of
 * 16 (4-byte) or 8 (8-byte) values fold into two vector accumulators each
 * for min and max, started from the running values; the lanes fold into
 * one at the end and the remaining values go through the scalar loop
 * (PQ_MINMAX4), which is also the path elsewhere and for s->portable.
 * Floats use MINPS/MINPD(y, m) = y < m ? y : m, the scalar compare, so a NaN
 * never wins there either; an unordered compare of y with itself collects
 * NaNs.  INT64 has no AVX2 min/max: compare and blend.
 */
#include "format/parquet/pq_stats.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PQ_STATS_AVX2 1
#endif

void pq_stats_init(pq_stats *s, pq_stats_kind kind)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
}

void pq_stats_free(pq_stats *s)
{
    pm_buf_free(&s->min_bytes);
    pm_buf_free(&s->max_bytes);
}

void pq_stats_reset(pq_stats *s)
{
    s->null_count = 0;
    s->has_minmax = false;
    s->has_nan = false;
    memset(&s->min, 0, sizeof s->min);
    memset(&s->max, 0, sizeof s->max);
    pm_buf_clear(&s->min_bytes);
    pm_buf_clear(&s->max_bytes);
}

/* Min and max of v[0..n) into *mn / *mx (which hold the running values):
 * four independent accumulators so the compares of neighbouring values do
 * not wait on each other (the loop is bound by the compare chain, not the
 * loads), folded at the end, then the tail.  A NaN never wins a `<` or `>`,
 * so floats need no separate test: *bad collects x != x. */
#define PQ_MINMAX4(T, v, n, mn, mx, bad)                                           \
    do {                                                                         \
        T m0 = *(mn), m1 = *(mn), m2 = *(mn), m3 = *(mn);                        \
        T x0 = *(mx), x1 = *(mx), x2 = *(mx), x3 = *(mx);                        \
        size_t i_ = 0;                                                           \
        for (; i_ + 4 <= (n); i_ += 4) {                                         \
            T y0 = (v)[i_], y1 = (v)[i_ + 1], y2 = (v)[i_ + 2], y3 = (v)[i_ + 3];    \
            *(bad) |= (y0 != y0) | (y1 != y1) | (y2 != y2) | (y3 != y3);         \
            m0 = y0 < m0 ? y0 : m0;                                              \
            m1 = y1 < m1 ? y1 : m1;                                              \
            m2 = y2 < m2 ? y2 : m2;                                              \
            m3 = y3 < m3 ? y3 : m3;                                              \
            x0 = y0 > x0 ? y0 : x0;                                              \
            x1 = y1 > x1 ? y1 : x1;                                              \
            x2 = y2 > x2 ? y2 : x2;                                              \
            x3 = y3 > x3 ? y3 : x3;                                              \
        }                                                                        \
        m0 = m1 < m0 ? m1 : m0;                                                  \
        m2 = m3 < m2 ? m3 : m2;                                                  \
        m0 = m2 < m0 ? m2 : m0;                                                  \
        x0 = x1 > x0 ? x1 : x0;                                                  \
        x2 = x3 > x2 ? x3 : x2;                                                  \
        x0 = x2 > x0 ? x2 : x0;                                                  \
        for (; i_ < (n); i_++) {                                                 \
            T y = (v)[i_];                                                       \
            *(bad) |= y != y;                                                    \
            m0 = y < m0 ? y : m0;                                                \
            x0 = y > x0 ? y : x0;                                                \
        }                                                                        \
        *(mn) = m0;                                                              \
        *(mx) = x0;                                                              \
    } while (0)

#ifdef PQ_STATS_AVX2
/* The vector loops (file comment); each returns how many leading values it
 * took (a multiple of its group), *mn / *mx updated with them. */
#define PQ_LOADI(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))

__attribute__((target("avx2"))) static size_t vec_i32(const int32_t *v, size_t n, int32_t *mn, int32_t *mx)
{
    size_t m = n & ~(size_t)15;
    __m256i a0 = _mm256_set1_epi32(*mn), a1 = a0, b0 = _mm256_set1_epi32(*mx), b1 = b0;
    for (size_t i = 0; i < m; i += 16) {
        __m256i y0 = PQ_LOADI(v + i), y1 = PQ_LOADI(v + i + 8);
        a0 = _mm256_min_epi32(a0, y0);
        a1 = _mm256_min_epi32(a1, y1);
        b0 = _mm256_max_epi32(b0, y0);
        b1 = _mm256_max_epi32(b1, y1);
    }
    int32_t la[8], lb[8];
    _mm256_storeu_si256((__m256i *)(void *)la, _mm256_min_epi32(a0, a1));
    _mm256_storeu_si256((__m256i *)(void *)lb, _mm256_max_epi32(b0, b1));
    for (int k = 0; k < 8; k++) {
        *mn = la[k] < *mn ? la[k] : *mn;
        *mx = lb[k] > *mx ? lb[k] : *mx;
    }
    return m;
}

__attribute__((target("avx2"))) static size_t vec_i64(const int64_t *v, size_t n, int64_t *mn, int64_t *mx)
{
    size_t m = n & ~(size_t)7;
    __m256i a0 = _mm256_set1_epi64x(*mn), a1 = a0, b0 = _mm256_set1_epi64x(*mx), b1 = b0;
    for (size_t i = 0; i < m; i += 8) {
        __m256i y0 = PQ_LOADI(v + i), y1 = PQ_LOADI(v + i + 4);
        a0 = _mm256_blendv_epi8(a0, y0, _mm256_cmpgt_epi64(a0, y0));
        a1 = _mm256_blendv_epi8(a1, y1, _mm256_cmpgt_epi64(a1, y1));
        b0 = _mm256_blendv_epi8(b0, y0, _mm256_cmpgt_epi64(y0, b0));
        b1 = _mm256_blendv_epi8(b1, y1, _mm256_cmpgt_epi64(y1, b1));
    }
    int64_t la[8], lb[8];
    _mm256_storeu_si256((__m256i *)(void *)la, a0);
    _mm256_storeu_si256((__m256i *)(void *)(la + 4), a1);
    _mm256_storeu_si256((__m256i *)(void *)lb, b0);
    _mm256_storeu_si256((__m256i *)(void *)(lb + 4), b1);
    for (int k = 0; k < 8; k++) {
        *mn = la[k] < *mn ? la[k] : *mn;
        *mx = lb[k] > *mx ? lb[k] : *mx;
    }
    return m;
}

__attribute__((target("avx2"))) static size_t vec_f32(const float *v, size_t n, float *mn, float *mx, int *nan)
{
    size_t m = n & ~(size_t)15;
    __m256 a0 = _mm256_set1_ps(*mn), a1 = a0, b0 = _mm256_set1_ps(*mx), b1 = b0;
    __m256 u = _mm256_setzero_ps();
    for (size_t i = 0; i < m; i += 16) {
        __m256 y0 = _mm256_loadu_ps(v + i), y1 = _mm256_loadu_ps(v + i + 8);
        u = _mm256_or_ps(u, _mm256_cmp_ps(y0, y1, _CMP_UNORD_Q));
        a0 = _mm256_min_ps(y0, a0);
        a1 = _mm256_min_ps(y1, a1);
        b0 = _mm256_max_ps(y0, b0);
        b1 = _mm256_max_ps(y1, b1);
    }
    float la[16], lb[16];
    _mm256_storeu_ps(la, a0);
    _mm256_storeu_ps(la + 8, a1);
    _mm256_storeu_ps(lb, b0);
    _mm256_storeu_ps(lb + 8, b1);
    for (int k = 0; k < 16; k++) {
        *mn = la[k] < *mn ? la[k] : *mn;
        *mx = lb[k] > *mx ? lb[k] : *mx;
    }
    *nan |= _mm256_movemask_ps(u) != 0;
    return m;
}

__attribute__((target("avx2"))) static size_t vec_f64(const double *v, size_t n, double *mn, double *mx, int *nan)
{
    size_t m = n & ~(size_t)7;
    __m256d a0 = _mm256_set1_pd(*mn), a1 = a0, b0 = _mm256_set1_pd(*mx), b1 = b0;
    __m256d u = _mm256_setzero_pd();
    for (size_t i = 0; i < m; i += 8) {
        __m256d y0 = _mm256_loadu_pd(v + i), y1 = _mm256_loadu_pd(v + i + 4);
        u = _mm256_or_pd(u, _mm256_cmp_pd(y0, y1, _CMP_UNORD_Q));
        a0 = _mm256_min_pd(y0, a0);
        a1 = _mm256_min_pd(y1, a1);
        b0 = _mm256_max_pd(y0, b0);
        b1 = _mm256_max_pd(y1, b1);
    }
    double la[8], lb[8];
    _mm256_storeu_pd(la, a0);
    _mm256_storeu_pd(la + 4, a1);
    _mm256_storeu_pd(lb, b0);
    _mm256_storeu_pd(lb + 4, b1);
    for (int k = 0; k < 8; k++) {
        *mn = la[k] < *mn ? la[k] : *mn;
        *mx = lb[k] > *mx ? lb[k] : *mx;
    }
    *nan |= _mm256_movemask_pd(u) != 0;
    return m;
}
#undef PQ_LOADI

/* Whether s takes the vector loops for n values of a group of g. */
static bool vec_on(const pq_stats *s, size_t n, size_t g)
{
    return !s->portable && n >= 2 * g && __builtin_cpu_supports("avx2");
}
#define PQ_VEC(s, n, g, call)            \
    do {                                 \
        if (vec_on((s), (n), (g))) {     \
            done = call;                 \
            (s)->vector_values += done;  \
        }                                \
    } while (0)
#else
#define PQ_VEC(s, n, g, call) (void)0
#endif

void pq_stats_update_i32(pq_stats *s, const int32_t *v, size_t n)
{
    if (n == 0)
        return;
    int32_t mn = s->has_minmax ? s->min.i32 : v[0];
    int32_t mx = s->has_minmax ? s->max.i32 : v[0];
    int bad = 0;   /* integers: never set */
    size_t done = 0;
    PQ_VEC(s, n, 16, vec_i32(v, n, &mn, &mx));
    PQ_MINMAX4(int32_t, v + done, n - done, &mn, &mx, &bad);
    s->min.i32 = mn;
    s->max.i32 = mx;
    s->has_minmax = true;
}

void pq_stats_update_i64(pq_stats *s, const int64_t *v, size_t n)
{
    if (n == 0)
        return;
    int64_t mn = s->has_minmax ? s->min.i64 : v[0];
    int64_t mx = s->has_minmax ? s->max.i64 : v[0];
    int bad = 0;
    size_t done = 0;
    PQ_VEC(s, n, 8, vec_i64(v, n, &mn, &mx));
    PQ_MINMAX4(int64_t, v + done, n - done, &mn, &mx, &bad);
    s->min.i64 = mn;
    s->max.i64 = mx;
    s->has_minmax = true;
}

/* Floats: NaN is ignored (it never wins a compare) and remembered; from
 * +inf / -inf the running min / max are real values once any non-NaN was
 * seen, i.e. exactly when min <= max. */
void pq_stats_update_f32(pq_stats *s, const float *v, size_t n)
{
    float mn = s->has_minmax ? s->min.f32 : INFINITY;
    float mx = s->has_minmax ? s->max.f32 : -INFINITY;
    int nan = 0;
    size_t done = 0;
    PQ_VEC(s, n, 16, vec_f32(v, n, &mn, &mx, &nan));
    PQ_MINMAX4(float, v + done, n - done, &mn, &mx, &nan);
    s->has_nan |= nan != 0;
    if (s->has_minmax || mn <= mx) {
        s->min.f32 = mn;
        s->max.f32 = mx;
        s->has_minmax = true;
    }
}

void pq_stats_update_f64(pq_stats *s, const double *v, size_t n)
{
    double mn = s->has_minmax ? s->min.f64 : INFINITY;
    double mx = s->has_minmax ? s->max.f64 : -INFINITY;
    int nan = 0;
    size_t done = 0;
    PQ_VEC(s, n, 8, vec_f64(v, n, &mn, &mx, &nan));
    PQ_MINMAX4(double, v + done, n - done, &mn, &mx, &nan);
    s->has_nan |= nan != 0;
    if (s->has_minmax || mn <= mx) {
        s->min.f64 = mn;
        s->max.f64 = mx;
        s->has_minmax = true;
    }
}

void pq_stats_update_bool(pq_stats *s, bool v)
{
    if (!s->has_minmax) {
        s->min.b = s->max.b = v;
        s->has_minmax = true;
        return;
    }
    if (!v)
        s->min.b = false;
    if (v)
        s->max.b = true;
}

void pq_stats_update_d128(pq_stats *s, __int128 v)
{
    if (!s->has_minmax) {
        s->min.d128 = s->max.d128 = v;
        s->has_minmax = true;
        return;
    }
    if (v < s->min.d128)
        s->min.d128 = v;
    if (v > s->max.d128)
        s->max.d128 = v;
}

static int cmp_bytes(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    if (na && nb) {
        uint64_t pa = pq_stats_prefix8(a, na), pb = pq_stats_prefix8(b, nb);
        if (pa != pb)
            return pa < pb ? -1 : 1;
    }
    size_t n = na < nb ? na : nb;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return na < nb ? -1 : na > nb;
}

static pm_error *set_bytes(pm_buf *b, uint64_t *pfx, const uint8_t *p, size_t len)
{
    pm_buf_clear(b);
    *pfx = pq_stats_prefix8(p, len);
    return pm_buf_append(b, p, len);
}

pm_error *pq_stats_update_bytes(pq_stats *s, const uint8_t *p, size_t len)
{
    if (!s->has_minmax) {
        PM_TRY(set_bytes(&s->min_bytes, &s->min_pfx, p, len));
        PM_TRY(set_bytes(&s->max_bytes, &s->max_pfx, p, len));
        s->has_minmax = true;
        return NULL;
    }
    /* Prefixes order like the values (a larger prefix means a larger
     * value): strictly between the cached ones, nothing changes. */
    uint64_t pp = pq_stats_prefix8(p, len);
    if (pp > s->min_pfx && pp < s->max_pfx)
        return NULL;
    if (pp < s->min_pfx || (pp == s->min_pfx && cmp_bytes(p, len, s->min_bytes.data, s->min_bytes.len) < 0))
        PM_TRY(set_bytes(&s->min_bytes, &s->min_pfx, p, len));
    else if (pp > s->max_pfx || (pp == s->max_pfx && cmp_bytes(p, len, s->max_bytes.data, s->max_bytes.len) > 0))
        PM_TRY(set_bytes(&s->max_bytes, &s->max_pfx, p, len));
    return NULL;
}

pm_error *pq_stats_merge(pq_stats *d, const pq_stats *s)
{
    d->null_count += s->null_count;
    d->has_nan |= s->has_nan;
    if (!s->has_minmax)
        return NULL;
    switch (d->kind) {
    case PQS_BOOL:
        pq_stats_update_bool(d, s->min.b);
        pq_stats_update_bool(d, s->max.b);
        return NULL;
    case PQS_I32:
        pq_stats_update_i32(d, &s->min.i32, 1);
        pq_stats_update_i32(d, &s->max.i32, 1);
        return NULL;
    case PQS_I64:
        pq_stats_update_i64(d, &s->min.i64, 1);
        pq_stats_update_i64(d, &s->max.i64, 1);
        return NULL;
    case PQS_F32:
        pq_stats_update_f32(d, &s->min.f32, 1);
        pq_stats_update_f32(d, &s->max.f32, 1);
        return NULL;
    case PQS_F64:
        pq_stats_update_f64(d, &s->min.f64, 1);
        pq_stats_update_f64(d, &s->max.f64, 1);
        return NULL;
    case PQS_DEC128:
        pq_stats_update_d128(d, s->min.d128);
        pq_stats_update_d128(d, s->max.d128);
        return NULL;
    case PQS_BYTES:
    case PQS_INT96:
        PM_TRY(pq_stats_update_bytes(d, s->min_bytes.data, s->min_bytes.len));
        return pq_stats_update_bytes(d, s->max_bytes.data, s->max_bytes.len);
    }
    return NULL;
}

void pq_decimal_to_be(__int128 v, int32_t n, uint8_t *out)
{
    unsigned __int128 u = (unsigned __int128)v;
    for (int32_t i = n - 1; i >= 0; i--) {
        out[i] = (uint8_t)u;
        u >>= 8;
    }
}

size_t pq_stats_value_bytes(const pq_stats *s, int which, int32_t flba_len, uint8_t buf[16],
                            const uint8_t **out)
{
    const pq_stat_value *v = which ? &s->max : &s->min;
    *out = buf;
    switch (s->kind) {
    case PQS_BOOL:
        buf[0] = v->b ? 1 : 0;
        return 1;
    case PQS_I32:
        memcpy(buf, &v->i32, 4);
        return 4;
    case PQS_I64:
        memcpy(buf, &v->i64, 8);
        return 8;
    case PQS_F32: {
        float f = v->f32;
        if (f == 0.0f)
            f = which ? 0.0f : -0.0f;
        memcpy(buf, &f, 4);
        return 4;
    }
    case PQS_F64: {
        double f = v->f64;
        if (f == 0.0)
            f = which ? 0.0 : -0.0;
        memcpy(buf, &f, 8);
        return 8;
    }
    case PQS_DEC128:
        pq_decimal_to_be(v->d128, flba_len, buf);
        return (size_t)flba_len;
    case PQS_BYTES:
    case PQS_INT96: {
        const pm_buf *b = which ? &s->max_bytes : &s->min_bytes;
        *out = b->data;
        return b->len;
    }
    }
    return 0;
}

static uint8_t *arena_copy(pm_arena *a, const uint8_t *p, size_t n)
{
    uint8_t *d = pm_arena_alloc(a, n ? n : 1, 1);
    if (d && n)
        memcpy(d, p, n);
    return d;
}

pm_error *pq_stats_to_thrift(const pq_stats *s, const pq_leaf *leaf, pm_arena *a, pq_statistics *out)
{
    memset(out, 0, sizeof *out);
    uint8_t bmin[16], bmax[16];
    const uint8_t *pmin = NULL, *pmax = NULL;
    size_t nmin = 0, nmax = 0;
    bool minmax = s->has_minmax;
    if (minmax) {
        nmin = pq_stats_value_bytes(s, 0, leaf->type_length, bmin, &pmin);
        nmax = pq_stats_value_bytes(s, 1, leaf->type_length, bmax, &pmax);
    }
    /* Binary statistics (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96) at or over
     * the size limit are dropped entirely. */
    bool binary = leaf->phys == PQ_BYTE_ARRAY || leaf->phys == PQ_FIXED_LEN_BYTE_ARRAY;
    if (binary && minmax && nmin + nmax >= PQ_MAX_STATS_SIZE)
        return NULL;
    out->has_null_count = true;
    out->null_count = s->null_count;
    if (!minmax)
        return NULL;
    uint8_t *cmin = arena_copy(a, pmin, nmin), *cmax = arena_copy(a, pmax, nmax);
    if (!cmin || !cmax)
        return pm_error_new(PM_ENOMEM, "out of memory");
    bool same = nmin == nmax && !memcmp(cmin, cmax, nmin);
    if (s->kind == PQS_INT96 && !same)
        return NULL;   /* INT96 has no defined order: only an all-equal chunk gets min/max */
    out->has_min_value = out->has_max_value = true;
    out->min_value = cmin;
    out->min_value_len = (uint32_t)nmin;
    out->max_value = cmax;
    out->max_value_len = (uint32_t)nmax;
    if (leaf->legacy_stats || same) {
        out->has_min = out->has_max = true;
        out->min = cmin;
        out->min_len = (uint32_t)nmin;
        out->max = cmax;
        out->max_len = (uint32_t)nmax;
    }
    return NULL;
}
