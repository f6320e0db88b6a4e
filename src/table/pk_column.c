/*
 * table/pk_column.c — bulk row-range appends between columns of the same
 * type (pk_column.h), used where primary-key reads and writes move runs of
 * consecutive rows: the merge output's pass-through ranges and the write
 * buffer.  One run of types/column.h's pm_column_append_runs (validity
 * only when a copied row is null; one memcpy of fixed-width values or of
 * variable-width bytes with rebased offsets; bit-range copies of validity
 * and BOOLEAN values; nested types row by row).
 */
#include "table/pk_column.h"

#include <stdint.h>

pm_error *pm_pk_append_range(pm_column *dst, const pm_column *src, int64_t from, int64_t n)
{
    while (n > 0) {
        uint32_t m = n > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
        pm_column_run run = {from, m, 0};
        PM_TRY(pm_column_append_runs(dst, &src, &run, 1));
        from += m;
        n -= m;
    }
    return NULL;
}
