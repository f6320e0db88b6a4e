/*
 * tests/fuzz/fuzz_avro.c — Avro object container files from hostile bytes.
 *
 * The input is a whole file held in memory.  Steps: parse the header and
 * writer schema, then for every block (decompressed blocks capped at 1 MiB)
 * skip every object by the writer schema.
 */
#include <stdlib.h>

#include "format/avro/avro_binary.h"
#include "format/avro/avro_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pm_avro_file_options opt = {.max_block_bytes = 1 << 20};
    pm_avro_file *f;
    pm_error *e = pm_avro_file_open_memory(data, size, "fuzz", &opt, &f);
    if (e) {
        pm_error_free(e);
        return 0;
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
    return 0;
}
