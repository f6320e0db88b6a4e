/*
 * table/pk_column.h — append a range of rows of one column to another of
 * the same type, in bulk where the layout allows (pk_column.c).
 */
#ifndef PM_TABLE_PK_COLUMN_H
#define PM_TABLE_PK_COLUMN_H

#include <stdint.h>

#include "types/column.h"

/* Append rows [from, from + n) of src to dst (same type; rows in range). */
pm_error *pm_pk_append_range(pm_column *dst, const pm_column *src, int64_t from, int64_t n);

#endif
