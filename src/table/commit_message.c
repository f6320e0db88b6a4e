/*
 * table/commit_message.c — ownership helpers of pm_commit_message (clear,
 * free an array, deep copy).  See commit_message.h for the fields.
 */
#include "table/commit_message.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

static void files_free(pm_data_file_meta *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_data_file_meta_clear(&f[i]);
    free(f);
}

static void index_free(pm_index_manifest_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_index_manifest_entry_clear(&e[i]);
    free(e);
}

void pm_commit_message_clear(pm_commit_message *m)
{
    if (!m)
        return;
    pm_bytes_clear(&m->partition);
    files_free(m->new_files, m->n_new_files);
    files_free(m->compact_before, m->n_compact_before);
    files_free(m->compact_after, m->n_compact_after);
    files_free(m->changelog, m->n_changelog);
    index_free(m->index_added, m->n_index_added);
    index_free(m->index_removed, m->n_index_removed);
    memset(m, 0, sizeof *m);
}

void pm_commit_message_array_free(pm_commit_message *m, size_t n)
{
    if (!m)
        return;
    for (size_t i = 0; i < n; i++)
        pm_commit_message_clear(&m[i]);
    free(m);
}

static pm_error *files_copy(pm_data_file_meta **dst, size_t *ndst, const pm_data_file_meta *src, size_t n)
{
    *dst = NULL;
    *ndst = 0;
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(dst, n, sizeof **dst));
    for (size_t i = 0; i < n; i++) {
        PM_TRY(pm_data_file_meta_copy(&(*dst)[i], &src[i]));
        (*ndst)++;
    }
    return NULL;
}

static pm_error *index_copy(pm_index_manifest_entry **dst, size_t *ndst, const pm_index_manifest_entry *src,
                            size_t n)
{
    *dst = NULL;
    *ndst = 0;
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(dst, n, sizeof **dst));
    for (size_t i = 0; i < n; i++) {
        PM_TRY(pm_index_manifest_entry_copy(&(*dst)[i], &src[i]));
        (*ndst)++;
    }
    return NULL;
}

pm_error *pm_commit_message_copy(const pm_commit_message *src, pm_commit_message *dst)
{
    memset(dst, 0, sizeof *dst);
    dst->bucket = src->bucket;
    dst->total_buckets = src->total_buckets;
    pm_error *e = NULL;
    if (src->partition.has)
        e = pm_bytes_set(&dst->partition, src->partition.data, src->partition.len);
    if (!e)
        e = files_copy(&dst->new_files, &dst->n_new_files, src->new_files, src->n_new_files);
    if (!e)
        e = files_copy(&dst->compact_before, &dst->n_compact_before, src->compact_before, src->n_compact_before);
    if (!e)
        e = files_copy(&dst->compact_after, &dst->n_compact_after, src->compact_after, src->n_compact_after);
    if (!e)
        e = files_copy(&dst->changelog, &dst->n_changelog, src->changelog, src->n_changelog);
    if (!e)
        e = index_copy(&dst->index_added, &dst->n_index_added, src->index_added, src->n_index_added);
    if (!e)
        e = index_copy(&dst->index_removed, &dst->n_index_removed, src->index_removed, src->n_index_removed);
    if (e)
        pm_commit_message_clear(dst);
    return e;
}
