/*
 * tests/fuzz/fuzz_write_input.c — the JSON-lines and CSV row readers of
 * `paimon write` (table/write_input.h) on hostile bytes.
 *
 * Byte 0 picks the format (bit 0: CSV or JSON lines), the source's chunk
 * size (bits 1-3: 1..8 bytes per read or everything, so record and line
 * boundaries fall everywhere) and the batch size (bits 4-5); the rest is
 * the input.  Every batch produced is formatted as JSON, which walks every
 * column buffer the reader filled.
 */
#include <stdlib.h>

#include "table/write_input.h"
#include "types/column.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static pm_type *rt;
    if (!rt) {
        pm_error *e = pm_type_parse(&rt, "ROW<id INT NOT NULL, s STRING, d DECIMAL(10, 2), ts TIMESTAMP(6), "
                                         "b BYTES, arr ARRAY<INT>, m MAP<STRING, DOUBLE>>");
        if (e)
            abort();
    }
    uint8_t ctl = data[0];
    pm_mem_source src = {data + 1, size - 1, 0, (ctl >> 1) & 7 ? (size_t)((ctl >> 1) & 7) : 0};
    pm_text_rows *r = NULL;
    pm_error *e = pm_text_rows_new(&r, (ctl & 1) ? PM_TEXT_CSV : PM_TEXT_JSONL, rt, pm_mem_source_read, &src,
                                   1 + ((ctl >> 4) & 3) * 3);
    pm_buf out = PM_BUF_INIT;
    for (int i = 0; !e && i < 1000; i++) {
        pm_batch *b = NULL;
        e = pm_text_rows_next(r, &b);
        if (e || !b)
            break;
        for (int64_t row = 0; row < b->num_rows && !e; row++) {
            pm_buf_clear(&out);
            e = pm_batch_format_row_json(b, row, &out);
        }
    }
    pm_error_free(e);
    pm_buf_free(&out);
    pm_text_rows_free(r);
    return 0;
}
