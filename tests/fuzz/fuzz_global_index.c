/*
 * tests/fuzz/fuzz_global_index.c — btree and bitmap global index payload
 * readers (index/global_index_file.h) on hostile bytes: the first byte
 * picks the family and the key type (INT or STRING), the next four the
 * looked-up literal; a lookup either fails with an error or returns local
 * row ids, never reads outside the bytes.  Bitmap bytes are read in
 * either format (Java 1.4.2's, the dictionary format of
 * index/global_index_dict.h), btree blocks may be zstd / lz4 compressed;
 * the corpus has one seed of each.
 */
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "index/global_index_file.h"
#include "types/column.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    pm_gi_family fam = (data[0] & 1) ? PM_GI_BITMAP : PM_GI_BTREE;
    bool str = data[0] & 2;
    pm_type *t = NULL;
    if (pm_type_parse(&t, str ? "STRING" : "INT"))
        abort();
    pm_column *lit = NULL;
    if (pm_column_new(&lit, t))
        abort();
    pm_error *e = str ? pm_column_append_bytes(lit, data + 1, 4) : pm_column_append_i32(lit, (int32_t)pm_load_u32le(data + 1));
    if (e)
        abort();
    /* a private copy so reads past the end are caught by the sanitizer */
    size_t n = size - 5;
    uint8_t *p = malloc(n ? n : 1);
    if (!p)
        abort();
    memcpy(p, data + 5, n);
    roaring_bitmap_t *r = roaring_bitmap_create();
    pm_error_free(pm_gi_query_in(fam, t, p, n, lit, r, "fuzz"));
    roaring_bitmap_free(r);
    free(p);
    pm_column_release(lit);
    pm_type_free(t);
    return 0;
}
