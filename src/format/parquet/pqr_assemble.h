/*
 * format/parquet/pqr_assemble.h — record assembly from leaf levels into
 * Arrow-layout columns (see pqr_assemble.c for the algorithm).
 */
#ifndef PM_PARQUET_PQ_ASSEMBLE_H
#define PM_PARQUET_PQ_ASSEMBLE_H

#include "format/parquet/pqr_chunk.h"
#include "types/column.h"

#define PQ_ASM_MAX_DEPTH PQR_MAX_PATH

/* Scratch buffers reused across calls. */
typedef struct pqr_assembler {
    pm_buf flags;   /* per-slot validity of the leaf being assembled */
    pm_buf tmp;     /* boolean values */
    pm_buf rel;     /* relative offsets of var values */
    uint64_t offsets_in_place; /* var values whose offsets the decoder wrote into the column (tests) */
} pqr_assembler;

void pqr_assembler_init(pqr_assembler *a);
void pqr_assembler_free(pqr_assembler *a);

/* Append the next `rows` records of leaf chunk c to `top` (the column of the
 * leaf's top-level field).  *done = records actually found (fewer only at
 * the end of the chunk). */
pm_error *pqr_assemble_leaf(pqr_assembler *a, pqr_chunk *c, pm_column *top, int64_t rows, int64_t *done);

/* Check lengths and offsets of a column tree after assembly. */
pm_error *pqr_check_column(const pm_column *col);

#endif
