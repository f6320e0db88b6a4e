/*
 * compact/pk/changelog_producer.c — the changelog files a primary-key
 * compaction writes (pk_exec.h), for two producers:
 *   changelog-producer=lookup (Java's LookupChangelogMergeFunctionWrapper):
 *     for a key with level-0 records, the key's history (its freshest
 *     selected positive-level record, else the record looked up in the
 *     retained levels) is the before image of the merge result;
 *   changelog-producer=full-compaction (FullChangelogMergeFunctionWrapper),
 *     when the output is the max level: the key's record at the max level
 *     is the before image; a key without one gives +I.
 * Events (setChangelog): no live before → +I of the result (when live);
 * live before and a deleted result → -D of the before; both live → -U
 * before, +U result (none when changelog-producer.row-deduplicate finds
 * the compared values equal, ignoring ...row-deduplicate-ignore-fields;
 * no -U with changelog-producer.ignore-update-before; no -D with
 * changelog-producer.ignore-delete).  first-row: a newly accepted key's
 * first record, its kind kept.  Events go to one rolling changelog writer
 * per task (changelog file names, FileSource APPEND, the output level),
 * opened at the first event, in batches of PM_PK_OUT_ROWS.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"
#include "meta/options.h"

static pm_error *opt_bool(const pm_options *o, const char *key, bool *out)
{
    const char *v = pm_options_get(o, key);
    *out = false;
    return v ? pm_error_wrap(pm_parse_bool(v, out), PM_EINVALID, "option %s=%s", key, v) : NULL;
}

/* changelog-producer.row-deduplicate (+ -ignore-fields),
 * changelog-producer.ignore-update-before, changelog-producer.ignore-delete. */
static pm_error *read_options(pm_pk_exec *x)
{
    const pm_options *o = x->schema->options;
    PM_TRY(opt_bool(o, "changelog-producer.row-deduplicate", &x->cl.row_dedup));
    PM_TRY(opt_bool(o, "changelog-producer.ignore-update-before", &x->cl.ignore_ub));
    PM_TRY(opt_bool(o, "changelog-producer.ignore-delete", &x->cl.ignore_delete));
    const pm_type *rt = x->schema->row_type;
    PM_TRY(pm_calloc(&x->cl.compare, rt->nfields ? rt->nfields : 1, sizeof *x->cl.compare));
    for (size_t i = 0; i < rt->nfields; i++)
        x->cl.compare[i] = true;
    const char *ign = pm_options_get(o, "changelog-producer.row-deduplicate-ignore-fields");
    if (ign) {
        pm_str_list l = {0};
        PM_TRY(pm_parse_list(ign, &l));
        pm_error *e = NULL;
        for (size_t i = 0; i < l.count && !e; i++) {
            ptrdiff_t f = pm_type_field_index(rt, l.items[i]);
            if (f < 0)
                e = pm_error_new(PM_EINVALID, "changelog-producer.row-deduplicate-ignore-fields: '%s' is not a "
                                 "field", l.items[i]);
            else
                x->cl.compare[f] = false;
        }
        pm_str_list_free(&l);
        PM_TRY(e);
    }
    return NULL;
}

pm_error *pm_pk_changelog_init(pm_pk_exec *x)
{
    int producer = 0;
    PM_TRY(pm_options_enum(x->schema->options, PM_OPT_CHANGELOG_PRODUCER, &producer));
    x->cl.full = producer == PM_CHANGELOG_FULL_COMPACTION && x->pk->output_level == x->pk->max_level;
    if (!x->pk->policy.changelog && !x->cl.full)
        return NULL;
    PM_TRY(read_options(x));
    return pm_batch_new(&x->cl.one, x->kv_type);
}

void pm_pk_changelog_clear(pm_pk_changelog *cl)
{
    pm_pk_file_writer_abort(cl->w);
    pm_batch_free(cl->batch);
    pm_batch_free(cl->one);
    free(cl->compare);
    pm_buf_free(&cl->va);
    pm_buf_free(&cl->vb);
    memset(cl, 0, sizeof *cl);
}

/* ---- changelog (changelog-producer=lookup) ---- */

static pm_error *cl_drain(pm_pk_exec *x)
{
    if (!x->cl.n)
        return NULL;
    PM_TRY(pm_batch_finish(x->cl.batch, x->cl.n));
    PM_TRY(pm_pk_file_writer_write(x->cl.w, x->cl.batch));
    x->cl.n = 0;
    return pm_batch_reset(x->cl.batch);
}

static pm_error *cl_row(pm_pk_exec *x)
{
    if (!x->cl.w) {
        const pm_compact_task *task = x->task;
        pm_pk_file_writer_options co = {x->pk->output_level, PM_FILE_SOURCE_APPEND, true,
                                        task->output.target_file_size, task->output.target_file_row_num};
        PM_TRY(pm_pk_file_writer_new(&x->cl.w, x->t, x->schema, task->partition.data, task->partition.len,
                                     task->bucket, &co));
        PM_TRY(pm_batch_new(&x->cl.batch, x->kv_type));
    }
    return NULL;
}

static pm_error *cl_count(pm_pk_exec *x)
{
    if (++x->cl.n == PM_PK_OUT_ROWS)
        return cl_drain(x);
    return NULL;
}

/* Its key, sequence number and values. */
pm_error *pm_pk_changelog_rec(pm_pk_exec *x, const pm_kv_rec *rec, uint8_t kind)
{
    PM_TRY(cl_row(x));
    for (size_t i = 0; i < x->kv_type->nfields; i++) {
        pm_column *dst = x->cl.batch->columns[i];
        if (i == x->nkey + 1)
            PM_TRY(pm_column_append_i8(dst, (int8_t)kind));
        else
            PM_TRY(pm_column_append_from(dst, rec->batch->columns[x->o.src_col[i]], rec->row));
    }
    return cl_count(x);
}

pm_error *pm_pk_changelog_result(pm_pk_exec *x, pm_merge_fn *mf, uint8_t kind)
{
    PM_TRY(cl_row(x));
    PM_TRY(pm_merge_fn_emit(mf, x->cl.batch, &x->out_layout));
    pm_column *k = x->cl.batch->columns[x->nkey + 1];
    ((int8_t *)k->values.data)[k->length - 1] = (int8_t)kind;
    return cl_count(x);
}

/* Do the before record and the result image (row 0 of x->cl.one) carry
 * equal compared values? */
static pm_error *same_values(pm_pk_exec *x, const pm_kv_rec *before, bool *same)
{
    *same = true;
    const pm_type *rt = x->schema->row_type;
    for (size_t j = 0; j < rt->nfields && *same; j++) {
        if (!x->cl.compare[j])
            continue;
        pm_buf_clear(&x->cl.va);
        pm_buf_clear(&x->cl.vb);
        PM_TRY(pm_column_format_json(before->batch->columns[2 + j], before->row, &x->cl.va));
        PM_TRY(pm_column_format_json(x->cl.one->columns[x->nkey + 2 + j], 0, &x->cl.vb));
        *same = x->cl.va.len == x->cl.vb.len && !memcmp(x->cl.va.data, x->cl.vb.data, x->cl.va.len);
    }
    return NULL;
}

/* Java's LookupChangelogMergeFunctionWrapper.setChangelog: no live before
 * → +I of the result (when live); live before and a deleted result → -D
 * of the before; both live → -U before, +U result (none when
 * row-deduplicate finds equal values; no -U with ignore-update-before). */
pm_error *pm_pk_changelog_events(pm_pk_exec *x, pm_merge_fn *mf, const pm_kv_rec *before, const pm_merge_result *res)
{
    if (!before || !pm_pk_kind_is_add(before->kind)) {
        if (res->has && pm_pk_kind_is_add(res->kind))
            PM_TRY(pm_pk_changelog_result(x, mf, PM_KIND_INSERT));
        return NULL;
    }
    if (!res->has || !pm_pk_kind_is_add(res->kind)) {
        if (!x->cl.ignore_delete)
            PM_TRY(pm_pk_changelog_rec(x, before, PM_KIND_DELETE));
        return NULL;
    }
    PM_TRY(pm_batch_reset(x->cl.one));
    PM_TRY(pm_merge_fn_emit(mf, x->cl.one, &x->out_layout));
    bool same = false;
    if (x->cl.row_dedup)
        PM_TRY(same_values(x, before, &same));
    if (same)
        return NULL;
    if (!x->cl.ignore_ub)
        PM_TRY(pm_pk_changelog_rec(x, before, PM_KIND_UPDATE_BEFORE));
    PM_TRY(cl_row(x));
    for (size_t i = 0; i < x->kv_type->nfields; i++) {
        pm_column *dst = x->cl.batch->columns[i];
        if (i == x->nkey + 1)
            PM_TRY(pm_column_append_i8(dst, PM_KIND_UPDATE_AFTER));
        else
            PM_TRY(pm_column_append_from(dst, x->cl.one->columns[i], 0));
    }
    return cl_count(x);
}

pm_error *pm_pk_changelog_finish(pm_pk_exec *x)
{
    if (!x->cl.w)
        return NULL;
    PM_TRY(cl_drain(x));
    pm_data_file_meta *files = NULL;
    size_t n = 0;
    PM_TRY(pm_pk_file_writer_finish(x->cl.w, &files, &n));
    pm_pk_file_writer_free(x->cl.w);
    x->cl.w = NULL;
    x->r->changelog = files;
    x->r->nchangelog = n;
    return NULL;
}
