/*
 * format/parquet/parquet_meta.h — the Parquet footer and page-header
 * structures (parquet-format's parquet.thrift, the subset Paimon readers and
 * writers use), with thrift-compact parse and serialize.
 *
 * Field numbers below are the thrift field ids.  Optional fields carry a
 * `has_` flag.  Everything a parsed pm_pq_file_meta points to (strings,
 * arrays, nested structs) lives in its arena and dies with
 * pm_pq_file_meta_free; a writer building a footer allocates from the same
 * arena.  Unknown fields are skipped on parse (forward compatible); the
 * parser never trusts a list length or string length beyond the bytes left.
 */
#ifndef PM_PARQUET_META_H
#define PM_PARQUET_META_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "paimon/error.h"

/* enum Type */
typedef enum {
    PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3, PQ_FLOAT = 4, PQ_DOUBLE = 5,
    PQ_BYTE_ARRAY = 6, PQ_FIXED_LEN_BYTE_ARRAY = 7
} pq_type;

/* enum ConvertedType */
typedef enum {
    PQ_CT_UTF8 = 0, PQ_CT_MAP = 1, PQ_CT_MAP_KEY_VALUE = 2, PQ_CT_LIST = 3, PQ_CT_ENUM = 4,
    PQ_CT_DECIMAL = 5, PQ_CT_DATE = 6, PQ_CT_TIME_MILLIS = 7, PQ_CT_TIME_MICROS = 8,
    PQ_CT_TIMESTAMP_MILLIS = 9, PQ_CT_TIMESTAMP_MICROS = 10, PQ_CT_UINT_8 = 11, PQ_CT_UINT_16 = 12,
    PQ_CT_UINT_32 = 13, PQ_CT_UINT_64 = 14, PQ_CT_INT_8 = 15, PQ_CT_INT_16 = 16, PQ_CT_INT_32 = 17,
    PQ_CT_INT_64 = 18, PQ_CT_JSON = 19, PQ_CT_BSON = 20, PQ_CT_INTERVAL = 21
} pq_converted_type;

/* enum FieldRepetitionType */
typedef enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 } pq_repetition;

/* enum Encoding */
typedef enum {
    PQ_ENC_PLAIN = 0, PQ_ENC_PLAIN_DICTIONARY = 2, PQ_ENC_RLE = 3, PQ_ENC_BIT_PACKED = 4,
    PQ_ENC_DELTA_BINARY_PACKED = 5, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PQ_ENC_DELTA_BYTE_ARRAY = 7, PQ_ENC_RLE_DICTIONARY = 8, PQ_ENC_BYTE_STREAM_SPLIT = 9
} pq_encoding;

/* enum PageType */
typedef enum { PQ_DATA_PAGE = 0, PQ_INDEX_PAGE = 1, PQ_DICTIONARY_PAGE = 2, PQ_DATA_PAGE_V2 = 3 } pq_page_type;

/* union LogicalType: the member set, 0 = none */
typedef enum {
    PQ_LT_NONE = 0, PQ_LT_STRING = 1, PQ_LT_MAP = 2, PQ_LT_LIST = 3, PQ_LT_ENUM = 4,
    PQ_LT_DECIMAL = 5, PQ_LT_DATE = 6, PQ_LT_TIME = 7, PQ_LT_TIMESTAMP = 8,
    PQ_LT_INTEGER = 10, PQ_LT_UNKNOWN = 11, PQ_LT_JSON = 12, PQ_LT_BSON = 13, PQ_LT_UUID = 14,
    PQ_LT_FLOAT16 = 15, PQ_LT_VARIANT = 16, PQ_LT_GEOMETRY = 17, PQ_LT_GEOGRAPHY = 18
} pq_logical_kind;

/* union TimeUnit */
typedef enum { PQ_UNIT_MILLIS = 1, PQ_UNIT_MICROS = 2, PQ_UNIT_NANOS = 3 } pq_time_unit;

typedef struct pq_logical_type {
    pq_logical_kind kind;
    int32_t decimal_scale, decimal_precision;   /* DECIMAL: 1 scale, 2 precision */
    bool is_adjusted_to_utc;                    /* TIME/TIMESTAMP: 1 */
    pq_time_unit unit;                          /* TIME/TIMESTAMP: 2 */
    int8_t int_bit_width;                       /* INTEGER: 1 */
    bool int_is_signed;                         /* INTEGER: 2 */
} pq_logical_type;

typedef struct pq_schema_element {
    bool has_type;            int32_t type;            /* 1 pq_type (leaves only) */
    bool has_type_length;     int32_t type_length;     /* 2 */
    bool has_repetition;      int32_t repetition;      /* 3 pq_repetition */
    const char *name;                                  /* 4 required */
    bool has_num_children;    int32_t num_children;    /* 5 (groups) */
    bool has_converted_type;  int32_t converted_type;  /* 6 */
    bool has_scale;           int32_t scale;           /* 7 */
    bool has_precision;       int32_t precision;       /* 8 */
    bool has_field_id;        int32_t field_id;        /* 9 */
    bool has_logical_type;    pq_logical_type logical_type; /* 10 */
} pq_schema_element;

typedef struct pq_statistics {
    bool has_max;        const uint8_t *max; uint32_t max_len;             /* 1 (legacy) */
    bool has_min;        const uint8_t *min; uint32_t min_len;             /* 2 (legacy) */
    bool has_null_count; int64_t null_count;                               /* 3 */
    bool has_distinct_count; int64_t distinct_count;                       /* 4 */
    bool has_max_value;  const uint8_t *max_value; uint32_t max_value_len; /* 5 */
    bool has_min_value;  const uint8_t *min_value; uint32_t min_value_len; /* 6 */
    bool has_is_max_value_exact; bool is_max_value_exact;                  /* 7 */
    bool has_is_min_value_exact; bool is_min_value_exact;                  /* 8 */
} pq_statistics;

typedef struct pq_page_encoding_stats {
    int32_t page_type;   /* 1 */
    int32_t encoding;    /* 2 */
    int32_t count;       /* 3 */
} pq_page_encoding_stats;

typedef struct pq_key_value {
    const char *key;     /* 1 */
    const char *value;   /* 2, NULL if absent */
} pq_key_value;

/* SizeStatistics (parquet-format 2.10+; parquet-java 1.15+ writes it). */
typedef struct pq_size_statistics {
    bool has_unencoded_byte_array_data_bytes; int64_t unencoded_byte_array_data_bytes; /* 1 */
    int64_t *repetition_level_histogram; uint32_t num_repetition_level_histogram;    /* 2 */
    int64_t *definition_level_histogram; uint32_t num_definition_level_histogram;    /* 3 */
} pq_size_statistics;

typedef struct pq_column_meta {
    int32_t type;                          /* 1 */
    int32_t *encodings; uint32_t num_encodings;        /* 2 */
    const char **path_in_schema; uint32_t path_len;    /* 3 */
    int32_t codec;                         /* 4 CompressionCodec = pm_codec_id */
    int64_t num_values;                    /* 5 */
    int64_t total_uncompressed_size;       /* 6 */
    int64_t total_compressed_size;         /* 7 */
    pq_key_value *key_value_metadata; uint32_t num_key_value_metadata; /* 8 */
    int64_t data_page_offset;              /* 9 */
    bool has_index_page_offset; int64_t index_page_offset;           /* 10 */
    bool has_dictionary_page_offset; int64_t dictionary_page_offset; /* 11 */
    bool has_statistics; pq_statistics statistics;                   /* 12 */
    pq_page_encoding_stats *encoding_stats; uint32_t num_encoding_stats; /* 13 */
    bool has_bloom_filter_offset; int64_t bloom_filter_offset;       /* 14 */
    bool has_bloom_filter_length; int32_t bloom_filter_length;       /* 15 */
    bool has_size_statistics; pq_size_statistics size_statistics;   /* 16 */
} pq_column_meta;

typedef struct pq_column_chunk {
    const char *file_path;                 /* 1, NULL if absent */
    int64_t file_offset;                   /* 2 */
    bool has_meta_data; pq_column_meta meta_data;                    /* 3 */
    bool has_offset_index; int64_t offset_index_offset; int32_t offset_index_length; /* 4,5 */
    bool has_column_index; int64_t column_index_offset; int32_t column_index_length; /* 6,7 */
} pq_column_chunk;

typedef struct pq_sorting_column {
    int32_t column_idx;  /* 1 */
    bool descending;     /* 2 */
    bool nulls_first;    /* 3 */
} pq_sorting_column;

typedef struct pq_row_group {
    pq_column_chunk *columns; uint32_t num_columns;    /* 1 */
    int64_t total_byte_size;                           /* 2 */
    int64_t num_rows;                                  /* 3 */
    pq_sorting_column *sorting_columns; uint32_t num_sorting_columns; /* 4 */
    bool has_file_offset; int64_t file_offset;         /* 5 */
    bool has_total_compressed_size; int64_t total_compressed_size;    /* 6 */
    bool has_ordinal; int16_t ordinal;                 /* 7 */
} pq_row_group;

typedef struct pm_pq_file_meta {
    pm_arena arena;                                    /* owns everything below */
    int32_t version;                                   /* 1 */
    pq_schema_element *schema; uint32_t num_schema;    /* 2 (depth-first, root first) */
    int64_t num_rows;                                  /* 3 */
    pq_row_group *row_groups; uint32_t num_row_groups; /* 4 */
    pq_key_value *key_value_metadata; uint32_t num_key_value_metadata; /* 5 */
    const char *created_by;                            /* 6, NULL if absent */
    bool has_column_orders; uint32_t num_column_orders; /* 7: all TYPE_ORDER when present */
} pm_pq_file_meta;

typedef struct pq_data_page_header {
    int32_t num_values;                  /* 1 */
    int32_t encoding;                    /* 2 */
    int32_t definition_level_encoding;   /* 3 */
    int32_t repetition_level_encoding;   /* 4 */
    bool has_statistics; pq_statistics statistics; /* 5 */
} pq_data_page_header;

typedef struct pq_dictionary_page_header {
    int32_t num_values;                  /* 1 */
    int32_t encoding;                    /* 2 */
    bool has_is_sorted; bool is_sorted;  /* 3 */
} pq_dictionary_page_header;

typedef struct pq_data_page_header_v2 {
    int32_t num_values;                        /* 1 */
    int32_t num_nulls;                         /* 2 */
    int32_t num_rows;                          /* 3 */
    int32_t encoding;                          /* 4 */
    int32_t definition_levels_byte_length;     /* 5 */
    int32_t repetition_levels_byte_length;     /* 6 */
    bool is_compressed;                        /* 7, default true */
    bool has_statistics; pq_statistics statistics; /* 8 */
} pq_data_page_header_v2;

/* Page headers are parsed without an arena: statistics byte ranges point
 * into the input buffer, which must outlive the header. */
typedef struct pq_page_header {
    int32_t type;                              /* 1 pq_page_type */
    int32_t uncompressed_page_size;            /* 2 */
    int32_t compressed_page_size;              /* 3 */
    bool has_crc; int32_t crc;                 /* 4 */
    bool has_data_page_header; pq_data_page_header data_page_header;             /* 5 */
    bool has_dictionary_page_header; pq_dictionary_page_header dictionary_page_header; /* 7 */
    bool has_data_page_header_v2; pq_data_page_header_v2 data_page_header_v2;    /* 8 */
} pq_page_header;

/* Footer: parse `len` bytes of thrift-compact FileMetaData.  The byte
 * ranges inside (statistics) are copied into the arena. */
pm_error *pm_pq_file_meta_parse(pm_pq_file_meta **out, const uint8_t *data, size_t len);
/* Empty footer with an initialized arena (writers fill it in). */
pm_error *pm_pq_file_meta_new(pm_pq_file_meta **out);
void pm_pq_file_meta_free(pm_pq_file_meta *m);
/* Serialize FileMetaData (thrift compact) and append to out. */
pm_error *pm_pq_file_meta_serialize(const pm_pq_file_meta *m, pm_buf *out);

/* Page header: parse from the front of data, *consumed = header bytes. */
pm_error *pm_pq_page_header_parse(pq_page_header *out, const uint8_t *data, size_t len, size_t *consumed);
pm_error *pm_pq_page_header_serialize(const pq_page_header *h, pm_buf *out);

/* Names for `paimon meta` and error messages. */
const char *pq_type_name(int32_t t);
const char *pq_encoding_name(int32_t e);
const char *pq_converted_type_name(int32_t c);
const char *pq_repetition_name(int32_t r);

#endif
