/*
 * tests/unit/pk/pk_test_util.h — helpers for primary-key table tests:
 * create a table from a type string + keys + options, write JSON lines
 * (with an optional "_ROW_KIND" field) and commit, read the table back as
 * sorted JSON lines, list a bucket's files.
 */
#ifndef PM_PK_TEST_UTIL_H
#define PM_PK_TEST_UTIL_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "paimon/table.h"
#include "pm_test.h"
#include "table/pk_write.h"
#include "table/scan.h"
#include "table/table_commit.h"
#include "table/table_read.h"
#include "table/table_write.h"
#include "types/column.h"
#include "types/value.h"

/* "k=v" options; partition and primary keys comma-separated (NULL = none). */
static inline pm_table *pk_create(const char *dir, const char *name, const char *row_type, const char *partition,
                                  const char *pks, const char *const *opts, size_t nopts)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/db.db/%s", dir, name);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, row_type));
    const char *keys[64], *vals[64];
    char kbuf[64][128];
    for (size_t i = 0; i < nopts; i++) {
        const char *eq = strchr(opts[i], '=');
        snprintf(kbuf[i], sizeof kbuf[i], "%.*s", (int)(eq - opts[i]), opts[i]);
        keys[i] = kbuf[i];
        vals[i] = eq + 1;
    }
    char pbuf[256], kbuf2[256];
    const char *parts[8], *pkl[8];
    size_t np = 0, nk = 0;
    if (partition) {
        snprintf(pbuf, sizeof pbuf, "%s", partition);
        for (char *s = strtok(pbuf, ","); s; s = strtok(NULL, ","))
            parts[np++] = s;
    }
    if (pks) {
        snprintf(kbuf2, sizeof kbuf2, "%s", pks);
        for (char *s = strtok(kbuf2, ","); s; s = strtok(NULL, ","))
            pkl[nk++] = s;
    }
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, parts, np, pkl, nk, keys, vals, nopts, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    return t;
}

/* The table's row type plus _ROW_KIND STRING. */
static inline pm_type *pk_input_type(pm_table *t)
{
    pm_type *rt = pm_type_clone(pm_table_schema(t)->row_type);
    assert_non_null(rt);
    pm_type *k = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true);
    PM_OK_OR_FAIL(pm_type_add_field(rt, 100000, PM_ROW_KIND_COLUMN, k));
    return rt;
}

static inline pm_batch *pk_rows(pm_table *t, const char *jsonl)
{
    pm_type *rt = pk_input_type(t);
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, rt, jsonl, strlen(jsonl)));
    pm_type_free(rt);
    return b;
}

static inline int64_t pk_commit_msgs(pm_table *t, pm_commit_message *m, size_t n)
{
    pm_commit_options o = {0};
    o.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    o.kind = PM_COMMIT_APPEND;
    int64_t id = 0;
    PM_OK_OR_FAIL(pm_table_commit(t, &o, m, n, &id));
    return id;
}

/* One writer, one batch, one commit; returns the snapshot id. */
static inline int64_t pk_commit_rows(pm_table *t, const char *jsonl)
{
    pm_table_writer *w = NULL;
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
    pm_batch *b = pk_rows(t, jsonl);
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_message *m = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, &n));
    int64_t id = pk_commit_msgs(t, m, n);
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    return id;
}

static int pk_cmp_line(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Rows of the table (snapshot 0 = latest; columns NULL = all) as JSON
 * lines, sorted; caller frees. */
static inline char *pk_read_sorted(pm_table *t, int64_t snapshot, const char *const *cols, size_t ncols)
{
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = snapshot;
    pm_scan_result *scan = NULL;
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    pm_table_read_options ro = {cols, ncols, 0, NULL};
    pm_table_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_reader_new(&r, t, scan, &ro));
    char **lines = NULL;
    size_t n = 0, cap = 0;
    pm_buf line = PM_BUF_INIT;
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_table_reader_next(r, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            pm_buf_clear(&line);
            PM_OK_OR_FAIL(pm_batch_format_row_json(b, i, &line));
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                lines = realloc(lines, cap * sizeof *lines);
                assert_non_null(lines);
            }
            lines[n] = malloc(line.len + 1);
            assert_non_null(lines[n]);
            memcpy(lines[n], line.data, line.len);
            lines[n][line.len] = 0;
            n++;
        }
    }
    pm_table_reader_free(r);
    pm_scan_result_free(scan);
    pm_buf_free(&line);
    if (n)
        qsort(lines, n, sizeof *lines, pk_cmp_line);
    pm_buf all = PM_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        PM_OK_OR_FAIL(pm_buf_append_str(&all, lines[i]));
        PM_OK_OR_FAIL(pm_buf_append_str(&all, "\n"));
        free(lines[i]);
    }
    free(lines);
    char *s = malloc(all.len + 1);
    assert_non_null(s);
    if (all.len)
        memcpy(s, all.data, all.len);
    s[all.len] = 0;
    pm_buf_free(&all);
    return s;
}

/* Sort the lines of a literal so tests can write expectations in any order. */
static inline char *pk_sort_lines(const char *text)
{
    char *copy = strdup(text);
    char *lines[4096];
    size_t n = 0;
    for (char *s = strtok(copy, "\n"); s && n < 4096; s = strtok(NULL, "\n"))
        lines[n++] = s;
    qsort(lines, n, sizeof *lines, pk_cmp_line);
    pm_buf all = PM_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        PM_OK_OR_FAIL(pm_buf_append_str(&all, lines[i]));
        PM_OK_OR_FAIL(pm_buf_append_str(&all, "\n"));
    }
    free(copy);
    char *s = malloc(all.len + 1);
    if (all.len)
        memcpy(s, all.data, all.len);
    s[all.len] = 0;
    pm_buf_free(&all);
    return s;
}

#define PK_EXPECT_ROWS(t, snapshot, expected)                      \
    do {                                                           \
        char *pk_got_ = pk_read_sorted((t), (snapshot), NULL, 0);  \
        char *pk_want_ = pk_sort_lines(expected);                  \
        assert_string_equal(pk_got_, pk_want_);                    \
        free(pk_got_);                                             \
        free(pk_want_);                                            \
    } while (0)

/* Live files of the latest snapshot of (unpartitioned) bucket b; caller
 * frees the scan. */
static inline const pm_bucket_files *pk_bucket(pm_table *t, int32_t bucket, pm_scan_result **scan)
{
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, scan));
    for (size_t i = 0; i < (*scan)->nbuckets; i++)
        if ((*scan)->buckets[i].bucket == bucket)
            return &(*scan)->buckets[i];
    return NULL;
}

static inline size_t pk_count_files(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && !strncmp(e->d_name, prefix, strlen(prefix)))
            n++;
    closedir(d);
    return n;
}

#endif
