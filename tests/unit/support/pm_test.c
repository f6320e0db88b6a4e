/*
 * tests/unit/support/pm_test.c — helpers shared by unit tests (see pm_test.h).
 */
#define _GNU_SOURCE
#include "pm_test.h"

#include <ftw.h>
#include <string.h>
#include <unistd.h>

void pm_test_expect_error(pm_error *e, pm_code code, const char *needle)
{
    if (!e) {
        print_error("accepted, expected an error with '%s'\n", needle);
        fail();
    }
    char *msg = pm_error_format(e);
    if (!msg || !strstr(msg, needle)) {
        print_error("message '%s' lacks '%s'\n", msg ? msg : "?", needle);
        fail();
    }
    if (pm_error_code(e) != code)
        print_error("message '%s'\n", msg);
    assert_int_equal(pm_error_code(e), code);
    free(msg);
    pm_error_free(e);
}

char *pm_test_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    char *path = malloc(strlen(base) + 32);
    if (!path)
        return NULL;
    sprintf(path, "%s/pmtest-XXXXXX", base);
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

char *pm_test_dir;

int pm_test_dir_setup(void **state)
{
    (void)state;
    pm_test_dir = pm_test_tmpdir();
    return pm_test_dir ? 0 : -1;
}

int pm_test_dir_teardown(void **state)
{
    (void)state;
    if (!getenv("PM_KEEP_TMP"))
        pm_test_rmtree(pm_test_dir);
    else
        fprintf(stderr, "kept %s\n", pm_test_dir);
    free(pm_test_dir);
    pm_test_dir = NULL;
    return 0;
}

char *pm_test_path(const char *name)
{
    size_t n = strlen(pm_test_dir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", pm_test_dir, name);
    return p;
}

void pm_test_rmtree(const char *path)
{
    if (path)
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

uint8_t *pm_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(n > 0 ? (size_t)n : 1);
    if (d && n > 0 && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    if (d && len)
        *len = (size_t)n;
    return d;
}
