/*
 * compact/pk/pk_stall.c — which primary-key buckets stall a writer (the
 * mode's write_stall, compact_mode.h).
 *
 * Java's writer waits for compaction when a bucket has more sorted runs
 * than `num-sorted-run.stop-trigger` (default compaction-trigger + 3).
 * In paimon-c's synchronous model the writer asks before its data commit
 * (pm_compact_write_stall, compact_auto.h): a touched bucket stalls when
 * the sorted runs of the latest snapshot (Levels) plus the new level-0
 * files exceed the stop trigger.  The shared round then compacts the
 * stalled buckets first, with the explicit pick (normal triggers, else
 * progress on every level-0 run), so the wait always makes progress.
 */
#include <stdlib.h>
#include <string.h>

#include "compact/pk/pk_compact.h"
#include "lsm/levels.h"

pm_error *pm_pk_write_stall(pm_table *t, const pm_scan_result *live, const pm_bytes *partitions,
                            const int32_t *buckets, const size_t *new_files, size_t n, bool *stalled)
{
    const pm_options *o = pm_table_options(t);
    if (pm_pk_is_postpone(t)) {
        for (size_t i = 0; i < n; i++)
            stalled[i] = false; /* postpone writes never wait for compaction */
        return NULL;
    }
    int32_t stop = 0, num_levels = 0;
    PM_TRY(pm_options_stop_trigger(o, &stop));
    PM_TRY(pm_options_num_levels(o, &num_levels));
    pm_type *kt = NULL;
    PM_TRY(pm_schema_trimmed_primary_key_type(pm_table_schema(t), &kt));
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        stalled[i] = false;
        const pm_bucket_files *bf = pm_compact_find_bucket(live, &partitions[i], buckets[i]);
        if (!bf || !bf->nfiles)
            continue;
        pm_levels *lv = NULL;
        e = pm_levels_new(&lv, kt, num_levels, bf->files, bf->nfiles);
        if (!e)
            stalled[i] = (int64_t)(pm_levels_num_sorted_runs(lv) + new_files[i]) > (int64_t)stop;
        pm_levels_free(lv);
    }
    pm_type_free(kt);
    return e ? pm_error_wrap(e, 0, "write stall: sorted runs against num-sorted-run.stop-trigger=%d", (int)stop)
             : NULL;
}
