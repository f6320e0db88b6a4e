/*
 * cli/cmd_write.c — `paimon write`: append (or overwrite) rows into a
 * table with one commit per invocation.
 *
 *   paimon write TABLE [--input FILE|-] [--input-format jsonl|csv|parquet]
 *                [--overwrite [--partition k=v[,k2=v2]]...]
 *                [--commit-user U] [--commit-identifier N] [--batch-rows N] [--threads N]
 *
 * Input formats (default: by the file's extension, else jsonl):
 *   jsonl    one JSON object per line, keys = column names, values in the
 *            `paimon cat` encoding (types/value.h); missing keys are null
 *   csv      a header row of column names, then one row per record
 *            (RFC 4180 quoting); an empty unquoted cell is null, "" is an
 *            empty string; cells use the text forms of types/value.h
 *   parquet  columns mapped to table fields by name (types must match)
 * Unknown columns are errors; NOT NULL columns must be present.
 * Primary-key tables take each row's kind from a `_ROW_KIND` column/field
 * (+I, -U, +U, -D; absent or null = +I).
 * The input streams through in batches of --batch-rows rows (default
 * 65536), so memory does not grow with the input.  Steps: open the table,
 * write every batch (data files are private until the commit), commit
 * (APPEND, or OVERWRITE of the whole table / the --partition specs).  On
 * any error before the commit the written files are removed; a failed
 * commit removes its files too, except when its outcome is uncertain
 * (then the files are kept so that re-running with the same
 * --commit-user/--commit-identifier completes it exactly once).
 * Prints "snapshot N: R rows in F files" (or "nothing to commit").  Then,
 * unless write-only=true, one automatic compaction round over the touched
 * buckets (compact/compact_run.h) may add a COMPACT snapshot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/pool.h"
#include "cli.h"
#include "format/parquet/parquet_reader.h"
#include "table/partition.h"
#include "table/pk_write.h"
#include "table/table_commit.h"
#include "table/table_write.h"
#include "table/write_input.h"
#include "types/column.h"
#include "types/value.h"

#define CMD "write"

typedef enum { IN_JSONL, IN_CSV, IN_PARQUET } input_format;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: paimon write TABLE [--input FILE|-] [--input-format jsonl|csv|parquet]\n"
            "                    [--overwrite [--partition k=v[,k2=v2]]...]\n"
            "                    [--commit-user U] [--commit-identifier N] [--batch-rows N] [--threads N]\n\n"
            "Write rows into the table at path TABLE (<warehouse>/<db>.db/<table>) as one commit.\n"
            "  --input FILE          rows to write ('-' or absent: stdin)\n"
            "  --input-format F      jsonl (JSON lines, the `paimon cat` encoding), csv (header row,\n"
            "                        empty unquoted cell = null) or parquet (columns by name);\n"
            "                        default: by the file extension, else jsonl\n"
            "  --overwrite           replace the table's rows (OVERWRITE commit) ...\n"
            "  --partition k=v       ... only in these partitions (repeatable)\n"
            "  --commit-user U       commit user (default: a random UUID)\n"
            "  --commit-identifier N commit identifier (default: batch, 9223372036854775807);\n"
            "                        re-running with the same user and identifier is a no-op\n"
            "  --batch-rows N        rows per batch handed to the writer (default 65536)\n"
            "  --threads N           encoding threads (default: CPUs, at most 8); large inputs to an\n"
            "                        unaware-bucket table are then written as N files in parallel\n");
}

typedef struct write_job {
    pm_table *t;
    pm_table_writer *w;
    int64_t rows;
    int64_t batch_rows;
} write_job;

static pm_error *write_batch(write_job *j, pm_batch *b)
{
    PM_TRY(pm_table_writer_write(j->w, b));
    j->rows += pm_batch_num_rows(b);
    return NULL;
}

/* ---- JSON lines and CSV (table/write_input.h) ---- */

static pm_error *file_source(void *ctx, void *buf, size_t cap, size_t *n)
{
    FILE *f = ctx;
    *n = fread(buf, 1, cap, f);
    if (*n == 0 && ferror(f))
        return pm_error_new(PM_EIO, "read input: %s", strerror(errno));
    return NULL;
}

/* Primary-key tables: the table's fields plus `_ROW_KIND` STRING (+I, -U,
 * +U, -D; absent or null = +I), which the writer takes as row kinds. */
static pm_error *input_type(pm_table *t, pm_type **out)
{
    const pm_type *rt = pm_table_schema(t)->row_type;
    *out = pm_type_clone(rt);
    if (!*out)
        return pm_error_new(PM_ENOMEM, "out of memory");
    if (!pm_table_has_primary_key(t) || pm_type_field_index(rt, PM_ROW_KIND_COLUMN) >= 0)
        return NULL;
    pm_type *k = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true);
    pm_error *e = k ? pm_type_add_field(*out, -1, PM_ROW_KIND_COLUMN, k) : pm_error_new(PM_ENOMEM, "out of memory");
    if (e) {
        pm_type_free(k);
        pm_type_free(*out);
        *out = NULL;
    }
    return e;
}

static pm_error *feed_text(write_job *j, FILE *in, pm_text_format fmt)
{
    pm_text_rows *r = NULL;
    pm_type *rt = NULL;
    PM_TRY(input_type(j->t, &rt));
    pm_error *e = pm_text_rows_new(&r, fmt, rt, file_source, in, j->batch_rows);
    if (e) {
        pm_type_free(rt);
        return e;
    }
    for (;;) {
        pm_batch *b = NULL;
        PM_TRY_GOTO(e, pm_text_rows_next(r, &b), done);
        if (!b)
            break;
        PM_TRY_GOTO(e, write_batch(j, b), done);
    }
done:
    pm_text_rows_free(r);
    pm_type_free(rt);
    return e;
}

/* ---- Parquet ---- */

static pm_error *feed_parquet(write_job *j, const char *path)
{
    if (!strcmp(path, "-"))
        return pm_error_new(PM_EINVALID, "Parquet input needs a file (--input FILE), not stdin");
    pm_fileio *fio = NULL;
    pm_input *in = NULL;
    pm_pq_reader *r = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_fileio_local_new(&fio), done);
    PM_TRY_GOTO(e, pm_input_open(fio, path, &in), done);
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.batch_rows = j->batch_rows;
    PM_TRY_GOTO(e, pm_pq_reader_open(&r, in, &o), done);
    for (;;) {
        pm_batch *b = NULL;
        PM_TRY_GOTO(e, pm_pq_reader_next_batch(r, &b), done);
        if (!b)
            break;
        PM_TRY_GOTO(e, write_batch(j, b), done);
    }
done:
    pm_pq_reader_free(r);
    pm_input_close(in);
    pm_fileio_free(fio);
    return e ? pm_error_wrap(e, 0, "Parquet input %s", path) : NULL;
}

/* ---- the command ---- */

static void delete_message_files(pm_table *t, const pm_commit_message *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *dir = NULL;
        pm_error *e = pm_table_bucket_dir(t, m[i].partition.data, m[i].partition.len, m[i].bucket, &dir);
        if (e) {
            pm_error_free(e);
            continue;
        }
        for (size_t k = 0; k < m[i].n_new_files + m[i].n_changelog; k++) {
            const pm_data_file_meta *f =
                k < m[i].n_new_files ? &m[i].new_files[k] : &m[i].changelog[k - m[i].n_new_files];
            char *p = pm_path_join(dir, f->file_name);
            if (p)
                pm_error_free(pm_fileio_delete(t->fio, p));
            free(p);
        }
        free(dir);
    }
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

int pm_cmd_write(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *table = NULL, *input = "-", *format = NULL, *user = NULL;
    bool overwrite = false;
    int64_t ident = PM_BATCH_COMMIT_IDENTIFIER, batch_rows = 65536;
    size_t threads = pm_cpu_count() < 8 ? pm_cpu_count() : 8;
    pm_partition_spec *specs = NULL;
    size_t nspecs = 0;
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool needs = !strcmp(a, "--input") || !strcmp(a, "--input-format") || !strcmp(a, "--partition") ||
                     !strcmp(a, "--commit-user") || !strcmp(a, "--commit-identifier") || !strcmp(a, "--batch-rows") ||
                     !strcmp(a, "--threads");
        if (needs && i + 1 >= argc) {
            rc = pm_cli_usage_error(CMD, "%s needs a value", a);
            goto out;
        }
        if (!strcmp(a, "--input")) {
            input = argv[++i];
        } else if (!strcmp(a, "--input-format")) {
            format = argv[++i];
        } else if (!strcmp(a, "--overwrite")) {
            overwrite = true;
        } else if (!strcmp(a, "--partition")) {
            pm_partition_spec *s = realloc(specs, (nspecs + 1) * sizeof *s);
            if (!s) {
                rc = pm_cli_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
                goto out;
            }
            specs = s;
            pm_error *e = pm_partition_spec_parse(argv[++i], &specs[nspecs]);
            if (e) {
                rc = pm_cli_bad_argument(CMD, e);
                goto out;
            }
            nspecs++;
        } else if (!strcmp(a, "--commit-user")) {
            user = argv[++i];
        } else if (!strcmp(a, "--commit-identifier") || !strcmp(a, "--batch-rows") || !strcmp(a, "--threads")) {
            const char *v = argv[++i];
            char *end;
            errno = 0;
            long long x = strtoll(v, &end, 10);
            if (!*v || *end || errno) {
                rc = pm_cli_usage_error(CMD, "%s needs an integer, got '%s'", a, v);
                goto out;
            }
            if (!strcmp(a, "--batch-rows") || !strcmp(a, "--threads")) {
                if (x <= 0 || (!strcmp(a, "--threads") && x > 64)) {
                    rc = pm_cli_usage_error(CMD, "%s must be in 1..%s", a,
                                            strcmp(a, "--threads") ? "2^63" : "64");
                    goto out;
                }
                if (!strcmp(a, "--threads"))
                    threads = (size_t)x;
                else
                    batch_rows = x;
            } else {
                ident = x;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = pm_cli_usage_error(CMD, "unknown option '%s'", a);
            goto out;
        } else if (!table) {
            table = a;
        } else {
            rc = pm_cli_usage_error(CMD, "unexpected argument '%s'", a);
            goto out;
        }
    }
    if (!table) {
        rc = pm_cli_usage_error(CMD, "TABLE is required");
        goto out;
    }
    if (nspecs && !overwrite) {
        rc = pm_cli_usage_error(CMD, "--partition only applies with --overwrite");
        goto out;
    }
    input_format fmt;
    if (!format)
        fmt = ends_with(input, ".csv") ? IN_CSV : ends_with(input, ".parquet") ? IN_PARQUET : IN_JSONL;
    else if (!strcmp(format, "jsonl") || !strcmp(format, "json"))
        fmt = IN_JSONL;
    else if (!strcmp(format, "csv"))
        fmt = IN_CSV;
    else if (!strcmp(format, "parquet"))
        fmt = IN_PARQUET;
    else {
        rc = pm_cli_usage_error(CMD, "unknown --input-format '%s' (jsonl, csv, parquet)", format);
        goto out;
    }

    pm_error *e = NULL;
    write_job j = {NULL, NULL, 0, batch_rows};
    FILE *in = NULL;
    pm_commit_message *msgs = NULL;
    size_t nmsgs = 0;
    int64_t snapshot = 0;
    PM_TRY_GOTO(e, pm_table_open(&j.t, table, NULL), fail);
    if (user) {
        /* already committed by an earlier run: nothing to write */
        PM_TRY_GOTO(e, pm_table_commit_find(j.t, user, ident, 0, &snapshot), fail);
        if (snapshot) {
            printf("snapshot %lld: already committed by %s with identifier %lld\n", (long long)snapshot, user,
                   (long long)ident);
            /* recovery: finish an interrupted automatic compaction round */
            e = pm_cli_compact_after_write(j.t, snapshot, user, NULL, 0);
            rc = 0;
            goto fail;
        }
    }
    pm_table_write_options wo = {0, overwrite, threads};
    PM_TRY_GOTO(e, pm_table_writer_new(&j.w, j.t, &wo), fail);
    if (fmt != IN_PARQUET) {
        in = strcmp(input, "-") ? fopen(input, "rb") : stdin;
        if (!in) {
            e = pm_error_new(errno == ENOENT ? PM_ENOTFOUND : PM_EIO, "open input %s: %s", input, strerror(errno));
            goto fail;
        }
    }
    if (fmt != IN_PARQUET)
        PM_TRY_GOTO(e, feed_text(&j, in, fmt == IN_CSV ? PM_TEXT_CSV : PM_TEXT_JSONL), fail);
    else
        PM_TRY_GOTO(e, feed_parquet(&j, input), fail);
    PM_TRY_GOTO(e, pm_table_writer_prepare_commit(j.w, &msgs, &nmsgs), fail);
    if (!overwrite) { /* primary keys: wait for compaction of buckets above the stop trigger */
        e = pm_cli_compact_stall(j.t, user, msgs, nmsgs);
        if (e) {
            delete_message_files(j.t, msgs, nmsgs);
            goto fail;
        }
    }
    pm_commit_options co = {0};
    co.commit_user = user;
    co.commit_identifier = ident;
    co.kind = overwrite ? PM_COMMIT_OVERWRITE : PM_COMMIT_APPEND;
    co.overwrite = nspecs ? specs : NULL;
    co.noverwrite = nspecs;
    e = pm_table_commit(j.t, &co, msgs, nmsgs, &snapshot);
    if (e) {
        if (pm_error_code(e) != PM_EUNCERTAIN)
            delete_message_files(j.t, msgs, nmsgs);
        goto fail;
    }
    size_t files = 0;
    for (size_t i = 0; i < nmsgs; i++)
        files += msgs[i].n_new_files;
    if (snapshot)
        printf("snapshot %lld: %lld rows in %zu files\n", (long long)snapshot, (long long)j.rows, files);
    else
        printf("nothing to commit\n");
    if (snapshot) /* automatic compaction (a separate snapshot; the data commit stays either way) */
        e = pm_cli_compact_after_write(j.t, snapshot, user, msgs, nmsgs);
    rc = 0;
fail:
    if (e) {
        rc = pm_cli_fail(CMD, e);
        pm_table_writer_abort(j.w); /* removes files not handed out */
        j.w = NULL;
    }
    if (in && in != stdin)
        fclose(in);
    pm_commit_messages_free(msgs, nmsgs);
    pm_table_writer_free(j.w);
    pm_table_free(j.t);
out:
    for (size_t i = 0; i < nspecs; i++)
        pm_partition_spec_clear(&specs[i]);
    free(specs);
    return rc;
}
