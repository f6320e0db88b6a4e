/*
 * cli/cmd_maintenance.c — table maintenance (paimon/maintenance.h):
 *   paimon expire-snapshots TABLE [--retain-max N] [--retain-min N]
 *       [--older-than DURATION] [--max-deletes N] [--dry-run] [--json]
 *   paimon remove-orphan-files TABLE [--older-than DURATION] [--dry-run] [--json]
 * --older-than of expire-snapshots is the time retained (snapshots
 * committed longer ago may expire); of remove-orphan-files the age a file
 * must have (default 1 d).  Text output: one summary line (orphans: the
 * paths first); --json: one object.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paimon/maintenance.h"
#include "paimon/options.h"
#include "paimon/table.h"

static void expire_usage(FILE *f)
{
    fprintf(f, "usage: paimon expire-snapshots TABLE [--retain-max N] [--retain-min N] [--older-than DURATION]\n"
               "                                 [--max-deletes N] [--dry-run] [--json]\n\n"
               "Expire old snapshots as Paimon does (snapshot.num-retained.min/max, snapshot.time-retained,\n"
               "snapshot.expire.limit; consumers and tags honoured) and delete the files no retained\n"
               "snapshot, tag or branch references.\n\n"
               "  --retain-max N          keep at most N snapshots (snapshot.num-retained.max)\n"
               "  --retain-min N          keep at least N snapshots (snapshot.num-retained.min)\n"
               "  --older-than DURATION   expire snapshots older than this (snapshot.time-retained), e.g. 1h\n"
               "  --max-deletes N         expire at most N snapshots this run (snapshot.expire.limit)\n"
               "  --dry-run               report, delete nothing\n"
               "  --json                  print the result as one JSON object\n");
}

static void orphan_usage(FILE *f)
{
    fprintf(f, "usage: paimon remove-orphan-files TABLE [--older-than DURATION] [--dry-run] [--json]\n\n"
               "Delete files in the table's manifest, index, statistics and bucket directories that no\n"
               "snapshot, tag or branch references and that are older than DURATION (default 1 d).\n\n"
               "  --older-than DURATION   the age a file must have, e.g. 1d, 3h\n"
               "  --dry-run               list, delete nothing\n"
               "  --json                  print the result as one JSON object\n");
}

/* The arguments both commands share: --dry-run, --json, TABLE; anything
 * else is a usage error (returns 2, else 0). */
static int common_arg(const char *cmd, const char *a, const char **path, bool *dry_run, bool *json)
{
    if (!strcmp(a, "--dry-run"))
        *dry_run = true;
    else if (!strcmp(a, "--json"))
        *json = true;
    else if (a[0] == '-')
        return pm_cli_usage_error(cmd, "unknown option or missing value: %s", a);
    else if (!*path)
        *path = a;
    else
        return pm_cli_usage_error(cmd, "unexpected argument: %s", a);
    return 0;
}

/* --older-than DURATION into *ms (and *has); 0 or the exit code. */
static int older_than(const char *cmd, const char *text, bool *has, int64_t *ms)
{
    pm_error *e = pm_option_parse_duration(ms, text);
    if (e)
        return pm_cli_bad_argument(cmd, e);
    *has = true;
    return 0;
}

static int open_table(const char *cmd, const char *path, pm_table **t)
{
    if (!path)
        return pm_cli_usage_error(cmd, "missing TABLE");
    pm_error *e = pm_table_open(t, path, NULL);
    return e ? pm_cli_fail(cmd, e) : 0;
}

int pm_cmd_expire_snapshots(int argc, char **argv)
{
    const char *cmd = "expire-snapshots";
    if (pm_cli_wants_help(argc, argv)) {
        expire_usage(stdout);
        return 0;
    }
    pm_expire_options o = PM_EXPIRE_OPTIONS_INIT;
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool v = i + 1 < argc;
        int64_t n;
        if (!strcmp(a, "--retain-max") && v) {
            int rc = pm_cli_parse_int(cmd, a, argv[++i], 1, INT32_MAX, &n);
            if (rc)
                return rc;
            o.retain_max = (int32_t)n;
        } else if (!strcmp(a, "--retain-min") && v) {
            int rc = pm_cli_parse_int(cmd, a, argv[++i], 1, INT32_MAX, &n);
            if (rc)
                return rc;
            o.retain_min = (int32_t)n;
        } else if (!strcmp(a, "--max-deletes") && v) {
            int rc = pm_cli_parse_int(cmd, a, argv[++i], 1, INT32_MAX, &n);
            if (rc)
                return rc;
            o.max_deletes = (int32_t)n;
        } else if (!strcmp(a, "--older-than") && v) {
            int rc = older_than(cmd, argv[++i], &o.has_time_retained, &o.time_retained_ms);
            if (rc)
                return rc;
        } else {
            int rc = common_arg(cmd, a, &path, &o.dry_run, &json);
            if (rc)
                return rc;
        }
    }
    pm_table *t = NULL;
    int rc = open_table(cmd, path, &t);
    if (rc)
        return rc;
    pm_expire_result r = PM_EXPIRE_RESULT_INIT;
    pm_error *e = pm_table_expire_snapshots(&r, t, &o);
    pm_table_free(t);
    if (e)
        return pm_cli_fail(cmd, e);
    if (json)
        printf("{\"dry_run\":%s,\"earliest_before\":%" PRId64 ",\"earliest_after\":%" PRId64 ",\"latest\":%" PRId64
               ",\"snapshots_expired\":%" PRId64 ",\"data_files_deleted\":%" PRId64
               ",\"changelog_files_deleted\":%" PRId64 ",\"manifest_files_deleted\":%" PRId64
               ",\"index_files_deleted\":%" PRId64 ",\"statistics_files_deleted\":%" PRId64
               ",\"bytes_deleted\":%" PRId64 "}\n",
               o.dry_run ? "true" : "false", r.earliest_before, r.earliest_after, r.latest, r.snapshots_expired,
               r.data_files_deleted, r.changelog_files_deleted, r.manifest_files_deleted, r.index_files_deleted,
               r.statistics_files_deleted, r.bytes_deleted);
    else {
        char b[32];
        pm_cli_human_bytes(r.bytes_deleted, b, sizeof b);
        printf("%s%" PRId64 " snapshots expired (earliest %" PRId64 " -> %" PRId64 ", latest %" PRId64
               "); deleted %" PRId64 " data, %" PRId64 " changelog, %" PRId64 " manifest, %" PRId64
               " index, %" PRId64 " statistics files (%s)\n",
               o.dry_run ? "dry run: " : "", r.snapshots_expired, r.earliest_before, r.earliest_after, r.latest,
               r.data_files_deleted, r.changelog_files_deleted, r.manifest_files_deleted, r.index_files_deleted,
               r.statistics_files_deleted, b);
    }
    return 0;
}

int pm_cmd_remove_orphan_files(int argc, char **argv)
{
    const char *cmd = "remove-orphan-files";
    if (pm_cli_wants_help(argc, argv)) {
        orphan_usage(stdout);
        return 0;
    }
    pm_orphan_options o = PM_ORPHAN_OPTIONS_INIT;
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--older-than") && i + 1 < argc) {
            int rc = older_than(cmd, argv[++i], &o.has_older_than, &o.older_than_ms);
            if (rc)
                return rc;
        } else {
            int rc = common_arg(cmd, a, &path, &o.dry_run, &json);
            if (rc)
                return rc;
        }
    }
    pm_table *t = NULL;
    int rc = open_table(cmd, path, &t);
    if (rc)
        return rc;
    pm_orphan_result r = PM_ORPHAN_RESULT_INIT;
    pm_error *e = pm_table_remove_orphan_files(&r, t, &o);
    pm_table_free(t);
    if (e) {
        pm_orphan_result_clear(&r);
        return pm_cli_fail(cmd, e);
    }
    if (json) {
        printf("{\"dry_run\":%s,\"files_deleted\":%" PRId64 ",\"bytes_deleted\":%" PRId64 ",\"paths\":[",
               o.dry_run ? "true" : "false", r.files_deleted, r.bytes_deleted);
        for (size_t i = 0; i < r.npaths; i++) {
            printf("%s\"", i ? "," : "");
            for (const char *p = r.paths[i]; *p; p++)
                if (*p == '"' || *p == '\\')
                    printf("\\%c", *p);
                else if ((unsigned char)*p < 0x20)
                    printf("\\u%04x", (unsigned char)*p);
                else
                    putchar(*p);
            putchar('"');
        }
        printf("]}\n");
    } else {
        for (size_t i = 0; i < r.npaths; i++)
            printf("%s\n", r.paths[i]);
        char b[32];
        pm_cli_human_bytes(r.bytes_deleted, b, sizeof b);
        printf("%s%" PRId64 " orphan files %s (%s)\n", o.dry_run ? "dry run: " : "", r.files_deleted,
               o.dry_run ? "would be deleted" : "deleted", b);
    }
    pm_orphan_result_clear(&r);
    return 0;
}
