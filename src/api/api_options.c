/*
 * api/api_options.c — paimon/options.h over the meta layer's option
 * registry and Java-compatible value parsers (meta/options.h).
 */
#include "meta/options.h"
#include "paimon/options.h"

pm_error *pm_option_parse_memory_size(int64_t *out, const char *text)
{
    *out = 0;
    if (!text)
        return pm_error_new(PM_EINVALID, "no memory size given");
    return pm_error_wrap(pm_parse_memory_size(text, out), PM_EINVALID, "memory size '%s'", text);
}

pm_error *pm_option_parse_duration(int64_t *out_millis, const char *text)
{
    *out_millis = 0;
    if (!text)
        return pm_error_new(PM_EINVALID, "no duration given");
    return pm_error_wrap(pm_parse_duration_ms(text, out_millis), PM_EINVALID, "duration '%s'", text);
}

pm_error *pm_options_check(const char *const *keys, const char *const *values, size_t n)
{
    if (n && (!keys || !values))
        return pm_error_new(PM_EINVALID, "option count %zu but no arrays", n);
    pm_options *o = NULL;
    PM_TRY(pm_options_new(&o));
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++)
        e = keys[i] && *keys[i] && values[i] ? pm_options_set(o, keys[i], values[i])
                                             : pm_error_new(PM_EINVALID, "option %zu has no key or no value", i);
    if (!e)
        e = pm_options_validate(o);
    pm_options_free(o);
    return e;
}
