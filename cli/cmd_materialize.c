/*
 * cli/cmd_materialize.c — `paimon materialize-deletions`: remove the
 * logically deleted rows of a data-evolution table (paimon/compact.h
 * pm_materialize_deletions), batch after batch until none is left.
 *
 *   paimon materialize-deletions TABLE [--partition k=v[,k2=v2]]... | [--where EXPR]
 *                                [--batch-vectors N]
 *
 * Prints one line per committed batch ("batch N: G groups, R rows removed,
 * snapshot S"), then a summary, or "nothing to materialize".  --partition
 * and --where are exclusive (both: usage error); --where takes a
 * predicate on partition keys in the language of `paimon read --where`
 * (e.g. 'dt >= 20260801').  Exit codes: 0 ok, 1 failure, 2 usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paimon/compact.h"
#include "paimon/table.h"

#define CMD "materialize-deletions"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: paimon materialize-deletions TABLE [--partition k=v[,k2=v2]]... | [--where EXPR]\n"
            "                                    [--batch-vectors N]\n\n"
            "Rewrite the row-ID groups of a data-evolution table (deletion-vectors.enabled=true) that hold\n"
            "logical deletes: survivors get new row IDs, the deletion vectors and the global indexes of\n"
            "those ranges go; one COMPACT snapshot per batch, repeated until nothing is left.\n"
            "  --partition k=v     only these partitions (repeatable: any of them)\n"
            "  --where EXPR        only partitions satisfying this predicate on partition keys,\n"
            "                      e.g. 'dt >= 20260801' (the language of paimon read --where)\n"
            "  --batch-vectors N   soft target of deletion vectors per batch (default 100000)\n");
}

static void progress(void *ctx, int64_t batch, int64_t groups, int64_t rows_removed, int64_t snapshot_id)
{
    (void)ctx;
    printf("batch %" PRId64 ": %" PRId64 " groups, %" PRId64 " rows removed, snapshot %" PRId64 "\n", batch, groups,
           rows_removed, snapshot_id);
    fflush(stdout);
}

int pm_cmd_materialize(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return PM_EXIT_OK;
    }
    const char *table = NULL, *where = NULL;
    const char **parts = NULL;
    size_t nparts = 0;
    int64_t batch = 0;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--partition") || !strcmp(s, "--where") || !strcmp(s, "--batch-vectors")) {
            if (i + 1 >= argc) {
                rc = pm_cli_usage_error(CMD, "%s needs a value", s);
                break;
            }
            const char *v = argv[++i];
            if (!strcmp(s, "--where")) {
                where = v;
            } else if (!strcmp(s, "--batch-vectors")) {
                rc = pm_cli_parse_int(CMD, s, v, 1, INT64_MAX, &batch);
            } else {
                const char **np = realloc(parts, (nparts + 1) * sizeof *np);
                if (!np) {
                    rc = pm_cli_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
                    break;
                }
                parts = np;
                parts[nparts++] = v;
            }
        } else if (s[0] == '-' && s[1]) {
            usage(stderr);
            rc = pm_cli_usage_error(CMD, "unknown option %s", s);
        } else if (table) {
            rc = pm_cli_usage_error(CMD, "one TABLE only (got %s and %s)", table, s);
        } else {
            table = s;
        }
    }
    if (!rc && !table) {
        usage(stderr);
        rc = pm_cli_usage_error(CMD, "TABLE is required");
    }
    if (!rc && where && nparts)
        rc = pm_cli_usage_error(CMD, "--partition and --where are exclusive");
    if (rc) {
        free(parts);
        return rc;
    }
    pm_table *t = NULL;
    pm_error *e = pm_table_open(&t, table, NULL);
    pm_materialize_metrics m = PM_MATERIALIZE_METRICS_INIT;
    if (!e) {
        pm_materialize_options o = PM_MATERIALIZE_OPTIONS_INIT;
        o.partitions = parts;
        o.npartitions = nparts;
        o.batch_vectors = batch;
        o.where = where;
        o.progress = progress;
        e = pm_materialize_deletions(&m, t, &o);
    }
    if (!e) {
        if (!m.batches)
            printf("nothing to materialize: no logical deletes\n");
        else
            printf("materialized %" PRId64 " groups in %" PRId64 " batches: %" PRId64 " rows removed, %" PRId64
                   " rows kept (new row IDs)\n", m.groups, m.batches, m.rows_removed, m.rows_kept);
    }
    pm_table_free(t);
    free(parts);
    return e ? pm_cli_fail(CMD, e) : PM_EXIT_OK;
}
