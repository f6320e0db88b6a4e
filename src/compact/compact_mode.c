/*
 * compact/compact_mode.c — the dispatch of compact_mode.h: the registered
 * modes, which family a table belongs to (primary keys first, then data
 * evolution, then append), mode names, part keys, and the mode-neutral
 * handling of parts (free, copy, "this value carries its mode's part").
 */
#include "compact/compact_mode.h"

#include <stdlib.h>
#include <string.h>

#include "compact/append/append.h"
#include "compact/de/de_compact.h"
#include "compact/pk/pk_compact.h"

static const pm_compact_mode_ops *const MODES[] = {
    &pm_compact_append_unaware_mode,
    &pm_compact_append_bucketed_mode,
    &pm_compact_pk_mode,
    &pm_compact_de_mode,
};
#define NMODES (sizeof MODES / sizeof *MODES)

/* A family claims a table (*out = its mode) or leaves it (*out = NULL). */
typedef pm_error *(*family_select)(pm_table *t, const pm_compact_mode_ops **out);
static const family_select FAMILIES[] = {pm_pk_mode_select, pm_de_mode_select, pm_append_mode_select};

pm_error *pm_compact_table_mode(pm_table *t, const pm_compact_mode_ops **out)
{
    *out = NULL;
    for (size_t i = 0; i < sizeof FAMILIES / sizeof *FAMILIES; i++) {
        PM_TRY(FAMILIES[i](t, out));
        if (*out)
            return NULL;
    }
    return pm_error_new(PM_EUNSUPPORTED, "compaction of table %s is not supported: no compaction mode claims it",
                        pm_table_path(t));
}

const pm_compact_mode_ops *pm_compact_mode_named(const char *name)
{
    for (size_t i = 0; name && i < NMODES; i++)
        if (!strcmp(MODES[i]->name, name))
            return MODES[i];
    return NULL;
}

const pm_compact_mode_ops *const *pm_compact_modes(size_t *n)
{
    *n = NMODES;
    return MODES;
}

size_t pm_compact_part_keys(const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < NMODES; i++) {
        const char *k = MODES[i]->part_key;
        bool seen = !k;
        for (size_t j = 0; j < n && !seen; j++)
            seen = !strcmp(out[j], k);
        if (!seen && n < cap)
            out[n++] = k;
    }
    return n;
}

const pm_compact_mode_ops *pm_compact_part_owner(const char *key)
{
    for (size_t i = 0; key && i < NMODES; i++)
        if (MODES[i]->part_key && !strcmp(MODES[i]->part_key, key))
            return MODES[i];
    return NULL;
}

void pm_compact_part_free(pm_compact_part *p)
{
    if (p)
        p->mode->part_free(p);
}

pm_error *pm_compact_part_copy(pm_compact_part **out, const pm_compact_part *p)
{
    *out = NULL;
    return p ? p->mode->part_copy(out, p) : NULL;
}

pm_error *pm_compact_part_expected(const pm_compact_mode_ops *mode, const pm_compact_part *p, const char *doc)
{
    if (p && p->mode != mode)
        return pm_error_new(PM_EINVALID, "%s.%s: only %s values have a %s part (this one is %s)", doc,
                            p->mode->part_key, p->mode->name, p->mode->part_key, mode->name);
    if (!p && mode->part_key)
        return pm_error_new(PM_EINVALID, "%s.%s: a %s value needs its %s part", doc, mode->part_key, mode->name,
                            mode->part_key);
    return NULL;
}
