/*
 * cli/cmd_levels.c — `paimon levels TABLE [--snapshot N] [--branch B]
 * [--partition k=v]... [--files]`: the LSM shape of every bucket of a
 * primary-key table as a compact text chart.
 *
 * Per bucket (lsm/levels.h orders the files as Java's Levels does: each
 * level-0 file is a sorted run, newest first; then one run per non-empty
 * level 1..max):
 *   <partition> bucket <b>: <runs> runs, <files> files, <rows> rows, <size>
 *     L<level>  <files> files  <rows> rows  <size>  <bar>  seq <min>..<max>  keys <min> .. <max>
 * The bar is proportional to the run's size against the bucket's largest
 * run (20 columns).  Keys are the run's first and last key (the trimmed
 * primary key as JSON values).  --files lists each run's files below it.
 * A bucket whose positive levels hold overlapping key ranges (which
 * Paimon never writes) is listed file by file with the reason.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "cli.h"
#include "table_args.h"
#include "lsm/levels.h"
#include "table/partition.h"
#include "table/scan.h"
#include "types/binary_row.h"
#include "types/column.h"

#define CMD "levels"
#define BAR 20

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " TABLE [--snapshot N] [--branch B] [--partition k=v]... [--files]\n\n"
               "Print the sorted runs of every bucket of a primary-key table: level-0 files (each its\n"
               "own run, newest first), then each non-empty level, with file counts, rows, sizes,\n"
               "sequence numbers, key ranges and a size bar.\n\n"
               "  --snapshot N     snapshot N (default latest)\n"
               "  --branch B       branch B (default main)\n"
               "  --partition k=v  only partitions matching k=v[,k2=v2] (repeatable)\n"
               "  --files          also list the files of each run\n");
}

static pm_error *human_size(pm_buf *out, int64_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    return u ? pm_buf_printf(out, "%.1f %s", v, units[u]) : pm_buf_printf(out, "%lld B", (long long)n);
}

typedef struct key_fmt {
    const pm_type *kt;
    pm_column **cols;
} key_fmt;

#define KEY_TEXT_MAX 48

/* "[v1, v2]" of a serialized key BinaryRow, shortened to KEY_TEXT_MAX
 * bytes (at a UTF-8 boundary) with "...". */
static pm_error *key_text(key_fmt *k, const pm_bytes *key, pm_buf *out)
{
    pm_binrow row;
    pm_error *e = pm_binrow_deserialize(&row, key->data, key->len, (int32_t)k->kt->nfields);
    if (e) {
        pm_error_free(e);
        return pm_buf_append_str(out, "<bad key>");
    }
    pm_buf t = PM_BUF_INIT;
    e = pm_buf_append_str(&t, "[");
    for (size_t i = 0; !e && i < k->kt->nfields; i++) {
        pm_column_reset(k->cols[i]);
        e = pm_binrow_append_to_column(&row, (int32_t)i, k->cols[i]);
        if (!e && i)
            e = pm_buf_append_str(&t, ", ");
        if (!e)
            e = pm_column_format_json(k->cols[i], 0, &t);
    }
    if (!e)
        e = pm_buf_append_str(&t, "]");
    if (!e) {
        size_t n = t.len;
        if (n > KEY_TEXT_MAX) {
            n = KEY_TEXT_MAX;
            while (n > 0 && (t.data[n] & 0xc0) == 0x80)
                n--;
        }
        e = pm_buf_append(out, t.data, n);
        if (!e && n < t.len)
            e = pm_buf_append_str(out, "...");
    }
    pm_buf_free(&t);
    return e;
}

static pm_error *file_line(key_fmt *k, const pm_data_file_meta *f, pm_buf *out)
{
    PM_TRY(pm_buf_printf(out, "        %s  L%d  %" PRId64 " rows  ", f->file_name, (int)f->level, f->row_count));
    PM_TRY(human_size(out, f->file_size));
    PM_TRY(pm_buf_printf(out, "  seq %" PRId64 "..%" PRId64, f->min_sequence_number, f->max_sequence_number));
    if (f->delete_row_count.has && f->delete_row_count.v)
        PM_TRY(pm_buf_printf(out, "  deletes %" PRId64, f->delete_row_count.v));
    PM_TRY(pm_buf_append_str(out, "  keys "));
    PM_TRY(key_text(k, &f->min_key, out));
    PM_TRY(pm_buf_append_str(out, " .. "));
    PM_TRY(key_text(k, &f->max_key, out));
    return pm_buf_append_str(out, "\n");
}

static pm_error *bucket_header(pm_table *t, const pm_bucket_files *b, size_t nruns, pm_buf *out)
{
    int64_t rows = 0, size = 0;
    for (size_t i = 0; i < b->nfiles; i++) {
        rows += b->files[i].row_count;
        size += b->files[i].file_size;
    }
    pm_buf p = PM_BUF_INIT;
    pm_error *e = pm_partition_display(t, b->partition.data, b->partition.len, &p);
    if (!e)
        e = pm_buf_printf(out, "%.*s%sbucket %d: %zu runs, %zu files, %" PRId64 " rows, ", (int)p.len,
                          p.data ? (const char *)p.data : "", p.len ? " " : "", (int)b->bucket, nruns, b->nfiles,
                          rows);
    pm_buf_free(&p);
    PM_TRY(e);
    PM_TRY(human_size(out, size));
    return pm_buf_append_str(out, "\n");
}

static pm_error *print_bucket(pm_table *t, const pm_type *kt, int32_t num_levels, const pm_bucket_files *b,
                              bool files, key_fmt *k, pm_buf *out)
{
    pm_levels *lv = NULL;
    pm_error *le = pm_levels_new(&lv, kt, num_levels, b->files, b->nfiles);
    if (le) {
        PM_TRY(bucket_header(t, b, 0, out));
        char *msg = pm_error_format(le);
        pm_error_free(le);
        pm_error *e = pm_buf_printf(out, "    (no valid LSM shape: %s)\n", msg ? msg : "?");
        free(msg);
        PM_TRY(e);
        for (size_t i = 0; i < b->nfiles; i++)
            PM_TRY(file_line(k, &b->files[i], out));
        return NULL;
    }
    size_t nruns = 0;
    const pm_lsm_run *runs = pm_levels_runs(lv, &nruns);
    pm_error *e = bucket_header(t, b, nruns, out);
    int64_t biggest = 1;
    for (size_t i = 0; i < nruns; i++)
        if (runs[i].size > biggest)
            biggest = runs[i].size;
    for (size_t i = 0; !e && i < nruns; i++) {
        const pm_lsm_run *r = &runs[i];
        int64_t rows = 0, minseq = INT64_MAX, maxseq = INT64_MIN;
        for (size_t f = 0; f < r->nfiles; f++) {
            const pm_data_file_meta *m = &r->files[f]->meta;
            rows += m->row_count;
            if (m->min_sequence_number < minseq)
                minseq = m->min_sequence_number;
            if (m->max_sequence_number > maxseq)
                maxseq = m->max_sequence_number;
        }
        pm_buf size = PM_BUF_INIT;
        e = human_size(&size, r->size);
        char bar[BAR + 1];
        int w = (int)((r->size * BAR + biggest - 1) / biggest);
        if (w < 1)
            w = 1;
        if (w > BAR)
            w = BAR;
        for (int c = 0; c < BAR; c++)
            bar[c] = c < w ? '#' : '.';
        bar[BAR] = 0;
        if (!e)
            e = pm_buf_printf(out, "    L%-2d %4zu file%s %10" PRId64 " rows %11.*s  %s  seq %" PRId64 "..%" PRId64
                                   "  keys ",
                              (int)r->level, r->nfiles, r->nfiles == 1 ? " " : "s", rows, (int)size.len,
                              (const char *)size.data, bar, minseq, maxseq);
        pm_buf_free(&size);
        if (!e)
            e = key_text(k, &r->files[0]->meta.min_key, out);
        if (!e)
            e = pm_buf_append_str(out, " .. ");
        if (!e)
            e = key_text(k, &r->files[r->nfiles - 1]->meta.max_key, out);
        if (!e)
            e = pm_buf_append_str(out, "\n");
        for (size_t f = 0; files && !e && f < r->nfiles; f++)
            e = file_line(k, &r->files[f]->meta, out);
    }
    pm_levels_free(lv);
    return e;
}

static pm_error *run(const char *path, const char *branch, int64_t snapshot, pm_partition_spec *specs,
                     size_t nspecs, bool files)
{
    pm_table *t = NULL;
    pm_scan_result *r = NULL;
    pm_type *kt = NULL;
    key_fmt k = {NULL, NULL};
    pm_buf out = PM_BUF_INIT;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, path, branch), done);
    pm_scan_options o = pm_scan_options_default();
    o.snapshot_id = snapshot;
    o.partitions = specs;
    o.npartitions = nspecs;
    PM_TRY_GOTO(e, pm_table_scan(t, &o, &r), done);
    const pm_schema *s = r->schema ? r->schema : pm_table_schema(t);
    if (!s->primary_keys.count) {
        e = pm_error_new(PM_EINVALID, "table %s has no primary key (levels are a primary-key table concept)", path);
        goto done;
    }
    PM_TRY_GOTO(e, pm_schema_trimmed_primary_key_type(s, &kt), done);
    int32_t num_levels = 0;
    PM_TRY_GOTO(e, pm_options_num_levels(s->options, &num_levels), done);
    k.kt = kt;
    PM_TRY_GOTO(e, pm_calloc(&k.cols, kt->nfields ? kt->nfields : 1, sizeof *k.cols), done);
    for (size_t i = 0; i < kt->nfields; i++)
        PM_TRY_GOTO(e, pm_column_new(&k.cols[i], kt->fields[i].type), done);
    if (!r->nbuckets)
        PM_TRY_GOTO(e, pm_buf_append_str(&out, r->snapshot ? "no files\n" : "no snapshot\n"), done);
    for (size_t i = 0; i < r->nbuckets; i++) {
        PM_TRY_GOTO(e, print_bucket(t, kt, num_levels, &r->buckets[i], files, &k, &out), done);
        if (out.len > (1 << 20)) {
            fwrite(out.data, 1, out.len, stdout);
            pm_buf_clear(&out);
        }
    }
    fwrite(out.data, 1, out.len, stdout);
done:
    if (k.cols)
        for (size_t i = 0; kt && i < kt->nfields; i++)
            pm_column_release(k.cols[i]);
    free(k.cols);
    pm_type_free(kt);
    pm_buf_free(&out);
    pm_scan_result_free(r);
    pm_table_free(t);
    return e;
}

int pm_cmd_levels(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    pm_cli_table_args ta = {0};
    bool files = false;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--files"))
            files = true;
        else
            rc = pm_cli_table_arg(CMD, argc, argv, &i, &ta);
    }
    if (!rc)
        rc = pm_cli_table_args_check(CMD, &ta);
    if (!rc) {
        pm_error *e = run(ta.table, ta.branch, ta.snapshot, ta.specs, ta.nspecs, files);
        rc = e ? pm_cli_fail(CMD, e) : 0;
    }
    pm_cli_table_args_clear(&ta);
    return rc;
}
