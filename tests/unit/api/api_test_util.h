/*
 * tests/unit/api/api_test_util.h — helpers for the public-API unit tests:
 * they build tables and rows only through include/paimon/.
 */
#ifndef PM_API_TEST_UTIL_H
#define PM_API_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paimon/read.h"
#include "paimon/rows.h"
#include "paimon/table.h"
#include "paimon/write.h"
#include "pm_test.h"

/* The per-program temporary directory of the tests (setup / teardown). */
static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = pm_test_tmpdir();
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pm_test_rmtree(dir);
    free(dir);
    return 0;
}

/* "<dir>/<name>" (malloc'd). */
static inline char *api_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Create a table from a field list ("a INT, b STRING"), comma-separated
 * keys and "k=v" options. */
static inline void api_create(const char *path, const char *fields, const char *partition, const char *primary,
                              const char *const *options, size_t noptions)
{
    char text[512];
    snprintf(text, sizeof text, "ROW<%s>", fields);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, text));
    const char *parts[1] = {partition}, *pks[2] = {NULL, NULL};
    size_t npk = 0;
    char pkbuf[128];
    if (primary) {
        snprintf(pkbuf, sizeof pkbuf, "%s", primary);
        char *comma = strchr(pkbuf, ',');
        pks[npk++] = pkbuf;
        if (comma) {
            *comma = 0;
            pks[npk++] = comma + 1;
        }
    }
    const char *keys[16], *vals[16];
    char kv[16][128];
    assert_true(noptions <= 16);
    for (size_t i = 0; i < noptions; i++) {
        snprintf(kv[i], sizeof kv[i], "%s", options[i]);
        char *eq = strchr(kv[i], '=');
        assert_non_null(eq);
        *eq = 0;
        keys[i] = kv[i];
        vals[i] = eq + 1;
    }
    pm_table_spec spec = PM_TABLE_SPEC_INIT;
    spec.row_type = rt;
    spec.partition_keys = partition ? parts : NULL;
    spec.npartition_keys = partition ? 1 : 0;
    spec.primary_keys = npk ? pks : NULL;
    spec.nprimary_keys = npk;
    spec.option_keys = keys;
    spec.option_values = vals;
    spec.noptions = noptions;
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
}

/* Write JSON lines as one commit; the outcome is returned (its
 * compaction_error, if any, freed after printing). */
static inline pm_commit_outcome api_write_json(pm_table *t, const char *jsonl, const pm_write_options *o)
{
    pm_writer *w = NULL;
    PM_OK_OR_FAIL(pm_writer_new(&w, t, o));
    pm_mem_source src = {jsonl, strlen(jsonl), 0, 0};
    PM_OK_OR_FAIL(pm_writer_write_rows(w, PM_ROWS_JSONL, pm_mem_source_read, &src));
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    PM_OK_OR_FAIL(pm_writer_commit(&out, w));
    pm_writer_free(w);
    if (out.compaction_error) {
        char *s = pm_error_format(out.compaction_error);
        print_error("compaction error: %s\n", s ? s : "?");
        free(s);
        pm_error_free(out.compaction_error);
        out.compaction_error = NULL;
        fail();
    }
    return out;
}

typedef struct api_text {
    char *data;
    size_t len, cap;
} api_text;

static inline pm_error *api_text_sink(void *ctx, const void *data, size_t n)
{
    api_text *t = ctx;
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->data = realloc(t->data, t->cap);
        if (!t->data)
            return pm_error_new(PM_ENOMEM, "out of memory");
    }
    memcpy(t->data + t->len, data, n);
    t->len += n;
    t->data[t->len] = 0;
    return NULL;
}

/* Every row of a reader as JSON lines (malloc'd; "" when empty). */
static inline char *api_read_all(pm_reader *r)
{
    api_text t = {NULL, 0, 0};
    pm_rows_writer *w = NULL;
    PM_OK_OR_FAIL(pm_rows_writer_new(&w, PM_ROWS_JSONL, pm_reader_type(r), api_text_sink, &t));
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_reader_next(&b, r));
        if (!b)
            break;
        PM_OK_OR_FAIL(pm_rows_writer_write(w, b, 0, pm_batch_num_rows(b)));
    }
    PM_OK_OR_FAIL(pm_rows_writer_finish(w));
    pm_rows_writer_free(w);
    if (!t.data)
        t.data = strdup("");
    return t.data;
}

/* Rows of the latest snapshot as JSON lines (malloc'd). */
static inline char *api_read_table(pm_table *t, const pm_read_options *o)
{
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_read(&r, t, o));
    char *s = api_read_all(r);
    pm_reader_free(r);
    return s;
}

static inline size_t api_count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

#endif
