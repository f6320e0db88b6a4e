/*
 * table/table_commit.c — publish commit messages as one snapshot, the way
 * Paimon Java's FileStoreCommitImpl does (protocol in table_commit.h).
 *
 * One attempt (tryCommitOnce; try_once runs the steps below as
 * collect_changes, check_conflicts, write_files, build_snapshot, publish
 * over one `attempt` value):
 *   1. L = latest snapshot; its data manifests (base list + delta list).
 *   2. Delta entries in message order: new_files ADD, compact_before
 *      DELETE, compact_after ADD; OVERWRITE first adds a DELETE for every
 *      live file (bucket >= 0) of the overwritten partitions (all when no
 *      spec) and checks that new files belong to them.  Index changes:
 *      removed then added per message; OVERWRITE also removes the index
 *      files of the overwritten partitions.
 *   3. Conflicts: a DELETE whose file is not live in L → PM_ECONFLICT (L's
 *      manifests read one at a time, pm_manifest_keys_live; only OVERWRITE
 *      holds L's merged entries; with a validate or index hook, the hook's
 *      scan of L answers it, so L's manifests are read once); the caller's
 *      validate hook sees L and its live files (pm_table_scan, or the
 *      caller's latest_scan when it is a scan of L: not read at all).  The delta and changelog entries are
 *      views of the messages' (and L's) file metas, not copies; the delta is held as 32-byte references
 *      (delta_ref) whose entries are made one at a time as the manifest writer reads them (all at once only
 *      for row tracking and the manifest-by-manifest liveness check).
 *   4. Files: base manifests = L's data manifests after ManifestFileMerger
 *      (meta/manifest_file_merger.h: full or minor compaction); base list;
 *      delta manifests and delta list (written even when empty); changelog
 *      manifests + list when there are changelog files; an index manifest
 *      when index files change (combined per index type as
 *      IndexManifestFileHandler does), else L's is inherited.
 *   5. Snapshot L+1: schema id = latest schema on disk; record counts
 *      (total = L's + delta, delta = added − deleted rows); watermark and
 *      statistics (when its schema id is the latest) inherited;
 *      nextRowId = L's or 0 (row tracking: after the new files, below);
 *      no operation (Java core sets none); then
 *      publish-if-absent.  Lost race → delete this attempt's files, back
 *      off min(min-wait·2^n, max-wait) + up to 20 % jitter, go to 1.  An
 *      error while publishing is resolved by looking at snapshot-N: ours →
 *      success, absent → definite failure (files removed), unknown →
 *      PM_EUNCERTAIN (files kept).
 *
 * Row tracking (`row-tracking.enabled`, RowTrackingCommitUtils), on every
 * attempt after step 3, over the delta's ADD entries grouped by partition
 * (first appearance order): sequence numbers — min 0 → (N, N), else max 0
 * → (min, N), else kept (N = the new snapshot id); row IDs from L's
 * nextRowId (0 without): an APPEND file without first row ID whose
 * _WRITE_COLS lacks _ROW_ID gets the running start — a normal file then
 * advances it by its rows, a `.blob` file takes the running start of its
 * column since the last normal file; other files keep theirs.  The new
 * nextRowId is the final start.
 * Index rebase (the caller's index_rebase hook, data-evolution
 * compaction): after the validate hook, on every attempt, index changes
 * computed from L join the attempt's; the hook's added files are handed
 * to index_discard when the attempt is lost or fails.
 *
 * Test fault points (base/fault.h, PAIMON_FAULT_INJECT):
 * "commit-before-publish" (fail after the manifests are written, before
 * the snapshot) and "commit-after-publish" (report PM_EUNCERTAIN after a
 * successful publication).
 */
#include "table/table_commit.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/fault.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/util.h"
#include "meta/manifest.h"
#include "meta/manifest_file_merger.h"
#include "table/partition.h"
#include "types/binary_row.h"

/* ------------------------------------------------------------------ */
/* growable arrays of entries                                          */

typedef struct index_list {
    pm_index_manifest_entry *v;
    size_t n, cap;
} index_list;

static void index_list_free(index_list *l)
{
    pm_index_manifest_entries_free(l->v, l->n);
    memset(l, 0, sizeof *l);
}

static pm_error *index_list_push(index_list *l, const pm_index_manifest_entry *src, pm_file_kind kind)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        PM_TRY(pm_realloc_array(&l->v, cap, sizeof *l->v));
        l->cap = cap;
    }
    PM_TRY(pm_index_manifest_entry_copy(&l->v[l->n], src));
    l->v[l->n].kind = kind;
    l->n++;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* partition specs                                                     */

/* Does the serialized partition row match the overwrite specs (OR)?  The
 * matching rule is the read side's (table/partition.h). */
static pm_error *spec_match(pm_part_matcher *pm, const pm_bytes *part, bool *match)
{
    return pm_part_matcher_match(pm, part->data, part->len, match);
}

/* ------------------------------------------------------------------ */
/* one commit                                                          */

typedef struct commit_ctx {
    pm_table *t;
    const pm_commit_options *o;
    const pm_commit_message *msgs;
    size_t n;
    char *user;
    int64_t schema_id;          /* latest schema id on disk */
    /* files written by the current attempt (manifest directory names) */
    char **written;
    size_t nwritten, capwritten;
} commit_ctx;

static pm_error *remember(commit_ctx *c, const char *name)
{
    if (c->nwritten == c->capwritten) {
        size_t cap = c->capwritten ? c->capwritten * 2 : 16;
        PM_TRY(pm_realloc_array(&c->written, cap, sizeof *c->written));
        c->capwritten = cap;
    }
    PM_TRY(pm_strdup(&c->written[c->nwritten], name));
    c->nwritten++;
    return NULL;
}

static void forget_written(commit_ctx *c)
{
    for (size_t i = 0; i < c->nwritten; i++)
        free(c->written[i]);
    c->nwritten = 0;
}

static void delete_written(commit_ctx *c)
{
    for (size_t i = 0; i < c->nwritten; i++) {
        char *p = NULL;
        if (!pm_path_factory_manifest_path(c->t->paths, c->written[i], &p)) {
            pm_error *e = pm_fileio_delete(c->t->fio, p);
            if (e) {
                char *s = pm_error_format(e);
                pm_log(PM_LOG_WARN, "commit", "could not remove %s: %s", p, s ? s : "?");
                free(s);
                pm_error_free(e);
            }
        }
        free(p);
    }
    forget_written(c);
}

static pm_error *write_manifests(commit_ctx *c, const pm_manifest_entry *e, size_t n, pm_manifest_file_meta **metas,
                                 size_t *nmetas)
{
    PM_TRY(pm_manifest_write(c->t->fio, c->t->paths, pm_table_options(c->t), c->t->partition_type, c->schema_id,
                             e, n, metas, nmetas));
    for (size_t i = 0; i < *nmetas; i++)
        PM_TRY(remember(c, (*metas)[i].file_name));
    return NULL;
}

static pm_error *write_list(commit_ctx *c, const pm_manifest_file_meta *m, size_t n, char **name, int64_t *size)
{
    PM_TRY(pm_manifest_list_write(c->t->fio, c->t->paths, pm_table_options(c->t), m, n, name, size));
    return remember(c, *name);
}

/* ---- index manifest (IndexManifestFileHandler) ---- */

static bool str_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static bool part_eq(const pm_bytes *a, const pm_bytes *b)
{
    return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

static bool index_same_bucket(const pm_index_manifest_entry *a, const pm_index_manifest_entry *b)
{
    return a->bucket == b->bucket && part_eq(&a->partition, &b->partition) &&
           str_eq(a->index_file.index_type, b->index_file.index_type);
}

/* Combine L's index entries with the changes (per index type). */
static pm_error *combine_index(pm_table *t, const index_list *prev, const index_list *changes, index_list *out)
{
    bool unaware = pm_table_num_buckets(t) == -1 && !pm_table_has_primary_key(t);
    /* start from the previous entries, then apply deletes, then adds */
    for (size_t i = 0; i < prev->n; i++)
        PM_TRY(index_list_push(out, &prev->v[i], PM_FILE_ADD));
    for (int pass = 0; pass < 2; pass++) {
        pm_file_kind want = pass == 0 ? PM_FILE_DELETE : PM_FILE_ADD;
        for (size_t i = 0; i < changes->n; i++) {
            const pm_index_manifest_entry *ch = &changes->v[i];
            if (ch->kind != want)
                continue;
            const char *type = ch->index_file.index_type ? ch->index_file.index_type : "";
            bool hash = !strcmp(type, "HASH"), dv = !strcmp(type, "DELETION_VECTORS");
            bool bucketed = hash || (dv && !unaware); /* BucketedCombiner, else by file name */
            size_t k = 0;
            for (; k < out->n; k++) {
                if (bucketed ? index_same_bucket(&out->v[k], ch)
                             : str_eq(out->v[k].index_file.file_name, ch->index_file.file_name))
                    break;
            }
            if (want == PM_FILE_DELETE) {
                /* a write's HASH file replaces the one it read: another file
                 * (or none) means a concurrent writer changed the bucket's
                 * key assignment */
                if (hash && (k == out->n || !str_eq(out->v[k].index_file.file_name, ch->index_file.file_name)))
                    return pm_error_new(PM_ECONFLICT, "the HASH index of bucket %d changed concurrently (%s "
                                        "replaced by %s); write again", (int)ch->bucket, ch->index_file.file_name,
                                        k == out->n ? "nothing" : out->v[k].index_file.file_name);
                if (k == out->n) {
                    if (!bucketed && dv)
                        return pm_error_new(PM_ECONFLICT, "index file %s to delete does not exist",
                                            ch->index_file.file_name);
                    continue;
                }
                pm_index_manifest_entry_clear(&out->v[k]);
                memmove(&out->v[k], &out->v[k + 1], (out->n - k - 1) * sizeof *out->v);
                out->n--;
            } else {
                if (k < out->n) {
                    if (!bucketed && dv)
                        return pm_error_new(PM_ECONFLICT, "index file %s is already added",
                                            ch->index_file.file_name);
                    pm_index_manifest_entry_clear(&out->v[k]);
                    PM_TRY(pm_index_manifest_entry_copy(&out->v[k], ch));
                    out->v[k].kind = PM_FILE_ADD;
                } else {
                    PM_TRY(index_list_push(out, ch, PM_FILE_ADD));
                }
            }
        }
    }
    return NULL;
}

/* ---- statistics inheritance ---- */

static pm_error *stats_schema_id(pm_table *t, const char *name, int64_t *id, bool *found)
{
    *found = false;
    char *p = NULL;
    pm_buf b = PM_BUF_INIT;
    PM_TRY(pm_path_factory_stats_path(t->paths, name, &p));
    pm_error *e = pm_fileio_read_file(t->fio, p, &b);
    if (!e) {
        json_error_t je;
        json_t *j = json_loadb((const char *)b.data, b.len, 0, &je);
        json_t *v = j ? json_object_get(j, "schemaId") : NULL;
        if (json_is_integer(v)) {
            *id = json_integer_value(v);
            *found = true;
        } else {
            e = pm_error_new(PM_ECORRUPT, "statistics file %s has no schemaId", p);
        }
        json_decref(j);
    }
    pm_buf_free(&b);
    free(p);
    return e;
}

/* ---- the attempt ---- */

typedef enum { ATTEMPT_PUBLISHED, ATTEMPT_LOST, ATTEMPT_EMPTY } attempt_result;

static pm_error *latest_schema_id(pm_table *t, int64_t *out)
{
    int64_t *ids = NULL;
    size_t n = 0;
    PM_TRY(pm_schema_list_ids(t->fio, t->branch_root, &ids, &n));
    *out = n ? ids[n - 1] : t->schema->id;
    free(ids);
    return NULL;
}

/* L's merged entries are held only by OVERWRITE (its DELETEs); the check of
 * other DELETEs streams L's manifests (check_conflicts). */
static bool needs_live(const commit_ctx *c)
{
    return c->o->kind == PM_COMMIT_OVERWRITE;
}

/* The delta (step 2) as 32-byte views of the messages' (and L's) file
 * metas, not 448-byte entries: a compaction of 100,000 files commits
 * 100,000 DELETEs.  Entries are made one at a time where they are read
 * (delta_at: the manifest writer, the record counts); row tracking, which
 * changes the ADD entries' numbers, and the manifest-by-manifest liveness
 * check take `entries`, the entries made from all refs at once
 * (delta_materialize), which delta_at then hands out. */
typedef struct delta_ref {
    const pm_bytes *partition;
    const pm_data_file_meta *file;
    int32_t bucket, total_buckets;
    pm_file_kind kind;
} delta_ref;

typedef struct delta_list {
    delta_ref *v;
    size_t n, cap;
    pm_manifest_entry_list entries; /* empty, or views of all n refs */
} delta_list;

static pm_error *delta_reserve(delta_list *d, size_t extra)
{
    if (d->n + extra <= d->cap)
        return NULL;
    PM_TRY(pm_realloc_array(&d->v, d->n + extra, sizeof *d->v));
    d->cap = d->n + extra;
    return NULL;
}

static pm_error *delta_push(delta_list *d, pm_file_kind kind, const pm_bytes *partition, int32_t bucket,
                            int32_t total_buckets, const pm_data_file_meta *f)
{
    if (d->n == d->cap)
        PM_TRY(delta_reserve(d, d->cap ? d->cap : 16));
    d->v[d->n++] = (delta_ref){partition, f, bucket, total_buckets, kind};
    return NULL;
}

static void delta_view(const delta_ref *r, pm_manifest_entry *out)
{
    *out = (pm_manifest_entry){.kind = r->kind, .partition = *r->partition, .bucket = r->bucket,
                               .total_buckets = r->total_buckets, .file = *r->file};
}

static pm_error *delta_materialize(delta_list *d)
{
    if (d->entries.n == d->n)
        return NULL;
    PM_TRY(pm_manifest_entry_list_reserve(&d->entries, d->n));
    for (size_t i = 0; i < d->n; i++) {
        const delta_ref *r = &d->v[i];
        PM_TRY(pm_manifest_entry_list_push_view(&d->entries, r->kind, r->partition, r->bucket, r->total_buckets,
                                                r->file));
    }
    return NULL;
}

/* pm_manifest_entry_at_fn over a delta_list */
static const pm_manifest_entry *delta_at(void *arg, size_t i, pm_manifest_entry *scratch)
{
    const delta_list *d = arg;
    if (d->entries.n == d->n)
        return &d->entries.v[i];
    delta_view(&d->v[i], scratch);
    return scratch;
}

static pm_error *write_delta_manifests(commit_ctx *c, delta_list *d, pm_manifest_file_meta **metas, size_t *nmetas)
{
    PM_TRY(pm_manifest_write_each(c->t->fio, c->t->paths, pm_table_options(c->t), c->t->partition_type,
                                  c->schema_id, delta_at, d, d->n, metas, nmetas));
    for (size_t i = 0; i < *nmetas; i++)
        PM_TRY(remember(c, (*metas)[i].file_name));
    return NULL;
}

static void delta_free(delta_list *d)
{
    free(d->v);
    pm_manifest_entry_list_free(&d->entries);
    memset(d, 0, sizeof *d);
}

/* One attempt's state: what it read (L and its manifests), the changes it
 * derived and the files it wrote. */
typedef struct attempt {
    pm_snapshot *latest;
    pm_manifest_file_meta *base;    /* L's data manifests */
    size_t nbase;
    pm_manifest_entry *live;        /* L's merged entries (OVERWRITE only) */
    size_t nlive;
    pm_part_matcher *matcher;       /* OVERWRITE partition specs */
    delta_list delta;
    pm_manifest_entry_list changelog;
    index_list idx_changes;
    pm_scan_result *live_scan;      /* L's live files scanned here (for the hooks; NULL without hooks or L) */
    const pm_scan_result *live_view; /* L's live files: live_scan or the caller's latest_scan */
    pm_index_manifest_entry *rebased; /* the index_rebase hook's ADD entries (for index_discard) */
    size_t nrebased;
    int64_t next_row_id;            /* row tracking: nextRowId after this attempt's files */
    /* written files */
    char *base_list, *delta_list, *cl_list, *index_manifest;
    int64_t base_size, delta_size, cl_size;
} attempt;

static void attempt_free(attempt *a)
{
    pm_part_matcher_free(a->matcher);
    free(a->base_list);
    free(a->delta_list);
    free(a->cl_list);
    free(a->index_manifest);
    index_list_free(&a->idx_changes);
    delta_free(&a->delta);
    pm_manifest_entry_list_free(&a->changelog);
    pm_manifest_entries_free(a->live, a->nlive);
    pm_scan_result_free(a->live_scan);
    pm_index_manifest_entries_free(a->rebased, a->nrebased);
    pm_manifest_file_metas_free(a->base, a->nbase);
    pm_snapshot_free(a->latest);
}

static pm_error *read_index_manifest(pm_table *t, const char *name, index_list *out)
{
    char *p = NULL;
    PM_TRY(pm_path_factory_manifest_path(t->paths, name, &p));
    pm_error *e = pm_index_manifest_read(t->fio, p, &out->v, &out->n);
    out->cap = out->n;
    free(p);
    return e;
}

/* OVERWRITE: DELETE entries for the live files of the overwritten
 * partitions, and removals of their index files. */
static pm_error *overwrite_deletes(commit_ctx *c, attempt *a)
{
    pm_table *t = c->t;
    int32_t nb = pm_table_num_buckets(t);
    for (size_t i = 0; i < a->nlive; i++) {
        const pm_manifest_entry *l = &a->live[i];
        if (l->kind != PM_FILE_ADD || (nb != PM_BUCKET_POSTPONE && l->bucket < 0))
            continue;
        bool m = true;
        if (a->matcher)
            PM_TRY(spec_match(a->matcher, &l->partition, &m));
        if (m)
            PM_TRY(delta_push(&a->delta, PM_FILE_DELETE, &l->partition, l->bucket, l->total_buckets, &l->file));
    }
    if (!a->latest || !a->latest->index_manifest)
        return NULL;
    index_list prev = {0};
    pm_error *e = read_index_manifest(t, a->latest->index_manifest, &prev);
    for (size_t i = 0; i < prev.n && !e; i++) {
        bool m = true;
        if (a->matcher)
            e = spec_match(a->matcher, &prev.v[i].partition, &m);
        if (!e && m)
            e = index_list_push(&a->idx_changes, &prev.v[i], PM_FILE_DELETE);
    }
    index_list_free(&prev);
    return e;
}

/* Step 2: the delta, changelog and index changes of the messages. */
static pm_error *collect_changes(commit_ctx *c, attempt *a)
{
    const pm_commit_options *o = c->o;
    if (o->kind == PM_COMMIT_OVERWRITE)
        PM_TRY(overwrite_deletes(c, a));
    size_t ndelta = 0, nchangelog = 0;
    for (size_t i = 0; i < c->n; i++) {
        ndelta += c->msgs[i].n_new_files + c->msgs[i].n_compact_before + c->msgs[i].n_compact_after;
        nchangelog += c->msgs[i].n_changelog;
    }
    PM_TRY(delta_reserve(&a->delta, ndelta));
    PM_TRY(pm_manifest_entry_list_reserve(&a->changelog, nchangelog));
    for (size_t i = 0; i < c->n; i++) {
        const pm_commit_message *m = &c->msgs[i];
        const pm_bytes *part = &m->partition;
        for (size_t k = 0; k < m->n_new_files; k++) {
            if (o->kind == PM_COMMIT_OVERWRITE && a->matcher) {
                bool in;
                PM_TRY(spec_match(a->matcher, part, &in));
                if (!in)
                    return pm_error_new(PM_EINVALID, "file %s does not belong to the overwritten partitions",
                                        m->new_files[k].file_name);
            }
            PM_TRY(delta_push(&a->delta, PM_FILE_ADD, part, m->bucket, m->total_buckets, &m->new_files[k]));
        }
        for (size_t k = 0; k < m->n_compact_before; k++)
            PM_TRY(delta_push(&a->delta, PM_FILE_DELETE, part, m->bucket, m->total_buckets, &m->compact_before[k]));
        for (size_t k = 0; k < m->n_compact_after; k++)
            PM_TRY(delta_push(&a->delta, PM_FILE_ADD, part, m->bucket, m->total_buckets, &m->compact_after[k]));
        for (size_t k = 0; k < m->n_changelog; k++)
            PM_TRY(pm_manifest_entry_list_push_view(&a->changelog, PM_FILE_ADD, part, m->bucket, m->total_buckets,
                                               &m->changelog[k]));
        for (size_t k = 0; k < m->n_index_removed; k++)
            PM_TRY(index_list_push(&a->idx_changes, &m->index_removed[k], PM_FILE_DELETE));
        for (size_t k = 0; k < m->n_index_added; k++)
            PM_TRY(index_list_push(&a->idx_changes, &m->index_added[k], PM_FILE_ADD));
    }
    return NULL;
}

/* The identifier fields of a delta reference (pm_manifest_ident_set's key). */
static void ref_key(const void *item, const pm_bytes **p, int32_t *b, const pm_data_file_meta **f)
{
    const delta_ref *r = item;
    *p = r->partition;
    *b = r->bucket;
    *f = r->file;
}

/* live[i] = keys[i]'s identifier is a file of the scan (its live files). */
static pm_error *keys_live_in_scan(const pm_scan_result *sr, const delta_ref *keys, size_t nkeys, bool *live)
{
    memset(live, 0, nkeys * sizeof *live);
    pm_manifest_ident_set set = {.key = ref_key};
    pm_error *e = NULL;
    for (size_t i = 0; i < nkeys && !e; i++)
        e = pm_manifest_ident_set_add_item(&set, &keys[i]);
    /* live[] of the first key of each identifier while going through the scan */
    for (size_t b = 0; !e && b < sr->nbuckets; b++) {
        const pm_bucket_files *bf = &sr->buckets[b];
        for (size_t k = 0; k < bf->nfiles; k++) {
            const delta_ref *hit = pm_manifest_ident_set_find_file(&set, &bf->partition, bf->bucket, &bf->files[k]);
            if (hit)
                live[hit - keys] = true;
        }
    }
    for (size_t i = 0; i < nkeys && !e; i++)
        live[i] = live[(const delta_ref *)pm_manifest_ident_set_find_file(&set, keys[i].partition, keys[i].bucket,
                                                                          keys[i].file) - keys];
    pm_manifest_ident_set_free(&set);
    return e;
}

static bool same_name(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* The caller's scan is one of L made through this table handle: the same
 * snapshot (manifest lists and index manifest name the files: their names
 * are never reused), read in the schema this handle has for L, without
 * fallback branch.  The scan's borrowed pointers (its schema, its buckets'
 * table) are compared, never followed: a scan made through another handle
 * is not taken. */
static pm_error *scan_of(pm_table *t, const pm_scan_result *sr, const pm_snapshot *l, bool *same)
{
    *same = false;
    const pm_snapshot *s = sr->snapshot;
    if (!s || sr->fallback || s->id != l->id || !same_name(s->base_manifest_list, l->base_manifest_list) ||
        !same_name(s->delta_manifest_list, l->delta_manifest_list) || !same_name(s->index_manifest, l->index_manifest))
        return NULL;
    const pm_schema *schema = NULL;
    PM_TRY(pm_table_schema_by_id(t, l->schema_id, &schema));
    if (sr->schema != schema)
        return NULL;
    for (size_t i = 0; i < sr->nbuckets; i++)
        if (sr->buckets[i].table != t)
            return NULL;
    *same = true;
    return NULL;
}

/* Step 3: every DELETE must hit a live file of L; then the caller's hook.
 * When a hook needs L's live files (pm_table_scan, or the caller's scan
 * of L), the DELETEs are checked against that scan, so L's manifests are
 * read at most once. */
static pm_error *check_conflicts(commit_ctx *c, attempt *a)
{
    pm_manifest_ident_set live_set = {0};
    bool *hit = NULL; /* without a->live: hit[i] = delta entry i is a live file of L */
    pm_error *e = NULL;
    if (a->latest && (c->o->validate || c->o->index_rebase)) {
        bool same = false;
        if (c->o->latest_scan)
            PM_TRY(scan_of(c->t, c->o->latest_scan, a->latest, &same));
        if (same) {
            a->live_view = c->o->latest_scan;
        } else {
            pm_scan_options so = pm_scan_options_default();
            so.snapshot_id = a->latest->id;
            PM_TRY(pm_table_scan(c->t, &so, &a->live_scan));
            a->live_view = a->live_scan;
        }
    }
    for (size_t i = 0; i < a->nlive && !e; i++)
        if (a->live[i].kind == PM_FILE_ADD)
            e = pm_manifest_ident_set_add(&live_set, &a->live[i]);
    if (!e && !a->live && a->latest) {
        e = pm_calloc(&hit, a->delta.n ? a->delta.n : 1, sizeof *hit);
        if (!e && a->live_view)
            e = keys_live_in_scan(a->live_view, a->delta.v, a->delta.n, hit);
        else if (!e && !(e = delta_materialize(&a->delta)))
            e = pm_manifest_keys_live(c->t->fio, c->t->paths, a->base, a->nbase, a->delta.entries.v, a->delta.n,
                                      hit);
    }
    for (size_t i = 0; i < a->delta.n && !e; i++) {
        const delta_ref *d = &a->delta.v[i];
        bool is_live;
        if (hit) {
            is_live = hit[i];
        } else {
            pm_manifest_entry v;
            delta_view(d, &v);
            is_live = pm_manifest_ident_set_has(&live_set, &v);
        }
        if (d->kind == PM_FILE_DELETE && !is_live)
            e = pm_error_new(PM_ECONFLICT, "file %s (bucket %d) is not live in %s%lld; it was removed by a "
                             "concurrent commit", d->file->file_name, (int)d->bucket,
                             a->latest ? "snapshot " : "an empty table",
                             a->latest ? (long long)a->latest->id : 0LL);
    }
    pm_manifest_ident_set_free(&live_set);
    free(hit);
    if (e || (!c->o->validate && !c->o->index_rebase))
        return e;
    pm_scan_result empty = {0};
    if (c->o->validate)
        PM_TRY(c->o->validate(c->o->validate_arg, a->latest, a->live_view ? a->live_view : &empty));
    if (!c->o->index_rebase)
        return NULL;
    pm_index_manifest_entry *rm = NULL;
    size_t nrm = 0;
    PM_TRY(c->o->index_rebase(c->o->validate_arg, a->latest, a->live_view ? a->live_view : &empty, &a->rebased,
                              &a->nrebased, &rm, &nrm));
    for (size_t i = 0; i < nrm && !e; i++)
        e = index_list_push(&a->idx_changes, &rm[i], PM_FILE_DELETE);
    for (size_t i = 0; i < a->nrebased && !e; i++)
        e = index_list_push(&a->idx_changes, &a->rebased[i], PM_FILE_ADD);
    pm_index_manifest_entries_free(rm, nrm);
    return e;
}

/* ---- row tracking (RowTrackingCommitUtils) ---- */

static bool is_blob_name(const char *name)
{
    size_t n = strlen(name);
    return n >= 5 && !strcasecmp(name + n - 5, ".blob");
}

static bool lists_row_id(const pm_data_file_meta *f)
{
    for (size_t i = 0; f->has_write_cols && i < f->write_cols.count; i++)
        if (!strcmp(f->write_cols.items[i], PM_ROW_ID_NAME))
            return true;
    return false;
}

/* Stamp sequence numbers and assign first row IDs to the delta's ADD
 * entries (see top); a->next_row_id = the snapshot's nextRowId. */
static pm_error *assign_row_tracking(attempt *a, int64_t snapshot_id)
{
    int64_t start = a->latest && a->latest->next_row_id.has ? a->latest->next_row_id.v : 0;
    /* partitions in first-appearance order */
    PM_TRY(delta_materialize(&a->delta));
    pm_manifest_entry *v = a->delta.entries.v;
    size_t n = a->delta.n;
    bool *done = NULL;
    PM_TRY(pm_calloc(&done, n ? n : 1, sizeof *done));
    typedef struct { char *col; int64_t start; } blob_start;
    blob_start *bs = NULL;
    size_t nbs = 0;
    int64_t blob_default = start;
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        if (done[i])
            continue;
        for (size_t k = i; k < n && !e; k++) {
            pm_manifest_entry *en = &v[k];
            if (done[k] || en->partition.len != v[i].partition.len ||
                (en->partition.len && memcmp(en->partition.data, v[i].partition.data, en->partition.len)))
                continue;
            done[k] = true;
            if (en->kind != PM_FILE_ADD)
                continue;
            pm_data_file_meta *f = &en->file;
            if (f->min_sequence_number == 0) {
                f->min_sequence_number = snapshot_id;
                f->max_sequence_number = snapshot_id;
            } else if (f->max_sequence_number == 0) {
                f->max_sequence_number = snapshot_id;
            }
            if (!f->file_source.has) {
                e = pm_error_new(PM_EINVALID, "file %s of a row-tracking table has no file source", f->file_name);
                break;
            }
            if (f->file_source.v != PM_FILE_SOURCE_APPEND || f->first_row_id.has || lists_row_id(f))
                continue;
            if (is_blob_name(f->file_name)) {
                if (!f->has_write_cols || f->write_cols.count < 1) {
                    e = pm_error_new(PM_EINVALID, "blob file %s lists no column", f->file_name);
                    break;
                }
                size_t j = 0;
                while (j < nbs && strcmp(bs[j].col, f->write_cols.items[0]))
                    j++;
                if (j == nbs) {
                    e = pm_realloc_array(&bs, nbs + 1, sizeof *bs);
                    if (!e)
                        e = pm_strdup(&bs[nbs].col, f->write_cols.items[0]);
                    if (e)
                        break;
                    bs[nbs++].start = blob_default;
                }
                if (bs[j].start >= start) {
                    e = pm_error_new(PM_EINVALID, "blob file %s has no normal file before it in the commit",
                                     f->file_name);
                    break;
                }
                f->first_row_id = (pm_opt_long){true, bs[j].start};
                bs[j].start += f->row_count;
            } else {
                f->first_row_id = (pm_opt_long){true, start};
                blob_default = start;
                for (size_t j = 0; j < nbs; j++)
                    free(bs[j].col);
                nbs = 0;
                start += f->row_count;
            }
        }
    }
    for (size_t j = 0; j < nbs; j++)
        free(bs[j].col);
    free(bs);
    free(done);
    a->next_row_id = start;
    return e;
}

static pm_error *remember_cb(void *arg, const char *name) { return remember(arg, name); }

/* Step 4: base manifests (merged) and list, delta manifests and list,
 * changelog manifests and list, index manifest. */
static pm_error *write_files(commit_ctx *c, attempt *a)
{
    pm_table *t = c->t;
    pm_manifest_file_meta *merged = NULL, *dmetas = NULL, *cmetas = NULL;
    size_t nmerged = 0, ndmetas = 0, ncmetas = 0;
    index_list idx_prev = {0}, idx_new = {0};
    pm_manifest_merge_ctx mc = {t->fio, t->paths, pm_table_options(t), t->partition_type, c->schema_id,
                                remember_cb, c};
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_manifest_file_merger_merge(&mc, a->base, a->nbase, &merged, &nmerged), out);
    PM_TRY_GOTO(e, write_list(c, merged, nmerged, &a->base_list, &a->base_size), out);
    PM_TRY_GOTO(e, write_delta_manifests(c, &a->delta, &dmetas, &ndmetas), out);
    PM_TRY_GOTO(e, write_list(c, dmetas, ndmetas, &a->delta_list, &a->delta_size), out);
    if (a->changelog.n) {
        PM_TRY_GOTO(e, write_manifests(c, a->changelog.v, a->changelog.n, &cmetas, &ncmetas), out);
        PM_TRY_GOTO(e, write_list(c, cmetas, ncmetas, &a->cl_list, &a->cl_size), out);
    }
    const char *prev_index = a->latest ? a->latest->index_manifest : NULL;
    if (a->idx_changes.n) {
        if (prev_index)
            PM_TRY_GOTO(e, read_index_manifest(t, prev_index, &idx_prev), out);
        PM_TRY_GOTO(e, combine_index(t, &idx_prev, &a->idx_changes, &idx_new), out);
        int64_t isz;
        PM_TRY_GOTO(e, pm_index_manifest_write(t->fio, t->paths, pm_table_options(t), idx_new.v, idx_new.n,
                                               &a->index_manifest, &isz), out);
        PM_TRY_GOTO(e, remember(c, a->index_manifest), out);
    } else if (prev_index) {
        PM_TRY_GOTO(e, pm_strdup(&a->index_manifest, prev_index), out);
    }
out:
    index_list_free(&idx_prev);
    index_list_free(&idx_new);
    pm_manifest_file_metas_free(merged, nmerged);
    pm_manifest_file_metas_free(dmetas, ndmetas);
    pm_manifest_file_metas_free(cmetas, ncmetas);
    return e;
}

/* Step 5: snapshot L+1 over the written files (moved into it). */
static pm_error *build_snapshot(commit_ctx *c, attempt *a, pm_snapshot **out)
{
    const pm_snapshot *latest = a->latest;
    int64_t added = 0, deleted = 0, cl_rows = 0;
    for (size_t i = 0; i < a->delta.n; i++) {
        pm_manifest_entry scratch;
        const pm_manifest_entry *d = delta_at(&a->delta, i, &scratch);
        if (d->kind == PM_FILE_ADD)
            added += d->file.row_count;
        else
            deleted += d->file.row_count;
    }
    for (size_t i = 0; i < a->changelog.n; i++)
        cl_rows += a->changelog.v[i].file.row_count;
    pm_snapshot *snap = NULL;
    PM_TRY(pm_snapshot_new(&snap));
    pm_error *e = NULL;
    char uuid[37];
    PM_TRY_GOTO(e, pm_uuid(uuid), fail);
    PM_TRY_GOTO(e, pm_strdup(&snap->uuid, uuid), fail);
    snap->id = latest ? latest->id + 1 : 1;
    snap->schema_id = c->schema_id;
    snap->base_manifest_list = a->base_list;
    a->base_list = NULL;
    snap->base_manifest_list_size = (pm_opt_long){true, a->base_size};
    snap->delta_manifest_list = a->delta_list;
    a->delta_list = NULL;
    snap->delta_manifest_list_size = (pm_opt_long){true, a->delta_size};
    if (a->cl_list) {
        snap->changelog_manifest_list = a->cl_list;
        a->cl_list = NULL;
        snap->changelog_manifest_list_size = (pm_opt_long){true, a->cl_size};
        snap->changelog_record_count = (pm_opt_long){true, cl_rows};
    }
    snap->index_manifest = a->index_manifest;
    a->index_manifest = NULL;
    PM_TRY_GOTO(e, pm_strdup(&snap->commit_user, c->user), fail);
    snap->commit_identifier = c->o->commit_identifier;
    snap->commit_kind = c->o->kind;
    snap->time_millis = pm_now_millis();
    snap->delta_record_count = added - deleted;
    snap->total_record_count = (latest ? latest->total_record_count : 0) + snap->delta_record_count;
    if (latest && latest->watermark.has)
        snap->watermark = latest->watermark;
    if (latest && latest->statistics) {
        int64_t sid = 0;
        bool found = false;
        PM_TRY_GOTO(e, stats_schema_id(c->t, latest->statistics, &sid, &found), fail);
        if (found && sid == c->schema_id)
            PM_TRY_GOTO(e, pm_strdup(&snap->statistics, latest->statistics), fail);
    }
    snap->next_row_id = (pm_opt_long){true, a->next_row_id};
    snap->operation = PM_SNAPSHOT_OP_NONE;
    *out = snap;
    return NULL;
fail:
    pm_snapshot_free(snap);
    return e;
}

/* Publish-if-absent of snap.  A failing publication is resolved by looking
 * at snapshot-N: our bytes → committed; other bytes → a lost race; absent
 * → that error; unreadable → PM_EUNCERTAIN (every file kept). */
static pm_error *publish(commit_ctx *c, const pm_snapshot *snap, bool *committed)
{
    pm_table *t = c->t;
    *committed = false;
    pm_error *pe = pm_snapshot_store_commit(t->snapshots, snap, committed);
    if (!pe)
        return NULL;
    char *p = NULL;
    pm_buf have = PM_BUF_INIT, want = PM_BUF_INIT;
    bool exists = false;
    pm_error *e = NULL;
    pm_error *ce = pm_snapshot_store_path(t->snapshots, snap->id, &p);
    if (!ce)
        ce = pm_fileio_exists(t->fio, p, &exists);
    if (!ce && exists) {
        ce = pm_fileio_read_file(t->fio, p, &have);
        if (!ce)
            ce = pm_snapshot_to_json(snap, &want);
    }
    free(p);
    if (ce) {
        pm_error_free(ce);
        forget_written(c); /* outcome unknown: keep every file */
        e = pm_error_wrap(pe, PM_EUNCERTAIN, "snapshot %lld may or may not be published", (long long)snap->id);
    } else if (exists) {
        pm_error_free(pe);
        /* ours when the file holds our bytes, else somebody else's: a lost race */
        *committed = have.len == want.len && !memcmp(have.data, want.data, want.len);
    } else {
        e = pm_error_wrap(pe, 0, "publish snapshot %lld", (long long)snap->id);
    }
    pm_buf_free(&have);
    pm_buf_free(&want);
    return e;
}

static pm_error *try_once(commit_ctx *c, attempt_result *res, int64_t *snapshot_id)
{
    pm_table *t = c->t;
    const pm_commit_options *o = c->o;
    attempt a;
    memset(&a, 0, sizeof a);
    pm_snapshot *snap = NULL;
    bool published = false;
    pm_error *e = NULL;
    *res = ATTEMPT_EMPTY;

    /* 1. L, its manifests and (when needed) its live files */
    if (o->kind == PM_COMMIT_OVERWRITE && o->overwrite && o->noverwrite)
        PM_TRY_GOTO(e, pm_part_matcher_new(t, o->overwrite, o->noverwrite, &a.matcher), out);
    PM_TRY_GOTO(e, latest_schema_id(t, &c->schema_id), out);
    PM_TRY_GOTO(e, pm_snapshot_store_load_latest(t->snapshots, &a.latest), out);
    if (a.latest)
        PM_TRY_GOTO(e, pm_snapshot_data_manifests(t->fio, t->paths, a.latest, &a.base, &a.nbase), out);
    if (a.latest && needs_live(c))
        PM_TRY_GOTO(e, pm_manifest_read_merged(t->fio, t->paths, a.base, a.nbase, &a.live, &a.nlive), out);
    PM_TRY_GOTO(e, collect_changes(c, &a), out);
    PM_TRY_GOTO(e, check_conflicts(c, &a), out);
    /* the hooks are done with L's live files: not held while the manifests are merged and written */
    pm_scan_result_free(a.live_scan);
    a.live_scan = NULL;
    a.live_view = NULL;
    a.next_row_id = a.latest && a.latest->next_row_id.has ? a.latest->next_row_id.v : 0;
    bool rt = false;
    PM_TRY_GOTO(e, pm_options_bool(pm_table_options(t), PM_OPT_ROW_TRACKING_ENABLED, &rt), out);
    if (rt)
        PM_TRY_GOTO(e, assign_row_tracking(&a, a.latest ? a.latest->id + 1 : 1), out);
    if (!a.delta.n && !a.changelog.n && !a.idx_changes.n && !o->allow_empty)
        goto out; /* ATTEMPT_EMPTY */
    PM_TRY_GOTO(e, write_files(c, &a), out);
    PM_TRY_GOTO(e, build_snapshot(c, &a, &snap), out);

    if (pm_fault("commit-before-publish")) {
        e = pm_error_new(PM_EIO, "injected failure before publishing snapshot %lld (commit-before-publish)",
                         (long long)snap->id);
        goto out;
    }
    bool committed = false;
    PM_TRY_GOTO(e, publish(c, snap, &committed), out);
    if (!committed) {
        *res = ATTEMPT_LOST;
        delete_written(c);
        if (o->index_discard && a.nrebased)
            o->index_discard(o->validate_arg, a.rebased, a.nrebased);
        goto out;
    }
    published = true;
    *res = ATTEMPT_PUBLISHED;
    *snapshot_id = snap->id;
    forget_written(c);
    if (pm_fault("commit-after-publish"))
        e = pm_error_new(PM_EUNCERTAIN, "injected uncertain outcome after publishing snapshot %lld "
                                        "(commit-after-publish)", (long long)snap->id);
out:
    if (e && !published && pm_error_code(e) != PM_EUNCERTAIN && o->index_discard && a.nrebased)
        o->index_discard(o->validate_arg, a.rebased, a.nrebased);
    if (e && !published && pm_error_code(e) != PM_EUNCERTAIN)
        delete_written(c);
    else if (e)
        forget_written(c);
    pm_snapshot_free(snap);
    attempt_free(&a);
    return e;
}

/* ---- idempotency ---- */

pm_error *pm_table_commit_find(pm_table *t, const char *user, int64_t identifier, int64_t since,
                               int64_t *found_id)
{
    *found_id = 0;
    bool has;
    int64_t latest, earliest;
    PM_TRY(pm_snapshot_store_latest_id(t->snapshots, &has, &latest));
    if (!has)
        return NULL;
    PM_TRY(pm_snapshot_store_earliest_id(t->snapshots, &has, &earliest));
    int64_t stop = since + 1;
    if (has && earliest > stop)
        stop = earliest;
    for (int64_t id = latest; id >= stop; id--) {
        pm_snapshot *s = NULL;
        pm_error *e = pm_snapshot_store_load(t->snapshots, id, &s);
        if (e && pm_error_code(e) == PM_ENOTFOUND) {
            pm_error_free(e); /* expired meanwhile */
            continue;
        }
        PM_TRY(e);
        bool same = s->commit_user && !strcmp(s->commit_user, user) && s->commit_identifier == identifier;
        pm_snapshot_free(s);
        if (same) {
            *found_id = id;
            return NULL;
        }
    }
    return NULL;
}

static void backoff(int64_t min_ms, int64_t max_ms, int retry)
{
    double w = (double)min_ms;
    for (int i = 0; i < retry && w < (double)max_ms; i++)
        w *= 2;
    int64_t wait = (int64_t)(w < (double)max_ms ? w : (double)max_ms);
    int64_t jitter_span = wait / 5 > 1 ? wait / 5 : 1;
    uint32_t rnd = 0;
    pm_error_free(pm_random_bytes(&rnd, sizeof rnd));
    wait += (int64_t)(rnd % (uint32_t)jitter_span);
    struct timespec ts = {(time_t)(wait / 1000), (long)(wait % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

pm_error *pm_table_commit(pm_table *t, const pm_commit_options *o, const pm_commit_message *msgs, size_t n,
                          int64_t *snapshot_id)
{
    *snapshot_id = 0;
    commit_ctx c = {t, o, msgs, n, NULL, 0, NULL, 0, 0};
    pm_error *e = NULL;
    if (o->kind == PM_COMMIT_ANALYZE)
        return pm_error_new(PM_EUNSUPPORTED, "ANALYZE commits are not supported");
    const pm_options *opts = pm_table_options(t);
    int seq_mode = 0;
    PM_TRY(pm_options_enum(opts, PM_OPT_WRITE_SEQUENCE_NUMBER_INIT_MODE, &seq_mode));
    if (seq_mode == PM_SEQ_INIT_SNAPSHOT)
        return pm_error_new(PM_EUNSUPPORTED, "write.sequence-number-init-mode=snapshot is not supported yet");
    const char *sort = pm_options_get(opts, "manifest-sort.enabled");
    if (sort && !strcasecmp(sort, "true"))
        return pm_error_new(PM_EUNSUPPORTED, "manifest-sort.enabled=true is not supported yet");
    int32_t max_retries;
    int64_t min_wait, max_wait, timeout = -1;
    bool has_timeout;
    PM_TRY(pm_options_int(opts, PM_OPT_COMMIT_MAX_RETRIES, NULL, &max_retries));
    PM_TRY(pm_options_duration_ms(opts, PM_OPT_COMMIT_MIN_RETRY_WAIT, NULL, &min_wait));
    PM_TRY(pm_options_duration_ms(opts, PM_OPT_COMMIT_MAX_RETRY_WAIT, NULL, &max_wait));
    PM_TRY(pm_options_duration_ms(opts, PM_OPT_COMMIT_TIMEOUT, &has_timeout, &timeout));
    if (o->commit_user) {
        PM_TRY(pm_strdup(&c.user, o->commit_user));
        PM_TRY_GOTO(e, pm_table_commit_find(t, c.user, o->commit_identifier, o->since_snapshot_id, snapshot_id),
                    done);
        if (*snapshot_id)
            goto done;
    } else {
        char uuid[37];
        PM_TRY(pm_uuid(uuid));
        PM_TRY(pm_strdup(&c.user, uuid));
    }
    int64_t start = pm_now_millis();
    for (int retry = 0;; retry++) {
        attempt_result r;
        PM_TRY_GOTO(e, try_once(&c, &r, snapshot_id), done);
        if (r != ATTEMPT_LOST)
            break;
        bool timed_out = has_timeout && pm_now_millis() - start > timeout;
        if (retry >= max_retries || timed_out) {
            e = pm_error_new(PM_ECONFLICT, "commit failed after %d retries: other commits kept taking the next "
                             "snapshot id", retry);
            goto done;
        }
        backoff(min_wait, max_wait, retry);
    }
done:
    if (e && pm_error_code(e) == PM_EUNCERTAIN)
        e = pm_error_wrap(e, 0, "outcome unknown: retry with commit user %s and identifier %lld to complete it "
                                "exactly once", c.user ? c.user : "?", (long long)o->commit_identifier);
    for (size_t i = 0; i < c.nwritten; i++)
        free(c.written[i]);
    free(c.written);
    free(c.user);
    return e ? pm_error_wrap(e, 0, "commit to table %s", pm_table_path(t)) : NULL;
}
