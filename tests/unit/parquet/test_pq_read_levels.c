/*
 * tests/unit/parquet/test_pq_read_levels.c — record assembly from
 * hand-built files: a small builder writes INT32 leaf columns as v1 data
 * pages (RLE or legacy BIT_PACKED levels, PLAIN values) with a footer of
 * our own, then the reader's rows (as `paimon cat` JSON) are compared with
 * the expected text.  Covers legacy 2-level lists, bare repeated fields,
 * "array"-named list groups, legacy MAP_KEY_VALUE maps, nulls at several
 * struct levels, records spanning pages and batches, projection by id, the
 * row-group filter, statistics, and levels that contradict each other.
 */
#include <string.h>

#include "pm_test.h"
#include "base/buf.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "types/column.h"

typedef struct col_spec {
    size_t n;                 /* level entries */
    const uint16_t *def, *rep;
    const int32_t *vals;      /* one per entry with def == max_def */
    int max_def, max_rep;
    const size_t *splits;     /* entry indexes where a new page starts (0-terminated list) */
    bool bitpacked_def;       /* legacy BIT_PACKED definition levels */
    bool stats;               /* write min/max statistics */
} col_spec;

static int bw_of(int max)
{
    int w = 0;
    while (max >> w)
        w++;
    return w;
}

/* RLE hybrid with one RLE run per value (simple, valid). */
static void rle_levels(pm_buf *b, const uint16_t *lv, size_t n, int max)
{
    size_t start = b->len;
    PM_OK_OR_FAIL(pm_buf_append_zeros(b, 4));
    int bytes = (bw_of(max) + 7) / 8;
    for (size_t i = 0; i < n; i++) {
        PM_OK_OR_FAIL(pm_buf_append_byte(b, 2)); /* run of 1 */
        for (int k = 0; k < bytes; k++)
            PM_OK_OR_FAIL(pm_buf_append_byte(b, (uint8_t)(lv[i] >> (8 * k))));
    }
    uint32_t len = (uint32_t)(b->len - start - 4);
    memcpy(b->data + start, &len, 4);
}

static void msb_levels(pm_buf *b, const uint16_t *lv, size_t n, int max)
{
    int bw = bw_of(max);
    size_t start = b->len;
    PM_OK_OR_FAIL(pm_buf_append_zeros(b, (n * (size_t)bw + 7) / 8));
    size_t bit = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = bw - 1; k >= 0; k--, bit++)
            if ((lv[i] >> k) & 1)
                b->data[start + bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
}

/* Write one column chunk; returns its value count. */
static void write_chunk(pm_buf *file, const col_spec *c, int64_t *start, int64_t *len)
{
    *start = (int64_t)file->len;
    size_t page_starts[16] = {0}, np = 1;
    for (const size_t *s = c->splits; s && *s; s++)
        page_starts[np++] = *s;
    page_starts[np] = c->n;
    size_t vi = 0;
    for (size_t p = 0; p < np; p++) {
        size_t a = page_starts[p], e = page_starts[p + 1];
        pm_buf body = PM_BUF_INIT;
        if (c->max_rep)
            rle_levels(&body, c->rep + a, e - a, c->max_rep);
        if (c->max_def) {
            if (c->bitpacked_def)
                msb_levels(&body, c->def + a, e - a, c->max_def);
            else
                rle_levels(&body, c->def + a, e - a, c->max_def);
        }
        for (size_t i = a; i < e; i++)
            if (!c->max_def || c->def[i] == c->max_def)
                PM_OK_OR_FAIL(pm_buf_append(&body, &c->vals[vi++], 4));
        pq_page_header h = {0};
        h.type = PQ_DATA_PAGE;
        h.uncompressed_page_size = h.compressed_page_size = (int32_t)body.len;
        h.has_data_page_header = true;
        h.data_page_header.num_values = (int32_t)(e - a);
        h.data_page_header.encoding = PQ_ENC_PLAIN;
        h.data_page_header.definition_level_encoding = c->bitpacked_def ? PQ_ENC_BIT_PACKED : PQ_ENC_RLE;
        h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
        PM_OK_OR_FAIL(pm_pq_page_header_serialize(&h, file));
        PM_OK_OR_FAIL(pm_buf_append(file, body.data, body.len));
        pm_buf_free(&body);
    }
    *len = (int64_t)file->len - *start;
}

/* Build a whole file: schema elements + columns, `groups` identical row groups of `rows` rows. */
static uint8_t *build_file(const pq_schema_element *schema, uint32_t nschema, const col_spec *cols, uint32_t ncols,
                           int64_t rows, uint32_t groups, size_t *size)
{
    pm_buf f = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_buf_append(&f, "PAR1", 4));
    pm_pq_file_meta *m;
    PM_OK_OR_FAIL(pm_pq_file_meta_new(&m));
    m->schema = (pq_schema_element *)schema;
    m->num_schema = nschema;
    m->num_rows = rows * groups;
    m->num_row_groups = groups;
    m->row_groups = pm_arena_calloc(&m->arena, groups * sizeof(pq_row_group), 8);
    static int32_t encs[2] = {PQ_ENC_PLAIN, PQ_ENC_RLE};
    static const char *path[1] = {"x"};
    for (uint32_t g = 0; g < groups; g++) {
        pq_row_group *rg = &m->row_groups[g];
        rg->num_rows = rows;
        rg->num_columns = ncols;
        rg->columns = pm_arena_calloc(&m->arena, ncols * sizeof(pq_column_chunk), 8);
        for (uint32_t i = 0; i < ncols; i++) {
            int64_t start, len;
            write_chunk(&f, &cols[i], &start, &len);
            pq_column_chunk *cc = &rg->columns[i];
            cc->file_offset = start;
            cc->has_meta_data = true;
            pq_column_meta *cm = &cc->meta_data;
            cm->type = PQ_INT32;
            cm->encodings = encs;
            cm->num_encodings = 2;
            cm->path_in_schema = path;
            cm->path_len = 1;
            cm->num_values = (int64_t)cols[i].n;
            cm->total_compressed_size = cm->total_uncompressed_size = len;
            cm->data_page_offset = start;
            if (cols[i].stats) {
                cm->has_statistics = true;
                int32_t mn = cols[i].vals[0], mx = cols[i].vals[0];
                size_t nv = 0;
                for (size_t k = 0; k < cols[i].n; k++)
                    if (!cols[i].max_def || cols[i].def[k] == cols[i].max_def) {
                        int32_t v = cols[i].vals[nv++];
                        mn = v < mn ? v : mn;
                        mx = v > mx ? v : mx;
                    }
                uint8_t *b = pm_arena_alloc(&m->arena, 8, 4);
                memcpy(b, &mn, 4);
                memcpy(b + 4, &mx, 4);
                cm->statistics.has_min_value = cm->statistics.has_max_value = true;
                cm->statistics.min_value = b;
                cm->statistics.max_value = b + 4;
                cm->statistics.min_value_len = cm->statistics.max_value_len = 4;
            }
        }
    }
    size_t fstart = f.len;
    PM_OK_OR_FAIL(pm_pq_file_meta_serialize(m, &f));
    PM_OK_OR_FAIL(pm_buf_append_u32le(&f, (uint32_t)(f.len - fstart)));
    PM_OK_OR_FAIL(pm_buf_append(&f, "PAR1", 4));
    m->schema = NULL;
    pm_pq_file_meta_free(m);
    return pm_buf_detach(&f, size);
}

/* All rows as JSON lines (one '\n' after each). */
static pm_error *read_all(const uint8_t *data, size_t size, const pm_pq_reader_options *o, pm_buf *out)
{
    pm_pq_reader *r;
    PM_TRY(pm_pq_reader_open_memory(&r, data, size, o));
    pm_error *e = NULL;
    for (;;) {
        pm_batch *b;
        e = pm_pq_reader_next_batch(r, &b);
        if (e || !b)
            break;
        for (int64_t i = 0; i < pm_batch_num_rows(b) && !e; i++) {
            e = pm_batch_format_row_json(b, i, out);
            if (!e)
                e = pm_buf_append_byte(out, '\n');
        }
        if (e)
            break;
    }
    pm_pq_reader_free(r);
    return e;
}

static void expect_rows(const uint8_t *data, size_t size, int64_t batch_rows, const char *want)
{
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.batch_rows = batch_rows;
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(read_all(data, size, &o, &out));
    const char *s;
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &s));
    assert_string_equal(s, want);
    pm_buf_free(&out);
}

#define EL_ROOT(n) {.name = "root", .has_num_children = true, .num_children = (n)}

static void test_two_level_list_and_page_spanning_records(void **state)
{
    (void)state;
    pq_schema_element s[3] = {EL_ROOT(1)};
    s[1] = (pq_schema_element){.name = "l", .has_repetition = true, .repetition = PQ_OPTIONAL,
                               .has_num_children = true, .num_children = 1, .has_converted_type = true,
                               .converted_type = PQ_CT_LIST};
    s[2] = (pq_schema_element){.name = "element", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_REPEATED};
    /* [1,2], [], null, [3] */
    const uint16_t def[] = {2, 2, 1, 0, 2}, rep[] = {0, 1, 0, 0, 0};
    const int32_t vals[] = {1, 2, 3};
    const size_t splits[] = {1, 3, 0}; /* record [1,2] spans pages 0 and 1 */
    col_spec c = {5, def, rep, vals, 2, 1, splits, false, false};
    size_t size;
    uint8_t *f = build_file(s, 3, &c, 1, 4, 1, &size);
    const char *want = "{\"l\":[1,2]}\n{\"l\":[]}\n{\"l\":null}\n{\"l\":[3]}\n";
    for (int64_t b = 1; b <= 5; b++)
        expect_rows(f, size, b, want);
    free(f);
}

static void test_bare_repeated_and_array_group(void **state)
{
    (void)state;
    /* r: repeated int32 (top level) → ARRAY<INT NOT NULL> NOT NULL;
     * l: optional group (LIST) { repeated group array { required int32 x } } */
    pq_schema_element s[5] = {EL_ROOT(2)};
    s[1] = (pq_schema_element){.name = "r", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_REPEATED};
    s[2] = (pq_schema_element){.name = "l", .has_repetition = true, .repetition = PQ_OPTIONAL,
                               .has_num_children = true, .num_children = 1, .has_logical_type = true,
                               .logical_type = {.kind = PQ_LT_LIST}};
    s[3] = (pq_schema_element){.name = "array", .has_repetition = true, .repetition = PQ_REPEATED,
                               .has_num_children = true, .num_children = 1};
    s[4] = (pq_schema_element){.name = "x", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_REQUIRED};
    const uint16_t rdef[] = {1, 1, 0, 1}, rrep[] = {0, 1, 0, 0};
    const int32_t rvals[] = {5, 6, 7};
    const uint16_t ldef[] = {2, 2, 0, 1}, lrep[] = {0, 1, 0, 0};
    const int32_t lvals[] = {1, 2};
    col_spec c[2] = {{4, rdef, rrep, rvals, 1, 1, NULL, false, false}, {4, ldef, lrep, lvals, 2, 1, NULL, false, false}};
    size_t size;
    uint8_t *f = build_file(s, 5, c, 2, 3, 1, &size);
    expect_rows(f, size, 2,
                "{\"r\":[5,6],\"l\":[{\"x\":1},{\"x\":2}]}\n{\"r\":[],\"l\":null}\n{\"r\":[7],\"l\":[]}\n");
    pm_pq_reader *r;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, f, size, NULL));
    char *t = pm_type_to_string(pm_pq_reader_schema(r));
    assert_string_equal(t, "ROW<r ARRAY<INT NOT NULL> NOT NULL, l ARRAY<ROW<x INT NOT NULL> NOT NULL>> NOT NULL");
    free(t);
    pm_pq_reader_free(r);
    free(f);
}

static void test_legacy_map_and_struct_nulls(void **state)
{
    (void)state;
    pq_schema_element s[10] = {EL_ROOT(2)};
    s[1] = (pq_schema_element){.name = "m", .has_repetition = true, .repetition = PQ_OPTIONAL,
                               .has_num_children = true, .num_children = 1, .has_converted_type = true,
                               .converted_type = PQ_CT_MAP_KEY_VALUE};
    s[2] = (pq_schema_element){.name = "map", .has_repetition = true, .repetition = PQ_REPEATED,
                               .has_num_children = true, .num_children = 2};
    s[3] = (pq_schema_element){.name = "key", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_REQUIRED};
    s[4] = (pq_schema_element){.name = "value", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_OPTIONAL, .has_field_id = true, .field_id = 9};
    s[5] = (pq_schema_element){.name = "s", .has_repetition = true, .repetition = PQ_OPTIONAL,
                               .has_num_children = true, .num_children = 2, .has_field_id = true, .field_id = 42};
    s[6] = (pq_schema_element){.name = "a", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_OPTIONAL};
    s[7] = (pq_schema_element){.name = "t", .has_repetition = true, .repetition = PQ_OPTIONAL,
                               .has_num_children = true, .num_children = 1};
    s[8] = (pq_schema_element){.name = "b", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_REQUIRED};
    /* m: {1:10, 2:null}, {}, null */
    const uint16_t kdef[] = {2, 2, 1, 0}, krep[] = {0, 1, 0, 0};
    const int32_t kvals[] = {1, 2};
    const uint16_t vdef[] = {3, 2, 1, 0}, vrep[] = {0, 1, 0, 0};
    const int32_t vvals[] = {10};
    /* s: {a:1, t:{b:2}}, {a:null, t:null}, null — a: 3 entries, b: 3 entries (legacy BIT_PACKED def) */
    const uint16_t adef[] = {2, 1, 0}, bdef[] = {2, 1, 0};
    const int32_t avals[] = {1}, bvals[] = {2};
    col_spec c[4] = {{4, kdef, krep, kvals, 2, 1, NULL, false, false},
                     {4, vdef, vrep, vvals, 3, 1, NULL, false, false},
                     {3, adef, NULL, avals, 2, 0, NULL, false, false},
                     {3, bdef, NULL, bvals, 2, 0, NULL, true, false}};
    size_t size;
    /* m has 4 entries for 3 rows; s has 3 */
    uint8_t *f = build_file(s, 9, c, 4, 3, 1, &size);
    expect_rows(f, size, 4,
                "{\"m\":[{\"key\":1,\"value\":10},{\"key\":2,\"value\":null}],\"s\":{\"a\":1,\"t\":{\"b\":2}}}\n"
                "{\"m\":[],\"s\":{\"a\":null,\"t\":null}}\n"
                "{\"m\":null,\"s\":null}\n");
    /* projection by field id: s (42) only */
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    const int32_t ids[] = {42};
    o.column_ids = ids;
    o.ncolumn_ids = 1;
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(read_all(f, size, &o, &out));
    const char *txt;
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &txt));
    assert_string_equal(txt, "{\"s\":{\"a\":1,\"t\":{\"b\":2}}}\n{\"s\":{\"a\":null,\"t\":null}}\n{\"s\":null}\n");
    pm_buf_free(&out);
    /* field ids: explicit where present, else the position */
    pm_pq_reader *r;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, f, size, NULL));
    const pm_type *t = pm_pq_reader_schema(r);
    assert_int_equal(t->fields[0].id, 0);
    assert_int_equal(t->fields[1].id, 42);
    assert_int_equal(t->fields[1].type->fields[1].id, 1);
    assert_int_equal(t->fields[0].type->id, PM_TYPE_MAP);
    assert_false(t->fields[0].type->key->nullable);
    pm_pq_reader_free(r);
    const int32_t bad_ids[] = {7};
    o.column_ids = bad_ids;
    PM_EXPECT_ERR(pm_pq_reader_open_memory(&r, f, size, &o), PM_EINVALID);
    free(f);
}

static bool skip_first(void *ctx, const pm_pq_reader *r, uint32_t rg)
{
    int *calls = ctx;
    (*calls)++;
    /* keep row groups whose max statistic of column 0 is > 100 */
    const pm_type *t = pm_pq_reader_leaf_type(r, 0);
    pm_column *col;
    bool present;
    if (pm_column_new(&col, t))
        return true;
    pm_error *e = pm_pq_reader_stat(r, rg, 0, true, col, &present);
    bool keep = !e && present && pm_column_i32(col, 0) > 100 && rg == 1;
    pm_error_free(e);
    pm_column_release(col);
    return keep;
}

static void test_row_groups_filter_and_stats(void **state)
{
    (void)state;
    pq_schema_element s[2] = {EL_ROOT(1)};
    s[1] = (pq_schema_element){.name = "v", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_OPTIONAL};
    enum { R = 300 };
    uint16_t def[R];
    int32_t vals[R];
    size_t nv = 0;
    for (int i = 0; i < R; i++) {
        def[i] = i % 7 != 3;
        if (def[i])
            vals[nv++] = i - 5;
    }
    const size_t splits[] = {100, 250, 0};
    col_spec c = {R, def, NULL, vals, 1, 0, splits, false, true};
    size_t size;
    uint8_t *f = build_file(s, 2, &c, 1, R, 3, &size);
    /* all rows, batches of 64, three row groups */
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.batch_rows = 64;
    pm_pq_reader *r;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, f, size, &o));
    int64_t total = 0, nulls = 0, sum = 0;
    int batches = 0;
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_pq_reader_next_batch(r, &b));
        if (!b)
            break;
        batches++;
        assert_true(pm_batch_num_rows(b) <= 64);
        pm_column *col = pm_batch_column(b, 0);
        for (int64_t i = 0; i < col->length; i++) {
            if (pm_column_is_null(col, i))
                nulls++;
            else
                sum += pm_column_i32(col, i);
        }
        total += pm_batch_num_rows(b);
    }
    assert_int_equal(total, 3 * R);
    assert_int_equal(batches, 3 * 5); /* 300 rows = 4 x 64 + 44, per row group */
    int64_t want_sum = 0, want_nulls = 0;
    for (int i = 0; i < R; i++) {
        if (i % 7 == 3)
            want_nulls++;
        else
            want_sum += i - 5;
    }
    assert_int_equal(nulls, 3 * want_nulls);
    assert_int_equal(sum, 3 * want_sum);
    /* statistics of column 0, row group 2 */
    pm_column *col;
    PM_OK_OR_FAIL(pm_column_new(&col, pm_pq_reader_leaf_type(r, 0)));
    bool present;
    PM_OK_OR_FAIL(pm_pq_reader_stat(r, 2, 0, false, col, &present));
    assert_true(present);
    PM_OK_OR_FAIL(pm_pq_reader_stat(r, 2, 0, true, col, &present));
    assert_int_equal(pm_column_i32(col, 0), -5);
    assert_int_equal(pm_column_i32(col, 1), R - 6);
    pm_column_release(col);
    assert_int_equal(pm_pq_reader_leaf_of(r, "v"), 0);
    assert_int_equal(pm_pq_reader_leaf_of(r, "nope"), -1);
    pm_pq_reader_free(r);

    /* the filter is called per row group; it keeps only row group 1 */
    int calls = 0;
    o.filter = skip_first;
    o.filter_ctx = &calls;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, f, size, &o));
    total = 0;
    for (;;) {
        pm_batch *b;
        PM_OK_OR_FAIL(pm_pq_reader_next_batch(r, &b));
        if (!b)
            break;
        total += pm_batch_num_rows(b);
    }
    assert_int_equal(calls, 3);
    assert_int_equal(total, R);
    pm_pq_reader_free(r);
    free(f);
}

static pm_error *read_err(const pq_schema_element *s, uint32_t ns, const col_spec *c, uint32_t nc, int64_t rows)
{
    size_t size;
    uint8_t *f = build_file(s, ns, c, nc, rows, 1, &size);
    pm_buf out = PM_BUF_INIT;
    pm_error *e = read_all(f, size, NULL, &out);
    pm_buf_free(&out);
    free(f);
    return e;
}

static void test_contradicting_levels(void **state)
{
    (void)state;
    pq_schema_element s[4] = {EL_ROOT(1)};
    s[1] = (pq_schema_element){.name = "s", .has_repetition = true, .repetition = PQ_OPTIONAL,
                               .has_num_children = true, .num_children = 2};
    s[2] = (pq_schema_element){.name = "a", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_OPTIONAL};
    s[3] = (pq_schema_element){.name = "b", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_OPTIONAL};
    const uint16_t d3[] = {2, 2, 0}, d2[] = {2, 2};
    const int32_t v[] = {1, 2};
    /* sibling b has fewer entries than the row group's rows */
    col_spec c[2] = {{3, d3, NULL, v, 2, 0, NULL, false, false}, {2, d2, NULL, v, 2, 0, NULL, false, false}};
    PM_EXPECT_ERR(read_err(s, 4, c, 2, 3), PM_ECORRUPT);
    /* the struct is null for a (def 0) but present for b (def 1): parents disagree */
    const uint16_t x[] = {0, 2, 2}, y[] = {1, 2, 2};
    col_spec c2[2] = {{3, x, NULL, v, 2, 0, NULL, false, false}, {3, y, NULL, v, 2, 0, NULL, false, false}};
    size_t size;
    uint8_t *f = build_file(s, 4, c2, 2, 3, 1, &size);
    pm_buf out = PM_BUF_INIT;
    /* lengths agree, so this reads; the owner leaf (a) decides the struct's validity */
    PM_OK_OR_FAIL(read_all(f, size, NULL, &out));
    pm_buf_free(&out);
    free(f);
    /* more entries than rows */
    pq_schema_element one[2] = {EL_ROOT(1)};
    one[1] = s[2];
    const uint16_t d1[] = {1, 1, 0};
    col_spec c1 = {3, d1, NULL, v, 1, 0, NULL, false, false};
    PM_EXPECT_ERR(read_err(one, 2, &c1, 1, 2), PM_ECORRUPT);
    PM_OK_OR_FAIL(read_err(one, 2, &c1, 1, 3));

    /* list: first entry with repetition level 1; continuing a null list */
    pq_schema_element l[3] = {EL_ROOT(1)};
    l[1] = (pq_schema_element){.name = "l", .has_repetition = true, .repetition = PQ_OPTIONAL,
                               .has_num_children = true, .num_children = 1, .has_converted_type = true,
                               .converted_type = PQ_CT_LIST};
    l[2] = (pq_schema_element){.name = "e", .has_type = true, .type = PQ_INT32, .has_repetition = true,
                               .repetition = PQ_REPEATED};
    const uint16_t ld[] = {2, 2}, lr[] = {1, 0};
    col_spec lc = {2, ld, lr, v, 2, 1, NULL, false, false};
    PM_EXPECT_ERR(read_err(l, 3, &lc, 1, 1), PM_ECORRUPT);
    const uint16_t ld2[] = {0, 2}, lr2[] = {0, 1};
    col_spec lc2 = {2, ld2, lr2, v, 2, 1, NULL, false, false};
    PM_EXPECT_ERR(read_err(l, 3, &lc2, 1, 1), PM_ECORRUPT);
    /* definition level above the maximum */
    const uint16_t ld3[] = {3};
    col_spec lc3 = {1, ld3, lr, v, 2, 1, NULL, false, false};
    PM_EXPECT_ERR(read_err(l, 3, &lc3, 1, 1), PM_ECORRUPT);
    /* schema claiming more children than elements */
    pq_schema_element bad[2] = {EL_ROOT(3)};
    bad[1] = l[2];
    size_t sz;
    uint8_t *bf = build_file(bad, 2, NULL, 0, 0, 1, &sz);
    pm_pq_reader *r;
    PM_EXPECT_ERR(pm_pq_reader_open_memory(&r, bf, sz, NULL), PM_ECORRUPT);
    free(bf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_level_list_and_page_spanning_records),
        cmocka_unit_test(test_bare_repeated_and_array_group),
        cmocka_unit_test(test_legacy_map_and_struct_nulls),
        cmocka_unit_test(test_row_groups_filter_and_stats),
        cmocka_unit_test(test_contradicting_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
