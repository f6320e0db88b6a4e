/*
 * table/pk_spill.c — sorted runs in a private temporary directory
 * (pk_spill.h).
 *
 * create → a Parquet writer on <dir>/run-<n>.parquet; write → append the
 * batch (then free it: ownership passed in); finish → close the file and
 * open a reader on it, wrapped as a pm_kv_source whose batches share the
 * reader's columns (reference counted, so the merge may keep a batch while
 * the reader moves on) and whose close deletes the file; abort → delete.
 */
#include "table/pk_spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "types/column.h"

struct pm_pk_spill {
    char *base;               /* parent directory */
    char *dir;                /* our directory, NULL until the first run */
    pm_fileio *fio;
    int64_t batch_rows;
    int64_t next_id;
    int64_t runs, bytes;
    int64_t live;             /* runs not deleted yet */
    pm_kv_spill cb;
};

typedef struct spill_run {
    pm_pk_spill *s;
    char *path;
    pm_output *out;
    pm_pq_writer *pq;
    /* reading */
    pm_input *in;
    pm_pq_reader *rd;
} spill_run;

static void run_free(spill_run *r, bool remove_file)
{
    if (!r)
        return;
    pm_pq_writer_abort(r->pq);
    pm_output_abort(r->out);
    pm_pq_reader_free(r->rd);
    pm_input_close(r->in);
    if (remove_file && r->path) {
        unlink(r->path);
        r->s->live--;
    }
    free(r->path);
    free(r);
}

static pm_error *ensure_dir(pm_pk_spill *s)
{
    if (s->dir)
        return NULL;
    size_t n = strlen(s->base) + 32;
    char *p = malloc(n);
    if (!p)
        return pm_oom();
    snprintf(p, n, "%s/paimon-spill-XXXXXX", s->base);
    if (!mkdtemp(p)) {
        pm_error *e = pm_error_new(PM_EIO, "create spill directory under %s", s->base);
        free(p);
        return e;
    }
    s->dir = p;
    return NULL;
}

static pm_error *cb_create(void *ctx, const pm_type *row_type, void **run)
{
    pm_pk_spill *s = ctx;
    *run = NULL;
    PM_TRY(ensure_dir(s));
    spill_run *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->s = s;
    pm_error *e = NULL;
    size_t n = strlen(s->dir) + 40;
    r->path = malloc(n);
    if (!r->path) {
        free(r);
        return pm_oom();
    }
    snprintf(r->path, n, "%s/run-%lld.parquet", s->dir, (long long)s->next_id++);
    s->live++;
    PM_TRY_GOTO(e, pm_output_create(s->fio, r->path, true, &r->out), fail);
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.codec = PM_CODEC_LZ4;
    o.codec_level = 0;
    o.dictionary = false;
    o.page_crc = false;
    o.row_group_size = 16 << 20;
    PM_TRY_GOTO(e, pm_pq_writer_new(&r->pq, r->out, row_type, &o), fail);
    *run = r;
    return NULL;
fail:
    run_free(r, true);
    return pm_error_wrap(e, 0, "spill run");
}

static pm_error *cb_write(void *ctx, void *run, pm_batch *b)
{
    (void)ctx;
    spill_run *r = run;
    pm_error *e = pm_pq_writer_write(r->pq, b);
    pm_batch_free(b);
    return e ? pm_error_wrap(e, 0, "spill run %s", r->path) : NULL;
}

static pm_error *src_next(void *ctx, pm_batch **out)
{
    spill_run *r = ctx;
    *out = NULL;
    pm_batch *b = NULL;
    PM_TRY(pm_error_wrap(pm_pq_reader_next_batch(r->rd, &b), 0, "spill run %s", r->path));
    if (!b)
        return NULL;
    return pm_kv_batch_share(b, out);
}

static void src_close(void *ctx) { run_free(ctx, true); }

static pm_error *cb_finish(void *ctx, void *run, pm_kv_source *out)
{
    pm_pk_spill *s = ctx;
    spill_run *r = run;
    memset(out, 0, sizeof *out);
    pm_error *e = NULL;
    pm_pq_write_result res = {0};
    pm_pq_writer *pq = r->pq;
    r->pq = NULL;
    PM_TRY_GOTO(e, pm_pq_writer_close(pq, &res), fail);
    s->bytes += (int64_t)res.file_size;
    pm_pq_write_result_free(&res);
    pm_output *o = r->out;
    r->out = NULL;
    PM_TRY_GOTO(e, pm_output_close(o, false), fail);
    s->runs++;
    PM_TRY_GOTO(e, pm_input_open(s->fio, r->path, &r->in), fail);
    pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
    ro.batch_rows = s->batch_rows;
    PM_TRY_GOTO(e, pm_pq_reader_open(&r->rd, r->in, &ro), fail);
    out->ctx = r;
    out->next = src_next;
    out->close = src_close;
    return NULL;
fail:
    run_free(r, true);
    return pm_error_wrap(e, 0, "finish spill run");
}

static void cb_abort(void *ctx, void *run)
{
    (void)ctx;
    run_free(run, true);
}

pm_error *pm_pk_spill_new(pm_pk_spill **out, const char *dir, int64_t batch_rows)
{
    *out = NULL;
    pm_pk_spill *s;
    PM_TRY(pm_calloc(&s, 1, sizeof *s));
    if (!dir || !*dir)
        dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    pm_error *e = pm_strdup(&s->base, dir);
    if (!e)
        e = pm_fileio_local_new(&s->fio);
    if (e) {
        pm_pk_spill_free(s);
        return e;
    }
    s->batch_rows = batch_rows > 0 ? batch_rows : 4096;
    s->cb.ctx = s;
    s->cb.create = cb_create;
    s->cb.write = cb_write;
    s->cb.finish = cb_finish;
    s->cb.abort = cb_abort;
    *out = s;
    return NULL;
}

void pm_pk_spill_free(pm_pk_spill *s)
{
    if (!s)
        return;
    if (s->dir) {
        /* runs whose sources were never closed (should not happen) */
        for (int64_t i = 0; i < s->next_id; i++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/run-%lld.parquet", s->dir, (long long)i);
            unlink(p);
        }
        rmdir(s->dir);
    }
    pm_fileio_free(s->fio);
    free(s->dir);
    free(s->base);
    free(s);
}

const pm_kv_spill *pm_pk_spill_callbacks(pm_pk_spill *s) { return &s->cb; }
int64_t pm_pk_spill_runs(const pm_pk_spill *s) { return s->runs; }
int64_t pm_pk_spill_bytes(const pm_pk_spill *s) { return s->bytes; }
