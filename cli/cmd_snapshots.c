/*
 * cli/cmd_snapshots.c — `paimon snapshots TABLE [--branch B] [--json]`:
 * list a table's snapshots, oldest first (paimon/snapshot.h): id, schema
 * id, commit kind, time, commit user and identifier, total / delta (/
 * changelog) record counts and the manifest lists (base, delta, changelog)
 * and index manifest.  Text output is one line per snapshot with a header;
 * --json prints one JSON array of objects keyed like the snapshot file
 * (plus "time", the commit time as ISO-8601 UTC with milliseconds).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "paimon/table.h"

#define CMD "snapshots"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " TABLE [--branch B] [--json]\n\n"
               "List the snapshots of a Paimon table (id, schema id, kind, time, commit user,\n"
               "commit identifier, total/delta record counts, manifest lists).\n\n"
               "  --branch B  snapshots of branch B (default main)\n"
               "  --json      one JSON array of objects instead of a text table\n");
}

/* "2024-05-14T01:02:03.004Z" */
static void iso_time(int64_t millis, char *out, size_t cap)
{
    int64_t secs = millis / 1000, ms = millis % 1000;
    if (ms < 0) {
        ms += 1000;
        secs--;
    }
    time_t tt = (time_t)secs;
    struct tm tm;
    if (!gmtime_r(&tt, &tm)) {
        snprintf(out, cap, "%" PRId64, millis);
        return;
    }
    size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, cap - n, ".%03dZ", (int)ms);
}

/* A JSON string (the values here are ASCII names and ids; escape anyway). */
static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void str_field(const char *key, const char *v)
{
    if (!v)
        return;
    printf(",\"%s\":", key);
    json_string(v);
}

static void print_json(const pm_snapshot *s, bool first)
{
    char t[48];
    iso_time(pm_snapshot_time_millis(s), t, sizeof t);
    int64_t v;
    printf("%s{\"id\":%" PRId64 ",\"schemaId\":%" PRId64, first ? "[\n  " : ",\n  ", pm_snapshot_id(s),
           pm_snapshot_schema_id(s));
    str_field("commitKind", pm_snapshot_commit_kind(s));
    printf(",\"timeMillis\":%" PRId64, pm_snapshot_time_millis(s));
    str_field("time", t);
    str_field("commitUser", pm_snapshot_commit_user(s));
    printf(",\"commitIdentifier\":%" PRId64 ",\"totalRecordCount\":%" PRId64 ",\"deltaRecordCount\":%" PRId64,
           pm_snapshot_commit_identifier(s), pm_snapshot_total_record_count(s), pm_snapshot_delta_record_count(s));
    if (pm_snapshot_changelog_record_count(s, &v))
        printf(",\"changelogRecordCount\":%" PRId64, v);
    str_field("baseManifestList", pm_snapshot_base_manifest_list(s));
    str_field("deltaManifestList", pm_snapshot_delta_manifest_list(s));
    str_field("changelogManifestList", pm_snapshot_changelog_manifest_list(s));
    str_field("indexManifest", pm_snapshot_index_manifest(s));
    if (pm_snapshot_watermark(s, &v))
        printf(",\"watermark\":%" PRId64, v);
    if (pm_snapshot_next_row_id(s, &v))
        printf(",\"nextRowId\":%" PRId64, v);
    str_field("operation", pm_snapshot_write_operation(s));
    putchar('}');
}

static void print_text(const pm_snapshot *s)
{
    char t[48];
    iso_time(pm_snapshot_time_millis(s), t, sizeof t);
    const char *u = pm_snapshot_commit_user(s), *b = pm_snapshot_base_manifest_list(s),
               *d = pm_snapshot_delta_manifest_list(s), *c = pm_snapshot_changelog_manifest_list(s);
    printf("%" PRId64 "\t%" PRId64 "\t%s\t%s\t%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%s\t%s\t%s\n",
           pm_snapshot_id(s), pm_snapshot_schema_id(s), pm_snapshot_commit_kind(s), t, u ? u : "-",
           pm_snapshot_commit_identifier(s), pm_snapshot_total_record_count(s), pm_snapshot_delta_record_count(s),
           b ? b : "-", d ? d : "-", c ? c : "-");
}

static pm_error *run(const char *path, const char *branch, bool json)
{
    pm_table *t = NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, path, branch), done);
    PM_TRY_GOTO(e, pm_table_snapshot_ids(&ids, &n, t), done);
    if (!json)
        printf("id\tschema\tkind\ttime\tcommit_user\tidentifier\ttotal_records\tdelta_records\t"
               "base_manifest_list\tdelta_manifest_list\tchangelog_manifest_list\n");
    for (size_t i = 0; i < n; i++) {
        pm_snapshot *s = NULL;
        PM_TRY_GOTO(e, pm_table_snapshot(&s, t, ids[i]), done);
        if (json)
            print_json(s, i == 0);
        else
            print_text(s);
        pm_snapshot_free(s);
    }
    if (json)
        printf(n ? "\n]\n" : "[]\n");
done:
    pm_free(ids);
    pm_table_free(t);
    return e;
}

int pm_cmd_snapshots(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *table = NULL, *branch = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--branch") && i + 1 < argc)
            branch = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1])
            return pm_cli_usage_error(CMD, "unknown or incomplete option '%s'", argv[i]);
        else if (!table)
            table = argv[i];
        else
            return pm_cli_usage_error(CMD, "unexpected argument '%s'", argv[i]);
    }
    if (!table)
        return pm_cli_usage_error(CMD, "missing TABLE path");
    pm_error *e = run(table, branch, json);
    return e ? pm_cli_fail(CMD, e) : 0;
}
