/*
 * compact/pk/pk_json.c — JSON of the primary-key part of a compaction task or
 * result (the "pk" member; compact_json.c frames the rest and reads the
 * part only when it is not null).
 *
 *   pk {output_level, max_level, drop_delete,
 *       policy {pick ("auto"|"explicit"|"full"), num_levels, whole_bucket,
 *               first_row, dv, changelog, force_rewrite_all, min_file_size, now_ms, hour,
               max_input_files, max_input_bytes (0 = no bound),
 *               strategy {max_size_amp, size_ratio, run_trigger,
 *                         interval_ms|null, total_threshold|null,
 *                         incr_threshold|null, offpeak_start, offpeak_end,
 *                         offpeak_ratio, force_up_level0}}}
 * Reading is strict like the rest of the document (meta/json.h): every
 * key present, no unknown key, JSON types and ranges checked, errors name
 * the path ("task.pk.policy.num_levels: ...").
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_compact.h"
#include "meta/json.h"

/* ------------------------------------------------------------------ */
/* writing                                                             */

static int put(json_t *o, const char *k, json_t *v) { return v ? json_object_set_new(o, k, v) : -1; }

static json_t *opt_int(bool has, int64_t v) { return has ? json_integer((json_int_t)v) : json_null(); }

static const char *pick_name(pm_pick_mode m)
{
    return m == PM_PICK_FULL ? "full" : m == PM_PICK_EXPLICIT ? "explicit" : "auto";
}

json_t *pm_compact_pk_to_json(const pm_compact_part *part)
{
    const pm_compact_pk *p = pm_pk_part(part);
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
    bad |= put(pol, "max_input_files", json_integer((json_int_t)y->limits.max_files));
    bad |= put(pol, "max_input_bytes", json_integer((json_int_t)y->limits.max_bytes));
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

static const char *const PK_KEYS[] = {"output_level", "max_level", "drop_delete", "policy", NULL};
static const char *const POLICY_KEYS[] = {"pick", "num_levels", "whole_bucket", "first_row", "dv", "changelog",
                                          "force_rewrite_all", "min_file_size", "now_ms", "hour", "max_input_files",
                                          "max_input_bytes", "strategy", NULL};
static const char *const STRATEGY_KEYS[] = {"max_size_amp", "size_ratio", "run_trigger", "interval_ms",
                                            "total_threshold", "incr_threshold", "offpeak_start", "offpeak_end",
                                            "offpeak_ratio", "force_up_level0", NULL};
/* indexed by pm_pick_mode */
static const char *const PICKS[] = {[PM_PICK_AUTO] = "auto", [PM_PICK_EXPLICIT] = "explicit", [PM_PICK_FULL] = "full"};

static pm_error *read_strategy(const pm_jnode *st, pm_compact_strategy *s)
{
    pm_universal_opts *u = &s->u;
    PM_TRY(pm_json_keys(st, STRATEGY_KEYS));
    PM_TRY(pm_json_i32(st, "max_size_amp", INT32_MIN, INT32_MAX, &u->max_size_amp));
    PM_TRY(pm_json_i32(st, "size_ratio", INT32_MIN, INT32_MAX, &u->size_ratio));
    PM_TRY(pm_json_i32(st, "run_trigger", 1, INT32_MAX, &u->run_trigger));
    PM_TRY(pm_json_opt_i64(st, "interval_ms", 0, INT64_MAX, &u->has_interval, &u->interval_ms));
    PM_TRY(pm_json_opt_i64(st, "total_threshold", 0, INT64_MAX, &u->has_total_threshold, &u->total_threshold));
    PM_TRY(pm_json_opt_i64(st, "incr_threshold", 0, INT64_MAX, &u->has_incr_threshold, &u->incr_threshold));
    PM_TRY(pm_json_i32(st, "offpeak_start", -1, 23, &u->offpeak_start));
    PM_TRY(pm_json_i32(st, "offpeak_end", -1, 23, &u->offpeak_end));
    PM_TRY(pm_json_i32(st, "offpeak_ratio", INT32_MIN, INT32_MAX, &u->offpeak_ratio));
    return pm_json_bool(st, "force_up_level0", &s->force_up_level0);
}

static pm_error *read_policy(const pm_jnode *pol, pm_pk_policy *y)
{
    PM_TRY(pm_json_keys(pol, POLICY_KEYS));
    int pick = 0;
    PM_TRY(pm_json_enum(pol, "pick", PICKS, sizeof PICKS / sizeof *PICKS, 0, &pick));
    y->pick = (pm_pick_mode)pick;
    PM_TRY(pm_json_i32(pol, "num_levels", 2, 1 << 16, &y->num_levels));
    PM_TRY(pm_json_bool(pol, "whole_bucket", &y->whole_bucket));
    PM_TRY(pm_json_bool(pol, "first_row", &y->first_row));
    PM_TRY(pm_json_bool(pol, "dv", &y->dv));
    PM_TRY(pm_json_bool(pol, "changelog", &y->changelog));
    PM_TRY(pm_json_bool(pol, "force_rewrite_all", &y->force_rewrite_all));
    PM_TRY(pm_json_i64(pol, "min_file_size", 0, INT64_MAX, &y->min_file_size));
    PM_TRY(pm_json_i64(pol, "now_ms", INT64_MIN, INT64_MAX, &y->now_ms));
    PM_TRY(pm_json_i32(pol, "hour", 0, 23, &y->hour));
    PM_TRY(pm_json_i64(pol, "max_input_files", 0, INT64_MAX, &y->limits.max_files));
    PM_TRY(pm_json_i64(pol, "max_input_bytes", 0, INT64_MAX, &y->limits.max_bytes));
    pm_jnode st;
    pm_json_get(&st, pol, "strategy");
    return read_strategy(&st, &y->strategy);
}

static pm_error *read_pk(const pm_jnode *o, pm_compact_pk *p)
{
    PM_TRY(pm_json_keys(o, PK_KEYS));
    PM_TRY(pm_json_i32(o, "output_level", 0, 1 << 16, &p->output_level));
    PM_TRY(pm_json_i32(o, "max_level", 1, 1 << 16, &p->max_level));
    if (p->output_level > p->max_level) {
        pm_jnode c;
        pm_json_get(&c, o, "output_level");
        return pm_json_error(&c, "%d is above max_level %d", (int)p->output_level, (int)p->max_level);
    }
    PM_TRY(pm_json_bool(o, "drop_delete", &p->drop_delete));
    pm_jnode pol;
    pm_json_get(&pol, o, "policy");
    return read_policy(&pol, &p->policy);
}

pm_error *pm_compact_pk_from_json(const pm_jnode *n, pm_compact_part **out)
{
    *out = NULL;
    pm_compact_pk *p = NULL;
    PM_TRY(pm_compact_pk_new(&p));
    pm_error *e = read_pk(n, p);
    if (e) {
        free(p);
        return e;
    }
    *out = &p->base;
    return NULL;
}
