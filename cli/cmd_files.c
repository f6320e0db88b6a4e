/*
 * cli/cmd_files.c — `paimon files TABLE [--snapshot N] [--branch B]
 * [--partition k=v]... [--json]`: the live data files of a snapshot, like
 * Paimon's `$files` system table: partition (k=v/...), bucket, file path
 * and name, format, schema id, level, record count, size in bytes,
 * min/max sequence number, creation time, delete row count, file source
 * (APPEND / COMPACT), first row id, written columns, external path and
 * the deleted-row count of its deletion vector when it has one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"
#include "table_args.h"
#include "meta/json.h"
#include "table/partition.h"
#include "table/scan.h"
#include "types/temporal.h"

#define CMD "files"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " TABLE [--snapshot N] [--branch B] [--partition k=v]... [--json]\n\n"
               "List the live data files of a Paimon table (like its $files system table).\n\n"
               "  --snapshot N     files of snapshot N (default latest)\n"
               "  --branch B       branch B (default main)\n"
               "  --partition k=v  only partitions matching k=v[,k2=v2] (repeatable)\n"
               "  --json           one JSON array of objects instead of a text table\n");
}

static const char *source_name(const pm_data_file_meta *f)
{
    if (!f->file_source.has)
        return NULL;
    return f->file_source.v == PM_FILE_SOURCE_COMPACT ? "COMPACT" : "APPEND";
}

static const char *format_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : "";
}

static pm_error *file_path(pm_table *t, const pm_bucket_files *b, const pm_data_file_meta *f, pm_buf *out)
{
    if (f->external_path)
        return pm_buf_append_str(out, f->external_path);
    char *dir = NULL;
    PM_TRY(pm_table_bucket_dir(t, b->partition.data, b->partition.len, b->bucket, &dir));
    pm_error *e = pm_buf_printf(out, "%s/%s", dir, f->file_name);
    free(dir);
    return e;
}

static const pm_deletion_file *dv_of(const pm_bucket_files *b, const pm_data_file_meta *f)
{
    for (size_t i = 0; i < b->ndvs; i++)
        if (b->dvs[i].data_file == f->file_name)
            return &b->dvs[i];
    return NULL;
}

static pm_error *emit_json(pm_table *t, const pm_bucket_files *b, const pm_data_file_meta *f, bool first,
                           pm_buf *out, pm_buf *tmp)
{
    const char *s = NULL;
    PM_TRY(pm_buf_append_str(out, first ? "[\n  {\"partition\":" : ",\n  {\"partition\":"));
    pm_buf_clear(tmp);
    PM_TRY(pm_partition_display(t, b->partition.data, b->partition.len, tmp));
    PM_TRY(pm_buf_cstr(tmp, &s));
    PM_TRY(pm_json_append_string(out, s));
    PM_TRY(pm_buf_printf(out, ",\"bucket\":%d,\"file_path\":", (int)b->bucket));
    pm_buf_clear(tmp);
    PM_TRY(file_path(t, b, f, tmp));
    PM_TRY(pm_buf_cstr(tmp, &s));
    PM_TRY(pm_json_append_string(out, s));
    PM_TRY(pm_buf_append_str(out, ",\"file_name\":"));
    PM_TRY(pm_json_append_string(out, f->file_name));
    PM_TRY(pm_buf_append_str(out, ",\"file_format\":"));
    PM_TRY(pm_json_append_string(out, format_of(f->file_name)));
    PM_TRY(pm_buf_printf(out,
                         ",\"schema_id\":%" PRId64 ",\"level\":%d,\"record_count\":%" PRId64
                         ",\"file_size_in_bytes\":%" PRId64 ",\"min_sequence_number\":%" PRId64
                         ",\"max_sequence_number\":%" PRId64 ",\"creation_time\":",
                         f->schema_id, (int)f->level, f->row_count, f->file_size, f->min_sequence_number,
                         f->max_sequence_number));
    if (f->creation_time.has) {
        pm_buf_clear(tmp);
        PM_TRY(pm_format_timestamp(tmp, f->creation_time.v, 3, false));
        PM_TRY(pm_buf_cstr(tmp, &s));
        PM_TRY(pm_json_append_string(out, s));
    } else {
        PM_TRY(pm_buf_append_str(out, "null"));
    }
    if (f->delete_row_count.has)
        PM_TRY(pm_buf_printf(out, ",\"delete_row_count\":%" PRId64, f->delete_row_count.v));
    else
        PM_TRY(pm_buf_append_str(out, ",\"delete_row_count\":null"));
    PM_TRY(pm_buf_append_str(out, ",\"file_source\":"));
    if (source_name(f))
        PM_TRY(pm_json_append_string(out, source_name(f)));
    else
        PM_TRY(pm_buf_append_str(out, "null"));
    if (f->first_row_id.has)
        PM_TRY(pm_buf_printf(out, ",\"first_row_id\":%" PRId64, f->first_row_id.v));
    else
        PM_TRY(pm_buf_append_str(out, ",\"first_row_id\":null"));
    PM_TRY(pm_buf_append_str(out, ",\"write_cols\":"));
    if (f->has_write_cols) {
        PM_TRY(pm_buf_append_byte(out, '['));
        for (size_t i = 0; i < f->write_cols.count; i++) {
            if (i)
                PM_TRY(pm_buf_append_byte(out, ','));
            PM_TRY(pm_json_append_string(out, f->write_cols.items[i]));
        }
        PM_TRY(pm_buf_append_byte(out, ']'));
    } else {
        PM_TRY(pm_buf_append_str(out, "null"));
    }
    PM_TRY(pm_buf_append_str(out, ",\"external_path\":"));
    if (f->external_path)
        PM_TRY(pm_json_append_string(out, f->external_path));
    else
        PM_TRY(pm_buf_append_str(out, "null"));
    const pm_deletion_file *dv = dv_of(b, f);
    if (dv && dv->cardinality.has)
        PM_TRY(pm_buf_printf(out, ",\"deleted_rows\":%" PRId64, dv->cardinality.v));
    else
        PM_TRY(pm_buf_printf(out, ",\"deleted_rows\":%s", dv ? "null" : "0"));
    return pm_buf_append_byte(out, '}');
}

static pm_error *emit_text(pm_table *t, const pm_bucket_files *b, const pm_data_file_meta *f, pm_buf *out)
{
    size_t start = out->len;
    PM_TRY(pm_partition_display(t, b->partition.data, b->partition.len, out));
    if (out->len == start)
        PM_TRY(pm_buf_append_byte(out, '-'));
    const pm_deletion_file *dv = dv_of(b, f);
    PM_TRY(pm_buf_printf(out, "\t%d\t%s\t%d\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%s\t",
                         (int)b->bucket, f->file_name, (int)f->level, f->row_count, f->file_size,
                         f->min_sequence_number, f->max_sequence_number, f->schema_id,
                         source_name(f) ? source_name(f) : "-"));
    if (f->delete_row_count.has)
        PM_TRY(pm_buf_printf(out, "%" PRId64, f->delete_row_count.v));
    else
        PM_TRY(pm_buf_append_byte(out, '-'));
    if (dv && dv->cardinality.has)
        PM_TRY(pm_buf_printf(out, "\t%" PRId64 "\n", dv->cardinality.v));
    else
        PM_TRY(pm_buf_append_str(out, dv ? "\t?\n" : "\t0\n"));
    return NULL;
}

static pm_error *run(const char *path, const char *branch, int64_t snapshot, pm_partition_spec *specs,
                     size_t nspecs, bool json)
{
    pm_table *t = NULL;
    pm_scan_result *r = NULL;
    pm_buf out = PM_BUF_INIT, tmp = PM_BUF_INIT;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, path, branch), done);
    pm_scan_options o = pm_scan_options_default();
    o.snapshot_id = snapshot;
    o.partitions = specs;
    o.npartitions = nspecs;
    PM_TRY_GOTO(e, pm_table_scan(t, &o, &r), done);
    if (!json)
        PM_TRY_GOTO(e, pm_buf_append_str(&out, "partition\tbucket\tfile\tlevel\trows\tbytes\tmin_seq\tmax_seq\t"
                                               "schema_id\tsource\tdelete_rows\tdv_deleted\n"),
                    done);
    bool first = true;
    for (size_t i = 0; i < r->nbuckets; i++)
        for (size_t j = 0; j < r->buckets[i].nfiles; j++) {
            const pm_bucket_files *b = &r->buckets[i];
            e = json ? emit_json(t, b, &b->files[j], first, &out, &tmp) : emit_text(t, b, &b->files[j], &out);
            first = false;
            if (e)
                goto done;
        }
    if (json)
        PM_TRY_GOTO(e, pm_buf_append_str(&out, first ? "[]\n" : "\n]\n"), done);
    fwrite(out.data, 1, out.len, stdout);
done:
    pm_buf_free(&out);
    pm_buf_free(&tmp);
    pm_scan_result_free(r);
    pm_table_free(t);
    return e;
}

int pm_cmd_files(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    pm_cli_table_args ta = {0};
    bool json = false;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else
            rc = pm_cli_table_arg(CMD, argc, argv, &i, &ta);
    }
    if (!rc)
        rc = pm_cli_table_args_check(CMD, &ta);
    if (!rc) {
        pm_error *e = run(ta.table, ta.branch, ta.snapshot, ta.specs, ta.nspecs, json);
        rc = e ? pm_cli_fail(CMD, e) : 0;
    }
    pm_cli_table_args_clear(&ta);
    return rc;
}
