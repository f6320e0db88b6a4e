/*
 * tests/unit/index/test_file_index.c — the file-index formats against the
 * bytes Apache Paimon Java wrote: for every data file of the fixture
 * tables with file indexes (bitmap v1/v2, embedded and sidecar, bloom
 * filter, bsi, all three together, a primary-key table, an altered
 * table), the file's rows are read back and indexed with the options of
 * the file's schema; the container must equal Java's byte for byte.  Then
 * Java's indexes answer `=` / IN atoms exactly as the rows do (a value
 * present never excludes the file; bitmap, bsi and range-bitmap rows are
 * the exact row positions), the container parser refuses damaged bytes,
 * and the Java facts (XXH64, String.hashCode, HashMap order, modified
 * UTF-8) hold on known values.
 */
#include <roaring/roaring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "index/fi_internal.h"
#include "index/fi_java.h"
#include "index/file_index.h"
#include "meta/paths.h"
#include "paimon/format.h"
#include "paimon/table.h"
#include "pm_test.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/table_internal.h"
#include "types/column.h"
#include "types/value.h"

#define PQ PM_FIXTURES_DIR "/java-written/parquet/"

/* The value fields of a file's schema: the row type minus system fields. */
static const pm_type *value_type(const pm_schema *s) { return s->row_type; }

/* Bytes of file f's index (embedded or its .index sidecar). */
static uint8_t *index_bytes(pm_table *t, const char *bucket_dir, const pm_data_file_meta *f, size_t *n)
{
    if (f->embedded_index.has) {
        *n = f->embedded_index.len;
        uint8_t *p = malloc(*n);
        memcpy(p, f->embedded_index.data, *n);
        return p;
    }
    for (size_t i = 0; i < f->extra_files.count; i++) {
        const char *x = f->extra_files.items[i];
        size_t l = strlen(x);
        if (l > 6 && !strcmp(x + l - 6, ".index")) {
            char path[2048];
            if (f->external_path) {
                /* next to the external data file (the fixture keeps it beside the table) */
                snprintf(path, sizeof path, "%s/../external-path/bucket-0/%s", pm_table_path(t), x);
            } else {
                snprintf(path, sizeof path, "%s/%s", bucket_dir, x);
            }
            return pm_test_read_file(path, n);
        }
    }
    return NULL;
}

/* Index the rows of data file `path` with the options of schema s. */
static void our_index(const char *path, const pm_schema *s, pm_buf *out)
{
    pm_fi_options fo;
    PM_OK_OR_FAIL(pm_fi_options_parse(s->options, &fo));
    const pm_type *vt = value_type(s);
    const char **names = calloc(vt->nfields, sizeof *names);
    for (size_t i = 0; i < vt->nfields; i++)
        names[i] = vt->fields[i].name;
    pm_format_options o = PM_FORMAT_OPTIONS_INIT;
    o.columns = names;
    o.ncolumns = vt->nfields;
    pm_format_reader *r;
    PM_OK_OR_FAIL(pm_format_reader_open(&r, path, &o));
    pm_fi_writer *w;
    PM_OK_OR_FAIL(pm_fi_writer_new(&w, &fo, pm_format_reader_type(r)));
    for (;;) {
        const pm_batch *b;
        PM_OK_OR_FAIL(pm_format_reader_next(&b, r));
        if (!b)
            break;
        PM_OK_OR_FAIL(pm_fi_writer_add(w, b->columns, 0, b->num_rows));
    }
    PM_OK_OR_FAIL(pm_fi_writer_finish(w, out));
    pm_fi_writer_free(w);
    pm_format_reader_free(r);
    pm_fi_options_clear(&fo);
    free(names);
}

static void hexdiff(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    size_t i = 0;
    while (i < na && i < nb && a[i] == b[i])
        i++;
    print_error("sizes %zu (ours) vs %zu (Java), first difference at %zu\n", na, nb, i);
}

/* Every live file of the table at every snapshot. */
static size_t check_table(const char *name)
{
    char root[1024];
    snprintf(root, sizeof root, PQ "%s.db/%s", name, name);
    pm_table *t;
    PM_OK_OR_FAIL(pm_table_open(&t, root, NULL));
    size_t checked = 0;
    for (int64_t sid = 1; sid < 100; sid++) {
        char sp[1200];
        snprintf(sp, sizeof sp, "%s/snapshot/snapshot-%lld", root, (long long)sid);
        FILE *fp = fopen(sp, "r");
        if (!fp)
            break;
        fclose(fp);
        pm_scan_options so = pm_scan_options_default();
        so.snapshot_id = sid;
        pm_scan_result *res;
        PM_OK_OR_FAIL(pm_table_scan(t, &so, &res));
        for (size_t b = 0; b < res->nbuckets; b++) {
            pm_bucket_files *bf = &res->buckets[b];
            char *dir;
            PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, bf->bucket, &dir));
            for (size_t i = 0; i < bf->nfiles; i++) {
                const pm_data_file_meta *f = &bf->files[i];
                size_t jn = 0;
                uint8_t *java = index_bytes(t, dir, f, &jn);
                assert_non_null(java);
                const pm_schema *fs;
                PM_OK_OR_FAIL(pm_table_schema_by_id(t, f->schema_id, &fs));
                char path[2048];
                if (f->external_path)
                    snprintf(path, sizeof path, "%s/../external-path/bucket-0/%s", root, f->file_name);
                else
                    snprintf(path, sizeof path, "%s/%s", dir, f->file_name);
                pm_buf ours = PM_BUF_INIT;
                our_index(path, fs, &ours);
                if (ours.len != jn || memcmp(ours.data, java, jn)) {
                    print_error("%s: %s: our index differs from Java's\n", name, f->file_name);
                    hexdiff(ours.data, ours.len, java, jn);
                    FILE *dump = getenv("PM_FI_DUMP") ? fopen(getenv("PM_FI_DUMP"), "wb") : NULL;
                    if (dump) {
                        fwrite(ours.data, 1, ours.len, dump);
                        fwrite(java, 1, jn, dump);
                        fclose(dump);
                    }
                    fail();
                }
                /* where Java put it: embedded up to the threshold, else a sidecar */
                pm_fi_options fo;
                PM_OK_OR_FAIL(pm_fi_options_parse(fs->options, &fo));
                assert_int_equal(f->embedded_index.has, (int64_t)jn <= fo.in_manifest_threshold);
                pm_fi_options_clear(&fo);
                pm_buf_free(&ours);
                free(java);
                checked++;
            }
            free(dir);
        }
        pm_scan_result_free(res);
    }
    pm_table_free(t);
    return checked;
}

static void test_java_golden_bytes(void **state)
{
    (void)state;
    const char *tables[] = {"append_with_bitmap", "append_with_bitmap_v1", "append_with_bitmap_no_embedding",
                            "append_with_bitmap_alter_table", "append_with_bloomfilter", "append_with_bsi",
                            "append_with_bsi_bitmap_bloomfilter", "pk_with_bitmap_dv"};
    size_t total = 0;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        size_t n = check_table(tables[i]);
        assert_true(n > 0);
        total += n;
    }
    assert_true(total >= 10);
}

/* ---- atoms against Java's indexes ---- */

static pm_column *lit_col(const pm_type *t, const char *const *texts, size_t n)
{
    pm_column *c;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    for (size_t i = 0; i < n; i++)
        PM_OK_OR_FAIL(pm_column_append_text(c, texts[i], strlen(texts[i])));
    return c;
}

static bool may(const pm_fi_file *f, const char *col, const pm_type *t, const char *const *texts, size_t n)
{
    pm_column *c = lit_col(t, texts, n);
    pm_fi_atom a = {col, t, c};
    bool m;
    PM_OK_OR_FAIL(pm_fi_file_may_match(f, &a, 1, &m));
    pm_column_release(c);
    return m;
}

static void test_java_indexes_answer(void **state)
{
    (void)state;
    size_t n;
    uint8_t *p = pm_test_read_file(PQ "append_with_bsi_bitmap_bloomfilter.db/append_with_bsi_bitmap_bloomfilter/"
                                      "bucket-0/data-15f89029-c10f-437f-b819-338c3e8ab2ee-0.parquet.index", &n);
    assert_non_null(p);
    pm_fi_file f;
    PM_OK_OR_FAIL(pm_fi_file_parse(p, n, &f));
    assert_int_equal(f.nentries, 12);
    pm_type *str = pm_type_new(PM_TYPE_VARCHAR, true), *i32 = pm_type_new(PM_TYPE_INT, true);
    pm_type *f64 = pm_type_new(PM_TYPE_DOUBLE, true), *ts = pm_type_new_temporal(PM_TYPE_TIMESTAMP, 9, true);
    /* rows: Alice,100,-2 | Bob,200,-3 | Emily,300,1 | Tony,50,1 | Lucy,500,-1 | Bob,100,2 | Tony,null,-2 | Alice,20,null */
    const char *present[] = {"Alice", "Bob", "Emily", "Tony", "Lucy"};
    for (size_t i = 0; i < 5; i++)
        assert_true(may(&f, "f0", str, &present[i], 1));
    const char *absent[] = {"Zed", "alice", ""};
    /* bitmap + bloom on f0: a missing value excludes (bitmap exact) */
    for (size_t i = 0; i < 3; i++)
        assert_false(may(&f, "f0", str, &absent[i], 1));
    const char *in1[] = {"Zed", "Lucy"};
    assert_true(may(&f, "f0", str, in1, 2));
    const char *ints[] = {"100", "200", "300", "50", "500", "20"};
    for (size_t i = 0; i < 6; i++)
        assert_true(may(&f, "f1", i32, &ints[i], 1));
    const char *noints[] = {"0", "101", "-100", "2147483647"};
    for (size_t i = 0; i < 4; i++)
        assert_false(may(&f, "f1", i32, &noints[i], 1));
    const char *negs[] = {"-2", "-3", "1", "-1", "2"};
    for (size_t i = 0; i < 5; i++)
        assert_true(may(&f, "f2", i32, &negs[i], 1));
    const char *nonegs[] = {"-4", "0", "3"};
    for (size_t i = 0; i < 3; i++)
        assert_false(may(&f, "f2", i32, &nonegs[i], 1));
    /* f3 has only a bloom filter */
    const char *dbl[] = {"13.1"};
    assert_true(may(&f, "f3", f64, dbl, 1));
    const char *tsv[] = {"2025-04-25T01:00:02.000123000"};
    (void)tsv;
    /* AND across columns: Bob has f1 in {200, 100}; Bob AND f1=300 is no row (bitmaps intersect empty) */
    pm_column *a0 = lit_col(str, (const char *[]){"Bob"}, 1), *a1 = lit_col(i32, (const char *[]){"300"}, 1);
    pm_fi_atom atoms[2] = {{"f0", str, a0}, {"f1", i32, a1}};
    bool m;
    PM_OK_OR_FAIL(pm_fi_file_may_match(&f, atoms, 2, &m));
    assert_false(m);
    pm_column_release(a1);
    a1 = lit_col(i32, (const char *[]){"200"}, 1);
    atoms[1].values = a1;
    PM_OK_OR_FAIL(pm_fi_file_may_match(&f, atoms, 2, &m));
    assert_true(m);
    /* a column without an index excludes nothing */
    atoms[0].column = "nope";
    pm_column_release(a1);
    a1 = lit_col(i32, (const char *[]){"1"}, 1);
    atoms[1].column = "nope";
    atoms[1].values = a1;
    PM_OK_OR_FAIL(pm_fi_file_may_match(&f, atoms, 2, &m));
    assert_true(m);
    pm_column_release(a0);
    pm_column_release(a1);
    pm_fi_file_clear(&f);
    /* damaged containers */
    for (size_t cut = 0; cut < 277; cut += 7)
        PM_EXPECT_ERR(pm_fi_file_parse(p, cut, &f), PM_ECORRUPT);
    uint8_t *bad = malloc(n);
    memcpy(bad, p, n);
    bad[0] ^= 1;
    PM_EXPECT_ERR(pm_fi_file_parse(bad, n, &f), PM_ECORRUPT);
    memcpy(bad, p, n);
    bad[15] = 1; /* head length 1 */
    PM_EXPECT_ERR(pm_fi_file_parse(bad, n, &f), PM_ECORRUPT);
    free(bad);
    pm_type_free(str);
    pm_type_free(i32);
    pm_type_free(f64);
    pm_type_free(ts);
    free(p);
}

/* ---- Java facts ---- */

static void test_java_facts(void **state)
{
    (void)state;
    /* XXH64 reference values (seed 0) */
    assert_true(pm_xxh64("", 0, 0) == 0xEF46DB3751D8E999ULL);
    assert_true(pm_xxh64("a", 1, 0) == 0xD24EC4F1A98C6E5BULL);
    assert_true(pm_xxh64("abc", 3, 0) == 0x44BC2CF5AD770999ULL);
    const char *s32 = "Nobody inspects the spammish repetition";
    assert_true(pm_xxh64(s32, strlen(s32), 0) == 0xFBCEA83C8A378BF1ULL);
    /* String.hashCode */
    assert_int_equal(pm_java_string_hash((const uint8_t *)"", 0), 0);
    assert_int_equal(pm_java_string_hash((const uint8_t *)"f0", 2), 3210);
    assert_int_equal(pm_java_string_hash((const uint8_t *)"bloom-filter", 12), 862074498);
    assert_int_equal(pm_java_string_hash((const uint8_t *)"\xF0\x9F\x98\x80", 4), 1772899); /* U+1F600: D83D DE00 */
    /* HashMap order: buckets of 16, then resized */
    int32_t h[3] = {17, 1, 16};
    size_t o[3];
    PM_OK_OR_FAIL(pm_java_hashmap_order(h, 3, false, o));
    assert_int_equal(o[0], 2); /* bucket 0 */
    assert_int_equal(o[1], 0); /* bucket 1, inserted first */
    assert_int_equal(o[2], 1);
    PM_OK_OR_FAIL(pm_java_hashmap_order(h, 3, true, o)); /* computeIfAbsent: newest first in a bucket */
    assert_int_equal(o[0], 2);
    assert_int_equal(o[1], 1);
    assert_int_equal(o[2], 0);
    int32_t h13[13];
    for (int i = 0; i < 13; i++)
        h13[i] = i * 16 + (i == 12 ? 16 : 0); /* 13 keys: the table has 32 buckets */
    size_t o13[13];
    PM_OK_OR_FAIL(pm_java_hashmap_order(h13, 13, false, o13));
    /* with 32 buckets: even multiples of 16 in bucket 0, odd in bucket 16 */
    assert_int_equal(o13[0], 0);
    assert_int_equal(o13[1], 2);
    /* writeUTF */
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_java_write_utf(&b, "f\xC3\xA9"));
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, "\x00\x03" "f\xC3\xA9", 5);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_java_write_utf(&b, "\xF0\x9F\x98\x80"));
    assert_int_equal(b.len, 8); /* two 3-byte surrogates */
    char *back;
    size_t used;
    PM_OK_OR_FAIL(pm_java_read_utf(b.data, b.len, &back, &used));
    assert_string_equal(back, "\xF0\x9F\x98\x80");
    assert_int_equal(used, 8);
    free(back);
    PM_EXPECT_ERR(pm_java_read_utf(b.data, b.len - 1, &back, &used), PM_ECORRUPT);
    pm_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_java_facts),
        cmocka_unit_test(test_java_golden_bytes),
        cmocka_unit_test(test_java_indexes_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
