/*
 * tests/unit/table/test_file_roll.c — steps shared by the rolling
 * data-file writers (table/file_roll.h): row-range copies, the raw size
 * estimate, Avro-accumulator column stats, the append files' empty keys,
 * the creation/delete/source stamp and the finished-file list.
 */
#include <string.h>

#include "pm_test.h"
#include "table/file_roll.h"
#include "types/value.h"

static const char *RT = "ROW<a INT, s STRING>";

static pm_batch *rows(const char *jsonl)
{
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, RT, jsonl, strlen(jsonl)));
    return b;
}

static void test_copy_range_and_raw_bytes(void **state)
{
    (void)state;
    pm_batch *b = rows("{\"a\":1,\"s\":\"x\"}\n{\"a\":2,\"s\":\"yy\"}\n{\"a\":3,\"s\":null}\n{\"a\":4,\"s\":\"zzz\"}\n");
    pm_batch *dst = NULL;
    PM_OK_OR_FAIL(pm_batch_new(&dst, pm_batch_type(b)));
    PM_OK_OR_FAIL(pm_roll_copy_range(dst, b, 1, 3));
    assert_int_equal(dst->num_rows, 2);
    assert_int_equal(pm_column_i32(dst->columns[0], 0), 2);
    assert_int_equal(pm_column_i32(dst->columns[0], 1), 3);
    assert_int_equal(dst->columns[1]->null_count, 1);
    /* reset on every copy */
    PM_OK_OR_FAIL(pm_roll_copy_range(dst, b, 3, 4));
    assert_int_equal(dst->num_rows, 1);
    assert_int_equal(pm_column_i32(dst->columns[0], 0), 4);

    uint64_t want = 0;
    for (size_t c = 0; c < b->ncolumns; c++) {
        const pm_column *col = b->columns[c];
        want += col->values.len + col->data.len + col->offsets.len + col->validity.len;
    }
    assert_true(want >= 4 * 4 + 6); /* four INTs and six string bytes at least */
    assert_int_equal(pm_roll_raw_bytes(b), want);
    pm_batch_free(dst);
    pm_batch_free(b);
}

static void test_col_stats_from_accumulators(void **state)
{
    (void)state;
    pm_batch *b = rows("{\"a\":5,\"s\":\"b\"}\n{\"a\":-2,\"s\":null}\n");
    const pm_type *rt = pm_batch_type(b);
    pm_stats_mode modes[2] = {{PM_STATS_FULL, 0}, {PM_STATS_FULL, 0}};
    pm_stats_accum accs[2];
    for (size_t i = 0; i < 2; i++) {
        pm_stats_accum_init(&accs[i], rt->fields[i].type, modes[i]);
        PM_OK_OR_FAIL(pm_stats_accum_add(&accs[i], b->columns[i], 0, 2));
    }
    pm_col_stats *cs = NULL;
    PM_OK_OR_FAIL(pm_roll_col_stats(rt, modes, false, accs, NULL, &cs));
    assert_true(cs[0].has_min && cs[0].has_max);
    assert_int_equal(cs[0].min.i, -2);
    assert_int_equal(cs[0].max.i, 5);
    assert_int_equal(cs[1].null_count, 1);
    for (size_t i = 0; i < 2; i++)
        pm_col_stats_clear(&cs[i]);
    free(cs);

    /* disabled: every field NONE */
    PM_OK_OR_FAIL(pm_roll_col_stats(rt, modes, true, accs, NULL, &cs));
    assert_true(pm_col_stats_is_none(&cs[0]) && pm_col_stats_is_none(&cs[1]));
    free(cs);
    for (size_t i = 0; i < 2; i++)
        pm_stats_accum_clear(&accs[i]);
    pm_batch_free(b);
}

static void test_meta_keys_stamp_and_list(void **state)
{
    (void)state;
    pm_data_file_meta *list = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 9; i++) {
        pm_data_file_meta m;
        memset(&m, 0, sizeof m);
        PM_OK_OR_FAIL(pm_roll_empty_keys(&m));
        assert_int_equal(m.min_key.len, 12);
        assert_int_equal(m.max_key.len, 12);
        for (size_t k = 0; k < 12; k++)
            assert_int_equal(m.min_key.data[k], 0);
        pm_roll_stamp(&m, i, i % 2 ? PM_FILE_SOURCE_COMPACT : PM_FILE_SOURCE_APPEND);
        assert_true(m.creation_time.has && m.creation_time.v > 0);
        assert_true(m.delete_row_count.has);
        assert_int_equal(m.delete_row_count.v, i);
        assert_int_equal(m.file_source.v, i % 2);
        m.row_count = 100 + i;
        PM_OK_OR_FAIL(pm_roll_push_file(&list, &n, &cap, &m));
    }
    assert_int_equal(n, 9);
    assert_int_equal(cap, 16);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(list[i].row_count, 100 + (int64_t)i);
        pm_data_file_meta_clear(&list[i]);
    }
    free(list);
}

/* The Avro codec every data-file writer derives from the options. */
static void test_avro_codec(void **state)
{
    (void)state;
    pm_options *o = NULL;
    PM_OK_OR_FAIL(pm_options_new(&o));
    pm_avro_write_options a;
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, NULL, &a)); /* file.compression default zstd, level 1 */
    assert_int_equal(a.codec, PM_CODEC_ZSTD);
    assert_int_equal(a.level, 1);
    PM_OK_OR_FAIL(pm_options_set(o, "file.compression.zstd-level", "5"));
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, "ZSTD", &a));
    assert_int_equal(a.level, 5);
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, "none", &a));
    assert_int_equal(a.codec, PM_CODEC_NONE);
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, "uncompressed", &a));
    assert_int_equal(a.codec, PM_CODEC_NONE);
    PM_EXPECT_ERR(pm_roll_avro_codec(o, "lz4", &a), PM_EUNSUPPORTED);
    PM_OK_OR_FAIL(pm_options_set(o, "avro.codec", "zstandard"));
    PM_OK_OR_FAIL(pm_roll_avro_codec(o, "lz4", &a)); /* avro.codec wins */
    assert_int_equal(a.codec, PM_CODEC_ZSTD);
    assert_int_equal(a.level, 3);
    PM_OK_OR_FAIL(pm_options_set(o, "avro.codec", "brotli"));
    PM_EXPECT_ERR(pm_roll_avro_codec(o, NULL, &a), PM_EUNSUPPORTED);
    pm_options_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_range_and_raw_bytes),
        cmocka_unit_test(test_col_stats_from_accumulators),
        cmocka_unit_test(test_meta_keys_stamp_and_list),
        cmocka_unit_test(test_avro_codec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
