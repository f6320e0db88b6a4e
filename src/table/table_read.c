/*
 * table/table_read.c — rows of a scanned table state (see table_read.h).
 *
 * Plan (at creation, so unsupported tables fail before any row is out):
 *  - Tables with BLOB columns, and data-evolution tables
 *    (`data-evolution.enabled`) whose files share row ids (partial-column
 *    or blob files that must be merged by row id): PM_EUNSUPPORTED "data
 *    evolution tables are not supported yet".  Data-evolution buckets whose
 *    files hold all columns and have disjoint row-id ranges read each file
 *    on its own (Java's group-of-one case).
 *  - Projection by column name over the read schema (scan->schema); for
 *    buckets of the fallback branch the same positions of its schema.
 *  - Append tables: every file of every bucket, in order.
 *  - Primary-key tables, per bucket (Java's batch split rules): the
 *    postpone bucket (-2) is not visible to batch reads; DV tables (unless
 *    deletion-vectors.merge-on-read) and first-row tables read only files
 *    at level > 0, which must then carry no delete rows; otherwise files
 *    are grouped into sections of overlapping key ranges (IntervalPartition
 *    over _MIN_KEY/_MAX_KEY) and every section must be a single file
 *    without delete rows (deduplicate tables may have them: their retract
 *    rows are dropped, which is what a merge of one file does).  Anything
 *    else needs merge-on-read: PM_EUNSUPPORTED "merge-on-read is not
 *    supported yet".  Key-value files are read with their system columns;
 *    rows whose _VALUE_KIND is -U or -D are dropped.
 * Read: one file reader at a time; for each of its batches a keep bitmap
 * (deletion vector positions, retract rows) selects the rows.  Batches
 * with every row kept share the file reader's columns; others are
 * compacted by pm_batch_filter (dv/dv_apply.h).  Batches left empty are
 * skipped.
 */
#include "table/table_read.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "dv/dv_apply.h"
#include "dv/dv_index_file.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "types/binary_row.h"
#include "types/column.h"

typedef struct read_task {
    const pm_bucket_files *b;
    size_t file;                 /* index in b->files */
    bool kv;                     /* key-value file: system columns + retract filter */
    const pm_deletion_file *dv;  /* NULL = none */
} read_task;

struct pm_table_reader {
    pm_table *t;
    const pm_scan_result *scan;
    pm_type *type;               /* output row type */
    pm_type *fb_type;            /* same fields in the fallback branch's schema */
    int64_t batch_rows;
    read_task *tasks;
    size_t ntasks, next_task;
    pm_file_reader *fr;
    const read_task *cur;
    char *cur_dir;
    pm_dv *cur_dv;               /* deletion vector of the open file, NULL = none */
    pm_batch *out;
    uint8_t *keep;
    size_t keep_cap;
};

/* ---------------------------------------------------------------- */
/* deletion vectors                                                  */

static pm_error *dv_load(pm_table_reader *r, const pm_bucket_files *b, const pm_deletion_file *df)
{
    pm_dv *dv = NULL;
    PM_TRY(pm_error_wrap(pm_dv_index_read_one(b->table->fio, df->index_path, df->offset, df->length, &dv), 0,
                         "deletion vector of data file %s", df->data_file));
    r->cur_dv = dv;
    return NULL;
}

static void dv_free(pm_dv *dv) { pm_dv_free(dv); }

/* Clear keep bits of deleted positions in [start, start + n). */
static void dv_apply(const pm_dv *dv, int64_t start, int64_t n, uint8_t *keep)
{
    pm_dv_clear_deleted(dv, start, n, keep, NULL);
}

/* ---------------------------------------------------------------- */
/* keys                                                              */

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y))

/* Compare two key rows field by field (nulls first). */
static pm_error *key_compare(const pm_type *kt, const pm_binrow *a, const pm_binrow *b, int *out)
{
    *out = 0;
    for (size_t i = 0; i < kt->nfields && !*out; i++) {
        int32_t k = (int32_t)i;
        const pm_type *ft = kt->fields[i].type;
        bool an = pm_binrow_is_null(a, k), bn = pm_binrow_is_null(b, k);
        if (an || bn) {
            *out = an == bn ? 0 : an ? -1 : 1;
            continue;
        }
        switch (ft->id) {
        case PM_TYPE_BOOLEAN: *out = CMP(pm_binrow_bool(a, k), pm_binrow_bool(b, k)); break;
        case PM_TYPE_TINYINT: *out = CMP(pm_binrow_i8(a, k), pm_binrow_i8(b, k)); break;
        case PM_TYPE_SMALLINT: *out = CMP(pm_binrow_i16(a, k), pm_binrow_i16(b, k)); break;
        case PM_TYPE_INT:
        case PM_TYPE_DATE:
        case PM_TYPE_TIME: *out = CMP(pm_binrow_i32(a, k), pm_binrow_i32(b, k)); break;
        case PM_TYPE_BIGINT: *out = CMP(pm_binrow_i64(a, k), pm_binrow_i64(b, k)); break;
        case PM_TYPE_FLOAT: *out = CMP(pm_binrow_f32(a, k), pm_binrow_f32(b, k)); break;
        case PM_TYPE_DOUBLE: *out = CMP(pm_binrow_f64(a, k), pm_binrow_f64(b, k)); break;
        case PM_TYPE_DECIMAL: {
            __int128 x, y;
            PM_TRY(pm_binrow_decimal(a, k, ft->precision, &x));
            PM_TRY(pm_binrow_decimal(b, k, ft->precision, &y));
            *out = CMP(x, y);
            break;
        }
        case PM_TYPE_TIMESTAMP:
        case PM_TYPE_TIMESTAMP_LTZ: {
            int64_t xm, ym;
            int32_t xn, yn;
            PM_TRY(pm_binrow_timestamp(a, k, ft->precision, &xm, &xn));
            PM_TRY(pm_binrow_timestamp(b, k, ft->precision, &ym, &yn));
            *out = xm != ym ? CMP(xm, ym) : CMP(xn, yn);
            break;
        }
        case PM_TYPE_CHAR:
        case PM_TYPE_VARCHAR:
        case PM_TYPE_BINARY:
        case PM_TYPE_VARBINARY: {
            const uint8_t *xp, *yp;
            size_t xn, yn;
            PM_TRY(pm_binrow_bytes(a, k, &xp, &xn));
            PM_TRY(pm_binrow_bytes(b, k, &yp, &yn));
            *out = cmp_bytes(xp, xn, yp, yn);
            break;
        }
        default:
            return pm_error_new(PM_EUNSUPPORTED, "primary key field '%s' of type %s", kt->fields[i].name,
                                pm_type_id_name(ft->id));
        }
    }
    return NULL;
}

typedef struct key_range {
    size_t file;
    pm_binrow min, max;
} key_range;

typedef struct sort_ctx {
    const pm_type *kt;
    pm_error *e;
} sort_ctx;

/* qsort has no context argument: the comparator reads this thread's one */
static _Thread_local sort_ctx *tl_sort;

static int cmp_range(const void *x, const void *y)
{
    const key_range *a = x, *b = y;
    int c = 0;
    if (tl_sort->e)
        return 0;
    pm_error *e = key_compare(tl_sort->kt, &a->min, &b->min, &c);
    if (!e && !c)
        e = key_compare(tl_sort->kt, &a->max, &b->max, &c);
    if (e)
        tl_sort->e = e;
    if (!c)
        c = CMP(a->file, b->file);
    return c;
}

static bool without_delete_rows(const pm_data_file_meta *f)
{
    return f->delete_row_count.has && f->delete_row_count.v == 0;
}

/* ---------------------------------------------------------------- */
/* planning                                                          */

static pm_error *merge_needed(const pm_table *t, const pm_bucket_files *b, const char *why)
{
    pm_buf p = PM_BUF_INIT;
    pm_error *pe = pm_partition_display(b->table, b->partition.data, b->partition.len, &p);
    pm_error_free(pe);
    pm_error *e = pm_error_new(PM_EUNSUPPORTED,
                               "merge-on-read is not supported yet (table %s, partition '%.*s', bucket %d: %s)",
                               t->path, (int)p.len, p.data ? (const char *)p.data : "", (int)b->bucket, why);
    pm_buf_free(&p);
    return e;
}

static pm_error *add_task(pm_table_reader *r, const pm_bucket_files *b, size_t file, bool kv)
{
    PM_TRY(pm_realloc_array(&r->tasks, r->ntasks + 1, sizeof *r->tasks));
    read_task *tk = &r->tasks[r->ntasks++];
    tk->b = b;
    tk->file = file;
    tk->kv = kv;
    tk->dv = NULL;
    for (size_t i = 0; i < b->ndvs; i++)
        if (b->dvs[i].data_file == b->files[file].file_name) {
            tk->dv = &b->dvs[i];
            break;
        }
    return NULL;
}

static pm_error *plan_pk_bucket(pm_table_reader *r, const pm_schema *s, const pm_bucket_files *b)
{
    pm_table *t = b->table;
    if (b->bucket == PM_BUCKET_POSTPONE)
        return NULL; /* not visible to batch reads until compaction assigns buckets */
    const pm_options *o = s->options;
    bool dv = false, dv_mor = false;
    PM_TRY(pm_options_bool(o, PM_OPT_DELETION_VECTORS_ENABLED, &dv));
    PM_TRY(pm_options_bool(o, PM_OPT_DELETION_VECTORS_MERGE_ON_READ, &dv_mor));
    const char *engine = pm_options_raw(o, PM_OPT_MERGE_ENGINE);
    bool first_row = engine && !strcasecmp(engine, "first-row");
    bool dedup = !engine || !strcasecmp(engine, "deduplicate");
    bool skip_l0 = dv ? !dv_mor : first_row;
    if (skip_l0) {
        for (size_t i = 0; i < b->nfiles; i++) {
            if (b->files[i].level == 0)
                continue;
            if (!without_delete_rows(&b->files[i]))
                return merge_needed(t, b, "a level > 0 file with delete rows");
        }
        for (size_t i = 0; i < b->nfiles; i++)
            if (b->files[i].level != 0)
                PM_TRY(add_task(r, b, i, true));
        return NULL;
    }
    /* sections of overlapping key ranges */
    pm_type *kt = NULL;
    PM_TRY(pm_schema_trimmed_primary_key_type(s, &kt));
    key_range *kr = NULL;
    pm_error *e = pm_calloc(&kr, b->nfiles ? b->nfiles : 1, sizeof *kr);
    for (size_t i = 0; !e && i < b->nfiles; i++) {
        kr[i].file = i;
        const pm_data_file_meta *f = &b->files[i];
        e = pm_binrow_deserialize(&kr[i].min, f->min_key.data, f->min_key.len, (int32_t)kt->nfields);
        if (!e)
            e = pm_binrow_deserialize(&kr[i].max, f->max_key.data, f->max_key.len, (int32_t)kt->nfields);
        if (e)
            e = pm_error_wrap(e, PM_ECORRUPT, "key range of data file %s", f->file_name);
    }
    if (!e && b->nfiles > 1) {
        sort_ctx sc = {kt, NULL};
        tl_sort = &sc;
        qsort(kr, b->nfiles, sizeof *kr, cmp_range);
        tl_sort = NULL;
        e = sc.e;
    }
    /* sweep: a file starting after the section's largest max key opens a new section */
    for (size_t i = 0; !e && i < b->nfiles;) {
        const pm_binrow *bound = &kr[i].max;
        size_t j = i + 1;
        while (!e && j < b->nfiles) {
            int c = 0;
            e = key_compare(kt, &kr[j].min, bound, &c);
            if (e || c > 0)
                break;
            int c2 = 0;
            e = key_compare(kt, &kr[j].max, bound, &c2);
            if (!e && c2 > 0)
                bound = &kr[j].max;
            j++;
        }
        if (e)
            break;
        if (j - i > 1) {
            e = merge_needed(t, b, "files with overlapping key ranges");
            break;
        }
        const pm_data_file_meta *f = &b->files[kr[i].file];
        if (!without_delete_rows(f) && !dedup) {
            e = merge_needed(t, b, "a file with delete rows");
            break;
        }
        i = j;
    }
    /* read in manifest order */
    for (size_t i = 0; !e && i < b->nfiles; i++)
        e = add_task(r, b, i, true);
    free(kr);
    pm_type_free(kt);
    return e;
}

static bool has_blob(const pm_type *t)
{
    if (!t)
        return false;
    if (t->id == PM_TYPE_BLOB)
        return true;
    if (has_blob(t->element) || has_blob(t->key) || has_blob(t->value))
        return true;
    for (size_t i = 0; i < t->nfields; i++)
        if (has_blob(t->fields[i].type))
            return true;
    return false;
}

static pm_error *check_supported(const pm_table *t, const pm_schema *s, bool *data_evolution)
{
    PM_TRY(pm_options_bool(s->options, PM_OPT_DATA_EVOLUTION_ENABLED, data_evolution));
    if (has_blob(s->row_type))
        return pm_error_new(PM_EUNSUPPORTED, "data evolution tables are not supported yet (table %s has BLOB columns)",
                            t->path);
    return NULL;
}

static int cmp_first_row_id(const void *x, const void *y)
{
    const pm_data_file_meta *a = *(const pm_data_file_meta *const *)x, *b = *(const pm_data_file_meta *const *)y;
    int64_t ia = a->first_row_id.has ? a->first_row_id.v : INT64_MIN;
    int64_t ib = b->first_row_id.has ? b->first_row_id.v : INT64_MIN;
    return CMP(ia, ib);
}

/* Data-evolution tables: files sharing row ids (partial-column files,
 * blob files) must be merged by row id.  A bucket whose files all hold
 * every column and have disjoint row-id ranges reads each file on its
 * own, as Java does for a group of one file; anything written column-wise
 * (`_WRITE_COLS`, .blob files) is refused until row-id merging exists. */
static pm_error *check_data_evolution_bucket(const pm_table *t, const pm_bucket_files *b)
{
    const pm_data_file_meta **fs = NULL;
    PM_TRY(pm_calloc(&fs, b->nfiles ? b->nfiles : 1, sizeof *fs));
    for (size_t i = 0; i < b->nfiles; i++)
        fs[i] = &b->files[i];
    qsort(fs, b->nfiles, sizeof *fs, cmp_first_row_id);
    pm_error *e = NULL;
    int64_t end = INT64_MIN; /* last row id covered so far */
    bool any = false;
    for (size_t i = 0; i < b->nfiles && !e; i++) {
        const pm_data_file_meta *f = fs[i];
        size_t n = strlen(f->file_name);
        if (n >= 5 && !strcmp(f->file_name + n - 5, ".blob")) {
            e = pm_error_new(PM_EUNSUPPORTED, "data evolution tables are not supported yet (table %s: blob file %s)",
                             t->path, f->file_name);
            break;
        }
        if (f->has_write_cols) {
            e = pm_error_new(PM_EUNSUPPORTED,
                             "data evolution tables are not supported yet (table %s: partial-column file %s)",
                             t->path, f->file_name);
            break;
        }
        if (!f->first_row_id.has)
            continue;
        if (any && f->first_row_id.v <= end)
            e = pm_error_new(PM_EUNSUPPORTED,
                             "data evolution tables are not supported yet (table %s: files %s and others share row ids "
                             "and need a merge by row id)",
                             t->path, f->file_name);
        int64_t last = f->first_row_id.v + f->row_count - 1;
        if (!any || last > end)
            end = last;
        any = true;
    }
    free(fs);
    return e;
}

static pm_error *project(const pm_schema *s, const pm_table_read_options *o, pm_type **out)
{
    if (!o || !o->columns) {
        *out = pm_type_clone(s->row_type);
        return *out ? NULL : pm_oom();
    }
    for (size_t i = 0; i < o->ncolumns; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(o->columns[i], o->columns[j]))
                return pm_error_new(PM_EINVALID, "column '%s' requested twice", o->columns[i]);
    return pm_schema_project(s, o->columns, o->ncolumns, out);
}

/* The fields of `type` (a projection of `main`) at the same positions in `fb`. */
static pm_error *fallback_type(const pm_schema *main, const pm_schema *fb, const pm_type *type, pm_type **out)
{
    pm_type *t = pm_type_new_row(false);
    if (!t)
        return pm_oom();
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < type->nfields; i++) {
        ptrdiff_t p = pm_type_field_index_by_id(main->row_type, type->fields[i].id);
        if (p < 0 || (size_t)p >= fb->row_type->nfields) {
            e = pm_error_new(PM_EINTERNAL, "fallback field mapping for '%s'", type->fields[i].name);
            break;
        }
        const pm_field *f = &fb->row_type->fields[p];
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(t, f->id, f->name, ft) : pm_oom();
        if (e && ft)
            pm_type_free(ft);
    }
    if (e) {
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

void pm_table_reader_free(pm_table_reader *r)
{
    if (!r)
        return;
    pm_file_reader_free(r->fr);
    dv_free(r->cur_dv);
    free(r->cur_dir);
    pm_batch_free(r->out);
    free(r->keep);
    free(r->tasks);
    pm_type_free(r->type);
    pm_type_free(r->fb_type);
    free(r);
}

pm_error *pm_table_reader_new(pm_table_reader **out, pm_table *t, const pm_scan_result *scan,
                              const pm_table_read_options *o)
{
    *out = NULL;
    pm_table_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->t = t;
    r->scan = scan;
    r->batch_rows = o && o->batch_rows > 0 ? o->batch_rows : 4096;
    pm_error *e = NULL;
    const pm_schema *s = scan->schema ? scan->schema : pm_table_schema(t);
    bool de = false, fb_de = false;
    PM_TRY_GOTO(e, check_supported(t, s, &de), fail);
    if (scan->fallback && scan->fallback_schema)
        PM_TRY_GOTO(e, check_supported(scan->fallback, scan->fallback_schema, &fb_de), fail);
    PM_TRY_GOTO(e, project(s, o, &r->type), fail);
    if (scan->fallback && scan->fallback_schema)
        PM_TRY_GOTO(e, fallback_type(s, scan->fallback_schema, r->type, &r->fb_type), fail);
    for (size_t i = 0; i < scan->nbuckets; i++) {
        const pm_bucket_files *b = &scan->buckets[i];
        bool fb = b->table != t;
        const pm_schema *bs = fb ? scan->fallback_schema : s;
        if (fb ? fb_de : de)
            PM_TRY_GOTO(e, check_data_evolution_bucket(b->table, b), fail);
        if (bs->primary_keys.count) {
            PM_TRY_GOTO(e, plan_pk_bucket(r, bs, b), fail);
        } else {
            for (size_t f = 0; f < b->nfiles; f++)
                PM_TRY_GOTO(e, add_task(r, b, f, false), fail);
        }
    }
    PM_TRY_GOTO(e, pm_batch_new(&r->out, r->type), fail);
    *out = r;
    return NULL;
fail:
    pm_table_reader_free(r);
    return pm_error_wrap(e, 0, "read table %s", t->path);
}

const pm_type *pm_table_reader_type(const pm_table_reader *r) { return r->type; }

static pm_error *open_next(pm_table_reader *r, bool *done)
{
    *done = false;
    pm_file_reader_free(r->fr);
    r->fr = NULL;
    dv_free(r->cur_dv);
    r->cur_dv = NULL;
    if (r->next_task >= r->ntasks) {
        *done = true;
        return NULL;
    }
    const read_task *tk = &r->tasks[r->next_task++];
    r->cur = tk;
    const pm_bucket_files *b = tk->b;
    free(r->cur_dir);
    r->cur_dir = NULL;
    PM_TRY(pm_table_bucket_dir(b->table, b->partition.data, b->partition.len, b->bucket, &r->cur_dir));
    pm_file_read_options fo = {b->table == r->t ? r->type : r->fb_type, r->batch_rows, tk->kv};
    PM_TRY(pm_file_reader_open(&r->fr, b->table, r->cur_dir, &b->files[tk->file], &fo));
    if (tk->dv)
        PM_TRY(dv_load(r, b, tk->dv));
    return NULL;
}

pm_error *pm_table_reader_next(pm_table_reader *r, const pm_batch **out)
{
    *out = NULL;
    size_t nf = r->type->nfields;
    for (size_t i = 0; i < nf; i++) {
        pm_column_release(r->out->columns[i]);
        r->out->columns[i] = NULL;
    }
    r->out->num_rows = 0;
    for (;;) {
        if (!r->fr) {
            bool done = false;
            PM_TRY(open_next(r, &done));
            if (done)
                return NULL;
        }
        const pm_batch *b = NULL;
        PM_TRY(pm_file_reader_next(r->fr, &b));
        if (!b) {
            pm_file_reader_free(r->fr);
            r->fr = NULL;
            continue;
        }
        int64_t n = b->num_rows;
        if (!n)
            continue;
        size_t off = r->cur->kv ? 2 : 0;
        size_t kb = (size_t)(n + 7) / 8;
        if (kb > r->keep_cap) {
            PM_TRY(pm_realloc_array(&r->keep, kb, 1));
            r->keep_cap = kb;
        }
        memset(r->keep, 0xff, kb);
        int64_t kept = n;
        if (r->cur_dv)
            dv_apply(r->cur_dv, pm_file_reader_position(r->fr), n, r->keep);
        if (r->cur->kv) {
            const pm_column *kind = b->columns[1];
            for (int64_t i = 0; i < n; i++) {
                int8_t k = pm_column_i8(kind, i);
                if (k == PM_ROWKIND_UPDATE_BEFORE || k == PM_ROWKIND_DELETE)
                    r->keep[i >> 3] &= (uint8_t)~(1u << (i & 7));
            }
        }
        if (r->cur_dv || r->cur->kv) {
            kept = 0;
            for (int64_t i = 0; i < n; i++)
                kept += (r->keep[i >> 3] >> (i & 7)) & 1;
        }
        if (!kept)
            continue;
        for (size_t i = 0; i < nf; i++)
            r->out->columns[i] = pm_column_retain(b->columns[off + i]);
        r->out->num_rows = n;
        if (kept < n)
            PM_TRY(pm_batch_filter(r->out, r->keep)); /* new columns with the kept rows */
        *out = r->out;
        return NULL;
    }
}
