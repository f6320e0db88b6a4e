/*
 * cli/table_args.h — the arguments that pick which part of a table a
 * read-side command looks at, parsed the same way by `files`, `levels` and
 * `read`: TABLE (positional, once), --branch B, --snapshot N (positive id)
 * and --partition k=v[,k2=v2] (repeatable).  A command tests its own
 * options first and hands every other argument to pm_cli_table_arg.
 */
#ifndef PM_CLI_TABLE_ARGS_H
#define PM_CLI_TABLE_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "table/partition.h"

typedef struct {
    const char *table;          /* borrowed from argv; NULL until given */
    const char *branch;         /* borrowed from argv; NULL = main */
    int64_t snapshot;           /* 0 = latest */
    pm_partition_spec *specs;   /* owned; free with pm_cli_table_args_clear */
    size_t nspecs;
} pm_cli_table_args;

/* Take argv[*i] (and its value, advancing *i) as TABLE, --branch,
 * --snapshot or --partition.  Anything else is a usage error: an unknown
 * option, a second TABLE.  Returns 0 when taken, else the exit code after
 * printing the error (2 for usage errors and bad values, 1 out of memory). */
int pm_cli_table_arg(const char *cmd, int argc, char **argv, int *i, pm_cli_table_args *ta);
/* After the loop: 0 when TABLE was given, else prints the usage error and
 * returns 2. */
int pm_cli_table_args_check(const char *cmd, const pm_cli_table_args *ta);
/* Free the partition specs; `ta` may be reused after. */
void pm_cli_table_args_clear(pm_cli_table_args *ta);

#endif
