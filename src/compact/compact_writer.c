/*
 * compact/compact_writer.c — rolling writer for compaction outputs
 * (compact_writer.h).
 *
 * Per file: open `<dir>/<name>` (never overwriting) → Parquet writer (codec
 * and page settings from the schema options with the task's compression;
 * row groups capped at row_group_limit) or Avro writer (codec from
 * avro.codec / the task's compression; one statistics accumulator per
 * field) → batches → close → DataFileMeta {name, size, rows, empty keys and
 * key stats, value stats per table/write_stats.h, sequence numbers
 * [first, first + rows - 1], schema id, level, creation time (local wall
 * clock), delete rows 0, file source COMPACT}.  A failure while a file is
 * open deletes that file; abort deletes every file not handed out.
 */
#include "compact/compact_writer.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "format/avro/avro.h"
#include "format/parquet/parquet_writer.h"
#include "meta/paths.h"
#include "table/file_roll.h"
#include "table/write_stats.h"

struct pm_compact_writer {
    pm_fileio *fio;
    pm_compact_writer_options o;
    char *dir;
    char *format;
    char *compression;
    bool parquet;
    pm_pq_writer_options pq_opts;
    pm_avro_write_options avro_opts;
    pm_stats_mode *modes;
    bool stats_disabled;
    bool dense;
    pm_data_file_namer namer;
    bool namer_ok;
    int64_t seq;               /* next sequence number */
    /* the open file */
    bool open;
    char *name;
    char *path;
    pm_output *out;
    pm_pq_writer *pq;
    pm_avro_writer *avro;
    pm_stats_accum *accs;
    int64_t rows;
    int64_t min_seq;
    /* closed files */
    pm_data_file_meta *done;
    size_t ndone, capdone;
    int64_t bytes_done;
    pm_batch *slice;           /* scratch for splitting a batch at the row limit */
};

typedef struct lookup_ctx {
    const pm_options *o;
    const char *compression;
} lookup_ctx;

static const char *opt_lookup(void *ctx, const char *key)
{
    const lookup_ctx *c = ctx;
    if (!strcmp(key, "file.compression"))
        return c->compression;
    return pm_options_get(c->o, key);
}

pm_error *pm_compact_writer_new(pm_compact_writer **out, pm_fileio *fio, const pm_compact_writer_options *o)
{
    *out = NULL;
    if (o->target_size <= 0 || o->target_rows <= 0)
        return pm_error_new(PM_EINVALID, "compaction writer: target size and row count must be positive");
    pm_compact_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    w->fio = fio;
    w->o = *o;
    w->seq = o->start_seq;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&w->dir, o->dir), fail);
    PM_TRY_GOTO(e, pm_strdup(&w->format, o->format), fail);
    PM_TRY_GOTO(e, pm_strdup(&w->compression, o->compression), fail);
    w->o.dir = w->dir;
    w->o.format = w->format;
    w->o.compression = w->compression;
    if (!strcmp(o->format, "parquet")) {
        w->parquet = true;
        pm_pq_writer_options_default(&w->pq_opts);
        lookup_ctx lc = {o->table_options, w->compression};
        PM_TRY_GOTO(e, pm_pq_writer_options_from_table(&w->pq_opts, opt_lookup, &lc), fail);
        if (o->row_group_limit > 0 && w->pq_opts.row_group_size > o->row_group_limit)
            w->pq_opts.row_group_size = o->row_group_limit;
    } else if (!strcmp(o->format, "avro")) {
        PM_TRY_GOTO(e, pm_roll_avro_codec(o->table_options, w->compression, &w->avro_opts), fail);
    } else {
        e = pm_error_new(PM_EUNSUPPORTED, "compaction output format '%s' is not supported", o->format);
        goto fail;
    }
    size_t nf = o->row_type->nfields;
    PM_TRY_GOTO(e, pm_calloc(&w->modes, nf ? nf : 1, sizeof *w->modes), fail);
    PM_TRY_GOTO(e, pm_write_stats_modes(o->table_options, o->row_type, w->modes, &w->stats_disabled), fail);
    PM_TRY_GOTO(e, pm_options_bool(o->table_options, PM_OPT_METADATA_STATS_DENSE_STORE, &w->dense), fail);
    PM_TRY_GOTO(e, pm_data_file_namer_init(&w->namer, o->table_options, w->format, w->compression), fail);
    w->namer_ok = true;
    PM_TRY_GOTO(e, pm_batch_new(&w->slice, o->row_type), fail);
    *out = w;
    return NULL;
fail:
    pm_compact_writer_free(w);
    return pm_error_wrap(e, 0, "compaction writer for %s", o->dir);
}

static void file_release(pm_compact_writer *w)
{
    pm_pq_writer_abort(w->pq);
    w->pq = NULL;
    if (w->avro)
        pm_avro_writer_free(w->avro);
    w->avro = NULL;
    pm_output_abort(w->out);
    w->out = NULL;
    if (w->accs) {
        for (size_t i = 0; i < w->o.row_type->nfields; i++)
            pm_stats_accum_clear(&w->accs[i]);
        free(w->accs);
        w->accs = NULL;
    }
    free(w->name);
    free(w->path);
    w->name = w->path = NULL;
    w->rows = 0;
    w->open = false;
}

static pm_error *file_open(pm_compact_writer *w)
{
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_data_file_namer_next_data(&w->namer, &w->name), fail);
    w->path = pm_path_join(w->dir, w->name);
    if (!w->path)
        PM_TRY_GOTO(e, pm_oom(), fail);
    if (pm_compact_fault("writer-open")) {
        e = pm_error_new(PM_EIO, "injected fault: writer-open");
        goto fail;
    }
    PM_TRY_GOTO(e, pm_output_create(w->fio, w->path, false, &w->out), fail);
    if (w->parquet) {
        PM_TRY_GOTO(e, pm_pq_writer_new(&w->pq, w->out, w->o.row_type, &w->pq_opts), fail);
    } else {
        PM_TRY_GOTO(e, pm_avro_writer_open(w->out, w->o.row_type, &w->avro_opts, &w->avro), fail);
        size_t nf = w->o.row_type->nfields;
        PM_TRY_GOTO(e, pm_calloc(&w->accs, nf ? nf : 1, sizeof *w->accs), fail);
        for (size_t i = 0; i < nf; i++)
            pm_stats_accum_init(&w->accs[i], w->o.row_type->fields[i].type,
                                w->stats_disabled ? (pm_stats_mode){PM_STATS_NONE, 0} : w->modes[i]);
    }
    w->min_seq = w->seq;
    w->rows = 0;
    w->open = true;
    return NULL;
fail:
    file_release(w);
    return pm_error_wrap(e, 0, "open compaction output in %s", w->dir);
}

static pm_error *file_stats(pm_compact_writer *w, const pm_pq_write_result *res, pm_data_file_meta *m)
{
    size_t nf = w->o.row_type->nfields;
    pm_col_stats *cs = NULL;
    PM_TRY(pm_roll_col_stats(w->o.row_type, w->modes, w->stats_disabled, w->accs, res, &cs));
    pm_error *e = pm_col_stats_to_simple(w->o.row_type, cs, w->dense, &m->value_stats, &m->has_value_stats_cols,
                                         &m->value_stats_cols);
    for (size_t i = 0; i < nf; i++)
        pm_col_stats_clear(&cs[i]);
    free(cs);
    return e;
}

static pm_error *file_close(pm_compact_writer *w)
{
    pm_error *e = NULL;
    pm_pq_write_result res;
    memset(&res, 0, sizeof res);
    pm_data_file_meta m;
    memset(&m, 0, sizeof m);
    uint64_t size = 0;
    bool closed = false;
    PM_TRY_GOTO(e, pm_roll_close_format(&w->pq, w->avro, &w->out, &res, &size), fail);
    closed = true;
    if (pm_compact_fault("writer-close")) {
        e = pm_error_new(PM_EIO, "injected fault: writer-close");
        goto fail;
    }
    PM_TRY_GOTO(e, pm_strdup(&m.file_name, w->name), fail);
    m.file_size = (int64_t)size;
    m.row_count = w->rows;
    PM_TRY_GOTO(e, pm_roll_empty_keys(&m), fail);
    PM_TRY_GOTO(e, file_stats(w, &res, &m), fail);
    m.min_sequence_number = w->min_seq;
    m.max_sequence_number = w->min_seq + w->rows - 1;
    m.schema_id = w->o.schema_id;
    m.level = w->o.level;
    pm_roll_stamp(&m, 0, PM_FILE_SOURCE_COMPACT);
    PM_TRY_GOTO(e, pm_roll_push_file(&w->done, &w->ndone, &w->capdone, &m), fail);
    w->bytes_done += m.file_size;
    pm_pq_write_result_free(&res);
    file_release(w);
    return NULL;
fail:
    if (closed || w->path)
        pm_error_free(pm_fileio_delete(w->fio, w->path));
    pm_data_file_meta_clear(&m);
    pm_pq_write_result_free(&res);
    file_release(w);
    return pm_error_wrap(e, 0, "close compaction output in %s", w->dir);
}

static uint64_t file_size_now(const pm_compact_writer *w)
{
    return w->pq ? pm_pq_writer_estimated_size(w->pq) : pm_avro_writer_estimated_size(w->avro);
}

static pm_error *file_write(pm_compact_writer *w, const pm_batch *b)
{
    if (w->pq) {
        PM_TRY(pm_pq_writer_write(w->pq, b));
    } else {
        PM_TRY(pm_avro_writer_write(w->avro, b));
        for (size_t i = 0; i < w->o.row_type->nfields; i++)
            PM_TRY(pm_stats_accum_add(&w->accs[i], b->columns[i], 0, b->num_rows));
    }
    w->rows += b->num_rows;
    w->seq += b->num_rows;
    return NULL;
}

pm_error *pm_compact_writer_write(pm_compact_writer *w, const pm_batch *b)
{
    int64_t n = b->num_rows, r = 0;
    pm_error *e = NULL;
    while (r < n) {
        if (!w->open)
            PM_TRY(file_open(w));
        int64_t room = w->o.target_rows - w->rows;
        int64_t len = n - r < room ? n - r : room;
        const pm_batch *part = b;
        if (r != 0 || len != n) {
            PM_TRY_GOTO(e, pm_roll_copy_range(w->slice, b, r, r + len), fail);
            part = w->slice;
        }
        PM_TRY_GOTO(e, file_write(w, part), fail);
        r += len;
        if (w->rows >= w->o.target_rows || (int64_t)file_size_now(w) >= w->o.target_size)
            PM_TRY(file_close(w));
    }
    return NULL;
fail:
    {
        char *path = w->path ? strdup(w->path) : NULL;
        file_release(w);
        if (path)
            pm_error_free(pm_fileio_delete(w->fio, path));
        free(path);
    }
    return pm_error_wrap(e, 0, "write compaction output in %s", w->dir);
}

pm_error *pm_compact_writer_finish(pm_compact_writer *w, pm_data_file_meta **files, size_t *n)
{
    *files = NULL;
    *n = 0;
    if (w->open)
        PM_TRY(file_close(w));
    *files = w->done;
    *n = w->ndone;
    w->done = NULL;
    w->ndone = w->capdone = 0;
    return NULL;
}

int64_t pm_compact_writer_bytes(const pm_compact_writer *w) { return w->bytes_done; }
int64_t pm_compact_writer_next_seq(const pm_compact_writer *w) { return w->seq; }
void pm_compact_writer_set_next_seq(pm_compact_writer *w, int64_t seq) { w->seq = seq; }

void pm_compact_writer_abort(pm_compact_writer *w)
{
    if (!w)
        return;
    if (w->open) {
        char *path = w->path ? strdup(w->path) : NULL;
        file_release(w);
        if (path)
            pm_error_free(pm_fileio_delete(w->fio, path));
        free(path);
    }
    for (size_t i = 0; i < w->ndone; i++) {
        char *p = pm_path_join(w->dir, w->done[i].file_name);
        if (p)
            pm_error_free(pm_fileio_delete(w->fio, p));
        free(p);
    }
    pm_compact_writer_free(w);
}

void pm_compact_writer_free(pm_compact_writer *w)
{
    if (!w)
        return;
    if (w->open)
        file_release(w);
    pm_data_file_metas_free(w->done, w->ndone);
    if (w->namer_ok)
        pm_data_file_namer_destroy(&w->namer);
    free(w->modes);
    pm_batch_free(w->slice);
    free(w->dir);
    free(w->format);
    free(w->compression);
    free(w);
}
