/*
 * cli/cmd_serve.c — `paimon serve WAREHOUSE [--listen HOST:PORT]
 * [--config FILE] [--option k=v]... [--auth-token-file FILE]`: the
 * compaction service (service/service.h) over a filesystem warehouse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../service/service.h"

#define CMD "serve"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: paimon " CMD " WAREHOUSE [--listen HOST:PORT] [--config FILE] [--option k=v]...\n"
            "                    [--auth-token-file FILE]\n\n"
            "Run the compaction service: every owned table of the warehouse is walked every\n"
            "compaction-service.interval; a bucket whose pending files (level 0 of primary-key\n"
            "tables, small files of append tables, small files and column-version groups of\n"
            "data-evolution tables, the postponed files of bucket -2) cross a trigger gets a\n"
            "bounded pass (bucket -2: all postponed files of the partition); snapshots\n"
            "expire and orphan files are removed on their intervals.  HTTP API, /metrics and a\n"
            "status page on the listen address.  SIGTERM/SIGINT drain the running jobs and exit 0.\n\n"
            "  --listen HOST:PORT     default 127.0.0.1:8765 (port 0: any free port); a\n"
            "                         non-loopback address needs --auth-token-file\n"
            "  --config FILE          key=value lines: compaction-service.* options, include=, exclude=\n"
            "  --option k=v           one more option (after the file; repeatable)\n"
            "  --auth-token-file FILE every request needs 'Authorization: Bearer <first line>'\n\n"
            "Options (tables override them with table options of the same key):\n"
            "  compaction-service.interval 5 s, .trigger.count 4, .trigger.bytes 1 gb,\n"
            "  .trigger.age 7 d, .prefix-max 32, .pass-target-bytes 2 gb, .concurrency 2,\n"
            "  .orphan-older-than 1 d, .expire-interval 1 min, .orphan-interval 1 h,\n"
            "  .backpressure true, .history 1000, .watch-interval 200 ms,\n"
            "  .executor local (ray: each pass's tasks on a Ray cluster through paimon_c),\n"
            "  .ray.address auto, .ray.python python3\n");
}

int pm_cmd_serve(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    svc_args a;
    memset(&a, 0, sizeof a);
    const char **opts = calloc((size_t)argc + 1, sizeof *opts);
    if (!opts)
        return 1;
    size_t nopts = 0;
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(arg, "--listen") && has_value)
            a.listen = argv[++i];
        else if (!strcmp(arg, "--config") && has_value)
            a.config_file = argv[++i];
        else if (!strcmp(arg, "--option") && has_value)
            opts[nopts++] = argv[++i];
        else if (!strcmp(arg, "--auth-token-file") && has_value)
            a.auth_token_file = argv[++i];
        else if (arg[0] == '-') {
            rc = pm_cli_usage_error(CMD, "unknown option or missing value: %s", arg);
            goto out;
        } else if (!a.warehouse)
            a.warehouse = arg;
        else {
            rc = pm_cli_usage_error(CMD, "unexpected argument: %s", arg);
            goto out;
        }
    }
    if (!a.warehouse) {
        rc = pm_cli_usage_error(CMD, "missing WAREHOUSE");
        goto out;
    }
    a.options = opts;
    a.noptions = nopts;
    rc = svc_main(&a);
out:
    free(opts);
    return rc;
}
