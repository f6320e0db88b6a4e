/*
 * cli/main.c — entry point of `paimon`: dispatches to cmd_<name>.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int pm_cmd_cat(int argc, char **argv);
int pm_cmd_meta(int argc, char **argv);
int pm_cmd_write_parquet(int argc, char **argv);
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
int pm_cmd_dv(int argc, char **argv);
int pm_cmd_levels(int argc, char **argv);
int pm_cmd_compact(int argc, char **argv);
int pm_cmd_compact_plan(int argc, char **argv);
int pm_cmd_compact_exec(int argc, char **argv);
int pm_cmd_compact_commit(int argc, char **argv);
int pm_cmd_compact_abort(int argc, char **argv);

static const pm_cli_command commands[] = {
    {"cat", "print rows of a Parquet or Avro file as JSON lines", pm_cmd_cat},
    {"meta", "print the footer of a Parquet file as JSON", pm_cmd_meta},
    {"databases", "list the databases of a warehouse", pm_cmd_databases},
    {"create-database", "create a database in a warehouse", pm_cmd_create_database},
    {"drop-database", "drop a database (--cascade drops its tables)", pm_cmd_drop_database},
    {"tables", "list the tables of a database", pm_cmd_tables},
    {"create", "create a table at a path (schema/schema-0)", pm_cmd_create},
    {"drop-table", "drop a table", pm_cmd_drop_table},
    {"write", "write rows (JSON lines, CSV, Parquet) into a table as one commit", pm_cmd_write},
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
    {"write-parquet", "write JSON lines to one Parquet file (developer command)", pm_cmd_write_parquet},
    {"dv", "read or write deletion-vector index files (developer command)", pm_cmd_dv},
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
    fprintf(f, "\nRun 'paimon <command> --help' for a command's options.\n");
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
