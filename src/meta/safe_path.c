/*
 * meta/safe_path.c — lexical checks of untrusted file names and external
 * paths (see safe_path.h for the rules).
 *
 * An external path is compared with each root segment by segment: both are
 * reduced to their local form (scheme stripped), walked from '/' to '/'
 * with empty segments skipped, and the path must repeat every segment of
 * the root before it may continue.
 */
#include "meta/safe_path.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#define MAX_NAME 255

static bool control_free(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return false;
    return true;
}

bool pm_safe_file_name_ok(const char *name)
{
    if (!name || !*name)
        return false;
    const unsigned char *p = (const unsigned char *)name;
    for (; *p; p++)
        if (*p < 0x20 || *p == 0x7F || *p == '/' || *p == '\\')
            return false;
    size_t n = (size_t)(p - (const unsigned char *)name);
    return n <= MAX_NAME && strcmp(name, ".") && strcmp(name, "..");
}

pm_error *pm_safe_file_name(pm_code code, const char *field, const char *name)
{
    if (pm_safe_file_name_ok(name))
        return NULL;
    /* say why */
    if (!name || !*name)
        return pm_error_new(code, "%s: empty file name", field);
    size_t n = strlen(name);
    if (n > MAX_NAME)
        return pm_error_new(code, "%s: file name of %zu bytes (at most %d)", field, n, MAX_NAME);
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return pm_error_new(code, "%s: '%s' is not a file name", field, name);
    if (strchr(name, '/') || strchr(name, '\\'))
        return pm_error_new(code, "%s: file name '%s' holds a path separator", field, name);
    return pm_error_new(code, "%s: file name holds a control character", field);
}

const char *pm_safe_path_local(const char *path)
{
    if (!strncasecmp(path, "file://", 7))
        return path[7] == '/' ? path + 7 : NULL; /* file://host/... is not local */
    if (!strncasecmp(path, "file:", 5))
        return path + 5;
    const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
    if (colon && (!slash || colon < slash))
        return NULL; /* another scheme */
    return path;
}

/* Next segment of a local path at *p: its start and length; false at the end. */
static bool next_segment(const char **p, const char **seg, size_t *len)
{
    while (**p == '/')
        (*p)++;
    if (!**p)
        return false;
    *seg = *p;
    while (**p && **p != '/')
        (*p)++;
    *len = (size_t)(*p - *seg);
    return true;
}

static bool dot_segment(const char *seg, size_t len)
{
    return (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.');
}

/* A local path that is absolute and has no dot segments. */
static bool well_formed(const char *local)
{
    if (!local || local[0] != '/' || !control_free(local))
        return false;
    const char *p = local, *seg;
    size_t len;
    while (next_segment(&p, &seg, &len))
        if (dot_segment(seg, len))
            return false;
    return true;
}

/* Is `path` (well formed) the root `root` or below it? */
static bool under(const char *path, const char *root, size_t root_len)
{
    const char *p = path, *r = root, *rend = root + root_len;
    const char *ps, *rs;
    size_t pl, rl;
    for (;;) {
        while (r < rend && *r == '/')
            r++;
        if (r >= rend)
            return true;
        rs = r;
        while (r < rend && *r != '/')
            r++;
        rl = (size_t)(r - rs);
        if (dot_segment(rs, rl))
            return false;
        if (!next_segment(&p, &ps, &pl) || pl != rl || memcmp(ps, rs, rl))
            return false;
    }
}

pm_error *pm_safe_external_path(pm_code code, const char *field, const char *path, const char *roots)
{
    if (!path || !*path)
        return pm_error_new(code, "%s: empty external path", field);
    const char *local = pm_safe_path_local(path);
    if (!local)
        return pm_error_new(PM_EUNSUPPORTED, "%s: external path '%s': only local files are supported", field,
                            path);
    if (!well_formed(local))
        return pm_error_new(code, "%s: external path '%s' is not an absolute path without '.' or '..' segments",
                            field, path);
    for (const char *r = roots ? roots : ""; *r;) {
        const char *end = strchr(r, ',');
        size_t n = end ? (size_t)(end - r) : strlen(r);
        while (n && (*r == ' ' || *r == '\t')) {
            r++;
            n--;
        }
        while (n && (r[n - 1] == ' ' || r[n - 1] == '\t'))
            n--;
        char root[4096];
        if (n && n < sizeof root) {
            memcpy(root, r, n);
            root[n] = '\0';
            const char *lr = pm_safe_path_local(root);
            if (lr && lr[0] == '/' && under(local, lr, strlen(lr)))
                return NULL;
        }
        r += end ? (size_t)(end - r) + 1 : strlen(r);
    }
    return pm_error_new(code, "%s: external path '%s' lies outside the table's data-file.external-paths%s%s%s",
                        field, path, roots && *roots ? " (" : " (none configured", roots && *roots ? roots : "",
                        ")");
}
