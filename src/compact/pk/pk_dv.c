/*
 * compact/pk/pk_dv.c — the bucket's deletion vectors during a primary-key
 * task (deduplicate, partial-update, aggregation with
 * deletion-vectors.enabled; pk_exec.h).
 *
 *   open    a maintainer over the task's DV index files (the bucket's one
 *           file); run sources apply each input's vector to its batches;
 *   mark    a retained row replaced by the merge (its history record,
 *           lookup_levels.c) is marked deleted in its file's vector;
 *   finish  vectors of rewritten inputs are gone with them (an upgraded
 *           file keeps its own); when anything changed the bucket's new
 *           index file replaces the task's (result: ADD of the new file,
 *           DELETE of every file of the task).
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_exec.h"
#include "meta/manifest.h"

/* The bucket's vectors from the task's DV index files. */
pm_error *pm_pk_dv_open(pm_pk_exec *x)
{
    bool bitmap64 = false;
    int64_t target = 0;
    PM_TRY(pm_dv_options(x->schema->options, &bitmap64, &target));
    pm_dv_io io = {x->t->fio, x->t->paths, x->dir};
    return pm_dv_maintainer_new(&io, &x->task->partition, x->task->bucket, bitmap64, x->task->dv_index,
                                x->task->ndv_index, &x->dv.m);
}

pm_error *pm_pk_dv_mark(pm_pk_exec *x, const char *name, int64_t pos)
{
    return x->dv.m ? pm_dv_maintainer_delete_row(x->dv.m, name, pos) : NULL;
}

/* Vectors of rewritten inputs are gone with them; when anything changed the
 * bucket's new index file replaces the task's (ADD + DELETE entries). */
pm_error *pm_pk_dv_finish(pm_pk_exec *x)
{
    pm_compact_result *r = x->r;
    for (size_t i = 0; i < r->nbefore; i++) {
        bool kept = false;
        for (size_t k = 0; k < r->nafter && !kept; k++)
            kept = !strcmp(r->after[k].file_name, r->before[i].file_name);
        if (!kept)
            pm_dv_maintainer_remove(x->dv.m, r->before[i].file_name);
    }
    return pm_compact_result_dv_rewrite(r, x->task, x->dv.m);
}

void pm_pk_dv_clear(pm_pk_dv *dv)
{
    pm_dv_maintainer_free(dv->m);
    dv->m = NULL;
}
