/*
 * tests/fuzz/fuzz_hash_index.c — HASH index file decoder on hostile bytes:
 * a decode either fails (size not a multiple of 4) or re-encodes to the
 * identical bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "index/hash_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t *h;
    size_t n;
    pm_error *e = pm_hash_index_decode(data, size, &h, &n);
    if (e) {
        pm_error_free(e);
        if (size % 4 == 0)
            abort();
        return 0;
    }
    pm_buf out = PM_BUF_INIT;
    if (pm_hash_index_encode(h, n, &out) || out.len != size || (size && memcmp(out.data, data, size)))
        abort();
    pm_buf_free(&out);
    free(h);
    return 0;
}
