/*
 * types/temporal.c — calendar arithmetic and ISO text for DATE/TIME/
 * TIMESTAMP (see temporal.h for the forms).
 *
 * Days <-> civil date use the era-based algorithm (400-year eras of
 * 146097 days, years starting in March so the leap day is the last day of
 * the year), valid for every int64 day count that fits a year in int64.
 */
#include "types/temporal.h"

#include <stdio.h>
#include <string.h>

#include "types/column.h"

void pm_civil_from_days(int64_t z, int64_t *year, int *month, int *day)
{
    z += 719468;
    int64_t era = pm_floor_div(z, 146097);
    int64_t doe = z - era * 146097;                                        /* 0..146096 */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;   /* 0..399 */
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                 /* 0..365 */
    int64_t mp = (5 * doy + 2) / 153;                                      /* 0..11 */
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = y + (*month <= 2);
}

int64_t pm_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = pm_floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int days_in_month(int64_t y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

/* Write `width` digits of v (0 <= v < 10^width) at p; returns p + width. */
static char *put_digits(char *p, int64_t v, int width)
{
    for (int k = width - 1; k >= 0; k--) {
        p[k] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + width;
}

/* Year as Java's LocalDate prints it: 4+ digits, '-' when negative, '+'
 * when above 9999. */
static char *put_year(char *p, int64_t y)
{
    if (y >= 0 && y <= 9999)
        return put_digits(p, y, 4);
    if (y < 0 && y > -10000) {
        *p++ = '-';
        return put_digits(p, -y, 4);
    }
    *p++ = y > 0 ? '+' : '-';
    uint64_t u = y > 0 ? (uint64_t)y : 0 - (uint64_t)y;
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_date(char *p, int64_t days)
{
    int64_t y;
    int m, d;
    pm_civil_from_days(days, &y, &m, &d);
    p = put_year(p, y);
    *p++ = '-';
    p = put_digits(p, m, 2);
    *p++ = '-';
    return put_digits(p, d, 2);
}

/* HH:MM:SS then '.' and `precision` digits of a 9-digit nanosecond fraction. */
static char *put_time(char *p, int64_t sod, int64_t nanos, int32_t precision)
{
    p = put_digits(p, sod / 3600, 2);
    *p++ = ':';
    p = put_digits(p, sod / 60 % 60, 2);
    *p++ = ':';
    p = put_digits(p, sod % 60, 2);
    if (precision > 0) {
        char nine[9];
        put_digits(nine, nanos, 9);
        *p++ = '.';
        int n = precision > 9 ? 9 : precision;
        memcpy(p, nine, (size_t)n);
        p += n;
    }
    return p;
}

pm_error *pm_format_date(pm_buf *out, int64_t days)
{
    char buf[48];
    char *e = put_date(buf, days);
    return pm_buf_append(out, buf, (size_t)(e - buf));
}

pm_error *pm_format_time(pm_buf *out, int32_t ms, int32_t precision)
{
    if (ms < 0 || ms >= 86400000)
        return pm_error_new(PM_EINVALID, "TIME value %d is not a millisecond of the day", (int)ms);
    char buf[32];
    char *e = put_time(buf, ms / 1000, (int64_t)(ms % 1000) * 1000000, precision);
    return pm_buf_append(out, buf, (size_t)(e - buf));
}

pm_error *pm_format_timestamp(pm_buf *out, int64_t value, int32_t precision, bool ltz)
{
    int64_t units = pm_timestamp_units_per_second(precision);
    int64_t secs = pm_floor_div(value, units);
    int64_t frac = pm_floor_mod(value, units);
    int64_t days = pm_floor_div(secs, 86400);
    int64_t sod = secs - days * 86400;
    char buf[80];
    char *e = put_date(buf, days);
    *e++ = 'T';
    e = put_time(e, sod, frac * (1000000000 / units), precision);
    if (ltz)
        *e++ = 'Z';
    return pm_buf_append(out, buf, (size_t)(e - buf));
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */

typedef struct tscan {
    const char *p, *end;
} tscan;

/* Exactly `n` digits. */
static bool digits(tscan *s, int n, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (s->p >= s->end || *s->p < '0' || *s->p > '9')
            return false;
        v = v * 10 + (*s->p++ - '0');
    }
    *out = v;
    return true;
}

static bool lit(tscan *s, char c)
{
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

static pm_error *bad(const char *what, const char *s, size_t n, const char *why)
{
    return pm_error_new(PM_EINVALID, "'%.*s' is not a valid %s: %s", (int)(n > 64 ? 64 : n), s, what, why);
}

static pm_error *scan_date(tscan *s, const char *what, const char *txt, size_t n, int64_t *days)
{
    int sign = 1;
    if (lit(s, '-'))
        sign = -1;
    else
        lit(s, '+');
    int64_t y = 0;
    int nd = 0;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9' && nd < 9) {
        y = y * 10 + (*s->p++ - '0');
        nd++;
    }
    if (nd < 4)
        return bad(what, txt, n, "expected a year of at least 4 digits");
    int64_t m, d;
    if (!lit(s, '-') || !digits(s, 2, &m) || !lit(s, '-') || !digits(s, 2, &d))
        return bad(what, txt, n, "expected YYYY-MM-DD");
    y *= sign;
    if (m < 1 || m > 12)
        return bad(what, txt, n, "month out of range");
    if (d < 1 || d > days_in_month(y, (int)m))
        return bad(what, txt, n, "day out of range");
    *days = pm_days_from_civil(y, (int)m, (int)d);
    return NULL;
}

/* HH:MM[:SS[.f{1,9}]] -> nanos of day; checks digits past `precision`. */
static pm_error *scan_time(tscan *s, const char *what, const char *txt, size_t n, int32_t precision,
                           int64_t *nanos)
{
    int64_t h, mi, sec = 0, frac = 0;
    if (!digits(s, 2, &h) || !lit(s, ':') || !digits(s, 2, &mi))
        return bad(what, txt, n, "expected HH:MM:SS");
    if (lit(s, ':')) {
        if (!digits(s, 2, &sec))
            return bad(what, txt, n, "expected two digits of seconds");
        if (lit(s, '.')) {
            int nd = 0;
            while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
                if (nd == 9)
                    return bad(what, txt, n, "more than 9 fraction digits");
                int dgt = *s->p++ - '0';
                if (nd >= precision && dgt != 0)
                    return bad(what, txt, n, "more fraction digits than the precision");
                frac = frac * 10 + dgt;
                nd++;
            }
            if (nd == 0)
                return bad(what, txt, n, "expected fraction digits after '.'");
            for (; nd < 9; nd++)
                frac *= 10;
        }
    }
    if (h > 23 || mi > 59 || sec > 59)
        return bad(what, txt, n, "hour, minute or second out of range");
    *nanos = ((h * 60 + mi) * 60 + sec) * 1000000000 + frac;
    return NULL;
}

pm_error *pm_parse_date(const char *txt, size_t n, int32_t *out)
{
    tscan s = {txt, txt + n};
    int64_t days;
    PM_TRY(scan_date(&s, "DATE", txt, n, &days));
    if (s.p != s.end)
        return bad("DATE", txt, n, "unexpected text after the date");
    if (days < INT32_MIN || days > INT32_MAX)
        return bad("DATE", txt, n, "out of range");
    *out = (int32_t)days;
    return NULL;
}

pm_error *pm_parse_time(const char *txt, size_t n, int32_t precision, int32_t *out)
{
    tscan s = {txt, txt + n};
    int64_t nanos;
    PM_TRY(scan_time(&s, "TIME", txt, n, precision < 3 ? precision : 3, &nanos));
    if (s.p != s.end)
        return bad("TIME", txt, n, "unexpected text after the time");
    *out = (int32_t)(nanos / 1000000);
    return NULL;
}

pm_error *pm_parse_timestamp(const char *txt, size_t n, int32_t precision, bool ltz, int64_t *out)
{
    const char *what = ltz ? "TIMESTAMP WITH LOCAL TIME ZONE" : "TIMESTAMP";
    tscan s = {txt, txt + n};
    int64_t days, nanos = 0, offset_s = 0;
    PM_TRY(scan_date(&s, what, txt, n, &days));
    if (lit(&s, 'T') || lit(&s, 't') || lit(&s, ' '))
        PM_TRY(scan_time(&s, what, txt, n, precision, &nanos));
    if (s.p < s.end && ltz) {
        if (lit(&s, 'Z') || lit(&s, 'z')) {
        } else if (*s.p == '+' || *s.p == '-') {
            int sign = *s.p++ == '-' ? -1 : 1;
            int64_t oh, om = 0;
            if (!digits(&s, 2, &oh) || (lit(&s, ':') ? !digits(&s, 2, &om) : (s.p < s.end && !digits(&s, 2, &om))))
                return bad(what, txt, n, "expected a zone offset +HH:MM");
            if (oh > 18 || om > 59)
                return bad(what, txt, n, "zone offset out of range");
            offset_s = sign * (oh * 3600 + om * 60);
        }
    }
    if (s.p != s.end)
        return bad(what, txt, n, ltz ? "unexpected text after the timestamp" :
                                       "unexpected text after the timestamp (no time zone allowed)");
    int64_t units = pm_timestamp_units_per_second(precision);
    int64_t frac = nanos % 1000000000 / (1000000000 / units);
    int64_t secs, v;
    if (__builtin_mul_overflow(days, 86400, &secs) || __builtin_add_overflow(secs, nanos / 1000000000 - offset_s, &secs))
        return bad(what, txt, n, "out of range");
    if (secs < 0 && frac > 0) { /* (secs+1)*units - (units-frac): reaches INT64_MIN without overflow */
        secs += 1;
        frac -= units;
    }
    if (__builtin_mul_overflow(secs, units, &v) || __builtin_add_overflow(v, frac, &v))
        return bad(what, txt, n, "out of range");
    *out = v;
    return NULL;
}
