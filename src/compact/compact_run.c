/*
 * compact/compact_run.c — executing one task (the checks every task gets,
 * then its mode's executor), a whole plan, and the one-call pm_compact_run
 * (plan → execute → commit).
 *
 * Checks before a task runs: the task names this table, its mode is the
 * table's, it carries its mode's part (which agrees with the task), it has
 * inputs, every file it names is a plain file name and every external
 * path lies under the table's data-file.external-paths.
 *
 * Scheduling: when the tasks' mode orders buckets (ordered_buckets:
 * append-bucketed windows follow each other in sequence order, primary-key
 * levels) they are grouped into chains by (partition, bucket), in plan
 * order; otherwise (append-unaware: disjoint inputs and DV index files, no
 * order between tasks) each task is its own chain.  min(parallelism, pool
 * threads, chains) workers run on the resources' pool (or inline without
 * one); each worker takes the next chain from a shared counter and runs
 * its tasks in order, so tasks of one bucket never run concurrently and at
 * most `parallelism` buckets run at once.  Each running
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

#include "base/buf_pool.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/util.h"
#include "compact/compact_auto.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"
#include "table/table_internal.h"

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
    bool release_inputs;      /* free a task's input list once its result holds it */
} run_ctx;

/* A task's input list once its result holds its own (the result's inputs
 * share the metas' packed blocks): the plan's copy is not kept until the
 * commit, which reads the results.  The task keeps its scalars (bucket,
 * partition) for the scheduling of the others. */
static void release_task_inputs(pm_compact_task *task)
{
    pm_data_file_metas_free(task->files, task->nfiles);
    task->files = NULL;
    task->nfiles = 0;
}

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
            if (!e && c->release_inputs)
                release_task_inputs(c->p->tasks[ti]);
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
        if (!p->tasks[i]->mode->ordered_buckets) {
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

static pm_error *execute_all(pm_table *t, const pm_compact_plan *p, pm_resources *r, size_t parallelism,
                             pm_compact_progress_fn progress, void *progress_ctx, bool release_inputs,
                             pm_compact_result ***out)
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
    c.release_inputs = release_inputs;
    atomic_init(&c.next, 0);
    atomic_init(&c.failed, false);
    pthread_mutex_init(&c.mu, NULL);
    pm_error *e = NULL;
    pm_task_group *g = NULL;
    PM_TRY_GOTO(e, pm_calloc(&c.results, p->ntasks, sizeof *c.results), done);
    PM_TRY_GOTO(e, pm_calloc(&c.errors, p->ntasks, sizeof *c.errors), done);
    PM_TRY_GOTO(e, build_chains(&c), done);
    pm_pool *pool = r ? r->pool : NULL;
    size_t workers = pool ? pm_pool_threads(pool) : 1;
    if (parallelism && workers > parallelism)
        workers = parallelism;
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

pm_error *pm_compact_execute_all(pm_table *t, const pm_compact_plan *p, pm_resources *r, size_t parallelism,
                                 pm_compact_progress_fn progress, void *progress_ctx, pm_compact_result ***out)
{
    return execute_all(t, p, r, parallelism, progress, progress_ctx, false, out);
}

void pm_compact_results_free(pm_compact_result **r, size_t n)
{
    if (!r)
        return;
    for (size_t i = 0; i < n; i++)
        pm_compact_result_free(r[i]);
    free(r);
}

pm_error *pm_compact_run_plan(pm_compact_metrics *out, pm_table *t, pm_compact_plan *p, pm_resources *r,
                              size_t parallelism, pm_compact_progress_fn progress, void *progress_ctx)
{
    uint64_t t0 = pm_monotonic_ns();
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    if (out)
        *out = m;
    if (!p->ntasks)
        return NULL;
    pm_compact_result **res = NULL;
    PM_TRY(execute_all(t, p, r, parallelism, progress, progress_ctx, true, &res));
    /* the writers are done: their spare page buffers need not stay resident
     * through the commit, which holds every input's entry */
    pm_buf_pool_trim(t->buffers);
    pm_error *e = pm_compact_commit_scanned(&m, t, p->commit_user, res, p->ntasks, p->scan);
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

/* Independent chains of a plan (what parallelism can use). */
static size_t count_chains(const pm_compact_plan *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->ntasks; i++) {
        const pm_compact_task *t = p->tasks[i];
        bool seen = false;
        for (size_t k = 0; k < i && !seen && t->mode->ordered_buckets; k++)
            seen = p->tasks[k]->bucket == t->bucket && pm_compact_bytes_equal(&p->tasks[k]->partition, &t->partition);
        n += !seen;
    }
    return n;
}

pm_error *pm_compact_run(pm_compact_metrics *out, pm_compact_builder *b)
{
    PM_TRY(pm_compact_metrics_check(out));
    const pm_compact_mode_ops *mode = NULL;
    PM_TRY(pm_compact_table_mode(b->table, &mode));
    if (mode->run) {
        bool done = false;
        PM_TRY(mode->run(out, b, &done));
        if (done)
            return NULL;
    }
    uint64_t t0 = pm_monotonic_ns();
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_compact_metrics_put(out, &m);
    pm_compact_plan *p = NULL;
    PM_TRY(pm_compact_plan_new(&p, b));
    pm_resources *res = b->resources, *owned = NULL;
    pm_error *e = NULL;
    if (!res && p->ntasks) {
        /* our own pool: no more threads than the plan can use */
        size_t threads = b->parallelism;
        if (!threads) {
            threads = pm_cpu_count();
            if (threads > 4)
                threads = 4;
        }
        size_t chains = count_chains(p);
        if (threads > chains)
            threads = chains;
        e = pm_resources_new(&owned, 256LL << 20, threads > 1 ? threads : 0);
        res = owned;
    }
    if (!e)
        e = pm_compact_run_plan(&m, b->table, p, res, b->parallelism, b->progress, b->progress_ctx);
    int64_t base = m.snapshot_id ? m.snapshot_id : p->snapshot_id;
    char *user = NULL;
    if (!e)
        e = pm_strdup(&user, p->commit_user ? p->commit_user : "paimon-c");
    pm_compact_plan_free(p);
    pm_resources_free(owned);
    if (e) {
        free(user);
        return e;
    }
    m.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    pm_compact_metrics_put(out, &m);
    /* explicit compaction maintains declared global indexes (write-only=false) */
    bool write_only = false;
    e = pm_options_bool(pm_table_options(b->table), PM_OPT_WRITE_ONLY, &write_only);
    if (!e && !write_only && base)
        e = pm_error_wrap(pm_compact_global_index_round(b->table, base, user), 0,
                          "global index maintenance after compaction failed (the compaction, snapshot %lld, stays "
                          "committed)", (long long)m.snapshot_id);
    free(user);
    return e;
}

/* ------------------------------------------------------------------ */
/* one task                                                            */

pm_error *pm_compact_execute_with_budget(pm_compact_result **out, pm_table *t, const pm_compact_task *task,
                                         int64_t memory_budget)
{
    *out = NULL;
    if (!pm_compact_same_table(task->table_path, pm_table_path(t)))
        return pm_error_new(PM_EINVALID, "task.table: task %lld belongs to table %s, not %s",
                            (long long)task->task_index, task->table_path, pm_table_path(t));
    const pm_compact_mode_ops *mode = NULL;
    PM_TRY(pm_compact_table_mode(t, &mode));
    if (mode != task->mode)
        return pm_error_new(PM_ECONFLICT, "compaction conflict, replan: the table's mode is %s, the task's %s",
                            mode->name, task->mode->name);
    if (!task->nfiles)
        return pm_error_new(PM_EINVALID, "task.files: task %lld has no input files", (long long)task->task_index);
    PM_TRY(pm_compact_part_expected(mode, task->part, "task"));
    if (task->part)
        PM_TRY(mode->part_check(task, "task"));
    PM_TRY(pm_compact_task_check_files(task, "task", true, pm_compact_external_roots(t)));
    return mode->execute(out, t, task, memory_budget);
}

pm_error *pm_compact_execute(pm_compact_result **out, pm_table *t, const pm_compact_task *task, pm_resources *res)
{
    int64_t budget = res ? res->memory_budget : 256LL << 20;
    return pm_compact_execute_with_budget(out, t, task, budget);
}
