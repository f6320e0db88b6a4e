/*
 * tests/unit/pkc/test_pkc_lookup_cache.c — Lookup Files and the local
 * cache (table/lookup_file.h): point lookups equal the data file, a
 * second open reuses the file, a corrupt block or index and a missing
 * file are rebuilt (never a missing key), blocks fill to their limits,
 * the memory budget bounds what
 * is held and refuses an oversized input, local-cache.max-size evicts the
 * least recently used file and refuses one it cannot retain; through
 * compaction: lookups of a deletion-vector table go through the cache
 * and give the rows the streaming lookups give, a full disk (fault
 * "lookup-file-write") fails the task without publishing or leaving
 * files, lookup.cache-max-disk-size is refused, and so are the cache
 * options as dynamic options of one compaction; history written before a
 * column was added is looked up with the column null.
 */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../pk/pk_test_util.h"
#include "compact/compact_internal.h"
#include "lsm/kv.h"
#include "meta/schema.h"
#include "paimon/compact.h"
#include "paimon/read.h"
#include "table/lookup_file.h"
#include "table/partition.h"

static size_t count_files(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        size_t l = strlen(de->d_name), s = strlen(suffix);
        n += l > s && !strcmp(de->d_name + l - s, suffix);
    }
    if (d)
        closedir(d);
    return n;
}

static pm_table *big_table(const char *dir, const char *name, int rows, const char *const *extra, size_t nextra)
{
    const char *opts[8] = {"bucket=1", "write-only=true"};
    size_t n = 2;
    for (size_t i = 0; i < nextra; i++)
        opts[n++] = extra[i];
    pm_table *t = pk_create(dir, name, "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, n);
    pm_buf b = PM_BUF_INIT;
    for (int i = 0; i < rows; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&b, "{\"id\":%d,\"v\":\"value-%d\"}\n", i * 2, i));
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&b, &text));
    pk_commit_rows(t, text);
    pm_buf_free(&b);
    return t;
}

/* The only data file of bucket 0 and its directory. */
static const pm_data_file_meta *the_file(pm_table *t, pm_scan_result **scan, char **dir)
{
    const pm_bucket_files *bf = pk_bucket(t, 0, scan);
    assert_non_null(bf);
    assert_int_equal(bf->nfiles, 1);
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, 0, dir));
    return &bf->files[0];
}

typedef struct kit {
    pm_type *fields, *type;
    pm_kv_layout layout;
    pm_kv_keyenc *enc;
    pm_batch *probe;
    pm_buf key;
} kit;

/* Fields (id, v); layout over [_SEQ, _KIND, id, v, _POS]; a probe batch of one id. */
static void kit_init(kit *k, pm_table *t)
{
    memset(k, 0, sizeof *k);
    k->fields = pm_type_clone(pm_table_schema(t)->row_type);
    size_t kc[1] = {2}, vc[2] = {2, 3};
    PM_OK_OR_FAIL(pm_kv_layout_init(&k->layout, kc, 1, 0, 1, vc, 2));
    PM_OK_OR_FAIL(pm_type_parse(&k->type, "ROW<s BIGINT NOT NULL, k TINYINT NOT NULL, id INT NOT NULL, v STRING, "
                                          "p BIGINT NOT NULL>"));
    PM_OK_OR_FAIL(pm_kv_keyenc_new(&k->enc, &k->layout, k->type));
    PM_OK_OR_FAIL(pm_batch_new(&k->probe, k->type));
}

static void kit_clear(kit *k)
{
    pm_type_free(k->fields);
    pm_type_free(k->type);
    pm_kv_layout_clear(&k->layout);
    pm_kv_keyenc_free(k->enc);
    pm_batch_free(k->probe);
    pm_buf_free(&k->key);
}

/* Look id up: its v (malloc'd) or NULL. */
static char *lookup(kit *k, pm_lookup_file *lf, int id)
{
    PM_OK_OR_FAIL(pm_batch_reset(k->probe));
    PM_OK_OR_FAIL(pm_column_append_i64(k->probe->columns[0], 0));
    PM_OK_OR_FAIL(pm_column_append_i8(k->probe->columns[1], 0));
    PM_OK_OR_FAIL(pm_column_append_i32(k->probe->columns[2], id));
    PM_OK_OR_FAIL(pm_column_append_null(k->probe->columns[3]));
    PM_OK_OR_FAIL(pm_column_append_i64(k->probe->columns[4], 0));
    PM_OK_OR_FAIL(pm_batch_finish(k->probe, 1));
    pm_buf_clear(&k->key);
    uint32_t kl = 0;
    PM_OK_OR_FAIL(pm_kv_keyenc_row(k->enc, k->probe, 0, false, &k->key, &kl));
    bool found = false;
    const pm_batch *b = NULL;
    int64_t row = -1;
    PM_OK_OR_FAIL(pm_lookup_file_get(lf, k->key.data, kl, &found, &b, &row));
    if (!found)
        return NULL;
    assert_int_equal(pm_column_i64(b->columns[4], row), id / 2); /* its position */
    size_t n = 0;
    const uint8_t *p = pm_column_bytes(b->columns[3], row, &n);
    char *s = calloc(n + 1, 1);
    memcpy(s, p, n);
    return s;
}

static void expect_v(kit *k, pm_lookup_file *lf, int id, const char *want)
{
    char *got = lookup(k, lf, id);
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static pm_lookup_cache *cache_of(const char *dir, const char *max_size, const char *memory, const char *codec)
{
    pm_options *o = NULL;
    PM_OK_OR_FAIL(pm_options_new(&o));
    char cdir[1200];
    snprintf(cdir, sizeof cdir, "%s/cache", dir);
    PM_OK_OR_FAIL(pm_options_set(o, "local-cache.enabled", "true"));
    PM_OK_OR_FAIL(pm_options_set(o, "local-cache.dir", cdir));
    if (max_size)
        PM_OK_OR_FAIL(pm_options_set(o, "local-cache.max-size", max_size));
    if (memory)
        PM_OK_OR_FAIL(pm_options_set(o, "lookup.cache-max-memory-size", memory));
    if (codec)
        PM_OK_OR_FAIL(pm_options_set(o, "lookup.cache-spill-compression", codec));
    bool enabled = false;
    pm_lookup_cache_options co;
    PM_OK_OR_FAIL(pm_lookup_cache_options_parse(o, &enabled, &co));
    assert_true(enabled);
    pm_lookup_cache *c = NULL;
    PM_OK_OR_FAIL(pm_lookup_cache_new(&c, &co));
    pm_lookup_cache_options_clear(&co);
    pm_options_free(o);
    return c;
}

static void test_lookup_reuse_and_rebuild(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = big_table(dir, "t", 5000, NULL, 0);
    pm_scan_result *scan = NULL;
    char *bdir = NULL;
    const pm_data_file_meta *f = the_file(t, &scan, &bdir);
    kit k;
    kit_init(&k, t);
    static const char *codecs[] = {"zstd", "lz4", "none"};
    for (size_t ci = 0; ci < 3; ci++) {
        pm_lookup_cache *c = cache_of(dir, NULL, NULL, codecs[ci]);
        pm_lookup_file *lf = NULL;
        PM_OK_OR_FAIL(pm_lookup_file_open(&lf, c, t, bdir, f, k.fields, &k.layout));
        for (int id = 0; id < 10000; id += 37)
            expect_v(&k, lf, id * 2 + 1, NULL);
        expect_v(&k, lf, 0, "value-0");
        expect_v(&k, lf, 7770, "value-3885");
        expect_v(&k, lf, 9998, "value-4999");
        expect_v(&k, lf, 7771, NULL);
        expect_v(&k, lf, -5, NULL);
        expect_v(&k, lf, 10000, NULL);
        pm_lookup_file_close(lf);
        pm_lookup_cache_stats st;
        pm_lookup_cache_stats_get(c, &st);
        assert_int_equal(st.memory, 0); /* everything given back */
        assert_true(st.peak_memory > 0);
        assert_int_equal(st.built, 1);
        /* a second open reuses the file */
        PM_OK_OR_FAIL(pm_lookup_file_open(&lf, c, t, bdir, f, k.fields, &k.layout));
        expect_v(&k, lf, 4000, "value-2000");
        pm_lookup_file_close(lf);
        pm_lookup_cache_stats_get(c, &st);
        assert_int_equal(st.reused, 1);
        assert_int_equal(st.built, 1);
        pm_lookup_cache_free(c);
        char cdir[1200];
        snprintf(cdir, sizeof cdir, "%s/cache", dir);
        pm_test_rmtree(cdir);
    }
    /* damage: a corrupt block, a corrupt index, a missing file */
    pm_lookup_cache *c = cache_of(dir, NULL, NULL, NULL);
    pm_lookup_file *lf = NULL;
    PM_OK_OR_FAIL(pm_lookup_file_open(&lf, c, t, bdir, f, k.fields, &k.layout));
    pm_lookup_file_close(lf);
    char cdir[1200], path[1600];
    snprintf(cdir, sizeof cdir, "%s/cache", dir);
    DIR *d = opendir(cdir);
    char id[128] = "";
    for (struct dirent *de; (de = readdir(d));)
        if (strstr(de->d_name, ".lkp"))
            snprintf(id, sizeof id, "%.*s", (int)(strlen(de->d_name) - 4), de->d_name);
    closedir(d);
    assert_true(id[0]);
    snprintf(path, sizeof path, "%s/%s.lkp", cdir, id);
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    fseek(fp, 300, SEEK_SET);
    fputc(0x5a, fp);
    fputc(0xa5, fp);
    fclose(fp);
    PM_OK_OR_FAIL(pm_lookup_file_open(&lf, c, t, bdir, f, k.fields, &k.layout));
    expect_v(&k, lf, 2, "value-1"); /* the first block is damaged: rebuilt */
    expect_v(&k, lf, 9998, "value-4999");
    pm_lookup_file_close(lf);
    pm_lookup_cache_stats st;
    pm_lookup_cache_stats_get(c, &st);
    assert_int_equal(st.rebuilt, 1);
    snprintf(path, sizeof path, "%s/%s.lki", cdir, id);
    fp = fopen(path, "r+b");
    fseek(fp, 10, SEEK_SET);
    fputc(0x77, fp);
    fclose(fp);
    PM_OK_OR_FAIL(pm_lookup_file_open(&lf, c, t, bdir, f, k.fields, &k.layout));
    expect_v(&k, lf, 100, "value-50");
    pm_lookup_file_close(lf);
    pm_lookup_cache_stats_get(c, &st);
    assert_int_equal(st.rebuilt, 2);
    unlink(path);
    PM_OK_OR_FAIL(pm_lookup_file_open(&lf, c, t, bdir, f, k.fields, &k.layout));
    expect_v(&k, lf, 100, "value-50");
    pm_lookup_file_close(lf);
    assert_int_equal(count_files(cdir, ".tmp"), 0);
    pm_lookup_cache_free(c);
    kit_clear(&k);
    free(bdir);
    pm_scan_result_free(scan);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static off_t size_of_suffix(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    off_t n = -1;
    char path[1600];
    for (struct dirent *de; d && (de = readdir(d));) {
        size_t l = strlen(de->d_name), s = strlen(suffix);
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (l > s && !strcmp(de->d_name + l - s, suffix) && !stat(path, &st))
            n = st.st_size;
    }
    if (d)
        closedir(d);
    return n;
}

/* Blocks fill up to their row or byte limit, every one of them (not only
 * the first: a reset batch keeps its capacity, which must not count). */
static void test_block_sizes(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = pk_create(dir, "wide", "ROW<id INT NOT NULL, v STRING>", NULL, "id",
                            (const char *const[]){"bucket=1", "write-only=true"}, 2);
    pm_buf rows = PM_BUF_INIT;
    for (int i = 0; i < 1200; i++) {
        PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":\"%d-", i * 2, i));
        for (int j = 0; j < 1500; j++)
            PM_OK_OR_FAIL(pm_buf_append_byte(&rows, (uint8_t)('a' + (i + j) % 26)));
        PM_OK_OR_FAIL(pm_buf_append_str(&rows, "\"}\n"));
    }
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
    pk_commit_rows(t, text);
    pm_buf_free(&rows);
    pm_scan_result *scan = NULL;
    char *bdir = NULL;
    const pm_data_file_meta *f = the_file(t, &scan, &bdir);
    kit k;
    kit_init(&k, t);
    pm_lookup_cache *c = cache_of(dir, NULL, NULL, "none");
    pm_lookup_file *lf = NULL;
    PM_OK_OR_FAIL(pm_lookup_file_open(&lf, c, t, bdir, f, k.fields, &k.layout));
    char *v = lookup(&k, lf, 2398);
    assert_non_null(v);
    assert_true(!strncmp(v, "1199-", 5) && strlen(v) == 1505);
    free(v);
    pm_lookup_file_close(lf);
    char cdir[1200];
    snprintf(cdir, sizeof cdir, "%s/cache", dir);
    /* ~1.8 MB of rows in blocks of 256 KiB: about 8 blocks (an index entry
     * each), not one block per row */
    off_t lki = size_of_suffix(cdir, ".lki"), lkp = size_of_suffix(cdir, ".lkp");
    assert_true(lki > 0 && lki < 2048);
    assert_true(lkp > 1200 * 1500 && lkp < 1200 * 1600);
    pm_lookup_cache_free(c);
    kit_clear(&k);
    free(bdir);
    pm_scan_result_free(scan);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_budgets(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_table *t = big_table(dir, "t", 3000, NULL, 0);
    pm_table *u = big_table(dir, "u", 3000, NULL, 0);
    pm_scan_result *s1 = NULL, *s2 = NULL;
    char *d1 = NULL, *d2 = NULL;
    const pm_data_file_meta *f1 = the_file(t, &s1, &d1), *f2 = the_file(u, &s2, &d2);
    kit k;
    kit_init(&k, t);
    /* max-size: room for one file; the older one is evicted */
    pm_lookup_cache *c = cache_of(dir, "90 kb", NULL, "none");
    pm_lookup_file *a = NULL, *b = NULL;
    PM_OK_OR_FAIL(pm_lookup_file_open(&a, c, t, d1, f1, k.fields, &k.layout));
    sleep(1); /* distinct mtimes */
    PM_OK_OR_FAIL(pm_lookup_file_open(&b, c, u, d2, f2, k.fields, &k.layout));
    pm_lookup_cache_stats st;
    pm_lookup_cache_stats_get(c, &st);
    assert_int_equal(st.evicted, 1);
    expect_v(&k, b, 10, "value-5");
    pm_lookup_file_close(a);
    pm_lookup_file_close(b);
    pm_lookup_cache_free(c);
    /* too small for any file: a clear error */
    c = cache_of(dir, "1 kb", NULL, "none");
    pm_error *e = pm_lookup_file_open(&a, c, t, d1, f1, k.fields, &k.layout);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "local-cache.max-size"));
    free(msg);
    pm_error_free(e);
    pm_lookup_cache_free(c);
    /* memory: a batch above the budget is refused naming the option */
    pm_table *w = pk_create(dir, "wide", "ROW<id INT NOT NULL, v STRING>", NULL, "id",
                            (const char *const[]){"bucket=1", "write-only=true"}, 2);
    pm_buf rows = PM_BUF_INIT;
    for (int i = 0; i < 1200; i++) {
        PM_OK_OR_FAIL(pm_buf_printf(&rows, "{\"id\":%d,\"v\":\"", i));
        for (int j = 0; j < 1500; j++)
            PM_OK_OR_FAIL(pm_buf_append_byte(&rows, (uint8_t)('a' + (i + j) % 26)));
        PM_OK_OR_FAIL(pm_buf_append_str(&rows, "\"}\n"));
    }
    const char *text = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
    pk_commit_rows(w, text);
    pm_buf_free(&rows);
    pm_scan_result *s3 = NULL;
    char *d3 = NULL;
    const pm_data_file_meta *f3 = the_file(w, &s3, &d3);
    c = cache_of(dir, NULL, "1 mb", NULL);
    e = pm_lookup_file_open(&a, c, w, d3, f3, k.fields, &k.layout);
    assert_non_null(e);
    msg = pm_error_format(e);
    assert_non_null(strstr(msg, "lookup.cache-max-memory-size"));
    free(msg);
    pm_error_free(e);
    pm_lookup_cache_stats_get(c, &st);
    assert_true(st.peak_memory <= 1 << 20);
    char cdir[1200];
    snprintf(cdir, sizeof cdir, "%s/cache", dir);
    assert_int_equal(count_files(cdir, ".tmp"), 0); /* the failed build cleaned up */
    pm_lookup_cache_free(c);
    free(d3);
    pm_scan_result_free(s3);
    pm_table_free(w);
    kit_clear(&k);
    free(d1);
    free(d2);
    pm_scan_result_free(s1);
    pm_scan_result_free(s2);
    pm_table_free(t);
    pm_table_free(u);
    pm_test_rmtree(dir);
    free(dir);
}

static int64_t latest(pm_table *t)
{
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    int64_t id = scan->snapshot ? scan->snapshot->id : 0;
    pm_scan_result_free(scan);
    return id;
}

static pm_error *compact(pm_table *t, bool full)
{
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.full = full;
    pm_compact_builder *b = NULL;
    PM_TRY(pm_compact_builder_new(&b, t, &o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e = pm_compact_run(&m, b);
    pm_compact_builder_free(b);
    return e;
}

/* Compaction with the cache: the same rows as without; a full disk fails
 * cleanly. */
static void test_compaction(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char cdir[1200], copt[1300];
    snprintf(cdir, sizeof cdir, "%s/cache", dir);
    snprintf(copt, sizeof copt, "local-cache.dir=%s", cdir);
    const char *extra[] = {"deletion-vectors.enabled=true", "local-cache.enabled=true", copt};
    pm_table *t = big_table(dir, "c", 4000, extra, 3);
    pm_table *r = big_table(dir, "ref", 4000, extra, 1); /* streaming lookups */
    pm_table *both[2] = {t, r};
    for (int i = 0; i < 2; i++) {
        PM_OK_OR_FAIL(compact(both[i], true));
        pk_commit_rows(both[i], "{\"id\":10,\"v\":\"u\"}\n{\"id\":11,\"v\":\"new\"}\n{\"id\":7998,\"v\":\"u2\"}\n"
                                "{\"id\":20,\"v\":null,\"_ROW_KIND\":\"-D\"}\n");
    }
    /* a full disk while the Lookup File is built: nothing published, no file left */
    setenv("PAIMON_FAULT_INJECT", "lookup-file-write", 1);
    int64_t before = latest(t);
    pm_error *e = compact(t, false);
    unsetenv("PAIMON_FAULT_INJECT");
    if (e) { /* (builds with NDEBUG have no fault points) */
        char *msg = pm_error_format(e);
        assert_non_null(strstr(msg, "lookup-file-write"));
        free(msg);
        pm_error_free(e);
        assert_int_equal(latest(t), before);
        assert_int_equal(count_files(cdir, ".tmp"), 0);
        assert_int_equal(count_files(cdir, ".lkp"), 0);
    }
    for (int i = 0; i < 2; i++)
        PM_OK_OR_FAIL(compact(both[i], false));
    assert_int_equal(count_files(cdir, ".lkp"), 1);
    char *a = pk_read_sorted(t, 0, NULL, 0), *b = pk_read_sorted(r, 0, NULL, 0);
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "{\"id\":10,\"v\":\"u\"}"));
    assert_null(strstr(a, "{\"id\":20,"));
    free(a);
    free(b);
    /* lookup.cache-max-disk-size is refused */
    pm_table *x = pk_create(dir, "x", "ROW<id INT NOT NULL, v STRING>", NULL, "id",
                            (const char *const[]){"bucket=1", "lookup.cache-max-disk-size=1 gb"}, 2);
    pm_compact_builder *bld = NULL;
    e = pm_compact_builder_new(&bld, x, NULL);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "local-cache.max-size"));
    free(msg);
    pm_error_free(e);
    pm_table_free(x);
    /* the executor takes the cache options from the table: overriding them
     * for one compaction is refused by name (a planning threshold is not) */
    pk_commit_rows(r, "{\"id\":12,\"v\":\"again\"}\n");
    const char *dyn[] = {"local-cache.enabled=true", "num-sorted-run.compaction-trigger=3"};
    pm_compact_options co = PM_COMPACT_OPTIONS_INIT;
    co.dynamic_options = dyn;
    co.ndynamic_options = 1;
    PM_OK_OR_FAIL(pm_compact_builder_new(&bld, r, &co));
    pm_compact_plan *plan = NULL;
    e = pm_compact_plan_new(&plan, bld);
    pm_compact_builder_free(bld);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EUNSUPPORTED);
    msg = pm_error_format(e);
    assert_non_null(strstr(msg, "local-cache.enabled"));
    free(msg);
    pm_error_free(e);
    co.dynamic_options = dyn + 1;
    PM_OK_OR_FAIL(pm_compact_builder_new(&bld, r, &co));
    PM_OK_OR_FAIL(pm_compact_plan_new(&plan, bld));
    pm_compact_plan_free(plan);
    pm_compact_builder_free(bld);
    pm_table_free(t);
    pm_table_free(r);
    pm_test_rmtree(dir);
    free(dir);
}

/* The changelog rows of (from, to] as "<kind> <json>" lines. */
static char *changelog_of(pm_table *t, int64_t from, int64_t to)
{
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.incremental_from = from;
    o.incremental_to = to;
    o.incremental_mode = PM_INCREMENTAL_CHANGELOG;
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_read(&r, t, &o));
    const pm_type *rt = pm_table_schema(t)->row_type;
    pm_buf out = PM_BUF_INIT, line = PM_BUF_INIT;
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_reader_next(&b, r));
        if (!b)
            break;
        pm_batch view = {.type = (pm_type *)rt, .num_rows = b->num_rows, .ncolumns = rt->nfields, .columns = b->columns};
        for (int64_t i = 0; i < b->num_rows; i++) {
            pm_buf_clear(&line);
            PM_OK_OR_FAIL(pm_batch_format_row_json(&view, i, &line));
            size_t kl = 0;
            const uint8_t *kp = pm_column_bytes(b->columns[rt->nfields], i, &kl);
            PM_OK_OR_FAIL(pm_buf_printf(&out, "%.*s %.*s\n", (int)kl, (const char *)kp, (int)line.len,
                                        (const char *)line.data));
        }
    }
    pm_reader_free(r);
    pm_buf_free(&line);
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, 0));
    return (char *)pm_buf_detach(&out, NULL);
}

/* Lookup Files read the retained file through the schema-evolution
 * decoder: after a column is added (schema 1), the history written under
 * schema 0 is looked up with the new column null. */
static void test_schema_evolution(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char copt[1300], cdir[1200];
    snprintf(cdir, sizeof cdir, "%s/cache", dir);
    snprintf(copt, sizeof copt, "local-cache.dir=%s", cdir);
    const char *extra[] = {"changelog-producer=lookup", "local-cache.enabled=true", copt};
    pm_table *t = big_table(dir, "ev", 100, extra, 3);
    PM_OK_OR_FAIL(compact(t, true));
    /* schema 1: w INT added */
    pm_schema *s1 = NULL;
    PM_OK_OR_FAIL(pm_schema_clone(pm_table_schema(t), &s1));
    s1->id = 1;
    s1->highest_field_id++;
    PM_OK_OR_FAIL(pm_type_add_field(s1->row_type, s1->highest_field_id, "w", pm_type_new(PM_TYPE_INT, true)));
    bool committed = false;
    PM_OK_OR_FAIL(pm_schema_commit(t->fio, t->branch_root, s1, &committed));
    assert_true(committed);
    pm_schema_free(s1);
    char path[1200];
    snprintf(path, sizeof path, "%s", t->path);
    pm_table_free(t);
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    assert_int_equal(pm_table_schema(t)->row_type->nfields, 3);
    int64_t before = latest(t);
    pk_commit_rows(t, "{\"id\":10,\"v\":\"b\",\"w\":7}\n{\"id\":11,\"v\":\"n\",\"w\":1}\n");
    PM_OK_OR_FAIL(compact(t, false));
    assert_int_equal(count_files(cdir, ".lkp"), 1); /* through the cache */
    char *cl = changelog_of(t, before, latest(t));
    assert_string_equal(cl, "-U {\"id\":10,\"v\":\"value-5\",\"w\":null}\n+U {\"id\":10,\"v\":\"b\",\"w\":7}\n"
                            "+I {\"id\":11,\"v\":\"n\",\"w\":1}\n");
    free(cl);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_reuse_and_rebuild),
        cmocka_unit_test(test_block_sizes),
        cmocka_unit_test(test_budgets),
        cmocka_unit_test(test_compaction),
        cmocka_unit_test(test_schema_evolution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
