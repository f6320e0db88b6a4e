/*
 * cli/cmd_snapshots.c — `paimon snapshots TABLE [--branch B] [--json]`:
 * list a table's snapshots, oldest first: id, schema id, commit kind, time,
 * commit user and identifier, total / delta (/ changelog) record counts
 * and the manifest lists (base, delta, changelog) and index manifest.
 * Text output is one line per snapshot with a header; --json prints one
 * JSON array of objects keyed like the snapshot file (plus "time", the
 * commit time as ISO-8601 UTC).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"
#include "meta/json.h"
#include "meta/snapshot_store.h"
#include "table/table_internal.h"
#include "types/temporal.h"

#define CMD "snapshots"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " TABLE [--branch B] [--json]\n\n"
               "List the snapshots of a Paimon table (id, schema id, kind, time, commit user,\n"
               "commit identifier, total/delta record counts, manifest lists).\n\n"
               "  --branch B  snapshots of branch B (default main)\n"
               "  --json      one JSON array of objects instead of a text table\n");
}

static pm_error *iso_time(pm_buf *out, int64_t millis)
{
    return pm_format_timestamp(out, millis, 3, true);
}

static pm_error *json_str_field(pm_buf *b, const char *key, const char *v, bool *first)
{
    if (!v)
        return NULL;
    PM_TRY(pm_buf_printf(b, "%s\"%s\":", *first ? "" : ",", key));
    *first = false;
    return pm_json_append_string(b, v);
}

static pm_error *json_long_field(pm_buf *b, const char *key, bool has, int64_t v, bool *first)
{
    if (!has)
        return NULL;
    PM_TRY(pm_buf_printf(b, "%s\"%s\":%" PRId64, *first ? "" : ",", key, v));
    *first = false;
    return NULL;
}

static pm_error *print_json(const pm_snapshot *s, bool first_item, pm_buf *b)
{
    bool first = true;
    PM_TRY(pm_buf_append_str(b, first_item ? "[\n  {" : ",\n  {"));
    PM_TRY(json_long_field(b, "id", true, s->id, &first));
    PM_TRY(json_long_field(b, "schemaId", true, s->schema_id, &first));
    PM_TRY(json_str_field(b, "commitKind", pm_commit_kind_name(s->commit_kind), &first));
    PM_TRY(json_long_field(b, "timeMillis", true, s->time_millis, &first));
    pm_buf t = PM_BUF_INIT;
    const char *ts = NULL;
    pm_error *e = iso_time(&t, s->time_millis);
    if (!e)
        e = pm_buf_cstr(&t, &ts);
    if (!e)
        e = json_str_field(b, "time", ts, &first);
    pm_buf_free(&t);
    PM_TRY(e);
    PM_TRY(json_str_field(b, "commitUser", s->commit_user, &first));
    PM_TRY(json_long_field(b, "commitIdentifier", true, s->commit_identifier, &first));
    PM_TRY(json_long_field(b, "totalRecordCount", true, s->total_record_count, &first));
    PM_TRY(json_long_field(b, "deltaRecordCount", true, s->delta_record_count, &first));
    PM_TRY(json_long_field(b, "changelogRecordCount", s->changelog_record_count.has, s->changelog_record_count.v,
                           &first));
    PM_TRY(json_str_field(b, "baseManifestList", s->base_manifest_list, &first));
    PM_TRY(json_str_field(b, "deltaManifestList", s->delta_manifest_list, &first));
    PM_TRY(json_str_field(b, "changelogManifestList", s->changelog_manifest_list, &first));
    PM_TRY(json_str_field(b, "indexManifest", s->index_manifest, &first));
    PM_TRY(json_long_field(b, "watermark", s->watermark.has, s->watermark.v, &first));
    PM_TRY(json_long_field(b, "nextRowId", s->next_row_id.has, s->next_row_id.v, &first));
    PM_TRY(json_str_field(b, "operation", pm_snapshot_operation_name(s->operation), &first));
    return pm_buf_append_byte(b, '}');
}

static pm_error *print_text(const pm_snapshot *s, pm_buf *b)
{
    PM_TRY(pm_buf_printf(b, "%" PRId64 "\t%" PRId64 "\t%s\t", s->id, s->schema_id, pm_commit_kind_name(s->commit_kind)));
    PM_TRY(iso_time(b, s->time_millis));
    PM_TRY(pm_buf_printf(b, "\t%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%s\t%s\t%s\n",
                         s->commit_user ? s->commit_user : "-", s->commit_identifier, s->total_record_count,
                         s->delta_record_count, s->base_manifest_list ? s->base_manifest_list : "-",
                         s->delta_manifest_list ? s->delta_manifest_list : "-",
                         s->changelog_manifest_list ? s->changelog_manifest_list : "-"));
    return NULL;
}

static pm_error *run(const char *path, const char *branch, bool json)
{
    pm_table *t = NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    pm_buf b = PM_BUF_INIT;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, path, branch), done);
    PM_TRY_GOTO(e, pm_snapshot_store_list_ids(t->snapshots, &ids, &n), done);
    if (json && !n)
        PM_TRY_GOTO(e, pm_buf_append_str(&b, "["), done);
    if (!json)
        PM_TRY_GOTO(e, pm_buf_append_str(&b, "id\tschema\tkind\ttime\tcommit_user\tidentifier\ttotal_records\t"
                                             "delta_records\tbase_manifest_list\tdelta_manifest_list\t"
                                             "changelog_manifest_list\n"),
                    done);
    for (size_t i = 0; i < n; i++) {
        pm_snapshot *s = NULL;
        PM_TRY_GOTO(e, pm_snapshot_store_load(t->snapshots, ids[i], &s), done);
        e = json ? print_json(s, i == 0, &b) : print_text(s, &b);
        pm_snapshot_free(s);
        if (e)
            goto done;
    }
    if (json)
        PM_TRY_GOTO(e, pm_buf_append_str(&b, n ? "\n]\n" : "]\n"), done);
    if (b.len)
        fwrite(b.data, 1, b.len, stdout);
done:
    pm_buf_free(&b);
    free(ids);
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
