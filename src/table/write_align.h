/*
 * table/write_align.h — the input batches of the table writers (append:
 * table_write.c; primary keys: pk_write.c) matched to the table's fields.
 *
 * Columns are matched by field name: a field missing from the input reads
 * as an all-null column (cached per field; PM_EINVALID when the field is
 * NOT NULL and the batch has rows); an input column that is no field is
 * PM_EINVALID (except the one `skip` column, e.g. _ROW_KIND, which the
 * caller reads itself); a column of another value layout is PM_EINVALID
 * naming both types (nullability, field ids and string lengths aside;
 * timestamps by their unit); a null in a NOT NULL field is PM_EINVALID
 * naming the row.  The aligned columns borrow the caller's; nothing is
 * copied.
 */
#ifndef PM_TABLE_WRITE_ALIGN_H
#define PM_TABLE_WRITE_ALIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "meta/options.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "types/column.h"

typedef struct pm_write_aligner {
    const pm_type *row_type;   /* the table's row type (borrowed) */
    const char *skip;          /* an input column that is not matched, or NULL */
    pm_column **aligned;       /* per field, after pm_write_align */
    pm_column **null_cols;     /* cached all-null columns (owned) */
} pm_write_aligner;

pm_error *pm_write_aligner_init(pm_write_aligner *a, const pm_type *row_type, const char *skip);
void pm_write_aligner_free(pm_write_aligner *a);
/* Match `in` (see top); a->aligned holds one column per field. */
pm_error *pm_write_align(pm_write_aligner *a, const pm_batch *in);
/* The aligned columns as a batch of the row type (borrowing them). */
void pm_write_aligned_batch(const pm_write_aligner *a, int64_t rows, pm_batch *out);

/* Indexes of `names` among rt's fields: PM_EINVALID naming `what` when a
 * name is no field, PM_EUNSUPPORTED when its type is nested.  *out is
 * malloc'd (at least one entry). */
pm_error *pm_write_field_indexes(const pm_type *rt, const pm_str_list *names, size_t **out, const char *what);

#endif
