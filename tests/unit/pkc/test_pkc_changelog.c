/*
 * tests/unit/pkc/test_pkc_changelog.c — changelog production by
 * primary-key compaction beyond deduplicate and first-row:
 *   - changelog-producer=lookup with aggregation: a lone DELETE of a sum
 *     becomes state (-5) and an INSERT event; updates give -U/+U from the
 *     history; a key whose state sits at two positive levels merges only
 *     the lowest one (compaction and reads: LookupMergeFunction);
 *   - changelog-producer=lookup with partial-update: sparse updates give
 *     -U/+U of whole rows; a lone retract without ignore-delete fails
 *     naming the case, publishing nothing;
 *   - changelog-producer=full-compaction with deletion vectors, and
 *     full-compaction.delta-commits=N: the automatic round after every
 *     N-th data commit (by commit identifier) is a full compaction with
 *     changelog, the others are normal rounds;
 *   - the changelog metrics (pm_compact_metrics version 2; version 1
 *     callers get the old fields only).
 */
#include <string.h>

#include "../pk/pk_test_util.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"
#include "compact/pk/pk_compact.h"
#include "paimon/compact.h"
#include "paimon/write.h"
#include "lsm/kv.h"
#include "table/file_read.h"
#include "table/partition.h"

static pm_compact_result *compact_one(pm_table *t, bool full, pm_compact_metrics *m)
{
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.full = full;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    pm_compact_builder_free(b);
    assert_int_equal(p->ntasks, 1);
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, t, p->tasks[0], NULL));
    pm_compact_plan_free(p);
    char *j = NULL; /* through JSON, as a worker returns it */
    PM_OK_OR_FAIL(pm_compact_result_to_json(&j, r));
    pm_compact_result_free(r);
    PM_OK_OR_FAIL(pm_compact_result_from_json(&r, j, strlen(j)));
    free(j);
    pm_compact_metrics own = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_commit(m ? m : &own, t, NULL, &r, 1));
    return r;
}

/* The changelog files of r as "<kind> <json of the fields>" lines, in file
 * order; rows whose first field (an INT) is >= `below` are left out. */
static char *changelog_rows_below(pm_table *t, const pm_compact_result *r, int32_t below)
{
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, r->partition.data, r->partition.len, r->bucket, &dir));
    const pm_type *rt = pm_table_schema(t)->row_type;
    pm_buf out = PM_BUF_INIT, line = PM_BUF_INIT;
    for (size_t i = 0; i < r->nchangelog; i++) {
        pm_file_read_options fo = {rt, 0, true, NULL};
        pm_file_reader *fr = NULL;
        PM_OK_OR_FAIL(pm_file_reader_open(&fr, t, dir, &r->changelog[i], &fo));
        for (;;) {
            const pm_batch *b = NULL;
            PM_OK_OR_FAIL(pm_file_reader_next(fr, &b));
            if (!b)
                break;
            /* [_SEQUENCE_NUMBER, _VALUE_KIND, fields...]: a view of the fields */
            pm_batch view = {.type = (pm_type *)rt, .num_rows = b->num_rows, .ncolumns = b->ncolumns - 2, .columns = b->columns + 2};
            for (int64_t k = 0; k < b->num_rows; k++) {
                if (pm_column_i32(b->columns[2], k) >= below)
                    continue;
                pm_buf_clear(&line);
                PM_OK_OR_FAIL(pm_batch_format_row_json(&view, k, &line));
                PM_OK_OR_FAIL(pm_buf_printf(&out, "%s %.*s\n", pm_kind_name((uint8_t)pm_column_i8(b->columns[1], k)),
                                            (int)line.len, (const char *)line.data));
            }
        }
        pm_file_reader_free(fr);
    }
    free(dir);
    pm_buf_free(&line);
    char *s = calloc(out.len + 1, 1);
    assert_non_null(s);
    if (out.len)
        memcpy(s, out.data, out.len);
    pm_buf_free(&out);
    return s;
}

static char *changelog_rows(pm_table *t, const pm_compact_result *r)
{
    return changelog_rows_below(t, r, INT32_MAX);
}

#define EXPECT_CHANGELOG(t, r, want)            \
    do {                                        \
        char *cl_ = changelog_rows((t), (r));   \
        assert_string_equal(cl_, (want));       \
        free(cl_);                              \
    } while (0)

/* Levels of bucket 0 as "L<level>" per file, sorted. */
static char *levels_of(pm_table *t)
{
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    int n[16] = {0};
    for (size_t i = 0; bf && i < bf->nfiles; i++)
        n[bf->files[i].level < 16 ? bf->files[i].level : 15]++;
    pm_scan_result_free(scan);
    char buf[256] = "";
    for (int l = 0; l < 16; l++)
        if (n[l])
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%sL%d:%d", buf[0] ? " " : "", l, n[l]);
    return strdup(buf);
}

/* Rows with id < 100 of the table. */
static char *small_ids(pm_table *t)
{
    char *all = pk_read_sorted(t, 0, NULL, 0);
    pm_buf out = PM_BUF_INIT;
    for (char *l = strtok(all, "\n"); l; l = strtok(NULL, "\n")) {
        int id = atoi(l + 6); /* {"id":N,... */
        if (id < 100)
            PM_OK_OR_FAIL(pm_buf_printf(&out, "%s\n", l));
    }
    free(all);
    char *s = calloc(out.len + 1, 1);
    if (out.len)
        memcpy(s, out.data, out.len);
    pm_buf_free(&out);
    return s;
}

#define EXPECT_SMALL(t, want)                   \
    do {                                        \
        char *got_ = small_ids(t);              \
        assert_string_equal(got_, (want));      \
        free(got_);                             \
    } while (0)

/* The seed's example and the history rule for aggregation.  Ids 100..399
 * only make the max level large, so later level-0 runs do not reach it. */
static void test_aggregation_lookup(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "merge-engine=aggregation", "fields.v.aggregate-function=sum",
                          "changelog-producer=lookup", "num-levels=3", "write-only=true"};
    pm_table *t = pk_create(dir, "agg", "ROW<id INT NOT NULL, v INT>", NULL, "id", opts, 6);
    pm_buf rows = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_buf_append_str(&rows, "{\"id\":1,\"v\":5,\"_ROW_KIND\":\"-D\"}\n{\"id\":2,\"v\":3}\n"));
    for (int i = 100; i < 400; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":%d}\n", i, i));
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
    pk_commit_rows(t, text);
    pm_buf_free(&rows);
    /* before compaction a query omits the lone retract */
    EXPECT_SMALL(t, "{\"id\":2,\"v\":3}\n");
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_compact_result *r = compact_one(t, false, &m);
    /* lookup compaction runs the reducer on the lone DELETE: state -5 */
    char *cl = changelog_rows_below(t, r, 100);
    assert_string_equal(cl, "+I {\"id\":1,\"v\":-5}\n+I {\"id\":2,\"v\":3}\n");
    free(cl);
    assert_int_equal(m.changelog_files_added, 1);
    assert_int_equal(m.changelog_rows_written, 302);
    assert_int_equal(m.changelog_bytes_written, r->changelog[0].file_size);
    assert_int_equal(m.files_added, (int64_t)r->nafter); /* data only */
    pm_compact_result_free(r);
    EXPECT_SMALL(t, "{\"id\":1,\"v\":-5}\n{\"id\":2,\"v\":3}\n");
    char *lv = levels_of(t);
    assert_string_equal(lv, "L2:1");
    free(lv);

    /* the next level-0 run goes to level 1 with the looked-up history */
    pk_commit_rows(t, "{\"id\":2,\"v\":4}\n{\"id\":3,\"v\":1}\n");
    r = compact_one(t, false, NULL);
    EXPECT_CHANGELOG(t, r, "-U {\"id\":2,\"v\":3}\n+U {\"id\":2,\"v\":7}\n+I {\"id\":3,\"v\":1}\n");
    pm_compact_result_free(r);
    lv = levels_of(t);
    assert_string_equal(lv, "L1:1 L2:1");
    free(lv);
    /* id 2 now lives at levels 1 (7, the whole state) and 2 (3, older):
     * reads merge only the lowest positive level */
    EXPECT_SMALL(t, "{\"id\":1,\"v\":-5}\n{\"id\":2,\"v\":7}\n{\"id\":3,\"v\":1}\n");

    /* level 0 + level 1 compact together into level 1: the history of
     * id 1 is looked up at level 2, level 2 is not aggregated again */
    pk_commit_rows(t, "{\"id\":2,\"v\":10}\n{\"id\":1,\"v\":5}\n");
    r = compact_one(t, false, NULL);
    assert_int_equal(pm_pk_part(r->part)->output_level, 1);
    EXPECT_CHANGELOG(t, r, "-U {\"id\":1,\"v\":-5}\n+U {\"id\":1,\"v\":0}\n"
                           "-U {\"id\":2,\"v\":7}\n+U {\"id\":2,\"v\":17}\n");
    pm_compact_result_free(r);
    EXPECT_SMALL(t, "{\"id\":1,\"v\":0}\n{\"id\":2,\"v\":17}\n{\"id\":3,\"v\":1}\n");

    /* a full compaction keeps the state (only the freshest level counts) */
    r = compact_one(t, true, NULL);
    assert_int_equal(r->nchangelog, 0); /* no level-0 input: no events */
    pm_compact_result_free(r);
    lv = levels_of(t);
    assert_string_equal(lv, "L2:1");
    free(lv);
    EXPECT_SMALL(t, "{\"id\":1,\"v\":0}\n{\"id\":2,\"v\":17}\n{\"id\":3,\"v\":1}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Partial-update: events carry whole rows; a lone retract is refused. */
static void test_partial_update_lookup(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "merge-engine=partial-update", "changelog-producer=lookup",
                          "write-only=true"};
    pm_table *t = pk_create(dir, "pu", "ROW<id INT NOT NULL, a INT, b STRING>", NULL, "id", opts, 4);
    pk_commit_rows(t, "{\"id\":1,\"a\":1,\"b\":null}\n{\"id\":2,\"a\":null,\"b\":\"x\"}\n");
    pm_compact_result *r = compact_one(t, false, NULL);
    EXPECT_CHANGELOG(t, r, "+I {\"id\":1,\"a\":1,\"b\":null}\n+I {\"id\":2,\"a\":null,\"b\":\"x\"}\n");
    pm_compact_result_free(r);
    pk_commit_rows(t, "{\"id\":1,\"a\":null,\"b\":\"y\"}\n{\"id\":2,\"a\":7,\"b\":null}\n");
    pk_commit_rows(t, "{\"id\":2,\"a\":8,\"b\":null}\n{\"id\":3,\"a\":3,\"b\":null}\n");
    r = compact_one(t, false, NULL);
    EXPECT_CHANGELOG(t, r, "-U {\"id\":1,\"a\":1,\"b\":null}\n+U {\"id\":1,\"a\":1,\"b\":\"y\"}\n"
                           "-U {\"id\":2,\"a\":null,\"b\":\"x\"}\n+U {\"id\":2,\"a\":8,\"b\":\"x\"}\n"
                           "+I {\"id\":3,\"a\":3,\"b\":null}\n");
    pm_compact_result_free(r);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"a\":1,\"b\":\"y\"}\n{\"id\":2,\"a\":8,\"b\":\"x\"}\n"
                         "{\"id\":3,\"a\":3,\"b\":null}\n");

    /* a lone DELETE cannot be merged by partial-update (no ignore-delete,
     * no remove-record-on-delete): the execution fails naming it */
    pk_commit_rows(t, "{\"id\":3,\"a\":null,\"b\":null,\"_ROW_KIND\":\"-D\"}\n");
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e = pm_compact_run(&m, b);
    pm_compact_builder_free(b);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "delete"));
    free(msg);
    pm_error_free(e);
    assert_int_equal(m.snapshot_id, 0);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* The rows' changelog of the latest COMPACT snapshot's files (every bucket 0 file named changelog-). */
static int64_t latest_snapshot(pm_table *t, pm_commit_kind *kind)
{
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    int64_t id = scan->snapshot ? scan->snapshot->id : 0;
    if (kind)
        *kind = scan->snapshot ? scan->snapshot->commit_kind : PM_COMMIT_APPEND;
    pm_scan_result_free(scan);
    return id;
}

static pm_commit_outcome write_json(pm_table *t, const char *jsonl, int64_t identifier)
{
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = "delta-writer";
    wo.commit_identifier = identifier;
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, &wo));
    pm_batch *b = pk_rows(t, jsonl);
    PM_OK_OR_FAIL(pm_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_writer_commit(&out, w));
    pm_writer_free(w);
    if (out.compaction_error) {
        char *s = pm_error_format(out.compaction_error);
        print_error("compaction error: %s\n", s ? s : "?");
        free(s);
        fail();
    }
    return out;
}

/* full-compaction changelog with deletion vectors: every commit (the batch
 * identifier, and any identifier with delta-commits 1) is fully compacted
 * by the automatic round. */
static void test_full_compaction_dv(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "changelog-producer=full-compaction", "deletion-vectors.enabled=true"};
    pm_table *t = pk_create(dir, "fcdv", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 3);
    char path[1024];
    snprintf(path, sizeof path, "%s/db.db/fcdv", dir);
    pm_commit_outcome o = write_json(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"a\"}\n", PM_BATCH_COMMIT_IDENTIFIER);
    pm_table_free(t); /* a new writer (commit user) per batch write, as `paimon write` */
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    assert_true(o.compaction.snapshot_id > 0);
    assert_int_equal(o.compaction.changelog_files_added, 1);
    assert_int_equal(o.compaction.changelog_rows_written, 2);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"a\"}\n");
    o = write_json(t, "{\"id\":2,\"v\":\"b\"}\n{\"id\":1,\"v\":\"a\",\"_ROW_KIND\":\"-D\"}\n{\"id\":3,\"v\":\"c\"}\n",
                   7); /* N = 1: every identifier */
    assert_true(o.compaction.snapshot_id > 0);
    /* -D 1, -U/+U 2, +I 3 */
    assert_int_equal(o.compaction.changelog_rows_written, 4);
    PK_EXPECT_ROWS(t, 0, "{\"id\":2,\"v\":\"b\"}\n{\"id\":3,\"v\":\"c\"}\n");
    char *lv = levels_of(t);
    assert_non_null(strstr(lv, "L5:"));
    assert_null(strstr(lv, "L0:"));
    free(lv);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* full-compaction.delta-commits=2: identifiers 1 and 3 get normal rounds
 * (nothing to do below the triggers), 2 and 4 full compactions of every
 * bucket written since the previous one. */
static void test_delta_commits(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=2", "changelog-producer=full-compaction", "full-compaction.delta-commits=2"};
    pm_table *t = pk_create(dir, "dc", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 3);
    pm_commit_outcome o = write_json(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"a\"}\n{\"id\":3,\"v\":\"a\"}\n", 1);
    assert_int_equal(o.compaction.snapshot_id, 0);
    pm_commit_kind kind;
    assert_int_equal(latest_snapshot(t, &kind), o.snapshot_id);
    o = write_json(t, "{\"id\":4,\"v\":\"b\"}\n", 2);
    assert_true(o.compaction.snapshot_id > o.snapshot_id);
    assert_true(latest_snapshot(t, &kind) == o.compaction.snapshot_id && kind == PM_COMMIT_COMPACT);
    /* every key so far is new: +I events of both buckets, 4 rows */
    assert_int_equal(o.compaction.changelog_rows_written, 4);
    assert_true(o.compaction.changelog_files_added >= 1);
    o = write_json(t, "{\"id\":1,\"v\":\"c\"}\n", 3);
    assert_int_equal(o.compaction.snapshot_id, 0);
    o = write_json(t, "{\"id\":5,\"v\":\"d\"}\n", 4);
    assert_true(o.compaction.snapshot_id > 0);
    /* -U/+U of 1 (written by commit 3) and +I of 5 */
    assert_int_equal(o.compaction.changelog_rows_written, 3);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":\"c\"}\n{\"id\":2,\"v\":\"a\"}\n{\"id\":3,\"v\":\"a\"}\n"
                         "{\"id\":4,\"v\":\"b\"}\n{\"id\":5,\"v\":\"d\"}\n");
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    for (size_t i = 0; i < scan->nbuckets; i++)
        for (size_t k = 0; k < scan->buckets[i].nfiles; k++)
            assert_int_equal(scan->buckets[i].files[k].level, 5);
    pm_scan_result_free(scan);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Version 1 metrics get the old fields only; version 2 the changelog counts. */
static void test_metrics_versions(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "changelog-producer=lookup", "write-only=true"};
    pm_table *t = pk_create(dir, "mv", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 3);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"a\"}\n{\"id\":3,\"v\":\"a\"}\n");
    struct {
        pm_compact_metrics m;
        int64_t guard[3];
    } v1;
    memset(&v1, 0x5a, sizeof v1);
    v1.m.version = 1;
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    PM_OK_OR_FAIL(pm_compact_run(&v1.m, b));
    pm_compact_builder_free(b);
    assert_int_equal(v1.m.version, 1);
    assert_true(v1.m.snapshot_id > 0);
    assert_int_equal(v1.m.files_added, 1);
    /* nothing written past a version-1 struct */
    int64_t untouched;
    memset(&untouched, 0x5a, sizeof untouched);
    assert_memory_equal(&v1.m.changelog_files_added, &untouched, sizeof untouched);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"b\"}\n");
    pm_compact_metrics m2 = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    PM_OK_OR_FAIL(pm_compact_run(&m2, b));
    pm_compact_builder_free(b);
    assert_int_equal(m2.changelog_files_added, 1);
    assert_int_equal(m2.changelog_rows_written, 2); /* -U, +U */
    assert_true(m2.changelog_bytes_written > 0);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* lookup-compact=gentle: with a long-lived writer's triggers the
 * automatic rounds pick as UniversalCompaction does and force level 0 up
 * only every max(lookup-compact.max-interval, trigger)-th round (radical
 * forces it every round); without triggers an automatic round refuses
 * gentle (the data commit stays). */
static void test_gentle(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "changelog-producer=lookup", "lookup-compact=gentle",
                          "lookup-compact.max-interval=3"};
    pm_table *t = pk_create(dir, "g", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 4);
    const char *ropts[] = {"bucket=1", "changelog-producer=lookup"};
    pm_table *rad = pk_create(dir, "r", "ROW<id INT NOT NULL, v STRING>", NULL, "id", ropts, 2);
    pm_compact_triggers *tr = NULL;
    PM_OK_OR_FAIL(pm_compact_triggers_new(&tr));
    /* a one-shot commit (no triggers): refused, the data stays */
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, NULL));
    pm_batch *b = pk_rows(t, "{\"id\":9,\"v\":\"once\"}\n");
    PM_OK_OR_FAIL(pm_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_writer_commit(&o, w));
    assert_true(o.snapshot_id > 0);
    assert_non_null(o.compaction_error);
    char *msg = pm_error_format(o.compaction_error);
    assert_non_null(strstr(msg, "gentle"));
    free(msg);
    pm_error_free(o.compaction_error);
    pm_writer_free(w);
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_user = "streamer";
    pm_writer *wr = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, &wo));
    PM_OK_OR_FAIL(pm_writer_new(&wr, rad, &wo));
    pm_writer_set_compact_triggers(w, tr);
    int64_t gentle[6] = {0}, radical[6] = {0};
    for (int i = 0; i < 6; i++) {
        char row[64];
        snprintf(row, sizeof row, "{\"id\":%d,\"v\":\"w%d\"}\n", i % 3, i);
        pm_writer *ws[2] = {w, wr};
        pm_table *ts[2] = {t, rad};
        for (int k = 0; k < 2; k++) {
            b = pk_rows(ts[k], row);
            PM_OK_OR_FAIL(pm_writer_write(ws[k], b));
            pm_batch_free(b);
            pm_commit_outcome oc = PM_COMMIT_OUTCOME_INIT;
            PM_OK_OR_FAIL(pm_writer_commit_as(&oc, ws[k], 100 + i)); /* one identifier per commit */
            assert_null(oc.compaction_error);
            (k ? radical : gentle)[i] = oc.compaction.snapshot_id;
        }
    }
    for (int i = 0; i < 6; i++) {
        print_message("round %d: gentle %lld radical %lld\n", i + 1, (long long)gentle[i], (long long)radical[i]);
        assert_true(radical[i] > 0); /* radical: level 0 up after every commit */
    }
    /* gentle: the writer's rounds 1-3 compact nothing (2 to 4 runs, below
     * num-sorted-run.compaction-trigger=5; the forced interval is max(3, 5)),
     * round 4 reaches the trigger */
    assert_int_equal(gentle[0], 0);
    assert_int_equal(gentle[1], 0);
    assert_int_equal(gentle[2], 0);
    assert_true(gentle[3] > 0);
    PK_EXPECT_ROWS(t, 0, "{\"id\":0,\"v\":\"w3\"}\n{\"id\":1,\"v\":\"w4\"}\n{\"id\":2,\"v\":\"w5\"}\n"
                         "{\"id\":9,\"v\":\"once\"}\n");
    pm_writer_free(w);
    pm_writer_free(wr);
    /* a builder with triggers plans as an automatic round: one new level-0
     * file is left alone (an explicit plan would force it up) */
    pk_commit_rows(t, "{\"id\":7,\"v\":\"x\"}\n");
    pm_compact_builder *bld = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&bld, t, NULL));
    pm_compact_builder_set_triggers(bld, tr);
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, bld));
    assert_int_equal(pm_compact_plan_task_count(p), 0);
    pm_compact_plan_free(p);
    pm_compact_builder_set_triggers(bld, NULL); /* back to an explicit plan */
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, bld));
    assert_int_equal(pm_compact_plan_task_count(p), 1);
    pm_compact_plan_free(p);
    pm_compact_builder_free(bld);
    pm_compact_triggers_free(tr);
    pm_table_free(t);
    pm_table_free(rad);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aggregation_lookup),
        cmocka_unit_test(test_partial_update_lookup),
        cmocka_unit_test(test_full_compaction_dv),
        cmocka_unit_test(test_delta_commits),
        cmocka_unit_test(test_metrics_versions),
        cmocka_unit_test(test_gentle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
