/*
 * table/bucket_restore.c — per-(partition, bucket) restore table for the
 * writers (bucket_restore.h): entries in insertion order, found through a
 * bucket_index.h index over their owned partition copies.
 */
#include "table/bucket_restore.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "table/partition.h"

void pm_bucket_restore_free(pm_bucket_restore *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->entries[i].partition);
    free(r->entries);
    pm_bucket_index_free(&r->index);
    memset(r, 0, sizeof *r);
}

pm_error *pm_bucket_restore_add(pm_bucket_restore *r, const uint8_t *part, size_t plen, int32_t bucket,
                                int32_t total_buckets, int64_t max_seq)
{
    uint64_t h = pm_bucket_hash(part, plen, bucket);
    int32_t k = pm_bucket_index_find(&r->index, part, plen, bucket, h);
    if (k >= 0) {
        if (max_seq > r->entries[k].max_seq)
            r->entries[k].max_seq = max_seq;
        return NULL;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        PM_TRY(pm_realloc_array(&r->entries, cap, sizeof *r->entries));
        r->cap = cap;
    }
    pm_bucket_restore_entry *en = &r->entries[r->n];
    memset(en, 0, sizeof *en);
    PM_TRY(pm_calloc(&en->partition, plen ? plen : 1, 1));
    if (plen)
        memcpy(en->partition, part, plen);
    pm_error *e = pm_bucket_index_add(&r->index, en->partition, plen, bucket, h, (int32_t)r->n);
    if (e) {
        free(en->partition);
        en->partition = NULL;
        return e;
    }
    en->plen = plen;
    en->bucket = bucket;
    en->total_buckets = total_buckets;
    en->max_seq = max_seq;
    r->n++;
    return NULL;
}

pm_error *pm_bucket_restore_next_seq(const pm_bucket_restore *r, pm_table *t, bool partitioned,
                                     const uint8_t *part, size_t plen, int32_t bucket, int32_t nbuckets,
                                     int64_t *next_seq)
{
    int32_t k = pm_bucket_index_find(&r->index, part, plen, bucket, pm_bucket_hash(part, plen, bucket));
    if (k < 0)
        return NULL;
    const pm_bucket_restore_entry *en = &r->entries[k];
    if (en->total_buckets != nbuckets) {
        pm_buf p = PM_BUF_INIT;
        const char *ps = "";
        pm_error *de = pm_partition_display(t, part, plen, &p);
        if (!de)
            pm_error_free(pm_buf_cstr(&p, &ps));
        pm_error_free(de);
        pm_error *e = pm_error_new(PM_EINVALID, "try to write %s%s with a new bucket num %d, but the "
                                   "previous bucket num is %d; overwrite the table to rescale it",
                                   partitioned ? "partition " : "table", partitioned ? ps : "", (int)nbuckets,
                                   (int)en->total_buckets);
        pm_buf_free(&p);
        return e;
    }
    *next_seq = en->max_seq + 1;
    return NULL;
}
