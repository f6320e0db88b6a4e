/*
 * lsm/kv_spill.c — file-backed intermediate merge runs (format in
 * kv_spill.h).  Field names are replaced by f0, f1, ... at every ROW level
 * before writing (Paimon names need not be valid Avro names); the merge
 * only looks at column positions and types, so batches read back with the
 * renamed type merge like the originals.
 */
#include "lsm/kv_spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/util.h"
#include "format/avro/avro.h"
#include "io/fileio.h"

struct pm_kv_spill_dir {
    pm_kv_spill ops;
    pm_fileio *fio;
    char *dir;
    char uuid[37];
    pm_codec_id codec;
    uint64_t counter;
    size_t live;
    uint64_t bytes;
};

typedef struct spill_run {
    pm_kv_spill_dir *d;
    char *path;
    pm_type *type;          /* renamed row type */
    pm_output *out;
    pm_avro_writer *w;
    pm_input *in;
    pm_avro_reader *r;
} spill_run;

/* Clone with every ROW field renamed f<i> (nested too). */
static pm_type *renamed(const pm_type *t)
{
    pm_type *c = pm_type_clone(t);
    if (!c)
        return NULL;
    pm_type *stack[64];
    size_t sp = 0;
    stack[sp++] = c;
    while (sp) {
        pm_type *x = stack[--sp];
        if (x->id == PM_TYPE_ROW) {
            for (size_t i = 0; i < x->nfields; i++) {
                char name[24];
                snprintf(name, sizeof name, "f%zu", i);
                char *n = NULL;
                if (pm_strdup(&n, name)) {
                    pm_type_free(c);
                    return NULL;
                }
                free(x->fields[i].name);
                x->fields[i].name = n;
                if (sp < 64)
                    stack[sp++] = x->fields[i].type;
            }
        }
        if (x->element && sp < 64)
            stack[sp++] = x->element;
        if (x->key && sp < 64)
            stack[sp++] = x->key;
        if (x->value && sp < 64)
            stack[sp++] = x->value;
    }
    return c;
}

static void run_free(spill_run *r)
{
    if (!r)
        return;
    pm_avro_writer_free(r->w);
    if (r->out)
        pm_output_abort(r->out);
    pm_avro_reader_free(r->r);
    if (r->in)
        pm_input_close(r->in);
    if (r->path) {
        pm_error_free(pm_fileio_delete(r->d->fio, r->path));
        r->d->live--;
    }
    free(r->path);
    pm_type_free(r->type);
    free(r);
}

static pm_error *spill_create(void *ctx, const pm_type *row_type, void **run)
{
    pm_kv_spill_dir *d = ctx;
    *run = NULL;
    spill_run *r = calloc(1, sizeof *r);
    if (!r)
        return pm_oom();
    r->d = d;
    pm_error *e = NULL;
    r->type = renamed(row_type);
    if (!r->type) {
        e = pm_oom();
        goto fail;
    }
    size_t n = strlen(d->dir) + 80;
    r->path = malloc(n);
    if (!r->path) {
        e = pm_oom();
        goto fail;
    }
    snprintf(r->path, n, "%s/pm-merge-%s-%llu.avro", d->dir, d->uuid, (unsigned long long)d->counter++);
    PM_TRY_GOTO(e, pm_output_create(d->fio, r->path, false, &r->out), fail_nofile);
    d->live++;
    pm_avro_write_options wo = {d->codec, 0, 0, 0};
    PM_TRY_GOTO(e, pm_avro_writer_open(r->out, r->type, &wo, &r->w), fail);
    *run = r;
    return NULL;
fail_nofile:
    free(r->path);
    r->path = NULL;
fail:
    run_free(r);
    return pm_error_wrap(e, 0, "merge spill");
}

static pm_error *spill_write(void *ctx, void *run, pm_batch *b)
{
    (void)ctx;
    spill_run *r = run;
    /* write under the renamed type: same columns, other names */
    pm_type *orig = b->type;
    b->type = r->type;
    pm_error *e = pm_avro_writer_write(r->w, b);
    b->type = orig;
    pm_batch_free(b);
    return pm_error_wrap(e, 0, "merge spill %s", r->path);
}

static pm_error *spill_next(void *ctx, pm_batch **out)
{
    spill_run *r = ctx;
    *out = NULL;
    pm_batch *b;
    PM_TRY(pm_error_wrap(pm_avro_reader_next(r->r, &b), 0, "merge spill %s", r->path));
    if (!b)
        return NULL;
    return pm_kv_batch_share(b, out);
}

static void spill_close(void *ctx) { run_free(ctx); }

static pm_error *spill_finish(void *ctx, void *run, pm_kv_source *src)
{
    pm_kv_spill_dir *d = ctx;
    spill_run *r = run;
    pm_error *e = pm_avro_writer_finish(r->w);
    if (!e) {
        d->bytes += pm_avro_writer_estimated_size(r->w);
        pm_avro_writer_free(r->w);
        r->w = NULL;
        pm_output *o = r->out;
        r->out = NULL;
        e = pm_output_close(o, false);
    }
    if (!e)
        e = pm_input_open(d->fio, r->path, &r->in);
    if (!e)
        e = pm_avro_reader_open(r->in, r->type, NULL, &r->r);
    if (e) {
        run_free(r);
        return pm_error_wrap(e, 0, "merge spill");
    }
    src->ctx = r;
    src->next = spill_next;
    src->close = spill_close;
    src->memory = NULL;
    return NULL;
}

static void spill_abort(void *ctx, void *run)
{
    (void)ctx;
    run_free(run);
}

pm_error *pm_kv_spill_dir_new(pm_kv_spill_dir **out, const char *dir, pm_codec_id codec)
{
    *out = NULL;
    if (codec != PM_CODEC_NONE && codec != PM_CODEC_ZSTD && codec != PM_CODEC_SNAPPY && codec != PM_CODEC_DEFLATE)
        return pm_error_new(PM_EINVALID, "merge spill codec %d is not an Avro codec", (int)codec);
    pm_kv_spill_dir *d = calloc(1, sizeof *d);
    if (!d)
        return pm_oom();
    pm_error *e = pm_strdup(&d->dir, dir);
    if (!e)
        e = pm_fileio_local_new(&d->fio);
    if (!e)
        e = pm_uuid(d->uuid);
    if (!e) {
        bool is_dir = false;
        e = pm_fileio_is_dir(d->fio, dir, &is_dir);
        if (!e && !is_dir)
            e = pm_error_new(PM_EINVALID, "merge spill directory %s does not exist", dir);
    }
    if (e) {
        pm_kv_spill_dir_free(d);
        return e;
    }
    d->codec = codec;
    d->ops.ctx = d;
    d->ops.create = spill_create;
    d->ops.write = spill_write;
    d->ops.finish = spill_finish;
    d->ops.abort = spill_abort;
    *out = d;
    return NULL;
}

const pm_kv_spill *pm_kv_spill_dir_ops(pm_kv_spill_dir *d) { return &d->ops; }
size_t pm_kv_spill_dir_live_files(const pm_kv_spill_dir *d) { return d->live; }
uint64_t pm_kv_spill_dir_bytes_written(const pm_kv_spill_dir *d) { return d->bytes; }

void pm_kv_spill_dir_free(pm_kv_spill_dir *d)
{
    if (!d)
        return;
    /* runs still open belong to their sources; files of this spill left
     * behind by a crash of the caller are matched by the uuid prefix */
    if (d->fio && d->live) {
        pm_name_list l;
        if (!pm_fileio_list(d->fio, d->dir, &l)) {
            char prefix[64];
            snprintf(prefix, sizeof prefix, "pm-merge-%s-", d->uuid);
            for (size_t i = 0; i < l.count; i++)
                if (strncmp(l.names[i], prefix, strlen(prefix)) == 0) {
                    size_t n = strlen(d->dir) + strlen(l.names[i]) + 2;
                    char *p = malloc(n);
                    if (p) {
                        snprintf(p, n, "%s/%s", d->dir, l.names[i]);
                        pm_error_free(pm_fileio_delete(d->fio, p));
                        free(p);
                    }
                }
            pm_fileio_list_free(&l);
        }
    }
    pm_fileio_free(d->fio);
    free(d->dir);
    free(d);
}
