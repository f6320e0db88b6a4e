/*
 * compact/pk/pk_stall.c — the write stall of primary-key tables in paimon-c's
 * synchronous model.
 *
 * Java's writer waits for compaction when a bucket has more sorted runs
 * than `num-sorted-run.stop-trigger` (default compaction-trigger + 3).
 * Here a writer calls pm_compact_pk_stall with the level-0 files it is
 * about to commit, BEFORE the data commit:
 *   1. nothing for append tables, write-only tables, or modes compaction
 *      does not support (they keep their plain write behavior);
 *   2. for each touched (partition, bucket): runs = sorted runs of the
 *      latest snapshot (Levels) + the new level-0 files; the bucket stalls
 *      when runs > stop trigger;
 *   3. the stalled buckets are compacted first, in one COMPACT snapshot,
 *      with the explicit pick (normal triggers, else progress on every
 *      level-0 run), so the wait always makes progress; conflicts with a
 *      concurrent compaction replan (commit.max-retries).
 * Afterwards the writer commits its files; the automatic round after the
 * commit applies the normal triggers.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/compact_run.h"
#include "compact/pk/pk_compact.h"
#include "lsm/levels.h"

static const pm_bucket_files *find_bucket(const pm_scan_result *sr, const pm_bytes *p, int32_t bucket)
{
    for (size_t i = 0; i < sr->nbuckets; i++)
        if (sr->buckets[i].bucket == bucket && pm_compact_bytes_equal(&sr->buckets[i].partition, p))
            return &sr->buckets[i];
    return NULL;
}

pm_error *pm_compact_pk_stall(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                              const pm_bytes *partitions, const int32_t *buckets, const size_t *new_files, size_t n)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!n || !pm_table_has_primary_key(t))
        return NULL;
    const pm_options *o = pm_table_options(t);
    bool write_only = false;
    PM_TRY(pm_options_bool(o, PM_OPT_WRITE_ONLY, &write_only));
    if (write_only)
        return NULL;
    pm_compact_mode mode;
    pm_error *e = pm_compact_check_table(t, &mode);
    if (e && pm_error_code(e) == PM_EUNSUPPORTED) {
        pm_error_free(e);
        return NULL;
    }
    PM_TRY(e);
    int32_t stop = 0, num_levels = 0;
    PM_TRY(pm_options_stop_trigger(o, &stop));
    PM_TRY(pm_options_num_levels(o, &num_levels));

    pm_scan_result *sr = NULL;
    pm_type *kt = NULL;
    pm_bytes *sp = NULL;
    int32_t *sb = NULL;
    size_t ns = 0;
    pm_resources *res = NULL;
    pm_compact_builder *b = NULL;
    pm_compact_plan *p = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_TRY_GOTO(e, pm_table_scan(t, &so, &sr), done);
    if (!sr->snapshot)
        goto done;
    PM_TRY_GOTO(e, pm_schema_trimmed_primary_key_type(pm_table_schema(t), &kt), done);
    PM_TRY_GOTO(e, pm_calloc(&sp, n, sizeof *sp), done);
    PM_TRY_GOTO(e, pm_calloc(&sb, n, sizeof *sb), done);
    for (size_t i = 0; i < n; i++) {
        const pm_bucket_files *bf = find_bucket(sr, &partitions[i], buckets[i]);
        if (!bf || !bf->nfiles)
            continue;
        pm_levels *lv = NULL;
        PM_TRY_GOTO(e, pm_levels_new(&lv, kt, num_levels, bf->files, bf->nfiles), done);
        size_t runs = pm_levels_num_sorted_runs(lv) + new_files[i];
        pm_levels_free(lv);
        if ((int64_t)runs <= (int64_t)stop)
            continue;
        sp[ns] = partitions[i]; /* borrowed */
        sb[ns++] = buckets[i];
    }
    if (!ns)
        goto done;
    int32_t max_retries = 10;
    PM_TRY_GOTO(e, pm_options_int(o, PM_OPT_COMMIT_MAX_RETRIES, NULL, &max_retries), done);
    PM_TRY_GOTO(e, pm_resources_new(&res, 256LL << 20, 1), done);
    pm_compact_options co = {PM_COMPACT_OPTIONS_VERSION, commit_user, NULL, 0, false, res, NULL, 0};
    PM_TRY_GOTO(e, pm_compact_builder_new(&b, t, &co), done);
    b->only_partitions = sp;
    b->only_buckets = sb;
    b->nonly = ns;
    for (int attempt = 0;; attempt++) {
        PM_TRY_GOTO(e, pm_compact_plan_new(&p, b), done);
        e = pm_compact_run_plan(out, t, p, res, 1, NULL, NULL);
        if (!e || pm_error_code(e) != PM_ECONFLICT || attempt >= max_retries)
            break;
        pm_error_free(e);
        e = NULL;
        pm_compact_plan_free(p);
        p = NULL;
    }
done:
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    pm_resources_free(res);
    free(sp);
    free(sb);
    pm_type_free(kt);
    pm_scan_result_free(sr);
    return e ? pm_error_wrap(e, 0, "write stall: compaction of buckets above num-sorted-run.stop-trigger=%d",
                             (int)stop)
             : NULL;
}
