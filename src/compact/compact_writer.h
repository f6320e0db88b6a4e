/*
 * compact/compact_writer.h — the rolling data-file writer of a compaction
 * task: rows of one (partition, bucket) → new data files with
 * `_FILE_SOURCE = COMPACT`.
 *
 * Everything that shapes the output comes from the task (format,
 * compression, target size and row count, level, schema id, first
 * sequence number) or from the options of the task's schema (Parquet page
 * and dictionary settings, statistics modes), never from whatever the table
 * looks like when the worker runs.
 *
 * Rolling (Java's RollingFileWriter, table/rolling_file_writer.h): a file
 * is closed when it holds target_rows rows (exact: a batch is split
 * there), or when, after a batch, its size (written + buffered) reached
 * target_size.  Files are named `<data-file.prefix><uuid>-<n>.<ext>` (one
 * uuid per writer) in the bucket directory.  Sequence numbers continue
 * across files from start_seq, one per row.  Statistics follow
 * table/write_stats.h (Parquet: footer statistics; Avro: collected per
 * row).  Fault points (base/fault.h): writer-open, writer-close.
 *
 * Memory: one open file; Parquet buffers at most one row group, capped at
 * `row_group_limit` bytes.
 */
#ifndef PM_COMPACT_WRITER_H
#define PM_COMPACT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/fileio.h"
#include "meta/data_file_meta.h"
#include "meta/options.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/rolling_file_writer.h"

typedef struct pm_compact_writer pm_compact_writer;

typedef struct pm_compact_writer_options {
    const pm_type *row_type;          /* ROW of the task's schema (borrowed) */
    const pm_options *table_options;  /* options of the task's schema (borrowed) */
    int64_t schema_id;
    const char *dir;                  /* bucket directory */
    const char *format;               /* "parquet" or "avro" */
    const char *compression;
    int64_t target_size;
    int64_t target_rows;
    int32_t level;
    int64_t start_seq;
    int64_t row_group_limit;          /* <= 0: the table's parquet.block.size */
    pm_buf_pool *buffers;             /* spare Parquet page buffers (borrowed, NULL = none): the table's */
} pm_compact_writer_options;

pm_error *pm_compact_writer_new(pm_compact_writer **out, pm_fileio *fio, const pm_compact_writer_options *o);
/* The rolling file writer's settings of a compaction task's outputs (no
 * fault points; strings borrowed from o), shared with the row-group
 * passthrough writer. */
void pm_compact_writer_rolling_options(const pm_compact_writer_options *o, pm_fileio *fio,
                                       pm_rolling_file_writer_options *ro);
/* Append all rows of b (its columns follow row_type). */
pm_error *pm_compact_writer_write(pm_compact_writer *w, const pm_batch *b);
/* Plain-source hints per column of row_type (plain[i]: the rows about to
 * be written come, for column i, from a Parquet chunk without dictionary;
 * NULL clears them): Parquet outputs write such columns PLAIN without a
 * dictionary attempt from the next column chunk on
 * (pm_rolling_file_writer_set_plain_sources).  Values are unchanged. */
pm_error *pm_compact_writer_set_plain_sources(pm_compact_writer *w, const bool *plain);
/* Close the open file and move every closed file's meta out (*files
 * malloc'd, free with pm_data_file_metas_free).  The files stay on disk. */
pm_error *pm_compact_writer_finish(pm_compact_writer *w, pm_data_file_meta **files, size_t *n);
/* The sequence number of the next row; set it only while no file is open
 * (after finish). */
int64_t pm_compact_writer_next_seq(const pm_compact_writer *w);
void pm_compact_writer_set_next_seq(pm_compact_writer *w, int64_t seq);
/* Bytes of closed files so far. */
int64_t pm_compact_writer_bytes(const pm_compact_writer *w);
/* Delete every file this writer created and not handed out, then free. */
void pm_compact_writer_abort(pm_compact_writer *w);
/* Free (files already handed out stay). */
void pm_compact_writer_free(pm_compact_writer *w);

#endif
