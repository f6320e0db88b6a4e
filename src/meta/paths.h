/*
 * meta/paths.h — where a Paimon table keeps its files, and how new files are
 * named (FileStorePathFactory, DataFilePathFactory, PartitionPathUtils,
 * BranchManager in Paimon Java).
 *
 * Layout under the table root (main branch = root, other branches
 * `branch/branch-<name>/` for snapshot/, schema/, tag/, changelog/):
 *   schema/schema-<N>          snapshot/snapshot-<N>, snapshot/LATEST|EARLIEST
 *   manifest/manifest-<uuid>-<n>, manifest/manifest-list-<uuid>-<n>,
 *   manifest/index-manifest-<uuid>-<n>, index/index-<uuid>-<n>,
 *   statistics/stat-<uuid>-<n>
 *   [<data-file.path-directory>/]<k1>=<v1>/<k2>=<v2>/bucket-<b>/<data files>
 * Manifests, index files and data files are shared by all branches (their
 * root is always the table root).  Bucket -2 (postpone) is `bucket-postpone`.
 *
 * Partition directories: for each partition field `escape(name)=escape(value)`,
 * joined by '/', trailing '/'.  escape() turns 0x00–0x1F, 0x7F and
 * `"#%'*\/:=?\{}[]^` into %XX (uppercase hex); other bytes (UTF-8 included)
 * stay.  The value string is Java's toString of the internal value when
 * partition.legacy-name=true (default: DATE → day number, TIME → millis of
 * day, TIMESTAMP → ISO LocalDateTime "2024-05-14T01:02:03.004005"), or a
 * CAST to STRING when false (DATE "2024-05-14", TIME "01:02:03.004",
 * TIMESTAMP "2024-05-14 01:02:03.004005", LTZ in the local time zone).
 * Floats and doubles print like Java (shortest round-trip digits, "1.0",
 * "1.0E10"), decimals as plain strings.  A null value or one that is blank
 * (only whitespace) becomes partition.default-name.  BINARY values with
 * the legacy name are unsupported (Java prints an object identity).
 *
 * New file names: data `<data-file.prefix><uuid>-<n><ext>` and changelog
 * `<changelog-file.prefix><uuid>-<n><ext>`, uuid fixed per data-file name
 * generator (one per partition+bucket writer) and n counting from 0; ext is
 * `.<format>`, or `.<compression ext>.<format>` with
 * file.suffix.include.compression (zstd→zst, gzip→gz, bzip2→bz2, none → no
 * extension), or `.<format>.<compression ext>` for json/csv whenever a
 * compression is set.  Manifest, manifest-list, index-manifest, index and
 * stats names come from per-factory counters with one uuid.
 */
#ifndef PM_META_PATHS_H
#define PM_META_PATHS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "meta/options.h"
#include "paimon/error.h"
#include "paimon/types.h"

#define PM_BUCKET_POSTPONE (-2)
#define PM_MAIN_BRANCH "main"

/* ---- fixed table paths (malloc'd results, caller frees) ---- */

/* Root of a branch's metadata: the table root for "main", else
 * <root>/branch/branch-<name>. */
pm_error *pm_branch_root(const char *table_root, const char *branch, char **out);
/* <branch_root>/snapshot/snapshot-<id> and friends. */
pm_error *pm_snapshot_file_path(const char *branch_root, int64_t id, char **out);
pm_error *pm_schema_file_path(const char *branch_root, int64_t id, char **out);

/* ---- partition path pieces ---- */

/* Append `s` with Hive escaping (see top). PM_EINVALID if n == 0. */
pm_error *pm_partition_escape(pm_buf *out, const char *s, size_t n);
/* Undo %XX escapes (invalid escapes are kept literally, like Java). */
pm_error *pm_partition_unescape(pm_buf *out, const char *s, size_t n);

/* One partition value in its internal representation. */
typedef struct pm_part_value {
    bool is_null;
    union {
        bool b;                 /* BOOLEAN */
        int64_t i;              /* TINYINT..BIGINT, DATE (days), TIME (millis of day) */
        float f;                /* FLOAT */
        double d;               /* DOUBLE */
        __int128 dec;           /* DECIMAL unscaled value */
        struct {
            int64_t millis;     /* epoch millis (LTZ: instant) */
            int32_t nanos;      /* nano of millisecond 0..999999 */
        } ts;                   /* TIMESTAMP, TIMESTAMP_LTZ */
        struct {
            const uint8_t *p;   /* borrowed */
            size_t n;
        } bytes;                /* CHAR, VARCHAR, BINARY, VARBINARY */
    } v;
} pm_part_value;

/* Append the string form of a non-null value (see top for the rules). */
pm_error *pm_partition_value_to_string(const pm_type *type, const pm_part_value *v, bool legacy,
                                       pm_buf *out);
/* Java's Float.toString / Double.toString (shortest round-trip digits). */
pm_error *pm_java_double_to_string(double d, pm_buf *out);
pm_error *pm_java_float_to_string(float f, pm_buf *out);
/* Java's LocalDateTime.toString of epoch millis + nano of milli (UTC). */
pm_error *pm_java_local_datetime_to_string(int64_t millis, int32_t nanos, pm_buf *out);

/* Append "k1=v1/k2=v2/" for a ROW of partition fields (nothing when the ROW
 * has no fields).  values[i] belongs to row_type->fields[i]. */
pm_error *pm_partition_path(const pm_type *row_type, const pm_part_value *values,
                            const char *default_name, bool legacy, pm_buf *out);

/* Same from a serialized BinaryRow (4-byte big-endian arity + row, as in a
 * manifest's _PARTITION) whose fields follow row_type. */
pm_error *pm_partition_path_binrow(const pm_type *row_type, const uint8_t *row, size_t len,
                                   const char *default_name, bool legacy, pm_buf *out);

/* "bucket-<n>" or "bucket-postpone". */
pm_error *pm_bucket_dir_name(int32_t bucket, pm_buf *out);

/* ---- path factory for one table ---- */

typedef struct pm_path_factory pm_path_factory;

/* `partition_type` (a ROW, borrowed: must outlive the factory) and the
 * table options decide directory and file names.  The factory draws one
 * random uuid for its manifest/index/stats names. */
pm_error *pm_path_factory_new(pm_path_factory **out, const char *table_root,
                              const pm_type *partition_type, const pm_options *options);
void pm_path_factory_free(pm_path_factory *pf);
const char *pm_path_factory_root(const pm_path_factory *pf);
const char *pm_path_factory_uuid(const pm_path_factory *pf);

/* "[<data-file.path-directory>/]<partition path>bucket-<b>" (relative). */
pm_error *pm_path_factory_relative_bucket_path(pm_path_factory *pf, const pm_part_value *partition,
                                               int32_t bucket, char **out);
/* <root>/<relative bucket path>. */
pm_error *pm_path_factory_bucket_path(pm_path_factory *pf, const pm_part_value *partition,
                                      int32_t bucket, char **out);

/* Same with the partition as a serialized BinaryRow (manifest _PARTITION). */
pm_error *pm_path_factory_bucket_path_binrow(pm_path_factory *pf, const uint8_t *row, size_t len,
                                             int32_t bucket, char **out);

/* New names from the factory's counters (thread-safe). */
pm_error *pm_path_factory_new_manifest_name(pm_path_factory *pf, char **out);
pm_error *pm_path_factory_new_manifest_list_name(pm_path_factory *pf, char **out);
pm_error *pm_path_factory_new_index_manifest_name(pm_path_factory *pf, char **out);
pm_error *pm_path_factory_new_index_file_name(pm_path_factory *pf, char **out);
pm_error *pm_path_factory_new_stats_file_name(pm_path_factory *pf, char **out);
/* Full paths of existing files by name. */
pm_error *pm_path_factory_manifest_path(const pm_path_factory *pf, const char *name, char **out);
pm_error *pm_path_factory_index_path(const pm_path_factory *pf, const char *name, char **out);
pm_error *pm_path_factory_stats_path(const pm_path_factory *pf, const char *name, char **out);
/* PM_EUNSUPPORTED when new data files would go to data-file.external-paths
 * (a strategy other than none with paths set): writers call this first.
 * Bucket paths stay computable for reading either way. */
pm_error *pm_path_factory_check_writable(const pm_path_factory *pf);
/* Whether index files go next to the data files (index-file-in-data-file-dir). */
bool pm_path_factory_index_in_data_dir(const pm_path_factory *pf);

/* ---- data file names for one (partition, bucket) writer ---- */

typedef struct pm_data_file_namer {
    char uuid[37];
    atomic_int count;
    char *data_prefix;
    char *changelog_prefix;
    char *ext;        /* ".parquet", ".zst.parquet", ... */
} pm_data_file_namer;

/* format: file.format (or the level's format); compression: file.compression
 * (or the level's); both are what the writer of that file uses. */
pm_error *pm_data_file_namer_init(pm_data_file_namer *n, const pm_options *options,
                                  const char *format, const char *compression);
void pm_data_file_namer_destroy(pm_data_file_namer *n);
pm_error *pm_data_file_namer_next_data(pm_data_file_namer *n, char **out);
pm_error *pm_data_file_namer_next_changelog(pm_data_file_namer *n, char **out);
/* Blob file: `<data prefix><uuid>-<n>.blob`. */
pm_error *pm_data_file_namer_next_blob(pm_data_file_namer *n, char **out);
/* `<data file name>.index` (data-file index sidecar). */
pm_error *pm_data_file_index_name(const char *data_file_name, char **out);
/* The file-name extension for (format, compression, include-compression). */
pm_error *pm_data_file_extension(const char *format, const char *compression,
                                 bool suffix_include_compression, char **out);

#endif
