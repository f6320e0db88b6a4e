/*
 * tests/fuzz/fuzz_dv_index_file.c — DV index file reader on hostile bytes
 * and hostile DeletionVectorMeta ranges.
 *
 * Input: byte 0 = number of ranges k (mod 8); then k × (offset u16 LE,
 * length u16 LE, 0xFFFF = unknown → -1 is not allowed by the meta, so it
 * means length 0x7FFFFFFF); the rest = the index file.  When parsing
 * succeeds, the vectors are written again as an index file (in memory) and
 * read back through the ranges the writer produced: same vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "dv/dv_index_file.h"

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t k = data[0] % 8;
    if (size < 1 + 4 * k)
        return 0;
    pm_dv_meta ranges[8];
    char names[8][8];
    for (size_t i = 0; i < k; i++) {
        const uint8_t *r = data + 1 + 4 * i;
        snprintf(names[i], sizeof names[i], "f%zu", i);
        ranges[i].data_file_name = names[i];
        ranges[i].offset = r[0] | r[1] << 8;
        int32_t len = r[2] | r[3] << 8;
        ranges[i].length = len == 0xFFFF ? 0x7FFFFFFF : len;
        ranges[i].cardinality.has = false;
        ranges[i].cardinality.v = 0;
    }
    const uint8_t *file = data + 1 + 4 * k;
    size_t n = size - 1 - 4 * k;
    pm_dv_map *m;
    if (pm_dv_map_new(&m))
        abort();
    pm_error *e = pm_dv_index_parse(file, n, ranges, k, "fuzz", m);
    if (e) {
        pm_error_free(e);
        pm_dv_map_free(m);
        return 0;
    }
    uint64_t total = 1;
    for (size_t i = 0; i < pm_dv_map_count(m); i++)
        total += pm_dv_serialized_size(pm_dv_map_at(m, i));
    if (total <= (1u << 20)) {
        pm_buf out = PM_BUF_INIT;
        pm_dv_meta got[8];
        size_t cnt = pm_dv_map_count(m);
        check(pm_dv_index_serialize(m, 0, cnt, &out, got) == NULL);
        pm_dv_map *back;
        check(pm_dv_map_new(&back) == NULL);
        check(pm_dv_index_parse(out.data, out.len, got, cnt, "again", back) == NULL);
        check(pm_dv_map_count(back) == cnt);
        for (size_t i = 0; i < cnt; i++)
            check(pm_dv_equal(pm_dv_map_at(m, i), pm_dv_map_get(back, pm_dv_map_name(m, i))));
        pm_dv_map_free(back);
        pm_buf_free(&out);
    }
    pm_dv_map_free(m);
    return 0;
}
