/*
 * base/util.c — clocks, random ids, base64 and hex (see util.h).
 */
#define _GNU_SOURCE
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int64_t pm_now_millis(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t pm_now_local_millis(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    time_t t = ts.tv_sec;
    struct tm lt;
    localtime_r(&t, &lt);
    return ((int64_t)ts.tv_sec + lt.tm_gmtoff) * 1000 + ts.tv_nsec / 1000000;
}

uint64_t pm_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

pm_error *pm_random_bytes(void *out, size_t n)
{
    uint8_t *p = out;
    while (n) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        p += r;
        n -= (size_t)r;
    }
    if (!n)
        return NULL;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pm_error_new(PM_EIO, "no random source: %s", strerror(errno));
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            close(fd);
            return pm_error_new(PM_EIO, "reading /dev/urandom failed");
        }
        p += r;
        n -= (size_t)r;
    }
    close(fd);
    return NULL;
}

pm_error *pm_uuid(char out[37])
{
    uint8_t b[16];
    PM_TRY(pm_random_bytes(b, sizeof b));
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    char *p = out;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *p++ = '-';
        *p++ = hex[b[i] >> 4];
        *p++ = hex[b[i] & 15];
    }
    *p = '\0';
    return NULL;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pm_error *pm_base64_encode(pm_buf *out, const uint8_t *d, size_t len)
{
    PM_TRY(pm_buf_reserve(out, (len + 2) / 3 * 4));
    char *p = (char *)out->data + out->len;
    size_t i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
        *p++ = b64[v >> 18];
        *p++ = b64[(v >> 12) & 63];
        *p++ = b64[(v >> 6) & 63];
        *p++ = b64[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < len ? (uint32_t)d[i + 1] << 8 : 0);
        *p++ = b64[v >> 18];
        *p++ = b64[(v >> 12) & 63];
        *p++ = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        *p++ = '=';
    }
    out->len = (size_t)((uint8_t *)p - out->data);
    return NULL;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

pm_error *pm_base64_decode(pm_buf *out, const char *t, size_t len)
{
    while (len && t[len - 1] == '=')
        len--;
    if (len % 4 == 1)
        return pm_error_new(PM_EINVALID, "invalid base64 length");
    PM_TRY(pm_buf_reserve(out, len / 4 * 3 + 3));
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value(t[i]);
        if (v < 0)
            return pm_error_new(PM_EINVALID, "invalid base64 character at %zu", i);
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out->data[out->len++] = (uint8_t)(acc >> bits);
        }
    }
    return NULL;
}

pm_error *pm_hex_encode(pm_buf *out, const uint8_t *d, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    PM_TRY(pm_buf_reserve(out, len * 2));
    for (size_t i = 0; i < len; i++) {
        out->data[out->len++] = (uint8_t)hex[d[i] >> 4];
        out->data[out->len++] = (uint8_t)hex[d[i] & 15];
    }
    return NULL;
}

bool pm_ascii_eq_nocase(const char *a, size_t an, const char *b)
{
    size_t bn = strlen(b);
    if (an != bn)
        return false;
    for (size_t i = 0; i < an; i++)
        if (pm_ascii_lower(a[i]) != pm_ascii_lower(b[i]))
            return false;
    return true;
}
