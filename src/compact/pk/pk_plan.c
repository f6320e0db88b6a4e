/*
 * compact/pk/pk_plan.c — which files of a primary-key bucket to compact and to
 * which level (rules in pk_compact.h), and the planner that turns a
 * bucket's selection into a task (inputs in run order, output settings of
 * the output level, every DV index file of the bucket, the pk part).
 *
 * Policy from options:
 *   strategy      lsm/universal.h pm_compact_strategy_from_options
 *                 (ForceUpLevel0 when lookup is needed or
 *                 compaction.force-up-level-0; lookup-compact=gentle:
 *                 with a long-lived caller's triggers the automatic pick
 *                 forces level 0 up every lookup-compact.max-interval-th
 *                 round that selected nothing, the task recording whether
 *                 it did; without them PM_EUNSUPPORTED for automatic
 *                 rounds)
 *   whole_bucket  partial-update and aggregation without
 *                 changelog-producer=lookup or force-lookup (those merge the
 *                 key's looked-up history into every output, so they select
 *                 incrementally) whose merge depends on
 *                 record order (the seed's rule).  They compact
 *                 incrementally only when every value field merges
 *                 independently of order: function min, max, bool_and or
 *                 bool_or (integer sum is excluded: its overflow is
 *                 checked, so the order decides whether it fails), no
 *                 sequence.field, and for aggregation
 *                 aggregation.remove-record-on-delete=false, for
 *                 partial-update ignore-delete=true and every value field
 *                 protected by a sequence group (its ordering fields are
 *                 exempt).  Otherwise every file of the bucket takes part.
 *   first_row     merge-engine=first-row
 * Selection (pm_pk_select): Levels → lsm/lsm_compact.h (pick, manager
 * filter, unit files, drop_delete) → file indexes (by name), whole-bucket
 * expansion, lookup files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/util.h"
#include "compact/pk/pk_compact.h"
#include "lsm/levels.h"
#include "lsm/lsm_compact.h"
#include "lsm/merge_engine.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "table/partition.h"

void pm_pk_selection_clear(pm_pk_selection *s)
{
    free(s->files);
    free(s->lookup);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------ */
/* policy                                                              */

static bool name_in(const pm_str_list *l, const char *name)
{
    for (size_t i = 0; i < l->count; i++)
        if (!strcmp(l->items[i], name))
            return true;
    return false;
}

/* The aggregate function of a value field (NULL = engine default). */
static const char *field_function(const pm_options *o, const char *field)
{
    char key[512];
    snprintf(key, sizeof key, "fields.%s.aggregate-function", field);
    const char *f = pm_options_get(o, key);
    return f ? f : pm_options_get(o, "fields.default-aggregate-function");
}

static bool order_free_function(const char *fn)
{
    return fn && (!strcasecmp(fn, "min") || !strcasecmp(fn, "max") || !strcasecmp(fn, "bool_and") ||
                  !strcasecmp(fn, "bool_or"));
}

/* Append the comma-separated names of s[0..n) to l. */
static pm_error *split_names(const char *s, size_t n, pm_str_list *l)
{
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && s[j] != ',')
            j++;
        size_t a = i, z = j;
        while (a < z && (s[a] == ' ' || s[a] == '\t'))
            a++;
        while (z > a && (s[z - 1] == ' ' || s[z - 1] == '\t'))
            z--;
        if (z > a) {
            PM_TRY(pm_realloc_array(&l->items, l->count + 1, sizeof *l->items));
            PM_TRY(pm_strndup(&l->items[l->count], s + a, z - a));
            l->count++;
        }
        i = j + 1;
    }
    return NULL;
}

/* Sequence groups: ordering fields and protected fields of all groups. */
static pm_error *sequence_groups(const pm_options *o, pm_str_list *ordering, pm_str_list *protected_)
{
    static const char suffix[] = ".sequence-group";
    size_t sl = sizeof suffix - 1;
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i);
        size_t kl = strlen(k);
        if (strncmp(k, "fields.", 7) || kl <= 7 + sl || strcmp(k + kl - sl, suffix))
            continue;
        PM_TRY(split_names(k + 7, kl - 7 - sl, ordering));
        const char *v = pm_options_value_at(o, i);
        PM_TRY(split_names(v, strlen(v), protected_));
    }
    return NULL;
}

/* Can partial-update / aggregation compact a subset of the runs? */
static pm_error *order_free_engine(const pm_schema *s, const pm_options *o, int engine, bool *out)
{
    *out = false;
    pm_str_list seq = {0};
    PM_TRY(pm_options_list(o, PM_OPT_SEQUENCE_FIELD, &seq));
    bool has_seq = seq.count > 0;
    pm_str_list_free(&seq);
    if (has_seq)
        return NULL;
    const pm_type *rt = s->row_type;
    if (engine == PM_MERGE_AGGREGATION) {
        bool remove = false;
        PM_TRY(pm_options_bool(o, PM_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE, &remove));
        if (remove)
            return NULL;
        for (size_t i = 0; i < rt->nfields; i++) {
            const char *f = rt->fields[i].name;
            if (name_in(&s->primary_keys, f))
                continue;
            if (!order_free_function(field_function(o, f)))
                return NULL;
        }
        *out = true;
        return NULL;
    }
    /* partial-update */
    bool ignore_delete = false;
    PM_TRY(pm_options_bool(o, PM_OPT_IGNORE_DELETE, &ignore_delete));
    if (!ignore_delete)
        return NULL;
    pm_str_list ordering = {0}, prot = {0};
    pm_error *e = sequence_groups(o, &ordering, &prot);
    bool ok = !e;
    for (size_t i = 0; ok && i < rt->nfields; i++) {
        const char *f = rt->fields[i].name;
        if (name_in(&s->primary_keys, f) || name_in(&ordering, f))
            continue;
        ok = name_in(&prot, f) && order_free_function(field_function(o, f));
    }
    for (size_t i = 0; ok && i < ordering.count; i++)
        ok = !name_in(&prot, ordering.items[i]);
    pm_str_list_free(&ordering);
    pm_str_list_free(&prot);
    PM_TRY(e);
    *out = ok;
    return NULL;
}

pm_error *pm_pk_policy_from_options(const pm_schema *s, const pm_options *o, pm_pick_mode pick, bool automatic,
                                    int64_t now_ms, int32_t hour, pm_pk_policy *out)
{
    memset(out, 0, sizeof *out);
    out->pick = pick;
    out->now_ms = now_ms;
    out->hour = hour;
    PM_TRY(pm_compact_strategy_from_options(o, automatic, &out->strategy));
    PM_TRY(pm_options_num_levels(o, &out->num_levels));
    if (out->num_levels < 2)
        return pm_error_new(PM_EINVALID, "num-levels must be at least 2, got %d", (int)out->num_levels);
    PM_TRY(pm_options_bool(o, PM_OPT_COMPACTION_FORCE_REWRITE_ALL_FILES, &out->force_rewrite_all));
    PM_TRY(pm_options_compaction_file_size(o, true, &out->min_file_size));
    int engine = 0;
    PM_TRY(pm_options_enum(o, PM_OPT_MERGE_ENGINE, &engine));
    out->first_row = engine == PM_MERGE_FIRST_ROW;
    PM_TRY(pm_options_bool(o, PM_OPT_DELETION_VECTORS_ENABLED, &out->dv));
    int producer = 0;
    PM_TRY(pm_options_enum(o, PM_OPT_CHANGELOG_PRODUCER, &producer));
    out->changelog = producer == PM_CHANGELOG_LOOKUP;
    bool force_lookup = false;
    PM_TRY(pm_options_bool(o, PM_OPT_FORCE_LOOKUP, &force_lookup));
    /* with lookup changelog or force-lookup every output carries the key's
     * whole state (LookupMergeFunction over the looked-up history), so any
     * subset of the runs may be compacted (the seed's rule; deletion
     * vectors alone keep the whole bucket) */
    bool lookup = out->changelog || force_lookup;
    if ((engine == PM_MERGE_PARTIAL_UPDATE || engine == PM_MERGE_AGGREGATION) && !lookup) {
        bool free_order = false;
        PM_TRY(order_free_engine(s, o, engine, &free_order));
        out->whole_bucket = !free_order;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* selection                                                           */

typedef struct name_idx {
    const char *name;
    size_t idx;
} name_idx;

static int name_idx_cmp(const void *a, const void *b)
{
    return strcmp(((const name_idx *)a)->name, ((const name_idx *)b)->name);
}

static size_t find_index(const name_idx *m, size_t n, const char *name)
{
    name_idx key = {name, 0};
    const name_idx *r = bsearch(&key, m, n, sizeof *m, name_idx_cmp);
    return r ? r->idx : SIZE_MAX;
}

typedef struct dv_flags {
    const bool *has_dv;
    const name_idx *map;
    size_t n;
} dv_flags;

static bool has_vector(void *ctx, const pm_lsm_file *f)
{
    const dv_flags *d = ctx;
    size_t i = find_index(d->map, d->n, f->meta.file_name);
    return i != SIZE_MAX && d->has_dv[i];
}

/* Shallow copies of the positive-level files and the level-0 prefix of a
 * bounded pass (nothing when no level-0 file is pending). */
static pm_error *view_of_prefix(const pm_pk_policy *p, const pm_data_file_meta *files, size_t n,
                                pm_data_file_meta **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    bool *l0 = NULL;
    size_t *idx = NULL, nidx = 0;
    PM_TRY(pm_calloc(&l0, n, sizeof *l0));
    for (size_t i = 0; i < n; i++)
        l0[i] = files[i].level == 0;
    pm_error *e = pm_compact_pending_prefix(files, n, l0, &p->limits, &idx, &nidx);
    if (!e && nidx)
        e = pm_calloc(out, n, sizeof **out);
    if (!e && nidx) {
        for (size_t i = 0; i < n; i++)
            if (files[i].level > 0)
                (*out)[(*nout)++] = files[i];
        for (size_t i = 0; i < nidx; i++)
            (*out)[(*nout)++] = files[idx[i]];
    }
    free(idx);
    free(l0);
    return e;
}

pm_error *pm_pk_pending(pm_compact_planner *pl, const pm_bucket_files *bf, bool *pending)
{
    (void)pl;
    for (size_t i = 0; i < bf->nfiles; i++)
        pending[i] = bf->files[i].level == 0;
    return NULL;
}

pm_error *pm_pk_select(const pm_pk_policy *p, const pm_type *key_type, const pm_data_file_meta *files, size_t n,
                       const bool *has_dv, pm_pk_selection *out)
{
    memset(out, 0, sizeof *out);
    if (!n)
        return NULL;
    pm_levels *lv = NULL;
    pm_error *e = NULL;
    if (pm_compact_limited(&p->limits) && !p->whole_bucket && p->pick != PM_PICK_FULL) {
        /* the bucket without its level-0 files newer than the prefix */
        pm_data_file_meta *view = NULL;
        size_t nview = 0;
        PM_TRY(view_of_prefix(p, files, n, &view, &nview));
        if (!nview)
            return NULL;
        e = pm_levels_new(&lv, key_type, p->num_levels, view, nview);
        free(view);
        PM_TRY(e);
    } else {
        PM_TRY(pm_levels_new(&lv, key_type, p->num_levels, files, n));
    }
    name_idx *map = NULL;
    bool *in_unit = NULL;
    pm_lsm_compaction c;
    memset(&c, 0, sizeof c);
    out->num_levels = pm_levels_num_levels(lv);
    pm_lsm_compact_options lo;
    memset(&lo, 0, sizeof lo);
    lo.mode = p->pick;
    lo.clock.now_ms = p->now_ms;
    lo.clock.hour = p->hour;
    pm_levels_last_full_compaction(lv, &lo.clock.has_last_full, &lo.clock.last_full_ms);
    lo.min_file_size = p->min_file_size;
    lo.force_rewrite_all = p->force_rewrite_all;
    lo.dv_enabled = p->dv;
    PM_TRY_GOTO(e, pm_calloc(&map, n, sizeof *map), done);
    for (size_t i = 0; i < n; i++) {
        map[i].name = files[i].file_name;
        map[i].idx = i;
    }
    qsort(map, n, sizeof *map, name_idx_cmp);
    dv_flags df = {has_dv, map, n};
    if (has_dv) {
        lo.must_rewrite = has_vector;
        lo.must_rewrite_ctx = &df;
    }
    PM_TRY_GOTO(e, pm_lsm_plan_compaction(lv, &p->strategy, &lo, &c), done);
    if (!c.unit.has)
        goto done;

    PM_TRY_GOTO(e, pm_calloc(&in_unit, n, sizeof *in_unit), done);
    PM_TRY_GOTO(e, pm_calloc(&out->files, n, sizeof *out->files), done);
    bool whole = p->whole_bucket && p->pick != PM_PICK_FULL;
    size_t nruns = 0;
    const pm_lsm_run *lr = pm_levels_runs(lv, &nruns);
    /* the unit's files in run order (whole bucket: every run's) */
    size_t total = whole ? 0 : c.nfiles;
    for (size_t r = 0; whole && r < nruns; r++)
        total += lr[r].nfiles;
    for (size_t k = 0, r = 0, f = 0; k < total; k++) {
        const pm_lsm_file *lf;
        if (whole) {
            while (f == lr[r].nfiles) {
                r++;
                f = 0;
            }
            lf = lr[r].files[f++];
        } else {
            lf = c.files[k];
        }
        size_t idx = find_index(map, n, lf->meta.file_name);
        if (idx == SIZE_MAX) {
            e = pm_error_new(PM_EINTERNAL, "file %s of the levels is not an input", lf->meta.file_name);
            goto done;
        }
        in_unit[idx] = true;
        out->files[out->nfiles++] = idx;
    }
    out->has = out->nfiles > 0;
    out->output_level = c.unit.output_level;
    out->drop_delete = c.drop_delete;
    if (whole) {
        int32_t hi = 0;
        for (size_t i = 0; i < n; i++)
            if (files[i].level > hi)
                hi = files[i].level;
        out->output_level = hi ? hi : 1;
        out->drop_delete = pm_lsm_drop_delete(out->output_level, pm_levels_nonempty_highest_level(lv), p->dv, false);
    }
    if ((p->first_row || p->dv || p->changelog) && out->has) {
        size_t nl = n - out->nfiles;
        if (nl) {
            PM_TRY_GOTO(e, pm_calloc(&out->lookup, nl, sizeof *out->lookup), done);
            for (size_t i = 0; i < n; i++)
                if (!in_unit[i])
                    out->lookup[out->nlookup++] = i;
        }
    }
done:
    pm_lsm_compaction_clear(&c);
    free(map);
    free(in_unit);
    pm_levels_free(lv);
    if (e)
        pm_pk_selection_clear(out);
    return e;
}

/* ------------------------------------------------------------------ */
/* planner                                                             */

struct pm_compact_planner {
    pm_table *t;
    const pm_schema *schema;
    const pm_options *opts;       /* table + dynamic options (the builder's) */
    pm_type *key_type;            /* ROW of the trimmed primary key */
    pm_pk_policy policy;
    bool skip;                    /* plan nothing (automatic round of a postpone table) */
    pm_compact_triggers *triggers; /* lookup-compact=gentle: the caller's round counters */
    int32_t gentle_interval;      /* > 0: force level 0 up every this many empty rounds */
};

void pm_pk_planner_free(pm_compact_planner *pl)
{
    if (!pl)
        return;
    pm_type_free(pl->key_type);
    free(pl);
}

static pm_error *planner_init(pm_compact_planner *pl, pm_compact_builder *b)
{
    pl->t = b->table;
    if (pm_pk_is_postpone(b->table) && b->automatic) {
        /* automatic rounds after postpone writes compact nothing (Java's
         * postpone writers do not compact) */
        pl->skip = true;
        return NULL;
    }
    pl->schema = pm_table_schema(b->table);
    pl->opts = b->opts;
    const pm_options *o = b->opts;
    PM_TRY(pm_pk_check_options(b->table, o));
    PM_TRY(pm_pk_check_dynamic_options(b->table, o));
    /* the merge engine's options are checked before anything is planned */
    pm_merge_fn *mf = NULL;
    pm_merge_fn_options mo = {PM_MERGE_REDUCE, true};
    const pm_schema *s = pl->schema;
    PM_TRY(pm_merge_fn_new(&mf, s->row_type, (const char *const *)s->primary_keys.items, s->primary_keys.count, o,
                           &mo));
    pm_merge_fn_free(mf);
    pm_pick_mode pick = b->full ? PM_PICK_FULL : b->automatic ? PM_PICK_AUTO : PM_PICK_EXPLICIT;
    int64_t now = pm_now_local_millis();
    int32_t hour = (int32_t)((now / 3600000) % 24);
    if (hour < 0)
        hour += 24;
    /* lookup-compact=gentle: counted by a long-lived caller's triggers, else
     * refused in automatic rounds */
    PM_TRY(pm_pk_policy_from_options(s, o, pick, b->automatic && !b->triggers, now, hour, &pl->policy));
    pl->policy.limits = b->limits;
    int lc = 0;
    PM_TRY(pm_options_enum(o, PM_OPT_LOOKUP_COMPACT, &lc));
    if (b->triggers && b->automatic && lc == PM_LOOKUP_COMPACT_GENTLE && pl->policy.strategy.force_up_level0) {
        bool force_l0 = false, has = false;
        int32_t interval = 0;
        PM_TRY(pm_options_bool(o, PM_OPT_COMPACTION_FORCE_UP_LEVEL_0, &force_l0));
        PM_TRY(pm_options_int(o, PM_OPT_LOOKUP_COMPACT_MAX_INTERVAL, &has, &interval));
        int32_t trigger = pl->policy.strategy.u.run_trigger;
        if (!has)
            interval = trigger > INT32_MAX / 2 ? INT32_MAX : trigger * 2;
        pl->gentle_interval = interval > trigger ? interval : trigger;
        pl->triggers = b->triggers;
        pl->policy.strategy.force_up_level0 = force_l0;
    }
    return pm_schema_trimmed_primary_key_type(s, &pl->key_type);
}

pm_error *pm_pk_planner_new(pm_compact_planner **out, pm_compact_builder *b)
{
    *out = NULL;
    pm_compact_planner *pl;
    PM_TRY(pm_calloc(&pl, 1, sizeof *pl));
    pm_error *e = planner_init(pl, b);
    if (e) {
        pm_pk_planner_free(pl);
        return e;
    }
    *out = pl;
    return NULL;
}

/* compaction.parquet.page-passthrough (paimon-c's own key, default true):
 * for primary-key tables, the rewrite copies the compressed data pages
 * whose rows all pass unchanged (compact/pk/pk_page_copy.c). */
static pm_error *page_copies(const pm_options *o, pm_compact_output *out)
{
    const char *v = pm_options_get(o, "compaction.parquet.page-passthrough");
    out->page_passthrough = true;
    if (!v)
        return NULL;
    return pm_error_wrap(pm_parse_bool(v, &out->page_passthrough), PM_EINVALID,
                         "option compaction.parquet.page-passthrough=%s", v);
}

/* compaction.pk.skip-superseded (paimon-c's own key, default true): a
 * deduplicate rewrite passes over the input stretches whose records are
 * all superseded (compact/pk/pk_superseded.c). */
static pm_error *superseded(const pm_options *o, pm_compact_output *out)
{
    const char *v = pm_options_get(o, "compaction.pk.skip-superseded");
    bool skip = true;
    if (v)
        PM_TRY(pm_error_wrap(pm_parse_bool(v, &skip), PM_EINVALID, "option compaction.pk.skip-superseded=%s", v));
    out->keep_superseded = !skip;
    return NULL;
}

pm_error *pm_pk_plan_bucket(pm_compact_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf)
{
    if (!bf->nfiles || pl->skip)
        return NULL;
    if (bf->bucket == PM_BUCKET_POSTPONE && pm_pk_is_postpone(pl->t))
        return NULL; /* assigned to real buckets by pm_compact_run (pk_postpone.c), not by plans */
    if (bf->bucket == PM_BUCKET_POSTPONE)
        return pm_error_new(PM_EUNSUPPORTED, "the postpone bucket (bucket-postpone) of a table that is no longer in "
                                             "postpone bucket mode cannot be compacted");
    bool *has_dv = NULL;
    if (bf->ndvs) {
        PM_TRY(pm_calloc(&has_dv, bf->nfiles, sizeof *has_dv));
        for (size_t i = 0; i < bf->nfiles; i++)
            has_dv[i] = pm_compact_find_dv(bf, bf->files[i].file_name) != NULL;
    }
    pm_pk_selection sel;
    pm_pk_policy pol = pl->policy;
    pm_error *se = pm_pk_select(&pol, pl->key_type, bf->files, bf->nfiles, has_dv, &sel);
    if (!se && !sel.has && pl->gentle_interval > 0) {
        /* gentle: nothing picked counts a round; every interval-th forces level 0 up */
        bool fire = false;
        se = pm_compact_triggers_bump(pl->triggers, &bf->partition, bf->bucket, pl->gentle_interval, &fire);
        if (!se && fire) {
            pm_pk_selection_clear(&sel);
            pol.strategy.force_up_level0 = true;
            se = pm_pk_select(&pol, pl->key_type, bf->files, bf->nfiles, has_dv, &sel);
        }
    }
    free(has_dv);
    PM_TRY(pm_error_wrap(se, 0, "levels of bucket %d", (int)bf->bucket));
    if (!sel.has) {
        pm_pk_selection_clear(&sel);
        return NULL;
    }
    /* the task rewrites the bucket's one DV index file */
    pm_compact_task *t = NULL;
    pm_compact_pk *pk = NULL;
    pm_error *e = pm_compact_task_new(&t, p, &pm_compact_pk_mode, bf, sel.files, sel.nfiles, true);
    if (!e)
        e = pm_compact_output_for_level(pl->opts, sel.output_level, true, &t->output);
    if (!e)
        e = page_copies(pl->opts, &t->output);
    if (!e)
        e = superseded(pl->opts, &t->output);
    if (!e)
        e = pm_compact_pk_new(&pk);
    if (!e) {
        pk->policy = pol;
        pk->output_level = sel.output_level;
        pk->max_level = sel.num_levels - 1;
        pk->drop_delete = sel.drop_delete;
        t->part = &pk->base;
        e = pm_compact_plan_add_task(p, t);
        t = NULL;
    }
    pm_compact_task_free(t);
    pm_pk_selection_clear(&sel);
    return e;
}
