/*
 * table/pk_cross.c — cross-partition routing (contract in pk_cross.h).
 *
 * Groups: g = keyHash & (H - 1).  Each group keeps its pending rows (type
 * in_type, arrival order) and its index entries (boot_type: the key
 * fields, _PART INT = partition id, _BUCKET INT) as an in-memory batch
 * plus, once the budget is exceeded, spilled runs in order.  Partitions
 * get ids in a table of their serialized bytes, with one row of their
 * field values (for rows sent to an old partition) and the keys per
 * bucket.  Routing a group loads its entries into a hash map (serialized
 * key → entry), replays its pending rows, and writes the updated entries
 * back as the group's index for a later prepare.
 */
#include "table/pk_cross.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "lsm/kv.h"
#include "lsm/merge_engine.h"
#include "meta/options.h"
#include "table/bucket_index.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/pk_read.h"
#include "table/pk_spill.h"
#include "table/pk_write.h"
#include "table/scan.h"
#include "table/write_align.h"
#include "types/binary_row.h"
#include "types/column.h"

#define OUT_ROWS 4096
#define MAX_GROUPS 4096
#define ENTRY_BYTES 48           /* estimated index bytes per key besides its BinaryRow */

typedef struct part_info {
    const uint8_t *bytes;        /* arena */
    size_t len;
    pm_batch *fields;            /* one row: the partition fields */
    int64_t *keys;               /* keys per bucket */
    bool *present;
    size_t ncap;
} part_info;

typedef struct chain {
    void **runs;                 /* finished in order: sources made at route time */
    pm_kv_source *srcs;
    size_t nruns;
    pm_batch *buf;
} chain;

typedef struct group {
    chain pend;                  /* in_type */
    chain boot;                  /* boot_type */
} group;

struct pm_pk_cross {
    pm_table *t;
    const pm_schema *s;
    const pm_type *rt;
    pm_type *in_type, *boot_type;
    size_t *key_idx, nkey;       /* trimmed primary key fields in rt */
    size_t *part_idx, npart;
    int engine;
    int64_t target;
    int64_t budget;
    const char *spill_dir;
    bool booted;
    size_t ngroups;
    group *g;
    part_info *parts;
    size_t nparts, capparts;
    pm_bucket_index part_ix;     /* (partition bytes, 0) → part id */
    pm_arena arena;              /* partition bytes */
    pm_pk_spill *spill;
    const pm_kv_spill *ops;
    int64_t buffered;            /* bytes of the in-memory batches */
    int64_t spilled;             /* runs spilled */
    pm_binrow_writer kw, pw;
    pm_buf kb, pb;
};

static int64_t batch_bytes(const pm_batch *b)
{
    int64_t n = 0;
    for (size_t i = 0; b && i < b->ncolumns; i++) {
        const pm_column *c = b->columns[i];
        n += (int64_t)(c->values.len + c->data.len + c->offsets.len + c->validity.len);
    }
    return n;
}

static void chain_clear(chain *ch)
{
    for (size_t i = 0; i < ch->nruns; i++)
        if (ch->srcs[i].close)
            ch->srcs[i].close(ch->srcs[i].ctx);
    free(ch->runs);
    free(ch->srcs);
    pm_batch_free(ch->buf);
    memset(ch, 0, sizeof *ch);
}

void pm_pk_cross_free(pm_pk_cross *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->g && i < c->ngroups; i++) {
        chain_clear(&c->g[i].pend);
        chain_clear(&c->g[i].boot);
    }
    free(c->g);
    for (size_t i = 0; i < c->nparts; i++) {
        pm_batch_free(c->parts[i].fields);
        free(c->parts[i].keys);
        free(c->parts[i].present);
    }
    free(c->parts);
    pm_bucket_index_free(&c->part_ix);
    pm_arena_free(&c->arena);
    pm_pk_spill_free(c->spill);
    pm_type_free(c->in_type);
    pm_type_free(c->boot_type);
    free(c->key_idx);
    free(c->part_idx);
    pm_binrow_writer_free(&c->kw);
    pm_binrow_writer_free(&c->pw);
    pm_buf_free(&c->kb);
    pm_buf_free(&c->pb);
    free(c);
}

const pm_type *pm_pk_cross_input_type(const pm_pk_cross *c) { return c->in_type; }

static pm_error *add_int_field(pm_type *row, int32_t id, const char *name, pm_type_id tid)
{
    pm_type *f = pm_type_new(tid, false);
    pm_error *e = f ? pm_type_add_field(row, id, name, f) : pm_oom();
    if (e)
        pm_type_free(f);
    return e;
}

pm_error *pm_pk_cross_new(pm_pk_cross **out, pm_table *t, int64_t budget, const char *spill_dir)
{
    *out = NULL;
    pm_pk_cross *c;
    PM_TRY(pm_calloc(&c, 1, sizeof *c));
    c->t = t;
    c->s = pm_table_schema(t);
    c->rt = c->s->row_type;
    c->budget = budget > (64 << 10) ? budget : (64 << 10);
    c->spill_dir = spill_dir;
    pm_arena_init(&c->arena, 0);
    pm_error *e = pm_bucket_index_init(&c->part_ix);
    pm_str_list keys = {0};
    if (!e)
        e = pm_schema_trimmed_primary_keys(c->s, &keys);
    if (!e)
        e = pm_write_field_indexes(c->rt, &keys, &c->key_idx, "primary key");
    c->nkey = keys.count;
    if (!e)
        e = pm_write_field_indexes(c->rt, &c->s->partition_keys, &c->part_idx, "partition key");
    c->npart = c->s->partition_keys.count;
    if (!e)
        e = pm_options_enum(c->s->options, PM_OPT_MERGE_ENGINE, &c->engine);
    if (!e)
        e = pm_options_long(c->s->options, PM_OPT_DYNAMIC_BUCKET_TARGET_ROW_NUM, NULL, &c->target);
    if (!e && c->target <= 0)
        e = pm_error_new(PM_EINVALID, "dynamic-bucket.target-row-num must be positive");
    /* types: in = fields + _ROW_KIND TINYINT; boot = key fields + _PART + _BUCKET */
    if (!e) {
        c->in_type = pm_type_clone(c->rt);
        c->boot_type = pm_type_new_row(false);
        e = c->in_type && c->boot_type ? add_int_field(c->in_type, -1, PM_ROW_KIND_COLUMN, PM_TYPE_TINYINT) : pm_oom();
    }
    for (size_t k = 0; !e && k < c->nkey; k++) {
        const pm_field *f = &c->rt->fields[c->key_idx[k]];
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(c->boot_type, f->id, f->name, ft) : pm_oom();
        if (e)
            pm_type_free(ft);
    }
    if (!e)
        e = add_int_field(c->boot_type, -2, "_PART", PM_TYPE_INT);
    if (!e)
        e = add_int_field(c->boot_type, -3, "_BUCKET", PM_TYPE_INT);
    pm_str_list_free(&keys);
    if (e) {
        pm_pk_cross_free(c);
        return pm_error_wrap(e, 0, "cross-partition update index of table %s", pm_table_path(t));
    }
    *out = c;
    return NULL;
}

/* ---- partitions ---- */

static pm_error *part_id(pm_pk_cross *c, const uint8_t *bytes, size_t len, pm_column *const *cols,
                         const size_t *fields, int64_t row, int32_t *out)
{
    uint64_t h = pm_bucket_hash(bytes, len, 0);
    int32_t id = pm_bucket_index_find(&c->part_ix, bytes, len, 0, h);
    if (id >= 0) {
        *out = id;
        return NULL;
    }
    if (c->nparts == c->capparts) {
        size_t cap = c->capparts ? c->capparts * 2 : 16;
        PM_TRY(pm_realloc_array(&c->parts, cap, sizeof *c->parts));
        c->capparts = cap;
    }
    part_info *p = &c->parts[c->nparts];
    memset(p, 0, sizeof *p);
    uint8_t *copy = pm_arena_alloc(&c->arena, len ? len : 1, 1);
    if (!copy)
        return pm_oom();
    memcpy(copy, bytes, len);
    p->bytes = copy;
    p->len = len;
    /* one row of the partition fields, for rows sent to this partition */
    pm_type *pt = pm_type_new_row(false);
    pm_error *e = pt ? NULL : pm_oom();
    for (size_t i = 0; !e && i < c->npart; i++) {
        const pm_field *f = &c->rt->fields[c->part_idx[i]];
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(pt, f->id, f->name, ft) : pm_oom();
        if (e)
            pm_type_free(ft);
    }
    if (!e)
        e = pm_batch_new(&p->fields, pt);
    pm_type_free(pt);
    for (size_t i = 0; !e && i < c->npart; i++)
        e = pm_column_append_from(p->fields->columns[i], cols[fields[i]], row);
    if (!e)
        e = pm_batch_finish(p->fields, 1);
    if (!e)
        e = pm_bucket_index_add(&c->part_ix, copy, len, 0, h, (int32_t)c->nparts);
    if (e) {
        pm_batch_free(p->fields);
        return e;
    }
    *out = (int32_t)c->nparts++;
    return NULL;
}

static pm_error *bucket_room(part_info *p, int32_t b)
{
    if ((size_t)b < p->ncap)
        return NULL;
    size_t n = p->ncap ? p->ncap : 8;
    while (n <= (size_t)b)
        n *= 2;
    PM_TRY(pm_realloc_array(&p->keys, n, sizeof *p->keys));
    PM_TRY(pm_realloc_array(&p->present, n, sizeof *p->present));
    memset(p->keys + p->ncap, 0, (n - p->ncap) * sizeof *p->keys);
    memset(p->present + p->ncap, 0, (n - p->ncap) * sizeof *p->present);
    p->ncap = n;
    return NULL;
}

static pm_error *bucket_count(part_info *p, int32_t b, int64_t delta)
{
    if (b < 0)
        return pm_error_new(PM_ECORRUPT, "bucket %d in a dynamic-bucket table", (int)b);
    PM_TRY(bucket_room(p, b));
    p->present[b] = true;
    p->keys[b] += delta;
    return NULL;
}

/* Java's crosspartition.BucketAssigner.assignBucket */
static pm_error *assign_bucket(pm_pk_cross *c, part_info *p, int32_t *out)
{
    for (size_t b = 0; b < p->ncap; b++)
        if (p->present[b] && p->keys[b] < c->target) {
            p->keys[b]++;
            *out = (int32_t)b;
            return NULL;
        }
    int32_t b = 0;
    while ((size_t)b < p->ncap && p->present[b])
        b++;
    PM_TRY(bucket_count(p, b, 1));
    *out = b;
    return NULL;
}

/* ---- chains (in-memory batch, then spilled runs) ---- */

static pm_error *spill_ops(pm_pk_cross *c)
{
    if (!c->spill)
        PM_TRY(pm_pk_spill_new(&c->spill, c->spill_dir));
    if (!c->ops)
        PM_TRY(pm_pk_spill_callbacks(c->spill, &c->ops));
    return NULL;
}

/* Move the chain's batch into a new run. */
static pm_error *chain_spill(pm_pk_cross *c, chain *ch)
{
    if (!ch->buf || !ch->buf->num_rows)
        return NULL;
    PM_TRY(spill_ops(c));
    void *run = NULL;
    PM_TRY(c->ops->create(c->ops->ctx, ch->buf->type, &run));
    c->buffered -= batch_bytes(ch->buf);
    pm_batch *b = ch->buf;
    ch->buf = NULL;
    pm_error *e = c->ops->write(c->ops->ctx, run, b);
    pm_kv_source src = {0};
    if (!e)
        e = c->ops->finish(c->ops->ctx, run, &src);
    else
        c->ops->abort(c->ops->ctx, run);
    if (!e)
        e = pm_realloc_array(&ch->srcs, ch->nruns + 1, sizeof *ch->srcs);
    if (e) {
        if (src.close)
            src.close(src.ctx);
        return e;
    }
    ch->srcs[ch->nruns++] = src;
    c->spilled++;
    return NULL;
}

void pm_pk_cross_stats(const pm_pk_cross *c, size_t *groups, int64_t *spilled_runs)
{
    *groups = c->ngroups;
    *spilled_runs = c->spilled;
}

static pm_error *relieve(pm_pk_cross *c)
{
    if (c->buffered <= c->budget / 2)
        return NULL;
    for (size_t i = 0; i < c->ngroups; i++) {
        PM_TRY(chain_spill(c, &c->g[i].pend));
        PM_TRY(chain_spill(c, &c->g[i].boot));
    }
    return NULL;
}

static pm_error *chain_append(pm_pk_cross *c, chain *ch, const pm_type *type, pm_column *const *cols,
                              const size_t *src_col, size_t ncols, int64_t row, const int32_t *extra,
                              size_t nextra, int8_t kind, bool with_kind)
{
    if (!ch->buf)
        PM_TRY(pm_batch_new(&ch->buf, type));
    int64_t before = batch_bytes(ch->buf);
    pm_batch *b = ch->buf;
    for (size_t i = 0; i < ncols; i++)
        PM_TRY(pm_column_append_from(b->columns[i], cols[src_col ? src_col[i] : i], row));
    size_t k = ncols;
    if (with_kind)
        PM_TRY(pm_column_append_i8(b->columns[k++], kind));
    for (size_t i = 0; i < nextra; i++)
        PM_TRY(pm_column_append_i32(b->columns[k++], extra[i]));
    PM_TRY(pm_batch_finish(b, b->num_rows + 1));
    c->buffered += batch_bytes(b) - before;
    return NULL;
}

/* Next batch of the chain: its runs in order, then its batch (taken,
 * no longer counted as buffered).  *out owned by the caller. */
static pm_error *chain_next(pm_pk_cross *c, chain *ch, size_t *run, pm_batch **out)
{
    *out = NULL;
    while (*run < ch->nruns) {
        PM_TRY(ch->srcs[*run].next(ch->srcs[*run].ctx, out));
        if (*out)
            return NULL;
        ch->srcs[*run].close(ch->srcs[*run].ctx);
        ch->srcs[*run].close = NULL;
        (*run)++;
    }
    *out = ch->buf;
    ch->buf = NULL;
    c->buffered -= batch_bytes(*out);
    return NULL;
}

static void chain_done(chain *ch)
{
    for (size_t i = 0; i < ch->nruns; i++)
        if (ch->srcs[i].close)
            ch->srcs[i].close(ch->srcs[i].ctx);
    free(ch->srcs);
    ch->srcs = NULL;
    ch->nruns = 0;
}

/* ---- keys ---- */

static pm_error *key_hash(pm_pk_cross *c, pm_column *const *cols, const size_t *fields, int64_t row, int32_t *h)
{
    PM_TRY(pm_binrow_from_columns(&c->kw, cols, fields, c->nkey, row));
    *h = pm_binrow_hash(&c->kw);
    pm_buf_clear(&c->kb);
    return pm_binrow_serialize(&c->kw, &c->kb);
}

static size_t group_of(const pm_pk_cross *c, int32_t h) { return (size_t)(uint32_t)h & (c->ngroups - 1); }

/* ---- bootstrap ---- */

static pm_error *boot_entry(pm_pk_cross *c, pm_column *const *cols, const size_t *key_cols, int64_t row,
                            int32_t part, int32_t bucket)
{
    int32_t h = 0;
    PM_TRY(key_hash(c, cols, key_cols, row, &h));
    int32_t extra[2] = {part, bucket};
    chain *ch = &c->g[group_of(c, h)].boot;
    PM_TRY(chain_append(c, ch, c->boot_type, cols, key_cols, c->nkey, row, extra, 2, 0, false));
    return relieve(c);
}

/* The keys (and partition fields) of one bucket. */
static pm_error *boot_bucket(pm_pk_cross *c, const pm_schema *rs, const pm_bucket_files *bf, const pm_type *rtype,
                             bool raw)
{
    size_t *cols = NULL, *pcols = NULL;
    PM_TRY(pm_calloc(&cols, c->nkey ? c->nkey : 1, sizeof *cols));
    pm_error *e = pm_calloc(&pcols, c->npart ? c->npart : 1, sizeof *pcols);
    size_t sys = raw ? 2 : 0;
    for (size_t k = 0; !e && k < c->nkey; k++)
        cols[k] = sys + k;
    for (size_t k = 0; !e && k < c->npart; k++)
        pcols[k] = sys + c->nkey + k;
    int32_t part = -1;
    pm_pk_reader *pr = NULL;
    char *dir = NULL;
    pm_file_reader *fr = NULL;
    size_t file = 0;
    if (!e && !raw)
        e = pm_pk_reader_new(&pr, bf, rs, rtype, OUT_ROWS);
    if (!e && raw)
        e = pm_table_bucket_dir(bf->table, bf->partition.data, bf->partition.len, bf->bucket, &dir);
    while (!e) {
        const pm_batch *b = NULL;
        if (raw) {
            if (!fr) {
                if (file >= bf->nfiles)
                    break;
                pm_file_read_options fo = {rtype, OUT_ROWS, true, NULL};
                e = pm_file_reader_open(&fr, bf->table, dir, &bf->files[file++], &fo);
                if (e)
                    break;
            }
            e = pm_file_reader_next(fr, &b);
            if (!e && !b) {
                pm_file_reader_free(fr);
                fr = NULL;
                continue;
            }
        } else {
            e = pm_pk_reader_next(pr, &b);
            if (!e && !b)
                break;
        }
        for (int64_t r = 0; !e && b && r < b->num_rows; r++) {
            if (raw && pm_kind_is_retract((uint8_t)pm_column_i8(b->columns[1], r)))
                continue;
            if (part < 0)
                e = part_id(c, bf->partition.data, bf->partition.len, b->columns, pcols, r, &part);
            if (!e)
                e = bucket_count(&c->parts[part], bf->bucket, 1);
            if (!e)
                e = boot_entry(c, b->columns, cols, r, part, bf->bucket);
        }
    }
    pm_file_reader_free(fr);
    pm_pk_reader_free(pr);
    free(dir);
    free(cols);
    free(pcols);
    return e;
}

static pm_error *bootstrap(pm_pk_cross *c)
{
    c->booted = true;
    pm_scan_result *sr = NULL;
    pm_scan_options so = pm_scan_options_default();
    PM_TRY(pm_table_scan(c->t, &so, &sr));
    /* groups: one group's key index within the budget */
    int64_t rows = 0;
    for (size_t i = 0; i < sr->nbuckets; i++)
        for (size_t k = 0; k < sr->buckets[i].nfiles; k++)
            rows += sr->buckets[i].files[k].row_count;
    int64_t per_key = ENTRY_BYTES + 8 + 8 * (int64_t)c->nkey;
    size_t n = 1;
    while (n < MAX_GROUPS && rows * per_key / (int64_t)n > c->budget / 2)
        n *= 2;
    c->ngroups = n;
    pm_error *e = pm_calloc(&c->g, n, sizeof *c->g);
    /* read type: the trimmed key fields, then the partition fields */
    pm_type *rtype = pm_type_new_row(false);
    if (!e && !rtype)
        e = pm_oom();
    for (size_t k = 0; !e && k < c->nkey + c->npart; k++) {
        const pm_field *f = &c->rt->fields[k < c->nkey ? c->key_idx[k] : c->part_idx[k - c->nkey]];
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(rtype, f->id, f->name, ft) : pm_oom();
        if (e)
            pm_type_free(ft);
    }
    /* deletion vectors: merge level 0 too; first-row: every key of any file */
    bool dv = false;
    pm_options *ro = NULL;
    pm_schema rs = *c->s;
    if (!e)
        e = pm_options_bool(c->s->options, PM_OPT_DELETION_VECTORS_ENABLED, &dv);
    if (!e && dv) {
        e = pm_options_clone(c->s->options, &ro);
        if (!e)
            e = pm_options_set(ro, "deletion-vectors.merge-on-read", "true");
        rs.options = ro;
    }
    for (size_t i = 0; !e && sr->snapshot && i < sr->nbuckets; i++) {
        const pm_bucket_files *bf = &sr->buckets[i];
        if (bf->bucket < 0 || !bf->nfiles)
            continue;
        e = boot_bucket(c, &rs, bf, rtype, c->engine == PM_MERGE_FIRST_ROW);
    }
    pm_options_free(ro);
    pm_type_free(rtype);
    pm_scan_result_free(sr);
    return e ? pm_error_wrap(e, 0, "bootstrap of the cross-partition key index") : NULL;
}

pm_error *pm_pk_cross_add(pm_pk_cross *c, pm_column *const *cols, const uint8_t *kinds, const int64_t *rows,
                          int64_t n)
{
    if (!c->booted)
        PM_TRY(bootstrap(c));
    for (int64_t i = 0; i < n; i++) {
        int32_t h = 0;
        PM_TRY(key_hash(c, cols, c->key_idx, rows[i], &h));
        chain *ch = &c->g[group_of(c, h)].pend;
        PM_TRY(chain_append(c, ch, c->in_type, cols, NULL, c->rt->nfields, rows[i], NULL, 0, (int8_t)kinds[rows[i]],
                            true));
        PM_TRY(relieve(c));
    }
    return NULL;
}

/* ---- routing ---- */

typedef struct router {
    pm_pk_cross *c;
    pm_bucket_index map;         /* (key bytes, 0) → entry */
    pm_arena keys;
    pm_batch *ekeys;             /* entry i's key fields at row i (boot_type; _PART/_BUCKET unused) */
    int32_t *e_part, *e_bucket;
    const uint8_t **e_key;
    size_t *e_len;
    size_t nent, capent;
    pm_batch *out;
    int32_t *buckets;
    int64_t nout;
    pm_pk_cross_emit_fn emit;
    void *ctx;
} router;

static pm_error *router_reset(router *r)
{
    pm_bucket_index_free(&r->map);
    pm_arena_reset(&r->keys);
    r->nent = 0;
    return r->ekeys ? pm_batch_reset(r->ekeys) : pm_batch_new(&r->ekeys, r->c->boot_type);
}

/* The entry of key (its BinaryRow `key`, its fields cols[key_cols[k]] at
 * `row`) is (part, bucket). */
static pm_error *entry_put(router *r, const uint8_t *key, size_t len, pm_column *const *cols, const size_t *key_cols,
                           int64_t row, int32_t part, int32_t bucket)
{
    uint64_t h = pm_bucket_hash(key, len, 0);
    int32_t idx = pm_bucket_index_find(&r->map, key, len, 0, h);
    if (idx >= 0) {
        r->e_part[idx] = part;
        r->e_bucket[idx] = bucket;
        return NULL;
    }
    if (r->nent == r->capent) {
        size_t cap = r->capent ? r->capent * 2 : 1024;
        PM_TRY(pm_realloc_array(&r->e_part, cap, sizeof *r->e_part));
        PM_TRY(pm_realloc_array(&r->e_bucket, cap, sizeof *r->e_bucket));
        PM_TRY(pm_realloc_array(&r->e_key, cap, sizeof *r->e_key));
        PM_TRY(pm_realloc_array(&r->e_len, cap, sizeof *r->e_len));
        r->capent = cap;
    }
    uint8_t *copy = pm_arena_alloc(&r->keys, len ? len : 1, 1);
    if (!copy)
        return pm_oom();
    memcpy(copy, key, len);
    PM_TRY(pm_bucket_index_add(&r->map, copy, len, 0, h, (int32_t)r->nent));
    size_t nk = r->c->nkey;
    for (size_t k = 0; k < nk; k++)
        PM_TRY(pm_column_append_from(r->ekeys->columns[k], cols[key_cols[k]], row));
    PM_TRY(pm_column_append_i32(r->ekeys->columns[nk], 0));
    PM_TRY(pm_column_append_i32(r->ekeys->columns[nk + 1], 0));
    PM_TRY(pm_batch_finish(r->ekeys, r->ekeys->num_rows + 1));
    r->e_key[r->nent] = copy;
    r->e_len[r->nent] = len;
    r->e_part[r->nent] = part;
    r->e_bucket[r->nent++] = bucket;
    return NULL;
}

static pm_error *flush_out(router *r)
{
    if (!r->nout)
        return NULL;
    PM_TRY(pm_batch_finish(r->out, r->nout));
    PM_TRY(r->emit(r->ctx, r->out, r->buckets));
    r->nout = 0;
    return pm_batch_reset(r->out);
}

/* Emit row `row` of pending batch b with `kind` to `bucket`; to_part >= 0:
 * with that partition's fields. */
static pm_error *emit_row(router *r, const pm_batch *b, int64_t row, uint8_t kind, int32_t bucket, int32_t to_part)
{
    pm_pk_cross *c = r->c;
    size_t nf = c->rt->nfields;
    for (size_t i = 0; i < nf; i++) {
        const pm_column *src = b->columns[i];
        int64_t srow = row;
        for (size_t k = 0; to_part >= 0 && k < c->npart; k++)
            if (c->part_idx[k] == i) {
                src = c->parts[to_part].fields->columns[k];
                srow = 0;
            }
        PM_TRY(pm_column_append_from(r->out->columns[i], src, srow));
    }
    PM_TRY(pm_column_append_i8(r->out->columns[nf], (int8_t)kind));
    r->buckets[r->nout++] = bucket;
    return r->nout == OUT_ROWS ? flush_out(r) : NULL;
}

static pm_error *route_row(router *r, const pm_batch *b, int64_t row)
{
    pm_pk_cross *c = r->c;
    int32_t h = 0;
    PM_TRY(key_hash(c, b->columns, c->key_idx, row, &h));
    PM_TRY(pm_binrow_from_columns(&c->pw, b->columns, c->part_idx, c->npart, row));
    pm_buf_clear(&c->pb);
    PM_TRY(pm_binrow_serialize(&c->pw, &c->pb));
    int32_t part = 0;
    PM_TRY(part_id(c, c->pb.data, c->pb.len, b->columns, c->part_idx, row, &part));
    uint8_t kind = (uint8_t)pm_column_i8(b->columns[c->rt->nfields], row);
    const uint8_t *key = c->kb.data;
    size_t klen = c->kb.len;
    int32_t idx = pm_bucket_index_find(&r->map, key, klen, 0, pm_bucket_hash(key, klen, 0));
    if (idx >= 0 && r->e_part[idx] == part)
        return emit_row(r, b, row, kind, r->e_bucket[idx], -1);
    if (idx >= 0) {
        int32_t old_part = r->e_part[idx], old_bucket = r->e_bucket[idx];
        if (c->engine == PM_MERGE_FIRST_ROW)
            return NULL; /* the key's first row is elsewhere */
        if (c->engine != PM_MERGE_DEDUPLICATE)
            return emit_row(r, b, row, kind, old_bucket, old_part); /* update the old partition */
        /* deduplicate: delete it there, then a new record here */
        PM_TRY(emit_row(r, b, row, PM_KIND_DELETE, old_bucket, old_part));
        PM_TRY(bucket_count(&c->parts[old_part], old_bucket, -1));
    }
    int32_t bucket = 0;
    PM_TRY(assign_bucket(c, &c->parts[part], &bucket));
    PM_TRY(entry_put(r, key, klen, b->columns, c->key_idx, row, part, bucket));
    return emit_row(r, b, row, kind, bucket, -1);
}

/* One group: its index into the map, its rows routed, its index written back. */
static pm_error *route_group(router *r, group *g)
{
    pm_pk_cross *c = r->c;
    PM_TRY(router_reset(r));
    PM_TRY(pm_bucket_index_init(&r->map));
    size_t run = 0;
    pm_error *e = NULL;
    size_t *kc = NULL;
    PM_TRY(pm_calloc(&kc, c->nkey ? c->nkey : 1, sizeof *kc));
    for (size_t k = 0; k < c->nkey; k++)
        kc[k] = k;
    for (;;) {
        pm_batch *b = NULL;
        e = chain_next(c, &g->boot, &run, &b);
        if (e || !b)
            break;
        for (int64_t i = 0; !e && i < b->num_rows; i++) {
            e = key_hash(c, b->columns, kc, i, &(int32_t){0});
            if (!e)
                e = entry_put(r, c->kb.data, c->kb.len, b->columns, kc, i, pm_column_i32(b->columns[c->nkey], i),
                              pm_column_i32(b->columns[c->nkey + 1], i));
        }
        pm_batch_free(b);
        if (e)
            break;
    }
    chain_done(&g->boot);
    run = 0;
    while (!e) {
        pm_batch *b = NULL;
        e = chain_next(c, &g->pend, &run, &b);
        if (e || !b)
            break;
        for (int64_t i = 0; !e && i < b->num_rows; i++)
            e = route_row(r, b, i);
        pm_batch_free(b);
    }
    chain_done(&g->pend);
    if (!e)
        e = flush_out(r);
    /* the group's index for the next prepare: its entries as they are now */
    for (size_t i = 0; !e && i < r->nent; i++) {
        chain *ch = &g->boot;
        int32_t extra[2] = {r->e_part[i], r->e_bucket[i]};
        e = chain_append(c, ch, c->boot_type, r->ekeys->columns, kc, c->nkey, (int64_t)i, extra, 2, 0, false);
        if (!e && (i % 4096) == 4095)
            e = relieve(c);
    }
    free(kc);
    return e;
}

pm_error *pm_pk_cross_route(pm_pk_cross *c, pm_pk_cross_emit_fn emit, void *ctx)
{
    if (!c->booted)
        PM_TRY(bootstrap(c));
    router r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.emit = emit;
    r.ctx = ctx;
    pm_arena_init(&r.keys, 0);
    pm_error *e = pm_batch_new(&r.out, c->in_type);
    if (!e)
        e = pm_calloc(&r.buckets, OUT_ROWS, sizeof *r.buckets);
    for (size_t i = 0; !e && i < c->ngroups; i++)
        e = route_group(&r, &c->g[i]);
    pm_bucket_index_free(&r.map);
    pm_arena_free(&r.keys);
    pm_batch_free(r.ekeys);
    free(r.e_part);
    free(r.e_bucket);
    free(r.e_key);
    free(r.e_len);
    free(r.buckets);
    pm_batch_free(r.out);
    return e ? pm_error_wrap(e, 0, "cross-partition routing of table %s", pm_table_path(c->t)) : NULL;
}
