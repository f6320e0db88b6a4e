/*
 * index/fi_java.h — the Java facts the file-index formats depend on:
 * Java's hashCode of the values Paimon keys its maps with, the iteration
 * order of a java.util.HashMap, DataOutput.writeUTF / readUTF (Java's
 * float and double orderings are base/compare.h's).
 *
 * HashMap order (OpenJDK 8+, default constructor): the table starts with
 * 16 buckets and doubles whenever the size passes 0.75 x buckets; a key
 * lives in bucket (h ^ (h >>> 16)) & (buckets - 1); iteration walks the
 * buckets in order and each bucket's list (resizing splits a list keeping
 * its order).  put() appends a new key to its bucket's list, while
 * computeIfAbsent() (also compute and merge) puts it first.  So the order
 * is the insertion order (put) or its reverse (computeIfAbsent) stably
 * sorted by the bucket at the final size.  Not emulated: buckets turned
 * into trees (8 or more keys in one bucket of a table of 64 or more
 * buckets), whose order also depends on Comparable keys and identity
 * hashes; there our order may differ from Java's (the bytes stay valid,
 * readers do not depend on the order).
 */
#ifndef PM_INDEX_FI_JAVA_H
#define PM_INDEX_FI_JAVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/error.h"

/* String.hashCode of UTF-8 text (over its UTF-16 code units; invalid
 * UTF-8 bytes count as U+FFFD, as Java decodes them). */
int32_t pm_java_string_hash(const uint8_t *s, size_t n);
/* Long.hashCode, Float.hashCode, Double.hashCode (canonical NaN), Boolean.hashCode. */
static inline int32_t pm_java_long_hash(int64_t v) { return (int32_t)(uint32_t)((uint64_t)v ^ ((uint64_t)v >> 32)); }
int32_t pm_java_float_hash(float v);
int32_t pm_java_double_hash(double v);
static inline int32_t pm_java_bool_hash(bool v) { return v ? 1231 : 1237; }
/* Float.floatToIntBits / Double.doubleToLongBits (NaN canonical). */
uint32_t pm_java_float_bits(float v);
uint64_t pm_java_double_bits(double v);

/* The HashMap iteration order of n distinct keys inserted in index order
 * with these hashCodes, by put() (head = false) or computeIfAbsent()
 * (head = true): order[k] = the insertion index of the k-th key iterated.
 * order has n entries. */
pm_error *pm_java_hashmap_order(const int32_t *hashes, size_t n, bool head, size_t *order);

/* DataOutput.writeUTF: u16 big-endian byte length, then modified UTF-8
 * (U+0000 as C0 80, supplementary characters as two 3-byte surrogates).
 * PM_EINVALID when the encoding exceeds 65535 bytes. */
pm_error *pm_java_write_utf(pm_buf *out, const char *s);
/* Bytes writeUTF would produce, length prefix included. */
size_t pm_java_utf_size(const char *s);
/* Read one writeUTF string at p (n bytes available) into a malloc'd UTF-8
 * string; *used = bytes consumed.  PM_ECORRUPT when truncated or invalid. */
pm_error *pm_java_read_utf(const uint8_t *p, size_t n, char **out, size_t *used);

#endif
