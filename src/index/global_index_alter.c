/*
 * index/global_index_alter.c — declared indexed columns survive schema
 * changes unchanged (see global_index_alter.h).
 */
#include "index/global_index_alter.h"

#include <ctype.h>
#include <string.h>

#include "index/global_index_decl.h"

/* Does the comma-separated list `v` name `name` (items trimmed)? */
static bool list_has(const char *v, const char *name)
{
    size_t n = strlen(name);
    while (v && *v) {
        const char *end = strchr(v, ',');
        size_t len = end ? (size_t)(end - v) : strlen(v);
        const char *a = v, *b = v + len;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        if ((size_t)(b - a) == n && !memcmp(a, name, n))
            return true;
        v = end ? end + 1 : NULL;
    }
    return false;
}

pm_error *pm_gi_check_alter(const pm_schema *cur, const pm_schema *next)
{
    pm_gi_decls d;
    pm_error *e = pm_gi_decls_resolve(cur->options, cur->row_type, &d);
    if (e) {
        pm_error_free(e); /* nothing valid to guard */
        return NULL;
    }
    pm_gi_decls nd = {0};
    pm_error *ne = pm_gi_decls_resolve(next->options, next->row_type, &nd);
    if (ne) { /* judged by the raw declaration lists below */
        pm_error_free(ne);
        memset(&nd, 0, sizeof nd);
    }
    for (size_t i = 0; i < d.n && !e; i++) {
        const pm_gi_column *g = &d.cols[i];
        ptrdiff_t k = pm_type_field_index_by_id(next->row_type, g->field_id);
        const pm_field *f = k >= 0 ? &next->row_type->fields[k] : NULL;
        const char *change = !f                                  ? "dropped"
                             : strcmp(f->name, g->column)         ? "renamed"
                             : !pm_type_equals(f->type, g->type) ? "retyped"
                                                                  : NULL;
        if (!change)
            continue;
        bool declared = list_has(pm_options_get(next->options, g->declared_by), g->column) ||
                        pm_gi_decls_find(&nd, g->field_id);
        if (declared)
            e = pm_error_new(PM_EINVALID, "column %s cannot be %s while it is declared as a %s global index ('%s'); "
                             "remove the declaration first", g->column, change, pm_gi_family_name(g->family),
                             g->declared_by);
    }
    pm_gi_decls_clear(&nd);
    pm_gi_decls_clear(&d);
    return e;
}
