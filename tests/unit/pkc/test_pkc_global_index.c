/*
 * tests/unit/pkc/test_pkc_global_index.c — source-backed global indexes of
 * primary-key tables: the source metadata bytes (Java's
 * PrimaryKeyIndexSourceMeta layout) and their refusals; compaction builds
 * one payload per (bucket, positive level, column) over the level's files
 * in name order, none for level 0, in the COMPACT snapshot; a later
 * compaction retains unchanged levels' payloads and replaces changed ones;
 * the reader's positions (pm_pk_gi_select) are exactly the rows of the
 * covered files holding the value; the schema-change guard.
 */
#include <string.h>

#include "../pk/pk_test_util.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"
#include "index/global_index_alter.h"
#include "index/pk_index_source.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/pk_index_select.h"
#include "table/predicate.h"

static void test_source_bytes(void **state)
{
    (void)state;
    pm_data_file_meta f[2];
    memset(f, 0, sizeof f);
    f[0].file_name = "b";
    f[0].level = 2;
    f[0].row_count = 3;
    f[1].file_name = "a";
    f[1].level = 2;
    f[1].row_count = 258;
    const pm_data_file_meta *pf[2] = {&f[0], &f[1]};
    pm_pk_source s;
    PM_OK_OR_FAIL(pm_pk_source_from_files(2, pf, 2, &s));
    assert_string_equal(s.files[0].name, "a"); /* name order */
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_pk_source_encode(&s, &b));
    const uint8_t want[] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 1, 2,
                            0, 1, 'b', 0, 0, 0, 0, 0, 0, 0, 3};
    assert_int_equal(b.len, sizeof want);
    assert_memory_equal(b.data, want, sizeof want);
    pm_pk_source d;
    PM_OK_OR_FAIL(pm_pk_source_decode(b.data, b.len, &d));
    assert_true(pm_pk_source_equal(&s, &d));
    int64_t rows = 0;
    PM_OK_OR_FAIL(pm_pk_source_rows(&d, &rows));
    assert_int_equal(rows, 261);
    d.files[1].row_count = 4;
    assert_false(pm_pk_source_equal(&s, &d));
    pm_pk_source_clear(&d);
    /* refusals */
    pm_test_expect_error(pm_pk_source_decode(b.data, b.len - 1, &d), PM_ECORRUPT, "row count");
    uint8_t bad[sizeof want];
    memcpy(bad, want, sizeof want);
    bad[3] = 2;
    pm_test_expect_error(pm_pk_source_decode(bad, sizeof bad, &d), PM_EUNSUPPORTED, "version 2");
    memcpy(bad, want, sizeof want);
    bad[7] = 0;
    pm_test_expect_error(pm_pk_source_decode(bad, sizeof bad, &d), PM_ECORRUPT, "level 0");
    memcpy(bad, want, sizeof want);
    bad[8] = 0x7f;
    pm_test_expect_error(pm_pk_source_decode(bad, sizeof bad, &d), PM_ECORRUPT, "file count");
    pm_buf_append_byte(&b, 0);
    pm_test_expect_error(pm_pk_source_decode(b.data, b.len, &d), PM_ECORRUPT, "trailing");
    pm_test_expect_error(pm_pk_source_from_files(0, pf, 2, &d), PM_EINVALID, "positive level");
    f[0].level = 1;
    pm_test_expect_error(pm_pk_source_from_files(2, pf, 2, &d), PM_EINVALID, "at level 1");
    pm_buf_free(&b);
    pm_pk_source_clear(&s);
}

static int64_t compact(pm_table *t, bool full)
{
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "gi", NULL, 0, full, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    pm_compact_builder_free(b);
    pm_compact_result **r = calloc(p->ntasks ? p->ntasks : 1, sizeof *r);
    for (size_t i = 0; i < p->ntasks; i++)
        PM_OK_OR_FAIL(pm_compact_execute(&r[i], t, p->tasks[i], NULL));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    if (p->ntasks)
        PM_OK_OR_FAIL(pm_compact_commit(&m, t, NULL, r, p->ntasks));
    for (size_t i = 0; i < p->ntasks; i++)
        pm_compact_result_free(r[i]);
    free(r);
    pm_compact_plan_free(p);
    return m.snapshot_id;
}

/* Per positive level of bucket 0: the payload of field 1 (name copied into
 * names[level]), checked against the level's files. */
static void expect_coverage(pm_table *t, char names[8][128])
{
    for (int i = 0; i < 8; i++)
        names[i][0] = 0;
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    assert_non_null(bf);
    bool level_has[8] = {false};
    for (size_t i = 0; i < bf->nfiles; i++)
        if (bf->files[i].level > 0 && bf->files[i].level < 8)
            level_has[bf->files[i].level] = true;
    size_t payloads = 0;
    for (size_t i = 0; i < bf->nindex_entries; i++) {
        const pm_index_manifest_entry *ie = &bf->index_entries[i];
        bool is_pk = false;
        pm_pk_source src;
        PM_OK_OR_FAIL(pm_pk_source_of_entry(ie, &is_pk, &src));
        if (!is_pk)
            continue;
        payloads++;
        assert_string_equal(ie->index_file.index_type, "btree");
        assert_int_equal(ie->index_file.global_index.index_field_id, 1);
        assert_true(src.level > 0 && src.level < 8 && level_has[src.level]);
        assert_int_equal(names[src.level][0], 0); /* one per level */
        snprintf(names[src.level], 128, "%s", ie->index_file.file_name);
        /* source = the level's live files in name order */
        const pm_data_file_meta *lf[64];
        size_t n = 0;
        for (size_t k = 0; k < bf->nfiles; k++)
            if (bf->files[k].level == src.level)
                lf[n++] = &bf->files[k];
        pm_pk_source want;
        PM_OK_OR_FAIL(pm_pk_source_from_files(src.level, lf, n, &want));
        assert_true(pm_pk_source_equal(&src, &want));
        pm_pk_source_clear(&want);
        pm_pk_source_clear(&src);
    }
    size_t levels = 0;
    for (int i = 1; i < 8; i++)
        levels += level_has[i];
    assert_int_equal(payloads, levels);
    pm_scan_result_free(scan);
}

/* Rows of covered files holding v = x, counted by reading the files; and
 * the positions pm_pk_gi_select gives for `v = x`. */
static void expect_positions(pm_table *t, int32_t x)
{
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    char where[64];
    snprintf(where, sizeof where, "v = %d", (int)x);
    pm_predicate *p = NULL;
    PM_OK_OR_FAIL(pm_predicate_parse(&p, where, pm_table_schema(t)->row_type));
    pm_pk_gi_hits *h = NULL;
    PM_OK_OR_FAIL(pm_pk_gi_select(t, pm_table_schema(t), bf, p, &h));
    assert_non_null(h);
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, 0, &dir));
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<v INT>"));
    rt->fields[0].id = 1;
    for (size_t i = 0; i < bf->nfiles; i++) {
        if (bf->files[i].level == 0) {
            assert_null(h->rows[i]); /* level 0 is never covered */
            continue;
        }
        assert_non_null(h->rows[i]);
        roaring_bitmap_t *want = roaring_bitmap_create();
        pm_file_read_options fo = {rt, 4096, true, NULL};
        pm_file_reader *fr = NULL;
        PM_OK_OR_FAIL(pm_file_reader_open(&fr, t, dir, &bf->files[i], &fo));
        const pm_batch *b = NULL;
        while (!pm_file_reader_next(fr, &b) && b)
            for (int64_t k = 0; k < b->num_rows; k++)
                if (!pm_column_is_null(b->columns[2], k) && pm_column_i32(b->columns[2], k) == x)
                    roaring_bitmap_add(want, (uint32_t)(pm_file_reader_position(fr) + k));
        pm_file_reader_free(fr);
        assert_true(roaring_bitmap_equals(want, h->rows[i]));
        roaring_bitmap_free(want);
    }
    pm_type_free(rt);
    free(dir);
    pm_pk_gi_hits_free(h);
    pm_predicate_free(p);
    pm_scan_result_free(scan);
}

static void commit_gen(pm_table *t, int from, int to, int gen)
{
    size_t cap = (size_t)(to - from) * 48 + 1;
    char *s = calloc(cap, 1), *w = s;
    for (int i = from; i < to; i++)
        w += sprintf(w, "{\"id\":%d,\"v\":%d}\n", i, (i * 7 + gen) % 5);
    pk_commit_rows(t, s);
    free(s);
}

static void test_levels_retained_replaced(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "write-only=true", "global-index.btree.index-columns=v",
                          "num-sorted-run.compaction-trigger=3"};
    pm_table *t = pk_create(dir, "g", "ROW<id INT NOT NULL, v INT>", NULL, "id", opts, 4);
    commit_gen(t, 0, 100, 0);
    commit_gen(t, 50, 150, 1);
    int64_t sid = compact(t, false);
    assert_true(sid > 0);
    char a[8][128], b[8][128];
    expect_coverage(t, a);
    expect_positions(t, 3);
    /* new level-0 files, then a compaction of them into a low level: the
     * levels it does not touch keep their payloads */
    commit_gen(t, 140, 160, 2);
    commit_gen(t, 150, 170, 3);
    commit_gen(t, 160, 180, 4);
    compact(t, false);
    expect_coverage(t, b);
    size_t kept = 0, replaced = 0;
    for (int l = 1; l < 8; l++) {
        if (!a[l][0] || !b[l][0])
            continue;
        if (!strcmp(a[l], b[l]))
            kept++;
        else
            replaced++;
    }
    assert_true(kept + replaced > 0);
    expect_positions(t, 1);
    /* full compaction: one level, one payload */
    compact(t, true);
    expect_coverage(t, b);
    size_t nl = 0;
    for (int l = 1; l < 8; l++)
        nl += b[l][0] != 0;
    assert_int_equal(nl, 1);
    expect_positions(t, 4);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_alter_guard(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "global-index.bitmap.index-columns=v"};
    pm_table *t = pk_create(dir, "a", "ROW<id INT NOT NULL, v INT, w STRING>", NULL, "id", opts, 2);
    const pm_schema *cur = pm_table_schema(t);
    pm_schema *next = NULL;
    /* unchanged and unrelated changes pass */
    PM_OK_OR_FAIL(pm_schema_clone(cur, &next));
    PM_OK_OR_FAIL(pm_gi_check_alter(cur, next));
    free(next->row_type->fields[2].name);
    next->row_type->fields[2].name = strdup("w2");
    PM_OK_OR_FAIL(pm_gi_check_alter(cur, next));
    pm_schema_free(next);
    /* rename */
    PM_OK_OR_FAIL(pm_schema_clone(cur, &next));
    free(next->row_type->fields[1].name);
    next->row_type->fields[1].name = strdup("v2");
    pm_test_expect_error(pm_gi_check_alter(cur, next), PM_EINVALID, "column v cannot be renamed");
    /* ... also when the declaration follows the new name */
    PM_OK_OR_FAIL(pm_options_set(next->options, "global-index.bitmap.index-columns", "v2"));
    pm_test_expect_error(pm_gi_check_alter(cur, next), PM_EINVALID, "'global-index.bitmap.index-columns'");
    /* ... allowed once the declaration is removed */
    pm_options_remove(next->options, "global-index.bitmap.index-columns");
    PM_OK_OR_FAIL(pm_gi_check_alter(cur, next));
    pm_schema_free(next);
    /* retype */
    PM_OK_OR_FAIL(pm_schema_clone(cur, &next));
    pm_type_free(next->row_type->fields[1].type);
    next->row_type->fields[1].type = pm_type_new(PM_TYPE_BIGINT, true);
    pm_test_expect_error(pm_gi_check_alter(cur, next), PM_EINVALID, "column v cannot be retyped");
    pm_schema_free(next);
    /* drop (the last field moves into its place with its own id) */
    PM_OK_OR_FAIL(pm_schema_clone(cur, &next));
    next->row_type->fields[1].id = next->row_type->fields[2].id;
    free(next->row_type->fields[1].name);
    next->row_type->fields[1].name = strdup("w");
    next->row_type->nfields = 2;
    pm_test_expect_error(pm_gi_check_alter(cur, next), PM_EINVALID, "column v cannot be dropped");
    next->row_type->nfields = 3;
    pm_schema_free(next);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_bytes),
        cmocka_unit_test(test_levels_retained_replaced),
        cmocka_unit_test(test_alter_guard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
