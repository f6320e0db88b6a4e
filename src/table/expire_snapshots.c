/*
 * table/expire_snapshots.c — snapshot expiration (paimon/maintenance.h has
 * the rules: which ids expire, which files go, in which order).
 *
 * Steps:
 *   1. options (the table's, overridden by the call's) and the id range
 *      [earliest, until) to expire; consumers lower `until`;
 *   2. the retained references: snapshots [until, latest] (live files of
 *      `until` plus the ADDs of later deltas), every tag, every other
 *      branch; the candidates: snapshots [earliest, until - 1] the same
 *      way; a failure to read any of them deletes nothing;
 *   3. delete snapshot files earliest..until-1, write EARLIEST = until;
 *   4. delete every candidate path no retained set holds, counting files
 *      and bytes per kind.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "base/mem.h"
#include "meta/json.h"
#include "meta/options.h"
#include "paimon/maintenance.h"
#include "table/file_refs.h"
#include "table/table_internal.h"

void pm_expire_options_init(pm_expire_options *o)
{
    pm_expire_options d = PM_EXPIRE_OPTIONS_INIT;
    *o = d;
}

static int64_t now_millis(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static pm_error *consumer_next(void *ctx, const char *path, const char *name, const pm_buf *data)
{
    (void)name;
    int64_t *lowest = ctx;
    json_t *root = NULL;
    pm_error *e = pm_json_parse_object(data->data, data->len, path, &root);
    if (!e) {
        json_t *n = json_object_get(root, "nextSnapshot");
        if (!json_is_integer(n))
            e = pm_error_new(PM_ECORRUPT, "%s: nextSnapshot is not an integer", path);
        else if (json_integer_value(n) < *lowest)
            *lowest = json_integer_value(n);
    }
    json_decref(root);
    return e;
}

/* The lowest nextSnapshot of the branch's consumers (INT64_MAX = none). */
static pm_error *min_consumer(pm_table *t, int64_t *out)
{
    *out = INT64_MAX;
    return pm_table_meta_files(t, "consumer", "consumer-", consumer_next, out);
}

typedef struct expire_plan {
    int32_t retain_min, retain_max, max_deletes;
    int64_t time_retained_ms;
} expire_plan;

static pm_error *load_plan(pm_table *t, const pm_expire_options *o, expire_plan *p)
{
    const pm_options *opts = pm_table_options(t);
    static const pm_option_id decoupled[] = {PM_OPT_CHANGELOG_NUM_RETAINED_MIN, PM_OPT_CHANGELOG_NUM_RETAINED_MAX,
                                             PM_OPT_CHANGELOG_TIME_RETAINED};
    for (size_t i = 0; i < sizeof decoupled / sizeof *decoupled; i++)
        if (pm_options_raw(opts, decoupled[i]))
            return pm_error_new(PM_EUNSUPPORTED, "snapshot expiration with a decoupled changelog lifecycle (%s) "
                                "is not supported", pm_option_def_get(decoupled[i])->key);
    PM_TRY(pm_options_int(opts, PM_OPT_SNAPSHOT_NUM_RETAINED_MIN, NULL, &p->retain_min));
    PM_TRY(pm_options_int(opts, PM_OPT_SNAPSHOT_NUM_RETAINED_MAX, NULL, &p->retain_max));
    PM_TRY(pm_options_int(opts, PM_OPT_SNAPSHOT_EXPIRE_LIMIT, NULL, &p->max_deletes));
    PM_TRY(pm_options_duration_ms(opts, PM_OPT_SNAPSHOT_TIME_RETAINED, NULL, &p->time_retained_ms));
    if (o) {
        if (o->retain_min > 0)
            p->retain_min = o->retain_min;
        if (o->retain_max > 0)
            p->retain_max = o->retain_max;
        if (o->max_deletes > 0)
            p->max_deletes = o->max_deletes;
        if (o->has_time_retained) {
            if (o->time_retained_ms < 0)
                return pm_error_new(PM_EINVALID, "time retained %lld ms is negative", (long long)o->time_retained_ms);
            p->time_retained_ms = o->time_retained_ms;
        }
    }
    if (p->retain_min < 1)
        return pm_error_new(PM_EINVALID, "snapshot.num-retained.min must be at least 1, got %d", (int)p->retain_min);
    if (p->retain_min > p->retain_max)
        return pm_error_new(PM_EINVALID, "snapshot.num-retained.min %d is above snapshot.num-retained.max %d",
                            (int)p->retain_min, (int)p->retain_max);
    if (p->max_deletes < 1)
        return pm_error_new(PM_EINVALID, "snapshot.expire.limit must be positive, got %d", (int)p->max_deletes);
    return NULL;
}

/* Delete every path of cand not in keep; counts into *files, *bytes. */
static pm_error *delete_unreferenced(pm_table *t, const pm_path_set *cand, const pm_path_set *keep,
                                     int64_t *files, int64_t *bytes, bool dry_run)
{
    pm_error *first = NULL;
    for (size_t i = 0; i < cand->n; i++) {
        const char *p = cand->paths[i];
        if (pm_path_set_has(keep, p))
            continue;
        uint64_t size = 0;
        pm_error *e = pm_fileio_file_size(t->fio, p, &size);
        if (e) { /* already gone */
            pm_error_free(e);
            continue;
        }
        e = dry_run ? NULL : pm_fileio_delete(t->fio, p);
        if (e) {
            if (!first)
                first = e;
            else
                pm_error_free(e);
            continue;
        }
        (*files)++;
        *bytes += (int64_t)size;
    }
    return first;
}

pm_error *pm_table_expire_snapshots(pm_expire_result *out, pm_table *t, const pm_expire_options *o)
{
    if (o && o->version != PM_EXPIRE_OPTIONS_VERSION)
        return pm_error_new(PM_EINVALID, "pm_expire_options.version %d is not %d", o->version,
                            PM_EXPIRE_OPTIONS_VERSION);
    if (out && out->version != PM_EXPIRE_RESULT_VERSION)
        return pm_error_new(PM_EINVALID, "pm_expire_result.version %d is not %d", out->version,
                            PM_EXPIRE_RESULT_VERSION);
    pm_expire_result res = PM_EXPIRE_RESULT_INIT;
    expire_plan p;
    PM_TRY(load_plan(t, o, &p));
    bool found = false;
    int64_t latest = 0, earliest = 0;
    PM_TRY(pm_snapshot_store_latest_id(t->snapshots, &found, &latest));
    if (!found) {
        if (out)
            *out = res;
        return NULL;
    }
    PM_TRY(pm_snapshot_store_earliest_id(t->snapshots, &found, &earliest));
    if (!found)
        earliest = latest;
    res.latest = latest;
    res.earliest_before = res.earliest_after = earliest;
    int64_t now = o && o->now_ms ? o->now_ms : now_millis();
    int64_t older_than = now - p.time_retained_ms;
    int64_t from = latest - p.retain_max + 1;
    if (from < earliest)
        from = earliest;
    int64_t until = latest - p.retain_min + 1;
    int64_t consumer = INT64_MAX;
    PM_TRY(min_consumer(t, &consumer));
    if (consumer < until)
        until = consumer;
    if (earliest + p.max_deletes < until)
        until = earliest + p.max_deletes;
    for (int64_t id = from; id < until; id++) {
        bool exists = false;
        PM_TRY(pm_snapshot_store_exists(t->snapshots, id, &exists));
        if (!exists)
            continue;
        pm_snapshot *s = NULL;
        PM_TRY(pm_snapshot_store_load(t->snapshots, id, &s));
        bool young = older_than <= s->time_millis;
        pm_snapshot_free(s);
        if (young) {
            until = id;
            break;
        }
    }
    if (until <= earliest) {
        if (out)
            *out = res;
        return NULL;
    }

    pm_file_refs keep = {0}, cand = {0};
    pm_error *e = pm_file_refs_add_range(&keep, t, until, latest);
    if (!e)
        e = pm_file_refs_add_tags(&keep, t);
    if (!e)
        e = pm_file_refs_add_other_branches(&keep, t);
    if (!e)
        e = pm_file_refs_add_range(&cand, t, earliest, until - 1);
    if (e)
        goto done;
    pm_file_refs_seal(&keep);
    pm_file_refs_seal(&cand);
    bool dry = o && o->dry_run;
    for (int64_t id = earliest; id < until && !e; id++) {
        char *sp = NULL;
        bool exists = false;
        e = pm_snapshot_store_exists(t->snapshots, id, &exists);
        if (!e && exists)
            e = pm_snapshot_store_path(t->snapshots, id, &sp);
        if (!e && exists && !dry)
            e = pm_fileio_delete(t->fio, sp);
        if (!e && exists)
            res.snapshots_expired++;
        free(sp);
    }
    if (!e && !dry)
        e = pm_snapshot_store_write_hint(t->snapshots, "EARLIEST", until);
    if (e)
        goto done;
    res.earliest_after = until;
    /* the files: a failure is reported after trying every one */
    pm_error *errs[5];
    errs[0] = delete_unreferenced(t, &cand.data, &keep.data, &res.data_files_deleted, &res.bytes_deleted, dry);
    errs[1] = delete_unreferenced(t, &cand.changelog, &keep.changelog, &res.changelog_files_deleted,
                                  &res.bytes_deleted, dry);
    errs[2] = delete_unreferenced(t, &cand.index, &keep.index, &res.index_files_deleted, &res.bytes_deleted, dry);
    errs[3] = delete_unreferenced(t, &cand.stats, &keep.stats, &res.statistics_files_deleted, &res.bytes_deleted,
                                  dry);
    errs[4] = delete_unreferenced(t, &cand.manifests, &keep.manifests, &res.manifest_files_deleted,
                                  &res.bytes_deleted, dry);
    for (int i = 0; i < 5; i++) {
        if (!e)
            e = errs[i];
        else
            pm_error_free(errs[i]);
    }
done:
    pm_file_refs_clear(&keep);
    pm_file_refs_clear(&cand);
    if (out)
        *out = res;
    return e ? pm_error_wrap(e, 0, "expire snapshots of %s", t->path) : NULL;
}
