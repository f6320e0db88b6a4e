/*
 * tests/fuzz/fuzz_orc_file.c — libFuzzer target for the whole ORC read
 * path: the input is a file in memory.  It is opened footer-only (file
 * statistics, stripe statistics, every stripe footer and row index
 * parsed), then read fully in small batches with every row formatted as
 * `paimon cat` JSON, then read again projecting only the first field.
 * Any input must end in success or an error, never a crash; the batch
 * count is capped because a file may declare any number of rows of an
 * empty projection.
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/buf.h"
#include "format/orc/orc_reader.h"
#include "types/column.h"

#define MAX_BATCHES 2000

static void inspect(const uint8_t *data, size_t size)
{
    pm_orc_reader_options o = PM_ORC_READER_OPTIONS_INIT;
    o.footer_only = true;
    pm_orc_reader *r;
    pm_error *e = pm_orc_reader_open_memory(&r, data, size, &o);
    if (e) {
        pm_error_free(e);
        return;
    }
    const pm_orc_file_info *fi = pm_orc_reader_info(r);
    for (uint32_t c = 0; c < fi->ncolumns && c < 64; c++)
        (void)pm_orc_reader_file_stats(r, c);
    for (uint32_t s = 0; s < fi->nstripes && s < 16; s++) {
        const orc_stripe_footer *sf;
        pm_error_free(pm_orc_reader_stripe_footer(r, s, &sf));
        for (uint32_t c = 0; c < fi->ncolumns && c < 16; c++) {
            (void)pm_orc_reader_stripe_stats(r, s, c);
            const orc_row_index *ri;
            pm_error_free(pm_orc_reader_row_index(r, s, c, &ri));
        }
    }
    pm_orc_reader_free(r);
}

static void read_all(const uint8_t *data, size_t size, pm_orc_reader_options *o)
{
    pm_orc_reader *r;
    pm_error *e = pm_orc_reader_open_memory(&r, data, size, o);
    if (e) {
        pm_error_free(e);
        return;
    }
    pm_buf out = PM_BUF_INIT;
    for (int n = 0; n < MAX_BATCHES; n++) {
        pm_batch *b;
        e = pm_orc_reader_next_batch(r, &b);
        if (e || !b)
            break;
        pm_buf_clear(&out);
        pm_error_free(pm_batch_format_rows_json(b, 0, pm_batch_num_rows(b), &out));
    }
    pm_error_free(e);
    pm_buf_free(&out);
    pm_orc_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    inspect(data, size);
    pm_orc_reader_options o = PM_ORC_READER_OPTIONS_INIT;
    o.batch_rows = 97;
    o.max_value_bytes = 1 << 20;
    o.max_batch_elements = 1 << 20;
    read_all(data, size, &o);
    const int32_t first[] = {0};
    o.column_ids = first;
    o.ncolumn_ids = 1;
    read_all(data, size, &o);
    return 0;
}
