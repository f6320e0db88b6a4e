/*
 * tests/unit/compact/test_compact_rules.c — every file-selection rule of
 * compact/append/append_rules.h with its boundaries: unaware-bucket packing
 * (small-file filter at exactly 70 %, weight exactly 2 × target, tail at
 * exactly min.file-num, min.file-num below 2, no per-task cap, deleted-row
 * candidates, DV index grouping), fixed-bucket windows (exactly
 * min.file-num, sliding at exactly 2 × target, no small-file filter,
 * min-sequence order, single window) and full compaction (3-file minimum,
 * leading large files, the 70 % threshold, small > large, force, DVs).
 */
#include <string.h>

#include "compact/append/append_rules.h"
#include "pm_test.h"

#define MAXF 256

static pm_compact_file_info files[MAXF];
static char names[MAXF][16];

static void reset(void)
{
    memset(files, 0, sizeof files);
    for (int i = 0; i < MAXF; i++) {
        snprintf(names[i], sizeof names[i], "f%03d", i);
        files[i].name = names[i];
        files[i].rows = 100;
        files[i].min_seq = i * 100;
    }
}

static pm_compact_rules rules(int64_t target, int64_t open_cost, int32_t min_files)
{
    pm_compact_rules r;
    memset(&r, 0, sizeof r);
    r.target = target;
    r.small = target * 7 / 10;
    r.open_cost = open_cost;
    r.min_file_num = min_files;
    r.delete_ratio = 0.2;
    return r;
}

/* groups as "0,1|2,3" */
static void groups_str(const pm_compact_groups *g, char *out, size_t cap)
{
    out[0] = 0;
    size_t len = 0;
    for (size_t k = 0; k < g->ngroups; k++) {
        if (k)
            len += (size_t)snprintf(out + len, cap - len, "|");
        size_t s = pm_compact_group_start(g, k);
        for (size_t i = s; i < g->end[k]; i++)
            len += (size_t)snprintf(out + len, cap - len, i > s ? ",%zu" : "%zu", g->idx[i]);
    }
}

typedef pm_error *(*pick_fn)(const pm_compact_file_info *, size_t, const pm_compact_rules *, pm_compact_groups *);

static void expect(pick_fn fn, size_t n, const pm_compact_rules *r, const char *want)
{
    pm_compact_groups g = {0};
    PM_OK_OR_FAIL(fn(files, n, r, &g));
    char got[4096];
    groups_str(&g, got, sizeof got);
    if (strcmp(got, want))
        print_error("groups: got '%s', want '%s'\n", got, want);
    assert_string_equal(got, want);
    pm_compact_groups_free(&g);
}

static void sizes(const int64_t *s, size_t n)
{
    reset();
    for (size_t i = 0; i < n; i++)
        files[i].size = s[i];
}

/* ---------------- unaware bucket ---------------- */

static void test_unaware_small_file_threshold(void **state)
{
    (void)state;
    pm_compact_rules r = rules(1000, 0, 2); /* small = 700 */
    /* 700 is not a candidate (strictly smaller), 699 is */
    int64_t s[] = {700, 699, 699, 699};
    sizes(s, 4);
    /* weights 699 each: two reach 1398 < 2000; three 2097 >= 2000 → emit 1,2,3 */
    expect(pm_compact_pick_unaware, 4, &r, "1,2,3");
    int64_t s2[] = {700, 699};
    sizes(s2, 2);
    expect(pm_compact_pick_unaware, 2, &r, ""); /* one candidate only */
}

static void test_unaware_weight_exactly_twice_target(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 40, 5); /* 2 x target = 200, small = 70 */
    int64_t s[] = {60, 60};                 /* weights 100 + 100 = 200 exactly */
    sizes(s, 2);
    expect(pm_compact_pick_unaware, 2, &r, "0,1");
    int64_t s2[] = {59, 60}; /* 99 + 100 = 199: not enough, tail of 2 < 5 */
    sizes(s2, 2);
    expect(pm_compact_pick_unaware, 2, &r, "");
}

static void test_unaware_needs_two_files(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 150, 5); /* one file already weighs >= 200 */
    int64_t s[] = {50, 51, 52};
    sizes(s, 3);
    /* 200: one file, not emitted; 2 files → emit; third alone stays (tail 1 < 5) */
    expect(pm_compact_pick_unaware, 3, &r, "0,1");
}

static void test_unaware_tail_min_file_num(void **state)
{
    (void)state;
    pm_compact_rules r = rules(1000000, 1, 5);
    int64_t s[] = {10, 10, 10, 10, 10};
    sizes(s, 5);
    expect(pm_compact_pick_unaware, 5, &r, "0,1,2,3,4"); /* exactly min.file-num */
    expect(pm_compact_pick_unaware, 4, &r, "");          /* one below */
    r.min_file_num = 1;                                   /* acts as 2 */
    expect(pm_compact_pick_unaware, 2, &r, "0,1");
    expect(pm_compact_pick_unaware, 1, &r, "");
}

static void test_unaware_sorted_by_size_no_cap(void **state)
{
    (void)state;
    pm_compact_rules r = rules(1LL << 40, 0, 5);
    reset();
    for (int i = 0; i < 200; i++)
        files[i].size = 1000 - i; /* descending input */
    pm_compact_groups g = {0};
    PM_OK_OR_FAIL(pm_compact_pick_unaware(files, 200, &r, &g));
    assert_int_equal(g.ngroups, 1);
    assert_int_equal(g.end[0], 200); /* no per-task file cap */
    for (size_t i = 1; i < 200; i++)
        assert_true(files[g.idx[i - 1]].size <= files[g.idx[i]].size);
    pm_compact_groups_free(&g);
}

static void test_unaware_multiple_tasks_and_tail(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 0, 3); /* bins close at weight 200 */
    reset();
    for (int i = 0; i < 9; i++)
        files[i].size = 50;
    /* 4 files per bin (200): 0-3, 4-7; tail {8} has 1 < 3 files */
    expect(pm_compact_pick_unaware, 9, &r, "0,1,2,3|4,5,6,7");
    /* the split target size of reads is no input at all: same result */
}

static void test_unaware_deleted_rows(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 0, 2); /* small = 70 */
    r.dv_enabled = true;
    reset();
    /* large files: only high delete ratio makes them candidates */
    files[0].size = 500; /* card 21 > 100 * 0.2 */
    files[0].has_dv = files[0].dv_card_known = true;
    files[0].dv_card = 21;
    files[0].dv_index = "index-a";
    files[1].size = 500; /* card 20 == 100 * 0.2: not more → not a candidate */
    files[1].has_dv = files[1].dv_card_known = true;
    files[1].dv_card = 20;
    files[1].dv_index = "index-b";
    files[2].size = 500; /* unknown cardinality counts as too many */
    files[2].has_dv = true;
    files[2].dv_index = "index-c";
    files[3].size = 500; /* no DV */
    /* DV groups (one file each) a and c form one bin: 2 files, weight 1000 */
    expect(pm_compact_pick_unaware, 4, &r, "0,2");
    /* without deletion vectors enabled none of them qualifies */
    r.dv_enabled = false;
    expect(pm_compact_pick_unaware, 4, &r, "");
}

static void test_unaware_dv_groups_by_index_file(void **state)
{
    (void)state;
    pm_compact_rules r = rules(1000, 0, 5); /* small 700, bins close at 2000 */
    r.dv_enabled = true;
    reset();
    const char *idx[] = {"i1", "i2", "i1", "i2", NULL, NULL, NULL};
    for (int i = 0; i < 7; i++) {
        files[i].size = 10 + i;
        if (idx[i]) {
            files[i].has_dv = files[i].dv_card_known = true;
            files[i].dv_card = 1;
            files[i].dv_index = idx[i];
        }
    }
    /* DV files of i1 {0,2} (22 bytes) and i2 {1,3} (24 bytes): never enough
     * for a bin, emitted unconditionally, i1 first (smaller), each group in
     * min-sequence order; the 3 files without DV are < min.file-num (5) */
    expect(pm_compact_pick_unaware, 7, &r, "0,2,1,3");
    /* a lone file with a DV is still compacted (its deletes must be applied) */
    expect(pm_compact_pick_unaware, 1, &r, "0");
}

/* ---------------- fixed bucket ---------------- */

static void test_bucketed_min_file_num(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 1000, 5); /* open cost does not apply */
    reset();
    for (int i = 0; i < 12; i++)
        files[i].size = 10;
    expect(pm_compact_pick_bucketed, 5, &r, "0,1,2,3,4"); /* exactly min.file-num */
    expect(pm_compact_pick_bucketed, 4, &r, "");
    expect(pm_compact_pick_bucketed, 12, &r, "0,1,2,3,4|5,6,7,8,9"); /* tail 10,11 waits */
    r.single_window = true;
    expect(pm_compact_pick_bucketed, 12, &r, "0,1,2,3,4");
}

static void test_bucketed_slides_at_twice_target(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 0, 5);
    /* 140 + 60 = 200 = 2 x target: the window drops 140 and slides */
    int64_t s[] = {140, 60, 10, 10, 10, 10};
    sizes(s, 6);
    expect(pm_compact_pick_bucketed, 6, &r, "1,2,3,4,5");
    /* 140 + 59 = 199 and nothing more: no slide, the first five files are a window */
    int64_t s2[] = {140, 59, 0, 0, 0, 0};
    sizes(s2, 6);
    expect(pm_compact_pick_bucketed, 6, &r, "0,1,2,3,4");
    /* the third file brings the window to exactly 200: 140 is dropped then */
    int64_t s3[] = {140, 59, 1, 0, 0, 0};
    sizes(s3, 6);
    expect(pm_compact_pick_bucketed, 6, &r, "1,2,3,4,5");
}

static void test_bucketed_no_small_file_filter(void **state)
{
    (void)state;
    /* files of 90 are above small (70) yet windowed; they only slide out
     * because 3 x 90 reaches 2 x target */
    pm_compact_rules r = rules(100, 0, 5);
    reset();
    for (int i = 0; i < 5; i++)
        files[i].size = 90;
    expect(pm_compact_pick_bucketed, 5, &r, "");
    r = rules(1000, 0, 5); /* 450 < 2000: one window */
    expect(pm_compact_pick_bucketed, 5, &r, "0,1,2,3,4");
    r = rules(100, 0, 2); /* 90 >= small 70, but 90 + 90 = 180 < 200: a window of 2 large files */
    expect(pm_compact_pick_bucketed, 2, &r, "0,1");
}

static void test_bucketed_min_sequence_order(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 0, 3);
    reset();
    int64_t seq[] = {500, 100, 400, 200, 300};
    for (int i = 0; i < 5; i++) {
        files[i].size = 1;
        files[i].min_seq = seq[i];
    }
    expect(pm_compact_pick_bucketed, 5, &r, "1,3,4");
}

/* ---------------- full compaction ---------------- */

static void test_full_minimum_three_files(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 0, 5); /* small = 70 */
    int64_t s[] = {10, 10, 10};
    sizes(s, 3);
    expect(pm_compact_pick_full, 2, &r, "");
    expect(pm_compact_pick_full, 3, &r, "0,1,2");
}

static void test_full_threshold_and_leading_large(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 0, 5);
    /* 70 is exactly the threshold: counts as large and is skipped when leading */
    int64_t s[] = {70, 80, 10, 10, 10};
    sizes(s, 5);
    expect(pm_compact_pick_full, 5, &r, "2,3,4");
    int64_t s2[] = {69, 80, 10, 10, 10};
    sizes(s2, 5);
    /* 69 is small: nothing is skipped; small 4 > large 1 */
    expect(pm_compact_pick_full, 5, &r, "0,1,2,3,4");
    /* small must outnumber large among the rest */
    int64_t s3[] = {10, 80, 90, 10};
    sizes(s3, 4);
    expect(pm_compact_pick_full, 4, &r, "");
    int64_t s4[] = {10, 80, 10, 10};
    sizes(s4, 4);
    expect(pm_compact_pick_full, 4, &r, "0,1,2,3");
    /* after skipping the leading large files fewer than 3 remain */
    int64_t s5[] = {80, 80, 10, 10};
    sizes(s5, 4);
    expect(pm_compact_pick_full, 4, &r, "");
}

static void test_full_force_rewrite(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 0, 5);
    r.force_rewrite_all = true;
    int64_t s[] = {500, 80};
    sizes(s, 2);
    expect(pm_compact_pick_full, 2, &r, "0,1");
    expect(pm_compact_pick_full, 1, &r, "0");
}

static void test_full_with_deletion_vectors(void **state)
{
    (void)state;
    pm_compact_rules r = rules(100, 0, 5);
    r.dv_enabled = true;
    reset();
    files[0].size = 500; /* leading large without DV: skipped */
    files[1].size = 500; /* large with DV: qualifies */
    files[1].has_dv = true;
    files[1].dv_index = "i";
    files[2].size = 500; /* large after it: kept in the rest */
    expect(pm_compact_pick_full, 3, &r, "1,2");
    /* a single file: compacted when it has a DV, left alone otherwise */
    expect(pm_compact_pick_full, 1, &r, "");
    reset();
    files[0].size = 10;
    files[0].has_dv = true;
    expect(pm_compact_pick_full, 1, &r, "0");
    files[0].has_dv = false;
    expect(pm_compact_pick_full, 1, &r, "");
    /* two small files without DVs: every file qualifies with DVs enabled */
    files[1].size = 10;
    expect(pm_compact_pick_full, 2, &r, "0,1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unaware_small_file_threshold),
        cmocka_unit_test(test_unaware_weight_exactly_twice_target),
        cmocka_unit_test(test_unaware_needs_two_files),
        cmocka_unit_test(test_unaware_tail_min_file_num),
        cmocka_unit_test(test_unaware_sorted_by_size_no_cap),
        cmocka_unit_test(test_unaware_multiple_tasks_and_tail),
        cmocka_unit_test(test_unaware_deleted_rows),
        cmocka_unit_test(test_unaware_dv_groups_by_index_file),
        cmocka_unit_test(test_bucketed_min_file_num),
        cmocka_unit_test(test_bucketed_slides_at_twice_target),
        cmocka_unit_test(test_bucketed_no_small_file_filter),
        cmocka_unit_test(test_bucketed_min_sequence_order),
        cmocka_unit_test(test_full_minimum_three_files),
        cmocka_unit_test(test_full_threshold_and_leading_large),
        cmocka_unit_test(test_full_force_rewrite),
        cmocka_unit_test(test_full_with_deletion_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
