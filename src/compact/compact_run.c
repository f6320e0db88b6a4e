/*
 * compact/compact_run.c — executing a whole plan and the one-call
 * pm_compact_run (plan → execute → commit).
 *
 * Scheduling: tasks of bucketed tables are grouped into chains by
 * (partition, bucket), in plan order (their windows follow each other in
 * sequence order); tasks of unaware-bucket tables are independent of each
 * other (disjoint inputs and DV index files, no sequence order between
 * them) and each is its own chain.  min(parallelism, chains) workers run on the resources' pool (or
 * inline without one); each worker takes the next chain from a shared
 * counter and runs its tasks in order, so tasks of one bucket never run
 * concurrently and at most `parallelism` buckets run at once.  Each running
 * task gets memory_budget / workers bytes.  When a task fails, the failure
 * flag stops workers from taking further chains (queued buckets are
 * skipped); chains already started finish.  Afterwards every result of a
 * failed run is aborted (outputs deleted) and the first error in task order
 * is returned with its cause.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/pool.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"

typedef struct chain {
    size_t first; /* index into order[] */
    size_t n;
} chain;

typedef struct run_ctx {
    pm_table *t;
    const pm_compact_plan *p;
    int64_t budget;
    size_t *order;            /* task indexes grouped by bucket */
    chain *chains;
    size_t nchains;
    atomic_size_t next;
    atomic_bool failed;
    pm_compact_result **results;
    pm_error **errors;
    pm_compact_progress_fn progress;
    void *progress_ctx;
    pthread_mutex_t mu;       /* serializes progress callbacks */
    size_t done;
} run_ctx;

static void run_worker(void *arg)
{
    run_ctx *c = arg;
    for (;;) {
        if (atomic_load(&c->failed))
            return;
        size_t k = atomic_fetch_add(&c->next, 1);
        if (k >= c->nchains)
            return;
        const chain *ch = &c->chains[k];
        for (size_t i = 0; i < ch->n; i++) {
            size_t ti = c->order[ch->first + i];
            const pm_compact_task *task = c->p->tasks[ti];
            pm_error *e = pm_compact_execute_with_budget(&c->results[ti], c->t, task, c->budget);
            if (e) {
                c->errors[ti] = e;
                atomic_store(&c->failed, true);
            }
            pthread_mutex_lock(&c->mu);
            c->done++;
            if (c->progress)
                c->progress(c->progress_ctx, c->done, c->p->ntasks, c->results[ti]);
            pthread_mutex_unlock(&c->mu);
            if (e)
                break; /* later tasks of this bucket depend on this one's order */
        }
    }
}

static pm_error *build_chains(run_ctx *c)
{
    const pm_compact_plan *p = c->p;
    size_t n = p->ntasks;
    PM_TRY(pm_calloc(&c->order, n, sizeof *c->order));
    PM_TRY(pm_calloc(&c->chains, n, sizeof *c->chains));
    bool *used;
    PM_TRY(pm_calloc(&used, n, 1));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (used[i])
            continue;
        chain *ch = &c->chains[c->nchains++];
        ch->first = k;
        if (p->tasks[i]->mode == PM_COMPACT_MODE_UNAWARE) {
            used[i] = true;
            c->order[k++] = i;
            ch->n = 1;
            continue;
        }
        for (size_t j = i; j < n; j++) {
            if (used[j] || p->tasks[j]->bucket != p->tasks[i]->bucket ||
                !pm_compact_bytes_equal(&p->tasks[j]->partition, &p->tasks[i]->partition))
                continue;
            used[j] = true;
            c->order[k++] = j;
            ch->n++;
        }
    }
    free(used);
    return NULL;
}

pm_error *pm_compact_execute_all(pm_table *t, const pm_compact_plan *p, pm_resources *r, size_t parallelism,
                                 pm_compact_progress_fn progress, void *progress_ctx, pm_compact_result ***out)
{
    *out = NULL;
    if (!p->ntasks)
        return NULL;
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.p = p;
    c.progress = progress;
    c.progress_ctx = progress_ctx;
    atomic_init(&c.next, 0);
    atomic_init(&c.failed, false);
    pthread_mutex_init(&c.mu, NULL);
    pm_error *e = NULL;
    pm_task_group *g = NULL;
    PM_TRY_GOTO(e, pm_calloc(&c.results, p->ntasks, sizeof *c.results), done);
    PM_TRY_GOTO(e, pm_calloc(&c.errors, p->ntasks, sizeof *c.errors), done);
    PM_TRY_GOTO(e, build_chains(&c), done);
    pm_pool *pool = r ? r->pool : NULL;
    size_t workers = parallelism ? parallelism : 1;
    if (pool && workers > pm_pool_threads(pool))
        workers = pm_pool_threads(pool);
    if (!pool)
        workers = 1;
    if (workers > c.nchains)
        workers = c.nchains;
    int64_t budget = r ? r->memory_budget : 256LL << 20;
    c.budget = budget / (int64_t)workers;
    if (pool && workers > 1) {
        PM_TRY_GOTO(e, pm_group_new(&g), done);
        size_t submitted = 0;
        for (size_t i = 0; i < workers; i++) {
            e = pm_pool_submit(pool, g, run_worker, &c);
            if (e)
                break;
            submitted++;
        }
        if (e && submitted)
            atomic_store(&c.failed, true);
        pm_group_wait(g);
        if (e)
            goto done;
    } else {
        run_worker(&c);
    }
    /* first error in task order; other errors are dropped */
    for (size_t i = 0; i < p->ntasks && !e; i++)
        if (c.errors[i]) {
            e = c.errors[i];
            c.errors[i] = NULL;
        }
done:
    if (e && c.results) {
        size_t nres = 0;
        for (size_t i = 0; i < p->ntasks; i++)
            if (c.results[i])
                c.results[nres++] = c.results[i];
        pm_error *ae = pm_compact_abort(t, c.results, nres);
        if (ae)
            e = pm_error_wrap(e, 0, "(cleanup also failed: %s)", pm_error_message(ae));
        pm_error_free(ae);
        for (size_t i = 0; i < nres; i++)
            pm_compact_result_free(c.results[i]);
        free(c.results);
        c.results = NULL;
    }
    if (c.errors)
        for (size_t i = 0; i < p->ntasks; i++)
            pm_error_free(c.errors[i]);
    free(c.errors);
    free(c.order);
    free(c.chains);
    pm_group_free(g);
    pthread_mutex_destroy(&c.mu);
    if (!e)
        *out = c.results;
    return e;
}

void pm_compact_results_free(pm_compact_result **r, size_t n)
{
    if (!r)
        return;
    for (size_t i = 0; i < n; i++)
        pm_compact_result_free(r[i]);
    free(r);
}

pm_error *pm_compact_run_plan(pm_compact_metrics *out, pm_table *t, const pm_compact_plan *p, pm_resources *r,
                              size_t parallelism, pm_compact_progress_fn progress, void *progress_ctx)
{
    uint64_t t0 = pm_monotonic_ns();
    pm_compact_metrics m;
    memset(&m, 0, sizeof m);
    if (out)
        *out = m;
    if (!p->ntasks)
        return NULL;
    pm_compact_result **res = NULL;
    PM_TRY(pm_compact_execute_all(t, p, r, parallelism, progress, progress_ctx, &res));
    pm_error *e = pm_compact_commit(&m, t, p->commit_user, res, p->ntasks);
    if (e && pm_error_code(e) != PM_EUNCERTAIN) {
        /* definitely not published: the outputs will never be referenced */
        pm_error *ae = pm_compact_abort(t, res, p->ntasks);
        if (ae)
            e = pm_error_wrap(e, 0, "(cleanup also failed: %s)", pm_error_message(ae));
        pm_error_free(ae);
    }
    pm_compact_results_free(res, p->ntasks);
    m.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    if (out && !e)
        *out = m;
    return e;
}

pm_error *pm_compact_run(pm_compact_metrics *out, pm_compact_builder *b)
{
    uint64_t t0 = pm_monotonic_ns();
    if (out)
        memset(out, 0, sizeof *out);
    pm_compact_plan *p = NULL;
    PM_TRY(pm_compact_plan_new(&p, b));
    size_t par = b->resources && b->resources->threads ? b->resources->threads : 1;
    pm_error *e = pm_compact_run_plan(out, b->table, p, b->resources, par, NULL, NULL);
    pm_compact_plan_free(p);
    if (out && !e)
        out->duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    return e;
}
