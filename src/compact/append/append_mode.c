/*
 * compact/append/append_mode.c — the append modes' table check and planner
 * (append.h), and their two pm_compact_mode_ops.
 *
 * Planning one bucket (nothing is written):
 *   1. file infos (size, rows, min sequence, deletion vector and its index
 *      file) of the bucket's live files;
 *   2. the append_rules.h picker: unaware → per partition packing,
 *      bucketed → min-sequence windows, --full → the full rule (a fixed
 *      bucket it leaves alone still gets the window rule, as Java's
 *      writer runs its normal round right after);
 *   3. each group becomes a task (pm_compact_task_new): inputs in group
 *      order, their DV references, the DV index files it rewrites, output
 *      settings of level 0 (format, compression, target-file-size,
 *      target-file-row-num, row-group passthrough).
 * A bounded pass (the builder's limits) picks by the bounded rules of
 * append_rules.h instead; `pending` marks the files those rules count.
 * Read-split options (source.split.target-size) are never consulted,
 * except source.split.open-file-cost, the packing weight of a file.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "compact/append/append.h"
#include "compact/append/append_rules.h"
#include "meta/options.h"

/* ------------------------------------------------------------------ */
/* table                                                               */

static pm_error *opt_bool_raw(const pm_options *o, const char *key, bool dflt, bool *out)
{
    const char *v = pm_options_get(o, key);
    *out = dflt;
    if (!v)
        return NULL;
    return pm_error_wrap(pm_parse_bool(v, out), PM_EINVALID, "option %s=%s", key, v);
}

pm_error *pm_append_mode_select(pm_table *t, const pm_compact_mode_ops **out)
{
    *out = NULL;
    if (pm_table_has_primary_key(t))
        return NULL;
    const pm_options *o = pm_table_options(t);
    bool b;
    PM_TRY(pm_compact_check_common(t, o, "append tables"));
    PM_TRY(opt_bool_raw(o, "clustering.incremental", false, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED,
                            "compaction of incremental-clustering tables (clustering.incremental=true) is not supported");
    int32_t nb = pm_table_num_buckets(t);
    const pm_compact_mode_ops *mode = NULL;
    if (nb == -1) {
        mode = &pm_compact_append_unaware_mode;
    } else if (nb > 0) {
        PM_TRY(opt_bool_raw(o, "bucket-cluster.enabled", false, &b));
        if (b)
            return pm_error_new(PM_EUNSUPPORTED, "compaction of bucket-clustered tables is not supported");
        mode = &pm_compact_append_bucketed_mode;
    } else {
        return pm_error_new(PM_EUNSUPPORTED, "compaction of append tables with bucket=%d is not supported "
                                             "(bucket -1 or > 0)", (int)nb);
    }
    char fmt[32];
    PM_TRY(pm_options_file_format(o, fmt, sizeof fmt));
    *out = mode;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* planner                                                             */

struct pm_compact_planner {
    bool bucketed;
    bool full;
    pm_compact_limits limits;     /* a bounded pass */
    pm_compact_rules rules;
    pm_compact_output output;
};

static pm_error *load_rules(const pm_options *o, pm_compact_rules *r)
{
    memset(r, 0, sizeof *r);
    PM_TRY(pm_options_target_file_size(o, false, &r->target));
    if (r->target <= 0)
        return pm_error_new(PM_EINVALID, "target-file-size must be positive");
    PM_TRY(pm_options_compaction_file_size(o, false, &r->small));
    PM_TRY(pm_options_memory(o, PM_OPT_SOURCE_SPLIT_OPEN_FILE_COST, NULL, &r->open_cost));
    if (r->open_cost < 0)
        return pm_error_new(PM_EINVALID, "source.split.open-file-cost must not be negative");
    PM_TRY(pm_options_int(o, PM_OPT_COMPACTION_MIN_FILE_NUM, NULL, &r->min_file_num));
    if (r->min_file_num < 1)
        return pm_error_new(PM_EINVALID, "compaction.min.file-num must be positive, got %d", (int)r->min_file_num);
    PM_TRY(pm_options_double(o, PM_OPT_COMPACTION_DELETE_RATIO_THRESHOLD, NULL, &r->delete_ratio));
    PM_TRY(pm_options_bool(o, PM_OPT_DELETION_VECTORS_ENABLED, &r->dv_enabled));
    PM_TRY(pm_options_bool(o, PM_OPT_COMPACTION_FORCE_REWRITE_ALL_FILES, &r->force_rewrite_all));
    return NULL;
}

/* A variant or map shredding option (any key naming shredding, set to
 * anything but false or empty). */
static bool shredding_configured(const pm_options *o)
{
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i), *v = pm_options_value_at(o, i);
        bool named = false;
        for (const char *p = k; !named && *p; p++)
            named = !strncasecmp(p, "shredding", 9);
        if (named && v && *v && strcasecmp(v, "false"))
            return true;
    }
    return false;
}

/* parquet.read.enable-dictionary-passthrough, overridden to false for
 * outputs that are not Parquet, parquet.enable.dictionary=false and
 * variant/map shredding (the seed's vetoes: never an error). */
static pm_error *dict_passthrough(const pm_options *o, const char *format, bool *out)
{
    bool on = false, dict = true;
    PM_TRY(opt_bool_raw(o, "parquet.read.enable-dictionary-passthrough", false, &on));
    PM_TRY(opt_bool_raw(o, "parquet.enable.dictionary", true, &dict));
    *out = on && !strcmp(format, "parquet") && dict && !shredding_configured(o);
    return NULL;
}

/* Level 0 outputs plus compaction.parquet.row-group-passthrough[.min-size],
 * compaction.parquet.page-passthrough (paimon-c's own key, default true)
 * and dictionary passthrough. */
static pm_error *load_output(const pm_options *o, pm_compact_output *out)
{
    PM_TRY(pm_compact_output_for_level(o, 0, false, out));
    pm_error *e = opt_bool_raw(o, "compaction.parquet.row-group-passthrough", false, &out->rg_passthrough);
    if (!e)
        e = opt_bool_raw(o, "compaction.parquet.page-passthrough", true, &out->page_passthrough);
    out->page_reencode_permille = 900;
    const char *rs = pm_options_get(o, "compaction.parquet.page-passthrough.reencode-ratio");
    if (!e && rs) {
        char *end = NULL;
        double ratio = strtod(rs, &end);
        if (end == rs || *end || !(ratio >= 0.0 && ratio <= 1.0))
            e = pm_error_new(PM_EINVALID,
                             "compaction.parquet.page-passthrough.reencode-ratio must be a number from 0 to 1, got '%s'",
                             rs);
        else
            out->page_reencode_permille = (int64_t)(ratio * 1000.0 + 0.5);
    }
    if (!e)
        e = dict_passthrough(o, out->format, &out->dict_passthrough);
    out->rg_passthrough_min = 1 << 20;
    const char *mins = pm_options_get(o, "compaction.parquet.row-group-passthrough.min-size");
    if (!e && mins)
        e = pm_error_wrap(pm_parse_memory_size(mins, &out->rg_passthrough_min), PM_EINVALID,
                          "option compaction.parquet.row-group-passthrough.min-size=%s", mins);
    if (!e && out->rg_passthrough_min < 0)
        e = pm_error_new(PM_EINVALID, "compaction.parquet.row-group-passthrough.min-size must not be negative");
    if (e)
        pm_compact_output_clear(out);
    return e;
}

static pm_error *planner_new(pm_compact_planner **out, pm_compact_builder *b, bool bucketed)
{
    *out = NULL;
    pm_compact_planner *pl;
    PM_TRY(pm_calloc(&pl, 1, sizeof *pl));
    pl->bucketed = bucketed;
    pl->full = b->full;
    pl->limits = b->limits;
    pm_error *e = load_rules(b->opts, &pl->rules);
    pl->rules.single_window = bucketed && pl->rules.dv_enabled;
    if (!e)
        e = load_output(b->opts, &pl->output);
    if (e) {
        free(pl);
        return e;
    }
    *out = pl;
    return NULL;
}

static pm_error *unaware_planner_new(pm_compact_planner **out, pm_compact_builder *b)
{
    return planner_new(out, b, false);
}

static pm_error *bucketed_planner_new(pm_compact_planner **out, pm_compact_builder *b)
{
    return planner_new(out, b, true);
}

static void planner_free(pm_compact_planner *pl)
{
    if (!pl)
        return;
    pm_compact_output_clear(&pl->output);
    free(pl);
}

static pm_error *add_task(pm_compact_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf, const size_t *idx,
                          size_t n)
{
    const pm_compact_mode_ops *mode = pl->bucketed ? &pm_compact_append_bucketed_mode : &pm_compact_append_unaware_mode;
    pm_compact_task *t = NULL;
    PM_TRY(pm_compact_task_new(&t, p, mode, bf, idx, n, pl->bucketed));
    pm_error *e = pm_compact_output_copy(&t->output, &pl->output);
    if (e) {
        pm_compact_task_free(t);
        return e;
    }
    return pm_compact_plan_add_task(p, t);
}

/* The rules' view of the bucket's files (*out malloc'd, bf->nfiles entries). */
static pm_error *file_infos(const pm_bucket_files *bf, pm_compact_file_info **out)
{
    size_t n = bf->nfiles;
    pm_compact_file_info *fi;
    PM_TRY(pm_calloc(&fi, n ? n : 1, sizeof *fi));
    for (size_t i = 0; i < n; i++) {
        const pm_data_file_meta *f = &bf->files[i];
        fi[i].size = f->file_size;
        fi[i].rows = f->row_count;
        fi[i].min_seq = f->min_sequence_number;
        fi[i].name = f->file_name;
        const pm_deletion_file *d = pm_compact_find_dv(bf, f->file_name);
        if (d) {
            fi[i].has_dv = true;
            fi[i].dv_card_known = d->cardinality.has;
            fi[i].dv_card = d->cardinality.v;
            fi[i].dv_index = pm_compact_base_name(d->index_path);
        }
    }
    *out = fi;
    return NULL;
}

static pm_error *pending(pm_compact_planner *pl, const pm_bucket_files *bf, bool *out)
{
    pm_compact_file_info *fi;
    PM_TRY(file_infos(bf, &fi));
    for (size_t i = 0; i < bf->nfiles; i++)
        out[i] = pm_compact_append_pending(&fi[i], &pl->rules);
    free(fi);
    return NULL;
}

/* A bounded pass over the bucket's pending files (append_rules.h). */
static pm_error *pick_bounded(pm_compact_planner *pl, const pm_bucket_files *bf, const pm_compact_file_info *fi,
                              pm_compact_groups *g)
{
    size_t n = bf->nfiles;
    if (pl->bucketed)
        return pm_compact_pick_bounded_bucketed(fi, n, &pl->rules, pl->limits.max_files, pl->limits.max_bytes, g);
    bool *flags;
    PM_TRY(pm_calloc(&flags, n, sizeof *flags));
    for (size_t i = 0; i < n; i++)
        flags[i] = pm_compact_append_pending(&fi[i], &pl->rules);
    size_t *idx = NULL, nidx = 0;
    pm_error *e = pm_compact_pending_prefix(bf->files, n, flags, &pl->limits, &idx, &nidx);
    if (!e)
        e = pm_compact_pick_bounded_unaware(fi, n, &pl->rules, idx, nidx, g);
    free(idx);
    free(flags);
    return e;
}

static pm_error *plan_bucket(pm_compact_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf)
{
    size_t n = bf->nfiles;
    if (!n)
        return NULL;
    pm_compact_file_info *fi;
    PM_TRY(file_infos(bf, &fi));
    pm_compact_groups g = {0};
    pm_error *e;
    if (pm_compact_limited(&pl->limits)) {
        e = pick_bounded(pl, bf, fi, &g);
    } else if (pl->full) {
        e = pm_compact_pick_full(fi, n, &pl->rules, &g);
        /* A fixed bucket the full rule leaves alone still gets the normal
         * window rule, as Java's writer runs its normal round right after
         * (prepareCommit): --full never compacts less than a plain plan. */
        if (!e && !g.ngroups && pl->bucketed)
            e = pm_compact_pick_bucketed(fi, n, &pl->rules, &g);
    } else if (pl->bucketed) {
        e = pm_compact_pick_bucketed(fi, n, &pl->rules, &g);
    } else {
        e = pm_compact_pick_unaware(fi, n, &pl->rules, &g);
    }
    for (size_t k = 0; !e && k < g.ngroups; k++) {
        size_t s = pm_compact_group_start(&g, k);
        e = add_task(pl, p, bf, g.idx + s, g.end[k] - s);
    }
    pm_compact_groups_free(&g);
    free(fi);
    return e;
}

/* ------------------------------------------------------------------ */
/* the modes                                                           */

static pm_error *unaware_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t budget)
{
    return pm_append_execute(out, t, task, budget, false);
}

static pm_error *bucketed_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t budget)
{
    return pm_append_execute(out, t, task, budget, true);
}

/* Unaware tasks have disjoint inputs and DV index files and no sequence
 * order between them: each runs on its own. */
const pm_compact_mode_ops pm_compact_append_unaware_mode = {
    .name = "append-unaware",
    .ordered_buckets = false,
    .planner_new = unaware_planner_new,
    .plan_bucket = plan_bucket,
    .planner_free = planner_free,
    .pending = pending,
    .execute = unaware_execute,
};

/* The windows of a bucket follow each other in sequence order. */
const pm_compact_mode_ops pm_compact_append_bucketed_mode = {
    .name = "append-bucketed",
    .ordered_buckets = true,
    .planner_new = bucketed_planner_new,
    .plan_bucket = plan_bucket,
    .planner_free = planner_free,
    .pending = pending,
    .execute = bucketed_execute,
};
