/*
 * tests/fuzz/fuzz_pk_keyrange.c — the untrusted bytes merge-on-read
 * planning decodes: a data file's _MIN_KEY/_MAX_KEY (serialized BinaryRow
 * from a manifest) turned into normalized keys for the interval partition
 * (lsm/kv.h pm_kv_normkey_from_binrow), and row-kind text (pk_write.h).
 *
 * Input: byte 0 = key arity (1..4), one type selector byte per key field,
 * then a 2-byte little-endian length and that many bytes for the min key,
 * the same for the max key, the rest is a row-kind string.  Decoding errors
 * are fine; crashes are not.  When both keys decode, their comparison must
 * be antisymmetric and a key must equal itself.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "lsm/kv.h"
#include "table/pk_write.h"

static const char *const TYPES[] = {
    "INT NOT NULL", "BIGINT", "STRING", "BYTES", "DECIMAL(10, 2)", "DECIMAL(30, 3)", "TIMESTAMP(3)",
    "TIMESTAMP(6)", "DOUBLE", "BOOLEAN", "DATE", "SMALLINT",
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

static void fail_if(int cond)
{
    if (cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t n = 1 + data[0] % 4, p = 1;
    if (size < p + n)
        return 0;
    pm_type *kt = pm_type_new_row(false);
    if (!kt)
        return 0;
    for (size_t i = 0; i < n; i++) {
        pm_type *ft = NULL;
        pm_error *e = pm_type_parse(&ft, TYPES[data[p + i] % NTYPES]);
        char name[8] = {'k', (char)('0' + i), 0};
        if (!e)
            e = pm_type_add_field(kt, (int32_t)i, name, ft);
        if (e) {
            pm_error_free(e);
            pm_type_free(ft);
            pm_type_free(kt);
            return 0;
        }
    }
    p += n;
    const uint8_t *key[2] = {NULL, NULL};
    size_t klen[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        if (size < p + 2)
            break;
        size_t l = (size_t)data[p] | (size_t)data[p + 1] << 8;
        p += 2;
        if (l > size - p)
            l = size - p;
        key[k] = data + p;
        klen[k] = l;
        p += l;
    }
    pm_buf nk[2] = {PM_BUF_INIT, PM_BUF_INIT};
    int ok = 0;
    for (int k = 0; k < 2; k++) {
        if (!key[k])
            continue;
        pm_error *e = pm_kv_normkey_from_binrow(kt, key[k], klen[k], &nk[k]);
        if (e)
            pm_error_free(e);
        else
            ok++;
    }
    if (ok == 2) {
        int ab = pm_kv_keycmp(nk[0].data, nk[0].len, nk[1].data, nk[1].len);
        int ba = pm_kv_keycmp(nk[1].data, nk[1].len, nk[0].data, nk[0].len);
        fail_if((ab > 0) != (ba < 0) || (ab == 0) != (ba == 0));
        fail_if(pm_kv_keycmp(nk[0].data, nk[0].len, nk[0].data, nk[0].len) != 0);
    }
    pm_buf_free(&nk[0]);
    pm_buf_free(&nk[1]);
    pm_type_free(kt);
    if (p < size) {
        uint8_t kind = 0;
        pm_error *e = pm_row_kind_parse((const char *)data + p, size - p, &kind);
        if (e)
            pm_error_free(e);
        else
            fail_if(kind > 3);
    }
    return 0;
}
