/*
 * format/parquet/pq_page_merge.h — PLAIN data pages merged into a column
 * writer's pages without decoding their values (compaction's page
 * passthrough, for columns whose small input pages compress much better
 * in bigger pages: compact/compact_page_passthrough.h).
 *
 * Pages that can be merged (pq_page_merge_ok): a data page v1 or v2 of a
 * flat leaf (max_rep = 0) that is not BOOLEAN (bit-packed PLAIN), INT96 or
 * a FIXED_LEN_BYTE_ARRAY decimal (no plain order to merge min/max in),
 * with PLAIN values and, when max_def > 0, RLE-hybrid definition levels:
 *   v1  codec([u32 length][def levels] values)   (levels only if max_def > 0)
 *   v2  [def levels: definition_levels_byte_length bytes, never compressed]
 *       codec(values)   (values compressed unless is_compressed = false)
 * Steps of pq_colw_merge_page for one page: verify its CRC when it has
 * one, decompress (the page's uncompressed_page_size exactly), split the
 * body into levels and values, then append both to the writer's open page:
 *   levels  re-encoded into the writer's definition-level encoder run by
 *           run (pq_levels_transcode: an RLE run is put as one run, a
 *           bit-packed piece value by value), which gives exactly the bytes
 *           the writer produces for the same level sequence; each level is
 *           checked against max_def and the nulls (levels < max_def) counted;
 *   values  PLAIN values of one physical type are concatenable as they are
 *           (fixed width: the value bytes; BYTE_ARRAY: a 4-byte length and
 *           the bytes per value): appended as bytes after checking that
 *           they hold exactly the page's non-null values;
 *   stats   null count from the levels; min/max from the caller's bounds
 *           (the input page's ColumnIndex entry: exact for fixed-width
 *           types) or, without bounds, from the value bytes (byte strings,
 *           whose ColumnIndex bounds may be truncated, and pages without an
 *           index); NaN follows the writer's rules (the page index is
 *           dropped);
 *   size    raw page bytes = the value bytes (PLAIN is the raw form),
 *           BYTE_ARRAY unencoded bytes = value bytes - 4 per value.
 * Page cutting: an input page is never split.  The writer's open page is
 * closed before a page that would take it past page_row_limit rows or
 * page_size raw bytes, and after one that reaches either; so merged pages
 * stay within the writer's limits unless one input page alone exceeds
 * them, and fall where the writer cuts when the input pages' row counts
 * divide the row limit (the usual case: 2,000-row inputs, 20,000 rows).
 * The writer must write PLAIN (its dictionary off): decoded rows
 * (pq_colw_write) and merged pages can alternate in one writer.
 */
#ifndef PM_PQ_PAGE_MERGE_H
#define PM_PQ_PAGE_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_schema_write.h"
#include "format/parquet/pq_write_column.h"

/* Min/max of one input page as PLAIN statistics bytes (the ColumnIndex's). */
typedef struct pq_merge_bounds {
    const uint8_t *min, *max;
    size_t nmin, nmax;
} pq_merge_bounds;

/* Whether pages of this leaf can be merged at all (see the top). */
bool pq_page_merge_leaf_ok(const pq_leaf *leaf);
/* Whether the page with this header can be merged into the leaf's writer. */
bool pq_page_merge_ok(const pq_leaf *leaf, const pq_page_header *h);

/* Re-encode `n` levels of an RLE-hybrid stream p[0..len) of width bw into
 * `enc` (same width), each checked <= max (PM_ECORRUPT otherwise);
 * *below += how many are < below_of (nulls: below_of = max_def). */
pm_error *pq_levels_transcode(pq_rle_encoder *enc, const uint8_t *p, size_t len, int bw, int64_t n, uint32_t max,
                              uint32_t below_of, int64_t *below);

/* Append the page (header h, `data` = its compressed_page_size bytes,
 * compressed with `codec`) to the writer's open page, closing pages as
 * above.  `bounds`: the page's min/max when known and exact (NULL: from
 * the values).  `scratch` holds the decompressed body (kept for reuse).
 * PM_ECORRUPT for a page whose checksum, sizes, levels or values do not
 * add up; PM_EINTERNAL for a page pq_page_merge_ok refuses or a writer
 * with its dictionary on. */
pm_error *pq_colw_merge_page(pq_colw *cw, const pq_page_header *h, const uint8_t *data, pm_codec_id codec,
                             const pq_merge_bounds *bounds, pm_buf *scratch);

#endif
