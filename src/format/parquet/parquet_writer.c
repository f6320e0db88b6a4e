/*
 * format/parquet/parquet_writer.c — the Parquet file writer: row slicing,
 * row groups, footer and the merged statistics handed to the table layer
 * (file layout and steps in parquet_writer.h).
 *
 * Row-group sizing: rows are fed to the column writers in slices; after
 * each slice the buffered size (pages written + open pages + dictionaries)
 * is compared with row_group_size.  The next slice is half the rows the
 * current average row size says still fit (at least PQ_MIN_SLICE), so the
 * row group ends close to its target without checking every row.
 *
 * Parallel columns (pm_pq_writer_set_pool): a slice of at least
 * PQ_PAR_ROWS rows is encoded by the caller and up to threads - 1 pool
 * jobs that take columns in turn from a shared counter; each participant
 * compresses with its own codec context.  Columns share no state, and the
 * row-group check waits for the whole slice, so the bytes are those of the
 * serial loop; the first failing column (in column order) is reported.
 */
#include "format/parquet/parquet_writer.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/pool.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_write_column.h"
#include "format/parquet/pq_page_copy.h"
#include "types/column.h"

#define PQ_FIRST_SLICE 1000
#define PQ_MIN_SLICE 100
#define PQ_PAR_ROWS 8192
#define PQ_MAX_THREADS 64
#define PQ_DEFAULT_CREATED_BY "paimon-c version 0.1.0 (build paimon-c)"

struct pm_pq_writer {
    pm_output *out;
    pm_type *type;
    pm_pq_writer_options opt;
    pm_codec_ctx *codec;
    pm_pq_file_meta *meta;      /* arena: schema, chunk metadata, copies */
    pq_write_schema schema;
    pq_colw *cols;
    uint32_t ncols;
    pq_row_group *rgs;
    size_t nrgs, rgs_cap;
    int64_t rg_rows;
    int64_t total_rows;
    uint64_t start_pos;
    bool failed;                /* a write failed half-way: the file cannot be finished */
    pm_buf column_indexes;      /* every chunk's ColumnIndex, written before the footer */
    pm_buf offset_indexes;      /* every chunk's OffsetIndex, after the column indexes */
    int32_t *mirror;            /* per leaf: the leaf whose chunk it repeats in this row group, or -1 */
    int32_t *same;              /* per leaf, scratch: the earlier leaf of the batch's same column, or -1 */
    /* parallel columns */
    pm_pool *pool;              /* borrowed; NULL = serial */
    size_t threads;
    pm_codec_ctx **ctxs;        /* ctxs[i] for participant i > 0 (0 uses `codec`) */
    size_t nctxs;
    pm_error **errs;            /* per column, for one slice */
};

/* ---- batch validation ---------------------------------------------------- */

static int fixed_width(pm_type_id id)
{
    switch (id) {
    case PM_TYPE_TINYINT:
        return 1;
    case PM_TYPE_SMALLINT:
        return 2;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
    case PM_TYPE_FLOAT:
        return 4;
    case PM_TYPE_BIGINT:
    case PM_TYPE_DOUBLE:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return 8;
    case PM_TYPE_DECIMAL:
        return 16;
    default:
        return 0;
    }
}

static bool is_varlen(pm_type_id id)
{
    return id == PM_TYPE_CHAR || id == PM_TYPE_VARCHAR || id == PM_TYPE_BINARY ||
           id == PM_TYPE_VARBINARY || id == PM_TYPE_BLOB;
}

/* Same physical layout: type ids, DECIMAL precision class and scale,
 * timestamp unit. */
static bool same_layout(const pm_type *a, const pm_type *b)
{
    if (is_varlen(a->id) && is_varlen(b->id))
        return (a->id == PM_TYPE_CHAR || a->id == PM_TYPE_VARCHAR) ==
               (b->id == PM_TYPE_CHAR || b->id == PM_TYPE_VARCHAR);
    if (a->id != b->id)
        return false;
    switch (a->id) {
    case PM_TYPE_DECIMAL:
        return a->precision == b->precision && a->scale == b->scale;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return pm_timestamp_units_per_second(a->precision) == pm_timestamp_units_per_second(b->precision);
    default:
        return true;
    }
}

static pm_error *check_offsets(const pm_column *c, int64_t child_len, const char *name)
{
    if (c->length == 0)
        return NULL;
    if (c->offsets.len < (size_t)(c->length + 1) * 4)
        return pm_error_new(PM_EINVALID, "column '%s': offsets buffer too short", name);
    const int32_t *o = pm_column_offsets(c);
    if (o[0] < 0)
        return pm_error_new(PM_EINVALID, "column '%s': negative offset", name);
    /* blocks of 16 become vector compares; the row is found only on error */
    int32_t bad = 0;
    int64_t i = 0;
    for (; i + 16 <= c->length; i += 16) {
        int32_t b = 0;
        for (int j = 0; j < 16; j++)
            b |= o[i + j + 1] < o[i + j];
        bad |= b;
    }
    for (; i < c->length; i++)
        bad |= o[i + 1] < o[i];
    if (bad)
        for (i = 0; i < c->length; i++)
            if (o[i + 1] < o[i])
                return pm_error_new(PM_EINVALID, "column '%s': offsets decrease at row %lld", name,
                                    (long long)i);
    if (o[c->length] > child_len)
        return pm_error_new(PM_EINVALID, "column '%s': offsets past the end of its values", name);
    return NULL;
}

/* A dictionary-encoded byte-string column: a plain dictionary without
 * nulls, one id per row, every non-null row's id inside it. */
static pm_error *check_dict_ids(const pm_column *c, const char *name)
{
    const pm_column *d = c->dictionary;
    if (d->dictionary || d->null_count || d->type->id != c->type->id)
        return pm_error_new(PM_EINVALID, "column '%s': its dictionary must be a plain column of its type "
                            "without nulls", name);
    PM_TRY(check_offsets(d, (int64_t)d->data.len, name));
    if (c->values.len < (size_t)c->length * 4)
        return pm_error_new(PM_EINVALID, "column '%s': dictionary id buffer too short", name);
    const int32_t *ids = (const int32_t *)(const void *)c->values.data;
    for (int64_t i = 0; i < c->length; i++)
        if ((ids[i] < 0 || ids[i] >= d->length) && !pm_column_is_null(c, i))
            return pm_error_new(PM_EINVALID, "column '%s': dictionary id %d at row %lld outside its %lld entries",
                                name, (int)ids[i], (long long)i, (long long)d->length);
    return NULL;
}

static pm_error *check_column(const pm_column *c, const pm_type *t, int64_t rows, const char *name)
{
    if (!c || !c->type)
        return pm_error_new(PM_EINVALID, "column '%s' is missing", name);
    if (!same_layout(c->type, t))
        return pm_error_new(PM_EINVALID, "column '%s' has type %s, the file expects %s", name,
                            pm_type_id_name(c->type->id), pm_type_id_name(t->id));
    if (c->length < rows)
        return pm_error_new(PM_EINVALID, "column '%s' has %lld rows, expected %lld", name,
                            (long long)c->length, (long long)rows);
    if (c->null_count > 0 && c->validity.len < (size_t)(c->length + 7) / 8)
        return pm_error_new(PM_EINVALID, "column '%s': validity bitmap too short", name);
    int w = fixed_width(t->id);
    if (w && c->values.len < (size_t)c->length * (size_t)w)
        return pm_error_new(PM_EINVALID, "column '%s': values buffer too short", name);
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        if (c->values.len < (size_t)(c->length + 7) / 8)
            return pm_error_new(PM_EINVALID, "column '%s': values buffer too short", name);
        return NULL;
    case PM_TYPE_ROW:
        if (c->nchildren != t->nfields)
            return pm_error_new(PM_EINVALID, "row column '%s' has %zu children, type has %zu", name,
                                c->nchildren, t->nfields);
        for (size_t i = 0; i < t->nfields; i++)
            PM_TRY(check_column(c->children[i], t->fields[i].type, c->length, t->fields[i].name));
        return NULL;
    case PM_TYPE_ARRAY:
        if (c->nchildren < 1)
            return pm_error_new(PM_EINVALID, "array column '%s' has no element column", name);
        PM_TRY(check_offsets(c, c->children[0] ? c->children[0]->length : 0, name));
        return check_column(c->children[0], t->element, 0, name);
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: {
        if (c->nchildren < 2 || !c->children[0] || !c->children[1])
            return pm_error_new(PM_EINVALID, "map column '%s' needs key and value columns", name);
        int64_t n = c->children[0]->length < c->children[1]->length ? c->children[0]->length
                                                                      : c->children[1]->length;
        PM_TRY(check_offsets(c, n, name));
        PM_TRY(check_column(c->children[0], t->id == PM_TYPE_MAP ? t->key : t->element, 0, name));
        if (t->id == PM_TYPE_MAP)
            return check_column(c->children[1], t->value, 0, name);
        if (c->children[1]->type->id != PM_TYPE_INT || c->children[1]->values.len < (size_t)c->children[1]->length * 4)
            return pm_error_new(PM_EINVALID, "multiset column '%s': counts must be INT", name);
        return NULL;
    }
    default:
        if (is_varlen(t->id) && c->dictionary)
            return check_dict_ids(c, name);
        if (is_varlen(t->id))
            return check_offsets(c, (int64_t)c->data.len, name);
        return NULL;
    }
}

/* ---- options ------------------------------------------------------------- */

void pm_pq_writer_options_default(pm_pq_writer_options *o)
{
    memset(o, 0, sizeof *o);
    o->codec = PM_CODEC_ZSTD;
    o->codec_level = 1;
    o->page_size = 1024 * 1024;
    o->page_row_limit = 20000;
    o->dictionary_page_size = 1024 * 1024;
    o->dictionary = true;
    o->row_group_size = 128 * 1024 * 1024;
    o->page_crc = true;
}

static pm_error *check_options(const pm_pq_writer_options *o)
{
    switch (o->codec) {
    case PM_CODEC_NONE:
    case PM_CODEC_SNAPPY:
    case PM_CODEC_GZIP:
    case PM_CODEC_LZ4:
    case PM_CODEC_ZSTD:
    case PM_CODEC_LZ4_RAW:
        break;
    default:
        return pm_error_new(PM_EUNSUPPORTED, "Parquet compression codec %d is not supported", (int)o->codec);
    }
    if (o->page_size <= 0 || o->page_size > INT32_MAX)
        return pm_error_new(PM_EINVALID, "page size %lld out of range", (long long)o->page_size);
    if (o->page_row_limit <= 0)
        return pm_error_new(PM_EINVALID, "page row limit %lld out of range", (long long)o->page_row_limit);
    if (o->dictionary_page_size <= 0 || o->dictionary_page_size > INT32_MAX)
        return pm_error_new(PM_EINVALID, "dictionary page size %lld out of range",
                            (long long)o->dictionary_page_size);
    if (o->row_group_size <= 0)
        return pm_error_new(PM_EINVALID, "row group size %lld out of range", (long long)o->row_group_size);
    return NULL;
}

/* ---- writer -------------------------------------------------------------- */

static void writer_free(pm_pq_writer *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->ncols; i++)
        pq_colw_free(&w->cols[i]);
    free(w->cols);
    free(w->mirror);
    free(w->same);
    for (size_t i = 0; i < w->nctxs; i++)
        pm_codec_ctx_free(w->ctxs[i]);
    free(w->ctxs);
    free(w->errs);
    free(w->rgs);
    pm_buf_free(&w->column_indexes);
    pm_buf_free(&w->offset_indexes);
    pm_pq_file_meta_free(w->meta);
    pm_codec_ctx_free(w->codec);
    pm_type_free(w->type);
    free(w);
}

void pm_pq_writer_abort(pm_pq_writer *w)
{
    writer_free(w);
}

pm_error *pm_pq_writer_new(pm_pq_writer **out, pm_output *o, const pm_type *row_type,
                           const pm_pq_writer_options *opts)
{
    *out = NULL;
    pm_pq_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    pm_error *e = NULL;
    if (opts)
        w->opt = *opts;
    else
        pm_pq_writer_options_default(&w->opt);
    w->out = o;
    PM_TRY_GOTO(e, check_options(&w->opt), fail);
    w->type = pm_type_clone(row_type);
    if (!w->type) {
        e = pm_oom();
        goto fail;
    }
    PM_TRY_GOTO(e, pm_pq_file_meta_new(&w->meta), fail);
    PM_TRY_GOTO(e, pm_codec_ctx_new(&w->codec), fail);
    PM_TRY_GOTO(e, pq_schema_build(&w->meta->arena, w->type, &w->schema), fail);
    /* Strings the footer keeps until close. */
    const char *cb = w->opt.created_by ? w->opt.created_by : PQ_DEFAULT_CREATED_BY;
    w->opt.created_by = pm_arena_strdup(&w->meta->arena, cb);
    if (!w->opt.created_by) {
        e = pm_oom();
        goto fail;
    }
    if (w->opt.footer_kv_count) {
        pq_key_value *kv = pm_arena_alloc(&w->meta->arena, sizeof *kv * w->opt.footer_kv_count,
                                          _Alignof(pq_key_value));
        if (!kv) {
            e = pm_oom();
            goto fail;
        }
        for (size_t i = 0; i < w->opt.footer_kv_count; i++) {
            kv[i].key = pm_arena_strdup(&w->meta->arena, w->opt.footer_kv[i].key);
            kv[i].value = w->opt.footer_kv[i].value
                              ? pm_arena_strdup(&w->meta->arena, w->opt.footer_kv[i].value)
                              : NULL;
            if (!kv[i].key || (w->opt.footer_kv[i].value && !kv[i].value)) {
                e = pm_oom();
                goto fail;
            }
        }
        w->meta->key_value_metadata = kv;
        w->meta->num_key_value_metadata = (uint32_t)w->opt.footer_kv_count;
    }
    w->opt.footer_kv = NULL;
    w->opt.footer_kv_count = 0;
    PM_TRY_GOTO(e, pm_calloc(&w->cols, w->schema.nleaves ? w->schema.nleaves : 1, sizeof *w->cols), fail);
    for (uint32_t i = 0; i < w->schema.nleaves; i++) {
        PM_TRY_GOTO(e, pq_colw_init(&w->cols[i], &w->schema.leaves[i], &w->opt, w->codec), fail);
        w->ncols = i + 1;
    }
    PM_TRY_GOTO(e, pm_calloc(&w->mirror, w->ncols ? w->ncols : 1, sizeof *w->mirror), fail);
    PM_TRY_GOTO(e, pm_calloc(&w->same, w->ncols ? w->ncols : 1, sizeof *w->same), fail);
    for (uint32_t i = 0; i < w->ncols; i++)
        w->mirror[i] = -1;
    w->start_pos = pm_output_pos(o);
    PM_TRY_GOTO(e, pm_output_write(o, "PAR1", 4), fail);
    *out = w;
    return NULL;
fail:
    writer_free(w);
    return pm_error_wrap(e, 0, "create Parquet writer");
}

uint64_t pm_pq_writer_estimated_size(const pm_pq_writer *w)
{
    uint64_t n = pm_output_pos(w->out) - w->start_pos;
    for (uint32_t i = 0; i < w->ncols; i++)
        n += pq_colw_buffered(&w->cols[w->mirror[i] >= 0 ? (uint32_t)w->mirror[i] : i]);
    return n;
}

int64_t pm_pq_writer_num_rows(const pm_pq_writer *w)
{
    return w->total_rows;
}

static uint64_t buffered(const pm_pq_writer *w)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < w->ncols; i++)
        n += pq_colw_buffered(&w->cols[w->mirror[i] >= 0 ? (uint32_t)w->mirror[i] : i]);
    return n;
}

static pm_error *flush_row_group(pm_pq_writer *w)
{
    if (w->rg_rows == 0)
        return NULL;
    if (w->nrgs == w->rgs_cap) {
        size_t cap = w->rgs_cap ? w->rgs_cap * 2 : 8;
        PM_TRY(pm_realloc_array(&w->rgs, cap, sizeof *w->rgs));
        w->rgs_cap = cap;
    }
    if (w->nrgs > INT16_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "more than %d row groups", INT16_MAX);
    pm_arena *a = &w->meta->arena;
    pq_row_group *rg = &w->rgs[w->nrgs];
    memset(rg, 0, sizeof *rg);
    rg->columns = pm_arena_calloc(a, sizeof(pq_column_chunk) * (w->ncols ? w->ncols : 1),
                                  _Alignof(pq_column_chunk));
    if (!rg->columns)
        return pm_oom();
    int64_t start = (int64_t)pm_output_pos(w->out);
    for (uint32_t i = 0; i < w->ncols; i++) {
        /* a mirror leaf writes its source's chunk again (described as itself) */
        pq_colw *cw = &w->cols[w->mirror[i] >= 0 ? (uint32_t)w->mirror[i] : i];
        pq_column_chunk *cc = &rg->columns[i];
        PM_TRY(pm_error_wrap(pq_colw_write_chunk(cw, &w->schema.leaves[i], w->out, a, cc), 0,
                             "row group %zu, column '%s'", w->nrgs, w->schema.leaves[i].path[0]));
        rg->total_byte_size += cc->meta_data.total_uncompressed_size;
        rg->total_compressed_size += cc->meta_data.total_compressed_size;
        /* Page indexes go after all row groups; offsets relative until close. */
        if (cw->has_ci) {
            cc->has_column_index = true;
            cc->column_index_offset = (int64_t)w->column_indexes.len;
            cc->column_index_length = (int32_t)cw->ci_ser.len;
            PM_TRY(pm_buf_append(&w->column_indexes, cw->ci_ser.data, cw->ci_ser.len));
        }
        cc->has_offset_index = true;
        cc->offset_index_offset = (int64_t)w->offset_indexes.len;
        cc->offset_index_length = (int32_t)cw->oi_ser.len;
        PM_TRY(pm_buf_append(&w->offset_indexes, cw->oi_ser.data, cw->oi_ser.len));
    }
    /* mirrors first: they take their source's chunk statistics before it resets */
    for (uint32_t i = 0; i < w->ncols; i++)
        if (w->mirror[i] >= 0)
            PM_TRY(pq_stats_merge(&w->cols[i].total, &w->cols[w->mirror[i]].stats));
    for (uint32_t i = 0; i < w->ncols; i++) {
        PM_TRY(pq_colw_offer_ends(&w->cols[i])); /* an offered page never spans row groups (closed above) */
        if (w->mirror[i] < 0)
            PM_TRY(pq_colw_reset_chunk(&w->cols[i]));
    }
    rg->num_columns = w->ncols;
    rg->num_rows = w->rg_rows;
    rg->has_file_offset = true;
    rg->file_offset = start;
    rg->has_total_compressed_size = true;
    rg->has_ordinal = true;
    rg->ordinal = (int16_t)w->nrgs;
    w->nrgs++;
    w->rg_rows = 0;
    return NULL;
}

void pm_pq_writer_set_pool(pm_pq_writer *w, pm_pool *pool, size_t threads)
{
    w->pool = threads > 1 ? pool : NULL;
    w->threads = threads > PQ_MAX_THREADS ? PQ_MAX_THREADS : threads;
}

void pm_pq_writer_set_plain_sources(pm_pq_writer *w, const bool *plain, size_t n)
{
    for (uint32_t c = 0; c < w->ncols; c++) {
        uint32_t top = w->schema.leaves[c].top;
        pq_colw_set_plain_source(&w->cols[c], plain && top < n && plain[top]);
    }
}

pm_error *pm_pq_writer_offer_page(pm_pq_writer *w, size_t field, const pq_schema_element *elem, const uint8_t *page,
                                  size_t len, pm_codec_id codec, int64_t rows, bool *taken)
{
    return pm_pq_writer_offer_lazy(w, field, elem, page, len, codec, rows, NULL, taken);
}

pm_error *pm_pq_writer_offer_lazy(pm_pq_writer *w, size_t field, const pq_schema_element *elem, const uint8_t *page,
                                  size_t len, pm_codec_id codec, int64_t rows, const pq_page_facts *facts,
                                  bool *taken)
{
    *taken = false;
    if (w->failed || field >= w->type->nfields || w->schema.top_nleaves[field] != 1)
        return NULL;
    const pq_schema_element *own =
        pq_schema_top_element(w->schema.elems, w->schema.nelems, w->type->fields[field].name);
    if (!own || !pq_schema_same_storage(own, elem))
        return NULL;
    if (facts && w->mirror[w->schema.top_first_leaf[field]] >= 0)
        return NULL; /* a mirror's rows are its source's */
    return pq_colw_offer_page(&w->cols[w->schema.top_first_leaf[field]], page, len, codec, rows, facts, taken);
}

int64_t pm_pq_writer_pages_copied(const pm_pq_writer *w)
{
    int64_t n = 0;
    for (uint32_t c = 0; c < w->ncols; c++)
        n += w->cols[c].copied;
    return n;
}

pm_error *pm_pq_writer_cancel_pages(pm_pq_writer *w)
{
    for (uint32_t c = 0; c < w->ncols; c++) {
        pm_error *e = pq_colw_cancel_page(&w->cols[c]);
        if (e) {
            w->failed = true;
            return e;
        }
    }
    return NULL;
}

bool pm_pq_writer_lazy_pending(const pm_pq_writer *w)
{
    for (uint32_t c = 0; c < w->ncols; c++)
        if (pq_colw_lazy_pending(&w->cols[c]))
            return true;
    return false;
}

int64_t pm_pq_writer_pages_lazy(const pm_pq_writer *w)
{
    int64_t n = 0;
    for (uint32_t c = 0; c < w->ncols; c++)
        n += w->cols[c].copied_lazy;
    return n;
}

/* One slice of rows for the participants of a parallel encode. */
typedef struct col_slice {
    pm_pq_writer *w;
    const pm_batch *b;
    int64_t r0, r1;
    atomic_uint next;           /* next column to take */
} col_slice;

typedef struct col_helper {
    col_slice *s;
    pm_codec_ctx *ctx;
} col_helper;

static void encode_columns(col_slice *s, pm_codec_ctx *ctx)
{
    pm_pq_writer *w = s->w;
    for (;;) {
        unsigned c = atomic_fetch_add(&s->next, 1);
        if (c >= w->ncols)
            return;
        if (w->mirror[c] >= 0)
            continue;
        const pq_leaf *l = &w->schema.leaves[c];
        pq_colw *cw = &w->cols[c];
        cw->codec = ctx;
        pm_error *e = pq_colw_write(cw, s->b->columns[l->top], s->r0, s->r1);
        cw->codec = w->codec;
        if (e)
            w->errs[c] = pm_error_wrap(e, 0, "column '%s'", w->type->fields[l->top].name);
    }
}

static void helper_run(void *arg)
{
    col_helper *h = arg;
    encode_columns(h->s, h->ctx);
}

/* Rows [r0, r1) of every column: the caller plus pool jobs. */
static pm_error *write_slice_parallel(pm_pq_writer *w, const pm_batch *b, int64_t r0, int64_t r1)
{
    size_t helpers = w->threads - 1;
    if (helpers > w->ncols - 1)
        helpers = w->ncols - 1;
    if (w->nctxs < helpers) {
        PM_TRY(pm_realloc_array(&w->ctxs, helpers, sizeof *w->ctxs));
        for (; w->nctxs < helpers; w->nctxs++)
            PM_TRY(pm_codec_ctx_new(&w->ctxs[w->nctxs]));
    }
    if (!w->errs)
        PM_TRY(pm_calloc(&w->errs, w->ncols, sizeof *w->errs));
    col_slice s = {w, b, r0, r1, 0};
    col_helper hs[PQ_MAX_THREADS];
    pm_task_group *g = NULL;
    pm_error *e = pm_group_new(&g);
    for (size_t i = 0; !e && i < helpers; i++) {
        hs[i] = (col_helper){&s, w->ctxs[i]};
        e = pm_pool_submit(w->pool, g, helper_run, &hs[i]);
    }
    pm_error_free(e); /* fewer helpers only means the caller takes more columns */
    encode_columns(&s, w->codec);
    pm_group_free(g); /* waits for the helpers */
    e = NULL;
    for (uint32_t c = 0; c < w->ncols; c++) {
        if (w->errs[c] && !e)
            e = w->errs[c];
        else
            pm_error_free(w->errs[c]);
        w->errs[c] = NULL;
    }
    return e;
}

/* Rows [0, n) of the batch, cut into slices (see the file comment). */
static pm_error *write_rows(pm_pq_writer *w, const pm_batch *b, int64_t n)
{
    int64_t r = 0;
    while (r < n) {
        int64_t slice = n - r;
        uint64_t buf = buffered(w);
        if ((int64_t)buf >= w->opt.row_group_size) {
            PM_TRY(flush_row_group(w));
            continue;
        }
        if (w->rg_rows == 0 || buf == 0) {
            if (slice > PQ_FIRST_SLICE)
                slice = PQ_FIRST_SLICE;
        } else {
            double per_row = (double)buf / (double)w->rg_rows;
            double fit = (double)(w->opt.row_group_size - (int64_t)buf) / per_row;
            int64_t want = (int64_t)(fit / 2) + 1;
            if (want < PQ_MIN_SLICE)
                want = PQ_MIN_SLICE;
            if (slice > want)
                slice = want;
        }
        if (w->pool && w->ncols > 1 && slice >= PQ_PAR_ROWS) {
            PM_TRY(write_slice_parallel(w, b, r, r + slice));
        } else {
            for (uint32_t c = 0; c < w->ncols; c++) {
                const pq_leaf *l = &w->schema.leaves[c];
                if (w->mirror[c] >= 0)
                    continue;
                PM_TRY(pm_error_wrap(pq_colw_write(&w->cols[c], b->columns[l->top], r, r + slice), 0,
                                     "column '%s'", w->type->fields[l->top].name));
            }
        }
        w->rg_rows += slice;
        w->total_rows += slice;
        r += slice;
    }
    if ((int64_t)buffered(w) >= w->opt.row_group_size)
        PM_TRY(flush_row_group(w));
    return NULL;
}

/* A NOT NULL top-level field with a null among rows [0, n). */
static pm_error *check_not_null(const pm_column *c, const pm_field *f, int64_t n)
{
    if (f->type->nullable || c->null_count == 0)
        return NULL;
    const uint8_t *bm = c->validity.data;
    for (int64_t r = 0; r < n; r++)
        if (!((bm[r >> 3] >> (r & 7)) & 1))
            return pm_error_new(PM_EINVALID, "field '%s' is NOT NULL but row %lld is null", f->name,
                                (long long)r);
    return NULL;
}

/* Whether leaf c can repeat leaf s's chunk: both flat, of equal type and
 * levels, with the same encoding choice at the chunk's start. */
static bool can_mirror(const pm_pq_writer *w, uint32_t s, uint32_t c)
{
    const pq_leaf *a = &w->schema.leaves[s], *l = &w->schema.leaves[c];
    const pq_colw *ca = &w->cols[s], *cl = &w->cols[c];
    return a->flat && l->flat && a->phys == l->phys && a->type_length == l->type_length &&
           a->max_def == l->max_def && a->max_rep == l->max_rep && a->kind == l->kind && a->stats == l->stats &&
           a->legacy_stats == l->legacy_stats && a->dict_ok == l->dict_ok && pm_type_equals(a->type, l->type) &&
           ca->dict_on == cl->dict_on && ca->plain_source == cl->plain_source;
}

/* Mirrors (parquet_writer.h): a leaf whose top-level column in `b` is the
 * very column object of an earlier leaf repeats that leaf's chunk.  Decided
 * by the first batch of a row group; a later batch of that row group keeps
 * them while the two columns are the same object or hold the same values
 * (a slice of the caller's batch is a copy), else the row group ends
 * first. */
static pm_error *set_mirrors(pm_pq_writer *w, const pm_batch *b)
{
    bool diverged = false;
    for (uint32_t c = 0; c < w->ncols; c++) {
        w->same[c] = -1;
        const pq_leaf *l = &w->schema.leaves[c];
        for (uint32_t s = 0; l->flat && s < c; s++) {
            const pq_leaf *a = &w->schema.leaves[s];
            if (w->same[s] < 0 && a->flat && b->columns[a->top] == b->columns[l->top]) {
                w->same[c] = (int32_t)s;
                break;
            }
        }
        int32_t m = w->mirror[c];
        if (m >= 0 && w->same[c] != m &&
            !pm_column_same_values(b->columns[w->schema.leaves[m].top], b->columns[l->top], b->num_rows))
            diverged = true;
    }
    if (diverged)
        PM_TRY(flush_row_group(w));
    if (w->rg_rows > 0)
        return NULL;   /* the open row group keeps its mirrors */
    for (uint32_t c = 0; c < w->ncols; c++)
        w->mirror[c] = w->same[c] >= 0 && can_mirror(w, (uint32_t)w->same[c], c) ? w->same[c] : -1;
    return NULL;
}

pm_error *pm_pq_writer_write(pm_pq_writer *w, const pm_batch *b)
{
    if (w->failed)
        return pm_error_new(PM_EINVALID, "Parquet writer failed earlier; abort it");
    if (b->ncolumns != w->type->nfields)
        return pm_error_new(PM_EINVALID, "batch has %zu columns, the file has %zu", b->ncolumns,
                            w->type->nfields);
    int64_t n = b->num_rows;
    /* Reject bad input before anything is written... */
    for (size_t i = 0; i < b->ncolumns; i++) {
        PM_TRY(check_column(b->columns[i], w->type->fields[i].type, n, w->type->fields[i].name));
        PM_TRY(check_not_null(b->columns[i], &w->type->fields[i], n));
    }
    /* ... nulls inside nested NOT NULL parts are only found while encoding,
     * after other columns took rows: the file is then lost. */
    pm_error *e = set_mirrors(w, b);
    if (!e)
        e = write_rows(w, b, n);
    if (e)
        w->failed = true;
    return e;
}

/* ---- close and statistics ------------------------------------------------ */

void pm_pq_write_result_free(pm_pq_write_result *r)
{
    if (!r)
        return;
    free(r->stats);   /* one block: the array and the byte values after it */
    r->stats = NULL;
    r->ncolumns = 0;
}

static pm_error *fill_stats(pm_pq_writer *w, pm_pq_write_result *res)
{
    size_t n = w->type->nfields;
    /* One allocation: the stats array followed by the byte values. */
    size_t extra = 0;
    for (size_t i = 0; i < n; i++) {
        if (w->schema.top_nleaves[i] != 1)
            continue;
        const pq_colw *cw = &w->cols[w->schema.top_first_leaf[i]];
        if (cw->leaf->flat && cw->total.kind == PQS_BYTES && cw->total.has_minmax)
            extra += cw->total.min_bytes.len + cw->total.max_bytes.len;
    }
    uint8_t *mem;
    PM_TRY(pm_calloc(&mem, 1, sizeof(pm_pq_column_stats) * (n ? n : 1) + extra));
    res->stats = (pm_pq_column_stats *)(void *)mem;
    res->ncolumns = n;
    uint8_t *bytes = mem + sizeof(pm_pq_column_stats) * (n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        pm_pq_column_stats *s = &res->stats[i];
        if (w->schema.top_nleaves[i] != 1 || !w->cols[w->schema.top_first_leaf[i]].leaf->flat)
            continue;
        const pq_colw *cw = &w->cols[w->schema.top_first_leaf[i]];
        const pq_stats *t = &cw->total;
        s->has_stats = true;
        s->null_count = t->null_count;
        s->has_nan = t->has_nan;
        if (!t->has_minmax || t->kind == PQS_INT96)   /* Paimon: no min/max for INT96 */
            continue;
        s->has_min_max = true;
        bool dec = cw->leaf->type->id == PM_TYPE_DECIMAL;
        switch (t->kind) {
        case PQS_BOOL:
            s->min.b = t->min.b;
            s->max.b = t->max.b;
            break;
        case PQS_I32:
            if (dec) {
                s->min.dec = t->min.i32;
                s->max.dec = t->max.i32;
            } else {
                s->min.i = t->min.i32;
                s->max.i = t->max.i32;
            }
            break;
        case PQS_I64:
            if (dec) {
                s->min.dec = t->min.i64;
                s->max.dec = t->max.i64;
            } else {
                s->min.i = t->min.i64;
                s->max.i = t->max.i64;
            }
            break;
        case PQS_F32:
            s->min.f = t->min.f32 == 0.0f ? -0.0f : t->min.f32;
            s->max.f = t->max.f32 == 0.0f ? 0.0f : t->max.f32;
            break;
        case PQS_F64:
            s->min.d = t->min.f64 == 0.0 ? -0.0 : t->min.f64;
            s->max.d = t->max.f64 == 0.0 ? 0.0 : t->max.f64;
            break;
        case PQS_DEC128:
            s->min.dec = t->min.d128;
            s->max.dec = t->max.d128;
            break;
        case PQS_BYTES:
            if (t->min_bytes.len)
                memcpy(bytes, t->min_bytes.data, t->min_bytes.len);
            s->min.bytes.data = bytes;
            s->min.bytes.len = t->min_bytes.len;
            bytes += t->min_bytes.len;
            if (t->max_bytes.len)
                memcpy(bytes, t->max_bytes.data, t->max_bytes.len);
            s->max.bytes.data = bytes;
            s->max.bytes.len = t->max_bytes.len;
            bytes += t->max_bytes.len;
            break;
        case PQS_INT96:
            break;
        }
    }
    return NULL;
}

pm_error *pm_pq_writer_close(pm_pq_writer *w, pm_pq_write_result *res)
{
    if (res)
        memset(res, 0, sizeof *res);
    pm_error *e = NULL;
    pm_buf footer = PM_BUF_INIT;
    if (w->failed) {
        e = pm_error_new(PM_EINVALID, "Parquet writer failed earlier; the file is incomplete");
        goto done;
    }
    PM_TRY_GOTO(e, flush_row_group(w), done);
    /* Page indexes: all column indexes, then all offset indexes (parquet-java's order). */
    int64_t ci_base = (int64_t)pm_output_pos(w->out);
    if (w->column_indexes.len)
        PM_TRY_GOTO(e, pm_output_write(w->out, w->column_indexes.data, w->column_indexes.len), done);
    int64_t oi_base = (int64_t)pm_output_pos(w->out);
    if (w->offset_indexes.len)
        PM_TRY_GOTO(e, pm_output_write(w->out, w->offset_indexes.data, w->offset_indexes.len), done);
    for (size_t g = 0; g < w->nrgs; g++)
        for (uint32_t c = 0; c < w->rgs[g].num_columns; c++) {
            pq_column_chunk *cc = &w->rgs[g].columns[c];
            if (cc->has_column_index)
                cc->column_index_offset += ci_base;
            if (cc->has_offset_index)
                cc->offset_index_offset += oi_base;
        }
    pm_pq_file_meta *m = w->meta;
    m->version = 1;
    m->schema = w->schema.elems;
    m->num_schema = w->schema.nelems;
    m->num_rows = w->total_rows;
    if (w->nrgs) {
        m->row_groups = pm_arena_alloc(&m->arena, sizeof(pq_row_group) * w->nrgs, _Alignof(pq_row_group));
        if (!m->row_groups) {
            e = pm_oom();
            goto done;
        }
        memcpy(m->row_groups, w->rgs, sizeof(pq_row_group) * w->nrgs);
    }
    m->num_row_groups = (uint32_t)w->nrgs;
    m->created_by = w->opt.created_by;
    m->has_column_orders = true;
    m->num_column_orders = w->ncols;
    PM_TRY_GOTO(e, pm_pq_file_meta_serialize(m, &footer), done);
    if (footer.len > UINT32_MAX) {
        e = pm_error_new(PM_EUNSUPPORTED, "footer larger than 4 GiB");
        goto done;
    }
    PM_TRY_GOTO(e, pm_buf_append_u32le(&footer, (uint32_t)footer.len), done);
    PM_TRY_GOTO(e, pm_buf_append(&footer, "PAR1", 4), done);
    PM_TRY_GOTO(e, pm_output_write(w->out, footer.data, footer.len), done);
    if (res) {
        res->file_size = pm_output_pos(w->out) - w->start_pos;
        res->row_count = w->total_rows;
        res->pages_copied = pm_pq_writer_pages_copied(w);
        res->pages_lazy = pm_pq_writer_pages_lazy(w);
        PM_TRY_GOTO(e, fill_stats(w, res), done);
    }
done:
    pm_buf_free(&footer);
    writer_free(w);
    return e ? pm_error_wrap(e, 0, "write Parquet file") : NULL;
}
