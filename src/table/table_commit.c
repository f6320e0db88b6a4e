/*
 * table/table_commit.c — publish commit messages as one snapshot, the way
 * Paimon Java's FileStoreCommitImpl does (protocol in table_commit.h).
 *
 * One attempt (tryCommitOnce):
 *   1. L = latest snapshot; its data manifests (base list + delta list).
 *   2. Delta entries in message order: new_files ADD, compact_before
 *      DELETE, compact_after ADD; OVERWRITE first adds a DELETE for every
 *      live file (bucket >= 0) of the overwritten partitions (all when no
 *      spec) and checks that new files belong to them.  Index changes:
 *      removed then added per message; OVERWRITE also removes the index
 *      files of the overwritten partitions.
 *   3. Conflicts: a DELETE whose file is not live in L → PM_ECONFLICT; the
 *      caller's validate hook sees L and its live files (pm_table_scan).
 *   4. Files: base manifests = L's data manifests after ManifestFileMerger
 *      (full compaction when the "must change" manifests — any delete or
 *      smaller than manifest.target-file-size — total at least
 *      manifest.full-compaction-threshold-size; otherwise minor: runs of
 *      manifests reaching the target size are merged, a tail of at least
 *      manifest.merge-min-count is merged); base list; delta manifests and
 *      delta list (written even when empty); changelog manifests + list
 *      when there are changelog files; an index manifest when index files
 *      change (combined per index type as IndexManifestFileHandler does),
 *      else L's is inherited.
 *   5. Snapshot L+1: schema id = latest schema on disk; record counts
 *      (total = L's + delta, delta = added − deleted rows); watermark and
 *      statistics (when its schema id is the latest) inherited;
 *      nextRowId = L's or 0; no operation (Java core sets none); then
 *      publish-if-absent.  Lost race → delete this attempt's files, back
 *      off min(min-wait·2^n, max-wait) + up to 20 % jitter, go to 1.  An
 *      error while publishing is resolved by looking at snapshot-N: ours →
 *      success, absent → definite failure (files removed), unknown →
 *      PM_EUNCERTAIN (files kept).
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
#include <time.h>

#include "base/fault.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/util.h"
#include "meta/manifest.h"
#include "table/partition.h"
#include "types/binary_row.h"

/* ------------------------------------------------------------------ */
/* growable arrays of entries                                          */

typedef struct entry_list {
    pm_manifest_entry *v;
    size_t n, cap;
} entry_list;

static void entry_list_free(entry_list *l)
{
    pm_manifest_entries_free(l->v, l->n);
    memset(l, 0, sizeof *l);
}

static pm_error *entry_list_push(entry_list *l, pm_file_kind kind, const pm_bytes *partition, int32_t bucket,
                                 int32_t total_buckets, const pm_data_file_meta *f)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        PM_TRY(pm_realloc_array(&l->v, cap, sizeof *l->v));
        l->cap = cap;
    }
    pm_manifest_entry *e = &l->v[l->n];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->bucket = bucket;
    e->total_buckets = total_buckets;
    pm_error *err = pm_bytes_set(&e->partition, partition->data, partition->len);
    if (!err)
        err = pm_data_file_meta_copy(&e->file, f);
    if (err) {
        pm_manifest_entry_clear(e);
        return err;
    }
    l->n++;
    return NULL;
}

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
/* entry identifiers (FileEntry.Identifier)                            */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t ident_hash(const pm_manifest_entry *e)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv(h, e->partition.data, e->partition.len);
    h = fnv(h, &e->bucket, sizeof e->bucket);
    h = fnv(h, &e->file.level, sizeof e->file.level);
    if (e->file.file_name)
        h = fnv(h, e->file.file_name, strlen(e->file.file_name));
    return h;
}

static bool str_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static bool bytes_eq(const pm_bytes *a, const pm_bytes *b)
{
    if (a->has != b->has)
        return false;
    return !a->has || (a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len)));
}

static bool part_eq(const pm_bytes *a, const pm_bytes *b)
{
    return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

static bool ident_eq(const pm_manifest_entry *a, const pm_manifest_entry *b)
{
    if (a->bucket != b->bucket || a->file.level != b->file.level || !part_eq(&a->partition, &b->partition) ||
        !str_eq(a->file.file_name, b->file.file_name))
        return false;
    if (a->file.extra_files.count != b->file.extra_files.count)
        return false;
    for (size_t i = 0; i < a->file.extra_files.count; i++)
        if (!str_eq(a->file.extra_files.items[i], b->file.extra_files.items[i]))
            return false;
    return bytes_eq(&a->file.embedded_index, &b->file.embedded_index) &&
           str_eq(a->file.external_path, b->file.external_path);
}

/* A set of borrowed entries by identifier (open addressing). */
typedef struct ident_set {
    const pm_manifest_entry **slots;
    size_t cap, n;
} ident_set;

static void ident_set_free(ident_set *s)
{
    free(s->slots);
    memset(s, 0, sizeof *s);
}

static pm_error *ident_set_add(ident_set *s, const pm_manifest_entry *e);

static pm_error *ident_set_grow(ident_set *s)
{
    ident_set n = {0};
    n.cap = s->cap ? s->cap * 2 : 64;
    PM_TRY(pm_calloc(&n.slots, n.cap, sizeof *n.slots));
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i])
            PM_TRY(ident_set_add(&n, s->slots[i]));
    free(s->slots);
    *s = n;
    return NULL;
}

static pm_error *ident_set_add(ident_set *s, const pm_manifest_entry *e)
{
    if ((s->n + 1) * 2 > s->cap)
        PM_TRY(ident_set_grow(s));
    size_t k = (size_t)ident_hash(e) & (s->cap - 1);
    while (s->slots[k]) {
        if (ident_eq(s->slots[k], e))
            return NULL;
        k = (k + 1) & (s->cap - 1);
    }
    s->slots[k] = e;
    s->n++;
    return NULL;
}

static bool ident_set_has(const ident_set *s, const pm_manifest_entry *e)
{
    if (!s->cap)
        return false;
    size_t k = (size_t)ident_hash(e) & (s->cap - 1);
    while (s->slots[k]) {
        if (ident_eq(s->slots[k], e))
            return true;
        k = (k + 1) & (s->cap - 1);
    }
    return false;
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
/* typed comparison of BinaryRow fields (partition predicate)          */

static int cmp_field(const pm_type *t, const pm_binrow *a, int32_t i, const pm_binrow *b, int32_t j, pm_error **e)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return (int)pm_binrow_bool(a, i) - (int)pm_binrow_bool(b, j);
    case PM_TYPE_TINYINT: return (pm_binrow_i8(a, i) > pm_binrow_i8(b, j)) - (pm_binrow_i8(a, i) < pm_binrow_i8(b, j));
    case PM_TYPE_SMALLINT:
        return (pm_binrow_i16(a, i) > pm_binrow_i16(b, j)) - (pm_binrow_i16(a, i) < pm_binrow_i16(b, j));
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
        return (pm_binrow_i32(a, i) > pm_binrow_i32(b, j)) - (pm_binrow_i32(a, i) < pm_binrow_i32(b, j));
    case PM_TYPE_BIGINT:
        return (pm_binrow_i64(a, i) > pm_binrow_i64(b, j)) - (pm_binrow_i64(a, i) < pm_binrow_i64(b, j));
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE: {
        double x = t->id == PM_TYPE_FLOAT ? pm_binrow_f32(a, i) : pm_binrow_f64(a, i);
        double y = t->id == PM_TYPE_FLOAT ? pm_binrow_f32(b, j) : pm_binrow_f64(b, j);
        return (x > y) - (x < y);
    }
    case PM_TYPE_DECIMAL: {
        __int128 x = 0, y = 0;
        if (!*e)
            *e = pm_binrow_decimal(a, i, t->precision, &x);
        if (!*e)
            *e = pm_binrow_decimal(b, j, t->precision, &y);
        return (x > y) - (x < y);
    }
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        int64_t xm = 0, ym = 0;
        int32_t xn = 0, yn = 0;
        if (!*e)
            *e = pm_binrow_timestamp(a, i, t->precision, &xm, &xn);
        if (!*e)
            *e = pm_binrow_timestamp(b, j, t->precision, &ym, &yn);
        if (xm != ym)
            return xm < ym ? -1 : 1;
        return (xn > yn) - (xn < yn);
    }
    default: {
        const uint8_t *x = NULL, *y = NULL;
        size_t xn = 0, yn = 0;
        if (!*e)
            *e = pm_binrow_bytes(a, i, &x, &xn);
        if (!*e)
            *e = pm_binrow_bytes(b, j, &y, &yn);
        if (*e)
            return 0;
        size_t n = xn < yn ? xn : yn;
        int c = n ? memcmp(x, y, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return (xn > yn) - (xn < yn);
    }
    }
}

/* PartitionPredicate.fromMultiple(partitions).test(stats of a manifest). */
typedef struct part_pred {
    const pm_type *type;
    size_t nparts;
    pm_binrow *parts;       /* borrowed rows */
    int64_t *nulls;         /* per field: partitions with null */
    size_t *min_of, *max_of; /* per field: index of the partition holding min / max */
} part_pred;

static void part_pred_free(part_pred *p)
{
    free(p->parts);
    free(p->nulls);
    free(p->min_of);
    free(p->max_of);
    memset(p, 0, sizeof *p);
}

static pm_error *part_pred_init(part_pred *p, const pm_type *type, const pm_bytes *const *parts, size_t n)
{
    memset(p, 0, sizeof *p);
    p->type = type;
    p->nparts = n;
    size_t nf = type->nfields ? type->nfields : 1;
    PM_TRY(pm_calloc(&p->parts, n ? n : 1, sizeof *p->parts));
    PM_TRY(pm_calloc(&p->nulls, nf, sizeof *p->nulls));
    PM_TRY(pm_calloc(&p->min_of, nf, sizeof *p->min_of));
    PM_TRY(pm_calloc(&p->max_of, nf, sizeof *p->max_of));
    for (size_t k = 0; k < n; k++)
        PM_TRY(pm_binrow_deserialize(&p->parts[k], parts[k]->data, parts[k]->len, (int32_t)type->nfields));
    pm_error *e = NULL;
    for (size_t f = 0; f < type->nfields; f++) {
        bool have = false;
        for (size_t k = 0; k < n && !e; k++) {
            int32_t i = (int32_t)f;
            if (pm_binrow_is_null(&p->parts[k], i)) {
                p->nulls[f]++;
                continue;
            }
            const pm_type *ft = type->fields[f].type;
            if (!have) {
                p->min_of[f] = p->max_of[f] = k;
                have = true;
                continue;
            }
            if (cmp_field(ft, &p->parts[k], i, &p->parts[p->min_of[f]], i, &e) < 0)
                p->min_of[f] = k;
            if (cmp_field(ft, &p->parts[k], i, &p->parts[p->max_of[f]], i, &e) > 0)
                p->max_of[f] = k;
        }
    }
    return e;
}

/* LeafPredicate.test on stats: kind 0 = isNull, 1 = field >= lit (max), 2 = field <= lit (min). */
static bool leaf_test(int kind, const pm_type *ft, int32_t i, int64_t row_count, const pm_binrow *mn,
                      const pm_binrow *mx, const pm_simple_stats *st, const pm_binrow *lit, pm_error **e)
{
    bool has_nc = (size_t)i < st->null_count_len && st->null_counts[i].has;
    int64_t nc = has_nc ? st->null_counts[i].v : 0;
    bool min_null = pm_binrow_is_null(mn, i), max_null = pm_binrow_is_null(mx, i);
    if (!has_nc || row_count != nc) {
        if (min_null || max_null)
            return true;
    }
    if (kind == 0)
        return !has_nc || nc > 0;
    if (has_nc && row_count == nc)
        return false;
    if (kind == 1)
        return cmp_field(ft, lit, i, mx, i, e) <= 0;
    return cmp_field(ft, lit, i, mn, i, e) >= 0;
}

static bool part_pred_test(const part_pred *p, const pm_manifest_file_meta *m, pm_error **e)
{
    size_t nf = p->type->nfields;
    if (nf == 0)
        return true;
    pm_binrow mn, mx;
    const pm_simple_stats *st = &m->partition_stats;
    if (pm_binrow_deserialize(&mn, st->min_values.data, st->min_values.len, (int32_t)nf) ||
        pm_binrow_deserialize(&mx, st->max_values.data, st->max_values.len, (int32_t)nf))
        return true; /* unknown stats: may match (errors are not fatal here) */
    int64_t rows = m->num_added_files + m->num_deleted_files;
    for (size_t f = 0; f < nf; f++) {
        const pm_type *ft = p->type->fields[f].type;
        int32_t i = (int32_t)f;
        bool tmin, tmax;
        if ((size_t)p->nulls[f] == p->nparts) {
            tmin = tmax = leaf_test(0, ft, i, rows, &mn, &mx, st, NULL, e);
        } else {
            tmin = leaf_test(1, ft, i, rows, &mn, &mx, st, &p->parts[p->min_of[f]], e);
            tmax = leaf_test(2, ft, i, rows, &mn, &mx, st, &p->parts[p->max_of[f]], e);
            if (p->nulls[f] > 0) {
                bool isnull = leaf_test(0, ft, i, rows, &mn, &mx, st, NULL, e);
                tmin = tmin || isnull;
                tmax = tmax || isnull;
            }
        }
        if (!tmin || !tmax)
            return false;
    }
    return true;
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

/* ---- manifest merge (ManifestFileMerger) ---- */

typedef struct meta_list {
    pm_manifest_file_meta *v;
    size_t n, cap;
} meta_list;

static void meta_list_free(meta_list *l)
{
    pm_manifest_file_metas_free(l->v, l->n);
    memset(l, 0, sizeof *l);
}

static pm_error *meta_list_push(meta_list *l, const pm_manifest_file_meta *m)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        PM_TRY(pm_realloc_array(&l->v, cap, sizeof *l->v));
        l->cap = cap;
    }
    PM_TRY(pm_manifest_file_meta_copy(&l->v[l->n], m));
    l->n++;
    return NULL;
}

static pm_error *meta_list_take(meta_list *l, pm_manifest_file_meta *m, size_t n)
{
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++)
        e = meta_list_push(l, &m[i]);
    pm_manifest_file_metas_free(m, n);
    return e;
}

static pm_error *merge_candidates(commit_ctx *c, const pm_manifest_file_meta *cand, size_t n, meta_list *out)
{
    if (n == 1)
        return meta_list_push(out, &cand[0]);
    pm_manifest_entry *entries = NULL;
    size_t count = 0;
    PM_TRY(pm_manifest_read_merged(c->t->fio, c->t->paths, cand, n, &entries, &count));
    pm_manifest_file_meta *metas = NULL;
    size_t nmetas = 0;
    pm_error *e = count ? write_manifests(c, entries, count, &metas, &nmetas) : NULL;
    pm_manifest_entries_free(entries, count);
    if (!e)
        e = meta_list_take(out, metas, nmetas);
    else
        pm_manifest_file_metas_free(metas, nmetas);
    return e;
}

static pm_error *minor_merge(commit_ctx *c, const pm_manifest_file_meta *in, size_t n, int64_t target,
                             int32_t min_count, meta_list *out)
{
    size_t start = 0;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += in[i].file_size;
        if (total >= target) {
            PM_TRY(merge_candidates(c, in + start, i + 1 - start, out));
            start = i + 1;
            total = 0;
        }
    }
    if (n - start >= (size_t)min_count && n > start)
        return merge_candidates(c, in + start, n - start, out);
    for (size_t i = start; i < n; i++)
        PM_TRY(meta_list_push(out, &in[i]));
    return NULL;
}

/* *done=false when full compaction does not apply (then minor merge runs). */
static pm_error *full_merge(commit_ctx *c, const pm_manifest_file_meta *in, size_t n, int64_t target,
                            int64_t threshold, meta_list *out, bool *done)
{
    *done = false;
    int64_t delta_size = 0;
    for (size_t i = 0; i < n; i++)
        if (in[i].num_deleted_files > 0 || in[i].file_size < target)
            delta_size += in[i].file_size;
    if (delta_size < threshold)
        return NULL;

    pm_error *e = NULL;
    entry_list deletes = {0};   /* DELETE entries of every input (owned copies) */
    ident_set del = {0};
    part_pred pred = {0};
    const pm_bytes **parts = NULL;
    size_t nparts = 0;
    bool *merge_it = NULL;      /* file goes through the merge loop */
    entry_list kept = {0};
    meta_list result = {0};
    PM_TRY_GOTO(e, pm_calloc(&merge_it, n ? n : 1, sizeof *merge_it), done_);
    for (size_t i = 0; i < n && !e; i++) {
        if (!in[i].num_deleted_files)
            continue;
        char *p = NULL;
        pm_manifest_entry *en = NULL;
        size_t cnt = 0;
        e = pm_path_factory_manifest_path(c->t->paths, in[i].file_name, &p);
        if (!e)
            e = pm_manifest_read(c->t->fio, p, &en, &cnt);
        free(p);
        for (size_t k = 0; k < cnt && !e; k++)
            if (en[k].kind == PM_FILE_DELETE)
                e = entry_list_push(&deletes, PM_FILE_DELETE, &en[k].partition, en[k].bucket,
                                    en[k].total_buckets, &en[k].file);
        pm_manifest_entries_free(en, cnt);
    }
    for (size_t k = 0; k < deletes.n && !e; k++)
        e = ident_set_add(&del, &deletes.v[k]);
    if (e)
        goto done_;
    /* partitions of the deletes, for the predicate */
    bool always_false = deletes.n == 0;
    bool always_true = !always_false && c->t->partition_type->nfields == 0;
    if (!always_false && !always_true) {
        PM_TRY_GOTO(e, pm_calloc(&parts, deletes.n, sizeof *parts), done_);
        for (size_t k = 0; k < deletes.n; k++) {
            bool seen = false;
            for (size_t q = 0; q < nparts && !seen; q++)
                seen = part_eq(parts[q], &deletes.v[k].partition);
            if (!seen)
                parts[nparts++] = &deletes.v[k].partition;
        }
        PM_TRY_GOTO(e, part_pred_init(&pred, c->t->partition_type, parts, nparts), done_);
    }
    size_t nmerge = 0;
    for (size_t i = 0; i < n; i++) {
        bool must = in[i].num_deleted_files > 0 || in[i].file_size < target;
        bool may = must || always_true;
        if (!must && !always_false && !always_true) {
            may = part_pred_test(&pred, &in[i], &e);
            if (e)
                goto done_;
        }
        merge_it[i] = may;
        if (!may)
            PM_TRY_GOTO(e, meta_list_push(&result, &in[i]), done_);
        else
            nmerge++;
    }
    if (nmerge <= 1)
        goto done_; /* not done: minor merge decides */
    for (size_t i = 0; i < n && !e; i++) {
        if (!merge_it[i])
            continue;
        bool require = in[i].num_deleted_files > 0 || in[i].file_size < target;
        char *p = NULL;
        pm_manifest_entry *en = NULL;
        size_t cnt = 0;
        e = pm_path_factory_manifest_path(c->t->paths, in[i].file_name, &p);
        if (!e)
            e = pm_manifest_read(c->t->fio, p, &en, &cnt);
        free(p);
        size_t mark = kept.n;
        for (size_t k = 0; k < cnt && !e; k++) {
            if (en[k].kind != PM_FILE_ADD)
                continue;
            if (ident_set_has(&del, &en[k]))
                require = true;
            else
                e = entry_list_push(&kept, PM_FILE_ADD, &en[k].partition, en[k].bucket, en[k].total_buckets,
                                    &en[k].file);
        }
        pm_manifest_entries_free(en, cnt);
        if (!e && !require) {
            /* unchanged: keep the file, drop its entries again */
            while (kept.n > mark)
                pm_manifest_entry_clear(&kept.v[--kept.n]);
            e = meta_list_push(&result, &in[i]);
        }
    }
    if (!e && kept.n) {
        pm_manifest_file_meta *metas = NULL;
        size_t nmetas = 0;
        e = write_manifests(c, kept.v, kept.n, &metas, &nmetas);
        if (!e)
            e = meta_list_take(&result, metas, nmetas);
        else
            pm_manifest_file_metas_free(metas, nmetas);
    }
    if (!e) {
        *out = result;
        memset(&result, 0, sizeof result);
        *done = true;
    }
done_:
    meta_list_free(&result);
    entry_list_free(&kept);
    free(merge_it);
    free(parts);
    part_pred_free(&pred);
    ident_set_free(&del);
    entry_list_free(&deletes);
    return e;
}

static pm_error *merge_manifests(commit_ctx *c, const pm_manifest_file_meta *in, size_t n, meta_list *out)
{
    const pm_options *o = pm_table_options(c->t);
    int64_t target, threshold;
    int32_t min_count;
    PM_TRY(pm_options_memory(o, PM_OPT_MANIFEST_TARGET_FILE_SIZE, NULL, &target));
    PM_TRY(pm_options_memory(o, PM_OPT_MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE, NULL, &threshold));
    PM_TRY(pm_options_int(o, PM_OPT_MANIFEST_MERGE_MIN_COUNT, NULL, &min_count));
    if (threshold <= 0)
        return pm_error_new(PM_EINVALID, "manifest.full-compaction-threshold-size must be positive");
    bool done;
    PM_TRY(full_merge(c, in, n, target, threshold, out, &done));
    if (done)
        return NULL;
    return minor_merge(c, in, n, target, min_count, out);
}

/* ---- index manifest (IndexManifestFileHandler) ---- */

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

static bool needs_live(const commit_ctx *c)
{
    if (c->o->kind == PM_COMMIT_OVERWRITE || c->o->validate)
        return true;
    for (size_t i = 0; i < c->n; i++)
        if (c->msgs[i].n_compact_before)
            return true;
    return false;
}

static pm_error *try_once(commit_ctx *c, attempt_result *res, int64_t *snapshot_id)
{
    pm_table *t = c->t;
    const pm_commit_options *o = c->o;
    pm_error *e = NULL;
    pm_snapshot *latest = NULL, *snap = NULL;
    pm_manifest_file_meta *base = NULL;
    size_t nbase = 0;
    pm_manifest_entry *live = NULL;
    size_t nlive = 0;
    entry_list delta = {0}, changelog = {0};
    index_list idx_changes = {0}, idx_prev = {0}, idx_new = {0};
    ident_set live_set = {0};
    meta_list merged = {0};
    pm_manifest_file_meta *dmetas = NULL, *cmetas = NULL;
    size_t ndmetas = 0, ncmetas = 0;
    char *base_list = NULL, *delta_list = NULL, *cl_list = NULL, *index_manifest = NULL;
    int64_t base_size = 0, delta_size = 0, cl_size = 0;
    bool published = false;
    pm_part_matcher *matcher = NULL;
    *res = ATTEMPT_EMPTY;

    if (o->kind == PM_COMMIT_OVERWRITE && o->overwrite && o->noverwrite)
        PM_TRY_GOTO(e, pm_part_matcher_new(t, o->overwrite, o->noverwrite, &matcher), out);

    PM_TRY_GOTO(e, latest_schema_id(t, &c->schema_id), out);
    PM_TRY_GOTO(e, pm_snapshot_store_load_latest(t->snapshots, &latest), out);
    if (latest)
        PM_TRY_GOTO(e, pm_snapshot_data_manifests(t->fio, t->paths, latest, &base, &nbase), out);
    if (latest && needs_live(c))
        PM_TRY_GOTO(e, pm_manifest_read_merged(t->fio, t->paths, base, nbase, &live, &nlive), out);

    /* 2. delta entries */
    if (o->kind == PM_COMMIT_OVERWRITE) {
        int32_t nb = pm_table_num_buckets(t);
        for (size_t i = 0; i < nlive; i++) {
            const pm_manifest_entry *l = &live[i];
            if (l->kind != PM_FILE_ADD || (nb != PM_BUCKET_POSTPONE && l->bucket < 0))
                continue;
            bool m = true;
            if (matcher)
                PM_TRY_GOTO(e, spec_match(matcher, &l->partition, &m), out);
            if (m)
                PM_TRY_GOTO(e, entry_list_push(&delta, PM_FILE_DELETE, &l->partition, l->bucket,
                                               l->total_buckets, &l->file), out);
        }
        if (latest && latest->index_manifest) {
            char *p = NULL;
            pm_index_manifest_entry *ie = NULL;
            size_t nie = 0;
            e = pm_path_factory_manifest_path(t->paths, latest->index_manifest, &p);
            if (!e)
                e = pm_index_manifest_read(t->fio, p, &ie, &nie);
            free(p);
            for (size_t i = 0; i < nie && !e; i++) {
                bool m = true;
                if (matcher)
                    e = spec_match(matcher, &ie[i].partition, &m);
                if (!e && m)
                    e = index_list_push(&idx_changes, &ie[i], PM_FILE_DELETE);
            }
            pm_index_manifest_entries_free(ie, nie);
            if (e)
                goto out;
        }
    }
    for (size_t i = 0; i < c->n; i++) {
        const pm_commit_message *m = &c->msgs[i];
        for (size_t k = 0; k < m->n_new_files; k++) {
            if (o->kind == PM_COMMIT_OVERWRITE && matcher) {
                bool in;
                PM_TRY_GOTO(e, spec_match(matcher, &m->partition, &in), out);
                if (!in) {
                    e = pm_error_new(PM_EINVALID, "file %s does not belong to the overwritten partitions",
                                     m->new_files[k].file_name);
                    goto out;
                }
            }
            PM_TRY_GOTO(e, entry_list_push(&delta, PM_FILE_ADD, &m->partition, m->bucket, m->total_buckets,
                                           &m->new_files[k]), out);
        }
        for (size_t k = 0; k < m->n_compact_before; k++)
            PM_TRY_GOTO(e, entry_list_push(&delta, PM_FILE_DELETE, &m->partition, m->bucket, m->total_buckets,
                                           &m->compact_before[k]), out);
        for (size_t k = 0; k < m->n_compact_after; k++)
            PM_TRY_GOTO(e, entry_list_push(&delta, PM_FILE_ADD, &m->partition, m->bucket, m->total_buckets,
                                           &m->compact_after[k]), out);
        for (size_t k = 0; k < m->n_changelog; k++)
            PM_TRY_GOTO(e, entry_list_push(&changelog, PM_FILE_ADD, &m->partition, m->bucket,
                                           m->total_buckets, &m->changelog[k]), out);
        for (size_t k = 0; k < m->n_index_removed; k++)
            PM_TRY_GOTO(e, index_list_push(&idx_changes, &m->index_removed[k], PM_FILE_DELETE), out);
        for (size_t k = 0; k < m->n_index_added; k++)
            PM_TRY_GOTO(e, index_list_push(&idx_changes, &m->index_added[k], PM_FILE_ADD), out);
    }

    /* 3. conflicts */
    for (size_t i = 0; i < nlive; i++)
        if (live[i].kind == PM_FILE_ADD)
            PM_TRY_GOTO(e, ident_set_add(&live_set, &live[i]), out);
    for (size_t i = 0; i < delta.n; i++) {
        if (delta.v[i].kind == PM_FILE_DELETE && !ident_set_has(&live_set, &delta.v[i])) {
            e = pm_error_new(PM_ECONFLICT, "file %s (bucket %d) is not live in %s%lld; it was removed by a "
                             "concurrent commit", delta.v[i].file.file_name, (int)delta.v[i].bucket,
                             latest ? "snapshot " : "an empty table", latest ? (long long)latest->id : 0LL);
            goto out;
        }
    }
    if (o->validate) {
        pm_scan_result *sr = NULL;
        pm_scan_result empty = {0};
        if (latest) {
            pm_scan_options so = pm_scan_options_default();
            so.snapshot_id = latest->id;
            PM_TRY_GOTO(e, pm_table_scan(t, &so, &sr), out);
        }
        e = o->validate(o->validate_arg, latest, sr ? sr : &empty);
        pm_scan_result_free(sr);
        if (e)
            goto out;
    }
    if (!delta.n && !changelog.n && !idx_changes.n && !o->allow_empty)
        goto out; /* ATTEMPT_EMPTY */

    /* 4. files */
    PM_TRY_GOTO(e, merge_manifests(c, base, nbase, &merged), out);
    PM_TRY_GOTO(e, write_list(c, merged.v, merged.n, &base_list, &base_size), out);
    PM_TRY_GOTO(e, write_manifests(c, delta.v, delta.n, &dmetas, &ndmetas), out);
    PM_TRY_GOTO(e, write_list(c, dmetas, ndmetas, &delta_list, &delta_size), out);
    if (changelog.n) {
        PM_TRY_GOTO(e, write_manifests(c, changelog.v, changelog.n, &cmetas, &ncmetas), out);
        PM_TRY_GOTO(e, write_list(c, cmetas, ncmetas, &cl_list, &cl_size), out);
    }
    if (idx_changes.n) {
        if (latest && latest->index_manifest) {
            char *p = NULL;
            e = pm_path_factory_manifest_path(t->paths, latest->index_manifest, &p);
            if (!e)
                e = pm_index_manifest_read(t->fio, p, &idx_prev.v, &idx_prev.n);
            idx_prev.cap = idx_prev.n;
            free(p);
            if (e)
                goto out;
        }
        PM_TRY_GOTO(e, combine_index(t, &idx_prev, &idx_changes, &idx_new), out);
        int64_t isz;
        PM_TRY_GOTO(e, pm_index_manifest_write(t->fio, t->paths, pm_table_options(t), idx_new.v, idx_new.n,
                                               &index_manifest, &isz), out);
        PM_TRY_GOTO(e, remember(c, index_manifest), out);
    } else if (latest && latest->index_manifest) {
        PM_TRY_GOTO(e, pm_strdup(&index_manifest, latest->index_manifest), out);
    }

    /* 5. snapshot */
    int64_t added = 0, deleted = 0, cl_rows = 0;
    for (size_t i = 0; i < delta.n; i++) {
        if (delta.v[i].kind == PM_FILE_ADD)
            added += delta.v[i].file.row_count;
        else
            deleted += delta.v[i].file.row_count;
    }
    for (size_t i = 0; i < changelog.n; i++)
        cl_rows += changelog.v[i].file.row_count;
    PM_TRY_GOTO(e, pm_snapshot_new(&snap), out);
    char uuid[37];
    PM_TRY_GOTO(e, pm_uuid(uuid), out);
    PM_TRY_GOTO(e, pm_strdup(&snap->uuid, uuid), out);
    snap->id = latest ? latest->id + 1 : 1;
    snap->schema_id = c->schema_id;
    snap->base_manifest_list = base_list;
    base_list = NULL;
    snap->base_manifest_list_size = (pm_opt_long){true, base_size};
    snap->delta_manifest_list = delta_list;
    delta_list = NULL;
    snap->delta_manifest_list_size = (pm_opt_long){true, delta_size};
    if (cl_list) {
        snap->changelog_manifest_list = cl_list;
        cl_list = NULL;
        snap->changelog_manifest_list_size = (pm_opt_long){true, cl_size};
        snap->changelog_record_count = (pm_opt_long){true, cl_rows};
    }
    snap->index_manifest = index_manifest;
    index_manifest = NULL;
    PM_TRY_GOTO(e, pm_strdup(&snap->commit_user, c->user), out);
    snap->commit_identifier = o->commit_identifier;
    snap->commit_kind = o->kind;
    snap->time_millis = pm_now_millis();
    snap->delta_record_count = added - deleted;
    snap->total_record_count = (latest ? latest->total_record_count : 0) + snap->delta_record_count;
    if (latest && latest->watermark.has)
        snap->watermark = latest->watermark;
    if (latest && latest->statistics) {
        int64_t sid = 0;
        bool found = false;
        PM_TRY_GOTO(e, stats_schema_id(t, latest->statistics, &sid, &found), out);
        if (found && sid == c->schema_id)
            PM_TRY_GOTO(e, pm_strdup(&snap->statistics, latest->statistics), out);
    }
    snap->next_row_id = (pm_opt_long){true, latest && latest->next_row_id.has ? latest->next_row_id.v : 0};
    snap->operation = PM_SNAPSHOT_OP_NONE;

    if (pm_fault("commit-before-publish")) {
        e = pm_error_new(PM_EIO, "injected failure before publishing snapshot %lld (commit-before-publish)",
                         (long long)snap->id);
        goto out;
    }
    bool committed = false;
    pm_error *pe = pm_snapshot_store_commit(t->snapshots, snap, &committed);
    if (pe) {
        /* Did the snapshot land?  Ours when the file holds our bytes. */
        char *p = NULL;
        pm_buf have = PM_BUF_INIT, want = PM_BUF_INIT;
        bool exists = false;
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
        } else if (exists && have.len == want.len && !memcmp(have.data, want.data, want.len)) {
            pm_error_free(pe);
            committed = true;
        } else if (exists) {
            pm_error_free(pe);
            committed = false; /* somebody else's snapshot: a lost race */
        } else {
            e = pm_error_wrap(pe, 0, "publish snapshot %lld", (long long)snap->id);
        }
        pm_buf_free(&have);
        pm_buf_free(&want);
        if (e)
            goto out;
    }
    if (!committed) {
        *res = ATTEMPT_LOST;
        delete_written(c);
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
    if (e && !published && pm_error_code(e) != PM_EUNCERTAIN)
        delete_written(c);
    else if (e)
        forget_written(c);
    pm_part_matcher_free(matcher);
    free(base_list);
    free(delta_list);
    free(cl_list);
    free(index_manifest);
    pm_snapshot_free(snap);
    pm_manifest_file_metas_free(dmetas, ndmetas);
    pm_manifest_file_metas_free(cmetas, ncmetas);
    meta_list_free(&merged);
    ident_set_free(&live_set);
    index_list_free(&idx_changes);
    index_list_free(&idx_prev);
    index_list_free(&idx_new);
    entry_list_free(&delta);
    entry_list_free(&changelog);
    pm_manifest_entries_free(live, nlive);
    pm_manifest_file_metas_free(base, nbase);
    pm_snapshot_free(latest);
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
