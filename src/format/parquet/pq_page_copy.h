/*
 * format/parquet/pq_page_copy.h — a compressed data page of an input file
 * taken into a column writer's chunk as it is, instead of compressing the
 * same values again (primary-key compaction's page copies:
 * compact/pk/pk_page_copy.h).
 *
 * The writer is offered a page (header + compressed body, exactly as they
 * are in the input file) that the caller promises holds the next `rows`
 * rows the writer will be given for this leaf, value for value.  Steps:
 *   offer   the page is refused (*taken = false, nothing changes) unless
 *           the leaf is flat without repetition, the page is a data page
 *           v1 (what the writer writes) of PLAIN values with RLE
 *           definition levels (when max_def > 0), compressed with the
 *           writer's codec, with num_values = rows, and the chunk writes
 *           PLAIN (its dictionary off, or not started yet: a chunk that
 *           holds no value then starts PLAIN, as the plain-source hint
 *           does); the open page is closed first (a shorter page);
 *   rows    the next rows are encoded as usual (levels, PLAIN values,
 *           statistics, level histograms), only the page is not closed at
 *           the size or row limits before it holds `rows` rows;
 *   close   a page that holds exactly `rows` rows is replaced by the
 *           offered bytes: header and body copied (the input's CRC, when
 *           it has one, stays valid: it covers the compressed body), its
 *           page-index entry and statistics from the encoded values, the
 *           chunk's uncompressed size from the offered header.  A page
 *           closed earlier (row group end, cancel) is compressed as usual
 *           and the offer is forgotten.
 * The values of a copied page are the values the writer was given, so the
 * file reads the same either way; only the page's compression (and its
 * input's page cut) are the input's.
 *
 * Lazy offers (facts given): the caller vouches for the page's statistics
 * from the input's page index (null count, PLAIN min/max, BYTE_ARRAY value
 * bytes) and the rows it then gives for the page carry no values (whatever
 * the column holds there is ignored).  Taken only for a flat leaf of at
 * most one definition level holding INT32, INT64, FLOAT, DOUBLE or
 * BYTE_ARRAY values, with facts that are exact: fixed-width min/max of
 * their width, no float min/max that is zero or NaN (the page's own values
 * decide the sign of a zero), byte strings of at most PQ_LAZY_MAX_BYTES (a
 * parquet-java page index truncates values longer than 64 bytes to 61-64).
 * The given rows are counted: the open page's raw size (row groups and
 * files are cut on it) grows as their encoding would make it for
 * fixed-width values without nulls, else in proportion to the page's
 * uncompressed body (a row group or file may then end a few rows from
 * where it would with the values: other bytes, the same rows); a page that closes with exactly its rows is
 * copied with the facts as its statistics.  When the rows are needed after
 * all (a cancel, a row group that closes first), the offered page is
 * decompressed and the rows given so far are decoded from it and encoded
 * as usual: the same values, so the same file as the offer of those values
 * would have written.  A row group that closes first also leaves the
 * page's other rows decoded: the next rows given (the page's, value-less
 * still) take their values from it (pq_colw_offer_ends); a cancel ends
 * that.
 */
#ifndef PM_PQ_PAGE_COPY_H
#define PM_PQ_PAGE_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_write_column.h"

/* The element of top-level field `name` in a depth-first schema (root
 * first), or NULL. */
const pq_schema_element *pq_schema_top_element(const pq_schema_element *e, uint32_t n, const char *name);
/* Whether two leaf elements store values alike: physical type, width,
 * repetition, converted and logical type (names and field ids aside). */
bool pq_schema_same_storage(const pq_schema_element *a, const pq_schema_element *b);

/* Longest byte-string min/max of a lazy offer's facts (see the top). */
#define PQ_LAZY_MAX_BYTES 60

/* A lazy offer's statistics (see the top); bytes borrowed for the call. */
typedef struct pq_page_facts {
    int64_t null_count;
    bool all_null;                /* the page index's null_pages entry */
    const uint8_t *min, *max;     /* PLAIN bytes (unused when all_null) */
    uint32_t min_len, max_len;
    int64_t unencoded;            /* BYTE_ARRAY value bytes (OffsetIndex); -1 unknown */
} pq_page_facts;

/* Offer `len` bytes at `page` (a page header and its compressed body; copied)
 * compressed with `codec` as the next `rows` rows of the leaf (see the top).
 * *taken = whether the writer took the offer. */
pm_error *pq_colw_offer_page(pq_colw *cw, const uint8_t *page, size_t len, pm_codec_id codec, int64_t rows,
                             const pq_page_facts *facts, bool *taken);
/* Forget an offer (the rows given from now on are not the page's; a lazy
 * offer's rows given so far are decoded from its page first). */
pm_error *pq_colw_cancel_page(pq_colw *cw);
/* The row group ends: an offer ends with it; a lazy offer's rows still to
 * come take their values from its page (decoded now; pq_colw_write). */
pm_error *pq_colw_offer_ends(pq_colw *cw);
/* Whether a lazy offer stands, or rows of one still take their values
 * from its page. */
bool pq_colw_lazy_pending(const pq_colw *cw);
/* n rows of a lazy offer given (counted, not encoded). */
pm_error *pq_colw_lazy_rows(pq_colw *cw, int64_t n);
/* Close step (pq_write_column.c's page close): when the open page holds
 * exactly the offered rows, append the offered bytes and record the page
 * (*done = true; the caller resets the open page); else forget the offer. */
pm_error *pq_colw_put_offered(pq_colw *cw, bool *done);

#endif
