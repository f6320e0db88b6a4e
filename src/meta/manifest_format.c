/*
 * meta/manifest_format.c — Avro and ORC under the metadata files (rules in
 * manifest_format.h).
 *
 * Reading ORC: open once to learn the file's schema, build the read type
 * (the requested fields the file has, by name, with the file's field ids
 * and our types), reopen with it; each batch is conformed to the
 * requested type (pm_mf_conform).  Conforming builds new columns only for
 * rows and arrays of rows whose field sets differ; other columns are
 * shared (reference counted), missing ones are all-null columns.
 */
#include "meta/manifest_format.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "format/orc/orc_reader.h"
#include "types/column.h"

/* ------------------------------------------------------------------ */
/* conforming batches                                                  */

static pm_error *null_column(const pm_type *t, int64_t n, pm_column **out)
{
    PM_TRY(pm_column_new(out, t));
    pm_error *e = pm_column_reserve(*out, n);
    for (int64_t i = 0; !e && i < n; i++)
        e = pm_column_append_null(*out);
    if (e) {
        pm_column_release(*out);
        *out = NULL;
    }
    return e;
}

static pm_error *buf_copy(pm_buf *dst, const pm_buf *src)
{
    pm_buf_clear(dst);
    return src->len ? pm_buf_append(dst, src->data, src->len) : NULL;
}

/* Does `src` (a column) need rebuilding to have type `t`? */
static bool same_shape(const pm_type *have, const pm_type *want)
{
    if (have->id != want->id)
        return false;
    switch (want->id) {
    case PM_TYPE_ROW:
        if (have->nfields != want->nfields)
            return false;
        for (size_t i = 0; i < want->nfields; i++)
            if (strcmp(have->fields[i].name, want->fields[i].name) ||
                !same_shape(have->fields[i].type, want->fields[i].type))
                return false;
        return true;
    case PM_TYPE_ARRAY:
    case PM_TYPE_MULTISET: return same_shape(have->element, want->element);
    case PM_TYPE_MAP: return same_shape(have->key, want->key) && same_shape(have->value, want->value);
    default: return true;
    }
}

static pm_error *conform_column(pm_column *src, const pm_type *want, pm_column **out);

/* A new column of type `want` with src's validity and offsets; its
 * children are built by `child(i)`. */
static pm_error *conform_nested(pm_column *src, const pm_type *want, pm_column **out)
{
    pm_column *c = NULL;
    PM_TRY(pm_column_new(&c, want));
    pm_error *e = NULL;
    c->length = src->length;
    c->null_count = src->null_count;
    PM_TRY_GOTO(e, buf_copy(&c->validity, &src->validity), fail);
    PM_TRY_GOTO(e, buf_copy(&c->offsets, &src->offsets), fail);
    if (want->id == PM_TYPE_ROW) {
        for (size_t i = 0; i < want->nfields; i++) {
            const pm_field *f = &want->fields[i];
            ptrdiff_t k = pm_type_field_index(src->type, f->name);
            pm_column *child = NULL;
            if (k < 0)
                e = null_column(f->type, src->length, &child);
            else
                e = conform_column(src->children[k], f->type, &child);
            if (e)
                goto fail;
            pm_column_release(c->children[i]);
            c->children[i] = child;
        }
    } else {
        /* ARRAY / MULTISET: one child; MAP: key and value */
        const pm_type *kids[2] = {want->id == PM_TYPE_MAP ? want->key : want->element, want->value};
        for (size_t i = 0; i < c->nchildren && i < src->nchildren; i++) {
            pm_column *child = NULL;
            PM_TRY_GOTO(e, conform_column(src->children[i], kids[i], &child), fail);
            pm_column_release(c->children[i]);
            c->children[i] = child;
        }
    }
    *out = c;
    return NULL;
fail:
    pm_column_release(c);
    return e;
}

static pm_error *conform_column(pm_column *src, const pm_type *want, pm_column **out)
{
    if (same_shape(src->type, want)) {
        *out = pm_column_retain(src);
        return NULL;
    }
    if (src->type->id != want->id || !pm_type_is_nested(want))
        return pm_error_new(PM_ECORRUPT, "column of type %s where %s is expected", pm_type_id_name(src->type->id),
                            pm_type_id_name(want->id));
    return conform_nested(src, want, out);
}

pm_error *pm_mf_conform(const pm_batch *src, const pm_type *type, pm_batch **out)
{
    *out = NULL;
    pm_batch *b = NULL;
    PM_TRY(pm_batch_new(&b, type));
    pm_error *e = NULL;
    for (size_t i = 0; i < type->nfields && !e; i++) {
        const pm_field *f = &type->fields[i];
        ptrdiff_t k = pm_type_field_index(src->type, f->name);
        pm_column *c = NULL;
        if (k < 0)
            e = null_column(f->type, src->num_rows, &c);
        else
            e = conform_column(src->columns[k], f->type, &c);
        if (!e) {
            pm_column_release(b->columns[i]);
            b->columns[i] = c;
        }
    }
    if (!e)
        e = pm_batch_finish(b, src->num_rows);
    if (e) {
        pm_batch_free(b);
        return e;
    }
    *out = b;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* reading                                                             */

struct pm_mf_reader {
    pm_input *in;
    pm_avro_reader *avro;
    pm_orc_reader *orc;
    const pm_type *type;
    pm_batch *conformed;
};

static pm_error *sniff(pm_input *in, const char *path, bool *orc)
{
    uint8_t m[4] = {0};
    uint64_t size = pm_input_size(in);
    if (size >= 4)
        PM_TRY(pm_input_read_at(in, 0, m, 4));
    *orc = false;
    if (size >= 4 && memcmp(m, "Obj\x01", 4) == 0)
        return NULL;
    if (size >= 3 && memcmp(m, "ORC", 3) == 0) {
        *orc = true;
        return NULL;
    }
    if (size >= 4 && memcmp(m, "PAR1", 4) == 0)
        return pm_error_new(PM_EUNSUPPORTED, "%s: manifest in Parquet format (manifest.format=parquet); "
                            "Avro and ORC manifests are supported", path);
    return pm_error_new(PM_ECORRUPT, "%s: not a manifest file (neither Avro nor ORC magic)", path);
}

/* The fields of `want` that `have` has (by name, recursively), with
 * have's field ids and want's types; *out NULL when none. */
static pm_error *intersect(const pm_type *have, const pm_type *want, pm_type **out);

static pm_error *intersect_field_type(const pm_type *have, const pm_type *want, pm_type **out)
{
    *out = NULL;
    if (want->id == PM_TYPE_ROW && have->id == PM_TYPE_ROW)
        return intersect(have, want, out);
    if ((want->id == PM_TYPE_ARRAY || want->id == PM_TYPE_MULTISET) && have->id == want->id &&
        want->element->id == PM_TYPE_ROW && have->element->id == PM_TYPE_ROW) {
        pm_type *el = NULL;
        PM_TRY(intersect(have->element, want->element, &el));
        if (!el)
            return pm_error_new(PM_ECORRUPT, "array of rows without a known field");
        *out = want->id == PM_TYPE_ARRAY ? pm_type_new_array(el, want->nullable)
                                         : pm_type_new_multiset(el, want->nullable);
        return *out ? NULL : pm_oom();
    }
    *out = pm_type_clone(want);
    return *out ? NULL : pm_oom();
}

static pm_error *intersect(const pm_type *have, const pm_type *want, pm_type **out)
{
    *out = NULL;
    pm_type *t = pm_type_new_row(want->nullable);
    if (!t)
        return pm_oom();
    pm_error *e = NULL;
    for (size_t i = 0; i < want->nfields && !e; i++) {
        ptrdiff_t k = pm_type_field_index(have, want->fields[i].name);
        if (k < 0)
            continue;
        pm_type *ft = NULL;
        e = intersect_field_type(have->fields[k].type, want->fields[i].type, &ft);
        if (!e && ft) {
            e = pm_type_add_field(t, have->fields[k].id, want->fields[i].name, ft);
            if (e)
                pm_type_free(ft);
        }
    }
    if (e || t->nfields == 0) {
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

static pm_error *orc_open(pm_mf_reader *r)
{
    pm_orc_reader *probe = NULL;
    pm_orc_reader_options o = PM_ORC_READER_OPTIONS_INIT;
    o.batch_rows = 1024;
    PM_TRY(pm_orc_reader_open(&probe, r->in, &o));
    pm_type *rt = NULL;
    pm_error *e = intersect(pm_orc_reader_schema(probe), r->type, &rt);
    pm_orc_reader_free(probe);
    if (e)
        return e;
    if (!rt)
        return pm_error_new(PM_ECORRUPT, "ORC file has none of the expected fields");
    o.read_type = rt;
    /* project exactly the read type's fields, in its order */
    const char **names = NULL;
    e = pm_calloc(&names, rt->nfields, sizeof *names);
    for (size_t i = 0; !e && i < rt->nfields; i++)
        names[i] = rt->fields[i].name;
    if (!e) {
        o.columns = names;
        o.ncolumns = rt->nfields;
        e = pm_orc_reader_open(&r->orc, r->in, &o);
    }
    free(names);
    pm_type_free(rt);
    return e;
}

pm_error *pm_mf_reader_open(pm_mf_reader **out, pm_fileio *fio, const char *path, const pm_type *type)
{
    *out = NULL;
    pm_mf_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->type = type;
    bool orc = false;
    pm_error *e = pm_input_open(fio, path, &r->in);
    if (!e)
        e = sniff(r->in, path, &orc);
    if (!e)
        e = orc ? orc_open(r) : pm_avro_reader_open(r->in, type, NULL, &r->avro);
    if (e) {
        pm_mf_reader_free(r);
        return e;
    }
    *out = r;
    return NULL;
}

pm_error *pm_mf_reader_next(pm_mf_reader *r, pm_batch **out)
{
    *out = NULL;
    if (r->avro)
        return pm_avro_reader_next(r->avro, out);
    pm_batch_free(r->conformed);
    r->conformed = NULL;
    pm_batch *b = NULL;
    PM_TRY(pm_orc_reader_next_batch(r->orc, &b));
    if (!b)
        return NULL;
    PM_TRY(pm_mf_conform(b, r->type, &r->conformed));
    *out = r->conformed;
    return NULL;
}

void pm_mf_reader_free(pm_mf_reader *r)
{
    if (!r)
        return;
    pm_batch_free(r->conformed);
    pm_avro_reader_free(r->avro);
    pm_orc_reader_free(r->orc);
    pm_input_close(r->in);
    free(r);
}

/* ------------------------------------------------------------------ */
/* writing                                                             */

static pm_error *avro_codec_by_name(const char *name, const char *option, pm_avro_write_options *out)
{
    if (strcmp(name, "null") == 0) {
        out->codec = PM_CODEC_NONE;
    } else if (strcmp(name, "deflate") == 0) {
        out->codec = PM_CODEC_DEFLATE;
        out->level = 6; /* Avro DEFAULT_DEFLATE_LEVEL -1 = Deflater default */
    } else if (strcmp(name, "snappy") == 0) {
        out->codec = PM_CODEC_SNAPPY;
    } else if (strcmp(name, "zstandard") == 0) {
        out->codec = PM_CODEC_ZSTD;
        out->level = 3; /* Avro DEFAULT_ZSTANDARD_LEVEL */
    } else if (strcmp(name, "bzip2") == 0 || strcmp(name, "xz") == 0) {
        return pm_error_new(PM_EUNSUPPORTED, "Avro codec '%s' (option '%s')", name, option);
    } else {
        return pm_error_new(PM_EINVALID, "option '%s' has invalid value '%s': not an Avro codec "
                            "(null, deflate, snappy, zstandard, bzip2, xz)", option, name);
    }
    return NULL;
}

pm_error *pm_manifest_avro_options(const pm_options *options, pm_avro_write_options *out)
{
    memset(out, 0, sizeof *out);
    out->block_bytes = PM_AVRO_DEFAULT_BLOCK_BYTES;
    const char *codec = options ? pm_options_get(options, "avro.codec") : NULL;
    if (codec)
        return avro_codec_by_name(codec, "avro.codec", out);
    const char *comp;
    PM_TRY(pm_options_string(options, PM_OPT_MANIFEST_COMPRESSION, &comp));
    if (!strcasecmp(comp, "zstd")) {
        out->codec = PM_CODEC_ZSTD;
        int32_t level;
        PM_TRY(pm_options_int(options, PM_OPT_FILE_COMPRESSION_ZSTD_LEVEL, NULL, &level));
        out->level = level;
        return NULL;
    }
    return avro_codec_by_name(comp, "manifest.compression", out);
}

typedef struct orc_lookup_ctx {
    const pm_options *o;
    const char *compression;
} orc_lookup_ctx;

static const char *orc_lookup(void *ctx, const char *key)
{
    const orc_lookup_ctx *c = ctx;
    if (!strcmp(key, "file.compression") || !strcmp(key, "orc.compress"))
        return c->compression;
    return pm_options_get(c->o, key);
}

pm_error *pm_mf_write_options_from(const pm_options *options, pm_mf_write_options *out)
{
    memset(out, 0, sizeof *out);
    const char *fmt;
    PM_TRY(pm_options_string(options, PM_OPT_MANIFEST_FORMAT, &fmt));
    if (!strcasecmp(fmt, "avro"))
        return pm_manifest_avro_options(options, &out->avro);
    if (!strcasecmp(fmt, "parquet"))
        return pm_error_new(PM_EUNSUPPORTED, "manifest.format=parquet: writing Parquet manifests is not "
                            "supported (avro, orc)");
    if (strcasecmp(fmt, "orc"))
        return pm_error_new(PM_EINVALID, "option 'manifest.format' has invalid value '%s' (avro, orc, parquet)",
                            fmt);
    out->orc = true;
    const char *comp;
    PM_TRY(pm_options_string(options, PM_OPT_MANIFEST_COMPRESSION, &comp));
    orc_lookup_ctx lc = {options, comp};
    pm_orc_writer_options_default(&out->orc_opts);
    pm_error *e = pm_orc_writer_options_from_table(&out->orc_opts, orc_lookup, &lc, -1, &out->orc_names);
    if (e)
        pm_mf_write_options_clear(out);
    return pm_error_wrap(e, 0, "ORC manifests");
}

void pm_mf_write_options_clear(pm_mf_write_options *o)
{
    free(o->orc_names);
    o->orc_names = NULL;
}

struct pm_mf_writer {
    pm_avro_writer *avro;
    pm_orc_writer *orc;
};

pm_error *pm_mf_writer_open(pm_mf_writer **out, pm_output *o, const pm_type *type, const pm_mf_write_options *opt)
{
    *out = NULL;
    pm_mf_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    pm_error *e = opt->orc ? pm_orc_writer_new(&w->orc, o, type, &opt->orc_opts)
                           : pm_avro_writer_open(o, type, &opt->avro, &w->avro);
    if (e) {
        free(w);
        return e;
    }
    *out = w;
    return NULL;
}

pm_error *pm_mf_writer_write(pm_mf_writer *w, const pm_batch *b)
{
    return w->orc ? pm_orc_writer_write(w->orc, b) : pm_avro_writer_write(w->avro, b);
}

uint64_t pm_mf_writer_estimated_size(const pm_mf_writer *w)
{
    return w->orc ? pm_orc_writer_estimated_size(w->orc) : pm_avro_writer_estimated_size(w->avro);
}

pm_error *pm_mf_writer_finish(pm_mf_writer *w)
{
    pm_error *e;
    if (w->orc) {
        e = pm_orc_writer_close(w->orc, NULL);
    } else {
        e = pm_avro_writer_finish(w->avro);
        pm_avro_writer_free(w->avro);
    }
    free(w);
    return e;
}

void pm_mf_writer_abort(pm_mf_writer *w)
{
    if (!w)
        return;
    pm_orc_writer_abort(w->orc);
    pm_avro_writer_free(w->avro);
    free(w);
}
