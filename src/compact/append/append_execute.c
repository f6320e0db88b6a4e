/*
 * compact/append/append_execute.c — running one append task (append.h):
 * stream the inputs through the rolling writer, produce a result.
 * Publishes nothing.  The shared core has checked the task (compact_run.c).
 *
 * Steps:
 *   1. Resolve the task against the table: the task's schema
 *      (pm_table_schema_by_id: inputs are read in that schema's row type,
 *      by field id, so older files are evolved), the bucket directory.
 *   2. Deletion vectors (tasks with DV references): a maintainer over the
 *      task's DV index files (bucketed: the bucket's one file; unaware: the
 *      files holding the inputs' vectors) provides each input's vector.
 *   3. Writer (compact_writer.h) with the task's output settings; sequence
 *      numbers start at the first input's minimum sequence number; Parquet
 *      row groups capped at half the memory share (a share whose half is
 *      under 1 MiB is refused with PM_EINVALID before anything is written;
 *      the other half covers the input reader: 1 MiB windows and one page
 *      per column, parquet_reader.h).
 *   4. Inputs in task order (one decompression context and one file reader
 *      for all of them, reopened per file: pm_file_reader_reopen): file
 *      reader → batches (reader-owned); when the
 *      input has a vector, the batch's deleted rows are dropped on a view
 *      of the batch (columns retained, never modified) → writer.  Memory is
 *      one input batch + one output row group: never the whole task.
 *      Each input's columns whose Parquet chunks had no dictionary become
 *      the writer's plain-source hints (compact_writer.h): written PLAIN
 *      without a dictionary attempt that would fall back anyway.
 *   5. Outputs; DV changes: every input's vector is removed and the touched
 *      index files rewritten (unaware: DELETE + ADD entries; bucketed: the
 *      bucket's new file replaces the old one, recorded as DELETE + ADD).
 *   6. On any failure every output and index file written is deleted.
 * Row-tracking tables (row-tracking.enabled without data evolution, as
 * Java's append compaction of them with rowTypeWithRowTracking): every
 * input is read through table/de_read.h as a group of its own, so each row
 * carries its `_ROW_ID` (physical, or first row ID + position) and
 * `_SEQUENCE_NUMBER` (physical, or the file's maximum); the outputs hold
 * the table's fields plus those two columns, list all of them in
 * `_WRITE_COLS` and have no first row ID (the commit leaves them alone).
 * No row-group passthrough for them.
 * With compaction.parquet.row-group-passthrough (the task's output
 * settings), an input without deletion vector whose row groups qualify
 * (compact_passthrough.h) is copied row group by row group instead of being
 * decoded; the two writers alternate, each finishing its open file before
 * the other takes over, and share the sequence counter, so outputs stay in
 * input order with contiguous sequence numbers.
 * Page-level passthrough (task->output.page_passthrough, default on;
 * compact_page_passthrough.h): Parquet inputs without deletion vector, of
 * the task's schema (no _WRITE_COLS) and codec, whose row groups are too
 * small to be copied whole (or with the row-group passthrough off), go
 * through the same passthrough writer: several inputs' row groups make one
 * output row group, plain chunks copied page by page, dictionary and
 * file-indexed chunks re-encoded.  The other inputs (deletion vectors,
 * older schemas, other codecs) are decoded as usual and their rows written
 * by the same writer (row groups of their own, every column encoded), so
 * outputs do not multiply where copied and decoded inputs alternate.  Not
 * with dictionary passthrough (which keeps its own path) nor for tables
 * with nested fields (the writer then has no page level: the two writers
 * alternate as for the row-group passthrough).
 * Dictionary passthrough (task->output.dict_passthrough: the option after
 * its vetoes, compact/append/append_mode.c): the table's top-level STRING
 * fields without a file index are asked of the file reader
 * dictionary-encoded; each Parquet input whose pages of such a column are
 * all dictionary-encoded hands them on as ids + dictionary, and the
 * Parquet writer adopts or falls back (format/parquet/pq_write_column.h).
 * Indexed STRING columns stay materialized, as every column of inputs
 * that do not qualify.  Not for row-tracking tables.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/append/append.h"
#include "compact/compact_passthrough.h"
#include "compact/compact_writer.h"
#include "dv/dv_apply.h"
#include "dv/dv_maintainer.h"
#include "index/file_index.h"
#include "meta/index_path.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "table/de_read.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/table_memo.h"

#define MIN_ROW_GROUP (1LL << 20)

typedef struct dv_state {
    bool bucketed;
    pm_dv_maintainer *bm;
    pm_dv_append_maintainer *am;
} dv_state;

static void dv_state_free(dv_state *d)
{
    pm_dv_maintainer_free(d->bm);
    pm_dv_append_maintainer_free(d->am);
    memset(d, 0, sizeof *d);
}

static const pm_compact_dv_ref *task_dv(const pm_compact_task *task, const char *name)
{
    for (size_t i = 0; i < task->ndvs; i++)
        if (!strcmp(task->dvs[i].data_file, name))
            return &task->dvs[i];
    return NULL;
}

/* The fields read dictionary-encoded (see the top): *names borrows the
 * schema's field names; NULL / 0 when passthrough is off. */
static pm_error *dict_fields(const pm_schema *schema, const pm_compact_task *task, bool rt, const char ***names,
                             size_t *n)
{
    *names = NULL;
    *n = 0;
    if (!task->output.dict_passthrough || rt || strcmp(task->output.format, "parquet"))
        return NULL;
    pm_fi_options fi;
    PM_TRY(pm_fi_options_parse(schema->options, &fi));
    const pm_type *rt_ = schema->row_type;
    pm_error *e = pm_calloc(names, rt_->nfields ? rt_->nfields : 1, sizeof **names);
    for (size_t i = 0; !e && i < rt_->nfields; i++) {
        const pm_field *f = &rt_->fields[i];
        if (f->type->id != PM_TYPE_VARCHAR || f->type->length != PM_MAX_LENGTH)
            continue;
        bool indexed = false;
        for (size_t k = 0; !indexed && k < fi.nspecs; k++)
            indexed = !strcmp(fi.specs[k].column, f->name);
        if (!indexed) /* an index needs the values: that column alone is materialized */
            (*names)[(*n)++] = f->name;
    }
    pm_fi_options_clear(&fi);
    return e;
}

/* Drop deleted rows of a reader batch: a view holding retained columns is
 * filtered (pm_batch_filter builds new columns), so the reader's batch is
 * untouched.  *out = b when nothing is deleted in its range. */
static pm_error *apply_dv(const pm_dv *dv, int64_t pos, const pm_batch *b, pm_batch *view, const pm_batch **out,
                          int64_t *deleted)
{
    *out = b;
    *deleted = 0;
    if (!dv || !b->num_rows)
        return NULL;
    size_t nbytes = (size_t)(b->num_rows + 7) / 8;
    uint8_t *keep;
    PM_TRY(pm_calloc(&keep, nbytes, 1));
    memset(keep, 0xff, nbytes);
    pm_dv_clear_deleted(dv, pos, b->num_rows, keep, deleted);
    pm_error *e = NULL;
    if (*deleted) {
        for (size_t c = 0; c < view->ncolumns; c++) {
            pm_column_release(view->columns[c]);
            view->columns[c] = pm_column_retain(b->columns[c]);
        }
        view->num_rows = b->num_rows;
        e = pm_batch_filter(view, keep);
        if (!e)
            *out = view;
    }
    free(keep);
    return e;
}

static pm_error *dv_open(pm_table *t, const pm_compact_task *task, const char *dir, bool bucketed, dv_state *d)
{
    memset(d, 0, sizeof *d);
    if (!task->ndvs && !task->ndv_index)
        return NULL;
    bool bitmap64 = false;
    int64_t target = 0;
    PM_TRY(pm_dv_options(pm_table_options(t), &bitmap64, &target));
    pm_dv_io io = {t->fio, t->paths, dir};
    d->bucketed = bucketed;
    if (d->bucketed)
        return pm_dv_maintainer_new(&io, &task->partition, task->bucket, bitmap64, task->dv_index, task->ndv_index,
                                    &d->bm);
    return pm_dv_append_maintainer_new(&io, &task->partition, target, task->dv_index, task->ndv_index, &d->am);
}

/* The vector of an input (*owned tells whether the caller frees it). */
static pm_error *dv_get(dv_state *d, const pm_compact_task *task, const char *name, pm_dv **dv, bool *owned)
{
    *dv = NULL;
    *owned = false;
    const pm_compact_dv_ref *ref = task_dv(task, name);
    if (!ref)
        return NULL;
    if (d->bm) {
        *dv = (pm_dv *)(uintptr_t)pm_dv_maintainer_get(d->bm, name);
    } else if (d->am) {
        PM_TRY(pm_dv_append_maintainer_get(d->am, name, dv));
        *owned = true;
    }
    if (!*dv)
        return pm_error_new(PM_ECORRUPT, "deletion vector of %s (index file %s) is missing from the task's index "
                            "files", name, ref->index_file);
    return NULL;
}

/* Remove the inputs' vectors and write the changed index files. */
static pm_error *dv_finish(dv_state *d, const pm_compact_task *task, pm_compact_result *r)
{
    if (d->bm) {
        for (size_t i = 0; i < task->nfiles; i++)
            pm_dv_maintainer_remove(d->bm, task->files[i].file_name);
        return pm_compact_result_dv_rewrite(r, task, d->bm);
    }
    if (d->am) {
        for (size_t i = 0; i < task->nfiles; i++)
            pm_dv_append_maintainer_remove(d->am, task->files[i].file_name);
        pm_index_manifest_entry *ch = NULL;
        size_t n = 0;
        PM_TRY(pm_dv_append_maintainer_persist(d->am, &ch, &n));
        size_t na = 0, nr = 0;
        for (size_t i = 0; i < n; i++) {
            if (ch[i].kind == PM_FILE_ADD)
                na++;
            else
                nr++;
        }
        pm_error *e = NULL;
        if (na)
            e = pm_calloc(&r->index_added, na, sizeof *r->index_added);
        if (!e && nr)
            e = pm_calloc(&r->index_removed, nr, sizeof *r->index_removed);
        if (e) {
            pm_index_manifest_entries_free(ch, n);
            return e;
        }
        for (size_t i = 0; i < n; i++) {
            if (ch[i].kind == PM_FILE_ADD)
                r->index_added[r->nindex_added++] = ch[i];
            else
                r->index_removed[r->nindex_removed++] = ch[i];
        }
        free(ch); /* entries moved */
    }
    return NULL;
}

/* Append a writer's closed files to the result (ownership moves). */
static pm_error *take_files(pm_compact_result *r, pm_data_file_meta *f, size_t n)
{
    if (!n) {
        free(f);
        return NULL;
    }
    pm_error *e = pm_realloc_array(&r->after, r->nafter + n, sizeof *r->after);
    if (e) {
        pm_data_file_metas_free(f, n);
        return e;
    }
    memcpy(r->after + r->nafter, f, n * sizeof *f);
    r->nafter += n;
    free(f);
    return NULL;
}

static pm_error *flush_writer(pm_compact_writer *w, pm_compact_result *r)
{
    pm_data_file_meta *f = NULL;
    size_t n = 0;
    PM_TRY(pm_compact_writer_finish(w, &f, &n));
    return take_files(r, f, n);
}

static pm_error *flush_pt(pm_pt_writer *w, pm_compact_result *r)
{
    pm_data_file_meta *f = NULL;
    size_t n = 0;
    PM_TRY(pm_pt_writer_finish(w, &f, &n));
    return take_files(r, f, n);
}

static void delete_index_files(pm_table *t, const char *dir, const pm_compact_result *r)
{
    for (size_t i = 0; i < r->nindex_added; i++) {
        char *p = NULL;
        if (!pm_index_file_path(t->paths, dir, &r->index_added[i].index_file, &p))
            pm_error_free(pm_fileio_delete(t->fio, p));
        free(p);
    }
}

/* An input's rows as a reader: the file reader, or for row-tracking tables
 * the group reader (row IDs and sequence numbers filled in). */
typedef struct input_reader {
    pm_file_reader *fr;
    pm_de_group *g;
    size_t ng;
    pm_de_group_reader *gr;
} input_reader;

/* The state of one append task while its inputs stream. */
typedef struct append_run {
    pm_table *t;
    const pm_compact_task *task;
    pm_compact_result *r;
    const char *dir;
    dv_state dvs;
    pm_compact_writer *w;
    pm_pt_writer *pt;             /* row-group passthrough (NULL = off) */
    bool pt_active;               /* the passthrough writer holds the open output */
    pm_batch *view;
    input_reader in;              /* the reader of the current (or last) decoded input */
    pm_file_read_options ro;
    pm_codec_ctx *codec;          /* decompression state shared by the task's inputs */
    const pm_type *task_type;     /* ROW of the outputs (borrowed) */
    pm_type *rt_type;             /* row tracking: the fields + _ROW_ID, _SEQUENCE_NUMBER (else NULL) */
    const char **dict;            /* dictionary passthrough fields (dict_fields), owned array */
    size_t ndict;
    bool *plain;                  /* per output column: the input's chunks had no dictionary */
} append_run;

static void input_close(input_reader *in)
{
    pm_file_reader_free(in->fr);
    pm_de_group_reader_free(in->gr);
    pm_de_groups_free(in->g, in->ng);
    memset(in, 0, sizeof *in);
}

/* Open f: the file reader of the previous input is reused (its plan and
 * buffers, pm_file_reader_reopen); row-tracking inputs get a group reader
 * of their own. */
static pm_error *input_open(append_run *c, const pm_data_file_meta *f, input_reader *in)
{
    if (!c->rt_type)
        return pm_file_reader_reopen(&in->fr, c->t, c->dir, f, &c->ro, c->dict, c->ndict);
    input_close(in);
    PM_TRY(pm_de_single_groups(f, 1, &in->g, &in->ng));
    return pm_de_group_reader_open(&in->gr, c->t, c->dir, &in->g[0], c->rt_type, 0);
}

static pm_error *input_next(input_reader *in, const pm_batch **b, int64_t *pos)
{
    if (in->fr) {
        PM_TRY(pm_file_reader_next(in->fr, b));
        *pos = pm_file_reader_position(in->fr);
        return NULL;
    }
    PM_TRY(pm_de_group_reader_next(in->gr, b));
    *pos = pm_de_group_reader_position(in->gr);
    return NULL;
}

/* Row tracking: the outputs list every column they hold. */
static pm_error *list_write_cols(const pm_type *type, pm_compact_result *r)
{
    for (size_t i = 0; i < r->nafter; i++)
        PM_TRY(pm_data_file_meta_set_write_cols(&r->after[i], type));
    return NULL;
}

/* Copy f's row groups as they are when they qualify (*copied). */
static pm_error *passthrough_input(append_run *c, const pm_data_file_meta *f, bool *copied)
{
    *copied = false;
    if (!c->pt || task_dv(c->task, f->file_name))
        return NULL;
    char *path = f->external_path ? strdup(f->external_path) : pm_path_join(c->dir, f->file_name);
    if (!path)
        return pm_oom();
    pm_pt_input *pin = NULL;
    pm_error *e = pm_pt_probe(c->pt, path, f, &pin);
    free(path);
    if (e || !pin)
        return e;
    /* row groups move as they are: close the decoded output first */
    if (!c->pt_active) {
        e = flush_writer(c->w, c->r);
        if (!e) {
            pm_pt_writer_set_next_seq(c->pt, pm_compact_writer_next_seq(c->w));
            c->pt_active = true;
        }
    }
    if (!e)
        e = pm_pt_copy(c->pt, pin);
    pm_pt_input_free(pin);
    if (e)
        return e;
    c->r->counters.rows_read += f->row_count;
    c->r->counters.rows_written += f->row_count;
    c->r->counters.bytes_read += f->file_size;
    *copied = true;
    return NULL;
}

/* The writer's plain-source hints from this input: a column whose Parquet
 * chunks had no dictionary is written without a dictionary attempt (the
 * input's writer found none worth it; values are the same either way).
 * Row-tracking inputs give no hints. */
static pm_error *plain_sources(append_run *c, const input_reader *rd)
{
    size_t n = c->task_type->nfields;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        c->plain[i] = rd->fr && pm_file_reader_column_no_dict(rd->fr, i);
        any |= c->plain[i];
    }
    return pm_compact_writer_set_plain_sources(c->w, any ? c->plain : NULL);
}

/* Decode f through the file reader, its deleted rows dropped, into the
 * rolling writer. */
static pm_error *decode_input(append_run *c, const pm_data_file_meta *f)
{
    bool to_pt = c->pt && pm_pt_writer_takes_rows(c->pt);
    if (to_pt && !c->pt_active) {
        PM_TRY(flush_writer(c->w, c->r));
        pm_pt_writer_set_next_seq(c->pt, pm_compact_writer_next_seq(c->w));
        c->pt_active = true;
    } else if (!to_pt && c->pt_active) {
        PM_TRY(flush_pt(c->pt, c->r));
        pm_compact_writer_set_next_seq(c->w, pm_pt_writer_next_seq(c->pt));
        c->pt_active = false;
    }
    pm_dv *dv = NULL;
    bool owned = false;
    PM_TRY(dv_get(&c->dvs, c->task, f->file_name, &dv, &owned));
    input_reader *rd = &c->in;
    pm_error *e = input_open(c, f, rd);
    if (!e)
        e = plain_sources(c, rd);
    pm_compact_counters *n = &c->r->counters;
    for (;;) {
        const pm_batch *b = NULL;
        int64_t pos = 0;
        if (!e)
            e = input_next(rd, &b, &pos);
        if (e || !b)
            break;
        const pm_batch *use;
        int64_t deleted;
        e = apply_dv(dv, pos, b, c->view, &use, &deleted);
        if (!e && use->num_rows)
            e = to_pt ? pm_pt_write(c->pt, use) : pm_compact_writer_write(c->w, use);
        n->rows_read += b->num_rows;
        n->rows_deleted += deleted;
        n->rows_written += e ? 0 : use->num_rows;
    }
    if (owned)
        pm_dv_free(dv);
    if (e)
        input_close(rd);
    PM_TRY(pm_error_wrap(e, 0, "input %s", f->file_name));
    n->bytes_read += f->file_size;
    return NULL;
}

#define SAMPLE_FILES 64

/* The task's own sample: its first inputs' plain columns (at most
 * SAMPLE_FILES files). */
static pm_error *sample_own(append_run *c)
{
    bool done = false;
    for (size_t i = 0; i < c->task->nfiles && i < SAMPLE_FILES && !done; i++) {
        const pm_data_file_meta *f = &c->task->files[i];
        if (task_dv(c->task, f->file_name))
            continue;
        char *path = f->external_path ? strdup(f->external_path) : pm_path_join(c->dir, f->file_name);
        if (!path)
            return pm_oom();
        pm_error *e = pm_pt_sample(c->pt, path, f, &done);
        free(path);
        PM_TRY(e);
    }
    return pm_pt_sample_finish(c->pt);
}

/* Page passthrough: which columns are re-encoded, decided once per
 * compaction: the first task of a plan to get here samples (sample_own)
 * and leaves its decision in the table handle's memo (table_memo.h), keyed
 * by plan, schema and the writer settings the sample was judged by; the
 * plan's other tasks on the same handle, on any thread, take it (waiting
 * while it is computed).  A task alone (another handle or process)
 * samples for itself; a task that sampled nothing (no input of it went
 * through page passthrough) shares nothing.  With several threads the
 * plan's first task to start decides (either decision is valid output). */
static pm_error *sample_inputs(append_run *c)
{
    if (!c->pt || !pm_pt_writer_takes_rows(c->pt))
        return NULL;
    pm_buf key = PM_BUF_INIT, d = PM_BUF_INIT;
    bool found = false, claimed = false, sampled = false;
    pm_error *e = pm_buf_printf(&key, "append-page-decision;plan=%s;schema=%lld;",
                                c->task->plan_id ? c->task->plan_id : "", (long long)c->task->schema_id);
    if (!e)
        e = pm_pt_decision_key(c->pt, &key);
    if (!e)
        e = pm_buf_append_byte(&key, 0);
    if (!e && c->task->plan_id) {
        e = pm_table_memo_claim(c->t, (const char *)key.data, &d, &found);
        claimed = !e && !found;
    }
    if (!e && found) {
        e = pm_pt_decision_set(c->pt, &d);
    } else if (!e) {
        e = sample_own(c);
        if (!e && claimed) {
            pm_buf_clear(&d);
            e = pm_pt_decision_get(c->pt, &d, &sampled);
            if (!e && sampled) {
                claimed = false;
                e = pm_table_memo_put(c->t, (const char *)key.data, d.data, d.len);
            }
        }
    }
    if (claimed)
        pm_table_memo_abandon(c->t, (const char *)key.data);
    pm_buf_free(&key);
    pm_buf_free(&d);
    return e;
}

/* Every input in task order, then the open output closed. */
static pm_error *stream_inputs(append_run *c)
{
    PM_TRY(sample_inputs(c));
    for (size_t i = 0; i < c->task->nfiles; i++) {
        const pm_data_file_meta *f = &c->task->files[i];
        bool copied = false;
        PM_TRY(passthrough_input(c, f, &copied));
        if (!copied)
            PM_TRY(decode_input(c, f));
        if (i == 0 && pm_fault("execute-after-first-input"))
            return pm_error_new(PM_EIO, "injected fault: execute-after-first-input");
    }
    return c->pt_active ? flush_pt(c->pt, c->r) : flush_writer(c->w, c->r);
}

static void delete_outputs(pm_table *t, const char *dir, const pm_compact_result *r)
{
    for (size_t i = 0; r && i < r->nafter; i++) {
        char *p = pm_path_join(dir, r->after[i].file_name);
        if (p)
            pm_error_free(pm_fileio_delete(t->fio, p));
        free(p);
    }
}

pm_error *pm_append_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget,
                            bool bucketed)
{
    *out = NULL;
    uint64_t t0 = pm_monotonic_ns();
    const pm_schema *schema = NULL;
    PM_TRY(pm_error_wrap(pm_table_schema_by_id(t, task->schema_id, &schema), 0, "schema %lld of task %lld",
                         (long long)task->schema_id, (long long)task->task_index));
    append_run c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.task = task;
    char *dir = NULL;
    pm_error *e = NULL;
    PM_TRY(pm_codec_ctx_new(&c.codec));
    c.ro = (pm_file_read_options){schema->row_type, 0, false, c.codec};
    bool rt = false;
    PM_TRY_GOTO(e, pm_options_bool(schema->options, PM_OPT_ROW_TRACKING_ENABLED, &rt), fail);
    if (rt)
        PM_TRY_GOTO(e, pm_schema_row_tracking_type(schema->row_type, &c.rt_type), fail);
    const pm_type *out_type = rt ? c.rt_type : schema->row_type;
    c.task_type = out_type;
    PM_TRY_GOTO(e, pm_calloc(&c.plain, out_type->nfields ? out_type->nfields : 1, sizeof *c.plain), fail);
    PM_TRY_GOTO(e, dict_fields(schema, task, rt, &c.dict, &c.ndict), fail);
    PM_TRY_GOTO(e, pm_compact_result_new_for_task(&c.r, task), fail);
    PM_TRY_GOTO(e, pm_table_bucket_dir(t, task->partition.data, task->partition.len, task->bucket, &dir), fail);
    c.dir = dir;
    PM_TRY_GOTO(e, dv_open(t, task, dir, bucketed, &c.dvs), fail);
    /* half the share holds the output row group; less than the smallest
     * row group is refused here, before anything is written */
    int64_t rg = memory_budget / 2;
    if (rg < MIN_ROW_GROUP) {
        e = pm_error_new(PM_EINVALID,
                         "memory budget of %lld bytes for this task cannot hold one output row group (half the "
                         "budget must be at least %lld bytes): raise the compaction memory (--memory) or run fewer "
                         "tasks at once",
                         (long long)memory_budget, (long long)MIN_ROW_GROUP);
        goto fail;
    }
    pm_compact_writer_options wo = {
        .row_type = out_type,
        .table_options = schema->options,
        .schema_id = task->schema_id,
        .dir = dir,
        .format = task->output.format,
        .compression = task->output.compression,
        .target_size = task->output.target_file_size,
        .target_rows = task->output.target_file_row_num,
        .level = task->output.level,
        .start_seq = task->files[0].min_sequence_number,
        .row_group_limit = rg,
        .buffers = t->buffers,
    };
    PM_TRY_GOTO(e, pm_compact_writer_new(&c.w, t->fio, &wo), fail);
    bool pages = task->output.page_passthrough && !task->output.dict_passthrough;
    if ((task->output.rg_passthrough || pages) && !strcmp(task->output.format, "parquet") && !rt)
        PM_TRY_GOTO(e, pm_pt_writer_new(&c.pt, t->fio, &wo,
                                        task->output.rg_passthrough ? task->output.rg_passthrough_min : INT64_MAX,
                                        pages, (double)task->output.page_reencode_permille / 1000.0),
                    fail);
    PM_TRY_GOTO(e, pm_batch_new(&c.view, out_type), fail);
    PM_TRY_GOTO(e, stream_inputs(&c), fail);
    if (rt)
        PM_TRY_GOTO(e, list_write_cols(out_type, c.r), fail);
    c.r->counters.bytes_written = pm_compact_writer_bytes(c.w) + (c.pt ? pm_pt_writer_bytes(c.pt) : 0);
    pm_compact_writer_free(c.w);
    c.w = NULL;
    pm_pt_writer_free(c.pt);
    c.pt = NULL;
    e = dv_finish(&c.dvs, task, c.r);
    if (e) {
        delete_index_files(t, dir, c.r);
        delete_outputs(t, dir, c.r);
        goto fail;
    }
    dv_state_free(&c.dvs);
    input_close(&c.in);
    pm_batch_free(c.view);
    pm_type_free(c.rt_type);
    free(c.dict);
    free(c.plain);
    pm_codec_ctx_free(c.codec);
    free(dir);
    c.r->counters.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    *out = c.r;
    return NULL;
fail:
    /* outputs already moved into the result are deleted here */
    if (c.w)
        delete_outputs(t, dir, c.r);
    pm_pt_writer_abort(c.pt);
    pm_compact_writer_abort(c.w);
    dv_state_free(&c.dvs);
    input_close(&c.in);
    pm_batch_free(c.view);
    pm_type_free(c.rt_type);
    free(c.dict);
    free(c.plain);
    pm_codec_ctx_free(c.codec);
    free(dir);
    pm_compact_result_free(c.r);
    return pm_error_wrap(e, 0, "compaction task %lld (plan %s)", (long long)task->task_index, task->plan_id);
}
