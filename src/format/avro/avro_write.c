/*
 * format/avro/avro_write.c — write pm_batch rows as an Avro object
 * container file the way Paimon Java does (rules in avro.h).
 *
 * Steps:
 *   1. open: derive the schema JSON from the row type (avro_schema.c), draw
 *      a random 16-byte sync marker, write the header to the output;
 *   2. write: per row, per column, encode the value with the WRITER's type
 *      (nullable → union branch 0 for null, 1 then the value; MAP with a
 *      string key → Avro map blocks, otherwise an array of key/value
 *      records; DECIMAL → minimal big-endian two's complement, like Java's
 *      BigInteger.toByteArray) into the pending uncompressed block; a row
 *      that fails is cut back out so the block stays valid;
 *   3. after each row, flush the block (compress, frame, write) once it
 *      reaches block_rows rows or block_bytes bytes, like Avro's
 *      DataFileWriter with its sync interval;
 *   4. finish: flush the last partial block.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/util.h"
#include "format/avro/avro.h"
#include "format/avro/avro_binary.h"
#include "format/avro/avro_schema.h"
#include "types/column.h"

struct pm_avro_writer {
    pm_output *out;
    pm_type *type;
    pm_codec_id codec;
    int level;
    int64_t block_rows;
    size_t block_bytes;
    uint8_t sync[16];
    pm_codec_ctx *cctx;
    pm_buf block;       /* pending uncompressed objects */
    int64_t block_count;
    pm_buf framed;      /* compressed, framed block being written */
    int64_t rows;
};

static bool is_string_key(const pm_type *t)
{
    return t->id == PM_TYPE_CHAR || t->id == PM_TYPE_VARCHAR;
}

/* Same shape and names (ids, nullability and lengths may differ). */
static bool same_shape(const pm_type *a, const pm_type *b)
{
    if (a->id != b->id)
        return false;
    switch (a->id) {
    case PM_TYPE_DECIMAL: return a->precision == b->precision && a->scale == b->scale;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: /* same unit in the column */
        return pm_timestamp_units_per_second(a->precision) ==
               pm_timestamp_units_per_second(b->precision);
    case PM_TYPE_ARRAY:
    case PM_TYPE_MULTISET: return same_shape(a->element, b->element);
    case PM_TYPE_MAP: return same_shape(a->key, b->key) && same_shape(a->value, b->value);
    case PM_TYPE_ROW:
        if (a->nfields != b->nfields)
            return false;
        for (size_t i = 0; i < a->nfields; i++)
            if (strcmp(a->fields[i].name, b->fields[i].name) != 0 ||
                !same_shape(a->fields[i].type, b->fields[i].type))
                return false;
        return true;
    default: return true;
    }
}

static pm_error *put_decimal(pm_buf *out, __int128 v)
{
    uint8_t be[16];
    unsigned __int128 u = (unsigned __int128)v;
    for (int i = 15; i >= 0; i--) {
        be[i] = (uint8_t)u;
        u >>= 8;
    }
    size_t skip = 0;
    while (skip < 15 && ((be[skip] == 0x00 && !(be[skip + 1] & 0x80)) ||
                         (be[skip] == 0xff && (be[skip + 1] & 0x80))))
        skip++;
    return pm_avro_put_bytes(out, be + skip, 16 - skip);
}

static pm_error *encode(const pm_type *t, const pm_column *c, int64_t row, pm_buf *out, int depth);

static pm_error *encode_entries(const pm_type *t, const pm_column *c, int64_t row, pm_buf *out,
                                int depth)
{
    const int32_t *o = pm_column_offsets(c);
    int64_t n = o[row + 1] - o[row];
    if (n > 0) {
        PM_TRY(pm_avro_put_long(out, n));
        if (t->id == PM_TYPE_ARRAY) {
            for (int64_t j = o[row]; j < o[row + 1]; j++)
                PM_TRY(encode(t->element, c->children[0], j, out, depth + 1));
        } else {
            const pm_type *kt = t->id == PM_TYPE_MAP ? t->key : t->element;
            pm_type count = {.id = PM_TYPE_INT, .nullable = true};
            const pm_type *vt = t->id == PM_TYPE_MAP ? t->value : &count;
            bool avro_map = is_string_key(kt);
            for (int64_t j = o[row]; j < o[row + 1]; j++) {
                if (avro_map) {
                    if (pm_column_is_null(c->children[0], j))
                        return pm_error_new(PM_EINVALID, "null map key");
                    size_t kn = 0;
                    const uint8_t *kp = pm_column_bytes(c->children[0], j, &kn);
                    PM_TRY(pm_avro_put_bytes(out, kp, kn));
                } else {
                    PM_TRY(encode(kt, c->children[0], j, out, depth + 1));
                }
                PM_TRY(encode(vt, c->children[1], j, out, depth + 1));
            }
        }
    }
    return pm_avro_put_long(out, 0);
}

static pm_error *encode(const pm_type *t, const pm_column *c, int64_t row, pm_buf *out, int depth)
{
    if (depth > PM_AVRO_MAX_VALUE_DEPTH)
        return pm_error_new(PM_EUNSUPPORTED, "value nested deeper than %d levels",
                            PM_AVRO_MAX_VALUE_DEPTH);
    bool null = pm_column_is_null(c, row);
    if (t->nullable) {
        PM_TRY(pm_avro_put_long(out, null ? 0 : 1));
        if (null)
            return NULL;
    } else if (null) {
        return pm_error_new(PM_EINVALID, "null value in a NOT NULL %s", pm_type_id_name(t->id));
    }
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return pm_buf_append_byte(out, pm_column_bool(c, row) ? 1 : 0);
    case PM_TYPE_TINYINT: return pm_avro_put_long(out, pm_column_i8(c, row));
    case PM_TYPE_SMALLINT: return pm_avro_put_long(out, pm_column_i16(c, row));
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: return pm_avro_put_long(out, pm_column_i32(c, row));
    case PM_TYPE_BIGINT:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: return pm_avro_put_long(out, pm_column_i64(c, row));
    case PM_TYPE_FLOAT: return pm_avro_put_float(out, pm_column_f32(c, row));
    case PM_TYPE_DOUBLE: return pm_avro_put_double(out, pm_column_f64(c, row));
    case PM_TYPE_DECIMAL: return put_decimal(out, pm_column_decimal(c, row));
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        size_t n = 0;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        return pm_avro_put_bytes(out, p, n);
    }
    case PM_TYPE_ARRAY:
    case PM_TYPE_MAP:
    case PM_TYPE_MULTISET: return encode_entries(t, c, row, out, depth);
    case PM_TYPE_ROW:
        for (size_t i = 0; i < t->nfields; i++) {
            pm_error *e = encode(t->fields[i].type, c->children[i], row, out, depth + 1);
            if (e)
                return pm_error_wrap(e, 0, "field '%s'", t->fields[i].name);
        }
        return NULL;
    case PM_TYPE_VARIANT: break;
    }
    return pm_error_new(PM_EUNSUPPORTED, "cannot write %s to avro", pm_type_id_name(t->id));
}

static pm_error *flush_block(pm_avro_writer *w)
{
    if (w->block_count == 0)
        return NULL;
    pm_buf_clear(&w->framed);
    PM_TRY(pm_avro_write_block(&w->framed, w->cctx, w->codec, w->level, w->block_count,
                               w->block.data, w->block.len, w->sync));
    PM_TRY(pm_output_write(w->out, w->framed.data, w->framed.len));
    pm_buf_clear(&w->block);
    w->block_count = 0;
    return NULL;
}

pm_error *pm_avro_writer_open(pm_output *out, const pm_type *row_type,
                              const pm_avro_write_options *opt, pm_avro_writer **wout)
{
    *wout = NULL;
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "an avro file needs a ROW type");
    pm_avro_write_options def = {PM_CODEC_ZSTD, 1, 0, PM_AVRO_DEFAULT_BLOCK_BYTES};
    if (!opt)
        opt = &def;
    const char *codec_name;
    PM_TRY(pm_avro_codec_name(opt->codec, &codec_name));
    if (opt->block_rows < 0)
        return pm_error_new(PM_EINVALID, "avro block_rows must not be negative");
    pm_avro_writer *w = NULL;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    w->out = out;
    w->codec = opt->codec;
    w->level = opt->level;
    w->block_rows = opt->block_rows;
    w->block_bytes = opt->block_bytes ? opt->block_bytes : PM_AVRO_DEFAULT_BLOCK_BYTES;
    pm_buf schema = PM_BUF_INIT;
    pm_error *e = NULL;
    w->type = pm_type_clone(row_type);
    if (!w->type)
        PM_TRY_GOTO(e, pm_oom(), fail);
    PM_TRY_GOTO(e, pm_codec_ctx_new(&w->cctx), fail);
    PM_TRY_GOTO(e, pm_random_bytes(w->sync, sizeof w->sync), fail);
    PM_TRY_GOTO(e, pm_avro_schema_json_from_type(row_type, &schema), fail);
    /* Check the codec and level once, on an empty input. */
    PM_TRY_GOTO(e, pm_codec_compress(w->cctx, w->codec, w->level, NULL, 0, &w->framed), fail);
    pm_buf_clear(&w->framed);
    PM_TRY_GOTO(e, pm_avro_write_header(&w->framed, (const char *)schema.data, schema.len,
                                        codec_name, w->sync),
                fail);
    PM_TRY_GOTO(e, pm_output_write(out, w->framed.data, w->framed.len), fail);
    pm_buf_free(&schema);
    *wout = w;
    return NULL;
fail:
    pm_buf_free(&schema);
    pm_avro_writer_free(w);
    return pm_error_wrap(e, 0, "avro writer");
}

pm_error *pm_avro_writer_write(pm_avro_writer *w, const pm_batch *b)
{
    const pm_type *bt = pm_batch_type(b);
    if (!same_shape(bt, w->type))
        return pm_error_new(PM_EINVALID, "batch row type does not match the avro writer's type");
    int64_t n = pm_batch_num_rows(b);
    for (int64_t r = 0; r < n; r++) {
        size_t mark = w->block.len;
        for (size_t i = 0; i < w->type->nfields; i++) {
            pm_error *e = encode(w->type->fields[i].type, pm_batch_column(b, i), r, &w->block, 0);
            if (e) {
                w->block.len = mark;
                return pm_error_wrap(e, 0, "avro writer: row %lld, column '%s'", (long long)r,
                                     w->type->fields[i].name);
            }
        }
        w->block_count++;
        w->rows++;
        if ((w->block_rows > 0 && w->block_count >= w->block_rows) ||
            w->block.len >= w->block_bytes)
            PM_TRY(flush_block(w));
    }
    return NULL;
}

pm_error *pm_avro_writer_finish(pm_avro_writer *w) { return flush_block(w); }

int64_t pm_avro_writer_rows(const pm_avro_writer *w) { return w->rows; }

uint64_t pm_avro_writer_estimated_size(const pm_avro_writer *w)
{
    return pm_output_pos(w->out) + w->block.len;
}

void pm_avro_writer_free(pm_avro_writer *w)
{
    if (!w)
        return;
    pm_type_free(w->type);
    pm_codec_ctx_free(w->cctx);
    pm_buf_free(&w->block);
    pm_buf_free(&w->framed);
    free(w);
}
