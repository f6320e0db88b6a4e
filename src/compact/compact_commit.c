/*
 * compact/compact_commit.c — publishing compaction results as one COMPACT
 * snapshot, and abandoning results.
 *
 * Commit steps (include/paimon/compact.h):
 *   1. Reject, before touching the table (PM_EINVALID): results of
 *      different plans (plan id, captured snapshot, schema id, commit user
 *      differ), a result of another table, a result without its mode's
 *      part (the table's mode decides), a file name that is not a plain
 *      name or an external path outside the table's roots, duplicate task
 *      indexes, and one input file in two results (overlapping inputs).
 *   2. Identifier = pm_compact_commit_identifier(plan id, task indexes):
 *      the same subset gives the same identifier in any order, so a retry
 *      after a crash or PM_EUNCERTAIN finds the snapshot published before
 *      (pm_table_commit searches snapshots after the captured one only).
 *   3. One commit message per result: compact_before = inputs,
 *      compact_after = outputs, changelog = changelog files,
 *      index_removed / index_added = rewritten DV index files.
 *   4. pm_table_commit (kind COMPACT) with a validate hook run against the
 *      latest snapshot L on every attempt (L's live files: the plan's own
 *      scan when pm_compact_run planned and L is the planned snapshot,
 *      pm_compact_commit_scanned; else L is scanned):
 *        - no L, or L below the captured snapshot (rollback) → replan;
 *        - the table's latest schema id differs from the plan's → replan;
 *        - every input is live in L in its (partition, bucket) with
 *          identical metadata (all DataFileMeta fields) → else replan;
 *        - every input's deletion vector is the one the plan saw (same
 *          index file, offset, length) or still absent → else replan;
 *        - every DV index file a result replaces is still live → else
 *          replan;
 *        - no output (but an upgraded input), changelog file or added
 *          index file is live already (PM_EINVALID: a result's outputs
 *          are new files);
 *        - the mode's validate (primary keys: pk/pk_commit.c; data
 *          evolution: de/de_commit.c);
 *        - a mode with rebase_index (data evolution) skips the deletion-
 *          vector checks above: its hook computes the index changes from
 *          L on every attempt (table_commit.h index_rebase), and their
 *          files are deleted when the attempt does not publish.
 *      New files appended concurrently are not inspected: they commit
 *      alongside.  Every PM_ECONFLICT is reported with "replan".
 *   5. PM_EUNCERTAIN is passed on: the caller keeps the result files and
 *      retries.
 * Abort deletes only what a result of this table could have produced,
 * after checking every result first (nothing is deleted when one fails):
 *   - the result names this table; its file names are plain, its external
 *     paths lie under the table's roots and end in the file's name;
 *   - outputs (after, not an upgraded input) are named as the data-file
 *     namer names data files (`<data-file.prefix><uuid>-<n>.<ext>`),
 *     changelog files as changelog files (`<changelog-file.prefix>...`),
 *     added index files as index files (`index-<uuid>-<n>`);
 *   - none is referenced: outputs and added index files not live in the
 *     latest snapshot's bucket, changelog files not in the changelog of a
 *     snapshot after the plan's (a committed result is never destroyed).
 * Then each file is deleted from its bucket directory (index files: the
 * index directory, or the bucket directory with
 * index-file-in-data-file-dir) or its external path; every file that
 * could not be deleted is named.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/buf.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "meta/index_path.h"
#include "meta/manifest.h"
#include "meta/safe_path.h"
#include "meta/schema.h"
#include "meta/snapshot_store.h"
#include "table/partition.h"
#include "table/table_commit.h"
#include "table/table_internal.h"

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

/* Step 1 for one result: its table, its mode's part, its files. */
static pm_error *check_result(pm_table *t, const pm_compact_mode_ops *mode, const pm_compact_result *r, size_t i)
{
    char doc[32];
    snprintf(doc, sizeof doc, "results[%zu]", i);
    if (!r)
        return pm_error_new(PM_EINVALID, "%s is NULL", doc);
    if (!pm_compact_same_table(r->table_path, pm_table_path(t)))
        return pm_error_new(PM_EINVALID, "%s.table: the result of task %" PRId64 " belongs to table %s, not %s", doc,
                            r->task_index, r->table_path, pm_table_path(t));
    PM_TRY(pm_compact_part_expected(mode, r->part, doc));
    return pm_compact_result_check_files(r, doc, true, pm_compact_external_roots(t));
}

static pm_error *check_results(pm_table *t, const pm_compact_mode_ops *mode, pm_compact_result *const *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        PM_TRY(check_result(t, mode, r[i], i));
    for (size_t i = 0; i < n; i++) {
        const pm_compact_result *a = r[0], *b = r[i];
        if (strcmp(a->plan_id, b->plan_id) || a->snapshot_id != b->snapshot_id || a->schema_id != b->schema_id ||
            strcmp(a->commit_user, b->commit_user))
            return pm_error_new(PM_EINVALID, "results of different plans: task %" PRId64 " of plan %s and task %"
                                PRId64 " of plan %s cannot be committed together", a->task_index, a->plan_id,
                                b->task_index, b->plan_id);
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
    const pm_compact_mode_ops *mode;
    pm_compact_result *const *r;
    size_t n;
    void *state;                  /* the mode's validate state */
} validate_ctx;

static pm_error *conflict(const char *fmt_detail, const char *file, int64_t task, int64_t snap)
{
    return pm_error_new(PM_ECONFLICT, "compaction conflict, replan: %s %s of task %" PRId64
                        " changed after snapshot %" PRId64, fmt_detail, file, task, snap);
}

/* Every input is live with the metadata and deletion vector the plan saw;
 * every DV index file the result replaces is live. */
static pm_error *check_inputs(const pm_compact_result *r, const pm_bucket_files *bf, const fset *s, int64_t captured,
                              int64_t latest, bool dvs_rebased)
{
    for (size_t k = 0; k < r->nbefore; k++) {
        const pm_data_file_meta *want = &r->before[k];
        const fkey *f = fset_find(s, &r->partition, r->bucket, want->file_name);
        if (!f)
            return pm_error_wrap(conflict("input file", want->file_name, r->task_index, captured), 0,
                                 "input %s was removed or rewritten by a concurrent commit (now snapshot %" PRId64 ")",
                                 want->file_name, latest);
        if (!pm_data_file_meta_equal(f->value, want))
            return conflict("metadata of input file", want->file_name, r->task_index, captured);
        if (dvs_rebased)
            continue; /* the mode carries the latest vectors over (rebase_index) */
        /* deletion vector as planned */
        const pm_deletion_file *d = bf ? pm_compact_find_dv(bf, want->file_name) : NULL;
        const pm_compact_dv_ref *ref = NULL;
        for (size_t j = 0; j < r->ndvs; j++)
            if (!strcmp(r->dvs[j].data_file, want->file_name))
                ref = &r->dvs[j];
        bool same = (!d && !ref) || (d && ref && d->offset == ref->offset && d->length == ref->length &&
                                     !strcmp(pm_compact_base_name(d->index_path), ref->index_file));
        if (!same)
            return conflict("deletion vector of input file", want->file_name, r->task_index, captured);
    }
    for (size_t k = 0; k < r->nindex_removed; k++) {
        const pm_index_file_meta *rm = &r->index_removed[k].index_file;
        bool found = false;
        for (size_t j = 0; bf && j < bf->nindex_entries && !found; j++) {
            const pm_index_manifest_entry *ie = &bf->index_entries[j];
            found = ie->kind == PM_FILE_ADD && !strcmp(ie->index_file.file_name, rm->file_name);
        }
        if (!found)
            return conflict("deletion-vector index file", rm->file_name, r->task_index, captured);
    }
    return NULL;
}

static bool is_input(const pm_compact_result *r, const char *name);

/* A result's outputs are new files: no output (but an upgraded input),
 * changelog file or added index file is live already. */
static pm_error *check_outputs_new(const pm_compact_result *r, size_t i, const pm_bucket_files *bf, const fset *s)
{
    for (size_t k = 0; k < r->nafter; k++)
        if (!is_input(r, r->after[k].file_name) && fset_find(s, &r->partition, r->bucket, r->after[k].file_name))
            return pm_error_new(PM_EINVALID, "results[%zu].after[%zu].file_name: %s is a live file of the table, not "
                                "an output of the task", i, k, r->after[k].file_name);
    for (size_t k = 0; k < r->nchangelog; k++)
        if (fset_find(s, &r->partition, r->bucket, r->changelog[k].file_name))
            return pm_error_new(PM_EINVALID, "results[%zu].changelog[%zu].file_name: %s is a live data file of the "
                                "table", i, k, r->changelog[k].file_name);
    for (size_t k = 0; k < r->nindex_added; k++)
        for (size_t j = 0; bf && j < bf->nindex_entries; j++)
            if (!strcmp(bf->index_entries[j].index_file.file_name, r->index_added[k].index_file.file_name))
                return pm_error_new(PM_EINVALID, "results[%zu].index_added[%zu].file_name: %s is a live index file "
                                    "of the table", i, k, r->index_added[k].index_file.file_name);
    return NULL;
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
        const pm_bucket_files *bf = pm_compact_find_bucket(live, &r->partition, r->bucket);
        e = check_inputs(r, bf, &s, captured, latest->id, c->mode->rebase_index != NULL);
        if (!e)
            e = check_outputs_new(r, i, bf, &s);
    }
    fset_free(&s);
    if (!e && c->mode->validate)
        e = c->mode->validate(&c->state, c->t, c->r, c->n, live);
    return e;
}

/* The mode's per-attempt index changes (compact_mode.h rebase_index). */
static pm_error *rebase(void *arg, const pm_snapshot *latest, const pm_scan_result *live,
                        pm_index_manifest_entry **added, size_t *nadded, pm_index_manifest_entry **removed,
                        size_t *nremoved)
{
    (void)latest;
    validate_ctx *c = arg;
    return c->mode->rebase_index(c->t, c->r, c->n, live, added, nadded, removed, nremoved);
}

void pm_compact_delete_index_files(pm_table *t, const pm_index_manifest_entry *added, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *dir = NULL, *p = NULL;
        if (!pm_table_bucket_dir(t, added[i].partition.data, added[i].partition.len, added[i].bucket, &dir) &&
            !pm_index_file_path(t->paths, dir, &added[i].index_file, &p))
            pm_error_free(pm_fileio_delete(t->fio, p));
        free(p);
        free(dir);
    }
}

/* An attempt that did not publish: its rebased index files go. */
static void rebase_discard(void *arg, const pm_index_manifest_entry *added, size_t n)
{
    validate_ctx *c = arg;
    pm_compact_delete_index_files(c->t, added, n);
}

/* ------------------------------------------------------------------ */
/* commit                                                              */

pm_error *pm_compact_commit(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                            pm_compact_result *const *results, size_t n)
{
    return pm_compact_commit_scanned(out, t, commit_user, results, n, NULL);
}

pm_error *pm_compact_commit_scanned(pm_compact_metrics *out, pm_table *t, const char *commit_user,
                                    pm_compact_result *const *results, size_t n, const pm_scan_result *scan)
{
    PM_TRY(pm_compact_metrics_check(out));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_compact_metrics_put(out, &m);
    if (!n)
        return NULL;
    uint64_t t0 = pm_monotonic_ns();
    const pm_compact_mode_ops *mode = NULL;
    pm_error *ce = pm_compact_table_mode(t, &mode);
    if (!ce)
        ce = check_results(t, mode, results, n);
    PM_TRY(pm_error_wrap(ce, 0, "commit compaction of %s", pm_table_path(t)));
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
        m.changelog_files_added += (int64_t)r->nchangelog;
        for (size_t k = 0; k < r->nchangelog; k++) {
            m.changelog_rows_written += r->changelog[k].row_count;
            m.changelog_bytes_written += r->changelog[k].file_size;
        }
    }
    m.tasks = (int64_t)n;
    validate_ctx vc = {t, mode, results, n, NULL};
    pm_commit_options co;
    memset(&co, 0, sizeof co);
    co.commit_user = user;
    co.commit_identifier = pm_compact_commit_identifier(r0->plan_id, idx, n);
    co.kind = PM_COMMIT_COMPACT;
    co.since_snapshot_id = r0->snapshot_id;
    co.validate = validate;
    co.validate_arg = &vc;
    co.latest_scan = scan;
    if (mode->rebase_index) {
        co.index_rebase = rebase;
        co.index_discard = rebase_discard;
    }
    if (pm_fault("compact-commit-before-publish")) {
        e = pm_error_new(PM_EIO, "injected fault: compact-commit-before-publish");
        goto done;
    }
    e = pm_table_commit(t, &co, msgs, n, &m.snapshot_id);
    if (mode->validate_free)
        mode->validate_free(vc.state);
    if (e && pm_error_code(e) == PM_ECONFLICT && !strstr(pm_error_message(e), "replan"))
        e = pm_error_wrap(e, PM_ECONFLICT, "compaction conflict, replan");
    if (e && pm_error_code(e) == PM_EUNCERTAIN)
        e = pm_error_wrap(e, PM_EUNCERTAIN, "publication of the compaction is uncertain: keep the result files "
                                            "and retry the commit with the same commit user");
done:
    free(idx);
    free(msgs);
    m.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    if (e)
        return pm_error_wrap(e, 0, "commit compaction of %s", pm_table_path(t));
    pm_compact_metrics_put(out, &m);
    return NULL;
}


/* ------------------------------------------------------------------ */
/* abort                                                               */

/* "<uuid>-<n>" at s: the rest after it, or NULL. */
static const char *skip_uuid_count(const char *s)
{
    for (int i = 0; i < 36; i++) {
        char c = s[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (dash ? c != '-' : !hex)
            return NULL;
    }
    s += 36;
    if (*s++ != '-' || *s < '0' || *s > '9')
        return NULL;
    while (*s >= '0' && *s <= '9')
        s++;
    return s;
}

/* `<prefix><uuid>-<n>.[<compression>.]<parquet|avro>`: a name the data-file
 * namer (meta/paths.h) gives a data or changelog file. */
static bool writer_data_name(const char *name, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl))
        return false;
    const char *ext = skip_uuid_count(name + pl);
    if (!ext || *ext != '.')
        return false;
    const char *last = strrchr(ext, '.');
    if (strcmp(last, ".parquet") && strcmp(last, ".avro"))
        return false;
    if (last != ext) { /* one compression segment: ".zst" */
        for (const char *c = ext + 1; c < last; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
                return false;
    }
    return true;
}

/* `index-<uuid>-<n>` (pm_path_factory_new_index_file_name). */
static bool writer_index_name(const char *name)
{
    const char *rest = strncmp(name, "index-", 6) ? NULL : skip_uuid_count(name + 6);
    return rest && !*rest;
}

static bool is_input(const pm_compact_result *r, const char *name)
{
    for (size_t i = 0; i < r->nbefore; i++)
        if (!strcmp(r->before[i].file_name, name))
            return true;
    return false;
}

static bool live_data(const pm_bucket_files *bf, const char *name)
{
    for (size_t j = 0; bf && j < bf->nfiles; j++)
        if (!strcmp(bf->files[j].file_name, name))
            return true;
    return false;
}

static bool live_index(const pm_bucket_files *bf, const char *name)
{
    for (size_t j = 0; bf && j < bf->nindex_entries; j++)
        if (bf->index_entries[j].kind == PM_FILE_ADD && !strcmp(bf->index_entries[j].index_file.file_name, name))
            return true;
    return false;
}

/* An external path of a file to delete ends in the file's name. */
static pm_error *external_names_file(const char *doc, const char *field, size_t k, const char *path,
                                     const char *name)
{
    if (!path || !strcmp(pm_compact_base_name(path), name))
        return NULL;
    return pm_error_new(PM_EINVALID, "%s.%s[%zu].external_path: '%s' does not end in the file name '%s'", doc, field,
                        k, path, name);
}

typedef struct abort_names {
    const char *data_prefix;
    const char *changelog_prefix;
} abort_names;

/* Every file result r would delete could have come from our writers and
 * is not live in `live` (the latest snapshot). */
static pm_error *check_deletable(const pm_compact_result *r, const char *doc, const abort_names *an,
                                 const pm_scan_result *live)
{
    const pm_bucket_files *bf = live->snapshot ? pm_compact_find_bucket(live, &r->partition, r->bucket) : NULL;
    int64_t sid = live->snapshot ? live->snapshot->id : 0;
    for (size_t k = 0; k < r->nafter; k++) {
        const pm_data_file_meta *f = &r->after[k];
        if (is_input(r, f->file_name))
            continue; /* an upgraded input (primary keys): same file, new level */
        if (!writer_data_name(f->file_name, an->data_prefix))
            return pm_error_new(PM_EINVALID, "%s.after[%zu].file_name: '%s' is not a name the table's writers give "
                                "a data file (%s<uuid>-<n>.<format>)", doc, k, f->file_name, an->data_prefix);
        PM_TRY(external_names_file(doc, "after", k, f->external_path, f->file_name));
        if (live_data(bf, f->file_name))
            return pm_error_new(PM_EINVALID, "%s.after[%zu].file_name: the result of task %" PRId64 " was committed "
                                "(file %s is live in snapshot %" PRId64 "); nothing deleted", doc, k, r->task_index,
                                f->file_name, sid);
    }
    for (size_t k = 0; k < r->nchangelog; k++) {
        const pm_data_file_meta *f = &r->changelog[k];
        if (!writer_data_name(f->file_name, an->changelog_prefix))
            return pm_error_new(PM_EINVALID, "%s.changelog[%zu].file_name: '%s' is not a name the table's writers "
                                "give a changelog file (%s<uuid>-<n>.<format>)", doc, k, f->file_name,
                                an->changelog_prefix);
        PM_TRY(external_names_file(doc, "changelog", k, f->external_path, f->file_name));
    }
    for (size_t k = 0; k < r->nindex_added; k++) {
        const pm_index_file_meta *f = &r->index_added[k].index_file;
        if (!writer_index_name(f->file_name))
            return pm_error_new(PM_EINVALID, "%s.index_added[%zu].file_name: '%s' is not a name the table's writers "
                                "give an index file (index-<uuid>-<n>)", doc, k, f->file_name);
        PM_TRY(external_names_file(doc, "index_added", k, f->external_path, f->file_name));
        if (live_index(bf, f->file_name))
            return pm_error_new(PM_EINVALID, "%s.index_added[%zu].file_name: the result of task %" PRId64 " was "
                                "committed (index file %s is live in snapshot %" PRId64 "); nothing deleted", doc, k,
                                r->task_index, f->file_name, sid);
    }
    return NULL;
}

typedef struct changelog_ref {
    pm_compact_result *const *r;
    size_t n;
    int64_t snapshot_id;          /* being read */
    pm_error *found;              /* the refusal, naming the file */
} changelog_ref;

static pm_error *changelog_entry(void *ctx, const pm_manifest_entry *en)
{
    changelog_ref *c = ctx;
    for (size_t i = 0; i < c->n && !c->found; i++)
        for (size_t k = 0; c->r[i] && k < c->r[i]->nchangelog && !c->found; k++)
            if (!strcmp(c->r[i]->changelog[k].file_name, en->file.file_name))
                c->found = pm_error_new(PM_EINVALID, "results[%zu].changelog[%zu].file_name: the result of task %"
                                        PRId64 " was committed (changelog file %s belongs to snapshot %" PRId64
                                        "); nothing deleted", i, k, c->r[i]->task_index, en->file.file_name,
                                        c->snapshot_id);
    return NULL;
}

/* No changelog file of the results is in the changelog of a snapshot after
 * the earliest captured one (only there can a compaction's changelog be). */
static pm_error *check_changelogs(pm_table *t, pm_compact_result *const *r, size_t n, const pm_scan_result *live)
{
    int64_t since = INT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (r[i] && r[i]->nchangelog && r[i]->snapshot_id < since)
            since = r[i]->snapshot_id;
    if (since == INT64_MAX || !live->snapshot)
        return NULL;
    changelog_ref c = {r, n, 0, NULL};
    for (int64_t id = since + 1; id <= live->snapshot->id && !c.found; id++) {
        pm_snapshot *s = NULL;
        pm_error *e = pm_snapshot_store_load(t->snapshots, id, &s);
        if (e && pm_error_code(e) == PM_ENOTFOUND) {
            pm_error_free(e); /* expired */
            continue;
        }
        PM_TRY(e);
        c.snapshot_id = id;
        if (s->changelog_manifest_list)
            e = pm_compact_manifest_list_entries(t, s->changelog_manifest_list, changelog_entry, &c);
        pm_snapshot_free(s);
        PM_TRY(e);
    }
    return c.found;
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

/* Delete `path` (or the file under dir); remember it when that fails. */
static pm_error *delete_one(pm_table *t, const char *dir, const char *name, const char *external, pm_buf *failed,
                            size_t *nfailed)
{
    char *path = external ? strdup(pm_safe_path_local(external)) : dir ? pm_path_join(dir, name) : NULL;
    pm_error *fe = path ? pm_fileio_delete(t->fio, path) : pm_error_new(PM_EIO, "no path");
    pm_error *e = NULL;
    if (fe) {
        pm_error_free(fe);
        e = append_name(failed, nfailed, path ? path : name);
    }
    free(path);
    return e;
}

static pm_error *delete_result_files(pm_table *t, const pm_compact_result *r, pm_buf *failed, size_t *nfailed)
{
    char *dir = NULL;
    pm_error *de = pm_table_bucket_dir(t, r->partition.data, r->partition.len, r->bucket, &dir);
    pm_error_free(de);
    pm_error *e = NULL;
    for (size_t k = 0; k < r->nafter && !e; k++)
        if (!is_input(r, r->after[k].file_name))
            e = delete_one(t, dir, r->after[k].file_name, r->after[k].external_path, failed, nfailed);
    for (size_t k = 0; k < r->nchangelog && !e; k++)
        e = delete_one(t, dir, r->changelog[k].file_name, r->changelog[k].external_path, failed, nfailed);
    for (size_t k = 0; k < r->nindex_added && !e; k++) {
        const pm_index_file_meta *f = &r->index_added[k].index_file;
        char *path = NULL;
        pm_error *fe = pm_index_file_path(t->paths, dir, f, &path);
        if (!fe)
            fe = pm_fileio_delete(t->fio, path);
        if (fe) {
            pm_error_free(fe);
            e = append_name(failed, nfailed, path ? path : f->file_name);
        }
        free(path);
    }
    free(dir);
    return e;
}

pm_error *pm_compact_abort(pm_table *t, pm_compact_result *const *results, size_t n)
{
    if (!n)
        return NULL;
    abort_names an = {"data-", "changelog-"};
    const pm_options *o = pm_table_options(t);
    PM_TRY(pm_options_string(o, PM_OPT_DATA_FILE_PREFIX, &an.data_prefix));
    PM_TRY(pm_options_string(o, PM_OPT_CHANGELOG_FILE_PREFIX, &an.changelog_prefix));
    if (!an.data_prefix)
        an.data_prefix = "data-";
    if (!an.changelog_prefix)
        an.changelog_prefix = "changelog-";
    const char *roots = pm_compact_external_roots(t);
    for (size_t i = 0; i < n; i++) {
        const pm_compact_result *r = results[i];
        if (!r)
            continue;
        char doc[32];
        snprintf(doc, sizeof doc, "results[%zu]", i);
        if (!pm_compact_same_table(r->table_path, pm_table_path(t)))
            return pm_error_new(PM_EINVALID, "abort compaction: %s.table: the result of task %" PRId64 " belongs to "
                                "table %s, not %s; nothing deleted", doc, r->task_index, r->table_path,
                                pm_table_path(t));
        PM_TRY(pm_error_wrap(pm_compact_result_check_files(r, doc, true, roots), 0, "abort compaction"));
    }
    /* never delete what a snapshot references */
    pm_scan_result *live = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_TRY(pm_error_wrap(pm_table_scan(t, &so, &live), 0, "abort compaction: read the latest snapshot"));
    pm_buf failed = PM_BUF_INIT;
    size_t nfailed = 0;
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        char doc[32];
        snprintf(doc, sizeof doc, "results[%zu]", i);
        if (results[i])
            e = check_deletable(results[i], doc, &an, live);
    }
    if (!e)
        e = check_changelogs(t, results, n, live);
    if (e) {
        e = pm_error_wrap(e, 0, "abort compaction");
        goto out;
    }
    for (size_t i = 0; i < n && !e; i++)
        if (results[i])
            e = delete_result_files(t, results[i], &failed, &nfailed);
    if (!e && nfailed) {
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
