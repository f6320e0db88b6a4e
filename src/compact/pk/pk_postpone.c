/*
 * compact/pk/pk_postpone.c — compaction of postpone-bucket primary-key
 * tables (bucket = -2), as Java's postpone compaction (CompactAction's
 * postpone path, PostponeBucketCompactSplitSource, the fixed-bucket sink
 * and the committable rewriters) does it, in one process:
 *   1. the latest snapshot's files of `bucket-postpone`, per partition
 *      (the builder's partition filters apply), in creation-time order
 *      (records are replayed exactly as they were written);
 *   2. the partition's bucket count: the total_buckets of its files in
 *      real buckets, else `postpone.default-bucket-num` (default 1);
 *   3. every record, not merged, with its row kind, goes through the
 *      primary-key writer with that many fixed buckets (the bucket
 *      function of the bucket key; sequence numbers after the buckets'
 *      live files; sorted and merged per bucket by the merge engine) into
 *      level-0 files of the table's format;
 *   4. one COMPACT snapshot: the postponed files removed, the new files
 *      added; a postponed file compacted meanwhile is PM_ECONFLICT (plan
 *      again).
 * Nothing is published on failure and every file written is deleted.
 * Without postponed files the run is an ordinary one over the real
 * buckets (so their level-0 files get compacted too); plans
 * (compact-plan) cover the real buckets only; automatic rounds after
 * writes compact nothing (Java's postpone writers do not compact).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/util.h"
#include "compact/pk/pk_compact.h"
#include "lsm/kv.h"
#include "meta/paths.h"
#include "table/commit_message.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/pk_write.h"
#include "table/table_commit.h"

#define ROWS 4096

bool pm_pk_is_postpone(pm_table *t) { return pm_table_num_buckets(t) == PM_BUCKET_POSTPONE; }

static int cmp_creation(const void *x, const void *y)
{
    const pm_data_file_meta *a = *(const pm_data_file_meta *const *)x, *b = *(const pm_data_file_meta *const *)y;
    int64_t ta = a->creation_time.has ? a->creation_time.v : INT64_MIN;
    int64_t tb = b->creation_time.has ? b->creation_time.v : INT64_MIN;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    return a < b ? -1 : a > b; /* manifest order */
}

/* The bucket count of partition `part` (step 2). */
static pm_error *bucket_count(const pm_scan_result *sr, const pm_options *o, const pm_bytes *part, int32_t *out)
{
    for (size_t i = 0; i < sr->nbuckets; i++) {
        const pm_bucket_files *bf = &sr->buckets[i];
        if (bf->bucket >= 0 && bf->nfiles && pm_compact_bytes_equal(&bf->partition, part)) {
            *out = bf->total_buckets;
            if (*out <= 0)
                return pm_error_new(PM_ECORRUPT, "bucket %d of a postpone-bucket table has total_buckets %d",
                                    (int)bf->bucket, (int)*out);
            return NULL;
        }
    }
    const char *v = pm_options_get(o, "postpone.default-bucket-num");
    *out = 1;
    if (v) {
        PM_TRY(pm_error_wrap(pm_parse_int32(v, out), PM_EINVALID, "option postpone.default-bucket-num=%s", v));
        if (*out <= 0)
            return pm_error_new(PM_EINVALID, "option postpone.default-bucket-num=%s must be positive", v);
    }
    return NULL;
}

/* The input type of the writer: the fields and _ROW_KIND TINYINT. */
static pm_error *input_type(const pm_type *rt, pm_type **out)
{
    pm_type *t = pm_type_clone(rt);
    pm_type *k = pm_type_new(PM_TYPE_TINYINT, false);
    pm_error *e = t && k ? pm_type_add_field(t, -1, PM_ROW_KIND_COLUMN, k) : pm_oom();
    if (e) {
        pm_type_free(k);
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

/* Replay one postponed file into the writer (step 3). */
static pm_error *replay_file(pm_table *t, const pm_bucket_files *bf, const pm_data_file_meta *f, const pm_type *in,
                             pm_pk_writer *w, pm_compact_metrics *m)
{
    const pm_type *rt = pm_table_schema(t)->row_type;
    char *dir = NULL;
    PM_TRY(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, bf->bucket, &dir));
    pm_file_read_options fo = {rt, ROWS, true, NULL};
    pm_file_reader *fr = NULL;
    pm_error *e = pm_file_reader_open(&fr, t, dir, f, &fo);
    free(dir);
    PM_TRY(e);
    while (!e) {
        const pm_batch *b = NULL;
        e = pm_file_reader_next(fr, &b);
        if (e || !b)
            break;
        if (!b->num_rows)
            continue;
        /* [_SEQUENCE_NUMBER, _VALUE_KIND, fields...] → [fields..., _ROW_KIND] */
        pm_column **cols = NULL;
        e = pm_calloc(&cols, rt->nfields + 1, sizeof *cols);
        if (e)
            break;
        for (size_t c = 0; c < rt->nfields; c++)
            cols[c] = b->columns[c + 2];
        cols[rt->nfields] = b->columns[1];
        pm_batch view = {.type = (pm_type *)in, .num_rows = b->num_rows, .ncolumns = rt->nfields + 1, .columns = cols};
        e = pm_pk_writer_write(w, &view);
        free(cols);
        m->rows_read += b->num_rows;
    }
    pm_file_reader_free(fr);
    return e ? pm_error_wrap(e, 0, "postponed file %s", f->file_name) : NULL;
}

/* Messages of one partition: the new files of every real bucket (as
 * compaction outputs) and the postponed files (removed). */
static pm_error *partition_messages(pm_table *t, const pm_bucket_files *pf, const pm_data_file_meta *const *files,
                                    size_t nfiles, int32_t nb, const pm_compact_builder *b, const pm_type *in,
                                    pm_commit_message **msgs, size_t *nmsgs, pm_compact_metrics *m)
{
    pm_pk_write_options wo = {false, NULL, 0, b->commit_user, nb};
    pm_pk_writer *w = NULL;
    PM_TRY(pm_pk_writer_new(&w, t, &wo));
    pm_error *e = NULL;
    for (size_t i = 0; i < nfiles && !e; i++) {
        e = replay_file(t, pf, files[i], in, w, m);
        m->bytes_read += files[i]->file_size;
    }
    pm_commit_message *out = NULL;
    size_t nout = 0;
    if (!e)
        e = pm_pk_writer_prepare_commit(w, &out, &nout);
    if (e) {
        pm_pk_writer_abort(w);
        return e;
    }
    pm_pk_writer_free(w);
    /* new files → compaction outputs; the postponed files → removed */
    e = pm_realloc_array(msgs, *nmsgs + nout + 1, sizeof **msgs);
    if (e) {
        for (size_t i = 0; i < nout; i++)
            pm_commit_message_clear(&out[i]);
        free(out);
        return e;
    }
    for (size_t i = 0; i < nout; i++) {
        pm_commit_message *c = &out[i];
        c->compact_after = c->new_files;
        c->n_compact_after = c->n_new_files;
        c->new_files = NULL;
        c->n_new_files = 0;
        m->files_added += (int64_t)c->n_compact_after;
        for (size_t k = 0; k < c->n_compact_after; k++) {
            m->rows_written += c->compact_after[k].row_count;
            m->bytes_written += c->compact_after[k].file_size;
        }
        (*msgs)[(*nmsgs)++] = *c;
    }
    free(out);
    pm_commit_message *rm = &(*msgs)[*nmsgs];
    memset(rm, 0, sizeof *rm);
    (*nmsgs)++;
    rm->bucket = PM_BUCKET_POSTPONE;
    rm->total_buckets = pf->total_buckets;
    PM_TRY(pm_bytes_set(&rm->partition, pf->partition.data, pf->partition.len));
    PM_TRY(pm_calloc(&rm->compact_before, nfiles, sizeof *rm->compact_before));
    for (size_t i = 0; i < nfiles; i++) {
        PM_TRY(pm_data_file_meta_copy(&rm->compact_before[i], files[i]));
        rm->n_compact_before = i + 1;
    }
    m->files_removed += (int64_t)nfiles;
    return NULL;
}

/* Delete the new files of messages that will not be published. */
static void delete_outputs(pm_table *t, pm_commit_message *msgs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *dir = NULL;
        if (!msgs[i].n_compact_after || pm_table_bucket_dir(t, msgs[i].partition.data, msgs[i].partition.len,
                                                            msgs[i].bucket, &dir))
            continue;
        for (size_t k = 0; k < msgs[i].n_compact_after; k++) {
            char *p = pm_path_join(dir, msgs[i].compact_after[k].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(t->fio, p));
            free(p);
        }
        free(dir);
    }
}

pm_error *pm_pk_postpone_run(pm_compact_metrics *out, pm_compact_builder *b, bool *done)
{
    *done = false;
    uint64_t t0 = pm_monotonic_ns();
    pm_table *t = b->table;
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_scan_result *sr = NULL;
    pm_scan_options so = pm_scan_options_default();
    so.partitions = b->specs;
    so.npartitions = b->nspecs;
    PM_TRY(pm_table_scan(t, &so, &sr));
    pm_type *in = NULL;
    pm_commit_message *msgs = NULL;
    size_t nmsgs = 0;
    const pm_data_file_meta **files = NULL;
    pm_error *e = input_type(pm_table_schema(t)->row_type, &in);
    for (size_t i = 0; !e && i < sr->nbuckets; i++) {
        const pm_bucket_files *pf = &sr->buckets[i];
        if (pf->bucket != PM_BUCKET_POSTPONE || !pf->nfiles)
            continue;
        int32_t nb = 0;
        e = bucket_count(sr, b->opts, &pf->partition, &nb);
        if (!e)
            e = pm_realloc_array(&files, pf->nfiles, sizeof *files);
        if (e)
            break;
        for (size_t k = 0; k < pf->nfiles; k++)
            files[k] = &pf->files[k];
        qsort(files, pf->nfiles, sizeof *files, cmp_creation);
        e = partition_messages(t, pf, files, pf->nfiles, nb, b, in, &msgs, &nmsgs, &m);
        m.tasks++;
        if (e) {
            pm_buf p = PM_BUF_INIT;
            pm_error_free(pm_partition_display(t, pf->partition.data, pf->partition.len, &p));
            e = pm_error_wrap(e, 0, "postpone-bucket compaction of partition '%.*s'", (int)p.len,
                              p.data ? (const char *)p.data : "");
            pm_buf_free(&p);
        }
    }
    free(files);
    *done = nmsgs > 0;
    if (!e && nmsgs) {
        pm_commit_options co;
        memset(&co, 0, sizeof co);
        co.commit_user = b->commit_user;
        co.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
        co.kind = PM_COMMIT_COMPACT;
        co.since_snapshot_id = sr->snapshot ? sr->snapshot->id : 0;
        e = pm_table_commit(t, &co, msgs, nmsgs, &m.snapshot_id);
        if (e && pm_error_code(e) == PM_ECONFLICT)
            e = pm_error_wrap(e, 0, "compaction conflict, replan: a postponed file is gone");
        if (e && pm_error_code(e) != PM_EUNCERTAIN)
            delete_outputs(t, msgs, nmsgs);
    } else if (e) {
        delete_outputs(t, msgs, nmsgs);
    }
    pm_commit_message_array_free(msgs, nmsgs);
    pm_type_free(in);
    pm_scan_result_free(sr);
    if (e)
        return pm_error_wrap(e, 0, "compact table %s", pm_table_path(t));
    m.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    pm_compact_metrics_put(out, &m);
    return NULL;
}
