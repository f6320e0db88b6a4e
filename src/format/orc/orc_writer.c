/*
 * format/orc/orc_writer.c — the ORC file writer (see orc_writer.h for the
 * layout and the steps; orc_write_column.h for the columns).
 *
 * Codecs per stream, as orc-core customizes them (SerializationUtils.
 * getCustomizedCodec): DATA and DICTIONARY_DATA use the "data" settings
 * (zlib level 2 with compression strategy SPEED, the default level with
 * COMPRESSION), PRESENT / LENGTH / SECONDARY / ROW_INDEX the "aux" ones
 * (zlib level 1), stripe footers, Metadata and Footer the file's (zlib
 * default level); zstd uses orc.compression.zstd.level everywhere, snappy
 * and lz4 have no level.  (orc-core also asks zlib for the FILTERED
 * strategy on aux streams, which zlib's level 1 ignores: its fast deflate
 * has no lazy matching; so the default strategy gives the same bytes.)
 * Compression block size: the smallest power of two >= stripe size /
 * (20 x columns), within [4 KiB, 256 KiB], capped by orc.compress.size
 * (unless orc.buffer.size.enforce).
 */
#include "format/orc/orc_writer.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "format/orc/orc_pb.h"
#include "format/orc/orc_schema.h"
#include "format/orc/orc_write_column.h"
#include "paimon/version.h"
#include "types/column.h"

#define WRITER_VERSION_ORC_14 9
#define MIN_ROW_INDEX_STRIDE 1000

struct pm_orc_writer {
    pm_output *out;
    pm_type *row_type;
    pm_orc_writer_options o;
    char *software_version;
    pm_orc_kv *user_meta;        /* sorted by key */
    size_t nuser_meta;
    pm_arena arena;
    orc_type *types;
    const pm_type **ptypes;
    uint32_t ntypes;
    double *thresholds;
    pm_codec_ctx *cctx;
    orc_codec base_codec, data_codec, aux_codec;
    orc_wctx ctx;
    orc_cw *root;
    orc_cw **cols;
    bool has_timestamp;
    uint64_t pos;
    int64_t rows, rows_in_stripe, rows_in_index, rows_since_check, rows_per_check;
    pm_batch *staged;            /* rows of an incomplete Java batch */
    orc_stripe_info *stripes;
    size_t nstripes, stripes_cap;
    pm_buf stripe_stats;         /* Metadata body: one StripeStatistics per stripe */
    orc_out tail;                /* stripe footers, Metadata, Footer */
    bool failed;
};

/* ------------------------------------------------------------------ */
/* Options                                                             */

void pm_orc_writer_options_default(pm_orc_writer_options *o)
{
    memset(o, 0, sizeof *o);
    o->compression = ORC_COMP_ZSTD;
    o->zstd_level = 1;
    o->stripe_size = 64LL << 20;
    o->stripe_row_count = INT32_MAX;
    o->block_size = 256LL << 20;
    o->block_padding = true;
    o->padding_tolerance = 0.05;
    o->row_index_stride = 10000;
    o->buffer_size = 256 * 1024;
    o->dictionary_threshold = 0.8;
    o->dictionary_early_check = true;
    o->file_version = 12;
    o->encoding_speed = true;
    o->compression_speed = true;
    o->rows_between_checks = 5000;
    o->batch_size = 1024;
}

static int32_t estimated_buffer_size(int64_t stripe_size, uint32_t ncols, int32_t bs)
{
    int64_t est = stripe_size / (20LL * ncols);
    int32_t size = est > INT32_MAX ? INT32_MAX : (int32_t)est;
    int32_t pow2;
    if (size == 1) {
        pow2 = 1;
    } else if (size <= 0) {
        pow2 = 0; /* Integer.highestOneBit of a negative value doubled overflows to 0 */
    } else {
        uint32_t v = (uint32_t)size - 1;
        uint32_t hb = v ? 1u << (31 - __builtin_clz(v)) : 0;
        pow2 = hb >= 0x40000000u ? 0 : (int32_t)(hb * 2);
    }
    int32_t closest = pow2 < 4096 ? 4096 : pow2 > 262144 ? 262144 : pow2;
    return closest < bs ? closest : bs;
}

static pm_error *check_options(const pm_orc_writer_options *o)
{
    switch (o->compression) {
    case ORC_COMP_NONE:
    case ORC_COMP_ZLIB:
    case ORC_COMP_SNAPPY:
    case ORC_COMP_LZ4:
    case ORC_COMP_ZSTD: break;
    default: return pm_error_new(PM_EUNSUPPORTED, "ORC compression %s is not supported", orc_compression_name(o->compression));
    }
    if (o->stripe_size <= 0)
        return pm_error_new(PM_EINVALID, "orc.stripe.size must be positive (got %lld)", (long long)o->stripe_size);
    if (o->stripe_row_count <= 0)
        return pm_error_new(PM_EINVALID, "orc.stripe.row.count must be positive (got %lld)",
                            (long long)o->stripe_row_count);
    if (o->block_size <= 0)
        return pm_error_new(PM_EINVALID, "orc.block.size must be positive (got %lld)", (long long)o->block_size);
    if (o->row_index_stride > 0 && o->row_index_stride < MIN_ROW_INDEX_STRIDE)
        return pm_error_new(PM_EINVALID, "orc.row.index.stride must be at least %d (got %d)", MIN_ROW_INDEX_STRIDE,
                            o->row_index_stride);
    if (o->buffer_size <= 0 || o->buffer_size >= (1 << 23))
        return pm_error_new(PM_EINVALID, "orc.compress.size %d is outside [1, 8388607]", o->buffer_size);
    if (o->file_version != 11 && o->file_version != 12)
        return pm_error_new(PM_EUNSUPPORTED, "ORC file version 0.%d is not supported (0.11, 0.12)", o->file_version);
    if (o->rows_between_checks <= 0)
        return pm_error_new(PM_EINVALID, "orc.rows.between.memory.checks must be positive");
    if (o->batch_size <= 0)
        return pm_error_new(PM_EINVALID, "write.batch-size must be positive");
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

static pm_error *put(pm_orc_writer *w, const void *p, size_t n)
{
    if (n == 0)
        return NULL;
    PM_TRY(pm_output_write(w->out, p, n));
    w->pos += n;
    return NULL;
}

/* A message through the tail stream (compressed chunks); *len = bytes written. */
static pm_error *put_compressed(pm_orc_writer *w, const pm_buf *msg, uint64_t *len)
{
    orc_out_reset(&w->tail);
    PM_TRY(orc_out_write(&w->tail, msg->data ? msg->data : (const uint8_t *)"", msg->len));
    PM_TRY(orc_out_flush(&w->tail));
    *len = w->tail.out.len;
    return put(w, w->tail.out.data, w->tail.out.len);
}

/* ------------------------------------------------------------------ */
/* Construction                                                        */

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const pm_orc_kv *)a)->key, ((const pm_orc_kv *)b)->key);
}

/* orc.column.encoding.direct: each name (a top-level field or a dotted
 * path into structs) and its subtree get threshold 0. */
static pm_error *mark_direct(pm_orc_writer *w, const char *name)
{
    uint32_t id = 0;
    const char *p = name;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        const orc_type *t = &w->types[id];
        uint32_t found = UINT32_MAX;
        if (t->kind == ORC_STRUCT)
            for (uint32_t i = 0; i < t->nnames; i++)
                if (strlen(t->names[i]) == len && !strncmp(t->names[i], p, len))
                    found = t->subtypes[i];
        if (found == UINT32_MAX)
            return pm_error_new(PM_EINVALID, "orc.column.encoding.direct: no field '%s'", name);
        id = found;
        p = dot ? dot + 1 : p + len;
    }
    /* the subtree of `id` is the next ids up to its last descendant */
    uint32_t last = id;
    for (uint32_t k = id; k <= last && k < w->ntypes; k++)
        for (uint32_t i = 0; i < w->types[k].nsub; i++)
            if (w->types[k].subtypes[i] > last)
                last = w->types[k].subtypes[i];
    for (uint32_t k = id; k <= last; k++)
        w->thresholds[k] = 0.0;
    return NULL;
}

pm_error *pm_orc_writer_new(pm_orc_writer **out, pm_output *o, const pm_type *row_type,
                            const pm_orc_writer_options *opts)
{
    *out = NULL;
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "ORC writer needs a ROW type");
    pm_orc_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    pm_arena_init(&w->arena, 0);
    pm_error *e = NULL;
    w->out = o;
    if (opts)
        w->o = *opts;
    else
        pm_orc_writer_options_default(&w->o);
    PM_TRY_GOTO(e, check_options(&w->o), fail);
    w->row_type = pm_type_clone(row_type);
    if (!w->row_type) {
        e = pm_oom();
        goto fail;
    }
    if (w->o.software_version) {
        PM_TRY_GOTO(e, pm_strdup(&w->software_version, w->o.software_version), fail);
    } else {
        PM_TRY_GOTO(e, pm_strdup(&w->software_version, "paimon-c " PM_VERSION), fail);
    }
    w->o.software_version = NULL;
    if (w->o.nuser_metadata) {
        PM_TRY_GOTO(e, pm_calloc(&w->user_meta, w->o.nuser_metadata, sizeof *w->user_meta), fail);
        for (size_t i = 0; i < w->o.nuser_metadata; i++) {
            const pm_orc_kv *kv = &w->o.user_metadata[i];
            char *k = pm_arena_strdup(&w->arena, kv->key ? kv->key : "");
            uint8_t *v = pm_arena_alloc(&w->arena, kv->len ? kv->len : 1, 1);
            if (!k || !v) {
                e = pm_oom();
                goto fail;
            }
            if (kv->len)
                memcpy(v, kv->value, kv->len);
            w->user_meta[i] = (pm_orc_kv){k, v, kv->len};
        }
        w->nuser_meta = w->o.nuser_metadata;
        qsort(w->user_meta, w->nuser_meta, sizeof *w->user_meta, cmp_kv);
        /* Java keeps the last value of a repeated key (a TreeMap) */
        size_t k = 0;
        for (size_t i = 0; i < w->nuser_meta; i++) {
            if (k && !strcmp(w->user_meta[k - 1].key, w->user_meta[i].key))
                w->user_meta[k - 1] = w->user_meta[i];
            else
                w->user_meta[k++] = w->user_meta[i];
        }
        w->nuser_meta = k;
    }
    w->o.user_metadata = NULL;
    w->o.nuser_metadata = 0;
    PM_TRY_GOTO(e, orc_schema_from_paimon(&w->arena, w->row_type, &w->types, &w->ptypes, &w->ntypes), fail);
    for (uint32_t i = 0; i < w->ntypes; i++)
        if (w->types[i].kind == ORC_TIMESTAMP)
            w->has_timestamp = true;
    PM_TRY_GOTO(e, pm_calloc(&w->thresholds, w->ntypes, sizeof *w->thresholds), fail);
    for (uint32_t i = 0; i < w->ntypes; i++)
        w->thresholds[i] = w->o.dictionary_threshold;
    for (size_t i = 0; i < w->o.ndirect_columns; i++)
        PM_TRY_GOTO(e, mark_direct(w, w->o.direct_columns[i]), fail);
    w->o.direct_columns = NULL;
    w->o.ndirect_columns = 0;
    int32_t bs = w->o.enforce_buffer_size ? w->o.buffer_size
                                          : estimated_buffer_size(w->o.stripe_size, w->ntypes, w->o.buffer_size);
    PM_TRY_GOTO(e, pm_codec_ctx_new(&w->cctx), fail);
    uint32_t c = w->o.compression;
    PM_TRY_GOTO(e, orc_codec_init(&w->base_codec, c, (uint64_t)bs, w->cctx), fail);
    w->base_codec.block_size = (size_t)bs;
    w->data_codec = w->aux_codec = w->base_codec;
    if (c == ORC_COMP_ZLIB) {
        w->base_codec.level = -1;
        w->data_codec.level = w->o.compression_speed ? 2 : -1;
        w->aux_codec.level = 1;
    } else if (c == ORC_COMP_ZSTD) {
        w->base_codec.level = w->data_codec.level = w->aux_codec.level = w->o.zstd_level;
    }
    w->ctx.data_codec = &w->data_codec;
    w->ctx.aux_codec = &w->aux_codec;
    w->ctx.rle_version = w->o.file_version == 11 ? 1 : 2;
    w->ctx.aligned = w->o.encoding_speed;
    w->ctx.build_index = w->o.row_index_stride > 0;
    w->ctx.early_check = w->o.dictionary_early_check;
    w->ctx.batch_size = w->o.batch_size;
    orc_out_init(&w->tail, &w->base_codec);
    PM_TRY_GOTO(e, orc_cw_new(&w->root, 0, w->types, w->ptypes, w->thresholds, &w->ctx), fail);
    PM_TRY_GOTO(e, pm_calloc(&w->cols, w->ntypes, sizeof *w->cols), fail);
    orc_cw_collect(w->root, w->cols);
    w->rows_per_check = w->o.stripe_row_count < w->o.rows_between_checks ? w->o.stripe_row_count
                                                                          : w->o.rows_between_checks;
    PM_TRY_GOTO(e, pm_batch_new(&w->staged, w->row_type), fail);
    PM_TRY_GOTO(e, put(w, "ORC", 3), fail);
    *out = w;
    return NULL;
fail:
    pm_orc_writer_abort(w);
    return e;
}

void pm_orc_writer_abort(pm_orc_writer *w)
{
    if (!w)
        return;
    orc_cw_free(w->root);
    free(w->cols);
    pm_batch_free(w->staged);
    orc_out_free(&w->tail);
    pm_codec_ctx_free(w->cctx);
    free(w->thresholds);
    free(w->stripes);
    pm_buf_free(&w->stripe_stats);
    free(w->user_meta);
    free(w->software_version);
    pm_type_free(w->row_type);
    pm_arena_free(&w->arena);
    free(w);
}

/* ------------------------------------------------------------------ */
/* Stripes                                                             */

static pm_error *pad_stripe(pm_orc_writer *w, uint64_t stripe_bytes)
{
    uint64_t bs = (uint64_t)w->o.block_size;
    uint64_t prev = w->pos % bs;
    if (prev == 0 || prev + stripe_bytes < bs || !w->o.block_padding)
        return NULL;
    uint64_t padding = bs - prev;
    int64_t max_padding = (int64_t)(w->o.padding_tolerance * (double)w->o.stripe_size);
    if ((int64_t)padding > max_padding)
        return NULL;
    static const uint8_t zeros[4096];
    while (padding) {
        size_t k = padding < sizeof zeros ? (size_t)padding : sizeof zeros;
        PM_TRY(put(w, zeros, k));
        padding -= k;
    }
    return NULL;
}

static const uint32_t data_kinds[] = {ORC_PRESENT, ORC_DATA, ORC_LENGTH, ORC_DICTIONARY_DATA, ORC_SECONDARY};

static pm_error *put_stream_entry(pm_buf *footer, pm_buf *tmp, uint32_t kind, uint32_t col, uint64_t len)
{
    pm_buf_clear(tmp);
    orc_stream_info si = {kind, col, len};
    PM_TRY(orc_put_stream_info(tmp, &si));
    return orc_pb_put_bytes(footer, 1, tmp->data, tmp->len);
}

static pm_error *flush_stripe(pm_orc_writer *w)
{
    if (w->ctx.build_index && w->rows_in_index) {
        PM_TRY(orc_cw_index_entry(w->root));
        w->rows_in_index = 0;
    }
    if (w->rows_in_stripe == 0)
        return NULL;
    uint32_t required = 0;
    if (w->ctx.build_index)
        required = (uint32_t)((w->rows_in_stripe + w->o.row_index_stride - 1) / w->o.row_index_stride);
    PM_TRY(orc_cw_flush(w->root));
    pm_buf stats = PM_BUF_INIT, colstats = PM_BUF_INIT, footer = PM_BUF_INIT, tmp = PM_BUF_INIT;
    pm_error *e = NULL;
    for (uint32_t id = 0; id < w->ntypes; id++) {
        pm_buf_clear(&colstats);
        PM_TRY_GOTO(e, pm_error_wrap(orc_cw_finish_stripe(w->cols[id], required, &colstats), 0, "column %u", id), done);
        PM_TRY_GOTO(e, orc_pb_put_bytes(&stats, 1, colstats.data, colstats.len), done);
    }
    PM_TRY_GOTO(e, orc_pb_put_bytes(&w->stripe_stats, 1, stats.data ? stats.data : (const uint8_t *)"", stats.len),
                done);
    /* stream directory: index area, then data area; column, then kind */
    uint64_t index_len = 0, data_len = 0;
    for (uint32_t id = 0; id < w->ntypes; id++) {
        const pm_buf *b = orc_cw_stream(w->cols[id], ORC_ROW_INDEX);
        if (b) {
            PM_TRY_GOTO(e, put_stream_entry(&footer, &tmp, ORC_ROW_INDEX, id, b->len), done);
            index_len += b->len;
        }
    }
    for (uint32_t id = 0; id < w->ntypes; id++)
        for (size_t k = 0; k < sizeof data_kinds / sizeof *data_kinds; k++) {
            const pm_buf *b = orc_cw_stream(w->cols[id], data_kinds[k]);
            if (b) {
                PM_TRY_GOTO(e, put_stream_entry(&footer, &tmp, data_kinds[k], id, b->len), done);
                data_len += b->len;
            }
        }
    for (uint32_t id = 0; id < w->ntypes; id++) {
        orc_encoding en;
        bool dict;
        orc_cw_encoding(w->cols[id], &en, &dict);
        pm_buf_clear(&tmp);
        PM_TRY_GOTO(e, orc_put_encoding(&tmp, &en, dict), done);
        PM_TRY_GOTO(e, orc_pb_put_bytes(&footer, 2, tmp.data, tmp.len), done);
    }
    if (w->has_timestamp)
        PM_TRY_GOTO(e, orc_pb_put_str(&footer, 3, "UTC"), done);
    PM_TRY_GOTO(e, pad_stripe(w, index_len + data_len + footer.len), done);
    uint64_t offset = w->pos;
    for (uint32_t id = 0; id < w->ntypes; id++) {
        const pm_buf *b = orc_cw_stream(w->cols[id], ORC_ROW_INDEX);
        if (b)
            PM_TRY_GOTO(e, put(w, b->data, b->len), done);
    }
    for (uint32_t id = 0; id < w->ntypes; id++)
        for (size_t k = 0; k < sizeof data_kinds / sizeof *data_kinds; k++) {
            const pm_buf *b = orc_cw_stream(w->cols[id], data_kinds[k]);
            if (b)
                PM_TRY_GOTO(e, put(w, b->data, b->len), done);
        }
    uint64_t footer_len;
    PM_TRY_GOTO(e, put_compressed(w, &footer, &footer_len), done);
    PM_TRY_GOTO(e, orc_reserve(&w->stripes, &w->stripes_cap, w->nstripes + 1, sizeof *w->stripes), done);
    w->stripes[w->nstripes++] =
        (orc_stripe_info){offset, index_len, data_len, footer_len, (uint64_t)w->rows_in_stripe, false};
    w->rows += w->rows_in_stripe;
    w->rows_in_stripe = 0;
    PM_TRY_GOTO(e, orc_cw_next_stripe(w->root), done);
done:
    pm_buf_free(&stats);
    pm_buf_free(&colstats);
    pm_buf_free(&footer);
    pm_buf_free(&tmp);
    return e;
}

static pm_error *end_batch(pm_orc_writer *w, int64_t rows)
{
    w->rows_since_check += rows;
    if (w->rows_since_check < w->rows_per_check)
        return NULL;
    w->rows_since_check = 0;
    if (orc_cw_estimate(w->root) > (uint64_t)w->o.stripe_size || w->rows_in_stripe >= w->o.stripe_row_count)
        return flush_stripe(w);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

static pm_error *check_batch(const pm_orc_writer *w, const pm_batch *b)
{
    if (!pm_type_equals_ignore_nullable(b->type, w->row_type))
        return pm_error_new(PM_EINVALID, "batch type does not match the ORC writer's row type");
    if (b->ncolumns != w->row_type->nfields)
        return pm_error_new(PM_EINVALID, "batch has %zu columns, the writer %zu", b->ncolumns, w->row_type->nfields);
    for (size_t i = 0; i < b->ncolumns; i++) {
        const pm_column *c = b->columns[i];
        if (c->length != b->num_rows)
            return pm_error_new(PM_EINVALID, "column '%s' has %lld rows, the batch %lld", w->row_type->fields[i].name,
                                (long long)c->length, (long long)b->num_rows);
        if (c->null_count && !w->row_type->fields[i].type->nullable)
            return pm_error_new(PM_EINVALID, "field '%s' expected not null but found null value",
                                w->row_type->fields[i].name);
    }
    return NULL;
}

/* One of Java's vectorized batches: rows [start, start + len) of `b`. */
static pm_error *write_java_batch(pm_orc_writer *w, const pm_batch *b, int64_t start, int64_t len)
{
    orc_cw_batch_start(w->root);
    orc_cw_prescan_root(w->root, b, start, len);
    int64_t at = start, end = start + len;
    while (at < end) {
        int64_t chunk = end - at;
        if (w->ctx.build_index && chunk > w->o.row_index_stride - w->rows_in_index)
            chunk = w->o.row_index_stride - w->rows_in_index;
        PM_TRY(orc_cw_write_root(w->root, b, at, chunk));
        at += chunk;
        w->rows_in_index += chunk;
        w->rows_in_stripe += chunk;
        if (w->ctx.build_index && w->rows_in_index >= w->o.row_index_stride) {
            PM_TRY(orc_cw_index_entry(w->root));
            w->rows_in_index = 0;
        }
    }
    return end_batch(w, len);
}

static pm_error *stage(pm_orc_writer *w, const pm_batch *b, int64_t start, int64_t len)
{
    pm_batch *s = w->staged;
    for (size_t i = 0; i < b->ncolumns; i++)
        for (int64_t r = start; r < start + len; r++)
            PM_TRY(pm_column_append_from(s->columns[i], b->columns[i], r));
    return pm_batch_finish(s, s->num_rows + len);
}

pm_error *pm_orc_writer_write(pm_orc_writer *w, const pm_batch *b)
{
    if (w->failed)
        return pm_error_new(PM_EINVALID, "ORC writer failed earlier");
    PM_TRY(check_batch(w, b));
    int64_t n = b->num_rows, at = 0, bs = w->o.batch_size;
    pm_error *e = NULL;
    /* Java fills batches of write.batch-size rows before they reach the
     * tree writers; rows that do not complete one wait in `staged` */
    if (w->staged->num_rows > 0) {
        int64_t k = bs - w->staged->num_rows < n ? bs - w->staged->num_rows : n;
        PM_TRY_GOTO(e, stage(w, b, 0, k), fail);
        at = k;
        if (w->staged->num_rows == bs) {
            PM_TRY_GOTO(e, write_java_batch(w, w->staged, 0, bs), fail);
            PM_TRY_GOTO(e, pm_batch_reset(w->staged), fail);
        }
    }
    for (; n - at >= bs; at += bs)
        PM_TRY_GOTO(e, write_java_batch(w, b, at, bs), fail);
    if (at < n)
        PM_TRY_GOTO(e, stage(w, b, at, n - at), fail);
    return NULL;
fail:
    w->failed = true;
    return e;
}

uint64_t pm_orc_writer_estimated_size(const pm_orc_writer *w)
{
    /* staged rows are still in Java's batch: not counted, as in Java */
    double est = (double)orc_cw_estimate(w->root) * 0.2;
    return w->pos + (uint64_t)(est + 0.999999);
}

int64_t pm_orc_writer_num_rows(const pm_orc_writer *w) { return w->rows + w->rows_in_stripe + w->staged->num_rows; }

/* ------------------------------------------------------------------ */
/* Tail                                                                */

static pm_error *write_tail(pm_orc_writer *w, uint64_t *metadata_len, uint64_t *footer_len)
{
    PM_TRY(put_compressed(w, &w->stripe_stats, metadata_len));
    uint64_t body_end = w->pos - *metadata_len;
    pm_buf f = PM_BUF_INIT, tmp = PM_BUF_INIT;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, orc_pb_put_u64(&f, 1, 3), done);
    PM_TRY_GOTO(e, orc_pb_put_u64(&f, 2, body_end), done);
    for (size_t i = 0; i < w->nstripes; i++) {
        pm_buf_clear(&tmp);
        PM_TRY_GOTO(e, orc_put_stripe_info(&tmp, &w->stripes[i]), done);
        PM_TRY_GOTO(e, orc_pb_put_bytes(&f, 3, tmp.data, tmp.len), done);
    }
    for (uint32_t i = 0; i < w->ntypes; i++) {
        pm_buf_clear(&tmp);
        PM_TRY_GOTO(e, orc_put_type(&tmp, &w->types[i]), done);
        PM_TRY_GOTO(e, orc_pb_put_bytes(&f, 4, tmp.data, tmp.len), done);
    }
    for (size_t i = 0; i < w->nuser_meta; i++) {
        pm_buf_clear(&tmp);
        PM_TRY_GOTO(e, orc_pb_put_str(&tmp, 1, w->user_meta[i].key), done);
        PM_TRY_GOTO(e, orc_pb_put_bytes(&tmp, 2, w->user_meta[i].value, w->user_meta[i].len), done);
        PM_TRY_GOTO(e, orc_pb_put_bytes(&f, 5, tmp.data, tmp.len), done);
    }
    PM_TRY_GOTO(e, orc_pb_put_u64(&f, 6, (uint64_t)w->rows), done);
    for (uint32_t i = 0; i < w->ntypes; i++) {
        pm_buf_clear(&tmp);
        PM_TRY_GOTO(e, orc_stats_serialize(orc_cw_file_stats(w->cols[i]), &tmp), done);
        PM_TRY_GOTO(e, orc_pb_put_bytes(&f, 7, tmp.data ? tmp.data : (const uint8_t *)"", tmp.len), done);
    }
    PM_TRY_GOTO(e, orc_pb_put_u64(&f, 8, (uint64_t)(w->o.row_index_stride > 0 ? w->o.row_index_stride : 0)), done);
    PM_TRY_GOTO(e, orc_pb_put_u64(&f, 9, 0), done);     /* ORC Java: the encodings and statistics are its */
    PM_TRY_GOTO(e, orc_pb_put_u64(&f, 11, ORC_CALENDAR_JULIAN_GREGORIAN), done);
    PM_TRY_GOTO(e, orc_pb_put_str(&f, 12, w->software_version), done);
    PM_TRY_GOTO(e, put_compressed(w, &f, footer_len), done);
done:
    pm_buf_free(&f);
    pm_buf_free(&tmp);
    return e;
}

static pm_error *write_postscript(pm_orc_writer *w, uint64_t metadata_len, uint64_t footer_len)
{
    pm_buf ps = PM_BUF_INIT;
    pm_error *e = NULL;
    uint64_t version[2] = {0, (uint64_t)w->o.file_version};
    PM_TRY_GOTO(e, orc_pb_put_u64(&ps, 1, footer_len), done);
    PM_TRY_GOTO(e, orc_pb_put_u64(&ps, 2, w->o.compression), done);
    if (w->o.compression != ORC_COMP_NONE)
        PM_TRY_GOTO(e, orc_pb_put_u64(&ps, 3, w->base_codec.block_size), done);
    PM_TRY_GOTO(e, orc_pb_put_packed(&ps, 4, version, 2), done);
    PM_TRY_GOTO(e, orc_pb_put_u64(&ps, 5, metadata_len), done);
    PM_TRY_GOTO(e, orc_pb_put_u64(&ps, 6, WRITER_VERSION_ORC_14), done);
    PM_TRY_GOTO(e, orc_pb_put_str(&ps, 8000, "ORC"), done);
    if (ps.len > 255) {
        e = pm_error_new(PM_EINTERNAL, "ORC PostScript of %zu bytes", ps.len);
        goto done;
    }
    PM_TRY_GOTO(e, put(w, ps.data, ps.len), done);
    uint8_t n = (uint8_t)ps.len;
    PM_TRY_GOTO(e, put(w, &n, 1), done);
done:
    pm_buf_free(&ps);
    return e;
}

void pm_orc_write_result_free(pm_orc_write_result *r)
{
    if (!r)
        return;
    free(r->stats);
    if (r->owned) {
        pm_arena_free(r->owned);
        free(r->owned);
    }
    memset(r, 0, sizeof *r);
}

static pm_error *fill_result(pm_orc_writer *w, pm_orc_write_result *res)
{
    memset(res, 0, sizeof *res);
    res->file_size = w->pos;
    res->row_count = w->rows;
    res->nstripes = (uint32_t)w->nstripes;
    size_t n = w->row_type->nfields;
    res->ncolumns = n;
    pm_arena *a;
    PM_TRY(pm_calloc(&a, 1, sizeof *a));
    pm_arena_init(a, 0);
    res->owned = a;
    PM_TRY(pm_calloc(&res->stats, n ? n : 1, sizeof *res->stats));
    const orc_type *root = &w->types[0];
    pm_buf b = PM_BUF_INIT;
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        uint32_t id = root->subtypes[i];
        pm_buf_clear(&b);
        e = orc_stats_serialize(orc_cw_file_stats(w->cols[id]), &b);
        pm_orc_stats *st = pm_arena_calloc(a, sizeof *st, 8);
        if (!e && !st)
            e = pm_oom();
        if (!e)
            e = orc_parse_stats(a, b.data ? b.data : (const uint8_t *)"", b.len, st);
        if (!e)
            orc_field_stats(st, w->row_type->fields[i].type, (uint64_t)w->rows, &res->stats[i]);
    }
    pm_buf_free(&b);
    return e;
}

pm_error *pm_orc_writer_close(pm_orc_writer *w, pm_orc_write_result *res)
{
    pm_error *e = NULL;
    if (res)
        memset(res, 0, sizeof *res);
    if (w->failed) {
        e = pm_error_new(PM_EINVALID, "ORC writer failed earlier");
        goto done;
    }
    uint64_t md, ft;
    if (w->staged->num_rows > 0)
        PM_TRY_GOTO(e, write_java_batch(w, w->staged, 0, w->staged->num_rows), done);
    PM_TRY_GOTO(e, flush_stripe(w), done);
    PM_TRY_GOTO(e, write_tail(w, &md, &ft), done);
    PM_TRY_GOTO(e, write_postscript(w, md, ft), done);
    if (res) {
        e = fill_result(w, res);
        if (e)
            pm_orc_write_result_free(res);
    }
done:
    pm_orc_writer_abort(w);
    return e;
}
