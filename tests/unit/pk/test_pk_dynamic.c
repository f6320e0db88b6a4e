/*
 * tests/unit/pk/test_pk_dynamic.c — dynamic-bucket primary-key writes
 * (bucket = -1; table/pk_dynamic.h) through the public write API: keys
 * placed by dynamic-bucket.target-row-num, one HASH index file per
 * changed bucket committed with the data (replacing the previous one),
 * later writers and a reused writer keep every key in its bucket, a
 * concurrent writer that changed a bucket's index makes the commit fail
 * (nothing left behind), abort deletes the index files, commit messages
 * with index changes travel as JSON, automatic compaction runs, and the
 * options are checked.
 */
#include <dirent.h>

#include "index/hash_index.h"
#include "meta/index_path.h"
#include "paimon/write.h"
#include "pk_test_util.h"
#include "table/file_read.h"
#include "table/partition.h"

static size_t pk_count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static pm_table *dyn_table(const char *dir, const char *name, const char *const *extra, size_t nextra)
{
    const char *opts[8] = {"bucket=-1", "write-only=true"};
    size_t n = 2;
    for (size_t i = 0; i < nextra; i++)
        opts[n++] = extra[i];
    return pk_create(dir, name, "ROW<id INT NOT NULL, v STRING, dt STRING NOT NULL>", "dt", "id,dt", opts, n);
}

static char *rows_text(int from, int to, const char *v, const char *dt)
{
    pm_buf b = PM_BUF_INIT;
    for (int i = from; i < to; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&b, "{\"id\":%d,\"v\":\"%s\",\"dt\":\"%s\"}\n", i, v, dt));
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 0));
    return (char *)pm_buf_detach(&b, NULL);
}

static pm_writer *writer_with(pm_table *t, const char *jsonl)
{
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, NULL));
    pm_batch *b = pk_rows(t, jsonl);
    PM_OK_OR_FAIL(pm_writer_write(w, b));
    pm_batch_free(b);
    return w;
}

static pm_commit_outcome commit_writer(pm_writer *w)
{
    pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_writer_commit(&o, w));
    assert_null(o.compaction_error);
    return o;
}

/* bucket of each id in partition dt (from the data files); -1 = absent */
typedef struct layout {
    int bucket[64];
    int hash_files;           /* HASH entries of the snapshot */
    int64_t hash_rows;        /* their row counts */
} layout;

static void layout_of(pm_table *t, const char *dt, layout *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 64; i++)
        out->bucket[i] = -1;
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    pm_type *rt = pm_type_clone(pm_table_schema(t)->row_type);
    for (size_t i = 0; i < scan->nbuckets; i++) {
        const pm_bucket_files *bf = &scan->buckets[i];
        pm_buf p = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_partition_display(t, bf->partition.data, bf->partition.len, &p));
        bool mine = p.len == strlen(dt) + 3 && !memcmp(p.data + 3, dt, strlen(dt));
        pm_buf_free(&p);
        if (!mine)
            continue;
        for (size_t k = 0; k < bf->nindex_entries; k++)
            if (!strcmp(bf->index_entries[k].index_file.index_type, "HASH")) {
                out->hash_files++;
                out->hash_rows += bf->index_entries[k].index_file.row_count;
            }
        char *dir = NULL;
        PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, bf->bucket, &dir));
        for (size_t f = 0; f < bf->nfiles; f++) {
            pm_file_read_options fo = {rt, 0, false, NULL};
            pm_file_reader *fr = NULL;
            PM_OK_OR_FAIL(pm_file_reader_open(&fr, t, dir, &bf->files[f], &fo));
            for (;;) {
                const pm_batch *b = NULL;
                PM_OK_OR_FAIL(pm_file_reader_next(fr, &b));
                if (!b)
                    break;
                for (int64_t r = 0; r < b->num_rows; r++) {
                    int id = pm_column_i32(b->columns[0], r);
                    assert_true(id >= 0 && id < 64);
                    /* every key lives in exactly one bucket */
                    assert_true(out->bucket[id] == -1 || out->bucket[id] == bf->bucket);
                    out->bucket[id] = bf->bucket;
                }
            }
            pm_file_reader_free(fr);
        }
        free(dir);
    }
    pm_type_free(rt);
    pm_scan_result_free(scan);
}

static size_t count_index_files(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/db.db/dyn/index", dir);
    DIR *d = opendir(path);
    size_t n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += !strncmp(de->d_name, "index-", 6);
    if (d)
        closedir(d);
    return n;
}

static void test_assign_and_index(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *extra[] = {"dynamic-bucket.target-row-num=4"};
    pm_table *t = dyn_table(dir, "dyn", extra, 1);
    char *a = rows_text(0, 10, "a", "x");
    pm_writer *w = writer_with(t, a);
    free(a);
    commit_writer(w);
    pm_writer_free(w);
    layout l;
    layout_of(t, "x", &l);
    int per[8] = {0};
    for (int i = 0; i < 10; i++) {
        assert_true(l.bucket[i] >= 0 && l.bucket[i] < 3);
        per[l.bucket[i]]++;
    }
    assert_int_equal(per[0], 4);
    assert_int_equal(per[1], 4);
    assert_int_equal(per[2], 2);
    assert_int_equal(l.hash_files, 3);
    assert_int_equal(l.hash_rows, 10);
    /* a new writer: old keys keep their buckets, new ones fill bucket 2 first */
    char *b = rows_text(5, 14, "b", "x");
    w = writer_with(t, b);
    free(b);
    commit_writer(w);
    layout l2;
    layout_of(t, "x", &l2);
    for (int i = 0; i < 10; i++)
        assert_int_equal(l2.bucket[i], l.bucket[i]);
    assert_int_equal(l2.bucket[10], 2);
    assert_int_equal(l2.bucket[11], 2);
    assert_int_equal(l2.bucket[12], 3);
    assert_int_equal(l2.hash_files, 4); /* replaced, not added: one per bucket */
    assert_int_equal(l2.hash_rows, 14);
    /* the same writer again (its own new files are the base now) */
    pm_batch *rb = pk_rows(t, "{\"id\":13,\"v\":\"c\",\"dt\":\"x\"}\n{\"id\":14,\"v\":\"c\",\"dt\":\"x\"}\n"
                              "{\"id\":1,\"v\":\"c\",\"dt\":\"y\"}\n");
    PM_OK_OR_FAIL(pm_writer_write(w, rb));
    pm_batch_free(rb);
    /* a second commit of one writer needs its own identifier */
    pm_commit_messages *m = NULL;
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m, w));
    pm_write_options wo = PM_WRITE_OPTIONS_INIT;
    wo.commit_identifier = 2;
    pm_commit_outcome oc = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_commit(&oc, t, m, &wo));
    assert_true(oc.snapshot_id > 0 && !oc.already_committed);
    pm_commit_messages_free(m);
    pm_writer_free(w);
    layout l3;
    layout_of(t, "x", &l3);
    assert_int_equal(l3.bucket[13], 3);
    assert_int_equal(l3.bucket[14], 3);
    assert_int_equal(l3.hash_rows, 15);
    layout_of(t, "y", &l3);
    assert_int_equal(l3.bucket[1], 0);
    assert_int_equal(l3.hash_files, 1);
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_int_equal(pk_count_lines(got), 16);
    free(got);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Two writers from one base add keys to the same bucket: the second
 * commit conflicts and leaves no file behind. */
static void test_concurrent_conflict_and_abort(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = dyn_table(dir, "dyn", NULL, 0);
    pm_writer *w0 = writer_with(t, "{\"id\":1,\"v\":\"a\",\"dt\":\"x\"}\n");
    commit_writer(w0);
    pm_writer_free(w0);
    pm_writer *w1 = writer_with(t, "{\"id\":2,\"v\":\"a\",\"dt\":\"x\"}\n");
    pm_writer *w2 = writer_with(t, "{\"id\":3,\"v\":\"a\",\"dt\":\"x\"}\n");
    pm_commit_messages *m1 = NULL, *m2 = NULL;
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m1, w1));
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m2, w2));
    /* the messages travel as JSON with their index changes */
    char *j = NULL;
    PM_OK_OR_FAIL(pm_commit_messages_to_json(&j, m2));
    assert_non_null(strstr(j, "\"index_added\":[{"));
    assert_non_null(strstr(j, "\"index_removed\":[{"));
    pm_commit_messages_free(m2);
    PM_OK_OR_FAIL(pm_commit_messages_from_json(&m2, j, strlen(j)));
    pm_free(j);
    size_t before = count_index_files(dir);
    pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_commit(&o, t, m1, NULL));
    pm_commit_outcome o2 = PM_COMMIT_OUTCOME_INIT;
    pm_error *e = pm_commit(&o2, t, m2, NULL);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_ECONFLICT);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "HASH index"));
    free(msg);
    pm_error_free(e);
    assert_int_equal(count_index_files(dir), before - 1); /* w2's new index file is gone */
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_string_equal(got, "{\"id\":1,\"v\":\"a\",\"dt\":\"x\"}\n{\"id\":2,\"v\":\"a\",\"dt\":\"x\"}\n");
    free(got);
    pm_commit_messages_free(m1);
    pm_commit_messages_free(m2);
    pm_writer_free(w1);
    pm_writer_free(w2);
    /* abort of a prepared writer deletes its index files */
    pm_writer *w3 = writer_with(t, "{\"id\":9,\"v\":\"a\",\"dt\":\"z\"}\n");
    pm_commit_messages *m3 = NULL;
    PM_OK_OR_FAIL(pm_writer_prepare_commit(&m3, w3));
    size_t with = count_index_files(dir);
    PM_OK_OR_FAIL(pm_commit_messages_abort(t, m3));
    assert_int_equal(count_index_files(dir), with - 1);
    pm_commit_messages_free(m3);
    pm_writer_free(w3);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Automatic compaction compacts dynamic buckets after writes. */
static void test_automatic_compaction(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1", "num-sorted-run.compaction-trigger=2"};
    pm_table *t = pk_create(dir, "dyn", "ROW<id INT NOT NULL, v STRING, dt STRING NOT NULL>", "dt", "id,dt", opts, 2);
    int64_t compactions = 0;
    for (int r = 0; r < 4; r++) {
        char *x = rows_text(r, r + 6, r % 2 ? "odd" : "even", "x");
        pm_writer *w = writer_with(t, x);
        free(x);
        pm_commit_outcome o = commit_writer(w);
        compactions += o.compaction.snapshot_id > 0;
        pm_writer_free(w);
    }
    assert_true(compactions > 0);
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_int_equal(pk_count_lines(got), 9);
    assert_non_null(strstr(got, "{\"id\":8,\"v\":\"odd\",\"dt\":\"x\"}"));
    free(got);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_option_checks(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *bad[][2] = {{"dynamic-bucket.target-row-num=0", "target-row-num"},
                            {"dynamic-bucket.initial-buckets=0", "initial-buckets"}};
    for (size_t i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "bad%zu", i);
        const char *opts[] = {"bucket=-1", bad[i][0]};
        char path[1024];
        snprintf(path, sizeof path, "%s/db.db/%s", dir, name);
        pm_type *rt = NULL;
        PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<id INT NOT NULL>"));
        const char *pk[] = {"id"};
        const char *keys[2] = {"bucket", NULL}, *vals[2] = {"-1", NULL};
        char k[64];
        snprintf(k, sizeof k, "%.*s", (int)(strchr(opts[1], '=') - opts[1]), opts[1]);
        keys[1] = k;
        vals[1] = strchr(opts[1], '=') + 1;
        pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, pk, 1, keys, vals, 2, NULL};
        pm_error *e = pm_table_create(path, &spec, false);
        pm_table *t = NULL;
        if (!e) {
            PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
            pm_writer *w = NULL;
            e = pm_writer_new(&w, t, NULL);
            if (!e) {
                pm_batch *b = pk_rows(t, "{\"id\":1}\n");
                e = pm_writer_write(w, b);
                pm_batch_free(b);
                pm_writer_free(w);
            }
        }
        assert_non_null(e);
        char *msg = pm_error_format(e);
        if (!strstr(msg, bad[i][1]))
            print_error("%s\n", msg);
        assert_non_null(strstr(msg, bad[i][1]));
        free(msg);
        pm_error_free(e);
        pm_table_free(t);
        pm_type_free(rt);
    }
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assign_and_index),
        cmocka_unit_test(test_concurrent_conflict_and_abort),
        cmocka_unit_test(test_automatic_compaction),
        cmocka_unit_test(test_option_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
