/*
 * table/pk_index_select.c — row positions of a primary-key bucket that a
 * filter may keep, from source-backed global indexes (see
 * pk_index_select.h).
 */
#include "table/pk_index_select.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "index/global_index_decl.h"
#include "index/global_index_file.h"
#include "index/pk_index_source.h"
#include "io/fileio.h"
#include "meta/index_path.h"
#include "table/partition.h"
#include "table/table_internal.h"

void pm_pk_gi_hits_free(pm_pk_gi_hits *h)
{
    if (!h)
        return;
    for (size_t i = 0; h->rows && i < h->nfiles; i++)
        if (h->rows[i])
            roaring_bitmap_free(h->rows[i]);
    free(h->rows);
    free(h);
}

/* b's file of source file `name`, or SIZE_MAX. */
static size_t file_index(const pm_bucket_files *b, const char *name)
{
    for (size_t i = 0; i < b->nfiles; i++)
        if (!strcmp(b->files[i].file_name, name))
            return i;
    return SIZE_MAX;
}

/* Is src the live level of b, every file holding the column with type t?
 * at[i] = b's index of source file i. */
static pm_error *usable(pm_table *t, const pm_bucket_files *b, const pm_pk_source *src, int32_t field_id,
                        const pm_type *type, size_t *at, bool *out)
{
    *out = false;
    size_t live = 0;
    for (size_t i = 0; i < b->nfiles; i++)
        live += b->files[i].level == src->level;
    if (live != src->nfiles)
        return NULL;
    for (size_t i = 0; i < src->nfiles; i++) {
        at[i] = file_index(b, src->files[i].name);
        if (at[i] == SIZE_MAX)
            return NULL;
        const pm_data_file_meta *f = &b->files[at[i]];
        if (f->level != src->level || f->row_count != src->files[i].row_count)
            return NULL;
        const pm_schema *fs = NULL;
        PM_TRY(pm_table_schema_by_id(t, f->schema_id, &fs));
        ptrdiff_t k = pm_type_field_index_by_id(fs->row_type, field_id);
        if (k < 0 || !pm_type_equals_ignore_nullable(fs->row_type->fields[k].type, type))
            return NULL;
    }
    *out = true;
    return NULL;
}

/* Query payload ie (source src) with atom at; positions into cur[]. */
static pm_error *query(pm_table *t, const pm_bucket_files *b, const pm_index_manifest_entry *ie, pm_gi_family fam,
                       const pm_pred_atom *at, const pm_pk_source *src, const size_t *idx, roaring_bitmap_t **cur)
{
    char *dir = NULL, *path = NULL;
    pm_buf bytes = PM_BUF_INIT;
    roaring_bitmap_t *hits = roaring_bitmap_create();
    pm_error *e = hits ? NULL : pm_oom();
    if (!e)
        e = pm_table_bucket_dir(t, b->partition.data, b->partition.len, b->bucket, &dir);
    if (!e)
        e = pm_index_file_path(t->paths, dir, &ie->index_file, &path);
    if (!e)
        e = pm_fileio_read_file(t->fio, path, &bytes);
    if (!e)
        e = pm_gi_query_in(fam, at->type, bytes.data, bytes.len, at->values, hits, ie->index_file.file_name);
    /* ordinals → (file, position): files concatenated in name order */
    for (size_t i = 0; !e && i < src->nfiles; i++)
        if (!cur[idx[i]] && !(cur[idx[i]] = roaring_bitmap_create()))
            e = pm_oom();
    if (!e) {
        size_t fi = 0;
        int64_t base = 0;
        roaring_uint32_iterator_t it;
        roaring_init_iterator(hits, &it);
        for (; !e && it.has_value; roaring_advance_uint32_iterator(&it)) {
            int64_t ord = it.current_value;
            while (fi < src->nfiles && ord >= base + src->files[fi].row_count)
                base += src->files[fi++].row_count;
            if (fi == src->nfiles)
                e = pm_error_new(PM_ECORRUPT, "global index file %s: ordinal %" PRId64 " beyond its %" PRId64
                                 " source rows", ie->index_file.file_name, ord, base);
            else
                roaring_bitmap_add(cur[idx[fi]], (uint32_t)(ord - base));
        }
    }
    if (hits)
        roaring_bitmap_free(hits);
    pm_buf_free(&bytes);
    if (e && path)
        e = pm_error_wrap(e, 0, "global index file %s", path);
    free(path);
    free(dir);
    return e;
}

/* The per-file positions of one atom (NULL entries: not covered by it). */
static pm_error *select_atom(pm_table *t, const pm_bucket_files *b, const pm_pred_atom *at, pm_gi_family fam,
                             roaring_bitmap_t **cur, size_t *used)
{
    size_t *idx = NULL;
    PM_TRY(pm_calloc(&idx, b->nfiles ? b->nfiles : 1, sizeof *idx));
    pm_error *e = NULL;
    for (size_t i = 0; i < b->nindex_entries && !e; i++) {
        const pm_index_manifest_entry *ie = &b->index_entries[i];
        pm_gi_family f;
        if (ie->kind != PM_FILE_ADD || !ie->index_file.has_global_index ||
            ie->index_file.global_index.index_field_id != at->field_id ||
            !pm_gi_family_parse(ie->index_file.index_type, &f) || f != fam)
            continue;
        bool is_pk = false, ok = false;
        pm_pk_source src;
        e = pm_pk_source_of_entry(ie, &is_pk, &src);
        if (e || !is_pk)
            continue;
        e = usable(t, b, &src, at->field_id, at->type, idx, &ok);
        bool fresh = true;
        for (size_t k = 0; !e && ok && k < src.nfiles && fresh; k++)
            fresh = !cur[idx[k]]; /* one payload per level and column */
        if (!e && ok && fresh) {
            e = query(t, b, ie, fam, at, &src, idx, cur);
            *used += !e;
        }
        pm_pk_source_clear(&src);
    }
    free(idx);
    return e;
}

pm_error *pm_pk_gi_select(pm_table *t, const pm_schema *s, const pm_bucket_files *b, const pm_predicate *p,
                          pm_pk_gi_hits **out)
{
    *out = NULL;
    if (!b->nindex_entries || !b->nfiles)
        return NULL;
    pm_gi_decls d;
    PM_TRY(pm_gi_decls_resolve(s->options, s->row_type, &d));
    if (!d.n) {
        pm_gi_decls_clear(&d);
        return NULL;
    }
    pm_pk_gi_hits *h = NULL;
    roaring_bitmap_t **cur = NULL;
    pm_error *e = pm_calloc(&h, 1, sizeof *h);
    if (!e)
        e = pm_calloc(&h->rows, b->nfiles, sizeof *h->rows);
    if (!e) {
        h->nfiles = b->nfiles;
        e = pm_calloc(&cur, b->nfiles, sizeof *cur);
    }
    bool any = false;
    for (size_t k = 0; !e && k < p->natoms; k++) {
        const pm_pred_atom *at = &p->atoms[k];
        const pm_gi_column *g = pm_gi_decls_find(&d, at->field_id);
        if (at->op != PM_PRED_IN || !g)
            continue;
        e = select_atom(t, b, at, g->family, cur, &h->payloads_used);
        for (size_t i = 0; !e && i < b->nfiles; i++) {
            if (!cur[i])
                continue;
            any = true;
            if (!h->rows[i])
                h->rows[i] = cur[i];
            else {
                roaring_bitmap_and_inplace(h->rows[i], cur[i]);
                roaring_bitmap_free(cur[i]);
            }
            cur[i] = NULL;
        }
    }
    for (size_t i = 0; cur && i < b->nfiles; i++)
        if (cur[i])
            roaring_bitmap_free(cur[i]);
    free(cur);
    pm_gi_decls_clear(&d);
    if (e || !any) {
        pm_pk_gi_hits_free(h);
        return e;
    }
    *out = h;
    return NULL;
}
