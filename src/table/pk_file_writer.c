/*
 * table/pk_file_writer.c — rolling KeyValue file writer (pk_file_writer.h)
 * over the one rolling data-file writer (table/rolling_file_writer.h).
 *
 * Steps:
 *  1. new: the KV type from the schema; per-level (or changelog) format,
 *     compression and stats mode become an options overlay (a clone of the
 *     table options with file.format / file.compression /
 *     metadata.stats-mode replaced), from which the rolling writer derives
 *     the Parquet writer options, the Avro codec and the per-column stats
 *     modes; the key-value layout (key columns, key stats sources, the
 *     file's first column) goes with it.
 *  2. write: the batch is checked against the KV type and handed over
 *     under it (a value column holding its _KEY_ column's values goes as
 *     that same column object: the Parquet writer writes the key's chunk
 *     again for it instead of encoding the values twice, parquet_writer.h
 *     mirrors; not in thin mode, which has no _KEY_ columns); the rolling writer takes the first and last key, the
 *     sequence range and the delete count of each slice from the key,
 *     _SEQUENCE_NUMBER and _VALUE_KIND columns, rolls every 1000th record
 *     as Java does, and sizes Avro files with their unflushed block.
 *  3. close: key stats (all fields) from the key columns' statistics and
 *     value stats (dense per option) from the value columns'.
 *
 * Thin mode (data-file.thin-mode=true, as Java's KeyValueThinDataFileWriter):
 * the file holds [_SEQUENCE_NUMBER, _VALUE_KIND, value fields] without the
 * _KEY_ columns, which repeat value fields (a key field's id is its value
 * field's id + 1073741823); the key stats are the stats of those value
 * columns.  Input batches keep the full KV layout; the file sees the
 * columns after the keys.  _MIN_KEY/_MAX_KEY are written as always.
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
#include "table/partition.h"
#include "table/rolling_file_writer.h"
#include "types/column.h"

#define KEY_ID_START 1073741823
#define SEQ_ID 2147483646
#define KIND_ID 2147483645

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

struct pm_pk_file_writer {
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
    char format_name[32];
    char *compression;
    char *dir;
    pm_rolling_file_writer *rw;
    pm_batch view;             /* input columns under the KV type */
    size_t *key_value;         /* per key field: the KV column of the value field it repeats, or SIZE_MAX */
    pm_column **view_cols;     /* the view's columns when a value column is its key column's */
};

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
        /* a key field's value column holding the same values is handed to
         * the format writer as the key's own column (write below) */
        PM_TRY(pm_calloc(&w->key_value, w->nkey ? w->nkey : 1, sizeof *w->key_value));
        PM_TRY(pm_calloc(&w->view_cols, w->ncols ? w->ncols : 1, sizeof *w->view_cols));
        for (size_t i = 0; i < w->nkey; i++) {
            w->key_stat[i] = i;
            w->key_value[i] = SIZE_MAX;
            int32_t vid = w->kv_type->fields[i].id - KEY_ID_START;
            for (size_t c = w->nkey + 2; c < w->ncols; c++)
                if (w->kv_type->fields[c].id == vid &&
                    pm_type_equals(w->kv_type->fields[c].type, w->kv_type->fields[i].type))
                    w->key_value[i] = c;
        }
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
    w->schema = schema;
    w->level = o ? o->level : 0;
    w->file_source = o ? o->file_source : PM_FILE_SOURCE_APPEND;
    w->changelog = o && o->changelog;
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
    PM_TRY(file_layout(w));

    PM_TRY(pm_options_file_format(w->opts, w->format_name, sizeof w->format_name));
    if (strcmp(w->format_name, "parquet") && strcmp(w->format_name, "avro") && strcmp(w->format_name, "orc"))
        return pm_error_new(PM_EUNSUPPORTED, "file.format=%s is not supported for writing (parquet, avro, orc)",
                            w->format_name);
    const char *comp = NULL;
    PM_TRY(pm_options_string(w->opts, PM_OPT_FILE_COMPRESSION, &comp));
    PM_TRY(pm_strdup(&w->compression, comp));
    pm_rolling_file_writer_options ro;
    memset(&ro, 0, sizeof ro);
    PM_TRY(pm_options_target_file_size(w->opts, true, &ro.target_size));
    if (o && o->target_file_size > 0)
        ro.target_size = o->target_file_size;
    bool present = false;
    PM_TRY(pm_options_long(w->opts, PM_OPT_TARGET_FILE_ROW_NUM, &present, &ro.target_rows));
    if (!present)
        ro.target_rows = INT64_MAX;
    if (o && o->target_row_num > 0)
        ro.target_rows = o->target_row_num;
    if (ro.target_rows <= 0)
        return pm_error_new(PM_EINVALID, "target-file-row-num must be positive, got %lld", (long long)ro.target_rows);
    PM_TRY(pm_table_bucket_dir(t, partition, plen, bucket, &w->dir));
    pm_rolling_kv_layout kv = {w->nkey, w->key_type, w->key_stat, w->foff};
    ro.fio = t->fio;
    ro.dir = w->dir;
    ro.file_type = w->file_type;
    ro.options = w->opts;
    ro.format = w->format_name;
    ro.compression = w->compression;
    ro.check = PM_ROLL_CHECK_RECORDS;
    ro.avro_size_buffered = true;
    ro.changelog = w->changelog;
    ro.schema_id = schema->id;
    ro.level = w->level;
    ro.source = w->changelog ? PM_FILE_SOURCE_APPEND : (pm_file_source)w->file_source;
    ro.value_type = schema->row_type;
    ro.value_offset = w->thin ? 2 : w->nkey + 2;
    ro.kv = &kv;
    ro.file_index = !w->changelog; /* Java writes no index for changelog files */
    ro.what = w->changelog ? "changelog file" : "key-value file";
    return pm_rolling_file_writer_new(&w->rw, &ro);
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
int64_t pm_pk_file_writer_rows(const pm_pk_file_writer *w) { return pm_rolling_file_writer_rows(w->rw); }

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

pm_error *pm_pk_file_writer_offer_page(pm_pk_file_writer *w, size_t col, const pq_schema_element *elem,
                                       const uint8_t *page, size_t len, pm_codec_id codec, int64_t rows,
                                       const pq_page_facts *facts, bool *taken)
{
    *taken = false;
    if (col < w->foff || col >= w->ncols)
        return NULL;
    return pm_rolling_file_writer_offer_page(w->rw, col - w->foff, elem, page, len, codec, rows, facts, taken);
}

pm_error *pm_pk_file_writer_cancel_pages(pm_pk_file_writer *w) { return pm_rolling_file_writer_cancel_pages(w->rw); }

int64_t pm_pk_file_writer_pages_lazy(const pm_pk_file_writer *w) { return pm_rolling_file_writer_pages_lazy(w->rw); }

int64_t pm_pk_file_writer_pages_copied(const pm_pk_file_writer *w)
{
    return pm_rolling_file_writer_pages_copied(w->rw);
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
    /* A value column with its key column's values becomes that same column
     * object: the Parquet writer then writes the key's chunk for it instead
     * of encoding and compressing the values twice (parquet_writer.h,
     * mirrors).  The file's bytes hold the same values either way. */
    bool alias = false;
    for (size_t i = 0; w->key_value && i < w->nkey; i++) {
        size_t c = w->key_value[i];
        if (c == SIZE_MAX || in->columns[c] == in->columns[i] ||
            !pm_column_same_values(in->columns[i], in->columns[c], in->num_rows))
            continue;
        if (!alias)
            memcpy(w->view_cols, in->columns, in->ncolumns * sizeof *w->view_cols);
        alias = true;
        w->view_cols[c] = in->columns[i];
    }
    if (alias)
        w->view.columns = w->view_cols;
    return pm_rolling_file_writer_write(w->rw, &w->view);
}

pm_error *pm_pk_file_writer_finish(pm_pk_file_writer *w, pm_data_file_meta **files, size_t *n)
{
    return pm_rolling_file_writer_finish(w->rw, files, n);
}

static void writer_release(pm_pk_file_writer *w, bool delete_files)
{
    if (delete_files)
        pm_rolling_file_writer_abort(w->rw);
    else
        pm_rolling_file_writer_free(w->rw);
    free(w->key_stat);
    free(w->key_value);
    free(w->view_cols);
    free(w->compression);
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
