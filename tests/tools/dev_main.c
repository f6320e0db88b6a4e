/*
 * tests/tools/dev_main.c — entry point of `paimon-dev` (see dev.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"

int pm_dev_fail(const char *cmd, pm_error *e)
{
    char *s = pm_error_format(e);
    fprintf(stderr, "paimon-dev %s: error [%s]: %s\n", cmd, pm_code_name(pm_error_root_code(e)),
            s ? s : "out of memory");
    free(s);
    pm_error_free(e);
    return 1;
}

int pm_dev_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "paimon-dev %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return 2;
}

bool pm_dev_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "write-parquet"))
        return pm_cmd_write_parquet(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "dv"))
        return pm_cmd_dv(argc - 1, argv + 1);
    fprintf(argc < 2 ? stderr : stdout,
            "usage: paimon-dev write-parquet|dv ...  (developer commands; see --help of each)\n");
    return argc < 2 ? 2 : (strcmp(argv[1], "--help") ? 2 : 0);
}
