/*
 * compact/compact_auto.c — automatic compaction around a data commit
 * (contract in compact_auto.h): the round after a write and the write
 * stall before one.
 *
 * A round: builder restricted to the given (partition, bucket) pairs,
 * latest snapshot → plan → execute with at most `threads` buckets at once
 * → commit with the writer's commit user.  A PM_ECONFLICT (another writer
 * or job compacted the same files) aborts that attempt's outputs and plans
 * again against the new latest snapshot, up to commit.max-retries times
 * with the commit backoff (commit.min-retry-wait .. commit.max-retry-wait,
 * doubling, 20% jitter).
 * After a write: write-only / mode check → write.compaction.parallelism →
 * touched pairs (given, or read from the data snapshot's delta manifests)
 * → an automatic round (the planners' automatic thresholds; a full
 * compaction when full-compaction.delta-commits says so); a latest
 * snapshot below the data snapshot is a conflict.  Errors are wrapped so
 * the message says the data commit stays committed, keeping the cause.
 * Write stall: write-only / mode check → the mode's write_stall over the
 * latest snapshot → an explicit round over the stalled buckets, one at a
 * time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_auto.h"
#include "compact/compact_run.h"
#include "compact/global_index_maint.h"
#include "meta/manifest.h"
#include "table/table_internal.h"

static void backoff_ms(int64_t min_ms, int64_t max_ms, int attempt)
{
    double w = (double)(min_ms > 0 ? min_ms : 1);
    for (int i = 0; i < attempt && w < (double)max_ms; i++)
        w *= 2;
    if (w > (double)max_ms)
        w = (double)max_ms;
    uint32_t rnd = 0;
    pm_error_free(pm_random_bytes(&rnd, sizeof rnd));
    int64_t wait = (int64_t)w + (int64_t)(rnd % (uint32_t)((int64_t)w / 5 + 1));
    struct timespec ts = {(time_t)(wait / 1000), (long)(wait % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static pm_error *parallelism_option(const pm_options *o, int32_t *out)
{
    const char *v = pm_options_get(o, "write.compaction.parallelism");
    *out = 4;
    if (!v)
        return NULL;
    PM_TRY(pm_error_wrap(pm_parse_int32(v, out), PM_EINVALID, "option write.compaction.parallelism=%s", v));
    if (*out <= 0)
        return pm_error_new(PM_EINVALID, "option write.compaction.parallelism=%s must be a positive integer", v);
    return NULL;
}

typedef struct touched {
    pm_bytes *parts;
    int32_t *buckets;
    size_t n, cap;
} touched;

static void touched_free(touched *t)
{
    for (size_t i = 0; i < t->n; i++)
        pm_bytes_clear(&t->parts[i]);
    free(t->parts);
    free(t->buckets);
    memset(t, 0, sizeof *t);
}

static pm_error *touched_add(touched *t, const pm_bytes *p, int32_t bucket)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->buckets[i] == bucket && pm_compact_bytes_equal(&t->parts[i], p))
            return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        PM_TRY(pm_realloc_array(&t->parts, cap, sizeof *t->parts));
        PM_TRY(pm_realloc_array(&t->buckets, cap, sizeof *t->buckets));
        t->cap = cap;
    }
    memset(&t->parts[t->n], 0, sizeof t->parts[t->n]);
    PM_TRY(pm_bytes_set(&t->parts[t->n], p->data, p->len));
    t->buckets[t->n++] = bucket;
    return NULL;
}

static pm_error *touched_entry(void *ctx, const pm_manifest_entry *en)
{
    return en->kind == PM_FILE_ADD ? touched_add(ctx, &en->partition, en->bucket) : NULL;
}

/* The (partition, bucket) pairs a data snapshot added files to. */
static pm_error *touched_from_snapshot(pm_table *t, int64_t id, touched *out)
{
    pm_snapshot *s = NULL;
    PM_TRY(pm_snapshot_store_load(t->snapshots, id, &s));
    pm_error *e = NULL;
    if (s->delta_manifest_list)
        e = pm_compact_manifest_list_entries(t, s->delta_manifest_list, touched_entry, out);
    pm_snapshot_free(s);
    return e ? pm_error_wrap(e, 0, "files touched by snapshot %lld", (long long)id) : NULL;
}

typedef struct round {
    const char *commit_user;
    const pm_bytes *partitions;   /* the pairs to compact */
    const int32_t *buckets;
    size_t n;
    bool automatic;               /* automatic thresholds (else the explicit pick) */
    bool full;                    /* full compaction (full-compaction.delta-commits) */
    size_t threads;
    int64_t min_snapshot;         /* the latest snapshot may not be below it (0 = any) */
    pm_compact_triggers *triggers; /* a long-lived writer's counters (NULL = none) */
} round;

static pm_error *run_round(pm_compact_metrics *m, pm_table *t, const round *rd)
{
    const pm_options *o = pm_table_options(t);
    pm_resources *res = NULL;
    pm_compact_builder *b = NULL;
    pm_compact_plan *p = NULL;
    pm_error *e = NULL;
    int32_t max_retries = 10;
    int64_t min_wait = 10, max_wait = 10000;
    PM_TRY_GOTO(e, pm_options_int(o, PM_OPT_COMMIT_MAX_RETRIES, NULL, &max_retries), done);
    PM_TRY_GOTO(e, pm_options_duration_ms(o, PM_OPT_COMMIT_MIN_RETRY_WAIT, NULL, &min_wait), done);
    PM_TRY_GOTO(e, pm_options_duration_ms(o, PM_OPT_COMMIT_MAX_RETRY_WAIT, NULL, &max_wait), done);
    PM_TRY_GOTO(e, pm_resources_new(&res, 256LL << 20, rd->threads), done);
    pm_compact_options co = PM_COMPACT_OPTIONS_INIT;
    co.commit_user = rd->commit_user;
    co.resources = res;
    co.full = rd->full;
    PM_TRY_GOTO(e, pm_compact_builder_new(&b, t, &co), done);
    b->only_partitions = rd->partitions;
    b->only_buckets = rd->buckets;
    b->nonly = rd->n;
    b->automatic = rd->automatic && !rd->full;
    if (b->automatic)
        b->triggers = rd->triggers;
    for (int attempt = 0;; attempt++) {
        PM_TRY_GOTO(e, pm_compact_plan_new(&p, b), done);
        if (p->snapshot_id < rd->min_snapshot) {
            e = pm_error_new(PM_ECONFLICT, "latest snapshot %lld is below the data snapshot %lld",
                             (long long)p->snapshot_id, (long long)rd->min_snapshot);
            goto done;
        }
        e = pm_compact_run_plan(m, t, p, res, rd->threads, NULL, NULL);
        if (!e || pm_error_code(e) != PM_ECONFLICT || attempt >= max_retries)
            break;
        pm_error_free(e);
        e = NULL;
        pm_compact_plan_free(p);
        p = NULL;
        backoff_ms(min_wait, max_wait, attempt);
    }
done:
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    pm_resources_free(res);
    return e;
}

/* write-only tables and tables whose mode compaction does not support
 * keep their plain write behavior: *skip. */
static pm_error *automatic_mode(pm_table *t, const pm_compact_mode_ops **mode, bool *skip)
{
    *skip = true;
    *mode = NULL;
    bool write_only = false;
    PM_TRY(pm_options_bool(pm_table_options(t), PM_OPT_WRITE_ONLY, &write_only));
    if (write_only)
        return NULL;
    pm_error *e = pm_compact_table_mode(t, mode);
    if (e && pm_error_code(e) == PM_EUNSUPPORTED) {
        pm_error_free(e);
        return NULL;
    }
    PM_TRY(e);
    *skip = false;
    return NULL;
}

/* full-compaction.delta-commits (Java's GlobalFullCompactionSinkWrite):
 * with changelog-producer=full-compaction or the option set, a data
 * commit whose identifier is a multiple of N (the option, default 1) or
 * the batch identifier makes the round a full compaction of every pair
 * this commit user wrote since its previous such commit (its data
 * snapshots are walked back to that one, or to the earliest snapshot).
 * *full = the round is full; out then holds those pairs and the given
 * ones. */
static pm_error *full_round(pm_table *t, int64_t data_snapshot_id, const char *user, const pm_bytes *partitions,
                            const int32_t *buckets, size_t n, bool *full, touched *out)
{
    *full = false;
    if (!pm_table_has_primary_key(t))
        return NULL;
    const pm_options *o = pm_table_options(t);
    int producer = 0;
    PM_TRY(pm_options_enum(o, PM_OPT_CHANGELOG_PRODUCER, &producer));
    bool has = false;
    int32_t every = 1;
    PM_TRY(pm_options_int(o, PM_OPT_FULL_COMPACTION_DELTA_COMMITS, &has, &every));
    if (!has && producer != PM_CHANGELOG_FULL_COMPACTION)
        return NULL;
    if (every < 1)
        every = 1;
    pm_snapshot *s = NULL;
    PM_TRY(pm_snapshot_store_load(t->snapshots, data_snapshot_id, &s));
    int64_t id = s->commit_identifier;
    pm_snapshot_free(s);
    if (id != INT64_MAX && id % every != 0)
        return NULL;
    *full = true;
    for (size_t i = 0; i < n; i++)
        PM_TRY(touched_add(out, &partitions[i], buckets[i]));
    bool found = false;
    int64_t earliest = 0;
    PM_TRY(pm_snapshot_store_earliest_id(t->snapshots, &found, &earliest));
    for (int64_t sid = data_snapshot_id - 1; found && sid >= earliest; sid--) {
        bool exists = false;
        PM_TRY(pm_snapshot_store_exists(t->snapshots, sid, &exists));
        if (!exists)
            break; /* expired meanwhile */
        PM_TRY(pm_snapshot_store_load(t->snapshots, sid, &s));
        bool mine = user && s->commit_user && !strcmp(s->commit_user, user) &&
                    (s->commit_kind == PM_COMMIT_APPEND || s->commit_kind == PM_COMMIT_OVERWRITE);
        bool stop = mine && (s->commit_identifier == INT64_MAX || s->commit_identifier % every == 0);
        pm_snapshot_free(s);
        if (stop)
            break;
        if (mine)
            PM_TRY(touched_from_snapshot(t, sid, out));
    }
    return NULL;
}

/* The global index round after data snapshot `data_snapshot_id`: its
 * identity (user "<commit user>:global-index", identifier = the data
 * snapshot id) makes a repeated recovery find the published round. */
pm_error *pm_compact_global_index_round(pm_table *t, int64_t data_snapshot_id, const char *commit_user)
{
    bool declared = false;
    PM_TRY(pm_gi_maint_declared(t, &declared));
    if (!declared || pm_table_has_primary_key(t))
        return NULL; /* primary keys: data compaction maintains them (compact/pk/pk_global_index.h) */
    char user[512];
    snprintf(user, sizeof user, "%s:global-index", commit_user ? commit_user : "paimon-c");
    pm_gi_maint_options o = {NULL, user, data_snapshot_id, data_snapshot_id};
    pm_gi_maint_result r;
    return pm_gi_maintain(t, &o, &r);
}

pm_error *pm_compact_after_write(pm_compact_metrics *out, pm_table *t, int64_t data_snapshot_id,
                                 const char *commit_user, const pm_bytes *partitions, const int32_t *buckets,
                                 size_t ntouched, pm_compact_triggers *triggers)
{
    PM_TRY(pm_compact_metrics_check(out));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_compact_metrics_put(out, &m);
    const pm_compact_mode_ops *mode;
    bool skip;
    PM_TRY(automatic_mode(t, &mode, &skip));
    if (skip)
        return NULL;
    int32_t par;
    PM_TRY(parallelism_option(pm_table_options(t), &par));
    touched tc = {0};
    pm_error *e = NULL;
    if (!partitions || !ntouched) {
        PM_TRY_GOTO(e, touched_from_snapshot(t, data_snapshot_id, &tc), done);
        partitions = tc.parts;
        buckets = tc.buckets;
        ntouched = tc.n;
    }
    bool full = false;
    PM_TRY_GOTO(e, full_round(t, data_snapshot_id, commit_user, partitions, buckets, ntouched, &full, &tc), done);
    if (full && tc.n) {
        partitions = tc.parts;
        buckets = tc.buckets;
        ntouched = tc.n;
    }
    if (ntouched) {
        round rd = {commit_user, partitions, buckets, ntouched, true, full, (size_t)par, data_snapshot_id, triggers};
        e = run_round(&m, t, &rd);
    }
done:
    touched_free(&tc);
    if (e)
        return pm_error_wrap(e, 0, "automatic compaction after snapshot %lld failed (the data commit stays "
                             "committed)", (long long)data_snapshot_id);
    pm_compact_metrics_put(out, &m);
    /* declared global indexes, after the round (even an empty one) */
    PM_TRY(pm_error_wrap(pm_compact_global_index_round(t, data_snapshot_id, commit_user), 0,
                         "global index maintenance after snapshot %lld failed (the data commit stays committed)",
                         (long long)data_snapshot_id));
    return NULL;
}

pm_error *pm_compact_write_stall(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                                 const pm_bytes *partitions, const int32_t *buckets, const size_t *new_files,
                                 size_t n)
{
    PM_TRY(pm_compact_metrics_check(out));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_compact_metrics_put(out, &m);
    if (!n)
        return NULL;
    const pm_compact_mode_ops *mode;
    bool skip;
    PM_TRY(automatic_mode(t, &mode, &skip));
    if (skip || !mode->write_stall)
        return NULL;
    pm_scan_result *sr = NULL;
    bool *stalled = NULL;
    pm_bytes *sp = NULL;
    int32_t *sb = NULL;
    size_t ns = 0;
    pm_error *e = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_TRY_GOTO(e, pm_table_scan(t, &so, &sr), done);
    if (!sr->snapshot)
        goto done;
    PM_TRY_GOTO(e, pm_calloc(&stalled, n, sizeof *stalled), done);
    PM_TRY_GOTO(e, pm_calloc(&sp, n, sizeof *sp), done);
    PM_TRY_GOTO(e, pm_calloc(&sb, n, sizeof *sb), done);
    PM_TRY_GOTO(e, mode->write_stall(t, sr, partitions, buckets, new_files, n, stalled), done);
    for (size_t i = 0; i < n; i++)
        if (stalled[i]) {
            sp[ns] = partitions[i]; /* borrowed */
            sb[ns++] = buckets[i];
        }
    if (ns) {
        round rd = {commit_user, sp, sb, ns, false, false, 1, 0, NULL};
        e = run_round(&m, t, &rd);
    }
done:
    free(stalled);
    free(sp);
    free(sb);
    pm_scan_result_free(sr);
    if (e)
        return pm_error_wrap(e, 0, "write stall: compaction of the buckets above num-sorted-run.stop-trigger");
    pm_compact_metrics_put(out, &m);
    return NULL;
}
