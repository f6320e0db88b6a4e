/*
 * tests/unit/parquet/test_pq_read_meta.c — Parquet footer and page-header
 * thrift structures: a full footer built by hand → serialize → parse →
 * compare every field → serialize again (same bytes); page headers of every
 * kind; hand-encoded byte vectors; every truncation of a footer fails
 * cleanly; and the footers of all Java-written fixture files parse and
 * survive a serialize/parse round trip.
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "pm_test.h"
#include "base/buf.h"
#include "format/parquet/parquet_meta.h"

static void expect_bytes_eq(const uint8_t *a, uint32_t al, const uint8_t *b, uint32_t bl)
{
    assert_int_equal(al, bl);
    if (al)
        assert_memory_equal(a, b, al);
}

static void expect_str_eq(const char *a, const char *b)
{
    if (!a || !b) {
        assert_true(a == b);
        return;
    }
    assert_string_equal(a, b);
}

static void expect_stats_eq(const pq_statistics *a, const pq_statistics *b)
{
    assert_int_equal(a->has_max, b->has_max);
    if (a->has_max) expect_bytes_eq(a->max, a->max_len, b->max, b->max_len);
    assert_int_equal(a->has_min, b->has_min);
    if (a->has_min) expect_bytes_eq(a->min, a->min_len, b->min, b->min_len);
    assert_int_equal(a->has_null_count, b->has_null_count);
    if (a->has_null_count) assert_int_equal(a->null_count, b->null_count);
    assert_int_equal(a->has_distinct_count, b->has_distinct_count);
    if (a->has_distinct_count) assert_int_equal(a->distinct_count, b->distinct_count);
    assert_int_equal(a->has_max_value, b->has_max_value);
    if (a->has_max_value) expect_bytes_eq(a->max_value, a->max_value_len, b->max_value, b->max_value_len);
    assert_int_equal(a->has_min_value, b->has_min_value);
    if (a->has_min_value) expect_bytes_eq(a->min_value, a->min_value_len, b->min_value, b->min_value_len);
    assert_int_equal(a->has_is_max_value_exact, b->has_is_max_value_exact);
    if (a->has_is_max_value_exact) assert_int_equal(a->is_max_value_exact, b->is_max_value_exact);
    assert_int_equal(a->has_is_min_value_exact, b->has_is_min_value_exact);
    if (a->has_is_min_value_exact) assert_int_equal(a->is_min_value_exact, b->is_min_value_exact);
}

static void expect_kv_eq(const pq_key_value *a, uint32_t an, const pq_key_value *b, uint32_t bn)
{
    assert_int_equal(an, bn);
    for (uint32_t i = 0; i < an; i++) {
        expect_str_eq(a[i].key, b[i].key);
        expect_str_eq(a[i].value, b[i].value);
    }
}

static void expect_meta_eq(const pm_pq_file_meta *a, const pm_pq_file_meta *b)
{
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->num_rows, b->num_rows);
    expect_str_eq(a->created_by, b->created_by);
    assert_int_equal(a->has_column_orders, b->has_column_orders);
    assert_int_equal(a->num_column_orders, b->num_column_orders);
    expect_kv_eq(a->key_value_metadata, a->num_key_value_metadata, b->key_value_metadata,
                 b->num_key_value_metadata);
    assert_int_equal(a->num_schema, b->num_schema);
    for (uint32_t i = 0; i < a->num_schema; i++) {
        const pq_schema_element *x = &a->schema[i], *y = &b->schema[i];
        expect_str_eq(x->name, y->name);
        assert_int_equal(x->has_type, y->has_type);
        if (x->has_type) assert_int_equal(x->type, y->type);
        assert_int_equal(x->has_type_length, y->has_type_length);
        if (x->has_type_length) assert_int_equal(x->type_length, y->type_length);
        assert_int_equal(x->has_repetition, y->has_repetition);
        if (x->has_repetition) assert_int_equal(x->repetition, y->repetition);
        assert_int_equal(x->has_num_children, y->has_num_children);
        if (x->has_num_children) assert_int_equal(x->num_children, y->num_children);
        assert_int_equal(x->has_converted_type, y->has_converted_type);
        if (x->has_converted_type) assert_int_equal(x->converted_type, y->converted_type);
        assert_int_equal(x->has_scale, y->has_scale);
        if (x->has_scale) assert_int_equal(x->scale, y->scale);
        assert_int_equal(x->has_precision, y->has_precision);
        if (x->has_precision) assert_int_equal(x->precision, y->precision);
        assert_int_equal(x->has_field_id, y->has_field_id);
        if (x->has_field_id) assert_int_equal(x->field_id, y->field_id);
        assert_int_equal(x->has_logical_type, y->has_logical_type);
        if (x->has_logical_type) {
            const pq_logical_type *l = &x->logical_type, *m = &y->logical_type;
            assert_int_equal(l->kind, m->kind);
            assert_int_equal(l->decimal_scale, m->decimal_scale);
            assert_int_equal(l->decimal_precision, m->decimal_precision);
            assert_int_equal(l->is_adjusted_to_utc, m->is_adjusted_to_utc);
            assert_int_equal(l->unit, m->unit);
            assert_int_equal(l->int_bit_width, m->int_bit_width);
            assert_int_equal(l->int_is_signed, m->int_is_signed);
        }
    }
    assert_int_equal(a->num_row_groups, b->num_row_groups);
    for (uint32_t g = 0; g < a->num_row_groups; g++) {
        const pq_row_group *x = &a->row_groups[g], *y = &b->row_groups[g];
        assert_int_equal(x->total_byte_size, y->total_byte_size);
        assert_int_equal(x->num_rows, y->num_rows);
        assert_int_equal(x->has_file_offset, y->has_file_offset);
        if (x->has_file_offset) assert_int_equal(x->file_offset, y->file_offset);
        assert_int_equal(x->has_total_compressed_size, y->has_total_compressed_size);
        if (x->has_total_compressed_size) assert_int_equal(x->total_compressed_size, y->total_compressed_size);
        assert_int_equal(x->has_ordinal, y->has_ordinal);
        if (x->has_ordinal) assert_int_equal(x->ordinal, y->ordinal);
        assert_int_equal(x->num_sorting_columns, y->num_sorting_columns);
        for (uint32_t i = 0; i < x->num_sorting_columns; i++) {
            assert_int_equal(x->sorting_columns[i].column_idx, y->sorting_columns[i].column_idx);
            assert_int_equal(x->sorting_columns[i].descending, y->sorting_columns[i].descending);
            assert_int_equal(x->sorting_columns[i].nulls_first, y->sorting_columns[i].nulls_first);
        }
        assert_int_equal(x->num_columns, y->num_columns);
        for (uint32_t c = 0; c < x->num_columns; c++) {
            const pq_column_chunk *p = &x->columns[c], *q = &y->columns[c];
            expect_str_eq(p->file_path, q->file_path);
            assert_int_equal(p->file_offset, q->file_offset);
            assert_int_equal(p->has_offset_index, q->has_offset_index);
            if (p->has_offset_index) {
                assert_int_equal(p->offset_index_offset, q->offset_index_offset);
                assert_int_equal(p->offset_index_length, q->offset_index_length);
            }
            assert_int_equal(p->has_column_index, q->has_column_index);
            if (p->has_column_index) {
                assert_int_equal(p->column_index_offset, q->column_index_offset);
                assert_int_equal(p->column_index_length, q->column_index_length);
            }
            assert_int_equal(p->has_meta_data, q->has_meta_data);
            if (!p->has_meta_data)
                continue;
            const pq_column_meta *m = &p->meta_data, *n = &q->meta_data;
            assert_int_equal(m->type, n->type);
            assert_int_equal(m->num_encodings, n->num_encodings);
            for (uint32_t i = 0; i < m->num_encodings; i++)
                assert_int_equal(m->encodings[i], n->encodings[i]);
            assert_int_equal(m->path_len, n->path_len);
            for (uint32_t i = 0; i < m->path_len; i++)
                assert_string_equal(m->path_in_schema[i], n->path_in_schema[i]);
            assert_int_equal(m->codec, n->codec);
            assert_int_equal(m->num_values, n->num_values);
            assert_int_equal(m->total_uncompressed_size, n->total_uncompressed_size);
            assert_int_equal(m->total_compressed_size, n->total_compressed_size);
            expect_kv_eq(m->key_value_metadata, m->num_key_value_metadata, n->key_value_metadata,
                         n->num_key_value_metadata);
            assert_int_equal(m->data_page_offset, n->data_page_offset);
            assert_int_equal(m->has_index_page_offset, n->has_index_page_offset);
            if (m->has_index_page_offset) assert_int_equal(m->index_page_offset, n->index_page_offset);
            assert_int_equal(m->has_dictionary_page_offset, n->has_dictionary_page_offset);
            if (m->has_dictionary_page_offset) assert_int_equal(m->dictionary_page_offset, n->dictionary_page_offset);
            assert_int_equal(m->has_statistics, n->has_statistics);
            if (m->has_statistics) expect_stats_eq(&m->statistics, &n->statistics);
            assert_int_equal(m->num_encoding_stats, n->num_encoding_stats);
            for (uint32_t i = 0; i < m->num_encoding_stats; i++) {
                assert_int_equal(m->encoding_stats[i].page_type, n->encoding_stats[i].page_type);
                assert_int_equal(m->encoding_stats[i].encoding, n->encoding_stats[i].encoding);
                assert_int_equal(m->encoding_stats[i].count, n->encoding_stats[i].count);
            }
            assert_int_equal(m->has_bloom_filter_offset, n->has_bloom_filter_offset);
            if (m->has_bloom_filter_offset) assert_int_equal(m->bloom_filter_offset, n->bloom_filter_offset);
            assert_int_equal(m->has_bloom_filter_length, n->has_bloom_filter_length);
            if (m->has_bloom_filter_length) assert_int_equal(m->bloom_filter_length, n->bloom_filter_length);
        }
    }
}

/* A footer using every field: schema root{ id INT32 req, s BYTE_ARRAY STRING,
 * ts INT64 TIMESTAMP(MICROS, utc), d FLBA(9) DECIMAL(20,2), l LIST{ list { element INT8 } } }. */
static pm_pq_file_meta *build_full_footer(void)
{
    pm_pq_file_meta *m;
    PM_OK_OR_FAIL(pm_pq_file_meta_new(&m));
    pm_arena *a = &m->arena;
    m->version = 1;
    m->num_rows = 1234567890123LL;
    m->created_by = "paimon-c test";
    m->num_schema = 8;
    m->schema = pm_arena_calloc(a, 8 * sizeof(pq_schema_element), 8);
    pq_schema_element *s = m->schema;
    s[0].name = "paimon_schema";
    s[0].has_num_children = true; s[0].num_children = 5;
    s[0].has_repetition = true; s[0].repetition = PQ_REQUIRED;
    s[1].name = "id"; s[1].has_type = true; s[1].type = PQ_INT32;
    s[1].has_repetition = true; s[1].repetition = PQ_REQUIRED;
    s[1].has_field_id = true; s[1].field_id = 0;
    s[2].name = "s"; s[2].has_type = true; s[2].type = PQ_BYTE_ARRAY;
    s[2].has_repetition = true; s[2].repetition = PQ_OPTIONAL;
    s[2].has_converted_type = true; s[2].converted_type = PQ_CT_UTF8;
    s[2].has_logical_type = true; s[2].logical_type.kind = PQ_LT_STRING;
    s[2].has_field_id = true; s[2].field_id = 1;
    s[3].name = "ts"; s[3].has_type = true; s[3].type = PQ_INT64;
    s[3].has_repetition = true; s[3].repetition = PQ_OPTIONAL;
    s[3].has_logical_type = true; s[3].logical_type.kind = PQ_LT_TIMESTAMP;
    s[3].logical_type.is_adjusted_to_utc = true; s[3].logical_type.unit = PQ_UNIT_MICROS;
    s[3].has_field_id = true; s[3].field_id = 2;
    s[4].name = "d"; s[4].has_type = true; s[4].type = PQ_FIXED_LEN_BYTE_ARRAY;
    s[4].has_type_length = true; s[4].type_length = 9;
    s[4].has_repetition = true; s[4].repetition = PQ_OPTIONAL;
    s[4].has_converted_type = true; s[4].converted_type = PQ_CT_DECIMAL;
    s[4].has_scale = true; s[4].scale = 2; s[4].has_precision = true; s[4].precision = 20;
    s[4].has_logical_type = true; s[4].logical_type.kind = PQ_LT_DECIMAL;
    s[4].logical_type.decimal_precision = 20; s[4].logical_type.decimal_scale = 2;
    s[4].has_field_id = true; s[4].field_id = 3;
    s[5].name = "l"; s[5].has_repetition = true; s[5].repetition = PQ_OPTIONAL;
    s[5].has_num_children = true; s[5].num_children = 1;
    s[5].has_converted_type = true; s[5].converted_type = PQ_CT_LIST;
    s[5].has_logical_type = true; s[5].logical_type.kind = PQ_LT_LIST;
    s[5].has_field_id = true; s[5].field_id = 4;
    s[6].name = "list"; s[6].has_repetition = true; s[6].repetition = PQ_REPEATED;
    s[6].has_num_children = true; s[6].num_children = 1;
    s[7].name = "element"; s[7].has_type = true; s[7].type = PQ_INT32;
    s[7].has_repetition = true; s[7].repetition = PQ_OPTIONAL;
    s[7].has_logical_type = true; s[7].logical_type.kind = PQ_LT_INTEGER;
    s[7].logical_type.int_bit_width = 8; s[7].logical_type.int_is_signed = true;
    s[7].has_field_id = true; s[7].field_id = 536871936;

    m->num_key_value_metadata = 2;
    m->key_value_metadata = pm_arena_calloc(a, 2 * sizeof(pq_key_value), 8);
    m->key_value_metadata[0].key = "k";
    m->key_value_metadata[0].value = "v";
    m->key_value_metadata[1].key = "novalue";
    m->has_column_orders = true;
    m->num_column_orders = 5;

    m->num_row_groups = 2;
    m->row_groups = pm_arena_calloc(a, 2 * sizeof(pq_row_group), 8);
    for (uint32_t g = 0; g < 2; g++) {
        pq_row_group *rg = &m->row_groups[g];
        rg->num_rows = 1000 + g;
        rg->total_byte_size = 100000 + g;
        rg->has_file_offset = true; rg->file_offset = 4 + g * 5000;
        rg->has_total_compressed_size = true; rg->total_compressed_size = 4999;
        rg->has_ordinal = true; rg->ordinal = (int16_t)g;
        if (g == 1) {
            rg->num_sorting_columns = 1;
            rg->sorting_columns = pm_arena_calloc(a, sizeof(pq_sorting_column), 8);
            rg->sorting_columns[0].column_idx = 0;
            rg->sorting_columns[0].descending = true;
        }
        rg->num_columns = 5;
        rg->columns = pm_arena_calloc(a, 5 * sizeof(pq_column_chunk), 8);
        static const char *paths[5][3] = {{"id"}, {"s"}, {"ts"}, {"d"}, {"l", "list", "element"}};
        static const uint32_t plen[5] = {1, 1, 1, 1, 3};
        static const int32_t types[5] = {PQ_INT32, PQ_BYTE_ARRAY, PQ_INT64, PQ_FIXED_LEN_BYTE_ARRAY, PQ_INT32};
        for (uint32_t c = 0; c < 5; c++) {
            pq_column_chunk *cc = &rg->columns[c];
            cc->file_offset = 4 + c * 1000;
            cc->has_meta_data = true;
            pq_column_meta *cm = &cc->meta_data;
            cm->type = types[c];
            cm->num_encodings = 3;
            cm->encodings = pm_arena_calloc(a, 3 * sizeof(int32_t), 8);
            cm->encodings[0] = PQ_ENC_PLAIN;
            cm->encodings[1] = PQ_ENC_RLE;
            cm->encodings[2] = PQ_ENC_RLE_DICTIONARY;
            cm->path_len = plen[c];
            cm->path_in_schema = pm_arena_calloc(a, 3 * sizeof(char *), 8);
            for (uint32_t i = 0; i < plen[c]; i++)
                cm->path_in_schema[i] = paths[c][i];
            cm->codec = 6;
            cm->num_values = 1000 + c;
            cm->total_uncompressed_size = 9000 + c;
            cm->total_compressed_size = 900 + c;
            cm->data_page_offset = 4 + c * 1000 + 50;
            if (c == 1) {
                cm->has_dictionary_page_offset = true;
                cm->dictionary_page_offset = 4 + c * 1000;
                cm->num_key_value_metadata = 1;
                cm->key_value_metadata = pm_arena_calloc(a, sizeof(pq_key_value), 8);
                cm->key_value_metadata[0].key = "colkey";
                cm->key_value_metadata[0].value = "colvalue";
            }
            if (c == 2) {
                cm->has_index_page_offset = true;
                cm->index_page_offset = 77;
                cm->has_bloom_filter_offset = true;
                cm->bloom_filter_offset = 123456;
                cm->has_bloom_filter_length = true;
                cm->bloom_filter_length = 1024;
                cc->file_path = "other.parquet";
            }
            cm->has_statistics = true;
            pq_statistics *st = &cm->statistics;
            st->has_null_count = true; st->null_count = c;
            st->has_min_value = true; st->min_value = (const uint8_t *)"\x01\x00\x00\x00"; st->min_value_len = 4;
            st->has_max_value = true; st->max_value = (const uint8_t *)"\xff\xff\xff\x7f"; st->max_value_len = 4;
            if (c == 0) {
                st->has_min = true; st->min = (const uint8_t *)"\x01\x00\x00\x00"; st->min_len = 4;
                st->has_max = true; st->max = (const uint8_t *)""; st->max_len = 0;
                st->has_distinct_count = true; st->distinct_count = 17;
                st->has_is_max_value_exact = true; st->is_max_value_exact = true;
                st->has_is_min_value_exact = true; st->is_min_value_exact = false;
            }
            cm->num_encoding_stats = 2;
            cm->encoding_stats = pm_arena_calloc(a, 2 * sizeof(pq_page_encoding_stats), 8);
            cm->encoding_stats[0] = (pq_page_encoding_stats){PQ_DICTIONARY_PAGE, PQ_ENC_PLAIN, 1};
            cm->encoding_stats[1] = (pq_page_encoding_stats){PQ_DATA_PAGE, PQ_ENC_RLE_DICTIONARY, 3};
            if (c == 4) {
                cc->has_offset_index = true; cc->offset_index_offset = 88888; cc->offset_index_length = 40;
                cc->has_column_index = true; cc->column_index_offset = 99999; cc->column_index_length = 50;
            }
        }
    }
    return m;
}

static void test_footer_round_trip(void **state)
{
    (void)state;
    pm_pq_file_meta *m = build_full_footer();
    pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_pq_file_meta_serialize(m, &b1));
    pm_pq_file_meta *p;
    PM_OK_OR_FAIL(pm_pq_file_meta_parse(&p, b1.data, b1.len));
    expect_meta_eq(m, p);
    PM_OK_OR_FAIL(pm_pq_file_meta_serialize(p, &b2));
    assert_int_equal(b1.len, b2.len);
    assert_memory_equal(b1.data, b2.data, b1.len);
    /* Parsed strings are owned copies, NUL-terminated. */
    assert_ptr_not_equal(p->created_by, m->created_by);
    assert_string_equal(p->row_groups[1].columns[4].meta_data.path_in_schema[2], "element");

    /* Every truncation is a clean PM_ECORRUPT. */
    for (size_t cut = 0; cut < b1.len; cut++) {
        pm_pq_file_meta *q = NULL;
        PM_EXPECT_ERR(pm_pq_file_meta_parse(&q, b1.data, cut), PM_ECORRUPT);
        assert_null(q);
    }
    /* Flipping bytes never crashes (result may be an error or a footer). */
    for (size_t i = 0; i < b1.len; i++) {
        uint8_t save = b1.data[i];
        b1.data[i] ^= 0x5a;
        pm_pq_file_meta *q = NULL;
        pm_error *e = pm_pq_file_meta_parse(&q, b1.data, b1.len);
        pm_error_free(e);
        pm_pq_file_meta_free(q);
        b1.data[i] = save;
    }
    pm_pq_file_meta_free(p);
    pm_pq_file_meta_free(m);
    pm_buf_free(&b1);
    pm_buf_free(&b2);
}

/* Hand-encoded minimal FileMetaData: version 1, schema [root(1 child), a INT32 required],
 * num_rows 3, one row group with one column, unknown field 99 (a struct) skipped. */
static void test_footer_hand_bytes(void **state)
{
    (void)state;
    const uint8_t bytes[] = {
        0x15, 0x02,                         /* 1: version = 1 */
        0x19, 0x2c,                         /* 2: list<struct> size 2 */
          0x48, 0x04, 'r', 'o', 'o', 't',   /*   4: name "root" */
          0x15, 0x02,                       /*   5: num_children 1 */
          0x00,
          0x15, 0x02,                       /*   1: type INT32 */
          0x25, 0x00,                       /*   3: repetition REQUIRED */
          0x18, 0x01, 'a',                  /*   4: name "a" */
          0x55, 0x0e,                       /*   9: field_id 7 */
          0x00,
        0x16, 0x06,                         /* 3: num_rows 3 */
        0x19, 0x1c,                         /* 4: list<struct> size 1 (RowGroup) */
          0x19, 0x1c,                       /*   1: columns, 1 ColumnChunk */
            0x26, 0x08,                     /*     2: file_offset 4 */
            0x1c,                           /*     3: meta_data */
              0x15, 0x02,                   /*       1: type INT32 */
              0x19, 0x15, 0x00,             /*       2: encodings [PLAIN] */
              0x19, 0x18, 0x01, 'a',        /*       3: path ["a"] */
              0x15, 0x00,                   /*       4: codec UNCOMPRESSED */
              0x16, 0x06,                   /*       5: num_values 3 */
              0x16, 0x30,                   /*       6: total_uncompressed 24 */
              0x16, 0x30,                   /*       7: total_compressed 24 */
              0x26, 0x08,                   /*       9: data_page_offset 4 */
              0x00,
            0x00,
          0x16, 0x30,                       /*   2: total_byte_size 24 */
          0x16, 0x06,                       /*   3: num_rows 3 */
          0x00,
        0x0c, 0xc6, 0x01,                   /* 99: struct (unknown) */
          0x15, 0x02, 0x00,
        0x00,
    };
    pm_pq_file_meta *m;
    PM_OK_OR_FAIL(pm_pq_file_meta_parse(&m, bytes, sizeof bytes));
    assert_int_equal(m->version, 1);
    assert_int_equal(m->num_schema, 2);
    assert_string_equal(m->schema[0].name, "root");
    assert_int_equal(m->schema[0].num_children, 1);
    assert_string_equal(m->schema[1].name, "a");
    assert_int_equal(m->schema[1].field_id, 7);
    assert_true(m->schema[1].has_repetition);
    assert_int_equal(m->num_rows, 3);
    assert_int_equal(m->num_row_groups, 1);
    assert_int_equal(m->row_groups[0].num_rows, 3);
    const pq_column_meta *cm = &m->row_groups[0].columns[0].meta_data;
    assert_int_equal(cm->num_values, 3);
    assert_int_equal(cm->data_page_offset, 4);
    assert_int_equal(cm->total_compressed_size, 24);
    assert_null(m->created_by);
    pm_pq_file_meta_free(m);

    /* Missing required num_rows → corrupt. */
    const uint8_t no_rows[] = {0x15, 0x02, 0x19, 0x0c, 0x39, 0x0c, 0x00};
    PM_EXPECT_ERR(pm_pq_file_meta_parse(&m, no_rows, sizeof no_rows), PM_ECORRUPT);
    /* Wrong wire type for schema (i32 instead of list). */
    const uint8_t bad_type[] = {0x15, 0x02, 0x15, 0x02, 0x00};
    PM_EXPECT_ERR(pm_pq_file_meta_parse(&m, bad_type, sizeof bad_type), PM_ECORRUPT);
}

static void test_page_headers(void **state)
{
    (void)state;
    pq_page_header h = {0};
    h.type = PQ_DATA_PAGE;
    h.uncompressed_page_size = 1000;
    h.compressed_page_size = 600;
    h.has_crc = true;
    h.crc = -12345;
    h.has_data_page_header = true;
    h.data_page_header.num_values = 100;
    h.data_page_header.encoding = PQ_ENC_RLE_DICTIONARY;
    h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
    h.data_page_header.repetition_level_encoding = PQ_ENC_BIT_PACKED;
    h.data_page_header.has_statistics = true;
    h.data_page_header.statistics.has_null_count = true;
    h.data_page_header.statistics.null_count = 5;
    h.data_page_header.statistics.has_min_value = true;
    h.data_page_header.statistics.min_value = (const uint8_t *)"abc";
    h.data_page_header.statistics.min_value_len = 3;
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_pq_page_header_serialize(&h, &b));
    PM_OK_OR_FAIL(pm_buf_append(&b, "PAYLOAD", 7));
    pq_page_header p;
    size_t used;
    PM_OK_OR_FAIL(pm_pq_page_header_parse(&p, b.data, b.len, &used));
    assert_int_equal(used, b.len - 7);
    assert_int_equal(p.type, PQ_DATA_PAGE);
    assert_int_equal(p.crc, -12345);
    assert_int_equal(p.compressed_page_size, 600);
    assert_int_equal(p.data_page_header.num_values, 100);
    assert_int_equal(p.data_page_header.encoding, PQ_ENC_RLE_DICTIONARY);
    assert_int_equal(p.data_page_header.repetition_level_encoding, PQ_ENC_BIT_PACKED);
    assert_true(p.data_page_header.has_statistics);
    assert_int_equal(p.data_page_header.statistics.null_count, 5);
    assert_int_equal(p.data_page_header.statistics.min_value_len, 3);
    /* borrowed: points into b */
    assert_true(p.data_page_header.statistics.min_value >= b.data &&
                p.data_page_header.statistics.min_value < b.data + b.len);
    assert_false(p.has_data_page_header_v2);
    for (size_t cut = 0; cut < used; cut++)
        PM_EXPECT_ERR(pm_pq_page_header_parse(&p, b.data, cut, &used), PM_ECORRUPT);

    pm_buf_clear(&b);
    memset(&h, 0, sizeof h);
    h.type = PQ_DICTIONARY_PAGE;
    h.uncompressed_page_size = 40;
    h.compressed_page_size = 40;
    h.has_dictionary_page_header = true;
    h.dictionary_page_header.num_values = 10;
    h.dictionary_page_header.encoding = PQ_ENC_PLAIN_DICTIONARY;
    h.dictionary_page_header.has_is_sorted = true;
    h.dictionary_page_header.is_sorted = true;
    PM_OK_OR_FAIL(pm_pq_page_header_serialize(&h, &b));
    PM_OK_OR_FAIL(pm_pq_page_header_parse(&p, b.data, b.len, &used));
    assert_int_equal(used, b.len);
    assert_true(p.has_dictionary_page_header);
    assert_int_equal(p.dictionary_page_header.num_values, 10);
    assert_true(p.dictionary_page_header.is_sorted);
    assert_false(p.has_crc);

    pm_buf_clear(&b);
    memset(&h, 0, sizeof h);
    h.type = PQ_DATA_PAGE_V2;
    h.uncompressed_page_size = 4000;
    h.compressed_page_size = 4000;
    h.has_data_page_header_v2 = true;
    h.data_page_header_v2.num_values = 30;
    h.data_page_header_v2.num_nulls = 3;
    h.data_page_header_v2.num_rows = 10;
    h.data_page_header_v2.encoding = PQ_ENC_DELTA_BINARY_PACKED;
    h.data_page_header_v2.definition_levels_byte_length = 7;
    h.data_page_header_v2.repetition_levels_byte_length = 9;
    h.data_page_header_v2.is_compressed = false;
    PM_OK_OR_FAIL(pm_pq_page_header_serialize(&h, &b));
    PM_OK_OR_FAIL(pm_pq_page_header_parse(&p, b.data, b.len, &used));
    assert_true(p.has_data_page_header_v2);
    assert_int_equal(p.data_page_header_v2.num_rows, 10);
    assert_int_equal(p.data_page_header_v2.num_nulls, 3);
    assert_int_equal(p.data_page_header_v2.definition_levels_byte_length, 7);
    assert_int_equal(p.data_page_header_v2.repetition_levels_byte_length, 9);
    assert_false(p.data_page_header_v2.is_compressed);

    /* v2 header without is_compressed defaults to true (hand bytes). */
    const uint8_t v2[] = {0x15, 0x06, 0x15, 0x10, 0x15, 0x10,   /* type 3, sizes 8, 8 */
                          0x5c,                                 /* 8: data_page_header_v2 */
                          0x15, 0x04, 0x15, 0x00, 0x15, 0x04,   /* 1..3 */
                          0x15, 0x00, 0x15, 0x00, 0x15, 0x00,   /* 4..6 */
                          0x00, 0x00};
    PM_OK_OR_FAIL(pm_pq_page_header_parse(&p, v2, sizeof v2, &used));
    assert_int_equal(used, sizeof v2);
    assert_true(p.data_page_header_v2.is_compressed);
    assert_int_equal(p.data_page_header_v2.num_values, 2);
    pm_buf_free(&b);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(pq_type_name(PQ_FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY");
    assert_string_equal(pq_type_name(99), "UNKNOWN");
    assert_string_equal(pq_encoding_name(PQ_ENC_BYTE_STREAM_SPLIT), "BYTE_STREAM_SPLIT");
    assert_string_equal(pq_encoding_name(PQ_ENC_PLAIN_DICTIONARY), "PLAIN_DICTIONARY");
    assert_string_equal(pq_converted_type_name(PQ_CT_TIMESTAMP_MICROS), "TIMESTAMP_MICROS");
    assert_string_equal(pq_converted_type_name(-1), "UNKNOWN");
    assert_string_equal(pq_repetition_name(PQ_REPEATED), "REPEATED");
}

/* Footers written by parquet-java: parse, serialize, parse again, compare. */
static int check_file(const char *path, int *identical)
{
    size_t len;
    uint8_t *data = pm_test_read_file(path, &len);
    assert_non_null(data);
    assert_true(len >= 12);
    assert_memory_equal(data + len - 4, "PAR1", 4);
    uint32_t flen = (uint32_t)data[len - 8] | (uint32_t)data[len - 7] << 8 | (uint32_t)data[len - 6] << 16 |
                    (uint32_t)data[len - 5] << 24;
    assert_true(flen <= len - 12);
    const uint8_t *footer = data + len - 8 - flen;
    pm_pq_file_meta *m, *p;
    PM_OK_OR_FAIL(pm_pq_file_meta_parse(&m, footer, flen));
    assert_true(m->num_schema >= 2);
    assert_true(m->num_row_groups >= 1 || m->num_rows == 0);
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_pq_file_meta_serialize(m, &b));
    PM_OK_OR_FAIL(pm_pq_file_meta_parse(&p, b.data, b.len));
    expect_meta_eq(m, p);
    if (b.len == flen && memcmp(b.data, footer, flen) == 0)
        (*identical)++;
    pm_buf_free(&b);
    pm_pq_file_meta_free(m);
    pm_pq_file_meta_free(p);
    free(data);
    return 1;
}

static int walk(const char *dir, int *identical)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            n += walk(path, identical);
        else if (strlen(de->d_name) > 8 && !strcmp(de->d_name + strlen(de->d_name) - 8, ".parquet"))
            n += check_file(path, identical);
    }
    closedir(d);
    return n;
}

static void test_java_fixture_footers(void **state)
{
    (void)state;
    int identical = 0;
    int n = walk(PM_FIXTURES_DIR "/java-written", &identical);
    if (n == 0)
        skip();
    print_message("parsed %d java-written footers, %d re-serialized byte-identical\n", n, identical);
    assert_true(n >= 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_footer_round_trip),
        cmocka_unit_test(test_footer_hand_bytes),
        cmocka_unit_test(test_page_headers),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_java_fixture_footers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
