/*
 * tests/unit/parquet/test_pq_read_index.c — ColumnIndex / OffsetIndex
 * parsing (pq_read_index.h): what the page-index writer (pq_write_index.h)
 * serializes parses back page by page (pages from statistics bytes with
 * pq_page_index_add_bytes, null pages, BYTE_ARRAY truncation and value
 * bytes, the boundary order computed over the pages), an unknown value-bytes list is
 * left out, and hostile bytes are refused: truncation at every length,
 * lists whose lengths disagree, a missing required field, page locations
 * out of order or with a non-positive size.
 */
#include <string.h>

#include "pm_test.h"
#include "format/parquet/pq_read_index.h"
#include "format/parquet/pq_write_index.h"
#include "format/parquet/thrift.h"

static pq_leaf leaf_of(int32_t phys, pq_stats_kind k)
{
    pq_leaf l;
    memset(&l, 0, sizeof l);
    l.phys = phys;
    l.stats = k;
    l.max_def = 1;
    return l;
}

static void test_round_trip_i32(void **state)
{
    (void)state;
    pq_leaf l = leaf_of(PQ_INT32, PQS_I32);
    pq_page_index pi;
    memset(&pi, 0, sizeof pi);
    int32_t lo[] = {1, 5, 0, 9}, hi[] = {4, 8, 0, 12};
    for (int p = 0; p < 4; p++) {
        bool null_page = p == 2;
        PM_OK_OR_FAIL(pq_page_index_add_bytes(&pi, &l, p * 100, 100, p * 10, null_page ? 10 : p, 0, null_page,
                                              null_page ? NULL : (const uint8_t *)&lo[p], 4,
                                              null_page ? NULL : (const uint8_t *)&hi[p], 4));
    }
    pm_buf ci = PM_BUF_INIT, oi = PM_BUF_INIT;
    bool written = false;
    PM_OK_OR_FAIL(pq_page_index_column_index(&pi, &l, &ci, &written));
    assert_true(written);
    PM_OK_OR_FAIL(pq_page_index_offset_index(&pi, &l, 1000, &oi));
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_column_index c;
    PM_OK_OR_FAIL(pq_column_index_parse(&c, ci.data, ci.len, &a));
    assert_int_equal(c.n, 4);
    assert_int_equal(c.boundary_order, 1); /* ascending over the non-null pages */
    assert_true(c.has_null_counts);
    for (int p = 0; p < 4; p++) {
        assert_int_equal(c.null_pages[p], p == 2);
        assert_int_equal(c.null_counts[p], p == 2 ? 10 : p);
        if (p != 2) {
            assert_int_equal(c.min_len[p], 4);
            assert_memory_equal(c.min[p], &lo[p], 4);
            assert_memory_equal(c.max[p], &hi[p], 4);
        } else {
            assert_int_equal(c.min_len[p], 0);
        }
    }
    pq_offset_index o;
    PM_OK_OR_FAIL(pq_offset_index_parse(&o, oi.data, oi.len, &a));
    assert_int_equal(o.n, 4);
    assert_false(o.has_unencoded);
    for (int p = 0; p < 4; p++) {
        assert_int_equal(o.pages[p].offset, 1000 + p * 100);
        assert_int_equal(o.pages[p].size, 100);
        assert_int_equal(o.pages[p].first_row, p * 10);
    }
    /* every truncation is refused, never read past */
    for (size_t n = 0; n < ci.len; n++) {
        pm_error *e = pq_column_index_parse(&c, ci.data, n, &a);
        assert_non_null(e);
        pm_error_free(e);
    }
    for (size_t n = 0; n < oi.len; n++) {
        pm_error *e = pq_offset_index_parse(&o, oi.data, n, &a);
        assert_non_null(e);
        pm_error_free(e);
    }
    pm_arena_free(&a);
    pm_buf_free(&ci);
    pm_buf_free(&oi);
    pq_page_index_free(&pi);
}

static void test_byte_array(void **state)
{
    (void)state;
    pq_leaf l = leaf_of(PQ_BYTE_ARRAY, PQS_BYTES);
    pq_page_index pi;
    memset(&pi, 0, sizeof pi);
    char longv[100];
    memset(longv, 'z', sizeof longv);
    PM_OK_OR_FAIL(pq_page_index_add_bytes(&pi, &l, 0, 50, 0, 0, 77, false, (const uint8_t *)"b", 1,
                                          (const uint8_t *)longv, sizeof longv));
    PM_OK_OR_FAIL(pq_page_index_add_bytes(&pi, &l, 50, 60, 5, 1, 33, false, (const uint8_t *)"a", 1,
                                          (const uint8_t *)"c", 1));
    pm_buf ci = PM_BUF_INIT, oi = PM_BUF_INIT;
    bool written = false;
    PM_OK_OR_FAIL(pq_page_index_column_index(&pi, &l, &ci, &written));
    PM_OK_OR_FAIL(pq_page_index_offset_index(&pi, &l, 4, &oi));
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_column_index c;
    PM_OK_OR_FAIL(pq_column_index_parse(&c, ci.data, ci.len, &a));
    assert_int_equal(c.n, 2);
    assert_int_equal(c.boundary_order, 2); /* min and max both go down: descending */
    assert_int_equal(c.max_len[0], PQ_COLUMN_INDEX_TRUNCATE);
    assert_int_equal(c.max[0][PQ_COLUMN_INDEX_TRUNCATE - 1], 'z' + 1); /* truncated max rounded up */
    pq_offset_index o;
    PM_OK_OR_FAIL(pq_offset_index_parse(&o, oi.data, oi.len, &a));
    assert_true(o.has_unencoded);
    assert_int_equal(o.unencoded[0], 77);
    assert_int_equal(o.unencoded[1], 33);
    pq_size_statistics ss;
    PM_OK_OR_FAIL(pq_page_index_size_stats(&pi, &l, &a, &ss));
    assert_true(ss.has_unencoded_byte_array_data_bytes);
    assert_int_equal(ss.unencoded_byte_array_data_bytes, 110);
    /* unknown value bytes: left out of both */
    pi.no_unencoded = true;
    pm_buf_clear(&oi);
    PM_OK_OR_FAIL(pq_page_index_offset_index(&pi, &l, 4, &oi));
    PM_OK_OR_FAIL(pq_offset_index_parse(&o, oi.data, oi.len, &a));
    assert_false(o.has_unencoded);
    PM_OK_OR_FAIL(pq_page_index_size_stats(&pi, &l, &a, &ss));
    assert_false(ss.has_unencoded_byte_array_data_bytes);
    pm_arena_free(&a);
    pm_buf_free(&ci);
    pm_buf_free(&oi);
    pq_page_index_free(&pi);
}

static void expect_corrupt(pm_error *e)
{
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_ECORRUPT);
    pm_error_free(e);
}

static void test_hostile(void **state)
{
    (void)state;
    pm_arena a;
    pm_arena_init(&a, 0);
    pm_buf b = PM_BUF_INIT;
    pq_thrift_writer w;
    pq_column_index c;
    pq_offset_index o;
    /* null_pages of 2 entries, min_values of 1 */
    pq_thrift_writer_init(&w, &b);
    PM_OK_OR_FAIL(pq_thrift_w_struct_begin(&w));
    PM_OK_OR_FAIL(pq_thrift_w_field(&w, 1, PQ_TT_LIST));
    PM_OK_OR_FAIL(pq_thrift_w_list(&w, PQ_TT_BOOL_TRUE, 2));
    PM_OK_OR_FAIL(pq_thrift_w_bool_elem(&w, false));
    PM_OK_OR_FAIL(pq_thrift_w_bool_elem(&w, false));
    PM_OK_OR_FAIL(pq_thrift_w_field(&w, 2, PQ_TT_LIST));
    PM_OK_OR_FAIL(pq_thrift_w_list(&w, PQ_TT_BINARY, 1));
    PM_OK_OR_FAIL(pq_thrift_w_binary(&w, "x", 1));
    PM_OK_OR_FAIL(pq_thrift_w_struct_end(&w));
    expect_corrupt(pq_column_index_parse(&c, b.data, b.len, &a));
    /* a ColumnIndex without boundary_order */
    pm_buf_clear(&b);
    pq_thrift_writer_init(&w, &b);
    PM_OK_OR_FAIL(pq_thrift_w_struct_begin(&w));
    for (int16_t f = 1; f <= 3; f++) {
        PM_OK_OR_FAIL(pq_thrift_w_field(&w, f, PQ_TT_LIST));
        PM_OK_OR_FAIL(pq_thrift_w_list(&w, f == 1 ? PQ_TT_BOOL_TRUE : PQ_TT_BINARY, 0));
    }
    PM_OK_OR_FAIL(pq_thrift_w_struct_end(&w));
    expect_corrupt(pq_column_index_parse(&c, b.data, b.len, &a));
    /* page locations: out of order, then a zero size */
    for (int k = 0; k < 2; k++) {
        pm_buf_clear(&b);
        pq_thrift_writer_init(&w, &b);
        PM_OK_OR_FAIL(pq_thrift_w_struct_begin(&w));
        PM_OK_OR_FAIL(pq_thrift_w_field(&w, 1, PQ_TT_LIST));
        PM_OK_OR_FAIL(pq_thrift_w_list(&w, PQ_TT_STRUCT, 2));
        for (int p = 0; p < 2; p++) {
            PM_OK_OR_FAIL(pq_thrift_w_struct_begin(&w));
            PM_OK_OR_FAIL(pq_thrift_w_field_i64(&w, 1, 4 + p * 10));
            PM_OK_OR_FAIL(pq_thrift_w_field_i32(&w, 2, k == 1 && p == 1 ? 0 : 10));
            PM_OK_OR_FAIL(pq_thrift_w_field_i64(&w, 3, k == 0 ? 5 - p * 5 : p * 5));
            PM_OK_OR_FAIL(pq_thrift_w_struct_end(&w));
        }
        PM_OK_OR_FAIL(pq_thrift_w_struct_end(&w));
        expect_corrupt(pq_offset_index_parse(&o, b.data, b.len, &a));
    }
    /* an empty struct is no OffsetIndex */
    const uint8_t empty[] = {0x00};
    expect_corrupt(pq_offset_index_parse(&o, empty, 1, &a));
    pm_buf_free(&b);
    pm_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_i32),
        cmocka_unit_test(test_byte_array),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
