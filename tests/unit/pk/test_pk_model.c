/*
 * tests/unit/pk/test_pk_model.c — seeded randomized model test of
 * primary-key tables: random upserts, updates (-U/+U pairs) and deletes
 * against an in-memory map, random commits (several write calls each),
 * and after every commit a full read, a projected read and a time-travel
 * read of a random older snapshot compared with the model.
 *
 * Extension point: pk_model_hooks.after_commit runs after each commit with
 * the table and the random state (compaction of primary-key tables plugs
 * in here: it must leave every read unchanged).
 *
 * Variants: deduplicate (1 bucket; 3 buckets and a partition; tiny write
 * buffer so flushes merge spilled runs) and partial-update (sparse column
 * updates, no deletes).
 */
#include "pk_model.h"

static void test_dedup_one_bucket(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=1"};
    run_model("dedup1", opts, 1, false, false, 0x1234567ull, 20, NULL);
}

static void test_dedup_partitioned(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=3", "file.format=parquet", "target-file-row-num=17"};
    run_model("dedup3", opts, 3, false, true, 0xabcdefull, 16, NULL);
}

static void test_dedup_spilling(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=2", "write-buffer-size=2 kb"};
    run_model("dedupspill", opts, 2, false, false, 0x5eedull, 12, NULL);
}

static void test_partial_update(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=2", "merge-engine=partial-update"};
    run_model("pu", opts, 2, true, false, 0x77ull, 16, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedup_one_bucket),
        cmocka_unit_test(test_dedup_partitioned),
        cmocka_unit_test(test_dedup_spilling),
        cmocka_unit_test(test_partial_update),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
