/*
 * tests/unit/blob/test_blob_file.c — the `.blob` writer against the reader
 * and against Java: every `.blob` file of the Java fixtures, read and
 * written again, comes out byte for byte; values of every shape (null,
 * empty, one byte, 300 bytes and 70 KiB: one- and three-byte varints,
 * lengths going up and down) round-trip, the sizes the writer reports are
 * the file's, and a damaged record or footer is refused.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "format/blob/blob_file.h"
#include "io/fileio.h"
#include "pm_test.h"
#include "types/column.h"

static char *tmp;

static int setup(void **state)
{
    (void)state;
    tmp = pm_test_tmpdir();
    return tmp ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pm_test_rmtree(tmp);
    free(tmp);
    return 0;
}

static pm_column *read_all(pm_fileio *fio, const char *path, int64_t *rows)
{
    pm_blob_reader *r = NULL;
    PM_OK_OR_FAIL(pm_blob_reader_open(fio, path, true, &r));
    pm_type *t = pm_type_new(PM_TYPE_BLOB, true);
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    pm_type_free(t);
    *rows = pm_blob_reader_rows(r);
    PM_OK_OR_FAIL(pm_blob_reader_append(r, 0, *rows, c));
    pm_blob_reader_free(r);
    return c;
}

static void write_all(pm_fileio *fio, const char *path, const pm_column *c, int64_t rows)
{
    pm_output *out = NULL;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_blob_writer *w = NULL;
    PM_OK_OR_FAIL(pm_blob_writer_new(out, &w));
    for (int64_t i = 0; i < rows; i++) {
        if (pm_column_is_null(c, i)) {
            PM_OK_OR_FAIL(pm_blob_writer_add_null(w));
        } else {
            size_t n = 0;
            const uint8_t *p = pm_column_bytes(c, i, &n);
            PM_OK_OR_FAIL(pm_blob_writer_add(w, p, n));
        }
    }
    assert_int_equal(pm_blob_writer_rows(w), rows);
    uint64_t records = pm_blob_writer_bytes(w);
    assert_int_equal(records, pm_output_pos(out));
    PM_OK_OR_FAIL(pm_blob_writer_finish(w));
    pm_blob_writer_free(w);
    PM_OK_OR_FAIL(pm_output_close(out, false));
}

static void rewrite_dir(pm_fileio *fio, const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".blob")) {
            int64_t rows = 0;
            pm_column *c = read_all(fio, path, &rows);
            char out[4096];
            snprintf(out, sizeof out, "%s/copy-%d.blob", tmp, *count);
            write_all(fio, out, c, rows);
            pm_column_release(c);
            size_t la = 0, lb = 0;
            uint8_t *a = pm_test_read_file(path, &la), *b = pm_test_read_file(out, &lb);
            assert_non_null(a);
            assert_non_null(b);
            assert_int_equal(la, lb);
            assert_memory_equal(a, b, la);
            free(a);
            free(b);
            (*count)++;
        } else {
            rewrite_dir(fio, path, count); /* partition and bucket directories */
        }
    }
    closedir(d);
}

static void test_java_files_byte_for_byte(void **state)
{
    (void)state;
    pm_fileio *fio = NULL;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    int count = 0;
    rewrite_dir(fio, PM_FIXTURES_DIR "/java-written/parquet/blob_append_table_alter_table_with_cast_with_data_evolution.db",
                &count);
    rewrite_dir(fio, PM_FIXTURES_DIR "/java-written-orc-manifests/blob_data_evolution_with_dense_stats.db", &count);
    assert_true(count >= 5);
    pm_fileio_free(fio);
}

static void test_round_trip(void **state)
{
    (void)state;
    pm_fileio *fio = NULL;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_type *t = pm_type_new(PM_TYPE_BLOB, true);
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    static uint8_t big[70000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7 + 3);
    const size_t sizes[] = {0, 1, 300, 70000, 5, 0, 128, 127};
    int64_t rows = 0;
    for (int rep = 0; rep < 3; rep++) {
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            PM_OK_OR_FAIL(pm_column_append_bytes(c, big, sizes[k]));
            rows++;
            if (k % 3 == 1) {
                PM_OK_OR_FAIL(pm_column_append_null(c));
                rows++;
            }
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/rt.blob", tmp);
    write_all(fio, path, c, rows);
    int64_t back_rows = 0;
    pm_column *back = read_all(fio, path, &back_rows);
    assert_int_equal(back_rows, rows);
    for (int64_t i = 0; i < rows; i++) {
        assert_int_equal(pm_column_is_null(back, i), pm_column_is_null(c, i));
        if (pm_column_is_null(c, i))
            continue;
        size_t na = 0, nb = 0;
        const uint8_t *a = pm_column_bytes(c, i, &na), *b = pm_column_bytes(back, i, &nb);
        assert_int_equal(na, nb);
        if (na)
            assert_memory_equal(a, b, na);
    }
    pm_column_release(back);
    /* a record byte flipped: the CRC check refuses it */
    size_t len = 0;
    uint8_t *bytes = pm_test_read_file(path, &len);
    assert_non_null(bytes);
    bytes[10] ^= 0x40;
    char bad[4096];
    snprintf(bad, sizeof bad, "%s/bad.blob", tmp);
    FILE *f = fopen(bad, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    fclose(f);
    pm_blob_reader *r = NULL;
    PM_OK_OR_FAIL(pm_blob_reader_open(fio, bad, true, &r));
    pm_column *junk = NULL;
    PM_OK_OR_FAIL(pm_column_new(&junk, t));
    PM_EXPECT_ERR(pm_blob_reader_append(r, 0, 3, junk), PM_ECORRUPT);
    pm_column_release(junk);
    pm_blob_reader_free(r);
    /* the version byte changed: refused at open */
    bytes[10] ^= 0x40;
    bytes[len - 1] = 2;
    f = fopen(bad, "wb");
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    fclose(f);
    PM_EXPECT_ERR(pm_blob_reader_open(fio, bad, true, &r), PM_ECORRUPT);
    free(bytes);
    /* no rows at all: an empty index */
    pm_column *none = NULL;
    PM_OK_OR_FAIL(pm_column_new(&none, t));
    snprintf(path, sizeof path, "%s/empty.blob", tmp);
    write_all(fio, path, none, 0);
    bytes = pm_test_read_file(path, &len);
    assert_int_equal(len, 5);
    assert_int_equal(bytes[4], PM_BLOB_VERSION);
    free(bytes);
    pm_column_release(none);
    pm_column_release(c);
    pm_type_free(t);
    pm_fileio_free(fio);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_java_files_byte_for_byte),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
