/*
 * compact/pk/pk_commit.c — the primary-key checks of a compaction commit
 * (the mode's validate, compact_mode.h), run by the shared committer
 * (compact_commit.c) after its own checks (inputs live with identical
 * metadata, schema unchanged, no rollback).
 *
 * Once per commit (cached across retry attempts), against the CAPTURED
 * snapshot of the plan:
 *   - recompute each result's selection with pm_pk_select from the
 *     bucket's files in that snapshot and the policy the task recorded;
 *   - the output level and drop-delete decision must be the recomputed
 *     ones; every removed file must be a selected file with the captured
 *     metadata; every added file must sit at the output level; an
 *     upgraded file (same name in before and after) must be unchanged but
 *     for its level; every selected file that was not removed must
 *     already be at the output level.
 *   A result that fails these checks is PM_EINVALID (it does not describe
 *   a compaction of that snapshot).
 * On every attempt, against the LATEST snapshot:
 *   - per (partition, bucket), the live files become Levels and every
 *     result of the bucket is applied (remove before, add after); files
 *     of a positive level whose key ranges overlap — including ranges
 *     added by a concurrent compaction — are PM_ECONFLICT ("replan").
 *     Level-0 files never conflict: concurrent appends commit alongside.
 *   - deletion vectors: every data file the result's new DV index holds a
 *     vector for is still live (or an output of the result).
 *   - source-backed global indexes: pm_pk_gi_validate (pk_global_index.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_compact.h"
#include "compact/pk/pk_global_index.h"
#include "lsm/levels.h"

typedef struct commit_state {
    bool checked;                 /* selections verified against the captured snapshot */
} commit_state;

void pm_pk_validate_free(void *s) { free(s); }

static bool in_list(const pm_data_file_meta *f, size_t n, const char *name, size_t *at)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].file_name, name)) {
            if (at)
                *at = i;
            return true;
        }
    return false;
}

static pm_error *invalid(const pm_compact_result *r, const char *what, const char *file)
{
    return pm_error_new(PM_EINVALID, "result of task %lld does not match the selection of snapshot %lld in bucket %d: "
                        "%s%s%s", (long long)r->task_index, (long long)r->snapshot_id, (int)r->bucket, what,
                        file ? " " : "", file ? file : "");
}

/* One result against the captured bucket. */
static pm_error *check_selection(pm_table *t, const pm_compact_result *r, const pm_bucket_files *bf)
{
    const pm_compact_pk *pk = pm_pk_part(r->part);
    const pm_schema *s = NULL;
    PM_TRY(pm_table_schema_by_id(t, r->schema_id, &s));
    pm_type *kt = NULL;
    PM_TRY(pm_schema_trimmed_primary_key_type(s, &kt));
    bool *has_dv = NULL;
    pm_error *e = NULL;
    if (bf->ndvs) {
        e = pm_calloc(&has_dv, bf->nfiles, sizeof *has_dv);
        for (size_t i = 0; !e && i < bf->nfiles; i++)
            for (size_t k = 0; k < bf->ndvs && !has_dv[i]; k++)
                has_dv[i] = bf->dvs[k].data_file && !strcmp(bf->dvs[k].data_file, bf->files[i].file_name);
    }
    pm_pk_selection sel;
    if (!e)
        e = pm_pk_select(&pk->policy, kt, bf->files, bf->nfiles, has_dv, &sel);
    free(has_dv);
    pm_type_free(kt);
    PM_TRY(e);
    if (!sel.has)
        e = invalid(r, "the snapshot selects no files", NULL);
    else if (sel.output_level != pk->output_level || sel.num_levels - 1 != pk->max_level)
        e = invalid(r, "the output level differs", NULL);
    else if (sel.drop_delete != pk->drop_delete)
        e = invalid(r, "the delete-record handling differs", NULL);
    for (size_t i = 0; !e && i < r->nbefore; i++) {
        const pm_data_file_meta *b = &r->before[i];
        bool selected = false;
        for (size_t k = 0; k < sel.nfiles && !selected; k++)
            selected = !strcmp(bf->files[sel.files[k]].file_name, b->file_name) &&
                       pm_data_file_meta_equal(&bf->files[sel.files[k]], b);
        if (!selected)
            e = invalid(r, "it removes a file that is not selected:", b->file_name);
    }
    for (size_t i = 0; !e && i < r->nafter; i++) {
        const pm_data_file_meta *a = &r->after[i];
        size_t at = 0;
        if (a->level != pk->output_level) {
            e = invalid(r, "it adds a file at another level than the output level:", a->file_name);
        } else if (in_list(r->before, r->nbefore, a->file_name, &at)) {
            pm_data_file_meta up = r->before[at];
            up.level = a->level;
            if (!pm_data_file_meta_equal(&up, a))
                e = invalid(r, "an upgraded file changed more than its level:", a->file_name);
        }
    }
    for (size_t k = 0; !e && k < sel.nfiles; k++) {
        const pm_data_file_meta *f = &bf->files[sel.files[k]];
        if (!in_list(r->before, r->nbefore, f->file_name, NULL) && f->level != pk->output_level)
            e = invalid(r, "a selected file below the output level is neither rewritten nor upgraded:", f->file_name);
    }
    pm_pk_selection_clear(&sel);
    return e;
}

static pm_error *check_captured(pm_table *t, pm_compact_result *const *r, size_t n)
{
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = r[0]->snapshot_id;
    pm_scan_result *sr = NULL;
    pm_error *e = pm_table_scan(t, &so, &sr);
    if (e)
        return pm_error_wrap(e, pm_error_code(e) == PM_ENOTFOUND ? PM_ECONFLICT : 0,
                             "compaction conflict, replan: the plan's snapshot %lld is not readable",
                             (long long)r[0]->snapshot_id);
    for (size_t i = 0; i < n && !e; i++) {
        if (!pm_pk_part(r[i]->part)) {
            e = pm_error_new(PM_EINVALID, "result of task %lld has no primary-key part", (long long)r[i]->task_index);
            break;
        }
        const pm_bucket_files *bf = pm_compact_find_bucket(sr, &r[i]->partition, r[i]->bucket);
        if (!bf)
            e = invalid(r[i], "the bucket is empty in that snapshot", NULL);
        else
            e = check_selection(t, r[i], bf);
    }
    pm_scan_result_free(sr);
    return e;
}

/* Deletion vectors: every data file the new DV index file holds a vector
 * for (rows replaced by the compaction, vectors carried over) must still
 * be live — a concurrent compaction that rewrote such a file without
 * changing the bucket's index file would otherwise keep the replaced rows
 * visible. */
static pm_error *check_vector_targets(const pm_compact_result *r, const pm_bucket_files *bf)
{
    for (size_t i = 0; i < r->nindex_added; i++) {
        const pm_index_file_meta *m = &r->index_added[i].index_file;
        for (size_t k = 0; k < m->dv_range_len; k++) {
            const char *name = m->dv_ranges[k].data_file_name;
            bool live = in_list(r->after, r->nafter, name, NULL);
            for (size_t j = 0; bf && j < bf->nfiles && !live; j++)
                live = !strcmp(bf->files[j].file_name, name) && !in_list(r->before, r->nbefore, name, NULL);
            if (!live)
                return pm_error_new(PM_ECONFLICT, "compaction conflict, replan: task %lld marks rows deleted in %s, "
                                    "which a concurrent commit removed", (long long)r->task_index, name);
        }
    }
    return NULL;
}

/* Apply every result of one live bucket to its levels. */
static pm_error *check_overlap(pm_table *t, pm_compact_result *const *r, size_t n, size_t first,
                               const pm_scan_result *live)
{
    const pm_compact_result *r0 = r[first];
    const pm_compact_pk *pk0 = pm_pk_part(r0->part);
    const pm_bucket_files *bf = pm_compact_find_bucket(live, &r0->partition, r0->bucket);
    if (!bf)
        return NULL; /* the shared check reports the missing inputs */
    const pm_schema *s = NULL;
    PM_TRY(pm_table_schema_by_id(t, r0->schema_id, &s));
    pm_type *kt = NULL;
    PM_TRY(pm_schema_trimmed_primary_key_type(s, &kt));
    pm_levels *lv = NULL;
    pm_error *e = pm_levels_new(&lv, kt, pk0->policy.num_levels, bf->files, bf->nfiles);
    pm_type_free(kt);
    if (e)
        return pm_error_wrap(e, PM_ECONFLICT, "compaction conflict, replan: levels of bucket %d",
                             (int)r0->bucket);
    for (size_t i = first; i < n && !e; i++) {
        const pm_compact_result *x = r[i];
        if (x->bucket != r0->bucket || !pm_compact_bytes_equal(&x->partition, &r0->partition))
            continue;
        e = check_vector_targets(x, bf);
        if (e)
            break;
        e = pm_levels_update(lv, x->before, x->nbefore, x->after, x->nafter);
        if (e)
            e = pm_error_wrap(e, PM_ECONFLICT, "compaction conflict, replan: task %lld would leave overlapping key "
                              "ranges in a level of bucket %d", (long long)x->task_index, (int)x->bucket);
    }
    pm_levels_free(lv);
    if (!e)
        e = pm_pk_gi_validate(r, n, first, bf); /* source-backed global indexes */
    return e;
}

pm_error *pm_pk_validate(void **state, pm_table *t, pm_compact_result *const *r, size_t n,
                         const pm_scan_result *live)
{
    if (!*state)
        PM_TRY(pm_calloc((commit_state **)state, 1, sizeof(commit_state)));
    commit_state *cs = *state;
    if (!cs->checked) {
        PM_TRY(check_captured(t, r, n));
        cs->checked = true;
    }
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = r[k]->bucket == r[i]->bucket && pm_compact_bytes_equal(&r[k]->partition, &r[i]->partition);
        if (!seen)
            PM_TRY(check_overlap(t, r, n, i, live));
    }
    return NULL;
}
