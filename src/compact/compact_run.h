/*
 * compact/compact_run.h — running plans: every task of a plan on the
 * resources' pool (pm_compact_execute_all), and execute + commit in one
 * call (pm_compact_run_plan; used by pm_compact_run, the automatic rounds
 * of compact_auto.h and the CLI).  Scheduling is described in
 * compact_run.c.
 */
#ifndef PM_COMPACT_RUN_H
#define PM_COMPACT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "compact/compact_internal.h"

/* Execute every task of p with at most `parallelism` buckets at once (0 =
 * the resources' threads).  *out = array of p->ntasks results (free with
 * pm_compact_results_free); on error nothing is left on disk. */
pm_error *pm_compact_execute_all(pm_table *t, const pm_compact_plan *p, pm_resources *r, size_t parallelism,
                                 pm_compact_progress_fn progress, void *progress_ctx, pm_compact_result ***out);
void pm_compact_results_free(pm_compact_result **r, size_t n);

/* Execute all tasks and commit them in one COMPACT snapshot.  *out (may be
 * NULL) is filled completely with the current metrics version.  The plan
 * is spent: each task's input list is freed once its result holds the
 * inputs (the commit reads the results), so p can be freed afterwards (its
 * scan, snapshot id and commit user stay) but not executed again. */
pm_error *pm_compact_run_plan(pm_compact_metrics *out, pm_table *t, pm_compact_plan *p, pm_resources *r,
                              size_t parallelism, pm_compact_progress_fn progress, void *progress_ctx);

#endif
