/*
 * tests/unit/api/test_api_table.c — paimon/table.h, schema.h, snapshot.h
 * and options.h through the public headers only: create (spec version,
 * refused specs leave nothing), open, schema getters and JSON, options,
 * ALTER TABLE SET/RESET with Paimon's rules, snapshot listing and getters,
 * commit lookup, option parsers and checks.
 */
#include <sys/stat.h>

#include "api_test_util.h"
#include "paimon/options.h"

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void test_create_open_schema(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/t");
    const char *opts[] = {"bucket=2", "file.format=parquet"};
    api_create(path, "id BIGINT, name STRING, dt STRING", "dt", "id,dt", opts, 2);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    assert_string_equal(pm_table_branch(t), "main");
    assert_true(pm_table_has_primary_key(t));
    const pm_schema *s = pm_table_schema(t);
    assert_int_equal(pm_schema_id(s), 0);
    assert_int_equal(pm_schema_row_type(s)->nfields, 3);
    assert_false(pm_schema_row_type(s)->fields[0].type->nullable); /* primary keys become NOT NULL */
    assert_int_equal(pm_schema_partition_key_count(s), 1);
    assert_string_equal(pm_schema_partition_key(s, 0), "dt");
    assert_null(pm_schema_partition_key(s, 1));
    assert_int_equal(pm_schema_primary_key_count(s), 2);
    assert_string_equal(pm_schema_primary_key(s, 1), "dt");
    assert_int_equal(pm_schema_option_count(s), 2);
    assert_string_equal(pm_schema_option_key(s, 0), "bucket");
    assert_string_equal(pm_schema_option_value(s, 0), "2");
    assert_null(pm_schema_option_key(s, 2));
    assert_string_equal(pm_schema_option(s, "file.format"), "parquet");
    assert_null(pm_schema_option(s, "nope"));
    assert_string_equal(pm_table_option(t, "bucket"), "2");
    assert_null(pm_schema_comment(s));
    assert_true(pm_schema_time_millis(s) > 0);
    char *json = NULL;
    PM_OK_OR_FAIL(pm_schema_to_json_text(&json, s));
    assert_non_null(strstr(json, "\"primaryKeys\" : [ \"id\", \"dt\" ]"));
    pm_free(json);
    const pm_schema *s0 = NULL;
    PM_OK_OR_FAIL(pm_table_schema_get(&s0, t, 0));
    assert_ptr_equal(s0, s);
    PM_EXPECT_ERR(pm_table_schema_get(&s0, t, 7), PM_ENOTFOUND);
    int64_t *ids = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_schema_ids(&ids, &n, t));
    assert_int_equal(n, 1);
    assert_int_equal(ids[0], 0);
    pm_free(ids);
    /* no snapshots yet */
    PM_OK_OR_FAIL(pm_table_snapshot_ids(&ids, &n, t));
    assert_int_equal(n, 0);
    pm_free(ids);
    pm_snapshot *snap = NULL;
    PM_OK_OR_FAIL(pm_table_snapshot(&snap, t, 0));
    assert_null(snap);
    PM_EXPECT_ERR(pm_table_snapshot(&snap, t, 3), PM_ENOTFOUND);
    PM_EXPECT_ERR(pm_table_snapshot(&snap, t, -1), PM_EINVALID);
    pm_table_free(t);
    /* again: PM_EEXIST, or nothing with ignore_if_exists */
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<a INT>"));
    pm_table_spec spec;
    pm_table_spec_init(&spec);
    spec.row_type = rt;
    PM_EXPECT_ERR(pm_table_create(path, &spec, false), PM_EEXIST);
    PM_OK_OR_FAIL(pm_table_create(path, &spec, true));
    pm_type_free(rt);
    free(path);
}

static void test_create_refusals_leave_nothing(void **state)
{
    (void)state;
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<a INT, b STRING>"));
    char *path = api_path(dir, "db.db/refused");
    pm_table_spec spec = PM_TABLE_SPEC_INIT;
    spec.row_type = rt;
    spec.version = 99;
    PM_EXPECT_ERR(pm_table_create(path, &spec, false), PM_EINVALID);
    spec.version = PM_TABLE_SPEC_VERSION;
    const char *k1[] = {"bucket"}, *v1[] = {"abc"};
    spec.option_keys = k1;
    spec.option_values = v1;
    spec.noptions = 1;
    PM_EXPECT_ERR(pm_table_create(path, &spec, false), PM_EINVALID);
    const char *pk[] = {"nope"};
    spec.noptions = 0;
    spec.primary_keys = pk;
    spec.nprimary_keys = 1;
    PM_EXPECT_ERR(pm_table_create(path, &spec, false), PM_EINVALID);
    spec.nprimary_keys = 0;
    spec.row_type = NULL;
    PM_EXPECT_ERR(pm_table_create(path, &spec, false), PM_EINVALID);
    assert_false(exists(path));
    pm_table *t = NULL;
    PM_EXPECT_ERR(pm_table_open(&t, path, NULL), PM_ENOTFOUND);
    pm_type_free(rt);
    free(path);
}

static void test_snapshots_and_find_commit(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/snaps");
    const char *opts[] = {"write-only=true"};
    api_create(path, "id INT, v STRING", NULL, NULL, opts, 1);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = "u1";
    wo.commit_identifier = 7;
    pm_commit_outcome o = api_write_json(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2}\n", &wo);
    assert_int_equal(o.snapshot_id, 1);
    assert_false(o.already_committed);
    assert_int_equal(o.rows, 2);
    assert_int_equal(o.files, 1);
    int64_t found = 0;
    PM_OK_OR_FAIL(pm_table_find_commit(&found, t, "u1", 7));
    assert_int_equal(found, 1);
    PM_OK_OR_FAIL(pm_table_find_commit(&found, t, "u1", 8));
    assert_int_equal(found, 0);
    PM_EXPECT_ERR(pm_table_find_commit(&found, t, NULL, 8), PM_EINVALID);
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_table_snapshot(&s, t, 0));
    assert_int_equal(pm_snapshot_id(s), 1);
    assert_int_equal(pm_snapshot_schema_id(s), 0);
    assert_string_equal(pm_snapshot_commit_kind(s), "APPEND");
    assert_string_equal(pm_snapshot_commit_user(s), "u1");
    assert_int_equal(pm_snapshot_commit_identifier(s), 7);
    assert_int_equal(pm_snapshot_total_record_count(s), 2);
    assert_int_equal(pm_snapshot_delta_record_count(s), 2);
    assert_true(pm_snapshot_time_millis(s) > 0);
    assert_non_null(pm_snapshot_base_manifest_list(s));
    assert_non_null(pm_snapshot_delta_manifest_list(s));
    int64_t v = -5;
    (void)pm_snapshot_changelog_record_count(s, &v);
    assert_false(pm_snapshot_watermark(s, &v) && v == -5);
    char *json = NULL;
    PM_OK_OR_FAIL(pm_snapshot_to_json_text(&json, s));
    assert_non_null(strstr(json, "\"commitKind\" : \"APPEND\""));
    pm_free(json);
    pm_snapshot_free(s);
    int64_t *ids = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_snapshot_ids(&ids, &n, t));
    assert_int_equal(n, 1);
    pm_free(ids);
    pm_table_free(t);
    free(path);
}

static void test_alter_options(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/alter");
    const char *opts[] = {"bucket=2", "ignore-delete=true"};
    api_create(path, "id INT, v STRING", NULL, "id", opts, 2);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    const char *sk[] = {"merge-engine"}, *sv[] = {"first-row"};
    /* before any snapshot every change is allowed */
    PM_OK_OR_FAIL(pm_table_alter_options(t, sk, sv, 1, NULL, 0));
    assert_int_equal(pm_schema_id(pm_table_schema(t)), 1);
    assert_string_equal(pm_table_option(t, "merge-engine"), "first-row");
    const char *rk[] = {"merge-engine"};
    PM_OK_OR_FAIL(pm_table_alter_options(t, NULL, NULL, 0, rk, 1));
    assert_null(pm_table_option(t, "merge-engine"));
    (void)api_write_json(t, "{\"id\":1,\"v\":\"a\"}\n", NULL);
    /* with a snapshot: Paimon's rules */
    PM_EXPECT_ERR(pm_table_alter_options(t, sk, sv, 1, NULL, 0), PM_EUNSUPPORTED);
    const char *bk[] = {"bucket"}, *bv[] = {"-1"}, *bv4[] = {"4"};
    PM_EXPECT_ERR(pm_table_alter_options(t, bk, bv, 1, NULL, 0), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(pm_table_alter_options(t, NULL, NULL, 0, bk, 1), PM_EUNSUPPORTED);
    const char *ik[] = {"ignore-delete"}, *iv[] = {"false"};
    PM_EXPECT_ERR(pm_table_alter_options(t, ik, iv, 1, NULL, 0), PM_EUNSUPPORTED);
    const char *dk[] = {"deletion-vectors.enabled"}, *dv[] = {"true"};
    PM_EXPECT_ERR(pm_table_alter_options(t, dk, dv, 1, NULL, 0), PM_EUNSUPPORTED);
    /* an invalid value is refused by validation */
    const char *ck[] = {"compaction.min.file-num"}, *cv[] = {"abc"};
    PM_EXPECT_ERR(pm_table_alter_options(t, ck, cv, 1, NULL, 0), PM_EINVALID);
    assert_int_equal(pm_schema_id(pm_table_schema(t)), 2); /* nothing published by the refusals */
    /* allowed: bucket 2 → 4, a tuning option */
    PM_OK_OR_FAIL(pm_table_alter_options(t, bv4, bv4, 0, NULL, 0)); /* nothing to change */
    assert_int_equal(pm_schema_id(pm_table_schema(t)), 2);
    PM_OK_OR_FAIL(pm_table_alter_options(t, bk, bv4, 1, NULL, 0));
    const char *tk[] = {"num-sorted-run.compaction-trigger"}, *tv[] = {"3"};
    PM_OK_OR_FAIL(pm_table_alter_options(t, tk, tv, 1, NULL, 0));
    assert_string_equal(pm_table_option(t, "bucket"), "4");
    /* a handle opened earlier keeps its schema; a new one sees the change */
    pm_table *t2 = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t2, path, NULL));
    assert_int_equal(pm_schema_id(pm_table_schema(t2)), pm_schema_id(pm_table_schema(t)));
    assert_string_equal(pm_table_option(t2, "num-sorted-run.compaction-trigger"), "3");
    pm_table_free(t2);
    pm_table_free(t);
    free(path);
}

static void test_option_helpers(void **state)
{
    (void)state;
    int64_t v = 0;
    PM_OK_OR_FAIL(pm_option_parse_memory_size(&v, "256mb"));
    assert_int_equal(v, 256LL << 20);
    PM_OK_OR_FAIL(pm_option_parse_memory_size(&v, "64 kb"));
    assert_int_equal(v, 64 << 10);
    PM_EXPECT_ERR(pm_option_parse_memory_size(&v, "lots"), PM_EINVALID);
    PM_EXPECT_ERR(pm_option_parse_memory_size(&v, NULL), PM_EINVALID);
    PM_OK_OR_FAIL(pm_option_parse_duration(&v, "5 s"));
    assert_int_equal(v, 5000);
    PM_OK_OR_FAIL(pm_option_parse_duration(&v, "7d"));
    assert_int_equal(v, 7LL * 86400 * 1000);
    PM_EXPECT_ERR(pm_option_parse_duration(&v, "soon"), PM_EINVALID);
    const char *k[] = {"bucket", "whatever.unknown"}, *ok[] = {"4", "x"}, *bad[] = {"four", "x"};
    PM_OK_OR_FAIL(pm_options_check(k, ok, 2));
    PM_EXPECT_ERR(pm_options_check(k, bad, 2), PM_EINVALID);
    PM_EXPECT_ERR(pm_options_check(NULL, NULL, 1), PM_EINVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_open_schema),
        cmocka_unit_test(test_create_refusals_leave_nothing),
        cmocka_unit_test(test_snapshots_and_find_commit),
        cmocka_unit_test(test_alter_options),
        cmocka_unit_test(test_option_helpers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
