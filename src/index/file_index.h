/*
 * index/file_index.h — Paimon's data-file indexes (the `file-index`
 * format): options, the writer of one data file's index, and the reader
 * that tells whether a file may hold rows of `column IN (values)` atoms.
 *
 * Options (FileIndexOptions):
 *   file-index.<type>.columns        comma list of top-level columns;
 *                                    types bloom-filter, bitmap, bsi,
 *                                    range-bitmap (others PM_EUNSUPPORTED;
 *                                    `col[key]` map entries PM_EUNSUPPORTED)
 *   file-index.<type>.<col>.<opt>    bloom-filter: items (1000000), fpp
 *                                    (0.1); bitmap: version (2),
 *                                    index-block-size (16kb); range-bitmap:
 *                                    chunk-size (16kb; 0b for BOOLEAN,
 *                                    TINYINT, SMALLINT); an option for a
 *                                    column not listed is PM_EINVALID, as
 *                                    in Java; other option names, which
 *                                    Java keeps unused, are refused
 *                                    (PM_EINVALID); keys of another shape
 *                                    (file-index.bitmap.version: two
 *                                    parts) are ignored, as Java's
 *                                    FileIndexOptions ignores them (such
 *                                    keys exist in Java-written tables)
 *   file-index.in-manifest-threshold index bytes above it go to a sidecar
 *                                    `<data file>.index` (listed in
 *                                    _EXTRA_FILES), else into
 *                                    _EMBEDDED_FILE_INDEX (500 B)
 *   file-index.read.enabled          reads use the indexes (true)
 *
 * Container (FileIndexFormat, all integers big-endian):
 *   magic i64 1493475289347502 | version i32 1 | head length i32 (magic
 *   included) | column count i32 | per column: name (writeUTF), index
 *   count i32, per index: type (writeUTF), start i32 (from the beginning
 *   of the file), length i32 | redundant length i32 0 | bodies.
 * Order: Java writes columns and index types in java.util.HashMap order
 * (index/fi_java.h) of maps filled from the table options (the bodies in
 * the order of one map, the head in that of a copy filled by
 * computeIfAbsent, so two columns of one bucket may be listed in the
 * other order than their bodies); the options parser computes both orders
 * and the writer follows them.  The insertion order of Java's option map
 * is taken to be the order of the table options.
 *
 * Per index type (fi_bloom.c, fi_bitmap.c, fi_bsi.c, fi_range.c; the
 * layouts are in their headers' comments).
 */
#ifndef PM_INDEX_FILE_INDEX_H
#define PM_INDEX_FILE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "meta/options.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct pm_column pm_column;

#define PM_FI_MAGIC INT64_C(1493475289347502)

typedef enum pm_fi_kind { PM_FI_BLOOM, PM_FI_BITMAP, PM_FI_BSI, PM_FI_RANGE_BITMAP } pm_fi_kind;

/* One index of one column. */
typedef struct pm_fi_spec {
    char *column;
    pm_fi_kind kind;
    int32_t bloom_items;
    double bloom_fpp;
    int32_t bitmap_version;
    int64_t bitmap_block_size;
    bool has_chunk_size;
    int64_t chunk_size;
} pm_fi_spec;

typedef struct pm_fi_options {
    pm_fi_spec *specs;   /* in the order of the bodies, a column's indexes together (see top) */
    size_t nspecs;
    size_t *head;        /* head[k]: the body column group (0-based) the head lists k-th */
    size_t ncolumns;
    int64_t in_manifest_threshold;
    bool read_enabled;
} pm_fi_options;

/* Parse the table options (see top); no index options → nspecs 0. */
pm_error *pm_fi_options_parse(const pm_options *o, pm_fi_options *out);
void pm_fi_options_clear(pm_fi_options *o);
/* The index type's name in options and files ("bloom-filter", ...). */
const char *pm_fi_kind_name(pm_fi_kind k);
/* Every indexed column exists in `row_type` with a type its index takes
 * (else PM_EINVALID / PM_EUNSUPPORTED naming column and type). */
pm_error *pm_fi_options_check(const pm_fi_options *o, const pm_type *row_type);

/* ---- writing one data file's index ---- */
typedef struct pm_fi_writer pm_fi_writer;

/* Indexes of the columns of `row_type` (borrowed until free); the checks
 * of pm_fi_options_check run first. */
pm_error *pm_fi_writer_new(pm_fi_writer **out, const pm_fi_options *o, const pm_type *row_type);
/* Rows [from, to) of `cols` (one column per field of row_type). */
pm_error *pm_fi_writer_add(pm_fi_writer *w, pm_column *const *cols, int64_t from, int64_t to);
/* The container bytes of the rows added since the last finish (appended
 * to out); the writer starts over for the next file. */
pm_error *pm_fi_writer_finish(pm_fi_writer *w, pm_buf *out);
void pm_fi_writer_free(pm_fi_writer *w);

/* ---- reading ---- */
typedef struct pm_fi_entry {
    char *column;
    char *type;
    uint32_t start, length;  /* validated against the bytes */
} pm_fi_entry;

typedef struct pm_fi_file {
    const uint8_t *data;     /* borrowed */
    size_t len;
    pm_fi_entry *entries;
    size_t nentries;
} pm_fi_file;

/* Parse a container (bytes borrowed until clear).  PM_ECORRUPT for a bad
 * magic, version, head length or an entry outside the bytes. */
pm_error *pm_fi_file_parse(const uint8_t *p, size_t n, pm_fi_file *out);
void pm_fi_file_clear(pm_fi_file *f);

/* `column` (its name in the file's schema, its type there) IN the rows of
 * `values` (a column of that type, no nulls; one row for `=`). */
typedef struct pm_fi_atom {
    const char *column;
    const pm_type *type;
    const pm_column *values;
} pm_fi_atom;

/* May the file hold a row satisfying every atom (AND)?  Each atom is
 * tested with every index of its column (index types paimon-c does not
 * know, and columns without an index, cannot exclude anything); an atom
 * whose indexes exclude the file, or rows sets whose intersection is
 * empty, give *may = false.  PM_ECORRUPT for a broken index. */
pm_error *pm_fi_file_may_match(const pm_fi_file *f, const pm_fi_atom *atoms, size_t n, bool *may);

#endif
