/*
 * service/tables.c — the tables the service owns and what each bucket has
 * pending.
 *
 * Discovery: every database and table of the warehouse (pm_catalog_*),
 * kept when the include/exclude lists own it; new tables join, dropped
 * ones leave (their queued jobs still finish or fail on their own).
 * Refresh of one table (no lock held while reading it): open it, its
 * thresholds (service options overridden by table options), its mode and
 * pending files per bucket (paimon/compact.h pm_compact_pending), the
 * LATEST hint as seen; then, under the lock, the table's status is
 * replaced and its buckets are scheduled (scheduler.c).  A table the
 * library cannot compact keeps its error (shown, never scheduled).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "paimon/index.h"
#include "paimon/table.h"
#include "svc.h"

void svc_table_free(svc_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nbuckets; i++) {
        free(t->buckets[i].partition);
        free(t->buckets[i].partition_filter);
        free(t->buckets[i].pending_sizes);
    }
    free(t->buckets);
    free(t->name);
    free(t->path);
    free(t->mode);
    free(t->error);
    free(t);
}

svc_table *svc_find_table(svc *s, const char *name)
{
    for (size_t i = 0; i < s->ntables; i++)
        if (!strcmp(s->tables[i]->name, name))
            return s->tables[i];
    return NULL;
}

void svc_latest_token(const char *path, char *out, size_t cap)
{
    out[0] = 0;
    size_t n = strlen(path) + 64;
    char *p = malloc(n);
    if (!p)
        return;
    snprintf(p, n, "%s/snapshot/LATEST", path);
    FILE *f = fopen(p, "r");
    if (f) {
        if (fgets(out, (int)cap - 1, f))
            out[strcspn(out, "\r\n")] = 0;
        else
            out[0] = 0;
        fclose(f);
        char *end = NULL;
        long long id = strtoll(out, &end, 10);
        struct stat st;
        snprintf(p, n, "%s/snapshot/snapshot-%lld", path, id + 1);
        if (end != out && stat(p, &st) == 0)
            strcat(out, "+");
    }
    free(p);
}

/* A fresh status of the table at path (never NULL unless out of memory). */
static svc_table *load_status(svc *s, const char *name, const char *path)
{
    svc_table *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->name = strdup(name);
    st->path = strdup(path);
    st->th = s->cfg.th;
    svc_latest_token(path, st->latest_hint, sizeof st->latest_hint);
    pm_table *t = NULL;
    pm_compact_pending_list *l = NULL;
    pm_error *e = pm_table_open(&t, path, NULL);
    if (!e)
        e = svc_table_thresholds(&s->cfg, t, &st->th);
    if (!e) {
        st->primary_key = pm_table_has_primary_key(t);
        /* global indexes the service maintains after passes (a bad declaration: left to writes to report);
         * a primary-key table's indexes are source-backed: its compaction passes maintain them */
        bool declared = false;
        const char *wo = pm_table_option(t, "write-only");
        pm_error *de = pm_table_index_declared(&declared, t);
        pm_error_free(de);
        st->index_auto = !de && declared && !st->primary_key && !(wo && !strcasecmp(wo, "true"));
        e = pm_compact_pending(&l, t, NULL);
    }
    if (!e) {
        st->mode = strdup(pm_compact_pending_mode(l));
        st->snapshot = pm_compact_pending_snapshot_id(l);
        size_t n = pm_compact_pending_count(l);
        st->buckets = calloc(n ? n : 1, sizeof *st->buckets);
        for (size_t i = 0; st->buckets && i < n; i++) {
            const pm_compact_pending_bucket *b = pm_compact_pending_get(l, i);
            svc_bucket *sb = &st->buckets[st->nbuckets++];
            sb->partition = strdup(b->partition);
            sb->partition_filter = b->partition_filter ? strdup(b->partition_filter) : NULL;
            sb->bucket = b->bucket;
            sb->files = (int64_t)b->files;
            sb->bytes = b->bytes;
            sb->pending_files = (int64_t)b->npending;
            sb->pending_bytes = b->pending_bytes;
            sb->oldest_age_ms = b->oldest_pending_age_ms;
            sb->max_level = b->max_level;
            sb->pending_sizes = calloc(b->npending ? b->npending : 1, sizeof *sb->pending_sizes);
            for (size_t k = 0; sb->pending_sizes && k < b->npending; k++)
                sb->pending_sizes[k] = b->pending[k].file_size;
        }
    }
    if (e)
        st->error = svc_error_text(e);
    pm_compact_pending_list_free(l);
    pm_table_free(t);
    return st;
}

pm_error *svc_refresh_table(svc *s, const char *name, svc_trigger reason)
{
    pthread_mutex_lock(&s->mu);
    svc_table *old = svc_find_table(s, name);
    char *path = old ? strdup(old->path) : NULL;
    pthread_mutex_unlock(&s->mu);
    if (!path)
        return pm_error_new(PM_ENOTFOUND, "table %s is not owned by the service", name);
    svc_table *st = load_status(s, name, path);
    free(path);
    if (!st)
        return pm_error_new(PM_ENOMEM, "out of memory");
    pthread_mutex_lock(&s->mu);
    old = svc_find_table(s, name);
    if (!old) {
        pthread_mutex_unlock(&s->mu);
        svc_table_free(st);
        return pm_error_new(PM_ENOTFOUND, "table %s was dropped", name);
    }
    /* carry what the service knows about the table over */
    st->last_expire = old->last_expire;
    st->last_walk = old->last_walk;
    st->expired_at_snapshot = old->expired_at_snapshot;
    st->last_orphans = old->last_orphans;
    st->last_job = old->last_job;
    st->index_due = old->index_due;
    st->seen = true;
    st->last_refresh = svc_now_ms();
    for (size_t i = 0; i < st->nbuckets; i++)
        for (size_t k = 0; k < old->nbuckets; k++)
            if (st->buckets[i].bucket == old->buckets[k].bucket &&
                !strcmp(st->buckets[i].partition, old->buckets[k].partition))
                st->buckets[i].no_progress_snapshot = old->buckets[k].no_progress_snapshot;
    for (size_t i = 0; i < s->ntables; i++)
        if (s->tables[i] == old)
            s->tables[i] = st;
    svc_table_free(old);
    if (reason != SVC_TRIGGER_NONE)
        svc_schedule_table(s, st, reason);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

pm_error *svc_discover(svc *s)
{
    char **dbs = NULL;
    size_t ndb = 0;
    PM_TRY(pm_catalog_list_databases(s->catalog, &dbs, &ndb));
    char **names = NULL;
    size_t nnames = 0;
    pm_error *e = NULL;
    for (size_t d = 0; d < ndb && !e; d++) {
        char **ts = NULL;
        size_t nt = 0;
        e = pm_catalog_list_tables(s->catalog, dbs[d], &ts, &nt);
        for (size_t i = 0; !e && i < nt; i++) {
            size_t len = strlen(dbs[d]) + strlen(ts[i]) + 2;
            char *q = malloc(len);
            char **nn = realloc(names, (nnames + 1) * sizeof *names);
            if (!q || !nn) {
                free(q);
                if (nn)
                    names = nn;
                e = pm_error_new(PM_ENOMEM, "out of memory");
                break;
            }
            names = nn;
            snprintf(q, len, "%s.%s", dbs[d], ts[i]);
            names[nnames++] = q;
        }
        if (ts)
            pm_catalog_names_free(ts, nt);
    }
    if (dbs)
        pm_catalog_names_free(dbs, ndb);
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->ntables; i++)
        s->tables[i]->seen = false;
    for (size_t i = 0; !e && i < nnames; i++) {
        if (!svc_config_owns(&s->cfg, names[i]))
            continue;
        svc_table *t = svc_find_table(s, names[i]);
        if (t) {
            t->seen = true;
            continue;
        }
        char *dot = strchr(names[i], '.');
        *dot = 0;
        char *path = NULL;
        e = pm_catalog_table_path(s->catalog, names[i], dot + 1, &path);
        *dot = '.';
        svc_table *nt = e ? NULL : calloc(1, sizeof *nt);
        svc_table **tabs = nt ? realloc(s->tables, (s->ntables + 1) * sizeof *tabs) : NULL;
        if (!e && (!nt || !tabs)) {
            free(nt);
            e = pm_error_new(PM_ENOMEM, "out of memory");
        }
        if (!e) {
            s->tables = tabs;
            nt->name = strdup(names[i]);
            nt->path = strdup(path);
            nt->th = s->cfg.th;
            nt->seen = true;
            s->tables[s->ntables++] = nt;
        }
        free(path);
    }
    /* dropped tables leave */
    size_t k = 0;
    for (size_t i = 0; i < s->ntables; i++) {
        if (s->tables[i]->seen || e)
            s->tables[k++] = s->tables[i];
        else
            svc_table_free(s->tables[i]);
    }
    s->ntables = e ? s->ntables : k;
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    return e;
}
