/*
 * tests/unit/pkc/test_pkc_changelog_model.c — a seeded randomized model
 * per merge engine with a changelog producer: random writes (row kinds
 * the engine accepts), each followed by a compaction that leaves no
 * level-0 file (explicit: lookup tables force level 0 up; full for the
 * full-compaction producer); after each, the changelog of the new
 * snapshots is read back through the public incremental read
 * (paimon/read.h, mode changelog) and replayed onto a key → row map:
 * +I/+U set the row, -U/-D must carry exactly the row the replay holds
 * and remove it.  The replayed state must equal the table's state (a
 * normal read) after every compaction, and the delta read of the same
 * range must hold one row per key and data commit.  Partial-update and
 * aggregation run also with remove-record-on-delete, where the seed's
 * DELETE case (live history, deleted result) must occur.
 */
#include <string.h>

#include "../pk/pk_test_util.h"
#include "compact/compact_internal.h"
#include "paimon/compact.h"
#include "paimon/read.h"

#define NKEYS 24

typedef struct model {
    char *row[NKEYS];        /* replayed state: JSON of the row, NULL = absent */
    uint64_t rng;
    int events;
    int deletes;             /* -D events replayed */
} model;

static uint64_t rnd(model *m)
{
    m->rng ^= m->rng << 13;
    m->rng ^= m->rng >> 7;
    m->rng ^= m->rng << 17;
    return m->rng;
}

/* E_PARTIAL_RM: partial-update with partial-update.remove-record-on-delete
 * (its -D rows remove the record: DELETE events of the history). */
typedef enum { E_DEDUP, E_PARTIAL, E_PARTIAL_RM, E_AGG, E_FIRST } engine;

/* One random row of the engine as a JSON line; seen[id] set. */
static void random_row(model *m, engine en, pm_buf *out, bool *seen)
{
    int id = (int)(rnd(m) % NKEYS);
    seen[id] = true;
    int a = (int)(rnd(m) % 100);
    const char *kind = "+I";
    uint64_t k = rnd(m) % 10;
    if (en == E_DEDUP)
        kind = k < 6 ? "+I" : k < 8 ? "+U" : "-D";
    else if (en == E_AGG)
        kind = k < 7 ? "+I" : "-D";
    if (en == E_PARTIAL_RM && k < 2) {
        PM_OK_OR_FAIL(pm_buf_printf(out, "{\"id\":%d,\"a\":null,\"b\":null,\"_ROW_KIND\":\"-D\"}\n", id));
        return;
    }
    if (en == E_PARTIAL || en == E_PARTIAL_RM) {
        /* sparse: a and b null at random */
        bool na = rnd(m) % 3 == 0, nb = rnd(m) % 2 == 0;
        char av[16], bv[16];
        snprintf(av, sizeof av, "%d", a);
        snprintf(bv, sizeof bv, "\"s%d\"", a % 7);
        PM_OK_OR_FAIL(pm_buf_printf(out, "{\"id\":%d,\"a\":%s,\"b\":%s}\n", id, na ? "null" : av, nb ? "null" : bv));
        return;
    }
    PM_OK_OR_FAIL(pm_buf_printf(out, "{\"id\":%d,\"a\":%d,\"b\":\"s%d\",\"_ROW_KIND\":\"%s\"}\n", id, a, a % 5, kind));
}

static int64_t latest_id(pm_table *t)
{
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    int64_t id = scan->snapshot ? scan->snapshot->id : 0;
    pm_scan_result_free(scan);
    return id;
}

/* Every row of an incremental read of (from, to] as (kind, JSON of the fields). */
static void replay(model *m, pm_table *t, int64_t from, int64_t to)
{
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.incremental_from = from;
    o.incremental_to = to;
    o.incremental_mode = PM_INCREMENTAL_CHANGELOG;
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_read(&r, t, &o));
    const pm_type *rt = pm_table_schema(t)->row_type;
    pm_buf line = PM_BUF_INIT;
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_reader_next(&b, r));
        if (!b)
            break;
        assert_int_equal(b->ncolumns, rt->nfields + 1);
        pm_batch view = {.type = (pm_type *)rt, .num_rows = b->num_rows, .ncolumns = rt->nfields, .columns = b->columns};
        const pm_column *kc = b->columns[rt->nfields];
        for (int64_t i = 0; i < b->num_rows; i++) {
            pm_buf_clear(&line);
            PM_OK_OR_FAIL(pm_batch_format_row_json(&view, i, &line));
            PM_OK_OR_FAIL(pm_buf_append_byte(&line, 0));
            const char *js = (const char *)line.data;
            int id = (int)pm_column_i32(b->columns[0], i);
            assert_true(id >= 0 && id < NKEYS);
            size_t kl = 0;
            const uint8_t *kp = pm_column_bytes(kc, i, &kl);
            assert_int_equal(kl, 2);
            m->events++;
            if (kp[0] == '+') {
                if (kp[1] == 'I' && m->row[id])
                    print_error("+I of key %d that the replay already holds: %s\n", id, m->row[id]);
                if (kp[1] == 'I')
                    assert_null(m->row[id]);
                else
                    assert_non_null(m->row[id]); /* +U follows the -U of a live row */
                free(m->row[id]);
                m->row[id] = strdup(js);
            } else {
                /* -U / -D: the before image is the replayed row */
                if (!m->row[id] || strcmp(m->row[id], js))
                    print_error("%.2s of key %d: %s, the replay holds %s\n", (const char *)kp, id, js,
                                m->row[id] ? m->row[id] : "nothing");
                assert_non_null(m->row[id]);
                assert_string_equal(m->row[id], js);
                if (kp[1] == 'D') {
                    m->deletes++;
                    free(m->row[id]);
                    m->row[id] = NULL;
                }
            }
        }
    }
    pm_reader_free(r);
    pm_buf_free(&line);
}

static void expect_state(model *m, pm_table *t)
{
    pm_buf want = PM_BUF_INIT;
    /* sorted like pk_read_sorted (strcmp of the lines) */
    char *lines[NKEYS];
    size_t n = 0;
    for (int i = 0; i < NKEYS; i++)
        if (m->row[i])
            lines[n++] = m->row[i];
    qsort(lines, n, sizeof *lines, pk_cmp_line);
    for (size_t i = 0; i < n; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&want, "%s\n", lines[i]));
    PM_OK_OR_FAIL(pm_buf_append_byte(&want, 0));
    char *got = pk_read_sorted(t, 0, NULL, 0);
    assert_string_equal(got, (const char *)want.data);
    free(got);
    pm_buf_free(&want);
}

/* The delta read of (from, to] holds exactly `written` rows (one per key
 * and data commit). */
static void expect_delta_rows(pm_table *t, int64_t from, int64_t to, int64_t written)
{
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.incremental_from = from;
    o.incremental_to = to;
    o.incremental_mode = PM_INCREMENTAL_DELTA;
    pm_reader *r = NULL;
    PM_OK_OR_FAIL(pm_table_read(&r, t, &o));
    int64_t n = 0;
    for (;;) {
        const pm_batch *b = NULL;
        PM_OK_OR_FAIL(pm_reader_next(&b, r));
        if (!b)
            break;
        n += b->num_rows;
    }
    pm_reader_free(r);
    assert_int_equal(n, written);
}

static void compact(pm_table *t, bool full)
{
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.full = full;
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_run(&m, b));
    pm_compact_builder_free(b);
}

static void no_level0(pm_table *t)
{
    pm_scan_result *scan = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_OK_OR_FAIL(pm_table_scan(t, &so, &scan));
    for (size_t i = 0; i < scan->nbuckets; i++)
        for (size_t k = 0; k < scan->buckets[i].nfiles; k++)
            assert_int_not_equal(scan->buckets[i].files[k].level, 0);
    pm_scan_result_free(scan);
}

static void run_model_with(const char *name, engine en, const char *const *opts0, size_t nopts, bool full,
                           uint64_t seed, int rounds, bool cache)
{
    char *dir = pm_test_tmpdir();
    /* cache: lookups through Lookup Files in a local cache under dir */
    const char *opts[16];
    char cdir[1200];
    for (size_t i = 0; i < nopts; i++)
        opts[i] = opts0[i];
    if (cache) {
        snprintf(cdir, sizeof cdir, "local-cache.dir=%s/cache", dir);
        opts[nopts++] = "local-cache.enabled=true";
        opts[nopts++] = cdir;
    }
    pm_table *t = pk_create(dir, name, "ROW<id INT NOT NULL, a INT, b STRING>", NULL, "id", opts, nopts);
    model m;
    memset(&m, 0, sizeof m);
    m.rng = seed;
    int64_t seen = 0;
    for (int round = 0; round < rounds; round++) {
        int writes = 1 + (int)(rnd(&m) % 3);
        int64_t before = latest_id(t), written = 0;
        for (int w = 0; w < writes; w++) {
            pm_buf rows = PM_BUF_INIT;
            int n = 1 + (int)(rnd(&m) % 12);
            bool keys[NKEYS] = {false};
            for (int i = 0; i < n; i++)
                random_row(&m, en, &rows, keys);
            const char *text = NULL;
            PM_OK_OR_FAIL(pm_buf_cstr(&rows, &text));
            pk_commit_rows(t, text);
            pm_buf_free(&rows);
            for (int i = 0; i < NKEYS; i++)
                written += keys[i]; /* the writer merges a commit's rows by key */
        }
        compact(t, full || rnd(&m) % 4 == 0);
        no_level0(t);
        int64_t now = latest_id(t);
        expect_delta_rows(t, before, now, written);
        replay(&m, t, seen, now);
        seen = now;
        expect_state(&m, t);
    }
    print_message("%s: %d rounds, %d changelog events (%d deletes), snapshot %lld\n", name, rounds, m.events,
                  m.deletes, (long long)seen);
    assert_true(m.events > 0);
    bool removes = false; /* remove-record-on-delete: the DELETE case of the history must occur */
    for (size_t i = 0; i < nopts; i++)
        removes |= strstr(opts[i], "remove-record-on-delete=true") != NULL;
    if (removes)
        assert_true(m.deletes > 0);
    for (int i = 0; i < NKEYS; i++)
        free(m.row[i]);
    pm_table_free(t);
    pm_test_rmtree(dir);
    free(dir);
}

static void run_model(const char *name, engine en, const char *const *opts, size_t nopts, bool full, uint64_t seed,
                      int rounds)
{
    run_model_with(name, en, opts, nopts, full, seed, rounds, false);
}

static void test_dedup_lookup(void **state)
{
    (void)state;
    const char *o[] = {"bucket=2", "changelog-producer=lookup", "write-only=true", "num-levels=4"};
    run_model("dedup", E_DEDUP, o, 4, false, 0x1111ull, 14);
    const char *o2[] = {"bucket=1", "changelog-producer=lookup", "write-only=true", "deletion-vectors.enabled=true"};
    run_model("dedupdv", E_DEDUP, o2, 4, false, 0x2222ull, 12);
}

static void test_partial_update_lookup(void **state)
{
    (void)state;
    const char *o[] = {"bucket=2", "merge-engine=partial-update", "changelog-producer=lookup", "write-only=true",
                       "num-levels=3"};
    run_model("pu", E_PARTIAL, o, 5, false, 0x3333ull, 14);
    /* -D removes the record: live history and a deleted result give DELETE */
    const char *o2[] = {"bucket=2", "merge-engine=partial-update", "partial-update.remove-record-on-delete=true",
                        "changelog-producer=lookup", "write-only=true", "num-levels=3"};
    run_model("purm", E_PARTIAL_RM, o2, 6, false, 0x3434ull, 14);
}

static void test_aggregation_lookup(void **state)
{
    (void)state;
    const char *o[] = {"bucket=2", "merge-engine=aggregation", "fields.a.aggregate-function=sum",
                       "fields.b.aggregate-function=max", "fields.b.ignore-retract=true", "changelog-producer=lookup",
                       "write-only=true", "num-levels=3"};
    run_model("agg", E_AGG, o, 8, false, 0x4444ull, 14);
    /* -D removes the record: DELETE events carrying the history's state */
    const char *o2[] = {"bucket=2", "merge-engine=aggregation", "fields.a.aggregate-function=sum",
                        "fields.b.aggregate-function=max", "aggregation.remove-record-on-delete=true",
                        "changelog-producer=lookup", "write-only=true", "num-levels=3"};
    run_model("aggrm", E_AGG, o2, 8, false, 0x4545ull, 14);
}

static void test_first_row_lookup(void **state)
{
    (void)state;
    const char *o[] = {"bucket=2", "merge-engine=first-row", "changelog-producer=lookup", "write-only=true"};
    run_model("fr", E_FIRST, o, 4, false, 0x5555ull, 12);
}

static void test_full_compaction(void **state)
{
    (void)state;
    const char *o[] = {"bucket=2", "changelog-producer=full-compaction", "write-only=true"};
    run_model("fcdedup", E_DEDUP, o, 3, true, 0x6666ull, 10);
    const char *o2[] = {"bucket=1", "merge-engine=aggregation", "fields.a.aggregate-function=sum",
                        "fields.b.aggregate-function=max", "fields.b.ignore-retract=true",
                        "changelog-producer=full-compaction", "write-only=true"};
    run_model("fcagg", E_AGG, o2, 7, true, 0x7777ull, 10);
    const char *o3[] = {"bucket=1", "merge-engine=partial-update", "changelog-producer=full-compaction",
                        "write-only=true", "deletion-vectors.enabled=true"};
    run_model("fcpudv", E_PARTIAL, o3, 5, true, 0x8888ull, 10);
}

/* The same through the local cache's Lookup Files. */
static void test_local_cache(void **state)
{
    (void)state;
    const char *o[] = {"bucket=2", "changelog-producer=lookup", "write-only=true", "num-levels=4",
                       "lookup.cache-spill-compression=lz4"};
    run_model_with("cdedup", E_DEDUP, o, 5, false, 0x1111ull, 14, true);
    const char *o2[] = {"bucket=1", "changelog-producer=lookup", "write-only=true", "deletion-vectors.enabled=true"};
    run_model_with("cdedupdv", E_DEDUP, o2, 4, false, 0x2222ull, 12, true);
    const char *o3[] = {"bucket=2", "merge-engine=aggregation", "fields.a.aggregate-function=sum",
                        "fields.b.aggregate-function=max", "fields.b.ignore-retract=true", "changelog-producer=lookup",
                        "write-only=true", "num-levels=3", "lookup.cache-spill-compression=none"};
    run_model_with("cagg", E_AGG, o3, 9, false, 0x4444ull, 14, true);
    const char *o4[] = {"bucket=2", "merge-engine=first-row", "changelog-producer=lookup", "write-only=true"};
    run_model_with("cfr", E_FIRST, o4, 4, false, 0x5555ull, 12, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedup_lookup),
        cmocka_unit_test(test_partial_update_lookup),
        cmocka_unit_test(test_aggregation_lookup),
        cmocka_unit_test(test_first_row_lookup),
        cmocka_unit_test(test_full_compaction),
        cmocka_unit_test(test_local_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
