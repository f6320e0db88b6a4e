/*
 * compact/pk/pk_execute.c — running one primary-key compaction task
 * (Paimon's MergeTreeCompactTask; the phases it drives are in pk_exec.h).
 * Publishes nothing.
 *
 * Steps:
 *   1. The task's schema (files are read in it, by field id), a writer
 *      schema (the same schema whose options carry the task's output
 *      format and compression, the row group capped at half the task's
 *      memory), the merge layouts and engines, and the phases' state.
 *   2. The task's files become Levels; with lookups (first-row, deletion
 *      vectors, lookup changelog) below the max level the retained levels
 *      are loaded (lookup_levels.c); with deletion vectors the bucket's
 *      vectors (pk_dv.c).
 *   3. Steps: a full compaction of a single max-level run rewrites each
 *      file alone (Java's FileRewriteCompactTask); otherwise
 *      lsm/interval_partition.h turns the inputs into steps for the output
 *      level: UPGRADE (a file that only changes level: same file, new
 *      _LEVEL in the result — no I/O) and REWRITE (sections of overlapping
 *      sorted runs merged, pk_rewrite.c).  An upgraded level-0 file of a
 *      lookup table follows Java's LookupMergeTreeCompactRewriter (below);
 *      with changelog-producer=full-compaction a file moving to the max
 *      level gives +I events for its adds and is kept.
 *   4. Result: before = every rewritten or upgraded input, after = the new
 *      files and the upgraded files at their new level, the changelog
 *      files (changelog_producer.c), the DV index change; counters.
 *   5. On failure every file written so far is deleted.
 * Memory: the task's share of the budget, half to the merge and half to
 * the writer's open row group, plus one output batch.  Nothing
 * proportional to the task.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/pk/pk_exec.h"
#include "compact/pk/pk_global_index.h"
#include "meta/index_path.h"
#include "table/partition.h"

pm_error *pm_pk_add_field(pm_type *row, int32_t id, const char *name, pm_type *t)
{
    if (!t)
        return pm_oom();
    pm_error *e = pm_type_add_field(row, id, name, t);
    if (e)
        pm_type_free(t);
    return e;
}

pm_error *pm_pk_system_type(const pm_type *fields, pm_type **out)
{
    *out = NULL;
    pm_type *t = pm_type_new_row(false);
    if (!t)
        return pm_oom();
    pm_error *e = pm_pk_add_field(t, PM_PK_SEQ_ID, "_SEQUENCE_NUMBER", pm_type_new(PM_TYPE_BIGINT, false));
    if (!e)
        e = pm_pk_add_field(t, PM_PK_KIND_ID, "_VALUE_KIND", pm_type_new(PM_TYPE_TINYINT, false));
    for (size_t i = 0; !e && i < fields->nfields; i++)
        e = pm_pk_add_field(t, fields->fields[i].id, fields->fields[i].name, pm_type_clone(fields->fields[i].type));
    if (e) {
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

/* Writer schema: the task's schema whose options carry the task's output
 * format and compression, and the open row group within half the task's
 * memory. */
static pm_error *writer_schema(pm_pk_exec *x)
{
    const pm_schema *s = x->schema;
    PM_TRY(pm_options_clone(s->options, &x->wopts));
    PM_TRY(pm_options_set(x->wopts, "file.format", x->task->output.format));
    PM_TRY(pm_options_set(x->wopts, "file.compression", x->task->output.compression));
    if (x->budget > 0) {
        int64_t rg = 128LL << 20, cap = x->budget / 2 < (1LL << 20) ? (1LL << 20) : x->budget / 2;
        const char *v = pm_options_get(s->options, "parquet.block.size");
        if (!v)
            v = pm_options_get(s->options, "file.block-size");
        if (v)
            PM_TRY(pm_error_wrap(pm_parse_memory_size(v, &rg), PM_EINVALID, "parquet.block.size=%s", v));
        if (rg > cap) {
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", (long long)cap);
            pm_options_remove(x->wopts, "file.block-size");
            PM_TRY(pm_options_set(x->wopts, "parquet.block.size", buf));
        }
    }
    x->wschema = *s;
    x->wschema.options = x->wopts;
    return NULL;
}

/* The merge: engines (reducer mode; full mode for lookups), the input
 * type and layout (key columns, sequence fields), the KeyValue output. */
static pm_error *merge_setup(pm_pk_exec *x)
{
    const pm_schema *s = x->schema;
    const pm_type *rt = s->row_type;
    pm_merge_fn_options mo = {PM_MERGE_REDUCE, true};
    const char *const *pks = (const char *const *)s->primary_keys.items;
    PM_TRY(pm_merge_fn_new(&x->mf, rt, pks, s->primary_keys.count, s->options, &mo));
    bool force_lookup = false;
    PM_TRY(pm_options_bool(s->options, PM_OPT_FORCE_LOOKUP, &force_lookup));
    const pm_pk_policy *y = &x->pk->policy;
    x->lookup = y->first_row || y->dv || y->changelog || force_lookup;
    x->lookup_merge = x->lookup && !y->first_row;
    if (x->lookup) {
        pm_merge_fn_options fo = {PM_MERGE_FULL, true};
        PM_TRY(pm_merge_fn_new(&x->mf_full, rt, pks, s->primary_keys.count, s->options, &fo));
    }
    PM_TRY(pm_pk_system_type(rt, &x->in_type));
    pm_str_list keys = {0};
    PM_TRY(pm_schema_trimmed_primary_keys(s, &keys));
    size_t nf = rt->nfields, nk = keys.count;
    size_t *kc = NULL, *vc = NULL, *sc = NULL;
    size_t nseq = 0;
    bool desc = false;
    const size_t *seqf = pm_merge_fn_seq_fields(x->mf, &nseq, &desc);
    pm_error *e = pm_calloc(&kc, nk ? nk : 1, sizeof *kc);
    if (!e)
        e = pm_calloc(&vc, nf ? nf : 1, sizeof *vc);
    if (!e)
        e = pm_calloc(&sc, nseq ? nseq : 1, sizeof *sc);
    for (size_t k = 0; !e && k < nk; k++) {
        ptrdiff_t f = pm_type_field_index(rt, keys.items[k]);
        if (f < 0)
            e = pm_error_new(PM_EINVALID, "primary key '%s' is not a field of schema %lld", keys.items[k],
                             (long long)s->id);
        else
            kc[k] = 2 + (size_t)f;
    }
    for (size_t i = 0; !e && i < nf; i++)
        vc[i] = 2 + i;
    for (size_t i = 0; !e && i < nseq; i++)
        sc[i] = 2 + seqf[i];
    if (!e)
        e = pm_kv_layout_init(&x->in_layout, kc, nk, 0, 1, vc, nf);
    if (!e && nseq)
        e = pm_kv_layout_set_seq_fields(&x->in_layout, sc, nseq, desc);
    if (!e)
        e = pm_kv_layout_check(&x->in_layout, x->in_type);
    free(kc);
    free(vc);
    free(sc);
    pm_str_list_free(&keys);
    PM_TRY(e);
    PM_TRY(pm_pk_kv_type(s, &x->kv_type, &x->nkey));
    PM_TRY(pm_kv_layout_physical(&x->out_layout, x->nkey, nf));
    x->dedup = pm_merge_fn_kind(x->mf) == PM_ENGINE_DEDUPLICATE;
    x->skip_superseded = !x->task->output.keep_superseded; /* pk_superseded.c */
    return pm_options_bool(s->options, PM_OPT_IGNORE_DELETE, &x->ignore_delete);
}

static pm_error *setup(pm_pk_exec *x)
{
    PM_TRY(writer_schema(x));
    PM_TRY(merge_setup(x));
    PM_TRY(pm_pk_lookup_setup(x));
    PM_TRY(pm_pk_output_init(x));
    x->cp.enabled = x->task->output.page_passthrough; /* page copies (pk_page_copy.c) */
    x->cp.lazy = x->cp.enabled && !pm_fault("pk-lazy-pages-off"); /* lazy offers (pk_page_copy.c) */
    return pm_pk_changelog_init(x);
}

static pm_error *push_meta(pm_data_file_meta **arr, size_t *n, const pm_data_file_meta *m)
{
    PM_TRY(pm_realloc_array(arr, *n + 1, sizeof **arr));
    memset(&(*arr)[*n], 0, sizeof **arr);
    PM_TRY(pm_data_file_meta_copy(&(*arr)[*n], m));
    (*n)++;
    return NULL;
}

pm_error *pm_pk_record_before(pm_pk_exec *x, const pm_lsm_file *f) { return push_meta(&x->r->before, &x->r->nbefore, &f->meta); }

static pm_error *plain_upgrade(pm_pk_exec *x, const pm_lsm_file *f)
{
    PM_TRY(pm_pk_record_before(x, f));
    PM_TRY(push_meta(&x->r->after, &x->r->nafter, &f->meta));
    x->r->after[x->r->nafter - 1].level = x->pk->output_level;
    return NULL;
}

/* An UPGRADE step.  Tables that look up retained levels (first-row,
 * deletion vectors, lookup changelog, force-lookup) follow Java's
 * LookupMergeTreeCompactRewriter for level-0 files: a file whose format
 * differs from the output level's is rewritten; with deletion vectors a
 * file that may hold deletes is
 * rewritten (deletes dropped); at the max level, or for deduplicate
 * without sequence fields, the file is upgraded after a lookup pass (the
 * rows it replaces above are marked deleted); otherwise it is rewritten
 * through the lookup (keys already above must not be kept twice). */
static pm_error *upgrade(pm_pk_exec *x, const pm_lsm_file *f)
{
    if (x->cl.full && f->meta.level != x->max_level) {
        /* full-compaction changelog: a file moving to the max level holds
         * only new keys; its adds become +I events, the file is kept */
        const pm_lsm_file *one[1] = {f};
        pm_iv_run run = {1, one};
        pm_iv_section sec = {1, &run};
        PM_TRY(pm_pk_merge_section(x, &sec, false, false, NULL));
        return plain_upgrade(x, f);
    }
    if (!pm_pk_uses_lookup(x) || f->meta.level != 0 || x->pk->output_level == 0)
        return plain_upgrade(x, f);
    const pm_lsm_file *one[1] = {f};
    pm_iv_run run = {1, one};
    pm_iv_section sec = {1, &run};
    /* another file format at the output level (file.format.per.level) */
    const char *ext = strrchr(f->meta.file_name, '.');
    if (ext && strcmp(ext + 1, x->task->output.format))
        return pm_pk_rewrite(x, &sec, 1, x->pk->policy.dv);
    bool deletes = !f->meta.delete_row_count.has || f->meta.delete_row_count.v > 0;
    if (x->pk->policy.dv && deletes)
        return pm_pk_rewrite(x, &sec, 1, true);
    size_t nseq = 0;
    bool desc = false;
    pm_merge_fn_seq_fields(x->mf, &nseq, &desc);
    if (x->pk->output_level == x->max_level || (x->dedup && !nseq)) {
        /* a lookup pass: vectors mark what the file replaces, changelog */
        if ((x->pk->policy.dv && x->lk.levels) || x->pk->policy.changelog)
            PM_TRY(pm_pk_merge_section(x, &sec, true, false, NULL));
        return plain_upgrade(x, f);
    }
    return pm_pk_rewrite(x, &sec, 1, x->pk->policy.dv);
}

bool pm_pk_is_input(const pm_compact_task *task, const char *name)
{
    for (size_t i = 0; i < task->nfiles; i++)
        if (!strcmp(task->files[i].file_name, name))
            return true;
    return false;
}

/* The task's steps: a full compaction of a single max-level run rewrites
 * each file alone (pickFullCompaction's file rewrite, Java's
 * FileRewriteCompactTask); otherwise lsm/interval_partition.h turns the
 * inputs (in level order) into UPGRADE and REWRITE steps. */
static pm_error *run_steps(pm_pk_exec *x, pm_levels *lv)
{
    size_t nin = pm_levels_file_count(lv), k = 0;
    const pm_lsm_file **ptrs = NULL;
    PM_TRY(pm_calloc(&ptrs, nin ? nin : 1, sizeof *ptrs));
    for (int32_t lvl = 0; lvl < pm_levels_num_levels(lv); lvl++) {
        size_t n = 0;
        pm_lsm_file *const *files = pm_levels_files(lv, lvl, &n);
        for (size_t i = 0; i < n; i++)
            ptrs[k++] = files[i];
    }
    bool file_rewrite = x->pk->policy.pick == PM_PICK_FULL && x->pk->output_level == x->max_level;
    for (size_t i = 0; file_rewrite && i < k; i++)
        file_rewrite = ptrs[i]->meta.level == x->max_level;
    pm_error *e = NULL;
    pm_task_plan plan;
    memset(&plan, 0, sizeof plan);
    if (file_rewrite) {
        for (size_t i = 0; i < k && !e; i++) {
            const pm_lsm_file *one[1] = {ptrs[i]};
            pm_iv_run run = {1, one};
            pm_iv_section sec = {1, &run};
            e = pm_pk_rewrite(x, &sec, 1, x->pk->drop_delete);
        }
    } else {
        pm_task_options to = {x->pk->policy.min_file_size, x->pk->output_level, x->max_level,
                              x->pk->policy.force_rewrite_all, NULL, NULL};
        e = pm_compact_task_plan(ptrs, k, &to, &plan);
    }
    free(ptrs);
    for (size_t s = 0; s < plan.nsteps && !e; s++) {
        const pm_task_step *st = &plan.steps[s];
        if (st->kind == PM_STEP_UPGRADE)
            e = upgrade(x, st->file);
        else
            e = pm_pk_rewrite(x, st->sections, st->nsections, x->pk->drop_delete);
        if (!e && pm_fault("pk-execute-after-first-step"))
            e = pm_error_new(PM_EIO, "injected fault: pk-execute-after-first-step");
    }
    pm_task_plan_clear(&plan);
    return e;
}

static void exec_clear(pm_pk_exec *x)
{
    pm_options_free(x->wopts);
    free(x->dir);
    pm_type_free(x->in_type);
    pm_kv_layout_clear(&x->in_layout);
    pm_type_free(x->kv_type);
    pm_kv_layout_clear(&x->out_layout);
    pm_merge_fn_free(x->mf);
    pm_merge_fn_free(x->mf_full);
    pm_pk_spill_free(x->spill);
    pm_pk_output_clear(&x->o);
    pm_pk_lookup_clear(&x->lk);
    pm_pk_changelog_clear(&x->cl);
    pm_pk_dv_clear(&x->dv);
    pm_buf_free(&x->cp.page);
    pm_pk_copy_free(&x->cp);
    pm_codec_ctx_free(x->codec);
}

static void delete_new_outputs(pm_pk_exec *x)
{
    pm_compact_result *r = x->r;
    for (size_t i = 0; r && i < r->nchangelog; i++) {
        char *p = pm_path_join(x->dir, r->changelog[i].file_name);
        if (p)
            pm_error_free(pm_fileio_delete(x->t->fio, p));
        free(p);
    }
    for (size_t i = 0; r && i < r->nindex_added; i++) {
        char *p = NULL;
        if (!pm_index_file_path(x->t->paths, x->dir, &r->index_added[i].index_file, &p))
            pm_error_free(pm_fileio_delete(x->t->fio, p));
        free(p);
    }
    for (size_t i = 0; r && i < r->nafter; i++) {
        if (pm_pk_is_input(x->task, r->after[i].file_name))
            continue;
        char *p = pm_path_join(x->dir, r->after[i].file_name);
        if (p)
            pm_error_free(pm_fileio_delete(x->t->fio, p));
        free(p);
    }
}

pm_error *pm_pk_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget)
{
    *out = NULL;
    uint64_t t0 = pm_monotonic_ns();
    pm_pk_exec x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.task = task;
    x.pk = pm_pk_part(task->part);
    x.budget = memory_budget;
    /* the bucket's max level (captured at planning: files above the task's
     * inputs count too; no input above it, pk_mode.c) */
    x.max_level = x.pk->max_level;
    pm_type *key_type = NULL;
    pm_levels *lv = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_error_wrap(pm_table_schema_by_id(t, task->schema_id, &x.schema), 0, "schema %lld",
                                 (long long)task->schema_id), fail);
    if (!pm_schema_has_primary_key(x.schema)) {
        e = pm_error_new(PM_ECONFLICT, "compaction conflict, replan: schema %lld has no primary key",
                         (long long)task->schema_id);
        goto fail;
    }
    PM_TRY_GOTO(e, pm_compact_result_new_for_task(&x.r, task), fail);
    PM_TRY_GOTO(e, pm_codec_ctx_new(&x.codec), fail);
    /* before/after are what the steps do, not the task's inputs */
    pm_data_file_metas_free(x.r->before, x.r->nbefore);
    x.r->before = NULL;
    x.r->nbefore = 0;
    PM_TRY_GOTO(e, pm_table_bucket_dir(t, task->partition.data, task->partition.len, task->bucket, &x.dir), fail);
    PM_TRY_GOTO(e, setup(&x), fail);
    PM_TRY_GOTO(e, pm_schema_trimmed_primary_key_type(x.schema, &key_type), fail);
    PM_TRY_GOTO(e, pm_error_wrap(pm_levels_new(&lv, key_type, x.max_level + 1, task->files, task->nfiles), 0,
                                 "inputs of task %lld", (long long)task->task_index), fail);
    if (pm_pk_uses_lookup(&x) && x.pk->output_level < x.max_level)
        PM_TRY_GOTO(e, pm_pk_lookup_load(&x, key_type), fail);
    if (x.pk->policy.dv)
        PM_TRY_GOTO(e, pm_pk_dv_open(&x), fail);
    PM_TRY_GOTO(e, run_steps(&x, lv), fail);
    PM_TRY_GOTO(e, pm_pk_changelog_finish(&x), fail);
    if (x.dv.m)
        PM_TRY_GOTO(e, pm_pk_dv_finish(&x), fail);
    PM_TRY_GOTO(e, pm_pk_gi_maintain(&x), fail); /* source-backed global indexes (pk_global_index.h) */
    pm_levels_free(lv);
    pm_type_free(key_type);
    x.r->counters.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    *out = x.r;
    x.r = NULL;
    exec_clear(&x);
    return NULL;
fail:
    delete_new_outputs(&x);
    pm_levels_free(lv);
    pm_type_free(key_type);
    pm_compact_result_free(x.r);
    exec_clear(&x);
    return pm_error_wrap(e, 0, "compaction task %lld (plan %s)", (long long)task->task_index, task->plan_id);
}
