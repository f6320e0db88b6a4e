/*
 * compact/compact_plan.c — the builder and the planner.
 *
 * Planning steps (nothing is written):
 *   1. Check the table mode (pm_compact_check_table): append tables with
 *      bucket = -1 (unaware) or bucket > 0 (ordered or unordered: both use
 *      the min-sequence window rule, as Java's BucketedAppendCompactManager
 *      does).  Primary-key, data-evolution, row-tracking, blob, postpone
 *      bucket and incremental-clustering tables are PM_EUNSUPPORTED naming
 *      the mode.
 *   2. Capture the latest snapshot with one scan (partition filter applied
 *      to manifests) and the table's schema id.
 *   3. Per (partition, bucket) of the scan: file infos (size, rows, min
 *      sequence, deletion vector and its index file) → compact_rules.h
 *      picker (unaware per partition, bucketed per bucket, or full) →
 *      groups.  With --full, a fixed bucket the full rule leaves alone
 *      falls back to the bucketed window rule (Java's normal round).
 *   4. Each group becomes a task: inputs in group order, their DV
 *      references, the DV index files the task rewrites (unaware: the index
 *      files holding the inputs' DVs; bucketed: every DV index file of the
 *      bucket), output settings (format and compression of level 0,
 *      target-file-size, target-file-row-num), ids.
 * Read-split options (source.split.target-size) are never consulted.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/pool.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "compact/append/append_rules.h"
#include "compact/pk/pk_compact.h"
#include "meta/options.h"
#include "table/partition.h"

#define DV_INDEX_TYPE "DELETION_VECTORS"

static pm_error *opt_bool_raw(const pm_options *o, const char *key, bool dflt, bool *out)
{
    const char *v = pm_options_get(o, key);
    *out = dflt;
    if (!v)
        return NULL;
    return pm_error_wrap(pm_parse_bool(v, out), PM_EINVALID, "option %s=%s", key, v);
}

pm_error *pm_compact_check_table(pm_table *t, pm_compact_mode *mode)
{
    const pm_options *o = pm_table_options(t);
    if (pm_table_has_primary_key(t)) {
        PM_TRY(pm_pk_check_table(t, o));
        *mode = PM_COMPACT_MODE_PK;
        return NULL;
    }
    bool b;
    PM_TRY(pm_options_bool(o, PM_OPT_DATA_EVOLUTION_ENABLED, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED,
                            "compaction of data-evolution tables (data-evolution.enabled=true) is not supported");
    PM_TRY(pm_options_bool(o, PM_OPT_ROW_TRACKING_ENABLED, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED,
                            "compaction of row-tracking tables (row-tracking.enabled=true) is not supported");
    const pm_type *rt = pm_table_schema(t)->row_type;
    for (size_t i = 0; i < rt->nfields; i++) {
        if (rt->fields[i].type->id == PM_TYPE_BLOB)
            return pm_error_new(PM_EUNSUPPORTED, "compaction of tables with blob columns ('%s') is not supported",
                                rt->fields[i].name);
        if (rt->fields[i].type->id == PM_TYPE_VARIANT)
            return pm_error_new(PM_EUNSUPPORTED, "compaction of tables with VARIANT columns ('%s') is not "
                                "supported", rt->fields[i].name);
    }
    /* outputs must be complete: no data-file indexes, no external data paths */
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i);
        size_t n = strlen(k);
        if (!strncmp(k, "file-index.", 11) && n > 8 && !strcmp(k + n - 8, ".columns"))
            return pm_error_new(PM_EUNSUPPORTED, "compaction of tables with data-file indexes (%s) is not "
                                "supported: the outputs would lack the index", k);
    }
    PM_TRY(pm_error_wrap(pm_path_factory_check_writable(t->paths), PM_EUNSUPPORTED, "compaction"));
    PM_TRY(opt_bool_raw(o, "clustering.incremental", false, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED,
                            "compaction of incremental-clustering tables (clustering.incremental=true) is not supported");
    int32_t nb = pm_table_num_buckets(t);
    if (nb == -1) {
        *mode = PM_COMPACT_MODE_UNAWARE;
    } else if (nb > 0) {
        PM_TRY(opt_bool_raw(o, "bucket-cluster.enabled", false, &b));
        if (b)
            return pm_error_new(PM_EUNSUPPORTED, "compaction of bucket-clustered tables is not supported");
        *mode = PM_COMPACT_MODE_BUCKETED;
    } else {
        return pm_error_new(PM_EUNSUPPORTED, "compaction of append tables with bucket=%d is not supported "
                                             "(bucket -1 or > 0)", (int)nb);
    }
    char fmt[32];
    PM_TRY(pm_options_file_format(o, fmt, sizeof fmt));
    return NULL;
}

/* ------------------------------------------------------------------ */
/* builder                                                             */

pm_error *pm_compact_builder_new(pm_compact_builder **out, pm_table *t, const pm_compact_options *o)
{
    *out = NULL;
    if (o && o->version != PM_COMPACT_OPTIONS_VERSION)
        return pm_error_new(PM_EINVALID, "pm_compact_options.version %d is not %d", o->version,
                            PM_COMPACT_OPTIONS_VERSION);
    pm_compact_mode mode;
    PM_TRY(pm_error_wrap(pm_compact_check_table(t, &mode), 0, "compact table %s", pm_table_path(t)));
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
    if (o && o->resources) {
        b->resources = o->resources;
    } else {
        size_t threads = pm_cpu_count();
        if (threads > 4)
            threads = 4;
        PM_TRY_GOTO(e, pm_resources_new(&b->owned_resources, 256LL << 20, threads), fail);
        b->resources = b->owned_resources;
    }
    *out = b;
    return NULL;
fail:
    pm_compact_builder_free(b);
    return e;
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
    pm_resources_free(b->owned_resources);
    free(b);
}

/* ------------------------------------------------------------------ */
/* planning                                                            */

typedef struct plan_ctx {
    pm_compact_builder *b;
    pm_table *t;
    pm_compact_mode mode;
    pm_compact_rules rules;
    pm_compact_output output;
    pm_compact_plan *plan;
    size_t cap;
    pm_pk_planner pk;             /* mode PM_COMPACT_MODE_PK */
} plan_ctx;

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

static pm_error *load_output(const pm_options *o, pm_compact_output *out)
{
    memset(out, 0, sizeof *out);
    char *fmt = NULL;
    PM_TRY(pm_options_per_level(o, PM_OPT_FILE_FORMAT_PER_LEVEL, 0, &fmt));
    if (!fmt) {
        char buf[32];
        PM_TRY(pm_options_file_format(o, buf, sizeof buf));
        PM_TRY(pm_strdup(&fmt, buf));
    } else {
        for (char *p = fmt; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    }
    out->format = fmt;
    if (strcmp(fmt, "parquet") && strcmp(fmt, "avro")) {
        pm_error *e = pm_error_new(PM_EUNSUPPORTED, "compaction output format '%s' is not supported "
                                                    "(parquet, avro)", fmt);
        pm_compact_output_clear(out);
        return e;
    }
    pm_error *e = pm_options_per_level(o, PM_OPT_FILE_COMPRESSION_PER_LEVEL, 0, &out->compression);
    if (!e && !out->compression) {
        const char *c;
        e = pm_options_string(o, PM_OPT_FILE_COMPRESSION, &c);
        if (!e)
            e = pm_strdup(&out->compression, c ? c : "zstd");
    }
    if (!e)
        e = pm_options_target_file_size(o, false, &out->target_file_size);
    bool present = false;
    if (!e)
        e = pm_options_long(o, PM_OPT_TARGET_FILE_ROW_NUM, &present, &out->target_file_row_num);
    if (!e && !present)
        out->target_file_row_num = INT64_MAX;
    if (!e && out->target_file_row_num <= 0)
        e = pm_error_new(PM_EINVALID, "target-file-row-num must be positive");
    out->level = 0;
    if (!e)
        e = opt_bool_raw(o, "compaction.parquet.row-group-passthrough", false, &out->rg_passthrough);
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

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const pm_deletion_file *find_dv(const pm_bucket_files *bf, const char *name)
{
    for (size_t i = 0; i < bf->ndvs; i++)
        if (bf->dvs[i].data_file && !strcmp(bf->dvs[i].data_file, name))
            return &bf->dvs[i];
    return NULL;
}

static bool is_dv_entry(const pm_index_manifest_entry *e)
{
    return e->kind == PM_FILE_ADD && e->index_file.index_type && !strcmp(e->index_file.index_type, DV_INDEX_TYPE);
}

static pm_error *add_task(plan_ctx *c, const pm_bucket_files *bf, const size_t *idx, size_t n)
{
    pm_compact_plan *p = c->plan;
    if (p->ntasks == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        PM_TRY(pm_realloc_array(&p->tasks, cap, sizeof *p->tasks));
        c->cap = cap;
    }
    pm_compact_task *t;
    PM_TRY(pm_calloc(&t, 1, sizeof *t));
    pm_error *e = NULL;
    t->task_index = (int64_t)p->ntasks;
    t->snapshot_id = p->snapshot_id;
    t->schema_id = p->schema_id;
    t->mode = c->mode;
    t->full = p->full;
    t->bucket = bf->bucket;
    t->total_buckets = bf->total_buckets;
    PM_TRY_GOTO(e, pm_strdup(&t->table_path, p->table_path), fail);
    PM_TRY_GOTO(e, pm_strdup(&t->plan_id, p->plan_id), fail);
    PM_TRY_GOTO(e, pm_strdup(&t->commit_user, p->commit_user), fail);
    PM_TRY_GOTO(e, pm_bytes_set(&t->partition, bf->partition.data, bf->partition.len), fail);
    PM_TRY_GOTO(e, pm_compact_output_copy(&t->output, &c->output), fail);
    PM_TRY_GOTO(e, pm_calloc(&t->files, n, sizeof *t->files), fail);
    for (size_t i = 0; i < n; i++) {
        PM_TRY_GOTO(e, pm_data_file_meta_copy(&t->files[i], &bf->files[idx[i]]), fail);
        t->nfiles = i + 1;
    }
    /* deletion vectors of the inputs */
    size_t ndv = 0;
    for (size_t i = 0; i < n; i++)
        ndv += find_dv(bf, t->files[i].file_name) != NULL;
    if (ndv) {
        PM_TRY_GOTO(e, pm_calloc(&t->dvs, ndv, sizeof *t->dvs), fail);
        for (size_t i = 0; i < n; i++) {
            const pm_deletion_file *d = find_dv(bf, t->files[i].file_name);
            if (!d)
                continue;
            pm_compact_dv_ref *r = &t->dvs[t->ndvs++];
            PM_TRY_GOTO(e, pm_strdup(&r->data_file, t->files[i].file_name), fail);
            PM_TRY_GOTO(e, pm_strdup(&r->index_file, base_name(d->index_path)), fail);
            r->offset = d->offset;
            r->length = d->length;
            r->cardinality = d->cardinality;
        }
    }
    /* DV index files the task rewrites */
    size_t nidx = 0;
    for (size_t k = 0; k < bf->nindex_entries; k++) {
        const pm_index_manifest_entry *ie = &bf->index_entries[k];
        if (!is_dv_entry(ie))
            continue;
        bool take = c->mode == PM_COMPACT_MODE_BUCKETED;
        for (size_t i = 0; i < t->ndvs && !take; i++)
            take = !strcmp(t->dvs[i].index_file, ie->index_file.file_name);
        nidx += take;
    }
    if (nidx) {
        PM_TRY_GOTO(e, pm_calloc(&t->dv_index, nidx, sizeof *t->dv_index), fail);
        for (size_t k = 0; k < bf->nindex_entries; k++) {
            const pm_index_manifest_entry *ie = &bf->index_entries[k];
            if (!is_dv_entry(ie))
                continue;
            bool take = c->mode == PM_COMPACT_MODE_BUCKETED;
            for (size_t i = 0; i < t->ndvs && !take; i++)
                take = !strcmp(t->dvs[i].index_file, ie->index_file.file_name);
            if (!take)
                continue;
            PM_TRY_GOTO(e, pm_index_manifest_entry_copy(&t->dv_index[t->ndv_index], ie), fail);
            t->ndv_index++;
        }
    }
    p->tasks[p->ntasks++] = t;
    return NULL;
fail:
    pm_compact_task_free(t);
    return e;
}

static bool wanted(const pm_compact_builder *b, const pm_bucket_files *bf)
{
    if (!b->only_partitions)
        return true;
    for (size_t i = 0; i < b->nonly; i++)
        if (b->only_buckets[i] == bf->bucket && pm_compact_bytes_equal(&b->only_partitions[i], &bf->partition))
            return true;
    return false;
}

static pm_error *plan_bucket(plan_ctx *c, const pm_bucket_files *bf)
{
    size_t n = bf->nfiles;
    if (!n)
        return NULL;
    pm_compact_file_info *fi;
    PM_TRY(pm_calloc(&fi, n, sizeof *fi));
    for (size_t i = 0; i < n; i++) {
        const pm_data_file_meta *f = &bf->files[i];
        fi[i].size = f->file_size;
        fi[i].rows = f->row_count;
        fi[i].min_seq = f->min_sequence_number;
        fi[i].name = f->file_name;
        const pm_deletion_file *d = find_dv(bf, f->file_name);
        if (d) {
            fi[i].has_dv = true;
            fi[i].dv_card_known = d->cardinality.has;
            fi[i].dv_card = d->cardinality.v;
            fi[i].dv_index = base_name(d->index_path);
        }
    }
    pm_compact_groups g = {0};
    pm_error *e;
    if (c->plan->full) {
        e = pm_compact_pick_full(fi, n, &c->rules, &g);
        /* A fixed bucket the full rule leaves alone still gets the normal
         * window rule, as Java's writer runs its normal round right after
         * (prepareCommit): --full never compacts less than a plain plan. */
        if (!e && !g.ngroups && c->mode == PM_COMPACT_MODE_BUCKETED)
            e = pm_compact_pick_bucketed(fi, n, &c->rules, &g);
    } else if (c->mode == PM_COMPACT_MODE_UNAWARE)
        e = pm_compact_pick_unaware(fi, n, &c->rules, &g);
    else
        e = pm_compact_pick_bucketed(fi, n, &c->rules, &g);
    for (size_t k = 0; !e && k < g.ngroups; k++) {
        size_t s = pm_compact_group_start(&g, k);
        e = add_task(c, bf, g.idx + s, g.end[k] - s);
    }
    pm_compact_groups_free(&g);
    free(fi);
    return e;
}

pm_error *pm_compact_plan_new(pm_compact_plan **out, pm_compact_builder *b)
{
    *out = NULL;
    pm_table *t = b->table;
    plan_ctx c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.t = t;
    PM_TRY(pm_compact_check_table(t, &c.mode));
    const pm_options *o = b->opts;
    if (c.mode == PM_COMPACT_MODE_PK) {
        PM_TRY(pm_error_wrap(pm_pk_planner_init(&c.pk, b), 0, "plan compaction of %s", pm_table_path(t)));
    } else {
        PM_TRY(load_rules(o, &c.rules));
        c.rules.single_window = c.mode == PM_COMPACT_MODE_BUCKETED && c.rules.dv_enabled;
        PM_TRY(load_output(o, &c.output));
    }

    pm_compact_plan *p = NULL;
    pm_scan_result *scan = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_calloc(&p, 1, sizeof *p), fail);
    c.plan = p;
    PM_TRY_GOTO(e, pm_strdup(&p->table_path, pm_table_path(t)), fail);
    PM_TRY_GOTO(e, pm_strdup(&p->commit_user, b->commit_user), fail);
    {
        char uuid[37];
        PM_TRY_GOTO(e, pm_uuid(uuid), fail);
        PM_TRY_GOTO(e, pm_strdup(&p->plan_id, uuid), fail);
    }
    p->full = b->full;
    p->schema_id = pm_table_schema(t)->id;

    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = b->only_snapshot_id;
    so.partitions = b->specs;
    so.npartitions = b->nspecs;
    PM_TRY_GOTO(e, pm_table_scan(t, &so, &scan), fail);
    if (!scan->snapshot) {
        pm_scan_result_free(scan);
        pm_compact_output_clear(&c.output);
        pm_pk_planner_clear(&c.pk);
        *out = p;
        return NULL;
    }
    p->snapshot_id = scan->snapshot->id;
    for (size_t i = 0; i < scan->nbuckets; i++) {
        const pm_bucket_files *bf = &scan->buckets[i];
        if (!wanted(b, bf))
            continue;
        if (bf->bucket < 0) {
            e = pm_error_new(PM_EUNSUPPORTED, "bucket %d of the snapshot cannot be compacted", (int)bf->bucket);
            goto fail;
        }
        if (c.mode == PM_COMPACT_MODE_PK)
            PM_TRY_GOTO(e, pm_pk_plan_bucket(&c.pk, p, bf), fail);
        else
            PM_TRY_GOTO(e, plan_bucket(&c, bf), fail);
    }
    pm_scan_result_free(scan);
    pm_compact_output_clear(&c.output);
    pm_pk_planner_clear(&c.pk);
    *out = p;
    return NULL;
fail:
    pm_scan_result_free(scan);
    pm_compact_output_clear(&c.output);
    pm_pk_planner_clear(&c.pk);
    pm_compact_plan_free(p);
    return pm_error_wrap(e, 0, "plan compaction of %s", pm_table_path(t));
}
