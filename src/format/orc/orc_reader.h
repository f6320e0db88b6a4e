/*
 * format/orc/orc_reader.h — reading an ORC file into pm_batch columns
 * (Arrow layout), one stripe at a time.
 *
 * Usage:
 *   pm_orc_reader *r;
 *   pm_orc_reader_options o = PM_ORC_READER_OPTIONS_INIT;   (all columns)
 *   PM_TRY(pm_orc_reader_open(&r, input, &o));
 *   for (;;) {
 *       pm_batch *b;
 *       PM_TRY(pm_orc_reader_next_batch(r, &b));
 *       if (!b) break;                 (end of file)
 *       ... use b until the next call ...
 *   }
 *   pm_orc_reader_free(r);
 *
 * Open reads the file tail (PostScript, Footer; the Metadata with the
 * stripe statistics on first use), checks every length against the file,
 * converts the schema (orc_schema.h: ORC → Paimon types, field ids from
 * the paimon.id attributes or positions) and resolves the projection.
 * Each stripe that passes the optional filter is read by loading its
 * footer and the projected columns' streams (memory: the projected streams
 * of one stripe plus one decompressed chunk per open stream), then decoded
 * in batches of at most `batch_rows` rows; a batch never spans stripes.
 *
 * Values: as Apache Paimon's ORC reader produces them.  timestamp (no
 * time zone) is the wall clock the writer stored (its seconds are counted
 * from 2015-01-01 00:00:00 in the stripe's writer time zone: UTC, GMT and
 * fixed offsets are supported, other zones are PM_EUNSUPPORTED);
 * timestamp with local time zone is the instant (UTC based); both keep
 * nanoseconds and follow orc-core's rule for negative seconds.  char
 * values are right-trimmed of spaces and cut to their length, varchar
 * values cut to theirs (orc-core's readers do both).  Decimals are
 * rescaled from each value's stored scale to the column's (half up).
 *
 * Errors name the file, stripe, column and stream.  PM_ECORRUPT for
 * broken bytes, PM_EUNSUPPORTED for valid files using something not
 * supported (LZO, encryption, union, a time zone), PM_EINVALID for bad
 * options (unknown projected column, a read type that does not fit).
 */
#ifndef PM_ORC_READER_H
#define PM_ORC_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "format/orc/orc_meta.h"
#include "io/fileio.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct pm_orc_reader pm_orc_reader;

/* Stripe filter: return false to skip `stripe` (its statistics are
 * pm_orc_reader_stripe_stats(r, stripe, column), which loads the file's
 * Metadata on first use, hence the non-const reader).  Called once per
 * stripe, in order, before the stripe is read. */
typedef bool (*pm_orc_stripe_filter)(void *ctx, pm_orc_reader *r, uint32_t stripe);

typedef struct pm_orc_reader_options {
    int64_t batch_rows;               /* rows per batch; <= 0 means 4096 */
    /* Projection by top-level field name, or by field id (names win when
     * both are given).  NULL / 0 = every field, in file order.  The batch
     * columns follow the order given here. */
    const char *const *columns;
    size_t ncolumns;
    const int32_t *column_ids;
    size_t ncolumn_ids;
    /* Optional ROW type: the Paimon type to produce for each file field it
     * names (matched by field id, then by name); fields it does not name
     * keep their default type.  Its nullability and field ids are used. */
    const pm_type *read_type;
    pm_orc_stripe_filter filter;
    void *filter_ctx;
    size_t max_value_bytes;           /* largest string/binary value; 0 = 1 GiB */
    size_t max_batch_elements;        /* list/map elements of one column in one batch;
                                         0 = 2^27 (more is PM_EUNSUPPORTED: use smaller batches) */
    bool footer_only;                 /* only the tail and schema (unsupported types allowed);
                                         next_batch is PM_EINVALID */
    /* Decompression state to use (borrowed, must outlive the reader; one
     * thread at a time); NULL = the reader creates its own. */
    pm_codec_ctx *codec;
} pm_orc_reader_options;

#define PM_ORC_READER_OPTIONS_INIT {0, NULL, 0, NULL, 0, NULL, NULL, NULL, 0, 0, false, NULL}

/* Open from an input (borrowed; must outlive the reader). */
pm_error *pm_orc_reader_open(pm_orc_reader **out, pm_input *in, const pm_orc_reader_options *opts);
/* Open from bytes in memory (borrowed; must outlive the reader). */
pm_error *pm_orc_reader_open_memory(pm_orc_reader **out, const uint8_t *data, size_t len,
                                    const pm_orc_reader_options *opts);
void pm_orc_reader_free(pm_orc_reader *r);

/* ROW type of the projected fields; owned by the reader.  NULL for a
 * footer_only reader. */
const pm_type *pm_orc_reader_schema(const pm_orc_reader *r);
/* Next batch of at most batch_rows rows; *out = NULL at the end.  The batch
 * is owned by the reader and valid until the next call or free. */
pm_error *pm_orc_reader_next_batch(pm_orc_reader *r, pm_batch **out);

/* ---- file facts ---- */
typedef struct pm_orc_file_info {
    uint64_t rows;
    uint32_t nstripes;
    uint32_t ncolumns;            /* ORC columns (types), the root struct included */
    uint32_t compression;         /* orc_compression */
    uint64_t block_size;          /* compression block size */
    uint32_t row_index_stride;
    uint32_t version[2];          /* file version, e.g. 0.12 */
    uint32_t writer;              /* Footer.writer (0 = ORC Java) */
    uint32_t writer_version;      /* PostScript.writerVersion */
    const char *software_version; /* NULL when absent */
    uint32_t calendar;
    uint64_t content_length;
} pm_orc_file_info;
const pm_orc_file_info *pm_orc_reader_info(const pm_orc_reader *r);

/* The footer: stripes, types (with attributes), user metadata, file
 * statistics per column id; owned by the reader. */
const orc_footer *pm_orc_reader_footer(const pm_orc_reader *r);
/* ORC column id of top-level field `name`, or -1. */
int64_t pm_orc_reader_column_of(const pm_orc_reader *r, const char *name);
/* File statistics of ORC column `column` (NULL when the file has none). */
const pm_orc_stats *pm_orc_reader_file_stats(const pm_orc_reader *r, uint32_t column);
/* Statistics of `column` in stripe `s` from the Metadata section (parsed
 * on first use; a broken section makes every call return NULL and
 * pm_orc_reader_metadata_error says why). */
const pm_orc_stats *pm_orc_reader_stripe_stats(pm_orc_reader *r, uint32_t stripe, uint32_t column);
const pm_error *pm_orc_reader_metadata_error(const pm_orc_reader *r);
/* The row index of `column` in stripe `s` (read from the stripe's
 * ROW_INDEX stream; arena-owned by the reader until free).  PM_ENOTFOUND
 * when the stripe has none. */
pm_error *pm_orc_reader_row_index(pm_orc_reader *r, uint32_t stripe, uint32_t column, const orc_row_index **out);
/* The stripe footer of stripe `s` (streams, encodings, writer time zone). */
pm_error *pm_orc_reader_stripe_footer(pm_orc_reader *r, uint32_t stripe, const orc_stripe_footer **out);

#endif
