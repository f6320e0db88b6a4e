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
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"
#include "dv/dv_apply.h"
#include "table/file_read.h"

#define RING 8

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
    } ring[RING];
    unsigned at;
    bool deferred;                /* close keeps the struct (pm_pk_run_source_defer) */
    pm_pk_file_skips *skips;      /* per file: superseded stretches passed over (borrowed) */
    int64_t file_row;             /* the open file's next row */
    bool synth_seq;               /* with positions: system columns not read, but each row
                                     gets its file's max sequence number and +I */
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
            pm_file_read_options fo = {s->read_type, PM_PK_READ_ROWS, !s->synth_seq, s->x->codec};
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
                PM_TRY(pm_pk_pages_open(s->x, s->fr, &s->pages));
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
    return s->fr ? pm_file_reader_memory(s->fr) : 0;
}

static void run_free(run_src *s)
{
    run_close_file(s);
    pm_pk_pages_free(s->pages);
    pm_pk_pages_free(s->prev_pages);
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
