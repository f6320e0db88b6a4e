/*
 * compact/compact_passthrough.c — row-group passthrough (contract and
 * layout in compact_passthrough.h).
 *
 * Per input file (pm_pt_probe, then pm_pt_copy): read the footer (last 8 bytes: footer length + "PAR1",
 * then the thrift FileMetaData) → eligibility (schema elements equal to
 * pq_schema_build of the task's row type, chunk paths and physical types,
 * codec, row group sizes and row counts, chunk byte ranges inside the file)
 * → for each row group: roll the output if the row limit would be passed,
 * copy every column chunk's byte range in 1 MiB pieces, record the chunk
 * metadata with shifted page offsets in the output footer's arena, merge
 * the chunks' statistics per top-level field; after the row group, close the
 * output once it reached the target size.  Output files (names, rolling,
 * DataFileMeta, finished list, abort) are the rolling file writer's
 * (table/rolling_file_writer.h) with a raw body: "PAR1" when a file opens,
 * the footer and the merged statistics when it closes.  With file indexes,
 * the indexed columns alone are decoded from the input (a second reader on
 * it) and fed to each output's index as its row groups are copied.
 * Page level (compact_passthrough.h, compact_page_passthrough.h): the
 * pending output row group lives in a pm_pg_group; copy_pages / write_rows
 * feed it, flush_pages writes it (statistics then merged from the written
 * chunks), raw_finish writes the page indexes before the footer.
 */
#include "compact/compact_passthrough.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "base/util.h"
#include "codec/codec.h"
#include "compact/compact_internal.h"
#include "compact/compact_page_passthrough.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "index/file_index.h"
#include "format/parquet/pq_schema_write.h"
#include "meta/paths.h"
#include "table/rolling_file_writer.h"
#include "table/write_stats.h"

#define COPY_CHUNK (1 << 20)

/* Merged statistics of one top-level field over the copied chunks. */
typedef struct stat_acc {
    bool flat;          /* a primitive top-level field (nested ones have no stats) */
    bool nc_known;
    int64_t null_count;
    bool mm_known;      /* every chunk with values had min/max */
    bool has_mm;
    pm_pq_value min, max;
    pm_buf minb, maxb;  /* byte values */
} stat_acc;

struct pm_pt_writer {
    pm_fileio *fio;
    pm_compact_writer_options o;
    char *dir, *format, *compression;
    int64_t min_rg;
    pm_codec_id codec;
    pm_arena schema_arena;
    pq_write_schema ws;
    pm_rolling_file_writer *rw; /* output files; its raw body is below */
    /* the open output's footer */
    pm_pq_file_meta *meta;   /* footer under construction */
    pq_row_group *rgs;
    size_t nrgs, caprgs;
    int64_t rows;            /* rows of the open output */
    stat_acc *acc;           /* one per top-level field */
    uint8_t *buf;
    /* file indexes: the indexed columns, decoded from each input */
    const char **index_cols; /* names, distinct */
    size_t *index_pos;       /* their positions in the row type */
    size_t nindex;
    pm_column **index_view;  /* one slot per row type field (indexed ones set) */
    /* page-level passthrough (NULL pg = off) */
    pm_pg_group *pg;         /* the pending output row group */
    pm_pq_writer_options pq; /* re-encoded chunks: the table's Parquet settings */
    pm_codec_ctx *cctx;
    bool *force_decode;      /* per top-level field: file-indexed */
    int64_t rg_limit;        /* compressed bytes of one output row group */
    bool pend_decoded;       /* the pending group holds decoded rows (pm_pt_write) */
    double reencode_ratio;
    pm_buf ci, oi;           /* page indexes of the open output */
};

static pm_error *raw_open(void *ctx, pm_output *out);
static pm_error *raw_finish(void *ctx, pm_output *out, pm_pq_write_result *stats);
static void raw_discard(void *ctx);

static void acc_reset(pm_pt_writer *w)
{
    for (uint32_t i = 0; i < w->ws.ntop; i++) {
        stat_acc *a = &w->acc[i];
        pm_buf_free(&a->minb);
        pm_buf_free(&a->maxb);
        bool flat = w->ws.top_nleaves[i] == 1 && w->ws.leaves[w->ws.top_first_leaf[i]].flat;
        memset(a, 0, sizeof *a);
        a->flat = flat;
        a->nc_known = true;
        a->mm_known = true;
    }
}

/* The distinct indexed columns of the table's file indexes. */
static pm_error *index_columns(pm_pt_writer *w)
{
    pm_fi_options fo;
    PM_TRY(pm_fi_options_parse(w->o.table_options, &fo));
    const pm_type *rt = w->o.row_type;
    pm_error *e = pm_calloc(&w->index_cols, fo.nspecs ? fo.nspecs : 1, sizeof *w->index_cols);
    if (!e)
        e = pm_calloc(&w->index_pos, fo.nspecs ? fo.nspecs : 1, sizeof *w->index_pos);
    if (!e)
        e = pm_calloc(&w->index_view, rt->nfields ? rt->nfields : 1, sizeof *w->index_view);
    for (size_t i = 0; !e && i < fo.nspecs; i++) {
        ptrdiff_t k = pm_type_field_index(rt, fo.specs[i].column);
        if (k < 0) {
            e = pm_error_new(PM_EINVALID, "file index column %s is not a column of the table", fo.specs[i].column);
            break;
        }
        bool seen = false;
        for (size_t j = 0; j < w->nindex && !seen; j++)
            seen = w->index_pos[j] == (size_t)k;
        if (!seen) {
            w->index_cols[w->nindex] = rt->fields[k].name;
            w->index_pos[w->nindex++] = (size_t)k;
        }
    }
    pm_fi_options_clear(&fo);
    return e;
}

static const char *opt_lookup(void *ctx, const char *key) { return pm_options_get(ctx, key); }

static pm_error *index_batch(void *ctx, const pm_batch *b, const uint32_t *tops, size_t n);

/* Page-level passthrough state: the table's Parquet settings for the
 * re-encoded chunks (the task's codec), the row-group limit, the group. */
static pm_error *pages_init(pm_pt_writer *w)
{
    pm_pq_writer_options_default(&w->pq);
    PM_TRY(pm_pq_writer_options_from_table(&w->pq, opt_lookup, (void *)w->o.table_options));
    w->pq.codec = w->codec;
    w->pq.footer_kv = NULL;
    w->pq.footer_kv_count = 0;
    w->pq.buffers = w->o.buffers; /* copied chunks and re-encoded columns reuse the table's spare blocks */
    w->rg_limit = w->pq.row_group_size;
    if (w->o.row_group_limit > 0 && w->rg_limit > w->o.row_group_limit)
        w->rg_limit = w->o.row_group_limit;
    PM_TRY(pm_codec_ctx_new(&w->cctx));
    PM_TRY(pm_calloc(&w->force_decode, w->ws.ntop ? w->ws.ntop : 1, sizeof *w->force_decode));
    for (size_t i = 0; i < w->nindex; i++)
        w->force_decode[w->index_pos[i]] = true;
    pm_pg_options go = {&w->ws, &w->pq, w->cctx, w->force_decode, w->nindex ? index_batch : NULL, w, w->reencode_ratio};
    return pm_pg_group_new(&w->pg, &go);
}

pm_error *pm_pt_writer_new(pm_pt_writer **out, pm_fileio *fio, const pm_compact_writer_options *o,
                           int64_t min_row_group_size, bool pages, double reencode_ratio)
{
    *out = NULL;
    pm_pt_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    w->fio = fio;
    w->o = *o;
    w->min_rg = min_row_group_size;
    w->reencode_ratio = reencode_ratio;
    pm_arena_init(&w->schema_arena, 0);
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&w->dir, o->dir), fail);
    PM_TRY_GOTO(e, pm_strdup(&w->format, o->format), fail);
    PM_TRY_GOTO(e, pm_strdup(&w->compression, o->compression), fail);
    w->o.dir = w->dir;
    w->o.format = w->format;
    w->o.compression = w->compression;
    PM_TRY_GOTO(e, pm_codec_from_name(w->compression, &w->codec), fail);
    PM_TRY_GOTO(e, pq_schema_build(&w->schema_arena, o->row_type, &w->ws), fail);
    PM_TRY_GOTO(e, pm_calloc(&w->acc, w->ws.ntop ? w->ws.ntop : 1, sizeof *w->acc), fail);
    PM_TRY_GOTO(e, pm_calloc(&w->buf, COPY_CHUNK, 1), fail);
    pm_rolling_raw_body raw = {w, raw_open, raw_finish, raw_discard};
    pm_rolling_file_writer_options ro;
    pm_compact_writer_rolling_options(&w->o, fio, &ro);
    ro.raw = &raw;
    ro.what = "passthrough output";
    ro.fault_open = "writer-open"; /* the fault points of every compaction output (compact_writer.h) */
    ro.fault_close = "writer-close";
    PM_TRY_GOTO(e, pm_rolling_file_writer_new(&w->rw, &ro), fail);
    if (pm_rolling_file_writer_has_index(w->rw))
        PM_TRY_GOTO(e, index_columns(w), fail);
    if (pages && pm_pg_schema_ok(&w->ws))
        PM_TRY_GOTO(e, pages_init(w), fail);
    *out = w;
    return NULL;
fail:
    pm_pt_writer_free(w);
    return pm_error_wrap(e, 0, "row-group passthrough writer");
}

/* ------------------------------------------------------------------ */
/* eligibility                                                         */

static bool lt_equal(const pq_logical_type *a, const pq_logical_type *b)
{
    return a->kind == b->kind && a->decimal_scale == b->decimal_scale &&
           a->decimal_precision == b->decimal_precision && a->is_adjusted_to_utc == b->is_adjusted_to_utc &&
           a->unit == b->unit && a->int_bit_width == b->int_bit_width && a->int_is_signed == b->int_is_signed;
}

static bool elem_equal(const pq_schema_element *a, const pq_schema_element *b, bool root)
{
#define SAME(f) (a->has_##f == b->has_##f && (!a->has_##f || a->f == b->f))
    if (!SAME(type) || !SAME(type_length) || !SAME(num_children) || !SAME(converted_type) || !SAME(scale) ||
        !SAME(precision))
        return false;
    /* field ids are metadata only (pyarrow-written files have none); the
     * output footer carries ours */
    if (a->has_field_id && b->has_field_id && a->field_id != b->field_id)
        return false;
    if (!root && !SAME(repetition))
        return false;
#undef SAME
    if (!a->name || !b->name || (!root && strcmp(a->name, b->name)))
        return false;
    if (a->has_logical_type != b->has_logical_type)
        return false;
    return !a->has_logical_type || lt_equal(&a->logical_type, &b->logical_type);
}

static int64_t chunk_start(const pq_column_meta *m)
{
    int64_t s = m->data_page_offset;
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 && m->dictionary_page_offset < s)
        s = m->dictionary_page_offset;
    if (m->has_index_page_offset && m->index_page_offset > 0 && m->index_page_offset < s)
        s = m->index_page_offset;
    return s;
}

/* Whether every row group of the file can be copied as is. */
static bool eligible(const pm_pt_writer *w, const pm_pq_file_meta *m, uint64_t data_end, int64_t min_rg)
{
    if (m->num_schema != w->ws.nelems || !m->num_row_groups)
        return false;
    for (uint32_t i = 0; i < m->num_schema; i++)
        if (!elem_equal(&m->schema[i], &w->ws.elems[i], i == 0))
            return false;
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        if (rg->num_columns != w->ws.nleaves || rg->num_rows <= 0 || rg->num_rows > w->o.target_rows)
            return false;
        int64_t size = 0;
        for (uint32_t c = 0; c < rg->num_columns; c++) {
            const pq_column_chunk *cc = &rg->columns[c];
            const pq_leaf *L = &w->ws.leaves[c];
            if (!cc->has_meta_data || cc->file_path)
                return false;
            const pq_column_meta *cm = &cc->meta_data;
            if (cm->type != L->phys || cm->codec != (int32_t)w->codec || cm->path_len != L->path_len)
                return false;
            for (uint32_t k = 0; k < L->path_len; k++)
                if (!cm->path_in_schema[k] || strcmp(cm->path_in_schema[k], L->path[k]))
                    return false;
            int64_t s = chunk_start(cm);
            if (s < 4 || cm->total_compressed_size <= 0 || (uint64_t)s > data_end ||
                (uint64_t)cm->total_compressed_size > data_end - (uint64_t)s)
                return false;
            size += cm->total_compressed_size;
        }
        if (size < min_rg)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* statistics                                                          */

static bool is_decimal(const pq_leaf *L) { return L->type && L->type->id == PM_TYPE_DECIMAL; }

/* PLAIN statistics bytes → typed value; false when they cannot be used. */
static bool decode(const pq_leaf *L, const uint8_t *p, uint32_t n, pm_pq_value *v)
{
    switch (L->stats) {
    case PQS_BOOL:
        if (n < 1)
            return false;
        v->b = p[0] != 0;
        return true;
    case PQS_I32: {
        if (n != 4)
            return false;
        int32_t x = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        if (is_decimal(L))
            v->dec = x;
        else
            v->i = x;
        return true;
    }
    case PQS_I64: {
        if (n != 8)
            return false;
        uint64_t x = 0;
        for (int k = 7; k >= 0; k--)
            x = x << 8 | p[k];
        if (is_decimal(L))
            v->dec = (int64_t)x;
        else
            v->i = (int64_t)x;
        return true;
    }
    case PQS_F32:
        if (n != 4)
            return false;
        memcpy(&v->f, p, 4);
        return true;
    case PQS_F64:
        if (n != 8)
            return false;
        memcpy(&v->d, p, 8);
        return true;
    case PQS_DEC128: {
        if (n < 1 || n > 16)
            return false;
        __int128 x = (p[0] & 0x80) ? -1 : 0;
        for (uint32_t k = 0; k < n; k++)
            x = (__int128)((unsigned __int128)x << 8) | p[k];
        v->dec = x;
        return true;
    }
    case PQS_BYTES:
        v->bytes.data = p;
        v->bytes.len = n;
        return true;
    default:
        return false; /* INT96 */
    }
}

static int cmp_value(const pq_leaf *L, const pm_pq_value *a, const pm_pq_value *b)
{
    switch (L->stats) {
    case PQS_BOOL:
        return (int)a->b - (int)b->b;
    case PQS_I32:
    case PQS_I64:
        if (is_decimal(L))
            return (a->dec > b->dec) - (a->dec < b->dec);
        return (a->i > b->i) - (a->i < b->i);
    case PQS_F32:
        return (a->f > b->f) - (a->f < b->f);
    case PQS_F64:
        return (a->d > b->d) - (a->d < b->d);
    case PQS_DEC128:
        return (a->dec > b->dec) - (a->dec < b->dec);
    case PQS_BYTES: {
        size_t n = a->bytes.len < b->bytes.len ? a->bytes.len : b->bytes.len;
        int c = n ? memcmp(a->bytes.data, b->bytes.data, n) : 0;
        if (c)
            return c;
        return (a->bytes.len > b->bytes.len) - (a->bytes.len < b->bytes.len);
    }
    default:
        return 0;
    }
}

static pm_error *keep(const pq_leaf *L, pm_pq_value *dst, pm_buf *db, const pm_pq_value *src)
{
    if (L->stats != PQS_BYTES) {
        *dst = *src;
        return NULL;
    }
    pm_buf_clear(db);
    PM_TRY(pm_buf_append(db, src->bytes.data, src->bytes.len));
    dst->bytes.data = db->data;
    dst->bytes.len = src->bytes.len;
    return NULL;
}

static pm_error *merge_chunk(pm_pt_writer *w, uint32_t top, const pq_column_chunk *cc)
{
    stat_acc *a = &w->acc[top];
    if (!a->flat)
        return NULL;
    const pq_leaf *L = &w->ws.leaves[w->ws.top_first_leaf[top]];
    const pq_column_meta *cm = &cc->meta_data;
    const pq_statistics *s = &cm->statistics;
    if (!cm->has_statistics || !s->has_null_count) {
        a->nc_known = false;
        return NULL;
    }
    a->null_count += s->null_count;
    if (cm->num_values - s->null_count <= 0)
        return NULL; /* only nulls: no min/max to merge */
    const uint8_t *mn = NULL, *mx = NULL;
    uint32_t nmn = 0, nmx = 0;
    if (s->has_min_value && s->has_max_value) {
        mn = s->min_value, nmn = s->min_value_len, mx = s->max_value, nmx = s->max_value_len;
    } else if (s->has_min && s->has_max && L->legacy_stats) {
        mn = s->min, nmn = s->min_len, mx = s->max, nmx = s->max_len;
    }
    pm_pq_value lo, hi;
    memset(&lo, 0, sizeof lo);
    memset(&hi, 0, sizeof hi);
    if (!mn || !decode(L, mn, nmn, &lo) || !decode(L, mx, nmx, &hi)) {
        a->mm_known = false;
        return NULL;
    }
    if (!a->has_mm) {
        PM_TRY(keep(L, &a->min, &a->minb, &lo));
        PM_TRY(keep(L, &a->max, &a->maxb, &hi));
        a->has_mm = true;
        return NULL;
    }
    if (cmp_value(L, &lo, &a->min) < 0)
        PM_TRY(keep(L, &a->min, &a->minb, &lo));
    if (cmp_value(L, &hi, &a->max) > 0)
        PM_TRY(keep(L, &a->max, &a->maxb, &hi));
    return NULL;
}

/* The merged statistics of the output's fields, in the Parquet writer's
 * form (the rolling writer converts them per stats mode). */
static pm_error *file_stats(pm_pt_writer *w, pm_pq_write_result *res)
{
    size_t nf = w->o.row_type->nfields;
    PM_TRY(pm_calloc(&res->stats, nf ? nf : 1, sizeof *res->stats));
    res->ncolumns = nf;
    for (size_t i = 0; i < nf; i++) {
        stat_acc *a = &w->acc[i];
        pm_pq_column_stats *s = &res->stats[i];
        s->has_stats = a->flat && a->nc_known;
        s->null_count = a->null_count;
        s->has_min_max = a->mm_known && a->has_mm;
        s->min = a->min;
        s->max = a->max;
        /* a zero bound as the Parquet writer gives it: min -0.0, max +0.0
         * (inputs differ in which zero they store) */
        const pq_leaf *L = a->flat ? &w->ws.leaves[w->ws.top_first_leaf[i]] : NULL;
        if (L && L->stats == PQS_F64) {
            if (s->min.d == 0.0)
                s->min.d = -0.0;
            if (s->max.d == 0.0)
                s->max.d = 0.0;
        } else if (L && L->stats == PQS_F32) {
            if (s->min.f == 0.0f)
                s->min.f = -0.0f;
            if (s->max.f == 0.0f)
                s->max.f = 0.0f;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* output files                                                        */

static void raw_discard(void *ctx)
{
    pm_pt_writer *w = ctx;
    pm_pq_file_meta_free(w->meta);
    w->meta = NULL;
    free(w->rgs);
    w->rgs = NULL;
    w->nrgs = w->caprgs = 0;
    w->rows = 0;
    pm_buf_clear(&w->ci);
    pm_buf_clear(&w->oi);
    if (w->pg)
        pm_pg_group_reset(w->pg);
}

static pm_error *raw_open(void *ctx, pm_output *out)
{
    pm_pt_writer *w = ctx;
    raw_discard(w);
    PM_TRY(pm_pq_file_meta_new(&w->meta));
    PM_TRY(pm_output_write(out, "PAR1", 4));
    acc_reset(w);
    return NULL;
}

static pm_error *raw_finish(void *ctx, pm_output *out, pm_pq_write_result *stats)
{
    pm_pt_writer *w = ctx;
    pm_buf footer = PM_BUF_INIT;
    pm_pq_file_meta *fm = w->meta;
    /* page indexes of the page-level row groups: all column indexes, then
     * all offset indexes (parquet-java's order), offsets made absolute */
    int64_t ci_base = (int64_t)pm_output_pos(out);
    if (w->ci.len)
        PM_TRY(pm_output_write(out, w->ci.data, w->ci.len));
    int64_t oi_base = (int64_t)pm_output_pos(out);
    if (w->oi.len)
        PM_TRY(pm_output_write(out, w->oi.data, w->oi.len));
    for (size_t g = 0; g < w->nrgs; g++)
        for (uint32_t c = 0; c < w->rgs[g].num_columns; c++) {
            pq_column_chunk *cc = &w->rgs[g].columns[c];
            if (cc->has_column_index)
                cc->column_index_offset += ci_base;
            if (cc->has_offset_index)
                cc->offset_index_offset += oi_base;
        }
    fm->version = 1;
    fm->schema = w->ws.elems;
    fm->num_schema = w->ws.nelems;
    fm->num_rows = w->rows;
    fm->row_groups = w->rgs;
    fm->num_row_groups = (uint32_t)w->nrgs;
    fm->created_by = w->pg ? "paimon-c compaction (passthrough)" : "paimon-c compaction (row-group passthrough)";
    fm->has_column_orders = true;
    fm->num_column_orders = w->ws.nleaves;
    pm_error *e = pm_pq_file_meta_serialize(fm, &footer);
    if (!e)
        e = pm_buf_append_u32le(&footer, (uint32_t)footer.len);
    if (!e)
        e = pm_buf_append(&footer, "PAR1", 4);
    if (!e)
        e = pm_output_write(out, footer.data, footer.len);
    if (!e)
        e = file_stats(w, stats);
    pm_buf_free(&footer);
    return e;
}

/* Copy one row group of `in` (described by rg) to the open output. */
/* Room for one more row group in the open output's footer. */
static pm_error *rg_slot(pm_pt_writer *w)
{
    if (w->nrgs == w->caprgs) {
        size_t cap = w->caprgs ? w->caprgs * 2 : 16;
        PM_TRY(pm_realloc_array(&w->rgs, cap, sizeof *w->rgs));
        w->caprgs = cap;
    }
    if (w->nrgs >= INT16_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "more than %d row groups in one output", INT16_MAX);
    return NULL;
}

static pm_error *copy_row_group(pm_pt_writer *w, pm_output *out, pm_input *in, const pq_row_group *rg)
{
    PM_TRY(rg_slot(w));
    pm_arena *ar = &w->meta->arena;
    pq_row_group *dst = &w->rgs[w->nrgs];
    memset(dst, 0, sizeof *dst);
    dst->columns = pm_arena_calloc(ar, sizeof(pq_column_chunk) * rg->num_columns, _Alignof(pq_column_chunk));
    if (!dst->columns)
        return pm_oom();
    int64_t rg_start = (int64_t)pm_output_pos(out);
    for (uint32_t c = 0; c < rg->num_columns; c++) {
        const pq_column_chunk *sc = &rg->columns[c];
        const pq_column_meta *sm = &sc->meta_data;
        int64_t start = chunk_start(sm);
        int64_t len = sm->total_compressed_size;
        int64_t new_start = (int64_t)pm_output_pos(out);
        for (int64_t off = 0; off < len;) {
            size_t n = (size_t)(len - off < COPY_CHUNK ? len - off : COPY_CHUNK);
            PM_TRY(pm_input_read_at(in, (uint64_t)(start + off), w->buf, n));
            PM_TRY(pm_output_write(out, w->buf, n));
            off += (int64_t)n;
        }
        int64_t delta = new_start - start;
        pq_column_chunk *dc = &dst->columns[c];
        *dc = *sc; /* scalars; pointers fixed below */
        dc->file_path = NULL;
        dc->file_offset = sc->file_offset ? sc->file_offset + delta : 0;
        dc->has_offset_index = dc->has_column_index = false;
        pq_column_meta *dm = &dc->meta_data;
        dm->data_page_offset += delta;
        if (dm->has_dictionary_page_offset && dm->dictionary_page_offset > 0)
            dm->dictionary_page_offset += delta;
        if (dm->has_index_page_offset && dm->index_page_offset > 0)
            dm->index_page_offset += delta;
        dm->has_bloom_filter_offset = dm->has_bloom_filter_length = false;
        dm->key_value_metadata = NULL;
        dm->num_key_value_metadata = 0;
        /* deep copies into the output footer's arena */
        dm->encodings = pm_arena_alloc(ar, sizeof(int32_t) * (sm->num_encodings ? sm->num_encodings : 1),
                                       _Alignof(int32_t));
        dm->path_in_schema = pm_arena_alloc(ar, sizeof(char *) * (sm->path_len ? sm->path_len : 1),
                                            _Alignof(char *));
        if (!dm->encodings || !dm->path_in_schema)
            return pm_oom();
        memcpy(dm->encodings, sm->encodings, sizeof(int32_t) * sm->num_encodings);
        for (uint32_t k = 0; k < sm->path_len; k++)
            if (!(dm->path_in_schema[k] = pm_arena_strdup(ar, sm->path_in_schema[k])))
                return pm_oom();
        if (sm->num_encoding_stats) {
            dm->encoding_stats = pm_arena_alloc(ar, sizeof(pq_page_encoding_stats) * sm->num_encoding_stats,
                                                _Alignof(pq_page_encoding_stats));
            if (!dm->encoding_stats)
                return pm_oom();
            memcpy(dm->encoding_stats, sm->encoding_stats, sizeof(pq_page_encoding_stats) * sm->num_encoding_stats);
        }
        if (sm->has_statistics) {
            pq_statistics *st = &dm->statistics;
#define DUPB(p, n)                                                         \
    do {                                                                   \
        if (st->p) {                                                       \
            uint8_t *q = pm_arena_alloc(ar, st->n ? st->n : 1, 1);          \
            if (!q)                                                        \
                return pm_oom();                                           \
            memcpy(q, st->p, st->n);                                       \
            st->p = q;                                                     \
        }                                                                  \
    } while (0)
            DUPB(max, max_len);
            DUPB(min, min_len);
            DUPB(max_value, max_value_len);
            DUPB(min_value, min_value_len);
#undef DUPB
        }
        if (sm->has_size_statistics) {
            pq_size_statistics *ss = &dm->size_statistics;
            const pq_size_statistics *s2 = &sm->size_statistics;
            if (s2->num_repetition_level_histogram) {
                ss->repetition_level_histogram = pm_arena_alloc(
                    ar, sizeof(int64_t) * s2->num_repetition_level_histogram, _Alignof(int64_t));
                if (!ss->repetition_level_histogram)
                    return pm_oom();
                memcpy(ss->repetition_level_histogram, s2->repetition_level_histogram,
                       sizeof(int64_t) * s2->num_repetition_level_histogram);
            }
            if (s2->num_definition_level_histogram) {
                ss->definition_level_histogram = pm_arena_alloc(
                    ar, sizeof(int64_t) * s2->num_definition_level_histogram, _Alignof(int64_t));
                if (!ss->definition_level_histogram)
                    return pm_oom();
                memcpy(ss->definition_level_histogram, s2->definition_level_histogram,
                       sizeof(int64_t) * s2->num_definition_level_histogram);
            }
        }
    }
    dst->num_columns = rg->num_columns;
    dst->total_byte_size = rg->total_byte_size;
    dst->num_rows = rg->num_rows;
    dst->has_file_offset = true;
    dst->file_offset = rg_start;
    dst->has_total_compressed_size = true;
    dst->total_compressed_size = (int64_t)pm_output_pos(out) - rg_start;
    dst->has_ordinal = true;
    dst->ordinal = (int16_t)w->nrgs;
    w->nrgs++;
    for (uint32_t t = 0; t < w->ws.ntop; t++)
        if (w->acc[t].flat)
            PM_TRY(merge_chunk(w, t, &rg->columns[w->ws.top_first_leaf[t]]));
    w->rows += rg->num_rows;
    return NULL;
}

static pm_error *read_footer(pm_input *in, pm_pq_file_meta **out, uint64_t *data_end)
{
    *out = NULL;
    uint64_t size = pm_input_size(in);
    if (size < 12)
        return NULL;
    uint8_t tail[8], head[4];
    PM_TRY(pm_input_read_at(in, 0, head, 4));
    PM_TRY(pm_input_read_at(in, size - 8, tail, 8));
    if (memcmp(head, "PAR1", 4) || memcmp(tail + 4, "PAR1", 4))
        return NULL; /* not a plain Parquet file: rewrite instead */
    uint32_t flen = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24;
    if ((uint64_t)flen + 12 > size)
        return pm_error_new(PM_ECORRUPT, "%s: footer length %u beyond the file", pm_input_path(in), flen);
    uint8_t *fb;
    PM_TRY(pm_calloc(&fb, flen ? flen : 1, 1));
    pm_error *e = pm_input_read_at(in, size - 8 - flen, fb, flen);
    if (!e)
        e = pm_pq_file_meta_parse(out, fb, flen);
    free(fb);
    *data_end = size - 8 - flen;
    return e ? pm_error_wrap(e, 0, "footer of %s", pm_input_path(in)) : NULL;
}

struct pm_pt_input {
    pm_input *in;
    pm_pq_file_meta *meta;
    char *name;
    bool pages;              /* page level (else whole row groups) */
};

void pm_pt_input_free(pm_pt_input *in)
{
    if (!in)
        return;
    pm_pq_file_meta_free(in->meta);
    pm_input_close(in->in);
    free(in->name);
    free(in);
}

pm_error *pm_pt_probe(pm_pt_writer *w, const char *path, const pm_data_file_meta *f, pm_pt_input **out)
{
    *out = NULL;
    if (f->schema_id != w->o.schema_id || f->has_write_cols)
        return NULL;
    pm_pt_input *pi;
    PM_TRY(pm_calloc(&pi, 1, sizeof *pi));
    uint64_t data_end = 0;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&pi->name, f->file_name), done);
    /* small inputs are read whole (one read, no stat: the manifest's size);
     * footer, page index and chunks then come from memory */
    PM_TRY_GOTO(e, pm_input_open_whole(w->fio, path, (uint64_t)f->file_size, PM_INPUT_WHOLE_MAX, &pi->in), done);
    PM_TRY_GOTO(e, read_footer(pi->in, &pi->meta, &data_end), done);
    if (!pi->meta)
        goto done;
    if (!eligible(w, pi->meta, data_end, w->min_rg)) {
        if (!w->pg || !eligible(w, pi->meta, data_end, 0))
            goto done;
        pi->pages = true;
    }
    if (pi->meta->num_rows != f->row_count) {
        e = pm_error_new(PM_ECORRUPT, "%s: the footer has %lld rows, the manifest %lld", path,
                         (long long)pi->meta->num_rows, (long long)f->row_count);
        goto done;
    }
    *out = pi;
    return NULL;
done:
    pm_pt_input_free(pi);
    return e ? pm_error_wrap(e, 0, "passthrough check of %s", f->file_name) : NULL;
}

/* The indexed columns of the input's next `rows` rows, to the open output's
 * index (the reader decodes only those columns; `b`/`pos` carry the
 * current batch across row groups). */
static pm_error *feed_index(pm_pt_writer *w, pm_pq_reader *r, pm_batch **b, int64_t *pos, int64_t rows)
{
    while (rows > 0) {
        if (!*b || *pos == (*b)->num_rows) {
            PM_TRY(pm_pq_reader_next_batch(r, b));
            *pos = 0;
            if (!*b)
                return pm_error_new(PM_ECORRUPT, "the file has fewer rows than its row groups say");
        }
        int64_t n = (*b)->num_rows - *pos < rows ? (*b)->num_rows - *pos : rows;
        for (size_t i = 0; i < w->nindex; i++)
            w->index_view[w->index_pos[i]] = (*b)->columns[i];
        PM_TRY(pm_rolling_file_writer_raw_index(w->rw, w->index_view, *pos, *pos + n));
        *pos += n;
        rows -= n;
    }
    return NULL;
}

/* The file-indexed columns of a decoded batch, to the open output's index. */
static pm_error *index_batch(void *ctx, const pm_batch *b, const uint32_t *tops, size_t n)
{
    pm_pt_writer *w = ctx;
    for (size_t i = 0; i < n; i++)
        if (w->force_decode[tops[i]])
            w->index_view[tops[i]] = b->columns[i];
    return pm_rolling_file_writer_raw_index(w->rw, w->index_view, 0, b->num_rows);
}

/* Write the pending page-level row group to the open output (which may
 * then close: target size or rows reached). */
static pm_error *flush_pages(pm_pt_writer *w)
{
    if (!w->pg || !pm_pg_group_rows(w->pg))
        return NULL;
    int64_t rows = pm_pg_group_rows(w->pg);
    pm_output *out = NULL;
    PM_TRY(rg_slot(w));
    PM_TRY(pm_rolling_file_writer_raw_begin(w->rw, 0, &out));
    pq_row_group *dst = &w->rgs[w->nrgs];
    PM_TRY(pm_pg_group_flush(w->pg, out, &w->meta->arena, dst, &w->ci, &w->oi));
    dst->has_ordinal = true;
    dst->ordinal = (int16_t)w->nrgs;
    w->nrgs++;
    w->rows += rows;
    w->pend_decoded = false;
    /* the file's statistics from the written chunks' (copied chunks: the
     * inputs' merged; re-encoded ones: their own) */
    for (uint32_t t = 0; t < w->ws.ntop; t++)
        if (w->acc[t].flat)
            PM_TRY(merge_chunk(w, t, &dst->columns[w->ws.top_first_leaf[t]]));
    return pm_rolling_file_writer_raw_end(w->rw, rows);
}

/* Page level: each row group joins the pending output row group, which is
 * written first when the row group does not fit it (a dictionary chunk
 * where it copies pages), when the output would pass its row limit, or
 * when the group would pass the row-group size; after each row group the
 * group is written once the output reaches its target size. */
static pm_error *copy_pages(pm_pt_writer *w, pm_pt_input *pi)
{
    const pm_pq_file_meta *m = pi->meta;
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        int64_t pend = pm_pg_group_rows(w->pg);
        uint64_t size = 0;
        for (uint32_t c = 0; c < rg->num_columns; c++)
            size += (uint64_t)rg->columns[c].meta_data.total_compressed_size;
        if (pend && (w->pend_decoded || !pm_pg_group_fits(w->pg, m, g) ||
                     w->rows + pend + rg->num_rows > w->o.target_rows ||
                     pm_pg_group_bytes(w->pg) + size > (uint64_t)w->rg_limit))
            PM_TRY(flush_pages(w));
        pm_output *out = NULL;
        PM_TRY(pm_rolling_file_writer_raw_begin(w->rw, pm_pg_group_rows(w->pg) + rg->num_rows, &out));
        PM_TRY(pm_pg_group_add(w->pg, pi->in, m, g));
        if ((int64_t)(pm_output_pos(out) + pm_pg_group_bytes(w->pg)) >= w->o.target_size)
            PM_TRY(flush_pages(w));
    }
    return NULL;
}

bool pm_pt_writer_takes_rows(const pm_pt_writer *w) { return w->pg != NULL; }

pm_error *pm_pt_sample(pm_pt_writer *w, const char *path, const pm_data_file_meta *f, bool *done)
{
    *done = !w->pg;
    if (*done)
        return NULL;
    pm_pt_input *pi = NULL;
    PM_TRY(pm_pt_probe(w, path, f, &pi));
    pm_error *e = NULL;
    if (pi && pi->pages)
        e = pm_pg_sample(w->pg, pi->in, pi->meta, done);
    pm_pt_input_free(pi);
    return e ? pm_error_wrap(e, 0, "page passthrough sample of %s", f->file_name) : NULL;
}

pm_error *pm_pt_sample_finish(pm_pt_writer *w) { return w->pg ? pm_pg_sample_decide(w->pg) : NULL; }

pm_error *pm_pt_decision_key(const pm_pt_writer *w, pm_buf *key) { return pm_pg_decision_key(w->pg, key); }
pm_error *pm_pt_decision_get(const pm_pt_writer *w, pm_buf *out, bool *sampled)
{
    return pm_pg_decision_get(w->pg, out, sampled);
}
pm_error *pm_pt_decision_set(pm_pt_writer *w, const pm_buf *d) { return pm_pg_decision_set(w->pg, d->data, d->len); }

static pm_error *write_rows(pm_pt_writer *w, const pm_batch *b)
{
    int64_t n = b->num_rows;
    if (pm_pg_group_rows(w->pg) && !w->pend_decoded)
        PM_TRY(flush_pages(w)); /* decoded rows make row groups of their own */
    for (int64_t pos = 0; pos < n;) {
        int64_t pend = pm_pg_group_rows(w->pg);
        int64_t room = w->o.target_rows - w->rows - pend;
        if (room <= 0) {
            if (!pend)
                return pm_error_new(PM_EINTERNAL, "output full without pending rows");
            PM_TRY(flush_pages(w)); /* closes the file at target-file-row-num */
            continue;
        }
        int64_t k = n - pos < room ? n - pos : room;
        pm_output *out = NULL;
        PM_TRY(pm_rolling_file_writer_raw_begin(w->rw, pend + k, &out));
        if (w->nindex)
            PM_TRY(pm_rolling_file_writer_raw_index(w->rw, b->columns, pos, pos + k));
        PM_TRY(pm_pg_group_add_rows(w->pg, b, pos, pos + k));
        w->pend_decoded = true;
        pos += k;
        uint64_t buffered = pm_pg_group_bytes(w->pg);
        if (buffered >= (uint64_t)w->rg_limit || (int64_t)(pm_output_pos(out) + buffered) >= w->o.target_size)
            PM_TRY(flush_pages(w));
    }
    return NULL;
}

pm_error *pm_pt_write(pm_pt_writer *w, const pm_batch *b)
{
    if (!w->pg)
        return pm_error_new(PM_EINTERNAL, "decoded rows to a passthrough writer without page level");
    pm_error *e = write_rows(w, b);
    if (e) {
        pm_rolling_file_writer_discard_open(w->rw);
        return pm_error_wrap(e, 0, "page passthrough writer");
    }
    return NULL;
}

pm_error *pm_pt_copy(pm_pt_writer *w, pm_pt_input *pi)
{
    pm_error *e = NULL;
    if (pi->pages) {
        e = copy_pages(w, pi);
        if (e) {
            pm_rolling_file_writer_discard_open(w->rw); /* the partial output is removed */
            return pm_error_wrap(e, 0, "page passthrough of %s", pi->name);
        }
        return NULL;
    }
    const pm_pq_file_meta *m = pi->meta;
    pm_pq_reader *ir = NULL;
    pm_batch *ib = NULL;
    int64_t ipos = 0;
    PM_TRY_GOTO(e, flush_pages(w), done); /* a pending page-level row group first */
    if (w->nindex) {
        pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
        ro.columns = w->index_cols;
        ro.ncolumns = w->nindex;
        PM_TRY_GOTO(e, pm_pq_reader_open(&ir, pi->in, &ro), done);
    }
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        pm_output *out = NULL;
        PM_TRY_GOTO(e, pm_rolling_file_writer_raw_begin(w->rw, rg->num_rows, &out), done);
        if (ir)
            e = feed_index(w, ir, &ib, &ipos, rg->num_rows);
        if (!e)
            e = copy_row_group(w, out, pi->in, rg);
        if (e) {
            pm_rolling_file_writer_discard_open(w->rw); /* the partial output is removed */
            goto done;
        }
        PM_TRY_GOTO(e, pm_rolling_file_writer_raw_end(w->rw, rg->num_rows), done);
    }
done:
    pm_pq_reader_free(ir);
    return e ? pm_error_wrap(e, 0, "passthrough of %s", pi->name) : NULL;
}

pm_error *pm_pt_writer_finish(pm_pt_writer *w, pm_data_file_meta **files, size_t *n)
{
    pm_error *e = flush_pages(w);
    if (e) {
        pm_rolling_file_writer_discard_open(w->rw);
        return pm_error_wrap(e, 0, "page passthrough");
    }
    return pm_rolling_file_writer_finish(w->rw, files, n);
}

int64_t pm_pt_writer_bytes(const pm_pt_writer *w) { return pm_rolling_file_writer_bytes(w->rw); }
int64_t pm_pt_writer_next_seq(const pm_pt_writer *w) { return pm_rolling_file_writer_next_seq(w->rw); }
void pm_pt_writer_set_next_seq(pm_pt_writer *w, int64_t seq) { pm_rolling_file_writer_set_next_seq(w->rw, seq); }

void pm_pt_writer_abort(pm_pt_writer *w)
{
    if (!w)
        return;
    pm_rolling_file_writer_abort(w->rw);
    w->rw = NULL;
    pm_pt_writer_free(w);
}

void pm_pt_writer_free(pm_pt_writer *w)
{
    if (!w)
        return;
    pm_rolling_file_writer_free(w->rw); /* may discard the open output through raw_discard */
    raw_discard(w);
    if (w->acc) {
        for (uint32_t i = 0; i < w->ws.ntop; i++) {
            pm_buf_free(&w->acc[i].minb);
            pm_buf_free(&w->acc[i].maxb);
        }
        free(w->acc);
    }
    pm_arena_free(&w->schema_arena);
    free(w->index_cols);
    free(w->index_pos);
    free(w->index_view);
    pm_pg_group_free(w->pg);
    pm_codec_ctx_free(w->cctx);
    free(w->force_decode);
    pm_buf_free(&w->ci);
    pm_buf_free(&w->oi);
    free(w->buf);
    free(w->dir);
    free(w->format);
    free(w->compression);
    free(w);
}
