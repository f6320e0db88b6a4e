/*
 * base/log.c — leveled logging to stderr (see log.h).
 */
#include "base/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -1 = not yet read from the environment. */
static atomic_int log_level = -1;

static int current_level(void)
{
    int l = atomic_load_explicit(&log_level, memory_order_relaxed);
    if (l >= 0)
        return l;
    const char *env = getenv("PAIMON_LOG");
    l = PM_LOG_WARN;
    if (env) {
        if (!strcmp(env, "error")) l = PM_LOG_ERROR;
        else if (!strcmp(env, "info")) l = PM_LOG_INFO;
        else if (!strcmp(env, "debug")) l = PM_LOG_DEBUG;
    }
    int expected = -1;
    atomic_compare_exchange_strong(&log_level, &expected, l);
    return atomic_load(&log_level);
}

void pm_log_set_level(pm_log_level level) { atomic_store(&log_level, (int)level); }

int pm_log_enabled(pm_log_level level) { return (int)level <= current_level(); }

void pm_log(pm_log_level level, const char *module, const char *fmt, ...)
{
    static const char *names[] = {"error", "warn", "info", "debug"};
    if (!pm_log_enabled(level))
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "paimon %s [%s] %s\n", names[level], module ? module : "-", msg);
}
