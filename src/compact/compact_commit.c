/*
 * compact/compact_commit.c — publishing compaction results as one COMPACT
 * snapshot, and abandoning results.
 *
 * Commit steps (include/paimon/compact.h):
 *   1. Reject, before touching the table: results of different plans (plan
 *      id, captured snapshot, schema id, commit user or table differ),
 *      duplicate task indexes, and one input file in two results
 *      (overlapping inputs) — PM_EINVALID.
 *   2. Identifier = pm_compact_commit_identifier(plan id, task indexes):
 *      the same subset gives the same identifier in any order, so a retry
 *      after a crash or PM_EUNCERTAIN finds the snapshot published before
 *      (pm_table_commit searches snapshots after the captured one only).
 *   3. One commit message per result: compact_before = inputs,
 *      compact_after = outputs, changelog = changelog files (primary keys,
 *      changelog-producer=lookup), index_removed / index_added = rewritten
 *      DV index files.
 *   4. pm_table_commit (kind COMPACT) with a validate hook run against the
 *      latest snapshot L on every attempt:
 *        - no L, or L below the captured snapshot (rollback) → replan;
 *        - the table's latest schema id differs from the plan's → replan;
 *        - every input is live in L in its (partition, bucket) with
 *          identical metadata (all DataFileMeta fields) → else replan;
 *        - every input's deletion vector is the one the plan saw (same
 *          index file, offset, length) or still absent → else replan;
 *        - every DV index file a result replaces is still live → else
 *          replan.
 *      New files appended concurrently are not inspected: they commit
 *      alongside.  Every PM_ECONFLICT is reported with "replan".
 *   5. PM_EUNCERTAIN is passed on: the caller keeps the result files and
 *      retries.
 * Abort: deletes each result's output files and added index files, after
 * checking that none of them is live in the latest snapshot (a committed
 * result is never destroyed); every file that could not be deleted is named.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "compact/pk_compact.h"
#include "meta/schema.h"
#include "table/partition.h"
#include "table/table_commit.h"

#define DV_INDEX_TYPE "DELETION_VECTORS"

/* ------------------------------------------------------------------ */
/* a set of (partition, bucket, file name)                             */

typedef struct fkey {
    const pm_bytes *partition;
    int32_t bucket;
    const char *name;
    const void *value;
} fkey;

typedef struct fset {
    fkey *slots;
    size_t cap, n;
} fset;

static uint64_t fkey_hash(const pm_bytes *p, int32_t bucket, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; p->has && i < p->len; i++)
        h = (h ^ p->data[i]) * 0x100000001b3ULL;
    h = (h ^ (uint32_t)bucket) * 0x100000001b3ULL;
    for (const char *s = name; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
    return h ^ (h >> 31);
}

static void fset_free(fset *s)
{
    free(s->slots);
    memset(s, 0, sizeof *s);
}

static fkey *fset_find(const fset *s, const pm_bytes *p, int32_t bucket, const char *name)
{
    if (!s->cap)
        return NULL;
    size_t i = (size_t)fkey_hash(p, bucket, name) & (s->cap - 1);
    for (;;) {
        fkey *k = &s->slots[i];
        if (!k->name)
            return NULL;
        if (k->bucket == bucket && !strcmp(k->name, name) && pm_compact_bytes_equal(k->partition, p))
            return k;
        i = (i + 1) & (s->cap - 1);
    }
}

static pm_error *fset_init(fset *s, size_t expected)
{
    size_t cap = 16;
    while (cap < expected * 2 + 2)
        cap *= 2;
    PM_TRY(pm_calloc(&s->slots, cap, sizeof *s->slots));
    s->cap = cap;
    s->n = 0;
    return NULL;
}

/* Insert; *dup = the existing entry when the key is present (not replaced). */
static void fset_put(fset *s, const pm_bytes *p, int32_t bucket, const char *name, const void *value,
                     const fkey **dup)
{
    *dup = NULL;
    size_t i = (size_t)fkey_hash(p, bucket, name) & (s->cap - 1);
    for (;;) {
        fkey *k = &s->slots[i];
        if (!k->name) {
            k->partition = p;
            k->bucket = bucket;
            k->name = name;
            k->value = value;
            s->n++;
            return;
        }
        if (k->bucket == bucket && !strcmp(k->name, name) && pm_compact_bytes_equal(k->partition, p)) {
            *dup = k;
            return;
        }
        i = (i + 1) & (s->cap - 1);
    }
}

/* ------------------------------------------------------------------ */
/* step 1                                                              */

static bool same_table(const char *a, const char *b)
{
    if (!strcmp(a, b))
        return true;
    char ra[PATH_MAX], rb[PATH_MAX];
    if (realpath(a, ra) && realpath(b, rb))
        return !strcmp(ra, rb);
    return false;
}

static pm_error *check_results(pm_table *t, pm_compact_result *const *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!r[i])
            return pm_error_new(PM_EINVALID, "result %zu is NULL", i);
        const pm_compact_result *a = r[0], *b = r[i];
        if (strcmp(a->plan_id, b->plan_id) || a->snapshot_id != b->snapshot_id || a->schema_id != b->schema_id ||
            strcmp(a->commit_user, b->commit_user))
            return pm_error_new(PM_EINVALID, "results of different plans: task %" PRId64 " of plan %s and task %"
                                PRId64 " of plan %s cannot be committed together", a->task_index, a->plan_id,
                                b->task_index, b->plan_id);
        if (!same_table(b->table_path, pm_table_path(t)))
            return pm_error_new(PM_EINVALID, "result of task %" PRId64 " belongs to table %s, not %s", b->task_index,
                                b->table_path, pm_table_path(t));
        for (size_t k = 0; k < i; k++)
            if (r[k]->task_index == b->task_index)
                return pm_error_new(PM_EINVALID, "duplicate result for task %" PRId64 " of plan %s", b->task_index,
                                    b->plan_id);
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += r[i]->nbefore;
    fset s = {0};
    PM_TRY(fset_init(&s, total));
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < r[i]->nbefore; k++) {
            const fkey *dup;
            fset_put(&s, &r[i]->partition, r[i]->bucket, r[i]->before[k].file_name, r[i], &dup);
            if (dup) {
                const pm_compact_result *o = dup->value;
                pm_error *e = pm_error_new(PM_EINVALID, "overlapping inputs: file %s is an input of task %" PRId64
                                           " and of task %" PRId64, r[i]->before[k].file_name, o->task_index,
                                           r[i]->task_index);
                fset_free(&s);
                return e;
            }
        }
    }
    fset_free(&s);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* validation against the latest snapshot                              */

typedef struct validate_ctx {
    pm_table *t;
    pm_compact_result *const *r;
    size_t n;
    pm_pk_commit_state *pk;       /* primary keys: recomputed selection (pk_commit.c) */
} validate_ctx;

static const pm_deletion_file *find_dv(const pm_bucket_files *bf, const char *name)
{
    for (size_t i = 0; i < bf->ndvs; i++)
        if (bf->dvs[i].data_file && !strcmp(bf->dvs[i].data_file, name))
            return &bf->dvs[i];
    return NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const pm_bucket_files *find_bucket(const pm_scan_result *live, const pm_bytes *p, int32_t bucket)
{
    for (size_t i = 0; i < live->nbuckets; i++)
        if (live->buckets[i].bucket == bucket && pm_compact_bytes_equal(&live->buckets[i].partition, p))
            return &live->buckets[i];
    return NULL;
}

static pm_error *conflict(const char *fmt_detail, const char *file, int64_t task, int64_t snap)
{
    return pm_error_new(PM_ECONFLICT, "compaction conflict, replan: %s %s of task %" PRId64
                        " changed after snapshot %" PRId64, fmt_detail, file, task, snap);
}

static pm_error *validate(void *arg, const pm_snapshot *latest, const pm_scan_result *live)
{
    validate_ctx *c = arg;
    const pm_compact_result *r0 = c->r[0];
    int64_t captured = r0->snapshot_id;
    if (!latest || latest->id < captured)
        return pm_error_new(PM_ECONFLICT, "compaction conflict, replan: the table was rolled back (latest snapshot %"
                            PRId64 " is below the plan's snapshot %" PRId64 ")", latest ? latest->id : 0, captured);
    int64_t *ids = NULL;
    size_t nids = 0;
    PM_TRY(pm_schema_list_ids(c->t->fio, c->t->branch_root, &ids, &nids));
    int64_t schema = nids ? ids[nids - 1] : -1;
    free(ids);
    if (schema != r0->schema_id)
        return pm_error_new(PM_ECONFLICT, "compaction conflict, replan: the table schema changed from %" PRId64
                            " to %" PRId64 " since the plan", r0->schema_id, schema);

    /* all live files of the touched buckets, by (partition, bucket, name) */
    size_t total = 0;
    for (size_t i = 0; i < live->nbuckets; i++)
        total += live->buckets[i].nfiles;
    fset s = {0};
    PM_TRY(fset_init(&s, total));
    for (size_t i = 0; i < live->nbuckets; i++) {
        const pm_bucket_files *bf = &live->buckets[i];
        for (size_t k = 0; k < bf->nfiles; k++) {
            const fkey *dup;
            fset_put(&s, &bf->partition, bf->bucket, bf->files[k].file_name, &bf->files[k], &dup);
        }
    }
    pm_error *e = NULL;
    for (size_t i = 0; i < c->n && !e; i++) {
        const pm_compact_result *r = c->r[i];
        const pm_bucket_files *bf = find_bucket(live, &r->partition, r->bucket);
        for (size_t k = 0; k < r->nbefore && !e; k++) {
            const pm_data_file_meta *want = &r->before[k];
            const fkey *f = fset_find(&s, &r->partition, r->bucket, want->file_name);
            if (!f) {
                e = conflict("input file", want->file_name, r->task_index, captured);
                e = pm_error_wrap(e, 0, "input %s was removed or rewritten by a concurrent commit (now snapshot %"
                                  PRId64 ")", want->file_name, latest->id);
                break;
            }
            if (!pm_data_file_meta_equal(f->value, want)) {
                e = conflict("metadata of input file", want->file_name, r->task_index, captured);
                break;
            }
            /* deletion vector as planned */
            const pm_deletion_file *d = bf ? find_dv(bf, want->file_name) : NULL;
            const pm_compact_dv_ref *ref = NULL;
            for (size_t j = 0; j < r->ndvs; j++)
                if (!strcmp(r->dvs[j].data_file, want->file_name))
                    ref = &r->dvs[j];
            bool same = (!d && !ref) || (d && ref && d->offset == ref->offset && d->length == ref->length &&
                                         !strcmp(base_name(d->index_path), ref->index_file));
            if (!same)
                e = conflict("deletion vector of input file", want->file_name, r->task_index, captured);
        }
        for (size_t k = 0; k < r->nindex_removed && !e; k++) {
            const pm_index_file_meta *rm = &r->index_removed[k].index_file;
            bool found = false;
            for (size_t j = 0; bf && j < bf->nindex_entries && !found; j++) {
                const pm_index_manifest_entry *ie = &bf->index_entries[j];
                found = ie->kind == PM_FILE_ADD && !strcmp(ie->index_file.file_name, rm->file_name);
            }
            if (!found)
                e = conflict("deletion-vector index file", rm->file_name, r->task_index, captured);
        }
    }
    fset_free(&s);
    if (!e && r0->pk)
        e = pm_pk_validate(&c->pk, c->t, c->r, c->n, live);
    return e;
}

/* ------------------------------------------------------------------ */
/* commit                                                              */

pm_error *pm_compact_commit(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                            pm_compact_result *const *results, size_t n)
{
    pm_compact_metrics m;
    memset(&m, 0, sizeof m);
    if (out)
        *out = m;
    if (!n)
        return NULL;
    uint64_t t0 = pm_monotonic_ns();
    PM_TRY(pm_error_wrap(check_results(t, results, n), 0, "commit compaction of %s", pm_table_path(t)));
    const pm_compact_result *r0 = results[0];
    const char *user = commit_user && *commit_user ? commit_user : r0->commit_user;

    int64_t *idx = NULL;
    pm_commit_message *msgs = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_calloc(&idx, n, sizeof *idx), done);
    PM_TRY_GOTO(e, pm_calloc(&msgs, n, sizeof *msgs), done);
    for (size_t i = 0; i < n; i++) {
        const pm_compact_result *r = results[i];
        idx[i] = r->task_index;
        /* the messages borrow the results' arrays: no copies */
        msgs[i].partition = r->partition;
        msgs[i].bucket = r->bucket;
        msgs[i].total_buckets = r->total_buckets;
        msgs[i].compact_before = r->before;
        msgs[i].n_compact_before = r->nbefore;
        msgs[i].compact_after = r->after;
        msgs[i].n_compact_after = r->nafter;
        msgs[i].changelog = r->changelog;
        msgs[i].n_changelog = r->nchangelog;
        msgs[i].index_added = r->index_added;
        msgs[i].n_index_added = r->nindex_added;
        msgs[i].index_removed = r->index_removed;
        msgs[i].n_index_removed = r->nindex_removed;
        m.files_removed += (int64_t)r->nbefore;
        m.files_added += (int64_t)r->nafter;
        m.rows_read += r->counters.rows_read;
        m.rows_written += r->counters.rows_written;
        m.bytes_read += r->counters.bytes_read;
        m.bytes_written += r->counters.bytes_written;
    }
    m.tasks = (int64_t)n;
    validate_ctx vc = {t, results, n, NULL};
    pm_commit_options co;
    memset(&co, 0, sizeof co);
    co.commit_user = user;
    co.commit_identifier = pm_compact_commit_identifier(r0->plan_id, idx, n);
    co.kind = PM_COMMIT_COMPACT;
    co.since_snapshot_id = r0->snapshot_id;
    co.validate = validate;
    co.validate_arg = &vc;
    if (pm_compact_fault("compact-commit-before-publish")) {
        e = pm_error_new(PM_EIO, "injected fault: compact-commit-before-publish");
        goto done;
    }
    e = pm_table_commit(t, &co, msgs, n, &m.snapshot_id);
    pm_pk_commit_state_free(vc.pk);
    if (e && pm_error_code(e) == PM_ECONFLICT && !strstr(pm_error_message(e), "replan"))
        e = pm_error_wrap(e, PM_ECONFLICT, "compaction conflict, replan");
    if (e && pm_error_code(e) == PM_EUNCERTAIN)
        e = pm_error_wrap(e, PM_EUNCERTAIN, "publication of the compaction is uncertain: keep the result files "
                                            "and retry the commit with the same commit user");
done:
    free(idx);
    free(msgs);
    m.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    if (out && !e)
        *out = m;
    return e ? pm_error_wrap(e, 0, "commit compaction of %s", pm_table_path(t)) : NULL;
}

/* ------------------------------------------------------------------ */
/* abort                                                               */

static pm_error *index_path(pm_table *t, const pm_compact_result *r, const pm_index_file_meta *f, char **out)
{
    *out = NULL;
    if (f->external_path)
        return pm_strdup(out, f->external_path);
    if (pm_path_factory_index_in_data_dir(t->paths)) {
        char *dir = NULL;
        PM_TRY(pm_table_bucket_dir(t, r->partition.data, r->partition.len, r->bucket, &dir));
        *out = pm_path_join(dir, f->file_name);
        free(dir);
        return *out ? NULL : pm_oom();
    }
    return pm_path_factory_index_path(t->paths, f->file_name, out);
}

static pm_error *append_name(pm_buf *b, size_t *count, const char *path)
{
    if (*count < 20) {
        PM_TRY(pm_buf_append_str(b, *count ? ", " : ""));
        PM_TRY(pm_buf_append_str(b, path));
    }
    (*count)++;
    return NULL;
}

static bool is_input(const pm_compact_result *r, const char *name)
{
    for (size_t i = 0; i < r->nbefore; i++)
        if (!strcmp(r->before[i].file_name, name))
            return true;
    return false;
}

pm_error *pm_compact_abort(pm_table *t, pm_compact_result *const *results, size_t n)
{
    if (!n)
        return NULL;
    /* never delete what a snapshot already references */
    pm_scan_result *live = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_TRY(pm_error_wrap(pm_table_scan(t, &so, &live), 0, "abort compaction: read the latest snapshot"));
    pm_buf failed = PM_BUF_INIT;
    size_t nfailed = 0;
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        const pm_compact_result *r = results[i];
        if (!r)
            continue;
        const pm_bucket_files *bf = live->snapshot ? find_bucket(live, &r->partition, r->bucket) : NULL;
        for (size_t k = 0; bf && k < r->nafter; k++)
            for (size_t j = 0; j < bf->nfiles && !is_input(r, r->after[k].file_name); j++)
                if (!strcmp(bf->files[j].file_name, r->after[k].file_name)) {
                    e = pm_error_new(PM_EINVALID, "abort: result of task %" PRId64 " was committed (file %s is "
                                     "live in snapshot %" PRId64 "); nothing deleted for it", r->task_index,
                                     r->after[k].file_name, live->snapshot->id);
                    goto out;
                }
    }
    for (size_t i = 0; i < n; i++) {
        const pm_compact_result *r = results[i];
        if (!r)
            continue;
        char *dir = NULL;
        pm_error *de = pm_table_bucket_dir(t, r->partition.data, r->partition.len, r->bucket, &dir);
        for (size_t k = 0; k < r->nafter; k++) {
            const pm_data_file_meta *f = &r->after[k];
            if (is_input(r, f->file_name))
                continue; /* an upgraded input (primary keys): same file, new level */
            char *path = f->external_path ? strdup(f->external_path) : dir ? pm_path_join(dir, f->file_name) : NULL;
            pm_error *fe = path ? pm_fileio_delete(t->fio, path) : pm_error_new(PM_EIO, "no path");
            if (fe) {
                pm_error_free(fe);
                PM_TRY_GOTO(e, append_name(&failed, &nfailed, path ? path : f->file_name), out);
            }
            free(path);
        }
        for (size_t k = 0; k < r->nchangelog; k++) {
            const pm_data_file_meta *f = &r->changelog[k];
            char *path = f->external_path ? strdup(f->external_path) : dir ? pm_path_join(dir, f->file_name) : NULL;
            pm_error *fe = path ? pm_fileio_delete(t->fio, path) : pm_error_new(PM_EIO, "no path");
            if (fe) {
                pm_error_free(fe);
                PM_TRY_GOTO(e, append_name(&failed, &nfailed, path ? path : f->file_name), out);
            }
            free(path);
        }
        pm_error_free(de);
        free(dir);
        for (size_t k = 0; k < r->nindex_added; k++) {
            char *path = NULL;
            pm_error *fe = index_path(t, r, &r->index_added[k].index_file, &path);
            if (!fe)
                fe = pm_fileio_delete(t->fio, path);
            if (fe) {
                pm_error_free(fe);
                PM_TRY_GOTO(e, append_name(&failed, &nfailed,
                                           path ? path : r->index_added[k].index_file.file_name), out);
            }
            free(path);
        }
    }
    if (nfailed) {
        const char *s = "";
        pm_error_free(pm_buf_cstr(&failed, &s));
        e = pm_error_new(PM_EIO, "abort compaction: could not delete %zu file(s): %s%s", nfailed, s,
                         nfailed > 20 ? ", ..." : "");
    }
out:
    pm_buf_free(&failed);
    pm_scan_result_free(live);
    return e;
}
