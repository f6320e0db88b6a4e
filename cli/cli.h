/*
 * cli/cli.h — shared declarations of the `paimon` command-line tool.
 *
 * Each command lives in cli/cmd_<name>.c and exports one entry point with the
 * signature below plus a one-line summary; cli/main.c holds the table.
 * Commands print results to stdout, errors to stderr, and return the process
 * exit code (0 ok, 1 failure, 2 usage error).
 */
#ifndef PM_CLI_H
#define PM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "paimon/error.h"

typedef int (*pm_cli_fn)(int argc, char **argv);

typedef struct pm_cli_command {
    const char *name;
    const char *summary;
    pm_cli_fn run;
} pm_cli_command;

/* Print "paimon <cmd>: <error chain>" to stderr, free e, return 1. */
int pm_cli_fail(const char *cmd, pm_error *e);
/* Like pm_cli_fail for an argument the command line got wrong (a bad
 * --partition value): print the error chain, free e, return 2. */
int pm_cli_bad_argument(const char *cmd, pm_error *e);
/* Print a usage error to stderr and return 2. */
int pm_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Automatic compaction after a data commit (cli/cmd_compact.c): msgs NULL =
 * recovery (touched buckets read from the snapshot).  Prints what it did. */
struct pm_table;
struct pm_commit_message;
pm_error *pm_cli_compact_after_write(struct pm_table *t, int64_t snapshot, const char *user,
                                     const struct pm_commit_message *msgs, size_t nmsgs);
/* Write stall of primary-key tables: compact buckets whose sorted runs plus
 * the messages' new files exceed num-sorted-run.stop-trigger, before the
 * data commit (compact/pk_compact.h). */
pm_error *pm_cli_compact_stall(struct pm_table *t, const char *user, const struct pm_commit_message *msgs,
                               size_t nmsgs);
/* True if argv contains -h or --help. */
bool pm_cli_wants_help(int argc, char **argv);

#endif
