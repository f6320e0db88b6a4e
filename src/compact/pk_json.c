/*
 * compact/pk_json.c — JSON of the primary-key part of a compaction task or
 * result (the "pk" member; compact_json.c frames the rest).
 *
 *   pk {output_level, max_level, drop_delete,
 *       policy {pick ("auto"|"explicit"|"full"), num_levels, whole_bucket,
 *               first_row, dv, changelog, force_rewrite_all, min_file_size, now_ms, hour,
 *               strategy {max_size_amp, size_ratio, run_trigger,
 *                         interval_ms|null, total_threshold|null,
 *                         incr_threshold|null, offpeak_start, offpeak_end,
 *                         offpeak_ratio, force_up_level0}}}
 * Reading is strict like the rest of the document: every key present, no
 * unknown key, JSON types and ranges checked, errors name the path
 * ("task.pk.policy.num_levels: ...").  A JSON null means "no pk part".
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk_compact.h"

/* ------------------------------------------------------------------ */
/* writing                                                             */

static int put(json_t *o, const char *k, json_t *v) { return v ? json_object_set_new(o, k, v) : -1; }

static json_t *opt_int(bool has, int64_t v) { return has ? json_integer((json_int_t)v) : json_null(); }

static const char *pick_name(pm_pick_mode m)
{
    return m == PM_PICK_FULL ? "full" : m == PM_PICK_EXPLICIT ? "explicit" : "auto";
}

json_t *pm_compact_pk_to_json(const pm_compact_pk *p)
{
    json_t *o = json_object(), *pol = json_object(), *st = json_object();
    if (!o || !pol || !st)
        goto fail;
    const pm_pk_policy *y = &p->policy;
    const pm_universal_opts *u = &y->strategy.u;
    int bad = 0;
    bad |= put(st, "max_size_amp", json_integer(u->max_size_amp));
    bad |= put(st, "size_ratio", json_integer(u->size_ratio));
    bad |= put(st, "run_trigger", json_integer(u->run_trigger));
    bad |= put(st, "interval_ms", opt_int(u->has_interval, u->interval_ms));
    bad |= put(st, "total_threshold", opt_int(u->has_total_threshold, u->total_threshold));
    bad |= put(st, "incr_threshold", opt_int(u->has_incr_threshold, u->incr_threshold));
    bad |= put(st, "offpeak_start", json_integer(u->offpeak_start));
    bad |= put(st, "offpeak_end", json_integer(u->offpeak_end));
    bad |= put(st, "offpeak_ratio", json_integer(u->offpeak_ratio));
    bad |= put(st, "force_up_level0", json_boolean(y->strategy.force_up_level0));
    bad |= put(pol, "pick", json_string(pick_name(y->pick)));
    bad |= put(pol, "num_levels", json_integer(y->num_levels));
    bad |= put(pol, "whole_bucket", json_boolean(y->whole_bucket));
    bad |= put(pol, "first_row", json_boolean(y->first_row));
    bad |= put(pol, "dv", json_boolean(y->dv));
    bad |= put(pol, "changelog", json_boolean(y->changelog));
    bad |= put(pol, "force_rewrite_all", json_boolean(y->force_rewrite_all));
    bad |= put(pol, "min_file_size", json_integer((json_int_t)y->min_file_size));
    bad |= put(pol, "now_ms", json_integer((json_int_t)y->now_ms));
    bad |= put(pol, "hour", json_integer(y->hour));
    bad |= json_object_set_new(pol, "strategy", st);
    st = NULL;
    bad |= put(o, "output_level", json_integer(p->output_level));
    bad |= put(o, "max_level", json_integer(p->max_level));
    bad |= put(o, "drop_delete", json_boolean(p->drop_delete));
    bad |= json_object_set_new(o, "policy", pol);
    pol = NULL;
    if (bad)
        goto fail;
    return o;
fail:
    json_decref(st);
    json_decref(pol);
    json_decref(o);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* reading                                                             */

__attribute__((format(printf, 3, 4))) static pm_error *bad(const char *path, const char *key, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pm_error_new(PM_EINVALID, "%s.%s: %s", path, key, msg);
}

static pm_error *keys(const json_t *o, const char *path, const char *const *allowed)
{
    if (!json_is_object(o))
        return pm_error_new(PM_EINVALID, "%s: expected an object", path);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        bool ok = false;
        for (size_t i = 0; allowed[i] && !ok; i++)
            ok = !strcmp(allowed[i], k);
        if (!ok)
            return pm_error_new(PM_EINVALID, "%s: unknown field '%s'", path, k);
    }
    for (size_t i = 0; allowed[i]; i++)
        if (!json_object_get(o, allowed[i]))
            return bad(path, allowed[i], "missing");
    return NULL;
}

static pm_error *get_i64(const json_t *o, const char *path, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return bad(path, key, "expected an integer");
    int64_t x = (int64_t)json_integer_value(v);
    if (x < lo || x > hi)
        return bad(path, key, "%lld is out of range [%lld, %lld]", (long long)x, (long long)lo, (long long)hi);
    *out = x;
    return NULL;
}

static pm_error *get_i32(const json_t *o, const char *path, const char *key, int32_t lo, int32_t hi, int32_t *out)
{
    int64_t x = 0;
    PM_TRY(get_i64(o, path, key, lo, hi, &x));
    *out = (int32_t)x;
    return NULL;
}

static pm_error *get_opt(const json_t *o, const char *path, const char *key, bool *has, int64_t *out)
{
    const json_t *v = json_object_get(o, key);
    *has = false;
    *out = 0;
    if (json_is_null(v))
        return NULL;
    PM_TRY(get_i64(o, path, key, 0, INT64_MAX, out));
    *has = true;
    return NULL;
}

static pm_error *get_bool(const json_t *o, const char *path, const char *key, bool *out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_boolean(v))
        return bad(path, key, "expected true or false");
    *out = json_is_true(v);
    return NULL;
}

static const char *const PK_KEYS[] = {"output_level", "max_level", "drop_delete", "policy", NULL};
static const char *const POLICY_KEYS[] = {"pick", "num_levels", "whole_bucket", "first_row", "dv", "changelog", "force_rewrite_all",
                                          "min_file_size", "now_ms", "hour", "strategy", NULL};
static const char *const STRATEGY_KEYS[] = {"max_size_amp", "size_ratio", "run_trigger", "interval_ms",
                                            "total_threshold", "incr_threshold", "offpeak_start", "offpeak_end",
                                            "offpeak_ratio", "force_up_level0", NULL};

static pm_error *read_pk(const json_t *o, const char *base, pm_compact_pk *p)
{
    char path[224], ppath[240], spath[256];
    snprintf(path, sizeof path, "%.200s.pk", base);
    snprintf(ppath, sizeof ppath, "%s.policy", path);
    snprintf(spath, sizeof spath, "%s.strategy", ppath);
    PM_TRY(keys(o, path, PK_KEYS));
    PM_TRY(get_i32(o, path, "output_level", 0, 1 << 16, &p->output_level));
    PM_TRY(get_i32(o, path, "max_level", 1, 1 << 16, &p->max_level));
    if (p->output_level > p->max_level)
        return bad(path, "output_level", "%d is above max_level %d", (int)p->output_level, (int)p->max_level);
    PM_TRY(get_bool(o, path, "drop_delete", &p->drop_delete));
    const json_t *pol = json_object_get(o, "policy");
    PM_TRY(keys(pol, ppath, POLICY_KEYS));
    pm_pk_policy *y = &p->policy;
    const json_t *pick = json_object_get(pol, "pick");
    const char *ps = json_is_string(pick) ? json_string_value(pick) : NULL;
    if (!ps)
        return bad(ppath, "pick", "expected a string");
    if (!strcmp(ps, "auto"))
        y->pick = PM_PICK_AUTO;
    else if (!strcmp(ps, "explicit"))
        y->pick = PM_PICK_EXPLICIT;
    else if (!strcmp(ps, "full"))
        y->pick = PM_PICK_FULL;
    else
        return bad(ppath, "pick", "unknown pick \"%s\" (auto, explicit, full)", ps);
    PM_TRY(get_i32(pol, ppath, "num_levels", 2, 1 << 16, &y->num_levels));
    PM_TRY(get_bool(pol, ppath, "whole_bucket", &y->whole_bucket));
    PM_TRY(get_bool(pol, ppath, "first_row", &y->first_row));
    PM_TRY(get_bool(pol, ppath, "dv", &y->dv));
    PM_TRY(get_bool(pol, ppath, "changelog", &y->changelog));
    PM_TRY(get_bool(pol, ppath, "force_rewrite_all", &y->force_rewrite_all));
    PM_TRY(get_i64(pol, ppath, "min_file_size", 0, INT64_MAX, &y->min_file_size));
    PM_TRY(get_i64(pol, ppath, "now_ms", INT64_MIN, INT64_MAX, &y->now_ms));
    PM_TRY(get_i32(pol, ppath, "hour", 0, 23, &y->hour));
    const json_t *st = json_object_get(pol, "strategy");
    PM_TRY(keys(st, spath, STRATEGY_KEYS));
    pm_universal_opts *u = &y->strategy.u;
    PM_TRY(get_i32(st, spath, "max_size_amp", INT32_MIN, INT32_MAX, &u->max_size_amp));
    PM_TRY(get_i32(st, spath, "size_ratio", INT32_MIN, INT32_MAX, &u->size_ratio));
    PM_TRY(get_i32(st, spath, "run_trigger", 1, INT32_MAX, &u->run_trigger));
    PM_TRY(get_opt(st, spath, "interval_ms", &u->has_interval, &u->interval_ms));
    PM_TRY(get_opt(st, spath, "total_threshold", &u->has_total_threshold, &u->total_threshold));
    PM_TRY(get_opt(st, spath, "incr_threshold", &u->has_incr_threshold, &u->incr_threshold));
    PM_TRY(get_i32(st, spath, "offpeak_start", -1, 23, &u->offpeak_start));
    PM_TRY(get_i32(st, spath, "offpeak_end", -1, 23, &u->offpeak_end));
    PM_TRY(get_i32(st, spath, "offpeak_ratio", INT32_MIN, INT32_MAX, &u->offpeak_ratio));
    PM_TRY(get_bool(st, spath, "force_up_level0", &y->strategy.force_up_level0));
    if (p->output_level >= (1 << 16) || p->output_level < 0)
        return bad(path, "output_level", "out of range");
    return NULL;
}

pm_error *pm_compact_pk_from_json(const json_t *o, const char *path, pm_compact_pk **out)
{
    *out = NULL;
    if (!o)
        return pm_error_new(PM_EINVALID, "%s.pk: missing", path);
    if (json_is_null(o))
        return NULL;
    pm_compact_pk *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pm_error *e = read_pk(o, path, p);
    if (e) {
        pm_compact_pk_free(p);
        return e;
    }
    *out = p;
    return NULL;
}
