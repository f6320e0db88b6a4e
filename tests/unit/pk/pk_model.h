/*
 * tests/unit/pk/pk_model.h — the seeded randomized model of primary-key
 * tables shared by tests/unit/pk/test_pk_model.c and the compaction model
 * test (tests/unit/pkc): random upserts, updates (-U/+U pairs) and deletes
 * against an in-memory map, random commits (several write calls each),
 * and after every commit a full read, a projected read and a time-travel
 * read of a random older snapshot compared with the model.
 * pk_model_hooks.after_commit runs after each commit (before the checks)
 * with the table and the random state; hooks may add snapshots (e.g.
 * compactions), so older states are found by the commit's snapshot id.
 */
#ifndef PM_PK_MODEL_H
#define PM_PK_MODEL_H

#include <string.h>

#include "pk_test_util.h"

#define NKEYS 150
#define MAX_SNAPSHOTS 64

typedef struct pk_model_hooks {
    void (*after_commit)(pm_table *t, uint64_t *rng, void *ctx);
    void *ctx;
} pk_model_hooks;

typedef struct row {
    bool live;
    int a;        /* -1 = null */
    int b;        /* -1 = null */
} row;

typedef struct model {
    bool partial; /* partial-update: non-null fields win, no deletes */
    bool partitioned;
    row rows[NKEYS];
    row snaps[MAX_SNAPSHOTS + 1][NKEYS];
    int64_t snap_id[MAX_SNAPSHOTS + 1]; /* snapshot of commit c */
} model;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const char *part_of(const model *m, int k) { return m->partitioned ? (k % 2 ? "\"p\":\"odd\"," : "\"p\":\"even\",") : ""; }

static pm_error *print_int(pm_buf *out, const char *name, int v)
{
    return v < 0 ? pm_buf_printf(out, ",\"%s\":null", name) : pm_buf_printf(out, ",\"%s\":%d", name, v);
}

static char *expected(const model *m, const row *rows, bool project)
{
    pm_buf out = PM_BUF_INIT;
    for (int k = 0; k < NKEYS; k++) {
        if (!rows[k].live)
            continue;
        if (project) {
            /* columns b, id */
            if (rows[k].b < 0)
                PM_OK_OR_FAIL(pm_buf_printf(&out, "{\"b\":null,\"id\":%d}\n", k));
            else
                PM_OK_OR_FAIL(pm_buf_printf(&out, "{\"b\":%d,\"id\":%d}\n", rows[k].b, k));
            continue;
        }
        PM_OK_OR_FAIL(pm_buf_printf(&out, "{%s\"id\":%d", part_of(m, k), k));
        PM_OK_OR_FAIL(print_int(&out, "a", rows[k].a));
        PM_OK_OR_FAIL(print_int(&out, "b", rows[k].b));
        PM_OK_OR_FAIL(pm_buf_append_str(&out, "}\n"));
    }
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &s));
    char *r = pk_sort_lines(s);
    pm_buf_free(&out);
    return r;
}

static void check(pm_table *t, const model *m, int64_t snapshot, const row *rows)
{
    char *want = expected(m, rows, false);
    char *got = pk_read_sorted(t, snapshot, NULL, 0);
    assert_string_equal(got, want);
    free(got);
    free(want);
    if (snapshot == 0) {
        const char *cols[] = {"b", "id"};
        want = expected(m, rows, true);
        got = pk_read_sorted(t, 0, cols, 2);
        assert_string_equal(got, want);
        free(got);
        free(want);
    }
}

/* One record into the input text and the model. */
static void record(model *m, pm_buf *in, int k, const char *kind, int a, int b)
{
    PM_OK_OR_FAIL(pm_buf_printf(in, "{%s\"id\":%d", part_of(m, k), k));
    PM_OK_OR_FAIL(print_int(in, "a", a));
    PM_OK_OR_FAIL(print_int(in, "b", b));
    PM_OK_OR_FAIL(pm_buf_printf(in, ",\"_ROW_KIND\":\"%s\"}\n", kind));
    row *r = &m->rows[k];
    if (!strcmp(kind, "-D") || !strcmp(kind, "-U")) {
        r->live = false;
        return;
    }
    if (m->partial && r->live) {
        if (a >= 0)
            r->a = a;
        if (b >= 0)
            r->b = b;
        return;
    }
    r->live = true;
    r->a = a;
    r->b = b;
}

static void run_model(const char *name, const char *const *opts, size_t nopts, bool partial, bool partitioned,
                      uint64_t seed, int commits, const pk_model_hooks *hooks)
{
    char *dir = pm_test_tmpdir();
    pm_table *t = pk_create(dir, name,
                            partitioned ? "ROW<p STRING, id INT NOT NULL, a INT, b INT>" : "ROW<id INT NOT NULL, a INT, b INT>",
                            partitioned ? "p" : NULL, partitioned ? "p,id" : "id", opts, nopts);
    model *m = calloc(1, sizeof *m);
    m->partial = partial;
    m->partitioned = partitioned;
    pm_buf in = PM_BUF_INIT;
    for (int c = 1; c <= commits && c <= MAX_SNAPSHOTS; c++) {
        pm_table_writer *w = NULL;
        PM_OK_OR_FAIL(pm_table_writer_new(&w, t, NULL));
        int calls = 1 + (int)(rnd(&seed) % 3);
        for (int call = 0; call < calls; call++) {
            pm_buf_clear(&in);
            int n = 1 + (int)(rnd(&seed) % 60);
            for (int i = 0; i < n; i++) {
                int k = (int)(rnd(&seed) % NKEYS);
                int op = (int)(rnd(&seed) % 10);
                int a = (int)(rnd(&seed) % 1000), b = (int)(rnd(&seed) % 1000);
                if (partial) {
                    /* sparse updates: one of the two fields */
                    if (op < 5)
                        b = -1;
                    else
                        a = -1;
                    record(m, &in, k, "+I", a, b);
                } else if (op < 6) {
                    record(m, &in, k, "+I", a, rnd(&seed) % 4 ? b : -1);
                } else if (op < 8) {
                    if (m->rows[k].live)
                        record(m, &in, k, "-U", m->rows[k].a, m->rows[k].b);
                    record(m, &in, k, "+U", a, b);
                } else {
                    record(m, &in, k, "-D", a, b);
                }
            }
            const char *text = NULL;
            PM_OK_OR_FAIL(pm_buf_cstr(&in, &text));
            pm_batch *bt = pk_rows(t, text);
            PM_OK_OR_FAIL(pm_table_writer_write(w, bt));
            pm_batch_free(bt);
        }
        pm_commit_message *msgs = NULL;
        size_t nm = 0;
        PM_OK_OR_FAIL(pm_table_writer_prepare_commit(w, &msgs, &nm));
        int64_t id = pk_commit_msgs(t, msgs, nm);
        pm_commit_message_array_free(msgs, nm);
        pm_table_writer_free(w);
        if (!hooks)
            assert_int_equal(id, c);
        m->snap_id[c] = id;
        memcpy(m->snaps[c], m->rows, sizeof m->rows);
        if (hooks && hooks->after_commit) {
            hooks->after_commit(t, &seed, hooks->ctx);
            /* the state of commit c is the latest snapshot after the hook
             * (a compaction may publish the rows, e.g. deletion vectors) */
            pm_scan_result *sr = NULL;
            pm_scan_options so = pm_scan_options_default();
            PM_OK_OR_FAIL(pm_table_scan(t, &so, &sr));
            m->snap_id[c] = sr->snapshot->id;
            pm_scan_result_free(sr);
        }
        check(t, m, 0, m->rows);
        int older = 1 + (int)(rnd(&seed) % (uint64_t)c);
        check(t, m, m->snap_id[older], m->snaps[older]);
    }
    pm_buf_free(&in);
    free(m);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

#endif
