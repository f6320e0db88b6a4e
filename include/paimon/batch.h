/*
 * paimon/batch.h — columnar batches of rows, exportable through the Arrow C
 * Data Interface without copying.
 *
 * A pm_batch holds `num_rows` rows of a ROW type as one column per field.
 * Column buffers use the Arrow layout (validity bitmap, values, int32
 * offsets, child columns), so pm_batch_export hands them to Arrow consumers
 * (pyarrow, duckdb, polars) by reference: the exported ArrowArray keeps the
 * columns alive until its release callback runs, even after the batch is
 * freed or reused.
 *
 * Ownership: the producer (a reader) owns the batch it returns; the consumer
 * borrows it until its next call on that reader.  pm_batch_free releases the
 * producer's references.
 */
#ifndef PAIMON_BATCH_H
#define PAIMON_BATCH_H

#include <stdint.h>

#include "paimon/version.h"
#include "paimon/arrow_c.h"
#include "paimon/error.h"
#include "paimon/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_batch pm_batch;

/* Empty batch for `row_type` (a ROW; cloned). */
PM_API pm_error *pm_batch_new(pm_batch **out, const pm_type *row_type);
PM_API void pm_batch_free(pm_batch *b);
PM_API int64_t pm_batch_num_rows(const pm_batch *b);
/* Row type of the batch; owned by the batch, valid while it lives. */
PM_API const pm_type *pm_batch_type(const pm_batch *b);

/* Export as an Arrow struct array (one child per column) and its schema.
 * Zero-copy: buffers are shared by reference counting.  The caller owns the
 * two structs and must call their release callbacks. */
PM_API pm_error *pm_batch_export(const pm_batch *b, struct ArrowSchema *schema, struct ArrowArray *array);
/* Export only the schema of a row type. */
PM_API pm_error *pm_type_export_schema(const pm_type *row_type, struct ArrowSchema *schema);
/* Build a batch from an Arrow struct array + schema (copies the values; the
 * Arrow structs are not released).  Field ids come from `row_type` when given
 * (matched by name), else are numbered from 0. */
PM_API pm_error *pm_batch_import(pm_batch **out, const pm_type *row_type,
                                 const struct ArrowSchema *schema, const struct ArrowArray *array);
/* The same, without copying where the layout allows: takes `array` (moved:
 * array->release is NULL on return, also on failure) and lends the batch
 * its buffers for columns whose Arrow layout is the batch's (no offset;
 * booleans; fixed-width values in the column's unit; strings and binaries
 * with 32-bit offsets from 0); other columns are copied.  The array is
 * released when the last column borrowing from it is freed (an exported
 * batch keeps it alive too).  The schema is borrowed for the call. */
PM_API pm_error *pm_batch_import_move(pm_batch **out, const pm_type *row_type, const struct ArrowSchema *schema,
                                      struct ArrowArray *array);

#ifdef __cplusplus
}
#endif
#endif
