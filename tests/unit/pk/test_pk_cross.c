/*
 * tests/unit/pk/test_pk_cross.c — cross-partition updates (dynamic
 * buckets, primary key id without the partition field dt;
 * table/pk_cross.h): a seeded model where keys move between partitions
 * (deduplicate: the key leaves its old partition), partial-update and
 * aggregation update the old partition, first-row keeps the first one;
 * a small write buffer forces the key index into several groups and
 * spill files; a writer reused over two prepares; keys stay unique.
 */
#include "paimon/write.h"
#include "pk_test_util.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void commit_rows(pm_table *t, const char *jsonl, int64_t identifier)
{
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_identifier = identifier;
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, &wo));
    pm_batch *b = pk_rows(t, jsonl);
    PM_OK_OR_FAIL(pm_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_writer_commit(&o, w));
    assert_null(o.compaction_error);
    pm_writer_free(w);
}

#define KEYS 1500

static void model_run(const char *engine, uint64_t seed, int commits, const char *extra)
{
    char *dir = pm_test_tmpdir();
    const char *opts[6] = {"bucket=-1", "dynamic-bucket.target-row-num=300", "write-buffer-size=256 kb"};
    size_t nopts = 3;
    char eng[64];
    if (engine) {
        snprintf(eng, sizeof eng, "merge-engine=%s", engine);
        opts[nopts++] = eng;
    }
    if (extra)
        opts[nopts++] = extra;
    pm_table *t = pk_create(dir, "cx", "ROW<id INT NOT NULL, v INT, dt STRING NOT NULL>", "dt", "id", opts, nopts);
    static int part[KEYS], val[KEYS];
    for (int i = 0; i < KEYS; i++)
        part[i] = -1;
    uint64_t s = seed;
    bool dedup = !engine, first = engine && !strcmp(engine, "first-row");
    for (int c = 0; c < commits; c++) {
        pm_buf rows = PM_BUF_INIT;
        int n = 400 + (int)(rnd(&s) % 800);
        static bool seen[KEYS];
        memset(seen, 0, sizeof seen);
        for (int i = 0; i < n; i++) {
            int id = (int)(rnd(&s) % KEYS);
            if (seen[id])
                continue; /* one row per key and commit keeps the model exact */
            seen[id] = true;
            int p = (int)(rnd(&s) % 4), v = (int)(rnd(&s) % 1000);
            PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":%d,\"dt\":\"p%d\"}\n", id, v, p));
            if (part[id] < 0) {
                part[id] = p;
                val[id] = v;
            } else if (dedup) {
                part[id] = p;
                val[id] = v;
            } else if (!first) {
                val[id] = engine && !strcmp(engine, "aggregation") ? val[id] + v : v; /* old partition */
            }
        }
        const char *text = NULL;
        PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
        commit_rows(t, text, c + 1);
        pm_buf_free(&rows);
        pm_buf want = PM_BUF_INIT;
        for (int i = 0; i < KEYS; i++)
            if (part[i] >= 0)
                PM_OK_OR_FAIL(pm_buf_printf(&want, "{\"id\":%d,\"v\":%d,\"dt\":\"p%d\"}\n", i, val[i], part[i]));
        const char *w = NULL;
        PM_OK_OR_FAIL(pm_buf_cstr(&want, &w));
        PK_EXPECT_ROWS(t, 0, w);
        pm_buf_free(&want);
    }
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_dedup_moves(void **state)
{
    (void)state;
    model_run(NULL, 0x1234ull, 4, NULL);
}

static void test_partial_update_and_aggregation(void **state)
{
    (void)state;
    model_run("partial-update", 0x4321ull, 3, NULL);
    model_run("aggregation", 0x5151ull, 3, "fields.v.aggregate-function=sum");
}

static void test_first_row(void **state)
{
    (void)state;
    model_run("first-row", 0x7777ull, 3, NULL);
}

/* One writer, two prepares: the index carries the first prepare's keys. */
static void test_reused_writer(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1"};
    pm_table *t = pk_create(dir, "cx", "ROW<id INT NOT NULL, v INT, dt STRING NOT NULL>", "dt", "id", opts, 1);
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, NULL));
    pm_batch *b = pk_rows(t, "{\"id\":1,\"v\":1,\"dt\":\"a\"}\n{\"id\":2,\"v\":1,\"dt\":\"a\"}\n");
    PM_OK_OR_FAIL(pm_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_messages *m1 = NULL, *m2 = NULL;
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m1, w));
    b = pk_rows(t, "{\"id\":1,\"v\":2,\"dt\":\"b\"}\n");
    PM_OK_OR_FAIL(pm_writer_write(w, b));
    pm_batch_free(b);
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m2, w));
    PM_OK_OR_FAIL(pm_commit_messages_merge(m1, m2));
    pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_commit(&o, t, m1, NULL));
    pm_commit_messages_free(m1);
    pm_writer_free(w);
    PK_EXPECT_ROWS(t, 0, "{\"id\":1,\"v\":2,\"dt\":\"b\"}\n{\"id\":2,\"v\":1,\"dt\":\"a\"}\n");
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* A large index with a small buffer: several groups, spilled runs, and
 * still every key once. */
static void test_spilled_index(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1", "write-buffer-size=64 kb", "write-only=true"};
    pm_table *t = pk_create(dir, "cx", "ROW<id INT NOT NULL, v INT, dt STRING NOT NULL>", "dt", "id", opts, 3);
    pm_buf rows = PM_BUF_INIT;
    for (int i = 0; i < 6000; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":1,\"dt\":\"p%d\"}\n", i, i % 3));
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
    pk_commit_rows(t, text);
    pm_buf_clear(&rows);
    /* every key moves to the next partition */
    for (int i = 0; i < 6000; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":2,\"dt\":\"p%d\"}\n", i, (i + 1) % 3));
    PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
    pm_pk_writer *w = NULL;
    pm_pk_write_options po = {false, NULL, 64 << 10, NULL, 0};
    PM_OK_OR_FAIL(pm_pk_writer_new(&w, t, &po));
    pm_batch *b = pk_rows(t, text);
    PM_OK_OR_FAIL(pm_pk_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_pk_writer_prepare_commit(w, &m, &n));
    pm_pk_write_stats st;
    pm_pk_writer_stats(w, &st);
    print_message("groups %lld, spilled runs %lld\n", (long long)st.cross_groups, (long long)st.cross_spilled);
    assert_true(st.cross_groups > 1);
    assert_true(st.cross_spilled > 0);
    pk_commit_msgs(t, m, n);
    pm_commit_message_array_free(m, n);
    pm_pk_writer_free(w);
    char *got = pk_read_sorted(t, 0, NULL, 0);
    size_t lines = 0;
    for (const char *p = got; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 6000);
    assert_null(strstr(got, "\"v\":1"));
    assert_non_null(strstr(got, "{\"id\":5999,\"v\":2,\"dt\":\"p0\"}"));
    free(got);
    pm_buf_free(&rows);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedup_moves),
        cmocka_unit_test(test_partial_update_and_aggregation),
        cmocka_unit_test(test_first_row),
        cmocka_unit_test(test_reused_writer),
        cmocka_unit_test(test_spilled_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
