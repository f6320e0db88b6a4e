/*
 * tests/unit/table/test_write_align.c — input batches matched to a
 * table's fields (table/write_align.h): by name in any order, missing
 * nullable fields as nulls, the refusals (unknown column, missing NOT NULL
 * field, other type, null in a NOT NULL field), the skipped column, and
 * the key-field indexes.
 */
#include <string.h>

#include "pm_test.h"
#include "table/write_align.h"
#include "types/value.h"

static const char *TABLE = "ROW<id BIGINT NOT NULL, s STRING, d DOUBLE>";

static pm_batch *rows(const char *type, const char *jsonl)
{
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines_typed(&b, type, jsonl, strlen(jsonl)));
    return b;
}

static void expect_refused(pm_write_aligner *a, const char *type, const char *jsonl, const char *words)
{
    pm_batch *b = rows(type, jsonl);
    pm_error *e = pm_write_align(a, b);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    char *msg = pm_error_format(e);
    if (!strstr(msg, words)) {
        print_error("'%s' not in: %s\n", words, msg);
        fail();
    }
    free(msg);
    pm_error_free(e);
    pm_batch_free(b);
}

static void test_align(void **state)
{
    (void)state;
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, TABLE));
    pm_write_aligner a;
    PM_OK_OR_FAIL(pm_write_aligner_init(&a, rt, "_ROW_KIND"));
    /* other order, d missing, the skipped column ignored */
    pm_batch *b = rows("ROW<s STRING, _ROW_KIND STRING, id BIGINT>",
                       "{\"s\":\"x\",\"_ROW_KIND\":\"+I\",\"id\":7}\n{\"s\":null,\"_ROW_KIND\":\"-D\",\"id\":8}\n");
    PM_OK_OR_FAIL(pm_write_align(&a, b));
    assert_ptr_equal(a.aligned[0], b->columns[2]);
    assert_ptr_equal(a.aligned[1], b->columns[0]);
    assert_int_equal(a.aligned[2]->length, 2);
    assert_int_equal(a.aligned[2]->null_count, 2);
    pm_batch v;
    pm_write_aligned_batch(&a, 2, &v);
    assert_int_equal(v.ncolumns, 3);
    assert_int_equal(v.num_rows, 2);
    assert_int_equal(pm_column_i64(v.columns[0], 1), 8);
    pm_batch_free(b);

    expect_refused(&a, "ROW<id BIGINT, colour STRING>", "{\"id\":1,\"colour\":\"red\"}\n", "colour");
    expect_refused(&a, "ROW<s STRING>", "{\"s\":\"x\"}\n", "'id' is NOT NULL but missing");
    expect_refused(&a, "ROW<id INT>", "{\"id\":1}\n", "has type INT");
    expect_refused(&a, "ROW<id BIGINT>", "{\"id\":1}\n{\"id\":null}\n", "row 1 is null");
    pm_write_aligner_free(&a);

    /* without a skipped column, _ROW_KIND is an unknown column */
    PM_OK_OR_FAIL(pm_write_aligner_init(&a, rt, NULL));
    expect_refused(&a, "ROW<id BIGINT, _ROW_KIND STRING>", "{\"id\":1,\"_ROW_KIND\":\"+I\"}\n", "_ROW_KIND");
    pm_write_aligner_free(&a);

    pm_str_list names = {0};
    PM_OK_OR_FAIL(pm_parse_list("d,id", &names));
    size_t *idx = NULL;
    PM_OK_OR_FAIL(pm_write_field_indexes(rt, &names, &idx, "bucket key"));
    assert_int_equal(idx[0], 2);
    assert_int_equal(idx[1], 0);
    free(idx);
    pm_str_list_free(&names);
    PM_OK_OR_FAIL(pm_parse_list("nope", &names));
    PM_EXPECT_ERR(pm_write_field_indexes(rt, &names, &idx, "bucket key"), PM_EINVALID);
    free(idx);
    pm_str_list_free(&names);
    pm_type_free(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_align)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
