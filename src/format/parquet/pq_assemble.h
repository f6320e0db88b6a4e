/*
 * format/parquet/pq_assemble.h — record assembly from leaf levels into
 * Arrow-layout columns (see pq_assemble.c for the algorithm).
 */
#ifndef PM_PARQUET_PQ_ASSEMBLE_H
#define PM_PARQUET_PQ_ASSEMBLE_H

#include "format/parquet/pq_chunk.h"
#include "types/column.h"

#define PQ_ASM_MAX_DEPTH 80

/* Scratch buffers reused across calls. */
typedef struct pq_assembler {
    pm_buf flags;   /* per-slot validity of the leaf being assembled */
    pm_buf tmp;     /* boolean values */
    pm_buf rel;     /* relative offsets of var values */
} pq_assembler;

void pq_assembler_init(pq_assembler *a);
void pq_assembler_free(pq_assembler *a);

/* Append the next `rows` records of leaf chunk c to `top` (the column of the
 * leaf's top-level field).  *done = records actually found (fewer only at
 * the end of the chunk). */
pm_error *pq_assemble_leaf(pq_assembler *a, pq_chunk *c, pm_column *top, int64_t rows, int64_t *done);

/* Check lengths and offsets of a column tree after assembly. */
pm_error *pq_check_column(const pm_column *col);

#endif
