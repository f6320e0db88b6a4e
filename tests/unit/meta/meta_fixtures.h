/*
 * tests/unit/meta/meta_fixtures.h — find fixture files written by Paimon
 * Java (header-only helper for the meta unit tests).
 *
 * meta_find_files(pattern_dir, prefix) walks PM_FIXTURES_DIR and returns the
 * sorted paths of regular files whose parent directory is named `dir` and
 * whose name starts with `prefix` (e.g. "snapshot", "snapshot-").
 */
#ifndef META_FIXTURES_H
#define META_FIXTURES_H

#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdlib.h>
#include <string.h>

typedef struct meta_paths {
    char **paths;
    size_t count;
} meta_paths;

static const char *meta_want_dir_;
static const char *meta_want_prefix_;
static meta_paths *meta_acc_;

static int meta_visit_(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    if (type != FTW_F)
        return 0;
    const char *name = path + ftw->base;
    if (strncmp(name, meta_want_prefix_, strlen(meta_want_prefix_)) != 0)
        return 0;
    /* parent directory name */
    if (ftw->base < 2)
        return 0;
    size_t end = (size_t)ftw->base - 1;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    if (end - start != strlen(meta_want_dir_) || strncmp(path + start, meta_want_dir_, end - start))
        return 0;
    meta_acc_->paths = realloc(meta_acc_->paths, (meta_acc_->count + 1) * sizeof(char *));
    meta_acc_->paths[meta_acc_->count++] = strdup(path);
    return 0;
}

static int meta_cmp_(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static meta_paths meta_find_files(const char *dir, const char *prefix)
{
    meta_paths r = {NULL, 0};
    meta_want_dir_ = dir;
    meta_want_prefix_ = prefix;
    meta_acc_ = &r;
    nftw(PM_FIXTURES_DIR, meta_visit_, 16, FTW_PHYS);
    if (r.count)
        qsort(r.paths, r.count, sizeof(char *), meta_cmp_);
    return r;
}

static void meta_paths_free(meta_paths *p)
{
    for (size_t i = 0; i < p->count; i++)
        free(p->paths[i]);
    free(p->paths);
}

#endif
