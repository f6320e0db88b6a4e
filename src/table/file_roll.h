/*
 * table/file_roll.h — the steps the rolling data-file writers share:
 * the append writer (table_write.c), the key-value writer
 * (pk_file_writer.c) and the compaction writers (compact/compact_writer.c,
 * compact/compact_passthrough.c).
 *
 *  - the Avro codec of data files from the table options;
 *  - slicing input: copy a row range into a scratch batch, and the raw
 *    buffered size of a batch used to plan roll checks;
 *  - closing a file: finish its Parquet or Avro writer and close the output;
 *  - its DataFileMeta: value stats per field (Avro accumulators or Parquet
 *    footer statistics), the empty key of append files, the creation time,
 *    delete count and file source every writer sets, and appending the meta
 *    to the writer's list of finished files.
 * Nothing here owns state; ownership is stated per function.
 */
#ifndef PM_TABLE_FILE_ROLL_H
#define PM_TABLE_FILE_ROLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/avro/avro.h"
#include "format/parquet/parquet_writer.h"
#include "meta/data_file_meta.h"
#include "meta/options.h"
#include "paimon/batch.h"
#include "table/write_stats.h"

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

/* Finish a file: with *pq set, close the Parquet writer into *res (the
 * caller frees it with pm_pq_write_result_free) and *size = its file
 * size; else finish `avro` (still owned by the caller) and *size = the
 * output position.  Then close *out.  *pq is always consumed (set to
 * NULL); *out is consumed once the format writer finished, else it is
 * left for the caller to abort.  On error the file is not complete. */
pm_error *pm_roll_close_format(pm_pq_writer **pq, pm_avro_writer *avro, pm_output **out,
                               pm_pq_write_result *res, uint64_t *size);

/* Column statistics of the fields of `type` (a ROW): none when
 * `disabled`, else from accs[i] (Avro) when accs is set, else from the
 * Parquet result with modes[i].  *out is an array of type->nfields (at
 * least one) entries that the caller clears (pm_col_stats_clear) and frees. */
pm_error *pm_roll_col_stats(const pm_type *type, const pm_stats_mode *modes, bool disabled, pm_stats_accum *accs,
                            const pm_pq_write_result *res, pm_col_stats **out);

/* Append-table keys: min and max key = the empty BinaryRow, empty key stats. */
pm_error *pm_roll_empty_keys(pm_data_file_meta *m);

/* creation time = now (local wall clock), delete row count, file source. */
void pm_roll_stamp(pm_data_file_meta *m, int64_t deletes, pm_file_source source);

/* Moves *m to the end of (*arr, *n, *cap) (grown by doubling from 4). */
pm_error *pm_roll_push_file(pm_data_file_meta **arr, size_t *n, size_t *cap, const pm_data_file_meta *m);

#endif
