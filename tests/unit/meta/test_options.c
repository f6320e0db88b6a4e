/*
 * tests/unit/meta/test_options.c — table options: ordered map, Java-compatible
 * value parsers (memory size, duration, stats mode, map), typed accessors with
 * defaults and fallback keys, derived values and validation.
 */
#include <math.h>
#include <string.h>

#include "pm_test.h"
#include "meta/options.h"

static pm_options *opts_of(const char *const *kv)
{
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    for (; kv && kv[0]; kv += 2)
        PM_OK_OR_FAIL(pm_options_set(o, kv[0], kv[1]));
    return o;
}

static void test_map_order(void **state)
{
    (void)state;
    pm_options *o = opts_of((const char *const[]){"bucket", "2", "bucket-key", "a", "x.y", "z", NULL});
    assert_int_equal(pm_options_count(o), 3);
    PM_OK_OR_FAIL(pm_options_set(o, "bucket", "4")); /* replace keeps position */
    assert_string_equal(pm_options_key_at(o, 0), "bucket");
    assert_string_equal(pm_options_value_at(o, 0), "4");
    PM_OK_OR_FAIL(pm_options_set(o, "new", "1"));
    assert_string_equal(pm_options_key_at(o, 3), "new");
    assert_true(pm_options_remove(o, "bucket-key"));
    assert_false(pm_options_remove(o, "bucket-key"));
    assert_string_equal(pm_options_key_at(o, 1), "x.y");
    assert_null(pm_options_get(o, "bucket-key"));
    pm_options *c;
    PM_OK_OR_FAIL(pm_options_clone(o, &c));
    assert_true(pm_options_equal(o, c));
    PM_OK_OR_FAIL(pm_options_set(c, "x.y", "w"));
    assert_false(pm_options_equal(o, c));
    pm_options_free(c);
    pm_options_free(o);
    pm_options_free(NULL);
}

static void test_memory_size(void **state)
{
    (void)state;
    struct { const char *text; int64_t bytes; } ok[] = {
        {"128 mb", 128LL << 20}, {"256MB", 256LL << 20}, {"1 gb", 1LL << 30}, {"64kb", 64LL << 10},
        {"500 B", 500}, {"1B", 1}, {"50", 50}, {"  7 bytes ", 7}, {"2 mebibytes", 2LL << 20},
        {"1t", 1LL << 40}, {"3 TB", 3LL << 40}, {"0", 0}, {"9223372036854775807", INT64_MAX},
        {"8 K", 8192},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        int64_t v = -1;
        PM_OK_OR_FAIL(pm_parse_memory_size(ok[i].text, &v));
        assert_int_equal(v, ok[i].bytes);
    }
    const char *bad[] = {"", "   ", "mb", "1.5gb", "-1", "1 mbb", "9223372036854775808",
                         "9007199254740992 kb", "12 pb"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int64_t v;
        PM_EXPECT_ERR(pm_parse_memory_size(bad[i], &v), PM_EINVALID);
    }
}

static void test_duration(void **state)
{
    (void)state;
    struct { const char *text; int64_t ms; } ok[] = {
        {"1 h", 3600000}, {"10 s", 10000}, {"500 ms", 500}, {"500", 500}, {"2 min", 120000},
        {"3m", 180000}, {"1 d", 86400000}, {"2 days", 172800000}, {"5 secs", 5000},
        {"7 SECONDS", 7000}, {"1500 \xc2\xb5s", 1}, {"2000000 ns", 2}, {"4 hours", 14400000},
        {"1 millisecond", 1}, {"3 micros", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        int64_t v = -1;
        PM_OK_OR_FAIL(pm_parse_duration_ms(ok[i].text, &v));
        assert_int_equal(v, ok[i].ms);
    }
    const char *bad[] = {"", "h", "1 hr", "1.5 h", "-3 s", "106751991167301 d"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int64_t v;
        PM_EXPECT_ERR(pm_parse_duration_ms(bad[i], &v), PM_EINVALID);
    }
}

static void test_scalars(void **state)
{
    (void)state;
    int32_t i;
    int64_t l;
    bool b;
    double d;
    PM_OK_OR_FAIL(pm_parse_int32("-2147483648", &i));
    assert_int_equal(i, INT32_MIN);
    PM_OK_OR_FAIL(pm_parse_int32("+7", &i));
    assert_int_equal(i, 7);
    PM_EXPECT_ERR(pm_parse_int32("2147483648", &i), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_int32(" 1", &i), PM_EINVALID); /* Integer.parseInt does not trim */
    PM_EXPECT_ERR(pm_parse_int32("-", &i), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_int32("1a", &i), PM_EINVALID);
    PM_OK_OR_FAIL(pm_parse_int64("-9223372036854775808", &l));
    assert_true(l == INT64_MIN);
    PM_EXPECT_ERR(pm_parse_int64("9223372036854775808", &l), PM_EINVALID);
    PM_OK_OR_FAIL(pm_parse_bool("TRUE", &b));
    assert_true(b);
    PM_OK_OR_FAIL(pm_parse_bool("False", &b));
    assert_false(b);
    PM_EXPECT_ERR(pm_parse_bool("yes", &b), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_bool(" true", &b), PM_EINVALID);
    PM_OK_OR_FAIL(pm_parse_double("0.7", &d));
    assert_true(d == 0.7);
    PM_OK_OR_FAIL(pm_parse_double(" 1e3d ", &d));
    assert_true(d == 1000.0);
    PM_OK_OR_FAIL(pm_parse_double(".5", &d));
    assert_true(d == 0.5);
    PM_OK_OR_FAIL(pm_parse_double("-Infinity", &d));
    assert_true(isinf(d) && d < 0);
    PM_OK_OR_FAIL(pm_parse_double("NaN", &d));
    assert_true(isnan(d));
    PM_EXPECT_ERR(pm_parse_double("abc", &d), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_double("1e", &d), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_double(".", &d), PM_EINVALID);
}

static void test_stats_mode(void **state)
{
    (void)state;
    pm_stats_mode m;
    PM_OK_OR_FAIL(pm_parse_stats_mode("truncate(16)", &m));
    assert_int_equal(m.kind, PM_STATS_TRUNCATE);
    assert_int_equal(m.truncate_length, 16);
    PM_OK_OR_FAIL(pm_parse_stats_mode("TRUNCATE(0)", &m));
    assert_int_equal(m.truncate_length, 0);
    PM_OK_OR_FAIL(pm_parse_stats_mode("Full", &m));
    assert_int_equal(m.kind, PM_STATS_FULL);
    PM_OK_OR_FAIL(pm_parse_stats_mode("counts", &m));
    assert_int_equal(m.kind, PM_STATS_COUNTS);
    PM_OK_OR_FAIL(pm_parse_stats_mode("none", &m));
    assert_int_equal(m.kind, PM_STATS_NONE);
    const char *bad[] = {"truncate()", "truncate(-1)", "truncate(16", "truncate( 16)", "trunc(3)",
                         "truncate(99999999999)", "all"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        PM_EXPECT_ERR(pm_parse_stats_mode(bad[i], &m), PM_EINVALID);
}

static void test_map_and_list(void **state)
{
    (void)state;
    pm_kv_list m;
    PM_OK_OR_FAIL(pm_parse_map("0:avro, 3 : parquet", &m));
    assert_int_equal(m.count, 2);
    assert_string_equal(m.items[0].key, "0");
    assert_string_equal(m.items[0].value, "avro");
    assert_string_equal(m.items[1].key, "3");
    assert_string_equal(m.items[1].value, "parquet");
    pm_kv_list_free(&m);
    /* Java's escaped form of {"a,b": "c:d", "x": ""} (OptionsUtils.convertToString) */
    PM_OK_OR_FAIL(pm_parse_map("'a,b:''c:d''',x:''", &m));
    assert_int_equal(m.count, 2);
    assert_string_equal(m.items[0].key, "a,b");
    assert_string_equal(m.items[0].value, "c:d");
    assert_string_equal(m.items[1].value, "");
    pm_kv_list_free(&m);
    PM_OK_OR_FAIL(pm_parse_map("", &m));
    assert_int_equal(m.count, 0);
    pm_kv_list_free(&m);
    PM_EXPECT_ERR(pm_parse_map("0", &m), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_map("0:a:b", &m), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_map("0:a,0:b", &m), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_map("'0:a", &m), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_map("'0'x:a", &m), PM_EINVALID);
    PM_EXPECT_ERR(pm_parse_map("'a':b", &m), PM_EINVALID); /* quoted token then ':' */

    pm_str_list l;
    PM_OK_OR_FAIL(pm_parse_list(" s0, s1 ,s2", &l));
    assert_int_equal(l.count, 3);
    assert_string_equal(l.items[0], "s0");
    assert_string_equal(l.items[1], "s1");
    assert_string_equal(l.items[2], "s2");
    pm_str_list_free(&l);
    PM_OK_OR_FAIL(pm_parse_list("  ", &l));
    assert_int_equal(l.count, 0);
    pm_str_list_free(&l);
}

static void test_defaults_and_accessors(void **state)
{
    (void)state;
    pm_options *o = opts_of(NULL);
    int32_t i;
    int64_t l;
    bool b, present;
    int en;
    const char *s;
    PM_OK_OR_FAIL(pm_options_int(o, PM_OPT_BUCKET, &present, &i));
    assert_true(present);
    assert_int_equal(i, -1);
    PM_OK_OR_FAIL(pm_options_string(o, PM_OPT_FILE_FORMAT, &s));
    assert_string_equal(s, "parquet");
    PM_OK_OR_FAIL(pm_options_string(o, PM_OPT_PARTITION_DEFAULT_NAME, &s));
    assert_string_equal(s, "__DEFAULT_PARTITION__");
    PM_OK_OR_FAIL(pm_options_memory(o, PM_OPT_FILE_INDEX_IN_MANIFEST_THRESHOLD, &present, &l));
    assert_int_equal(l, 500);
    PM_OK_OR_FAIL(pm_options_memory(o, PM_OPT_MANIFEST_TARGET_FILE_SIZE, &present, &l));
    assert_int_equal(l, 8 << 20);
    PM_OK_OR_FAIL(pm_options_memory(o, PM_OPT_TARGET_FILE_SIZE, &present, &l));
    assert_false(present);
    PM_OK_OR_FAIL(pm_options_duration_ms(o, PM_OPT_SNAPSHOT_TIME_RETAINED, &present, &l));
    assert_int_equal(l, 3600000);
    PM_OK_OR_FAIL(pm_options_long(o, PM_OPT_TARGET_FILE_ROW_NUM, &present, &l));
    assert_true(l == INT64_MAX);
    PM_OK_OR_FAIL(pm_options_enum(o, PM_OPT_MERGE_ENGINE, &en));
    assert_int_equal(en, PM_MERGE_DEDUPLICATE);
    PM_OK_OR_FAIL(pm_options_enum(o, PM_OPT_CHANGELOG_PRODUCER, &en));
    assert_int_equal(en, PM_CHANGELOG_NONE);
    PM_OK_OR_FAIL(pm_options_bool(o, PM_OPT_PARTITION_LEGACY_NAME, &b));
    assert_true(b);
    pm_stats_mode sm;
    PM_OK_OR_FAIL(pm_options_stats_mode(o, PM_OPT_METADATA_STATS_MODE, &present, &sm));
    assert_int_equal(sm.kind, PM_STATS_TRUNCATE);
    assert_int_equal(sm.truncate_length, 16);
    /* wrong accessor is a bug, not bad input */
    PM_EXPECT_ERR(pm_options_int(o, PM_OPT_FILE_FORMAT, &present, &i), PM_EINTERNAL);
    pm_options_free(o);

    o = opts_of((const char *const[]){"bucket", "3", "merge-engine", "Partial-Update",
                                      "file.format", "ORC", "changelog-producer", "lookup", NULL});
    PM_OK_OR_FAIL(pm_options_int(o, PM_OPT_BUCKET, &present, &i));
    assert_int_equal(i, 3);
    PM_OK_OR_FAIL(pm_options_enum(o, PM_OPT_MERGE_ENGINE, &en));
    assert_int_equal(en, PM_MERGE_PARTIAL_UPDATE);
    PM_OK_OR_FAIL(pm_options_enum(o, PM_OPT_CHANGELOG_PRODUCER, &en));
    assert_int_equal(en, PM_CHANGELOG_LOOKUP);
    char fmt[16];
    PM_OK_OR_FAIL(pm_options_file_format(o, fmt, sizeof fmt));
    assert_string_equal(fmt, "orc");
    pm_options_free(o);
}

static void test_fallbacks(void **state)
{
    (void)state;
    bool b;
    pm_options *o = opts_of((const char *const[]){"write.compaction-skip", "true", NULL});
    PM_OK_OR_FAIL(pm_options_bool(o, PM_OPT_WRITE_ONLY, &b));
    assert_true(b);
    PM_OK_OR_FAIL(pm_options_set(o, "write-only", "false")); /* primary key wins */
    PM_OK_OR_FAIL(pm_options_bool(o, PM_OPT_WRITE_ONLY, &b));
    assert_false(b);
    pm_options_free(o);

    o = opts_of((const char *const[]){"partial-update.ignore-delete", "true", NULL});
    PM_OK_OR_FAIL(pm_options_bool(o, PM_OPT_IGNORE_DELETE, &b));
    assert_true(b);
    pm_options_free(o);
    o = opts_of((const char *const[]){"first-row.ignore-delete", "false",
                                      "deduplicate.ignore-delete", "true", NULL});
    PM_OK_OR_FAIL(pm_options_bool(o, PM_OPT_IGNORE_DELETE, &b));
    assert_false(b); /* first fallback in order wins */
    pm_options_free(o);

    /* a bad value under a fallback key names that key */
    o = opts_of((const char *const[]){"write.compaction-skip", "maybe", NULL});
    pm_error *e = pm_options_bool(o, PM_OPT_WRITE_ONLY, &b);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "write.compaction-skip"));
    assert_non_null(strstr(msg, "maybe"));
    free(msg);
    pm_error_free(e);
    pm_options_free(o);

    pm_option_id id;
    assert_non_null(pm_option_def_find("write.compaction-skip", &id));
    assert_int_equal(id, PM_OPT_WRITE_ONLY);
    assert_null(pm_option_def_find("no.such.option", &id));
}

static void test_derived(void **state)
{
    (void)state;
    int64_t l;
    int32_t i;
    pm_options *o = opts_of(NULL);
    PM_OK_OR_FAIL(pm_options_target_file_size(o, true, &l));
    assert_int_equal(l, 128 << 20);
    PM_OK_OR_FAIL(pm_options_target_file_size(o, false, &l));
    assert_int_equal(l, 256 << 20);
    PM_OK_OR_FAIL(pm_options_blob_target_file_size(o, &l));
    assert_int_equal(l, 256 << 20);
    PM_OK_OR_FAIL(pm_options_compaction_file_size(o, true, &l));
    assert_int_equal(l, (int64_t)((double)(128 << 20) * 0.7));
    PM_OK_OR_FAIL(pm_options_num_levels(o, &i));
    assert_int_equal(i, 6);
    PM_OK_OR_FAIL(pm_options_stop_trigger(o, &i));
    assert_int_equal(i, 8);
    PM_OK_OR_FAIL(pm_options_lookup_compact_max_interval(o, &i));
    assert_int_equal(i, 10);
    PM_OK_OR_FAIL(pm_options_changelog_num_retained_min(o, &i));
    assert_int_equal(i, 10);
    PM_OK_OR_FAIL(pm_options_changelog_time_retained_ms(o, &l));
    assert_int_equal(l, 3600000);
    pm_options_free(o);

    o = opts_of((const char *const[]){"target-file-size", "1 kb", "num-sorted-run.compaction-trigger",
                                      "3", "num-sorted-run.stop-trigger", "2", "blob.target-file-size",
                                      "50", "changelog.num-retained.min", "4", NULL});
    PM_OK_OR_FAIL(pm_options_target_file_size(o, true, &l));
    assert_int_equal(l, 1024);
    PM_OK_OR_FAIL(pm_options_blob_target_file_size(o, &l));
    assert_int_equal(l, 50);
    PM_OK_OR_FAIL(pm_options_num_levels(o, &i));
    assert_int_equal(i, 4);
    PM_OK_OR_FAIL(pm_options_stop_trigger(o, &i)); /* max(trigger, stop) */
    assert_int_equal(i, 3);
    PM_OK_OR_FAIL(pm_options_changelog_num_retained_min(o, &i));
    assert_int_equal(i, 4);
    pm_options_free(o);

    o = opts_of((const char *const[]){"num-sorted-run.compaction-trigger", "2147483647", NULL});
    PM_OK_OR_FAIL(pm_options_num_levels(o, &i)); /* saturating like MathUtils.incrementSafely */
    assert_int_equal(i, INT32_MAX);
    pm_options_free(o);
}

static void test_per_level_and_fields(void **state)
{
    (void)state;
    pm_options *o = opts_of((const char *const[]){"file.format.per.level", "0:avro,3:parquet",
                                                  "fields.name.stats-mode", "full", NULL});
    char *v;
    PM_OK_OR_FAIL(pm_options_per_level(o, PM_OPT_FILE_FORMAT_PER_LEVEL, 3, &v));
    assert_string_equal(v, "parquet");
    free(v);
    PM_OK_OR_FAIL(pm_options_per_level(o, PM_OPT_FILE_FORMAT_PER_LEVEL, 1, &v));
    assert_null(v);
    bool present;
    pm_stats_mode m;
    PM_OK_OR_FAIL(pm_options_field_stats_mode(o, "name", &present, &m));
    assert_true(present);
    assert_int_equal(m.kind, PM_STATS_FULL);
    PM_OK_OR_FAIL(pm_options_field_stats_mode(o, "other", &present, &m));
    assert_false(present);
    PM_OK_OR_FAIL(pm_options_validate(o));
    pm_options_free(o);
}

static void expect_invalid_naming(const char *key, const char *value)
{
    pm_options *o = opts_of((const char *const[]){"some.unknown.key", "whatever", key, value, NULL});
    pm_error *e = pm_options_validate(o);
    if (!e) {
        print_error("validate accepted %s=%s\n", key, value);
        fail();
    }
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    char *msg = pm_error_format(e);
    if (!strstr(msg, key) || !strstr(msg, value)) {
        print_error("message does not name option and value: %s\n", msg);
        fail();
    }
    free(msg);
    pm_error_free(e);
    pm_options_free(o);
}

static void test_validate(void **state)
{
    (void)state;
    /* every fixture-style option set validates, unknown keys included */
    pm_options *o = opts_of((const char *const[]){
        "bucket", "2", "bucket-key", "shopId", "manifest.format", "orc", "file.format", "parquet",
        "file-index.in-manifest-threshold", "1B", "blob.target-file-size", "50",
        "sequence.field", "s0,s1", "deletion-vectors.enabled", "true", "fields.f0.aggregate-function",
        "sum", "data-file.external-paths.strategy", "round-robin", "commit.force-compact", "true",
        "scan.fallback-branch", "test", NULL});
    PM_OK_OR_FAIL(pm_options_validate(o));
    pm_options_free(o);

    expect_invalid_naming("bucket", "two");
    expect_invalid_naming("merge-engine", "dedup");
    expect_invalid_naming("target-file-size", "128 pb");
    expect_invalid_naming("snapshot.time-retained", "1 fortnight");
    expect_invalid_naming("metadata.stats-mode", "truncate(x)");
    expect_invalid_naming("fields.a.stats-mode", "some");
    expect_invalid_naming("file.format.per.level", "x:avro");
    expect_invalid_naming("write.compaction-skip", "nope");
    expect_invalid_naming("compaction.small-file-ratio", "0,7");
    expect_invalid_naming("metadata.stats-mode.per.level", "0:bogus");
}

/* Ranges and rules between options; values at the edges pass. */
static void test_validate_ranges(void **state)
{
    (void)state;
    expect_invalid_naming("compaction.min.file-num", "-3");
    expect_invalid_naming("compaction.min.file-num", "0");
    expect_invalid_naming("bucket", "0");
    expect_invalid_naming("bucket", "-3");
    expect_invalid_naming("target-file-size", "0 b");
    expect_invalid_naming("target-file-row-num", "0");
    expect_invalid_naming("write-buffer-size", "0");
    expect_invalid_naming("num-sorted-run.compaction-trigger", "0");
    expect_invalid_naming("num-levels", "1");
    expect_invalid_naming("compaction.delete-ratio-threshold", "1.5");
    expect_invalid_naming("compaction.small-file-ratio", "-0.1");
    expect_invalid_naming("compaction.offpeak.start.hour", "24");
    expect_invalid_naming("manifest.full-compaction-threshold-size", "0 b");
    expect_invalid_naming("commit.max-retries", "-1");
    expect_invalid_naming("dynamic-bucket.max-buckets", "0");
    expect_invalid_naming("snapshot.num-retained.min", "0");
    expect_invalid_naming("changelog-producer", "bar");
    expect_invalid_naming("merge-engine", "foo");
    expect_invalid_naming("sort-engine", "quick");
    /* the rule names the bound */
    pm_options *o = opts_of((const char *const[]){"compaction.min.file-num", "-3", NULL});
    pm_error *e = pm_options_validate(o);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "must be at least 1"));
    free(msg);
    pm_error_free(e);
    pm_options_free(o);
    /* retained min above max */
    o = opts_of((const char *const[]){"snapshot.num-retained.min", "20", "snapshot.num-retained.max", "5", NULL});
    PM_EXPECT_ERR(pm_options_validate(o), PM_EINVALID);
    pm_options_free(o);
    /* edges and special values pass */
    o = opts_of((const char *const[]){"bucket", "-2", "compaction.min.file-num", "1", "num-levels", "2",
                                      "compaction.delete-ratio-threshold", "1", "compaction.offpeak.end.hour", "-1",
                                      "dynamic-bucket.max-buckets", "-1", "commit.max-retries", "0",
                                      "snapshot.num-retained.min", "5", "snapshot.num-retained.max", "5", NULL});
    PM_OK_OR_FAIL(pm_options_validate(o));
    pm_options_free(o);
    o = opts_of((const char *const[]){"bucket", "-1", "target-file-row-num", "1", "target-file-size", "1 b", NULL});
    PM_OK_OR_FAIL(pm_options_validate(o));
    pm_options_free(o);
    /* data-file.path-directory stays inside the table */
    expect_invalid_naming("data-file.path-directory", "../elsewhere");
    expect_invalid_naming("data-file.path-directory", "/abs/data");
    expect_invalid_naming("data-file.path-directory", "data/../../x");
    expect_invalid_naming("data-file.path-directory", "data//x");
    o = opts_of((const char *const[]){"data-file.path-directory", "data/files", NULL});
    PM_OK_OR_FAIL(pm_options_validate(o));
    pm_options_free(o);
    /* options paimon-c only carries along are checked for their type alone */
    o = opts_of((const char *const[]){"snapshot.expire.limit", "0", "page-size", "0", NULL});
    PM_OK_OR_FAIL(pm_options_validate(o));
    pm_options_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_order),
        cmocka_unit_test(test_memory_size),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_stats_mode),
        cmocka_unit_test(test_map_and_list),
        cmocka_unit_test(test_defaults_and_accessors),
        cmocka_unit_test(test_fallbacks),
        cmocka_unit_test(test_derived),
        cmocka_unit_test(test_per_level_and_fields),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_validate_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
