/*
 * tests/unit/meta/test_json.c — the strict JSON reading helpers of
 * meta/json.h: document parsing (empty, malformed, not an object,
 * duplicate keys), the two message styles (value paths and files), strict
 * key sets, ranged and nullable integers, bools, strings (NUL, empty),
 * base64, enums, arrays, string lists and string maps, each error with
 * the node's code.
 */
#include <string.h>

#include "meta/json.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "pm_test.h"


static json_t *parse(const char *text, pm_code code, const char *doc, unsigned flags, pm_jnode *root)
{
    json_t *tree = NULL;
    PM_OK_OR_FAIL(pm_json_parse_doc(text, strlen(text), code, doc, flags, &tree, root));
    return tree;
}

static void test_parse_doc(void **state)
{
    (void)state;
    json_t *tree = NULL;
    pm_jnode root;
    pm_test_expect_error(pm_json_parse_doc("", 0, PM_ECORRUPT, "snapshot/snapshot-3", PM_JSON_FILE, &tree, &root),
               PM_ECORRUPT, "snapshot/snapshot-3: empty file");
    pm_test_expect_error(pm_json_parse_doc(" \n\t", 3, PM_ECORRUPT, "schema/schema-0", PM_JSON_FILE, &tree, &root),
               PM_ECORRUPT, "schema/schema-0: empty file");
    pm_test_expect_error(pm_json_parse_doc(NULL, 0, PM_EINVALID, "task", 0, &tree, &root), PM_EINVALID,
               "task: empty document");
    pm_test_expect_error(pm_json_parse_object("", 0, "snapshot/snapshot-1", &tree), PM_ECORRUPT, "empty file");
    pm_test_expect_error(pm_json_parse_doc("{\"a\":", 5, PM_EINVALID, "plan", 0, &tree, &root), PM_EINVALID,
               "plan: malformed JSON at line 1");
    pm_test_expect_error(pm_json_parse_doc("[1]", 3, PM_ECORRUPT, "f", PM_JSON_FILE, &tree, &root), PM_ECORRUPT,
               "not an object");
    assert_null(tree);
    /* duplicate keys: refused only on request */
    const char *dup = "{\"a\":1,\"a\":2}";
    pm_test_expect_error(pm_json_parse_doc(dup, strlen(dup), PM_EINVALID, "task", PM_JSON_NO_DUPLICATES, &tree, &root),
               PM_EINVALID, "duplicate");
    tree = parse(dup, PM_ECORRUPT, "f", PM_JSON_FILE, &root);
    assert_ptr_equal(root.v, tree);
    json_decref(tree);
}

static void test_paths(void **state)
{
    (void)state;
    pm_jnode root, a, e0, b, c;
    json_t *tree = parse("{\"a\":[{\"b\":{\"c\":\"x\"}}]}", PM_EINVALID, "task", 0, &root);
    pm_json_get(&a, &root, "a");
    pm_json_at(&e0, &a, 0);
    pm_json_get(&b, &e0, "b");
    pm_json_get(&c, &b, "c");
    assert_string_equal(c.path, "a[0].b.c");
    pm_test_expect_error(pm_json_error(&c, "bad %d", 7), PM_EINVALID, "task.a[0].b.c: bad 7");
    pm_test_expect_error(pm_json_error(&root, "whole"), PM_EINVALID, "task: whole");
    pm_test_expect_error(pm_json_as_i64(&c, 0, 1, &(int64_t){0}), PM_EINVALID, "task.a[0].b.c: expected an integer");
    json_decref(tree);

    /* file style: the innermost key quoted, its parent path after "of" */
    tree = parse("{\"id\":\"1\",\"fields\":[{\"name\":2}],\"partitionKeys\":[3]}", PM_ECORRUPT,
                 "schema/schema-3", PM_JSON_FILE, &root);
    pm_test_expect_error(pm_json_i64(&root, "id", 0, 9, &(int64_t){0}), PM_ECORRUPT,
               "schema/schema-3: field 'id': expected an integer");
    pm_jnode fields, f0;
    pm_json_get(&fields, &root, "fields");
    pm_json_at(&f0, &fields, 0);
    pm_test_expect_error(pm_json_i64(&f0, "id", 0, 9, &(int64_t){0}), PM_ECORRUPT,
               "schema/schema-3: field 'id' of fields[0]: missing");
    pm_test_expect_error(pm_json_str(&f0, "name", 0, &(char *){NULL}), PM_ECORRUPT,
               "field 'name' of fields[0]: expected a string");
    pm_test_expect_error(pm_json_str_list(&root, "partitionKeys", 0, NULL, &(pm_str_list){0}), PM_ECORRUPT,
               "schema/schema-3: field 'partitionKeys[0]': expected a string");
    json_decref(tree);

    /* a path too long for the buffer is cut, never overflows */
    char key[400];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = 0;
    pm_json_root(&root, NULL, PM_EINVALID, "task", false);
    pm_json_get(&a, &root, key);
    pm_json_get(&b, &a, "x");
    assert_true(strlen(b.path) < PM_JSON_PATH_MAX);
    assert_non_null(strstr(b.path, "..."));
    pm_test_expect_error(pm_json_i64(&b, "y", 0, 1, &(int64_t){0}), PM_EINVALID, "missing");
}

static const char *const KEYS[] = {"a", "b", NULL};

static void test_keys(void **state)
{
    (void)state;
    pm_jnode root, o;
    json_t *tree = parse("{\"o\":{\"a\":1,\"b\":2},\"p\":{\"a\":1},\"q\":{\"a\":1,\"b\":2,\"c\":3},\"n\":5}",
                         PM_EINVALID, "result", 0, &root);
    pm_json_get(&o, &root, "o");
    PM_OK_OR_FAIL(pm_json_keys(&o, KEYS));
    pm_json_get(&o, &root, "p");
    pm_test_expect_error(pm_json_keys(&o, KEYS), PM_EINVALID, "result.p.b: missing");
    pm_json_get(&o, &root, "q");
    pm_test_expect_error(pm_json_keys(&o, KEYS), PM_EINVALID, "result.q: unknown field 'c'");
    pm_json_get(&o, &root, "n");
    pm_test_expect_error(pm_json_keys(&o, KEYS), PM_EINVALID, "result.n: expected an object");
    pm_json_get(&o, &root, "absent");
    pm_test_expect_error(pm_json_keys(&o, KEYS), PM_EINVALID, "result.absent: missing");
    pm_jnode out;
    pm_test_expect_error(pm_json_object(&root, "n", 0, &out), PM_EINVALID, "result.n: expected an object");
    PM_OK_OR_FAIL(pm_json_object(&root, "absent", PM_JSON_NULLABLE, &out));
    assert_null(out.v);
    PM_OK_OR_FAIL(pm_json_object(&root, "o", 0, &out));
    assert_non_null(out.v);
    json_decref(tree);
}

static void test_integers_bools(void **state)
{
    (void)state;
    pm_jnode root;
    json_t *tree = parse("{\"i\":7,\"neg\":-1,\"big\":4294967296,\"f\":1.5,\"s\":\"3\",\"z\":null,\"t\":true,"
                         "\"one\":1}",
                         PM_EINVALID, "task", 0, &root);
    int64_t v = 0;
    int32_t w = 0;
    bool has = true, b = false;
    PM_OK_OR_FAIL(pm_json_i64(&root, "i", 0, 10, &v));
    assert_int_equal(v, 7);
    pm_test_expect_error(pm_json_i64(&root, "neg", 0, 10, &v), PM_EINVALID, "task.neg: -1 is out of range [0, 10]");
    pm_test_expect_error(pm_json_i32(&root, "big", INT32_MIN, INT32_MAX, &w), PM_EINVALID, "task.big: 4294967296 is out of");
    pm_test_expect_error(pm_json_i64(&root, "f", 0, 10, &v), PM_EINVALID, "task.f: expected an integer");
    pm_test_expect_error(pm_json_i64(&root, "s", 0, 10, &v), PM_EINVALID, "task.s: expected an integer");
    pm_test_expect_error(pm_json_i64(&root, "z", 0, 10, &v), PM_EINVALID, "task.z: expected an integer");
    pm_test_expect_error(pm_json_i64(&root, "nope", 0, 10, &v), PM_EINVALID, "task.nope: missing");
    PM_OK_OR_FAIL(pm_json_opt_i64(&root, "z", 0, 10, &has, &v));
    assert_false(has);
    PM_OK_OR_FAIL(pm_json_opt_i64(&root, "nope", 0, 10, &has, &v));
    assert_false(has);
    PM_OK_OR_FAIL(pm_json_opt_i64(&root, "i", 0, 10, &has, &v));
    assert_true(has);
    assert_int_equal(v, 7);
    pm_test_expect_error(pm_json_opt_i64(&root, "s", 0, 10, &has, &v), PM_EINVALID, "task.s: expected an integer or null");
    pm_test_expect_error(pm_json_opt_i64(&root, "big", 0, 10, &has, &v), PM_EINVALID, "out of range");
    PM_OK_OR_FAIL(pm_json_bool(&root, "t", &b));
    assert_true(b);
    pm_test_expect_error(pm_json_bool(&root, "one", &b), PM_EINVALID, "task.one: expected true or false");
    pm_test_expect_error(pm_json_bool(&root, "nope", &b), PM_EINVALID, "task.nope: missing");
    json_decref(tree);
}

static void test_strings_bytes_enums(void **state)
{
    (void)state;
    pm_jnode root;
    const char text[] = "{\"s\":\"abc\",\"e\":\"\",\"n\":null,\"i\":1,"
                        "\"b64\":\"AQID\",\"pad\":\"AQ==\",\"odd\":\"AQI\",\"badc\":\"AQ*D\",\"midpad\":\"A=AA\","
                        "\"kind\":\"COMPACT\",\"kind2\":\"compact\"}";
    json_t *tree = parse(text, PM_ECORRUPT, "snapshot/snapshot-9", PM_JSON_FILE, &root);
    char *s = NULL;
    PM_OK_OR_FAIL(pm_json_str(&root, "s", PM_JSON_NONEMPTY, &s));
    assert_string_equal(s, "abc");
    free(s);
    PM_OK_OR_FAIL(pm_json_str(&root, "e", 0, &s));
    assert_string_equal(s, "");
    free(s);
    pm_test_expect_error(pm_json_str(&root, "e", PM_JSON_NONEMPTY, &s), PM_ECORRUPT, "field 'e': must not be empty");
    /* jansson refuses \u0000 in text; a tree built in memory may hold one */
    json_t *nul = json_stringn("a\0b", 3);
    pm_jnode nn;
    pm_json_root(&nn, nul, PM_ECORRUPT, "f", true);
    pm_test_expect_error(pm_json_as_str(&nn, 0, &s), PM_ECORRUPT, "f: string contains a NUL character");
    json_decref(nul);
    PM_OK_OR_FAIL(pm_json_str(&root, "n", PM_JSON_NULLABLE, &s));
    assert_null(s);
    pm_test_expect_error(pm_json_str(&root, "n", 0, &s), PM_ECORRUPT, "field 'n': expected a string");
    pm_test_expect_error(pm_json_str(&root, "i", PM_JSON_NULLABLE, &s), PM_ECORRUPT, "expected a string or null");
    assert_null(s);

    pm_buf buf = PM_BUF_INIT;
    bool has = false;
    PM_OK_OR_FAIL(pm_json_base64(&root, "b64", 0, &has, &buf));
    assert_true(has);
    assert_int_equal(buf.len, 3);
    assert_int_equal(buf.data[2], 3);
    pm_buf_clear(&buf);
    PM_OK_OR_FAIL(pm_json_base64(&root, "pad", 0, &has, &buf));
    assert_int_equal(buf.len, 1);
    pm_buf_clear(&buf);
    PM_OK_OR_FAIL(pm_json_base64(&root, "n", PM_JSON_NULLABLE, &has, &buf));
    assert_false(has);
    pm_test_expect_error(pm_json_base64(&root, "odd", 0, &has, &buf), PM_ECORRUPT, "invalid base64 (length 3)");
    pm_test_expect_error(pm_json_base64(&root, "badc", 0, &has, &buf), PM_ECORRUPT, "invalid base64 character at 2");
    pm_test_expect_error(pm_json_base64(&root, "midpad", 0, &has, &buf), PM_ECORRUPT, "invalid base64 character at 1");
    pm_test_expect_error(pm_json_base64(&root, "i", 0, &has, &buf), PM_ECORRUPT, "expected a base64 string");
    pm_buf_free(&buf);

    static const char *const KINDS[] = {"APPEND", NULL, "COMPACT"};
    int k = 0;
    PM_OK_OR_FAIL(pm_json_enum(&root, "kind", KINDS, 3, 0, &k));
    assert_int_equal(k, 2);
    pm_test_expect_error(pm_json_enum(&root, "kind2", KINDS, 3, 0, &k), PM_ECORRUPT,
               "field 'kind2': unknown value \"compact\" (expected APPEND, COMPACT)");
    PM_OK_OR_FAIL(pm_json_enum(&root, "n", KINDS, 3, PM_JSON_NULLABLE, &k));
    assert_int_equal(k, -1);
    pm_test_expect_error(pm_json_enum(&root, "absent", KINDS, 3, 0, &k), PM_ECORRUPT, "field 'absent': missing");
    json_decref(tree);
}

static pm_error *collect(void *ctx, const char *key, const char *value)
{
    pm_buf *b = ctx;
    PM_TRY(pm_buf_append_str(b, key));
    PM_TRY(pm_buf_append_str(b, "="));
    PM_TRY(pm_buf_append_str(b, value));
    return pm_buf_append_str(b, ";");
}

static void test_arrays_lists_maps(void **state)
{
    (void)state;
    pm_jnode root, arr, el;
    json_t *tree = parse("{\"a\":[1,null,3],\"l\":[\"x\",\"y\"],\"bad\":[\"x\",2],\"n\":null,\"o\":{},"
                         "\"m\":{\"k\":\"v\",\"k2\":\"w\"},\"mbad\":{\"k\":1}}",
                         PM_EINVALID, "task", 0, &root);
    size_t n = 0;
    PM_OK_OR_FAIL(pm_json_array(&root, "a", 0, &arr, &n));
    assert_int_equal(n, 3);
    pm_json_at(&el, &arr, 1);
    bool has = true;
    int64_t v = 0;
    PM_OK_OR_FAIL(pm_json_as_opt_i64(&el, 0, 9, &has, &v));
    assert_false(has);
    pm_test_expect_error(pm_json_as_i64(&el, 0, 9, &v), PM_EINVALID, "task.a[1]: expected an integer");
    pm_json_at(&el, &arr, 7);
    pm_test_expect_error(pm_json_as_i64(&el, 0, 9, &v), PM_EINVALID, "task.a[7]: missing");
    PM_OK_OR_FAIL(pm_json_array(&root, "n", PM_JSON_NULLABLE, &arr, &n));
    assert_null(arr.v);
    assert_int_equal(n, 0);
    pm_test_expect_error(pm_json_array(&root, "n", 0, &arr, &n), PM_EINVALID, "task.n: expected an array");
    pm_test_expect_error(pm_json_array(&root, "o", PM_JSON_NULLABLE, &arr, &n), PM_EINVALID,
               "task.o: expected an array or null");

    pm_str_list l = {0};
    PM_OK_OR_FAIL(pm_json_str_list(&root, "l", 0, &has, &l));
    assert_true(has);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.items[1], "y");
    pm_str_list_free(&l);
    pm_test_expect_error(pm_json_str_list(&root, "bad", 0, &has, &l), PM_EINVALID, "task.bad[1]: expected a string");
    assert_int_equal(l.count, 0);
    PM_OK_OR_FAIL(pm_json_str_list(&root, "n", PM_JSON_NULLABLE, &has, &l));
    assert_false(has);

    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_json_str_map(&root, "m", 0, collect, &b));
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&b, &s));
    assert_string_equal(s, "k=v;k2=w;");
    pm_buf_free(&b);
    pm_test_expect_error(pm_json_str_map(&root, "mbad", 0, collect, &b), PM_EINVALID, "task.mbad.k: expected a string");
    pm_buf_free(&b);
    PM_OK_OR_FAIL(pm_json_str_map(&root, "n", PM_JSON_NULLABLE, collect, &b));
    assert_int_equal(b.len, 0);
    pm_test_expect_error(pm_json_str_map(&root, "l", 0, collect, &b), PM_EINVALID, "task.l: expected an object");
    json_decref(tree);
}

/* The metadata readers say "empty file" for an empty file. */
static void test_empty_metadata_files(void **state)
{
    (void)state;
    pm_snapshot *sn = NULL;
    pm_test_expect_error(pm_snapshot_parse("", 0, "snapshot/snapshot-4", &sn), PM_ECORRUPT, "snapshot/snapshot-4: empty file");
    assert_null(sn);
    pm_schema *sc = NULL;
    pm_test_expect_error(pm_schema_parse("\n", 1, "schema/schema-1", &sc), PM_ECORRUPT, "schema/schema-1: empty file");
    assert_null(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_doc),       cmocka_unit_test(test_paths),
        cmocka_unit_test(test_keys),            cmocka_unit_test(test_integers_bools),
        cmocka_unit_test(test_strings_bytes_enums), cmocka_unit_test(test_arrays_lists_maps),
        cmocka_unit_test(test_empty_metadata_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
