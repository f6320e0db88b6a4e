/*
 * format/parquet/pqr_chunk.h — reading one column chunk: its state, and
 * its values converted to the leaf's Paimon layout (see pqr_schema.h).
 * The pages (headers, decompression, levels, value decoder setup) are the
 * page reader's (page_reader.h).
 *
 * The caller (parquet_reader.c) reads the chunk's bytes into `raw` and calls
 * pqr_chunk_start.  pqr_chunk_next_page (page_reader.h) loads the next data
 * page: afterwards def[] / rep[] hold the page's levels (n entries, entry
 * `pos` is the next unconsumed one) and pqr_chunk_values hands out the
 * page's non-null values in order.
 */
#ifndef PM_PARQUET_PQ_CHUNK_H
#define PM_PARQUET_PQ_CHUNK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "codec/codec.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_decode.h"
#include "format/parquet/pqr_schema.h"
#include "types/column.h"

/* Where decoded values go, in the leaf's target layout:
 *   PQR_FIXED  fixed: n * width bytes
 *   PQR_BOOL   fixed: n bytes, 0 or 1
 *   PQR_VAR    offsets: n+1 int32 relative to data->len at the call
 *              (offsets[0] = 0); bytes appended to data
 * A chunk read as dictionary ids (ids_out) hands out the ids instead. */
typedef struct pqr_dest {
    uint8_t *fixed;
    int32_t *offsets;
    pm_buf *data;
    uint32_t *ids;
} pqr_dest;

typedef struct pqr_chunk {
    const pqr_leaf *leaf;
    const pq_column_meta *cm;
    pm_codec_ctx *codec;        /* borrowed */
    size_t max_page;            /* largest uncompressed page accepted */
    pm_buf raw;                 /* the chunk's bytes when read from a file */
    const uint8_t *data;        /* chunk bytes [win_start, win_start + win_len) (raw.data or borrowed) */
    size_t len;                 /* the whole chunk's length */
    size_t raw_pos;             /* chunk offset of the next page header */
    /* Windowed reading (read != NULL): only the bytes around the current
     * page are held, `window` bytes at a time (at least one page), read
     * through read(read_ctx, file_off + chunk offset, ...).  Without it the
     * whole chunk is at data (win_start 0, win_len len). */
    pm_error *(*read)(void *ctx, uint64_t off, void *buf, size_t n);
    void *read_ctx;
    uint64_t file_off;
    size_t window;
    size_t win_start, win_len;
    int64_t entries_seen;       /* level entries in the pages loaded so far */
    uint32_t page_no;           /* pages seen, for messages */
    int64_t records;            /* records (rep level 0 entries) consumed */
    uint64_t pages_loaded;      /* data pages decompressed and decoded (kept across chunks) */
    uint64_t pages_skipped;     /* data pages passed over whole, never decompressed (pqr_chunk_skip_pages) */
    /* Per node of the leaf's path: the current instance holds elements (an
     * ARRAY/MAP with d >= elem_def, a non-null ROW), so a later entry may
     * continue it.  Kept across pages. */
    uint8_t open_inst[PQR_MAX_PATH];

    /* dictionary, already in the target layout */
    bool has_dict;
    uint32_t dict_n;
    pm_buf dict_fixed, dict_off, dict_data;
    /* Dictionary ids instead of values (byte-string leaves whose data pages
     * are all dictionary-encoded, see pm_pq_reader_options.dict_columns):
     * values hands out ids; the dictionary as a column, built on demand. */
    bool ids_out;
    pm_column *dict_col;

    /* current data page */
    pm_buf page;                /* decompressed bytes */
    uint32_t n, pos;            /* level entries, next entry */
    pm_buf def, rep;            /* uint16 levels (only when max_def / max_rep > 0) */
    uint32_t nvalid, vused;     /* non-null values in page, handed out */
    int32_t enc;
    const uint8_t *vp, *vend;   /* value bytes */
    uint64_t bool_bit;
    pqd_rle rle;
    pqd_delta delta;
    pm_buf lens, prefix, prev;  /* DELTA_(LENGTH_)BYTE_ARRAY state */
    uint32_t var_index;
    size_t bss_count;

    pm_buf scratch, scratch_off, scratch_data, idx;
} pqr_chunk;

void pqr_chunk_init(pqr_chunk *c, const pqr_leaf *leaf, pm_codec_ctx *codec, size_t max_page);
void pqr_chunk_free(pqr_chunk *c);
/* c (just initialized) takes the storage of `from`'s buffers (window, page,
 * levels, dictionary, scratch: capacity only, contents undefined, length
 * 0), which become empty; `from` stays a chunk that can only be freed.  A
 * reader of many files in a row so allocates them once, not per file. */
void pqr_chunk_take_buffers(pqr_chunk *c, pqr_chunk *from);
/* Bytes of the chunk's buffers (window, page, levels, dictionary, scratch). */
size_t pqr_chunk_memory(const pqr_chunk *c);
/* Begin reading the chunk whose bytes are at c->data / c->len (or, with
 * c->read set, are read window by window from c->file_off). */
void pqr_chunk_start(pqr_chunk *c, const pq_column_meta *cm);
/* Windowed reading: make chunk bytes [raw_pos, raw_pos + need) available
 * at c->data + (raw_pos - win_start) (need is cut to the chunk's end). */
pm_error *pqr_chunk_window(pqr_chunk *c, size_t need);
/* Next n non-null values of the current page into dest. */
pm_error *pqr_chunk_values(pqr_chunk *c, size_t n, const pqr_dest *dest);
/* The chunk's dictionary as a column of `type` (no nulls), owned by the
 * chunk until its next dictionary; empty when the chunk has none. */
pm_error *pqr_chunk_dict_column(pqr_chunk *c, const pm_type *type, pm_column **out);
/* Whether every data page of the chunk is dictionary-encoded by its
 * metadata (encoding_stats, else the encodings list without PLAIN). */
bool pqr_chunk_meta_all_dict(const pq_column_meta *cm);
/* Whether the chunk has no dictionary by its metadata: no dictionary page
 * and no dictionary-encoded data page (encoding_stats, else the encodings
 * list and dictionary_page_offset). */
bool pqr_chunk_meta_no_dict(const pq_column_meta *cm);

/* PM_EUNSUPPORTED: the encoding `enc` for the leaf's physical type. */
pm_error *pqr_chunk_bad_encoding(const pqr_chunk *c, int32_t enc);

/* The dictionary page's `count` values (PLAIN, `len` bytes at p),
 * decoded once into the target layout (the page reader calls it). */
pm_error *pqr_chunk_load_dictionary(pqr_chunk *c, const uint8_t *p, size_t len, int32_t count, int32_t enc);

/* Convert one physical value (len bytes: the fixed width, or a BYTE_ARRAY
 * value) to the leaf's fixed target layout at out (width bytes). */
pm_error *pqr_convert_one(const pqr_leaf *L, const uint8_t *phys, size_t len, uint8_t *out);

static inline const uint16_t *pqr_chunk_def(const pqr_chunk *c) { return (const uint16_t *)(const void *)c->def.data; }
static inline const uint16_t *pqr_chunk_rep(const pqr_chunk *c) { return (const uint16_t *)(const void *)c->rep.data; }

#endif
