/*
 * tests/unit/io/test_fileio.c — the local pm_fileio backend: inputs
 * (pread, bounds, missing files), inputs read whole (pm_input_open_whole:
 * right, short, long and missing size hints, over the limit, directories),
 * buffered outputs (small and large writes,
 * exclusive create, abort), whole-file reads, publish-if-absent raced by 8
 * processes, atomic overwrite, directory operations, listing and paths.
 */
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pm_test.h"
#include "io/fileio.h"

static char *join(const char *a, const char *b)
{
    char *s = pm_path_join(a, b);
    assert_non_null(s);
    return s;
}

static void write_bytes(pm_fileio *fio, const char *path, const void *p, size_t n)
{
    pm_output *o;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &o));
    PM_OK_OR_FAIL(pm_output_write(o, p, n));
    PM_OK_OR_FAIL(pm_output_close(o, false));
}

static void test_path_join(void **state)
{
    (void)state;
    struct {
        const char *a, *b, *want;
    } cases[] = {
        {"a", "b", "a/b"},   {"a/", "b", "a/b"}, {"a//", "/b", "a/b"},
        {"/", "x", "/x"},    {"", "x", "x"},     {"a", "", "a"},
        {"/t/w", "db/t", "/t/w/db/t"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = join(cases[i].a, cases[i].b);
        assert_string_equal(s, cases[i].want);
        free(s);
    }
}

static void test_output_and_input(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    char *path = join(dir, "x/y/z/data.bin"); /* parents get created */

    /* Mixed small writes (buffered) and a large one (bypasses the buffer). */
    size_t big = 700000;
    uint8_t *expect = malloc(big + 2000);
    for (size_t i = 0; i < big + 2000; i++)
        expect[i] = (uint8_t)(i * 7 + i / 251);
    pm_output *o;
    PM_OK_OR_FAIL(pm_output_create(fio, path, false, &o));
    PM_OK_OR_FAIL(pm_output_write(o, expect, 1000));
    PM_OK_OR_FAIL(pm_output_write(o, expect + 1000, big));
    PM_OK_OR_FAIL(pm_output_write(o, expect + 1000 + big, 1000));
    assert_int_equal(pm_output_pos(o), big + 2000);
    PM_OK_OR_FAIL(pm_output_close(o, true));

    pm_input *in;
    PM_OK_OR_FAIL(pm_input_open(fio, path, &in));
    assert_int_equal(pm_input_size(in), big + 2000);
    assert_string_equal(pm_input_path(in), path);
    uint8_t *got = malloc(big + 2000);
    PM_OK_OR_FAIL(pm_input_read_at(in, 0, got, big + 2000));
    assert_memory_equal(got, expect, big + 2000);
    PM_OK_OR_FAIL(pm_input_read_at(in, 12345, got, 10));
    assert_memory_equal(got, expect + 12345, 10);
    PM_OK_OR_FAIL(pm_input_read_at(in, big + 2000, got, 0));
    PM_EXPECT_ERR(pm_input_read_at(in, big + 1995, got, 10), PM_ECORRUPT);
    PM_EXPECT_ERR(pm_input_read_at(in, UINT64_MAX, got, 1), PM_ECORRUPT);
    pm_input_close(in);

    /* Exclusive create refuses an existing file; overwrite truncates. */
    PM_EXPECT_ERR(pm_output_create(fio, path, false, &o), PM_EEXIST);
    write_bytes(fio, path, "abc", 3);
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_fileio_read_file(fio, path, &b));
    assert_int_equal(b.len, 3);
    assert_memory_equal(b.data, "abc", 3);
    uint64_t size;
    PM_OK_OR_FAIL(pm_fileio_file_size(fio, path, &size));
    assert_int_equal(size, 3);

    /* Abort removes the partial file. */
    char *partial = join(dir, "partial.bin");
    PM_OK_OR_FAIL(pm_output_create(fio, partial, false, &o));
    PM_OK_OR_FAIL(pm_output_write(o, expect, 5000));
    pm_output_abort(o);
    bool ex = true;
    PM_OK_OR_FAIL(pm_fileio_exists(fio, partial, &ex));
    assert_false(ex);
    pm_output_abort(NULL);

    /* file: URIs are accepted. */
    char *uri = malloc(strlen(path) + 8);
    sprintf(uri, "file://%s", path);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_fileio_read_file(fio, uri, &b));
    assert_int_equal(b.len, 3);
    sprintf(uri, "file:%s", path);
    PM_OK_OR_FAIL(pm_fileio_exists(fio, uri, &ex));
    assert_true(ex);

    free(uri);
    pm_buf_free(&b);
    free(partial);
    free(got);
    free(expect);
    free(path);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_missing(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    char *path = join(dir, "nope/missing.json");
    pm_input *in = (pm_input *)1;
    PM_EXPECT_ERR(pm_input_open(fio, path, &in), PM_ENOTFOUND);
    assert_null(in);
    pm_buf b = PM_BUF_INIT;
    PM_EXPECT_ERR(pm_fileio_read_file(fio, path, &b), PM_ENOTFOUND);
    uint64_t size;
    PM_EXPECT_ERR(pm_fileio_file_size(fio, path, &size), PM_ENOTFOUND);
    bool flag = true;
    PM_OK_OR_FAIL(pm_fileio_exists(fio, path, &flag));
    assert_false(flag);
    flag = true;
    PM_OK_OR_FAIL(pm_fileio_is_dir(fio, path, &flag));
    assert_false(flag);
    PM_OK_OR_FAIL(pm_fileio_delete(fio, path));
    PM_OK_OR_FAIL(pm_fileio_delete_tree(fio, path));
    pm_name_list l;
    PM_OK_OR_FAIL(pm_fileio_list(fio, path, &l));
    assert_int_equal(l.count, 0);
    pm_fileio_list_free(&l);
    char *other = join(dir, "other");
    PM_EXPECT_ERR(pm_fileio_rename(fio, path, other), PM_ENOTFOUND);
    /* A directory is not an input. */
    PM_EXPECT_ERR(pm_input_open(fio, dir, &in), PM_EINVALID);
    free(other);
    free(path);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
}

/* Read n bytes at off of in and compare them with want. */
static void expect_bytes(pm_input *in, uint64_t off, const char *want, size_t n)
{
    char got[64];
    assert_true(n <= sizeof got);
    PM_OK_OR_FAIL(pm_input_read_at(in, off, got, n));
    assert_memory_equal(got, want, n);
}

static void test_open_whole(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    char *path = join(dir, "f.bin");
    const char text[] = "0123456789abcdefghij"; /* 20 bytes */
    write_bytes(fio, path, text, 20);
    /* every hint (right, too small, too large, none) gives the file's bytes
     * and size, held in memory */
    uint64_t hints[] = {20, 5, 19, 21, 1000, 0};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        pm_input *in = NULL;
        PM_OK_OR_FAIL(pm_input_open_whole(fio, path, hints[i], 64, &in));
        assert_int_equal(pm_input_size(in), 20);
        assert_non_null(pm_input_data(in));
        assert_memory_equal(pm_input_data(in), text, 20);
        assert_string_equal(pm_input_path(in), path);
        expect_bytes(in, 3, text + 3, 10);
        expect_bytes(in, 0, text, 20);
        char c;
        PM_EXPECT_ERR(pm_input_read_at(in, 20, &c, 1), PM_ECORRUPT);
        pm_input_close(in);
    }
    /* over the limit: a descriptor input, reads as usual */
    pm_input *in = NULL;
    PM_OK_OR_FAIL(pm_input_open_whole(fio, path, 20, 10, &in));
    assert_null(pm_input_data(in));
    assert_int_equal(pm_input_size(in), 20);
    expect_bytes(in, 5, text + 5, 15);
    pm_input_close(in);
    /* a hint under the limit for a file over it: not held either */
    PM_OK_OR_FAIL(pm_input_open_whole(fio, path, 8, 10, &in));
    assert_null(pm_input_data(in));
    assert_int_equal(pm_input_size(in), 20);
    expect_bytes(in, 0, text, 20);
    pm_input_close(in);
    /* an empty file */
    char *empty = join(dir, "empty");
    write_bytes(fio, empty, "", 0);
    PM_OK_OR_FAIL(pm_input_open_whole(fio, empty, 7, 64, &in));
    assert_int_equal(pm_input_size(in), 0);
    pm_input_close(in);
    /* plain inputs have no bytes in memory */
    PM_OK_OR_FAIL(pm_input_open(fio, path, &in));
    assert_null(pm_input_data(in));
    pm_input_close(in);
    /* missing files and directories, with or without a hint */
    char *missing = join(dir, "missing");
    for (uint64_t hint = 0; hint <= 20; hint += 20) {
        in = (pm_input *)1;
        PM_EXPECT_ERR(pm_input_open_whole(fio, missing, hint, 64, &in), PM_ENOTFOUND);
        assert_null(in);
        PM_EXPECT_ERR(pm_input_open_whole(fio, dir, hint, 64, &in), PM_EINVALID);
        assert_null(in);
    }
    free(missing);
    free(empty);
    free(path);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_dirs_list_delete(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    char *deep = join(dir, "t/a/b/c");
    PM_OK_OR_FAIL(pm_fileio_mkdirs(fio, deep));
    PM_OK_OR_FAIL(pm_fileio_mkdirs(fio, deep)); /* idempotent */
    bool isdir = false;
    PM_OK_OR_FAIL(pm_fileio_is_dir(fio, deep, &isdir));
    assert_true(isdir);
    char *t = join(dir, "t");
    const char *names[] = {"snapshot-2", "snapshot-10", "EARLIEST", ".hidden"};
    for (size_t i = 0; i < 4; i++) {
        char *p = join(t, names[i]);
        write_bytes(fio, p, names[i], strlen(names[i]));
        free(p);
    }
    char *f = join(deep, "leaf");
    write_bytes(fio, f, "x", 1);
    /* mkdirs through a file fails. */
    char *through = join(f, "sub");
    pm_error *e = pm_fileio_mkdirs(fio, through);
    assert_non_null(e);
    pm_error_free(e);

    pm_name_list l;
    PM_OK_OR_FAIL(pm_fileio_list(fio, t, &l));
    assert_int_equal(l.count, 5);
    const char *sorted[] = {".hidden", "EARLIEST", "a", "snapshot-10", "snapshot-2"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(l.names[i], sorted[i]);
    pm_fileio_list_free(&l);

    /* rename, delete of a file and of an empty directory */
    char *from = join(t, "EARLIEST"), *to = join(t, "LATEST");
    PM_OK_OR_FAIL(pm_fileio_rename(fio, from, to));
    bool ex;
    PM_OK_OR_FAIL(pm_fileio_exists(fio, from, &ex));
    assert_false(ex);
    PM_OK_OR_FAIL(pm_fileio_exists(fio, to, &ex));
    assert_true(ex);
    PM_OK_OR_FAIL(pm_fileio_delete(fio, to));
    PM_OK_OR_FAIL(pm_fileio_exists(fio, to, &ex));
    assert_false(ex);
    char *empty = join(dir, "emptydir");
    PM_OK_OR_FAIL(pm_fileio_mkdirs(fio, empty));
    PM_OK_OR_FAIL(pm_fileio_delete(fio, empty));
    PM_OK_OR_FAIL(pm_fileio_exists(fio, empty, &ex));
    assert_false(ex);

    /* delete_tree removes everything, nested. */
    PM_OK_OR_FAIL(pm_fileio_delete_tree(fio, t));
    PM_OK_OR_FAIL(pm_fileio_exists(fio, t, &ex));
    assert_false(ex);
    PM_OK_OR_FAIL(pm_fileio_list(fio, dir, &l));
    assert_int_equal(l.count, 0);
    pm_fileio_list_free(&l);

    free(empty);
    free(from);
    free(to);
    free(through);
    free(f);
    free(t);
    free(deep);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
}

/* rmdir removes only empty directories; mkdtemp makes fresh private ones. */
static void test_rmdir_and_mkdtemp(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    char *full = join(dir, "full"), *leaf = join(dir, "full/x"), *empty = join(dir, "empty");
    PM_OK_OR_FAIL(pm_fileio_mkdirs(fio, empty));
    write_bytes(fio, leaf, "x", 1);
    bool removed = true, ex = false;
    PM_OK_OR_FAIL(pm_fileio_rmdir(fio, full, &removed)); /* not empty: kept, no error */
    assert_false(removed);
    PM_OK_OR_FAIL(pm_fileio_exists(fio, leaf, &ex));
    assert_true(ex);
    PM_OK_OR_FAIL(pm_fileio_rmdir(fio, empty, &removed));
    assert_true(removed);
    PM_OK_OR_FAIL(pm_fileio_exists(fio, empty, &ex));
    assert_false(ex);
    PM_OK_OR_FAIL(pm_fileio_rmdir(fio, empty, &removed)); /* missing: no error */
    assert_false(removed);
    PM_OK_OR_FAIL(pm_fileio_rmdir(fio, empty, NULL));
    /* a file is not a directory: an error, and the file stays */
    pm_error *e = pm_fileio_rmdir(fio, leaf, &removed);
    assert_non_null(e);
    pm_error_free(e);
    assert_false(removed);
    PM_OK_OR_FAIL(pm_fileio_exists(fio, leaf, &ex));
    assert_true(ex);

    char *a = NULL, *b = NULL;
    PM_OK_OR_FAIL(pm_fileio_mkdtemp(fio, dir, "spill-", &a));
    PM_OK_OR_FAIL(pm_fileio_mkdtemp(fio, dir, "spill-", &b));
    assert_string_not_equal(a, b);
    size_t dn = strlen(dir);
    assert_int_equal(strncmp(a, dir, dn), 0);
    assert_int_equal(strncmp(a + dn, "/spill-", 7), 0);
    assert_int_equal(strlen(a), dn + 7 + 6);
    struct stat st;
    assert_int_equal(stat(a, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    PM_OK_OR_FAIL(pm_fileio_rmdir(fio, a, &removed));
    assert_true(removed);
    PM_OK_OR_FAIL(pm_fileio_rmdir(fio, b, &removed));
    assert_true(removed);
    char *missing = join(dir, "no/such");
    char *c = NULL;
    PM_EXPECT_ERR(pm_fileio_mkdtemp(fio, missing, "spill-", &c), PM_ENOTFOUND);
    assert_null(c);
    PM_EXPECT_ERR(pm_fileio_mkdtemp(fio, dir, "a/b", &c), PM_EINVALID);
    assert_null(c);
    free(a);
    free(b);
    free(missing);
    free(full);
    free(leaf);
    free(empty);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
}

static void test_publish_and_overwrite(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    char *path = join(dir, "snapshot/snapshot-1");
    bool published = false;
    PM_OK_OR_FAIL(pm_fileio_publish_if_absent(fio, path, "first", 5, &published));
    assert_true(published);
    PM_OK_OR_FAIL(pm_fileio_publish_if_absent(fio, path, "second", 6, &published));
    assert_false(published);
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_fileio_read_file(fio, path, &b));
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, "first", 5);

    char *hint = join(dir, "snapshot/LATEST");
    PM_OK_OR_FAIL(pm_fileio_overwrite_atomic(fio, hint, "1", 1));
    PM_OK_OR_FAIL(pm_fileio_overwrite_atomic(fio, hint, "22", 2));
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_fileio_read_file(fio, hint, &b));
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "22", 2);

    char *sdir = join(dir, "snapshot");
    pm_name_list l;
    PM_OK_OR_FAIL(pm_fileio_list(fio, sdir, &l));
    assert_int_equal(l.count, 2); /* no temp files left */
    assert_string_equal(l.names[0], "LATEST");
    assert_string_equal(l.names[1], "snapshot-1");
    pm_fileio_list_free(&l);

    free(sdir);
    free(hint);
    pm_buf_free(&b);
    free(path);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
}

/*
 * 8 processes race to publish the same name with different bytes, started
 * together by closing a pipe they all block on.  Exit status 10 = published,
 * 11 = lost, anything else = error.  Repeated over several targets.
 */
#define RACERS 8
#define ROUNDS 6

static void test_publish_race_processes(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    char *sdir = join(dir, "snapshot");
    for (int round = 0; round < ROUNDS; round++) {
        char name[32];
        snprintf(name, sizeof name, "snapshot-%d", round + 1);
        char *path = join(sdir, name);
        int gate[2];
        assert_int_equal(pipe(gate), 0);
        pid_t pids[RACERS];
        for (int i = 0; i < RACERS; i++) {
            fflush(NULL);
            pid_t pid = fork();
            assert_true(pid >= 0);
            if (pid == 0) {
                close(gate[1]);
                char c;
                while (read(gate[0], &c, 1) > 0) {
                }
                char body[64];
                int len = snprintf(body, sizeof body, "{\"id\":%d,\"writer\":%d}", round, i);
                pm_fileio *cf;
                bool pub = false;
                pm_error *e = pm_fileio_local_new(&cf);
                if (!e)
                    e = pm_fileio_publish_if_absent(cf, path, body, (size_t)len, &pub);
                pm_fileio_free(cf);
                int rc = e ? 1 : pub ? 10 : 11;
                pm_error_free(e);
                /* The child's copies of the parent's allocations: released,
                 * so valgrind, which follows the fork, finds no leak here
                 * and keeps the exit status. */
                free(path);
                free(sdir);
                pm_fileio_free(fio);
                free(dir);
                _exit(rc);
            }
            pids[i] = pid;
        }
        close(gate[0]);
        close(gate[1]); /* go */
        int winners = 0, winner = -1;
        for (int i = 0; i < RACERS; i++) {
            int st;
            assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
            assert_true(WIFEXITED(st));
            int rc = WEXITSTATUS(st);
            assert_true(rc == 10 || rc == 11);
            if (rc == 10) {
                winners++;
                winner = i;
            }
        }
        assert_int_equal(winners, 1);
        char want[64];
        int wl = snprintf(want, sizeof want, "{\"id\":%d,\"writer\":%d}", round, winner);
        pm_buf b = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_fileio_read_file(fio, path, &b));
        assert_int_equal(b.len, (size_t)wl);
        assert_memory_equal(b.data, want, (size_t)wl);
        pm_buf_free(&b);
        free(path);
    }
    pm_name_list l;
    PM_OK_OR_FAIL(pm_fileio_list(fio, sdir, &l));
    assert_int_equal(l.count, ROUNDS); /* only the published names, no temp files */
    for (size_t i = 0; i < l.count; i++)
        assert_true(strncmp(l.names[i], "snapshot-", 9) == 0);
    pm_fileio_list_free(&l);
    free(sdir);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_join),
        cmocka_unit_test(test_output_and_input),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_open_whole),
        cmocka_unit_test(test_dirs_list_delete),
        cmocka_unit_test(test_rmdir_and_mkdtemp),
        cmocka_unit_test(test_publish_and_overwrite),
        cmocka_unit_test(test_publish_race_processes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
