/*
 * tests/unit/dv/test_roaring_java.c — Roaring bitmaps serialized as Java's
 * RoaringBitmap does after runOptimize: exact bytes of an array kept on a
 * size tie with runs (where CRoaring alone would switch to runs), a run
 * container, bitmap containers kept and turned into runs, several
 * containers with and without the offset table; every serialization is
 * valid (dv/roaring_check.h), reads back to the same set and has the size
 * pm_roaring_java_size predicts.
 */
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

#include "dv/roaring_check.h"
#include "dv/roaring_java.h"
#include "pm_test.h"

static void check_round_trip(roaring_bitmap_t *bm, pm_buf *out)
{
    pm_buf_clear(out);
    PM_OK_OR_FAIL(pm_roaring_java_put(out, bm));
    assert_int_equal(out->len, pm_roaring_java_size(bm));
    size_t used;
    uint64_t card;
    PM_OK_OR_FAIL(pm_roaring_check(out->data, out->len, &used, &card));
    assert_int_equal(used, out->len);
    assert_int_equal(card, roaring_bitmap_get_cardinality(bm));
    roaring_bitmap_t *back = roaring_bitmap_portable_deserialize_safe((const char *)out->data, out->len);
    assert_non_null(back);
    assert_true(roaring_bitmap_equals(back, bm));
    roaring_bitmap_free(back);
}

static void test_exact_bytes(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    /* {0,1,2,3,5}: array 10 bytes vs run 2 + 4*2 = 10: Java keeps the array */
    roaring_bitmap_t *bm = roaring_bitmap_of(5, 0, 1, 2, 3, 5);
    check_round_trip(bm, &b);
    static const uint8_t tie[] = {0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 4, 0, 0x10, 0, 0, 0,
                                  0, 0, 1, 0, 2, 0, 3, 0, 5, 0};
    assert_int_equal(b.len, sizeof tie);
    assert_memory_equal(b.data, tie, sizeof tie);
    roaring_bitmap_free(bm);
    /* {0..5}: one run beats an array of 6 */
    bm = roaring_bitmap_from_range(0, 6, 1);
    check_round_trip(bm, &b);
    static const uint8_t run[] = {0x3b, 0x30, 0, 0, 1, 0, 0, 5, 0, 1, 0, 0, 0, 5, 0};
    assert_int_equal(b.len, sizeof run);
    assert_memory_equal(b.data, run, sizeof run);
    roaring_bitmap_free(bm);
    /* the empty bitmap */
    bm = roaring_bitmap_create();
    check_round_trip(bm, &b);
    assert_int_equal(b.len, 8);
    roaring_bitmap_free(bm);
    pm_buf_free(&b);
}

static void test_container_kinds(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    /* 5000 even values: a bitmap container (2501 runs would need more) */
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t i = 0; i < 10000; i += 2)
        roaring_bitmap_add(bm, i);
    check_round_trip(bm, &b);
    assert_int_equal(b.len, 8 + 4 + 4 + 8192);
    /* plus a dense range in another container and sparse ones: runs and offsets */
    roaring_bitmap_add_range(bm, 70000, 80000);
    roaring_bitmap_add(bm, 200000);
    roaring_bitmap_add(bm, 300000);
    roaring_bitmap_add(bm, 300001);
    check_round_trip(bm, &b);
    assert_int_equal(b.data[0], 0x3b); /* runs present, 4 containers: offsets kept */
    roaring_bitmap_run_optimize(bm);  /* CRoaring's own kinds do not matter */
    pm_buf again = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_roaring_java_put(&again, bm));
    assert_int_equal(again.len, b.len);
    assert_memory_equal(again.data, b.data, b.len);
    pm_buf_free(&again);
    roaring_bitmap_free(bm);
    /* two containers with a run: no offsets */
    bm = roaring_bitmap_from_range(0, 100, 1);
    roaring_bitmap_add(bm, 65536 + 7);
    check_round_trip(bm, &b);
    assert_int_equal(b.len, 4 + 1 + 8 + (2 + 4) + 2);
    roaring_bitmap_free(bm);
    pm_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_bytes),
        cmocka_unit_test(test_container_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
