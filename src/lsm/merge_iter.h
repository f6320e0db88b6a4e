/*
 * lsm/merge_iter.h — merged KeyValue batches: the loop every merge-on-read
 * and compaction runs (merge reader → merge function → optional retract
 * filter → output batches), plus helpers to feed it an unsorted in-memory
 * batch (a writer's buffer): a stable sort permutation by sort key and a
 * source yielding the rows in that order.
 *
 * Iterator steps per call: take groups from the merge reader, fold each
 * with the merge function, skip results that have none (all records
 * ignored) and, when drop_retracts is set, results of kind -U/-D (a
 * merge-on-read, or a compaction whose output may drop deletes per
 * pm_lsm_drop_delete); emit the rest into an output batch until it holds
 * batch_rows rows or the input ends.  The output batch is reused: it is
 * valid until the next call (share its columns with pm_kv_batch_share to
 * keep it).
 *
 * Sort: keys are encoded once (kv.h), row indices are merge-sorted by
 * memcmp of the sort keys (key, sequence fields, _SEQUENCE_NUMBER), ties
 * keeping the input order, so equal keys stay in arrival order.
 */
#ifndef PM_LSM_MERGE_ITER_H
#define PM_LSM_MERGE_ITER_H

#include <stdbool.h>
#include <stdint.h>

#include "lsm/merge_engine.h"
#include "lsm/merge_reader.h"

typedef struct pm_merge_iter pm_merge_iter;

typedef struct pm_merge_iter_options {
    int64_t batch_rows;              /* rows per output batch; 0 = 4096 */
    bool drop_retracts;              /* do not emit -U/-D results */
    const pm_type *out_type;         /* ROW of the output; NULL = the input row type (cloned) */
    const pm_kv_layout *out_layout;  /* NULL = the input layout (copied) */
} pm_merge_iter_options;

typedef struct pm_merge_iter_stats {
    int64_t records;      /* input records merged */
    int64_t groups;       /* distinct keys */
    int64_t emitted;      /* output rows */
    int64_t dropped;      /* retract results filtered out */
    int64_t ignored;      /* keys whose records were all ignored */
} pm_merge_iter_stats;

/* Takes the reader (freed with the iterator); borrows fn, which must
 * outlive the iterator.  in_layout/row_type describe the reader's input
 * (copied/cloned). */
pm_error *pm_merge_iter_new(pm_merge_iter **out, pm_merge_reader *reader, pm_merge_fn *fn, const pm_type *row_type,
                            const pm_kv_layout *in_layout, const pm_merge_iter_options *o);
/* *out = NULL at the end. */
pm_error *pm_merge_iter_next(pm_merge_iter *it, const pm_batch **out);
const pm_merge_iter_stats *pm_merge_iter_stats_get(const pm_merge_iter *it);
void pm_merge_iter_free(pm_merge_iter *it);

/* perm[0..n) = the rows of b ordered by sort key (stable). */
pm_error *pm_kv_sort_rows(const pm_kv_layout *l, const pm_batch *b, int64_t *perm);
/* A source yielding the rows of b in perm order, chunk_rows (0 = 4096)
 * at a time (copies).  Takes b and perm (malloc'd, n entries). */
pm_error *pm_kv_source_sorted(pm_batch *b, int64_t *perm, int64_t n, int64_t chunk_rows, pm_kv_source *out);

#endif
