/*
 * format/orc/orc_tz.c — time zones: fixed offsets, TZif files and POSIX
 * TZ rules (see orc_tz.h).
 *
 * TZif layout (big-endian): "TZif", version, 15 reserved bytes, six u32
 * counts (isut, isstd, leap, time, type, char), then time[] (4-byte times
 * in v1, 8-byte in the second block of v2+), idx[time] (u8), type[] =
 * (i32 utoff, u8 isdst, u8 abbr index), chars, leap records, isstd,
 * isut.  For version 2+ the v1 block is skipped and the 64-bit block is
 * read, followed by "\n" POSIX-TZ "\n".  Every count is checked against
 * the bytes left; an index beyond the types is corrupt.
 */
#include "format/orc/orc_tz.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/mem.h"
#include "io/fileio.h"
#include "types/temporal.h"

typedef struct rule_date {
    char kind;          /* 'J' (1..365, no Feb 29), 'D' (0..365), 'M' */
    int a, b, c;        /* J/D: a = day; M: a = month, b = week, c = weekday */
    int32_t time;       /* seconds after local midnight */
} rule_date;

struct orc_tz {
    size_t ntrans;
    int64_t *trans;     /* transition instants, ascending */
    uint8_t *idx;       /* type after each transition */
    size_t ntypes;
    int32_t *utoff;
    uint8_t *isdst;
    int32_t first_off;  /* before the first transition */
    bool has_rule;      /* POSIX footer */
    int32_t std_off, dst_off;   /* seconds east of UTC */
    bool rule_dst;
    rule_date start, end;
};

/* ------------------------------------------------------------------ */
/* Fixed zones                                                         */

static bool parse_hms(const char **sp, int32_t *out, int max_hours)
{
    const char *s = *sp;
    int h = 0, m = 0, sec = 0, digits = 0;
    while (isdigit((unsigned char)*s) && digits < 3) {
        h = h * 10 + (*s++ - '0');
        digits++;
    }
    if (!digits || h > max_hours)
        return false;
    if (*s == ':') {
        s++;
        if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
            return false;
        m = (s[0] - '0') * 10 + (s[1] - '0');
        s += 2;
        if (*s == ':') {
            s++;
            if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
                return false;
            sec = (s[0] - '0') * 10 + (s[1] - '0');
            s += 2;
        }
    }
    if (m > 59 || sec > 59)
        return false;
    *out = h * 3600 + m * 60 + sec;
    *sp = s;
    return true;
}

static bool parse_offset(const char *s, int32_t *out)
{
    if (*s != '+' && *s != '-')
        return false;
    int sign = *s++ == '-' ? -1 : 1;
    int32_t v;
    /* +hhmm without a colon */
    if (isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) &&
        isdigit((unsigned char)s[3]) && !s[4]) {
        int h = (s[0] - '0') * 10 + (s[1] - '0'), m = (s[2] - '0') * 10 + (s[3] - '0');
        if (h > 18 || m > 59)
            return false;
        *out = sign * (h * 3600 + m * 60);
        return true;
    }
    if (!parse_hms(&s, &v, 18) || *s)
        return false;
    *out = sign * v;
    return true;
}

bool orc_tz_fixed_offset(const char *id, int32_t *offset)
{
    static const char *const utc[] = {"UTC",      "GMT",           "Z",        "UCT",       "Universal",
                                      "Zulu",     "Greenwich",     "GMT0",     "Etc/UTC",   "Etc/GMT",
                                      "Etc/UCT",  "Etc/Universal", "Etc/Zulu", "Etc/Greenwich", "Etc/GMT0",
                                      "GMT+0",    "GMT-0",         "Etc/GMT+0", "Etc/GMT-0"};
    *offset = 0;
    if (!id || !*id)
        return true;
    for (size_t i = 0; i < sizeof utc / sizeof *utc; i++)
        if (!strcmp(id, utc[i]))
            return true;
    if (!strncmp(id, "Etc/GMT", 7)) {
        int32_t o;
        if (!parse_offset(id + 7, &o) || o % 3600)
            return false;
        *offset = -o;
        return true;
    }
    const char *s = id;
    if (!strncmp(s, "GMT", 3) || !strncmp(s, "UTC", 3))
        s += 3;
    return parse_offset(s, offset);
}

/* ------------------------------------------------------------------ */
/* POSIX TZ rule                                                       */

static bool skip_name(const char **sp)
{
    const char *s = *sp;
    if (*s == '<') {
        const char *e = strchr(s, '>');
        if (!e || e - s < 4)
            return false;
        *sp = e + 1;
        return true;
    }
    size_t n = 0;
    while (isalpha((unsigned char)s[n]))
        n++;
    if (n < 3)
        return false;
    *sp = s + n;
    return true;
}

/* POSIX offset: positive west of UTC; returns seconds east. */
static bool posix_offset(const char **sp, int32_t *east)
{
    const char *s = *sp;
    int sign = 1;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    int32_t v;
    if (!parse_hms(&s, &v, 24))
        return false;
    *east = -sign * v;
    *sp = s;
    return true;
}

static bool parse_rule_date(const char **sp, rule_date *d)
{
    const char *s = *sp;
    memset(d, 0, sizeof *d);
    d->time = 7200;
    if (*s == 'M') {
        s++;
        int v[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) {
            if (!isdigit((unsigned char)*s))
                return false;
            while (isdigit((unsigned char)*s) && v[k] < 1000)
                v[k] = v[k] * 10 + (*s++ - '0');
            if (k < 2 && *s++ != '.')
                return false;
        }
        if (v[0] < 1 || v[0] > 12 || v[1] < 1 || v[1] > 5 || v[2] > 6)
            return false;
        d->kind = 'M';
        d->a = v[0];
        d->b = v[1];
        d->c = v[2];
    } else {
        d->kind = 'D';
        if (*s == 'J') {
            d->kind = 'J';
            s++;
        }
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s) && d->a < 1000)
            d->a = d->a * 10 + (*s++ - '0');
        if ((d->kind == 'J' && (d->a < 1 || d->a > 365)) || d->a > 365)
            return false;
    }
    if (*s == '/') {
        s++;
        int sign = 1;
        if (*s == '+' || *s == '-')
            sign = *s++ == '-' ? -1 : 1;
        int32_t t;
        if (!parse_hms(&s, &t, 167))
            return false;
        d->time = sign * t;
    }
    *sp = s;
    return true;
}

static bool parse_posix(orc_tz *z, const char *s)
{
    if (!skip_name(&s) || !posix_offset(&s, &z->std_off))
        return false;
    z->dst_off = z->std_off;
    if (!*s) {
        z->has_rule = true;
        return true;
    }
    if (!skip_name(&s))
        return false;
    z->dst_off = z->std_off + 3600;
    if (*s && *s != ',' && !posix_offset(&s, &z->dst_off))
        return false;
    if (!*s) {
        /* US rules when none are given */
        z->start = (rule_date){'M', 3, 2, 0, 7200};
        z->end = (rule_date){'M', 11, 1, 0, 7200};
    } else {
        if (*s++ != ',' || !parse_rule_date(&s, &z->start) || *s++ != ',' || !parse_rule_date(&s, &z->end) || *s)
            return false;
    }
    z->rule_dst = true;
    z->has_rule = true;
    return true;
}

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Local seconds (since the epoch, as if UTC) at which rule date d falls in year y. */
static int64_t rule_local(const rule_date *d, int64_t y)
{
    int64_t day;
    if (d->kind == 'J') {
        day = pm_days_from_civil(y, 1, 1) + d->a - 1;
        if (leap(y) && d->a >= 60)
            day++;
    } else if (d->kind == 'D') {
        day = pm_days_from_civil(y, 1, 1) + d->a;
    } else {
        static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int64_t first = pm_days_from_civil(y, d->a, 1);
        int dow = (int)pm_floor_mod(first + 4, 7); /* 1970-01-01 was a Thursday */
        int mday = 1 + (d->c - dow + 7) % 7 + (d->b - 1) * 7;
        int len = mdays[d->a - 1] + (d->a == 2 && leap(y));
        while (mday > len)
            mday -= 7;
        day = first + mday - 1;
    }
    return day * 86400 + d->time;
}

static int32_t rule_offset(const orc_tz *z, int64_t utc)
{
    if (!z->rule_dst)
        return z->std_off;
    int64_t y;
    int m, d;
    pm_civil_from_days(pm_floor_div(utc + z->std_off, 86400), &y, &m, &d);
    (void)m;
    (void)d;
    int64_t start = rule_local(&z->start, y) - z->std_off;
    int64_t end = rule_local(&z->end, y) - z->dst_off;
    bool in_dst = start < end ? (utc >= start && utc < end) : !(utc >= end && utc < start);
    return in_dst ? z->dst_off : z->std_off;
}

/* ------------------------------------------------------------------ */
/* TZif                                                                */

pm_error *orc_tz_parse(const uint8_t *p, size_t n, orc_tz **out)
{
    *out = NULL;
    pm_cursor c = pm_cursor_make(p, n);
    const uint8_t *h;
    PM_TRY(pm_cursor_take(&c, 20, &h, "TZif header"));
    if (memcmp(h, "TZif", 4))
        return pm_error_new(PM_ECORRUPT, "not a TZif file");
    int version = h[4] ? h[4] - '0' : 1;
    uint32_t cnt[6];
    for (int i = 0; i < 6; i++)
        PM_TRY(pm_cursor_u32be(&c, &cnt[i], "TZif counts"));
    int tsize = 4;
    if (version >= 2) {
        /* skip the 32-bit block */
        uint64_t skip = (uint64_t)cnt[3] * 5 + (uint64_t)cnt[4] * 6 + cnt[5] + (uint64_t)cnt[2] * 8 + cnt[1] + cnt[0];
        if (skip > pm_cursor_left(&c))
            return pm_error_new(PM_ECORRUPT, "TZif version 1 block exceeds the file");
        PM_TRY(pm_cursor_skip(&c, (size_t)skip, "TZif v1 block"));
        PM_TRY(pm_cursor_take(&c, 20, &h, "TZif header"));
        if (memcmp(h, "TZif", 4))
            return pm_error_new(PM_ECORRUPT, "TZif second header missing");
        for (int i = 0; i < 6; i++)
            PM_TRY(pm_cursor_u32be(&c, &cnt[i], "TZif counts"));
        tsize = 8;
    }
    uint32_t isut = cnt[0], isstd = cnt[1], nleap = cnt[2], ntime = cnt[3], ntype = cnt[4], nchar = cnt[5];
    if (ntype == 0 || ntype > 256)
        return pm_error_new(PM_ECORRUPT, "TZif with %u types", ntype);
    uint64_t need = (uint64_t)ntime * (tsize + 1) + (uint64_t)ntype * 6 + nchar + (uint64_t)nleap * (tsize + 4) +
                    isstd + isut;
    if (need > pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "TZif data block exceeds the file");
    orc_tz *z;
    PM_TRY(pm_calloc(&z, 1, sizeof *z));
    pm_error *e = NULL;
    z->ntrans = ntime;
    z->ntypes = ntype;
    PM_TRY_GOTO(e, pm_calloc(&z->trans, ntime ? ntime : 1, sizeof *z->trans), fail);
    PM_TRY_GOTO(e, pm_calloc(&z->idx, ntime ? ntime : 1, 1), fail);
    PM_TRY_GOTO(e, pm_calloc(&z->utoff, ntype, sizeof *z->utoff), fail);
    PM_TRY_GOTO(e, pm_calloc(&z->isdst, ntype, 1), fail);
    for (uint32_t i = 0; i < ntime; i++) {
        if (tsize == 8) {
            uint64_t v;
            PM_TRY_GOTO(e, pm_cursor_u64be(&c, &v, "TZif transition"), fail);
            z->trans[i] = (int64_t)v;
        } else {
            uint32_t v;
            PM_TRY_GOTO(e, pm_cursor_u32be(&c, &v, "TZif transition"), fail);
            z->trans[i] = (int32_t)v;
        }
        if (i && z->trans[i] <= z->trans[i - 1]) {
            e = pm_error_new(PM_ECORRUPT, "TZif transitions out of order");
            goto fail;
        }
    }
    for (uint32_t i = 0; i < ntime; i++) {
        PM_TRY_GOTO(e, pm_cursor_u8(&c, &z->idx[i], "TZif index"), fail);
        if (z->idx[i] >= ntype) {
            e = pm_error_new(PM_ECORRUPT, "TZif transition to type %u of %u", z->idx[i], ntype);
            goto fail;
        }
    }
    for (uint32_t i = 0; i < ntype; i++) {
        uint32_t off;
        uint8_t abbr;
        PM_TRY_GOTO(e, pm_cursor_u32be(&c, &off, "TZif type"), fail);
        PM_TRY_GOTO(e, pm_cursor_u8(&c, &z->isdst[i], "TZif type"), fail);
        PM_TRY_GOTO(e, pm_cursor_u8(&c, &abbr, "TZif type"), fail);
        z->utoff[i] = (int32_t)off;
        if (z->utoff[i] < -26 * 3600 || z->utoff[i] > 26 * 3600) {
            e = pm_error_new(PM_ECORRUPT, "TZif offset %d out of range", z->utoff[i]);
            goto fail;
        }
    }
    PM_TRY_GOTO(e, pm_cursor_skip(&c, (size_t)nchar + (size_t)nleap * (tsize + 4) + isstd + isut, "TZif tail"), fail);
    z->first_off = z->utoff[0];
    if (version >= 2 && pm_cursor_left(&c) >= 2 && c.p[0] == '\n') {
        const char *s = (const char *)c.p + 1;
        const char *nl = memchr(s, '\n', pm_cursor_left(&c) - 1);
        if (nl && nl - s > 0 && nl - s < 256) {
            char rule[256];
            memcpy(rule, s, (size_t)(nl - s));
            rule[nl - s] = 0;
            if (!parse_posix(z, rule)) {
                e = pm_error_new(PM_EUNSUPPORTED, "TZif rule '%s' is not understood", rule);
                goto fail;
            }
        }
    }
    *out = z;
    return NULL;
fail:
    orc_tz_free(z);
    return e;
}

static bool safe_id(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 200 || id[0] == '/' || strstr(id, ".."))
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = id[i];
        if (!isalnum((unsigned char)ch) && ch != '_' && ch != '+' && ch != '-' && ch != '/' && ch != '.')
            return false;
    }
    return true;
}

static pm_error *fixed_zone(int32_t off, orc_tz **out)
{
    orc_tz *z;
    PM_TRY(pm_calloc(&z, 1, sizeof *z));
    z->first_off = z->std_off = z->dst_off = off;
    z->has_rule = true;
    *out = z;
    return NULL;
}

pm_error *orc_tz_load(const char *id, orc_tz **out)
{
    *out = NULL;
    int32_t off;
    if (orc_tz_fixed_offset(id, &off))
        return fixed_zone(off, out);
    if (!safe_id(id))
        return pm_error_new(PM_EUNSUPPORTED, "time zone id '%s' is not valid", id);
    static const char *const dirs[] = {"/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo"};
    pm_fileio *fio;
    PM_TRY(pm_fileio_local_new(&fio));
    pm_error *e = NULL;
    pm_buf b = PM_BUF_INIT;
    bool found = false;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !found && !e; i++) {
        char *path = pm_path_join(dirs[i], id);
        if (!path) {
            e = pm_oom();
            break;
        }
        bool exists = false;
        e = pm_fileio_exists(fio, path, &exists);
        if (!e && exists) {
            e = pm_fileio_read_file(fio, path, &b);
            found = !e;
        }
        free(path);
    }
    pm_fileio_free(fio);
    if (!e && !found)
        e = pm_error_new(PM_EUNSUPPORTED, "time zone '%s' is not in the system's time zone database", id);
    if (!e)
        e = pm_error_wrap(orc_tz_parse(b.data, b.len, out), PM_EUNSUPPORTED, "time zone '%s'", id);
    pm_buf_free(&b);
    return e;
}

void orc_tz_free(orc_tz *z)
{
    if (!z)
        return;
    free(z->trans);
    free(z->idx);
    free(z->utoff);
    free(z->isdst);
    free(z);
}

int32_t orc_tz_offset(const orc_tz *z, int64_t utc)
{
    if (z->ntrans == 0 || utc < z->trans[0]) {
        if (z->ntrans == 0 && z->has_rule)
            return rule_offset(z, utc);
        /* before the first transition: the first standard-time type */
        for (size_t i = 0; i < z->ntypes; i++)
            if (!z->isdst[i])
                return z->utoff[i];
        return z->first_off;
    }
    if (utc >= z->trans[z->ntrans - 1] && z->has_rule)
        return rule_offset(z, utc);
    size_t lo = 0, hi = z->ntrans;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (z->trans[mid] <= utc)
            lo = mid;
        else
            hi = mid;
    }
    return z->utoff[z->idx[lo]];
}

int64_t orc_tz_local_to_utc(const orc_tz *z, int64_t local)
{
    int64_t t = local - orc_tz_offset(z, local);
    int64_t t2 = local - orc_tz_offset(z, t);
    return t2 < t ? t2 : t;
}
