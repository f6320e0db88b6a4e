/*
 * tests/fuzz/fuzz_orc_tz.c — libFuzzer target for the TZif parser (and
 * its POSIX TZ rule footer) behind ORC writer time zones: any input parses
 * or fails cleanly, and a parsed zone answers offsets for instants across
 * the whole range without a crash.
 */
#include <stdint.h>
#include <stdlib.h>

#include "format/orc/orc_tz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    orc_tz *z;
    pm_error *e = orc_tz_parse(data, size, &z);
    if (e) {
        pm_error_free(e);
        return 0;
    }
    static const int64_t at[] = {INT64_MIN / 4, -5000000000LL, -1, 0, 1420070400, 2147483647, 4102444800LL,
                                 INT64_MAX / 4};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        int32_t off = orc_tz_offset(z, at[i]);
        if (off < -26 * 3600 || off > 26 * 3600 + 3600)
            abort();
        (void)orc_tz_local_to_utc(z, at[i]);
    }
    orc_tz_free(z);
    return 0;
}
