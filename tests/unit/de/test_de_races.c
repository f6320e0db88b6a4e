/*
 * tests/unit/de/test_de_races.c — races of data-evolution changes, made
 * deterministic: the table's file I/O is wrapped so that, when the change
 * creates its first file under a chosen path, a second handle of the same
 * table commits something else first.
 *
 *  - a DELETE prepared before a compaction and committed after it fails
 *    with "prepare again from the latest snapshot", publishes nothing and
 *    leaves no index file of its own;
 *  - a materialization whose group gets another delete meanwhile fails
 *    with a materialization conflict, publishes nothing and deletes its
 *    files; run again, it goes through;
 *  - a disjoint append committed meanwhile commits alongside the
 *    materialization (its rows keep their row IDs);
 *  - a column update of an indexed column committed between a global
 *    index round's plan and its commit makes the round replan: the index
 *    holds the new value, the stale payload is gone.
 */
#include <dirent.h>

#include "../api/api_test_util.h"
#include "io/fileio_impl.h"
#include "paimon/compact.h"
#include "paimon/index.h"
#include "paimon/rows.h"
#include "paimon/snapshot.h"
#include "table/table_internal.h"

/* ---- a fileio that runs a hook before the first matching output ---- */

typedef struct hook_fio {
    pm_fileio base; /* first */
    pm_fileio *inner;
    const char *match; /* substring of the path; NULL = disarmed */
    void (*fn)(void *);
    void *arg;
    int fired;
} hook_fio;

static pm_fileio *inner(pm_fileio *f) { return ((hook_fio *)f)->inner; }

static void h_destroy(pm_fileio *f)
{
    pm_fileio_free(inner(f));
    free(f);
}
static pm_error *h_open_input(pm_fileio *f, const char *p, pm_input **o)
{
    return inner(f)->ops->open_input(inner(f), p, o);
}
static pm_error *h_create_output(pm_fileio *f, const char *p, bool ow, pm_output **o)
{
    hook_fio *h = (hook_fio *)f;
    if (h->match && strstr(p, h->match)) {
        h->match = NULL;
        h->fired++;
        h->fn(h->arg);
    }
    return h->inner->ops->create_output(h->inner, p, ow, o);
}
static pm_error *h_publish(pm_fileio *f, const char *p, const void *d, size_t n, bool *pub)
{
    return inner(f)->ops->publish_if_absent(inner(f), p, d, n, pub);
}
static pm_error *h_overwrite(pm_fileio *f, const char *p, const void *d, size_t n)
{
    return inner(f)->ops->overwrite_atomic(inner(f), p, d, n);
}
static pm_error *h_exists(pm_fileio *f, const char *p, bool *x) { return inner(f)->ops->exists(inner(f), p, x); }
static pm_error *h_is_dir(pm_fileio *f, const char *p, bool *x) { return inner(f)->ops->is_dir(inner(f), p, x); }
static pm_error *h_size(pm_fileio *f, const char *p, uint64_t *s) { return inner(f)->ops->file_size(inner(f), p, s); }
static pm_error *h_mtime(pm_fileio *f, const char *p, int64_t *m) { return inner(f)->ops->modified_ms(inner(f), p, m); }
static pm_error *h_mkdirs(pm_fileio *f, const char *p) { return inner(f)->ops->mkdirs(inner(f), p); }
static pm_error *h_delete(pm_fileio *f, const char *p) { return inner(f)->ops->delete_file(inner(f), p); }
static pm_error *h_delete_tree(pm_fileio *f, const char *p) { return inner(f)->ops->delete_tree(inner(f), p); }
static pm_error *h_rename(pm_fileio *f, const char *a, const char *b) { return inner(f)->ops->rename(inner(f), a, b); }
static pm_error *h_rmdir(pm_fileio *f, const char *p, bool *r) { return inner(f)->ops->rmdir(inner(f), p, r); }
static pm_error *h_mkdtemp(pm_fileio *f, const char *parent, const char *prefix, char **o)
{
    return inner(f)->ops->mkdtemp(inner(f), parent, prefix, o);
}
static pm_error *h_list(pm_fileio *f, const char *d, pm_name_list *o) { return inner(f)->ops->list(inner(f), d, o); }

static const pm_fileio_ops HOOK_OPS = {"hook",   h_destroy, h_open_input, h_create_output, h_publish,
                                       h_overwrite, h_exists, h_is_dir, h_size, h_mtime, h_mkdirs, h_delete,
                                       h_delete_tree, h_rename, h_rmdir, h_mkdtemp, h_list, NULL};

/* Wrap t's file I/O; the hook runs once, before the first output whose
 * path contains `match`. */
static hook_fio *hook(pm_table *t, const char *match, void (*fn)(void *), void *arg)
{
    hook_fio *h = calloc(1, sizeof *h);
    assert_non_null(h);
    h->base.ops = &HOOK_OPS;
    h->inner = t->fio;
    h->match = match;
    h->fn = fn;
    h->arg = arg;
    t->fio = &h->base;
    return h;
}

/* ---- helpers ---- */

static const char *const OPTS[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                                   "deletion-vectors.enabled=true", "write-only=true"};

/* Two handles of a data-evolution table holding ids 0..4 (row IDs 0..4)
 * and 10..14 (row IDs 5..9), two groups. */
static void de_pair(const char *name, pm_table **t1, pm_table **t2)
{
    char *path = api_path(dir, name);
    api_create(path, "id BIGINT, v DOUBLE", NULL, NULL, OPTS, sizeof OPTS / sizeof *OPTS);
    PM_OK_OR_FAIL(pm_table_open(t1, path, NULL));
    PM_OK_OR_FAIL(pm_table_open(t2, path, NULL));
    free(path);
    api_write_json(*t1, "{\"id\":0,\"v\":0}\n{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":2}\n{\"id\":3,\"v\":3}\n{\"id\":4,\"v\":4}\n",
                   NULL);
    api_write_json(*t1, "{\"id\":10,\"v\":0}\n{\"id\":11,\"v\":1}\n{\"id\":12,\"v\":2}\n{\"id\":13,\"v\":3}\n"
                        "{\"id\":14,\"v\":4}\n", NULL);
}

static int64_t latest(pm_table *t)
{
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_table_snapshot(&s, t, 0));
    int64_t id = pm_snapshot_id(s);
    pm_snapshot_free(s);
    return id;
}

static char *row_ids(pm_table *t)
{
    pm_read_options ro = PM_READ_OPTIONS_INIT;
    const char *c[] = {"_ROW_ID", "id"};
    ro.columns = c;
    ro.ncolumns = 2;
    return api_read_table(t, &ro);
}

static size_t count_dir(pm_table *t, const char *sub)
{
    char *p = api_path(pm_table_path(t), sub);
    DIR *d = opendir(p);
    free(p);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

/* ---- the concurrent commits ---- */

static void compact_other(void *arg)
{
    pm_table *t = arg;
    const char *dyn[] = {"compaction.min.file-num=1"};
    pm_compact_options co = PM_COMPACT_OPTIONS_INIT;
    co.dynamic_options = dyn;
    co.ndynamic_options = 1;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &co));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    pm_compact_builder_free(b);
    assert_int_equal(m.files_removed, 2);
}

static void delete_other(void *arg)
{
    pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&o, arg, (const int64_t[]){1}, 1, NULL));
    assert_int_equal(o.rows, 1);
}

static void append_other(void *arg) { api_write_json(arg, "{\"id\":20,\"v\":9}\n", NULL); }

/* ---- tests ---- */

static void test_delete_prepared_before_compaction(void **state)
{
    (void)state;
    pm_table *t1, *t2;
    de_pair("db.db/stale", &t1, &t2);
    int64_t before = latest(t2);
    size_t idx = count_dir(t2, "index");
    /* the delete writes its DV index file: the compaction commits first */
    hook_fio *h = hook(t1, "/index/", compact_other, t2);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    pm_error *e = pm_table_delete_by_row_id(&out, t1, (const int64_t[]){3}, 1, NULL);
    assert_int_equal(h->fired, 1);
    pm_test_expect_error(e, PM_ECONFLICT, "prepare again from the latest snapshot");
    assert_int_equal(latest(t2), before + 1); /* the compaction's COMPACT snapshot only */
    assert_int_equal(count_dir(t2, "index"), idx); /* the delete's file is gone */
    char *rows = row_ids(t2);
    assert_non_null(strstr(rows, "{\"_ROW_ID\":3,\"id\":3}")); /* not deleted */
    assert_int_equal(api_count_lines(rows), 10);
    free(rows);
    /* prepared again from the latest snapshot, it goes through */
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t1, (const int64_t[]){3}, 1, NULL));
    rows = row_ids(t2);
    assert_null(strstr(rows, "\"id\":3}"));
    assert_int_equal(api_count_lines(rows), 9);
    free(rows);
    pm_table_free(t1);
    pm_table_free(t2);
}

static void test_materialize_conflict(void **state)
{
    (void)state;
    pm_table *t1, *t2;
    de_pair("db.db/matrace", &t1, &t2);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t1, (const int64_t[]){2}, 1, NULL));
    int64_t before = latest(t2);
    size_t files = count_dir(t2, "bucket-0");
    /* materialization writes its first new data file: another delete commits first */
    hook_fio *h = hook(t1, "/bucket-0/", delete_other, t2);
    pm_materialize_metrics m = PM_MATERIALIZE_METRICS_INIT;
    pm_error *e = pm_materialize_deletions(&m, t1, NULL);
    assert_int_equal(h->fired, 1);
    pm_test_expect_error(e, PM_ECONFLICT, "materialization conflict");
    assert_int_equal(m.batches, 0);
    assert_int_equal(latest(t2), before + 1);            /* the other delete only */
    assert_int_equal(count_dir(t2, "bucket-0"), files); /* its new file was deleted */
    /* again: both deletes are materialized */
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t1, NULL));
    assert_int_equal(m.rows_removed, 2);
    char *rows = row_ids(t2);
    assert_int_equal(api_count_lines(rows), 8);
    assert_null(strstr(rows, "\"id\":1}"));
    assert_null(strstr(rows, "\"id\":2}"));
    free(rows);
    pm_table_free(t1);
    pm_table_free(t2);
}

static void test_materialize_beside_disjoint_append(void **state)
{
    (void)state;
    pm_table *t1, *t2;
    de_pair("db.db/matappend", &t1, &t2);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t1, (const int64_t[]){2}, 1, NULL));
    hook_fio *h = hook(t1, "/bucket-0/", append_other, t2);
    pm_materialize_metrics m = PM_MATERIALIZE_METRICS_INIT;
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t1, NULL));
    assert_int_equal(h->fired, 1);
    assert_int_equal(m.batches, 1);
    assert_int_equal(m.rows_removed, 1);
    char *rows = row_ids(t2);
    assert_int_equal(api_count_lines(rows), 10);         /* 9 old rows and the appended one */
    assert_non_null(strstr(rows, "{\"_ROW_ID\":10,\"id\":20}")); /* the append committed first: row ID 10 */
    assert_non_null(strstr(rows, "{\"_ROW_ID\":5,\"id\":10}"));  /* the untouched group keeps its IDs */
    assert_null(strstr(rows, "\"id\":2}"));
    free(rows);
    pm_table_free(t1);
    pm_table_free(t2);
}

/* ---- a column update between an index round's plan and its commit ---- */

/* _ROW_ID 1 gets id 100 (a partial-column update of id). */
static void update_id_other(void *arg)
{
    pm_table *t = arg;
    pm_type *ty = pm_type_new_row(false);
    assert_non_null(ty);
    PM_OK_OR_FAIL(pm_type_add_field(ty, PM_ROW_ID_FIELD_ID, "_ROW_ID", pm_type_new(PM_TYPE_BIGINT, true)));
    PM_OK_OR_FAIL(pm_type_add_field(ty, 0, "id", pm_type_new(PM_TYPE_BIGINT, true)));
    const char *jsonl = "{\"_ROW_ID\":1,\"id\":100}\n";
    pm_mem_source src = {jsonl, strlen(jsonl), 0, 0};
    pm_rows_reader *rr = NULL;
    PM_OK_OR_FAIL(pm_rows_reader_new(&rr, PM_ROWS_JSONL, ty, pm_mem_source_read, &src, 1 << 20));
    pm_type_free(ty);
    const pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_rows_reader_next(&b, rr));
    pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_update_by_row_id(&o, t, b, NULL));
    assert_int_equal(o.rows, 1);
    pm_rows_reader_free(rr);
}

static char *where(pm_table *t, const char *filter)
{
    pm_read_options ro = PM_READ_OPTIONS_INIT;
    ro.filter = filter;
    return api_read_table(t, &ro);
}

static void test_update_between_index_plan_and_commit(void **state)
{
    (void)state;
    static const char *const gi[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                                     "write-only=true", "global-index.btree.index-columns=id"};
    char *path = api_path(dir, "db.db/gi_race");
    api_create(path, "id BIGINT, v DOUBLE", NULL, NULL, gi, sizeof gi / sizeof *gi);
    pm_table *t1, *t2;
    PM_OK_OR_FAIL(pm_table_open(&t1, path, NULL));
    PM_OK_OR_FAIL(pm_table_open(&t2, path, NULL));
    free(path);
    api_write_json(t1, "{\"id\":0,\"v\":0}\n{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":2}\n", NULL);
    /* the round writes its payload; the update commits first; the round replans */
    hook_fio *h = hook(t1, "btree-global-index-", update_id_other, t2);
    pm_index_result r = PM_INDEX_RESULT_INIT;
    PM_OK_OR_FAIL(pm_table_build_index(&r, t1, NULL));
    assert_int_equal(h->fired, 1);
    assert_int_equal(r.files_added, 1);
    assert_int_equal(r.snapshot_id, latest(t2));
    /* the index holds the updated value, not the one the first plan read */
    char *s = where(t2, "id = 100");
    assert_string_equal(s, "{\"id\":100,\"v\":1.0}\n");
    free(s);
    s = where(t2, "id = 1");
    assert_string_equal(s, "");
    free(s);
    assert_int_equal(count_dir(t2, "index"), 1); /* the first plan's payload is gone */
    pm_table_free(t1);
    pm_table_free(t2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delete_prepared_before_compaction),
        cmocka_unit_test(test_materialize_conflict),
        cmocka_unit_test(test_materialize_beside_disjoint_append),
        cmocka_unit_test(test_update_between_index_plan_and_commit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
