/*
 * lsm/merge_agg.c — field values and aggregators of the reducing merge
 * engines (semantics in merge_agg.h).
 *
 * Decimal arithmetic beyond 128 bits (products and quotients of DECIMAL
 * p > 18) uses a small unsigned 256-bit integer: a 128×128 multiply, a
 * division by 10 (for rescaling, the last dropped digit decides HALF_UP
 * rounding), and a shift-subtract division by a 128-bit divisor.
 */
#include "lsm/merge_agg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/compare.h"
#include "base/mem.h"

/* ------------------------------------------------------------------ */
/* Typed access                                                        */

static bool is_int_type(pm_type_id id)
{
    return id == PM_TYPE_TINYINT || id == PM_TYPE_SMALLINT || id == PM_TYPE_INT || id == PM_TYPE_BIGINT ||
           id == PM_TYPE_DATE || id == PM_TYPE_TIME || id == PM_TYPE_TIMESTAMP || id == PM_TYPE_TIMESTAMP_LTZ;
}

static int64_t cell_i64(const pm_column *c, int64_t r)
{
    switch (c->type->id) {
    case PM_TYPE_TINYINT: return pm_column_i8(c, r);
    case PM_TYPE_SMALLINT: return pm_column_i16(c, r);
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: return pm_column_i32(c, r);
    default: return pm_column_i64(c, r);
    }
}

static int64_t mv_i64(const pm_mval *v) { return v->form == MV_REF ? cell_i64(v->col, v->row) : v->u.i; }
static float mv_f32(const pm_mval *v) { return v->form == MV_REF ? pm_column_f32(v->col, v->row) : v->u.f; }
static double mv_f64(const pm_mval *v) { return v->form == MV_REF ? pm_column_f64(v->col, v->row) : v->u.d; }
static __int128 mv_dec(const pm_mval *v) { return v->form == MV_REF ? pm_column_decimal(v->col, v->row) : v->u.dec; }
static bool mv_bool(const pm_mval *v) { return v->form == MV_REF ? pm_column_bool(v->col, v->row) : v->u.b; }

static const uint8_t *mv_bytes(const pm_mval *v, size_t *n)
{
    if (v->form == MV_BYTES) {
        *n = v->n;
        return v->p ? v->p : (const uint8_t *)"";
    }
    return pm_column_bytes(v->col, v->row, n);
}

pm_error *pm_mv_append(pm_column *dst, const pm_mval *v)
{
    switch (v->form) {
    case MV_NULL: return pm_column_append_null(dst);
    case MV_REF:
    case MV_COL: return pm_column_append_from(dst, v->col, v->row);
    case MV_I64:
        switch (dst->type->id) {
        case PM_TYPE_TINYINT: return pm_column_append_i8(dst, (int8_t)v->u.i);
        case PM_TYPE_SMALLINT: return pm_column_append_i16(dst, (int16_t)v->u.i);
        case PM_TYPE_INT:
        case PM_TYPE_DATE:
        case PM_TYPE_TIME: return pm_column_append_i32(dst, (int32_t)v->u.i);
        default: return pm_column_append_i64(dst, v->u.i);
        }
    case MV_F32: return pm_column_append_f32(dst, v->u.f);
    case MV_F64: return pm_column_append_f64(dst, v->u.d);
    case MV_DEC: return pm_column_append_decimal(dst, v->u.dec);
    case MV_BOOL: return pm_column_append_bool(dst, v->u.b);
    case MV_BYTES: return pm_column_append_bytes(dst, v->p, v->n);
    default: return pm_error_new(PM_EINTERNAL, "merge value of form %d", (int)v->form);
    }
}

int pm_mv_compare(const pm_type *t, const pm_mval *a, const pm_mval *b)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return (int)mv_bool(a) - (int)mv_bool(b);
    case PM_TYPE_FLOAT: return pm_cmp_java_double(mv_f32(a), mv_f32(b));
    case PM_TYPE_DOUBLE: return pm_cmp_java_double(mv_f64(a), mv_f64(b));
    case PM_TYPE_DECIMAL: {
        __int128 x = mv_dec(a), y = mv_dec(b);
        return (x > y) - (x < y);
    }
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        size_t an, bn;
        const uint8_t *ap = mv_bytes(a, &an), *bp = mv_bytes(b, &bn);
        return pm_cmp_bytes(ap, an, bp, bn);
    }
    default: {
        int64_t x = mv_i64(a), y = mv_i64(b);
        return (x > y) - (x < y);
    }
    }
}

/* Deep value equality of two cells of the same type.  identity_binary:
 * BINARY/VARBINARY cells are never equal (Java compares byte[] by
 * identity in collect/merge_map). */
static bool cell_eq(const pm_column *a, int64_t i, const pm_column *b, int64_t j, bool identity_binary)
{
    bool na = pm_column_is_null(a, i), nb = pm_column_is_null(b, j);
    if (na || nb)
        return na && nb;
    const pm_type *t = a->type;
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return pm_column_bool(a, i) == pm_column_bool(b, j);
    case PM_TYPE_FLOAT: {
        float x = pm_column_f32(a, i), y = pm_column_f32(b, j);
        if (isnan(x) || isnan(y))
            return isnan(x) && isnan(y);
        uint32_t ux, uy;
        memcpy(&ux, &x, 4);
        memcpy(&uy, &y, 4);
        return ux == uy;
    }
    case PM_TYPE_DOUBLE: {
        double x = pm_column_f64(a, i), y = pm_column_f64(b, j);
        if (isnan(x) || isnan(y))
            return isnan(x) && isnan(y);
        uint64_t ux, uy;
        memcpy(&ux, &x, 8);
        memcpy(&uy, &y, 8);
        return ux == uy;
    }
    case PM_TYPE_DECIMAL: return pm_column_decimal(a, i) == pm_column_decimal(b, j);
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB:
        if (identity_binary)
            return false;
        /* fall through */
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: {
        size_t an, bn;
        const uint8_t *ap = pm_column_bytes(a, i, &an), *bp = pm_column_bytes(b, j, &bn);
        return an == bn && (an == 0 || memcmp(ap, bp, an) == 0);
    }
    case PM_TYPE_ARRAY:
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        const int32_t *oa = pm_column_offsets(a), *ob = pm_column_offsets(b);
        int32_t la = oa[i + 1] - oa[i], lb = ob[j + 1] - ob[j];
        if (la != lb)
            return false;
        for (int32_t k = 0; k < la; k++)
            for (size_t c = 0; c < a->nchildren; c++)
                if (!cell_eq(a->children[c], oa[i] + k, b->children[c], ob[j] + k, false))
                    return false;
        return true;
    }
    case PM_TYPE_ROW:
        for (size_t c = 0; c < a->nchildren; c++)
            if (!cell_eq(a->children[c], i, b->children[c], j, false))
                return false;
        return true;
    default:
        if (is_int_type(t->id))
            return cell_i64(a, i) == cell_i64(b, j);
        return false;
    }
}

/* ------------------------------------------------------------------ */
/* Decimals                                                            */

typedef struct u256 {
    uint64_t w[4]; /* little-endian limbs */
} u256;

static u256 u256_mul128(unsigned __int128 a, unsigned __int128 b)
{
    uint64_t x[2] = {(uint64_t)a, (uint64_t)(a >> 64)}, y[2] = {(uint64_t)b, (uint64_t)(b >> 64)};
    u256 r = {{0, 0, 0, 0}};
    for (int i = 0; i < 2; i++) {
        unsigned __int128 carry = 0;
        for (int j = 0; j < 2; j++) {
            unsigned __int128 t = (unsigned __int128)x[i] * y[j] + r.w[i + j] + carry;
            r.w[i + j] = (uint64_t)t;
            carry = t >> 64;
        }
        for (int k = i + 2; k < 4 && carry; k++) {
            unsigned __int128 t = (unsigned __int128)r.w[k] + carry;
            r.w[k] = (uint64_t)t;
            carry = t >> 64;
        }
    }
    return r;
}

/* r /= d (d < 2^64), returns the remainder. */
static uint64_t u256_divsmall(u256 *r, uint64_t d)
{
    unsigned __int128 rem = 0;
    for (int i = 3; i >= 0; i--) {
        unsigned __int128 cur = (rem << 64) | r->w[i];
        r->w[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

static bool u256_fits128(const u256 *r) { return r->w[2] == 0 && r->w[3] == 0; }
static unsigned __int128 u256_lo(const u256 *r) { return ((unsigned __int128)r->w[1] << 64) | r->w[0]; }

static int u256_cmp(const u256 *a, const u256 *b)
{
    for (int i = 3; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static void u256_shl1(u256 *a)
{
    for (int i = 3; i > 0; i--)
        a->w[i] = (a->w[i] << 1) | (a->w[i - 1] >> 63);
    a->w[0] <<= 1;
}

static void u256_sub(u256 *a, const u256 *b)
{
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 t = (unsigned __int128)a->w[i] - b->w[i] - borrow;
        a->w[i] = (uint64_t)t;
        borrow = (t >> 64) ? 1 : 0;
    }
}

/* q = n / d, rem = n % d (d > 0). */
static void u256_divmod(const u256 *n, unsigned __int128 d, u256 *q, u256 *rem)
{
    u256 D = {{(uint64_t)d, (uint64_t)(d >> 64), 0, 0}};
    u256 r = {{0, 0, 0, 0}}, qq = {{0, 0, 0, 0}};
    for (int bit = 255; bit >= 0; bit--) {
        u256_shl1(&r);
        r.w[0] |= (n->w[bit / 64] >> (bit % 64)) & 1;
        u256_shl1(&qq);
        if (u256_cmp(&r, &D) >= 0) {
            u256_sub(&r, &D);
            qq.w[0] |= 1;
        }
    }
    *q = qq;
    *rem = r;
}

static unsigned __int128 pow10_u128(int e)
{
    unsigned __int128 v = 1;
    for (int i = 0; i < e; i++)
        v *= 10;
    return v;
}

static unsigned __int128 abs128(__int128 x) { return x < 0 ? (unsigned __int128)0 - (unsigned __int128)x : (unsigned __int128)x; }

/* Does |v| have at most p digits? */
static bool fits_precision(unsigned __int128 mag, int32_t p) { return p >= 39 || mag < pow10_u128(p); }

/* Divide a 256-bit magnitude by 10^s with HALF_UP rounding. */
static u256 u256_rescale_half_up(u256 v, int32_t s)
{
    if (s <= 0)
        return v;
    for (int32_t i = 0; i < s - 1; i++)
        u256_divsmall(&v, 10);
    uint64_t digit = u256_divsmall(&v, 10);
    if (digit >= 5) {
        for (int i = 0; i < 4; i++)
            if (++v.w[i] != 0)
                break;
    }
    return v;
}

/* Java Decimal add/subtract at (p, s); *null_out when the result is null. */
static void dec_add(__int128 a, __int128 b, int32_t p, bool *null_out, __int128 *out)
{
    *null_out = false;
    if (p <= 18) {
        int64_t r;
        if (a >= INT64_MIN && a <= INT64_MAX && b >= INT64_MIN && b <= INT64_MAX &&
            !__builtin_add_overflow((int64_t)a, (int64_t)b, &r)) {
            *out = r;
            return;
        }
    }
    __int128 r;
    if (__builtin_add_overflow(a, b, &r) || !fits_precision(abs128(r), p)) {
        *null_out = true;
        return;
    }
    *out = r;
}

static void dec_mul(__int128 a, __int128 b, int32_t p, int32_t s, bool *null_out, __int128 *out)
{
    *null_out = false;
    bool neg = (a < 0) != (b < 0);
    u256 m = u256_mul128(abs128(a), abs128(b));
    m = u256_rescale_half_up(m, s);
    if (!u256_fits128(&m) || (u256_lo(&m) >> 127) || !fits_precision(u256_lo(&m), p)) {
        *null_out = true;
        return;
    }
    __int128 v = (__int128)u256_lo(&m);
    *out = neg ? -v : v;
}

static unsigned __int128 gcd128(unsigned __int128 a, unsigned __int128 b)
{
    while (b) {
        unsigned __int128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static pm_error *dec_div(const pm_agg *ag, __int128 a, __int128 b, int32_t p, int32_t s, bool *null_out,
                         __int128 *out)
{
    *null_out = false;
    if (b == 0)
        return pm_error_new(PM_EINVALID, "field '%s': %s retraction divides by zero", ag->field, ag->name);
    if (a == 0) {
        *out = 0;
        return NULL;
    }
    unsigned __int128 ma = abs128(a), mb = abs128(b);
    unsigned __int128 d = mb / gcd128(ma, mb);
    while (d % 2 == 0)
        d /= 2;
    while (d % 5 == 0)
        d /= 5;
    if (d != 1)
        return pm_error_new(PM_EINVALID,
                            "field '%s': %s retraction has a non-terminating decimal expansion", ag->field,
                            ag->name);
    /* quotient at scale s: |a| * 10^s / |b|, HALF_UP */
    u256 n = u256_mul128(ma, pow10_u128(s)), q, r;
    u256_divmod(&n, mb, &q, &r);
    /* round up when 2r >= |b| */
    u256 r2 = r;
    u256_shl1(&r2);
    u256 D = {{(uint64_t)mb, (uint64_t)(mb >> 64), 0, 0}};
    if (u256_cmp(&r2, &D) >= 0) {
        for (int i = 0; i < 4; i++)
            if (++q.w[i] != 0)
                break;
    }
    if (!u256_fits128(&q) || !fits_precision(u256_lo(&q), p) || u256_lo(&q) >> 126) {
        *null_out = true;
        return NULL;
    }
    __int128 v = (__int128)u256_lo(&q);
    *out = (a < 0) != (b < 0) ? -v : v;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Integer helpers                                                     */

static pm_error *int_range(const pm_agg *a, int64_t v, const char *op)
{
    int64_t lo, hi;
    switch (a->type->id) {
    case PM_TYPE_TINYINT: lo = INT8_MIN; hi = INT8_MAX; break;
    case PM_TYPE_SMALLINT: lo = INT16_MIN; hi = INT16_MAX; break;
    case PM_TYPE_INT: lo = INT32_MIN; hi = INT32_MAX; break;
    default: return NULL;
    }
    if (v < lo || v > hi)
        return pm_error_new(PM_EINVALID, "field '%s': %s overflows %s in %s", a->field, a->name,
                            pm_type_id_name(a->type->id), op);
    return NULL;
}

static pm_error *overflow(const pm_agg *a, const char *op)
{
    return pm_error_new(PM_EINVALID, "field '%s': %s overflows %s in %s", a->field, a->name,
                        pm_type_id_name(a->type->id), op);
}

/* x (op) y for numeric types; op: '+', '-', '*', '/'. */
static pm_error *arith(const pm_agg *a, const pm_mval *x, const pm_mval *y, char op, pm_mval *out)
{
    *out = pm_mv_null();
    const pm_type *t = a->type;
    switch (t->id) {
    case PM_TYPE_FLOAT: {
        float p = mv_f32(x), q = mv_f32(y), r;
        r = op == '+' ? p + q : op == '-' ? p - q : op == '*' ? p * q : p / q;
        out->form = MV_F32;
        out->u.f = r;
        return NULL;
    }
    case PM_TYPE_DOUBLE: {
        double p = mv_f64(x), q = mv_f64(y), r;
        r = op == '+' ? p + q : op == '-' ? p - q : op == '*' ? p * q : p / q;
        out->form = MV_F64;
        out->u.d = r;
        return NULL;
    }
    case PM_TYPE_DECIMAL: {
        __int128 p = mv_dec(x), q = mv_dec(y), r = 0;
        bool null = false;
        if (op == '+')
            dec_add(p, q, t->precision, &null, &r);
        else if (op == '-') {
            if (abs128(q) >> 127) /* -2^127 cannot be negated; beyond any precision anyway */
                null = true;
            else
                dec_add(p, -q, t->precision, &null, &r);
        } else if (op == '*')
            dec_mul(p, q, t->precision, t->scale, &null, &r);
        else
            PM_TRY(dec_div(a, p, q, t->precision, t->scale, &null, &r));
        if (!null) {
            out->form = MV_DEC;
            out->u.dec = r;
        }
        return NULL;
    }
    default: {
        int64_t p = mv_i64(x), q = mv_i64(y), r;
        const char *opname = op == '+' ? "add" : op == '-' ? "subtract" : op == '*' ? "multiply" : "divide";
        if (op == '+') {
            if (__builtin_add_overflow(p, q, &r))
                return overflow(a, opname);
        } else if (op == '-') {
            if (__builtin_sub_overflow(p, q, &r))
                return overflow(a, opname);
        } else if (op == '*') {
            if (__builtin_mul_overflow(p, q, &r))
                return overflow(a, opname);
        } else {
            if (q == 0)
                return pm_error_new(PM_EINVALID, "field '%s': %s retraction divides by zero", a->field, a->name);
            if (p == INT64_MIN && q == -1)
                return overflow(a, opname);
            r = p / q;
        }
        PM_TRY(int_range(a, r, opname));
        out->form = MV_I64;
        out->u.i = r;
        return NULL;
    }
    }
}

static pm_error *negate(const pm_agg *a, const pm_mval *x, pm_mval *out)
{
    *out = pm_mv_null();
    if (pm_mv_is_null(x))
        return NULL;
    switch (a->type->id) {
    case PM_TYPE_FLOAT:
        out->form = MV_F32;
        out->u.f = -mv_f32(x);
        return NULL;
    case PM_TYPE_DOUBLE:
        out->form = MV_F64;
        out->u.d = -mv_f64(x);
        return NULL;
    case PM_TYPE_DECIMAL: {
        __int128 v = mv_dec(x);
        if (!fits_precision(abs128(v), a->type->precision) && a->type->precision > 18)
            return NULL;
        out->form = MV_DEC;
        out->u.dec = -v;
        return NULL;
    }
    default: {
        int64_t v = mv_i64(x);
        if (v == INT64_MIN)
            return overflow(a, "negate");
        PM_TRY(int_range(a, -v, "negate"));
        out->form = MV_I64;
        out->u.i = -v;
        return NULL;
    }
    }
}

/* ------------------------------------------------------------------ */
/* listagg                                                             */

/* Java Character.isWhitespace over the UTF-16 chars of a UTF-8 string. */
static bool java_blank(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t c = p[i];
        size_t len = 1;
        if (c >= 0x80) {
            if ((c & 0xe0) == 0xc0 && i + 1 < n) {
                c = ((c & 0x1f) << 6) | (p[i + 1] & 0x3f);
                len = 2;
            } else if ((c & 0xf0) == 0xe0 && i + 2 < n) {
                c = ((c & 0x0f) << 12) | ((uint32_t)(p[i + 1] & 0x3f) << 6) | (p[i + 2] & 0x3f);
                len = 3;
            } else {
                return false; /* 4-byte sequences and broken bytes are never whitespace */
            }
        }
        bool ws = (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x1680 ||
                  (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
                  c == 0x205f || c == 0x3000;
        if (!ws)
            return false;
        i += len;
    }
    return true;
}

static pm_buf *next_buf(pm_agg *a)
{
    a->sbi ^= 1;
    pm_buf *b = &a->sb[a->sbi];
    pm_buf_clear(b);
    return b;
}

static bool contains_token(const uint8_t *s, size_t n, const uint8_t *tok, size_t tn, const uint8_t *delim,
                           size_t dn, size_t upto)
{
    /* tokens of s[0..upto) split by the whole delimiter, preserving empties */
    (void)n;
    size_t beg = 0;
    while (beg < upto) {
        size_t end = upto;
        for (size_t k = beg; dn && k + dn <= upto; k++)
            if (memcmp(s + k, delim, dn) == 0) {
                end = k;
                break;
            }
        if (end - beg == tn && (tn == 0 || memcmp(s + beg, tok, tn) == 0))
            return true;
        if (end == upto)
            break;
        beg = end + dn;
    }
    return false;
}

static pm_error *listagg(pm_agg *a, const pm_mval *x, const pm_mval *y, pm_mval *out)
{
    size_t xn = 0, yn = 0;
    const uint8_t *xp = NULL, *yp = NULL;
    if (!pm_mv_is_null(y))
        yp = mv_bytes(y, &yn);
    if (pm_mv_is_null(y) || java_blank(yp, yn)) {
        *out = *x;
        return NULL;
    }
    if (!pm_mv_is_null(x))
        xp = mv_bytes(x, &xn);
    if (pm_mv_is_null(x) || java_blank(xp, xn)) {
        *out = *y;
        return NULL;
    }
    const uint8_t *d = (const uint8_t *)a->delim;
    size_t dn = a->delim_len;
    pm_buf *b = next_buf(a);
    PM_TRY(pm_buf_append(b, xp, xn));
    if (!a->distinct) {
        PM_TRY(pm_buf_append(b, d, dn));
        PM_TRY(pm_buf_append(b, yp, yn));
    } else {
        /* an empty delimiter splits on a single space (Java), but joins with "" */
        const uint8_t *sd = dn ? d : (const uint8_t *)" ";
        size_t sdn = dn ? dn : 1;
        size_t beg = 0;
        while (beg < yn) {
            size_t end = yn;
            for (size_t k = beg; k + sdn <= yn; k++)
                if (memcmp(yp + k, sd, sdn) == 0) {
                    end = k;
                    break;
                }
            const uint8_t *tok = yp + beg;
            size_t tn = end - beg;
            if (!java_blank(tok, tn) && !contains_token(b->data, b->len, tok, tn, sd, sdn, b->len)) {
                PM_TRY(pm_buf_append(b, d, dn));
                PM_TRY(pm_buf_append(b, tok, tn));
            }
            if (end == yn)
                break;
            beg = end + sdn;
        }
    }
    *out = pm_mv_null();
    out->form = MV_BYTES;
    out->p = b->data;
    out->n = b->len;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* collect / merge_map                                                 */

static pm_error *next_col(pm_agg *a, pm_column **out)
{
    a->sci ^= 1;
    if (!a->sc[a->sci])
        PM_TRY(pm_column_new(&a->sc[a->sci], a->type));
    pm_column_reset(a->sc[a->sci]);
    *out = a->sc[a->sci];
    return NULL;
}

static void nested_range(const pm_mval *v, const pm_column **c, int32_t *from, int32_t *to)
{
    const int32_t *o = pm_column_offsets(v->col);
    *c = v->col;
    *from = o[v->row];
    *to = o[v->row + 1];
}

static bool top_binary(const pm_type *t)
{
    return t->id == PM_TYPE_BINARY || t->id == PM_TYPE_VARBINARY || t->id == PM_TYPE_BLOB;
}

static bool constructed(const pm_type *t) { return pm_type_is_nested(t); }

/* Is element e of `src` equal to one of the first n elements of child `dst`? */
static bool list_contains(const pm_column *dst, int64_t n, const pm_column *src, int64_t e)
{
    bool ident = top_binary(src->type);
    for (int64_t k = 0; k < n; k++)
        if (cell_eq(dst, k, src, e, ident))
            return true;
    return false;
}

static pm_error *collect(pm_agg *a, const pm_mval *x, const pm_mval *y, pm_mval *out)
{
    bool xn = pm_mv_is_null(x), yn = pm_mv_is_null(y);
    if (xn && yn) {
        *out = pm_mv_null();
        return NULL;
    }
    if ((xn || yn) && !a->distinct) {
        *out = xn ? *y : *x;
        return NULL;
    }
    pm_column *d;
    PM_TRY(next_col(a, &d));
    pm_column *dc = d->children[0];
    bool dedup_acc = a->distinct && !constructed(a->type->element);
    const pm_mval *parts[2] = {x, y};
    for (int pi = 0; pi < 2; pi++) {
        if (pm_mv_is_null(parts[pi]))
            continue;
        const pm_column *c;
        int32_t from, to;
        nested_range(parts[pi], &c, &from, &to);
        const pm_column *ch = c->children[0];
        for (int32_t e = from; e < to; e++) {
            bool dedup = a->distinct && (pi == 1 || dedup_acc);
            if (dedup && list_contains(dc, dc->length, ch, e))
                continue;
            PM_TRY(pm_column_append_from(dc, ch, e));
        }
    }
    PM_TRY(pm_column_end_nested(d));
    *out = pm_mv_null();
    out->form = MV_COL;
    out->col = d;
    out->row = 0;
    return NULL;
}

static pm_error *collect_retract(pm_agg *a, const pm_mval *acc, const pm_mval *in, pm_mval *out)
{
    if (pm_mv_is_null(acc)) {
        *out = pm_mv_null();
        return NULL;
    }
    *out = *acc;
    if (pm_mv_is_null(in))
        return NULL;
    const pm_column *rc, *ac;
    int32_t rf, rt, af, at;
    nested_range(in, &rc, &rf, &rt);
    if (rf == rt)
        return NULL;
    nested_range(acc, &ac, &af, &at);
    bool ident = top_binary(a->type->element);
    size_t nr = (size_t)(rt - rf);
    bool *used = calloc(nr, sizeof *used);
    if (!used)
        return pm_oom();
    pm_column *d;
    pm_error *e = next_col(a, &d);
    for (int32_t i = af; i < at && !e; i++) {
        bool gone = false;
        for (size_t k = 0; k < nr && !gone; k++)
            if (!used[k] && cell_eq(rc->children[0], rf + (int32_t)k, ac->children[0], i, ident))
                used[k] = gone = true;
        if (!gone)
            e = pm_column_append_from(d->children[0], ac->children[0], i);
    }
    free(used);
    PM_TRY(e);
    PM_TRY(pm_column_end_nested(d));
    *out = pm_mv_null();
    out->form = MV_COL;
    out->col = d;
    return NULL;
}

static pm_error *merge_map(pm_agg *a, const pm_mval *x, const pm_mval *y, pm_mval *out)
{
    if (pm_mv_is_null(x) || pm_mv_is_null(y)) {
        *out = pm_mv_is_null(x) ? *y : *x;
        return NULL;
    }
    pm_column *d;
    PM_TRY(next_col(a, &d));
    pm_column *dk = d->children[0], *dv = d->children[1];
    bool ident = top_binary(a->type->key);
    const pm_mval *parts[2] = {x, y};
    for (int pi = 0; pi < 2; pi++) {
        const pm_column *c;
        int32_t from, to;
        nested_range(parts[pi], &c, &from, &to);
        for (int32_t e = from; e < to; e++) {
            int64_t hit = -1;
            for (int64_t k = 0; k < dk->length && hit < 0; k++)
                if (cell_eq(dk, k, c->children[0], e, ident))
                    hit = k;
            if (hit < 0) {
                PM_TRY(pm_column_append_from(dk, c->children[0], e));
                PM_TRY(pm_column_append_from(dv, c->children[1], e));
                continue;
            }
            /* replace the value in place: rebuild the value child */
            pm_column *nv;
            PM_TRY(pm_column_new(&nv, dv->type));
            pm_error *err = NULL;
            for (int64_t k = 0; k < dv->length && !err; k++)
                err = k == hit ? pm_column_append_from(nv, c->children[1], e) : pm_column_append_from(nv, dv, k);
            if (err) {
                pm_column_release(nv);
                return err;
            }
            pm_column_release(dv);
            d->children[1] = dv = nv;
        }
    }
    PM_TRY(pm_column_end_nested(d));
    *out = pm_mv_null();
    out->form = MV_COL;
    out->col = d;
    return NULL;
}

static pm_error *merge_map_retract(pm_agg *a, const pm_mval *acc, const pm_mval *in, pm_mval *out)
{
    if (pm_mv_is_null(acc)) {
        *out = pm_mv_null();
        return NULL;
    }
    *out = *acc;
    if (pm_mv_is_null(in))
        return NULL;
    const pm_column *rc, *ac;
    int32_t rf, rt, af, at;
    nested_range(in, &rc, &rf, &rt);
    if (rf == rt)
        return NULL;
    nested_range(acc, &ac, &af, &at);
    bool ident = top_binary(a->type->key);
    pm_column *d;
    PM_TRY(next_col(a, &d));
    for (int32_t i = af; i < at; i++) {
        bool gone = false;
        for (int32_t k = rf; k < rt && !gone; k++)
            gone = cell_eq(rc->children[0], k, ac->children[0], i, ident);
        if (gone)
            continue;
        PM_TRY(pm_column_append_from(d->children[0], ac->children[0], i));
        PM_TRY(pm_column_append_from(d->children[1], ac->children[1], i));
    }
    PM_TRY(pm_column_end_nested(d));
    *out = pm_mv_null();
    out->form = MV_COL;
    out->col = d;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */

/* X plays Java's accumulator, Y the input. */
static pm_error *agg2(pm_agg *a, const pm_mval *x, const pm_mval *y, pm_mval *out)
{
    bool xn = pm_mv_is_null(x), yn = pm_mv_is_null(y);
    switch (a->fn) {
    case PM_AGG_PRIMARY_KEY:
    case PM_AGG_LAST_VALUE: *out = *y; return NULL;
    case PM_AGG_LAST_NON_NULL_VALUE: *out = yn ? *x : *y; return NULL;
    case PM_AGG_FIRST_VALUE:
        if (!a->initialized) {
            a->initialized = true;
            *out = *y;
        } else {
            *out = *x;
        }
        return NULL;
    case PM_AGG_FIRST_NON_NULL_VALUE:
        if (!a->initialized && !yn) {
            a->initialized = true;
            *out = *y;
        } else {
            *out = *x;
        }
        return NULL;
    case PM_AGG_SUM:
    case PM_AGG_PRODUCT:
        if (xn || yn) {
            *out = xn ? *y : *x;
            return NULL;
        }
        return arith(a, x, y, a->fn == PM_AGG_SUM ? '+' : '*', out);
    case PM_AGG_MIN:
    case PM_AGG_MAX:
        if (xn || yn) {
            *out = xn ? *y : *x;
            return NULL;
        }
        if (pm_mv_compare(a->type, x, y) < 0)
            *out = a->fn == PM_AGG_MIN ? *x : *y;
        else
            *out = a->fn == PM_AGG_MIN ? *y : *x;
        return NULL;
    case PM_AGG_BOOL_AND:
    case PM_AGG_BOOL_OR:
        if (xn || yn) {
            *out = xn ? *y : *x;
            return NULL;
        }
        *out = pm_mv_null();
        out->form = MV_BOOL;
        out->u.b = a->fn == PM_AGG_BOOL_AND ? (mv_bool(x) && mv_bool(y)) : (mv_bool(x) || mv_bool(y));
        return NULL;
    case PM_AGG_LISTAGG: return listagg(a, x, y, out);
    case PM_AGG_COLLECT: return collect(a, x, y, out);
    case PM_AGG_MERGE_MAP: return merge_map(a, x, y, out);
    }
    return pm_error_new(PM_EINTERNAL, "aggregate function %d", (int)a->fn);
}

pm_error *pm_agg_apply(pm_agg *a, pm_mval *acc, const pm_mval *in, bool reversed)
{
    pm_mval r;
    if (!reversed || a->fn == PM_AGG_COLLECT)
        PM_TRY(pm_error_wrap(agg2(a, acc, in, &r), 0, "field '%s'", a->field));
    else
        PM_TRY(pm_error_wrap(agg2(a, in, acc, &r), 0, "field '%s'", a->field));
    *acc = r;
    return NULL;
}

pm_error *pm_agg_retract(pm_agg *a, pm_mval *acc, const pm_mval *in)
{
    if (a->ignore_retract)
        return NULL;
    pm_mval r;
    switch (a->fn) {
    case PM_AGG_PRIMARY_KEY: *acc = *in; return NULL;
    case PM_AGG_LAST_VALUE: *acc = pm_mv_null(); return NULL;
    case PM_AGG_LAST_NON_NULL_VALUE:
        if (!pm_mv_is_null(in))
            *acc = pm_mv_null();
        return NULL;
    case PM_AGG_SUM:
        if (pm_mv_is_null(acc) || pm_mv_is_null(in)) {
            if (pm_mv_is_null(acc))
                PM_TRY(negate(a, in, acc));
            return NULL;
        }
        PM_TRY(arith(a, acc, in, '-', &r));
        *acc = r;
        return NULL;
    case PM_AGG_PRODUCT:
        if (pm_mv_is_null(acc) || pm_mv_is_null(in))
            return NULL;
        PM_TRY(arith(a, acc, in, '/', &r));
        *acc = r;
        return NULL;
    case PM_AGG_COLLECT:
        PM_TRY(collect_retract(a, acc, in, &r));
        *acc = r;
        return NULL;
    case PM_AGG_MERGE_MAP:
        PM_TRY(merge_map_retract(a, acc, in, &r));
        *acc = r;
        return NULL;
    default:
        return pm_error_new(PM_EUNSUPPORTED,
                            "aggregate function '%s' (field '%s') does not support retraction; set "
                            "'fields.%s.ignore-retract'='true' to ignore retraction messages",
                            a->name, a->field, a->field);
    }
}

bool pm_agg_state_not_persistable(const pm_agg *a)
{
    return a->fn == PM_AGG_FIRST_VALUE || a->fn == PM_AGG_FIRST_NON_NULL_VALUE || a->fn == PM_AGG_COLLECT ||
           a->fn == PM_AGG_LISTAGG;
}

/* ------------------------------------------------------------------ */
/* Configuration                                                       */

static const struct {
    const char *name;
    pm_agg_fn fn;
} FUNCS[] = {
    {"primary-key", PM_AGG_PRIMARY_KEY},
    {"sum", PM_AGG_SUM},
    {"product", PM_AGG_PRODUCT},
    {"min", PM_AGG_MIN},
    {"max", PM_AGG_MAX},
    {"last_value", PM_AGG_LAST_VALUE},
    {"last_non_null_value", PM_AGG_LAST_NON_NULL_VALUE},
    {"first_value", PM_AGG_FIRST_VALUE},
    {"first_non_null_value", PM_AGG_FIRST_NON_NULL_VALUE},
    {"first_not_null_value", PM_AGG_FIRST_NON_NULL_VALUE}, /* legacy name */
    {"listagg", PM_AGG_LISTAGG},
    {"bool_and", PM_AGG_BOOL_AND},
    {"bool_or", PM_AGG_BOOL_OR},
    {"collect", PM_AGG_COLLECT},
    {"merge_map", PM_AGG_MERGE_MAP},
};

static const char *const UNSUPPORTED[] = {"hll_sketch", "theta_sketch", "rbm32", "rbm64", "nested_update",
                                          "nested_partial_update", "merge_map_with_keytime"};

static bool is_numeric(pm_type_id id)
{
    return id == PM_TYPE_TINYINT || id == PM_TYPE_SMALLINT || id == PM_TYPE_INT || id == PM_TYPE_BIGINT ||
           id == PM_TYPE_FLOAT || id == PM_TYPE_DOUBLE || id == PM_TYPE_DECIMAL;
}

static bool is_comparable(pm_type_id id)
{
    switch (id) {
    case PM_TYPE_DECIMAL:
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT:
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: return true;
    default: return false;
    }
}

static pm_error *field_bool(const pm_options *o, const char *field, const char *suffix, bool *out)
{
    char key[512];
    snprintf(key, sizeof key, "fields.%s.%s", field, suffix);
    const char *v = pm_options_get(o, key);
    *out = false;
    if (!v)
        return NULL;
    return pm_error_wrap(pm_parse_bool(v, out), PM_EINVALID, "option '%s'", key);
}

void pm_agg_clear(pm_agg *a)
{
    if (!a)
        return;
    pm_buf_free(&a->sb[0]);
    pm_buf_free(&a->sb[1]);
    pm_column_release(a->sc[0]);
    pm_column_release(a->sc[1]);
    free(a->delim);
    memset(a, 0, sizeof *a);
}

static pm_error *lookup(const char *name, const char *field, size_t *idx)
{
    size_t i;
    for (i = 0; i < sizeof FUNCS / sizeof FUNCS[0]; i++)
        if (strcmp(FUNCS[i].name, name) == 0)
            break;
    *idx = i;
    if (i == sizeof FUNCS / sizeof FUNCS[0]) {
        if (strcmp(name, "count") == 0)
            return pm_error_new(PM_EUNSUPPORTED,
                                "aggregate function 'count' (field '%s') was removed from Apache Paimon because it "
                                "cannot be computed correctly for records merged more than once; use 'sum' of a "
                                "column holding 1",
                                field);
        for (size_t k = 0; k < sizeof UNSUPPORTED / sizeof UNSUPPORTED[0]; k++)
            if (strcmp(UNSUPPORTED[k], name) == 0)
                return pm_error_new(PM_EUNSUPPORTED, "aggregate function '%s' (field '%s') is not supported",
                                    name, field);
        return pm_error_new(PM_EINVALID,
                            "unsupported aggregation '%s' for field '%s' (or the function name is misspelled)", name,
                            field);
    }
    return NULL;
}

pm_error *pm_agg_check_name(const char *name, const char *field)
{
    size_t i;
    return lookup(name, field, &i);
}

pm_error *pm_agg_init(pm_agg *a, const char *name, const char *field, const pm_type *type, const pm_options *o)
{
    memset(a, 0, sizeof *a);
    a->field = field;
    a->type = type;
    size_t i;
    PM_TRY(lookup(name, field, &i));
    a->fn = FUNCS[i].fn;
    a->name = FUNCS[i].name;
    pm_type_id id = type->id;
    const char *bad = NULL;
    switch (a->fn) {
    case PM_AGG_SUM:
    case PM_AGG_PRODUCT:
        if (!is_numeric(id))
            bad = "a numeric type";
        break;
    case PM_AGG_MIN:
    case PM_AGG_MAX:
        if (!is_comparable(id))
            bad = "a comparable atomic type";
        break;
    case PM_AGG_BOOL_AND:
    case PM_AGG_BOOL_OR:
        if (id != PM_TYPE_BOOLEAN)
            bad = "BOOLEAN";
        break;
    case PM_AGG_LISTAGG:
        if (id != PM_TYPE_VARCHAR || type->length != PM_MAX_LENGTH)
            bad = "STRING (unbounded VARCHAR)";
        break;
    case PM_AGG_COLLECT:
        if (id != PM_TYPE_ARRAY)
            bad = "ARRAY";
        break;
    case PM_AGG_MERGE_MAP:
        if (id != PM_TYPE_MAP)
            bad = "MAP";
        break;
    default: break;
    }
    if (bad) {
        char *ts = pm_type_to_string(type);
        pm_error *e = pm_error_new(PM_EINVALID, "aggregate function '%s' needs %s, but field '%s' is %s", a->name,
                                   bad, field, ts ? ts : "?");
        free(ts);
        return e;
    }
    PM_TRY(field_bool(o, field, "ignore-retract", &a->ignore_retract));
    PM_TRY(field_bool(o, field, "distinct", &a->distinct));
    if (a->fn == PM_AGG_LISTAGG) {
        char key[512];
        snprintf(key, sizeof key, "fields.%s.list-agg-delimiter", field);
        const char *d = pm_options_get(o, key);
        PM_TRY(pm_strdup(&a->delim, d ? d : ","));
        a->delim_len = strlen(a->delim);
    }
    return NULL;
}
