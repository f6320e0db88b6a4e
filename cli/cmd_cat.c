/*
 * cli/cmd_cat.c — `paimon cat FILE [--columns a,b] [--limit N]`: print the
 * rows of a data file (Parquet, ORC or Avro, found from its bytes:
 * paimon/format.h) as JSON lines, one object per row, in the `paimon cat`
 * value encoding (paimon/rows.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paimon/format.h"
#include "paimon/rows.h"

#define CMD "cat"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " FILE [--columns a,b,...] [--limit N]\n\n"
               "Print the rows of a data file (Parquet, ORC or Avro) as JSON lines.\n\n"
               "  --columns a,b   only these top-level columns, in this order\n"
               "  --limit N       stop after N rows\n"
               "\nValues: numbers, \"NaN\"/\"Infinity\" strings, base64 bytes, decimal strings,\n"
               "ISO dates/times/timestamps, arrays, maps as [{\"key\":..,\"value\":..}], rows as objects.\n");
}

static pm_error *to_stdout(void *ctx, const void *data, size_t n)
{
    (void)ctx;
    if (fwrite(data, 1, n, stdout) != n)
        return pm_error_new(PM_EIO, "writing to stdout: %s", strerror(errno));
    return NULL;
}

static pm_error *run(const char *path, const pm_format_options *o, int64_t limit)
{
    pm_format_reader *r = NULL;
    pm_rows_writer *w = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_format_reader_open(&r, path, o), done);
    PM_TRY_GOTO(e, pm_rows_writer_new(&w, PM_ROWS_JSONL, pm_format_reader_type(r), to_stdout, NULL), done);
    int64_t printed = 0;
    while (limit < 0 || printed < limit) {
        const pm_batch *b = NULL;
        PM_TRY_GOTO(e, pm_format_reader_next(&b, r), done);
        if (!b)
            break;
        int64_t n = pm_batch_num_rows(b);
        if (limit >= 0 && n > limit - printed)
            n = limit - printed;
        PM_TRY_GOTO(e, pm_rows_writer_write(w, b, 0, n), done);
        printed += n;
    }
    PM_TRY_GOTO(e, pm_rows_writer_finish(w), done);
    if (fflush(stdout) != 0)
        e = pm_error_new(PM_EIO, "writing to stdout: %s", strerror(errno));
done:
    pm_rows_writer_free(w);
    pm_format_reader_free(r);
    return e;
}

int pm_cmd_cat(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *path = NULL;
    pm_cli_list cols = {0};
    int64_t limit = -1;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--columns")) {
            if (++i >= argc)
                rc = pm_cli_usage_error(CMD, "--columns needs a value");
            else if (pm_cli_list_split(&cols, argv[i]))
                rc = pm_cli_usage_error(CMD, "--columns needs column names, got '%s'", argv[i]);
        } else if (!strcmp(argv[i], "--limit")) {
            rc = ++i >= argc ? pm_cli_usage_error(CMD, "--limit needs a value")
                             : pm_cli_parse_int(CMD, "--limit", argv[i], 0, INT64_MAX, &limit);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = pm_cli_usage_error(CMD, "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            rc = pm_cli_usage_error(CMD, "more than one FILE given");
        }
    }
    if (!rc && !path)
        rc = pm_cli_usage_error(CMD, "missing FILE");
    if (!rc) {
        pm_format_options o = PM_FORMAT_OPTIONS_INIT;
        o.columns = (const char *const *)cols.items;
        o.ncolumns = cols.n;
        o.batch_rows = limit > 0 && limit < 4096 ? limit : 4096;
        pm_error *e = run(path, &o, limit);
        if (e)
            rc = pm_cli_fail(CMD, e);
    }
    pm_cli_list_free(&cols);
    return rc;
}
