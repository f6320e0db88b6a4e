/*
 * base/utf8.c — strict UTF-8 validation (RFC 3629): one to four bytes per
 * code point, no overlong forms, no UTF-16 surrogates (U+D800-U+DFFF), no
 * code points past U+10FFFF.  Used wherever bytes must be text: Parquet
 * schema names and string statistics, Paimon type strings' field names.
 */
#include "base/utf8.h"

bool pm_utf8_valid(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint8_t lo = 0x80, hi = 0xBF;   /* range of the second byte */
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0;          /* no overlong forms */
            else if (c == 0xED)
                hi = 0x9F;          /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F;          /* <= U+10FFFF */
        } else {
            return false;
        }
        if (n - i < len || p[i + 1] < lo || p[i + 1] > hi)
            return false;
        for (size_t k = 2; k < len; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF)
                return false;
        i += len;
    }
    return true;
}
