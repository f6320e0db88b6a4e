/*
 * compact/de/de_commit.c — what a data-evolution compaction checks and
 * changes at commit, on every attempt against the latest snapshot L
 * (de_compact.h).
 *
 * validate: for each result, every normal file of L's bucket whose row
 * range meets the result's range must be one of its inputs; another one
 * is a column write committed after the plan → PM_ECONFLICT "replan".
 * Dedicated files and disjoint appends are left alone.
 *
 * rebase_index: per (partition, bucket) of the results, when any input
 * group's anchor has a deletion vector in L: a DV maintainer over L's
 * DELETION_VECTORS files of the bucket holds every vector; each anchor's
 * vector is removed and its positions (relative to the anchor's first row
 * ID) are re-based onto the output covering each row ID; one new index
 * file with all vectors is written (ADD) and every DV index file of the
 * bucket in L removed (DELETE).  Vectors of other files — untouched
 * groups, deletions committed after the plan — are carried over as L has
 * them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/de/de_compact.h"
#include "dv/dv_maintainer.h"
#include "meta/manifest.h"
#include "table/de_read.h"
#include "table/partition.h"

#define DV_INDEX_TYPE "DELETION_VECTORS"

static bool is_input(const pm_compact_result *r, const char *name)
{
    for (size_t i = 0; i < r->nbefore; i++)
        if (!strcmp(r->before[i].file_name, name))
            return true;
    return false;
}

pm_error *pm_de_validate(void **state, pm_table *t, pm_compact_result *const *r, size_t n,
                         const pm_scan_result *live)
{
    (void)state;
    (void)t;
    for (size_t i = 0; i < n; i++) {
        int64_t first = 0, rows = 0;
        PM_TRY(pm_de_task_range(r[i]->before, r[i]->nbefore, &first, &rows));
        const pm_bucket_files *bf = pm_compact_find_bucket(live, &r[i]->partition, r[i]->bucket);
        for (size_t k = 0; bf && k < bf->nfiles; k++) {
            const pm_data_file_meta *f = &bf->files[k];
            if (pm_de_is_blob_file(f->file_name) || !f->first_row_id.has)
                continue;
            int64_t s = f->first_row_id.v, e = s + f->row_count;
            if (e <= first || s >= first + rows || is_input(r[i], f->file_name))
                continue;
            return pm_error_new(PM_ECONFLICT, "compaction conflict, replan: data file %s (row IDs [%" PRId64 ", %"
                                PRId64 "]) was written into the row IDs [%" PRId64 ", %" PRId64 "] of task %" PRId64
                                " after snapshot %" PRId64, f->file_name, s, e - 1, first, first + rows - 1,
                                r[i]->task_index, r[i]->snapshot_id);
        }
    }
    return NULL;
}

/* The output of result r holding row ID `row`. */
static const pm_data_file_meta *output_of(const pm_compact_result *r, int64_t row)
{
    for (size_t i = 0; i < r->nafter; i++) {
        const pm_data_file_meta *o = &r->after[i];
        if (o->first_row_id.has && row >= o->first_row_id.v && row < o->first_row_id.v + o->row_count)
            return o;
    }
    return NULL;
}

/* Move the vectors of r's anchors to its outputs in maintainer m. */
static pm_error *rebase_result(pm_dv_maintainer *m, const pm_compact_result *r, bool bitmap64, bool *changed)
{
    pm_de_group *g = NULL;
    size_t ng = 0;
    PM_TRY(pm_de_plan_groups(r->before, r->nbefore, &g, &ng));
    pm_error *e = NULL;
    for (size_t k = 0; k < ng && !e; k++) {
        const pm_dv *v = pm_dv_maintainer_get(m, g[k].anchor->file_name);
        if (!v)
            continue;
        int64_t *pos = NULL;
        size_t np = 0;
        e = pm_dv_positions(v, &pos, &np);
        /* per output: one new vector, merged into what it may have */
        for (size_t i = 0; !e && i < np;) {
            int64_t row = g[k].first_row_id + pos[i];
            const pm_data_file_meta *o = output_of(r, row);
            if (!o) {
                e = pm_error_new(PM_EINVALID, "deleted row ID %" PRId64 " of %s is in no output of task %" PRId64,
                                 row, g[k].anchor->file_name, r->task_index);
                break;
            }
            pm_dv *nv = NULL;
            e = pm_dv_new(bitmap64, &nv);
            int64_t end = o->first_row_id.v + o->row_count;
            for (; !e && i < np && g[k].first_row_id + pos[i] < end; i++)
                e = pm_dv_add(nv, g[k].first_row_id + pos[i] - o->first_row_id.v, NULL);
            if (!e)
                e = pm_dv_maintainer_merge(m, o->file_name, nv);
            pm_dv_free(nv);
        }
        free(pos);
        if (!e) {
            pm_dv_maintainer_remove(m, g[k].anchor->file_name);
            *changed = true;
        }
    }
    pm_de_groups_free(g, ng);
    return e;
}

static pm_error *push_entry(pm_index_manifest_entry **v, size_t *n, const pm_index_manifest_entry *src,
                            pm_file_kind kind)
{
    PM_TRY(pm_realloc_array(v, *n + 1, sizeof **v));
    memset(&(*v)[*n], 0, sizeof **v);
    PM_TRY(pm_index_manifest_entry_copy(&(*v)[*n], src));
    (*v)[*n].kind = kind;
    (*n)++;
    return NULL;
}

pm_error *pm_de_rebase_index(pm_table *t, pm_compact_result *const *r, size_t n, const pm_scan_result *live,
                             pm_index_manifest_entry **added, size_t *nadded, pm_index_manifest_entry **removed,
                             size_t *nremoved)
{
    *added = *removed = NULL;
    *nadded = *nremoved = 0;
    bool bitmap64 = false;
    int64_t target = 0;
    PM_TRY(pm_dv_options(pm_table_options(t), &bitmap64, &target));
    bool *done = NULL;
    PM_TRY(pm_calloc(&done, n ? n : 1, sizeof *done));
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        if (done[i])
            continue;
        const pm_bucket_files *bf = pm_compact_find_bucket(live, &r[i]->partition, r[i]->bucket);
        if (!bf || !bf->ndvs) {
            done[i] = true;
            continue;
        }
        char *dir = NULL;
        pm_dv_maintainer *m = NULL;
        e = pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, bf->bucket, &dir);
        if (!e) {
            pm_dv_io io = {t->fio, t->paths, dir};
            e = pm_dv_maintainer_new(&io, &bf->partition, bf->bucket, bitmap64, bf->index_entries,
                                     bf->nindex_entries, &m);
        }
        bool changed = false;
        for (size_t k = i; k < n && !e; k++) {
            if (done[k] || r[k]->bucket != r[i]->bucket || !pm_compact_bytes_equal(&r[k]->partition, &r[i]->partition))
                continue;
            done[k] = true;
            e = rebase_result(m, r[k], bitmap64, &changed);
        }
        if (!e && changed) {
            pm_index_manifest_entry add;
            memset(&add, 0, sizeof add);
            bool written = false;
            e = pm_dv_maintainer_write(m, &add, &written);
            if (!e && written) {
                e = push_entry(added, nadded, &add, PM_FILE_ADD);
                for (size_t k = 0; !e && k < bf->nindex_entries; k++) {
                    const pm_index_manifest_entry *ie = &bf->index_entries[k];
                    if (ie->kind == PM_FILE_ADD && ie->index_file.index_type &&
                        !strcmp(ie->index_file.index_type, DV_INDEX_TYPE))
                        e = push_entry(removed, nremoved, ie, PM_FILE_DELETE);
                }
            }
            if (written)
                pm_index_manifest_entry_clear(&add);
        }
        pm_dv_maintainer_free(m);
        free(dir);
    }
    free(done);
    if (e) {
        /* the hook's files were not handed over: the caller cannot delete them */
        pm_index_manifest_entries_free(*removed, *nremoved);
        *removed = NULL;
        *nremoved = 0;
        pm_index_manifest_entries_free(*added, *nadded);
        *added = NULL;
        *nadded = 0;
    }
    return e;
}
