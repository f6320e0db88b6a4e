/*
 * format/orc/orc_write_column.c — ORC column writers (see
 * orc_write_column.h for the streams and orc-core's rules they follow).
 *
 * Life of a column writer within a stripe:
 *   write*        values go to the encoders; statistics of the row group
 *                 accumulate in `idx`;
 *   index_entry   the group's statistics merge into `stripe` and are kept
 *                 with the positions recorded at the group's start; the
 *                 next group's start positions are recorded;
 *   flush         encoders and streams are closed (strings first write
 *                 their dictionary, then the ids, attaching the ids'
 *                 positions to the saved entries);
 *   finish_stripe suppression, bytes on disk, stripe/file statistics, the
 *                 RowIndex stream;
 *   next_stripe   streams emptied, positions of the first group recorded.
 */
#include "format/orc/orc_write_column.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"
#include "format/orc/orc_pb.h"
#include "format/orc/orc_read_column.h"
#include "format/orc/orc_rle.h"
#include "types/column.h"
#include "types/temporal.h"

enum { WK_BOOL, WK_BYTE, WK_INT, WK_DATE, WK_FLOAT, WK_DOUBLE, WK_STRING, WK_BINARY, WK_DECIMAL, WK_TIMESTAMP,
       WK_STRUCT, WK_LIST, WK_MAP };

typedef struct entry {
    orc_positions pos;
    pm_buf stats;
} entry;

typedef struct entry_list {
    entry *v;
    size_t n, cap;
} entry_list;

struct orc_cw {
    uint32_t id;
    const orc_type *ot;
    const pm_type *pt;
    const orc_wctx *ctx;
    int wk;
    orc_out present_out;
    orc_bool_enc present;
    bool found_nulls, present_suppressed;
    orc_out data_out, len_out, sec_out, dict_out, index_out;
    bool has_data, has_len, has_sec, has_dict, dict_suppressed;
    orc_byte_enc bytes;
    orc_bool_enc bools;
    orc_int_enc *data_ints, *len_ints, *sec_ints;
    orc_stats_acc idx, stripe, file;
    orc_positions cur;
    entry_list entries;          /* the stripe's row index, in order */
    /* strings */
    double threshold;
    bool use_dict, done_check;
    pm_buf keys;                 /* dictionary key bytes */
    uint32_t *key_off;           /* nkeys + 1 */
    uint32_t nkeys;
    size_t key_cap;
    uint32_t *slots;             /* hash table: key id + 1, 0 = empty */
    uint32_t nslots;
    uint32_t *rows;              /* dictionary id of each value of the stripe */
    size_t nrows, rows_cap;
    entry_list saved;            /* entries waiting for their DATA positions */
    uint64_t *counts;            /* values before each saved entry */
    size_t ncounts, counts_cap;
    int64_t max_chars;           /* char / varchar */
    pm_buf pad;
    /* Java's vector capacities (collection statistics, see prescan) */
    int64_t cap, child_cap, child_count;
    uint32_t nchildren;
    orc_cw **children;
};

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static pm_error *entry_add(entry_list *l, const orc_positions *pos, const pm_buf *stats)
{
    PM_TRY(orc_reserve(&l->v, &l->cap, l->n + 1, sizeof *l->v));
    entry *e = &l->v[l->n];
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < pos->n; i++)
        PM_TRY(orc_positions_add(&e->pos, pos->v[i]));
    PM_TRY(pm_buf_append(&e->stats, stats->data ? stats->data : (const uint8_t *)"", stats->len));
    l->n++;
    return NULL;
}

static void entries_clear(entry_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        orc_positions_free(&l->v[i].pos);
        pm_buf_free(&l->v[i].stats);
    }
    l->n = 0;
}

static void entries_free(entry_list *l)
{
    entries_clear(l);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int wk_for(const orc_type *t)
{
    switch (t->kind) {
    case ORC_BOOLEAN: return WK_BOOL;
    case ORC_BYTE: return WK_BYTE;
    case ORC_SHORT:
    case ORC_INT:
    case ORC_LONG: return WK_INT;
    case ORC_DATE: return WK_DATE;
    case ORC_FLOAT: return WK_FLOAT;
    case ORC_DOUBLE: return WK_DOUBLE;
    case ORC_STRING:
    case ORC_CHAR:
    case ORC_VARCHAR: return WK_STRING;
    case ORC_BINARY: return WK_BINARY;
    case ORC_DECIMAL: return WK_DECIMAL;
    case ORC_TIMESTAMP:
    case ORC_TIMESTAMP_INSTANT: return WK_TIMESTAMP;
    case ORC_STRUCT: return WK_STRUCT;
    case ORC_LIST: return WK_LIST;
    default: return WK_MAP;
    }
}

static pm_error *new_ints(orc_cw *w, orc_out *out, orc_int_enc **e, bool is_signed, const orc_codec *codec)
{
    orc_out_init(out, codec);
    return orc_int_enc_new(e, out, is_signed, w->ctx->rle_version, w->ctx->aligned);
}

/* ------------------------------------------------------------------ */
/* Positions                                                           */

static pm_error *record_direct(orc_cw *w, orc_positions *p)
{
    PM_TRY(orc_out_position(&w->data_out, p));
    return orc_int_enc_position(w->len_ints, p);
}

static pm_error *record(orc_cw *w, orc_positions *p)
{
    PM_TRY(orc_bool_enc_position(&w->present, p));
    switch (w->wk) {
    case WK_BOOL: return orc_bool_enc_position(&w->bools, p);
    case WK_BYTE: return orc_byte_enc_position(&w->bytes, p);
    case WK_INT:
    case WK_DATE: return orc_int_enc_position(w->data_ints, p);
    case WK_FLOAT:
    case WK_DOUBLE: return orc_out_position(&w->data_out, p);
    case WK_BINARY: return record_direct(w, p);
    case WK_DECIMAL:
        PM_TRY(orc_out_position(&w->data_out, p));
        return orc_int_enc_position(w->sec_ints, p);
    case WK_TIMESTAMP:
        PM_TRY(orc_int_enc_position(w->data_ints, p));
        return orc_int_enc_position(w->sec_ints, p);
    case WK_LIST:
    case WK_MAP: return orc_int_enc_position(w->len_ints, p);
    default: return NULL; /* struct: PRESENT only; strings add theirs themselves */
    }
}

/* Positions of the first row group of a stripe. */
static pm_error *record_start(orc_cw *w)
{
    w->cur.n = 0;
    if (!w->ctx->build_index)
        return NULL;
    PM_TRY(record(w, &w->cur));
    if (w->wk == WK_STRING && !w->use_dict)
        PM_TRY(record_direct(w, &w->cur));
    return NULL;
}

static pm_error *save_count(orc_cw *w, uint64_t v);

/* ------------------------------------------------------------------ */
/* Construction                                                        */

pm_error *orc_cw_new(orc_cw **out, uint32_t id, const orc_type *types, const pm_type *const *ptypes,
                     const double *thresholds, const orc_wctx *ctx)
{
    *out = NULL;
    orc_cw *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    const orc_type *t = &types[id];
    w->id = id;
    w->ot = t;
    w->pt = ptypes[id];
    w->ctx = ctx;
    w->wk = wk_for(t);
    w->cap = w->child_cap = ctx->batch_size;
    orc_stats_init(&w->idx, t->kind, (int32_t)t->precision, (int32_t)t->scale);
    orc_stats_init(&w->stripe, t->kind, (int32_t)t->precision, (int32_t)t->scale);
    orc_stats_init(&w->file, t->kind, (int32_t)t->precision, (int32_t)t->scale);
    orc_out_init(&w->present_out, ctx->aux_codec);
    orc_bool_enc_init(&w->present, &w->present_out);
    orc_out_init(&w->index_out, ctx->aux_codec);
    pm_error *e = NULL;
    switch (w->wk) {
    case WK_BOOL:
        orc_out_init(&w->data_out, ctx->data_codec);
        orc_bool_enc_init(&w->bools, &w->data_out);
        w->has_data = true;
        break;
    case WK_BYTE:
        orc_out_init(&w->data_out, ctx->data_codec);
        orc_byte_enc_init(&w->bytes, &w->data_out);
        w->has_data = true;
        break;
    case WK_INT:
    case WK_DATE:
        PM_TRY_GOTO(e, new_ints(w, &w->data_out, &w->data_ints, true, ctx->data_codec), fail);
        w->has_data = true;
        break;
    case WK_FLOAT:
    case WK_DOUBLE:
        orc_out_init(&w->data_out, ctx->data_codec);
        w->has_data = true;
        break;
    case WK_STRING:
        /* DATA holds the ids (dictionary) or the bytes (direct) */
        PM_TRY_GOTO(e, new_ints(w, &w->data_out, &w->data_ints, false, ctx->data_codec), fail);
        orc_out_init(&w->dict_out, ctx->data_codec);
        PM_TRY_GOTO(e, new_ints(w, &w->len_out, &w->len_ints, false, ctx->aux_codec), fail);
        w->has_data = w->has_dict = w->has_len = true;
        w->threshold = thresholds[id];
        w->max_chars = t->kind == ORC_STRING ? -1 : (int64_t)t->max_length;
        if (w->threshold <= 0.0) {
            w->use_dict = false;
            w->done_check = true;
        } else {
            w->use_dict = true;
        }
        PM_TRY_GOTO(e, pm_calloc(&w->key_off, 1, sizeof *w->key_off), fail);
        w->key_cap = 1;
        PM_TRY_GOTO(e, save_count(w, 0), fail);
        break;
    case WK_BINARY:
        orc_out_init(&w->data_out, ctx->data_codec);
        PM_TRY_GOTO(e, new_ints(w, &w->len_out, &w->len_ints, false, ctx->aux_codec), fail);
        w->has_data = w->has_len = true;
        break;
    case WK_DECIMAL:
        orc_out_init(&w->data_out, ctx->data_codec);
        PM_TRY_GOTO(e, new_ints(w, &w->sec_out, &w->sec_ints, true, ctx->aux_codec), fail);
        w->has_data = w->has_sec = true;
        break;
    case WK_TIMESTAMP:
        PM_TRY_GOTO(e, new_ints(w, &w->data_out, &w->data_ints, true, ctx->data_codec), fail);
        PM_TRY_GOTO(e, new_ints(w, &w->sec_out, &w->sec_ints, false, ctx->aux_codec), fail);
        w->has_data = w->has_sec = true;
        break;
    case WK_LIST:
    case WK_MAP:
        PM_TRY_GOTO(e, new_ints(w, &w->len_out, &w->len_ints, false, ctx->aux_codec), fail);
        w->has_len = true;
        break;
    default: break;
    }
    if (t->nsub) {
        PM_TRY_GOTO(e, pm_calloc(&w->children, t->nsub, sizeof *w->children), fail);
        for (uint32_t i = 0; i < t->nsub; i++) {
            PM_TRY_GOTO(e, orc_cw_new(&w->children[i], t->subtypes[i], types, ptypes, thresholds, ctx), fail);
            w->nchildren = i + 1;
        }
    }
    PM_TRY_GOTO(e, record_start(w), fail);
    *out = w;
    return NULL;
fail:
    orc_cw_free(w);
    return e;
}

void orc_cw_free(orc_cw *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->nchildren; i++)
        orc_cw_free(w->children[i]);
    free(w->children);
    orc_int_enc_free(w->data_ints);
    orc_int_enc_free(w->len_ints);
    orc_int_enc_free(w->sec_ints);
    orc_out_free(&w->present_out);
    orc_out_free(&w->data_out);
    orc_out_free(&w->len_out);
    orc_out_free(&w->sec_out);
    orc_out_free(&w->dict_out);
    orc_out_free(&w->index_out);
    orc_stats_free(&w->idx);
    orc_stats_free(&w->stripe);
    orc_stats_free(&w->file);
    orc_positions_free(&w->cur);
    entries_free(&w->entries);
    entries_free(&w->saved);
    pm_buf_free(&w->keys);
    free(w->key_off);
    free(w->slots);
    free(w->rows);
    free(w->counts);
    pm_buf_free(&w->pad);
    free(w);
}

void orc_cw_collect(orc_cw *w, orc_cw **all)
{
    all[w->id] = w;
    for (uint32_t i = 0; i < w->nchildren; i++)
        orc_cw_collect(w->children[i], all);
}

orc_stats_acc *orc_cw_file_stats(orc_cw *w) { return &w->file; }

/* ------------------------------------------------------------------ */
/* Dictionary                                                          */

static const uint8_t *key_ptr(const orc_cw *w, uint32_t k)
{
    return w->key_off[k + 1] > w->key_off[k] ? w->keys.data + w->key_off[k] : (const uint8_t *)"";
}

static uint32_t key_hash(const uint8_t *p, size_t n)
{
    /* FNV-1a; any hash works, the sorted output does not depend on it */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static pm_error *dict_grow(orc_cw *w)
{
    uint32_t n = w->nslots ? w->nslots * 2 : 4096;
    uint32_t *s;
    PM_TRY(pm_calloc(&s, n, sizeof *s));
    for (uint32_t k = 0; k < w->nkeys; k++) {
        uint32_t h = key_hash(key_ptr(w, k), w->key_off[k + 1] - w->key_off[k]) & (n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = k + 1;
    }
    free(w->slots);
    w->slots = s;
    w->nslots = n;
    return NULL;
}

static pm_error *dict_add(orc_cw *w, const uint8_t *p, size_t n, uint32_t *id)
{
    if ((uint64_t)w->nkeys * 2 >= w->nslots)
        PM_TRY(dict_grow(w));
    uint32_t h = key_hash(p, n) & (w->nslots - 1);
    for (;;) {
        uint32_t k = w->slots[h];
        if (!k)
            break;
        k--;
        size_t len = w->key_off[k + 1] - w->key_off[k];
        if (len == n && (n == 0 || !memcmp(w->keys.data + w->key_off[k], p, n))) {
            *id = k;
            return NULL;
        }
        h = (h + 1) & (w->nslots - 1);
    }
    if (w->keys.len + n > UINT32_MAX || w->nkeys == UINT32_MAX - 1)
        return pm_error_new(PM_EUNSUPPORTED, "ORC dictionary of column %u exceeds 4 GiB", w->id);
    PM_TRY(orc_reserve(&w->key_off, &w->key_cap, (size_t)w->nkeys + 2, sizeof *w->key_off));
    PM_TRY(pm_buf_append(&w->keys, p, n));
    w->key_off[w->nkeys + 1] = (uint32_t)w->keys.len;
    w->slots[h] = w->nkeys + 1;
    *id = w->nkeys++;
    return NULL;
}

static pm_error *push_row(orc_cw *w, uint32_t id)
{
    PM_TRY(orc_reserve(&w->rows, &w->rows_cap, w->nrows + 1, sizeof *w->rows));
    w->rows[w->nrows++] = id;
    return NULL;
}

typedef struct key_ref {
    const uint8_t *p;
    uint32_t len, id;
} key_ref;

static int key_cmp(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    uint32_t m = x->len < y->len ? x->len : y->len;
    int c = m ? memcmp(x->p, y->p, m) : 0;
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

static void check_dictionary(orc_cw *w)
{
    if (w->done_check)
        return;
    float ratio = w->nrows > 0 ? (float)w->nkeys / (float)w->nrows : 0.0f;
    w->use_dict = w->ctx->rle_version == 1 || ratio <= w->threshold;
    w->done_check = true;
}

static pm_error *save_count(orc_cw *w, uint64_t v)
{
    PM_TRY(orc_reserve(&w->counts, &w->counts_cap, w->ncounts + 1, sizeof *w->counts));
    w->counts[w->ncounts++] = v;
    return NULL;
}

/* StringBaseTreeWriter.flushDictionary */
static pm_error *flush_dictionary(orc_cw *w)
{
    uint32_t *order = NULL;
    pm_error *e = NULL;
    if (w->use_dict) {
        key_ref *sorted;
        PM_TRY(pm_calloc(&sorted, w->nkeys ? w->nkeys : 1, sizeof *sorted));
        PM_TRY_GOTO(e, pm_calloc(&order, w->nkeys ? w->nkeys : 1, sizeof *order), done_sorted);
        for (uint32_t k = 0; k < w->nkeys; k++)
            sorted[k] = (key_ref){key_ptr(w, k), w->key_off[k + 1] - w->key_off[k], k};
        qsort(sorted, w->nkeys, sizeof *sorted, key_cmp);
        for (uint32_t k = 0; k < w->nkeys; k++) {
            PM_TRY_GOTO(e, orc_out_write(&w->dict_out, sorted[k].p, sorted[k].len), done_sorted);
            PM_TRY_GOTO(e, orc_int_enc_put(w->len_ints, sorted[k].len), done_sorted);
            order[sorted[k].id] = k;
        }
    done_sorted:
        free(sorted);
        if (e)
            goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i <= w->nrows; i++) {
        if (w->ctx->build_index) {
            while (k < w->saved.n && k < w->ncounts && i == w->counts[k]) {
                entry *base = &w->saved.v[k++];
                if (w->use_dict)
                    PM_TRY_GOTO(e, orc_int_enc_position(w->data_ints, &base->pos), done);
                else
                    PM_TRY_GOTO(e, record_direct(w, &base->pos), done);
                PM_TRY_GOTO(e, entry_add(&w->entries, &base->pos, &base->stats), done);
            }
        }
        if (i == w->nrows)
            break;
        uint32_t id = w->rows[i];
        if (w->use_dict) {
            PM_TRY_GOTO(e, orc_int_enc_put(w->data_ints, order[id]), done);
        } else {
            uint32_t len = w->key_off[id + 1] - w->key_off[id];
            PM_TRY_GOTO(e, orc_out_write(&w->data_out, key_ptr(w, id), len), done);
            PM_TRY_GOTO(e, orc_int_enc_put(w->len_ints, len), done);
        }
    }
    w->nrows = 0;
done:
    free(order);
    return e;
}

static void dict_clear(orc_cw *w)
{
    pm_buf_clear(&w->keys);
    w->nkeys = 0;
    w->key_off[0] = 0;
    if (w->slots)
        memset(w->slots, 0, (size_t)w->nslots * sizeof *w->slots);
}

/* ------------------------------------------------------------------ */
/* Writing values                                                      */

static bool is_null(const pm_column *c, int64_t r) { return pm_column_is_null(c, r); }

/* Present bits and the value count of a slice (TreeWriterBase.writeBatch). */
static pm_error *write_present(orc_cw *w, const pm_column *c, int64_t start, int64_t len)
{
    uint64_t nonnull = 0;
    if (!c->null_count) {
        for (int64_t i = 0; i < len; i++)
            PM_TRY(orc_bool_enc_put(&w->present, true));
        nonnull = (uint64_t)len;
    } else {
        for (int64_t i = 0; i < len; i++) {
            bool v = !is_null(c, start + i);
            nonnull += v;
            PM_TRY(orc_bool_enc_put(&w->present, v));
        }
    }
    orc_stats_nonnull(&w->idx, nonnull);
    if (nonnull != (uint64_t)len) {
        w->found_nulls = true;
        orc_stats_set_null(&w->idx);
    }
    return NULL;
}

static uint64_t utf8_chars(const uint8_t *p, size_t n)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += (p[i] & 0xc0) != 0x80;
    return c;
}

/* Utf8Utils.truncateBytesTo */
static size_t truncate_chars(int64_t max, const uint8_t *p, size_t n)
{
    if ((int64_t)n <= max)
        return n;
    int64_t chars = 0;
    for (size_t i = 0; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            chars++;
        if (chars > max)
            return i;
    }
    return n;
}

static pm_error *write_string(orc_cw *w, const uint8_t *p, size_t n)
{
    if (w->ot->kind == ORC_CHAR) {
        uint64_t chars = utf8_chars(p, n);
        if ((int64_t)chars >= w->max_chars) {
            n = truncate_chars(w->max_chars, p, n);
        } else {
            size_t pad = (size_t)(w->max_chars - (int64_t)chars);
            pm_buf_clear(&w->pad);
            PM_TRY(pm_buf_reserve(&w->pad, n + pad));
            pm_buf_put(&w->pad, p, n);
            memset(w->pad.data + n, ' ', pad);
            w->pad.len += pad;
            p = w->pad.data;
            n += pad;
        }
    } else if (w->ot->kind == ORC_VARCHAR) {
        n = truncate_chars(w->max_chars, p, n);
    }
    if (w->use_dict) {
        uint32_t id;
        PM_TRY(dict_add(w, p, n, &id));
        PM_TRY(push_row(w, id));
    } else {
        PM_TRY(orc_out_write(&w->data_out, p, n));
        PM_TRY(orc_int_enc_put(w->len_ints, (int64_t)n));
    }
    return orc_stats_string(&w->idx, p, n);
}

static int64_t int_value(const pm_column *c, int64_t r)
{
    switch (c->type->id) {
    case PM_TYPE_TINYINT: return pm_column_i8(c, r);
    case PM_TYPE_SMALLINT: return pm_column_i16(c, r);
    case PM_TYPE_BIGINT: return pm_column_i64(c, r);
    default: return pm_column_i32(c, r);
    }
}

/* TimestampTreeWriter.formatNanos */
static int64_t format_nanos(int64_t nanos)
{
    if (nanos == 0)
        return 0;
    if (nanos % 100 != 0)
        return nanos << 3;
    nanos /= 100;
    int zeros = 1;
    while (nanos % 10 == 0 && zeros < 7) {
        nanos /= 10;
        zeros++;
    }
    return nanos << 3 | zeros;
}

static pm_error *write_timestamp(orc_cw *w, const pm_column *c, int64_t r)
{
    int64_t v = pm_column_i64(c, r);
    int64_t per_sec = pm_timestamp_units_per_second(c->type->precision);
    int64_t sec = pm_floor_div(v, per_sec);
    int64_t nanos = pm_floor_mod(v, per_sec) * (1000000000 / per_sec);
    /* java.sql.Timestamp: time = epoch millis, nanos = nanos of the second */
    int64_t time = sec * 1000 + nanos / 1000000;
    int64_t secs = time / 1000; /* Java truncates toward zero */
    int64_t millis = secs * 1000 + nanos / 1000000;
    if (millis < 0 && nanos > 999999)
        millis -= 1000;
    PM_TRY(orc_int_enc_put(w->data_ints, secs - ORC_TIMESTAMP_BASE));
    PM_TRY(orc_int_enc_put(w->sec_ints, format_nanos(nanos)));
    orc_stats_timestamp(&w->idx, millis, (int32_t)(nanos % 1000000));
    return NULL;
}

static pm_error *write_decimal(orc_cw *w, const pm_column *c, int64_t r)
{
    __int128 v = pm_column_decimal(c, r);
    orc_stats_decimal(&w->idx, v);
    int32_t s = c->type->scale;
    while (s > 0 && v % 10 == 0) {
        v /= 10;
        s--;
    }
    PM_TRY(orc_write_varint128(&w->data_out, v));
    return orc_int_enc_put(w->sec_ints, s);
}

/* ------------------------------------------------------------------ */
/* Java's vector capacities                                            */

static void set_cap(orc_cw *w, int64_t cap)
{
    w->cap = cap;
    for (uint32_t i = 0; i < w->nchildren; i++)
        set_cap(w->children[i], w->wk == WK_LIST || w->wk == WK_MAP ? w->child_cap : cap);
}

void orc_cw_batch_start(orc_cw *w)
{
    w->child_count = 0;
    for (uint32_t i = 0; i < w->nchildren; i++)
        orc_cw_batch_start(w->children[i]);
    if (w->id == 0)
        set_cap(w, w->ctx->batch_size);
}

/* Grow list / map children as Paimon's FieldWriterFactory.ensureSize does
 * while it fills the batch: per value, childCount += length, and when it
 * exceeds the capacity, capacity = max(2 x capacity, childCount). */
static void prescan(orc_cw *w, const pm_column *c, int64_t start, int64_t len)
{
    if (w->wk == WK_STRUCT) {
        int64_t end = start + len;
        for (int64_t r = start; r < end;) {
            while (r < end && is_null(c, r))
                r++;
            int64_t run = r;
            while (r < end && !is_null(c, r))
                r++;
            if (r > run)
                for (uint32_t i = 0; i < w->nchildren; i++)
                    prescan(w->children[i], c->children[i], run, r - run);
        }
        return;
    }
    if (w->wk != WK_LIST && w->wk != WK_MAP)
        return;
    const int32_t *off = pm_column_offsets(c);
    for (int64_t r = start; r < start + len; r++) {
        if (is_null(c, r))
            continue;
        w->child_count += off[r + 1] - off[r];
        if (w->child_count > w->child_cap)
            w->child_cap = w->child_cap * 2 > w->child_count ? w->child_cap * 2 : w->child_count;
    }
    for (uint32_t i = 0; i < w->nchildren; i++) {
        set_cap(w->children[i], w->child_cap);
        prescan(w->children[i], c->children[i], off[start], off[start + len] - off[start]);
    }
}

void orc_cw_prescan_root(orc_cw *w, const pm_batch *b, int64_t start, int64_t len)
{
    for (uint32_t i = 0; i < w->nchildren; i++)
        prescan(w->children[i], b->columns[i], start, len);
}

pm_error *orc_cw_write_root(orc_cw *w, const pm_batch *b, int64_t start, int64_t len)
{
    orc_stats_nonnull(&w->idx, (uint64_t)len);
    for (uint32_t i = 0; i < w->nchildren; i++)
        PM_TRY(orc_cw_write(w->children[i], b->columns[i], start, len));
    return NULL;
}

pm_error *orc_cw_write(orc_cw *w, const pm_column *c, int64_t start, int64_t len)
{
    if (len <= 0)
        return NULL;
    PM_TRY(write_present(w, c, start, len));
    int64_t end = start + len;
    switch (w->wk) {
    case WK_BOOL:
        for (int64_t r = start; r < end; r++) {
            if (is_null(c, r))
                continue;
            bool v = pm_column_bool(c, r);
            PM_TRY(orc_bool_enc_put(&w->bools, v));
            orc_stats_bool(&w->idx, v);
        }
        return NULL;
    case WK_BYTE:
        for (int64_t r = start; r < end; r++) {
            if (is_null(c, r))
                continue;
            int8_t v = pm_column_i8(c, r);
            PM_TRY(orc_byte_enc_put(&w->bytes, (uint8_t)v));
            orc_stats_int(&w->idx, v);
        }
        return NULL;
    case WK_INT:
    case WK_DATE:
        for (int64_t r = start; r < end; r++) {
            if (is_null(c, r))
                continue;
            int64_t v = int_value(c, r);
            PM_TRY(orc_int_enc_put(w->data_ints, v));
            if (w->wk == WK_DATE)
                orc_stats_date(&w->idx, (int32_t)v);
            else
                orc_stats_int(&w->idx, v);
        }
        return NULL;
    case WK_FLOAT:
    case WK_DOUBLE:
        for (int64_t r = start; r < end; r++) {
            if (is_null(c, r))
                continue;
            uint8_t b[8];
            if (w->wk == WK_FLOAT) {
                float f = pm_column_f32(c, r);
                memcpy(b, &f, 4);
                PM_TRY(orc_out_write(&w->data_out, b, 4));
                orc_stats_double(&w->idx, (double)f);
            } else {
                double d = pm_column_f64(c, r);
                memcpy(b, &d, 8);
                PM_TRY(orc_out_write(&w->data_out, b, 8));
                orc_stats_double(&w->idx, d);
            }
        }
        return NULL;
    case WK_STRING:
    case WK_BINARY:
        for (int64_t r = start; r < end; r++) {
            if (is_null(c, r))
                continue;
            size_t n;
            const uint8_t *p = pm_column_bytes(c, r, &n);
            if (w->wk == WK_STRING) {
                PM_TRY(write_string(w, p, n));
            } else {
                PM_TRY(orc_out_write(&w->data_out, p, n));
                PM_TRY(orc_int_enc_put(w->len_ints, (int64_t)n));
                orc_stats_binary(&w->idx, n);
            }
        }
        return NULL;
    case WK_DECIMAL:
        for (int64_t r = start; r < end; r++)
            if (!is_null(c, r))
                PM_TRY(write_decimal(w, c, r));
        return NULL;
    case WK_TIMESTAMP:
        for (int64_t r = start; r < end; r++)
            if (!is_null(c, r))
                PM_TRY(write_timestamp(w, c, r));
        return NULL;
    case WK_STRUCT: {
        /* members get the runs of non-null rows */
        int64_t r = start;
        while (r < end) {
            while (r < end && is_null(c, r))
                r++;
            int64_t run = r;
            while (r < end && !is_null(c, r))
                r++;
            if (r > run)
                for (uint32_t i = 0; i < w->nchildren; i++)
                    PM_TRY(orc_cw_write(w->children[i], c->children[i], run, r - run));
        }
        return NULL;
    }
    case WK_LIST:
    case WK_MAP: {
        const int32_t *off = pm_column_offsets(c);
        /* orc-core records the vector's capacity once per call, not the lengths */
        orc_stats_collection(&w->idx, (uint64_t)w->cap);
        for (int64_t r = start; r < end; r++) {
            if (is_null(c, r))
                continue;
            PM_TRY(orc_int_enc_put(w->len_ints, off[r + 1] - off[r]));
        }
        int64_t a = off[start], b = off[end];
        for (uint32_t i = 0; i < w->nchildren; i++)
            PM_TRY(orc_cw_write(w->children[i], c->children[i], a, b - a));
        return NULL;
    }
    default:
        return pm_error_new(PM_EINTERNAL, "ORC column writer kind %d", w->wk);
    }
}

/* ------------------------------------------------------------------ */
/* Row index entries                                                   */

static pm_error *close_group(orc_cw *w, pm_buf *stats)
{
    PM_TRY(orc_stats_merge(&w->stripe, &w->idx));
    PM_TRY(orc_stats_serialize(&w->idx, stats));
    orc_stats_reset(&w->idx);
    return NULL;
}

pm_error *orc_cw_index_entry(orc_cw *w)
{
    pm_buf stats = PM_BUF_INIT;
    pm_error *e = close_group(w, &stats);
    if (e)
        goto done;
    if (w->wk == WK_STRING) {
        PM_TRY_GOTO(e, entry_add(&w->saved, &w->cur, &stats), done);
        w->cur.n = 0;
        PM_TRY_GOTO(e, orc_bool_enc_position(&w->present, &w->cur), done);
        PM_TRY_GOTO(e, save_count(w, w->nrows), done);
        if (w->ctx->early_check)
            check_dictionary(w);
        if (!w->use_dict) {
            if (w->nrows > 0) {
                PM_TRY_GOTO(e, flush_dictionary(w), done);
                PM_TRY_GOTO(e, record_direct(w, &w->cur), done);
            } else {
                /* the closed entry already holds its direct positions */
                const entry *base = &w->saved.v[w->saved.n - 1];
                PM_TRY_GOTO(e, record_direct(w, &w->cur), done);
                PM_TRY_GOTO(e, entry_add(&w->entries, &base->pos, &base->stats), done);
            }
        }
    } else {
        PM_TRY_GOTO(e, entry_add(&w->entries, &w->cur, &stats), done);
        w->cur.n = 0;
        PM_TRY_GOTO(e, record(w, &w->cur), done);
    }
    for (uint32_t i = 0; i < w->nchildren && !e; i++)
        e = orc_cw_index_entry(w->children[i]);
done:
    pm_buf_free(&stats);
    return e;
}

/* ------------------------------------------------------------------ */
/* Stripes                                                             */

pm_error *orc_cw_flush(orc_cw *w)
{
    PM_TRY(orc_bool_enc_flush(&w->present));
    switch (w->wk) {
    case WK_BOOL: PM_TRY(orc_bool_enc_flush(&w->bools)); break;
    case WK_BYTE: PM_TRY(orc_byte_enc_flush(&w->bytes)); break;
    case WK_INT:
    case WK_DATE: PM_TRY(orc_int_enc_flush(w->data_ints)); break;
    case WK_FLOAT:
    case WK_DOUBLE: PM_TRY(orc_out_flush(&w->data_out)); break;
    case WK_BINARY:
        PM_TRY(orc_out_flush(&w->data_out));
        PM_TRY(orc_int_enc_flush(w->len_ints));
        break;
    case WK_DECIMAL:
        PM_TRY(orc_out_flush(&w->data_out));
        PM_TRY(orc_int_enc_flush(w->sec_ints));
        break;
    case WK_TIMESTAMP:
        PM_TRY(orc_int_enc_flush(w->data_ints));
        PM_TRY(orc_int_enc_flush(w->sec_ints));
        break;
    case WK_LIST:
    case WK_MAP: PM_TRY(orc_int_enc_flush(w->len_ints)); break;
    case WK_STRING:
        check_dictionary(w);
        if (w->use_dict) {
            PM_TRY(flush_dictionary(w));
            PM_TRY(orc_out_flush(&w->dict_out));
            PM_TRY(orc_int_enc_flush(w->len_ints));
            PM_TRY(orc_int_enc_flush(w->data_ints));
        } else {
            if (w->nrows > 0)
                PM_TRY(flush_dictionary(w));
            PM_TRY(orc_int_enc_flush(w->data_ints)); /* nothing was put: closes DATA as bytes */
            PM_TRY(orc_int_enc_flush(w->len_ints));
        }
        break;
    default: break;
    }
    for (uint32_t i = 0; i < w->nchildren; i++)
        PM_TRY(orc_cw_flush(w->children[i]));
    return NULL;
}

static bool compressed(const orc_cw *w) { return w->ctx->aux_codec->kind != ORC_COMP_NONE; }

uint64_t orc_cw_data_bytes(const orc_cw *w)
{
    uint64_t n = 0;
    if (!w->present_suppressed)
        n += w->present_out.out.len;
    if (w->has_data)
        n += w->data_out.out.len;
    if (w->has_len)
        n += w->len_out.out.len;
    if (w->has_dict && !w->dict_suppressed)
        n += w->dict_out.out.len;
    if (w->has_sec)
        n += w->sec_out.out.len;
    return n;
}

static pm_error *put_row_index(orc_cw *w)
{
    pm_buf msg = PM_BUF_INIT, ent = PM_BUF_INIT;
    pm_error *e = NULL;
    for (size_t i = 0; i < w->entries.n && !e; i++) {
        const entry *en = &w->entries.v[i];
        pm_buf_clear(&ent);
        e = orc_pb_put_packed(&ent, 1, en->pos.v, en->pos.n);
        if (!e)
            e = orc_pb_put_bytes(&ent, 2, en->stats.data ? en->stats.data : (const uint8_t *)"", en->stats.len);
        if (!e)
            e = orc_pb_put_bytes(&msg, 1, ent.data ? ent.data : (const uint8_t *)"", ent.len);
    }
    if (!e)
        e = orc_out_write(&w->index_out, msg.data ? msg.data : (const uint8_t *)"", msg.len);
    if (!e)
        e = orc_out_flush(&w->index_out);
    pm_buf_free(&msg);
    pm_buf_free(&ent);
    return e;
}

pm_error *orc_cw_finish_stripe(orc_cw *w, uint32_t required, pm_buf *stats)
{
    if (w->wk == WK_STRING) {
        check_dictionary(w);
        w->dict_suppressed = !w->use_dict;
    }
    w->present_suppressed = !w->found_nulls;
    if (w->present_suppressed && w->ctx->build_index) {
        size_t drop = compressed(w) ? 4 : 3;
        for (size_t i = 0; i < w->entries.n; i++) {
            orc_positions *p = &w->entries.v[i].pos;
            size_t k = p->n > drop ? drop : p->n;
            memmove(p->v, p->v + k, (p->n - k) * sizeof *p->v);
            p->n -= k;
        }
    }
    w->stripe.bytes_on_disk += orc_cw_data_bytes(w);
    PM_TRY(orc_stats_merge(&w->file, &w->stripe));
    PM_TRY(orc_stats_serialize(&w->stripe, stats));
    orc_stats_reset(&w->stripe);
    if (w->ctx->build_index) {
        if (w->entries.n != required)
            return pm_error_new(PM_EINTERNAL, "ORC column %u has %zu row index entries, expected %u", w->id,
                                w->entries.n, required);
        PM_TRY(put_row_index(w));
    }
    return NULL;
}

void orc_cw_encoding(const orc_cw *w, orc_encoding *e, bool *dictionary)
{
    bool v2 = w->ctx->rle_version == 2;
    *dictionary = false;
    e->dictionary_size = 0;
    switch (w->wk) {
    case WK_BOOL:
    case WK_BYTE:
    case WK_FLOAT:
    case WK_DOUBLE:
    case WK_STRUCT: e->kind = ORC_ENC_DIRECT; break;
    case WK_STRING:
        if (w->use_dict) {
            e->kind = v2 ? ORC_ENC_DICTIONARY_V2 : ORC_ENC_DICTIONARY;
            e->dictionary_size = w->nkeys;
            *dictionary = true;
        } else {
            e->kind = v2 ? ORC_ENC_DIRECT_V2 : ORC_ENC_DIRECT;
        }
        break;
    default: e->kind = v2 ? ORC_ENC_DIRECT_V2 : ORC_ENC_DIRECT; break;
    }
}

const pm_buf *orc_cw_stream(const orc_cw *w, uint32_t kind)
{
    switch (kind) {
    case ORC_PRESENT: return w->present_suppressed ? NULL : &w->present_out.out;
    case ORC_DATA: return w->has_data ? &w->data_out.out : NULL;
    case ORC_LENGTH: return w->has_len ? &w->len_out.out : NULL;
    case ORC_DICTIONARY_DATA: return w->has_dict && !w->dict_suppressed ? &w->dict_out.out : NULL;
    case ORC_SECONDARY: return w->has_sec ? &w->sec_out.out : NULL;
    case ORC_ROW_INDEX: return w->ctx->build_index ? &w->index_out.out : NULL;
    default: return NULL;
    }
}

pm_error *orc_cw_next_stripe(orc_cw *w)
{
    orc_out_reset(&w->present_out);
    orc_out_reset(&w->data_out);
    orc_out_reset(&w->len_out);
    orc_out_reset(&w->sec_out);
    orc_out_reset(&w->dict_out);
    orc_out_reset(&w->index_out);
    w->found_nulls = false;
    w->present_suppressed = false;
    w->dict_suppressed = false;
    entries_clear(&w->entries);
    if (w->wk == WK_STRING) {
        dict_clear(w);
        entries_clear(&w->saved);
        w->ncounts = 0;
        PM_TRY(save_count(w, 0));
    }
    PM_TRY(record_start(w));
    for (uint32_t i = 0; i < w->nchildren; i++)
        PM_TRY(orc_cw_next_stripe(w->children[i]));
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Memory estimate                                                     */

static uint64_t chunks(uint64_t bytes, uint64_t chunk) { return (bytes + chunk - 1) / chunk * chunk; }

static uint64_t out_estimate(const orc_out *o)
{
    /* OutStream.getBufferSize: compressed output + the open buffers */
    uint64_t n = o->out.len;
    if (o->codec->kind == ORC_COMP_NONE)
        return o->open ? o->total + (o->limit - o->cur.len) : o->total;
    if (o->open)
        n += o->limit + 3;
    if (o->open && o->out.len)
        n += o->limit + 3;
    return n;
}

uint64_t orc_cw_estimate(const orc_cw *w)
{
    uint64_t n = out_estimate(&w->present_out) + 128;
    switch (w->wk) {
    case WK_BOOL:
    case WK_BYTE: n += out_estimate(&w->data_out) + 128; break;
    case WK_INT:
    case WK_DATE:
    case WK_FLOAT:
    case WK_DOUBLE: n += out_estimate(&w->data_out); break;
    case WK_BINARY:
    case WK_DECIMAL:
    case WK_TIMESTAMP:
        n += out_estimate(&w->data_out) + out_estimate(w->has_len ? &w->len_out : &w->sec_out);
        break;
    case WK_LIST:
    case WK_MAP: n += out_estimate(&w->len_out); break;
    case WK_STRING:
        if (w->use_dict)
            n += chunks(w->keys.len, 32768) + chunks((uint64_t)w->nkeys * 4, 16384) +
                 chunks((uint64_t)w->nkeys * 8, 32768) + chunks((uint64_t)w->nrows * 4, 32768);
        else
            n += out_estimate(&w->len_out) + out_estimate(&w->data_out);
        break;
    default: break;
    }
    for (uint32_t i = 0; i < w->nchildren; i++)
        n += orc_cw_estimate(w->children[i]);
    return n;
}
