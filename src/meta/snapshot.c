/*
 * meta/snapshot.c — snapshot JSON parse and Java-identical write.
 * Field order and null rules are documented in snapshot.h.
 */
#include "meta/snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "meta/json.h"

static const char *const COMMIT_KINDS[] = {"APPEND", "COMPACT", "OVERWRITE", "ANALYZE"};
static const char *const OPERATIONS[] = {NULL, "WRITE", "OVERWRITE", "DELETE", "TRUNCATE", "UPDATE",
                                         "MERGE", "CREATE_TABLE_AS_SELECT", "REPLACE_TABLE_AS_SELECT",
                                         "CREATE_OR_REPLACE_TABLE_AS_SELECT"};

const char *pm_commit_kind_name(pm_commit_kind k)
{
    return (unsigned)k < 4 ? COMMIT_KINDS[k] : "?";
}

const char *pm_snapshot_operation_name(pm_snapshot_operation op)
{
    return (unsigned)op < sizeof OPERATIONS / sizeof *OPERATIONS ? OPERATIONS[op] : NULL;
}

pm_error *pm_snapshot_new(pm_snapshot **out)
{
    PM_TRY(pm_calloc(out, 1, sizeof(pm_snapshot)));
    (*out)->version = PM_SNAPSHOT_VERSION;
    return NULL;
}

void pm_snapshot_free(pm_snapshot *s)
{
    if (!s)
        return;
    free(s->uuid);
    free(s->base_manifest_list);
    free(s->delta_manifest_list);
    free(s->changelog_manifest_list);
    free(s->index_manifest);
    free(s->commit_user);
    free(s->writer_version);
    free(s->statistics);
    pm_options_free(s->properties);
    free(s->legacy_log_offsets);
    free(s);
}

pm_error *pm_snapshot_clone(const pm_snapshot *s, pm_snapshot **out)
{
    pm_snapshot *c;
    PM_TRY(pm_calloc(&c, 1, sizeof *c));
    *c = *s;
    c->uuid = c->base_manifest_list = c->delta_manifest_list = c->changelog_manifest_list = NULL;
    c->index_manifest = c->commit_user = c->writer_version = c->statistics = NULL;
    c->properties = NULL;
    c->legacy_log_offsets = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&c->uuid, s->uuid), fail);
    PM_TRY_GOTO(e, pm_strdup(&c->base_manifest_list, s->base_manifest_list), fail);
    PM_TRY_GOTO(e, pm_strdup(&c->delta_manifest_list, s->delta_manifest_list), fail);
    PM_TRY_GOTO(e, pm_strdup(&c->changelog_manifest_list, s->changelog_manifest_list), fail);
    PM_TRY_GOTO(e, pm_strdup(&c->index_manifest, s->index_manifest), fail);
    PM_TRY_GOTO(e, pm_strdup(&c->commit_user, s->commit_user), fail);
    PM_TRY_GOTO(e, pm_strdup(&c->writer_version, s->writer_version), fail);
    PM_TRY_GOTO(e, pm_strdup(&c->statistics, s->statistics), fail);
    if (s->properties)
        PM_TRY_GOTO(e, pm_options_clone(s->properties, &c->properties), fail);
    if (s->legacy_log_offset_count) {
        PM_TRY_GOTO(e, pm_calloc(&c->legacy_log_offsets, s->legacy_log_offset_count,
                                 sizeof(pm_log_offset)), fail);
        memcpy(c->legacy_log_offsets, s->legacy_log_offsets,
               s->legacy_log_offset_count * sizeof(pm_log_offset));
    }
    *out = c;
    return NULL;
fail:
    pm_snapshot_free(c);
    return e;
}

static pm_error *opt_long(const json_t *root, const char *key, const char *what, pm_opt_long *out)
{
    return pm_json_long_opt(root, key, what, &out->has, &out->v);
}

static pm_error *parse_enum(const json_t *root, const char *key, const char *what,
                            const char *const *names, size_t n, bool required, int *out)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v)) {
        if (required)
            return pm_error_new(PM_ECORRUPT, "%s: required field '%s' is missing", what, key);
        *out = -1;
        return NULL;
    }
    if (!json_is_string(v))
        return pm_error_new(PM_ECORRUPT, "%s: field '%s' is not a string", what, key);
    const char *s = json_string_value(v);
    for (size_t i = 0; i < n; i++) {
        if (names[i] && strcmp(names[i], s) == 0) {
            *out = (int)i;
            return NULL;
        }
    }
    return pm_error_new(PM_ECORRUPT, "%s: field '%s' has unknown value '%s'", what, key, s);
}

static pm_error *parse_fields(const json_t *root, const char *what, pm_snapshot *s)
{
    bool has_version;
    int64_t version;
    PM_TRY(pm_json_long_opt(root, "version", what, &has_version, &version));
    if (has_version && (version < INT32_MIN || version > INT32_MAX))
        return pm_error_new(PM_ECORRUPT, "%s: field 'version' out of range", what);
    s->version = has_version ? (int32_t)version : 1;
    PM_TRY(pm_json_string_opt(root, "uuid", what, &s->uuid));
    PM_TRY(pm_json_long(root, "id", what, &s->id));
    PM_TRY(pm_json_long(root, "schemaId", what, &s->schema_id));
    PM_TRY(pm_json_string_opt(root, "baseManifestList", what, &s->base_manifest_list));
    PM_TRY(opt_long(root, "baseManifestListSize", what, &s->base_manifest_list_size));
    PM_TRY(pm_json_string_opt(root, "deltaManifestList", what, &s->delta_manifest_list));
    PM_TRY(opt_long(root, "deltaManifestListSize", what, &s->delta_manifest_list_size));
    PM_TRY(pm_json_string_opt(root, "changelogManifestList", what, &s->changelog_manifest_list));
    json_t *cl = json_object_get(root, "changelogManifestList");
    s->legacy_changelog_list_null = cl && json_is_null(cl);
    PM_TRY(opt_long(root, "changelogManifestListSize", what, &s->changelog_manifest_list_size));
    PM_TRY(pm_json_string_opt(root, "indexManifest", what, &s->index_manifest));
    PM_TRY(pm_json_string_opt(root, "commitUser", what, &s->commit_user));
    PM_TRY(pm_json_string_opt(root, "writerVersion", what, &s->writer_version));
    bool has;
    PM_TRY(pm_json_long_opt(root, "commitIdentifier", what, &has, &s->commit_identifier));
    int kind;
    PM_TRY(parse_enum(root, "commitKind", what, COMMIT_KINDS, 4, true, &kind));
    s->commit_kind = (pm_commit_kind)kind;
    PM_TRY(pm_json_long_opt(root, "timeMillis", what, &has, &s->time_millis));
    PM_TRY(pm_json_long_opt(root, "totalRecordCount", what, &has, &s->total_record_count));
    PM_TRY(pm_json_long_opt(root, "deltaRecordCount", what, &has, &s->delta_record_count));
    PM_TRY(opt_long(root, "changelogRecordCount", what, &s->changelog_record_count));
    PM_TRY(opt_long(root, "watermark", what, &s->watermark));
    PM_TRY(pm_json_string_opt(root, "statistics", what, &s->statistics));
    json_t *props = json_object_get(root, "properties");
    if (props && !json_is_null(props)) {
        if (!json_is_object(props))
            return pm_error_new(PM_ECORRUPT, "%s: field 'properties' is not an object", what);
        PM_TRY(pm_options_new(&s->properties));
        const char *k;
        json_t *v;
        json_object_foreach(props, k, v) {
            if (!json_is_string(v))
                return pm_error_new(PM_ECORRUPT, "%s: property '%s' is not a string", what, k);
            PM_TRY(pm_options_set(s->properties, k, json_string_value(v)));
        }
    }
    PM_TRY(opt_long(root, "nextRowId", what, &s->next_row_id));
    int op;
    PM_TRY(parse_enum(root, "operation", what, OPERATIONS, sizeof OPERATIONS / sizeof *OPERATIONS,
                      false, &op));
    s->operation = op < 0 ? PM_SNAPSHOT_OP_NONE : (pm_snapshot_operation)op;

    json_t *lo = json_object_get(root, "logOffsets");
    if (lo && json_is_object(lo)) {
        s->legacy_has_log_offsets = true;
        size_t n = json_object_size(lo);
        if (n) {
            PM_TRY(pm_calloc(&s->legacy_log_offsets, n, sizeof(pm_log_offset)));
            const char *k;
            json_t *v;
            json_object_foreach(lo, k, v) {
                int64_t bucket = 0;
                pm_error *ke = pm_parse_int64(k, &bucket);
                bool bad = ke != NULL;
                pm_error_free(ke);
                if (bad || !json_is_integer(v) || bucket < INT32_MIN || bucket > INT32_MAX)
                    return pm_error_new(PM_ECORRUPT, "%s: malformed logOffsets entry '%s'", what, k);
                s->legacy_log_offsets[s->legacy_log_offset_count].bucket = (int32_t)bucket;
                s->legacy_log_offsets[s->legacy_log_offset_count].offset = json_integer_value(v);
                s->legacy_log_offset_count++;
            }
        }
    }
    return NULL;
}

pm_error *pm_snapshot_parse(const void *json, size_t len, const char *what, pm_snapshot **out)
{
    *out = NULL;
    json_t *root;
    PM_TRY(pm_json_parse_object(json, len, what, &root));
    pm_snapshot *s;
    pm_error *e = pm_calloc(&s, 1, sizeof *s);
    if (!e)
        e = parse_fields(root, what, s);
    json_decref(root);
    if (e) {
        pm_snapshot_free(s);
        return e;
    }
    *out = s;
    return NULL;
}

static void field_opt_long(pm_jw *w, const char *key, pm_opt_long v)
{
    if (v.has)
        pm_jw_field_long(w, key, v.v);
}

static void field_opt_string(pm_jw *w, const char *key, const char *v)
{
    if (v)
        pm_jw_field_string(w, key, v);
}

pm_error *pm_snapshot_to_json(const pm_snapshot *s, pm_buf *out)
{
    if ((unsigned)s->commit_kind >= 4)
        return pm_error_new(PM_EINVALID, "snapshot %lld has an invalid commit kind", (long long)s->id);
    pm_jw w;
    pm_jw_init(&w, out);
    pm_jw_begin_object(&w);
    pm_jw_field_long(&w, "version", s->version);
    field_opt_string(&w, "uuid", s->uuid);
    pm_jw_field_long(&w, "id", s->id);
    pm_jw_field_long(&w, "schemaId", s->schema_id);
    pm_jw_field_string(&w, "baseManifestList", s->base_manifest_list);
    field_opt_long(&w, "baseManifestListSize", s->base_manifest_list_size);
    pm_jw_field_string(&w, "deltaManifestList", s->delta_manifest_list);
    field_opt_long(&w, "deltaManifestListSize", s->delta_manifest_list_size);
    if (s->changelog_manifest_list || s->legacy_changelog_list_null)
        pm_jw_field_string(&w, "changelogManifestList", s->changelog_manifest_list);
    field_opt_long(&w, "changelogManifestListSize", s->changelog_manifest_list_size);
    field_opt_string(&w, "indexManifest", s->index_manifest);
    pm_jw_field_string(&w, "commitUser", s->commit_user);
    field_opt_string(&w, "writerVersion", s->writer_version);
    pm_jw_field_long(&w, "commitIdentifier", s->commit_identifier);
    pm_jw_field_string(&w, "commitKind", COMMIT_KINDS[s->commit_kind]);
    pm_jw_field_long(&w, "timeMillis", s->time_millis);
    if (s->legacy_has_log_offsets) {
        pm_jw_key(&w, "logOffsets");
        pm_jw_begin_object(&w);
        for (size_t i = 0; i < s->legacy_log_offset_count; i++) {
            char k[16];
            snprintf(k, sizeof k, "%d", (int)s->legacy_log_offsets[i].bucket);
            pm_jw_field_long(&w, k, s->legacy_log_offsets[i].offset);
        }
        pm_jw_end_object(&w);
    }
    pm_jw_field_long(&w, "totalRecordCount", s->total_record_count);
    pm_jw_field_long(&w, "deltaRecordCount", s->delta_record_count);
    field_opt_long(&w, "changelogRecordCount", s->changelog_record_count);
    field_opt_long(&w, "watermark", s->watermark);
    field_opt_string(&w, "statistics", s->statistics);
    if (s->properties) {
        pm_jw_key(&w, "properties");
        pm_jw_begin_object(&w);
        for (size_t i = 0; i < pm_options_count(s->properties); i++)
            pm_jw_field_string(&w, pm_options_key_at(s->properties, i),
                               pm_options_value_at(s->properties, i));
        pm_jw_end_object(&w);
    }
    field_opt_long(&w, "nextRowId", s->next_row_id);
    if (s->operation != PM_SNAPSHOT_OP_NONE) {
        const char *op = pm_snapshot_operation_name(s->operation);
        if (!op) {
            pm_error_free(pm_jw_finish(&w));
            return pm_error_new(PM_EINVALID, "snapshot %lld has an invalid operation", (long long)s->id);
        }
        pm_jw_field_string(&w, "operation", op);
    }
    pm_jw_end_object(&w);
    return pm_jw_finish(&w);
}
