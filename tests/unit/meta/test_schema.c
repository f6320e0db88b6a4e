/*
 * tests/unit/meta/test_schema.c — schema JSON: every Java-written fixture
 * schema parses and re-serializes to identical bytes; nested types, read
 * compatibility (old versions, pypaimon's nulls and "nullable" keys),
 * validation errors, derived keys and types, creating schema 0, and the
 * schema directory (list, load, latest, publish-if-absent, branches).
 */
#include "meta_fixtures.h"

#include <string.h>

#include "pm_test.h"
#include "meta/paths.h"
#include "meta/schema.h"

static pm_schema *parse_ok(const char *json)
{
    pm_schema *s = NULL;
    PM_OK_OR_FAIL(pm_schema_parse(json, strlen(json), "schema/schema-0", &s));
    return s;
}

static char *to_json(const pm_schema *s)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_schema_to_json(s, &b));
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 0));
    return (char *)pm_buf_detach(&b, NULL);
}

static void test_fixture_roundtrip(void **state)
{
    (void)state;
    meta_paths p = meta_find_files("schema", "schema-");
    assert_true(p.count >= 55);
    size_t nested = 0;
    for (size_t i = 0; i < p.count; i++) {
        size_t len;
        uint8_t *data = pm_test_read_file(p.paths[i], &len);
        assert_non_null(data);
        pm_schema *s;
        PM_OK_OR_FAIL(pm_schema_parse(data, len, p.paths[i], &s));
        assert_int_equal(s->version, 3);
        const char *name = strrchr(p.paths[i], '/') + 1;
        assert_int_equal(s->id, strtoll(name + 7, NULL, 10));
        pm_buf out = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_schema_to_json(s, &out));
        if (out.len != len || memcmp(out.data, data, len) != 0) {
            print_error("%s: re-serialized schema differs\n--- expected\n%.*s\n--- got\n%.*s\n",
                        p.paths[i], (int)len, (const char *)data, (int)out.len, (const char *)out.data);
            fail();
        }
        for (size_t k = 0; k < s->row_type->nfields; k++)
            nested += pm_type_is_nested(s->row_type->fields[k].type);
        pm_buf_free(&out);
        pm_schema_free(s);
        free(data);
    }
    assert_true(nested > 0);
    meta_paths_free(&p);
}

static void test_nested_values(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/java-written-orc-manifests/pk_table_nested_type.db/"
             "pk_table_nested_type/schema/schema-0", PM_FIXTURES_DIR);
    size_t len;
    uint8_t *data = pm_test_read_file(path, &len);
    assert_non_null(data);
    pm_schema *s;
    PM_OK_OR_FAIL(pm_schema_parse(data, len, path, &s));
    free(data);
    assert_int_equal(pm_schema_field_count(s), 6);
    const pm_field *col1 = pm_schema_field(s, 4);
    assert_string_equal(col1->name, "col1");
    assert_int_equal(col1->type->id, PM_TYPE_ROW);
    assert_true(col1->type->nullable);
    assert_int_equal(col1->type->nfields, 3);
    assert_int_equal(col1->type->fields[2].id, 7);
    assert_int_equal(col1->type->fields[2].type->id, PM_TYPE_ARRAY);
    assert_int_equal(col1->type->fields[2].type->element->id, PM_TYPE_INT);
    const pm_field *col2 = pm_schema_field(s, 5);
    assert_int_equal(col2->type->id, PM_TYPE_MAP);
    assert_int_equal(col2->type->key->id, PM_TYPE_INT);
    assert_false(pm_schema_field(s, 0)->type->nullable);
    assert_int_equal(s->highest_field_id, 8);
    assert_string_equal(pm_options_get(s->options, "manifest.format"), "orc");

    /* derived: PK (shopId, dt, hr) minus partition (dt, hr) */
    pm_str_list l;
    PM_OK_OR_FAIL(pm_schema_trimmed_primary_keys(s, &l));
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0], "shopId");
    pm_str_list_free(&l);
    PM_OK_OR_FAIL(pm_schema_bucket_keys(s, &l));
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0], "shopId");
    pm_str_list_free(&l);
    int32_t buckets;
    PM_OK_OR_FAIL(pm_schema_num_buckets(s, &buckets));
    assert_int_equal(buckets, 2);
    pm_type *pt;
    PM_OK_OR_FAIL(pm_schema_partition_type(s, &pt));
    assert_int_equal(pt->nfields, 2);
    assert_string_equal(pt->fields[0].name, "dt");
    assert_int_equal(pt->fields[0].id, 1);
    assert_int_equal(pt->fields[1].type->id, PM_TYPE_INT);
    /* the partition path of one of the fixture's rows */
    pm_part_value v[2] = {{.v.bytes = {(const uint8_t *)"2025-04-14", 10}}, {.v.i = 10}};
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_partition_path(pt, v, "__DEFAULT_PARTITION__", true, &b));
    assert_memory_equal(b.data, "dt=2025-04-14/hr=10/", b.len);
    pm_buf_free(&b);
    pm_type_free(pt);
    PM_OK_OR_FAIL(pm_schema_trimmed_primary_key_type(s, &pt));
    assert_int_equal(pt->nfields, 1);
    assert_false(pt->fields[0].type->nullable);
    pm_type_free(pt);
    pm_schema_free(s);
}

static void test_type_json(void **state)
{
    (void)state;
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, "MAP<STRING NOT NULL, ARRAY<DECIMAL(20, 3)> NOT NULL> NOT NULL"));
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_schema_type_to_json(t, &b));
    const char *want = "{\n"
                       "  \"type\" : \"MAP NOT NULL\",\n"
                       "  \"key\" : \"STRING NOT NULL\",\n"
                       "  \"value\" : {\n"
                       "    \"type\" : \"ARRAY NOT NULL\",\n"
                       "    \"element\" : \"DECIMAL(20, 3)\"\n"
                       "  }\n"
                       "}";
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.data, want, b.len);
    pm_type_free(t);
    pm_buf_free(&b);
    PM_OK_OR_FAIL(pm_type_parse(&t, "MULTISET<TIMESTAMP(3) WITH LOCAL TIME ZONE>"));
    PM_OK_OR_FAIL(pm_schema_type_to_json(t, &b));
    want = "{\n  \"type\" : \"MULTISET\",\n  \"element\" : \"TIMESTAMP(3) WITH LOCAL TIME ZONE\"\n}";
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.data, want, b.len);
    pm_type_free(t);
    pm_buf_free(&b);
}

static void test_compat_and_pypaimon(void **state)
{
    (void)state;
    /* version 1 (<= 0.7): bucket=1 and file.format=orc appended; no timeMillis */
    pm_schema *s = parse_ok("{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"}],"
                            "\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],"
                            "\"options\":{\"x\":\"y\"}}");
    assert_int_equal(s->version, 1);
    assert_int_equal(s->time_millis, 0);
    assert_int_equal(pm_options_count(s->options), 3);
    assert_string_equal(pm_options_key_at(s->options, 1), "bucket");
    assert_string_equal(pm_options_get(s->options, "bucket"), "1");
    assert_string_equal(pm_options_get(s->options, "file.format"), "orc");
    pm_schema_free(s);
    /* version 2 (0.8): only file.format */
    s = parse_ok("{\"version\":2,\"id\":0,\"fields\":[],\"highestFieldId\":-1,\"partitionKeys\":[],"
                 "\"primaryKeys\":[],\"options\":{},\"timeMillis\":5}");
    assert_null(pm_options_get(s->options, "bucket"));
    assert_string_equal(pm_options_get(s->options, "file.format"), "orc");
    pm_schema_free(s);
    /* version 3 with a bucket already set: untouched */
    s = parse_ok("{\"version\":3,\"id\":0,\"fields\":[],\"highestFieldId\":-1,\"partitionKeys\":[],"
                 "\"primaryKeys\":[],\"options\":{}}");
    assert_int_equal(pm_options_count(s->options), 0);
    pm_schema_free(s);

    /* pypaimon: json.dumps layout, "comment": null, nested "nullable" keys, description null */
    const char *py =
        "{\"version\": 3, \"id\": 0, \"fields\": [{\"id\": 0, \"name\": \"k\", \"type\": \"BIGINT NOT NULL\"}, "
        "{\"id\": 1, \"name\": \"tags\", \"type\": {\"type\": \"ARRAY\", \"element\": \"STRING\", "
        "\"nullable\": true}, \"description\": null}, {\"id\": 2, \"name\": \"m\", \"type\": {\"type\": "
        "\"MAP NOT NULL\", \"key\": \"STRING NOT NULL\", \"value\": {\"type\": \"ROW\", \"fields\": "
        "[{\"id\": 4, \"name\": \"x\", \"type\": \"DOUBLE\"}], \"nullable\": true}, \"nullable\": false}}], "
        "\"highestFieldId\": 4, \"partitionKeys\": [], \"primaryKeys\": [\"k\"], \"options\": "
        "{\"bucket\": \"2\"}, \"comment\": null, \"timeMillis\": 1700000000000}";
    s = parse_ok(py);
    assert_null(s->comment);
    assert_null(pm_schema_field(s, 1)->description);
    assert_true(pm_schema_field(s, 1)->type->nullable);
    assert_false(pm_schema_field(s, 2)->type->nullable);
    assert_int_equal(pm_schema_field(s, 2)->type->value->fields[0].id, 4);
    char *js = to_json(s);
    const char *want =
        "{\n"
        "  \"version\" : 3,\n"
        "  \"id\" : 0,\n"
        "  \"fields\" : [ {\n"
        "    \"id\" : 0,\n"
        "    \"name\" : \"k\",\n"
        "    \"type\" : \"BIGINT NOT NULL\"\n"
        "  }, {\n"
        "    \"id\" : 1,\n"
        "    \"name\" : \"tags\",\n"
        "    \"type\" : {\n"
        "      \"type\" : \"ARRAY\",\n"
        "      \"element\" : \"STRING\"\n"
        "    }\n"
        "  }, {\n"
        "    \"id\" : 2,\n"
        "    \"name\" : \"m\",\n"
        "    \"type\" : {\n"
        "      \"type\" : \"MAP NOT NULL\",\n"
        "      \"key\" : \"STRING NOT NULL\",\n"
        "      \"value\" : {\n"
        "        \"type\" : \"ROW\",\n"
        "        \"fields\" : [ {\n"
        "          \"id\" : 4,\n"
        "          \"name\" : \"x\",\n"
        "          \"type\" : \"DOUBLE\"\n"
        "        } ]\n"
        "      }\n"
        "    }\n"
        "  } ],\n"
        "  \"highestFieldId\" : 4,\n"
        "  \"partitionKeys\" : [ ],\n"
        "  \"primaryKeys\" : [ \"k\" ],\n"
        "  \"options\" : {\n"
        "    \"bucket\" : \"2\"\n"
        "  },\n"
        "  \"timeMillis\" : 1700000000000\n"
        "}";
    assert_string_equal(js, want);
    free(js);
    pm_schema_free(s);

    /* comment, description and defaultValue are written when set */
    s = parse_ok("{\"version\":3,\"id\":1,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\","
                 "\"description\":\"d \\\"q\\\"\",\"defaultValue\":\"7\"}],\"highestFieldId\":0,"
                 "\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{},\"comment\":\"c\","
                 "\"timeMillis\":1}");
    js = to_json(s);
    assert_non_null(strstr(js, "\"type\" : \"INT\",\n    \"description\" : \"d \\\"q\\\"\",\n"
                               "    \"defaultValue\" : \"7\"\n  } ]"));
    assert_non_null(strstr(js, "  \"options\" : { },\n  \"comment\" : \"c\",\n  \"timeMillis\" : 1\n}"));
    free(js);
    pm_schema_free(s);
}

static void expect_parse_err(const char *json, pm_code code, const char *needle)
{
    pm_schema *s = NULL;
    pm_error *e = pm_schema_parse(json, strlen(json), "schema/schema-3", &s);
    if (!e) {
        print_error("accepted: %s\n", json);
        fail();
    }
    assert_int_equal(pm_error_code(e), code);
    char *msg = pm_error_format(e);
    if (!strstr(msg, "schema/schema-3") || (needle && !strstr(msg, needle))) {
        print_error("message lacks file or '%s': %s\n", needle ? needle : "", msg);
        fail();
    }
    free(msg);
    pm_error_free(e);
    assert_null(s);
}

#define HEAD "{\"version\":3,\"id\":0,"
#define TAIL ",\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}"

static void test_errors(void **state)
{
    (void)state;
    expect_parse_err("{", PM_ECORRUPT, "malformed");
    expect_parse_err(HEAD "\"fields\":{}" TAIL, PM_ECORRUPT, "'fields'");
    expect_parse_err(HEAD "\"fields\":[{\"name\":\"a\",\"type\":\"INT\"}]" TAIL, PM_ECORRUPT, "'id'");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"type\":\"INT\"}]" TAIL, PM_ECORRUPT, "'name'");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\"}]" TAIL, PM_ECORRUPT, "no type");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INTEGRAL\"}]" TAIL,
                     PM_ECORRUPT, "INTEGRAL");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"SET\"}}]" TAIL,
                     PM_ECORRUPT, "SET");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"ARRAY\"}}]" TAIL,
                     PM_ECORRUPT, "element");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"MAP\",\"key\":\"INT\"}}]"
                     TAIL, PM_ECORRUPT, "value");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"ROW\"}}]" TAIL,
                     PM_ECORRUPT, "fields");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":{\"type\":\"VECTOR\","
                     "\"element\":\"FLOAT\",\"length\":3}}]" TAIL, PM_EUNSUPPORTED, "VECTOR");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":7}]" TAIL, PM_ECORRUPT, "'a'");
    expect_parse_err(HEAD "\"fields\":[]" ",\"highestFieldId\":1,\"partitionKeys\":[1],"
                     "\"primaryKeys\":[],\"options\":{}}", PM_ECORRUPT, "partitionKeys");
    expect_parse_err(HEAD "\"fields\":[]" ",\"highestFieldId\":1,\"partitionKeys\":[],"
                     "\"primaryKeys\":[],\"options\":{\"bucket\":2}}", PM_ECORRUPT, "bucket");
    expect_parse_err(HEAD "\"fields\":[]" ",\"highestFieldId\":1,\"partitionKeys\":[],"
                     "\"primaryKeys\":[],\"options\":{\"bucket\":\"two\"}}", PM_ECORRUPT, "two");
    /* Java TableSchema checks */
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"}],\"highestFieldId\":0,"
                     "\"partitionKeys\":[\"a\"],\"primaryKeys\":[\"a\"],\"options\":{}}", PM_ECORRUPT,
                     "partition");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"}],\"highestFieldId\":0,"
                     "\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{\"bucket-key\":\"b\"}}",
                     PM_ECORRUPT, "'b'");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},{\"id\":1,\"name\":\"b\","
                     "\"type\":\"INT\"}],\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[\"a\"],"
                     "\"options\":{\"bucket-key\":\"b\"}}", PM_ECORRUPT, "primary key");
    expect_parse_err(HEAD "\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},{\"id\":1,\"name\":\"b\","
                     "\"type\":\"INT\"}],\"highestFieldId\":1,\"partitionKeys\":[\"b\"],\"primaryKeys\":[],"
                     "\"options\":{\"bucket-key\":\"b\"}}", PM_ECORRUPT, "partition key");
}

static void test_new_table(void **state)
{
    (void)state;
    pm_type *row;
    PM_OK_OR_FAIL(pm_type_parse(&row, "ROW<k BIGINT, dt STRING, v ROW<x INT, y ARRAY<ROW<z INT>>>, w DOUBLE>"));
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    PM_OK_OR_FAIL(pm_options_set(o, "bucket", "4"));
    PM_OK_OR_FAIL(pm_options_set(o, "primary-key", " k , dt "));
    const char *parts[] = {"dt"};
    pm_schema *s;
    PM_OK_OR_FAIL(pm_schema_new_table(&s, row, parts, 1, NULL, 0, o, "a table", 1234));
    assert_int_equal(s->id, 0);
    assert_int_equal(s->version, 3);
    assert_int_equal(s->primary_keys.count, 2);
    assert_string_equal(s->primary_keys.items[1], "dt");
    assert_null(pm_options_get(s->options, "primary-key")); /* moved into the key list */
    assert_false(pm_schema_field(s, 0)->type->nullable);      /* PK fields become NOT NULL */
    assert_false(pm_schema_field(s, 1)->type->nullable);
    assert_true(pm_schema_field(s, 3)->type->nullable);
    /* ids from the type parser: pre-order, nested included */
    assert_int_equal(s->highest_field_id, 6); /* k0 dt1 v2 x3 y4 z5 w6 */
    char *js = to_json(s);
    assert_non_null(strstr(js, "\"comment\" : \"a table\""));
    pm_schema *back = parse_ok(js);
    char *js2 = to_json(back);
    assert_string_equal(js, js2);
    free(js2);
    free(js);
    pm_schema_free(back);
    pm_schema_free(s);

    /* primary-key.nullable=true keeps nullability */
    PM_OK_OR_FAIL(pm_options_set(o, "primary-key.nullable", "true"));
    PM_OK_OR_FAIL(pm_schema_new_table(&s, row, parts, 1, NULL, 0, o, NULL, 0));
    assert_true(pm_schema_field(s, 0)->type->nullable);
    pm_schema_free(s);

    /* errors */
    const char *pk[] = {"k"};
    PM_EXPECT_ERR(pm_schema_new_table(&s, row, NULL, 0, pk, 1, o, NULL, 0), PM_EINVALID); /* both */
    pm_options_remove(o, "primary-key");
    const char *bad[] = {"nope"};
    PM_EXPECT_ERR(pm_schema_new_table(&s, row, bad, 1, NULL, 0, o, NULL, 0), PM_EINVALID);
    PM_EXPECT_ERR(pm_schema_new_table(&s, row, NULL, 0, bad, 1, o, NULL, 0), PM_EINVALID);
    const char *dup[] = {"k", "k"};
    PM_EXPECT_ERR(pm_schema_new_table(&s, row, NULL, 0, dup, 2, o, NULL, 0), PM_EINVALID);
    const char *dt[] = {"dt"};
    PM_EXPECT_ERR(pm_schema_new_table(&s, row, dt, 1, dt, 1, o, NULL, 0), PM_EINVALID);
    PM_OK_OR_FAIL(pm_options_set(o, "bucket-key", "w"));
    PM_EXPECT_ERR(pm_schema_new_table(&s, row, NULL, 0, pk, 1, o, NULL, 0), PM_EINVALID);
    PM_OK_OR_FAIL(pm_schema_new_table(&s, row, NULL, 0, NULL, 0, o, NULL, 0)); /* append: fine */
    pm_str_list bk;
    PM_OK_OR_FAIL(pm_schema_bucket_keys(s, &bk));
    assert_int_equal(bk.count, 1);
    assert_string_equal(bk.items[0], "w");
    pm_str_list_free(&bk);
    pm_schema_free(s);
    pm_type *dupids;
    PM_OK_OR_FAIL(pm_type_parse(&dupids, "ROW<a INT, b INT>"));
    dupids->fields[1].id = 0;
    PM_EXPECT_ERR(pm_schema_new_table(&s, dupids, NULL, 0, NULL, 0, NULL, NULL, 0), PM_EINVALID);
    pm_type_free(dupids);
    pm_options_free(o);
    pm_type_free(row);
}

static void test_directory(void **state)
{
    (void)state;
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    /* fixture with three schema versions and a branch */
    char root[1024];
    snprintf(root, sizeof root, "%s/java-written/parquet/append_table_with_append_pt_branch.db/"
             "append_table_with_append_pt_branch", PM_FIXTURES_DIR);
    int64_t *ids;
    size_t n;
    PM_OK_OR_FAIL(pm_schema_list_ids(fio, root, &ids, &n));
    assert_int_equal(n, 3);
    assert_int_equal(ids[2], 2);
    free(ids);
    pm_schema *s;
    PM_OK_OR_FAIL(pm_schema_load_latest(fio, root, &s));
    assert_int_equal(s->id, 2);
    pm_schema_free(s);
    char *broot;
    PM_OK_OR_FAIL(pm_branch_root(root, "test", &broot));
    PM_OK_OR_FAIL(pm_schema_load_latest(fio, broot, &s));
    assert_true(s->id >= 0);
    pm_schema_free(s);
    free(broot);
    PM_EXPECT_ERR(pm_schema_load(fio, root, 42, &s), PM_ENOTFOUND);

    /* create schema-0 in an empty table dir; a second create is refused */
    char *tmp = pm_test_tmpdir();
    PM_OK_OR_FAIL(pm_schema_load_latest(fio, tmp, &s));
    assert_null(s);
    pm_type *row;
    PM_OK_OR_FAIL(pm_type_parse(&row, "ROW<a INT, b STRING>"));
    PM_OK_OR_FAIL(pm_schema_new_table(&s, row, NULL, 0, NULL, 0, NULL, NULL, 99));
    bool committed;
    PM_OK_OR_FAIL(pm_schema_commit(fio, tmp, s, &committed));
    assert_true(committed);
    PM_OK_OR_FAIL(pm_schema_commit(fio, tmp, s, &committed));
    assert_false(committed);
    pm_schema *loaded;
    PM_OK_OR_FAIL(pm_schema_load(fio, tmp, 0, &loaded));
    char *a = to_json(s), *b = to_json(loaded);
    assert_string_equal(a, b);
    free(a);
    free(b);
    pm_schema *copy;
    PM_OK_OR_FAIL(pm_schema_clone(loaded, &copy));
    copy->id = 1;
    PM_OK_OR_FAIL(pm_schema_commit(fio, tmp, copy, &committed));
    assert_true(committed);
    pm_schema_free(loaded);
    PM_OK_OR_FAIL(pm_schema_load_latest(fio, tmp, &loaded));
    assert_int_equal(loaded->id, 1);
    /* a file holding a different id is corrupt */
    char *p1, *p5;
    PM_OK_OR_FAIL(pm_schema_file_path(tmp, 1, &p1));
    PM_OK_OR_FAIL(pm_schema_file_path(tmp, 5, &p5));
    PM_OK_OR_FAIL(pm_fileio_rename(fio, p1, p5));
    pm_schema *bad;
    PM_EXPECT_ERR(pm_schema_load(fio, tmp, 5, &bad), PM_ECORRUPT);
    free(p1);
    free(p5);
    pm_schema_free(loaded);
    pm_schema_free(copy);
    pm_schema_free(s);
    pm_type_free(row);
    pm_test_rmtree(tmp);
    free(tmp);
    pm_fileio_free(fio);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_roundtrip),
        cmocka_unit_test(test_nested_values),
        cmocka_unit_test(test_type_json),
        cmocka_unit_test(test_compat_and_pypaimon),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_new_table),
        cmocka_unit_test(test_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
