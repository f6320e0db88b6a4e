/*
 * table/pk_spill.c — a lazily created private temporary directory around
 * lsm/kv_spill.h (pk_spill.h), made and removed through the local
 * pm_fileio (pm_fileio_mkdtemp / pm_fileio_rmdir).  The callbacks handed out wrap the
 * kv_spill ones only to count finished runs.
 */
#include "table/pk_spill.h"

#include <stdlib.h>

#include "base/mem.h"
#include "io/fileio.h"
#include "lsm/kv_spill.h"

struct pm_pk_spill {
    pm_fileio *fio;           /* local file system */
    char *base;               /* parent directory */
    char *dir;                /* our directory, NULL until the first run */
    pm_kv_spill_dir *runs_dir;
    const pm_kv_spill *inner;
    pm_kv_spill cb;
    int64_t runs;
};

static pm_error *cb_create(void *ctx, const pm_type *row_type, void **run)
{
    pm_pk_spill *s = ctx;
    return s->inner->create(s->inner->ctx, row_type, run);
}

static pm_error *cb_write(void *ctx, void *run, pm_batch *b)
{
    pm_pk_spill *s = ctx;
    return s->inner->write(s->inner->ctx, run, b);
}

static pm_error *cb_finish(void *ctx, void *run, pm_kv_source *out)
{
    pm_pk_spill *s = ctx;
    PM_TRY(s->inner->finish(s->inner->ctx, run, out));
    s->runs++;
    return NULL;
}

static void cb_abort(void *ctx, void *run)
{
    pm_pk_spill *s = ctx;
    s->inner->abort(s->inner->ctx, run);
}

pm_error *pm_pk_spill_new(pm_pk_spill **out, const char *dir)
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
    s->cb.ctx = s;
    s->cb.create = cb_create;
    s->cb.write = cb_write;
    s->cb.finish = cb_finish;
    s->cb.abort = cb_abort;
    *out = s;
    return NULL;
}

pm_error *pm_pk_spill_callbacks(pm_pk_spill *s, const pm_kv_spill **out)
{
    *out = NULL;
    if (!s->dir) {
        PM_TRY(pm_error_wrap(pm_fileio_mkdtemp(s->fio, s->base, "paimon-spill-", &s->dir), 0,
                             "create a spill directory"));
        pm_error *e = pm_kv_spill_dir_new(&s->runs_dir, s->dir, PM_CODEC_SNAPPY);
        if (e) {
            pm_error_free(pm_fileio_rmdir(s->fio, s->dir, NULL));
            free(s->dir);
            s->dir = NULL;
            return e;
        }
        s->inner = pm_kv_spill_dir_ops(s->runs_dir);
    }
    *out = &s->cb;
    return NULL;
}

void pm_pk_spill_free(pm_pk_spill *s)
{
    if (!s)
        return;
    pm_kv_spill_dir_free(s->runs_dir); /* deletes files still there */
    if (s->dir)
        pm_error_free(pm_fileio_rmdir(s->fio, s->dir, NULL));
    free(s->dir);
    pm_fileio_free(s->fio);
    free(s->base);
    free(s);
}

int64_t pm_pk_spill_runs(const pm_pk_spill *s) { return s->runs; }
int64_t pm_pk_spill_bytes(const pm_pk_spill *s) { return s->runs_dir ? (int64_t)pm_kv_spill_dir_bytes_written(s->runs_dir) : 0; }
