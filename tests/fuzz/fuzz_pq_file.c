/*
 * tests/fuzz/fuzz_pq_file.c — libFuzzer target for the whole Parquet read
 * path: the input is a file in memory.  It is opened footer-only (every
 * column's statistics decoded), then read fully in small batches with every
 * row formatted as `paimon cat` JSON, read again passing over rows between
 * the batches (pm_pq_reader_skip), then read projecting only the first
 * field.  Any input must end in success or an error, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/buf.h"
#include "format/parquet/parquet_reader.h"
#include "types/column.h"

/* skip > 0: between batches, pass over rows (1, 2, 4, ... up to 4096 and
 * again), so page skipping meets the same bytes (pm_pq_reader_skip). */
static void read_all(const uint8_t *data, size_t size, pm_pq_reader_options *o, int64_t skip)
{
    pm_pq_reader *r;
    pm_error *e = pm_pq_reader_open_memory(&r, data, size, o);
    if (e) {
        pm_error_free(e);
        return;
    }
    pm_buf line = PM_BUF_INIT;
    for (;;) {
        pm_batch *b;
        if (skip > 0) {
            int64_t got = 0;
            e = pm_pq_reader_skip(r, skip, &got);
            if (e)
                break;
            skip = skip >= 4096 ? 1 : skip * 2;
        }
        e = pm_pq_reader_next_batch(r, &b);
        if (e || !b)
            break;
        for (int64_t i = 0; i < pm_batch_num_rows(b); i++) {
            pm_buf_clear(&line);
            pm_error_free(pm_batch_format_row_json(b, i, &line));
        }
    }
    pm_error_free(e);
    pm_buf_free(&line);
    pm_pq_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.footer_only = true;
    pm_pq_reader *r;
    pm_error *e = pm_pq_reader_open_memory(&r, data, size, &o);
    if (e) {
        pm_error_free(e);
        return 0;
    }
    const pm_pq_file_meta *m = pm_pq_reader_meta(r);
    uint32_t nleaves = pm_pq_reader_num_leaves(r);
    const char *first = m->num_schema > 1 ? m->schema[1].name : NULL;
    char *first_copy = NULL;
    for (uint32_t g = 0; g < m->num_row_groups && g < 16; g++) {
        for (uint32_t l = 0; l < nleaves && l < 64; l++) {
            const pm_type *t = pm_pq_reader_leaf_type(r, l);
            if (!t)
                continue;
            pm_column *col;
            if (pm_column_new(&col, t))
                continue;
            for (int k = 0; k < 2; k++) {
                bool present;
                pm_error_free(pm_pq_reader_stat(r, g, l, k == 1, col, &present));
            }
            pm_buf text = PM_BUF_INIT;
            for (int64_t i = 0; i < col->length; i++)
                pm_error_free(pm_column_format_json(col, i, &text));
            pm_buf_free(&text);
            pm_column_release(col);
        }
    }
    if (first) {
        size_t n = 0;
        while (first[n])
            n++;
        first_copy = malloc(n + 1);
        if (first_copy)
            for (size_t i = 0; i <= n; i++)
                first_copy[i] = first[i];
    }
    pm_pq_reader_free(r);

    pm_pq_reader_options full = PM_PQ_READER_OPTIONS_INIT;
    full.batch_rows = 3;
    full.max_page_bytes = 8 << 20;
    read_all(data, size, &full, 0);
    read_all(data, size, &full, 1);
    if (first_copy) {
        const char *cols[1] = {first_copy};
        full.columns = cols;
        full.ncolumns = 1;
        full.batch_rows = 1000;
        read_all(data, size, &full, 0);
        free(first_copy);
    }
    return 0;
}
