/*
 * base/util.h — small shared helpers: clocks, random ids, base64, hex,
 * ASCII case folding.
 */
#ifndef PM_BASE_UTIL_H
#define PM_BASE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "base/buf.h"

/* Wall clock, milliseconds since the Unix epoch. */
int64_t pm_now_millis(void);
/* Local wall-clock millis as if the local time were UTC (Java LocalDateTime.now()). */
int64_t pm_now_local_millis(void);
/* Monotonic clock in nanoseconds. */
uint64_t pm_monotonic_ns(void);
/* Fill with cryptographically random bytes (getrandom, falling back to /dev/urandom). */
pm_error *pm_random_bytes(void *out, size_t n);
/* Random version-4 UUID in canonical text form (36 chars + NUL). */
pm_error *pm_uuid(char out[37]);

/* Standard base64 with padding. */
pm_error *pm_base64_encode(pm_buf *out, const uint8_t *data, size_t len);
/* Decode standard base64 (padding optional); PM_EINVALID on bad characters. */
pm_error *pm_base64_decode(pm_buf *out, const char *text, size_t len);

/* ASCII case folding (locale-independent). */
static inline char pm_ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }
/* [a, a + an) equals the string b, ignoring ASCII case. */
bool pm_ascii_eq_nocase(const char *a, size_t an, const char *b);

/* Lowercase hex. */
pm_error *pm_hex_encode(pm_buf *out, const uint8_t *data, size_t len);

#endif
