/*
 * compact/compact_auto.c — the automatic compaction round after a data
 * commit (contract in compact_run.h).
 *
 * Steps: write-only / mode check → write.compaction.parallelism → touched
 * (partition, bucket) pairs (given, or read from the data snapshot's delta
 * manifests) → builder restricted to them, latest snapshot → plan → execute
 * with at most `parallelism` buckets at once → commit with the writer's
 * commit user.  A PM_ECONFLICT (another writer or job compacted the same
 * files) aborts that attempt's outputs and plans again against the new
 * latest snapshot, up to commit.max-retries times with the commit backoff.  Errors are wrapped so the message says the data commit
 * stays committed, keeping the cause.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_run.h"
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

/* The (partition, bucket) pairs a data snapshot added files to. */
static pm_error *touched_from_snapshot(pm_table *t, int64_t id, touched *out)
{
    pm_snapshot *s = NULL;
    PM_TRY(pm_snapshot_store_load(t->snapshots, id, &s));
    pm_error *e = NULL;
    char *path = NULL;
    pm_manifest_file_meta *metas = NULL;
    size_t nmetas = 0;
    if (s->delta_manifest_list) {
        PM_TRY_GOTO(e, pm_path_factory_manifest_path(t->paths, s->delta_manifest_list, &path), done);
        PM_TRY_GOTO(e, pm_manifest_list_read(t->fio, path, &metas, &nmetas), done);
    }
    for (size_t i = 0; i < nmetas && !e; i++) {
        char *mp = NULL;
        pm_manifest_entry *en = NULL;
        size_t nen = 0;
        e = pm_path_factory_manifest_path(t->paths, metas[i].file_name, &mp);
        if (!e)
            e = pm_manifest_read(t->fio, mp, &en, &nen);
        for (size_t k = 0; k < nen && !e; k++)
            if (en[k].kind == PM_FILE_ADD)
                e = touched_add(out, &en[k].partition, en[k].bucket);
        pm_manifest_entries_free(en, nen);
        free(mp);
    }
done:
    pm_manifest_file_metas_free(metas, nmetas);
    free(path);
    pm_snapshot_free(s);
    return e ? pm_error_wrap(e, 0, "files touched by snapshot %lld", (long long)id) : NULL;
}

pm_error *pm_compact_after_write(pm_compact_metrics *out, pm_table *t, int64_t data_snapshot_id,
                                 const char *commit_user, const pm_bytes *partitions, const int32_t *buckets,
                                 size_t ntouched)
{
    if (out)
        memset(out, 0, sizeof *out);
    const pm_options *o = pm_table_options(t);
    bool write_only = false;
    PM_TRY(pm_options_bool(o, PM_OPT_WRITE_ONLY, &write_only));
    if (write_only)
        return NULL;
    pm_compact_mode mode;
    pm_error *e = pm_compact_check_table(t, &mode);
    if (e && pm_error_code(e) == PM_EUNSUPPORTED) {
        pm_error_free(e); /* such tables keep their plain write behavior */
        return NULL;
    }
    PM_TRY(e);
    int32_t par;
    PM_TRY(parallelism_option(o, &par));

    touched tc = {0};
    pm_resources *res = NULL;
    pm_compact_builder *b = NULL;
    pm_compact_plan *p = NULL;
    if (!partitions || !ntouched) {
        PM_TRY_GOTO(e, touched_from_snapshot(t, data_snapshot_id, &tc), done);
        partitions = tc.parts;
        buckets = tc.buckets;
        ntouched = tc.n;
    }
    if (!ntouched)
        goto done;
    PM_TRY_GOTO(e, pm_resources_new(&res, 256LL << 20, (size_t)par), done);
    pm_compact_options co = {PM_COMPACT_OPTIONS_VERSION, commit_user, NULL, 0, false, res, NULL, 0};
    PM_TRY_GOTO(e, pm_compact_builder_new(&b, t, &co), done);
    b->only_partitions = partitions;
    b->only_buckets = buckets;
    b->nonly = ntouched;
    b->automatic = true;
    int32_t max_retries = 10;
    int64_t min_wait = 10, max_wait = 10000;
    PM_TRY_GOTO(e, pm_options_int(o, PM_OPT_COMMIT_MAX_RETRIES, NULL, &max_retries), done);
    PM_TRY_GOTO(e, pm_options_duration_ms(o, PM_OPT_COMMIT_MIN_RETRY_WAIT, NULL, &min_wait), done);
    PM_TRY_GOTO(e, pm_options_duration_ms(o, PM_OPT_COMMIT_MAX_RETRY_WAIT, NULL, &max_wait), done);
    /* A conflict means another writer or job compacted the same files
     * meanwhile: plan again against the new latest snapshot (bounded). */
    for (int attempt = 0;; attempt++) {
        PM_TRY_GOTO(e, pm_compact_plan_new(&p, b), done);
        if (p->snapshot_id < data_snapshot_id) {
            e = pm_error_new(PM_ECONFLICT, "latest snapshot %lld is below the data snapshot %lld",
                             (long long)p->snapshot_id, (long long)data_snapshot_id);
            goto done;
        }
        e = pm_compact_run_plan(out, t, p, res, (size_t)par, NULL, NULL);
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
    touched_free(&tc);
    if (e)
        return pm_error_wrap(e, 0, "automatic compaction after snapshot %lld failed (the data commit stays "
                             "committed)", (long long)data_snapshot_id);
    return NULL;
}
