/*
 * dv/dv_apply.h — applying a deletion vector to rows read from its data
 * file (ApplyDeletionVectorReader in Paimon Java).
 *
 * A reader produces batches covering consecutive row positions of one
 * file: a batch of n rows read from position `start` holds positions
 * start .. start + n - 1.  A row survives when its position is not in the
 * deletion vector.  Steps: build a keep bitmap of n bits (all set), clear
 * the deleted positions of the range (pm_dv_clear_deleted: one ordered walk
 * of the bitmap from `start`), then either list the kept row indexes or
 * compact the batch.  Compaction builds new columns (the old ones may be
 * shared with Arrow exports, which stay valid) holding only the kept rows.
 */
#ifndef PM_DV_DV_APPLY_H
#define PM_DV_DV_APPLY_H

#include <stdint.h>

#include "dv/deletion_vector.h"
#include "paimon/batch.h"
#include "paimon/error.h"

/* Row indexes i in [0, n) whose position start + i is not deleted, in
 * order, written to sel (room for n entries); *nsel = their count.  A NULL
 * dv keeps every row. */
pm_error *pm_dv_selection(const pm_dv *dv, int64_t start, int64_t n, int64_t *sel, int64_t *nsel);

/* Keep the rows i of b whose bit i (LSB first) is set in keep (one bit per
 * row of b); the batch then holds only those rows, in order. */
pm_error *pm_batch_filter(pm_batch *b, const uint8_t *keep);

/* Drop the rows of b (covering positions start .. start + rows - 1) that dv
 * deletes.  Does nothing for a NULL dv or when no row in the range is
 * deleted. */
pm_error *pm_dv_filter_batch(const pm_dv *dv, int64_t start, pm_batch *b);

#endif
