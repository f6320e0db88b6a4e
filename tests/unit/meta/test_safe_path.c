/*
 * tests/unit/meta/test_safe_path.c — untrusted file names and external
 * paths: what is admitted, what is refused and with which code.
 */
#include <string.h>

#include "pm_test.h"
#include "meta/safe_path.h"

static void ok(pm_error *e) { PM_OK_OR_FAIL(e); }

static void test_file_names(void **state)
{
    (void)state;
    ok(pm_safe_file_name(PM_ECORRUPT, "f", "data-0b2c-0.parquet"));
    ok(pm_safe_file_name(PM_ECORRUPT, "f", "manifest-list-x-1"));
    ok(pm_safe_file_name(PM_ECORRUPT, "f", "..data"));
    PM_EXPECT_ERR(pm_safe_file_name(PM_ECORRUPT, "f", NULL), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_safe_file_name(PM_ECORRUPT, "f", ""), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_safe_file_name(PM_EINVALID, "f", ".."), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_file_name(PM_EINVALID, "f", "."), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_file_name(PM_EINVALID, "f", "../../outside.parquet"), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_file_name(PM_EINVALID, "f", "/etc/passwd"), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_file_name(PM_EINVALID, "f", "a\\b"), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_file_name(PM_EINVALID, "f", "a\nb"), PM_EINVALID);
    char longname[300];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    PM_EXPECT_ERR(pm_safe_file_name(PM_EINVALID, "f", longname), PM_EINVALID);
    /* the test form agrees with the checking form */
    const char *names[] = {"data-0b2c-0.parquet", "..data", "", ".", "..", "a/b", "a\\b", "a\nb", "a\x7f", longname};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pm_error *f = pm_safe_file_name(PM_ECORRUPT, "f", names[i]);
        assert_int_equal(pm_safe_file_name_ok(names[i]), f == NULL);
        pm_error_free(f);
    }
    assert_false(pm_safe_file_name_ok(NULL));
    longname[255] = '\0'; /* 255 bytes: the longest name */
    assert_true(pm_safe_file_name_ok(longname));
    ok(pm_safe_file_name(PM_ECORRUPT, "f", longname));
    /* the message names the field */
    pm_error *e = pm_safe_file_name(PM_EINVALID, "result.after[3].file_name", "../x");
    assert_non_null(e);
    assert_non_null(strstr(pm_error_message(e), "result.after[3].file_name"));
    pm_error_free(e);
}

static void test_external_paths(void **state)
{
    (void)state;
    const char *roots = "FILE:///tmp/external, file:/data/ext2/";
    ok(pm_safe_external_path(PM_ECORRUPT, "f", "FILE:/tmp/external/f1=10/bucket-1/data-1.parquet", roots));
    ok(pm_safe_external_path(PM_ECORRUPT, "f", "file:///tmp/external/x", roots));
    ok(pm_safe_external_path(PM_ECORRUPT, "f", "/tmp//external/x", roots));
    ok(pm_safe_external_path(PM_ECORRUPT, "f", "/data/ext2/a/b", roots));
    ok(pm_safe_external_path(PM_ECORRUPT, "f", "/tmp/external", roots));
    PM_EXPECT_ERR(pm_safe_external_path(PM_ECORRUPT, "f", "/tmp/externalx/a", roots), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_safe_external_path(PM_ECORRUPT, "f", "/tmp/external/../etc/passwd", roots), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_safe_external_path(PM_ECORRUPT, "f", "/tmp/external/./a", roots), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "/etc/passwd", roots), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "tmp/external/a", roots), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "", roots), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "s3://bucket/a", roots), PM_EUNSUPPORTED);
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "file://host/tmp/external/a", roots), PM_EUNSUPPORTED);
    /* no roots: nothing external is admitted */
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "/tmp/external/a", NULL), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "/tmp/external/a", ""), PM_EINVALID);
    /* a relative or dotted root admits nothing */
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "/a/b", "a"), PM_EINVALID);
    PM_EXPECT_ERR(pm_safe_external_path(PM_EINVALID, "f", "/a/b", "/a/../a"), PM_EINVALID);
    /* root "/" admits every absolute path */
    ok(pm_safe_external_path(PM_EINVALID, "f", "/anything/x", "/"));
    assert_string_equal(pm_safe_path_local("FILE:///tmp/x"), "/tmp/x");
    assert_string_equal(pm_safe_path_local("file:/tmp/x"), "/tmp/x");
    assert_string_equal(pm_safe_path_local("/tmp/x"), "/tmp/x");
    assert_null(pm_safe_path_local("hdfs://nn/x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_names),
        cmocka_unit_test(test_external_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
