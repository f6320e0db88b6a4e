/*
 * tests/unit/base/test_base.c — error chain, buffers, cursor, arena, pool, util.
 */
#include <stdatomic.h>
#include <string.h>

#include "pm_test.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/cursor.h"
#include "base/pool.h"
#include "base/util.h"
#include "base/utf8.h"

static void test_error_chain(void **state)
{
    (void)state;
    pm_error *e = pm_error_new(PM_ECORRUPT, "page %d bad", 3);
    e = pm_error_wrap(e, 0, "column '%s'", "id");
    e = pm_error_wrap(e, PM_EIO, "file %s", "a.parquet");
    assert_int_equal(pm_error_code(e), PM_EIO);
    assert_int_equal(pm_error_root_code(e), PM_ECORRUPT);
    assert_int_equal(pm_error_code(pm_error_cause(e)), PM_ECORRUPT);
    char *s = pm_error_format(e);
    assert_string_equal(s, "file a.parquet: column 'id': page 3 bad");
    free(s);
    pm_error_free(e);
    assert_null(pm_error_wrap(NULL, PM_EIO, "nothing"));
    assert_string_equal(pm_code_name(PM_ECONFLICT), "ECONFLICT");
}

static void test_buf(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    for (int i = 0; i < 1000; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&b, "%d,", i));
    const char *s;
    PM_OK_OR_FAIL(pm_buf_cstr(&b, &s));
    assert_true(strncmp(s, "0,1,2,", 6) == 0);
    assert_int_equal(strlen(s), b.len);
    PM_OK_OR_FAIL(pm_buf_append_u32be(&b, 0x01020304));
    assert_memory_equal(b.data + b.len - 4, "\x01\x02\x03\x04", 4);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_buf_append_u64le(&b, 0x0807060504030201ull));
    assert_memory_equal(b.data, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    size_t n;
    uint8_t *d = pm_buf_detach(&b, &n);
    assert_int_equal(n, 8);
    assert_null(b.data);
    free(d);
    pm_buf_free(&b);
}

/* pm_buf_set_len: grows like resize, keeps the bytes it had, shrinks without
 * touching them; a borrowed view is copied before it can be written. */
static void test_buf_set_len(void **state)
{
    (void)state;
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_buf_append(&b, "abc", 3));
    PM_OK_OR_FAIL(pm_buf_set_len(&b, 100000));
    assert_int_equal(b.len, 100000);
    assert_true(b.cap >= 100000);
    assert_memory_equal(b.data, "abc", 3);
    memset(b.data, 'x', b.len); /* every new byte is writable */
    PM_OK_OR_FAIL(pm_buf_set_len(&b, 2));
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "xx", 2);
    pm_buf_free(&b);

    static const char view[] = "borrowed";
    pm_buf v = PM_BUF_INIT;
    pm_buf_borrow(&v, view, 8);
    PM_OK_OR_FAIL(pm_buf_set_len(&v, 12));
    assert_ptr_not_equal(v.data, (const uint8_t *)view);
    assert_memory_equal(v.data, "borrowed", 8);
    assert_int_equal(v.len, 12);
    pm_buf_free(&v);
}

static void test_cursor(void **state)
{
    (void)state;
    /* 300 as uvarint = ac 02; -3 zigzag = 5 */
    const uint8_t data[] = {0xac, 0x02, 0x05, 0x01, 0x02, 0x03, 0x04};
    pm_cursor c = pm_cursor_make(data, sizeof data);
    uint64_t u;
    int64_t s;
    uint32_t w;
    PM_OK_OR_FAIL(pm_cursor_uvarint(&c, &u, "u"));
    assert_int_equal(u, 300);
    PM_OK_OR_FAIL(pm_cursor_svarint(&c, &s, "s"));
    assert_int_equal(s, -3);
    PM_OK_OR_FAIL(pm_cursor_u32be(&c, &w, "w"));
    assert_int_equal(w, 0x01020304);
    PM_EXPECT_ERR(pm_cursor_u8(&c, (uint8_t *)&w, "past end"), PM_ECORRUPT);
    const uint8_t bad[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    c = pm_cursor_make(bad, sizeof bad);
    PM_EXPECT_ERR(pm_cursor_uvarint(&c, &u, "long"), PM_ECORRUPT);
    const uint8_t trunc[] = {0x80, 0x80};
    c = pm_cursor_make(trunc, sizeof trunc);
    PM_EXPECT_ERR(pm_cursor_uvarint(&c, &u, "trunc"), PM_ECORRUPT);
}

static void test_arena(void **state)
{
    (void)state;
    pm_arena a;
    pm_arena_init(&a, 1024);
    for (int i = 0; i < 100; i++) {
        char *p = pm_arena_alloc(&a, 100, 8);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 8, 0);
        memset(p, i, 100);
    }
    char *big = pm_arena_alloc(&a, 10000, 64);
    assert_non_null(big);
    assert_int_equal((uintptr_t)big % 64, 0);
    memset(big, 1, 10000);
    assert_string_equal(pm_arena_strdup(&a, "hello"), "hello");
    pm_arena_reset(&a);
    assert_true(a.bytes_reserved <= 1024 + 64);
    assert_non_null(pm_arena_alloc(&a, 10, 1));
    pm_arena_free(&a);
}

static atomic_int counter;
static void bump(void *arg) { atomic_fetch_add(&counter, (int)(intptr_t)arg); }

static void test_pool(void **state)
{
    (void)state;
    pm_pool *p;
    pm_task_group *g;
    PM_OK_OR_FAIL(pm_pool_new(&p, 3));
    PM_OK_OR_FAIL(pm_group_new(&g));
    atomic_store(&counter, 0);
    for (int i = 1; i <= 100; i++)
        PM_OK_OR_FAIL(pm_pool_submit(p, g, bump, (void *)(intptr_t)i));
    pm_group_wait(g);
    assert_int_equal(atomic_load(&counter), 5050);
    pm_group_free(g);
    pm_pool_free(p);
    /* inline pool */
    PM_OK_OR_FAIL(pm_pool_new(&p, 0));
    PM_OK_OR_FAIL(pm_pool_submit(p, NULL, bump, (void *)(intptr_t)1));
    assert_int_equal(atomic_load(&counter), 5051);
    pm_pool_free(p);
}

static void test_util(void **state)
{
    (void)state;
    char u[37], v[37];
    PM_OK_OR_FAIL(pm_uuid(u));
    PM_OK_OR_FAIL(pm_uuid(v));
    assert_int_equal(strlen(u), 36);
    assert_int_equal(u[14], '4');
    assert_string_not_equal(u, v);
    pm_buf b = PM_BUF_INIT, d = PM_BUF_INIT;
    const char *cases[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *want[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        pm_buf_clear(&b);
        pm_buf_clear(&d);
        PM_OK_OR_FAIL(pm_base64_encode(&b, (const uint8_t *)cases[i], strlen(cases[i])));
        assert_int_equal(b.len, strlen(want[i]));
        assert_memory_equal(b.data ? (const char *)b.data : "", want[i], b.len);
        PM_OK_OR_FAIL(pm_base64_decode(&d, want[i], strlen(want[i])));
        assert_int_equal(d.len, strlen(cases[i]));
        if (d.len)
            assert_memory_equal(d.data, cases[i], d.len);
    }
    PM_EXPECT_ERR(pm_base64_decode(&d, "a*b=", 4), PM_EINVALID);
    pm_buf_free(&b);
    pm_buf_free(&d);
    assert_true(pm_now_millis() > 1700000000000LL);
}

static void test_utf8(void **state)
{
    (void)state;
    assert_true(pm_utf8_valid((const uint8_t *)"", 0));
    assert_true(pm_utf8_valid((const uint8_t *)"abc\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 12));
    assert_false(pm_utf8_valid((const uint8_t *)"\xc0\x80", 2));          /* overlong */
    assert_false(pm_utf8_valid((const uint8_t *)"\xe0\x80\x80", 3));     /* overlong, 3 bytes */
    assert_false(pm_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3));     /* surrogate */
    assert_false(pm_utf8_valid((const uint8_t *)"\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    assert_false(pm_utf8_valid((const uint8_t *)"\xe2\x82", 2));          /* cut short */
    assert_false(pm_utf8_valid((const uint8_t *)"\xe2\x28\xa1", 3));     /* bad continuation */
    assert_false(pm_utf8_valid((const uint8_t *)"\xff", 1));
    assert_true(pm_utf8_valid((const uint8_t *)"\xf4\x8f\xbf\xbf", 4));  /* U+10FFFF */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_chain), cmocka_unit_test(test_buf),
        cmocka_unit_test(test_buf_set_len),
        cmocka_unit_test(test_cursor),      cmocka_unit_test(test_arena),
        cmocka_unit_test(test_pool),        cmocka_unit_test(test_util),
        cmocka_unit_test(test_utf8),
    };
    return cmocka_run_group_tests_name("base", tests, NULL, NULL);
}
