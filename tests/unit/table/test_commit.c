/*
 * tests/unit/table/test_commit.c — the commit protocol: snapshots and
 * their fields, manifest lists, idempotent re-commit, failures before
 * publication (nothing published, no manifests left), uncertain outcome,
 * overwrite (table and partition), conflicts, the validate hook (and the
 * caller's scan it is given instead of a new one: latest_scan), empty
 * commits, manifest merging, bucketed sequence-number restore.
 */
#include <stdlib.h>

#include "meta/manifest.h"
#include "table/scan.h"
#include "write_test_util.h"

static pm_snapshot *load(pm_table *t, int64_t id)
{
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_snapshot_store_load(t->snapshots, id, &s));
    return s;
}

static int64_t live_rows(pm_table *t, size_t *nfiles)
{
    pm_scan_result *r = NULL;
    pm_scan_options o = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &o, &r));
    int64_t rows = 0;
    *nfiles = 0;
    for (size_t i = 0; i < r->nbuckets; i++)
        for (size_t k = 0; k < r->buckets[i].nfiles; k++) {
            rows += r->buckets[i].files[k].row_count;
            (*nfiles)++;
        }
    pm_scan_result_free(r);
    return rows;
}

static size_t manifest_files(pm_table *t)
{
    char d[1024];
    snprintf(d, sizeof d, "%s/manifest", pm_table_path(t));
    return wt_count_files(d, "");
}

static void test_append_snapshots(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT, s STRING>", NULL, NULL, 0);
    int64_t id = wt_commit_rows(t, "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n", PM_COMMIT_APPEND, NULL, 0);
    assert_int_equal(id, 1);
    pm_snapshot *s = load(t, 1);
    assert_int_equal(s->version, 3);
    assert_int_equal(s->schema_id, 0);
    assert_int_equal(s->total_record_count, 2);
    assert_int_equal(s->delta_record_count, 2);
    assert_int_equal(s->commit_kind, PM_COMMIT_APPEND);
    assert_int_equal(s->commit_identifier, PM_BATCH_COMMIT_IDENTIFIER);
    assert_non_null(s->uuid);
    assert_non_null(s->commit_user);
    assert_true(s->base_manifest_list_size.has);
    assert_true(s->delta_manifest_list_size.has);
    assert_true(s->next_row_id.has);
    assert_int_equal(s->next_row_id.v, 0);
    assert_null(s->index_manifest);
    assert_null(s->changelog_manifest_list);
    assert_int_equal(s->operation, PM_SNAPSHOT_OP_NONE);
    /* base list empty, delta list = one manifest with one ADD */
    char *p = NULL;
    pm_manifest_file_meta *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(t->paths, s->base_manifest_list, &p));
    PM_OK_OR_FAIL(pm_manifest_list_read(t->fio, p, &m, &n));
    assert_int_equal(n, 0);
    free(p);
    pm_manifest_file_metas_free(m, n);
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(t->paths, s->delta_manifest_list, &p));
    PM_OK_OR_FAIL(pm_manifest_list_read(t->fio, p, &m, &n));
    assert_int_equal(n, 1);
    assert_int_equal(m[0].num_added_files, 1);
    assert_int_equal(m[0].num_deleted_files, 0);
    assert_true(m[0].min_bucket.has && m[0].min_bucket.v == 0);
    assert_true(m[0].min_level.has && m[0].max_level.v == 0);
    free(p);
    pm_manifest_file_metas_free(m, n);
    pm_snapshot_free(s);

    id = wt_commit_rows(t, "{\"id\":3}\n", PM_COMMIT_APPEND, NULL, 0);
    assert_int_equal(id, 2);
    s = load(t, 2);
    assert_int_equal(s->total_record_count, 3);
    assert_int_equal(s->delta_record_count, 1);
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(t->paths, s->base_manifest_list, &p));
    PM_OK_OR_FAIL(pm_manifest_list_read(t->fio, p, &m, &n));
    assert_int_equal(n, 1); /* snapshot 1's delta manifest */
    free(p);
    pm_manifest_file_metas_free(m, n);
    pm_snapshot_free(s);
    bool found;
    int64_t hint;
    PM_OK_OR_FAIL(pm_snapshot_store_read_hint(t->snapshots, "LATEST", &found, &hint));
    assert_true(found);
    assert_int_equal(hint, 2);
    size_t nf;
    assert_int_equal(live_rows(t, &nf), 3);
    assert_int_equal(nf, 2);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_idempotent_and_failures(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT>", NULL, NULL, 0);
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    size_t n = 0;
    pm_commit_message *msgs = wt_write(w, t, "{\"id\":1}\n{\"id\":2}\n", &n);
    pm_commit_options o = {0};
    o.commit_user = "user-a";
    o.commit_identifier = 7;
    o.kind = PM_COMMIT_APPEND;

    /* a failure before publication: no snapshot, no manifests left */
    size_t before = manifest_files(t);
    setenv("PAIMON_FAULT_INJECT", "commit-before-publish", 1);
    int64_t id = -1;
    PM_EXPECT_ERR(pm_table_commit(t, &o, msgs, n, &id), PM_EIO);
    unsetenv("PAIMON_FAULT_INJECT");
    assert_int_equal(id, 0);
    bool found;
    int64_t latest;
    PM_OK_OR_FAIL(pm_snapshot_store_latest_id(t->snapshots, &found, &latest));
    assert_false(found);
    assert_int_equal(manifest_files(t), before);

    /* uncertain outcome: published, reported uncertain; the retry is a no-op */
    setenv("PAIMON_FAULT_INJECT", "commit-after-publish", 1);
    PM_EXPECT_ERR(pm_table_commit(t, &o, msgs, n, &id), PM_EUNCERTAIN);
    unsetenv("PAIMON_FAULT_INJECT");
    PM_OK_OR_FAIL(pm_table_commit(t, &o, msgs, n, &id));
    assert_int_equal(id, 1);
    size_t after = manifest_files(t);
    PM_OK_OR_FAIL(pm_table_commit(t, &o, msgs, n, &id));
    assert_int_equal(id, 1);
    assert_int_equal(manifest_files(t), after);
    PM_OK_OR_FAIL(pm_snapshot_store_latest_id(t->snapshots, &found, &latest));
    assert_int_equal(latest, 1);
    pm_snapshot *s = load(t, 1);
    assert_string_equal(s->commit_user, "user-a");
    assert_int_equal(s->commit_identifier, 7);
    pm_snapshot_free(s);
    /* since_snapshot_id past it: searched no more, commits again */
    o.since_snapshot_id = 1;
    PM_OK_OR_FAIL(pm_table_commit(t, &o, msgs, n, &id));
    assert_int_equal(id, 2);
    pm_commit_message_array_free(msgs, n);

    /* empty commits publish nothing unless allowed */
    pm_commit_options e = {0};
    e.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    PM_OK_OR_FAIL(pm_table_commit(t, &e, NULL, 0, &id));
    assert_int_equal(id, 0);
    e.allow_empty = true;
    PM_OK_OR_FAIL(pm_table_commit(t, &e, NULL, 0, &id));
    assert_int_equal(id, 3);
    s = load(t, 3);
    assert_int_equal(s->delta_record_count, 0);
    assert_int_equal(s->total_record_count, 4);
    pm_snapshot_free(s);
    pm_table_writer_free(w);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_overwrite(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT, dt STRING>", "dt", NULL, 0);
    wt_commit_rows(t, "{\"id\":1,\"dt\":\"a\"}\n{\"id\":2,\"dt\":\"b\"}\n{\"id\":3,\"dt\":\"b\"}\n", PM_COMMIT_APPEND,
                   NULL, 0);
    wt_commit_rows(t, "{\"id\":4,\"dt\":\"b\"}\n", PM_COMMIT_APPEND, NULL, 0);
    size_t nf;
    assert_int_equal(live_rows(t, &nf), 4);

    /* overwrite partition dt=b */
    pm_partition_spec spec = {0};
    PM_OK_OR_FAIL(pm_partition_spec_parse("dt=b", &spec));
    int64_t id = wt_commit_rows(t, "{\"id\":9,\"dt\":\"b\"}\n", PM_COMMIT_OVERWRITE, &spec, 1);
    assert_int_equal(id, 3);
    pm_snapshot *s = load(t, 3);
    assert_int_equal(s->commit_kind, PM_COMMIT_OVERWRITE);
    assert_int_equal(s->delta_record_count, 1 - 3);
    assert_int_equal(s->total_record_count, 2);
    pm_snapshot_free(s);
    assert_int_equal(live_rows(t, &nf), 2);
    assert_int_equal(nf, 2);

    /* rows outside the overwritten partition are refused */
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    size_t n;
    pm_commit_message *m = wt_write(w, t, "{\"id\":5,\"dt\":\"a\"}\n", &n);
    pm_commit_options o = {0};
    o.kind = PM_COMMIT_OVERWRITE;
    o.overwrite = &spec;
    o.noverwrite = 1;
    PM_EXPECT_ERR(pm_table_commit(t, &o, m, n, &id), PM_EINVALID);
    /* the whole table */
    o.overwrite = NULL;
    o.noverwrite = 0;
    PM_OK_OR_FAIL(pm_table_commit(t, &o, m, n, &id));
    assert_int_equal(id, 4);
    assert_int_equal(live_rows(t, &nf), 1);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    pm_partition_spec_clear(&spec);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static int validate_calls;

static pm_error *reject(void *arg, const pm_snapshot *latest, const pm_scan_result *live)
{
    (void)arg;
    validate_calls++;
    if (latest && live->nbuckets == 1)
        return pm_error_new(PM_ECONFLICT, "test: rejected at snapshot %lld", (long long)latest->id);
    return NULL;
}

/* A commit message that replaces `old` by a newly written file of `rows`
 * (compact_before = a copy of old, compact_after = the new file). */
static pm_commit_message *compaction_message(pm_table_writer *w, pm_table *t, const char *rows,
                                             const pm_data_file_meta *old, size_t *n)
{
    pm_commit_message *m = wt_write(w, t, rows, n);
    m[0].compact_after = m[0].new_files;
    m[0].n_compact_after = m[0].n_new_files;
    m[0].new_files = NULL;
    m[0].n_new_files = 0;
    PM_OK_OR_FAIL(pm_data_file_meta_copy((m[0].compact_before = calloc(1, sizeof(pm_data_file_meta))), old));
    m[0].n_compact_before = 1;
    return m;
}

static void test_conflicts_and_validate(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT>", NULL, NULL, 0);
    wt_commit_rows(t, "{\"id\":1}\n", PM_COMMIT_APPEND, NULL, 0);
    pm_scan_result *r = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &r));
    assert_int_equal(r->nbuckets, 1);

    /* compacting a live file works; compacting it again is a conflict */
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    size_t n;
    pm_commit_message *m = compaction_message(w, t, "{\"id\":1}\n", &r->buckets[0].files[0], &n);
    pm_commit_options o = {0};
    o.kind = PM_COMMIT_COMPACT;
    int64_t id;
    PM_OK_OR_FAIL(pm_table_commit(t, &o, m, n, &id));
    assert_int_equal(id, 2);
    pm_snapshot *s = load(t, 2);
    assert_int_equal(s->commit_kind, PM_COMMIT_COMPACT);
    assert_int_equal(s->delta_record_count, 0);
    assert_int_equal(s->total_record_count, 1);
    pm_snapshot_free(s);
    size_t before = manifest_files(t);
    PM_EXPECT_ERR(pm_table_commit(t, &o, m, n, &id), PM_ECONFLICT);
    assert_int_equal(manifest_files(t), before);
    pm_commit_message_array_free(m, n);
    pm_scan_result_free(r);

    /* the validate hook sees the latest snapshot and can refuse */
    m = wt_write(w, t, "{\"id\":2}\n", &n);
    pm_commit_options v = {0};
    v.kind = PM_COMMIT_APPEND;
    v.validate = reject;
    validate_calls = 0;
    PM_EXPECT_ERR(pm_table_commit(t, &v, m, n, &id), PM_ECONFLICT);
    assert_int_equal(validate_calls, 1);
    assert_int_equal(manifest_files(t), before);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static const pm_scan_result *seen_live;

static pm_error *record_live(void *arg, const pm_snapshot *latest, const pm_scan_result *live)
{
    (void)arg;
    (void)latest;
    seen_live = live;
    return NULL;
}

/* One compaction-like commit of t's only file (rewritten as itself is not
 * allowed: a DELETE of it and the ADD of a newly written file), with the
 * hook recording the scan it got; returns the published snapshot id. */
static int64_t commit_with_scan(pm_table *t, const pm_scan_result *given, const pm_scan_result *of)
{
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    size_t n;
    pm_commit_message *m = compaction_message(w, t, "{\"id\":9}\n", &of->buckets[0].files[0], &n);
    pm_commit_options o = {0};
    o.kind = PM_COMMIT_COMPACT;
    o.validate = record_live;
    o.latest_scan = given;
    seen_live = NULL;
    int64_t id = 0;
    PM_OK_OR_FAIL(pm_table_commit(t, &o, m, n, &id));
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    return id;
}

static void test_latest_scan(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT>", NULL, NULL, 0);
    wt_commit_rows(t, "{\"id\":1}\n", PM_COMMIT_APPEND, NULL, 0);
    pm_scan_options so = pm_scan_options_default();
    pm_scan_result *r1 = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &r1));
    /* a scan of the latest snapshot through this handle is taken as it is */
    assert_int_equal(commit_with_scan(t, r1, r1), 2);
    assert_ptr_equal(seen_live, r1);
    /* the table moved on: r1 is not a scan of snapshot 2, which is scanned */
    pm_scan_result *r2 = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &r2));
    assert_int_equal(r2->snapshot->id, 2);
    assert_int_equal(commit_with_scan(t, r1, r2), 3);
    assert_non_null(seen_live);
    assert_ptr_not_equal(seen_live, r1);
    /* a scan of the latest snapshot made through another handle is not taken */
    pm_scan_result *r3 = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &r3));
    pm_table *t2 = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t2, pm_table_path(t), NULL));
    assert_int_equal(commit_with_scan(t2, r3, r3), 4);
    assert_non_null(seen_live);
    assert_ptr_not_equal(seen_live, r3);
    /* nor a scan with a fallback branch, even of the latest snapshot */
    pm_scan_result *r4 = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &r4));
    r4->fallback = t2; /* marks it only: unset before it is freed */
    assert_int_equal(commit_with_scan(t, r4, r4), 5);
    assert_ptr_not_equal(seen_live, r4);
    r4->fallback = NULL;
    pm_scan_result_free(r4);
    pm_scan_result_free(r3);
    pm_scan_result_free(r2);
    pm_scan_result_free(r1);
    pm_table_free(t2);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_manifest_merge(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    /* minor merge: 3 small manifests are merged into one */
    const char *o1[] = {"manifest.merge-min-count=3"};
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT>", NULL, o1, 1);
    for (int i = 0; i < 4; i++)
        wt_commit_rows(t, "{\"id\":1}\n", PM_COMMIT_APPEND, NULL, 0);
    /* snapshot 4's base = merge(base 3 + delta 3) = merge of 3 manifests → 1 */
    pm_snapshot *s = load(t, 4);
    char *p = NULL;
    pm_manifest_file_meta *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(t->paths, s->base_manifest_list, &p));
    PM_OK_OR_FAIL(pm_manifest_list_read(t->fio, p, &m, &n));
    assert_int_equal(n, 1);
    assert_int_equal(m[0].num_added_files, 3);
    free(p);
    pm_manifest_file_metas_free(m, n);
    pm_snapshot_free(s);
    size_t nf;
    assert_int_equal(live_rows(t, &nf), 4);
    pm_table_free(t);

    /* full compaction: with a tiny threshold deletes are applied away */
    const char *o2[] = {"manifest.full-compaction-threshold-size=1 b", "manifest.merge-min-count=1000"};
    t = wt_create(dir, "t2", "ROW<id BIGINT, dt STRING>", "dt", o2, 2);
    wt_commit_rows(t, "{\"id\":1,\"dt\":\"a\"}\n", PM_COMMIT_APPEND, NULL, 0);
    wt_commit_rows(t, "{\"id\":2,\"dt\":\"b\"}\n", PM_COMMIT_APPEND, NULL, 0);
    pm_partition_spec spec = {0};
    PM_OK_OR_FAIL(pm_partition_spec_parse("dt=a", &spec));
    wt_commit_rows(t, "{\"id\":3,\"dt\":\"a\"}\n", PM_COMMIT_OVERWRITE, &spec, 1);
    wt_commit_rows(t, "{\"id\":4,\"dt\":\"c\"}\n", PM_COMMIT_APPEND, NULL, 0);
    pm_partition_spec_clear(&spec);
    s = load(t, 4);
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(t->paths, s->base_manifest_list, &p));
    PM_OK_OR_FAIL(pm_manifest_list_read(t->fio, p, &m, &n));
    int64_t adds = 0, dels = 0;
    for (size_t i = 0; i < n; i++) {
        adds += m[i].num_added_files;
        dels += m[i].num_deleted_files;
    }
    assert_int_equal(dels, 0);
    assert_int_equal(adds, 2); /* dt=a (id 3) and dt=b */
    free(p);
    pm_manifest_file_metas_free(m, n);
    pm_snapshot_free(s);
    assert_int_equal(live_rows(t, &nf), 3);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_bucketed_restore(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=2", "bucket-key=id"};
    pm_table *t = wt_create(dir, "t", "ROW<id BIGINT>", NULL, opts, 2);
    wt_commit_rows(t, "{\"id\":1}\n{\"id\":1}\n{\"id\":1}\n", PM_COMMIT_APPEND, NULL, 0);
    /* a new writer continues after the bucket's max sequence number */
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    size_t n;
    pm_commit_message *m = wt_write(w, t, "{\"id\":1}\n", &n);
    assert_int_equal(n, 1);
    assert_int_equal(m[0].new_files[0].min_sequence_number, 3);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    /* ignoring previous files (overwrite) starts at 0 */
    pm_table_write_options wo = {0, true, 1, NULL};
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, &wo));
    m = wt_write(w, t, "{\"id\":1}\n", &n);
    assert_int_equal(m[0].new_files[0].min_sequence_number, 0);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_snapshots),
        cmocka_unit_test(test_idempotent_and_failures),
        cmocka_unit_test(test_overwrite),
        cmocka_unit_test(test_conflicts_and_validate),
        cmocka_unit_test(test_latest_scan),
        cmocka_unit_test(test_manifest_merge),
        cmocka_unit_test(test_bucketed_restore),
    };
    return cmocka_run_group_tests_name("table_commit", tests, NULL, NULL);
}
