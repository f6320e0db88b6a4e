/*
 * tests/unit/table/write_test_util.h — helpers for the table write and
 * commit unit tests: create a table from a type string and options, write
 * JSON lines, commit, list a directory.
 */
#ifndef PM_WRITE_TEST_UTIL_H
#define PM_WRITE_TEST_UTIL_H

#include <dirent.h>
#include <string.h>

#include "pm_test.h"
#include "table/table_commit.h"
#include "table/table_write.h"
#include "types/value.h"

/* Create `<dir>/db.db/<name>` and open it. opts = "k=v" strings. */
static inline pm_table *wt_create(const char *dir, const char *name, const char *row_type,
                                  const char *partition, const char *const *opts, size_t nopts)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/db.db/%s", dir, name);
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, row_type));
    const char *keys[32], *vals[32];
    char kbuf[32][128];
    for (size_t i = 0; i < nopts; i++) {
        const char *eq = strchr(opts[i], '=');
        snprintf(kbuf[i], sizeof kbuf[i], "%.*s", (int)(eq - opts[i]), opts[i]);
        keys[i] = kbuf[i];
        vals[i] = eq + 1;
    }
    const char *pk[1] = {partition};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, pk, partition ? 1 : 0, NULL, 0, keys, vals, nopts, NULL};
    PM_OK_OR_FAIL(pm_table_create(path, &spec, false));
    pm_type_free(rt);
    pm_table *t = NULL;
    PM_OK_OR_FAIL(pm_table_open(&t, path, NULL));
    return t;
}

static inline pm_batch *wt_rows(pm_table *t, const char *jsonl)
{
    pm_batch *b = NULL;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&b, pm_table_schema(t)->row_type, jsonl, strlen(jsonl)));
    return b;
}

/* Write the rows and hand out the messages. */
static inline pm_commit_message *wt_write(pm_table_writer *w, pm_table *t, const char *jsonl, size_t *n)
{
    pm_batch *b = wt_rows(t, jsonl);
    PM_OK_OR_FAIL(pm_table_writer_write(w, b));
    pm_batch_free(b);
    pm_commit_message *m = NULL;
    PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &m, n));
    return m;
}

/* Write + commit in one go (APPEND unless kind given); returns the snapshot id. */
static inline int64_t wt_commit_rows(pm_table *t, const char *jsonl, pm_commit_kind kind,
                                     const pm_partition_spec *spec, size_t nspec)
{
    pm_table_writer *w = NULL;
    pm_table_write_options wo = {0, kind == PM_COMMIT_OVERWRITE, 1, NULL};
    PM_OK_OR_FAIL(pm_table_writer_new(&w, t, &wo));
    size_t n = 0;
    pm_commit_message *m = wt_write(w, t, jsonl, &n);
    pm_commit_options o = {0};
    o.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    o.kind = kind;
    o.overwrite = spec;
    o.noverwrite = nspec;
    int64_t id = 0;
    PM_OK_OR_FAIL(pm_table_commit(t, &o, m, n, &id));
    pm_commit_message_array_free(m, n);
    pm_table_writer_free(w);
    return id;
}

/* Number of entries in a directory whose name starts with prefix. */
static inline size_t wt_count_files(const char *dir, const char *prefix)
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
