/*
 * cli/cmd_compact.c — compaction commands, on paimon/compact.h.
 *
 *   paimon compact TABLE [--partition k=v[,k2=v2]]... [--full] [--parallelism N]
 *                  [--memory BYTES] [--option k=v]... [--json] [--commit-user U]
 *       plan, execute and commit in one process; prints tasks, files and
 *       bytes before → after, the COMPACT snapshot and the duration (a
 *       progress bar on stderr when it is a terminal); --json prints the
 *       metrics as one JSON object instead.
 *   paimon compact-plan TABLE [--partition ..]... [--full] [--option k=v]... [--commit-user U]
 *       prints the plan JSON (publishes nothing)
 *   paimon compact-exec PLAN.json --task I      (or TASK.json)
 *       runs one task of the plan (opening the table the plan names) and
 *       prints the result JSON (publishes nothing)
 *   paimon compact-commit TABLE RESULT.json... [--commit-user U] [--json]
 *       publishes the results (of one plan) in one COMPACT snapshot
 *   paimon compact-abort [TABLE] RESULT.json...
 *       deletes the prepared files of results that will not be committed
 * --option k=v overrides a table option for this compaction (planning
 * thresholds, output size), like the options of Java's compact procedure.
 * Plans, tasks and results are untrusted input: the library checks that
 * every file they name stays inside their table.  Errors go to stderr with
 * a non-zero exit code (1 failure, 2 usage).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "paimon/compact.h"
#include "paimon/options.h"
#include "paimon/read.h"

#define MAX_PARALLELISM 1024

static void print_metrics_json(const pm_compact_metrics *m)
{
    printf("{\"snapshot_id\":%" PRId64 ",\"tasks\":%" PRId64 ",\"files_removed\":%" PRId64 ",\"files_added\":%" PRId64
           ",\"rows_read\":%" PRId64 ",\"rows_written\":%" PRId64 ",\"bytes_read\":%" PRId64 ",\"bytes_written\":%" PRId64
           ",\"duration_ms\":%" PRId64 "}\n",
           m->snapshot_id, m->tasks, m->files_removed, m->files_added, m->rows_read, m->rows_written, m->bytes_read,
           m->bytes_written, m->duration_ms);
}

static void print_metrics_text(const pm_compact_metrics *m, const char *what)
{
    char a[32], b[32];
    pm_cli_human_bytes(m->bytes_read, a, sizeof a);
    pm_cli_human_bytes(m->bytes_written, b, sizeof b);
    printf("%s %" PRId64 " task%s: %" PRId64 " files (%s, %" PRId64 " rows) -> %" PRId64 " files (%s, %" PRId64
           " rows)\n",
           what, m->tasks, m->tasks == 1 ? "" : "s", m->files_removed, a, m->rows_read, m->files_added, b,
           m->rows_written);
    printf("snapshot %" PRId64 " (COMPACT) in %.3f s\n", m->snapshot_id, (double)m->duration_ms / 1000.0);
}

typedef struct common_args {
    const char *table;
    const char **partitions;
    size_t npartitions;
    const char **options;
    size_t noptions;
    bool full;
    bool json;
    const char *commit_user;
    int64_t parallelism;
    int64_t memory;
    int64_t task;
    const char **files;
    size_t nfiles;
} common_args;

/* Parse the options the compaction commands share; positional arguments go
 * to `files` (the first one to `table` when want_table). */
static int parse_args(const char *cmd, int argc, char **argv, bool want_table, common_args *a)
{
    memset(a, 0, sizeof *a);
    a->task = -1;
    a->partitions = calloc((size_t)argc, sizeof *a->partitions);
    a->files = calloc((size_t)argc, sizeof *a->files);
    a->options = calloc((size_t)argc, sizeof *a->options);
    if (!a->partitions || !a->files || !a->options)
        return pm_cli_fail(cmd, pm_error_new(PM_ENOMEM, "out of memory"));
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool has_value = i + 1 < argc;
        int rc = 0;
        if (!strcmp(s, "--partition")) {
            if (!has_value)
                return pm_cli_usage_error(cmd, "--partition needs k=v");
            pm_error *e = pm_partition_filter_check(argv[++i]);
            if (e)
                return pm_cli_bad_argument(cmd, e);
            a->partitions[a->npartitions++] = argv[i];
        } else if (!strcmp(s, "--option")) {
            if (!has_value || !strchr(argv[i + 1], '=') || argv[i + 1][0] == '=')
                return pm_cli_usage_error(cmd, "--option needs k=v");
            a->options[a->noptions++] = argv[++i];
        } else if (!strcmp(s, "--full")) {
            a->full = true;
        } else if (!strcmp(s, "--json")) {
            a->json = true;
        } else if (!strcmp(s, "--commit-user")) {
            if (!has_value || !*argv[i + 1])
                return pm_cli_usage_error(cmd, "--commit-user needs a value");
            a->commit_user = argv[++i];
        } else if (!strcmp(s, "--memory")) {
            if (!has_value)
                return pm_cli_usage_error(cmd, "--memory needs a value");
            pm_error *e = pm_option_parse_memory_size(&a->memory, argv[++i]);
            if (e || a->memory <= 0) {
                pm_error_free(e);
                return pm_cli_usage_error(cmd, "--memory needs a positive size (e.g. 256mb), got '%s'", argv[i]);
            }
        } else if (!strcmp(s, "--parallelism")) {
            rc = has_value ? pm_cli_parse_int(cmd, s, argv[++i], 1, MAX_PARALLELISM, &a->parallelism)
                           : pm_cli_usage_error(cmd, "%s needs a value", s);
        } else if (!strcmp(s, "--task")) {
            rc = has_value ? pm_cli_parse_int(cmd, s, argv[++i], 0, INT32_MAX, &a->task)
                           : pm_cli_usage_error(cmd, "%s needs a value", s);
        } else if (s[0] == '-' && s[1]) {
            return pm_cli_usage_error(cmd, "unknown option '%s'", s);
        } else if (want_table && !a->table) {
            a->table = s;
        } else {
            a->files[a->nfiles++] = s;
        }
        if (rc)
            return rc;
    }
    return 0;
}

static void free_args(common_args *a)
{
    free(a->partitions);
    free(a->files);
    free(a->options);
}

static void compact_options(const common_args *a, pm_resources *res, pm_compact_options *o)
{
    pm_compact_options_init(o);
    o->commit_user = a->commit_user;
    o->partitions = a->partitions;
    o->npartitions = a->npartitions;
    o->full = a->full;
    o->resources = res;
    o->dynamic_options = a->options;
    o->ndynamic_options = a->noptions;
}

/* ------------------------------------------------------------------ */
/* progress                                                            */

typedef struct progress {
    bool tty;
    struct timespec start;
} progress;

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void on_progress(void *ctx, size_t done, size_t total, const pm_compact_result *r)
{
    (void)r;
    progress *p = ctx;
    if (!p->tty)
        return;
    int width = 30;
    int fill = total ? (int)((double)done / (double)total * width) : width;
    fprintf(stderr, "\r[%.*s%*s] %zu/%zu tasks %.1fs", fill, "##############################", width - fill, "",
            done, total, seconds_since(&p->start));
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

/* ------------------------------------------------------------------ */
/* paimon compact                                                      */

static void usage_compact(FILE *f)
{
    fprintf(f, "usage: paimon compact TABLE [--partition k=v[,k2=v2]]... [--full] [--parallelism N]\n"
               "                      [--memory SIZE] [--option k=v]... [--json] [--commit-user U]\n\n"
               "Compact a table: plan, execute and commit one COMPACT snapshot.\n"
               "  --partition k=v   only these partitions (repeatable: OR)\n"
               "  --full            full compaction\n"
               "  --parallelism N   buckets compacted at once, 1..%d (default: CPUs, at most 4; never more\n"
               "                    than the buckets to compact)\n"
               "  --memory SIZE     memory budget shared by the running tasks (default 256mb)\n"
               "  --option k=v      table option for this compaction only (e.g. compaction.min.file-num=2)\n"
               "  --json            print the metrics as JSON\n"
               "  --commit-user U   commit user (default: random); retries with the same user are idempotent\n",
            MAX_PARALLELISM);
}

static pm_error *make_resources(const common_args *a, pm_resources **out)
{
    size_t threads = a->parallelism > 0 ? (size_t)a->parallelism : pm_cli_cpu_count();
    if (a->parallelism <= 0 && threads > 4)
        threads = 4;
    return pm_resources_new(out, a->memory > 0 ? a->memory : 256LL << 20, threads);
}

int pm_cmd_compact(int argc, char **argv)
{
    const char *cmd = "compact";
    if (pm_cli_wants_help(argc, argv)) {
        usage_compact(stdout);
        return 0;
    }
    common_args a;
    int rc = parse_args(cmd, argc, argv, true, &a);
    if (!rc && (!a.table || a.nfiles || a.task >= 0))
        rc = pm_cli_usage_error(cmd, a.table ? "unexpected arguments" : "missing TABLE");
    if (rc) {
        free_args(&a);
        return rc;
    }
    pm_table *t = NULL;
    pm_resources *res = NULL;
    pm_compact_builder *b = NULL;
    pm_error *e = NULL;
    progress pr = {isatty(STDERR_FILENO) && !a.json, {0, 0}};
    clock_gettime(CLOCK_MONOTONIC, &pr.start);
    PM_TRY_GOTO(e, pm_table_open(&t, a.table, NULL), done);
    PM_TRY_GOTO(e, make_resources(&a, &res), done);
    pm_compact_options o;
    compact_options(&a, res, &o);
    o.progress = on_progress;
    o.progress_ctx = &pr;
    o.parallelism = (size_t)a.parallelism;
    PM_TRY_GOTO(e, pm_compact_builder_new(&b, t, &o), done);
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_TRY_GOTO(e, pm_compact_run(&m, b), done);
    if (a.json)
        print_metrics_json(&m);
    else if (m.snapshot_id)
        print_metrics_text(&m, "compacted");
    else
        printf("nothing to compact\n");
done:
    pm_compact_builder_free(b);
    pm_resources_free(res);
    pm_table_free(t);
    free_args(&a);
    return e ? pm_cli_fail(cmd, e) : 0;
}

/* ------------------------------------------------------------------ */
/* paimon compact-plan                                                 */

int pm_cmd_compact_plan(int argc, char **argv)
{
    const char *cmd = "compact-plan";
    if (pm_cli_wants_help(argc, argv)) {
        printf("usage: paimon compact-plan TABLE [--partition k=v[,k2=v2]]... [--full] [--option k=v]...\n"
               "                           [--commit-user U]\n\n"
               "Print a compaction plan as JSON (nothing is written).  Run its tasks with\n"
               "'paimon compact-exec PLAN --task I' and publish with 'paimon compact-commit'.\n");
        return 0;
    }
    common_args a;
    int rc = parse_args(cmd, argc, argv, true, &a);
    if (!rc && (!a.table || a.nfiles || a.task >= 0 || a.json || a.parallelism || a.memory))
        rc = pm_cli_usage_error(cmd, a.table ? "unexpected arguments" : "missing TABLE");
    if (rc) {
        free_args(&a);
        return rc;
    }
    pm_table *t = NULL;
    pm_compact_builder *b = NULL;
    pm_compact_plan *p = NULL;
    char *json = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, a.table, NULL), done);
    pm_compact_options o;
    compact_options(&a, NULL, &o);
    PM_TRY_GOTO(e, pm_compact_builder_new(&b, t, &o), done);
    PM_TRY_GOTO(e, pm_compact_plan_new(&p, b), done);
    PM_TRY_GOTO(e, pm_compact_plan_to_json(&json, p), done);
    printf("%s\n", json);
    if (fflush(stdout))
        e = pm_error_new(PM_EIO, "write the plan: %s", strerror(errno));
done:
    free(json);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    pm_table_free(t);
    free_args(&a);
    return e ? pm_cli_fail(cmd, e) : 0;
}

/* ------------------------------------------------------------------ */
/* paimon compact-exec                                                 */

int pm_cmd_compact_exec(int argc, char **argv)
{
    const char *cmd = "compact-exec";
    if (pm_cli_wants_help(argc, argv)) {
        printf("usage: paimon compact-exec PLAN.json --task I [--memory SIZE]\n"
               "       paimon compact-exec TASK.json [--memory SIZE]\n\n"
               "Run one compaction task and print its result as JSON.  The table is opened by the path\n"
               "the plan names; the output files stay private until 'paimon compact-commit'.\n");
        return 0;
    }
    common_args a;
    int rc = parse_args(cmd, argc, argv, false, &a);
    if (!rc && a.nfiles != 1)
        rc = pm_cli_usage_error(cmd, "expected one PLAN.json or TASK.json");
    if (rc) {
        free_args(&a);
        return rc;
    }
    char *text = NULL;
    size_t len = 0;
    pm_compact_plan *p = NULL;
    pm_compact_task *own = NULL;
    const pm_compact_task *task = NULL;
    pm_table *t = NULL;
    pm_resources *res = NULL;
    pm_compact_result *r = NULL;
    char *json = NULL;
    pm_error *e = NULL;
    pm_compact_doc_kind kind;
    PM_TRY_GOTO(e, pm_cli_read_file(a.files[0], &text, &len), done);
    PM_TRY_GOTO(e, pm_error_wrap(pm_compact_doc_kind_of(&kind, text, len), 0, "%s", a.files[0]), done);
    if (kind == PM_COMPACT_DOC_TASK) {
        PM_TRY_GOTO(e, pm_compact_task_from_json(&own, text, len), done);
        task = own;
        if (a.task >= 0 && (size_t)a.task != pm_compact_task_index(own)) {
            e = pm_error_new(PM_EINVALID, "%s holds task %zu, not %" PRId64, a.files[0], pm_compact_task_index(own),
                             a.task);
            goto done;
        }
    } else if (kind == PM_COMPACT_DOC_PLAN) {
        PM_TRY_GOTO(e, pm_compact_plan_from_json(&p, text, len), done);
        if (a.task < 0) {
            e = pm_error_new(PM_EINVALID, "--task I is required with a plan");
            goto done;
        }
        task = pm_compact_plan_task(p, (size_t)a.task);
        if (!task) {
            e = pm_error_new(PM_EINVALID, "the plan has %zu task(s); there is no task %" PRId64,
                             pm_compact_plan_task_count(p), a.task);
            goto done;
        }
    } else {
        e = pm_error_new(PM_EINVALID, "%s is a compaction result, not a plan or a task", a.files[0]);
        goto done;
    }
    PM_TRY_GOTO(e, pm_table_open(&t, pm_compact_task_table_path(task), NULL), done);
    PM_TRY_GOTO(e, pm_resources_new(&res, a.memory > 0 ? a.memory : 256LL << 20, 0), done);
    PM_TRY_GOTO(e, pm_compact_execute(&r, t, task, res), done);
    PM_TRY_GOTO(e, pm_compact_result_to_json(&json, r), done);
    printf("%s\n", json);
    if (fflush(stdout)) {
        e = pm_error_new(PM_EIO, "write the result: %s", strerror(errno));
        pm_error_free(pm_compact_abort(t, &r, 1));
    }
done:
    free(json);
    pm_compact_result_free(r);
    pm_resources_free(res);
    pm_table_free(t);
    pm_compact_task_free(own);
    pm_compact_plan_free(p);
    free(text);
    free_args(&a);
    return e ? pm_cli_fail(cmd, e) : 0;
}

/* ------------------------------------------------------------------ */
/* paimon compact-commit / compact-abort                               */

static void free_results(pm_compact_result **r, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        pm_compact_result_free(r[i]);
    free(r);
}

static pm_error *load_results(const common_args *a, pm_compact_result ***out)
{
    *out = NULL;
    pm_compact_result **r = calloc(a->nfiles ? a->nfiles : 1, sizeof *r);
    if (!r)
        return pm_error_new(PM_ENOMEM, "out of memory");
    pm_error *e = NULL;
    for (size_t i = 0; i < a->nfiles && !e; i++) {
        char *text = NULL;
        size_t len = 0;
        e = pm_cli_read_file(a->files[i], &text, &len);
        if (!e)
            e = pm_error_wrap(pm_compact_result_from_json(&r[i], text, len), 0, "%s", a->files[i]);
        free(text);
    }
    if (e) {
        free_results(r, a->nfiles);
        return e;
    }
    *out = r;
    return NULL;
}

int pm_cmd_compact_commit(int argc, char **argv)
{
    const char *cmd = "compact-commit";
    if (pm_cli_wants_help(argc, argv)) {
        printf("usage: paimon compact-commit TABLE RESULT.json... [--commit-user U] [--json]\n\n"
               "Publish compaction results of one plan as one COMPACT snapshot.  Re-running with the same\n"
               "results (any order) and commit user is idempotent.  Exit code 1 with [ECONFLICT] means the\n"
               "inputs changed: make a new plan.  [EUNCERTAIN] means keep the files and retry.\n");
        return 0;
    }
    common_args a;
    int rc = parse_args(cmd, argc, argv, true, &a);
    if (!rc && (!a.table || !a.nfiles))
        rc = pm_cli_usage_error(cmd, !a.table ? "missing TABLE" : "missing RESULT.json");
    if (rc) {
        free_args(&a);
        return rc;
    }
    pm_compact_result **r = NULL;
    pm_table *t = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, load_results(&a, &r), done);
    PM_TRY_GOTO(e, pm_table_open(&t, a.table, NULL), done);
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_TRY_GOTO(e, pm_compact_commit(&m, t, a.commit_user, r, a.nfiles), done);
    if (a.json)
        print_metrics_json(&m);
    else
        print_metrics_text(&m, "committed");
done:
    free_results(r, a.nfiles);
    pm_table_free(t);
    free_args(&a);
    return e ? pm_cli_fail(cmd, e) : 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

int pm_cmd_compact_abort(int argc, char **argv)
{
    const char *cmd = "compact-abort";
    if (pm_cli_wants_help(argc, argv)) {
        printf("usage: paimon compact-abort [TABLE] RESULT.json...\n\n"
               "Delete the prepared files of compaction results that will never be committed: only files\n"
               "the results could have produced in that table, never a live one.  Results already\n"
               "committed are refused.  TABLE defaults to the table the results name.\n");
        return 0;
    }
    common_args a;
    int rc = parse_args(cmd, argc, argv, false, &a);
    const char *table = NULL;
    if (!rc && a.nfiles && !ends_with(a.files[0], ".json") && strcmp(a.files[0], "-")) {
        table = a.files[0];
        memmove(a.files, a.files + 1, (a.nfiles - 1) * sizeof *a.files);
        a.nfiles--;
    }
    if (!rc && !a.nfiles)
        rc = pm_cli_usage_error(cmd, "missing RESULT.json");
    if (rc) {
        free_args(&a);
        return rc;
    }
    pm_compact_result **r = NULL;
    pm_table *t = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, load_results(&a, &r), done);
    PM_TRY_GOTO(e, pm_table_open(&t, table ? table : pm_compact_result_table_path(r[0]), NULL), done);
    PM_TRY_GOTO(e, pm_compact_abort(t, r, a.nfiles), done);
    size_t files = 0;
    for (size_t i = 0; i < a.nfiles; i++)
        files += pm_compact_result_files_after(r[i]) + pm_compact_result_index_files_added(r[i]) +
                 pm_compact_result_changelog_files(r[i]);
    printf("aborted %zu result%s: %zu prepared file%s deleted\n", a.nfiles, a.nfiles == 1 ? "" : "s", files,
           files == 1 ? "" : "s");
done:
    free_results(r, a.nfiles);
    pm_table_free(t);
    free_args(&a);
    return e ? pm_cli_fail(cmd, e) : 0;
}
