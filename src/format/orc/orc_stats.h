/*
 * format/orc/orc_stats.h — ORC column statistics: the writer's
 * accumulators (orc-core 1.9 ColumnStatisticsImpl, rule for rule) and the
 * Paimon view of a column's statistics (Paimon's OrcSimpleStatsExtractor).
 *
 * Accumulated per column kind and serialized as ColumnStatistics:
 *   every kind   numberOfValues (non-null values), hasNull, bytesOnDisk
 *                (stripe/file level: bytes of the column's data streams)
 *   boolean      bucket [number of trues]
 *   integers     min, max (once a value was seen), sum (dropped on overflow)
 *   float/double min, max (first value, then < / >; NaN sticks when first), sum
 *   string/char/varchar  min, max (unsigned bytes); values over 1024 bytes
 *                keep a UTF-8-safe prefix as lowerBound / prefix with the
 *                last character + 1 as upperBound; sum of lengths; strings
 *                are written as Java decodes them (invalid UTF-8 → U+FFFD)
 *   binary       sum of lengths
 *   decimal      min, max, sum as plain decimal strings without trailing
 *                fraction zeros; precision <= 18 sums in 18 digits
 *                (Decimal64StatisticsImpl: dropped beyond), larger ones as
 *                HiveDecimal adds: exactly, then rounded half up to 38
 *                significant digits (dropped beyond 38 integer digits)
 *   date         min, max (days)
 *   timestamp    minimumUtc, maximumUtc (millis), minimumNanos/maximumNanos
 *                = sub-millisecond nanos + 1 when not 0 / 999999
 *   list/map     minChildren, maxChildren, totalChildren as orc-core 1.9
 *                records them: not element counts but, once per write of
 *                a slice, the capacity of Java's column vector (the batch
 *                size, grown for nested lists; readers ignore them)
 * Row-group statistics merge into stripe statistics, stripes into the
 * file's, with orc-core's merge rules.
 */
#ifndef PM_ORC_STATS_H
#define PM_ORC_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/orc/orc_meta.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct orc_stats_acc {
    uint32_t kind;            /* orc_kind */
    bool dec64;               /* decimal precision <= 18 */
    int32_t scale;
    uint64_t count;
    bool has_null;
    uint64_t bytes_on_disk;
    bool has_min;             /* integers, doubles */
    int64_t imin, imax, isum;
    bool overflow;
    double dmin, dmax, dsum;
    pm_buf smin, smax;        /* strings (len 0 with has_str false = none) */
    bool has_str, lower_set, upper_set;
    int64_t ssum;
    uint64_t trues;
    bool dec_has_min, dec_has_sum;
    __int128 decmin, decmax, decsum;   /* unscaled at the column scale (sum: at sum_scale) */
    int32_t sum_scale;                 /* precision > 18: HiveDecimal keeps 38 digits */
    int32_t datemin, datemax;
    int64_t tsmin, tsmax;
    int32_t min_nanos, max_nanos;
    uint64_t cmin, cmax, csum;
    pm_buf scratch;           /* serialization strings */
} orc_stats_acc;

void orc_stats_init(orc_stats_acc *s, uint32_t kind, int32_t precision, int32_t scale);
void orc_stats_free(orc_stats_acc *s);
void orc_stats_reset(orc_stats_acc *s);
void orc_stats_nonnull(orc_stats_acc *s, uint64_t n);   /* count values */
void orc_stats_set_null(orc_stats_acc *s);
void orc_stats_int(orc_stats_acc *s, int64_t v);
void orc_stats_double(orc_stats_acc *s, double v);
void orc_stats_bool(orc_stats_acc *s, bool v);
pm_error *orc_stats_string(orc_stats_acc *s, const uint8_t *p, size_t n);
void orc_stats_binary(orc_stats_acc *s, size_t n);
void orc_stats_decimal(orc_stats_acc *s, __int128 unscaled);
void orc_stats_date(orc_stats_acc *s, int32_t days);
void orc_stats_timestamp(orc_stats_acc *s, int64_t millis, int32_t nanos_of_milli);
void orc_stats_collection(orc_stats_acc *s, uint64_t len);   /* one slice: the vector capacity */
pm_error *orc_stats_merge(orc_stats_acc *dst, const orc_stats_acc *src);
/* Append the serialized ColumnStatistics message. */
pm_error *orc_stats_serialize(orc_stats_acc *s, pm_buf *out);

/* Plain text of unscaled/10^scale without trailing fraction zeros ("1.5",
 * "-0.001", "100", "0"), HiveDecimal's toString. */
pm_error *orc_decimal_text(pm_buf *out, __int128 unscaled, int32_t scale);

/* ---- Paimon's view of one column's statistics ---- */

/* A typed statistics value; interpretation follows the field's type:
 *   BOOLEAN → b; TINYINT..INT, DATE, TIME → i; BIGINT → i;
 *   TIMESTAMP(_LTZ) → i in the column's unit; FLOAT → f; DOUBLE → d;
 *   DECIMAL → dec (unscaled); CHAR/VARCHAR → bytes. */
typedef union pm_orc_value {
    bool b;
    int64_t i;
    float f;
    double d;
    __int128 dec;
    struct {
        const uint8_t *data;
        size_t len;
    } bytes;
} pm_orc_value;

typedef struct pm_orc_field_stats {
    bool has_null_count;
    int64_t null_count;
    bool has_min, has_max;  /* false: no values, a truncated bound, or a type without min/max */
    pm_orc_value min, max;  /* byte values point into the statistics */
} pm_orc_field_stats;

/*
 * Paimon's statistics of a field of type `t` from its ORC statistics and
 * the file's row count, as OrcSimpleStatsExtractor derives them:
 *   null count = rows - numberOfValues; all null → no min/max;
 *   CHAR/VARCHAR min/max (none when only bounds were kept); BOOLEAN
 *   min = no false seen, max = a true seen; DECIMAL from the strings;
 *   integers, floats, dates; TIME from int; TIMESTAMP(_LTZ) from the UTC
 *   millis and nanos (converted to the column's unit); other types (binary,
 *   nested) get only the null count.  Statistics that do not fit their
 *   type (a wrong typed part, an unparsable decimal) give no min/max, as
 *   Java logs and drops them.
 */
void orc_field_stats(const pm_orc_stats *s, const pm_type *t, uint64_t rows, pm_orc_field_stats *out);

#endif
