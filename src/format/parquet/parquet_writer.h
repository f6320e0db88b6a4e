/*
 * format/parquet/parquet_writer.h — writes pm_batch rows to one Parquet file
 * the way Apache Paimon (parquet-java 1.16, writer version PARQUET_1_0)
 * does.
 *
 * File layout:
 *   "PAR1"
 *   row group*: per leaf column one chunk =
 *       [dictionary page (PLAIN_DICTIONARY)] data page v1*
 *       data page v1 = [rep levels: u32 len + RLE] [def levels: u32 len + RLE]
 *                      values (PLAIN, or bit-width byte + RLE dictionary ids)
 *   ColumnIndex* OffsetIndex*  (page indexes of every chunk, pq_write_index.h)
 *   FileMetaData (thrift compact)  u32 footer length  "PAR1"
 * Schema mapping: pq_schema_write.h.  Statistics: pq_stats.h.
 *
 * Steps of a write:
 *   - rows are cut into slices; each leaf column encodes its slice from the
 *     column buffers (levels from validity bitmaps / offsets, values through
 *     a dictionary or PLAIN) into its current page;
 *   - a page is closed at `page_row_limit` rows or when its raw size reaches
 *     `page_size`, compressed and appended to the column's chunk buffer;
 *   - a dictionary falls back to PLAIN when it grows past
 *     `dictionary_page_size` or when the first page does not get smaller
 *     (parquet-java's rules); pages already written keep their dictionary;
 *   - when the buffered row group reaches `row_group_size`, every chunk is
 *     written out (dictionary page first) and its metadata recorded;
 *   - close writes the last row group and the footer.
 * Mirrors: a flat field whose column in the batch is the very column object
 * of an earlier flat field of the same type, levels and dictionary choice
 * (the caller passes one column for two fields with equal values: a
 * KeyValue file's _KEY_ field and its value field) is not encoded: its
 * chunk is the earlier field's pages written again, described under its
 * own path, statistics and page index, so the file is byte for byte the one
 * two separate equal columns give.  The first batch of a row group decides;
 * a later batch of it whose two columns are other objects keeps the mirror
 * while they hold the same values (pm_column_same_values), else the row
 * group ends before that batch.
 * Memory is bounded by one row group's encoded pages plus one page per column.
 *
 * The writer does not own the pm_output: after pm_pq_writer_close the caller
 * closes (or, after an error or pm_pq_writer_abort, aborts) the output.
 * One writer is used by one thread at a time (it may borrow a pool to
 * encode columns in parallel, pm_pq_writer_set_pool).
 */
#ifndef PM_PARQUET_WRITER_H
#define PM_PARQUET_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf_pool.h"
#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "io/fileio.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct pm_pq_kv {
    const char *key;
    const char *value;
} pm_pq_kv;

typedef struct pm_pq_writer_options {
    pm_codec_id codec;            /* default PM_CODEC_ZSTD */
    int codec_level;              /* zstd level; default 1 (0 = codec default) */
    int64_t page_size;            /* parquet.page.size, default 1 MiB */
    int64_t page_row_limit;       /* parquet.page.row.count.limit, default 20,000 */
    int64_t dictionary_page_size; /* parquet.dictionary.page.size, default 1 MiB */
    bool dictionary;              /* parquet.enable.dictionary, default true */
    int64_t row_group_size;       /* parquet.block.size, default 128 MiB */
    bool page_crc;                /* parquet.page.write-checksum.enabled, default true */
    const char *created_by;       /* NULL = "paimon-c version <v> (build paimon-c)" */
    const pm_pq_kv *footer_kv;    /* footer key/value metadata (borrowed until close) */
    size_t footer_kv_count;
    pm_buf_pool *buffers;         /* spare page blocks and page buffers shared with the owner's other
                                     writers (borrowed, NULL = none; base/buf_pool.h) */
} pm_pq_writer_options;

/* Defaults of parquet-java 1.16 as Paimon configures it. */
void pm_pq_writer_options_default(pm_pq_writer_options *o);

/* Value of a table option, or NULL when unset. */
typedef const char *(*pm_pq_option_lookup)(void *ctx, const char *key);

/*
 * Fill `o` (start from defaults) from table options:
 *   file.compression / parquet.compression (overrides)  codec name
 *   file.compression.zstd-level / parquet.compression.codec.zstd.level (overrides)
 *   file.block-size / parquet.block.size (overrides)     memory size
 *   parquet.page.size, parquet.dictionary.page.size      memory size
 *   parquet.page.row.count.limit                          integer
 *   parquet.enable.dictionary, parquet.page.write-checksum.enabled  true/false
 *   parquet.writer.version                                v1 / PARQUET_1_0 only
 * Errors are PM_EINVALID (or PM_EUNSUPPORTED) naming the option and value.
 */
pm_error *pm_pq_writer_options_from_table(pm_pq_writer_options *o, pm_pq_option_lookup lookup,
                                          void *ctx);

/* Parse a memory size like "128 mb", "1g", "4096" (bytes). */
pm_error *pm_pq_parse_memory_size(const char *text, int64_t *out);

/* A typed statistics value; interpretation follows the field's type:
 *   BOOLEAN → b; TINYINT..INT, DATE, TIME → i; BIGINT, TIMESTAMP(p<=6) → i
 *   (in the column's unit); FLOAT → f; DOUBLE → d; DECIMAL → dec (unscaled);
 *   CHAR/VARCHAR/BINARY/VARBINARY/BLOB → bytes. */
typedef union pm_pq_value {
    bool b;
    int64_t i;
    float f;
    double d;
    __int128 dec;
    struct {
        const uint8_t *data;
        size_t len;
    } bytes;
} pm_pq_value;

/* Merged statistics of one top-level field over all row groups. */
typedef struct pm_pq_column_stats {
    bool has_stats;      /* false for nested fields (ARRAY, MAP, MULTISET, ROW) */
    int64_t null_count;
    bool has_min_max;    /* false when no non-null (non-NaN) value, or TIMESTAMP(p>6) */
    pm_pq_value min, max;
    bool has_nan;        /* FLOAT/DOUBLE: a NaN was written (min/max ignore it) */
} pm_pq_column_stats;

typedef struct pm_pq_write_result {
    uint64_t file_size;
    int64_t row_count;
    size_t ncolumns;              /* top-level fields */
    pm_pq_column_stats *stats;    /* ncolumns entries; byte values owned here */
    int64_t pages_copied;         /* offered pages copied whole (pm_pq_writer_offer_page),
                                   * those placed when the last row group closed included */
    int64_t pages_lazy;           /* of them offered lazily (pm_pq_writer_offer_lazy) */
} pm_pq_write_result;

void pm_pq_write_result_free(pm_pq_write_result *r);

typedef struct pm_pq_writer pm_pq_writer;

/* New writer for rows of `row_type` (a ROW, cloned) appending to `out`
 * (borrowed until close/abort).  Writes the leading magic. */
pm_error *pm_pq_writer_new(pm_pq_writer **w, pm_output *out, const pm_type *row_type,
                           const pm_pq_writer_options *opts);
/* Append all rows of the batch (its type must match the writer's; a NOT NULL
 * field containing a null, or a null map key, is PM_EINVALID).  A batch with
 * the wrong shape or a null in a NOT NULL top-level field is rejected before
 * anything is written; a null found deeper (NOT NULL element, member or map
 * key) fails the writer: further writes and close return errors, abort it. */
pm_error *pm_pq_writer_write(pm_pq_writer *w, const pm_batch *b);
/* Encode the leaf columns of large row slices in parallel: the caller's
 * thread and up to threads - 1 jobs on `pool` (borrowed until the next
 * call; NULL or threads <= 1 = the caller's thread only, the default).
 * Each column is encoded by one thread at a time with its own compressor,
 * so the bytes written do not depend on it.  The pool must not be running
 * work that waits for this writer.  May be changed between writes. */
typedef struct pm_pool pm_pool;
void pm_pq_writer_set_pool(pm_pq_writer *w, pm_pool *pool, size_t threads);
/* Plain-source hints per top-level field (plain[i] for field i, n
 * entries; fields past n and a NULL array mean no hint): a field whose
 * values come from column chunks without dictionary-encoded pages (a
 * compaction's input) is written PLAIN from the next column chunk that
 * starts, without a dictionary attempt (pq_write_column.h); the open
 * chunk takes it while it holds no value.  Values are the same either
 * way.  May be changed between writes. */
void pm_pq_writer_set_plain_sources(pm_pq_writer *w, const bool *plain, size_t n);
/* Page copies (pq_page_copy.h): offer top-level field `field` the input
 * page `page` (len bytes: header and compressed body, copied; compressed
 * with `codec`) of a leaf stored as `elem` (the input file's schema
 * element) as the next `rows` rows the caller will write of it, value for
 * value; *taken = false when the field's leaf is stored otherwise or the
 * page does not qualify.  Cancel every offer before writing rows that are
 * not the offered pages'.  An offer ends with its page or the row group. */
pm_error *pm_pq_writer_offer_page(pm_pq_writer *w, size_t field, const pq_schema_element *elem, const uint8_t *page,
                                  size_t len, pm_codec_id codec, int64_t rows, bool *taken);
/* A lazy offer (pq_page_copy.h): as pm_pq_writer_offer_page, with the
 * page's statistics from the input's page index; the rows then written
 * for it carry no values (the column may hold anything there).  Not
 * taken for a field other fields' values mirror, nor when the facts
 * cannot stand for the values. */
typedef struct pq_page_facts pq_page_facts;
pm_error *pm_pq_writer_offer_lazy(pm_pq_writer *w, size_t field, const pq_schema_element *elem, const uint8_t *page,
                                  size_t len, pm_codec_id codec, int64_t rows, const pq_page_facts *facts,
                                  bool *taken);
/* Forget every offer (a lazy offer's rows so far are decoded from its
 * page; an error leaves the writer failed). */
pm_error *pm_pq_writer_cancel_pages(pm_pq_writer *w);
/* Offered pages copied into the file so far; of them offered lazily. */
int64_t pm_pq_writer_pages_copied(const pm_pq_writer *w);
int64_t pm_pq_writer_pages_lazy(const pm_pq_writer *w);
/* Whether rows of a lazy offer are still to come (the file cannot end
 * before them: they have no values but the offered page's). */
bool pm_pq_writer_lazy_pending(const pm_pq_writer *w);
/* Bytes written so far plus the buffered row group (for rolling files). */
uint64_t pm_pq_writer_estimated_size(const pm_pq_writer *w);
int64_t pm_pq_writer_num_rows(const pm_pq_writer *w);
/* Flush the last row group, write the footer and free the writer (also on
 * error). `res` may be NULL. */
pm_error *pm_pq_writer_close(pm_pq_writer *w, pm_pq_write_result *res);
/* Free the writer without finishing the file. NULL is fine. */
void pm_pq_writer_abort(pm_pq_writer *w);

#endif
