/*
 * types/temporal.h — calendar arithmetic and ISO-8601 text for DATE, TIME
 * and TIMESTAMP values (proleptic Gregorian, no time zones, UTC for LTZ).
 *
 * Text forms (what `paimon cat` prints, Java LocalDate/LocalDateTime style):
 *   DATE            YYYY-MM-DD; years outside 0..9999 as "+12345" / "-0001"
 *   TIME(p)         HH:MM:SS[.f...] with p fraction digits (millis stored,
 *                   digits past the third are 0)
 *   TIMESTAMP(p)    YYYY-MM-DDTHH:MM:SS[.f...] with exactly p digits
 *   TIMESTAMP_LTZ   the same with a trailing 'Z'
 * Parsing accepts the same forms, a space instead of 'T', any number of
 * fraction digits (up to 9) as long as digits past the precision are zero,
 * a missing seconds field, a date alone for a timestamp, and for LTZ a
 * trailing 'Z' or +HH:MM / -HH:MM offset (converted to UTC).
 */
#ifndef PM_TYPES_TEMPORAL_H
#define PM_TYPES_TEMPORAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/error.h"

/* Floor division and modulo (Java Math.floorDiv / floorMod); b > 0. */
static inline int64_t pm_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
static inline int64_t pm_floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}

/* Days since 1970-01-01 <-> civil date. */
void pm_civil_from_days(int64_t days, int64_t *year, int *month, int *day);
int64_t pm_days_from_civil(int64_t year, int month, int day);

/* Append text forms. */
pm_error *pm_format_date(pm_buf *out, int64_t days);
pm_error *pm_format_time(pm_buf *out, int32_t millis_of_day, int32_t precision);
/* `value` in the column unit of `precision` (pm_timestamp_units_per_second). */
pm_error *pm_format_timestamp(pm_buf *out, int64_t value, int32_t precision, bool ltz);

/* Parse text forms; PM_EINVALID naming the problem. */
pm_error *pm_parse_date(const char *s, size_t n, int32_t *days);
pm_error *pm_parse_time(const char *s, size_t n, int32_t precision, int32_t *millis);
/* Result in the column unit of `precision`. */
pm_error *pm_parse_timestamp(const char *s, size_t n, int32_t precision, bool ltz, int64_t *value);

#endif
