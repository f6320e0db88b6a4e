/*
 * tests/fuzz/fuzz_thrift.c — libFuzzer target for the thrift compact reader
 * and the Parquet footer / page-header parsers.
 *
 * The input is parsed as a FileMetaData footer; a footer that parses must
 * serialize, parse again and serialize to the same bytes (the round trip is
 * stable).  The same input is also parsed as a page header, as a page
 * index (ColumnIndex, OffsetIndex: what page-level compaction passthrough
 * reads from its inputs) and skipped as a generic thrift struct.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/arena.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_read_index.h"
#include "format/parquet/thrift.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pm_pq_file_meta *m = NULL;
    pm_error *e = pm_pq_file_meta_parse(&m, data, size);
    if (!e) {
        pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
        e = pm_pq_file_meta_serialize(m, &a);
        if (!e) {
            pm_pq_file_meta *m2 = NULL;
            pm_error *e2 = pm_pq_file_meta_parse(&m2, a.data, a.len);
            if (e2)
                abort(); /* our own output must parse */
            if (pm_pq_file_meta_serialize(m2, &b) || a.len != b.len || memcmp(a.data, b.data, a.len))
                abort(); /* and be stable */
            pm_pq_file_meta_free(m2);
        }
        pm_error_free(e);
        pm_buf_free(&a);
        pm_buf_free(&b);
    } else {
        pm_error_free(e);
    }
    pm_pq_file_meta_free(m);

    pq_page_header h;
    size_t used;
    e = pm_pq_page_header_parse(&h, data, size, &used);
    if (!e && used > size)
        abort();
    pm_error_free(e);

    pm_arena a;
    pm_arena_init(&a, 0);
    pq_column_index ci;
    e = pq_column_index_parse(&ci, data, size, &a);
    if (!e) {
        /* every entry is there (ASan sees a short array) */
        volatile uint64_t sum = 0;
        for (uint32_t i = 0; i < ci.n; i++) {
            sum += ci.null_pages[i] + ci.min_len[i] + ci.max_len[i] + (ci.has_null_counts ? (uint64_t)ci.null_counts[i] : 0);
            if (ci.min_len[i])
                sum += ci.min[i][ci.min_len[i] - 1];
            if (ci.max_len[i])
                sum += ci.max[i][ci.max_len[i] - 1];
        }
        (void)sum;
    }
    pm_error_free(e);
    pq_offset_index oi;
    e = pq_offset_index_parse(&oi, data, size, &a);
    if (!e)
        for (uint32_t i = 1; i < oi.n; i++)
            if (oi.pages[i].first_row <= oi.pages[i - 1].first_row || oi.pages[i].size <= 0)
                abort(); /* the parser's guarantees */
    pm_error_free(e);
    pm_arena_free(&a);

    pq_thrift_reader r;
    pq_thrift_reader_init(&r, data, size);
    e = pq_thrift_skip(&r, PQ_TT_STRUCT);
    pm_error_free(e);
    return 0;
}
