/*
 * format/parquet/pqr_chunk.c — pages and values of one column chunk (see
 * pqr_chunk.h).
 *
 * Page layout (parquet-format):
 *   <PageHeader (thrift)> <compressed_page_size bytes of body>
 *   DICTIONARY_PAGE  body = codec(PLAIN values of the dictionary)
 *   DATA_PAGE (v1)   body = codec(rep levels, def levels, values); levels
 *                    are RLE with a 4-byte length prefix or legacy
 *                    BIT_PACKED, present only when max level > 0
 *   DATA_PAGE_V2     body = rep levels, def levels (RLE, no prefix, sizes in
 *                    the header, never compressed), then the values,
 *                    compressed unless is_compressed = false
 *   INDEX_PAGE and unknown page types are skipped.
 * Steps per page: parse the header from the chunk bytes, check the sizes
 * against what is left (never trusted), verify the CRC when present,
 * decompress into `page` with exactly uncompressed_page_size bytes, decode
 * all levels of the page (checking each against the maximum level), count
 * the non-null values, then set up the value decoder of the page's
 * encoding.  Values are decoded lazily, n at a time, straight into the
 * destination when no conversion is needed and through `scratch` otherwise.
 * Dictionary pages are decoded once and kept in the target layout, so
 * dictionary-encoded pages decode as a gather of indices.
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
}

void pqr_chunk_start(pqr_chunk *c, const pq_column_meta *cm)
{
    c->cm = cm;
    c->raw_pos = 0;
    c->entries_seen = 0;
    c->page_no = 0;
    c->records = 0;
    memset(c->open_inst, 0, sizeof c->open_inst);
    c->has_dict = false;
    c->dict_n = 0;
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

static pm_error *load_dictionary(pqr_chunk *c, const uint8_t *p, size_t len, int32_t count, int32_t enc)
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
        const uint32_t *s = (const uint32_t *)(const void *)dict;
        for (size_t i = 0; i < n; i++)
            memcpy(d->fixed + 4 * i, &s[idx[i]], 4);
        break;
    }
    case 8: {
        const uint64_t *s = (const uint64_t *)(const void *)dict;
        for (size_t i = 0; i < n; i++)
            memcpy(d->fixed + 8 * i, &s[idx[i]], 8);
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
/* Levels                                                              */
/* ------------------------------------------------------------------ */

/* Check every level is <= max; *at_max = how many equal max (one pass,
 * in blocks of 16 the compiler turns into vector compares). */
static pm_error *check_levels(const uint16_t *lv, size_t n, int max, const char *what, uint32_t *at_max)
{
    uint16_t mx = (uint16_t)max, bad = 0;
    uint32_t k = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        uint16_t b = 0, c = 0;
        for (int j = 0; j < 16; j++) {
            b |= lv[i + j] > mx;
            c += lv[i + j] == mx;
        }
        bad |= b;
        k += c;
    }
    for (; i < n; i++) {
        bad |= lv[i] > mx;
        k += lv[i] == mx;
    }
    if (bad) {
        uint16_t m = 0;
        for (i = 0; i < n; i++)
            m = lv[i] > m ? lv[i] : m;
        return pm_error_new(PM_ECORRUPT, "%s level %u exceeds the maximum %d", what, m, max);
    }
    *at_max = k;
    return NULL;
}

/* v1 levels at *p: RLE (4-byte length prefix) or legacy BIT_PACKED. */
static pm_error *levels_v1(const uint8_t **p, const uint8_t *end, int32_t enc, int max, uint16_t *out, size_t n,
                           const char *what, uint32_t *at_max)
{
    int bw = pqd_bit_width((uint32_t)max);
    size_t left = (size_t)(end - *p);
    if (enc == PQ_ENC_RLE) {
        if (left < 4)
            return pm_error_new(PM_ECORRUPT, "%s levels: length prefix truncated", what);
        uint32_t len;
        memcpy(&len, *p, 4);
        if (len > left - 4)
            return pm_error_new(PM_ECORRUPT, "%s levels: %u bytes claimed, %zu left in page", what, len, left - 4);
        pqd_rle r;
        PM_TRY(pqd_rle_init(&r, *p + 4, len, bw));
        PM_TRY(pm_error_wrap(pqd_rle_get_u16(&r, out, n), 0, "%s levels", what));
        *p += 4 + len;
    } else if (enc == PQ_ENC_BIT_PACKED) {
        size_t bytes = (size_t)(((uint64_t)n * (uint64_t)bw + 7) / 8);
        PM_TRY(pm_error_wrap(pqd_bitpacked_msb_get_u16(*p, left, bw, out, n), 0, "%s levels", what));
        *p += bytes;
    } else {
        return pm_error_new(PM_EUNSUPPORTED, "%s level encoding %s", what, pq_encoding_name(enc));
    }
    return check_levels(out, n, max, what, at_max);
}

static pm_error *levels_v2(const uint8_t *p, size_t len, int max, uint16_t *out, size_t n, const char *what,
                           uint32_t *at_max)
{
    pqd_rle r;
    PM_TRY(pqd_rle_init(&r, p, len, pqd_bit_width((uint32_t)max)));
    PM_TRY(pm_error_wrap(pqd_rle_get_u16(&r, out, n), 0, "%s levels", what));
    return check_levels(out, n, max, what, at_max);
}

/* ------------------------------------------------------------------ */
/* Value decoder setup                                                 */
/* ------------------------------------------------------------------ */

static pm_error *bad_encoding(const pqr_chunk *c, int32_t enc)
{
    return pm_error_new(PM_EUNSUPPORTED, "encoding %s for %s values", pq_encoding_name(enc),
                        pq_type_name(c->leaf->ptype));
}

/* DELTA_LENGTH_BYTE_ARRAY lengths of `count` values from *p into lens;
 * *p moves to the byte data, whose size is checked. */
static pm_error *read_lengths(pqr_chunk *c, const uint8_t **p, const uint8_t *end, pm_buf *lens, uint64_t max,
                              uint64_t *count, uint64_t *total)
{
    pqd_delta dd;
    PM_TRY(pqd_delta_init(&dd, *p, (size_t)(end - *p), 32, max));
    uint64_t k = pqd_delta_count(&dd);
    PM_TRY(pm_buf_resize(lens, (size_t)k * 4));
    int32_t *l = (int32_t *)(void *)lens->data;
    PM_TRY(pqd_delta_get_i32(&dd, l, (size_t)k));
    PM_TRY(pqd_delta_end(&dd, p));
    uint64_t sum = 0;
    for (uint64_t i = 0; i < k; i++) {
        if (l[i] < 0)
            return pm_error_new(PM_ECORRUPT, "negative byte array length %d", l[i]);
        sum += (uint64_t)l[i];
    }
    *count = k;
    *total = sum;
    (void)c;
    return NULL;
}

static pm_error *setup_values(pqr_chunk *c, const uint8_t *p, const uint8_t *end, int32_t enc)
{
    const pqr_leaf *L = c->leaf;
    int32_t pt = L->ptype;
    c->enc = enc;
    c->vp = p;
    c->vend = end;
    c->bool_bit = 0;
    c->var_index = 0;
    switch (enc) {
    case PQ_ENC_PLAIN:
        return NULL;
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY: {
        if (!c->has_dict)
            return pm_error_new(PM_ECORRUPT, "dictionary-encoded page without a dictionary page");
        if (p == end) {
            if (c->nvalid)
                return pm_error_new(PM_ECORRUPT, "dictionary-encoded page without index bytes");
            return pqd_rle_init(&c->rle, p, 0, 0);
        }
        int bw = *p;
        if (bw > 32)
            return pm_error_new(PM_ECORRUPT, "dictionary index bit width %d", bw);
        return pqd_rle_init(&c->rle, p + 1, (size_t)(end - p - 1), bw);
    }
    case PQ_ENC_RLE: {
        if (pt != PQ_BOOLEAN)
            return bad_encoding(c, enc);
        if (end - p < 4)
            return pm_error_new(PM_ECORRUPT, "RLE boolean values: length prefix truncated");
        uint32_t len;
        memcpy(&len, p, 4);
        if (len > (size_t)(end - p - 4))
            return pm_error_new(PM_ECORRUPT, "RLE boolean values: %u bytes claimed, %zu left", len,
                                (size_t)(end - p - 4));
        return pqd_rle_init(&c->rle, p + 4, len, 1);
    }
    case PQ_ENC_DELTA_BINARY_PACKED:
        if (pt != PQ_INT32 && pt != PQ_INT64)
            return bad_encoding(c, enc);
        PM_TRY(pqd_delta_init(&c->delta, p, (size_t)(end - p), pt == PQ_INT32 ? 32 : 64, c->n));
        if (pqd_delta_count(&c->delta) < c->nvalid)
            return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED holds %llu values, page has %u",
                                (unsigned long long)pqd_delta_count(&c->delta), c->nvalid);
        return NULL;
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: {
        if (pt != PQ_BYTE_ARRAY)
            return bad_encoding(c, enc);
        uint64_t k, total;
        PM_TRY(read_lengths(c, &c->vp, end, &c->lens, c->n, &k, &total));
        if (k < c->nvalid)
            return pm_error_new(PM_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY holds %llu values, page has %u",
                                (unsigned long long)k, c->nvalid);
        if (total > (uint64_t)(end - c->vp))
            return pm_error_new(PM_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY lengths sum to %llu, %zu bytes left",
                                (unsigned long long)total, (size_t)(end - c->vp));
        return NULL;
    }
    case PQ_ENC_DELTA_BYTE_ARRAY: {
        if (pt != PQ_BYTE_ARRAY && pt != PQ_FIXED_LEN_BYTE_ARRAY)
            return bad_encoding(c, enc);
        uint64_t kp, ks, tp, ts;
        PM_TRY(read_lengths(c, &c->vp, end, &c->prefix, c->n, &kp, &tp));
        PM_TRY(read_lengths(c, &c->vp, end, &c->lens, c->n, &ks, &ts));
        if (kp != ks)
            return pm_error_new(PM_ECORRUPT, "DELTA_BYTE_ARRAY has %llu prefixes and %llu suffixes",
                                (unsigned long long)kp, (unsigned long long)ks);
        if (ks < c->nvalid)
            return pm_error_new(PM_ECORRUPT, "DELTA_BYTE_ARRAY holds %llu values, page has %u",
                                (unsigned long long)ks, c->nvalid);
        if (ts > (uint64_t)(end - c->vp))
            return pm_error_new(PM_ECORRUPT, "DELTA_BYTE_ARRAY suffixes sum to %llu, %zu bytes left",
                                (unsigned long long)ts, (size_t)(end - c->vp));
        c->prev.len = 0;
        return NULL;
    }
    case PQ_ENC_BYTE_STREAM_SPLIT: {
        if (pt != PQ_FLOAT && pt != PQ_DOUBLE && pt != PQ_INT32 && pt != PQ_INT64 && pt != PQ_FIXED_LEN_BYTE_ARRAY)
            return bad_encoding(c, enc);
        size_t w = (size_t)L->pwidth, len = (size_t)(end - p);
        if (len % w)
            return pm_error_new(PM_ECORRUPT, "BYTE_STREAM_SPLIT data of %zu bytes is not a multiple of %zu", len, w);
        c->bss_count = len / w;
        if (c->bss_count < c->nvalid)
            return pm_error_new(PM_ECORRUPT, "BYTE_STREAM_SPLIT holds %zu values, page has %u", c->bss_count,
                                c->nvalid);
        return NULL;
    }
    default:
        return bad_encoding(c, enc);
    }
}

/* ------------------------------------------------------------------ */
/* Pages                                                               */
/* ------------------------------------------------------------------ */

/* The page's uncompressed bytes: borrowed from the chunk when not
 * compressed, else decompressed into c->page (exactly out_len bytes). */
static pm_error *page_bytes(pqr_chunk *c, const uint8_t *in, size_t n, size_t out_len, bool compressed,
                            const uint8_t **out)
{
    int32_t codec = c->cm->codec;
    if (!compressed || codec == PM_CODEC_NONE) {
        if (n != out_len)
            return pm_error_new(PM_ECORRUPT, "uncompressed page of %zu bytes claims %zu", n, out_len);
        *out = in;
        return NULL;
    }
    if (codec != PM_CODEC_SNAPPY && codec != PM_CODEC_GZIP && codec != PM_CODEC_LZ4 && codec != PM_CODEC_ZSTD &&
        codec != PM_CODEC_LZ4_RAW) {
        const char *names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
        if (codec >= 0 && codec < 8)
            return pm_error_new(PM_EUNSUPPORTED, "compression codec %s is not supported", names[codec]);
        return pm_error_new(PM_EUNSUPPORTED, "compression codec %d is not supported", codec);
    }
    PM_TRY(pm_buf_resize(&c->page, out_len));
    PM_TRY(pm_buf_reserve(&c->page, 1)); /* never a NULL buffer, even when empty */
    PM_TRY(pm_codec_decompress(c->codec, (pm_codec_id)codec, in, n, c->page.data, out_len));
    *out = c->page.data;
    return NULL;
}

static pm_error *page_sizes(pqr_chunk *c, const pq_page_header *h, size_t left)
{
    if (h->compressed_page_size < 0 || (size_t)h->compressed_page_size > left)
        return pm_error_new(PM_ECORRUPT, "page of %d bytes, %zu left in column chunk", h->compressed_page_size, left);
    if (h->uncompressed_page_size < 0 || (size_t)h->uncompressed_page_size > c->max_page)
        return pm_error_new(h->uncompressed_page_size < 0 ? PM_ECORRUPT : PM_EUNSUPPORTED,
                            "page of %d uncompressed bytes (limit %zu)", h->uncompressed_page_size, c->max_page);
    return NULL;
}

static pm_error *begin_data_page(pqr_chunk *c, int32_t num_values)
{
    if (num_values < 0)
        return pm_error_new(PM_ECORRUPT, "data page with %d values", num_values);
    if (c->entries_seen + num_values > c->cm->num_values)
        return pm_error_new(PM_ECORRUPT, "pages hold more than the column chunk's %lld values",
                            (long long)c->cm->num_values);
    /* Levels take 2 bytes per value each: keep them within the page limit. */
    if ((size_t)num_values > c->max_page / 2)
        return pm_error_new(PM_EUNSUPPORTED, "data page with %d values (limit %zu)", num_values, c->max_page / 2);
    c->n = (uint32_t)num_values;
    c->pos = 0;
    c->vused = 0;
    if (c->leaf->max_def > 0)
        PM_TRY(pm_buf_resize(&c->def, (size_t)c->n * 2 + 2));
    if (c->leaf->max_rep > 0)
        PM_TRY(pm_buf_resize(&c->rep, (size_t)c->n * 2 + 2));
    return NULL;
}

static pm_error *load_page(pqr_chunk *c, bool *got_data)
{
    const pqr_leaf *L = c->leaf;
    const uint8_t *start = c->data + c->raw_pos;
    size_t left = c->len - c->raw_pos;
    pq_page_header h;
    size_t hl;
    PM_TRY(pm_pq_page_header_parse(&h, start, left, &hl));
    left -= hl;
    PM_TRY(page_sizes(c, &h, left));
    const uint8_t *body = start + hl;
    size_t cs = (size_t)h.compressed_page_size, us = (size_t)h.uncompressed_page_size;
    c->raw_pos += hl + cs;
    if (h.has_crc) {
        uint32_t crc = pq_crc32(0, body, cs); /* carry-less multiply where available */
        if (crc != (uint32_t)h.crc)
            return pm_error_new(PM_ECORRUPT, "page checksum mismatch (stored %08x, computed %08x)",
                                (uint32_t)h.crc, crc);
    }
    *got_data = false;
    switch (h.type) {
    case PQ_DICTIONARY_PAGE:
        if (!h.has_dictionary_page_header)
            return pm_error_new(PM_ECORRUPT, "dictionary page without its header");
        if (c->has_dict || c->entries_seen > 0)
            return pm_error_new(PM_ECORRUPT, "dictionary page after the first page");
        const uint8_t *dp;
        PM_TRY(page_bytes(c, body, cs, us, true, &dp));
        return pm_error_wrap(load_dictionary(c, dp, us, h.dictionary_page_header.num_values,
                                             h.dictionary_page_header.encoding),
                             0, "dictionary page");
    case PQ_DATA_PAGE: {
        if (!h.has_data_page_header)
            return pm_error_new(PM_ECORRUPT, "data page without its header");
        const pq_data_page_header *dh = &h.data_page_header;
        PM_TRY(begin_data_page(c, dh->num_values));
        const uint8_t *p;
        PM_TRY(page_bytes(c, body, cs, us, true, &p));
        const uint8_t *end = p + us;
        uint32_t unused;
        c->nvalid = c->n;
        if (L->max_rep > 0)
            PM_TRY(levels_v1(&p, end, dh->repetition_level_encoding, L->max_rep, (uint16_t *)(void *)c->rep.data,
                             c->n, "repetition", &unused));
        if (L->max_def > 0)
            PM_TRY(levels_v1(&p, end, dh->definition_level_encoding, L->max_def, (uint16_t *)(void *)c->def.data,
                             c->n, "definition", &c->nvalid));
        PM_TRY(setup_values(c, p, end, dh->encoding));
        break;
    }
    case PQ_DATA_PAGE_V2: {
        if (!h.has_data_page_header_v2)
            return pm_error_new(PM_ECORRUPT, "data page v2 without its header");
        const pq_data_page_header_v2 *dh = &h.data_page_header_v2;
        int32_t rl = dh->repetition_levels_byte_length, dl = dh->definition_levels_byte_length;
        if (rl < 0 || dl < 0 || (size_t)rl + (size_t)dl > cs || (size_t)rl + (size_t)dl > us)
            return pm_error_new(PM_ECORRUPT, "data page v2 level lengths %d + %d exceed the page", rl, dl);
        PM_TRY(begin_data_page(c, dh->num_values));
        uint32_t unused;
        c->nvalid = c->n;
        if (L->max_rep > 0)
            PM_TRY(levels_v2(body, (size_t)rl, L->max_rep, (uint16_t *)(void *)c->rep.data, c->n, "repetition",
                             &unused));
        else if (rl)
            return pm_error_new(PM_ECORRUPT, "repetition levels in a column without repetition");
        if (L->max_def > 0)
            PM_TRY(levels_v2(body + rl, (size_t)dl, L->max_def, (uint16_t *)(void *)c->def.data, c->n,
                             "definition", &c->nvalid));
        else if (dl)
            return pm_error_new(PM_ECORRUPT, "definition levels in a required column");
        const uint8_t *vb = body + rl + dl;
        size_t vcs = cs - (size_t)rl - (size_t)dl, vus = us - (size_t)rl - (size_t)dl;
        const uint8_t *vp;
        PM_TRY(page_bytes(c, vb, vcs, vus, dh->is_compressed, &vp));
        PM_TRY(setup_values(c, vp, vp + vus, dh->encoding));
        break;
    }
    default:
        return NULL; /* index pages and unknown page types are skipped */
    }
    c->entries_seen += c->n;
    *got_data = c->n > 0;
    return NULL;
}

pm_error *pqr_chunk_next_page(pqr_chunk *c, bool *eof)
{
    for (;;) {
        if (c->raw_pos >= c->len) {
            if (c->entries_seen != c->cm->num_values)
                return pm_error_new(PM_ECORRUPT, "column chunk ends after %lld of its %lld values",
                                    (long long)c->entries_seen, (long long)c->cm->num_values);
            c->n = c->pos = 0;
            *eof = true;
            return NULL;
        }
        uint32_t no = c->page_no++;
        bool got = false;
        PM_TRY(pm_error_wrap(load_page(c, &got), 0, "page %u", no));
        if (got) {
            *eof = false;
            return NULL;
        }
    }
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
    if (n == 0) {
        if (L->vkind == PQR_VAR)
            d->offsets[0] = 0;
        return NULL;
    }
    if (c->enc == PQ_ENC_PLAIN_DICTIONARY || c->enc == PQ_ENC_RLE_DICTIONARY) {
        PM_TRY(pm_buf_resize(&c->idx, n * 4));
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
            return bad_encoding(c, c->enc);
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
