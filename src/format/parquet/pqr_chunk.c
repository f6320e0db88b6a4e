/*
 * format/parquet/pqr_chunk.c — the values of one column chunk (see
 * pqr_chunk.h); its pages are read by the page reader (page_reader.c).
 *
 * Values of the current page are decoded lazily, n at a time, with the
 * decoder the page reader set up for the page's encoding: straight into
 * the destination when no conversion is needed and through `scratch`
 * otherwise (conversions of physical values to the leaf's Paimon layout:
 * decimals from big-endian bytes, FLOAT16, timestamps, ...).  Dictionary
 * pages are decoded once (pqr_chunk_load_dictionary) and kept in the
 * target layout, so dictionary-encoded pages decode as a gather of
 * indices.
 */
#include "format/parquet/pqr_chunk.h"

#include <math.h>
#include <string.h>
#include "base/mem.h"
#include "format/parquet/pq_encode.h"

void pqr_chunk_init(pqr_chunk *c, const pqr_leaf *leaf, pm_codec_ctx *codec, size_t max_page)
{
    memset(c, 0, sizeof *c);
    c->leaf = leaf;
    c->codec = codec;
    c->max_page = max_page;
}

void pqr_chunk_free(pqr_chunk *c)
{
    pm_buf *bufs[] = {&c->raw, &c->dict_fixed, &c->dict_off, &c->dict_data, &c->page, &c->def, &c->rep,
                      &c->lens, &c->prefix, &c->prev, &c->scratch, &c->scratch_off, &c->scratch_data, &c->idx};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        pm_buf_free(bufs[i]);
    pm_column_release(c->dict_col);
    c->dict_col = NULL;
}

void pqr_chunk_take_buffers(pqr_chunk *c, pqr_chunk *from)
{
    pm_buf *to[] = {&c->raw, &c->dict_fixed, &c->dict_off, &c->dict_data, &c->page, &c->def, &c->rep,
                    &c->lens, &c->prefix, &c->prev, &c->scratch, &c->scratch_off, &c->scratch_data, &c->idx};
    pm_buf *fr[] = {&from->raw, &from->dict_fixed, &from->dict_off, &from->dict_data, &from->page, &from->def,
                    &from->rep, &from->lens, &from->prefix, &from->prev, &from->scratch, &from->scratch_off,
                    &from->scratch_data, &from->idx};
    for (size_t i = 0; i < sizeof to / sizeof to[0]; i++) {
        if (fr[i]->cap == 0 || to[i]->cap != 0 || to[i]->data)
            continue; /* nothing owned to give, or the slot is in use */
        *to[i] = *fr[i];
        to[i]->len = 0;
        pm_buf_init(fr[i]);
    }
}

size_t pqr_chunk_memory(const pqr_chunk *c)
{
    const pm_buf *bufs[] = {&c->raw, &c->dict_fixed, &c->dict_off, &c->dict_data, &c->page, &c->def, &c->rep,
                            &c->lens, &c->prefix, &c->prev, &c->scratch, &c->scratch_off, &c->scratch_data, &c->idx};
    size_t n = 0;
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        n += bufs[i]->cap;
    return n;
}

pm_error *pqr_chunk_bad_encoding(const pqr_chunk *c, int32_t enc)
{
    return pm_error_new(PM_EUNSUPPORTED, "encoding %s for %s values", pq_encoding_name(enc),
                        pq_type_name(c->leaf->ptype));
}

pm_error *pqr_chunk_window(pqr_chunk *c, size_t need)
{
    size_t left = c->len - c->raw_pos;
    if (need > left)
        need = left;
    if (c->raw_pos >= c->win_start && c->raw_pos + need <= c->win_start + c->win_len)
        return NULL;
    if (!c->read)
        return pm_error_new(PM_ECORRUPT, "column chunk bytes [%zu, +%zu) are not loaded", c->raw_pos, need);
    size_t n = need > c->window ? need : c->window;
    if (n > left)
        n = left;
    c->raw.len = 0;
    PM_TRY(pm_buf_reserve(&c->raw, n + 1));
    PM_TRY(c->read(c->read_ctx, c->file_off + c->raw_pos, c->raw.data, n));
    c->raw.len = n;
    c->data = c->raw.data;
    c->win_start = c->raw_pos;
    c->win_len = n;
    return NULL;
}

void pqr_chunk_start(pqr_chunk *c, const pq_column_meta *cm)
{
    c->cm = cm;
    c->raw_pos = 0;
    if (c->read) {
        c->win_start = 0;
        c->win_len = 0;
    } else {
        c->win_start = 0;
        c->win_len = c->len;
    }
    c->entries_seen = 0;
    c->page_no = 0;
    c->records = 0;
    memset(c->open_inst, 0, sizeof c->open_inst);
    c->has_dict = false;
    c->dict_n = 0;
    pm_column_release(c->dict_col);
    c->dict_col = NULL;
    c->n = c->pos = 0;
    c->nvalid = c->vused = 0;
}

/* ------------------------------------------------------------------ */
/* Conversions                                                         */
/* ------------------------------------------------------------------ */

static pm_error *be_to_i128(const uint8_t *p, size_t len, __int128 *out)
{
    if (len == 0) {
        *out = 0;
        return NULL;
    }
    /* Bytes beyond 16 must only repeat the sign. */
    if (len > 16) {
        uint8_t sign = (p[len - 16] & 0x80) ? 0xff : 0x00;
        for (size_t i = 0; i < len - 16; i++)
            if (p[i] != sign)
                return pm_error_new(PM_EUNSUPPORTED, "decimal value of %zu bytes does not fit 128 bits", len);
        p += len - 16;
        len = 16;
    }
    unsigned __int128 v = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < len; i++)
        v = v << 8 | p[i];
    *out = (__int128)v;
    return NULL;
}

static float half_to_float(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)man, -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexpf((float)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

#define JULIAN_EPOCH 2440588LL
#define NANOS_PER_DAY 86400000000000LL

/* Fixed-width physical values (pwidth bytes each) → target fixed values. */
static pm_error *convert_fixed(const pqr_leaf *L, const uint8_t *in, size_t n, uint8_t *out)
{
    switch (L->conv) {
    case PQC_NONE:
        memcpy(out, in, n * (size_t)L->width);
        return NULL;
    case PQC_I32_I8:
        for (size_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, in + 4 * i, 4);
            out[i] = (uint8_t)(int8_t)v;
        }
        return NULL;
    case PQC_I32_I16:
        for (size_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, in + 4 * i, 4);
            int16_t s = (int16_t)v;
            memcpy(out + 2 * i, &s, 2);
        }
        return NULL;
    case PQC_U32_I64:
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, in + 4 * i, 4);
            int64_t s = (int64_t)v;
            memcpy(out + 8 * i, &s, 8);
        }
        return NULL;
    case PQC_I32_I128:
        for (size_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, in + 4 * i, 4);
            __int128 s = v;
            memcpy(out + 16 * i, &s, 16);
        }
        return NULL;
    case PQC_I64_I128:
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            memcpy(&v, in + 8 * i, 8);
            __int128 s = v;
            memcpy(out + 16 * i, &s, 16);
        }
        return NULL;
    case PQC_U64_I128:
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, in + 8 * i, 8);
            __int128 s = (__int128)v;
            memcpy(out + 16 * i, &s, 16);
        }
        return NULL;
    case PQC_BE_I128: {
        size_t w = (size_t)L->pwidth;
        for (size_t i = 0; i < n; i++) {
            __int128 s;
            PM_TRY(be_to_i128(in + w * i, w, &s));
            memcpy(out + 16 * i, &s, 16);
        }
        return NULL;
    }
    case PQC_INT96_NS:
        for (size_t i = 0; i < n; i++) {
            int64_t nanos;
            int32_t jd;
            memcpy(&nanos, in + 12 * i, 8);
            memcpy(&jd, in + 12 * i + 8, 4);
            __int128 t = (__int128)((int64_t)jd - JULIAN_EPOCH) * NANOS_PER_DAY + nanos;
            if (t < INT64_MIN || t > INT64_MAX)
                return pm_error_new(PM_EUNSUPPORTED,
                                    "INT96 timestamp (julian day %d) is outside the range of TIMESTAMP(9) "
                                    "(years 1677..2262)", jd);
            int64_t s = (int64_t)t;
            memcpy(out + 8 * i, &s, 8);
        }
        return NULL;
    case PQC_MICROS_MS32:
    case PQC_NANOS_MS32: {
        int64_t div = L->conv == PQC_MICROS_MS32 ? 1000 : 1000000;
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            memcpy(&v, in + 8 * i, 8);
            int64_t q = v / div;
            if (v % div < 0)
                q--;
            if (q < INT32_MIN || q > INT32_MAX)
                return pm_error_new(PM_ECORRUPT, "TIME value %lld out of range", (long long)v);
            int32_t s = (int32_t)q;
            memcpy(out + 4 * i, &s, 4);
        }
        return NULL;
    }
    case PQC_F16_F32:
        for (size_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, in + 2 * i, 2);
            float f = half_to_float(h);
            memcpy(out + 4 * i, &f, 4);
        }
        return NULL;
    }
    return pm_error_new(PM_EINTERNAL, "unknown conversion %d", (int)L->conv);
}

/* Variable-width physical values (offsets relative into `data`) → target. */
static pm_error *convert_var(const pqr_leaf *L, const int32_t *off, const uint8_t *data, size_t n, const pqr_dest *d)
{
    if (L->vkind == PQR_VAR) {
        size_t total = (size_t)off[n];
        PM_TRY(pm_buf_append(d->data, data, total));
        memcpy(d->offsets, off, (n + 1) * sizeof *off);
        return NULL;
    }
    if (L->conv == PQC_BE_I128) {
        for (size_t i = 0; i < n; i++) {
            __int128 s;
            PM_TRY(be_to_i128(data + off[i], (size_t)(off[i + 1] - off[i]), &s));
            memcpy(d->fixed + 16 * i, &s, 16);
        }
        return NULL;
    }
    if (L->conv == PQC_F16_F32) {
        for (size_t i = 0; i < n; i++) {
            if (off[i + 1] - off[i] != 2)
                return pm_error_new(PM_ECORRUPT, "FLOAT16 value of %d bytes", off[i + 1] - off[i]);
            uint16_t h;
            memcpy(&h, data + off[i], 2);
            float f = half_to_float(h);
            memcpy(d->fixed + 4 * i, &f, 4);
        }
        return NULL;
    }
    return pm_error_new(PM_EINTERNAL, "byte values for a fixed target without conversion");
}

pm_error *pqr_convert_one(const pqr_leaf *L, const uint8_t *phys, size_t len, uint8_t *out)
{
    if (L->vkind != PQR_FIXED)
        return pm_error_new(PM_EINTERNAL, "pqr_convert_one on a non-fixed target");
    if (L->ptype == PQ_BYTE_ARRAY || (L->conv == PQC_BE_I128 && len != (size_t)L->pwidth)) {
        if (L->conv != PQC_BE_I128)
            return pm_error_new(PM_EINTERNAL, "byte value for a non-decimal fixed target");
        __int128 s;
        PM_TRY(be_to_i128(phys, len, &s));
        memcpy(out, &s, 16);
        return NULL;
    }
    if (len != (size_t)L->pwidth)
        return pm_error_new(PM_ECORRUPT, "value of %zu bytes for a %d-byte type", len, L->pwidth);
    return convert_fixed(L, phys, 1, out);
}

/* Fixed physical bytes → dest (FIXED: convert; VAR: FLBA as binary). */
static pm_error *emit_fixed(pqr_chunk *c, const uint8_t *phys, size_t n, const pqr_dest *d)
{
    const pqr_leaf *L = c->leaf;
    if (L->vkind == PQR_VAR) {
        size_t w = (size_t)L->pwidth;
        if (n * w + d->data->len > INT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of binary data in one batch");
        PM_TRY(pm_buf_append(d->data, phys, n * w));
        for (size_t i = 0; i <= n; i++)
            d->offsets[i] = (int32_t)(i * w);
        return NULL;
    }
    return convert_fixed(L, phys, n, d->fixed);
}

static pm_error *scratch(pm_buf *b, size_t bytes, uint8_t **out)
{
    b->len = 0;
    PM_TRY(pm_buf_reserve(b, bytes ? bytes : 1));
    *out = b->data;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Dictionary                                                          */
/* ------------------------------------------------------------------ */

pm_error *pqr_chunk_load_dictionary(pqr_chunk *c, const uint8_t *p, size_t len, int32_t count, int32_t enc)
{
    const pqr_leaf *L = c->leaf;
    if (enc != PQ_ENC_PLAIN && enc != PQ_ENC_PLAIN_DICTIONARY)
        return pm_error_new(PM_EUNSUPPORTED, "dictionary page encoding %s", pq_encoding_name(enc));
    if (count < 0)
        return pm_error_new(PM_ECORRUPT, "dictionary page with %d values", count);
    size_t n = (size_t)count;
    /* Every value takes at least one bit (booleans) or one byte. */
    if (L->ptype == PQ_BOOLEAN ? n > len * 8 : n > len)
        return pm_error_new(PM_ECORRUPT, "dictionary of %zu values in %zu bytes", n, len);
    const uint8_t *end = p + len;
    c->dict_fixed.len = c->dict_off.len = c->dict_data.len = 0;
    pm_column_release(c->dict_col);
    c->dict_col = NULL;
    if (n == 0) {
        c->has_dict = true;
        c->dict_n = 0;
        return NULL;
    }
    pqr_dest d = {0};
    if (L->vkind == PQR_VAR) {
        PM_TRY(pm_buf_resize(&c->dict_off, (n + 1) * 4));
        d.offsets = (int32_t *)(void *)c->dict_off.data;
        d.data = &c->dict_data;
    } else {
        size_t w = L->vkind == PQR_BOOL ? 1 : (size_t)L->width;
        PM_TRY(pm_buf_resize(&c->dict_fixed, n * w));
        d.fixed = c->dict_fixed.data;
    }
    if (L->ptype == PQ_BOOLEAN) {
        uint64_t bit = 0;
        PM_TRY(pqd_plain_bool(p, len, &bit, n, d.fixed));
    } else if (L->ptype == PQ_BYTE_ARRAY) {
        if (L->vkind == PQR_VAR) {
            PM_TRY(pqd_plain_byte_array(&p, end, n, d.offsets, d.data));
        } else {
            PM_TRY(pm_buf_resize(&c->scratch_off, (n + 1) * 4));
            c->scratch_data.len = 0;
            int32_t *off = (int32_t *)(void *)c->scratch_off.data;
            PM_TRY(pqd_plain_byte_array(&p, end, n, off, &c->scratch_data));
            PM_TRY(convert_var(L, off, c->scratch_data.data, n, &d));
        }
    } else {
        size_t pw = (size_t)L->pwidth;
        if (n > len / pw)
            return pm_error_new(PM_ECORRUPT, "dictionary of %zu values of %zu bytes in %zu bytes", n, pw, len);
        PM_TRY(emit_fixed(c, p, n, &d));
    }
    if (L->vkind == PQR_VAR) {
        /* zeroed slack for the short-value copies in gather() */
        PM_TRY(pm_buf_reserve(&c->dict_data, 16));
        memset(c->dict_data.data + c->dict_data.len, 0, 16);
    }
    c->has_dict = true;
    c->dict_n = (uint32_t)n;
    return NULL;
}

/* Gather dictionary entries idx[0..n) (already checked < dict_n). */
static pm_error *gather(pqr_chunk *c, const uint32_t *idx, size_t n, const pqr_dest *d)
{
    const pqr_leaf *L = c->leaf;
    if (L->vkind == PQR_VAR) {
        const int32_t *off = (const int32_t *)(const void *)c->dict_off.data;
        const uint8_t *src = c->dict_data.data;
        uint64_t total = 0;
        d->offsets[0] = 0;
        for (size_t i = 0; i < n; i++) {
            total += (uint64_t)(off[idx[i] + 1] - off[idx[i]]);
            if (total > INT32_MAX)
                return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of string data in one batch");
            d->offsets[i + 1] = (int32_t)total;
        }
        if (d->data->len + total > INT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of string data in one batch");
        /* 16 bytes of slack after both buffers let short values move as one fixed-size copy. */
        PM_TRY(pm_buf_reserve(d->data, (size_t)total + 16));
        uint8_t *dst = d->data->data + d->data->len;
        for (size_t i = 0; i < n; i++) {
            size_t len = (size_t)(off[idx[i] + 1] - off[idx[i]]);
            if (len <= 16)
                memcpy(dst, src + off[idx[i]], 16);
            else
                memcpy(dst, src + off[idx[i]], len);
            dst += len;
        }
        d->data->len += (size_t)total;
        return NULL;
    }
    const uint8_t *dict = c->dict_fixed.data;
    size_t w = L->vkind == PQR_BOOL ? 1 : (size_t)L->width;
    switch (w) {
    case 1:
        for (size_t i = 0; i < n; i++)
            d->fixed[i] = dict[idx[i]];
        break;
    case 2: {
        const uint16_t *s = (const uint16_t *)(const void *)dict;
        for (size_t i = 0; i < n; i++)
            memcpy(d->fixed + 2 * i, &s[idx[i]], 2);
        break;
    }
    case 4: {
        /* four a step: one loop test per four values */
        const uint32_t *s = (const uint32_t *)(const void *)dict;
        uint8_t *o = d->fixed;
        size_t i = 0;
        for (; i + 4 <= n; i += 4, o += 16) {
            uint32_t a = s[idx[i]], b = s[idx[i + 1]], e = s[idx[i + 2]], f = s[idx[i + 3]];
            memcpy(o, &a, 4);
            memcpy(o + 4, &b, 4);
            memcpy(o + 8, &e, 4);
            memcpy(o + 12, &f, 4);
        }
        for (; i < n; i++, o += 4)
            memcpy(o, &s[idx[i]], 4);
        break;
    }
    case 8: {
        const uint64_t *s = (const uint64_t *)(const void *)dict;
        uint8_t *o = d->fixed;
        size_t i = 0;
        for (; i + 4 <= n; i += 4, o += 32) {
            uint64_t a = s[idx[i]], b = s[idx[i + 1]], e = s[idx[i + 2]], f = s[idx[i + 3]];
            memcpy(o, &a, 8);
            memcpy(o + 8, &b, 8);
            memcpy(o + 16, &e, 8);
            memcpy(o + 24, &f, 8);
        }
        for (; i < n; i++, o += 8)
            memcpy(o, &s[idx[i]], 8);
        break;
    }
    default:
        for (size_t i = 0; i < n; i++)
            memcpy(d->fixed + w * i, dict + w * idx[i], w);
        break;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

/* BYTE_ARRAY / FLBA values as var data into the sink (offsets + data). */
static pm_error *var_values(pqr_chunk *c, size_t n, int32_t *off, pm_buf *data)
{
    const pqr_leaf *L = c->leaf;
    switch (c->enc) {
    case PQ_ENC_PLAIN:
        if (L->ptype == PQ_BYTE_ARRAY)
            return pqd_plain_byte_array(&c->vp, c->vend, n, off, data);
        break;
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: {
        const int32_t *lens = (const int32_t *)(const void *)c->lens.data + c->var_index;
        uint64_t total = 0;
        off[0] = 0;
        for (size_t i = 0; i < n; i++) {
            total += (uint64_t)lens[i];
            if (total > INT32_MAX)
                return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of byte data in one batch");
            off[i + 1] = (int32_t)total;
        }
        /* Lengths were checked against the page at setup. */
        PM_TRY(pm_buf_append(data, c->vp, (size_t)total));
        c->vp += total;
        c->var_index += (uint32_t)n;
        return NULL;
    }
    case PQ_ENC_DELTA_BYTE_ARRAY: {
        const int32_t *pre = (const int32_t *)(const void *)c->prefix.data + c->var_index;
        const int32_t *suf = (const int32_t *)(const void *)c->lens.data + c->var_index;
        size_t base = data->len;
        off[0] = 0;
        for (size_t i = 0; i < n; i++) {
            size_t pl = (size_t)pre[i], sl = (size_t)suf[i];
            if (pl > c->prev.len)
                return pm_error_new(PM_ECORRUPT, "DELTA_BYTE_ARRAY prefix %zu longer than the previous value (%zu)",
                                    pl, c->prev.len);
            if (L->ptype == PQ_FIXED_LEN_BYTE_ARRAY && pl + sl != (size_t)L->type_length)
                return pm_error_new(PM_ECORRUPT, "DELTA_BYTE_ARRAY value of %zu bytes in FIXED_LEN_BYTE_ARRAY(%d)",
                                    pl + sl, L->type_length);
            if (data->len - base + pl + sl > INT32_MAX)
                return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of byte data in one batch");
            c->prev.len = pl;
            PM_TRY(pm_buf_append(&c->prev, c->vp, sl));
            c->vp += sl;
            PM_TRY(pm_buf_append(data, c->prev.data, c->prev.len));
            off[i + 1] = (int32_t)(data->len - base);
        }
        c->var_index += (uint32_t)n;
        return NULL;
    }
    default:
        break;
    }
    return pm_error_new(PM_EINTERNAL, "var_values with encoding %s", pq_encoding_name(c->enc));
}

/* Fixed-width physical values (pwidth bytes) of the page into out. */
static pm_error *fixed_values(pqr_chunk *c, size_t n, uint8_t *out)
{
    const pqr_leaf *L = c->leaf;
    size_t w = (size_t)L->pwidth;
    switch (c->enc) {
    case PQ_ENC_PLAIN:
        return pqd_plain_fixed(&c->vp, c->vend, w, n, out);
    case PQ_ENC_DELTA_BINARY_PACKED:
        if (L->ptype == PQ_INT32)
            return pqd_delta_get_i32(&c->delta, (int32_t *)(void *)out, n);
        return pqd_delta_get_i64(&c->delta, (int64_t *)(void *)out, n);
    case PQ_ENC_BYTE_STREAM_SPLIT:
        pqd_bss_get(c->vp, c->bss_count, w, c->vused, n, out);
        return NULL;
    default:
        return pm_error_new(PM_EINTERNAL, "fixed_values with encoding %s", pq_encoding_name(c->enc));
    }
}

pm_error *pqr_chunk_values(pqr_chunk *c, size_t n, const pqr_dest *d)
{
    const pqr_leaf *L = c->leaf;
    if (n > (size_t)(c->nvalid - c->vused))
        return pm_error_new(PM_EINTERNAL, "asked for %zu values, page has %u left", n, c->nvalid - c->vused);
    if (c->ids_out) {
        if (c->enc != PQ_ENC_PLAIN_DICTIONARY && c->enc != PQ_ENC_RLE_DICTIONARY)
            return pm_error_new(PM_ECORRUPT, "page %u is %s although the column chunk's metadata lists only "
                                "dictionary-encoded data pages", c->page_no, pq_encoding_name(c->enc));
        if (n)
            PM_TRY(pqd_rle_get_indices(&c->rle, d->ids, n, c->dict_n));
        c->vused += (uint32_t)n;
        return NULL;
    }
    if (n == 0) {
        if (L->vkind == PQR_VAR)
            d->offsets[0] = 0;
        return NULL;
    }
    if (c->enc == PQ_ENC_PLAIN_DICTIONARY || c->enc == PQ_ENC_RLE_DICTIONARY) {
        PM_TRY(pm_buf_set_len(&c->idx, n * 4));
        uint32_t *idx = (uint32_t *)(void *)c->idx.data;
        PM_TRY(pqd_rle_get_indices(&c->rle, idx, n, c->dict_n));
        PM_TRY(gather(c, idx, n, d));
    } else if (L->ptype == PQ_BOOLEAN) {
        if (c->enc == PQ_ENC_PLAIN) {
            PM_TRY(pqd_plain_bool(c->vp, (size_t)(c->vend - c->vp), &c->bool_bit, n, d->fixed));
        } else if (c->enc == PQ_ENC_RLE) {
            PM_TRY(pm_buf_resize(&c->idx, n * 4));
            uint32_t *v = (uint32_t *)(void *)c->idx.data;
            PM_TRY(pqd_rle_get_u32(&c->rle, v, n));
            for (size_t i = 0; i < n; i++)
                d->fixed[i] = (uint8_t)(v[i] & 1);
        } else {
            return pqr_chunk_bad_encoding(c, c->enc);
        }
    } else if (L->ptype == PQ_BYTE_ARRAY ||
               (L->ptype == PQ_FIXED_LEN_BYTE_ARRAY && c->enc == PQ_ENC_DELTA_BYTE_ARRAY)) {
        if (L->vkind == PQR_VAR) {
            if (d->data->len > INT32_MAX)
                return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of byte data in one batch");
            PM_TRY(var_values(c, n, d->offsets, d->data));
            if (d->data->len > INT32_MAX)
                return pm_error_new(PM_EUNSUPPORTED, "more than 2 GiB of byte data in one batch");
        } else {
            PM_TRY(pm_buf_resize(&c->scratch_off, (n + 1) * 4));
            c->scratch_data.len = 0;
            int32_t *off = (int32_t *)(void *)c->scratch_off.data;
            PM_TRY(var_values(c, n, off, &c->scratch_data));
            PM_TRY(convert_var(L, off, c->scratch_data.data, n, d));
        }
    } else if (L->conv == PQC_NONE && L->vkind == PQR_FIXED) {
        PM_TRY(fixed_values(c, n, d->fixed));
    } else {
        uint8_t *tmp;
        PM_TRY(scratch(&c->scratch, n * (size_t)L->pwidth, &tmp));
        PM_TRY(fixed_values(c, n, tmp));
        PM_TRY(emit_fixed(c, tmp, n, d));
    }
    c->vused += (uint32_t)n;
    return NULL;
}

pm_error *pqr_chunk_dict_column(pqr_chunk *c, const pm_type *type, pm_column **out)
{
    *out = NULL;
    if (!c->dict_col) {
        pm_column *d;
        PM_TRY(pm_column_new(&d, type));
        uint32_t n = c->has_dict ? c->dict_n : 0;
        pm_error *e = NULL;
        if (n) {
            e = pm_buf_append(&d->offsets, c->dict_off.data, ((size_t)n + 1) * 4);
            if (!e && c->dict_data.len)
                e = pm_buf_append(&d->data, c->dict_data.data, c->dict_data.len);
        } else {
            int32_t zero = 0;
            e = pm_buf_append(&d->offsets, &zero, 4);
        }
        if (!e && !d->data.data)
            e = pm_buf_reserve(&d->data, 1);
        if (e) {
            pm_column_release(d);
            return e;
        }
        d->length = n;
        c->dict_col = d;
    }
    *out = c->dict_col;
    return NULL;
}

static bool dict_encoding(int32_t enc)
{
    return enc == PQ_ENC_PLAIN_DICTIONARY || enc == PQ_ENC_RLE_DICTIONARY;
}

bool pqr_chunk_meta_all_dict(const pq_column_meta *cm)
{
    if (cm->num_encoding_stats) {
        bool dict_page = false, data_pages = false;
        for (uint32_t i = 0; i < cm->num_encoding_stats; i++) {
            const pq_page_encoding_stats *s = &cm->encoding_stats[i];
            if (s->page_type == PQ_DICTIONARY_PAGE) {
                dict_page = true;
            } else if (s->page_type == PQ_DATA_PAGE || s->page_type == PQ_DATA_PAGE_V2) {
                if (s->count > 0 && !dict_encoding(s->encoding))
                    return false;
                data_pages = true;
            }
        }
        return dict_page && data_pages;
    }
    /* no page statistics: a dictionary encoding and nothing else but level
     * encodings (PLAIN may be the dictionary page's, or a fallback: refused) */
    bool dict = false;
    for (uint32_t i = 0; i < cm->num_encodings; i++) {
        int32_t e = cm->encodings[i];
        if (dict_encoding(e))
            dict = true;
        else if (e != PQ_ENC_RLE && e != PQ_ENC_BIT_PACKED)
            return false;
    }
    return dict && cm->has_dictionary_page_offset;
}

bool pqr_chunk_meta_no_dict(const pq_column_meta *cm)
{
    if (cm->has_dictionary_page_offset)
        return false;
    for (uint32_t i = 0; i < cm->num_encoding_stats; i++) {
        const pq_page_encoding_stats *s = &cm->encoding_stats[i];
        if (s->count > 0 && (s->page_type == PQ_DICTIONARY_PAGE || dict_encoding(s->encoding)))
            return false;
    }
    for (uint32_t i = 0; i < cm->num_encodings; i++)
        if (dict_encoding(cm->encodings[i]))
            return false;
    return true;
}
