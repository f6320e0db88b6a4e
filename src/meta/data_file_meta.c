/*
 * meta/data_file_meta.c — manifest record structs: ownership helpers, the
 * Paimon row types (see data_file_meta.h) and conversion between structs
 * and columnar rows.
 *
 * Reading a row: the batch comes from the Avro reader with one of our row
 * types, so column i is field i of that type.  NOT NULL fields are
 * guaranteed non-null by the reader; nullable fields map to the struct's
 * `has`/NULL markers.  `_VERSION` and `_KIND` are checked like Java does.
 * Writing a row appends one value to every column (nested ROW and ARRAY
 * columns through their children, then pm_column_end_nested).
 */
#include "meta/data_file_meta.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* ------------------------------------------------------------------ */
/* ownership                                                            */
/* ------------------------------------------------------------------ */

void pm_bytes_clear(pm_bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->has = false;
}

pm_error *pm_bytes_set(pm_bytes *b, const void *p, size_t n)
{
    pm_bytes_clear(b);
    PM_TRY(pm_calloc(&b->data, n ? n : 1, 1));
    if (n)
        memcpy(b->data, p, n);
    b->len = n;
    b->has = true;
    return NULL;
}

static pm_error *bytes_copy(pm_bytes *dst, const pm_bytes *src)
{
    memset(dst, 0, sizeof *dst);
    if (!src->has)
        return NULL;
    return pm_bytes_set(dst, src->data, src->len);
}

static pm_error *str_list_copy(pm_str_list *dst, const pm_str_list *src)
{
    dst->items = NULL;
    dst->count = 0;
    if (!src->count)
        return NULL;
    PM_TRY(pm_calloc(&dst->items, src->count, sizeof(char *)));
    for (size_t i = 0; i < src->count; i++) {
        pm_error *e = pm_strdup(&dst->items[i], src->items[i]);
        if (e) {
            dst->count = i;
            pm_str_list_free(dst);
            return e;
        }
    }
    dst->count = src->count;
    return NULL;
}

static pm_error *array_copy(void *dst_ptr, const void *src, size_t n, size_t size)
{
    void **dst = dst_ptr;
    *dst = NULL;
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(dst, n, size));
    memcpy(*dst, src, n * size);
    return NULL;
}

void pm_simple_stats_clear(pm_simple_stats *s)
{
    pm_bytes_clear(&s->min_values);
    pm_bytes_clear(&s->max_values);
    free(s->null_counts);
    memset(s, 0, sizeof *s);
}

pm_error *pm_simple_stats_copy(pm_simple_stats *dst, const pm_simple_stats *src)
{
    memset(dst, 0, sizeof *dst);
    pm_error *e = bytes_copy(&dst->min_values, &src->min_values);
    if (!e)
        e = bytes_copy(&dst->max_values, &src->max_values);
    if (!e)
        e = array_copy(&dst->null_counts, src->null_counts, src->null_count_len, sizeof(pm_opt_long));
    dst->has_null_counts = src->has_null_counts;
    dst->null_count_len = e ? 0 : src->null_count_len;
    if (e)
        pm_simple_stats_clear(dst);
    return e;
}

/* Serialized empty BinaryRow: arity 0 (big-endian) + 8 zero bytes. */
static const uint8_t EMPTY_ROW[12] = {0};

pm_error *pm_simple_stats_empty(pm_simple_stats *s)
{
    memset(s, 0, sizeof *s);
    pm_error *e = pm_bytes_set(&s->min_values, EMPTY_ROW, sizeof EMPTY_ROW);
    if (!e)
        e = pm_bytes_set(&s->max_values, EMPTY_ROW, sizeof EMPTY_ROW);
    s->has_null_counts = true;
    if (e)
        pm_simple_stats_clear(s);
    return e;
}

/* A packed block: this header, then the strings and arrays.  Packed metas
 * are immutable (pm_data_file_meta_unpack first), so copies share the
 * block; the count is atomic because copies move between threads (a
 * task's inputs become its result's). */
typedef struct pack_head {
    atomic_size_t refs;
    max_align_t align_[];
} pack_head;

void pm_data_file_meta_clear(pm_data_file_meta *f)
{
    if (f->packed) {
        pack_head *h = f->packed;
        if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) == 1)
            free(h);
        memset(f, 0, sizeof *f);
        return;
    }
    free(f->file_name);
    pm_bytes_clear(&f->min_key);
    pm_bytes_clear(&f->max_key);
    pm_simple_stats_clear(&f->key_stats);
    pm_simple_stats_clear(&f->value_stats);
    pm_str_list_free(&f->extra_files);
    pm_bytes_clear(&f->embedded_index);
    pm_str_list_free(&f->value_stats_cols);
    free(f->external_path);
    pm_str_list_free(&f->write_cols);
    free(f->write_cols_sequences);
    memset(f, 0, sizeof *f);
}

pm_error *pm_data_file_meta_set_write_cols(pm_data_file_meta *f, const pm_type *t)
{
    PM_TRY(pm_data_file_meta_unpack(f));
    pm_str_list_free(&f->write_cols);
    f->has_write_cols = true;
    PM_TRY(pm_calloc(&f->write_cols.items, t->nfields ? t->nfields : 1, sizeof *f->write_cols.items));
    for (size_t i = 0; i < t->nfields; i++) {
        PM_TRY(pm_strdup(&f->write_cols.items[i], t->fields[i].name));
        f->write_cols.count = i + 1;
    }
    return NULL;
}

/* ---- packed metas: one pass measures (base NULL), a second fills ---- */

typedef struct packer {
    uint8_t *base;  /* NULL: only count */
    size_t used;
} packer;

static void *pk_take(packer *p, size_t n, size_t align)
{
    p->used = (p->used + align - 1) & ~(align - 1);
    void *r = p->base ? p->base + p->used : NULL;
    p->used += n;
    return r;
}

static void *pk_array(packer *p, const void *src, size_t n, size_t size)
{
    if (!n)
        return NULL;
    void *d = pk_take(p, n * size, 8);
    if (d)
        memcpy(d, src, n * size);
    return d;
}

static char *pk_str(packer *p, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = pk_take(p, n, 1);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void pk_bytes(packer *p, pm_bytes *dst, const pm_bytes *src)
{
    *dst = (pm_bytes){src->has, NULL, 0};
    if (!src->has)
        return;
    uint8_t *d = pk_take(p, src->len, 1); /* a has-but-empty value points into the block too */
    if (d && src->len)
        memcpy(d, src->data, src->len);
    dst->data = d;
    dst->len = src->len;
}

static void pk_list(packer *p, pm_str_list *dst, const pm_str_list *src)
{
    dst->count = src->count;
    dst->items = pk_array(p, src->items, src->count, sizeof(char *));
    for (size_t i = 0; i < src->count; i++) {
        char *s = pk_str(p, src->items[i]);
        if (dst->items)
            dst->items[i] = s;
    }
}

/* dst's scalars are src's; its strings and arrays are placed by p. */
static void pk_meta(packer *p, pm_data_file_meta *dst, const pm_data_file_meta *src)
{
    *dst = *src;
    dst->key_stats.null_counts = pk_array(p, src->key_stats.null_counts, src->key_stats.null_count_len,
                                          sizeof(pm_opt_long));
    dst->value_stats.null_counts = pk_array(p, src->value_stats.null_counts, src->value_stats.null_count_len,
                                            sizeof(pm_opt_long));
    dst->write_cols_sequences = pk_array(p, src->write_cols_sequences, src->write_cols_sequence_len,
                                         sizeof(int64_t));
    pk_list(p, &dst->extra_files, &src->extra_files);
    pk_list(p, &dst->value_stats_cols, &src->value_stats_cols);
    pk_list(p, &dst->write_cols, &src->write_cols);
    dst->file_name = pk_str(p, src->file_name);
    dst->external_path = pk_str(p, src->external_path);
    pk_bytes(p, &dst->min_key, &src->min_key);
    pk_bytes(p, &dst->max_key, &src->max_key);
    pk_bytes(p, &dst->key_stats.min_values, &src->key_stats.min_values);
    pk_bytes(p, &dst->key_stats.max_values, &src->key_stats.max_values);
    pk_bytes(p, &dst->value_stats.min_values, &src->value_stats.min_values);
    pk_bytes(p, &dst->value_stats.max_values, &src->value_stats.max_values);
    pk_bytes(p, &dst->embedded_index, &src->embedded_index);
}


pm_error *pm_data_file_meta_copy(pm_data_file_meta *dst, const pm_data_file_meta *src)
{
    if (src->packed) {
        atomic_fetch_add_explicit(&((pack_head *)src->packed)->refs, 1, memory_order_relaxed);
        *dst = *src;
        return NULL;
    }
    memset(dst, 0, sizeof *dst);
    pm_data_file_meta scratch;
    packer m = {NULL, 0};
    pk_meta(&m, &scratch, src);
    pack_head *h = malloc(sizeof *h + m.used);
    if (!h)
        return pm_oom();
    atomic_init(&h->refs, 1);
    packer f = {(uint8_t *)(h + 1), 0};
    pk_meta(&f, dst, src);
    dst->packed = h;
    return NULL;
}

/* A deep copy whose strings and arrays are allocated one by one. */
static pm_error *copy_unpacked(pm_data_file_meta *dst, const pm_data_file_meta *src)
{
    *dst = *src;
    dst->packed = NULL;
    dst->file_name = dst->external_path = NULL;
    memset(&dst->min_key, 0, sizeof dst->min_key);
    memset(&dst->max_key, 0, sizeof dst->max_key);
    memset(&dst->key_stats, 0, sizeof dst->key_stats);
    memset(&dst->value_stats, 0, sizeof dst->value_stats);
    memset(&dst->extra_files, 0, sizeof dst->extra_files);
    memset(&dst->embedded_index, 0, sizeof dst->embedded_index);
    memset(&dst->value_stats_cols, 0, sizeof dst->value_stats_cols);
    memset(&dst->write_cols, 0, sizeof dst->write_cols);
    dst->write_cols_sequences = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&dst->file_name, src->file_name), fail);
    PM_TRY_GOTO(e, bytes_copy(&dst->min_key, &src->min_key), fail);
    PM_TRY_GOTO(e, bytes_copy(&dst->max_key, &src->max_key), fail);
    PM_TRY_GOTO(e, pm_simple_stats_copy(&dst->key_stats, &src->key_stats), fail);
    PM_TRY_GOTO(e, pm_simple_stats_copy(&dst->value_stats, &src->value_stats), fail);
    PM_TRY_GOTO(e, str_list_copy(&dst->extra_files, &src->extra_files), fail);
    PM_TRY_GOTO(e, bytes_copy(&dst->embedded_index, &src->embedded_index), fail);
    PM_TRY_GOTO(e, str_list_copy(&dst->value_stats_cols, &src->value_stats_cols), fail);
    PM_TRY_GOTO(e, pm_strdup(&dst->external_path, src->external_path), fail);
    PM_TRY_GOTO(e, str_list_copy(&dst->write_cols, &src->write_cols), fail);
    PM_TRY_GOTO(e, array_copy(&dst->write_cols_sequences, src->write_cols_sequences,
                              src->write_cols_sequence_len, sizeof(int64_t)), fail);
    return NULL;
fail:
    dst->write_cols_sequence_len = 0;
    pm_data_file_meta_clear(dst);
    return e;
}


pm_error *pm_data_file_meta_unpack(pm_data_file_meta *f)
{
    if (!f->packed)
        return NULL;
    pm_data_file_meta u;
    PM_TRY(copy_unpacked(&u, f));
    pm_data_file_meta_clear(f);
    *f = u;
    return NULL;
}

void pm_manifest_entry_clear(pm_manifest_entry *e)
{
    pm_bytes_clear(&e->partition);
    pm_data_file_meta_clear(&e->file);
    memset(e, 0, sizeof *e);
}

pm_error *pm_manifest_entry_copy(pm_manifest_entry *dst, const pm_manifest_entry *src)
{
    memset(dst, 0, sizeof *dst);
    dst->kind = src->kind;
    dst->bucket = src->bucket;
    dst->total_buckets = src->total_buckets;
    PM_TRY(bytes_copy(&dst->partition, &src->partition));
    pm_error *e = pm_data_file_meta_copy(&dst->file, &src->file);
    if (e)
        pm_bytes_clear(&dst->partition);
    return e;
}

void pm_manifest_file_meta_clear(pm_manifest_file_meta *m)
{
    free(m->file_name);
    pm_simple_stats_clear(&m->partition_stats);
    memset(m, 0, sizeof *m);
}

pm_error *pm_manifest_file_meta_copy(pm_manifest_file_meta *dst, const pm_manifest_file_meta *src)
{
    *dst = *src;
    dst->file_name = NULL;
    memset(&dst->partition_stats, 0, sizeof dst->partition_stats);
    pm_error *e = pm_strdup(&dst->file_name, src->file_name);
    if (!e)
        e = pm_simple_stats_copy(&dst->partition_stats, &src->partition_stats);
    if (e)
        pm_manifest_file_meta_clear(dst);
    return e;
}

static void global_index_clear(pm_global_index_meta *g)
{
    free(g->extra_field_ids);
    pm_bytes_clear(&g->index_meta);
    pm_bytes_clear(&g->source_meta);
    memset(g, 0, sizeof *g);
}

void pm_index_manifest_entry_clear(pm_index_manifest_entry *e)
{
    pm_bytes_clear(&e->partition);
    pm_index_file_meta *f = &e->index_file;
    free(f->index_type);
    free(f->file_name);
    for (size_t i = 0; i < f->dv_range_len; i++)
        free(f->dv_ranges[i].data_file_name);
    free(f->dv_ranges);
    free(f->external_path);
    global_index_clear(&f->global_index);
    memset(e, 0, sizeof *e);
}

pm_error *pm_index_manifest_entry_copy(pm_index_manifest_entry *dst, const pm_index_manifest_entry *src)
{
    memset(dst, 0, sizeof *dst);
    dst->kind = src->kind;
    dst->bucket = src->bucket;
    const pm_index_file_meta *s = &src->index_file;
    pm_index_file_meta *d = &dst->index_file;
    d->file_size = s->file_size;
    d->row_count = s->row_count;
    d->has_dv_ranges = s->has_dv_ranges;
    d->has_global_index = s->has_global_index;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, bytes_copy(&dst->partition, &src->partition), fail);
    PM_TRY_GOTO(e, pm_strdup(&d->index_type, s->index_type), fail);
    PM_TRY_GOTO(e, pm_strdup(&d->file_name, s->file_name), fail);
    PM_TRY_GOTO(e, pm_strdup(&d->external_path, s->external_path), fail);
    if (s->dv_range_len) {
        PM_TRY_GOTO(e, pm_calloc(&d->dv_ranges, s->dv_range_len, sizeof(pm_dv_meta)), fail);
        for (size_t i = 0; i < s->dv_range_len; i++) {
            d->dv_ranges[i] = s->dv_ranges[i];
            d->dv_ranges[i].data_file_name = NULL;
            d->dv_range_len = i + 1;
            PM_TRY_GOTO(e, pm_strdup(&d->dv_ranges[i].data_file_name, s->dv_ranges[i].data_file_name),
                        fail);
        }
    }
    if (s->has_global_index) {
        const pm_global_index_meta *gs = &s->global_index;
        pm_global_index_meta *gd = &d->global_index;
        gd->row_range_start = gs->row_range_start;
        gd->row_range_end = gs->row_range_end;
        gd->index_field_id = gs->index_field_id;
        gd->has_extra_field_ids = gs->has_extra_field_ids;
        PM_TRY_GOTO(e, array_copy(&gd->extra_field_ids, gs->extra_field_ids, gs->extra_field_id_len,
                                  sizeof(int32_t)), fail);
        gd->extra_field_id_len = gs->extra_field_id_len;
        PM_TRY_GOTO(e, bytes_copy(&gd->index_meta, &gs->index_meta), fail);
        PM_TRY_GOTO(e, bytes_copy(&gd->source_meta, &gs->source_meta), fail);
    }
    return NULL;
fail:
    pm_index_manifest_entry_clear(dst);
    return e;
}

/* ------------------------------------------------------------------ */
/* row types                                                            */
/* ------------------------------------------------------------------ */

#define STATS_T "ROW<_MIN_VALUES BYTES NOT NULL, _MAX_VALUES BYTES NOT NULL, _NULL_COUNTS ARRAY<BIGINT>> NOT NULL"

#define DFM_FIELDS                                                                             \
    "_FILE_NAME STRING NOT NULL, _FILE_SIZE BIGINT NOT NULL, _ROW_COUNT BIGINT NOT NULL, "     \
    "_MIN_KEY BYTES NOT NULL, _MAX_KEY BYTES NOT NULL, _KEY_STATS " STATS_T ", "               \
    "_VALUE_STATS " STATS_T ", _MIN_SEQUENCE_NUMBER BIGINT NOT NULL, "                         \
    "_MAX_SEQUENCE_NUMBER BIGINT NOT NULL, _SCHEMA_ID BIGINT NOT NULL, _LEVEL INT NOT NULL, "  \
    "_EXTRA_FILES ARRAY<STRING NOT NULL> NOT NULL, _CREATION_TIME TIMESTAMP(3), "              \
    "_DELETE_ROW_COUNT BIGINT, _EMBEDDED_FILE_INDEX BYTES, _FILE_SOURCE TINYINT, "             \
    "_VALUE_STATS_COLS ARRAY<STRING NOT NULL>, _EXTERNAL_PATH STRING, _FIRST_ROW_ID BIGINT, "  \
    "_WRITE_COLS ARRAY<STRING NOT NULL>"
#define DFM_READ_EXTRA ", _WRITE_COLS_SEQUENCES ARRAY<BIGINT NOT NULL>"

#define DFM_T_WRITE "ROW<" DFM_FIELDS "> NOT NULL"
#define DFM_T_READ "ROW<" DFM_FIELDS DFM_READ_EXTRA "> NOT NULL"

#define ENTRY_HEAD "ROW<_VERSION INT NOT NULL, _KIND TINYINT NOT NULL, _PARTITION BYTES NOT NULL, " \
                   "_BUCKET INT NOT NULL, _TOTAL_BUCKETS INT NOT NULL, _FILE "

#define MFM_T                                                                                   \
    "ROW<_VERSION INT NOT NULL, _FILE_NAME STRING NOT NULL, _FILE_SIZE BIGINT NOT NULL, "       \
    "_NUM_ADDED_FILES BIGINT NOT NULL, _NUM_DELETED_FILES BIGINT NOT NULL, _PARTITION_STATS "   \
    STATS_T ", _SCHEMA_ID BIGINT NOT NULL, _MIN_BUCKET INT, _MAX_BUCKET INT, _MIN_LEVEL INT, "  \
    "_MAX_LEVEL INT, _MIN_ROW_ID BIGINT, _MAX_ROW_ID BIGINT> NOT NULL"

#define IME_T                                                                                   \
    "ROW<_VERSION INT NOT NULL, _KIND TINYINT NOT NULL, _PARTITION BYTES NOT NULL, "            \
    "_BUCKET INT NOT NULL, _INDEX_TYPE STRING NOT NULL, _FILE_NAME STRING NOT NULL, "           \
    "_FILE_SIZE BIGINT NOT NULL, _ROW_COUNT BIGINT NOT NULL, _DELETIONS_VECTORS_RANGES "        \
    "ARRAY<ROW<f0 STRING NOT NULL, f1 INT NOT NULL, f2 INT NOT NULL, _CARDINALITY BIGINT>>, "   \
    "_EXTERNAL_PATH STRING, _GLOBAL_INDEX ROW<_ROW_RANGE_START BIGINT NOT NULL, "               \
    "_ROW_RANGE_END BIGINT NOT NULL, _INDEX_FIELD_ID INT NOT NULL, "                            \
    "_EXTRA_FIELD_IDS ARRAY<INT NOT NULL>, _INDEX_META BYTES, _SOURCE_META BYTES>> NOT NULL"

static pm_type *parse_static(const char *text)
{
    pm_type *t = NULL;
    pm_error *e = pm_type_parse(&t, text);
    if (e) { /* the strings above are constants: only OOM can fail */
        pm_error_free(e);
        return NULL;
    }
    return t;
}

pm_type *pm_simple_stats_type(void) { return parse_static(STATS_T); }
pm_type *pm_data_file_meta_type(bool for_write) { return parse_static(for_write ? DFM_T_WRITE : DFM_T_READ); }
pm_type *pm_manifest_entry_row_type(bool for_write)
{
    return parse_static(for_write ? ENTRY_HEAD DFM_T_WRITE "> NOT NULL" : ENTRY_HEAD DFM_T_READ "> NOT NULL");
}
pm_type *pm_manifest_file_meta_row_type(void) { return parse_static(MFM_T); }
pm_type *pm_index_manifest_entry_row_type(void) { return parse_static(IME_T); }

/* Field positions of the types above. */
enum { DFM_FILE_NAME, DFM_FILE_SIZE, DFM_ROW_COUNT, DFM_MIN_KEY, DFM_MAX_KEY, DFM_KEY_STATS,
       DFM_VALUE_STATS, DFM_MIN_SEQ, DFM_MAX_SEQ, DFM_SCHEMA_ID, DFM_LEVEL, DFM_EXTRA_FILES,
       DFM_CREATION_TIME, DFM_DELETE_ROW_COUNT, DFM_EMBEDDED_INDEX, DFM_FILE_SOURCE,
       DFM_VALUE_STATS_COLS, DFM_EXTERNAL_PATH, DFM_FIRST_ROW_ID, DFM_WRITE_COLS,
       DFM_WRITE_COLS_SEQUENCES, DFM__WRITE_COUNT = DFM_WRITE_COLS_SEQUENCES };
enum { ME_VERSION, ME_KIND, ME_PARTITION, ME_BUCKET, ME_TOTAL_BUCKETS, ME_FILE };
enum { MFM_VERSION, MFM_FILE_NAME, MFM_FILE_SIZE, MFM_ADDED, MFM_DELETED, MFM_STATS, MFM_SCHEMA_ID,
       MFM_MIN_BUCKET, MFM_MAX_BUCKET, MFM_MIN_LEVEL, MFM_MAX_LEVEL, MFM_MIN_ROW_ID, MFM_MAX_ROW_ID };
enum { IME_VERSION, IME_KIND, IME_PARTITION, IME_BUCKET, IME_INDEX_TYPE, IME_FILE_NAME, IME_FILE_SIZE,
       IME_ROW_COUNT, IME_DV_RANGES, IME_EXTERNAL_PATH, IME_GLOBAL_INDEX };

/* ------------------------------------------------------------------ */
/* reading columns                                                      */
/* ------------------------------------------------------------------ */

typedef struct rd {
    const char *what;   /* file */
    int64_t row;
} rd;

static pm_error *need(const pm_column *c, int64_t row, const rd *r, const char *field)
{
    if (pm_column_is_null(c, row))
        return pm_error_new(PM_ECORRUPT, "%s: row %lld: field %s is null", r->what, (long long)r->row,
                            field);
    return NULL;
}

static pm_error *rd_str(const pm_column *c, int64_t row, const rd *r, const char *field, char **out)
{
    *out = NULL;
    if (pm_column_is_null(c, row))
        return need(c, row, r, field);
    size_t n;
    const uint8_t *p = pm_column_bytes(c, row, &n);
    return pm_strndup(out, (const char *)p, n);
}

static pm_error *rd_str_opt(const pm_column *c, int64_t row, char **out)
{
    *out = NULL;
    if (pm_column_is_null(c, row))
        return NULL;
    size_t n;
    const uint8_t *p = pm_column_bytes(c, row, &n);
    return pm_strndup(out, (const char *)p, n);
}

static pm_error *rd_bytes(const pm_column *c, int64_t row, pm_bytes *out)
{
    memset(out, 0, sizeof *out);
    if (pm_column_is_null(c, row))
        return NULL;
    size_t n;
    const uint8_t *p = pm_column_bytes(c, row, &n);
    return pm_bytes_set(out, p, n);
}

static pm_error *rd_i64(const pm_column *c, int64_t row, const rd *r, const char *field, int64_t *out)
{
    PM_TRY(need(c, row, r, field));
    *out = pm_column_i64(c, row);
    return NULL;
}

static pm_error *rd_i32(const pm_column *c, int64_t row, const rd *r, const char *field, int32_t *out)
{
    PM_TRY(need(c, row, r, field));
    *out = pm_column_i32(c, row);
    return NULL;
}

static pm_opt_long rd_opt_i64(const pm_column *c, int64_t row)
{
    pm_opt_long v = {false, 0};
    if (!pm_column_is_null(c, row)) {
        v.has = true;
        v.v = pm_column_i64(c, row);
    }
    return v;
}

static pm_opt_int rd_opt_i32(const pm_column *c, int64_t row)
{
    pm_opt_int v = {false, 0};
    if (!pm_column_is_null(c, row)) {
        v.has = true;
        v.v = pm_column_i32(c, row);
    }
    return v;
}

/* ARRAY<STRING> → list; *present=false for a null array. */
static pm_error *rd_str_array(const pm_column *c, int64_t row, const rd *r, const char *field,
                              bool *present, pm_str_list *out)
{
    out->items = NULL;
    out->count = 0;
    *present = !pm_column_is_null(c, row);
    if (!*present)
        return NULL;
    const int32_t *o = pm_column_offsets(c);
    const pm_column *child = c->children[0];
    size_t n = (size_t)(o[row + 1] - o[row]);
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(&out->items, n, sizeof(char *)));
    for (size_t i = 0; i < n; i++) {
        pm_error *e = rd_str(child, o[row] + (int64_t)i, r, field, &out->items[i]);
        if (e) {
            out->count = i;
            pm_str_list_free(out);
            return e;
        }
        out->count = i + 1;
    }
    return NULL;
}

static pm_error *rd_stats(const pm_column *c, int64_t row, const rd *r, const char *field,
                          pm_simple_stats *out)
{
    memset(out, 0, sizeof *out);
    PM_TRY(need(c, row, r, field));
    pm_error *e = rd_bytes(c->children[0], row, &out->min_values);
    if (!e)
        e = rd_bytes(c->children[1], row, &out->max_values);
    if (!e && (!out->min_values.has || !out->max_values.has))
        e = pm_error_new(PM_ECORRUPT, "%s: row %lld: %s without min/max values", r->what,
                         (long long)r->row, field);
    const pm_column *nc = c->children[2];
    if (!e && !pm_column_is_null(nc, row)) {
        out->has_null_counts = true;
        const int32_t *o = pm_column_offsets(nc);
        size_t n = (size_t)(o[row + 1] - o[row]);
        if (n)
            e = pm_calloc(&out->null_counts, n, sizeof(pm_opt_long));
        for (size_t i = 0; !e && i < n; i++)
            out->null_counts[i] = rd_opt_i64(nc->children[0], o[row] + (int64_t)i);
        if (!e)
            out->null_count_len = n;
    }
    if (e)
        pm_simple_stats_clear(out);
    return e;
}

static pm_error *check_version(const pm_column *c, int64_t row, const rd *r, int32_t expect)
{
    int32_t v;
    PM_TRY(rd_i32(c, row, r, "_VERSION", &v));
    if (v == expect)
        return NULL;
    if (expect == PM_MANIFEST_VERSION && v == 1)
        return pm_error_new(PM_EUNSUPPORTED, "%s: row %lld: manifest format version 1 is not "
                            "compatible with version 2 (Paimon: please recreate the table)",
                            r->what, (long long)r->row);
    return pm_error_new(PM_ECORRUPT, "%s: row %lld: unsupported manifest format version %d", r->what,
                        (long long)r->row, (int)v);
}

static pm_error *rd_kind(const pm_column *c, int64_t row, const rd *r, pm_file_kind *out)
{
    PM_TRY(need(c, row, r, "_KIND"));
    int8_t k = pm_column_i8(c, row);
    if (k != PM_FILE_ADD && k != PM_FILE_DELETE)
        return pm_error_new(PM_ECORRUPT, "%s: row %lld: unknown file kind %d", r->what,
                            (long long)r->row, (int)k);
    *out = (pm_file_kind)k;
    return NULL;
}

static pm_error *rd_data_file_meta(const pm_column *c, int64_t row, const rd *r, pm_data_file_meta *f)
{
    memset(f, 0, sizeof *f);
    PM_TRY(need(c, row, r, "_FILE"));
    pm_column *const *k = c->children;
    bool present;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, rd_str(k[DFM_FILE_NAME], row, r, "_FILE_NAME", &f->file_name), fail);
    PM_TRY_GOTO(e, rd_i64(k[DFM_FILE_SIZE], row, r, "_FILE_SIZE", &f->file_size), fail);
    PM_TRY_GOTO(e, rd_i64(k[DFM_ROW_COUNT], row, r, "_ROW_COUNT", &f->row_count), fail);
    PM_TRY_GOTO(e, rd_bytes(k[DFM_MIN_KEY], row, &f->min_key), fail);
    PM_TRY_GOTO(e, rd_bytes(k[DFM_MAX_KEY], row, &f->max_key), fail);
    PM_TRY_GOTO(e, rd_stats(k[DFM_KEY_STATS], row, r, "_KEY_STATS", &f->key_stats), fail);
    PM_TRY_GOTO(e, rd_stats(k[DFM_VALUE_STATS], row, r, "_VALUE_STATS", &f->value_stats), fail);
    PM_TRY_GOTO(e, rd_i64(k[DFM_MIN_SEQ], row, r, "_MIN_SEQUENCE_NUMBER", &f->min_sequence_number), fail);
    PM_TRY_GOTO(e, rd_i64(k[DFM_MAX_SEQ], row, r, "_MAX_SEQUENCE_NUMBER", &f->max_sequence_number), fail);
    PM_TRY_GOTO(e, rd_i64(k[DFM_SCHEMA_ID], row, r, "_SCHEMA_ID", &f->schema_id), fail);
    PM_TRY_GOTO(e, rd_i32(k[DFM_LEVEL], row, r, "_LEVEL", &f->level), fail);
    PM_TRY_GOTO(e, rd_str_array(k[DFM_EXTRA_FILES], row, r, "_EXTRA_FILES", &present, &f->extra_files),
                fail);
    if (!present) {
        e = pm_error_new(PM_ECORRUPT, "%s: row %lld: _EXTRA_FILES is null", r->what, (long long)r->row);
        goto fail;
    }
    f->creation_time = rd_opt_i64(k[DFM_CREATION_TIME], row);
    f->delete_row_count = rd_opt_i64(k[DFM_DELETE_ROW_COUNT], row);
    PM_TRY_GOTO(e, rd_bytes(k[DFM_EMBEDDED_INDEX], row, &f->embedded_index), fail);
    if (!pm_column_is_null(k[DFM_FILE_SOURCE], row)) {
        int8_t s = pm_column_i8(k[DFM_FILE_SOURCE], row);
        if (s != PM_FILE_SOURCE_APPEND && s != PM_FILE_SOURCE_COMPACT) {
            e = pm_error_new(PM_ECORRUPT, "%s: row %lld: unknown file source %d", r->what,
                             (long long)r->row, (int)s);
            goto fail;
        }
        f->file_source = (pm_opt_int){true, s};
    }
    PM_TRY_GOTO(e, rd_str_array(k[DFM_VALUE_STATS_COLS], row, r, "_VALUE_STATS_COLS",
                                &f->has_value_stats_cols, &f->value_stats_cols), fail);
    PM_TRY_GOTO(e, rd_str_opt(k[DFM_EXTERNAL_PATH], row, &f->external_path), fail);
    f->first_row_id = rd_opt_i64(k[DFM_FIRST_ROW_ID], row);
    PM_TRY_GOTO(e, rd_str_array(k[DFM_WRITE_COLS], row, r, "_WRITE_COLS", &f->has_write_cols,
                                &f->write_cols), fail);
    if (c->nchildren > DFM_WRITE_COLS_SEQUENCES) {
        const pm_column *ws = k[DFM_WRITE_COLS_SEQUENCES];
        if (!pm_column_is_null(ws, row)) {
            const int32_t *o = pm_column_offsets(ws);
            size_t n = (size_t)(o[row + 1] - o[row]);
            f->has_write_cols_sequences = true;
            if (n)
                PM_TRY_GOTO(e, pm_calloc(&f->write_cols_sequences, n, sizeof(int64_t)), fail);
            for (size_t i = 0; i < n; i++)
                f->write_cols_sequences[i] = pm_column_i64(ws->children[0], o[row] + (int64_t)i);
            f->write_cols_sequence_len = n;
        }
    }
    return NULL;
fail:
    pm_data_file_meta_clear(f);
    return e;
}

pm_error *pm_manifest_entry_from_row(const pm_batch *b, int64_t row, const char *what,
                                     pm_manifest_entry *out)
{
    memset(out, 0, sizeof *out);
    rd r = {what, row};
    pm_column *const *c = ((const struct pm_batch *)b)->columns;
    if (((const struct pm_batch *)b)->ncolumns != ME_FILE + 1)
        return pm_error_new(PM_EINTERNAL, "manifest entry batch has the wrong type");
    pm_error *e = NULL;
    PM_TRY_GOTO(e, check_version(c[ME_VERSION], row, &r, PM_MANIFEST_VERSION), fail);
    PM_TRY_GOTO(e, rd_kind(c[ME_KIND], row, &r, &out->kind), fail);
    PM_TRY_GOTO(e, need(c[ME_PARTITION], row, &r, "_PARTITION"), fail);
    PM_TRY_GOTO(e, rd_bytes(c[ME_PARTITION], row, &out->partition), fail);
    PM_TRY_GOTO(e, rd_i32(c[ME_BUCKET], row, &r, "_BUCKET", &out->bucket), fail);
    PM_TRY_GOTO(e, rd_i32(c[ME_TOTAL_BUCKETS], row, &r, "_TOTAL_BUCKETS", &out->total_buckets), fail);
    /* decoded field by field, then packed (one allocation per entry) */
    pm_data_file_meta f;
    PM_TRY_GOTO(e, rd_data_file_meta(c[ME_FILE], row, &r, &f), fail);
    e = pm_data_file_meta_copy(&out->file, &f);
    pm_data_file_meta_clear(&f);
    if (e)
        goto fail;
    return NULL;
fail:
    pm_manifest_entry_clear(out);
    return e;
}

pm_error *pm_manifest_file_meta_from_row(const pm_batch *b, int64_t row, const char *what,
                                         pm_manifest_file_meta *out)
{
    memset(out, 0, sizeof *out);
    rd r = {what, row};
    pm_column *const *c = ((const struct pm_batch *)b)->columns;
    if (((const struct pm_batch *)b)->ncolumns != MFM_MAX_ROW_ID + 1)
        return pm_error_new(PM_EINTERNAL, "manifest list batch has the wrong type");
    pm_error *e = NULL;
    PM_TRY_GOTO(e, check_version(c[MFM_VERSION], row, &r, PM_MANIFEST_VERSION), fail);
    PM_TRY_GOTO(e, rd_str(c[MFM_FILE_NAME], row, &r, "_FILE_NAME", &out->file_name), fail);
    PM_TRY_GOTO(e, rd_i64(c[MFM_FILE_SIZE], row, &r, "_FILE_SIZE", &out->file_size), fail);
    PM_TRY_GOTO(e, rd_i64(c[MFM_ADDED], row, &r, "_NUM_ADDED_FILES", &out->num_added_files), fail);
    PM_TRY_GOTO(e, rd_i64(c[MFM_DELETED], row, &r, "_NUM_DELETED_FILES", &out->num_deleted_files), fail);
    PM_TRY_GOTO(e, rd_stats(c[MFM_STATS], row, &r, "_PARTITION_STATS", &out->partition_stats), fail);
    PM_TRY_GOTO(e, rd_i64(c[MFM_SCHEMA_ID], row, &r, "_SCHEMA_ID", &out->schema_id), fail);
    out->min_bucket = rd_opt_i32(c[MFM_MIN_BUCKET], row);
    out->max_bucket = rd_opt_i32(c[MFM_MAX_BUCKET], row);
    out->min_level = rd_opt_i32(c[MFM_MIN_LEVEL], row);
    out->max_level = rd_opt_i32(c[MFM_MAX_LEVEL], row);
    out->min_row_id = rd_opt_i64(c[MFM_MIN_ROW_ID], row);
    out->max_row_id = rd_opt_i64(c[MFM_MAX_ROW_ID], row);
    return NULL;
fail:
    pm_manifest_file_meta_clear(out);
    return e;
}

pm_error *pm_index_manifest_entry_from_row(const pm_batch *b, int64_t row, const char *what,
                                           pm_index_manifest_entry *out)
{
    memset(out, 0, sizeof *out);
    rd r = {what, row};
    pm_column *const *c = ((const struct pm_batch *)b)->columns;
    if (((const struct pm_batch *)b)->ncolumns != IME_GLOBAL_INDEX + 1)
        return pm_error_new(PM_EINTERNAL, "index manifest batch has the wrong type");
    pm_index_file_meta *f = &out->index_file;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, check_version(c[IME_VERSION], row, &r, PM_INDEX_MANIFEST_VERSION), fail);
    PM_TRY_GOTO(e, rd_kind(c[IME_KIND], row, &r, &out->kind), fail);
    PM_TRY_GOTO(e, need(c[IME_PARTITION], row, &r, "_PARTITION"), fail);
    PM_TRY_GOTO(e, rd_bytes(c[IME_PARTITION], row, &out->partition), fail);
    PM_TRY_GOTO(e, rd_i32(c[IME_BUCKET], row, &r, "_BUCKET", &out->bucket), fail);
    PM_TRY_GOTO(e, rd_str(c[IME_INDEX_TYPE], row, &r, "_INDEX_TYPE", &f->index_type), fail);
    PM_TRY_GOTO(e, rd_str(c[IME_FILE_NAME], row, &r, "_FILE_NAME", &f->file_name), fail);
    PM_TRY_GOTO(e, rd_i64(c[IME_FILE_SIZE], row, &r, "_FILE_SIZE", &f->file_size), fail);
    PM_TRY_GOTO(e, rd_i64(c[IME_ROW_COUNT], row, &r, "_ROW_COUNT", &f->row_count), fail);
    const pm_column *dv = c[IME_DV_RANGES];
    if (!pm_column_is_null(dv, row)) {
        f->has_dv_ranges = true;
        const int32_t *o = pm_column_offsets(dv);
        size_t n = (size_t)(o[row + 1] - o[row]);
        const pm_column *rec = dv->children[0];
        if (n)
            PM_TRY_GOTO(e, pm_calloc(&f->dv_ranges, n, sizeof(pm_dv_meta)), fail);
        for (size_t i = 0; i < n; i++) {
            int64_t j = o[row] + (int64_t)i;
            if (pm_column_is_null(rec, j)) {
                e = pm_error_new(PM_ECORRUPT, "%s: row %lld: null deletion-vector range", what,
                                 (long long)row);
                goto fail;
            }
            pm_dv_meta *m = &f->dv_ranges[i];
            f->dv_range_len = i + 1;
            PM_TRY_GOTO(e, rd_str(rec->children[0], j, &r, "f0", &m->data_file_name), fail);
            PM_TRY_GOTO(e, rd_i32(rec->children[1], j, &r, "f1", &m->offset), fail);
            PM_TRY_GOTO(e, rd_i32(rec->children[2], j, &r, "f2", &m->length), fail);
            m->cardinality = rd_opt_i64(rec->children[3], j);
        }
    }
    PM_TRY_GOTO(e, rd_str_opt(c[IME_EXTERNAL_PATH], row, &f->external_path), fail);
    const pm_column *gi = c[IME_GLOBAL_INDEX];
    if (!pm_column_is_null(gi, row)) {
        pm_global_index_meta *g = &f->global_index;
        f->has_global_index = true;
        PM_TRY_GOTO(e, rd_i64(gi->children[0], row, &r, "_ROW_RANGE_START", &g->row_range_start), fail);
        PM_TRY_GOTO(e, rd_i64(gi->children[1], row, &r, "_ROW_RANGE_END", &g->row_range_end), fail);
        PM_TRY_GOTO(e, rd_i32(gi->children[2], row, &r, "_INDEX_FIELD_ID", &g->index_field_id), fail);
        const pm_column *ex = gi->children[3];
        if (!pm_column_is_null(ex, row)) {
            g->has_extra_field_ids = true;
            const int32_t *o = pm_column_offsets(ex);
            size_t n = (size_t)(o[row + 1] - o[row]);
            if (n)
                PM_TRY_GOTO(e, pm_calloc(&g->extra_field_ids, n, sizeof(int32_t)), fail);
            for (size_t i = 0; i < n; i++)
                g->extra_field_ids[i] = pm_column_i32(ex->children[0], o[row] + (int64_t)i);
            g->extra_field_id_len = n;
        }
        PM_TRY_GOTO(e, rd_bytes(gi->children[4], row, &g->index_meta), fail);
        PM_TRY_GOTO(e, rd_bytes(gi->children[5], row, &g->source_meta), fail);
    }
    return NULL;
fail:
    pm_index_manifest_entry_clear(out);
    return e;
}

/* ------------------------------------------------------------------ */
/* writing columns                                                      */
/* ------------------------------------------------------------------ */

static pm_error *wr_str(pm_column *c, const char *s)
{
    return s ? pm_column_append_bytes(c, s, strlen(s)) : pm_column_append_null(c);
}

static pm_error *wr_str_req(pm_column *c, const char *s, const char *field)
{
    if (!s)
        return pm_error_new(PM_EINVALID, "%s must not be null", field);
    return pm_column_append_bytes(c, s, strlen(s));
}

static pm_error *wr_bytes(pm_column *c, const pm_bytes *b)
{
    return b->has ? pm_column_append_bytes(c, b->data ? b->data : (const uint8_t *)"", b->len)
                  : pm_column_append_null(c);
}

static pm_error *wr_bytes_req(pm_column *c, const pm_bytes *b, const char *field)
{
    if (!b->has)
        return pm_error_new(PM_EINVALID, "%s must not be null", field);
    return wr_bytes(c, b);
}

static pm_error *wr_opt_i64(pm_column *c, pm_opt_long v)
{
    return v.has ? pm_column_append_i64(c, v.v) : pm_column_append_null(c);
}

static pm_error *wr_opt_i32(pm_column *c, pm_opt_int v)
{
    return v.has ? pm_column_append_i32(c, v.v) : pm_column_append_null(c);
}

static pm_error *wr_str_array(pm_column *c, bool present, const pm_str_list *l, const char *field)
{
    if (!present)
        return pm_column_append_null(c);
    for (size_t i = 0; i < l->count; i++)
        PM_TRY(wr_str_req(c->children[0], l->items[i], field));
    return pm_column_end_nested(c);
}

static pm_error *wr_stats(pm_column *c, const pm_simple_stats *s, const char *field)
{
    PM_TRY(wr_bytes_req(c->children[0], &s->min_values, field));
    PM_TRY(wr_bytes_req(c->children[1], &s->max_values, field));
    pm_column *nc = c->children[2];
    if (!s->has_null_counts) {
        PM_TRY(pm_column_append_null(nc));
    } else {
        for (size_t i = 0; i < s->null_count_len; i++)
            PM_TRY(wr_opt_i64(nc->children[0], s->null_counts[i]));
        PM_TRY(pm_column_end_nested(nc));
    }
    return pm_column_end_nested(c);
}

static pm_error *wr_data_file_meta(pm_column *c, const pm_data_file_meta *f)
{
    pm_column *const *k = c->children;
    PM_TRY(wr_str_req(k[DFM_FILE_NAME], f->file_name, "_FILE_NAME"));
    PM_TRY(pm_column_append_i64(k[DFM_FILE_SIZE], f->file_size));
    PM_TRY(pm_column_append_i64(k[DFM_ROW_COUNT], f->row_count));
    PM_TRY(wr_bytes_req(k[DFM_MIN_KEY], &f->min_key, "_MIN_KEY"));
    PM_TRY(wr_bytes_req(k[DFM_MAX_KEY], &f->max_key, "_MAX_KEY"));
    PM_TRY(wr_stats(k[DFM_KEY_STATS], &f->key_stats, "_KEY_STATS"));
    PM_TRY(wr_stats(k[DFM_VALUE_STATS], &f->value_stats, "_VALUE_STATS"));
    PM_TRY(pm_column_append_i64(k[DFM_MIN_SEQ], f->min_sequence_number));
    PM_TRY(pm_column_append_i64(k[DFM_MAX_SEQ], f->max_sequence_number));
    PM_TRY(pm_column_append_i64(k[DFM_SCHEMA_ID], f->schema_id));
    PM_TRY(pm_column_append_i32(k[DFM_LEVEL], f->level));
    PM_TRY(wr_str_array(k[DFM_EXTRA_FILES], true, &f->extra_files, "_EXTRA_FILES"));
    PM_TRY(wr_opt_i64(k[DFM_CREATION_TIME], f->creation_time));
    PM_TRY(wr_opt_i64(k[DFM_DELETE_ROW_COUNT], f->delete_row_count));
    PM_TRY(wr_bytes(k[DFM_EMBEDDED_INDEX], &f->embedded_index));
    if (f->file_source.has)
        PM_TRY(pm_column_append_i8(k[DFM_FILE_SOURCE], (int8_t)f->file_source.v));
    else
        PM_TRY(pm_column_append_null(k[DFM_FILE_SOURCE]));
    PM_TRY(wr_str_array(k[DFM_VALUE_STATS_COLS], f->has_value_stats_cols, &f->value_stats_cols,
                        "_VALUE_STATS_COLS"));
    PM_TRY(wr_str(k[DFM_EXTERNAL_PATH], f->external_path));
    PM_TRY(wr_opt_i64(k[DFM_FIRST_ROW_ID], f->first_row_id));
    PM_TRY(wr_str_array(k[DFM_WRITE_COLS], f->has_write_cols, &f->write_cols, "_WRITE_COLS"));
    if (c->nchildren > DFM_WRITE_COLS_SEQUENCES) {
        pm_column *ws = k[DFM_WRITE_COLS_SEQUENCES];
        if (!f->has_write_cols_sequences) {
            PM_TRY(pm_column_append_null(ws));
        } else {
            for (size_t i = 0; i < f->write_cols_sequence_len; i++)
                PM_TRY(pm_column_append_i64(ws->children[0], f->write_cols_sequences[i]));
            PM_TRY(pm_column_end_nested(ws));
        }
    } else if (f->has_write_cols_sequences) {
        return pm_error_new(PM_EUNSUPPORTED, "_WRITE_COLS_SEQUENCES (written by Paimon after 2.0) "
                            "for file %s", f->file_name);
    }
    return pm_column_end_nested(c);
}

pm_error *pm_manifest_entry_append(pm_batch *b, const pm_manifest_entry *e)
{
    pm_column *const *c = ((struct pm_batch *)b)->columns;
    if (((struct pm_batch *)b)->ncolumns != ME_FILE + 1)
        return pm_error_new(PM_EINTERNAL, "manifest entry batch has the wrong type");
    PM_TRY(pm_column_append_i32(c[ME_VERSION], PM_MANIFEST_VERSION));
    PM_TRY(pm_column_append_i8(c[ME_KIND], (int8_t)e->kind));
    PM_TRY(wr_bytes_req(c[ME_PARTITION], &e->partition, "_PARTITION"));
    PM_TRY(pm_column_append_i32(c[ME_BUCKET], e->bucket));
    PM_TRY(pm_column_append_i32(c[ME_TOTAL_BUCKETS], e->total_buckets));
    return pm_error_wrap(wr_data_file_meta(c[ME_FILE], &e->file), 0, "manifest entry for %s",
                         e->file.file_name ? e->file.file_name : "?");
}

pm_error *pm_manifest_file_meta_append(pm_batch *b, const pm_manifest_file_meta *m)
{
    pm_column *const *c = ((struct pm_batch *)b)->columns;
    if (((struct pm_batch *)b)->ncolumns != MFM_MAX_ROW_ID + 1)
        return pm_error_new(PM_EINTERNAL, "manifest list batch has the wrong type");
    PM_TRY(pm_column_append_i32(c[MFM_VERSION], PM_MANIFEST_VERSION));
    PM_TRY(wr_str_req(c[MFM_FILE_NAME], m->file_name, "_FILE_NAME"));
    PM_TRY(pm_column_append_i64(c[MFM_FILE_SIZE], m->file_size));
    PM_TRY(pm_column_append_i64(c[MFM_ADDED], m->num_added_files));
    PM_TRY(pm_column_append_i64(c[MFM_DELETED], m->num_deleted_files));
    PM_TRY(wr_stats(c[MFM_STATS], &m->partition_stats, "_PARTITION_STATS"));
    PM_TRY(pm_column_append_i64(c[MFM_SCHEMA_ID], m->schema_id));
    PM_TRY(wr_opt_i32(c[MFM_MIN_BUCKET], m->min_bucket));
    PM_TRY(wr_opt_i32(c[MFM_MAX_BUCKET], m->max_bucket));
    PM_TRY(wr_opt_i32(c[MFM_MIN_LEVEL], m->min_level));
    PM_TRY(wr_opt_i32(c[MFM_MAX_LEVEL], m->max_level));
    PM_TRY(wr_opt_i64(c[MFM_MIN_ROW_ID], m->min_row_id));
    return wr_opt_i64(c[MFM_MAX_ROW_ID], m->max_row_id);
}

pm_error *pm_index_manifest_entry_append(pm_batch *b, const pm_index_manifest_entry *e)
{
    pm_column *const *c = ((struct pm_batch *)b)->columns;
    if (((struct pm_batch *)b)->ncolumns != IME_GLOBAL_INDEX + 1)
        return pm_error_new(PM_EINTERNAL, "index manifest batch has the wrong type");
    const pm_index_file_meta *f = &e->index_file;
    PM_TRY(pm_column_append_i32(c[IME_VERSION], PM_INDEX_MANIFEST_VERSION));
    PM_TRY(pm_column_append_i8(c[IME_KIND], (int8_t)e->kind));
    PM_TRY(wr_bytes_req(c[IME_PARTITION], &e->partition, "_PARTITION"));
    PM_TRY(pm_column_append_i32(c[IME_BUCKET], e->bucket));
    PM_TRY(wr_str_req(c[IME_INDEX_TYPE], f->index_type, "_INDEX_TYPE"));
    PM_TRY(wr_str_req(c[IME_FILE_NAME], f->file_name, "_FILE_NAME"));
    PM_TRY(pm_column_append_i64(c[IME_FILE_SIZE], f->file_size));
    PM_TRY(pm_column_append_i64(c[IME_ROW_COUNT], f->row_count));
    pm_column *dv = c[IME_DV_RANGES];
    if (!f->has_dv_ranges) {
        PM_TRY(pm_column_append_null(dv));
    } else {
        pm_column *rec = dv->children[0];
        for (size_t i = 0; i < f->dv_range_len; i++) {
            const pm_dv_meta *m = &f->dv_ranges[i];
            PM_TRY(wr_str_req(rec->children[0], m->data_file_name, "deletion vector file name"));
            PM_TRY(pm_column_append_i32(rec->children[1], m->offset));
            PM_TRY(pm_column_append_i32(rec->children[2], m->length));
            PM_TRY(wr_opt_i64(rec->children[3], m->cardinality));
            PM_TRY(pm_column_end_nested(rec));
        }
        PM_TRY(pm_column_end_nested(dv));
    }
    PM_TRY(wr_str(c[IME_EXTERNAL_PATH], f->external_path));
    pm_column *gi = c[IME_GLOBAL_INDEX];
    if (!f->has_global_index)
        return pm_column_append_null(gi);
    const pm_global_index_meta *g = &f->global_index;
    PM_TRY(pm_column_append_i64(gi->children[0], g->row_range_start));
    PM_TRY(pm_column_append_i64(gi->children[1], g->row_range_end));
    PM_TRY(pm_column_append_i32(gi->children[2], g->index_field_id));
    pm_column *ex = gi->children[3];
    if (!g->has_extra_field_ids) {
        PM_TRY(pm_column_append_null(ex));
    } else {
        for (size_t i = 0; i < g->extra_field_id_len; i++)
            PM_TRY(pm_column_append_i32(ex->children[0], g->extra_field_ids[i]));
        PM_TRY(pm_column_end_nested(ex));
    }
    PM_TRY(wr_bytes(gi->children[4], &g->index_meta));
    PM_TRY(wr_bytes(gi->children[5], &g->source_meta));
    return pm_column_end_nested(gi);
}
