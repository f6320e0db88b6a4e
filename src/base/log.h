/*
 * base/log.h — minimal leveled logging to stderr.
 *
 * The level is read from PAIMON_LOG (error, warn, info, debug) once, and can
 * be changed with pm_log_set_level.  The level is an atomic, so logging is
 * safe from any thread and never stops two tables working at once.
 */
#ifndef PM_BASE_LOG_H
#define PM_BASE_LOG_H

typedef enum pm_log_level { PM_LOG_ERROR = 0, PM_LOG_WARN, PM_LOG_INFO, PM_LOG_DEBUG } pm_log_level;

void pm_log_set_level(pm_log_level level);
int pm_log_enabled(pm_log_level level);
void pm_log(pm_log_level level, const char *module, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define PM_DEBUG(module, ...) \
    do { if (pm_log_enabled(PM_LOG_DEBUG)) pm_log(PM_LOG_DEBUG, module, __VA_ARGS__); } while (0)

#endif
