/*
 * tests/fuzz/fuzz_pq_merge.c — libFuzzer target for PLAIN data pages merged
 * into a column writer (format/parquet/pq_page_merge.h).
 *
 * Input: 8 selector bytes, then the payload (an uncompressed page body).
 *   s[0] % 4  the leaf: INT (nullable), BIGINT NOT NULL, DOUBLE (nullable),
 *             STRING (nullable)
 *   s[1]      bit 0: data page v2 (definition levels: the first
 *             s[4] % (n + 1) payload bytes); bit 1: zstd-compressed (else
 *             uncompressed); bit 2: ColumnIndex-style bounds from the
 *             payload's first 16 bytes; bit 3: a wrong checksum
 *   s[2], s[3] the page's value count (s[2] * 256 + s[3])
 *   s[5]      v2: the header's null count; s[6] % 33: a width for the
 *             level merge alone (pq_levels_transcode over the payload, s[7]
 *             levels x 8)
 * The page is merged twice into a writer of 5-row pages (so pages close in
 * between), then the open page is closed.  Any input must end in success
 * or an error, never a crash or a leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_page_merge.h"
#include "format/parquet/pq_schema_write.h"
#include "format/parquet/pq_write_column.h"
#include "types/column.h"

static void levels(const uint8_t *s, const uint8_t *p, size_t n)
{
    int bw = s[6] % 33;
    pm_buf out = PM_BUF_INIT;
    pq_rle_encoder enc;
    pq_rle_init(&enc, &out, bw);
    int64_t below = 0;
    uint32_t max = bw >= 32 ? UINT32_MAX : (1u << bw) - 1;
    pm_error *e = pq_levels_transcode(&enc, p, n, bw, (int64_t)s[7] * 8, max, max, &below);
    if (!e)
        e = pq_rle_finish(&enc);
    pm_error_free(e);
    pm_buf_free(&out);
}

static pm_type *row_type(int which)
{
    pm_type *t = pm_type_new_row(false);
    pm_type *f;
    switch (which) {
    case 0:
        f = pm_type_new(PM_TYPE_INT, true);
        break;
    case 1:
        f = pm_type_new(PM_TYPE_BIGINT, false);
        break;
    case 2:
        f = pm_type_new(PM_TYPE_DOUBLE, true);
        break;
    default:
        f = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true);
        break;
    }
    if (!t || !f || pm_type_add_field(t, 0, "c", f)) /* (no error: abort) */
        abort();
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    const uint8_t *s = data, *p = data + 8;
    size_t n = size - 8;
    levels(s, p, n);
    pm_type *t = row_type(s[0] % 4);
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_write_schema ws;
    pm_codec_ctx *codec = NULL;
    pm_buf page = PM_BUF_INIT, scratch = PM_BUF_INIT;
    pq_colw cw;
    bool cw_init = false;
    if (pq_schema_build(&a, t, &ws) || pm_codec_ctx_new(&codec))
        abort();
    const pq_leaf *L = &ws.leaves[0];
    bool v2 = s[1] & 1, zstd = s[1] & 2;
    pm_codec_id id = zstd ? PM_CODEC_ZSTD : PM_CODEC_NONE;
    pq_page_header h;
    memset(&h, 0, sizeof h);
    int32_t nv = (int32_t)(s[2] * 256 + s[3]);
    size_t dl = v2 ? s[4] % (n + 1) : 0;
    pm_error *e = NULL;
    if (v2) {
        h.type = PQ_DATA_PAGE_V2;
        h.has_data_page_header_v2 = true;
        h.data_page_header_v2.num_values = h.data_page_header_v2.num_rows = nv;
        h.data_page_header_v2.num_nulls = s[5];
        h.data_page_header_v2.encoding = PQ_ENC_PLAIN;
        h.data_page_header_v2.definition_levels_byte_length = L->max_def > 0 ? (int32_t)dl : 0;
        h.data_page_header_v2.is_compressed = zstd;
        if (L->max_def == 0)
            dl = 0;
        e = pm_buf_append(&page, p, dl);
        if (!e && zstd)
            e = pm_codec_compress(codec, id, 1, p + dl, n - dl, &page);
        else if (!e)
            e = pm_buf_append(&page, p + dl, n - dl);
    } else {
        h.type = PQ_DATA_PAGE;
        h.has_data_page_header = true;
        h.data_page_header.num_values = nv;
        h.data_page_header.encoding = PQ_ENC_PLAIN;
        h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
        e = zstd ? pm_codec_compress(codec, id, 1, p, n, &page) : pm_buf_append(&page, p, n);
    }
    if (e)
        goto done;
    h.uncompressed_page_size = (int32_t)n;
    h.compressed_page_size = (int32_t)page.len;
    h.has_crc = true;
    h.crc = (int32_t)(pq_crc32(0, page.data ? page.data : (const uint8_t *)"", page.len) ^ (s[1] & 8 ? 1u : 0u));
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.codec = PM_CODEC_ZSTD;
    o.dictionary = false;
    o.page_row_limit = 5;
    if ((e = pq_colw_init(&cw, L, &o, codec)))
        goto done;
    cw_init = true;
    pq_merge_bounds b = {p, p + 8, n >= 16 ? 8 : 0, n >= 16 ? 8 : 0};
    if (L->phys == PQ_INT32)
        b.nmin = b.nmax = n >= 16 ? 4 : 0;
    const pq_merge_bounds *bp = (s[1] & 4) && n >= 16 ? &b : NULL;
    if (!pq_page_merge_ok(L, &h))
        abort(); /* built as a mergeable page */
    for (int k = 0; k < 2 && !e; k++)
        e = pq_colw_merge_page(&cw, &h, page.data ? page.data : (const uint8_t *)"", id, bp, &scratch);
    if (!e)
        e = pq_colw_close_page(&cw);
done:
    pm_error_free(e);
    if (cw_init)
        pq_colw_free(&cw);
    pm_buf_free(&page);
    pm_buf_free(&scratch);
    pm_codec_ctx_free(codec);
    pm_arena_free(&a);
    pm_type_free(t);
    return 0;
}
