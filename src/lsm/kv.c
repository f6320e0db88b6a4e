/*
 * lsm/kv.c — KeyValue layouts, the merge sort-key encoder, normalized file
 * key bounds and batch sharing (encodings described in kv.h).
 */
#include "lsm/kv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "types/binary_row.h"
#include "types/normkey.h"

const char *pm_kind_name(uint8_t k)
{
    switch (k) {
    case PM_KIND_INSERT: return "+I";
    case PM_KIND_UPDATE_BEFORE: return "-U";
    case PM_KIND_UPDATE_AFTER: return "+U";
    case PM_KIND_DELETE: return "-D";
    default: return "?";
    }
}

/* ------------------------------------------------------------------ */
/* Layouts                                                             */

static pm_error *dup_cols(size_t **dst, const size_t *src, size_t n)
{
    *dst = NULL;
    if (n == 0)
        return NULL;
    if (n > PM_KV_MAX_FIELDS)
        return pm_error_new(PM_EINVALID, "KeyValue layout with %zu fields", n);
    *dst = malloc(n * sizeof **dst);
    if (!*dst)
        return pm_oom();
    memcpy(*dst, src, n * sizeof **dst);
    return NULL;
}

void pm_kv_layout_clear(pm_kv_layout *l)
{
    if (!l)
        return;
    free(l->key_cols);
    free(l->value_cols);
    free(l->seqf_cols);
    memset(l, 0, sizeof *l);
}

pm_error *pm_kv_layout_init(pm_kv_layout *l, const size_t *key_cols, size_t nkey, size_t seq_col,
                            size_t kind_col, const size_t *value_cols, size_t nvalue)
{
    memset(l, 0, sizeof *l);
    pm_error *e = dup_cols(&l->key_cols, key_cols, nkey);
    if (!e)
        e = dup_cols(&l->value_cols, value_cols, nvalue);
    if (e) {
        pm_kv_layout_clear(l);
        return e;
    }
    l->nkey = nkey;
    l->nvalue = nvalue;
    l->seq_col = seq_col;
    l->kind_col = kind_col;
    return NULL;
}

pm_error *pm_kv_layout_physical(pm_kv_layout *l, size_t nkey, size_t nvalue)
{
    memset(l, 0, sizeof *l);
    if (nkey > PM_KV_MAX_FIELDS || nvalue > PM_KV_MAX_FIELDS)
        return pm_error_new(PM_EINVALID, "KeyValue layout with %zu key and %zu value fields", nkey, nvalue);
    size_t *k = nkey ? malloc(nkey * sizeof *k) : NULL;
    size_t *v = nvalue ? malloc(nvalue * sizeof *v) : NULL;
    if ((nkey && !k) || (nvalue && !v)) {
        free(k);
        free(v);
        return pm_oom();
    }
    for (size_t i = 0; i < nkey; i++)
        k[i] = i;
    for (size_t j = 0; j < nvalue; j++)
        v[j] = nkey + 2 + j;
    l->key_cols = k;
    l->nkey = nkey;
    l->seq_col = nkey;
    l->kind_col = nkey + 1;
    l->value_cols = v;
    l->nvalue = nvalue;
    return NULL;
}

pm_error *pm_kv_layout_set_seq_fields(pm_kv_layout *l, const size_t *cols, size_t n, bool descending)
{
    size_t *c;
    PM_TRY(dup_cols(&c, cols, n));
    free(l->seqf_cols);
    l->seqf_cols = c;
    l->nseqf = n;
    l->seqf_descending = descending;
    return NULL;
}

pm_error *pm_kv_layout_copy(pm_kv_layout *dst, const pm_kv_layout *src)
{
    PM_TRY(pm_kv_layout_init(dst, src->key_cols, src->nkey, src->seq_col, src->kind_col, src->value_cols,
                             src->nvalue));
    pm_error *e = pm_kv_layout_set_seq_fields(dst, src->seqf_cols, src->nseqf, src->seqf_descending);
    if (e)
        pm_kv_layout_clear(dst);
    return e;
}

pm_error *pm_kv_layout_check(const pm_kv_layout *l, const pm_type *row_type)
{
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "KeyValue batches need a ROW type");
    size_t n = row_type->nfields;
    if (l->seq_col >= n || l->kind_col >= n)
        return pm_error_new(PM_EINVALID, "KeyValue layout: system column index out of range (%zu fields)", n);
    if (row_type->fields[l->seq_col].type->id != PM_TYPE_BIGINT)
        return pm_error_new(PM_EINVALID, "KeyValue layout: column '%s' is not a BIGINT _SEQUENCE_NUMBER",
                            row_type->fields[l->seq_col].name);
    if (row_type->fields[l->kind_col].type->id != PM_TYPE_TINYINT)
        return pm_error_new(PM_EINVALID, "KeyValue layout: column '%s' is not a TINYINT _VALUE_KIND",
                            row_type->fields[l->kind_col].name);
    for (size_t i = 0; i < l->nkey; i++) {
        if (l->key_cols[i] >= n)
            return pm_error_new(PM_EINVALID, "KeyValue layout: key column %zu out of range", l->key_cols[i]);
        PM_TRY(pm_error_wrap(pm_normkey_check_type(row_type->fields[l->key_cols[i]].type), PM_EUNSUPPORTED,
                             "primary key field '%s'", row_type->fields[l->key_cols[i]].name));
    }
    for (size_t i = 0; i < l->nseqf; i++) {
        if (l->seqf_cols[i] >= n)
            return pm_error_new(PM_EINVALID, "KeyValue layout: sequence column %zu out of range", l->seqf_cols[i]);
        PM_TRY(pm_error_wrap(pm_normkey_check_type(row_type->fields[l->seqf_cols[i]].type), PM_EUNSUPPORTED,
                             "sequence field '%s'", row_type->fields[l->seqf_cols[i]].name));
    }
    for (size_t i = 0; i < l->nvalue; i++)
        if (l->value_cols[i] >= n)
            return pm_error_new(PM_EINVALID, "KeyValue layout: value column %zu out of range", l->value_cols[i]);
    return NULL;
}

void pm_kv_rec_at(pm_kv_rec *rec, const pm_batch *b, const pm_kv_layout *l, int64_t row)
{
    rec->batch = b;
    rec->row = row;
    rec->seq = pm_column_i64(b->columns[l->seq_col], row);
    rec->kind = (uint8_t)pm_column_i8(b->columns[l->kind_col], row);
    rec->source = 0;
}

/* ------------------------------------------------------------------ */
/* Sort-key encoder                                                    */

enum { ENC_INT, ENC_BOOL, ENC_F32, ENC_F64, ENC_DEC16, ENC_BYTES };

typedef struct enc_field {
    size_t col;
    uint8_t enc;
    uint8_t width;       /* ENC_INT: 1, 2, 4, 8 */
    bool nullable;
    uint8_t inv;         /* 0x00 or 0xff (descending) */
    const char *name;
} enc_field;

struct pm_kv_keyenc {
    size_t nkey, nseqf;
    enc_field *f;        /* nkey key fields then nseqf sequence fields */
    size_t seq_col;
    bool fixed;          /* every field fixed-width: rows have one length */
    size_t key_width;    /* fixed: bytes of the key part */
    size_t stride;       /* fixed: bytes of a whole sort key */
};

/* Value bytes of a fixed-width field (0 for strings). */
static size_t enc_width(const enc_field *f)
{
    switch (f->enc) {
    case ENC_BOOL: return 1;
    case ENC_INT: return f->width;
    case ENC_F32: return 4;
    case ENC_F64: return 8;
    case ENC_DEC16: return 16;
    default: return 0;
    }
}

static pm_error *enc_field_init(enc_field *f, const pm_type *row_type, size_t col, bool desc)
{
    const pm_type *t = row_type->fields[col].type;
    f->col = col;
    f->nullable = t->nullable;
    f->inv = desc ? 0xff : 0x00;
    f->name = row_type->fields[col].name;
    switch (t->id) {
    case PM_TYPE_BOOLEAN: f->enc = ENC_BOOL; break;
    case PM_TYPE_TINYINT: f->enc = ENC_INT; f->width = 1; break;
    case PM_TYPE_SMALLINT: f->enc = ENC_INT; f->width = 2; break;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: f->enc = ENC_INT; f->width = 4; break;
    case PM_TYPE_BIGINT:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: f->enc = ENC_INT; f->width = 8; break;
    case PM_TYPE_FLOAT: f->enc = ENC_F32; break;
    case PM_TYPE_DOUBLE: f->enc = ENC_F64; break;
    case PM_TYPE_DECIMAL:
        if (t->precision <= 18) {
            f->enc = ENC_INT;
            f->width = 8;
        } else {
            f->enc = ENC_DEC16;
        }
        break;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: f->enc = ENC_BYTES; break;
    default:
        return pm_error_new(PM_EUNSUPPORTED, "%s field '%s' in a sort key", pm_type_id_name(t->id), f->name);
    }
    return NULL;
}

pm_error *pm_kv_keyenc_new(pm_kv_keyenc **out, const pm_kv_layout *l, const pm_type *row_type)
{
    *out = NULL;
    PM_TRY(pm_kv_layout_check(l, row_type));
    pm_kv_keyenc *e = calloc(1, sizeof *e);
    if (!e)
        return pm_oom();
    size_t n = l->nkey + l->nseqf;
    e->f = calloc(n ? n : 1, sizeof *e->f);
    if (!e->f) {
        free(e);
        return pm_oom();
    }
    e->nkey = l->nkey;
    e->nseqf = l->nseqf;
    e->seq_col = l->seq_col;
    pm_error *err = NULL;
    for (size_t i = 0; i < l->nkey && !err; i++)
        err = enc_field_init(&e->f[i], row_type, l->key_cols[i], false);
    for (size_t i = 0; i < l->nseqf && !err; i++)
        err = enc_field_init(&e->f[l->nkey + i], row_type, l->seqf_cols[i], l->seqf_descending);
    if (err) {
        pm_kv_keyenc_free(e);
        return err;
    }
    e->fixed = true;
    for (size_t i = 0; i < n; i++) {
        size_t w = enc_width(&e->f[i]);
        if (!w)
            e->fixed = false;
        w += e->f[i].nullable;
        e->stride += w;
        if (i < e->nkey)
            e->key_width += w;
    }
    e->stride += 8;
    *out = e;
    return NULL;
}

void pm_kv_keyenc_free(pm_kv_keyenc *e)
{
    if (!e)
        return;
    free(e->f);
    free(e);
}

static inline void put_be64(uint8_t *d, uint64_t x)
{
    for (int k = 7; k >= 0; k--) {
        d[k] = (uint8_t)x;
        x >>= 8;
    }
}

static pm_error *enc_one(const enc_field *f, const pm_column *c, int64_t row, pm_buf *out)
{
    bool null = pm_column_is_null(c, row);
    if (null && !f->nullable)
        return pm_error_new(PM_ECORRUPT, "null in NOT NULL key field '%s'", f->name);
    if (f->enc != ENC_BYTES) {
        PM_TRY(pm_buf_reserve(out, 17));
        uint8_t *d = out->data + out->len;
        size_t n = 0;
        if (f->nullable) {
            d[n++] = null ? 0x00 : 0x01;
            if (null) { /* zero padding keeps the width fixed */
                size_t w = enc_width(f);
                memset(d + n, 0, w);
                out->len += n + w;
                return NULL;
            }
        }
        uint64_t u;
        int w;
        switch (f->enc) {
        case ENC_BOOL:
            u = pm_column_bool(c, row) ? 1 : 0;
            w = 1;
            break;
        case ENC_INT: {
            int64_t v;
            switch (f->width) {
            case 1: v = pm_column_i8(c, row); break;
            case 2: v = pm_column_i16(c, row); break;
            case 4: v = pm_column_i32(c, row); break;
            default:
                if (c->type->id == PM_TYPE_DECIMAL) {
                    __int128 x = pm_column_decimal(c, row);
                    if (x < INT64_MIN || x > INT64_MAX)
                        return pm_error_new(PM_ECORRUPT, "decimal key field '%s' out of range", f->name);
                    v = (int64_t)x;
                } else {
                    v = pm_column_i64(c, row);
                }
            }
            w = f->width;
            u = (uint64_t)v ^ ((uint64_t)1 << (8 * w - 1));
            break;
        }
        case ENC_F32: {
            float v = pm_column_f32(c, row);
            uint32_t b;
            if (isnan(v))
                b = 0x7fc00000u;
            else
                memcpy(&b, &v, 4);
            u = (b & 0x80000000u) ? (uint32_t)~b : (b | 0x80000000u);
            w = 4;
            break;
        }
        case ENC_F64: {
            double v = pm_column_f64(c, row);
            uint64_t b;
            if (isnan(v))
                b = 0x7ff8000000000000ull;
            else
                memcpy(&b, &v, 8);
            u = (b >> 63) ? ~b : (b | 0x8000000000000000ull);
            w = 8;
            break;
        }
        default: { /* ENC_DEC16 */
            unsigned __int128 x = (unsigned __int128)pm_column_decimal(c, row) ^ ((unsigned __int128)1 << 127);
            if (f->inv)
                x = ~x;
            put_be64(d + n, (uint64_t)(x >> 64));
            put_be64(d + n + 8, (uint64_t)x);
            out->len += n + 16;
            return NULL;
        }
        }
        if (f->inv)
            u = ~u;
        for (int k = w - 1; k >= 0; k--) {
            d[n + (size_t)k] = (uint8_t)u;
            u >>= 8;
        }
        out->len += n + (size_t)w;
        return NULL;
    }
    if (null)
        return pm_buf_append_byte(out, 0x00);
    size_t len;
    const uint8_t *p = pm_column_bytes(c, row, &len);
    size_t zeros = 0;
    for (size_t i = 0; i < len; i++)
        zeros += p[i] == 0;
    PM_TRY(pm_buf_reserve(out, 1 + len + zeros + 2));
    uint8_t *d = out->data + out->len;
    if (f->nullable)
        *d++ = 0x01;
    uint8_t inv = f->inv;
    if (zeros == 0 && inv == 0) {
        memcpy(d, p, len);
        d += len;
    } else {
        for (size_t i = 0; i < len; i++) {
            *d++ = p[i] ^ inv;
            if (p[i] == 0)
                *d++ = 0xff ^ inv;
        }
    }
    *d++ = inv;
    *d++ = inv;
    out->len = (size_t)(d - out->data);
    return NULL;
}

pm_error *pm_kv_keyenc_row(const pm_kv_keyenc *e, const pm_batch *b, int64_t row, bool with_seq, pm_buf *out,
                           uint32_t *key_len)
{
    size_t start = out->len;
    for (size_t i = 0; i < e->nkey; i++)
        PM_TRY(enc_one(&e->f[i], b->columns[e->f[i].col], row, out));
    *key_len = (uint32_t)(out->len - start);
    if (!with_seq)
        return NULL;
    for (size_t i = 0; i < e->nseqf; i++)
        PM_TRY(enc_one(&e->f[e->nkey + i], b->columns[e->f[e->nkey + i].col], row, out));
    PM_TRY(pm_buf_reserve(out, 8));
    put_be64(out->data + out->len, (uint64_t)pm_column_i64(b->columns[e->seq_col], row) ^ (1ull << 63));
    out->len += 8;
    return NULL;
}

static inline void put_be(uint8_t *d, uint64_t u, int w)
{
    switch (w) {
    case 8: {
        uint64_t x = __builtin_bswap64(u);
        memcpy(d, &x, 8);
        break;
    }
    case 4: {
        uint32_t x = __builtin_bswap32((uint32_t)u);
        memcpy(d, &x, 4);
        break;
    }
    case 2: {
        uint16_t x = __builtin_bswap16((uint16_t)u);
        memcpy(d, &x, 2);
        break;
    }
    default: d[0] = (uint8_t)u;
    }
}

/* One fixed-width field for all rows, column-wise, at byte `pos` of each
 * row of `stride` bytes. */
static pm_error *enc_column_fixed(const enc_field *f, const pm_column *c, int64_t n, uint8_t *d, size_t stride)
{
    bool nulls = c->null_count > 0;
    if (nulls && !f->nullable)
        return pm_error_new(PM_ECORRUPT, "null in NOT NULL key field '%s'", f->name);
    size_t w = enc_width(f);
    uint64_t inv = f->inv ? ~(uint64_t)0 : 0;
    for (int64_t r = 0; r < n; r++, d += stride) {
        uint8_t *p = d;
        if (f->nullable) {
            bool null = nulls && pm_column_is_null(c, r);
            *p++ = null ? 0x00 : 0x01;
            if (null) {
                memset(p, 0, w);
                continue;
            }
        }
        uint64_t u;
        switch (f->enc) {
        case ENC_BOOL: u = pm_column_bool(c, r) ? 1 : 0; break;
        case ENC_INT: {
            int64_t v;
            switch (f->width) {
            case 1: v = pm_column_i8(c, r); break;
            case 2: v = pm_column_i16(c, r); break;
            case 4: v = pm_column_i32(c, r); break;
            default:
                if (c->type->id == PM_TYPE_DECIMAL) {
                    __int128 x = pm_column_decimal(c, r);
                    if (x < INT64_MIN || x > INT64_MAX)
                        return pm_error_new(PM_ECORRUPT, "decimal key field '%s' out of range", f->name);
                    v = (int64_t)x;
                } else {
                    v = pm_column_i64(c, r);
                }
            }
            u = (uint64_t)v ^ ((uint64_t)1 << (8 * f->width - 1));
            break;
        }
        case ENC_F32: {
            float v = pm_column_f32(c, r);
            uint32_t b;
            if (isnan(v))
                b = 0x7fc00000u;
            else
                memcpy(&b, &v, 4);
            u = (b & 0x80000000u) ? (uint32_t)~b : (b | 0x80000000u);
            break;
        }
        case ENC_F64: {
            double v = pm_column_f64(c, r);
            uint64_t b;
            if (isnan(v))
                b = 0x7ff8000000000000ull;
            else
                memcpy(&b, &v, 8);
            u = (b >> 63) ? ~b : (b | 0x8000000000000000ull);
            break;
        }
        default: { /* ENC_DEC16 */
            unsigned __int128 x = (unsigned __int128)pm_column_decimal(c, r) ^ ((unsigned __int128)1 << 127);
            if (f->inv)
                x = ~x;
            put_be(p, (uint64_t)(x >> 64), 8);
            put_be(p + 8, (uint64_t)x, 8);
            continue;
        }
        }
        put_be(p, u ^ inv, (int)w);
    }
    return NULL;
}

pm_error *pm_kv_keyenc_batch(const pm_kv_keyenc *e, const pm_batch *b, pm_buf *keys, uint32_t *off,
                             uint32_t *klen)
{
    int64_t n = b->num_rows;
    pm_buf_clear(keys);
    if (!e->fixed) {
        for (int64_t r = 0; r < n; r++) {
            if (keys->len > UINT32_MAX - 65536)
                return pm_error_new(PM_EUNSUPPORTED, "sort keys of one batch exceed 4 GiB; use smaller batches");
            off[r] = (uint32_t)keys->len;
            PM_TRY(pm_kv_keyenc_row(e, b, r, true, keys, &klen[r]));
        }
        off[n] = (uint32_t)keys->len;
        return NULL;
    }
    if ((uint64_t)n * e->stride > UINT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "sort keys of one batch exceed 4 GiB; use smaller batches");
    size_t total = (size_t)n * e->stride;
    PM_TRY(pm_buf_reserve(keys, total));
    uint8_t *d = keys->data;
    size_t pos = 0;
    for (size_t i = 0; i < e->nkey + e->nseqf; i++) {
        const enc_field *f = &e->f[i];
        PM_TRY(enc_column_fixed(f, b->columns[f->col], n, d + pos, e->stride));
        pos += enc_width(f) + f->nullable;
    }
    const pm_column *sc = b->columns[e->seq_col];
    for (int64_t r = 0; r < n; r++)
        put_be(d + (size_t)r * e->stride + pos, (uint64_t)pm_column_i64(sc, r) ^ (1ull << 63), 8);
    keys->len = total;
    for (int64_t r = 0; r <= n; r++)
        off[r] = (uint32_t)((size_t)r * e->stride);
    for (int64_t r = 0; r < n; r++)
        klen[r] = (uint32_t)e->key_width;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* File key bounds                                                     */

pm_error *pm_kv_normkey_from_binrow(const pm_type *key_type, const uint8_t *data, size_t len, pm_buf *out)
{
    if (!key_type || key_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "key type must be a ROW");
    pm_binrow r;
    PM_TRY(pm_binrow_deserialize(&r, data, len, (int32_t)key_type->nfields));
    for (size_t i = 0; i < key_type->nfields; i++) {
        const pm_type *t = key_type->fields[i].type;
        int32_t k = (int32_t)i;
        if (pm_binrow_is_null(&r, k)) {
            PM_TRY(pm_normkey_put_null(out, false));
            continue;
        }
        switch (t->id) {
        case PM_TYPE_BOOLEAN: PM_TRY(pm_normkey_put_bool(out, pm_binrow_bool(&r, k), false, false)); break;
        case PM_TYPE_TINYINT: PM_TRY(pm_normkey_put_int(out, pm_binrow_i8(&r, k), 1, false, false)); break;
        case PM_TYPE_SMALLINT: PM_TRY(pm_normkey_put_int(out, pm_binrow_i16(&r, k), 2, false, false)); break;
        case PM_TYPE_INT:
        case PM_TYPE_DATE:
        case PM_TYPE_TIME: PM_TRY(pm_normkey_put_int(out, pm_binrow_i32(&r, k), 4, false, false)); break;
        case PM_TYPE_BIGINT: PM_TRY(pm_normkey_put_int(out, pm_binrow_i64(&r, k), 8, false, false)); break;
        case PM_TYPE_FLOAT: PM_TRY(pm_normkey_put_f32(out, pm_binrow_f32(&r, k), false, false)); break;
        case PM_TYPE_DOUBLE: PM_TRY(pm_normkey_put_f64(out, pm_binrow_f64(&r, k), false, false)); break;
        case PM_TYPE_DECIMAL: {
            __int128 v;
            PM_TRY(pm_binrow_decimal(&r, k, t->precision, &v));
            PM_TRY(pm_normkey_put_decimal(out, v, t->precision, false, false));
            break;
        }
        case PM_TYPE_TIMESTAMP:
        case PM_TYPE_TIMESTAMP_LTZ: {
            int64_t ms, v;
            int32_t nanos;
            PM_TRY(pm_binrow_timestamp(&r, k, t->precision, &ms, &nanos));
            PM_TRY(pm_timestamp_from_millis_nanos(ms, nanos, t->precision, &v));
            PM_TRY(pm_normkey_put_int(out, v, 8, false, false));
            break;
        }
        case PM_TYPE_CHAR:
        case PM_TYPE_VARCHAR:
        case PM_TYPE_BINARY:
        case PM_TYPE_VARBINARY:
        case PM_TYPE_BLOB: {
            const uint8_t *p;
            size_t n;
            PM_TRY(pm_binrow_bytes(&r, k, &p, &n));
            PM_TRY(pm_normkey_put_bytes(out, p, n, false, false));
            break;
        }
        default:
            return pm_error_new(PM_EUNSUPPORTED, "%s key field '%s'", pm_type_id_name(t->id),
                                key_type->fields[i].name);
        }
    }
    return NULL;
}

int pm_kv_keycmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Batches                                                             */

pm_error *pm_kv_batch_share(const pm_batch *b, pm_batch **out)
{
    *out = NULL;
    pm_batch *s = calloc(1, sizeof *s);
    if (!s)
        return pm_oom();
    s->type = pm_type_clone(b->type);
    s->columns = calloc(b->ncolumns ? b->ncolumns : 1, sizeof *s->columns);
    if (!s->type || !s->columns) {
        pm_type_free(s->type);
        free(s->columns);
        free(s);
        return pm_oom();
    }
    s->ncolumns = b->ncolumns;
    for (size_t i = 0; i < b->ncolumns; i++)
        s->columns[i] = pm_column_retain(b->columns[i]);
    s->num_rows = b->num_rows;
    *out = s;
    return NULL;
}
