/*
 * types/value_json.c — JSON text of column values, the encoding `paimon cat`
 * prints (see value.h for the per-type rules).
 *
 * Floating point: the shortest decimal that reads back as the same value:
 * print 15 significant digits (6 for FLOAT) with "%.*e"; if that reads back
 * (strtod/strtof) as the same value, drop trailing zeros (every decimal of
 * at most 15 digits survives a trip through a double, so this is the
 * shortest); else try 16, then 17 digits (9 for FLOAT).  Subnormals have
 * fewer significant bits, so for them every digit count from 1 is tried.  The digits are
 * then laid out like
 * Python's repr: fixed notation with at least one fraction digit for
 * decimal exponents -4..15, otherwise d.ddde±XX.  Strings are written as
 * JSON strings with ", \ and control characters escaped; valid UTF-8 is
 * kept, invalid bytes become U+FFFD.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/util.h"
#include "types/column.h"
#include "types/temporal.h"
#include "types/value.h"
#include "types/value_json_pow5.h"

/* ------------------------------------------------------------------ */
/* Numbers                                                             */

/* "d.ddd" digits dig[0..nd) with decimal exponent exp, laid out like
 * Python's repr (see the file comment).  buf holds at least 40 bytes. */
static size_t layout_digits(char *buf, bool neg, const char *dig, int nd, int exp)
{
    size_t k = 0;
    if (neg)
        buf[k++] = '-';
    if (exp >= -4 && exp < 16) {
        int point = exp + 1; /* digits before the decimal point */
        if (point <= 0) {
            buf[k++] = '0';
            buf[k++] = '.';
            for (int i = 0; i < -point; i++)
                buf[k++] = '0';
            memcpy(buf + k, dig, (size_t)nd);
            k += (size_t)nd;
        } else if (point >= nd) {
            memcpy(buf + k, dig, (size_t)nd);
            k += (size_t)nd;
            for (int i = nd; i < point; i++)
                buf[k++] = '0';
            buf[k++] = '.';
            buf[k++] = '0';
        } else {
            memcpy(buf + k, dig, (size_t)point);
            k += (size_t)point;
            buf[k++] = '.';
            memcpy(buf + k, dig + point, (size_t)(nd - point));
            k += (size_t)(nd - point);
        }
    } else {
        buf[k++] = dig[0];
        if (nd > 1) {
            buf[k++] = '.';
            memcpy(buf + k, dig + 1, (size_t)(nd - 1));
            k += (size_t)(nd - 1);
        }
        int e = exp < 0 ? -exp : exp;
        buf[k++] = 'e';
        buf[k++] = exp < 0 ? '-' : '+';
        if (e >= 100)
            buf[k++] = (char)('0' + e / 100);
        buf[k++] = (char)('0' + e / 10 % 10);
        buf[k++] = (char)('0' + e % 10);
    }
    return k;
}

/* Split "d.ddde±x" into significant digits (trailing zeros dropped) and exponent. */
static void split_sci(const char *s, char *dig, int *nd, int *exp)
{
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            dig[n++] = *s;
    while (n > 1 && dig[n - 1] == '0')
        n--;
    *nd = n;
    *exp = *s == 'e' ? atoi(s + 1) : 0;
}

/* The reference algorithm (see the file comment): the fewest digits p from
 * 15 (6 for FLOAT; 1 for subnormals) whose correctly rounded "%.*e" text
 * reads back as the same value.  Used where the fast path below may
 * differ (values with an asymmetric rounding interval). */
static size_t slow_double(char *buf, double v)
{
    bool neg = signbit(v);
    double a = fabs(v);
    char sci[40];
    for (int p = a < DBL_MIN ? 1 : 15; p <= 17; p++) { /* subnormals carry fewer digits: search all */
        snprintf(sci, sizeof sci, "%.*e", p - 1, a);
        if (strtod(sci, NULL) == a)
            break;
    }
    char dig[40];
    int nd, exp;
    split_sci(sci, dig, &nd, &exp);
    return layout_digits(buf, neg, dig, nd, exp);
}

static size_t slow_float(char *buf, float v)
{
    bool neg = signbit(v);
    float a = fabsf(v);
    char sci[40];
    for (int p = a < FLT_MIN ? 1 : 6; p <= 9; p++) {
        snprintf(sci, sizeof sci, "%.*e", p - 1, (double)a);
        if (strtof(sci, NULL) == a)
            break;
    }
    char dig[40];
    int nd, exp;
    split_sci(sci, dig, &nd, &exp);
    return layout_digits(buf, neg, dig, nd, exp);
}

/*
 * Fast path: the shortest decimal inside the value's rounding interval,
 * correctly rounded (ties to even), computed with 64 × 125-bit products
 * (the method of Ryu, U. Adams, PLDI 2018; tables in value_json_pow5.h).
 *
 * Why it prints exactly what the reference algorithm prints: write the
 * value as m × 2^e.  When its rounding interval is symmetric (every value
 * but an exact power of two above the smallest normal exponent), the
 * nearest p-digit decimal lies in the interval whenever any p-digit
 * decimal does, and the interval's ends are both included or both
 * excluded (round-half-even on the mantissa's parity) exactly as strtod /
 * strtof decide.  So the fewest digits p* found here are the first p at
 * which the reference's correctly rounded text reads back, and the digits
 * are that text.  Starting the reference at 15 (6) digits changes nothing:
 * a decimal of at most 15 (6) significant digits that reads back as the
 * value is the value's correctly rounded 15 (6)-digit text with trailing
 * zeros.  Powers of two (asymmetric interval) take the reference path.
 *
 * Steps, with mv = 4m and e2 = e - 2 (the interval ends are mv ± 2 in
 * units of 2^e2):
 *  1. pick a decimal exponent e10 a little below the value's so that
 *     vr, vp, vm = floor((mv, mv + 2, mv - 2) × 2^e2 / 10^e10) are exact
 *     64-bit numbers: multiply by 2^k / 5^q (e2 >= 0) or by 5^i (e2 < 0),
 *     125-bit table entries, and shift;
 *  2. note when the scaled value or the interval's ends are integers
 *     (divisibility by 5^q or 2^q), for ties and for ends that are
 *     exactly representable: an end is included only for even mantissas;
 *  3. drop digits while vp / 10 > vm / 10 (the interval still holds a
 *     shorter number), remembering the last digit dropped from vr;
 *  4. round vr up when the dropped part is more than half, or exactly
 *     half and vr is odd, or when vr itself is outside the interval.
 */
#define POW5_BITS 125

static inline int32_t pow5_bits(int32_t e) { return (int32_t)(((uint32_t)e * 1217359u) >> 19) + 1; }
static inline int32_t log10_pow2(int32_t e) { return (int32_t)(((uint32_t)e * 78913u) >> 18); }
static inline int32_t log10_pow5(int32_t e) { return (int32_t)(((uint32_t)e * 732923u) >> 20); }

/* floor(m × mul / 2^j), 118 <= j <= 125, m < 2^56 */
static inline uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int32_t j)
{
    unsigned __int128 lo = (unsigned __int128)m * mul[0];
    unsigned __int128 hi = (unsigned __int128)m * mul[1];
    return (uint64_t)((hi + (lo >> 64)) >> (j - 64));
}

static inline bool pow5_divides(uint64_t v, int32_t p)
{
    int32_t n = 0;
    while (v % 5 == 0 && n < p) {
        v /= 5;
        n++;
    }
    return n >= p;
}

/* Shortest digits of m2 × 2^e2raw (symmetric interval; `even` = mantissa
 * even): *out × 10^*exp10. */
static void shortest(uint64_t m2, int32_t e2raw, bool even, uint64_t *out, int32_t *exp10)
{
    int32_t e2 = e2raw - 2;
    uint64_t mv = 4 * m2;
    uint64_t vr, vp, vm;
    int32_t e10;
    bool vm_tz = false, vr_tz = false;
    if (e2 >= 0) {
        int32_t q = log10_pow2(e2) - (e2 > 3);
        e10 = q;
        int32_t j = -e2 + q + POW5_BITS + pow5_bits(q) - 1;
        vr = mul_shift(mv, pow5_inv[q], j);
        vp = mul_shift(mv + 2, pow5_inv[q], j);
        vm = mul_shift(mv - 2, pow5_inv[q], j);
        if (q <= 21) { /* at most one of mv - 2 .. mv + 2 is a multiple of 5 */
            if (mv % 5 == 0)
                vr_tz = pow5_divides(mv, q);
            else if (even)
                vm_tz = pow5_divides(mv - 2, q);
            else
                vp -= pow5_divides(mv + 2, q);
        }
    } else {
        int32_t q = log10_pow5(-e2) - (-e2 > 1);
        e10 = q + e2;
        int32_t i = -e2 - q;
        int32_t j = q - (pow5_bits(i) - POW5_BITS);
        vr = mul_shift(mv, pow5[i], j);
        vp = mul_shift(mv + 2, pow5[i], j);
        vm = mul_shift(mv - 2, pow5[i], j);
        if (q <= 1) { /* mv, mv ± 2 are even: all three scale to integers */
            vr_tz = true;
            if (even)
                vm_tz = true;
            else
                vp--;
        } else if (q < 63) {
            vr_tz = (mv & ((1ull << q) - 1)) == 0;
        }
    }
    int32_t removed = 0;
    unsigned last = 0;
    uint64_t o;
    if (vm_tz || vr_tz) {
        while (vp / 10 > vm / 10) {
            vm_tz &= vm % 10 == 0;
            vr_tz &= last == 0;
            last = (unsigned)(vr % 10);
            vr /= 10;
            vp /= 10;
            vm /= 10;
            removed++;
        }
        if (vm_tz) {
            while (vm % 10 == 0) {
                vr_tz &= last == 0;
                last = (unsigned)(vr % 10);
                vr /= 10;
                vp /= 10;
                vm /= 10;
                removed++;
            }
        }
        if (vr_tz && last == 5 && vr % 2 == 0)
            last = 4; /* exactly half: round to even */
        o = vr + ((vr == vm && (!even || !vm_tz)) || last >= 5);
    } else {
        while (vp / 100 > vm / 100) {
            last = (unsigned)(vr % 100);
            vr /= 100;
            vp /= 100;
            vm /= 100;
            removed += 2;
        }
        if (removed)
            last /= 10;
        if (vp / 10 > vm / 10) {
            last = (unsigned)(vr % 10);
            vr /= 10;
            vp /= 10;
            vm /= 10;
            removed++;
        }
        o = vr + (vr == vm || last >= 5);
    }
    *out = o;
    *exp10 = e10 + removed;
}

/* Digits of o (no trailing zeros) laid out; sci exponent from exp10. */
static size_t layout_u64(char *buf, bool neg, uint64_t o, int32_t exp10)
{
    while (o >= 10 && o % 10 == 0) {
        o /= 10;
        exp10++;
    }
    char dig[24];
    int nd = 0;
    char tmp[24];
    do {
        tmp[nd++] = (char)('0' + o % 10);
        o /= 10;
    } while (o);
    for (int i = 0; i < nd; i++)
        dig[i] = tmp[nd - 1 - i];
    return layout_digits(buf, neg, dig, nd, exp10 + nd - 1);
}

/* Text of a finite double into buf (at least 40 bytes); returns its length. */
static size_t double_text(char *buf, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    bool neg = bits >> 63;
    uint32_t be = (uint32_t)(bits >> 52) & 0x7ff;
    uint64_t mant = bits & ((1ull << 52) - 1);
    if (be == 0 && mant == 0) {
        memcpy(buf, "-0.0", 4);
        return neg ? 4 : (memmove(buf, buf + 1, 3), 3);
    }
    if (mant == 0 && be > 1)
        return slow_double(buf, v);
    uint64_t m2 = be ? mant | (1ull << 52) : mant;
    int32_t e2 = be ? (int32_t)be - 1075 : -1074;
    uint64_t o;
    int32_t e10;
    shortest(m2, e2, (m2 & 1) == 0, &o, &e10);
    return layout_u64(buf, neg, o, e10);
}

static size_t float_text(char *buf, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    bool neg = bits >> 31;
    uint32_t be = (bits >> 23) & 0xff;
    uint32_t mant = bits & ((1u << 23) - 1);
    if (be == 0 && mant == 0) {
        memcpy(buf, "-0.0", 4);
        return neg ? 4 : (memmove(buf, buf + 1, 3), 3);
    }
    if (mant == 0 && be > 1)
        return slow_float(buf, v);
    uint64_t m2 = be ? mant | (1u << 23) : mant;
    int32_t e2 = be ? (int32_t)be - 150 : -149;
    uint64_t o;
    int32_t e10;
    shortest(m2, e2, (m2 & 1) == 0, &o, &e10);
    return layout_u64(buf, neg, o, e10);
}

pm_error *pm_format_double(pm_buf *out, double v)
{
    if (!isfinite(v))
        return pm_error_new(PM_EINVALID, "pm_format_double: not a finite value");
    char buf[48];
    return pm_buf_append(out, buf, double_text(buf, v));
}

pm_error *pm_format_float(pm_buf *out, float v)
{
    if (!isfinite(v))
        return pm_error_new(PM_EINVALID, "pm_format_float: not a finite value");
    char buf[48];
    return pm_buf_append(out, buf, float_text(buf, v));
}

/* The reference algorithm, exposed for tests that compare it with the fast
 * path (value.h). */
pm_error *pm_format_double_reference(pm_buf *out, double v)
{
    if (!isfinite(v))
        return pm_error_new(PM_EINVALID, "pm_format_double: not a finite value");
    char buf[48];
    return pm_buf_append(out, buf, slow_double(buf, v));
}

pm_error *pm_format_float_reference(pm_buf *out, float v)
{
    if (!isfinite(v))
        return pm_error_new(PM_EINVALID, "pm_format_float: not a finite value");
    char buf[48];
    return pm_buf_append(out, buf, slow_float(buf, v));
}

/* Room for n more bytes (the common case needs no call). */
static inline pm_error *room(pm_buf *out, size_t n)
{
    return out->cap - out->len >= n ? NULL : pm_buf_reserve(out, n);
}

/* Decimal digits of u, most significant first, into p; returns the count. */
static int u64_digits(char *p, uint64_t u)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    for (int i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

pm_error *pm_decimal_format(pm_buf *out, __int128 v, int32_t scale)
{
    char tmp[64];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    while (u > UINT64_MAX) { /* digits beyond 64 bits: 128-bit division */
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    }
    uint64_t w = (uint64_t)u;
    do {
        tmp[n++] = (char)('0' + (int)(w % 10));
        w /= 10;
    } while (w);
    while (n <= scale)
        tmp[n++] = '0'; /* at least one digit before the point */
    PM_TRY(room(out, (size_t)n + 2));
    char *buf = (char *)out->data + out->len;
    size_t k = 0;
    if (neg)
        buf[k++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        buf[k++] = tmp[i];
        if (i == scale && scale > 0)
            buf[k++] = '.';
    }
    out->len += k;
    return NULL;
}

static pm_error *put_int(pm_buf *out, int64_t v)
{
    PM_TRY(room(out, 24));
    char *p = (char *)out->data + out->len;
    size_t k = 0;
    if (v < 0)
        p[k++] = '-';
    k += (size_t)u64_digits(p + k, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    out->len += k;
    return NULL;
}

static pm_error *float_json(pm_buf *out, double v, bool is_float)
{
    if (isnan(v))
        return pm_buf_append_str(out, "\"NaN\"");
    if (isinf(v))
        return pm_buf_append_str(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    PM_TRY(room(out, 48));
    char *buf = (char *)out->data + out->len;
    out->len += is_float ? float_text(buf, (float)v) : double_text(buf, v);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Strings                                                             */

/* Length of the valid UTF-8 sequence at p (0 when invalid). */
static size_t utf8_len(const uint8_t *p, size_t left)
{
    uint8_t c = p[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

/* Bytes that cannot be copied as they are: control characters, '"', '\\',
 * DEL and every non-ASCII byte (checked as UTF-8). */
static const uint8_t special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

/* Index of the first byte of s[i..n) that is special (n when none): eight
 * bytes at a time, a word with no byte < 0x20, no '"', no '\\' and no
 * byte >= 0x7f is skipped whole (the bit tricks may flag a clean word after
 * a special byte, never miss one; flagged words are checked bytewise). */
static size_t scan_plain(const uint8_t *s, size_t i, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t hit = ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b) | w | (w + ones);
        if (hit & high)
            break;
        i += 8;
    }
    while (i < n && !special[s[i]])
        i++;
    return i;
}

static pm_error *put_json_string(pm_buf *out, const uint8_t *s, size_t n)
{
    PM_TRY(room(out, n + 2));
    out->data[out->len++] = '"';
    size_t run = 0; /* start of the pending run of bytes copied verbatim */
    size_t i = 0;
    for (;;) {
        i = scan_plain(s, i, n);
        if (i == n)
            break;
        uint8_t c = s[i];
        const char *esc = NULL;
        char ubuf[8];
        size_t len = 1;
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c == '\b')
            esc = "\\b";
        else if (c == '\f')
            esc = "\\f";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(ubuf, sizeof ubuf, "\\u%04x", c);
            esc = ubuf;
        } else {
            len = utf8_len(s + i, n - i);
            if (len == 0) {
                esc = "\xef\xbf\xbd"; /* U+FFFD */
                len = 1;
            }
        }
        if (esc) {
            PM_TRY(pm_buf_append(out, s + run, i - run));
            PM_TRY(pm_buf_append_str(out, esc));
            run = i + len;
        }
        i += len;
    }
    PM_TRY(room(out, n - run + 1));
    memcpy(out->data + out->len, s + run, n - run);
    out->len += n - run;
    out->data[out->len++] = '"';
    return NULL;
}

/* Append a short literal or one byte. */
static inline pm_error *put_lit(pm_buf *out, const char *lit, size_t n)
{
    PM_TRY(room(out, n));
    memcpy(out->data + out->len, lit, n);
    out->len += n;
    return NULL;
}

static inline pm_error *put_byte(pm_buf *out, uint8_t c)
{
    PM_TRY(room(out, 1));
    out->data[out->len++] = c;
    return NULL;
}

static pm_error *base64_json(pm_buf *out, const uint8_t *p, size_t n)
{
    PM_TRY(pm_buf_append_byte(out, '"'));
    PM_TRY(pm_base64_encode(out, p, n));
    return pm_buf_append_byte(out, '"');
}

/* ------------------------------------------------------------------ */
/* Values                                                              */

pm_error *pm_column_format_json(const pm_column *c, int64_t row, pm_buf *out)
{
    if (row < 0 || row >= c->length)
        return pm_error_new(PM_EINVALID, "row %lld out of range (length %lld)", (long long)row,
                            (long long)c->length);
    if (pm_column_is_null(c, row))
        return put_lit(out, "null", 4);
    const pm_type *t = c->type;
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        return pm_column_bool(c, row) ? put_lit(out, "true", 4) : put_lit(out, "false", 5);
    case PM_TYPE_TINYINT:
        return put_int(out, pm_column_i8(c, row));
    case PM_TYPE_SMALLINT:
        return put_int(out, pm_column_i16(c, row));
    case PM_TYPE_INT:
        return put_int(out, pm_column_i32(c, row));
    case PM_TYPE_BIGINT:
        return put_int(out, pm_column_i64(c, row));
    case PM_TYPE_FLOAT:
        return float_json(out, (double)pm_column_f32(c, row), true);
    case PM_TYPE_DOUBLE:
        return float_json(out, pm_column_f64(c, row), false);
    case PM_TYPE_DECIMAL:
        PM_TRY(put_byte(out, '"'));
        PM_TRY(pm_decimal_format(out, pm_column_decimal(c, row), t->scale));
        return put_byte(out, '"');
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        return put_json_string(out, p, n);
    }
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        return base64_json(out, p, n);
    }
    case PM_TYPE_DATE:
        PM_TRY(put_byte(out, '"'));
        PM_TRY(pm_format_date(out, pm_column_i32(c, row)));
        return put_byte(out, '"');
    case PM_TYPE_TIME:
        PM_TRY(put_byte(out, '"'));
        PM_TRY(pm_format_time(out, pm_column_i32(c, row), t->precision));
        return put_byte(out, '"');
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        PM_TRY(put_byte(out, '"'));
        PM_TRY(pm_format_timestamp(out, pm_column_i64(c, row), t->precision, t->id == PM_TYPE_TIMESTAMP_LTZ));
        return put_byte(out, '"');
    case PM_TYPE_ARRAY: {
        const int32_t *o = pm_column_offsets(c);
        PM_TRY(pm_buf_append_byte(out, '['));
        for (int32_t j = o[row]; j < o[row + 1]; j++) {
            if (j > o[row])
                PM_TRY(put_byte(out, ','));
            PM_TRY(pm_column_format_json(c->children[0], j, out));
        }
        return pm_buf_append_byte(out, ']');
    }
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        const int32_t *o = pm_column_offsets(c);
        PM_TRY(pm_buf_append_byte(out, '['));
        for (int32_t j = o[row]; j < o[row + 1]; j++) {
            PM_TRY(pm_buf_append_str(out, j > o[row] ? ",{\"key\":" : "{\"key\":"));
            PM_TRY(pm_column_format_json(c->children[0], j, out));
            PM_TRY(pm_buf_append_str(out, ",\"value\":"));
            PM_TRY(pm_column_format_json(c->children[1], j, out));
            PM_TRY(pm_buf_append_byte(out, '}'));
        }
        return pm_buf_append_byte(out, ']');
    }
    case PM_TYPE_ROW:
        PM_TRY(put_byte(out, '{'));
        for (size_t i = 0; i < c->nchildren; i++) {
            if (i)
                PM_TRY(put_byte(out, ','));
            const char *name = t->fields[i].name;
            PM_TRY(put_json_string(out, (const uint8_t *)name, strlen(name)));
            PM_TRY(put_byte(out, ':'));
            PM_TRY(pm_column_format_json(c->children[i], row, out));
        }
        return put_byte(out, '}');
    default:
        return pm_error_new(PM_EUNSUPPORTED, "JSON output of %s values", pm_type_id_name(t->id));
    }
}

pm_error *pm_batch_format_rows_json(const pm_batch *b, int64_t from, int64_t to, pm_buf *out)
{
    if (from < 0 || to > b->num_rows || from > to)
        return pm_error_new(PM_EINVALID, "rows [%lld, %lld) out of range (%lld rows)", (long long)from,
                            (long long)to, (long long)b->num_rows);
    /* the keys once: {"a": ,"b": ... */
    pm_buf keys = PM_BUF_INIT;
    size_t *ends = NULL;
    pm_error *e = pm_calloc(&ends, b->ncolumns + 1, sizeof *ends);
    for (size_t i = 0; !e && i < b->ncolumns; i++) {
        const char *name = b->type->fields[i].name;
        e = put_byte(&keys, i ? ',' : '{');
        if (!e)
            e = put_json_string(&keys, (const uint8_t *)name, strlen(name));
        if (!e)
            e = put_byte(&keys, ':');
        ends[i + 1] = keys.len;
    }
    for (int64_t r = from; !e && r < to; r++) {
        if (!b->ncolumns)
            e = put_byte(out, '{');
        for (size_t i = 0; !e && i < b->ncolumns; i++) {
            e = put_lit(out, (const char *)keys.data + ends[i], ends[i + 1] - ends[i]);
            if (!e)
                e = pm_column_format_json(b->columns[i], r, out);
            if (e)
                e = pm_error_wrap(e, 0, "column '%s'", b->type->fields[i].name);
        }
        if (!e)
            e = put_lit(out, "}\n", 2);
    }
    free(ends);
    pm_buf_free(&keys);
    return e;
}

pm_error *pm_batch_format_row_json(const pm_batch *b, int64_t row, pm_buf *out)
{
    PM_TRY(put_byte(out, '{'));
    for (size_t i = 0; i < b->ncolumns; i++) {
        if (i)
            PM_TRY(put_byte(out, ','));
        const char *name = b->type->fields[i].name;
        PM_TRY(put_json_string(out, (const uint8_t *)name, strlen(name)));
        PM_TRY(put_byte(out, ':'));
        pm_error *e = pm_column_format_json(b->columns[i], row, out);
        if (e)
            return pm_error_wrap(e, 0, "column '%s'", name);
    }
    return put_byte(out, '}');
}
