/*
 * tests/unit/index/test_global_index_file.c — btree and bitmap global
 * index payloads (index/global_index_file.h): the exact btree bytes of a
 * small file (blocks, trailers, index block, footer, BTreeIndexMeta),
 * builds and lookups over many rows with nulls, duplicates, several blocks
 * and several files (records-per-range), every supported key kind,
 * bitmap payloads, and bounds checks of hostile bytes (truncation, bad
 * CRC, bad magic, every single-byte corruption never crashing).
 * The dictionary bitmap format (index/global_index_dict.h) and compressed
 * blocks (index/global_index_block.h): the footer, index meta and bitmaps
 * of a small file, lookups over many values spread over many dictionary
 * blocks, zstd / lz4 blocks in btree and dictionary files (compressed when
 * that saves an eighth, read back, CRC and codec checks), an lzo block
 * refused by name, and hostile bytes never crashing.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/cursor.h"
#include "index/global_index_block.h"
#include "index/global_index_dict.h"
#include "index/global_index_file.h"
#include "pm_test.h"
#include "types/column.h"

static pm_gi_column decl(pm_gi_family f, const pm_type *t)
{
    pm_gi_column g;
    memset(&g, 0, sizeof g);
    g.column = "c";
    g.declared_by = "test";
    g.family = f;
    g.type = t;
    g.rows_per_shard = 100000;
    g.btree_block_size = 64 * 1024;
    g.btree_records_per_range = 1000000;
    return g;
}

static pm_column *ints(const pm_type *t, const int32_t *v, const bool *null, size_t n)
{
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    for (size_t i = 0; i < n; i++)
        PM_OK_OR_FAIL(null && null[i] ? pm_column_append_null(c) : pm_column_append_i32(c, v[i]));
    return c;
}

/* Local rows of value v in payloads p[0..n). */
static roaring_bitmap_t *lookup(pm_gi_family f, const pm_type *t, const pm_gi_payload *p, size_t n, int32_t v)
{
    pm_column *lit = ints(t, &v, NULL, 1);
    roaring_bitmap_t *r = roaring_bitmap_create();
    for (size_t i = 0; i < n; i++)
        PM_OK_OR_FAIL(pm_gi_query_in(f, t, p[i].bytes.data, p[i].bytes.len, lit, r, "test"));
    pm_column_release(lit);
    return r;
}

static void test_btree_exact_bytes(void **state)
{
    (void)state;
    pm_type *t = pm_type_new(PM_TYPE_INT, true);
    const int32_t v[] = {2, 1};
    pm_column *c = ints(t, v, NULL, 2);
    pm_gi_column g = decl(PM_GI_BTREE, t);
    pm_gi_payload *p = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_gi_build(&g, c, 2, &p, &n));
    assert_int_equal(n, 1);
    assert_int_equal(p[0].row_count, 2);
    /* data block: (4, 01000000, 2, [1, 1]) (4, 02000000, 2, [1, 0]), aligned 8 */
    static const uint8_t data[] = {4, 1, 0, 0, 0, 2, 1, 1, 4, 2, 0, 0, 0, 2, 1, 0, 8, 0, 0, 0, 0};
    const uint8_t *b = p[0].bytes.data;
    assert_int_equal(p[0].bytes.len, 21 + 5 + 13 + 5 + 52);
    assert_memory_equal(b, data, sizeof data);
    assert_int_equal(b[21], 0); /* trailer: no compression, CRC follows */
    /* index block: last key 2 → handle (0, 21) */
    static const uint8_t index[] = {4, 2, 0, 0, 0, 2, 0, 21, 8, 0, 0, 0, 0};
    assert_memory_equal(b + 26, index, sizeof index);
    const uint8_t *f = b + p[0].bytes.len - 52;
    for (size_t i = 0; i < 20; i++)
        assert_int_equal(f[i], 0);
    assert_int_equal(pm_load_u64le(f + 20), 26);
    assert_int_equal(pm_load_u32le(f + 28), 13);
    assert_int_equal(pm_load_u64le(f + 32), 0);
    assert_int_equal(pm_load_u32le(f + 40), 0);
    assert_int_equal(pm_load_u32le(f + 44), 1);
    assert_int_equal(pm_load_u32le(f + 48), 0x50425449u);
    static const uint8_t meta[] = {4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 0};
    assert_true(p[0].has_meta);
    assert_int_equal(p[0].meta.len, sizeof meta);
    assert_memory_equal(p[0].meta.data, meta, sizeof meta);
    pm_gi_payloads_free(p, n);
    pm_column_release(c);
    pm_type_free(t);
}

static void check_many(pm_gi_family fam, int64_t block, int64_t per_range, size_t expect_files)
{
    pm_type *t = pm_type_new(PM_TYPE_INT, true);
    enum { N = 5000 };
    int32_t *v = malloc(N * sizeof *v);
    bool *nul = malloc(N * sizeof *nul);
    for (int i = 0; i < N; i++) {
        v[i] = (int32_t)((i * 7919) % 97) - 40; /* 97 distinct values, negatives too */
        nul[i] = i % 13 == 0;
    }
    pm_column *c = ints(t, v, nul, N);
    pm_gi_column g = decl(fam, t);
    g.btree_block_size = block;
    g.btree_records_per_range = per_range;
    pm_gi_payload *p = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_gi_build(&g, c, N, &p, &n));
    assert_int_equal(n, expect_files);
    int64_t rows = 0;
    for (size_t i = 0; i < n; i++)
        rows += p[i].row_count;
    assert_int_equal(rows, N);
    for (int32_t x = -45; x < 62; x++) {
        roaring_bitmap_t *r = lookup(fam, t, p, n, x);
        uint64_t want = 0;
        for (int i = 0; i < N; i++)
            if (!nul[i] && v[i] == x) {
                want++;
                assert_true(roaring_bitmap_contains(r, (uint32_t)i));
            }
        assert_int_equal(roaring_bitmap_get_cardinality(r), want);
        roaring_bitmap_free(r);
    }
    pm_gi_payloads_free(p, n);
    pm_column_release(c);
    free(v);
    free(nul);
    pm_type_free(t);
}

static void test_btree_many_blocks_and_files(void **state)
{
    (void)state;
    check_many(PM_GI_BTREE, 64 * 1024, 1000000, 1);
    check_many(PM_GI_BTREE, 64, 1000000, 1);     /* many data blocks */
    check_many(PM_GI_BTREE, 200, 1000, 5);       /* 1200 rows per file */
    check_many(PM_GI_BITMAP, 0, 0, 1);
}

static void test_btree_strings_and_kinds(void **state)
{
    (void)state;
    static const char *const names[] = {"Alice", "Bob", "", "Émile", "Bob", "Zed", "alice"};
    pm_type *t = NULL;
    PM_OK_OR_FAIL(pm_type_parse(&t, "STRING"));
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    for (size_t i = 0; i < 7; i++)
        PM_OK_OR_FAIL(pm_column_append_bytes(c, names[i], strlen(names[i])));
    PM_OK_OR_FAIL(pm_column_append_null(c));
    for (int fam = 0; fam < 2; fam++) {
        pm_gi_column g = decl((pm_gi_family)fam, t);
        pm_gi_payload *p = NULL;
        size_t n = 0;
        PM_OK_OR_FAIL(pm_gi_build(&g, c, 8, &p, &n));
        pm_column *lit = NULL;
        PM_OK_OR_FAIL(pm_column_new(&lit, t));
        PM_OK_OR_FAIL(pm_column_append_bytes(lit, "Bob", 3));
        PM_OK_OR_FAIL(pm_column_append_bytes(lit, "", 0));
        PM_OK_OR_FAIL(pm_column_append_bytes(lit, "Nobody", 6));
        roaring_bitmap_t *r = roaring_bitmap_create();
        PM_OK_OR_FAIL(pm_gi_query_in((pm_gi_family)fam, t, p[0].bytes.data, p[0].bytes.len, lit, r, "t"));
        assert_int_equal(roaring_bitmap_get_cardinality(r), 3);
        assert_true(roaring_bitmap_contains(r, 1) && roaring_bitmap_contains(r, 2) && roaring_bitmap_contains(r, 4));
        roaring_bitmap_free(r);
        if (fam == PM_GI_BTREE) { /* has nulls: a null bitmap and the flag */
            assert_int_equal(p[0].meta.data[p[0].meta.len - 1], 1);
            const uint8_t *f = p[0].bytes.data + p[0].bytes.len - 52;
            assert_true(pm_load_u32le(f + 40) > 0);
        } else {
            assert_false(p[0].has_meta);
        }
        pm_column_release(lit);
        pm_gi_payloads_free(p, n);
    }
    pm_column_release(c);
    pm_type_free(t);

    /* BIGINT, DOUBLE (NaN, -0.0), BOOLEAN keys */
    pm_type *d = pm_type_new(PM_TYPE_DOUBLE, true);
    pm_column *dc = NULL;
    PM_OK_OR_FAIL(pm_column_new(&dc, d));
    const double dv[] = {1.5, -0.0, 0.0, 0.0 / 0.0, 1.5};
    for (size_t i = 0; i < 5; i++)
        PM_OK_OR_FAIL(pm_column_append_f64(dc, dv[i]));
    pm_gi_column g = decl(PM_GI_BTREE, d);
    pm_gi_payload *p = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_gi_build(&g, dc, 5, &p, &n));
    pm_column *lit = NULL;
    PM_OK_OR_FAIL(pm_column_new(&lit, d));
    PM_OK_OR_FAIL(pm_column_append_f64(lit, 0.0));
    PM_OK_OR_FAIL(pm_column_append_f64(lit, 0.0 / 0.0));
    roaring_bitmap_t *r = roaring_bitmap_create();
    PM_OK_OR_FAIL(pm_gi_query_in(PM_GI_BTREE, d, p[0].bytes.data, p[0].bytes.len, lit, r, "t"));
    assert_int_equal(roaring_bitmap_get_cardinality(r), 2); /* 0.0 (not -0.0) and NaN */
    assert_true(roaring_bitmap_contains(r, 2) && roaring_bitmap_contains(r, 3));
    roaring_bitmap_free(r);
    pm_column_release(lit);
    pm_gi_payloads_free(p, n);
    pm_column_release(dc);
    pm_type_free(d);
}

static void test_hostile_bytes(void **state)
{
    (void)state;
    pm_type *t = pm_type_new(PM_TYPE_INT, true);
    int32_t v[300];
    bool nul[300];
    for (int i = 0; i < 300; i++) {
        v[i] = i % 17;
        nul[i] = i % 50 == 3;
    }
    pm_column *c = ints(t, v, nul, 300);
    int32_t x = 5;
    pm_column *lit = ints(t, &x, NULL, 1);
    /* btree, Java 1.4.2's bitmap, the dictionary bitmap (plain, zstd, lz4), a zstd btree */
    static const struct {
        pm_gi_family f;
        bool dict;
        pm_gi_compression c;
    } V[] = {{PM_GI_BTREE, false, PM_GI_COMPRESS_NONE}, {PM_GI_BITMAP, false, PM_GI_COMPRESS_NONE},
             {PM_GI_BITMAP, true, PM_GI_COMPRESS_NONE},  {PM_GI_BITMAP, true, PM_GI_COMPRESS_ZSTD},
             {PM_GI_BITMAP, true, PM_GI_COMPRESS_LZ4},   {PM_GI_BTREE, false, PM_GI_COMPRESS_ZSTD}};
    for (size_t vi = 0; vi < sizeof V / sizeof V[0]; vi++) {
        int fam = V[vi].f;
        pm_gi_column g = decl((pm_gi_family)fam, t);
        g.btree_block_size = 100;
        g.bitmap_dictionary = V[vi].dict;
        g.bitmap_dict_block_size = 60;
        g.compression = V[vi].c;
        g.compression_level = 1;
        pm_gi_payload *p = NULL;
        size_t n = 0;
        PM_OK_OR_FAIL(pm_gi_build(&g, c, 300, &p, &n));
        size_t len = p[0].bytes.len;
        uint8_t *b = malloc(len);
        /* truncations */
        for (size_t cut = 0; cut < len; cut += 7) {
            roaring_bitmap_t *r = roaring_bitmap_create();
            memcpy(b, p[0].bytes.data, len);
            pm_error *e = pm_gi_query_in((pm_gi_family)fam, t, b, cut, lit, r, "cut");
            if (fam == PM_GI_BTREE)
                pm_test_expect_error(e, PM_ECORRUPT, "cut");
            else
                pm_error_free(e); /* the bitmap format may read a prefix as another shape; never crashes */
            roaring_bitmap_free(r);
        }
        /* every single-byte flip: an error or an answer, never a crash; btree blocks fail their CRC */
        for (size_t i = 0; i < len; i++) {
            memcpy(b, p[0].bytes.data, len);
            b[i] ^= 0x5a;
            roaring_bitmap_t *r = roaring_bitmap_create();
            pm_error_free(pm_gi_query_in((pm_gi_family)fam, t, b, len, lit, r, "flip"));
            roaring_bitmap_free(r);
        }
        if (vi == 0) {
            memcpy(b, p[0].bytes.data, len);
            b[3] ^= 1; /* inside the first data block */
            roaring_bitmap_t *r = roaring_bitmap_create();
            pm_error *e = NULL;
            /* a lookup that reaches the first block */
            int32_t zero = 0;
            pm_column *l0 = ints(t, &zero, NULL, 1);
            e = pm_gi_query_in(PM_GI_BTREE, t, b, len, l0, r, "crc");
            pm_test_expect_error(e, PM_ECORRUPT, "CRC");
            pm_column_release(l0);
            memcpy(b, p[0].bytes.data, len);
            b[len - 1] ^= 1;
            pm_test_expect_error(pm_gi_query_in(PM_GI_BTREE, t, b, len, lit, r, "magic"), PM_ECORRUPT,
                                 "bad magic");
            roaring_bitmap_free(r);
        }
        free(b);
        pm_gi_payloads_free(p, n);
    }
    pm_column_release(lit);
    pm_column_release(c);
    pm_type_free(t);
}

static void test_empty_range(void **state)
{
    (void)state;
    pm_type *t = pm_type_new(PM_TYPE_INT, true);
    pm_column *c = ints(t, NULL, NULL, 0);
    pm_gi_column g = decl(PM_GI_BTREE, t);
    pm_gi_payload *p = NULL;
    size_t n = 7;
    PM_OK_OR_FAIL(pm_gi_build(&g, c, 0, &p, &n));
    assert_int_equal(n, 0);
    /* only nulls: one btree file, meta without keys */
    bool nul[3] = {true, true, true};
    int32_t v[3] = {0};
    pm_column *nc = ints(t, v, nul, 3);
    PM_OK_OR_FAIL(pm_gi_build(&g, nc, 3, &p, &n));
    assert_int_equal(n, 1);
    static const uint8_t meta[] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    assert_memory_equal(p[0].meta.data, meta, sizeof meta);
    roaring_bitmap_t *r = lookup(PM_GI_BTREE, t, p, n, 0);
    assert_int_equal(roaring_bitmap_get_cardinality(r), 0);
    roaring_bitmap_free(r);
    pm_gi_payloads_free(p, n);
    pm_column_release(nc);
    pm_column_release(c);
    pm_type_free(t);
}

/* ---------------------------------------------------------------- */
/* the dictionary bitmap format and compressed blocks                */

static pm_gi_column decl_fmt(pm_gi_family f, const pm_type *t, bool dict, pm_gi_compression c)
{
    pm_gi_column g = decl(f, t);
    g.bitmap_dictionary = dict;
    g.bitmap_dict_block_size = 16 * 1024;
    g.compression = c;
    g.compression_level = 1;
    return g;
}

/* The Roaring64 at p[off, off + len) as a 32-bit bitmap. */
static roaring_bitmap_t *bitmap_at(const uint8_t *p, uint64_t off, uint64_t len)
{
    roaring_bitmap_t *r = roaring_bitmap_create();
    PM_OK_OR_FAIL(pm_gi_roaring64_or(p + off, (size_t)len, r, "bitmap"));
    return r;
}

static void test_dict_small_file(void **state)
{
    (void)state;
    pm_type *t = pm_type_new(PM_TYPE_INT, true);
    const int32_t v[] = {2, 1, 0, 1};
    const bool nul[] = {false, false, true, false};
    pm_column *c = ints(t, v, nul, 4);
    pm_gi_column g = decl_fmt(PM_GI_BITMAP, t, true, PM_GI_COMPRESS_NONE);
    pm_gi_payload *p = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_gi_build(&g, c, 4, &p, &n));
    assert_int_equal(n, 1);
    assert_int_equal(p[0].row_count, 4);
    const uint8_t *b = p[0].bytes.data;
    size_t len = p[0].bytes.len;
    assert_true(pm_gi_dict_is(b, len));
    const uint8_t *f = b + len - 48;
    assert_int_equal(pm_load_u32be(f + 36), 2); /* distinct values */
    assert_int_equal(pm_load_u32be(f + 40), 1); /* version */
    assert_int_equal(pm_load_u32be(f + 44), 0x42474958u);
    /* index block: one dictionary block whose first key is 1 */
    uint64_t ioff = pm_load_u64be(f + 24);
    uint32_t isize = pm_load_u32be(f + 32);
    assert_int_equal(ioff + isize + 5, len - 48);
    assert_int_equal(b[ioff], 1);
    assert_int_equal(b[ioff + 1], 4);
    assert_int_equal(pm_load_u32le(b + ioff + 2), 1);
    assert_int_equal(b[ioff + isize], 0); /* stored uncompressed */
    /* dictionary block: 2 entries; the first (key 1, the smallest bytes)
     * has the bitmap that starts the file */
    const uint8_t *d = b + b[ioff + 6];
    assert_int_equal(d[0], 2);
    assert_int_equal(d[1], 4);
    assert_int_equal(pm_load_u32le(d + 2), 1);
    assert_int_equal(d[6], 0);
    roaring_bitmap_t *r = bitmap_at(b, 0, d[7]);
    assert_int_equal(roaring_bitmap_get_cardinality(r), 2);
    assert_true(roaring_bitmap_contains(r, 1) && roaring_bitmap_contains(r, 3));
    roaring_bitmap_free(r);
    assert_int_equal(d[8], 4);
    assert_int_equal(pm_load_u32le(d + 9), 2);
    assert_int_equal(d[13], d[7]); /* key 2's bitmap follows */
    uint64_t noff = pm_load_u64be(f), voff = pm_load_u64be(f + 12);
    r = bitmap_at(b, noff, pm_load_u32be(f + 8));
    assert_int_equal(roaring_bitmap_get_cardinality(r), 1);
    assert_true(roaring_bitmap_contains(r, 2));
    roaring_bitmap_free(r);
    r = bitmap_at(b, voff, pm_load_u32be(f + 20));
    assert_int_equal(roaring_bitmap_get_cardinality(r), 3);
    roaring_bitmap_free(r);
    static const uint8_t meta[] = {4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 1, 1, 0};
    assert_true(p[0].has_meta);
    assert_int_equal(p[0].meta.len, sizeof meta);
    assert_memory_equal(p[0].meta.data, meta, sizeof meta);
    r = lookup(PM_GI_BITMAP, t, p, n, 2);
    assert_int_equal(roaring_bitmap_get_cardinality(r), 1);
    assert_true(roaring_bitmap_contains(r, 0));
    roaring_bitmap_free(r);
    r = lookup(PM_GI_BITMAP, t, p, n, 0); /* the null row's slot holds no value */
    assert_int_equal(roaring_bitmap_get_cardinality(r), 0);
    roaring_bitmap_free(r);
    pm_gi_payloads_free(p, n);
    /* only nulls: no keys, both null flags */
    const bool all[] = {true, true};
    pm_column *nc = ints(t, v, all, 2);
    PM_OK_OR_FAIL(pm_gi_build(&g, nc, 2, &p, &n));
    static const uint8_t nmeta[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 3};
    assert_int_equal(p[0].meta.len, sizeof nmeta);
    assert_memory_equal(p[0].meta.data, nmeta, sizeof nmeta);
    r = lookup(PM_GI_BITMAP, t, p, n, 1);
    assert_int_equal(roaring_bitmap_get_cardinality(r), 0);
    roaring_bitmap_free(r);
    pm_gi_payloads_free(p, n);
    pm_column_release(nc);
    pm_column_release(c);
    pm_type_free(t);
}

/* Every value of a 5000-row column (401 distinct, negatives, nulls)
 * found with exactly its rows; returns the file size. */
static size_t check_codec(pm_gi_family fam, bool dict, pm_gi_compression cz, int64_t block)
{
    pm_type *t = pm_type_new(PM_TYPE_INT, true);
    enum { N = 5000 };
    int32_t *v = malloc(N * sizeof *v);
    bool *nul = malloc(N * sizeof *nul);
    for (int i = 0; i < N; i++) {
        v[i] = (int32_t)((i * 7919) % 401) - 200;
        nul[i] = i % 13 == 0;
    }
    pm_column *c = ints(t, v, nul, N);
    pm_gi_column g = decl_fmt(fam, t, dict, cz);
    g.btree_block_size = block;
    g.bitmap_dict_block_size = block;
    pm_gi_payload *p = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_gi_build(&g, c, N, &p, &n));
    assert_int_equal(n, 1);
    assert_int_equal(p[0].row_count, N);
    for (int32_t x = -205; x < 205; x += 3) {
        roaring_bitmap_t *r = lookup(fam, t, p, n, x);
        uint64_t want = 0;
        for (int i = 0; i < N; i++)
            if (!nul[i] && v[i] == x) {
                want++;
                assert_true(roaring_bitmap_contains(r, (uint32_t)i));
            }
        assert_int_equal(roaring_bitmap_get_cardinality(r), want);
        roaring_bitmap_free(r);
    }
    size_t size = p[0].bytes.len;
    pm_gi_payloads_free(p, n);
    pm_column_release(c);
    free(v);
    free(nul);
    pm_type_free(t);
    return size;
}

static void test_many_values_and_codecs(void **state)
{
    (void)state;
    check_codec(PM_GI_BITMAP, true, PM_GI_COMPRESS_NONE, 16 * 1024);
    check_codec(PM_GI_BITMAP, true, PM_GI_COMPRESS_NONE, 1); /* one entry per dictionary block */
    check_codec(PM_GI_BITMAP, true, PM_GI_COMPRESS_NONE, 64);
    size_t plain = check_codec(PM_GI_BITMAP, true, PM_GI_COMPRESS_NONE, 4096);
    assert_true(check_codec(PM_GI_BITMAP, true, PM_GI_COMPRESS_ZSTD, 4096) < plain);
    assert_true(check_codec(PM_GI_BITMAP, true, PM_GI_COMPRESS_LZ4, 4096) <= plain); /* may not save an eighth */
    plain = check_codec(PM_GI_BTREE, false, PM_GI_COMPRESS_NONE, 4096);
    assert_true(check_codec(PM_GI_BTREE, false, PM_GI_COMPRESS_ZSTD, 4096) < plain);
    assert_true(check_codec(PM_GI_BTREE, false, PM_GI_COMPRESS_LZ4, 4096) <= plain);
    check_codec(PM_GI_BTREE, false, PM_GI_COMPRESS_ZSTD, 64);
}

static void test_dict_strings(void **state)
{
    (void)state;
    pm_type *t = pm_type_new_string(PM_TYPE_VARCHAR, 2147483647, true);
    const char *words[] = {"", "a", "ab", "b", "\xc3\xa9t\xc3\xa9", "zz", "a"};
    pm_column *c = NULL;
    PM_OK_OR_FAIL(pm_column_new(&c, t));
    for (size_t i = 0; i < 7; i++)
        PM_OK_OR_FAIL(pm_column_append_bytes(c, words[i], strlen(words[i])));
    pm_gi_column g = decl_fmt(PM_GI_BITMAP, t, true, PM_GI_COMPRESS_NONE);
    g.bitmap_dict_block_size = 8;
    pm_gi_payload *p = NULL;
    size_t n = 0;
    PM_OK_OR_FAIL(pm_gi_build(&g, c, 7, &p, &n));
    /* meta: first key '' (length 0, no null flag), last key 'été' */
    assert_int_equal(pm_load_u32le(p[0].meta.data), 0);
    assert_int_equal(p[0].meta.data[p[0].meta.len - 1], 0);
    for (size_t i = 0; i < 7; i++) {
        pm_column *lit = NULL;
        PM_OK_OR_FAIL(pm_column_new(&lit, t));
        PM_OK_OR_FAIL(pm_column_append_bytes(lit, words[i], strlen(words[i])));
        roaring_bitmap_t *r = roaring_bitmap_create();
        PM_OK_OR_FAIL(pm_gi_query_in(PM_GI_BITMAP, t, p[0].bytes.data, p[0].bytes.len, lit, r, "s"));
        assert_int_equal(roaring_bitmap_get_cardinality(r), !strcmp(words[i], "a") ? 2 : 1);
        assert_true(roaring_bitmap_contains(r, (uint32_t)i));
        roaring_bitmap_free(r);
        pm_column_release(lit);
    }
    pm_gi_payloads_free(p, n);
    pm_column_release(c);
    pm_type_free(t);
}

static void test_blocks(void **state)
{
    (void)state;
    /* incompressible bytes stay uncompressed (id 0); repetitive ones compress */
    uint8_t raw[600];
    for (size_t i = 0; i < sizeof raw; i++)
        raw[i] = (uint8_t)(i * 2654435761u >> 13);
    for (int c = PM_GI_COMPRESS_ZSTD; c <= PM_GI_COMPRESS_LZ4; c++) {
        pm_buf f = PM_BUF_INIT, scratch = PM_BUF_INIT;
        uint64_t off;
        uint32_t size;
        PM_OK_OR_FAIL(pm_gi_block_put(&f, raw, 40, (pm_gi_compression)c, 1, &off, &size));
        assert_int_equal(size, 40);
        assert_int_equal(f.data[40], 0);
        memset(raw + 100, 'x', 500);
        uint64_t off2;
        uint32_t size2;
        PM_OK_OR_FAIL(pm_gi_block_put(&f, raw + 100, 500, (pm_gi_compression)c, 1, &off2, &size2));
        assert_true(size2 < 100);
        assert_int_equal(f.data[off2 + size2], c);
        const uint8_t *d;
        size_t dn;
        PM_OK_OR_FAIL(pm_gi_block_get(f.data, f.len, off2, size2, &scratch, &d, &dn, "blk"));
        assert_int_equal(dn, 500);
        assert_memory_equal(d, raw + 100, 500);
        /* a changed codec byte fails the CRC; lzo with a matching CRC is refused by name */
        f.data[off2 + size2] = 3;
        pm_test_expect_error(pm_gi_block_get(f.data, f.len, off2, size2, &scratch, &d, &dn, "blk"), PM_ECORRUPT,
                             "CRC");
        pm_buf g = PM_BUF_INIT;
        PM_OK_OR_FAIL(pm_buf_append(&g, f.data + off2, size2));
        uLong crc = crc32(crc32(0L, g.data, (uInt)g.len), (const Bytef *)"\3", 1);
        PM_OK_OR_FAIL(pm_buf_append_byte(&g, 3));
        PM_OK_OR_FAIL(pm_buf_append_u32le(&g, (uint32_t)crc));
        pm_test_expect_error(pm_gi_block_get(g.data, g.len, 0, size2, &scratch, &d, &dn, "blk"), PM_EUNSUPPORTED,
                             "lzo");
        pm_buf_free(&g);
        pm_buf_free(&f);
        pm_buf_free(&scratch);
    }
    pm_gi_compression z;
    PM_OK_OR_FAIL(pm_gi_compression_parse("ZSTD", "k", &z));
    assert_int_equal(z, PM_GI_COMPRESS_ZSTD);
    pm_test_expect_error(pm_gi_compression_parse("lzo", "k", &z), PM_EUNSUPPORTED, "'k' = 'lzo'");
    pm_test_expect_error(pm_gi_compression_parse("snappy", "k", &z), PM_EUNSUPPORTED, "not supported");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_btree_exact_bytes),      cmocka_unit_test(test_btree_many_blocks_and_files),
        cmocka_unit_test(test_btree_strings_and_kinds), cmocka_unit_test(test_hostile_bytes),
        cmocka_unit_test(test_empty_range),          cmocka_unit_test(test_dict_small_file),
        cmocka_unit_test(test_many_values_and_codecs), cmocka_unit_test(test_dict_strings),
        cmocka_unit_test(test_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
