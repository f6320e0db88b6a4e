/*
 * format/parquet/page_reader.h — the Parquet page reader: page headers,
 * checksums, decompression, definition / repetition levels and the value
 * decoder of each data page of a column chunk (page_reader.c).
 *
 * The caller (parquet_reader.c, pqr_assemble.c) puts the chunk's bytes at
 * c->data / c->len and calls pqr_chunk_start (pqr_chunk.h);
 * pqr_chunk_next_page then loads the next data page, consuming a
 * dictionary page first when there is one: afterwards def[] / rep[] hold
 * the page's levels (n entries, entry `pos` is the next unconsumed one)
 * and pqr_chunk_values hands out the page's non-null values in order.
 */
#ifndef PM_PARQUET_PAGE_READER_H
#define PM_PARQUET_PAGE_READER_H

#include <stdbool.h>

#include "format/parquet/pqr_chunk.h"

/* Load the next data page; *eof when the chunk has no more (after checking
 * the chunk's value count). */
pm_error *pqr_chunk_next_page(pqr_chunk *c, bool *eof);

/* Pass over the next data pages of a flat leaf (no repetition) whose
 * entries all lie within the next `rows` rows, by their headers alone:
 * neither read beyond the header's probe nor decompressed, decoded or
 * checksummed (their values are never used).  Only between pages (the
 * current page consumed); stops before the first page that is not a data
 * page or holds more entries than are left to skip, so a dictionary page
 * is left to pqr_chunk_next_page.  *skipped = the rows passed over
 * (0 for a nested leaf or in the middle of a page). */
pm_error *pqr_chunk_skip_pages(pqr_chunk *c, int64_t rows, int64_t *skipped);

#endif
