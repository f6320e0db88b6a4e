/*
 * compact/compact_writer.c — rolling writer for compaction outputs
 * (compact_writer.h) on the one rolling data-file writer
 * (table/rolling_file_writer.h).
 *
 * The task's settings become the rolling writer's: the schema options with
 * the task's compression replacing file.compression (Parquet codec, Avro
 * codec, names), row groups capped at row_group_limit, the size checked
 * after every batch (Java's bundle writes), Avro sized with its unflushed
 * block, level, schema id, first sequence number, file source COMPACT, and
 * the fault points writer-open / writer-close (base/fault.h).  A failed
 * write deletes the open file at once; abort deletes every file not handed
 * out.
 */
#include "compact/compact_writer.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

struct pm_compact_writer {
    pm_rolling_file_writer *rw;
    char *dir;
};

void pm_compact_writer_rolling_options(const pm_compact_writer_options *o, pm_fileio *fio,
                                       pm_rolling_file_writer_options *ro)
{
    memset(ro, 0, sizeof *ro);
    ro->fio = fio;
    ro->dir = o->dir;
    ro->file_type = o->row_type;
    ro->options = o->table_options;
    ro->format = o->format;
    ro->compression = o->compression;
    ro->compression_override = true;
    ro->target_size = o->target_size;
    ro->target_rows = o->target_rows;
    ro->check = PM_ROLL_CHECK_WRITE;
    ro->avro_size_buffered = true;
    ro->row_group_limit = o->row_group_limit;
    ro->schema_id = o->schema_id;
    ro->level = o->level;
    ro->source = PM_FILE_SOURCE_COMPACT;
    ro->start_seq = o->start_seq;
    ro->file_index = true; /* outputs get the table's file indexes, regenerated */
    ro->what = "compaction output";
    ro->buffers = o->buffers;
}

pm_error *pm_compact_writer_new(pm_compact_writer **out, pm_fileio *fio, const pm_compact_writer_options *o)
{
    *out = NULL;
    pm_compact_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    pm_rolling_file_writer_options ro;
    pm_compact_writer_rolling_options(o, fio, &ro);
    ro.fault_open = "writer-open";
    ro.fault_close = "writer-close";
    pm_error *e = pm_strdup(&w->dir, o->dir);
    if (!e)
        e = pm_rolling_file_writer_new(&w->rw, &ro);
    if (e) {
        pm_compact_writer_free(w);
        return pm_error_wrap(e, 0, "compaction writer for %s", o->dir);
    }
    *out = w;
    return NULL;
}

pm_error *pm_compact_writer_write(pm_compact_writer *w, const pm_batch *b)
{
    pm_error *e = pm_rolling_file_writer_write(w->rw, b);
    if (!e)
        return NULL;
    pm_rolling_file_writer_discard_open(w->rw);
    return pm_error_wrap(e, 0, "write compaction output in %s", w->dir);
}

pm_error *pm_compact_writer_set_plain_sources(pm_compact_writer *w, const bool *plain)
{
    return pm_rolling_file_writer_set_plain_sources(w->rw, plain);
}

pm_error *pm_compact_writer_finish(pm_compact_writer *w, pm_data_file_meta **files, size_t *n)
{
    return pm_rolling_file_writer_finish(w->rw, files, n);
}

int64_t pm_compact_writer_bytes(const pm_compact_writer *w) { return pm_rolling_file_writer_bytes(w->rw); }
int64_t pm_compact_writer_next_seq(const pm_compact_writer *w) { return pm_rolling_file_writer_next_seq(w->rw); }
void pm_compact_writer_set_next_seq(pm_compact_writer *w, int64_t seq) { pm_rolling_file_writer_set_next_seq(w->rw, seq); }

void pm_compact_writer_abort(pm_compact_writer *w)
{
    if (!w)
        return;
    pm_rolling_file_writer_abort(w->rw);
    w->rw = NULL;
    pm_compact_writer_free(w);
}

void pm_compact_writer_free(pm_compact_writer *w)
{
    if (!w)
        return;
    pm_rolling_file_writer_free(w->rw);
    free(w->dir);
    free(w);
}
