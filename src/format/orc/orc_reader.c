/*
 * format/orc/orc_reader.c — the ORC file reader (see orc_reader.h for the
 * API).
 *
 * File layout: "ORC" stripe* Metadata Footer PostScript psLen(u8).
 *
 * Open: psLen must leave room for the header; the PostScript gives the
 * codec, block size and the Footer and Metadata lengths, which must fit
 * between the header and the PostScript; the Footer is decompressed
 * (bounded) and parsed; every stripe must lie inside the body and their
 * row counts must add up to the file's; the schema is converted and the
 * projection resolved.
 * Next batch: open the next stripe with rows that passes the filter: parse
 * its footer, walk its stream directory (streams follow each other from
 * the stripe offset; their total must equal index + data length), load the
 * projected columns' data streams (one read spanning them, or pointers
 * into memory) and build the column readers; then decode up to batch_rows
 * rows of every projected column.
 */
#include "format/orc/orc_reader.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "format/orc/orc_read_column.h"
#include "format/orc/orc_schema.h"
#include "format/orc/orc_stream.h"
#include "format/orc/orc_tz.h"
#include "types/column.h"

#define DEFAULT_BATCH_ROWS 4096
#define DEFAULT_MAX_VALUE ((size_t)1 << 30)
/* Largest decoded metadata section (footer, metadata, stripe footer, row
 * index); real ones are kilobytes to a few megabytes. */
#define TAIL_LIMIT ((size_t)1 << 26)
#define STRIPE_FOOTER_LIMIT ((size_t)1 << 26)
#define MAX_ELEMENTS ((size_t)1 << 27)
#define NKINDS 11

typedef struct stream_ref {
    bool found;
    uint64_t offset;            /* absolute file offset */
    uint64_t length;
    const uint8_t *p;           /* loaded bytes */
} stream_ref;

struct pm_orc_reader {
    pm_input *in;
    const uint8_t *mem;
    uint64_t size;
    pm_arena arena;             /* tail, metadata, row indexes */
    orc_postscript ps;
    orc_footer ft;
    uint64_t body_end;          /* where Metadata starts */
    uint64_t metadata_off;
    bool md_loaded;
    orc_metadata md;
    pm_error *md_err;
    pm_codec_ctx *cctx;         /* the options' (borrowed) or own_cctx */
    pm_codec_ctx *own_cctx;
    orc_codec codec;
    orc_schema *schema;
    pm_orc_file_info info;
    /* projection */
    uint32_t nproj;
    uint32_t *proj;             /* ORC column id per batch column */
    pm_type *proj_type;
    bool footer_only;
    pm_batch *batch;
    int64_t batch_rows;
    size_t max_value_bytes;
    size_t max_elements;
    pm_orc_stripe_filter filter;
    void *filter_ctx;
    /* the open stripe */
    uint32_t next_stripe;
    bool open;
    uint32_t cur;
    uint64_t rows_left;
    pm_arena sarena;
    orc_stripe_footer sf;
    stream_ref *streams;        /* ncols * NKINDS */
    uint8_t *buf;               /* loaded stream bytes (file input) */
    orc_read_ctx ctx;
    orc_col_reader **readers;
    orc_tz *tz;                 /* writer zone of the last stripe with local timestamps */
    char *tz_id;
};

/* ------------------------------------------------------------------ */
/* Bytes                                                               */

static pm_error *src_read(pm_orc_reader *r, uint64_t off, void *buf, size_t n)
{
    if (off > r->size || n > r->size - off)
        return pm_error_new(PM_ECORRUPT, "read of %zu bytes at %llu past the end of the file (%llu bytes)", n,
                            (unsigned long long)off, (unsigned long long)r->size);
    if (n == 0)
        return NULL;
    if (r->mem) {
        memcpy(buf, r->mem + off, n);
        return NULL;
    }
    return pm_input_read_at(r->in, off, buf, n);
}

/* Read and decode a compressed message section of the file. */
static pm_error *read_section(pm_orc_reader *r, uint64_t off, uint64_t len, size_t limit, pm_buf *out)
{
    if (len > r->size || off > r->size - len)
        return pm_error_new(PM_ECORRUPT, "section of %llu bytes at %llu past the end of the file",
                            (unsigned long long)len, (unsigned long long)off);
    if (len > (uint64_t)limit)
        return pm_error_new(PM_EUNSUPPORTED, "section of %llu bytes is too large", (unsigned long long)len);
    const uint8_t *p;
    uint8_t *tmp = NULL;
    if (r->mem) {
        p = r->mem + off;
    } else {
        tmp = malloc(len ? (size_t)len : 1);
        if (!tmp)
            return pm_oom();
        pm_error *e = src_read(r, off, tmp, (size_t)len);
        if (e) {
            free(tmp);
            return e;
        }
        p = tmp;
    }
    pm_error *e = orc_decompress_all(&r->codec, p, (size_t)len, limit, out);
    free(tmp);
    return e;
}

/* ------------------------------------------------------------------ */
/* Tail                                                                */

static pm_error *read_tail(pm_orc_reader *r)
{
    if (r->size < 4)
        return pm_error_new(PM_ECORRUPT, "file of %llu bytes is too small for ORC", (unsigned long long)r->size);
    uint8_t last;
    PM_TRY(src_read(r, r->size - 1, &last, 1));
    size_t ps_len = last;
    if (ps_len == 0 || ps_len + 1 > r->size - 3)
        return pm_error_new(PM_ECORRUPT, "PostScript length %zu does not fit the file (%llu bytes)", ps_len,
                            (unsigned long long)r->size);
    uint8_t psb[256];
    uint64_t ps_off = r->size - 1 - ps_len;
    PM_TRY(src_read(r, ps_off, psb, ps_len));
    PM_TRY(orc_parse_postscript(psb, ps_len, &r->ps));
    uint8_t head[3];
    PM_TRY(src_read(r, 0, head, 3));
    if (r->ps.has_magic ? !r->ps.magic_ok : memcmp(head, "ORC", 3))
        return pm_error_new(PM_ECORRUPT, "not an ORC file (missing ORC magic)");
    if (r->ps.nversion >= 1 && r->ps.version[0] != 0)
        return pm_error_new(PM_EUNSUPPORTED, "ORC file version %u.%u is not supported", r->ps.version[0],
                            r->ps.nversion > 1 ? r->ps.version[1] : 0);
    if (r->ps.stripe_stats_length)
        return pm_error_new(PM_EUNSUPPORTED, "encrypted ORC files are not supported");
    uint64_t block = r->ps.has_block_size ? r->ps.block_size : 256 * 1024;
    PM_TRY(orc_codec_init(&r->codec, r->ps.compression, block, r->cctx));
    uint64_t avail = ps_off - 3;
    if (r->ps.footer_length > avail || r->ps.metadata_length > avail - r->ps.footer_length)
        return pm_error_new(PM_ECORRUPT, "footer (%llu bytes) and metadata (%llu bytes) exceed the file",
                            (unsigned long long)r->ps.footer_length, (unsigned long long)r->ps.metadata_length);
    uint64_t footer_off = ps_off - r->ps.footer_length;
    r->metadata_off = footer_off - r->ps.metadata_length;
    r->body_end = r->metadata_off;
    pm_buf fb = PM_BUF_INIT;
    pm_error *e = read_section(r, footer_off, r->ps.footer_length, TAIL_LIMIT, &fb);
    if (!e)
        e = orc_parse_footer(&r->arena, fb.data ? fb.data : (const uint8_t *)"", fb.len, &r->ft);
    pm_buf_free(&fb);
    if (e)
        return pm_error_wrap(e, 0, "footer");
    if (r->ft.has_encryption)
        return pm_error_new(PM_EUNSUPPORTED, "encrypted ORC files are not supported");
    uint64_t rows = 0;
    for (uint32_t i = 0; i < r->ft.nstripes; i++) {
        const orc_stripe_info *s = &r->ft.stripes[i];
        uint64_t len = s->index_length;
        if (__builtin_add_overflow(len, s->data_length, &len) || __builtin_add_overflow(len, s->footer_length, &len) ||
            s->offset < 3 || s->offset > r->body_end || len > r->body_end - s->offset)
            return pm_error_new(PM_ECORRUPT, "stripe %u (offset %llu) lies outside the file body", i,
                                (unsigned long long)s->offset);
        if (s->has_encrypt_id)
            return pm_error_new(PM_EUNSUPPORTED, "encrypted ORC files are not supported");
        if (__builtin_add_overflow(rows, s->rows, &rows))
            return pm_error_new(PM_ECORRUPT, "stripe row counts overflow");
    }
    if (rows != r->ft.rows)
        return pm_error_new(PM_ECORRUPT, "stripes hold %llu rows, the footer says %llu", (unsigned long long)rows,
                            (unsigned long long)r->ft.rows);
    pm_orc_file_info *fi = &r->info;
    fi->rows = r->ft.rows;
    fi->nstripes = r->ft.nstripes;
    fi->ncolumns = r->ft.ntypes;
    fi->compression = r->ps.compression;
    fi->block_size = r->ps.compression ? block : 0;
    fi->row_index_stride = r->ft.row_index_stride;
    fi->version[0] = r->ps.nversion > 0 ? r->ps.version[0] : 0;
    fi->version[1] = r->ps.nversion > 1 ? r->ps.version[1] : 0;
    fi->writer = r->ft.writer;
    fi->writer_version = r->ps.writer_version;
    fi->software_version = r->ft.software_version;
    fi->calendar = r->ft.calendar;
    fi->content_length = r->ft.content_length;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Projection                                                          */

static const pm_field *read_field_for(const pm_type *rt, const orc_col *c)
{
    if (!rt)
        return NULL;
    for (size_t i = 0; i < rt->nfields; i++)
        if (c->has_field_id && rt->fields[i].id == c->field_id)
            return &rt->fields[i];
    for (size_t i = 0; i < rt->nfields; i++)
        if (!strcmp(rt->fields[i].name, c->name))
            return &rt->fields[i];
    return NULL;
}

static pm_error *resolve_projection(pm_orc_reader *r, const pm_orc_reader_options *o)
{
    const orc_col *root = &r->schema->cols[0];
    size_t n = o->columns ? o->ncolumns : o->column_ids ? o->ncolumn_ids : root->nchildren;
    PM_TRY(pm_calloc(&r->proj, n ? n : 1, sizeof *r->proj));
    r->nproj = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        const orc_col *c = NULL;
        if (o->columns) {
            for (uint32_t k = 0; k < root->nchildren && !c; k++)
                if (!strcmp(root->children[k]->name, o->columns[i]))
                    c = root->children[k];
            if (!c)
                return pm_error_new(PM_EINVALID, "no column named '%s'", o->columns[i]);
        } else if (o->column_ids) {
            for (uint32_t k = 0; k < root->nchildren && !c; k++)
                if (root->children[k]->field_id == o->column_ids[i])
                    c = root->children[k];
            if (!c)
                return pm_error_new(PM_EINVALID, "no column with field id %d", o->column_ids[i]);
        } else {
            c = root->children[i];
        }
        r->proj[i] = c->id;
    }
    if (r->footer_only)
        return NULL;
    r->proj_type = pm_type_new_row(false);
    if (!r->proj_type)
        return pm_oom();
    for (uint32_t i = 0; i < r->nproj; i++) {
        const orc_col *c = &r->schema->cols[r->proj[i]];
        const pm_field *want = read_field_for(o->read_type, c);
        pm_type *t;
        int32_t id = c->field_id;
        if (want) {
            PM_TRY(pm_error_wrap(orc_schema_check_read(c, want->type), PM_EINVALID, "column '%s'", c->name));
            t = pm_type_clone(want->type);
            if (!t)
                return pm_oom();
            id = want->id;
        } else {
            PM_TRY(pm_error_wrap(orc_schema_paimon_type(c, &t), 0, "column '%s'", c->name));
        }
        PM_TRY(pm_type_add_field(r->proj_type, id, c->name, t));
    }
    return pm_batch_new(&r->batch, r->proj_type);
}

static pm_error *open_common(pm_orc_reader *r, const pm_orc_reader_options *o)
{
    pm_orc_reader_options def = PM_ORC_READER_OPTIONS_INIT;
    if (!o)
        o = &def;
    if (o->read_type && o->read_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "read_type must be a ROW type");
    r->batch_rows = o->batch_rows > 0 ? o->batch_rows : DEFAULT_BATCH_ROWS;
    r->max_value_bytes = o->max_value_bytes ? o->max_value_bytes : DEFAULT_MAX_VALUE;
    r->max_elements = o->max_batch_elements ? o->max_batch_elements : MAX_ELEMENTS;
    r->footer_only = o->footer_only;
    r->filter = o->filter;
    r->filter_ctx = o->filter_ctx;
    pm_arena_init(&r->arena, 0);
    pm_arena_init(&r->sarena, 0);
    if (o->codec) {
        r->cctx = o->codec;
    } else {
        PM_TRY(pm_codec_ctx_new(&r->own_cctx));
        r->cctx = r->own_cctx;
    }
    PM_TRY(read_tail(r));
    PM_TRY(orc_schema_build(&r->schema, &r->ft));
    PM_TRY(pm_calloc(&r->streams, (size_t)r->schema->ncols * NKINDS, sizeof *r->streams));
    return resolve_projection(r, o);
}

static pm_error *finish_open(pm_orc_reader *r, pm_error *e, pm_orc_reader **out, const char *name)
{
    if (e) {
        pm_orc_reader_free(r);
        return name ? pm_error_wrap(e, 0, "ORC file %s", name) : pm_error_wrap(e, 0, "ORC file");
    }
    *out = r;
    return NULL;
}

pm_error *pm_orc_reader_open(pm_orc_reader **out, pm_input *in, const pm_orc_reader_options *opts)
{
    *out = NULL;
    pm_orc_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->in = in;
    r->size = pm_input_size(in);
    return finish_open(r, open_common(r, opts), out, pm_input_path(in));
}

pm_error *pm_orc_reader_open_memory(pm_orc_reader **out, const uint8_t *data, size_t len,
                                    const pm_orc_reader_options *opts)
{
    *out = NULL;
    pm_orc_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->mem = data ? data : (const uint8_t *)"";
    r->size = len;
    return finish_open(r, open_common(r, opts), out, NULL);
}

static void close_stripe(pm_orc_reader *r)
{
    if (r->readers)
        for (uint32_t i = 0; i < r->nproj; i++)
            orc_col_reader_free(r->readers[i]);
    free(r->readers);
    r->readers = NULL;
    free(r->buf);
    r->buf = NULL;
    pm_arena_reset(&r->sarena);
    r->open = false;
}

void pm_orc_reader_free(pm_orc_reader *r)
{
    if (!r)
        return;
    close_stripe(r);
    pm_arena_free(&r->sarena);
    pm_arena_free(&r->arena);
    pm_error_free(r->md_err);
    pm_codec_ctx_free(r->own_cctx);
    orc_tz_free(r->tz);
    free(r->tz_id);
    orc_schema_free(r->schema);
    free(r->streams);
    free(r->proj);
    pm_type_free(r->proj_type);
    pm_batch_free(r->batch);
    free(r);
}

/* ------------------------------------------------------------------ */
/* Stripes                                                             */

static pm_error *parse_stripe_footer(pm_orc_reader *r, pm_arena *a, uint32_t s, orc_stripe_footer *sf)
{
    const orc_stripe_info *si = &r->ft.stripes[s];
    pm_buf b = PM_BUF_INIT;
    pm_error *e = read_section(r, si->offset + si->index_length + si->data_length, si->footer_length,
                               STRIPE_FOOTER_LIMIT, &b);
    if (!e)
        e = orc_parse_stripe_footer(a, b.data ? b.data : (const uint8_t *)"", b.len, sf);
    pm_buf_free(&b);
    if (!e && sf->has_encryption)
        e = pm_error_new(PM_EUNSUPPORTED, "encrypted ORC stripes are not supported");
    return e;
}

/* Walk the stream directory into `refs` (ncols * NKINDS). */
static pm_error *index_streams(pm_orc_reader *r, uint32_t s, const orc_stripe_footer *sf, stream_ref *refs)
{
    const orc_stripe_info *si = &r->ft.stripes[s];
    memset(refs, 0, (size_t)r->schema->ncols * NKINDS * sizeof *refs);
    uint64_t pos = si->offset, end = si->offset + si->index_length + si->data_length;
    for (uint32_t i = 0; i < sf->nstreams; i++) {
        const orc_stream_info *st = &sf->streams[i];
        if (st->length > end - pos)
            return pm_error_new(PM_ECORRUPT, "stream %u (%s of column %u, %llu bytes) runs past the stripe", i,
                                orc_stream_kind_name(st->kind), st->column, (unsigned long long)st->length);
        if (st->column < r->schema->ncols && st->kind < NKINDS) {
            stream_ref *ref = &refs[(size_t)st->column * NKINDS + st->kind];
            if (ref->found)
                return pm_error_new(PM_ECORRUPT, "stripe lists two %s streams for column %u",
                                    orc_stream_kind_name(st->kind), st->column);
            ref->found = true;
            ref->offset = pos;
            ref->length = st->length;
        }
        pos += st->length;
    }
    return NULL;
}

static bool data_kind(uint32_t k)
{
    return k != ORC_ROW_INDEX && k != ORC_BLOOM_FILTER && k != ORC_BLOOM_FILTER_UTF8 && k != ORC_DICTIONARY_COUNT;
}

static pm_error *load_streams(pm_orc_reader *r)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < r->nproj; i++) {
        const orc_col *c = &r->schema->cols[r->proj[i]];
        for (uint32_t id = c->id; id <= c->last_id; id++)
            for (uint32_t k = 0; k < NKINDS; k++) {
                stream_ref *ref = &r->streams[(size_t)id * NKINDS + k];
                if (!ref->found || !data_kind(k) || !ref->length)
                    continue;
                if (ref->offset < lo)
                    lo = ref->offset;
                if (ref->offset + ref->length > hi)
                    hi = ref->offset + ref->length;
            }
    }
    if (lo == UINT64_MAX)
        return NULL;
    const uint8_t *base;
    if (r->mem) {
        base = r->mem + lo;
    } else {
        if (hi - lo > SIZE_MAX / 2)
            return pm_error_new(PM_EUNSUPPORTED, "stripe of %llu bytes is too large", (unsigned long long)(hi - lo));
        r->buf = malloc((size_t)(hi - lo));
        if (!r->buf)
            return pm_oom();
        PM_TRY(src_read(r, lo, r->buf, (size_t)(hi - lo)));
        base = r->buf;
    }
    for (uint32_t i = 0; i < r->nproj; i++) {
        const orc_col *c = &r->schema->cols[r->proj[i]];
        for (uint32_t id = c->id; id <= c->last_id; id++)
            for (uint32_t k = 0; k < NKINDS; k++) {
                stream_ref *ref = &r->streams[(size_t)id * NKINDS + k];
                if (ref->found && data_kind(k))
                    ref->p = ref->length ? base + (ref->offset - lo) : (const uint8_t *)"";
            }
    }
    return NULL;
}

static pm_error *lookup(void *ctx, uint32_t column, uint32_t kind, const uint8_t **p, size_t *n, bool *found)
{
    pm_orc_reader *r = ctx;
    *found = false;
    if (column >= r->schema->ncols || kind >= NKINDS)
        return NULL;
    const stream_ref *ref = &r->streams[(size_t)column * NKINDS + kind];
    if (!ref->found || !ref->p)
        return NULL;
    *found = true;
    *p = ref->p;
    *n = (size_t)ref->length;
    return NULL;
}

static bool subtree_has_local_ts(const orc_col *c)
{
    if (c->kind == ORC_TIMESTAMP)
        return true;
    for (uint32_t i = 0; i < c->nchildren; i++)
        if (subtree_has_local_ts(c->children[i]))
            return true;
    return false;
}

static pm_error *open_stripe(pm_orc_reader *r, uint32_t s)
{
    PM_TRY(parse_stripe_footer(r, &r->sarena, s, &r->sf));
    PM_TRY(index_streams(r, s, &r->sf, r->streams));
    bool local_ts = false;
    for (uint32_t i = 0; i < r->nproj && !local_ts; i++)
        local_ts = subtree_has_local_ts(&r->schema->cols[r->proj[i]]);
    int64_t base = ORC_TIMESTAMP_BASE;
    if (local_ts) {
        const char *id = r->sf.writer_timezone ? r->sf.writer_timezone : "";
        if (!r->tz || strcmp(r->tz_id, id)) {
            orc_tz_free(r->tz);
            r->tz = NULL;
            free(r->tz_id);
            r->tz_id = NULL;
            PM_TRY(pm_error_wrap(orc_tz_load(id, &r->tz), 0, "writer time zone of the stripe"));
            PM_TRY(pm_strdup(&r->tz_id, id));
        }
        base = orc_tz_local_to_utc(r->tz, ORC_TIMESTAMP_BASE);
    }
    PM_TRY(load_streams(r));
    r->ctx.codec = &r->codec;
    r->ctx.lookup = lookup;
    r->ctx.lookup_ctx = r;
    r->ctx.encodings = r->sf.encodings;
    r->ctx.nencodings = r->sf.nencodings;
    r->ctx.writer_tz = r->tz;
    r->ctx.writer_base = base;
    r->ctx.max_value_bytes = r->max_value_bytes;
    r->ctx.max_elements = r->max_elements;
    PM_TRY(pm_calloc(&r->readers, r->nproj ? r->nproj : 1, sizeof *r->readers));
    for (uint32_t i = 0; i < r->nproj; i++) {
        const pm_field *f = &r->proj_type->fields[i];
        PM_TRY(pm_error_wrap(orc_col_reader_new(&r->readers[i], &r->schema->cols[r->proj[i]], f->type, &r->ctx), 0,
                             "column '%s'", f->name));
    }
    r->open = true;
    r->cur = s;
    r->rows_left = r->ft.stripes[s].rows;
    return NULL;
}

pm_error *pm_orc_reader_next_batch(pm_orc_reader *r, pm_batch **out)
{
    *out = NULL;
    if (r->footer_only)
        return pm_error_new(PM_EINVALID, "reader was opened with footer_only");
    while (!r->open) {
        if (r->next_stripe >= r->ft.nstripes)
            return NULL;
        uint32_t s = r->next_stripe++;
        if (r->ft.stripes[s].rows == 0)
            continue;
        if (r->filter && !r->filter(r->filter_ctx, r, s))
            continue;
        pm_error *e = open_stripe(r, s);
        if (e) {
            close_stripe(r);
            return pm_error_wrap(e, 0, "stripe %u", s);
        }
    }
    PM_TRY(pm_batch_reset(r->batch));
    size_t n = r->rows_left < (uint64_t)r->batch_rows ? (size_t)r->rows_left : (size_t)r->batch_rows;
    for (uint32_t i = 0; i < r->nproj; i++) {
        pm_error *e = orc_col_reader_read(r->readers[i], n, NULL, r->batch->columns[i]);
        if (e) {
            uint32_t s = r->cur;
            close_stripe(r);
            r->next_stripe = r->ft.nstripes;   /* a broken stripe ends the read */
            return pm_error_wrap(e, 0, "stripe %u", s);
        }
    }
    PM_TRY(pm_batch_finish(r->batch, (int64_t)n));
    r->rows_left -= n;
    if (r->rows_left == 0)
        close_stripe(r);
    *out = r->batch;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Facts, statistics, indexes                                          */

const pm_type *pm_orc_reader_schema(const pm_orc_reader *r) { return r->proj_type; }
const pm_orc_file_info *pm_orc_reader_info(const pm_orc_reader *r) { return &r->info; }
const orc_footer *pm_orc_reader_footer(const pm_orc_reader *r) { return &r->ft; }

int64_t pm_orc_reader_column_of(const pm_orc_reader *r, const char *name)
{
    const orc_col *root = &r->schema->cols[0];
    for (uint32_t k = 0; k < root->nchildren; k++)
        if (!strcmp(root->children[k]->name, name))
            return root->children[k]->id;
    return -1;
}

const pm_orc_stats *pm_orc_reader_file_stats(const pm_orc_reader *r, uint32_t column)
{
    return column < r->ft.nstats ? &r->ft.stats[column] : NULL;
}

static void load_metadata(pm_orc_reader *r)
{
    if (r->md_loaded)
        return;
    r->md_loaded = true;
    pm_buf b = PM_BUF_INIT;
    pm_error *e = read_section(r, r->metadata_off, r->ps.metadata_length, TAIL_LIMIT, &b);
    if (!e)
        e = orc_parse_metadata(&r->arena, b.data ? b.data : (const uint8_t *)"", b.len, &r->md);
    pm_buf_free(&b);
    if (e)
        r->md_err = pm_error_wrap(e, 0, "stripe statistics");
}

const pm_orc_stats *pm_orc_reader_stripe_stats(pm_orc_reader *r, uint32_t stripe, uint32_t column)
{
    load_metadata(r);
    if (r->md_err || stripe >= r->md.nstripes || column >= r->md.ncols[stripe])
        return NULL;
    return &r->md.stats[stripe][column];
}

const pm_error *pm_orc_reader_metadata_error(const pm_orc_reader *r) { return r->md_err; }

pm_error *pm_orc_reader_stripe_footer(pm_orc_reader *r, uint32_t stripe, const orc_stripe_footer **out)
{
    *out = NULL;
    if (stripe >= r->ft.nstripes)
        return pm_error_new(PM_EINVALID, "stripe %u of %u", stripe, r->ft.nstripes);
    orc_stripe_footer *sf = pm_arena_calloc(&r->arena, sizeof *sf, 8);
    if (!sf)
        return pm_oom();
    PM_TRY(pm_error_wrap(parse_stripe_footer(r, &r->arena, stripe, sf), 0, "stripe %u", stripe));
    *out = sf;
    return NULL;
}

pm_error *pm_orc_reader_row_index(pm_orc_reader *r, uint32_t stripe, uint32_t column, const orc_row_index **out)
{
    *out = NULL;
    const orc_stripe_footer *sf;
    PM_TRY(pm_orc_reader_stripe_footer(r, stripe, &sf));
    stream_ref *refs;
    PM_TRY(pm_calloc(&refs, (size_t)r->schema->ncols * NKINDS, sizeof *refs));
    pm_error *e = index_streams(r, stripe, sf, refs);
    stream_ref ref = {0};
    if (!e && column < r->schema->ncols)
        ref = refs[(size_t)column * NKINDS + ORC_ROW_INDEX];
    free(refs);
    PM_TRY(e);
    if (!ref.found)
        return pm_error_new(PM_ENOTFOUND, "stripe %u has no row index for column %u", stripe, column);
    pm_buf b = PM_BUF_INIT;
    orc_row_index *ri = pm_arena_calloc(&r->arena, sizeof *ri, 8);
    if (!ri)
        return pm_oom();
    e = read_section(r, ref.offset, ref.length, TAIL_LIMIT, &b);
    if (!e)
        e = orc_parse_row_index(&r->arena, b.data ? b.data : (const uint8_t *)"", b.len, ri);
    pm_buf_free(&b);
    PM_TRY(pm_error_wrap(e, 0, "row index of column %u in stripe %u", column, stripe));
    *out = ri;
    return NULL;
}
