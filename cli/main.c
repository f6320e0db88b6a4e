/*
 * cli/main.c — entry point of `paimon`: dispatches to cmd_<name>.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int pm_cmd_cat(int argc, char **argv);
int pm_cmd_meta(int argc, char **argv);
int pm_cmd_create(int argc, char **argv);
int pm_cmd_databases(int argc, char **argv);
int pm_cmd_tables(int argc, char **argv);
int pm_cmd_create_database(int argc, char **argv);
int pm_cmd_drop_database(int argc, char **argv);
int pm_cmd_drop_table(int argc, char **argv);
int pm_cmd_read(int argc, char **argv);
int pm_cmd_snapshots(int argc, char **argv);
int pm_cmd_files(int argc, char **argv);
int pm_cmd_schema(int argc, char **argv);
int pm_cmd_write(int argc, char **argv);
int pm_cmd_levels(int argc, char **argv);
int pm_cmd_compact(int argc, char **argv);
int pm_cmd_compact_plan(int argc, char **argv);
int pm_cmd_compact_exec(int argc, char **argv);
int pm_cmd_compact_commit(int argc, char **argv);
int pm_cmd_compact_abort(int argc, char **argv);
int pm_cmd_serve(int argc, char **argv);
int pm_cmd_expire_snapshots(int argc, char **argv);
int pm_cmd_remove_orphan_files(int argc, char **argv);
int pm_cmd_update(int argc, char **argv);
int pm_cmd_delete(int argc, char **argv);
int pm_cmd_materialize(int argc, char **argv);
int pm_cmd_index(int argc, char **argv);

static const pm_cli_command commands[] = {
    {"cat", "print rows of a Parquet, ORC or Avro file as JSON lines", pm_cmd_cat},
    {"meta", "print the footer of a Parquet file as JSON", pm_cmd_meta},
    {"databases", "list the databases of a warehouse", pm_cmd_databases},
    {"create-database", "create a database in a warehouse", pm_cmd_create_database},
    {"drop-database", "drop a database (--cascade drops its tables)", pm_cmd_drop_database},
    {"tables", "list the tables of a database", pm_cmd_tables},
    {"create", "create a table at a path (schema/schema-0)", pm_cmd_create},
    {"drop-table", "drop a table", pm_cmd_drop_table},
    {"write", "write rows (JSON lines, CSV, Parquet) into a table as one commit", pm_cmd_write},
    {"update", "update columns of rows by _ROW_ID (data-evolution tables) as one commit", pm_cmd_update},
    {"delete", "delete rows by _ROW_ID through deletion vectors (data-evolution tables)", pm_cmd_delete},
    {"materialize-deletions", "remove logically deleted rows of a data-evolution table (new row IDs)",
     pm_cmd_materialize},
    {"index", "build the missing coverage of declared global indexes (btree, bitmap) as one snapshot",
     pm_cmd_index},
    {"read", "print the rows of a table (jsonl, csv or parquet)", pm_cmd_read},
    {"snapshots", "list the snapshots of a table", pm_cmd_snapshots},
    {"files", "list the live data files of a table ($files)", pm_cmd_files},
    {"levels", "chart the sorted runs and levels of each bucket of a primary-key table", pm_cmd_levels},
    {"schema", "print the schema of a table", pm_cmd_schema},
    {"compact", "compact small files: plan, execute, commit one COMPACT snapshot", pm_cmd_compact},
    {"compact-plan", "print a compaction plan as JSON (distributed compaction)", pm_cmd_compact_plan},
    {"compact-exec", "run one task of a compaction plan, print its result JSON", pm_cmd_compact_exec},
    {"compact-commit", "publish compaction results as one COMPACT snapshot", pm_cmd_compact_commit},
    {"compact-abort", "delete the prepared files of uncommitted compaction results", pm_cmd_compact_abort},
    {"expire-snapshots", "expire old snapshots and delete the files only they reference", pm_cmd_expire_snapshots},
    {"remove-orphan-files", "delete old files that no snapshot, tag or branch references", pm_cmd_remove_orphan_files},
    {"serve", "run the compaction service (triggers, HTTP API, metrics, status page)", pm_cmd_serve},
};

int pm_cli_fail(const char *cmd, pm_error *e)
{
    char *s = pm_error_format(e);
    fprintf(stderr, "paimon %s: error [%s]: %s\n", cmd, pm_code_name(pm_error_root_code(e)),
            s ? s : "out of memory");
    free(s);
    pm_error_free(e);
    return 1;
}

int pm_cli_bad_argument(const char *cmd, pm_error *e)
{
    pm_cli_fail(cmd, e);
    return 2;
}

int pm_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "paimon %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'paimon %s --help'.\n", cmd);
    return 2;
}

int pm_cli_parse_int(const char *cmd, const char *opt, const char *text, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || errno == ERANGE || v < min || v > max)
        return pm_cli_usage_error(cmd, "%s needs an integer in %lld..%lld, got '%s'", opt, (long long)min,
                                  (long long)max, text);
    *out = v;
    return 0;
}

pm_error *pm_cli_read_file(const char *path, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return pm_error_new(errno == ENOENT ? PM_ENOTFOUND : PM_EIO, "open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    pm_error *e = buf ? NULL : pm_error_new(PM_ENOMEM, "out of memory");
    while (!e) {
        if (n + 1 >= cap) {
            char *nb = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                e = pm_error_new(PM_ENOMEM, "out of memory reading %s", path);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0) {
            if (ferror(f))
                e = pm_error_new(PM_EIO, "read %s: %s", path, strerror(errno));
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    if (e) {
        free(buf);
        return e;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return NULL;
}

void pm_cli_human_bytes(int64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int i = 0;
    while (d >= 1024 && i < 4) {
        d /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(buf, cap, "%lld B", (long long)v);
    else
        snprintf(buf, cap, "%.1f %s", d, units[i]);
}

size_t pm_cli_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

int pm_cli_list_push(pm_cli_list *l, const char *s, size_t n)
{
    char **v = realloc(l->items, (l->n + 1) * sizeof *v);
    if (!v)
        return -1;
    l->items = v;
    char *c = malloc(n + 1);
    if (!c)
        return -1;
    memcpy(c, s, n);
    c[n] = 0;
    l->items[l->n++] = c;
    return 0;
}

int pm_cli_list_split(pm_cli_list *l, const char *text)
{
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t'))
            p++, n--;
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (!n || pm_cli_list_push(l, p, n))
            return -1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

void pm_cli_list_free(pm_cli_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

bool pm_cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return true;
    return false;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon <command> [options]\n\n"
               "paimon-c: a native engine for Apache Paimon tables.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-16s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'paimon <command> --help' for a command's options.\n\n"
               "exit codes:\n"
               "  0  everything worked\n"
               "  1  failure (nothing was committed)\n"
               "  2  usage error (unknown option, missing or malformed argument)\n"
               "  3  paimon write: the data commit succeeded, the automatic compaction after it failed\n"
               "     (do not retry the write; run 'paimon compact')\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "paimon: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
