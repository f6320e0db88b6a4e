/*
 * bench/table/bench_table.c — the paimon-c side of the table benchmark:
 * rows/s and CPU seconds of the real table paths (pm_table_writer +
 * pm_table_commit to write, pm_table_scan + pm_table_reader to read).
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
 * Scenarios (--scenario):
 *   big    one commit of --rows rows (65,536-row batches) through one
 *          table writer (--threads encoding threads: a big batch goes to
 *          `threads` files in parallel), then a full read of the table with
 *          the table reader (--threads files decoded in parallel), counting
 *          rows and summing `id` so nothing is skipped.  With --paimon BIN
 *          also `paimon read TABLE` (JSON lines to /dev/null) is timed.
 *   small  --commits commits of --commit-rows rows each through the
 *          library (one writer, write, prepare commit, commit per batch,
 *          as an application committing small batches does), then a full
 *          read of the resulting many-small-files table.
 *   cli    the same commits through the CLI: `paimon write TABLE --input
 *          input.parquet` (--commit-rows rows) run once per commit
 *          (process start, table open, write, commit), timed with the
 *          children's CPU time.  The table is write-only=true: pypaimon
 *          never compacts, while `paimon write` would otherwise run an
 *          automatic append compaction round after commits, as Java does.
 * Every scenario first saves its rows to <dir>/input.parquet (not timed)
 * for bench_pypaimon.py, which loads it and does the same on pypaimon.
 * CPU seconds come from getrusage (all threads; children for the CLI).
 * Prints one JSON object per run.
 *
 *   bench_table --dir DIR [--scenario big|small|cli] [--rows N] [--threads N]
 *               [--commits K] [--commit-rows M] [--paimon BIN]
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/util.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "table/scan.h"
#include "table/table_commit.h"
#include "table/table_read.h"
#include "table/table_write.h"
#include "types/column.h"

extern char **environ;

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

static double tv(struct timeval t) { return (double)t.tv_sec + t.tv_usec / 1e6; }

/* CPU seconds (user + system) of this process (all threads) or of its
 * waited-for children. */
static double cpu_s(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return tv(u.ru_utime) + tv(u.ru_stime);
}

typedef struct timing {
    double w0, c0, k0;
} timing;

static timing start(void) { return (timing){now_s(), cpu_s(RUSAGE_SELF), cpu_s(RUSAGE_CHILDREN)}; }

static void stop(const timing *t, double *wall, double *cpu, double *child)
{
    *wall = now_s() - t->w0;
    *cpu = cpu_s(RUSAGE_SELF) - t->c0;
    if (child)
        *child = cpu_s(RUSAGE_CHILDREN) - t->k0;
}

static pm_error *write_parquet(const char *path, pm_batch **batches, size_t nb, const pm_type *rt)
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

/* One write + commit of batches [0, nb) (a new writer, as an application
 * committing a batch does).  Adds the files written to *files. */
static pm_error *write_commit(pm_table *t, pm_batch **batches, size_t nb, size_t *files)
{
    pm_table_writer *w = NULL;
    pm_commit_message *m = NULL;
    size_t n = 0;
    pm_error *e = NULL;
    pm_table_write_options wo = {0, false, threads, NULL};
    PM_TRY_GOTO(e, pm_table_writer_new(&w, t, &wo), done);
    for (size_t i = 0; i < nb; i++)
        PM_TRY_GOTO(e, pm_table_writer_write(w, batches[i]), done);
    PM_TRY_GOTO(e, pm_table_writer_prepare_commit(w, &m, &n), done);
    pm_commit_options o = {0};
    o.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    o.kind = PM_COMMIT_APPEND;
    int64_t id = 0;
    PM_TRY_GOTO(e, pm_table_commit(t, &o, m, n, &id), done);
    for (size_t i = 0; i < n; i++)
        *files += m[i].n_new_files;
done:
    pm_commit_message_array_free(m, n);
    if (e)
        pm_table_writer_abort(w);
    else
        pm_table_writer_free(w);
    return e;
}

/* Scan the latest snapshot and read every row with the table reader. */
static pm_error *read_table(const char *table, int64_t *rows, int64_t *sum, size_t *files)
{
    pm_table *t = NULL;
    pm_scan_result *r = NULL;
    pm_table_reader *rd = NULL;
    pm_error *e = NULL;
    *rows = *sum = 0;
    PM_TRY_GOTO(e, pm_table_open(&t, table, NULL), done);
    pm_scan_options so = pm_scan_options_default();
    PM_TRY_GOTO(e, pm_table_scan(t, &so, &r), done);
    *files = 0;
    for (size_t b = 0; b < r->nbuckets; b++)
        *files += r->buckets[b].nfiles;
    pm_table_read_options ro = {0};
    ro.batch_rows = BATCH;
    PM_TRY_GOTO(e, pm_table_reader_new(&rd, t, r, &ro), done);
    pm_table_reader_set_threads(rd, threads);
    for (;;) {
        const pm_batch *b = NULL;
        PM_TRY_GOTO(e, pm_table_reader_next(rd, &b), done);
        if (!b)
            break;
        const pm_column *id = b->columns[0];
        const int64_t *v = (const int64_t *)(const void *)id->values.data;
        for (int64_t i = 0; i < b->num_rows; i++)
            *sum += v[i];
        *rows += b->num_rows;
    }
done:
    pm_table_reader_free(rd);
    pm_scan_result_free(r);
    pm_table_free(t);
    return e;
}

/* Run argv with stdout to `out` (NULL = inherit); fails unless it exits 0. */
static pm_error *run(char *const argv[], const char *out)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out)
        posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return pm_error_new(PM_EIO, "cannot run %s", argv[0]);
    int st = 0;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return pm_error_new(PM_EIO, "%s %s failed (status %d)", argv[0], argv[1], st);
    return NULL;
}

static int fail(pm_error *e)
{
    char *s = pm_error_format(e);
    fprintf(stderr, "bench_table: %s\n", s ? s : "error");
    free(s);
    pm_error_free(e);
    return 1;
}

#define CHECK(x)                \
    do {                        \
        pm_error *e_ = (x);     \
        if (e_)                 \
            return fail(e_);    \
    } while (0)

int main(int argc, char **argv)
{
    const char *dir = NULL, *scenario = "big", *paimon = NULL;
    int64_t rows = 10000000, commits = 1000, commit_rows = 1000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--scenario") && i + 1 < argc)
            scenario = argv[++i];
        else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
            rows = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (size_t)strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--commits") && i + 1 < argc)
            commits = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--commit-rows") && i + 1 < argc)
            commit_rows = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--paimon") && i + 1 < argc)
            paimon = argv[++i];
        else
            dir = NULL, i = argc;
    }
    bool big = !strcmp(scenario, "big"), small = !strcmp(scenario, "small"), cli = !strcmp(scenario, "cli");
    if (!dir || rows <= 0 || commits <= 0 || commit_rows <= 0 || !(big || small || cli) || (cli && !paimon)) {
        fprintf(stderr, "usage: bench_table --dir DIR [--scenario big|small|cli] [--rows N] [--threads N]\n"
                        "                   [--commits K] [--commit-rows M] [--paimon BIN]\n");
        return 2;
    }
    pm_type *rt = NULL;
    CHECK(pm_type_parse(&rt, SCHEMA));
    /* the rows: big = 65,536-row batches; small/cli = one batch per commit */
    int64_t per = big ? BATCH : commit_rows;
    int64_t total = big ? rows : (small ? commits * commit_rows : commit_rows);
    size_t nb = (size_t)((total + per - 1) / per);
    pm_batch **batches = calloc(nb, sizeof *batches);
    if (!batches)
        return 1;
    for (size_t i = 0; i < nb; i++) {
        int64_t from = (int64_t)i * per, n = total - from < per ? total - from : per;
        CHECK(pm_batch_new(&batches[i], rt));
        CHECK(fill(batches[i], from, n));
    }
    char path[4096], table[4096];
    snprintf(path, sizeof path, "%s/input.parquet", dir);
    CHECK(write_parquet(path, batches, nb, rt));
    snprintf(table, sizeof table, "%s/paimon-c/db.db/t", dir);
    /* cli: write-only, as pypaimon never compacts (the CLI would otherwise
     * run Java's automatic append compaction after commits) */
    static const char *const wo_key[] = {"write-only"}, *const wo_val[] = {"true"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, NULL, 0, wo_key, wo_val, cli ? 1 : 0, NULL};
    CHECK(pm_table_create(table, &spec, false));

    double ws = 0, wc = 0, wk = 0, rs = 0, rc = 0, js = 0, jc = 0;
    size_t files = 0, rfiles = 0;
    int64_t written = 0;
    timing t0 = start();
    if (cli) {
        for (int64_t k = 0; k < commits; k++) {
            char *args[] = {(char *)paimon, "write", table, "--input", path, "--threads",
                            threads > 1 ? "2" : "1", NULL};
            char tn[24];
            snprintf(tn, sizeof tn, "%zu", threads ? threads : 1);
            args[6] = tn;
            CHECK(run(args, "/dev/null"));
        }
        written = commits * commit_rows;
    } else {
        pm_table *t = NULL;
        CHECK(pm_table_open(&t, table, NULL));
        if (big) {
            CHECK(write_commit(t, batches, nb, &files));
        } else {
            for (size_t i = 0; i < nb; i++)
                CHECK(write_commit(t, &batches[i], 1, &files));
        }
        pm_table_free(t);
        written = total;
    }
    stop(&t0, &ws, &wc, &wk);
    if (getenv("BENCH_PHASES")) /* CLOCK_MONOTONIC bounds, e.g. for perf record -k CLOCK_MONOTONIC --time */
        fprintf(stderr, "phase write %.6f %.6f\n", t0.w0, t0.w0 + ws);
    for (size_t i = 0; i < nb; i++)
        pm_batch_free(batches[i]);
    free(batches);

    int64_t got = 0, sum = 0;
    timing t1 = start();
    CHECK(read_table(table, &got, &sum, &rfiles));
    stop(&t1, &rs, &rc, NULL);
    if (getenv("BENCH_PHASES"))
        fprintf(stderr, "phase read %.6f %.6f\n", t1.w0, t1.w0 + rs);
    int64_t want_sum = cli ? commits * (commit_rows * (commit_rows - 1) / 2) : written * (written - 1) / 2;
    if (got != written || sum != want_sum) {
        fprintf(stderr, "bench_table: read %lld rows (sum %lld), expected %lld (sum %lld)\n", (long long)got,
                (long long)sum, (long long)written, (long long)want_sum);
        return 1;
    }
    if (big && paimon) {
        char *args[] = {(char *)paimon, "read", table, NULL};
        double unused;
        timing t2 = start();
        CHECK(run(args, "/dev/null"));
        stop(&t2, &js, &unused, &jc);
    }
    printf("{\"engine\":\"paimon-c\",\"scenario\":\"%s\",\"threads\":%zu,\"rows\":%lld,\"commits\":%lld,"
           "\"files\":%zu,\"write_s\":%.3f,\"write_cpu_s\":%.3f,\"read_s\":%.3f,\"read_cpu_s\":%.3f",
           scenario, threads, (long long)written, big ? 1LL : (long long)commits, rfiles, ws, cli ? wk : wc, rs, rc);
    if (big && paimon)
        printf(",\"cli_read_jsonl_s\":%.3f,\"cli_read_jsonl_cpu_s\":%.3f", js, jc);
    printf("}\n");
    pm_type_free(rt);
    return 0;
}
