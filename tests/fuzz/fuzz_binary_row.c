/*
 * tests/fuzz/fuzz_binary_row.c — BinaryRow decoder on arbitrary bytes.
 *
 * Input: byte 0 = arity (mod 12), then one type selector byte per field,
 * then the row bytes.  Every field is decoded into a column (errors are
 * fine, crashes are not); when the whole row decodes, it is re-encoded
 * from the columns, decoded again, and both decodings must print the same
 * JSON.  The serialized form (4-byte arity prefix) is decoded too.
 */
#include <stdlib.h>
#include <string.h>

#include "types/binary_row.h"
#include "types/column.h"

static const char *const TYPES[] = {
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)", "DECIMAL(38, 3)",
    "STRING", "BYTES", "DATE", "TIME(3)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)",
    "TIMESTAMP(7) WITH LOCAL TIME ZONE", "CHAR(2)",
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

static void fail_if(int cond)
{
    if (cond)
        abort();
}

static int decode(const pm_binrow *r, pm_type **types, pm_column **cols)
{
    for (int32_t i = 0; i < r->arity; i++) {
        pm_error *e = pm_binrow_append_to_column(r, i, cols[i]);
        if (e) {
            pm_error_free(e);
            return 0;
        }
    }
    (void)types;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int32_t arity = data[0] % 12;
    if (size < 1 + (size_t)arity)
        return 0;
    pm_type *types[12] = {0};
    pm_column *cols[12] = {0}, *cols2[12] = {0};
    for (int32_t i = 0; i < arity; i++) {
        pm_error *e = pm_type_parse(&types[i], TYPES[data[1 + i] % NTYPES]);
        fail_if(e != NULL);
        fail_if(pm_column_new(&cols[i], types[i]) != NULL);
        fail_if(pm_column_new(&cols2[i], types[i]) != NULL);
    }
    const uint8_t *row = data + 1 + arity;
    size_t len = size - 1 - (size_t)arity;

    pm_binrow r;
    pm_error *e = pm_binrow_view(&r, row, len, arity);
    if (!e && decode(&r, types, cols)) {
        /* re-encode and decode again */
        pm_binrow_writer w = PM_BINROW_WRITER_INIT;
        fail_if(pm_binrow_from_columns(&w, cols, NULL, (size_t)arity, 0) != NULL);
        pm_buf ser = PM_BUF_INIT;
        fail_if(pm_binrow_serialize(&w, &ser) != NULL);
        pm_binrow r2;
        fail_if(pm_binrow_deserialize(&r2, ser.data, ser.len, arity) != NULL);
        fail_if(!decode(&r2, types, cols2));
        for (int32_t i = 0; i < arity; i++) {
            pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
            pm_error *e1 = pm_column_format_json(cols[i], 0, &a);
            pm_error *e2 = pm_column_format_json(cols2[i], 0, &b);
            fail_if((e1 == NULL) != (e2 == NULL));
            fail_if(!e1 && (a.len != b.len || memcmp(a.data, b.data, a.len) != 0));
            pm_error_free(e1);
            pm_error_free(e2);
            pm_buf_free(&a);
            pm_buf_free(&b);
        }
        pm_buf_free(&ser);
        pm_binrow_writer_free(&w);
    }
    pm_error_free(e);
    /* the same bytes as a serialized row: probe every accessor on every field */
    e = pm_binrow_deserialize(&r, row, len, -1);
    for (int32_t i = 0; !e && i < r.arity && i < 64; i++) {
        const uint8_t *p;
        size_t n;
        __int128 d;
        int64_t ms;
        int32_t ns;
        pm_error *x = pm_binrow_bytes(&r, i, &p, &n);
        if (!x && n)
            fail_if(p < r.data || p + n > r.data + r.len);
        pm_error_free(x);
        pm_error_free(pm_binrow_decimal(&r, i, 30, &d));
        pm_error_free(pm_binrow_timestamp(&r, i, 9, &ms, &ns));
        (void)pm_binrow_is_null(&r, i);
    }
    pm_error_free(e);
    for (int32_t i = 0; i < arity; i++) {
        pm_column_release(cols[i]);
        pm_column_release(cols2[i]);
        pm_type_free(types[i]);
    }
    return 0;
}
