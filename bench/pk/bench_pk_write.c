/*
 * bench/pk/bench_pk_write.c — primary-key write throughput of paimon-c on
 * an existing table (e.g. a dynamic-bucket one, bucket = -1): the rows of
 * bench/java TableGen write-pk (same keys, same values, bit for bit),
 * generated in the process as Java's TableGen does, written through
 * pm_table_writer (one writer, prepare commit and commit per run, as
 * Java's one BatchTableWrite per run) and committed.  Dynamic buckets: the
 * writer loads the HASH index of the latest snapshot, assigns buckets and
 * commits the new index files with the data.
 *
 *   bench_pk_write TABLE --rows N [--runs R] [--overlap F] [--seed S] [--threads T]
 *                  [--file-rows F]
 *       one JSON line: {"engine":"paimon-c","rows":..,"wall_ms":..,"cpu_ms":..,"files":..}
 *       --file-rows F: every run's files hold F records each (the last of
 *       a run the rest): the table's target-file-row-num is set to F for
 *       the writes (schema N+1) and reset after them (schema N+2), so a
 *       later compaction sees the table's own options.  Each run is one
 *       sorted run whatever its size (the writer merges its spilled
 *       buffers before writing level 0), so tables of R runs have the same
 *       shape at any N (bench/compact/scale.py --pk).
 *   bench_pk_write --dump DIR --rows N [--runs R] [--overlap F] [--seed S]
 *       the same rows as DIR/run-<r>.parquet (for bench_pypaimon_write.py)
 *
 * Run r writes keys base_r + (i * m mod N), i < N, base_r = floor(r * N *
 * (1 - overlap)), m = the first of TableGen's primes not dividing N; every
 * value from splitmix-style mix(seed, key, run) as TableGen.row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/mem.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "paimon/table.h"
#include "table/table_commit.h"
#include "table/table_write.h"
#include "types/column.h"

#define BATCH 65536
#define SCHEMA "ROW<p INT NOT NULL, id BIGINT NOT NULL, k INT, name STRING, price DOUBLE, qty INT, " \
               "ts TIMESTAMP(3), note STRING>"

static const char ALPHABET[] = "abcdefghijklmnopqrstuvwxyzABCDEF";

static uint64_t mix(uint64_t seed, uint64_t id, uint64_t run)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + id * 0xBF58476D1CE4E5B9ull + run * 0x94D049BB133111EBull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int64_t stride_for(int64_t n)
{
    static const int64_t primes[] = {1000003, 999983, 1000033, 7919, 104729};
    for (size_t i = 0; i < sizeof primes / sizeof *primes; i++)
        if (n % primes[i])
            return primes[i] % (n > 1 ? n : 1);
    return 1;
}

/* Rows [from, from + cnt) of run r into b. */
static pm_error *fill(pm_batch *b, uint64_t seed, int64_t run, int64_t base, int64_t n, int64_t stride,
                      int64_t from, int64_t cnt)
{
    pm_column **c = b->columns;
    for (size_t i = 0; i < b->ncolumns; i++)
        PM_TRY(pm_column_reserve(c[i], cnt));
    char name[32], note[16];
    for (int64_t i = from; i < from + cnt; i++) {
        int64_t key = base + (int64_t)(((__int128)i * stride) % n);
        uint64_t h = mix(seed, (uint64_t)key, (uint64_t)run), x = h;
        for (int k = 0; k < 16; k++) {
            if (k == 12)
                x = mix(seed ^ 0x5bd1e995ull, (uint64_t)key, (uint64_t)run);
            note[k] = ALPHABET[x & 31];
            x >>= 5;
        }
        int nl = snprintf(name, sizeof name, "user-%llu", (unsigned long long)(h % 1000000));
        PM_TRY(pm_column_append_i32(c[0], 0));
        PM_TRY(pm_column_append_i64(c[1], key));
        PM_TRY(pm_column_append_i32(c[2], (int32_t)(h % 100000)));
        PM_TRY(pm_column_append_bytes(c[3], name, (size_t)nl));
        PM_TRY(pm_column_append_f64(c[4], (double)((h >> 20) % 1000000) / 100.0));
        PM_TRY(pm_column_append_i32(c[5], (int32_t)(h >> 40 & 1023)));
        PM_TRY(pm_column_append_i64(c[6], 1704067200000LL + key * 1000LL));
        PM_TRY(pm_column_append_bytes(c[7], note, 16));
    }
    return pm_batch_finish(b, cnt);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static pm_error *dump(const char *dir, const pm_type *rt, uint64_t seed, int64_t run, int64_t base, int64_t n,
                      int64_t stride)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run-%lld.parquet", dir, (long long)run);
    pm_fileio *fio = NULL;
    pm_output *out = NULL;
    pm_pq_writer *w = NULL;
    pm_batch *b = NULL;
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_fileio_local_new(&fio), done);
    PM_TRY_GOTO(e, pm_output_create(fio, path, true, &out), done);
    PM_TRY_GOTO(e, pm_pq_writer_new(&w, out, rt, &o), done);
    PM_TRY_GOTO(e, pm_batch_new(&b, rt), done);
    for (int64_t from = 0; from < n; from += BATCH) {
        PM_TRY_GOTO(e, pm_batch_reset(b), done);
        PM_TRY_GOTO(e, fill(b, seed, run, base, n, stride, from, n - from < BATCH ? n - from : BATCH), done);
        PM_TRY_GOTO(e, pm_pq_writer_write(w, b), done);
    }
    e = pm_pq_writer_close(w, NULL);
    w = NULL;
    if (!e) {
        e = pm_output_close(out, false);
        out = NULL;
    }
done:
    pm_batch_free(b);
    pm_pq_writer_abort(w);
    pm_output_abort(out);
    pm_fileio_free(fio);
    return e;
}

static pm_error *write_run(pm_table *t, const pm_type *rt, size_t threads, uint64_t seed, int64_t run,
                           int64_t base, int64_t n, int64_t stride, size_t *files)
{
    pm_table_writer *w = NULL;
    pm_commit_message *m = NULL;
    pm_batch *b = NULL;
    size_t nm = 0;
    pm_error *e = NULL;
    pm_table_write_options wo = {0};
    wo.threads = threads;
    PM_TRY_GOTO(e, pm_batch_new(&b, rt), done);
    PM_TRY_GOTO(e, pm_table_writer_new(&w, t, &wo), done);
    for (int64_t from = 0; from < n; from += BATCH) {
        PM_TRY_GOTO(e, pm_batch_reset(b), done);
        PM_TRY_GOTO(e, fill(b, seed, run, base, n, stride, from, n - from < BATCH ? n - from : BATCH), done);
        PM_TRY_GOTO(e, pm_table_writer_write(w, b), done);
    }
    PM_TRY_GOTO(e, pm_table_writer_prepare_commit(w, &m, &nm), done);
    pm_commit_options co = {0};
    co.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    co.kind = PM_COMMIT_APPEND;
    int64_t id = 0;
    PM_TRY_GOTO(e, pm_table_commit(t, &co, m, nm, &id), done);
    for (size_t i = 0; i < nm; i++)
        *files += m[i].n_new_files;
done:
    pm_commit_message_array_free(m, nm);
    pm_batch_free(b);
    if (e)
        pm_table_writer_abort(w);
    else
        pm_table_writer_free(w);
    return e;
}

int main(int argc, char **argv)
{
    const char *table = NULL, *dir = NULL;
    int64_t rows = 0, runs = 1;
    double overlap = 0.5;
    uint64_t seed = 1;
    size_t threads = 1;
    const char *file_rows = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rows") && i + 1 < argc)
            rows = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--overlap") && i + 1 < argc)
            overlap = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (size_t)strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--file-rows") && i + 1 < argc)
            file_rows = argv[++i];
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dir = argv[++i];
        else if (argv[i][0] != '-' && !table)
            table = argv[i];
        else
            rows = 0, i = argc;
    }
    if ((!table) == (!dir) || rows < 1 || runs < 1 || overlap < 0 || overlap > 1 ||
        (file_rows && (!table || strtoll(file_rows, NULL, 10) < 1))) {
        fprintf(stderr, "usage: bench_pk_write TABLE|--dump DIR --rows N [--runs R] [--overlap F] [--seed S] "
                        "[--threads T] [--file-rows F (TABLE only, F >= 1)]\n");
        return 2;
    }
    pm_type *rt = NULL;
    pm_table *t = NULL;
    pm_error *e = pm_type_parse(&rt, SCHEMA);
    int64_t stride = stride_for(rows);
    size_t files = 0;
    double w0 = now_ms(), c0 = cpu_ms();
    static const char *const ROW_NUM[] = {"target-file-row-num"};
    if (!e && table)
        e = pm_table_open(&t, table, NULL);
    if (!e && file_rows)
        e = pm_table_alter_options(t, ROW_NUM, &file_rows, 1, NULL, 0);
    for (int64_t r = 0; !e && r < runs; r++) {
        int64_t base = (int64_t)floor((double)r * (double)rows * (1.0 - overlap));
        e = dir ? dump(dir, rt, seed, r, base, rows, stride)
                : write_run(t, rt, threads, seed, r, base, rows, stride, &files);
    }
    if (!e && file_rows)
        e = pm_table_alter_options(t, NULL, NULL, 0, ROW_NUM, 1);
    double wall = now_ms() - w0, cpu = cpu_ms() - c0;
    pm_table_free(t);
    pm_type_free(rt);
    if (e) {
        fprintf(stderr, "bench_pk_write: %s\n", pm_error_message(e));
        pm_error_free(e);
        return 1;
    }
    if (table)
        printf("{\"engine\":\"paimon-c\",\"rows\":%lld,\"runs\":%lld,\"wall_ms\":%.1f,\"cpu_ms\":%.1f,\"files\":%zu}\n",
               (long long)(rows * runs), (long long)runs, wall, cpu, files);
    return 0;
}
