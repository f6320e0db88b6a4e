/*
 * compact/de/de_rules.h — the planning rules of data-evolution compaction
 * as pure functions over file descriptions (DataEvolutionCompactCoordinator
 * as the seed "Data Evolution compaction" states them), so every boundary
 * is unit-tested without a table.
 *
 * Input: the live files of one partition (bucket 0), each with its first
 * row ID, row count, size and whether it is dedicated (`.blob`).
 *   1. Ranges: files whose row-ID ranges overlap or touch (end + 1 =
 *      start) form one stretch; a gap between stretches drains the bin.
 *   2. Groups: inside a stretch, the normal files whose ranges overlap form
 *      one aligned group (every version of the range, shadowed column
 *      files included); groups are taken in row-ID order.
 *   3. Weight of a group = sum over its normal files of
 *      max(file size, open_cost).  A group whose weight alone strictly
 *      exceeds `target` is isolated (the bin before it drains, then the
 *      group is its own bin); otherwise it joins the bin, and the bin
 *      drains as soon as its weight strictly exceeds `target`.  The end of
 *      a stretch drains the bin.
 *   4. A drained bin becomes a task when it holds at least `min_files`
 *      normal files (1 is allowed: it rewrites a single file, e.g. into
 *      the current schema).
 *   5. Splitting (split_large = true): a group holding a normal file
 *      strictly larger than target × ratio is isolated and becomes a
 *      split task even below min_files when a cut is possible: rows per
 *      output = max(1, target × rows / total normal size of the group);
 *      cut points every that many rows from the group's start, each moved
 *      forward to the end of every dedicated file whose range it falls
 *      strictly inside (repeated until none does, so overlapping dedicated
 *      ranges of other columns and versions are respected); cuts at or
 *      past the group's end are dropped, duplicates merged.  No cut left:
 *      size alone makes no task (the group is still a normal merge
 *      candidate under rule 4).
 * The small-file ratio of append tables does not apply.
 *
 * Pending files (pm_de_pending, what the compaction service waits on):
 * normal files below `target`, and every normal file of a column-version
 * group (normal files whose row ranges overlap).  A bounded pass
 * (pm_de_bounded_prefix): groups in row-ID order, from the first one
 * holding a pending file, each next one only when it also holds one and
 * starts right after the previous (touching ranges), while the files stay
 * within max_files and the bytes within max_bytes (0 = no bound; the first
 * group is always taken); the dedicated files inside the taken range come
 * along.  The prefix is then planned by rules 1-5 with min_files 2.
 */
#ifndef PM_COMPACT_DE_RULES_H
#define PM_COMPACT_DE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"

typedef struct pm_de_file_info {
    int64_t first_row_id;
    int64_t rows;
    int64_t size;
    bool dedicated;
} pm_de_file_info;

typedef struct pm_de_rules {
    int64_t target;        /* target-file-size, > 0 */
    int64_t open_cost;     /* source.split.open-file-cost */
    int32_t min_files;     /* compaction.min.file-num, >= 1 */
    bool split_large;      /* data-evolution.compaction.split-large-files */
    double ratio;          /* data-evolution.compaction.large-file-ratio, >= 1 */
} pm_de_rules;

/* One planned task: normal file indexes (row order, then version order as
 * given) and the cut points (row IDs where a new output starts). */
typedef struct pm_de_pick {
    size_t *files;
    size_t nfiles;
    int64_t *cuts;
    size_t ncuts;
    int64_t first_row_id;  /* the task's range */
    int64_t rows;
} pm_de_pick;

typedef struct pm_de_picks {
    pm_de_pick *v;
    size_t n;
} pm_de_picks;

/* Tasks of one partition's files f[0..n) (see top).  PM_ECORRUPT when the
 * normal files of a group do not share one range. */
pm_error *pm_de_plan_partition(const pm_de_file_info *f, size_t n, const pm_de_rules *r, pm_de_picks *out);
void pm_de_picks_free(pm_de_picks *p);

/* Rule 5's cut points for a range [first, first + rows) of total normal
 * size `size`, moved past the dedicated files ded[0..nd) (*cuts malloc'd,
 * ascending; *ncuts = 0 when no split is possible). */
pm_error *pm_de_split_cuts(int64_t first, int64_t rows, int64_t size, int64_t target, const pm_de_file_info *ded,
                           size_t nd, int64_t **cuts, size_t *ncuts);

/* pending[i] for f[0..n) (see top). */
pm_error *pm_de_pending(const pm_de_file_info *f, size_t n, int64_t target, bool *pending);
/* take[i]: file i is in the bounded prefix (see top). */
pm_error *pm_de_bounded_prefix(const pm_de_file_info *f, size_t n, int64_t target, int64_t max_files,
                               int64_t max_bytes, bool *take);

#endif
