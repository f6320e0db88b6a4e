/*
 * examples/compact_distributed.c — compaction split between a coordinator
 * and workers that exchange only JSON text (paimon/compact.h).
 *
 *   compact_distributed TABLE_PATH
 *
 * The coordinator plans and serializes the plan; each task travels as its
 * own JSON document to a worker, which opens the table by path, executes
 * the task and answers with the result's JSON; the coordinator reads the
 * results back and commits them in one COMPACT snapshot.  Here the
 * "workers" run one after another in this process and the documents stay
 * in memory; between machines they would be files or HTTP bodies.  A worker
 * needs nothing from the coordinator but the task text and the table path.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paimon/compact.h>
#include <paimon/error.h>
#include <paimon/table.h>

static int report(pm_error *e, const char *what)
{
    char *msg = pm_error_format(e);
    fprintf(stderr, "%s failed (%s): %s\n", what, pm_code_name(pm_error_code(e)), msg ? msg : "?");
    free(msg);
    pm_error_free(e);
    return 1;
}

/* The worker: task JSON in, result JSON out (malloc'd). */
static pm_error *worker(const char *table_path, const char *task_json, char **result_json)
{
    pm_table *t = NULL;
    pm_compact_task *task = NULL;
    pm_compact_result *r = NULL;
    pm_error *e = pm_table_open(&t, table_path, NULL);
    if (!e)
        e = pm_compact_task_from_json(&task, task_json, strlen(task_json));
    if (!e)
        e = pm_compact_execute(&r, t, task, NULL);
    if (!e) {
        e = pm_compact_result_to_json(result_json, r);
        if (e) /* the result cannot be sent: its files would be orphans */
            pm_error_free(pm_compact_abort(t, &r, 1));
    }
    pm_compact_result_free(r);
    pm_compact_task_free(task);
    pm_table_free(t);
    return e;
}

/* The coordinator's first half: plan, as JSON documents, one per task. */
static pm_error *plan_tasks(pm_table *t, char ***tasks, size_t *ntasks, int64_t *snapshot)
{
    pm_compact_options o = {.version = PM_COMPACT_OPTIONS_VERSION, .commit_user = "example-distributed"};
    pm_compact_builder *b = NULL;
    pm_compact_plan *p = NULL, *copy = NULL;
    char *plan_json = NULL;
    *tasks = NULL;
    *ntasks = 0;
    pm_error *e = pm_compact_builder_new(&b, t, &o);
    if (!e)
        e = pm_compact_plan_new(&p, b);
    /* A plan survives a round trip through JSON (e.g. a coordinator that
     * restarts); the tasks are taken from the copy read back. */
    if (!e)
        e = pm_compact_plan_to_json(&plan_json, p);
    if (!e)
        e = pm_compact_plan_from_json(&copy, plan_json, strlen(plan_json));
    if (!e) {
        printf("plan: %zu bytes of JSON, snapshot %" PRId64 ", %zu task(s)\n", strlen(plan_json),
               pm_compact_plan_snapshot_id(copy), pm_compact_plan_task_count(copy));
        *snapshot = pm_compact_plan_snapshot_id(copy);
        size_t n = pm_compact_plan_task_count(copy);
        *tasks = calloc(n ? n : 1, sizeof **tasks); /* NULL entries free fine */
        if (!*tasks)
            e = pm_error_new(PM_ENOMEM, "task list");
        else
            *ntasks = n;
        for (size_t i = 0; !e && i < n; i++)
            e = pm_compact_task_to_json(&(*tasks)[i], pm_compact_plan_task(copy, i));
    }
    free(plan_json);
    pm_compact_plan_free(copy);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    return e;
}

static void free_texts(char **texts, size_t n)
{
    for (size_t i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TABLE_PATH\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    pm_table *t = NULL;
    char **tasks = NULL;
    size_t ntasks = 0, nresults = 0;
    pm_compact_result **results = NULL;
    int64_t snapshot = 0;
    int rc = 0;
    bool keep = false; /* the outcome of the commit is unknown: keep the files */
    pm_error *e = pm_table_open(&t, path, NULL);
    if (e)
        return report(e, "open table");
    if ((e = plan_tasks(t, &tasks, &ntasks, &snapshot))) {
        rc = report(e, "plan");
        goto done;
    }
    if (ntasks == 0) {
        printf("nothing to compact\n");
        goto done;
    }

    /* Send each task to a worker; read each answer back into a result. */
    results = calloc(ntasks, sizeof *results);
    if (!results) {
        rc = report(pm_error_new(PM_ENOMEM, "results"), "execute");
        goto done;
    }
    for (size_t i = 0; i < ntasks; i++) {
        char *answer = NULL;
        if ((e = worker(path, tasks[i], &answer))) {
            rc = report(e, "worker");
            goto done;
        }
        printf("worker %zu: task %zu bytes -> result %zu bytes\n", i, strlen(tasks[i]), strlen(answer));
        e = pm_compact_result_from_json(&results[nresults], answer, strlen(answer));
        free(answer);
        if (e) {
            rc = report(e, "read result");
            goto done;
        }
        nresults++;
    }

    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    if ((e = pm_compact_commit(&m, t, NULL, results, nresults))) {
        keep = pm_error_code(e) == PM_EUNCERTAIN; /* retry the commit instead */
        rc = report(e, "commit");
        goto done;
    }
    printf("committed snapshot %" PRId64 " (planned on %" PRId64 "): %" PRId64 " file(s) removed, %" PRId64
           " added\n",
           m.snapshot_id, snapshot, m.files_removed, m.files_added);

done:
    /* Results that will never be committed: delete their prepared files. */
    if (rc && nresults && !keep) {
        pm_error *a = pm_compact_abort(t, results, nresults);
        if (a)
            report(a, "abort");
    }
    for (size_t i = 0; i < nresults; i++)
        pm_compact_result_free(results[i]);
    free(results);
    free_texts(tasks, ntasks);
    pm_table_free(t);
    return rc;
}
