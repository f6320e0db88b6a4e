/*
 * lsm/merge_reader.h — k-way merge of sorted KeyValue streams into groups
 * of records with equal keys (Java's SortMergeReaderWithLoserTree order).
 *
 * Inputs are sources: each yields batches (ownership passes to the merge)
 * of one ROW type laid out as `layout` (kv.h), sorted by (key, sequence
 * fields, _SEQUENCE_NUMBER).  The merge orders all records by
 *   key ascending, then user `sequence.field` values (ascending, or
 *   descending per sequence.field.sort-order; nulls first either way),
 *   then _SEQUENCE_NUMBER ascending, then input index
 * and returns, per distinct key, the group of its records in that order
 * (oldest first, so a merge function folds them left to right).  Records
 * are references (batch, row), never copies.
 *
 * Algorithm:
 *   - when a batch arrives, every row's sort key (kv.h) is encoded into
 *     one buffer with row offsets; the first 16 bytes are cached as two
 *     big-endian integers per source head, so most comparisons are two
 *     integer compares, the rest a memcmp of the remainder;
 *   - a tree of losers over the k sources (k-1 inner nodes, leaf of
 *     source s at k+s) holds the current winner at the root; taking the
 *     winner advances that source and replays its leaf-to-root path
 *     (log2 k comparisons);
 *   - a group takes the winner and then every next winner whose key part
 *     is byte-equal; each record pins its batch (reference count) until
 *     the group is released by the next call, so a group may span batch
 *     boundaries while a source holds at most its current batch plus the
 *     ones the current group still references;
 *   - a source whose next sort key is smaller than its previous one is
 *     PM_ECORRUPT (unsorted input).
 * No allocation per record once buffers reached their working size.
 *
 * More than max_fan_in (≤ 256) inputs: before the first group, inputs are
 * merged in consecutive chunks of max_fan_in into intermediate runs (all
 * records kept, in merge order, copied into batches of spill_batch_rows
 * rows and handed to the spill callbacks), repeatedly, until at most
 * max_fan_in streams remain; those are merged as above.  Chunks are
 * consecutive and ties break by input index, so the result equals a
 * single-pass merge.  Memory: one chunk's sources (≈2 batches each) plus
 * one output batch at a time; intermediate runs live wherever the spill
 * puts them (memory by default, or files: kv_spill.h).
 */
#ifndef PM_LSM_MERGE_READER_H
#define PM_LSM_MERGE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lsm/kv.h"

#define PM_MERGE_MAX_FAN_IN 256

/* A sorted input. */
typedef struct pm_kv_source {
    void *ctx;
    /* Next non-empty or empty batch, owned by the caller afterwards (free
     * with pm_batch_free); *out = NULL at the end. */
    pm_error *(*next)(void *ctx, pm_batch **out);
    /* Release ctx; called exactly once (also on errors and early free).
     * May be NULL. */
    void (*close)(void *ctx);
    /* Bytes the source holds besides the batches it handed out (e.g. its
     * file reader's buffers); asked after its first batch, for the memory
     * budget.  May be NULL (nothing besides the batches). */
    size_t (*memory)(void *ctx);
} pm_kv_source;

/* Intermediate runs of a multi-pass merge. */
typedef struct pm_kv_spill {
    void *ctx;
    /* Start a run of rows of `row_type`. */
    pm_error *(*create)(void *ctx, const pm_type *row_type, void **run);
    /* Append a batch; takes ownership of b (also on error). */
    pm_error *(*write)(void *ctx, void *run, pm_batch *b);
    /* Finish: the run becomes a source (its close releases the run). */
    pm_error *(*finish)(void *ctx, void *run, pm_kv_source *out);
    /* Drop an unfinished run. */
    void (*abort)(void *ctx, void *run);
} pm_kv_spill;

typedef struct pm_merge_options {
    const pm_type *row_type;      /* ROW type of every batch (borrowed for the call) */
    const pm_kv_layout *layout;   /* copied */
    size_t max_fan_in;            /* 0 = 256; 2..256 */
    const pm_kv_spill *spill;     /* NULL = intermediate runs kept in memory */
    int64_t spill_batch_rows;     /* rows per intermediate batch; 0 = 4096 */
} pm_merge_options;

/* One key's records, oldest first.  Valid until the next call. */
typedef struct pm_kv_group {
    size_t n;
    const pm_kv_rec *recs;        /* .source = index of the stream in the final pass */
    const uint8_t *key;           /* sort-key bytes of the key part (kv.h) */
    size_t key_len;
} pm_kv_group;

typedef struct pm_merge_reader pm_merge_reader;

/* Takes the sources (closed by the reader, also when this fails). */
pm_error *pm_merge_reader_new(pm_merge_reader **out, const pm_kv_source *sources, size_t n,
                              const pm_merge_options *o);
/* Bytes the merge may hold (0 = no limit; call before the first next).
 * The first batch of input 0 is measured (buffers plus sort keys) with what
 * that input holds besides (its `memory`); an input costs two batches plus
 * that, and the fan-in becomes budget / cost, at most max_fan_in.  Fewer
 * than two inputs fitting (with two or more inputs) is PM_EINVALID from
 * the first next, naming the budget and the cost of an input. */
void pm_merge_reader_set_memory_budget(pm_merge_reader *m, size_t bytes);
/* Next group; *eof = true (and out->n = 0) after the last. */
pm_error *pm_merge_reader_next(pm_merge_reader *m, pm_kv_group *out, bool *eof);
/* Next group, or a run of lone records: *run = 0 gives the group of
 * pm_merge_reader_next; *run = r >= 1 gives out->n = 1 where recs[0] is the
 * first of r consecutive rows of its batch (one source) whose keys no other
 * record has: not the other inputs' (each row's key is below every other
 * input's current key) nor the neighbouring rows' of that source (the last
 * row of a batch is never in a run: the next batch could repeat its key).
 * Rows of a run are in strictly increasing key order; a source out of order
 * is left to the group path, which reports it.  The same records in the same
 * order as pm_merge_reader_next, each alone in its group, without a tree
 * replay and a group per record. */
pm_error *pm_merge_reader_next_run(pm_merge_reader *m, pm_kv_group *out, int64_t *run, bool *eof);
/* Intermediate passes performed (0 for a single-pass merge). */
size_t pm_merge_reader_passes(const pm_merge_reader *m);
/* The fan-in in effect (after the memory budget; valid after the first next). */
size_t pm_merge_reader_fan_in(const pm_merge_reader *m);
/* Did the merge fail because its memory budget holds fewer than two inputs? */
bool pm_merge_reader_over_budget(const pm_merge_reader *m);
/* Batches currently held (for tests of the memory bound). */
size_t pm_merge_reader_live_batches(const pm_merge_reader *m);
void pm_merge_reader_free(pm_merge_reader *m);

/* The in-memory spill (static; intermediate batches stay in memory). */
const pm_kv_spill *pm_kv_spill_memory(void);

#endif
