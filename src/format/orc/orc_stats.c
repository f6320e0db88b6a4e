/*
 * format/orc/orc_stats.c — ORC column statistics: accumulate, merge,
 * serialize; and Paimon's view of them (see orc_stats.h).
 */
#include "format/orc/orc_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "types/column.h"
#include "types/temporal.h"
#include "types/value.h"

#define MAX_BYTES_RECORDED 1024
#define MAX_DECIMAL64 ((__int128)999999999999999999LL)

/* ---- HiveDecimal addition: 38 significant digits, half up ---- */

typedef struct big {
    uint64_t w[4];   /* magnitude, little endian */
    bool neg;
} big;

static big big_from(__int128 v)
{
    big b = {{0, 0, 0, 0}, v < 0};
    unsigned __int128 m = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    b.w[0] = (uint64_t)m;
    b.w[1] = (uint64_t)(m >> 64);
    return b;
}

static void mag_mul10(uint64_t *w)
{
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 x = (unsigned __int128)w[i] * 10 + carry;
        w[i] = (uint64_t)x;
        carry = x >> 64;
    }
}

static uint32_t mag_div10(uint64_t *w)
{
    unsigned __int128 rem = 0;
    for (int i = 3; i >= 0; i--) {
        unsigned __int128 x = rem << 64 | w[i];
        w[i] = (uint64_t)(x / 10);
        rem = x % 10;
    }
    return (uint32_t)rem;
}

static int mag_cmp(const uint64_t *a, const uint64_t *b)
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static bool mag_zero(const uint64_t *w) { return !(w[0] | w[1] | w[2] | w[3]); }

static int mag_digits(const uint64_t *w)
{
    uint64_t t[4];
    memcpy(t, w, sizeof t);
    int n = 0;
    while (!mag_zero(t)) {
        mag_div10(t);
        n++;
    }
    return n;
}

static big big_add(big a, big b)
{
    big r = {{0, 0, 0, 0}, false};
    if (a.neg == b.neg) {
        unsigned __int128 carry = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 x = (unsigned __int128)a.w[i] + b.w[i] + carry;
            r.w[i] = (uint64_t)x;
            carry = x >> 64;
        }
        r.neg = a.neg;
        return r;
    }
    const big *hi = &a, *lo = &b;
    if (mag_cmp(a.w, b.w) < 0) {
        hi = &b;
        lo = &a;
    }
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t x = hi->w[i] - lo->w[i] - borrow;
        borrow = (hi->w[i] < lo->w[i] + borrow) || (borrow && lo->w[i] == UINT64_MAX);
        r.w[i] = x;
    }
    r.neg = hi->neg && !mag_zero(r.w);
    return r;
}

/* sum(a at scale sa) + (b at scale sb) like HiveDecimalWritable.mutateAdd;
 * false when more than 38 integer digits remain. */
static bool hive_add(__int128 *a, int32_t *sa, __int128 b, int32_t sb)
{
    int32_t s = *sa > sb ? *sa : sb;
    big x = big_from(*a), y = big_from(b);
    for (int32_t i = *sa; i < s; i++)
        mag_mul10(x.w);
    for (int32_t i = sb; i < s; i++)
        mag_mul10(y.w);
    big r = big_add(x, y);
    int digits = mag_digits(r.w);
    while (digits > 38) {
        if (s == 0)
            return false;
        /* drop the fraction digits that do not fit, rounding half up */
        int drop = digits - 38 < s ? digits - 38 : s;
        uint32_t last = 0;
        for (int i = 0; i < drop; i++)
            last = mag_div10(r.w);
        s -= drop;
        if (last >= 5) {
            big one = {{1, 0, 0, 0}, r.neg};
            r = big_add(r, one);
        }
        digits = mag_digits(r.w);
    }
    /* HiveDecimal keeps no trailing fraction zeros */
    while (s > 0 && !mag_zero(r.w)) {
        uint64_t t[4];
        memcpy(t, r.w, sizeof t);
        if (mag_div10(t))
            break;
        memcpy(r.w, t, sizeof t);
        s--;
    }
    if (mag_zero(r.w))
        s = 0;
    unsigned __int128 m = (unsigned __int128)r.w[1] << 64 | r.w[0];
    *a = r.neg ? -(__int128)m : (__int128)m;
    *sa = s;
    return true;
}

void orc_stats_init(orc_stats_acc *s, uint32_t kind, int32_t precision, int32_t scale)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->dec64 = precision <= 18;
    s->scale = scale;
    orc_stats_reset(s);
}

void orc_stats_free(orc_stats_acc *s)
{
    pm_buf_free(&s->smin);
    pm_buf_free(&s->smax);
    pm_buf_free(&s->scratch);
}

void orc_stats_reset(orc_stats_acc *s)
{
    s->count = 0;
    s->has_null = false;
    s->bytes_on_disk = 0;
    s->has_min = false;
    s->imin = INT64_MAX;
    s->imax = INT64_MIN;
    s->isum = 0;
    s->overflow = false;
    s->dmin = 1.7976931348623157e308;  /* Double.MAX_VALUE */
    s->dmax = 4.9e-324;                /* Double.MIN_VALUE */
    s->dsum = 0;
    pm_buf_clear(&s->smin);
    pm_buf_clear(&s->smax);
    s->has_str = s->lower_set = s->upper_set = false;
    s->ssum = 0;
    s->trues = 0;
    s->dec_has_min = false;
    s->dec_has_sum = true;
    s->decmin = s->decmax = s->decsum = 0;
    s->sum_scale = s->dec64 ? s->scale : 0;
    s->datemin = INT32_MAX;
    s->datemax = INT32_MIN;
    s->tsmin = INT64_MAX;
    s->tsmax = INT64_MIN;
    s->min_nanos = 0;
    s->max_nanos = 999999;
    s->cmin = UINT64_MAX;   /* Long.MAX_VALUE in Java; only seen through count */
    s->cmax = 0;
    s->csum = 0;
}

void orc_stats_nonnull(orc_stats_acc *s, uint64_t n) { s->count += n; }
void orc_stats_set_null(orc_stats_acc *s) { s->has_null = true; }

void orc_stats_int(orc_stats_acc *s, int64_t v)
{
    if (!s->has_min) {
        s->has_min = true;
        s->imin = s->imax = v;
    } else if (v < s->imin) {
        s->imin = v;
    } else if (v > s->imax) {
        s->imax = v;
    }
    if (!s->overflow && __builtin_add_overflow(s->isum, v, &s->isum))
        s->overflow = true;
}

void orc_stats_double(orc_stats_acc *s, double v)
{
    if (!s->has_min) {
        s->has_min = true;
        s->dmin = s->dmax = v;
    } else if (v < s->dmin) {
        s->dmin = v;
    } else if (v > s->dmax) {
        s->dmax = v;
    }
    s->dsum += v;
}

void orc_stats_bool(orc_stats_acc *s, bool v)
{
    if (v)
        s->trues++;
}

/* Start of the UTF-8 character holding byte `until` (scanning back to `from`). */
static ptrdiff_t last_char(const uint8_t *p, ptrdiff_t from, ptrdiff_t until)
{
    for (ptrdiff_t i = until; i >= from; i--)
        if ((p[i] & 0xc0) != 0x80)
            return i;
    return -1;
}

/* Java's UTF-8 decoding of one character (U+FFFD when malformed). */
static uint32_t code_point(const uint8_t *p, size_t n)
{
    if (n == 0)
        return 0xfffd;
    uint8_t b = p[0];
    if (b < 0x80)
        return b;
    int need;
    uint32_t cp;
    uint8_t lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
        need = 1;
        cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
        need = 2;
        cp = b & 0x0f;
        if (b == 0xe0)
            lo = 0xa0;
        else if (b == 0xed)
            hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3;
        cp = b & 0x07;
        if (b == 0xf0)
            lo = 0x90;
        else if (b == 0xf4)
            hi = 0x8f;
    } else {
        return 0xfffd;
    }
    if ((size_t)need >= n)
        return 0xfffd;
    for (int k = 1; k <= need; k++) {
        uint8_t c = p[k];
        if (c < lo || c > hi)
            return 0xfffd;
        lo = 0x80;
        hi = 0xbf;
        cp = cp << 6 | (c & 0x3f);
    }
    return cp;
}

/* ColumnStatisticsImpl.appendCodePoint, 0x7f quirk included. */
static pm_error *append_code_point(pm_buf *b, uint32_t cp)
{
    uint8_t t[4];
    size_t n;
    if (cp < 0x7f) {
        t[0] = (uint8_t)cp;
        n = 1;
    } else if (cp <= 0x7ff) {
        t[0] = (uint8_t)(0xc0 | (cp >> 6));
        t[1] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0xffff) {
        t[0] = (uint8_t)(0xe0 | (cp >> 12));
        t[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        t[2] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        t[0] = (uint8_t)(0xf0 | (cp >> 18));
        t[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
        t[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        t[3] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return pm_buf_append(b, t, n);
}

static pm_error *set_lower(pm_buf *dst, const uint8_t *p)
{
    ptrdiff_t end = last_char(p, 0, MAX_BYTES_RECORDED);
    if (end < 0)
        end = MAX_BYTES_RECORDED;
    pm_buf_clear(dst);
    return pm_buf_append(dst, p, (size_t)end);
}

static pm_error *set_upper(pm_buf *dst, const uint8_t *p)
{
    ptrdiff_t following = last_char(p, 0, MAX_BYTES_RECORDED);
    ptrdiff_t last = following > 0 ? last_char(p, 0, following - 1) : -1;
    pm_buf_clear(dst);
    if (following < 0 || last < 0)
        return pm_buf_append(dst, p, MAX_BYTES_RECORDED);
    PM_TRY(pm_buf_append(dst, p, (size_t)last));
    return append_code_point(dst, code_point(p + last, (size_t)(following - last)) + 1);
}

static pm_error *set_exact(pm_buf *dst, const uint8_t *p, size_t n)
{
    pm_buf_clear(dst);
    return pm_buf_append(dst, p, n);
}

static int cmp_bytes(const pm_buf *a, const uint8_t *p, size_t n)
{
    size_t m = a->len < n ? a->len : n;
    int c = m ? memcmp(a->data, p, m) : 0;
    if (c)
        return c;
    return a->len < n ? -1 : a->len > n ? 1 : 0;
}

pm_error *orc_stats_string(orc_stats_acc *s, const uint8_t *p, size_t n)
{
    bool big = n > MAX_BYTES_RECORDED;
    if (!s->has_str) {
        if (big) {
            PM_TRY(set_lower(&s->smin, p));
            PM_TRY(set_upper(&s->smax, p));
            s->lower_set = s->upper_set = true;
        } else {
            PM_TRY(set_exact(&s->smin, p, n));
            PM_TRY(set_exact(&s->smax, p, n));
            s->lower_set = s->upper_set = false;
        }
        s->has_str = true;
    } else if (cmp_bytes(&s->smin, p, n) > 0) {
        if (big) {
            PM_TRY(set_lower(&s->smin, p));
            s->lower_set = true;
        } else {
            PM_TRY(set_exact(&s->smin, p, n));
            s->lower_set = false;
        }
    } else if (cmp_bytes(&s->smax, p, n) < 0) {
        if (big) {
            PM_TRY(set_upper(&s->smax, p));
            s->upper_set = true;
        } else {
            PM_TRY(set_exact(&s->smax, p, n));
            s->upper_set = false;
        }
    }
    s->ssum += (int64_t)n;
    return NULL;
}

void orc_stats_binary(orc_stats_acc *s, size_t n) { s->ssum += (int64_t)n; }

void orc_stats_decimal(orc_stats_acc *s, __int128 v)
{
    if (s->dec64) {
        if (!s->dec_has_min) {
            s->dec_has_min = true;
            s->decmin = s->decmax = v;
        } else {
            if (s->decmin > v)
                s->decmin = v;
            if (s->decmax < v)
                s->decmax = v;
        }
        if (s->dec_has_sum) {
            s->decsum += v;
            s->dec_has_sum = s->decsum <= MAX_DECIMAL64 && s->decsum >= -MAX_DECIMAL64;
        }
        return;
    }
    if (!s->dec_has_min) {
        s->dec_has_min = true;
        s->decmin = s->decmax = v;
    } else if (s->decmin > v) {
        s->decmin = v;
    } else if (s->decmax < v) {
        s->decmax = v;
    }
    if (s->dec_has_sum)
        s->dec_has_sum = hive_add(&s->decsum, &s->sum_scale, v, s->scale);
}

void orc_stats_date(orc_stats_acc *s, int32_t d)
{
    if (s->datemin > d)
        s->datemin = d;
    if (s->datemax < d)
        s->datemax = d;
}

void orc_stats_timestamp(orc_stats_acc *s, int64_t v, int32_t nanos)
{
    if (s->tsmin > s->tsmax) {
        s->tsmin = s->tsmax = v;
        s->min_nanos = s->max_nanos = nanos;
        return;
    }
    if (s->tsmin >= v) {
        if (s->tsmin > v || nanos < s->min_nanos)
            s->min_nanos = nanos;
        s->tsmin = v;
    }
    if (s->tsmax <= v) {
        if (s->tsmax < v || nanos > s->max_nanos)
            s->max_nanos = nanos;
        s->tsmax = v;
    }
}

void orc_stats_collection(orc_stats_acc *s, uint64_t len)
{
    if (len < s->cmin)
        s->cmin = len;
    if (len > s->cmax)
        s->cmax = len;
    s->csum += len;
}

pm_error *orc_stats_merge(orc_stats_acc *d, const orc_stats_acc *o)
{
    switch (d->kind) {
    case ORC_BOOLEAN: d->trues += o->trues; break;
    case ORC_BYTE:
    case ORC_SHORT:
    case ORC_INT:
    case ORC_LONG:
        if (!d->has_min) {
            d->has_min = o->has_min;
            d->imin = o->imin;
            d->imax = o->imax;
        } else if (o->has_min) {
            if (o->imin < d->imin)
                d->imin = o->imin;
            if (o->imax > d->imax)
                d->imax = o->imax;
        }
        d->overflow |= o->overflow;
        if (!d->overflow && __builtin_add_overflow(d->isum, o->isum, &d->isum))
            d->overflow = true;
        break;
    case ORC_FLOAT:
    case ORC_DOUBLE:
        if (!d->has_min) {
            d->has_min = o->has_min;
            d->dmin = o->dmin;
            d->dmax = o->dmax;
        } else if (o->has_min) {
            if (o->dmin < d->dmin)
                d->dmin = o->dmin;
            if (o->dmax > d->dmax)
                d->dmax = o->dmax;
        }
        d->dsum += o->dsum;
        break;
    case ORC_STRING:
    case ORC_CHAR:
    case ORC_VARCHAR:
        if (d->count == 0) {
            if (o->count != 0) {
                PM_TRY(set_exact(&d->smin, o->smin.data, o->smin.len));
                PM_TRY(set_exact(&d->smax, o->smax.data, o->smax.len));
                d->lower_set = o->lower_set;
                d->upper_set = o->upper_set;
                d->has_str = true;
            } else {
                pm_buf_clear(&d->smin);
                pm_buf_clear(&d->smax);
                d->has_str = d->lower_set = d->upper_set = false;
            }
        } else if (o->count != 0) {
            if (cmp_bytes(&d->smin, o->smin.data, o->smin.len) > 0) {
                PM_TRY(set_exact(&d->smin, o->smin.data, o->smin.len));
                d->lower_set = o->lower_set;
            }
            if (cmp_bytes(&d->smax, o->smax.data, o->smax.len) < 0) {
                PM_TRY(set_exact(&d->smax, o->smax.data, o->smax.len));
                d->upper_set = o->upper_set;
            }
        }
        d->ssum += o->ssum;
        break;
    case ORC_BINARY: d->ssum += o->ssum; break;
    case ORC_DECIMAL:
        if (d->dec64) {
            if (d->count == 0) {
                /* Java copies the values but keeps its own hasSum flag */
                d->decmin = o->decmin;
                d->decmax = o->decmax;
                d->decsum = o->decsum;
                d->dec_has_min = o->dec_has_min;
            } else if (o->count != 0 || o->dec_has_min) {
                if (d->decmin > o->decmin)
                    d->decmin = o->decmin;
                if (d->decmax < o->decmax)
                    d->decmax = o->decmax;
                if (d->dec_has_sum && o->dec_has_sum) {
                    d->decsum += o->decsum;
                    d->dec_has_sum = d->decsum <= MAX_DECIMAL64 && d->decsum >= -MAX_DECIMAL64;
                } else {
                    d->dec_has_sum = false;
                }
            }
        } else {
            if (!d->dec_has_min) {
                d->dec_has_min = o->dec_has_min;
                d->decmin = o->decmin;
                d->decmax = o->decmax;
                d->decsum = o->decsum;
                d->sum_scale = o->sum_scale;
                d->dec_has_sum = o->dec_has_sum;
            } else if (o->dec_has_min) {
                if (d->decmin > o->decmin)
                    d->decmin = o->decmin;
                if (d->decmax < o->decmax)
                    d->decmax = o->decmax;
                if (!d->dec_has_sum || !o->dec_has_sum) {
                    d->dec_has_sum = false;
                } else {
                    d->dec_has_sum = hive_add(&d->decsum, &d->sum_scale, o->decsum, o->sum_scale);
                }
            }
        }
        break;
    case ORC_DATE:
        if (o->datemin < d->datemin)
            d->datemin = o->datemin;
        if (o->datemax > d->datemax)
            d->datemax = o->datemax;
        break;
    case ORC_TIMESTAMP:
    case ORC_TIMESTAMP_INSTANT:
        if (d->count == 0) {
            if (o->count != 0) {
                d->tsmin = o->tsmin;
                d->tsmax = o->tsmax;
                d->min_nanos = o->min_nanos;
                d->max_nanos = o->max_nanos;
            }
        } else if (o->count != 0) {
            if (d->tsmin >= o->tsmin) {
                if (d->tsmin > o->tsmin || d->min_nanos > o->min_nanos)
                    d->min_nanos = o->min_nanos;
                d->tsmin = o->tsmin;
            }
            if (d->tsmax <= o->tsmax) {
                if (d->tsmax < o->tsmax || d->max_nanos < o->max_nanos)
                    d->max_nanos = o->max_nanos;
                d->tsmax = o->tsmax;
            }
        }
        break;
    case ORC_LIST:
    case ORC_MAP:
        if (d->count == 0) {
            d->cmin = o->cmin;
            d->cmax = o->cmax;
        } else {
            if (o->cmin < d->cmin)
                d->cmin = o->cmin;
            if (o->cmax > d->cmax)
                d->cmax = o->cmax;
        }
        d->csum += o->csum;
        break;
    default: break;
    }
    d->count += o->count;
    d->has_null |= o->has_null;
    d->bytes_on_disk += o->bytes_on_disk;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Text                                                                */

pm_error *orc_decimal_text(pm_buf *out, __int128 v, int32_t scale)
{
    while (scale > 0 && v % 10 == 0) {
        v /= 10;
        scale--;
    }
    return pm_decimal_format(out, v, scale);
}

/* ------------------------------------------------------------------ */
/* Serialization                                                       */

/* Java decodes the recorded bytes as UTF-8, replacing malformed input. */
static pm_error *java_utf8(pm_buf *out, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t b = p[i];
        if (b < 0x80) {
            PM_TRY(pm_buf_append_byte(out, b));
            i++;
            continue;
        }
        int need = 0;
        uint8_t lo = 0x80, hi = 0xbf;
        if (b >= 0xc2 && b <= 0xdf)
            need = 1;
        else if (b >= 0xe0 && b <= 0xef) {
            need = 2;
            if (b == 0xe0)
                lo = 0xa0;
            else if (b == 0xed)
                hi = 0x9f;
        } else if (b >= 0xf0 && b <= 0xf4) {
            need = 3;
            if (b == 0xf0)
                lo = 0x90;
            else if (b == 0xf4)
                hi = 0x8f;
        }
        size_t ok = 1;
        bool valid = need > 0;
        for (int k = 1; valid && k <= need; k++) {
            if (i + (size_t)k >= n || p[i + k] < lo || p[i + k] > hi) {
                valid = false;
                break;
            }
            lo = 0x80;
            hi = 0xbf;
            ok++;
        }
        if (valid) {
            PM_TRY(pm_buf_append(out, p + i, (size_t)need + 1));
            i += (size_t)need + 1;
        } else {
            PM_TRY(pm_buf_append(out, "\xef\xbf\xbd", 3));
            i += ok;
        }
    }
    return NULL;
}

pm_error *orc_stats_serialize(orc_stats_acc *s, pm_buf *out)
{
    pm_orc_stats st;
    memset(&st, 0, sizeof st);
    st.has_count = true;
    st.count = s->count;
    st.has_has_null = true;
    st.has_null = s->has_null;
    if (s->bytes_on_disk) {
        st.has_bytes_on_disk = true;
        st.bytes_on_disk = s->bytes_on_disk;
    }
    pm_buf_clear(&s->scratch);
    /* offsets of strings built in scratch (pointers fixed after it stops growing) */
    size_t o[6] = {0}, l[6] = {0};
    switch (s->kind) {
    case ORC_BOOLEAN:
        st.bucket.present = true;
        st.bucket.ncount = 1;
        st.bucket.count = &s->trues;
        break;
    case ORC_BYTE:
    case ORC_SHORT:
    case ORC_INT:
    case ORC_LONG:
        st.ints.present = true;
        if (s->has_min) {
            st.ints.has_min = st.ints.has_max = true;
            st.ints.min = s->imin;
            st.ints.max = s->imax;
        }
        if (!s->overflow) {
            st.ints.has_sum = true;
            st.ints.sum = s->isum;
        }
        break;
    case ORC_FLOAT:
    case ORC_DOUBLE:
        st.dbl.present = true;
        if (s->has_min) {
            st.dbl.has_min = st.dbl.has_max = true;
            st.dbl.min = s->dmin;
            st.dbl.max = s->dmax;
        }
        st.dbl.has_sum = true;
        st.dbl.sum = s->dsum;
        break;
    case ORC_STRING:
    case ORC_CHAR:
    case ORC_VARCHAR:
        st.str.present = true;
        if (s->count != 0) {
            o[0] = s->scratch.len;
            PM_TRY(java_utf8(&s->scratch, s->smin.data, s->smin.len));
            l[0] = s->scratch.len - o[0];
            o[1] = s->scratch.len;
            PM_TRY(java_utf8(&s->scratch, s->smax.data, s->smax.len));
            l[1] = s->scratch.len - o[1];
            st.str.has_sum = true;
            st.str.sum = s->ssum;
        }
        break;
    case ORC_BINARY:
        st.bin.present = true;
        st.bin.has_sum = true;
        st.bin.sum = s->ssum;
        break;
    case ORC_DECIMAL:
        st.dec.present = true;
        if (s->count != 0 && s->dec_has_min) {
            o[2] = s->scratch.len;
            PM_TRY(orc_decimal_text(&s->scratch, s->decmin, s->scale));
            l[2] = s->scratch.len - o[2];
            o[3] = s->scratch.len;
            PM_TRY(orc_decimal_text(&s->scratch, s->decmax, s->scale));
            l[3] = s->scratch.len - o[3];
            st.dec.has_min = st.dec.has_max = true;
        }
        if (s->dec_has_sum) {
            o[4] = s->scratch.len;
            PM_TRY(orc_decimal_text(&s->scratch, s->decsum, s->dec64 ? s->scale : s->sum_scale));
            l[4] = s->scratch.len - o[4];
            st.dec.has_sum = true;
        }
        break;
    case ORC_DATE:
        st.date.present = true;
        if (s->count != 0) {
            st.date.has_min = st.date.has_max = true;
            st.date.min = s->datemin;
            st.date.max = s->datemax;
        }
        break;
    case ORC_TIMESTAMP:
    case ORC_TIMESTAMP_INSTANT:
        st.ts.present = true;
        if (s->count != 0) {
            st.ts.has_min_utc = st.ts.has_max_utc = true;
            st.ts.min_utc = s->tsmin;
            st.ts.max_utc = s->tsmax;
            if (s->min_nanos != 0) {
                st.ts.has_min_nanos = true;
                st.ts.min_nanos = s->min_nanos + 1;
            }
            if (s->max_nanos != 999999) {
                st.ts.has_max_nanos = true;
                st.ts.max_nanos = s->max_nanos + 1;
            }
        }
        break;
    case ORC_LIST:
    case ORC_MAP:
        st.coll.present = true;
        if (s->count != 0) {
            st.coll.has_min = st.coll.has_max = true;
            st.coll.min = s->cmin;
            st.coll.max = s->cmax;
        }
        if (s->csum != 0) {
            st.coll.has_total = true;
            st.coll.total = s->csum;
        }
        break;
    default: break;
    }
    const char *base = s->scratch.data ? (const char *)s->scratch.data : "";
    if (s->kind == ORC_STRING || s->kind == ORC_CHAR || s->kind == ORC_VARCHAR) {
        if (s->count != 0) {
            pm_orc_str mn = {base + o[0], l[0]}, mx = {base + o[1], l[1]};
            if (s->lower_set) {
                st.str.has_lower = true;
                st.str.lower = mn;
            } else {
                st.str.has_min = true;
                st.str.min = mn;
            }
            if (s->upper_set) {
                st.str.has_upper = true;
                st.str.upper = mx;
            } else {
                st.str.has_max = true;
                st.str.max = mx;
            }
        }
    } else if (s->kind == ORC_DECIMAL) {
        st.dec.min = (pm_orc_str){base + o[2], l[2]};
        st.dec.max = (pm_orc_str){base + o[3], l[3]};
        st.dec.sum = (pm_orc_str){base + o[4], l[4]};
    }
    return orc_put_stats(out, &st);
}

/* ------------------------------------------------------------------ */
/* Paimon's view                                                       */

void orc_field_stats(const pm_orc_stats *s, const pm_type *t, uint64_t rows, pm_orc_field_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!s || !s->has_count)
        return;
    out->has_null_count = true;
    out->null_count = (int64_t)(rows - s->count);
    if (s->count == 0)
        return;
    switch (t->id) {
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        if (!s->str.present)
            return;
        if (s->str.has_min) {
            out->has_min = true;
            out->min.bytes.data = (const uint8_t *)s->str.min.data;
            out->min.bytes.len = s->str.min.len;
        }
        if (s->str.has_max) {
            out->has_max = true;
            out->max.bytes.data = (const uint8_t *)s->str.max.data;
            out->max.bytes.len = s->str.max.len;
        }
        return;
    case PM_TYPE_BOOLEAN:
        if (!s->bucket.present || s->bucket.ncount < 1)
            return;
        out->has_min = out->has_max = true;
        out->min.b = s->count - s->bucket.count[0] == 0;
        out->max.b = s->bucket.count[0] != 0;
        return;
    case PM_TYPE_DECIMAL: {
        if (!s->dec.present || !s->dec.has_min || !s->dec.has_max)
            return;
        /* orc-core writes the texts at the column's scale, so an exact parse
         * suffices; anything else (more fraction digits, too many digits for
         * the precision) leaves the bounds unknown */
        __int128 a, b;
        pm_error *e = pm_decimal_parse(s->dec.min.data, s->dec.min.len, t->precision, t->scale, &a);
        if (!e)
            e = pm_decimal_parse(s->dec.max.data, s->dec.max.len, t->precision, t->scale, &b);
        if (e) {
            pm_error_free(e);
            return;
        }
        out->has_min = out->has_max = true;
        out->min.dec = a;
        out->max.dec = b;
        return;
    }
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_TIME:
    case PM_TYPE_BIGINT: {
        if (!s->ints.present)
            return;
        int64_t mn = s->ints.has_min ? s->ints.min : INT64_MAX, mx = s->ints.has_max ? s->ints.max : INT64_MIN;
        if (t->id == PM_TYPE_TINYINT) {
            mn = (int8_t)mn;
            mx = (int8_t)mx;
        } else if (t->id == PM_TYPE_SMALLINT) {
            mn = (int16_t)mn;
            mx = (int16_t)mx;
        } else if (t->id != PM_TYPE_BIGINT) {
            mn = (int32_t)mn;
            mx = (int32_t)mx;
        }
        /* Java casts with (byte) / (short) / intValue(), as above */
        out->has_min = out->has_max = true;
        out->min.i = mn;
        out->max.i = mx;
        return;
    }
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE: {
        if (!s->dbl.present)
            return;
        double mn = s->dbl.has_min ? s->dbl.min : 1.7976931348623157e308;
        double mx = s->dbl.has_max ? s->dbl.max : 4.9e-324;
        out->has_min = out->has_max = true;
        if (t->id == PM_TYPE_FLOAT) {
            out->min.f = (float)mn;
            out->max.f = (float)mx;
        } else {
            out->min.d = mn;
            out->max.d = mx;
        }
        return;
    }
    case PM_TYPE_DATE:
        if (!s->date.present || !s->date.has_min || !s->date.has_max)
            return;
        out->has_min = out->has_max = true;
        out->min.i = s->date.min;
        out->max.i = s->date.max;
        return;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        if (!s->ts.present)
            return;
        int64_t mn_ms, mx_ms;
        if (s->ts.has_min_utc)
            mn_ms = s->ts.min_utc;
        else if (s->ts.has_min)
            mn_ms = s->ts.min;
        else
            return;
        if (s->ts.has_max_utc)
            mx_ms = s->ts.max_utc;
        else if (s->ts.has_max)
            mx_ms = s->ts.max;
        else
            return;
        int64_t mn_ns = s->ts.has_min_nanos ? s->ts.min_nanos - 1 : 0;
        int64_t mx_ns = s->ts.has_max_nanos ? s->ts.max_nanos - 1 : 999999;
        if (mn_ns < 0 || mn_ns > 999999 || mx_ns < 0 || mx_ns > 999999)
            return;
        int64_t units = pm_timestamp_units_per_second(t->precision);
        __int128 a = (__int128)mn_ms * 1000000 + mn_ns, b = (__int128)mx_ms * 1000000 + mx_ns;
        int64_t div = 1000000000 / units;
        __int128 qa = a >= 0 ? a / div : -((-a + div - 1) / div);
        __int128 qb = b >= 0 ? b / div : -((-b + div - 1) / div);
        if (qa > INT64_MAX || qa < INT64_MIN || qb > INT64_MAX || qb < INT64_MIN)
            return;
        out->has_min = out->has_max = true;
        out->min.i = (int64_t)qa;
        out->max.i = (int64_t)qb;
        return;
    }
    default:
        return;
    }
}
