/*
 * bench/orc/bench_orc.c — one round of paimon-c's ORC write and read on a
 * deterministic table, single thread, timed in process CPU seconds.
 *
 * Table (seeded splitmix64, identical on every run):
 *   id BIGINT NOT NULL        sequential
 *   qty INT                   0..999, ~10% null
 *   price DOUBLE              cents / 100
 *   category STRING NOT NULL  one of 40 words (dictionary encoded)
 *   note STRING               5..40 random letters, ~10% null (direct)
 *   amount DECIMAL(18, 2)     0..10^9 cents
 *   ts TIMESTAMP(6)           increasing micros with jitter, ~10% null
 *   tags ARRAY<INT>           0..3 small ints, ~10% null
 * Steps: generate the rows as batches of 65,536 (not timed); write them
 * with Paimon's ORC defaults (zstd level 1 unless --codec) to --out
 * (timed); read --out back in batches of 65,536 rows (timed), and, with
 * --read FILE, read that file too (pyarrow's, for a cross read).  Prints
 * one JSON object: CPU and wall seconds of each step, file size, rows.
 *
 *   bench_orc [--rows N] [--out FILE] [--codec none|zlib|snappy|lz4|zstd] [--read FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_writer.h"
#include "io/fileio.h"
#include "types/column.h"

#define BATCH 65536

static uint64_t state;

static uint64_t rnd(void)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const char *const words[40] = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "north", "south", "east", "west",
    "red", "orange", "yellow", "green", "blue", "indigo", "violet", "black", "white", "grey"};

static pm_error *generate(pm_batch *b, int64_t first, int64_t n)
{
    pm_column **c = b->columns;
    char note[48];
    for (int64_t r = first; r < first + n; r++) {
        uint64_t x = rnd(), y = rnd();
        PM_TRY(pm_column_append_i64(c[0], r));
        if (x % 10 == 0)
            PM_TRY(pm_column_append_null(c[1]));
        else
            PM_TRY(pm_column_append_i32(c[1], (int32_t)((x >> 8) % 1000)));
        PM_TRY(pm_column_append_f64(c[2], (double)((x >> 20) % 1000000) / 100.0));
        const char *w = words[(x >> 40) % 40];
        PM_TRY(pm_column_append_bytes(c[3], w, strlen(w)));
        if (y % 10 == 0) {
            PM_TRY(pm_column_append_null(c[4]));
        } else {
            int len = 5 + (int)((y >> 8) % 36);
            uint64_t z = rnd();
            for (int k = 0; k < len; k++) {
                if (k && k % 10 == 0)
                    z = rnd();
                note[k] = (char)('a' + (z >> (6 * (k % 10))) % 26);
            }
            PM_TRY(pm_column_append_bytes(c[4], note, (size_t)len));
        }
        PM_TRY(pm_column_append_decimal(c[5], (__int128)((y >> 4) % 1000000000ull)));
        if ((y >> 32) % 10 == 0)
            PM_TRY(pm_column_append_null(c[6]));
        else
            PM_TRY(pm_column_append_i64(c[6], 1704067200000000ll + r * 1000 + (int64_t)((y >> 40) % 1000)));
        if ((y >> 50) % 10 == 0) {
            PM_TRY(pm_column_append_null(c[7]));
        } else {
            int k = (int)((y >> 54) % 4);
            for (int i = 0; i < k; i++)
                PM_TRY(pm_column_append_i32(c[7]->children[0], (int32_t)((x >> (8 * i)) % 100)));
            PM_TRY(pm_column_end_nested(c[7]));
        }
    }
    return pm_batch_finish(b, n);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void) { return (double)pm_monotonic_ns() / 1e9; }

static int fail(pm_error *e)
{
    char *s = pm_error_format(e);
    fprintf(stderr, "bench_orc: %s\n", s ? s : "error");
    free(s);
    pm_error_free(e);
    return 1;
}

/* Read a whole file; *rows = rows read. */
static pm_error *read_file(pm_fileio *fio, const char *path, int64_t *rows, double *cpu, double *wall)
{
    double c0 = cpu_s(), w0 = wall_s();
    pm_input *in;
    PM_TRY(pm_input_open(fio, path, &in));
    pm_orc_reader_options o = PM_ORC_READER_OPTIONS_INIT;
    o.batch_rows = BATCH;
    pm_orc_reader *r;
    pm_error *e = pm_orc_reader_open(&r, in, &o);
    *rows = 0;
    while (!e) {
        pm_batch *b;
        e = pm_orc_reader_next_batch(r, &b);
        if (e || !b)
            break;
        *rows += pm_batch_num_rows(b);
    }
    if (r)
        pm_orc_reader_free(r);
    pm_input_close(in);
    *cpu = cpu_s() - c0;
    *wall = wall_s() - w0;
    return e;
}

int main(int argc, char **argv)
{
    int64_t rows = 5000000;
    const char *out_path = "bench_orc.orc", *codec = "zstd", *cross = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rows"))
            rows = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--out"))
            out_path = argv[i + 1];
        else if (!strcmp(argv[i], "--codec"))
            codec = argv[i + 1];
        else if (!strcmp(argv[i], "--read"))
            cross = argv[i + 1];
        else {
            fprintf(stderr, "usage: bench_orc [--rows N] [--out FILE] [--codec NAME] [--read FILE]\n");
            return 2;
        }
    }
    static const char *const names[] = {"none", "zlib", "snappy", "", "lz4", "zstd"};
    uint32_t kind = 99;
    for (uint32_t k = 0; k < 6; k++)
        if (*names[k] && !strcmp(codec, names[k]))
            kind = k;
    if (kind == 99) {
        fprintf(stderr, "bench_orc: unknown codec %s\n", codec);
        return 2;
    }
    pm_type *t;
    pm_error *e = pm_type_parse(&t, "ROW<id BIGINT NOT NULL, qty INT, price DOUBLE, category STRING NOT NULL, "
                                    "note STRING, amount DECIMAL(18, 2), ts TIMESTAMP(6), tags ARRAY<INT>>");
    if (e)
        return fail(e);
    int64_t nb = (rows + BATCH - 1) / BATCH;
    pm_batch **batches = calloc((size_t)(nb ? nb : 1), sizeof *batches);
    state = 42;
    for (int64_t i = 0; i < nb; i++) {
        int64_t first = i * BATCH, n = rows - first < BATCH ? rows - first : BATCH;
        if ((e = pm_batch_new(&batches[i], t)) || (e = generate(batches[i], first, n)))
            return fail(e);
    }
    pm_fileio *fio;
    if ((e = pm_fileio_local_new(&fio)))
        return fail(e);
    pm_orc_writer_options o;
    pm_orc_writer_options_default(&o);
    o.compression = kind;
    double c0 = cpu_s(), w0 = wall_s();
    pm_output *out;
    pm_orc_writer *w;
    if ((e = pm_output_create(fio, out_path, true, &out)) || (e = pm_orc_writer_new(&w, out, t, &o)))
        return fail(e);
    for (int64_t i = 0; i < nb; i++)
        if ((e = pm_orc_writer_write(w, batches[i])))
            return fail(e);
    pm_orc_write_result res;
    if ((e = pm_orc_writer_close(w, &res)) || (e = pm_output_close(out, false)))
        return fail(e);
    double write_cpu = cpu_s() - c0, write_wall = wall_s() - w0;
    uint64_t size = res.file_size;
    pm_orc_write_result_free(&res);
    int64_t got;
    double read_cpu, read_wall;
    if ((e = read_file(fio, out_path, &got, &read_cpu, &read_wall)))
        return fail(e);
    if (got != rows) {
        fprintf(stderr, "bench_orc: read %lld rows of %lld\n", (long long)got, (long long)rows);
        return 1;
    }
    printf("{\"engine\": \"paimon-c\", \"rows\": %lld, \"codec\": \"%s\", \"file_mb\": %.2f, "
           "\"write_cpu_s\": %.4f, \"write_s\": %.4f, \"read_cpu_s\": %.4f, \"read_s\": %.4f",
           (long long)rows, codec, (double)size / 1e6, write_cpu, write_wall, read_cpu, read_wall);
    if (cross) {
        double ccpu, cwall;
        if ((e = read_file(fio, cross, &got, &ccpu, &cwall)))
            return fail(e);
        printf(", \"cross_read_cpu_s\": %.4f, \"cross_read_s\": %.4f, \"cross_rows\": %lld", ccpu, cwall,
               (long long)got);
    }
    printf("}\n");
    for (int64_t i = 0; i < nb; i++)
        pm_batch_free(batches[i]);
    free(batches);
    pm_type_free(t);
    pm_fileio_free(fio);
    return 0;
}
