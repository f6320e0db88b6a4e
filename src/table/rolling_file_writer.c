/*
 * table/rolling_file_writer.c — RollingFileWriter (contract in
 * rolling_file_writer.h) and the steps it is made of.
 *
 * State: the writer's settings (derived once in _new: Parquet options from
 * the options with the compression override, Avro codec, per-column stats
 * modes, dense store, the data-file namer), the open file (name, path,
 * output, format writer or raw body, Avro accumulators, rows, sequence
 * range, delete count, first / last key), the finished files and the
 * counters (rows of the writer = records for the 1000-record check, the
 * next sequence number, bytes closed).
 * Write: the input's file columns (the key-value layout's from
 * file_offset) form a batch view; each step takes at most what the file
 * may still hold and, with PM_ROLL_CHECK_RECORDS near the target size
 * (raw bytes of the input, doubled, would reach it), stops at the next
 * 1000th record; the range goes to the format writer as a zero-copy view
 * or a copy; the key-value layout first takes its first / last key and
 * sequence / kind counts from the input columns; then the roll check
 * (the size check waits while a Parquet file has rows of a lazy page
 * offer to come: pm_pq_writer_lazy_pending; such offers are not taken when
 * the page's rows would pass target_rows).
 */
#include "table/rolling_file_writer.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fault.h"
#include "base/mem.h"
#include "base/util.h"
#include "index/file_index.h"
#include "meta/paths.h"
#include "types/binary_row.h"
#include "types/column.h"

#define ROLL_CHECK_ROWS 1000
#define MIN_ROW_GROUP (4 << 20)

/* ------------------------------------------------------------------ */
/* the steps                                                           */

pm_error *pm_roll_avro_codec(const pm_options *o, const char *compression, pm_avro_write_options *out)
{
    memset(out, 0, sizeof *out);
    int32_t level = 1;
    PM_TRY(pm_options_int(o, PM_OPT_FILE_COMPRESSION_ZSTD_LEVEL, NULL, &level));
    const char *name = pm_options_get(o, "avro.codec");
    const char *which = "avro.codec";
    if (!name) {
        name = compression;
        if (!name)
            PM_TRY(pm_options_string(o, PM_OPT_FILE_COMPRESSION, &name));
        which = "file.compression";
        if (!strcasecmp(name, "zstd")) {
            out->codec = PM_CODEC_ZSTD;
            out->level = level;
            return NULL;
        }
    }
    if (!strcmp(name, "null") || !strcasecmp(name, "none") || !strcasecmp(name, "uncompressed")) {
        out->codec = PM_CODEC_NONE;
    } else if (!strcmp(name, "deflate")) {
        out->codec = PM_CODEC_DEFLATE;
    } else if (!strcmp(name, "snappy")) {
        out->codec = PM_CODEC_SNAPPY;
    } else if (!strcmp(name, "zstandard")) {
        out->codec = PM_CODEC_ZSTD;
        out->level = 3; /* Avro's zstandard default */
    } else {
        return pm_error_new(PM_EUNSUPPORTED, "%s=%s is not an Avro codec paimon-c writes "
                                             "(null, deflate, snappy, zstandard, zstd)", which, name);
    }
    return NULL;
}

pm_error *pm_roll_copy_range(pm_batch *dst, const pm_batch *b, int64_t from, int64_t to)
{
    PM_TRY(pm_batch_reset(dst));
    for (size_t c = 0; c < b->ncolumns; c++) {
        pm_column *d = dst->columns[c];
        PM_TRY(pm_column_reserve(d, to - from));
        for (int64_t r = from; r < to; r++)
            PM_TRY(pm_column_append_from(d, b->columns[c], r));
    }
    return pm_batch_finish(dst, to - from);
}

uint64_t pm_roll_raw_bytes(const pm_batch *b)
{
    uint64_t n = 0;
    for (size_t c = 0; c < b->ncolumns; c++) {
        const pm_column *col = b->columns[c];
        n += col->values.len + col->data.len + col->offsets.len + col->validity.len;
        for (size_t k = 0; k < col->nchildren; k++)
            n += col->children[k]->values.len + col->children[k]->data.len;
    }
    return n;
}

bool pm_roll_viewable(const pm_batch *b)
{
    for (size_t c = 0; c < b->ncolumns; c++)
        if (b->columns[c]->nchildren || pm_type_is_nested(b->columns[c]->type))
            return false;
    return true;
}

static int64_t count_nulls(const uint8_t *bm, int64_t from, int64_t n)
{
    int64_t valid = 0;
    for (int64_t i = from; i < from + n; i++)
        valid += (bm[i >> 3] >> (i & 7)) & 1;
    return n - valid;
}

/* Fixed-width values (and dictionary ids) and offsets by pointer
 * arithmetic (offsets stay absolute into the same data buffer), bitmaps
 * from byte from / 8. */
static void column_view(pm_column *v, const pm_column *c, int64_t from, int64_t n)
{
    memset(v, 0, sizeof *v);
    v->type = c->type;
    v->length = n;
    atomic_init(&v->refs, 1);
    if (c->null_count && c->validity.len) {
        v->validity.data = c->validity.data + from / 8;
        v->validity.len = (size_t)(n + 7) / 8;
        v->null_count = count_nulls(c->validity.data, from, n);
    }
    int width = pm_type_value_width(c->type);
    if (c->dictionary) {
        /* dictionary ids; the dictionary borrowed (a view holds no reference) */
        v->dictionary = c->dictionary;
        v->values.data = c->values.data + (size_t)from * 4;
        v->values.len = (size_t)n * 4;
    } else if (width) {
        v->values.data = c->values.data + (size_t)from * (size_t)width;
        v->values.len = (size_t)n * (size_t)width;
    } else if (c->type->id == PM_TYPE_BOOLEAN) {
        v->values.data = c->values.data + from / 8;
        v->values.len = (size_t)(n + 7) / 8;
    } else {
        v->offsets.data = c->offsets.data + (size_t)from * 4;
        v->offsets.len = (size_t)(n + 1) * 4;
        v->data = c->data;
        v->data.cap = 0;
    }
}

void pm_roll_batch_view(pm_batch *v, pm_column *cols, pm_column **ptrs, const pm_batch *b, int64_t from, int64_t n)
{
    for (size_t c = 0; c < b->ncolumns; c++) {
        column_view(&cols[c], b->columns[c], from, n);
        ptrs[c] = &cols[c];
    }
    v->type = b->type;
    v->num_rows = n;
    v->ncolumns = b->ncolumns;
    v->columns = ptrs;
}

pm_error *pm_roll_col_stats(const pm_type *type, const pm_stats_mode *modes, bool disabled, pm_stats_accum *accs,
                            const pm_pq_write_result *res, const pm_orc_write_result *orc, pm_col_stats **out)
{
    size_t nf = type->nfields;
    pm_col_stats *cs;
    PM_TRY(pm_calloc(&cs, nf ? nf : 1, sizeof *cs));
    pm_error *e = NULL;
    for (size_t i = 0; i < nf && !e; i++) {
        if (disabled)
            continue; /* NONE */
        if (accs)
            pm_stats_accum_result(&accs[i], &cs[i]);
        else if (orc && i < orc->ncolumns)
            e = pm_col_stats_from_orc(type->fields[i].type, modes[i], &orc->stats[i], &cs[i]);
        else if (res && i < res->ncolumns)
            e = pm_col_stats_from_parquet(type->fields[i].type, modes[i], &res->stats[i], &cs[i]);
    }
    if (e) {
        for (size_t i = 0; i < nf; i++)
            pm_col_stats_clear(&cs[i]);
        free(cs);
        return e;
    }
    *out = cs;
    return NULL;
}

static const uint8_t EMPTY_ROW_SER[12] = {0};

pm_error *pm_roll_empty_keys(pm_data_file_meta *m)
{
    PM_TRY(pm_bytes_set(&m->min_key, EMPTY_ROW_SER, sizeof EMPTY_ROW_SER));
    PM_TRY(pm_bytes_set(&m->max_key, EMPTY_ROW_SER, sizeof EMPTY_ROW_SER));
    return pm_simple_stats_empty(&m->key_stats);
}

void pm_roll_stamp(pm_data_file_meta *m, int64_t deletes, pm_file_source source)
{
    m->creation_time.has = true;
    m->creation_time.v = pm_now_local_millis();
    m->delete_row_count.has = true;
    m->delete_row_count.v = deletes;
    m->file_source.has = true;
    m->file_source.v = source;
}

pm_error *pm_roll_push_file(pm_data_file_meta **arr, size_t *n, size_t *cap, const pm_data_file_meta *m)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 4;
        PM_TRY(pm_realloc_array(arr, c, sizeof **arr));
        *cap = c;
    }
    (*arr)[(*n)++] = *m;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* the writer                                                          */

typedef enum { BODY_PARQUET, BODY_AVRO, BODY_ORC, BODY_RAW } body_kind;

typedef struct open_file {
    char *name;
    char *path;
    pm_output *out;
    pm_pq_writer *pq;
    pm_avro_writer *avro;
    pm_orc_writer *orc;
    pm_fi_writer *fi;          /* the file's index (file-index.* options), or NULL */
    char *index_path;          /* its sidecar once written (deleted if the close fails) */
    pm_stats_accum *accs;      /* Avro: one per file column */
    bool raw_open;             /* the raw body holds state for this file */
    int64_t rows;
    int64_t min_seq, max_seq;
    int64_t deletes;
    pm_buf min_key, max_key;   /* key-value layout: serialized BinaryRows */
} open_file;

struct pm_rolling_file_writer {
    pm_rolling_file_writer_options o; /* strings point at the copies below */
    char *dir, *format, *compression, *what;
    bool has_kv;
    pm_rolling_kv_layout kv;
    pm_rolling_raw_body raw;
    body_kind body;
    int64_t pages_copied;         /* offered pages copied into closed files */
    int64_t pages_lazy;           /* of them offered lazily */
    size_t fncols;
    pm_stats_mode *modes;
    bool stats_disabled, dense;
    pm_pq_writer_options pq_opts;
    pm_avro_write_options avro_opts;
    pm_orc_writer_options orc_opts;
    char *orc_names;           /* strings orc_opts points at */
    pm_fi_options fi;          /* file indexes of data files (nspecs 0: none) */
    pm_data_file_namer namer;
    bool namer_ok;
    int64_t seq;               /* append layout: next sequence number */
    int64_t records;           /* rows written by the writer */
    int64_t bytes_done;
    pm_pool *pool;
    size_t threads;            /* 0: never set */
    bool *plain;               /* plain-source hints per file column (NULL = none) */
    bool open;
    open_file cur;
    pm_data_file_meta *done;
    size_t ndone, capdone;
    pm_batch *slice;           /* copies of row ranges (file columns) */
    pm_binrow_writer krow;
    size_t *key_idx;
};

typedef struct lookup_ctx {
    const pm_options *o;
    const char *compression;   /* replaces file.compression, or NULL */
} lookup_ctx;

static const char *opt_lookup(void *ctx, const char *key)
{
    const lookup_ctx *c = ctx;
    if (c->compression && !strcmp(key, "file.compression"))
        return c->compression;
    return pm_options_get(c->o, key);
}

static pm_error *writer_init(pm_rolling_file_writer *w, const pm_rolling_file_writer_options *o)
{
    w->o = *o;
    w->seq = o->start_seq;
    PM_TRY(pm_strdup(&w->dir, o->dir));
    PM_TRY(pm_strdup(&w->format, o->format ? o->format : ""));
    PM_TRY(pm_strdup(&w->compression, o->compression));
    PM_TRY(pm_strdup(&w->what, o->what ? o->what : "data file"));
    w->o.dir = w->dir;
    w->o.format = w->format;
    w->o.compression = w->compression;
    w->o.what = w->what;
    w->o.kv = NULL;
    w->o.raw = NULL;
    if (!o->value_type)
        w->o.value_type = o->file_type;
    if (o->target_size <= 0 || o->target_rows <= 0)
        return pm_error_new(PM_EINVALID, "%s writer: target size and row count must be positive", w->what);
    w->fncols = o->file_type->nfields;
    if (o->kv) {
        w->has_kv = true;
        w->kv = *o->kv;
        PM_TRY(pm_calloc(&w->key_idx, w->kv.nkey ? w->kv.nkey : 1, sizeof *w->key_idx));
        for (size_t i = 0; i < w->kv.nkey; i++)
            w->key_idx[i] = i;
    }
    lookup_ctx lc = {o->options, o->compression_override ? w->compression : NULL};
    if (o->raw) {
        w->raw = *o->raw;
        w->body = BODY_RAW;
    } else if (!strcmp(w->format, "parquet")) {
        w->body = BODY_PARQUET;
        pm_pq_writer_options_default(&w->pq_opts);
        PM_TRY(pm_pq_writer_options_from_table(&w->pq_opts, opt_lookup, &lc));
        w->pq_opts.buffers = o->buffers;
        if (o->row_group_limit > 0 && w->pq_opts.row_group_size > o->row_group_limit)
            w->pq_opts.row_group_size = o->row_group_limit;
    } else if (!strcmp(w->format, "avro")) {
        w->body = BODY_AVRO;
        PM_TRY(pm_roll_avro_codec(o->options, lc.compression, &w->avro_opts));
    } else if (!strcmp(w->format, "orc")) {
        w->body = BODY_ORC;
        bool present = false;
        int64_t block = -1;
        PM_TRY(pm_options_memory(o->options, PM_OPT_FILE_BLOCK_SIZE, &present, &block));
        pm_orc_writer_options_default(&w->orc_opts);
        PM_TRY(pm_orc_writer_options_from_table(&w->orc_opts, opt_lookup, &lc, present ? block : -1,
                                                &w->orc_names));
    } else {
        return pm_error_new(PM_EUNSUPPORTED, "file format '%s' is not supported for writing (parquet, avro, orc)",
                            w->format);
    }
    PM_TRY(pm_calloc(&w->modes, w->fncols ? w->fncols : 1, sizeof *w->modes));
    PM_TRY(pm_write_stats_modes(o->options, o->file_type, w->modes, &w->stats_disabled));
    PM_TRY(pm_options_bool(o->options, PM_OPT_METADATA_STATS_DENSE_STORE, &w->dense));
    PM_TRY(pm_data_file_namer_init(&w->namer, o->options, w->format, w->compression));
    w->namer_ok = true;
    if (o->file_index) {
        PM_TRY(pm_fi_options_parse(o->options, &w->fi));
        PM_TRY(pm_fi_options_check(&w->fi, w->o.value_type));
    }
    return pm_batch_new(&w->slice, o->file_type);
}

pm_error *pm_rolling_file_writer_new(pm_rolling_file_writer **out, const pm_rolling_file_writer_options *o)
{
    *out = NULL;
    pm_rolling_file_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    pm_error *e = writer_init(w, o);
    if (e) {
        pm_rolling_file_writer_free(w);
        return pm_error_wrap(e, 0, "rolling %s writer for %s", o->what ? o->what : "data file", o->dir);
    }
    *out = w;
    return NULL;
}

/* ---- the open file ---- */

static void file_release(pm_rolling_file_writer *w)
{
    open_file *f = &w->cur;
    pm_pq_writer_abort(f->pq);
    if (f->avro)
        pm_avro_writer_free(f->avro);
    pm_orc_writer_abort(f->orc);
    pm_fi_writer_free(f->fi);
    if (f->index_path)
        pm_error_free(pm_fileio_delete(w->o.fio, f->index_path));
    free(f->index_path);
    pm_output_abort(f->out); /* deletes a partial file */
    if (f->raw_open && w->raw.discard)
        w->raw.discard(w->raw.ctx);
    if (f->accs) {
        for (size_t i = 0; i < w->fncols; i++)
            pm_stats_accum_clear(&f->accs[i]);
        free(f->accs);
    }
    pm_buf_free(&f->min_key);
    pm_buf_free(&f->max_key);
    free(f->name);
    free(f->path);
    memset(f, 0, sizeof *f);
    if (w->open && w->o.open_files)
        atomic_fetch_sub(w->o.open_files, 1);
    w->open = false;
}

static pm_error *open_body(pm_rolling_file_writer *w, open_file *f)
{
    switch (w->body) {
    case BODY_PARQUET: {
        pm_pq_writer_options po = w->pq_opts;
        if (w->o.shared_buffer > 0) {
            /* many open files share the write buffer */
            size_t open = w->o.open_files ? atomic_load(w->o.open_files) : 0;
            int64_t share = w->o.shared_buffer / (int64_t)(open + 1);
            if (share < MIN_ROW_GROUP)
                share = MIN_ROW_GROUP;
            if (share < po.row_group_size)
                po.row_group_size = share;
        }
        return pm_pq_writer_new(&f->pq, f->out, w->o.file_type, &po);
    }
    case BODY_AVRO:
        PM_TRY(pm_avro_writer_open(f->out, w->o.file_type, &w->avro_opts, &f->avro));
        PM_TRY(pm_calloc(&f->accs, w->fncols ? w->fncols : 1, sizeof *f->accs));
        for (size_t i = 0; i < w->fncols; i++)
            pm_stats_accum_init(&f->accs[i], w->o.file_type->fields[i].type,
                                w->stats_disabled ? (pm_stats_mode){PM_STATS_NONE, 0} : w->modes[i]);
        return NULL;
    case BODY_ORC:
        return pm_orc_writer_new(&f->orc, f->out, w->o.file_type, &w->orc_opts);
    case BODY_RAW:
        f->raw_open = true;
        return w->raw.open(w->raw.ctx, f->out);
    }
    return NULL;
}

static pm_error *file_open(pm_rolling_file_writer *w)
{
    open_file *f = &w->cur;
    memset(f, 0, sizeof *f);
    pm_error *e = NULL;
    PM_TRY_GOTO(e, w->o.changelog ? pm_data_file_namer_next_changelog(&w->namer, &f->name)
                                  : pm_data_file_namer_next_data(&w->namer, &f->name),
                fail);
    f->path = pm_path_join(w->dir, f->name);
    if (!f->path)
        PM_TRY_GOTO(e, pm_oom(), fail);
    if (w->o.fault_open && pm_fault(w->o.fault_open)) {
        e = pm_error_new(PM_EIO, "injected fault: %s", w->o.fault_open);
        goto fail;
    }
    PM_TRY_GOTO(e, pm_output_create(w->o.fio, f->path, false, &f->out), fail);
    PM_TRY_GOTO(e, open_body(w, f), fail);
    if (w->fi.nspecs)
        PM_TRY_GOTO(e, pm_fi_writer_new(&f->fi, &w->fi, w->o.value_type), fail);
    f->min_seq = w->has_kv ? INT64_MAX : w->seq;
    f->max_seq = INT64_MIN;
    w->open = true;
    if (w->o.open_files)
        atomic_fetch_add(w->o.open_files, 1);
    return NULL;
fail:
    file_release(w);
    return pm_error_wrap(e, 0, "open %s in %s", w->what, w->dir);
}

/* Finish the body and close the output: *size = the file's size. */
static pm_error *close_body(pm_rolling_file_writer *w, open_file *f, pm_pq_write_result *res,
                            pm_orc_write_result *orc, uint64_t *size)
{
    pm_error *e = NULL;
    if (f->orc) {
        pm_orc_writer *ow = f->orc;
        f->orc = NULL;
        e = pm_orc_writer_close(ow, orc);
        if (!e)
            *size = orc->file_size;
    } else if (f->pq) {
        pm_pq_writer *pq = f->pq;
        f->pq = NULL;
        e = pm_pq_writer_close(pq, res);
        if (!e) {
            *size = res->file_size;
            w->pages_copied += res->pages_copied; /* counted after the last pages are placed */
            w->pages_lazy += res->pages_lazy;
        }
    } else if (f->avro) {
        e = pm_avro_writer_finish(f->avro);
        if (!e)
            *size = pm_output_pos(f->out);
    } else {
        e = w->raw.finish(w->raw.ctx, f->out, res);
        if (!e)
            *size = pm_output_pos(f->out);
    }
    if (e)
        return e; /* the output stays for file_release to abort */
    pm_output *o = f->out;
    f->out = NULL;
    return pm_output_close(o, true); /* removes the file on error */
}

static pm_error *key_bytes(pm_rolling_file_writer *w, const pm_batch *b, int64_t row, pm_buf *out)
{
    PM_TRY(pm_binrow_from_columns(&w->krow, b->columns, w->key_idx, w->kv.nkey, row));
    pm_buf_clear(out);
    return pm_binrow_serialize(&w->krow, out);
}

/* Keys of the file: the key-value layout's range and key stats, or the
 * append layout's empty keys. */
static pm_error *file_keys(pm_rolling_file_writer *w, open_file *f, pm_col_stats *cs, pm_data_file_meta *m)
{
    if (!w->has_kv)
        return pm_roll_empty_keys(m);
    PM_TRY(pm_bytes_set(&m->min_key, f->min_key.data, f->min_key.len));
    PM_TRY(pm_bytes_set(&m->max_key, f->max_key.data, f->max_key.len));
    /* key stats: borrowed copies of the key columns' stats (all fields,
     * not dense: Java's toBinaryAllMode) */
    size_t nkey = w->kv.nkey;
    pm_col_stats *ks = NULL;
    PM_TRY(pm_calloc(&ks, nkey ? nkey : 1, sizeof *ks));
    for (size_t i = 0; i < nkey; i++)
        ks[i] = cs[w->kv.key_stat[i]];
    bool has_cols = false;
    pm_str_list cols = {0};
    pm_error *e = pm_col_stats_to_simple(w->kv.key_type, ks, false, &m->key_stats, &has_cols, &cols);
    pm_str_list_free(&cols);
    free(ks);
    return e;
}

static pm_error *file_stats(pm_rolling_file_writer *w, open_file *f, const pm_pq_write_result *res,
                            const pm_orc_write_result *orc, pm_data_file_meta *m)
{
    pm_col_stats *cs = NULL;
    PM_TRY(pm_roll_col_stats(w->o.file_type, w->modes, w->stats_disabled, f->accs, res,
                             w->body == BODY_ORC ? orc : NULL, &cs));
    pm_error *e = file_keys(w, f, cs, m);
    if (!e)
        e = pm_col_stats_to_simple(w->o.value_type, cs + w->o.value_offset, w->dense, &m->value_stats,
                                   &m->has_value_stats_cols, &m->value_stats_cols);
    for (size_t i = 0; i < w->fncols; i++)
        pm_col_stats_clear(&cs[i]);
    free(cs);
    return e;
}

/* The file's index (DataFileIndexWriter.close): embedded in the meta up
 * to file-index.in-manifest-threshold bytes, else the sidecar
 * `<file>.index` beside it, listed in _EXTRA_FILES. */
static pm_error *file_index_close(pm_rolling_file_writer *w, open_file *f, pm_data_file_meta *m)
{
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_fi_writer_finish(f->fi, &b);
    if (!e && (int64_t)b.len <= w->fi.in_manifest_threshold) {
        e = pm_bytes_set(&m->embedded_index, b.data, b.len);
        pm_buf_free(&b);
        return e;
    }
    char *name = NULL;
    pm_output *out = NULL;
    if (!e)
        e = pm_data_file_index_name(f->name, &name);
    if (!e && !(f->index_path = pm_path_join(w->dir, name)))
        e = pm_oom();
    if (!e)
        e = pm_output_create(w->o.fio, f->index_path, false, &out);
    if (!e) {
        e = pm_output_write(out, b.data, b.len);
        pm_error *c = e ? (pm_output_abort(out), NULL) : pm_output_close(out, true);
        e = e ? e : c;
    }
    if (!e)
        e = pm_realloc_array(&m->extra_files.items, m->extra_files.count + 1, sizeof *m->extra_files.items);
    if (!e) {
        m->extra_files.items[m->extra_files.count++] = name;
        name = NULL;
    } /* on failure index_path stays: releasing the file deletes it if it exists */
    free(name);
    pm_buf_free(&b);
    return pm_error_wrap(e, 0, "file index of %s", f->name);
}

static pm_error *file_close(pm_rolling_file_writer *w)
{
    open_file *f = &w->cur;
    pm_error *e = NULL;
    pm_pq_write_result res;
    memset(&res, 0, sizeof res);
    pm_orc_write_result ores;
    memset(&ores, 0, sizeof ores);
    uint64_t size = 0;
    pm_data_file_meta m;
    memset(&m, 0, sizeof m);
    PM_TRY_GOTO(e, close_body(w, f, &res, &ores, &size), fail);
    if (w->o.fault_close && pm_fault(w->o.fault_close)) {
        e = pm_error_new(PM_EIO, "injected fault: %s", w->o.fault_close);
        goto fail_file;
    }
    PM_TRY_GOTO(e, pm_strdup(&m.file_name, f->name), fail_file);
    m.file_size = (int64_t)size;
    m.row_count = f->rows;
    PM_TRY_GOTO(e, file_stats(w, f, &res, &ores, &m), fail_file);
    if (f->fi)
        PM_TRY_GOTO(e, file_index_close(w, f, &m), fail_file);
    if (w->has_kv) {
        m.min_sequence_number = f->min_seq;
        m.max_sequence_number = f->max_seq;
    } else {
        m.min_sequence_number = f->min_seq;
        m.max_sequence_number = f->min_seq + f->rows - 1;
    }
    m.schema_id = w->o.schema_id;
    m.level = w->o.level;
    pm_roll_stamp(&m, f->deletes, w->o.source);
    PM_TRY_GOTO(e, pm_roll_push_file(&w->done, &w->ndone, &w->capdone, &m), fail_file);
    w->bytes_done += m.file_size;
    pm_pq_write_result_free(&res);
    pm_orc_write_result_free(&ores);
    free(f->index_path); /* the sidecar is the finished file's now */
    f->index_path = NULL;
    file_release(w); /* frees the rest; output and format writer are gone */
    return NULL;
fail_file:
    pm_error_free(pm_fileio_delete(w->o.fio, f->path));
fail:
    pm_data_file_meta_clear(&m);
    pm_pq_write_result_free(&res);
    pm_orc_write_result_free(&ores);
    file_release(w);
    return pm_error_wrap(e, 0, "close %s in %s", w->what, w->dir);
}

static uint64_t file_size_now(const pm_rolling_file_writer *w)
{
    const open_file *f = &w->cur;
    if (f->pq)
        return pm_pq_writer_estimated_size(f->pq);
    if (f->orc)
        return pm_orc_writer_estimated_size(f->orc);
    if (f->avro && w->o.avro_size_buffered)
        return pm_avro_writer_estimated_size(f->avro);
    return pm_output_pos(f->out);
}

/* Key-value layout: first / last key, sequence range and deletes of
 * input rows [from, to). */
static pm_error *kv_account(pm_rolling_file_writer *w, const pm_batch *in, int64_t from, int64_t to)
{
    open_file *f = &w->cur;
    if (f->rows == 0)
        PM_TRY(key_bytes(w, in, from, &f->min_key));
    const pm_column *seq = in->columns[w->kv.nkey], *kind = in->columns[w->kv.nkey + 1];
    for (int64_t r = from; r < to; r++) {
        int64_t s = pm_column_i64(seq, r);
        if (s < f->min_seq)
            f->min_seq = s;
        if (s > f->max_seq)
            f->max_seq = s;
        int8_t k = pm_column_i8(kind, r);
        if (k == PM_ROWKIND_UPDATE_BEFORE || k == PM_ROWKIND_DELETE)
            f->deletes++;
    }
    return key_bytes(w, in, to - 1, &f->max_key);
}

static pm_error *body_write(pm_rolling_file_writer *w, const pm_batch *part)
{
    open_file *f = &w->cur;
    if (f->fi)
        PM_TRY(pm_fi_writer_add(f->fi, part->columns + w->o.value_offset, 0, part->num_rows));
    if (f->pq) {
        if (w->threads)
            pm_pq_writer_set_pool(f->pq, w->pool, w->threads);
        pm_pq_writer_set_plain_sources(f->pq, w->plain, w->plain ? w->fncols : 0);
        return pm_pq_writer_write(f->pq, part);
    }
    if (f->orc)
        return pm_orc_writer_write(f->orc, part);
    PM_TRY(pm_avro_writer_write(f->avro, part));
    for (size_t i = 0; i < w->fncols; i++)
        PM_TRY(pm_stats_accum_add(&f->accs[i], part->columns[i], 0, part->num_rows));
    return NULL;
}

/* Hand rows [from, to) of the input (file columns `fb`) to the open file. */
static pm_error *file_write(pm_rolling_file_writer *w, const pm_batch *in, const pm_batch *fb, int64_t from,
                            int64_t to)
{
    if (w->has_kv)
        PM_TRY(kv_account(w, in, from, to));
    const pm_batch *part = fb;
    pm_batch view;
    pm_column *vcols = NULL, **vptrs = NULL;
    pm_error *e = NULL;
    if (from != 0 || to != fb->num_rows) {
        if (from % 8 == 0 && pm_roll_viewable(fb)) {
            size_t nc = fb->ncolumns ? fb->ncolumns : 1;
            vcols = calloc(nc, sizeof *vcols);
            vptrs = calloc(nc, sizeof *vptrs);
            if (!vcols || !vptrs) {
                e = pm_oom();
                goto done;
            }
            pm_roll_batch_view(&view, vcols, vptrs, fb, from, to - from);
            part = &view;
        } else {
            PM_TRY_GOTO(e, pm_roll_copy_range(w->slice, fb, from, to), done);
            part = w->slice;
        }
    }
    PM_TRY_GOTO(e, body_write(w, part), done);
    int64_t n = to - from;
    w->cur.rows += n;
    w->records += n;
    w->seq += n;
done:
    free(vcols);
    free(vptrs);
    return e;
}

pm_error *pm_rolling_file_writer_write(pm_rolling_file_writer *w, const pm_batch *in)
{
    if (w->body == BODY_RAW)
        return pm_error_new(PM_EINTERNAL, "rolling writer with a raw body takes raw writes only");
    int64_t n = in->num_rows, r = 0;
    if (n == 0)
        return NULL;
    size_t off = w->has_kv ? w->kv.file_offset : 0;
    if (in->ncolumns < off + w->fncols)
        return pm_error_new(PM_EINVALID, "%s writer: batch has %zu columns, the file needs %zu", w->what,
                            in->ncolumns, off + w->fncols);
    /* the file's columns of the input, under the file's type */
    pm_batch fb = {0};
    fb.type = (pm_type *)(uintptr_t)w->o.file_type;
    fb.num_rows = n;
    fb.ncolumns = w->fncols;
    fb.columns = in->columns + off;
    double per_row = (double)pm_roll_raw_bytes(in) / (double)n;
    int64_t target_rows = w->o.target_rows, target_size = w->o.target_size;
    bool every_1000 = w->o.check == PM_ROLL_CHECK_RECORDS;
    while (r < n) {
        if (!w->open)
            PM_TRY(file_open(w));
        open_file *f = &w->cur;
        int64_t len = n - r;
        if (len > target_rows - f->rows)
            len = target_rows - f->rows;
        if (every_1000) {
            /* Could the size check fire inside this range?  Then stop at
             * the next check point.  Raw bytes over-estimate encoded ones,
             * doubled for safety. */
            int64_t to_check = ROLL_CHECK_ROWS - w->records % ROLL_CHECK_ROWS;
            double grow = per_row * (double)len * 2.0;
            if (len > to_check && (double)file_size_now(w) + grow >= (double)target_size)
                len = to_check;
        }
        PM_TRY(pm_error_wrap(file_write(w, in, &fb, r, r + len), 0, "write %s", f->path));
        r += len;
        bool roll = f->rows >= target_rows;
        /* rows of a lazy page offer still to come end the file after them
         * (they have no values but their page's; the offer is not taken
         * when the page's rows exceed target_rows) */
        bool lazy = f->pq && pm_pq_writer_lazy_pending(f->pq);
        if (!roll && !lazy && (!every_1000 || w->records % ROLL_CHECK_ROWS == 0))
            roll = (int64_t)file_size_now(w) >= target_size;
        if (roll)
            PM_TRY(file_close(w));
    }
    return NULL;
}

pm_error *pm_rolling_file_writer_raw_begin(pm_rolling_file_writer *w, int64_t rows, pm_output **out)
{
    *out = NULL;
    if (w->body != BODY_RAW)
        return pm_error_new(PM_EINTERNAL, "raw write to a rolling writer with a format body");
    if (w->open && w->cur.rows + rows > w->o.target_rows)
        PM_TRY(file_close(w));
    if (!w->open)
        PM_TRY(file_open(w));
    *out = w->cur.out;
    return NULL;
}

bool pm_rolling_file_writer_has_index(const pm_rolling_file_writer *w) { return w->fi.nspecs > 0; }

pm_error *pm_rolling_file_writer_raw_index(pm_rolling_file_writer *w, pm_column *const *cols, int64_t from,
                                           int64_t to)
{
    if (!w->open || !w->cur.fi)
        return pm_error_new(PM_EINTERNAL, "index rows without an open file with a file index");
    return pm_fi_writer_add(w->cur.fi, cols, from, to);
}

pm_error *pm_rolling_file_writer_raw_end(pm_rolling_file_writer *w, int64_t rows)
{
    if (!w->open)
        return pm_error_new(PM_EINTERNAL, "raw rows without an open file");
    w->cur.rows += rows;
    w->records += rows;
    w->seq += rows;
    if ((int64_t)pm_output_pos(w->cur.out) >= w->o.target_size || w->cur.rows >= w->o.target_rows)
        return file_close(w);
    return NULL;
}

void pm_rolling_file_writer_discard_open(pm_rolling_file_writer *w)
{
    if (!w->open)
        return;
    char *path = w->cur.path;
    w->cur.path = NULL;
    file_release(w);
    if (path)
        pm_error_free(pm_fileio_delete(w->o.fio, path));
    free(path);
}

pm_error *pm_rolling_file_writer_close_file(pm_rolling_file_writer *w)
{
    return w->open ? file_close(w) : NULL;
}

pm_error *pm_rolling_file_writer_finish(pm_rolling_file_writer *w, pm_data_file_meta **files, size_t *n)
{
    *files = NULL;
    *n = 0;
    PM_TRY(pm_rolling_file_writer_close_file(w));
    *files = w->done;
    *n = w->ndone;
    w->done = NULL;
    w->ndone = w->capdone = 0;
    return NULL;
}

void pm_rolling_file_writer_set_pool(pm_rolling_file_writer *w, pm_pool *pool, size_t threads)
{
    w->pool = pool;
    w->threads = threads ? threads : 1;
}

pm_error *pm_rolling_file_writer_offer_page(pm_rolling_file_writer *w, size_t col, const pq_schema_element *elem,
                                           const uint8_t *page, size_t len, pm_codec_id codec, int64_t rows,
                                           const pq_page_facts *facts, bool *taken)
{
    *taken = false;
    if (w->body != BODY_PARQUET || col >= w->fncols)
        return NULL;
    if (!w->open)
        PM_TRY(file_open(w)); /* the offered rows follow: the file they go to */
    if (!w->cur.pq || (facts && w->cur.rows + rows > w->o.target_rows))
        return NULL;
    return pm_pq_writer_offer_lazy(w->cur.pq, col, elem, page, len, codec, rows, facts, taken);
}

int64_t pm_rolling_file_writer_pages_copied(const pm_rolling_file_writer *w)
{
    return w->pages_copied + (w->open && w->cur.pq ? pm_pq_writer_pages_copied(w->cur.pq) : 0);
}

int64_t pm_rolling_file_writer_pages_lazy(const pm_rolling_file_writer *w)
{
    return w->pages_lazy + (w->open && w->cur.pq ? pm_pq_writer_pages_lazy(w->cur.pq) : 0);
}

pm_error *pm_rolling_file_writer_cancel_pages(pm_rolling_file_writer *w)
{
    if (w->open && w->cur.pq)
        return pm_pq_writer_cancel_pages(w->cur.pq);
    return NULL;
}

pm_error *pm_rolling_file_writer_set_plain_sources(pm_rolling_file_writer *w, const bool *plain)
{
    if (!plain) {
        free(w->plain);
        w->plain = NULL;
        return NULL;
    }
    if (!w->plain)
        PM_TRY(pm_calloc(&w->plain, w->fncols ? w->fncols : 1, sizeof *w->plain));
    memcpy(w->plain, plain, w->fncols * sizeof *plain);
    return NULL;
}

bool pm_rolling_file_writer_is_open(const pm_rolling_file_writer *w) { return w->open; }
size_t pm_rolling_file_writer_pending(const pm_rolling_file_writer *w) { return w->ndone; }
const pm_data_file_meta *pm_rolling_file_writer_pending_file(const pm_rolling_file_writer *w, size_t i)
{
    return i < w->ndone ? &w->done[i] : NULL;
}
int64_t pm_rolling_file_writer_rows(const pm_rolling_file_writer *w) { return w->records; }
int64_t pm_rolling_file_writer_bytes(const pm_rolling_file_writer *w) { return w->bytes_done; }
int64_t pm_rolling_file_writer_next_seq(const pm_rolling_file_writer *w) { return w->seq; }
void pm_rolling_file_writer_set_next_seq(pm_rolling_file_writer *w, int64_t seq) { w->seq = seq; }

static void writer_release(pm_rolling_file_writer *w, bool delete_files)
{
    if (delete_files)
        pm_rolling_file_writer_discard_open(w);
    else if (w->open)
        file_release(w);
    for (size_t i = 0; i < w->ndone; i++) {
        if (delete_files && w->dir) {
            char *p = pm_path_join(w->dir, w->done[i].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(w->o.fio, p));
            free(p);
            for (size_t k = 0; k < w->done[i].extra_files.count; k++) {
                p = pm_path_join(w->dir, w->done[i].extra_files.items[k]);
                if (p)
                    pm_error_free(pm_fileio_delete(w->o.fio, p));
                free(p);
            }
        }
        pm_data_file_meta_clear(&w->done[i]);
    }
    free(w->done);
    if (w->namer_ok)
        pm_data_file_namer_destroy(&w->namer);
    pm_batch_free(w->slice);
    pm_binrow_writer_free(&w->krow);
    free(w->key_idx);
    free(w->plain);
    free(w->modes);
    free(w->orc_names);
    pm_fi_options_clear(&w->fi);
    free(w->dir);
    free(w->format);
    free(w->compression);
    free(w->what);
    free(w);
}

void pm_rolling_file_writer_abort(pm_rolling_file_writer *w)
{
    if (w)
        writer_release(w, true);
}

void pm_rolling_file_writer_free(pm_rolling_file_writer *w)
{
    if (w)
        writer_release(w, false);
}
