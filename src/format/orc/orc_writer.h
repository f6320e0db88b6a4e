/*
 * format/orc/orc_writer.h — writes pm_batch rows to one ORC file the way
 * Apache Paimon 1.4 (orc-core 1.9.2 with Paimon's patched writer and
 * zstd-jni) writes them.
 *
 * File layout:
 *   "ORC"
 *   stripe*: index streams (ROW_INDEX per column) | data streams |
 *            StripeFooter (stream directory, column encodings, writer
 *            time zone "UTC" when the schema has a timestamp column)
 *   Metadata (stripe statistics) | Footer (stripes, types with paimon.id
 *   attributes, user metadata sorted by name, row count, file
 *   statistics, row index stride, writer 0 = ORC Java, calendar
 *   Julian-Gregorian, software version) | PostScript (lengths, codec,
 *   block size, version 0.12, writer version 9 = ORC-14, "ORC") | u8 length
 * Streams inside a stripe are ordered by area (index first), column id,
 * stream kind; a PRESENT stream is left out when its column had no null
 * in the stripe (its row index positions too), DICTIONARY_DATA when the
 * column is direct.  Encodings are RLE v2 (DIRECT_V2, DICTIONARY_V2) for
 * file version 0.12, RLE v1 for 0.11.  Schema mapping: orc_schema.h;
 * value encodings: orc_write_column.h; statistics: orc_stats.h.
 *
 * Steps of a write (orc-core's WriterImpl, row for row):
 *   - rows go to the column writers in slices cut at row index strides
 *     (orc.row.index.stride rows: every column closes a row index entry:
 *     its positions in each stream and the group's statistics) and at
 *     Java's vectorized batch size (write.batch-size, 1024);
 *   - after each batch, once orc.rows.between.memory.checks rows (at most
 *     orc.stripe.row.count) have been added since the last check, the
 *     stripe is flushed when the estimated buffered bytes exceed
 *     orc.stripe.size or it holds orc.stripe.row.count rows (the estimate
 *     follows orc-core's buffer accounting; it is not byte-exact, so very
 *     large files may cut stripes a check earlier or later than Java);
 *   - a stripe that would cross an orc.block.size boundary is preceded by
 *     zero padding when that costs at most orc.block.padding.tolerance x
 *     stripe size bytes (orc.block.padding);
 *   - close flushes the last stripe and writes the tail.
 * Memory is bounded by one stripe's encoded streams (plus dictionaries).
 *
 * The writer does not own the pm_output: after pm_orc_writer_close the
 * caller closes (or, after an error or pm_orc_writer_abort, aborts) it.
 * One writer is used by one thread at a time.
 */
#ifndef PM_ORC_WRITER_H
#define PM_ORC_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/orc/orc_stats.h"
#include "io/fileio.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct pm_orc_kv {
    const char *key;
    const uint8_t *value;
    size_t len;
} pm_orc_kv;

typedef struct pm_orc_writer_options {
    uint32_t compression;         /* orc_compression; Paimon's file.compression default: ZSTD */
    int zstd_level;               /* orc.compression.zstd.level (file.compression.zstd-level), default 1 */
    int64_t stripe_size;          /* orc.stripe.size (file.block-size), default 64 MiB */
    int64_t stripe_row_count;     /* orc.stripe.row.count, default 2^31 - 1 */
    int64_t block_size;           /* orc.block.size, default 256 MiB */
    bool block_padding;           /* orc.block.padding, default true */
    double padding_tolerance;     /* orc.block.padding.tolerance, default 0.05 */
    int32_t row_index_stride;     /* orc.row.index.stride, default 10,000 (0 = no index) */
    int32_t buffer_size;          /* orc.compress.size, default 256 KiB */
    bool enforce_buffer_size;     /* orc.buffer.size.enforce, default false */
    double dictionary_threshold;  /* orc.dictionary.key.threshold, default 0.8 */
    bool dictionary_early_check;  /* orc.dictionary.early.check, default true */
    const char *const *direct_columns; /* orc.column.encoding.direct (field names), borrowed */
    size_t ndirect_columns;
    int file_version;             /* orc.write.format: 11 or 12 (default 12) */
    bool encoding_speed;          /* orc.encoding.strategy SPEED (default) vs COMPRESSION */
    bool compression_speed;       /* orc.compression.strategy SPEED (default) vs COMPRESSION */
    int64_t rows_between_checks;  /* orc.rows.between.memory.checks, default 5000 */
    int32_t batch_size;           /* write.batch-size, default 1024 */
    const char *software_version; /* NULL = "paimon-c <version>" */
    const pm_orc_kv *user_metadata; /* borrowed until close */
    size_t nuser_metadata;
} pm_orc_writer_options;

/* Defaults of Paimon 1.4's ORC writer. */
void pm_orc_writer_options_default(pm_orc_writer_options *o);

/* Value of a table option, or NULL when unset. */
typedef const char *(*pm_orc_option_lookup)(void *ctx, const char *key);

/*
 * Fill `o` (start from defaults) from table options as Paimon passes them:
 *   orc.compress, else file.compression      none/zlib/snappy/lz4/zstd
 *                                            (lzo, brotli, gzip: PM_EUNSUPPORTED)
 *   orc.compression.zstd.level, else file.compression.zstd-level
 *   orc.compression.zstd.windowlog           0 only (else PM_EUNSUPPORTED)
 *   orc.stripe.size (overridden by `block_size_bytes` >= 0: Paimon's
 *     file.block-size, a MemorySize the caller resolves with meta's parser)
 *   orc.stripe.row.count, orc.block.size, orc.block.padding,
 *   orc.block.padding.tolerance, orc.row.index.stride, orc.compress.size,
 *   orc.buffer.size.enforce, orc.dictionary.key.threshold,
 *   orc.dictionary.early.check, orc.column.encoding.direct (comma list,
 *   copied into `names`, which the caller frees with free()),
 *   orc.write.format (0.11 / 0.12), orc.encoding.strategy,
 *   orc.compression.strategy, orc.rows.between.memory.checks,
 *   write.batch-size
 *   orc.create.index: accepted and, as in Paimon's orc-core, without
 *     effect (orc.row.index.stride 0 turns indexes off)
 *   orc.bloom.filter.columns (non-empty), orc.encrypt, orc.mask,
 *   orc.proleptic.gregorian=true: PM_EUNSUPPORTED
 * Numbers are parsed as Java's Long/Integer/Double.parseXxx and booleans as
 * Boolean.parseBoolean.  Errors are PM_EINVALID naming the option and value.
 */
pm_error *pm_orc_writer_options_from_table(pm_orc_writer_options *o, pm_orc_option_lookup lookup, void *ctx,
                                           int64_t block_size_bytes, char **names);

/* Merged statistics of one top-level field: Paimon's view (orc_stats.h)
 * of the file statistics. */
typedef struct pm_orc_write_result {
    uint64_t file_size;
    int64_t row_count;
    uint32_t nstripes;
    size_t ncolumns;              /* top-level fields */
    pm_orc_field_stats *stats;    /* ncolumns entries; byte values owned by `owned` */
    void *owned;
} pm_orc_write_result;

void pm_orc_write_result_free(pm_orc_write_result *r);

typedef struct pm_orc_writer pm_orc_writer;

/* New writer for rows of `row_type` (a ROW, cloned) appending to `out`
 * (borrowed until close/abort).  Writes the leading magic. */
pm_error *pm_orc_writer_new(pm_orc_writer **w, pm_output *out, const pm_type *row_type,
                            const pm_orc_writer_options *opts);
/* Append all rows of the batch (its type must match the writer's,
 * nullability aside).  A batch of the wrong shape, or with a null in a
 * NOT NULL top-level field, is PM_EINVALID and nothing of it is written;
 * a failure while encoding fails the writer (further calls error; abort). */
pm_error *pm_orc_writer_write(pm_orc_writer *w, const pm_batch *b);
/* Paimon's rolling estimate: bytes written + 0.2 x buffered bytes. */
uint64_t pm_orc_writer_estimated_size(const pm_orc_writer *w);
int64_t pm_orc_writer_num_rows(const pm_orc_writer *w);
/* Flush the last stripe, write the tail and free the writer (also on
 * error).  `res` may be NULL. */
pm_error *pm_orc_writer_close(pm_orc_writer *w, pm_orc_write_result *res);
/* Free the writer without finishing the file.  NULL is fine. */
void pm_orc_writer_abort(pm_orc_writer *w);

#endif
