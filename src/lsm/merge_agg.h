/*
 * lsm/merge_agg.h — field values and field aggregators of the
 * partial-update and aggregation merge engines (private to lsm/).
 *
 * A value (pm_mval) is null, a reference to a cell (column, row) of an
 * input batch — most results are one of the inputs, so nothing is copied —
 * or a value the aggregator computed: an integer (TINYINT..BIGINT kept as
 * int64), float, double, unscaled decimal, boolean, bytes (listagg) or one
 * row of a scratch column (collect, merge_map).  Computed bytes and
 * columns live in two scratch slots per aggregator, used alternately, so a
 * new result never overwrites the accumulator it is built from.
 *
 * Aggregators follow Java's FieldAggregator classes (release-2.0):
 *   agg(acc, in)        combine; aggReversed(acc, in) = agg(in, acc)
 *                       except collect (plain agg)
 *   retract(acc, in)    sum subtracts (a null accumulator becomes −in),
 *                       product divides, last_value → null,
 *                       last_non_null_value → null when in is not null,
 *                       primary-key → in, collect removes one occurrence of
 *                       each retracted element, merge_map removes the
 *                       retracted keys; every other function is
 *                       PM_EUNSUPPORTED unless fields.<f>.ignore-retract
 *                       (then the accumulator stays)
 *   null handling       sum, product, min, max, bool_and, bool_or, merge_map: a null side
 *                       yields the other; last_non_null_value keeps the
 *                       accumulator on null; listagg skips blank input
 *                       (Java Character.isWhitespace) and replaces a blank
 *                       accumulator; first_value/first_non_null_value keep
 *                       the first (non-null) value seen since reset
 *   arithmetic          integer overflow is PM_EINVALID (Java's exact
 *                       arithmetic throws); FLOAT in float, DOUBLE in
 *                       double; DECIMAL p<=18 adds as int64 (null on int64
 *                       overflow, no precision check, as Java's compact
 *                       path), p>18 null when the result exceeds the
 *                       precision; product rounds HALF_UP to the scale;
 *                       decimal division must terminate (else PM_EINVALID)
 *   equality            collect/merge_map compare elements/keys by value,
 *                       except top-level BINARY/VARBINARY elements and keys,
 *                       which Java compares by identity (never equal)
 *   order               collect keeps accumulator then input order;
 *                       merge_map keeps first-insertion order (Java's
 *                       HashMap/HashSet iteration order is not reproduced;
 *                       maps and distinct collections are equal as sets)
 */
#ifndef PM_LSM_MERGE_AGG_H
#define PM_LSM_MERGE_AGG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "meta/options.h"
#include "types/column.h"

enum { MV_NULL, MV_REF, MV_I64, MV_F32, MV_F64, MV_DEC, MV_BOOL, MV_BYTES, MV_COL };

typedef struct pm_mval {
    uint8_t form;
    const pm_column *col;   /* MV_REF: input cell; MV_COL: scratch column */
    int64_t row;
    union {
        int64_t i;
        float f;
        double d;
        __int128 dec;
        bool b;
    } u;
    const uint8_t *p;       /* MV_BYTES */
    size_t n;
} pm_mval;

static inline pm_mval pm_mv_null(void)
{
    pm_mval v;
    memset(&v, 0, sizeof v);
    return v;
}
/* A cell (normalized to MV_NULL when the cell is null). */
static inline pm_mval pm_mv_cell(const pm_column *c, int64_t row)
{
    pm_mval v = pm_mv_null();
    if (!pm_column_is_null(c, row)) {
        v.form = MV_REF;
        v.col = c;
        v.row = row;
    }
    return v;
}
static inline bool pm_mv_is_null(const pm_mval *v) { return v->form == MV_NULL; }

/* Append v to column dst (of the field's type). */
pm_error *pm_mv_append(pm_column *dst, const pm_mval *v);
/* Typed comparison of two non-null values of an atomic type (Java order:
 * Float/Double.compare, unsigned bytes, ...). */
int pm_mv_compare(const pm_type *t, const pm_mval *a, const pm_mval *b);

typedef enum pm_agg_fn {
    PM_AGG_PRIMARY_KEY,
    PM_AGG_SUM,
    PM_AGG_PRODUCT,
    PM_AGG_MIN,
    PM_AGG_MAX,
    PM_AGG_LAST_VALUE,
    PM_AGG_LAST_NON_NULL_VALUE,
    PM_AGG_FIRST_VALUE,
    PM_AGG_FIRST_NON_NULL_VALUE,
    PM_AGG_LISTAGG,
    PM_AGG_BOOL_AND,
    PM_AGG_BOOL_OR,
    PM_AGG_COLLECT,
    PM_AGG_MERGE_MAP
} pm_agg_fn;

typedef struct pm_agg {
    pm_agg_fn fn;
    const char *name;        /* function name as configured */
    const char *field;       /* field name (borrowed from the value type) */
    const pm_type *type;     /* field type (borrowed) */
    bool ignore_retract;
    bool distinct;           /* collect / listagg */
    char *delim;             /* listagg */
    size_t delim_len;
    bool initialized;        /* first_value / first_non_null_value */
    pm_buf sb[2];
    int sbi;
    pm_column *sc[2];
    int sci;
} pm_agg;

/* Look up `name` and check it fits the field type; configure per-field
 * options (fields.<f>.ignore-retract / .distinct / .list-agg-delimiter).
 * PM_EINVALID for unknown names or a type mismatch, PM_EUNSUPPORTED for
 * Paimon functions paimon-c does not implement (and `count`, which Paimon
 * removed). */
pm_error *pm_agg_init(pm_agg *a, const char *name, const char *field, const pm_type *type, const pm_options *o);
void pm_agg_clear(pm_agg *a);
/* Only the name check of pm_agg_init. */
pm_error *pm_agg_check_name(const char *name, const char *field);
/* Start a new key. */
static inline void pm_agg_reset(pm_agg *a) { a->initialized = false; }
/* acc = agg(acc, in); reversed: acc = aggReversed(acc, in). */
pm_error *pm_agg_apply(pm_agg *a, pm_mval *acc, const pm_mval *in, bool reversed);
pm_error *pm_agg_retract(pm_agg *a, pm_mval *acc, const pm_mval *in);
/* True for functions whose state cannot be rebuilt from one output row
 * (the seed's persistence restriction): first_value,
 * first_non_null_value, collect, listagg. */
bool pm_agg_state_not_persistable(const pm_agg *a);

#endif
