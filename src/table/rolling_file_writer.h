/*
 * table/rolling_file_writer.h — the one rolling data-file writer (Paimon's
 * RollingFileWriter) under every writer of data files: the append writer
 * (table_write.c), the key-value and changelog writer (pk_file_writer.c)
 * and the compaction writers (compact/compact_writer.c, the row-group copy
 * of compact/compact_passthrough.c).
 *
 * One writer writes the files of one directory (a bucket) in sequence:
 *  - open: the next name from the data-file namer (`<data-file.prefix>`, or
 *    `<changelog-file.prefix>` for changelog files), the output created
 *    never overwriting, then the format writer: Parquet (settings from the
 *    options, the codec from `compression` when the caller overrides it;
 *    row groups capped at row_group_limit and, when files share a write
 *    buffer, at shared_buffer / (open files + 1), at least 4 MiB), ORC
 *    (orc.* options, file.block-size as the stripe size, the same
 *    compression override) or Avro (codec: avro.codec, else the
 *    compression; one statistics accumulator per column) — or, for a raw
 *    body, the caller's header (the passthrough copy of Parquet row
 *    groups).
 *  - write: rows go to the open file; a file takes at most target_rows
 *    rows (a batch is split exactly there).  The size check follows Java:
 *    PM_ROLL_CHECK_RECORDS checks after every 1000th record of the writer
 *    (RollingFileWriterImpl.write: rows are handed over in slices that end
 *    at those check points while a roll is possible, whole batches far
 *    from the target); PM_ROLL_CHECK_WRITE after every batch (writeBundle).
 *    The size is Parquet's written + buffered bytes, ORC's written + 0.2 x
 *    buffered bytes (Paimon's OrcBulkWriter estimate), Avro's flushed bytes
 *    (plus the unflushed block with avro_size_buffered), a raw body's
 *    output position.  Slices are zero-copy views where the columns allow
 *    (flat columns, a start row that is a multiple of 8), else copies.
 *  - close: format footer, output synced and closed; the DataFileMeta:
 *    name, size, rows, keys (append layout: the empty BinaryRow and empty
 *    key stats; key-value layout: _MIN/_MAX_KEY of the first / last row
 *    and key stats of the key columns), value stats per table/write_stats.h
 *    (Parquet footer statistics, ORC file statistics, Avro accumulators, or the raw body's
 *    statistics; NONE for every field when stats are disabled; dense store
 *    per option), sequence numbers (append layout: a counter, one per row,
 *    min = first row's, max = last row's; key-value layout: min / max of
 *    the _SEQUENCE_NUMBER column), delete rows (key-value: rows of kind -U
 *    or -D; else 0), schema id, level, creation time (local wall clock),
 *    file source.  The meta joins the list of finished files.
 *    File indexes (file_index: index/file_index.h, over the value fields,
 *    fed with every row written, raw bodies through raw_index): at close
 *    the index goes into _EMBEDDED_FILE_INDEX when it has at most
 *    file-index.in-manifest-threshold bytes, else into `<file>.index`
 *    beside the file (created, never overwritten, synced), listed in
 *    _EXTRA_FILES.
 *  - finish hands the finished files out; abort deletes the open file and
 *    every finished file not handed out (their index sidecars too).  A
 *    failure while closing deletes that file and its sidecar.  A failed write leaves the file open (the caller aborts, or
 *    discards the open file).
 * Key-value layout (pm_rolling_kv_layout): input batches hold
 * [_KEY_* (nkey), _SEQUENCE_NUMBER, _VALUE_KIND, values]; the file holds the
 * input columns from file_offset on (thin mode: without the keys).
 * Fault points (base/fault.h) may be named for open and close.
 */
#ifndef PM_TABLE_ROLLING_FILE_WRITER_H
#define PM_TABLE_ROLLING_FILE_WRITER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pool.h"
#include "format/avro/avro.h"
#include "format/orc/orc_writer.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "meta/data_file_meta.h"
#include "meta/options.h"
#include "paimon/batch.h"
#include "table/write_stats.h"

/* ------------------------------------------------------------------ */
/* the writer                                                          */

typedef enum pm_roll_check {
    PM_ROLL_CHECK_RECORDS, /* size checked after every 1000th record */
    PM_ROLL_CHECK_WRITE    /* size checked after every batch */
} pm_roll_check;

/* Key-value files: the layout of the input batches (see top). */
typedef struct pm_rolling_kv_layout {
    size_t nkey;              /* key columns [0, nkey); seq = nkey, kind = nkey + 1 */
    const pm_type *key_type;  /* ROW of the key fields (key stats), borrowed */
    const size_t *key_stat;   /* per key field: the file column its stats come from */
    size_t file_offset;       /* first input column the file holds */
} pm_rolling_kv_layout;

/* A body the caller writes itself (raw bytes, e.g. copied row groups). */
typedef struct pm_rolling_raw_body {
    void *ctx;
    /* The output was created: write the header. */
    pm_error *(*open)(void *ctx, pm_output *out);
    /* Write the footer and fill `stats` (ncolumns = fields of file_type,
     * a malloc'd stats array whose byte values stay valid until the next
     * open or discard); the writer frees the array. */
    pm_error *(*finish)(void *ctx, pm_output *out, pm_pq_write_result *stats);
    /* Forget the open file's state (the output is gone). */
    void (*discard)(void *ctx);
} pm_rolling_raw_body;

typedef struct pm_rolling_file_writer_options {
    pm_fileio *fio;
    const char *dir;               /* the files' directory (copied) */
    const pm_type *file_type;      /* ROW of the file's columns (borrowed) */
    const pm_options *options;     /* stats modes, dense store, Parquet settings, Avro codec, names */
    const char *format;            /* "parquet" or "avro" (ignored with a raw body) */
    const char *compression;       /* the files' compression (names; see compression_override) */
    bool compression_override;     /* `compression` replaces file.compression for the format settings */
    int64_t target_size;           /* > 0 */
    int64_t target_rows;           /* > 0 */
    pm_roll_check check;
    bool avro_size_buffered;       /* Avro size = flushed bytes + the unflushed block */
    int64_t row_group_limit;       /* > 0: cap of Parquet row groups */
    int64_t shared_buffer;         /* > 0: files counted in open_files share this many bytes */
    atomic_size_t *open_files;     /* open files of the writers sharing the buffer (may be NULL) */
    bool changelog;                /* changelog file names */
    int64_t schema_id;
    int32_t level;
    pm_file_source source;
    int64_t start_seq;             /* append layout: the first row's sequence number */
    const pm_type *value_type;     /* ROW of the value fields (NULL = file_type) */
    size_t value_offset;           /* file column of the first value field */
    const pm_rolling_kv_layout *kv;    /* NULL: append layout (copied) */
    const pm_rolling_raw_body *raw;    /* NULL: the Parquet / Avro format writer (copied) */
    bool file_index;               /* data files: the table's file indexes (file-index.* of `options`)
                                      over the value fields (not for changelog files) */
    const char *fault_open, *fault_close; /* fault points (base/fault.h), NULL = none */
    const char *what;              /* the files in messages: "data file" (default), ... */
    pm_buf_pool *buffers;          /* Parquet: spare page buffers shared across writers (borrowed, NULL = none) */
} pm_rolling_file_writer_options;

typedef struct pm_rolling_file_writer pm_rolling_file_writer;

/* Nothing is created on disk until the first row.  Unsupported formats
 * are PM_EUNSUPPORTED; bad sizes PM_EINVALID. */
pm_error *pm_rolling_file_writer_new(pm_rolling_file_writer **out, const pm_rolling_file_writer_options *o);
/* Append the rows of b (columns in the input layout: the file's, or the
 * key-value layout); b's type is not looked at. */
pm_error *pm_rolling_file_writer_write(pm_rolling_file_writer *w, const pm_batch *b);
/* Raw body: make a file ready to take `rows` more rows (the open one is
 * closed first when they would pass target_rows) and give its output. */
pm_error *pm_rolling_file_writer_raw_begin(pm_rolling_file_writer *w, int64_t rows, pm_output **out);
/* Does the writer build file indexes? */
bool pm_rolling_file_writer_has_index(const pm_rolling_file_writer *w);
/* Raw body: the value columns (value_type's) of rows [from, to) about to
 * be written raw, for the open file's index. */
pm_error *pm_rolling_file_writer_raw_index(pm_rolling_file_writer *w, pm_column *const *cols, int64_t from,
                                           int64_t to);
/* Raw body: `rows` rows were written; the file closes when it reached the
 * target size (output position) or row count. */
pm_error *pm_rolling_file_writer_raw_end(pm_rolling_file_writer *w, int64_t rows);
/* Delete the open file (its rows are lost); the writer goes on. */
void pm_rolling_file_writer_discard_open(pm_rolling_file_writer *w);
/* Close the open file, if any (its meta joins the finished files). */
pm_error *pm_rolling_file_writer_close_file(pm_rolling_file_writer *w);
/* Close the open file and move the finished files out (*files malloc'd,
 * free with pm_data_file_metas_free; NULL and 0 when none).  The writer
 * can go on writing. */
pm_error *pm_rolling_file_writer_finish(pm_rolling_file_writer *w, pm_data_file_meta **files, size_t *n);
/* Parquet files: encode columns on `pool` with `threads` (NULL: serial),
 * for writes from now on. */
void pm_rolling_file_writer_set_pool(pm_rolling_file_writer *w, pm_pool *pool, size_t threads);
/* Parquet files: plain-source hints per file column (plain[i] for file
 * column i; NULL clears them), copied, for writes from now on
 * (pm_pq_writer_set_plain_sources).  Other formats ignore them (a hint,
 * never changing values).  PM_ENOMEM only. */
pm_error *pm_rolling_file_writer_set_plain_sources(pm_rolling_file_writer *w, const bool *plain);
bool pm_rolling_file_writer_is_open(const pm_rolling_file_writer *w);
/* Parquet files: offer the open file's column `col` (of file_type) an
 * input page as its next `rows` rows (pm_pq_writer_offer_page; *taken =
 * false for other formats); without an open file the next one opens (the
 * caller writes the rows next); an offer ends with the file.
 * Cancel every offer before writing rows that are not the offered pages'. */
pm_error *pm_rolling_file_writer_offer_page(pm_rolling_file_writer *w, size_t col, const pq_schema_element *elem,
                                           const uint8_t *page, size_t len, pm_codec_id codec, int64_t rows,
                                           const pq_page_facts *facts, bool *taken);
pm_error *pm_rolling_file_writer_cancel_pages(pm_rolling_file_writer *w);
/* Offered pages copied into the files so far (closed and open); of them
 * offered lazily (facts given: pm_pq_writer_offer_lazy). */
int64_t pm_rolling_file_writer_pages_copied(const pm_rolling_file_writer *w);
int64_t pm_rolling_file_writer_pages_lazy(const pm_rolling_file_writer *w);
/* Finished files not handed out yet. */
size_t pm_rolling_file_writer_pending(const pm_rolling_file_writer *w);
/* The i-th of them, in the order they were closed (NULL past the end;
 * valid until the next finish). */
const pm_data_file_meta *pm_rolling_file_writer_pending_file(const pm_rolling_file_writer *w, size_t i);
/* Rows written so far (all files). */
int64_t pm_rolling_file_writer_rows(const pm_rolling_file_writer *w);
/* Bytes of the files closed so far. */
int64_t pm_rolling_file_writer_bytes(const pm_rolling_file_writer *w);
/* Append layout: the next row's sequence number; set it only while no
 * file is open. */
int64_t pm_rolling_file_writer_next_seq(const pm_rolling_file_writer *w);
void pm_rolling_file_writer_set_next_seq(pm_rolling_file_writer *w, int64_t seq);
/* Delete every file not handed out (the open one too), then free. */
void pm_rolling_file_writer_abort(pm_rolling_file_writer *w);
/* Free (finished files not handed out stay on disk). */
void pm_rolling_file_writer_free(pm_rolling_file_writer *w);

/* ------------------------------------------------------------------ */
/* the steps (exported for the writers around it and for tests)        */

/* Avro data-file codec: `avro.codec` when set (null, deflate, snappy,
 * zstandard at level 3), else `compression` (NULL = the table's
 * file.compression): zstd at file.compression.zstd-level, or a codec name
 * above; none / uncompressed mean null.  Anything else is PM_EUNSUPPORTED
 * naming the option. */
pm_error *pm_roll_avro_codec(const pm_options *o, const char *compression, pm_avro_write_options *out);

/* Rows [from, to) of b copied into dst (reset first; same columns). */
pm_error *pm_roll_copy_range(pm_batch *dst, const pm_batch *b, int64_t from, int64_t to);

/* Bytes buffered by b's columns (values, data, offsets, validity; values
 * and data of direct children): the writers' estimate of a batch's size. */
uint64_t pm_roll_raw_bytes(const pm_batch *b);

/* Zero-copy row ranges: every column flat (no children, not nested). */
bool pm_roll_viewable(const pm_batch *b);
/* A view of rows [from, from + n) of a viewable b (from a multiple of 8):
 * the columns share b's buffers (cols[i] are the view columns, ptrs their
 * addresses; both hold b->ncolumns entries).  Views are never freed
 * through the column API and live as long as b's buffers. */
void pm_roll_batch_view(pm_batch *v, pm_column *cols, pm_column **ptrs, const pm_batch *b, int64_t from, int64_t n);

/* Column statistics of the fields of `type` (a ROW): none when
 * `disabled`, else from accs[i] (Avro) when accs is set, else from the
 * ORC result when `orc` is set, else from the Parquet result, with
 * modes[i].  *out is an array of type->nfields (at
 * least one) entries that the caller clears (pm_col_stats_clear) and frees. */
pm_error *pm_roll_col_stats(const pm_type *type, const pm_stats_mode *modes, bool disabled, pm_stats_accum *accs,
                            const pm_pq_write_result *res, const pm_orc_write_result *orc, pm_col_stats **out);

/* Append-table keys: min and max key = the empty BinaryRow, empty key stats. */
pm_error *pm_roll_empty_keys(pm_data_file_meta *m);

/* creation time = now (local wall clock), delete row count, file source. */
void pm_roll_stamp(pm_data_file_meta *m, int64_t deletes, pm_file_source source);

/* Moves *m to the end of (*arr, *n, *cap) (grown by doubling from 4). */
pm_error *pm_roll_push_file(pm_data_file_meta **arr, size_t *n, size_t *cap, const pm_data_file_meta *m);

#endif
