/*
 * format/parquet/parquet_meta.c — parse and serialize Parquet's FileMetaData
 * (the footer) and PageHeader, thrift compact protocol (see parquet_meta.h
 * for the structures and thrift.h for the wire format).
 *
 * Parsing: one function per thrift struct.  Each walks its field headers;
 * known ids with the expected wire type fill the struct, unknown ids (newer
 * parquet-format fields such as SizeStatistics or encryption metadata) are
 * skipped.  A bitmask of the fields seen checks that the required fields the
 * readers rely on are present.  Lists are allocated from the footer's arena
 * only after their element count was checked against the bytes left.
 * Schema element names must be UTF-8 without NUL bytes (they reach error
 * messages); a footer with another name is PM_ECORRUPT.
 *
 * Serializing: fields in increasing id order, optional ones only when their
 * `has_` flag (or non-NULL pointer / non-zero count) says so, which is what
 * parquet-java, Arrow and the thrift-generated code expect.
 */
#include "format/parquet/parquet_meta.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/utf8.h"
#include "format/parquet/pq_write_index.h"
#include "format/parquet/thrift.h"

/* ------------------------------------------------------------------ */
/* Parsing helpers                                                     */
/* ------------------------------------------------------------------ */

#define SEEN(id) (1ull << (id))

static pm_error *missing(const char *strct, const char *field)
{
    return pm_error_new(PM_ECORRUPT, "thrift %s is missing required field %s", strct, field);
}

static pm_error *read_i32_field(pq_thrift_reader *r, uint8_t t, int32_t *out, const char *what)
{
    int64_t v;
    PM_TRY(pq_thrift_int_any(r, t, &v, what));
    if (v < INT32_MIN || v > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "thrift field %s out of i32 range", what);
    *out = (int32_t)v;
    return NULL;
}

static pm_error *read_i64_field(pq_thrift_reader *r, uint8_t t, int64_t *out, const char *what)
{
    return pq_thrift_int_any(r, t, out, what);
}

/* Binary field: copied into the arena (NUL-terminated) or borrowed when a == NULL. */
static pm_error *read_bytes_field(pq_thrift_reader *r, pm_arena *a, uint8_t t, const uint8_t **out,
                                  uint32_t *len, const char *what)
{
    PM_TRY(pq_thrift_expect(t, PQ_TT_BINARY, what));
    const uint8_t *p = NULL;
    uint32_t n;
    PM_TRY(pq_thrift_binary(r, &p, &n));
    if (a) {
        char *s = pm_arena_strndup(a, (const char *)p, n);
        if (!s)
            return pm_oom();
        p = (const uint8_t *)s;
    }
    *out = p;
    if (len)
        *len = n;
    return NULL;
}

static pm_error *read_string_field(pq_thrift_reader *r, pm_arena *a, uint8_t t, const char **out,
                                   const char *what)
{
    const uint8_t *p = NULL;
    PM_TRY(read_bytes_field(r, a, t, &p, NULL, what));
    *out = (const char *)p;
    return NULL;
}

/* A name (schema element): thrift strings are UTF-8, and names appear in
 * messages, so anything else is a corrupt footer. */
static pm_error *read_name_field(pq_thrift_reader *r, pm_arena *a, uint8_t t, const char **out, const char *what)
{
    const uint8_t *p = NULL;
    uint32_t n = 0;
    PM_TRY(read_bytes_field(r, a, t, &p, &n, what));
    if (!pm_utf8_valid(p, n) || memchr(p, 0, n))
        return pm_error_new(PM_ECORRUPT, "thrift field %s is not a UTF-8 name", what);
    *out = (const char *)p;
    return NULL;
}

/* List header expecting elements of `want`; allocates count * size from a. */
static pm_error *read_list_alloc(pq_thrift_reader *r, pm_arena *a, uint8_t t, uint8_t want, size_t size,
                                 void **items, uint32_t *count, const char *what)
{
    uint32_t n;
    PM_TRY(pq_thrift_list_of(r, t, want, &n, what));
    *items = NULL;
    if (n) {
        *items = pm_arena_calloc(a, (size_t)n * size, 8);
        if (!*items)
            return pm_oom();
    }
    *count = n;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Struct parsers                                                      */
/* ------------------------------------------------------------------ */

static pm_error *parse_time_unit(pq_thrift_reader *r, pq_time_unit *unit)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    bool got = false;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id >= 1 && id <= 3 && t == PQ_TT_STRUCT) {
            *unit = (pq_time_unit)id;
            got = true;
        }
        PM_TRY(pq_thrift_skip(r, t));
    }
    pq_thrift_struct_leave(r);
    if (!got)
        return pm_error_new(PM_ECORRUPT, "thrift TimeUnit has no known unit");
    return NULL;
}

/* TimeType / TimestampType: 1 isAdjustedToUTC, 2 unit. */
static pm_error *parse_time_type(pq_thrift_reader *r, pq_logical_type *lt)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id == 1 && (t == PQ_TT_BOOL_TRUE || t == PQ_TT_BOOL_FALSE)) {
            lt->is_adjusted_to_utc = t == PQ_TT_BOOL_TRUE;
            seen |= SEEN(1);
        } else if (id == 2 && t == PQ_TT_STRUCT) {
            PM_TRY(parse_time_unit(r, &lt->unit));
            seen |= SEEN(2);
        } else {
            PM_TRY(pq_thrift_skip(r, t));
        }
    }
    pq_thrift_struct_leave(r);
    if ((seen & (SEEN(1) | SEEN(2))) != (SEEN(1) | SEEN(2)))
        return missing("TimeType/TimestampType", "isAdjustedToUTC or unit");
    return NULL;
}

static pm_error *parse_decimal_type(pq_thrift_reader *r, pq_logical_type *lt)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id == 1) {
            PM_TRY(read_i32_field(r, t, &lt->decimal_scale, "DecimalType.scale"));
            seen |= SEEN(1);
        } else if (id == 2) {
            PM_TRY(read_i32_field(r, t, &lt->decimal_precision, "DecimalType.precision"));
            seen |= SEEN(2);
        } else {
            PM_TRY(pq_thrift_skip(r, t));
        }
    }
    pq_thrift_struct_leave(r);
    if ((seen & (SEEN(1) | SEEN(2))) != (SEEN(1) | SEEN(2)))
        return missing("DecimalType", "scale or precision");
    return NULL;
}

static pm_error *parse_int_type(pq_thrift_reader *r, pq_logical_type *lt)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id == 1) {
            int64_t v;
            PM_TRY(pq_thrift_int_any(r, t, &v, "IntType.bitWidth"));
            if (v < INT8_MIN || v > INT8_MAX)
                return pm_error_new(PM_ECORRUPT, "IntType.bitWidth %lld out of range", (long long)v);
            lt->int_bit_width = (int8_t)v;
            seen |= SEEN(1);
        } else if (id == 2) {
            PM_TRY(pq_thrift_field_bool(t, &lt->int_is_signed, "IntType.isSigned"));
            seen |= SEEN(2);
        } else {
            PM_TRY(pq_thrift_skip(r, t));
        }
    }
    pq_thrift_struct_leave(r);
    if ((seen & (SEEN(1) | SEEN(2))) != (SEEN(1) | SEEN(2)))
        return missing("IntType", "bitWidth or isSigned");
    return NULL;
}

/* union LogicalType: exactly one member set; unknown members keep their id
 * as the kind so the schema converter can name them. */
static pm_error *parse_logical_type(pq_thrift_reader *r, pq_logical_type *lt)
{
    memset(lt, 0, sizeof *lt);
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (t != PQ_TT_STRUCT || id <= 0) {
            PM_TRY(pq_thrift_skip(r, t));
            continue;
        }
        lt->kind = (pq_logical_kind)id;
        switch (id) {
        case PQ_LT_DECIMAL:
            PM_TRY(parse_decimal_type(r, lt));
            break;
        case PQ_LT_TIME:
        case PQ_LT_TIMESTAMP:
            PM_TRY(parse_time_type(r, lt));
            break;
        case PQ_LT_INTEGER:
            PM_TRY(parse_int_type(r, lt));
            break;
        default:
            PM_TRY(pq_thrift_skip(r, t));
            break;
        }
    }
    pq_thrift_struct_leave(r);
    return NULL;
}

static pm_error *parse_schema_element(pq_thrift_reader *r, pm_arena *a, pq_schema_element *e)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &e->type, "SchemaElement.type")); e->has_type = true; break;
        case 2: PM_TRY(read_i32_field(r, t, &e->type_length, "SchemaElement.type_length")); e->has_type_length = true; break;
        case 3: PM_TRY(read_i32_field(r, t, &e->repetition, "SchemaElement.repetition_type")); e->has_repetition = true; break;
        case 4: PM_TRY(read_name_field(r, a, t, &e->name, "SchemaElement.name")); break;
        case 5: PM_TRY(read_i32_field(r, t, &e->num_children, "SchemaElement.num_children")); e->has_num_children = true; break;
        case 6: PM_TRY(read_i32_field(r, t, &e->converted_type, "SchemaElement.converted_type")); e->has_converted_type = true; break;
        case 7: PM_TRY(read_i32_field(r, t, &e->scale, "SchemaElement.scale")); e->has_scale = true; break;
        case 8: PM_TRY(read_i32_field(r, t, &e->precision, "SchemaElement.precision")); e->has_precision = true; break;
        case 9: PM_TRY(read_i32_field(r, t, &e->field_id, "SchemaElement.field_id")); e->has_field_id = true; break;
        case 10:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "SchemaElement.logicalType"));
            PM_TRY(parse_logical_type(r, &e->logical_type));
            e->has_logical_type = true;
            break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    if (!e->name)
        return missing("SchemaElement", "name");
    return NULL;
}

/* Statistics; a == NULL borrows the byte ranges from the input. */
static pm_error *parse_statistics(pq_thrift_reader *r, pm_arena *a, pq_statistics *s)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        switch (id) {
        case 1: PM_TRY(read_bytes_field(r, a, t, &s->max, &s->max_len, "Statistics.max")); s->has_max = true; break;
        case 2: PM_TRY(read_bytes_field(r, a, t, &s->min, &s->min_len, "Statistics.min")); s->has_min = true; break;
        case 3: PM_TRY(read_i64_field(r, t, &s->null_count, "Statistics.null_count")); s->has_null_count = true; break;
        case 4: PM_TRY(read_i64_field(r, t, &s->distinct_count, "Statistics.distinct_count")); s->has_distinct_count = true; break;
        case 5: PM_TRY(read_bytes_field(r, a, t, &s->max_value, &s->max_value_len, "Statistics.max_value")); s->has_max_value = true; break;
        case 6: PM_TRY(read_bytes_field(r, a, t, &s->min_value, &s->min_value_len, "Statistics.min_value")); s->has_min_value = true; break;
        case 7: PM_TRY(pq_thrift_field_bool(t, &s->is_max_value_exact, "Statistics.is_max_value_exact")); s->has_is_max_value_exact = true; break;
        case 8: PM_TRY(pq_thrift_field_bool(t, &s->is_min_value_exact, "Statistics.is_min_value_exact")); s->has_is_min_value_exact = true; break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    return NULL;
}

static pm_error *parse_key_value(pq_thrift_reader *r, pm_arena *a, pq_key_value *kv)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id == 1)
            PM_TRY(read_string_field(r, a, t, &kv->key, "KeyValue.key"));
        else if (id == 2)
            PM_TRY(read_string_field(r, a, t, &kv->value, "KeyValue.value"));
        else
            PM_TRY(pq_thrift_skip(r, t));
    }
    pq_thrift_struct_leave(r);
    if (!kv->key)
        return missing("KeyValue", "key");
    return NULL;
}

static pm_error *parse_key_values(pq_thrift_reader *r, pm_arena *a, uint8_t t, pq_key_value **out,
                                  uint32_t *count, const char *what)
{
    void *items = NULL;
    PM_TRY(read_list_alloc(r, a, t, PQ_TT_STRUCT, sizeof(pq_key_value), &items, count, what));
    *out = items;
    PM_TRY(pq_thrift_struct_enter(r));
    for (uint32_t i = 0; i < *count; i++)
        PM_TRY(parse_key_value(r, a, &(*out)[i]));
    pq_thrift_struct_leave(r);
    return NULL;
}

static pm_error *parse_encoding_stats(pq_thrift_reader *r, pq_page_encoding_stats *s)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &s->page_type, "PageEncodingStats.page_type")); break;
        case 2: PM_TRY(read_i32_field(r, t, &s->encoding, "PageEncodingStats.encoding")); break;
        case 3: PM_TRY(read_i32_field(r, t, &s->count, "PageEncodingStats.count")); break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    return NULL;
}

static pm_error *parse_i64_list(pq_thrift_reader *r, pm_arena *a, uint8_t t, int64_t **out, uint32_t *n,
                                const char *what)
{
    void *items = NULL;
    PM_TRY(read_list_alloc(r, a, t, PQ_TT_I64, sizeof(int64_t), &items, n, what));
    *out = items;
    for (uint32_t i = 0; i < *n; i++)
        PM_TRY(pq_thrift_i64(r, &(*out)[i]));
    return NULL;
}

static pm_error *parse_size_statistics(pq_thrift_reader *r, pm_arena *a, pq_size_statistics *s)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        switch (id) {
        case 1:
            PM_TRY(read_i64_field(r, t, &s->unencoded_byte_array_data_bytes,
                                  "SizeStatistics.unencoded_byte_array_data_bytes"));
            s->has_unencoded_byte_array_data_bytes = true;
            break;
        case 2:
            PM_TRY(parse_i64_list(r, a, t, &s->repetition_level_histogram, &s->num_repetition_level_histogram,
                                  "SizeStatistics.repetition_level_histogram"));
            break;
        case 3:
            PM_TRY(parse_i64_list(r, a, t, &s->definition_level_histogram, &s->num_definition_level_histogram,
                                  "SizeStatistics.definition_level_histogram"));
            break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    return NULL;
}

static pm_error *parse_column_meta(pq_thrift_reader *r, pm_arena *a, pq_column_meta *m)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id > 0 && id < 64)
            seen |= SEEN(id);
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &m->type, "ColumnMetaData.type")); break;
        case 2: {
            void *items = NULL;
            PM_TRY(read_list_alloc(r, a, t, PQ_TT_I32, sizeof(int32_t), &items, &m->num_encodings,
                                   "ColumnMetaData.encodings"));
            m->encodings = items;
            for (uint32_t i = 0; i < m->num_encodings; i++)
                PM_TRY(pq_thrift_i32(r, &m->encodings[i]));
            break;
        }
        case 3: {
            void *items = NULL;
            PM_TRY(read_list_alloc(r, a, t, PQ_TT_BINARY, sizeof(char *), &items, &m->path_len,
                                   "ColumnMetaData.path_in_schema"));
            m->path_in_schema = items;
            for (uint32_t i = 0; i < m->path_len; i++) {
                const uint8_t *p = NULL;
                uint32_t n;
                PM_TRY(pq_thrift_binary(r, &p, &n));
                m->path_in_schema[i] = pm_arena_strndup(a, (const char *)p, n);
                if (!m->path_in_schema[i])
                    return pm_oom();
            }
            break;
        }
        case 4: PM_TRY(read_i32_field(r, t, &m->codec, "ColumnMetaData.codec")); break;
        case 5: PM_TRY(read_i64_field(r, t, &m->num_values, "ColumnMetaData.num_values")); break;
        case 6: PM_TRY(read_i64_field(r, t, &m->total_uncompressed_size, "ColumnMetaData.total_uncompressed_size")); break;
        case 7: PM_TRY(read_i64_field(r, t, &m->total_compressed_size, "ColumnMetaData.total_compressed_size")); break;
        case 8:
            PM_TRY(parse_key_values(r, a, t, &m->key_value_metadata, &m->num_key_value_metadata,
                                    "ColumnMetaData.key_value_metadata"));
            break;
        case 9: PM_TRY(read_i64_field(r, t, &m->data_page_offset, "ColumnMetaData.data_page_offset")); break;
        case 10: PM_TRY(read_i64_field(r, t, &m->index_page_offset, "ColumnMetaData.index_page_offset")); m->has_index_page_offset = true; break;
        case 11: PM_TRY(read_i64_field(r, t, &m->dictionary_page_offset, "ColumnMetaData.dictionary_page_offset")); m->has_dictionary_page_offset = true; break;
        case 12:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "ColumnMetaData.statistics"));
            PM_TRY(parse_statistics(r, a, &m->statistics));
            m->has_statistics = true;
            break;
        case 13: {
            void *items = NULL;
            PM_TRY(read_list_alloc(r, a, t, PQ_TT_STRUCT, sizeof(pq_page_encoding_stats), &items,
                                   &m->num_encoding_stats, "ColumnMetaData.encoding_stats"));
            m->encoding_stats = items;
            PM_TRY(pq_thrift_struct_enter(r));
            for (uint32_t i = 0; i < m->num_encoding_stats; i++)
                PM_TRY(parse_encoding_stats(r, &m->encoding_stats[i]));
            pq_thrift_struct_leave(r);
            break;
        }
        case 14: PM_TRY(read_i64_field(r, t, &m->bloom_filter_offset, "ColumnMetaData.bloom_filter_offset")); m->has_bloom_filter_offset = true; break;
        case 15: PM_TRY(read_i32_field(r, t, &m->bloom_filter_length, "ColumnMetaData.bloom_filter_length")); m->has_bloom_filter_length = true; break;
        case 16:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "ColumnMetaData.size_statistics"));
            PM_TRY(parse_size_statistics(r, a, &m->size_statistics));
            m->has_size_statistics = true;
            break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    static const int req[] = {1, 2, 3, 4, 5, 6, 7, 9};
    static const char *const req_names[] = {"type", "encodings", "path_in_schema", "codec", "num_values",
                                            "total_uncompressed_size", "total_compressed_size",
                                            "data_page_offset"};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
        if (!(seen & SEEN(req[i])))
            return missing("ColumnMetaData", req_names[i]);
    return NULL;
}

static pm_error *parse_column_chunk(pq_thrift_reader *r, pm_arena *a, pq_column_chunk *c)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        switch (id) {
        case 1: PM_TRY(read_string_field(r, a, t, &c->file_path, "ColumnChunk.file_path")); break;
        case 2: PM_TRY(read_i64_field(r, t, &c->file_offset, "ColumnChunk.file_offset")); break;
        case 3:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "ColumnChunk.meta_data"));
            PM_TRY(parse_column_meta(r, a, &c->meta_data));
            c->has_meta_data = true;
            break;
        case 4: PM_TRY(read_i64_field(r, t, &c->offset_index_offset, "ColumnChunk.offset_index_offset")); c->has_offset_index = true; break;
        case 5: PM_TRY(read_i32_field(r, t, &c->offset_index_length, "ColumnChunk.offset_index_length")); break;
        case 6: PM_TRY(read_i64_field(r, t, &c->column_index_offset, "ColumnChunk.column_index_offset")); c->has_column_index = true; break;
        case 7: PM_TRY(read_i32_field(r, t, &c->column_index_length, "ColumnChunk.column_index_length")); break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    return NULL;
}

static pm_error *parse_sorting_column(pq_thrift_reader *r, pq_sorting_column *s)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &s->column_idx, "SortingColumn.column_idx")); break;
        case 2: PM_TRY(pq_thrift_field_bool(t, &s->descending, "SortingColumn.descending")); break;
        case 3: PM_TRY(pq_thrift_field_bool(t, &s->nulls_first, "SortingColumn.nulls_first")); break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    return NULL;
}

static pm_error *parse_row_group(pq_thrift_reader *r, pm_arena *a, pq_row_group *g)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id > 0 && id < 64)
            seen |= SEEN(id);
        switch (id) {
        case 1: {
            void *items = NULL;
            PM_TRY(read_list_alloc(r, a, t, PQ_TT_STRUCT, sizeof(pq_column_chunk), &items, &g->num_columns,
                                   "RowGroup.columns"));
            g->columns = items;
            PM_TRY(pq_thrift_struct_enter(r));
            for (uint32_t i = 0; i < g->num_columns; i++)
                PM_TRY(pm_error_wrap(parse_column_chunk(r, a, &g->columns[i]), 0, "column chunk %u", i));
            pq_thrift_struct_leave(r);
            break;
        }
        case 2: PM_TRY(read_i64_field(r, t, &g->total_byte_size, "RowGroup.total_byte_size")); break;
        case 3: PM_TRY(read_i64_field(r, t, &g->num_rows, "RowGroup.num_rows")); break;
        case 4: {
            void *items = NULL;
            PM_TRY(read_list_alloc(r, a, t, PQ_TT_STRUCT, sizeof(pq_sorting_column), &items,
                                   &g->num_sorting_columns, "RowGroup.sorting_columns"));
            g->sorting_columns = items;
            PM_TRY(pq_thrift_struct_enter(r));
            for (uint32_t i = 0; i < g->num_sorting_columns; i++)
                PM_TRY(parse_sorting_column(r, &g->sorting_columns[i]));
            pq_thrift_struct_leave(r);
            break;
        }
        case 5: PM_TRY(read_i64_field(r, t, &g->file_offset, "RowGroup.file_offset")); g->has_file_offset = true; break;
        case 6: PM_TRY(read_i64_field(r, t, &g->total_compressed_size, "RowGroup.total_compressed_size")); g->has_total_compressed_size = true; break;
        case 7: {
            int64_t v;
            PM_TRY(pq_thrift_int_any(r, t, &v, "RowGroup.ordinal"));
            if (v < INT16_MIN || v > INT16_MAX)
                return pm_error_new(PM_ECORRUPT, "RowGroup.ordinal out of i16 range");
            g->ordinal = (int16_t)v;
            g->has_ordinal = true;
            break;
        }
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    if (!(seen & SEEN(1)))
        return missing("RowGroup", "columns");
    if (!(seen & SEEN(3)))
        return missing("RowGroup", "num_rows");
    return NULL;
}

static pm_error *parse_file_meta(pq_thrift_reader *r, pm_pq_file_meta *m)
{
    pm_arena *a = &m->arena;
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id > 0 && id < 64)
            seen |= SEEN(id);
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &m->version, "FileMetaData.version")); break;
        case 2: {
            void *items = NULL;
            PM_TRY(read_list_alloc(r, a, t, PQ_TT_STRUCT, sizeof(pq_schema_element), &items, &m->num_schema,
                                   "FileMetaData.schema"));
            m->schema = items;
            PM_TRY(pq_thrift_struct_enter(r));
            for (uint32_t i = 0; i < m->num_schema; i++)
                PM_TRY(pm_error_wrap(parse_schema_element(r, a, &m->schema[i]), 0, "schema element %u", i));
            pq_thrift_struct_leave(r);
            break;
        }
        case 3: PM_TRY(read_i64_field(r, t, &m->num_rows, "FileMetaData.num_rows")); break;
        case 4: {
            void *items = NULL;
            PM_TRY(read_list_alloc(r, a, t, PQ_TT_STRUCT, sizeof(pq_row_group), &items, &m->num_row_groups,
                                   "FileMetaData.row_groups"));
            m->row_groups = items;
            PM_TRY(pq_thrift_struct_enter(r));
            for (uint32_t i = 0; i < m->num_row_groups; i++)
                PM_TRY(pm_error_wrap(parse_row_group(r, a, &m->row_groups[i]), 0, "row group %u", i));
            pq_thrift_struct_leave(r);
            break;
        }
        case 5:
            PM_TRY(parse_key_values(r, a, t, &m->key_value_metadata, &m->num_key_value_metadata,
                                    "FileMetaData.key_value_metadata"));
            break;
        case 6: PM_TRY(read_string_field(r, a, t, &m->created_by, "FileMetaData.created_by")); break;
        case 7: {
            PM_TRY(pq_thrift_expect(t, PQ_TT_LIST, "FileMetaData.column_orders"));
            uint8_t et;
            uint32_t n;
            PM_TRY(pq_thrift_list(r, &et, &n));
            PM_TRY(pq_thrift_struct_enter(r));
            for (uint32_t i = 0; i < n; i++)
                PM_TRY(pq_thrift_skip(r, et));
            pq_thrift_struct_leave(r);
            m->has_column_orders = true;
            m->num_column_orders = n;
            break;
        }
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    if (!(seen & SEEN(2)))
        return missing("FileMetaData", "schema");
    if (!(seen & SEEN(3)))
        return missing("FileMetaData", "num_rows");
    if (!(seen & SEEN(4)))
        return missing("FileMetaData", "row_groups");
    return NULL;
}

pm_error *pm_pq_file_meta_new(pm_pq_file_meta **out)
{
    pm_pq_file_meta *m;
    PM_TRY(pm_calloc(&m, 1, sizeof *m));
    pm_arena_init(&m->arena, 0);
    m->version = 1;
    *out = m;
    return NULL;
}

void pm_pq_file_meta_free(pm_pq_file_meta *m)
{
    if (!m)
        return;
    pm_arena_free(&m->arena);
    free(m);
}

pm_error *pm_pq_file_meta_parse(pm_pq_file_meta **out, const uint8_t *data, size_t len)
{
    *out = NULL;
    pm_pq_file_meta *m;
    PM_TRY(pm_pq_file_meta_new(&m));
    m->version = 0;
    pq_thrift_reader r;
    pq_thrift_reader_init(&r, data, len);
    pm_error *e = parse_file_meta(&r, m);
    if (e) {
        pm_pq_file_meta_free(m);
        return pm_error_wrap(e, 0, "parquet footer");
    }
    *out = m;
    return NULL;
}

/* ---- page headers ---- */

static pm_error *parse_data_page_header(pq_thrift_reader *r, pq_data_page_header *h)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id > 0 && id < 64)
            seen |= SEEN(id);
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &h->num_values, "DataPageHeader.num_values")); break;
        case 2: PM_TRY(read_i32_field(r, t, &h->encoding, "DataPageHeader.encoding")); break;
        case 3: PM_TRY(read_i32_field(r, t, &h->definition_level_encoding, "DataPageHeader.definition_level_encoding")); break;
        case 4: PM_TRY(read_i32_field(r, t, &h->repetition_level_encoding, "DataPageHeader.repetition_level_encoding")); break;
        case 5:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "DataPageHeader.statistics"));
            PM_TRY(parse_statistics(r, NULL, &h->statistics));
            h->has_statistics = true;
            break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    uint64_t req = SEEN(1) | SEEN(2) | SEEN(3) | SEEN(4);
    if ((seen & req) != req)
        return missing("DataPageHeader", "num_values, encoding or level encodings");
    return NULL;
}

static pm_error *parse_dictionary_page_header(pq_thrift_reader *r, pq_dictionary_page_header *h)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id > 0 && id < 64)
            seen |= SEEN(id);
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &h->num_values, "DictionaryPageHeader.num_values")); break;
        case 2: PM_TRY(read_i32_field(r, t, &h->encoding, "DictionaryPageHeader.encoding")); break;
        case 3: PM_TRY(pq_thrift_field_bool(t, &h->is_sorted, "DictionaryPageHeader.is_sorted")); h->has_is_sorted = true; break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    if ((seen & (SEEN(1) | SEEN(2))) != (SEEN(1) | SEEN(2)))
        return missing("DictionaryPageHeader", "num_values or encoding");
    return NULL;
}

static pm_error *parse_data_page_header_v2(pq_thrift_reader *r, pq_data_page_header_v2 *h)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    h->is_compressed = true;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id > 0 && id < 64)
            seen |= SEEN(id);
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &h->num_values, "DataPageHeaderV2.num_values")); break;
        case 2: PM_TRY(read_i32_field(r, t, &h->num_nulls, "DataPageHeaderV2.num_nulls")); break;
        case 3: PM_TRY(read_i32_field(r, t, &h->num_rows, "DataPageHeaderV2.num_rows")); break;
        case 4: PM_TRY(read_i32_field(r, t, &h->encoding, "DataPageHeaderV2.encoding")); break;
        case 5: PM_TRY(read_i32_field(r, t, &h->definition_levels_byte_length, "DataPageHeaderV2.definition_levels_byte_length")); break;
        case 6: PM_TRY(read_i32_field(r, t, &h->repetition_levels_byte_length, "DataPageHeaderV2.repetition_levels_byte_length")); break;
        case 7: PM_TRY(pq_thrift_field_bool(t, &h->is_compressed, "DataPageHeaderV2.is_compressed")); break;
        case 8:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "DataPageHeaderV2.statistics"));
            PM_TRY(parse_statistics(r, NULL, &h->statistics));
            h->has_statistics = true;
            break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    uint64_t req = SEEN(1) | SEEN(2) | SEEN(3) | SEEN(4) | SEEN(5) | SEEN(6);
    if ((seen & req) != req)
        return missing("DataPageHeaderV2", "num_values, num_nulls, num_rows, encoding or level lengths");
    return NULL;
}

static pm_error *parse_page_header(pq_thrift_reader *r, pq_page_header *h)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    uint64_t seen = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        if (id > 0 && id < 64)
            seen |= SEEN(id);
        switch (id) {
        case 1: PM_TRY(read_i32_field(r, t, &h->type, "PageHeader.type")); break;
        case 2: PM_TRY(read_i32_field(r, t, &h->uncompressed_page_size, "PageHeader.uncompressed_page_size")); break;
        case 3: PM_TRY(read_i32_field(r, t, &h->compressed_page_size, "PageHeader.compressed_page_size")); break;
        case 4: PM_TRY(read_i32_field(r, t, &h->crc, "PageHeader.crc")); h->has_crc = true; break;
        case 5:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "PageHeader.data_page_header"));
            PM_TRY(parse_data_page_header(r, &h->data_page_header));
            h->has_data_page_header = true;
            break;
        case 7:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "PageHeader.dictionary_page_header"));
            PM_TRY(parse_dictionary_page_header(r, &h->dictionary_page_header));
            h->has_dictionary_page_header = true;
            break;
        case 8:
            PM_TRY(pq_thrift_expect(t, PQ_TT_STRUCT, "PageHeader.data_page_header_v2"));
            PM_TRY(parse_data_page_header_v2(r, &h->data_page_header_v2));
            h->has_data_page_header_v2 = true;
            break;
        default: PM_TRY(pq_thrift_skip(r, t)); break;
        }
    }
    pq_thrift_struct_leave(r);
    uint64_t req = SEEN(1) | SEEN(2) | SEEN(3);
    if ((seen & req) != req)
        return missing("PageHeader", "type or page sizes");
    return NULL;
}

pm_error *pm_pq_page_header_parse(pq_page_header *out, const uint8_t *data, size_t len, size_t *consumed)
{
    memset(out, 0, sizeof *out);
    pq_thrift_reader r;
    pq_thrift_reader_init(&r, data, len);
    PM_TRY(pm_error_wrap(parse_page_header(&r, out), 0, "page header"));
    *consumed = (size_t)(r.cur.p - data);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Serialization                                                       */
/* ------------------------------------------------------------------ */

static pm_error *w_empty_struct_field(pq_thrift_writer *w, int16_t id)
{
    PM_TRY(pq_thrift_w_field(w, id, PQ_TT_STRUCT));
    PM_TRY(pq_thrift_w_struct_begin(w));
    return pq_thrift_w_struct_end(w);
}

static pm_error *w_logical_type(pq_thrift_writer *w, const pq_logical_type *lt)
{
    PM_TRY(pq_thrift_w_struct_begin(w));
    switch (lt->kind) {
    case PQ_LT_STRING: case PQ_LT_MAP: case PQ_LT_LIST: case PQ_LT_ENUM: case PQ_LT_DATE:
    case PQ_LT_UNKNOWN: case PQ_LT_JSON: case PQ_LT_BSON: case PQ_LT_UUID: case PQ_LT_FLOAT16:
    case PQ_LT_VARIANT: case PQ_LT_GEOMETRY: case PQ_LT_GEOGRAPHY:
        PM_TRY(w_empty_struct_field(w, (int16_t)lt->kind));
        break;
    case PQ_LT_DECIMAL:
        PM_TRY(pq_thrift_w_field(w, PQ_LT_DECIMAL, PQ_TT_STRUCT));
        PM_TRY(pq_thrift_w_struct_begin(w));
        PM_TRY(pq_thrift_w_field_i32(w, 1, lt->decimal_scale));
        PM_TRY(pq_thrift_w_field_i32(w, 2, lt->decimal_precision));
        PM_TRY(pq_thrift_w_struct_end(w));
        break;
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
        if (lt->unit < PQ_UNIT_MILLIS || lt->unit > PQ_UNIT_NANOS)
            return pm_error_new(PM_EINVALID, "logical type TIME/TIMESTAMP with invalid unit %d", (int)lt->unit);
        PM_TRY(pq_thrift_w_field(w, (int16_t)lt->kind, PQ_TT_STRUCT));
        PM_TRY(pq_thrift_w_struct_begin(w));
        PM_TRY(pq_thrift_w_field_bool(w, 1, lt->is_adjusted_to_utc));
        PM_TRY(pq_thrift_w_field(w, 2, PQ_TT_STRUCT));
        PM_TRY(pq_thrift_w_struct_begin(w));
        PM_TRY(w_empty_struct_field(w, (int16_t)lt->unit));
        PM_TRY(pq_thrift_w_struct_end(w));
        PM_TRY(pq_thrift_w_struct_end(w));
        break;
    case PQ_LT_INTEGER:
        PM_TRY(pq_thrift_w_field(w, PQ_LT_INTEGER, PQ_TT_STRUCT));
        PM_TRY(pq_thrift_w_struct_begin(w));
        PM_TRY(pq_thrift_w_field(w, 1, PQ_TT_I8));
        PM_TRY(pq_thrift_w_i8(w, lt->int_bit_width));
        PM_TRY(pq_thrift_w_field_bool(w, 2, lt->int_is_signed));
        PM_TRY(pq_thrift_w_struct_end(w));
        break;
    default:
        return pm_error_new(PM_EINVALID, "cannot serialize logical type kind %d", (int)lt->kind);
    }
    return pq_thrift_w_struct_end(w);
}

static pm_error *w_schema_element(pq_thrift_writer *w, const pq_schema_element *e)
{
    if (!e->name)
        return pm_error_new(PM_EINVALID, "schema element without a name");
    PM_TRY(pq_thrift_w_struct_begin(w));
    if (e->has_type) PM_TRY(pq_thrift_w_field_i32(w, 1, e->type));
    if (e->has_type_length) PM_TRY(pq_thrift_w_field_i32(w, 2, e->type_length));
    if (e->has_repetition) PM_TRY(pq_thrift_w_field_i32(w, 3, e->repetition));
    PM_TRY(pq_thrift_w_field_string(w, 4, e->name));
    if (e->has_num_children) PM_TRY(pq_thrift_w_field_i32(w, 5, e->num_children));
    if (e->has_converted_type) PM_TRY(pq_thrift_w_field_i32(w, 6, e->converted_type));
    if (e->has_scale) PM_TRY(pq_thrift_w_field_i32(w, 7, e->scale));
    if (e->has_precision) PM_TRY(pq_thrift_w_field_i32(w, 8, e->precision));
    if (e->has_field_id) PM_TRY(pq_thrift_w_field_i32(w, 9, e->field_id));
    if (e->has_logical_type && e->logical_type.kind != PQ_LT_NONE) {
        PM_TRY(pq_thrift_w_field(w, 10, PQ_TT_STRUCT));
        PM_TRY(w_logical_type(w, &e->logical_type));
    }
    return pq_thrift_w_struct_end(w);
}

static pm_error *w_statistics(pq_thrift_writer *w, const pq_statistics *s)
{
    PM_TRY(pq_thrift_w_struct_begin(w));
    if (s->has_max) PM_TRY(pq_thrift_w_field_binary(w, 1, s->max, s->max_len));
    if (s->has_min) PM_TRY(pq_thrift_w_field_binary(w, 2, s->min, s->min_len));
    if (s->has_null_count) PM_TRY(pq_thrift_w_field_i64(w, 3, s->null_count));
    if (s->has_distinct_count) PM_TRY(pq_thrift_w_field_i64(w, 4, s->distinct_count));
    if (s->has_max_value) PM_TRY(pq_thrift_w_field_binary(w, 5, s->max_value, s->max_value_len));
    if (s->has_min_value) PM_TRY(pq_thrift_w_field_binary(w, 6, s->min_value, s->min_value_len));
    if (s->has_is_max_value_exact) PM_TRY(pq_thrift_w_field_bool(w, 7, s->is_max_value_exact));
    if (s->has_is_min_value_exact) PM_TRY(pq_thrift_w_field_bool(w, 8, s->is_min_value_exact));
    return pq_thrift_w_struct_end(w);
}

static pm_error *w_key_values(pq_thrift_writer *w, int16_t id, const pq_key_value *kv, uint32_t n)
{
    PM_TRY(pq_thrift_w_field(w, id, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(w, PQ_TT_STRUCT, n));
    for (uint32_t i = 0; i < n; i++) {
        if (!kv[i].key)
            return pm_error_new(PM_EINVALID, "key-value metadata entry %u without a key", i);
        PM_TRY(pq_thrift_w_struct_begin(w));
        PM_TRY(pq_thrift_w_field_string(w, 1, kv[i].key));
        if (kv[i].value)
            PM_TRY(pq_thrift_w_field_string(w, 2, kv[i].value));
        PM_TRY(pq_thrift_w_struct_end(w));
    }
    return NULL;
}

static pm_error *w_i64_list_field(pq_thrift_writer *w, int16_t id, const int64_t *v, uint32_t n)
{
    PM_TRY(pq_thrift_w_field(w, id, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(w, PQ_TT_I64, n));
    for (uint32_t i = 0; i < n; i++)
        PM_TRY(pq_thrift_w_i64(w, v[i]));
    return NULL;
}

static pm_error *w_size_statistics(pq_thrift_writer *w, const pq_size_statistics *s)
{
    PM_TRY(pq_thrift_w_struct_begin(w));
    if (s->has_unencoded_byte_array_data_bytes)
        PM_TRY(pq_thrift_w_field_i64(w, 1, s->unencoded_byte_array_data_bytes));
    if (s->num_repetition_level_histogram)
        PM_TRY(w_i64_list_field(w, 2, s->repetition_level_histogram, s->num_repetition_level_histogram));
    if (s->num_definition_level_histogram)
        PM_TRY(w_i64_list_field(w, 3, s->definition_level_histogram, s->num_definition_level_histogram));
    return pq_thrift_w_struct_end(w);
}

static pm_error *w_column_meta(pq_thrift_writer *w, const pq_column_meta *m)
{
    PM_TRY(pq_thrift_w_struct_begin(w));
    PM_TRY(pq_thrift_w_field_i32(w, 1, m->type));
    PM_TRY(pq_thrift_w_field(w, 2, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(w, PQ_TT_I32, m->num_encodings));
    for (uint32_t i = 0; i < m->num_encodings; i++)
        PM_TRY(pq_thrift_w_i32(w, m->encodings[i]));
    PM_TRY(pq_thrift_w_field(w, 3, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(w, PQ_TT_BINARY, m->path_len));
    for (uint32_t i = 0; i < m->path_len; i++)
        PM_TRY(pq_thrift_w_binary(w, m->path_in_schema[i], strlen(m->path_in_schema[i])));
    PM_TRY(pq_thrift_w_field_i32(w, 4, m->codec));
    PM_TRY(pq_thrift_w_field_i64(w, 5, m->num_values));
    PM_TRY(pq_thrift_w_field_i64(w, 6, m->total_uncompressed_size));
    PM_TRY(pq_thrift_w_field_i64(w, 7, m->total_compressed_size));
    if (m->num_key_value_metadata)
        PM_TRY(w_key_values(w, 8, m->key_value_metadata, m->num_key_value_metadata));
    PM_TRY(pq_thrift_w_field_i64(w, 9, m->data_page_offset));
    if (m->has_index_page_offset) PM_TRY(pq_thrift_w_field_i64(w, 10, m->index_page_offset));
    if (m->has_dictionary_page_offset) PM_TRY(pq_thrift_w_field_i64(w, 11, m->dictionary_page_offset));
    if (m->has_statistics) {
        PM_TRY(pq_thrift_w_field(w, 12, PQ_TT_STRUCT));
        PM_TRY(w_statistics(w, &m->statistics));
    }
    if (m->num_encoding_stats) {
        PM_TRY(pq_thrift_w_field(w, 13, PQ_TT_LIST));
        PM_TRY(pq_thrift_w_list(w, PQ_TT_STRUCT, m->num_encoding_stats));
        for (uint32_t i = 0; i < m->num_encoding_stats; i++) {
            const pq_page_encoding_stats *s = &m->encoding_stats[i];
            PM_TRY(pq_thrift_w_struct_begin(w));
            PM_TRY(pq_thrift_w_field_i32(w, 1, s->page_type));
            PM_TRY(pq_thrift_w_field_i32(w, 2, s->encoding));
            PM_TRY(pq_thrift_w_field_i32(w, 3, s->count));
            PM_TRY(pq_thrift_w_struct_end(w));
        }
    }
    if (m->has_bloom_filter_offset) PM_TRY(pq_thrift_w_field_i64(w, 14, m->bloom_filter_offset));
    if (m->has_bloom_filter_length) PM_TRY(pq_thrift_w_field_i32(w, 15, m->bloom_filter_length));
    if (m->has_size_statistics) {
        PM_TRY(pq_thrift_w_field(w, 16, PQ_TT_STRUCT));
        PM_TRY(w_size_statistics(w, &m->size_statistics));
    }
    return pq_thrift_w_struct_end(w);
}

static pm_error *w_column_chunk(pq_thrift_writer *w, const pq_column_chunk *c)
{
    PM_TRY(pq_thrift_w_struct_begin(w));
    if (c->file_path) PM_TRY(pq_thrift_w_field_string(w, 1, c->file_path));
    PM_TRY(pq_thrift_w_field_i64(w, 2, c->file_offset));
    if (c->has_meta_data) {
        PM_TRY(pq_thrift_w_field(w, 3, PQ_TT_STRUCT));
        PM_TRY(w_column_meta(w, &c->meta_data));
    }
    if (c->has_offset_index) {
        PM_TRY(pq_thrift_w_field_i64(w, 4, c->offset_index_offset));
        PM_TRY(pq_thrift_w_field_i32(w, 5, c->offset_index_length));
    }
    if (c->has_column_index) {
        PM_TRY(pq_thrift_w_field_i64(w, 6, c->column_index_offset));
        PM_TRY(pq_thrift_w_field_i32(w, 7, c->column_index_length));
    }
    return pq_thrift_w_struct_end(w);
}

static pm_error *w_row_group(pq_thrift_writer *w, const pq_row_group *g)
{
    PM_TRY(pq_thrift_w_struct_begin(w));
    PM_TRY(pq_thrift_w_field(w, 1, PQ_TT_LIST));
    PM_TRY(pq_thrift_w_list(w, PQ_TT_STRUCT, g->num_columns));
    for (uint32_t i = 0; i < g->num_columns; i++)
        PM_TRY(w_column_chunk(w, &g->columns[i]));
    PM_TRY(pq_thrift_w_field_i64(w, 2, g->total_byte_size));
    PM_TRY(pq_thrift_w_field_i64(w, 3, g->num_rows));
    if (g->num_sorting_columns) {
        PM_TRY(pq_thrift_w_field(w, 4, PQ_TT_LIST));
        PM_TRY(pq_thrift_w_list(w, PQ_TT_STRUCT, g->num_sorting_columns));
        for (uint32_t i = 0; i < g->num_sorting_columns; i++) {
            const pq_sorting_column *s = &g->sorting_columns[i];
            PM_TRY(pq_thrift_w_struct_begin(w));
            PM_TRY(pq_thrift_w_field_i32(w, 1, s->column_idx));
            PM_TRY(pq_thrift_w_field_bool(w, 2, s->descending));
            PM_TRY(pq_thrift_w_field_bool(w, 3, s->nulls_first));
            PM_TRY(pq_thrift_w_struct_end(w));
        }
    }
    if (g->has_file_offset) PM_TRY(pq_thrift_w_field_i64(w, 5, g->file_offset));
    if (g->has_total_compressed_size) PM_TRY(pq_thrift_w_field_i64(w, 6, g->total_compressed_size));
    if (g->has_ordinal) {
        PM_TRY(pq_thrift_w_field(w, 7, PQ_TT_I16));
        PM_TRY(pq_thrift_w_i16(w, g->ordinal));
    }
    return pq_thrift_w_struct_end(w);
}

pm_error *pm_pq_file_meta_serialize(const pm_pq_file_meta *m, pm_buf *out)
{
    pq_thrift_writer tw, *w = &tw;
    pq_thrift_writer_init(w, out);
    size_t start = out->len;
    pm_error *e = NULL;
#define W(x) PM_TRY_GOTO(e, (x), fail)
    W(pq_thrift_w_struct_begin(w));
    W(pq_thrift_w_field_i32(w, 1, m->version));
    W(pq_thrift_w_field(w, 2, PQ_TT_LIST));
    W(pq_thrift_w_list(w, PQ_TT_STRUCT, m->num_schema));
    for (uint32_t i = 0; i < m->num_schema; i++)
        W(w_schema_element(w, &m->schema[i]));
    W(pq_thrift_w_field_i64(w, 3, m->num_rows));
    W(pq_thrift_w_field(w, 4, PQ_TT_LIST));
    W(pq_thrift_w_list(w, PQ_TT_STRUCT, m->num_row_groups));
    for (uint32_t i = 0; i < m->num_row_groups; i++)
        W(w_row_group(w, &m->row_groups[i]));
    if (m->num_key_value_metadata)
        W(w_key_values(w, 5, m->key_value_metadata, m->num_key_value_metadata));
    if (m->created_by)
        W(pq_thrift_w_field_string(w, 6, m->created_by));
    if (m->has_column_orders) {
        /* list<ColumnOrder>, each the union member 1: TypeDefinedOrder {} */
        W(pq_thrift_w_field(w, 7, PQ_TT_LIST));
        W(pq_thrift_w_list(w, PQ_TT_STRUCT, m->num_column_orders));
        for (uint32_t i = 0; i < m->num_column_orders; i++) {
            W(pq_thrift_w_struct_begin(w));
            W(w_empty_struct_field(w, 1));
            W(pq_thrift_w_struct_end(w));
        }
    }
    W(pq_thrift_w_struct_end(w));
#undef W
    return NULL;
fail:
    out->len = start;
    return pm_error_wrap(e, 0, "serialize parquet footer");
}

pm_error *pm_pq_page_header_serialize(const pq_page_header *h, pm_buf *out)
{
    pq_thrift_writer tw, *w = &tw;
    pq_thrift_writer_init(w, out);
    size_t start = out->len;
    pm_error *e = NULL;
#define W(x) PM_TRY_GOTO(e, (x), fail)
    W(pq_thrift_w_struct_begin(w));
    W(pq_thrift_w_field_i32(w, 1, h->type));
    W(pq_thrift_w_field_i32(w, 2, h->uncompressed_page_size));
    W(pq_thrift_w_field_i32(w, 3, h->compressed_page_size));
    if (h->has_crc)
        W(pq_thrift_w_field_i32(w, 4, h->crc));
    if (h->has_data_page_header) {
        const pq_data_page_header *d = &h->data_page_header;
        W(pq_thrift_w_field(w, 5, PQ_TT_STRUCT));
        W(pq_thrift_w_struct_begin(w));
        W(pq_thrift_w_field_i32(w, 1, d->num_values));
        W(pq_thrift_w_field_i32(w, 2, d->encoding));
        W(pq_thrift_w_field_i32(w, 3, d->definition_level_encoding));
        W(pq_thrift_w_field_i32(w, 4, d->repetition_level_encoding));
        if (d->has_statistics) {
            W(pq_thrift_w_field(w, 5, PQ_TT_STRUCT));
            W(w_statistics(w, &d->statistics));
        }
        W(pq_thrift_w_struct_end(w));
    }
    if (h->has_dictionary_page_header) {
        const pq_dictionary_page_header *d = &h->dictionary_page_header;
        W(pq_thrift_w_field(w, 7, PQ_TT_STRUCT));
        W(pq_thrift_w_struct_begin(w));
        W(pq_thrift_w_field_i32(w, 1, d->num_values));
        W(pq_thrift_w_field_i32(w, 2, d->encoding));
        if (d->has_is_sorted)
            W(pq_thrift_w_field_bool(w, 3, d->is_sorted));
        W(pq_thrift_w_struct_end(w));
    }
    if (h->has_data_page_header_v2) {
        const pq_data_page_header_v2 *d = &h->data_page_header_v2;
        W(pq_thrift_w_field(w, 8, PQ_TT_STRUCT));
        W(pq_thrift_w_struct_begin(w));
        W(pq_thrift_w_field_i32(w, 1, d->num_values));
        W(pq_thrift_w_field_i32(w, 2, d->num_nulls));
        W(pq_thrift_w_field_i32(w, 3, d->num_rows));
        W(pq_thrift_w_field_i32(w, 4, d->encoding));
        W(pq_thrift_w_field_i32(w, 5, d->definition_levels_byte_length));
        W(pq_thrift_w_field_i32(w, 6, d->repetition_levels_byte_length));
        W(pq_thrift_w_field_bool(w, 7, d->is_compressed));
        if (d->has_statistics) {
            W(pq_thrift_w_field(w, 8, PQ_TT_STRUCT));
            W(w_statistics(w, &d->statistics));
        }
        W(pq_thrift_w_struct_end(w));
    }
    W(pq_thrift_w_struct_end(w));
#undef W
    return NULL;
fail:
    out->len = start;
    return pm_error_wrap(e, 0, "serialize page header");
}

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

const char *pq_type_name(int32_t t)
{
    static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                                        "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t < (int32_t)(sizeof names / sizeof names[0]) ? names[t] : "UNKNOWN";
}

const char *pq_encoding_name(int32_t e)
{
    static const char *const names[] = {"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
                                        "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
                                        "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
    return e >= 0 && e < (int32_t)(sizeof names / sizeof names[0]) ? names[e] : "UNKNOWN";
}

const char *pq_converted_type_name(int32_t c)
{
    static const char *const names[] = {
        "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS", "TIME_MICROS",
        "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16",
        "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
    return c >= 0 && c < (int32_t)(sizeof names / sizeof names[0]) ? names[c] : "UNKNOWN";
}

const char *pq_repetition_name(int32_t r)
{
    static const char *const names[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
    return r >= 0 && r < 3 ? names[r] : "UNKNOWN";
}
