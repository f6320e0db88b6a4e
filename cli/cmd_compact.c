/*
 * cli/cmd_compact.c — compaction commands.
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
 * Errors go to stderr with a non-zero exit code (1 failure, 2 usage).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/util.h"
#include "cli.h"
#include "compact/compact_internal.h"
#include "compact/compact_auto.h"
#include "compact/compact_run.h"
#include "meta/options.h"
#include "paimon/compact.h"
#include "table/commit_message.h"

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static pm_error *read_text(const char *path, char **out, size_t *len)
{
    *out = NULL;
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return pm_error_new(errno == ENOENT ? PM_ENOTFOUND : PM_EIO, "open %s: %s", path, strerror(errno));
    pm_buf b = PM_BUF_INIT;
    char chunk[65536];
    size_t n;
    pm_error *e = NULL;
    while (!e && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        e = pm_buf_append(&b, chunk, n);
    if (!e && ferror(f))
        e = pm_error_new(PM_EIO, "read %s: %s", path, strerror(errno));
    if (f != stdin)
        fclose(f);
    const char *s;
    if (!e)
        e = pm_buf_cstr(&b, &s);
    if (e) {
        pm_buf_free(&b);
        return e;
    }
    *len = b.len;
    *out = (char *)pm_buf_detach(&b, len);
    return NULL;
}

static void human_bytes(int64_t v, char *out, size_t cap)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int i = 0;
    while (d >= 1024 && i < 4) {
        d /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(out, cap, "%lld B", (long long)v);
    else
        snprintf(out, cap, "%.1f %s", d, u[i]);
}

static void print_metrics_json(const pm_compact_metrics *m)
{
    printf("{\"snapshot_id\":%lld,\"tasks\":%lld,\"files_removed\":%lld,\"files_added\":%lld,"
           "\"rows_read\":%lld,\"rows_written\":%lld,\"bytes_read\":%lld,\"bytes_written\":%lld,"
           "\"duration_ms\":%lld}\n",
           (long long)m->snapshot_id, (long long)m->tasks, (long long)m->files_removed, (long long)m->files_added,
           (long long)m->rows_read, (long long)m->rows_written, (long long)m->bytes_read,
           (long long)m->bytes_written, (long long)m->duration_ms);
}

static void print_metrics_text(const pm_compact_metrics *m, const char *what)
{
    char a[32], b[32];
    human_bytes(m->bytes_read, a, sizeof a);
    human_bytes(m->bytes_written, b, sizeof b);
    printf("%s %lld task%s: %lld files (%s, %lld rows) -> %lld files (%s, %lld rows)\n", what,
           (long long)m->tasks, m->tasks == 1 ? "" : "s", (long long)m->files_removed, a, (long long)m->rows_read,
           (long long)m->files_added, b, (long long)m->rows_written);
    printf("snapshot %lld (COMPACT) in %.3f s\n", (long long)m->snapshot_id, (double)m->duration_ms / 1000.0);
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
    long parallelism;
    int64_t memory;
    long task;
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
        if (!strcmp(s, "--partition")) {
            if (!has_value)
                return pm_cli_usage_error(cmd, "--partition needs k=v");
            a->partitions[a->npartitions++] = argv[++i];
        } else if (!strcmp(s, "--option")) {
            if (!has_value || !strchr(argv[i + 1], '='))
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
        } else if (!strcmp(s, "--parallelism") || !strcmp(s, "--task") || !strcmp(s, "--memory")) {
            if (!has_value)
                return pm_cli_usage_error(cmd, "%s needs a value", s);
            const char *v = argv[++i];
            if (!strcmp(s, "--memory")) {
                pm_error *e = pm_parse_memory_size(v, &a->memory);
                if (e || a->memory <= 0) {
                    pm_error_free(e);
                    return pm_cli_usage_error(cmd, "--memory needs a positive size (e.g. 256mb), got '%s'", v);
                }
                continue;
            }
            char *end;
            errno = 0;
            long x = strtol(v, &end, 10);
            if (!*v || *end || errno || x < 0 || (!strcmp(s, "--parallelism") && x == 0))
                return pm_cli_usage_error(cmd, "%s needs a %s integer, got '%s'", s,
                                          !strcmp(s, "--task") ? "non-negative" : "positive", v);
            if (!strcmp(s, "--task"))
                a->task = x;
            else
                a->parallelism = x;
        } else if (s[0] == '-' && s[1]) {
            return pm_cli_usage_error(cmd, "unknown option '%s'", s);
        } else if (want_table && !a->table) {
            a->table = s;
        } else {
            a->files[a->nfiles++] = s;
        }
    }
    return 0;
}

static void free_args(common_args *a)
{
    free(a->partitions);
    free(a->files);
    free(a->options);
}

/* ------------------------------------------------------------------ */
/* progress                                                            */

typedef struct progress {
    bool tty;
    uint64_t start;
} progress;

static void on_progress(void *ctx, size_t done, size_t total, const pm_compact_result *r)
{
    (void)r;
    progress *p = ctx;
    if (!p->tty)
        return;
    int width = 30;
    int fill = total ? (int)((double)done / (double)total * width) : width;
    double secs = (double)(pm_monotonic_ns() - p->start) / 1e9;
    fprintf(stderr, "\r[%.*s%*s] %zu/%zu tasks %.1fs", fill, "##############################", width - fill, "",
            done, total, secs);
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
               "Compact the small files of an append table: plan, execute and commit one COMPACT snapshot.\n"
               "  --partition k=v   only these partitions (repeatable: OR)\n"
               "  --full            full compaction (rewrite every small file of a bucket)\n"
               "  --parallelism N   buckets compacted at once (default: CPUs, at most 4)\n"
               "  --memory SIZE     memory budget shared by the running tasks (default 256mb)\n"
               "  --option k=v      table option for this compaction only (e.g. compaction.min.file-num=2)\n"
               "  --json            print the metrics as JSON\n"
               "  --commit-user U   commit user (default: random); retries with the same user are idempotent\n");
}

static pm_error *make_resources(const common_args *a, pm_resources **out)
{
    size_t threads = a->parallelism > 0 ? (size_t)a->parallelism : pm_cpu_count();
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
    if (rc) {
        free_args(&a);
        return rc;
    }
    if (!a.table || a.nfiles || a.task >= 0) {
        free_args(&a);
        return pm_cli_usage_error(cmd, a.table ? "unexpected arguments" : "missing TABLE");
    }
    pm_table *t = NULL;
    pm_resources *res = NULL;
    pm_compact_builder *b = NULL;
    pm_compact_plan *p = NULL;
    pm_error *e = NULL;
    uint64_t t0 = pm_monotonic_ns();
    PM_TRY_GOTO(e, pm_table_open(&t, a.table, NULL), done);
    PM_TRY_GOTO(e, make_resources(&a, &res), done);
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, a.commit_user, a.partitions, a.npartitions, a.full, res, a.options, a.noptions, NULL, NULL, 0};
    PM_TRY_GOTO(e, pm_compact_builder_new(&b, t, &o), done);
    PM_TRY_GOTO(e, pm_compact_plan_new(&p, b), done);
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    memset(&m, 0, sizeof m);
    if (!p->ntasks) {
        m.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
        if (a.json)
            print_metrics_json(&m);
        else if (p->snapshot_id)
            printf("nothing to compact at snapshot %lld\n", (long long)p->snapshot_id);
        else
            printf("nothing to compact: the table has no snapshot\n");
        goto done;
    }
    progress pr = {isatty(STDERR_FILENO) && !a.json, t0};
    PM_TRY_GOTO(e, pm_compact_run_plan(&m, t, p, res, res->threads, on_progress, &pr), done);
    m.duration_ms = (int64_t)((pm_monotonic_ns() - t0) / 1000000);
    if (a.json)
        print_metrics_json(&m);
    else
        print_metrics_text(&m, "compacted");
done:
    pm_compact_plan_free(p);
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
    if (rc) {
        free_args(&a);
        return rc;
    }
    if (!a.table || a.nfiles || a.task >= 0 || a.json || a.parallelism) {
        free_args(&a);
        return pm_cli_usage_error(cmd, a.table ? "unexpected arguments" : "missing TABLE");
    }
    pm_table *t = NULL;
    pm_compact_builder *b = NULL;
    pm_compact_plan *p = NULL;
    char *json = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, a.table, NULL), done);
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, a.commit_user, a.partitions, a.npartitions, a.full, NULL, a.options, a.noptions, NULL, NULL, 0};
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

/* Whether the JSON document's top-level "kind" is `kind`. */
static bool doc_kind_is(const char *text, size_t len, const char *kind)
{
    json_error_t err;
    json_t *root = json_loadb(text, len, 0, &err);
    const json_t *k = root ? json_object_get(root, "kind") : NULL;
    bool is = json_is_string(k) && !strcmp(json_string_value(k), kind);
    json_decref(root);
    return is;
}

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
    if (rc) {
        free_args(&a);
        return rc;
    }
    if (a.nfiles != 1) {
        free_args(&a);
        return pm_cli_usage_error(cmd, "expected one PLAN.json or TASK.json");
    }
    char *text = NULL;
    size_t len = 0;
    pm_compact_plan *p = NULL;
    pm_compact_task *own = NULL;
    const pm_compact_task *task = NULL;
    pm_table *t = NULL;
    pm_compact_result *r = NULL;
    char *json = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, read_text(a.files[0], &text, &len), done);
    if (doc_kind_is(text, len, "task")) {
        PM_TRY_GOTO(e, pm_compact_task_from_json(&own, text, len), done);
        task = own;
        if (a.task >= 0 && a.task != own->task_index) {
            e = pm_error_new(PM_EINVALID, "%s holds task %lld, not %ld", a.files[0], (long long)own->task_index,
                             a.task);
            goto done;
        }
    } else {
        PM_TRY_GOTO(e, pm_compact_plan_from_json(&p, text, len), done);
        if (a.task < 0) {
            e = pm_error_new(PM_EINVALID, "--task I is required with a plan");
            goto done;
        }
        task = pm_compact_plan_task(p, (size_t)a.task);
        if (!task) {
            e = pm_error_new(PM_EINVALID, "the plan has %zu task(s); there is no task %ld", p->ntasks, a.task);
            goto done;
        }
    }
    PM_TRY_GOTO(e, pm_table_open(&t, task->table_path, NULL), done);
    PM_TRY_GOTO(e, pm_compact_execute_with_budget(&r, t, task, a.memory > 0 ? a.memory : 256LL << 20), done);
    PM_TRY_GOTO(e, pm_compact_result_to_json(&json, r), done);
    printf("%s\n", json);
    if (fflush(stdout)) {
        e = pm_error_new(PM_EIO, "write the result: %s", strerror(errno));
        pm_error_free(pm_compact_abort(t, &r, 1));
    }
done:
    free(json);
    pm_compact_result_free(r);
    pm_table_free(t);
    pm_compact_task_free(own);
    pm_compact_plan_free(p);
    free(text);
    free_args(&a);
    return e ? pm_cli_fail(cmd, e) : 0;
}

/* ------------------------------------------------------------------ */
/* paimon compact-commit / compact-abort                               */

static pm_error *load_results(const common_args *a, pm_compact_result ***out)
{
    *out = NULL;
    pm_compact_result **r;
    PM_TRY(pm_calloc(&r, a->nfiles ? a->nfiles : 1, sizeof *r));
    pm_error *e = NULL;
    for (size_t i = 0; i < a->nfiles && !e; i++) {
        char *text = NULL;
        size_t len = 0;
        e = read_text(a->files[i], &text, &len);
        if (!e)
            e = pm_error_wrap(pm_compact_result_from_json(&r[i], text, len), 0, "%s", a->files[i]);
        free(text);
    }
    if (e) {
        pm_compact_results_free(r, a->nfiles);
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
    if (rc) {
        free_args(&a);
        return rc;
    }
    if (!a.table || !a.nfiles) {
        free_args(&a);
        return pm_cli_usage_error(cmd, !a.table ? "missing TABLE" : "missing RESULT.json");
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
    pm_compact_results_free(r, a.nfiles);
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
               "Delete the prepared files of compaction results that will never be committed.\n"
               "Results already committed are refused.  TABLE defaults to the table the results name.\n");
        return 0;
    }
    common_args a;
    int rc = parse_args(cmd, argc, argv, false, &a);
    if (rc) {
        free_args(&a);
        return rc;
    }
    const char *table = NULL;
    if (a.nfiles && !ends_with(a.files[0], ".json") && strcmp(a.files[0], "-")) {
        table = a.files[0];
        memmove(a.files, a.files + 1, (a.nfiles - 1) * sizeof *a.files);
        a.nfiles--;
    }
    if (!a.nfiles) {
        free_args(&a);
        return pm_cli_usage_error(cmd, "missing RESULT.json");
    }
    pm_compact_result **r = NULL;
    pm_table *t = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, load_results(&a, &r), done);
    PM_TRY_GOTO(e, pm_table_open(&t, table ? table : r[0]->table_path, NULL), done);
    PM_TRY_GOTO(e, pm_compact_abort(t, r, a.nfiles), done);
    size_t files = 0;
    for (size_t i = 0; i < a.nfiles; i++)
        files += r[i]->nafter + r[i]->nindex_added;
    printf("aborted %zu result%s: %zu prepared file%s deleted\n", a.nfiles, a.nfiles == 1 ? "" : "s", files,
           files == 1 ? "" : "s");
done:
    pm_compact_results_free(r, a.nfiles);
    pm_table_free(t);
    free_args(&a);
    return e ? pm_cli_fail(cmd, e) : 0;
}

/* ------------------------------------------------------------------ */
/* automatic compaction after `paimon write`                           */

pm_error *pm_cli_compact_after_write(pm_table *t, int64_t snapshot, const char *user,
                                     const pm_commit_message *msgs, size_t nmsgs)
{
    pm_bytes *parts = NULL;
    int32_t *buckets = NULL;
    size_t n = 0;
    if (msgs && nmsgs) {
        parts = calloc(nmsgs, sizeof *parts);
        buckets = calloc(nmsgs, sizeof *buckets);
        if (!parts || !buckets) {
            free(parts);
            free(buckets);
            return pm_error_new(PM_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < nmsgs; i++) {
            if (!msgs[i].n_new_files)
                continue;
            parts[n] = msgs[i].partition; /* borrowed */
            buckets[n++] = msgs[i].bucket;
        }
    }
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e = pm_compact_after_write(&m, t, snapshot, user, n ? parts : NULL, n ? buckets : NULL, n);
    free(parts);
    free(buckets);
    if (!e && m.snapshot_id) {
        char a[32], b[32];
        human_bytes(m.bytes_read, a, sizeof a);
        human_bytes(m.bytes_written, b, sizeof b);
        printf("snapshot %lld: compacted %lld files (%s) into %lld files (%s)\n", (long long)m.snapshot_id,
               (long long)m.files_removed, a, (long long)m.files_added, b);
    }
    return e;
}

pm_error *pm_cli_compact_stall(pm_table *t, const char *user, const pm_commit_message *msgs, size_t nmsgs)
{
    if (!nmsgs)
        return NULL;
    pm_bytes *parts = calloc(nmsgs, sizeof *parts);
    int32_t *buckets = calloc(nmsgs, sizeof *buckets);
    size_t *nfiles = calloc(nmsgs, sizeof *nfiles);
    pm_error *e = NULL;
    if (!parts || !buckets || !nfiles) {
        e = pm_error_new(PM_ENOMEM, "out of memory");
        goto out;
    }
    size_t n = 0;
    for (size_t i = 0; i < nmsgs; i++) {
        if (!msgs[i].n_new_files)
            continue;
        parts[n] = msgs[i].partition; /* borrowed */
        buckets[n] = msgs[i].bucket;
        nfiles[n++] = msgs[i].n_new_files;
    }
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    e = pm_compact_write_stall(&m, t, user, parts, buckets, nfiles, n);
    if (!e && m.snapshot_id)
        printf("snapshot %lld: write stall, compacted %lld files into %lld files first\n", (long long)m.snapshot_id,
               (long long)m.files_removed, (long long)m.files_added);
out:
    free(parts);
    free(buckets);
    free(nfiles);
    return e;
}
