/*
 * tests/unit/lsm/test_lsm_compact.c — per-bucket compaction planning from
 * levels: amplification pick of overlapping level-0 files into a rewrite
 * at max level with deletes dropped; explicit compaction of one level-0
 * file above a big max-level file (an upgrade to level max−1, deletes kept
 * unless deletion vectors); nothing to do; full compaction of one
 * max-level run rewriting only flagged files one by one; applying the
 * result to the levels.
 */
#include <string.h>

#include "lsm/lsm_compact.h"
#include "pm_test.h"
#include "types/binary_row.h"

static void set_key(pm_bytes *b, int32_t v)
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

static pm_data_file_meta file(const char *name, int level, int32_t min, int32_t max, int64_t size, int64_t seq,
                              int64_t deletes)
{
    pm_data_file_meta f;
    memset(&f, 0, sizeof f);
    f.file_name = strdup(name);
    f.level = level;
    f.file_size = size;
    f.min_sequence_number = f.max_sequence_number = seq;
    f.delete_row_count = (pm_opt_long){true, deletes};
    set_key(&f.min_key, min);
    set_key(&f.max_key, max);
    return f;
}

static pm_type *key_type(void)
{
    pm_type *t = pm_type_new_row(false);
    PM_OK_OR_FAIL(pm_type_add_field(t, 1073741823, "_KEY_id", pm_type_new(PM_TYPE_INT, false)));
    return t;
}

static pm_compact_strategy defaults(void)
{
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    pm_compact_strategy s;
    PM_OK_OR_FAIL(pm_compact_strategy_from_options(o, true, &s));
    pm_options_free(o);
    return s;
}

static void test_amplification_rewrite(void **state)
{
    (void)state;
    pm_type *kt = key_type();
    pm_data_file_meta f[5];
    for (int i = 0; i < 5; i++) {
        char n[8];
        snprintf(n, sizeof n, "f%d", i);
        f[i] = file(n, 0, i * 10, i * 10 + 15, 100, i, 1);
    }
    pm_levels *lv;
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 6, f, 5));
    pm_compact_strategy s = defaults();
    pm_lsm_compact_options o;
    memset(&o, 0, sizeof o);
    o.mode = PM_PICK_AUTO;
    o.min_file_size = 1000;
    pm_lsm_compaction c;
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_true(c.unit.has);
    assert_int_equal(c.unit.output_level, 5);
    assert_true(c.unit.full);
    assert_int_equal(c.nfiles, 5);
    assert_string_equal(c.files[0]->meta.file_name, "f4"); /* newest first */
    assert_true(c.drop_delete);
    /* the key ranges chain into one section of two runs → one rewrite */
    assert_int_equal(c.plan.nsteps, 1);
    assert_int_equal(c.plan.steps[0].kind, PM_STEP_REWRITE);
    assert_int_equal(c.plan.steps[0].nsections, 1);
    assert_int_equal(c.plan.steps[0].sections[0].nruns, 2);
    /* apply: the five files become one at level 5 */
    pm_data_file_meta after = file("out", 5, 0, 55, 400, 4, 0);
    PM_OK_OR_FAIL(pm_levels_update(lv, f, 5, &after, 1));
    assert_int_equal(pm_levels_num_sorted_runs(lv), 1);
    pm_lsm_compaction_clear(&c);
    /* nothing more to do */
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_false(c.unit.has);
    assert_int_equal(c.plan.nsteps, 0);
    pm_lsm_compaction_clear(&c);
    pm_data_file_meta_clear(&after);
    for (int i = 0; i < 5; i++)
        pm_data_file_meta_clear(&f[i]);
    pm_levels_free(lv);
    pm_type_free(kt);
}

static void test_explicit_upgrade(void **state)
{
    (void)state;
    pm_type *kt = key_type();
    pm_data_file_meta f[2] = {file("small", 0, 0, 10, 10, 9, 2), file("big", 5, 100, 200, 1000, 1, 0)};
    pm_levels *lv;
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 6, f, 2));
    pm_compact_strategy s = defaults();
    pm_lsm_compact_options o;
    memset(&o, 0, sizeof o);
    o.mode = PM_PICK_AUTO;
    o.min_file_size = 5;
    pm_lsm_compaction c;
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_false(c.unit.has);
    pm_lsm_compaction_clear(&c);
    o.mode = PM_PICK_EXPLICIT;
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_true(c.unit.has);
    assert_int_equal(c.unit.output_level, 4);
    assert_int_equal(c.nfiles, 1);
    assert_false(c.drop_delete); /* level 5 still holds older data */
    assert_int_equal(c.plan.nsteps, 1);
    assert_int_equal(c.plan.steps[0].kind, PM_STEP_UPGRADE);
    assert_string_equal(c.plan.steps[0].file->meta.file_name, "small");
    pm_lsm_compaction_clear(&c);
    o.dv_enabled = true;
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_true(c.drop_delete);
    pm_lsm_compaction_clear(&c);
    o.force_keep_delete = true;
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_false(c.drop_delete);
    pm_lsm_compaction_clear(&c);
    for (int i = 0; i < 2; i++)
        pm_data_file_meta_clear(&f[i]);
    pm_levels_free(lv);
    pm_type_free(kt);
}

static bool flag_b(void *ctx, const pm_lsm_file *f)
{
    (void)ctx;
    return f->meta.file_name[0] == 'b';
}

static void test_full_single_run(void **state)
{
    (void)state;
    pm_type *kt = key_type();
    pm_data_file_meta f[3] = {file("a", 5, 0, 9, 100, 1, 0), file("b", 5, 10, 19, 100, 1, 0),
                              file("c", 5, 20, 29, 100, 1, 0)};
    pm_levels *lv;
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 6, f, 3));
    pm_compact_strategy s = defaults();
    pm_lsm_compact_options o;
    memset(&o, 0, sizeof o);
    o.mode = PM_PICK_FULL;
    pm_lsm_compaction c;
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_false(c.unit.has); /* nothing flagged */
    pm_lsm_compaction_clear(&c);
    o.must_rewrite = flag_b;
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_true(c.unit.has && c.unit.file_rewrite);
    assert_int_equal(c.nfiles, 1);
    assert_string_equal(c.files[0]->meta.file_name, "b");
    assert_int_equal(c.plan.nsteps, 1);
    assert_int_equal(c.plan.steps[0].kind, PM_STEP_REWRITE);
    assert_string_equal(c.plan.steps[0].sections[0].runs[0].files[0]->meta.file_name, "b");
    pm_lsm_compaction_clear(&c);
    o.force_rewrite_all = true;
    PM_OK_OR_FAIL(pm_lsm_plan_compaction(lv, &s, &o, &c));
    assert_int_equal(c.plan.nsteps, 3);
    pm_lsm_compaction_clear(&c);
    for (int i = 0; i < 3; i++)
        pm_data_file_meta_clear(&f[i]);
    pm_levels_free(lv);
    pm_type_free(kt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_amplification_rewrite),
        cmocka_unit_test(test_explicit_upgrade),
        cmocka_unit_test(test_full_single_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
