/*
 * service/status_page.c — GET /: one server-rendered HTML page of the
 * owned tables (mode, snapshot, pending files, each bucket as a bar of
 * pending vs compacted bytes, latch state), the running and queued jobs
 * and the recent finished ones.  It refreshes itself every 2 s (a meta
 * refresh; no script).  Every value from tables or jobs is HTML-escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "svc.h"

static void bytes_text(svc_text *t, int64_t b)
{
    if (b >= 1LL << 30)
        svc_text_printf(t, "%.1f GiB", (double)b / (1 << 30));
    else if (b >= 1 << 20)
        svc_text_printf(t, "%.1f MiB", (double)b / (1 << 20));
    else if (b >= 1 << 10)
        svc_text_printf(t, "%.1f KiB", (double)b / (1 << 10));
    else
        svc_text_printf(t, "%lld B", (long long)b);
}

static void time_text(svc_text *t, int64_t ms)
{
    if (!ms) {
        svc_text_printf(t, "-");
        return;
    }
    time_t sec = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    char buf[32];
    strftime(buf, sizeof buf, "%H:%M:%S", &tm);
    svc_text_printf(t, "%s", buf);
}

static void job_row(svc_text *t, const svc_job *j)
{
    svc_text_printf(t, "<tr class=\"job %s\"><td>%lld</td><td>%s</td><td>", svc_job_state_name(j->state),
                    (long long)j->id, svc_job_type_name(j->type));
    svc_text_html(t, j->table);
    svc_text_printf(t, "</td><td>");
    svc_text_html(t, j->partition ? (*j->partition ? j->partition : "-") : "");
    svc_text_printf(t, "</td><td>");
    if (j->type == SVC_JOB_COMPACTION)
        svc_text_printf(t, "%d", (int)j->bucket);
    svc_text_printf(t, "</td><td>%s</td><td class=\"state\">%s</td><td>", svc_trigger_name(j->trigger),
                    svc_job_state_name(j->state));
    time_text(t, j->created_at);
    svc_text_printf(t, "</td><td>%lld</td><td>", (long long)j->input_files);
    bytes_text(t, j->input_bytes);
    svc_text_printf(t, "</td><td>%lld</td><td>", (long long)j->output_files);
    if (j->snapshot)
        svc_text_printf(t, "%lld", (long long)j->snapshot);
    svc_text_printf(t, "</td><td>");
    svc_text_html(t, j->error ? j->error : j->detail ? j->detail : "");
    svc_text_printf(t, "</td></tr>\n");
}

char *svc_status_page(svc *s)
{
    svc_text t = {0};
    svc_text_printf(&t, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                        "<meta http-equiv=\"refresh\" content=\"2\"><title>paimon serve</title><style>"
                        "body{font-family:sans-serif;margin:1.5em;color:#222}"
                        "table{border-collapse:collapse;margin-bottom:1.5em}"
                        "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}"
                        "th{background:#f3f3f3}.bar{width:220px;height:14px;background:#cfe8cf;position:relative}"
                        ".bar span{display:block;height:14px;background:#e8582d}"
                        ".succeeded .state{color:#287a28}.failed .state{color:#b00020}"
                        ".running .state{color:#1a55c4;font-weight:bold}.queued .state{color:#8a6d00}"
                        ".err{color:#b00020}</style></head><body>\n");
    svc_text_printf(&t, "<h1>paimon serve</h1><p>warehouse <code>");
    svc_text_html(&t, s->warehouse);
    svc_text_printf(&t, "</code> &middot; %zu tables &middot; %zu queued &middot; %zu running%s</p>\n", s->ntables,
                    s->nqueue, s->running, s->draining ? " &middot; <b>draining</b>" : "");
    svc_text_printf(&t, "<h2>Tables</h2>\n<table id=\"tables\"><tr><th>table</th><th>mode</th><th>snapshot</th>"
                        "<th>partition</th><th>bucket</th><th>files</th><th>pending</th><th>pending vs "
                        "compacted</th><th>max level</th><th>latch</th></tr>\n");
    for (size_t i = 0; i < s->ntables; i++) {
        const svc_table *tb = s->tables[i];
        size_t rows = tb->nbuckets ? tb->nbuckets : 1;
        for (size_t r = 0; r < rows; r++) {
            svc_text_printf(&t, "<tr class=\"table\">");
            if (r == 0) {
                svc_text_printf(&t, "<td rowspan=\"%zu\" class=\"name\">", rows);
                svc_text_html(&t, tb->name);
                svc_text_printf(&t, "</td><td rowspan=\"%zu\">", rows);
                svc_text_html(&t, tb->mode ? tb->mode : "");
                if (tb->error) {
                    svc_text_printf(&t, "<div class=\"err\">");
                    svc_text_html(&t, tb->error);
                    svc_text_printf(&t, "</div>");
                }
                svc_text_printf(&t, "</td><td rowspan=\"%zu\">%lld</td>", rows, (long long)tb->snapshot);
            }
            if (!tb->nbuckets) {
                svc_text_printf(&t, "<td colspan=\"7\">no data files</td></tr>\n");
                continue;
            }
            const svc_bucket *b = &tb->buckets[r];
            svc_text_printf(&t, "<td>");
            svc_text_html(&t, *b->partition ? b->partition : "-");
            svc_text_printf(&t, "</td><td>%d</td><td>%lld</td><td>%lld (", (int)b->bucket, (long long)b->files,
                            (long long)b->pending_files);
            bytes_text(&t, b->pending_bytes);
            int pct = b->bytes > 0 ? (int)(100.0 * (double)b->pending_bytes / (double)b->bytes) : 0;
            svc_text_printf(&t, ")</td><td><div class=\"bar\" title=\"%d%% pending\"><span style=\"width:%d%%\">"
                                "</span></div></td><td>%d</td><td>%s</td></tr>\n",
                            pct, pct, (int)b->max_level,
                            svc_latch_held(&s->latches, tb->name, b->partition, b->bucket) ? "held" : "free");
        }
    }
    svc_text_printf(&t, "</table>\n");
    static const char *const head = "<tr><th>id</th><th>type</th><th>table</th><th>partition</th><th>bucket</th>"
                                    "<th>trigger</th><th>state</th><th>created</th><th>input files</th>"
                                    "<th>input bytes</th><th>output files</th><th>snapshot</th><th>error / "
                                    "detail</th></tr>\n";
    svc_text_printf(&t, "<h2>Running and queued jobs</h2>\n<table id=\"active\">%s", head);
    for (size_t i = 0; i < s->jobs.n; i++)
        if (!svc_job_done(s->jobs.jobs[i]))
            job_row(&t, s->jobs.jobs[i]);
    svc_text_printf(&t, "</table>\n<h2>Recent jobs</h2>\n<table id=\"recent\">%s", head);
    size_t shown = 0;
    for (size_t i = s->jobs.n; i-- > 0 && shown < 50;)
        if (svc_job_done(s->jobs.jobs[i])) {
            job_row(&t, s->jobs.jobs[i]);
            shown++;
        }
    svc_text_printf(&t, "</table>\n<p><a href=\"/metrics\">metrics</a> &middot; <a href=\"/v1/tables\">tables</a>"
                        " &middot; <a href=\"/v1/jobs\">jobs</a></p></body></html>\n");
    return svc_text_take(&t);
}
