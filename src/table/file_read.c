/*
 * table/file_read.c — one data file as batches of the requested row type
 * (see file_read.h).
 *
 * Open:
 *  1. Path: `_EXTERNAL_PATH` (under the table's external roots; a "file:"
 *     scheme is stripped) or <bucket dir>/<file name> (a plain name), else
 *     PM_ECORRUPT (meta/safe_path.h); format from the extension (.parquet,
 *     .avro, .orc; .blob and others are PM_EUNSUPPORTED naming them).
 *  2. The file's schema (its `_SCHEMA_ID`) gives, for each requested field
 *     id, the name the column has in the file and its type then; a field
 *     the file's schema lacks, or one outside `_WRITE_COLS` when the file
 *     holds a subset, reads as null.  Key-value files (tables with primary
 *     keys) hold [_KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND, value fields]:
 *     only value fields and, on request, the two system columns are read.
 *  3. The format reader projects exactly those columns (Parquet by name;
 *     Avro with a read type made of the file schema's types; ORC by name
 *     with that read type carrying the file schema's field ids, which the
 *     ORC reader matches first, as Paimon's ORC reader does).
 *  4. Each output column gets a plan: file reader type → file schema type
 *     (a relabel when only the label differs, e.g. TIMESTAMP(3) read for
 *     TIMESTAMP(0)) → requested type (a schema-evolution cast, cast.h).
 * Skip (Parquet): the format reader passes over rows (pm_pq_reader_skip),
 * the position counts them.
 * Next: one format batch → one output batch; columns needing no cast are
 * shared with the format reader (reference counted), others are written
 * into reused work columns.  One file is open per reader; memory is one
 * format batch plus the cast columns.
 */
#include "table/file_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "format/avro/avro.h"
#include "format/orc/orc_reader.h"
#include "format/parquet/parquet_reader.h"
#include "meta/safe_path.h"
#include "table/cast.h"
#include "types/column.h"

#define SEQ_NAME "_SEQUENCE_NUMBER"
#define KIND_NAME "_VALUE_KIND"

typedef enum fmt { FMT_PARQUET, FMT_AVRO, FMT_ORC } fmt;

typedef struct out_map {
    ptrdiff_t phys;        /* index in the format batch, -1 = null column */
    pm_cast_kind k1;       /* reader type → file schema type */
    pm_cast_kind k2;       /* file schema type → requested type */
    pm_type *stage_type;   /* file schema type (for two-step casts), owned */
    pm_column *stage;      /* work column of stage_type, owned */
    pm_column *work;       /* work column of the output type, owned */
} out_map;

struct pm_file_reader {
    char *path;
    fmt format;
    pm_input *in;
    pm_pq_reader *pq;
    pm_avro_reader *av;
    pm_orc_reader *orc;
    pm_type *out_type;     /* requested row type (+ system columns) */
    pm_batch *out;
    out_map *map;
    size_t nout;
    int64_t next_pos;      /* position of the next row */
    int64_t last_pos;      /* position of the first row of the last batch */
    int64_t batch_rows;
    pm_codec_ctx *codec;   /* borrowed (options), may be NULL */
    pm_buf scratch;
    int64_t schema_id;     /* the file's schema */
    bool write_cols;       /* the file holds a subset of columns */
    struct phys_list *pl;  /* the physical columns asked of the format reader (owned) */
};

size_t pm_file_reader_memory(const pm_file_reader *r)
{
    return (r->pq ? pm_pq_reader_memory(r->pq) : 0) + r->scratch.cap;
}

static void phys_list_free(struct phys_list *pl);

void pm_file_reader_free(pm_file_reader *r)
{
    if (!r)
        return;
    pm_pq_reader_free(r->pq);
    pm_avro_reader_free(r->av);
    pm_orc_reader_free(r->orc);
    pm_input_close(r->in);
    for (size_t i = 0; i < r->nout; i++) {
        pm_type_free(r->map[i].stage_type);
        pm_column_release(r->map[i].stage);
        pm_column_release(r->map[i].work);
    }
    free(r->map);
    pm_batch_free(r->out);
    pm_type_free(r->out_type);
    pm_buf_free(&r->scratch);
    phys_list_free(r->pl);
    free(r->path);
    free(r);
}

int64_t pm_file_reader_position(const pm_file_reader *r) { return r->last_pos; }

bool pm_file_reader_can_skip(const pm_file_reader *r) { return r->format == FMT_PARQUET; }

pm_error *pm_file_reader_skip(pm_file_reader *r, int64_t rows, int64_t *skipped)
{
    *skipped = 0;
    if (r->format != FMT_PARQUET)
        return pm_error_new(PM_EUNSUPPORTED, "data file %s: skipping rows is supported for Parquet files only",
                            r->path);
    PM_TRY(pm_error_wrap(pm_pq_reader_skip(r->pq, rows, skipped), 0, "data file %s", r->path));
    r->next_pos += *skipped;
    return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

/* The file's path: its external path (under the table's roots, those of
 * its own schema included) or its plain name in the bucket directory. */
static pm_error *file_path(pm_table *t, const char *bucket_dir, const pm_data_file_meta *f, char **out)
{
    PM_TRY(pm_safe_file_name(PM_ECORRUPT, "data file _FILE_NAME", f->file_name));
    if (f->external_path) {
        char field[512];
        snprintf(field, sizeof field, "_EXTERNAL_PATH of data file %s", f->file_name);
        PM_TRY(pm_table_check_external_path(t, f->schema_id, field, f->external_path));
        return pm_strdup(out, pm_safe_path_local(f->external_path));
    }
    *out = pm_path_join(bucket_dir, f->file_name);
    return *out ? NULL : pm_oom();
}

static pm_error *detect_format(const char *name, fmt *out)
{
    if (ends_with(name, ".parquet")) {
        *out = FMT_PARQUET;
        return NULL;
    }
    if (ends_with(name, ".avro")) {
        *out = FMT_AVRO;
        return NULL;
    }
    if (ends_with(name, ".orc")) {
        *out = FMT_ORC;
        return NULL;
    }
    if (ends_with(name, ".blob"))
        return pm_error_new(PM_EUNSUPPORTED, "data file %s: blob files (data evolution tables) are not supported yet",
                            name);
    const char *dot = strrchr(name, '.');
    return pm_error_new(PM_EUNSUPPORTED, "data file %s: format '%s' is not supported", name, dot ? dot + 1 : "?");
}

static bool in_list(const pm_str_list *l, const char *s)
{
    for (size_t i = 0; i < l->count; i++)
        if (!strcmp(l->items[i], s))
            return true;
    return false;
}

/* Physical column requests: names (for Parquet), types (for Avro and
 * ORC) and field ids (ORC). */
typedef struct phys_list {
    const char **names;
    const pm_type **types;
    int32_t *ids;
    size_t n;
    const char **dict;          /* names read dictionary-encoded where the file allows */
    size_t ndict;
} phys_list;

static void phys_free(phys_list *pl)
{
    free(pl->names);
    free(pl->types);
    free(pl->ids);
    free(pl->dict);
}

static void phys_list_free(struct phys_list *pl)
{
    if (pl)
        phys_free(pl);
    free(pl);
}

/* Dictionary passthrough for requested field `want` read as file field
 * `df` without a cast. */
static pm_error *dict_add(phys_list *pl, const char *const *dict, size_t ndict, const char *want,
                          const pm_field *df)
{
    bool asked = false;
    for (size_t i = 0; !asked && i < ndict; i++)
        asked = dict[i] && !strcmp(dict[i], want);
    if (!asked || (df->type->id != PM_TYPE_VARCHAR && df->type->id != PM_TYPE_CHAR))
        return NULL;
    PM_TRY(pm_realloc_array(&pl->dict, pl->ndict + 1, sizeof *pl->dict));
    pl->dict[pl->ndict++] = df->name;
    return NULL;
}

static pm_error *phys_add(phys_list *pl, int32_t id, const char *name, const pm_type *type, ptrdiff_t *idx)
{
    for (size_t i = 0; i < pl->n; i++)
        if (!strcmp(pl->names[i], name)) {
            *idx = (ptrdiff_t)i;
            return NULL;
        }
    PM_TRY(pm_realloc_array(&pl->names, pl->n + 1, sizeof *pl->names));
    PM_TRY(pm_realloc_array(&pl->types, pl->n + 1, sizeof *pl->types));
    PM_TRY(pm_realloc_array(&pl->ids, pl->n + 1, sizeof *pl->ids));
    pl->names[pl->n] = name;
    pl->types[pl->n] = type;
    pl->ids[pl->n] = id;
    *idx = (ptrdiff_t)pl->n++;
    return NULL;
}

static pm_error *build_out_type(const pm_file_read_options *o, bool sys, pm_type **out)
{
    pm_type *t = pm_type_new_row(false);
    if (!t)
        return pm_oom();
    pm_error *e = NULL;
    if (sys) {
        pm_type *seq = pm_type_new(PM_TYPE_BIGINT, false), *kind = pm_type_new(PM_TYPE_TINYINT, false);
        if (!seq || !kind) {
            pm_type_free(seq);
            pm_type_free(kind);
            e = pm_oom();
        }
        if (!e)
            e = pm_type_add_field(t, 2147483646, SEQ_NAME, seq);
        else
            pm_type_free(seq);
        if (!e)
            e = pm_type_add_field(t, 2147483645, KIND_NAME, kind);
        else
            pm_type_free(kind);
    }
    for (size_t i = 0; !e && i < o->read_type->nfields; i++) {
        const pm_field *f = &o->read_type->fields[i];
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(t, f->id, f->name, ft) : pm_oom();
        if (e && ft)
            pm_type_free(ft);
    }
    if (e) {
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

/* recycle: the previous file's Parquet reader, whose buffers the new one
 * takes (pm_pq_reader_options.recycle; the caller frees it), or NULL. */
static pm_error *open_format(pm_file_reader *r, pm_table *t, const phys_list *pl, pm_pq_reader *recycle)
{
    PM_TRY(pm_input_open(t->fio, r->path, &r->in));
    if (r->format == FMT_PARQUET) {
        pm_pq_reader_options po = PM_PQ_READER_OPTIONS_INIT;
        po.batch_rows = r->batch_rows;
        po.columns = pl->names;
        po.ncolumns = pl->n;
        po.dict_columns = pl->dict;
        po.ndict_columns = pl->ndict;
        po.codec = r->codec;
        po.recycle = recycle;
        if (pl->n == 0) {
            /* nothing to read but the row count: project nothing */
            po.columns = NULL;
            po.column_ids = NULL;
        }
        return pm_pq_reader_open(&r->pq, r->in, &po);
    }
    /* Avro: a read type of the file schema's types; ORC: the same with the
     * field ids (the file's paimon.id attributes), projected by name */
    bool orc = r->format == FMT_ORC;
    pm_type *rt = pm_type_new_row(false);
    if (!rt)
        return pm_oom();
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < pl->n; i++) {
        pm_type *ft = pm_type_clone(pl->types[i]);
        e = ft ? pm_type_add_field(rt, orc ? pl->ids[i] : (int32_t)i, pl->names[i], ft) : pm_oom();
        if (e && ft)
            pm_type_free(ft);
    }
    if (!e && orc) {
        pm_orc_reader_options oo = PM_ORC_READER_OPTIONS_INIT;
        oo.batch_rows = r->batch_rows;
        static const char *const no_columns[1] = {NULL}; /* count rows only */
        oo.columns = pl->n ? pl->names : no_columns;
        oo.ncolumns = pl->n;
        oo.read_type = rt;
        oo.codec = r->codec;
        e = pm_orc_reader_open(&r->orc, r->in, &oo);
    } else if (!e) {
        pm_avro_read_options ao = {r->batch_rows, 0};
        e = pm_avro_reader_open(r->in, rt, &ao, &r->av);
    }
    pm_type_free(rt);
    return e;
}

/* Format reader type → file schema type, per output column. */
static pm_error *plan_relabel(pm_file_reader *r)
{
    const pm_type *rt = r->format == FMT_PARQUET ? pm_pq_reader_schema(r->pq)
                        : r->format == FMT_ORC   ? pm_orc_reader_schema(r->orc)
                                                 : pm_avro_reader_type(r->av);
    for (size_t i = 0; i < r->nout; i++) {
        out_map *m = &r->map[i];
        if (m->phys < 0)
            continue;
        if ((size_t)m->phys >= rt->nfields)
            return pm_error_new(PM_EINTERNAL, "format reader returned %zu columns, expected more", rt->nfields);
        const pm_type *have = rt->fields[m->phys].type;
        const pm_type *want = m->stage_type ? m->stage_type : r->out_type->fields[i].type;
        PM_TRY(pm_error_wrap(pm_cast_plan_relabel(have, want, &m->k1), 0, "column '%s'", rt->fields[m->phys].name));
        if (!m->stage_type)
            m->k2 = PM_CAST_IDENTITY;
    }
    return NULL;
}

pm_error *pm_file_reader_open(pm_file_reader **out, pm_table *t, const char *bucket_dir,
                              const pm_data_file_meta *file, const pm_file_read_options *o)
{
    return pm_file_reader_open_dict(out, t, bucket_dir, file, o, NULL, 0);
}

pm_error *pm_file_reader_open_dict(pm_file_reader **out, pm_table *t, const char *bucket_dir,
                                   const pm_data_file_meta *file, const pm_file_read_options *o,
                                   const char *const *dict_columns, size_t ndict_columns)
{
    *out = NULL;
    if (!o || !o->read_type || o->read_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "file reader needs a ROW read type");
    pm_file_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->batch_rows = o->batch_rows > 0 ? o->batch_rows : 4096;
    r->codec = o->codec;
    phys_list pl = {0};
    pm_error *e = NULL;
    const pm_schema *ds = NULL;
    PM_TRY_GOTO(e, file_path(t, bucket_dir, file, &r->path), fail);
    PM_TRY_GOTO(e, detect_format(file->file_name, &r->format), fail);
    PM_TRY_GOTO(e, pm_error_wrap(pm_table_schema_by_id(t, file->schema_id, &ds), 0, "schema %" PRId64 " of the file",
                                 file->schema_id),
                fail);
    bool kv = ds->primary_keys.count > 0;
    bool sys = o->with_system_columns;
    if (sys && !kv) {
        e = pm_error_new(PM_EINVALID, "system columns requested from a file of a table without primary keys");
        goto fail;
    }
    PM_TRY_GOTO(e, build_out_type(o, sys, &r->out_type), fail);
    r->nout = r->out_type->nfields;
    PM_TRY_GOTO(e, pm_calloc(&r->map, r->nout ? r->nout : 1, sizeof *r->map), fail);
    for (size_t i = 0; i < r->nout; i++) {
        out_map *m = &r->map[i];
        m->phys = -1;
        const pm_field *of = &r->out_type->fields[i];
        if (sys && i < 2) {
            /* system columns: physical, NOT NULL, fixed types */
            PM_TRY_GOTO(e, phys_add(&pl, of->id, of->name, of->type, &m->phys), fail);
            continue;
        }
        if (of->id == PM_ROW_ID_FIELD_ID || of->id == PM_SEQUENCE_NUMBER_FIELD_ID) {
            /* row tracking: physical only where the file lists it */
            if (!kv && file->has_write_cols && in_list(&file->write_cols, of->name))
                PM_TRY_GOTO(e, phys_add(&pl, of->id, of->name, of->type, &m->phys), fail);
            continue;
        }
        ptrdiff_t fi = pm_type_field_index_by_id(ds->row_type, of->id);
        if (fi < 0)
            continue; /* added after the file was written */
        const pm_field *df = &ds->row_type->fields[fi];
        if (file->has_write_cols && !in_list(&file->write_cols, df->name))
            continue; /* not in this file */
        PM_TRY_GOTO(e, phys_add(&pl, df->id, df->name, df->type, &m->phys), fail);
        PM_TRY_GOTO(e, pm_error_wrap(pm_cast_plan(df->type, of->type, &m->k2), 0, "field '%s'", of->name), fail);
        if (m->k2 == PM_CAST_IDENTITY)
            PM_TRY_GOTO(e, dict_add(&pl, dict_columns, ndict_columns, of->name, df), fail);
        m->stage_type = pm_type_clone(df->type);
        if (!m->stage_type) {
            e = pm_oom();
            goto fail;
        }
    }
    PM_TRY_GOTO(e, open_format(r, t, &pl, NULL), fail);
    PM_TRY_GOTO(e, plan_relabel(r), fail);
    PM_TRY_GOTO(e, pm_batch_new(&r->out, r->out_type), fail);
    PM_TRY_GOTO(e, pm_calloc(&r->pl, 1, sizeof *r->pl), fail);
    *r->pl = pl;
    r->schema_id = file->schema_id;
    r->write_cols = file->has_write_cols;
    *out = r;
    return NULL;
fail:
    phys_free(&pl);
    e = pm_error_wrap(e, 0, "data file %s", r->path ? r->path : file->file_name);
    pm_file_reader_free(r);
    return e;
}

pm_error *pm_file_reader_reopen(pm_file_reader **rp, pm_table *t, const char *bucket_dir,
                                const pm_data_file_meta *file, const pm_file_read_options *o,
                                const char *const *dict_columns, size_t ndict_columns)
{
    pm_file_reader *r = *rp;
    fmt f = FMT_PARQUET;
    bool same = r && r->schema_id == file->schema_id && !r->write_cols && !file->has_write_cols;
    if (same) {
        pm_error *fe = detect_format(file->file_name, &f);
        same = !fe && f == r->format;
        pm_error_free(fe); /* the full open reports it */
    }
    if (!same) {
        pm_file_reader_free(r);
        *rp = NULL;
        return pm_file_reader_open_dict(rp, t, bucket_dir, file, o, dict_columns, ndict_columns);
    }
    /* the same schema, columns and format: only the file changes */
    for (size_t i = 0; i < r->nout; i++) {
        pm_column_release(r->out->columns[i]);
        r->out->columns[i] = NULL;
    }
    r->out->num_rows = 0;
    pm_pq_reader *old_pq = r->pq; /* its buffers go to the next file's reader, then it is freed */
    pm_avro_reader_free(r->av);
    pm_orc_reader_free(r->orc);
    r->pq = NULL;
    r->av = NULL;
    r->orc = NULL;
    pm_input_close(r->in);
    r->in = NULL;
    free(r->path);
    r->path = NULL;
    r->next_pos = r->last_pos = 0;
    pm_error *e = file_path(t, bucket_dir, file, &r->path);
    if (!e)
        e = open_format(r, t, r->pl, old_pq);
    pm_pq_reader_free(old_pq);
    if (!e)
        e = plan_relabel(r);
    if (e) {
        e = pm_error_wrap(e, 0, "data file %s", r->path ? r->path : file->file_name);
        pm_file_reader_free(r);
        *rp = NULL;
    }
    return e;
}

bool pm_file_reader_column_no_dict(const pm_file_reader *r, size_t i)
{
    if (i >= r->nout || r->format != FMT_PARQUET)
        return false;
    const out_map *m = &r->map[i];
    return m->phys >= 0 && m->k1 == PM_CAST_IDENTITY && m->k2 == PM_CAST_IDENTITY &&
           pm_pq_reader_column_no_dict(r->pq, (size_t)m->phys);
}

void pm_file_reader_page_counts(const pm_file_reader *r, uint64_t *loaded, uint64_t *skipped)
{
    *loaded = 0;
    *skipped = 0;
    if (r->format == FMT_PARQUET && r->pq)
        pm_pq_reader_page_counts(r->pq, loaded, skipped);
}

bool pm_file_reader_parquet_leaf(const pm_file_reader *r, size_t i, uint32_t *leaf, pm_input **in,
                                 const pm_pq_file_meta **meta)
{
    if (i >= r->nout || r->format != FMT_PARQUET || !r->in)
        return false;
    const out_map *m = &r->map[i];
    if (m->phys < 0 || m->k1 != PM_CAST_IDENTITY || m->k2 != PM_CAST_IDENTITY)
        return false;
    const pm_type *st = pm_pq_reader_schema(r->pq);
    if (!st || (size_t)m->phys >= st->nfields)
        return false;
    int64_t l = pm_pq_reader_leaf_of(r->pq, st->fields[m->phys].name);
    if (l < 0)
        return false;
    *leaf = (uint32_t)l;
    *in = r->in;
    *meta = pm_pq_reader_meta(r->pq);
    return true;
}

/* A work column of `type` with no rows that nobody else references. */
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

pm_error *pm_file_reader_next(pm_file_reader *r, const pm_batch **out)
{
    *out = NULL;
    /* drop the previous batch's references first, so the format reader and
     * our work columns can reuse their buffers */
    for (size_t i = 0; i < r->nout; i++) {
        pm_column_release(r->out->columns[i]);
        r->out->columns[i] = NULL;
    }
    r->out->num_rows = 0;
    pm_batch *b = NULL;
    pm_error *e = r->format == FMT_PARQUET ? pm_pq_reader_next_batch(r->pq, &b)
                  : r->format == FMT_ORC   ? pm_orc_reader_next_batch(r->orc, &b)
                                           : pm_avro_reader_next(r->av, &b);
    if (e)
        return pm_error_wrap(e, 0, "data file %s", r->path);
    if (!b)
        return NULL;
    int64_t n = b->num_rows;
    for (size_t i = 0; i < r->nout; i++) {
        out_map *m = &r->map[i];
        pm_column *col = NULL;
        const pm_type *ot = r->out_type->fields[i].type;
        if (m->phys < 0) {
            PM_TRY(fresh_work(&m->work, ot));
            PM_TRY(pm_column_reserve(m->work, n));
            for (int64_t k = 0; k < n; k++)
                PM_TRY(pm_column_append_null(m->work));
            col = m->work;
        } else {
            pm_column *src = b->columns[m->phys], *plain = NULL;
            if (src->dictionary && (m->k1 != PM_CAST_IDENTITY || m->k2 != PM_CAST_IDENTITY)) {
                /* casts read values: a dictionary-encoded column is decoded first */
                PM_TRY(pm_error_wrap(pm_column_decode(&plain, src), 0, "data file %s: field '%s'", r->path,
                                     r->out_type->fields[i].name));
                pm_column_release(b->columns[m->phys]);
                b->columns[m->phys] = src = plain;
            }
            if (m->k1 == PM_CAST_IDENTITY && m->k2 == PM_CAST_IDENTITY) {
                col = src;
            } else if (m->k1 == PM_CAST_IDENTITY || m->k2 == PM_CAST_IDENTITY) {
                pm_cast_kind k = m->k1 == PM_CAST_IDENTITY ? m->k2 : m->k1;
                PM_TRY(fresh_work(&m->work, ot));
                e = pm_cast_append(src, m->work, k, &r->scratch);
                col = m->work;
            } else {
                PM_TRY(fresh_work(&m->stage, m->stage_type));
                e = pm_cast_append(src, m->stage, m->k1, &r->scratch);
                if (!e) {
                    PM_TRY(fresh_work(&m->work, ot));
                    e = pm_cast_append(m->stage, m->work, m->k2, &r->scratch);
                }
                col = m->work;
            }
            if (e)
                return pm_error_wrap(e, 0, "data file %s: field '%s'", r->path, r->out_type->fields[i].name);
        }
        r->out->columns[i] = pm_column_retain(col);
    }
    r->out->num_rows = n;
    r->last_pos = r->next_pos;
    r->next_pos += n;
    *out = r->out;
    return NULL;
}
