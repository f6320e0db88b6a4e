/*
 * paimon/error.h — the error object every fallible paimon-c call returns.
 *
 * A fallible function returns `pm_error *`: NULL on success, otherwise a
 * heap object the caller owns and must release with pm_error_free().  An
 * error has a code (what a caller can act on), a message (what a human
 * reads) and an optional cause (the lower-level error that led to it), so a
 * failure deep in a Parquet page decoder surfaces as
 *   "read table t: file data-1.parquet: column 'id': page 3: corrupt RLE run"
 * without losing any step.  The library never aborts or exits.
 */
#ifndef PAIMON_ERROR_H
#define PAIMON_ERROR_H

#include <stdarg.h>

#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Codes name expected failures a caller acts on. */
typedef enum pm_code {
    PM_OK = 0,
    PM_EINVALID = 1,     /* bad argument, option, schema or input value */
    PM_ENOTFOUND = 2,    /* table, file, snapshot, column does not exist */
    PM_EEXIST = 3,       /* target already exists (create, publish-if-absent) */
    PM_ECONFLICT = 4,    /* concurrent change: re-plan and try again */
    PM_EUNCERTAIN = 5,   /* publication outcome unknown: keep files, retry commit */
    PM_ECORRUPT = 6,     /* a file's bytes break its format */
    PM_EUNSUPPORTED = 7, /* valid input using a feature not supported (yet) */
    PM_EIO = 8,          /* operating-system I/O failure */
    PM_ENOMEM = 9,       /* allocation failed */
    PM_EINTERNAL = 10    /* broken invariant inside paimon-c (a bug) */
} pm_code;

typedef struct pm_error pm_error;

/* New error with a printf-style message. Never returns NULL (falls back to a
 * static out-of-memory error, which pm_error_free accepts). */
PM_API pm_error *pm_error_new(pm_code code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), returns_nonnull));
PM_API pm_error *pm_error_newv(pm_code code, const char *fmt, va_list ap)
    __attribute__((returns_nonnull));

/* Wrap `cause` (ownership moves into the new error) with context.  code 0
 * keeps the cause's code.  A NULL cause returns NULL, so
 * `return pm_error_wrap(f(), 0, "ctx")` is correct on success too. */
PM_API pm_error *pm_error_wrap(pm_error *cause, pm_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

PM_API pm_code pm_error_code(const pm_error *e);
/* Message of this level only; owned by e. */
PM_API const char *pm_error_message(const pm_error *e);
/* Cause or NULL; owned by e. */
PM_API const pm_error *pm_error_cause(const pm_error *e);
/* The innermost error's code (the root cause). */
PM_API pm_code pm_error_root_code(const pm_error *e);
/* Whole chain "msg: cause: cause...", malloc'd; caller frees. NULL on OOM. */
PM_API char *pm_error_format(const pm_error *e);
/* Stable short name for a code, e.g. "EINVALID". */
PM_API const char *pm_code_name(pm_code code);
/* Releases the whole chain; NULL is fine. */
PM_API void pm_error_free(pm_error *e);

/* Releases memory the library allocated for the caller (JSON text, id
 * arrays: every "release with pm_free" result); NULL is fine. */
PM_API void pm_free(void *p);

/* Return early on error. */
#define PM_TRY(expr)                  \
    do {                              \
        pm_error *pm_try_e_ = (expr); \
        if (pm_try_e_)                \
            return pm_try_e_;         \
    } while (0)

/* Jump to a cleanup label on error, storing the error in `var`. */
#define PM_TRY_GOTO(var, expr, label) \
    do {                              \
        (var) = (expr);               \
        if (var)                      \
            goto label;               \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
