/*
 * tests/unit/lsm/test_lsm_levels.c — LSM levels of one bucket: level-0
 * order (max sequence desc, min sequence asc, creation time, name),
 * positive levels ordered by typed key (negative integers, strings with
 * prefixes, two-field keys), overlap detection on load (ECORRUPT) and on
 * update (ECONFLICT, levels unchanged), runs list, counts, sizes, restored
 * level count, upgrades (same file moving level), the stall test, the
 * last-full-compaction estimate and the drop-delete rule.
 */
#include <string.h>

#include "lsm/levels.h"
#include "pm_test.h"
#include "types/binary_row.h"

/* Key types used here. */
static pm_type *int_key(void)
{
    pm_type *t = pm_type_new_row(false);
    PM_OK_OR_FAIL(pm_type_add_field(t, 1073741823, "_KEY_id", pm_type_new(PM_TYPE_INT, false)));
    return t;
}

static pm_type *str_long_key(void)
{
    pm_type *t = pm_type_new_row(false);
    PM_OK_OR_FAIL(pm_type_add_field(t, 1073741824, "_KEY_s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, false)));
    PM_OK_OR_FAIL(pm_type_add_field(t, 1073741825, "_KEY_n", pm_type_new(PM_TYPE_BIGINT, false)));
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

static void set_sl_key(pm_bytes *b, const char *s, int64_t n)
{
    pm_binrow_writer w = PM_BINROW_WRITER_INIT;
    PM_OK_OR_FAIL(pm_binrow_writer_reset(&w, 2));
    PM_OK_OR_FAIL(pm_binrow_set_bytes(&w, 0, s, strlen(s)));
    pm_binrow_set_i64(&w, 1, n);
    pm_buf out = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_binrow_serialize(&w, &out));
    PM_OK_OR_FAIL(pm_bytes_set(b, out.data, out.len));
    pm_buf_free(&out);
    pm_binrow_writer_free(&w);
}

static pm_data_file_meta file(const char *name, int level, int32_t min, int32_t max, int64_t size, int64_t min_seq,
                              int64_t max_seq)
{
    pm_data_file_meta f;
    memset(&f, 0, sizeof f);
    f.file_name = strdup(name);
    f.level = level;
    f.file_size = size;
    f.min_sequence_number = min_seq;
    f.max_sequence_number = max_seq;
    set_int_key(&f.min_key, min);
    set_int_key(&f.max_key, max);
    return f;
}

static void clear_files(pm_data_file_meta *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_data_file_meta_clear(&f[i]);
}

static void expect_level(const pm_levels *lv, int level, const char *names)
{
    size_t n;
    pm_lsm_file *const *f = pm_levels_files(lv, level, &n);
    char buf[512] = "";
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? "," : "", f[i]->meta.file_name);
    if (strcmp(buf, names)) {
        print_error("level %d: got '%s' expected '%s'\n", level, buf, names);
        fail();
    }
}

static void test_level0_order(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[6];
    f[0] = file("a", 0, 0, 9, 10, 0, 5);
    f[1] = file("b", 0, 0, 9, 10, 6, 9);   /* newest */
    f[2] = file("c", 0, 0, 9, 10, 3, 5);   /* same max as a, higher min → after a */
    f[3] = file("d", 0, 0, 9, 10, 0, 5);   /* same seqs as a, creation time decides */
    f[4] = file("e", 0, 0, 9, 10, 0, 5);   /* same as d incl. time: name decides */
    f[5] = file("f", 0, 0, 9, 10, 0, 1);   /* oldest */
    f[0].creation_time = (pm_opt_long){true, 2000};
    f[3].creation_time = (pm_opt_long){true, 1000};
    f[4].creation_time = (pm_opt_long){true, 1000};
    pm_levels *lv;
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 3, f, 6));
    expect_level(lv, 0, "b,d,e,a,c,f");
    assert_int_equal(pm_levels_num_sorted_runs(lv), 6);
    assert_int_equal(pm_levels_nonempty_highest_level(lv), 0);
    assert_int_equal(pm_levels_total_size(lv), 60);
    size_t nr;
    const pm_lsm_run *r = pm_levels_runs(lv, &nr);
    assert_int_equal(nr, 6);
    for (size_t i = 0; i < nr; i++) {
        assert_int_equal(r[i].level, 0);
        assert_int_equal(r[i].nfiles, 1);
    }
    assert_string_equal(r[0].files[0]->meta.file_name, "b");
    /* missing creation time sorts first among equal sequences */
    assert_true(pm_lsm_level0_cmp(&f[1], &f[0]) < 0);
    pm_data_file_meta g = file("z", 0, 0, 1, 1, 0, 5);
    assert_true(pm_lsm_level0_cmp(&g, &f[0]) < 0);
    pm_data_file_meta_clear(&g);
    assert_true(pm_levels_should_stall(lv, 5));
    assert_false(pm_levels_should_stall(lv, 6));
    pm_levels_free(lv);
    clear_files(f, 6);
    pm_type_free(kt);
}

static void test_positive_levels_typed_keys(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    /* negative keys: byte order of the little-endian BinaryRow would be wrong */
    pm_data_file_meta f[5];
    f[0] = file("p", 2, 10, 20, 100, 0, 1);
    f[1] = file("q", 2, -100, -50, 100, 0, 1);
    f[2] = file("r", 2, -1, 5, 100, 0, 1);
    f[3] = file("s", 4, 0, 1000, 7, 0, 1);
    f[4] = file("t", 0, 0, 1, 3, 2, 2);
    pm_levels *lv;
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 3, f, 5)); /* level 4 file → 5 levels */
    assert_int_equal(pm_levels_num_levels(lv), 5);
    assert_int_equal(pm_levels_max_level(lv), 4);
    expect_level(lv, 2, "q,r,p");
    expect_level(lv, 4, "s");
    expect_level(lv, 1, "");
    assert_int_equal(pm_levels_nonempty_highest_level(lv), 4);
    size_t nr;
    const pm_lsm_run *r = pm_levels_runs(lv, &nr);
    assert_int_equal(nr, 3);
    assert_int_equal(r[0].level, 0);
    assert_int_equal(r[1].level, 2);
    assert_int_equal(r[1].nfiles, 3);
    assert_int_equal(r[1].size, 300);
    assert_int_equal(r[2].level, 4);
    assert_int_equal(r[2].size, 7);
    assert_int_equal(pm_levels_file_count(lv), 5);
    assert_non_null(pm_levels_find(lv, "r"));
    assert_null(pm_levels_find(lv, "nope"));
    pm_levels_free(lv);
    /* touching ranges overlap (next min must be > previous max) */
    pm_data_file_meta_clear(&f[2]);
    f[2] = file("r", 2, -50, 5, 100, 0, 1);
    PM_EXPECT_ERR(pm_levels_new(&lv, kt, 3, f, 5), PM_ECORRUPT);
    /* duplicate names */
    pm_data_file_meta_clear(&f[2]);
    f[2] = file("p", 2, -10, 5, 100, 0, 1);
    PM_EXPECT_ERR(pm_levels_new(&lv, kt, 3, f, 5), PM_ECORRUPT);
    /* fewer than 2 levels */
    PM_EXPECT_ERR(pm_levels_new(&lv, kt, 1, NULL, 0), PM_EINVALID);
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 1, &f[0], 1)); /* a level-2 file makes 3 levels */
    assert_int_equal(pm_levels_num_levels(lv), 3);
    pm_levels_free(lv);
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 2, NULL, 0));
    assert_int_equal(pm_levels_nonempty_highest_level(lv), -1);
    assert_int_equal(pm_levels_num_sorted_runs(lv), 0);
    pm_levels_free(lv);
    clear_files(f, 5);
    pm_type_free(kt);
}

static void test_string_keys(void **state)
{
    (void)state;
    pm_type *kt = str_long_key();
    pm_data_file_meta f[3];
    memset(f, 0, sizeof f);
    const char *names[] = {"x1", "x2", "x3"};
    /* ("ab", 5)..("ab", 9) | ("abc", -3)..("b", 0) | ("", 1)..("a", 100) */
    const char *mins[] = {"ab", "abc", ""};
    int64_t minn[] = {5, -3, 1};
    const char *maxs[] = {"ab", "b", "a"};
    int64_t maxn[] = {9, 0, 100};
    for (int i = 0; i < 3; i++) {
        f[i].file_name = strdup(names[i]);
        f[i].level = 1;
        f[i].file_size = 1;
        set_sl_key(&f[i].min_key, mins[i], minn[i]);
        set_sl_key(&f[i].max_key, maxs[i], maxn[i]);
    }
    pm_levels *lv;
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 3, f, 3));
    expect_level(lv, 1, "x3,x1,x2");
    pm_levels_free(lv);
    /* ("ab", 9) vs ("ab", 9): equal bounds overlap */
    pm_data_file_meta_clear(&f[1]);
    memset(&f[1], 0, sizeof f[1]);
    f[1].file_name = strdup("x2");
    f[1].level = 1;
    set_sl_key(&f[1].min_key, "ab", 9);
    set_sl_key(&f[1].max_key, "b", 0);
    PM_EXPECT_ERR(pm_levels_new(&lv, kt, 3, f, 3), PM_ECORRUPT);
    clear_files(f, 3);
    pm_type_free(kt);
}

static void test_update(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f[4];
    f[0] = file("l0a", 0, 0, 50, 10, 10, 20);
    f[1] = file("l0b", 0, 40, 90, 10, 21, 30);
    f[2] = file("l1a", 1, 0, 10, 100, 0, 9);
    f[3] = file("l2a", 2, 0, 100, 1000, 0, 5);
    pm_levels *lv;
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 3, f, 4));
    assert_int_equal(pm_levels_num_sorted_runs(lv), 4);
    /* compaction of both L0 files + l1a into two level-1 files */
    pm_data_file_meta out[2];
    out[0] = file("n1", 1, 0, 45, 60, 0, 30);
    out[1] = file("n2", 1, 46, 90, 60, 0, 30);
    pm_data_file_meta before[3] = {f[0], f[1], f[2]};
    PM_OK_OR_FAIL(pm_levels_update(lv, before, 3, out, 2));
    expect_level(lv, 0, "");
    expect_level(lv, 1, "n1,n2");
    assert_int_equal(pm_levels_num_sorted_runs(lv), 2);
    assert_int_equal(pm_levels_total_size(lv), 1120);
    /* upgrade: n2 moves to... level 2 would overlap l2a → conflict, nothing changes */
    pm_data_file_meta up = file("n2", 2, 46, 90, 60, 0, 30);
    PM_EXPECT_ERR(pm_levels_update(lv, &out[1], 1, &up, 1), PM_ECONFLICT);
    expect_level(lv, 1, "n1,n2");
    expect_level(lv, 2, "l2a");
    /* replace l2a and upgrade n2 in one step */
    pm_data_file_meta b2[2] = {f[3], out[1]};
    pm_data_file_meta a2[2];
    a2[0] = file("m", 2, 100, 200, 5, 0, 5);
    a2[1] = up;
    PM_OK_OR_FAIL(pm_levels_update(lv, b2, 2, a2, 2));
    expect_level(lv, 1, "n1");
    expect_level(lv, 2, "n2,m");
    assert_int_equal(pm_levels_nonempty_highest_level(lv), 2);
    /* unknown file, level out of range, duplicates */
    PM_EXPECT_ERR(pm_levels_update(lv, &f[0], 1, NULL, 0), PM_EINVALID);
    pm_data_file_meta far = file("far", 3, 0, 1, 1, 0, 1);
    PM_EXPECT_ERR(pm_levels_update(lv, NULL, 0, &far, 1), PM_EINVALID);
    PM_EXPECT_ERR(pm_levels_update(lv, NULL, 0, &a2[0], 1), PM_EINVALID); /* m already present */
    pm_data_file_meta two[2] = {out[0], out[0]};
    PM_EXPECT_ERR(pm_levels_update(lv, two, 2, NULL, 0), PM_EINVALID);
    /* add new L0 files */
    pm_data_file_meta n0 = file("new0", 0, 5, 6, 1, 31, 31);
    PM_OK_OR_FAIL(pm_levels_add(lv, &n0));
    expect_level(lv, 0, "new0");
    size_t nr;
    const pm_lsm_run *r = pm_levels_runs(lv, &nr);
    assert_int_equal(nr, 3);
    assert_int_equal(r[0].level, 0);
    assert_int_equal(r[1].level, 1);
    assert_int_equal(r[2].level, 2);
    assert_int_equal(r[2].nfiles, 2);
    /* last full compaction = max creation time at max level */
    bool has;
    int64_t ms;
    pm_levels_last_full_compaction(lv, &has, &ms);
    assert_false(has);
    pm_levels_free(lv);
    a2[0].creation_time = (pm_opt_long){true, 500};
    PM_OK_OR_FAIL(pm_levels_new(&lv, kt, 3, a2, 1));
    pm_levels_last_full_compaction(lv, &has, &ms);
    assert_true(has);
    assert_int_equal(ms, 500);
    pm_levels_free(lv);
    pm_data_file_meta_clear(&n0);
    pm_data_file_meta_clear(&far);
    clear_files(a2, 2);
    clear_files(out, 2);
    clear_files(f, 4);
    pm_type_free(kt);
}

static void test_bad_keys(void **state)
{
    (void)state;
    pm_type *kt = int_key();
    pm_data_file_meta f = file("a", 1, 0, 1, 1, 0, 1);
    pm_bytes_clear(&f.min_key);
    PM_OK_OR_FAIL(pm_bytes_set(&f.min_key, "\0\0\0\1", 4)); /* arity 1 but no row */
    pm_levels *lv;
    PM_EXPECT_ERR(pm_levels_new(&lv, kt, 3, &f, 1), PM_ECORRUPT);
    pm_bytes_clear(&f.min_key);
    set_sl_key(&f.min_key, "x", 1); /* arity 2 for a 1-field key */
    PM_EXPECT_ERR(pm_levels_new(&lv, kt, 3, &f, 1), PM_ECORRUPT);
    pm_data_file_meta_clear(&f);
    pm_type_free(kt);
}

static void test_drop_delete(void **state)
{
    (void)state;
    assert_false(pm_lsm_drop_delete(0, 0, false, false));
    assert_false(pm_lsm_drop_delete(0, 3, true, false));
    assert_true(pm_lsm_drop_delete(3, 3, false, false));
    assert_true(pm_lsm_drop_delete(5, 3, false, false));
    assert_false(pm_lsm_drop_delete(2, 3, false, false));
    assert_true(pm_lsm_drop_delete(2, 3, true, false));
    assert_false(pm_lsm_drop_delete(3, 3, true, true));
    assert_true(pm_lsm_drop_delete(1, -1, false, false));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level0_order),
        cmocka_unit_test(test_positive_levels_typed_keys),
        cmocka_unit_test(test_string_keys),
        cmocka_unit_test(test_update),
        cmocka_unit_test(test_bad_keys),
        cmocka_unit_test(test_drop_delete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
