/*
 * table/pk_file_writer.c — rolling KeyValue file writer (pk_file_writer.h).
 *
 * Steps:
 *  1. new: the KV type from the schema; per-level (or changelog) format,
 *     compression and stats mode become an options overlay (a clone of the
 *     table options with file.format / file.compression /
 *     metadata.stats-mode replaced), from which the Parquet writer options,
 *     the Avro codec and the per-column stats modes are derived once.
 *  2. write: rows go to the open file in slices that end at the rolling
 *     check points (every 1000th record of the writer) while the file is
 *     near its target size, whole batches otherwise; per slice the first
 *     key (once per file), the last key, min/max sequence numbers and the
 *     delete count are updated from the slice's columns.
 *  3. close: Parquet footer statistics (Avro: per-row collectors) → key
 *     stats (all fields) and value stats (dense per option); the file's
 *     DataFileMeta is kept until finish hands it out.
 *
 * Thin mode (data-file.thin-mode=true, as Java's KeyValueThinDataFileWriter):
 * the file holds [_SEQUENCE_NUMBER, _VALUE_KIND, value fields] without the
 * _KEY_ columns, which repeat value fields (a key field's id is its value
 * field's id + 1073741823); the key stats are the stats of those value
 * columns.  Input batches keep the full KV layout; the file sees a view of
 * the columns after the keys.  _MIN_KEY/_MAX_KEY are written as always.
 */
#include "table/pk_file_writer.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/util.h"
#include "format/avro/avro.h"
#include "format/parquet/parquet_writer.h"
#include "meta/paths.h"
#include "table/file_roll.h"
#include "table/partition.h"
#include "table/write_stats.h"
#include "types/binary_row.h"
#include "types/column.h"

#define ROLL_CHECK_ROWS 1000
#define KEY_ID_START 1073741823
#define SEQ_ID 2147483646
#define KIND_ID 2147483645

typedef enum { FMT_PARQUET, FMT_AVRO } file_format;

pm_error *pm_pk_kv_type(const pm_schema *s, pm_type **out, size_t *nkey)
{
    *out = NULL;
    *nkey = 0;
    pm_str_list keys = {0};
    PM_TRY(pm_schema_trimmed_primary_keys(s, &keys));
    pm_type *t = pm_type_new_row(false);
    pm_error *e = t ? NULL : pm_oom();
    pm_buf name = PM_BUF_INIT;
    for (size_t i = 0; !e && i < keys.count; i++) {
        ptrdiff_t k = pm_type_field_index(s->row_type, keys.items[i]);
        if (k < 0) {
            e = pm_error_new(PM_EINVALID, "primary key '%s' is not a field", keys.items[i]);
            break;
        }
        const pm_field *f = &s->row_type->fields[k];
        pm_type *ft = pm_type_clone(f->type);
        if (!ft) {
            e = pm_oom();
            break;
        }
        ft->nullable = false;
        const char *nm = NULL;
        pm_buf_clear(&name);
        e = pm_buf_append(&name, "_KEY_", 5);
        if (!e)
            e = pm_buf_append(&name, f->name, strlen(f->name));
        if (!e)
            e = pm_buf_cstr(&name, &nm);
        if (!e)
            e = pm_type_add_field(t, f->id + KEY_ID_START, nm, ft);
        if (e)
            pm_type_free(ft);
    }
    if (!e) {
        pm_type *seq = pm_type_new(PM_TYPE_BIGINT, false);
        e = seq ? pm_type_add_field(t, SEQ_ID, "_SEQUENCE_NUMBER", seq) : pm_oom();
        if (e)
            pm_type_free(seq);
    }
    if (!e) {
        pm_type *kind = pm_type_new(PM_TYPE_TINYINT, false);
        e = kind ? pm_type_add_field(t, KIND_ID, "_VALUE_KIND", kind) : pm_oom();
        if (e)
            pm_type_free(kind);
    }
    for (size_t i = 0; !e && i < s->row_type->nfields; i++) {
        const pm_field *f = &s->row_type->fields[i];
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(t, f->id, f->name, ft) : pm_oom();
        if (e && ft)
            pm_type_free(ft);
    }
    pm_buf_free(&name);
    if (e) {
        pm_type_free(t);
        pm_str_list_free(&keys);
        return e;
    }
    *nkey = keys.count;
    pm_str_list_free(&keys);
    *out = t;
    return NULL;
}

typedef struct open_file {
    char *name;
    char *path;
    pm_output *out;
    pm_pq_writer *pq;
    pm_avro_writer *avro;
    pm_stats_accum *accs;      /* Avro: one per file column */
    int64_t rows;
    int64_t min_seq, max_seq;
    int64_t deletes;
    pm_buf min_key, max_key;   /* serialized BinaryRows */
} open_file;

struct pm_pk_file_writer {
    pm_table *t;
    const pm_schema *schema;
    pm_options *opts;          /* overlay (owned) */
    pm_type *kv_type;
    pm_type *key_type;         /* ROW of the _KEY_ fields */
    size_t nkey, ncols;
    bool thin;                 /* data-file.thin-mode: no _KEY_ columns in the file */
    pm_type *file_type;        /* the file's row type: kv_type, or without the keys (owned when thin) */
    size_t fncols, foff;       /* file columns; index of the first one in the KV layout */
    size_t *key_stat;          /* per key field: its stats column in the file */
    int32_t level;
    int file_source;
    bool changelog;
    file_format format;
    char format_name[32];
    char *compression;
    int64_t target_size, target_rows;
    pm_stats_mode *modes;
    bool stats_disabled, dense;
    pm_pq_writer_options pq_opts;
    pm_avro_write_options avro_opts;
    uint8_t *partition;
    size_t plen;
    int32_t bucket;
    char *dir;
    pm_data_file_namer namer;
    bool namer_ok;
    int64_t records;           /* rows written by the rolling writer */
    bool open;
    open_file cur;
    pm_data_file_meta *done;
    size_t ndone, capdone;
    pm_binrow_writer krow;
    size_t *key_idx;
    pm_batch *slice;
    pm_batch view;             /* input columns under the KV type */
    pm_batch fview;            /* the file's columns of a slice (thin mode) */
};

static const char *opt_lookup(void *ctx, const char *key) { return pm_options_get(ctx, key); }

/* ------------------------------------------------------------------ */
/* options                                                             */

/* Overlay: the level's (or changelog's) format, compression, stats mode. */
static pm_error *build_overlay(pm_pk_file_writer *w, const pm_options *base)
{
    PM_TRY(pm_options_clone(base, &w->opts));
    char *v = NULL;
    if (w->changelog) {
        const char *s = pm_options_get(base, "changelog-file.format");
        if (s)
            PM_TRY(pm_options_set(w->opts, "file.format", s));
        s = pm_options_get(base, "changelog-file.compression");
        if (s)
            PM_TRY(pm_options_set(w->opts, "file.compression", s));
        s = pm_options_get(base, "changelog-file.stats-mode");
        if (s)
            PM_TRY(pm_options_set(w->opts, "metadata.stats-mode", s));
        return NULL;
    }
    static const struct {
        pm_option_id map;
        const char *key;
    } per_level[] = {{PM_OPT_FILE_FORMAT_PER_LEVEL, "file.format"},
                     {PM_OPT_FILE_COMPRESSION_PER_LEVEL, "file.compression"},
                     {PM_OPT_METADATA_STATS_MODE_PER_LEVEL, "metadata.stats-mode"}};
    for (size_t i = 0; i < sizeof per_level / sizeof per_level[0]; i++) {
        PM_TRY(pm_options_per_level(base, per_level[i].map, w->level, &v));
        if (!v)
            continue;
        pm_error *e = pm_options_set(w->opts, per_level[i].key, v);
        free(v);
        v = NULL;
        PM_TRY(e);
        if (per_level[i].map == PM_OPT_FILE_COMPRESSION_PER_LEVEL)
            pm_options_remove(w->opts, "parquet.compression"); /* the level's codec wins */
    }
    return NULL;
}

static pm_error *check_supported(const pm_options *o)
{
    if (pm_options_get(o, "data-file.external-paths"))
        return pm_error_new(PM_EUNSUPPORTED, "writing to data-file.external-paths is not supported yet");
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i);
        size_t n = strlen(k);
        if (!strncmp(k, "file-index.", 11) && n > 8 && !strcmp(k + n - 8, ".columns"))
            return pm_error_new(PM_EUNSUPPORTED, "writing data-file indexes (%s) is not supported yet", k);
    }
    return NULL;
}

/* The file's columns: all of the KV type, or in thin mode (when every key
 * field repeats a value field, as Java checks) those after the keys; and
 * where each key field's stats come from. */
static pm_error *file_layout(pm_pk_file_writer *w)
{
    PM_TRY(pm_options_bool(w->opts, PM_OPT_DATA_FILE_THIN_MODE, &w->thin));
    PM_TRY(pm_calloc(&w->key_stat, w->nkey ? w->nkey : 1, sizeof *w->key_stat));
    const pm_type *rt = w->schema->row_type;
    for (size_t i = 0; w->thin && i < w->nkey; i++) {
        int32_t vid = w->kv_type->fields[i].id - KEY_ID_START;
        size_t v = 0;
        while (v < rt->nfields && rt->fields[v].id != vid)
            v++;
        if (v == rt->nfields)
            w->thin = false;   /* not a repeated value field: Java writes the keys */
        else
            w->key_stat[i] = 2 + v;
    }
    if (!w->thin) {
        for (size_t i = 0; i < w->nkey; i++)
            w->key_stat[i] = i;
        w->file_type = w->kv_type;
        w->fncols = w->ncols;
        w->foff = 0;
        return NULL;
    }
    w->file_type = pm_type_new_row(false);
    if (!w->file_type)
        return pm_oom();
    for (size_t i = w->nkey; i < w->ncols; i++) {
        const pm_field *f = &w->kv_type->fields[i];
        pm_type *ft = pm_type_clone(f->type);
        pm_error *e = ft ? pm_type_add_field(w->file_type, f->id, f->name, ft) : pm_oom();
        if (e) {
            pm_type_free(ft);
            return e;
        }
    }
    w->fncols = w->ncols - w->nkey;
    w->foff = w->nkey;
    return NULL;
}

static pm_error *writer_init(pm_pk_file_writer *w, pm_table *t, const pm_schema *schema, const uint8_t *partition,
                             size_t plen, int32_t bucket, const pm_pk_file_writer_options *o)
{
    w->t = t;
    w->schema = schema;
    w->level = o ? o->level : 0;
    w->file_source = o ? o->file_source : PM_FILE_SOURCE_APPEND;
    w->changelog = o && o->changelog;
    w->bucket = bucket;
    PM_TRY(check_supported(schema->options));
    PM_TRY(build_overlay(w, schema->options));
    PM_TRY(pm_pk_kv_type(schema, &w->kv_type, &w->nkey));
    w->ncols = w->kv_type->nfields;
    w->key_type = pm_type_new_row(false);
    if (!w->key_type)
        return pm_oom();
    for (size_t i = 0; i < w->nkey; i++) {
        const pm_field *f = &w->kv_type->fields[i];
        pm_type *ft = pm_type_clone(f->type);
        pm_error *e = ft ? pm_type_add_field(w->key_type, f->id, f->name, ft) : pm_oom();
        if (e) {
            pm_type_free(ft);
            return e;
        }
    }
    PM_TRY(pm_calloc(&w->key_idx, w->nkey ? w->nkey : 1, sizeof *w->key_idx));
    for (size_t i = 0; i < w->nkey; i++)
        w->key_idx[i] = i;
    PM_TRY(file_layout(w));

    PM_TRY(pm_options_file_format(w->opts, w->format_name, sizeof w->format_name));
    if (!strcmp(w->format_name, "parquet"))
        w->format = FMT_PARQUET;
    else if (!strcmp(w->format_name, "avro"))
        w->format = FMT_AVRO;
    else
        return pm_error_new(PM_EUNSUPPORTED, "file.format=%s is not supported for writing (parquet, avro)",
                            w->format_name);
    const char *comp = NULL;
    PM_TRY(pm_options_string(w->opts, PM_OPT_FILE_COMPRESSION, &comp));
    PM_TRY(pm_strdup(&w->compression, comp));
    PM_TRY(pm_options_target_file_size(w->opts, true, &w->target_size));
    if (o && o->target_file_size > 0)
        w->target_size = o->target_file_size;
    bool present = false;
    PM_TRY(pm_options_long(w->opts, PM_OPT_TARGET_FILE_ROW_NUM, &present, &w->target_rows));
    if (!present)
        w->target_rows = INT64_MAX;
    if (o && o->target_row_num > 0)
        w->target_rows = o->target_row_num;
    if (w->target_rows <= 0)
        return pm_error_new(PM_EINVALID, "target-file-row-num must be positive, got %lld", (long long)w->target_rows);
    PM_TRY(pm_calloc(&w->modes, w->fncols, sizeof *w->modes));
    PM_TRY(pm_write_stats_modes(w->opts, w->file_type, w->modes, &w->stats_disabled));
    PM_TRY(pm_options_bool(w->opts, PM_OPT_METADATA_STATS_DENSE_STORE, &w->dense));
    if (w->format == FMT_PARQUET) {
        pm_pq_writer_options_default(&w->pq_opts);
        PM_TRY(pm_pq_writer_options_from_table(&w->pq_opts, opt_lookup, w->opts));
    } else {
        PM_TRY(pm_roll_avro_codec(w->opts, NULL, &w->avro_opts));
    }
    PM_TRY(pm_calloc(&w->partition, plen ? plen : 1, 1));
    memcpy(w->partition, partition, plen);
    w->plen = plen;
    PM_TRY(pm_table_bucket_dir(t, partition, plen, bucket, &w->dir));
    PM_TRY(pm_data_file_namer_init(&w->namer, w->opts, w->format_name, w->compression));
    w->namer_ok = true;
    PM_TRY(pm_batch_new(&w->slice, w->kv_type));
    return NULL;
}

pm_error *pm_pk_file_writer_new(pm_pk_file_writer **out, pm_table *t, const pm_schema *schema,
                                const uint8_t *partition, size_t plen, int32_t bucket,
                                const pm_pk_file_writer_options *o)
{
    *out = NULL;
    pm_pk_file_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    pm_error *e = writer_init(w, t, schema, partition, plen, bucket, o);
    if (e) {
        pm_pk_file_writer_free(w);
        return pm_error_wrap(e, 0, "key-value file writer for table %s", pm_table_path(t));
    }
    *out = w;
    return NULL;
}

const pm_type *pm_pk_file_writer_type(const pm_pk_file_writer *w) { return w->kv_type; }
int64_t pm_pk_file_writer_rows(const pm_pk_file_writer *w) { return w->records; }

/* ------------------------------------------------------------------ */
/* files                                                               */

static void open_file_abort(pm_pk_file_writer *w, open_file *f)
{
    pm_pq_writer_abort(f->pq);
    if (f->avro)
        pm_avro_writer_free(f->avro);
    pm_output_abort(f->out);
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
}

static pm_error *open_file_new(pm_pk_file_writer *w)
{
    open_file *f = &w->cur;
    memset(f, 0, sizeof *f);
    pm_error *e = NULL;
    PM_TRY_GOTO(e, w->changelog ? pm_data_file_namer_next_changelog(&w->namer, &f->name)
                                : pm_data_file_namer_next_data(&w->namer, &f->name),
                fail);
    f->path = pm_path_join(w->dir, f->name);
    if (!f->path)
        PM_TRY_GOTO(e, pm_oom(), fail);
    PM_TRY_GOTO(e, pm_output_create(w->t->fio, f->path, false, &f->out), fail);
    if (w->format == FMT_PARQUET) {
        PM_TRY_GOTO(e, pm_pq_writer_new(&f->pq, f->out, w->file_type, &w->pq_opts), fail);
    } else {
        PM_TRY_GOTO(e, pm_avro_writer_open(f->out, w->file_type, &w->avro_opts, &f->avro), fail);
        PM_TRY_GOTO(e, pm_calloc(&f->accs, w->fncols, sizeof *f->accs), fail);
        for (size_t i = 0; i < w->fncols; i++)
            pm_stats_accum_init(&f->accs[i], w->file_type->fields[i].type,
                                w->stats_disabled ? (pm_stats_mode){PM_STATS_NONE, 0} : w->modes[i]);
    }
    f->min_seq = INT64_MAX;
    f->max_seq = INT64_MIN;
    w->open = true;
    return NULL;
fail:
    open_file_abort(w, f);
    return pm_error_wrap(e, 0, "open key-value file in %s", w->dir);
}

static pm_error *file_stats(pm_pk_file_writer *w, open_file *f, const pm_pq_write_result *res,
                            pm_data_file_meta *m)
{
    pm_col_stats *cs = NULL;
    PM_TRY(pm_roll_col_stats(w->file_type, w->modes, w->stats_disabled, f->accs, res, &cs));
    /* key stats: the key columns, or in thin mode the value columns they
     * repeat (borrowed copies of the structs, cleared once below) */
    pm_col_stats *ks = NULL;
    pm_error *e = pm_calloc(&ks, w->nkey ? w->nkey : 1, sizeof *ks);
    for (size_t i = 0; !e && i < w->nkey; i++)
        ks[i] = cs[w->key_stat[i]];
    bool has_cols = false;
    pm_str_list cols = {0};
    if (!e)
        e = pm_col_stats_to_simple(w->key_type, ks, false, &m->key_stats, &has_cols, &cols);
    pm_str_list_free(&cols);
    free(ks);
    size_t vstart = w->thin ? 2 : w->nkey + 2;
    if (!e)
        e = pm_col_stats_to_simple(w->schema->row_type, cs + vstart, w->dense, &m->value_stats,
                                   &m->has_value_stats_cols, &m->value_stats_cols);
    for (size_t i = 0; i < w->fncols; i++)
        pm_col_stats_clear(&cs[i]);
    free(cs);
    return e;
}

static pm_error *close_file(pm_pk_file_writer *w)
{
    open_file *f = &w->cur;
    pm_error *e = NULL;
    pm_pq_write_result res = {0};
    uint64_t size = 0;
    pm_data_file_meta m;
    memset(&m, 0, sizeof m);
    PM_TRY_GOTO(e, pm_roll_close_format(&f->pq, f->avro, &f->out, &res, &size), fail);
    PM_TRY_GOTO(e, pm_strdup(&m.file_name, f->name), fail_file);
    m.file_size = (int64_t)size;
    m.row_count = f->rows;
    PM_TRY_GOTO(e, pm_bytes_set(&m.min_key, f->min_key.data, f->min_key.len), fail_file);
    PM_TRY_GOTO(e, pm_bytes_set(&m.max_key, f->max_key.data, f->max_key.len), fail_file);
    PM_TRY_GOTO(e, file_stats(w, f, &res, &m), fail_file);
    m.min_sequence_number = f->min_seq;
    m.max_sequence_number = f->max_seq;
    m.schema_id = w->schema->id;
    m.level = w->level;
    pm_roll_stamp(&m, f->deletes, w->changelog ? PM_FILE_SOURCE_APPEND : w->file_source);
    PM_TRY_GOTO(e, pm_roll_push_file(&w->done, &w->ndone, &w->capdone, &m), fail_file);
    pm_pq_write_result_free(&res);
    open_file_abort(w, f);
    w->open = false;
    return NULL;
fail_file:
    pm_error_free(pm_fileio_delete(w->t->fio, f->path));
fail:
    pm_data_file_meta_clear(&m);
    pm_pq_write_result_free(&res);
    open_file_abort(w, f);
    w->open = false;
    return pm_error_wrap(e, 0, "close key-value file in %s", w->dir);
}

static uint64_t file_size_now(const open_file *f)
{
    return f->pq ? pm_pq_writer_estimated_size(f->pq) : pm_avro_writer_estimated_size(f->avro);
}

static pm_error *key_bytes(pm_pk_file_writer *w, const pm_batch *b, int64_t row, pm_buf *out)
{
    PM_TRY(pm_binrow_from_columns(&w->krow, b->columns, w->key_idx, w->nkey, row));
    pm_buf_clear(out);
    return pm_binrow_serialize(&w->krow, out);
}

/* Hand rows [from, to) of b to the open file. */
static pm_error *file_write(pm_pk_file_writer *w, const pm_batch *b, int64_t from, int64_t to)
{
    open_file *f = &w->cur;
    if (f->rows == 0)
        PM_TRY(key_bytes(w, b, from, &f->min_key));
    const pm_column *seq = b->columns[w->nkey], *kind = b->columns[w->nkey + 1];
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
    const pm_batch *part = b;
    if (from != 0 || to != b->num_rows) {
        PM_TRY(pm_roll_copy_range(w->slice, b, from, to));
        part = w->slice;
    }
    if (w->thin) {
        w->fview.type = w->file_type;
        w->fview.num_rows = part->num_rows;
        w->fview.ncolumns = w->fncols;
        w->fview.columns = part->columns + w->foff;
        part = &w->fview;
    }
    if (f->pq) {
        PM_TRY(pm_pq_writer_write(f->pq, part));
    } else {
        PM_TRY(pm_avro_writer_write(f->avro, part));
        for (size_t i = 0; i < w->fncols; i++)
            PM_TRY(pm_stats_accum_add(&f->accs[i], part->columns[i], 0, part->num_rows));
    }
    PM_TRY(key_bytes(w, b, to - 1, &f->max_key));
    int64_t n = to - from;
    f->rows += n;
    w->records += n;
    return NULL;
}

static pm_error *check_batch(const pm_pk_file_writer *w, const pm_batch *b)
{
    const pm_type *bt = b->type;
    if (b->ncolumns != w->ncols || bt->nfields != w->ncols)
        return pm_error_new(PM_EINVALID, "key-value batch has %zu columns, the KV type %zu", b->ncolumns, w->ncols);
    for (size_t i = 0; i < w->ncols; i++) {
        if (!pm_type_equals_ignore_nullable(bt->fields[i].type, w->kv_type->fields[i].type))
            return pm_error_new(PM_EINVALID, "key-value batch column %zu ('%s') does not have the type of '%s'", i,
                                bt->fields[i].name, w->kv_type->fields[i].name);
        if (b->columns[i]->length < b->num_rows)
            return pm_error_new(PM_EINVALID, "key-value batch column %zu is shorter than the batch", i);
    }
    return NULL;
}

pm_error *pm_pk_file_writer_write(pm_pk_file_writer *w, const pm_batch *in)
{
    if (in->num_rows == 0)
        return NULL;
    PM_TRY(check_batch(w, in));
    /* the same columns under the KV type, so the format writer sees its
     * own field names and nullability */
    w->view.type = w->kv_type;
    w->view.num_rows = in->num_rows;
    w->view.ncolumns = in->ncolumns;
    w->view.columns = in->columns;
    const pm_batch *b = &w->view;
    int64_t n = b->num_rows, r = 0;
    uint64_t raw = pm_roll_raw_bytes(b);
    double per_row = n ? (double)raw / (double)n : 0;
    while (r < n) {
        if (!w->open)
            PM_TRY(open_file_new(w));
        open_file *f = &w->cur;
        int64_t len = n - r;
        if (len > w->target_rows - f->rows)
            len = w->target_rows - f->rows;
        int64_t to_check = ROLL_CHECK_ROWS - w->records % ROLL_CHECK_ROWS;
        double grow = per_row * (double)len * 2.0;
        if (len > to_check && (double)file_size_now(f) + grow >= (double)w->target_size)
            len = to_check;
        PM_TRY(pm_error_wrap(file_write(w, b, r, r + len), 0, "write %s", f->path));
        r += len;
        bool roll = f->rows >= w->target_rows;
        if (!roll && w->records % ROLL_CHECK_ROWS == 0)
            roll = (int64_t)file_size_now(f) >= w->target_size;
        if (roll)
            PM_TRY(close_file(w));
    }
    return NULL;
}

pm_error *pm_pk_file_writer_finish(pm_pk_file_writer *w, pm_data_file_meta **files, size_t *n)
{
    *files = NULL;
    *n = 0;
    if (w->open)
        PM_TRY(close_file(w));
    *files = w->done;
    *n = w->ndone;
    w->done = NULL;
    w->ndone = w->capdone = 0;
    return NULL;
}

static void writer_release(pm_pk_file_writer *w, bool delete_files)
{
    if (w->open) {
        open_file_abort(w, &w->cur);
        w->open = false;
    }
    for (size_t i = 0; i < w->ndone; i++) {
        if (delete_files && w->dir) {
            char *p = pm_path_join(w->dir, w->done[i].file_name);
            if (p) {
                pm_error_free(pm_fileio_delete(w->t->fio, p));
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
    free(w->key_stat);
    free(w->modes);
    free(w->compression);
    free(w->partition);
    free(w->dir);
    if (w->file_type != w->kv_type)
        pm_type_free(w->file_type);
    pm_type_free(w->kv_type);
    pm_type_free(w->key_type);
    pm_options_free(w->opts);
    free(w);
}

void pm_pk_file_writer_abort(pm_pk_file_writer *w)
{
    if (w)
        writer_release(w, true);
}

void pm_pk_file_writer_free(pm_pk_file_writer *w)
{
    if (w)
        writer_release(w, false);
}
