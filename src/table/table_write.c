/*
 * table/table_write.c — append-table writer: rows → (partition, bucket) →
 * rolling data files → DataFileMeta → commit messages (table_write.h).
 *
 * Steps of pm_table_writer_write(batch):
 *  1. Align (table/write_align.h): one column per table field, matched by
 *     name (missing nullable fields become all-null columns, unknown names
 *     and mismatched types are PM_EINVALID, a null in a NOT NULL field is
 *     PM_EINVALID).  The aligned batch borrows the caller's columns.
 *  2. Route: each row's partition = BinaryRow of the partition-key values
 *     (serialized, 4-byte arity prefix); bucket = 0 for unaware tables,
 *     else the bucket function on the bucket-key BinaryRow (types/bucket.h).
 *     A hash map finds the (partition, bucket) writer; rows are grouped per
 *     writer by a counting sort and copied into one scratch batch per
 *     writer (no copy when every row goes to one writer).
 *  3. Roll: each bucket writer owns a rolling file writer
 *     (table/rolling_file_writer.h: Parquet, or Avro for file.format=avro,
 *     size checked every 1000th record like Java's RollingFileWriterImpl,
 *     Avro size = bytes flushed to the output), and the open files of all
 *     bucket writers share write-buffer-size for their row groups.
 *  4. Close: the rolling writer's DataFileMeta (append layout: empty keys,
 *     sequence numbers from the bucket's counter, level 0, file source
 *     APPEND).
 * Row tracking: the commit assigns first row IDs and stamps sequence
 * numbers (table_commit.h); data-evolution files each count from 0.
 * BLOB fields (data-evolution tables only): a bucket's files come from
 * table/blob_write.h — the normal fields through the rolling writer, each
 * BLOB field in `.blob` files tiling each normal file's rows.
 * Sequence numbers: a counter per bucket writer that lives as long as the
 * pm_table_writer; unaware writers start at 0, bucketed writers at the
 * largest max sequence number of the bucket's live files + 1 (read once
 * from the latest snapshot), unless ignore_previous_files.
 * File names: data-<uuid>-<n>.<format> with one uuid per bucket writer.
 * Memory: one open file per bucket writer; with many writers new files get
 * smaller Parquet row groups (write-buffer-size / open files, >= 4 MiB).
 */
#include "table/table_write.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/pool.h"
#include "base/util.h"
#include "format/avro/avro.h"
#include "format/parquet/parquet_writer.h"
#include "index/global_index_decl.h"
#include "meta/manifest.h"
#include "table/blob_write.h"
#include "table/bucket_index.h"
#include "table/bucket_restore.h"
#include "table/rolling_file_writer.h"
#include "table/write_align.h"
#include "table/partition.h"
#include "table/pk_write.h"
#include "table/write_stats.h"
#include "types/binary_row.h"
#include "types/bucket.h"

typedef struct bucket_writer {
    uint8_t *partition;        /* serialized BinaryRow */
    size_t partition_len;
    int32_t bucket;
    int32_t total_buckets;
    char *dir;                 /* bucket directory */
    pm_rolling_file_writer *rw; /* its files; the sequence counter lives here */
    pm_blob_write *blob;       /* tables with BLOB fields: owns rw (its normal fields) */
    /* routing scratch for one input batch */
    int64_t count, offset;
    pm_batch *gather;          /* this writer's rows of an input batch */
} bucket_writer;

struct pm_table_writer {
    pm_table *t;
    pm_pk_writer *pk;          /* primary-key tables: everything is delegated (pk_write.h) */
    const pm_schema *schema;
    const pm_type *row_type;
    const pm_options *opts;
    pm_rolling_file_writer_options roll; /* settings of every bucket's rolling writer */
    char format_name[32];
    const char *compression;
    int64_t target_rows;
    size_t *part_idx;
    size_t npart;
    int32_t nbuckets;
    pm_bucket_fn bfn;
    size_t *bkey_idx;
    size_t nbkey;
    bool ignore_previous;
    bool data_evolution;       /* data-evolution.enabled: per-file sequence counters */
    bool blob_fields;          /* BLOB fields go to dedicated .blob files (table/blob_write.h) */
    pm_bucket_restore restore; /* live files of the latest snapshot, for bucketed sequence restore */
    /* writers and their hash index */
    bucket_writer **writers;
    size_t nwriters, capwriters;
    pm_bucket_index index;     /* (partition, bucket) → index into writers */
    atomic_size_t nopen;       /* files currently open (they share the write buffer) */
    pm_pool *pool;             /* NULL: single-threaded */
    size_t threads;
    bool solo;                 /* one writer runs on the caller's thread: its Parquet
                                  file may encode columns on the pool */
    int32_t *lanes;            /* unaware + unpartitioned: writer indexes of the lanes */
    size_t nlanes;
    /* per-batch scratch */
    pm_binrow_writer prow, brow;
    pm_buf pbuf;
    int32_t *route;            /* writer index per row */
    int64_t *order;            /* rows grouped by writer */
    size_t route_cap;
    pm_write_aligner align;    /* input columns → table fields */
};

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

/* After an abort: remove the bucket directory and its partition
 * directories when they are empty (pm_fileio_rmdir keeps non-empty ones,
 * so directories other writers use are left alone). */
static void remove_empty_dirs(pm_table_writer *w, const char *dir)
{
    const char *root = pm_table_path(w->t);
    size_t rn = strlen(root);
    char *p = strdup(dir);
    if (!p)
        return;
    bool removed = true;
    while (removed && strlen(p) > rn && !strncmp(p, root, rn)) {
        pm_error_free(pm_fileio_rmdir(w->t->fio, p, &removed));
        char *slash = strrchr(p, '/');
        if (!slash)
            break;
        *slash = 0;
    }
    free(p);
}

static void bucket_writer_free(pm_table_writer *w, bucket_writer *bw, bool delete_files)
{
    if (!bw)
        return;
    if (delete_files) {
        if (bw->blob)
            pm_blob_write_abort(bw->blob);
        else
            pm_rolling_file_writer_abort(bw->rw);
        if (bw->dir)
            remove_empty_dirs(w, bw->dir);
    } else if (bw->blob) {
        pm_blob_write_free(bw->blob);
    } else {
        pm_rolling_file_writer_free(bw->rw);
    }
    pm_batch_free(bw->gather);
    free(bw->partition);
    free(bw->dir);
    free(bw);
}

/* ------------------------------------------------------------------ */
/* construction                                                        */

static pm_error *check_supported(const pm_table *t, const pm_options *o)
{
    if (pm_options_get(o, "data-file.external-paths"))
        return pm_error_new(PM_EUNSUPPORTED, "writing to data-file.external-paths is not supported yet");
    const pm_type *rt = t->schema->row_type;
    bool de = false;
    PM_TRY(pm_options_bool(o, PM_OPT_DATA_EVOLUTION_ENABLED, &de));
    for (size_t i = 0; i < rt->nfields; i++) {
        pm_type_id id = rt->fields[i].type->id;
        if (id == PM_TYPE_VARIANT)
            return pm_error_new(PM_EUNSUPPORTED, "writing %s column '%s' is not supported yet", pm_type_id_name(id),
                                rt->fields[i].name);
        if (id == PM_TYPE_BLOB && !de) /* dedicated blob files belong to data-evolution tables */
            return pm_error_new(PM_EUNSUPPORTED, "writing BLOB column '%s' needs data-evolution.enabled=true "
                                "(and row-tracking.enabled=true)", rt->fields[i].name);
    }
    return NULL;
}

/* The settings of the bucket writers' rolling writers, checked once by
 * a writer that never opens a file. */
static pm_error *roll_settings(pm_table_writer *w)
{
    pm_rolling_file_writer_options *r = &w->roll;
    memset(r, 0, sizeof *r);
    r->fio = w->t->fio;
    r->dir = pm_table_path(w->t);
    r->file_type = w->row_type;
    r->options = w->opts;
    r->format = w->format_name;
    r->compression = w->compression;
    PM_TRY(pm_options_target_file_size(w->opts, false, &r->target_size));
    r->target_rows = w->target_rows;
    r->check = PM_ROLL_CHECK_RECORDS;
    PM_TRY(pm_options_memory(w->opts, PM_OPT_WRITE_BUFFER_SIZE, NULL, &r->shared_buffer));
    r->open_files = &w->nopen;
    r->schema_id = w->schema->id;
    r->level = 0;
    r->source = PM_FILE_SOURCE_APPEND;
    r->file_index = true;
    r->what = "data file";
    pm_rolling_file_writer *probe = NULL;
    PM_TRY(pm_rolling_file_writer_new(&probe, r));
    pm_rolling_file_writer_free(probe);
    return NULL;
}

static pm_error *writer_init(pm_table_writer *w, pm_table *t, const pm_table_write_options *o)
{
    w->t = t;
    w->schema = pm_table_schema(t);
    w->row_type = w->schema->row_type;
    w->opts = pm_table_options(t);
    w->ignore_previous = o && o->ignore_previous_files;
    if (pm_table_has_primary_key(t)) {
        pm_pk_write_options po = {w->ignore_previous, NULL, 0, o ? o->commit_user : NULL, 0};
        return pm_pk_writer_new(&w->pk, t, &po);
    }
    PM_TRY(check_supported(t, w->opts));
    PM_TRY(pm_options_bool(w->opts, PM_OPT_DATA_EVOLUTION_ENABLED, &w->data_evolution));
    w->blob_fields = pm_blob_write_needed(w->row_type);

    PM_TRY(pm_options_file_format(w->opts, w->format_name, sizeof w->format_name));
    if (strcmp(w->format_name, "parquet") && strcmp(w->format_name, "avro") && strcmp(w->format_name, "orc"))
        return pm_error_new(PM_EUNSUPPORTED, "file.format=%s is not supported for writing (parquet, avro, orc)",
                            w->format_name);
    PM_TRY(pm_options_string(w->opts, PM_OPT_FILE_COMPRESSION, &w->compression));
    bool present;
    PM_TRY(pm_options_long(w->opts, PM_OPT_TARGET_FILE_ROW_NUM, &present, &w->target_rows));
    if (!present)
        w->target_rows = INT64_MAX;
    if (w->target_rows <= 0)
        return pm_error_new(PM_EINVALID, "target-file-row-num must be positive, got %lld",
                            (long long)w->target_rows);
    PM_TRY(roll_settings(w));

    /* partition keys */
    PM_TRY(pm_write_field_indexes(w->row_type, &w->schema->partition_keys, &w->part_idx, "partition key"));
    w->npart = w->schema->partition_keys.count;

    /* buckets */
    w->nbuckets = pm_table_num_buckets(t);
    if (w->nbuckets == 0 || w->nbuckets < -1)
        return pm_error_new(PM_EUNSUPPORTED, "bucket=%d is not supported for append tables (-1 or > 0)",
                            (int)w->nbuckets);
    if (w->nbuckets > 0) {
        pm_str_list keys = {0};
        PM_TRY(pm_schema_bucket_keys(w->schema, &keys));
        pm_error *e = keys.count ? pm_write_field_indexes(w->row_type, &keys, &w->bkey_idx, "bucket key")
                                 : pm_error_new(PM_EINVALID, "a fixed-bucket append table (bucket=%d) needs "
                                                             "the bucket-key option", (int)w->nbuckets);
        w->nbkey = keys.count;
        pm_str_list_free(&keys);
        PM_TRY(e);
        int fn = 0;
        PM_TRY(pm_options_enum(w->opts, PM_OPT_BUCKET_FUNCTION_TYPE, &fn));
        w->bfn = fn == PM_BUCKET_FN_MOD ? PM_BUCKET_FN_MOD : fn == PM_BUCKET_FN_HIVE ? PM_BUCKET_FN_HIVE
                                                                                     : PM_BUCKET_FN_DEFAULT;
    }
    PM_TRY(pm_write_aligner_init(&w->align, w->row_type, NULL));
    w->threads = o && o->threads > 1 ? (o->threads < 64 ? o->threads : 64) : 1;
    if (w->threads > 1) /* the pool itself starts when work first runs in parallel */
        PM_TRY(pm_calloc(&w->lanes, w->threads, sizeof *w->lanes));
    PM_TRY(pm_bucket_index_init(&w->index));
    return NULL;
}

pm_error *pm_table_writer_new(pm_table_writer **out, pm_table *t, const pm_table_write_options *o)
{
    *out = NULL;
    pm_table_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    const pm_schema *ts = pm_table_schema(t);
    pm_error *e = pm_gi_decls_validate(ts->options, ts->row_type, ts->primary_keys.count);
    if (!e)
        e = writer_init(w, t, o);
    if (e) {
        pm_table_writer_free(w);
        return pm_error_wrap(e, 0, "writer for table %s", pm_table_path(t));
    }
    *out = w;
    return NULL;
}

void pm_table_writer_free(pm_table_writer *w)
{
    if (!w)
        return;
    pm_pk_writer_free(w->pk);
    for (size_t i = 0; i < w->nwriters; i++)
        bucket_writer_free(w, w->writers[i], false);
    free(w->writers);
    pm_bucket_index_free(&w->index);
    pm_bucket_restore_free(&w->restore);
    free(w->part_idx);
    free(w->bkey_idx);
    pm_binrow_writer_free(&w->prow);
    pm_binrow_writer_free(&w->brow);
    pm_buf_free(&w->pbuf);
    free(w->route);
    free(w->order);
    pm_write_aligner_free(&w->align);
    pm_pool_free(w->pool);
    free(w->lanes);
    free(w);
}

void pm_table_writer_abort(pm_table_writer *w)
{
    if (!w)
        return;
    if (w->pk) {
        pm_pk_writer_abort(w->pk);
        w->pk = NULL;
    }
    for (size_t i = 0; i < w->nwriters; i++) {
        bucket_writer_free(w, w->writers[i], true);
        w->writers[i] = NULL;
    }
    w->nwriters = 0;
    pm_table_writer_free(w);
}

/* ------------------------------------------------------------------ */
/* restore (bucketed tables)                                           */

static pm_error *load_restore(pm_table_writer *w)
{
    w->restore.loaded = true;
    pm_snapshot *s = NULL;
    PM_TRY(pm_snapshot_store_load_latest(w->t->snapshots, &s));
    if (!s)
        return NULL;
    pm_manifest_file_meta *metas = NULL;
    size_t nmetas = 0;
    pm_manifest_entry *entries = NULL;
    size_t nentries = 0;
    pm_error *e = pm_snapshot_data_manifests(w->t->fio, w->t->paths, s, &metas, &nmetas);
    if (!e)
        e = pm_manifest_read_merged(w->t->fio, w->t->paths, metas, nmetas, &entries, &nentries);
    for (size_t i = 0; !e && i < nentries; i++) {
        const pm_manifest_entry *en = &entries[i];
        if (en->kind == PM_FILE_ADD)
            e = pm_bucket_restore_add(&w->restore, en->partition.data, en->partition.len, en->bucket,
                                      en->total_buckets, en->file.max_sequence_number);
    }
    pm_manifest_entries_free(entries, nentries);
    pm_manifest_file_metas_free(metas, nmetas);
    pm_snapshot_free(s);
    return e ? pm_error_wrap(e, 0, "restore sequence numbers from the latest snapshot") : NULL;
}

/* ------------------------------------------------------------------ */
/* bucket writers                                                      */

static pm_error *new_bucket_writer(pm_table_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
                                   bucket_writer **out)
{
    bucket_writer *bw;
    PM_TRY(pm_calloc(&bw, 1, sizeof *bw));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_calloc(&bw->partition, plen ? plen : 1, 1), fail);
    memcpy(bw->partition, part, plen);
    bw->partition_len = plen;
    bw->bucket = bucket;
    bw->total_buckets = w->nbuckets;
    PM_TRY_GOTO(e, pm_table_bucket_dir(w->t, part, plen, bucket, &bw->dir), fail);
    int64_t seq = 0;
    if (w->nbuckets > 0 && !w->ignore_previous) {
        if (!w->restore.loaded)
            PM_TRY_GOTO(e, load_restore(w), fail);
        PM_TRY_GOTO(e, pm_bucket_restore_next_seq(&w->restore, w->t, w->npart > 0, part, plen, bucket,
                                                  w->nbuckets, &seq),
                    fail);
    }
    pm_rolling_file_writer_options ro = w->roll;
    ro.dir = bw->dir;
    ro.start_seq = seq;
    if (w->blob_fields) {
        PM_TRY_GOTO(e, pm_blob_write_new(&bw->blob, &ro), fail);
        bw->rw = pm_blob_write_normal(bw->blob);
    } else {
        PM_TRY_GOTO(e, pm_rolling_file_writer_new(&bw->rw, &ro), fail);
    }
    *out = bw;
    return NULL;
fail:
    bucket_writer_free(w, bw, false);
    return e;
}

static pm_error *find_writer(pm_table_writer *w, const uint8_t *part, size_t plen, int32_t bucket, int32_t *idx)
{
    uint64_t h = pm_bucket_hash(part, plen, bucket);
    *idx = pm_bucket_index_find(&w->index, part, plen, bucket, h);
    if (*idx >= 0)
        return NULL;
    if (w->nwriters >= INT32_MAX - 1)
        return pm_error_new(PM_EUNSUPPORTED, "too many (partition, bucket) writers");
    if (w->nwriters == w->capwriters) {
        size_t cap = w->capwriters ? w->capwriters * 2 : 8;
        PM_TRY(pm_realloc_array(&w->writers, cap, sizeof *w->writers));
        w->capwriters = cap;
    }
    bucket_writer *bw = NULL;
    PM_TRY(new_bucket_writer(w, part, plen, bucket, &bw));
    pm_error *e = pm_bucket_index_add(&w->index, bw->partition, plen, bucket, h, (int32_t)w->nwriters);
    if (e) {
        bucket_writer_free(w, bw, false);
        return e;
    }
    w->writers[w->nwriters] = bw;
    *idx = (int32_t)w->nwriters;
    w->nwriters++;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* files                                                               */

/* Rows of one bucket writer into its rolling writer; with `solo` its
 * Parquet files encode columns on the pool. */
static pm_error *bucket_write(pm_table_writer *w, bucket_writer *bw, const pm_batch *b)
{
    pm_rolling_file_writer_set_pool(bw->rw, w->solo ? w->pool : NULL, w->threads);
    return bw->blob ? pm_blob_write_write(bw->blob, b) : pm_rolling_file_writer_write(bw->rw, b);
}

/* ------------------------------------------------------------------ */
/* write                                                               */

static pm_error *route_rows(pm_table_writer *w, const pm_batch *ab)
{
    int64_t n = ab->num_rows;
    if ((size_t)n > w->route_cap) {
        PM_TRY(pm_realloc_array(&w->route, (size_t)n, sizeof *w->route));
        PM_TRY(pm_realloc_array(&w->order, (size_t)n, sizeof *w->order));
        w->route_cap = (size_t)n;
    }
    const uint8_t *last = NULL;
    size_t last_len = 0;
    int32_t last_bucket = -1, last_idx = -1;
    static const uint8_t empty_part[12] = {0};
    for (int64_t r = 0; r < n; r++) {
        const uint8_t *part = empty_part;
        size_t plen = sizeof empty_part;
        if (w->npart) {
            PM_TRY(pm_binrow_from_columns(&w->prow, ab->columns, w->part_idx, w->npart, r));
            pm_buf_clear(&w->pbuf);
            PM_TRY(pm_binrow_serialize(&w->prow, &w->pbuf));
            part = w->pbuf.data;
            plen = w->pbuf.len;
        }
        int32_t bucket = 0;
        if (w->nbuckets > 0)
            PM_TRY(pm_bucket_of_row(w->bfn, w->nbuckets, &w->brow, ab->columns, w->bkey_idx, w->nbkey, r,
                                    &bucket));
        int32_t idx;
        if (last_idx >= 0 && bucket == last_bucket && plen == last_len && !memcmp(part, last, plen)) {
            idx = last_idx;
        } else {
            PM_TRY(find_writer(w, part, plen, bucket, &idx));
            bucket_writer *bw = w->writers[idx];
            last = bw->partition;
            last_len = bw->partition_len;
            last_bucket = bucket;
            last_idx = idx;
        }
        w->route[r] = idx;
    }
    return NULL;
}

/* One writer's share of an input batch, run on the pool (or inline). */
typedef struct write_job {
    pm_table_writer *w;
    bucket_writer *bw;
    const pm_batch *src;
    const int64_t *rows;      /* gather these rows of src, or ... */
    int64_t nrows;
    int64_t from, n;          /* ... write this range (a view) */
    pm_error *err;
} write_job;

static pm_error *job_gather(write_job *j)
{
    bucket_writer *bw = j->bw;
    if (!bw->gather)
        PM_TRY(pm_batch_new(&bw->gather, j->w->row_type));
    PM_TRY(pm_batch_reset(bw->gather));
    for (size_t c = 0; c < j->src->ncolumns; c++) {
        pm_column *d = bw->gather->columns[c];
        PM_TRY(pm_column_reserve(d, j->nrows));
        for (int64_t k = 0; k < j->nrows; k++)
            PM_TRY(pm_column_append_from(d, j->src->columns[c], j->rows[k]));
    }
    PM_TRY(pm_batch_finish(bw->gather, j->nrows));
    return bucket_write(j->w, bw, bw->gather);
}

static void run_job(void *arg)
{
    write_job *j = arg;
    if (j->rows) {
        j->err = job_gather(j);
        return;
    }
    size_t nc = j->src->ncolumns ? j->src->ncolumns : 1;
    pm_column *cols = calloc(nc, sizeof *cols);
    pm_column **ptrs = calloc(nc, sizeof *ptrs);
    if (!cols || !ptrs) {
        j->err = pm_oom();
    } else {
        pm_batch v;
        pm_roll_batch_view(&v, cols, ptrs, j->src, j->from, j->n);
        j->err = bucket_write(j->w, j->bw, &v);
    }
    free(cols);
    free(ptrs);
}

/* The thread pool, started on first use (small writes never need it). */
static pm_error *need_pool(pm_table_writer *w)
{
    if (!w->pool && w->threads > 1)
        PM_TRY(pm_pool_new(&w->pool, w->threads));
    return NULL;
}

/* Run the jobs (in parallel when there is a pool); the first error wins. */
static pm_error *run_jobs(pm_table_writer *w, write_job *jobs, size_t n)
{
    pm_error *e = NULL;
    if (n > 1)
        PM_TRY(need_pool(w));
    if (!w->pool || n == 1) {
        for (size_t i = 0; i < n; i++)
            run_job(&jobs[i]);
    } else {
        pm_task_group *g = NULL;
        e = pm_group_new(&g);
        size_t submitted = 0;
        for (; !e && submitted < n; submitted++)
            e = pm_pool_submit(w->pool, g, run_job, &jobs[submitted]);
        if (g) {
            pm_group_wait(g);
            pm_group_free(g);
        }
        for (size_t i = submitted; i < n; i++)
            jobs[i].err = NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].err && !e)
            e = jobs[i].err;
        else
            pm_error_free(jobs[i].err);
    }
    return e;
}

#define LANE_MIN_ROWS 16384
#define SOLO_PAR_ROWS 8192  /* batches this large encode their columns in parallel */

/* One writer takes the whole batch on the caller's thread; with threads
 * and a large batch, its Parquet file encodes columns on the pool. */
static pm_error *solo_write(pm_table_writer *w, bucket_writer *bw, const pm_batch *b)
{
    if (w->threads > 1 && b->num_rows >= SOLO_PAR_ROWS) {
        PM_TRY(need_pool(w));
        w->solo = true;
    }
    pm_error *e = bucket_write(w, bw, b);
    w->solo = false;
    return e;
}

/* Unaware bucket, no partitions: one writer, or `threads` lanes for big
 * batches of flat columns. */
static pm_error *write_single(pm_table_writer *w, const pm_batch *ab)
{
    static const uint8_t empty_part[12] = {0};
    int32_t idx;
    PM_TRY(find_writer(w, empty_part, sizeof empty_part, 0, &idx));
    int64_t n = ab->num_rows;
    if (w->threads < 2 || n < 2 * LANE_MIN_ROWS || !pm_roll_viewable(ab))
        return solo_write(w, w->writers[idx], ab);
    if (!w->nlanes) {
        w->lanes[0] = idx;
        for (size_t l = 1; l < w->threads; l++) {
            if (w->nwriters == w->capwriters) {
                size_t cap = w->capwriters ? w->capwriters * 2 : 8;
                PM_TRY(pm_realloc_array(&w->writers, cap, sizeof *w->writers));
                w->capwriters = cap;
            }
            bucket_writer *bw = NULL;
            PM_TRY(new_bucket_writer(w, empty_part, sizeof empty_part, 0, &bw));
            w->writers[w->nwriters] = bw; /* not in the hash index: reached through lanes */
            w->lanes[l] = (int32_t)w->nwriters++;
        }
        w->nlanes = w->threads;
    }
    size_t lanes = (size_t)(n / LANE_MIN_ROWS) < w->nlanes ? (size_t)(n / LANE_MIN_ROWS) : w->nlanes;
    int64_t chunk = ((n + (int64_t)lanes - 1) / (int64_t)lanes + 7) / 8 * 8;
    write_job jobs[64];
    size_t nj = 0;
    for (size_t l = 0; l < lanes && nj < 64; l++) {
        int64_t from = (int64_t)l * chunk;
        if (from >= n)
            break;
        int64_t len = from + chunk <= n ? chunk : n - from;
        jobs[nj++] = (write_job){w, w->writers[w->lanes[l]], ab, NULL, 0, from, len, NULL};
    }
    return run_jobs(w, jobs, nj);
}

pm_error *pm_table_writer_write(pm_table_writer *w, const pm_batch *b)
{
    if (w->pk)
        return pm_pk_writer_write(w->pk, b);
    if (b->num_rows == 0)
        return NULL;
    pm_batch ab;
    memset(&ab, 0, sizeof ab);
    PM_TRY(pm_write_align(&w->align, b));
    pm_write_aligned_batch(&w->align, b->num_rows, &ab);
    int64_t n = ab.num_rows;
    if (w->npart == 0 && w->nbuckets <= 0)
        return write_single(w, &ab);
    PM_TRY(route_rows(w, &ab));
    /* counting sort of rows by writer */
    for (size_t i = 0; i < w->nwriters; i++)
        w->writers[i]->count = 0;
    for (int64_t r = 0; r < n; r++)
        w->writers[w->route[r]]->count++;
    int64_t off = 0;
    size_t touched = 0;
    for (size_t i = 0; i < w->nwriters; i++) {
        w->writers[i]->offset = off;
        off += w->writers[i]->count;
        touched += w->writers[i]->count > 0;
    }
    if (touched == 1)
        return solo_write(w, w->writers[w->route[0]], &ab);
    for (int64_t r = 0; r < n; r++)
        w->order[w->writers[w->route[r]]->offset++] = r;
    write_job *jobs;
    PM_TRY(pm_calloc(&jobs, touched, sizeof *jobs));
    size_t nj = 0;
    int64_t start = 0;
    for (size_t i = 0; i < w->nwriters; i++) {
        bucket_writer *bw = w->writers[i];
        if (!bw->count)
            continue;
        jobs[nj++] = (write_job){w, bw, &ab, w->order + start, bw->count, 0, 0, NULL};
        start += bw->count;
    }
    pm_error *e = run_jobs(w, jobs, nj);
    free(jobs);
    return e;
}

typedef struct close_job {
    pm_table_writer *w;
    bucket_writer *bw;
    pm_error *err;
} close_job;

static void run_close(void *arg)
{
    close_job *j = arg;
    j->err = j->bw->blob ? pm_blob_write_close_file(j->bw->blob) : pm_rolling_file_writer_close_file(j->bw->rw);
}

/* Close every open file (flush, footer, fsync), in parallel with a pool. */
static pm_error *close_all(pm_table_writer *w)
{
    size_t nopen = 0;
    for (size_t i = 0; i < w->nwriters; i++)
        nopen += pm_rolling_file_writer_is_open(w->writers[i]->rw);
    if (!nopen)
        return NULL;
    close_job *jobs;
    PM_TRY(pm_calloc(&jobs, nopen, sizeof *jobs));
    size_t nj = 0;
    for (size_t i = 0; i < w->nwriters; i++)
        if (pm_rolling_file_writer_is_open(w->writers[i]->rw))
            jobs[nj++] = (close_job){w, w->writers[i], NULL};
    pm_error *e = NULL;
    pm_task_group *g = NULL;
    size_t submitted = 0;
    if (nj > 1)
        e = need_pool(w);
    if (!e && w->pool && nj > 1) {
        e = pm_group_new(&g);
        for (; !e && submitted < nj; submitted++)
            e = pm_pool_submit(w->pool, g, run_close, &jobs[submitted]);
        if (g) {
            pm_group_wait(g);
            pm_group_free(g);
        }
    }
    for (size_t i = submitted; i < nj && !e; i++)
        run_close(&jobs[i]);
    for (size_t i = 0; i < nj; i++) {
        if (jobs[i].err && !e)
            e = jobs[i].err;
        else
            pm_error_free(jobs[i].err);
    }
    free(jobs);
    return e;
}

pm_error *pm_table_writer_prepare_commit(pm_table_writer *w, pm_commit_message **msgs, size_t *n)
{
    if (w->pk)
        return pm_pk_writer_prepare_commit(w->pk, msgs, n);
    *msgs = NULL;
    *n = 0;
    PM_TRY(close_all(w));
    size_t count = 0;
    for (size_t i = 0; i < w->nwriters; i++)
        count += pm_rolling_file_writer_pending(w->writers[i]->rw) > 0;
    if (!count)
        return NULL;
    pm_commit_message *m;
    PM_TRY(pm_calloc(&m, count, sizeof *m));
    size_t k = 0;
    pm_error *e = NULL;
    for (size_t i = 0; i < w->nwriters && !e; i++) {
        bucket_writer *bw = w->writers[i];
        if (!pm_rolling_file_writer_pending(bw->rw))
            continue;
        pm_commit_message *msg = &m[k++];
        e = pm_bytes_set(&msg->partition, bw->partition, bw->partition_len);
        msg->bucket = bw->bucket;
        msg->total_buckets = bw->total_buckets;
    }
    if (e) {
        pm_commit_message_array_free(m, count);
        return e;
    }
    /* hand the files over (no copies; every file is closed, so this
     * cannot fail) */
    k = 0;
    for (size_t i = 0; i < w->nwriters && !e; i++) {
        bucket_writer *bw = w->writers[i];
        if (!pm_rolling_file_writer_pending(bw->rw))
            continue;
        pm_commit_message *msg = &m[k++];
        e = bw->blob ? pm_blob_write_finish(bw->blob, &msg->new_files, &msg->n_new_files)
                     : pm_rolling_file_writer_finish(bw->rw, &msg->new_files, &msg->n_new_files);
        /* data evolution: every file counts its rows from 0 (the commit
         * stamps them with the snapshot id) */
        for (size_t f = 0; !e && w->data_evolution && f < msg->n_new_files; f++) {
            msg->new_files[f].min_sequence_number = 0;
            msg->new_files[f].max_sequence_number = msg->new_files[f].row_count - 1;
        }
    }
    if (e) {
        pm_commit_message_array_free(m, count);
        return e;
    }
    *msgs = m;
    *n = count;
    return NULL;
}
