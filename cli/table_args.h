/*
 * cli/table_args.h — the arguments that pick which part of a table a
 * read-side command looks at, parsed the same way by `files`, `levels` and
 * `read`: TABLE (positional, once), --branch B, --snapshot N (positive id)
 * and --partition k=v[,k2=v2] (repeatable; the syntax is checked here, so a
 * malformed value is a usage error).  A command tests its own options first
 * and hands every other argument to pm_cli_table_arg.
 */
#ifndef PM_CLI_TABLE_ARGS_H
#define PM_CLI_TABLE_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/read.h"

typedef struct {
    const char *table;          /* borrowed from argv; NULL until given */
    const char *branch;         /* borrowed from argv; NULL = main */
    int64_t snapshot;           /* 0 = latest */
    const char **partitions;    /* borrowed strings; the array is owned */
    size_t npartitions;
} pm_cli_table_args;

/* Take argv[*i] (and its value, advancing *i) as TABLE, --branch,
 * --snapshot or --partition.  Anything else is a usage error: an unknown
 * option, a second TABLE.  Returns 0 when taken, else the exit code after
 * printing the error (2 for usage errors and bad values, 1 out of memory). */
int pm_cli_table_arg(const char *cmd, int argc, char **argv, int *i, pm_cli_table_args *ta);
/* After the loop: 0 when TABLE was given, else prints the usage error and
 * returns 2. */
int pm_cli_table_args_check(const char *cmd, const pm_cli_table_args *ta);
/* Read options for the snapshot and partitions chosen. */
void pm_cli_table_args_read_options(const pm_cli_table_args *ta, pm_read_options *o);
/* Free the partition array; `ta` may be reused after. */
void pm_cli_table_args_clear(pm_cli_table_args *ta);

#endif
