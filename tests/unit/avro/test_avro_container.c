/*
 * tests/unit/avro/test_avro_container.c — Avro pieces below the value
 * decoder: varints and primitives, schema parsing (names, namespaces,
 * recursion, logical types, errors), the Paimon row type → schema JSON
 * mapping (byte-exact against Java-written files), container framing with
 * every codec (round trip, sync/CRC/truncation errors), skipping values of
 * any shape, and reading the framing of every Java-written Avro fixture.
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "pm_test.h"
#include "base/buf.h"
#include "base/cursor.h"
#include "format/avro/avro_binary.h"
#include "format/avro/avro_file.h"
#include "format/avro/avro_schema.h"

/* ---- tiny pm_type builders (plain structs; no types-module calls) ---- */

static pm_type *ty(pm_type_id id, bool nullable)
{
    pm_type *t = calloc(1, sizeof *t);
    t->id = id;
    t->nullable = nullable;
    return t;
}
static pm_type *ty_p(pm_type_id id, int32_t precision, int32_t scale, bool nullable)
{
    pm_type *t = ty(id, nullable);
    t->precision = precision;
    t->scale = scale;
    return t;
}
static pm_type *ty_arr(pm_type *el, bool nullable)
{
    pm_type *t = ty(PM_TYPE_ARRAY, nullable);
    t->element = el;
    return t;
}
static pm_type *ty_map(pm_type *k, pm_type *v, bool nullable)
{
    pm_type *t = ty(PM_TYPE_MAP, nullable);
    t->key = k;
    t->value = v;
    return t;
}
static void add(pm_type *row, const char *name, pm_type *ft)
{
    row->fields = realloc(row->fields, (row->nfields + 1) * sizeof *row->fields);
    pm_field *f = &row->fields[row->nfields++];
    memset(f, 0, sizeof *f);
    f->id = (int32_t)row->nfields - 1;
    f->name = strdup(name);
    f->type = ft;
}
static void ty_free(pm_type *t)
{
    if (!t)
        return;
    ty_free(t->element);
    ty_free(t->key);
    ty_free(t->value);
    for (size_t i = 0; i < t->nfields; i++) {
        free(t->fields[i].name);
        ty_free(t->fields[i].type);
    }
    free(t->fields);
    free(t);
}

static char *slurp_schema(const char *path, size_t *len)
{
    size_t n;
    uint8_t *d = pm_test_read_file(path, &n);
    assert_non_null(d);
    pm_avro_file *f;
    PM_OK_OR_FAIL(pm_avro_file_open_memory(d, n, path, NULL, &f));
    char *s = strdup(pm_avro_file_schema_json(f));
    *len = strlen(s);
    pm_avro_file_close(f);
    free(d);
    return s;
}

/* ---- tests ---- */

static void test_varints(void **state)
{
    (void)state;
    const int64_t vals[] = {0, -1, 1, 63, -64, 64, 300, -300, INT32_MAX, INT32_MIN,
                            INT64_MAX, INT64_MIN};
    pm_buf b = PM_BUF_INIT;
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        PM_OK_OR_FAIL(pm_avro_put_long(&b, vals[i]));
    /* Known encodings: 0 → 00, -1 → 01, 1 → 02, 63 → 7e, -64 → 7f, 64 → 80 01. */
    assert_memory_equal(b.data, "\x00\x01\x02\x7e\x7f\x80\x01", 7);
    pm_cursor c = pm_cursor_make(b.data, b.len);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        int64_t v;
        PM_OK_OR_FAIL(pm_avro_read_long(&c, &v));
        assert_true(v == vals[i]);
    }
    assert_int_equal(pm_cursor_left(&c), 0);
    int64_t v;
    PM_EXPECT_ERR(pm_avro_read_long(&c, &v), PM_ECORRUPT);

    /* 11-byte varint, int out of range, truncated varint. */
    const uint8_t overlong[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    c = pm_cursor_make(overlong, sizeof overlong);
    PM_EXPECT_ERR(pm_avro_read_long(&c, &v), PM_ECORRUPT);
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_avro_put_long(&b, (int64_t)INT32_MAX + 1));
    c = pm_cursor_make(b.data, b.len);
    int32_t i32;
    PM_EXPECT_ERR(pm_avro_read_int(&c, &i32), PM_ECORRUPT);
    c = pm_cursor_make(b.data, 1);
    PM_EXPECT_ERR(pm_avro_read_long(&c, &v), PM_ECORRUPT);

    /* Primitives. */
    pm_buf_clear(&b);
    PM_OK_OR_FAIL(pm_avro_put_float(&b, 1.5f));
    PM_OK_OR_FAIL(pm_avro_put_double(&b, -2.25));
    PM_OK_OR_FAIL(pm_avro_put_bytes(&b, "abc", 3));
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 1));
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 2));
    c = pm_cursor_make(b.data, b.len);
    float f;
    double d;
    const uint8_t *p;
    size_t n;
    bool bo;
    PM_OK_OR_FAIL(pm_avro_read_float(&c, &f));
    assert_true(f == 1.5f);
    PM_OK_OR_FAIL(pm_avro_read_double(&c, &d));
    assert_true(d == -2.25);
    PM_OK_OR_FAIL(pm_avro_read_bytes(&c, &p, &n));
    assert_int_equal(n, 3);
    assert_memory_equal(p, "abc", 3);
    PM_OK_OR_FAIL(pm_avro_read_bool(&c, &bo));
    assert_true(bo);
    PM_EXPECT_ERR(pm_avro_read_bool(&c, &bo), PM_ECORRUPT); /* byte 2 */
    /* bytes longer than what is left */
    const uint8_t longbytes[] = {0x10, 'a'};
    c = pm_cursor_make(longbytes, sizeof longbytes);
    PM_EXPECT_ERR(pm_avro_read_bytes(&c, &p, &n), PM_ECORRUPT);
    const uint8_t negbytes[] = {0x01};
    c = pm_cursor_make(negbytes, 1);
    PM_EXPECT_ERR(pm_avro_read_bytes(&c, &p, &n), PM_ECORRUPT);
    pm_buf_free(&b);
}

static void test_schema_parse(void **state)
{
    (void)state;
    const char *js =
        "{\"type\":\"record\",\"name\":\"Top\",\"namespace\":\"a.b\",\"fields\":["
        "{\"name\":\"id\",\"type\":\"long\"},"
        "{\"name\":\"opt\",\"type\":[\"string\",\"null\"]},"
        "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
        "{\"name\":\"bad_lt\",\"type\":{\"type\":\"string\",\"logicalType\":\"date\"}},"
        "{\"name\":\"dec\",\"type\":{\"type\":\"fixed\",\"name\":\"D\",\"size\":5,"
        "\"logicalType\":\"decimal\",\"precision\":11,\"scale\":3}},"
        "{\"name\":\"dec_too_big\",\"type\":{\"type\":\"fixed\",\"name\":\"D2\",\"size\":2,"
        "\"logicalType\":\"decimal\",\"precision\":9}},"
        "{\"name\":\"color\",\"type\":{\"type\":\"enum\",\"name\":\"Color\",\"symbols\":[\"R\",\"G\"]}},"
        "{\"name\":\"again\",\"type\":\"Color\"},"
        "{\"name\":\"full\",\"type\":\"a.b.D\"},"
        "{\"name\":\"other_ns\",\"type\":{\"type\":\"record\",\"name\":\"x.y.Inner\",\"fields\":["
        "  {\"name\":\"c\",\"type\":\"a.b.Color\"}]}},"
        "{\"name\":\"next\",\"type\":[\"null\",\"Top\"]},"
        "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":\"int\"}}}"
        "]}";
    pm_avro_schema *s;
    PM_OK_OR_FAIL(pm_avro_schema_parse(js, strlen(js), &s));
    const pm_avro_node *r = s->root;
    assert_int_equal(r->kind, PM_AVRO_RECORD);
    assert_string_equal(r->name, "a.b.Top");
    assert_int_equal(r->n, 12);
    assert_int_equal(pm_avro_field_index(r, "ts"), 2);
    assert_int_equal(pm_avro_field_index(r, "TS"), -1);
    const pm_avro_node *opt = r->fields[1].type;
    assert_int_equal(opt->kind, PM_AVRO_UNION);
    assert_int_equal(opt->null_branch, 1);
    assert_int_equal(r->fields[2].type->logical, PM_AVRO_LT_TIMESTAMP_MICROS);
    assert_int_equal(r->fields[3].type->logical, PM_AVRO_LT_NONE); /* ignored */
    const pm_avro_node *dec = r->fields[4].type;
    assert_int_equal(dec->kind, PM_AVRO_FIXED);
    assert_int_equal(dec->logical, PM_AVRO_LT_DECIMAL);
    assert_int_equal(dec->precision, 11);
    assert_int_equal(dec->scale, 3);
    assert_int_equal(r->fields[5].type->logical, PM_AVRO_LT_NONE); /* 2 bytes hold 4 digits */
    assert_ptr_equal(r->fields[6].type, r->fields[7].type);        /* same named node */
    assert_ptr_equal(r->fields[8].type, dec);
    assert_string_equal(r->fields[9].type->name, "x.y.Inner");
    assert_ptr_equal(r->fields[9].type->fields[0].type, r->fields[6].type);
    assert_ptr_equal(r->fields[10].type->branches[1], r); /* recursion */
    assert_int_equal(r->fields[11].type->kind, PM_AVRO_MAP);
    assert_int_equal(r->fields[11].type->items->kind, PM_AVRO_ARRAY);
    pm_avro_schema_free(s);

    /* Errors. */
    const char *bad[] = {
        "{\"type\":",                                                   /* not JSON */
        "\"Nope\"",                                                     /* unknown name */
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\"}]}", /* no type */
        "{\"type\":\"record\",\"fields\":[]}",                           /* no name */
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
        "{\"name\":\"a\",\"type\":\"int\"}]}",                           /* duplicate field */
        "[]",                                                           /* empty union */
        "[\"null\",[\"int\"]]",                                         /* nested union */
        "{\"type\":\"fixed\",\"name\":\"F\"}",                           /* fixed without size */
        "[{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[]},{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[]}]",
        /* an unqualified name resolves in the enclosing namespace only */
        "{\"type\":\"record\",\"name\":\"a.R\",\"fields\":[{\"name\":\"e\",\"type\":"
        "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"X\"]}},{\"name\":\"i\",\"type\":"
        "{\"type\":\"record\",\"name\":\"b.I\",\"fields\":[{\"name\":\"x\",\"type\":\"E\"}]}}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pm_error *e = pm_avro_schema_parse(bad[i], strlen(bad[i]), &s);
        if (!e)
            fail_msg("schema %zu parsed: %s", i, bad[i]);
        assert_int_equal(pm_error_root_code(e), PM_ECORRUPT);
        pm_error_free(e);
    }
    /* Nesting limit. */
    pm_buf deep = PM_BUF_INIT;
    for (int i = 0; i < 100; i++)
        PM_OK_OR_FAIL(pm_buf_append_str(&deep, "{\"type\":\"array\",\"items\":"));
    PM_OK_OR_FAIL(pm_buf_append_str(&deep, "\"int\""));
    for (int i = 0; i < 100; i++)
        PM_OK_OR_FAIL(pm_buf_append_byte(&deep, '}'));
    PM_EXPECT_ERR(pm_avro_schema_parse((const char *)deep.data, deep.len, &s), PM_EUNSUPPORTED);
    pm_buf_free(&deep);
}

/* The schema Java wrote for the manifest entry type, rebuilt from Paimon types. */
static void test_schema_from_type_matches_java(void **state)
{
    (void)state;
    /* avro_all_types: every column nullable. */
    pm_type *row = ty(PM_TYPE_ROW, false);
    add(row, "f0", ty(PM_TYPE_BOOLEAN, true));
    add(row, "f1", ty(PM_TYPE_TINYINT, true));
    add(row, "f2", ty(PM_TYPE_SMALLINT, true));
    add(row, "f3", ty(PM_TYPE_INT, true));
    add(row, "f4", ty(PM_TYPE_BIGINT, true));
    add(row, "f5", ty(PM_TYPE_FLOAT, true));
    add(row, "f6", ty(PM_TYPE_DOUBLE, true));
    add(row, "f7", ty(PM_TYPE_VARCHAR, true));
    add(row, "f8", ty(PM_TYPE_VARBINARY, true));
    add(row, "f10", ty_arr(ty(PM_TYPE_FLOAT, true), true));
    pm_type *f11 = ty(PM_TYPE_ROW, true);
    add(f11, "f0", ty(PM_TYPE_BOOLEAN, true));
    add(f11, "f1", ty(PM_TYPE_BIGINT, true));
    add(row, "f11", f11);
    add(row, "f12", ty_p(PM_TYPE_TIMESTAMP, 6, 0, true));
    add(row, "f13", ty(PM_TYPE_DATE, true));
    add(row, "f14", ty_p(PM_TYPE_DECIMAL, 2, 2, true));
    add(row, "f15", ty_p(PM_TYPE_DECIMAL, 10, 10, true));
    add(row, "f16", ty_p(PM_TYPE_DECIMAL, 19, 19, true));
    pm_buf js = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_avro_schema_json_from_type(row, &js));
    size_t jl;
    char *java = slurp_schema(PM_FIXTURES_DIR "/java-written/avro-format/data/avro_all_types", &jl);
    assert_int_equal(js.len, jl);
    assert_memory_equal(js.data, java, jl);
    free(java);
    ty_free(row);

    /* Manifest entry schema of Paimon 1.1 (avro_manifest_11). */
    row = ty(PM_TYPE_ROW, false);
    add(row, "_VERSION", ty(PM_TYPE_INT, false));
    add(row, "_KIND", ty(PM_TYPE_TINYINT, false));
    add(row, "_PARTITION", ty(PM_TYPE_VARBINARY, false));
    add(row, "_BUCKET", ty(PM_TYPE_INT, false));
    add(row, "_TOTAL_BUCKETS", ty(PM_TYPE_INT, false));
    pm_type *file = ty(PM_TYPE_ROW, false);
    add(file, "_FILE_NAME", ty(PM_TYPE_VARCHAR, false));
    add(file, "_FILE_SIZE", ty(PM_TYPE_BIGINT, false));
    add(file, "_ROW_COUNT", ty(PM_TYPE_BIGINT, false));
    add(file, "_MIN_KEY", ty(PM_TYPE_VARBINARY, false));
    add(file, "_MAX_KEY", ty(PM_TYPE_VARBINARY, false));
    for (int k = 0; k < 2; k++) {
        pm_type *st = ty(PM_TYPE_ROW, false);
        add(st, "_MIN_VALUES", ty(PM_TYPE_VARBINARY, false));
        add(st, "_MAX_VALUES", ty(PM_TYPE_VARBINARY, false));
        add(st, "_NULL_COUNTS", ty_arr(ty(PM_TYPE_BIGINT, true), true));
        add(file, k ? "_VALUE_STATS" : "_KEY_STATS", st);
    }
    add(file, "_MIN_SEQUENCE_NUMBER", ty(PM_TYPE_BIGINT, false));
    add(file, "_MAX_SEQUENCE_NUMBER", ty(PM_TYPE_BIGINT, false));
    add(file, "_SCHEMA_ID", ty(PM_TYPE_BIGINT, false));
    add(file, "_LEVEL", ty(PM_TYPE_INT, false));
    add(file, "_EXTRA_FILES", ty_arr(ty(PM_TYPE_VARCHAR, false), false));
    add(file, "_CREATION_TIME", ty_p(PM_TYPE_TIMESTAMP, 3, 0, true));
    add(file, "_DELETE_ROW_COUNT", ty(PM_TYPE_BIGINT, true));
    add(file, "_EMBEDDED_FILE_INDEX", ty(PM_TYPE_VARBINARY, true));
    add(file, "_FILE_SOURCE", ty(PM_TYPE_TINYINT, true));
    add(file, "_VALUE_STATS_COLS", ty_arr(ty(PM_TYPE_VARCHAR, false), true));
    add(file, "_EXTERNAL_PATH", ty(PM_TYPE_VARCHAR, true));
    add(row, "_FILE", file);
    pm_buf_clear(&js);
    PM_OK_OR_FAIL(pm_avro_schema_json_from_type(row, &js));
    java = slurp_schema(PM_FIXTURES_DIR "/java-written/avro-format/manifest/avro_manifest_11", &jl);
    assert_int_equal(js.len, jl);
    assert_memory_equal(js.data, java, jl);
    free(java);
    ty_free(row);

    /* Maps: string key → avro map; other keys → array of key/value records. */
    row = ty(PM_TYPE_ROW, false);
    add(row, "m1", ty_map(ty(PM_TYPE_VARCHAR, false), ty(PM_TYPE_INT, true), true));
    add(row, "m2", ty_map(ty(PM_TYPE_INT, false), ty(PM_TYPE_VARCHAR, true), false));
    pm_type *ms = ty(PM_TYPE_MULTISET, false);
    ms->element = ty(PM_TYPE_VARCHAR, false);
    add(row, "ms", ms);
    add(row, "t", ty_p(PM_TYPE_TIMESTAMP_LTZ, 3, 0, false));
    add(row, "tm", ty_p(PM_TYPE_TIME, 0, 0, false));
    pm_buf_clear(&js);
    PM_OK_OR_FAIL(pm_avro_schema_json_from_type(row, &js));
    const char *want =
        "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\","
        "\"fields\":[{\"name\":\"m1\",\"type\":[\"null\",{\"type\":\"map\",\"values\":[\"null\",\"int\"]}],"
        "\"default\":null},{\"name\":\"m2\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\","
        "\"name\":\"record_m2\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"},{\"name\":\"value\","
        "\"type\":[\"null\",\"string\"],\"default\":null}]},\"logicalType\":\"map\"}},"
        "{\"name\":\"ms\",\"type\":{\"type\":\"map\",\"values\":[\"null\",\"int\"]}},"
        "{\"name\":\"t\",\"type\":{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}},"
        "{\"name\":\"tm\",\"type\":{\"type\":\"int\",\"logicalType\":\"time-millis\"}}]}";
    assert_int_equal(js.len, strlen(want));
    assert_memory_equal(js.data, want, js.len);
    /* And it parses back with the map logical type recognized. */
    pm_avro_schema *s;
    PM_OK_OR_FAIL(pm_avro_schema_parse((const char *)js.data, js.len, &s));
    assert_int_equal(s->root->fields[1].type->logical, PM_AVRO_LT_MAP);
    pm_avro_schema_free(s);
    ty_free(row);

    /* Unsupported precisions. */
    row = ty(PM_TYPE_ROW, false);
    add(row, "ts", ty_p(PM_TYPE_TIMESTAMP, 9, 0, false));
    pm_buf_clear(&js);
    PM_EXPECT_ERR(pm_avro_schema_json_from_type(row, &js), PM_EUNSUPPORTED);
    ty_free(row);
    pm_buf_free(&js);
}

static const uint8_t SYNC[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* Build a file of `nblocks` blocks of longs; returns the bytes. */
static void build_long_file(pm_codec_id codec, int nblocks, int per_block, pm_buf *out)
{
    const char *schema = "\"long\"";
    const char *cname;
    PM_OK_OR_FAIL(pm_avro_codec_name(codec, &cname));
    PM_OK_OR_FAIL(pm_avro_write_header(out, schema, strlen(schema), cname, SYNC));
    pm_codec_ctx *ctx;
    PM_OK_OR_FAIL(pm_codec_ctx_new(&ctx));
    pm_buf objs = PM_BUF_INIT;
    int64_t v = 0;
    for (int b = 0; b < nblocks; b++) {
        pm_buf_clear(&objs);
        for (int i = 0; i < per_block; i++)
            PM_OK_OR_FAIL(pm_avro_put_long(&objs, v++ * 1000003));
        PM_OK_OR_FAIL(pm_avro_write_block(out, ctx, codec, 0, per_block, objs.data, objs.len, SYNC));
    }
    pm_buf_free(&objs);
    pm_codec_ctx_free(ctx);
}

static void test_container_codecs(void **state)
{
    (void)state;
    const pm_codec_id codecs[] = {PM_CODEC_NONE, PM_CODEC_DEFLATE, PM_CODEC_SNAPPY, PM_CODEC_ZSTD};
    for (size_t k = 0; k < 4; k++) {
        pm_buf file = PM_BUF_INIT;
        build_long_file(codecs[k], 3, 5000, &file);
        pm_avro_file *f;
        PM_OK_OR_FAIL(pm_avro_file_open_memory(file.data, file.len, "t", NULL, &f));
        const char *cname;
        PM_OK_OR_FAIL(pm_avro_codec_name(codecs[k], &cname));
        assert_string_equal(pm_avro_file_codec(f), cname);
        assert_string_equal(pm_avro_file_schema_json(f), "\"long\"");
        int64_t v = 0;
        int blocks = 0;
        for (;;) {
            const uint8_t *d;
            size_t n;
            int64_t cnt;
            PM_OK_OR_FAIL(pm_avro_file_next_block(f, &d, &n, &cnt));
            if (!cnt)
                break;
            assert_int_equal(cnt, 5000);
            pm_cursor c = pm_cursor_make(d, n);
            for (int64_t i = 0; i < cnt; i++) {
                int64_t x;
                PM_OK_OR_FAIL(pm_avro_read_long(&c, &x));
                assert_true(x == v++ * 1000003);
            }
            assert_int_equal(pm_cursor_left(&c), 0);
            blocks++;
        }
        assert_int_equal(blocks, 3);
        pm_avro_file_close(f);

        /* Truncated file: the last block is cut. */
        PM_OK_OR_FAIL(pm_avro_file_open_memory(file.data, file.len - 5, "t", NULL, &f));
        pm_error *e = NULL;
        for (int i = 0; i < 4 && !e; i++) {
            const uint8_t *d;
            size_t n;
            int64_t cnt;
            e = pm_avro_file_next_block(f, &d, &n, &cnt);
        }
        assert_non_null(e);
        assert_int_equal(pm_error_root_code(e), PM_ECORRUPT);
        pm_error_free(e);
        pm_avro_file_close(f);

        /* Broken sync marker after the last block. */
        file.data[file.len - 1] ^= 0xff;
        PM_OK_OR_FAIL(pm_avro_file_open_memory(file.data, file.len, "t", NULL, &f));
        e = NULL;
        for (int i = 0; i < 4 && !e; i++) {
            const uint8_t *d;
            size_t n;
            int64_t cnt;
            e = pm_avro_file_next_block(f, &d, &n, &cnt);
        }
        assert_non_null(e);
        char *msg = pm_error_format(e);
        assert_non_null(strstr(msg, "sync"));
        free(msg);
        pm_error_free(e);
        pm_avro_file_close(f);
        pm_buf_free(&file);
    }

    /* Snappy CRC mismatch: flip a CRC byte (just before the last sync). */
    pm_buf file = PM_BUF_INIT;
    build_long_file(PM_CODEC_SNAPPY, 1, 10, &file);
    file.data[file.len - 17] ^= 0x01;
    pm_avro_file *f;
    PM_OK_OR_FAIL(pm_avro_file_open_memory(file.data, file.len, "t", NULL, &f));
    const uint8_t *d;
    size_t n;
    int64_t cnt;
    pm_error *e = pm_avro_file_next_block(f, &d, &n, &cnt);
    assert_non_null(e);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "CRC"));
    free(msg);
    pm_error_free(e);
    pm_avro_file_close(f);
    pm_buf_free(&file);

    /* Header errors: bad magic, missing schema, unsupported codec. */
    PM_EXPECT_ERR(pm_avro_file_open_memory((const uint8_t *)"Obj\x02", 4, "t", NULL, &f), PM_ECORRUPT);
    pm_buf h = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_buf_append(&h, "Obj\x01\x02", 5));
    PM_OK_OR_FAIL(pm_avro_put_bytes(&h, "avro.codec", 10));
    PM_OK_OR_FAIL(pm_avro_put_bytes(&h, "null", 4));
    PM_OK_OR_FAIL(pm_buf_append(&h, "\x00", 1));
    PM_OK_OR_FAIL(pm_buf_append(&h, SYNC, 16));
    PM_EXPECT_ERR(pm_avro_file_open_memory(h.data, h.len, "t", NULL, &f), PM_ECORRUPT);
    pm_buf_clear(&h);
    PM_OK_OR_FAIL(pm_avro_write_header(&h, "\"int\"", 5, "bzip2", SYNC));
    PM_EXPECT_ERR(pm_avro_file_open_memory(h.data, h.len, "t", NULL, &f), PM_EUNSUPPORTED);
    /* Header bigger than the first read window, from a real file input. */
    pm_buf_clear(&h);
    pm_buf big = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_buf_append_str(&big, "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"S0\""));
    for (int i = 1; i < 3000; i++)
        PM_OK_OR_FAIL(pm_buf_printf(&big, ",\"S%d\"", i));
    PM_OK_OR_FAIL(pm_buf_append_str(&big, "]}"));
    PM_OK_OR_FAIL(pm_avro_write_header(&h, (const char *)big.data, big.len, "null", SYNC));
    PM_OK_OR_FAIL(pm_avro_write_block(&h, NULL, PM_CODEC_NONE, 0, 1, (const uint8_t *)"\x04", 1, SYNC));
    char *dir = pm_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/big.avro", dir);
    FILE *fp = fopen(path, "wb");
    fwrite(h.data, 1, h.len, fp);
    fclose(fp);
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_input *in;
    PM_OK_OR_FAIL(pm_input_open(fio, path, &in));
    PM_OK_OR_FAIL(pm_avro_file_open(in, NULL, &f));
    assert_int_equal(pm_avro_file_schema(f)->root->n, 3000);
    PM_OK_OR_FAIL(pm_avro_file_next_block(f, &d, &n, &cnt));
    assert_int_equal(cnt, 1);
    assert_int_equal(n, 1);
    assert_int_equal(d[0], 4);
    PM_OK_OR_FAIL(pm_avro_file_next_block(f, &d, &n, &cnt));
    assert_int_equal(cnt, 0);
    pm_avro_file_close(f);
    pm_input_close(in);
    pm_fileio_free(fio);
    pm_test_rmtree(dir);
    free(dir);
    pm_buf_free(&big);
    pm_buf_free(&h);
}

static void test_block_count_bounds(void **state)
{
    (void)state;
    /* A block claiming 1000 longs in 3 bytes is refused before decoding. */
    pm_buf file = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_avro_write_header(&file, "\"long\"", 6, "null", SYNC));
    PM_OK_OR_FAIL(pm_avro_write_block(&file, NULL, PM_CODEC_NONE, 0, 1000, (const uint8_t *)"\x02\x04\x06", 3, SYNC));
    pm_avro_file *f;
    PM_OK_OR_FAIL(pm_avro_file_open_memory(file.data, file.len, "t", NULL, &f));
    const uint8_t *d;
    size_t n;
    int64_t cnt;
    PM_EXPECT_ERR(pm_avro_file_next_block(f, &d, &n, &cnt), PM_ECORRUPT);
    pm_avro_file_close(f);
    pm_buf_free(&file);

    /* Array block counts: more items than bytes. */
    const uint8_t arr[] = {0x7e /* 63 items */, 0x02, 0x04};
    const char *js = "{\"type\":\"array\",\"items\":\"long\"}";
    pm_avro_schema *s;
    PM_OK_OR_FAIL(pm_avro_schema_parse(js, strlen(js), &s));
    pm_cursor c = pm_cursor_make(arr, sizeof arr);
    PM_EXPECT_ERR(pm_avro_skip(&c, s->root, 0), PM_ECORRUPT);
    pm_avro_schema_free(s);

    /* Zero-byte items: a few bytes must not claim unbounded items. */
    js = "{\"type\":\"array\",\"items\":\"null\"}";
    PM_OK_OR_FAIL(pm_avro_schema_parse(js, strlen(js), &s));
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_avro_put_long(&b, 1000));
    PM_OK_OR_FAIL(pm_avro_put_long(&b, 0));
    c = pm_cursor_make(b.data, b.len);
    PM_OK_OR_FAIL(pm_avro_skip(&c, s->root, 0)); /* a modest count is fine */
    assert_int_equal(pm_cursor_left(&c), 0);
    pm_buf_clear(&b);
    for (int i = 0; i < 3; i++)
        PM_OK_OR_FAIL(pm_avro_put_long(&b, PM_AVRO_MAX_EMPTY_ITEMS / 2 + 1));
    PM_OK_OR_FAIL(pm_avro_put_long(&b, 0));
    c = pm_cursor_make(b.data, b.len);
    PM_EXPECT_ERR(pm_avro_skip(&c, s->root, 0), PM_ECORRUPT);
    pm_buf_free(&b);
    pm_avro_schema_free(s);
}

/* Skip values of every shape, including blocks with byte sizes. */
static void test_skip(void **state)
{
    (void)state;
    const char *js =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
        "{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"map\",\"values\":"
        "  {\"type\":\"record\",\"name\":\"In\",\"fields\":[{\"name\":\"x\",\"type\":[\"null\",\"double\"]},"
        "  {\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"F3\",\"size\":3}}]}}}},"
        "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}},"
        "{\"name\":\"b\",\"type\":\"boolean\"},{\"name\":\"fl\",\"type\":\"float\"},"
        "{\"name\":\"s\",\"type\":\"string\"},{\"name\":\"n\",\"type\":\"null\"}]}";
    pm_avro_schema *s;
    PM_OK_OR_FAIL(pm_avro_schema_parse(js, strlen(js), &s));
    pm_buf b = PM_BUF_INIT;
    /* a: 2 blocks — a plain one with 1 map, a sized one (negative count) with 1 map. */
    PM_OK_OR_FAIL(pm_avro_put_long(&b, 1));
    {   /* map with 2 entries */
        PM_OK_OR_FAIL(pm_avro_put_long(&b, 2));
        PM_OK_OR_FAIL(pm_avro_put_bytes(&b, "k1", 2));
        PM_OK_OR_FAIL(pm_avro_put_long(&b, 1));
        PM_OK_OR_FAIL(pm_avro_put_double(&b, 3.5));
        PM_OK_OR_FAIL(pm_buf_append(&b, "xyz", 3));
        PM_OK_OR_FAIL(pm_avro_put_bytes(&b, "k2", 2));
        PM_OK_OR_FAIL(pm_avro_put_long(&b, 0));
        PM_OK_OR_FAIL(pm_buf_append(&b, "uvw", 3));
        PM_OK_OR_FAIL(pm_avro_put_long(&b, 0));
    }
    pm_buf inner = PM_BUF_INIT; /* one empty map */
    PM_OK_OR_FAIL(pm_avro_put_long(&inner, 0));
    PM_OK_OR_FAIL(pm_avro_put_long(&b, -1));
    PM_OK_OR_FAIL(pm_avro_put_long(&b, (int64_t)inner.len));
    PM_OK_OR_FAIL(pm_buf_append(&b, inner.data, inner.len));
    PM_OK_OR_FAIL(pm_avro_put_long(&b, 0));
    PM_OK_OR_FAIL(pm_avro_put_long(&b, 1));        /* enum B */
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 1));      /* boolean */
    PM_OK_OR_FAIL(pm_avro_put_float(&b, 2.0f));
    PM_OK_OR_FAIL(pm_avro_put_bytes(&b, "hello", 5));
    PM_OK_OR_FAIL(pm_buf_append(&b, "TAIL", 4));
    pm_cursor c = pm_cursor_make(b.data, b.len);
    PM_OK_OR_FAIL(pm_avro_skip(&c, s->root, 0));
    assert_int_equal(pm_cursor_left(&c), 4);
    assert_memory_equal(c.p, "TAIL", 4);
    /* Every strict prefix fails cleanly. */
    for (size_t cut = 0; cut < b.len - 4; cut++) {
        c = pm_cursor_make(b.data, cut);
        pm_error *e = pm_avro_skip(&c, s->root, 0);
        assert_non_null(e);
        pm_error_free(e);
    }
    pm_buf_free(&inner);
    pm_buf_free(&b);
    pm_avro_schema_free(s);
}

/* Every Avro file Java wrote: framing parses, every object skips exactly. */
static int fixture_files;
static int64_t fixture_objects;

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(path);
            continue;
        }
        size_t n;
        uint8_t *data = pm_test_read_file(path, &n);
        if (!data || n < 4 || memcmp(data, "Obj\x01", 4) != 0) {
            free(data);
            continue;
        }
        pm_avro_file *f;
        PM_OK_OR_FAIL(pm_avro_file_open_memory(data, n, path, NULL, &f));
        const pm_avro_node *root = pm_avro_file_schema(f)->root;
        for (;;) {
            const uint8_t *b;
            size_t bl;
            int64_t cnt;
            PM_OK_OR_FAIL(pm_avro_file_next_block(f, &b, &bl, &cnt));
            if (!cnt)
                break;
            pm_cursor c = pm_cursor_make(b, bl);
            for (int64_t i = 0; i < cnt; i++)
                PM_OK_OR_FAIL(pm_avro_skip(&c, root, 0));
            assert_int_equal(pm_cursor_left(&c), 0);
            fixture_objects += cnt;
        }
        fixture_files++;
        pm_avro_file_close(f);
        free(data);
    }
    closedir(d);
}

static void test_java_fixtures_framing(void **state)
{
    (void)state;
    walk(PM_FIXTURES_DIR "/java-written");
    assert_true(fixture_files >= 250);
    assert_true(fixture_objects > fixture_files);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_schema_parse),
        cmocka_unit_test(test_schema_from_type_matches_java),
        cmocka_unit_test(test_container_codecs),
        cmocka_unit_test(test_block_count_bounds),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_java_fixtures_framing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
