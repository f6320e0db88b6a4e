/*
 * table/global_index_scan.c — row-ID selection through global indexes
 * (see global_index_scan.h).  Per atom: the covered ranges (sorted,
 * merged when they overlap or touch) and the matching global row ids
 * (sorted, distinct).
 */
#include "table/global_index_scan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "index/global_index_decl.h"
#include "index/global_index_file.h"
#include "io/fileio.h"
#include "meta/paths.h"
#include "meta/safe_path.h"
#include "table/global_index_epoch.h"
#include "table/table_internal.h"

typedef struct gi_atom_sel {
    pm_gi_range *cov;
    size_t ncov;
    int64_t *ids;
    size_t nids, cap;
} gi_atom_sel;

struct pm_gi_selection {
    gi_atom_sel *atoms;
    size_t n;
};

pm_error *pm_gi_read_enabled(const pm_options *o, bool *out)
{
    *out = true;
    const char *v = pm_options_get(o, "global-index.enabled");
    if (!v)
        return NULL;
    return pm_error_wrap(pm_parse_bool(v, out), PM_EINVALID, "option 'global-index.enabled'");
}

void pm_gi_selection_free(pm_gi_selection *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->atoms[i].cov);
        free(s->atoms[i].ids);
    }
    free(s->atoms);
    free(s);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The full path of a global index payload (Java: its external path, else
 * <table>/index/<name>). */
static pm_error *payload_path(pm_table *t, const pm_index_file_meta *f, char **out)
{
    if (f->external_path) { /* checked against the table's roots by the scan (table/scan.c) */
        const char *p = pm_safe_path_local(f->external_path);
        if (!p)
            return pm_error_new(PM_EUNSUPPORTED, "global index file %s: external path %s", f->file_name,
                                f->external_path);
        return pm_strdup(out, p);
    }
    return pm_path_factory_index_path(t->paths, f->file_name, out);
}

static pm_error *push_id(gi_atom_sel *a, int64_t id)
{
    if (a->nids == a->cap) {
        size_t nc = pm_grow_cap(a->cap, a->nids + 1);
        PM_TRY(pm_realloc_array(&a->ids, nc, sizeof *a->ids));
        a->cap = nc;
    }
    a->ids[a->nids++] = id;
    return NULL;
}

/* Query entry ie for atom at into a. */
static pm_error *query_entry(pm_table *t, const pm_index_manifest_entry *ie, pm_gi_family fam,
                             const pm_pred_atom *at, gi_atom_sel *a)
{
    const pm_index_file_meta *f = &ie->index_file;
    const pm_global_index_meta *g = &f->global_index;
    if (g->row_range_start < 0 || g->row_range_end < g->row_range_start)
        return pm_error_new(PM_ECORRUPT, "global index file %s: row range [%" PRId64 ", %" PRId64 "]", f->file_name,
                            g->row_range_start, g->row_range_end);
    char *path = NULL;
    PM_TRY(payload_path(t, f, &path));
    pm_buf bytes = PM_BUF_INIT;
    roaring_bitmap_t *rows = roaring_bitmap_create();
    pm_error *e = rows ? pm_fileio_read_file(t->fio, path, &bytes) : pm_oom();
    if (!e)
        e = pm_gi_query_in(fam, at->type, bytes.data, bytes.len, at->values, rows, f->file_name);
    if (!e) {
        roaring_uint32_iterator_t it;
        roaring_init_iterator(rows, &it);
        for (; !e && it.has_value; roaring_advance_uint32_iterator(&it)) {
            int64_t id = g->row_range_start + (int64_t)it.current_value;
            if (id > g->row_range_end)
                e = pm_error_new(PM_ECORRUPT, "global index file %s: local row id %u outside its range [%" PRId64
                                 ", %" PRId64 "]", f->file_name, it.current_value, g->row_range_start,
                                 g->row_range_end);
            else
                e = push_id(a, id);
        }
    }
    if (!e) {
        e = pm_realloc_array(&a->cov, a->ncov + 1, sizeof *a->cov);
        if (!e)
            a->cov[a->ncov++] = (pm_gi_range){g->row_range_start, g->row_range_end};
    }
    if (rows)
        roaring_bitmap_free(rows);
    pm_buf_free(&bytes);
    if (e)
        e = pm_error_wrap(e, 0, "global index file %s", path);
    free(path);
    return e;
}

static void normalize(gi_atom_sel *a)
{
    if (a->nids)
        qsort(a->ids, a->nids, sizeof *a->ids, cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < a->nids; i++)
        if (!k || a->ids[k - 1] != a->ids[i])
            a->ids[k++] = a->ids[i];
    a->nids = k;
    pm_gi_ranges_merge(a->cov, &a->ncov);
}

pm_error *pm_gi_select(pm_table *t, const pm_bucket_files *b, const pm_predicate *p, pm_gi_selection **out)
{
    *out = NULL;
    pm_gi_selection *s;
    PM_TRY(pm_calloc(&s, 1, sizeof *s));
    pm_error *e = NULL;
    for (size_t k = 0; k < p->natoms && !e; k++) {
        const pm_pred_atom *at = &p->atoms[k];
        gi_atom_sel a = {0};
        pm_gi_stale stale;
        e = pm_gi_stale_find(t, at->field_id, &stale); /* built under another type: not covering */
        for (size_t i = 0; i < b->nindex_entries && !e; i++) {
            const pm_index_manifest_entry *ie = &b->index_entries[i];
            pm_gi_family fam;
            if (ie->kind != PM_FILE_ADD || !ie->index_file.has_global_index ||
                !pm_gi_family_parse(ie->index_file.index_type, &fam) ||
                ie->index_file.global_index.index_field_id != at->field_id ||
                pm_gi_stale_has(&stale, ie->index_file.file_name))
                continue;
            e = query_entry(t, ie, fam, at, &a);
        }
        pm_gi_stale_clear(&stale);
        if (!e && a.ncov) {
            normalize(&a);
            e = pm_realloc_array(&s->atoms, s->n + 1, sizeof *s->atoms);
            if (!e) {
                s->atoms[s->n++] = a;
                continue;
            }
        }
        free(a.cov);
        free(a.ids);
    }
    if (e || !s->n) {
        pm_gi_selection_free(s);
        return e;
    }
    *out = s;
    return NULL;
}

/* Does a cover [from, to] entirely? */
static bool covered(const gi_atom_sel *a, int64_t from, int64_t to)
{
    size_t lo = 0, hi = a->ncov;
    while (lo < hi) { /* last range starting at or before from */
        size_t mid = lo + (hi - lo) / 2;
        if (a->cov[mid].from <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && a->cov[lo - 1].to >= to;
}

static bool has_id(const gi_atom_sel *a, int64_t from, int64_t to)
{
    size_t lo = 0, hi = a->nids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->ids[mid] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->nids && a->ids[lo] <= to;
}

bool pm_gi_selection_meets(const pm_gi_selection *s, int64_t from, int64_t n)
{
    if (!s || n <= 0)
        return true;
    int64_t to = from + n - 1;
    for (size_t i = 0; i < s->n; i++)
        if (covered(&s->atoms[i], from, to) && !has_id(&s->atoms[i], from, to))
            return false;
    return true;
}

int64_t pm_gi_selection_indexed_rows(const pm_gi_selection *s)
{
    int64_t n = 0;
    for (size_t i = 0; s && i < s->n; i++)
        n += (int64_t)s->atoms[i].nids;
    return n;
}
