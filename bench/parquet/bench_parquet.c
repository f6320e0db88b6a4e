/*
 * bench/parquet/bench_parquet.c — Parquet write (and read) throughput of
 * paimon-c on a deterministic mixed-type table.
 *
 * Table (seeded splitmix64, identical on every run):
 *   id BIGINT NOT NULL        sequential
 *   qty INT                   0..999, ~10% null
 *   price DOUBLE              cents / 100 (1M distinct)
 *   category STRING NOT NULL  50-word vocabulary
 *   note STRING               random letters, 5..40 chars, ~10% null
 *   amount DECIMAL(18, 2)     0..10^9 cents
 *   ts TIMESTAMP(6)           increasing micros with jitter, ~10% null
 * Steps: generate all rows as batches of `--batch` rows (not timed), hand
 * each batch to the writer (timed, single thread, zstd level 1, Paimon's
 * Parquet defaults), close (timed); then read the file back with the
 * paimon-c reader in batches of 65,536 rows (timed), checking the row count.  "MB" is the Arrow in-memory
 * size of the data (values, offsets, validity), the same measure the
 * pyarrow script uses.  Prints one JSON object.
 *
 *   bench_parquet [--rows N] [--batch N] [--out FILE] [--codec NAME] [--repeat N] [--read-repeat N]
 *                 [--threads N]
 * --threads N (default 1): the writer encodes columns on N threads
 * (pm_pq_writer_set_pool; same bytes); CPU time is the whole process's.
 * With --repeat the file is written N times and the fastest (CPU) run is
 * reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/pool.h"
#include "base/util.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "types/column.h"

static uint64_t rng;

static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const char *const vocab[50] = {
    "apple", "banana", "cherry", "date", "elderberry", "fig", "grape", "honeydew", "kiwi", "lemon",
    "mango", "nectarine", "orange", "papaya", "quince", "raspberry", "strawberry", "tangerine",
    "ugli", "vanilla", "watermelon", "xigua", "yam", "zucchini", "apricot", "blueberry",
    "cantaloupe", "dragonfruit", "eggplant", "feijoa", "guava", "huckleberry", "imbe", "jackfruit",
    "kumquat", "lime", "mulberry", "nutmeg", "olive", "peach", "pear", "plum", "pomegranate",
    "rhubarb", "soursop", "tamarind", "ugni", "voavanga", "wolfberry", "yuzu"};

static pm_error *fill(pm_batch *b, int64_t from, int64_t n, uint64_t *bytes)
{
    pm_column **c = b->columns;
    for (size_t i = 0; i < b->ncolumns; i++)
        PM_TRY(pm_column_reserve(c[i], n));
    char note[48];
    for (int64_t r = from; r < from + n; r++) {
        uint64_t x = next();
        PM_TRY(pm_column_append_i64(c[0], r));
        if (x % 10 == 0)
            PM_TRY(pm_column_append_null(c[1]));
        else
            PM_TRY(pm_column_append_i32(c[1], (int32_t)((x >> 8) % 1000)));
        PM_TRY(pm_column_append_f64(c[2], (double)((x >> 20) % 1000000) / 100.0));
        const char *w = vocab[(x >> 40) % 50];
        PM_TRY(pm_column_append_bytes(c[3], w, strlen(w)));
        uint64_t y = next();
        if (y % 10 == 0) {
            PM_TRY(pm_column_append_null(c[4]));
        } else {
            int len = 5 + (int)((y >> 8) % 36);
            for (int k = 0; k < len; k++) {
                if (k % 10 == 0)
                    y = next();
                note[k] = (char)('a' + (y >> (6 * (k % 10))) % 26);
            }
            PM_TRY(pm_column_append_bytes(c[4], note, (size_t)len));
        }
        PM_TRY(pm_column_append_decimal(c[5], (__int128)((y >> 4) % 1000000000ull)));
        if ((y >> 32) % 10 == 0)
            PM_TRY(pm_column_append_null(c[6]));
        else
            PM_TRY(pm_column_append_i64(c[6], 1704067200000000ll + r * 1000 + (int64_t)((y >> 40) % 1000)));
    }
    PM_TRY(pm_batch_finish(b, n));
    /* Arrow in-memory size: values + offsets + validity bitmaps. */
    for (size_t i = 0; i < b->ncolumns; i++) {
        const pm_column *col = c[i];
        *bytes += col->values.len + col->data.len + (col->offsets.len ? (size_t)(n + 1) * 4 : 0);
        if (col->null_count)
            *bytes += (size_t)(n + 7) / 8;
    }
    return NULL;
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fail(pm_error *e)
{
    char *s = pm_error_format(e);
    fprintf(stderr, "bench_parquet: %s\n", s ? s : "error");
    free(s);
    pm_error_free(e);
    return 1;
}

int main(int argc, char **argv)
{
    int64_t rows = 10000000, batch_rows = 1000000, repeat = 1, read_repeat = -1, threads = 1;
    const char *out_path = "bench_parquet.parquet", *codec = "zstd";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rows"))
            rows = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch"))
            batch_rows = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--out"))
            out_path = argv[i + 1];
        else if (!strcmp(argv[i], "--codec"))
            codec = argv[i + 1];
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--read-repeat"))
            read_repeat = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = atoll(argv[i + 1]);
        else {
            fprintf(stderr, "usage: bench_parquet [--rows N] [--batch N] [--out FILE] [--codec NAME] [--repeat N] "
                            "[--read-repeat N] [--threads N]\n");
            return 2;
        }
    }
    pm_error *e;
    pm_type *t = NULL;
    e = pm_type_parse(&t, "ROW<id BIGINT NOT NULL, qty INT, price DOUBLE, category STRING NOT NULL, "
                          "note STRING, amount DECIMAL(18, 2), ts TIMESTAMP(6)>");
    if (e)
        return fail(e);
    int64_t nb = (rows + batch_rows - 1) / batch_rows;
    pm_batch **batches = calloc((size_t)(nb ? nb : 1), sizeof *batches);
    uint64_t bytes = 0;
    rng = 42;
    for (int64_t i = 0; i < nb; i++) {
        int64_t r = i * batch_rows, n = rows - r < batch_rows ? rows - r : batch_rows;
        if ((e = pm_batch_new(&batches[i], t)) || (e = fill(batches[i], r, n, &bytes)))
            return fail(e);
    }
    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    if ((e = pm_codec_from_name(codec, &o.codec)))
        return fail(e);
    pm_fileio *fio;
    if ((e = pm_fileio_local_new(&fio)))
        return fail(e);
    pm_pool *pool = NULL;
    if (threads > 1 && (e = pm_pool_new(&pool, (size_t)threads - 1)))
        return fail(e);
    double best_cpu = 0, best_wall = 0;
    uint64_t file_size = 0;
    for (int64_t rep = 0; rep < (repeat > 0 ? repeat : 1); rep++) {
        pm_output *out;
        pm_pq_writer *w;
        if ((e = pm_output_create(fio, out_path, true, &out)) || (e = pm_pq_writer_new(&w, out, t, &o)))
            return fail(e);
        pm_pq_writer_set_pool(w, pool, (size_t)threads);
        uint64_t write_ns = 0, write_cpu = 0;
        for (int64_t i = 0; i < nb; i++) {
            uint64_t t0 = pm_monotonic_ns(), c0 = cpu_ns();
            if ((e = pm_pq_writer_write(w, batches[i])))
                return fail(e);
            write_ns += pm_monotonic_ns() - t0;
            write_cpu += cpu_ns() - c0;
        }
        uint64_t t0 = pm_monotonic_ns(), c0 = cpu_ns();
        pm_pq_write_result res;
        if ((e = pm_pq_writer_close(w, &res)) || (e = pm_output_close(out, false)))
            return fail(e);
        write_ns += pm_monotonic_ns() - t0;
        write_cpu += cpu_ns() - c0;
        file_size = res.file_size;
        pm_pq_write_result_free(&res);
        double c = (double)write_cpu / 1e9;
        if (rep == 0 || c < best_cpu) {
            best_cpu = c;
            best_wall = (double)write_ns / 1e9;
        }
    }

    /* Read back. */
    double read_cpu = 0, read_wall = 0;
    if (read_repeat < 0)
        read_repeat = repeat > 0 ? repeat : 1;
    for (int64_t rep = 0; rep < read_repeat; rep++) {
        uint64_t t0 = pm_monotonic_ns(), c0 = cpu_ns();
        pm_input *in;
        pm_pq_reader *rd;
        pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
        ro.batch_rows = 65536;
        if ((e = pm_input_open(fio, out_path, &in)) || (e = pm_pq_reader_open(&rd, in, &ro)))
            return fail(e);
        int64_t got = 0;
        for (;;) {
            pm_batch *rb;
            if ((e = pm_pq_reader_next_batch(rd, &rb)))
                return fail(e);
            if (!rb)
                break;
            got += rb->num_rows;
        }
        pm_pq_reader_free(rd);
        pm_input_close(in);
        double c = (double)(cpu_ns() - c0) / 1e9, wall = (double)(pm_monotonic_ns() - t0) / 1e9;
        if (got != rows)
            return fail(pm_error_new(PM_EINTERNAL, "read %lld rows, wrote %lld", (long long)got, (long long)rows));
        if (rep == 0 || c < read_cpu) {
            read_cpu = c;
            read_wall = wall;
        }
    }
    printf("{\"engine\": \"paimon-c\", \"rows\": %lld, \"data_mb\": %.1f, \"file_mb\": %.1f, "
           "\"write_cpu_s\": %.3f, \"write_s\": %.3f, \"write_mb_s\": %.1f, \"write_rows_s\": %.0f, "
           "\"read_cpu_s\": %.3f, \"read_s\": %.3f, \"read_mb_s\": %.1f, \"read_rows_s\": %.0f}\n",
           (long long)rows, (double)bytes / 1e6, (double)file_size / 1e6, best_cpu, best_wall,
           (double)bytes / 1e6 / best_cpu, (double)rows / best_cpu, read_cpu, read_wall,
           (double)bytes / 1e6 / read_cpu, (double)rows / read_cpu);
    pm_pool_free(pool);
    pm_fileio_free(fio);
    for (int64_t i = 0; i < nb; i++)
        pm_batch_free(batches[i]);
    free(batches);
    pm_type_free(t);
    return 0;
}
