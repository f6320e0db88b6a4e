/*
 * table/cast.h — reading a column of one Paimon type as another: the
 * value casts schema evolution needs (ALTER COLUMN TYPE), following
 * Paimon Java's CastExecutors rule set, plus relabelling a column whose
 * physical layout already fits (a Parquet STRING read for a CHAR(10)
 * field, TIMESTAMP(3) for TIMESTAMP(0), different nullability).
 *
 * Plans:
 *   PM_CAST_IDENTITY  equal types ignoring nullability: use the column as is
 *   PM_CAST_COPY      same physical layout and value rules: copy buffers
 *   PM_CAST_CONVERT   value conversion row by row (no per-row allocation)
 * Supported conversions (Java rule in brackets):
 *   integer ↔ integer / float / double (NumericPrimitive: Java narrowing,
 *     wrap-around, float→integer saturating with NaN → 0)
 *   integer / float / double / boolean → DECIMAL (HALF_UP; null when the
 *     value does not fit the precision); DECIMAL → DECIMAL (same),
 *     DECIMAL → integer (truncating) / float / double
 *   boolean ↔ integer (≠ 0), boolean → float/double
 *   anything atomic → CHAR/VARCHAR (Java toString forms: "true", 1.0E10,
 *     plain decimals, yyyy-MM-dd, HH:mm:ss[.fff], yyyy-MM-dd HH:mm:ss[.f]
 *     with trailing zeros trimmed down to the precision); then truncated
 *     to the length, CHAR padded with spaces
 *   CHAR/VARCHAR → boolean (t/true/y/yes/1, f/false/n/no/0, any case),
 *     integers (digits with optional sign and ignored fraction), float,
 *     double, DECIMAL, DATE, TIME, TIMESTAMP(_LTZ), BINARY/VARBINARY
 *   BINARY/VARBINARY ↔ each other (BINARY zero-padded/truncated), → string
 *   DATE → TIMESTAMP(_LTZ); TIMESTAMP(_LTZ) → DATE, TIME, INT, BIGINT
 *   (epoch seconds), TIMESTAMP(_LTZ) (truncated to the precision);
 *   INT/BIGINT → TIMESTAMP(_LTZ) (epoch seconds); TIME → TIMESTAMP(_LTZ)
 * Conversions between TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE (and
 * their string, date and time forms) use the process time zone (TZ), as
 * Java uses the JVM default zone.  A string that does not parse is
 * PM_EINVALID naming the value and the type (Java throws as well).
 * Nested types (ARRAY, MAP, ROW, ...) only relabel: their element and
 * field types must match; anything else is PM_EUNSUPPORTED naming both
 * types.
 */
#ifndef PM_TABLE_CAST_H
#define PM_TABLE_CAST_H

#include <stdbool.h>

#include "base/buf.h"
#include "paimon/error.h"
#include "types/column.h"

typedef enum pm_cast_kind { PM_CAST_IDENTITY, PM_CAST_COPY, PM_CAST_CONVERT } pm_cast_kind;

/* How `from` values become `to` values; PM_EUNSUPPORTED when they cannot. */
pm_error *pm_cast_plan(const pm_type *from, const pm_type *to, pm_cast_kind *kind);

/* Plan for reading a file column whose reader type is `from` as the file
 * schema's type `to`: only the type label differs when the physical
 * layout fits (TIMESTAMP(3) for TIMESTAMP(0), TIMESTAMP for TIMESTAMP
 * WITH LOCAL TIME ZONE of the same unit, STRING for CHAR(n), another
 * DECIMAL precision with the same scale): IDENTITY or COPY without value
 * changes; otherwise as pm_cast_plan. */
pm_error *pm_cast_plan_relabel(const pm_type *from, const pm_type *to, pm_cast_kind *kind);

/* Append every row of src, cast to dst->type (kind from pm_cast_plan,
 * IDENTITY and COPY both copy), to dst.  `scratch` is a reusable buffer. */
pm_error *pm_cast_append(const pm_column *src, pm_column *dst, pm_cast_kind kind, pm_buf *scratch);

#endif
