/*
 * tests/unit/compact/test_compact_dv.c — compaction of tables with deletion
 * vectors: deleted rows vanish from the outputs, the DV index entries of
 * compacted files are dropped (unaware: the touched index file is deleted
 * and its other vectors rewritten; bucketed: the bucket's file is
 * replaced), vectors of files outside the task survive, and the table reads
 * the same rows before and after.  A concurrent change of an input's
 * vector makes the commit a "replan" conflict.
 */
#include <string.h>

#include "../table/write_test_util.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"
#include "dv/dv_maintainer.h"
#include "meta/manifest.h"
#include "pm_test.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/table_read.h"

static pm_scan_result *scan_latest(pm_table *t)
{
    pm_scan_result *r = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &r));
    return r;
}

/* Sum of the id column over the rows the table reads (DVs applied). */
static int64_t read_rows(pm_table *t, int64_t *id_sum)
{
    pm_scan_result *s = scan_latest(t);
    pm_table_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_reader_new(&r, t, s, NULL));
    int64_t n = 0, sum = 0;
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_table_reader_next(r, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < b->num_rows; i++)
            sum += pm_column_i64(b->columns[0], i);
        n += b->num_rows;
    }
    pm_table_reader_free(r);
    pm_scan_result_free(s);
    *id_sum = sum;
    return n;
}

/* 6 commits of 10 rows (ids 10c .. 10c+9). */
static pm_table *make(const char *dir, const char *name, const char *const *opts, size_t nopts)
{
    pm_table *t = wt_create(dir, name, "ROW<id BIGINT, s STRING>", NULL, opts, nopts);
    for (int c = 0; c < 6; c++) {
        char rows[1024] = "";
        for (int k = 0; k < 10; k++) {
            char line[64];
            snprintf(line, sizeof line, "{\"id\":%d,\"s\":\"v%d\"}\n", c * 10 + k, k % 3);
            strcat(rows, line);
        }
        wt_commit_rows(t, rows, PM_COMMIT_APPEND, NULL, 0);
    }
    return t;
}

/* Files of the only bucket, in min-sequence (= commit) order for bucketed
 * tables, manifest order otherwise. */
static const pm_bucket_files *only_bucket(const pm_scan_result *s)
{
    assert_int_equal(s->nbuckets, 1);
    return &s->buckets[0];
}

static pm_dv *positions(const int64_t *p, size_t n)
{
    pm_dv *dv = NULL;
    PM_OK_OR_FAIL(pm_dv_new(false, &dv));
    for (size_t i = 0; i < n; i++)
        PM_OK_OR_FAIL(pm_dv_add(dv, p[i], NULL));
    return dv;
}

static void commit_index(pm_table *t, const pm_bytes *part, int32_t bucket, int32_t total,
                         pm_index_manifest_entry *added, size_t nadded)
{
    pm_commit_message m;
    memset(&m, 0, sizeof m);
    m.partition = *part;
    m.bucket = bucket;
    m.total_buckets = total;
    size_t na = 0, nr = 0;
    for (size_t i = 0; i < nadded; i++) {
        if (added[i].kind == PM_FILE_ADD)
            na++;
        else
            nr++;
    }
    pm_index_manifest_entry *a = calloc(na + 1, sizeof *a), *r = calloc(nr + 1, sizeof *r);
    na = nr = 0;
    for (size_t i = 0; i < nadded; i++) {
        if (added[i].kind == PM_FILE_ADD)
            a[na++] = added[i];
        else
            r[nr++] = added[i];
    }
    m.index_added = a;
    m.n_index_added = na;
    m.index_removed = r;
    m.n_index_removed = nr;
    pm_commit_options o = {0};
    o.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    o.kind = PM_COMMIT_APPEND;
    int64_t id = 0;
    PM_OK_OR_FAIL(pm_table_commit(t, &o, &m, 1, &id));
    assert_true(id > 0);
    free(a);
    free(r);
}

static size_t dv_index_entries(const pm_bucket_files *bf)
{
    size_t n = 0;
    for (size_t i = 0; i < bf->nindex_entries; i++)
        n += !strcmp(bf->index_entries[i].index_file.index_type, "DELETION_VECTORS");
    return n;
}

static void test_unaware_dv(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1", "deletion-vectors.enabled=true"};
    pm_table *t = make(dir, "u", opts, 2);
    pm_scan_result *s = scan_latest(t);
    const pm_bucket_files *bf = only_bucket(s);
    assert_int_equal(bf->nfiles, 6);
    /* delete rows of files 0 and 2 (one index file) */
    char *bdir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, 0, &bdir));
    pm_dv_io io = {t->fio, t->paths, bdir};
    pm_dv_append_maintainer *am = NULL;
    PM_OK_OR_FAIL(pm_dv_append_maintainer_new(&io, &bf->partition, 0, NULL, 0, &am));
    int64_t p0[] = {0, 1}, p2[] = {5};
    PM_OK_OR_FAIL(pm_dv_append_maintainer_add(am, bf->files[0].file_name, positions(p0, 2)));
    PM_OK_OR_FAIL(pm_dv_append_maintainer_add(am, bf->files[2].file_name, positions(p2, 1)));
    pm_index_manifest_entry *ch = NULL;
    size_t nch = 0;
    PM_OK_OR_FAIL(pm_dv_append_maintainer_persist(am, &ch, &nch));
    pm_dv_append_maintainer_free(am);
    commit_index(t, &bf->partition, 0, -1, ch, nch);
    pm_index_manifest_entries_free(ch, nch);
    pm_scan_result_free(s);
    free(bdir);

    int64_t sum_before;
    assert_int_equal(read_rows(t, &sum_before), 57);

    /* DV mode: the two files with vectors form one task (their index file);
     * the 4 others are fewer than min.file-num */
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, false, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    assert_int_equal(p->ntasks, 1);
    assert_int_equal(p->tasks[0]->nfiles, 2);
    assert_int_equal(p->tasks[0]->ndvs, 2);
    assert_int_equal(p->tasks[0]->ndv_index, 1);
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, t, p->tasks[0], NULL));
    assert_int_equal(r->counters.rows_read, 20);
    assert_int_equal(r->counters.rows_deleted, 3);
    assert_int_equal(r->counters.rows_written, 17);
    assert_int_equal(r->nindex_removed, 1);
    assert_int_equal(r->nindex_added, 0); /* no vector left to keep */
    /* a concurrent delete in file 2 rewrites the index file: replan */
    s = scan_latest(t);
    bf = only_bucket(s);
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, 0, &bdir));
    pm_dv_io io2 = {t->fio, t->paths, bdir};
    PM_OK_OR_FAIL(pm_dv_append_maintainer_new(&io2, &bf->partition, 0, bf->index_entries, bf->nindex_entries, &am));
    int64_t p2b[] = {6};
    const char *f2 = p->tasks[0]->dvs[1].data_file;
    PM_OK_OR_FAIL(pm_dv_append_maintainer_add(am, f2, positions(p2b, 1)));
    PM_OK_OR_FAIL(pm_dv_append_maintainer_persist(am, &ch, &nch));
    pm_dv_append_maintainer_free(am);
    commit_index(t, &bf->partition, 0, -1, ch, nch);
    pm_index_manifest_entries_free(ch, nch);
    pm_scan_result_free(s);
    free(bdir);
    pm_error *e = pm_compact_commit(NULL, t, NULL, &r, 1);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_ECONFLICT);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "replan"));
    free(msg);
    pm_error_free(e);
    PM_OK_OR_FAIL(pm_compact_abort(t, &r, 1));
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    assert_int_equal(read_rows(t, &sum_before), 56);
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    assert_int_equal(p->ntasks, 1);
    PM_OK_OR_FAIL(pm_compact_execute(&r, t, p->tasks[0], NULL));
    assert_int_equal(r->counters.rows_deleted, 4);
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_commit(&m, t, NULL, &r, 1));
    assert_int_equal(m.snapshot_id, 9);
    int64_t sum_after;
    assert_int_equal(read_rows(t, &sum_after), 56);
    assert_int_equal(sum_after, sum_before);
    s = scan_latest(t);
    bf = only_bucket(s);
    assert_int_equal(bf->nfiles, 5);
    assert_int_equal(bf->ndvs, 0);
    assert_int_equal(dv_index_entries(bf), 0);
    pm_scan_result_free(s);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_bucketed_dv(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "bucket-key=id", "deletion-vectors.enabled=true"};
    pm_table *t = make(dir, "b", opts, 3);
    pm_scan_result *s = scan_latest(t);
    const pm_bucket_files *bf = only_bucket(s);
    assert_int_equal(bf->nfiles, 6);
    /* the first and the last file (by sequence) get vectors */
    size_t first = 0, last = 0;
    for (size_t i = 0; i < bf->nfiles; i++) {
        if (bf->files[i].min_sequence_number < bf->files[first].min_sequence_number)
            first = i;
        if (bf->files[i].min_sequence_number > bf->files[last].min_sequence_number)
            last = i;
    }
    char *bdir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, 0, &bdir));
    pm_dv_io io = {t->fio, t->paths, bdir};
    pm_dv_maintainer *dm = NULL;
    PM_OK_OR_FAIL(pm_dv_maintainer_new(&io, &bf->partition, 0, false, NULL, 0, &dm));
    int64_t pa[] = {3}, pb[] = {0, 9};
    PM_OK_OR_FAIL(pm_dv_maintainer_put(dm, bf->files[first].file_name, positions(pa, 1)));
    PM_OK_OR_FAIL(pm_dv_maintainer_put(dm, bf->files[last].file_name, positions(pb, 2)));
    pm_index_manifest_entry added;
    bool written = false;
    PM_OK_OR_FAIL(pm_dv_maintainer_write(dm, &added, &written));
    assert_true(written);
    pm_dv_maintainer_free(dm);
    commit_index(t, &bf->partition, 0, 1, &added, 1);
    pm_index_manifest_entry_clear(&added);
    char *last_name = strdup(bf->files[last].file_name);
    pm_scan_result_free(s);
    free(bdir);

    int64_t sum_before;
    assert_int_equal(read_rows(t, &sum_before), 57);
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, false, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    assert_int_equal(p->ntasks, 1); /* one window of 5 (one task per bucket with DVs) */
    assert_int_equal(p->tasks[0]->nfiles, 5);
    assert_int_equal(p->tasks[0]->ndvs, 1);
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, t, p->tasks[0], NULL));
    assert_int_equal(r->counters.rows_written, 49);
    assert_int_equal(r->nafter, 1);
    assert_int_equal(r->after[0].min_sequence_number, 0);
    assert_int_equal(r->after[0].max_sequence_number, 48);
    assert_int_equal(r->nindex_removed, 1);
    assert_int_equal(r->nindex_added, 1);
    /* the new bucket file keeps the last file's vector only */
    assert_int_equal(r->index_added[0].index_file.dv_range_len, 1);
    assert_string_equal(r->index_added[0].index_file.dv_ranges[0].data_file_name, last_name);

    /* a concurrent delete rewrites the bucket's vectors: replan */
    pm_compact_result *copy = NULL;
    {
        char *js = NULL;
        PM_OK_OR_FAIL(pm_compact_result_to_json(&js, r));
        PM_OK_OR_FAIL(pm_compact_result_from_json(&copy, js, strlen(js)));
        free(js);
    }
    PM_OK_OR_FAIL(pm_compact_commit(NULL, t, NULL, &r, 1));
    int64_t sum_after;
    assert_int_equal(read_rows(t, &sum_after), 57);
    assert_int_equal(sum_after, sum_before);
    s = scan_latest(t);
    bf = only_bucket(s);
    assert_int_equal(bf->nfiles, 2);
    assert_int_equal(bf->ndvs, 1);
    assert_string_equal(bf->dvs[0].data_file, last_name);
    assert_int_equal(dv_index_entries(bf), 1);
    pm_scan_result_free(s);
    /* the same result again is idempotent */
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_commit(&m, t, NULL, &copy, 1));
    assert_int_equal(m.snapshot_id, 8);
    pm_compact_result_free(copy);
    free(last_name);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unaware_dv),
        cmocka_unit_test(test_bucketed_dv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
