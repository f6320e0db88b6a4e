/*
 * base/buf.h — growable byte buffer.
 *
 * A pm_buf is a plain struct (data, len, cap) owned by whoever embeds it.
 * Appends grow geometrically and report allocation failure as a pm_error;
 * on failure the buffer keeps its previous contents.  pm_buf_free releases
 * the storage and resets the struct, so a buffer can be reused afterwards.
 *
 * Borrowed bytes: a buffer with cap 0 and data set views bytes it does not
 * own (pm_buf_borrow; zero-copy imports, views of a column).  Reading is as
 * usual; pm_buf_free forgets them without freeing; the first growing write
 * (reserve, append, resize) copies them into storage of its own, so a
 * borrowed buffer is never written through.  Whoever borrows keeps the
 * bytes alive for as long as the buffer may read them.
 */
#ifndef PM_BASE_BUF_H
#define PM_BASE_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "paimon/error.h"

typedef struct pm_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} pm_buf;

#define PM_BUF_INIT {NULL, 0, 0}

static inline void pm_buf_init(pm_buf *b) { b->data = NULL; b->len = b->cap = 0; }
void pm_buf_free(pm_buf *b);
/* View `len` bytes at `data` without owning them (see above). */
void pm_buf_borrow(pm_buf *b, const void *data, size_t len);
/* Ensure room for `extra` more bytes beyond len. */
pm_error *pm_buf_reserve(pm_buf *b, size_t extra);
/* Set len (growing and zero-filling as needed). */
pm_error *pm_buf_resize(pm_buf *b, size_t len);
/* Set len, growing as needed but leaving new bytes uninitialized: for a
 * buffer the caller fills completely right away (a decompressed page,
 * decoded levels), where zero-filling would touch every byte twice. */
pm_error *pm_buf_set_len(pm_buf *b, size_t len);
pm_error *pm_buf_append(pm_buf *b, const void *p, size_t n);
pm_error *pm_buf_append_byte(pm_buf *b, uint8_t c);
pm_error *pm_buf_append_str(pm_buf *b, const char *s);
pm_error *pm_buf_append_zeros(pm_buf *b, size_t n);
pm_error *pm_buf_printf(pm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append little/big-endian integers. */
pm_error *pm_buf_append_u32le(pm_buf *b, uint32_t v);
pm_error *pm_buf_append_u64le(pm_buf *b, uint64_t v);
pm_error *pm_buf_append_u32be(pm_buf *b, uint32_t v);
/* Unsigned LEB128 varint (7 bits per byte, low first; at most 10 bytes). */
pm_error *pm_buf_append_uvarint(pm_buf *b, uint64_t v);
static inline void pm_buf_clear(pm_buf *b) { b->len = 0; }
/* NUL-terminate without counting the NUL in len. */
pm_error *pm_buf_cstr(pm_buf *b, const char **out);
/* Hand the storage to the caller (free with free()); the buffer becomes empty. */
uint8_t *pm_buf_detach(pm_buf *b, size_t *len);

/* Unchecked append after a successful reserve (hot loops). */
static inline void pm_buf_put(pm_buf *b, const void *p, size_t n)
{
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

#endif
