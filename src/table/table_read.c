/*
 * table/table_read.c — rows of a scanned table state (see table_read.h).
 *
 * Plan (at creation, so unsupported tables fail before any row is out):
 *  - Row-tracking tables: each bucket's files are grouped by row-ID range
 *    (table/de_read.h); a group of one file read without `_ROW_ID` /
 *    `_SEQUENCE_NUMBER` is an ordinary file task, every other group one
 *    task read by the group reader, the group anchor's deletion vector
 *    applied by position in the group.
 *  - Projection by column name over the read schema (scan->schema), plus
 *    `_ROW_ID` / `_SEQUENCE_NUMBER` of row-tracking tables; for
 *    buckets of the fallback branch the same positions of its schema.
 *  - Append tables: every file of every bucket, in order.
 *  - Primary-key tables: one task per bucket, planned and read by
 *    table/pk_read.h (level-0 skipping for DV / first-row tables, raw
 *    reads of single-file sections, merge-on-read of overlapping runs);
 *    with a filter, the bucket's source-backed global indexes restrict it
 *    (table/pk_index_select.h, pm_pk_reader_use_index).
 * Read: one file reader at a time; for each of its batches a keep bitmap
 * (deletion vector positions, retract rows) selects the rows.  Batches
 * with every row kept share the file reader's columns; others are
 * compacted by pm_batch_filter (dv/dv_apply.h).  Batches left empty are
 * skipped.
 * Filter (table/predicate.h): the read type is the projection followed by
 * the filter's columns it lacks; append files whose file index excludes
 * the filter get no task, nor do row-tracking groups whose row-ID range
 * the global-index selection misses (table/global_index_scan.h); every batch assembled below (any path) is then
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
#include "table/de_read.h"
#include "table/file_read.h"
#include "table/global_index_scan.h"
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
    const pm_de_group *grp;      /* row-tracking group read by de_read.h (in r->groups) */
} read_task;

/* A task read on the caller's thread (no read-ahead). */
static bool inline_task(const read_task *tk) { return tk->pk || tk->grp; }

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
    pm_de_group_reader *de;      /* current row-tracking group */
    pm_de_group **groups;        /* per bucket with group tasks: its groups (owned) */
    size_t *ngroups;
    size_t ngroup_sets;
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

/* A task reading file `file` of b; a file that holds whole rows by itself
 * (`whole`: not the anchor of a column-version group) gets none when its
 * file index proves that no row matches the filter. */
static pm_error *add_task(pm_table_reader *r, const pm_bucket_files *b, size_t file, bool kv, bool whole)
{
    if (whole && r->filter && b->table == r->t) {
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
    tk->grp = NULL;
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
    /* source-backed global indexes: positions the filter may keep (table/pk_index_select.h) */
    bool gi = false;
    pm_error *e = NULL;
    if (r->filter && b->table == r->t)
        e = pm_gi_read_enabled(pm_table_options(r->t), &gi);
    pm_pk_gi_hits *hits = NULL;
    if (!e && gi)
        e = pm_pk_gi_select(r->t, s, b, r->filter, &hits);
    if (!e && hits) {
        e = pm_pk_reader_use_index(pk, hits);
        pm_pk_read_stats st;
        pm_pk_reader_stats(pk, &st);
        r->files_skipped += (size_t)st.index_skipped_files;
    }
    if (e) {
        pm_pk_reader_free(pk);
        return e;
    }
    e = pm_realloc_array(&r->tasks, r->ntasks + 1, sizeof *r->tasks);
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

/* Row-tracking buckets: each row-ID group becomes a task.  A group of one
 * file holding every column (no _WRITE_COLS), read without the
 * row-tracking columns, is an ordinary file task (so it can be read
 * ahead); the rest go through table/de_read.h with the anchor's deletion
 * vector. */
static pm_error *plan_row_tracking_bucket(pm_table_reader *r, const pm_bucket_files *b, bool data_evolution,
                                          bool system_columns)
{
    pm_de_group *g = NULL;
    size_t ng = 0;
    if (data_evolution)
        PM_TRY(pm_de_plan_groups(b->files, b->nfiles, &g, &ng));
    else
        PM_TRY(pm_de_single_groups(b->files, b->nfiles, &g, &ng));
    pm_error *e = pm_realloc_array(&r->groups, r->ngroup_sets + 1, sizeof *r->groups);
    if (!e)
        e = pm_realloc_array(&r->ngroups, r->ngroup_sets + 1, sizeof *r->ngroups);
    if (e) {
        pm_de_groups_free(g, ng);
        return e;
    }
    r->groups[r->ngroup_sets] = g;
    r->ngroups[r->ngroup_sets++] = ng;
    /* global indexes: row-ID ranges the filter's selection misses are not read */
    pm_gi_selection *sel = NULL;
    bool gi = false;
    if (r->filter && b->table == r->t)
        PM_TRY(pm_gi_read_enabled(pm_table_options(r->t), &gi));
    if (gi)
        PM_TRY(pm_gi_select(r->t, b, r->filter, &sel));
    for (size_t k = 0; k < ng; k++) {
        if (sel && g[k].has_first_row_id && !pm_gi_selection_meets(sel, g[k].first_row_id, g[k].row_count)) {
            r->files_skipped += g[k].nfiles;
            continue;
        }
        const pm_data_file_meta *f0 = g[k].files[0];
        size_t fi = (size_t)(f0 - b->files);
        if (g[k].nfiles == 1 && !system_columns && !f0->has_write_cols) {
            pm_error *e = add_task(r, b, fi, false, true);
            if (e) {
                pm_gi_selection_free(sel);
                return e;
            }
            continue;
        }
        size_t ai = (size_t)(g[k].anchor - b->files);
        pm_error *e = add_task(r, b, ai, false, false);
        if (e) {
            pm_gi_selection_free(sel);
            return e;
        }
        r->tasks[r->ntasks - 1].grp = &g[k];
    }
    pm_gi_selection_free(sel);
    return NULL;
}

static bool has_system_columns(const pm_type *t)
{
    for (size_t i = 0; i < t->nfields; i++)
        if (t->fields[i].id == PM_ROW_ID_FIELD_ID || t->fields[i].id == PM_SEQUENCE_NUMBER_FIELD_ID)
            return true;
    return false;
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
    bool rt = false;
    PM_TRY(pm_options_bool(s->options, PM_OPT_ROW_TRACKING_ENABLED, &rt));
    pm_type *row = pm_type_new_row(s->row_type->nullable);
    if (!row)
        return pm_oom();
    pm_error *e = NULL;
    for (size_t i = 0; i < o->ncolumns && !e; i++) {
        const char *c = o->columns[i];
        bool rid = !strcmp(c, PM_ROW_ID_NAME), seq = !strcmp(c, PM_SEQUENCE_NUMBER_NAME);
        if (pm_type_field_index(s->row_type, c) < 0 && (rid || seq)) {
            if (!rt) {
                e = pm_error_new(PM_EINVALID, "column '%s' exists only in tables with row-tracking.enabled=true", c);
                break;
            }
            pm_type *ft = pm_type_new(PM_TYPE_BIGINT, rid);
            e = ft ? pm_type_add_field(row, rid ? PM_ROW_ID_FIELD_ID : PM_SEQUENCE_NUMBER_FIELD_ID, c, ft) : pm_oom();
            if (e && ft)
                pm_type_free(ft);
            continue;
        }
        pm_type *one = NULL;
        e = pm_schema_project(s, &c, 1, &one);
        if (!e) {
            const pm_field *f = &one->fields[0];
            pm_type *ft = pm_type_clone(f->type);
            e = ft ? pm_type_add_field(row, f->id, f->name, ft) : pm_oom();
            if (e && ft)
                pm_type_free(ft);
        }
        pm_type_free(one);
    }
    if (e) {
        pm_type_free(row);
        return e;
    }
    *out = row;
    return NULL;
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
    pm_de_group_reader_free(r->de);
    for (size_t i = 0; i < r->ngroup_sets; i++)
        pm_de_groups_free(r->groups[i], r->ngroups[i]);
    free(r->groups);
    free(r->ngroups);
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
    bool rt = false, fb_rt = false;
    PM_TRY_GOTO(e, pm_options_bool(s->options, PM_OPT_ROW_TRACKING_ENABLED, &rt), fail);
    if (scan->fallback && scan->fallback_schema)
        PM_TRY_GOTO(e, pm_options_bool(scan->fallback_schema->options, PM_OPT_ROW_TRACKING_ENABLED, &fb_rt), fail);
    PM_TRY_GOTO(e, project(s, o, &r->type), fail);
    bool sys = has_system_columns(r->type);
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
        if (bs->primary_keys.count) {
            PM_TRY_GOTO(e, plan_pk_bucket(r, bs, b), fail);
        } else if (fb ? fb_rt : rt) {
            bool de = false;
            PM_TRY_GOTO(e, pm_options_bool(bs->options, PM_OPT_DATA_EVOLUTION_ENABLED, &de), fail);
            PM_TRY_GOTO(e, plan_row_tracking_bucket(r, b, de, sys), fail);
        } else {
            for (size_t f = 0; f < b->nfiles; f++)
                PM_TRY_GOTO(e, add_task(r, b, f, false, true), fail);
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

/* Open the row-tracking group of task tk (with its anchor's vector). */
static pm_error *open_group(pm_table_reader *r, const read_task *tk)
{
    const pm_bucket_files *b = tk->b;
    free(r->cur_dir);
    r->cur_dir = NULL;
    PM_TRY(pm_table_bucket_dir(b->table, b->partition.data, b->partition.len, b->bucket, &r->cur_dir));
    PM_TRY(pm_de_group_reader_open(&r->de, b->table, r->cur_dir, tk->grp, b->table == r->t ? r->type : r->fb_type,
                                   r->batch_rows));
    if (tk->dv)
        PM_TRY(dv_load(r, b, tk->dv));
    return NULL;
}

static pm_error *open_next(pm_table_reader *r, bool *done)
{
    *done = false;
    pm_file_reader_free(r->fr);
    r->fr = NULL;
    pm_de_group_reader_free(r->de);
    r->de = NULL;
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
    if (tk->grp)
        return open_group(r, tk);
    const pm_bucket_files *b = tk->b;
    free(r->cur_dir);
    r->cur_dir = NULL;
    PM_TRY(pm_table_bucket_dir(b->table, b->partition.data, b->partition.len, b->bucket, &r->cur_dir));
    const pm_type *rtype = b->table == r->t ? r->type : r->fb_type;
    PM_TRY(pm_file_reader_open(&r->fr, b->table, r->cur_dir, &b->files[tk->file],
                               &(pm_file_read_options){rtype, r->batch_rows, tk->kv, NULL}));
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
        pm_file_read_options fo = {b->table == r->t ? r->type : r->fb_type, r->batch_rows, tk->kv, NULL};
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
        while (r->next_ra < r->ntasks && inline_task(&r->tasks[r->next_ra]))
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

/* The open group's next batch, deleted rows dropped; *got = false at its
 * end (the group reader is then closed). */
static pm_error *group_next(pm_table_reader *r, const pm_batch **out, bool *got)
{
    *got = false;
    for (;;) {
        const pm_batch *b = NULL;
        PM_TRY(pm_de_group_reader_next(r->de, &b));
        if (!b) {
            pm_de_group_reader_free(r->de);
            r->de = NULL;
            return NULL;
        }
        int64_t n = b->num_rows, kept = n;
        if (!n)
            continue;
        PM_TRY(keep_rows(r, NULL, pm_de_group_reader_position(r->de), n, &kept));
        if (!kept)
            continue;
        for (size_t i = 0; i < r->type->nfields; i++)
            r->out->columns[i] = pm_column_retain(b->columns[i]);
        r->out->num_rows = n;
        if (kept < n)
            PM_TRY(pm_batch_filter(r->out, r->keep));
        *out = r->out;
        *got = true;
        return NULL;
    }
}

/* Threaded read: append tasks come from their read-ahead slots. */
static pm_error *next_threaded(pm_table_reader *r, const pm_batch **out)
{
    size_t nf = r->type->nfields;
    if (!r->slots)
        PM_TRY(ra_start(r));
    for (;;) {
        if (!r->cur_slot && !r->pk && !r->de) {
            dv_free(r->cur_dv);
            r->cur_dv = NULL;
            PM_TRY(ra_fill(r));
            if (r->next_task >= r->ntasks)
                return NULL;
            const read_task *tk = &r->tasks[r->next_task++];
            r->cur = tk;
            if (tk->pk) {
                r->pk = tk->pk;
            } else if (tk->grp) {
                PM_TRY(open_group(r, tk));
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
        if (r->de) {
            bool got = false;
            PM_TRY(group_next(r, out, &got));
            if (got)
                return NULL;
            continue;
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
        if (!r->fr && !r->pk && !r->de) {
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
        if (r->de) {
            bool got = false;
            PM_TRY(group_next(r, out, &got));
            if (got)
                return NULL;
            continue;
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
