/*
 * bench/json/bench_json.c — the shortest double/float printer of
 * types/value_json.c: (1) checks that it prints exactly the reference
 * algorithm's text (snprintf "%.*e" with more digits until strtod/strtof
 * reads the value back) on many values, (2) times both.
 *
 * Values per round (seeded splitmix64): a random 64-bit pattern as a
 * double and its high 32 bits as a float, a short decimal (integer /
 * 10^k, as double and float), cents / 100, integers with trailing 5s and
 * zeros times a power of two (exact ties when rounded to 16/17 digits, also
 * as floats); then every power of two and ten with both neighbours.
 *
 *   bench_json [--values N] [--seed S]
 * Prints one JSON object: values compared, mismatches (first ones on
 * stderr), ns per value of each printer.  Exit status 1 on a mismatch.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "types/value.h"

static uint64_t rng = 0x5eed;

static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static long compared, bad;
static pm_buf fa, fb;

static void same_double(double v)
{
    if (!isfinite(v))
        return;
    pm_buf_clear(&fa);
    pm_buf_clear(&fb);
    pm_error_free(pm_format_double(&fa, v));
    pm_error_free(pm_format_double_reference(&fb, v));
    compared++;
    if (fa.len != fb.len || memcmp(fa.data, fb.data, fa.len))
        if (bad++ < 20)
            fprintf(stderr, "double %a: fast %.*s, reference %.*s\n", v, (int)fa.len, (const char *)fa.data,
                    (int)fb.len, (const char *)fb.data);
}

static void same_float(float v)
{
    if (!isfinite(v))
        return;
    pm_buf_clear(&fa);
    pm_buf_clear(&fb);
    pm_error_free(pm_format_float(&fa, v));
    pm_error_free(pm_format_float_reference(&fb, v));
    compared++;
    if (fa.len != fb.len || memcmp(fa.data, fb.data, fa.len))
        if (bad++ < 20)
            fprintf(stderr, "float %a: fast %.*s, reference %.*s\n", (double)v, (int)fa.len, (const char *)fa.data,
                    (int)fb.len, (const char *)fb.data);
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    long n = 10000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--values") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: bench_json [--values N] [--seed S]\n");
            return 2;
        }
    }
    long rounds = n / 8 + 1;
    for (long i = 0; i < rounds; i++) {
        uint64_t x = rnd();
        double d;
        memcpy(&d, &x, 8);
        same_double(d);
        uint32_t y = (uint32_t)(x >> 32);
        float f;
        memcpy(&f, &y, 4);
        same_float(f);
        double dec = (double)(int64_t)(x % 2000000001ull - 1000000000) / pow(10, (int)((x >> 40) % 20));
        same_double(dec);
        same_float((float)dec);
        same_double((double)(x % 100000000) / 100.0);
        int a = (int)((x >> 3) % 23);
        uint64_t p5 = 1;
        for (int k = 0; k < a; k++)
            p5 *= 5;
        uint64_t r = (rnd() % ((1ull << 53) / p5)) | 1;
        same_double(ldexp((double)(r * p5), (int)((x >> 20) % 120) - 10));
        if (p5 < (1u << 24)) {
            uint64_t rf = (rnd() % ((1ull << 24) / p5)) | 1;
            same_float(ldexpf((float)(rf * p5), (int)((x >> 20) % 100) - 10));
        }
    }
    for (int e = -1074; e <= 1023; e++) {
        double p = ldexp(1, e);
        same_double(p);
        same_double(nextafter(p, 0));
        same_double(nextafter(p, INFINITY));
    }
    for (int e = -149; e <= 127; e++) {
        float p = ldexpf(1, e);
        same_float(p);
        same_float(nextafterf(p, 0));
        same_float(nextafterf(p, INFINITY));
    }
    for (int e = -325; e <= 308; e++) {
        double p = pow(10, e);
        same_double(p);
        same_double(nextafter(p, 0));
        same_double(nextafter(p, INFINITY));
        same_float((float)p);
    }
    /* speed: 1M random doubles and 1M "price" doubles through each printer */
    enum { N = 1000000 };
    double *vals = malloc(sizeof *vals * 2 * N);
    if (!vals)
        return 1;
    for (int i = 0; i < N; i++) {
        uint64_t x = rnd() & ~(0x7ffull << 52);
        x |= (uint64_t)(1023 + (int)(rnd() % 80) - 40) << 52; /* finite, 1e-12 .. 1e12 */
        memcpy(&vals[i], &x, 8);
        vals[N + i] = (double)(rnd() % 1000000) / 100.0;
    }
    double t0 = cpu_now();
    for (int i = 0; i < 2 * N; i++) {
        pm_buf_clear(&fa);
        pm_error_free(pm_format_double(&fa, vals[i]));
    }
    double t1 = cpu_now();
    for (int i = 0; i < 2 * N; i++) {
        pm_buf_clear(&fb);
        pm_error_free(pm_format_double_reference(&fb, vals[i]));
    }
    double t2 = cpu_now();
    printf("{\"compared\":%ld,\"mismatches\":%ld,\"fast_ns\":%.1f,\"reference_ns\":%.1f}\n", compared, bad,
           (t1 - t0) * 1e9 / (2 * N), (t2 - t1) * 1e9 / (2 * N));
    free(vals);
    pm_buf_free(&fa);
    pm_buf_free(&fb);
    return bad != 0;
}
