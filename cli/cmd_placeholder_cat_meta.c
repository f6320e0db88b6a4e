/*
 * cli/cmd_placeholder_cat_meta.c — `cat` and `meta` until the Parquet layer
 * lands: both report that file reading is not available in this build.
 * (Replaced by cmd_cat.c / cmd_meta.c.)
 */
#include "cli.h"

int pm_cmd_cat(int argc, char **argv)
{
    (void)argc; (void)argv;
    return pm_cli_fail("cat", pm_error_new(PM_EUNSUPPORTED, "file reading is not built yet"));
}

int pm_cmd_meta(int argc, char **argv)
{
    (void)argc; (void)argv;
    return pm_cli_fail("meta", pm_error_new(PM_EUNSUPPORTED, "file reading is not built yet"));
}
