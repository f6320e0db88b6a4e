/*
 * tests/unit/meta/test_snapshot.c — snapshot JSON: every Java-written fixture
 * snapshot parses and re-serializes to identical bytes; the current (2.x)
 * layout matches Java's own test JSON; unknown keys, nulls and corrupt
 * input behave as specified.
 */
#include "meta_fixtures.h"

#include <string.h>

#include "pm_test.h"
#include "meta/snapshot.h"

static void expect_roundtrip(const char *what, const char *json)
{
    pm_snapshot *s;
    PM_OK_OR_FAIL(pm_snapshot_parse(json, strlen(json), what, &s));
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_snapshot_to_json(s, &out));
    if (out.len != strlen(json) || memcmp(out.data, json, out.len) != 0) {
        print_error("%s: re-serialized snapshot differs\n--- expected\n%s\n--- got\n%.*s\n", what,
                    json, (int)out.len, (const char *)out.data);
        fail();
    }
    pm_buf_free(&out);
    pm_snapshot_free(s);
}

static void test_fixture_roundtrip(void **state)
{
    (void)state;
    meta_paths p = meta_find_files("snapshot", "snapshot-");
    assert_true(p.count >= 100);
    size_t legacy = 0;
    for (size_t i = 0; i < p.count; i++) {
        size_t len;
        uint8_t *data = pm_test_read_file(p.paths[i], &len);
        assert_non_null(data);
        pm_snapshot *s;
        PM_OK_OR_FAIL(pm_snapshot_parse(data, len, p.paths[i], &s));
        assert_int_equal(s->version, 3);
        assert_true(s->id >= 1);
        assert_non_null(s->commit_user);
        pm_buf out = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_snapshot_to_json(s, &out));
        if (out.len != len || memcmp(out.data, data, len) != 0) {
            print_error("%s: re-serialized snapshot differs\n--- expected\n%.*s\n--- got\n%.*s\n",
                        p.paths[i], (int)len, (const char *)data, (int)out.len,
                        (const char *)out.data);
            fail();
        }
        legacy += s->legacy_has_log_offsets;
        /* the file name carries the id */
        const char *name = strrchr(p.paths[i], '/') + 1;
        assert_int_equal(s->id, strtoll(name + strlen("snapshot-"), NULL, 10));
        pm_buf_free(&out);
        pm_snapshot_free(s);
        free(data);
    }
    /* all fixtures were written by Paimon 1.x (logOffsets present) */
    assert_int_equal(legacy, p.count);
    meta_paths_free(&p);
}

static void test_fixture_values(void **state)
{
    (void)state;
    const char *json =
        "{\n"
        "  \"version\" : 3,\n"
        "  \"id\" : 2,\n"
        "  \"schemaId\" : 0,\n"
        "  \"baseManifestList\" : \"manifest-list-b7e4f8f2-91e2-49f3-b0a7-ac596b94e9f9-2\",\n"
        "  \"baseManifestListSize\" : 1414,\n"
        "  \"deltaManifestList\" : \"manifest-list-b7e4f8f2-91e2-49f3-b0a7-ac596b94e9f9-3\",\n"
        "  \"deltaManifestListSize\" : 1420,\n"
        "  \"changelogManifestList\" : null,\n"
        "  \"indexManifest\" : \"index-manifest-1-0\",\n"
        "  \"commitUser\" : \"75540031-6d6c-4590-8fc7-449caf0de588\",\n"
        "  \"commitIdentifier\" : 9223372036854775807,\n"
        "  \"commitKind\" : \"COMPACT\",\n"
        "  \"timeMillis\" : 1762164930702,\n"
        "  \"logOffsets\" : {\n"
        "    \"0\" : 12,\n"
        "    \"3\" : 4\n"
        "  },\n"
        "  \"totalRecordCount\" : 6,\n"
        "  \"deltaRecordCount\" : -2,\n"
        "  \"changelogRecordCount\" : 0,\n"
        "  \"nextRowId\" : 2\n"
        "}";
    pm_snapshot *s;
    PM_OK_OR_FAIL(pm_snapshot_parse(json, strlen(json), "t", &s));
    assert_int_equal(s->id, 2);
    assert_true(s->base_manifest_list_size.has);
    assert_int_equal(s->base_manifest_list_size.v, 1414);
    assert_null(s->changelog_manifest_list);
    assert_true(s->legacy_changelog_list_null);
    assert_string_equal(s->index_manifest, "index-manifest-1-0");
    assert_true(s->commit_identifier == PM_BATCH_COMMIT_IDENTIFIER);
    assert_int_equal(s->commit_kind, PM_COMMIT_COMPACT);
    assert_int_equal(s->delta_record_count, -2);
    assert_true(s->changelog_record_count.has);
    assert_false(s->watermark.has);
    assert_true(s->next_row_id.has);
    assert_int_equal(s->legacy_log_offset_count, 2);
    assert_int_equal(s->legacy_log_offsets[1].bucket, 3);
    assert_int_equal(s->legacy_log_offsets[1].offset, 4);
    assert_null(s->properties);
    assert_int_equal(s->operation, PM_SNAPSHOT_OP_NONE);
    pm_snapshot_free(s);
    expect_roundtrip("t", json);
}

/* Texts from Paimon's SnapshotTest (current layout). */
static void test_current_layout(void **state)
{
    (void)state;
    expect_roundtrip("writerVersion",
                     "{\n"
                     "  \"version\" : 3,\n"
                     "  \"id\" : 1,\n"
                     "  \"schemaId\" : 0,\n"
                     "  \"baseManifestList\" : \"m-0\",\n"
                     "  \"deltaManifestList\" : \"m-1\",\n"
                     "  \"commitUser\" : \"user\",\n"
                     "  \"writerVersion\" : \"java-2.1-SNAPSHOT-0123456789012345678901234567890123456789\",\n"
                     "  \"commitIdentifier\" : 0,\n"
                     "  \"commitKind\" : \"APPEND\",\n"
                     "  \"timeMillis\" : 1000,\n"
                     "  \"totalRecordCount\" : 10,\n"
                     "  \"deltaRecordCount\" : 5\n"
                     "}");
    expect_roundtrip("operation",
                     "{\n"
                     "  \"version\" : 3,\n"
                     "  \"id\" : 2,\n"
                     "  \"schemaId\" : 0,\n"
                     "  \"baseManifestList\" : \"m-0\",\n"
                     "  \"deltaManifestList\" : \"m-1\",\n"
                     "  \"commitUser\" : \"user\",\n"
                     "  \"commitIdentifier\" : 1,\n"
                     "  \"commitKind\" : \"APPEND\",\n"
                     "  \"timeMillis\" : 2000,\n"
                     "  \"totalRecordCount\" : 20,\n"
                     "  \"deltaRecordCount\" : 10,\n"
                     "  \"operation\" : \"MERGE\"\n"
                     "}");

    /* Build a full snapshot in code: every optional field, current layout. */
    pm_snapshot *s;
    PM_OK_OR_FAIL(pm_snapshot_new(&s));
    s->uuid = strdup("9b2f7f0e-3c1a-4f0e-8a55-0c1d2e3f4a5b");
    s->id = 7;
    s->schema_id = 1;
    s->base_manifest_list = strdup("manifest-list-a-0");
    s->base_manifest_list_size = (pm_opt_long){true, 100};
    s->delta_manifest_list = strdup("manifest-list-a-1");
    s->delta_manifest_list_size = (pm_opt_long){true, 200};
    s->changelog_manifest_list = strdup("manifest-list-a-2");
    s->changelog_manifest_list_size = (pm_opt_long){true, 300};
    s->index_manifest = strdup("index-manifest-a-0");
    s->commit_user = strdup("user \"q\"\n\x01/");
    s->commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    s->commit_kind = PM_COMMIT_OVERWRITE;
    s->time_millis = 1700000000000;
    s->total_record_count = 30;
    s->delta_record_count = 3;
    s->changelog_record_count = (pm_opt_long){true, 3};
    s->watermark = (pm_opt_long){true, -9223372036854775807LL - 1};
    s->statistics = strdup("stat-a-0");
    PM_OK_OR_FAIL(pm_options_new(&s->properties));
    PM_OK_OR_FAIL(pm_options_set(s->properties, "k2", "v2"));
    PM_OK_OR_FAIL(pm_options_set(s->properties, "k1", "v1"));
    s->next_row_id = (pm_opt_long){true, 0};
    s->operation = PM_SNAPSHOT_OP_CREATE_OR_REPLACE_TABLE_AS_SELECT;
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_snapshot_to_json(s, &out));
    const char *expected =
        "{\n"
        "  \"version\" : 3,\n"
        "  \"uuid\" : \"9b2f7f0e-3c1a-4f0e-8a55-0c1d2e3f4a5b\",\n"
        "  \"id\" : 7,\n"
        "  \"schemaId\" : 1,\n"
        "  \"baseManifestList\" : \"manifest-list-a-0\",\n"
        "  \"baseManifestListSize\" : 100,\n"
        "  \"deltaManifestList\" : \"manifest-list-a-1\",\n"
        "  \"deltaManifestListSize\" : 200,\n"
        "  \"changelogManifestList\" : \"manifest-list-a-2\",\n"
        "  \"changelogManifestListSize\" : 300,\n"
        "  \"indexManifest\" : \"index-manifest-a-0\",\n"
        "  \"commitUser\" : \"user \\\"q\\\"\\n\\u0001/\",\n"
        "  \"commitIdentifier\" : 9223372036854775807,\n"
        "  \"commitKind\" : \"OVERWRITE\",\n"
        "  \"timeMillis\" : 1700000000000,\n"
        "  \"totalRecordCount\" : 30,\n"
        "  \"deltaRecordCount\" : 3,\n"
        "  \"changelogRecordCount\" : 3,\n"
        "  \"watermark\" : -9223372036854775808,\n"
        "  \"statistics\" : \"stat-a-0\",\n"
        "  \"properties\" : {\n"
        "    \"k2\" : \"v2\",\n"
        "    \"k1\" : \"v1\"\n"
        "  },\n"
        "  \"nextRowId\" : 0,\n"
        "  \"operation\" : \"CREATE_OR_REPLACE_TABLE_AS_SELECT\"\n"
        "}";
    assert_int_equal(out.len, strlen(expected));
    assert_memory_equal(out.data, expected, out.len);
    /* and back */
    pm_snapshot *back;
    PM_OK_OR_FAIL(pm_snapshot_parse(out.data, out.len, "built", &back));
    assert_string_equal(back->commit_user, s->commit_user);
    assert_false(back->legacy_changelog_list_null);
    assert_false(back->legacy_has_log_offsets);
    assert_string_equal(pm_options_get(back->properties, "k1"), "v1");
    pm_snapshot *copy;
    PM_OK_OR_FAIL(pm_snapshot_clone(back, &copy));
    pm_buf again = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_snapshot_to_json(copy, &again));
    assert_int_equal(again.len, out.len);
    assert_memory_equal(again.data, out.data, out.len);
    pm_buf_free(&again);
    pm_snapshot_free(copy);
    pm_snapshot_free(back);
    pm_buf_free(&out);
    pm_snapshot_free(s);
}

static void test_lenient_read(void **state)
{
    (void)state;
    /* nulls, unknown keys, missing version (Paimon <= 0.2) */
    const char *json = "{\"id\":5,\"schemaId\":0,\"baseManifestList\":null,\"deltaManifestList\":null,"
                       "\"commitUser\":null,\"commitIdentifier\":0,\"commitKind\":\"APPEND\","
                       "\"timeMillis\":1234,\"totalRecordCount\":null,\"deltaRecordCount\":null,"
                       "\"unknownKey\":22222,\"tagCreateTime\":[1969,1,1,0,0,0,123456789],"
                       "\"watermark\":null}";
    pm_snapshot *s;
    PM_OK_OR_FAIL(pm_snapshot_parse(json, strlen(json), "t", &s));
    assert_int_equal(s->version, 1);
    assert_int_equal(s->id, 5);
    assert_null(s->commit_user);
    assert_int_equal(s->total_record_count, 0);
    assert_false(s->watermark.has);
    assert_false(s->legacy_changelog_list_null);
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_snapshot_to_json(s, &out));
    const char *expected = "{\n"
                           "  \"version\" : 1,\n"
                           "  \"id\" : 5,\n"
                           "  \"schemaId\" : 0,\n"
                           "  \"baseManifestList\" : null,\n"
                           "  \"deltaManifestList\" : null,\n"
                           "  \"commitUser\" : null,\n"
                           "  \"commitIdentifier\" : 0,\n"
                           "  \"commitKind\" : \"APPEND\",\n"
                           "  \"timeMillis\" : 1234,\n"
                           "  \"totalRecordCount\" : 0,\n"
                           "  \"deltaRecordCount\" : 0\n"
                           "}";
    assert_int_equal(out.len, strlen(expected));
    assert_memory_equal(out.data, expected, out.len);
    pm_buf_free(&out);
    pm_snapshot_free(s);
}

static void expect_corrupt(const char *json, const char *needle)
{
    pm_snapshot *s = NULL;
    pm_error *e = pm_snapshot_parse(json, strlen(json), "snapshot/snapshot-9", &s);
    if (!e) {
        print_error("parse accepted: %s\n", json);
        fail();
    }
    assert_int_equal(pm_error_code(e), PM_ECORRUPT);
    char *msg = pm_error_format(e);
    if (!strstr(msg, "snapshot/snapshot-9") || (needle && !strstr(msg, needle))) {
        print_error("message lacks file or '%s': %s\n", needle ? needle : "", msg);
        fail();
    }
    free(msg);
    pm_error_free(e);
    assert_null(s);
}

static void test_corrupt(void **state)
{
    (void)state;
    expect_corrupt("", NULL);
    expect_corrupt("{\"id\":1,", NULL);
    expect_corrupt("[1,2]", "not an object");
    expect_corrupt("{\"schemaId\":0,\"commitKind\":\"APPEND\"}", "'id'");
    expect_corrupt("{\"id\":\"1\",\"schemaId\":0,\"commitKind\":\"APPEND\"}", "'id'");
    expect_corrupt("{\"id\":1,\"schemaId\":0}", "'commitKind'");
    expect_corrupt("{\"id\":1,\"schemaId\":0,\"commitKind\":\"append\"}", "'commitKind'");
    expect_corrupt("{\"id\":1,\"schemaId\":0,\"commitKind\":\"APPEND\",\"operation\":\"X\"}", "'operation'");
    expect_corrupt("{\"id\":1,\"schemaId\":0,\"commitKind\":\"APPEND\",\"baseManifestList\":3}",
                   "'baseManifestList'");
    expect_corrupt("{\"id\":1,\"schemaId\":0,\"commitKind\":\"APPEND\",\"properties\":{\"a\":1}}", "'a'");
    expect_corrupt("{\"id\":1,\"schemaId\":0,\"commitKind\":\"APPEND\",\"logOffsets\":{\"x\":1}}",
                   "logOffsets");
    expect_corrupt("{\"id\":1,\"schemaId\":0,\"commitKind\":\"APPEND\",\"version\":4294967296}",
                   "'version'");
    expect_corrupt("{\"id\":99999999999999999999,\"schemaId\":0,\"commitKind\":\"APPEND\"}", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_roundtrip),
        cmocka_unit_test(test_fixture_values),
        cmocka_unit_test(test_current_layout),
        cmocka_unit_test(test_lenient_read),
        cmocka_unit_test(test_corrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
