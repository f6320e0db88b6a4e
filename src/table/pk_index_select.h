/*
 * table/pk_index_select.h — which rows of a primary-key bucket's files a
 * read filter can keep, from the bucket's source-backed global index
 * payloads (compact/pk/pk_global_index.h, index/pk_index_source.h).
 *
 * For each atom `col = v` / `col IN (...)` of the filter whose column is
 * declared (index/global_index_decl.h, btree or bitmap), a payload of the
 * bucket is used when its index type is the declared family, its field id
 * the column's, and its source equals the live files of its level (names
 * in name order and row counts; a stale payload — files compacted or
 * removed since, e.g. by an overwrite — is ignored) and every source
 * file's schema holds the column with the atom's type (a payload over
 * files of another type is ignored).  The payload's matching ordinals
 * become positions in its files; an atom covers every file of a used
 * payload's level.  A file covered by several atoms keeps the positions
 * all of them select.  Level-0 files and files of levels without a usable
 * payload are uncovered.
 *
 * Readers (table/pk_read.h) use the positions as a superset of the rows of
 * each covered file that can satisfy the filter; the filter is still
 * evaluated on every row read, so the rows are exactly a full scan's.
 * Payload bytes that do not decode are an error naming the file.
 */
#ifndef PM_TABLE_PK_INDEX_SELECT_H
#define PM_TABLE_PK_INDEX_SELECT_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>

#include "meta/schema.h"
#include "table/predicate.h"
#include "table/scan.h"

typedef struct pm_pk_gi_hits {
    size_t nfiles;              /* b->nfiles */
    roaring_bitmap_t **rows;    /* per file of b: positions that may match, NULL = uncovered */
    size_t payloads_used;
} pm_pk_gi_hits;

/* The hits of filter p in bucket b (read schema s); *out = NULL when no
 * file is covered. */
pm_error *pm_pk_gi_select(pm_table *t, const pm_schema *s, const pm_bucket_files *b, const pm_predicate *p,
                          pm_pk_gi_hits **out);
void pm_pk_gi_hits_free(pm_pk_gi_hits *h);

#endif
