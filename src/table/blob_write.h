/*
 * table/blob_write.h — the writer of a bucket of a data-evolution table
 * with BLOB fields: the normal fields in the rolling data-file writer
 * (table/rolling_file_writer.h), every BLOB field in dedicated `.blob`
 * files beside them (format/blob/blob_file.h), as Java's
 * DedicatedFormatRollingFileWriter writes them and pypaimon reads them.
 * CONTRACT (blob_write.c).
 *
 *  - write(b): b holds every field of the table; the normal fields go to
 *    the rolling writer first (which rolls as it always does); the normal
 *    files it closed meanwhile give the row boundaries.  Then each BLOB
 *    field's values go to its open `.blob` file, which closes when its
 *    records reach blob.target-file-size (checked after every value) and
 *    at every normal-file boundary: each blob file lies in exactly one
 *    normal file's rows, and each normal file's rows are tiled by its blob
 *    files of every BLOB field.
 *  - close_file: the normal file closes, then the blob files with it.
 *  - finish: every file closes; the files in commit order — each normal
 *    file (`_WRITE_COLS` = the normal fields) followed by its blob files,
 *    field by field in row order (the order the commit's row-ID assignment
 *    needs: table_commit.c).
 *  - a blob file's meta: name `<data-file.prefix><uuid>-<n>.blob`, rows,
 *    size, `_WRITE_COLS` = [its field], the statistics of "none" mode
 *    (dense store: no column, an empty `_VALUE_STATS_COLS`), empty keys,
 *    level 0, the schema id, file source APPEND, sequence numbers from 0
 *    (the table writer and the commit stamp them).
 *  - abort deletes every blob file not handed out and aborts the rolling
 *    writer.
 * Table options that keep BLOB values elsewhere (blob-descriptor-field,
 * blob-as-descriptor, blob-external-storage-field) are PM_EUNSUPPORTED.
 */
#ifndef PM_TABLE_BLOB_WRITE_H
#define PM_TABLE_BLOB_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/rolling_file_writer.h"

typedef struct pm_blob_write pm_blob_write;

/* Does row type `row` hold a BLOB field? */
bool pm_blob_write_needed(const pm_type *row);

/* `ro` as for the rolling writer, with ro->file_type the table's row type
 * (all fields); the rolling writer of the normal fields is made from it. */
pm_error *pm_blob_write_new(pm_blob_write **out, const pm_rolling_file_writer_options *ro);
/* The rolling writer of the normal fields (owned by w): open file,
 * pending files, pool. */
pm_rolling_file_writer *pm_blob_write_normal(pm_blob_write *w);
pm_error *pm_blob_write_write(pm_blob_write *w, const pm_batch *b);
pm_error *pm_blob_write_close_file(pm_blob_write *w);
/* *files malloc'd (each meta cleared with pm_data_file_meta_clear, then
 * free()), NULL and 0 when none. */
pm_error *pm_blob_write_finish(pm_blob_write *w, pm_data_file_meta **files, size_t *n);
void pm_blob_write_abort(pm_blob_write *w);
/* Files not handed out stay on disk. */
void pm_blob_write_free(pm_blob_write *w);

#endif
