/*
 * format/orc/orc_read_column.c — column readers of one stripe (see
 * orc_read_column.h).
 *
 * Streams per ORC type (RLE version from the column encoding: DIRECT and
 * DICTIONARY use v1, the _V2 kinds v2):
 *   boolean            DATA booleans
 *   tinyint            DATA byte RLE
 *   smallint/int/bigint/date   DATA signed integers
 *   float / double     DATA 4 / 8 byte little-endian IEEE values
 *   string/char/varchar  direct: DATA bytes + LENGTH unsigned;
 *                      dictionary: DATA ids + DICTIONARY_DATA bytes +
 *                      LENGTH of each dictionary entry (loaded at start)
 *   binary             DATA bytes + LENGTH unsigned
 *   decimal            DATA zig-zag varints (<= 128 bits) + SECONDARY scales
 *   timestamp(_instant) DATA signed seconds since 2015-01-01 + SECONDARY
 *                      nanos (value << 3 | z; z > 0 means z + 1 decimal zeros
 *                      were removed)
 *   list / map         LENGTH unsigned element counts; children
 *   struct             children only
 * Every column may have PRESENT (booleans, 1 = value present).
 *
 * Timestamps: value = (seconds + base - q) * 10^9 + nanos, q = 1 when
 * seconds + base < 0 and nanos > 999999 (writers truncate negative
 * seconds toward zero; orc-core's and the C++ reader's rule, which agree).
 * nanos are shifted arithmetically: pyarrow writes negative ones before
 * 1970 and reads them back so.  base is 2015-01-01 00:00:00 in the
 * writer's zone for timestamp (wall clock = instant + zone offset at that
 * instant) and in UTC for timestamp with local time zone.
 */
#include "format/orc/orc_read_column.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "format/orc/orc_rle.h"
#include "format/orc/orc_tz.h"
#include "types/temporal.h"
#include "types/column.h"

enum {
    RK_BOOL,
    RK_BYTE,
    RK_INT16,
    RK_INT32,
    RK_INT64,
    RK_FLOAT,
    RK_DOUBLE,
    RK_BYTES,
    RK_DECIMAL,
    RK_TIMESTAMP,
    RK_STRUCT,
    RK_LIST,
    RK_MAP
};

struct orc_col_reader {
    const orc_col *col;
    const pm_type *type;
    const orc_read_ctx *ctx;
    int kind;
    int version;                 /* RLE version */
    bool has_present;
    orc_in present_in;
    orc_bool_dec present;
    orc_in data_in, len_in, sec_in;
    orc_byte_dec bytes;
    orc_bool_dec bools;
    orc_int_dec data_ints, len_ints, sec_ints;
    bool data_ints_on, len_ints_on, sec_ints_on;
    /* strings */
    bool dict;
    uint32_t dict_size;
    pm_buf dict_data;
    int64_t *dict_off;           /* dict_size + 1 */
    int trim;                    /* 0 none, 1 truncate to max_chars, 2 right-trim spaces + truncate */
    int64_t max_chars;
    /* decimal */
    int32_t scale, precision;
    /* timestamp */
    bool local;                  /* timestamp without time zone */
    int64_t unit;                /* nanoseconds per output unit */
    uint32_t nchildren;
    orc_col_reader **children;
    /* scratch */
    uint8_t *flags, *tmp_flags;
    size_t flags_cap, tmp_cap;
    int64_t *vals, *vals2;
    size_t vals_cap, vals2_cap;
};

static const char *col_name(const orc_col_reader *r)
{
    return r->col->name && *r->col->name ? r->col->name : orc_kind_name(r->col->kind);
}

/* ------------------------------------------------------------------ */
/* Construction                                                        */

static pm_error *open_stream(orc_col_reader *r, uint32_t kind, orc_in *in, bool required, bool *found)
{
    const uint8_t *p = NULL;
    size_t n = 0;
    bool f = false;
    PM_TRY(r->ctx->lookup(r->ctx->lookup_ctx, r->col->id, kind, &p, &n, &f));
    if (!f && required)
        return pm_error_new(PM_ECORRUPT, "column %u (%s) has no %s stream", r->col->id, col_name(r),
                            orc_stream_kind_name(kind));
    orc_in_init(in, r->ctx->codec, f ? p : NULL, f ? n : 0);
    if (found)
        *found = f;
    return NULL;
}

static pm_error *open_ints(orc_col_reader *r, uint32_t kind, orc_in *in, orc_int_dec *d, bool *on, bool is_signed)
{
    PM_TRY(open_stream(r, kind, in, true, NULL));
    PM_TRY(orc_int_dec_init(d, in, is_signed, r->version));
    *on = true;
    return NULL;
}

/* Dictionary: entry lengths, then their bytes. */
static pm_error *load_dictionary(orc_col_reader *r)
{
    if (r->dict_size > (1u << 28))
        return pm_error_new(PM_EUNSUPPORTED, "column %u: dictionary of %u entries is too large", r->col->id,
                            r->dict_size);
    orc_in dict_in;
    PM_TRY(open_stream(r, ORC_DICTIONARY_DATA, &dict_in, r->dict_size > 0, NULL));
    pm_error *e = NULL;
    size_t cap = 0;
    uint64_t total = 0;
    uint32_t have = 0;
    /* grow with the entries decoded so far, never by the declared size alone */
    while (have < r->dict_size) {
        uint32_t step = r->dict_size - have < 65536 ? r->dict_size - have : 65536;
        PM_TRY_GOTO(e, orc_reserve(&r->dict_off, &cap, (size_t)have + step + 1, sizeof *r->dict_off), done);
        if (have == 0)
            r->dict_off[0] = 0;
        PM_TRY_GOTO(e, orc_int_dec_next(&r->len_ints, r->dict_off + have + 1, step), done);
        for (uint32_t i = 0; i < step; i++) {
            int64_t len = r->dict_off[have + 1 + i];
            if (len < 0 || (uint64_t)len > r->ctx->max_value_bytes) {
                e = pm_error_new(PM_ECORRUPT, "column %u: dictionary entry of %lld bytes", r->col->id, (long long)len);
                goto done;
            }
            total += (uint64_t)len;
            r->dict_off[have + 1 + i] = (int64_t)total;
        }
        have += step;
        if (total > (uint64_t)INT32_MAX) {
            e = pm_error_new(PM_EUNSUPPORTED, "column %u: dictionary of more than 2 GiB", r->col->id);
            goto done;
        }
    }
    /* bytes arrive from the stream as it decodes, so a short stream fails early */
    for (uint64_t at = 0; at < total;) {
        size_t k = total - at < (1u << 20) ? (size_t)(total - at) : (1u << 20);
        PM_TRY_GOTO(e, pm_buf_reserve(&r->dict_data, k), done);
        PM_TRY_GOTO(e, orc_in_read(&dict_in, r->dict_data.data + r->dict_data.len, k, "dictionary data"), done);
        r->dict_data.len += k;
        at += k;
    }
done:
    orc_in_free(&dict_in);
    return e;
}

static pm_error *init_strings(orc_col_reader *r, uint32_t enc)
{
    bool is_dict = enc == ORC_ENC_DICTIONARY || enc == ORC_ENC_DICTIONARY_V2;
    if (is_dict && r->col->kind == ORC_BINARY)
        return pm_error_new(PM_ECORRUPT, "column %u: binary column with a dictionary encoding", r->col->id);
    r->dict = is_dict;
    if (r->col->kind == ORC_CHAR) {
        r->trim = 2;
        r->max_chars = r->col->max_length;
    } else if (r->col->kind == ORC_VARCHAR) {
        r->trim = 1;
        r->max_chars = r->col->max_length;
    }
    PM_TRY(open_ints(r, ORC_LENGTH, &r->len_in, &r->len_ints, &r->len_ints_on, false));
    if (is_dict) {
        r->dict_size = r->ctx->encodings[r->col->id].dictionary_size;
        PM_TRY(open_ints(r, ORC_DATA, &r->data_in, &r->data_ints, &r->data_ints_on, false));
        return load_dictionary(r);
    }
    return open_stream(r, ORC_DATA, &r->data_in, true, NULL);
}

static int kind_for(const orc_col *c)
{
    switch (c->kind) {
    case ORC_BOOLEAN: return RK_BOOL;
    case ORC_BYTE: return RK_BYTE;
    case ORC_SHORT: return RK_INT16;
    case ORC_INT:
    case ORC_DATE: return RK_INT32;
    case ORC_LONG: return RK_INT64;
    case ORC_FLOAT: return RK_FLOAT;
    case ORC_DOUBLE: return RK_DOUBLE;
    case ORC_STRING:
    case ORC_VARCHAR:
    case ORC_CHAR:
    case ORC_BINARY: return RK_BYTES;
    case ORC_DECIMAL: return RK_DECIMAL;
    case ORC_TIMESTAMP:
    case ORC_TIMESTAMP_INSTANT: return RK_TIMESTAMP;
    case ORC_STRUCT: return RK_STRUCT;
    case ORC_LIST: return RK_LIST;
    case ORC_MAP: return RK_MAP;
    default: return -1;
    }
}

static const pm_type *child_type(const pm_type *t, const orc_col *c, uint32_t i, const orc_col **fc)
{
    switch (t->id) {
    case PM_TYPE_ARRAY: *fc = c->children[0]; return t->element;
    case PM_TYPE_MAP: *fc = c->children[i]; return i == 0 ? t->key : t->value;
    case PM_TYPE_MULTISET: *fc = c->children[i]; return i == 0 ? t->element : NULL;
    default: break;
    }
    /* ROW: the file field matching field i (id first, then name) */
    const pm_field *f = &t->fields[i];
    *fc = NULL;
    for (uint32_t k = 0; k < c->nchildren; k++)
        if (c->children[k]->has_field_id && c->children[k]->field_id == f->id)
            *fc = c->children[k];
    for (uint32_t k = 0; k < c->nchildren && !*fc; k++)
        if (!strcmp(c->children[k]->name, f->name))
            *fc = c->children[k];
    return f->type;
}

static const pm_type multiset_count = {PM_TYPE_INT, false, 0, 0, 0, NULL, NULL, NULL, 0, NULL};

pm_error *orc_col_reader_new(orc_col_reader **out, const orc_col *col, const pm_type *type, const orc_read_ctx *ctx)
{
    *out = NULL;
    orc_col_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->col = col;
    r->type = type;
    r->ctx = ctx;
    r->kind = kind_for(col);
    pm_error *e = NULL;
    if (r->kind < 0) {
        e = pm_error_new(PM_EUNSUPPORTED, "ORC %s columns are not supported", orc_kind_name(col->kind));
        goto fail;
    }
    if (col->id >= ctx->nencodings) {
        e = pm_error_new(PM_ECORRUPT, "stripe footer has no encoding for column %u", col->id);
        goto fail;
    }
    uint32_t enc = ctx->encodings[col->id].kind;
    if (enc > ORC_ENC_DICTIONARY_V2) {
        e = pm_error_new(PM_EUNSUPPORTED, "column %u: unknown encoding %u", col->id, enc);
        goto fail;
    }
    r->version = enc == ORC_ENC_DIRECT || enc == ORC_ENC_DICTIONARY ? 1 : 2;
    if ((enc == ORC_ENC_DICTIONARY || enc == ORC_ENC_DICTIONARY_V2) && r->kind != RK_BYTES) {
        e = pm_error_new(PM_ECORRUPT, "column %u: %s column with a dictionary encoding", col->id,
                         orc_kind_name(col->kind));
        goto fail;
    }
    PM_TRY_GOTO(e, open_stream(r, ORC_PRESENT, &r->present_in, false, &r->has_present), fail);
    orc_bool_dec_init(&r->present, &r->present_in);
    switch (r->kind) {
    case RK_BOOL:
        PM_TRY_GOTO(e, open_stream(r, ORC_DATA, &r->data_in, true, NULL), fail);
        orc_bool_dec_init(&r->bools, &r->data_in);
        break;
    case RK_BYTE:
        PM_TRY_GOTO(e, open_stream(r, ORC_DATA, &r->data_in, true, NULL), fail);
        orc_byte_dec_init(&r->bytes, &r->data_in);
        break;
    case RK_INT16:
    case RK_INT32:
    case RK_INT64:
        PM_TRY_GOTO(e, open_ints(r, ORC_DATA, &r->data_in, &r->data_ints, &r->data_ints_on, true), fail);
        break;
    case RK_FLOAT:
    case RK_DOUBLE:
        PM_TRY_GOTO(e, open_stream(r, ORC_DATA, &r->data_in, true, NULL), fail);
        break;
    case RK_BYTES:
        PM_TRY_GOTO(e, init_strings(r, enc), fail);
        break;
    case RK_DECIMAL:
        r->scale = type->scale;
        r->precision = type->precision;
        PM_TRY_GOTO(e, open_stream(r, ORC_DATA, &r->data_in, true, NULL), fail);
        PM_TRY_GOTO(e, open_ints(r, ORC_SECONDARY, &r->sec_in, &r->sec_ints, &r->sec_ints_on, true), fail);
        break;
    case RK_TIMESTAMP:
        r->local = col->kind == ORC_TIMESTAMP;
        r->unit = 1000000000 / pm_timestamp_units_per_second(type->precision);
        PM_TRY_GOTO(e, open_ints(r, ORC_DATA, &r->data_in, &r->data_ints, &r->data_ints_on, true), fail);
        PM_TRY_GOTO(e, open_ints(r, ORC_SECONDARY, &r->sec_in, &r->sec_ints, &r->sec_ints_on, false), fail);
        break;
    case RK_LIST:
    case RK_MAP:
        PM_TRY_GOTO(e, open_ints(r, ORC_LENGTH, &r->len_in, &r->len_ints, &r->len_ints_on, false), fail);
        break;
    default:
        break;
    }
    if (r->kind == RK_STRUCT || r->kind == RK_LIST || r->kind == RK_MAP) {
        uint32_t n = r->kind == RK_STRUCT ? (uint32_t)type->nfields : r->kind == RK_LIST ? 1 : 2;
        PM_TRY_GOTO(e, pm_calloc(&r->children, n ? n : 1, sizeof *r->children), fail);
        for (uint32_t i = 0; i < n; i++) {
            const orc_col *fc;
            const pm_type *ct = child_type(type, col, i, &fc);
            if (!ct)
                ct = &multiset_count;
            if (!fc) {
                e = pm_error_new(PM_EINVALID, "struct column %u has no field '%s'", col->id, type->fields[i].name);
                goto fail;
            }
            /* the matched file column must hold values of the child type */
            PM_TRY_GOTO(e, orc_schema_check_read(fc, ct), fail);
            PM_TRY_GOTO(e, orc_col_reader_new(&r->children[i], fc, ct, ctx), fail);
            r->nchildren = i + 1;
        }
    }
    *out = r;
    return NULL;
fail:
    orc_col_reader_free(r);
    return e;
}

void orc_col_reader_free(orc_col_reader *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->nchildren; i++)
        orc_col_reader_free(r->children[i]);
    free(r->children);
    if (r->data_ints_on)
        orc_int_dec_free(&r->data_ints);
    if (r->len_ints_on)
        orc_int_dec_free(&r->len_ints);
    if (r->sec_ints_on)
        orc_int_dec_free(&r->sec_ints);
    orc_in_free(&r->present_in);
    orc_in_free(&r->data_in);
    orc_in_free(&r->len_in);
    orc_in_free(&r->sec_in);
    pm_buf_free(&r->dict_data);
    free(r->dict_off);
    free(r->flags);
    free(r->tmp_flags);
    free(r->vals);
    free(r->vals2);
    free(r);
}

/* ------------------------------------------------------------------ */
/* Column buffers                                                      */

static pm_error *append_validity(pm_column *c, const uint8_t *flags, size_t n, size_t nnull)
{
    if (nnull == 0 && c->validity.len == 0)
        return NULL;
    size_t base = (size_t)c->length;
    size_t need = (base + n + 7) / 8;
    if (c->validity.len == 0) {
        PM_TRY(pm_buf_resize(&c->validity, need));
        memset(c->validity.data, 0xff, base / 8);
        if (base % 8)
            c->validity.data[base / 8] = (uint8_t)((1u << (base % 8)) - 1);
    } else if (c->validity.len < need) {
        PM_TRY(pm_buf_resize(&c->validity, need));
    }
    uint8_t *v = c->validity.data;
    size_t i = 0;
    for (; i < n && (base + i) % 8; i++) {
        size_t bit = base + i;
        if (flags[i])
            v[bit >> 3] |= (uint8_t)(1u << (bit & 7));
        else
            v[bit >> 3] &= (uint8_t)~(1u << (bit & 7));
    }
    /* whole bytes */
    for (; i + 8 <= n; i += 8) {
        uint8_t b = 0;
        for (int k = 0; k < 8; k++)
            b |= (uint8_t)((flags[i + k] != 0) << k);
        v[(base + i) >> 3] = b;
    }
    for (; i < n; i++) {
        size_t bit = base + i;
        if (flags[i])
            v[bit >> 3] |= (uint8_t)(1u << (bit & 7));
        else
            v[bit >> 3] &= (uint8_t)~(1u << (bit & 7));
    }
    c->null_count += (int64_t)nnull;
    return NULL;
}

static int64_t last_offset(const pm_column *c)
{
    int32_t v;
    memcpy(&v, c->offsets.data + c->offsets.len - 4, 4);
    return v;
}

static pm_error *start_offsets(pm_column *c)
{
    if (c->offsets.len == 0)
        return pm_buf_append_u32le(&c->offsets, 0);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Validity                                                            */

static pm_error *read_validity(orc_col_reader *r, size_t n, const uint8_t *parent, size_t *k, size_t *real_nulls)
{
    PM_TRY(orc_reserve(&r->flags, &r->flags_cap, n ? n : 1, 1));
    uint8_t *f = r->flags;
    if (!r->has_present) {
        if (parent)
            memcpy(f, parent, n);
        else
            memset(f, 1, n);
        *real_nulls = 0;
    } else if (!parent) {
        PM_TRY(orc_bool_dec_next(&r->present, f, n));
        size_t z = 0;
        for (size_t i = 0; i < n; i++)
            z += !f[i];
        *real_nulls = z;
    } else {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            m += parent[i] != 0;
        PM_TRY(orc_reserve(&r->tmp_flags, &r->tmp_cap, m ? m : 1, 1));
        PM_TRY(orc_bool_dec_next(&r->present, r->tmp_flags, m));
        size_t j = 0, z = 0;
        for (size_t i = 0; i < n; i++) {
            if (parent[i]) {
                f[i] = r->tmp_flags[j++];
                z += !f[i];
            } else {
                f[i] = 0;
            }
        }
        *real_nulls = z;
    }
    size_t valid = 0;
    for (size_t i = 0; i < n; i++)
        valid += f[i];
    *k = valid;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Values                                                              */

static pm_error *ints(orc_col_reader *r, orc_int_dec *d, size_t k, int64_t **out)
{
    PM_TRY(orc_reserve(&r->vals, &r->vals_cap, k ? k : 1, sizeof *r->vals));
    PM_TRY(orc_int_dec_next(d, r->vals, k));
    *out = r->vals;
    return NULL;
}

static pm_error *read_fixed(orc_col_reader *r, size_t n, size_t k, pm_column *out)
{
    int w = pm_type_value_width(r->type);
    size_t base = (size_t)out->length;
    PM_TRY(pm_buf_resize(&out->values, (base + n) * (size_t)w));
    uint8_t *dst = out->values.data + base * (size_t)w;
    const uint8_t *f = r->flags;
    switch (r->kind) {
    case RK_BYTE: {
        PM_TRY(orc_reserve(&r->tmp_flags, &r->tmp_cap, k ? k : 1, 1));
        PM_TRY(orc_byte_dec_next(&r->bytes, r->tmp_flags, k));
        for (size_t i = 0, j = 0; i < n; i++)
            dst[i] = f[i] ? r->tmp_flags[j++] : 0;
        return NULL;
    }
    case RK_INT16:
    case RK_INT32:
    case RK_INT64: {
        int64_t *v;
        PM_TRY(ints(r, &r->data_ints, k, &v));
        int64_t lo = r->kind == RK_INT16 ? INT16_MIN : r->kind == RK_INT32 ? INT32_MIN : INT64_MIN;
        int64_t hi = r->kind == RK_INT16 ? INT16_MAX : r->kind == RK_INT32 ? INT32_MAX : INT64_MAX;
        for (size_t j = 0; j < k; j++)
            if (v[j] < lo || v[j] > hi)
                return pm_error_new(PM_ECORRUPT, "column %u: %s value %lld out of range", r->col->id,
                                    orc_kind_name(r->col->kind), (long long)v[j]);
        for (size_t i = 0, j = 0; i < n; i++) {
            int64_t x = f[i] ? v[j++] : 0;
            if (w == 2) {
                int16_t y = (int16_t)x;
                memcpy(dst + 2 * i, &y, 2);
            } else if (w == 4) {
                int32_t y = (int32_t)x;
                memcpy(dst + 4 * i, &y, 4);
            } else {
                memcpy(dst + 8 * i, &x, 8);
            }
        }
        return NULL;
    }
    case RK_FLOAT:
    case RK_DOUBLE: {
        size_t vw = r->kind == RK_FLOAT ? 4 : 8;
        PM_TRY(orc_reserve(&r->vals, &r->vals_cap, k ? k : 1, sizeof *r->vals));
        uint8_t *raw = (uint8_t *)r->vals;
        PM_TRY(orc_in_read(&r->data_in, raw, k * vw, "floating point values"));
        for (size_t i = 0, j = 0; i < n; i++) {
            if (f[i])
                memcpy(dst + vw * i, raw + vw * j++, vw); /* IEEE little endian, as in memory */
        }
        return NULL;
    }
    default:
        return pm_error_new(PM_EINTERNAL, "read_fixed: kind %d", r->kind);
    }
}

static pm_error *read_bools(orc_col_reader *r, size_t n, size_t k, pm_column *out)
{
    size_t base = (size_t)out->length;
    PM_TRY(pm_buf_resize(&out->values, (base + n + 7) / 8));
    PM_TRY(orc_reserve(&r->tmp_flags, &r->tmp_cap, k ? k : 1, 1));
    PM_TRY(orc_bool_dec_next(&r->bools, r->tmp_flags, k));
    uint8_t *v = out->values.data;
    for (size_t i = 0, j = 0; i < n; i++) {
        size_t bit = base + i;
        bool b = r->flags[i] ? r->tmp_flags[j++] != 0 : false;
        if (b)
            v[bit >> 3] |= (uint8_t)(1u << (bit & 7));
        else
            v[bit >> 3] &= (uint8_t)~(1u << (bit & 7));
    }
    return NULL;
}

/* Bytes of a string value after orc-core's char/varchar adjustments. */
static size_t adjust_len(const orc_col_reader *r, const uint8_t *p, size_t len)
{
    if (r->trim == 0)
        return len;
    /* cut after max_chars UTF-8 characters */
    int64_t chars = 0;
    for (size_t i = 0; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            if (chars == r->max_chars) {
                len = i;
                break;
            }
            chars++;
        }
    }
    if (r->trim == 2)
        while (len > 0 && p[len - 1] == ' ')
            len--;
    return len;
}

static pm_error *read_bytes(orc_col_reader *r, size_t n, size_t k, pm_column *out)
{
    PM_TRY(start_offsets(out));
    int64_t *v;
    PM_TRY(ints(r, r->dict ? &r->data_ints : &r->len_ints, k, &v));
    int64_t end = last_offset(out);
    const uint8_t *f = r->flags;
    uint64_t sum = 0;
    if (r->dict) {
        for (size_t j = 0; j < k; j++) {
            if (v[j] < 0 || (uint64_t)v[j] >= r->dict_size)
                return pm_error_new(PM_ECORRUPT, "column %u: dictionary id %lld outside a dictionary of %u entries",
                                    r->col->id, (long long)v[j], r->dict_size);
            sum += (uint64_t)(r->dict_off[v[j] + 1] - r->dict_off[v[j]]);
        }
    } else {
        for (size_t j = 0; j < k; j++) {
            if (v[j] < 0 || (uint64_t)v[j] > r->ctx->max_value_bytes)
                return pm_error_new(PM_ECORRUPT, "column %u: value of %lld bytes", r->col->id, (long long)v[j]);
            sum += (uint64_t)v[j];
        }
    }
    if (sum > (uint64_t)INT32_MAX - (uint64_t)end)
        return pm_error_new(PM_EUNSUPPORTED, "column %u: more than 2 GiB of values in one batch", r->col->id);
    PM_TRY(pm_buf_reserve(&out->offsets, n * 4));
    PM_TRY(pm_buf_reserve(&out->data, (size_t)sum ? (size_t)sum : 1));
    uint8_t *data = out->data.data;
    size_t at = out->data.len;
    int32_t *offs = (int32_t *)(void *)(out->offsets.data + out->offsets.len);
    if (!r->dict && r->trim == 0) {
        /* direct values follow each other in DATA: one copy for all */
        PM_TRY(orc_in_read(&r->data_in, data + at, (size_t)sum, "string data"));
        for (size_t i = 0, j = 0; i < n; i++) {
            if (f[i])
                end += v[j++];
            offs[i] = (int32_t)end;
        }
        at += (size_t)sum;
    } else {
        for (size_t i = 0, j = 0; i < n; i++) {
            if (f[i]) {
                size_t len;
                if (r->dict) {
                    int64_t id = v[j++];
                    len = (size_t)(r->dict_off[id + 1] - r->dict_off[id]);
                    if (len)
                        memcpy(data + at, r->dict_data.data + r->dict_off[id], len);
                } else {
                    len = (size_t)v[j++];
                    if (len)
                        PM_TRY(orc_in_read(&r->data_in, data + at, len, "string data"));
                }
                len = adjust_len(r, data + at, len);
                at += len;
                end += (int64_t)len;
            }
            offs[i] = (int32_t)end;
        }
    }
    out->data.len = at;
    out->offsets.len += n * 4;
    return NULL;
}

static __int128 pow10_table(int e)
{
    __int128 p = 1;
    for (int i = 0; i < e; i++)
        p *= 10;
    return p;
}

static pm_error *read_decimals(orc_col_reader *r, size_t n, size_t k, pm_column *out)
{
    size_t base = (size_t)out->length;
    PM_TRY(pm_buf_resize(&out->values, (base + n) * 16));
    int64_t *scales;
    PM_TRY(ints(r, &r->sec_ints, k, &scales));
    __int128 bound = pow10_table(r->precision);
    uint8_t *dst = out->values.data + base * 16;
    for (size_t i = 0, j = 0; i < n; i++) {
        if (!r->flags[i])
            continue;
        __int128 v;
        PM_TRY(orc_read_varint128(&r->data_in, &v));
        int64_t s = scales[j++];
        if (s < r->scale) {
            int64_t d = r->scale - s;
            if (d > 38 || (v != 0 && (v >= bound || v <= -bound)))
                return pm_error_new(PM_ECORRUPT, "column %u: decimal does not fit (%d, %d)", r->col->id, r->precision,
                                    r->scale);
            __int128 m = pow10_table((int)d);
            if (v != 0 && (v > bound / m || v < -bound / m))
                return pm_error_new(PM_ECORRUPT, "column %u: decimal does not fit (%d, %d)", r->col->id, r->precision,
                                    r->scale);
            v *= m;
        } else if (s > r->scale) {
            int64_t d = s - r->scale;
            if (d > 38) {
                v = 0;
            } else {
                __int128 m = pow10_table((int)d);
                __int128 q = v / m, rem = v % m;
                __int128 ar = rem < 0 ? -rem : rem;
                if (ar * 2 >= m)
                    q += v < 0 ? -1 : 1;
                v = q;
            }
        }
        if (v >= bound || v <= -bound)
            return pm_error_new(PM_ECORRUPT, "column %u: decimal value exceeds precision %d", r->col->id,
                                r->precision);
        memcpy(dst + 16 * i, &v, 16);
    }
    return NULL;
}

static pm_error *read_timestamps(orc_col_reader *r, size_t n, size_t k, pm_column *out)
{
    size_t base_row = (size_t)out->length;
    PM_TRY(pm_buf_resize(&out->values, (base_row + n) * 8));
    int64_t *secs;
    PM_TRY(ints(r, &r->data_ints, k, &secs));
    PM_TRY(orc_reserve(&r->vals2, &r->vals2_cap, k ? k : 1, sizeof *r->vals2));
    PM_TRY(orc_int_dec_next(&r->sec_ints, r->vals2, k));
    int64_t base = r->local ? r->ctx->writer_base : ORC_TIMESTAMP_BASE;
    uint8_t *dst = out->values.data + base_row * 8;
    for (size_t i = 0, j = 0; i < n; i++) {
        if (!r->flags[i])
            continue;
        /* nanos are unsigned in the format, but pyarrow writes negative
         * ones for times before 1970; orc-core and the C++ reader both
         * shift them arithmetically, so do we */
        int64_t enc = r->vals2[j];
        int64_t s = secs[j++];
        int64_t nanos = enc >> 3;
        int zeros = (int)(enc & 7);
        if (zeros)
            for (int z = 0; z <= zeros && nanos > -1000000000 && nanos < 1000000000; z++)
                nanos *= 10;
        if (nanos <= -1000000000 || nanos >= 1000000000)
            return pm_error_new(PM_ECORRUPT, "column %u: timestamp nanoseconds out of range", r->col->id);
        if (s > INT64_MAX / 4 || s < INT64_MIN / 4)
            return pm_error_new(PM_EUNSUPPORTED, "column %u: timestamp seconds %lld out of range", r->col->id,
                                (long long)s);
        int64_t sec = s + base;
        if (sec < 0 && nanos > 999999)
            sec -= 1;
        if (r->local)
            sec += orc_tz_offset(r->ctx->writer_tz, nanos < 0 ? sec - 1 : sec);
        int64_t x;
        if (sec > -9000000000LL && sec < 9000000000LL) {
            x = pm_floor_div(sec * 1000000000 + nanos, r->unit);
        } else {
            __int128 total = (__int128)sec * 1000000000 + nanos;
            __int128 q = total >= 0 ? total / r->unit : -((-total + r->unit - 1) / r->unit);
            if (q > INT64_MAX || q < INT64_MIN)
                return pm_error_new(PM_EUNSUPPORTED, "column %u: timestamp out of the range of its precision",
                                    r->col->id);
            x = (int64_t)q;
        }
        memcpy(dst + 8 * i, &x, 8);
    }
    return NULL;
}

static pm_error *read_lengths(orc_col_reader *r, size_t n, size_t k, pm_column *out, size_t *total)
{
    PM_TRY(start_offsets(out));
    int64_t *v;
    PM_TRY(ints(r, &r->len_ints, k, &v));
    uint64_t sum = 0;
    for (size_t j = 0; j < k; j++) {
        if (v[j] < 0)
            return pm_error_new(PM_ECORRUPT, "column %u: negative length %lld", r->col->id, (long long)v[j]);
        sum += (uint64_t)v[j];
        if (sum > r->ctx->max_elements)
            return pm_error_new(PM_EUNSUPPORTED, "column %u: more than %zu elements in one batch (use smaller batches)",
                                r->col->id, r->ctx->max_elements);
    }
    int64_t end = last_offset(out);
    if (sum > (uint64_t)INT32_MAX - (uint64_t)end)
        return pm_error_new(PM_EUNSUPPORTED, "column %u: more than 2147483647 elements (int32 offsets)", r->col->id);
    PM_TRY(pm_buf_reserve(&out->offsets, n * 4));
    int32_t *offs = (int32_t *)(void *)(out->offsets.data + out->offsets.len);
    for (size_t i = 0, j = 0; i < n; i++) {
        if (r->flags[i])
            end += v[j++];
        offs[i] = (int32_t)end;
    }
    out->offsets.len += n * 4;
    *total = (size_t)sum;
    return NULL;
}

pm_error *orc_col_reader_read(orc_col_reader *r, size_t n, const uint8_t *parent, pm_column *out)
{
    if (n == 0)
        return NULL;
    size_t k, real_nulls;
    PM_TRY(read_validity(r, n, parent, &k, &real_nulls));
    if (real_nulls && !r->type->nullable)
        return pm_error_new(PM_ECORRUPT, "column %u (%s): null in a NOT NULL field", r->col->id, col_name(r));
    pm_error *e = NULL;
    switch (r->kind) {
    case RK_BOOL: e = read_bools(r, n, k, out); break;
    case RK_BYTES: e = read_bytes(r, n, k, out); break;
    case RK_DECIMAL: e = read_decimals(r, n, k, out); break;
    case RK_TIMESTAMP: e = read_timestamps(r, n, k, out); break;
    case RK_STRUCT: {
        /* the members see this struct's validity (their own scratch is separate) */
        for (uint32_t i = 0; i < r->nchildren && !e; i++) {
            e = orc_col_reader_read(r->children[i], n, r->flags, out->children[i]);
            if (e && r->type->id == PM_TYPE_ROW)
                e = pm_error_wrap(e, 0, "field '%s'", r->type->fields[i].name);
        }
        break;
    }
    case RK_LIST:
    case RK_MAP: {
        size_t total;
        e = read_lengths(r, n, k, out, &total);
        for (uint32_t i = 0; i < r->nchildren && !e; i++)
            e = orc_col_reader_read(r->children[i], total, NULL, out->children[i]);
        break;
    }
    default: e = read_fixed(r, n, k, out); break;
    }
    if (e)
        return pm_error_wrap(e, 0, "column %u (%s)", r->col->id, col_name(r));
    PM_TRY(append_validity(out, r->flags, n, n - k));
    out->length += (int64_t)n;
    return NULL;
}
