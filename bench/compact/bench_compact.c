/*
 * bench/compact/bench_compact.c — compaction of a many-small-file append
 * table with paimon-c.
 *
 *   bench_compact gen --table PATH [--files N] [--rows R]
 *       creates an unaware-bucket append table at PATH (write-only=true, so
 *       the writes do not compact) and writes N commits of R rows each
 *       (one small file per commit).  Rows (seeded splitmix64 of the id,
 *       identical on every run), the shape of bench/java TableGen:
 *         p INT (0), id BIGINT, k INT, name STRING (low entropy),
 *         price DOUBLE, qty INT, ts TIMESTAMP(3), note STRING (16 random
 *         letters)
 *   bench_compact run --table PATH [--threads T] [--memory BYTES] [--option k=v]...
 *       plans, executes (T buckets/tasks at once) and commits one COMPACT
 *       snapshot (pm_compact_run_plan), timed; prints one JSON line:
 *       wall and CPU seconds (getrusage, user + system, whole process),
 *       peak RSS (ru_maxrss), rows and bytes read/written, files before and
 *       after, rows/s and MB/s (input bytes per wall second).
 *   bench_compact read --table PATH
 *       reads every row of the table (scan + table reader), timed: what a
 *       compaction's output costs its readers.
 *   bench_compact plan --table PATH [--memory BYTES] [--option k=v]...
 *       opens the table and plans one compaction (nothing is written),
 *       timed apart: the scan alone, then the whole plan (builder, scan,
 *       the mode's rules); one JSON line with wall and CPU seconds, peak
 *       RSS, files scanned, tasks and planned input files.
 *   bench_compact list --table PATH
 *       lists the live files (pm_table_files, the `$files` view), timed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/util.h"
#include "compact/compact_run.h"
#include "paimon/files.h"
#include "table/scan.h"
#include "table/table_commit.h"
#include "table/table_read.h"
#include "table/table_write.h"
#include "types/column.h"

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void die(const char *what, pm_error *e)
{
    char *s = pm_error_format(e);
    fprintf(stderr, "bench_compact: %s: %s\n", what, s ? s : "?");
    free(s);
    pm_error_free(e);
    exit(1);
}

#define TRY(what, expr)              \
    do {                             \
        pm_error *e_ = (expr);       \
        if (e_)                      \
            die(what, e_);           \
    } while (0)

static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
           u.ru_stime.tv_usec / 1e6;
}

/* Peak RSS of this process image: VmHWM of /proc/self/status (reset by
 * exec), else ru_maxrss, which on Linux also keeps the high-water mark of
 * the image before exec: started by a big parent (a Python harness of
 * 200 MB), ru_maxrss reports the parent's size when this run stays below. */
static long peak_rss_kb(void)
{
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "VmHWM:", 6)) {
                kb = atol(line + 6);
                break;
            }
        fclose(f);
    }
    if (kb > 0)
        return kb;
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

static const char *ROW_TYPE = "ROW<p INT, id BIGINT, k INT, name STRING, price DOUBLE, qty INT, "
                              "ts TIMESTAMP(3), note STRING>";

static void gen(const char *path, int64_t files, int64_t rows)
{
    pm_type *rt = NULL;
    TRY("row type", pm_type_parse(&rt, ROW_TYPE));
    const char *keys[] = {"bucket", "write-only", "file.format"};
    const char *vals[] = {"-1", "true", "parquet"};
    pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt, NULL, 0, NULL, 0, keys, vals, 3, NULL};
    TRY("create", pm_table_create(path, &spec, false));
    pm_table *t = NULL;
    TRY("open", pm_table_open(&t, path, NULL));
    pm_batch *b = NULL;
    TRY("batch", pm_batch_new(&b, rt));
    static const char alpha[] = "abcdefghijklmnopqrstuvwxyzABCDEF";
    for (int64_t f = 0; f < files; f++) {
        TRY("reset", pm_batch_reset(b));
        for (int64_t r = 0; r < rows; r++) {
            int64_t id = f * rows + r;
            uint64_t h = mix((uint64_t)id * 31 + 7);
            char name[32], note[17];
            snprintf(name, sizeof name, "user-%llu", (unsigned long long)(h % 1000000));
            uint64_t g = mix(h);
            for (int i = 0; i < 16; i++)
                note[i] = alpha[(g >> (i * 4)) & 31];
            note[16] = 0;
            TRY("append", pm_column_append_i32(b->columns[0], 0));
            TRY("append", pm_column_append_i64(b->columns[1], id));
            TRY("append", pm_column_append_i32(b->columns[2], (int32_t)(h % 100000)));
            TRY("append", pm_column_append_bytes(b->columns[3], name, strlen(name)));
            TRY("append", pm_column_append_f64(b->columns[4], (double)((h >> 20) % 1000000) / 100.0));
            TRY("append", pm_column_append_i32(b->columns[5], (int32_t)((h >> 40) & 1023)));
            TRY("append", pm_column_append_i64(b->columns[6], 1704067200000LL + id * 1000));
            TRY("append", pm_column_append_bytes(b->columns[7], note, 16));
        }
        TRY("finish", pm_batch_finish(b, rows));
        pm_table_writer *w = NULL;
        TRY("writer", pm_table_writer_new(&w, t, NULL));
        TRY("write", pm_table_writer_write(w, b));
        pm_commit_message *m = NULL;
        size_t n = 0;
        TRY("prepare", pm_table_writer_prepare_commit(w, &m, &n));
        pm_commit_options o = {0};
        o.commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
        o.kind = PM_COMMIT_APPEND;
        int64_t id = 0;
        TRY("commit", pm_table_commit(t, &o, m, n, &id));
        pm_commit_message_array_free(m, n);
        pm_table_writer_free(w);
    }
    pm_batch_free(b);
    pm_type_free(rt);
    pm_table_free(t);
    printf("{\"table\":\"%s\",\"files\":%lld,\"rows\":%lld}\n", path, (long long)files,
           (long long)(files * rows));
}

static void run(const char *path, size_t threads, int64_t memory, const char **opts, size_t nopts)
{
    double c0 = cpu_seconds();
    uint64_t t0 = pm_monotonic_ns();
    pm_table *t = NULL;
    TRY("open", pm_table_open(&t, path, NULL));
    pm_resources *res = NULL;
    TRY("resources", pm_resources_new(&res, memory, threads));
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, NULL, NULL, 0, false, res, opts, nopts, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    TRY("builder", pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    TRY("plan", pm_compact_plan_new(&p, b));
    size_t files_before = 0;
    for (size_t i = 0; i < p->ntasks; i++)
        files_before += p->tasks[i]->nfiles;
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    TRY("run", pm_compact_run_plan(&m, t, p, res, threads, NULL, NULL));
    double wall = (double)(pm_monotonic_ns() - t0) / 1e9;
    double cpu = cpu_seconds() - c0;
    printf("{\"engine\":\"paimon-c\",\"tasks\":%lld,\"files_before\":%zu,\"files_after\":%lld,"
           "\"rows\":%lld,\"rows_written\":%lld,\"bytes_read\":%lld,\"bytes_written\":%lld,"
           "\"wall_s\":%.3f,\"cpu_s\":%.3f,\"peak_rss_mb\":%.1f,\"rows_per_s\":%.0f,\"mb_per_s\":%.2f,"
           "\"threads\":%zu,\"snapshot_id\":%lld}\n",
           (long long)m.tasks, files_before, (long long)m.files_added, (long long)m.rows_read,
           (long long)m.rows_written, (long long)m.bytes_read, (long long)m.bytes_written, wall, cpu,
           (double)peak_rss_kb() / 1024.0, (double)m.rows_read / wall, (double)m.bytes_read / wall / 1e6, threads,
           (long long)m.snapshot_id);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    pm_resources_free(res);
    pm_table_free(t);
}

/* Scan, then plan, each timed (nothing is written). */
static void plan_only(const char *path, int64_t memory, const char **opts, size_t nopts)
{
    double c0 = cpu_seconds();
    uint64_t t0 = pm_monotonic_ns();
    pm_table *t = NULL;
    TRY("open", pm_table_open(&t, path, NULL));
    pm_scan_result *s = NULL;
    pm_scan_options so = pm_scan_options_default();
    TRY("scan", pm_table_scan(t, &so, &s));
    size_t scanned = 0;
    for (size_t i = 0; i < s->nbuckets; i++)
        scanned += s->buckets[i].nfiles;
    pm_scan_result_free(s);
    double scan_wall = (double)(pm_monotonic_ns() - t0) / 1e9, scan_cpu = cpu_seconds() - c0;
    long scan_rss = peak_rss_kb();
    double c1 = cpu_seconds();
    uint64_t t1 = pm_monotonic_ns();
    pm_resources *res = NULL;
    TRY("resources", pm_resources_new(&res, memory, 1));
    pm_compact_options o = PM_COMPACT_OPTIONS_INIT;
    o.resources = res;
    o.dynamic_options = opts;
    o.ndynamic_options = nopts;
    pm_compact_builder *b = NULL;
    TRY("builder", pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    TRY("plan", pm_compact_plan_new(&p, b));
    size_t planned = 0;
    for (size_t i = 0; i < p->ntasks; i++)
        planned += p->tasks[i]->nfiles;
    double plan_wall = (double)(pm_monotonic_ns() - t1) / 1e9, plan_cpu = cpu_seconds() - c1;
    printf("{\"engine\":\"paimon-c\",\"op\":\"plan\",\"files\":%zu,\"tasks\":%zu,\"planned_files\":%zu,"
           "\"scan_wall_s\":%.3f,\"scan_cpu_s\":%.3f,\"scan_peak_rss_mb\":%.1f,\"plan_wall_s\":%.3f,"
           "\"plan_cpu_s\":%.3f,\"peak_rss_mb\":%.1f}\n",
           scanned, p->ntasks, planned, scan_wall, scan_cpu, (double)scan_rss / 1024.0, plan_wall, plan_cpu,
           (double)peak_rss_kb() / 1024.0);
    pm_compact_plan_free(p);
    pm_compact_builder_free(b);
    pm_resources_free(res);
    pm_table_free(t);
}

/* pm_table_files (the `$files` view), timed. */
static void list_files(const char *path)
{
    double c0 = cpu_seconds();
    uint64_t t0 = pm_monotonic_ns();
    pm_table *t = NULL;
    TRY("open", pm_table_open(&t, path, NULL));
    pm_file_list *l = NULL;
    TRY("files", pm_table_files(&l, t, NULL));
    int64_t rows = 0;
    for (size_t i = 0; i < pm_file_list_count(l); i++)
        rows += pm_file_list_get(l, i)->record_count;
    printf("{\"engine\":\"paimon-c\",\"op\":\"list\",\"files\":%zu,\"rows\":%lld,\"wall_s\":%.3f,"
           "\"cpu_s\":%.3f,\"peak_rss_mb\":%.1f}\n",
           pm_file_list_count(l), (long long)rows, (double)(pm_monotonic_ns() - t0) / 1e9, cpu_seconds() - c0,
           (double)peak_rss_kb() / 1024.0);
    pm_file_list_free(l);
    pm_table_free(t);
}

/* Read the whole table (scan + reader, every column), timed. */
static void read_table(const char *path)
{
    double c0 = cpu_seconds();
    uint64_t t0 = pm_monotonic_ns();
    pm_table *t = NULL;
    TRY("open", pm_table_open(&t, path, NULL));
    pm_scan_result *s = NULL;
    pm_scan_options so = pm_scan_options_default();
    TRY("scan", pm_table_scan(t, &so, &s));
    int64_t files = 0, bytes = 0;
    for (size_t i = 0; i < s->nbuckets; i++)
        for (size_t k = 0; k < s->buckets[i].nfiles; k++) {
            files++;
            bytes += s->buckets[i].files[k].file_size;
        }
    pm_table_reader *r = NULL;
    TRY("reader", pm_table_reader_new(&r, t, s, NULL));
    int64_t rows = 0, sum = 0;
    for (;;) {
        const pm_batch *b = NULL;
        TRY("read", pm_table_reader_next(r, &b));
        if (!b)
            break;
        for (int64_t i = 0; i < b->num_rows; i++)
            sum += pm_column_i64(b->columns[1], i);
        rows += b->num_rows;
    }
    double wall = (double)(pm_monotonic_ns() - t0) / 1e9;
    printf("{\"engine\":\"paimon-c\",\"op\":\"read\",\"files\":%lld,\"bytes\":%lld,\"rows\":%lld,\"id_sum\":%lld,"
           "\"wall_s\":%.3f,\"cpu_s\":%.3f}\n",
           (long long)files, (long long)bytes, (long long)rows, (long long)sum, wall, cpu_seconds() - c0);
    pm_table_reader_free(r);
    pm_scan_result_free(s);
    pm_table_free(t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_compact gen|run|read|plan|list --table PATH [...]\n");
        return 2;
    }
    const char *table = NULL;
    int64_t files = 1000, rows = 2000, memory = 256LL << 20;
    size_t threads = 2;
    const char *opts[16];
    size_t nopts = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--table"))
            table = argv[i + 1];
        else if (!strcmp(argv[i], "--files"))
            files = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--rows"))
            rows = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = (size_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--memory"))
            memory = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--option") && nopts < 16)
            opts[nopts++] = argv[i + 1];
        else {
            fprintf(stderr, "bench_compact: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!table || files <= 0 || rows <= 0 || memory <= 0) {
        fprintf(stderr, "bench_compact: --table is required; sizes must be positive\n");
        return 2;
    }
    if (!strcmp(argv[1], "gen"))
        gen(table, files, rows);
    else if (!strcmp(argv[1], "run"))
        run(table, threads, memory, opts, nopts);
    else if (!strcmp(argv[1], "read"))
        read_table(table);
    else if (!strcmp(argv[1], "plan"))
        plan_only(table, memory, opts, nopts);
    else if (!strcmp(argv[1], "list"))
        list_files(table);
    else {
        fprintf(stderr, "bench_compact: unknown command %s\n", argv[1]);
        return 2;
    }
    return 0;
}
