/*
 * table/pk_file_writer.h — rolling writer of KeyValue data (or changelog)
 * files for one (partition, bucket) of a primary-key table, producing the
 * DataFileMeta Java's KeyValueDataFileWriter produces.  Used by the write
 * path (level-0 flushes) and by compaction (rewrites at a level).
 *
 * Physical layout of every row handed in (spec §1.1), the "KV type":
 *   _KEY_<k1> .. _KEY_<kn>   trimmed primary key (PK minus partition keys),
 *                            field id + 1073741823, type NOT NULL
 *   _SEQUENCE_NUMBER         BIGINT NOT NULL, id 2147483646
 *   _VALUE_KIND              TINYINT NOT NULL, id 2147483645 (+I 0 -U 1 +U 2 -D 3)
 *   <every table field>      schema order, original names and ids
 * Rows must arrive in ascending key order (the writer takes the first and
 * last row of each file as its key range and does not compare keys).
 *
 * Per file (pm_data_file_meta):
 *   _MIN_KEY / _MAX_KEY   serialized BinaryRow of the key columns of the
 *                         first / last row
 *   _KEY_STATS            stats of the key columns, one entry per key field
 *                         (Java's toBinaryAllMode; key columns use
 *                         truncate(128) as system fields do)
 *   _VALUE_STATS(_COLS)   stats of the value columns per metadata.stats-mode
 *                         (dense store by default), computed as for append
 *                         files (table/write_stats.h)
 *   _MIN/_MAX_SEQUENCE_NUMBER  min / max over the rows
 *   _DELETE_ROW_COUNT     rows of kind -U or -D
 *   _LEVEL, _FILE_SOURCE  from the options; _SCHEMA_ID the schema's id;
 *   _CREATION_TIME        local wall clock millis
 * Rolling (Java's RollingFileWriter, table/rolling_file_writer.h): a file
 * closes after target-file-row-num rows, or at every 1000th record of the
 * writer when its size reached target-file-size (PK default 128 MiB).
 * Format, compression and stats mode: file.format / file.compression /
 * metadata.stats-mode, overridden for the level by file.format.per.level,
 * file.compression.per.level and metadata.stats-mode.per.level; changelog
 * files use changelog-file.format / .compression / .stats-mode when set and
 * the changelog- name prefix.  Parquet and Avro are written.
 * data-file.thin-mode=true writes the files without the _KEY_ columns
 * (pk_file_writer.c).
 * Unsupported (PM_EUNSUPPORTED): external data paths, data-file indexes.
 */
#ifndef PM_TABLE_PK_FILE_WRITER_H
#define PM_TABLE_PK_FILE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "meta/data_file_meta.h"
#include "meta/schema.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/table_internal.h"

typedef struct pq_page_facts pq_page_facts; /* format/parquet/pq_page_copy.h */

/* The KV type of a schema (new tree, caller frees) and its key count. */
pm_error *pm_pk_kv_type(const pm_schema *s, pm_type **out, size_t *nkey);

typedef struct pm_pk_file_writer_options {
    int32_t level;
    int file_source;        /* PM_FILE_SOURCE_APPEND or PM_FILE_SOURCE_COMPACT */
    bool changelog;         /* changelog files (FileSource APPEND, changelog- prefix) */
    /* Optional overrides (0 = from the table options). */
    int64_t target_file_size;
    int64_t target_row_num;
} pm_pk_file_writer_options;

typedef struct pm_pk_file_writer pm_pk_file_writer;

/* A writer for `schema` (borrowed, must outlive the writer; its options
 * are the table options used) into the bucket directory of (partition,
 * bucket) of t.  Nothing is created on disk until the first row. */
pm_error *pm_pk_file_writer_new(pm_pk_file_writer **out, pm_table *t, const pm_schema *schema,
                                const uint8_t *partition, size_t plen, int32_t bucket,
                                const pm_pk_file_writer_options *o);
/* The KV type rows must have (owned by the writer). */
const pm_type *pm_pk_file_writer_type(const pm_pk_file_writer *w);
/* Append rows (same column layout as the KV type; types must match,
 * nullability aside), ascending by key. */
pm_error *pm_pk_file_writer_write(pm_pk_file_writer *w, const pm_batch *b);
/* Page copies: offer KV column `col` an input page (header and compressed
 * body, `codec`) of a leaf stored as `elem` (the input file's schema
 * element) as its next `rows` rows, value for value
 * (pm_rolling_file_writer_offer_page; thin mode's missing key columns and
 * files that are not Parquet refuse: *taken = false).  Cancel every offer
 * before writing rows that are not the offered pages'. */
pm_error *pm_pk_file_writer_offer_page(pm_pk_file_writer *w, size_t col, const pq_schema_element *elem,
                                       const uint8_t *page, size_t len, pm_codec_id codec, int64_t rows,
                                       const pq_page_facts *facts, bool *taken);
pm_error *pm_pk_file_writer_cancel_pages(pm_pk_file_writer *w);
/* Offered pages copied into the files so far; of them offered lazily
 * (facts given: the rows written for them carried no values). */
int64_t pm_pk_file_writer_pages_copied(const pm_pk_file_writer *w);
int64_t pm_pk_file_writer_pages_lazy(const pm_pk_file_writer *w);
/* Rows written so far (all files). */
int64_t pm_pk_file_writer_rows(const pm_pk_file_writer *w);
/* Close the open file and hand out every finished file's meta (the caller
 * owns the array and clears each entry).  The writer can go on writing. */
pm_error *pm_pk_file_writer_finish(pm_pk_file_writer *w, pm_data_file_meta **files, size_t *n);
/* Delete every file not handed out yet, then free. */
void pm_pk_file_writer_abort(pm_pk_file_writer *w);
/* Free (files not handed out stay on disk). */
void pm_pk_file_writer_free(pm_pk_file_writer *w);

#endif
