/*
 * tests/unit/api/test_api_row_id.c — the data-evolution functions of the
 * public API through include/paimon/ only: pm_table_update_by_row_id and
 * pm_table_delete_by_row_id (values, kept row IDs, outcomes, idempotency,
 * every refusal before anything is written), pm_table_delete_where (the
 * rows of a filter, already deleted rows, no match, refusals),
 * pm_materialize_deletions (metrics, batches and their progress reports,
 * partitions, a `where` partition predicate, version 1 options,
 * refusals),
 * their init functions, the automatic compaction round after writes and
 * updates of data-evolution tables (write-only=false), a compaction
 * commit whose deletion-vector rebase fails after writing its index file
 * (the file is deleted, nothing is published), and the compaction of a
 * row-tracking table without data evolution (row IDs kept physically).
 */
#include <dirent.h>

#include "api_test_util.h"
#include "paimon/compact.h"
#include "paimon/files.h"
#include "paimon/snapshot.h"

#define ROW_ID_FIELD_ID 2147483642

static const char *const DE_OPTS[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                                      "deletion-vectors.enabled=true", "write-only=true"};
#define NDE_OPTS (sizeof DE_OPTS / sizeof *DE_OPTS)

static pm_table *open_table(const char *path)
{
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    return t;
}

/* A data-evolution table "id BIGINT, name STRING, v DOUBLE" holding rows
 * 0..4 (row IDs 0..4) and 10..14 (row IDs 5..9), in two commits. */
static pm_table *de_table(const char *name, const char *const *extra, size_t nextra)
{
    char *path = api_path(dir, name);
    const char *opts[16];
    size_t n = 0;
    for (size_t i = 0; i < NDE_OPTS; i++)
        opts[n++] = DE_OPTS[i];
    for (size_t i = 0; i < nextra; i++)
        opts[n++] = extra[i];
    api_create(path, "id BIGINT, name STRING, v DOUBLE", NULL, NULL, opts, n);
    pm_table *t = open_table(path);
    free(path);
    for (int k = 0; k < 2; k++) {
        char rows[512];
        size_t len = 0;
        for (int i = 0; i < 5; i++)
            len += (size_t)snprintf(rows + len, sizeof rows - len, "{\"id\":%d,\"name\":\"n%d\",\"v\":%d.5}\n",
                                    10 * k + i, 10 * k + i, i);
        api_write_json(t, rows, NULL);
    }
    return t;
}

/* Rows of the latest snapshot with their row IDs. */
static char *read_rows(pm_table *t, const char *cols)
{
    const char *c[8];
    size_t n = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", cols);
    for (char *s = strtok(buf, ","); s && n < 8; s = strtok(NULL, ","))
        c[n++] = s;
    pm_read_options ro;
    pm_read_options_init(&ro);
    ro.columns = c;
    ro.ncolumns = n;
    return api_read_table(t, &ro);
}

/* An update batch ROW<_ROW_ID BIGINT, cols...> from JSON lines (the
 * reader owns the batch). */
static pm_rows_reader *update_rows(pm_table *t, const char *cols, const char *jsonl, const pm_batch **b)
{
    const pm_type *row = pm_schema_row_type(pm_table_schema(t));
    pm_type *ty = pm_type_new_row(false);
    assert_non_null(ty);
    PM_OK_OR_FAIL(pm_type_add_field(ty, ROW_ID_FIELD_ID, "_ROW_ID", pm_type_new(PM_TYPE_BIGINT, true)));
    char buf[128];
    snprintf(buf, sizeof buf, "%s", cols);
    for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
        ptrdiff_t k = pm_type_field_index(row, s);
        if (k >= 0) {
            PM_OK_OR_FAIL(pm_type_add_field(ty, row->fields[k].id, s, pm_type_clone(row->fields[k].type)));
        } else { /* a column the table does not have */
            PM_OK_OR_FAIL(pm_type_add_field(ty, 999, s, pm_type_new(PM_TYPE_VARCHAR, true)));
        }
    }
    static pm_mem_source src;
    src = (pm_mem_source){jsonl, strlen(jsonl), 0, 0};
    pm_rows_reader *rr = NULL;
    PM_OK_OR_FAIL(pm_rows_reader_new(&rr, PM_ROWS_JSONL, ty, pm_mem_source_read, &src, 1 << 20));
    pm_type_free(ty);
    PM_OK_OR_FAIL(pm_rows_reader_next(b, rr));
    assert_non_null(*b);
    return rr;
}

static int64_t snapshot_count(pm_table *t)
{
    int64_t *ids = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_snapshot_ids(&ids, &n, t));
    free(ids);
    return (int64_t)n;
}

/* Entries of a directory (not . and ..); 0 when it does not exist. */
static size_t count_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static size_t count_sub(pm_table *t, const char *sub)
{
    char *p = api_path(pm_table_path(t), sub);
    size_t n = count_dir(p);
    free(p);
    return n;
}

static size_t file_count(pm_table *t)
{
    pm_file_list *l = NULL;
    PM_OK_OR_FAIL(pm_table_files(&l, t, NULL));
    size_t n = pm_file_list_count(l);
    pm_file_list_free(l);
    return n;
}

/* Exactly one live file has a deletion vector, in `partition`. */
static void assert_one_dv_in(pm_table *t, const char *partition)
{
    pm_file_list *l = NULL;
    PM_OK_OR_FAIL(pm_table_files(&l, t, NULL));
    size_t with_dv = 0;
    for (size_t i = 0; i < pm_file_list_count(l); i++) {
        const pm_file_info *f = pm_file_list_get(l, i);
        if (f->has_deletion_vector) {
            assert_string_equal(f->partition, partition);
            with_dv++;
        }
    }
    assert_int_equal(with_dv, 1);
    pm_file_list_free(l);
}

/* ------------------------------------------------------------------ */

static void test_init_functions(void **state)
{
    (void)state;
    pm_materialize_options o;
    memset(&o, 0x5a, sizeof o);
    pm_materialize_options_init(&o);
    assert_int_equal(o.version, PM_MATERIALIZE_OPTIONS_VERSION);
    assert_null(o.partitions);
    assert_int_equal(o.npartitions, 0);
    assert_int_equal(o.batch_vectors, 0);
    assert_null(o.commit_user);
    assert_null(o.progress);
    assert_null(o.progress_ctx);
    pm_materialize_metrics m;
    memset(&m, 0x5a, sizeof m);
    pm_materialize_metrics_init(&m);
    assert_int_equal(m.version, PM_MATERIALIZE_METRICS_VERSION);
    assert_int_equal(m.batches, 0);
    assert_int_equal(m.groups, 0);
    assert_int_equal(m.rows_removed, 0);
    assert_int_equal(m.rows_kept, 0);
    assert_int_equal(m.last_snapshot_id, 0);
    pm_commit_outcome c;
    memset(&c, 0x5a, sizeof c);
    pm_commit_outcome_init(&c);
    assert_int_equal(c.version, PM_COMMIT_OUTCOME_VERSION);
    assert_int_equal(c.snapshot_id, 0);
    assert_false(c.already_committed);
    assert_null(c.compaction_error);
}

static void test_update_by_row_id(void **state)
{
    (void)state;
    pm_table *t = de_table("db.db/upd", NULL, 0);
    const pm_batch *b = NULL;
    pm_rows_reader *rr =
        update_rows(t, "v,name", "{\"_ROW_ID\":1,\"v\":100.0,\"name\":\"x\"}\n{\"_ROW_ID\":6,\"v\":600.0,\"name\":null}\n",
                    &b);
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = "upd-user";
    wo.commit_identifier = 7;
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_update_by_row_id(&out, t, b, &wo));
    assert_int_equal(out.snapshot_id, 3);
    assert_false(out.already_committed);
    assert_int_equal(out.rows, 2);
    assert_int_equal(out.files, 2); /* one full-range file per touched group */
    assert_int_equal(out.compaction.snapshot_id, 0); /* write-only */
    assert_null(out.compaction_error);
    char *text = read_rows(t, "_ROW_ID,id,name,v");
    assert_string_equal(text, "{\"_ROW_ID\":0,\"id\":0,\"name\":\"n0\",\"v\":0.5}\n"
                              "{\"_ROW_ID\":1,\"id\":1,\"name\":\"x\",\"v\":100.0}\n"
                              "{\"_ROW_ID\":2,\"id\":2,\"name\":\"n2\",\"v\":2.5}\n"
                              "{\"_ROW_ID\":3,\"id\":3,\"name\":\"n3\",\"v\":3.5}\n"
                              "{\"_ROW_ID\":4,\"id\":4,\"name\":\"n4\",\"v\":4.5}\n"
                              "{\"_ROW_ID\":5,\"id\":10,\"name\":\"n10\",\"v\":0.5}\n"
                              "{\"_ROW_ID\":6,\"id\":11,\"name\":null,\"v\":600.0}\n"
                              "{\"_ROW_ID\":7,\"id\":12,\"name\":\"n12\",\"v\":2.5}\n"
                              "{\"_ROW_ID\":8,\"id\":13,\"name\":\"n13\",\"v\":3.5}\n"
                              "{\"_ROW_ID\":9,\"id\":14,\"name\":\"n14\",\"v\":4.5}\n");
    free(text);
    size_t files = count_sub(t, "bucket-0");
    /* the same user and identifier again: already committed, nothing new */
    pm_commit_outcome again = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_update_by_row_id(&again, t, b, &wo));
    assert_true(again.already_committed);
    assert_int_equal(again.snapshot_id, 3);
    assert_int_equal(snapshot_count(t), 3);
    assert_int_equal(count_sub(t, "bucket-0"), files);
    /* no user: a new update of one group; nextRowId is unchanged */
    pm_rows_reader_free(rr);
    rr = update_rows(t, "v", "{\"_ROW_ID\":9,\"v\":-9.0}\n", &b);
    PM_OK_OR_FAIL(pm_table_update_by_row_id(&out, t, b, NULL));
    assert_int_equal(out.snapshot_id, 4);
    assert_int_equal(out.files, 1);
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_table_snapshot(&s, t, 0));
    int64_t next = 0;
    assert_true(pm_snapshot_next_row_id(s, &next));
    assert_int_equal(next, 10);
    pm_snapshot_free(s);
    text = read_rows(t, "_ROW_ID,v");
    assert_non_null(strstr(text, "{\"_ROW_ID\":9,\"v\":-9.0}\n"));
    assert_non_null(strstr(text, "{\"_ROW_ID\":6,\"v\":600.0}\n"));
    free(text);
    pm_rows_reader_free(rr);
    pm_table_free(t);
}

/* Each refusal is PM_EINVALID (or as given) and changes nothing on disk. */
static void expect_update_refused(pm_table *t, const char *cols, const char *jsonl, const pm_write_options *o,
                                  pm_code code, const char *needle)
{
    int64_t snaps = snapshot_count(t);
    size_t files = count_sub(t, "bucket-0");
    const pm_batch *b = NULL;
    pm_rows_reader *rr = update_rows(t, cols, jsonl, &b);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    pm_test_expect_error(pm_table_update_by_row_id(&out, t, b, o), code, needle);
    pm_rows_reader_free(rr);
    assert_int_equal(snapshot_count(t), snaps);
    assert_int_equal(count_sub(t, "bucket-0"), files);
}

static void test_update_refusals(void **state)
{
    (void)state;
    pm_table *t = de_table("db.db/updbad", NULL, 0);
    expect_update_refused(t, "v", "{\"_ROW_ID\":99,\"v\":1.0}\n", NULL, PM_EINVALID, "is not a row of table");
    expect_update_refused(t, "v", "{\"_ROW_ID\":null,\"v\":1.0}\n", NULL, PM_EINVALID, "null _ROW_ID");
    expect_update_refused(t, "v", "{\"_ROW_ID\":2,\"v\":1.0}\n{\"_ROW_ID\":2,\"v\":2.0}\n", NULL, PM_EINVALID,
                          "appears twice");
    expect_update_refused(t, "nosuch", "{\"_ROW_ID\":2,\"nosuch\":\"a\"}\n", NULL, PM_EINVALID,
                          "is not a field of table");
    expect_update_refused(t, "", "{\"_ROW_ID\":2}\n", NULL, PM_EINVALID, "at least one column besides _ROW_ID");
    pm_write_options ow = PM_WRITE_OPTIONS_INIT;
    ow.overwrite = true;
    expect_update_refused(t, "v", "{\"_ROW_ID\":2,\"v\":1.0}\n", &ow, PM_EINVALID, "cannot overwrite");
    pm_write_options bad = PM_WRITE_OPTIONS_INIT;
    bad.version = 99;
    expect_update_refused(t, "v", "{\"_ROW_ID\":2,\"v\":1.0}\n", &bad, PM_EINVALID, "");

    /* rows without _ROW_ID, a column of the wrong type */
    pm_type *ty = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&ty, "ROW<v DOUBLE>"));
    pm_batch *nb = NULL;
    PM_OK_OR_FAIL(pm_batch_new(&nb, ty));
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    pm_test_expect_error(pm_table_update_by_row_id(&out, t, nb, NULL), PM_EINVALID, "need a _ROW_ID column");
    pm_batch_free(nb);
    pm_type_free(ty);
    PM_OK_OR_FAIL(pm_type_parse(&ty, "ROW<_ROW_ID BIGINT, v STRING>"));
    PM_OK_OR_FAIL(pm_batch_new(&nb, ty));
    pm_test_expect_error(pm_table_update_by_row_id(&out, t, nb, NULL), PM_EINVALID, "has type VARCHAR");
    pm_batch_free(nb);
    pm_type_free(ty);
    /* no rows, an outcome not initialized */
    pm_test_expect_error(pm_table_update_by_row_id(&out, t, NULL, NULL), PM_EINVALID, "no rows");
    pm_commit_outcome raw;
    memset(&raw, 0, sizeof raw);
    PM_EXPECT_ERR(pm_table_update_by_row_id(&raw, t, NULL, NULL), PM_EINVALID);
    PM_EXPECT_ERR(pm_table_update_by_row_id(NULL, t, NULL, NULL), PM_EINVALID);
    assert_int_equal(snapshot_count(t), 2);
    pm_table_free(t);

    /* a partition column, a table without data evolution */
    char *path = api_path(dir, "db.db/updpart");
    const char *popts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                           "write-only=true"};
    api_create(path, "id BIGINT, v DOUBLE, dt STRING", "dt", NULL, popts, 4);
    t = open_table(path);
    api_write_json(t, "{\"id\":1,\"v\":1.0,\"dt\":\"a\"}\n", NULL);
    expect_update_refused(t, "dt", "{\"_ROW_ID\":0,\"dt\":\"b\"}\n", NULL, PM_EINVALID, "partition column 'dt'");
    pm_table_free(t);
    free(path);
    path = api_path(dir, "db.db/plain");
    const char *plain[] = {"bucket=-1", "write-only=true"};
    api_create(path, "id BIGINT, v DOUBLE", NULL, NULL, plain, 2);
    t = open_table(path);
    api_write_json(t, "{\"id\":1,\"v\":1.0}\n", NULL);
    expect_update_refused(t, "v", "{\"_ROW_ID\":0,\"v\":2.0}\n", NULL, PM_EINVALID, "data-evolution.enabled=true");
    pm_test_expect_error(pm_table_delete_by_row_id(&out, t, (const int64_t[]){0}, 1, NULL), PM_EINVALID,
                         "deletion-vectors.enabled=true");
    pm_table_free(t);
    free(path);
}

static void test_delete_by_row_id(void **state)
{
    (void)state;
    pm_table *t = de_table("db.db/del", NULL, 0);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    const int64_t ids[] = {2, 7, 7};
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t, ids, 3, NULL));
    assert_int_equal(out.snapshot_id, 3);
    assert_int_equal(out.rows, 2);  /* 7 twice is one delete */
    assert_int_equal(out.files, 1); /* one DV index file for the bucket */
    assert_int_equal(out.compaction.snapshot_id, 0);
    char *text = read_rows(t, "_ROW_ID");
    assert_string_equal(text, "{\"_ROW_ID\":0}\n{\"_ROW_ID\":1}\n{\"_ROW_ID\":3}\n{\"_ROW_ID\":4}\n"
                              "{\"_ROW_ID\":5}\n{\"_ROW_ID\":6}\n{\"_ROW_ID\":8}\n{\"_ROW_ID\":9}\n");
    free(text);
    /* already deleted: nothing to commit */
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t, (const int64_t[]){2}, 1, NULL));
    assert_int_equal(out.snapshot_id, 0);
    assert_int_equal(out.rows, 0);
    /* idempotent by user and identifier */
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = "del-user";
    wo.commit_identifier = 1;
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t, (const int64_t[]){0}, 1, &wo));
    assert_int_equal(out.snapshot_id, 4);
    size_t idx = count_sub(t, "index");
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t, (const int64_t[]){1}, 1, &wo));
    assert_true(out.already_committed);
    assert_int_equal(out.snapshot_id, 4);
    assert_int_equal(count_sub(t, "index"), idx); /* the prepared file was deleted */
    text = read_rows(t, "_ROW_ID");
    assert_int_equal(api_count_lines(text), 7); /* 1 is still there */
    assert_non_null(strstr(text, "{\"_ROW_ID\":1}\n"));
    free(text);
    /* refusals: nothing written */
    int64_t snaps = snapshot_count(t);
    pm_test_expect_error(pm_table_delete_by_row_id(&out, t, (const int64_t[]){3, 10}, 2, NULL), PM_EINVALID,
                         "_ROW_ID 10 is not a row of table");
    pm_test_expect_error(pm_table_delete_by_row_id(&out, t, NULL, 2, NULL), PM_EINVALID, "no row IDs");
    pm_write_options ow = PM_WRITE_OPTIONS_INIT;
    ow.overwrite = true;
    pm_test_expect_error(pm_table_delete_by_row_id(&out, t, (const int64_t[]){3}, 1, &ow), PM_EINVALID,
                         "cannot overwrite");
    pm_commit_outcome raw;
    memset(&raw, 0, sizeof raw);
    PM_EXPECT_ERR(pm_table_delete_by_row_id(&raw, t, (const int64_t[]){3}, 1, NULL), PM_EINVALID);
    assert_int_equal(snapshot_count(t), snaps);
    assert_int_equal(count_sub(t, "index"), idx);
    /* no row IDs at all: nothing to commit */
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t, NULL, 0, NULL));
    assert_int_equal(out.snapshot_id, 0);
    pm_table_free(t);
}

static void test_delete_where(void **state)
{
    (void)state;
    pm_table *t = de_table("db.db/delwhere", NULL, 0);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    /* ids 10..14 have row IDs 5..9: 12 and 14 go */
    PM_OK_OR_FAIL(pm_table_delete_where(&out, t, "id >= 12 AND name <> 'n13'", NULL));
    assert_int_equal(out.snapshot_id, 3);
    assert_int_equal(out.rows, 2);
    assert_int_equal(out.files, 1);
    char *text = read_rows(t, "_ROW_ID,id");
    assert_null(strstr(text, "\"id\":12}"));
    assert_null(strstr(text, "\"id\":14}"));
    assert_non_null(strstr(text, "{\"_ROW_ID\":8,\"id\":13}"));
    assert_int_equal(api_count_lines(text), 8);
    free(text);
    /* rows already deleted do not match again; nothing matching: no commit */
    PM_OK_OR_FAIL(pm_table_delete_where(&out, t, "id IN (12, 14)", NULL));
    assert_int_equal(out.snapshot_id, 0);
    assert_int_equal(out.rows, 0);
    PM_OK_OR_FAIL(pm_table_delete_where(&out, t, "v > 100", NULL));
    assert_int_equal(out.snapshot_id, 0);
    /* the same rows as delete by row ID: the vector of the anchor */
    PM_OK_OR_FAIL(pm_table_delete_where(&out, t, "v = 0.5", NULL)); /* ids 0 and 10 */
    assert_int_equal(out.rows, 2);
    text = read_rows(t, "id");
    assert_int_equal(api_count_lines(text), 6);
    assert_null(strstr(text, "\"id\":0}"));
    assert_null(strstr(text, "\"id\":10}"));
    free(text);
    /* idempotent by user and identifier */
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = "dw-user";
    wo.commit_identifier = 7;
    PM_OK_OR_FAIL(pm_table_delete_where(&out, t, "id = 1", &wo));
    int64_t sid = out.snapshot_id;
    assert_true(sid > 0);
    PM_OK_OR_FAIL(pm_table_delete_where(&out, t, "id = 2", &wo));
    assert_true(out.already_committed);
    assert_int_equal(out.snapshot_id, sid);
    /* refusals: nothing written */
    int64_t snaps = snapshot_count(t);
    size_t idx = count_sub(t, "index");
    pm_test_expect_error(pm_table_delete_where(&out, t, "nope = 1", NULL), PM_EINVALID, "no column 'nope'");
    pm_test_expect_error(pm_table_delete_where(&out, t, "id = 1 OR id = 2", NULL), PM_EINVALID, "OR");
    pm_test_expect_error(pm_table_delete_where(&out, t, "_ROW_ID = 3", NULL), PM_EINVALID, "no column");
    pm_test_expect_error(pm_table_delete_where(&out, t, NULL, NULL), PM_EINVALID, "no filter");
    pm_commit_outcome raw;
    memset(&raw, 0, sizeof raw);
    PM_EXPECT_ERR(pm_table_delete_where(&raw, t, "id = 3", NULL), PM_EINVALID);
    assert_int_equal(snapshot_count(t), snaps);
    assert_int_equal(count_sub(t, "index"), idx);
    pm_table_free(t);
    /* no deletion vectors: refused */
    char *path = api_path(dir, "db.db/delwherenodv");
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true"};
    api_create(path, "id BIGINT", NULL, NULL, opts, 3);
    t = open_table(path);
    api_write_json(t, "{\"id\":1}\n", NULL);
    pm_test_expect_error(pm_table_delete_where(&out, t, "id = 1", NULL), PM_EINVALID,
                         "deletion-vectors.enabled=true");
    pm_table_free(t);
    free(path);
}

typedef struct progress_log {
    int64_t calls, last_batch, groups, removed, last_snapshot;
} progress_log;

static void on_progress(void *ctx, int64_t batch, int64_t groups, int64_t rows_removed, int64_t snapshot_id)
{
    progress_log *l = ctx;
    l->calls++;
    assert_int_equal(batch, l->last_batch + 1);
    l->last_batch = batch;
    l->groups += groups;
    l->removed += rows_removed;
    assert_true(snapshot_id > l->last_snapshot);
    l->last_snapshot = snapshot_id;
}

static void test_materialize(void **state)
{
    (void)state;
    pm_table *t = de_table("db.db/mat", NULL, 0);
    pm_materialize_metrics m = PM_MATERIALIZE_METRICS_INIT;
    /* no logical deletes: nothing to materialize */
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, NULL));
    assert_int_equal(m.batches, 0);
    assert_int_equal(m.last_snapshot_id, 0);
    assert_int_equal(snapshot_count(t), 2);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t, (const int64_t[]){2, 7, 8}, 3, NULL));
    char *before = read_rows(t, "id,name,v");
    /* one vector per batch: two batches, each reported */
    pm_materialize_options o;
    pm_materialize_options_init(&o);
    o.batch_vectors = 1;
    o.commit_user = "mat-user";
    progress_log log = {0};
    o.progress = on_progress;
    o.progress_ctx = &log;
    pm_materialize_metrics_init(&m);
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, &o));
    assert_int_equal(m.batches, 2);
    assert_int_equal(m.groups, 2);
    assert_int_equal(m.rows_removed, 3);
    assert_int_equal(m.rows_kept, 7);
    assert_int_equal(m.last_snapshot_id, 5);
    assert_int_equal(log.calls, 2);
    assert_int_equal(log.groups, 2);
    assert_int_equal(log.removed, 3);
    assert_int_equal(log.last_snapshot, 5);
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_table_snapshot(&s, t, 0));
    assert_string_equal(pm_snapshot_commit_kind(s), "COMPACT");
    assert_string_equal(pm_snapshot_commit_user(s), "mat-user");
    int64_t next = 0;
    assert_true(pm_snapshot_next_row_id(s, &next));
    assert_int_equal(next, 17); /* 10 + the 7 survivors */
    pm_snapshot_free(s);
    char *after = read_rows(t, "id,name,v");
    assert_string_equal(after, before); /* values kept, in the order of the new row IDs */
    free(after);
    free(before);
    char *ids = read_rows(t, "_ROW_ID");
    assert_string_equal(ids, "{\"_ROW_ID\":10}\n{\"_ROW_ID\":11}\n{\"_ROW_ID\":12}\n{\"_ROW_ID\":13}\n"
                             "{\"_ROW_ID\":14}\n{\"_ROW_ID\":15}\n{\"_ROW_ID\":16}\n");
    free(ids);
    /* no vector left on any file */
    pm_file_list *l = NULL;
    PM_OK_OR_FAIL(pm_table_files(&l, t, NULL));
    for (size_t i = 0; i < pm_file_list_count(l); i++)
        assert_false(pm_file_list_get(l, i)->has_deletion_vector);
    pm_file_list_free(l);
    pm_materialize_metrics_init(&m);
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, NULL));
    assert_int_equal(m.batches, 0);
    /* refusals */
    pm_materialize_metrics raw;
    memset(&raw, 0, sizeof raw);
    PM_EXPECT_ERR(pm_materialize_deletions(&raw, t, NULL), PM_EINVALID);
    PM_EXPECT_ERR(pm_materialize_deletions(NULL, t, NULL), PM_EINVALID);
    pm_materialize_options bad;
    pm_materialize_options_init(&bad);
    bad.version = 77;
    pm_test_expect_error(pm_materialize_deletions(&m, t, &bad), PM_EINVALID, "version 77");
    pm_table_free(t);

    const char *nodv[] = {"deletion-vectors.enabled=false"};
    char *path = api_path(dir, "db.db/matnodv");
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true"};
    api_create(path, "id BIGINT", NULL, NULL, opts, 3);
    (void)nodv;
    t = open_table(path);
    pm_test_expect_error(pm_materialize_deletions(&m, t, NULL), PM_EINVALID, "deletion-vectors.enabled=true");
    pm_table_free(t);
    free(path);
    path = api_path(dir, "db.db/matplain");
    const char *plain[] = {"bucket=-1", "deletion-vectors.enabled=true"};
    api_create(path, "id BIGINT", NULL, NULL, plain, 2);
    t = open_table(path);
    pm_test_expect_error(pm_materialize_deletions(&m, t, NULL), PM_EINVALID, "data-evolution.enabled=true");
    pm_table_free(t);
    free(path);
}

static void test_materialize_partitions(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/matpart");
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                          "deletion-vectors.enabled=true", "write-only=true"};
    api_create(path, "id BIGINT, dt STRING", "dt", NULL, opts, 5);
    pm_table *t = open_table(path);
    free(path);
    api_write_json(t, "{\"id\":1,\"dt\":\"a\"}\n{\"id\":2,\"dt\":\"a\"}\n{\"id\":3,\"dt\":\"b\"}\n{\"id\":4,\"dt\":\"b\"}\n",
                   NULL);
    char *ids = read_rows(t, "_ROW_ID,id");
    /* the row IDs of the two partitions' files: delete id 1 and id 3 */
    int64_t del[2];
    size_t nd = 0;
    for (char *p = ids; (p = strstr(p, "\"_ROW_ID\":"));) {
        long long rid = strtoll(p + 10, &p, 10);
        long long id = strtoll(strstr(p, "\"id\":") + 5, &p, 10);
        if (id == 1 || id == 3)
            del[nd++] = rid;
    }
    free(ids);
    assert_int_equal(nd, 2);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t, del, 2, NULL));
    const char *only[] = {"dt=a"};
    pm_materialize_options o = PM_MATERIALIZE_OPTIONS_INIT;
    o.partitions = only;
    o.npartitions = 1;
    pm_materialize_metrics m = PM_MATERIALIZE_METRICS_INIT;
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, &o));
    assert_int_equal(m.batches, 1);
    assert_int_equal(m.groups, 1);
    assert_int_equal(m.rows_removed, 1);
    assert_int_equal(m.rows_kept, 1);
    assert_one_dv_in(t, "dt=b");
    char *rows = read_rows(t, "id");
    assert_int_equal(api_count_lines(rows), 2);
    assert_null(strstr(rows, "\"id\":1}"));
    assert_null(strstr(rows, "\"id\":3}"));
    free(rows);
    const char *badspec[] = {"nokey"};
    o.partitions = badspec;
    PM_EXPECT_ERR(pm_materialize_deletions(&m, t, &o), PM_EINVALID);
    pm_table_free(t);
}

/* --where of materialization: a predicate on partition keys. */
static void test_materialize_where(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/matwhere");
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                          "deletion-vectors.enabled=true", "write-only=true"};
    api_create(path, "id BIGINT, dt INT", "dt", NULL, opts, 5);
    pm_table *t = open_table(path);
    free(path);
    api_write_json(t, "{\"id\":1,\"dt\":20260731}\n{\"id\":2,\"dt\":20260731}\n"
                      "{\"id\":3,\"dt\":20260801}\n{\"id\":4,\"dt\":20260801}\n"
                      "{\"id\":5,\"dt\":20260812}\n{\"id\":6,\"dt\":20260812}\n", NULL);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_delete_where(&out, t, "id IN (1, 3, 5)", NULL));
    assert_int_equal(out.rows, 3);
    pm_materialize_metrics m = PM_MATERIALIZE_METRICS_INIT;
    pm_materialize_options o = PM_MATERIALIZE_OPTIONS_INIT;
    /* refusals first: nothing written */
    int64_t snaps = snapshot_count(t);
    o.where = "id >= 1";
    pm_test_expect_error(pm_materialize_deletions(&m, t, &o), PM_EINVALID, "'id' is not a partition key");
    o.where = "dt >=";
    PM_EXPECT_ERR(pm_materialize_deletions(&m, t, &o), PM_EINVALID);
    const char *only[] = {"dt=20260812"};
    o.where = "dt >= 20260801";
    o.partitions = only;
    o.npartitions = 1;
    pm_test_expect_error(pm_materialize_deletions(&m, t, &o), PM_EINVALID, "exclusive");
    assert_int_equal(snapshot_count(t), snaps);
    /* a version 1 struct has no where: every partition */
    pm_materialize_options v1 = PM_MATERIALIZE_OPTIONS_INIT;
    v1.version = 1;
    v1.where = "not looked at";
    v1.partitions = only;
    v1.npartitions = 1;
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, &v1));
    assert_int_equal(m.groups, 1); /* dt=20260812 only */
    /* dt >= 20260801: the 0801 partition (0812 has nothing left) */
    o.partitions = NULL;
    o.npartitions = 0;
    o.where = "dt >= 20260801";
    pm_materialize_metrics_init(&m);
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, &o));
    assert_int_equal(m.batches, 1);
    assert_int_equal(m.groups, 1);
    assert_int_equal(m.rows_removed, 1);
    assert_int_equal(m.rows_kept, 1);
    assert_one_dv_in(t, "dt=20260731");
    /* nothing left there; a predicate matching no partition: nothing */
    pm_materialize_metrics_init(&m);
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, &o));
    assert_int_equal(m.batches, 0);
    o.where = "dt > 20260731 AND dt < 20260731";
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, &o));
    assert_int_equal(m.batches, 0);
    o.where = "dt <> 20260801";
    PM_OK_OR_FAIL(pm_materialize_deletions(&m, t, &o));
    assert_int_equal(m.groups, 1); /* 20260731 */
    char *rows = read_rows(t, "id");
    assert_int_equal(api_count_lines(rows), 3);
    assert_non_null(strstr(rows, "{\"id\":2}\n"));
    assert_non_null(strstr(rows, "{\"id\":4}\n"));
    assert_non_null(strstr(rows, "{\"id\":6}\n"));
    free(rows);
    pm_table_free(t);
}

/* write-only=false: the automatic round follows writes and updates of a
 * data-evolution table; row IDs, values and deletions survive it. */
static void test_automatic_rounds(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/auto");
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "data-evolution.enabled=true",
                          "deletion-vectors.enabled=true", "compaction.min.file-num=3"};
    api_create(path, "id BIGINT, name STRING, v DOUBLE", NULL, NULL, opts, 5);
    pm_table *t = open_table(path);
    free(path);
    pm_commit_outcome out = api_write_json(t, "{\"id\":1,\"name\":\"a\",\"v\":1.0}\n", NULL);
    assert_int_equal(out.compaction.snapshot_id, 0);
    out = api_write_json(t, "{\"id\":2,\"name\":\"b\",\"v\":2.0}\n", NULL);
    assert_int_equal(out.compaction.snapshot_id, 0); /* two files: below min.file-num */
    pm_commit_outcome d = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&d, t, (const int64_t[]){0}, 1, NULL));
    assert_int_equal(d.compaction.snapshot_id, 0); /* deletes add no files: no round */
    out = api_write_json(t, "{\"id\":3,\"name\":\"c\",\"v\":3.0}\n", NULL);
    assert_int_equal(out.snapshot_id, 4);
    assert_int_equal(out.compaction.snapshot_id, 5);
    assert_int_equal(out.compaction.files_removed, 3);
    assert_int_equal(out.compaction.files_added, 1);
    assert_int_equal(out.compaction.rows_written, 3); /* the deleted slot stays */
    assert_int_equal(file_count(t), 1);
    char *text = read_rows(t, "_ROW_ID,id,v");
    assert_string_equal(text, "{\"_ROW_ID\":1,\"id\":2,\"v\":2.0}\n{\"_ROW_ID\":2,\"id\":3,\"v\":3.0}\n");
    free(text);
    /* updates: each adds a version of the group; the third normal file
     * of the group triggers the round */
    for (int k = 0; k < 2; k++) {
        const pm_batch *b = NULL;
        char js[64];
        snprintf(js, sizeof js, "{\"_ROW_ID\":%d,\"v\":%d.25}\n", 1 + k, 10 + k);
        pm_rows_reader *rr = update_rows(t, "v", js, &b);
        pm_commit_outcome u = PM_COMMIT_OUTCOME_INIT;
        PM_OK_OR_FAIL(pm_table_update_by_row_id(&u, t, b, NULL));
        pm_rows_reader_free(rr);
        assert_null(u.compaction_error);
        if (k == 0) {
            assert_int_equal(u.compaction.snapshot_id, 0);
            assert_int_equal(file_count(t), 2);
        } else {
            assert_int_equal(u.compaction.snapshot_id, u.snapshot_id + 1);
            assert_int_equal(u.compaction.files_removed, 3);
            assert_int_equal(file_count(t), 1);
        }
    }
    text = read_rows(t, "_ROW_ID,id,name,v");
    assert_string_equal(text, "{\"_ROW_ID\":1,\"id\":2,\"name\":\"b\",\"v\":10.25}\n"
                              "{\"_ROW_ID\":2,\"id\":3,\"name\":\"c\",\"v\":11.25}\n");
    free(text);
    pm_table_free(t);
}

/* The commit's deletion-vector rebase fails after writing its new index
 * file: the file is deleted and nothing is published; without the fault
 * the same compaction goes through. */
static void test_rebase_failure_deletes_index_file(void **state)
{
    (void)state;
    pm_table *t = de_table("db.db/rebase", NULL, 0);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_table_delete_by_row_id(&out, t, (const int64_t[]){3, 6}, 2, NULL));
    size_t idx = count_sub(t, "index");
    int64_t snaps = snapshot_count(t);
    const char *dyn[] = {"compaction.min.file-num=1"};
    pm_compact_options co = PM_COMPACT_OPTIONS_INIT;
    co.dynamic_options = dyn;
    co.ndynamic_options = 1;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &co));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    setenv("PAIMON_FAULT_INJECT", "de-rebase-after-write", 1);
    pm_error *e = pm_compact_run(&m, b);
    unsetenv("PAIMON_FAULT_INJECT");
    pm_test_expect_error(e, PM_EIO, "de-rebase-after-write");
    assert_int_equal(snapshot_count(t), snaps);
    assert_int_equal(count_sub(t, "index"), idx);
    assert_int_equal(file_count(t), 2);
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    pm_compact_builder_free(b);
    assert_int_equal(m.files_removed, 2);
    assert_int_equal(m.files_added, 1);
    assert_int_equal(file_count(t), 1);
    char *text = read_rows(t, "_ROW_ID");
    assert_string_equal(text, "{\"_ROW_ID\":0}\n{\"_ROW_ID\":1}\n{\"_ROW_ID\":2}\n{\"_ROW_ID\":4}\n"
                              "{\"_ROW_ID\":5}\n{\"_ROW_ID\":7}\n{\"_ROW_ID\":8}\n{\"_ROW_ID\":9}\n");
    free(text);
    pm_table_free(t);
}

/* Row tracking without data evolution: append compaction keeps every
 * row's _ROW_ID and _SEQUENCE_NUMBER as physical columns of its outputs. */
static void test_row_tracking_compaction(void **state)
{
    (void)state;
    char *path = api_path(dir, "db.db/rt");
    const char *opts[] = {"bucket=-1", "row-tracking.enabled=true", "write-only=true"};
    api_create(path, "id BIGINT, s STRING", NULL, NULL, opts, 3);
    pm_table *t = open_table(path);
    free(path);
    api_write_json(t, "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n", NULL);
    api_write_json(t, "{\"id\":3,\"s\":\"c\"}\n", NULL);
    char *before = read_rows(t, "_ROW_ID,_SEQUENCE_NUMBER,id");
    assert_string_equal(before, "{\"_ROW_ID\":0,\"_SEQUENCE_NUMBER\":1,\"id\":1}\n"
                                "{\"_ROW_ID\":1,\"_SEQUENCE_NUMBER\":1,\"id\":2}\n"
                                "{\"_ROW_ID\":2,\"_SEQUENCE_NUMBER\":2,\"id\":3}\n");
    const char *dyn[] = {"compaction.min.file-num=2"};
    pm_compact_options co = PM_COMPACT_OPTIONS_INIT;
    co.dynamic_options = dyn;
    co.ndynamic_options = 1;
    for (int round = 0; round < 2; round++) {
        pm_compact_builder *b = NULL;
        PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &co));
        pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
        PM_OK_OR_FAIL(pm_compact_run(&m, b));
        pm_compact_builder_free(b);
        assert_int_equal(m.files_added, 1);
        pm_file_list *l = NULL;
        PM_OK_OR_FAIL(pm_table_files(&l, t, NULL));
        assert_int_equal(pm_file_list_count(l), 1);
        const pm_file_info *f = pm_file_list_get(l, 0);
        assert_false(f->has_first_row_id);
        assert_string_equal(f->file_source, "COMPACT");
        assert_int_equal(f->nwrite_cols, 4);
        assert_string_equal(f->write_cols[2], "_ROW_ID");
        assert_string_equal(f->write_cols[3], "_SEQUENCE_NUMBER");
        pm_file_list_free(l);
        char *after = read_rows(t, "_ROW_ID,_SEQUENCE_NUMBER,id");
        if (round == 0) {
            /* the same rows (in the order of the inputs, smallest file first) */
            assert_int_equal(strlen(after), strlen(before));
            for (const char *line = before; *line; line = strchr(line, '\n') + 1) {
                char one[80];
                size_t len = (size_t)(strchr(line, '\n') - line) + 1;
                snprintf(one, sizeof one, "%.*s", (int)len, line);
                assert_non_null(strstr(after, one));
            }
            /* a new file joins the compacted one: its row gets row ID 3 */
            api_write_json(t, "{\"id\":4,\"s\":\"d\"}\n", NULL);
        } else {
            assert_non_null(strstr(after, "{\"_ROW_ID\":3,\"_SEQUENCE_NUMBER\":4,\"id\":4}\n"));
            assert_int_equal(api_count_lines(after), 4);
            for (int i = 0; i < 3; i++) { /* the first three rows as before */
                char line[80];
                snprintf(line, sizeof line, "{\"_ROW_ID\":%d,\"_SEQUENCE_NUMBER\":%d,\"id\":%d}\n", i, i < 2 ? 1 : 2,
                         i + 1);
                assert_non_null(strstr(after, line));
            }
        }
        free(after);
    }
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_table_snapshot(&s, t, 0));
    int64_t next = 0;
    assert_true(pm_snapshot_next_row_id(s, &next));
    assert_int_equal(next, 4);
    pm_snapshot_free(s);
    free(before);
    pm_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_functions),
        cmocka_unit_test(test_update_by_row_id),
        cmocka_unit_test(test_update_refusals),
        cmocka_unit_test(test_delete_by_row_id),
        cmocka_unit_test(test_delete_where),
        cmocka_unit_test(test_materialize),
        cmocka_unit_test(test_materialize_partitions),
        cmocka_unit_test(test_materialize_where),
        cmocka_unit_test(test_automatic_rounds),
        cmocka_unit_test(test_rebase_failure_deletes_index_file),
        cmocka_unit_test(test_row_tracking_compaction),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
