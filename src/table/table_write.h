/*
 * table/table_write.h — write rows into a table as new data files (prepare
 * only; nothing is visible until a commit).  CONTRACT (table_write.c).
 *
 * Append tables: each row goes to its partition (values of the partition
 * keys) and bucket: unaware (`bucket=-1`) → bucket 0; fixed (`bucket>0`) →
 * hash of the bucket-key BinaryRow (types/bucket.h), Java-identical.  One
 * rolling Parquet (or Avro, per file.format) writer per (partition, bucket)
 * rolls at `target-file-size` (checked as Java does) and
 * `target-file-row-num`.  Each closed file becomes a pm_data_file_meta:
 * stats per `metadata.stats-mode` / `fields.<f>.stats-mode` (truncate(16)
 * default, dense store), sequence numbers per Paimon's rules (unaware
 * writers start at 0; bucketed writers continue after the max sequence
 * number of the bucket's live files), schema id, level 0, file source
 * APPEND, creation time.  Memory: bounded by one open writer per
 * (partition, bucket) — many open writers flush small row groups.
 * Primary-key tables: every call is delegated to the primary-key writer
 * (table/pk_write.h: sort buffer, merge engine, level-0 KeyValue files);
 * their input may carry a `_ROW_KIND` column.
 */
#ifndef PM_TABLE_TABLE_WRITE_H
#define PM_TABLE_TABLE_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/commit_message.h"
#include "table/table_internal.h"

typedef struct pm_table_writer pm_table_writer;

typedef struct pm_table_write_options {
    int unused_reserved;        /* room to grow (write type, io manager) */
    /* Bucketed writers start their sequence numbers at 0 instead of after
     * the bucket's live files (Java's withIgnorePreviousFiles, used for
     * OVERWRITE); unaware-bucket writers always do.  false by default. */
    bool ignore_previous_files;
    /* Encoding threads (0 or 1 = the caller's thread only).  With more,
     * rows of different (partition, bucket) writers are encoded in
     * parallel, a large batch for an unaware-bucket, unpartitioned
     * table is split over `threads` writers of its own (each with its own
     * file names and sequence numbers from 0, as parallel Java writers
     * would write them), and a batch of 8192+ rows that goes to one writer
     * has its Parquet columns encoded in parallel (same bytes). */
    size_t threads;
    /* The commit user the files will be committed with (postpone-bucket
     * primary-key tables name their files after it); NULL = unknown. */
    const char *commit_user;
} pm_table_write_options;

pm_error *pm_table_writer_new(pm_table_writer **out, pm_table *t, const pm_table_write_options *o);
/* Rows in the table's row type (pm_table_schema(t)->row_type; matched by
 * field name, missing nullable columns become null). */
pm_error *pm_table_writer_write(pm_table_writer *w, const pm_batch *b);
/* Close all open files; hand out one message per (partition, bucket) that
 * received rows.  The writer can be reused afterwards. */
pm_error *pm_table_writer_prepare_commit(pm_table_writer *w, pm_commit_message **msgs, size_t *n);
/* Delete every file written and not yet handed out, then free. */
void pm_table_writer_abort(pm_table_writer *w);
void pm_table_writer_free(pm_table_writer *w);

#endif
