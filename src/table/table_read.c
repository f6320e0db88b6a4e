/*
 * table/table_read.c — rows of a scanned table state (see table_read.h).
 *
 * Plan (at creation, so unsupported tables fail before any row is out):
 *  - Tables with BLOB columns, and data-evolution tables
 *    (`data-evolution.enabled`) whose files share row ids (partial-column
 *    or blob files that must be merged by row id): PM_EUNSUPPORTED "data
 *    evolution tables are not supported yet".  Data-evolution buckets whose
 *    files hold all columns and have disjoint row-id ranges read each file
 *    on its own (Java's group-of-one case).
 *  - Projection by column name over the read schema (scan->schema); for
 *    buckets of the fallback branch the same positions of its schema.
 *  - Append tables: every file of every bucket, in order.
 *  - Primary-key tables: one task per bucket, planned and read by
 *    table/pk_read.h (level-0 skipping for DV / first-row tables, raw
 *    reads of single-file sections, merge-on-read of overlapping runs).
 * Read: one file reader at a time; for each of its batches a keep bitmap
 * (deletion vector positions, retract rows) selects the rows.  Batches
 * with every row kept share the file reader's columns; others are
 * compacted by pm_batch_filter (dv/dv_apply.h).  Batches left empty are
 * skipped.
 * Filter (table/predicate.h): the read type is the projection followed by
 * the filter's columns it lacks; append files whose file index excludes
 * the filter get no task; every batch assembled below (any path) is then
 * filtered in place and handed out as a view of its projected columns.
 * Read-ahead (threads > 1): the files of append tasks are opened and
 * decoded by a private pool, up to `threads` files at a time in task
 * order.  Each in-flight file has a slot: its worker pushes the decoded
 * batches (columns retained, with their file positions) into the slot's
 * bounded queue and sleeps while the queue is full; the caller takes them
 * in order, applies the deletion vector as above, and when a file is done
 * hands its slot to the next append task.  Primary-key buckets are still
 * read on the caller's thread, in order.  Batches and errors come out
 * exactly as without read-ahead.
 */
#include "table/table_read.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/pool.h"
#include "dv/dv_apply.h"
#include "dv/dv_index_file.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/pk_read.h"
#include "table/predicate.h"
#include "types/binary_row.h"
#include "types/column.h"

typedef struct read_task {
    const pm_bucket_files *b;
    size_t file;                 /* index in b->files */
    bool kv;                     /* key-value file: system columns + retract filter */
    const pm_deletion_file *dv;  /* NULL = none */
    pm_pk_reader *pk;            /* primary-key bucket: read by pk_read.h (owned) */
} read_task;

/* One decoded batch waiting in a read-ahead slot. */
typedef struct ra_item {
    pm_column **cols;            /* retained */
    int64_t rows;
    int64_t pos;                 /* file position of its first row */
} ra_item;

/* An append file being read ahead (threads > 1). */
typedef struct ra_slot {
    struct pm_table_reader *r;
    size_t task;                 /* index in r->tasks */
    ra_item *items;              /* ring of `depth` items */
    size_t head, count;
    bool done;                   /* the worker finished (end of file or error) */
    bool cancel;
    pm_error *err;
} ra_slot;

struct pm_table_reader {
    pm_table *t;
    const pm_scan_result *scan;
    pm_type *type;               /* row type read: the projection, then the filter's other columns */
    pm_type *out_type;           /* the projection (the batches handed out) */
    const pm_predicate *filter;  /* NULL = every row */
    size_t *fcols;               /* per filter atom: its column in `type` */
    uint8_t *fkeep;
    size_t fkeep_cap;
    pm_batch view;               /* the projected columns of `out` */
    size_t files_skipped;
    pm_type *fb_type;            /* same fields in the fallback branch's schema */
    int64_t batch_rows;
    read_task *tasks;
    size_t ntasks, next_task;
    pm_file_reader *fr;
    pm_pk_reader *pk;            /* current primary-key bucket (owned by its task) */
    const read_task *cur;
    char *cur_dir;
    pm_dv *cur_dv;               /* deletion vector of the open file, NULL = none */
    pm_batch *out;
    uint8_t *keep;
    size_t keep_cap;
    /* read-ahead */
    size_t threads;
    pm_pool *pool;
    pm_task_group *group;
    pthread_mutex_t mu;
    pthread_cond_t cv;           /* any slot changed (items, space, done) */
    bool mu_ok;
    ra_slot *slots;              /* `threads` slots */
    size_t depth;                /* batches per slot */
    size_t next_ra;              /* next task to consider for read-ahead */
    ra_slot *cur_slot;           /* slot of the task being consumed */
    pm_column **held;            /* columns of the last batch handed out from a slot */
};

/* ---------------------------------------------------------------- */
/* deletion vectors                                                  */

static pm_error *dv_load(pm_table_reader *r, const pm_bucket_files *b, const pm_deletion_file *df)
{
    pm_dv *dv = NULL;
    PM_TRY(pm_error_wrap(pm_dv_index_read_one(b->table->fio, df->index_path, df->offset, df->length, &dv), 0,
                         "deletion vector of data file %s", df->data_file));
    r->cur_dv = dv;
    return NULL;
}

static void dv_free(pm_dv *dv) { pm_dv_free(dv); }

/* Clear keep bits of deleted positions in [start, start + n). */
static void dv_apply(const pm_dv *dv, int64_t start, int64_t n, uint8_t *keep)
{
    pm_dv_clear_deleted(dv, start, n, keep, NULL);
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y))

/* ---------------------------------------------------------------- */
/* planning                                                          */

static pm_error *add_task(pm_table_reader *r, const pm_bucket_files *b, size_t file, bool kv)
{
    if (r->filter && b->table == r->t) {
        bool use = false;
        PM_TRY(pm_options_bool(pm_table_options(r->t), PM_OPT_FILE_INDEX_READ_ENABLED, &use));
        if (use) {
            char *dir = NULL;
            bool may = true;
            PM_TRY(pm_table_bucket_dir(b->table, b->partition.data, b->partition.len, b->bucket, &dir));
            pm_error *e = pm_predicate_file_may_match(r->filter, r->t, dir, &b->files[file], &may);
            free(dir);
            PM_TRY(e);
            if (!may) {
                r->files_skipped++;
                return NULL; /* its index proves no row matches */
            }
        }
    }
    PM_TRY(pm_realloc_array(&r->tasks, r->ntasks + 1, sizeof *r->tasks));
    read_task *tk = &r->tasks[r->ntasks++];
    tk->b = b;
    tk->file = file;
    tk->kv = kv;
    tk->dv = NULL;
    tk->pk = NULL;
    for (size_t i = 0; i < b->ndvs; i++)
        if (b->dvs[i].data_file == b->files[file].file_name) {
            tk->dv = &b->dvs[i];
            break;
        }
    return NULL;
}

static pm_error *plan_pk_bucket(pm_table_reader *r, const pm_schema *s, const pm_bucket_files *b)
{
    pm_pk_reader *pk = NULL;
    PM_TRY(pm_pk_reader_new(&pk, b, s, b->table == r->t ? r->type : r->fb_type, r->batch_rows));
    pm_error *e = pm_realloc_array(&r->tasks, r->ntasks + 1, sizeof *r->tasks);
    if (e) {
        pm_pk_reader_free(pk);
        return e;
    }
    read_task *tk = &r->tasks[r->ntasks++];
    memset(tk, 0, sizeof *tk);
    tk->b = b;
    tk->pk = pk;
    return NULL;
}

static bool has_blob(const pm_type *t)
{
    if (!t)
        return false;
    if (t->id == PM_TYPE_BLOB)
        return true;
    if (has_blob(t->element) || has_blob(t->key) || has_blob(t->value))
        return true;
    for (size_t i = 0; i < t->nfields; i++)
        if (has_blob(t->fields[i].type))
            return true;
    return false;
}

static pm_error *check_supported(const pm_table *t, const pm_schema *s, bool *data_evolution)
{
    PM_TRY(pm_options_bool(s->options, PM_OPT_DATA_EVOLUTION_ENABLED, data_evolution));
    if (has_blob(s->row_type))
        return pm_error_new(PM_EUNSUPPORTED, "data evolution tables are not supported yet (table %s has BLOB columns)",
                            t->path);
    return NULL;
}

static int cmp_first_row_id(const void *x, const void *y)
{
    const pm_data_file_meta *a = *(const pm_data_file_meta *const *)x, *b = *(const pm_data_file_meta *const *)y;
    int64_t ia = a->first_row_id.has ? a->first_row_id.v : INT64_MIN;
    int64_t ib = b->first_row_id.has ? b->first_row_id.v : INT64_MIN;
    return CMP(ia, ib);
}

/* Data-evolution tables: files sharing row ids (partial-column files,
 * blob files) must be merged by row id.  A bucket whose files all hold
 * every column and have disjoint row-id ranges reads each file on its
 * own, as Java does for a group of one file; anything written column-wise
 * (`_WRITE_COLS`, .blob files) is refused until row-id merging exists. */
static pm_error *check_data_evolution_bucket(const pm_table *t, const pm_bucket_files *b)
{
    const pm_data_file_meta **fs = NULL;
    PM_TRY(pm_calloc(&fs, b->nfiles ? b->nfiles : 1, sizeof *fs));
    for (size_t i = 0; i < b->nfiles; i++)
        fs[i] = &b->files[i];
    qsort(fs, b->nfiles, sizeof *fs, cmp_first_row_id);
    pm_error *e = NULL;
    int64_t end = INT64_MIN; /* last row id covered so far */
    bool any = false;
    for (size_t i = 0; i < b->nfiles && !e; i++) {
        const pm_data_file_meta *f = fs[i];
        size_t n = strlen(f->file_name);
        if (n >= 5 && !strcmp(f->file_name + n - 5, ".blob")) {
            e = pm_error_new(PM_EUNSUPPORTED, "data evolution tables are not supported yet (table %s: blob file %s)",
                             t->path, f->file_name);
            break;
        }
        if (f->has_write_cols) {
            e = pm_error_new(PM_EUNSUPPORTED,
                             "data evolution tables are not supported yet (table %s: partial-column file %s)",
                             t->path, f->file_name);
            break;
        }
        if (!f->first_row_id.has)
            continue;
        if (any && f->first_row_id.v <= end)
            e = pm_error_new(PM_EUNSUPPORTED,
                             "data evolution tables are not supported yet (table %s: files %s and others share row ids "
                             "and need a merge by row id)",
                             t->path, f->file_name);
        int64_t last = f->first_row_id.v + f->row_count - 1;
        if (!any || last > end)
            end = last;
        any = true;
    }
    free(fs);
    return e;
}

static pm_error *project(const pm_schema *s, const pm_table_read_options *o, pm_type **out)
{
    if (!o || !o->columns) {
        *out = pm_type_clone(s->row_type);
        return *out ? NULL : pm_oom();
    }
    for (size_t i = 0; i < o->ncolumns; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(o->columns[i], o->columns[j]))
                return pm_error_new(PM_EINVALID, "column '%s' requested twice", o->columns[i]);
    return pm_schema_project(s, o->columns, o->ncolumns, out);
}

/* The read type: the projection plus the filter's columns it lacks; the
 * position of every atom's column in it. */
static pm_error *filter_columns(pm_table_reader *r, const pm_schema *s)
{
    const pm_predicate *p = r->filter;
    PM_TRY(pm_calloc(&r->fcols, p->natoms ? p->natoms : 1, sizeof *r->fcols));
    for (size_t k = 0; k < p->natoms; k++) {
        ptrdiff_t i = pm_type_field_index_by_id(r->type, p->atoms[k].field_id);
        if (i < 0) {
            ptrdiff_t si = pm_type_field_index_by_id(s->row_type, p->atoms[k].field_id);
            if (si < 0)
                return pm_error_new(PM_EINVALID, "filter column %s is not in the read schema", p->atoms[k].column);
            const pm_field *f = &s->row_type->fields[si];
            pm_type *ft = pm_type_clone(f->type);
            pm_error *e = ft ? pm_type_add_field(r->type, f->id, f->name, ft) : pm_oom();
            if (e) {
                pm_type_free(ft);
                return e;
            }
            i = (ptrdiff_t)r->type->nfields - 1;
        }
        r->fcols[k] = (size_t)i;
    }
    return NULL;
}

/* The fields of `type` (a projection of `main`) at the same positions in `fb`. */
static pm_error *fallback_type(const pm_schema *main, const pm_schema *fb, const pm_type *type, pm_type **out)
{
    pm_type *t = pm_type_new_row(false);
    if (!t)
        return pm_oom();
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < type->nfields; i++) {
        ptrdiff_t p = pm_type_field_index_by_id(main->row_type, type->fields[i].id);
        if (p < 0 || (size_t)p >= fb->row_type->nfields) {
            e = pm_error_new(PM_EINTERNAL, "fallback field mapping for '%s'", type->fields[i].name);
            break;
        }
        const pm_field *f = &fb->row_type->fields[p];
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(t, f->id, f->name, ft) : pm_oom();
        if (e && ft)
            pm_type_free(ft);
    }
    if (e) {
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

static void ra_item_release(pm_table_reader *r, ra_item *it)
{
    if (!it->cols)
        return;
    for (size_t i = 0; i < r->type->nfields; i++)
        pm_column_release(it->cols[i]);
    free(it->cols);
    it->cols = NULL;
}

static void ra_shutdown(pm_table_reader *r)
{
    if (r->slots && r->mu_ok) {
        pthread_mutex_lock(&r->mu);
        for (size_t i = 0; i < r->threads; i++)
            r->slots[i].cancel = true;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
    if (r->group) {
        pm_group_wait(r->group);
        pm_group_free(r->group);
        r->group = NULL;
    }
    pm_pool_free(r->pool);
    r->pool = NULL;
    if (r->slots) {
        for (size_t i = 0; i < r->threads; i++) {
            ra_slot *sl = &r->slots[i];
            for (size_t k = 0; sl->items && k < r->depth; k++)
                ra_item_release(r, &sl->items[k]);
            free(sl->items);
            pm_error_free(sl->err);
        }
        free(r->slots);
        r->slots = NULL;
    }
    if (r->held) {
        for (size_t i = 0; i < r->type->nfields; i++)
            pm_column_release(r->held[i]);
        free(r->held);
        r->held = NULL;
    }
    if (r->mu_ok) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        r->mu_ok = false;
    }
}

void pm_table_reader_free(pm_table_reader *r)
{
    if (!r)
        return;
    ra_shutdown(r);
    pm_file_reader_free(r->fr);
    dv_free(r->cur_dv);
    free(r->cur_dir);
    pm_batch_free(r->out);
    free(r->keep);
    for (size_t i = 0; i < r->ntasks; i++)
        pm_pk_reader_free(r->tasks[i].pk);
    free(r->tasks);
    pm_type_free(r->type);
    pm_type_free(r->out_type);
    pm_type_free(r->fb_type);
    free(r->fcols);
    free(r->fkeep);
    free(r);
}

pm_error *pm_table_reader_new(pm_table_reader **out, pm_table *t, const pm_scan_result *scan,
                              const pm_table_read_options *o)
{
    *out = NULL;
    pm_table_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->t = t;
    r->scan = scan;
    r->batch_rows = o && o->batch_rows > 0 ? o->batch_rows : 4096;
    r->threads = 1;
    pm_error *e = NULL;
    const pm_schema *s = scan->schema ? scan->schema : pm_table_schema(t);
    bool de = false, fb_de = false;
    PM_TRY_GOTO(e, check_supported(t, s, &de), fail);
    if (scan->fallback && scan->fallback_schema)
        PM_TRY_GOTO(e, check_supported(scan->fallback, scan->fallback_schema, &fb_de), fail);
    PM_TRY_GOTO(e, project(s, o, &r->type), fail);
    if (!(r->out_type = pm_type_clone(r->type)))
        PM_TRY_GOTO(e, pm_oom(), fail);
    r->filter = o ? o->filter : NULL;
    if (r->filter)
        PM_TRY_GOTO(e, filter_columns(r, s), fail);
    if (scan->fallback && scan->fallback_schema)
        PM_TRY_GOTO(e, fallback_type(s, scan->fallback_schema, r->type, &r->fb_type), fail);
    for (size_t i = 0; i < scan->nbuckets; i++) {
        const pm_bucket_files *b = &scan->buckets[i];
        bool fb = b->table != t;
        const pm_schema *bs = fb ? scan->fallback_schema : s;
        if (fb ? fb_de : de)
            PM_TRY_GOTO(e, check_data_evolution_bucket(b->table, b), fail);
        if (bs->primary_keys.count) {
            PM_TRY_GOTO(e, plan_pk_bucket(r, bs, b), fail);
        } else {
            for (size_t f = 0; f < b->nfiles; f++)
                PM_TRY_GOTO(e, add_task(r, b, f, false), fail);
        }
    }
    PM_TRY_GOTO(e, pm_batch_new(&r->out, r->type), fail);
    r->view.type = r->out_type;
    r->view.ncolumns = r->out_type->nfields;
    r->view.columns = r->out->columns;
    *out = r;
    return NULL;
fail:
    pm_table_reader_free(r);
    return pm_error_wrap(e, 0, "read table %s", t->path);
}

const pm_type *pm_table_reader_type(const pm_table_reader *r) { return r->out_type; }

size_t pm_table_reader_files_skipped(const pm_table_reader *r) { return r->files_skipped; }

void pm_table_reader_set_threads(pm_table_reader *r, size_t threads)
{
    if (!r->slots) /* not started yet */
        r->threads = threads > 1 ? (threads < 64 ? threads : 64) : 1;
}

static pm_error *open_next(pm_table_reader *r, bool *done)
{
    *done = false;
    pm_file_reader_free(r->fr);
    r->fr = NULL;
    dv_free(r->cur_dv);
    r->cur_dv = NULL;
    if (r->next_task >= r->ntasks) {
        *done = true;
        return NULL;
    }
    const read_task *tk = &r->tasks[r->next_task++];
    r->cur = tk;
    if (tk->pk) {
        r->pk = tk->pk;
        return NULL;
    }
    const pm_bucket_files *b = tk->b;
    free(r->cur_dir);
    r->cur_dir = NULL;
    PM_TRY(pm_table_bucket_dir(b->table, b->partition.data, b->partition.len, b->bucket, &r->cur_dir));
    pm_file_read_options fo = {b->table == r->t ? r->type : r->fb_type, r->batch_rows, tk->kv};
    PM_TRY(pm_file_reader_open(&r->fr, b->table, r->cur_dir, &b->files[tk->file], &fo));
    if (tk->dv)
        PM_TRY(dv_load(r, b, tk->dv));
    return NULL;
}

/* ---------------------------------------------------------------- */
/* read-ahead                                                        */

/* Worker: decode the slot's file into its queue. */
static void ra_run(void *arg)
{
    ra_slot *sl = arg;
    pm_table_reader *r = sl->r;
    const read_task *tk = &r->tasks[sl->task];
    const pm_bucket_files *b = tk->b;
    size_t nf = r->type->nfields;
    pm_file_reader *fr = NULL;
    char *dir = NULL;
    pm_error *e = pm_table_bucket_dir(b->table, b->partition.data, b->partition.len, b->bucket, &dir);
    if (!e) {
        pm_file_read_options fo = {b->table == r->t ? r->type : r->fb_type, r->batch_rows, tk->kv};
        e = pm_file_reader_open(&fr, b->table, dir, &b->files[tk->file], &fo);
    }
    free(dir);
    while (!e) {
        pthread_mutex_lock(&r->mu);
        while (sl->count == r->depth && !sl->cancel)
            pthread_cond_wait(&r->cv, &r->mu);
        bool stop = sl->cancel;
        pthread_mutex_unlock(&r->mu);
        if (stop)
            break;
        const pm_batch *bt = NULL;
        e = pm_file_reader_next(fr, &bt);
        if (e || !bt)
            break;
        if (!bt->num_rows)
            continue;
        ra_item it = {NULL, bt->num_rows, pm_file_reader_position(fr)};
        e = pm_calloc(&it.cols, nf ? nf : 1, sizeof *it.cols);
        if (e)
            break;
        for (size_t i = 0; i < nf; i++)
            it.cols[i] = pm_column_retain(bt->columns[(tk->kv ? 2 : 0) + i]);
        pthread_mutex_lock(&r->mu);
        sl->items[(sl->head + sl->count) % r->depth] = it;
        sl->count++;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
    pm_file_reader_free(fr);
    pthread_mutex_lock(&r->mu);
    sl->err = e;
    sl->done = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static pm_error *ra_start(pm_table_reader *r)
{
    r->depth = (size_t)(262144 / r->batch_rows);
    if (r->depth < 2)
        r->depth = 2;
    if (r->depth > 256)
        r->depth = 256;
    if (pthread_mutex_init(&r->mu, NULL))
        return pm_error_new(PM_EIO, "cannot create a mutex");
    if (pthread_cond_init(&r->cv, NULL)) {
        pthread_mutex_destroy(&r->mu);
        return pm_error_new(PM_EIO, "cannot create a condition variable");
    }
    r->mu_ok = true;
    PM_TRY(pm_calloc(&r->slots, r->threads, sizeof *r->slots));
    for (size_t i = 0; i < r->threads; i++) {
        r->slots[i].r = r;
        r->slots[i].done = true; /* free */
        r->slots[i].task = SIZE_MAX;
        PM_TRY(pm_calloc(&r->slots[i].items, r->depth, sizeof *r->slots[i].items));
    }
    PM_TRY(pm_calloc(&r->held, r->type->nfields ? r->type->nfields : 1, sizeof *r->held));
    PM_TRY(pm_group_new(&r->group));
    return pm_pool_new(&r->pool, r->threads);
}

/* Hand free slots to the next append tasks (in task order). */
static pm_error *ra_fill(pm_table_reader *r)
{
    for (size_t i = 0; i < r->threads; i++) {
        ra_slot *sl = &r->slots[i];
        if (sl->task != SIZE_MAX)
            continue;
        while (r->next_ra < r->ntasks && r->tasks[r->next_ra].pk)
            r->next_ra++;
        if (r->next_ra >= r->ntasks)
            return NULL;
        sl->task = r->next_ra++;
        sl->head = sl->count = 0;
        sl->done = false;
        sl->cancel = false;
        PM_TRY(pm_pool_submit(r->pool, r->group, ra_run, sl));
    }
    return NULL;
}

static ra_slot *ra_slot_of(pm_table_reader *r, size_t task)
{
    for (size_t i = 0; i < r->threads; i++)
        if (r->slots[i].task == task)
            return &r->slots[i];
    return NULL;
}

/* The next batch of the current task's slot: *cols (retained by r->held
 * until the next call), or *cols = NULL when the file is done. */
static pm_error *ra_next(pm_table_reader *r, pm_column ***cols, int64_t *rows, int64_t *pos)
{
    ra_slot *sl = r->cur_slot;
    *cols = NULL;
    pthread_mutex_lock(&r->mu);
    while (!sl->count && !sl->done)
        pthread_cond_wait(&r->cv, &r->mu);
    if (sl->count) {
        ra_item it = sl->items[sl->head];
        memset(&sl->items[sl->head], 0, sizeof it);
        sl->head = (sl->head + 1) % r->depth;
        sl->count--;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        for (size_t i = 0; i < r->type->nfields; i++) {
            pm_column_release(r->held[i]);
            r->held[i] = it.cols[i];
        }
        free(it.cols);
        *cols = r->held;
        *rows = it.rows;
        *pos = it.pos;
        return NULL;
    }
    pm_error *e = sl->err;
    sl->err = NULL;
    sl->task = SIZE_MAX; /* free for the next file */
    pthread_mutex_unlock(&r->mu);
    r->cur_slot = NULL;
    return e;
}

/* Keep bitmap of a batch of n rows at file position pos; *kept rows kept. */
static pm_error *keep_rows(pm_table_reader *r, const pm_column *kind, int64_t pos, int64_t n, int64_t *kept)
{
    size_t kb = (size_t)(n + 7) / 8;
    if (kb > r->keep_cap) {
        PM_TRY(pm_realloc_array(&r->keep, kb, 1));
        r->keep_cap = kb;
    }
    memset(r->keep, 0xff, kb);
    *kept = n;
    if (r->cur_dv)
        dv_apply(r->cur_dv, pos, n, r->keep);
    if (kind) {
        for (int64_t i = 0; i < n; i++) {
            int8_t k = pm_column_i8(kind, i);
            if (k == PM_ROWKIND_UPDATE_BEFORE || k == PM_ROWKIND_DELETE)
                r->keep[i >> 3] &= (uint8_t)~(1u << (i & 7));
        }
    }
    if (r->cur_dv || kind) {
        *kept = 0;
        for (int64_t i = 0; i < n; i++)
            *kept += (r->keep[i >> 3] >> (i & 7)) & 1;
    }
    return NULL;
}

/* Threaded read: append tasks come from their read-ahead slots. */
static pm_error *next_threaded(pm_table_reader *r, const pm_batch **out)
{
    size_t nf = r->type->nfields;
    if (!r->slots)
        PM_TRY(ra_start(r));
    for (;;) {
        if (!r->cur_slot && !r->pk) {
            dv_free(r->cur_dv);
            r->cur_dv = NULL;
            PM_TRY(ra_fill(r));
            if (r->next_task >= r->ntasks)
                return NULL;
            const read_task *tk = &r->tasks[r->next_task++];
            r->cur = tk;
            if (tk->pk) {
                r->pk = tk->pk;
            } else {
                r->cur_slot = ra_slot_of(r, r->next_task - 1);
                if (!r->cur_slot)
                    return pm_error_new(PM_EINTERNAL, "read-ahead slot of task %zu missing", r->next_task - 1);
                if (tk->dv)
                    PM_TRY(dv_load(r, tk->b, tk->dv));
            }
        }
        if (r->pk) {
            const pm_batch *pb = NULL;
            PM_TRY(pm_pk_reader_next(r->pk, &pb));
            if (!pb) {
                read_task *tk = &r->tasks[r->next_task - 1];
                pm_pk_reader_free(tk->pk);
                tk->pk = NULL;
                r->pk = NULL;
                continue;
            }
            for (size_t i = 0; i < nf; i++)
                r->out->columns[i] = pm_column_retain(pb->columns[i]);
            r->out->num_rows = pb->num_rows;
            *out = r->out;
            return NULL;
        }
        pm_column **cols = NULL;
        int64_t n = 0, pos = 0, kept = 0;
        PM_TRY(ra_next(r, &cols, &n, &pos));
        if (!cols)
            continue;
        if (r->cur->kv)
            return pm_error_new(PM_EINTERNAL, "key-value file in an append read task");
        PM_TRY(keep_rows(r, NULL, pos, n, &kept));
        if (!kept)
            continue;
        for (size_t i = 0; i < nf; i++)
            r->out->columns[i] = pm_column_retain(cols[i]);
        r->out->num_rows = n;
        if (kept < n)
            PM_TRY(pm_batch_filter(r->out, r->keep));
        *out = r->out;
        return NULL;
    }
}

static pm_error *next_unfiltered(pm_table_reader *r, const pm_batch **out)
{
    *out = NULL;
    size_t nf = r->type->nfields;
    for (size_t i = 0; i < nf; i++) {
        pm_column_release(r->out->columns[i]);
        r->out->columns[i] = NULL;
    }
    r->out->num_rows = 0;
    if (r->threads > 1)
        return next_threaded(r, out);
    for (;;) {
        if (!r->fr && !r->pk) {
            bool done = false;
            PM_TRY(open_next(r, &done));
            if (done)
                return NULL;
        }
        if (r->pk) {
            const pm_batch *pb = NULL;
            PM_TRY(pm_pk_reader_next(r->pk, &pb));
            if (!pb) {
                /* bucket done: release its files and buffers now */
                read_task *tk = &r->tasks[r->next_task - 1];
                pm_pk_reader_free(tk->pk);
                tk->pk = NULL;
                r->pk = NULL;
                continue;
            }
            for (size_t i = 0; i < nf; i++)
                r->out->columns[i] = pm_column_retain(pb->columns[i]);
            r->out->num_rows = pb->num_rows;
            *out = r->out;
            return NULL;
        }
        const pm_batch *b = NULL;
        PM_TRY(pm_file_reader_next(r->fr, &b));
        if (!b) {
            pm_file_reader_free(r->fr);
            r->fr = NULL;
            continue;
        }
        int64_t n = b->num_rows;
        if (!n)
            continue;
        size_t off = r->cur->kv ? 2 : 0;
        int64_t kept = n;
        PM_TRY(keep_rows(r, r->cur->kv ? b->columns[1] : NULL, pm_file_reader_position(r->fr), n, &kept));
        if (!kept)
            continue;
        for (size_t i = 0; i < nf; i++)
            r->out->columns[i] = pm_column_retain(b->columns[off + i]);
        r->out->num_rows = n;
        if (kept < n)
            PM_TRY(pm_batch_filter(r->out, r->keep)); /* new columns with the kept rows */
        *out = r->out;
        return NULL;
    }
}

/* The filter's rows of r->out (in place); *kept of them. */
static pm_error *filter_rows(pm_table_reader *r, int64_t *kept)
{
    int64_t n = r->out->num_rows;
    size_t kb = (size_t)(n + 7) / 8;
    if (kb > r->fkeep_cap) {
        PM_TRY(pm_realloc_array(&r->fkeep, kb, 1));
        r->fkeep_cap = kb;
    }
    memset(r->fkeep, 0xff, kb);
    PM_TRY(pm_predicate_rows(r->filter, r->out, r->fcols, r->fkeep, kept));
    if (*kept && *kept < n)
        PM_TRY(pm_batch_filter(r->out, r->fkeep));
    return NULL;
}

pm_error *pm_table_reader_next(pm_table_reader *r, const pm_batch **out)
{
    *out = NULL;
    for (;;) {
        const pm_batch *b = NULL;
        PM_TRY(next_unfiltered(r, &b));
        if (!b)
            return NULL;
        if (r->filter) {
            int64_t kept = 0;
            PM_TRY(filter_rows(r, &kept));
            if (!kept)
                continue;
        }
        r->view.num_rows = r->out->num_rows;
        *out = &r->view;
        return NULL;
    }
}
