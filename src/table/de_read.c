/*
 * table/de_read.c — row-tracking / data-evolution groups and their merged
 * reader (see de_read.h).
 *
 * Planning: the files with a first row ID are sorted by it; a sweep joins
 * files whose closed ranges overlap the group's range so far.  Each group
 * is then ordered (normal files by max sequence descending, dedicated
 * files by first row ID then max sequence descending) and checked.
 * Reading one group:
 *   1. bunches: every normal file is one; every BLOB field's files are one
 *      (shadowed older files dropped, the rest must tile the range);
 *   2. each requested field is assigned to the first bunch that has it;
 *      the row-tracking fields to the first normal bunch;
 *   3. each bunch with fields opens its source: a file reader (table/
 *      file_read.h) with the bunch's fields, or the bunch's blob files one
 *      after another (format/blob/blob_file.h);
 *   4. next: every open source has a current batch; n = the smallest rest
 *      (at most batch_rows); output columns are the sources' columns (whole
 *      batch: shared; else rows [off, off + n) copied), null columns for
 *      fields nobody has, row IDs and sequence numbers filled in where
 *      null; without any source, n null rows up to the group's count.
 */
#include "table/de_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "format/blob/blob_file.h"
#include "meta/safe_path.h"
#include "meta/schema.h"
#include "table/file_read.h"
#include "types/column.h"

bool pm_de_is_blob_file(const char *name)
{
    size_t n = strlen(name);
    return n >= 5 && !strcasecmp(name + n - 5, ".blob");
}

static bool is_vector_file(const char *name) { return strstr(name, ".vector.") != NULL; }

/* ------------------------------------------------------------------ */
/* planning                                                            */

void pm_de_groups_free(pm_de_group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++)
        free(g[i].files);
    free(g);
}

static int64_t last_row(const pm_data_file_meta *f) { return f->first_row_id.v + f->row_count - 1; }

static int cmp_first(const void *x, const void *y)
{
    const pm_data_file_meta *a = *(const pm_data_file_meta *const *)x, *b = *(const pm_data_file_meta *const *)y;
    if (a->first_row_id.v != b->first_row_id.v)
        return a->first_row_id.v < b->first_row_id.v ? -1 : 1;
    return strcmp(a->file_name, b->file_name);
}

/* normal first (max seq desc, name), then dedicated (first asc, max seq desc, name) */
static int cmp_in_group(const void *x, const void *y)
{
    const pm_data_file_meta *a = *(const pm_data_file_meta *const *)x, *b = *(const pm_data_file_meta *const *)y;
    bool da = pm_de_is_blob_file(a->file_name), db = pm_de_is_blob_file(b->file_name);
    if (da != db)
        return da ? 1 : -1;
    if (da && a->first_row_id.v != b->first_row_id.v)
        return a->first_row_id.v < b->first_row_id.v ? -1 : 1;
    if (a->max_sequence_number != b->max_sequence_number)
        return a->max_sequence_number > b->max_sequence_number ? -1 : 1;
    return strcmp(a->file_name, b->file_name);
}

static pm_error *finish_group(pm_de_group *g)
{
    qsort(g->files, g->nfiles, sizeof *g->files, cmp_in_group);
    g->nnormal = 0;
    while (g->nnormal < g->nfiles && !pm_de_is_blob_file(g->files[g->nnormal]->file_name))
        g->nnormal++;
    if (!g->nnormal)
        return pm_error_new(PM_ECORRUPT, "row IDs [%" PRId64 ", %" PRId64 "] are covered only by dedicated file %s "
                            "and no normal data file", g->files[0]->first_row_id.v, last_row(g->files[0]),
                            g->files[0]->file_name);
    const pm_data_file_meta *f0 = g->files[0];
    g->first_row_id = f0->first_row_id.v;
    g->has_first_row_id = true;
    g->row_count = f0->row_count;
    g->anchor = f0;
    for (size_t i = 0; i < g->nnormal; i++) {
        const pm_data_file_meta *f = g->files[i];
        if (f->first_row_id.v != f0->first_row_id.v || f->row_count != f0->row_count)
            return pm_error_new(PM_ECORRUPT, "normal data files %s (row IDs [%" PRId64 ", %" PRId64 "]) and %s "
                                "([%" PRId64 ", %" PRId64 "]) overlap without covering the same row-ID range",
                                f0->file_name, f0->first_row_id.v, last_row(f0), f->file_name, f->first_row_id.v,
                                last_row(f));
        /* the oldest version anchors the deletion vector */
        if (f->max_sequence_number < g->anchor->max_sequence_number ||
            (f->max_sequence_number == g->anchor->max_sequence_number &&
             strcmp(f->file_name, g->anchor->file_name) < 0))
            g->anchor = f;
    }
    for (size_t i = g->nnormal; i < g->nfiles; i++) {
        const pm_data_file_meta *f = g->files[i];
        if (f->first_row_id.v < g->first_row_id || last_row(f) > g->first_row_id + g->row_count - 1)
            return pm_error_new(PM_ECORRUPT, "dedicated file %s (row IDs [%" PRId64 ", %" PRId64 "]) is not contained "
                                "in the range [%" PRId64 ", %" PRId64 "] of normal file %s", f->file_name,
                                f->first_row_id.v, last_row(f), g->first_row_id, g->first_row_id + g->row_count - 1,
                                f0->file_name);
    }
    return NULL;
}

pm_error *pm_de_check_row_range(const pm_data_file_meta *f)
{
    if (!f->first_row_id.has)
        return pm_error_new(PM_ECORRUPT, "data file %s of a row-tracking table has no _FIRST_ROW_ID", f->file_name);
    if (f->row_count < 0 || f->first_row_id.v < 0 || f->first_row_id.v > INT64_MAX - f->row_count)
        return pm_error_new(PM_ECORRUPT, "data file %s: row IDs from %" PRId64 " for %" PRId64 " rows", f->file_name,
                            f->first_row_id.v, f->row_count);
    return NULL;
}

pm_error *pm_de_plan_groups(const pm_data_file_meta *files, size_t n, pm_de_group **out, size_t *ngroups)
{
    *out = NULL;
    *ngroups = 0;
    const pm_data_file_meta **fs = NULL;
    PM_TRY(pm_calloc(&fs, n ? n : 1, sizeof *fs));
    pm_error *e = NULL;
    for (size_t i = 0; i < n; i++) {
        const pm_data_file_meta *f = &files[i];
        if (is_vector_file(f->file_name)) {
            e = pm_error_new(PM_EUNSUPPORTED, "vector-store file %s: dedicated vector files are not supported",
                             f->file_name);
            goto fail;
        }
        if ((e = pm_de_check_row_range(f)))
            goto fail;
        if (pm_de_is_blob_file(f->file_name) && (!f->has_write_cols || f->write_cols.count != 1)) {
            e = pm_error_new(PM_ECORRUPT, "blob file %s must list exactly one column in _WRITE_COLS", f->file_name);
            goto fail;
        }
        fs[i] = f;
    }
    qsort(fs, n, sizeof *fs, cmp_first);
    pm_de_group *g = NULL;
    size_t ng = 0;
    for (size_t i = 0; i < n;) {
        int64_t end = last_row(fs[i]);
        size_t j = i + 1;
        while (j < n && fs[j]->first_row_id.v <= end) {
            if (last_row(fs[j]) > end)
                end = last_row(fs[j]);
            j++;
        }
        PM_TRY_GOTO(e, pm_realloc_array(&g, ng + 1, sizeof *g), groups_fail);
        memset(&g[ng], 0, sizeof g[ng]);
        ng++;
        PM_TRY_GOTO(e, pm_calloc(&g[ng - 1].files, j - i, sizeof *g[ng - 1].files), groups_fail);
        memcpy(g[ng - 1].files, fs + i, (j - i) * sizeof *fs);
        g[ng - 1].nfiles = j - i;
        PM_TRY_GOTO(e, finish_group(&g[ng - 1]), groups_fail);
        i = j;
    }
    free(fs);
    *out = g;
    *ngroups = ng;
    return NULL;
groups_fail:
    pm_de_groups_free(g, ng);
fail:
    free(fs);
    return e;
}

pm_error *pm_de_single_groups(const pm_data_file_meta *files, size_t n, pm_de_group **out, size_t *ngroups)
{
    *out = NULL;
    *ngroups = 0;
    pm_de_group *g = NULL;
    PM_TRY(pm_calloc(&g, n ? n : 1, sizeof *g));
    for (size_t i = 0; i < n; i++) {
        const pm_data_file_meta *f = &files[i];
        if (pm_de_is_blob_file(f->file_name) || is_vector_file(f->file_name)) {
            pm_de_groups_free(g, n);
            return pm_error_new(PM_ECORRUPT, "dedicated file %s in a table without data-evolution.enabled",
                                f->file_name);
        }
        pm_error *e = pm_calloc(&g[i].files, 1, sizeof *g[i].files);
        if (e) {
            pm_de_groups_free(g, n);
            return e;
        }
        g[i].files[0] = f;
        g[i].nfiles = g[i].nnormal = 1;
        g[i].has_first_row_id = f->first_row_id.has;
        g[i].first_row_id = f->first_row_id.has ? f->first_row_id.v : 0;
        g[i].row_count = f->row_count;
        g[i].anchor = f;
    }
    *out = g;
    *ngroups = n;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* reader                                                              */

typedef struct bunch {
    bool blob;
    const pm_data_file_meta **files;  /* normal: one; blob: the tiling files */
    size_t nfiles;
    int32_t field_id;                 /* blob: its field */
    pm_type *rtype;                   /* fields read from this bunch */
    /* normal source */
    pm_file_reader *fr;
    const pm_batch *cur;              /* current batch (reader's or ours) */
    int64_t off;                      /* rows of cur already used */
    /* blob source */
    size_t next_file;
    pm_blob_reader *br;
    int64_t br_row;
    pm_batch *bb;                     /* our batch of blob values */
    bool done;
} bunch;

struct pm_de_group_reader {
    pm_table *t;
    const pm_de_group *g;
    const pm_type *type;
    char *dir;
    int64_t batch_rows;
    bunch *b;
    size_t nb;
    /* per output field */
    ptrdiff_t *src_bunch;             /* -1 = null column */
    size_t *src_col;
    pm_batch *out;
    int64_t pos, last_pos;
    int64_t *rows_scratch;
    size_t rows_cap;
};

void pm_de_group_reader_free(pm_de_group_reader *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nb; i++) {
        bunch *b = &r->b[i];
        pm_file_reader_free(b->fr);
        pm_blob_reader_free(b->br);
        pm_batch_free(b->bb);
        pm_type_free(b->rtype);
        free(b->files);
    }
    free(r->b);
    free(r->src_bunch);
    free(r->src_col);
    pm_batch_free(r->out);
    free(r->rows_scratch);
    free(r->dir);
    free(r);
}

int64_t pm_de_group_reader_position(const pm_de_group_reader *r) { return r->last_pos; }

static bool in_list(const pm_str_list *l, const char *s)
{
    for (size_t i = 0; i < l->count; i++)
        if (!strcmp(l->items[i], s))
            return true;
    return false;
}

/* Does normal file f provide field id? */
static pm_error *normal_has(pm_table *t, const pm_data_file_meta *f, int32_t id, bool *has)
{
    *has = false;
    if (id == PM_ROW_ID_FIELD_ID || id == PM_SEQUENCE_NUMBER_FIELD_ID) {
        *has = true;
        return NULL;
    }
    const pm_schema *s = NULL;
    PM_TRY(pm_error_wrap(pm_table_schema_by_id(t, f->schema_id, &s), 0, "schema %" PRId64 " of data file %s",
                         f->schema_id, f->file_name));
    ptrdiff_t k = pm_type_field_index_by_id(s->row_type, id);
    if (k < 0)
        return NULL;
    const pm_field *fd = &s->row_type->fields[k];
    *has = f->has_write_cols ? in_list(&f->write_cols, fd->name) : fd->type->id != PM_TYPE_BLOB;
    return NULL;
}

/* The field id a blob file holds: its one _WRITE_COLS name in its schema. */
static pm_error *blob_field(pm_table *t, const pm_data_file_meta *f, int32_t *id)
{
    if (!f->has_write_cols || f->write_cols.count != 1)
        return pm_error_new(PM_ECORRUPT, "blob file %s must list exactly one column in _WRITE_COLS", f->file_name);
    const pm_schema *s = NULL;
    PM_TRY(pm_error_wrap(pm_table_schema_by_id(t, f->schema_id, &s), 0, "schema %" PRId64 " of blob file %s",
                         f->schema_id, f->file_name));
    ptrdiff_t k = pm_type_field_index(s->row_type, f->write_cols.items[0]);
    if (k < 0)
        return pm_error_new(PM_ECORRUPT, "blob file %s: column '%s' is not in its schema %" PRId64, f->file_name,
                            f->write_cols.items[0], f->schema_id);
    *id = s->row_type->fields[k].id;
    return NULL;
}

/* Add blob file f to the bunch of its field (SpecialFieldBunch's rules:
 * files come ordered by first row id, newest first). */
static pm_error *blob_bunch_add(bunch *b, const pm_data_file_meta *f, int64_t *next, int64_t *last_first,
                                int64_t *last_seq)
{
    if (b->nfiles) {
        if (f->first_row_id.v == *last_first || f->first_row_id.v < *next) {
            if (f->max_sequence_number >= *last_seq)
                return pm_error_new(PM_ECORRUPT, "blob file %s overlaps newer blob files of its column without an "
                                    "older sequence number", f->file_name);
            return NULL; /* shadowed by a newer version */
        }
        if (f->first_row_id.v > *next)
            return pm_error_new(PM_ECORRUPT, "blob file %s starts at row ID %" PRId64 ", expected %" PRId64
                                " (the blob files of a column must be contiguous)", f->file_name, f->first_row_id.v,
                                *next);
    }
    PM_TRY(pm_realloc_array(&b->files, b->nfiles + 1, sizeof *b->files));
    b->files[b->nfiles++] = f;
    *next = f->first_row_id.v + f->row_count;
    *last_first = f->first_row_id.v;
    *last_seq = f->max_sequence_number;
    return NULL;
}

static pm_error *make_bunches(pm_de_group_reader *r)
{
    const pm_de_group *g = r->g;
    PM_TRY(pm_calloc(&r->b, g->nfiles, sizeof *r->b));
    for (size_t i = 0; i < g->nnormal; i++) {
        bunch *b = &r->b[r->nb++];
        PM_TRY(pm_calloc(&b->files, 1, sizeof *b->files));
        b->files[0] = g->files[i];
        b->nfiles = 1;
    }
    /* blob bunches, in order of first appearance of their field */
    int64_t *next = NULL, *lfirst = NULL, *lseq = NULL;
    pm_error *e = NULL;
    size_t nblob0 = r->nb;
    PM_TRY_GOTO(e, pm_calloc(&next, g->nfiles, sizeof *next), out);
    PM_TRY_GOTO(e, pm_calloc(&lfirst, g->nfiles, sizeof *lfirst), out);
    PM_TRY_GOTO(e, pm_calloc(&lseq, g->nfiles, sizeof *lseq), out);
    for (size_t i = g->nnormal; i < g->nfiles; i++) {
        const pm_data_file_meta *f = g->files[i];
        int32_t id;
        PM_TRY_GOTO(e, blob_field(r->t, f, &id), out);
        size_t k = nblob0;
        while (k < r->nb && r->b[k].field_id != id)
            k++;
        if (k == r->nb) {
            r->b[k].blob = true;
            r->b[k].field_id = id;
            r->nb++;
        }
        size_t s = k - nblob0;
        PM_TRY_GOTO(e, blob_bunch_add(&r->b[k], f, &next[s], &lfirst[s], &lseq[s]), out);
    }
    for (size_t k = nblob0; k < r->nb; k++) {
        bunch *b = &r->b[k];
        int64_t rows = 0;
        for (size_t i = 0; i < b->nfiles; i++)
            rows += b->files[i]->row_count;
        if (b->files[0]->first_row_id.v != g->first_row_id || rows != g->row_count) {
            e = pm_error_new(PM_ECORRUPT, "blob files of field id %d cover row IDs [%" PRId64 ", %" PRId64 "), not the "
                             "range [%" PRId64 ", %" PRId64 ") of normal file %s", (int)b->field_id,
                             b->files[0]->first_row_id.v, b->files[0]->first_row_id.v + rows, g->first_row_id,
                             g->first_row_id + g->row_count, g->files[0]->file_name);
            goto out;
        }
    }
out:
    free(next);
    free(lfirst);
    free(lseq);
    return e;
}

static pm_error *add_rtype_field(bunch *b, const pm_field *f)
{
    if (!b->rtype && !(b->rtype = pm_type_new_row(false)))
        return pm_oom();
    pm_type *ft = pm_type_clone(f->type);
    pm_error *e = ft ? pm_type_add_field(b->rtype, f->id, f->name, ft) : pm_oom();
    if (e && ft)
        pm_type_free(ft);
    return e;
}

static pm_error *assign_fields(pm_de_group_reader *r)
{
    size_t nf = r->type->nfields;
    PM_TRY(pm_calloc(&r->src_bunch, nf ? nf : 1, sizeof *r->src_bunch));
    PM_TRY(pm_calloc(&r->src_col, nf ? nf : 1, sizeof *r->src_col));
    for (size_t j = 0; j < nf; j++) {
        const pm_field *f = &r->type->fields[j];
        r->src_bunch[j] = -1;
        for (size_t i = 0; i < r->nb && r->src_bunch[j] < 0; i++) {
            bunch *b = &r->b[i];
            bool has = false;
            if (b->blob)
                has = b->field_id == f->id;
            else
                PM_TRY(normal_has(r->t, b->files[0], f->id, &has));
            if (!has)
                continue;
            if (b->blob && f->type->id != PM_TYPE_BLOB && f->type->id != PM_TYPE_VARBINARY &&
                f->type->id != PM_TYPE_BINARY)
                return pm_error_new(PM_EUNSUPPORTED, "field '%s' of type %s is stored in blob files", f->name,
                                    pm_type_id_name(f->type->id));
            r->src_col[j] = b->rtype ? b->rtype->nfields : 0;
            PM_TRY(add_rtype_field(b, f));
            r->src_bunch[j] = (ptrdiff_t)i;
        }
        if (r->src_bunch[j] < 0 && !f->type->nullable)
            return pm_error_new(PM_EINVALID, "field '%s' is NOT NULL but no file of row IDs [%" PRId64 ", %" PRId64
                                "] holds it", f->name, r->g->first_row_id,
                                r->g->first_row_id + r->g->row_count - 1);
    }
    return NULL;
}

static pm_error *blob_path(pm_de_group_reader *r, const pm_data_file_meta *f, char **out)
{
    PM_TRY(pm_safe_file_name(PM_ECORRUPT, "data file _FILE_NAME", f->file_name));
    if (f->external_path) {
        char field[512];
        snprintf(field, sizeof field, "_EXTERNAL_PATH of data file %s", f->file_name);
        PM_TRY(pm_table_check_external_path(r->t, f->schema_id, field, f->external_path));
        return pm_strdup(out, pm_safe_path_local(f->external_path));
    }
    *out = pm_path_join(r->dir, f->file_name);
    return *out ? NULL : pm_oom();
}

pm_error *pm_de_group_reader_open(pm_de_group_reader **out, pm_table *t, const char *bucket_dir,
                                  const pm_de_group *g, const pm_type *read_type, int64_t batch_rows)
{
    *out = NULL;
    pm_de_group_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->t = t;
    r->g = g;
    r->type = read_type;
    r->batch_rows = batch_rows > 0 ? batch_rows : 4096;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&r->dir, bucket_dir), fail);
    PM_TRY_GOTO(e, make_bunches(r), fail);
    PM_TRY_GOTO(e, assign_fields(r), fail);
    for (size_t i = 0; i < r->nb; i++) {
        bunch *b = &r->b[i];
        if (!b->rtype) {
            b->done = true;
            continue;
        }
        if (b->blob) {
            PM_TRY_GOTO(e, pm_batch_new(&b->bb, b->rtype), fail);
        } else {
            pm_file_read_options fo = {b->rtype, r->batch_rows, false, NULL};
            PM_TRY_GOTO(e, pm_file_reader_open(&b->fr, t, bucket_dir, b->files[0], &fo), fail);
        }
    }
    PM_TRY_GOTO(e, pm_batch_new(&r->out, read_type), fail);
    *out = r;
    return NULL;
fail:
    e = pm_error_wrap(e, 0, "row IDs [%" PRId64 ", %" PRId64 "] (files %s and %zu more)", g->first_row_id,
                      g->first_row_id + g->row_count - 1, g->files[0]->file_name, g->nfiles - 1);
    pm_de_group_reader_free(r);
    return e;
}

/* Fill b->bb with up to batch_rows blob values. */
static pm_error *blob_fill(pm_de_group_reader *r, bunch *b)
{
    PM_TRY(pm_batch_reset(b->bb));
    pm_column *col = b->bb->columns[0];
    int64_t want = r->batch_rows, got = 0;
    while (got < want) {
        if (!b->br) {
            if (b->next_file >= b->nfiles)
                break;
            char *p = NULL;
            PM_TRY(blob_path(r, b->files[b->next_file], &p));
            pm_error *e = pm_blob_reader_open(r->t->fio, p, false, &b->br);
            free(p);
            PM_TRY(e);
            if (pm_blob_reader_rows(b->br) != b->files[b->next_file]->row_count)
                return pm_error_new(PM_ECORRUPT, "blob file %s holds %" PRId64 " rows, its metadata says %" PRId64,
                                    b->files[b->next_file]->file_name, pm_blob_reader_rows(b->br),
                                    b->files[b->next_file]->row_count);
            b->br_row = 0;
            b->next_file++;
        }
        int64_t left = pm_blob_reader_rows(b->br) - b->br_row;
        int64_t n = left < want - got ? left : want - got;
        PM_TRY(pm_blob_reader_append(b->br, b->br_row, n, col));
        b->br_row += n;
        got += n;
        if (b->br_row == pm_blob_reader_rows(b->br)) {
            pm_blob_reader_free(b->br);
            b->br = NULL;
        }
    }
    PM_TRY(pm_batch_finish(b->bb, got));
    b->cur = got ? b->bb : NULL;
    b->off = 0;
    return NULL;
}

/* Make sure bunch b has rows (or is at its end). */
static pm_error *ensure(pm_de_group_reader *r, bunch *b)
{
    while (!b->done && (!b->cur || b->off >= b->cur->num_rows)) {
        if (b->blob) {
            PM_TRY(blob_fill(r, b));
        } else {
            PM_TRY(pm_file_reader_next(b->fr, &b->cur));
            b->off = 0;
        }
        if (!b->cur)
            b->done = true;
    }
    return NULL;
}

static pm_error *slice(pm_de_group_reader *r, pm_column *src, int64_t off, int64_t n, pm_column **out)
{
    if ((size_t)n > r->rows_cap) {
        PM_TRY(pm_realloc_array(&r->rows_scratch, (size_t)n, sizeof *r->rows_scratch));
        r->rows_cap = (size_t)n;
    }
    for (int64_t i = 0; i < n; i++)
        r->rows_scratch[i] = off + i;
    pm_column *c = NULL;
    PM_TRY(pm_column_new(&c, src->type));
    const pm_column *srcs[1] = {src};
    uint16_t *which = NULL;
    pm_error *e = pm_calloc(&which, (size_t)n ? (size_t)n : 1, sizeof *which);
    if (!e)
        e = pm_column_append_gather(c, srcs, which, r->rows_scratch, n);
    free(which);
    if (e) {
        pm_column_release(c);
        return e;
    }
    *out = c;
    return NULL;
}

static pm_error *null_column(const pm_type *t, int64_t n, pm_column **out)
{
    pm_column *c = NULL;
    PM_TRY(pm_column_new(&c, t));
    pm_error *e = pm_column_reserve(c, n);
    for (int64_t i = 0; !e && i < n; i++)
        e = pm_column_append_null(c);
    if (e) {
        pm_column_release(c);
        return e;
    }
    *out = c;
    return NULL;
}

/* A BIGINT column with nulls replaced: row i → base + step * i
 * (step 1: row IDs; step 0: a constant). */
static pm_error *fill_nulls(pm_column **slot, int64_t base, int64_t step, int64_t n)
{
    pm_column *src = *slot;
    if (!src->null_count && !src->type->nullable)
        return NULL;
    if (!src->null_count)
        return NULL;
    pm_column *c = NULL;
    PM_TRY(pm_column_new(&c, src->type));
    pm_error *e = pm_column_reserve(c, n);
    for (int64_t i = 0; !e && i < n; i++)
        e = pm_column_append_i64(c, pm_column_is_null(src, i) ? base + step * i : pm_column_i64(src, i));
    if (e) {
        pm_column_release(c);
        return e;
    }
    pm_column_release(src);
    *slot = c;
    return NULL;
}

pm_error *pm_de_group_reader_next(pm_de_group_reader *r, const pm_batch **out)
{
    *out = NULL;
    size_t nf = r->type->nfields;
    for (size_t j = 0; j < nf; j++) {
        pm_column_release(r->out->columns[j]);
        r->out->columns[j] = NULL;
    }
    r->out->num_rows = 0;
    int64_t n = r->batch_rows;
    bool any = false, ended = false;
    for (size_t i = 0; i < r->nb; i++) {
        bunch *b = &r->b[i];
        if (!b->rtype)
            continue;
        PM_TRY(ensure(r, b));
        if (b->done) {
            ended = true;
            continue;
        }
        any = true;
        int64_t left = b->cur->num_rows - b->off;
        if (left < n)
            n = left;
    }
    if (any && ended)
        return pm_error_new(PM_ECORRUPT, "files of row IDs [%" PRId64 ", %" PRId64 "] hold different row counts "
                            "(one ended at position %" PRId64 ")", r->g->first_row_id,
                            r->g->first_row_id + r->g->row_count - 1, r->pos);
    if (!any) {
        bool sourced = false;
        for (size_t i = 0; i < r->nb; i++)
            sourced |= r->b[i].rtype != NULL;
        if (sourced) {
            if (r->pos != r->g->row_count)
                return pm_error_new(PM_ECORRUPT, "files of row IDs [%" PRId64 ", %" PRId64 "] hold %" PRId64
                                    " rows", r->g->first_row_id, r->g->first_row_id + r->g->row_count - 1, r->pos);
            return NULL;
        }
        int64_t left = r->g->row_count - r->pos;
        if (left <= 0)
            return NULL;
        if (left < n)
            n = left;
    }
    if (r->pos + n > r->g->row_count)
        return pm_error_new(PM_ECORRUPT, "files of row IDs [%" PRId64 ", %" PRId64 "] hold more than %" PRId64 " rows",
                            r->g->first_row_id, r->g->first_row_id + r->g->row_count - 1, r->g->row_count);
    for (size_t j = 0; j < nf; j++) {
        const pm_field *f = &r->type->fields[j];
        pm_column *c = NULL;
        if (r->src_bunch[j] < 0) {
            PM_TRY(null_column(f->type, n, &c));
        } else {
            bunch *b = &r->b[r->src_bunch[j]];
            pm_column *src = b->cur->columns[r->src_col[j]];
            if (b->off == 0 && b->cur->num_rows == n)
                c = pm_column_retain(src);
            else
                PM_TRY(slice(r, src, b->off, n, &c));
            if ((f->id == PM_ROW_ID_FIELD_ID && r->g->has_first_row_id) || f->id == PM_SEQUENCE_NUMBER_FIELD_ID) {
                bool rid = f->id == PM_ROW_ID_FIELD_ID;
                pm_error *e = fill_nulls(&c, rid ? r->g->first_row_id + r->pos : b->files[0]->max_sequence_number,
                                         rid ? 1 : 0, n);
                if (e) {
                    pm_column_release(c);
                    return e;
                }
            }
        }
        r->out->columns[j] = c;
    }
    for (size_t i = 0; i < r->nb; i++)
        if (r->b[i].rtype && r->b[i].cur)
            r->b[i].off += n;
    r->out->num_rows = n;
    r->last_pos = r->pos;
    r->pos += n;
    *out = r->out;
    return NULL;
}
