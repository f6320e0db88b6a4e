/*
 * format/parquet/parquet_reader.c — the Parquet file reader (see
 * parquet_reader.h for the API).
 *
 * File layout: "PAR1" <column chunks ...> <FileMetaData (thrift)>
 * <footer length: u32 LE> "PAR1".
 *
 * Open: check both magics (an encrypted "PARE" footer is unsupported), read
 * and parse the footer, check every row group has one column chunk per
 * schema leaf, convert the schema, resolve the projection.
 * Skip: row groups wholly inside the stretch are passed without opening
 * them; in the open row group a flat field's data pages wholly inside it
 * go by their headers (pqr_chunk_skip_pages), the rest is assembled into a
 * scratch column and dropped.
 * Next batch: pick the next row group that has rows and passes the filter;
 * read each projected column chunk's byte range (dictionary page offset or
 * first data page offset, total_compressed_size bytes, checked against the
 * data region of the file) into that chunk's buffer; then assemble up to
 * batch_rows records of every projected field.  When a row group's rows are
 * all read, every projected chunk must be exhausted (no extra values).
 */
#include "format/parquet/parquet_reader.h"

#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/mem.h"
#include "format/parquet/pqr_assemble.h"
#include "format/parquet/page_reader.h"
#include "format/parquet/pqr_chunk.h"
#include "format/parquet/pqr_schema.h"
#include "types/column.h"

#define DEFAULT_BATCH_ROWS 4096
#define DEFAULT_MAX_PAGE ((size_t)1 << 30)
/* Files up to this size are read whole with one read at open (footer and
 * column chunks then come from memory): small files cost one system call,
 * not one per chunk, and no chunk buffers.  An input already read whole
 * (pm_input_open_whole) lends its bytes instead. */
#define WHOLE_FILE_MAX PM_INPUT_WHOLE_MAX
/* Column chunks of larger files are read this many bytes at a time (at
 * least one whole page): a merge holds one reader per sorted run, each
 * about a window and a decompressed page per projected column. */
#define CHUNK_WINDOW ((size_t)1 << 18)
/* Batch columns a consumer still holds when the next batch is read are
 * replaced by spares it has released since (pm_batch_keep_spares): this
 * many per column, so a merge that keeps a run's last batch or two
 * re-uses their buffers instead of allocating (and faulting in) new ones
 * per batch. */
#ifndef SPARE_BATCHES
#define SPARE_BATCHES 1
#endif

struct pm_pq_reader {
    pm_input *in;
    const uint8_t *mem;
    uint8_t *whole;             /* a small file's bytes (owned; mem points here) */
    size_t whole_cap;           /* its allocated size (>= size: it may come from a recycled reader) */
    uint64_t size;
    uint64_t data_end;          /* where the footer starts */
    char *name;
    const pm_pq_file_meta *meta; /* own_meta or the options' (borrowed) */
    pm_pq_file_meta *own_meta;
    pqr_schema *schema;
    pm_type *proj_type;
    uint32_t nproj;
    uint32_t *proj;             /* schema field index per batch column */
    uint32_t nchunks;
    pqr_chunk *chunks;           /* projected leaves, in batch column order */
    pm_codec_ctx *codec;        /* the options' (borrowed) or own_codec */
    pm_codec_ctx *own_codec;
    pqr_assembler asmb;
    pm_batch *batch;
    int64_t batch_rows;
    bool footer_only;
    pm_pq_row_group_filter filter;
    void *filter_ctx;
    uint32_t next_rg;
    bool rg_open;
    uint32_t cur_rg;
    int64_t rg_left;
    size_t *data_hint;          /* per batch column: byte data of its last batch */
};

static pm_error *src_read(pm_pq_reader *r, uint64_t off, void *buf, size_t n)
{
    if (off > r->size || n > r->size - off)
        return pm_error_new(PM_ECORRUPT, "read of %zu bytes at %llu past the end of the file (%llu bytes)", n,
                            (unsigned long long)off, (unsigned long long)r->size);
    if (r->mem) {
        memcpy(buf, r->mem + off, n);
        return NULL;
    }
    return pm_input_read_at(r->in, off, buf, n);
}

static pm_error *chunk_read(void *ctx, uint64_t off, void *buf, size_t n)
{
    return src_read(ctx, off, buf, n);
}

static pm_error *copy_error(const pm_error *e)
{
    char *s = pm_error_format(e);
    pm_error *n = pm_error_new(pm_error_root_code(e), "%s", s ? s : "error");
    free(s);
    return n;
}

static pm_error *read_footer(pm_pq_reader *r, const pm_pq_file_meta *given)
{
    if (r->size < 12)
        return pm_error_new(PM_ECORRUPT, "file of %llu bytes is too small for Parquet", (unsigned long long)r->size);
    uint8_t head[4], tail[8];
    PM_TRY(src_read(r, 0, head, 4));
    PM_TRY(src_read(r, r->size - 8, tail, 8));
    if (!memcmp(tail + 4, "PARE", 4))
        return pm_error_new(PM_EUNSUPPORTED, "encrypted Parquet files (PARE footer) are not supported");
    if (memcmp(head, "PAR1", 4) || memcmp(tail + 4, "PAR1", 4))
        return pm_error_new(PM_ECORRUPT, "not a Parquet file (missing PAR1 magic)");
    uint32_t flen = pm_load_u32le(tail);
    if (flen > r->size - 12)
        return pm_error_new(PM_ECORRUPT, "footer length %u exceeds the file (%llu bytes)", flen,
                            (unsigned long long)r->size);
    r->data_end = r->size - 8 - flen;
    if (given) {
        r->meta = given;
        return NULL;
    }
    uint8_t *buf = malloc(flen ? flen : 1);
    if (!buf)
        return pm_oom();
    pm_error *e = src_read(r, r->data_end, buf, flen);
    if (!e)
        e = pm_pq_file_meta_parse(&r->own_meta, buf, flen);
    free(buf);
    r->meta = r->own_meta;
    return e;
}

static pm_error *check_meta(pm_pq_reader *r)
{
    const pm_pq_file_meta *m = r->meta;
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        if (rg->num_rows < 0)
            return pm_error_new(PM_ECORRUPT, "row group %u has %lld rows", g, (long long)rg->num_rows);
        if (rg->num_columns != r->schema->nleaves)
            return pm_error_new(PM_ECORRUPT, "row group %u has %u column chunks, the schema %u leaf columns", g,
                                rg->num_columns, r->schema->nleaves);
    }
    return NULL;
}

static pm_error *resolve_projection(pm_pq_reader *r, const pm_pq_reader_options *o)
{
    const pqr_schema *s = r->schema;
    size_t n = o->columns ? o->ncolumns : o->column_ids ? o->ncolumn_ids : s->nfields;
    PM_TRY(pm_calloc(&r->proj, n ? n : 1, sizeof *r->proj));
    r->nproj = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        uint32_t f = UINT32_MAX;
        if (o->columns) {
            for (uint32_t k = 0; k < s->nfields; k++)
                if (!strcmp(s->fields[k].name, o->columns[i])) {
                    f = k;
                    break;
                }
            if (f == UINT32_MAX)
                return pm_error_new(PM_EINVALID, "no column named '%s'", o->columns[i]);
        } else if (o->column_ids) {
            for (uint32_t k = 0; k < s->nfields; k++)
                if (s->fields[k].id == o->column_ids[i]) {
                    f = k;
                    break;
                }
            if (f == UINT32_MAX)
                return pm_error_new(PM_EINVALID, "no column with field id %d", o->column_ids[i]);
        } else {
            f = (uint32_t)i;
        }
        for (size_t j = 0; j < i; j++)
            if (r->proj[j] == f)
                return pm_error_new(PM_EINVALID, "column '%s' projected twice", s->fields[f].name);
        r->proj[i] = f;
    }
    if (r->footer_only)
        return NULL;
    r->proj_type = pm_type_new_row(false);
    if (!r->proj_type)
        return pm_oom();
    uint32_t nchunks = 0;
    for (uint32_t i = 0; i < r->nproj; i++) {
        const pqr_field *f = &s->fields[r->proj[i]];
        if (f->err)
            return copy_error(f->err);
        pm_type *t = pm_type_clone(f->type);
        if (!t)
            return pm_oom();
        PM_TRY(pm_type_add_field(r->proj_type, f->id, f->name, t));
        nchunks += f->nleaves;
    }
    PM_TRY(pm_calloc(&r->chunks, nchunks ? nchunks : 1, sizeof *r->chunks));
    r->nchunks = nchunks;
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->nproj; i++) {
        const pqr_field *f = &s->fields[r->proj[i]];
        for (uint32_t l = 0; l < f->nleaves; l++)
            pqr_chunk_init(&r->chunks[k++], &s->leaves[f->first_leaf + l], r->codec, 0);
    }
    pm_pq_reader *old = o->recycle;
    for (uint32_t i = 0; old && i < r->nchunks && i < old->nchunks; i++)
        pqr_chunk_take_buffers(&r->chunks[i], &old->chunks[i]);
    if (old && old->batch && pm_type_equals(pm_batch_type(old->batch), r->proj_type)) {
        /* its columns (and spares) with their buffers: no fresh columns per file */
        r->batch = old->batch;
        old->batch = NULL;
        if (r->nproj == old->nproj && old->data_hint) {
            r->data_hint = old->data_hint;
            old->data_hint = NULL;
        }
        return NULL;
    }
    PM_TRY(pm_batch_new(&r->batch, r->proj_type));
    return pm_batch_keep_spares(r->batch, SPARE_BATCHES);
}

/* dict_columns: the projected flat byte-string fields whose every row
 * group holds only dictionary-encoded data pages read as ids. */
static void choose_dict_columns(pm_pq_reader *r, const pm_pq_reader_options *o)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->nproj; i++) {
        const pqr_field *f = &r->schema->fields[r->proj[i]];
        uint32_t first = k;
        k += f->nleaves;
        bool want = false;
        for (size_t j = 0; !want && j < o->ndict_columns; j++)
            want = o->dict_columns[j] && !strcmp(o->dict_columns[j], f->name);
        if (!want || f->nleaves != 1 || !f->type || (f->type->id != PM_TYPE_CHAR && f->type->id != PM_TYPE_VARCHAR))
            continue;
        pqr_chunk *c = &r->chunks[first];
        const pqr_leaf *L = c->leaf;
        if (L->max_rep || L->ptype != PQ_BYTE_ARRAY || L->vkind != PQR_VAR || L->conv != PQC_NONE)
            continue;
        bool all = true;
        for (uint32_t g = 0; all && g < r->meta->num_row_groups; g++) {
            const pq_row_group *rg = &r->meta->row_groups[g];
            const pq_column_chunk *cc = &rg->columns[L->column];
            all = rg->num_rows == 0 || (cc->has_meta_data && pqr_chunk_meta_all_dict(&cc->meta_data));
        }
        c->ids_out = all;
    }
}

uint64_t pm_pq_reader_offsets_in_place(const pm_pq_reader *r)
{
    return r ? r->asmb.offsets_in_place : 0;
}

bool pm_pq_reader_column_encoded(const pm_pq_reader *r, size_t i)
{
    if (!r->chunks || i >= r->nproj)
        return false;
    uint32_t k = 0;
    for (size_t j = 0; j < i; j++)
        k += r->schema->fields[r->proj[j]].nleaves;
    return r->schema->fields[r->proj[i]].nleaves == 1 && r->chunks[k].ids_out;
}

bool pm_pq_reader_column_no_dict(const pm_pq_reader *r, size_t i)
{
    if (!r->chunks || i >= r->nproj)
        return false;
    const pqr_field *f = &r->schema->fields[r->proj[i]];
    bool rows = false;
    for (uint32_t g = 0; g < r->meta->num_row_groups; g++) {
        const pq_row_group *rg = &r->meta->row_groups[g];
        if (rg->num_rows == 0)
            continue;
        rows = true;
        for (uint32_t l = 0; l < f->nleaves; l++) {
            const pq_column_chunk *cc = &rg->columns[r->schema->leaves[f->first_leaf + l].column];
            if (!cc->has_meta_data || !pqr_chunk_meta_no_dict(&cc->meta_data))
                return false;
        }
    }
    return rows;
}

static pm_error *open_common(pm_pq_reader *r, const pm_pq_reader_options *opts)
{
    pm_pq_reader_options def = PM_PQ_READER_OPTIONS_INIT;
    const pm_pq_reader_options *o = opts ? opts : &def;
    r->batch_rows = o->batch_rows > 0 ? o->batch_rows : DEFAULT_BATCH_ROWS;
    if (r->batch_rows > INT32_MAX)
        r->batch_rows = INT32_MAX;
    r->footer_only = o->footer_only;
    r->filter = o->filter;
    r->filter_ctx = o->filter_ctx;
    pqr_assembler_init(&r->asmb);
    PM_TRY(read_footer(r, o->meta));
    PM_TRY(pqr_schema_build(&r->schema, r->meta));
    PM_TRY(check_meta(r));
    if (!r->footer_only && o->codec)
        r->codec = o->codec;
    else if (!r->footer_only) {
        PM_TRY(pm_codec_ctx_new(&r->own_codec));
        r->codec = r->own_codec;
    }
    PM_TRY(resolve_projection(r, o));
    size_t maxp = o->max_page_bytes ? o->max_page_bytes : DEFAULT_MAX_PAGE;
    for (uint32_t i = 0; i < r->nchunks; i++)
        r->chunks[i].max_page = maxp;
    if (!r->footer_only && o->ndict_columns)
        choose_dict_columns(r, o);
    return NULL;
}

pm_error *pm_pq_reader_open(pm_pq_reader **out, pm_input *in, const pm_pq_reader_options *opts)
{
    *out = NULL;
    pm_pq_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->in = in;
    r->size = pm_input_size(in);
    const char *path = pm_input_path(in);
    pm_error *e = pm_strdup(&r->name, path ? path : "<input>");
    if (!e && pm_input_data(in)) {
        r->mem = pm_input_data(in);
    } else if (!e && !(opts && (opts->footer_only || opts->chunks_only)) && r->size >= 12 &&
               r->size <= WHOLE_FILE_MAX) {
        pm_pq_reader *old = opts ? opts->recycle : NULL;
        if (old && old->whole && old->whole_cap >= r->size) { /* the previous file's buffer (see the options) */
            r->whole = old->whole;
            r->whole_cap = old->whole_cap;
            if (old->mem == old->whole)
                old->mem = NULL;
            old->whole = NULL;
            old->whole_cap = 0;
        } else {
            r->whole = malloc((size_t)r->size);
            r->whole_cap = (size_t)r->size;
        }
        e = r->whole ? pm_input_read_at(in, 0, r->whole, (size_t)r->size) : pm_oom();
        if (!e)
            r->mem = r->whole;
    }
    if (!e)
        e = open_common(r, opts);
    if (e) {
        e = pm_error_wrap(e, 0, "file %s", r->name ? r->name : "<input>");
        pm_pq_reader_free(r);
        return e;
    }
    *out = r;
    return NULL;
}

pm_error *pm_pq_reader_open_memory(pm_pq_reader **out, const uint8_t *data, size_t len,
                                   const pm_pq_reader_options *opts)
{
    *out = NULL;
    pm_pq_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->mem = data;
    r->size = len;
    pm_error *e = pm_strdup(&r->name, "<memory>");
    if (!e)
        e = open_common(r, opts);
    if (e) {
        e = pm_error_wrap(e, 0, "file %s", "<memory>");
        pm_pq_reader_free(r);
        return e;
    }
    *out = r;
    return NULL;
}

size_t pm_pq_reader_memory(const pm_pq_reader *r)
{
    size_t n = r->whole ? r->whole_cap : 0;
    for (uint32_t i = 0; i < r->nchunks; i++)
        n += pqr_chunk_memory(&r->chunks[i]);
    return n + r->asmb.flags.cap + r->asmb.tmp.cap + r->asmb.rel.cap;
}

void pm_pq_reader_free(pm_pq_reader *r)
{
    if (!r)
        return;
    free(r->data_hint);
    free(r->whole);
    for (uint32_t i = 0; i < r->nchunks; i++)
        pqr_chunk_free(&r->chunks[i]);
    free(r->chunks);
    free(r->proj);
    pm_batch_free(r->batch);
    pm_type_free(r->proj_type);
    pqr_assembler_free(&r->asmb);
    pm_codec_ctx_free(r->own_codec);
    pqr_schema_free(r->schema);
    pm_pq_file_meta_free(r->own_meta);
    free(r->name);
    free(r);
}

const pm_pq_file_meta *pm_pq_reader_meta(const pm_pq_reader *r) { return r->meta; }
const pm_type *pm_pq_reader_schema(const pm_pq_reader *r) { return r->proj_type; }
uint32_t pm_pq_reader_num_leaves(const pm_pq_reader *r) { return r->schema->nleaves; }

static const pqr_field *field_of_leaf(const pm_pq_reader *r, uint32_t leaf)
{
    for (uint32_t i = 0; i < r->schema->nfields; i++) {
        const pqr_field *f = &r->schema->fields[i];
        if (leaf >= f->first_leaf && leaf < f->first_leaf + f->nleaves)
            return f;
    }
    return NULL;
}

const pm_error *pm_pq_reader_leaf_error(const pm_pq_reader *r, uint32_t leaf)
{
    const pqr_field *f = field_of_leaf(r, leaf);
    return f ? f->err : NULL;
}

const char *pm_pq_reader_leaf_path(const pm_pq_reader *r, uint32_t leaf)
{
    return leaf < r->schema->nleaves ? r->schema->leaves[leaf].path : NULL;
}

int64_t pm_pq_reader_leaf_of(const pm_pq_reader *r, const char *name)
{
    for (uint32_t i = 0; i < r->schema->nfields; i++) {
        const pqr_field *f = &r->schema->fields[i];
        if (!strcmp(f->name, name))
            return f->node && f->node->kind == PQN_LEAF ? (int64_t)f->first_leaf : -1;
    }
    return -1;
}

const pm_type *pm_pq_reader_leaf_type(const pm_pq_reader *r, uint32_t leaf)
{
    return pqr_schema_leaf_type(r->schema, leaf);
}

/* ------------------------------------------------------------------ */
/* Row groups and batches                                              */
/* ------------------------------------------------------------------ */

static pm_error *load_chunk(pm_pq_reader *r, pqr_chunk *c, const pq_column_chunk *cc)
{
    if (!cc->has_meta_data)
        return pm_error_new(PM_EUNSUPPORTED, "column chunk without metadata (encrypted columns are not supported)");
    if (cc->file_path)
        return pm_error_new(PM_EUNSUPPORTED, "column chunk stored in another file ('%s')", cc->file_path);
    const pq_column_meta *cm = &cc->meta_data;
    if (cm->type != c->leaf->ptype)
        return pm_error_new(PM_ECORRUPT, "column chunk type %s differs from the schema's %s", pq_type_name(cm->type),
                            pq_type_name(c->leaf->ptype));
    if (cm->num_values < 0)
        return pm_error_new(PM_ECORRUPT, "column chunk has %lld values", (long long)cm->num_values);
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 && cm->dictionary_page_offset < start)
        start = cm->dictionary_page_offset;
    int64_t len = cm->total_compressed_size;
    if (start < 4 || len < 0 || (uint64_t)start > r->data_end || (uint64_t)len > r->data_end - (uint64_t)start)
        return pm_error_new(PM_ECORRUPT, "column chunk bytes [%lld, +%lld) are outside the data region (%llu bytes)",
                            (long long)start, (long long)len, (unsigned long long)r->data_end);
    if (r->mem) {
        c->data = r->mem + start;
        c->read = NULL;
    } else {
        /* read window by window: memory is a window (or one page) per
         * column, not the whole row group */
        c->read = chunk_read;
        c->read_ctx = r;
        c->file_off = (uint64_t)start;
        c->window = CHUNK_WINDOW;
    }
    c->len = (size_t)len;
    pqr_chunk_start(c, cm);
    return NULL;
}

static const char *chunk_name(const pqr_chunk *c)
{
    return c->leaf->path ? c->leaf->path : "?";
}

static pm_error *open_row_group(pm_pq_reader *r, bool *found)
{
    const pm_pq_file_meta *m = r->meta;
    *found = false;
    while (r->next_rg < m->num_row_groups) {
        uint32_t g = r->next_rg++;
        const pq_row_group *rg = &m->row_groups[g];
        if (rg->num_rows == 0)
            continue;
        if (r->filter && !r->filter(r->filter_ctx, r, g))
            continue;
        for (uint32_t i = 0; i < r->nchunks; i++) {
            pqr_chunk *c = &r->chunks[i];
            PM_TRY(pm_error_wrap(load_chunk(r, c, &rg->columns[c->leaf->column]), 0, "row group %u: column '%s'", g,
                                 chunk_name(c)));
        }
        r->cur_rg = g;
        r->rg_left = rg->num_rows;
        r->rg_open = true;
        *found = true;
        return NULL;
    }
    return NULL;
}

static pm_error *finish_row_group(pm_pq_reader *r)
{
    for (uint32_t i = 0; i < r->nchunks; i++) {
        pqr_chunk *c = &r->chunks[i];
        bool eof = c->pos >= c->n;
        if (eof && c->leaf->max_rep == 0) {
            /* Flat leaves stop exactly at the last row: any further page must be empty. */
            PM_TRY(pm_error_wrap(pqr_chunk_next_page(c, &eof), 0, "row group %u: column '%s'", r->cur_rg,
                                 chunk_name(c)));
        }
        if (!eof || c->pos < c->n)
            return pm_error_new(PM_ECORRUPT, "row group %u: column '%s' has more values than the row group's %lld rows",
                                r->cur_rg, chunk_name(c), (long long)r->meta->row_groups[r->cur_rg].num_rows);
    }
    r->rg_open = false;
    return NULL;
}

/* n rows of the open row group consumed: it finishes after its last. */
static pm_error *rows_done(pm_pq_reader *r, int64_t n)
{
    r->rg_left -= n;
    return r->rg_left == 0 ? finish_row_group(r) : NULL;
}

/* A failed row group cannot be resumed: the reader reads no further. */
static pm_error *stop(pm_pq_reader *r, pm_error *e)
{
    r->rg_open = false;
    r->next_rg = r->meta->num_row_groups;
    return pm_error_wrap(e, 0, "file %s", r->name);
}

pm_error *pm_pq_reader_next_batch(pm_pq_reader *r, pm_batch **out)
{
    *out = NULL;
    if (r->footer_only)
        return pm_error_new(PM_EINVALID, "reader opened for the footer only");
    pm_error *e = NULL;
    if (!r->rg_open) {
        bool found;
        PM_TRY_GOTO(e, open_row_group(r, &found), fail);
        if (!found)
            return NULL;
    }
    int64_t n = r->rg_left < r->batch_rows ? r->rg_left : r->batch_rows;
    PM_TRY_GOTO(e, pm_batch_reset(r->batch), fail);
    /* Columns still held by the caller were replaced by empty ones: size
     * them for the batch at once instead of growing them page by page
     * (flat fields: values / offsets, and the last batch's byte data). */
    if (!r->data_hint)
        PM_TRY_GOTO(e, pm_calloc(&r->data_hint, r->nproj ? r->nproj : 1, sizeof *r->data_hint), fail);
    for (uint32_t i = 0; i < r->nproj; i++) {
        pm_column *col = pm_batch_column(r->batch, i);
        if (r->schema->fields[r->proj[i]].nleaves != 1 || pm_type_is_nested(col->type))
            continue;
        PM_TRY_GOTO(e, pm_column_reserve(col, n), fail);
        if (r->data_hint[i])
            PM_TRY_GOTO(e, pm_buf_reserve(&col->data, r->data_hint[i] + r->data_hint[i] / 8), fail);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->nproj; i++) {
        const pqr_field *f = &r->schema->fields[r->proj[i]];
        pm_column *col = pm_batch_column(r->batch, i);
        for (uint32_t l = 0; l < f->nleaves; l++, k++) {
            pqr_chunk *c = &r->chunks[k];
            int64_t done;
            PM_TRY_GOTO(e, pm_error_wrap(pqr_assemble_leaf(&r->asmb, c, col, n, &done), 0, "row group %u: column '%s'",
                                         r->cur_rg, chunk_name(c)),
                        fail);
            if (done != n) {
                e = pm_error_new(PM_ECORRUPT, "row group %u: column '%s' ends after %lld of %lld rows", r->cur_rg,
                                 chunk_name(c), (long long)(r->meta->row_groups[r->cur_rg].num_rows - r->rg_left + done),
                                 (long long)r->meta->row_groups[r->cur_rg].num_rows);
                goto fail;
            }
        }
        if (col->length != n) {
            e = pm_error_new(PM_ECORRUPT, "row group %u: field '%s' assembled %lld rows, expected %lld", r->cur_rg,
                             f->name, (long long)col->length, (long long)n);
            goto fail;
        }
        PM_TRY_GOTO(e, pm_error_wrap(pqr_check_column(col), 0, "row group %u: field '%s'", r->cur_rg, f->name), fail);
    }
    PM_TRY_GOTO(e, pm_batch_finish(r->batch, n), fail);
    for (uint32_t i = 0; i < r->nproj; i++)
        r->data_hint[i] = pm_batch_column(r->batch, i)->data.len;
    PM_TRY_GOTO(e, rows_done(r, n), fail);
    *out = r->batch;
    return NULL;
fail:
    return stop(r, e);
}

/* `want` rows of leaf c assembled into scratch (dropped by the caller). */
static pm_error *drop_rows(pm_pq_reader *r, pqr_chunk *c, pm_column *scratch, int64_t want)
{
    int64_t got = 0;
    PM_TRY(pqr_assemble_leaf(&r->asmb, c, scratch, want, &got));
    if (got != want)
        return pm_error_new(PM_ECORRUPT, "column ends %lld rows before the row group's %lld",
                            (long long)(want - got), (long long)r->meta->row_groups[r->cur_rg].num_rows);
    return NULL;
}

/* Rows `rows` (at most what is left in the open row group) of every
 * projected leaf passed over: a flat field's whole pages by their headers,
 * the rest (and nested fields) assembled into a scratch column of the
 * field, a batch at a time, and dropped. */
static pm_error *skip_in_row_group(pm_pq_reader *r, int64_t rows)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->nproj; i++) {
        const pqr_field *f = &r->schema->fields[r->proj[i]];
        pm_column *scratch = NULL;
        PM_TRY(pm_column_new(&scratch, pm_batch_column(r->batch, i)->type));
        pm_error *e = NULL;
        pqr_chunk *c = &r->chunks[k];
        if (f->nleaves == 1 && !pm_type_is_nested(scratch->type) && c->leaf->max_rep == 0) {
            int64_t done = 0;
            while (!e && done < rows) {
                int64_t passed = 0;
                e = pqr_chunk_skip_pages(c, rows - done, &passed);
                done += passed;
                if (e || done == rows)
                    break;
                /* the rest of this page, or the start of the page the
                 * stretch ends in */
                int64_t want = rows - done;
                if (c->pos < c->n && want > (int64_t)(c->n - c->pos))
                    want = (int64_t)(c->n - c->pos);
                if (want > r->batch_rows)
                    want = r->batch_rows;
                pm_column_reset(scratch);
                e = drop_rows(r, c, scratch, want);
                done += want;
            }
        } else {
            for (int64_t done = 0; !e && done < rows;) {
                int64_t want = rows - done < r->batch_rows ? rows - done : r->batch_rows;
                pm_column_reset(scratch);
                for (uint32_t l = 0; !e && l < f->nleaves; l++) {
                    c = &r->chunks[k + l];
                    e = drop_rows(r, c, scratch, want);
                }
                done += want;
            }
        }
        k += f->nleaves;
        pm_column_release(scratch);
        if (e)
            return pm_error_wrap(e, 0, "row group %u: column '%s'", r->cur_rg, chunk_name(c));
    }
    return NULL;
}

pm_error *pm_pq_reader_skip(pm_pq_reader *r, int64_t rows, int64_t *skipped)
{
    *skipped = 0;
    if (r->footer_only)
        return pm_error_new(PM_EINVALID, "reader opened for the footer only");
    if (rows < 0)
        return pm_error_new(PM_EINVALID, "cannot skip %lld rows", (long long)rows);
    pm_error *e = NULL;
    const pm_pq_file_meta *m = r->meta;
    while (*skipped < rows) {
        if (!r->rg_open) {
            /* row groups wholly inside the stretch are not opened */
            while (r->next_rg < m->num_row_groups) {
                const pq_row_group *rg = &m->row_groups[r->next_rg];
                if (rg->num_rows == 0 || (r->filter && !r->filter(r->filter_ctx, r, r->next_rg))) {
                    r->next_rg++;
                    continue;
                }
                if (rg->num_rows > rows - *skipped)
                    break;
                *skipped += rg->num_rows;
                r->next_rg++;
            }
            if (*skipped == rows)
                break;
            bool found;
            PM_TRY_GOTO(e, open_row_group(r, &found), fail);
            if (!found)
                break;
        }
        int64_t k = r->rg_left < rows - *skipped ? r->rg_left : rows - *skipped;
        PM_TRY_GOTO(e, skip_in_row_group(r, k), fail);
        *skipped += k;
        PM_TRY_GOTO(e, rows_done(r, k), fail);
    }
    return NULL;
fail:
    return stop(r, e);
}

void pm_pq_reader_page_counts(const pm_pq_reader *r, uint64_t *loaded, uint64_t *skipped)
{
    uint64_t l = 0, s = 0;
    for (uint32_t i = 0; i < r->nchunks; i++) {
        l += r->chunks[i].pages_loaded;
        s += r->chunks[i].pages_skipped;
    }
    if (loaded)
        *loaded = l;
    if (skipped)
        *skipped = s;
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */

pm_error *pm_pq_reader_stat(const pm_pq_reader *r, uint32_t rg, uint32_t leaf, bool max, pm_column *col,
                            bool *present)
{
    *present = false;
    if (rg >= r->meta->num_row_groups || leaf >= r->schema->nleaves)
        return pm_error_new(PM_EINVALID, "row group %u / column %u out of range", rg, leaf);
    const pqr_leaf *L = &r->schema->leaves[leaf];
    if (!L->type)
        return NULL;
    const pq_column_chunk *cc = &r->meta->row_groups[rg].columns[leaf];
    if (!cc->has_meta_data || !cc->meta_data.has_statistics)
        return NULL;
    const pq_statistics *s = &cc->meta_data.statistics;
    const uint8_t *p = NULL;
    size_t n = 0;
    if (max && s->has_max_value) {
        p = s->max_value;
        n = s->max_value_len;
    } else if (!max && s->has_min_value) {
        p = s->min_value;
        n = s->min_value_len;
    } else {
        bool legacy_ok = (L->ptype == PQ_BOOLEAN || L->ptype == PQ_INT32 || L->ptype == PQ_INT64 ||
                          L->ptype == PQ_FLOAT || L->ptype == PQ_DOUBLE) &&
                         L->conv != PQC_U32_I64 && L->conv != PQC_U64_I128;
        if (!legacy_ok)
            return NULL;
        if (max && s->has_max) {
            p = s->max;
            n = s->max_len;
        } else if (!max && s->has_min) {
            p = s->min;
            n = s->min_len;
        } else {
            return NULL;
        }
    }
    if (col->type->id != L->type->id)
        return pm_error_new(PM_EINVALID, "statistics column type differs from the leaf type");
    switch (L->vkind) {
    case PQR_BOOL:
        if (n != 1)
            return NULL;
        PM_TRY(pm_column_append_bool(col, p[0] != 0));
        break;
    case PQR_VAR:
        if (L->ptype == PQ_FIXED_LEN_BYTE_ARRAY && n != (size_t)L->type_length)
            return NULL;
        PM_TRY(pm_buf_reserve(&col->data, 1)); /* non-NULL data even for an empty value */
        PM_TRY(pm_column_append_bytes(col, p, n));
        break;
    case PQR_FIXED: {
        if (L->ptype != PQ_BYTE_ARRAY && L->conv != PQC_BE_I128 && n != (size_t)L->pwidth)
            return NULL;
        uint8_t v[16];
        pm_error *e = pqr_convert_one(L, p, n, v);
        if (e) {
            pm_error_free(e);
            return NULL;
        }
        switch (L->type->id) {
        case PM_TYPE_TINYINT: { int8_t x; memcpy(&x, v, 1); PM_TRY(pm_column_append_i8(col, x)); break; }
        case PM_TYPE_SMALLINT: { int16_t x; memcpy(&x, v, 2); PM_TRY(pm_column_append_i16(col, x)); break; }
        case PM_TYPE_INT: case PM_TYPE_DATE: case PM_TYPE_TIME: {
            int32_t x; memcpy(&x, v, 4); PM_TRY(pm_column_append_i32(col, x)); break; }
        case PM_TYPE_BIGINT: case PM_TYPE_TIMESTAMP: case PM_TYPE_TIMESTAMP_LTZ: {
            int64_t x; memcpy(&x, v, 8); PM_TRY(pm_column_append_i64(col, x)); break; }
        case PM_TYPE_FLOAT: { float x; memcpy(&x, v, 4); PM_TRY(pm_column_append_f32(col, x)); break; }
        case PM_TYPE_DOUBLE: { double x; memcpy(&x, v, 8); PM_TRY(pm_column_append_f64(col, x)); break; }
        case PM_TYPE_DECIMAL: { __int128 x; memcpy(&x, v, 16); PM_TRY(pm_column_append_decimal(col, x)); break; }
        default:
            return NULL;
        }
        break;
    }
    }
    *present = true;
    return NULL;
}
