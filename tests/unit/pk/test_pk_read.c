/*
 * tests/unit/pk/test_pk_read.c — merge-on-read planning and reading:
 *  - a positive level holding one sorted run of several files, overlapped
 *    by level-0 files: the run's files are concatenated in key order and
 *    merged with the level-0 runs; non-overlapping files read raw
 *    (pm_pk_reader stats);
 *  - projections that leave out the key and the sequence field still merge
 *    by key and sequence.field;
 *  - deletion-vector tables skip level 0 and read level > 0 files raw;
 *  - more than 256 overlapping runs merge in several passes;
 *  - retract results are dropped, winning retracts hide older values.
 */
#include <string.h>

#include "pk_test_util.h"
#include "table/pk_read.h"

/* Write rows with one writer; set the level of every new file. */
static void write_level(pm_table *t, const char *jsonl, int32_t level)
{
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_batch *b = pk_rows(t, jsonl);
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    for (size_t i = 0; i < n; i++)
        for (size_t f = 0; f < m[i].n_new_files; f++)
            m[i].new_files[f].level = level;
    pk_commit_msgs(t, m, n);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
}

static pm_pk_read_stats bucket_stats(pm_table *t, const char *const *cols, size_t ncols)
{
    pm_scan_result *s = NULL;
    const pm_bucket_files *b = pk_bucket(t, 0, &s);
    assert_non_null(b);
    const pm_schema *sc = pm_table_schema(t);
    pm_type *rt = NULL;
    if (cols)
        PM_OK_OR_FAIL(pm_schema_project(sc, cols, ncols, &rt));
    else
        rt = pm_type_clone(sc->row_type);
    pm_pk_reader *r = NULL;
    PM_OK_OR_FAIL(pm_pk_reader_new(&r, b, sc, rt, 3));
    for (;;) {
        const pm_batch *bt = NULL;
        PM_OK_OR_FAIL(pm_pk_reader_next(r, &bt));
        if (!bt)
            break;
        assert_true(bt->num_rows > 0 && bt->num_rows <= 3);
    }
    pm_pk_read_stats st;
    pm_pk_reader_stats(r, &st);
    pm_pk_reader_free(r);
    pm_type_free(rt);
    pm_scan_result_free(s);
    return st;
}

static void test_levels_and_sections(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "target-file-row-num=2"};
    pm_table *t = pk_create(dir, "lv", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    /* level 1: keys 0..9 in 5 files [0,1] [2,3] ... (one sorted run) */
    pm_buf in = PM_BUF_INIT;
    for (int i = 0; i < 10; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&in, "{\"id\":%d,\"v\":\"base%d\"}\n", i, i));
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&in, &text));
    write_level(t, text, 1);
    /* level 0: updates of 3 and 4 (one file spanning [3,4]) and a delete of 8 */
    write_level(t, "{\"id\":3,\"v\":\"new3\"}\n{\"id\":4,\"v\":\"new4\"}\n", 0);
    write_level(t, "{\"id\":8,\"v\":\"x\",\"_ROW_KIND\":\"-D\"}\n", 0);
    PK_EXPECT_ROWS(t, 0,
                   "{\"id\":0,\"v\":\"base0\"}\n{\"id\":1,\"v\":\"base1\"}\n{\"id\":2,\"v\":\"base2\"}\n"
                   "{\"id\":3,\"v\":\"new3\"}\n{\"id\":4,\"v\":\"new4\"}\n{\"id\":5,\"v\":\"base5\"}\n"
                   "{\"id\":6,\"v\":\"base6\"}\n{\"id\":7,\"v\":\"base7\"}\n{\"id\":9,\"v\":\"base9\"}\n");
    /* sections: [0,1] raw; [2,3]+[4,5]+L0[3,4] merged (one run of two level-1
     * files and one level-0 run); [6,7] raw; [8,9]+L0[8] merged */
    pm_pk_read_stats st = bucket_stats(t, NULL, 0);
    assert_int_equal(st.raw_files, 2);
    assert_int_equal(st.merged_sections, 2);
    assert_int_equal(st.merged_files, 5);
    /* projection without the key */
    const char *cols[] = {"v"};
    char *got = pk_read_sorted(t, 0, cols, 1);
    char *want = pk_sort_lines("{\"v\":\"base0\"}\n{\"v\":\"base1\"}\n{\"v\":\"base2\"}\n{\"v\":\"new3\"}\n"
                               "{\"v\":\"new4\"}\n{\"v\":\"base5\"}\n{\"v\":\"base6\"}\n{\"v\":\"base7\"}\n"
                               "{\"v\":\"base9\"}\n");
    assert_string_equal(got, want);
    free(got);
    free(want);
    st = bucket_stats(t, cols, 1);
    assert_int_equal(st.merged_sections, 2);
    pm_buf_free(&in);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_projection_sequence_field(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "sequence.field=ts"};
    pm_table *t = pk_create(dir, "seq", "ROW<id INT NOT NULL, v STRING, ts BIGINT>", NULL, "id", opts, 2);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"late\",\"ts\":9}\n{\"id\":2,\"v\":\"two\",\"ts\":1}\n");
    pk_commit_rows(t, "{\"id\":1,\"v\":\"early\",\"ts\":3}\n{\"id\":2,\"v\":\"gone\",\"ts\":2,\"_ROW_KIND\":\"-D\"}\n");
    const char *cols[] = {"v"};
    char *got = pk_read_sorted(t, 0, cols, 1);
    assert_string_equal(got, "{\"v\":\"late\"}\n");
    free(got);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_dv_table_skips_level0(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "deletion-vectors.enabled=true"};
    pm_table *t = pk_create(dir, "dv", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    write_level(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n", 5);
    write_level(t, "{\"id\":3,\"v\":\"c\"}\n", 4);
    write_level(t, "{\"id\":1,\"v\":\"invisible\"}\n", 0);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n{\"id\":3,\"v\":\"c\"}\n");
    pm_pk_read_stats st = bucket_stats(t, NULL, 0);
    assert_int_equal(st.raw_files, 2);
    assert_int_equal(st.merged_sections, 0);
    /* deletion-vectors.merge-on-read: level 0 joins the merge */
    pm_table_free(t);
    const char *mor[] = {"bucket=1", "deletion-vectors.enabled=true", "deletion-vectors.merge-on-read=true"};
    t = pk_create(dir, "dvmor", "ROW<id INT NOT NULL, v STRING>", NULL, "id", mor, 3);
    write_level(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n", 5);
    write_level(t, "{\"id\":1,\"v\":\"visible\"}\n", 0);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"visible\"}\n{\"id\":2,\"v\":\"b\"}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* 300 level-0 files spanning the same keys: one section of 300 runs. */
static void test_many_runs(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1"};
    pm_table *t = pk_create(dir, "many", "ROW<id INT NOT NULL, v INT>", NULL, "id", opts, 1);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_commit_message *all = NULL;
    size_t nall = 0;
    char buf[256];
    for (int i = 0; i < 300; i++) {
        snprintf(buf, sizeof buf, "{\"id\":0,\"v\":%d}\n{\"id\":%d,\"v\":%d}\n{\"id\":1000,\"v\":%d}\n", i, 1 + i,
                 i, -i);
        pm_batch *b = pk_rows(t, buf);
        PM_OK_OR_FAIL(pm_table_writer_write(w, b));
        pm_batch_free(b);
        pm_commit_message *m = NULL;
        size_t n = 0;
        PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
        assert_int_equal(n, 1);
        all = realloc(all, (nall + 1) * sizeof *all);
        all[nall++] = m[0];
        free(m);
    }
    pk_commit_msgs(t, all, nall);
    pm_commit_message_array_free(all, nall);
    pm_table_writer_free(w);
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_non_null(strstr(got, "{\"id\":0,\"v\":299}\n"));
    assert_non_null(strstr(got, "{\"id\":1000,\"v\":-299}\n"));
    assert_non_null(strstr(got, "{\"id\":300,\"v\":299}\n"));
    size_t lines = 0;
    for (const char *p = got; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 302);
    free(got);
    pm_pk_read_stats st = bucket_stats(t, NULL, 0);
    assert_int_equal(st.merged_sections, 1);
    assert_int_equal(st.merged_files, 300);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Mixed types with nulls through the merge (bulk range copies of
 * fixed-width, boolean, decimal and string columns, row-by-row nested
 * ones), against a model of the last value per key. */
static uint64_t mix(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_mixed_types_model(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "target-file-row-num=7"};
    pm_table *t = pk_create(dir, "mixed",
                            "ROW<id INT NOT NULL, d DECIMAL(10, 2), big DECIMAL(30, 3), b BOOLEAN, x DOUBLE, s STRING, "
                            "ts TIMESTAMP(6), arr ARRAY<INT>>",
                            NULL, "id", opts, 2);
    enum { KEYS = 40 };
    char *model[KEYS] = {0};
    uint64_t seed = 0xfeedull;
    pm_buf in = PM_BUF_INIT, row = PM_BUF_INIT;
    for (int c = 0; c < 8; c++) {
        pm_buf_clear(&in);
        int n = 5 + (int)(mix(&seed) % 30);
        for (int i = 0; i < n; i++) {
            int k = (int)(mix(&seed) % KEYS);
            pm_buf_clear(&row);
            PM_OK_OR_FAIL(pm_buf_printf(&row, "{\"id\":%d", k));
#define MAYBE_NULL(fmt, ...)                                                         \
    do {                                                                             \
        if (mix(&seed) % 4 == 0)                                                     \
            PM_OK_OR_FAIL(pm_buf_printf(&row, fmt, "null"));                         \
        else                                                                         \
            PM_OK_OR_FAIL(pm_buf_printf(&row, __VA_ARGS__));                         \
    } while (0)
            int v = (int)(mix(&seed) % 100000);
            MAYBE_NULL(",\"d\":%s", ",\"d\":\"%d.%02d\"", v / 100, v % 100);
            MAYBE_NULL(",\"big\":%s", ",\"big\":\"%d%09d.%03d\"", v, v * 7, v % 1000);
            MAYBE_NULL(",\"b\":%s", ",\"b\":%s", v % 2 ? "true" : "false");
            MAYBE_NULL(",\"x\":%s", ",\"x\":%d.5", v);
            MAYBE_NULL(",\"s\":%s", ",\"s\":\"%.*s\"", v % 23, "abcdefghijklmnopqrstuvwxyz");
            MAYBE_NULL(",\"ts\":%s", ",\"ts\":\"2024-01-%02dT10:00:00.%06d\"", 1 + v % 28, v);
            MAYBE_NULL(",\"arr\":%s", ",\"arr\":[%d,null,%d]", v, -v);
#undef MAYBE_NULL
            PM_OK_OR_FAIL(pm_buf_append_str(&row, "}"));
            bool del = mix(&seed) % 6 == 0;
            const char *text = NULL;
            PM_OK_OR_FAIL(pm_buf_cstr(&row, &text));
            free(model[k]);
            model[k] = del ? NULL : strdup(text);
            PM_OK_OR_FAIL(pm_buf_append(&in, row.data, row.len - 1));
            PM_OK_OR_FAIL(pm_buf_printf(&in, ",\"_ROW_KIND\":\"%s\"}\n", del ? "-D" : "+I"));
        }
        const char *text = NULL;
        PM_OK_OR_FAIL(pm_buf_cstr(&in, &text));
        pk_commit_rows(t, text);
        pm_buf want = PM_BUF_INIT;
        for (int k = 0; k < KEYS; k++)
            if (model[k]) {
                PM_OK_OR_FAIL(pm_buf_append_str(&want, model[k]));
                PM_OK_OR_FAIL(pm_buf_append_str(&want, "\n"));
            }
        const char *ws = NULL;
        PM_OK_OR_FAIL(pm_buf_cstr(&want, &ws));
        PK_EXPECT_ROWS(t, 0, ws);
        pm_buf_free(&want);
    }
    for (int k = 0; k < KEYS; k++)
        free(model[k]);
    pm_buf_free(&in);
    pm_buf_free(&row);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_and_sections),
        cmocka_unit_test(test_projection_sequence_field),
        cmocka_unit_test(test_dv_table_skips_level0),
        cmocka_unit_test(test_many_runs),
        cmocka_unit_test(test_mixed_types_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
