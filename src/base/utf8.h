/*
 * base/utf8.h — strict UTF-8 validation (see utf8.c).
 */
#ifndef PM_BASE_UTF8_H
#define PM_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when p[0..n) is strict UTF-8 (no overlong forms, surrogates or code
 * points past U+10FFFF). */
bool pm_utf8_valid(const uint8_t *p, size_t n);

#endif
