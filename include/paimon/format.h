/*
 * paimon/format.h — single data files outside a table: read a Parquet,
 * ORC or Avro file as batches, write batches to a Parquet, ORC or Avro
 * file the way Paimon writes its data files, and describe a Parquet footer.
 *
 * The format of a file to read is found from its bytes (Parquet: "PAR1"
 * at both ends; Avro object container: "Obj\x01" at the start; ORC: "ORC"
 * at the start), not its name.  Parquet and ORC columns map to Paimon
 * types by Paimon's rules (field ids kept: Parquet field ids, ORC
 * `paimon.id` attributes); Avro files are read with their own schema.
 *
 * A writer writes to a temporary name beside the target and renames it
 * over the target only when pm_format_writer_close succeeds, so a failed
 * or aborted write leaves nothing at the target.
 *
 * Ownership: the caller owns readers and writers; a reader's type and
 * batches are owned by the reader (batches valid until the next call).
 */
#ifndef PAIMON_FORMAT_H
#define PAIMON_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PM_FORMAT_OPTIONS_VERSION 1

typedef struct pm_format_options {
    int version;                          /* PM_FORMAT_OPTIONS_VERSION */
    /* reading */
    const char *const *columns;           /* projection by name, in this order; NULL = all */
    size_t ncolumns;
    int64_t batch_rows;                   /* 0 = 4096 */
    /* writing */
    const char *format;                   /* "parquet" (default), "orc" or "avro" */
    /* Paimon table options for the file (file.compression,
     * file.compression.zstd-level, file.block-size, parquet.page.size,
     * parquet.block.size, parquet.enable.dictionary, orc.stripe.size,
     * orc.row.index.stride, orc.dictionary.key.threshold, ...;
     * metadata.stats-mode is not used), parallel arrays; unknown keys are
     * refused. */
    const char *const *option_keys;
    const char *const *option_values;
    size_t noptions;
} pm_format_options;

#define PM_FORMAT_OPTIONS_INIT {PM_FORMAT_OPTIONS_VERSION, NULL, 0, 0, NULL, NULL, NULL, 0}
PM_API void pm_format_options_init(pm_format_options *o);

typedef struct pm_format_reader pm_format_reader;
typedef struct pm_format_writer pm_format_writer;

/* Open a local data file (o NULL = every column). */
PM_API pm_error *pm_format_reader_open(pm_format_reader **out, const char *path, const pm_format_options *o);
/* "parquet", "orc" or "avro". */
PM_API const char *pm_format_reader_format(const pm_format_reader *r);
/* Row type of the batches; owned by r. */
PM_API const pm_type *pm_format_reader_type(const pm_format_reader *r);
/* Rows in the file as its metadata says (-1 when unknown). */
PM_API int64_t pm_format_reader_row_count(const pm_format_reader *r);
/* Next batch (owned by r, valid until the next call); NULL at the end. */
PM_API pm_error *pm_format_reader_next(const pm_batch **out, pm_format_reader *r);
PM_API void pm_format_reader_free(pm_format_reader *r);

/* Create `path` (it must not exist: PM_EEXIST) for rows of `row_type`. */
PM_API pm_error *pm_format_writer_create(pm_format_writer **out, const char *path, const pm_type *row_type,
                                         const pm_format_options *o);
/* Rows of b (its type must match the writer's). */
PM_API pm_error *pm_format_writer_write(pm_format_writer *w, const pm_batch *b);
/* Finish the file and publish it at its path; frees w either way. */
PM_API pm_error *pm_format_writer_close(pm_format_writer *w);
/* Drop the file; frees w. */
PM_API void pm_format_writer_abort(pm_format_writer *w);

/* The footer of a Parquet file as one JSON object (malloc'd; release with
 * pm_free): file, size, version, created_by, rows, key_value_metadata,
 * paimon_schema, schema elements, row groups with their column chunks
 * (path, types, field id, encodings, codec, sizes, offsets, statistics
 * decoded to Paimon values, or min_hex/max_hex). */
PM_API pm_error *pm_parquet_footer_json(char **out, const char *path);

#ifdef __cplusplus
}
#endif
#endif
