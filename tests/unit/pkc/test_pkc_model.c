/*
 * tests/unit/pkc/test_pkc_model.c — the seeded randomized model of
 * primary-key tables (tests/unit/pk/pk_model.h) with random compactions
 * between commits: explicit, full or automatic picks, random dynamic
 * options (run trigger 2..5, target-file-size from 1 byte — every file an
 * upgrade candidate — to the default, small target-file-row-num),
 * tasks and results sent through their JSON form, results committed one
 * subset at a time with idempotent retries, some results aborted instead.
 * After every commit and compaction the latest state, a projection and a
 * random older snapshot must equal the model.  Deletion-vector tables
 * compact after every commit (their batch reads skip level 0).
 */
#include "../pk/pk_model.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"

typedef struct cstats {
    int rounds, tasks, committed, aborted, upgrades;
    bool always;          /* compact after every commit, never abort (deletion-vector
                             tables: batch reads skip level 0) */
    int index_changes;
} cstats;

static pm_compact_task *via_json_task(const pm_compact_task *t)
{
    char *j = NULL;
    PM_OK_OR_FAIL(pm_compact_task_to_json(&j, t));
    pm_compact_task *b = NULL;
    PM_OK_OR_FAIL(pm_compact_task_from_json(&b, j, strlen(j)));
    free(j);
    return b;
}

static pm_compact_result *via_json_result(pm_compact_result *r)
{
    char *j = NULL;
    PM_OK_OR_FAIL(pm_compact_result_to_json(&j, r));
    pm_compact_result *b = NULL;
    PM_OK_OR_FAIL(pm_compact_result_from_json(&b, j, strlen(j)));
    free(j);
    pm_compact_result_free(r);
    return b;
}

static void compact_hook(pm_table *t, uint64_t *rng, void *ctx)
{
    cstats *st = ctx;
    uint64_t r = rnd(rng) % 6;
    if (st->always)
        r = r % 3 == 0 ? 0 : 1; /* full or explicit: level 0 always moves up */
    if (r >= 4)
        return;
    char trig[64], tfs[64], rows[64];
    snprintf(trig, sizeof trig, "num-sorted-run.compaction-trigger=%d", 2 + (int)(rnd(rng) % 4));
    static const char *const sizes[] = {"1 b", "2 kb", "128 mb"};
    snprintf(tfs, sizeof tfs, "target-file-size=%s", sizes[rnd(rng) % 3]);
    snprintf(rows, sizeof rows, "target-file-row-num=%d", rnd(rng) % 2 ? 13 : 100000);
    const char *dyn[] = {trig, tfs, rows};
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "model-compactor", NULL, 0, r == 0, NULL, dyn, 3, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    b->automatic = r == 3;
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    st->rounds++;
    for (size_t i = 0; i < p->ntasks; i++) {
        st->tasks++;
        pm_compact_task *task = rnd(rng) % 2 ? via_json_task(p->tasks[i]) : NULL;
        pm_compact_result *res = NULL;
        PM_OK_OR_FAIL(pm_compact_execute(&res, t, task ? task : p->tasks[i], NULL));
        pm_compact_task_free(task);
        if (rnd(rng) % 2)
            res = via_json_result(res);
        for (size_t k = 0; k < res->nafter; k++)
            for (size_t j = 0; j < res->nbefore; j++)
                st->upgrades += !strcmp(res->after[k].file_name, res->before[j].file_name);
        st->index_changes += (int)res->nindex_added;
        if (!st->always && rnd(rng) % 10 == 0) {
            PM_OK_OR_FAIL(pm_compact_abort(t, &res, 1));
            st->aborted++;
        } else {
            pm_compact_metrics m1 = PM_COMPACT_METRICS_INIT, m2 = PM_COMPACT_METRICS_INIT;
            PM_OK_OR_FAIL(pm_compact_commit(&m1, t, NULL, &res, 1));
            if (rnd(rng) % 3 == 0) { /* retry: idempotent */
                PM_OK_OR_FAIL(pm_compact_commit(&m2, t, NULL, &res, 1));
                assert_int_equal(m1.snapshot_id, m2.snapshot_id);
            }
            st->committed++;
        }
        pm_compact_result_free(res);
    }
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
}

static void run_with(const char *name, const char *const *opts, size_t nopts, bool partial, bool partitioned,
                     uint64_t seed, int commits, bool always)
{
    cstats st = {0};
    st.always = always;
    pk_model_hooks h = {compact_hook, &st};
    run_model(name, opts, nopts, partial, partitioned, seed, commits, &h);
    print_message("%s: %d rounds, %d tasks, %d committed, %d aborted, %d upgrades, %d index changes\n", name,
                  st.rounds, st.tasks, st.committed, st.aborted, st.upgrades, st.index_changes);
    assert_true(st.committed > 0);
    if (always)
        assert_true(st.index_changes > 0);
}

static void run(const char *name, const char *const *opts, size_t nopts, bool partial, bool partitioned,
                uint64_t seed, int commits)
{
    run_with(name, opts, nopts, partial, partitioned, seed, commits, false);
}

static void test_dedup_one_bucket(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=1"};
    run("cdedup1", opts, 1, false, false, 0x1234567ull, 14);
}

static void test_dedup_partitioned(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=3", "target-file-row-num=17"};
    run("cdedup3", opts, 2, false, true, 0xabcdefull, 12);
}

static void test_dedup_avro_spilling(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=2", "write-buffer-size=2 kb", "file.format=avro"};
    run("cdedupspill", opts, 3, false, false, 0x5eedull, 10);
}

static void test_partial_update(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=2", "merge-engine=partial-update"};
    run("cpu", opts, 2, true, false, 0x77ull, 14);
}

static void test_more_seeds(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=1", "num-levels=3"};
    for (uint64_t s = 1; s <= 2; s++)
        run("cseed", opts, 2, false, s % 2 == 0, s * 0x9e3779b97f4a7c15ull, 12);
}

/* Deletion vectors: every commit is followed by a compaction (reads skip
 * level 0); replaced rows are marked deleted in the retained levels. */
static void test_deletion_vectors(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=2", "deletion-vectors.enabled=true"};
    run_with("cdv", opts, 2, false, false, 0xd0d0ull, 10, true);
    const char *opts2[] = {"bucket=1", "deletion-vectors.enabled=true", "num-levels=4"};
    run_with("cdv2", opts2, 3, false, true, 0xbeefull, 8, true);
    /* partial-update (its merge depends on record order): every compaction
     * takes the whole bucket to the max level, so there is never a row to
     * mark in a retained level, and reads stay exact */
    const char *opts3[] = {"bucket=2", "deletion-vectors.enabled=true", "merge-engine=partial-update"};
    cstats st = {0};
    st.always = true;
    pk_model_hooks h = {compact_hook, &st};
    run_model("cdvpu", opts3, 3, true, false, 0xd0d1ull, 10, &h);
    assert_true(st.committed > 0);
    assert_int_equal(st.index_changes, 0);
}

/* changelog-producer=lookup (with and without deletion vectors): reads
 * stay exact while compactions look history up and write changelogs. */
static void test_lookup_changelog(void **state)
{
    (void)state;
    const char *opts[] = {"bucket=2", "changelog-producer=lookup"};
    run("cchg", opts, 2, false, false, 0xc1a0ull, 10);
    const char *opts2[] = {"bucket=1", "changelog-producer=lookup", "deletion-vectors.enabled=true"};
    run_with("cchgdv", opts2, 3, false, false, 0xc1a1ull, 8, true);
    /* full-compaction changelog: full compactions also write changelog
     * files; reads stay exact */
    const char *opts3[] = {"bucket=2", "changelog-producer=full-compaction"};
    run("cfullcl", opts3, 2, false, false, 0xc1a2ull, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedup_one_bucket),
        cmocka_unit_test(test_dedup_partitioned),
        cmocka_unit_test(test_dedup_avro_spilling),
        cmocka_unit_test(test_partial_update),
        cmocka_unit_test(test_more_seeds),
        cmocka_unit_test(test_deletion_vectors),
        cmocka_unit_test(test_lookup_changelog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
