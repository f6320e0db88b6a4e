/*
 * compact/append/append_rules.h — which files to compact together: pure functions
 * over the files of one (partition, bucket), no I/O, so every rule is unit
 * tested with plain numbers.  Each picker returns groups of indexes into
 * the input array; one group becomes one task, its order is the order the
 * executor streams the files.
 *
 * Unaware-bucket append tables (AppendCompactCoordinator, one call per
 * partition):
 *   candidates = files strictly smaller than `small` (target-file-size ×
 *   compaction.small-file-ratio), plus — with deletion vectors enabled —
 *   files whose DV cardinality exceeds row_count × delete-ratio-threshold
 *   (an unknown cardinality counts as exceeding).
 *   Without DVs: sort candidates by size (then min sequence, name); add each
 *   to a bin weighing file_size + open_file_cost; once the bin has at least
 *   2 files and weighs >= 2 × target, emit it; at the end emit the rest only
 *   if it has >= min_file_num files (an underfilled tail waits).  No cap on
 *   files per task.
 *   With DVs: candidates that have a DV are grouped by the DV index file
 *   holding it (a task rewrites whole DV index files, so an index file never
 *   spans two tasks); groups sorted by total size are binned the same way
 *   and the last bin is emitted unconditionally (deletes must be applied);
 *   candidates without DV are packed as above when there are more than one.
 *
 * Fixed-bucket append tables (BucketedAppendCompactManager, one call per
 * bucket): files in min-sequence order; a window grows file by file; when
 * it holds min_file_num files it is emitted and a new window starts after
 * it; otherwise, when its bytes reach 2 × target its first file is dropped
 * (the window slides).  A tail that never reaches min_file_num stays.  No
 * small-file filter, no open cost.  `single_window` stops after the first
 * window (deletion-vector tables rewrite the bucket's one DV index file per
 * task, so one task per bucket and plan).
 *
 * Full compaction (explicit, per bucket — per partition for unaware
 * tables), files in min-sequence order:
 *   - nothing when there are no files, or (no DVs, not forced) fewer than 3;
 *   - unless compaction.force-rewrite-all-files, leading files >= small
 *     without a DV are skipped;
 *   - with DVs enabled the rest is compacted (every file qualifies), except
 *     a lone remaining file without DV, whose rewrite would change nothing;
 *   - without DVs the rest is compacted when forced, or when its small
 *     files (< small) outnumber its large ones and it has >= 3 files.
 *   A last output still below `small` is an ordinary small file next time.
 *
 * Bounded passes (pm_compact_options.max_input_*), over the pending files:
 * a file is pending when it is below `small` or, with deletion vectors,
 * has too many deletes (the unaware candidates above).
 *   - unaware: the caller's prefix of the pending files (oldest first,
 *     compact_internal.h pm_compact_pending_prefix), widened by every
 *     pending file whose vector shares a DV index file with one of the
 *     prefix, is one group when it holds >= 2 files or a deletion vector;
 *   - fixed bucket: in min-sequence order, from the first pending file on,
 *     the contiguous files within max_files / max_bytes (the first always)
 *     are one group when they are >= 2 files (or one with a vector).
 *
 * min_file_num below 2 acts as 2.
 */
#ifndef PM_COMPACT_RULES_H
#define PM_COMPACT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"

typedef struct pm_compact_file_info {
    int64_t size;
    int64_t rows;
    int64_t min_seq;
    const char *name;          /* tie-breaker */
    bool has_dv;
    bool dv_card_known;
    int64_t dv_card;
    const char *dv_index;      /* DV index file holding its DV (NULL = none) */
} pm_compact_file_info;

typedef struct pm_compact_rules {
    int64_t target;            /* target-file-size */
    int64_t small;             /* target × compaction.small-file-ratio */
    int64_t open_cost;         /* source.split.open-file-cost */
    int32_t min_file_num;      /* compaction.min.file-num */
    double delete_ratio;       /* compaction.delete-ratio-threshold */
    bool dv_enabled;           /* deletion-vectors.enabled */
    bool force_rewrite_all;    /* compaction.force-rewrite-all-files */
    bool single_window;        /* bucketed: at most one window */
} pm_compact_rules;

/* Groups: group g holds idx[start(g) .. end[g]) with start(0) = 0 and
 * start(g) = end[g-1]. */
typedef struct pm_compact_groups {
    size_t *idx;
    size_t nidx, capidx;
    size_t *end;
    size_t ngroups, capgroups;
} pm_compact_groups;

void pm_compact_groups_free(pm_compact_groups *g);
static inline size_t pm_compact_group_start(const pm_compact_groups *g, size_t i)
{
    return i ? g->end[i - 1] : 0;
}

pm_error *pm_compact_pick_unaware(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                                  pm_compact_groups *out);
pm_error *pm_compact_pick_bucketed(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                                   pm_compact_groups *out);
pm_error *pm_compact_pick_full(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                               pm_compact_groups *out);

bool pm_compact_append_pending(const pm_compact_file_info *f, const pm_compact_rules *r);
pm_error *pm_compact_pick_bounded_unaware(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                                          const size_t *prefix, size_t nprefix, pm_compact_groups *out);
pm_error *pm_compact_pick_bounded_bucketed(const pm_compact_file_info *f, size_t n, const pm_compact_rules *r,
                                           int64_t max_files, int64_t max_bytes, pm_compact_groups *out);

#endif
