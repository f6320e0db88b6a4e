/*
 * format/parquet/pq_read_index.h — reading a column chunk's page index
 * (parquet-format's ColumnIndex and OffsetIndex, thrift compact) from the
 * bytes a footer's ColumnChunk points to (column_index_offset/length,
 * offset_index_offset/length).
 *
 *   ColumnIndex  1 null_pages list<bool>, 2 min_values list<binary>,
 *                3 max_values list<binary>, 4 boundary_order i32,
 *                5 null_counts list<i64> (optional), 6/7 level histograms
 *                (optional, skipped).
 *   OffsetIndex  1 page_locations list<PageLocation{1 offset i64,
 *                2 compressed_page_size i32 (header included),
 *                3 first_row_index i64}>, 2 unencoded_byte_array_data_bytes
 *                list<i64> (optional).
 *
 * Untrusted input: every length is checked against the bytes given (the
 * thrift reader's rules), required fields must be present, the lists of a
 * ColumnIndex must have one entry per page, page locations must have
 * non-negative offsets, positive sizes and first rows that start at 0 and
 * increase.  Anything else is PM_ECORRUPT naming the structure.  Parsed
 * arrays and byte values live in the caller's arena (values are copied).
 */
#ifndef PM_PQ_READ_INDEX_H
#define PM_PQ_READ_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "paimon/error.h"

typedef struct pq_column_index {
    uint32_t n;                    /* pages */
    bool *null_pages;
    const uint8_t **min, **max;    /* PLAIN bytes (empty for null pages) */
    uint32_t *min_len, *max_len;
    int32_t boundary_order;
    bool has_null_counts;
    int64_t *null_counts;
} pq_column_index;

typedef struct pq_page_location {
    int64_t offset;                /* of the page header, in the file */
    int32_t size;                  /* header + compressed bytes */
    int64_t first_row;             /* within the row group */
} pq_page_location;

typedef struct pq_offset_index {
    uint32_t n;
    pq_page_location *pages;
    bool has_unencoded;
    int64_t *unencoded;            /* BYTE_ARRAY value bytes per page */
} pq_offset_index;

pm_error *pq_column_index_parse(pq_column_index *out, const uint8_t *data, size_t len, pm_arena *a);
pm_error *pq_offset_index_parse(pq_offset_index *out, const uint8_t *data, size_t len, pm_arena *a);

#endif
