/*
 * api/api_format.c — single data files of paimon/format.h.
 *
 * Reading: the format is detected from the file's first and last 16 bytes
 * (a table of detectors below: Parquet "PAR1" at both ends, or "PARE" at
 * the end for encrypted footers, which the Parquet reader then refuses;
 * Avro "Obj\x01" at the start; ORC "ORC" at the start); Parquet files are
 * read by the Parquet reader with its Paimon type mapping, Avro files with
 * their own schema mapped to Paimon types (pm_avro_schema_to_type), ORC
 * files by the ORC reader (orc_schema.h's mapping, paimon.id field ids),
 * all projected to the requested columns.
 * Writing: the options are checked against the keys the writers read,
 * then a Parquet writer (pm_pq_writer_options_from_table), an ORC writer
 * (pm_orc_writer_options_from_table) or an Avro writer
 * (pm_roll_avro_codec) writes `.<name>.<uuid>.tmp` beside the target,
 * which is renamed to the target at close.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/util.h"
#include "format/avro/avro.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_writer.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "format/parquet/pq_footer_json.h"
#include "io/fileio.h"
#include "meta/options.h"
#include "paimon/format.h"
#include "table/rolling_file_writer.h"

void pm_format_options_init(pm_format_options *o)
{
    static const pm_format_options init = PM_FORMAT_OPTIONS_INIT;
    *o = init;
}

static pm_error *check_options(const pm_format_options *o)
{
    if (o->version != PM_FORMAT_OPTIONS_VERSION)
        return pm_error_new(PM_EINVALID, "format options version %d (this library knows %d)", o->version,
                            PM_FORMAT_OPTIONS_VERSION);
    if ((o->ncolumns && !o->columns) || (o->noptions && (!o->option_keys || !o->option_values)))
        return pm_error_new(PM_EINVALID, "a count is set but its array is NULL");
    if (o->batch_rows < 0)
        return pm_error_new(PM_EINVALID, "batch_rows %lld is negative", (long long)o->batch_rows);
    return NULL;
}

/* ---- reader ---- */

typedef struct format_def {
    const char *name;
    bool (*detect)(const uint8_t *head, size_t nhead, const uint8_t *tail, size_t ntail);
} format_def;

static bool pq_detect(const uint8_t *head, size_t nhead, const uint8_t *tail, size_t ntail)
{
    return nhead >= 4 && !memcmp(head, "PAR1", 4) && ntail >= 4 &&
           (!memcmp(tail + ntail - 4, "PAR1", 4) || !memcmp(tail + ntail - 4, "PARE", 4));
}

static bool avro_detect(const uint8_t *head, size_t nhead, const uint8_t *tail, size_t ntail)
{
    (void)tail;
    (void)ntail;
    return nhead >= 4 && !memcmp(head, "Obj\x01", 4);
}

static bool orc_detect(const uint8_t *head, size_t nhead, const uint8_t *tail, size_t ntail)
{
    (void)tail;
    (void)ntail;
    return nhead >= 3 && !memcmp(head, "ORC", 3);
}

enum { FMT_PARQUET, FMT_AVRO, FMT_ORC };
static const format_def FORMATS[] = {{"parquet", pq_detect}, {"avro", avro_detect}, {"orc", orc_detect}};

struct pm_format_reader {
    pm_fileio *fio;
    pm_input *in;
    int fmt;
    pm_pq_reader *pq;
    pm_avro_reader *avro;
    pm_orc_reader *orc;
    pm_type *avro_type;
    int64_t rows;
};

/* The Avro file's row type, keeping only `columns` (in that order). */
static pm_error *avro_row_type(pm_input *in, const pm_format_options *o, pm_type **out, int64_t *rows)
{
    *out = NULL;
    pm_avro_file *f;
    PM_TRY(pm_avro_file_open(in, NULL, &f));
    pm_type *all = NULL;
    pm_error *e = pm_avro_schema_to_type(pm_avro_file_schema(f)->root, &all);
    pm_avro_file_close(f);
    *rows = -1;
    if (e || !o->columns) {
        *out = all;
        return e;
    }
    if (all->id != PM_TYPE_ROW) {
        pm_type_free(all);
        return pm_error_new(PM_EUNSUPPORTED, "the Avro file's schema is not a record");
    }
    pm_type *row = pm_type_new_row(all->nullable);
    if (!row)
        e = pm_oom();
    for (size_t i = 0; !e && i < o->ncolumns; i++) {
        ptrdiff_t k = pm_type_field_index(all, o->columns[i]);
        if (k < 0) {
            e = pm_error_new(PM_EINVALID, "column '%s' is not in the file", o->columns[i]);
            break;
        }
        pm_type *ft = pm_type_clone(all->fields[k].type);
        e = ft ? pm_type_add_field(row, all->fields[k].id, all->fields[k].name, ft) : pm_oom();
    }
    pm_type_free(all);
    if (e) {
        pm_type_free(row);
        return e;
    }
    *out = row;
    return NULL;
}

static pm_error *detect(pm_input *in, int *fmt)
{
    uint64_t size = pm_input_size(in);
    uint8_t head[16], tail[16];
    size_t nh = size < 16 ? (size_t)size : 16, nt = nh;
    if (nh)
        PM_TRY(pm_input_read_at(in, 0, head, nh));
    if (nt)
        PM_TRY(pm_input_read_at(in, size - nt, tail, nt));
    for (int i = 0; i < (int)(sizeof FORMATS / sizeof FORMATS[0]); i++)
        if (FORMATS[i].detect(head, nh, tail, nt)) {
            *fmt = i;
            return NULL;
        }
    if (!size)
        return pm_error_new(PM_ECORRUPT, "file %s: empty file", pm_input_path(in));
    return pm_error_new(PM_EUNSUPPORTED, "file %s: unknown data file format (no Parquet, Avro or ORC magic)",
                        pm_input_path(in));
}

pm_error *pm_format_reader_open(pm_format_reader **out, const char *path, const pm_format_options *o)
{
    *out = NULL;
    pm_format_options defaults = PM_FORMAT_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    PM_TRY(check_options(o));
    pm_format_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    pm_error *e = pm_fileio_local_new(&r->fio);
    if (!e)
        e = pm_input_open(r->fio, path, &r->in);
    if (!e)
        e = detect(r->in, &r->fmt);
    if (!e && r->fmt == FMT_PARQUET) {
        pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
        ro.columns = o->columns;
        ro.ncolumns = o->ncolumns;
        ro.batch_rows = o->batch_rows;
        e = pm_pq_reader_open(&r->pq, r->in, &ro);
        if (!e)
            r->rows = pm_pq_reader_meta(r->pq)->num_rows;
    } else if (!e && r->fmt == FMT_ORC) {
        pm_orc_reader_options ro = PM_ORC_READER_OPTIONS_INIT;
        ro.columns = o->columns;
        ro.ncolumns = o->ncolumns;
        ro.batch_rows = o->batch_rows;
        e = pm_orc_reader_open(&r->orc, r->in, &ro);
        if (!e)
            r->rows = (int64_t)pm_orc_reader_info(r->orc)->rows;
    } else if (!e) {
        e = avro_row_type(r->in, o, &r->avro_type, &r->rows);
        pm_avro_read_options ro = {o->batch_rows, 0};
        if (!e)
            e = pm_avro_reader_open(r->in, r->avro_type, &ro, &r->avro);
    }
    if (e) {
        pm_format_reader_free(r);
        return pm_error_wrap(e, 0, "read %s", path);
    }
    *out = r;
    return NULL;
}

const char *pm_format_reader_format(const pm_format_reader *r) { return FORMATS[r->fmt].name; }

const pm_type *pm_format_reader_type(const pm_format_reader *r)
{
    return r->pq ? pm_pq_reader_schema(r->pq) : r->orc ? pm_orc_reader_schema(r->orc) : pm_avro_reader_type(r->avro);
}

int64_t pm_format_reader_row_count(const pm_format_reader *r) { return r->rows; }

pm_error *pm_format_reader_next(const pm_batch **out, pm_format_reader *r)
{
    pm_batch *b = NULL;
    *out = NULL;
    PM_TRY(r->pq    ? pm_pq_reader_next_batch(r->pq, &b)
           : r->orc ? pm_orc_reader_next_batch(r->orc, &b)
                    : pm_avro_reader_next(r->avro, &b));
    *out = b;
    return NULL;
}

void pm_format_reader_free(pm_format_reader *r)
{
    if (!r)
        return;
    pm_pq_reader_free(r->pq);
    pm_avro_reader_free(r->avro);
    pm_orc_reader_free(r->orc);
    pm_type_free(r->avro_type);
    pm_input_close(r->in);
    pm_fileio_free(r->fio);
    free(r);
}

/* ---- writer ---- */

/* The table options the file writers read. */
static const char *const WRITE_KEYS[] = {
    "file.compression", "file.compression.zstd-level", "file.block-size", "parquet.compression",
    "parquet.compression.codec.zstd.level", "parquet.block.size", "parquet.page.size",
    "parquet.dictionary.page.size", "parquet.page.row.count.limit", "parquet.enable.dictionary",
    "parquet.page.write-checksum.enabled", "parquet.writer.version",
    /* ORC (pm_orc_writer_options_from_table) */
    "orc.compress", "orc.compression.zstd.level", "orc.compression.zstd.windowlog", "orc.stripe.size",
    "orc.stripe.row.count", "orc.block.size", "orc.block.padding", "orc.block.padding.tolerance",
    "orc.row.index.stride", "orc.compress.size", "orc.buffer.size.enforce", "orc.dictionary.key.threshold",
    "orc.dictionary.early.check", "orc.column.encoding.direct", "orc.write.format", "orc.encoding.strategy",
    "orc.compression.strategy", "orc.rows.between.memory.checks", "write.batch-size", "orc.bloom.filter.columns",
    "orc.encrypt", "orc.mask", "orc.proleptic.gregorian", "orc.create.index",
};

struct pm_format_writer {
    pm_fileio *fio;
    char *path;
    char *tmp;
    pm_output *out;
    pm_pq_writer *pq;
    pm_avro_writer *avro;
    pm_orc_writer *orc;
    char *orc_names;
    pm_options *opts;
    pm_type *type;
};

static const char *lookup(void *ctx, const char *key) { return pm_options_get(ctx, key); }

static pm_error *writer_options(const pm_format_options *o, pm_options **out)
{
    PM_TRY(pm_options_new(out));
    for (size_t i = 0; i < o->noptions; i++) {
        const char *k = o->option_keys[i], *v = o->option_values[i];
        bool known = false;
        for (size_t j = 0; k && j < sizeof WRITE_KEYS / sizeof WRITE_KEYS[0] && !known; j++)
            known = !strcmp(k, WRITE_KEYS[j]);
        if (!known || !v)
            return pm_error_new(PM_EINVALID, "option '%s' is not a file writer option", k ? k : "(null)");
        PM_TRY(pm_options_set(*out, k, v));
    }
    return NULL;
}

pm_error *pm_format_writer_create(pm_format_writer **out, const char *path, const pm_type *row_type,
                                  const pm_format_options *o)
{
    *out = NULL;
    pm_format_options defaults = PM_FORMAT_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    PM_TRY(check_options(o));
    const char *format = o->format ? o->format : "parquet";
    if (strcmp(format, "parquet") && strcmp(format, "avro") && strcmp(format, "orc"))
        return pm_error_new(PM_EUNSUPPORTED, "file format '%s' (parquet, avro or orc)", format);
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "a data file needs a ROW type");
    pm_format_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    bool exists = false;
    char uuid[37];
    pm_error *e = writer_options(o, &w->opts);
    if (!e)
        e = pm_fileio_local_new(&w->fio);
    if (!e)
        e = pm_fileio_exists(w->fio, path, &exists);
    if (!e && exists)
        e = pm_error_new(PM_EEXIST, "%s already exists", path);
    if (!e)
        e = pm_strdup(&w->path, path);
    if (!e)
        e = pm_uuid(uuid);
    if (!e) {
        const char *slash = strrchr(path, '/');
        size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
        size_t n = strlen(path) + 64;
        if (!(w->tmp = malloc(n)))
            e = pm_oom();
        else
            snprintf(w->tmp, n, "%.*s.%s.%s.tmp", (int)dir, path, path + dir, uuid);
    }
    if (!e && !(w->type = pm_type_clone(row_type)))
        e = pm_oom();
    if (!e)
        e = pm_output_create(w->fio, w->tmp, false, &w->out);
    if (!e && !strcmp(format, "parquet")) {
        pm_pq_writer_options po;
        pm_pq_writer_options_default(&po);
        e = pm_pq_writer_options_from_table(&po, lookup, w->opts);
        if (!e)
            e = pm_pq_writer_new(&w->pq, w->out, w->type, &po);
    } else if (!e && !strcmp(format, "orc")) {
        pm_orc_writer_options oo;
        pm_orc_writer_options_default(&oo);
        bool present = false;
        int64_t block = -1;
        e = pm_options_memory(w->opts, PM_OPT_FILE_BLOCK_SIZE, &present, &block);
        if (!e)
            e = pm_orc_writer_options_from_table(&oo, lookup, w->opts, present ? block : -1, &w->orc_names);
        if (!e)
            e = pm_orc_writer_new(&w->orc, w->out, w->type, &oo);
    } else if (!e) {
        pm_avro_write_options ao;
        e = pm_roll_avro_codec(w->opts, pm_options_get(w->opts, "file.compression"), &ao);
        if (!e)
            e = pm_avro_writer_open(w->out, w->type, &ao, &w->avro);
    }
    if (e) {
        pm_format_writer_abort(w);
        return pm_error_wrap(e, 0, "write %s", path);
    }
    *out = w;
    return NULL;
}

pm_error *pm_format_writer_write(pm_format_writer *w, const pm_batch *b)
{
    return w->pq ? pm_pq_writer_write(w->pq, b) : w->orc ? pm_orc_writer_write(w->orc, b) : pm_avro_writer_write(w->avro, b);
}

static void writer_free(pm_format_writer *w)
{
    pm_output_abort(w->out);
    pm_fileio_free(w->fio);
    pm_options_free(w->opts);
    pm_type_free(w->type);
    free(w->orc_names);
    free(w->path);
    free(w->tmp);
    free(w);
}

pm_error *pm_format_writer_close(pm_format_writer *w)
{
    pm_error *e = NULL;
    if (w->pq) {
        e = pm_pq_writer_close(w->pq, NULL);
        w->pq = NULL;
    } else if (w->orc) {
        e = pm_orc_writer_close(w->orc, NULL);
        w->orc = NULL;
    } else {
        e = pm_avro_writer_finish(w->avro);
        pm_avro_writer_free(w->avro);
        w->avro = NULL;
    }
    if (!e) {
        e = pm_output_close(w->out, true);
        w->out = NULL;
    }
    if (!e)
        e = pm_fileio_rename(w->fio, w->tmp, w->path);
    if (e && !w->out)
        pm_error_free(pm_fileio_delete(w->fio, w->tmp));
    e = pm_error_wrap(e, 0, "write %s", w->path);
    writer_free(w);
    return e;
}

void pm_format_writer_abort(pm_format_writer *w)
{
    if (!w)
        return;
    pm_pq_writer_abort(w->pq);
    pm_orc_writer_abort(w->orc);
    pm_avro_writer_free(w->avro);
    writer_free(w);
}

pm_error *pm_parquet_footer_json(char **out, const char *path)
{
    *out = NULL;
    pm_fileio *fio = NULL;
    PM_TRY(pm_fileio_local_new(&fio));
    pm_error *e = pm_pq_footer_json(fio, path, out);
    pm_fileio_free(fio);
    return e;
}
