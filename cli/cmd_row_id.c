/*
 * cli/cmd_row_id.c — changes by row ID to data-evolution tables, through
 * paimon/write.h:
 *
 *   paimon update TABLE --columns a,b [--input FILE|-] [--input-format jsonl|csv]
 *                 [--commit-user U] [--commit-identifier N]
 *   paimon delete TABLE --row-ids 1,2,5-9 | --where EXPR [--commit-user U] [--commit-identifier N]
 *
 * update: every input row holds `_ROW_ID` and the named columns (the
 * table's types; JSON lines in the `paimon cat` encoding or CSV with a
 * header); those columns take the new values, the rest keep theirs.
 * delete: the listed row IDs (single IDs and inclusive ranges A-B) are
 * deleted through deletion vectors; or with --where (exclusive with
 * --row-ids) the live rows satisfying the predicate (the language of
 * `paimon read --where`, pm_table_delete_where).
 * Each is one APPEND snapshot; prints "snapshot N: R rows updated|deleted"
 * or "nothing to commit", and after an update the automatic compaction
 * round's snapshot.  Exit codes: 0 ok, 1 nothing committed, 2 usage, 3 the
 * update stands but its automatic compaction failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paimon/rows.h"
#include "paimon/schema.h"
#include "paimon/table.h"
#include "paimon/types.h"
#include "paimon/write.h"

static pm_error *file_source(void *ctx, void *buf, size_t cap, size_t *n)
{
    FILE *f = ctx;
    *n = fread(buf, 1, cap, f);
    if (*n == 0 && ferror(f))
        return pm_error_new(PM_EIO, "read input: %s", strerror(errno));
    return NULL;
}

typedef struct change_args {
    const char *table, *input, *format, *columns, *row_ids, *where, *user;
    int64_t ident;
} change_args;

static int parse_common(const char *cmd, int argc, char **argv, change_args *a, void (*usage)(FILE *))
{
    memset(a, 0, sizeof *a);
    a->ident = PM_BATCH_COMMIT_IDENTIFIER;
    a->input = "-";
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char **slot = NULL;
        if (!strcmp(s, "--input"))
            slot = &a->input;
        else if (!strcmp(s, "--input-format"))
            slot = &a->format;
        else if (!strcmp(s, "--columns"))
            slot = &a->columns;
        else if (!strcmp(s, "--row-ids"))
            slot = &a->row_ids;
        else if (!strcmp(s, "--where"))
            slot = &a->where;
        else if (!strcmp(s, "--commit-user"))
            slot = &a->user;
        if (slot) {
            if (i + 1 >= argc)
                return pm_cli_usage_error(cmd, "%s needs a value", s);
            *slot = argv[++i];
            continue;
        }
        if (!strcmp(s, "--commit-identifier")) {
            if (i + 1 >= argc)
                return pm_cli_usage_error(cmd, "%s needs a value", s);
            int rc = pm_cli_parse_int(cmd, s, argv[++i], INT64_MIN, INT64_MAX, &a->ident);
            if (rc)
                return rc;
            continue;
        }
        if (s[0] == '-' && s[1]) {
            usage(stderr);
            return pm_cli_usage_error(cmd, "unknown option %s", s);
        }
        if (a->table)
            return pm_cli_usage_error(cmd, "one TABLE only (got %s and %s)", a->table, s);
        a->table = s;
    }
    if (!a->table) {
        usage(stderr);
        return pm_cli_usage_error(cmd, "TABLE is required");
    }
    return 0;
}

/* Print what the commit (and the automatic round after an update) did;
 * the exit code. */
static int print_outcome(const char *cmd, const char *what, pm_commit_outcome *o)
{
    if (o->already_committed)
        printf("already committed as snapshot %" PRId64 "\n", o->snapshot_id);
    else if (!o->snapshot_id)
        printf("nothing to commit\n");
    else
        printf("snapshot %" PRId64 ": %" PRId64 " rows %s\n", o->snapshot_id, o->rows, what);
    if (o->compaction.snapshot_id)
        printf("snapshot %" PRId64 ": compacted %" PRId64 " files into %" PRId64 " files\n", o->compaction.snapshot_id,
               o->compaction.files_removed, o->compaction.files_added);
    if (!o->compaction_error)
        return PM_EXIT_OK;
    pm_cli_fail(cmd, pm_error_wrap(o->compaction_error, 0,
                                   "the %s (snapshot %" PRId64 ") stands; the automatic compaction after it failed",
                                   cmd, o->snapshot_id));
    o->compaction_error = NULL;
    return PM_EXIT_COMPACTION_FAILED;
}

/* ---- update ---- */

static void update_usage(FILE *f)
{
    fprintf(f,
            "usage: paimon update TABLE --columns a,b [--input FILE|-] [--input-format jsonl|csv]\n"
            "                     [--commit-user U] [--commit-identifier N]\n\n"
            "Update columns of rows of a data-evolution table by their _ROW_ID (one commit).\n"
            "  --columns a,b         the columns the input rows carry besides _ROW_ID\n"
            "  --input FILE          rows ('-' or absent: stdin), each with _ROW_ID and those columns\n"
            "  --input-format F      jsonl (default) or csv (header row)\n"
            "  --commit-user U, --commit-identifier N   make a re-run a no-op\n");
}

static pm_error *input_type(pm_table *t, const pm_cli_list *cols, pm_type **out)
{
    const pm_type *row = pm_schema_row_type(pm_table_schema(t));
    pm_type *ty = pm_type_new_row(false);
    pm_type *rid = pm_type_new(PM_TYPE_BIGINT, false);
    if (!ty || !rid) {
        pm_type_free(ty);
        pm_type_free(rid);
        return pm_error_new(PM_ENOMEM, "out of memory");
    }
    pm_error *e = pm_type_add_field(ty, 2147483642, "_ROW_ID", rid);
    if (e)
        pm_type_free(rid);
    for (size_t i = 0; !e && i < cols->n; i++) {
        ptrdiff_t k = pm_type_field_index(row, cols->items[i]);
        if (k < 0) {
            e = pm_error_new(PM_EINVALID, "column '%s' is not a field of the table", cols->items[i]);
            break;
        }
        const pm_field *f = &row->fields[k];
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(ty, f->id, f->name, ft) : pm_error_new(PM_ENOMEM, "out of memory");
        if (e && ft)
            pm_type_free(ft);
    }
    if (e) {
        pm_type_free(ty);
        return e;
    }
    *out = ty;
    return NULL;
}

int pm_cmd_update(int argc, char **argv)
{
    const char *cmd = "update";
    if (pm_cli_wants_help(argc, argv)) {
        update_usage(stdout);
        return PM_EXIT_OK;
    }
    change_args a;
    int rc = parse_common(cmd, argc, argv, &a, update_usage);
    if (rc)
        return rc;
    if (a.row_ids || a.where)
        return pm_cli_usage_error(cmd, "--row-ids and --where belong to 'paimon delete'");
    if (!a.columns)
        return pm_cli_usage_error(cmd, "--columns is required");
    pm_rows_format fmt = PM_ROWS_JSONL;
    if (a.format) {
        pm_error *fe = pm_rows_format_parse(&fmt, a.format);
        if (fe)
            return pm_cli_bad_argument(cmd, fe);
    }
    pm_cli_list cols = {0};
    if (pm_cli_list_split(&cols, a.columns))
        return pm_cli_usage_error(cmd, "--columns: empty column name");
    FILE *in = strcmp(a.input, "-") ? fopen(a.input, "rb") : stdin;
    if (!in) {
        pm_cli_list_free(&cols);
        return pm_cli_fail(cmd, pm_error_new(PM_EIO, "open %s: %s", a.input, strerror(errno)));
    }
    pm_table *t = NULL;
    pm_type *ty = NULL;
    pm_rows_reader *rr = NULL;
    pm_error *e = pm_table_open(&t, a.table, NULL);
    if (!e)
        e = input_type(t, &cols, &ty);
    if (!e)
        e = pm_rows_reader_new(&rr, fmt, ty, file_source, in, (int64_t)1 << 40);
    const pm_batch *b = NULL;
    if (!e)
        e = pm_rows_reader_next(&b, rr);
    if (!e && b) {
        const pm_batch *more = NULL;
        pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
        pm_write_options wo = PM_WRITE_OPTIONS_INIT;
        wo.commit_user = a.user;
        wo.commit_identifier = a.ident;
        e = pm_table_update_by_row_id(&o, t, b, &wo);
        if (!e)
            rc = print_outcome(cmd, "updated", &o);
        if (!e)
            e = pm_rows_reader_next(&more, rr);
        if (!e && more)
            e = pm_error_new(PM_EINVALID, "the input holds more rows than one update takes");
    } else if (!e) {
        printf("nothing to commit\n");
    }
    pm_rows_reader_free(rr);
    pm_type_free(ty);
    pm_table_free(t);
    pm_cli_list_free(&cols);
    if (in != stdin)
        fclose(in);
    return e ? pm_cli_fail(cmd, e) : rc;
}

/* ---- delete ---- */

static void delete_usage(FILE *f)
{
    fprintf(f,
            "usage: paimon delete TABLE --row-ids 1,2,5-9 | --where EXPR [--commit-user U] [--commit-identifier N]\n\n"
            "Delete rows of a data-evolution table (deletion-vectors.enabled=true) by _ROW_ID (one commit).\n"
            "  --row-ids L           row IDs and inclusive ranges A-B, comma-separated\n"
            "  --where EXPR          the rows satisfying this predicate (as paimon read --where)\n"
            "  --commit-user U, --commit-identifier N   make a re-run a no-op\n");
}

static int parse_ids(const char *cmd, const char *text, int64_t **out, size_t *n)
{
    pm_cli_list l = {0};
    if (pm_cli_list_split(&l, text))
        return pm_cli_usage_error(cmd, "--row-ids: empty item");
    int64_t *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0;
    for (size_t i = 0; i < l.n && !rc; i++) {
        char *dash = strchr(l.items[i] + 1, '-');
        int64_t lo = 0, hi = 0;
        if (dash) {
            *dash = 0;
            rc = pm_cli_parse_int(cmd, "--row-ids", l.items[i], 0, INT64_MAX, &lo);
            if (!rc)
                rc = pm_cli_parse_int(cmd, "--row-ids", dash + 1, lo, INT64_MAX, &hi);
        } else {
            rc = pm_cli_parse_int(cmd, "--row-ids", l.items[i], 0, INT64_MAX, &lo);
            hi = lo;
        }
        if (!rc && hi - lo > 100000000)
            rc = pm_cli_usage_error(cmd, "--row-ids: range %" PRId64 "-%" PRId64 " is too large", lo, hi);
        for (int64_t x = lo; !rc && x <= hi; x++) {
            if (cnt == cap) {
                cap = cap ? cap * 2 : 64;
                int64_t *nv = realloc(v, cap * sizeof *v);
                if (!nv) {
                    rc = pm_cli_fail(cmd, pm_error_new(PM_ENOMEM, "out of memory"));
                    break;
                }
                v = nv;
            }
            v[cnt++] = x;
        }
    }
    pm_cli_list_free(&l);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *n = cnt;
    return 0;
}

int pm_cmd_delete(int argc, char **argv)
{
    const char *cmd = "delete";
    if (pm_cli_wants_help(argc, argv)) {
        delete_usage(stdout);
        return PM_EXIT_OK;
    }
    change_args a;
    int rc = parse_common(cmd, argc, argv, &a, delete_usage);
    if (rc)
        return rc;
    if (a.columns || a.format || strcmp(a.input, "-"))
        return pm_cli_usage_error(cmd, "--columns, --input and --input-format belong to 'paimon update'");
    if (a.row_ids && a.where)
        return pm_cli_usage_error(cmd, "--row-ids and --where are exclusive");
    if (!a.row_ids && !a.where)
        return pm_cli_usage_error(cmd, "--row-ids (or --where) is required");
    int64_t *ids = NULL;
    size_t n = 0;
    rc = a.row_ids ? parse_ids(cmd, a.row_ids, &ids, &n) : 0;
    if (rc)
        return rc;
    pm_table *t = NULL;
    pm_error *e = pm_table_open(&t, a.table, NULL);
    if (!e) {
        pm_commit_outcome o = PM_COMMIT_OUTCOME_INIT;
        pm_write_options wo = PM_WRITE_OPTIONS_INIT;
        wo.commit_user = a.user;
        wo.commit_identifier = a.ident;
        e = a.where ? pm_table_delete_where(&o, t, a.where, &wo) : pm_table_delete_by_row_id(&o, t, ids, n, &wo);
        if (!e)
            rc = print_outcome(cmd, "deleted", &o);
    }
    pm_table_free(t);
    free(ids);
    return e ? pm_cli_fail(cmd, e) : rc;
}
