/*
 * paimon/options.h — Paimon's table options as values: parsing the forms
 * options take (memory sizes, durations) and checking a set of options
 * the way pm_table_create does, before a table exists.
 *
 * Parsing follows Paimon Java: memory sizes are digits with an optional
 * unit b|bytes, k|kb|kibibytes, m|mb|mebibytes, g|gb|gibibytes,
 * t|tb|tebibytes (any case, powers of 1024, spaces allowed before the
 * unit: "256mb", "64 kb"); durations are digits with a unit d|day(s),
 * h|hour(s), min|m|minute(s), s|sec(s)|second(s), ms|milli(s)|millisecond(s)
 * and finer ones ("5 s", "7d"), a bare number meaning milliseconds.
 */
#ifndef PAIMON_OPTIONS_H
#define PAIMON_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "256mb" → 268435456.  PM_EINVALID naming the text otherwise. */
PM_API pm_error *pm_option_parse_memory_size(int64_t *out, const char *text);
/* "5 s" → 5000. */
PM_API pm_error *pm_option_parse_duration(int64_t *out_millis, const char *text);

/* Check options (parallel arrays) as table options: every option Paimon
 * defines must have a value of its type and range (enumerated options one
 * of their values); unknown keys are accepted.  The first problem is
 * PM_EINVALID naming the option. */
PM_API pm_error *pm_options_check(const char *const *keys, const char *const *values, size_t n);

#ifdef __cplusplus
}
#endif
#endif
