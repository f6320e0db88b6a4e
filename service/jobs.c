/*
 * service/jobs.c — the job registry and its history file.
 *
 * Every pass and maintenance run is a job (svc.h svc_job).  The history
 * is WAREHOUSE/.paimon-service/jobs.jsonl: one JSON object per line, the
 * job's whole record, appended and fsynced on every state change.  On
 * open the file is replayed (the last record of an id wins; a torn last
 * line from a crash is skipped); jobs that were queued or running become
 * failed with "service restarted" and that record is appended.  At most
 * `history` finished jobs are kept (in memory and, when the file has grown
 * past twice that many lines, rewritten atomically: temporary file,
 * fsync, rename).  Job JSON:
 *   {id, type, table, partition, bucket, trigger, state, created_at,
 *    started_at, finished_at, input_files, input_bytes, output_files,
 *    output_bytes, snapshot, error, detail}
 * with times as epoch milliseconds (null when not yet), partition and
 * bucket null for maintenance jobs (-2: the postponed files of a
 * postpone-bucket table).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svc.h"

static const char *const TYPES[] = {"compaction", "expire-snapshots", "remove-orphan-files", "global-index"};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])
static const char *const STATES[] = {"queued", "running", "succeeded", "failed", "cancelled"};

const char *svc_job_type_name(svc_job_type t) { return TYPES[t]; }
const char *svc_job_state_name(svc_job_state s) { return STATES[s]; }

bool svc_job_state_parse(const char *s, svc_job_state *out)
{
    for (size_t i = 0; i < 5; i++)
        if (!strcmp(s, STATES[i])) {
            *out = (svc_job_state)i;
            return true;
        }
    return false;
}

bool svc_job_done(const svc_job *j) { return j->state >= SVC_SUCCEEDED; }

static void job_free(svc_job *j)
{
    if (!j)
        return;
    free(j->table);
    free(j->partition);
    free(j->partition_filter);
    free(j->error);
    free(j->detail);
    free(j);
}

static json_t *opt_time(int64_t ms) { return ms ? json_integer(ms) : json_null(); }
static json_t *opt_str(const char *s) { return s ? json_string(s) : json_null(); }

json_t *svc_job_to_json(const svc_job *j)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "id", json_integer(j->id));
    json_object_set_new(o, "type", json_string(TYPES[j->type]));
    json_object_set_new(o, "table", json_string(j->table));
    json_object_set_new(o, "partition", opt_str(j->partition));
    json_object_set_new(o, "partition_filter", opt_str(j->partition_filter));
    json_object_set_new(o, "bucket", j->type == SVC_JOB_COMPACTION ? json_integer(j->bucket) : json_null());
    json_object_set_new(o, "trigger", json_string(svc_trigger_name(j->trigger)));
    json_object_set_new(o, "state", json_string(STATES[j->state]));
    json_object_set_new(o, "created_at", opt_time(j->created_at));
    json_object_set_new(o, "started_at", opt_time(j->started_at));
    json_object_set_new(o, "finished_at", opt_time(j->finished_at));
    json_object_set_new(o, "input_files", json_integer(j->input_files));
    json_object_set_new(o, "input_bytes", json_integer(j->input_bytes));
    json_object_set_new(o, "output_files", json_integer(j->output_files));
    json_object_set_new(o, "output_bytes", json_integer(j->output_bytes));
    json_object_set_new(o, "snapshot", j->snapshot ? json_integer(j->snapshot) : json_null());
    json_object_set_new(o, "error", opt_str(j->error));
    json_object_set_new(o, "detail", opt_str(j->detail));
    return o;
}

static char *get_str(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

static int64_t get_int(json_t *o, const char *k, int64_t dflt)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

/* A job from one history line (NULL when the line is no job record). */
static svc_job *job_from_json(json_t *o)
{
    const char *type = json_string_value(json_object_get(o, "type"));
    const char *state = json_string_value(json_object_get(o, "state"));
    const char *trig = json_string_value(json_object_get(o, "trigger"));
    const char *table = json_string_value(json_object_get(o, "table"));
    int64_t id = get_int(o, "id", 0);
    if (!type || !state || !trig || !table || id <= 0)
        return NULL;
    svc_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->id = id;
    bool ok = false;
    for (size_t i = 0; i < NTYPES; i++)
        if (!strcmp(type, TYPES[i])) {
            j->type = (svc_job_type)i;
            ok = true;
        }
    ok = ok && svc_job_state_parse(state, &j->state) && svc_trigger_parse(trig, &j->trigger);
    j->table = strdup(table);
    j->partition = get_str(o, "partition");
    j->partition_filter = get_str(o, "partition_filter");
    j->bucket = (int32_t)get_int(o, "bucket", -1);
    j->created_at = get_int(o, "created_at", 0);
    j->started_at = get_int(o, "started_at", 0);
    j->finished_at = get_int(o, "finished_at", 0);
    j->input_files = get_int(o, "input_files", 0);
    j->input_bytes = get_int(o, "input_bytes", 0);
    j->output_files = get_int(o, "output_files", 0);
    j->output_bytes = get_int(o, "output_bytes", 0);
    j->snapshot = get_int(o, "snapshot", 0);
    j->error = get_str(o, "error");
    j->detail = get_str(o, "detail");
    if (!ok || !j->table) {
        job_free(j);
        return NULL;
    }
    return j;
}

static pm_error *append_line(svc_jobs *js, const svc_job *j)
{
    if (!js->path)
        return NULL;
    json_t *o = svc_job_to_json(j);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!s)
        return pm_error_new(PM_ENOMEM, "out of memory");
    int fd = open(js->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    pm_error *e = NULL;
    if (fd < 0) {
        e = pm_error_new(PM_EIO, "open %s: %s", js->path, strerror(errno));
    } else {
        size_t n = strlen(s);
        s[n] = '\n';
        ssize_t w = write(fd, s, n + 1);
        if (w != (ssize_t)(n + 1) || fsync(fd) != 0)
            e = pm_error_new(PM_EIO, "append to %s: %s", js->path, strerror(errno));
        close(fd);
    }
    free(s);
    js->lines++;
    return e;
}

static pm_error *push(svc_jobs *js, svc_job *j)
{
    if (js->n == js->cap) {
        size_t cap = js->cap ? js->cap * 2 : 64;
        svc_job **nj = realloc(js->jobs, cap * sizeof *nj);
        if (!nj)
            return pm_error_new(PM_ENOMEM, "out of memory");
        js->jobs = nj;
        js->cap = cap;
    }
    js->jobs[js->n++] = j;
    return NULL;
}

/* Keep at most `history` finished jobs (the oldest finished go first). */
static void trim(svc_jobs *js)
{
    size_t finished = 0;
    for (size_t i = 0; i < js->n; i++)
        finished += svc_job_done(js->jobs[i]);
    size_t k = 0;
    for (size_t i = 0; i < js->n; i++) {
        svc_job *j = js->jobs[i];
        if (finished > (size_t)js->history && svc_job_done(j)) {
            job_free(j);
            finished--;
            continue;
        }
        js->jobs[k++] = j;
    }
    js->n = k;
}

/* Rewrite the file with the jobs held (atomically). */
static pm_error *rewrite(svc_jobs *js)
{
    size_t n = strlen(js->path) + 8;
    char *tmp = malloc(n);
    if (!tmp)
        return pm_error_new(PM_ENOMEM, "out of memory");
    snprintf(tmp, n, "%s.tmp", js->path);
    FILE *f = fopen(tmp, "w");
    pm_error *e = NULL;
    if (!f) {
        e = pm_error_new(PM_EIO, "create %s: %s", tmp, strerror(errno));
        free(tmp);
        return e;
    }
    for (size_t i = 0; i < js->n && !e; i++) {
        json_t *o = svc_job_to_json(js->jobs[i]);
        if (!o || json_dumpf(o, f, JSON_COMPACT) != 0 || fputc('\n', f) == EOF)
            e = pm_error_new(PM_EIO, "write %s", tmp);
        json_decref(o);
    }
    if (!e && (fflush(f) != 0 || fsync(fileno(f)) != 0))
        e = pm_error_new(PM_EIO, "sync %s: %s", tmp, strerror(errno));
    if (fclose(f) != 0 && !e)
        e = pm_error_new(PM_EIO, "close %s", tmp);
    if (!e && rename(tmp, js->path) != 0)
        e = pm_error_new(PM_EIO, "rename %s: %s", tmp, strerror(errno));
    if (e)
        unlink(tmp);
    else
        js->lines = js->n;
    free(tmp);
    return e;
}

pm_error *svc_jobs_open(svc_jobs *js, const char *dir, int64_t history)
{
    memset(js, 0, sizeof *js);
    js->next_id = 1;
    js->history = history;
    if (!dir)
        return NULL;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return pm_error_new(PM_EIO, "mkdir %s: %s", dir, strerror(errno));
    size_t n = strlen(dir) + 16;
    js->path = malloc(n);
    if (!js->path)
        return pm_error_new(PM_ENOMEM, "out of memory");
    snprintf(js->path, n, "%s/jobs.jsonl", dir);
    FILE *f = fopen(js->path, "r");
    if (!f)
        return errno == ENOENT ? NULL : pm_error_new(PM_EIO, "open %s: %s", js->path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    pm_error *e = NULL;
    while (!e && (len = getline(&line, &cap, f)) > 0) {
        js->lines++;
        json_t *o = json_loadb(line, (size_t)len, 0, NULL);
        svc_job *j = o ? job_from_json(o) : NULL;
        json_decref(o);
        if (!j)
            continue; /* a torn line */
        if (j->id >= js->next_id)
            js->next_id = j->id + 1;
        svc_job *old = svc_jobs_find(js, j->id);
        if (old) {
            for (size_t i = 0; i < js->n; i++)
                if (js->jobs[i] == old)
                    js->jobs[i] = j;
            job_free(old);
        } else {
            e = push(js, j);
            if (e)
                job_free(j);
        }
    }
    free(line);
    fclose(f);
    int64_t now = svc_now_ms();
    for (size_t i = 0; !e && i < js->n; i++) {
        svc_job *j = js->jobs[i];
        if (j->state != SVC_QUEUED && j->state != SVC_RUNNING)
            continue;
        j->state = SVC_FAILED;
        j->finished_at = now;
        free(j->error);
        j->error = strdup("service restarted");
        e = append_line(js, j);
    }
    trim(js);
    return e;
}

void svc_jobs_close(svc_jobs *js)
{
    for (size_t i = 0; i < js->n; i++)
        job_free(js->jobs[i]);
    free(js->jobs);
    free(js->path);
    memset(js, 0, sizeof *js);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

pm_error *svc_jobs_add(svc_jobs *js, svc_job_type type, const char *table, const char *partition,
                       const char *partition_filter, int32_t bucket, svc_trigger trigger, int64_t now,
                       svc_job **out)
{
    *out = NULL;
    svc_job *j = calloc(1, sizeof *j);
    if (!j)
        return pm_error_new(PM_ENOMEM, "out of memory");
    j->id = js->next_id++;
    j->type = type;
    j->table = strdup(table);
    j->partition = dup_or_null(partition);
    j->partition_filter = dup_or_null(partition_filter);
    j->bucket = bucket;
    j->trigger = trigger;
    j->state = SVC_QUEUED;
    j->created_at = now;
    pm_error *e = j->table ? push(js, j) : pm_error_new(PM_ENOMEM, "out of memory");
    if (e) {
        job_free(j);
        return e;
    }
    *out = j;
    return append_line(js, j);
}

pm_error *svc_jobs_save(svc_jobs *js, svc_job *j)
{
    pm_error *e = append_line(js, j);
    if (svc_job_done(j)) {
        trim(js);
        if (!e && js->path && js->lines > 2 * (size_t)js->history)
            e = rewrite(js);
    }
    return e;
}

svc_job *svc_jobs_find(const svc_jobs *js, int64_t id)
{
    for (size_t i = 0; i < js->n; i++)
        if (js->jobs[i]->id == id)
            return js->jobs[i];
    return NULL;
}
