/*
 * bench/table/bench_table.c — write and read an append table with
 * paimon-c: rows/s of the table writer + commit, and of a full scan.
 *
 * Data (seeded splitmix64, identical on every run), mixed types:
 *   id BIGINT NOT NULL        sequential
 *   qty INT                   0..999, ~10% null
 *   price DOUBLE              cents / 100
 *   category STRING NOT NULL  one of 40 words
 *   note STRING               random letters, 4..36 chars, ~10% null
 *   amount DECIMAL(18, 2)     0..10^9 cents
 *   ts TIMESTAMP(6)           increasing micros with jitter, ~10% null
 *   flag BOOLEAN              random
 *   day DATE                  2000-01-01 + 0..9999 days
 * Steps:
 *   1. generate every row as 65,536-row batches (not timed) and write them
 *      to <dir>/input.parquet (the pypaimon side loads it; its CPU time is
 *      reported as plain_parquet_write_cpu_s, the cost of the Parquet
 *      encoding alone, to show what the table layer adds);
 *   2. create the table <dir>/paimon-c/db.db/t (unaware bucket, defaults:
 *      Parquet, zstd level 1, 256 MiB files, truncate(16) stats);
 *   3. timed write: table writer over all batches, prepare commit, commit;
 *   4. timed read: scan the latest snapshot, read every data file with the
 *      Parquet reader in 65,536-row batches (what the append-table reader
 *      does for files of the current schema), counting rows and summing
 *      `id` so nothing is skipped.
 * Prints one JSON object (wall and CPU seconds, rows/s, files, bytes).
 *
 *   bench_table --dir DIR [--rows N] [--threads N]
 * --threads (default 1): encoding threads of the table writer (the rows
 * are then written as N files in parallel) and files read in parallel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "base/pool.h"
#include "base/util.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/table_commit.h"
#include "table/table_write.h"
#include "types/column.h"

#define BATCH 65536

static uint64_t rng_state = 0x5eed;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const char *const words[40] = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "amber", "basalt", "cobalt", "dune",
    "ember", "fjord", "glacier", "harbor", "island", "jungle", "kelp", "lagoon", "meadow", "nebula"};

#define SCHEMA "ROW<id BIGINT NOT NULL, qty INT, price DOUBLE, category STRING NOT NULL, note STRING, " \
               "amount DECIMAL(18, 2), ts TIMESTAMP(6), flag BOOLEAN, day DATE>"

static pm_error *fill(pm_batch *b, int64_t from, int64_t n)
{
    pm_column **c = b->columns;
    for (size_t i = 0; i < b->ncolumns; i++)
        PM_TRY(pm_column_reserve(c[i], n));
    char note[40];
    static int64_t ts = 1700000000000000LL;
    for (int64_t r = from; r < from + n; r++) {
        uint64_t x = rnd(), y = rnd();
        PM_TRY(pm_column_append_i64(c[0], r));
        PM_TRY(x % 10 == 0 ? pm_column_append_null(c[1]) : pm_column_append_i32(c[1], (int32_t)(y % 1000)));
        PM_TRY(pm_column_append_f64(c[2], (double)(y % 1000000) / 100.0));
        const char *w = words[(x >> 8) % 40];
        PM_TRY(pm_column_append_bytes(c[3], w, strlen(w)));
        if ((x >> 16) % 10 == 0) {
            PM_TRY(pm_column_append_null(c[4]));
        } else {
            size_t len = 4 + (size_t)((x >> 20) % 33);
            uint64_t z = rnd();
            for (size_t k = 0; k < len; k++) {
                if (k % 10 == 0)
                    z = rnd();
                note[k] = (char)('a' + (z % 26));
                z /= 26;
            }
            PM_TRY(pm_column_append_bytes(c[4], note, len));
        }
        PM_TRY(pm_column_append_decimal(c[5], (__int128)(y % 100000000000ull)));
        ts += (int64_t)(x >> 40) % 2000;
        PM_TRY((x >> 24) % 10 == 0 ? pm_column_append_null(c[6]) : pm_column_append_i64(c[6], ts));
        PM_TRY(pm_column_append_bool(c[7], (y >> 33) & 1));
        PM_TRY(pm_column_append_i32(c[8], 10957 + (int32_t)((y >> 40) % 10000)));
    }
    return pm_batch_finish(b, n);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static pm_error *write_input(const char *path, pm_batch **batches, size_t nb, const pm_type *rt)
{
    pm_fileio *fio = NULL;
    pm_output *out = NULL;
    pm_pq_writer *w = NULL;
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_fileio_local_new(&fio), done);
    PM_TRY_GOTO(e, pm_output_create(fio, path, true, &out), done);
    PM_TRY_GOTO(e, pm_pq_writer_new(&w, out, rt, &o), done);
    for (size_t i = 0; i < nb; i++)
        PM_TRY_GOTO(e, pm_pq_writer_write(w, batches[i]), done);
    e = pm_pq_writer_close(w, NULL);
    w = NULL;
    if (!e) {
        e = pm_output_close(out, false);
        out = NULL;
    }
done:
    pm_pq_writer_abort(w);
    pm_output_abort(out);
    pm_fileio_free(fio);
    return e;
}

static size_t threads = 1;

static pm_error *bench_write(const char *table, pm_batch **batches, size_t nb, size_t *files)
{
    pm_table *t = NULL;
    pm_table_writer *w = NULL;
    pm_commit_message *m = NULL;
    size_t n = 0;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, table, NULL), done);
    pm_table_write_options wo = {0, false, threads};
    PM_TRY_GOTO(e, pm_table_writer_new(&w, t, &wo), done);
    for (size_t i = 0; i < nb; i++)
        PM_TRY_GOTO(e, pm_table_writer_write(w, batches[i]), done);
    PM_TRY_GOTO(e, pm_table_writer_prepare_commit(w, &m, &n), done);
    pm_commit_options o = {0};
    o.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    o.kind = PM_COMMIT_APPEND;
    int64_t id = 0;
    PM_TRY_GOTO(e, pm_table_commit(t, &o, m, n, &id), done);
    *files = 0;
    for (size_t i = 0; i < n; i++)
        *files += m[i].n_new_files;
done:
    pm_commit_messages_free(m, n);
    if (e)
        pm_table_writer_abort(w);
    else
        pm_table_writer_free(w);
    pm_table_free(t);
    return e;
}

typedef struct read_job {
    pm_fileio *fio;
    char *path;
    int64_t rows, sum;
    pm_error *err;
} read_job;

static void read_file(void *arg)
{
    read_job *j = arg;
    pm_input *in = NULL;
    pm_pq_reader *pr = NULL;
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.batch_rows = BATCH;
    pm_error *e = pm_input_open(j->fio, j->path, &in);
    if (!e)
        e = pm_pq_reader_open(&pr, in, &o);
    while (!e) {
        pm_batch *batch = NULL;
        e = pm_pq_reader_next_batch(pr, &batch);
        if (e || !batch)
            break;
        const pm_column *id = batch->columns[0];
        for (int64_t i = 0; i < batch->num_rows; i++)
            j->sum += pm_column_i64(id, i);
        j->rows += batch->num_rows;
    }
    pm_pq_reader_free(pr);
    pm_input_close(in);
    j->err = e;
}

/* Scan, then read every file (files in parallel on `threads` threads). */
static pm_error *bench_read(const char *table, int64_t *rows, int64_t *sum, uint64_t *bytes)
{
    pm_table *t = NULL;
    pm_scan_result *r = NULL;
    pm_pool *pool = NULL;
    pm_task_group *g = NULL;
    read_job *jobs = NULL;
    size_t nj = 0;
    pm_error *e = NULL;
    *rows = *sum = 0;
    *bytes = 0;
    PM_TRY_GOTO(e, pm_table_open(&t, table, NULL), done);
    pm_scan_options so = pm_scan_options_default();
    PM_TRY_GOTO(e, pm_table_scan(t, &so, &r), done);
    size_t nfiles = 0;
    for (size_t b = 0; b < r->nbuckets; b++)
        nfiles += r->buckets[b].nfiles;
    PM_TRY_GOTO(e, pm_calloc(&jobs, nfiles ? nfiles : 1, sizeof *jobs), done);
    for (size_t b = 0; b < r->nbuckets && !e; b++) {
        const pm_bucket_files *bf = &r->buckets[b];
        char *dir = NULL;
        PM_TRY_GOTO(e, pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, bf->bucket, &dir), done);
        for (size_t k = 0; k < bf->nfiles && !e; k++) {
            jobs[nj].fio = t->fio;
            jobs[nj].path = pm_path_join(dir, bf->files[k].file_name);
            if (!jobs[nj].path)
                e = pm_oom();
            *bytes += (uint64_t)bf->files[k].file_size;
            nj++;
        }
        free(dir);
    }
    if (e)
        goto done;
    PM_TRY_GOTO(e, pm_pool_new(&pool, threads > 1 ? threads : 0), done);
    PM_TRY_GOTO(e, pm_group_new(&g), done);
    for (size_t i = 0; i < nj && !e; i++)
        e = pm_pool_submit(pool, g, read_file, &jobs[i]);
    pm_group_wait(g);
    for (size_t i = 0; i < nj; i++) {
        if (jobs[i].err && !e)
            e = jobs[i].err;
        else
            pm_error_free(jobs[i].err);
        *rows += jobs[i].rows;
        *sum += jobs[i].sum;
    }
done:
    pm_group_free(g);
    pm_pool_free(pool);
    for (size_t i = 0; i < nj; i++)
        free(jobs[i].path);
    free(jobs);
    pm_scan_result_free(r);
    pm_table_free(t);
    return e;
}

static int fail(pm_error *e)
{
    char *s = pm_error_format(e);
    fprintf(stderr, "bench_table: %s\n", s ? s : "error");
    free(s);
    pm_error_free(e);
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int64_t rows = 10000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
            rows = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (size_t)strtoll(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: bench_table --dir DIR [--rows N] [--threads N]\n");
            return 2;
        }
    }
    if (!dir || rows <= 0) {
        fprintf(stderr, "usage: bench_table --dir DIR [--rows N]\n");
        return 2;
    }
    pm_error *e = NULL;
    pm_type *rt = NULL;
    if ((e = pm_type_parse(&rt, SCHEMA)))
        return fail(e);
    size_t nb = (size_t)((rows + BATCH - 1) / BATCH);
    pm_batch **batches = calloc(nb, sizeof *batches);
    if (!batches)
        return 1;
    for (size_t i = 0; i < nb; i++) {
        int64_t from = (int64_t)i * BATCH, n = rows - from < BATCH ? rows - from : BATCH;
        if ((e = pm_batch_new(&batches[i], rt)) || (e = fill(batches[i], from, n)))
            return fail(e);
    }
    char path[4096], table[4096];
    snprintf(path, sizeof path, "%s/input.parquet", dir);
    double p0 = cpu_s();
    if ((e = write_input(path, batches, nb, rt)))
        return fail(e);
    double p1 = cpu_s();
    snprintf(table, sizeof table, "%s/paimon-c/db.db/t", dir);
    pm_table_spec spec = {rt, NULL, 0, NULL, 0, NULL, NULL, 0, NULL};
    if ((e = pm_table_create(table, &spec, false)))
        return fail(e);

    size_t files = 0;
    double w0 = now_s(), c0 = cpu_s();
    if ((e = bench_write(table, batches, nb, &files)))
        return fail(e);
    double w1 = now_s(), c1 = cpu_s();
    for (size_t i = 0; i < nb; i++)
        pm_batch_free(batches[i]);
    free(batches);

    int64_t got = 0, sum = 0;
    uint64_t bytes = 0;
    double r0 = now_s(), rc0 = cpu_s();
    if ((e = bench_read(table, &got, &sum, &bytes)))
        return fail(e);
    double r1 = now_s(), rc1 = cpu_s();
    if (got != rows || sum != rows * (rows - 1) / 2) {
        fprintf(stderr, "bench_table: read %lld rows (sum %lld), expected %lld\n", (long long)got, (long long)sum,
                (long long)rows);
        return 1;
    }
    printf("{\"engine\":\"paimon-c\",\"threads\":%zu,\"rows\":%lld,\"files\":%zu,\"bytes\":%llu,"
           "\"write_s\":%.3f,\"write_cpu_s\":%.3f,\"write_rows_s\":%.0f,"
           "\"read_s\":%.3f,\"read_cpu_s\":%.3f,\"read_rows_s\":%.0f,\"plain_parquet_write_cpu_s\":%.3f}\n",
           threads, (long long)rows, files, (unsigned long long)bytes, w1 - w0, c1 - c0, (double)rows / (w1 - w0), r1 - r0,
           rc1 - rc0, (double)rows / (r1 - r0), p1 - p0);
    pm_type_free(rt);
    return 0;
}
