/*
 * tests/unit/compact/test_compact_page_passthrough.c — page-level Parquet
 * passthrough against a rewrite of identical tables (page passthrough
 * switched off): the same rows in the same order, the same DataFileMeta
 * statistics, sequence ranges and file indexes; the outputs are one row
 * group per file (not one per input); plain chunks are copied (their pages
 * keep the inputs' boundaries), dictionary chunks re-encoded; every chunk
 * has an OffsetIndex whose locations are page headers with increasing first
 * rows, and a ColumnIndex except INT96; inputs whose plain column turns
 * dictionary cut the output row group; an input that is decoded goes into
 * the same output (a row group of its own); the off switch rewrites (one
 * page per chunk, the Parquet writer's created_by); the sampled columns
 * are re-encoded by merging their PLAIN pages (whole input pages per output
 * page, so a page row limit that the inputs do not divide shows which
 * columns were merged and which decoded), with the rewrite's rows, file
 * statistics and chunk statistics, and byte for byte the rewrite's chunks
 * when the inputs' pages divide the limit.
 */
#include <string.h>

#include "../table/write_test_util.h"
#include "compact_rows_util.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_read_index.h"
#include "pm_test.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/table_read.h"

/* pages are copied whatever the sample says (tiny inputs compress better merged) */
#define COPY_ALL "compaction.parquet.page-passthrough.reencode-ratio=0"

static const char *ROW = "ROW<id BIGINT NOT NULL, b BOOLEAN, i32 INT, f FLOAT, d DOUBLE, s STRING, low STRING, "
                         "d1 DECIMAL(10, 2), d2 DECIMAL(30, 4), day DATE, ts3 TIMESTAMP(3), ts9 TIMESTAMP(9)>";

/* `files` commits of 40 rows; `s` is unique (plain chunks) except in the
 * commits where dict_at(c) holds (one repeated value: dictionary); with
 * dict_at, the other commits have 10 rows (smaller files come first in a
 * task). */
static pm_table *make(const char *dir, const char *name, const char *const *opts, size_t nopts, int files,
                      bool (*dict_at)(int))
{
    pm_table *t = wt_create(dir, name, ROW, NULL, opts, nopts);
    for (int c = 0; c < files; c++) {
        pm_buf b = PM_BUF_INIT;
        int rows = dict_at && !dict_at(c) ? 10 : 40;
        for (int k = 0; k < rows; k++) {
            int id = c * 40 + k;
            if (id % 9 == 4) {
                PM_OK_OR_FAIL(pm_buf_printf(&b, "{\"id\":%d}\n", id));
                continue;
            }
            char s[64];
            if (dict_at && dict_at(c))
                snprintf(s, sizeof s, "same");
            else
                snprintf(s, sizeof s, "value-%06d-%s", id * 7919 % 100003, id % 3 ? "abcdefghijklmnopqrstuvwxyz" : "é");
            PM_OK_OR_FAIL(pm_buf_printf(
                &b,
                "{\"id\":%d,\"b\":%s,\"i32\":%d,\"f\":%d.5,\"d\":%d.25,\"s\":\"%s\",\"low\":\"l%d\","
                "\"d1\":\"%d.%02d\",\"d2\":\"-%d.1234\",\"day\":\"2024-01-%02d\","
                "\"ts3\":\"2024-01-01T00:00:%02d.123\",\"ts9\":\"2024-01-01T00:00:00.%09d\"}\n",
                id, id % 2 ? "true" : "false", id * 1000 - 77, id - 150, 100 - id, s, id % 3, id, id % 100, id * 11,
                id % 28 + 1, id % 60, id * 1001));
        }
        const char *text;
        PM_OK_OR_FAIL(pm_buf_cstr(&b, &text));
        wt_commit_rows(t, text, PM_COMMIT_APPEND, NULL, 0);
        pm_buf_free(&b);
    }
    return t;
}

/* The table's rows, sorted. */
static char *sorted_rows(pm_table *t)
{
    char *text = rows_text(t);
    char *s = sorted_lines(text);
    free(text);
    return s;
}

static pm_compact_metrics compact(pm_table *t, bool pages)
{
    const char *dyn[] = {pages ? "compaction.parquet.page-passthrough=true" : "compaction.parquet.page-passthrough=false",
                         "compaction.min.file-num=2"};
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, false, NULL, dyn, 2, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    pm_compact_builder_free(b);
    return m;
}

/* The bytes and footer of live file i of the table. */
typedef struct file_view {
    uint8_t *data;
    size_t len;
    pm_pq_file_meta *m;
} file_view;

static file_view view_path(const char *path)
{
    file_view v = {0};
    v.data = pm_test_read_file(path, &v.len);
    assert_non_null(v.data);
    uint32_t flen = (uint32_t)v.data[v.len - 8] | (uint32_t)v.data[v.len - 7] << 8 |
                    (uint32_t)v.data[v.len - 6] << 16 | (uint32_t)v.data[v.len - 5] << 24;
    PM_OK_OR_FAIL(pm_pq_file_meta_parse(&v.m, v.data + v.len - 8 - flen, flen));
    return v;
}

static file_view open_file(pm_table *t, size_t i)
{
    pm_scan_result *s = scan(t);
    assert_true(i < s->buckets[0].nfiles);
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, s->buckets[0].partition.data, s->buckets[0].partition.len, 0, &dir));
    char *path = pm_path_join(dir, s->buckets[0].files[i].file_name);
    file_view v = view_path(path);
    free(path);
    free(dir);
    pm_scan_result_free(s);
    return v;
}

static void close_file(file_view *v)
{
    pm_pq_file_meta_free(v->m);
    free(v->data);
}

/* Pages of chunk c of row group g, checked against its OffsetIndex (which
 * must exist) and ColumnIndex (when present: one entry per page). */
static uint32_t check_chunk_index(const file_view *v, uint32_t g, uint32_t c, bool *has_ci)
{
    const pq_column_chunk *cc = &v->m->row_groups[g].columns[c];
    assert_true(cc->has_offset_index);
    assert_true(cc->offset_index_offset + cc->offset_index_length <= (int64_t)v->len);
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_offset_index oi;
    PM_OK_OR_FAIL(pq_offset_index_parse(&oi, v->data + cc->offset_index_offset, (size_t)cc->offset_index_length, &a));
    assert_true(oi.n > 0);
    assert_int_equal(oi.pages[0].offset, cc->meta_data.data_page_offset);
    int64_t rows = 0;
    for (uint32_t p = 0; p < oi.n; p++) {
        pq_page_header h;
        size_t hl = 0;
        const uint8_t *at = v->data + oi.pages[p].offset;
        PM_OK_OR_FAIL(pm_pq_page_header_parse(&h, at, v->len - (size_t)oi.pages[p].offset, &hl));
        assert_int_equal((int64_t)hl + h.compressed_page_size, oi.pages[p].size);
        assert_int_equal(oi.pages[p].first_row, rows);
        assert_int_equal(h.type, PQ_DATA_PAGE);
        rows += h.data_page_header.num_values;
        if (p + 1 < oi.n)
            assert_int_equal(oi.pages[p].offset + oi.pages[p].size, oi.pages[p + 1].offset);
        else
            assert_int_equal(oi.pages[p].offset + oi.pages[p].size,
                             (cc->meta_data.has_dictionary_page_offset ? cc->meta_data.dictionary_page_offset
                                                                       : cc->meta_data.data_page_offset) +
                                 cc->meta_data.total_compressed_size);
    }
    assert_int_equal(rows, v->m->row_groups[g].num_rows);
    *has_ci = cc->has_column_index;
    if (cc->has_column_index) {
        pq_column_index ci;
        PM_OK_OR_FAIL(pq_column_index_parse(&ci, v->data + cc->column_index_offset, (size_t)cc->column_index_length,
                                            &a));
        assert_int_equal(ci.n, oi.n);
    }
    uint32_t n = oi.n;
    pm_arena_free(&a);
    return n;
}

static ptrdiff_t leaf_of(const pm_pq_file_meta *m, const char *name)
{
    for (uint32_t c = 0; c < m->row_groups[0].num_columns; c++)
        if (!strcmp(m->row_groups[0].columns[c].meta_data.path_in_schema[0], name))
            return c;
    return -1;
}

static void assert_meta_equal(const pm_data_file_meta *a, const pm_data_file_meta *b)
{
    assert_int_equal(a->row_count, b->row_count);
    assert_int_equal(a->min_sequence_number, b->min_sequence_number);
    assert_int_equal(a->max_sequence_number, b->max_sequence_number);
    assert_int_equal(a->file_source.v, PM_FILE_SOURCE_COMPACT);
    assert_true(pm_compact_bytes_equal(&a->value_stats.min_values, &b->value_stats.min_values));
    assert_true(pm_compact_bytes_equal(&a->value_stats.max_values, &b->value_stats.max_values));
    assert_int_equal(a->value_stats.null_count_len, b->value_stats.null_count_len);
    for (size_t i = 0; i < a->value_stats.null_count_len; i++) {
        assert_int_equal(a->value_stats.null_counts[i].has, b->value_stats.null_counts[i].has);
        assert_int_equal(a->value_stats.null_counts[i].v, b->value_stats.null_counts[i].v);
    }
    assert_true(pm_compact_bytes_equal(&a->embedded_index, &b->embedded_index));
}

/* Chunk statistics of two chunks of one column: values, nulls, min/max. */
static void assert_chunk_stats_equal(const pq_column_meta *cm, const pq_column_meta *bm)
{
    assert_int_equal(cm->num_values, bm->num_values);
    assert_int_equal(cm->statistics.null_count, bm->statistics.null_count);
    assert_int_equal(cm->statistics.has_min_value, bm->statistics.has_min_value);
    if (cm->statistics.has_min_value) {
        assert_int_equal(cm->statistics.min_value_len, bm->statistics.min_value_len);
        assert_memory_equal(cm->statistics.min_value, bm->statistics.min_value, cm->statistics.min_value_len);
        assert_memory_equal(cm->statistics.max_value, bm->statistics.max_value, cm->statistics.max_value_len);
    }
}

static void same_as_rewrite(const char *const *opts, size_t nopts, bool indexed)
{
    char *dir = pm_test_tmpdir();
    pm_table *a = make(dir, "a", opts, nopts, 6, NULL), *b = make(dir, "b", opts, nopts, 6, NULL);
    char *before = rows_text(a);
    pm_compact_metrics ma = compact(a, true), mb = compact(b, false);
    assert_int_equal(ma.files_removed, 6);
    assert_int_equal(mb.files_removed, 6);
    assert_int_equal(ma.files_added, 1);
    assert_int_equal(mb.files_added, 1);
    assert_int_equal(ma.rows_written, 240);
    char *ra = sorted_rows(a), *rb = sorted_rows(b);
    assert_string_equal(ra, rb);
    pm_scan_result *sa = scan(a), *sb = scan(b);
    assert_meta_equal(&sa->buckets[0].files[0], &sb->buckets[0].files[0]);
    if (indexed)
        assert_true(sa->buckets[0].files[0].embedded_index.len > 0);
    pm_scan_result_free(sa);
    pm_scan_result_free(sb);
    {
        char *sb = sorted_lines(before);
        free(before);
        before = sb;
    }
    assert_string_equal(before, ra);
    file_view va = open_file(a, 0), vb = open_file(b, 0);
    assert_int_equal(va.m->num_row_groups, 1);
    assert_string_equal(va.m->created_by, "paimon-c compaction (passthrough)");
    assert_true(strcmp(vb.m->created_by, "paimon-c compaction (passthrough)") != 0);
    for (uint32_t c = 0; c < va.m->row_groups[0].num_columns; c++) {
        const pq_column_meta *cm = &va.m->row_groups[0].columns[c].meta_data;
        bool has_ci = false, has_ci_b = false;
        uint32_t pa = check_chunk_index(&va, 0, c, &has_ci);
        uint32_t pb = check_chunk_index(&vb, 0, c, &has_ci_b);
        const char *name = cm->path_in_schema[0];
        bool dict = cm->has_dictionary_page_offset;
        bool is_indexed = indexed && !strcmp(name, "i32");
        if (!dict && !is_indexed) {
            /* copied: the inputs' pages (one per input), not the rewrite's one page */
            assert_int_equal(pa, 6);
            assert_int_equal(pb, 1);
        } else {
            assert_int_equal(pa, pb);
        }
        assert_int_equal(has_ci, has_ci_b); /* INT96 (ts9) has none, the others have one */
        assert_int_equal(has_ci, strcmp(name, "ts9") != 0);
        assert_chunk_stats_equal(cm, &vb.m->row_groups[0].columns[c].meta_data); /* as the rewrite's */
    }
    /* the low-cardinality column is re-encoded with a dictionary, s copied plain */
    assert_true(va.m->row_groups[0].columns[leaf_of(va.m, "low")].meta_data.has_dictionary_page_offset);
    assert_false(va.m->row_groups[0].columns[leaf_of(va.m, "s")].meta_data.has_dictionary_page_offset);
    close_file(&va);
    close_file(&vb);
    free(ra);
    free(rb);
    free(before);
    pm_table_free(a);
    pm_table_free(b);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_same_as_rewrite(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=-1", COPY_ALL};
    same_as_rewrite(opts, 2, false);
}

static void test_file_index_column_reencoded(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=-1", "file-index.bloom-filter.columns=i32", "file-index.in-manifest-threshold=1mb",
                          COPY_ALL};
    same_as_rewrite(opts, 4, true);
}

static bool odd(int c) { return c % 2 == 1; }

/* s is plain in even inputs and a dictionary in odd ones: an odd input
 * cannot join a group that copies s, so row groups are cut there. */
static void test_dictionary_cuts_row_group(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1", COPY_ALL};
    pm_table *a = make(dir, "a", opts, 2, 6, odd), *b = make(dir, "b", opts, 2, 6, odd);
    compact(a, true);
    compact(b, false);
    char *ra = sorted_rows(a), *rb = sorted_rows(b);
    assert_string_equal(ra, rb);
    pm_scan_result *sa = scan(a), *sb = scan(b);
    assert_int_equal(sa->buckets[0].nfiles, 1);
    assert_meta_equal(&sa->buckets[0].files[0], &sb->buckets[0].files[0]);
    pm_scan_result_free(sa);
    pm_scan_result_free(sb);
    file_view va = open_file(a, 0);
    /* the three smaller inputs (plain s) make a group that copies s; the
     * first dictionary input cuts it and starts one that re-encodes s */
    assert_int_equal(va.m->num_row_groups, 2);
    assert_int_equal(va.m->row_groups[0].num_rows, 30);
    assert_false(va.m->row_groups[0].columns[leaf_of(va.m, "s")].meta_data.has_dictionary_page_offset);
    assert_true(va.m->row_groups[1].columns[leaf_of(va.m, "s")].meta_data.has_dictionary_page_offset);
    for (uint32_t g = 0; g < va.m->num_row_groups; g++)
        for (uint32_t c = 0; c < va.m->row_groups[g].num_columns; c++) {
            bool has_ci;
            check_chunk_index(&va, g, c, &has_ci);
        }
    close_file(&va);
    free(ra);
    free(rb);
    pm_table_free(a);
    pm_table_free(b);
    pm_test_rmtree(dir);
    free(dir);
}

/* An input that is not copied (flagged with _WRITE_COLS: decoded) between
 * copied ones: its rows go through the same writer in a row group of their
 * own, so the task still writes one output, rows and sequence numbers in
 * input order. */
static void test_decoded_input_same_output(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=-1", COPY_ALL};
    pm_table *c = make(dir, "c", opts, 2, 5, NULL);
    char *before = sorted_rows(c);
    const char *dyn[] = {"compaction.min.file-num=2"};
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, false, NULL, dyn, 1, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *bld = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&bld, c, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, bld));
    assert_int_equal(p->ntasks, 1);
    pm_compact_task *task = p->tasks[0];
    assert_true(task->output.page_passthrough); /* the default */
    const pm_type *rt = pm_table_schema(c)->row_type;
    task->files[2].has_write_cols = true;
    task->files[2].write_cols.count = rt->nfields;
    task->files[2].write_cols.items = calloc(rt->nfields, sizeof(char *));
    for (size_t i = 0; i < rt->nfields; i++)
        task->files[2].write_cols.items[i] = strdup(rt->fields[i].name);
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_execute(&r, c, task, NULL));
    assert_int_equal(r->nafter, 1);
    assert_int_equal(r->after[0].row_count, 200);
    assert_int_equal(r->after[0].min_sequence_number, task->files[0].min_sequence_number);
    assert_int_equal(r->after[0].max_sequence_number, task->files[0].min_sequence_number + 199);
    task->files[2].has_write_cols = false; /* the committer compares with the live metadata */
    pm_str_list_free(&task->files[2].write_cols);
    pm_data_file_meta_clear(&r->before[2]);
    PM_OK_OR_FAIL(pm_data_file_meta_copy(&r->before[2], &task->files[2]));
    PM_OK_OR_FAIL(pm_compact_commit(NULL, c, NULL, &r, 1));
    char *after = sorted_rows(c);
    assert_string_equal(before, after);
    /* [inputs 0-1 copied] [input 2 decoded] [inputs 3-4 copied] */
    file_view v = open_file(c, 0);
    assert_int_equal(v.m->num_row_groups, 3);
    assert_int_equal(v.m->row_groups[0].num_rows, 80);
    assert_int_equal(v.m->row_groups[1].num_rows, 40);
    assert_int_equal(v.m->row_groups[2].num_rows, 80);
    ptrdiff_t sc = leaf_of(v.m, "s");
    for (uint32_t g = 0; g < 3; g++) {
        bool has_ci;
        uint32_t np = check_chunk_index(&v, g, (uint32_t)sc, &has_ci);
        assert_int_equal(np, g == 1 ? 1 : 2); /* copied: one page per input */
    }
    close_file(&v);
    free(after);
    free(before);
    pm_compact_result_free(r);
    pm_compact_plan_free(p);
    pm_compact_builder_free(bld);
    pm_table_free(c);
    pm_test_rmtree(dir);
    free(dir);
}

static int64_t live_bytes(pm_table *t)
{
    pm_scan_result *s = scan(t);
    int64_t n = 0;
    for (size_t i = 0; i < s->buckets[0].nfiles; i++)
        n += s->buckets[0].files[i].file_size;
    pm_scan_result_free(s);
    return n;
}

/* The default sample: tiny inputs' plain pages compress much better merged,
 * so those columns are re-encoded (one page, no dictionary, as the rewrite
 * writes them), the output is smaller than with every page copied, and an
 * invalid ratio is refused when planning, before anything is written. */
static void test_sample_reencodes(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *dflt[] = {"bucket=-1"}, *copy[] = {"bucket=-1", COPY_ALL};
    pm_table *a = make(dir, "a", dflt, 1, 6, NULL), *b = make(dir, "b", copy, 2, 6, NULL),
             *r = make(dir, "r", dflt, 1, 6, NULL);
    char *before = sorted_rows(a);
    compact(a, true);
    compact(b, true);
    compact(r, false);
    char *ra = sorted_rows(a), *rr = sorted_rows(r);
    assert_string_equal(before, ra);
    assert_string_equal(ra, rr);
    pm_scan_result *sa = scan(a), *sr = scan(r);
    assert_meta_equal(&sa->buckets[0].files[0], &sr->buckets[0].files[0]);
    pm_scan_result_free(sa);
    pm_scan_result_free(sr);
    assert_true(live_bytes(a) < live_bytes(b));
    assert_true((double)live_bytes(a) <= 1.1 * (double)live_bytes(r));
    file_view v = open_file(a, 0);
    bool has_ci;
    uint32_t sc = (uint32_t)leaf_of(v.m, "s");
    assert_int_equal(check_chunk_index(&v, 0, sc, &has_ci), 1);
    assert_false(v.m->row_groups[0].columns[sc].meta_data.has_dictionary_page_offset);
    close_file(&v);
    free(before);
    free(ra);
    free(rr);
    pm_table_free(a);
    pm_table_free(b);
    pm_table_free(r);
    /* a ratio out of range is refused by the task, which writes nothing */
    const char *bad[] = {"bucket=-1", "compaction.parquet.page-passthrough.reencode-ratio=2"};
    pm_table *c = make(dir, "c", bad, 2, 3, NULL);
    pm_scan_result *s0 = scan(c);
    size_t nf = s0->buckets[0].nfiles;
    pm_scan_result_free(s0);
    const char *dyn[] = {"compaction.min.file-num=2"};
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, false, NULL, dyn, 1, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *bld = NULL;
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e = pm_compact_builder_new(&bld, c, &o);
    if (!e)
        e = pm_compact_run(&m, bld);
    pm_test_expect_error(e, PM_EINVALID, "reencode-ratio");
    pm_compact_builder_free(bld);
    char bucket[1024];
    snprintf(bucket, sizeof bucket, "%s/db.db/c/bucket-0", dir);
    assert_int_equal(wt_count_files(bucket, "data-"), nf);
    pm_table_free(c);
    pm_test_rmtree(dir);
    free(dir);
}

/* Rows per data page of chunk c of row group 0 (at most 16 pages). */
static size_t page_rows(const file_view *v, uint32_t c, int64_t *rows)
{
    const pq_column_chunk *cc = &v->m->row_groups[0].columns[c];
    pm_arena a;
    pm_arena_init(&a, 0);
    pq_offset_index oi;
    PM_OK_OR_FAIL(pq_offset_index_parse(&oi, v->data + cc->offset_index_offset, (size_t)cc->offset_index_length, &a));
    assert_true(oi.n <= 16);
    for (uint32_t p = 0; p < oi.n; p++)
        rows[p] = (p + 1 < oi.n ? oi.pages[p + 1].first_row : v->m->row_groups[0].num_rows) - oi.pages[p].first_row;
    size_t n = oi.n;
    pm_arena_free(&a);
    return n;
}

/* The sampled plain columns (40-row inputs compress much better merged)
 * are merged page by page: with a page row limit of 100, a merged chunk's
 * pages hold whole inputs (80, 80, 80 rows), a decoded one's are cut at the
 * limit (100, 100, 40: BOOLEAN, INT96 and the FIXED_LEN_BYTE_ARRAY decimal,
 * which are not merged); rows, file and chunk statistics as the rewrite's.
 * With the default limit (one page per chunk) the merged chunks are the
 * rewrite's, byte for byte, page index included. */
static void test_sampled_columns_merged(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *lim[] = {"bucket=-1", "parquet.page.row.count.limit=100"}, *dflt[] = {"bucket=-1"};
    pm_table *a = make(dir, "a", lim, 2, 6, NULL), *r = make(dir, "r", lim, 2, 6, NULL),
             *a2 = make(dir, "a2", dflt, 1, 6, NULL), *r2 = make(dir, "r2", dflt, 1, 6, NULL);
    char *before = sorted_rows(a);
    compact(a, true);
    compact(r, false);
    compact(a2, true);
    compact(r2, false);
    char *ra = sorted_rows(a), *rr = sorted_rows(r), *ra2 = sorted_rows(a2);
    assert_string_equal(before, ra);
    assert_string_equal(ra, rr);
    assert_string_equal(ra, ra2);
    pm_scan_result *sa = scan(a), *sr = scan(r);
    assert_meta_equal(&sa->buckets[0].files[0], &sr->buckets[0].files[0]);
    pm_scan_result_free(sa);
    pm_scan_result_free(sr);
    file_view va = open_file(a, 0), vr = open_file(r, 0);
    assert_int_equal(va.m->num_row_groups, 1);
    int merged = 0;
    for (uint32_t c = 0; c < va.m->row_groups[0].num_columns; c++) {
        const pq_column_meta *cm = &va.m->row_groups[0].columns[c].meta_data;
        const char *name = cm->path_in_schema[0];
        bool has_ci;
        check_chunk_index(&va, 0, c, &has_ci);
        if (cm->has_dictionary_page_offset)
            continue;
        int64_t rows[16];
        size_t n = page_rows(&va, c, rows);
        bool whole = n == 3 && rows[0] == 80 && rows[1] == 80 && rows[2] == 80;
        bool cut = n == 3 && rows[0] == 100 && rows[1] == 100 && rows[2] == 40;
        if (!strcmp(name, "b") || !strcmp(name, "ts9") || !strcmp(name, "d2"))
            assert_true(cut);
        if (!strcmp(name, "s") || !strcmp(name, "d") || !strcmp(name, "i32"))
            assert_true(whole);
        assert_true(whole || cut || n == 6); /* merged, decoded or copied */
        merged += whole;
        assert_chunk_stats_equal(cm, &vr.m->row_groups[0].columns[c].meta_data); /* as the rewrite's */
    }
    assert_true(merged >= 3);
    close_file(&va);
    close_file(&vr);
    /* one page per chunk: the merged chunks are the rewrite's */
    file_view v2 = open_file(a2, 0), w2 = open_file(r2, 0);
    for (uint32_t c = 0; c < v2.m->row_groups[0].num_columns; c++) {
        const pq_column_chunk *x = &v2.m->row_groups[0].columns[c], *y = &w2.m->row_groups[0].columns[c];
        const char *name = x->meta_data.path_in_schema[0];
        if (strcmp(name, "s") && strcmp(name, "d") && strcmp(name, "i32"))
            continue;
        assert_false(y->meta_data.has_dictionary_page_offset);
        assert_int_equal(x->meta_data.total_compressed_size, y->meta_data.total_compressed_size);
        assert_memory_equal(v2.data + x->meta_data.data_page_offset, w2.data + y->meta_data.data_page_offset,
                            (size_t)x->meta_data.total_compressed_size);
        assert_int_equal(x->column_index_length, y->column_index_length);
        assert_memory_equal(v2.data + x->column_index_offset, w2.data + y->column_index_offset,
                            (size_t)x->column_index_length);
        assert_int_equal(x->offset_index_length, y->offset_index_length);
        /* (the OffsetIndex holds absolute offsets: its length is the same) */
    }
    close_file(&v2);
    close_file(&w2);
    free(before);
    free(ra);
    free(rr);
    free(ra2);
    pm_table_free(a);
    pm_table_free(r);
    pm_table_free(a2);
    pm_table_free(r2);
    pm_test_rmtree(dir);
    free(dir);
}


/* Two partitions (one task each): in `a` the plain column s compresses
 * much better merged (re-encoded by its own sample), in `b` it is random
 * hex (copied by its own sample). */
static pm_table *make_two(const char *dir, const char *name)
{
    const char *opts[] = {"bucket=-1"};
    pm_table *t = wt_create(dir, name, "ROW<p STRING, id BIGINT, s STRING>", "p", opts, 1);
    uint64_t x = 88172645463325252ull;
    for (int c = 0; c < 12; c++) {
        pm_buf b = PM_BUF_INIT;
        for (int k = 0; k < 40; k++) {
            char s[256];
            if (c % 2 == 0) {
                snprintf(s, sizeof s, "value-%06d-abcdefghijklmnopqrstuvwxyz", c * 40 + k);
            } else {
                for (int j = 0; j < 200; j++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    s[j] = "0123456789abcdef"[x & 15];
                }
                s[200] = 0;
            }
            PM_OK_OR_FAIL(pm_buf_printf(&b, "{\"p\":\"%s\",\"id\":%d,\"s\":\"%s\"}\n", c % 2 ? "b" : "a", c * 40 + k, s));
        }
        const char *text;
        PM_OK_OR_FAIL(pm_buf_cstr(&b, &text));
        wt_commit_rows(t, text, PM_COMMIT_APPEND, NULL, 0);
        pm_buf_free(&b);
    }
    return t;
}

/* Pages of column s in the one live file of partition p. */
static uint32_t s_pages(pm_table *t, const char *p)
{
    pm_scan_result *s = scan(t);
    uint32_t pages = 0;
    int seen = 0;
    for (size_t i = 0; i < s->nbuckets; i++) {
        char *dir = NULL;
        PM_OK_OR_FAIL(pm_table_bucket_dir(t, s->buckets[i].partition.data, s->buckets[i].partition.len, 0, &dir));
        char want[16];
        snprintf(want, sizeof want, "/p=%s/", p);
        if (strstr(dir, want)) {
            assert_int_equal(s->buckets[i].nfiles, 1);
            char *path = pm_path_join(dir, s->buckets[i].files[0].file_name);
            file_view v = view_path(path);
            bool has_ci;
            ptrdiff_t c = leaf_of(v.m, "s");
            assert_true(c >= 0);
            assert_false(v.m->row_groups[0].columns[c].meta_data.has_dictionary_page_offset);
            pages = check_chunk_index(&v, 0, (uint32_t)c, &has_ci);
            close_file(&v);
            free(path);
            seen++;
        }
        free(dir);
    }
    pm_scan_result_free(s);
    assert_int_equal(seen, 1);
    return pages;
}

static void compact_two(pm_table *t, pm_resources *r, size_t parallelism)
{
    const char *dyn[] = {"compaction.parquet.page-passthrough=true", "compaction.min.file-num=2"};
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.commit_user = "u";
    o.dynamic_options = dyn;
    o.ndynamic_options = 2;
    o.resources = r;
    o.parallelism = parallelism;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    assert_int_equal(m.files_removed, 12);
    assert_int_equal(m.files_added, 2);
    pm_compact_builder_free(b);
}

/* The sample decides once per compaction: the tasks of one plan on one
 * table handle take the first task's decision (one thread, or two threads
 * at once: both partitions' s chunks alike), while each task executed on a
 * handle of its own samples for itself (a re-encoded: one page, b copied:
 * its six input pages); the rows are the inputs' in every case. */
static void test_sample_shared_by_tasks(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    /* alone: each task on its own handle */
    pm_table *t = make_two(dir, "alone");
    char *before = sorted_rows(t);
    const char *dyn[] = {"compaction.parquet.page-passthrough=true", "compaction.min.file-num=2"};
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.commit_user = "u";
    o.dynamic_options = dyn;
    o.ndynamic_options = 2;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    assert_int_equal(pm_compact_plan_task_count(p), 2);
    pm_compact_result *res[2] = {NULL, NULL};
    for (size_t i = 0; i < 2; i++) {
        pm_table *own = NULL;
        PM_OK_OR_FAIL(pm_table_open(&own, pm_table_path(t), NULL));
        PM_OK_OR_FAIL(pm_compact_execute(&res[i], own, pm_compact_plan_task(p, i), NULL));
        pm_table_free(own);
    }
    PM_OK_OR_FAIL(pm_compact_commit(NULL, t, NULL, res, 2));
    for (size_t i = 0; i < 2; i++)
        pm_compact_result_free(res[i]);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    char *after = sorted_rows(t);
    assert_string_equal(before, after);
    free(after);
    assert_int_equal(s_pages(t, "a"), 1);
    assert_int_equal(s_pages(t, "b"), 6);
    pm_table_free(t);
    /* one handle, one thread, then two threads */
    pm_resources *r2 = NULL;
    PM_OK_OR_FAIL(pm_resources_new(&r2, 256 << 20, 2));
    for (int run = 0; run < 2; run++) {
        pm_table *s = make_two(dir, run ? "two" : "one");
        compact_two(s, run ? r2 : NULL, run ? 2 : 1);
        after = sorted_rows(s);
        assert_string_equal(before, after);
        free(after);
        uint32_t pa = s_pages(s, "a"), pb = s_pages(s, "b");
        assert_int_equal(pa, pb);
        assert_true(pa == 1 || pa == 6);
        pm_table_free(s);
    }
    pm_resources_free(r2);
    free(before);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_rewrite),
        cmocka_unit_test(test_file_index_column_reencoded),
        cmocka_unit_test(test_dictionary_cuts_row_group),
        cmocka_unit_test(test_decoded_input_same_output),
        cmocka_unit_test(test_sample_reencodes),
        cmocka_unit_test(test_sampled_columns_merged),
        cmocka_unit_test(test_sample_shared_by_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
