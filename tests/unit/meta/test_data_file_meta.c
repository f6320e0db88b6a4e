/*
 * tests/unit/meta/test_data_file_meta.c — packed DataFileMeta: a copy
 * packs every string and array into one block, copies of a packed meta
 * share it, unpack gives a meta that may be changed field by field, and
 * every field survives each step.
 */
#include <stdlib.h>
#include <string.h>

#include "pm_test.h"
#include "compact/compact_internal.h"
#include "meta/data_file_meta.h"

static void set_list(pm_str_list *l, const char *a, const char *b)
{
    l->items = calloc(2, sizeof *l->items);
    assert_non_null(l->items);
    l->items[0] = strdup(a);
    l->items[1] = strdup(b);
    l->count = 2;
}

/* A meta with every string and array set, allocated field by field. */
static void full_meta(pm_data_file_meta *f)
{
    memset(f, 0, sizeof *f);
    f->file_name = strdup("data-1.parquet");
    f->file_size = 100;
    f->row_count = 7;
    PM_OK_OR_FAIL(pm_bytes_set(&f->min_key, "\x00\x00\x00\x01", 4));
    PM_OK_OR_FAIL(pm_bytes_set(&f->max_key, "", 0)); /* present but empty */
    PM_OK_OR_FAIL(pm_simple_stats_empty(&f->key_stats));
    PM_OK_OR_FAIL(pm_bytes_set(&f->value_stats.min_values, "abc", 3));
    PM_OK_OR_FAIL(pm_bytes_set(&f->value_stats.max_values, "abd", 3));
    f->value_stats.has_null_counts = true;
    f->value_stats.null_counts = calloc(3, sizeof *f->value_stats.null_counts);
    f->value_stats.null_counts[0] = (pm_opt_long){true, 5};
    f->value_stats.null_counts[2] = (pm_opt_long){true, 9};
    f->value_stats.null_count_len = 3;
    f->level = 2;
    set_list(&f->extra_files, "data-1.parquet.index", "x");
    f->creation_time = (pm_opt_long){true, 1700000000000};
    PM_OK_OR_FAIL(pm_bytes_set(&f->embedded_index, "\x01\x02", 2));
    f->has_value_stats_cols = true;
    set_list(&f->value_stats_cols, "a", "b");
    f->external_path = strdup("file:/ext/data-1.parquet");
    f->has_write_cols = true;
    set_list(&f->write_cols, "a", "_ROW_ID");
    f->has_write_cols_sequences = true;
    f->write_cols_sequences = calloc(2, sizeof(int64_t));
    f->write_cols_sequences[0] = 3;
    f->write_cols_sequences[1] = 4;
    f->write_cols_sequence_len = 2;
}

static void test_copy_packs_and_shares(void **state)
{
    (void)state;
    pm_data_file_meta f, a, b;
    full_meta(&f);
    assert_null(f.packed);
    PM_OK_OR_FAIL(pm_data_file_meta_copy(&a, &f));
    assert_non_null(a.packed);
    assert_true(pm_data_file_meta_equal(&a, &f));
    assert_ptr_not_equal(a.file_name, f.file_name);
    assert_true(a.max_key.has);
    assert_int_equal(a.max_key.len, 0);
    pm_data_file_meta_clear(&f);
    /* a copy of a packed meta shares its block and outlives the original */
    PM_OK_OR_FAIL(pm_data_file_meta_copy(&b, &a));
    assert_ptr_equal(b.packed, a.packed);
    assert_ptr_equal(b.file_name, a.file_name);
    pm_data_file_meta_clear(&a);
    assert_string_equal(b.file_name, "data-1.parquet");
    assert_string_equal(b.write_cols.items[1], "_ROW_ID");
    assert_int_equal(b.value_stats.null_counts[2].v, 9);
    assert_int_equal(b.write_cols_sequences[1], 4);
    pm_data_file_meta_clear(&b);
}

static void test_unpack(void **state)
{
    (void)state;
    pm_data_file_meta f, a, b;
    full_meta(&f);
    PM_OK_OR_FAIL(pm_data_file_meta_copy(&a, &f));
    PM_OK_OR_FAIL(pm_data_file_meta_copy(&b, &a));
    PM_OK_OR_FAIL(pm_data_file_meta_unpack(&b));
    assert_null(b.packed);
    assert_true(pm_data_file_meta_equal(&b, &f));
    /* an unpacked meta changes field by field; its former block's other
     * holder does not see it */
    free(b.file_name);
    b.file_name = strdup("data-2.parquet");
    assert_string_equal(a.file_name, "data-1.parquet");
    /* set_write_cols unpacks: the other holder of the block keeps its list */
    pm_data_file_meta c;
    PM_OK_OR_FAIL(pm_data_file_meta_copy(&c, &a));
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<x INT>"));
    PM_OK_OR_FAIL(pm_data_file_meta_set_write_cols(&a, t));
    pm_type_free(t);
    assert_null(a.packed);
    assert_int_equal(a.write_cols.count, 1);
    assert_string_equal(a.write_cols.items[0], "x");
    assert_int_equal(c.write_cols.count, 2);
    assert_string_equal(c.write_cols.items[1], "_ROW_ID");
    assert_string_equal(a.file_name, "data-1.parquet");
    pm_data_file_meta_clear(&c);
    PM_OK_OR_FAIL(pm_data_file_meta_unpack(&b)); /* no-op when not packed */
    assert_string_equal(b.file_name, "data-2.parquet");
    pm_data_file_meta_clear(&a);
    pm_data_file_meta_clear(&b);
    pm_data_file_meta_clear(&f);
}

static void test_empty_meta(void **state)
{
    (void)state;
    pm_data_file_meta f, a;
    memset(&f, 0, sizeof f);
    f.file_name = strdup("x");
    PM_OK_OR_FAIL(pm_data_file_meta_copy(&a, &f));
    assert_true(pm_data_file_meta_equal(&a, &f));
    assert_null(a.external_path);
    assert_null(a.extra_files.items);
    assert_false(a.min_key.has);
    assert_null(a.min_key.data);
    pm_data_file_meta_clear(&a);
    pm_data_file_meta_clear(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_packs_and_shares),
        cmocka_unit_test(test_unpack),
        cmocka_unit_test(test_empty_meta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
