/*
 * compact/compact_pending.c — pending files (what the table's mode has not
 * folded yet) per bucket, and the prefix a bounded pass takes.
 *
 * Pending list (pm_compact_pending, paimon/compact.h):
 *   1. the table's mode and its planner over the options given (the same
 *      builder a pass would use: partition filters, bucket, dynamic
 *      options);
 *   2. one scan of the latest snapshot (partition filters, bucket);
 *   3. per (partition, bucket) with files: the mode's `pending` flags, the
 *      pending files sorted oldest first (pm_compact_file_age_cmp), their
 *      count, bytes and the age of the oldest creation time.
 * Everything the list hands out lives in the list's arena-like blocks
 * (one allocation per bucket's strings and files), freed together.
 *
 * Bounded passes (pm_compact_pending_prefix): the pending files oldest
 * first, taken while the count stays within max_files and the bytes
 * within max_bytes; the first is always taken, so a pass makes progress
 * even on one file larger than the byte budget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "table/partition.h"

int pm_compact_file_age_cmp(const pm_data_file_meta *a, const pm_data_file_meta *b)
{
    if (a->min_sequence_number != b->min_sequence_number)
        return a->min_sequence_number < b->min_sequence_number ? -1 : 1;
    if (a->max_sequence_number != b->max_sequence_number)
        return a->max_sequence_number < b->max_sequence_number ? -1 : 1;
    return strcmp(a->file_name, b->file_name);
}

typedef struct age_key {
    const pm_data_file_meta *f;
    size_t idx;
} age_key;

static int age_key_cmp(const void *a, const void *b)
{
    return pm_compact_file_age_cmp(((const age_key *)a)->f, ((const age_key *)b)->f);
}

/* The pending files of files[0..n) oldest first into *idx (malloc'd). */
static pm_error *pending_sorted(const pm_data_file_meta *files, size_t n, const bool *pending, size_t **idx,
                                size_t *nidx)
{
    *idx = NULL;
    *nidx = 0;
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        np += pending[i];
    if (!np)
        return NULL;
    age_key *k;
    PM_TRY(pm_calloc(&k, np, sizeof *k));
    for (size_t i = 0, j = 0; i < n; i++)
        if (pending[i])
            k[j++] = (age_key){&files[i], i};
    qsort(k, np, sizeof *k, age_key_cmp);
    pm_error *e = pm_calloc(idx, np, sizeof **idx);
    if (!e) {
        for (size_t i = 0; i < np; i++)
            (*idx)[i] = k[i].idx;
        *nidx = np;
    }
    free(k);
    return e;
}

pm_error *pm_compact_pending_prefix(const pm_data_file_meta *files, size_t n, const bool *pending,
                                    const pm_compact_limits *l, size_t **idx, size_t *nidx)
{
    PM_TRY(pending_sorted(files, n, pending, idx, nidx));
    size_t take = 0;
    int64_t bytes = 0;
    while (take < *nidx) {
        const pm_data_file_meta *f = &files[(*idx)[take]];
        if (take && l->max_files > 0 && (int64_t)take >= l->max_files)
            break;
        if (take && l->max_bytes > 0 && (f->file_size > l->max_bytes - bytes))
            break;
        bytes += f->file_size;
        take++;
    }
    *nidx = take;
    if (!take) {
        free(*idx);
        *idx = NULL;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* the public list                                                     */

struct pm_compact_pending_list {
    int64_t snapshot_id;
    const char *mode;                    /* the mode's constant name */
    pm_compact_pending_bucket *buckets;
    size_t nbuckets;
    /* per bucket: its partition strings and pending files */
    char **strings;
    pm_compact_pending_file **files;
};

void pm_compact_pending_list_free(pm_compact_pending_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->nbuckets; i++) {
        free(l->strings[i]);
        free(l->files[i]);
    }
    free(l->strings);
    free(l->files);
    free(l->buckets);
    free(l);
}

int64_t pm_compact_pending_snapshot_id(const pm_compact_pending_list *l) { return l->snapshot_id; }
const char *pm_compact_pending_mode(const pm_compact_pending_list *l) { return l->mode; }
size_t pm_compact_pending_count(const pm_compact_pending_list *l) { return l->nbuckets; }

const pm_compact_pending_bucket *pm_compact_pending_get(const pm_compact_pending_list *l, size_t i)
{
    return i < l->nbuckets ? &l->buckets[i] : NULL;
}

/* Bucket bf as entry k of l (strings and files in blocks of their own). */
static pm_error *add_bucket(pm_compact_pending_list *l, size_t k, pm_table *t, const pm_bucket_files *bf,
                            const bool *pending, int64_t now)
{
    pm_compact_pending_bucket *b = &l->buckets[k];
    pm_buf part = {0};
    size_t *idx = NULL, np = 0;
    pm_error *e = pm_partition_display(t, bf->partition.data, bf->partition.len, &part);
    if (!e)
        e = pending_sorted(bf->files, bf->nfiles, pending, &idx, &np);
    size_t names = 0;
    for (size_t i = 0; !e && i < np; i++)
        names += strlen(bf->files[idx[i]].file_name) + 1;
    /* block: display "\0" filter "\0" names */
    char *s = NULL;
    if (!e)
        e = pm_calloc(&s, 2 * part.len + 2 + names, 1);
    if (!e && np)
        e = pm_calloc(&l->files[k], np, sizeof **l->files);
    if (e)
        goto done;
    l->strings[k] = s;
    memcpy(s, part.data ? (const char *)part.data : "", part.len);
    b->partition = s;
    char *filter = s + part.len + 1;
    for (size_t i = 0; i < part.len; i++)
        filter[i] = part.data[i] == '/' ? ',' : (char)part.data[i];
    b->partition_filter = part.len ? filter : NULL;
    char *name = filter + part.len + 1;
    b->bucket = bf->bucket;
    b->files = bf->nfiles;
    for (size_t i = 0; i < bf->nfiles; i++) {
        b->bytes += bf->files[i].file_size;
        if (bf->files[i].level > b->max_level)
            b->max_level = bf->files[i].level;
    }
    b->oldest_pending_age_ms = -1;
    int64_t oldest = INT64_MAX;
    for (size_t i = 0; i < np; i++) {
        const pm_data_file_meta *f = &bf->files[idx[i]];
        pm_compact_pending_file *pf = &l->files[k][i];
        size_t len = strlen(f->file_name);
        memcpy(name, f->file_name, len + 1);
        pf->file_name = name;
        name += len + 1;
        pf->level = f->level;
        pf->file_size = f->file_size;
        pf->min_sequence_number = f->min_sequence_number;
        pf->max_sequence_number = f->max_sequence_number;
        pf->has_creation_time = f->creation_time.has;
        pf->creation_time_ms = f->creation_time.has ? f->creation_time.v : 0;
        if (f->creation_time.has && f->creation_time.v < oldest)
            oldest = f->creation_time.v;
        b->pending_bytes += f->file_size;
    }
    if (oldest != INT64_MAX)
        b->oldest_pending_age_ms = now > oldest ? now - oldest : 0;
    b->npending = np;
    b->pending = l->files[k];
done:
    free(idx);
    pm_buf_free(&part);
    if (e && !l->strings[k])
        free(s);
    return e;
}

pm_error *pm_compact_pending(pm_compact_pending_list **out, pm_table *t, const pm_compact_options *o)
{
    *out = NULL;
    pm_compact_builder *b = NULL;
    PM_TRY(pm_compact_builder_new(&b, t, o));
    const pm_compact_mode_ops *mode = NULL;
    pm_compact_planner *pl = NULL;
    pm_scan_result *scan = NULL;
    pm_compact_pending_list *l = NULL;
    bool *flags = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_compact_table_mode(t, &mode), done);
    if (!mode->pending) {
        e = pm_error_new(PM_EUNSUPPORTED, "mode %s has no pending files", mode->name);
        goto done;
    }
    PM_TRY_GOTO(e, mode->planner_new(&pl, b), done);
    pm_scan_options so = pm_scan_options_default();
    so.partitions = b->specs;
    so.npartitions = b->nspecs;
    if (b->has_bucket)
        so.bucket = b->bucket;
    PM_TRY_GOTO(e, pm_table_scan(t, &so, &scan), done);
    PM_TRY_GOTO(e, pm_calloc(&l, 1, sizeof *l), done);
    l->mode = mode->name;
    l->snapshot_id = scan->snapshot ? scan->snapshot->id : 0;
    size_t nb = 0;
    for (size_t i = 0; scan->snapshot && i < scan->nbuckets; i++)
        nb += scan->buckets[i].nfiles > 0;
    if (nb) {
        PM_TRY_GOTO(e, pm_calloc(&l->buckets, nb, sizeof *l->buckets), done);
        PM_TRY_GOTO(e, pm_calloc(&l->strings, nb, sizeof *l->strings), done);
        PM_TRY_GOTO(e, pm_calloc(&l->files, nb, sizeof *l->files), done);
    }
    int64_t now = pm_now_local_millis();
    for (size_t i = 0; scan->snapshot && i < scan->nbuckets && !e; i++) {
        const pm_bucket_files *bf = &scan->buckets[i];
        if (!bf->nfiles || (b->has_bucket && bf->bucket != b->bucket))
            continue;
        free(flags);
        flags = NULL;
        PM_TRY_GOTO(e, pm_calloc(&flags, bf->nfiles, sizeof *flags), done);
        PM_TRY_GOTO(e, mode->pending(pl, bf, flags), done);
        l->nbuckets++;
        e = add_bucket(l, l->nbuckets - 1, t, bf, flags, now);
    }
done:
    free(flags);
    pm_scan_result_free(scan);
    if (pl)
        mode->planner_free(pl);
    pm_compact_builder_free(b);
    if (e) {
        pm_compact_pending_list_free(l);
        return pm_error_wrap(e, 0, "pending files of %s", pm_table_path(t));
    }
    *out = l;
    return NULL;
}
