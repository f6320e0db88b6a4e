/*
 * compact/compact_values.c — ownership of the compaction values (plan,
 * task, result), deep copies, DataFileMeta equality (what the committer
 * uses to decide whether an input is still "the same file"), the commit
 * identifier of a subset of a plan, lookups in scans, pm_resources and
 * the fault-injection switch used by tests.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/mem.h"
#include "base/pool.h"
#include "compact/compact_internal.h"
#include "dv/dv_maintainer.h"
#include "meta/manifest.h"
#include "table/table_internal.h"

/* ------------------------------------------------------------------ */
/* small values                                                        */

void pm_compact_output_clear(pm_compact_output *o)
{
    free(o->format);
    free(o->compression);
    memset(o, 0, sizeof *o);
}

pm_error *pm_compact_output_copy(pm_compact_output *dst, const pm_compact_output *src)
{
    *dst = *src;
    dst->format = dst->compression = NULL;
    pm_error *e = pm_strdup(&dst->format, src->format);
    if (!e)
        e = pm_strdup(&dst->compression, src->compression);
    if (e)
        pm_compact_output_clear(dst);
    return e;
}

void pm_compact_dv_ref_clear(pm_compact_dv_ref *d)
{
    free(d->data_file);
    free(d->index_file);
    memset(d, 0, sizeof *d);
}

pm_error *pm_compact_dv_ref_copy(pm_compact_dv_ref *dst, const pm_compact_dv_ref *src)
{
    *dst = *src;
    dst->data_file = dst->index_file = NULL;
    pm_error *e = pm_strdup(&dst->data_file, src->data_file);
    if (!e)
        e = pm_strdup(&dst->index_file, src->index_file);
    if (e)
        pm_compact_dv_ref_clear(dst);
    return e;
}

void pm_compact_dv_refs_free(pm_compact_dv_ref *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_compact_dv_ref_clear(&d[i]);
    free(d);
}

static pm_error *dv_refs_copy(pm_compact_dv_ref **dst, const pm_compact_dv_ref *src, size_t n)
{
    *dst = NULL;
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(dst, n, sizeof **dst));
    for (size_t i = 0; i < n; i++) {
        pm_error *e = pm_compact_dv_ref_copy(&(*dst)[i], &src[i]);
        if (e) {
            pm_compact_dv_refs_free(*dst, i);
            *dst = NULL;
            return e;
        }
    }
    return NULL;
}

void pm_data_file_metas_free(pm_data_file_meta *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_data_file_meta_clear(&f[i]);
    free(f);
}

pm_error *pm_data_file_metas_copy(pm_data_file_meta **dst, const pm_data_file_meta *src, size_t n)
{
    *dst = NULL;
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(dst, n, sizeof **dst));
    for (size_t i = 0; i < n; i++) {
        pm_error *e = pm_data_file_meta_copy(&(*dst)[i], &src[i]);
        if (e) {
            pm_data_file_metas_free(*dst, i);
            *dst = NULL;
            return e;
        }
    }
    return NULL;
}

pm_error *pm_index_entries_copy(pm_index_manifest_entry **dst, const pm_index_manifest_entry *src, size_t n)
{
    *dst = NULL;
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(dst, n, sizeof **dst));
    for (size_t i = 0; i < n; i++) {
        pm_error *e = pm_index_manifest_entry_copy(&(*dst)[i], &src[i]);
        if (e) {
            pm_index_manifest_entries_free(*dst, i);
            *dst = NULL;
            return e;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* task, result, plan                                                  */

void pm_compact_task_free(pm_compact_task *t)
{
    if (!t)
        return;
    free(t->table_path);
    free(t->plan_id);
    free(t->commit_user);
    pm_bytes_clear(&t->partition);
    pm_compact_output_clear(&t->output);
    pm_data_file_metas_free(t->files, t->nfiles);
    pm_compact_dv_refs_free(t->dvs, t->ndvs);
    pm_index_manifest_entries_free(t->dv_index, t->ndv_index);
    pm_compact_part_free(t->part);
    free(t);
}

pm_error *pm_compact_task_copy(pm_compact_task **out, const pm_compact_task *src)
{
    *out = NULL;
    pm_compact_task *t;
    PM_TRY(pm_calloc(&t, 1, sizeof *t));
    t->task_index = src->task_index;
    t->snapshot_id = src->snapshot_id;
    t->schema_id = src->schema_id;
    t->mode = src->mode;
    t->full = src->full;
    t->bucket = src->bucket;
    t->total_buckets = src->total_buckets;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&t->table_path, src->table_path), fail);
    PM_TRY_GOTO(e, pm_strdup(&t->plan_id, src->plan_id), fail);
    PM_TRY_GOTO(e, pm_strdup(&t->commit_user, src->commit_user), fail);
    if (src->partition.has)
        PM_TRY_GOTO(e, pm_bytes_set(&t->partition, src->partition.data, src->partition.len), fail);
    PM_TRY_GOTO(e, pm_compact_output_copy(&t->output, &src->output), fail);
    PM_TRY_GOTO(e, pm_data_file_metas_copy(&t->files, src->files, src->nfiles), fail);
    t->nfiles = src->nfiles;
    PM_TRY_GOTO(e, dv_refs_copy(&t->dvs, src->dvs, src->ndvs), fail);
    t->ndvs = src->ndvs;
    PM_TRY_GOTO(e, pm_index_entries_copy(&t->dv_index, src->dv_index, src->ndv_index), fail);
    t->ndv_index = src->ndv_index;
    PM_TRY_GOTO(e, pm_compact_part_copy(&t->part, src->part), fail);
    *out = t;
    return NULL;
fail:
    pm_compact_task_free(t);
    return e;
}

void pm_compact_result_free(pm_compact_result *r)
{
    if (!r)
        return;
    free(r->plan_id);
    free(r->commit_user);
    free(r->table_path);
    pm_bytes_clear(&r->partition);
    pm_data_file_metas_free(r->before, r->nbefore);
    pm_data_file_metas_free(r->after, r->nafter);
    pm_data_file_metas_free(r->changelog, r->nchangelog);
    pm_compact_dv_refs_free(r->dvs, r->ndvs);
    pm_index_manifest_entries_free(r->index_added, r->nindex_added);
    pm_index_manifest_entries_free(r->index_removed, r->nindex_removed);
    pm_compact_part_free(r->part);
    free(r);
}

pm_error *pm_compact_result_new_for_task(pm_compact_result **out, const pm_compact_task *task)
{
    *out = NULL;
    pm_compact_result *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->counters.version = PM_COMPACT_COUNTERS_VERSION;
    r->task_index = task->task_index;
    r->snapshot_id = task->snapshot_id;
    r->schema_id = task->schema_id;
    r->bucket = task->bucket;
    r->total_buckets = task->total_buckets;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&r->plan_id, task->plan_id), fail);
    PM_TRY_GOTO(e, pm_strdup(&r->commit_user, task->commit_user), fail);
    PM_TRY_GOTO(e, pm_strdup(&r->table_path, task->table_path), fail);
    if (task->partition.has)
        PM_TRY_GOTO(e, pm_bytes_set(&r->partition, task->partition.data, task->partition.len), fail);
    PM_TRY_GOTO(e, pm_data_file_metas_copy(&r->before, task->files, task->nfiles), fail);
    r->nbefore = task->nfiles;
    PM_TRY_GOTO(e, dv_refs_copy(&r->dvs, task->dvs, task->ndvs), fail);
    r->ndvs = task->ndvs;
    PM_TRY_GOTO(e, pm_compact_part_copy(&r->part, task->part), fail);
    *out = r;
    return NULL;
fail:
    pm_compact_result_free(r);
    return e;
}

pm_error *pm_compact_result_dv_rewrite(pm_compact_result *r, const pm_compact_task *task, pm_dv_maintainer *m)
{
    if (!pm_dv_maintainer_modified(m))
        return NULL;
    pm_index_manifest_entry added;
    bool written = false;
    PM_TRY(pm_dv_maintainer_write(m, &added, &written));
    if (!written)
        return NULL;
    pm_error *e = pm_calloc(&r->index_added, 1, sizeof *r->index_added);
    if (e) {
        pm_index_manifest_entry_clear(&added);
        return e;
    }
    r->index_added[0] = added;
    r->nindex_added = 1;
    if (!task->ndv_index)
        return NULL;
    PM_TRY(pm_index_entries_copy(&r->index_removed, task->dv_index, task->ndv_index));
    r->nindex_removed = task->ndv_index;
    for (size_t i = 0; i < r->nindex_removed; i++)
        r->index_removed[i].kind = PM_FILE_DELETE;
    return NULL;
}

void pm_compact_plan_free(pm_compact_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ntasks; i++)
        pm_compact_task_free(p->tasks[i]);
    free(p->tasks);
    free(p->table_path);
    free(p->plan_id);
    free(p->commit_user);
    pm_scan_result_free(p->scan);
    free(p);
}

int64_t pm_compact_plan_snapshot_id(const pm_compact_plan *p) { return p->snapshot_id; }
const char *pm_compact_plan_id(const pm_compact_plan *p) { return p->plan_id; }
const char *pm_compact_plan_commit_user(const pm_compact_plan *p) { return p->commit_user; }
size_t pm_compact_plan_task_count(const pm_compact_plan *p) { return p->ntasks; }

const pm_compact_task *pm_compact_plan_task(const pm_compact_plan *p, size_t i)
{
    return i < p->ntasks ? p->tasks[i] : NULL;
}
const char *pm_compact_plan_table_path(const pm_compact_plan *p) { return p->table_path; }

size_t pm_compact_task_index(const pm_compact_task *t) { return (size_t)t->task_index; }
const char *pm_compact_task_table_path(const pm_compact_task *t) { return t->table_path; }
const char *pm_compact_task_plan_id(const pm_compact_task *t) { return t->plan_id; }
int32_t pm_compact_task_bucket(const pm_compact_task *t) { return t->bucket; }
size_t pm_compact_task_file_count(const pm_compact_task *t) { return t->nfiles; }

size_t pm_compact_result_task_index(const pm_compact_result *r) { return (size_t)r->task_index; }
const char *pm_compact_result_table_path(const pm_compact_result *r) { return r->table_path; }
const char *pm_compact_result_plan_id(const pm_compact_result *r) { return r->plan_id; }
size_t pm_compact_result_files_before(const pm_compact_result *r) { return r->nbefore; }
size_t pm_compact_result_files_after(const pm_compact_result *r) { return r->nafter; }
size_t pm_compact_result_changelog_files(const pm_compact_result *r) { return r->nchangelog; }
size_t pm_compact_result_index_files_added(const pm_compact_result *r) { return r->nindex_added; }

pm_error *pm_compact_result_counters(const pm_compact_result *r, pm_compact_counters *out)
{
    if (!out || out->version < 1 || out->version > PM_COMPACT_COUNTERS_VERSION)
        return pm_error_new(PM_EINVALID, "pm_compact_counters.version %d is not supported (1..%d): initialize it "
                            "with PM_COMPACT_COUNTERS_INIT", out ? out->version : 0, PM_COMPACT_COUNTERS_VERSION);
    int v = out->version;
    *out = r->counters; /* version 1 knows every field */
    out->version = v;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* lookups in scans                                                    */

const pm_bucket_files *pm_compact_find_bucket(const pm_scan_result *sr, const pm_bytes *partition, int32_t bucket)
{
    for (size_t i = 0; i < sr->nbuckets; i++)
        if (sr->buckets[i].bucket == bucket && pm_compact_bytes_equal(&sr->buckets[i].partition, partition))
            return &sr->buckets[i];
    return NULL;
}

const pm_deletion_file *pm_compact_find_dv(const pm_bucket_files *bf, const char *name)
{
    for (size_t i = 0; i < bf->ndvs; i++)
        if (bf->dvs[i].data_file && !strcmp(bf->dvs[i].data_file, name))
            return &bf->dvs[i];
    return NULL;
}

const char *pm_compact_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

pm_error *pm_compact_manifest_list_entries(pm_table *t, const char *name,
                                           pm_error *(*fn)(void *ctx, const pm_manifest_entry *e), void *ctx)
{
    char *path = NULL;
    pm_manifest_file_meta *metas = NULL;
    size_t nmetas = 0;
    pm_error *e = pm_path_factory_manifest_path(t->paths, name, &path);
    if (!e)
        e = pm_manifest_list_read(t->fio, path, &metas, &nmetas);
    for (size_t i = 0; i < nmetas && !e; i++) {
        char *mp = NULL;
        pm_manifest_entry *en = NULL;
        size_t nen = 0;
        e = pm_path_factory_manifest_path(t->paths, metas[i].file_name, &mp);
        if (!e)
            e = pm_manifest_read(t->fio, mp, &en, &nen);
        for (size_t k = 0; k < nen && !e; k++)
            e = fn(ctx, &en[k]);
        pm_manifest_entries_free(en, nen);
        free(mp);
    }
    pm_manifest_file_metas_free(metas, nmetas);
    free(path);
    return e;
}

/* ------------------------------------------------------------------ */
/* equality                                                            */

bool pm_compact_bytes_equal(const pm_bytes *a, const pm_bytes *b)
{
    if (a->has != b->has)
        return false;
    if (!a->has)
        return true;
    return a->len == b->len && (a->len == 0 || !memcmp(a->data, b->data, a->len));
}

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static bool opt_long_eq(pm_opt_long a, pm_opt_long b)
{
    return a.has == b.has && (!a.has || a.v == b.v);
}

static bool str_list_eq(const pm_str_list *a, const pm_str_list *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++)
        if (!str_eq(a->items[i], b->items[i]))
            return false;
    return true;
}

static bool stats_eq(const pm_simple_stats *a, const pm_simple_stats *b)
{
    if (!pm_compact_bytes_equal(&a->min_values, &b->min_values) ||
        !pm_compact_bytes_equal(&a->max_values, &b->max_values))
        return false;
    if (a->has_null_counts != b->has_null_counts || a->null_count_len != b->null_count_len)
        return false;
    for (size_t i = 0; i < a->null_count_len; i++)
        if (!opt_long_eq(a->null_counts[i], b->null_counts[i]))
            return false;
    return true;
}

bool pm_data_file_meta_equal(const pm_data_file_meta *a, const pm_data_file_meta *b)
{
    if (!str_eq(a->file_name, b->file_name) || a->file_size != b->file_size || a->row_count != b->row_count)
        return false;
    if (!pm_compact_bytes_equal(&a->min_key, &b->min_key) || !pm_compact_bytes_equal(&a->max_key, &b->max_key))
        return false;
    if (!stats_eq(&a->key_stats, &b->key_stats) || !stats_eq(&a->value_stats, &b->value_stats))
        return false;
    if (a->min_sequence_number != b->min_sequence_number || a->max_sequence_number != b->max_sequence_number ||
        a->schema_id != b->schema_id || a->level != b->level)
        return false;
    if (!str_list_eq(&a->extra_files, &b->extra_files))
        return false;
    if (!opt_long_eq(a->creation_time, b->creation_time) || !opt_long_eq(a->delete_row_count, b->delete_row_count))
        return false;
    if (!pm_compact_bytes_equal(&a->embedded_index, &b->embedded_index))
        return false;
    if (a->file_source.has != b->file_source.has || (a->file_source.has && a->file_source.v != b->file_source.v))
        return false;
    if (a->has_value_stats_cols != b->has_value_stats_cols || !str_list_eq(&a->value_stats_cols, &b->value_stats_cols))
        return false;
    if (!str_eq(a->external_path, b->external_path) || !opt_long_eq(a->first_row_id, b->first_row_id))
        return false;
    if (a->has_write_cols != b->has_write_cols || !str_list_eq(&a->write_cols, &b->write_cols))
        return false;
    if (a->has_write_cols_sequences != b->has_write_cols_sequences ||
        a->write_cols_sequence_len != b->write_cols_sequence_len)
        return false;
    for (size_t i = 0; i < a->write_cols_sequence_len; i++)
        if (a->write_cols_sequences[i] != b->write_cols_sequences[i])
            return false;
    return true;
}

/* ------------------------------------------------------------------ */
/* commit identifier                                                   */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

int64_t pm_compact_commit_identifier(const char *plan_id, const int64_t *task_indexes, size_t n)
{
    int64_t stack[64];
    int64_t *idx = n <= 64 ? stack : malloc(n * sizeof *idx);
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv1a(h, plan_id, strlen(plan_id));
    if (idx) {
        memcpy(idx, task_indexes, n * sizeof *idx);
        qsort(idx, n, sizeof *idx, cmp_i64);
        for (size_t i = 0; i < n; i++) {
            uint8_t sep = ',';
            h = fnv1a(h, &sep, 1);
            uint64_t v = (uint64_t)idx[i];
            uint8_t le[8];
            for (int k = 0; k < 8; k++)
                le[k] = (uint8_t)(v >> (8 * k));
            h = fnv1a(h, le, sizeof le);
        }
        if (idx != stack)
            free(idx);
    } else {
        /* no memory for sorting: an order-independent sum still identifies the subset */
        uint64_t s = 0, x = 0;
        for (size_t i = 0; i < n; i++) {
            s += (uint64_t)task_indexes[i] * 0x9e3779b97f4a7c15ULL + 1;
            x ^= (uint64_t)task_indexes[i] * 0xc2b2ae3d27d4eb4fULL;
        }
        h = fnv1a(h, &s, sizeof s);
        h = fnv1a(h, &x, sizeof x);
    }
    /* final avalanche, then keep 62 bits: positive and never the batch identifier */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (int64_t)(h & 0x3fffffffffffffffULL) + 1;
}

/* ------------------------------------------------------------------ */
/* versioned out-structs                                               */

pm_error *pm_compact_metrics_check(const pm_compact_metrics *out)
{
    if (out && (out->version < 1 || out->version > PM_COMPACT_METRICS_VERSION))
        return pm_error_new(PM_EINVALID, "pm_compact_metrics.version %d is not supported (1..%d): initialize it "
                            "with PM_COMPACT_METRICS_INIT", out->version, PM_COMPACT_METRICS_VERSION);
    return NULL;
}

void pm_compact_metrics_put(pm_compact_metrics *out, const pm_compact_metrics *m)
{
    if (!out)
        return;
    int v = out->version;
    /* a version-1 struct ends before the changelog counts */
    size_t n = v == 1 ? offsetof(pm_compact_metrics, changelog_files_added) : sizeof *out;
    memcpy(out, m, n);
    out->version = v;
}

/* ------------------------------------------------------------------ */
/* resources                                                           */

pm_error *pm_resources_new(pm_resources **out, int64_t memory_budget_bytes, size_t threads)
{
    *out = NULL;
    if (memory_budget_bytes <= 0)
        return pm_error_new(PM_EINVALID, "memory budget must be positive, got %lld",
                            (long long)memory_budget_bytes);
    pm_resources *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->memory_budget = memory_budget_bytes;
    r->threads = threads;
    if (threads > 0) {
        pm_error *e = pm_pool_new(&r->pool, threads);
        if (e) {
            free(r);
            return e;
        }
    }
    *out = r;
    return NULL;
}

void pm_resources_free(pm_resources *r)
{
    if (!r)
        return;
    pm_pool_free(r->pool);
    free(r);
}

/* ------------------------------------------------------------------ */
/* fault injection (tests)                                             */

