/*
 * tests/fuzz/fuzz_thrift.c — libFuzzer target for the thrift compact reader
 * and the Parquet footer / page-header parsers.
 *
 * The input is parsed as a FileMetaData footer; a footer that parses must
 * serialize, parse again and serialize to the same bytes (the round trip is
 * stable).  The same input is also parsed as a page header and skipped as a
 * generic thrift struct.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "format/parquet/parquet_meta.h"
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

    pq_thrift_reader r;
    pq_thrift_reader_init(&r, data, size);
    e = pq_thrift_skip(&r, PQ_TT_STRUCT);
    pm_error_free(e);
    return 0;
}
