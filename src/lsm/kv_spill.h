/*
 * lsm/kv_spill.h — intermediate runs of a multi-pass merge written to local
 * files (the pm_kv_spill callbacks of merge_reader.h), so merging more
 * than 256 inputs stays within memory.
 *
 * Each run is one Avro object container file `<dir>/pm-merge-<uuid>-<n>
 * .avro` with the batches' ROW type (Paimon's Avro mapping, so every type
 * round-trips), compressed with the chosen codec (zstd level 1 by default,
 * or none/snappy/deflate).  Writing streams block by block; reading back
 * decodes one block and one batch at a time, so a run costs a few blocks
 * of memory whatever its size.  A run's file is deleted when its source is
 * closed (or the unfinished run aborted); freeing the spill deletes any
 * file still present.  Not thread-safe: one spill per merge.
 */
#ifndef PM_LSM_KV_SPILL_H
#define PM_LSM_KV_SPILL_H

#include <stddef.h>

#include "codec/codec.h"
#include "lsm/merge_reader.h"

typedef struct pm_kv_spill_dir pm_kv_spill_dir;

/* `dir` must exist (copied).  codec: PM_CODEC_NONE, _ZSTD, _SNAPPY or
 * _DEFLATE. */
pm_error *pm_kv_spill_dir_new(pm_kv_spill_dir **out, const char *dir, pm_codec_id codec);
/* The callbacks (valid while the spill lives). */
const pm_kv_spill *pm_kv_spill_dir_ops(pm_kv_spill_dir *d);
/* Run files currently on disk. */
size_t pm_kv_spill_dir_live_files(const pm_kv_spill_dir *d);
/* Bytes written so far over all runs. */
uint64_t pm_kv_spill_dir_bytes_written(const pm_kv_spill_dir *d);
void pm_kv_spill_dir_free(pm_kv_spill_dir *d);

#endif
