/*
 * cli/cli.h — shared declarations of the `paimon` command-line tool.
 *
 * Each command lives in cli/cmd_<name>.c and exports one entry point with the
 * signature below plus a one-line summary; cli/main.c holds the table.  The
 * CLI is a client of the public API only (include/paimon/).  Commands print
 * results to stdout, errors to stderr, and return the process exit code:
 *   0  everything worked
 *   1  failure: nothing was committed (or, for read-side commands, nothing printed is complete)
 *   2  usage error: unknown option, missing or malformed argument
 *   3  `paimon write`: the data commit succeeded, the automatic compaction after it failed
 */
#ifndef PM_CLI_H
#define PM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "paimon/error.h"

enum { PM_EXIT_OK = 0, PM_EXIT_FAILURE = 1, PM_EXIT_USAGE = 2, PM_EXIT_COMPACTION_FAILED = 3 };

typedef int (*pm_cli_fn)(int argc, char **argv);

typedef struct pm_cli_command {
    const char *name;
    const char *summary;
    pm_cli_fn run;
} pm_cli_command;

/* Print "paimon <cmd>: error [CODE]: <error chain>" to stderr, free e, return 1. */
int pm_cli_fail(const char *cmd, pm_error *e);
/* Like pm_cli_fail for an argument the command line got wrong (a bad
 * --partition value): print the error chain, free e, return 2. */
int pm_cli_bad_argument(const char *cmd, pm_error *e);
/* Print a usage error to stderr and return 2. */
int pm_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True if argv contains -h or --help. */
bool pm_cli_wants_help(int argc, char **argv);
/* Parse a decimal integer in [min, max] for option `opt`: 0 when it is one,
 * else prints the usage error and returns 2. */
int pm_cli_parse_int(const char *cmd, const char *opt, const char *text, int64_t min, int64_t max, int64_t *out);
/* Whole file (or stdin for "-") as a NUL-terminated malloc'd string. */
pm_error *pm_cli_read_file(const char *path, char **out, size_t *len);
/* "12.3 MiB" (or "512 B") into buf. */
void pm_cli_human_bytes(int64_t v, char *buf, size_t cap);
/* CPUs online, at least 1. */
size_t pm_cli_cpu_count(void);

/* A list of strings split from "a,b,c" (trimmed; empty items refused). */
typedef struct pm_cli_list {
    char **items;
    size_t n;
} pm_cli_list;
/* 0, or -1 for an empty item or out of memory. */
int pm_cli_list_split(pm_cli_list *l, const char *text);
int pm_cli_list_push(pm_cli_list *l, const char *s, size_t n);
void pm_cli_list_free(pm_cli_list *l);

#endif
