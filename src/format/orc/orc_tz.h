/*
 * format/orc/orc_tz.h — time zones for ORC `timestamp` columns.
 *
 * orc-core counts timestamp seconds from 2015-01-01 00:00:00 in the
 * writing JVM's zone and records that zone's id in each stripe footer
 * (writerTimezone); a value's wall clock is its instant plus the zone's
 * offset at that instant.  Zones:
 *   - missing / empty id: UTC (our writer and Java in UTC write "UTC");
 *   - UTC aliases (UTC, GMT, Z, UCT, Universal, Zulu, Greenwich, GMT0 and
 *     their Etc/ forms), fixed offsets (GMT+08:00, UTC-5, +0530, ...) and
 *     Etc/GMT±h (POSIX sign: Etc/GMT+5 is UTC-05:00);
 *   - any other IANA id is loaded from the system's compiled tz database
 *     (/usr/share/zoneinfo, TZif versions 1-4, RFC 8536): transitions,
 *     then the footer's POSIX TZ rule (std offset [dst [offset]
 *     [,start[/time],end[/time]]], rules Mm.w.d, Jn, n) beyond the last
 *     transition, the first standard type before the first one.
 * Zone ids from a file are checked (letters, digits, _ + - / ., no "..",
 * not absolute) before they become a path.  A zone that cannot be found
 * or parsed is PM_EUNSUPPORTED; a loaded zone is immutable and may be
 * shared between threads.
 */
#ifndef PM_ORC_TZ_H
#define PM_ORC_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"

typedef struct orc_tz orc_tz;

/* *offset = seconds east of UTC; false when `id` is not a fixed zone. */
bool orc_tz_fixed_offset(const char *id, int32_t *offset);
/* Load a zone by id (fixed zones need no file). */
pm_error *orc_tz_load(const char *id, orc_tz **out);
/* Parse TZif bytes (tests, fuzzing). */
pm_error *orc_tz_parse(const uint8_t *p, size_t n, orc_tz **out);
void orc_tz_free(orc_tz *z);
/* Offset (seconds east of UTC) in force at `utc` seconds. */
int32_t orc_tz_offset(const orc_tz *z, int64_t utc);
/* The instant of local wall clock `local` (seconds), the earlier one
 * when the wall clock repeats, shifted by the gap when it is skipped. */
int64_t orc_tz_local_to_utc(const orc_tz *z, int64_t local);

#endif
