/*
 * types/value.h — values as text: the JSON encoding of `paimon cat`
 * (formatting lives in column.h: pm_column_format_json) and its inverse for
 * input (`paimon write` JSON lines, CSV cells).
 *
 * JSON encoding, per type:
 *   BOOLEAN true/false; TINYINT..BIGINT numbers; FLOAT/DOUBLE numbers in the
 *   shortest form that round-trips ("NaN", "Infinity", "-Infinity" as
 *   strings); CHAR/VARCHAR strings; BINARY/VARBINARY/BLOB base64 strings;
 *   DECIMAL strings with exactly `scale` fraction digits ("-0.50"); DATE,
 *   TIME, TIMESTAMP(_LTZ) ISO strings (see temporal.h); ARRAY arrays; MAP
 *   and MULTISET arrays of {"key": k, "value": v}; ROW objects by field
 *   name; null null.
 * Input additionally accepts: plain JSON numbers for DECIMAL; fewer or more
 * fraction digits in decimals and times as long as the value is exact at
 * the type's scale/precision; strings for numbers and booleans (parsed as
 * text); a JSON object {"k": v} for a MAP/MULTISET (keys parsed as text);
 * a JSON array for a ROW (fields by position).  Anything else is
 * PM_EINVALID naming the type and the problem.  On error the column may
 * hold part of a nested value: callers discard it.
 */
#ifndef PM_TYPES_VALUE_H
#define PM_TYPES_VALUE_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"
#include "paimon/batch.h"
#include "types/column.h"

/* Append one JSON value to column c (null allowed only for nullable types). */
pm_error *pm_column_append_json(pm_column *c, const json_t *v);

/* Append the value spelled by text s[0..n) (one CSV cell after unquoting):
 * atomic types parse their text form (booleans true/false in any case,
 * integers, NaN/Infinity, decimals, base64 bytes, ISO dates and times,
 * strings verbatim); nested types parse s as JSON.  Whether an empty cell
 * means null is the caller's decision. */
pm_error *pm_column_append_text(pm_column *c, const char *s, size_t n);

/* Parse a decimal number (sign, digits, optional '.', optional exponent)
 * into an unscaled value at `scale` that fits `precision` digits. */
pm_error *pm_decimal_parse(const char *s, size_t n, int32_t precision, int32_t scale, __int128 *out);
/* Append the decimal text of an unscaled value ("-0.50" for -50, scale 2). */
pm_error *pm_decimal_format(pm_buf *out, __int128 unscaled, int32_t scale);

/* Shortest text that reads back as the same double / float (Python repr
 * style: "1.0", "0.1", "1e+16", "-0.0"); finite values only. */
pm_error *pm_format_double(pm_buf *out, double v);
pm_error *pm_format_float(pm_buf *out, float v);
/* The same text by the slow reference algorithm (snprintf "%.*e" with more
 * digits until strtod / strtof reads back the value), for tests. */
pm_error *pm_format_double_reference(pm_buf *out, double v);
pm_error *pm_format_float_reference(pm_buf *out, float v);

/* Build a batch of `row_type` (a ROW) from JSON lines: one object per
 * non-blank line, keys = field names (missing keys are null, unknown keys
 * an error).  Errors name the line. */
pm_error *pm_batch_from_json_lines(pm_batch **out, const pm_type *row_type, const char *text, size_t len);
/* Same, with the row type given as a type string ("ROW<a INT, b STRING>").
 * Convenience for bindings (ctypes) that cannot build pm_type trees. */
pm_error *pm_batch_from_json_lines_typed(pm_batch **out, const char *row_type, const char *text, size_t len);

#endif
