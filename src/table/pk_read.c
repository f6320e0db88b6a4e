/*
 * table/pk_read.c — merge-on-read of one primary-key bucket (pk_read.h).
 *
 * The plan is a list of units (raw file, or a merged section of sorted
 * runs) made at creation from file metadata.  next() drains the current
 * unit into the output batch:
 *   raw:   file reader batch → keep bitmap (deletion vector, retract
 *          kinds) → shared columns (nothing dropped) or copied rows;
 *   merge: merge reader groups → fold (reducer mode) → drop -U/-D results
 *          → emit the requested columns straight into the output columns
 *          (the emit layout maps each schema field to its output position,
 *          so nothing is copied twice).
 * Each merged run is a source that opens its files one after another
 * (key order) and hands the merge batches that share the file reader's
 * columns, or filtered copies when a deletion vector removes rows.
 */
#include "table/pk_read.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/pool.h"
#include "dv/dv_index_file.h"
#include "lsm/interval_partition.h"
#include "lsm/kv.h"
#include "lsm/merge_engine.h"
#include "lsm/merge_reader.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/pk_column.h"
#include "table/pk_spill.h"
#include "types/column.h"

#define SEQ_ID 2147483646
#define PREFETCH 4
/* Read-ahead only for sections of at most this many runs, so the batches
 * held ahead stay bounded (runs × PREFETCH batches). */
#define PREFETCH_MAX_RUNS 16
#define KIND_ID 2147483645

typedef enum { UNIT_RAW, UNIT_MERGE } unit_kind;

typedef struct unit {
    unit_kind kind;
    size_t file;          /* RAW: index in b->files */
    size_t nruns;         /* MERGE: runs, each run_len[i] files of run_files */
    size_t *run_len;
    size_t *run_files;
    int32_t *run_level;   /* MERGE with lookup_merge: the level of run i's files */
    const roaring_bitmap_t *rows; /* RAW: the only positions that may match (global index), NULL = all */
} unit;

struct pm_pk_reader {
    const pm_bucket_files *b;
    pm_table *t;
    const pm_schema *s;
    pm_type *out_type;
    int64_t batch_rows;
    char *dir;
    unit *units;
    size_t nunits, next_unit;
    /* merge setup */
    pm_type *mtype;        /* fields the merged files are read with */
    pm_type *msys;         /* [_SEQUENCE_NUMBER, _VALUE_KIND, mtype...] */
    pm_kv_layout in_layout, out_layout;
    pm_merge_fn *mf;
    pm_merge_fn *mf_full;  /* lookup_merge: groups of several records */
    pm_merge_kind engine;
    bool ignore_delete;
    bool lookup_merge;     /* LookupMergeFunction (see plan) */
    pm_kv_rec *pick;       /* lookup_merge: the kept records of a group */
    size_t pick_cap;
    size_t *src_col;       /* output field i comes from msys column src_col[i] */
    pm_pk_spill *spill;
    pm_pool *pool;         /* decodes merged runs ahead (NULL = none) */
    /* pending pass-through rows: rows [pend_start, pend_start + pend_len)
     * of the retained source columns (merge output emitted as ranges) */
    pm_column **pend;
    pm_column *pend_kind;  /* identity of the pending source batch */
    int64_t pend_start, pend_len;
    /* current unit */
    const unit *cur;
    pm_file_reader *fr;    /* raw */
    pm_dv *dv;
    pm_merge_reader *mr;   /* merge */
    pm_batch *out;
    pm_column **work;
    uint8_t *keep;
    size_t keep_cap;
    pm_pk_read_stats stats;
    pm_pk_gi_hits *hits;   /* global index positions (pm_pk_reader_use_index), owned */
};

/* ------------------------------------------------------------------ */
/* helpers                                                             */

pm_error *pm_pk_read_skips_level0(const pm_schema *s, bool *out)
{
    bool dv = false, dv_mor = false;
    PM_TRY(pm_options_bool(s->options, PM_OPT_DELETION_VECTORS_ENABLED, &dv));
    PM_TRY(pm_options_bool(s->options, PM_OPT_DELETION_VECTORS_MERGE_ON_READ, &dv_mor));
    int engine = 0;
    PM_TRY(pm_options_enum(s->options, PM_OPT_MERGE_ENGINE, &engine));
    *out = dv ? !dv_mor : engine == PM_MERGE_FIRST_ROW;
    return NULL;
}

pm_error *pm_pk_read_lookup_merge(const pm_schema *s, bool *out)
{
    bool dv = false, force = false;
    int engine = 0, producer = 0;
    PM_TRY(pm_options_bool(s->options, PM_OPT_DELETION_VECTORS_ENABLED, &dv));
    PM_TRY(pm_options_bool(s->options, PM_OPT_FORCE_LOOKUP, &force));
    PM_TRY(pm_options_enum(s->options, PM_OPT_MERGE_ENGINE, &engine));
    PM_TRY(pm_options_enum(s->options, PM_OPT_CHANGELOG_PRODUCER, &producer));
    *out = engine != PM_MERGE_FIRST_ROW && (dv || force || producer == PM_CHANGELOG_LOOKUP);
    return NULL;
}

static bool no_delete_rows(const pm_data_file_meta *f)
{
    return f->delete_row_count.has && f->delete_row_count.v == 0;
}

static const pm_deletion_file *find_dv(const pm_bucket_files *b, size_t file)
{
    for (size_t i = 0; i < b->ndvs; i++)
        if (b->dvs[i].data_file == b->files[file].file_name ||
            !strcmp(b->dvs[i].data_file, b->files[file].file_name))
            return &b->dvs[i];
    return NULL;
}

static pm_error *load_dv(const pm_bucket_files *b, size_t file, pm_dv **out)
{
    *out = NULL;
    const pm_deletion_file *df = find_dv(b, file);
    if (!df)
        return NULL;
    return pm_error_wrap(pm_dv_index_read_one(b->table->fio, df->index_path, df->offset, df->length, out), 0,
                         "deletion vector of data file %s", df->data_file);
}

static pm_error *fresh_work(pm_column **slot, const pm_type *type)
{
    if (*slot && atomic_load(&(*slot)->refs) == 1) {
        pm_column_reset(*slot);
        return NULL;
    }
    pm_column_release(*slot);
    *slot = NULL;
    return pm_column_new(slot, type);
}

static pm_error *ensure_keep(uint8_t **keep, size_t *cap, int64_t n)
{
    size_t kb = (size_t)(n + 7) / 8;
    if (kb > *cap) {
        PM_TRY(pm_realloc_array(keep, kb, 1));
        *cap = kb;
    }
    memset(*keep, 0xff, kb);
    return NULL;
}

static int64_t count_kept(const uint8_t *keep, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += (keep[i >> 3] >> (i & 7)) & 1;
    return k;
}

/* ------------------------------------------------------------------ */
/* planning                                                            */

static pm_error *add_unit(pm_pk_reader *r, unit *u)
{
    PM_TRY(pm_realloc_array(&r->units, r->nunits + 1, sizeof *r->units));
    r->units[r->nunits++] = *u;
    return NULL;
}

static pm_error *add_raw(pm_pk_reader *r, size_t file)
{
    unit u = {UNIT_RAW, file, 0, NULL, NULL, NULL, NULL};
    return add_unit(r, &u);
}

static pm_error *plan_sections(pm_pk_reader *r, const size_t *idx, size_t n)
{
    const pm_bucket_files *b = r->b;
    pm_type *kt = NULL;
    PM_TRY(pm_schema_trimmed_primary_key_type(r->s, &kt));
    pm_lsm_file *lf = NULL;
    const pm_lsm_file **ptrs = NULL;
    pm_iv_partition part = {0};
    pm_buf kb = PM_BUF_INIT;
    pm_error *e = pm_calloc(&lf, n ? n : 1, sizeof *lf);
    if (!e)
        e = pm_calloc(&ptrs, n ? n : 1, sizeof *ptrs);
    for (size_t i = 0; !e && i < n; i++) {
        const pm_data_file_meta *f = &b->files[idx[i]];
        lf[i].meta = *f; /* shallow: only read by the partition */
        pm_buf_clear(&kb);
        e = pm_kv_normkey_from_binrow(kt, f->min_key.data, f->min_key.len, &kb);
        if (!e)
            e = pm_calloc(&lf[i].min_key, kb.len ? kb.len : 1, 1);
        if (!e) {
            memcpy(lf[i].min_key, kb.data, kb.len);
            lf[i].min_len = kb.len;
            pm_buf_clear(&kb);
            e = pm_kv_normkey_from_binrow(kt, f->max_key.data, f->max_key.len, &kb);
        }
        if (!e)
            e = pm_calloc(&lf[i].max_key, kb.len ? kb.len : 1, 1);
        if (!e) {
            memcpy(lf[i].max_key, kb.data, kb.len);
            lf[i].max_len = kb.len;
        }
        if (e)
            e = pm_error_wrap(e, PM_ECORRUPT, "key range of data file %s", f->file_name);
        ptrs[i] = &lf[i];
    }
    if (!e)
        e = pm_interval_partition(ptrs, n, &part);
    for (size_t s = 0; !e && s < part.nsections; s++) {
        const pm_iv_section *sec = &part.sections[s];
        if (sec->nruns == 1 && sec->runs[0].nfiles == 1) {
            e = add_raw(r, idx[sec->runs[0].files[0] - lf]);
            continue;
        }
        size_t total = 0;
        for (size_t k = 0; k < sec->nruns; k++)
            total += sec->runs[k].nfiles;
        /* lookup_merge: one run per (run, level), so every record's level
         * is its run's (a run may chain files of different levels) */
        unit u = {UNIT_MERGE, 0, 0, NULL, NULL, NULL, NULL};
        e = pm_calloc(&u.run_len, total, sizeof *u.run_len);
        if (!e)
            e = pm_calloc(&u.run_files, total, sizeof *u.run_files);
        if (!e && r->lookup_merge)
            e = pm_calloc(&u.run_level, total, sizeof *u.run_level);
        size_t p = 0;
        for (size_t k = 0; !e && k < sec->nruns; k++) {
            const pm_iv_run *run = &sec->runs[k];
            for (size_t j = 0; j < run->nfiles; j++) {
                int32_t lvl = run->files[j]->meta.level;
                bool seen = false;
                for (size_t i = 0; r->lookup_merge && i < j && !seen; i++)
                    seen = run->files[i]->meta.level == lvl;
                if (seen)
                    continue;
                size_t start = p;
                for (size_t i = j; i < run->nfiles; i++)
                    if (!r->lookup_merge || run->files[i]->meta.level == lvl)
                        u.run_files[p++] = idx[run->files[i] - lf];
                if (u.run_level)
                    u.run_level[u.nruns] = lvl;
                u.run_len[u.nruns++] = p - start;
                if (!r->lookup_merge)
                    break;
            }
        }
        if (!e && r->lookup_merge && u.nruns > PM_MERGE_MAX_FAN_IN)
            e = pm_error_new(PM_EUNSUPPORTED, "merge-on-read of %zu overlapping sorted runs (more than %d) of a "
                             "table that needs lookup (changelog-producer=lookup, deletion vectors or "
                             "force-lookup) is not supported; compact the bucket", u.nruns, PM_MERGE_MAX_FAN_IN);
        if (!e)
            e = add_unit(r, &u);
        if (e) {
            free(u.run_len);
            free(u.run_files);
            free(u.run_level);
        }
    }
    pm_iv_partition_clear(&part);
    for (size_t i = 0; lf && i < n; i++) {
        free(lf[i].min_key);
        free(lf[i].max_key);
    }
    free(lf);
    free(ptrs);
    pm_buf_free(&kb);
    pm_type_free(kt);
    return e;
}

/* Read type of merged files, system type, layouts, merge function. */
static pm_error *merge_setup(pm_pk_reader *r)
{
    const pm_schema *s = r->s;
    const pm_type *rt = s->row_type;
    pm_merge_fn_options mo = {PM_MERGE_REDUCE, false};
    PM_TRY(pm_merge_fn_new(&r->mf, rt, (const char *const *)s->primary_keys.items, s->primary_keys.count, s->options,
                           &mo));
    pm_merge_kind kind = pm_merge_fn_kind(r->mf);
    r->engine = kind;
    if (r->lookup_merge) {
        pm_merge_fn_options fo = {PM_MERGE_FULL, false};
        PM_TRY(pm_merge_fn_new(&r->mf_full, rt, (const char *const *)s->primary_keys.items, s->primary_keys.count,
                               s->options, &fo));
    }
    PM_TRY(pm_options_bool(s->options, PM_OPT_IGNORE_DELETE, &r->ignore_delete));
    bool all = kind == PM_ENGINE_PARTIAL_UPDATE || kind == PM_ENGINE_AGGREGATION;
    size_t nf = rt->nfields;
    bool *need = NULL;
    PM_TRY(pm_calloc(&need, nf ? nf : 1, sizeof *need));
    pm_str_list keys = {0};
    pm_error *e = pm_schema_trimmed_primary_keys(s, &keys);
    size_t nseq = 0;
    bool desc = false;
    const size_t *seqf = pm_merge_fn_seq_fields(r->mf, &nseq, &desc);
    for (size_t i = 0; !e && i < nf; i++) {
        need[i] = all || pm_type_field_index_by_id(r->out_type, rt->fields[i].id) >= 0;
        for (size_t k = 0; k < keys.count; k++)
            if (!strcmp(keys.items[k], rt->fields[i].name))
                need[i] = true;
    }
    for (size_t i = 0; !e && i < nseq; i++)
        need[seqf[i]] = true;
    /* mtype: the needed fields in schema order */
    ptrdiff_t *pos = NULL;
    if (!e)
        e = pm_calloc(&pos, nf ? nf : 1, sizeof *pos);
    if (!e) {
        r->mtype = pm_type_new_row(false);
        r->msys = pm_type_new_row(false);
        if (!r->mtype || !r->msys)
            e = pm_oom();
    }
    if (!e) {
        pm_type *seq = pm_type_new(PM_TYPE_BIGINT, false);
        e = seq ? pm_type_add_field(r->msys, SEQ_ID, "_SEQUENCE_NUMBER", seq) : pm_oom();
        if (e)
            pm_type_free(seq);
    }
    if (!e) {
        pm_type *kd = pm_type_new(PM_TYPE_TINYINT, false);
        e = kd ? pm_type_add_field(r->msys, KIND_ID, "_VALUE_KIND", kd) : pm_oom();
        if (e)
            pm_type_free(kd);
    }
    size_t m = 0;
    for (size_t i = 0; !e && i < nf; i++) {
        pos[i] = -1;
        if (!need[i])
            continue;
        const pm_field *f = &rt->fields[i];
        pm_type *a = pm_type_clone(f->type), *c = pm_type_clone(f->type);
        if (!a || !c) {
            pm_type_free(a);
            pm_type_free(c);
            e = pm_oom();
            break;
        }
        e = pm_type_add_field(r->mtype, f->id, f->name, a);
        if (e) {
            pm_type_free(a);
            pm_type_free(c);
            break;
        }
        e = pm_type_add_field(r->msys, f->id, f->name, c);
        if (e) {
            pm_type_free(c);
            break;
        }
        pos[i] = (ptrdiff_t)m++;
    }
    /* input layout over msys */
    size_t *kc = NULL, *vc = NULL, *sc = NULL, *oc = NULL;
    if (!e)
        e = pm_calloc(&kc, keys.count ? keys.count : 1, sizeof *kc);
    if (!e)
        e = pm_calloc(&vc, nf ? nf : 1, sizeof *vc);
    if (!e)
        e = pm_calloc(&oc, nf ? nf : 1, sizeof *oc);
    if (!e)
        e = pm_calloc(&sc, nseq ? nseq : 1, sizeof *sc);
    for (size_t k = 0; !e && k < keys.count; k++) {
        ptrdiff_t f = pm_type_field_index(rt, keys.items[k]);
        if (f < 0 || pos[f] < 0)
            e = pm_error_new(PM_EINTERNAL, "primary key '%s' missing from the merge read type", keys.items[k]);
        else
            kc[k] = 2 + (size_t)pos[f];
    }
    for (size_t i = 0; !e && i < nf; i++) {
        vc[i] = pos[i] >= 0 ? 2 + (size_t)pos[i] : 0; /* unread fields: placeholder (deduplicate, first-row) */
        ptrdiff_t o = pm_type_field_index_by_id(r->out_type, rt->fields[i].id);
        oc[i] = o >= 0 ? (size_t)o : SIZE_MAX;
    }
    for (size_t i = 0; !e && i < nseq; i++)
        sc[i] = 2 + (size_t)pos[seqf[i]];
    if (!e)
        e = pm_kv_layout_init(&r->in_layout, kc, keys.count, 0, 1, vc, nf);
    if (!e && nseq)
        e = pm_kv_layout_set_seq_fields(&r->in_layout, sc, nseq, desc);
    if (!e)
        e = pm_kv_layout_check(&r->in_layout, r->msys);
    if (!e)
        e = pm_kv_layout_init(&r->out_layout, NULL, 0, SIZE_MAX, SIZE_MAX, oc, nf);
    size_t no = r->out_type->nfields;
    if (!e)
        e = pm_calloc(&r->src_col, no ? no : 1, sizeof *r->src_col);
    if (!e)
        e = pm_calloc(&r->pend, no ? no : 1, sizeof *r->pend);
    for (size_t i = 0; !e && i < no; i++) {
        ptrdiff_t f = pm_type_field_index_by_id(rt, r->out_type->fields[i].id);
        if (f < 0 || pos[f] < 0)
            e = pm_error_new(PM_EINTERNAL, "output field '%s' missing from the merge read type",
                             r->out_type->fields[i].name);
        else
            r->src_col[i] = 2 + (size_t)pos[f];
    }
    free(kc);
    free(vc);
    free(sc);
    free(oc);
    free(pos);
    free(need);
    pm_str_list_free(&keys);
    return e;
}

static pm_error *plan(pm_pk_reader *r)
{
    const pm_bucket_files *b = r->b;
    if (b->bucket == PM_BUCKET_POSTPONE || !b->nfiles)
        return NULL; /* the postpone bucket is not visible to batch reads */
    bool skip_l0 = false;
    PM_TRY(pm_pk_read_skips_level0(r->s, &skip_l0));
    PM_TRY(pm_pk_read_lookup_merge(r->s, &r->lookup_merge));
    size_t *idx = NULL;
    PM_TRY(pm_calloc(&idx, b->nfiles, sizeof *idx));
    size_t n = 0;
    bool raw_all = skip_l0;
    for (size_t i = 0; i < b->nfiles; i++) {
        if (skip_l0 && b->files[i].level == 0)
            continue;
        idx[n++] = i;
        if (!no_delete_rows(&b->files[i]))
            raw_all = false;
    }
    pm_error *e = NULL;
    if (raw_all) {
        for (size_t i = 0; !e && i < n; i++)
            e = add_raw(r, idx[i]);
    } else if (n) {
        e = plan_sections(r, idx, n);
    }
    free(idx);
    bool merges = false;
    for (size_t i = 0; i < r->nunits; i++)
        merges |= r->units[i].kind == UNIT_MERGE;
    if (!e && merges)
        e = merge_setup(r);
    return e;
}

/* ------------------------------------------------------------------ */
/* run sources                                                         */

typedef struct run_src {
    pm_pk_reader *r;
    const size_t *files;
    size_t nfiles, next;
    pm_file_reader *fr;
    pm_dv *dv;
    uint8_t *keep;
    size_t keep_cap;
    /* prefetch on the reader's pool: up to PREFETCH batches decoded ahead
     * by a job that keeps reading until the queue is full */
    bool async;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pm_batch *q[PREFETCH];
    int head, count;
    bool running, eof, closing;
    pm_error *err;
} run_src;

static void run_close_file(run_src *s)
{
    pm_file_reader_free(s->fr);
    s->fr = NULL;
    pm_dv_free(s->dv);
    s->dv = NULL;
}

static pm_error *run_read(run_src *s, pm_batch **out)
{
    pm_pk_reader *r = s->r;
    *out = NULL;
    for (;;) {
        if (!s->fr) {
            if (s->next >= s->nfiles)
                return NULL;
            size_t f = s->files[s->next++];
            pm_file_read_options fo = {r->mtype, r->batch_rows, true, NULL};
            PM_TRY(pm_file_reader_open(&s->fr, r->b->table, r->dir, &r->b->files[f], &fo));
            PM_TRY(load_dv(r->b, f, &s->dv));
        }
        const pm_batch *b = NULL;
        PM_TRY(pm_file_reader_next(s->fr, &b));
        if (!b) {
            run_close_file(s);
            continue;
        }
        int64_t n = b->num_rows;
        if (!n)
            continue;
        if (!s->dv)
            return pm_kv_batch_share(b, out);
        PM_TRY(ensure_keep(&s->keep, &s->keep_cap, n));
        pm_dv_clear_deleted(s->dv, pm_file_reader_position(s->fr), n, s->keep, NULL);
        int64_t kept = count_kept(s->keep, n);
        if (!kept)
            continue;
        if (kept == n)
            return pm_kv_batch_share(b, out);
        pm_batch *c = NULL;
        PM_TRY(pm_batch_new(&c, b->type));
        pm_error *e = NULL;
        for (size_t col = 0; col < b->ncolumns && !e; col++) {
            e = pm_column_reserve(c->columns[col], kept);
            for (int64_t i = 0; i < n && !e; i++)
                if ((s->keep[i >> 3] >> (i & 7)) & 1)
                    e = pm_column_append_from(c->columns[col], b->columns[col], i);
        }
        if (!e)
            e = pm_batch_finish(c, kept);
        if (e) {
            pm_batch_free(c);
            return e;
        }
        *out = c;
        return NULL;
    }
}

static void run_job(void *arg)
{
    run_src *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (s->closing || s->eof || s->err || s->count == PREFETCH)
            break;
        pthread_mutex_unlock(&s->mu);
        pm_batch *b = NULL;
        pm_error *e = run_read(s, &b);
        pthread_mutex_lock(&s->mu);
        if (e)
            s->err = e;
        else if (!b)
            s->eof = true;
        else
            s->q[(s->head + s->count++) % PREFETCH] = b;
        pthread_cond_broadcast(&s->cv);
    }
    s->running = false;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* Start the read-ahead job if it is not running; called with s->mu held,
 * returns with it held. */
static pm_error *run_kick(run_src *s)
{
    if (s->running || s->eof || s->err || s->closing || s->count == PREFETCH)
        return NULL;
    s->running = true;
    pthread_mutex_unlock(&s->mu);
    pm_error *e = pm_pool_submit(s->r->pool, NULL, run_job, s);
    pthread_mutex_lock(&s->mu);
    if (e)
        s->running = false;
    return e;
}

/* The next batch from the read-ahead queue (waiting for the job when the
 * queue is empty), or read right here without a pool. */
static pm_error *run_next(void *ctx, pm_batch **out)
{
    run_src *s = ctx;
    *out = NULL;
    if (!s->async)
        return run_read(s, out);
    pthread_mutex_lock(&s->mu);
    pm_error *e = NULL;
    while (!s->count && !s->eof && !s->err) {
        e = run_kick(s);
        if (e)
            break;
        if (s->running)
            pthread_cond_wait(&s->cv, &s->mu);
    }
    if (!e && s->count) {
        *out = s->q[s->head];
        s->q[s->head] = NULL;
        s->head = (s->head + 1) % PREFETCH;
        s->count--;
        e = run_kick(s);
    } else if (!e && s->err) {
        e = s->err;
        s->err = NULL;
        s->eof = true;
    }
    pthread_mutex_unlock(&s->mu);
    return e;
}

static void run_close(void *ctx)
{
    run_src *s = ctx;
    if (s->async) {
        pthread_mutex_lock(&s->mu);
        s->closing = true;
        while (s->running)
            pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
        for (int i = 0; i < s->count; i++)
            pm_batch_free(s->q[(s->head + i) % PREFETCH]);
        pm_error_free(s->err);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    run_close_file(s);
    free(s->keep);
    free(s);
}

/* ------------------------------------------------------------------ */
/* reading                                                             */

static void close_unit(pm_pk_reader *r)
{
    pm_file_reader_free(r->fr);
    r->fr = NULL;
    pm_dv_free(r->dv);
    r->dv = NULL;
    pm_merge_reader_free(r->mr);
    r->mr = NULL;
    r->cur = NULL;
}

static pm_error *open_unit(pm_pk_reader *r, const unit *u)
{
    r->cur = u;
    if (!r->dir)
        PM_TRY(pm_table_bucket_dir(r->b->table, r->b->partition.data, r->b->partition.len, r->b->bucket, &r->dir));
    if (u->kind == UNIT_RAW) {
        pm_file_read_options fo = {r->out_type, r->batch_rows, true, NULL};
        PM_TRY(pm_file_reader_open(&r->fr, r->b->table, r->dir, &r->b->files[u->file], &fo));
        PM_TRY(load_dv(r->b, u->file, &r->dv));
        r->stats.raw_files++;
        return NULL;
    }
    pm_kv_source *srcs = NULL;
    PM_TRY(pm_calloc(&srcs, u->nruns, sizeof *srcs));
    pm_error *e = NULL;
    size_t p = 0, made = 0;
    for (size_t k = 0; k < u->nruns && !e; k++) {
        run_src *s = NULL;
        e = pm_calloc(&s, 1, sizeof *s);
        if (e)
            break;
        s->r = r;
        s->files = u->run_files + p;
        s->nfiles = u->run_len[k];
        p += u->run_len[k];
        srcs[k].ctx = s;
        srcs[k].next = run_next;
        srcs[k].close = run_close;
        srcs[k].memory = NULL;
        made++;
    }
    /* several runs (at most PREFETCH_MAX_RUNS): decode them ahead on a
     * small pool (the merge itself stays on this thread); all first
     * batches start decoding at once */
    if (!e && u->nruns > 1 && u->nruns <= PREFETCH_MAX_RUNS && !r->pool && pm_cpu_count() > 1) {
        size_t threads = pm_cpu_count() < 4 ? pm_cpu_count() : 4;
        pm_error *pe = pm_pool_new(&r->pool, threads);
        if (pe) {
            pm_error_free(pe); /* read synchronously */
            r->pool = NULL;
        }
    }
    for (size_t k = 0; !e && r->pool && u->nruns <= PREFETCH_MAX_RUNS && k < made; k++) {
        run_src *s = srcs[k].ctx;
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv, NULL);
        s->async = true;
        pthread_mutex_lock(&s->mu);
        e = run_kick(s);
        pthread_mutex_unlock(&s->mu);
    }
    const pm_kv_spill *ops = NULL;
    if (!e && u->nruns > PM_MERGE_MAX_FAN_IN) {
        if (!r->spill)
            e = pm_pk_spill_new(&r->spill, NULL);
        if (!e)
            e = pm_pk_spill_callbacks(r->spill, &ops);
    }
    if (e) {
        for (size_t k = 0; k < made; k++)
            srcs[k].close(srcs[k].ctx);
        free(srcs);
        return e;
    }
    pm_merge_options mo = {r->msys, &r->in_layout, 0, ops, r->batch_rows};
    e = pm_merge_reader_new(&r->mr, srcs, u->nruns, &mo);
    free(srcs);
    if (!e) {
        r->stats.merged_sections++;
        r->stats.merged_files += (int64_t)p;
    }
    return e;
}

static void release_out(pm_pk_reader *r)
{
    for (size_t i = 0; i < r->out->ncolumns; i++) {
        pm_column_release(r->out->columns[i]);
        r->out->columns[i] = NULL;
    }
    r->out->num_rows = 0;
}

/* A raw unit's next non-empty batch into r->out; *got = false at its end. */
static pm_error *raw_next(pm_pk_reader *r, bool *got)
{
    *got = false;
    size_t nf = r->out_type->nfields;
    for (;;) {
        const pm_batch *b = NULL;
        PM_TRY(pm_file_reader_next(r->fr, &b));
        if (!b)
            return NULL;
        int64_t n = b->num_rows;
        if (!n)
            continue;
        PM_TRY(ensure_keep(&r->keep, &r->keep_cap, n));
        if (r->dv)
            pm_dv_clear_deleted(r->dv, pm_file_reader_position(r->fr), n, r->keep, NULL);
        if (r->cur->rows) { /* global index: other positions cannot match the filter */
            int64_t at = pm_file_reader_position(r->fr);
            for (int64_t i = 0; i < n; i++)
                if (!roaring_bitmap_contains(r->cur->rows, (uint32_t)(at + i)))
                    r->keep[i >> 3] &= (uint8_t)~(1u << (i & 7));
        }
        const pm_column *kind = b->columns[1];
        for (int64_t i = 0; i < n; i++)
            if (pm_kind_is_retract((uint8_t)pm_column_i8(kind, i)))
                r->keep[i >> 3] &= (uint8_t)~(1u << (i & 7));
        int64_t kept = count_kept(r->keep, n);
        if (!kept)
            continue;
        for (size_t i = 0; i < nf; i++) {
            pm_column *src = b->columns[2 + i];
            if (kept == n) {
                r->out->columns[i] = pm_column_retain(src);
                continue;
            }
            PM_TRY(fresh_work(&r->work[i], r->out_type->fields[i].type));
            PM_TRY(pm_column_reserve(r->work[i], kept));
            for (int64_t k = 0; k < n; k++)
                if ((r->keep[k >> 3] >> (k & 7)) & 1)
                    PM_TRY(pm_column_append_from(r->work[i], src, k));
            r->out->columns[i] = pm_column_retain(r->work[i]);
        }
        r->out->num_rows = kept;
        *got = true;
        return NULL;
    }
}

static void pend_release(pm_pk_reader *r)
{
    for (size_t i = 0; i < r->out_type->nfields; i++) {
        pm_column_release(r->pend[i]);
        r->pend[i] = NULL;
    }
    pm_column_release(r->pend_kind);
    r->pend_kind = NULL;
    r->pend_len = 0;
}

/* Copy the pending range to the output columns. */
static pm_error *pend_flush(pm_pk_reader *r)
{
    if (!r->pend_len)
        return NULL;
    pm_error *e = NULL;
    for (size_t i = 0; i < r->out_type->nfields && !e; i++)
        e = pm_pk_append_range(r->work[i], r->pend[i], r->pend_start, r->pend_len);
    pend_release(r);
    return e;
}

/* Add one pass-through record to the pending range (a new range when it
 * does not follow the current one in the same batch). */
static pm_error *pend_add(pm_pk_reader *r, const pm_kv_rec *rec)
{
    pm_column *kind = rec->batch->columns[1];
    if (r->pend_len && (kind != r->pend_kind || rec->row != r->pend_start + r->pend_len))
        PM_TRY(pend_flush(r));
    if (!r->pend_len) {
        for (size_t i = 0; i < r->out_type->nfields; i++)
            r->pend[i] = pm_column_retain(rec->batch->columns[r->src_col[i]]);
        r->pend_kind = pm_column_retain(kind);
        r->pend_start = rec->row;
    }
    r->pend_len++;
    return NULL;
}

/* The record a group reduces to when the merge keeps one input record as
 * it is (a single record in reducer mode; the last one for deduplicate),
 * NULL when the merge function must fold; *none = nothing to keep. */
static const pm_kv_rec *pass_through(const pm_pk_reader *r, const pm_kv_group *g, bool *none)
{
    *none = false;
    if (g->n == 1)
        return &g->recs[0];
    if (r->engine != PM_ENGINE_DEDUPLICATE)
        return NULL;
    for (size_t j = g->n; j-- > 0;)
        if (!(r->ignore_delete && pm_kind_is_retract(g->recs[j].kind)))
            return &g->recs[j];
    *none = true;
    return NULL;
}

/* Up to batch_rows merged rows into r->out; *got = false when the unit
 * is exhausted without a row.  Records kept unchanged are copied as
 * ranges; folded results are emitted into the same columns in order. */
static pm_error *merge_next(pm_pk_reader *r, bool *got)
{
    *got = false;
    size_t nf = r->out_type->nfields;
    for (size_t i = 0; i < nf; i++)
        PM_TRY(fresh_work(&r->work[i], r->out_type->fields[i].type));
    pm_batch emit = {.type = r->out_type, .num_rows = 0, .ncolumns = nf, .columns = r->work};
    int64_t rows = 0;
    pm_error *e = NULL;
    while (rows < r->batch_rows) {
        pm_kv_group g;
        bool eof = false;
        /* the next call may release the batches pending rows live in:
         * the pending columns are retained, so they stay valid */
        PM_TRY_GOTO(e, pm_merge_reader_next(r->mr, &g, &eof), fail);
        if (eof)
            break;
        pm_merge_fn *mf = r->mf;
        if (r->lookup_merge && g.n > 1) {
            /* LookupMergeFunction: level-0 records and the lowest positive
             * level's, merged in full mode */
            if (g.n > r->pick_cap) {
                PM_TRY_GOTO(e, pm_realloc_array(&r->pick, g.n, sizeof *r->pick), fail);
                r->pick_cap = g.n;
            }
            g.n = pm_merge_lookup_pick(g.recs, g.n, r->cur->run_level, r->cur->nruns, r->pick);
            g.recs = r->pick;
            mf = r->mf_full;
        }
        bool none = false;
        const pm_kv_rec *pt = mf == r->mf ? pass_through(r, &g, &none) : NULL;
        if (none)
            continue;
        if (pt) {
            if (pm_kind_is_retract(pt->kind))
                continue;
            PM_TRY_GOTO(e, pend_add(r, pt), fail);
            rows++;
            continue;
        }
        pm_merge_result res;
        PM_TRY_GOTO(e, pm_merge_fn_fold(mf, &r->in_layout, g.recs, g.n, &res), fail);
        if (!res.has || pm_kind_is_retract(res.kind))
            continue;
        PM_TRY_GOTO(e, pend_flush(r), fail);
        PM_TRY_GOTO(e, pm_merge_fn_emit(mf, &emit, &r->out_layout), fail);
        rows++;
    }
    PM_TRY_GOTO(e, pend_flush(r), fail);
    if (!rows)
        return NULL;
    for (size_t i = 0; i < nf; i++) {
        if (r->work[i]->length != rows)
            return pm_error_new(PM_EINTERNAL, "merge output column '%s' has %lld rows, expected %lld",
                                r->out_type->fields[i].name, (long long)r->work[i]->length, (long long)rows);
        r->out->columns[i] = pm_column_retain(r->work[i]);
    }
    r->out->num_rows = rows;
    *got = true;
    return NULL;
fail:
    pend_release(r);
    return e;
}

pm_error *pm_pk_reader_next(pm_pk_reader *r, const pm_batch **out)
{
    *out = NULL;
    release_out(r);
    for (;;) {
        if (!r->cur) {
            if (r->next_unit >= r->nunits)
                return NULL;
            PM_TRY(open_unit(r, &r->units[r->next_unit++]));
        }
        bool got = false;
        pm_error *e = r->cur->kind == UNIT_RAW ? raw_next(r, &got) : merge_next(r, &got);
        if (e) {
            pm_buf p = PM_BUF_INIT;
            pm_error_free(pm_partition_display(r->b->table, r->b->partition.data, r->b->partition.len, &p));
            e = pm_error_wrap(e, 0, "partition '%.*s', bucket %d", (int)p.len, p.data ? (const char *)p.data : "",
                              (int)r->b->bucket);
            pm_buf_free(&p);
            return e;
        }
        if (got) {
            *out = r->out;
            return NULL;
        }
        close_unit(r);
    }
}

pm_error *pm_pk_reader_new(pm_pk_reader **out, const pm_bucket_files *b, const pm_schema *s,
                           const pm_type *read_type, int64_t batch_rows)
{
    *out = NULL;
    pm_pk_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->b = b;
    r->t = b->table;
    r->s = s;
    r->batch_rows = batch_rows > 0 ? batch_rows : 4096;
    pm_error *e = NULL;
    r->out_type = pm_type_clone(read_type);
    if (!r->out_type)
        PM_TRY_GOTO(e, pm_oom(), fail);
    PM_TRY_GOTO(e, pm_batch_new(&r->out, r->out_type), fail);
    PM_TRY_GOTO(e, pm_calloc(&r->work, r->out_type->nfields ? r->out_type->nfields : 1, sizeof *r->work), fail);
    release_out(r);
    PM_TRY_GOTO(e, plan(r), fail);
    *out = r;
    return NULL;
fail:
    pm_pk_reader_free(r);
    return e;
}

void pm_pk_reader_stats(const pm_pk_reader *r, pm_pk_read_stats *out) { *out = r->stats; }

/* Can a merged section whose files hold no matching row yield one?  Not
 * with deduplicate or first-row: a merged row is one of its records. */
static pm_error *merge_keeps_records(const pm_schema *s, bool *out)
{
    int engine = 0;
    PM_TRY(pm_options_enum(s->options, PM_OPT_MERGE_ENGINE, &engine));
    *out = engine == PM_MERGE_DEDUPLICATE || engine == PM_MERGE_FIRST_ROW;
    return NULL;
}

pm_error *pm_pk_reader_use_index(pm_pk_reader *r, pm_pk_gi_hits *h)
{
    if (!h)
        return NULL;
    if (r->hits || r->next_unit || r->cur || h->nfiles != r->b->nfiles) {
        pm_pk_gi_hits_free(h);
        return pm_error_new(PM_EINVALID, "global index positions for another bucket or a reader already reading");
    }
    r->hits = h;
    bool records = false;
    PM_TRY(merge_keeps_records(r->s, &records));
    size_t k = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        unit *u = &r->units[i];
        bool none = false;
        if (u->kind == UNIT_RAW) {
            u->rows = h->rows[u->file];
            none = u->rows && roaring_bitmap_is_empty(u->rows);
        } else if (records) {
            size_t total = 0;
            for (size_t j = 0; j < u->nruns; j++)
                total += u->run_len[j];
            none = true;
            for (size_t j = 0; j < total && none; j++) {
                const roaring_bitmap_t *b = h->rows[u->run_files[j]];
                none = b && roaring_bitmap_is_empty(b);
            }
            if (none)
                r->stats.index_skipped_files += (int64_t)total;
        }
        if (none && u->kind == UNIT_RAW)
            r->stats.index_skipped_files++;
        if (none) {
            free(u->run_len);
            free(u->run_files);
            free(u->run_level);
            continue;
        }
        r->units[k++] = *u;
    }
    r->nunits = k;
    return NULL;
}

void pm_pk_reader_free(pm_pk_reader *r)
{
    if (!r)
        return;
    close_unit(r);
    for (size_t i = 0; i < r->nunits; i++) {
        free(r->units[i].run_len);
        free(r->units[i].run_files);
        free(r->units[i].run_level);
    }
    free(r->units);
    pm_pk_gi_hits_free(r->hits);
    free(r->pick);
    pm_merge_fn_free(r->mf_full);
    if (r->out) {
        release_out(r);
        pm_batch_free(r->out);
    }
    if (r->work)
        for (size_t i = 0; i < r->out_type->nfields; i++)
            pm_column_release(r->work[i]);
    free(r->work);
    free(r->keep);
    if (r->pend)
        pend_release(r);
    free(r->pend);
    free(r->src_col);
    pm_merge_fn_free(r->mf);
    pm_kv_layout_clear(&r->in_layout);
    pm_kv_layout_clear(&r->out_layout);
    pm_type_free(r->mtype);
    pm_type_free(r->msys);
    pm_pk_spill_free(r->spill);
    pm_pool_free(r->pool);
    pm_type_free(r->out_type);
    free(r->dir);
    free(r);
}
