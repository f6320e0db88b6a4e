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

static pm_error *opt_long(const pm_jnode *root, const char *key, pm_opt_long *out)
{
    return pm_json_opt_i64(root, key, INT64_MIN, INT64_MAX, &out->has, &out->v);
}

static pm_error *set_property(void *ctx, const char *key, const char *value)
{
    return pm_options_set(ctx, key, value);
}

static pm_error *parse_fields(const pm_jnode *root, pm_snapshot *s)
{
    bool has_version;
    int64_t version;
    PM_TRY(pm_json_opt_i64(root, "version", INT32_MIN, INT32_MAX, &has_version, &version));
    s->version = has_version ? (int32_t)version : 1;
    PM_TRY(pm_json_str(root, "uuid", PM_JSON_NULLABLE, &s->uuid));
    PM_TRY(pm_json_i64(root, "id", INT64_MIN, INT64_MAX, &s->id));
    PM_TRY(pm_json_i64(root, "schemaId", INT64_MIN, INT64_MAX, &s->schema_id));
    PM_TRY(pm_json_str(root, "baseManifestList", PM_JSON_NULLABLE, &s->base_manifest_list));
    PM_TRY(opt_long(root, "baseManifestListSize", &s->base_manifest_list_size));
    PM_TRY(pm_json_str(root, "deltaManifestList", PM_JSON_NULLABLE, &s->delta_manifest_list));
    PM_TRY(opt_long(root, "deltaManifestListSize", &s->delta_manifest_list_size));
    PM_TRY(pm_json_str(root, "changelogManifestList", PM_JSON_NULLABLE, &s->changelog_manifest_list));
    json_t *cl = json_object_get(root->v, "changelogManifestList");
    s->legacy_changelog_list_null = cl && json_is_null(cl);
    PM_TRY(opt_long(root, "changelogManifestListSize", &s->changelog_manifest_list_size));
    PM_TRY(pm_json_str(root, "indexManifest", PM_JSON_NULLABLE, &s->index_manifest));
    PM_TRY(pm_json_str(root, "commitUser", PM_JSON_NULLABLE, &s->commit_user));
    PM_TRY(pm_json_str(root, "writerVersion", PM_JSON_NULLABLE, &s->writer_version));
    bool has;
    PM_TRY(pm_json_opt_i64(root, "commitIdentifier", INT64_MIN, INT64_MAX, &has, &s->commit_identifier));
    int kind;
    PM_TRY(pm_json_enum(root, "commitKind", COMMIT_KINDS, 4, 0, &kind));
    s->commit_kind = (pm_commit_kind)kind;
    PM_TRY(pm_json_opt_i64(root, "timeMillis", INT64_MIN, INT64_MAX, &has, &s->time_millis));
    PM_TRY(pm_json_opt_i64(root, "totalRecordCount", INT64_MIN, INT64_MAX, &has, &s->total_record_count));
    PM_TRY(pm_json_opt_i64(root, "deltaRecordCount", INT64_MIN, INT64_MAX, &has, &s->delta_record_count));
    PM_TRY(opt_long(root, "changelogRecordCount", &s->changelog_record_count));
    PM_TRY(opt_long(root, "watermark", &s->watermark));
    PM_TRY(pm_json_str(root, "statistics", PM_JSON_NULLABLE, &s->statistics));
    pm_jnode props;
    PM_TRY(pm_json_object(root, "properties", PM_JSON_NULLABLE, &props));
    if (props.v) {
        PM_TRY(pm_options_new(&s->properties));
        PM_TRY(pm_json_as_str_map(&props, 0, set_property, s->properties));
    }
    PM_TRY(opt_long(root, "nextRowId", &s->next_row_id));
    int op;
    PM_TRY(pm_json_enum(root, "operation", OPERATIONS, sizeof OPERATIONS / sizeof *OPERATIONS, PM_JSON_NULLABLE,
                        &op));
    s->operation = op < 0 ? PM_SNAPSHOT_OP_NONE : (pm_snapshot_operation)op;

    pm_jnode lo;
    pm_json_get(&lo, root, "logOffsets");
    if (json_is_object(lo.v)) {
        s->legacy_has_log_offsets = true;
        size_t n = json_object_size(lo.v);
        if (n) {
            PM_TRY(pm_calloc(&s->legacy_log_offsets, n, sizeof(pm_log_offset)));
            const char *k;
            json_t *v;
            json_object_foreach((json_t *)lo.v, k, v) {
                int64_t bucket = 0;
                pm_error *ke = pm_parse_int64(k, &bucket);
                bool bad = ke != NULL;
                pm_error_free(ke);
                if (bad || !json_is_integer(v) || bucket < INT32_MIN || bucket > INT32_MAX)
                    return pm_json_error(&lo, "malformed entry '%s'", k);
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
    json_t *tree;
    pm_jnode root;
    PM_TRY(pm_json_parse_doc(json, len, PM_ECORRUPT, what, PM_JSON_FILE, &tree, &root));
    pm_snapshot *s;
    pm_error *e = pm_calloc(&s, 1, sizeof *s);
    if (!e)
        e = parse_fields(&root, s);
    json_decref(tree);
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
