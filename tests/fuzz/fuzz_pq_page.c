/*
 * tests/fuzz/fuzz_pq_page.c — libFuzzer target for the Parquet page
 * decoders.
 *
 * Input: 8 selector bytes, then the payload.
 *   s[0] % 6  0: RLE hybrid    (bit width s[1] % 34, s[2]*8+s[3] values, also as
 *                               dictionary indices < s[4])
 *             1: DELTA_BINARY_PACKED (32-bit when s[1] is odd)
 *             2: PLAIN BYTE_ARRAY (s[1] values), PLAIN booleans, BYTE_STREAM_SPLIT
 *             3: legacy BIT_PACKED levels (width s[1] % 18)
 *           4,5: a whole one-column file around the payload: physical type
 *                s[1] % 8, logical flavour s[2], encoding s[3] % 10, schema
 *                shape s[4] % 4 (required, optional, list, struct), page v2
 *                when s[4] & 4, a dictionary page first when s[4] & 8 (the
 *                payload split at s[5]), s[6] level entries, v2 level lengths
 *                from s[7]; read with small batches and every row formatted.
 * Any input must end in success or an error, never a crash or a leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/pq_decode.h"
#include "types/column.h"

static void direct(const uint8_t *s, const uint8_t *p, size_t n)
{
    switch (s[0] % 6) {
    case 0: {
        pqd_rle d;
        size_t count = (size_t)s[2] * 8 + s[3];
        uint32_t *out = malloc((count + 1) * sizeof *out);
        uint16_t *o16 = malloc((count + 1) * sizeof *o16);
        pm_error *e = pqd_rle_init(&d, p, n, s[1] % 34);
        if (!e)
            e = pqd_rle_get_u32(&d, out, count / 2);
        if (!e)
            e = pqd_rle_get_u16(&d, o16, count - count / 2);
        pm_error_free(e);
        e = pqd_rle_init(&d, p, n, s[1] % 34);
        if (!e)
            e = pqd_rle_get_indices(&d, out, count, s[4]);
        pm_error_free(e);
        free(out);
        free(o16);
        break;
    }
    case 1: {
        pqd_delta d;
        pm_error *e = pqd_delta_init(&d, p, n, (s[1] & 1) ? 32 : 64, (uint64_t)s[2] * 64 + s[3]);
        if (!e) {
            uint64_t total = pqd_delta_count(&d);
            int64_t *out = malloc((total + 1) * sizeof *out);
            size_t step = 1 + s[4] % 70;
            for (uint64_t i = 0; i < total && !e; i += step)
                e = pqd_delta_get_i64(&d, out + i, (size_t)(total - i < step ? total - i : step));
            const uint8_t *end;
            if (!e)
                e = pqd_delta_end(&d, &end);
            free(out);
        }
        pm_error_free(e);
        break;
    }
    case 2: {
        const uint8_t *q = p;
        size_t k = s[1];
        int32_t *off = malloc((k + 1) * sizeof *off);
        pm_buf data = PM_BUF_INIT;
        pm_error_free(pqd_plain_byte_array(&q, p + n, k, off, &data));
        pm_buf_free(&data);
        free(off);
        uint8_t *b = malloc(k + 1);
        uint64_t bit = s[2] % 8;
        pm_error_free(pqd_plain_bool(p, n, &bit, k, b));
        free(b);
        size_t w = 1 + s[3] % 16;
        if (n >= w) {
            size_t cnt = n / w, first = cnt ? s[4] % cnt : 0;
            uint8_t *o = malloc(cnt * w + 1);
            pqd_bss_get(p, cnt, w, first, cnt - first, o);
            free(o);
        }
        break;
    }
    case 3: {
        size_t k = (size_t)s[2] * 4;
        uint16_t *o = malloc((k + 1) * sizeof *o);
        pm_error_free(pqd_bitpacked_msb_get_u16(p, n, s[1] % 18, o, k));
        free(o);
        break;
    }
    }
}

/* Build a file: schema shape, one column chunk (optional dictionary page + data page), footer. */
static void whole_file(const uint8_t *s, const uint8_t *p, size_t n)
{
    int pt = s[1] % 8, flavour = s[2] % 4, enc = s[3] % 10, shape = s[4] % 4;
    bool v2 = s[4] & 4, dict = s[4] & 8;
    pq_schema_element el[4];
    memset(el, 0, sizeof el);
    uint32_t ns = 0;
    el[ns++] = (pq_schema_element){.name = "root", .has_num_children = true, .num_children = 1};
    int max_def = 0, max_rep = 0;
    if (shape == 2) {
        el[ns++] = (pq_schema_element){.name = "l", .has_repetition = true, .repetition = PQ_OPTIONAL,
                                       .has_num_children = true, .num_children = 1, .has_converted_type = true,
                                       .converted_type = PQ_CT_LIST};
        el[ns++] = (pq_schema_element){.name = "list", .has_repetition = true, .repetition = PQ_REPEATED,
                                       .has_num_children = true, .num_children = 1};
        max_def = 3;
        max_rep = 1;
    } else if (shape == 3) {
        el[ns++] = (pq_schema_element){.name = "s", .has_repetition = true, .repetition = PQ_OPTIONAL,
                                       .has_num_children = true, .num_children = 1};
        max_def = 2;
    } else {
        max_def = shape;
    }
    pq_schema_element *leaf = &el[ns++];
    *leaf = (pq_schema_element){.name = "v", .has_type = true, .type = pt, .has_repetition = true,
                                .repetition = shape == 0 ? PQ_REQUIRED : PQ_OPTIONAL};
    if (pt == PQ_FIXED_LEN_BYTE_ARRAY) {
        leaf->has_type_length = true;
        leaf->type_length = flavour == 3 ? 2 : 1 + s[5] % 20;
    }
    if (flavour == 1 && (pt == PQ_INT32 || pt == PQ_INT64 || pt == PQ_BYTE_ARRAY || pt == PQ_FIXED_LEN_BYTE_ARRAY)) {
        leaf->has_logical_type = true;
        leaf->logical_type.kind = PQ_LT_DECIMAL;
        leaf->logical_type.decimal_precision = pt == PQ_INT32 ? 9 : pt == PQ_INT64 ? 18 : 38;
        leaf->logical_type.decimal_scale = 2;
    } else if (flavour == 2 && pt == PQ_INT32) {
        leaf->has_logical_type = true;
        leaf->logical_type.kind = PQ_LT_INTEGER;
        leaf->logical_type.int_bit_width = 8;
        leaf->logical_type.int_is_signed = true;
    } else if (flavour == 2 && pt == PQ_INT64) {
        leaf->has_logical_type = true;
        leaf->logical_type.kind = PQ_LT_TIME;
        leaf->logical_type.unit = PQ_UNIT_MICROS;
    } else if (flavour == 2 && pt == PQ_BYTE_ARRAY) {
        leaf->has_logical_type = true;
        leaf->logical_type.kind = PQ_LT_STRING;
    } else if (flavour == 3 && pt == PQ_FIXED_LEN_BYTE_ARRAY) {
        leaf->has_logical_type = true;
        leaf->logical_type.kind = PQ_LT_FLOAT16;
    }

    pm_buf f = PM_BUF_INIT;
    pm_buf_append(&f, "PAR1", 4);
    int64_t chunk_start = (int64_t)f.len, dict_off = 0;
    size_t split = dict ? (n ? s[5] % (n + 1) : 0) : 0;
    if (dict) {
        pq_page_header h = {0};
        h.type = PQ_DICTIONARY_PAGE;
        h.uncompressed_page_size = h.compressed_page_size = (int32_t)split;
        h.has_dictionary_page_header = true;
        h.dictionary_page_header.num_values = s[6] % 64;
        h.dictionary_page_header.encoding = PQ_ENC_PLAIN;
        dict_off = (int64_t)f.len;
        pm_pq_page_header_serialize(&h, &f);
        pm_buf_append(&f, p, split);
    }
    int64_t data_off = (int64_t)f.len;
    size_t body = n - split;
    pq_page_header h = {0};
    h.uncompressed_page_size = h.compressed_page_size = (int32_t)body;
    int32_t nv = s[6];
    if (v2) {
        h.type = PQ_DATA_PAGE_V2;
        h.has_data_page_header_v2 = true;
        h.data_page_header_v2.num_values = nv;
        h.data_page_header_v2.num_rows = nv;
        h.data_page_header_v2.encoding = enc;
        int32_t rl = max_rep ? (int32_t)((s[7] & 15) % (body + 1)) : 0;
        int32_t dl = max_def ? (int32_t)((s[7] >> 4) % (body - (size_t)rl + 1)) : 0;
        h.data_page_header_v2.repetition_levels_byte_length = rl;
        h.data_page_header_v2.definition_levels_byte_length = dl;
        h.data_page_header_v2.is_compressed = false;
    } else {
        h.type = PQ_DATA_PAGE;
        h.has_data_page_header = true;
        h.data_page_header.num_values = nv;
        h.data_page_header.encoding = enc;
        h.data_page_header.definition_level_encoding = (s[7] & 1) ? PQ_ENC_BIT_PACKED : PQ_ENC_RLE;
        h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
    }
    pm_pq_page_header_serialize(&h, &f);
    pm_buf_append(&f, p + split, body);
    int64_t chunk_len = (int64_t)f.len - chunk_start;

    pm_pq_file_meta *m;
    if (pm_pq_file_meta_new(&m)) {
        pm_buf_free(&f);
        return;
    }
    m->schema = el;
    m->num_schema = ns;
    /* rows: for flat columns the entries; for lists s[7] decides */
    int64_t rows = max_rep ? (s[7] % 8) : nv;
    m->num_rows = rows;
    pq_row_group rg = {0};
    pq_column_chunk cc = {0};
    int32_t encs[3] = {PQ_ENC_PLAIN, PQ_ENC_RLE, enc};
    const char *path[1] = {"v"};
    cc.file_offset = chunk_start;
    cc.has_meta_data = true;
    cc.meta_data.type = pt;
    cc.meta_data.encodings = encs;
    cc.meta_data.num_encodings = 3;
    cc.meta_data.path_in_schema = path;
    cc.meta_data.path_len = 1;
    cc.meta_data.codec = 0;
    cc.meta_data.num_values = nv;
    cc.meta_data.total_compressed_size = cc.meta_data.total_uncompressed_size = chunk_len;
    cc.meta_data.data_page_offset = data_off;
    if (dict) {
        cc.meta_data.has_dictionary_page_offset = true;
        cc.meta_data.dictionary_page_offset = dict_off;
    }
    rg.columns = &cc;
    rg.num_columns = 1;
    rg.num_rows = rows;
    m->row_groups = &rg;
    m->num_row_groups = 1;
    size_t fs = f.len;
    pm_error *e = pm_pq_file_meta_serialize(m, &f);
    m->schema = NULL;
    m->row_groups = NULL;
    pm_pq_file_meta_free(m);
    if (e) {
        pm_error_free(e);
        pm_buf_free(&f);
        return;
    }
    pm_buf_append_u32le(&f, (uint32_t)(f.len - fs));
    pm_buf_append(&f, "PAR1", 4);

    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.batch_rows = 1 + s[5] % 7;
    o.max_page_bytes = 1 << 20;
    pm_pq_reader *r;
    e = pm_pq_reader_open_memory(&r, f.data, f.len, &o);
    if (!e) {
        pm_buf line = PM_BUF_INIT;
        for (;;) {
            pm_batch *b;
            e = pm_pq_reader_next_batch(r, &b);
            if (e || !b)
                break;
            for (int64_t i = 0; i < pm_batch_num_rows(b); i++) {
                pm_buf_clear(&line);
                pm_error_free(pm_batch_format_row_json(b, i, &line));
            }
        }
        pm_buf_free(&line);
        pm_pq_reader_free(r);
    }
    pm_error_free(e);
    pm_buf_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    if (data[0] % 6 < 4)
        direct(data, data + 8, size - 8);
    else
        whole_file(data, data + 8, size - 8);
    return 0;
}
