/*
 * format/orc/orc_write_column.h — the column writers behind the ORC
 * writer, one per ORC column, as orc-core's TreeWriters encode.
 *
 * Streams and values per ORC type (RLE: v2 for file version 0.12, v1 for
 * 0.11; integers signed unless noted):
 *   every column   PRESENT: one boolean per row of the column (1 = value)
 *   boolean        DATA booleans                  tinyint  DATA byte RLE
 *   smallint/int/bigint/date  DATA integers
 *   float/double   DATA IEEE little endian        binary   DATA + LENGTH (unsigned)
 *   string/char/varchar  dictionary (DICTIONARY_V2): DATA ids (unsigned),
 *                  DICTIONARY_DATA sorted keys, LENGTH key lengths; or
 *                  direct: DATA bytes, LENGTH (unsigned); char values are
 *                  padded with spaces or cut to their length in
 *                  characters, varchar values cut to theirs
 *   decimal        DATA zig-zag varints of the value without trailing
 *                  fraction zeros, SECONDARY its scale (HiveDecimal's form)
 *   timestamp(_instant)  DATA seconds since 2015-01-01 00:00:00 UTC, the
 *                  epoch second truncated toward zero as Java's
 *                  millis / 1000; SECONDARY nanos with trailing zeros
 *                  folded (n << 3 | z).  (So, in every ORC implementation,
 *                  a value in (-1 s, 0) with a millisecond part reads back
 *                  one second late.)
 *   list/map       LENGTH element counts (unsigned); children
 *   struct         children, which see only the struct's non-null rows
 * Dictionary or direct (StringTreeWriter): values collect in a dictionary
 * until the first row index entry (or the first stripe's end); then, once
 * for the whole file, the column stays dictionary-encoded when distinct
 * keys / values <= orc.dictionary.key.threshold, else it switches to
 * direct (threshold 0: direct from the start; file version 0.11: always
 * dictionary).
 * List/map statistics record Java's column vector capacity per write of a
 * slice (see orc_stats.h): the writer tracks the capacities Paimon's
 * vectorizer would grow (prescan) over each of Java's batches.
 * Row index positions of a column, per entry, in stream order: PRESENT
 * (chunk, offset in chunk, run values, bits), then its streams'; each
 * stream contributes (chunk start, offset) with a codec, (offset)
 * without, and an RLE its buffered values.
 */
#ifndef PM_ORC_WRITE_COLUMN_H
#define PM_ORC_WRITE_COLUMN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/orc/orc_meta.h"
#include "format/orc/orc_stats.h"
#include "format/orc/orc_stream.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct pm_column pm_column;

typedef struct orc_wctx {
    const orc_codec *data_codec;   /* DATA and DICTIONARY_DATA streams */
    const orc_codec *aux_codec;    /* PRESENT, LENGTH, SECONDARY, ROW_INDEX */
    int rle_version;               /* 1 or 2 */
    bool aligned;                  /* encoding strategy SPEED */
    bool build_index;
    bool early_check;              /* orc.dictionary.early.check */
    int64_t batch_size;            /* Java's vectorized batch (write.batch-size) */
} orc_wctx;

typedef struct orc_cw orc_cw;

/* Writer of column `id` of `types` (pre-order, orc_schema_from_paimon),
 * writing values of ptypes[id]; thresholds[id] is its dictionary key
 * threshold.  Children are created recursively. */
pm_error *orc_cw_new(orc_cw **out, uint32_t id, const orc_type *types, const pm_type *const *ptypes,
                     const double *thresholds, const orc_wctx *ctx);
void orc_cw_free(orc_cw *w);
/* Column writers by id (the tree flattened; `all` has ntypes entries). */
void orc_cw_collect(orc_cw *w, orc_cw **all);

/* Rows [start, start + len) of `col` (the writer's Paimon type). */
pm_error *orc_cw_write(orc_cw *w, const pm_column *col, int64_t start, int64_t len);
/* Root only: a new Java vectorized batch starts (capacities, counts). */
void orc_cw_batch_start(orc_cw *w);
/* Root only: rows [start, start + len) of `b` join the current Java
 * batch: grow the vector capacities orc-core records as list/map
 * statistics (exact when a Java batch lies within one pm_batch). */
typedef struct pm_batch pm_batch;
void orc_cw_prescan_root(orc_cw *w, const pm_batch *b, int64_t start, int64_t len);
/* Root only: rows [start, start + len) of every column of `b`. */
pm_error *orc_cw_write_root(orc_cw *w, const pm_batch *b, int64_t start, int64_t len);
/* Close the current row index entry of this column and its children. */
pm_error *orc_cw_index_entry(orc_cw *w);
/* Flush encoders and streams at the end of a stripe (recursive). */
pm_error *orc_cw_flush(orc_cw *w);
/* Finish the stripe for this column only (children not included):
 * suppress an empty PRESENT / unused dictionary, record the data streams'
 * size as the stripe's bytes on disk, merge into the file statistics,
 * serialize the stripe statistics into `stats` and the row index
 * (RowIndex message, compressed) into the column's index stream. */
pm_error *orc_cw_finish_stripe(orc_cw *w, uint32_t required_entries, pm_buf *stats);
/* After finish: the column's encoding for the stripe footer. */
void orc_cw_encoding(const orc_cw *w, orc_encoding *e, bool *dictionary);
/* After finish: the bytes of stream `kind` (NULL when absent or suppressed). */
const pm_buf *orc_cw_stream(const orc_cw *w, uint32_t kind);
/* Data-area bytes of the column in the stripe (after suppression). */
uint64_t orc_cw_data_bytes(const orc_cw *w);
/* Start the next stripe (streams emptied, positions restarted). */
pm_error *orc_cw_next_stripe(orc_cw *w);
/* Buffered bytes (orc-core's estimateMemory; recursive). */
uint64_t orc_cw_estimate(const orc_cw *w);
/* File statistics of this column. */
orc_stats_acc *orc_cw_file_stats(orc_cw *w);

#endif
