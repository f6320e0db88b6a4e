/*
 * table/pk_write.c — primary-key writer (pk_write.h).
 *
 * write(batch):
 *  1. Align: one column per table field by name (table/write_align.h:
 *     missing nullable fields → cached all-null columns), the optional
 *     `_ROW_KIND` column (or rowkind.field) turned into one kind byte per
 *     row; the row-kind filter drops rows.
 *  2. Route: partition BinaryRow (serialized) and bucket per row; a hash
 *     map finds the bucket state; rows are grouped per bucket by a stable
 *     counting sort, so each bucket sees its rows in input order.
 *  3. Buffer: per bucket the rows are appended column by column to the
 *     bucket's KV batch: key columns copied from the key fields, the next
 *     sequence numbers, the kinds, then every value column.
 *  4. Memory: the buffered bytes of all buckets are summed; above
 *     write-buffer-size the largest buffer is sorted and spilled as a run
 *     (or flushed to level 0 when the buffer is not spillable).
 * sort(bucket): a stable permutation by sort key (lsm/merge_iter.h
 * pm_kv_sort_rows; memcmp order = key, sequence fields, sequence number);
 * rows are read out of the buffer through it 4096 at a time
 * (pm_kv_source_sorted), so only one sorted chunk exists at a time.
 * flush(bucket): merge reader over [spilled runs..., in-memory run] →
 * groups → merge function (reducer mode) → KV batch of 4096 rows →
 * level-0 rolling file writer; changelog-producer=input copies each
 * group's raw records to the changelog writer first.
 */
#include "table/pk_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/util.h"
#include "lsm/kv.h"
#include "lsm/merge_engine.h"
#include "lsm/merge_iter.h"
#include "lsm/merge_reader.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "table/bucket_index.h"
#include "table/bucket_restore.h"
#include "table/pk_cross.h"
#include "table/pk_dynamic.h"
#include "table/partition.h"
#include "table/pk_column.h"
#include "table/pk_file_writer.h"
#include "table/pk_spill.h"
#include "table/scan.h"
#include "table/write_align.h"
#include "types/binary_row.h"
#include "types/bucket.h"
#include "types/column.h"

#define CHUNK_ROWS 4096

/* ------------------------------------------------------------------ */
/* state                                                               */

typedef struct pk_bucket {
    uint8_t *partition;
    size_t plen;
    int32_t bucket;
    int64_t next_seq;
    pm_batch *buf;             /* KV batch being filled */
    int64_t buf_bytes;
    pm_kv_source *runs;        /* spilled sorted runs */
    size_t nruns, capruns;
    pm_data_file_meta *files;  /* finished data files not handed out */
    size_t nfiles;
    pm_data_file_meta *changelog;
    size_t nchangelog;
    /* routing scratch */
    int64_t count, offset;
} pk_bucket;

struct pm_pk_writer {
    pm_table *t;
    const pm_schema *schema;
    const pm_type *row_type;
    const pm_options *opts;
    pm_type *kv_type;
    size_t nkey, nvalue, ncols;
    size_t *key_field;         /* value field index of key k */
    pm_kv_layout layout;       /* physical layout + sequence fields */
    pm_kv_keyenc *enc;
    pm_merge_fn *mf;
    bool ignore_delete, ignore_ub;
    ptrdiff_t rowkind_field;   /* `rowkind.field`: kinds come from this STRING field, -1 = none */
    bool changelog_input;
    bool spillable;
    int64_t buffer_limit;
    int64_t buffered;          /* bytes in all buffers */
    bool ignore_previous;
    const char *spill_dir;
    pm_pk_spill *spill;
    /* routing */
    size_t *part_idx;
    size_t npart;
    int32_t nbuckets;
    pm_bucket_fn bfn;
    size_t *bkey_idx;
    size_t nbkey;
    pk_bucket **buckets;
    size_t nbuckets_used, capbuckets;
    pm_bucket_index index;     /* (partition, bucket) → index into buckets */
    pm_bucket_restore restore; /* live buckets of the latest snapshot */
    pm_pk_dynamic *dyn;        /* bucket = -1: the dynamic-bucket assigner and its HASH index */
    pm_pk_cross *cross;        /* bucket = -1, cross-partition updates: routing at prepare */
    bool postpone;             /* bucket = -2: arrival order into bucket-postpone */
    bool retract_checked;      /* postpone: the first retract was checked with mf_full */
    pm_merge_fn *mf_full;      /* postpone: that check */
    pm_options *wopts;         /* postpone: the writer schema's options (avro, no stats, prefix) */
    pm_schema wschema;
    const pm_schema *file_schema; /* the schema files are written with */
    /* per-batch scratch */
    pm_binrow_writer prow, brow;
    pm_buf pbuf;
    pm_write_aligner align;    /* input columns → table fields (_ROW_KIND read apart) */
    uint8_t *kinds;
    int32_t *route;
    int64_t *order;
    size_t cap_rows;
    pm_pk_write_stats stats;
};

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

pm_error *pm_row_kind_parse(const char *s, size_t n, uint8_t *out)
{
    if (n == 2 && (s[0] == '+' || s[0] == '-')) {
        if (s[0] == '+' && s[1] == 'I') {
            *out = PM_KIND_INSERT;
            return NULL;
        }
        if (s[0] == '-' && s[1] == 'U') {
            *out = PM_KIND_UPDATE_BEFORE;
            return NULL;
        }
        if (s[0] == '+' && s[1] == 'U') {
            *out = PM_KIND_UPDATE_AFTER;
            return NULL;
        }
        if (s[0] == '-' && s[1] == 'D') {
            *out = PM_KIND_DELETE;
            return NULL;
        }
    }
    return pm_error_new(PM_EINVALID, "row kind '%.*s' is not one of +I, -U, +U, -D", (int)(n > 64 ? 64 : n), s);
}

static int64_t column_bytes(const pm_column *c)
{
    int64_t n = (int64_t)(c->values.len + c->data.len + c->offsets.len + c->validity.len);
    for (size_t k = 0; k < c->nchildren; k++)
        n += column_bytes(c->children[k]);
    return n;
}

static int64_t batch_bytes(const pm_batch *b)
{
    int64_t n = 0;
    for (size_t c = 0; c < b->ncolumns; c++)
        n += column_bytes(b->columns[c]);
    return n;
}

/* ------------------------------------------------------------------ */
/* sorting a buffer                                                    */

/* The bucket's buffer as a sorted source (lsm/merge_iter.h: a stable
 * sort permutation, rows copied out CHUNK_ROWS at a time); the bucket
 * gets a fresh buffer. */
static pm_error *buffer_source(pm_pk_writer *w, pk_bucket *b, pm_kv_source *out)
{
    int64_t n = b->buf->num_rows;
    int64_t *perm = NULL;
    PM_TRY(pm_calloc(&perm, (size_t)n ? (size_t)n : 1, sizeof *perm));
    pm_batch *fresh = NULL;
    pm_error *e = pm_kv_sort_rows(&w->layout, b->buf, perm);
    if (!e)
        e = pm_batch_new(&fresh, w->kv_type);
    if (e) {
        free(perm);
        return e;
    }
    pm_batch *buf = b->buf;
    b->buf = fresh;
    w->buffered -= b->buf_bytes;
    b->buf_bytes = 0;
    return pm_kv_source_sorted(buf, perm, n, CHUNK_ROWS, out);
}

/* ------------------------------------------------------------------ */
/* buckets                                                             */

static void bucket_free(pm_pk_writer *w, pk_bucket *b, bool delete_files)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nruns; i++)
        if (b->runs[i].close)
            b->runs[i].close(b->runs[i].ctx);
    free(b->runs);
    char *dir = NULL;
    if (delete_files && (b->nfiles || b->nchangelog)) {
        pm_error *e = pm_table_bucket_dir(w->t, b->partition, b->plen, b->bucket, &dir);
        pm_error_free(e);
    }
    for (size_t i = 0; i < b->nfiles; i++) {
        if (dir) {
            char *p = pm_path_join(dir, b->files[i].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(w->t->fio, p));
            free(p);
        }
        pm_data_file_meta_clear(&b->files[i]);
    }
    for (size_t i = 0; i < b->nchangelog; i++) {
        if (dir) {
            char *p = pm_path_join(dir, b->changelog[i].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(w->t->fio, p));
            free(p);
        }
        pm_data_file_meta_clear(&b->changelog[i]);
    }
    free(dir);
    free(b->files);
    free(b->changelog);
    pm_batch_free(b->buf);
    free(b->partition);
    free(b);
}

static pm_error *load_restore(pm_pk_writer *w)
{
    w->restore.loaded = true;
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_TRY(pm_table_scan(w->t, &so, &scan));
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < scan->nbuckets; i++) {
        const pm_bucket_files *bf = &scan->buckets[i];
        for (size_t f = 0; !e && f < bf->nfiles; f++)
            e = pm_bucket_restore_add(&w->restore, bf->partition.data, bf->partition.len, bf->bucket,
                                      bf->total_buckets, bf->files[f].max_sequence_number);
    }
    pm_scan_result_free(scan);
    return e ? pm_error_wrap(e, 0, "restore sequence numbers from the latest snapshot") : NULL;
}

static pm_error *new_bucket(pm_pk_writer *w, const uint8_t *part, size_t plen, int32_t bucket, pk_bucket **out)
{
    pk_bucket *b;
    PM_TRY(pm_calloc(&b, 1, sizeof *b));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_calloc(&b->partition, plen ? plen : 1, 1), fail);
    memcpy(b->partition, part, plen);
    b->plen = plen;
    b->bucket = bucket;
    PM_TRY_GOTO(e, pm_batch_new(&b->buf, w->kv_type), fail);
    if (!w->ignore_previous) {
        if (!w->restore.loaded)
            PM_TRY_GOTO(e, load_restore(w), fail);
        PM_TRY_GOTO(e, pm_bucket_restore_next_seq(&w->restore, w->t, w->npart > 0, part, plen, bucket,
                                                  w->nbuckets, &b->next_seq),
                    fail);
    }
    *out = b;
    return NULL;
fail:
    bucket_free(w, b, false);
    return e;
}

static pm_error *find_bucket(pm_pk_writer *w, const uint8_t *part, size_t plen, int32_t bucket, int32_t *idx)
{
    uint64_t h = pm_bucket_hash(part, plen, bucket);
    *idx = pm_bucket_index_find(&w->index, part, plen, bucket, h);
    if (*idx >= 0)
        return NULL;
    if (w->nbuckets_used >= INT32_MAX - 1)
        return pm_error_new(PM_EUNSUPPORTED, "too many (partition, bucket) writers");
    if (w->nbuckets_used == w->capbuckets) {
        size_t cap = w->capbuckets ? w->capbuckets * 2 : 8;
        PM_TRY(pm_realloc_array(&w->buckets, cap, sizeof *w->buckets));
        w->capbuckets = cap;
    }
    pk_bucket *b = NULL;
    PM_TRY(new_bucket(w, part, plen, bucket, &b));
    pm_error *e = pm_bucket_index_add(&w->index, b->partition, plen, bucket, h, (int32_t)w->nbuckets_used);
    if (e) {
        bucket_free(w, b, false);
        return e;
    }
    w->buckets[w->nbuckets_used] = b;
    *idx = (int32_t)w->nbuckets_used;
    w->nbuckets_used++;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* spill and flush                                                     */

static pm_error *spill_ops(pm_pk_writer *w, const pm_kv_spill **ops)
{
    if (!w->spill)
        PM_TRY(pm_pk_spill_new(&w->spill, w->spill_dir));
    return pm_pk_spill_callbacks(w->spill, ops);
}

static pm_error *push_run(pk_bucket *b, const pm_kv_source *src)
{
    if (b->nruns == b->capruns) {
        size_t cap = b->capruns ? b->capruns * 2 : 4;
        PM_TRY(pm_realloc_array(&b->runs, cap, sizeof *b->runs));
        b->capruns = cap;
    }
    b->runs[b->nruns++] = *src;
    return NULL;
}

/* Sort the bucket's buffer and write it as a spilled run. */
static pm_error *spill_bucket(pm_pk_writer *w, pk_bucket *b)
{
    if (!b->buf->num_rows)
        return NULL;
    const pm_kv_spill *cb = NULL;
    PM_TRY(spill_ops(w, &cb));
    pm_kv_source src;
    PM_TRY(buffer_source(w, b, &src));
    void *run = NULL;
    pm_error *e = cb->create(cb->ctx, w->kv_type, &run);
    while (!e) {
        pm_batch *chunk = NULL;
        e = src.next(src.ctx, &chunk);
        if (e || !chunk)
            break;
        e = cb->write(cb->ctx, run, chunk);
    }
    src.close(src.ctx);
    pm_kv_source done = {0};
    if (!e)
        e = cb->finish(cb->ctx, run, &done);
    else if (run)
        cb->abort(cb->ctx, run);
    if (!e) {
        e = push_run(b, &done);
        if (e)
            done.close(done.ctx);
    }
    if (!e)
        w->stats.spilled_runs++;
    return e;
}

static pm_error *append_files(pm_data_file_meta **arr, size_t *n, pm_data_file_meta *add, size_t nadd)
{
    if (!nadd)
        return NULL;
    PM_TRY(pm_realloc_array(arr, *n + nadd, sizeof **arr));
    memcpy(*arr + *n, add, nadd * sizeof *add);
    *n += nadd;
    return NULL;
}

/* Write out batch `out` (finished) to fw and reset it. */
static pm_error *drain(pm_pk_file_writer *fw, pm_batch *out, int64_t rows)
{
    if (!rows)
        return NULL;
    PM_TRY(pm_batch_finish(out, rows));
    PM_TRY(pm_pk_file_writer_write(fw, out));
    return pm_batch_reset(out);
}

/* Postpone: the buffer as it is (arrival order) into level-0 files; the
 * first retract is checked with the merge engine (Java's
 * validateRetract). */
static pm_error *flush_direct(pm_pk_writer *w, pk_bucket *b)
{
    pm_batch *buf = b->buf;
    if (!buf->num_rows)
        return NULL;
    for (int64_t r = 0; !w->retract_checked && r < buf->num_rows; r++) {
        pm_kv_rec rec;
        pm_kv_rec_at(&rec, buf, &w->layout, r);
        if (!pm_kind_is_retract(rec.kind))
            continue;
        pm_merge_result res;
        PM_TRY(pm_merge_fn_fold(w->mf_full, &w->layout, &rec, 1, &res));
        w->retract_checked = true;
    }
    pm_pk_file_writer *fw = NULL;
    pm_pk_file_writer_options fo = {0, PM_FILE_SOURCE_APPEND, false, 0, 0};
    PM_TRY(pm_pk_file_writer_new(&fw, w->t, w->file_schema, b->partition, b->plen, b->bucket, &fo));
    pm_data_file_meta *files = NULL;
    size_t nfiles = 0;
    pm_error *e = pm_pk_file_writer_write(fw, buf);
    if (!e)
        e = pm_pk_file_writer_finish(fw, &files, &nfiles);
    if (e) {
        pm_pk_file_writer_abort(fw);
        return e;
    }
    pm_pk_file_writer_free(fw);
    w->stats.records_written += buf->num_rows;
    e = append_files(&b->files, &b->nfiles, files, nfiles);
    if (e)
        for (size_t i = 0; i < nfiles; i++)
            pm_data_file_meta_clear(&files[i]);
    free(files);
    PM_TRY(e);
    w->buffered -= b->buf_bytes;
    b->buf_bytes = 0;
    return pm_batch_reset(buf);
}

/* Merge the bucket's runs and buffer into level-0 files. */
static pm_error *flush_bucket(pm_pk_writer *w, pk_bucket *b)
{
    if (w->postpone)
        return flush_direct(w, b);
    size_t nsrc = b->nruns + (b->buf->num_rows ? 1 : 0);
    if (!nsrc)
        return NULL;
    pm_kv_source *srcs = NULL;
    pm_error *e = pm_calloc(&srcs, nsrc, sizeof *srcs);
    if (e)
        return e;
    size_t k = 0;
    for (size_t i = 0; i < b->nruns; i++)
        srcs[k++] = b->runs[i];
    b->nruns = 0; /* handed to the merge below (closed by it) */
    if (b->buf->num_rows) {
        e = buffer_source(w, b, &srcs[k]);
        if (e) {
            for (size_t i = 0; i < k; i++)
                srcs[i].close(srcs[i].ctx);
            free(srcs);
            return e;
        }
        k++;
    }
    const pm_kv_spill *ops = NULL;
    if (nsrc > PM_MERGE_MAX_FAN_IN) {
        e = spill_ops(w, &ops);
        if (e) {
            for (size_t i = 0; i < nsrc; i++)
                srcs[i].close(srcs[i].ctx);
            free(srcs);
            return e;
        }
    }
    pm_merge_options mo = {w->kv_type, &w->layout, 0, ops, CHUNK_ROWS};
    pm_merge_reader *mr = NULL;
    e = pm_merge_reader_new(&mr, srcs, nsrc, &mo);
    free(srcs);
    if (e)
        return e;
    pm_pk_file_writer *fw = NULL, *cw = NULL;
    pm_batch *out = NULL, *cl = NULL;
    int64_t nout = 0, ncl = 0;
    pm_pk_file_writer_options fo = {0, PM_FILE_SOURCE_APPEND, false, 0, 0};
    PM_TRY_GOTO(e, pm_pk_file_writer_new(&fw, w->t, w->file_schema, b->partition, b->plen, b->bucket, &fo), fail);
    PM_TRY_GOTO(e, pm_batch_new(&out, w->kv_type), fail);
    if (w->changelog_input) {
        pm_pk_file_writer_options co = {0, PM_FILE_SOURCE_APPEND, true, 0, 0};
        PM_TRY_GOTO(e, pm_pk_file_writer_new(&cw, w->t, w->schema, b->partition, b->plen, b->bucket, &co), fail);
        PM_TRY_GOTO(e, pm_batch_new(&cl, w->kv_type), fail);
    }
    for (;;) {
        pm_kv_group g;
        bool eof = false;
        PM_TRY_GOTO(e, pm_merge_reader_next(mr, &g, &eof), fail);
        if (eof)
            break;
        if (cw) {
            for (size_t r = 0; r < g.n; r++) {
                const pm_kv_rec *rec = &g.recs[r];
                for (size_t c = 0; c < w->ncols; c++)
                    PM_TRY_GOTO(e, pm_column_append_from(cl->columns[c], rec->batch->columns[c], rec->row), fail);
                if (++ncl == CHUNK_ROWS) {
                    PM_TRY_GOTO(e, drain(cw, cl, ncl), fail);
                    ncl = 0;
                }
            }
        }
        pm_merge_result res;
        PM_TRY_GOTO(e, pm_merge_fn_fold(w->mf, &w->layout, g.recs, g.n, &res), fail);
        if (!res.has)
            continue;
        PM_TRY_GOTO(e, pm_merge_fn_emit(w->mf, out, &w->layout), fail);
        if (++nout == CHUNK_ROWS) {
            PM_TRY_GOTO(e, drain(fw, out, nout), fail);
            w->stats.records_written += nout;
            nout = 0;
        }
    }
    PM_TRY_GOTO(e, drain(fw, out, nout), fail);
    w->stats.records_written += nout;
    nout = 0;
    if (cw) {
        PM_TRY_GOTO(e, drain(cw, cl, ncl), fail);
        ncl = 0;
    }
    pm_merge_reader_free(mr);
    mr = NULL;
    pm_data_file_meta *files = NULL;
    size_t nfiles = 0;
    PM_TRY_GOTO(e, pm_pk_file_writer_finish(fw, &files, &nfiles), fail);
    e = append_files(&b->files, &b->nfiles, files, nfiles);
    if (e) {
        for (size_t i = 0; i < nfiles; i++)
            pm_data_file_meta_clear(&files[i]);
    }
    free(files);
    if (e)
        goto fail;
    if (cw) {
        PM_TRY_GOTO(e, pm_pk_file_writer_finish(cw, &files, &nfiles), fail);
        e = append_files(&b->changelog, &b->nchangelog, files, nfiles);
        if (e) {
            for (size_t i = 0; i < nfiles; i++)
                pm_data_file_meta_clear(&files[i]);
        }
        free(files);
        if (e)
            goto fail;
    }
    pm_pk_file_writer_free(fw);
    pm_pk_file_writer_free(cw);
    pm_batch_free(out);
    pm_batch_free(cl);
    return NULL;
fail:
    pm_merge_reader_free(mr);
    pm_pk_file_writer_abort(fw);
    pm_pk_file_writer_abort(cw);
    pm_batch_free(out);
    pm_batch_free(cl);
    return e;
}

/* Memory over the budget: spill (or flush) the largest buffers. */
static pm_error *relieve_memory(pm_pk_writer *w)
{
    while (w->buffered > w->buffer_limit) {
        pk_bucket *big = NULL;
        for (size_t i = 0; i < w->nbuckets_used; i++)
            if (!big || w->buckets[i]->buf_bytes > big->buf_bytes)
                big = w->buckets[i];
        if (!big || !big->buf->num_rows)
            return NULL;
        if (w->spillable && !w->postpone) {
            PM_TRY(spill_bucket(w, big));
        } else {
            PM_TRY(flush_bucket(w, big));
            w->stats.early_flushes++;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* write                                                               */

static pm_error *ensure_rows(pm_pk_writer *w, int64_t n)
{
    if ((size_t)n <= w->cap_rows)
        return NULL;
    PM_TRY(pm_realloc_array(&w->kinds, (size_t)n, sizeof *w->kinds));
    PM_TRY(pm_realloc_array(&w->route, (size_t)n, sizeof *w->route));
    PM_TRY(pm_realloc_array(&w->order, (size_t)n, sizeof *w->order));
    w->cap_rows = (size_t)n;
    return NULL;
}

static pm_error *read_kinds(pm_pk_writer *w, const pm_column *c, int64_t n, bool null_ok)
{
    if (c->type->id == PM_TYPE_TINYINT) {
        for (int64_t r = 0; r < n; r++) {
            if (pm_column_is_null(c, r)) {
                w->kinds[r] = PM_KIND_INSERT;
                continue;
            }
            int8_t k = pm_column_i8(c, r);
            if (k < 0 || k > 3)
                return pm_error_new(PM_EINVALID, "row %lld: %s %d is not a row kind (0..3)", (long long)r,
                                    PM_ROW_KIND_COLUMN, (int)k);
            w->kinds[r] = (uint8_t)k;
        }
        return NULL;
    }
    if (c->type->id != PM_TYPE_VARCHAR && c->type->id != PM_TYPE_CHAR)
        return pm_error_new(PM_EINVALID, "column %s must be STRING (+I, -U, +U, -D) or TINYINT, got %s",
                            PM_ROW_KIND_COLUMN, pm_type_id_name(c->type->id));
    for (int64_t r = 0; r < n; r++) {
        if (pm_column_is_null(c, r)) {
            if (!null_ok)
                return pm_error_new(PM_EINVALID, "row %lld: the rowkind.field column is null", (long long)r);
            w->kinds[r] = PM_KIND_INSERT;
            continue;
        }
        size_t len;
        const uint8_t *p = pm_column_bytes(c, r, &len);
        pm_error *e = pm_row_kind_parse((const char *)p, len, &w->kinds[r]);
        if (e)
            return pm_error_wrap(e, 0, "row %lld, column %s", (long long)r, PM_ROW_KIND_COLUMN);
    }
    return NULL;
}

/* The input's columns per table field, and each row's kind (_ROW_KIND,
 * or rowkind.field; +I by default). */
static pm_error *align(pm_pk_writer *w, const pm_batch *in)
{
    const pm_type *rt = w->row_type, *it = in->type;
    int64_t n = in->num_rows;
    PM_TRY(ensure_rows(w, n));
    memset(w->kinds, PM_KIND_INSERT, (size_t)n);
    ptrdiff_t k = pm_type_field_index(it, PM_ROW_KIND_COLUMN);
    if (k >= 0) {
        const pm_column *c = in->columns[k];
        if (c->length < n)
            return pm_error_new(PM_EINVALID, "column %s is shorter than the batch", PM_ROW_KIND_COLUMN);
        if (w->rowkind_field >= 0 && c->null_count < n)
            return pm_error_new(PM_EINVALID, "the table takes row kinds from rowkind.field '%s'; the input must "
                                             "not also have a %s column",
                                rt->fields[w->rowkind_field].name, PM_ROW_KIND_COLUMN);
        /* with rowkind.field, an all-null _ROW_KIND column (e.g. the CLI's) says nothing */
        if (w->rowkind_field < 0)
            PM_TRY(read_kinds(w, c, n, true));
    }
    PM_TRY(pm_write_align(&w->align, in));
    if (w->rowkind_field >= 0)
        PM_TRY(pm_error_wrap(read_kinds(w, w->align.aligned[w->rowkind_field], n, false), 0, "rowkind.field '%s'",
                             rt->fields[w->rowkind_field].name));
    return NULL;
}

static bool keep_kind(const pm_pk_writer *w, uint8_t k)
{
    if (k == PM_KIND_DELETE)
        return !w->ignore_delete;
    if (k == PM_KIND_UPDATE_BEFORE)
        return !w->ignore_delete && !w->ignore_ub;
    return true;
}

/* Append rows order[start, start + count) to the bucket's buffer. */
static pm_error *buffer_rows(pm_pk_writer *w, pk_bucket *b, const int64_t *rows, int64_t count)
{
    pm_batch *buf = b->buf;
    int64_t before = batch_bytes(buf);
    for (size_t c = 0; c < w->ncols; c++) {
        pm_column *d = buf->columns[c];
        PM_TRY(pm_column_reserve(d, count));
        if (c == w->nkey) {
            for (int64_t i = 0; i < count; i++)
                PM_TRY(pm_column_append_i64(d, b->next_seq + i));
        } else if (c == w->nkey + 1) {
            for (int64_t i = 0; i < count; i++)
                PM_TRY(pm_column_append_i8(d, (int8_t)w->kinds[rows[i]]));
        } else {
            size_t f = c < w->nkey ? w->key_field[c] : c - w->nkey - 2;
            const pm_column *s = w->align.aligned[f];
            /* runs of consecutive input rows are copied in bulk */
            for (int64_t i = 0; i < count;) {
                int64_t j = i + 1;
                while (j < count && rows[j] == rows[j - 1] + 1)
                    j++;
                PM_TRY(pm_pk_append_range(d, s, rows[i], j - i));
                i = j;
            }
        }
    }
    b->next_seq += count;
    PM_TRY(pm_batch_finish(buf, buf->num_rows + count));
    int64_t after = batch_bytes(buf);
    b->buf_bytes += after - before;
    w->buffered += after - before;
    return NULL;
}

/* Rows of `in` into their buckets' buffers; forced (may be NULL): the
 * bucket of every row (cross-partition routing). */
static pm_error *write_batch(pm_pk_writer *w, const pm_batch *in, const int32_t *forced);

pm_error *pm_pk_writer_write(pm_pk_writer *w, const pm_batch *in)
{
    if (!w->cross || !in->num_rows)
        return write_batch(w, in, NULL);
    /* cross-partition: kept until prepare, routed then */
    PM_TRY(align(w, in));
    int64_t n = in->num_rows, k = 0;
    for (int64_t r = 0; r < n; r++) {
        if (keep_kind(w, w->kinds[r]))
            w->order[k++] = r;
        else
            w->stats.rows_dropped++;
    }
    w->stats.rows_in += k;
    return pm_pk_cross_add(w->cross, w->align.aligned, w->kinds, w->order, k);
}

static pm_error *cross_emit(void *ctx, const pm_batch *rows, const int32_t *buckets)
{
    pm_pk_writer *w = ctx;
    int64_t before = w->stats.rows_in;
    PM_TRY(write_batch(w, rows, buckets));
    w->stats.rows_in = before; /* counted when they arrived */
    return NULL;
}

static pm_error *write_batch(pm_pk_writer *w, const pm_batch *in, const int32_t *forced)
{
    int64_t n = in->num_rows;
    if (n == 0)
        return NULL;
    PM_TRY(align(w, in));
    static const uint8_t empty_part[12] = {0};
    int32_t last_idx = -1, last_bucket = -1;
    for (int64_t r = 0; r < n; r++) {
        if (!keep_kind(w, w->kinds[r])) {
            w->route[r] = -1;
            w->stats.rows_dropped++;
            continue;
        }
        const uint8_t *part = empty_part;
        size_t plen = sizeof empty_part;
        if (w->npart) {
            PM_TRY(pm_binrow_from_columns(&w->prow, w->align.aligned, w->part_idx, w->npart, r));
            pm_buf_clear(&w->pbuf);
            PM_TRY(pm_binrow_serialize(&w->prow, &w->pbuf));
            part = w->pbuf.data;
            plen = w->pbuf.len;
        }
        int32_t bucket = 0;
        if (forced) {
            bucket = forced[r];
        } else if (w->postpone) {
            bucket = PM_BUCKET_POSTPONE;
        } else if (w->dyn) {
            /* dynamic bucket: the key hash's bucket in its partition */
            int32_t part_hash = 0;
            if (w->npart) {
                part_hash = pm_binrow_hash(&w->prow);
            } else {
                PM_TRY(pm_binrow_from_columns(&w->prow, w->align.aligned, NULL, 0, r));
                part_hash = pm_binrow_hash(&w->prow);
            }
            PM_TRY(pm_binrow_from_columns(&w->brow, w->align.aligned, w->bkey_idx, w->nbkey, r));
            PM_TRY(pm_pk_dynamic_assign(w->dyn, part, plen, part_hash, pm_binrow_hash(&w->brow), &bucket));
        } else {
            PM_TRY(pm_bucket_of_row(w->bfn, w->nbuckets, &w->brow, w->align.aligned, w->bkey_idx, w->nbkey, r,
                                    &bucket));
        }
        int32_t idx = -1;
        if (last_idx >= 0 && bucket == last_bucket && w->buckets[last_idx]->plen == plen &&
            !memcmp(w->buckets[last_idx]->partition, part, plen)) {
            idx = last_idx;
        } else {
            PM_TRY(find_bucket(w, part, plen, bucket, &idx));
            last_idx = idx;
            last_bucket = bucket;
        }
        w->route[r] = idx;
    }
    /* stable counting sort of rows by bucket */
    for (size_t i = 0; i < w->nbuckets_used; i++)
        w->buckets[i]->count = 0;
    for (int64_t r = 0; r < n; r++)
        if (w->route[r] >= 0)
            w->buckets[w->route[r]]->count++;
    int64_t off = 0;
    for (size_t i = 0; i < w->nbuckets_used; i++) {
        w->buckets[i]->offset = off;
        off += w->buckets[i]->count;
    }
    for (int64_t r = 0; r < n; r++)
        if (w->route[r] >= 0)
            w->order[w->buckets[w->route[r]]->offset++] = r;
    int64_t start = 0;
    for (size_t i = 0; i < w->nbuckets_used; i++) {
        pk_bucket *b = w->buckets[i];
        if (!b->count)
            continue;
        PM_TRY(buffer_rows(w, b, w->order + start, b->count));
        w->stats.rows_in += b->count;
        start += b->count;
    }
    return relieve_memory(w);
}

/* Attach the dynamic bucket index changes to the messages of their
 * (partition, bucket); a bucket without new files gets a message of its
 * own (moved: the changes are cleared). */
static pm_error *attach_index(pm_pk_writer *w, pm_commit_message **msgs, size_t *n, pm_pk_dynamic_change *cs,
                              size_t nc)
{
    for (size_t i = 0; i < nc; i++) {
        pm_pk_dynamic_change *c = &cs[i];
        pm_commit_message *m = NULL;
        for (size_t k = 0; k < *n && !m; k++)
            if ((*msgs)[k].bucket == c->bucket && (*msgs)[k].partition.len == c->partition.len &&
                (!c->partition.len || !memcmp((*msgs)[k].partition.data, c->partition.data, c->partition.len)))
                m = &(*msgs)[k];
        if (!m) {
            PM_TRY(pm_realloc_array(msgs, *n + 1, sizeof **msgs));
            m = &(*msgs)[(*n)++];
            memset(m, 0, sizeof *m);
            PM_TRY(pm_bytes_set(&m->partition, c->partition.data, c->partition.len));
            m->bucket = c->bucket;
            m->total_buckets = w->nbuckets;
        }
        PM_TRY(pm_calloc(&m->index_added, 1, sizeof *m->index_added));
        m->index_added[0] = c->added; /* move */
        memset(&c->added, 0, sizeof c->added);
        m->n_index_added = 1;
        if (c->has_removed) {
            PM_TRY(pm_calloc(&m->index_removed, 1, sizeof *m->index_removed));
            m->index_removed[0] = c->removed; /* move */
            memset(&c->removed, 0, sizeof c->removed);
            c->has_removed = false;
            m->n_index_removed = 1;
        }
    }
    return NULL;
}

pm_error *pm_pk_writer_prepare_commit(pm_pk_writer *w, pm_commit_message **msgs, size_t *n)
{
    *msgs = NULL;
    *n = 0;
    if (w->cross)
        PM_TRY(pm_pk_cross_route(w->cross, cross_emit, w));
    for (size_t i = 0; i < w->nbuckets_used; i++)
        PM_TRY(flush_bucket(w, w->buckets[i]));
    pm_pk_dynamic_change *cs = NULL;
    size_t nc = 0;
    if (w->dyn)
        PM_TRY(pm_pk_dynamic_prepare(w->dyn, &cs, &nc));
    size_t count = 0;
    for (size_t i = 0; i < w->nbuckets_used; i++)
        count += w->buckets[i]->nfiles || w->buckets[i]->nchangelog;
    if (!count && !nc)
        return NULL;
    pm_commit_message *m = NULL;
    pm_error *ce = count ? pm_calloc(&m, count, sizeof *m) : NULL;
    if (ce) {
        pm_pk_dynamic_changes_free(cs, nc);
        return ce;
    }
    size_t k = 0;
    pm_error *e = NULL;
    for (size_t i = 0; i < w->nbuckets_used && !e; i++) {
        pk_bucket *b = w->buckets[i];
        if (!b->nfiles && !b->nchangelog)
            continue;
        pm_commit_message *msg = &m[k++];
        e = pm_bytes_set(&msg->partition, b->partition, b->plen);
        msg->bucket = b->bucket;
        msg->total_buckets = w->nbuckets;
    }
    if (e) {
        pm_commit_message_array_free(m, count);
        pm_pk_dynamic_changes_free(cs, nc);
        return e;
    }
    k = 0;
    for (size_t i = 0; i < w->nbuckets_used; i++) {
        pk_bucket *b = w->buckets[i];
        if (!b->nfiles && !b->nchangelog)
            continue;
        pm_commit_message *msg = &m[k++];
        msg->new_files = b->files;
        msg->n_new_files = b->nfiles;
        msg->changelog = b->changelog;
        msg->n_changelog = b->nchangelog;
        b->files = b->changelog = NULL;
        b->nfiles = b->nchangelog = 0;
    }
    e = attach_index(w, &m, &count, cs, nc);
    pm_pk_dynamic_changes_free(cs, nc);
    if (e) {
        /* the data files are in m now: they go with it */
        pm_commit_message_array_free(m, count);
        return e;
    }
    if (w->dyn)
        pm_pk_dynamic_handed_out(w->dyn);
    *msgs = m;
    *n = count;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* construction                                                        */

static pm_error *check_supported(pm_pk_writer *w)
{
    const pm_options *o = w->opts;
    bool b;
    PM_TRY(pm_options_bool(o, PM_OPT_ROW_TRACKING_ENABLED, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED, "row-tracking.enabled is not supported for primary-key tables");
    PM_TRY(pm_options_bool(o, PM_OPT_DATA_EVOLUTION_ENABLED, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED, "data-evolution.enabled is not supported for primary-key tables");
    int mode = 0;
    PM_TRY(pm_options_enum(o, PM_OPT_WRITE_SEQUENCE_NUMBER_INIT_MODE, &mode));
    if (mode == PM_SEQ_INIT_SNAPSHOT)
        return pm_error_new(PM_EUNSUPPORTED, "write.sequence-number-init-mode=snapshot is not supported yet");
    static const char *const unsupported[] = {"record-level.expire-time", "sequence.snapshot-ordering"};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        const char *v = pm_options_get(o, unsupported[i]);
        if (v && strcasecmp(v, "false"))
            return pm_error_new(PM_EUNSUPPORTED, "primary-key writes with %s=%s are not supported yet",
                                unsupported[i], v);
    }
    const pm_type *rt = w->row_type;
    for (size_t i = 0; i < rt->nfields; i++) {
        pm_type_id id = rt->fields[i].type->id;
        if (id == PM_TYPE_BLOB || id == PM_TYPE_VARIANT)
            return pm_error_new(PM_EUNSUPPORTED, "writing %s column '%s' is not supported yet", pm_type_id_name(id),
                                rt->fields[i].name);
    }
    return NULL;
}

/* Postpone bucket (Java's PostponeBucketFileStoreWrite): files in Avro
 * without statistics, named for the commit user and a write id, sequence
 * numbers from 0; only changelog-producer=none. */
static pm_error *postpone_init(pm_pk_writer *w, const pm_pk_write_options *o)
{
    w->postpone = true;
    w->ignore_previous = true;
    int producer = 0;
    PM_TRY(pm_options_enum(w->opts, PM_OPT_CHANGELOG_PRODUCER, &producer));
    if (producer != PM_CHANGELOG_NONE)
        return pm_error_new(PM_EUNSUPPORTED, "postpone bucket mode (bucket=-2) with changelog-producer=%s is not "
                                             "supported yet", pm_options_get(w->opts, "changelog-producer"));
    PM_TRY(pm_options_clone(w->opts, &w->wopts));
    PM_TRY(pm_options_set(w->wopts, "file.format", "avro"));
    PM_TRY(pm_options_set(w->wopts, "metadata.stats-mode", "none"));
    pm_options_remove(w->wopts, "metadata.stats-mode.per.level");
    uint32_t id = 0;
    PM_TRY(pm_random_bytes(&id, sizeof id));
    const char *prefix = pm_options_get(w->opts, "data-file.prefix");
    char buf[512];
    snprintf(buf, sizeof buf, "%s-u-%s-s-%u-w-", prefix ? prefix : "data-", o && o->commit_user ? o->commit_user
                                                                                             : "anonymous",
             (unsigned)(id & 0x7fffffffu));
    PM_TRY(pm_options_set(w->wopts, "data-file.prefix", buf));
    w->wschema = *w->schema;
    w->wschema.options = w->wopts;
    w->file_schema = &w->wschema;
    pm_merge_fn_options fo = {PM_MERGE_FULL, false};
    return pm_merge_fn_new(&w->mf_full, w->row_type, (const char *const *)w->schema->primary_keys.items,
                           w->schema->primary_keys.count, w->opts, &fo);
}

static pm_error *writer_init(pm_pk_writer *w, pm_table *t, const pm_pk_write_options *o)
{
    w->t = t;
    w->schema = pm_table_schema(t);
    w->row_type = w->schema->row_type;
    w->opts = pm_table_options(t);
    w->ignore_previous = o && o->ignore_previous_files;
    w->spill_dir = o ? o->spill_dir : NULL;
    if (!pm_table_has_primary_key(t))
        return pm_error_new(PM_EINVALID, "table %s has no primary key", pm_table_path(t));
    PM_TRY(check_supported(w));
    w->nbuckets = o && o->buckets > 0 ? o->buckets : pm_table_num_buckets(t);
    w->file_schema = w->schema;
    if (w->nbuckets == PM_BUCKET_POSTPONE)
        PM_TRY(postpone_init(w, o));
    if (w->nbuckets <= 0 && w->nbuckets != -1 && !w->postpone)
        return pm_error_new(PM_EINVALID, "bucket=%d is not valid for a primary-key table", (int)w->nbuckets);
    /* Java's SchemaValidation: a primary key without every partition field
     * (cross-partition update) needs dynamic buckets */
    const pm_str_list *pks = &w->schema->primary_keys, *parts = &w->schema->partition_keys;
    bool cross = false;
    for (size_t i = 0; i < parts->count; i++) {
        bool in_pk = false;
        for (size_t k = 0; k < pks->count && !in_pk; k++)
            in_pk = !strcmp(pks->items[k], parts->items[i]);
        if (!in_pk && w->nbuckets != -1 && !w->postpone)
            return pm_error_new(PM_EINVALID, "cross partition update (the primary key does not include partition "
                                             "field '%s') needs dynamic bucket mode (bucket=-1), not bucket=%d",
                                parts->items[i], (int)w->nbuckets);
        cross |= !in_pk && w->nbuckets == -1;
    }
    if (w->nbuckets == -1 && !cross) {
        if (pm_options_get(w->opts, "bucket-key"))
            return pm_error_new(PM_EINVALID, "bucket-key cannot be set in dynamic bucket mode (bucket=-1)");
        PM_TRY(pm_pk_dynamic_new(&w->dyn, t, w->ignore_previous));
    }

    /* the merge engine: validates its options before anything is written */
    pm_merge_fn_options mo = {PM_MERGE_REDUCE, false};
    PM_TRY(pm_merge_fn_new(&w->mf, w->row_type, (const char *const *)w->schema->primary_keys.items,
                           w->schema->primary_keys.count, w->opts, &mo));
    int producer = 0;
    PM_TRY(pm_options_enum(w->opts, PM_OPT_CHANGELOG_PRODUCER, &producer));
    w->changelog_input = producer == PM_CHANGELOG_INPUT;
    PM_TRY(pm_options_bool(w->opts, PM_OPT_IGNORE_DELETE, &w->ignore_delete));
    PM_TRY(pm_options_bool(w->opts, PM_OPT_IGNORE_UPDATE_BEFORE, &w->ignore_ub));
    PM_TRY(pm_options_bool(w->opts, PM_OPT_WRITE_BUFFER_SPILLABLE, &w->spillable));
    w->rowkind_field = -1;
    const char *rkf = pm_options_get(w->opts, "rowkind.field");
    if (rkf) {
        w->rowkind_field = pm_type_field_index(w->row_type, rkf);
        if (w->rowkind_field < 0)
            return pm_error_new(PM_EINVALID, "rowkind.field '%s' is not a field of the table", rkf);
        pm_type_id id = w->row_type->fields[w->rowkind_field].type->id;
        if (id != PM_TYPE_VARCHAR && id != PM_TYPE_CHAR)
            return pm_error_new(PM_EINVALID, "rowkind.field '%s' must be a STRING field", rkf);
    }
    PM_TRY(pm_options_memory(w->opts, PM_OPT_WRITE_BUFFER_SIZE, NULL, &w->buffer_limit));
    if (o && o->write_buffer_size > 0)
        w->buffer_limit = o->write_buffer_size;
    if (cross) {
        if (pm_options_get(w->opts, "bucket-key"))
            return pm_error_new(PM_EINVALID, "bucket-key cannot be set in dynamic bucket mode (bucket=-1)");
        PM_TRY(pm_pk_cross_new(&w->cross, t, w->buffer_limit, w->spill_dir));
    }

    /* KV type, layout, sort keys */
    PM_TRY(pm_pk_kv_type(w->schema, &w->kv_type, &w->nkey));
    w->nvalue = w->row_type->nfields;
    w->ncols = w->kv_type->nfields;
    pm_str_list keys = {0};
    PM_TRY(pm_schema_trimmed_primary_keys(w->schema, &keys));
    pm_error *e = pm_write_field_indexes(w->row_type, &keys, &w->key_field, "primary key");
    pm_str_list_free(&keys);
    PM_TRY(e);
    PM_TRY(pm_kv_layout_physical(&w->layout, w->nkey, w->nvalue));
    size_t nseq = 0;
    bool desc = false;
    const size_t *seqf = pm_merge_fn_seq_fields(w->mf, &nseq, &desc);
    if (nseq) {
        size_t *cols;
        PM_TRY(pm_calloc(&cols, nseq, sizeof *cols));
        for (size_t i = 0; i < nseq; i++)
            cols[i] = w->nkey + 2 + seqf[i];
        e = pm_kv_layout_set_seq_fields(&w->layout, cols, nseq, desc);
        free(cols);
        PM_TRY(e);
    }
    PM_TRY(pm_kv_layout_check(&w->layout, w->kv_type));
    PM_TRY(pm_kv_keyenc_new(&w->enc, &w->layout, w->kv_type));

    /* routing */
    PM_TRY(pm_write_field_indexes(w->row_type, &w->schema->partition_keys, &w->part_idx, "partition key"));
    w->npart = w->schema->partition_keys.count;
    pm_str_list bkeys = {0};
    PM_TRY(pm_schema_bucket_keys(w->schema, &bkeys));
    e = pm_write_field_indexes(w->row_type, &bkeys, &w->bkey_idx, "bucket key");
    w->nbkey = bkeys.count;
    pm_str_list_free(&bkeys);
    PM_TRY(e);
    int fn = 0;
    PM_TRY(pm_options_enum(w->opts, PM_OPT_BUCKET_FUNCTION_TYPE, &fn));
    w->bfn = fn == PM_BUCKET_FN_MOD ? PM_BUCKET_FN_MOD : fn == PM_BUCKET_FN_HIVE ? PM_BUCKET_FN_HIVE
                                                                                 : PM_BUCKET_FN_DEFAULT;
    PM_TRY(pm_write_aligner_init(&w->align, w->row_type, PM_ROW_KIND_COLUMN));
    PM_TRY(pm_bucket_index_init(&w->index));
    return NULL;
}

pm_error *pm_pk_writer_new(pm_pk_writer **out, pm_table *t, const pm_pk_write_options *o)
{
    *out = NULL;
    pm_pk_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    pm_error *e = writer_init(w, t, o);
    if (e) {
        pm_pk_writer_free(w);
        return pm_error_wrap(e, 0, "primary-key writer for table %s", pm_table_path(t));
    }
    *out = w;
    return NULL;
}

static void writer_release(pm_pk_writer *w, bool delete_files)
{
    for (size_t i = 0; i < w->nbuckets_used; i++)
        bucket_free(w, w->buckets[i], delete_files);
    free(w->buckets);
    if (delete_files)
        pm_pk_dynamic_abort(w->dyn);
    else
        pm_pk_dynamic_free(w->dyn);
    pm_pk_cross_free(w->cross);
    pm_bucket_index_free(&w->index);
    pm_bucket_restore_free(&w->restore);
    pm_pk_spill_free(w->spill);
    pm_merge_fn_free(w->mf);
    pm_merge_fn_free(w->mf_full);
    pm_options_free(w->wopts);
    pm_kv_keyenc_free(w->enc);
    pm_kv_layout_clear(&w->layout);
    pm_type_free(w->kv_type);
    free(w->key_field);
    free(w->part_idx);
    free(w->bkey_idx);
    pm_binrow_writer_free(&w->prow);
    pm_binrow_writer_free(&w->brow);
    pm_buf_free(&w->pbuf);
    pm_write_aligner_free(&w->align);
    free(w->kinds);
    free(w->route);
    free(w->order);
    free(w);
}

void pm_pk_writer_free(pm_pk_writer *w)
{
    if (w)
        writer_release(w, false);
}

void pm_pk_writer_abort(pm_pk_writer *w)
{
    if (w)
        writer_release(w, true);
}

void pm_pk_writer_stats(const pm_pk_writer *w, pm_pk_write_stats *out)
{
    *out = w->stats;
    if (w->cross) {
        size_t g = 0;
        pm_pk_cross_stats(w->cross, &g, &out->cross_spilled);
        out->cross_groups = (int64_t)g;
    }
}
