/*
 * table/pk_write.h — the primary-key table writer: rows (upserts and
 * retracts) → per (partition, bucket) sort buffer → merged level-0
 * KeyValue files → commit messages.  Prepare only: nothing is visible until
 * a commit.  pm_table_writer (table_write.h) delegates here for tables with
 * primary keys.
 *
 * Input rows: the table's fields matched by name (missing nullable fields
 * are null) plus an optional `_ROW_KIND` column giving each row's kind:
 * STRING "+I" / "-U" / "+U" / "-D" (null = +I) or TINYINT 0..3; with the
 * `rowkind.field` option the kinds come from that STRING table field
 * instead (stored like any other field; null is PM_EINVALID).  Rows
 * dropped on arrival (Java's RowKindFilter): -D and -U when
 * `ignore-delete`, -U when `ignore-update-before`.
 *
 * Buckets: fixed buckets only (`bucket` > 0): bucket = the bucket function
 * (`bucket-function.type`) of the BinaryRow of `bucket-key`, else of the
 * trimmed primary key (types/bucket.h, Java-identical).  `bucket=-1`
 * (dynamic) and `bucket=-2` (postpone) are PM_EUNSUPPORTED.
 *
 * Per (partition, bucket):
 *   sequence   every accepted row takes the bucket's next sequence number
 *              on arrival; the counter starts after the largest
 *              _MAX_SEQUENCE_NUMBER of the bucket's live files in the
 *              latest snapshot (0 for a new bucket, or always 0 with
 *              ignore_previous_files); `write.sequence-number-init-mode`
 *              = snapshot is PM_EUNSUPPORTED
 *   buffer     rows are appended to an in-memory KV batch (table/
 *              pk_file_writer.h layout).  All buckets share
 *              `write-buffer-size`: when the buffered bytes exceed it, the
 *              largest buffer is sorted by (key, sequence.field, sequence
 *              number) and either spilled as a run to a local temporary
 *              directory (`write-buffer-spillable`, default true) or, if
 *              not spillable, flushed to level 0 at once
 *   flush      at prepare_commit: the in-memory run and the spilled runs
 *              are merged (lsm/merge_reader.h; more than 256 runs merge in
 *              several passes through the spill) into groups of equal
 *              keys; each group is folded by the merge engine
 *              (lsm/merge_engine.h, reducer mode: a single record passes
 *              unchanged) and the result written to level-0 data files
 *              (FileSource APPEND) through pk_file_writer;
 *              `changelog-producer=input` also writes every raw record, in
 *              merge order, to changelog files
 * Merge-engine options are validated when the writer is created, before
 * anything is written.
 */
#ifndef PM_TABLE_PK_WRITE_H
#define PM_TABLE_PK_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/commit_message.h"
#include "table/table_internal.h"

#define PM_ROW_KIND_COLUMN "_ROW_KIND"

typedef struct pm_pk_write_options {
    bool ignore_previous_files;   /* sequence numbers start at 0 (overwrite) */
    const char *spill_dir;        /* NULL = $TMPDIR or /tmp */
    int64_t write_buffer_size;    /* 0 = the write-buffer-size option */
    const char *commit_user;      /* postpone bucket: part of the file names (NULL = "anonymous") */
    int32_t buckets;              /* > 0: write these fixed buckets instead of the table's mode
                                     (postpone-bucket compaction); 0 = the table's */
} pm_pk_write_options;

typedef struct pm_pk_writer pm_pk_writer;

pm_error *pm_pk_writer_new(pm_pk_writer **out, pm_table *t, const pm_pk_write_options *o);
/* Rows as described above; the batch is only read during the call. */
pm_error *pm_pk_writer_write(pm_pk_writer *w, const pm_batch *b);
/* Flush every bucket; one message per (partition, bucket) that produced
 * files (new_files, changelog).  The writer can be reused afterwards
 * (sequence numbers continue). */
pm_error *pm_pk_writer_prepare_commit(pm_pk_writer *w, pm_commit_message **msgs, size_t *n);
/* Delete every file written and not handed out, then free. */
void pm_pk_writer_abort(pm_pk_writer *w);
void pm_pk_writer_free(pm_pk_writer *w);

/* Counters for tests and metrics. */
typedef struct pm_pk_write_stats {
    int64_t rows_in;          /* rows accepted (after the row-kind filter) */
    int64_t rows_dropped;     /* rows the row-kind filter dropped */
    int64_t spilled_runs;     /* sorted runs written to disk */
    int64_t early_flushes;    /* buffers flushed to level 0 because memory was full */
    int64_t records_written;  /* KeyValue records in data files */
    int64_t cross_groups;     /* cross-partition updates: groups of the key index */
    int64_t cross_spilled;    /* ... and runs it spilled */
} pm_pk_write_stats;
void pm_pk_writer_stats(const pm_pk_writer *w, pm_pk_write_stats *out);

/* Parse a row kind: "+I" "-U" "+U" "-D" → 0..3; PM_EINVALID otherwise. */
pm_error *pm_row_kind_parse(const char *s, size_t n, uint8_t *out);

#endif
