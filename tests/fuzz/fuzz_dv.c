/*
 * tests/fuzz/fuzz_dv.c — deletion-vector entry decoder on hostile bytes.
 *
 * Input: byte 0 = flags (bit 0: verify the CRC, bit 1: pass the entry's own
 * length as the expected DeletionVectorMeta length), the rest = one entry.
 * Errors are fine, crashes are not.  When an entry decodes: the position
 * list must match the cardinality and contains(); a range query must agree
 * with contains(); the vector re-serializes (when small enough), decodes to
 * an equal vector, and re-serializing that gives identical bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "dv/deletion_vector.h"

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    int64_t expected = -1;
    if ((flags & 2) && n >= 8) {
        uint32_t sz = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        int v2 = p[4] == 0xD1 && p[5] == 0xD3 && p[6] == 0x39 && p[7] == 0x64;
        expected = v2 ? (int64_t)sz + 8 : (int64_t)sz;
    }
    pm_dv *dv = NULL;
    size_t used = 0;
    pm_error *e = pm_dv_deserialize(p, n, expected, flags & 1, &dv, &used);
    if (e) {
        pm_error_free(e);
        check(dv == NULL);
        return 0;
    }
    check(used <= n);

    int64_t *pos;
    size_t npos;
    if (pm_dv_positions(dv, &pos, &npos) == NULL) {
        check(npos == pm_dv_cardinality(dv));
        check(pm_dv_is_empty(dv) == (npos == 0));
        for (size_t i = 0; i < npos && i < 64; i++)
            check(!pm_dv_is_bitmap64(dv) && pos[i] > PM_DV_MAX_POS32 ? 1 : pm_dv_contains(dv, pos[i]));
        if (npos) {
            int64_t start = pos[0] > 3 ? pos[0] - 3 : 0, len = 200;
            uint8_t keep[25];
            memset(keep, 0xFF, sizeof keep);
            int64_t ndel;
            pm_dv_clear_deleted(dv, start, len, keep, &ndel);
            int64_t count = 0;
            for (int64_t i = 0; i < len; i++) {
                int del = !((keep[i >> 3] >> (i & 7)) & 1);
                count += del;
                if (pm_dv_is_bitmap64(dv) || start + i <= PM_DV_MAX_POS32)
                    check(del == pm_dv_contains(dv, start + i));
            }
            check(count == ndel);
        }
        free(pos);
    }

    if (pm_dv_serialized_size(dv) <= (1u << 20)) {
        pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
        int32_t len;
        e = pm_dv_serialize(dv, &a, &len);
        check(e == NULL);
        pm_dv *back = NULL;
        e = pm_dv_deserialize(a.data, a.len, len, 1, &back, NULL);
        check(e == NULL);
        check(pm_dv_equal(dv, back));
        check(pm_dv_serialize(back, &b, NULL) == NULL);
        check(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
        pm_dv *copy = NULL;
        check(pm_dv_copy(back, &copy) == NULL);
        check(pm_dv_merge(copy, dv) == NULL);
        check(pm_dv_equal(copy, dv));
        pm_dv_free(copy);
        pm_dv_free(back);
        pm_buf_free(&a);
        pm_buf_free(&b);
    }
    pm_dv_free(dv);
    return 0;
}
