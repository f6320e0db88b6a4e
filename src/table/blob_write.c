/*
 * table/blob_write.c — normal fields in the rolling writer, BLOB fields in
 * `.blob` files (blob_write.h).
 *
 * Row numbers below count every row the writer took (global, from 0).
 * The normal files closed so far end at `bounds` (ascending); after each
 * normal write the rolling writer's new pending files extend them.  A BLOB
 * field writes its rows one by one: before a row, every bound at or
 * before it closes the field's open file (the file began before the
 * bound); after a value, a file whose records reached the target closes.
 * After the batch, bounds at its end close the fields' files too.  A blob
 * file belongs to the normal file whose rows hold its first row (the
 * number of bounds at or before it), which orders finish's output.
 */
#include "table/blob_write.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/util.h"
#include "format/blob/blob_file.h"
#include "meta/paths.h"
#include "table/write_stats.h"
#include "types/column.h"

typedef struct blob_col {
    size_t col;                /* column of the input batches */
    pm_type *type;             /* ROW<field> (stats) */
    char *name;
    /* the open file */
    char *file_name, *path;
    pm_output *out;
    pm_blob_writer *bw;
    int64_t first_row;
    size_t next_bound;         /* first bound after the rows written */
} blob_col;

typedef struct blob_done {
    pm_data_file_meta meta;
    int64_t first_row;
    size_t col;
    char *path;
} blob_done;

struct pm_blob_write {
    pm_rolling_file_writer *normal;
    pm_type *normal_type;
    size_t *normal_cols;
    blob_col *cols;
    size_t ncols;
    pm_batch *view;
    pm_fileio *fio;
    char *dir;
    pm_data_file_namer namer;
    bool namer_ok;
    int64_t schema_id;
    int64_t target;
    bool dense;
    int64_t rows;              /* rows taken */
    int64_t *bounds;           /* ends of the normal files closed */
    size_t nbounds, capbounds;
    size_t handed;             /* normal files handed out */
    size_t seen;               /* pending normal files already in bounds */
    blob_done *done;           /* closed blob files not handed out */
    size_t ndone, capdone;
};

bool pm_blob_write_needed(const pm_type *row)
{
    for (size_t i = 0; i < row->nfields; i++)
        if (row->fields[i].type->id == PM_TYPE_BLOB)
            return true;
    return false;
}

static pm_error *check_options(const pm_options *o)
{
    static const char *const keys[] = {"blob-descriptor-field", "blob-external-storage-field"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *v = pm_options_get(o, keys[i]);
        if (v && *v)
            return pm_error_new(PM_EUNSUPPORTED, "writing BLOB fields with %s=%s is not supported (only dedicated "
                                "blob files)", keys[i], v);
    }
    const char *v = pm_options_get(o, "blob-as-descriptor");
    bool b = false;
    if (v && (pm_parse_bool(v, &b) || b))
        return pm_error_new(PM_EUNSUPPORTED, "writing BLOB fields with blob-as-descriptor=%s is not supported", v);
    return NULL;
}

static void done_clear(blob_done *d)
{
    pm_data_file_meta_clear(&d->meta);
    free(d->path);
}

static void col_discard(pm_blob_write *w, blob_col *c)
{
    (void)w;
    pm_blob_writer_free(c->bw);
    c->bw = NULL;
    pm_output_abort(c->out); /* deletes the partial file */
    c->out = NULL;
    free(c->file_name);
    free(c->path);
    c->file_name = c->path = NULL;
}

void pm_blob_write_free(pm_blob_write *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->ncols; i++) {
        col_discard(w, &w->cols[i]);
        pm_type_free(w->cols[i].type);
    }
    free(w->cols);
    for (size_t i = 0; i < w->ndone; i++)
        done_clear(&w->done[i]);
    free(w->done);
    pm_rolling_file_writer_free(w->normal);
    pm_type_free(w->normal_type);
    free(w->normal_cols);
    pm_batch_free(w->view);
    if (w->namer_ok)
        pm_data_file_namer_destroy(&w->namer);
    free(w->dir);
    free(w->bounds);
    free(w);
}

void pm_blob_write_abort(pm_blob_write *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->ndone; i++)
        pm_error_free(pm_fileio_delete(w->fio, w->done[i].path));
    pm_rolling_file_writer_abort(w->normal);
    w->normal = NULL;
    pm_blob_write_free(w);
}

static pm_error *split_type(pm_blob_write *w, const pm_type *row)
{
    if (!(w->normal_type = pm_type_new_row(row->nullable)))
        return pm_oom();
    PM_TRY(pm_calloc(&w->normal_cols, row->nfields ? row->nfields : 1, sizeof *w->normal_cols));
    PM_TRY(pm_calloc(&w->cols, row->nfields ? row->nfields : 1, sizeof *w->cols));
    for (size_t i = 0; i < row->nfields; i++) {
        const pm_field *f = &row->fields[i];
        pm_type *ft = pm_type_clone(f->type);
        if (!ft)
            return pm_oom();
        if (f->type->id != PM_TYPE_BLOB) {
            pm_error *e = pm_type_add_field(w->normal_type, f->id, f->name, ft);
            if (e) {
                pm_type_free(ft);
                return e;
            }
            w->normal_cols[w->normal_type->nfields - 1] = i;
            continue;
        }
        blob_col *c = &w->cols[w->ncols++];
        c->col = i;
        pm_error *e = (c->type = pm_type_new_row(false)) ? pm_type_add_field(c->type, f->id, f->name, ft) : pm_oom();
        if (e) {
            pm_type_free(ft);
            return e;
        }
        c->name = c->type->fields[0].name;
    }
    return NULL;
}

pm_error *pm_blob_write_new(pm_blob_write **out, const pm_rolling_file_writer_options *ro)
{
    *out = NULL;
    PM_TRY(check_options(ro->options));
    pm_blob_write *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    pm_error *e = NULL;
    w->fio = ro->fio;
    w->schema_id = ro->schema_id;
    PM_TRY_GOTO(e, pm_strdup(&w->dir, ro->dir), fail);
    PM_TRY_GOTO(e, split_type(w, ro->file_type), fail);
    PM_TRY_GOTO(e, pm_options_blob_target_file_size(ro->options, &w->target), fail);
    if (w->target <= 0) {
        e = pm_error_new(PM_EINVALID, "blob.target-file-size must be positive");
        goto fail;
    }
    PM_TRY_GOTO(e, pm_options_bool(ro->options, PM_OPT_METADATA_STATS_DENSE_STORE, &w->dense), fail);
    PM_TRY_GOTO(e, pm_data_file_namer_init(&w->namer, ro->options, "parquet", NULL), fail);
    w->namer_ok = true;
    pm_rolling_file_writer_options no = *ro;
    no.file_type = w->normal_type;
    PM_TRY_GOTO(e, pm_rolling_file_writer_new(&w->normal, &no), fail);
    PM_TRY_GOTO(e, pm_batch_new(&w->view, w->normal_type), fail);
    *out = w;
    return NULL;
fail:
    pm_blob_write_free(w);
    return e;
}

pm_rolling_file_writer *pm_blob_write_normal(pm_blob_write *w) { return w->normal; }

/* The normal files the rolling writer closed since the last look. */
static pm_error *observe(pm_blob_write *w)
{
    size_t n = pm_rolling_file_writer_pending(w->normal);
    for (; w->seen < n; w->seen++) {
        const pm_data_file_meta *f = pm_rolling_file_writer_pending_file(w->normal, w->seen);
        int64_t end = (w->nbounds ? w->bounds[w->nbounds - 1] : 0) + f->row_count;
        if (w->nbounds == w->capbounds) {
            size_t cap = w->capbounds ? w->capbounds * 2 : 16;
            PM_TRY(pm_realloc_array(&w->bounds, cap, sizeof *w->bounds));
            w->capbounds = cap;
        }
        w->bounds[w->nbounds++] = end;
    }
    return NULL;
}

static pm_error *col_open(pm_blob_write *w, blob_col *c, int64_t row)
{
    PM_TRY(pm_data_file_namer_next_blob(&w->namer, &c->file_name));
    if (!(c->path = pm_path_join(w->dir, c->file_name)))
        return pm_oom();
    PM_TRY(pm_output_create(w->fio, c->path, false, &c->out));
    PM_TRY(pm_blob_writer_new(c->out, &c->bw));
    c->first_row = row;
    return NULL;
}

static pm_error *blob_meta(pm_blob_write *w, blob_col *c, uint64_t size, pm_data_file_meta *m)
{
    PM_TRY(pm_strdup(&m->file_name, c->file_name));
    m->file_size = (int64_t)size;
    m->row_count = pm_blob_writer_rows(c->bw);
    PM_TRY(pm_roll_empty_keys(m));
    pm_col_stats *cs = NULL;
    PM_TRY(pm_roll_col_stats(c->type, NULL, true, NULL, NULL, NULL, &cs)); /* stats mode none */
    pm_error *e = pm_col_stats_to_simple(c->type, cs, w->dense, &m->value_stats, &m->has_value_stats_cols,
                                         &m->value_stats_cols);
    pm_col_stats_clear(&cs[0]);
    free(cs);
    PM_TRY(e);
    m->min_sequence_number = 0;
    m->max_sequence_number = m->row_count - 1;
    m->schema_id = w->schema_id;
    m->level = 0;
    pm_roll_stamp(m, 0, PM_FILE_SOURCE_APPEND);
    return pm_data_file_meta_set_write_cols(m, c->type);
}

/* Close c's open file (footer, sync) into the done list. */
static pm_error *col_close(pm_blob_write *w, blob_col *c)
{
    if (!c->out)
        return NULL;
    pm_error *e = pm_blob_writer_finish(c->bw);
    uint64_t size = pm_output_pos(c->out);
    if (e) {
        col_discard(w, c);
        return e;
    }
    pm_output *o = c->out;
    c->out = NULL;
    e = pm_output_close(o, true); /* removes the file on error */
    if (!e && w->ndone == w->capdone) {
        size_t cap = w->capdone ? w->capdone * 2 : 8;
        e = pm_realloc_array(&w->done, cap, sizeof *w->done);
        if (!e)
            w->capdone = cap;
    }
    if (!e) {
        blob_done *d = &w->done[w->ndone];
        memset(d, 0, sizeof *d);
        e = blob_meta(w, c, size, &d->meta);
        if (!e) {
            d->first_row = c->first_row;
            d->col = (size_t)(c - w->cols);
            d->path = c->path;
            c->path = NULL;
            w->ndone++;
        } else {
            pm_data_file_meta_clear(&d->meta);
            pm_error_free(pm_fileio_delete(w->fio, c->path));
        }
    }
    col_discard(w, c);
    return e ? pm_error_wrap(e, 0, "close blob file in %s", w->dir) : NULL;
}

/* Close c's file at every bound at or before `row`. */
static pm_error *col_bounds(pm_blob_write *w, blob_col *c, int64_t row)
{
    for (; c->next_bound < w->nbounds && w->bounds[c->next_bound] <= row; c->next_bound++)
        if (c->out && c->first_row < w->bounds[c->next_bound])
            PM_TRY(col_close(w, c));
    return NULL;
}

static pm_error *col_write(pm_blob_write *w, blob_col *c, const pm_column *src, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t row = w->rows + i;
        PM_TRY(col_bounds(w, c, row));
        if (!c->out)
            PM_TRY(col_open(w, c, row));
        if (pm_column_is_null(src, i)) {
            PM_TRY(pm_blob_writer_add_null(c->bw));
        } else {
            size_t len = 0;
            const uint8_t *p = pm_column_bytes(src, i, &len);
            PM_TRY(pm_blob_writer_add(c->bw, p, len));
        }
        if (pm_blob_writer_bytes(c->bw) >= (uint64_t)w->target)
            PM_TRY(col_close(w, c));
    }
    return col_bounds(w, c, w->rows + n);
}

pm_error *pm_blob_write_write(pm_blob_write *w, const pm_batch *b)
{
    if (b->ncolumns != w->normal_type->nfields + w->ncols)
        return pm_error_new(PM_EINTERNAL, "blob writer: batch of %zu columns, expected %zu", b->ncolumns,
                            w->normal_type->nfields + w->ncols);
    int64_t n = b->num_rows;
    if (!n)
        return NULL;
    for (size_t i = 0; i < w->view->ncolumns; i++) {
        pm_column_release(w->view->columns[i]);
        w->view->columns[i] = pm_column_retain(b->columns[w->normal_cols[i]]);
    }
    w->view->num_rows = n;
    PM_TRY(pm_rolling_file_writer_write(w->normal, w->view));
    PM_TRY(observe(w));
    for (size_t k = 0; k < w->ncols; k++)
        PM_TRY(col_write(w, &w->cols[k], b->columns[w->cols[k].col], n));
    w->rows += n;
    return NULL;
}

pm_error *pm_blob_write_close_file(pm_blob_write *w)
{
    PM_TRY(pm_rolling_file_writer_close_file(w->normal));
    PM_TRY(observe(w));
    for (size_t k = 0; k < w->ncols; k++)
        PM_TRY(col_bounds(w, &w->cols[k], w->rows));
    for (size_t k = 0; k < w->ncols; k++)
        if (w->cols[k].out)
            return pm_error_new(PM_EINTERNAL, "blob file of field '%s' is open after its normal file closed",
                                w->cols[k].name);
    return NULL;
}

/* The normal file (global ordinal) holding `row`. */
static size_t owner_of(const pm_blob_write *w, int64_t row)
{
    size_t lo = 0, hi = w->nbounds;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->bounds[mid] <= row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

pm_error *pm_blob_write_finish(pm_blob_write *w, pm_data_file_meta **files, size_t *n)
{
    *files = NULL;
    *n = 0;
    PM_TRY(pm_blob_write_close_file(w));
    pm_data_file_meta *nf = NULL;
    size_t nn = 0;
    PM_TRY(pm_rolling_file_writer_finish(w->normal, &nf, &nn));
    pm_error *e = NULL;
    pm_data_file_meta *all = NULL;
    size_t total = nn + w->ndone, k = 0;
    if (total)
        e = pm_calloc(&all, total, sizeof *all);
    for (size_t i = 0; !e && i < nn; i++)
        e = pm_data_file_meta_set_write_cols(&nf[i], w->normal_type);
    if (e) {
        for (size_t i = 0; i < nn; i++)
            pm_data_file_meta_clear(&nf[i]);
        free(nf);
        free(all);
        return e;
    }
    /* the metas move: each normal file, then its blob files field by field */
    bool *used = NULL;
    if (w->ndone && (e = pm_calloc(&used, w->ndone, sizeof *used))) {
        for (size_t i = 0; i < nn; i++)
            pm_data_file_meta_clear(&nf[i]);
        free(nf);
        free(all);
        return e;
    }
    for (size_t i = 0; i < nn; i++) {
        all[k++] = nf[i];
        for (size_t c = 0; c < w->ncols; c++)
            for (size_t d = 0; d < w->ndone; d++)
                if (!used[d] && w->done[d].col == c && owner_of(w, w->done[d].first_row) == w->handed + i) {
                    all[k++] = w->done[d].meta;
                    used[d] = true;
                }
    }
    free(nf);
    /* blob files always close with their normal file: none is left over */
    for (size_t d = 0; d < w->ndone; d++) {
        if (!used[d]) {
            e = pm_error_new(PM_EINTERNAL, "blob file %s has no normal file", w->done[d].meta.file_name);
            pm_data_file_meta_clear(&w->done[d].meta);
        }
        free(w->done[d].path);
    }
    free(used);
    w->ndone = 0;
    w->handed += nn;
    w->seen = 0;
    if (e) {
        for (size_t i = 0; i < k; i++)
            pm_data_file_meta_clear(&all[i]);
        free(all);
        return e;
    }
    *files = all;
    *n = k;
    return NULL;
}
