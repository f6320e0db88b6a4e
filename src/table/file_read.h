/*
 * table/file_read.h — read one data file of a table as batches in a
 * requested row type of the CURRENT schema.  CONTRACT (file_read.c).
 *
 * Schema evolution by field id: the file was written with schema
 * `file->schema_id`; each requested field is found in that schema by id,
 * read from the file by that schema's field name, and cast if its type was
 * widened (INT→BIGINT, FLOAT→DOUBLE, …, as Paimon's CastExecutors allow; an
 * impossible cast is PM_EUNSUPPORTED naming the field).  Fields added after
 * the file was written read as null.  `_WRITE_COLS` (files holding a subset
 * of columns) is honored; the row-tracking fields `_ROW_ID` and
 * `_SEQUENCE_NUMBER` (requested by their reserved ids) are read where the
 * file lists them in `_WRITE_COLS` and are null otherwise (the caller
 * derives them: table/de_read.h).  Format chosen by file extension (.parquet,
 * .avro, .orc).  Primary-key (KeyValue) files: the
 * physical layout is [_KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND, values...];
 * the reader can expose the system columns on request (pm_file_read_options
 * .with_system_columns) for merge-on-read and compaction.
 *
 * Batches are owned by the reader and valid until the next call.
 */
#ifndef PM_TABLE_FILE_READ_H
#define PM_TABLE_FILE_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "io/fileio.h"
#include "meta/data_file_meta.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/table_internal.h"

typedef struct pm_file_reader pm_file_reader;

typedef struct pm_file_read_options {
    const pm_type *read_type;   /* ROW: fields of the table's latest schema (ids matter) */
    int64_t batch_rows;         /* 0 = 4096 */
    bool with_system_columns;   /* PK files: prepend _SEQUENCE_NUMBER BIGINT, _VALUE_KIND TINYINT */
    /* Decompression state shared by the files a caller reads one after
     * another on one thread (Parquet, ORC; borrowed, must outlive the
     * reader).  NULL = each reader creates its own. */
    pm_codec_ctx *codec;
} pm_file_read_options;

/* `bucket_dir` is the directory of the file (partition + bucket path);
 * file->external_path wins when set. */
pm_error *pm_file_reader_open(pm_file_reader **out, pm_table *t, const char *bucket_dir,
                              const pm_data_file_meta *file, const pm_file_read_options *o);
/* pm_file_reader_open with dictionary passthrough: the requested
 * CHAR/VARCHAR fields named in dict_columns that a Parquet file returns
 * dictionary-encoded where the file allows it (types/column.h;
 * pm_pq_reader_options.dict_columns; only fields needing no
 * schema-evolution cast); every other field and format reads plain. */
pm_error *pm_file_reader_open_dict(pm_file_reader **out, pm_table *t, const char *bucket_dir,
                                   const pm_data_file_meta *file, const pm_file_read_options *o,
                                   const char *const *dict_columns, size_t ndict_columns);
/* The next file of a series with the same options and dictionary columns
 * (one reader for many files, e.g. a compaction's inputs): *r, NULL or a
 * reader opened for an earlier file, is reused when the new file has the
 * same schema id and format and neither holds a column subset
 * (_WRITE_COLS): its column plan, batch and work columns stay, only the
 * file and its format reader change (a Parquet reader hands its buffers
 * to the next file's, pm_pq_reader_options.recycle); else it is freed and
 * a new reader opened.  On error *r is freed and set to NULL. */
pm_error *pm_file_reader_reopen(pm_file_reader **r, pm_table *t, const char *bucket_dir,
                                const pm_data_file_meta *file, const pm_file_read_options *o,
                                const char *const *dict_columns, size_t ndict_columns);
/* Whether output column i is read, without a cast, from a Parquet column
 * written without a dictionary (pm_pq_reader_column_no_dict; compaction
 * hands it to its writer as a plain-source hint).  False for other
 * formats, null-filled and cast columns. */
bool pm_file_reader_column_no_dict(const pm_file_reader *r, size_t i);
/* Whether output column i is read, without a cast, from the flat leaf
 * *leaf (its index among the footer's column chunks) of a Parquet file:
 * *in and *meta the file's input and footer (owned by the reader; page
 * copies of compaction, compact/pk/pk_page_copy.h). */
bool pm_file_reader_parquet_leaf(const pm_file_reader *r, size_t i, uint32_t *leaf, pm_input **in,
                                 const pm_pq_file_meta **meta);
/* Parquet files: data pages decompressed and decoded so far, and those
 * passed over by their headers (pm_pq_reader_page_counts; 0 for other
 * formats). */
void pm_file_reader_page_counts(const pm_file_reader *r, uint64_t *loaded, uint64_t *skipped);
/* *out = NULL at end of file. */
pm_error *pm_file_reader_next(pm_file_reader *r, const pm_batch **out);
/* Pass over the next `rows` rows of the file (*skipped of them; fewer only
 * at its end) as if read and dropped: Parquet data pages wholly inside
 * the stretch are not decompressed (pm_pq_reader_skip).  Positions count
 * the skipped rows.  PM_EUNSUPPORTED for ORC and Avro files
 * (pm_file_reader_can_skip tells first). */
pm_error *pm_file_reader_skip(pm_file_reader *r, int64_t rows, int64_t *skipped);
bool pm_file_reader_can_skip(const pm_file_reader *r);
/* Bytes the reader holds besides its batches (pm_pq_reader_memory for
 * Parquet files: windows, decompressed pages, levels, dictionaries; ORC
 * and Avro readers are not measured and count only their scratch). */
size_t pm_file_reader_memory(const pm_file_reader *r);
/* Row position (in the file) of the first row of the last batch returned. */
int64_t pm_file_reader_position(const pm_file_reader *r);
void pm_file_reader_free(pm_file_reader *r);

#endif
