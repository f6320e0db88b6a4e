/*
 * tests/fuzz/fuzz_meta_manifest.c — manifest rows from arbitrary Avro
 * bytes.  The first input byte picks the row type (manifest entry, manifest
 * list, index manifest); the rest is decoded as an Avro container with that
 * type and every row converted to its struct and back into a batch.
 */
#include <stdlib.h>

#include "format/avro/avro.h"
#include "meta/data_file_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int kind = data[0] % 3;
    pm_type *t = kind == 0 ? pm_manifest_entry_row_type(false)
               : kind == 1 ? pm_manifest_file_meta_row_type()
                           : pm_index_manifest_entry_row_type();
    pm_type *wt = kind == 0 ? pm_manifest_entry_row_type(true) : pm_type_clone(t);
    pm_avro_reader *r = NULL;
    pm_batch *out = NULL;
    pm_avro_read_options opt = {64, 1 << 20};
    pm_error *e = pm_avro_reader_open_memory(data + 1, size - 1, "fuzz", t, &opt, &r);
    if (!e)
        e = pm_batch_new(&out, wt);
    while (!e) {
        pm_batch *b;
        e = pm_avro_reader_next(r, &b);
        if (e || !b)
            break;
        for (int64_t i = 0; i < pm_batch_num_rows(b); i++) {
            pm_error *re;
            if (kind == 0) {
                pm_manifest_entry x;
                if ((re = pm_manifest_entry_from_row(b, i, "fuzz", &x)) == NULL) {
                    /* a row read back must be writable unless it carries 2.1 fields */
                    pm_error *we = pm_manifest_entry_append(out, &x);
                    if (we && !x.file.has_write_cols_sequences)
                        abort();
                    pm_error_free(we);
                    pm_manifest_entry_clear(&x);
                }
            } else if (kind == 1) {
                pm_manifest_file_meta x;
                if ((re = pm_manifest_file_meta_from_row(b, i, "fuzz", &x)) == NULL) {
                    if (pm_manifest_file_meta_append(out, &x))
                        abort();
                    pm_manifest_file_meta_clear(&x);
                }
            } else {
                pm_index_manifest_entry x;
                if ((re = pm_index_manifest_entry_from_row(b, i, "fuzz", &x)) == NULL) {
                    if (pm_index_manifest_entry_append(out, &x))
                        abort();
                    pm_index_manifest_entry_clear(&x);
                }
            }
            pm_error_free(re);
        }
        /* the output batch is only a sink; keep it small */
        pm_batch_free(out);
        out = NULL;
        e = pm_batch_new(&out, wt);
    }
    pm_error_free(e);
    pm_batch_free(out);
    pm_avro_reader_free(r);
    pm_type_free(t);
    pm_type_free(wt);
    return 0;
}
