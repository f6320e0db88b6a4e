/*
 * tests/unit/index/test_hash_index.c — HASH index files: exact bytes
 * (int32 big-endian, no header), round trips through files with the
 * IndexFileMeta Java writes, hashes of real BinaryRow keys, and corrupt
 * sizes and counts.
 */
#include <string.h>

#include "base/hash.h"
#include "index/hash_index.h"
#include "meta/index_path.h"
#include "pm_test.h"

static void test_encode_decode(void **state)
{
    (void)state;
    const int32_t h[] = {0, 1, -1, INT32_MIN, INT32_MAX, 0x01020304};
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_hash_index_encode(h, 6, &b));
    static const uint8_t want[] = {0, 0, 0, 0,          0, 0, 0, 1,    0xFF, 0xFF, 0xFF, 0xFF,
                                   0x80, 0, 0, 0,       0x7F, 0xFF, 0xFF, 0xFF,
                                   1, 2, 3, 4};
    assert_int_equal(b.len, sizeof want);
    assert_memory_equal(b.data, want, sizeof want);
    int32_t *got;
    size_t n;
    PM_OK_OR_FAIL(pm_hash_index_decode(b.data, b.len, &got, &n));
    assert_int_equal(n, 6);
    assert_memory_equal(got, h, sizeof h);
    free(got);
    for (size_t cut = 1; cut < 4; cut++)
        PM_EXPECT_ERR(pm_hash_index_decode(b.data, b.len - cut, &got, &n), PM_ECORRUPT);
    PM_OK_OR_FAIL(pm_hash_index_decode(b.data, 0, &got, &n));
    assert_int_equal(n, 0);
    assert_null(got);
    pm_buf_free(&b);
}

static void test_file_round_trip(void **state)
{
    (void)state;
    char *tmp = pm_test_tmpdir();
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_type *ptype = pm_type_new_row(true);
    pm_options *opts;
    PM_OK_OR_FAIL(pm_options_new(&opts));
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, tmp, ptype, opts));
    char *dir;
    PM_OK_OR_FAIL(pm_index_dir(pf, NULL, &dir));

    /* Hashes of BinaryRow keys as the dynamic-bucket assigner computes them. */
    enum { N = 5000 };
    int32_t *h = malloc(N * sizeof *h);
    for (int i = 0; i < N; i++) {
        uint8_t row[16] = {0}; /* one BIGINT field: header word + 8-byte value */
        int64_t key = (int64_t)i * 7919;
        memcpy(row + 8, &key, 8);
        h[i] = pm_hash_bytes_by_words(row, sizeof row);
    }
    pm_index_file_meta meta;
    PM_OK_OR_FAIL(pm_hash_index_write(fio, pf, dir, h, N, &meta));
    assert_string_equal(meta.index_type, "HASH");
    assert_int_equal(meta.row_count, N);
    assert_int_equal(meta.file_size, 4 * N);
    assert_false(meta.has_dv_ranges);
    assert_null(meta.external_path);
    assert_true(!strncmp(meta.file_name, "index-", 6));
    char *path;
    PM_OK_OR_FAIL(pm_index_file_path(pf, NULL, &meta, &path));
    int32_t *back;
    size_t n;
    PM_OK_OR_FAIL(pm_hash_index_read(fio, path, meta.row_count, &back, &n));
    assert_int_equal(n, N);
    assert_memory_equal(back, h, N * sizeof *h);
    free(back);
    PM_EXPECT_ERR(pm_hash_index_read(fio, path, N + 1, &back, &n), PM_ECORRUPT);
    assert_null(back);
    PM_OK_OR_FAIL(pm_hash_index_read(fio, path, -1, &back, &n));
    free(back);

    /* A partial trailing int is corrupt. */
    pm_buf raw = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_fileio_read_file(fio, path, &raw));
    char *cut = pm_path_join(tmp, "cut");
    PM_OK_OR_FAIL(pm_fileio_overwrite_atomic(fio, cut, raw.data, raw.len - 2));
    PM_EXPECT_ERR(pm_hash_index_read(fio, cut, -1, &back, &n), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_hash_index_read(fio, "/nonexistent/index-x", -1, &back, &n), PM_ENOTFOUND);

    /* Empty set: an empty file. */
    pm_index_file_meta empty;
    PM_OK_OR_FAIL(pm_hash_index_write(fio, pf, dir, NULL, 0, &empty));
    assert_int_equal(empty.file_size, 0);
    assert_string_not_equal(empty.file_name, meta.file_name);
    pm_index_meta_clear(&empty);

    pm_buf_free(&raw);
    free(cut);
    free(path);
    free(h);
    pm_index_meta_clear(&meta);
    free(dir);
    pm_path_factory_free(pf);
    pm_options_free(opts);
    pm_type_free(ptype);
    pm_fileio_free(fio);
    pm_test_rmtree(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_decode),
        cmocka_unit_test(test_file_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
