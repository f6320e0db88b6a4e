/*
 * lsm/lsm_compact.c — per-bucket compaction planning (steps in
 * lsm_compact.h).
 */
#include "lsm/lsm_compact.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void pm_lsm_compaction_clear(pm_lsm_compaction *c)
{
    if (!c)
        return;
    pm_compact_unit_clear(&c->unit);
    free(c->files);
    pm_task_plan_clear(&c->plan);
    memset(c, 0, sizeof *c);
}

/* One REWRITE step per file (FileRewriteCompactTask). */
static pm_error *plan_file_rewrite(pm_lsm_compaction *c)
{
    pm_task_plan *p = &c->plan;
    p->output_level = c->unit.output_level;
    p->steps = calloc(c->nfiles ? c->nfiles : 1, sizeof *p->steps);
    if (!p->steps)
        return pm_oom();
    for (size_t i = 0; i < c->nfiles; i++) {
        pm_task_step *s = &p->steps[i];
        s->kind = PM_STEP_REWRITE;
        s->sections = calloc(1, sizeof *s->sections);
        if (!s->sections)
            return pm_oom();
        p->nsteps = i + 1;
        s->nsections = 1;
        s->sections[0].runs = calloc(1, sizeof *s->sections[0].runs);
        if (!s->sections[0].runs)
            return pm_oom();
        s->sections[0].nruns = 1;
        s->sections[0].runs[0].files = malloc(sizeof(pm_lsm_file *));
        if (!s->sections[0].runs[0].files)
            return pm_oom();
        s->sections[0].runs[0].files[0] = c->files[i];
        s->sections[0].runs[0].nfiles = 1;
    }
    return NULL;
}

pm_error *pm_lsm_plan_compaction(const pm_levels *lv, const pm_compact_strategy *s, const pm_lsm_compact_options *o,
                                 pm_lsm_compaction *out)
{
    memset(out, 0, sizeof *out);
    size_t nr;
    const pm_lsm_run *runs = pm_levels_runs(lv, &nr);
    pm_sorted_run *sr = calloc(nr ? nr : 1, sizeof *sr);
    bool *flags = NULL;
    pm_error *e = NULL;
    if (!sr)
        return pm_oom();
    for (size_t i = 0; i < nr; i++) {
        sr[i].level = runs[i].level;
        sr[i].size = runs[i].size;
        sr[i].nfiles = runs[i].nfiles;
    }
    int32_t levels = pm_levels_num_levels(lv);
    if (o->mode == PM_PICK_FULL && nr == 1 && o->must_rewrite) {
        flags = calloc(runs[0].nfiles ? runs[0].nfiles : 1, sizeof *flags);
        if (!flags) {
            e = pm_oom();
            goto done;
        }
        for (size_t i = 0; i < runs[0].nfiles; i++)
            flags[i] = o->must_rewrite(o->must_rewrite_ctx, runs[0].files[i]);
    }
    PM_TRY_GOTO(e, pm_compact_pick(s, o->mode, levels, sr, nr, &o->clock, flags, o->force_rewrite_all, &out->unit),
                done);
    if (!out->unit.has)
        goto done;
    /* the unit's files */
    size_t n = pm_compact_unit_file_count(&out->unit, sr);
    out->files = calloc(n ? n : 1, sizeof *out->files);
    if (!out->files) {
        e = pm_oom();
        goto done;
    }
    if (out->unit.file_rewrite) {
        for (size_t i = 0; i < out->unit.nfiles; i++)
            out->files[i] = runs[0].files[out->unit.files[i]];
    } else {
        size_t k = 0;
        for (size_t r = 0; r < out->unit.nruns; r++)
            for (size_t i = 0; i < runs[r].nfiles; i++)
                out->files[k++] = runs[r].files[i];
    }
    out->nfiles = n;
    out->drop_delete = pm_lsm_drop_delete(out->unit.output_level, pm_levels_nonempty_highest_level(lv),
                                          o->dv_enabled, o->force_keep_delete);
    if (out->unit.file_rewrite) {
        e = plan_file_rewrite(out);
    } else {
        pm_task_options to = {o->min_file_size, out->unit.output_level, pm_levels_max_level(lv), o->force_rewrite_all,
                              o->expired, o->expired_ctx};
        e = pm_compact_task_plan(out->files, out->nfiles, &to, &out->plan);
    }
done:
    free(sr);
    free(flags);
    if (e)
        pm_lsm_compaction_clear(out);
    return e;
}
