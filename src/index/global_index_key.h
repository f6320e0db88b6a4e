/*
 * index/global_index_key.h — the key bytes of btree and dictionary bitmap
 * global indexes (Java's KeySerializer): CHAR/VARCHAR their UTF-8 bytes;
 * BOOLEAN one byte; TINYINT 1, SMALLINT 2, INT/DATE/TIME 4, BIGINT 8
 * bytes little-endian; FLOAT/DOUBLE the bits of floatToIntBits /
 * doubleToLongBits (one NaN); DECIMAL(p <= 18) the unscaled i64;
 * TIMESTAMP(_LTZ)(p <= 3) epoch millis i64.  BINARY/VARBINARY, wider
 * decimals and finer timestamps have no key form.
 */
#ifndef PM_INDEX_GLOBAL_INDEX_KEY_H
#define PM_INDEX_GLOBAL_INDEX_KEY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "index/fi_internal.h"
#include "paimon/error.h"
#include "paimon/types.h"

/* The value kind of keys of type t; false when t has no key form. */
bool pm_gi_key_kind(const pm_type *t, fv_kind *k);
/* Append v's key bytes. */
pm_error *pm_gi_key_put(pm_buf *out, fv_kind k, const fi_val *v);
/* Key bytes p[0..n) back to a value (bytes borrowed); a wrong width is
 * PM_ECORRUPT naming `what`. */
pm_error *pm_gi_key_read(fv_kind k, const uint8_t *p, size_t n, fi_val *v, const char *what);

#endif
