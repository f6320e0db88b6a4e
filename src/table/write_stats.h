/*
 * table/write_stats.h — the value statistics (`_VALUE_STATS`,
 * `_VALUE_STATS_COLS`) of a data file, computed the way Apache Paimon
 * Java 2.0 computes them for append writes.
 *
 * 1. Modes (StatsCollectorFactories.createStatsFactories): per field
 *    `fields.<name>.stats-mode` if set; else truncate(128) for system
 *    field names (`_KEY_*`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, `_LEVEL`,
 *    `rowkind`, `_ROW_ID`); else `metadata.stats-mode` (default
 *    truncate(16)), except that once `metadata.stats-keep-first-n-columns`
 *    (>= 0) user columns were counted the rest get none.  When every mode
 *    is none, stats are disabled and every column is NONE.
 * 2. Per column a SimpleColStats (min, max, null count — each nullable;
 *    NONE = all three null):
 *    - Parquet (ParquetSimpleStatsExtractor): from the merged footer
 *      statistics; nested fields have none at all (NONE); no non-null
 *      value → (null, null, nulls); TIMESTAMP p > 6 (INT96) → (null, null,
 *      nulls); then the mode converts: none → NONE, counts → (null, null,
 *      nulls), full → as is, truncate(n) → truncated min/max, both null
 *      when the max cannot be rounded up.
 *    - ORC (OrcSimpleStatsExtractor): from the file statistics (format/
 *      orc/orc_stats.h orc_field_stats: null count = rows - values, all
 *      null → no min/max, truncated string bounds → none, binary and
 *      nested → counts only), then the mode converts as for Parquet.
 *    - Avro (SimpleStatsCollector): every row is collected in order; null
 *      counts; min/max by Java's compareTo (numbers, Float/Double.compare
 *      with NaN largest and -0.0 < 0.0, unsigned bytes for strings and
 *      binaries, timestamps by millis then nanos); nested values only count
 *      nulls; truncate keeps truncated values while collecting and stops
 *      at the first max that cannot be rounded up (then min/max are null).
 * 3. Truncation: STRING keeps the first n code points (UTF-8 lead-byte
 *    lengths as BinaryString.substring); its max increments the last code
 *    point that can be incremented (<= U+10FFFF; a surrogate code point
 *    encodes as '?', as Java's encoder does) and drops what follows.
 *    BYTES keeps n bytes; its max increments the last byte that is not
 *    0xFF and drops what follows.  Values not longer than n stay as they are.
 * 4. SimpleStats (SimpleStatsConverter): stats rows use the column types
 *    made nullable.  Dense store (default): NONE columns are dropped and
 *    `_VALUE_STATS_COLS` lists the kept names, or is null when every
 *    column is kept.  Otherwise every column is present (NONE → null
 *    min/max/null count).  Rows are BinaryRows written as Java's
 *    RowHelper writes them (non-compact DECIMAL/TIMESTAMP nulls keep their
 *    variable-part space).
 */
#ifndef PM_TABLE_WRITE_STATS_H
#define PM_TABLE_WRITE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/orc/orc_stats.h"
#include "format/parquet/parquet_writer.h"
#include "meta/data_file_meta.h"
#include "meta/options.h"
#include "paimon/types.h"
#include "types/column.h"

/* One statistics value in Paimon's internal form. */
typedef struct pm_stat_value {
    bool b;
    int64_t i;         /* integers, DATE, TIME (millis), TIMESTAMP epoch millis */
    int32_t nanos;     /* TIMESTAMP nano of millisecond */
    double d;          /* FLOAT and DOUBLE */
    __int128 dec;      /* DECIMAL unscaled */
    pm_buf bytes;      /* CHAR/VARCHAR/BINARY/VARBINARY (owned) */
} pm_stat_value;

/* SimpleColStats. */
typedef struct pm_col_stats {
    bool has_min, has_max, has_null_count;
    pm_stat_value min, max;
    int64_t null_count;
} pm_col_stats;

void pm_col_stats_clear(pm_col_stats *s);
static inline bool pm_col_stats_is_none(const pm_col_stats *s)
{
    return !s->has_min && !s->has_max && !s->has_null_count;
}

/* Step 1: one mode per field of row_type (modes has nfields entries);
 * *disabled = every mode is none. */
pm_error *pm_write_stats_modes(const pm_options *o, const pm_type *row_type, pm_stats_mode *modes,
                               bool *disabled);

/* Step 2, Parquet: convert the writer's merged statistics of one field. */
pm_error *pm_col_stats_from_parquet(const pm_type *type, pm_stats_mode mode,
                                    const pm_pq_column_stats *s, pm_col_stats *out);

/* Step 2, ORC (OrcSimpleStatsExtractor): the Paimon view of the file
 * statistics of one field (orc_field_stats), then the mode converts. */
pm_error *pm_col_stats_from_orc(const pm_type *type, pm_stats_mode mode, const pm_orc_field_stats *s,
                                pm_col_stats *out);

/* Step 2, Avro: a per-row collector for one field. */
typedef struct pm_stats_accum {
    const pm_type *type;    /* borrowed */
    pm_stats_mode mode;
    pm_col_stats st;
    bool failed;            /* truncate: a max could not be rounded up */
} pm_stats_accum;

void pm_stats_accum_init(pm_stats_accum *a, const pm_type *type, pm_stats_mode mode);
void pm_stats_accum_clear(pm_stats_accum *a);
/* Collect rows [from, to) of column c (of a's type). */
pm_error *pm_stats_accum_add(pm_stats_accum *a, const pm_column *c, int64_t from, int64_t to);
/* The SimpleColStats (moves the values out; a is reset). */
void pm_stats_accum_result(pm_stats_accum *a, pm_col_stats *out);

/* Step 3 (exposed for tests).  String truncation: *out gets the truncated
 * min / rounded-up max; *ok=false when the max cannot be rounded up. */
pm_error *pm_stats_truncate_string_min(const uint8_t *s, size_t n, int32_t len, pm_buf *out);
pm_error *pm_stats_truncate_string_max(const uint8_t *s, size_t n, int32_t len, pm_buf *out, bool *ok);
pm_error *pm_stats_truncate_bytes_max(const uint8_t *s, size_t n, int32_t len, pm_buf *out, bool *ok);

/* Step 4: stats of every field of row_type → SimpleStats and the
 * `_VALUE_STATS_COLS` list (*has_cols=false = null). */
pm_error *pm_col_stats_to_simple(const pm_type *row_type, const pm_col_stats *stats, bool dense,
                                 pm_simple_stats *out, bool *has_cols, pm_str_list *cols);

#endif
