/*
 * table/pk_cross.h — cross-partition updates of the primary-key writer:
 * dynamic-bucket tables whose primary key lacks a partition field
 * (Java's KEY_DYNAMIC mode, GlobalIndexAssigner), so a key lives in one
 * (partition, bucket) of the whole table.
 *
 * Bootstrap (first write): every live key of the latest snapshot with its
 * partition and bucket — a merged read of each bucket (deletion vectors
 * read merge-on-read so level 0 counts; first-row tables: every key in any
 * file, since first-row never deletes) — and the number of keys per
 * (partition, bucket).
 * Routing happens at prepare: rows are kept in arrival order, and both
 * they and the bootstrap keys are split by key hash into H groups, H a
 * power of two chosen so one group's key index fits the memory budget;
 * groups beyond the budget live in a private spill directory
 * (table/pk_spill.h), so memory stays bounded whatever the table's size.
 * Per group, in arrival order, a row whose key
 *   - is known in its own partition goes to the key's bucket;
 *   - is known in another partition: deduplicate sends a DELETE (the row's
 *     values, the old partition's fields) to the old (partition, bucket)
 *     and then treats the row as new; partial-update and aggregation send
 *     the row to the old partition and bucket (its partition fields
 *     replaced); first-row drops it (Java's Delete/UseOld/SkipNew
 *     ExistingProcessor);
 *   - is new: the partition's first bucket (ascending) holding fewer than
 *     dynamic-bucket.target-row-num keys, else the smallest id not used
 *     (Java's crosspartition.BucketAssigner).
 * No HASH index is written (Java keeps none for this mode).  The index is
 * kept across prepares of one writer.
 */
#ifndef PM_TABLE_PK_CROSS_H
#define PM_TABLE_PK_CROSS_H

#include <stdint.h>

#include "paimon/batch.h"
#include "table/table_internal.h"

typedef struct pm_pk_cross pm_pk_cross;

/* Rows emitted by routing: the table's fields plus `_ROW_KIND` TINYINT
 * (in_type), and each row's bucket. */
typedef pm_error *(*pm_pk_cross_emit_fn)(void *ctx, const pm_batch *rows, const int32_t *buckets);

/* budget: bytes for the in-memory key index and buffered rows;
 * spill_dir NULL = $TMPDIR or /tmp. */
pm_error *pm_pk_cross_new(pm_pk_cross **out, pm_table *t, int64_t budget, const char *spill_dir);
void pm_pk_cross_free(pm_pk_cross *c);
/* The type of the rows add takes and emit gives. */
const pm_type *pm_pk_cross_input_type(const pm_pk_cross *c);
/* Keep rows `rows[0..n)` of the aligned table columns with their kinds. */
pm_error *pm_pk_cross_add(pm_pk_cross *c, pm_column *const *cols, const uint8_t *kinds, const int64_t *rows,
                          int64_t n);
/* Groups of the key index (0 before the bootstrap) and runs spilled so far. */
void pm_pk_cross_stats(const pm_pk_cross *c, size_t *groups, int64_t *spilled_runs);
/* Route every kept row (see top) through emit; nothing is kept after. */
pm_error *pm_pk_cross_route(pm_pk_cross *c, pm_pk_cross_emit_fn emit, void *ctx);

#endif
