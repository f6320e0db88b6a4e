/*
 * meta/options.c — table options: ordered string map, the registry of the
 * options paimon-c acts on, typed and derived accessors, validation (the
 * value parsers are option_parse.c).  See options.h for the rules.
 *
 * The map is two parallel arrays searched linearly: a table has tens of
 * options, and lookups happen when a table is opened, not per row.
 */
#include "meta/options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/util.h"
#include "meta/safe_path.h"

/* ------------------------------------------------------------------ */
/* ordered map                                                          */
/* ------------------------------------------------------------------ */

struct pm_options {
    char **keys;
    char **values;
    size_t count;
    size_t cap;
};

pm_error *pm_options_new(pm_options **out)
{
    return pm_calloc(out, 1, sizeof(pm_options));
}

void pm_options_free(pm_options *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->count; i++) {
        free(o->keys[i]);
        free(o->values[i]);
    }
    free(o->keys);
    free(o->values);
    free(o);
}

static ptrdiff_t find_key(const pm_options *o, const char *key)
{
    for (size_t i = 0; i < o->count; i++)
        if (strcmp(o->keys[i], key) == 0)
            return (ptrdiff_t)i;
    return -1;
}

pm_error *pm_options_set(pm_options *o, const char *key, const char *value)
{
    if (!key || !value)
        return pm_error_new(PM_EINVALID, "option key and value must not be NULL");
    char *v;
    PM_TRY(pm_strdup(&v, value));
    ptrdiff_t i = find_key(o, key);
    if (i >= 0) {
        free(o->values[i]);
        o->values[i] = v;
        return NULL;
    }
    char *k;
    pm_error *e = pm_strdup(&k, key);
    if (e) {
        free(v);
        return e;
    }
    if (o->count == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        e = pm_realloc_array(&o->keys, cap, sizeof(char *));
        if (!e)
            e = pm_realloc_array(&o->values, cap, sizeof(char *));
        if (e) {
            free(k);
            free(v);
            return e;
        }
        o->cap = cap;
    }
    o->keys[o->count] = k;
    o->values[o->count] = v;
    o->count++;
    return NULL;
}

bool pm_options_remove(pm_options *o, const char *key)
{
    ptrdiff_t i = find_key(o, key);
    if (i < 0)
        return false;
    free(o->keys[i]);
    free(o->values[i]);
    memmove(o->keys + i, o->keys + i + 1, (o->count - (size_t)i - 1) * sizeof(char *));
    memmove(o->values + i, o->values + i + 1, (o->count - (size_t)i - 1) * sizeof(char *));
    o->count--;
    return true;
}

pm_error *pm_options_clone(const pm_options *src, pm_options **out)
{
    pm_options *o;
    PM_TRY(pm_options_new(&o));
    for (size_t i = 0; i < src->count; i++) {
        pm_error *e = pm_options_set(o, src->keys[i], src->values[i]);
        if (e) {
            pm_options_free(o);
            return e;
        }
    }
    *out = o;
    return NULL;
}

const char *pm_options_get(const pm_options *o, const char *key)
{
    ptrdiff_t i = find_key(o, key);
    return i < 0 ? NULL : o->values[i];
}

size_t pm_options_count(const pm_options *o) { return o->count; }
const char *pm_options_key_at(const pm_options *o, size_t i) { return i < o->count ? o->keys[i] : NULL; }
const char *pm_options_value_at(const pm_options *o, size_t i) { return i < o->count ? o->values[i] : NULL; }

bool pm_options_equal(const pm_options *a, const pm_options *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->keys[i], b->keys[i]) || strcmp(a->values[i], b->values[i]))
            return false;
    return true;
}

/* ------------------------------------------------------------------ */
/* registry                                                             */
/* ------------------------------------------------------------------ */

static const char *const ENUM_BUCKET_FN[] = {"default", "mod", "hive", NULL};
static const char *const ENUM_EXT_PATH[] = {"none", "specific-fs", "round-robin", "entropy-inject",
                                            "weight-robin", NULL};
static const char *const ENUM_SORT_ENGINE[] = {"min-heap", "loser-tree", NULL};
static const char *const ENUM_LOOKUP_COMPACT[] = {"radical", "gentle", NULL};
static const char *const ENUM_CHANGELOG[] = {"none", "input", "full-compaction", "lookup", NULL};
static const char *const ENUM_MERGE[] = {"deduplicate", "partial-update", "aggregation", "first-row",
                                         NULL};
static const char *const ENUM_SORT_ORDER[] = {"ascending", "descending", NULL};
static const char *const ENUM_EXPIRE[] = {"sync", "async", NULL};
static const char *const ENUM_SEQ_INIT[] = {"scan", "snapshot", NULL};

static const char *const FB_WRITE_ONLY[] = {"write.compaction-skip", NULL};
static const char *const FB_IGNORE_DELETE[] = {"first-row.ignore-delete", "deduplicate.ignore-delete",
                                               "partial-update.ignore-delete", NULL};

#define DEF(id, key, kind, dflt) [id] = {key, kind, dflt, NULL, NULL}
#define DEF_FB(id, key, kind, dflt, fb) [id] = {key, kind, dflt, fb, NULL}
#define DEF_ENUM(id, key, dflt, values) [id] = {key, PM_OPTK_ENUM, dflt, NULL, values}

/* Keys, kinds and defaults from CoreOptions (release-2.0 / master). */
static const pm_option_def REGISTRY[PM_OPT__COUNT] = {
    DEF(PM_OPT_BUCKET, "bucket", PM_OPTK_INT, "-1"),
    DEF(PM_OPT_BUCKET_KEY, "bucket-key", PM_OPTK_LIST, NULL),
    DEF_ENUM(PM_OPT_BUCKET_FUNCTION_TYPE, "bucket-function.type", "default", ENUM_BUCKET_FN),
    DEF(PM_OPT_BRANCH, "branch", PM_OPTK_STRING, "main"),
    DEF(PM_OPT_PATH, "path", PM_OPTK_STRING, NULL),
    DEF(PM_OPT_PRIMARY_KEY, "primary-key", PM_OPTK_LIST, NULL),
    DEF(PM_OPT_PRIMARY_KEY_NULLABLE, "primary-key.nullable", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_PARTITION, "partition", PM_OPTK_LIST, NULL),
    DEF(PM_OPT_FILE_FORMAT, "file.format", PM_OPTK_STRING, "parquet"),
    DEF(PM_OPT_FILE_FORMAT_PER_LEVEL, "file.format.per.level", PM_OPTK_MAP, ""),
    DEF(PM_OPT_FILE_COMPRESSION, "file.compression", PM_OPTK_STRING, "zstd"),
    DEF(PM_OPT_FILE_COMPRESSION_PER_LEVEL, "file.compression.per.level", PM_OPTK_MAP, ""),
    DEF(PM_OPT_FILE_COMPRESSION_ZSTD_LEVEL, "file.compression.zstd-level", PM_OPTK_INT, "1"),
    DEF(PM_OPT_FILE_BLOCK_SIZE, "file.block-size", PM_OPTK_MEMORY, NULL),
    DEF(PM_OPT_FILE_SUFFIX_INCLUDE_COMPRESSION, "file.suffix.include.compression", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_FILE_INDEX_IN_MANIFEST_THRESHOLD, "file-index.in-manifest-threshold", PM_OPTK_MEMORY, "500 B"),
    DEF(PM_OPT_FILE_INDEX_READ_ENABLED, "file-index.read.enabled", PM_OPTK_BOOL, "true"),
    DEF(PM_OPT_DATA_FILE_PREFIX, "data-file.prefix", PM_OPTK_STRING, "data-"),
    DEF(PM_OPT_DATA_FILE_PATH_DIRECTORY, "data-file.path-directory", PM_OPTK_STRING, NULL),
    DEF(PM_OPT_DATA_FILE_EXTERNAL_PATHS, "data-file.external-paths", PM_OPTK_LIST, NULL),
    DEF_ENUM(PM_OPT_DATA_FILE_EXTERNAL_PATHS_STRATEGY, "data-file.external-paths.strategy", "none", ENUM_EXT_PATH),
    DEF(PM_OPT_DATA_FILE_THIN_MODE, "data-file.thin-mode", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_CHANGELOG_FILE_PREFIX, "changelog-file.prefix", PM_OPTK_STRING, "changelog-"),
    DEF(PM_OPT_CHANGELOG_FILE_FORMAT, "changelog-file.format", PM_OPTK_STRING, NULL),
    DEF(PM_OPT_CHANGELOG_FILE_COMPRESSION, "changelog-file.compression", PM_OPTK_STRING, NULL),
    DEF(PM_OPT_CHANGELOG_FILE_STATS_MODE, "changelog-file.stats-mode", PM_OPTK_STATS_MODE, NULL),
    DEF(PM_OPT_MANIFEST_FORMAT, "manifest.format", PM_OPTK_STRING, "avro"),
    DEF(PM_OPT_MANIFEST_COMPRESSION, "manifest.compression", PM_OPTK_STRING, "zstd"),
    DEF(PM_OPT_MANIFEST_TARGET_FILE_SIZE, "manifest.target-file-size", PM_OPTK_MEMORY, "8 mb"),
    DEF(PM_OPT_MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE, "manifest.full-compaction-threshold-size", PM_OPTK_MEMORY, "16 mb"),
    DEF(PM_OPT_MANIFEST_MERGE_MIN_COUNT, "manifest.merge-min-count", PM_OPTK_INT, "30"),
    DEF(PM_OPT_MANIFEST_DELETE_FILE_DROP_STATS, "manifest.delete-file-drop-stats", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_PARTITION_DEFAULT_NAME, "partition.default-name", PM_OPTK_STRING, "__DEFAULT_PARTITION__"),
    DEF(PM_OPT_PARTITION_LEGACY_NAME, "partition.legacy-name", PM_OPTK_BOOL, "true"),
    DEF(PM_OPT_INDEX_FILE_IN_DATA_FILE_DIR, "index-file-in-data-file-dir", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_METADATA_STATS_MODE, "metadata.stats-mode", PM_OPTK_STATS_MODE, "truncate(16)"),
    DEF(PM_OPT_METADATA_STATS_MODE_PER_LEVEL, "metadata.stats-mode.per.level", PM_OPTK_MAP, ""),
    DEF(PM_OPT_METADATA_STATS_DENSE_STORE, "metadata.stats-dense-store", PM_OPTK_BOOL, "true"),
    DEF(PM_OPT_METADATA_STATS_KEEP_FIRST_N_COLUMNS, "metadata.stats-keep-first-n-columns", PM_OPTK_INT, "-1"),
    DEF(PM_OPT_TARGET_FILE_SIZE, "target-file-size", PM_OPTK_MEMORY, NULL),
    DEF(PM_OPT_TARGET_FILE_ROW_NUM, "target-file-row-num", PM_OPTK_LONG, "9223372036854775807"),
    DEF(PM_OPT_BLOB_TARGET_FILE_SIZE, "blob.target-file-size", PM_OPTK_MEMORY, NULL),
    DEF(PM_OPT_SOURCE_SPLIT_TARGET_SIZE, "source.split.target-size", PM_OPTK_MEMORY, "128 mb"),
    DEF(PM_OPT_SOURCE_SPLIT_OPEN_FILE_COST, "source.split.open-file-cost", PM_OPTK_MEMORY, "4 mb"),
    DEF(PM_OPT_WRITE_BUFFER_SIZE, "write-buffer-size", PM_OPTK_MEMORY, "256 mb"),
    DEF(PM_OPT_WRITE_BUFFER_SPILLABLE, "write-buffer-spillable", PM_OPTK_BOOL, "true"),
    DEF(PM_OPT_PAGE_SIZE, "page-size", PM_OPTK_MEMORY, "64 kb"),
    DEF_ENUM(PM_OPT_SORT_ENGINE, "sort-engine", "loser-tree", ENUM_SORT_ENGINE),
    DEF(PM_OPT_SORT_SPILL_THRESHOLD, "sort-spill-threshold", PM_OPTK_INT, NULL),
    DEF(PM_OPT_SORT_SPILL_BUFFER_SIZE, "sort-spill-buffer-size", PM_OPTK_MEMORY, "64 mb"),
    DEF_FB(PM_OPT_WRITE_ONLY, "write-only", PM_OPTK_BOOL, "false", FB_WRITE_ONLY),
    DEF(PM_OPT_NUM_SORTED_RUN_COMPACTION_TRIGGER, "num-sorted-run.compaction-trigger", PM_OPTK_INT, "5"),
    DEF(PM_OPT_NUM_SORTED_RUN_STOP_TRIGGER, "num-sorted-run.stop-trigger", PM_OPTK_INT, NULL),
    DEF(PM_OPT_NUM_LEVELS, "num-levels", PM_OPTK_INT, NULL),
    DEF(PM_OPT_COMPACTION_SIZE_RATIO, "compaction.size-ratio", PM_OPTK_INT, "1"),
    DEF(PM_OPT_COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT, "compaction.max-size-amplification-percent", PM_OPTK_INT, "200"),
    DEF(PM_OPT_COMPACTION_FORCE_UP_LEVEL_0, "compaction.force-up-level-0", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_COMPACTION_SMALL_FILE_RATIO, "compaction.small-file-ratio", PM_OPTK_DOUBLE, "0.7"),
    DEF(PM_OPT_COMPACTION_MIN_FILE_NUM, "compaction.min.file-num", PM_OPTK_INT, "5"),
    DEF(PM_OPT_COMPACTION_FILE_NUM_LIMIT, "compaction.file-num-limit", PM_OPTK_INT, "100000"),
    DEF(PM_OPT_COMPACTION_DELETE_RATIO_THRESHOLD, "compaction.delete-ratio-threshold", PM_OPTK_DOUBLE, "0.2"),
    DEF(PM_OPT_COMPACTION_FORCE_REWRITE_ALL_FILES, "compaction.force-rewrite-all-files", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_COMPACTION_OPTIMIZATION_INTERVAL, "compaction.optimization-interval", PM_OPTK_DURATION, NULL),
    DEF(PM_OPT_COMPACTION_TOTAL_SIZE_THRESHOLD, "compaction.total-size-threshold", PM_OPTK_MEMORY, NULL),
    DEF(PM_OPT_COMPACTION_INCREMENTAL_SIZE_THRESHOLD, "compaction.incremental-size-threshold", PM_OPTK_MEMORY, NULL),
    DEF(PM_OPT_COMPACTION_OFFPEAK_START_HOUR, "compaction.offpeak.start.hour", PM_OPTK_INT, "-1"),
    DEF(PM_OPT_COMPACTION_OFFPEAK_END_HOUR, "compaction.offpeak.end.hour", PM_OPTK_INT, "-1"),
    DEF(PM_OPT_COMPACTION_OFFPEAK_RATIO, "compaction.offpeak-ratio", PM_OPTK_INT, "0"),
    DEF(PM_OPT_FULL_COMPACTION_DELTA_COMMITS, "full-compaction.delta-commits", PM_OPTK_INT, NULL),
    DEF_ENUM(PM_OPT_LOOKUP_COMPACT, "lookup-compact", "radical", ENUM_LOOKUP_COMPACT),
    DEF(PM_OPT_LOOKUP_COMPACT_MAX_INTERVAL, "lookup-compact.max-interval", PM_OPTK_INT, NULL),
    DEF(PM_OPT_FORCE_LOOKUP, "force-lookup", PM_OPTK_BOOL, "false"),
    DEF_ENUM(PM_OPT_CHANGELOG_PRODUCER, "changelog-producer", "none", ENUM_CHANGELOG),
    DEF_ENUM(PM_OPT_MERGE_ENGINE, "merge-engine", "deduplicate", ENUM_MERGE),
    DEF_FB(PM_OPT_IGNORE_DELETE, "ignore-delete", PM_OPTK_BOOL, "false", FB_IGNORE_DELETE),
    DEF(PM_OPT_IGNORE_UPDATE_BEFORE, "ignore-update-before", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_SEQUENCE_FIELD, "sequence.field", PM_OPTK_LIST, NULL),
    DEF_ENUM(PM_OPT_SEQUENCE_FIELD_SORT_ORDER, "sequence.field.sort-order", "ascending", ENUM_SORT_ORDER),
    DEF(PM_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE, "partial-update.remove-record-on-delete", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP, "partial-update.remove-record-on-sequence-group", PM_OPTK_STRING, NULL),
    DEF(PM_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION, "fields.default-aggregate-function", PM_OPTK_STRING, NULL),
    DEF(PM_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE, "aggregation.remove-record-on-delete", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_DELETION_VECTORS_ENABLED, "deletion-vectors.enabled", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_DELETION_VECTORS_BITMAP64, "deletion-vectors.bitmap64", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_DELETION_VECTOR_INDEX_FILE_TARGET_SIZE, "deletion-vector.index-file.target-size", PM_OPTK_MEMORY, "2 mb"),
    DEF(PM_OPT_DELETION_VECTORS_MERGE_ON_READ, "deletion-vectors.merge-on-read", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_DYNAMIC_BUCKET_TARGET_ROW_NUM, "dynamic-bucket.target-row-num", PM_OPTK_LONG, "2000000"),
    DEF(PM_OPT_DYNAMIC_BUCKET_INITIAL_BUCKETS, "dynamic-bucket.initial-buckets", PM_OPTK_INT, NULL),
    DEF(PM_OPT_DYNAMIC_BUCKET_MAX_BUCKETS, "dynamic-bucket.max-buckets", PM_OPTK_INT, "-1"),
    DEF(PM_OPT_ROW_TRACKING_ENABLED, "row-tracking.enabled", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_DATA_EVOLUTION_ENABLED, "data-evolution.enabled", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_DE_COMPACTION_SPLIT_LARGE_FILES, "data-evolution.compaction.split-large-files", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_DE_COMPACTION_LARGE_FILE_RATIO, "data-evolution.compaction.large-file-ratio", PM_OPTK_DOUBLE, "2.0"),
    DEF(PM_OPT_DE_COMPACTION_REWRITE_ROW_IDS, "data-evolution.compaction.rewrite-row-ids", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_COMMIT_MAX_RETRIES, "commit.max-retries", PM_OPTK_INT, "10"),
    DEF(PM_OPT_COMMIT_MIN_RETRY_WAIT, "commit.min-retry-wait", PM_OPTK_DURATION, "10 ms"),
    DEF(PM_OPT_COMMIT_MAX_RETRY_WAIT, "commit.max-retry-wait", PM_OPTK_DURATION, "10 s"),
    DEF(PM_OPT_COMMIT_TIMEOUT, "commit.timeout", PM_OPTK_DURATION, NULL),
    DEF(PM_OPT_COMMIT_FORCE_COMPACT, "commit.force-compact", PM_OPTK_BOOL, "false"),
    DEF(PM_OPT_SNAPSHOT_NUM_RETAINED_MIN, "snapshot.num-retained.min", PM_OPTK_INT, "10"),
    DEF(PM_OPT_SNAPSHOT_NUM_RETAINED_MAX, "snapshot.num-retained.max", PM_OPTK_INT, "2147483647"),
    DEF(PM_OPT_SNAPSHOT_TIME_RETAINED, "snapshot.time-retained", PM_OPTK_DURATION, "1 h"),
    DEF(PM_OPT_SNAPSHOT_EXPIRE_LIMIT, "snapshot.expire.limit", PM_OPTK_INT, "50"),
    DEF_ENUM(PM_OPT_SNAPSHOT_EXPIRE_EXECUTION_MODE, "snapshot.expire.execution-mode", "sync", ENUM_EXPIRE),
    DEF(PM_OPT_CHANGELOG_NUM_RETAINED_MIN, "changelog.num-retained.min", PM_OPTK_INT, NULL),
    DEF(PM_OPT_CHANGELOG_NUM_RETAINED_MAX, "changelog.num-retained.max", PM_OPTK_INT, NULL),
    DEF(PM_OPT_CHANGELOG_TIME_RETAINED, "changelog.time-retained", PM_OPTK_DURATION, NULL),
    DEF_ENUM(PM_OPT_WRITE_SEQUENCE_NUMBER_INIT_MODE, "write.sequence-number-init-mode", "scan", ENUM_SEQ_INIT),
    DEF(PM_OPT_SCAN_SNAPSHOT_ID, "scan.snapshot-id", PM_OPTK_LONG, NULL),
    DEF(PM_OPT_SCAN_TAG_NAME, "scan.tag-name", PM_OPTK_STRING, NULL),
};

const pm_option_def *pm_option_def_get(pm_option_id id)
{
    return (unsigned)id < PM_OPT__COUNT ? &REGISTRY[id] : NULL;
}

const pm_option_def *pm_option_def_find(const char *key, pm_option_id *id_out)
{
    for (int i = 0; i < PM_OPT__COUNT; i++) {
        const pm_option_def *d = &REGISTRY[i];
        bool hit = strcmp(d->key, key) == 0;
        for (const char *const *f = d->fallback_keys; !hit && f && *f; f++)
            hit = strcmp(*f, key) == 0;
        if (hit) {
            if (id_out)
                *id_out = (pm_option_id)i;
            return d;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* typed accessors                                                      */
/* ------------------------------------------------------------------ */

/* The text that applies and where it came from (for error messages). */
static const char *resolve(const pm_options *o, pm_option_id id, const char **key_used)
{
    const pm_option_def *d = &REGISTRY[id];
    const char *v = o ? pm_options_get(o, d->key) : NULL;
    *key_used = d->key;
    for (const char *const *f = d->fallback_keys; !v && o && f && *f; f++) {
        v = pm_options_get(o, *f);
        if (v)
            *key_used = *f;
    }
    if (!v)
        v = d->default_value;
    return v;
}

const char *pm_options_raw(const pm_options *o, pm_option_id id)
{
    if ((unsigned)id >= PM_OPT__COUNT)
        return NULL;
    const char *k;
    return resolve(o, id, &k);
}

static pm_error *check_kind(pm_option_id id, pm_option_kind kind)
{
    if ((unsigned)id >= PM_OPT__COUNT)
        return pm_error_new(PM_EINTERNAL, "unknown option id %d", (int)id);
    if (REGISTRY[id].kind != kind)
        return pm_error_new(PM_EINTERNAL, "option '%s' read with the wrong accessor", REGISTRY[id].key);
    return NULL;
}

static pm_error *bad_value(pm_error *cause, const char *key, const char *value)
{
    return pm_error_wrap(cause, PM_EINVALID, "option '%s' has invalid value '%s'", key, value);
}

#define ACCESS_PROLOGUE(kind)                   \
    PM_TRY(check_kind(id, kind));               \
    const char *key_used;                       \
    const char *v = resolve(o, id, &key_used);  \
    if (present)                                \
        *present = v != NULL;

pm_error *pm_options_string(const pm_options *o, pm_option_id id, const char **out)
{
    *out = NULL;
    if ((unsigned)id >= PM_OPT__COUNT)
        return pm_error_new(PM_EINTERNAL, "unknown option id %d", (int)id);
    const char *k;
    *out = resolve(o, id, &k);
    return NULL;
}

pm_error *pm_options_int(const pm_options *o, pm_option_id id, bool *present, int32_t *out)
{
    *out = 0;
    ACCESS_PROLOGUE(PM_OPTK_INT);
    return v ? bad_value(pm_parse_int32(v, out), key_used, v) : NULL;
}

pm_error *pm_options_long(const pm_options *o, pm_option_id id, bool *present, int64_t *out)
{
    *out = 0;
    ACCESS_PROLOGUE(PM_OPTK_LONG);
    return v ? bad_value(pm_parse_int64(v, out), key_used, v) : NULL;
}

pm_error *pm_options_bool(const pm_options *o, pm_option_id id, bool *out)
{
    *out = false;
    bool *present = NULL;
    ACCESS_PROLOGUE(PM_OPTK_BOOL);
    (void)present;
    return v ? bad_value(pm_parse_bool(v, out), key_used, v) : NULL;
}

pm_error *pm_options_double(const pm_options *o, pm_option_id id, bool *present, double *out)
{
    *out = 0;
    ACCESS_PROLOGUE(PM_OPTK_DOUBLE);
    return v ? bad_value(pm_parse_double(v, out), key_used, v) : NULL;
}

pm_error *pm_options_memory(const pm_options *o, pm_option_id id, bool *present, int64_t *bytes)
{
    *bytes = 0;
    ACCESS_PROLOGUE(PM_OPTK_MEMORY);
    return v ? bad_value(pm_parse_memory_size(v, bytes), key_used, v) : NULL;
}

pm_error *pm_options_duration_ms(const pm_options *o, pm_option_id id, bool *present, int64_t *ms)
{
    *ms = 0;
    ACCESS_PROLOGUE(PM_OPTK_DURATION);
    return v ? bad_value(pm_parse_duration_ms(v, ms), key_used, v) : NULL;
}

static pm_error *parse_enum(const pm_option_def *d, const char *v, int *out)
{
    size_t n = strlen(v);
    for (int i = 0; d->enum_values[i]; i++) {
        if (pm_ascii_eq_nocase(v, n, d->enum_values[i])) {
            *out = i;
            return NULL;
        }
    }
    pm_buf allowed = PM_BUF_INIT;
    for (int i = 0; d->enum_values[i]; i++)
        if (pm_buf_printf(&allowed, "%s%s", i ? ", " : "", d->enum_values[i]))
            break;
    const char *list = "";
    pm_error *e2 = pm_buf_cstr(&allowed, &list);
    pm_error_free(e2);
    pm_error *e = pm_error_new(PM_EINVALID, "expected one of: %s", list ? list : "");
    pm_buf_free(&allowed);
    return e;
}

pm_error *pm_options_enum(const pm_options *o, pm_option_id id, int *out)
{
    *out = 0;
    bool *present = NULL;
    ACCESS_PROLOGUE(PM_OPTK_ENUM);
    (void)present;
    return v ? bad_value(parse_enum(&REGISTRY[id], v, out), key_used, v) : NULL;
}

pm_error *pm_options_stats_mode(const pm_options *o, pm_option_id id, bool *present,
                                pm_stats_mode *out)
{
    *out = (pm_stats_mode){PM_STATS_NONE, 0};
    ACCESS_PROLOGUE(PM_OPTK_STATS_MODE);
    return v ? bad_value(pm_parse_stats_mode(v, out), key_used, v) : NULL;
}

pm_error *pm_options_map(const pm_options *o, pm_option_id id, pm_kv_list *out)
{
    out->items = NULL;
    out->count = 0;
    bool *present = NULL;
    ACCESS_PROLOGUE(PM_OPTK_MAP);
    (void)present;
    return v ? bad_value(pm_parse_map(v, out), key_used, v) : NULL;
}

pm_error *pm_options_list(const pm_options *o, pm_option_id id, pm_str_list *out)
{
    out->items = NULL;
    out->count = 0;
    bool *present = NULL;
    ACCESS_PROLOGUE(PM_OPTK_LIST);
    (void)present;
    return v ? bad_value(pm_parse_list(v, out), key_used, v) : NULL;
}

/* ------------------------------------------------------------------ */
/* derived values                                                       */
/* ------------------------------------------------------------------ */

pm_error *pm_options_file_format(const pm_options *o, char *buf, size_t cap)
{
    const char *v;
    PM_TRY(pm_options_string(o, PM_OPT_FILE_FORMAT, &v));
    size_t n = strlen(v);
    if (n + 1 > cap)
        return pm_error_new(PM_EINVALID, "option 'file.format' has invalid value '%s': too long", v);
    for (size_t i = 0; i <= n; i++)
        buf[i] = pm_ascii_lower(v[i]);
    return NULL;
}

pm_error *pm_options_target_file_size(const pm_options *o, bool has_primary_key, int64_t *bytes)
{
    bool present;
    PM_TRY(pm_options_memory(o, PM_OPT_TARGET_FILE_SIZE, &present, bytes));
    if (!present)
        *bytes = has_primary_key ? 128LL * 1024 * 1024 : 256LL * 1024 * 1024;
    return NULL;
}

pm_error *pm_options_blob_target_file_size(const pm_options *o, int64_t *bytes)
{
    bool present;
    PM_TRY(pm_options_memory(o, PM_OPT_BLOB_TARGET_FILE_SIZE, &present, bytes));
    if (!present)
        return pm_options_target_file_size(o, false, bytes);
    return NULL;
}

pm_error *pm_options_compaction_file_size(const pm_options *o, bool has_primary_key, int64_t *bytes)
{
    int64_t target;
    double ratio;
    PM_TRY(pm_options_target_file_size(o, has_primary_key, &target));
    PM_TRY(pm_options_double(o, PM_OPT_COMPACTION_SMALL_FILE_RATIO, NULL, &ratio));
    double r = (double)target * ratio;
    /* Java (long) cast: NaN → 0, saturating at the long range */
    if (r != r)
        *bytes = 0;
    else if (r >= 9223372036854775807.0)
        *bytes = INT64_MAX;
    else if (r <= -9223372036854775808.0)
        *bytes = INT64_MIN;
    else
        *bytes = (int64_t)r;
    return NULL;
}

static int32_t add_sat(int32_t a, int32_t b)
{
    int32_t r;
    if (__builtin_add_overflow(a, b, &r))
        return a > 0 ? INT32_MAX : INT32_MIN;
    return r;
}

static int32_t mul_sat(int32_t a, int32_t b)
{
    int32_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return ((a < 0) != (b < 0)) ? INT32_MIN : INT32_MAX;
    return r;
}

pm_error *pm_options_num_levels(const pm_options *o, int32_t *out)
{
    bool present;
    PM_TRY(pm_options_int(o, PM_OPT_NUM_LEVELS, &present, out));
    if (!present) {
        int32_t trigger;
        PM_TRY(pm_options_int(o, PM_OPT_NUM_SORTED_RUN_COMPACTION_TRIGGER, NULL, &trigger));
        *out = add_sat(trigger, 1);
    }
    return NULL;
}

pm_error *pm_options_stop_trigger(const pm_options *o, int32_t *out)
{
    bool present;
    int32_t trigger, stop;
    PM_TRY(pm_options_int(o, PM_OPT_NUM_SORTED_RUN_COMPACTION_TRIGGER, NULL, &trigger));
    PM_TRY(pm_options_int(o, PM_OPT_NUM_SORTED_RUN_STOP_TRIGGER, &present, &stop));
    if (!present)
        stop = add_sat(trigger, 3);
    *out = stop > trigger ? stop : trigger;
    return NULL;
}

pm_error *pm_options_lookup_compact_max_interval(const pm_options *o, int32_t *out)
{
    bool present;
    int32_t trigger, v;
    PM_TRY(pm_options_int(o, PM_OPT_NUM_SORTED_RUN_COMPACTION_TRIGGER, NULL, &trigger));
    PM_TRY(pm_options_int(o, PM_OPT_LOOKUP_COMPACT_MAX_INTERVAL, &present, &v));
    if (!present)
        v = mul_sat(trigger, 2);
    *out = v > trigger ? v : trigger;
    return NULL;
}

pm_error *pm_options_changelog_num_retained_min(const pm_options *o, int32_t *out)
{
    bool present;
    PM_TRY(pm_options_int(o, PM_OPT_CHANGELOG_NUM_RETAINED_MIN, &present, out));
    if (!present)
        PM_TRY(pm_options_int(o, PM_OPT_SNAPSHOT_NUM_RETAINED_MIN, NULL, out));
    return NULL;
}

pm_error *pm_options_changelog_num_retained_max(const pm_options *o, int32_t *out)
{
    bool present;
    PM_TRY(pm_options_int(o, PM_OPT_CHANGELOG_NUM_RETAINED_MAX, &present, out));
    if (!present)
        PM_TRY(pm_options_int(o, PM_OPT_SNAPSHOT_NUM_RETAINED_MAX, NULL, out));
    return NULL;
}

pm_error *pm_options_changelog_time_retained_ms(const pm_options *o, int64_t *ms)
{
    bool present;
    PM_TRY(pm_options_duration_ms(o, PM_OPT_CHANGELOG_TIME_RETAINED, &present, ms));
    if (!present)
        PM_TRY(pm_options_duration_ms(o, PM_OPT_SNAPSHOT_TIME_RETAINED, NULL, ms));
    return NULL;
}

static bool is_field_stats_key(const char *key, const char **field, size_t *field_len)
{
    static const char prefix[] = "fields.";
    static const char suffix[] = ".stats-mode";
    size_t n = strlen(key), pn = sizeof prefix - 1, sn = sizeof suffix - 1;
    if (n <= pn + sn || strncmp(key, prefix, pn) || strcmp(key + n - sn, suffix))
        return false;
    *field = key + pn;
    *field_len = n - pn - sn;
    return true;
}

pm_error *pm_options_field_stats_mode(const pm_options *o, const char *field, bool *present,
                                      pm_stats_mode *out)
{
    *present = false;
    *out = (pm_stats_mode){PM_STATS_NONE, 0};
    pm_buf key = PM_BUF_INIT;
    const char *k;
    pm_error *e = pm_buf_printf(&key, "fields.%s.stats-mode", field);
    if (!e)
        e = pm_buf_cstr(&key, &k);
    if (e) {
        pm_buf_free(&key);
        return e;
    }
    const char *v = pm_options_get(o, k);
    if (v) {
        e = bad_value(pm_parse_stats_mode(v, out), k, v);
        *present = e == NULL;
    }
    pm_buf_free(&key);
    return e;
}

pm_error *pm_options_per_level(const pm_options *o, pm_option_id map_id, int32_t level, char **out)
{
    *out = NULL;
    pm_kv_list m;
    PM_TRY(pm_options_map(o, map_id, &m));
    pm_error *e = NULL;
    for (size_t i = 0; i < m.count; i++) {
        int32_t l;
        e = pm_parse_int32(m.items[i].key, &l);
        if (e) {
            e = pm_error_wrap(e, PM_EINVALID, "option '%s' has invalid value '%s': level '%s' is "
                              "not an integer", REGISTRY[map_id].key, pm_options_raw(o, map_id),
                              m.items[i].key);
            break;
        }
        if (l == level) {
            e = pm_strdup(out, m.items[i].value);
            break;
        }
    }
    pm_kv_list_free(&m);
    return e;
}

static pm_error *validate_one(const pm_options *o, pm_option_id id)
{
    const pm_option_def *d = &REGISTRY[id];
    bool present = false;
    int32_t i32;
    int64_t i64;
    bool b;
    double dbl;
    int en;
    pm_stats_mode sm;
    pm_kv_list kv;
    pm_str_list sl;
    switch (d->kind) {
    case PM_OPTK_STRING:
        return NULL;
    case PM_OPTK_INT:
        return pm_options_int(o, id, &present, &i32);
    case PM_OPTK_LONG:
        return pm_options_long(o, id, &present, &i64);
    case PM_OPTK_BOOL:
        return pm_options_bool(o, id, &b);
    case PM_OPTK_DOUBLE:
        return pm_options_double(o, id, &present, &dbl);
    case PM_OPTK_MEMORY:
        return pm_options_memory(o, id, &present, &i64);
    case PM_OPTK_DURATION:
        return pm_options_duration_ms(o, id, &present, &i64);
    case PM_OPTK_ENUM:
        return pm_options_enum(o, id, &en);
    case PM_OPTK_STATS_MODE:
        return pm_options_stats_mode(o, id, &present, &sm);
    case PM_OPTK_MAP:
        PM_TRY(pm_options_map(o, id, &kv));
        pm_kv_list_free(&kv);
        return NULL;
    case PM_OPTK_LIST:
        PM_TRY(pm_options_list(o, id, &sl));
        pm_str_list_free(&sl);
        return NULL;
    }
    return NULL;
}

/* Ranges of numeric options (int, long, memory in bytes, double) that
 * paimon-c acts on: what the engine needs (a write, compaction or commit
 * would refuse the value later) and Paimon Java requires of them.  Options
 * paimon-c only carries along are checked for their type alone, so a table
 * Java accepts always opens. */
typedef struct range_rule {
    pm_option_id id;
    double lo, hi;
} range_rule;

#define NO_MAX 9.3e18
static const range_rule RANGES[] = {
    {PM_OPT_MANIFEST_TARGET_FILE_SIZE, 1, NO_MAX},
    {PM_OPT_MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE, 1, NO_MAX},
    {PM_OPT_TARGET_FILE_SIZE, 1, NO_MAX},
    {PM_OPT_TARGET_FILE_ROW_NUM, 1, NO_MAX},
    {PM_OPT_SOURCE_SPLIT_OPEN_FILE_COST, 0, NO_MAX},
    {PM_OPT_WRITE_BUFFER_SIZE, 1, NO_MAX},
    {PM_OPT_NUM_SORTED_RUN_COMPACTION_TRIGGER, 1, INT32_MAX},
    {PM_OPT_NUM_SORTED_RUN_STOP_TRIGGER, 1, INT32_MAX},
    {PM_OPT_NUM_LEVELS, 2, INT32_MAX},
    {PM_OPT_COMPACTION_SIZE_RATIO, 0, INT32_MAX},
    {PM_OPT_COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT, 0, INT32_MAX},
    {PM_OPT_COMPACTION_SMALL_FILE_RATIO, 0, NO_MAX},
    {PM_OPT_COMPACTION_MIN_FILE_NUM, 1, INT32_MAX},
    {PM_OPT_COMPACTION_DELETE_RATIO_THRESHOLD, 0, 1},
    {PM_OPT_COMPACTION_TOTAL_SIZE_THRESHOLD, 0, NO_MAX},
    {PM_OPT_COMPACTION_INCREMENTAL_SIZE_THRESHOLD, 0, NO_MAX},
    {PM_OPT_COMPACTION_OFFPEAK_START_HOUR, -1, 23},
    {PM_OPT_COMPACTION_OFFPEAK_END_HOUR, -1, 23},
    {PM_OPT_COMPACTION_OFFPEAK_RATIO, 0, INT32_MAX},
    {PM_OPT_DELETION_VECTOR_INDEX_FILE_TARGET_SIZE, 1, NO_MAX},
    {PM_OPT_COMMIT_MAX_RETRIES, 0, INT32_MAX},
    {PM_OPT_SNAPSHOT_NUM_RETAINED_MIN, 1, INT32_MAX},
    {PM_OPT_SNAPSHOT_NUM_RETAINED_MAX, 1, INT32_MAX},
};

/* The numeric value of a (valid) option, or *present = false. */
static pm_error *numeric_value(const pm_options *o, pm_option_id id, bool *present, double *out)
{
    int32_t i32 = 0;
    int64_t i64 = 0;
    *out = 0;
    switch (REGISTRY[id].kind) {
    case PM_OPTK_INT:
        PM_TRY(pm_options_int(o, id, present, &i32));
        *out = i32;
        return NULL;
    case PM_OPTK_LONG:
        PM_TRY(pm_options_long(o, id, present, &i64));
        break;
    case PM_OPTK_MEMORY:
        PM_TRY(pm_options_memory(o, id, present, &i64));
        break;
    case PM_OPTK_DURATION:
        PM_TRY(pm_options_duration_ms(o, id, present, &i64));
        break;
    case PM_OPTK_DOUBLE:
        return pm_options_double(o, id, present, out);
    default:
        return pm_error_new(PM_EINTERNAL, "option '%s' is not numeric", REGISTRY[id].key);
    }
    *out = (double)i64;
    return NULL;
}

static pm_error *out_of_range(const pm_options *o, pm_option_id id, const char *why, ...)
    __attribute__((format(printf, 3, 4)));

static pm_error *out_of_range(const pm_options *o, pm_option_id id, const char *why, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, why);
    vsnprintf(msg, sizeof msg, why, ap);
    va_end(ap);
    const char *key;
    const char *v = resolve(o, id, &key);
    return pm_error_new(PM_EINVALID, "option '%s' has invalid value '%s': %s", key, v ? v : "", msg);
}

static pm_error *check_range(const pm_options *o, const range_rule *r)
{
    bool present = false;
    double v = 0;
    PM_TRY(numeric_value(o, r->id, &present, &v));
    if (!present || (v >= r->lo && v <= r->hi))
        return NULL;
    if (REGISTRY[r->id].kind == PM_OPTK_DOUBLE)
        return r->hi >= NO_MAX ? out_of_range(o, r->id, "must be at least %g", r->lo)
                               : out_of_range(o, r->id, "must be between %g and %g", r->lo, r->hi);
    if (r->hi >= NO_MAX || r->hi == INT32_MAX)
        return out_of_range(o, r->id, "must be at least %.0f", r->lo);
    return out_of_range(o, r->id, "must be between %.0f and %.0f", r->lo, r->hi);
}

/* data-file.path-directory: a relative path inside the table, each
 * segment a plain name (no "..", not absolute, no empty segment). */
static pm_error *check_path_directory(const pm_options *o)
{
    const char *v = pm_options_raw(o, PM_OPT_DATA_FILE_PATH_DIRECTORY);
    if (!v)
        return NULL;
    char seg[258];
    for (const char *p = v;;) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > 256)
            n = 256; /* longer than any name: the check below refuses 256 bytes */
        memcpy(seg, p, n);
        seg[n] = '\0';
        pm_error *e = pm_safe_file_name(PM_EINVALID, "segment", seg);
        if (e)
            return pm_error_wrap(e, PM_EINVALID, "option 'data-file.path-directory' has invalid value '%s': it must "
                                 "be a relative directory inside the table", v);
        if (!end)
            return NULL;
        p = end + 1;
    }
}

/* Rules beyond a range: value sets and options that bound each other. */
static pm_error *check_rules(const pm_options *o)
{
    int32_t bucket = 0, max_buckets = 0, rmin = 0, rmax = 0;
    PM_TRY(pm_options_int(o, PM_OPT_BUCKET, NULL, &bucket));
    if (bucket == 0 || bucket < -2) /* -2: postpone (meta/paths.h) */
        return out_of_range(o, PM_OPT_BUCKET, "the number of buckets must be greater than 0, or -1 (dynamic), "
                                              "or -2 (postpone)");
    PM_TRY(pm_options_int(o, PM_OPT_DYNAMIC_BUCKET_MAX_BUCKETS, NULL, &max_buckets));
    if (max_buckets == 0 || max_buckets < -1)
        return out_of_range(o, PM_OPT_DYNAMIC_BUCKET_MAX_BUCKETS, "must be -1 (unlimited) or greater than 0");
    PM_TRY(pm_options_int(o, PM_OPT_SNAPSHOT_NUM_RETAINED_MIN, NULL, &rmin));
    PM_TRY(pm_options_int(o, PM_OPT_SNAPSHOT_NUM_RETAINED_MAX, NULL, &rmax));
    if (rmin > rmax)
        return out_of_range(o, PM_OPT_SNAPSHOT_NUM_RETAINED_MIN, "must not be larger than "
                                                                  "snapshot.num-retained.max (%d)", (int)rmax);
    double ratio = 2.0;
    PM_TRY(pm_options_double(o, PM_OPT_DE_COMPACTION_LARGE_FILE_RATIO, NULL, &ratio));
    if (!isfinite(ratio) || ratio < 1.0)
        return out_of_range(o, PM_OPT_DE_COMPACTION_LARGE_FILE_RATIO, "must be a finite number of at least 1.0");
    return check_path_directory(o);
}

pm_error *pm_options_validate(const pm_options *o)
{
    for (int id = 0; id < PM_OPT__COUNT; id++)
        PM_TRY(validate_one(o, (pm_option_id)id));
    for (size_t i = 0; i < sizeof RANGES / sizeof RANGES[0]; i++)
        PM_TRY(check_range(o, &RANGES[i]));
    PM_TRY(check_rules(o));
    /* per-level maps must have integer levels */
    static const pm_option_id per_level[] = {PM_OPT_FILE_FORMAT_PER_LEVEL,
                                             PM_OPT_FILE_COMPRESSION_PER_LEVEL,
                                             PM_OPT_METADATA_STATS_MODE_PER_LEVEL};
    for (size_t i = 0; i < sizeof per_level / sizeof *per_level; i++) {
        char *v;
        PM_TRY(pm_options_per_level(o, per_level[i], INT32_MIN, &v));
        free(v);
    }
    pm_kv_list m;
    PM_TRY(pm_options_map(o, PM_OPT_METADATA_STATS_MODE_PER_LEVEL, &m));
    for (size_t i = 0; i < m.count; i++) {
        pm_stats_mode sm;
        pm_error *e = pm_parse_stats_mode(m.items[i].value, &sm);
        if (e) {
            e = pm_error_wrap(e, PM_EINVALID, "option 'metadata.stats-mode.per.level' has invalid "
                              "value '%s' (level %s)",
                              pm_options_raw(o, PM_OPT_METADATA_STATS_MODE_PER_LEVEL), m.items[i].key);
            pm_kv_list_free(&m);
            return e;
        }
    }
    pm_kv_list_free(&m);
    for (size_t i = 0; i < o->count; i++) {
        const char *f;
        size_t fl;
        if (is_field_stats_key(o->keys[i], &f, &fl)) {
            pm_stats_mode sm;
            PM_TRY(bad_value(pm_parse_stats_mode(o->values[i], &sm), o->keys[i], o->values[i]));
        }
    }
    return NULL;
}
