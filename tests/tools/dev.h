/*
 * tests/tools/dev.h — the `paimon-dev` developer tool: commands that tests
 * and benchmarks use to reach single formats directly (one Parquet file
 * from JSON lines with the table writer's encoder; deletion-vector index
 * files).  It links the library's internals, which no front end may do, so
 * it lives with the tests and is not installed.
 */
#ifndef PM_DEV_H
#define PM_DEV_H

#include <stdbool.h>

#include "paimon/error.h"

/* Print "paimon-dev <cmd>: error [CODE]: <chain>" to stderr, free e, return 1. */
int pm_dev_fail(const char *cmd, pm_error *e);
/* Print a usage error to stderr and return 2. */
int pm_dev_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool pm_dev_wants_help(int argc, char **argv);

int pm_cmd_write_parquet(int argc, char **argv);
int pm_cmd_dv(int argc, char **argv);

#endif
