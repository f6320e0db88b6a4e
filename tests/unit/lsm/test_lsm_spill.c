/*
 * tests/unit/lsm/test_lsm_spill.c — multi-pass merges with intermediate
 * runs in Avro files: 300 runs (and 40 runs at fan-in 3) of rows with
 * decimals, microsecond timestamps, arrays, maps and nested rows whose
 * field names are not Avro names ("a b", "x-y") merge to exactly the same
 * record sequence as the in-memory spill; every run file is deleted once
 * read; an unknown directory or codec is rejected.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "io/fileio.h"
#include "lsm/kv_spill.h"
#include "lsm_test_util.h"
#include "types/value.h"

static pm_type *rich_type(void)
{
    pm_type *t = pm_type_new_row(false);
    pm_type_add_field(t, 1073741823, "_KEY_k", pm_type_new(PM_TYPE_BIGINT, false));
    pm_type_add_field(t, 2147483646, "_SEQUENCE_NUMBER", pm_type_new(PM_TYPE_BIGINT, false));
    pm_type_add_field(t, 2147483645, "_VALUE_KIND", pm_type_new(PM_TYPE_TINYINT, false));
    pm_type_add_field(t, 0, "k", pm_type_new(PM_TYPE_BIGINT, false));
    pm_type_add_field(t, 1, "d", pm_type_new_decimal(20, 3, true));
    pm_type_add_field(t, 2, "ts", pm_type_new_temporal(PM_TYPE_TIMESTAMP, 6, true));
    pm_type_add_field(t, 3, "arr", pm_type_new_array(pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true), true));
    pm_type_add_field(t, 4, "m", pm_type_new_map(pm_type_new(PM_TYPE_INT, false), pm_type_new(PM_TYPE_DOUBLE, true), true));
    pm_type *r = pm_type_new_row(true);
    pm_type_add_field(r, 6, "a b", pm_type_new(PM_TYPE_INT, true));
    pm_type_add_field(r, 7, "x-y", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true));
    pm_type_add_field(t, 5, "r", r);
    return t;
}

/* Run s: keys chosen with probability 1/2 from 0..n, JSON lines. */
static pm_kv_source make_run(const pm_type *t, size_t s, size_t keyspace)
{
    pm_buf j = PM_BUF_INIT;
    for (size_t k = 0; k < keyspace; k++) {
        if (lt_below(2))
            continue;
        int64_t seq = (int64_t)lt_below(100);
        PM_OK_OR_FAIL(pm_buf_printf(&j,
                                    "{\"_KEY_k\":%zu,\"_SEQUENCE_NUMBER\":%lld,\"_VALUE_KIND\":%d,\"k\":%zu,"
                                    "\"d\":\"%lld.%03d\",\"ts\":\"2024-01-0%dT10:00:00.%06d\",\"arr\":[\"r%zu\",null],"
                                    "\"m\":{\"%d\":%d.5},\"r\":[%d,\"s%zu\"]}\n",
                                    k, (long long)seq, (int)lt_below(4), k, (long long)lt_below(100000) - 50000,
                                    (int)lt_below(1000), 1 + (int)lt_below(9), (int)lt_below(1000000), s,
                                    (int)lt_below(5), (int)lt_below(9), (int)lt_below(50), s));
    }
    pm_batch *b;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, t, (const char *)j.data, j.len));
    pm_buf_free(&j);
    /* split into batches of up to 7 rows by copying rows */
    int64_t n = pm_batch_num_rows(b);
    size_t nb = (size_t)(n / 7 + 1);
    pm_batch **arr = calloc(nb, sizeof *arr);
    size_t k = 0;
    for (int64_t i = 0; i < n; i += 7) {
        pm_batch *p;
        PM_OK_OR_FAIL(pm_batch_new(&p, t));
        int64_t m = n - i < 7 ? n - i : 7;
        for (int64_t r = i; r < i + m; r++)
            for (size_t c = 0; c < b->ncolumns; c++)
                PM_OK_OR_FAIL(pm_column_append_from(p->columns[c], b->columns[c], r));
        PM_OK_OR_FAIL(pm_batch_finish(p, m));
        arr[k++] = p;
    }
    pm_batch_free(b);
    return lt_source(arr, k, NULL);
}

/* Merge and print every record, in order, as JSON (field names of the input type). */
static char *merge_all(uint64_t seed, size_t nruns, size_t fan, const pm_kv_spill *spill, size_t *passes)
{
    lt_seed(seed);
    pm_type *t = rich_type();
    pm_kv_source *srcs = calloc(nruns, sizeof *srcs);
    for (size_t s = 0; s < nruns; s++)
        srcs[s] = make_run(t, s, 30);
    pm_kv_layout l;
    PM_OK_OR_FAIL(pm_kv_layout_physical(&l, 1, 6));
    pm_merge_options o = {t, &l, fan, spill, 11};
    pm_merge_reader *m;
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, srcs, nruns, &o));
    pm_buf out = PM_BUF_INIT;
    pm_batch *one;
    PM_OK_OR_FAIL(pm_batch_new(&one, t));
    for (;;) {
        pm_kv_group g;
        bool eof;
        PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
        if (eof)
            break;
        PM_OK_OR_FAIL(pm_buf_append_str(&out, "["));
        for (size_t i = 0; i < g.n; i++) {
            PM_OK_OR_FAIL(pm_batch_reset(one));
            for (size_t c = 0; c < t->nfields; c++)
                PM_OK_OR_FAIL(pm_column_append_from(one->columns[c], g.recs[i].batch->columns[c], g.recs[i].row));
            PM_OK_OR_FAIL(pm_batch_finish(one, 1));
            PM_OK_OR_FAIL(pm_batch_format_row_json(one, 0, &out));
        }
        PM_OK_OR_FAIL(pm_buf_append_str(&out, "]\n"));
    }
    *passes = pm_merge_reader_passes(m);
    pm_merge_reader_free(m);
    pm_batch_free(one);
    pm_kv_layout_clear(&l);
    pm_type_free(t);
    free(srcs);
    PM_OK_OR_FAIL(pm_buf_append_byte(&out, 0));
    return (char *)pm_buf_detach(&out, &(size_t){0});
}

static void test_file_spill_equals_memory(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    static const struct {
        size_t runs, fan;
        pm_codec_id codec;
    } cases[] = {{300, 0, PM_CODEC_ZSTD}, {40, 3, PM_CODEC_NONE}, {20, 2, PM_CODEC_SNAPPY}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t p1, p2;
        char *mem = merge_all(31 + c, cases[c].runs, cases[c].fan, NULL, &p1);
        pm_kv_spill_dir *sd;
        PM_OK_OR_FAIL(pm_kv_spill_dir_new(&sd, dir, cases[c].codec));
        char *file = merge_all(31 + c, cases[c].runs, cases[c].fan, pm_kv_spill_dir_ops(sd), &p2);
        assert_true(p1 >= 1);
        assert_int_equal(p1, p2);
        assert_true(strlen(mem) > 1000);
        assert_string_equal(mem, file);
        assert_true(pm_kv_spill_dir_bytes_written(sd) > 0);
        assert_int_equal(pm_kv_spill_dir_live_files(sd), 0);
        pm_kv_spill_dir_free(sd);
        free(mem);
        free(file);
    }
    /* nothing left behind */
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_name_list names;
    PM_OK_OR_FAIL(pm_fileio_list(fio, dir, &names));
    assert_int_equal(names.count, 0);
    pm_fileio_list_free(&names);
    pm_fileio_free(fio);
    /* bad arguments */
    pm_kv_spill_dir *sd;
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/nope", dir);
    PM_EXPECT_ERR(pm_kv_spill_dir_new(&sd, missing, PM_CODEC_ZSTD), PM_EINVALID);
    PM_EXPECT_ERR(pm_kv_spill_dir_new(&sd, dir, PM_CODEC_LZ4), PM_EINVALID);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_spill_equals_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
