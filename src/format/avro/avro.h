/*
 * format/avro/avro.h — Avro object container files as Paimon reads and
 * writes them (manifests, manifest lists, index manifests, avro data files).
 *
 * Reader: decodes the file's records into columnar pm_batch rows of a
 * REQUESTED Paimon ROW type.  Fields are matched by name (case-sensitive)
 * at every nesting level; writer fields that are not requested are skipped;
 * requested fields missing from the file read as null (PM_EINVALID if such
 * a field is NOT NULL).  Allowed writer → reader conversions:
 *   int → TINYINT/SMALLINT (truncating, as Java does), INT, DATE, BIGINT,
 *         FLOAT, DOUBLE;  long → BIGINT, FLOAT, DOUBLE, TIMESTAMP(_LTZ);
 *   float → FLOAT, DOUBLE;  double → DOUBLE;  boolean → BOOLEAN;
 *   string/bytes/enum → CHAR/VARCHAR;  bytes/string/fixed → BINARY/VARBINARY/BLOB;
 *   bytes/fixed (decimal logical type with the same scale, or none) → DECIMAL;
 *   int (time-millis) / long (time-micros) → TIME (millis of day);
 *   long timestamp-/local-timestamp- millis/micros/nanos → TIMESTAMP(_LTZ)
 *         rescaled to the column's unit (floor division when coarser);
 *   array → ARRAY;  map → MAP (string key) or MULTISET;
 *   array of {key, value} records → MAP;  record → ROW;
 *   ["null", T] and other unions → each non-null branch must convert.
 * A null from the file in a NOT NULL column is PM_ECORRUPT.
 * Rows stream block by block; memory is bounded by one decompressed block
 * plus one batch.
 *
 * Writer: Paimon ROW type → Avro schema exactly as Paimon Java writes it
 * (avro_schema.h), rows from pm_batch, blocks flushed when the uncompressed
 * block reaches block_bytes (Avro's default sync interval, 64000) or
 * block_rows rows, codec null/deflate/snappy/zstandard, random sync marker.
 */
#ifndef PM_FORMAT_AVRO_AVRO_H
#define PM_FORMAT_AVRO_AVRO_H

#include <stdint.h>

#include "codec/codec.h"
#include "format/avro/avro_file.h"
#include "io/fileio.h"
#include "paimon/batch.h"
#include "paimon/types.h"

/* ---- reading ---- */

typedef struct pm_avro_reader pm_avro_reader;

typedef struct pm_avro_read_options {
    int64_t batch_rows;     /* rows per batch; 0 = 4096 */
    size_t max_block_bytes; /* largest decompressed block; 0 = 1 GiB */
} pm_avro_read_options;

/* Open over an input (borrowed: it must outlive the reader).  read_type is
 * a ROW (cloned); NULL reads every field with the file's own schema mapped
 * by pm_avro_schema_to_type.  opt may be NULL. */
pm_error *pm_avro_reader_open(pm_input *in, const pm_type *read_type,
                              const pm_avro_read_options *opt, pm_avro_reader **out);
/* Same over bytes in memory (borrowed). */
pm_error *pm_avro_reader_open_memory(const uint8_t *data, size_t len, const char *name,
                                     const pm_type *read_type, const pm_avro_read_options *opt,
                                     pm_avro_reader **out);
/* Next batch of up to batch_rows rows, owned by the reader and valid until
 * the next call; *out = NULL after the last row.  After an error the reader
 * only returns that error again. */
pm_error *pm_avro_reader_next(pm_avro_reader *r, pm_batch **out);
/* The row type of the batches (owned by the reader). */
const pm_type *pm_avro_reader_type(const pm_avro_reader *r);
/* The container (schema JSON, codec, metadata); owned by the reader. */
const pm_avro_file *pm_avro_reader_file(const pm_avro_reader *r);
void pm_avro_reader_free(pm_avro_reader *r);

/* The writer schema JSON and codec name of a file (both malloc'd; for
 * `paimon cat` and debugging). */
pm_error *pm_avro_read_file_info(pm_fileio *fio, const char *path, char **schema_json,
                                 char **codec);

/*
 * Map an Avro schema to the Paimon type a reader would use for it (how
 * `paimon cat` shows a file without its table): records → ROW (field ids
 * numbered depth-first from 0), ["null", T] → nullable T, other types NOT
 * NULL, logical types → DATE/TIME/TIMESTAMP(_LTZ)/DECIMAL, enum → STRING,
 * fixed → BINARY(size), map → MAP<STRING NOT NULL, V>, array of {key,value}
 * records with logicalType map → MAP<K, V>.  PM_EUNSUPPORTED for unions of
 * several non-null types, a bare "null" type, or recursive records.
 */
pm_error *pm_avro_schema_to_type(const pm_avro_node *n, pm_type **out);

/* ---- writing ---- */

typedef struct pm_avro_writer pm_avro_writer;

typedef struct pm_avro_write_options {
    pm_codec_id codec;  /* PM_CODEC_NONE, _DEFLATE, _SNAPPY or _ZSTD */
    int level;          /* 0 = codec default (zstd: 1) */
    int64_t block_rows; /* flush after this many rows; 0 = no row limit */
    size_t block_bytes; /* flush once the uncompressed block reaches this; 0 = 64000 */
} pm_avro_write_options;

/* Defaults when opt is NULL: zstandard level 1, 64000-byte blocks. */
#define PM_AVRO_DEFAULT_BLOCK_BYTES 64000

/* Start a file on `out` (borrowed; the caller closes it after finish).
 * Writes the header immediately. */
pm_error *pm_avro_writer_open(pm_output *out, const pm_type *row_type,
                              const pm_avro_write_options *opt, pm_avro_writer **w);
/* Append every row of b (its type must equal the writer's, ignoring
 * nullability where the writer's is nullable). */
pm_error *pm_avro_writer_write(pm_avro_writer *w, const pm_batch *b);
/* Flush the last block.  The output stays open. */
pm_error *pm_avro_writer_finish(pm_avro_writer *w);
int64_t pm_avro_writer_rows(const pm_avro_writer *w);
/* Bytes written to the output so far plus the pending (uncompressed) block. */
uint64_t pm_avro_writer_estimated_size(const pm_avro_writer *w);
void pm_avro_writer_free(pm_avro_writer *w);

#endif
