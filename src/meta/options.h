/*
 * meta/options.h — table options: an ordered string map plus a registry of
 * the options paimon-c acts on.
 *
 * A pm_options is what a schema's `options` object holds: string keys and
 * string values in insertion order (so a schema re-serializes byte for byte).
 * Every key is kept, known or not — Paimon has hundreds of options and
 * `fields.<f>.*` patterns; unknown ones are carried along and ignored.
 *
 * The registry (pm_option_id, one row per option paimon-c reads) gives each
 * option its key, value kind, default (as text, parsed by the same rules as
 * a user value) and legacy fallback keys.  Typed accessors look up the key,
 * then the fallback keys in order (the primary key wins when both are set),
 * then the default; a value that does not parse is PM_EINVALID naming the
 * option and the value.  Parsing follows Paimon Java (`OptionsUtils`):
 *   int/long   Integer/Long.parseLong: optional sign, ASCII digits, range checked
 *   bool       "true"/"false", case-insensitive
 *   double     decimal or exponent form, optional d/f suffix, NaN, Infinity
 *   memory     MemorySize.parseBytes: trimmed, digits, optional unit
 *              b|bytes k|kb|kibibytes m|mb|mebibytes g|gb|gibibytes t|tb|tebibytes
 *              (case-insensitive, powers of 1024, spaces allowed before the unit)
 *   duration   TimeUtils.parseDuration: digits + unit d|day(s) h|hour(s)
 *              min|m|minute(s) s|sec(s)|second(s) ms|milli(s)|millisecond(s)
 *              µs|micro(s)|microsecond(s) ns|nano(s)|nanosecond(s); no unit = ms
 *   enum       one of the listed values, case-insensitive
 *   stats mode none | counts | full | truncate(N), case-insensitive
 *   map        "k1:v1,k2:v2" with Java's quoting rules ('..' / "..")
 *
 * Derived values mirror CoreOptions: target-file-size defaults to 128 MiB
 * for primary-key tables and 256 MiB for append tables; num-levels defaults
 * to compaction-trigger + 1; the stop trigger to max(trigger, trigger + 3).
 *
 * Ownership: a pm_options owns copies of all keys and values.  Returned
 * `const char *` point into the map (or into the static registry) and stay
 * valid until that key is set again, removed, or the map is freed.
 */
#ifndef PM_META_OPTIONS_H
#define PM_META_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "types/bucket.h"

typedef struct pm_options pm_options;

/* ---- the ordered string map ---- */

pm_error *pm_options_new(pm_options **out);
void pm_options_free(pm_options *o);
pm_error *pm_options_clone(const pm_options *src, pm_options **out);
/* Set key=value (replaces in place, keeping the key's position; new keys go last). */
pm_error *pm_options_set(pm_options *o, const char *key, const char *value);
/* Remove a key; returns whether it was present. */
bool pm_options_remove(pm_options *o, const char *key);
/* Raw value or NULL when unset. */
const char *pm_options_get(const pm_options *o, const char *key);
size_t pm_options_count(const pm_options *o);
const char *pm_options_key_at(const pm_options *o, size_t i);
const char *pm_options_value_at(const pm_options *o, size_t i);
/* Same keys, values and order. */
bool pm_options_equal(const pm_options *a, const pm_options *b);

/* ---- the registry ---- */

typedef enum pm_option_kind {
    PM_OPTK_STRING,
    PM_OPTK_INT,
    PM_OPTK_LONG,
    PM_OPTK_BOOL,
    PM_OPTK_DOUBLE,
    PM_OPTK_MEMORY,
    PM_OPTK_DURATION,
    PM_OPTK_ENUM,
    PM_OPTK_STATS_MODE,
    PM_OPTK_MAP,
    PM_OPTK_LIST /* comma-separated names */
} pm_option_kind;

typedef enum pm_option_id {
    PM_OPT_BUCKET,
    PM_OPT_BUCKET_KEY,
    PM_OPT_BUCKET_FUNCTION_TYPE,
    PM_OPT_BRANCH,
    PM_OPT_PATH,
    PM_OPT_PRIMARY_KEY,
    PM_OPT_PRIMARY_KEY_NULLABLE,
    PM_OPT_PARTITION,
    PM_OPT_FILE_FORMAT,
    PM_OPT_FILE_FORMAT_PER_LEVEL,
    PM_OPT_FILE_COMPRESSION,
    PM_OPT_FILE_COMPRESSION_PER_LEVEL,
    PM_OPT_FILE_COMPRESSION_ZSTD_LEVEL,
    PM_OPT_FILE_BLOCK_SIZE,
    PM_OPT_FILE_SUFFIX_INCLUDE_COMPRESSION,
    PM_OPT_FILE_INDEX_IN_MANIFEST_THRESHOLD,
    PM_OPT_FILE_INDEX_READ_ENABLED,
    PM_OPT_DATA_FILE_PREFIX,
    PM_OPT_DATA_FILE_PATH_DIRECTORY,
    PM_OPT_DATA_FILE_EXTERNAL_PATHS,
    PM_OPT_DATA_FILE_EXTERNAL_PATHS_STRATEGY,
    PM_OPT_DATA_FILE_THIN_MODE,
    PM_OPT_CHANGELOG_FILE_PREFIX,
    PM_OPT_CHANGELOG_FILE_FORMAT,
    PM_OPT_CHANGELOG_FILE_COMPRESSION,
    PM_OPT_CHANGELOG_FILE_STATS_MODE,
    PM_OPT_MANIFEST_FORMAT,
    PM_OPT_MANIFEST_COMPRESSION,
    PM_OPT_MANIFEST_TARGET_FILE_SIZE,
    PM_OPT_MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE,
    PM_OPT_MANIFEST_MERGE_MIN_COUNT,
    PM_OPT_MANIFEST_DELETE_FILE_DROP_STATS,
    PM_OPT_PARTITION_DEFAULT_NAME,
    PM_OPT_PARTITION_LEGACY_NAME,
    PM_OPT_INDEX_FILE_IN_DATA_FILE_DIR,
    PM_OPT_METADATA_STATS_MODE,
    PM_OPT_METADATA_STATS_MODE_PER_LEVEL,
    PM_OPT_METADATA_STATS_DENSE_STORE,
    PM_OPT_METADATA_STATS_KEEP_FIRST_N_COLUMNS,
    PM_OPT_TARGET_FILE_SIZE,
    PM_OPT_TARGET_FILE_ROW_NUM,
    PM_OPT_BLOB_TARGET_FILE_SIZE,
    PM_OPT_SOURCE_SPLIT_TARGET_SIZE,
    PM_OPT_SOURCE_SPLIT_OPEN_FILE_COST,
    PM_OPT_WRITE_BUFFER_SIZE,
    PM_OPT_WRITE_BUFFER_SPILLABLE,
    PM_OPT_PAGE_SIZE,
    PM_OPT_SORT_ENGINE,
    PM_OPT_SORT_SPILL_THRESHOLD,
    PM_OPT_SORT_SPILL_BUFFER_SIZE,
    PM_OPT_WRITE_ONLY,
    PM_OPT_NUM_SORTED_RUN_COMPACTION_TRIGGER,
    PM_OPT_NUM_SORTED_RUN_STOP_TRIGGER,
    PM_OPT_NUM_LEVELS,
    PM_OPT_COMPACTION_SIZE_RATIO,
    PM_OPT_COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT,
    PM_OPT_COMPACTION_FORCE_UP_LEVEL_0,
    PM_OPT_COMPACTION_SMALL_FILE_RATIO,
    PM_OPT_COMPACTION_MIN_FILE_NUM,
    PM_OPT_COMPACTION_FILE_NUM_LIMIT,
    PM_OPT_COMPACTION_DELETE_RATIO_THRESHOLD,
    PM_OPT_COMPACTION_FORCE_REWRITE_ALL_FILES,
    PM_OPT_COMPACTION_OPTIMIZATION_INTERVAL,
    PM_OPT_COMPACTION_TOTAL_SIZE_THRESHOLD,
    PM_OPT_COMPACTION_INCREMENTAL_SIZE_THRESHOLD,
    PM_OPT_COMPACTION_OFFPEAK_START_HOUR,
    PM_OPT_COMPACTION_OFFPEAK_END_HOUR,
    PM_OPT_COMPACTION_OFFPEAK_RATIO,
    PM_OPT_FULL_COMPACTION_DELTA_COMMITS,
    PM_OPT_LOOKUP_COMPACT,
    PM_OPT_LOOKUP_COMPACT_MAX_INTERVAL,
    PM_OPT_FORCE_LOOKUP,
    PM_OPT_CHANGELOG_PRODUCER,
    PM_OPT_MERGE_ENGINE,
    PM_OPT_IGNORE_DELETE,
    PM_OPT_IGNORE_UPDATE_BEFORE,
    PM_OPT_SEQUENCE_FIELD,
    PM_OPT_SEQUENCE_FIELD_SORT_ORDER,
    PM_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE,
    PM_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP,
    PM_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION,
    PM_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE,
    PM_OPT_DELETION_VECTORS_ENABLED,
    PM_OPT_DELETION_VECTORS_BITMAP64,
    PM_OPT_DELETION_VECTOR_INDEX_FILE_TARGET_SIZE,
    PM_OPT_DELETION_VECTORS_MERGE_ON_READ,
    PM_OPT_DYNAMIC_BUCKET_TARGET_ROW_NUM,
    PM_OPT_DYNAMIC_BUCKET_INITIAL_BUCKETS,
    PM_OPT_DYNAMIC_BUCKET_MAX_BUCKETS,
    PM_OPT_ROW_TRACKING_ENABLED,
    PM_OPT_DATA_EVOLUTION_ENABLED,
    PM_OPT_DE_COMPACTION_SPLIT_LARGE_FILES,
    PM_OPT_DE_COMPACTION_LARGE_FILE_RATIO,
    PM_OPT_DE_COMPACTION_REWRITE_ROW_IDS,
    PM_OPT_COMMIT_MAX_RETRIES,
    PM_OPT_COMMIT_MIN_RETRY_WAIT,
    PM_OPT_COMMIT_MAX_RETRY_WAIT,
    PM_OPT_COMMIT_TIMEOUT,
    PM_OPT_COMMIT_FORCE_COMPACT,
    PM_OPT_SNAPSHOT_NUM_RETAINED_MIN,
    PM_OPT_SNAPSHOT_NUM_RETAINED_MAX,
    PM_OPT_SNAPSHOT_TIME_RETAINED,
    PM_OPT_SNAPSHOT_EXPIRE_LIMIT,
    PM_OPT_SNAPSHOT_EXPIRE_EXECUTION_MODE,
    PM_OPT_CHANGELOG_NUM_RETAINED_MIN,
    PM_OPT_CHANGELOG_NUM_RETAINED_MAX,
    PM_OPT_CHANGELOG_TIME_RETAINED,
    PM_OPT_WRITE_SEQUENCE_NUMBER_INIT_MODE,
    PM_OPT_SCAN_SNAPSHOT_ID,
    PM_OPT_SCAN_TAG_NAME,
    PM_OPT__COUNT
} pm_option_id;

typedef struct pm_option_def {
    const char *key;
    pm_option_kind kind;
    const char *default_value;          /* text form; NULL = no default */
    const char *const *fallback_keys;   /* NULL-terminated, or NULL */
    const char *const *enum_values;     /* PM_OPTK_ENUM: canonical spellings, NULL-terminated */
} pm_option_def;

/* Registry row of an option (static storage). */
const pm_option_def *pm_option_def_get(pm_option_id id);
/* Registry row by key (primary or fallback key), or NULL. */
const pm_option_def *pm_option_def_find(const char *key, pm_option_id *id_out);

/* Enums; the numeric order matches the registry's enum_values. */
/* bucket-function.type: the enum of types/bucket.h (same order as the registry). */
typedef pm_bucket_fn pm_bucket_function;
typedef enum { PM_EXT_PATH_NONE, PM_EXT_PATH_SPECIFIC_FS, PM_EXT_PATH_ROUND_ROBIN,
               PM_EXT_PATH_ENTROPY_INJECT, PM_EXT_PATH_WEIGHT_ROBIN } pm_external_path_strategy;
typedef enum { PM_SORT_ENGINE_MIN_HEAP, PM_SORT_ENGINE_LOSER_TREE } pm_sort_engine;
typedef enum { PM_LOOKUP_COMPACT_RADICAL, PM_LOOKUP_COMPACT_GENTLE } pm_lookup_compact;
typedef enum { PM_CHANGELOG_NONE, PM_CHANGELOG_INPUT, PM_CHANGELOG_FULL_COMPACTION,
               PM_CHANGELOG_LOOKUP } pm_changelog_producer;
typedef enum { PM_MERGE_DEDUPLICATE, PM_MERGE_PARTIAL_UPDATE, PM_MERGE_AGGREGATION,
               PM_MERGE_FIRST_ROW } pm_merge_engine;
typedef enum { PM_SORT_ASCENDING, PM_SORT_DESCENDING } pm_sort_order;
typedef enum { PM_EXPIRE_SYNC, PM_EXPIRE_ASYNC } pm_expire_mode;
typedef enum { PM_SEQ_INIT_SCAN, PM_SEQ_INIT_SNAPSHOT } pm_seq_init_mode;

typedef enum pm_stats_mode_kind {
    PM_STATS_NONE,
    PM_STATS_COUNTS,
    PM_STATS_FULL,
    PM_STATS_TRUNCATE
} pm_stats_mode_kind;

typedef struct pm_stats_mode {
    pm_stats_mode_kind kind;
    int32_t truncate_length; /* PM_STATS_TRUNCATE only */
} pm_stats_mode;

/* One key/value pair of a map option (pointers owned by the list). */
typedef struct pm_kv {
    char *key;
    char *value;
} pm_kv;
typedef struct pm_kv_list {
    pm_kv *items;
    size_t count;
} pm_kv_list;
void pm_kv_list_free(pm_kv_list *l);

typedef struct pm_str_list {
    char **items;
    size_t count;
} pm_str_list;
void pm_str_list_free(pm_str_list *l);

/* ---- value parsers (Java-compatible, see top; meta/option_parse.c) ---- */
pm_error *pm_parse_int32(const char *text, int32_t *out);
pm_error *pm_parse_int64(const char *text, int64_t *out);
pm_error *pm_parse_bool(const char *text, bool *out);
pm_error *pm_parse_double(const char *text, double *out);
pm_error *pm_parse_memory_size(const char *text, int64_t *bytes);
/* Duration as whole milliseconds (sub-millisecond units are truncated). */
pm_error *pm_parse_duration_ms(const char *text, int64_t *millis);
pm_error *pm_parse_stats_mode(const char *text, pm_stats_mode *out);
/* "k:v,k2:v2" → pairs, in order; duplicate keys are an error. */
pm_error *pm_parse_map(const char *text, pm_kv_list *out);
/* "a,b,c" → names (each trimmed); empty or blank text → empty list. */
pm_error *pm_parse_list(const char *text, pm_str_list *out);

/* ---- typed accessors ----
 * `present` (may be NULL) is set to whether a value exists (set, via a
 * fallback key, or by default).  When nothing exists *out is zeroed/NULL.
 * An accessor of the wrong kind for `id` is PM_EINTERNAL. */

/* The raw text that applies (key, fallback keys, default), or NULL. */
const char *pm_options_raw(const pm_options *o, pm_option_id id);
pm_error *pm_options_string(const pm_options *o, pm_option_id id, const char **out);
pm_error *pm_options_int(const pm_options *o, pm_option_id id, bool *present, int32_t *out);
pm_error *pm_options_long(const pm_options *o, pm_option_id id, bool *present, int64_t *out);
pm_error *pm_options_bool(const pm_options *o, pm_option_id id, bool *out);
pm_error *pm_options_double(const pm_options *o, pm_option_id id, bool *present, double *out);
pm_error *pm_options_memory(const pm_options *o, pm_option_id id, bool *present, int64_t *bytes);
pm_error *pm_options_duration_ms(const pm_options *o, pm_option_id id, bool *present, int64_t *ms);
/* Index into the option's enum_values (cast to the matching C enum). */
pm_error *pm_options_enum(const pm_options *o, pm_option_id id, int *out);
pm_error *pm_options_stats_mode(const pm_options *o, pm_option_id id, bool *present,
                                pm_stats_mode *out);
pm_error *pm_options_map(const pm_options *o, pm_option_id id, pm_kv_list *out);
pm_error *pm_options_list(const pm_options *o, pm_option_id id, pm_str_list *out);

/* ---- derived values (CoreOptions) ---- */
/* file.format lower-cased into buf (PM_EINVALID if it does not fit in cap). */
pm_error *pm_options_file_format(const pm_options *o, char *buf, size_t cap);
pm_error *pm_options_target_file_size(const pm_options *o, bool has_primary_key, int64_t *bytes);
pm_error *pm_options_blob_target_file_size(const pm_options *o, int64_t *bytes);
/* target-file-size × compaction.small-file-ratio. */
pm_error *pm_options_compaction_file_size(const pm_options *o, bool has_primary_key, int64_t *bytes);
pm_error *pm_options_num_levels(const pm_options *o, int32_t *out);
pm_error *pm_options_stop_trigger(const pm_options *o, int32_t *out);
pm_error *pm_options_lookup_compact_max_interval(const pm_options *o, int32_t *out);
pm_error *pm_options_changelog_num_retained_min(const pm_options *o, int32_t *out);
pm_error *pm_options_changelog_num_retained_max(const pm_options *o, int32_t *out);
pm_error *pm_options_changelog_time_retained_ms(const pm_options *o, int64_t *ms);
/* Per-field stats mode `fields.<field>.stats-mode`; *present=false when unset. */
pm_error *pm_options_field_stats_mode(const pm_options *o, const char *field, bool *present,
                                      pm_stats_mode *out);
/* `<map option>` value for `level` (e.g. file.format.per.level), NULL when
 * absent; the map keys must be integers.  *out is malloc'd (caller frees). */
pm_error *pm_options_per_level(const pm_options *o, pm_option_id map_id, int32_t level, char **out);

/* Check every registered option that is set (directly or via a fallback
 * key) and every `fields.<f>.stats-mode`: its type (see top), the range of
 * the numeric options paimon-c acts on (e.g. compaction.min.file-num >= 1,
 * target-file-size >= 1 byte, compaction.delete-ratio-threshold in
 * [0, 1], offpeak hours -1..23), the value set of enumerated options, and
 * the rules between options (bucket > 0, -1 or -2; dynamic-bucket.max-
 * buckets -1 or > 0; snapshot.num-retained.min <= .max).  PM_EINVALID
 * naming the first bad option, its value and the rule.  Unknown keys are
 * ignored.  Checks that need the schema: pm_schema_validate. */
pm_error *pm_options_validate(const pm_options *o);

#endif
