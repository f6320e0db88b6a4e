/*
 * service/http.c — the HTTP API on libmicrohttpd (one thread per
 * connection, at most 64 connections, 30 s idle timeout, bodies up to
 * 1 MiB).  JSON in and out; errors are {"error": {"code", "message"}}:
 *   400 bad_request  malformed JSON, unknown keys, wrong types, names that
 *                    are not a plain "db.table" (path traversal, NUL)
 *   401 unauthorized (with --auth-token-file: a missing or wrong bearer token)
 *   404 not_found    unknown path, table or job
 *   405 method_not_allowed
 *   409 conflict     a latched bucket (POST /v1/compact), a job that is no
 *                    longer queued (cancel)
 *   413 too_large    a body over 1 MiB
 *   422 unsupported  a table the library cannot compact
 *   503 draining     work refused while draining
 *   504 timeout      a checkpoint that did not finish in time
 * Routes: GET /v1/health, GET /v1/tables, GET /v1/tables/{db.table},
 * POST /v1/tables/{db.table}/checkpoint, POST /v1/compact, GET /v1/jobs,
 * GET /v1/jobs/{id}, POST /v1/jobs/{id}/cancel, POST /v1/drain,
 * GET /metrics, GET / (status_page.c).
 * URL escapes are decoded by us: %00 becomes a control character, which
 * no name accepts.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "paimon/files.h"
#include "paimon/table.h"
#include "svc.h"

#define BODY_MAX (1 << 20)

typedef struct conn {
    char *body;
    size_t len, cap;
    bool too_large;
} conn;

typedef struct reply {
    int status;
    char *body;                   /* malloc'd */
    const char *type;
} reply;

static reply json_reply(int status, json_t *o)
{
    reply r = {status, o ? json_dumps(o, JSON_COMPACT) : NULL, "application/json"};
    json_decref(o);
    if (!r.body) {
        r.status = 500;
        r.body = strdup("{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}");
    }
    return r;
}

static reply error_reply(int status, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static reply error_reply(int status, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_t *e = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg);
    return json_reply(status, e);
}

/* ------------------------------------------------------------------ */
/* JSON of tables                                                      */

static double age_s(const svc_table *t, const svc_bucket *b, int64_t now)
{
    if (!b->pending_files || b->oldest_age_ms < 0)
        return 0;
    return (double)(b->oldest_age_ms + (now > t->last_refresh ? now - t->last_refresh : 0)) / 1000.0;
}

static json_t *table_json(svc *s, const svc_table *t)
{
    int64_t now = svc_now_ms();
    json_t *o = json_object(), *bs = json_array();
    int64_t pf = 0, pb = 0;
    double oldest = 0;
    for (size_t i = 0; i < t->nbuckets; i++) {
        const svc_bucket *b = &t->buckets[i];
        double a = age_s(t, b, now);
        pf += b->pending_files;
        pb += b->pending_bytes;
        if (a > oldest)
            oldest = a;
        json_array_append_new(
            bs, json_pack("{s:s,s:i,s:I,s:I,s:I,s:I,s:f,s:i,s:b}", "partition", b->partition, "bucket",
                          (int)b->bucket, "files", (json_int_t)b->files, "bytes", (json_int_t)b->bytes,
                          "pending_files", (json_int_t)b->pending_files, "pending_bytes",
                          (json_int_t)b->pending_bytes, "oldest_pending_age_s", a, "max_level", (int)b->max_level,
                          "latched", svc_latch_held(&s->latches, t->name, b->partition, b->bucket)));
    }
    json_object_set_new(o, "table", json_string(t->name));
    json_object_set_new(o, "path", json_string(t->path));
    json_object_set_new(o, "mode", t->mode ? json_string(t->mode) : json_null());
    json_object_set_new(o, "error", t->error ? json_string(t->error) : json_null());
    json_object_set_new(o, "primary_key", json_boolean(t->primary_key));
    json_object_set_new(o, "snapshot", json_integer(t->snapshot));
    json_object_set_new(o, "pending_files", json_integer(pf));
    json_object_set_new(o, "pending_bytes", json_integer(pb));
    json_object_set_new(o, "oldest_pending_age_s", json_real(oldest));
    json_object_set_new(o, "buckets", bs);
    json_object_set_new(o, "latched", json_boolean(svc_latch_held(&s->latches, t->name, NULL, -1)));
    svc_job *last = t->last_job ? svc_jobs_find(&s->jobs, t->last_job) : NULL;
    json_object_set_new(o, "last_pass", last ? svc_job_to_json(last) : json_null());
    json_object_set_new(o, "thresholds",
                        json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:b}", "interval_ms", (json_int_t)t->th.interval_ms,
                                  "trigger_count", (json_int_t)t->th.trigger_count, "trigger_bytes",
                                  (json_int_t)t->th.trigger_bytes, "trigger_age_ms",
                                  (json_int_t)t->th.trigger_age_ms, "prefix_max", (json_int_t)t->th.prefix_max,
                                  "pass_target_bytes", (json_int_t)t->th.pass_target_bytes, "backpressure",
                                  t->th.backpressure));
    return o;
}

/* The levels of a primary-key table as JSON (NULL when none or on error). */
static json_t *levels_json(const char *path)
{
    pm_table *t = NULL;
    pm_level_list *l = NULL;
    char *text = NULL;
    json_t *out = NULL;
    pm_error *e = pm_table_open(&t, path, NULL);
    if (!e && pm_table_has_primary_key(t))
        e = pm_table_levels(&l, t, NULL);
    if (!e && l)
        e = pm_level_list_to_json(&text, l);
    if (!e && text)
        out = json_loads(text, 0, NULL);
    pm_error_free(e);
    pm_free(text);
    pm_level_list_free(l);
    pm_table_free(t);
    return out;
}

/* ------------------------------------------------------------------ */
/* handlers (each takes and releases s->mu itself)                    */

static json_t *parse_body(const conn *c, bool required, reply *err)
{
    if (!c->len && !required)
        return json_object();
    json_error_t je;
    json_t *o = c->len ? json_loadb(c->body, c->len, JSON_REJECT_DUPLICATES, &je) : NULL;
    if (!o) {
        *err = c->len ? error_reply(400, "bad_request", "malformed JSON: %s (line %d, column %d)", je.text, je.line,
                                    je.column)
                      : error_reply(400, "bad_request", "a JSON body is required");
        return NULL;
    }
    if (!json_is_object(o)) {
        json_decref(o);
        *err = error_reply(400, "bad_request", "the body must be a JSON object");
        return NULL;
    }
    return o;
}

static bool only_keys(json_t *o, const char *const *keys, reply *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        bool ok = false;
        for (size_t i = 0; keys[i] && !ok; i++)
            ok = !strcmp(keys[i], k);
        if (!ok) {
            *err = error_reply(400, "bad_request", "unknown key '%s'", k);
            return false;
        }
    }
    return true;
}

/* Does the bucket's partition "k=v/k2=v2" hold every pair of spec? */
static bool partition_matches(const char *partition, json_t *spec)
{
    const char *k;
    json_t *v;
    json_object_foreach(spec, k, v) {
        char want[1024];
        snprintf(want, sizeof want, "%s=%s", k, json_string_value(v));
        bool found = false;
        const char *p = partition;
        size_t wl = strlen(want);
        while (*p && !found) {
            const char *q = strchr(p, '/');
            size_t len = q ? (size_t)(q - p) : strlen(p);
            found = len == wl && !strncmp(p, want, len);
            p = q ? q + 1 : p + len;
        }
        if (!found)
            return false;
    }
    return true;
}

static reply post_compact(svc *s, const conn *c)
{
    reply err;
    json_t *o = parse_body(c, true, &err);
    if (!o)
        return err;
    static const char *const keys[] = {"table", "partition", "bucket", "reason", NULL};
    reply r;
    json_t *tv = json_object_get(o, "table"), *pv = json_object_get(o, "partition"),
           *bv = json_object_get(o, "bucket"), *rv = json_object_get(o, "reason");
    svc_trigger trig = SVC_TRIGGER_MANUAL;
    if (!only_keys(o, keys, &r))
        goto done;
    if (!json_is_string(tv) || !svc_valid_table_name(json_string_value(tv))) {
        r = error_reply(400, "bad_request", "\"table\" must be a plain \"db.table\" name");
        goto done;
    }
    if (pv && !json_is_null(pv)) {
        const char *k;
        json_t *v;
        bool ok = json_is_object(pv);
        json_object_foreach(pv, k, v) ok = ok && json_is_string(v) && !strchr(json_string_value(v), '/');
        if (!ok) {
            r = error_reply(400, "bad_request", "\"partition\" must be an object of string values");
            goto done;
        }
    }
    if (bv && !json_is_null(bv) &&
        (!json_is_integer(bv) || (json_integer_value(bv) < 0 && json_integer_value(bv) != SVC_BUCKET_POSTPONE) ||
         json_integer_value(bv) > INT32_MAX)) {
        r = error_reply(400, "bad_request", "\"bucket\" must be a non-negative integer (or -2, the postponed "
                                            "files of a postpone-bucket table)");
        goto done;
    }
    if (rv && !json_is_null(rv) &&
        (!json_is_string(rv) || !svc_trigger_parse(json_string_value(rv), &trig) ||
         (trig != SVC_TRIGGER_MANUAL && trig != SVC_TRIGGER_BACKPRESSURE))) {
        r = error_reply(400, "bad_request", "\"reason\" must be \"manual\" or \"backpressure\"");
        goto done;
    }
    const char *name = json_string_value(tv);
    pthread_mutex_lock(&s->mu);
    bool known = svc_find_table(s, name) != NULL;
    pthread_mutex_unlock(&s->mu);
    if (!known) {
        r = error_reply(404, "not_found", "table %s is not owned by the service", name);
        goto done;
    }
    pm_error *e = svc_refresh_table(s, name, SVC_TRIGGER_NONE);
    if (e) {
        char *m = svc_error_text(e);
        r = error_reply(404, "not_found", "%s", m ? m : "table not found");
        free(m);
        goto done;
    }
    pthread_mutex_lock(&s->mu);
    svc_table *t = svc_find_table(s, name);
    if (s->draining) {
        r = error_reply(503, "draining", "the service is draining");
    } else if (!t) {
        r = error_reply(404, "not_found", "table %s was dropped", name);
    } else if (t->error) {
        r = error_reply(422, "unsupported", "%s", t->error);
    } else {
        size_t *sel = calloc(t->nbuckets ? t->nbuckets : 1, sizeof *sel), nsel = 0;
        const svc_bucket *busy = NULL;
        for (size_t i = 0; sel && i < t->nbuckets; i++) {
            const svc_bucket *b = &t->buckets[i];
            if (bv && json_is_integer(bv) && b->bucket != json_integer_value(bv))
                continue;
            if (pv && json_is_object(pv) && !partition_matches(b->partition, pv))
                continue;
            sel[nsel++] = i;
            if (!busy && svc_latch_held(&s->latches, t->name, b->partition, b->bucket))
                busy = b;
        }
        if (busy) {
            s->metrics.latch_collisions++;
            r = error_reply(409, "conflict", "bucket %d of partition '%s' of %s has a pass queued or running",
                            (int)busy->bucket, busy->partition, t->name);
        } else {
            json_t *ids = json_array();
            for (size_t i = 0; i < nsel; i++) {
                svc_job *j = NULL;
                if (svc_enqueue_pass(s, t, &t->buckets[sel[i]], trig, &j))
                    json_array_append_new(ids, json_integer(j->id));
            }
            r = json_reply(202, json_pack("{s:o}", "job_ids", ids));
        }
        free(sel);
    }
    pthread_mutex_unlock(&s->mu);
done:
    json_decref(o);
    return r;
}

static reply get_tables(svc *s)
{
    json_t *a = json_array();
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->ntables; i++)
        json_array_append_new(a, table_json(s, s->tables[i]));
    pthread_mutex_unlock(&s->mu);
    return json_reply(200, json_pack("{s:o}", "tables", a));
}

static reply get_table(svc *s, const char *name)
{
    pthread_mutex_lock(&s->mu);
    svc_table *t = svc_find_table(s, name);
    json_t *o = t ? table_json(s, t) : NULL;
    char *path = t ? strdup(t->path) : NULL;
    pthread_mutex_unlock(&s->mu);
    if (!o) {
        free(path);
        return error_reply(404, "not_found", "table %s is not owned by the service", name);
    }
    json_t *lv = path ? levels_json(path) : NULL;
    json_object_set_new(o, "levels", lv ? lv : json_null());
    free(path);
    return json_reply(200, o);
}

static reply post_checkpoint(svc *s, const char *name, const conn *c)
{
    reply err;
    json_t *o = parse_body(c, false, &err);
    if (!o)
        return err;
    static const char *const keys[] = {"timeout_s", NULL};
    reply r;
    json_t *tv = json_object_get(o, "timeout_s");
    if (!only_keys(o, keys, &r)) {
        json_decref(o);
        return r;
    }
    if (tv && !json_is_null(tv) && (!json_is_number(tv) || json_number_value(tv) <= 0 ||
                                    json_number_value(tv) > 86400.0 * 365)) {
        json_decref(o);
        return error_reply(400, "bad_request", "\"timeout_s\" must be a positive number of seconds");
    }
    int64_t timeout_ms = tv && json_is_number(tv) ? (int64_t)(json_number_value(tv) * 1000) : 0;
    json_decref(o);
    pthread_mutex_lock(&s->mu);
    bool known = svc_find_table(s, name) != NULL;
    if (!known) {
        pthread_mutex_unlock(&s->mu);
        return error_reply(404, "not_found", "table %s is not owned by the service", name);
    }
    if (s->draining) {
        pthread_mutex_unlock(&s->mu);
        return error_reply(503, "draining", "the service is draining");
    }
    int64_t *ids = NULL;
    size_t n = 0;
    pm_error *e = NULL;
    bool done = svc_checkpoint(s, name, timeout_ms, &ids, &n, &e);
    json_t *jobs = json_array();
    for (size_t i = 0; i < n; i++) {
        svc_job *j = svc_jobs_find(&s->jobs, ids[i]);
        if (j)
            json_array_append_new(jobs, svc_job_to_json(j));
    }
    pthread_mutex_unlock(&s->mu);
    free(ids);
    if (e) {
        char *m = svc_error_text(e);
        json_decref(jobs);
        r = error_reply(422, "unsupported", "%s", m ? m : "checkpoint failed");
        free(m);
        return r;
    }
    return json_reply(done ? 200 : 504, json_pack("{s:b,s:o}", "done", done, "jobs", jobs));
}

static reply get_jobs(svc *s, struct MHD_Connection *mc)
{
    const char *table = MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "table");
    const char *state = MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "state");
    const char *limit = MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "limit");
    svc_job_state st = SVC_QUEUED;
    if (state && *state && !svc_job_state_parse(state, &st))
        return error_reply(400, "bad_request", "unknown state '%s'", state);
    long long lim = 100;
    if (limit && *limit) {
        char *end = NULL;
        lim = strtoll(limit, &end, 10);
        if (*end || lim < 1 || lim > 100000)
            return error_reply(400, "bad_request", "limit must be an integer in 1..100000");
    }
    json_t *a = json_array();
    pthread_mutex_lock(&s->mu);
    for (size_t i = s->jobs.n; i-- > 0 && (long long)json_array_size(a) < lim;) {
        const svc_job *j = s->jobs.jobs[i];
        if (table && *table && strcmp(j->table, table))
            continue;
        if (state && *state && j->state != st)
            continue;
        json_array_append_new(a, svc_job_to_json(j));
    }
    pthread_mutex_unlock(&s->mu);
    return json_reply(200, json_pack("{s:o}", "jobs", a));
}

static bool parse_id(const char *s, int64_t *out)
{
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v <= 0)
        return false;
    *out = v;
    return true;
}

static reply job_action(svc *s, const char *ids, bool cancel)
{
    int64_t id;
    if (!parse_id(ids, &id))
        return error_reply(400, "bad_request", "job id '%s' is not a positive integer", ids);
    reply r;
    pthread_mutex_lock(&s->mu);
    svc_job *j = svc_jobs_find(&s->jobs, id);
    if (!j) {
        r = error_reply(404, "not_found", "no job %lld", (long long)id);
    } else if (!cancel) {
        r = json_reply(200, svc_job_to_json(j));
    } else if (j->state != SVC_QUEUED) {
        r = error_reply(409, "conflict", "job %lld is %s, only queued jobs can be cancelled", (long long)id,
                        svc_job_state_name(j->state));
    } else {
        for (size_t i = 0; i < s->nqueue; i++)
            if (s->queue[i] == j) {
                memmove(s->queue + i, s->queue + i + 1, (s->nqueue - i - 1) * sizeof *s->queue);
                s->nqueue--;
                break;
            }
        j->state = SVC_CANCELLED;
        j->finished_at = svc_now_ms();
        if (j->type == SVC_JOB_COMPACTION)
            svc_latch_release(&s->latches, j->table, j->partition, j->bucket);
        else
            svc_latch_release(&s->latches, j->table, NULL, -1);
        pm_error *e = svc_jobs_save(&s->jobs, j);
        pm_error_free(e);
        pthread_cond_broadcast(&s->changed);
        r = json_reply(200, svc_job_to_json(j));
    }
    pthread_mutex_unlock(&s->mu);
    return r;
}

static reply post_drain(svc *s)
{
    pthread_mutex_lock(&s->mu);
    svc_drain(s);
    pthread_mutex_unlock(&s->mu);
    return json_reply(200, json_pack("{s:b}", "drained", 1));
}

/* ------------------------------------------------------------------ */
/* dispatch                                                            */

static bool authorized(svc *s, struct MHD_Connection *mc)
{
    if (!s->auth_token)
        return true;
    const char *h = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncmp(h, "Bearer ", 7))
        return false;
    const char *a = h + 7, *b = s->auth_token;
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = (unsigned char)(la != lb);
    for (size_t i = 0; i < la && i < lb; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static reply route(svc *s, struct MHD_Connection *mc, const char *url, const char *method, const conn *c)
{
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST");
    if (!strcmp(url, "/")) {
        if (!get)
            return error_reply(405, "method_not_allowed", "GET only");
        pthread_mutex_lock(&s->mu);
        reply r = {200, svc_status_page(s), "text/html; charset=utf-8"};
        pthread_mutex_unlock(&s->mu);
        return r;
    }
    if (!strcmp(url, "/metrics")) {
        if (!get)
            return error_reply(405, "method_not_allowed", "GET only");
        pthread_mutex_lock(&s->mu);
        reply r = {200, svc_metrics_text(s), "text/plain; version=0.0.4"};
        pthread_mutex_unlock(&s->mu);
        return r;
    }
    if (!strcmp(url, "/v1/health"))
        return get ? json_reply(200, json_pack("{s:s}", "status", "ok"))
                   : error_reply(405, "method_not_allowed", "GET only");
    if (!strcmp(url, "/v1/tables"))
        return get ? get_tables(s) : error_reply(405, "method_not_allowed", "GET only");
    if (!strcmp(url, "/v1/compact"))
        return post ? post_compact(s, c) : error_reply(405, "method_not_allowed", "POST only");
    if (!strcmp(url, "/v1/drain"))
        return post ? post_drain(s) : error_reply(405, "method_not_allowed", "POST only");
    if (!strcmp(url, "/v1/jobs"))
        return get ? get_jobs(s, mc) : error_reply(405, "method_not_allowed", "GET only");
    if (!strncmp(url, "/v1/jobs/", 9)) {
        char id[64];
        const char *rest = url + 9, *slash = strchr(rest, '/');
        size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
        if (n >= sizeof id)
            return error_reply(400, "bad_request", "job id too long");
        memcpy(id, rest, n);
        id[n] = 0;
        if (!slash)
            return get ? job_action(s, id, false) : error_reply(405, "method_not_allowed", "GET only");
        if (!strcmp(slash, "/cancel"))
            return post ? job_action(s, id, true) : error_reply(405, "method_not_allowed", "POST only");
        return error_reply(404, "not_found", "no such path");
    }
    if (!strncmp(url, "/v1/tables/", 11)) {
        const char *rest = url + 11, *slash = strchr(rest, '/');
        size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
        char name[600];
        if (n >= sizeof name)
            return error_reply(400, "bad_request", "table name too long");
        memcpy(name, rest, n);
        name[n] = 0;
        if (!svc_valid_table_name(name) || (slash && strcmp(slash, "/checkpoint")))
            return slash && svc_valid_table_name(name)
                       ? error_reply(404, "not_found", "no such path")
                       : error_reply(400, "bad_request", "not a plain \"db.table\" name");
        if (!slash)
            return get ? get_table(s, name) : error_reply(405, "method_not_allowed", "GET only");
        return post ? post_checkpoint(s, name, c) : error_reply(405, "method_not_allowed", "POST only");
    }
    return error_reply(404, "not_found", "no such path");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **ctx)
{
    (void)version;
    svc *s = cls;
    conn *c = *ctx;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return MHD_NO;
        *ctx = c;
        return MHD_YES;
    }
    if (*size) {
        if (!c->too_large && c->len + *size > BODY_MAX) {
            c->too_large = true;
            free(c->body);
            c->body = NULL;
            c->len = c->cap = 0;
        }
        if (!c->too_large) {
            if (c->len + *size > c->cap) {
                size_t cap = c->cap ? c->cap : 4096;
                while (cap < c->len + *size)
                    cap *= 2;
                char *nb = realloc(c->body, cap);
                if (!nb)
                    return MHD_NO;
                c->body = nb;
                c->cap = cap;
            }
            memcpy(c->body + c->len, data, *size);
            c->len += *size;
        }
        *size = 0;
        return MHD_YES;
    }
    reply r;
    if (!authorized(s, mc))
        r = error_reply(401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required");
    else if (c->too_large)
        r = error_reply(413, "too_large", "the body exceeds %d bytes", BODY_MAX);
    else
        r = route(s, mc, url, method, c);
    if (!r.body)
        r = error_reply(500, "internal", "out of memory");
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(r.body), r.body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(r.body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r.type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (r.status == 401)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    enum MHD_Result ret = MHD_queue_response(mc, (unsigned)r.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **ctx, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)mc;
    (void)toe;
    conn *c = *ctx;
    if (c) {
        free(c->body);
        free(c);
        *ctx = NULL;
    }
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* %XX decoding in place ('+' stays '+'); %00 becomes \x01, which no name
 * accepts. */
static size_t unescape(void *cls, struct MHD_Connection *mc, char *s)
{
    (void)cls;
    (void)mc;
    char *w = s;
    for (char *r = s; *r; r++) {
        int hi, lo;
        if (*r == '%' && (hi = hexval(r[1])) >= 0 && (lo = hexval(r[2])) >= 0) {
            char ch = (char)(hi * 16 + lo);
            *w++ = ch ? ch : '\x01';
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
    return (size_t)(w - s);
}

pm_error *svc_http_start(svc *s, const char *host, int port, struct MHD_Daemon **out, int *bound_port)
{
    *out = NULL;
    struct sockaddr_in a4;
    struct sockaddr_in6 a6;
    struct sockaddr *addr;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    memset(&a4, 0, sizeof a4);
    memset(&a6, 0, sizeof a6);
    if (inet_pton(AF_INET, host, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons((uint16_t)port);
        addr = (struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons((uint16_t)port);
        addr = (struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else {
        return pm_error_new(PM_EINVALID, "listen address '%s' is not a numeric IPv4 or IPv6 address", host);
    }
    struct MHD_Daemon *d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
                                            addr, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
                                            MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
                                            MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
    if (!d)
        return pm_error_new(PM_EIO, "cannot listen on %s:%d", host, port);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info ? (int)info->port : port;
    *out = d;
    return NULL;
}

void svc_http_stop(struct MHD_Daemon *d)
{
    if (d)
        MHD_stop_daemon(d);
}
