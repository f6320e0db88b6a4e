/*
 * service/config.c — the service's options.
 *
 * Keys (service-wide from the config file and --option, in that order;
 * per table from its table options, which win, except concurrency,
 * history, watch-interval and the executor's, which are the process's):
 *   compaction-service.interval           duration  5 s   (0 = no periodic walk)
 *   compaction-service.trigger.count      integer   4
 *   compaction-service.trigger.bytes      size      1 gb
 *   compaction-service.trigger.age        duration  7 d
 *   compaction-service.prefix-max         integer   32
 *   compaction-service.pass-target-bytes  size      2 gb
 *   compaction-service.concurrency        integer   2
 *   compaction-service.orphan-older-than  duration  1 d
 *   compaction-service.expire-interval    duration  1 min (0 = never)
 *   compaction-service.orphan-interval    duration  1 h   (0 = never)
 *   compaction-service.backpressure       boolean   true
 *   compaction-service.history            integer   1000 finished jobs kept
 *   compaction-service.watch-interval     duration  200 ms
 *   compaction-service.executor           local | ray  local (ray: each pass's tasks run on
 *                                         a Ray cluster through paimon_c, ray_exec.c)
 *   compaction-service.ray.address        text      auto (ray.init's address)
 *   compaction-service.ray.python         text      python3 (the interpreter with paimon_c and ray)
 *   include / exclude                     comma-separated "db.table" globs
 * Durations and sizes parse as Paimon's (paimon/options.h).  An unknown
 * key or a bad value is PM_EINVALID naming it; nothing is ignored.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "paimon/options.h"
#include "paimon/table.h"
#include "svc.h"

#define P "compaction-service."

void svc_config_defaults(svc_config *c)
{
    memset(c, 0, sizeof *c);
    c->th.interval_ms = 5000;
    c->th.trigger_count = 4;
    c->th.trigger_bytes = 1LL << 30;
    c->th.trigger_age_ms = 7LL * 24 * 3600 * 1000;
    c->th.prefix_max = 32;
    c->th.pass_target_bytes = 2LL << 30;
    c->th.orphan_older_than_ms = 24LL * 3600 * 1000;
    c->th.expire_interval_ms = 60 * 1000;
    c->th.orphan_interval_ms = 3600 * 1000;
    c->th.backpressure = true;
    c->concurrency = 2;
    c->history = 1000;
    c->watch_ms = 200;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

void svc_config_clear(svc_config *c)
{
    free_list(c->include, c->ninclude);
    free_list(c->exclude, c->nexclude);
    c->include = c->exclude = NULL;
    c->ninclude = c->nexclude = 0;
    free(c->ray_address);
    free(c->ray_python);
    c->ray_address = c->ray_python = NULL;
}

static pm_error *parse_count(const char *key, const char *v, int64_t lo, int64_t *out)
{
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    while (end && isspace((unsigned char)*end))
        end++;
    if (!*v || !end || *end || x < lo)
        return pm_error_new(PM_EINVALID, "option %s=%s: expected an integer >= %lld", key, v, (long long)lo);
    *out = x;
    return NULL;
}

static pm_error *parse_duration(const char *key, const char *v, int64_t *out)
{
    pm_error *e = pm_option_parse_duration(out, v);
    if (!e && *out < 0)
        e = pm_error_new(PM_EINVALID, "negative");
    return e ? pm_error_wrap(e, PM_EINVALID, "option %s=%s", key, v) : NULL;
}

static pm_error *parse_size(const char *key, const char *v, int64_t *out)
{
    pm_error *e = pm_option_parse_memory_size(out, v);
    if (!e && *out <= 0)
        e = pm_error_new(PM_EINVALID, "must be positive");
    return e ? pm_error_wrap(e, PM_EINVALID, "option %s=%s", key, v) : NULL;
}

static pm_error *parse_bool(const char *key, const char *v, bool *out)
{
    if (!strcasecmp(v, "true"))
        *out = true;
    else if (!strcasecmp(v, "false"))
        *out = false;
    else
        return pm_error_new(PM_EINVALID, "option %s=%s: expected true or false", key, v);
    return NULL;
}

/* A threshold key into th; *known = false when key is none of them. */
static pm_error *set_threshold(svc_thresholds *th, const char *key, const char *v, bool *known)
{
    *known = true;
    if (!strcmp(key, P "interval"))
        return parse_duration(key, v, &th->interval_ms);
    if (!strcmp(key, P "trigger.count"))
        return parse_count(key, v, 1, &th->trigger_count);
    if (!strcmp(key, P "trigger.bytes"))
        return parse_size(key, v, &th->trigger_bytes);
    if (!strcmp(key, P "trigger.age"))
        return parse_duration(key, v, &th->trigger_age_ms);
    if (!strcmp(key, P "prefix-max"))
        return parse_count(key, v, 1, &th->prefix_max);
    if (!strcmp(key, P "pass-target-bytes"))
        return parse_size(key, v, &th->pass_target_bytes);
    if (!strcmp(key, P "orphan-older-than"))
        return parse_duration(key, v, &th->orphan_older_than_ms);
    if (!strcmp(key, P "expire-interval"))
        return parse_duration(key, v, &th->expire_interval_ms);
    if (!strcmp(key, P "orphan-interval"))
        return parse_duration(key, v, &th->orphan_interval_ms);
    if (!strcmp(key, P "backpressure"))
        return parse_bool(key, v, &th->backpressure);
    *known = false;
    return NULL;
}

static pm_error *add_globs(char ***list, size_t *n, const char *v)
{
    const char *p = v;
    while (*p) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        while (len && isspace((unsigned char)*p)) {
            p++;
            len--;
        }
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        if (len) {
            char **nl = realloc(*list, (*n + 1) * sizeof **list);
            if (!nl)
                return pm_error_new(PM_ENOMEM, "out of memory");
            *list = nl;
            (*list)[*n] = strndup(p, len);
            if (!(*list)[*n])
                return pm_error_new(PM_ENOMEM, "out of memory");
            (*n)++;
        }
        if (!q)
            break;
        p = q + 1;
    }
    return NULL;
}

pm_error *svc_config_set(svc_config *c, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return pm_error_new(PM_EINVALID, "option '%s' is not key=value", kv);
    char key[128];
    size_t kl = (size_t)(eq - kv);
    while (kl && isspace((unsigned char)kv[kl - 1]))
        kl--;
    if (kl >= sizeof key)
        return pm_error_new(PM_EINVALID, "option key too long: '%s'", kv);
    memcpy(key, kv, kl);
    key[kl] = 0;
    const char *v = eq + 1;
    while (isspace((unsigned char)*v))
        v++;
    bool known;
    PM_TRY(set_threshold(&c->th, key, v, &known));
    if (known)
        return NULL;
    if (!strcmp(key, P "concurrency"))
        return parse_count(key, v, 1, &c->concurrency);
    if (!strcmp(key, P "history"))
        return parse_count(key, v, 1, &c->history);
    if (!strcmp(key, P "watch-interval")) {
        PM_TRY(parse_duration(key, v, &c->watch_ms));
        if (c->watch_ms < 10)
            return pm_error_new(PM_EINVALID, "option %s=%s: at least 10 ms", key, v);
        return NULL;
    }
    if (!strcmp(key, P "executor")) {
        if (strcmp(v, "local") && strcmp(v, "ray"))
            return pm_error_new(PM_EINVALID, "option %s=%s: expected local or ray", key, v);
        c->ray = !strcmp(v, "ray");
        return NULL;
    }
    if (!strcmp(key, P "ray.address") || !strcmp(key, P "ray.python")) {
        if (!*v)
            return pm_error_new(PM_EINVALID, "option %s is empty", key);
        char **slot = !strcmp(key, P "ray.address") ? &c->ray_address : &c->ray_python;
        char *copy = strdup(v);
        if (!copy)
            return pm_error_new(PM_ENOMEM, "out of memory");
        free(*slot);
        *slot = copy;
        return NULL;
    }
    if (!strcmp(key, "include"))
        return add_globs(&c->include, &c->ninclude, v);
    if (!strcmp(key, "exclude"))
        return add_globs(&c->exclude, &c->nexclude, v);
    return pm_error_new(PM_EINVALID, "unknown service option '%s'", key);
}

pm_error *svc_config_load_file(svc_config *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return pm_error_new(PM_ENOTFOUND, "config file %s: cannot open", path);
    char line[4096];
    int no = 0;
    pm_error *e = NULL;
    while (!e && fgets(line, sizeof line, f)) {
        no++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            e = pm_error_new(PM_EINVALID, "config file %s:%d: line too long", path, no);
            break;
        }
        while (n && isspace((unsigned char)line[n - 1]))
            line[--n] = 0;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        e = svc_config_set(c, p);
        if (e)
            e = pm_error_wrap(e, 0, "config file %s:%d", path, no);
    }
    fclose(f);
    return e;
}

pm_error *svc_table_thresholds(const svc_config *c, pm_table *t, svc_thresholds *out)
{
    *out = c->th;
    static const char *const keys[] = {P "interval",       P "trigger.count",     P "trigger.bytes",
                                       P "trigger.age",    P "prefix-max",        P "pass-target-bytes",
                                       P "orphan-older-than", P "expire-interval", P "orphan-interval",
                                       P "backpressure"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *v = pm_table_option(t, keys[i]);
        if (!v)
            continue;
        bool known;
        PM_TRY(pm_error_wrap(set_threshold(out, keys[i], v, &known), 0, "table option"));
    }
    return NULL;
}

bool svc_config_owns(const svc_config *c, const char *name)
{
    bool in = c->ninclude == 0;
    for (size_t i = 0; i < c->ninclude && !in; i++)
        in = fnmatch(c->include[i], name, 0) == 0;
    for (size_t i = 0; i < c->nexclude && in; i++)
        in = fnmatch(c->exclude[i], name, 0) != 0;
    return in;
}

static bool valid_part(const char *p, size_t n)
{
    if (!n || p[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch < 0x20 || ch == 0x7f || ch == '/' || ch == '\\')
            return false;
    }
    return true;
}

bool svc_valid_table_name(const char *name)
{
    if (!name)
        return false;
    const char *dot = strchr(name, '.');
    if (!dot)
        return false;
    size_t n = strlen(name);
    if (n > 512)
        return false;
    return valid_part(name, (size_t)(dot - name)) && valid_part(dot + 1, n - (size_t)(dot - name) - 1);
}
