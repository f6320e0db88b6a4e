/*
 * format/orc/orc_meta.h — ORC's metadata messages (orc_proto.proto) as C
 * structs, their bounds-checked parsers and their serializers.
 *
 * File tail, read backwards:
 *   ... stripes ... | Metadata (stripe statistics) | Footer | PostScript | u8 psLen
 * The PostScript is never compressed; Metadata and Footer are compressed
 * streams (orc_stream.h) when the file has a codec.
 * Each stripe: index streams | data streams | StripeFooter (compressed).
 *
 * Parsed messages live in a pm_arena owned by the caller; strings and byte
 * fields are copied into it (NUL-terminated), repeated fields are arrays
 * sized by a first counting pass, so nothing points into the input.
 * Unknown fields are skipped; encryption (Footer.encryption,
 * StripeFooter.encryption) is recorded as present and rejected by the
 * reader as unsupported.
 *
 * Serializers append one message (no key, no length) to a pm_buf, writing
 * exactly the fields orc-core 1.9 sets, in field-number order, so the
 * bytes match Java's.
 */
#ifndef PM_ORC_META_H
#define PM_ORC_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "paimon/error.h"

/* Type.Kind */
typedef enum orc_kind {
    ORC_BOOLEAN = 0,
    ORC_BYTE = 1,
    ORC_SHORT = 2,
    ORC_INT = 3,
    ORC_LONG = 4,
    ORC_FLOAT = 5,
    ORC_DOUBLE = 6,
    ORC_STRING = 7,
    ORC_BINARY = 8,
    ORC_TIMESTAMP = 9,
    ORC_LIST = 10,
    ORC_MAP = 11,
    ORC_STRUCT = 12,
    ORC_UNION = 13,
    ORC_DECIMAL = 14,
    ORC_DATE = 15,
    ORC_VARCHAR = 16,
    ORC_CHAR = 17,
    ORC_TIMESTAMP_INSTANT = 18
} orc_kind;
const char *orc_kind_name(uint32_t kind);

/* Stream.Kind */
typedef enum orc_stream_kind {
    ORC_PRESENT = 0,
    ORC_DATA = 1,
    ORC_LENGTH = 2,
    ORC_DICTIONARY_DATA = 3,
    ORC_DICTIONARY_COUNT = 4,
    ORC_SECONDARY = 5,
    ORC_ROW_INDEX = 6,
    ORC_BLOOM_FILTER = 7,
    ORC_BLOOM_FILTER_UTF8 = 8,
    ORC_ENCRYPTED_INDEX = 9,
    ORC_ENCRYPTED_DATA = 10
} orc_stream_kind;
const char *orc_stream_kind_name(uint32_t kind);

/* ColumnEncoding.Kind */
typedef enum orc_encoding_kind {
    ORC_ENC_DIRECT = 0,
    ORC_ENC_DICTIONARY = 1,
    ORC_ENC_DIRECT_V2 = 2,
    ORC_ENC_DICTIONARY_V2 = 3
} orc_encoding_kind;

/* CompressionKind */
typedef enum orc_compression {
    ORC_COMP_NONE = 0,
    ORC_COMP_ZLIB = 1,
    ORC_COMP_SNAPPY = 2,
    ORC_COMP_LZO = 3,
    ORC_COMP_LZ4 = 4,
    ORC_COMP_ZSTD = 5
} orc_compression;
const char *orc_compression_name(uint32_t kind);

/* Calendar: Footer.calendar */
enum { ORC_CALENDAR_UNKNOWN = 0, ORC_CALENDAR_JULIAN_GREGORIAN = 1, ORC_CALENDAR_PROLEPTIC = 2 };

/* A byte string inside the arena (data is NUL-terminated, len excludes it). */
typedef struct pm_orc_str {
    const char *data;
    size_t len;
} pm_orc_str;

/*
 * ColumnStatistics with every field's presence.  Several typed parts may
 * be present in a hostile file; readers pick the one that fits the column
 * type.  bucket.count[0] is the number of true values.
 */
typedef struct pm_orc_stats {
    bool has_count, has_has_null, has_bytes_on_disk;
    uint64_t count;          /* numberOfValues: non-null values */
    bool has_null;
    uint64_t bytes_on_disk;
    struct {
        bool present, has_min, has_max, has_sum;
        int64_t min, max, sum;
    } ints;
    struct {
        bool present, has_min, has_max, has_sum;
        double min, max, sum;
    } dbl;
    struct {
        bool present, has_min, has_max, has_sum, has_lower, has_upper;
        pm_orc_str min, max, lower, upper;
        int64_t sum;
    } str;
    struct {
        bool present;
        size_t ncount;
        uint64_t *count;
    } bucket;
    struct {
        bool present, has_min, has_max, has_sum;
        pm_orc_str min, max, sum;
    } dec;
    struct {
        bool present, has_min, has_max;
        int32_t min, max;
    } date;
    struct {
        bool present, has_sum;
        int64_t sum;
    } bin;
    struct {
        bool present, has_min, has_max, has_min_utc, has_max_utc, has_min_nanos, has_max_nanos;
        int64_t min, max, min_utc, max_utc;   /* millis since the epoch */
        int32_t min_nanos, max_nanos;         /* sub-millisecond nanos + 1 */
    } ts;
    struct {
        bool present, has_min, has_max, has_total;
        uint64_t min, max, total;
    } coll;
} pm_orc_stats;

typedef struct orc_attr {
    const char *key;
    const char *value;
} orc_attr;

typedef struct orc_type {
    uint32_t kind;
    uint32_t nsub;
    uint32_t *subtypes;
    uint32_t nnames;
    const char **names;
    bool has_max_length, has_precision, has_scale;
    uint32_t max_length, precision, scale;
    uint32_t nattrs;
    orc_attr *attrs;
} orc_type;

typedef struct orc_stripe_info {
    uint64_t offset, index_length, data_length, footer_length, rows;
    bool has_encrypt_id;
} orc_stripe_info;

typedef struct orc_user_meta {
    const char *name;
    pm_orc_str value;
} orc_user_meta;

typedef struct orc_postscript {
    uint64_t footer_length;
    uint32_t compression;
    bool has_block_size;
    uint64_t block_size;
    uint32_t nversion;
    uint32_t version[2];      /* first two entries */
    uint64_t metadata_length;
    bool has_writer_version;
    uint32_t writer_version;
    uint64_t stripe_stats_length;
    bool has_magic;
    bool magic_ok;            /* magic == "ORC" */
} orc_postscript;

typedef struct orc_footer {
    uint64_t header_length, content_length;
    uint32_t nstripes;
    orc_stripe_info *stripes;
    uint32_t ntypes;
    orc_type *types;
    uint32_t nmeta;
    orc_user_meta *meta;
    uint64_t rows;
    uint32_t nstats;
    pm_orc_stats *stats;
    uint32_t row_index_stride;
    bool has_writer;
    uint32_t writer;
    bool has_encryption;
    uint32_t calendar;
    const char *software_version;    /* NULL when absent */
} orc_footer;

typedef struct orc_stream_info {
    uint32_t kind;
    uint32_t column;
    uint64_t length;
} orc_stream_info;

typedef struct orc_encoding {
    uint32_t kind;
    uint32_t dictionary_size;
} orc_encoding;

typedef struct orc_stripe_footer {
    uint32_t nstreams;
    orc_stream_info *streams;
    uint32_t nencodings;
    orc_encoding *encodings;
    const char *writer_timezone;     /* NULL when absent */
    bool has_encryption;
} orc_stripe_footer;

/* Metadata: per stripe, per column statistics. */
typedef struct orc_metadata {
    uint32_t nstripes;
    uint32_t *ncols;
    pm_orc_stats **stats;
} orc_metadata;

typedef struct orc_row_index_entry {
    uint32_t npositions;
    uint64_t *positions;
    bool has_stats;
    pm_orc_stats stats;
} orc_row_index_entry;

typedef struct orc_row_index {
    uint32_t nentries;
    orc_row_index_entry *entries;
} orc_row_index;

pm_error *orc_parse_postscript(const uint8_t *p, size_t n, orc_postscript *out);
pm_error *orc_parse_footer(pm_arena *a, const uint8_t *p, size_t n, orc_footer *out);
pm_error *orc_parse_stripe_footer(pm_arena *a, const uint8_t *p, size_t n, orc_stripe_footer *out);
pm_error *orc_parse_metadata(pm_arena *a, const uint8_t *p, size_t n, orc_metadata *out);
pm_error *orc_parse_row_index(pm_arena *a, const uint8_t *p, size_t n, orc_row_index *out);
pm_error *orc_parse_stats(pm_arena *a, const uint8_t *p, size_t n, pm_orc_stats *out);

/* ---- serializers (append the message body) ---- */
pm_error *orc_put_stats(pm_buf *b, const pm_orc_stats *s);
pm_error *orc_put_type(pm_buf *b, const orc_type *t);
pm_error *orc_put_stripe_info(pm_buf *b, const orc_stripe_info *s);
pm_error *orc_put_stream_info(pm_buf *b, const orc_stream_info *s);
pm_error *orc_put_encoding(pm_buf *b, const orc_encoding *e, bool dictionary);

#endif
