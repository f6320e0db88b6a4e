/*
 * format/parquet/page_reader.c — the Parquet page reader: the pages of a
 * column chunk one after another (page_reader.h).
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
 * decompress into `page` with exactly uncompressed_page_size bytes (a
 * dictionary page goes to pqr_chunk_load_dictionary), decode all levels of
 * the page (checking each against the maximum level; a flat leaf's
 * definition levels that are one run of the maximum, a page without
 * nulls, are not expanded per value), count the non-null
 * values, then set up the value decoder of the page's encoding (PLAIN,
 * dictionary indices, RLE booleans, DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT), from
 * which pqr_chunk_values (pqr_chunk.c) decodes.
 */
#include "format/parquet/page_reader.h"

#include <string.h>

#include "format/parquet/pq_encode.h"

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

/* A level stream that starts with one RLE run of at least n values equal
 * to max: every value of the page is defined (how writers encode a page
 * without nulls).  A flat leaf's assembler then needs no per-value levels
 * (pqr_assemble.c reads them only when some value is null). */
static bool one_full_run(const uint8_t *p, size_t len, int bw, uint32_t max, size_t n)
{
    uint64_t h = 0;
    size_t i = 0;
    for (;; i++) {
        if (i >= len || i >= 5)
            return false;
        h |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80))
            break;
    }
    i++;
    size_t vb = ((size_t)bw + 7) / 8;
    if ((h & 1) || (h >> 1) < n || len - i < vb)
        return false;
    uint32_t v = 0;
    for (size_t k = 0; k < vb; k++)
        v |= (uint32_t)p[i + k] << (8 * k);
    return v == max;
}

/* v1 levels at *p: RLE (4-byte length prefix) or legacy BIT_PACKED.
 * flat: a page whose levels are all max leaves `out` unset (one_full_run). */
static pm_error *levels_v1(const uint8_t **p, const uint8_t *end, int32_t enc, int max, uint16_t *out, size_t n,
                           const char *what, bool flat, uint32_t *at_max)
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
        if (flat && one_full_run(*p + 4, len, bw, (uint32_t)max, n)) {
            *p += 4 + len;
            *at_max = (uint32_t)n;
            return NULL;
        }
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
                           bool flat, uint32_t *at_max)
{
    if (flat && one_full_run(p, len, pqd_bit_width((uint32_t)max), (uint32_t)max, n)) {
        *at_max = (uint32_t)n;
        return NULL;
    }
    pqd_rle r;
    PM_TRY(pqd_rle_init(&r, p, len, pqd_bit_width((uint32_t)max)));
    PM_TRY(pm_error_wrap(pqd_rle_get_u16(&r, out, n), 0, "%s levels", what));
    return check_levels(out, n, max, what, at_max);
}

/* ------------------------------------------------------------------ */
/* Value decoder setup                                                 */
/* ------------------------------------------------------------------ */

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
            return pqr_chunk_bad_encoding(c, enc);
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
            return pqr_chunk_bad_encoding(c, enc);
        PM_TRY(pqd_delta_init(&c->delta, p, (size_t)(end - p), pt == PQ_INT32 ? 32 : 64, c->n));
        if (pqd_delta_count(&c->delta) < c->nvalid)
            return pm_error_new(PM_ECORRUPT, "DELTA_BINARY_PACKED holds %llu values, page has %u",
                                (unsigned long long)pqd_delta_count(&c->delta), c->nvalid);
        return NULL;
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: {
        if (pt != PQ_BYTE_ARRAY)
            return pqr_chunk_bad_encoding(c, enc);
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
            return pqr_chunk_bad_encoding(c, enc);
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
            return pqr_chunk_bad_encoding(c, enc);
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
        return pqr_chunk_bad_encoding(c, enc);
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
    PM_TRY(pm_buf_set_len(&c->page, out_len));
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
        PM_TRY(pm_buf_set_len(&c->def, (size_t)c->n * 2 + 2));
    if (c->leaf->max_rep > 0)
        PM_TRY(pm_buf_set_len(&c->rep, (size_t)c->n * 2 + 2));
    return NULL;
}

/* The header of the page at raw_pos (*hl its length); windowed: parsed
 * within a probe that grows until it parses. */
static pm_error *page_header(pqr_chunk *c, pq_page_header *h, size_t *hl)
{
    size_t left = c->len - c->raw_pos;
    size_t probe = 64 << 10;
    for (;;) {
        PM_TRY(pqr_chunk_window(c, probe));
        size_t avail = c->win_start + c->win_len - c->raw_pos;
        pm_error *e = pm_pq_page_header_parse(h, c->data + (c->raw_pos - c->win_start), avail, hl);
        if (!e)
            return NULL;
        if (avail >= left || probe >= ((size_t)1 << 30)) {
            return e;
        }
        pm_error_free(e);
        probe *= 4;
    }
}

static pm_error *load_page(pqr_chunk *c, bool *got_data)
{
    const pqr_leaf *L = c->leaf;
    bool flat = L->depth == 1 && L->max_rep == 0; /* definition levels are read only when a value is null */
    size_t left = c->len - c->raw_pos;
    pq_page_header h;
    size_t hl;
    PM_TRY(page_header(c, &h, &hl));
    left -= hl;
    PM_TRY(page_sizes(c, &h, left));
    size_t cs = (size_t)h.compressed_page_size, us = (size_t)h.uncompressed_page_size;
    PM_TRY(pqr_chunk_window(c, hl + cs));
    const uint8_t *start = c->data + (c->raw_pos - c->win_start);
    const uint8_t *body = start + hl;
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
        return pm_error_wrap(pqr_chunk_load_dictionary(c, dp, us, h.dictionary_page_header.num_values,
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
                             c->n, "repetition", false, &unused));
        if (L->max_def > 0)
            PM_TRY(levels_v1(&p, end, dh->definition_level_encoding, L->max_def, (uint16_t *)(void *)c->def.data,
                             c->n, "definition", flat, &c->nvalid));
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
                             false, &unused));
        else if (rl)
            return pm_error_new(PM_ECORRUPT, "repetition levels in a column without repetition");
        if (L->max_def > 0)
            PM_TRY(levels_v2(body + rl, (size_t)dl, L->max_def, (uint16_t *)(void *)c->def.data, c->n,
                             "definition", flat, &c->nvalid));
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
    c->pages_loaded++;
    *got_data = c->n > 0;
    return NULL;
}

pm_error *pqr_chunk_skip_pages(pqr_chunk *c, int64_t rows, int64_t *skipped)
{
    *skipped = 0;
    if (c->leaf->max_rep != 0 || c->pos < c->n)
        return NULL;
    while (c->raw_pos < c->len && *skipped < rows) {
        pq_page_header h;
        size_t hl;
        PM_TRY(pm_error_wrap(page_header(c, &h, &hl), 0, "page %u", c->page_no));
        int32_t nv;
        if (h.type == PQ_DATA_PAGE && h.has_data_page_header)
            nv = h.data_page_header.num_values;
        else if (h.type == PQ_DATA_PAGE_V2 && h.has_data_page_header_v2)
            nv = h.data_page_header_v2.num_values;
        else
            break;
        if (nv <= 0 || nv > rows - *skipped)
            break;
        size_t left = c->len - c->raw_pos - hl;
        if (h.compressed_page_size < 0 || (size_t)h.compressed_page_size > left)
            return pm_error_new(PM_ECORRUPT, "page %u: page of %d bytes, %zu left in column chunk", c->page_no,
                                h.compressed_page_size, left);
        if (c->entries_seen + nv > c->cm->num_values)
            return pm_error_new(PM_ECORRUPT, "page %u: pages hold more than the column chunk's %lld values",
                                c->page_no, (long long)c->cm->num_values);
        c->raw_pos += hl + (size_t)h.compressed_page_size;
        c->entries_seen += nv;
        c->records += nv;
        c->page_no++;
        c->pages_skipped++;
        *skipped += nv;
    }
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

