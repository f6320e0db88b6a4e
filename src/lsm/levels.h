/*
 * lsm/levels.h — the LSM state of one (partition, bucket): its live data
 * files arranged in levels and sorted runs, as Java's Levels does
 * (pc/mergetree/Levels.java, spec §1.4).
 *
 *   level 0    every file is its own sorted run, ordered newest first:
 *              _MAX_SEQUENCE_NUMBER descending; ties _MIN_SEQUENCE_NUMBER
 *              ascending, then _CREATION_TIME ascending (absent first),
 *              then file name ascending.
 *   level 1..  one sorted run per level: files ordered by _MIN_KEY, key
 *              ranges must not overlap (next min > previous max).
 *   runs       each level-0 file, then each non-empty level 1..max, in
 *              that order (the input of the compaction strategies).
 *   levels     max(num-levels, highest file level + 1), at least 2.
 * Keys compare as typed values of the trimmed primary key (ascending,
 * nulls first): each file's _MIN_KEY/_MAX_KEY BinaryRow is decoded once
 * into a normalized key (kv.h) when the file enters the levels.
 *
 * Files are identified by name: update(before, after) removes the files
 * named in `before` from their levels and adds `after` (a file may move
 * between levels, which is how an upgrade is recorded).  The levels own
 * deep copies of the metadata they hold.
 */
#ifndef PM_LSM_LEVELS_H
#define PM_LSM_LEVELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "paimon/types.h"

/* One file with its normalized key range. */
typedef struct pm_lsm_file {
    pm_data_file_meta meta;   /* owned copy */
    uint8_t *min_key;
    size_t min_len;
    uint8_t *max_key;
    size_t max_len;
} pm_lsm_file;

/* A sorted run as the levels present it: borrowed file pointers (valid
 * until the next update) in run order, their level and total size. */
typedef struct pm_lsm_run {
    int32_t level;
    int64_t size;
    size_t nfiles;
    pm_lsm_file *const *files;
} pm_lsm_run;

typedef struct pm_levels pm_levels;

/* key_type: ROW of the trimmed primary key (cloned).  files: the live
 * files (copied; duplicates by name are PM_ECORRUPT, overlapping key
 * ranges inside a level > 0 are PM_ECORRUPT). */
pm_error *pm_levels_new(pm_levels **out, const pm_type *key_type, int32_t num_levels,
                        const pm_data_file_meta *files, size_t nfiles);
void pm_levels_free(pm_levels *lv);

/* Remove `before` (by file name; an unknown name is PM_EINVALID) and add
 * `after` at their _LEVEL.  A resulting overlap in a level > 0 is
 * PM_ECONFLICT; a level beyond max level is PM_EINVALID.  On error the
 * levels are unchanged. */
pm_error *pm_levels_update(pm_levels *lv, const pm_data_file_meta *before, size_t nbefore,
                           const pm_data_file_meta *after, size_t nafter);
/* Convenience: add one new (level 0 or higher) file. */
pm_error *pm_levels_add(pm_levels *lv, const pm_data_file_meta *file);

int32_t pm_levels_num_levels(const pm_levels *lv);
int32_t pm_levels_max_level(const pm_levels *lv);
/* Level-0 files plus non-empty higher levels. */
size_t pm_levels_num_sorted_runs(const pm_levels *lv);
/* Highest non-empty level, 0 when only level 0 has files, -1 when empty. */
int32_t pm_levels_nonempty_highest_level(const pm_levels *lv);
int64_t pm_levels_total_size(const pm_levels *lv);
size_t pm_levels_file_count(const pm_levels *lv);
/* Files of one level in run order (level 0 newest first); borrowed until
 * the next update.  *n = 0 for an empty or out-of-range level. */
pm_lsm_file *const *pm_levels_files(const pm_levels *lv, int32_t level, size_t *n);
/* The sorted runs (borrowed array, valid until the next update). */
const pm_lsm_run *pm_levels_runs(const pm_levels *lv, size_t *nruns);
/* Find a file by name (NULL when absent). */
const pm_lsm_file *pm_levels_find(const pm_levels *lv, const char *file_name);
/* Writers wait for compaction when runs > num-sorted-run.stop-trigger. */
static inline bool pm_levels_should_stall(const pm_levels *lv, int32_t stop_trigger)
{
    return (int64_t)pm_levels_num_sorted_runs(lv) > (int64_t)stop_trigger;
}
/* Max _CREATION_TIME of files at max level (Java's estimate of the last
 * full compaction); *has=false when there is none. */
void pm_levels_last_full_compaction(const pm_levels *lv, bool *has, int64_t *millis);
const pm_type *pm_levels_key_type(const pm_levels *lv);

/* Java's level-0 order: negative when a sorts before b (a is newer). */
int pm_lsm_level0_cmp(const pm_data_file_meta *a, const pm_data_file_meta *b);

/* Delete records may be dropped from a compaction's output (spec §1.4,
 * MergeTreeCompactManager): output level != 0 and (output level >= the
 * highest non-empty level, or deletion vectors are enabled), unless the
 * caller must keep them (force_keep). */
static inline bool pm_lsm_drop_delete(int32_t output_level, int32_t nonempty_highest_level, bool dv_enabled,
                                      bool force_keep)
{
    return !force_keep && output_level != 0 && (output_level >= nonempty_highest_level || dv_enabled);
}

#endif
