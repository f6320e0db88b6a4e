/*
 * compact/de/de_execute.c — running one data-evolution task (de_compact.h).
 * Publishes nothing; the shared core has checked the task.
 *
 * Steps:
 *   1. The task's schema; the output columns = its fields but those kept
 *      in dedicated files (BLOB); the inputs regrouped by row ID
 *      (table/de_read.h), which must be contiguous from the task's first
 *      row ID.
 *   2. One compaction writer (compact_writer.h) that never rolls by size
 *      or rows; a file is closed at each cut point of the part and at the
 *      end.
 *   3. Each group streams through the group reader in the output columns:
 *      newest value of every column, deleted rows kept (their slots are
 *      part of the range), batches split exactly at the cut points.
 *   4. Each output gets its range's first row ID, the inputs' minimum and
 *      maximum sequence numbers and _WRITE_COLS when columns were left
 *      out.  Every column of an output holds one version per row, so the
 *      file's maximum bounds each column's: no _WRITE_COLS_SEQUENCES is
 *      written (the manifests keep Paimon 2.0's DataFileMeta).
 *   5. On failure every output written is deleted.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_writer.h"
#include "compact/de/de_compact.h"
#include "table/de_read.h"
#include "table/partition.h"
#include "types/column.h"

#define MIN_ROW_GROUP (1LL << 20)

typedef struct de_run {
    pm_table *t;
    const pm_compact_task *task;
    const pm_compact_de *part;
    pm_compact_result *r;
    char *dir;
    pm_type *type;               /* output columns */
    bool omitted;                /* dedicated fields left out */
    pm_de_group *groups;
    size_t ngroups;
    pm_compact_writer *w;
    int64_t row;                 /* next row ID to write */
    size_t next_cut;
    pm_batch *piece;
    int64_t *rows;
    size_t rows_cap;
} de_run;

static pm_error *output_type(const pm_schema *s, pm_type **out, bool *omitted)
{
    *omitted = false;
    pm_type *t = pm_type_new_row(false);
    if (!t)
        return pm_oom();
    for (size_t i = 0; i < s->row_type->nfields; i++) {
        const pm_field *f = &s->row_type->fields[i];
        if (pm_de_dedicated_field(f)) {
            *omitted = true;
            continue;
        }
        pm_type *ft = pm_type_clone(f->type);
        pm_error *e = ft ? pm_type_add_field(t, f->id, f->name, ft) : pm_oom();
        if (e) {
            pm_type_free(ft);
            pm_type_free(t);
            return e;
        }
    }
    *out = t;
    return NULL;
}

/* Move the writer's closed files into the result. */
static pm_error *close_output(de_run *c)
{
    pm_data_file_meta *f = NULL;
    size_t n = 0;
    PM_TRY(pm_compact_writer_finish(c->w, &f, &n));
    if (!n) {
        free(f);
        return NULL;
    }
    pm_error *e = pm_realloc_array(&c->r->after, c->r->nafter + n, sizeof *c->r->after);
    if (e) {
        pm_data_file_metas_free(f, n);
        return e;
    }
    memcpy(c->r->after + c->r->nafter, f, n * sizeof *f);
    c->r->nafter += n;
    free(f);
    return NULL;
}

/* Rows [off, off + n) of b as c->piece (copies). */
static pm_error *cut_piece(de_run *c, const pm_batch *b, int64_t off, int64_t n, const pm_batch **out)
{
    if (!c->piece)
        PM_TRY(pm_batch_new(&c->piece, c->type));
    PM_TRY(pm_batch_reset(c->piece));
    if ((size_t)n > c->rows_cap) {
        PM_TRY(pm_realloc_array(&c->rows, (size_t)n, sizeof *c->rows));
        c->rows_cap = (size_t)n;
    }
    for (int64_t i = 0; i < n; i++)
        c->rows[i] = off + i;
    uint16_t *which = NULL;
    PM_TRY(pm_calloc(&which, (size_t)n ? (size_t)n : 1, sizeof *which));
    pm_error *e = NULL;
    for (size_t k = 0; k < c->piece->ncolumns && !e; k++) {
        const pm_column *src[1] = {b->columns[k]};
        e = pm_column_append_gather(c->piece->columns[k], src, which, c->rows, n);
    }
    free(which);
    PM_TRY(e);
    PM_TRY(pm_batch_finish(c->piece, n));
    *out = c->piece;
    return NULL;
}

/* Write batch b (rows from c->row on), closing an output at every cut. */
static pm_error *write_batch(de_run *c, const pm_batch *b)
{
    int64_t off = 0, n = b->num_rows;
    while (off < n) {
        int64_t take = n - off;
        bool cut = false;
        if (c->next_cut < c->part->ncuts) {
            int64_t to_cut = c->part->cuts[c->next_cut] - c->row;
            if (to_cut <= take) {
                take = to_cut;
                cut = true;
            }
        }
        if (take > 0) {
            const pm_batch *use = b;
            if (off || take < n)
                PM_TRY(cut_piece(c, b, off, take, &use));
            PM_TRY(pm_compact_writer_write(c->w, use));
        }
        off += take;
        c->row += take;
        if (cut) {
            PM_TRY(close_output(c));
            c->next_cut++;
        }
    }
    return NULL;
}

static pm_error *stream_groups(de_run *c)
{
    int64_t first = c->groups[0].first_row_id;
    c->row = first;
    for (size_t g = 0; g < c->ngroups; g++) {
        const pm_de_group *gr = &c->groups[g];
        if (gr->first_row_id != c->row)
            return pm_error_new(PM_EINVALID, "inputs are not contiguous: row IDs from %" PRId64 " follow %" PRId64,
                                gr->first_row_id, c->row);
        if (gr->nfiles != gr->nnormal)
            return pm_error_new(PM_EINVALID, "dedicated file %s is not an input of data-evolution compaction",
                                gr->files[gr->nnormal]->file_name);
        pm_de_group_reader *rd = NULL;
        PM_TRY(pm_de_group_reader_open(&rd, c->t, c->dir, gr, c->type, 4096));
        pm_error *e = NULL;
        for (;;) {
            const pm_batch *b = NULL;
            e = pm_de_group_reader_next(rd, &b);
            if (e || !b)
                break;
            e = write_batch(c, b);
            if (e)
                break;
        }
        pm_de_group_reader_free(rd);
        PM_TRY(e);
        if (g == 0 && pm_fault("de-execute-after-first-group"))
            return pm_error_new(PM_EIO, "injected fault: de-execute-after-first-group");
    }
    return close_output(c);
}

static pm_error *finish_outputs(de_run *c)
{
    const pm_compact_task *task = c->task;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < task->nfiles; i++) {
        if (task->files[i].min_sequence_number < lo)
            lo = task->files[i].min_sequence_number;
        if (task->files[i].max_sequence_number > hi)
            hi = task->files[i].max_sequence_number;
    }
    size_t nf = c->type->nfields;
    int64_t start = c->groups[0].first_row_id;
    pm_error *e = NULL;
    for (size_t i = 0; i < c->r->nafter && !e; i++) {
        pm_data_file_meta *f = &c->r->after[i];
        f->first_row_id = (pm_opt_long){true, start};
        start += f->row_count;
        f->min_sequence_number = lo;
        f->max_sequence_number = hi;
        if (c->omitted && !f->has_write_cols) {
            f->has_write_cols = true;
            e = pm_calloc(&f->write_cols.items, nf ? nf : 1, sizeof *f->write_cols.items);
            for (size_t j = 0; j < nf && !e; j++) {
                e = pm_strdup(&f->write_cols.items[j], c->type->fields[j].name);
                if (!e)
                    f->write_cols.count = j + 1;
            }
        }
    }
    return e;
}

static void delete_outputs(pm_table *t, const char *dir, const pm_compact_result *r)
{
    for (size_t i = 0; r && dir && i < r->nafter; i++) {
        char *p = pm_path_join(dir, r->after[i].file_name);
        if (p)
            pm_error_free(pm_fileio_delete(t->fio, p));
        free(p);
    }
}

pm_error *pm_de_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget)
{
    *out = NULL;
    uint64_t t0 = pm_monotonic_ns();
    const pm_schema *schema = NULL;
    PM_TRY(pm_error_wrap(pm_table_schema_by_id(t, task->schema_id, &schema), 0, "schema %lld of task %lld",
                         (long long)task->schema_id, (long long)task->task_index));
    if (!task->nfiles)
        return pm_error_new(PM_EINVALID, "data-evolution task %lld has no inputs", (long long)task->task_index);
    de_run c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.task = task;
    c.part = pm_de_part(task->part);
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_compact_result_new_for_task(&c.r, task), fail);
    PM_TRY_GOTO(e, pm_table_bucket_dir(t, task->partition.data, task->partition.len, task->bucket, &c.dir), fail);
    PM_TRY_GOTO(e, output_type(schema, &c.type, &c.omitted), fail);
    PM_TRY_GOTO(e, pm_de_plan_groups(task->files, task->nfiles, &c.groups, &c.ngroups), fail);
    int64_t rg = memory_budget / 2;
    if (rg < MIN_ROW_GROUP)
        rg = MIN_ROW_GROUP;
    pm_compact_writer_options wo = {
        .row_type = c.type,
        .table_options = schema->options,
        .schema_id = task->schema_id,
        .dir = c.dir,
        .format = task->output.format,
        .compression = task->output.compression,
        .target_size = INT64_MAX, /* one output per range: no rolling */
        .target_rows = INT64_MAX,
        .level = 0,
        .start_seq = 0,
        .row_group_limit = rg,
    };
    PM_TRY_GOTO(e, pm_compact_writer_new(&c.w, t->fio, &wo), fail);
    PM_TRY_GOTO(e, stream_groups(&c), fail);
    PM_TRY_GOTO(e, finish_outputs(&c), fail);
    int64_t slots = 0, bytes = 0;
    for (size_t g = 0; g < c.ngroups; g++)
        slots += c.groups[g].row_count;
    for (size_t i = 0; i < task->nfiles; i++)
        bytes += task->files[i].file_size;
    c.r->counters.rows_read = slots;
    c.r->counters.rows_written = slots;
    c.r->counters.bytes_read = bytes;
    c.r->counters.bytes_written = pm_compact_writer_bytes(c.w);
    pm_compact_writer_free(c.w);
    pm_batch_free(c.piece);
    free(c.rows);
    pm_de_groups_free(c.groups, c.ngroups);
    pm_type_free(c.type);
    free(c.dir);
    c.r->counters.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    *out = c.r;
    return NULL;
fail:
    delete_outputs(t, c.dir, c.r);
    pm_compact_writer_abort(c.w);
    pm_batch_free(c.piece);
    free(c.rows);
    pm_de_groups_free(c.groups, c.ngroups);
    pm_type_free(c.type);
    free(c.dir);
    pm_compact_result_free(c.r);
    return pm_error_wrap(e, 0, "compaction task %lld (plan %s)", (long long)task->task_index, task->plan_id);
}
