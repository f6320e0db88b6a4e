/*
 * tests/unit/table/test_read_table.c — file and table readers on tables
 * built by hand (Parquet data files written with the paimon-c writer,
 * manifests and snapshots with the meta writers):
 *  - schema evolution by field id: renamed, dropped, added, widened and
 *    reordered fields; the snapshot's schema for time travel;
 *  - `_WRITE_COLS` files holding a subset of the columns;
 *  - primary-key (KeyValue) files: system columns, retract rows dropped,
 *    overlapping files merged on read (table/pk_read.h);
 *  - projection, partition filter, missing data file error.
 */
#include <string.h>

#include "base/mem.h"
#include "dv/dv_index_file.h"
#include "meta/index_path.h"
#include "format/parquet/parquet_writer.h"
#include "meta/manifest.h"
#include "pm_test.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/table_commit.h"
#include "table/table_write.h"
#include "table/table_read.h"
#include "types/binary_row.h"
#include "types/value.h"

static pm_type *ty(const char *s)
{
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, s));
    return t;
}

/* Write JSON lines as a Parquet file of `row_type` into dir/name. */
static void write_parquet(pm_table *t, const char *dir, const char *name, const char *row_type, const char *jsonl)
{
    pm_type *rt = ty(row_type);
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, rt, jsonl, strlen(jsonl)));
    char *path = pm_path_join(dir, name);
    pm_output *out = NULL;
    PM_OK_OR_FAIL(pm_output_create(t->fio, path, false, &out));
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    pm_pq_writer *w = NULL;
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, rt, &o));
    PM_OK_OR_FAIL(pm_pq_writer_write(w, b));
    PM_OK_OR_FAIL(pm_pq_writer_close(w, NULL));
    PM_OK_OR_FAIL(pm_output_close(out, false));
    free(path);
    pm_batch_free(b);
    pm_type_free(rt);
}

static void empty_row(pm_bytes *out)
{
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 0));
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_binrow_serialize(&w, &b));
    PM_OK_OR_FAIL(pm_bytes_set(out, b.data, b.len));
    out->has = true;
    pm_buf_free(&b);
    pm_binrow_writer_free(&w);
}

static void int_key(int32_t k, pm_bytes *out)
{
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    pm_binrow_set_i32(&w, 0, k);
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_binrow_serialize(&w, &b));
    PM_OK_OR_FAIL(pm_bytes_set(out, b.data, b.len));
    out->has = true;
    pm_buf_free(&b);
    pm_binrow_writer_free(&w);
}

static void str_part(const char *v, pm_bytes *out)
{
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, v, strlen(v)));
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_binrow_serialize(&w, &b));
    PM_OK_OR_FAIL(pm_bytes_set(out, b.data, b.len));
    out->has = true;
    pm_buf_free(&b);
    pm_binrow_writer_free(&w);
}

static void file_meta(pm_manifest_entry *e, const char *part, const char *name, int64_t rows, int64_t schema_id,
                      int32_t level)
{
    memset(e, 0, sizeof *e);
    e->kind = PM_FILE_ADD;
    if (part)
        str_part(part, &e->partition);
    else
        empty_row(&e->partition);
    e->bucket = 0;
    e->total_buckets = part ? -1 : 1;
    pm_data_file_meta *f = &e->file;
    PM_OK_OR_FAIL(pm_strdup(&f->file_name, name));
    f->file_size = 1;
    f->row_count = rows;
    empty_row(&f->min_key);
    empty_row(&f->max_key);
    PM_OK_OR_FAIL(pm_simple_stats_empty(&f->key_stats));
    PM_OK_OR_FAIL(pm_simple_stats_empty(&f->value_stats));
    f->max_sequence_number = rows - 1;
    f->schema_id = schema_id;
    f->level = level;
    f->delete_row_count.has = true;
}

/* Commit one snapshot whose delta adds `es` on top of `base` metas
 * (index manifest: the name is taken, NULL = none). */
static void commit_index(pm_table *t, int64_t id, int64_t schema_id, pm_manifest_entry *es, size_t n,
                         pm_manifest_file_meta **all, size_t *nall, char *index_manifest)
{
    pm_manifest_file_meta *m = NULL;
    size_t nm = 0;
    PM_OK_OR_FAIL(pm_manifest_write(t->fio, t->paths, pm_table_options(t), t->partition_type, schema_id, es, n, &m,
                                    &nm));
    pm_snapshot *s = NULL;
    PM_OK_OR_FAIL(pm_snapshot_new(&s));
    int64_t size;
    PM_OK_OR_FAIL(pm_manifest_list_write(t->fio, t->paths, pm_table_options(t), *all, *nall, &s->base_manifest_list,
                                         &size));
    PM_OK_OR_FAIL(pm_manifest_list_write(t->fio, t->paths, pm_table_options(t), m, nm, &s->delta_manifest_list,
                                         &size));
    s->id = id;
    s->schema_id = schema_id;
    s->index_manifest = index_manifest;
    PM_OK_OR_FAIL(pm_strdup(&s->commit_user, "u"));
    s->commit_kind = PM_COMMIT_APPEND;
    s->time_millis = id * 1000;
    bool ok = false;
    PM_OK_OR_FAIL(pm_snapshot_store_commit(t->snapshots, s, &ok));
    assert_true(ok);
    pm_snapshot_free(s);
    if (nm) {
        PM_OK_OR_FAIL(pm_realloc_array(all, *nall + nm, sizeof **all));
        memcpy(*all + *nall, m, nm * sizeof *m);
        *nall += nm;
    }
    free(m);
    for (size_t i = 0; i < n; i++)
        pm_manifest_entry_clear(&es[i]);
}

static void commit(pm_table *t, int64_t id, int64_t schema_id, pm_manifest_entry *es, size_t n,
                   pm_manifest_file_meta **all, size_t *nall)
{
    commit_index(t, id, schema_id, es, n, all, nall, NULL);
}

/* Read the whole table state as JSON lines (sorted is not needed: order is manifest order). */
static char *read_all(pm_table *t, int64_t snapshot, const char *const *cols, size_t ncols, const char *part,
                      size_t threads, pm_code *code)
{
    pm_scan_options o = pm_scan_options_default();
    o.snapshot_id = snapshot;
    o.fallback_branch = true;
    pm_partition_spec spec;
    if (part) {
        PM_OK_OR_FAIL(pm_partition_spec_parse(part, &spec));
        o.partitions = &spec;
        o.npartitions = 1;
    }
    pm_scan_result *r = NULL;
    pm_table_reader *rd = NULL;
    pm_buf out = PM_BUF_INIT;
    pm_table_read_options ro = {cols, ncols, 2, NULL};
    pm_error *e = pm_table_scan(t, &o, &r);
    if (!e)
        e = pm_table_reader_new(&rd, t, r, &ro);
    if (!e)
        pm_table_reader_set_threads(rd, threads);
    while (!e) {
        const pm_batch *b = NULL;
        e = pm_table_reader_next(rd, &b);
        if (e || !b)
            break;
        assert_true(b->num_rows > 0 && b->num_rows <= 2);
        for (int64_t i = 0; i < b->num_rows; i++) {
            PM_OK_OR_FAIL(pm_batch_format_row_json(b, i, &out));
            PM_OK_OR_FAIL(pm_buf_append_byte(&out, '\n'));
        }
    }
    char *res = NULL;
    *code = e ? pm_error_root_code(e) : PM_OK;
    if (e) {
        char *m = pm_error_format(e);
        res = m;
        pm_error_free(e);
    } else {
        PM_OK_OR_FAIL(pm_buf_append_byte(&out, 0));
        res = strdup((const char *)out.data);
    }
    pm_buf_free(&out);
    pm_table_reader_free(rd);
    pm_scan_result_free(r);
    if (part)
        pm_partition_spec_clear(&spec);
    return res;
}

static void expect_rows(pm_table *t, int64_t snapshot, const char *const *cols, size_t ncols, const char *part,
                        const char *want)
{
    /* the caller's thread only, then with read-ahead threads: same rows, same order */
    for (size_t threads = 1; threads <= 3; threads += 2) {
        pm_code c;
        char *got = read_all(t, snapshot, cols, ncols, part, threads, &c);
        if (c != PM_OK || strcmp(got, want))
            fail_msg("read (snapshot %lld, %zu threads) gave [code %d]\n%s\nwant\n%s", (long long)snapshot,
                     threads, (int)c, got, want);
        free(got);
    }
}

static void expect_error(pm_table *t, int64_t snapshot, pm_code code, const char *needle)
{
    for (size_t threads = 1; threads <= 3; threads += 2) {
        pm_code c;
        char *got = read_all(t, snapshot, NULL, 0, NULL, threads, &c);
        if (c != code || !strstr(got, needle))
            fail_msg("expected error %d containing '%s' (%zu threads), got [%d] %s", (int)code, needle, threads,
                     (int)c, got);
        free(got);
    }
}

/* Append table: schema 0 (id INT, name STRING, v INT, dt STRING) partitioned by dt,
 * one file; ALTER → schema 1 (v BIGINT first, id, full_name (renamed), dt, extra DOUBLE;
 * dt kept, nothing dropped but 'name' renamed); second file with schema 1, third
 * file with _WRITE_COLS [dt, id]. */
/* Rows of a file reader as "v|id|full_name;" text (schema 1's read type). */
static void reader_text(pm_file_reader *fr, pm_buf *out)
{
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_file_reader_next(fr, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            char tmp[96];
            int k = snprintf(tmp, sizeof tmp, "%lld|%d|",
                             pm_column_is_null(b->columns[0], i) ? -1LL : (long long)pm_column_i64(b->columns[0], i),
                             pm_column_i32(b->columns[1], i));
            PM_OK_OR_FAIL(pm_buf_append(out, tmp, (size_t)k));
            if (pm_column_is_null(b->columns[2], i)) {
                PM_OK_OR_FAIL(pm_buf_append(out, "<null>", 6));
            } else {
                size_t len;
                const uint8_t *p = pm_column_bytes(b->columns[2], i, &len);
                PM_OK_OR_FAIL(pm_buf_append(out, p, len));
            }
            PM_OK_OR_FAIL(pm_buf_append(out, ";", 1));
        }
    }
}

static void test_schema_evolution(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/db.db/evo", dir);
    pm_type *rt = ty("ROW<id INT, name STRING, v INT, dt STRING, gone INT>");
    const char *pk[] = {"dt"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, pk, 1, NULL, 0, NULL, NULL, 0, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));

    char bdir[600];
    snprintf(bdir, sizeof bdir, "%s/dt=a/bucket-0", path);
    write_parquet(t, bdir, "f0.parquet", "ROW<id INT, name STRING, v INT, dt STRING, gone INT>",
                  "{\"id\":1,\"name\":\"x\",\"v\":10,\"dt\":\"a\",\"gone\":7}\n"
                  "{\"id\":2,\"name\":null,\"v\":-20,\"dt\":\"a\",\"gone\":8}\n"
                  "{\"id\":3,\"name\":\"z\",\"v\":2147483647,\"dt\":\"a\",\"gone\":9}\n");
    pm_manifest_file_meta *all = NULL;
    size_t nall = 0;
    pm_manifest_entry e0;
    file_meta(&e0, "a", "f0.parquet", 3, 0, 0);
    commit(t, 1, 0, &e0, 1, &all, &nall);

    /* schema 1: reorder, rename, widen, drop 'gone', add 'extra' */
    pm_schema *s1 = NULL;
    PM_OK_OR_FAIL(pm_schema_clone(pm_table_schema(t), &s1));
    s1->id = 1;
    pm_type_free(s1->row_type);
    s1->row_type = pm_type_new_row(false);
    PM_OK_OR_FAIL(pm_type_add_field(s1->row_type, 2, "v", pm_type_new(PM_TYPE_BIGINT, true)));
    PM_OK_OR_FAIL(pm_type_add_field(s1->row_type, 0, "id", pm_type_new(PM_TYPE_INT, true)));
    PM_OK_OR_FAIL(pm_type_add_field(s1->row_type, 1, "full_name", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    PM_OK_OR_FAIL(pm_type_add_field(s1->row_type, 3, "dt", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)));
    PM_OK_OR_FAIL(pm_type_add_field(s1->row_type, 5, "extra", pm_type_new(PM_TYPE_DOUBLE, true)));
    s1->highest_field_id = 5;
    bool ok = false;
    PM_OK_OR_FAIL(pm_schema_commit(t->fio, t->branch_root, s1, &ok));
    assert_true(ok);
    pm_schema_free(s1);
    bool changed = false;
    PM_OK_OR_FAIL(pm_table_reload(t, &changed));
    assert_true(changed);

    write_parquet(t, bdir, "f1.parquet", "ROW<v BIGINT, id INT, full_name STRING, dt STRING, extra DOUBLE>",
                  "{\"v\":5000000000,\"id\":4,\"full_name\":\"w\",\"dt\":\"a\",\"extra\":0.5}\n");
    /* a file holding only dt and id (e.g. written with a write type) */
    write_parquet(t, bdir, "f2.parquet", "ROW<dt STRING, id INT>", "{\"dt\":\"a\",\"id\":5}\n");
    pm_manifest_entry e1[2];
    file_meta(&e1[0], "a", "f1.parquet", 1, 1, 0);
    file_meta(&e1[1], "a", "f2.parquet", 1, 1, 0);
    e1[1].file.has_write_cols = true;
    PM_OK_OR_FAIL(pm_calloc(&e1[1].file.write_cols.items, 2, sizeof(char *)));
    PM_OK_OR_FAIL(pm_strdup(&e1[1].file.write_cols.items[0], "dt"));
    PM_OK_OR_FAIL(pm_strdup(&e1[1].file.write_cols.items[1], "id"));
    e1[1].file.write_cols.count = 2;
    commit(t, 2, 1, e1, 2, &all, &nall);

    /* latest: schema 1 */
    expect_rows(t, 0, NULL, 0, NULL,
                "{\"v\":10,\"id\":1,\"full_name\":\"x\",\"dt\":\"a\",\"extra\":null}\n"
                "{\"v\":-20,\"id\":2,\"full_name\":null,\"dt\":\"a\",\"extra\":null}\n"
                "{\"v\":2147483647,\"id\":3,\"full_name\":\"z\",\"dt\":\"a\",\"extra\":null}\n"
                "{\"v\":5000000000,\"id\":4,\"full_name\":\"w\",\"dt\":\"a\",\"extra\":0.5}\n"
                "{\"v\":null,\"id\":5,\"full_name\":null,\"dt\":\"a\",\"extra\":null}\n");
    /* time travel: snapshot 1 reads with schema 0 */
    expect_rows(t, 1, NULL, 0, NULL,
                "{\"id\":1,\"name\":\"x\",\"v\":10,\"dt\":\"a\",\"gone\":7}\n"
                "{\"id\":2,\"name\":null,\"v\":-20,\"dt\":\"a\",\"gone\":8}\n"
                "{\"id\":3,\"name\":\"z\",\"v\":2147483647,\"dt\":\"a\",\"gone\":9}\n");
    /* projection, reordered */
    const char *cols[] = {"extra", "full_name"};
    expect_rows(t, 0, cols, 2, "dt=a",
                "{\"extra\":null,\"full_name\":\"x\"}\n{\"extra\":null,\"full_name\":null}\n"
                "{\"extra\":null,\"full_name\":\"z\"}\n{\"extra\":0.5,\"full_name\":\"w\"}\n"
                "{\"extra\":null,\"full_name\":null}\n");
    expect_rows(t, 0, cols, 2, "dt=b", "");
    const char *bad[] = {"name"};
    pm_code c;
    char *msg = read_all(t, 0, bad, 1, NULL, 1, &c);
    assert_int_equal(c, PM_EINVALID);
    free(msg);

    /* read-ahead: free the reader after the first batch, while files are in flight */
    {
        pm_scan_result *sr = NULL;
        pm_table_reader *rd = NULL;
        PM_OK_OR_FAIL(pm_table_scan(t, NULL, &sr));
        pm_table_read_options ro = {NULL, 0, 1, NULL};
        PM_OK_OR_FAIL(pm_table_reader_new(&rd, t, sr, &ro));
        pm_table_reader_set_threads(rd, 3);
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_table_reader_next(rd, &b));
        assert_non_null(b);
        assert_int_equal(b->num_rows, 1);
        assert_int_equal(pm_column_i32(b->columns[1], 0), 1);
        pm_table_reader_free(rd);
        pm_scan_result_free(sr);
    }

    /* file reader directly: positions and batch size */
    const pm_schema *s = pm_table_schema(t);
    pm_scan_result *r = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, NULL, &r));
    char *bd = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, r->buckets[0].partition.data, r->buckets[0].partition.len, 0, &bd));
    pm_file_read_options fo = {s->row_type, 2, false, NULL};
    pm_file_reader *fr = NULL;
    PM_OK_OR_FAIL(pm_file_reader_open(&fr, t, bd, &r->buckets[0].files[0], &fo));
    const pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_file_reader_next(fr, &b));
    assert_int_equal(b->num_rows, 2);
    assert_int_equal(pm_file_reader_position(fr), 0);
    PM_OK_OR_FAIL(pm_file_reader_next(fr, &b));
    assert_int_equal(b->num_rows, 1);
    assert_int_equal(pm_file_reader_position(fr), 2);
    assert_int_equal(b->columns[0]->type->id, PM_TYPE_BIGINT);
    assert_int_equal(pm_column_i64(b->columns[0], 0), 2147483647);
    PM_OK_OR_FAIL(pm_file_reader_next(fr, &b));
    assert_null(b);
    pm_file_reader_free(fr);
    /* system columns only for primary-key tables */
    fo.with_system_columns = true;
    PM_EXPECT_ERR(pm_file_reader_open(&fr, t, bd, &r->buckets[0].files[0], &fo), PM_EINVALID);
    fo.with_system_columns = false;

    /* one reader reopened for a series of files (schema 0, schema 1, a
     * column subset, the same file twice): the rows of a fresh reader each */
    assert_int_equal(r->buckets[0].nfiles, 3);
    size_t order[] = {0, 0, 1, 2, 1, 1, 0, 2, 2};
    pm_file_reader *series = NULL;
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        const pm_data_file_meta *f = &r->buckets[0].files[order[k]];
        PM_OK_OR_FAIL(pm_file_reader_reopen(&series, t, bd, f, &fo, NULL, 0));
        PM_OK_OR_FAIL(pm_file_reader_open(&fr, t, bd, f, &fo));
        pm_buf want = PM_BUF_INIT, got = PM_BUF_INIT;
        reader_text(fr, &want);
        reader_text(series, &got);
        assert_true(want.len > 0);
        assert_int_equal(want.len, got.len);
        assert_memory_equal(want.data, got.data, want.len);
        pm_file_reader_free(fr);
        pm_buf_free(&want);
        pm_buf_free(&got);
    }
    /* a file that cannot be opened (after one of the same schema, so the
     * reader is reused): the reader is gone */
    size_t whole = r->buckets[0].files[0].has_write_cols ? 1 : 0;
    PM_OK_OR_FAIL(pm_file_reader_reopen(&series, t, bd, &r->buckets[0].files[whole], &fo, NULL, 0));
    pm_data_file_meta missing = r->buckets[0].files[whole];
    missing.file_name = "nope.parquet";
    PM_EXPECT_ERR(pm_file_reader_reopen(&series, t, bd, &missing, &fo, NULL, 0), PM_ENOTFOUND);
    assert_null(series);
    free(bd);

    /* missing data file: clear error */
    char fp[700];
    snprintf(fp, sizeof fp, "%s/f1.parquet", bdir);
    PM_OK_OR_FAIL(pm_fileio_delete(t->fio, fp));
    expect_error(t, 0, PM_ENOTFOUND, "f1.parquet");
    pm_scan_result_free(r);
    pm_manifest_file_metas_free(all, nall);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Primary-key table (k INT, v STRING), KeyValue files. */
static void test_primary_key(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/db.db/pk", dir);
    pm_type *rt = ty("ROW<k INT NOT NULL, v STRING>");
    const char *pks[] = {"k"};
    const char *ok[] = {"bucket"}, *ov[] = {"1"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, pks, 1, ok, ov, 1, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    char bdir[600];
    snprintf(bdir, sizeof bdir, "%s/bucket-0", path);
    const char *kv = "ROW<_KEY_k INT NOT NULL, _SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT NULL, "
                     "k INT NOT NULL, v STRING>";
    write_parquet(t, bdir, "a.parquet", kv,
                  "{\"_KEY_k\":1,\"_SEQUENCE_NUMBER\":0,\"_VALUE_KIND\":0,\"k\":1,\"v\":\"one\"}\n"
                  "{\"_KEY_k\":2,\"_SEQUENCE_NUMBER\":1,\"_VALUE_KIND\":3,\"k\":2,\"v\":\"gone\"}\n"
                  "{\"_KEY_k\":3,\"_SEQUENCE_NUMBER\":2,\"_VALUE_KIND\":2,\"k\":3,\"v\":\"three\"}\n");
    write_parquet(t, bdir, "b.parquet", kv, "{\"_KEY_k\":5,\"_SEQUENCE_NUMBER\":3,\"_VALUE_KIND\":0,\"k\":5,\"v\":\"five\"}\n");
    write_parquet(t, bdir, "c.parquet", kv, "{\"_KEY_k\":3,\"_SEQUENCE_NUMBER\":4,\"_VALUE_KIND\":0,\"k\":3,\"v\":\"new\"}\n");
    pm_manifest_file_meta *all = NULL;
    size_t nall = 0;
    pm_manifest_entry es[2];
    file_meta(&es[0], NULL, "a.parquet", 3, 0, 0);
    pm_bytes_clear(&es[0].file.min_key);
    pm_bytes_clear(&es[0].file.max_key);
    int_key(1, &es[0].file.min_key);
    int_key(3, &es[0].file.max_key);
    es[0].file.delete_row_count.v = 1;
    file_meta(&es[1], NULL, "b.parquet", 1, 0, 0);
    pm_bytes_clear(&es[1].file.min_key);
    pm_bytes_clear(&es[1].file.max_key);
    int_key(5, &es[1].file.min_key);
    int_key(5, &es[1].file.max_key);
    commit(t, 1, 0, es, 2, &all, &nall);
    /* disjoint key ranges, deduplicate: raw read, retract row dropped */
    expect_rows(t, 0, NULL, 0, NULL,
                "{\"k\":1,\"v\":\"one\"}\n{\"k\":3,\"v\":\"three\"}\n{\"k\":5,\"v\":\"five\"}\n");
    /* an overlapping level-0 file: merged */
    pm_manifest_entry e2;
    file_meta(&e2, NULL, "c.parquet", 1, 0, 0);
    pm_bytes_clear(&e2.file.min_key);
    pm_bytes_clear(&e2.file.max_key);
    int_key(3, &e2.file.min_key);
    int_key(3, &e2.file.max_key);
    commit(t, 2, 0, &e2, 1, &all, &nall);
    /* merged on read: key 3 takes the newer record (sequence 4) */
    expect_rows(t, 0, NULL, 0, NULL, "{\"k\":1,\"v\":\"one\"}\n{\"k\":3,\"v\":\"new\"}\n{\"k\":5,\"v\":\"five\"}\n");
    expect_rows(t, 1, NULL, 0, NULL,
                "{\"k\":1,\"v\":\"one\"}\n{\"k\":3,\"v\":\"three\"}\n{\"k\":5,\"v\":\"five\"}\n");
    /* first-row engine / deletion vectors: batch reads skip level-0 files */
    PM_OK_OR_FAIL(pm_options_set(t->schema->options, "merge-engine", "first-row"));
    expect_rows(t, 0, NULL, 0, NULL, "");
    PM_OK_OR_FAIL(pm_options_set(t->schema->options, "merge-engine", "deduplicate"));
    PM_OK_OR_FAIL(pm_options_set(t->schema->options, "deletion-vectors.enabled", "true"));
    expect_rows(t, 0, NULL, 0, NULL, "");
    pm_manifest_file_metas_free(all, nall);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Append table with deletion vectors: deleted positions disappear, also
 * across batch boundaries; a DV index file that is gone is a clear error. */
static void test_deletion_vectors(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/db.db/dv", dir);
    pm_type *rt = ty("ROW<id INT, s STRING>");
    const char *ok[] = {"deletion-vectors.enabled"}, *ov[] = {"true"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, NULL, 0, ok, ov, 1, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    char bdir[600];
    snprintf(bdir, sizeof bdir, "%s/bucket-0", path);
    write_parquet(t, bdir, "d.parquet", "ROW<id INT, s STRING>",
                  "{\"id\":0,\"s\":\"a\"}\n{\"id\":1,\"s\":\"b\"}\n{\"id\":2,\"s\":\"c\"}\n"
                  "{\"id\":3,\"s\":\"d\"}\n{\"id\":4,\"s\":\"e\"}\n");
    pm_manifest_file_meta *all = NULL;
    size_t nall = 0;
    pm_manifest_entry e;
    file_meta(&e, NULL, "d.parquet", 5, 0, 0);
    commit(t, 1, 0, &e, 1, &all, &nall);
    expect_rows(t, 0, NULL, 0, NULL,
                "{\"id\":0,\"s\":\"a\"}\n{\"id\":1,\"s\":\"b\"}\n{\"id\":2,\"s\":\"c\"}\n"
                "{\"id\":3,\"s\":\"d\"}\n{\"id\":4,\"s\":\"e\"}\n");

    pm_dv *dv = NULL;
    PM_OK_OR_FAIL(pm_dv_new(false, &dv));
    PM_OK_OR_FAIL(pm_dv_add(dv, 1, NULL));
    PM_OK_OR_FAIL(pm_dv_add(dv, 2, NULL));
    PM_OK_OR_FAIL(pm_dv_add(dv, 4, NULL));
    pm_dv_map *map = NULL;
    PM_OK_OR_FAIL(pm_dv_map_new(&map));
    PM_OK_OR_FAIL(pm_dv_map_put(map, "d.parquet", dv));
    char *idir = NULL;
    PM_OK_OR_FAIL(pm_index_dir(t->paths, bdir, &idir));
    pm_index_manifest_entry ie;
    memset(&ie, 0, sizeof ie);
    ie.kind = PM_FILE_ADD;
    empty_row(&ie.partition);
    PM_OK_OR_FAIL(pm_dv_index_write_single(t->fio, t->paths, idir, map, &ie.index_file));
    char *iname = NULL;
    int64_t isize = 0;
    PM_OK_OR_FAIL(pm_index_manifest_write(t->fio, t->paths, pm_table_options(t), &ie, 1, &iname, &isize));
    char *ipath = NULL;
    PM_OK_OR_FAIL(pm_index_file_path(t->paths, bdir, &ie.index_file, &ipath));
    commit_index(t, 2, 0, NULL, 0, &all, &nall, iname);
    /* batches of 2 rows: positions 1|2 and 4 straddle batch boundaries */
    expect_rows(t, 0, NULL, 0, NULL, "{\"id\":0,\"s\":\"a\"}\n{\"id\":3,\"s\":\"d\"}\n");
    const char *cols[] = {"s"};
    expect_rows(t, 0, cols, 1, NULL, "{\"s\":\"a\"}\n{\"s\":\"d\"}\n");
    expect_rows(t, 1, NULL, 0, NULL,
                "{\"id\":0,\"s\":\"a\"}\n{\"id\":1,\"s\":\"b\"}\n{\"id\":2,\"s\":\"c\"}\n"
                "{\"id\":3,\"s\":\"d\"}\n{\"id\":4,\"s\":\"e\"}\n");
    PM_OK_OR_FAIL(pm_fileio_delete(t->fio, ipath));
    expect_error(t, 0, PM_ENOTFOUND, "deletion vector of data file d.parquet");
    free(ipath);
    free(idir);
    pm_index_manifest_entry_clear(&ie);
    pm_dv_map_free(map);
    pm_manifest_file_metas_free(all, nall);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

/* Blob tables: data-evolution ones write and read; others are refused
 * with a clear message. */
static void test_unsupported_tables(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/db.db/blob", dir);
    pm_type *rt = ty("ROW<id INT, pic BLOB>");
    const char *ok[] = {"row-tracking.enabled", "data-evolution.enabled"}, *ov[] = {"true", "true"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, NULL, 0, ok, ov, 2, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    /* data-evolution tables with BLOB columns read (table/de_read.h) and
     * write (table/blob_write.h): the empty table reads as no rows, a row
     * written reads back */
    expect_rows(t, 0, NULL, 0, NULL, "");
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_batch *b = NULL;
    const char *js = "{\"id\":1,\"pic\":\"AAE=\"}\n{\"id\":2,\"pic\":null}\n";
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, pm_table_schema(t)->row_type, js, strlen(js)));
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_message *m = NULL;
    size_t nm = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &nm));
    assert_int_equal(nm, 1);
    assert_int_equal(m[0].n_new_files, 2); /* the normal file, then its blob file */
    assert_true(strstr(m[0].new_files[1].file_name, ".blob") != NULL);
    pm_commit_options co = {0};
    co.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    int64_t sid = 0;
    PM_OK_OR_FAIL(pm_table_commit(t, &co, m, nm, &sid));
    pm_commit_message_array_free(m, nm);
    pm_table_writer_free(w);
    expect_rows(t, 0, NULL, 0, NULL, "{\"id\":1,\"pic\":\"AAE=\"}\n{\"id\":2,\"pic\":null}\n");
    pm_table_free(t);
    /* without data evolution a BLOB column is still refused naming it */
    snprintf(path, sizeof path, "%s/db.db/plainblob", dir);
    rt = ty("ROW<id INT, pic BLOB>");
    pm_table_spec plain = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, NULL, 0, NULL, NULL, 0, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &plain, false));
    pm_type_free(rt);
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    pm_error *e = pm_table_writer_new(&w, t, NULL);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EUNSUPPORTED);
    char *msg = pm_error_format(e);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "BLOB column 'pic'"));
    free(msg);
    pm_error_free(e);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_evolution),
        cmocka_unit_test(test_primary_key),
        cmocka_unit_test(test_deletion_vectors),
        cmocka_unit_test(test_unsupported_tables),
    };
    return cmocka_run_group_tests_name("table_read", tests, NULL, NULL);
}
