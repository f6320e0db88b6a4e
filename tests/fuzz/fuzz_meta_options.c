/*
 * tests/fuzz/fuzz_meta_options.c — option value parsers (memory size,
 * duration, stats mode, map, list, numbers) and validation.  The input is
 * split at the first NUL into an option key and a value.
 */
#include <stdlib.h>
#include <string.h>

#include "meta/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    const char *key = text;
    const char *value = memchr(text, 0, size) ? text + strlen(text) + 1 : text;
    if (value > text + size)
        value = text + size;

    int64_t l;
    int32_t i;
    bool b;
    double d;
    pm_stats_mode sm;
    pm_kv_list kv;
    pm_str_list sl;
    pm_error_free(pm_parse_memory_size(value, &l));
    pm_error_free(pm_parse_duration_ms(value, &l));
    pm_error_free(pm_parse_int32(value, &i));
    pm_error_free(pm_parse_int64(value, &l));
    pm_error_free(pm_parse_bool(value, &b));
    pm_error_free(pm_parse_double(value, &d));
    pm_error_free(pm_parse_stats_mode(value, &sm));
    pm_error *e = pm_parse_map(value, &kv);
    if (!e)
        pm_kv_list_free(&kv);
    pm_error_free(e);
    e = pm_parse_list(value, &sl);
    if (!e)
        pm_str_list_free(&sl);
    pm_error_free(e);

    pm_options *o = NULL;
    if (!pm_options_new(&o) && !pm_options_set(o, key, value)) {
        pm_error_free(pm_options_validate(o));
        char *lv = NULL;
        pm_error_free(pm_options_per_level(o, PM_OPT_FILE_FORMAT_PER_LEVEL, 0, &lv));
        free(lv);
        pm_error_free(pm_options_num_levels(o, &i));
        pm_error_free(pm_options_target_file_size(o, true, &l));
    }
    pm_options_free(o);
    free(text);
    return 0;
}
