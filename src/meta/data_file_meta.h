/*
 * meta/data_file_meta.h — the records stored in manifests: DataFileMeta,
 * SimpleStats, ManifestEntry, ManifestFileMeta (manifest-list rows) and
 * IndexManifestEntry with IndexFileMeta / DeletionVectorMeta /
 * GlobalIndexMeta, plus their Paimon row types and the conversion between
 * these structs and columnar rows (pm_batch) that the Avro module reads and
 * writes.
 *
 * Row types (Paimon Java names, ids and nullability; every manifest row
 * starts with `_VERSION INT NOT NULL`, 2 for manifests and manifest lists,
 * 1 for index manifests):
 *   ManifestEntry      _KIND TINYINT, _PARTITION BYTES, _BUCKET INT,
 *                      _TOTAL_BUCKETS INT, _FILE ROW<DataFileMeta> (all NOT NULL)
 *   DataFileMeta       0 _FILE_NAME STRING, 1 _FILE_SIZE BIGINT, 2 _ROW_COUNT BIGINT,
 *                      3 _MIN_KEY BYTES, 4 _MAX_KEY BYTES, 5 _KEY_STATS, 6 _VALUE_STATS
 *                      (SimpleStats), 7 _MIN_SEQUENCE_NUMBER, 8 _MAX_SEQUENCE_NUMBER,
 *                      9 _SCHEMA_ID BIGINT, 10 _LEVEL INT, 11 _EXTRA_FILES ARRAY<STRING>
 *                      (all NOT NULL); nullable: 12 _CREATION_TIME TIMESTAMP(3),
 *                      13 _DELETE_ROW_COUNT BIGINT, 14 _EMBEDDED_FILE_INDEX BYTES,
 *                      15 _FILE_SOURCE TINYINT, 16 _VALUE_STATS_COLS ARRAY<STRING NOT NULL>,
 *                      17 _EXTERNAL_PATH STRING, 18 _FIRST_ROW_ID BIGINT,
 *                      19 _WRITE_COLS ARRAY<STRING NOT NULL>,
 *                      20 _WRITE_COLS_SEQUENCES ARRAY<BIGINT NOT NULL> (after 2.0)
 *   SimpleStats        _MIN_VALUES BYTES, _MAX_VALUES BYTES (NOT NULL),
 *                      _NULL_COUNTS ARRAY<BIGINT> (nullable array, nullable items)
 *   ManifestFileMeta   _FILE_NAME, _FILE_SIZE, _NUM_ADDED_FILES, _NUM_DELETED_FILES,
 *                      _PARTITION_STATS, _SCHEMA_ID (NOT NULL); nullable _MIN_BUCKET,
 *                      _MAX_BUCKET, _MIN_LEVEL, _MAX_LEVEL INT, _MIN_ROW_ID, _MAX_ROW_ID BIGINT
 *   IndexManifestEntry _KIND, _PARTITION, _BUCKET, _INDEX_TYPE, _FILE_NAME, _FILE_SIZE,
 *                      _ROW_COUNT (NOT NULL); nullable _DELETIONS_VECTORS_RANGES
 *                      ARRAY<ROW<f0 STRING NOT NULL, f1 INT NOT NULL, f2 INT NOT NULL,
 *                      _CARDINALITY BIGINT>>, _EXTERNAL_PATH STRING, _GLOBAL_INDEX
 *                      ROW<_ROW_RANGE_START, _ROW_RANGE_END BIGINT NOT NULL,
 *                      _INDEX_FIELD_ID INT NOT NULL, _EXTRA_FIELD_IDS ARRAY<INT NOT NULL>,
 *                      _INDEX_META BYTES, _SOURCE_META BYTES>
 * Reading uses the newest field set (fields are matched by name, so files of
 * any Paimon version read: missing fields are absent).  Writing uses exactly
 * the field set Paimon 2.0 writes (DataFileMeta 0–19).  BinaryRow values
 * (_PARTITION, keys, stats rows) are kept as their serialized bytes (4-byte
 * big-endian arity + row, see types/binary_row.h).
 *
 * Ownership: every struct owns its strings and arrays; *_clear releases
 * them (the struct itself is the caller's), *_copy deep-copies (a packed
 * DataFileMeta: shares the block, below).  A
 * DataFileMeta read from a manifest or copied is packed: its strings,
 * byte arrays and arrays share one allocation (`packed`; layout: the
 * 8-byte-aligned arrays — null counts, write-column sequences, string
 * pointer arrays — then the bytes and NUL-terminated strings), so a table
 * of N files costs N allocations instead of about ten times N.  Packed
 * metas are immutable: copies of one share its block (reference counted,
 * atomically: a copy may be freed on another thread), so a task's inputs,
 * its result's inputs and the commit's entries hold the strings and
 * stats once.
 */
#ifndef PM_META_DATA_FILE_META_H
#define PM_META_DATA_FILE_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/options.h"
#include "meta/snapshot.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"
#include "types/column.h"

#define PM_MANIFEST_VERSION 2
#define PM_INDEX_MANIFEST_VERSION 1

typedef struct pm_opt_int {
    bool has;
    int32_t v;
} pm_opt_int;

/* Owned bytes; `has` distinguishes null from empty for nullable fields. */
typedef struct pm_bytes {
    bool has;
    uint8_t *data;
    size_t len;
} pm_bytes;

typedef enum pm_file_kind { PM_FILE_ADD = 0, PM_FILE_DELETE = 1 } pm_file_kind;
typedef enum pm_file_source { PM_FILE_SOURCE_APPEND = 0, PM_FILE_SOURCE_COMPACT = 1 } pm_file_source;

typedef struct pm_simple_stats {
    pm_bytes min_values;     /* serialized BinaryRow */
    pm_bytes max_values;
    bool has_null_counts;    /* false = _NULL_COUNTS null */
    size_t null_count_len;
    pm_opt_long *null_counts;
} pm_simple_stats;

typedef struct pm_data_file_meta {
    char *file_name;
    int64_t file_size;
    int64_t row_count;
    pm_bytes min_key;
    pm_bytes max_key;
    pm_simple_stats key_stats;
    pm_simple_stats value_stats;
    int64_t min_sequence_number;
    int64_t max_sequence_number;
    int64_t schema_id;
    int32_t level;
    /* the presence flags of value_stats_cols, write_cols and
     * write_cols_sequences, kept beside `level` (in its padding: a table of
     * 100,000 files holds several copies of this struct per file) */
    bool has_value_stats_cols;
    bool has_write_cols;
    bool has_write_cols_sequences;   /* read only: Paimon 2.0 does not write it */
    pm_str_list extra_files;
    pm_opt_long creation_time;       /* epoch millis of a local date-time */
    pm_opt_long delete_row_count;
    pm_bytes embedded_index;
    pm_opt_int file_source;          /* pm_file_source */
    pm_str_list value_stats_cols;
    char *external_path;             /* NULL = absent */
    pm_opt_long first_row_id;
    pm_str_list write_cols;
    size_t write_cols_sequence_len;
    int64_t *write_cols_sequences;
    /* NULL: every string and array above is its own allocation.  Else the
     * one allocation holding all of them (a packed meta: what the manifest
     * reader and pm_data_file_meta_copy make), freed alone by
     * pm_data_file_meta_clear; change a packed meta's strings or arrays
     * only after pm_data_file_meta_unpack. */
    void *packed;
} pm_data_file_meta;

typedef struct pm_manifest_entry {
    pm_file_kind kind;
    pm_bytes partition;              /* serialized BinaryRow */
    int32_t bucket;
    int32_t total_buckets;
    pm_data_file_meta file;
} pm_manifest_entry;

typedef struct pm_manifest_file_meta {
    char *file_name;
    int64_t file_size;
    int64_t num_added_files;
    int64_t num_deleted_files;
    pm_simple_stats partition_stats;
    int64_t schema_id;
    pm_opt_int min_bucket;
    pm_opt_int max_bucket;
    pm_opt_int min_level;
    pm_opt_int max_level;
    pm_opt_long min_row_id;
    pm_opt_long max_row_id;
} pm_manifest_file_meta;

typedef struct pm_dv_meta {
    char *data_file_name;            /* f0 */
    int32_t offset;                  /* f1 */
    int32_t length;                  /* f2 */
    pm_opt_long cardinality;         /* _CARDINALITY (1.0+) */
} pm_dv_meta;

typedef struct pm_global_index_meta {
    int64_t row_range_start;
    int64_t row_range_end;
    int32_t index_field_id;
    bool has_extra_field_ids;
    size_t extra_field_id_len;
    int32_t *extra_field_ids;
    pm_bytes index_meta;
    pm_bytes source_meta;
} pm_global_index_meta;

typedef struct pm_index_file_meta {
    char *index_type;                /* "HASH", "DELETION_VECTORS", global index ids */
    char *file_name;
    int64_t file_size;
    int64_t row_count;
    bool has_dv_ranges;
    size_t dv_range_len;
    pm_dv_meta *dv_ranges;
    char *external_path;
    bool has_global_index;
    pm_global_index_meta global_index;
} pm_index_file_meta;

typedef struct pm_index_manifest_entry {
    pm_file_kind kind;
    pm_bytes partition;
    int32_t bucket;
    pm_index_file_meta index_file;
} pm_index_manifest_entry;

/* ---- ownership helpers ---- */
void pm_bytes_clear(pm_bytes *b);
pm_error *pm_bytes_set(pm_bytes *b, const void *p, size_t n);
void pm_simple_stats_clear(pm_simple_stats *s);
pm_error *pm_simple_stats_copy(pm_simple_stats *dst, const pm_simple_stats *src);
/* The empty stats Java writes for append keys: empty rows, empty null-count array. */
pm_error *pm_simple_stats_empty(pm_simple_stats *s);
void pm_data_file_meta_clear(pm_data_file_meta *f);
/* A packed copy of src: src's block shared when src is packed, else one new block. */
pm_error *pm_data_file_meta_copy(pm_data_file_meta *dst, const pm_data_file_meta *src);
/* Turn a packed meta into one whose strings and arrays are allocated one
 * by one (no-op when it is not packed); on error f is unchanged. */
pm_error *pm_data_file_meta_unpack(pm_data_file_meta *f);
/* `_WRITE_COLS` = the field names of ROW type t (replacing any list). */
pm_error *pm_data_file_meta_set_write_cols(pm_data_file_meta *f, const pm_type *t);
void pm_manifest_entry_clear(pm_manifest_entry *e);
pm_error *pm_manifest_entry_copy(pm_manifest_entry *dst, const pm_manifest_entry *src);
void pm_manifest_file_meta_clear(pm_manifest_file_meta *m);
pm_error *pm_manifest_file_meta_copy(pm_manifest_file_meta *dst, const pm_manifest_file_meta *src);
void pm_index_manifest_entry_clear(pm_index_manifest_entry *e);
pm_error *pm_index_manifest_entry_copy(pm_index_manifest_entry *dst, const pm_index_manifest_entry *src);

/* ---- row types (new trees, caller frees) ----
 * `for_write` = the field set Paimon 2.0 writes; otherwise the newest field
 * set, used for reading. */
pm_type *pm_simple_stats_type(void);
pm_type *pm_data_file_meta_type(bool for_write);
pm_type *pm_manifest_entry_row_type(bool for_write);     /* with _VERSION */
pm_type *pm_manifest_file_meta_row_type(void);           /* with _VERSION */
pm_type *pm_index_manifest_entry_row_type(void);         /* with _VERSION */

/* ---- rows ⇄ structs ----
 * Readers take a batch of the matching row type and a row index; writers
 * append one row to the columns of a batch of the matching type (call
 * pm_batch_finish after the last append).  `what` names the file. */
pm_error *pm_manifest_entry_from_row(const pm_batch *b, int64_t row, const char *what,
                                     pm_manifest_entry *out);
pm_error *pm_manifest_entry_append(pm_batch *b, const pm_manifest_entry *e);
pm_error *pm_manifest_file_meta_from_row(const pm_batch *b, int64_t row, const char *what,
                                         pm_manifest_file_meta *out);
pm_error *pm_manifest_file_meta_append(pm_batch *b, const pm_manifest_file_meta *m);
pm_error *pm_index_manifest_entry_from_row(const pm_batch *b, int64_t row, const char *what,
                                           pm_index_manifest_entry *out);
pm_error *pm_index_manifest_entry_append(pm_batch *b, const pm_index_manifest_entry *e);

#endif
