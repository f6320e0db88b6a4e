/*
 * table/global_index_scan.h — row-ID selection of a read filter through
 * the scalar global indexes (btree, bitmap) of a row-tracking table.
 *
 * For each atom of the filter (`col = v` / `col IN (...)`) whose field id
 * has global index entries in the bucket's index manifest entries (index
 * type btree or bitmap with GlobalIndexMeta, the bucket's partition), the
 * entries' payloads are queried with the atom's literals
 * (index/global_index_file.h); local row ids become global ones by adding
 * the entry's range start.  The atom then selects those row ids inside the
 * union of the entries' ranges (its coverage) and every row id outside it
 * (not yet indexed).  The bucket's selection is the AND of its atoms'; a
 * row-ID range of data the selection does not meet holds no row the
 * filter keeps, so readers skip it.  Rows read are then filtered as
 * always: the result equals a full scan with the filter.
 *
 * Used when the table option `global-index.enabled` (default true) holds
 * and the table has row tracking.  A payload that cannot be read is an
 * error naming its file (never a silently wider or narrower read).
 */
#ifndef PM_TABLE_GLOBAL_INDEX_SCAN_H
#define PM_TABLE_GLOBAL_INDEX_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "table/predicate.h"
#include "table/scan.h"

typedef struct pm_gi_selection pm_gi_selection;

/* `global-index.enabled` of o (default true; PM_EINVALID for a bad value). */
pm_error *pm_gi_read_enabled(const pm_options *o, bool *out);

/* The selection of filter p over bucket b (of table t); *out = NULL when
 * no atom has an index in b (nothing to select). */
pm_error *pm_gi_select(pm_table *t, const pm_bucket_files *b, const pm_predicate *p, pm_gi_selection **out);
/* May row ids [from, from + n) hold a row the filter keeps? */
bool pm_gi_selection_meets(const pm_gi_selection *s, int64_t from, int64_t n);
/* Selected row ids counted over the covered ranges (for reports/tests). */
int64_t pm_gi_selection_indexed_rows(const pm_gi_selection *s);
void pm_gi_selection_free(pm_gi_selection *s);

#endif
