/*
 * service/trigger.c — when a bucket needs a pass (the seed's rules) and
 * how much one pass takes.
 *
 * A bucket with at least min_files pending files (append tables 2: one
 * file alone has nothing to fold with; primary keys 1) triggers on the
 * first of, in this order:
 *   count  pending files  >= trigger.count
 *   bytes  pending bytes  >= trigger.bytes
 *   age    oldest pending >= trigger.age (so a file that never gathers
 *          siblings is folded eventually)
 * A pass takes the prefix of the pending files, oldest first, of at most
 * prefix-max files and pass-target-bytes bytes (the first file always).
 */
#include <string.h>

#include "svc.h"

static const char *const TRIGGERS[] = {"none", "count", "bytes", "age", "manual", "backpressure", "interval"};

const char *svc_trigger_name(svc_trigger t)
{
    return (size_t)t < sizeof TRIGGERS / sizeof *TRIGGERS ? TRIGGERS[t] : "none";
}

bool svc_trigger_parse(const char *s, svc_trigger *out)
{
    for (size_t i = 1; i < sizeof TRIGGERS / sizeof *TRIGGERS; i++)
        if (!strcmp(s, TRIGGERS[i])) {
            *out = (svc_trigger)i;
            return true;
        }
    return false;
}

svc_trigger svc_trigger_check(const svc_thresholds *th, const svc_load *l)
{
    int64_t need = l->min_files > 0 ? l->min_files : 1;
    if (l->pending_files < need)
        return SVC_TRIGGER_NONE;
    if (l->pending_files >= th->trigger_count)
        return SVC_TRIGGER_COUNT;
    if (l->pending_bytes >= th->trigger_bytes)
        return SVC_TRIGGER_BYTES;
    if (l->oldest_age_ms >= 0 && l->oldest_age_ms >= th->trigger_age_ms)
        return SVC_TRIGGER_AGE;
    return SVC_TRIGGER_NONE;
}

int64_t svc_prefix_count(const svc_thresholds *th, const int64_t *sizes, size_t n)
{
    int64_t take = 0, bytes = 0;
    while ((size_t)take < n) {
        if (take && take >= th->prefix_max)
            break;
        if (take && sizes[take] > th->pass_target_bytes - bytes)
            break;
        bytes += sizes[take];
        take++;
    }
    return take;
}
