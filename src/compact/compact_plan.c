/*
 * compact/compact_plan.c — the builder and the mode-neutral planning loop.
 *
 * Builder: the table's compaction mode (pm_compact_table_mode), commit
 * user (given or random), partition filters (names must be partition
 * keys), the table's options with the dynamic options applied and
 * validated, the resources (borrowed; pm_compact_run makes its own when
 * there are none), progress callback and parallelism.
 *
 * Planning (nothing is written):
 *   1. the table's mode; its planner over the builder's options;
 *   2. capture the latest snapshot (or the builder's) with one scan
 *      (partition filters applied to manifests) and the table's schema id;
 *   3. for every (partition, bucket) of the scan the builder wants (all,
 *      the builder's one bucket, or the touched pairs of an automatic
 *      round): the mode's plan_bucket (a bounded pass: over the prefix of
 *      pm_compact_pending_prefix),
 *      which adds the bucket's tasks through pm_compact_task_new (identity,
 *      inputs, their deletion vectors, the DV index files rewritten) and
 *      pm_compact_plan_add_task.
 * A table without snapshot gives an empty plan with snapshot id 0.
 * Output settings of a level (pm_compact_output_for_level) are shared by
 * the modes.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/pool.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "meta/paths.h"
#include "meta/options.h"
#include "table/partition.h"

#define DV_INDEX_TYPE "DELETION_VECTORS"

/* ------------------------------------------------------------------ */
/* builder                                                             */

void pm_compact_options_init(pm_compact_options *o)
{
    pm_compact_options d = PM_COMPACT_OPTIONS_INIT;
    *o = d;
}

pm_error *pm_compact_builder_new(pm_compact_builder **out, pm_table *t, const pm_compact_options *o)
{
    *out = NULL;
    if (o && (o->version < 1 || o->version > PM_COMPACT_OPTIONS_VERSION))
        return pm_error_new(PM_EINVALID, "pm_compact_options.version %d is not 1..%d", o->version,
                            PM_COMPACT_OPTIONS_VERSION);
    bool v2 = o && o->version >= 2;
    if (v2 && o->has_bucket && o->bucket < 0)
        return pm_error_new(PM_EINVALID, "pm_compact_options.bucket %d is negative", (int)o->bucket);
    if (v2 && o->max_input_bytes < 0)
        return pm_error_new(PM_EINVALID, "pm_compact_options.max_input_bytes %lld is negative",
                            (long long)o->max_input_bytes);
    if (v2 && o->full && (o->max_input_files || o->max_input_bytes))
        return pm_error_new(PM_EINVALID, "a bounded pass (max_input_files, max_input_bytes) cannot be full");
    const pm_compact_mode_ops *mode;
    PM_TRY(pm_error_wrap(pm_compact_table_mode(t, &mode), 0, "compact table %s", pm_table_path(t)));
    pm_compact_builder *b;
    PM_TRY(pm_calloc(&b, 1, sizeof *b));
    b->table = t;
    pm_error *e = NULL;
    if (o && o->commit_user && *o->commit_user) {
        PM_TRY_GOTO(e, pm_strdup(&b->commit_user, o->commit_user), fail);
    } else {
        char uuid[37];
        PM_TRY_GOTO(e, pm_uuid(uuid), fail);
        PM_TRY_GOTO(e, pm_strdup(&b->commit_user, uuid), fail);
    }
    if (o && o->npartitions) {
        PM_TRY_GOTO(e, pm_calloc(&b->specs, o->npartitions, sizeof *b->specs), fail);
        for (size_t i = 0; i < o->npartitions; i++) {
            PM_TRY_GOTO(e, pm_error_wrap(pm_partition_spec_parse(o->partitions[i], &b->specs[i]), 0,
                                         "partition filter '%s'", o->partitions[i]), fail);
            b->nspecs = i + 1;
            /* names must be partition keys */
            const pm_str_list *pk = &pm_table_schema(t)->partition_keys;
            for (size_t k = 0; k < b->specs[i].count; k++) {
                bool found = false;
                for (size_t j = 0; j < pk->count && !found; j++)
                    found = !strcmp(pk->items[j], b->specs[i].keys[k]);
                if (!found) {
                    e = pm_error_new(PM_EINVALID, "partition filter '%s': '%s' is not a partition key",
                                     o->partitions[i], b->specs[i].keys[k]);
                    goto fail;
                }
            }
        }
    }
    b->full = o && o->full;
    PM_TRY_GOTO(e, pm_options_clone(pm_table_options(t), &b->opts), fail);
    for (size_t i = 0; o && i < o->ndynamic_options; i++) {
        const char *kv = o->dynamic_options[i];
        const char *eq = kv ? strchr(kv, '=') : NULL;
        if (!eq || eq == kv) {
            e = pm_error_new(PM_EINVALID, "dynamic option '%s' is not k=v", kv ? kv : "(null)");
            goto fail;
        }
        char key[256];
        if ((size_t)(eq - kv) >= sizeof key) {
            e = pm_error_new(PM_EINVALID, "dynamic option key too long: '%s'", kv);
            goto fail;
        }
        memcpy(key, kv, (size_t)(eq - kv));
        key[eq - kv] = 0;
        PM_TRY_GOTO(e, pm_options_set(b->opts, key, eq + 1), fail);
    }
    PM_TRY_GOTO(e, pm_error_wrap(pm_options_validate(b->opts), 0, "dynamic options"), fail);
    if (o) {
        b->resources = o->resources;
        b->progress = o->progress;
        b->progress_ctx = o->progress_ctx;
        b->parallelism = o->parallelism;
    }
    if (v2) {
        b->has_bucket = o->has_bucket;
        b->bucket = o->bucket;
        b->limits.max_files = o->max_input_files > INT64_MAX ? INT64_MAX : (int64_t)o->max_input_files;
        b->limits.max_bytes = o->max_input_bytes;
    }
    *out = b;
    return NULL;
fail:
    pm_compact_builder_free(b);
    return e;
}

void pm_compact_builder_set_triggers(pm_compact_builder *b, pm_compact_triggers *t)
{
    b->triggers = t;
    b->automatic = t != NULL;
}

void pm_compact_builder_free(pm_compact_builder *b)
{
    if (!b)
        return;
    free(b->commit_user);
    pm_options_free(b->opts);
    for (size_t i = 0; i < b->nspecs; i++)
        pm_partition_spec_clear(&b->specs[i]);
    free(b->specs);
    free(b);
}

/* ------------------------------------------------------------------ */
/* tasks                                                               */

pm_error *pm_compact_output_for_level(const pm_options *o, int32_t level, bool pk, pm_compact_output *out)
{
    memset(out, 0, sizeof *out);
    pm_error *e = pm_options_per_level(o, PM_OPT_FILE_FORMAT_PER_LEVEL, level, &out->format);
    if (!e && !out->format) {
        char buf[32];
        e = pm_options_file_format(o, buf, sizeof buf);
        if (!e)
            e = pm_strdup(&out->format, buf);
    }
    if (!e)
        for (char *c = out->format; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    if (!e && strcmp(out->format, "parquet") && strcmp(out->format, "avro") && strcmp(out->format, "orc"))
        e = pm_error_new(PM_EUNSUPPORTED, "compaction output format '%s' (level %d) is not supported (parquet, "
                         "avro, orc)", out->format, (int)level);
    if (!e)
        e = pm_options_per_level(o, PM_OPT_FILE_COMPRESSION_PER_LEVEL, level, &out->compression);
    if (!e && !out->compression) {
        const char *c = NULL;
        e = pm_options_string(o, PM_OPT_FILE_COMPRESSION, &c);
        if (!e)
            e = pm_strdup(&out->compression, c ? c : "zstd");
    }
    if (!e)
        e = pm_options_target_file_size(o, pk, &out->target_file_size);
    bool present = false;
    if (!e)
        e = pm_options_long(o, PM_OPT_TARGET_FILE_ROW_NUM, &present, &out->target_file_row_num);
    if (!e && !present)
        out->target_file_row_num = INT64_MAX;
    if (!e && (out->target_file_size <= 0 || out->target_file_row_num <= 0))
        e = pm_error_new(PM_EINVALID, "target-file-size and target-file-row-num must be positive");
    out->level = level;
    if (e)
        pm_compact_output_clear(out);
    return e;
}

static bool is_dv_index(const pm_index_manifest_entry *e)
{
    return e->kind == PM_FILE_ADD && e->index_file.index_type && !strcmp(e->index_file.index_type, DV_INDEX_TYPE);
}

/* The DV index entry ie is rewritten by t: whole bucket, or it holds an
 * input's vector. */
static bool rewrites_index(const pm_compact_task *t, const pm_index_manifest_entry *ie, bool whole_bucket)
{
    if (!is_dv_index(ie))
        return false;
    bool take = whole_bucket;
    for (size_t i = 0; i < t->ndvs && !take; i++)
        take = !strcmp(t->dvs[i].index_file, ie->index_file.file_name);
    return take;
}

static pm_error *add_dvs(pm_compact_task *t, const pm_bucket_files *bf, bool whole_bucket_index)
{
    size_t ndv = 0, nidx = 0;
    for (size_t i = 0; i < t->nfiles; i++)
        ndv += pm_compact_find_dv(bf, t->files[i].file_name) != NULL;
    if (ndv) {
        PM_TRY(pm_calloc(&t->dvs, ndv, sizeof *t->dvs));
        for (size_t i = 0; i < t->nfiles; i++) {
            const pm_deletion_file *d = pm_compact_find_dv(bf, t->files[i].file_name);
            if (!d)
                continue;
            pm_compact_dv_ref *r = &t->dvs[t->ndvs++];
            PM_TRY(pm_strdup(&r->data_file, t->files[i].file_name));
            PM_TRY(pm_strdup(&r->index_file, pm_compact_base_name(d->index_path)));
            r->offset = d->offset;
            r->length = d->length;
            r->cardinality = d->cardinality;
        }
    }
    for (size_t k = 0; k < bf->nindex_entries; k++)
        nidx += rewrites_index(t, &bf->index_entries[k], whole_bucket_index);
    if (!nidx)
        return NULL;
    PM_TRY(pm_calloc(&t->dv_index, nidx, sizeof *t->dv_index));
    for (size_t k = 0; k < bf->nindex_entries; k++) {
        if (!rewrites_index(t, &bf->index_entries[k], whole_bucket_index))
            continue;
        PM_TRY(pm_index_manifest_entry_copy(&t->dv_index[t->ndv_index], &bf->index_entries[k]));
        t->ndv_index++;
    }
    return NULL;
}

pm_error *pm_compact_task_new(pm_compact_task **out, const pm_compact_plan *p, const pm_compact_mode_ops *mode,
                              const pm_bucket_files *bf, const size_t *idx, size_t n, bool whole_bucket_index)
{
    *out = NULL;
    pm_compact_task *t;
    PM_TRY(pm_calloc(&t, 1, sizeof *t));
    pm_error *e = NULL;
    t->task_index = (int64_t)p->ntasks;
    t->snapshot_id = p->snapshot_id;
    t->schema_id = p->schema_id;
    t->mode = mode;
    t->full = p->full;
    t->bucket = bf->bucket;
    t->total_buckets = bf->total_buckets;
    PM_TRY_GOTO(e, pm_strdup(&t->table_path, p->table_path), fail);
    PM_TRY_GOTO(e, pm_strdup(&t->plan_id, p->plan_id), fail);
    PM_TRY_GOTO(e, pm_strdup(&t->commit_user, p->commit_user), fail);
    PM_TRY_GOTO(e, pm_bytes_set(&t->partition, bf->partition.data, bf->partition.len), fail);
    PM_TRY_GOTO(e, pm_calloc(&t->files, n ? n : 1, sizeof *t->files), fail);
    for (size_t i = 0; i < n; i++) {
        PM_TRY_GOTO(e, pm_data_file_meta_copy(&t->files[i], &bf->files[idx[i]]), fail);
        t->nfiles = i + 1;
    }
    PM_TRY_GOTO(e, add_dvs(t, bf, whole_bucket_index), fail);
    *out = t;
    return NULL;
fail:
    pm_compact_task_free(t);
    return e;
}

pm_error *pm_compact_plan_add_task(pm_compact_plan *p, pm_compact_task *t)
{
    pm_error *e = pm_realloc_array(&p->tasks, p->ntasks + 1, sizeof *p->tasks);
    if (e) {
        pm_compact_task_free(t);
        return e;
    }
    t->task_index = (int64_t)p->ntasks;
    p->tasks[p->ntasks++] = t;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* planning                                                            */

static bool wanted(const pm_compact_builder *b, const pm_bucket_files *bf)
{
    if (b->has_bucket && bf->bucket != b->bucket)
        return false;
    if (!b->only_partitions)
        return true;
    for (size_t i = 0; i < b->nonly; i++)
        if (b->only_buckets[i] == bf->bucket && pm_compact_bytes_equal(&b->only_partitions[i], &bf->partition))
            return true;
    return false;
}

static pm_error *new_plan(pm_compact_builder *b, pm_compact_plan **out)
{
    *out = NULL;
    pm_compact_plan *p = NULL;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pm_error *e = NULL;
    char uuid[37];
    PM_TRY_GOTO(e, pm_strdup(&p->table_path, pm_table_path(b->table)), fail);
    PM_TRY_GOTO(e, pm_strdup(&p->commit_user, b->commit_user), fail);
    PM_TRY_GOTO(e, pm_uuid(uuid), fail);
    PM_TRY_GOTO(e, pm_strdup(&p->plan_id, uuid), fail);
    p->full = b->full;
    p->schema_id = pm_table_schema(b->table)->id;
    *out = p;
    return NULL;
fail:
    pm_compact_plan_free(p);
    return e;
}

pm_error *pm_compact_plan_new(pm_compact_plan **out, pm_compact_builder *b)
{
    *out = NULL;
    pm_table *t = b->table;
    const pm_compact_mode_ops *mode = NULL;
    PM_TRY(pm_compact_table_mode(t, &mode));
    pm_compact_planner *pl = NULL;
    pm_compact_plan *p = NULL;
    pm_scan_result *scan = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, mode->planner_new(&pl, b), done);
    PM_TRY_GOTO(e, new_plan(b, &p), done);
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = b->only_snapshot_id;
    so.partitions = b->specs;
    so.npartitions = b->nspecs;
    if (b->has_bucket)
        so.bucket = b->bucket;
    PM_TRY_GOTO(e, pm_table_scan(t, &so, &scan), done);
    p->snapshot_id = scan->snapshot ? scan->snapshot->id : 0;
    for (size_t i = 0; scan->snapshot && i < scan->nbuckets && !e; i++) {
        const pm_bucket_files *bf = &scan->buckets[i];
        if (!wanted(b, bf))
            continue;
        if (bf->bucket < 0 && bf->bucket != PM_BUCKET_POSTPONE) /* postpone: the mode decides */
            e = pm_error_new(PM_EUNSUPPORTED, "bucket %d of the snapshot cannot be compacted", (int)bf->bucket);
        else
            e = mode->plan_bucket(pl, p, bf);
    }
    if (!e && !b->nspecs && !b->has_bucket) {
        p->scan = scan; /* for the commit (pm_compact_run_plan) */
        scan = NULL;
    }
done:
    pm_scan_result_free(scan);
    if (pl)
        mode->planner_free(pl);
    if (e) {
        pm_compact_plan_free(p);
        return pm_error_wrap(e, 0, "plan compaction of %s", pm_table_path(t));
    }
    *out = p;
    return NULL;
}
