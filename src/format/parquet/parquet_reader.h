/*
 * format/parquet/parquet_reader.h — reading a Parquet file into pm_batch
 * columns (Arrow layout), streaming one row group at a time.
 *
 * Usage:
 *   pm_pq_reader *r;
 *   pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;   (all columns)
 *   PM_TRY(pm_pq_reader_open(&r, input, &o));
 *   for (;;) {
 *       pm_batch *b;
 *       PM_TRY(pm_pq_reader_next_batch(r, &b));
 *       if (!b) break;                 (end of file)
 *       ... use b until the next call ...
 *   }
 *   pm_pq_reader_free(r);
 *
 * Open reads the footer (magic, length, thrift FileMetaData) and converts
 * the schema (Parquet → Paimon types, field ids from field_id or position).
 * Each row group that passes the optional filter is read through its
 * projected column chunks, each read in windows of 256 KiB (or one page
 * when larger: memory is bounded by a window plus one decompressed page
 * per projected column, not by the row group's size; pm_pq_reader_memory
 * measures it), and decoded in batches of at most `batch_rows` rows.  A
 * batch never spans row groups.
 * A file of at most 256 KiB is read whole with one read when opened (not
 * for footer_only or chunks_only), its chunks then borrowed from that
 * copy.  A caller holding the parsed footer passes it (options' meta).
 *
 * Errors name the file, row group, column and page.  PM_ECORRUPT for
 * broken bytes, PM_EUNSUPPORTED for valid files using something not
 * supported (codec, encoding, type), PM_EINVALID for bad options (unknown
 * projected column).
 */
#ifndef PM_PARQUET_READER_H
#define PM_PARQUET_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "io/fileio.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct pm_pq_reader pm_pq_reader;

/* Row-group filter: return false to skip row group `rg` (statistics are in
 * pm_pq_reader_meta(r)->row_groups[rg]; pm_pq_reader_leaf_of helps to find
 * a field's column chunk).  Called once per row group, in order. */
typedef bool (*pm_pq_row_group_filter)(void *ctx, const pm_pq_reader *r, uint32_t rg);

typedef struct pm_pq_reader_options {
    int64_t batch_rows;               /* rows per batch; <= 0 means 4096 */
    /* Projection by top-level field name, or by field id (when both are
     * given, names win).  NULL / 0 = every field, in file order.  The batch
     * columns follow the order given here. */
    const char *const *columns;
    size_t ncolumns;
    const int32_t *column_ids;
    size_t ncolumn_ids;
    pm_pq_row_group_filter filter;
    void *filter_ctx;
    size_t max_page_bytes;            /* largest uncompressed page; 0 = 1 GiB */
    bool footer_only;                 /* only footer + schema (fields of unsupported
                                         types allowed); next_batch is PM_EINVALID */
    /* Dictionary passthrough: projected top-level CHAR/VARCHAR fields (by
     * name) to return dictionary-encoded (column.h: int32 ids + the row
     * group's dictionary) when the file allows it: a flat byte-string leaf
     * whose data pages are dictionary-encoded in every row group (column
     * metadata: encoding_stats, else encodings).  Eligibility is decided
     * per file at open (pm_pq_reader_column_encoded); other fields and
     * other files read as plain values.  A page contradicting the metadata
     * is PM_ECORRUPT. */
    const char *const *dict_columns;
    size_t ndict_columns;
    /* Decompression state to use (borrowed, must outlive the reader; one
     * thread at a time): callers reading many files in a row pass one so
     * the codec's context is created once, not per file.  NULL = the
     * reader creates its own. */
    pm_codec_ctx *codec;
    /* The file's footer as the caller already parsed it (borrowed, must
     * outlive the reader; the file's own bytes): open checks the magic and
     * footer length but neither reads nor parses the footer again.  NULL =
     * read from the file. */
    const pm_pq_file_meta *meta;
    /* Never read a small file whole at open: only the projected chunks are
     * read (a caller that reads the file's other parts itself). */
    bool chunks_only;
    /* A reader of the previous file that is done (borrowed; the caller
     * frees it after this open, whatever its result): the new reader takes
     * its chunk buffers, its whole-file buffer when big enough and its
     * batch (columns and spares) when of the same type instead
     * of allocating fresh ones, so reading many files in a row allocates
     * them about once.  The old reader can then only be freed.  NULL =
     * none. */
    pm_pq_reader *recycle;
} pm_pq_reader_options;

#define PM_PQ_READER_OPTIONS_INIT {0, NULL, 0, NULL, 0, NULL, NULL, 0, false, NULL, 0, NULL, NULL, false, NULL}

/* Open from an input (borrowed; must outlive the reader). */
pm_error *pm_pq_reader_open(pm_pq_reader **out, pm_input *in, const pm_pq_reader_options *opts);
/* Open from bytes in memory (borrowed; must outlive the reader). */
pm_error *pm_pq_reader_open_memory(pm_pq_reader **out, const uint8_t *data, size_t len,
                                   const pm_pq_reader_options *opts);
void pm_pq_reader_free(pm_pq_reader *r);

/* The footer; owned by the reader. */
const pm_pq_file_meta *pm_pq_reader_meta(const pm_pq_reader *r);
/* ROW type of the projected fields (ids, names, nullability); owned by the
 * reader.  NULL for a footer_only reader. */
const pm_type *pm_pq_reader_schema(const pm_pq_reader *r);
/* Leaf column index of top-level field `name` when it is a primitive
 * (not nested) field of the file, else -1.  Use it to index
 * row_groups[rg].columns[] for statistics. */
int64_t pm_pq_reader_leaf_of(const pm_pq_reader *r, const char *name);
/* Paimon type of leaf column `leaf` (NULL if it is not supported); owned by the reader. */
const pm_type *pm_pq_reader_leaf_type(const pm_pq_reader *r, uint32_t leaf);

/* Bytes the reader holds for reading: a small file's copy, every projected
 * chunk's window, decompressed page, levels, dictionary and scratch
 * buffers (not the batch it hands out).  Grows while pages load; after the
 * first batch it is about the steady state. */
size_t pm_pq_reader_memory(const pm_pq_reader *r);

/* Byte-string values so far whose offsets the page decoder wrote straight
 * into the batch column (a column's first page of a batch, without nulls;
 * the other pages go through a scratch array): for tests. */
uint64_t pm_pq_reader_offsets_in_place(const pm_pq_reader *r);

/* Whether batch column i comes dictionary-encoded (dict_columns). */
bool pm_pq_reader_column_encoded(const pm_pq_reader *r, size_t i);
/* Whether batch column i was written without a dictionary: in every row
 * group with rows, each of its leaves' chunks has no dictionary page and
 * no dictionary-encoded data page (metadata only).  False when the file
 * has no rows. */
bool pm_pq_reader_column_no_dict(const pm_pq_reader *r, size_t i);

/* Next batch of at most batch_rows rows; *out = NULL at the end.  The batch
 * is owned by the reader and valid until the next call or free. */
pm_error *pm_pq_reader_next_batch(pm_pq_reader *r, pm_batch **out);

/* Pass over the next `rows` rows (of the row groups the filter keeps) as
 * if read by next_batch and dropped: *skipped = rows, fewer only at the
 * end of the file.  Whole row groups inside the stretch are not read; in
 * a row group, a flat leaf's data pages whose rows all lie in the stretch
 * are passed over by their headers, never decompressed (nor checksummed:
 * their values are not used); the pages the stretch starts or ends in are
 * decoded and their values dropped.  Rows may be skipped between any two
 * batches (a row selection, e.g. rows a merge or a deletion vector drops);
 * the batch handed out last stays valid. */
pm_error *pm_pq_reader_skip(pm_pq_reader *r, int64_t rows, int64_t *skipped);
/* Data pages of the projected leaves decompressed and decoded so far, and
 * passed over whole by pm_pq_reader_skip (either may be NULL). */
void pm_pq_reader_page_counts(const pm_pq_reader *r, uint64_t *loaded, uint64_t *skipped);

/* Number of leaf columns, and the error explaining why leaf `leaf` cannot
 * be read (NULL when it can); owned by the reader. */
uint32_t pm_pq_reader_num_leaves(const pm_pq_reader *r);
const pm_error *pm_pq_reader_leaf_error(const pm_pq_reader *r, uint32_t leaf);
/* Dotted path of leaf `leaf` ("a.list.element"); owned by the reader. */
const char *pm_pq_reader_leaf_path(const pm_pq_reader *r, uint32_t leaf);

/* Append the min (max = false) or max statistic of column chunk `leaf` in
 * row group `rg` to `col`, a column of pm_pq_reader_leaf_type(r, leaf), in
 * the column's value layout.  Uses min_value/max_value, or the legacy
 * min/max where their order is the type's (signed numbers, booleans).
 * *present = false (nothing appended) when there is no usable statistic. */
typedef struct pm_column pm_column;
pm_error *pm_pq_reader_stat(const pm_pq_reader *r, uint32_t rg, uint32_t leaf, bool max, pm_column *col,
                            bool *present);

#endif
