/*
 * lsm/merge_engine.h — the four merge engines of primary-key tables:
 * fold one key's records (oldest first, as the merge reader groups them)
 * into the record the table keeps, following Java's MergeFunction classes
 * (release-2.0).
 *
 *   deduplicate    the last record wins, whatever its kind (a winning -D
 *                  or -U is kept so older values cannot reappear);
 *                  ignore-delete skips retracts (no result if all are).
 *   first-row      the first non-retract record wins; a retract is
 *                  PM_EINVALID unless ignore-delete (then skipped).
 *   partial-update per field the last non-null value (NOT NULL fields
 *                  must not receive null); `fields.<g1,g2>.sequence-group
 *                  = f1,f2` updates f1,f2 (and g1,g2) only from records
 *                  whose g values compare >= the current ones (nulls
 *                  first), records with all-null g leave the group alone;
 *                  `fields.<f>.aggregate-function` / default function
 *                  inside sequence groups (older records aggregate
 *                  reversed); retracts: ignore-delete skips them (the
 *                  first record still initializes the row),
 *                  partial-update.remove-record-on-delete turns -D into a
 *                  delete of the whole row, with sequence groups a
 *                  retract nulls (or retracts the aggregate of) the
 *                  group's fields and
 *                  partial-update.remove-record-on-sequence-group names
 *                  groups whose -D deletes the row; otherwise a retract
 *                  is PM_EINVALID.  Result kind: -D when the row was
 *                  deleted or no insert was seen, else +I; sequence
 *                  number: the last non-ignored record's.
 *   aggregation    per field `fields.<f>.aggregate-function`, else
 *                  `fields.default-aggregate-function`, else
 *                  last_non_null_value; primary-key fields keep the
 *                  input, `sequence.field` fields use last_value
 *                  (merge_agg.h); retracts retract each field;
 *                  aggregation.remove-record-on-delete makes a -D replace
 *                  the state and yield -D.  Result: +I (or -D), the last
 *                  record's key and sequence number.
 * Mode PM_MERGE_REDUCE (readers and compaction without lookup, Java's
 * ReducerMergeFunctionWrapper) passes a single record through unchanged;
 * PM_MERGE_FULL runs the function on single records too (lookup).
 * With `persist` (compaction writing the merged state) the seed's
 * restrictions apply: a compound partial-update result of kind -D with
 * user field aggregators, and a compound group containing a retract
 * that is not ignored when some field uses first_value,
 * first_non_null_value, collect or listagg, are PM_EUNSUPPORTED.
 *
 * Options are validated when the engine is created (before anything is
 * written): unknown engine or aggregate function, function/type mismatch,
 * `fields.<f>.*` naming unknown fields, sequence groups containing
 * primary keys or repeated fields, sequence fields with an aggregate
 * function or on first-row, aggregate functions outside sequence groups
 * (except last_non_null_value), and the conflicting option pairs Java
 * rejects → PM_EINVALID / PM_EUNSUPPORTED naming the option.
 */
#ifndef PM_LSM_MERGE_ENGINE_H
#define PM_LSM_MERGE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lsm/kv.h"
#include "meta/options.h"

typedef enum pm_merge_kind {
    PM_ENGINE_DEDUPLICATE,
    PM_ENGINE_PARTIAL_UPDATE,
    PM_ENGINE_AGGREGATION,
    PM_ENGINE_FIRST_ROW
} pm_merge_kind;

typedef enum pm_merge_mode { PM_MERGE_REDUCE, PM_MERGE_FULL } pm_merge_mode;

typedef struct pm_merge_fn pm_merge_fn;

typedef struct pm_merge_fn_options {
    pm_merge_mode mode;
    bool persist;
} pm_merge_fn_options;

/* value_type: ROW of the table's fields in schema order (cloned);
 * primary_keys: names (copied); options: the table options (read during
 * the call).  eo may be NULL (REDUCE, not persisting). */
pm_error *pm_merge_fn_new(pm_merge_fn **out, const pm_type *value_type, const char *const *primary_keys,
                              size_t npk, const pm_options *options, const pm_merge_fn_options *eo);
void pm_merge_fn_free(pm_merge_fn *e);
pm_merge_kind pm_merge_fn_kind(const pm_merge_fn *e);
/* `sequence.field` as value field indices (borrowed) and its order. */
const size_t *pm_merge_fn_seq_fields(const pm_merge_fn *e, size_t *n, bool *descending);

typedef struct pm_merge_result {
    bool has;        /* false: every record was ignored, nothing to keep */
    uint8_t kind;    /* PM_KIND_* */
    int64_t seq;
} pm_merge_result;

/* Fold one key's records (in layout `in`, value field i at
 * in->value_cols[i]).  The records must stay valid until emit. */
pm_error *pm_merge_fn_fold(pm_merge_fn *e, const pm_kv_layout *in, const pm_kv_rec *recs, size_t n,
                               pm_merge_result *res);
/* Append the folded record to every column of `out` according to
 * out_layout (value columns from the merged values, key columns from the
 * key record, _SEQUENCE_NUMBER and _VALUE_KIND from the result).  The
 * caller finishes the batch (pm_batch_finish). */
pm_error *pm_merge_fn_emit(pm_merge_fn *e, pm_batch *out, const pm_kv_layout *out_layout);

/* Java's LookupMergeFunction, the merge of tables that need lookup
 * (changelog-producer=lookup, deletion vectors, force-lookup) other than
 * first-row: of one key's records only those of level 0 and the one of
 * the lowest positive level (the latest materialized state; older levels
 * already contributed to it) are merged.  level[s] = the level of merge
 * source s (records of a source outside [0, nlevel) count as level 0).
 * Copies the kept records, in their order, to out (room for n); returns
 * how many. */
size_t pm_merge_lookup_pick(const pm_kv_rec *recs, size_t n, const int32_t *level, size_t nlevel, pm_kv_rec *out);

#endif
