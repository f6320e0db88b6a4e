/*
 * format/parquet/pq_write_index.h — the page index of a column chunk
 * (ColumnIndex + OffsetIndex) and its size statistics, as parquet-java 1.16
 * writes them.
 *
 * Per data page the writer records where the page is (offset, header +
 * compressed size, first row), its null count, min/max, level histograms
 * and BYTE_ARRAY value bytes.  At the end of the chunk:
 *   ColumnIndex  null_pages, min_values, max_values (PLAIN bytes; empty for
 *                all-null pages; BYTE_ARRAY values truncated to 64 bytes,
 *                UTF-8 aware, the max rounded up), boundary_order
 *                (ASCENDING / DESCENDING over the non-null pages' min and
 *                max, else UNORDERED), null_counts, and the per-page
 *                repetition / definition level histograms.  Not written for
 *                INT96 (no column order) or when a FLOAT/DOUBLE page held
 *                NaN (parquet-java invalidates the index then).
 *   OffsetIndex  page_locations {offset, compressed_page_size (header
 *                included), first_row_index}; for BYTE_ARRAY also the
 *                unencoded value bytes per page.
 *   SizeStatistics (ColumnMetaData 16): BYTE_ARRAY value bytes, the
 *                repetition histogram when max_rep > 0 and the definition
 *                histogram when max_def > 1 (parquet-java 1.16 rules).
 * Truncation (parquet-java's BinaryTruncator): a value longer than the
 * limit that is valid UTF-8 is cut at a character boundary; the max then
 * has its last byte that can be increased (giving valid UTF-8) raised by
 * one; other values are cut at the limit and the max incremented with
 * carry; when that is impossible the value is kept whole.
 */
#ifndef PM_PQ_WRITE_INDEX_H
#define PM_PQ_WRITE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_schema_write.h"
#include "format/parquet/pq_stats.h"

#define PQ_COLUMN_INDEX_TRUNCATE 64

typedef struct pq_page_info {
    int64_t offset;          /* of the page header, relative to the first data page */
    int32_t size;            /* header + compressed bytes */
    int64_t first_row;       /* within the row group */
    int64_t null_count;
    int64_t unencoded;       /* BYTE_ARRAY value bytes */
    bool null_page;
    uint32_t min_off, min_len, max_off, max_len;   /* in pq_page_index.vals */
} pq_page_info;

typedef struct pq_page_index {
    pq_page_info *pages;
    size_t n, cap;
    pm_buf vals;             /* min/max bytes of all pages */
    pm_buf rep_hist;         /* int64: (max_rep + 1) per page */
    pm_buf def_hist;         /* int64: (max_def + 1) per page */
    bool invalid;            /* a FLOAT/DOUBLE page held NaN */
    bool no_unencoded;       /* BYTE_ARRAY value bytes unknown (copied pages): neither
                                the OffsetIndex nor SizeStatistics carry them */
} pq_page_index;

void pq_page_index_reset(pq_page_index *pi);
void pq_page_index_free(pq_page_index *pi);

/* Whether the leaf's chunks carry histograms (1.16 rules). */
static inline bool pq_has_rep_hist(const pq_leaf *l) { return l->max_rep > 0; }
static inline bool pq_has_def_hist(const pq_leaf *l) { return l->max_def > 1; }

/* Record one data page.  `st` holds the page's statistics (null count,
 * min/max, NaN flag); rep_hist / def_hist its histograms (NULL when the
 * leaf has none). */
pm_error *pq_page_index_add(pq_page_index *pi, const pq_leaf *leaf, const pq_stats *st, int64_t values,
                            int64_t offset, int32_t size, int64_t first_row, int64_t unencoded,
                            const int64_t *rep_hist, const int64_t *def_hist);

/* Record one data page from its statistics bytes (PLAIN; NULL when the
 * page has no min/max): what compaction's page passthrough knows of a
 * copied page from the input's ColumnIndex.  Byte strings are truncated as
 * above.  No level histograms: for leaves without them (max_rep == 0,
 * max_def <= 1) only. */
pm_error *pq_page_index_add_bytes(pq_page_index *pi, const pq_leaf *leaf, int64_t offset, int32_t size,
                                  int64_t first_row, int64_t null_count, int64_t unencoded, bool null_page,
                                  const uint8_t *vmin, size_t nmin, const uint8_t *vmax, size_t nmax);

/* Serialized ColumnIndex (thrift compact) appended to out; *written = false
 * (nothing appended) when the chunk gets none. */
pm_error *pq_page_index_column_index(const pq_page_index *pi, const pq_leaf *leaf, pm_buf *out,
                                     bool *written);
/* Serialized OffsetIndex; page offsets are made absolute by adding `base`. */
pm_error *pq_page_index_offset_index(const pq_page_index *pi, const pq_leaf *leaf, int64_t base,
                                     pm_buf *out);
/* SizeStatistics of the chunk (arrays from the arena). */
pm_error *pq_page_index_size_stats(const pq_page_index *pi, const pq_leaf *leaf, pm_arena *a,
                                   pq_size_statistics *out);

/* Compare two PLAIN-encoded statistics values in the leaf's order (<0, 0, >0;
 * fixed-width values must have the type's width). */
int pq_plain_compare(const pq_leaf *l, const uint8_t *a, size_t na, const uint8_t *b, size_t nb);

/* Column-index min / max of a byte string: writes the result to `out`
 * (room for n bytes) and returns its length. */
size_t pq_truncate_min(const uint8_t *v, size_t n, size_t limit, uint8_t *out);
size_t pq_truncate_max(const uint8_t *v, size_t n, size_t limit, uint8_t *out);

#endif
