/*
 * paimon/write.h — writing a table: rows → private data files → one commit
 * → the automatic compaction round.
 *
 *   pm_writer_new(&w, table, &opts)
 *   pm_writer_write(w, batch) / pm_writer_write_arrow(w, schema, array) /
 *   pm_writer_write_rows(w, PM_ROWS_JSONL, source, ctx)   any number of times
 *   pm_writer_commit(&outcome, w)          = prepare + commit below, in one step
 * or, when files are written in several places and committed in one:
 *   pm_writer_prepare_commit(&msgs, w)     closes the files (nothing visible yet);
 *                                          pm_commit_messages_to_json ships them
 *   pm_commit(&outcome, table, msgs, &opts)
 *
 * Rows: append tables take rows of the table's row type (columns matched by
 * name; missing nullable columns are null).  Primary-key tables also take a
 * `_ROW_KIND` string column (+I, -U, +U, -D; absent or null = +I) or the
 * table's `rowkind.field`; pm_writer_input_type says what a writer accepts.
 * Append tables are written per (partition, bucket) into rolling Parquet or
 * Avro files (unaware and fixed buckets, as Java does);
 * primary-key tables (fixed buckets) buffer rows per bucket
 * (write-buffer-size, spilling sorted runs), merge them with the merge
 * engine and write level-0 key-value files.  Tables this version cannot
 * write (dynamic or postpone bucket primary keys, blob columns, external
 * data paths) return PM_EUNSUPPORTED naming the mode
 * from pm_writer_new.
 *
 * The commit (pm_commit, pm_writer_commit):
 *   1. idempotency: a snapshot already committed by (commit_user,
 *      commit_identifier) is reported (outcome.already_committed) and
 *      nothing is committed again (the messages' files are left as they
 *      are: after PM_EUNCERTAIN they are the files that landed; a writer
 *      that re-ran checks pm_table_find_commit first);
 *   2. primary keys: buckets whose sorted runs would pass
 *      num-sorted-run.stop-trigger are compacted first (write stall,
 *      outcome.stall);
 *   3. one APPEND (or OVERWRITE) snapshot, retried on concurrent commits;
 *   4. unless the table is `write-only`, one automatic compaction round over
 *      the buckets the commit touched, published as its own COMPACT snapshot
 *      (outcome.compaction).  After an already committed snapshot, the round
 *      runs again over that snapshot's buckets (recovery of an interrupted
 *      round).
 * The data commit and the compaction round are reported apart: pm_commit
 * returns an error only when the data was not committed (then the
 * messages' files are deleted, except for PM_EUNCERTAIN, when the outcome
 * is unknown: keep them and retry with the same commit user and
 * identifier).  A failed compaction round leaves the data commit in place
 * and is returned in outcome.compaction_error, which the caller owns.
 *
 * Ownership: the caller owns writers, commit messages and the
 * outcome's compaction_error.  The table must outlive the writer.  Batches
 * and Arrow arrays passed in are borrowed for the call.
 */
#ifndef PAIMON_WRITE_H
#define PAIMON_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/arrow_c.h"
#include "paimon/batch.h"
#include "paimon/compact.h"
#include "paimon/error.h"
#include "paimon/rows.h"
#include "paimon/table.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PM_WRITE_OPTIONS_VERSION 1
/* The commit identifier of a one-off batch write (Java's BATCH_COMMIT_IDENTIFIER). */
#define PM_BATCH_COMMIT_IDENTIFIER INT64_MAX

typedef struct pm_write_options {
    int version;                              /* PM_WRITE_OPTIONS_VERSION */
    const char *commit_user;                  /* NULL = a random UUID per writer */
    int64_t commit_identifier;                /* PM_BATCH_COMMIT_IDENTIFIER by default */
    bool overwrite;                           /* OVERWRITE instead of APPEND */
    const char *const *overwrite_partitions;  /* "k=v[,k2=v2]": only these partitions; NULL = all */
    size_t noverwrite_partitions;
    size_t threads;                           /* encoding threads; 0 or 1 = the caller's only */
} pm_write_options;

#define PM_WRITE_OPTIONS_INIT {PM_WRITE_OPTIONS_VERSION, NULL, PM_BATCH_COMMIT_IDENTIFIER, false, NULL, 0, 0}
PM_API void pm_write_options_init(pm_write_options *o);

/* Version 2: the embedded metrics are pm_compact_metrics version 2 (a
 * version-1 outcome has another layout and is refused). */
#define PM_COMMIT_OUTCOME_VERSION 2

/* What a commit did.  Initialize with PM_COMMIT_OUTCOME_INIT (the library
 * fills the fields of that version). */
typedef struct pm_commit_outcome {
    int version;                      /* PM_COMMIT_OUTCOME_VERSION */
    int64_t snapshot_id;              /* the data snapshot; 0 = nothing to commit */
    bool already_committed;           /* published earlier with this user and identifier */
    int64_t rows;                     /* rows in the committed data files */
    int64_t files;                    /* data files committed */
    pm_compact_metrics stall;         /* compaction before the commit (snapshot_id 0 = none) */
    pm_compact_metrics compaction;    /* the automatic round after it (snapshot_id 0 = none) */
    pm_error *compaction_error;       /* the round failed (the data commit stands); caller frees */
} pm_commit_outcome;

#define PM_COMMIT_OUTCOME_INIT \
    {PM_COMMIT_OUTCOME_VERSION, 0, false, 0, 0, PM_COMPACT_METRICS_INIT, PM_COMPACT_METRICS_INIT, NULL}
PM_API void pm_commit_outcome_init(pm_commit_outcome *o);

typedef struct pm_writer pm_writer;
typedef struct pm_commit_messages pm_commit_messages;

/* A writer for `t` (o NULL = defaults).  Writing nothing and committing is
 * "nothing to commit". */
PM_API pm_error *pm_writer_new(pm_writer **out, pm_table *t, const pm_write_options *o);
/* The automatic rounds after this writer's commits count
 * lookup-compact=gentle rounds in t (compact.h; borrowed while the writer
 * lives), so a writer that lives across commits may use
 * lookup-compact=gentle.  NULL = none (gentle is refused). */
PM_API void pm_writer_set_compact_triggers(pm_writer *w, pm_compact_triggers *t);
/* The row type the writer accepts (the table's fields, plus `_ROW_KIND`
 * for primary-key tables); owned by w. */
PM_API const pm_type *pm_writer_input_type(const pm_writer *w);
/* The commit user (the options' or the random one); owned by w. */
PM_API const char *pm_writer_commit_user(const pm_writer *w);
/* Rows written so far (since the last prepare). */
PM_API int64_t pm_writer_row_count(const pm_writer *w);
/* Write the rows of a batch (columns matched by name). */
PM_API pm_error *pm_writer_write(pm_writer *w, const pm_batch *b);
/* Write an Arrow struct array (a record batch) of the given schema; the
 * structs are borrowed for the call and not released. */
PM_API pm_error *pm_writer_write_arrow(pm_writer *w, const struct ArrowSchema *schema,
                                       const struct ArrowArray *array);
/* The same, taking the array (moved: array->release is NULL on return,
 * also on failure) so columns whose layout is the table's are written
 * without a copy (pm_batch_import_move). */
PM_API pm_error *pm_writer_write_arrow_move(pm_writer *w, const struct ArrowSchema *schema,
                                            struct ArrowArray *array);
/* Write every array of an Arrow C stream without copying where the layout
 * allows, then release the stream. */
PM_API pm_error *pm_writer_write_arrow_stream(pm_writer *w, struct ArrowArrayStream *stream);
/* Write text rows (JSON lines or CSV, see rows.h) read from `src`. */
PM_API pm_error *pm_writer_write_rows(pm_writer *w, pm_rows_format fmt, pm_read_fn src, void *ctx);
/* Close every open file and hand out what was written as commit messages
 * (the caller owns them); the writer can go on writing afterwards. */
PM_API pm_error *pm_writer_prepare_commit(pm_commit_messages **out, pm_writer *w);
/* prepare_commit + pm_commit with the writer's options. */
PM_API pm_error *pm_writer_commit(pm_commit_outcome *out, pm_writer *w);
/* The same with commit identifier `commit_identifier` instead of the
 * options' (a writer that lives across commits: one identifier per
 * commit); its automatic round counts in the writer's triggers. */
PM_API pm_error *pm_writer_commit_as(pm_commit_outcome *out, pm_writer *w, int64_t commit_identifier);
/* Delete every file written and not handed out, then free. */
PM_API void pm_writer_abort(pm_writer *w);
/* Free; files not handed out stay on disk (orphans a later
 * remove-orphan-files may take): call pm_writer_abort to delete them. */
PM_API void pm_writer_free(pm_writer *w);

/* ---- commit messages ---- */

PM_API size_t pm_commit_messages_count(const pm_commit_messages *m);
/* New data files and the rows they hold (a row whose BLOB fields are in
 * dedicated .blob files counts once). */
PM_API int64_t pm_commit_messages_file_count(const pm_commit_messages *m);
PM_API int64_t pm_commit_messages_row_count(const pm_commit_messages *m);
/* Move the messages of `src` into `dst` (src is freed), e.g. to commit the
 * files of several writers at once. */
PM_API pm_error *pm_commit_messages_merge(pm_commit_messages *dst, pm_commit_messages *src);
/* JSON with "format": 1 (malloc'd; release with pm_free), so files written
 * in several processes are committed in one. */
PM_API pm_error *pm_commit_messages_to_json(char **out, const pm_commit_messages *m);
/* Strict, and every file name must be a plain name: PM_EINVALID naming the
 * field.  pm_commit then checks they are of its table and exist with their
 * sizes. */
PM_API pm_error *pm_commit_messages_from_json(pm_commit_messages **out, const char *json, size_t len);
/* Delete the data files of messages that will never be committed. */
PM_API pm_error *pm_commit_messages_abort(pm_table *t, const pm_commit_messages *m);
PM_API void pm_commit_messages_free(pm_commit_messages *m);

/* Commit `msgs` (NULL = none: only the idempotency check and the recovery
 * round) with o's commit user, identifier and overwrite settings. */
PM_API pm_error *pm_commit(pm_commit_outcome *out, pm_table *t, const pm_commit_messages *msgs,
                           const pm_write_options *o);

/* ---- data-evolution tables: changes by row ID ----
 * Prepared from the latest snapshot and committed as one APPEND snapshot
 * (idempotent by o's commit user and identifier when a user is given).
 * The commit fails with PM_ECONFLICT "... prepare again from the latest
 * snapshot" when a group the change was prepared against was rewritten
 * meanwhile (a compaction, a materialization) or its deletion vectors
 * changed; nothing is published then and the prepared files are deleted.
 * An update is followed by the automatic compaction round over the
 * buckets it touched (as pm_commit: not with write-only=true; a failure
 * goes to out->compaction_error, the update stays); a delete adds only
 * deletion vectors and runs no round.
 * out->rows = rows updated / newly deleted, out->files = files written. */

/* Partial-column update (pypaimon's update_by_arrow_with_row_id): `rows`
 * holds `_ROW_ID` (BIGINT, no nulls or duplicates, each a live row) and
 * one or more non-partition, non-BLOB columns of the table (by name, the
 * table's types); those columns take the new values, the others keep
 * theirs, row IDs stay.  o NULL = defaults (only commit_user and
 * commit_identifier are used).  PM_EINVALID before anything is written for
 * bad rows or a table without data-evolution.enabled.  `rows` is borrowed. */
PM_API pm_error *pm_table_update_by_row_id(pm_commit_outcome *out, pm_table *t, const pm_batch *rows,
                                           const pm_write_options *o);
/* Logical deletes (pypaimon's delete_by_row_id) through deletion vectors
 * of the rows' groups: needs deletion-vectors.enabled=true; row IDs that
 * are already deleted change nothing; a row ID that is no live row is
 * PM_EINVALID.  `row_ids` is borrowed. */
PM_API pm_error *pm_table_delete_by_row_id(pm_commit_outcome *out, pm_table *t, const int64_t *row_ids, size_t n,
                                           const pm_write_options *o);
/* Logical deletes of the rows satisfying `filter` (the language of
 * pm_read_options.filter, e.g. "dt = '2024-01-01' AND id >= 10"): the
 * live rows of the latest snapshot that match get deletion vectors, as
 * pm_table_delete_by_row_id with their row IDs (none matching: nothing is
 * committed, out->snapshot_id = 0).  PM_EINVALID for a bad filter before
 * anything is written.  `filter` is borrowed. */
PM_API pm_error *pm_table_delete_where(pm_commit_outcome *out, pm_table *t, const char *filter,
                                       const pm_write_options *o);

#ifdef __cplusplus
}
#endif
#endif
