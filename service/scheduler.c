/*
 * service/scheduler.c — when passes and maintenance run, and running them.
 *
 * Threads:
 *   tick     every 250 ms: discovery (every 5 s); per owned table whose
 *            interval elapsed (compaction-service.interval > 0), the
 *            periodic walk: a full refresh when its latest snapshot moved,
 *            else the triggers re-checked on the cached pending files
 *            with their ages now; maintenance when its interval elapsed
 *            (expire-snapshots: only for tables with new snapshots since
 *            the last run; remove-orphan-files: every orphan-interval).
 *   watch    every watch-interval: the LATEST hint of each table (plus
 *            whether the snapshot after it exists); a change refreshes the
 *            table at once and re-checks its buckets (trigger
 *            `backpressure`), so a hot bucket does not wait for the tick.
 *   workers  `concurrency` threads taking queued jobs in order.
 * Latches (latch.c): a bucket's latch is taken when its pass is queued and
 * released when the job ends; the periodic walk skips a latched bucket
 * (a latch collision, retried next tick), POST /v1/compact is refused
 * (409), drain and checkpoint wait.  Maintenance takes its table's latch:
 * it never runs beside a pass of its table.
 * A pass: pm_compact_run over one (partition, bucket) with the bounded
 * prefix (max_input_files = prefix-max, max_input_bytes =
 * pass-target-bytes), replanned up to 3 times on PM_ECONFLICT; its
 * metrics become the job's counters.  A pass that folds nothing marks the
 * bucket so the triggers leave it alone until the next snapshot.
 * With compaction-service.executor=ray the tasks of a pass run on a Ray
 * cluster (ray_exec.c); planning, the latch, the job and the commit stay
 * here.  Postpone-bucket passes are one library run and stay local.
 * Global indexes: after a pass succeeds on a table that declares global
 * indexes with write-only not true, a `global-index` job (table latch,
 * queued by the tick once no pass of the table holds a latch; one per run
 * of passes) builds the missing coverage with pm_table_build_index.
 * Postpone-bucket tables: their `bucket-postpone` files are the pending
 * files of bucket -2, whose pass assigns every postponed file of the
 * partition its real bucket (postpone_pass, under the table's latch); the
 * real buckets then get ordinary passes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "paimon/index.h"
#include "paimon/maintenance.h"
#include "paimon/table.h"
#include "svc.h"

#define TICK_MS 250
#define DISCOVER_MS 5000

static void deadline_ts(struct timespec *ts, int64_t ms_from_now)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms_from_now / 1000;
    ts->tv_nsec += (ms_from_now % 1000) * 1000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
}

/* ------------------------------------------------------------------ */
/* queue                                                               */

static bool push_queue(svc *s, svc_job *j)
{
    if (s->nqueue == s->capqueue) {
        size_t cap = s->capqueue ? s->capqueue * 2 : 32;
        svc_job **q = realloc(s->queue, cap * sizeof *q);
        if (!q)
            return false;
        s->queue = q;
        s->capqueue = cap;
    }
    s->queue[s->nqueue++] = j;
    pthread_cond_broadcast(&s->changed);
    return true;
}

static void log_error(const char *what, pm_error *e)
{
    char *m = svc_error_text(e);
    fprintf(stderr, "paimon serve: %s: %s\n", what, m ? m : "?");
    free(m);
}

bool svc_enqueue_pass(svc *s, svc_table *t, const svc_bucket *b, svc_trigger trig, svc_job **out)
{
    if (out)
        *out = NULL;
    if (!svc_latch_try(&s->latches, t->name, b->partition, b->bucket))
        return false;
    svc_job *j = NULL;
    pm_error *e = svc_jobs_add(&s->jobs, SVC_JOB_COMPACTION, t->name, b->partition, b->partition_filter, b->bucket,
                               trig, svc_now_ms(), &j);
    if (e)
        log_error("job history", e);
    if (!j || !push_queue(s, j)) {
        svc_latch_release(&s->latches, t->name, b->partition, b->bucket);
        if (j) {
            j->state = SVC_FAILED;
            j->error = strdup("out of memory");
        }
        return false;
    }
    t->last_job = j->id;
    if (out)
        *out = j;
    return true;
}

static bool enqueue_maintenance(svc *s, svc_table *t, svc_job_type type)
{
    if (!svc_latch_try(&s->latches, t->name, NULL, -1))
        return false;
    svc_job *j = NULL;
    pm_error *e = svc_jobs_add(&s->jobs, type, t->name, NULL, NULL, -1, SVC_TRIGGER_INTERVAL, svc_now_ms(), &j);
    if (e)
        log_error("job history", e);
    if (!j || !push_queue(s, j)) {
        svc_latch_release(&s->latches, t->name, NULL, -1);
        return false;
    }
    return true;
}

static int64_t age_now(const svc_table *t, const svc_bucket *b, int64_t now)
{
    if (b->oldest_age_ms < 0)
        return -1;
    return b->oldest_age_ms + (now > t->last_refresh ? now - t->last_refresh : 0);
}

void svc_schedule_table(svc *s, svc_table *t, svc_trigger reason)
{
    if (s->draining || s->stopping || t->error || !t->mode)
        return;
    if (reason == SVC_TRIGGER_INTERVAL && t->th.interval_ms == 0)
        return;
    if (reason == SVC_TRIGGER_BACKPRESSURE && !t->th.backpressure)
        return;
    int64_t now = svc_now_ms();
    for (size_t i = 0; i < t->nbuckets; i++) {
        svc_bucket *b = &t->buckets[i];
        svc_load l = {b->pending_files, b->pending_bytes, age_now(t, b, now), t->primary_key ? 1 : 2};
        svc_trigger trig = svc_trigger_check(&t->th, &l);
        if (trig == SVC_TRIGGER_NONE || b->no_progress_snapshot == t->snapshot)
            continue;
        if (svc_latch_held(&s->latches, t->name, b->partition, b->bucket)) {
            if (reason == SVC_TRIGGER_INTERVAL)
                s->metrics.latch_collisions++;
            continue;
        }
        svc_enqueue_pass(s, t, b, reason == SVC_TRIGGER_BACKPRESSURE ? SVC_TRIGGER_BACKPRESSURE : trig, NULL);
    }
}

/* ------------------------------------------------------------------ */
/* running a job                                                       */

typedef struct pass_spec {
    char *path;
    int64_t prefix_max, target_bytes, orphan_older_than;
} pass_spec;

/* Tests only (builds without NDEBUG, like the library's fault points):
 * PAIMON_SERVICE_TEST_DELAY_MS makes every pass wait that long between
 * executing its tasks and committing them, holding its latch, so tests
 * can collide with, drain behind or kill a pass in the middle. */
static void test_delay(void)
{
#ifndef NDEBUG
    const char *v = getenv("PAIMON_SERVICE_TEST_DELAY_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms > 0 && ms < 600000) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
#endif
}

/* One attempt: plan (the bounded prefix), execute every task, commit them
 * in one COMPACT snapshot; results never committed are aborted. */
static pm_error *pass_once(const svc_config *cfg, pm_table *t, const pm_compact_options *o, svc_job *out)
{
    pm_compact_builder *b = NULL;
    pm_compact_plan *plan = NULL;
    pm_compact_result **rs = NULL;
    size_t n = 0;
    pm_error *e = pm_compact_builder_new(&b, t, o);
    if (!e)
        e = pm_compact_plan_new(&plan, b);
    size_t nt = plan ? pm_compact_plan_task_count(plan) : 0;
    if (!e && nt && !(rs = calloc(nt, sizeof *rs)))
        e = pm_error_new(PM_ENOMEM, "out of memory");
    int64_t bytes_written = 0;
    if (!e && nt && cfg->ray) {
        /* the tasks on Ray; nothing is left behind when that fails */
        pm_compact_result **got = NULL;
        e = svc_ray_execute(cfg, t, plan, &got, &n);
        if (!e)
            memcpy(rs, got, n * sizeof *rs);
        free(got);
        nt = 0;
        for (size_t i = 0; !e && i < n; i++) {
            pm_compact_counters c = PM_COMPACT_COUNTERS_INIT;
            e = pm_compact_result_counters(rs[i], &c);
            bytes_written += c.bytes_written;
        }
    }
    for (size_t i = 0; !e && i < nt; i++) {
        e = pm_compact_execute(&rs[n], t, pm_compact_plan_task(plan, i), o->resources);
        if (!e) {
            pm_compact_counters c = PM_COMPACT_COUNTERS_INIT;
            e = pm_compact_result_counters(rs[n], &c);
            bytes_written += c.bytes_written;
            n++;
        }
    }
    if (!e && n) {
        test_delay();
        pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
        e = pm_compact_commit(&m, t, NULL, rs, n);
        if (!e) {
            out->input_files = m.files_removed;
            out->input_bytes = m.bytes_read;
            out->output_files = m.files_added;
            out->output_bytes = m.bytes_written ? m.bytes_written : bytes_written;
            out->snapshot = m.snapshot_id;
        } else if (pm_error_code(e) != PM_EUNCERTAIN) {
            pm_error *ae = pm_compact_abort(t, rs, n);
            if (ae) {
                char *am = svc_error_text(ae);
                e = pm_error_wrap(e, 0, "commit failed, and aborting its results too: %s", am ? am : "?");
                free(am);
            }
        }
    } else if (e && n) {
        pm_error_free(pm_compact_abort(t, rs, n));
    }
    for (size_t i = 0; i < n; i++)
        pm_compact_result_free(rs[i]);
    free(rs);
    pm_compact_plan_free(plan);
    pm_compact_builder_free(b);
    return e;
}

/* The postponed files of a postpone-bucket table's partition (bucket
 * SVC_BUCKET_POSTPONE) get their real buckets in one run, as Java's
 * postpone compaction does: every postponed file of the partition at once
 * (the prefix bounds do not apply: the records must be replayed in
 * creation order), one COMPACT snapshot; the new level-0 files of the
 * real buckets are then ordinary pending files.  The pass holds the
 * table's latch (it adds files to every real bucket).  Nothing postponed
 * left (folded meanwhile): nothing to do, never a run over the real
 * buckets. */
static pm_error *postpone_pass(pm_table *t, const pm_compact_options *base, svc_job *out)
{
    pm_compact_options o = *base;
    o.has_bucket = false;
    o.max_input_files = 0;
    o.max_input_bytes = 0;
    pm_compact_pending_list *l = NULL;
    PM_TRY(pm_compact_pending(&l, t, &o));
    bool postponed = false;
    for (size_t i = 0; i < pm_compact_pending_count(l); i++)
        postponed |= pm_compact_pending_get(l, i)->bucket == SVC_BUCKET_POSTPONE &&
                     pm_compact_pending_get(l, i)->npending > 0;
    pm_compact_pending_list_free(l);
    if (!postponed)
        return NULL;
    pm_compact_builder *b = NULL;
    PM_TRY(pm_compact_builder_new(&b, t, &o));
    test_delay();
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e = pm_compact_run(&m, b);
    pm_compact_builder_free(b);
    if (!e) {
        out->input_files = m.files_removed;
        out->input_bytes = m.bytes_read;
        out->output_files = m.files_added;
        out->output_bytes = m.bytes_written;
        out->snapshot = m.snapshot_id;
    }
    return e;
}

static pm_error *run_compaction(svc *s, const svc_job *j, const pass_spec *ps, svc_job *out)
{
    pm_table *t = NULL;
    PM_TRY(pm_table_open(&t, ps->path, NULL));
    const char *parts[1] = {j->partition_filter};
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.commit_user = "paimon-service";
    o.partitions = j->partition_filter ? parts : NULL;
    o.npartitions = j->partition_filter ? 1 : 0;
    o.has_bucket = true;
    o.bucket = j->bucket;
    o.max_input_files = (size_t)ps->prefix_max;
    o.max_input_bytes = ps->target_bytes;
    o.resources = s->resources;
    o.parallelism = 1;
    pm_error *e = NULL;
    for (int attempt = 0; attempt < 4; attempt++) {
        e = j->bucket == SVC_BUCKET_POSTPONE ? postpone_pass(t, &o, out) : pass_once(&s->cfg, t, &o, out);
        if (!e || pm_error_code(e) != PM_ECONFLICT || attempt == 3)
            break;
        pm_error_free(e); /* replan against the newer snapshot */
        e = NULL;
    }
    pm_table_free(t);
    return e;
}

static pm_error *run_maintenance(const svc_job *j, const pass_spec *ps, svc_job *out)
{
    pm_table *t = NULL;
    PM_TRY(pm_table_open(&t, ps->path, NULL));
    char buf[512];
    pm_error *e;
    if (j->type == SVC_JOB_EXPIRE) {
        pm_expire_result r = PM_EXPIRE_RESULT_INIT;
        e = pm_table_expire_snapshots(&r, t, NULL);
        snprintf(buf, sizeof buf,
                 "expired %lld snapshots (earliest %lld -> %lld of %lld); deleted %lld data, %lld changelog, "
                 "%lld manifest, %lld index files, %lld bytes",
                 (long long)r.snapshots_expired, (long long)r.earliest_before, (long long)r.earliest_after,
                 (long long)r.latest, (long long)r.data_files_deleted, (long long)r.changelog_files_deleted,
                 (long long)r.manifest_files_deleted, (long long)r.index_files_deleted,
                 (long long)r.bytes_deleted);
        out->input_files = r.snapshots_expired;
        out->output_bytes = r.bytes_deleted;
    } else if (j->type == SVC_JOB_INDEX) {
        /* a fresh commit user per job: (user, batch identifier) pairs are idempotent commits */
        pm_index_options o = PM_INDEX_OPTIONS_INIT;
        pm_index_result r = PM_INDEX_RESULT_INIT;
        e = pm_table_build_index(&r, t, &o);
        snprintf(buf, sizeof buf, "built %lld global index ranges (%lld rows): %lld files added, %lld retired",
                 (long long)r.ranges_built, (long long)r.rows_indexed, (long long)r.files_added,
                 (long long)r.files_removed);
        out->input_files = r.files_removed;
        out->output_files = r.files_added;
        out->snapshot = r.snapshot_id;
    } else {
        pm_orphan_options o = PM_ORPHAN_OPTIONS_INIT;
        o.has_older_than = true;
        o.older_than_ms = ps->orphan_older_than;
        pm_orphan_result r = PM_ORPHAN_RESULT_INIT;
        e = pm_table_remove_orphan_files(&r, t, &o);
        snprintf(buf, sizeof buf, "removed %lld orphan files, %lld bytes", (long long)r.files_deleted,
                 (long long)r.bytes_deleted);
        out->input_files = r.files_deleted;
        out->output_bytes = r.bytes_deleted;
        pm_orphan_result_clear(&r);
    }
    out->detail = strdup(buf);
    pm_table_free(t);
    return e;
}

static void run_job(svc *s, svc_job *j)
{
    /* what the job needs, copied under the lock */
    pass_spec ps = {NULL, s->cfg.th.prefix_max, s->cfg.th.pass_target_bytes, s->cfg.th.orphan_older_than_ms};
    svc_table *t = svc_find_table(s, j->table);
    if (t) {
        ps.path = strdup(t->path);
        ps.prefix_max = t->th.prefix_max;
        ps.target_bytes = t->th.pass_target_bytes;
        ps.orphan_older_than = t->th.orphan_older_than_ms;
    }
    svc_job snap = *j; /* read-only copy of identity for the unlocked part */
    snap.table = strdup(j->table);
    snap.partition_filter = j->partition_filter ? strdup(j->partition_filter) : NULL;
    j->state = SVC_RUNNING;
    j->started_at = svc_now_ms();
    s->running++;
    pm_error *e = svc_jobs_save(&s->jobs, j);
    if (e)
        log_error("job history", e);
    if (j->type == SVC_JOB_COMPACTION)
        svc_metrics_pass(&s->metrics, j);
    int64_t snapshot_before = t ? t->snapshot : 0;
    pthread_mutex_unlock(&s->mu);

    svc_job res;
    memset(&res, 0, sizeof res);
    pm_error *err = !ps.path ? pm_error_new(PM_ENOTFOUND, "table %s is no longer owned", snap.table)
                    : j->type == SVC_JOB_COMPACTION ? run_compaction(s, &snap, &ps, &res)
                                                    : run_maintenance(&snap, &ps, &res);
    char *msg = err ? svc_error_text(err) : NULL;
    if (!err && j->type == SVC_JOB_COMPACTION && ps.path)
        svc_refresh_table(s, snap.table, SVC_TRIGGER_NONE);

    pthread_mutex_lock(&s->mu);
    j->state = msg ? SVC_FAILED : SVC_SUCCEEDED;
    j->finished_at = svc_now_ms();
    j->error = msg;
    j->input_files = res.input_files;
    j->input_bytes = res.input_bytes;
    j->output_files = res.output_files;
    j->output_bytes = res.output_bytes;
    j->snapshot = res.snapshot;
    j->detail = res.detail;
    if (j->type == SVC_JOB_COMPACTION) {
        svc_metrics_pass_done(&s->metrics, j);
        svc_latch_release(&s->latches, j->table, j->partition, j->bucket);
        t = svc_find_table(s, j->table);
        for (size_t i = 0; t && !msg && !res.snapshot && i < t->nbuckets; i++)
            if (t->buckets[i].bucket == j->bucket && !strcmp(t->buckets[i].partition, j->partition))
                t->buckets[i].no_progress_snapshot = t->snapshot ? t->snapshot : snapshot_before;
        /* a bucket still over its triggers gets its next pass now */
        if (t && !msg && res.snapshot)
            svc_schedule_table(s, t, SVC_TRIGGER_INTERVAL);
        if (t && !msg && t->index_auto)
            t->index_due = true; /* the tick queues the index job once no pass holds the table */
    } else {
        s->metrics.maintenance_runs++;
        s->metrics.maintenance_failures += msg != NULL;
        svc_latch_release(&s->latches, j->table, NULL, -1);
    }
    s->running--;
    e = svc_jobs_save(&s->jobs, j);
    if (e)
        log_error("job history", e);
    pthread_cond_broadcast(&s->changed);
    free(ps.path);
    free(snap.table);
    free(snap.partition_filter);
}

static void *worker_main(void *arg)
{
    svc *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stopping && !s->nqueue)
            pthread_cond_wait(&s->changed, &s->mu);
        if (s->stopping && !s->nqueue)
            break;
        svc_job *j = s->queue[0];
        memmove(s->queue, s->queue + 1, (s->nqueue - 1) * sizeof *s->queue);
        s->nqueue--;
        run_job(s, j);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* tick and watch                                                      */

/* Names of the owned tables (malloc'd array of malloc'd), mu held. */
static char **table_names(svc *s, size_t *n)
{
    char **v = calloc(s->ntables ? s->ntables : 1, sizeof *v);
    *n = 0;
    for (size_t i = 0; v && i < s->ntables; i++)
        if ((v[*n] = strdup(s->tables[i]->name)))
            (*n)++;
    return v;
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void *tick_main(void *arg)
{
    svc *s = arg;
    int64_t last_discover = 0;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        int64_t now = svc_now_ms();
        if (now - last_discover >= DISCOVER_MS) {
            pthread_mutex_unlock(&s->mu);
            pm_error *e = svc_discover(s);
            if (e)
                log_error("discover tables", e);
            pthread_mutex_lock(&s->mu);
            last_discover = now;
        }
        size_t n = 0;
        char **names = table_names(s, &n);
        for (size_t i = 0; names && i < n && !s->stopping; i++) {
            svc_table *t = svc_find_table(s, names[i]);
            if (!t)
                continue;
            now = svc_now_ms();
            bool never = t->last_refresh == 0;
            bool due = t->th.interval_ms > 0 && now - t->last_walk >= t->th.interval_ms;
            if (never || due) {
                t->last_walk = now;
                char tok[40] = "";
                char *path = strdup(t->path);
                pthread_mutex_unlock(&s->mu);
                if (path)
                    svc_latest_token(path, tok, sizeof tok);
                free(path);
                pthread_mutex_lock(&s->mu);
                t = svc_find_table(s, names[i]);
                if (!t)
                    continue;
                if (never || strcmp(tok, t->latest_hint) || t->error) {
                    pthread_mutex_unlock(&s->mu);
                    pm_error *e = svc_refresh_table(s, names[i], SVC_TRIGGER_INTERVAL);
                    if (e)
                        pm_error_free(e);
                    pthread_mutex_lock(&s->mu);
                } else {
                    /* the same snapshot: its pending files as read, ages now */
                    svc_schedule_table(s, t, SVC_TRIGGER_INTERVAL);
                }
            }
            t = svc_find_table(s, names[i]);
            if (!t || t->error || s->draining || t->snapshot <= 0)
                continue;
            /* expiration: only for tables that got snapshots since its last run */
            if (t->th.expire_interval_ms > 0 && now - t->last_expire >= t->th.expire_interval_ms &&
                t->snapshot != t->expired_at_snapshot && enqueue_maintenance(s, t, SVC_JOB_EXPIRE)) {
                t->last_expire = now;
                t->expired_at_snapshot = t->snapshot;
            }
            if (t->index_due && t->index_auto && enqueue_maintenance(s, t, SVC_JOB_INDEX))
                t->index_due = false;
            if (!t->last_orphans)
                t->last_orphans = now; /* the first run waits one interval */
            else if (t->th.orphan_interval_ms > 0 && now - t->last_orphans >= t->th.orphan_interval_ms &&
                     enqueue_maintenance(s, t, SVC_JOB_ORPHANS))
                t->last_orphans = now;
        }
        free_names(names, n);
        struct timespec ts;
        deadline_ts(&ts, TICK_MS);
        pthread_cond_timedwait(&s->changed, &s->mu, &ts);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void *watch_main(void *arg)
{
    svc *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        size_t n = 0;
        char **names = table_names(s, &n);
        for (size_t i = 0; names && i < n && !s->stopping; i++) {
            svc_table *t = svc_find_table(s, names[i]);
            if (!t || !t->last_refresh)
                continue;
            char tok[40];
            char *path = strdup(t->path);
            pthread_mutex_unlock(&s->mu);
            if (path)
                svc_latest_token(path, tok, sizeof tok);
            pthread_mutex_lock(&s->mu);
            t = svc_find_table(s, names[i]);
            bool moved = path && t && strcmp(tok, t->latest_hint);
            free(path);
            if (moved) {
                pthread_mutex_unlock(&s->mu);
                pm_error *e = svc_refresh_table(s, names[i], SVC_TRIGGER_BACKPRESSURE);
                if (e)
                    pm_error_free(e);
                pthread_mutex_lock(&s->mu);
            }
        }
        free_names(names, n);
        struct timespec ts;
        deadline_ts(&ts, s->cfg.watch_ms);
        pthread_cond_timedwait(&s->changed, &s->mu, &ts);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* start, stop, waits                                                  */

pm_error *svc_scheduler_start(svc *s)
{
    s->nworkers = (size_t)s->cfg.concurrency;
    s->workers = calloc(s->nworkers, sizeof *s->workers);
    if (!s->workers)
        return pm_error_new(PM_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nworkers; i++)
        if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0)
            return pm_error_new(PM_EIO, "cannot start worker thread %zu", i);
    if (pthread_create(&s->tick_thread, NULL, tick_main, s) != 0 ||
        pthread_create(&s->watch_thread, NULL, watch_main, s) != 0)
        return pm_error_new(PM_EIO, "cannot start the scheduler threads");
    return NULL;
}

void svc_scheduler_stop(svc *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->tick_thread, NULL);
    pthread_join(s->watch_thread, NULL);
    for (size_t i = 0; i < s->nworkers; i++)
        pthread_join(s->workers[i], NULL);
    free(s->workers);
    s->workers = NULL;
}

bool svc_wait_jobs(svc *s, const int64_t *ids, size_t n, int64_t deadline_ms)
{
    for (;;) {
        bool all = true;
        for (size_t i = 0; i < n && all; i++) {
            svc_job *j = svc_jobs_find(&s->jobs, ids[i]);
            all = !j || svc_job_done(j);
        }
        if (all)
            return true;
        int64_t now = svc_now_ms();
        if (deadline_ms && now >= deadline_ms)
            return false;
        struct timespec ts;
        deadline_ts(&ts, deadline_ms ? (deadline_ms - now < 1000 ? deadline_ms - now : 1000) : 1000);
        pthread_cond_timedwait(&s->changed, &s->mu, &ts);
    }
}

void svc_drain(svc *s)
{
    s->draining = true;
    while (s->nqueue || s->running)
        pthread_cond_wait(&s->changed, &s->mu);
}

/* The queued or running pass of a bucket (0 = none), mu held. */
static int64_t active_pass(svc *s, const char *table, const char *partition, int32_t bucket)
{
    for (size_t i = 0; i < s->jobs.n; i++) {
        const svc_job *j = s->jobs.jobs[i];
        if (j->type == SVC_JOB_COMPACTION && !svc_job_done(j) && j->bucket == bucket && !strcmp(j->table, table) &&
            j->partition && !strcmp(j->partition, partition))
            return j->id;
    }
    return 0;
}

bool svc_checkpoint(svc *s, const char *table, int64_t timeout_ms, int64_t **ids, size_t *nids, pm_error **err)
{
    *ids = NULL;
    *nids = 0;
    *err = NULL;
    int64_t deadline = timeout_ms > 0 ? svc_now_ms() + timeout_ms : 0;
    for (int round = 0; round < 1000; round++) {
        pthread_mutex_unlock(&s->mu);
        pm_error *e = svc_refresh_table(s, table, SVC_TRIGGER_NONE);
        pthread_mutex_lock(&s->mu);
        if (e) {
            *err = e;
            return true;
        }
        svc_table *t = svc_find_table(s, table);
        if (!t)
            return true;
        if (t->error) {
            *err = pm_error_new(PM_EUNSUPPORTED, "%s", t->error);
            return true;
        }
        int64_t wait[4096];
        size_t nw = 0;
        for (size_t i = 0; i < t->nbuckets && nw < 4096; i++) {
            svc_bucket *b = &t->buckets[i];
            if (b->pending_files < (t->primary_key ? 1 : 2) || b->no_progress_snapshot == t->snapshot)
                continue;
            int64_t id = active_pass(s, t->name, b->partition, b->bucket);
            svc_job *j = NULL;
            if (!id && svc_enqueue_pass(s, t, b, SVC_TRIGGER_MANUAL, &j))
                id = j->id;
            if (!id)
                continue;
            wait[nw++] = id;
            int64_t *ni = realloc(*ids, (*nids + 1) * sizeof *ni);
            if (ni) {
                *ids = ni;
                (*ids)[(*nids)++] = id;
            }
        }
        if (!nw)
            return true;
        if (!svc_wait_jobs(s, wait, nw, deadline))
            return false;
        bool progress = false;
        for (size_t i = 0; i < nw; i++) {
            svc_job *j = svc_jobs_find(&s->jobs, wait[i]);
            progress |= j && j->state == SVC_SUCCEEDED && j->snapshot > 0;
        }
        if (!progress)
            return true;
    }
    return true;
}
