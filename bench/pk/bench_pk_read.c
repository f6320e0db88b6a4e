/*
 * bench/pk/bench_pk_read.c — merge-on-read throughput of paimon-c on an
 * existing primary-key table: scan the latest snapshot and read every row
 * through pm_table_reader (merge of overlapping runs, merge engine,
 * retracts dropped), touching every column of every row (a checksum) so
 * nothing is skipped.  Prints one JSON object per round:
 *   {"engine":"paimon-c","rows":..,"wall_ms":..,"cpu_ms":..,"rows_per_s":..,"checksum":..}
 *
 *   bench_pk_read TABLE [--rounds N] [--batch-rows N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "paimon/table.h"
#include "table/scan.h"
#include "table/table_read.h"
#include "types/column.h"

static double now_ms(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t touch(const pm_column *c, int64_t i)
{
    if (pm_column_is_null(c, i))
        return 7;
    switch (c->type->id) {
    case PM_TYPE_BOOLEAN: return pm_column_bool(c, i) ? 1 : 2;
    case PM_TYPE_TINYINT: return (uint64_t)pm_column_i8(c, i);
    case PM_TYPE_SMALLINT: return (uint64_t)pm_column_i16(c, i);
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: return (uint64_t)pm_column_i32(c, i);
    case PM_TYPE_BIGINT:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: return (uint64_t)pm_column_i64(c, i);
    case PM_TYPE_FLOAT: {
        float f = pm_column_f32(c, i);
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    case PM_TYPE_DOUBLE: {
        double d = pm_column_f64(c, i);
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, i, &n);
        uint64_t h = n;
        for (size_t k = 0; k < n; k++)
            h = h * 31 + p[k];
        return h;
    }
    default: return 11;
    }
}

static int fail(pm_error *e)
{
    char *s = pm_error_format(e);
    fprintf(stderr, "bench_pk_read: %s\n", s ? s : "error");
    free(s);
    pm_error_free(e);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int rounds = 1;
    int64_t batch_rows = 4096;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch-rows") && i + 1 < argc)
            batch_rows = atoll(argv[++i]);
        else
            path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: bench_pk_read TABLE [--rounds N] [--batch-rows N]\n");
        return 2;
    }
    for (int r = 0; r < rounds; r++) {
        double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
        pm_table *t = NULL;
        pm_error *e = pm_table_open(&t, path, NULL);
        if (e)
            return fail(e);
        pm_scan_options so = pm_scan_options_default();
        pm_scan_result *scan = NULL;
        if ((e = pm_table_scan(t, &so, &scan)))
            return fail(e);
        pm_table_read_options ro = {NULL, 0, batch_rows, NULL};
        pm_table_reader *rd = NULL;
        if ((e = pm_table_reader_new(&rd, t, scan, &ro)))
            return fail(e);
        int64_t rows = 0;
        uint64_t check = 0;
        for (;;) {
            const pm_batch *b = NULL;
            if ((e = pm_table_reader_next(rd, &b)))
                return fail(e);
            if (!b)
                break;
            for (size_t c = 0; c < b->ncolumns; c++)
                for (int64_t i = 0; i < b->num_rows; i++)
                    check = check * 31 + touch(b->columns[c], i);
            rows += b->num_rows;
        }
        pm_table_reader_free(rd);
        pm_scan_result_free(scan);
        pm_table_free(t);
        double wall = now_ms(CLOCK_MONOTONIC) - w0, cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        printf("{\"engine\": \"paimon-c\", \"round\": %d, \"rows\": %lld, \"wall_ms\": %.1f, \"cpu_ms\": %.1f, "
               "\"rows_per_s\": %.0f, \"checksum\": %llu}\n",
               r + 1, (long long)rows, wall, cpu, (double)rows / (wall / 1000.0), (unsigned long long)check);
        fflush(stdout);
    }
    return 0;
}
