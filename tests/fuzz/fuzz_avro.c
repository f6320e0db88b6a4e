/*
 * tests/fuzz/fuzz_avro.c — Avro object container files from hostile bytes.
 *
 * The input is a whole file held in memory.  Two passes:
 *   1. framing: parse the header and writer schema, then for every block
 *      (decompressed blocks capped at 1 MiB) skip every object by the
 *      writer schema;
 *   2. decoding: open a reader with the file's own schema mapped to a
 *      Paimon row type, decode batches of 64 rows and format every row as
 *      JSON (which walks every column buffer the decoder produced).
 */
#include <stdlib.h>

#include "format/avro/avro.h"
#include "format/avro/avro_binary.h"
#include "types/column.h"

static void framing(const uint8_t *data, size_t size)
{
    pm_avro_file_options opt = {.max_block_bytes = 1 << 20};
    pm_avro_file *f;
    pm_error *e = pm_avro_file_open_memory(data, size, "fuzz", &opt, &f);
    if (e) {
        pm_error_free(e);
        return;
    }
    const pm_avro_node *root = pm_avro_file_schema(f)->root;
    for (int blocks = 0; blocks < 64; blocks++) {
        const uint8_t *b;
        size_t n;
        int64_t cnt;
        e = pm_avro_file_next_block(f, &b, &n, &cnt);
        if (e || cnt == 0)
            break;
        pm_cursor c = pm_cursor_make(b, n);
        for (int64_t i = 0; i < cnt && !e; i++)
            e = pm_avro_skip(&c, root, 0);
        pm_error_free(e);
        e = NULL;
    }
    pm_error_free(e);
    pm_avro_file_close(f);
}

static void decoding(const uint8_t *data, size_t size)
{
    pm_avro_read_options opt = {.batch_rows = 64, .max_block_bytes = 1 << 20};
    pm_avro_reader *r;
    pm_error *e = pm_avro_reader_open_memory(data, size, "fuzz", NULL, &opt, &r);
    if (e) {
        pm_error_free(e);
        return;
    }
    pm_buf json = PM_BUF_INIT;
    for (int batches = 0; batches < 64; batches++) {
        pm_batch *b;
        e = pm_avro_reader_next(r, &b);
        if (e || !b)
            break;
        for (int64_t row = 0; row < pm_batch_num_rows(b) && !e; row++) {
            pm_buf_clear(&json);
            e = pm_batch_format_row_json(b, row, &json);
        }
        if (e)
            abort(); /* a batch the reader returned must be well-formed */
    }
    pm_error_free(e);
    pm_buf_free(&json);
    pm_avro_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    framing(data, size);
    decoding(data, size);
    return 0;
}
