/*
 * compact/pk/pk_global_index.c — maintenance and commit checks of
 * primary-key source-backed global indexes (see pk_global_index.h).
 */
#include "compact/pk/pk_global_index.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"
#include "index/global_index_decl.h"
#include "index/global_index_file.h"
#include "index/pk_index_source.h"
#include "io/fileio.h"
#include "meta/index_path.h"
#include "meta/paths.h"
#include "table/file_read.h"
#include "table/table_internal.h"
#include "types/column.h"

/* The bucket's files after the task: captured files − before + after
 * (pointers into bf and r). */
typedef struct after_set {
    const pm_data_file_meta **f;
    size_t n;
} after_set;

static bool named(const pm_data_file_meta *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].file_name, name))
            return true;
    return false;
}

static pm_error *after_files(const pm_data_file_meta *live, size_t nlive, pm_compact_result *const *r, size_t n,
                             size_t first, const pm_bytes *part, int32_t bucket, after_set *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = nlive;
    for (size_t i = first; i < n; i++)
        cap += r[i]->nafter;
    PM_TRY(pm_calloc(&out->f, cap ? cap : 1, sizeof *out->f));
    for (size_t k = 0; k < nlive; k++) {
        bool gone = false;
        for (size_t i = first; i < n && !gone; i++)
            gone = r[i]->bucket == bucket && pm_compact_bytes_equal(&r[i]->partition, part) &&
                   named(r[i]->before, r[i]->nbefore, live[k].file_name);
        if (!gone)
            out->f[out->n++] = &live[k];
    }
    for (size_t i = first; i < n; i++)
        if (r[i]->bucket == bucket && pm_compact_bytes_equal(&r[i]->partition, part))
            for (size_t k = 0; k < r[i]->nafter; k++)
                out->f[out->n++] = &r[i]->after[k];
    return NULL;
}

/* The source of level `level` in s (level without files: nfiles = 0). */
static pm_error *level_source(const after_set *s, int32_t level, pm_pk_source *out)
{
    memset(out, 0, sizeof *out);
    const pm_data_file_meta **f = NULL;
    size_t n = 0;
    PM_TRY(pm_calloc(&f, s->n ? s->n : 1, sizeof *f));
    for (size_t i = 0; i < s->n; i++)
        if (s->f[i]->level == level)
            f[n++] = s->f[i];
    pm_error *e = n ? pm_pk_source_from_files(level, f, n, out) : NULL;
    if (!n)
        out->level = level;
    free(f);
    return e;
}

/* Does every file of level source `want` hold column g with g's type?
 * (a payload over files of another type is replaced, as readers ignore it) */
static pm_error *types_match(pm_table *t, const after_set *s, const pm_pk_source *want, const pm_gi_column *g,
                             bool *out)
{
    *out = true;
    for (size_t i = 0; i < s->n && *out; i++) {
        if (s->f[i]->level != want->level)
            continue;
        const pm_schema *fs = NULL;
        PM_TRY(pm_table_schema_by_id(t, s->f[i]->schema_id, &fs));
        ptrdiff_t k = pm_type_field_index_by_id(fs->row_type, g->field_id);
        *out = k >= 0 && pm_type_equals_ignore_nullable(fs->row_type->fields[k].type, g->type);
    }
    return NULL;
}

/* ---------------------------------------------------------------- */
/* building one level                                                 */

/* Column g of every file of src (name order, every physical row). */
static pm_error *read_level(pm_pk_exec *x, const after_set *s, const pm_gi_column *g, const pm_pk_source *src,
                            pm_column **out)
{
    *out = NULL;
    pm_type *rt = pm_type_new_row(false), *ft = pm_type_clone(g->type);
    pm_column *col = NULL;
    pm_error *e = NULL;
    if (!rt || !ft) {
        e = pm_oom();
        goto done;
    }
    ft->nullable = true;
    PM_TRY_GOTO(e, pm_type_add_field(rt, g->field_id, g->column, ft), done);
    ft = NULL;
    PM_TRY_GOTO(e, pm_column_new(&col, rt->fields[0].type), done);
    int64_t total = 0;
    PM_TRY_GOTO(e, pm_pk_source_rows(src, &total), done);
    PM_TRY_GOTO(e, pm_column_reserve(col, total), done);
    for (size_t i = 0; i < src->nfiles && !e; i++) {
        const pm_data_file_meta *f = NULL;
        for (size_t k = 0; k < s->n && !f; k++)
            if (!strcmp(s->f[k]->file_name, src->files[i].name))
                f = s->f[k];
        pm_file_read_options fo = {rt, 4096, true, x->codec};
        pm_file_reader *fr = NULL;
        PM_TRY_GOTO(e, pm_file_reader_open(&fr, x->t, x->dir, f, &fo), done);
        int64_t rows = 0;
        const pm_batch *b = NULL;
        while (!(e = pm_file_reader_next(fr, &b)) && b) {
            const pm_column *c = b->columns[2];
            for (int64_t k = 0; k < b->num_rows && !e; k++)
                e = pm_column_append_from(col, c, k);
            rows += b->num_rows;
            if (e)
                break;
        }
        pm_file_reader_free(fr);
        if (!e && rows != f->row_count)
            e = pm_error_new(PM_ECORRUPT, "data file %s holds %" PRId64 " rows, its metadata says %" PRId64,
                             f->file_name, rows, f->row_count);
        if (e)
            e = pm_error_wrap(e, 0, "indexing column %s of level %" PRId32, g->column, src->level);
    }
done:
    pm_type_free(ft);
    pm_type_free(rt);
    if (e) {
        pm_column_release(col);
        return e;
    }
    *out = col;
    return NULL;
}

static pm_error *push_entry(pm_index_manifest_entry **arr, size_t *n, const pm_index_manifest_entry *ie)
{
    PM_TRY(pm_realloc_array(arr, *n + 1, sizeof **arr));
    memset(&(*arr)[*n], 0, sizeof **arr);
    PM_TRY(pm_index_manifest_entry_copy(&(*arr)[*n], ie));
    (*n)++;
    return NULL;
}

/* Write one payload over src for column g into the result. */
static pm_error *build_level(pm_pk_exec *x, const after_set *s, const pm_gi_column *g, const pm_pk_source *src)
{
    pm_column *vals = NULL;
    int64_t rows = 0;
    PM_TRY(pm_pk_source_rows(src, &rows));
    if (!rows)
        return NULL; /* nothing to index: the level keeps no payload */
    PM_TRY(read_level(x, s, g, src, &vals));
    pm_gi_column one = *g;
    one.btree_records_per_range = rows; /* one payload file for the whole level, as Java */
    pm_gi_payload *ps = NULL;
    size_t np = 0;
    pm_error *e = pm_gi_build(&one, vals, rows, &ps, &np);
    pm_column_release(vals);
    if (!e && (np != 1 || ps[0].row_count != rows))
        e = pm_error_new(PM_EINVALID, "index build of column %s produced %zu payload files (one expected)", g->column,
                         np);
    char *name = NULL, *idir = NULL, *path = NULL;
    pm_buf sm = PM_BUF_INIT;
    pm_output *o = NULL;
    if (!e)
        e = pm_path_factory_new_index_file_name(x->t->paths, &name);
    if (!e)
        e = pm_index_dir(x->t->paths, x->dir, &idir);
    if (!e && !(path = pm_path_join(idir, name)))
        e = pm_oom();
    if (!e)
        e = pm_pk_source_encode(src, &sm);
    if (!e)
        e = pm_output_create(x->t->fio, path, false, &o);
    if (!e)
        e = pm_output_write(o, ps[0].bytes.data, ps[0].bytes.len);
    if (!e) {
        e = pm_output_close(o, true);
        o = NULL;
        if (e)
            pm_error_free(pm_fileio_delete(x->t->fio, path));
    }
    pm_output_abort(o);
    if (!e) {
        pm_index_manifest_entry ie;
        memset(&ie, 0, sizeof ie);
        ie.kind = PM_FILE_ADD;
        ie.partition = x->task->partition; /* borrowed for the copy */
        ie.bucket = x->task->bucket;
        ie.index_file.index_type = (char *)pm_gi_family_name(g->family);
        ie.index_file.file_name = name;
        ie.index_file.file_size = (int64_t)ps[0].bytes.len;
        ie.index_file.row_count = rows;
        ie.index_file.has_global_index = true;
        ie.index_file.global_index.row_range_start = 0;
        ie.index_file.global_index.row_range_end = rows - 1;
        ie.index_file.global_index.index_field_id = g->field_id;
        if (ps[0].has_meta)
            ie.index_file.global_index.index_meta = (pm_bytes){true, ps[0].meta.data, ps[0].meta.len};
        ie.index_file.global_index.source_meta = (pm_bytes){true, sm.data, sm.len};
        e = push_entry(&x->r->index_added, &x->r->nindex_added, &ie);
        if (e)
            pm_error_free(pm_fileio_delete(x->t->fio, path));
    }
    pm_gi_payloads_free(ps, np);
    pm_buf_free(&sm);
    free(path);
    free(idir);
    free(name);
    return e;
}

/* ---------------------------------------------------------------- */
/* maintenance                                                        */

static pm_error *add_level(int32_t **lv, size_t *n, int32_t level)
{
    for (size_t i = 0; i < *n; i++)
        if ((*lv)[i] == level)
            return NULL;
    PM_TRY(pm_realloc_array(lv, *n + 1, sizeof **lv));
    (*lv)[(*n)++] = level;
    return NULL;
}

/* Is ie a live payload of field `field_id` at level `level`?  *src (when
 * so, else zeroed) is its source; corrupt source metadata is an error. */
static pm_error *payload_at(const pm_index_manifest_entry *ie, int32_t field_id, int32_t level, bool *at,
                            pm_pk_source *src)
{
    *at = false;
    memset(src, 0, sizeof *src);
    if (ie->kind != PM_FILE_ADD || !ie->index_file.has_global_index ||
        ie->index_file.global_index.index_field_id != field_id)
        return NULL;
    bool is_pk = false;
    PM_TRY(pm_pk_source_of_entry(ie, &is_pk, src));
    *at = is_pk && src->level == level;
    if (!*at)
        pm_pk_source_clear(src);
    return NULL;
}

/* Column g at one level: retain its one current payload, or replace the
 * level's payloads. */
static pm_error *maintain_level(pm_pk_exec *x, const pm_bucket_files *bf, const after_set *s, const pm_gi_column *g,
                                int32_t level)
{
    pm_pk_source want;
    PM_TRY(level_source(s, level, &want));
    size_t *at = NULL, nat = 0;
    bool current = false, typed = true;
    pm_error *e = pm_calloc(&at, bf && bf->nindex_entries ? bf->nindex_entries : 1, sizeof *at);
    if (!e)
        e = types_match(x->t, s, &want, g, &typed);
    for (size_t i = 0; !e && bf && i < bf->nindex_entries; i++) {
        bool here = false;
        pm_pk_source src;
        e = payload_at(&bf->index_entries[i], g->field_id, level, &here, &src);
        if (e || !here)
            continue;
        pm_gi_family fam;
        current = pm_gi_family_parse(bf->index_entries[i].index_file.index_type, &fam) && fam == g->family &&
                  want.nfiles && pm_pk_source_equal(&src, &want);
        pm_pk_source_clear(&src);
        at[nat++] = i;
    }
    bool retain = !e && nat == 1 && current && typed;
    for (size_t k = 0; !e && !retain && k < nat; k++) {
        pm_index_manifest_entry del = bf->index_entries[at[k]];
        del.kind = PM_FILE_DELETE;
        e = push_entry(&x->r->index_removed, &x->r->nindex_removed, &del);
    }
    if (!e && !retain && want.nfiles)
        e = build_level(x, s, g, &want);
    free(at);
    pm_pk_source_clear(&want);
    return e;
}

pm_error *pm_pk_gi_maintain(pm_pk_exec *x)
{
    pm_gi_decls d;
    PM_TRY(pm_gi_decls_resolve(x->schema->options, x->schema->row_type, &d));
    if (!d.n) {
        pm_gi_decls_clear(&d);
        return NULL;
    }
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = x->task->snapshot_id;
    so.bucket = x->task->bucket;
    pm_scan_result *sr = NULL;
    after_set s = {0};
    int32_t *levels = NULL;
    size_t nlevels = 0;
    pm_error *e = pm_table_scan(x->t, &so, &sr);
    const pm_bucket_files *bf = e ? NULL : pm_compact_find_bucket(sr, &x->task->partition, x->task->bucket);
    pm_compact_result *const rr[1] = {x->r};
    if (!e)
        e = after_files(bf ? bf->files : NULL, bf ? bf->nfiles : 0, rr, 1, 0, &x->task->partition, x->task->bucket,
                        &s);
    for (size_t i = 0; !e && i < s.n; i++)
        if (s.f[i]->level > 0)
            e = add_level(&levels, &nlevels, s.f[i]->level);
    for (size_t i = 0; !e && bf && i < bf->nindex_entries; i++) {
        bool is_pk = false;
        pm_pk_source src;
        e = pm_pk_source_of_entry(&bf->index_entries[i], &is_pk, &src);
        if (!e && is_pk)
            e = add_level(&levels, &nlevels, src.level);
        pm_pk_source_clear(&src);
    }
    for (size_t k = 0; !e && k < d.n; k++)
        for (size_t i = 0; !e && i < nlevels; i++)
            e = maintain_level(x, bf, &s, &d.cols[k], levels[i]);
    free(levels);
    free(s.f);
    pm_scan_result_free(sr);
    pm_gi_decls_clear(&d);
    return e ? pm_error_wrap(e, 0, "global index maintenance of bucket %d", (int)x->task->bucket) : NULL;
}

/* ---------------------------------------------------------------- */
/* commit                                                             */

static bool removed_by(pm_compact_result *const *r, size_t n, size_t first, const pm_bucket_files *bf,
                       const char *name)
{
    for (size_t i = first; i < n; i++) {
        if (r[i]->bucket != bf->bucket || !pm_compact_bytes_equal(&r[i]->partition, &bf->partition))
            continue;
        for (size_t k = 0; k < r[i]->nindex_removed; k++)
            if (!strcmp(r[i]->index_removed[k].index_file.file_name, name))
                return true;
    }
    return false;
}

static pm_error *conflict(const char *what, const char *name, int32_t bucket)
{
    return pm_error_new(PM_ECONFLICT, "compaction conflict, replan: global index payload %s of bucket %d %s", name,
                        (int)bucket, what);
}

pm_error *pm_pk_gi_validate(pm_compact_result *const *r, size_t n, size_t first, const pm_bucket_files *bf)
{
    bool any = false;
    for (size_t i = first; i < n && !any; i++)
        for (size_t k = 0; k < r[i]->nindex_added && !any; k++)
            any = r[i]->bucket == bf->bucket && pm_compact_bytes_equal(&r[i]->partition, &bf->partition) &&
                  r[i]->index_added[k].index_file.global_index.source_meta.has;
    if (!any)
        return NULL;
    after_set s;
    PM_TRY(after_files(bf->files, bf->nfiles, r, n, first, &bf->partition, bf->bucket, &s));
    pm_error *e = NULL;
    for (size_t i = first; i < n && !e; i++) {
        if (r[i]->bucket != bf->bucket || !pm_compact_bytes_equal(&r[i]->partition, &bf->partition))
            continue;
        for (size_t k = 0; k < r[i]->nindex_added && !e; k++) {
            const pm_index_manifest_entry *ie = &r[i]->index_added[k];
            bool is_pk = false;
            pm_pk_source src, want;
            e = pm_pk_source_of_entry(ie, &is_pk, &src);
            if (e || !is_pk)
                continue;
            e = level_source(&s, src.level, &want);
            if (!e && !pm_pk_source_equal(&src, &want))
                e = conflict("no longer covers its level's files (a concurrent commit changed them)",
                             ie->index_file.file_name, bf->bucket);
            pm_pk_source_clear(&want);
            /* no other live payload of that column at that level */
            for (size_t j = 0; !e && j < bf->nindex_entries; j++) {
                const pm_index_manifest_entry *o = &bf->index_entries[j];
                if (removed_by(r, n, first, bf, o->index_file.file_name))
                    continue;
                bool here = false;
                pm_pk_source os;
                e = payload_at(o, ie->index_file.global_index.index_field_id, src.level, &here, &os);
                if (!e && here)
                    e = conflict("meets another live payload of its level (a concurrent compaction indexed it)",
                                 o->index_file.file_name, bf->bucket);
                pm_pk_source_clear(&os);
            }
            pm_pk_source_clear(&src);
        }
    }
    free(s.f);
    return e;
}
