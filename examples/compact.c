/*
 * examples/compact.c — compact a table in one process (paimon/compact.h).
 *
 *   compact TABLE_PATH
 *
 * The three stages, each visible: a builder with options, a plan (captures
 * the latest snapshot and picks the files by the table's rules; writes
 * nothing), the execution of every task (each rewrites its files into new
 * private files; publishes nothing), and one commit that publishes all
 * results as a single COMPACT snapshot.  If anything fails after a task
 * ran, the prepared files are deleted with pm_compact_abort -- unless the
 * commit's outcome is unknown (PM_EUNCERTAIN), when they must be kept.
 * (pm_compact_run does all of this in one call.)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TABLE_PATH\n", argv[0]);
        return 2;
    }
    pm_table *t = NULL;
    pm_compact_builder *b = NULL;
    pm_compact_plan *plan = NULL;
    pm_compact_result **results = NULL;
    size_t ntasks = 0, executed = 0;
    int rc = 0;
    bool keep = false; /* the outcome of a commit is unknown: keep the files */
    pm_error *e = pm_table_open(&t, argv[1], NULL);
    if (e)
        return report(e, "open table");

    pm_compact_options o = {
        .version = PM_COMPACT_OPTIONS_VERSION,
        .commit_user = "example-compact", /* stable, so a retried commit is idempotent */
        .full = false,                    /* the table's normal compaction rules */
    };
    if ((e = pm_compact_builder_new(&b, t, &o)) || (e = pm_compact_plan_new(&plan, b))) {
        rc = report(e, "plan");
        goto done;
    }
    ntasks = pm_compact_plan_task_count(plan);
    printf("plan %s: snapshot %" PRId64 ", %zu task(s)\n", pm_compact_plan_id(plan),
           pm_compact_plan_snapshot_id(plan), ntasks);
    if (ntasks == 0) {
        printf("nothing to compact\n");
        goto done;
    }

    results = calloc(ntasks, sizeof *results);
    if (!results) {
        rc = report(pm_error_new(PM_ENOMEM, "results"), "execute");
        goto done;
    }
    for (; executed < ntasks; executed++) {
        /* NULL resources: the library's default memory budget and threads. */
        if ((e = pm_compact_execute(&results[executed], t, pm_compact_plan_task(plan, executed), NULL))) {
            rc = report(e, "execute");
            goto done;
        }
    }
    printf("executed %zu task(s)\n", executed);

    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    if ((e = pm_compact_commit(&m, t, NULL, results, executed))) {
        /* PM_EUNCERTAIN: the snapshot may have been published; retrying the
         * same commit is safe, deleting the files is not. */
        keep = pm_error_code(e) == PM_EUNCERTAIN;
        rc = report(e, "commit");
        goto done;
    }
    printf("committed snapshot %" PRId64 ": %" PRId64 " file(s) removed, %" PRId64 " added, %" PRId64
           " row(s) written\n",
           m.snapshot_id, m.files_removed, m.files_added, m.rows_written);

done:
    /* Results that will never be committed: delete their prepared files. */
    if (rc && executed && !keep) {
        pm_error *a = pm_compact_abort(t, results, executed);
        if (a)
            report(a, "abort");
    }
    for (size_t i = 0; i < executed; i++)
        pm_compact_result_free(results[i]);
    free(results);
    pm_compact_plan_free(plan);
    pm_compact_builder_free(b);
    pm_table_free(t);
    return rc;
}
