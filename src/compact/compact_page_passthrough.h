/*
 * compact/compact_page_passthrough.h — page-level Parquet passthrough: one
 * output row group assembled from whole input row groups (of several input
 * files) where every column chunk is either copied page by page
 * (compressed bytes as they are, CRCs kept) or decoded and encoded again.
 * Used by the passthrough writer (compact_passthrough.h) for inputs whose
 * row groups are too small to be copied whole.
 *
 * Per leaf column, the first input row group of an output row group
 * decides: the chunk is copied when the leaf is flat (a top-level
 * primitive field: max_rep = 0, one value per row), its input chunk has no
 * dictionary (no dictionary page offset, no dictionary encoding in its
 * encodings or encoding stats: a chunk has one dictionary, so pages of
 * different inputs' dictionaries cannot share one), the column has no
 * file index (the index needs the values) and the sample did not mark it
 * (below: pages that compress much better merged); otherwise it is re-encoded with
 * the table's Parquet settings (format/parquet/pq_write_column.h: its own
 * dictionary, page limits, CRCs, statistics, page index).  A later input
 * row group joins the pending one unless one of its chunks that the group
 * copies has a dictionary (pm_pg_group_fits: then the group is flushed
 * first); a chunk of a re-encoded column is decoded whatever it holds.
 * Rows of inputs that are not copied at all (decoded by the caller: other
 * schema, deletion vectors) make row groups of their own where every leaf
 * is re-encoded (pm_pg_group_add_rows).
 *
 * A leaf the sample marked is re-encoded without decoding where it can:
 * an input chunk of it without dictionary whose pages are all PLAIN data
 * pages (v1 or v2, RLE definition levels) of a type pq_page_merge_leaf_ok
 * takes (not BOOLEAN, INT96 or FIXED_LEN_BYTE_ARRAY decimals) has its pages
 * merged into the leaf's writer (format/parquet/pq_page_merge.h: levels
 * and value bytes appended to the writer's open page, pages cut at the
 * writer's page limits between input pages, each compressed once; min/max
 * of fixed-width pages from the input's ColumnIndex entries, else from the
 * value bytes); any other chunk of it is decoded into the same writer.
 * The merged chunk is the one the writer makes of the decoded values
 * whenever the input pages' row counts divide the page row limit.
 *
 * A copied chunk: the input chunks' bytes concatenated (each read with one
 * read into memory when its row group joins), every page header walked
 * (bounds, page type v1 or v2 data page, no dictionary-encoded page, value
 * and row counts adding up to the chunk's and row group's: PM_ECORRUPT
 * otherwise).  Recomputed: data_page_offset, total sizes, num_values,
 * encodings (union of the inputs'), encoding stats (counted from the page
 * headers), statistics (null counts summed; min/max merged in the leaf's
 * order from the chunks' min_value/max_value and legacy min/max; a pair an
 * input lacks is left out), size statistics and the page index:
 *   OffsetIndex  from the walked pages (offset, header + compressed size,
 *                first row within the output row group); BYTE_ARRAY value
 *                bytes from the inputs' OffsetIndex (left out, with the
 *                chunk's SizeStatistics value bytes, when one lacks them);
 *   ColumnIndex  per page from the input's ColumnIndex, else from the page
 *                header's statistics (not for FLOAT/DOUBLE, whose NaN pages
 *                writers leave without index); when an input page has neither, the
 *                output chunk gets no ColumnIndex (readers then cannot skip
 *                pages of that chunk; the values are the same).
 *                boundary_order is recomputed over the merged pages.
 * Memory: the copied chunks' compressed bytes and the re-encoded chunks'
 * pages of one output row group (the caller bounds it, pm_pg_group_bytes).
 */
#ifndef PM_COMPACT_PAGE_PASSTHROUGH_H
#define PM_COMPACT_PAGE_PASSTHROUGH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_writer.h"
#include "format/parquet/pq_schema_write.h"
#include "io/fileio.h"
#include "paimon/batch.h"

typedef struct pm_pg_group pm_pg_group;

/* Decoded rows of an input row group: batch column i is top-level field
 * tops[i] of the row type (every re-encoded field). */
typedef pm_error *(*pm_pg_batch_fn)(void *ctx, const pm_batch *b, const uint32_t *tops, size_t n);

typedef struct pm_pg_options {
    const pq_write_schema *ws;        /* the output schema (borrowed) */
    const pm_pq_writer_options *pq;   /* settings of re-encoded chunks (borrowed) */
    pm_codec_ctx *codec;              /* decompression and compression state (borrowed) */
    const bool *force_decode;         /* per top-level field: always re-encoded (NULL: none) */
    pm_pg_batch_fn on_batch;          /* NULL or called for every decoded batch */
    void *ctx;
    double reencode_ratio;            /* sampling threshold (0 = never re-encode for size) */
} pm_pg_options;

/* Whether a file of the output schema can go through page passthrough at
 * all: every leaf flat. */
bool pm_pg_schema_ok(const pq_write_schema *ws);

pm_error *pm_pg_group_new(pm_pg_group **out, const pm_pg_options *o);
void pm_pg_group_free(pm_pg_group *g);
/* Sampling before the first row group: the plain chunks of the first
 * inputs (pm_pg_sample, *done once every column has its sample) have their
 * v1 data pages decompressed, per column about one merged page's bytes
 * (the writer's page row limit at the sampled bytes per value, at most its
 * page size and 256 KiB: zstd's ratio depends on the input's size);
 * pm_pg_sample_decide compresses each column's sample as one page: a
 * column whose pages would
 * shrink to reencode_ratio or less that way (table option
 * compaction.parquet.page-passthrough.reencode-ratio, default 0.9; 0 turns
 * it off) is re-encoded, without dictionary, for the whole task (copying
 * small pages would keep the output markedly larger than a rewrite's). */
pm_error *pm_pg_sample(pm_pg_group *g, pm_input *in, const pm_pq_file_meta *m, bool *done);
pm_error *pm_pg_sample_decide(pm_pg_group *g);
/* The decision shared between groups (the tasks of one compaction,
 * compact/append/append_execute.c): pm_pg_decision_key appends what makes
 * it valid (codec and level, page limits, reencode ratio, leaves and the
 * always re-encoded ones) to `key`; pm_pg_decision_get appends the
 * decided columns (one '1' re-encoded / '0' copied byte per leaf) to
 * `out`, *sampled = whether pm_pg_sample_decide judged any column's
 * sample (else the decision says nothing about the inputs); pm_pg_decision_set takes such bytes instead of sampling. */
pm_error *pm_pg_decision_key(const pm_pg_group *g, pm_buf *key);
pm_error *pm_pg_decision_get(const pm_pg_group *g, pm_buf *out, bool *sampled);
pm_error *pm_pg_decision_set(pm_pg_group *g, const uint8_t *d, size_t n);
/* Whether row group `rg` of a file can join the pending row group. */
bool pm_pg_group_fits(const pm_pg_group *g, const pm_pq_file_meta *m, uint32_t rg);
/* Add row group `rg` of the file open as `in` (footer m, checked by the
 * caller: schema, codec, chunk ranges inside the file). */
pm_error *pm_pg_group_add(pm_pg_group *g, pm_input *in, const pm_pq_file_meta *m, uint32_t rg);
/* Add rows [r0, r1) of a decoded batch (columns in the output's row type
 * order): every leaf of the group is re-encoded.  Only into an empty group
 * or one that copies nothing (pm_pg_group_copies). */
pm_error *pm_pg_group_add_rows(pm_pg_group *g, const pm_batch *b, int64_t r0, int64_t r1);
/* Whether the pending row group copies pages of some leaf. */
bool pm_pg_group_copies(const pm_pg_group *g);
int64_t pm_pg_group_rows(const pm_pg_group *g);
/* Buffered bytes of the pending row group. */
uint64_t pm_pg_group_bytes(const pm_pg_group *g);
/* Write the pending row group at the output's position and describe it in
 * `dst` (strings and arrays from `a`; ordinal left to the caller).  Page
 * indexes are appended to ci / oi, their chunks' offsets relative to those
 * buffers (the caller adds their positions in the file).  The group is
 * empty afterwards. */
pm_error *pm_pg_group_flush(pm_pg_group *g, pm_output *out, pm_arena *a, pq_row_group *dst, pm_buf *ci,
                            pm_buf *oi);
/* Forget the pending row group (after an error). */
void pm_pg_group_reset(pm_pg_group *g);

#endif
