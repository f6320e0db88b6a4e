/*
 * tests/unit/index/test_global_index_decl.c — the global-index
 * declaration resolver (index/global_index_decl.h): declaration keys and
 * their precedence (plural, DLF singular, legacy pk-), explicit empty
 * declarations, trimming, empty names, duplicates, unknown fields, one
 * column in two families, unsupported families and types, field JSON
 * precedence (shared replaces legacy, legacy merge and conflicts), key
 * qualification, value kinds, policy defaults and overrides, shard size
 * precedence, table requirements.
 */
#include <stdlib.h>
#include <string.h>

#include "index/global_index_decl.h"
#include "pm_test.h"

static pm_type *row_type(void)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "ROW<id INT, name STRING, age BIGINT, score DOUBLE, tags ARRAY<STRING>, "
                                    "ts TIMESTAMP(6), d DECIMAL(10, 2)>"));
    return t;
}

/* Options from NULL-terminated key, value pairs. */
static pm_options *opts(const char *const *kv)
{
    pm_options *o = NULL;
    PM_OK_OR_FAIL(pm_options_new(&o));
    for (; kv[0]; kv += 2)
        PM_OK_OR_FAIL(pm_options_set(o, kv[0], kv[1]));
    return o;
}

static pm_error *resolve(const char *const *kv, pm_gi_decls *d)
{
    pm_type *t = row_type();
    pm_options *o = opts(kv);
    pm_error *e = pm_gi_decls_resolve(o, t, d);
    /* columns borrow types: keep t alive only for the checks below */
    if (!e) {
        for (size_t i = 0; i < d->n; i++)
            d->cols[i].type = NULL;
    }
    pm_options_free(o);
    pm_type_free(t);
    return e;
}

static void expect(const char *const *kv, pm_code code, const char *needle)
{
    pm_gi_decls d;
    pm_test_expect_error(resolve(kv, &d), code, needle);
}

static void test_no_declarations(void **state)
{
    (void)state;
    pm_gi_decls d;
    const char *kv[] = {"bucket", "-1", NULL};
    PM_OK_OR_FAIL(resolve(kv, &d));
    assert_int_equal(d.n, 0);
    pm_gi_decls_clear(&d);
}

static void test_columns_trimmed_in_order(void **state)
{
    (void)state;
    pm_gi_decls d;
    const char *kv[] = {"global-index.bitmap.index-columns", " name ", "global-index.btree.index-columns",
                        " id ,age", NULL};
    PM_OK_OR_FAIL(resolve(kv, &d));
    assert_int_equal(d.n, 3);
    assert_string_equal(d.cols[0].column, "id");
    assert_int_equal(d.cols[0].family, PM_GI_BTREE);
    assert_int_equal(d.cols[0].field_id, 0);
    assert_string_equal(d.cols[1].column, "age");
    assert_int_equal(d.cols[1].field_id, 2);
    assert_string_equal(d.cols[2].column, "name");
    assert_int_equal(d.cols[2].family, PM_GI_BITMAP);
    assert_string_equal(d.cols[2].declared_by, "global-index.bitmap.index-columns");
    /* defaults */
    assert_int_equal(d.cols[0].policy.trigger, 5);
    assert_int_equal(d.cols[0].policy.size_ratio, 1);
    assert_int_equal(d.cols[0].policy.max_amplification, 200);
    assert_int_equal(d.cols[0].rows_per_shard, 100000);
    assert_int_equal(d.cols[0].btree_block_size, 64 * 1024);
    assert_int_equal(d.cols[0].btree_records_per_range, 1000000);
    assert_non_null(pm_gi_decls_find(&d, 2));
    assert_null(pm_gi_decls_find(&d, 3));
    pm_gi_decls_clear(&d);
}

static void test_declaration_precedence(void **state)
{
    (void)state;
    pm_gi_decls d;
    /* plural wins over singular and legacy */
    const char *a[] = {"global-index.btree.index-columns", "id", "global-index.btree.index-column", "age",
                       "pk-btree.index.columns", "name", NULL};
    PM_OK_OR_FAIL(resolve(a, &d));
    assert_int_equal(d.n, 1);
    assert_string_equal(d.cols[0].column, "id");
    pm_gi_decls_clear(&d);
    /* singular wins over legacy */
    const char *b[] = {"global-index.btree.index-column", "age", "pk-btree.index.columns", "name", NULL};
    PM_OK_OR_FAIL(resolve(b, &d));
    assert_int_equal(d.n, 1);
    assert_string_equal(d.cols[0].column, "age");
    assert_string_equal(d.cols[0].declared_by, "global-index.btree.index-column");
    pm_gi_decls_clear(&d);
    /* legacy alone */
    const char *c[] = {"pk-bitmap.index.columns", "name", NULL};
    PM_OK_OR_FAIL(resolve(c, &d));
    assert_int_equal(d.n, 1);
    assert_int_equal(d.cols[0].family, PM_GI_BITMAP);
    pm_gi_decls_clear(&d);
}

static void test_refusals(void **state)
{
    (void)state;
    /* explicitly empty preferred declaration: no fall-back */
    const char *a[] = {"global-index.btree.index-columns", "  ", "pk-btree.index.columns", "id", NULL};
    expect(a, PM_EINVALID, "is empty");
    const char *b[] = {"global-index.btree.index-columns", "id,,age", NULL};
    expect(b, PM_EINVALID, "empty column name");
    const char *b2[] = {"global-index.btree.index-columns", "id, ", NULL};
    expect(b2, PM_EINVALID, "empty column name");
    const char *c[] = {"global-index.btree.index-columns", "id, id", NULL};
    expect(c, PM_EINVALID, "listed twice");
    const char *d[] = {"global-index.bitmap.index-columns", "nope", NULL};
    expect(d, PM_EINVALID, "unknown field 'nope'");
    const char *e[] = {"global-index.btree.index-columns", "id", "global-index.bitmap.index-columns", "id", NULL};
    expect(e, PM_EINVALID, "two global index types");
    const char *e2[] = {"global-index.btree.index-columns", "id", "pk-bitmap.index.columns", "name,id", NULL};
    expect(e2, PM_EINVALID, "two global index types");
    const char *f[] = {"global-index.foo.index-columns", "id", NULL};
    expect(f, PM_EINVALID, "unknown global index type 'foo'");
    /* unsupported types of supported families */
    const char *g[] = {"global-index.btree.index-columns", "tags", NULL};
    expect(g, PM_EUNSUPPORTED, "type ARRAY<STRING> is not supported");
    const char *h[] = {"global-index.btree.index-columns", "ts", NULL};
    expect(h, PM_EUNSUPPORTED, "TIMESTAMP(6)");
    const char *i[] = {"global-index.bitmap.index-columns", "d", NULL};
    expect(i, PM_EUNSUPPORTED, "DECIMAL(10, 2)");
}

static void test_unsupported_families(void **state)
{
    (void)state;
    static const char *const fam[] = {"multivalue", "fm", "full-text", "ivf-flat", "ivf-sq",
                                      "ivf-pq",     "ivf-rq", "diskann", "vector"};
    for (size_t k = 0; k < sizeof fam / sizeof fam[0]; k++) {
        char key[128], needle[128];
        snprintf(key, sizeof key, "global-index.%s.index-columns", fam[k]);
        snprintf(needle, sizeof needle, "global index type '%s' (column name) is not supported", fam[k]);
        const char *kv[] = {key, "name", NULL};
        expect(kv, PM_EUNSUPPORTED, needle);
        snprintf(key, sizeof key, "pk-%s.index.columns", fam[k]);
        const char *kv2[] = {key, "name", NULL};
        expect(kv2, PM_EUNSUPPORTED, needle);
    }
}

/* btree-index.compression and bitmap-index.format with its dictionary
 * options: JSON first, then the table option; refusals named. */
static void test_compression_and_bitmap_format(void **state)
{
    (void)state;
    pm_gi_decls d;
    const char *a[] = {"global-index.btree.index-columns", "id", "global-index.bitmap.index-columns", "name",
                       "fields.id.index-options", "{\"compression\": \"zstd\", \"compression-level\": 3}",
                       "bitmap-index.format", "dictionary", "bitmap-index.compression", "LZ4",
                       "fields.name.index-options", "{\"dictionary-block-size\": \"1 kb\"}", NULL};
    PM_OK_OR_FAIL(resolve(a, &d));
    assert_int_equal(d.cols[0].compression, PM_GI_COMPRESS_ZSTD);
    assert_int_equal(d.cols[0].compression_level, 3);
    assert_true(d.cols[1].bitmap_dictionary);
    assert_int_equal(d.cols[1].compression, PM_GI_COMPRESS_LZ4);
    assert_int_equal(d.cols[1].bitmap_dict_block_size, 1024);
    pm_gi_decls_clear(&d);
    /* defaults: Java 1.4.2's bitmap payload, no compression */
    const char *b[] = {"global-index.btree.index-columns", "id", "global-index.bitmap.index-columns", "name", NULL};
    PM_OK_OR_FAIL(resolve(b, &d));
    assert_int_equal(d.cols[0].compression, PM_GI_COMPRESS_NONE);
    assert_int_equal(d.cols[0].compression_level, 1);
    assert_false(d.cols[1].bitmap_dictionary);
    assert_int_equal(d.cols[1].bitmap_dict_block_size, 16 * 1024);
    pm_gi_decls_clear(&d);
    /* the JSON's format overrides the table's */
    const char *c[] = {"global-index.bitmap.index-columns", "name", "bitmap-index.format", "dictionary",
                       "fields.name.index-options", "{\"format\": \"file-index\"}", NULL};
    PM_OK_OR_FAIL(resolve(c, &d));
    assert_false(d.cols[0].bitmap_dictionary);
    pm_gi_decls_clear(&d);
    const char *e1[] = {"global-index.bitmap.index-columns", "name", "bitmap-index.format", "v3", NULL};
    expect(e1, PM_EINVALID, "'bitmap-index.format' = 'v3' (file-index or dictionary)");
    const char *e2[] = {"global-index.bitmap.index-columns", "name", "bitmap-index.compression", "zstd", NULL};
    expect(e2, PM_EINVALID, "'bitmap-index.compression' applies to bitmap-index.format=dictionary only");
    const char *e3[] = {"global-index.bitmap.index-columns", "name", "fields.name.index-options",
                        "{\"dictionary-block-size\": \"1 kb\"}", NULL};
    expect(e3, PM_EINVALID, "'bitmap-index.dictionary-block-size' applies to bitmap-index.format=dictionary only");
    const char *e4[] = {"global-index.bitmap.index-columns", "name", "bitmap-index.format", "dictionary",
                        "bitmap-index.dictionary-block-size", "0 b", NULL};
    expect(e4, PM_EINVALID, "must be between 1 byte and 2 GiB");
    const char *e5[] = {"global-index.btree.index-columns", "id", "btree-index.compression", "snappy", NULL};
    expect(e5, PM_EUNSUPPORTED, "'btree-index.compression' = 'snappy' is not supported");
    const char *e6[] = {"global-index.bitmap.index-columns", "ts", "bitmap-index.format", "dictionary", NULL};
    expect(e6, PM_EUNSUPPORTED, "type TIMESTAMP(6) is not supported by bitmap-index.format=dictionary");
}

static void test_field_json(void **state)
{
    (void)state;
    pm_gi_decls d;
    /* short keys qualified; numbers, strings and booleans accepted; policy overrides */
    const char *a[] = {"global-index.btree.index-columns",
                       "id",
                       "fields.id.index-options",
                       "{\"block-size\": \"4 kb\", \"records-per-range\": 10, \"compression\": \"none\", "
                       "\"global-index.num-sorted-run.compaction-trigger\": 3, "
                       "\"btree-index.compression-level\": 2, \"cache-size\": \"1 mb\"}",
                       "global-index.compaction.size-ratio",
                       "7",
                       NULL};
    PM_OK_OR_FAIL(resolve(a, &d));
    assert_int_equal(d.cols[0].btree_block_size, 4096);
    assert_int_equal(d.cols[0].btree_records_per_range, 10);
    assert_int_equal(d.cols[0].policy.trigger, 3);
    assert_int_equal(d.cols[0].policy.size_ratio, 7); /* table level */
    assert_string_equal(pm_options_get(d.cols[0].params, "btree-index.block-size"), "4 kb");
    assert_string_equal(pm_options_get(d.cols[0].params, "btree-index.records-per-range"), "10");
    pm_gi_decls_clear(&d);

    /* shared JSON replaces legacy JSON entirely (its bad key is never seen) */
    const char *b[] = {"global-index.btree.index-columns", "id", "fields.id.index-options", "{\"block-size\": 1024}",
                       "fields.id.global-index.btree.index-options", "{\"bogus\": 1}", NULL};
    PM_OK_OR_FAIL(resolve(b, &d));
    assert_int_equal(d.cols[0].btree_block_size, 1024);
    pm_gi_decls_clear(&d);

    /* legacy objects merge; equal values are fine, different ones conflict */
    const char *c[] = {"global-index.btree.index-columns", "id", "fields.id.global-index.btree.index-options",
                       "{\"block-size\": 2048}", "fields.id.pk-btree.index.options",
                       "{\"block-size\": 2048, \"records-per-range\": 5}", NULL};
    PM_OK_OR_FAIL(resolve(c, &d));
    assert_int_equal(d.cols[0].btree_block_size, 2048);
    assert_int_equal(d.cols[0].btree_records_per_range, 5);
    pm_gi_decls_clear(&d);
    const char *c2[] = {"global-index.btree.index-columns", "id", "fields.id.global-index.btree.index-options",
                        "{\"block-size\": 2048}", "fields.id.pk-btree.index.options", "{\"block-size\": 4096}", NULL};
    expect(c2, PM_EINVALID, "conflicts");
    /* legacy pk- JSON alone */
    const char *c3[] = {"pk-btree.index.columns", "id", "fields.id.pk-btree.index.options", "{\"block-size\": 512}",
                        NULL};
    PM_OK_OR_FAIL(resolve(c3, &d));
    assert_int_equal(d.cols[0].btree_block_size, 512);
    pm_gi_decls_clear(&d);

    const char *e1[] = {"global-index.btree.index-columns", "id", "fields.id.index-options", "[1]", NULL};
    expect(e1, PM_EINVALID, "not a JSON object");
    const char *e2[] = {"global-index.btree.index-columns", "id", "fields.id.index-options", "{\"x\": [1]}", NULL};
    expect(e2, PM_EINVALID, "must be a string, boolean or number");
    const char *e3[] = {"global-index.btree.index-columns", "id", "fields.id.index-options", "{\"bogus\": 1}", NULL};
    expect(e3, PM_EINVALID, "unknown btree index parameter 'btree-index.bogus'");
    const char *e4[] = {"global-index.btree.index-columns", "id", "fields.id.index-options",
                        "{\"compression\": \"lzo\"}", NULL};
    expect(e4, PM_EUNSUPPORTED, "'btree-index.compression' = 'lzo' is not supported");
    const char *e5[] = {"global-index.bitmap.index-columns", "name", "fields.name.index-options",
                        "{\"block-size\": 1}", NULL};
    expect(e5, PM_EINVALID, "unknown bitmap index parameter 'bitmap-index.block-size'");
    const char *e6[] = {"global-index.btree.index-columns", "id", "fields.id.index-options",
                        "{\"global-index.num-sorted-run.compaction-trigger\": 0}", NULL};
    expect(e6, PM_EINVALID, "must be positive");
    const char *e7[] = {"global-index.btree.index-columns", "id", "global-index.compaction.size-ratio", "-1", NULL};
    expect(e7, PM_EINVALID, "must be nonnegative");
    const char *e8[] = {"global-index.btree.index-columns", "id", "fields.id.index-options", "{\"a\": 1, \"a\": 2}",
                        NULL};
    expect(e8, PM_EINVALID, "fields.id.index-options");
}

static void test_shard_size_precedence(void **state)
{
    (void)state;
    pm_gi_decls d;
    const char *a[] = {"global-index.bitmap.index-columns", "name,id", "global-index.row-count-per-shard", "1000",
                       "fields.name.global-index.row-count-per-shard", "10", NULL};
    PM_OK_OR_FAIL(resolve(a, &d));
    assert_int_equal(d.cols[0].rows_per_shard, 10);
    assert_int_equal(d.cols[1].rows_per_shard, 1000);
    pm_gi_decls_clear(&d);
    const char *b[] = {"global-index.bitmap.index-columns", "name", "fields.name.global-index.row-count-per-shard",
                       "10", "fields.name.index-options", "{\"global-index.row-count-per-shard\": 3}", NULL};
    PM_OK_OR_FAIL(resolve(b, &d));
    assert_int_equal(d.cols[0].rows_per_shard, 3);
    pm_gi_decls_clear(&d);
    const char *c[] = {"global-index.bitmap.index-columns", "name", "global-index.row-count-per-shard", "0", NULL};
    expect(c, PM_EINVALID, "must be positive");
}

static void test_table_requirements(void **state)
{
    (void)state;
    pm_type *t = row_type();
    const char *ok[] = {"global-index.btree.index-columns", "id", "row-tracking.enabled", "true", "bucket", "-1", NULL};
    pm_options *o = opts(ok);
    PM_OK_OR_FAIL(pm_gi_decls_validate(o, t, 0));
    /* primary-key tables: source-backed indexes need fixed buckets (dynamic bucket -1 here) */
    pm_test_expect_error(pm_gi_decls_validate(o, t, 1), PM_EUNSUPPORTED, "need a fixed bucket count");
    pm_options_free(o);
    const char *pk_fixed[] = {"global-index.btree.index-columns", "id", "bucket", "4", NULL};
    o = opts(pk_fixed);
    PM_OK_OR_FAIL(pm_gi_decls_validate(o, t, 1));
    pm_options_free(o);
    const char *pk_postpone[] = {"global-index.bitmap.index-columns", "id", "bucket", "-2", NULL};
    o = opts(pk_postpone);
    pm_test_expect_error(pm_gi_decls_validate(o, t, 1), PM_EUNSUPPORTED, "bucket -2 is not supported");
    pm_options_free(o);
    const char *nort[] = {"global-index.btree.index-columns", "id", "bucket", "-1", NULL};
    o = opts(nort);
    pm_test_expect_error(pm_gi_decls_validate(o, t, 0), PM_EINVALID, "row-tracking.enabled");
    pm_options_free(o);
    const char *bucket[] = {"global-index.btree.index-columns", "id", "row-tracking.enabled", "true", "bucket", "4",
                            NULL};
    o = opts(bucket);
    pm_test_expect_error(pm_gi_decls_validate(o, t, 0), PM_EINVALID, "'bucket' = -1");
    pm_options_free(o);
    const char *none[] = {"bucket", "4", NULL};
    o = opts(none);
    PM_OK_OR_FAIL(pm_gi_decls_validate(o, t, 1));
    pm_options_free(o);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_declarations),     cmocka_unit_test(test_columns_trimmed_in_order),
        cmocka_unit_test(test_declaration_precedence), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_unsupported_families), cmocka_unit_test(test_field_json),
        cmocka_unit_test(test_compression_and_bitmap_format),
        cmocka_unit_test(test_shard_size_precedence), cmocka_unit_test(test_table_requirements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
