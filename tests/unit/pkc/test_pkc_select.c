/*
 * tests/unit/pkc/test_pkc_select.c — the primary-key planner's selection
 * (pm_pk_select) on hand-built level shapes: which files a task captures
 * (in run order), the output level, drop-delete, the explicit progress
 * rule, the automatic triggers, full compaction, a single positive run
 * left alone, the whole-bucket rule of order-sensitive engines, first-row
 * lookup files, ForceUpLevel0 and the policy read from options (including
 * lookup-compact=gentle rejected for automatic rounds).  The pickers
 * themselves are tested by tests/unit/lsm; here we test the integration.
 */
#include <string.h>

#include "compact/pk/pk_compact.h"
#include "meta/schema.h"
#include "pm_test.h"
#include "types/binary_row.h"

static pm_type *int_key(void)
{
    pm_type *t = pm_type_new_row(false);
    PM_OK_OR_FAIL(pm_type_add_field(t, 1073741823, "_KEY_id", pm_type_new(PM_TYPE_INT, false)));
    return t;
}

static void set_int_key(pm_bytes *b, int32_t v)
{
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 1));
    pm_binrow_set_i32(&w, 0, v);
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_binrow_serialize(&w, &out));
    PM_OK_OR_FAIL(pm_bytes_set(b, out.data, out.len));
    pm_buf_free(&out);
    pm_binrow_writer_free(&w);
}

/* A file named `name` at `level`, keys [min, max], `size` bytes; sequence
 * numbers from `seq` (level-0 order is by max sequence descending). */
static void mk(pm_data_file_meta *f, const char *name, int level, int32_t min, int32_t max, int64_t size, int64_t seq)
{
    memset(f, 0, sizeof *f);
    f->file_name = strdup(name);
    f->level = level;
    f->file_size = size;
    f->row_count = 10;
    f->min_sequence_number = seq;
    f->max_sequence_number = seq + 9;
    f->delete_row_count.has = true;
    f->delete_row_count.v = 0;
    set_int_key(&f->min_key, min);
    set_int_key(&f->max_key, max);
}

static void clear(pm_data_file_meta *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_data_file_meta_clear(&f[i]);
}

static pm_pk_policy policy(pm_pick_mode pick)
{
    pm_pk_policy p;
    memset(&p, 0, sizeof p);
    p.pick = pick;
    p.strategy.u.max_size_amp = 200;
    p.strategy.u.size_ratio = 1;
    p.strategy.u.run_trigger = 5;
    p.strategy.u.offpeak_start = -1;
    p.strategy.u.offpeak_end = -1;
    p.num_levels = 6;
    p.min_file_size = 1000;
    p.now_ms = 1000;
    return p;
}

/* "name,name,..." of the selected files (run order) */
static void expect_files(const pm_pk_selection *s, const pm_data_file_meta *f, const char *want)
{
    char got[512] = "";
    for (size_t i = 0; i < s->nfiles; i++) {
        if (i)
            strcat(got, ",");
        strcat(got, f[s->files[i]].file_name);
    }
    assert_string_equal(got, want);
}

static void expect_lookup(const pm_pk_selection *s, const pm_data_file_meta *f, const char *want)
{
    char got[512] = "";
    for (size_t i = 0; i < s->nlookup; i++) {
        if (i)
            strcat(got, ",");
        strcat(got, f[s->lookup[i]].file_name);
    }
    assert_string_equal(got, want);
}

/* Three small level-0 runs above a large max-level run: the automatic pick
 * selects nothing (3 runs < trigger 5); explicit compaction forces the
 * level-0 runs up to just below the large run, keeping deletes (older data
 * stays in L5). */
static void test_explicit_progress(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[4];
    mk(&f[0], "big", 5, 0, 1000, 100000, 0);
    mk(&f[1], "a", 0, 0, 50, 100, 100); /* oldest level-0 */
    mk(&f[2], "b", 0, 10, 60, 100, 200);
    mk(&f[3], "c", 0, 20, 70, 100, 300); /* newest */
    pm_pk_selection s;
    pm_pk_policy p = policy(PM_PICK_AUTO);
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 4, NULL, &s));
    assert_false(s.has);
    pm_pk_selection_clear(&s);

    p = policy(PM_PICK_EXPLICIT);
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 4, NULL, &s));
    assert_true(s.has);
    expect_files(&s, f, "c,b,a"); /* level-0 runs newest first */
    assert_int_equal(s.output_level, 4);
    assert_false(s.drop_delete);
    assert_int_equal(s.nlookup, 0);
    pm_pk_selection_clear(&s);

    /* full: every run to the max level, deletes dropped */
    p = policy(PM_PICK_FULL);
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 4, NULL, &s));
    expect_files(&s, f, "c,b,a,big");
    assert_int_equal(s.output_level, 5);
    assert_true(s.drop_delete);
    pm_pk_selection_clear(&s);
    clear(f, 4);
    pm_type_free(kt);
}

/* Level-0 runs whose total is close to the next run's size absorb it
 * (size ratio), landing below the following run. */
static void test_explicit_absorbs_by_size(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[4];
    mk(&f[0], "l5", 5, 0, 1000, 100000, 0);
    mk(&f[1], "l2", 2, 0, 1000, 150, 10);
    mk(&f[2], "a", 0, 0, 50, 100, 100);
    mk(&f[3], "b", 0, 10, 60, 100, 200);
    pm_pk_policy p = policy(PM_PICK_EXPLICIT);
    pm_pk_selection s;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 4, NULL, &s));
    expect_files(&s, f, "b,a,l2"); /* 200 bytes of L0 >= 150 of L2: absorbed */
    assert_int_equal(s.output_level, 4);
    assert_false(s.drop_delete);
    pm_pk_selection_clear(&s);
    clear(f, 4);
    pm_type_free(kt);
}

/* Five runs reach the run trigger: size amplification compacts all of
 * them to the max level automatically. */
static void test_auto_size_amplification(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[5];
    mk(&f[0], "l5", 5, 0, 1000, 100, 0);
    for (int i = 1; i < 5; i++) {
        char n[8];
        snprintf(n, sizeof n, "z%d", i);
        mk(&f[i], n, 0, 0, 100, 100, 100 * i);
    }
    pm_pk_policy p = policy(PM_PICK_AUTO);
    pm_pk_selection s;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 5, NULL, &s));
    assert_true(s.has);
    expect_files(&s, f, "z4,z3,z2,z1,l5");
    assert_int_equal(s.output_level, 5);
    assert_true(s.drop_delete);
    pm_pk_selection_clear(&s);
    clear(f, 5);
    pm_type_free(kt);
}

/* A single positive run (several files) is never rewritten to compact
 * itself; full compaction of a single max-level run rewrites nothing
 * unless compaction.force-rewrite-all-files. */
static void test_single_positive_run(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[3];
    mk(&f[0], "x", 3, 0, 10, 100, 0);
    mk(&f[1], "y", 3, 20, 30, 100, 10);
    mk(&f[2], "z", 3, 40, 50, 100, 20);
    pm_pk_selection s;
    pm_pk_policy p = policy(PM_PICK_EXPLICIT);
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 3, NULL, &s));
    assert_false(s.has);
    pm_pk_selection_clear(&s);
    p = policy(PM_PICK_AUTO);
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 3, NULL, &s));
    assert_false(s.has);
    pm_pk_selection_clear(&s);
    /* not at the max level: full moves it there */
    p = policy(PM_PICK_FULL);
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 3, NULL, &s));
    expect_files(&s, f, "x,y,z");
    assert_int_equal(s.output_level, 5);
    pm_pk_selection_clear(&s);
    for (int i = 0; i < 3; i++)
        f[i].level = 5;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 3, NULL, &s));
    assert_false(s.has);
    pm_pk_selection_clear(&s);
    p.force_rewrite_all = true;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 3, NULL, &s));
    expect_files(&s, f, "x,y,z");
    assert_int_equal(s.output_level, 5);
    pm_pk_selection_clear(&s);
    clear(f, 3);
    pm_type_free(kt);
}

/* A lone level-0 file in an otherwise empty bucket goes to the max level
 * (explicit); the automatic pick leaves it (1 run < trigger). */
static void test_lone_level0(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[1];
    mk(&f[0], "a", 0, 0, 10, 100, 0);
    pm_pk_selection s;
    pm_pk_policy p = policy(PM_PICK_EXPLICIT);
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 1, NULL, &s));
    expect_files(&s, f, "a");
    assert_int_equal(s.output_level, 5);
    assert_true(s.drop_delete);
    pm_pk_selection_clear(&s);
    p = policy(PM_PICK_AUTO);
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 1, NULL, &s));
    assert_false(s.has);
    pm_pk_selection_clear(&s);
    /* ForceUpLevel0 (compaction.force-up-level-0 / lookup) moves it automatically */
    p.strategy.force_up_level0 = true;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 1, NULL, &s));
    expect_files(&s, f, "a");
    assert_int_equal(s.output_level, 5);
    pm_pk_selection_clear(&s);
    clear(f, 1);
    pm_type_free(kt);
}

/* ForceUpLevel0 (release-2.0): a level-1 run next to the level-0 runs is
 * compacted with them so no level-0 output appears. */
static void test_force_up_level0_takes_level1(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[3];
    mk(&f[0], "l5", 5, 0, 1000, 100000, 0);
    mk(&f[1], "l1", 1, 0, 1000, 5000, 10);
    mk(&f[2], "a", 0, 0, 50, 100, 100);
    pm_pk_policy p = policy(PM_PICK_AUTO);
    p.strategy.force_up_level0 = true;
    pm_pk_selection s;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 3, NULL, &s));
    expect_files(&s, f, "a,l1");
    assert_int_equal(s.output_level, 4);
    pm_pk_selection_clear(&s);
    clear(f, 3);
    pm_type_free(kt);
}

/* Order-sensitive engines: when anything is selected, every file of the
 * bucket takes part and the output is the highest input level. */
static void test_whole_bucket(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[4];
    mk(&f[0], "l5", 4, 0, 1000, 100000, 0);
    mk(&f[1], "l2", 2, 0, 1000, 50000, 10);
    mk(&f[2], "a", 0, 0, 50, 100, 100);
    mk(&f[3], "b", 0, 10, 60, 100, 200);
    pm_pk_policy p = policy(PM_PICK_EXPLICIT);
    p.whole_bucket = true;
    pm_pk_selection s;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 4, NULL, &s));
    expect_files(&s, f, "b,a,l2,l5");
    assert_int_equal(s.output_level, 4);
    assert_true(s.drop_delete);
    pm_pk_selection_clear(&s);
    /* only level 0: level 1 */
    p = policy(PM_PICK_EXPLICIT);
    p.whole_bucket = true;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f + 2, 2, NULL, &s));
    assert_int_equal(s.nfiles, 2);
    assert_int_equal(s.output_level, 1);
    pm_pk_selection_clear(&s);
    /* nothing selected by the policy: nothing at all */
    p = policy(PM_PICK_AUTO);
    p.whole_bucket = true;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 4, NULL, &s));
    assert_false(s.has);
    pm_pk_selection_clear(&s);
    clear(f, 4);
    pm_type_free(kt);
}

/* first-row: the retained files above the output level are looked up. */
static void test_first_row_lookup_files(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[4];
    mk(&f[0], "l5a", 5, 0, 499, 100000, 0);
    mk(&f[1], "l5b", 5, 500, 1000, 100000, 5);
    mk(&f[2], "a", 0, 0, 50, 100, 100);
    mk(&f[3], "b", 0, 600, 700, 100, 200);
    pm_pk_policy p = policy(PM_PICK_AUTO);
    p.strategy.force_up_level0 = true;
    p.first_row = true;
    pm_pk_selection s;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 4, NULL, &s));
    expect_files(&s, f, "b,a");
    assert_int_equal(s.output_level, 4);
    expect_lookup(&s, f, "l5a,l5b");
    pm_pk_selection_clear(&s);
    clear(f, 4);
    pm_type_free(kt);
}

/* Levels beyond num-levels (files written with more levels) stay valid. */
static void test_levels_beyond_option(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[2];
    mk(&f[0], "l7", 7, 0, 1000, 100000, 0);
    mk(&f[1], "a", 0, 0, 50, 100, 100);
    pm_pk_policy p = policy(PM_PICK_FULL);
    pm_pk_selection s;
    PM_OK_OR_FAIL(pm_pk_select(&p, kt, f, 2, NULL, &s));
    assert_int_equal(s.num_levels, 8);
    assert_int_equal(s.output_level, 7);
    pm_pk_selection_clear(&s);
    clear(f, 2);
    pm_type_free(kt);
}

/* Overlapping files inside one positive level are corrupt levels. */
static void test_overlap_in_level_is_corrupt(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[2];
    mk(&f[0], "x", 3, 0, 100, 100, 0);
    mk(&f[1], "y", 3, 50, 150, 100, 10);
    pm_pk_policy p = policy(PM_PICK_FULL);
    pm_pk_selection s;
    PM_EXPECT_ERR(pm_pk_select(&p, kt, f, 2, NULL, &s), PM_ECORRUPT);
    clear(f, 2);
    pm_type_free(kt);
}

/* ---- policy from options ---- */

static pm_schema *schema_with(const char *const *kv, size_t n, const char *type)
{
    pm_type *rt = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&rt, type ? type : "ROW<id INT NOT NULL, a INT, b INT, g INT>"));
    pm_options *o = NULL;
    PM_OK_OR_FAIL(pm_options_new(&o));
    for (size_t i = 0; i < n; i++) {
        char k[128];
        const char *eq = strchr(kv[i], '=');
        snprintf(k, sizeof k, "%.*s", (int)(eq - kv[i]), kv[i]);
        PM_OK_OR_FAIL(pm_options_set(o, k, eq + 1));
    }
    const char *pk[1] = {"id"};
    pm_schema *s = NULL;
    PM_OK_OR_FAIL(pm_schema_new_table(&s, rt, NULL, 0, pk, 1, o, NULL, 0));
    pm_type_free(rt);
    pm_options_free(o);
    return s;
}

static bool whole_bucket_for(const char *const *kv, size_t n)
{
    pm_schema *s = schema_with(kv, n, NULL);
    pm_pk_policy p;
    PM_OK_OR_FAIL(pm_pk_policy_from_options(s, s->options, PM_PICK_AUTO, true, 0, 0, &p));
    pm_schema_free(s);
    return p.whole_bucket;
}

static void test_policy_from_options(void **state)
{
    (void)state;
    const char *o1[] = {"num-sorted-run.compaction-trigger=3", "compaction.size-ratio=7",
                        "compaction.max-size-amplification-percent=150", "target-file-size=1000"};
    pm_schema *s = schema_with(o1, 4, NULL);
    pm_pk_policy p;
    PM_OK_OR_FAIL(pm_pk_policy_from_options(s, s->options, PM_PICK_EXPLICIT, false, 5, 3, &p));
    assert_int_equal(p.strategy.u.run_trigger, 3);
    assert_int_equal(p.strategy.u.size_ratio, 7);
    assert_int_equal(p.strategy.u.max_size_amp, 150);
    assert_int_equal(p.num_levels, 4); /* trigger + 1 */
    assert_int_equal(p.min_file_size, 700);
    assert_false(p.strategy.force_up_level0);
    assert_false(p.whole_bucket);
    assert_false(p.first_row);
    pm_schema_free(s);

    const char *o2[] = {"merge-engine=first-row"};
    s = schema_with(o2, 1, NULL);
    PM_OK_OR_FAIL(pm_pk_policy_from_options(s, s->options, PM_PICK_AUTO, true, 0, 0, &p));
    assert_true(p.strategy.force_up_level0);
    assert_true(p.first_row);
    pm_schema_free(s);

    const char *o3[] = {"merge-engine=first-row", "lookup-compact=gentle"};
    s = schema_with(o3, 2, NULL);
    PM_EXPECT_ERR(pm_pk_policy_from_options(s, s->options, PM_PICK_AUTO, true, 0, 0, &p), PM_EUNSUPPORTED);
    PM_OK_OR_FAIL(pm_pk_policy_from_options(s, s->options, PM_PICK_EXPLICIT, false, 0, 0, &p));
    pm_schema_free(s);

    const char *o4[] = {"compaction.force-up-level-0=true"};
    s = schema_with(o4, 1, NULL);
    PM_OK_OR_FAIL(pm_pk_policy_from_options(s, s->options, PM_PICK_AUTO, true, 0, 0, &p));
    assert_true(p.strategy.force_up_level0);
    assert_false(p.first_row);
    pm_schema_free(s);
}

static void test_whole_bucket_rule(void **state)
{
    (void)state;
    const char *dedup[] = {"merge-engine=deduplicate"};
    assert_false(whole_bucket_for(dedup, 1));
    const char *agg_default[] = {"merge-engine=aggregation"};
    assert_true(whole_bucket_for(agg_default, 1)); /* last_non_null_value depends on order */
    const char *agg_minmax[] = {"merge-engine=aggregation", "fields.a.aggregate-function=min",
                                "fields.b.aggregate-function=max", "fields.g.aggregate-function=max"};
    assert_false(whole_bucket_for(agg_minmax, 4));
    const char *agg_sum[] = {"merge-engine=aggregation", "fields.default-aggregate-function=sum"};
    assert_true(whole_bucket_for(agg_sum, 2)); /* checked overflow depends on order */
    const char *agg_remove[] = {"merge-engine=aggregation", "fields.default-aggregate-function=max",
                                "aggregation.remove-record-on-delete=true"};
    assert_true(whole_bucket_for(agg_remove, 3));
    const char *agg_seq[] = {"merge-engine=aggregation", "fields.default-aggregate-function=max",
                             "sequence.field=g"};
    assert_true(whole_bucket_for(agg_seq, 3));
    const char *pu_plain[] = {"merge-engine=partial-update"};
    assert_true(whole_bucket_for(pu_plain, 1));
    const char *pu_groups[] = {"merge-engine=partial-update", "ignore-delete=true", "fields.g.sequence-group=a,b",
                               "fields.a.aggregate-function=max", "fields.b.aggregate-function=min"};
    assert_false(whole_bucket_for(pu_groups, 5));
    const char *pu_no_ignore[] = {"merge-engine=partial-update", "fields.g.sequence-group=a,b",
                                  "fields.a.aggregate-function=max", "fields.b.aggregate-function=min"};
    assert_true(whole_bucket_for(pu_no_ignore, 4));
    const char *pu_unprotected[] = {"merge-engine=partial-update", "ignore-delete=true", "fields.g.sequence-group=a",
                                    "fields.a.aggregate-function=max"};
    assert_true(whole_bucket_for(pu_unprotected, 4)); /* b is last-non-null, unprotected */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explicit_progress),
        cmocka_unit_test(test_explicit_absorbs_by_size),
        cmocka_unit_test(test_auto_size_amplification),
        cmocka_unit_test(test_single_positive_run),
        cmocka_unit_test(test_lone_level0),
        cmocka_unit_test(test_force_up_level0_takes_level1),
        cmocka_unit_test(test_whole_bucket),
        cmocka_unit_test(test_first_row_lookup_files),
        cmocka_unit_test(test_levels_beyond_option),
        cmocka_unit_test(test_overlap_in_level_is_corrupt),
        cmocka_unit_test(test_policy_from_options),
        cmocka_unit_test(test_whole_bucket_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
