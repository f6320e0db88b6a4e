/*
 * meta/schema_manager.c — the next schema from option changes (see
 * schema_manager.h for the rules).
 *
 * Steps: clone the latest schema; for every SET check the rules against
 * the current value and put it; for every RESET check and remove; bump the
 * id and time; validate options and schema.  The caller publishes the
 * result (publish-if-absent) and treats a lost race as a conflict.
 */
#include "meta/schema_manager.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"

static const char *const IMMUTABLE[] = {
    "bucket-key", "bucket-function.type", "data-file.path-directory", "merge-engine",
    "aggregation.remove-record-on-delete", "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group", "rowkind.field", "primary-key", "partition",
    "force-lookup", "row-tracking.enabled", "data-evolution.enabled", "index-file-in-data-file-dir",
    "blob-descriptor-field", "blob-external-storage-path", "blob-external-storage-field",
    "pk-clustering-override", "path",
};

static pm_error *check_immutable(const char *key)
{
    for (size_t i = 0; i < sizeof IMMUTABLE / sizeof IMMUTABLE[0]; i++)
        if (!strcmp(key, IMMUTABLE[i]))
            return pm_error_new(PM_EUNSUPPORTED, "changing '%s' is not supported (the option is immutable)", key);
    return NULL;
}

static bool is_true(const char *v) { return v && !strcasecmp(v, "true"); }

static pm_error *check_set(const pm_options *old, const char *key, const char *value)
{
    PM_TRY(check_immutable(key));
    const char *was = pm_options_get(old, key);
    if (!strcmp(key, "bucket")) {
        int32_t from = -1, to = 0;
        if (was)
            PM_TRY(pm_error_wrap(pm_parse_int32(was, &from), PM_EINVALID, "option bucket"));
        PM_TRY(pm_error_wrap(pm_parse_int32(value, &to), PM_EINVALID, "option bucket"));
        if (from == -1)
            return pm_error_new(PM_EUNSUPPORTED, "cannot change bucket when it is -1");
        if (to == -1)
            return pm_error_new(PM_EUNSUPPORTED, "cannot change bucket to -1");
    }
    if (!strcmp(key, "deletion-vectors.enabled") && is_true(was) != is_true(value) &&
        !is_true(pm_options_get(old, "deletion-vectors.modifiable")))
        return pm_error_new(PM_EUNSUPPORTED,
                            "cannot change deletion-vectors.enabled from %s to %s without a full compaction; set "
                            "deletion-vectors.modifiable=true to allow it",
                            is_true(was) ? "true" : "false", is_true(value) ? "true" : "false");
    if ((!strcmp(key, "ignore-delete") || !strcmp(key, "ignore-update-before")) && is_true(was) && !is_true(value))
        return pm_error_new(PM_EUNSUPPORTED, "cannot change %s from true to false", key);
    return NULL;
}

static pm_error *check_reset(const char *key)
{
    PM_TRY(check_immutable(key));
    if (!strcmp(key, "bucket"))
        return pm_error_new(PM_EUNSUPPORTED, "cannot reset bucket");
    return NULL;
}

pm_error *pm_schema_alter_options(const pm_schema *latest, bool has_snapshot, const char *const *set_keys,
                                  const char *const *set_values, size_t nset, const char *const *reset_keys,
                                  size_t nreset, pm_schema **out)
{
    *out = NULL;
    pm_schema *s = NULL;
    PM_TRY(pm_schema_clone(latest, &s));
    pm_error *e = NULL;
    for (size_t i = 0; i < nset && !e; i++) {
        if (!set_keys[i] || !*set_keys[i] || !set_values[i]) {
            e = pm_error_new(PM_EINVALID, "option %zu to set has no key or no value", i);
            break;
        }
        if (has_snapshot)
            e = check_set(latest->options, set_keys[i], set_values[i]);
        if (!e)
            e = pm_options_set(s->options, set_keys[i], set_values[i]);
    }
    for (size_t i = 0; i < nreset && !e; i++) {
        if (!reset_keys[i] || !*reset_keys[i]) {
            e = pm_error_new(PM_EINVALID, "option %zu to reset has no key", i);
            break;
        }
        if (has_snapshot)
            e = check_reset(reset_keys[i]);
        if (!e)
            pm_options_remove(s->options, reset_keys[i]);
    }
    if (!e) {
        s->id = latest->id + 1;
        s->time_millis = pm_now_millis();
        e = pm_options_validate(s->options);
    }
    if (!e)
        e = pm_schema_validate(s);
    if (e) {
        pm_schema_free(s);
        return e;
    }
    *out = s;
    return NULL;
}
