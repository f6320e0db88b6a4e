/*
 * compact/de/de_compact.h — compaction of data-evolution tables
 * (`data-evolution.enabled` + `row-tracking.enabled`, bucket -1) behind
 * the per-mode interface (compact_mode.h): mode "data-evolution", part
 * "de".
 *
 *   plan      per partition, de_rules.h over the bucket's live files (the
 *             normal files become the task's inputs, in row order, every
 *             version of a group together; dedicated files stay where
 *             they are); refused before anything is written: an input
 *             still holding a field the current schema keeps in dedicated
 *             (BLOB) files, an output wider than 4,294,967,296 row slots
 *             with deletion vectors on
 *             A bounded pass (pm_compact_options.max_input_*) plans only
 *             the prefix of de_rules.h pm_de_bounded_prefix (whole
 *             column-version groups in row order) with min_files 2;
 *             pending files (the `pending` hook): de_rules.h pm_de_pending
 *   execute   de_execute.c: the inputs' groups merged by row ID
 *             (table/de_read.h, deletions NOT applied: slots stay), the
 *             normal columns of the task's schema written into one file
 *             per output range (the part's cuts; no size or row rolling);
 *             each output: first row ID of its range, the inputs' minimum
 *             and maximum sequence numbers, _WRITE_COLS when dedicated
 *             fields are left out (no _WRITE_COLS_SEQUENCES: one version
 *             per column, bounded by the file's maximum; the manifests
 *             keep Paimon 2.0's fields); rows_written = physical slots
 *   commit    de_commit.c, on every attempt against the latest snapshot:
 *             a normal file of a selected range that is not an input
 *             (a concurrent column write) → "replan"; deletion vectors of
 *             the inputs' anchors move to the outputs (positions shifted
 *             by the range starts), the partition's DV index rewritten as
 *             one file holding every other vector as it is now
 * The part: the cut points of the task (row IDs where a new output
 * starts; none = one output covering the task's range).
 */
#ifndef PM_COMPACT_DE_COMPACT_H
#define PM_COMPACT_DE_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compact/compact_internal.h"

extern const pm_compact_mode_ops pm_compact_de_mode;

/* Family recognizer (compact_mode.c): tables with data-evolution.enabled;
 * *out = the mode, or PM_EUNSUPPORTED / PM_EINVALID naming what is not
 * supported (no row tracking, primary keys, bucket other than -1,
 * data-evolution.compaction.rewrite-row-ids=true, VARIANT columns,
 * data-file indexes, external data paths). */
pm_error *pm_de_mode_select(pm_table *t, const pm_compact_mode_ops **out);

typedef struct pm_compact_de {
    pm_compact_part base;
    int64_t *cuts;       /* ascending row IDs inside the task's range */
    size_t ncuts;
} pm_compact_de;

pm_compact_de *pm_de_part(const pm_compact_part *p);
pm_error *pm_compact_de_new(pm_compact_de **out);

/* Fields the schema keeps in dedicated files (BLOB fields). */
bool pm_de_dedicated_field(const pm_field *f);

/* The row range [*first, *first + *rows) a task's inputs cover. */
pm_error *pm_de_task_range(const pm_data_file_meta *files, size_t n, int64_t *first, int64_t *rows);

pm_error *pm_de_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget);
pm_error *pm_de_validate(void **state, pm_table *t, pm_compact_result *const *r, size_t n,
                         const pm_scan_result *live);
pm_error *pm_de_rebase_index(pm_table *t, pm_compact_result *const *r, size_t n, const pm_scan_result *live,
                             pm_index_manifest_entry **added, size_t *nadded, pm_index_manifest_entry **removed,
                             size_t *nremoved);

#endif
