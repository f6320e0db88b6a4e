/*
 * compact/append/append.h — compaction of append tables: the two modes
 * (append-unaware, bucket = -1; append-bucketed, bucket > 0) behind the
 * per-mode interface (compact_mode.h).  They share everything but what
 * the bucket number changes:
 *
 *                     append-unaware                append-bucketed
 *   plan              AppendCompactCoordinator      BucketedAppendCompactManager
 *                     packing per partition         min-sequence windows per bucket
 *                     (append_rules.h)              (append_rules.h)
 *   DV index files    those holding the inputs'     every DV index file of the
 *   a task rewrites   vectors (never split)         bucket (its one file)
 *   schedule          every task independent        a bucket's tasks in order
 *   execute           append_execute.c: inputs streamed through the file
 *                     reader (vectors applied) into the rolling COMPACT
 *                     writer, or row groups passed through; row-tracking
 *                     tables (unaware only) keep _ROW_ID / _SEQUENCE_NUMBER
 *                     as physical columns of the outputs
 *   commit            the shared checks only
 * --full: the bucketed full-compaction rule, and for a fixed bucket it
 * skips, the window rule (Java's normal round after a full compaction).
 * The mode has no part.
 */
#ifndef PM_COMPACT_APPEND_H
#define PM_COMPACT_APPEND_H

#include <stdbool.h>

#include "compact/compact_internal.h"

extern const pm_compact_mode_ops pm_compact_append_unaware_mode;
extern const pm_compact_mode_ops pm_compact_append_bucketed_mode;

/* Family recognizer (compact_mode.c): tables without primary keys are
 * append tables; *out = their mode, or PM_EUNSUPPORTED naming what
 * compaction does not support (data evolution, row tracking with a fixed
 * bucket, blob or
 * VARIANT columns, data-file indexes, external data paths, incremental
 * clustering, bucket-clustered tables, bucket values other than -1 or
 * > 0). */
pm_error *pm_append_mode_select(pm_table *t, const pm_compact_mode_ops **out);

/* One task (append_execute.c); bucketed: the bucket's one DV index file
 * is maintained, else the files holding the inputs' vectors. */
pm_error *pm_append_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget,
                            bool bucketed);

#endif
