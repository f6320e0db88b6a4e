/*
 * compact/pk/pk_execute.c — running one primary-key compaction task
 * (Java's MergeTreeCompactTask + MergeTreeCompactRewriter, and for
 * first-row the lookup rewriter).  Publishes nothing.
 *
 * Steps:
 *   1. The task's schema (files are read in it, by field id) and a writer
 *      schema: the same schema whose options carry the task's output
 *      format and compression.
 *   2. The task's files become Levels; a full compaction of a single
 *      max-level run rewrites each file alone (Java's
 *      FileRewriteCompactTask); otherwise lsm/interval_partition.h turns
 *      them into steps for the output level: UPGRADE (a file that only
 *      changes level: same file, new _LEVEL in the result — no I/O) and
 *      REWRITE (sections of overlapping sorted runs, merged).
 *      first-row: a level-0 file is never just upgraded below the max
 *      level (keys it holds may already exist above): it is rewritten
 *      through the lookup below.
 *   3. REWRITE: one rolling KeyValue writer (table/pk_file_writer.h,
 *      FileSource COMPACT, the output level, target-file-size /
 *      target-file-row-num) per step; its sections in key order; per
 *      section one source per sorted run (its files one after another,
 *      batches shared with the file reader) → loser-tree merge
 *      (lsm/merge_reader.h; more than 256 runs merge in several passes
 *      through a spill on local disk) → the table's merge engine per key
 *      (reducer mode, persisting its state: a lone record passes
 *      unchanged, original sequence numbers kept) → records of kind -U/-D
 *      dropped when the task says drop_delete → output batches of 4096
 *      rows → writer, which regenerates key bounds, sequence bounds,
 *      delete counts and statistics per file.
 *      first-row with level-0 inputs (Java's FirstRowMergeFunctionWrapper):
 *      the engine folds in full mode; a key whose selected records all
 *      come from level 0 is dropped when it already exists in a retained
 *      level above the output (a second merge over those levels' key
 *      columns, advanced in step with the main merge; files outside the
 *      section's key range are not opened).
 *      Deletion vectors (every engine but first-row; Java's
 *      LookupChangelogMergeFunctionWrapper with a DV maintainer): inputs
 *      are read with their vectors applied; for a key whose selected
 *      records all come from level 0, the record of the lowest retained
 *      level holding it (whole rows, read
 *      with their row position, vectors applied) joins the merge in
 *      sequence order and its row is marked deleted in its file's vector;
 *      retracts are dropped from every output above level 0.  An upgraded
 *      level-0 file first gets such a lookup pass; one that may hold
 *      deletes is rewritten instead.  Vectors of rewritten inputs are
 *      removed; when anything changed the bucket's one DV index file is
 *      rewritten (result: ADD of the new file, DELETE of the task's).
 *   4. Result: before = every rewritten or upgraded input, after = the new
 *      files and the upgraded files at their new level; counters.
 *   5. On failure every file written so far is deleted.
 * Memory: the task's share of the budget: half to the merge (two batches
 * per run; more runs than fit merge in passes through a local spill), half
 * to the writer's open row group (parquet.block.size capped there); plus
 * one output batch.  Nothing proportional to the task.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/util.h"
#include "dv/dv_apply.h"
#include "dv/dv_maintainer.h"
#include "index/index_path.h"
#include "compact/pk/pk_compact.h"
#include "lsm/interval_partition.h"
#include "lsm/kv.h"
#include "lsm/levels.h"
#include "lsm/merge_engine.h"
#include "lsm/merge_reader.h"
#include "meta/manifest.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/pk_file_writer.h"
#include "table/pk_spill.h"

#define SEQ_ID 2147483646
#define KIND_ID 2147483645
#define OUT_ROWS 4096
#define POS_ID 2147483600
#define FILE_ID 2147483601
#define READ_ROWS 4096

/* Output of the rewrite: the pending output batch, and the records kept
 * unchanged (a lone record, a deduplicate winner) gathered column by
 * column: pinned input batches (their columns retained, so the merge may
 * release the batches) and, per pending output row, (pin, row). */
typedef struct pk_output {
    pm_batch *out;                /* KV type */
    int64_t nout;
    size_t *src_col;              /* output column → input column */
    size_t nin;                   /* input columns */
    pm_column ***pins;            /* pins[p][c]: retained input columns */
    size_t npins, cap_pins;
    uint16_t *which;
    int64_t *rows;
    int64_t ngather;
    const pm_column **srcs;       /* scratch: one column of every pin */
} pk_output;

/* Lookup of the retained levels above the output level (first-row: key
 * fields only; deletion vectors and changelog: whole rows with their
 * position), and the scratch group with a history record. */
typedef struct pk_lookup {
    pm_levels *levels;            /* retained files above the output level */
    const pm_lsm_file **files;    /* lookup files, levels ascending (_FILE indexes) */
    size_t nfiles;
    const pm_type *fields;        /* fields read (borrowed or keys) */
    pm_type *keys;                /* first-row: the key fields */
    pm_type *type;                /* merge type of lookup batches */
    pm_kv_layout layout;
    pm_kv_keyenc *enc_in, *enc_lk; /* deletion vectors: order of a history record */
    pm_buf ka, kb;
    pm_kv_rec *tmp;               /* a group with its history record */
    size_t tmp_cap, ntmp;
} pk_lookup;

/* Changelog production (changelog-producer=lookup, or full-compaction
 * when the output is the max level): one rolling changelog writer per task. */
typedef struct pk_changelog {
    pm_pk_file_writer *w;
    pm_batch *batch;
    int64_t n;
    bool row_dedup, ignore_ub, ignore_delete;
    bool full;                    /* changelog-producer=full-compaction and the output is the max level */
    bool *compare;                /* value fields compared by row-deduplicate */
    pm_batch *one;                /* scratch: one result image */
    pm_buf va, vb;
} pk_changelog;

/* Deletion vectors of the bucket (deduplicate, partial-update, aggregation). */
typedef struct pk_dv {
    pm_dv_maintainer *m;
} pk_dv;

typedef struct exec {
    pm_table *t;
    const pm_compact_task *task;
    const pm_compact_pk *pk;
    const pm_schema *schema;
    pm_schema wschema;            /* shallow copy with wopts */
    pm_options *wopts;
    char *dir;
    int32_t max_level;
    int64_t budget;               /* memory share of the task (bytes; 0 = none) */
    /* merge input: [_SEQUENCE_NUMBER, _VALUE_KIND, every field] (files are
     * read with the fields; the reader prepends the system columns) */
    pm_type *in_type;
    pm_kv_layout in_layout;
    /* output: the KV type */
    pm_type *kv_type;
    size_t nkey;
    pm_kv_layout out_layout;
    bool dedup, ignore_delete;
    pm_merge_fn *mf;              /* reducer mode */
    pm_merge_fn *mf_full;         /* lookup rewrites */
    pm_pk_spill *spill;
    pk_output o;
    pk_lookup lk;
    pk_changelog cl;
    pk_dv dv;
    pm_compact_result *r;
} exec;

/* ------------------------------------------------------------------ */
/* types and layouts                                                   */

static pm_error *add_field(pm_type *row, int32_t id, const char *name, pm_type *t)
{
    if (!t)
        return pm_oom();
    pm_error *e = pm_type_add_field(row, id, name, t);
    if (e)
        pm_type_free(t);
    return e;
}

/* [_SEQUENCE_NUMBER, _VALUE_KIND] + the fields of `fields` (cloned). */
static pm_error *system_type(const pm_type *fields, pm_type **out)
{
    *out = NULL;
    pm_type *t = pm_type_new_row(false);
    if (!t)
        return pm_oom();
    pm_error *e = add_field(t, SEQ_ID, "_SEQUENCE_NUMBER", pm_type_new(PM_TYPE_BIGINT, false));
    if (!e)
        e = add_field(t, KIND_ID, "_VALUE_KIND", pm_type_new(PM_TYPE_TINYINT, false));
    for (size_t i = 0; !e && i < fields->nfields; i++)
        e = add_field(t, fields->fields[i].id, fields->fields[i].name, pm_type_clone(fields->fields[i].type));
    if (e) {
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

static pm_error *opt_bool(const pm_options *o, const char *key, bool *out)
{
    const char *v = pm_options_get(o, key);
    *out = false;
    return v ? pm_error_wrap(pm_parse_bool(v, out), PM_EINVALID, "option %s=%s", key, v) : NULL;
}

/* changelog-producer.row-deduplicate (+ -ignore-fields),
 * changelog-producer.ignore-update-before, changelog-producer.ignore-delete. */
static pm_error *changelog_setup(exec *x)
{
    const pm_options *o = x->schema->options;
    PM_TRY(opt_bool(o, "changelog-producer.row-deduplicate", &x->cl.row_dedup));
    PM_TRY(opt_bool(o, "changelog-producer.ignore-update-before", &x->cl.ignore_ub));
    PM_TRY(opt_bool(o, "changelog-producer.ignore-delete", &x->cl.ignore_delete));
    const pm_type *rt = x->schema->row_type;
    PM_TRY(pm_calloc(&x->cl.compare, rt->nfields ? rt->nfields : 1, sizeof *x->cl.compare));
    for (size_t i = 0; i < rt->nfields; i++)
        x->cl.compare[i] = true;
    const char *ign = pm_options_get(o, "changelog-producer.row-deduplicate-ignore-fields");
    if (ign) {
        pm_str_list l = {0};
        PM_TRY(pm_parse_list(ign, &l));
        pm_error *e = NULL;
        for (size_t i = 0; i < l.count && !e; i++) {
            ptrdiff_t f = pm_type_field_index(rt, l.items[i]);
            if (f < 0)
                e = pm_error_new(PM_EINVALID, "changelog-producer.row-deduplicate-ignore-fields: '%s' is not a "
                                 "field", l.items[i]);
            else
                x->cl.compare[f] = false;
        }
        pm_str_list_free(&l);
        PM_TRY(e);
    }
    return NULL;
}

static pm_error *setup(exec *x)
{
    const pm_schema *s = x->schema;
    const pm_type *rt = s->row_type;
    /* writer schema: the task's output format and compression */
    PM_TRY(pm_options_clone(s->options, &x->wopts));
    PM_TRY(pm_options_set(x->wopts, "file.format", x->task->output.format));
    PM_TRY(pm_options_set(x->wopts, "file.compression", x->task->output.compression));
    if (x->budget > 0) {
        /* the open row group stays within half the task's memory */
        int64_t rg = 128LL << 20, cap = x->budget / 2 < (1LL << 20) ? (1LL << 20) : x->budget / 2;
        const char *v = pm_options_get(s->options, "parquet.block.size");
        if (!v)
            v = pm_options_get(s->options, "file.block-size");
        if (v)
            PM_TRY(pm_error_wrap(pm_parse_memory_size(v, &rg), PM_EINVALID, "parquet.block.size=%s", v));
        if (rg > cap) {
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", (long long)cap);
            pm_options_remove(x->wopts, "file.block-size");
            PM_TRY(pm_options_set(x->wopts, "parquet.block.size", buf));
        }
    }
    x->wschema = *s;
    x->wschema.options = x->wopts;

    pm_merge_fn_options mo = {PM_MERGE_REDUCE, true};
    const char *const *pks = (const char *const *)s->primary_keys.items;
    PM_TRY(pm_merge_fn_new(&x->mf, rt, pks, s->primary_keys.count, s->options, &mo));
    if (x->pk->policy.first_row || x->pk->policy.dv || x->pk->policy.changelog) {
        pm_merge_fn_options fo = {PM_MERGE_FULL, true};
        PM_TRY(pm_merge_fn_new(&x->mf_full, rt, pks, s->primary_keys.count, s->options, &fo));
    }

    PM_TRY(system_type(rt, &x->in_type));
    pm_str_list keys = {0};
    PM_TRY(pm_schema_trimmed_primary_keys(s, &keys));
    size_t nf = rt->nfields, nk = keys.count;
    size_t *kc = NULL, *vc = NULL, *sc = NULL;
    size_t nseq = 0;
    bool desc = false;
    const size_t *seqf = pm_merge_fn_seq_fields(x->mf, &nseq, &desc);
    pm_error *e = pm_calloc(&kc, nk ? nk : 1, sizeof *kc);
    if (!e)
        e = pm_calloc(&vc, nf ? nf : 1, sizeof *vc);
    if (!e)
        e = pm_calloc(&sc, nseq ? nseq : 1, sizeof *sc);
    for (size_t k = 0; !e && k < nk; k++) {
        ptrdiff_t f = pm_type_field_index(rt, keys.items[k]);
        if (f < 0)
            e = pm_error_new(PM_EINVALID, "primary key '%s' is not a field of schema %lld", keys.items[k],
                             (long long)s->id);
        else
            kc[k] = 2 + (size_t)f;
    }
    for (size_t i = 0; !e && i < nf; i++)
        vc[i] = 2 + i;
    for (size_t i = 0; !e && i < nseq; i++)
        sc[i] = 2 + seqf[i];
    if (!e)
        e = pm_kv_layout_init(&x->in_layout, kc, nk, 0, 1, vc, nf);
    if (!e && nseq)
        e = pm_kv_layout_set_seq_fields(&x->in_layout, sc, nseq, desc);
    if (!e)
        e = pm_kv_layout_check(&x->in_layout, x->in_type);
    /* lookup, first-row: key fields only */
    if (!e && x->pk->policy.first_row) {
        pm_type *kt = pm_type_new_row(false);
        e = kt ? NULL : pm_oom();
        for (size_t k = 0; !e && k < nk; k++) {
            const pm_field *f = &rt->fields[kc[k] - 2];
            e = add_field(kt, f->id, f->name, pm_type_clone(f->type));
        }
        if (!e)
            e = system_type(kt, &x->lk.type);
        x->lk.keys = kt;
        x->lk.fields = kt;
        for (size_t k = 0; !e && k < nk; k++)
            kc[k] = 2 + k;
        if (!e)
            e = pm_kv_layout_init(&x->lk.layout, kc, nk, 0, 1, NULL, 0);
        if (!e)
            e = pm_kv_layout_check(&x->lk.layout, x->lk.type);
    }
    /* lookup, deletion vectors or changelog (deduplicate): whole rows +
     * _POS BIGINT + _FILE INT */
    if (!e && !x->pk->policy.first_row && (x->pk->policy.dv || x->pk->policy.changelog)) {
        e = system_type(rt, &x->lk.type);
        if (!e)
            e = add_field(x->lk.type, POS_ID, "_POS", pm_type_new(PM_TYPE_BIGINT, false));
        if (!e)
            e = add_field(x->lk.type, FILE_ID, "_FILE", pm_type_new(PM_TYPE_INT, false));
        x->lk.fields = rt;
        if (!e)
            e = pm_kv_layout_copy(&x->lk.layout, &x->in_layout);
        if (!e)
            e = pm_kv_layout_check(&x->lk.layout, x->lk.type);
        if (!e && nseq)
            e = pm_kv_keyenc_new(&x->lk.enc_in, &x->in_layout, x->in_type);
        if (!e && nseq)
            e = pm_kv_keyenc_new(&x->lk.enc_lk, &x->lk.layout, x->lk.type);
    }
    free(kc);
    free(vc);
    free(sc);
    pm_str_list_free(&keys);
    PM_TRY(e);
    PM_TRY(pm_pk_kv_type(s, &x->kv_type, &x->nkey));
    PM_TRY(pm_kv_layout_physical(&x->out_layout, x->nkey, nf));
    PM_TRY(pm_batch_new(&x->o.out, x->kv_type));
    size_t nout = x->kv_type->nfields;
    x->o.nin = x->in_type->nfields;
    PM_TRY(pm_calloc(&x->o.src_col, nout, sizeof *x->o.src_col));
    PM_TRY(pm_calloc(&x->o.which, OUT_ROWS, sizeof *x->o.which));
    PM_TRY(pm_calloc(&x->o.rows, OUT_ROWS, sizeof *x->o.rows));
    for (size_t k = 0; k < x->nkey; k++)
        x->o.src_col[k] = x->in_layout.key_cols[k];
    x->o.src_col[x->nkey] = 0;
    x->o.src_col[x->nkey + 1] = 1;
    for (size_t j = 0; j < nf; j++)
        x->o.src_col[x->nkey + 2 + j] = 2 + j;
    x->dedup = pm_merge_fn_kind(x->mf) == PM_ENGINE_DEDUPLICATE;
    PM_TRY(pm_options_bool(s->options, PM_OPT_IGNORE_DELETE, &x->ignore_delete));
    int producer = 0;
    PM_TRY(pm_options_enum(s->options, PM_OPT_CHANGELOG_PRODUCER, &producer));
    x->cl.full = producer == PM_CHANGELOG_FULL_COMPACTION && x->pk->output_level == x->pk->max_level;
    if (x->pk->policy.changelog || x->cl.full) {
        PM_TRY(changelog_setup(x));
        PM_TRY(pm_batch_new(&x->cl.one, x->kv_type));
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* run sources                                                         */

typedef struct run_src {
    exec *x;
    const pm_type *read_type;     /* fields read (system columns prepended) */
    const pm_lsm_file **files;    /* owned array, borrowed files */
    size_t nfiles, next;
    pm_file_reader *fr;
    pm_dv *dv;                    /* the current file's deletion vector (a copy) */
    bool count;                   /* count rows/bytes read (task inputs) */
    const pm_type *pos_type;      /* with positions: the batch type (+ _POS, _FILE) */
    int32_t file_base;            /* _FILE of files[0] */
} run_src;

/* b's columns plus _POS (pos, pos + 1, ...) and _FILE (file). */
static pm_error *with_positions(const pm_batch *b, const pm_type *type, int64_t pos, int32_t file, pm_batch **out)
{
    *out = NULL;
    pm_batch *o = NULL;
    PM_TRY(pm_calloc(&o, 1, sizeof *o));
    pm_error *e = NULL;
    o->type = pm_type_clone(type);
    if (!o->type)
        e = pm_oom();
    if (!e)
        e = pm_calloc(&o->columns, b->ncolumns + 2, sizeof *o->columns);
    if (!e) {
        o->ncolumns = b->ncolumns + 2;
        for (size_t i = 0; i < b->ncolumns; i++)
            o->columns[i] = pm_column_retain(b->columns[i]);
        o->num_rows = b->num_rows;
        e = pm_column_new(&o->columns[b->ncolumns], type->fields[b->ncolumns].type);
    }
    if (!e)
        e = pm_column_new(&o->columns[b->ncolumns + 1], type->fields[b->ncolumns + 1].type);
    if (!e)
        e = pm_column_reserve(o->columns[b->ncolumns], b->num_rows);
    if (!e)
        e = pm_column_reserve(o->columns[b->ncolumns + 1], b->num_rows);
    for (int64_t i = 0; !e && i < b->num_rows; i++) {
        e = pm_column_append_i64(o->columns[b->ncolumns], pos + i);
        if (!e)
            e = pm_column_append_i32(o->columns[b->ncolumns + 1], file);
    }
    if (e) {
        pm_batch_free(o);
        return e;
    }
    *out = o;
    return NULL;
}

static void run_close_file(run_src *s)
{
    pm_file_reader_free(s->fr);
    s->fr = NULL;
    pm_dv_free(s->dv);
    s->dv = NULL;
}

static pm_error *run_next(void *ctx, pm_batch **out)
{
    run_src *s = ctx;
    *out = NULL;
    for (;;) {
        if (!s->fr) {
            if (s->next >= s->nfiles)
                return NULL;
            const pm_data_file_meta *f = &s->files[s->next++]->meta;
            pm_file_read_options fo = {s->read_type, READ_ROWS, true};
            PM_TRY(pm_error_wrap(pm_file_reader_open(&s->fr, s->x->t, s->x->dir, f, &fo), 0, "input %s",
                                 f->file_name));
            const pm_dv *dv = s->x->dv.m ? pm_dv_maintainer_get(s->x->dv.m, f->file_name) : NULL;
            if (dv)
                PM_TRY(pm_dv_copy(dv, &s->dv)); /* the maintainer's vector changes while we read */
            if (s->count)
                s->x->r->counters.bytes_read += f->file_size;
        }
        const pm_batch *b = NULL;
        PM_TRY(pm_file_reader_next(s->fr, &b));
        if (!b) {
            run_close_file(s);
            continue;
        }
        if (!b->num_rows)
            continue;
        if (s->count)
            s->x->r->counters.rows_read += b->num_rows;
        int64_t pos = pm_file_reader_position(s->fr);
        pm_batch *o = NULL;
        if (s->pos_type)
            PM_TRY(with_positions(b, s->pos_type, pos, s->file_base + (int32_t)(s->next - 1), &o));
        else
            PM_TRY(pm_kv_batch_share(b, &o));
        if (s->dv) {
            int64_t before = o->num_rows;
            pm_error *e = pm_dv_filter_batch(s->dv, pos, o);
            if (e) {
                pm_batch_free(o);
                return e;
            }
            if (s->count)
                s->x->r->counters.rows_deleted += before - o->num_rows;
            if (!o->num_rows) {
                pm_batch_free(o);
                continue;
            }
        }
        *out = o;
        return NULL;
    }
}

static void run_close(void *ctx)
{
    run_src *s = ctx;
    run_close_file(s);
    free(s->files);
    free(s);
}

static pm_error *make_source(exec *x, const pm_type *read_type, const pm_lsm_file *const *files, size_t n, bool count,
                             pm_kv_source *out)
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
    out->ctx = s;
    out->next = run_next;
    out->close = run_close;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* first-row lookup                                                    */

typedef struct lookup_cursor {
    pm_merge_reader *mr;
    bool eof;
    bool has;                     /* cur holds a key, g its records */
    pm_buf cur;
    pm_kv_group g;
} lookup_cursor;

static void lookup_close(lookup_cursor *c)
{
    pm_merge_reader_free(c->mr);
    pm_buf_free(&c->cur);
    memset(c, 0, sizeof *c);
}

static bool overlaps(const pm_lsm_file *f, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen)
{
    return pm_kv_keycmp(f->max_key, f->max_len, lo, lolen) >= 0 && pm_kv_keycmp(f->min_key, f->min_len, hi, hilen) <= 0;
}

/* A cursor over the retained levels' files overlapping [lo, hi]. */
static pm_error *lookup_open(exec *x, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen,
                             lookup_cursor *c)
{
    memset(c, 0, sizeof *c);
    c->eof = true;
    if (!x->lk.levels)
        return NULL;
    int32_t nl = pm_levels_num_levels(x->lk.levels);
    pm_kv_source *srcs = NULL;
    const pm_lsm_file **sel = NULL;
    size_t nsrc = 0;
    pm_error *e = pm_calloc(&srcs, (size_t)nl, sizeof *srcs);
    size_t total = pm_levels_file_count(x->lk.levels);
    if (!e)
        e = pm_calloc(&sel, total ? total : 1, sizeof *sel);
    /* one source per level, levels ascending: a key's record from the
     * lowest level has the smallest source index */
    int32_t base = 0;
    for (int32_t lvl = 1; !e && lvl < nl; lvl++) {
        size_t n = 0, k = 0;
        pm_lsm_file *const *files = pm_levels_files(x->lk.levels, lvl, &n);
        int32_t first = -1;
        for (size_t i = 0; i < n; i++)
            if (overlaps(files[i], lo, lolen, hi, hilen)) {
                if (first < 0)
                    first = base + (int32_t)i;
                sel[k++] = files[i];
            }
        base += (int32_t)n;
        if (!k)
            continue;
        e = make_source(x, x->lk.fields, sel, k, false, &srcs[nsrc]);
        if (!e && !x->pk->policy.first_row) {
            run_src *rs = srcs[nsrc].ctx;
            rs->pos_type = x->lk.type;
            rs->file_base = first; /* the selected files of a level are consecutive */
        }
        if (!e)
            nsrc++;
    }
    free(sel);
    if (!e && nsrc) {
        pm_merge_options mo = {x->lk.type, &x->lk.layout, 0, NULL, READ_ROWS};
        e = pm_merge_reader_new(&c->mr, srcs, nsrc, &mo);
        nsrc = 0; /* closed by the reader, also on failure */
        c->eof = e != NULL;
    } else {
        for (size_t i = 0; i < nsrc; i++)
            srcs[i].close(srcs[i].ctx);
    }
    free(srcs);
    return e;
}

/* Does `key` (sort-key key part) exist in the retained levels?  Keys must
 * be asked in ascending order.  *rec (may be NULL) = its record from the
 * lowest level, valid until the next call. */
static pm_error *lookup_find(lookup_cursor *c, const uint8_t *key, size_t len, bool *found, const pm_kv_rec **rec)
{
    *found = false;
    if (rec)
        *rec = NULL;
    for (;;) {
        if (c->has) {
            int cmp = pm_kv_keycmp(c->cur.data, c->cur.len, key, len);
            if (cmp == 0) {
                *found = true;
                if (rec) {
                    const pm_kv_rec *best = &c->g.recs[0];
                    for (size_t i = 1; i < c->g.n; i++)
                        if (c->g.recs[i].source < best->source)
                            best = &c->g.recs[i];
                    *rec = best;
                }
                return NULL;
            }
            if (cmp > 0)
                return NULL;
        }
        if (c->eof)
            return NULL;
        pm_kv_group g;
        bool eof = false;
        PM_TRY(pm_merge_reader_next(c->mr, &g, &eof));
        if (eof) {
            c->eof = true;
            c->has = false;
            return NULL;
        }
        pm_buf_clear(&c->cur);
        PM_TRY(pm_buf_append(&c->cur, g.key, g.key_len));
        c->g = g;
        c->has = true;
    }
}

/* ------------------------------------------------------------------ */
/* rewrite                                                             */

static void pins_release(exec *x)
{
    for (size_t p = 0; p < x->o.npins; p++) {
        for (size_t c = 0; c < x->o.nin; c++)
            pm_column_release(x->o.pins[p][c]);
        free(x->o.pins[p]);
        x->o.pins[p] = NULL;
    }
    x->o.npins = 0;
    x->o.ngather = 0;
}

/* Copy the gathered rows to the output batch. */
static pm_error *gather_flush(exec *x)
{
    if (!x->o.ngather)
        return NULL;
    pm_error *e = NULL;
    for (size_t i = 0; i < x->kv_type->nfields && !e; i++) {
        for (size_t p = 0; p < x->o.npins; p++)
            x->o.srcs[p] = x->o.pins[p][x->o.src_col[i]];
        e = pm_column_append_gather(x->o.out->columns[i], x->o.srcs, x->o.which, x->o.rows, x->o.ngather);
    }
    pins_release(x);
    return e;
}

/* One unchanged record into the gather list (its batch pinned once). */
static pm_error *gather_add(exec *x, const pm_kv_rec *rec)
{
    pm_column *const *cols = rec->batch->columns;
    size_t p = x->o.npins;
    while (p-- > 0)
        if (x->o.pins[p][0] == cols[0])
            break;
    if (p == SIZE_MAX) {
        if (x->o.npins == UINT16_MAX)
            PM_TRY(gather_flush(x));
        if (x->o.npins == x->o.cap_pins) {
            size_t cap = x->o.cap_pins ? 2 * x->o.cap_pins : 16;
            PM_TRY(pm_realloc_array(&x->o.pins, cap, sizeof *x->o.pins));
            PM_TRY(pm_realloc_array(&x->o.srcs, cap, sizeof *x->o.srcs));
            x->o.cap_pins = cap;
        }
        pm_column **pin = NULL;
        PM_TRY(pm_calloc(&pin, x->o.nin, sizeof *pin));
        for (size_t c = 0; c < x->o.nin; c++)
            pin[c] = pm_column_retain(cols[c]);
        p = x->o.npins++;
        x->o.pins[p] = pin;
    }
    x->o.which[x->o.ngather] = (uint16_t)p;
    x->o.rows[x->o.ngather++] = rec->row;
    return NULL;
}

/* The record a group reduces to unchanged (reducer mode: a lone record;
 * deduplicate: the last record that is not an ignored retract), NULL when
 * the merge function must fold; *none = every record is ignored. */
static const pm_kv_rec *pass_through(const exec *x, const pm_kv_group *g, bool *none)
{
    *none = false;
    if (g->n == 1)
        return &g->recs[0];
    if (!x->dedup)
        return NULL;
    for (size_t j = g->n; j-- > 0;)
        if (!(x->ignore_delete && pm_kind_is_retract(g->recs[j].kind)))
            return &g->recs[j];
    *none = true;
    return NULL;
}

/* ---- changelog (changelog-producer=lookup) ---- */

static pm_error *cl_drain(exec *x)
{
    if (!x->cl.n)
        return NULL;
    PM_TRY(pm_batch_finish(x->cl.batch, x->cl.n));
    PM_TRY(pm_pk_file_writer_write(x->cl.w, x->cl.batch));
    x->cl.n = 0;
    return pm_batch_reset(x->cl.batch);
}

static pm_error *cl_row(exec *x)
{
    if (!x->cl.w) {
        const pm_compact_task *task = x->task;
        pm_pk_file_writer_options co = {x->pk->output_level, PM_FILE_SOURCE_APPEND, true,
                                        task->output.target_file_size, task->output.target_file_row_num};
        PM_TRY(pm_pk_file_writer_new(&x->cl.w, x->t, x->schema, task->partition.data, task->partition.len,
                                     task->bucket, &co));
        PM_TRY(pm_batch_new(&x->cl.batch, x->kv_type));
    }
    return NULL;
}

static pm_error *cl_count(exec *x)
{
    if (++x->cl.n == OUT_ROWS)
        return cl_drain(x);
    return NULL;
}

/* A record as a changelog event of `kind` (its key, sequence number and
 * values). */
static pm_error *cl_emit_rec(exec *x, const pm_kv_rec *rec, uint8_t kind)
{
    PM_TRY(cl_row(x));
    for (size_t i = 0; i < x->kv_type->nfields; i++) {
        pm_column *dst = x->cl.batch->columns[i];
        if (i == x->nkey + 1)
            PM_TRY(pm_column_append_i8(dst, (int8_t)kind));
        else
            PM_TRY(pm_column_append_from(dst, rec->batch->columns[x->o.src_col[i]], rec->row));
    }
    return cl_count(x);
}

/* The merge result (folded by mf) as a changelog event of `kind`. */
static pm_error *cl_emit_result(exec *x, pm_merge_fn *mf, uint8_t kind)
{
    PM_TRY(cl_row(x));
    PM_TRY(pm_merge_fn_emit(mf, x->cl.batch, &x->out_layout));
    pm_column *k = x->cl.batch->columns[x->nkey + 1];
    ((int8_t *)k->values.data)[k->length - 1] = (int8_t)kind;
    return cl_count(x);
}

static bool is_add(uint8_t k) { return k == PM_KIND_INSERT || k == PM_KIND_UPDATE_AFTER; }

/* Do the before record and the result image (row 0 of x->cl.one) carry
 * equal compared values? */
static pm_error *same_values(exec *x, const pm_kv_rec *before, bool *same)
{
    *same = true;
    const pm_type *rt = x->schema->row_type;
    for (size_t j = 0; j < rt->nfields && *same; j++) {
        if (!x->cl.compare[j])
            continue;
        pm_buf_clear(&x->cl.va);
        pm_buf_clear(&x->cl.vb);
        PM_TRY(pm_column_format_json(before->batch->columns[2 + j], before->row, &x->cl.va));
        PM_TRY(pm_column_format_json(x->cl.one->columns[x->nkey + 2 + j], 0, &x->cl.vb));
        *same = x->cl.va.len == x->cl.vb.len && !memcmp(x->cl.va.data, x->cl.vb.data, x->cl.va.len);
    }
    return NULL;
}

/* Java's LookupChangelogMergeFunctionWrapper.setChangelog: no live before
 * → +I of the result (when live); live before and a deleted result → -D
 * of the before; both live → -U before, +U result (none when
 * row-deduplicate finds equal values; no -U with ignore-update-before). */
static pm_error *cl_events(exec *x, pm_merge_fn *mf, const pm_kv_rec *before, const pm_merge_result *res)
{
    if (!before || !is_add(before->kind)) {
        if (res->has && is_add(res->kind))
            PM_TRY(cl_emit_result(x, mf, PM_KIND_INSERT));
        return NULL;
    }
    if (!res->has || !is_add(res->kind)) {
        if (!x->cl.ignore_delete)
            PM_TRY(cl_emit_rec(x, before, PM_KIND_DELETE));
        return NULL;
    }
    PM_TRY(pm_batch_reset(x->cl.one));
    PM_TRY(pm_merge_fn_emit(mf, x->cl.one, &x->out_layout));
    bool same = false;
    if (x->cl.row_dedup)
        PM_TRY(same_values(x, before, &same));
    if (same)
        return NULL;
    if (!x->cl.ignore_ub)
        PM_TRY(cl_emit_rec(x, before, PM_KIND_UPDATE_BEFORE));
    PM_TRY(cl_row(x));
    for (size_t i = 0; i < x->kv_type->nfields; i++) {
        pm_column *dst = x->cl.batch->columns[i];
        if (i == x->nkey + 1)
            PM_TRY(pm_column_append_i8(dst, PM_KIND_UPDATE_AFTER));
        else
            PM_TRY(pm_column_append_from(dst, x->cl.one->columns[i], 0));
    }
    return cl_count(x);
}

/* Finish the changelog writer: its files join the result. */
static pm_error *cl_finish(exec *x)
{
    if (!x->cl.w)
        return NULL;
    PM_TRY(cl_drain(x));
    pm_data_file_meta *files = NULL;
    size_t n = 0;
    PM_TRY(pm_pk_file_writer_finish(x->cl.w, &files, &n));
    pm_pk_file_writer_free(x->cl.w);
    x->cl.w = NULL;
    x->r->changelog = files;
    x->r->nchangelog = n;
    return NULL;
}

static pm_error *drain(exec *x, pm_pk_file_writer *w)
{
    PM_TRY(gather_flush(x));
    if (!x->o.nout)
        return NULL;
    PM_TRY(pm_batch_finish(x->o.out, x->o.nout));
    PM_TRY(pm_pk_file_writer_write(w, x->o.out));
    x->r->counters.rows_written += x->o.nout;
    x->o.nout = 0;
    return pm_batch_reset(x->o.out);
}

/* A folded merge result into the output (none without a writer, nor a
 * dropped retract). */
static pm_error *emit_merged(exec *x, pm_merge_fn *mf, pm_pk_file_writer *w, const pm_merge_result *res,
                             bool drop_delete)
{
    if (!w || !res->has || (drop_delete && pm_kind_is_retract(res->kind)))
        return NULL;
    PM_TRY(gather_flush(x));
    PM_TRY(pm_merge_fn_emit(mf, x->o.out, &x->out_layout));
    if (++x->o.nout == OUT_ROWS)
        return drain(x, w);
    return NULL;
}

/* Merge one section (its runs) into the writer.  levels[i] = level of
 * run i's files. */
/* x->lk.tmp = the group's level-0 records and `high`, in merge order. */
static pm_error *only_level0_and(exec *x, const pm_kv_group *g, const int32_t *run_level, size_t nr,
                                 const pm_kv_rec *high)
{
    if (g->n > x->lk.tmp_cap) {
        PM_TRY(pm_realloc_array(&x->lk.tmp, g->n, sizeof *x->lk.tmp));
        x->lk.tmp_cap = g->n;
    }
    x->lk.ntmp = 0;
    for (size_t i = 0; i < g->n; i++) {
        const pm_kv_rec *r = &g->recs[i];
        if (r == high || (r->source < nr && run_level[r->source] == 0))
            x->lk.tmp[x->lk.ntmp++] = *r;
    }
    return NULL;
}

/* Deletion vectors: x->lk.tmp = the group's records with the history record
 * inserted in merge order ((sequence fields), _SEQUENCE_NUMBER), and the
 * history row marked deleted in its file. */
static pm_error *take_history(exec *x, const pm_kv_group *g, const pm_kv_rec *hist)
{
    const pm_batch *hb = hist->batch;
    size_t ncol = hb->ncolumns;
    int64_t pos = pm_column_i64(hb->columns[ncol - 2], hist->row);
    int32_t file = pm_column_i32(hb->columns[ncol - 1], hist->row);
    if (file < 0 || (size_t)file >= x->lk.nfiles)
        return pm_error_new(PM_EINTERNAL, "lookup file index %d out of range", (int)file);
    if (x->dv.m)
        PM_TRY(pm_dv_maintainer_delete_row(x->dv.m, x->lk.files[file]->meta.file_name, pos));
    if (g->n + 1 > x->lk.tmp_cap) {
        PM_TRY(pm_realloc_array(&x->lk.tmp, g->n + 1, sizeof *x->lk.tmp));
        x->lk.tmp_cap = g->n + 1;
    }
    /* number of group records ordered before the history record */
    size_t at = 0;
    if (x->lk.enc_in) {
        pm_buf_clear(&x->lk.kb);
        uint32_t kl = 0;
        PM_TRY(pm_kv_keyenc_row(x->lk.enc_lk, hb, hist->row, true, &x->lk.kb, &kl));
        for (size_t i = 0; i < g->n; i++) {
            pm_buf_clear(&x->lk.ka);
            PM_TRY(pm_kv_keyenc_row(x->lk.enc_in, g->recs[i].batch, g->recs[i].row, true, &x->lk.ka, &kl));
            if (pm_kv_keycmp(x->lk.ka.data, x->lk.ka.len, x->lk.kb.data, x->lk.kb.len) < 0)
                at = i + 1;
        }
    } else {
        for (size_t i = 0; i < g->n; i++)
            if (g->recs[i].seq < hist->seq)
                at = i + 1;
    }
    memcpy(x->lk.tmp, g->recs, at * sizeof *x->lk.tmp);
    x->lk.tmp[at] = *hist;
    memcpy(x->lk.tmp + at + 1, g->recs + at, (g->n - at) * sizeof *x->lk.tmp);
    x->lk.ntmp = g->n + 1;
    return NULL;
}

/* With w = NULL nothing is written: a lookup pass over a level-0 file that
 * is upgraded (deletion vectors still mark the rows it replaces). */
static pm_error *merge_section(exec *x, const pm_iv_section *sec, bool lookup_mode, bool drop_delete,
                               pm_pk_file_writer *w)
{
    /* one source per sorted run; in lookup mode one per (run, level), so
     * every record's level is its source's (a run of the interval partition
     * may chain files of different levels) */
    size_t cap = 0;
    for (size_t i = 0; i < sec->nruns; i++)
        cap += lookup_mode ? sec->runs[i].nfiles : 1;
    pm_kv_source *srcs = NULL;
    int32_t *run_level = NULL;
    const pm_lsm_file **pick = NULL;
    size_t nr = 0, made = 0, maxf = 0;
    for (size_t i = 0; i < sec->nruns; i++)
        if (sec->runs[i].nfiles > maxf)
            maxf = sec->runs[i].nfiles;
    PM_TRY(pm_calloc(&srcs, cap ? cap : 1, sizeof *srcs));
    pm_error *e = pm_calloc(&run_level, cap ? cap : 1, sizeof *run_level);
    if (!e)
        e = pm_calloc(&pick, maxf ? maxf : 1, sizeof *pick);
    const uint8_t *lo = NULL, *hi = NULL;
    size_t lolen = 0, hilen = 0;
    for (size_t i = 0; !e && i < sec->nruns; i++) {
        const pm_iv_run *run = &sec->runs[i];
        for (size_t k = 0; k < run->nfiles; k++) {
            const pm_lsm_file *f = run->files[k];
            if (!lo || pm_kv_keycmp(f->min_key, f->min_len, lo, lolen) < 0) {
                lo = f->min_key;
                lolen = f->min_len;
            }
            if (!hi || pm_kv_keycmp(f->max_key, f->max_len, hi, hilen) > 0) {
                hi = f->max_key;
                hilen = f->max_len;
            }
        }
        if (!lookup_mode) {
            run_level[nr] = run->nfiles ? run->files[0]->meta.level : 0;
            e = make_source(x, x->schema->row_type, (const pm_lsm_file *const *)run->files, run->nfiles, true,
                            &srcs[nr]);
            if (!e)
                made = ++nr;
            continue;
        }
        for (size_t k = 0; !e && k < run->nfiles; k++) {
            int32_t lvl = run->files[k]->meta.level;
            bool seen = false;
            for (size_t j = 0; j < k && !seen; j++)
                seen = run->files[j]->meta.level == lvl;
            if (seen)
                continue;
            size_t np = 0;
            for (size_t j = k; j < run->nfiles; j++)
                if (run->files[j]->meta.level == lvl)
                    pick[np++] = run->files[j];
            run_level[nr] = lvl;
            e = make_source(x, x->schema->row_type, pick, np, true, &srcs[nr]);
            if (!e)
                made = ++nr;
        }
    }
    free(pick);
    if (!e && lookup_mode && nr > PM_MERGE_MAX_FAN_IN)
        e = pm_error_new(PM_EUNSUPPORTED, "lookup compaction (first-row, deletion vectors) of %zu overlapping sorted "
                         "runs (more than %d) is not supported", nr, PM_MERGE_MAX_FAN_IN);
    /* the merge may hold half the task's memory (the writer's row group the
     * rest); beyond that it merges in passes through the spill */
    bool budgeted = !lookup_mode && x->budget > 0;
    if (!e && (nr > PM_MERGE_MAX_FAN_IN || budgeted) && !x->spill)
        e = pm_pk_spill_new(&x->spill, NULL);
    const pm_kv_spill *spill = NULL;
    if (!e && x->spill)
        e = pm_pk_spill_callbacks(x->spill, &spill);
    if (e) {
        for (size_t i = 0; i < made; i++)
            srcs[i].close(srcs[i].ctx);
        free(srcs);
        free(run_level);
        return e;
    }
    pm_merge_options mo = {x->in_type, &x->in_layout, 0, spill, READ_ROWS};
    pm_merge_reader *mr = NULL;
    e = pm_merge_reader_new(&mr, srcs, nr, &mo);
    free(srcs);
    if (!e && budgeted)
        pm_merge_reader_set_memory_budget(mr, (size_t)(x->budget / 2));
    lookup_cursor lc;
    memset(&lc, 0, sizeof lc);
    if (!e && lookup_mode)
        e = lookup_open(x, lo, lolen, hi, hilen, &lc);
    pm_merge_fn *mf = lookup_mode ? x->mf_full : x->mf;
    while (!e) {
        pm_kv_group g;
        bool eof = false;
        e = pm_merge_reader_next(mr, &g, &eof);
        if (e || eof)
            break;
        const pm_kv_rec *recs = g.recs;
        size_t nrecs = g.n;
        const pm_kv_rec *before = NULL; /* changelog: the history of the key */
        bool l0 = false;
        if (lookup_mode) {
            /* the freshest selected positive-level record, level-0 input */
            const pm_kv_rec *high = NULL;
            int32_t high_level = 0;
            for (size_t i = 0; i < g.n; i++) {
                int32_t lvl = g.recs[i].source < nr ? run_level[g.recs[i].source] : 0;
                if (lvl == 0) {
                    l0 = true;
                } else if (!high || lvl < high_level) {
                    high = &g.recs[i];
                    high_level = lvl;
                }
            }
            if (high) {
                before = high;
                if (x->dedup && g.n > 1) {
                    /* Java's LookupMergeFunction: level-0 records and the
                     * freshest positive-level one merge, older levels do not */
                    e = only_level0_and(x, &g, run_level, nr, high);
                    if (e)
                        break;
                    recs = x->lk.tmp;
                    nrecs = x->lk.ntmp;
                }
            } else {
                bool exists = false;
                const pm_kv_rec *hist = NULL;
                e = lookup_find(&lc, g.key, g.key_len, &exists, x->pk->policy.first_row ? NULL : &hist);
                if (e)
                    break;
                if (exists && x->pk->policy.first_row)
                    continue; /* first-row: the key is already accepted above, nothing new */
                if (hist) {
                    /* the history record joins the merge; with deletion
                     * vectors its row is deleted where it is */
                    e = take_history(x, &g, hist);
                    if (e)
                        break;
                    recs = x->lk.tmp;
                    nrecs = g.n + 1;
                    before = hist;
                }
            }
        }
        if (!w && !(x->pk->policy.changelog && l0) && !x->cl.full)
            continue; /* a lookup pass: the marks are all it does */
        if (lookup_mode) {
            pm_merge_result res;
            e = pm_merge_fn_fold(mf, &x->in_layout, recs, nrecs, &res);
            if (e)
                break;
            if (x->pk->policy.changelog && l0) {
                if (x->pk->policy.first_row) {
                    /* first-row: a newly accepted key's first record, its kind kept */
                    if (!before && res.has && is_add(res.kind))
                        e = cl_emit_result(x, mf, res.kind);
                } else {
                    e = cl_events(x, mf, before, &res);
                }
                if (e)
                    break;
            }
            e = emit_merged(x, mf, w, &res, drop_delete);
            continue;
        }
        if (x->cl.full) {
            /* Java's FullChangelogMergeFunctionWrapper: the key's record at
             * the max level (if any) is the before image of the merge */
            const pm_kv_rec *top = NULL;
            for (size_t i = 0; i < g.n && !top; i++)
                if (g.recs[i].source < nr && run_level[g.recs[i].source] == x->max_level)
                    top = &g.recs[i];
            if (g.n == 1) {
                if (!top && is_add(g.recs[0].kind))
                    e = cl_emit_rec(x, &g.recs[0], PM_KIND_INSERT);
            } else {
                pm_merge_result res;
                e = pm_merge_fn_fold(mf, &x->in_layout, recs, nrecs, &res);
                if (!e)
                    e = cl_events(x, mf, top, &res);
                if (!e)
                    e = emit_merged(x, mf, w, &res, drop_delete);
                continue;
            }
            if (e || !w)
                continue;
        }
        if (!lookup_mode) {
            bool none = false;
            const pm_kv_rec *pt = pass_through(x, &g, &none);
            if (none)
                continue;
            if (pt) {
                if (drop_delete && pm_kind_is_retract(pt->kind))
                    continue;
                e = gather_add(x, pt);
                if (!e && ++x->o.nout == OUT_ROWS)
                    e = drain(x, w);
                continue;
            }
        }
        pm_merge_result res;
        e = pm_merge_fn_fold(mf, &x->in_layout, recs, nrecs, &res);
        if (!e)
            e = emit_merged(x, mf, w, &res, drop_delete);
    }
    if (!e && w)
        e = drain(x, w);
    pins_release(x);
    lookup_close(&lc);
    pm_merge_reader_free(mr);
    free(run_level);
    return e;
}

static pm_error *push_meta(pm_data_file_meta **arr, size_t *n, const pm_data_file_meta *m)
{
    PM_TRY(pm_realloc_array(arr, *n + 1, sizeof **arr));
    memset(&(*arr)[*n], 0, sizeof **arr);
    PM_TRY(pm_data_file_meta_copy(&(*arr)[*n], m));
    (*n)++;
    return NULL;
}

static pm_error *record_before(exec *x, const pm_lsm_file *f) { return push_meta(&x->r->before, &x->r->nbefore, &f->meta); }

static bool has_level0(const pm_iv_section *secs, size_t n)
{
    for (size_t s = 0; s < n; s++)
        for (size_t r = 0; r < secs[s].nruns; r++)
            for (size_t k = 0; k < secs[s].runs[r].nfiles; k++)
                if (secs[s].runs[r].files[k]->meta.level == 0)
                    return true;
    return false;
}

/* One REWRITE: sections merged into one rolling writer. */
static pm_error *rewrite(exec *x, const pm_iv_section *secs, size_t nsec, bool drop_delete)
{
    const pm_compact_task *task = x->task;
    bool lookup_mode = (x->pk->policy.first_row || x->pk->policy.dv || x->pk->policy.changelog) &&
                       x->pk->output_level != 0 && has_level0(secs, nsec);
    pm_pk_file_writer_options wo = {x->pk->output_level, PM_FILE_SOURCE_COMPACT, false, task->output.target_file_size,
                                    task->output.target_file_row_num};
    pm_pk_file_writer *w = NULL;
    PM_TRY(pm_pk_file_writer_new(&w, x->t, &x->wschema, task->partition.data, task->partition.len, task->bucket,
                                 &wo));
    pm_error *e = NULL;
    for (size_t s = 0; s < nsec && !e; s++)
        e = merge_section(x, &secs[s], lookup_mode, drop_delete, w);
    pm_data_file_meta *files = NULL;
    size_t nfiles = 0;
    if (!e)
        e = pm_pk_file_writer_finish(w, &files, &nfiles);
    if (e) {
        pm_pk_file_writer_abort(w);
        return e;
    }
    pm_pk_file_writer_free(w);
    for (size_t i = 0; i < nfiles; i++)
        x->r->counters.bytes_written += files[i].file_size;
    e = pm_realloc_array(&x->r->after, x->r->nafter + nfiles, sizeof *x->r->after);
    if (!e) {
        if (nfiles)
            memcpy(x->r->after + x->r->nafter, files, nfiles * sizeof *files);
        x->r->nafter += nfiles;
        free(files);
        files = NULL;
        nfiles = 0;
    }
    for (size_t s = 0; !e && s < nsec; s++)
        for (size_t r = 0; !e && r < secs[s].nruns; r++)
            for (size_t k = 0; !e && k < secs[s].runs[r].nfiles; k++)
                e = record_before(x, secs[s].runs[r].files[k]);
    if (files) {
        /* not handed over: delete them */
        for (size_t i = 0; i < nfiles; i++) {
            char *p = pm_path_join(x->dir, files[i].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(x->t->fio, p));
            free(p);
            pm_data_file_meta_clear(&files[i]);
        }
        free(files);
    }
    return e;
}

static pm_error *plain_upgrade(exec *x, const pm_lsm_file *f)
{
    PM_TRY(record_before(x, f));
    PM_TRY(push_meta(&x->r->after, &x->r->nafter, &f->meta));
    x->r->after[x->r->nafter - 1].level = x->pk->output_level;
    return NULL;
}

/* An UPGRADE step.  Tables that look up retained levels (first-row,
 * deletion vectors) follow Java's LookupMergeTreeCompactRewriter for
 * level-0 files: with deletion vectors a file that may hold deletes is
 * rewritten (deletes dropped); at the max level, or for deduplicate
 * without sequence fields, the file is upgraded after a lookup pass (the
 * rows it replaces above are marked deleted); otherwise it is rewritten
 * through the lookup (keys already above must not be kept twice). */
static pm_error *upgrade(exec *x, const pm_lsm_file *f)
{
    if (x->cl.full && f->meta.level != x->max_level) {
        /* full-compaction changelog: a file moving to the max level holds
         * only new keys; its adds become +I events, the file is kept */
        const pm_lsm_file *one[1] = {f};
        pm_iv_run run = {1, one};
        pm_iv_section sec = {1, &run};
        PM_TRY(merge_section(x, &sec, false, false, NULL));
        return plain_upgrade(x, f);
    }
    bool lookup = x->pk->policy.first_row || x->pk->policy.dv || x->pk->policy.changelog;
    if (!lookup || f->meta.level != 0 || x->pk->output_level == 0)
        return plain_upgrade(x, f);
    const pm_lsm_file *one[1] = {f};
    pm_iv_run run = {1, one};
    pm_iv_section sec = {1, &run};
    bool deletes = !f->meta.delete_row_count.has || f->meta.delete_row_count.v > 0;
    if (x->pk->policy.dv && deletes)
        return rewrite(x, &sec, 1, true);
    size_t nseq = 0;
    bool desc = false;
    pm_merge_fn_seq_fields(x->mf, &nseq, &desc);
    if (x->pk->output_level == x->max_level || (x->dedup && !nseq)) {
        /* a lookup pass: vectors mark what the file replaces, changelog */
        if ((x->pk->policy.dv && x->lk.levels) || x->pk->policy.changelog)
            PM_TRY(merge_section(x, &sec, true, false, NULL));
        return plain_upgrade(x, f);
    }
    return rewrite(x, &sec, 1, x->pk->policy.dv);
}

/* ------------------------------------------------------------------ */
/* lookup levels                                                       */

static bool is_input(const pm_compact_task *task, const char *name)
{
    for (size_t i = 0; i < task->nfiles; i++)
        if (!strcmp(task->files[i].file_name, name))
            return true;
    return false;
}

/* The files of the task's bucket in the captured snapshot that are not
 * inputs and sit above the output level. */
static pm_error *load_lookup(exec *x, const pm_type *key_type)
{
    const pm_compact_task *task = x->task;
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = task->snapshot_id;
    so.bucket = task->bucket;
    pm_scan_result *sr = NULL;
    PM_TRY(pm_error_wrap(pm_table_scan(x->t, &so, &sr), 0, "captured snapshot %lld (lookup of retained levels)",
                         (long long)task->snapshot_id));
    pm_error *e = NULL;
    pm_data_file_meta *keep = NULL;
    size_t nkeep = 0;
    for (size_t i = 0; i < sr->nbuckets && !e; i++) {
        const pm_bucket_files *bf = &sr->buckets[i];
        if (bf->bucket != task->bucket || !pm_compact_bytes_equal(&bf->partition, &task->partition))
            continue;
        e = pm_calloc(&keep, bf->nfiles ? bf->nfiles : 1, sizeof *keep);
        for (size_t k = 0; !e && k < bf->nfiles; k++)
            if (bf->files[k].level > x->pk->output_level && !is_input(task, bf->files[k].file_name))
                keep[nkeep++] = bf->files[k]; /* shallow: copied by pm_levels_new */
        break;
    }
    if (!e && nkeep)
        e = pm_levels_new(&x->lk.levels, key_type, x->max_level + 1, keep, nkeep);
    free(keep);
    pm_scan_result_free(sr);
    if (e || !x->lk.levels)
        return e;
    /* the lookup files in level order (the _FILE numbering of lookup_open) */
    PM_TRY(pm_calloc(&x->lk.files, pm_levels_file_count(x->lk.levels), sizeof *x->lk.files));
    for (int32_t lvl = 1; lvl < pm_levels_num_levels(x->lk.levels); lvl++) {
        size_t n = 0;
        pm_lsm_file *const *files = pm_levels_files(x->lk.levels, lvl, &n);
        for (size_t i = 0; i < n; i++)
            x->lk.files[x->lk.nfiles++] = files[i];
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* deletion vectors                                                    */

/* The bucket's vectors from the task's DV index files. */
static pm_error *dv_open(exec *x)
{
    bool bitmap64 = false;
    int64_t target = 0;
    PM_TRY(pm_dv_options(x->schema->options, &bitmap64, &target));
    pm_dv_io io = {x->t->fio, x->t->paths, x->dir};
    return pm_dv_maintainer_new(&io, &x->task->partition, x->task->bucket, bitmap64, x->task->dv_index,
                                x->task->ndv_index, &x->dv.m);
}

/* Vectors of rewritten inputs are gone with them; when anything changed the
 * bucket's new index file replaces the task's (ADD + DELETE entries). */
static pm_error *dv_finish(exec *x)
{
    pm_compact_result *r = x->r;
    for (size_t i = 0; i < r->nbefore; i++) {
        bool kept = false;
        for (size_t k = 0; k < r->nafter && !kept; k++)
            kept = !strcmp(r->after[k].file_name, r->before[i].file_name);
        if (!kept)
            pm_dv_maintainer_remove(x->dv.m, r->before[i].file_name);
    }
    if (!pm_dv_maintainer_modified(x->dv.m))
        return NULL;
    pm_index_manifest_entry added;
    bool written = false;
    PM_TRY(pm_dv_maintainer_write(x->dv.m, &added, &written));
    if (!written)
        return NULL;
    pm_error *e = pm_calloc(&r->index_added, 1, sizeof *r->index_added);
    if (e) {
        pm_index_manifest_entry_clear(&added);
        return e;
    }
    r->index_added[0] = added;
    r->nindex_added = 1;
    if (x->task->ndv_index) {
        PM_TRY(pm_index_entries_copy(&r->index_removed, x->task->dv_index, x->task->ndv_index));
        r->nindex_removed = x->task->ndv_index;
        for (size_t i = 0; i < r->nindex_removed; i++)
            r->index_removed[i].kind = PM_FILE_DELETE;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* entry                                                               */

static void exec_clear(exec *x)
{
    pm_options_free(x->wopts);
    free(x->dir);
    pm_type_free(x->in_type);
    pm_kv_layout_clear(&x->in_layout);
    pm_type_free(x->kv_type);
    pm_kv_layout_clear(&x->out_layout);
    pins_release(x);
    free(x->o.pins);
    free(x->o.srcs);
    free(x->o.which);
    free(x->o.rows);
    free(x->o.src_col);
    pm_batch_free(x->o.out);
    pm_merge_fn_free(x->mf);
    pm_merge_fn_free(x->mf_full);
    pm_pk_spill_free(x->spill);
    pm_levels_free(x->lk.levels);
    free(x->lk.files);
    pm_type_free(x->lk.type);
    pm_type_free(x->lk.keys);
    pm_kv_layout_clear(&x->lk.layout);
    pm_kv_keyenc_free(x->lk.enc_in);
    pm_kv_keyenc_free(x->lk.enc_lk);
    pm_buf_free(&x->lk.ka);
    pm_buf_free(&x->lk.kb);
    free(x->lk.tmp);
    pm_dv_maintainer_free(x->dv.m);
    pm_pk_file_writer_abort(x->cl.w);
    pm_batch_free(x->cl.batch);
    pm_batch_free(x->cl.one);
    free(x->cl.compare);
    pm_buf_free(&x->cl.va);
    pm_buf_free(&x->cl.vb);
}

static void delete_new_outputs(exec *x)
{
    pm_compact_result *r = x->r;
    for (size_t i = 0; r && i < r->nchangelog; i++) {
        char *p = pm_path_join(x->dir, r->changelog[i].file_name);
        if (p)
            pm_error_free(pm_fileio_delete(x->t->fio, p));
        free(p);
    }
    for (size_t i = 0; r && i < r->nindex_added; i++) {
        char *p = NULL;
        if (!pm_index_file_path(x->t->paths, x->dir, &r->index_added[i].index_file, &p))
            pm_error_free(pm_fileio_delete(x->t->fio, p));
        free(p);
    }
    for (size_t i = 0; r && i < r->nafter; i++) {
        if (is_input(x->task, r->after[i].file_name))
            continue;
        char *p = pm_path_join(x->dir, r->after[i].file_name);
        if (p)
            pm_error_free(pm_fileio_delete(x->t->fio, p));
        free(p);
    }
}

pm_error *pm_pk_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, int64_t memory_budget)
{
    *out = NULL;
    uint64_t t0 = pm_monotonic_ns();
    exec x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.task = task;
    x.pk = pm_pk_part(task->part);
    x.budget = memory_budget;
    pm_type *key_type = NULL;
    pm_levels *lv = NULL;
    pm_task_plan plan;
    memset(&plan, 0, sizeof plan);
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_error_wrap(pm_table_schema_by_id(t, task->schema_id, &x.schema), 0, "schema %lld",
                                 (long long)task->schema_id), fail);
    if (!pm_schema_has_primary_key(x.schema)) {
        e = pm_error_new(PM_ECONFLICT, "compaction conflict, replan: schema %lld has no primary key",
                         (long long)task->schema_id);
        goto fail;
    }
    PM_TRY_GOTO(e, pm_compact_result_new_for_task(&x.r, task), fail);
    /* before/after are what the steps do, not the task's inputs */
    pm_data_file_metas_free(x.r->before, x.r->nbefore);
    x.r->before = NULL;
    x.r->nbefore = 0;
    PM_TRY_GOTO(e, pm_table_bucket_dir(t, task->partition.data, task->partition.len, task->bucket, &x.dir), fail);
    PM_TRY_GOTO(e, setup(&x), fail);
    PM_TRY_GOTO(e, pm_schema_trimmed_primary_key_type(x.schema, &key_type), fail);

    /* the bucket's max level (captured at planning: files above the task's
     * inputs count too; no input above it, pk_mode.c) */
    int32_t num_levels = x.pk->max_level + 1;
    x.max_level = x.pk->max_level;
    PM_TRY_GOTO(e, pm_error_wrap(pm_levels_new(&lv, key_type, num_levels, task->files, task->nfiles), 0,
                                 "inputs of task %lld", (long long)task->task_index), fail);
    if ((x.pk->policy.first_row || x.pk->policy.dv || x.pk->policy.changelog) && x.pk->output_level < x.max_level)
        PM_TRY_GOTO(e, load_lookup(&x, key_type), fail);
    if (x.pk->policy.dv)
        PM_TRY_GOTO(e, dv_open(&x), fail);

    /* every input, in level order */
    size_t nin = pm_levels_file_count(lv), k = 0;
    const pm_lsm_file **ptrs = NULL;
    PM_TRY_GOTO(e, pm_calloc(&ptrs, nin ? nin : 1, sizeof *ptrs), fail);
    for (int32_t lvl = 0; lvl < pm_levels_num_levels(lv); lvl++) {
        size_t n = 0;
        pm_lsm_file *const *files = pm_levels_files(lv, lvl, &n);
        for (size_t i = 0; i < n; i++)
            ptrs[k++] = files[i];
    }
    /* full compaction of a single max-level run (pickFullCompaction's file
     * rewrite): each file rewritten alone, as Java's FileRewriteCompactTask */
    bool file_rewrite = x.pk->policy.pick == PM_PICK_FULL && x.pk->output_level == x.max_level;
    for (size_t i = 0; file_rewrite && i < k; i++)
        file_rewrite = ptrs[i]->meta.level == x.max_level;
    if (file_rewrite) {
        for (size_t i = 0; i < k && !e; i++) {
            const pm_lsm_file *one[1] = {ptrs[i]};
            pm_iv_run run = {1, one};
            pm_iv_section sec = {1, &run};
            e = rewrite(&x, &sec, 1, x.pk->drop_delete);
        }
        free(ptrs);
        if (e)
            goto fail;
    } else {
        pm_task_options to = {x.pk->policy.min_file_size, x.pk->output_level, x.max_level,
                              x.pk->policy.force_rewrite_all, NULL, NULL};
        e = pm_compact_task_plan(ptrs, k, &to, &plan);
        free(ptrs);
        if (e)
            goto fail;
    }
    for (size_t s = 0; s < plan.nsteps && !e; s++) {
        const pm_task_step *st = &plan.steps[s];
        if (st->kind == PM_STEP_UPGRADE) {
            e = upgrade(&x, st->file);
        } else {
            e = rewrite(&x, st->sections, st->nsections, x.pk->drop_delete);
        }
        if (!e && pm_compact_fault("pk-execute-after-first-step")) {
            e = pm_error_new(PM_EIO, "injected fault: pk-execute-after-first-step");
        }
    }
    if (!e)
        e = cl_finish(&x);
    if (!e && x.dv.m)
        e = dv_finish(&x);
    if (e)
        goto fail;
    pm_task_plan_clear(&plan);
    pm_levels_free(lv);
    pm_type_free(key_type);
    x.r->counters.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    *out = x.r;
    x.r = NULL;
    exec_clear(&x);
    return NULL;
fail:
    delete_new_outputs(&x);
    pm_task_plan_clear(&plan);
    pm_levels_free(lv);
    pm_type_free(key_type);
    pm_compact_result_free(x.r);
    exec_clear(&x);
    return pm_error_wrap(e, 0, "compaction task %lld (plan %s)", (long long)task->task_index, task->plan_id);
}
