/*
 * tests/unit/pkc/test_pkc_postpone.c — postpone-bucket primary-key tables
 * (bucket = -2): writes land in bucket-postpone in arrival order (Avro,
 * no statistics, Java's file names with the commit user and a write id,
 * sequence numbers from 0), are invisible to batch reads and not
 * compacted by automatic rounds; pm_compact_run assigns real buckets
 * (postpone.default-bucket-num for new partitions, the existing count
 * otherwise — also after the default changes) in one COMPACT snapshot, replaying the records in creation
 * order; with nothing postponed it compacts the real buckets; plans cover
 * the real buckets only; changelog producers are refused.
 */
#include <string.h>

#include "../pk/pk_test_util.h"
#include "compact/compact_internal.h"
#include "paimon/compact.h"
#include "paimon/write.h"
#include "table/partition.h"

static pm_commit_outcome write_rows(pm_table *t, const char *user, const char *jsonl)
{
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = user;
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, &wo));
    pm_batch *b = pk_rows(t, jsonl);
    PM_OK_OR_FAIL(pm_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_writer_commit(&o, w));
    assert_null(o.compaction_error);
    pm_writer_free(w);
    return o;
}

static pm_compact_metrics compact(pm_table *t)
{
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    pm_compact_builder_free(b);
    return m;
}

/* "<bucket>:<level>:<rows>" of every file, sorted; partitions by their bytes' order */
static char *layout(pm_table *t)
{
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    pm_buf b = PM_BUF_INIT;
    for (size_t i = 0; i < scan->nbuckets; i++)
        for (size_t k = 0; k < scan->buckets[i].nfiles; k++)
            PM_OK_OR_FAIL(pm_buf_printf(&b, "%s%d:%d:%lld", b.len ? " " : "", (int)scan->buckets[i].bucket,
                                        (int)scan->buckets[i].files[k].level,
                                        (long long)scan->buckets[i].files[k].row_count));
    pm_scan_result_free(scan);
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 0));
    return (char *)pm_buf_detach(&b, NULL);
}

static void test_write_and_compact(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-2", "postpone.default-bucket-num=2"};
    pm_table *t = pk_create(dir, "pp", "ROW<id INT NOT NULL, v STRING, dt STRING NOT NULL>", "dt", "id,dt", opts, 2);
    pm_commit_outcome o = write_rows(t, "u1", "{\"id\":3,\"v\":\"a\",\"dt\":\"x\"}\n{\"id\":1,\"v\":\"a\",\"dt\":\"x\"}\n"
                                              "{\"id\":1,\"v\":\"b\",\"dt\":\"x\"}\n");
    assert_int_equal(o.compaction.snapshot_id, 0); /* no automatic round */
    /* invisible to batch reads; the file: arrival order, Avro, Java's name */
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_string_equal(got, "");
    free(got);
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, -2, &scan);
    assert_non_null(bf);
    assert_int_equal(bf->nfiles, 1);
    const pm_data_file_meta *f = &bf->files[0];
    assert_non_null(strstr(f->file_name, "data--u-u1-s-"));
    assert_non_null(strstr(f->file_name, "-w-"));
    assert_non_null(strstr(f->file_name, ".avro"));
    assert_int_equal(f->row_count, 3); /* not merged */
    assert_int_equal(f->min_sequence_number, 0);
    assert_int_equal(f->max_sequence_number, 2);
    pm_scan_result_free(scan);
    write_rows(t, "u2", "{\"id\":1,\"v\":\"c\",\"dt\":\"x\"}\n{\"id\":9,\"v\":\"z\",\"dt\":\"y\"}\n");
    pm_compact_metrics m = compact(t);
    assert_true(m.snapshot_id > 0);
    assert_int_equal(m.files_removed, 3);
    assert_int_equal(m.rows_read, 5);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"c\",\"dt\":\"x\"}\n{\"id\":3,\"v\":\"a\",\"dt\":\"x\"}\n"
                         "{\"id\":9,\"v\":\"z\",\"dt\":\"y\"}\n");
    char *l = layout(t);
    assert_null(strstr(l, "-2:")); /* nothing postponed any more */
    free(l);
    /* the partition keeps its bucket count; new partitions take the default */
    scan = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, &(pm_scan_options){0, NULL, 0, PM_SCAN_ALL_BUCKETS, false}, &scan));
    for (size_t i = 0; i < scan->nbuckets; i++) {
        assert_int_equal(scan->buckets[i].total_buckets, 2);
        assert_true(scan->buckets[i].bucket >= 0 && scan->buckets[i].bucket < 2);
    }
    pm_scan_result_free(scan);
    /* more postponed rows with a retract; then a run without postponed
     * files compacts the real buckets */
    write_rows(t, "u3", "{\"id\":3,\"v\":null,\"dt\":\"x\",\"_ROW_KIND\":\"-D\"}\n{\"id\":4,\"v\":\"d\",\"dt\":\"x\"}\n");
    m = compact(t);
    assert_int_equal(m.files_removed, 1);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"c\",\"dt\":\"x\"}\n{\"id\":4,\"v\":\"d\",\"dt\":\"x\"}\n"
                         "{\"id\":9,\"v\":\"z\",\"dt\":\"y\"}\n");
    m = compact(t);
    l = layout(t);
    assert_null(strstr(l, ":0:")); /* level 0 compacted away */
    free(l);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"c\",\"dt\":\"x\"}\n{\"id\":4,\"v\":\"d\",\"dt\":\"x\"}\n"
                         "{\"id\":9,\"v\":\"z\",\"dt\":\"y\"}\n");
    /* plans cover the real buckets only */
    write_rows(t, "u4", "{\"id\":5,\"v\":\"e\",\"dt\":\"x\"}\n");
    pm_compact_options co = PM_COMPACT_OPTIONS_INIT;
    co.full = true;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &co));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    for (size_t i = 0; i < pm_compact_plan_task_count(p); i++)
        assert_true(pm_compact_task_bucket(pm_compact_plan_task(p, i)) >= 0);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* The total bucket count of the files of partition dt=<dt> (every file agrees). */
static int total_buckets_of(pm_table *t, const char *dt)
{
    pm_scan_result *scan = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, &(pm_scan_options){0, NULL, 0, PM_SCAN_ALL_BUCKETS, false}, &scan));
    char want[64];
    snprintf(want, sizeof want, "dt=%s", dt);
    int total = -1;
    pm_buf name = PM_BUF_INIT;
    for (size_t i = 0; i < scan->nbuckets; i++) {
        const pm_bucket_files *bf = &scan->buckets[i];
        pm_buf_clear(&name);
        PM_OK_OR_FAIL(pm_partition_display(t, bf->partition.data, bf->partition.len, &name));
        if (bf->bucket < 0 || !bf->nfiles || name.len != strlen(want) || memcmp(name.data, want, name.len))
            continue;
        assert_true(total == -1 || total == bf->total_buckets);
        total = bf->total_buckets;
        assert_true(bf->bucket < bf->total_buckets);
    }
    pm_buf_free(&name);
    pm_scan_result_free(scan);
    return total;
}

/* postpone.default-bucket-num applies to new partitions only: after it
 * changes, a partition that has real buckets keeps their count. */
static void test_existing_count(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-2", "postpone.default-bucket-num=2"};
    pm_table *t = pk_create(dir, "pc", "ROW<id INT NOT NULL, v STRING, dt STRING NOT NULL>", "dt", "id,dt", opts, 2);
    pm_buf rows = PM_BUF_INIT;
    for (int i = 0; i < 40; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":\"a\",\"dt\":\"x\"}\n", i));
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
    write_rows(t, "u1", text);
    compact(t);
    assert_int_equal(total_buckets_of(t, "x"), 2);
    const char *k[] = {"postpone.default-bucket-num"}, *v[] = {"5"};
    PM_OK_OR_FAIL(pm_table_alter_options(t, k, v, 1, NULL, 0));
    pm_buf_clear(&rows);
    for (int i = 0; i < 40; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":\"b\",\"dt\":\"%s\"}\n", i, i % 2 ? "x" : "y"));
    PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
    write_rows(t, "u2", text);
    pm_buf_free(&rows);
    pm_compact_metrics m = compact(t);
    assert_true(m.snapshot_id > 0);
    assert_int_equal(total_buckets_of(t, "x"), 2); /* existing: keeps 2 */
    assert_int_equal(total_buckets_of(t, "y"), 5); /* new: the changed default */
    char *got = pk_read_sorted(t, 0, NULL, 0);
    int n = 0, bs = 0;
    for (char *l = got; (l = strchr(l, '\n')); l++)
        n++;
    for (char *l = got; (l = strstr(l, "\"v\":\"b\"")); l++)
        bs++;
    free(got);
    assert_int_equal(n, 60); /* x: 40 keys, y: 20 keys */
    assert_int_equal(bs, 40);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_refused(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-2", "changelog-producer=lookup"};
    pm_table *t = pk_create(dir, "cl", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    pm_writer *w = NULL;
    pm_error *e = pm_writer_new(&w, t, NULL);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "changelog-producer"));
    free(msg);
    pm_error_free(e);
    pm_compact_builder *b = NULL;
    e = pm_compact_builder_new(&b, t, NULL);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EUNSUPPORTED);
    pm_error_free(e);
    pm_table_free(t);
    /* partial-update refuses a lone retract at write, as Java's validateRetract */
    const char *o2[] = {"bucket=-2", "merge-engine=partial-update"};
    t = pk_create(dir, "pu", "ROW<id INT NOT NULL, v STRING>", NULL, "id", o2, 2);
    PM_OK_OR_FAIL(pm_writer_new(&w, t, NULL));
    pm_batch *rows = pk_rows(t, "{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"-D\"}\n");
    PM_OK_OR_FAIL(pm_writer_write(w, rows));
    pm_batch_free(rows);
    pm_commit_messages *m = NULL;
    e = pm_writer_prepare_commit(&m, w);
    assert_non_null(e);
    pm_error_free(e);
    pm_writer_abort(w);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_and_compact),
        cmocka_unit_test(test_existing_count),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
