/*
 * tests/unit/compact/test_compact_passthrough.c — row-group passthrough
 * against a normal rewrite of identical tables: same rows, same
 * DataFileMeta statistics (every primitive type, nulls, NaN-free
 * floats, decimals of both widths, timestamps of every precision, a nested
 * column without stats), same sequence ranges; inputs that do not qualify
 * (a deletion vector, an older schema, row groups below the minimum size)
 * are rewritten in place of being copied, and outputs stay in input order.
 */
#include <string.h>

#include "../table/write_test_util.h"
#include "compact_rows_util.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"
#include "format/parquet/parquet_meta.h"
#include "pm_test.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/table_read.h"

static const char *ROW = "ROW<id BIGINT, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, f FLOAT, d DOUBLE, "
                         "s STRING, bin BYTES, d1 DECIMAL(10, 2), d2 DECIMAL(30, 4), day DATE, "
                         "ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), arr ARRAY<INT>>";

static pm_table *make(const char *dir, const char *name)
{
    const char *opts[] = {"bucket=-1"};
    pm_table *t = wt_create(dir, name, ROW, NULL, opts, 1);
    for (int c = 0; c < 6; c++) {
        pm_buf b = PM_BUF_INIT;
        for (int k = 0; k < 50; k++) {
            int id = c * 50 + k;
            if (id % 7 == 3) {
                PM_OK_OR_FAIL(pm_buf_printf(&b, "{\"id\":%d}\n", id));
                continue;
            }
            PM_OK_OR_FAIL(pm_buf_printf(
                &b,
                "{\"id\":%d,\"b\":%s,\"i8\":%d,\"i16\":%d,\"i32\":%d,\"f\":%d.5,\"d\":%d.25,\"s\":\"s-%d-%s\","
                "\"bin\":\"AAEC\",\"d1\":\"%d.%02d\",\"d2\":\"-%d.1234\",\"day\":\"2024-01-%02d\","
                "\"ts3\":\"2024-01-01T00:00:%02d.123\",\"ts6\":\"2024-01-01T00:00:00.%06d\","
                "\"ts9\":\"2024-01-01T00:00:00.%09d\",\"arr\":[%d,%d]}\n",
                id, id % 2 ? "true" : "false", id % 100 - 50, id * 3 - 400, id * 1000 - 77, id - 150, 100 - id, id,
                id % 3 ? "abcdefghijklmnopqrstuvwxyz" : "é", id, id % 100, id * 11, id % 28 + 1, id % 60, id * 37,
                id * 1001, id, -id));
        }
        const char *text;
        PM_OK_OR_FAIL(pm_buf_cstr(&b, &text));
        wt_commit_rows(t, text, PM_COMMIT_APPEND, NULL, 0);
        pm_buf_free(&b);
    }
    return t;
}

static pm_compact_metrics compact(pm_table *t, bool passthrough, const char *min_size)
{
    char o1[128], o2[128];
    snprintf(o1, sizeof o1, "compaction.parquet.row-group-passthrough=%s", passthrough ? "true" : "false");
    snprintf(o2, sizeof o2, "compaction.parquet.row-group-passthrough.min-size=%s", min_size);
    const char *dyn[] = {o1, o2, "compaction.min.file-num=2"};
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, false, NULL, dyn, 3, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    pm_compact_builder_free(b);
    return m;
}

static void assert_stats_equal(const pm_simple_stats *a, const pm_simple_stats *b)
{
    assert_true(pm_compact_bytes_equal(&a->min_values, &b->min_values));
    assert_true(pm_compact_bytes_equal(&a->max_values, &b->max_values));
    assert_int_equal(a->null_count_len, b->null_count_len);
    for (size_t i = 0; i < a->null_count_len; i++) {
        assert_int_equal(a->null_counts[i].has, b->null_counts[i].has);
        assert_int_equal(a->null_counts[i].v, b->null_counts[i].v);
    }
}

static void test_same_as_rewrite(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *a = make(dir, "a"), *b = make(dir, "b");
    char *before = rows_text(a);
    pm_compact_metrics ma = compact(a, true, "0");
    pm_compact_metrics mb = compact(b, false, "0");
    assert_int_equal(ma.files_removed, 6);
    assert_int_equal(mb.files_removed, 6);
    assert_int_equal(ma.files_added, 1);
    assert_int_equal(ma.rows_written, 300);
    /* the same rows as the rewrite and as before (the order of equally
     * sized inputs depends on their random names, so compare sorted) */
    char *ra = rows_text(a), *rb = rows_text(b);
    char *s1 = sorted_lines(before), *s2 = sorted_lines(ra), *s3 = sorted_lines(rb);
    assert_string_equal(s1, s2);
    assert_string_equal(s2, s3);
    free(s1);
    free(s2);
    free(s3);
    pm_scan_result *sa = scan(a), *sb = scan(b);
    const pm_data_file_meta *fa = &sa->buckets[0].files[0], *fb = &sb->buckets[0].files[0];
    assert_int_equal(fa->row_count, 300);
    assert_int_equal(fa->min_sequence_number, fb->min_sequence_number);
    assert_int_equal(fa->max_sequence_number, fb->max_sequence_number);
    assert_int_equal(fa->file_source.v, PM_FILE_SOURCE_COMPACT);
    assert_stats_equal(&fa->value_stats, &fb->value_stats);
    assert_int_equal(fa->has_value_stats_cols, fb->has_value_stats_cols);
    assert_int_equal(fa->value_stats_cols.count, fb->value_stats_cols.count);
    /* passthrough keeps one row group per input: the file is not smaller */
    assert_true(fa->file_size >= fb->file_size);
    pm_scan_result_free(sa);
    pm_scan_result_free(sb);
    free(ra);
    free(rb);
    free(before);
    pm_table_free(a);
    pm_table_free(b);
    pm_test_rmtree(dir);
    free(dir);
}

/* Row groups of the table's only live file. */
static uint32_t row_groups(pm_table *t)
{
    pm_scan_result *s = scan(t);
    assert_int_equal(s->buckets[0].nfiles, 1);
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, s->buckets[0].partition.data, s->buckets[0].partition.len, 0, &dir));
    char *path = pm_path_join(dir, s->buckets[0].files[0].file_name);
    size_t len = 0;
    uint8_t *f = pm_test_read_file(path, &len);
    assert_non_null(f);
    uint32_t flen = (uint32_t)f[len - 8] | (uint32_t)f[len - 7] << 8 | (uint32_t)f[len - 6] << 16 |
                    (uint32_t)f[len - 5] << 24;
    pm_pq_file_meta *m = NULL;
    PM_OK_OR_FAIL(pm_pq_file_meta_parse(&m, f + len - 8 - flen, flen));
    uint32_t n = m->num_row_groups;
    pm_pq_file_meta_free(m);
    free(f);
    free(path);
    free(dir);
    pm_scan_result_free(s);
    return n;
}

static void test_fallbacks(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *a = make(dir, "a"), *b = make(dir, "b");
    /* row groups below the minimum size: nothing is copied (a rewrite makes
     * one row group; copying would keep the 6 of the inputs) */
    pm_compact_metrics ma = compact(a, true, "1 gb");
    pm_compact_metrics mb = compact(b, true, "0");
    assert_int_equal(ma.files_added, 1);
    assert_int_equal(row_groups(a), 1);
    assert_int_equal(mb.files_added, 1);
    assert_int_equal(row_groups(b), 6);
    pm_table_free(a);
    pm_table_free(b);

    /* mixed inputs: copied, rewritten (older schema), copied — in order */
    pm_table *c = make(dir, "c");
    char *before = rows_text(c);
    pm_scan_result *s = scan(c);
    size_t nf = s->buckets[0].nfiles;
    assert_int_equal(nf, 6);
    pm_scan_result_free(s);
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, false, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    const char *dyn[] = {"compaction.parquet.row-group-passthrough=true",
                         "compaction.parquet.row-group-passthrough.min-size=0", "compaction.min.file-num=2"};
    o.dynamic_options = dyn;
    o.ndynamic_options = 3;
    pm_compact_builder *bld = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&bld, c, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, bld));
    assert_int_equal(p->ntasks, 1);
    pm_compact_task *task = p->tasks[0];
    assert_true(task->output.rg_passthrough);
    /* a write_cols file is not eligible: flag the third input so (the file
     * itself has every column, so the reader still reads it in full) */
    const pm_type *rt = pm_table_schema(c)->row_type;
    task->files[2].has_write_cols = true;
    task->files[2].write_cols.count = rt->nfields;
    task->files[2].write_cols.items = calloc(rt->nfields, sizeof(char *));
    for (size_t i = 0; i < rt->nfields; i++)
        task->files[2].write_cols.items[i] = strdup(rt->fields[i].name);
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, c, task, NULL));
    /* outputs: [copy of inputs 0-1], [rewrite of input 2], [copy of 3-5] */
    assert_int_equal(r->nafter, 3);
    assert_int_equal(r->after[0].row_count, task->files[0].row_count + task->files[1].row_count);
    assert_int_equal(r->after[1].row_count, task->files[2].row_count);
    for (size_t i = 1; i < r->nafter; i++)
        assert_int_equal(r->after[i].min_sequence_number, r->after[i - 1].max_sequence_number + 1);
    task->files[2].has_write_cols = false; /* the committer compares with the live metadata */
    pm_str_list_free(&task->files[2].write_cols);
    pm_data_file_meta_clear(&r->before[2]);
    PM_OK_OR_FAIL(pm_data_file_meta_copy(&r->before[2], &task->files[2]));
    PM_OK_OR_FAIL(pm_compact_commit(NULL, c, NULL, &r, 1));
    char *after = rows_text(c);
    char *s1 = sorted_lines(before), *s2 = sorted_lines(after);
    assert_string_equal(s1, s2);
    free(s1);
    free(s2);
    free(after);
    free(before);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_compact_builder_free(bld);
    pm_table_free(c);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_rewrite),
        cmocka_unit_test(test_fallbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
