/*
 * format/parquet/pq_write_column.h — the writer of one leaf column: levels,
 * values, pages and the column chunk of the current row group.
 *
 * A pq_colw encodes rows of its leaf into the current page (levels through
 * RLE encoders, values as dictionary ids or PLAIN bytes, statistics on the
 * side), closes pages at the size/row limits (compress, page header, CRC,
 * append to the chunk buffer) and, at the end of a row group, writes the
 * chunk (dictionary page first) to the output and describes it for the
 * footer.  Dictionary rules follow parquet-java's FallbackValuesWriter:
 *   - PARQUET_1_0 dictionary-encodes every physical type but BOOLEAN and
 *     FIXED_LEN_BYTE_ARRAY;
 *   - after every value, a dictionary larger than dictionary_page_size
 *     makes the column fall back to PLAIN for the rest of the chunk; the
 *     current page is rewritten PLAIN and the dictionary page keeps only the
 *     entries written pages use;
 *   - the first page of a chunk also falls back when ids + dictionary are
 *     not smaller than the PLAIN size;
 *   - page size counts raw PLAIN bytes (byte strings and INT96: 4 + length)
 *     even when
 *     dictionary-encoded.
 * Dictionary-encoded input columns (column.h; compaction's dictionary
 * passthrough): the first dictionary a chunk meets while its own is still
 * empty is adopted (its entries become the chunk's, each input id maps to
 * one; values are not hashed again), later batches of that dictionary, or
 * of one with the same entries in the same order (the same dictionary in
 * another input file), write their ids through the map; a batch with
 * another dictionary, or one arriving after values were hashed, makes the
 * column fall back to PLAIN for the rest of the row group (the open page
 * too, as parquet-java's fallback; pages written keep theirs).  A
 * dictionary larger than dictionary_page_size is not adopted: the chunk
 * falls back.  Plain batches after an adoption are hashed as usual.
 * Plain-source hint (pq_colw_set_plain_source; compaction: the input's
 * chunk of this column held no dictionary-encoded page, so its writer
 * found the dictionary not worth it): a chunk that starts while the hint
 * is on is written PLAIN without a dictionary attempt (no hashing, no
 * fallback); the hint is read when a chunk starts (its first value), so a
 * chunk keeps the choice it started with.  Values are the same either way.
 *
 * Statistics are kept per page (byte strings in dictionary mode are
 * compared once per distinct entry per page) and merged into the chunk's;
 * every page is recorded for the chunk's page index (pq_write_index.h).
 *
 * pq_levels computes definition/repetition levels and the positions of
 * present values for a nested leaf (see pq_schema_write.h for the levels).
 */
#ifndef PM_PQ_WRITE_COLUMN_H
#define PM_PQ_WRITE_COLUMN_H

#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_writer.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_schema_write.h"
#include "format/parquet/pq_stats.h"
#include "format/parquet/pq_write_index.h"
#include "io/fileio.h"
#include "types/column.h"

typedef struct pq_levels {
    uint16_t *def, *rep;    /* one entry per level */
    size_t n, cap;
    int64_t *pos;           /* positions of present values in leaf_col */
    size_t npos, pos_cap;
    const pm_column *leaf_col;
    int64_t nulls;          /* entries with def < max_def (nulls and empty lists) */
} pq_levels;

void pq_levels_free(pq_levels *lv);
/* Levels and value positions of rows [r0, r1) of `top` for `leaf`.
 * PM_EINVALID for a null in a NOT NULL field or a null map key, or for
 * inconsistent offsets. */
pm_error *pq_levels_compute(pq_levels *lv, const pq_leaf *leaf, const pm_column *top, int64_t r0,
                            int64_t r1);

/* The finished data pages of a chunk: header + body each, appended into
 * blocks (the first four of 64, 128, 256, 512 KiB, then PQ_PAGE_BLOCK, or
 * one page when larger; a page never spans blocks), so
 * a growing chunk is never copied to a bigger buffer; blocks are kept for
 * the next row group. */
#define PQ_PAGE_BLOCK (1u << 20)
typedef struct pq_page_blocks {
    pm_buf *blocks;               /* [0, nused) hold pages; the rest are spare */
    size_t nused, nblocks;
    uint64_t len;                 /* bytes of all pages */
} pq_page_blocks;

/* `need` contiguous bytes at the end (a new block when the last one lacks
 * room: a spare of the chunk's, of `pool` or new): *at is where the caller
 * writes them.  (Also compaction's copied chunks:
 * compact_page_passthrough.c.)  pool: borrowed, NULL allowed. */
pm_error *pq_page_blocks_take(pq_page_blocks *pb, pm_buf_pool *pool, size_t need, uint8_t **at);
/* Empty, the blocks kept as spares. */
void pq_page_blocks_clear(pq_page_blocks *pb);
/* Every block goes to `pool` (freed when NULL or full); pb becomes empty. */
void pq_page_blocks_free(pq_page_blocks *pb, pm_buf_pool *pool);
/* Write the bytes in order. */
pm_error *pq_page_blocks_write(const pq_page_blocks *pb, pm_output *out);

typedef struct pq_colw {
    const pq_leaf *leaf;
    const pm_pq_writer_options *opt;
    pm_codec_ctx *codec;          /* shared, borrowed */

    /* current page */
    pm_buf rep_buf, def_buf;
    pq_rle_encoder rep_enc, def_enc;
    int rep_width, def_width;
    pm_buf vals;                  /* PLAIN values, after vals_room bytes kept for the levels */
    size_t vals_room;
    uint8_t bool_acc;             /* BOOLEAN: partial byte */
    int bool_bits;
    uint32_t *ids;                /* dictionary ids of the page */
    size_t nids, ids_cap;
    int64_t page_values;          /* level entries (num_values) */
    int64_t page_rows;
    int64_t page_raw;             /* PLAIN-equivalent value bytes */
    pq_stats pstats;              /* statistics of the page */
    int64_t page_unencoded;       /* BYTE_ARRAY value bytes of the page */
    int64_t *rep_hist, *def_hist; /* level histograms of the page (NULL when not kept) */
    uint32_t *seen;               /* dictionary entry -> epoch of the page that counted it */
    size_t seen_cap;
    uint32_t epoch;               /* the page's epoch, never 0 */

    /* dictionary */
    bool dict_on;                 /* values currently go through the dictionary */
    bool plain_source;            /* hint: the values come from a chunk without dictionary */
    bool first_page;              /* no page written yet in this chunk */
    bool bytes_generic;           /* fault point pq-bytes-generic: PLAIN byte strings only through the general step */
    uint32_t dict_used;           /* entries used by written pages */
    pq_dict dict;
    pm_column *fwd_dict;          /* the adopted input dictionary of this chunk (a reference), or NULL */
    uint32_t *fwd_map;            /* its entry -> chunk dictionary id */
    size_t fwd_map_cap;

    /* chunk of the current row group */
    pq_page_blocks chunk;         /* data pages: header + body each */
    int64_t chunk_values;
    int64_t chunk_uncompressed;   /* headers + uncompressed bodies of data pages */
    int32_t pages_dict, pages_plain;
    bool used_rle_levels, used_bitpacked_levels;
    pq_stats stats;               /* this chunk */
    pq_stats total;               /* all row groups */
    pq_page_index pidx;           /* pages of this chunk */
    int64_t chunk_rows;
    pm_buf ci_ser, oi_ser;        /* the last flushed chunk's ColumnIndex / OffsetIndex */
    bool has_ci;                  /* ci_ser holds a ColumnIndex */
    double avg_row_bytes;         /* nested leaves: raw bytes per row estimate */
    int32_t last_comp;            /* compressed size of the last data page (its header's length guess) */

    /* an offered input page (pq_page_copy.h) */
    pm_buf copy;                  /* its header and compressed body */
    int64_t copy_rows;            /* > 0: the open page becomes it at this many rows */
    int64_t copy_uncompressed;    /* its header + uncompressed body */
    int64_t copied;               /* offered pages taken into chunks so far */
    /* a lazy offer (pq_page_copy.h): the rows given for it carry no values */
    bool copy_lazy;
    int64_t copied_lazy;          /* of the pages copied, those offered lazily */
    int64_t lazy_nulls, lazy_unencoded, lazy_body, lazy_total;
    int64_t subst_at, subst_left; /* the next rows given are lazy_col's rows subst_at.. */
    bool lazy_all_null;
    pm_buf lazy_min, lazy_max;    /* PLAIN bytes from the input's page index */
    pm_buf lazy_page;             /* scratch: the page decompressed when its rows are needed */
    pm_column *lazy_col;          /* scratch: those rows */

    /* scratch */
    pm_buf body, comp, hdr;
    pq_levels lv;
} pq_colw;

pm_error *pq_colw_init(pq_colw *cw, const pq_leaf *leaf, const pm_pq_writer_options *opt,
                       pm_codec_ctx *codec);
void pq_colw_free(pq_colw *cw);
/* Set the plain-source hint (see the top); it decides the dictionary of
 * the chunk at its start: the current chunk only while it has no value. */
void pq_colw_set_plain_source(pq_colw *cw, bool plain);
/* Encode rows [r0, r1) of the top-level column `top`. */
pm_error *pq_colw_write(pq_colw *cw, const pm_column *top, int64_t r0, int64_t r1);
/* Buffered bytes of the current row group as parquet-java counts them:
 * finished pages, the open page's levels and raw values; no dictionary. */
uint64_t pq_colw_buffered(const pq_colw *cw);
/* Raw PLAIN bytes of one fixed-width value of the leaf (BOOLEAN counts 1,
 * INT96 12; 0 for byte strings), as the page limits count them. */
int pq_raw_width(const pq_leaf *l);
/* Raw bytes of the open page as the page limits count them (its levels
 * so far and the PLAIN-equivalent size of its values). */
int64_t pq_colw_page_bytes(const pq_colw *cw);
/* Rows [r0, r0 + n) of a flat leaf's column into the open page, whatever
 * the page limits (the rows of a lazy offer whose values are needed after
 * all, pq_page_copy.c). */
pm_error *pq_colw_put_rows(pq_colw *cw, const pm_column *col, int64_t r0, int64_t n);
/* Close the open page (compress it, append it to the chunk); nothing when
 * it holds no value.  (Pages merged from PLAIN input pages: pq_page_merge.h.) */
pm_error *pq_colw_close_page(pq_colw *cw);
/* Close the open page, write the chunk at the output's position and fill
 * `cc` (strings and arrays from `a`; the page-index fields are left to the
 * caller, who writes ci_ser / oi_ser later); resets for the next row group. */
pm_error *pq_colw_flush_chunk(pq_colw *cw, pm_output *out, pm_arena *a, pq_column_chunk *cc);
/* pq_colw_flush_chunk in two steps, so that a chunk can be written more
 * than once (a leaf whose values are another's, parquet_writer.c): write
 * closes the open page, writes the chunk at the output's position and
 * fills `cc` describing it as leaf `l` (path, statistics and page index of
 * that leaf: `l` must be cw's leaf or one of identical type and levels);
 * reset folds the chunk's statistics into the file's and starts the next
 * chunk. */
pm_error *pq_colw_write_chunk(pq_colw *cw, const pq_leaf *l, pm_output *out, pm_arena *a, pq_column_chunk *cc);
pm_error *pq_colw_reset_chunk(pq_colw *cw);

#endif
