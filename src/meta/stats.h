/*
 * meta/stats.h — "full" SimpleStats over BinaryRows, as Paimon's
 * SimpleStatsCollector + SimpleStatsConverter.toBinaryAllMode compute the
 * partition stats of a manifest file (`_PARTITION_STATS`).
 *
 * Steps: for every collected row and field, a null increments the field's
 * null count; otherwise the value replaces min/max when it compares lower /
 * higher with Java's ordering (numbers numerically, FLOAT/DOUBLE by
 * Float/Double.compare so -0.0 < 0.0 and NaN is largest, DECIMAL by
 * unscaled value, TIMESTAMP by millis then nanos, strings and binaries by
 * unsigned bytes).  Nested types get null counts only.  The result is
 * min and max BinaryRows of the row type with every field made nullable
 * (no min → null, written the way Java's BinaryRowWriter writes nulls) and
 * one null count per field.
 */
#ifndef PM_META_STATS_H
#define PM_META_STATS_H

#include "meta/data_file_meta.h"
#include "paimon/types.h"

typedef struct pm_stats_collector pm_stats_collector;

/* row_type is a ROW (cloned). */
pm_error *pm_stats_collector_new(pm_stats_collector **out, const pm_type *row_type);
void pm_stats_collector_free(pm_stats_collector *c);
/* Collect one serialized BinaryRow (4-byte BE arity + row) of row_type. */
pm_error *pm_stats_collector_add(pm_stats_collector *c, const uint8_t *serialized_row, size_t len);
/* The stats so far (all mode: null counts for every field). */
pm_error *pm_stats_collector_result(const pm_stats_collector *c, pm_simple_stats *out);

#endif
