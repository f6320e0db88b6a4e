/*
 * compact/pk/pk_exec.h — the state of one primary-key compaction task and
 * the phases that share it (internal to src/compact/pk/).
 *
 * pm_pk_exec holds what every phase reads — the task, its schema, the
 * merge layouts and engines — and one struct per phase:
 *   o   output of the rewrite: the pending output batch and the unchanged
 *       records gathered for it                         (pk_rewrite.c)
 *   lk  lookup of the retained levels above the output level (LookupLevels)
 *                                                       (lookup_levels.c)
 *   cl  changelog production (lookup and full-compaction producers)
 *                                                       (changelog_producer.c)
 *   dv  the bucket's deletion vectors                   (pk_dv.c)
 * Sorted runs are read through run sources (pk_source.c); the task's steps
 * (upgrade, rewrite) are driven by pk_execute.c.
 *
 * Records in the merge have the input layout [_SEQUENCE_NUMBER,
 * _VALUE_KIND, every field]; output rows the KeyValue layout [_KEY_*,
 * _SEQUENCE_NUMBER, _VALUE_KIND, every field].
 */
#ifndef PM_COMPACT_PK_EXEC_H
#define PM_COMPACT_PK_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "codec/codec.h"
#include "compact/pk/pk_compact.h"
#include "dv/dv_maintainer.h"
#include "lsm/interval_partition.h"
#include "lsm/kv.h"
#include "lsm/levels.h"
#include "lsm/merge_engine.h"
#include "lsm/merge_reader.h"
#include "table/file_read.h"
#include "table/pk_file_writer.h"
#include "table/pk_spill.h"

#define PM_PK_SEQ_ID 2147483646     /* field id of _SEQUENCE_NUMBER */
#define PM_PK_KIND_ID 2147483645    /* field id of _VALUE_KIND */
#define PM_PK_POS_ID 2147483600     /* lookup: _POS BIGINT, the row's position in its file */
#define PM_PK_FILE_ID 2147483601    /* lookup: _FILE INT, the file's index in lk.files */
#define PM_PK_OUT_ROWS 4096         /* rows of an output (and changelog) batch */
#define PM_PK_READ_ROWS 4096        /* rows of a batch read from a file */
#define PM_PK_SKIP_MIN 1024         /* shortest superseded stretch passed over (pk_superseded.c) */

/* File rows [start, end) of an input file whose records are all
 * superseded (pk_superseded.c). */
typedef struct pm_pk_skip {
    int64_t start, end;
} pm_pk_skip;

/* One input file's superseded stretches, ascending; `at` is the reader's
 * cursor (pk_source.c). */
typedef struct pm_pk_file_skips {
    pm_pk_skip *r;
    size_t n, cap, at;
    int64_t cur_start, cur_end;   /* the stretch being grown */
} pm_pk_file_skips;

/* The pending output batch, and the records kept unchanged (a lone record,
 * a deduplicate winner) gathered column by column: pinned input batches
 * (their columns retained, so the merge may release the batches) and the
 * pending output rows as runs of consecutive rows of one pin (copied per
 * run, types/column.h pm_column_append_runs). */
typedef struct pm_pk_output {
    pm_batch *out;                /* KV type */
    int64_t nout;
    size_t *src_col;              /* output column → input column */
    size_t nin;                   /* input columns */
    pm_column ***pins;            /* pins[p][c]: retained input columns */
    size_t npins, cap_pins;
    pm_column_run *runs;          /* PM_PK_OUT_ROWS at most */
    size_t nruns;
    const pm_column **srcs;       /* scratch: one column of every pin */
} pm_pk_output;

/* Page copies (pk_page_copy.c): the data pages of one input file's
 * columns, and the stretch of consecutive rows of one input file the
 * output is taking. */
typedef struct pm_pk_page {
    int64_t first_row, rows;      /* within the file */
    int64_t offset;               /* of its header in the file */
    int32_t size;                 /* header + compressed body */
    /* its statistics from the input's page index (facts: known; a lazy
     * offer, pq_page_copy.h) */
    bool facts, all_null;
    uint32_t min_len, max_len;
    const uint8_t *min, *max;     /* in the file pages' arena */
    int64_t nulls, unencoded;
} pm_pk_page;

typedef struct pm_pk_col_pages {
    const pq_schema_element *elem; /* the input leaf's (NULL: the column is not copied) */
    pm_codec_id codec;
    pm_pk_page *pages;
    size_t n, next;               /* next: the first page not yet passed */
} pm_pk_col_pages;

typedef struct pm_pk_file_pages {
    uint64_t serial;              /* unique in the task (x->cp.serials) */
    pm_arena arena;               /* page statistics */
    pm_input *in;                 /* the file reader's (borrowed; NULL once it closed) */
    size_t ncols;                 /* input batch columns */
    pm_pk_col_pages *cols;
} pm_pk_file_pages;

typedef struct pm_pk_copy {
    bool enabled;                 /* compaction.parquet.page-passthrough */
    bool lazy;                    /* offers with the input's page statistics, whose
                                     rows carry no values (pq_page_copy.h) */
    bool on;                      /* in the section being merged */
    const pm_kv_source *srcs;     /* the section's run sources */
    size_t nsrcs;
    pm_pk_file_writer *w;
    /* the stretch: rows of one file in order, next_row the next expected */
    uint64_t serials;             /* file pages numbered so far */
    pm_pk_file_pages *spages;     /* the stretch's file (NULL: none; valid while its serial is sserial) */
    uint64_t sserial;
    int64_t next_row;
    int64_t next_start;           /* the first page start of any column at or after next_row */
    bool offered;                 /* the writer holds offers of this stretch */
    pm_buf page;                  /* one page's bytes */
    int64_t offers;               /* pages the writer took on offer */
    /* value columns read on demand (pk_source.c): per input batch column,
     * the file rows [lazy_start, lazy_end) of the stretch's page that every
     * output column of it took on a lazy offer (their values are not read) */
    bool lazy_srcs;               /* the section's sources hand out placeholders */
    int64_t *lazy_start, *lazy_end;
    size_t nlazy;
} pm_pk_copy;

/* The retained levels above the output level (first-row: key fields only;
 * deletion vectors and changelog: whole rows with _POS and _FILE), and the
 * scratch group of a key with the record looked up. */
typedef struct pm_pk_lookup {
    pm_levels *levels;            /* NULL = nothing retained */
    struct pm_lookup_cache *cache; /* local-cache.enabled: point lookups in Lookup Files */
    const pm_lsm_file **files;    /* the retained files, levels ascending (_FILE numbering) */
    size_t nfiles;
    const pm_type *fields;        /* fields read (the row type, or keys) */
    pm_type *keys;                /* first-row: the key fields */
    pm_type *type;                /* merge type of lookup batches */
    pm_kv_layout layout;
    pm_kv_keyenc *enc_in, *enc_lk; /* with sequence fields: the order of a history record */
    pm_buf ka, kb;
    pm_kv_rec *tmp;               /* a group with its history record */
    size_t tmp_cap, ntmp;
} pm_pk_lookup;

/* Changelog production: one rolling changelog writer per task. */
typedef struct pm_pk_changelog {
    pm_pk_file_writer *w;         /* opened at the first event */
    pm_batch *batch;
    int64_t n;
    bool row_dedup, ignore_ub, ignore_delete;
    bool full;                    /* changelog-producer=full-compaction and the output is the max level */
    bool *compare;                /* value fields compared by row-deduplicate */
    pm_batch *one;                /* scratch: one result image */
    pm_buf va, vb;
} pm_pk_changelog;

/* The bucket's deletion vectors (deduplicate, partial-update, aggregation). */
typedef struct pm_pk_dv {
    pm_dv_maintainer *m;
} pm_pk_dv;

typedef struct pm_pk_exec {
    pm_table *t;
    const pm_compact_task *task;
    const pm_compact_pk *pk;
    const pm_schema *schema;
    pm_schema wschema;            /* shallow copy with wopts */
    pm_options *wopts;            /* the task's output format, compression, row-group cap */
    char *dir;                    /* bucket directory */
    int32_t max_level;
    int64_t budget;               /* memory share of the task (bytes; 0 = none) */
    pm_type *in_type;             /* merge input */
    pm_kv_layout in_layout;
    pm_type *kv_type;             /* output */
    size_t nkey;
    pm_kv_layout out_layout;
    bool dedup, ignore_delete;
    bool skip_superseded;         /* compaction.pk.skip-superseded (pk_superseded.c) */
    bool lookup;                  /* retained levels are looked up: first-row, deletion
                                     vectors, changelog-producer=lookup, force-lookup */
    bool lookup_merge;            /* LookupMergeFunction (lookup, not first-row): a key's
                                     level-0 records merge with its lowest positive-level
                                     record only */
    pm_merge_fn *mf;              /* reducer mode */
    pm_merge_fn *mf_full;         /* lookup rewrites */
    pm_pk_spill *spill;           /* merges beyond memory or fan-in */
    pm_pk_output o;
    pm_pk_lookup lk;
    pm_pk_changelog cl;
    pm_pk_dv dv;
    pm_pk_copy cp;                /* page copies of the output (pk_page_copy.c) */
    pm_codec_ctx *codec;          /* decompression state of every input reader of the
                                     task (one thread; readers interleave calls) */
    pm_compact_result *r;
} pm_pk_exec;

static inline bool pm_pk_kind_is_add(uint8_t k) { return k == PM_KIND_INSERT || k == PM_KIND_UPDATE_AFTER; }

/* Does the task look up retained levels (first-row, deletion vectors,
 * lookup changelog, force-lookup)? */
static inline bool pm_pk_uses_lookup(const pm_pk_exec *x) { return x->lookup; }

/* ---- pk_execute.c ---- */
/* Append field (id, name, t) to row; t is taken, also on failure. */
pm_error *pm_pk_add_field(pm_type *row, int32_t id, const char *name, pm_type *t);
/* [_SEQUENCE_NUMBER, _VALUE_KIND] + the fields of `fields` (cloned). */
pm_error *pm_pk_system_type(const pm_type *fields, pm_type **out);
/* f was rewritten or upgraded: it joins the result's before list. */
pm_error *pm_pk_record_before(pm_pk_exec *x, const pm_lsm_file *f);
bool pm_pk_is_input(const pm_compact_task *task, const char *name);

/* ---- pk_source.c: a sorted run's files, one after another, as a merge
 * source of batches (shared with the file reader), deletion vectors
 * applied; count: add rows and bytes to the result's counters; pos_type
 * (may be NULL): batches also carry _POS and _FILE (file_base + index of
 * the file in `files`). ---- */
pm_error *pm_pk_run_source(pm_pk_exec *x, const pm_type *read_type, const pm_lsm_file *const *files, size_t n,
                           bool count, const pm_type *pos_type, int32_t file_base, pm_kv_source *out);

/* Where batch b of a run source (ctx) comes from: its file's pages and
 * the file row of its first row; false when its rows are not consecutive
 * rows of a file whose pages can be copied.  The batches of the file
 * before the open one still answer (their rows can finish a page already
 * offered), with pages->in = NULL: no page of theirs can be read. */
bool pm_pk_run_source_where(void *ctx, const pm_batch *b, pm_pk_file_pages **pages, int64_t *row0);
/* The superseded stretches of the source's files (one per file, in order;
 * borrowed, must outlive the source): the source passes over them. */
void pm_pk_run_source_set_skips(const pm_kv_source *src, pm_pk_file_skips *skips);
/* Value columns read on demand (before the source reads; deduplicate in
 * reducer mode with page copies, no deletion vectors, no positions): every
 * batch column that is not a key or sequence field and holds fixed-width
 * (not BOOLEAN) or byte-string values is read by a reader of its own,
 * behind the source's; until pm_pk_run_source_lazy_on each batch gets them
 * read at once, after it a placeholder that pm_pk_run_source_fill
 * replaces by the values (its rows must not be read before). */
pm_error *pm_pk_run_source_lazy(const pm_kv_source *src);
void pm_pk_run_source_lazy_on(const pm_kv_source *src);
/* Batch b's (one the source handed out) column col read, unless it was
 * (*filled = whether it was read now). */
pm_error *pm_pk_run_source_fill(void *ctx, const pm_batch *b, size_t col, bool *filled);
/* Whether batch b's column col is a placeholder still (read on demand). */
bool pm_pk_run_source_unread(void *ctx, const pm_batch *b, size_t col);
/* With positions: read no system columns; every row's _SEQUENCE_NUMBER
 * is its file's max sequence number and its _VALUE_KIND +I (for an order
 * that only needs the files' sequence ranges, pk_superseded.c). */
void pm_pk_run_source_synth_seq(const pm_kv_source *src);
/* Its close (by the merge) then only closes its files: the source stays
 * for pm_pk_run_source_where until pm_pk_run_source_free (after the close). */
void pm_pk_run_source_defer(const pm_kv_source *src);
void pm_pk_run_source_free(const pm_kv_source *src);

/* ---- pk_page_copy.c: compressed input pages copied into the output
 * where the output takes every row of a page unchanged and in order ---- */
/* The pages of the open file of reader fr (NULL pages when none can be
 * copied); the batch columns' types are `in_type`'s. */
/* prim: NULL, or per input batch column its column in fr's batches, -1 for
 * a column read by a reader of its own (pk_source.c: found by name when
 * by_name, the file being of the current schema). */
pm_error *pm_pk_pages_open(pm_pk_exec *x, const pm_file_reader *fr, const int32_t *prim, bool by_name,
                           pm_pk_file_pages **out);
void pm_pk_pages_free(pm_pk_file_pages *p);
/* A section starts (w NULL or !x->cp.enabled: no copies) / ends. */
void pm_pk_copy_begin(pm_pk_exec *x, const pm_kv_source *srcs, size_t n, pm_pk_file_writer *w);
pm_error *pm_pk_copy_end(pm_pk_exec *x);
void pm_pk_copy_free(pm_pk_copy *c);
/* Before `*n` rows from `row` of batch b of source `src` join the output
 * (the output batch's counts up to date): follows the stretch, and at a
 * page start drains the output and offers the pages starting there;
 * *n may shrink so that the rows stop before the next page start. */
pm_error *pm_pk_copy_rows(pm_pk_exec *x, uint32_t src, const pm_batch *b, int64_t row, int64_t *n);
/* Before a row that is not an input row unchanged joins the output. */
pm_error *pm_pk_copy_break(pm_pk_exec *x);
/* Write the pending output rows (pk_rewrite.c). */
pm_error *pm_pk_output_drain(pm_pk_exec *x, pm_pk_file_writer *w);
/* The rows gathered so far copied into the output batch (their input
 * batches no longer pinned). */
pm_error *pm_pk_output_flush(pm_pk_exec *x);

/* ---- pk_superseded.c: the superseded stretches of a section's files,
 * from a merge of the key (and sequence) fields alone ---- */
/* *out: one entry per file of the section (runs in order, files in run
 * order), NULL when there is nothing to find (fewer than two runs); for
 * the deduplicate engine in reducer mode only (the caller checks). */
pm_error *pm_pk_superseded_find(pm_pk_exec *x, const pm_iv_section *sec, pm_pk_file_skips **out);
void pm_pk_skips_free(pm_pk_file_skips *s, size_t n);
/* The superseded row `pos` of file f joins its stretch (or starts one,
 * keeping the previous one when long enough); pos = -1 ends the last. */
pm_error *pm_pk_skips_mark(pm_pk_file_skips *f, int64_t pos);

/* ---- pk_prepass_scan.c: the pre-pass's direct scan of one integer key
 * (BIGINT when wide, else INT) over `nsrc` key-only run sources (closed
 * here, also on failure) of the pre-pass type with layout l (_POS and
 * _FILE at pos_col, file_col): marks every record that is not its key's
 * winner into sk[file] (nfiles); *declined (the marks are to be
 * discarded) on a null key, a source out of order, or the sources' first
 * batches and buffers above `budget` bytes (0 = none). */
pm_error *pm_pk_prepass_scan(const pm_kv_source *srcs, size_t nsrc, const pm_kv_layout *l, size_t pos_col,
                             size_t file_col, bool wide, size_t budget, pm_pk_file_skips *sk, size_t nfiles,
                             bool *declined);

/* ---- pk_rewrite.c ---- */
/* The record a group reduces to unchanged (reducer mode: a lone record;
 * deduplicate: the last record that is not an ignored retract), NULL when
 * the merge function must fold; *none = every record is ignored. */
const pm_kv_rec *pm_pk_pass_through(const pm_pk_exec *x, const pm_kv_group *g, bool *none);
pm_error *pm_pk_output_init(pm_pk_exec *x);
void pm_pk_output_clear(pm_pk_output *o);
/* Merge one section (its runs) into w.  w NULL: a pass that only marks
 * deletion vectors and produces changelog. */
pm_error *pm_pk_merge_section(pm_pk_exec *x, const pm_iv_section *sec, bool lookup_mode, bool drop_delete,
                              pm_pk_file_writer *w);
/* One REWRITE step: sections merged into one rolling writer at the output
 * level; its files join the result's after list, the inputs its before. */
pm_error *pm_pk_rewrite(pm_pk_exec *x, const pm_iv_section *secs, size_t nsec, bool drop_delete);

/* ---- lookup_levels.c ---- */
pm_error *pm_pk_lookup_setup(pm_pk_exec *x);
/* The retained files: the task's bucket in the captured snapshot, not
 * inputs, above the output level. */
pm_error *pm_pk_lookup_load(pm_pk_exec *x, const pm_type *key_type);
void pm_pk_lookup_clear(pm_pk_lookup *lk);

/* Lookup Files of one level's candidate files (local cache). */
typedef struct pm_pk_lookup_level {
    const pm_lsm_file **files;    /* overlapping the range, key order */
    int32_t *file_idx;            /* their _FILE numbers */
    size_t n, j;                  /* the file being looked in */
    struct pm_lookup_file *cur, *next;
} pm_pk_lookup_level;

typedef struct pm_pk_lookup_cursor {
    pm_pk_exec *x;
    pm_merge_reader *mr;          /* streaming: the retained files merged in step */
    bool eof;
    bool has;                     /* cur holds a key, g its records */
    pm_buf cur;
    pm_kv_group g;
    pm_pk_lookup_level *lv;       /* local cache: per level (ascending) */
    size_t nlv;
    pm_batch *one;                /* local cache: the record found (lk.type) */
    pm_kv_rec rec;
} pm_pk_lookup_cursor;

/* A cursor over the retained files overlapping [lo, hi]. */
pm_error *pm_pk_lookup_open(pm_pk_exec *x, const uint8_t *lo, size_t lolen, const uint8_t *hi, size_t hilen,
                            pm_pk_lookup_cursor *c);
/* Does `key` exist in the retained levels?  Keys are asked in ascending
 * order.  *rec (may be NULL) = its record from the lowest level, valid
 * until the next call. */
pm_error *pm_pk_lookup_find(pm_pk_lookup_cursor *c, const uint8_t *key, size_t len, bool *found,
                            const pm_kv_rec **rec);
void pm_pk_lookup_close(pm_pk_lookup_cursor *c);
/* lk.tmp = the group's level-0 records and its lowest positive-level one,
 * in merge order (Java's LookupMergeFunction: older levels do not merge
 * again); level[s] = level of merge source s. */
pm_error *pm_pk_lookup_pick(pm_pk_exec *x, const pm_kv_group *g, const int32_t *level, size_t nlevel);
/* lk.tmp = the group's records with the history record inserted in merge
 * order; with deletion vectors the history row is marked deleted. */
pm_error *pm_pk_lookup_take_history(pm_pk_exec *x, const pm_kv_group *g, const pm_kv_rec *hist);

/* ---- changelog_producer.c ---- */
pm_error *pm_pk_changelog_init(pm_pk_exec *x);
void pm_pk_changelog_clear(pm_pk_changelog *cl);
/* A record as an event of `kind`. */
pm_error *pm_pk_changelog_rec(pm_pk_exec *x, const pm_kv_rec *rec, uint8_t kind);
/* The merge result folded by mf as an event of `kind`. */
pm_error *pm_pk_changelog_result(pm_pk_exec *x, pm_merge_fn *mf, uint8_t kind);
/* The events between `before` (the key's history, may be NULL) and the
 * merge result. */
pm_error *pm_pk_changelog_events(pm_pk_exec *x, pm_merge_fn *mf, const pm_kv_rec *before,
                                 const pm_merge_result *res);
/* The changelog writer's files join the result. */
pm_error *pm_pk_changelog_finish(pm_pk_exec *x);

/* ---- pk_dv.c ---- */
pm_error *pm_pk_dv_open(pm_pk_exec *x);
/* Row `pos` of retained file `name` is replaced: mark it deleted. */
pm_error *pm_pk_dv_mark(pm_pk_exec *x, const char *name, int64_t pos);
pm_error *pm_pk_dv_finish(pm_pk_exec *x);
void pm_pk_dv_clear(pm_pk_dv *dv);

#endif
