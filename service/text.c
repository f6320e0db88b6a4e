/*
 * service/text.c — the growing string the metrics, the status page and
 * error texts are printed into.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc.h"

void svc_text_printf(svc_text *t, const char *fmt, ...)
{
    if (t->bad)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->n;
        int k = t->s ? vsnprintf(t->s + t->n, room, fmt, ap) : -1;
        va_end(ap);
        if (t->s && k < 0) {
            t->bad = true;
            return;
        }
        if (k >= 0 && (size_t)k < room) {
            t->n += (size_t)k;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (k >= 0 && cap - t->n <= (size_t)k)
            cap *= 2;
        char *ns = realloc(t->s, cap);
        if (!ns) {
            t->bad = true;
            return;
        }
        t->s = ns;
        t->cap = cap;
    }
}

void svc_text_html(svc_text *t, const char *v)
{
    for (; v && *v; v++) {
        switch (*v) {
        case '&': svc_text_printf(t, "&amp;"); break;
        case '<': svc_text_printf(t, "&lt;"); break;
        case '>': svc_text_printf(t, "&gt;"); break;
        case '"': svc_text_printf(t, "&quot;"); break;
        case '\'': svc_text_printf(t, "&#39;"); break;
        default: svc_text_printf(t, "%c", *v);
        }
    }
}

char *svc_text_take(svc_text *t)
{
    char *s = t->bad ? NULL : t->s;
    if (t->bad)
        free(t->s);
    if (!s && !t->bad)
        s = strdup("");
    memset(t, 0, sizeof *t);
    return s;
}
