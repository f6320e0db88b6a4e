/*
 * compact/de/de_mode.c — the data-evolution mode's table check, planner,
 * part and pm_compact_mode_ops (de_compact.h).
 *
 * Planning one partition (bucket 0; nothing is written):
 *   1. file infos of the live files (first row ID, rows, size, dedicated);
 *   2. de_rules.h picks the tasks (bins of aligned groups, splits);
 *   3. each pick is checked: no input holds a field the current schema
 *      keeps in dedicated files, and with deletion vectors no output is
 *      wider than 2^32 row slots (PM_EUNSUPPORTED before anything runs);
 *   4. the task: inputs in row order, every version of a group together
 *      (newest first), their deletion vectors for reference, output
 *      settings of level 0 (format, compression; the rolling limits are not
 *      used), the part with the cut points.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/de/de_compact.h"
#include "compact/de/de_rules.h"
#include "meta/json.h"
#include "meta/options.h"
#include "table/de_read.h"

#include <jansson.h>

#define MAX_DV_SLOTS 4294967296LL

bool pm_de_dedicated_field(const pm_field *f) { return f->type->id == PM_TYPE_BLOB; }

/* ------------------------------------------------------------------ */
/* table                                                               */

pm_error *pm_de_mode_select(pm_table *t, const pm_compact_mode_ops **out)
{
    *out = NULL;
    const pm_options *o = pm_table_options(t);
    bool de = false, rt = false, b = false;
    PM_TRY(pm_options_bool(o, PM_OPT_DATA_EVOLUTION_ENABLED, &de));
    if (!de || pm_table_has_primary_key(t))
        return NULL;
    PM_TRY(pm_options_bool(o, PM_OPT_ROW_TRACKING_ENABLED, &rt));
    if (!rt)
        return pm_error_new(PM_EINVALID, "data-evolution.enabled=true needs row-tracking.enabled=true");
    if (pm_table_num_buckets(t) != -1)
        return pm_error_new(PM_EUNSUPPORTED, "compaction of data-evolution tables with bucket=%d is not supported "
                                             "(bucket -1)", (int)pm_table_num_buckets(t));
    PM_TRY(pm_options_bool(o, PM_OPT_DE_COMPACTION_REWRITE_ROW_IDS, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED, "data-evolution.compaction.rewrite-row-ids=true is not supported: "
                                             "compaction keeps row IDs; use materialize-deletions to rewrite "
                                             "deleted ranges with new row IDs");
    const pm_type *row = pm_table_schema(t)->row_type;
    for (size_t i = 0; i < row->nfields; i++)
        if (row->fields[i].type->id == PM_TYPE_VARIANT)
            return pm_error_new(PM_EUNSUPPORTED, "compaction of data-evolution tables with VARIANT column '%s' is "
                                "not supported", row->fields[i].name);
    PM_TRY(pm_compact_check_outputs(t, o));
    char fmt[32];
    PM_TRY(pm_options_file_format(o, fmt, sizeof fmt));
    *out = &pm_compact_de_mode;
    return NULL;
}

pm_error *pm_de_task_range(const pm_data_file_meta *files, size_t n, int64_t *first, int64_t *rows)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const pm_data_file_meta *f = &files[i];
        if (!f->first_row_id.has)
            return pm_error_new(PM_EINVALID, "input %s has no first row ID", f->file_name);
        if (f->first_row_id.v < lo)
            lo = f->first_row_id.v;
        if (f->first_row_id.v + f->row_count > hi)
            hi = f->first_row_id.v + f->row_count;
    }
    if (!n) {
        lo = hi = 0;
    }
    *first = lo;
    *rows = hi - lo;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* planner                                                             */

struct pm_compact_planner {
    pm_table *t;
    pm_de_rules rules;
    pm_compact_limits limits;     /* a bounded pass */
    bool dv;
    pm_compact_output output;
};

static pm_error *planner_new(pm_compact_planner **out, pm_compact_builder *b)
{
    *out = NULL;
    pm_compact_planner *pl;
    PM_TRY(pm_calloc(&pl, 1, sizeof *pl));
    pl->t = b->table;
    pl->limits = b->limits;
    const pm_options *o = b->opts;
    pm_de_rules *r = &pl->rules;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_options_target_file_size(o, false, &r->target), fail);
    if (r->target <= 0) {
        e = pm_error_new(PM_EINVALID, "target-file-size must be positive");
        goto fail;
    }
    PM_TRY_GOTO(e, pm_options_memory(o, PM_OPT_SOURCE_SPLIT_OPEN_FILE_COST, NULL, &r->open_cost), fail);
    PM_TRY_GOTO(e, pm_options_int(o, PM_OPT_COMPACTION_MIN_FILE_NUM, NULL, &r->min_files), fail);
    if (r->min_files < 1) {
        e = pm_error_new(PM_EINVALID, "compaction.min.file-num must be positive, got %d", (int)r->min_files);
        goto fail;
    }
    PM_TRY_GOTO(e, pm_options_bool(o, PM_OPT_DE_COMPACTION_SPLIT_LARGE_FILES, &r->split_large), fail);
    PM_TRY_GOTO(e, pm_options_double(o, PM_OPT_DE_COMPACTION_LARGE_FILE_RATIO, NULL, &r->ratio), fail);
    bool rw = false;
    PM_TRY_GOTO(e, pm_options_bool(o, PM_OPT_DE_COMPACTION_REWRITE_ROW_IDS, &rw), fail);
    if (rw) {
        e = pm_error_new(PM_EUNSUPPORTED, "data-evolution.compaction.rewrite-row-ids=true is not supported: use "
                                          "materialize-deletions");
        goto fail;
    }
    PM_TRY_GOTO(e, pm_options_bool(o, PM_OPT_DELETION_VECTORS_ENABLED, &pl->dv), fail);
    PM_TRY_GOTO(e, pm_compact_output_for_level(o, 0, false, &pl->output), fail);
    *out = pl;
    return NULL;
fail:
    free(pl);
    return e;
}

static void planner_free(pm_compact_planner *pl)
{
    if (!pl)
        return;
    pm_compact_output_clear(&pl->output);
    free(pl);
}

/* An input must not hold a field the current schema keeps in dedicated
 * files: omitting it from the output would lose its values. */
static pm_error *check_no_inline_dedicated(pm_table *t, const pm_data_file_meta *f)
{
    const pm_schema *cur = pm_table_schema(t), *fs = NULL;
    PM_TRY(pm_error_wrap(pm_table_schema_by_id(t, f->schema_id, &fs), 0, "schema of input %s", f->file_name));
    for (size_t i = 0; i < fs->row_type->nfields; i++) {
        const pm_field *ff = &fs->row_type->fields[i];
        bool listed = !f->has_write_cols;
        for (size_t k = 0; f->has_write_cols && k < f->write_cols.count && !listed; k++)
            listed = !strcmp(f->write_cols.items[k], ff->name);
        if (!listed || ff->type->id == PM_TYPE_BLOB)
            continue;
        ptrdiff_t c = pm_type_field_index_by_id(cur->row_type, ff->id);
        if (c >= 0 && pm_de_dedicated_field(&cur->row_type->fields[c]))
            return pm_error_new(PM_EUNSUPPORTED, "compaction of data file %s is refused: it still holds field '%s' "
                                "inline, which the current schema keeps in dedicated blob files; migrate those "
                                "values first (omitting the field would lose them)", f->file_name,
                                cur->row_type->fields[c].name);
    }
    return NULL;
}

static pm_error *add_task(pm_compact_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf,
                          const pm_de_pick *k)
{
    for (size_t i = 0; i < k->nfiles; i++)
        PM_TRY(check_no_inline_dedicated(pl->t, &bf->files[k->files[i]]));
    if (pl->dv) {
        int64_t widest = 0, prev = k->first_row_id;
        for (size_t c = 0; c <= k->ncuts; c++) {
            int64_t end = c < k->ncuts ? k->cuts[c] : k->first_row_id + k->rows;
            if (end - prev > widest)
                widest = end - prev;
            prev = end;
        }
        if (widest > MAX_DV_SLOTS)
            return pm_error_new(PM_EUNSUPPORTED, "compaction of row IDs [%" PRId64 ", %" PRId64 ") is refused: an "
                                "output of %" PRId64 " row slots exceeds the 4294967296 a deletion vector can "
                                "address", k->first_row_id, k->first_row_id + k->rows, widest);
    }
    pm_compact_task *t = NULL;
    PM_TRY(pm_compact_task_new(&t, p, &pm_compact_de_mode, bf, k->files, k->nfiles, false));
    pm_compact_de *part = NULL;
    pm_error *e = pm_compact_output_copy(&t->output, &pl->output);
    if (!e)
        e = pm_compact_de_new(&part);
    if (!e && k->ncuts) {
        e = pm_calloc(&part->cuts, k->ncuts, sizeof *part->cuts);
        if (!e) {
            memcpy(part->cuts, k->cuts, k->ncuts * sizeof *k->cuts);
            part->ncuts = k->ncuts;
        }
    }
    if (e) {
        if (part)
            pm_compact_part_free(&part->base);
        pm_compact_task_free(t);
        return e;
    }
    t->part = &part->base;
    return pm_compact_plan_add_task(p, t);
}

/* The rules' view of the bucket's files (*out malloc'd), after the
 * layout checks of the reader (table/de_read.h: valid ranges, aligned
 * normal files, dedicated files inside one normal range), so damaged
 * metadata is refused before planning, as a read refuses it. */
static pm_error *file_infos(const pm_bucket_files *bf, pm_de_file_info **out)
{
    size_t n = bf->nfiles;
    pm_de_group *g = NULL;
    size_t ng = 0;
    PM_TRY(pm_de_plan_groups(bf->files, n, &g, &ng));
    pm_de_groups_free(g, ng);
    pm_de_file_info *fi;
    PM_TRY(pm_calloc(&fi, n ? n : 1, sizeof *fi));
    for (size_t i = 0; i < n; i++) {
        const pm_data_file_meta *f = &bf->files[i];
        pm_error *e = pm_de_check_row_range(f);
        if (e) {
            free(fi);
            return e;
        }
        fi[i] = (pm_de_file_info){f->first_row_id.v, f->row_count, f->file_size, pm_de_is_blob_file(f->file_name)};
    }
    *out = fi;
    return NULL;
}

static pm_error *pending(pm_compact_planner *pl, const pm_bucket_files *bf, bool *out)
{
    pm_de_file_info *fi;
    PM_TRY(file_infos(bf, &fi));
    pm_error *e = pm_de_pending(fi, bf->nfiles, pl->rules.target, out);
    free(fi);
    return e;
}

/* Plan the files fi[idx[0..n)) of bf (indexes of the picks map back through idx). */
static pm_error *plan_files(pm_compact_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf,
                            const pm_de_file_info *fi, const size_t *idx, size_t n, const pm_de_rules *r)
{
    pm_de_file_info *sub;
    PM_TRY(pm_calloc(&sub, n ? n : 1, sizeof *sub));
    for (size_t i = 0; i < n; i++)
        sub[i] = fi[idx[i]];
    pm_de_picks picks = {0};
    pm_error *e = pm_de_plan_partition(sub, n, r, &picks);
    /* inputs: row order, each group's versions newest first (the files
     * arrive in manifest order; the executor regroups them) */
    for (size_t k = 0; !e && k < picks.n; k++) {
        for (size_t i = 0; i < picks.v[k].nfiles; i++)
            picks.v[k].files[i] = idx[picks.v[k].files[i]];
        e = add_task(pl, p, bf, &picks.v[k]);
    }
    pm_de_picks_free(&picks);
    free(sub);
    return e;
}

static pm_error *plan_bucket(pm_compact_planner *pl, pm_compact_plan *p, const pm_bucket_files *bf)
{
    size_t n = bf->nfiles;
    if (!n)
        return NULL;
    pm_de_file_info *fi;
    PM_TRY(file_infos(bf, &fi));
    size_t *idx = NULL, m = 0;
    bool *take = NULL;
    pm_error *e = pm_calloc(&idx, n, sizeof *idx);
    pm_de_rules r = pl->rules;
    if (!e && pm_compact_limited(&pl->limits)) {
        e = pm_calloc(&take, n, sizeof *take);
        if (!e)
            e = pm_de_bounded_prefix(fi, n, r.target, pl->limits.max_files, pl->limits.max_bytes, take);
        for (size_t i = 0; !e && i < n; i++)
            if (take[i])
                idx[m++] = i;
        r.min_files = 2;
    } else {
        for (size_t i = 0; i < n; i++)
            idx[m++] = i;
    }
    if (!e && m)
        e = plan_files(pl, p, bf, fi, idx, m, &r);
    free(take);
    free(idx);
    free(fi);
    return e;
}

/* ------------------------------------------------------------------ */
/* the part                                                            */

pm_compact_de *pm_de_part(const pm_compact_part *p)
{
    return p && p->mode == &pm_compact_de_mode ? (pm_compact_de *)(uintptr_t)p : NULL;
}

pm_error *pm_compact_de_new(pm_compact_de **out)
{
    PM_TRY(pm_calloc(out, 1, sizeof **out));
    (*out)->base.mode = &pm_compact_de_mode;
    return NULL;
}

static void part_free(pm_compact_part *p)
{
    pm_compact_de *d = pm_de_part(p);
    if (d)
        free(d->cuts);
    free(d);
}

static pm_error *part_copy(pm_compact_part **out, const pm_compact_part *p)
{
    *out = NULL;
    const pm_compact_de *src = pm_de_part(p);
    pm_compact_de *c = NULL;
    PM_TRY(pm_compact_de_new(&c));
    if (src->ncuts) {
        pm_error *e = pm_calloc(&c->cuts, src->ncuts, sizeof *c->cuts);
        if (e) {
            free(c);
            return e;
        }
        memcpy(c->cuts, src->cuts, src->ncuts * sizeof *c->cuts);
        c->ncuts = src->ncuts;
    }
    *out = &c->base;
    return NULL;
}

static json_t *part_to_json(const pm_compact_part *p)
{
    const pm_compact_de *d = pm_de_part(p);
    json_t *o = json_object(), *a = json_array();
    if (!o || !a)
        goto fail;
    for (size_t i = 0; i < d->ncuts; i++)
        if (json_array_append_new(a, json_integer((json_int_t)d->cuts[i])))
            goto fail;
    if (json_object_set_new(o, "cuts", a))
        goto fail2;
    return o;
fail:
    json_decref(a);
fail2:
    json_decref(o);
    return NULL;
}

static const char *const DE_KEYS[] = {"cuts", NULL};

static pm_error *part_from_json(const pm_jnode *n, pm_compact_part **out)
{
    *out = NULL;
    PM_TRY(pm_json_keys(n, DE_KEYS));
    pm_jnode arr;
    size_t cnt = 0;
    PM_TRY(pm_json_array(n, "cuts", 0, &arr, &cnt));
    pm_compact_de *d = NULL;
    PM_TRY(pm_compact_de_new(&d));
    pm_error *e = NULL;
    if (cnt)
        e = pm_calloc(&d->cuts, cnt, sizeof *d->cuts);
    for (size_t i = 0; !e && i < cnt; i++) {
        pm_jnode el;
        pm_json_at(&el, &arr, i);
        e = pm_json_as_i64(&el, 0, INT64_MAX, &d->cuts[i]);
        if (!e && i && d->cuts[i] <= d->cuts[i - 1])
            e = pm_json_error(&el, "cut points must ascend");
        d->ncuts = i + 1;
    }
    if (e) {
        part_free(&d->base);
        return e;
    }
    *out = &d->base;
    return NULL;
}

/* Cuts lie strictly inside the task's range; inputs have row IDs. */
static pm_error *part_check(const pm_compact_task *t, const char *doc)
{
    const pm_compact_de *d = pm_de_part(t->part);
    int64_t first = 0, rows = 0;
    PM_TRY(pm_error_wrap(pm_de_task_range(t->files, t->nfiles, &first, &rows), PM_EINVALID, "%s.files", doc));
    for (size_t i = 0; i < d->ncuts; i++)
        if (d->cuts[i] <= first || d->cuts[i] >= first + rows)
            return pm_error_new(PM_EINVALID, "%s.de.cuts[%zu]: %" PRId64 " is not inside the task's row IDs [%" PRId64
                                ", %" PRId64 ")", doc, i, d->cuts[i], first, first + rows);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* the mode                                                            */

/* Tasks of one partition cover disjoint row ranges: independent. */
const pm_compact_mode_ops pm_compact_de_mode = {
    .name = "data-evolution",
    .part_key = "de",
    .ordered_buckets = false,
    .planner_new = planner_new,
    .plan_bucket = plan_bucket,
    .planner_free = planner_free,
    .pending = pending,
    .execute = pm_de_execute,
    .validate = pm_de_validate,
    .rebase_index = pm_de_rebase_index,
    .part_free = part_free,
    .part_copy = part_copy,
    .part_to_json = part_to_json,
    .part_from_json = part_from_json,
    .part_check = part_check,
};
