/*
 * service/metrics.c — what the service did and what is pending, in the
 * Prometheus text format (GET /metrics):
 *   paimon_service_passes_started_total{table,trigger}     counter
 *   paimon_service_passes_succeeded_total{table,trigger}   counter
 *   paimon_service_passes_failed_total{table,trigger}      counter
 *   paimon_service_folded_files_total{table}               counter
 *   paimon_service_folded_bytes_total{table}               counter
 *   paimon_service_pass_duration_seconds                   histogram
 *   paimon_service_queue_depth, paimon_service_running_passes   gauges
 *   paimon_service_pending_files{table}, _pending_bytes{table},
 *   paimon_service_oldest_pending_age_seconds{table}       gauges (the staleness bound)
 *   paimon_service_latch_collisions_total                  counter
 *   paimon_service_maintenance_runs_total, _failures_total counters
 *   paimon_service_tables                                  gauge
 * Label values are escaped as the format requires (\\, \", \n).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc.h"

static const double HIST_LE[SVC_HIST_BUCKETS] = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};

void svc_metrics_clear(svc_metrics *m)
{
    for (size_t i = 0; i < m->nrows; i++)
        free(m->rows[i].table);
    free(m->rows);
    for (size_t i = 0; i < m->nfold; i++)
        free(m->fold_tables[i]);
    free(m->fold_tables);
    free(m->fold_files);
    free(m->fold_bytes);
    memset(m, 0, sizeof *m);
}

static svc_metric_row *row(svc_metrics *m, const char *table, svc_trigger t)
{
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].trigger == t && !strcmp(m->rows[i].table, table))
            return &m->rows[i];
    svc_metric_row *r = realloc(m->rows, (m->nrows + 1) * sizeof *r);
    if (!r)
        return NULL;
    m->rows = r;
    r = &m->rows[m->nrows];
    memset(r, 0, sizeof *r);
    r->table = strdup(table);
    if (!r->table)
        return NULL;
    r->trigger = t;
    m->nrows++;
    return r;
}

static size_t fold_index(svc_metrics *m, const char *table)
{
    for (size_t i = 0; i < m->nfold; i++)
        if (!strcmp(m->fold_tables[i], table))
            return i;
    char **t = realloc(m->fold_tables, (m->nfold + 1) * sizeof *t);
    if (t)
        m->fold_tables = t;
    int64_t *f = realloc(m->fold_files, (m->nfold + 1) * sizeof *f);
    if (f)
        m->fold_files = f;
    int64_t *b = realloc(m->fold_bytes, (m->nfold + 1) * sizeof *b);
    if (b)
        m->fold_bytes = b;
    if (!t || !f || !b || !(m->fold_tables[m->nfold] = strdup(table)))
        return SIZE_MAX;
    m->fold_files[m->nfold] = m->fold_bytes[m->nfold] = 0;
    return m->nfold++;
}

void svc_metrics_pass(svc_metrics *m, const svc_job *j)
{
    svc_metric_row *r = row(m, j->table, j->trigger);
    if (r)
        r->started++;
}

void svc_metrics_pass_done(svc_metrics *m, const svc_job *j)
{
    svc_metric_row *r = row(m, j->table, j->trigger);
    if (r) {
        if (j->state == SVC_SUCCEEDED)
            r->succeeded++;
        else
            r->failed++;
    }
    if (j->state == SVC_SUCCEEDED) {
        size_t k = fold_index(m, j->table);
        if (k != SIZE_MAX) {
            m->fold_files[k] += j->input_files;
            m->fold_bytes[k] += j->input_bytes;
        }
    }
    double sec = (double)(j->finished_at - j->started_at) / 1000.0;
    size_t b = 0;
    while (b < SVC_HIST_BUCKETS && sec > HIST_LE[b])
        b++;
    m->hist[b]++;
    m->hist_sum += sec;
    m->hist_count++;
}

/* A label value with \\, \" and \n escaped (static buffer per call site). */
static const char *esc(const char *v, char *buf, size_t cap)
{
    size_t k = 0;
    for (; *v && k + 3 < cap; v++) {
        if (*v == '\\' || *v == '"') {
            buf[k++] = '\\';
            buf[k++] = *v;
        } else if (*v == '\n') {
            buf[k++] = '\\';
            buf[k++] = 'n';
        } else {
            buf[k++] = *v;
        }
    }
    buf[k] = 0;
    return buf;
}

char *svc_metrics_text(svc *s)
{
    svc_text t = {0};
    svc_metrics *m = &s->metrics;
    char eb[1100];
    static const char *const names[3] = {"started", "succeeded", "failed"};
    for (int k = 0; k < 3; k++) {
        svc_text_printf(&t, "# HELP paimon_service_passes_%s_total Compaction passes %s, by table and trigger.\n", names[k],
            names[k]);
        svc_text_printf(&t, "# TYPE paimon_service_passes_%s_total counter\n", names[k]);
        for (size_t i = 0; i < m->nrows; i++) {
            const svc_metric_row *r = &m->rows[i];
            int64_t v = k == 0 ? r->started : k == 1 ? r->succeeded : r->failed;
            svc_text_printf(&t, "paimon_service_passes_%s_total{table=\"%s\",trigger=\"%s\"} %lld\n", names[k],
                esc(r->table, eb, sizeof eb), svc_trigger_name(r->trigger), (long long)v);
        }
    }
    svc_text_printf(&t, "# HELP paimon_service_folded_files_total Pending files folded by passes.\n"
            "# TYPE paimon_service_folded_files_total counter\n");
    for (size_t i = 0; i < m->nfold; i++)
        svc_text_printf(&t, "paimon_service_folded_files_total{table=\"%s\"} %lld\n", esc(m->fold_tables[i], eb, sizeof eb),
            (long long)m->fold_files[i]);
    svc_text_printf(&t, "# HELP paimon_service_folded_bytes_total Bytes read by passes.\n"
            "# TYPE paimon_service_folded_bytes_total counter\n");
    for (size_t i = 0; i < m->nfold; i++)
        svc_text_printf(&t, "paimon_service_folded_bytes_total{table=\"%s\"} %lld\n", esc(m->fold_tables[i], eb, sizeof eb),
            (long long)m->fold_bytes[i]);
    svc_text_printf(&t, "# HELP paimon_service_pass_duration_seconds Duration of compaction passes.\n"
            "# TYPE paimon_service_pass_duration_seconds histogram\n");
    int64_t cum = 0;
    for (size_t b = 0; b < SVC_HIST_BUCKETS; b++) {
        cum += m->hist[b];
        svc_text_printf(&t, "paimon_service_pass_duration_seconds_bucket{le=\"%g\"} %lld\n", HIST_LE[b], (long long)cum);
    }
    cum += m->hist[SVC_HIST_BUCKETS];
    svc_text_printf(&t, "paimon_service_pass_duration_seconds_bucket{le=\"+Inf\"} %lld\n", (long long)cum);
    svc_text_printf(&t, "paimon_service_pass_duration_seconds_sum %.3f\n", m->hist_sum);
    svc_text_printf(&t, "paimon_service_pass_duration_seconds_count %lld\n", (long long)m->hist_count);
    svc_text_printf(&t, "# HELP paimon_service_queue_depth Jobs waiting for a worker.\n# TYPE paimon_service_queue_depth gauge\n"
            "paimon_service_queue_depth %zu\n", s->nqueue);
    svc_text_printf(&t, "# HELP paimon_service_running_jobs Jobs running.\n# TYPE paimon_service_running_jobs gauge\n"
            "paimon_service_running_jobs %zu\n", s->running);
    svc_text_printf(&t, "# HELP paimon_service_tables Tables owned.\n# TYPE paimon_service_tables gauge\n"
            "paimon_service_tables %zu\n", s->ntables);
    int64_t now = svc_now_ms();
    static const char *const gauges[3][2] = {
        {"pending_files", "Files not folded yet."},
        {"pending_bytes", "Bytes not folded yet."},
        {"oldest_pending_age_seconds", "Age of the oldest file not folded yet (the staleness bound)."}};
    for (int k = 0; k < 3; k++) {
        svc_text_printf(&t, "# HELP paimon_service_%s %s\n# TYPE paimon_service_%s gauge\n", gauges[k][0], gauges[k][1],
            gauges[k][0]);
        for (size_t i = 0; i < s->ntables; i++) {
            const svc_table *tb = s->tables[i];
            int64_t files = 0, bytes = 0, age = -1;
            for (size_t b = 0; b < tb->nbuckets; b++) {
                const svc_bucket *bk = &tb->buckets[b];
                files += bk->pending_files;
                bytes += bk->pending_bytes;
                if (bk->pending_files && bk->oldest_age_ms >= 0) {
                    int64_t a = bk->oldest_age_ms + (now > tb->last_refresh ? now - tb->last_refresh : 0);
                    if (a > age)
                        age = a;
                }
            }
            if (k == 0)
                svc_text_printf(&t, "paimon_service_pending_files{table=\"%s\"} %lld\n", esc(tb->name, eb, sizeof eb),
                    (long long)files);
            else if (k == 1)
                svc_text_printf(&t, "paimon_service_pending_bytes{table=\"%s\"} %lld\n", esc(tb->name, eb, sizeof eb),
                    (long long)bytes);
            else
                svc_text_printf(&t, "paimon_service_oldest_pending_age_seconds{table=\"%s\"} %.3f\n",
                    esc(tb->name, eb, sizeof eb), age < 0 ? 0.0 : (double)age / 1000.0);
        }
    }
    svc_text_printf(&t, "# HELP paimon_service_latch_collisions_total Buckets skipped or refused because a pass held them.\n"
            "# TYPE paimon_service_latch_collisions_total counter\npaimon_service_latch_collisions_total %lld\n",
        (long long)m->latch_collisions);
    svc_text_printf(&t, "# HELP paimon_service_maintenance_runs_total Maintenance jobs run.\n"
            "# TYPE paimon_service_maintenance_runs_total counter\npaimon_service_maintenance_runs_total %lld\n",
        (long long)m->maintenance_runs);
    svc_text_printf(&t, "# HELP paimon_service_maintenance_failures_total Maintenance jobs failed.\n"
            "# TYPE paimon_service_maintenance_failures_total counter\n"
            "paimon_service_maintenance_failures_total %lld\n",
        (long long)m->maintenance_failures);
    return svc_text_take(&t);
}
