/*
 * compact/pk/pk_source.c — a sorted run as a merge source (pk_exec.h): the
 * run's files opened one after another through one file reader
 * (pm_file_reader_reopen: its batch, the spare columns the merge gave back
 * and its buffers carry over to the next file; the task's schema, system
 * columns prepended), each batch shared with the reader, the file's deletion vector applied (a copy: the maintainer's
 * vector changes while the task marks rows), and for lookups the row
 * positions (_POS) and the file's index (_FILE) appended.  The source's
 * `memory` is its open file reader's buffers (pm_file_reader_memory), so
 * the merge's budget charges one reader per sorted run.  Given the
 * superseded stretches of its files (pk_superseded.c), it passes over a
 * stretch its reader stands in before reading the next batch (Parquet:
 * pages wholly inside are never decompressed); the skipped rows count as
 * read.
 * Value columns on demand (pm_pk_run_source_lazy: deduplicate in reducer
 * mode with page copies): the file reader reads the other fields; each
 * value field of fixed-width or byte-string values (not a key or sequence
 * field) gets a reader of its own, one file at a time, behind the
 * source's (the merge takes a source's rows in file order, so it only
 * moves forward: pm_file_reader_skip passes over the pages between).
 * Each batch holds a shared placeholder (zeros, one per batch length) in
 * those columns, read at once until pm_pk_run_source_lazy_on (the merge
 * reads the sources themselves, not intermediate runs) and then only when
 * pk_page_copy.c asks (pm_pk_run_source_fill: rows that are gathered and
 * no lazy offer covers).  A page whose rows are all copied whole or
 * superseded is so never decompressed (pages_unread counts them: the lazy
 * columns' pages less those their readers decoded).
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"
#include "dv/dv_apply.h"
#include "table/file_read.h"

#define RING 8
#define LAZY_PH 8 /* placeholder lengths kept per lazy column (batches of other lengths are read at once) */

/* A value column read on demand (pm_pk_run_source_lazy): its own reader,
 * one file at a time, behind the source's. */
typedef struct lazy_col {
    size_t col;                   /* batch column */
    pm_type *type;                /* ROW of its one field */
    pm_file_reader *fr;           /* on files[file], next row `row` */
    size_t file;
    int64_t row;
    pm_column *held;              /* rows [held_row, held_row + held->length) read ahead */
    int64_t held_row;
    pm_column *ph[LAZY_PH];       /* placeholders (zeros) of as many lengths */
    size_t nph;
} lazy_col;

typedef struct run_src {
    pm_pk_exec *x;
    const pm_type *read_type;     /* fields read (system columns prepended) */
    const pm_lsm_file **files;    /* owned array, borrowed files */
    size_t nfiles, next;
    pm_file_reader *fr;
    bool fr_done;                 /* fr's file is read to its end (reopened for the next) */
    pm_dv *dv;                    /* the current file's deletion vector (a copy) */
    bool count;                   /* count rows/bytes read (task inputs) */
    const pm_type *pos_type;      /* with positions: the batch type (+ _POS, _FILE) */
    int32_t file_base;            /* _FILE of files[0] */
    /* page copies (pk_page_copy.c): the open file's pages, the previous
     * file's (its batches may still be in the merge; in = NULL), and the
     * last batches handed out with their first file row, newest at ring[at] */
    pm_pk_file_pages *pages, *prev_pages;
    bool handed;                  /* the open file handed out a batch */
    struct {
        const pm_batch *b;
        pm_pk_file_pages *pages;
        int64_t row0;
        size_t file;              /* its file (index in files) */
        bool whole;               /* its rows are the file's row0.. (no vector thinned it) */
    } ring[RING];
    unsigned at;
    bool deferred;                /* close keeps the struct (pm_pk_run_source_defer) */
    pm_pk_file_skips *skips;      /* per file: superseded stretches passed over (borrowed) */
    int64_t file_row;             /* the open file's next row */
    bool synth_seq;               /* with positions: system columns not read, but each row
                                     gets its file's max sequence number and +I */
    /* value columns read on demand: the file reader reads prim_type (the
     * other fields); batch column j is prim[j] of its batches, or lazy */
    lazy_col *lz;
    size_t nlz;
    pm_type *prim_type;
    int32_t *prim;
    bool lazy_on;                 /* hand out placeholders (else the columns are read at once) */
    uint64_t lazy_pages, lazy_loaded; /* pages of the lazy columns, those their readers decoded */
} run_src;

/* b's columns plus _POS (pos, pos + 1, ...) and _FILE (file); with
 * seq >= 0 (b read without system columns) _SEQUENCE_NUMBER = seq and
 * _VALUE_KIND = +I prepended. */
static pm_error *with_positions(const pm_batch *b, const pm_type *type, int64_t pos, int32_t file, int64_t seq,
                                pm_batch **out)
{
    *out = NULL;
    pm_batch *o = NULL;
    PM_TRY(pm_calloc(&o, 1, sizeof *o));
    size_t sys = seq >= 0 ? 2 : 0, nc = sys + b->ncolumns;
    pm_error *e = NULL;
    o->type = pm_type_clone(type);
    if (!o->type)
        e = pm_oom();
    if (!e)
        e = pm_calloc(&o->columns, nc + 2, sizeof *o->columns);
    if (!e) {
        o->ncolumns = nc + 2;
        for (size_t i = 0; i < b->ncolumns; i++)
            o->columns[sys + i] = pm_column_retain(b->columns[i]);
        o->num_rows = b->num_rows;
    }
    /* the added columns have no nulls: their values written in place */
    size_t added[4] = {nc, nc + 1, 0, 1}, width[4] = {8, 4, 8, 1};
    size_t n = (size_t)b->num_rows;
    for (size_t k = 0; !e && k < 2 + sys; k++) {
        size_t c = added[k];
        e = pm_column_new(&o->columns[c], type->fields[c].type);
        if (!e)
            e = pm_buf_set_len(&o->columns[c]->values, n * width[k]);
        if (!e)
            o->columns[c]->length = b->num_rows;
    }
    if (!e) {
        int64_t *p = (int64_t *)(void *)o->columns[nc]->values.data;
        int32_t *f = (int32_t *)(void *)o->columns[nc + 1]->values.data;
        for (size_t i = 0; i < n; i++) {
            p[i] = pos + (int64_t)i;
            f[i] = file;
        }
        if (sys) {
            int64_t *q = (int64_t *)(void *)o->columns[0]->values.data;
            for (size_t i = 0; i < n; i++)
                q[i] = seq;
            memset(o->columns[1]->values.data, PM_KIND_INSERT, n);
        }
    }
    if (e) {
        pm_batch_free(o);
        return e;
    }
    *out = o;
    return NULL;
}

/* A column of n rows of `type` that nobody reads (zero values, no nulls). */
static pm_error *placeholder(const pm_type *type, int64_t n, pm_column **out)
{
    pm_column *c = NULL;
    PM_TRY(pm_column_new(&c, type));
    pm_error *e = NULL;
    if (pm_type_is_varlen(type)) {
        e = pm_buf_set_len(&c->offsets, ((size_t)n + 1) * 4);
        if (!e)
            memset(c->offsets.data, 0, c->offsets.len);
    } else {
        e = pm_buf_set_len(&c->values, (size_t)n * (size_t)pm_type_value_width(type));
        if (!e)
            memset(c->values.data, 0, c->values.len);
    }
    if (e) {
        pm_column_release(c);
        return e;
    }
    c->length = n;
    *out = c;
    return NULL;
}

static void lazy_close(run_src *s, lazy_col *l)
{
    if (l->fr) {
        uint64_t loaded = 0, skipped = 0;
        pm_file_reader_page_counts(l->fr, &loaded, &skipped);
        s->lazy_loaded += loaded;
    }
    pm_file_reader_free(l->fr);
    l->fr = NULL;
    pm_column_release(l->held);
    l->held = NULL;
}

/* Rows [row0, row0 + n) of file `file` of lazy column l, read by its own
 * reader (moved on to that file: files are asked for in order, rows
 * within a file in order). */
static pm_error *lazy_read(run_src *s, lazy_col *l, size_t file, int64_t row0, int64_t n, pm_column **out)
{
    *out = NULL;
    if (l->fr && l->file != file) {
        if (file < l->file)
            return pm_error_new(PM_EINTERNAL, "value column asked for an earlier file");
        lazy_close(s, l);
    }
    if (!l->fr) {
        const pm_data_file_meta *f = &s->files[file]->meta;
        pm_file_read_options fo = {l->type, PM_PK_READ_ROWS, false, s->x->codec};
        PM_TRY(pm_error_wrap(pm_file_reader_open(&l->fr, s->x->t, s->x->dir, f, &fo), 0, "input %s", f->file_name));
        l->file = file;
        l->row = 0;
    }
    int64_t held_end = l->held ? l->held_row + l->held->length : 0;
    if (row0 < (l->held ? l->held_row : l->row))
        return pm_error_new(PM_EINTERNAL, "value column asked for rows already passed");
    pm_column *c = NULL;
    PM_TRY(pm_column_new(&c, l->type->fields[0].type));
    pm_error *e = NULL;
    int64_t at = row0;
    if (l->held && at < held_end) {
        pm_column_run run = {at - l->held_row, (uint32_t)(held_end - at < n ? held_end - at : n), 0};
        const pm_column *src = l->held;
        e = pm_column_append_runs(c, &src, &run, 1);
        at += run.n;
    }
    if (!e && l->held && at >= held_end) {
        pm_column_release(l->held);
        l->held = NULL;
    }
    if (!e && at < row0 + n && l->row < at) {
        int64_t got = 0;
        e = pm_file_reader_skip(l->fr, at - l->row, &got);
        l->row += got;
        if (!e && l->row != at)
            e = pm_error_new(PM_ECORRUPT, "value column ends before row %lld", (long long)at);
    }
    while (!e && at < row0 + n) {
        const pm_batch *b = NULL;
        e = pm_file_reader_next(l->fr, &b);
        if (e)
            break;
        if (!b || !b->num_rows) {
            e = pm_error_new(PM_ECORRUPT, "value column ends before row %lld", (long long)at);
            break;
        }
        int64_t take = b->num_rows < row0 + n - at ? b->num_rows : row0 + n - at;
        pm_column_run run = {0, (uint32_t)take, 0};
        const pm_column *src = b->columns[0];
        e = pm_column_append_runs(c, &src, &run, 1);
        if (!e && take < b->num_rows) {
            /* read ahead: the rest is the next ask's */
            l->held = pm_column_retain(b->columns[0]);
            l->held_row = at;
        }
        at += take;
        l->row += b->num_rows;
    }
    if (e) {
        pm_column_release(c);
        return pm_error_wrap(e, 0, "input %s", s->files[file]->meta.file_name);
    }
    *out = c;
    return NULL;
}

/* Batch b's lazy column l read (its placeholder replaced). */
static pm_error *lazy_fill(run_src *s, pm_batch *b, lazy_col *l, size_t file, int64_t row0)
{
    pm_column *c = NULL;
    PM_TRY(lazy_read(s, l, file, row0, b->num_rows, &c));
    pm_column_release(b->columns[l->col]);
    b->columns[l->col] = c;
    return NULL;
}

/* The previous file's pages go; the open file's become the previous. */
static void pages_retire(run_src *s)
{
    if (!s->handed && s->prev_pages) {
        /* nothing handed out since the last retire (a file passed over
         * whole, or the close after the last file): the file before stays
         * the one whose last batches the merge may still ask about */
        pm_pk_pages_free(s->pages);
        s->pages = NULL;
        return;
    }
    s->handed = false;
    for (unsigned i = 0; i < RING; i++)
        if (s->ring[i].pages && s->ring[i].pages == s->prev_pages)
            s->ring[i].pages = NULL;
    pm_pk_pages_free(s->prev_pages);
    s->prev_pages = s->pages;
    s->pages = NULL;
    if (s->prev_pages)
        s->prev_pages->in = NULL; /* its reader closes */
}

bool pm_pk_run_source_where(void *ctx, const pm_batch *b, pm_pk_file_pages **pages, int64_t *row0)
{
    const run_src *s = ctx;
    for (unsigned k = 0; k < RING; k++) {
        unsigned i = (s->at + RING - k) % RING;
        if (s->ring[i].b != b)
            continue;
        if (!s->ring[i].pages)
            return false; /* its pages are not known (or retired) */
        *pages = s->ring[i].pages;
        *row0 = s->ring[i].row0;
        return true;
    }
    return false;
}

/* The open file is read to its end; its reader stays for the next file
 * (pm_file_reader_reopen: its batch, spare columns and buffers are kept). */
static void run_end_file(run_src *s)
{
    pages_retire(s);
    s->fr_done = true;
    pm_dv_free(s->dv);
    s->dv = NULL;
}

static void run_close_file(run_src *s)
{
    if (!s->fr_done)
        run_end_file(s);
    pm_file_reader_free(s->fr);
    s->fr = NULL;
    s->fr_done = false;
}

/* The batch handed out for the primary reader's b (file rows pos..): its
 * columns, and a placeholder for each lazy column (read at once unless
 * the source hands out placeholders). */
static pm_error *lazy_batch(run_src *s, const pm_batch *b, int64_t pos, pm_batch **out)
{
    *out = NULL;
    const pm_type *t = s->x->in_type;
    pm_batch *o = NULL;
    PM_TRY(pm_calloc(&o, 1, sizeof *o));
    pm_error *e = NULL;
    o->type = pm_type_clone(t);
    if (!o->type)
        e = pm_oom();
    if (!e)
        e = pm_calloc(&o->columns, t->nfields ? t->nfields : 1, sizeof *o->columns);
    if (!e) {
        o->ncolumns = t->nfields;
        o->num_rows = b->num_rows;
    }
    for (size_t j = 0; !e && j < t->nfields; j++)
        if (s->prim[j] >= 0)
            o->columns[j] = pm_column_retain(b->columns[s->prim[j]]);
    for (size_t k = 0; !e && k < s->nlz; k++) {
        lazy_col *l = &s->lz[k];
        /* a placeholder per batch length, shared by the batches of that
         * length (pm_pk_run_source_unread knows them by address) */
        pm_column *ph = NULL;
        for (size_t i = 0; i < l->nph && !ph; i++)
            if (l->ph[i]->length == b->num_rows)
                ph = l->ph[i];
        if (!ph && l->nph < LAZY_PH) {
            e = placeholder(l->type->fields[0].type, b->num_rows, &l->ph[l->nph]);
            if (!e)
                ph = l->ph[l->nph++];
        }
        if (!e && ph)
            o->columns[l->col] = pm_column_retain(ph);
        else if (!e)
            e = placeholder(l->type->fields[0].type, b->num_rows, &o->columns[l->col]);
        if (!e && (!s->lazy_on || !ph))
            e = lazy_fill(s, o, l, s->next - 1, pos);
    }
    if (e) {
        pm_batch_free(o);
        return e;
    }
    *out = o;
    return NULL;
}

/* The next batch of the open file, positions added and its vector applied
 * (NULL for an empty one; *end at the end of the file). */
static pm_error *file_next(run_src *s, pm_batch **out, bool *end)
{
    *out = NULL;
    if (s->skips && pm_file_reader_can_skip(s->fr)) {
        /* a superseded stretch the reader stands in is passed over */
        pm_pk_file_skips *fs = &s->skips[s->next - 1];
        while (fs->at < fs->n && fs->r[fs->at].end <= s->file_row)
            fs->at++;
        if (fs->at < fs->n && fs->r[fs->at].start <= s->file_row) {
            int64_t got = 0;
            PM_TRY(pm_file_reader_skip(s->fr, fs->r[fs->at].end - s->file_row, &got));
            s->file_row += got;
            if (s->count)
                s->x->r->counters.rows_read += got;
            pm_compact_pk *rp = pm_pk_part(s->x->r->part);
            if (rp)
                rp->rows_skipped += got;
        }
    }
    const pm_batch *b = NULL;
    PM_TRY(pm_file_reader_next(s->fr, &b));
    *end = !b;
    if (!b || !b->num_rows)
        return NULL;
    s->file_row += b->num_rows;
    if (s->count)
        s->x->r->counters.rows_read += b->num_rows;
    int64_t pos = pm_file_reader_position(s->fr);
    pm_batch *o = NULL;
    if (s->pos_type)
        PM_TRY(with_positions(b, s->pos_type, pos, s->file_base + (int32_t)(s->next - 1),
                              s->synth_seq ? s->files[s->next - 1]->meta.max_sequence_number : -1, &o));
    else if (s->nlz)
        PM_TRY(lazy_batch(s, b, pos, &o));
    else
        PM_TRY(pm_kv_batch_share(b, &o));
    bool whole = true;
    if (s->dv) {
        int64_t before = o->num_rows;
        pm_error *e = pm_dv_filter_batch(s->dv, pos, o);
        if (e) {
            pm_batch_free(o);
            return e;
        }
        if (s->count)
            s->x->r->counters.rows_deleted += before - o->num_rows;
        whole = o->num_rows == before;
    }
    /* the batch's rows are file rows pos.. unless the vector thinned it */
    s->at = (s->at + 1) % RING;
    s->handed = true;
    s->ring[s->at].b = o;
    s->ring[s->at].pages = whole && !s->pos_type ? s->pages : NULL;
    s->ring[s->at].row0 = pos;
    s->ring[s->at].file = s->next - 1;
    s->ring[s->at].whole = whole;
    *out = o;
    return NULL;
}

/* Errors name the file they come from. */
static pm_error *run_next(void *ctx, pm_batch **out)
{
    run_src *s = ctx;
    *out = NULL;
    for (;;) {
        if (!s->fr || s->fr_done) {
            if (s->next >= s->nfiles)
                return NULL;
            const pm_data_file_meta *f = &s->files[s->next++]->meta;
            pm_file_read_options fo = {s->prim_type ? s->prim_type : s->read_type, PM_PK_READ_ROWS, !s->synth_seq,
                                       s->x->codec};
            s->fr_done = false;
            PM_TRY(pm_error_wrap(pm_file_reader_reopen(&s->fr, s->x->t, s->x->dir, f, &fo, NULL, 0), 0, "input %s",
                                 f->file_name));
            s->file_row = 0;
            const pm_dv *dv = s->x->dv.m ? pm_dv_maintainer_get(s->x->dv.m, f->file_name) : NULL;
            if (dv)
                PM_TRY(pm_dv_copy(dv, &s->dv)); /* the maintainer's vector changes while we read */
            if (s->count)
                s->x->r->counters.bytes_read += f->file_size;
            if (!s->pos_type)
                PM_TRY(pm_pk_pages_open(s->x, s->fr, s->prim, f->schema_id == s->x->schema->id, &s->pages));
            for (size_t j = 0; s->pages && j < s->nlz; j++)
                if (s->pages->cols[s->lz[j].col].elem)
                    s->lazy_pages += s->pages->cols[s->lz[j].col].n;
        }
        bool end = false;
        pm_batch *o = NULL;
        pm_error *e = file_next(s, &o, &end);
        if (e)
            return pm_error_wrap(e, 0, "input %s", s->files[s->next - 1]->meta.file_name);
        if (end && s->next < s->nfiles) {
            run_end_file(s); /* its reader opens the next file */
        } else if (end) {
            run_close_file(s);
        } else if (o && o->num_rows) {
            *out = o;
            return NULL;
        } else {
            pm_batch_free(o);
        }
    }
}

/* The open file's reader buffers (the merge's budget charges them). */
static size_t run_memory(void *ctx)
{
    const run_src *s = ctx;
    size_t n = s->fr ? pm_file_reader_memory(s->fr) : 0;
    for (size_t k = 0; k < s->nlz; k++)
        if (s->lz[k].fr)
            n += pm_file_reader_memory(s->lz[k].fr);
    return n;
}

static void run_free(run_src *s)
{
    run_close_file(s);
    pm_pk_pages_free(s->pages);
    pm_pk_pages_free(s->prev_pages);
    for (size_t k = 0; k < s->nlz; k++) {
        lazy_close(s, &s->lz[k]);
        for (size_t i = 0; i < s->lz[k].nph; i++)
            pm_column_release(s->lz[k].ph[i]);
        pm_type_free(s->lz[k].type);
    }
    pm_compact_pk *rp = pm_pk_part(s->x->r->part);
    if (rp && s->lazy_pages > s->lazy_loaded)
        rp->pages_unread += (int64_t)(s->lazy_pages - s->lazy_loaded);
    free(s->lz);
    free(s->prim);
    pm_type_free(s->prim_type);
    free(s->files);
    free(s);
}

static void run_close(void *ctx)
{
    run_src *s = ctx;
    if (!s->deferred) {
        run_free(s);
        return;
    }
    /* the merge is done with it; its batches may still be asked about */
    run_close_file(s);
    pages_retire(s);
    s->next = s->nfiles;
}

pm_error *pm_pk_run_source_lazy(const pm_kv_source *src)
{
    run_src *s = src->ctx;
    const pm_pk_exec *x = s->x;
    const pm_type *t = x->in_type, *rt = s->read_type;
    if (s->pos_type || s->fr || s->nlz || t->nfields != rt->nfields + 2)
        return NULL;
    PM_TRY(pm_calloc(&s->prim, t->nfields, sizeof *s->prim));
    PM_TRY(pm_calloc(&s->lz, t->nfields, sizeof *s->lz));
    s->prim_type = pm_type_new_row(false);
    if (!s->prim_type)
        return pm_oom();
    int32_t np = 2; /* the system columns come first */
    s->prim[0] = 0;
    s->prim[1] = 1;
    for (size_t j = 2; j < t->nfields; j++) {
        const pm_field *f = &rt->fields[j - 2];
        bool lazy = pm_type_is_varlen(f->type) || pm_type_value_width(f->type) > 0;
        for (size_t k = 0; lazy && k < x->in_layout.nkey; k++)
            lazy = x->in_layout.key_cols[k] != j;
        for (size_t k = 0; lazy && k < x->in_layout.nseqf; k++)
            lazy = x->in_layout.seqf_cols[k] != j;
        if (!lazy) {
            s->prim[j] = np++;
            PM_TRY(pm_pk_add_field(s->prim_type, f->id, f->name, pm_type_clone(f->type)));
            continue;
        }
        s->prim[j] = -1;
        lazy_col *l = &s->lz[s->nlz++];
        l->col = j;
        l->type = pm_type_new_row(false);
        if (!l->type)
            return pm_oom();
        PM_TRY(pm_pk_add_field(l->type, f->id, f->name, pm_type_clone(f->type)));
    }
    if (s->nlz)
        return NULL;
    free(s->prim);
    free(s->lz);
    s->prim = NULL;
    s->lz = NULL;
    pm_type_free(s->prim_type);
    s->prim_type = NULL;
    return NULL;
}

void pm_pk_run_source_lazy_on(const pm_kv_source *src) { ((run_src *)src->ctx)->lazy_on = true; }

pm_error *pm_pk_run_source_fill(void *ctx, const pm_batch *b, size_t col, bool *filled)
{
    run_src *s = ctx;
    *filled = false;
    lazy_col *l = NULL;
    for (size_t k = 0; k < s->nlz && !l; k++)
        if (s->lz[k].col == col)
            l = &s->lz[k];
    if (!l || !pm_pk_run_source_unread(ctx, b, col))
        return NULL; /* read already (or never lazy) */
    for (unsigned k = 0; k < RING; k++) {
        unsigned i = (s->at + RING - k) % RING;
        if (s->ring[i].b != b)
            continue;
        if (!s->ring[i].whole)
            return pm_error_new(PM_EINTERNAL, "lazy value column of a thinned batch");
        PM_TRY(lazy_fill(s, (pm_batch *)b, l, s->ring[i].file, s->ring[i].row0));
        *filled = true;
        return NULL;
    }
    return pm_error_new(PM_EINTERNAL, "lazy value column of a batch the source no longer knows");
}

bool pm_pk_run_source_unread(void *ctx, const pm_batch *b, size_t col)
{
    const run_src *s = ctx;
    if (!s->nlz || col >= (size_t)s->x->in_type->nfields || s->prim[col] >= 0)
        return false;
    for (size_t k = 0; k < s->nlz; k++)
        if (s->lz[k].col == col) {
            for (size_t i = 0; i < s->lz[k].nph; i++)
                if (b->columns[col] == s->lz[k].ph[i])
                    return true;
            return false;
        }
    return false;
}

void pm_pk_run_source_set_skips(const pm_kv_source *src, pm_pk_file_skips *skips)
{
    ((run_src *)src->ctx)->skips = skips;
}

void pm_pk_run_source_synth_seq(const pm_kv_source *src) { ((run_src *)src->ctx)->synth_seq = true; }

void pm_pk_run_source_defer(const pm_kv_source *src) { ((run_src *)src->ctx)->deferred = true; }

void pm_pk_run_source_free(const pm_kv_source *src) { run_free(src->ctx); }

pm_error *pm_pk_run_source(pm_pk_exec *x, const pm_type *read_type, const pm_lsm_file *const *files, size_t n,
                           bool count, const pm_type *pos_type, int32_t file_base, pm_kv_source *out)
{
    run_src *s;
    PM_TRY(pm_calloc(&s, 1, sizeof *s));
    pm_error *e = pm_calloc(&s->files, n ? n : 1, sizeof *s->files);
    if (e) {
        free(s);
        return e;
    }
    memcpy(s->files, files, n * sizeof *files);
    s->x = x;
    s->read_type = read_type;
    s->nfiles = n;
    s->count = count;
    s->pos_type = pos_type;
    s->file_base = file_base;
    out->ctx = s;
    out->next = run_next;
    out->close = run_close;
    out->memory = run_memory;
    return NULL;
}
