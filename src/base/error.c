/*
 * base/error.c — the pm_error object: code, message and cause chain.
 *
 * Errors are small heap objects.  When even the error cannot be allocated we
 * hand out one static "out of memory" object; pm_error_free recognizes it and
 * does nothing, so callers never need to special-case OOM.
 */
#include "paimon/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pm_error {
    pm_code code;
    char *message;
    pm_error *cause;
};

static char oom_message[] = "out of memory";
static pm_error oom_error = {PM_ENOMEM, oom_message, NULL};

static char *vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

pm_error *pm_error_newv(pm_code code, const char *fmt, va_list ap)
{
    pm_error *e = malloc(sizeof *e);
    if (!e)
        return &oom_error;
    e->message = vformat(fmt, ap);
    if (!e->message) {
        free(e);
        return &oom_error;
    }
    e->code = code;
    e->cause = NULL;
    return e;
}

pm_error *pm_error_new(pm_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pm_error *e = pm_error_newv(code, fmt, ap);
    va_end(ap);
    return e;
}

pm_error *pm_error_wrap(pm_error *cause, pm_code code, const char *fmt, ...)
{
    if (!cause)
        return NULL;
    if (cause == &oom_error)
        return cause;
    va_list ap;
    va_start(ap, fmt);
    pm_error *e = pm_error_newv(code ? code : cause->code, fmt, ap);
    va_end(ap);
    if (e == &oom_error) {
        pm_error_free(cause);
        return e;
    }
    e->cause = cause;
    return e;
}

pm_code pm_error_code(const pm_error *e) { return e ? e->code : PM_OK; }

const char *pm_error_message(const pm_error *e) { return e ? e->message : ""; }

const pm_error *pm_error_cause(const pm_error *e) { return e ? e->cause : NULL; }

pm_code pm_error_root_code(const pm_error *e)
{
    if (!e)
        return PM_OK;
    while (e->cause)
        e = e->cause;
    return e->code;
}

char *pm_error_format(const pm_error *e)
{
    size_t len = 0;
    for (const pm_error *c = e; c; c = c->cause)
        len += strlen(c->message) + 2;
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    s[0] = '\0';
    char *p = s;
    for (const pm_error *c = e; c; c = c->cause) {
        size_t n = strlen(c->message);
        memcpy(p, c->message, n);
        p += n;
        if (c->cause) {
            memcpy(p, ": ", 2);
            p += 2;
        }
    }
    *p = '\0';
    return s;
}

const char *pm_code_name(pm_code code)
{
    switch (code) {
    case PM_OK: return "OK";
    case PM_EINVALID: return "EINVALID";
    case PM_ENOTFOUND: return "ENOTFOUND";
    case PM_EEXIST: return "EEXIST";
    case PM_ECONFLICT: return "ECONFLICT";
    case PM_EUNCERTAIN: return "EUNCERTAIN";
    case PM_ECORRUPT: return "ECORRUPT";
    case PM_EUNSUPPORTED: return "EUNSUPPORTED";
    case PM_EIO: return "EIO";
    case PM_ENOMEM: return "ENOMEM";
    case PM_EINTERNAL: return "EINTERNAL";
    }
    return "EUNKNOWN";
}

void pm_error_free(pm_error *e)
{
    while (e && e != &oom_error) {
        pm_error *next = e->cause;
        free(e->message);
        free(e);
        e = next;
    }
}
