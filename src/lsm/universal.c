/*
 * lsm/universal.c — universal compaction picking (rules in universal.h).
 *
 * Arithmetic follows Java exactly: the amplification test multiplies longs
 * (wrapping like Java on overflow), the ratio test runs in double with the
 * same operation order.
 */
#include "lsm/universal.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void pm_compact_unit_clear(pm_compact_unit *u)
{
    if (!u)
        return;
    free(u->files);
    memset(u, 0, sizeof *u);
}

size_t pm_compact_unit_file_count(const pm_compact_unit *u, const pm_sorted_run *runs)
{
    if (!u->has)
        return 0;
    if (u->file_rewrite)
        return u->nfiles;
    size_t n = 0;
    for (size_t i = 0; i < u->nruns; i++)
        n += runs[i].nfiles;
    return n;
}

static int64_t java_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

int32_t pm_universal_offpeak_ratio(const pm_universal_opts *o, int32_t hour)
{
    int32_t s = o->offpeak_start, e = o->offpeak_end;
    if (s == -1 || e == -1 || s == e)
        return 0;
    bool off = s <= e ? (s <= hour && hour < e) : (hour < e || s <= hour);
    return off ? o->offpeak_ratio : 0;
}

static void unit_runs(pm_compact_unit *out, int32_t level, size_t nruns, bool full)
{
    memset(out, 0, sizeof *out);
    out->has = true;
    out->output_level = level;
    out->nruns = nruns;
    out->full = full;
}

/* createUnit(runs, maxLevel, runCount). */
static void create_unit(int32_t max_level, const pm_sorted_run *runs, size_t n, size_t count,
                        pm_compact_unit *out)
{
    int32_t level;
    if (count == n) {
        level = max_level;
    } else {
        level = runs[count].level - 1;
        if (level < 0)
            level = 0;
    }
    if (level == 0) {
        for (size_t i = count; i < n; i++) {
            count++;
            if (runs[i].level != 0) {
                level = runs[i].level;
                break;
            }
        }
    }
    bool full = false;
    if (count == n) {
        full = true;
        level = max_level;
    }
    unit_runs(out, level, count, full);
}

pm_error *pm_universal_pick_for_size_ratio(const pm_universal_opts *o, int32_t num_levels,
                                           const pm_sorted_run *runs, size_t n, size_t count, bool force,
                                           const pm_pick_clock *clock, pm_compact_unit *out)
{
    memset(out, 0, sizeof *out);
    if (count > n)
        return pm_error_new(PM_EINVALID, "size-ratio pick of %zu runs out of %zu", count, n);
    int64_t size = 0;
    for (size_t i = 0; i < count; i++)
        size += runs[i].size;
    int32_t off = pm_universal_offpeak_ratio(o, clock ? clock->hour : 0);
    for (size_t i = count; i < n; i++) {
        if ((double)size * (100.0 + o->size_ratio + off) / 100.0 < (double)runs[i].size)
            break;
        size += runs[i].size;
        count++;
    }
    if (force || count > 1)
        create_unit(num_levels - 1, runs, n, count, out);
    return NULL;
}

/* EarlyFullCompaction.tryFullCompact. */
static bool early_full(const pm_universal_opts *o, int32_t max_level, const pm_sorted_run *runs, size_t n,
                       const pm_pick_clock *clock)
{
    if (!(o->has_interval || o->has_total_threshold || o->has_incr_threshold) || n == 1)
        return false;
    if (o->has_interval) {
        if (!clock || !clock->has_last_full || clock->now_ms - clock->last_full_ms > o->interval_ms)
            return true;
    }
    if (o->has_total_threshold) {
        int64_t total = 0;
        for (size_t i = 0; i < n; i++)
            total += runs[i].size;
        if (total < o->total_threshold)
            return true;
    }
    if (o->has_incr_threshold) {
        int64_t inc = 0;
        for (size_t i = 0; i < n; i++)
            if (runs[i].level != max_level)
                inc += runs[i].size;
        if (inc > o->incr_threshold)
            return true;
    }
    return false;
}

pm_error *pm_universal_pick(const pm_universal_opts *o, int32_t num_levels, const pm_sorted_run *runs, size_t n,
                            const pm_pick_clock *clock, pm_compact_unit *out)
{
    memset(out, 0, sizeof *out);
    if (num_levels < 2)
        return pm_error_new(PM_EINVALID, "number of levels must be at least 2, got %d", (int)num_levels);
    if (o->run_trigger < 1)
        return pm_error_new(PM_EINVALID, "num-sorted-run.compaction-trigger must be positive, got %d",
                            (int)o->run_trigger);
    int32_t max_level = num_levels - 1;
    /* 0: early full compaction */
    if (early_full(o, max_level, runs, n, clock)) {
        unit_runs(out, max_level, n, true);
        return NULL;
    }
    if (n >= (size_t)o->run_trigger && n > 0) {
        /* 1: size amplification */
        int64_t candidate = 0;
        for (size_t i = 0; i + 1 < n; i++)
            candidate += runs[i].size;
        if (java_mul(candidate, 100) > java_mul(o->max_size_amp, runs[n - 1].size)) {
            unit_runs(out, max_level, n, true);
            return NULL;
        }
        /* 2: size ratio */
        PM_TRY(pm_universal_pick_for_size_ratio(o, num_levels, runs, n, 1, false, clock, out));
        if (out->has)
            return NULL;
    }
    /* 3: run count */
    if (n > (size_t)o->run_trigger)
        return pm_universal_pick_for_size_ratio(o, num_levels, runs, n, n - (size_t)o->run_trigger + 1, false,
                                                clock, out);
    return NULL;
}

pm_error *pm_universal_force_pick_l0(const pm_universal_opts *o, int32_t num_levels, const pm_sorted_run *runs,
                                     size_t n, const pm_pick_clock *clock, pm_compact_unit *out)
{
    memset(out, 0, sizeof *out);
    size_t count = 0;
    while (count < n && runs[count].level <= 0)
        count++;
    if (count == 0)
        return NULL;
    /* level 1 must be compacted with level 0 so no level-0 output appears */
    if (count < n && runs[count].level == 1)
        count++;
    return pm_universal_pick_for_size_ratio(o, num_levels, runs, n, count, true, clock, out);
}

/* CompactStrategy.pickFullCompaction. */
static pm_error *pick_full(int32_t num_levels, const pm_sorted_run *runs, size_t n, const bool *rewrite_files,
                           bool force_rewrite_all, pm_compact_unit *out)
{
    memset(out, 0, sizeof *out);
    int32_t max_level = num_levels - 1;
    if (n == 0)
        return NULL;
    if (n == 1 && runs[0].level == max_level) {
        size_t k = 0;
        for (size_t i = 0; i < runs[0].nfiles; i++)
            k += force_rewrite_all || (rewrite_files && rewrite_files[i]);
        if (k == 0)
            return NULL;
        size_t *idx = malloc(k * sizeof *idx);
        if (!idx)
            return pm_oom();
        k = 0;
        for (size_t i = 0; i < runs[0].nfiles; i++)
            if (force_rewrite_all || (rewrite_files && rewrite_files[i]))
                idx[k++] = i;
        out->has = true;
        out->output_level = max_level;
        out->nruns = 1;
        out->file_rewrite = true;
        out->files = idx;
        out->nfiles = k;
        return NULL;
    }
    unit_runs(out, max_level, n, false);
    return NULL;
}

/* MergeTreeCompactManager.triggerCompaction's filter. */
static void manager_filter(const pm_sorted_run *runs, pm_compact_unit *u)
{
    if (!u->has)
        return;
    size_t files = pm_compact_unit_file_count(u, runs);
    bool single_in_place = files == 1 && !u->file_rewrite && runs[0].level == u->output_level;
    if (files == 0 || single_in_place) {
        bool full = u->full;
        pm_compact_unit_clear(u);
        u->full = full; /* Java records the full compaction during the pick */
    }
}

pm_error *pm_compact_pick(const pm_compact_strategy *s, pm_pick_mode mode, int32_t num_levels,
                          const pm_sorted_run *runs, size_t n, const pm_pick_clock *clock,
                          const bool *rewrite_files, bool force_rewrite_all, pm_compact_unit *out)
{
    memset(out, 0, sizeof *out);
    if (num_levels < 2)
        return pm_error_new(PM_EINVALID, "number of levels must be at least 2, got %d", (int)num_levels);
    if (mode == PM_PICK_FULL)
        return pick_full(num_levels, runs, n, rewrite_files, force_rewrite_all, out);
    PM_TRY(pm_universal_pick(&s->u, num_levels, runs, n, clock, out));
    if (!out->has && (s->force_up_level0 || mode == PM_PICK_EXPLICIT)) {
        bool full = out->full;
        PM_TRY(pm_universal_force_pick_l0(&s->u, num_levels, runs, n, clock, out));
        out->full |= full;
    }
    manager_filter(runs, out);
    return NULL;
}

pm_error *pm_universal_opts_from_options(const pm_options *o, pm_universal_opts *out)
{
    memset(out, 0, sizeof *out);
    bool has;
    PM_TRY(pm_options_int(o, PM_OPT_COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT, &has, &out->max_size_amp));
    PM_TRY(pm_options_int(o, PM_OPT_COMPACTION_SIZE_RATIO, &has, &out->size_ratio));
    PM_TRY(pm_options_int(o, PM_OPT_NUM_SORTED_RUN_COMPACTION_TRIGGER, &has, &out->run_trigger));
    if (out->run_trigger < 1)
        return pm_error_new(PM_EINVALID, "num-sorted-run.compaction-trigger must be positive, got %d",
                            (int)out->run_trigger);
    PM_TRY(pm_options_duration_ms(o, PM_OPT_COMPACTION_OPTIMIZATION_INTERVAL, &out->has_interval,
                                  &out->interval_ms));
    PM_TRY(pm_options_memory(o, PM_OPT_COMPACTION_TOTAL_SIZE_THRESHOLD, &out->has_total_threshold,
                             &out->total_threshold));
    PM_TRY(pm_options_memory(o, PM_OPT_COMPACTION_INCREMENTAL_SIZE_THRESHOLD, &out->has_incr_threshold,
                             &out->incr_threshold));
    PM_TRY(pm_options_int(o, PM_OPT_COMPACTION_OFFPEAK_START_HOUR, &has, &out->offpeak_start));
    if (!has)
        out->offpeak_start = -1;
    PM_TRY(pm_options_int(o, PM_OPT_COMPACTION_OFFPEAK_END_HOUR, &has, &out->offpeak_end));
    if (!has)
        out->offpeak_end = -1;
    PM_TRY(pm_options_int(o, PM_OPT_COMPACTION_OFFPEAK_RATIO, &has, &out->offpeak_ratio));
    return NULL;
}

pm_error *pm_compact_strategy_from_options(const pm_options *o, bool automatic, pm_compact_strategy *out)
{
    memset(out, 0, sizeof *out);
    PM_TRY(pm_universal_opts_from_options(o, &out->u));
    int engine, producer, lookup_compact;
    bool dv, force_lookup, force_l0;
    PM_TRY(pm_options_enum(o, PM_OPT_MERGE_ENGINE, &engine));
    PM_TRY(pm_options_enum(o, PM_OPT_CHANGELOG_PRODUCER, &producer));
    PM_TRY(pm_options_enum(o, PM_OPT_LOOKUP_COMPACT, &lookup_compact));
    PM_TRY(pm_options_bool(o, PM_OPT_DELETION_VECTORS_ENABLED, &dv));
    PM_TRY(pm_options_bool(o, PM_OPT_FORCE_LOOKUP, &force_lookup));
    PM_TRY(pm_options_bool(o, PM_OPT_COMPACTION_FORCE_UP_LEVEL_0, &force_l0));
    bool need_lookup = engine == PM_MERGE_FIRST_ROW || producer == PM_CHANGELOG_LOOKUP || dv || force_lookup;
    if (need_lookup) {
        if (lookup_compact == PM_LOOKUP_COMPACT_GENTLE && automatic)
            return pm_error_new(PM_EUNSUPPORTED,
                                "lookup-compact=gentle needs writer-lifetime trigger intervals and is not "
                                "supported for automatic compaction; set write-only=true and run dedicated "
                                "compaction, or use lookup-compact=radical");
        out->force_up_level0 = true;
    } else {
        out->force_up_level0 = force_l0;
    }
    return NULL;
}
