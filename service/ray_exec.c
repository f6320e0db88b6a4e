/*
 * service/ray_exec.c — a pass's tasks executed on a Ray cluster
 * (compaction-service.executor=ray).  The latch, the job and the commit
 * stay in the service; only the execution of the plan's tasks moves.
 *
 * Steps of svc_ray_execute:
 *   1. the request {"address", "table", "tasks": [task documents]}
 *      (pm_compact_task_to_json of every task, in plan order);
 *   2. the helper `<ray.python> -m paimon_c._service_exec` spawned in a
 *      process group of its own (a terminal's SIGINT reaches only the
 *      service, which drains: the pass is waited for, never cut), with
 *      default signal dispositions and an empty signal mask, standard
 *      input and output on pipes, standard error the service's (Ray's
 *      messages land in the service's log);
 *   3. the request written, its input closed, the answer read to its end,
 *      the helper reaped;
 *   4. {"results": [result documents]} in task order become results
 *      (pm_compact_result_from_json); {"error": {"code", "message"}} or an
 *      exit status other than 0 is the pass's error.  The helper retries
 *      failed tasks (bounded) and, when one finally fails, aborts every
 *      result it got before answering, so a failed execution leaves no
 *      prepared file; results the service could not parse are aborted
 *      here as far as they parse.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paimon/table.h"
#include "svc.h"

extern char **environ;

#define ANSWER_MAX (256 << 20)

static pm_error *request_text(const svc_config *c, pm_table *t, const pm_compact_plan *plan, char **out)
{
    *out = NULL;
    json_t *tasks = json_array();
    json_t *req = json_pack("{s:s,s:s}", "address", c->ray_address ? c->ray_address : "auto", "table",
                            pm_table_path(t));
    pm_error *e = tasks && req ? NULL : pm_error_new(PM_ENOMEM, "out of memory");
    for (size_t i = 0; !e && i < pm_compact_plan_task_count(plan); i++) {
        char *text = NULL;
        e = pm_compact_task_to_json(&text, pm_compact_plan_task(plan, i));
        json_error_t je;
        json_t *doc = e ? NULL : json_loads(text, 0, &je);
        pm_free(text);
        if (!e && (!doc || json_array_append_new(tasks, doc)))
            e = pm_error_new(PM_EINTERNAL, "task %zu: its JSON does not parse back", i);
    }
    if (!e && json_object_set(req, "tasks", tasks))
        e = pm_error_new(PM_ENOMEM, "out of memory");
    if (!e && !(*out = json_dumps(req, JSON_COMPACT)))
        e = pm_error_new(PM_ENOMEM, "out of memory");
    json_decref(tasks);
    json_decref(req);
    return e;
}

/* Spawn the helper with its standard input and output on pipes. */
static pm_error *spawn_helper(const svc_config *c, pid_t *pid, int *to_child, int *from_child)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    bool ok = !pipe(in) && !pipe(out);
    for (int i = 0; ok && i < 2; i++) /* no other child inherits them */
        ok = fcntl(in[i], F_SETFD, FD_CLOEXEC) == 0 && fcntl(out[i], F_SETFD, FD_CLOEXEC) == 0;
    if (!ok) {
        int err = errno;
        for (int i = 0; i < 2; i++) {
            if (in[i] >= 0)
                close(in[i]);
            if (out[i] >= 0)
                close(out[i]);
        }
        return pm_error_new(PM_EIO, "ray executor: pipe: %s", strerror(err));
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    sigset_t none, dflt;
    sigemptyset(&none);
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGPIPE);
    sigaddset(&dflt, SIGTERM);
    sigaddset(&dflt, SIGINT);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dflt);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    const char *python = c->ray_python ? c->ray_python : "python3";
    char *argv[] = {(char *)python, "-m", "paimon_c._service_exec", NULL};
    int rc = posix_spawnp(pid, python, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(in[0]);
    close(out[1]);
    if (rc) {
        close(in[1]);
        close(out[0]);
        return pm_error_new(PM_EIO, "ray executor: cannot start %s: %s", python, strerror(rc));
    }
    *to_child = in[1];
    *from_child = out[0];
    return NULL;
}

/* Write the request, read the answer, reap the helper. */
static pm_error *talk(pid_t pid, int to_child, int from_child, const char *req, char **answer, size_t *len,
                      int *status)
{
    pm_error *e = NULL;
    size_t n = strlen(req), off = 0;
    while (off < n) {
        ssize_t w = write(to_child, req + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            /* EPIPE: the helper ended early; its status and answer say why */
            break;
        }
        off += (size_t)w;
    }
    close(to_child);
    size_t cap = 0;
    *answer = NULL;
    *len = 0;
    for (;;) {
        if (*len + 65536 > cap) {
            size_t nc = cap ? cap * 2 : 1 << 16;
            char *nb = nc <= ANSWER_MAX ? realloc(*answer, nc + 1) : NULL;
            if (!nb) {
                e = pm_error_new(PM_ENOMEM, "ray executor: answer over %d MiB", ANSWER_MAX >> 20);
                break;
            }
            *answer = nb;
            cap = nc;
        }
        ssize_t r = read(from_child, *answer + *len, cap - *len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        *len += (size_t)r;
    }
    if (*answer)
        (*answer)[*len] = 0;
    close(from_child);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    return e;
}

static pm_error *answer_error(const json_t *err, int status)
{
    const json_t *m = json_object_get(err, "message"), *c = json_object_get(err, "code");
    int code = json_is_integer(c) ? (int)json_integer_value(c) : PM_EIO;
    if (code <= PM_OK || code > PM_EINTERNAL)
        code = PM_EIO;
    return pm_error_new((pm_code)code, "ray executor (exit status %d): %s", status,
                        json_is_string(m) ? json_string_value(m) : "failed");
}

pm_error *svc_ray_execute(const svc_config *c, pm_table *t, const pm_compact_plan *plan, pm_compact_result ***out,
                          size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t nt = pm_compact_plan_task_count(plan);
    if (!nt)
        return NULL;
    char *req = NULL;
    PM_TRY(request_text(c, t, plan, &req));
    pid_t pid;
    int to_child, from_child;
    pm_error *e = spawn_helper(c, &pid, &to_child, &from_child);
    char *answer = NULL;
    size_t len = 0;
    int status = 0;
    if (!e)
        e = talk(pid, to_child, from_child, req, &answer, &len, &status);
    free(req);
    json_t *doc = NULL;
    if (!e) {
        json_error_t je;
        doc = len ? json_loadb(answer, len, 0, &je) : NULL;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        const json_t *err = doc ? json_object_get(doc, "error") : NULL;
        const json_t *rs = doc ? json_object_get(doc, "results") : NULL;
        if (err)
            e = answer_error(err, code);
        else if (code != 0 || !json_is_array(rs))
            e = pm_error_new(PM_EIO, "ray executor: exit status %d without an answer (its messages are in the "
                             "service's standard error)", code);
        else if (json_array_size(rs) != nt)
            e = pm_error_new(PM_EIO, "ray executor: %zu results for %zu tasks", json_array_size(rs), nt);
        pm_compact_result **res = e ? NULL : calloc(nt, sizeof *res);
        if (!e && !res)
            e = pm_error_new(PM_ENOMEM, "out of memory");
        size_t got = 0;
        for (size_t i = 0; !e && i < nt; i++) {
            char *text = json_dumps(json_array_get(rs, i), JSON_COMPACT);
            e = text ? pm_compact_result_from_json(&res[got], text, strlen(text))
                     : pm_error_new(PM_ENOMEM, "out of memory");
            free(text);
            if (e)
                e = pm_error_wrap(e, 0, "ray executor: result %zu", i);
            else
                got++;
        }
        if (e && got) {
            pm_error_free(pm_compact_abort(t, res, got));
            for (size_t i = 0; i < got; i++)
                pm_compact_result_free(res[i]);
        }
        if (e) {
            free(res);
        } else {
            *out = res;
            *n = got;
        }
    }
    json_decref(doc);
    free(answer);
    return e;
}
