/*
 * tests/unit/table/test_blob_write.c — writes of data-evolution tables
 * with BLOB fields (table/blob_write.h): normal files rolling inside a
 * batch and blob files rolling at blob.target-file-size, with two BLOB
 * fields; the files of a commit message come as each normal file followed
 * by its blob files field by field, which tile exactly its rows; the metas
 * (write columns, empty statistics, first row IDs from the commit); the
 * rows read back; abort deletes every file; options keeping BLOB values
 * elsewhere are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/util.h"
#include "table/scan.h"
#include "table/table_read.h"
#include "write_test_util.h"

static const char *ROW = "ROW<id INT, a BLOB, s STRING, b BLOB>";

static char *rows_json(int from, int n)
{
    pm_buf b = PM_BUF_INIT;
    for (int i = from; i < from + n; i++) {
        /* a: (i % 40) % 4 bytes "x..." (null every 9th row); b: 3 bytes or null */
        char a[64] = "", bb[16] = "";
        int la = i % 40;
        static const char *b64x[] = {"", "eA==", "eHg=", "eHh4"};
        if (i % 9 == 4)
            snprintf(a, sizeof a, "null");
        else
            snprintf(a, sizeof a, "\"%s\"", b64x[la % 4]);
        snprintf(bb, sizeof bb, i % 5 ? "\"AQID\"" : "null");
        PM_OK_OR_FAIL(pm_buf_printf(&b, "{\"id\":%d,\"a\":%s,\"s\":\"s%d\",\"b\":%s}\n", i, a, i, bb));
    }
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&b, &s)); /* NUL-terminated */
    size_t len = 0;
    return (char *)pm_buf_detach(&b, &len);
}

static bool is_blob(const pm_data_file_meta *f) { return strstr(f->file_name, ".blob") != NULL; }

static void test_rolling_and_order(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                          "target-file-size=1 b", "blob.target-file-size=300 b"};
    pm_table *t = wt_create(dir, "b", ROW, NULL, opts, 5);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    /* 2500 rows in batches of 700: the normal files roll at the
     * 1000-record checks (1000, 2000) inside batches, and at the end */
    for (int from = 0; from < 2500; from += 700) {
        char *js = rows_json(from, from + 700 <= 2500 ? 700 : 2500 - from);
        pm_batch *bt = wt_rows(t, js);
        PM_OK_OR_FAIL(pm_table_writer_write(w, bt));
        pm_batch_free(bt);
        free(js);
    }
    pm_commit_message *m = NULL;
    size_t nm = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &nm));
    assert_int_equal(nm, 1);
    size_t normals = 0;
    int64_t start = 0, end = 0, field_rows[2] = {0, 0};
    size_t blobs = 0;
    for (size_t i = 0; i < m[0].n_new_files; i++) {
        const pm_data_file_meta *f = &m[0].new_files[i];
        assert_true(f->has_write_cols);
        assert_false(f->first_row_id.has);
        assert_int_equal(f->min_sequence_number, 0);
        assert_int_equal(f->max_sequence_number, f->row_count - 1);
        if (!is_blob(f)) {
            /* the previous normal file is tiled by its blob files */
            if (normals) {
                assert_int_equal(field_rows[0], end - start);
                assert_int_equal(field_rows[1], end - start);
            }
            normals++;
            start = end;
            end += f->row_count;
            field_rows[0] = field_rows[1] = 0;
            assert_int_equal(f->write_cols.count, 2);
            assert_string_equal(f->write_cols.items[0], "id");
            assert_string_equal(f->write_cols.items[1], "s");
            continue;
        }
        blobs++;
        assert_int_equal(f->write_cols.count, 1);
        int fld = !strcmp(f->write_cols.items[0], "b");
        if (!fld)
            assert_string_equal(f->write_cols.items[0], "a");
        assert_int_equal(field_rows[1], fld ? field_rows[1] : 0); /* field a's files come first */
        field_rows[fld] += f->row_count;
        assert_true(field_rows[fld] <= end - start);
        /* Java's "none" statistics, dense: no column */
        assert_true(f->has_value_stats_cols);
        assert_int_equal(f->value_stats_cols.count, 0);
        assert_int_equal(f->file_source.v, PM_FILE_SOURCE_APPEND);
    }
    assert_int_equal(field_rows[0], end - start);
    assert_int_equal(field_rows[1], end - start);
    assert_int_equal(end, 2500);
    assert_int_equal(normals, 3);
    assert_true(blobs > 6); /* blob files rolled at 300 bytes too */
    pm_commit_options co = {0};
    co.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    int64_t sid = 0;
    PM_OK_OR_FAIL(pm_table_commit(t, &co, m, nm, &sid));
    pm_commit_message_array_free(m, nm);
    pm_table_writer_free(w);
    /* read back: every row as written */
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    pm_table_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_reader_new(&r, t, scan, NULL));
    int64_t seen = 0;
    for (;;) {
        const pm_batch *bt = NULL;
        PM_OK_OR_FAIL(pm_table_reader_next(r, &bt));
        if (!bt)
            break;
        for (int64_t i = 0; i < bt->num_rows; i++) {
            int32_t id = pm_column_i32(bt->columns[0], i);
            assert_int_equal(id, seen + i);
            assert_int_equal(pm_column_is_null(bt->columns[1], i), id % 9 == 4);
            if (id % 9 != 4) {
                size_t n = 0;
                pm_column_bytes(bt->columns[1], i, &n);
                assert_int_equal(n, (size_t)(id % 40 % 4));
            }
            assert_int_equal(pm_column_is_null(bt->columns[3], i), id % 5 == 0);
        }
        seen += bt->num_rows;
    }
    assert_int_equal(seen, 2500);
    pm_table_reader_free(r);
    pm_scan_result_free(scan);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_abort_and_refusals(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                          "blob.target-file-size=10 b"};
    pm_table *t = wt_create(dir, "b", ROW, NULL, opts, 4);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    char *js = rows_json(0, 50);
    pm_batch *bt = wt_rows(t, js);
    PM_OK_OR_FAIL(pm_table_writer_write(w, bt));
    pm_batch_free(bt);
    free(js);
    char bucket[1024];
    snprintf(bucket, sizeof bucket, "%s/db.db/b/bucket-0", dir);
    assert_true(wt_count_files(bucket, "data-") > 2); /* closed blob files and the open files */
    pm_table_writer_abort(w);
    assert_int_equal(wt_count_files(bucket, "data-"), 0);
    pm_table_free(t);
    const char *desc[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                          "blob-descriptor-field=a"};
    t = wt_create(dir, "d", ROW, NULL, desc, 4);
    pm_table_writer *w2 = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w2, t, NULL));
    js = rows_json(0, 1);
    bt = wt_rows(t, js);
    pm_test_expect_error(pm_table_writer_write(w2, bt), PM_EUNSUPPORTED, "blob-descriptor-field=a");
    pm_batch_free(bt);
    free(js);
    pm_table_writer_abort(w2);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rolling_and_order),
        cmocka_unit_test(test_abort_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
