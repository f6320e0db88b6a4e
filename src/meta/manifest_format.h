/*
 * meta/manifest_format.h — the file format under manifest files, manifest
 * lists and index manifests: Avro object containers or ORC files (the
 * `manifest.format` option), read into batches of our row types and
 * written from them.
 *
 * Reading: the format comes from the file's first bytes ("Obj\x01" Avro,
 * "ORC" ORC; "PAR1" is a Parquet manifest, PM_EUNSUPPORTED; anything else
 * PM_ECORRUPT), not from the option, so a table whose manifest.format
 * changed reads its old files too.  Batches have exactly the requested
 * row type, fields matched by name at every level (nested rows, rows in
 * arrays): a field the file lacks (written by an older Paimon) reads as
 * null, a file field we do not ask for is not read.  Avro resolves this
 * while decoding; for ORC the reader is opened with the intersection of
 * the requested type and the file's schema (file field ids kept, our
 * types: _CREATION_TIME as TIMESTAMP(3)) and every batch is then
 * conformed: missing fields become null columns, present ones are shared.
 *
 * Writing (as Paimon Java writes them):
 *   - Avro: codec `avro.codec` if set, else `manifest.compression`
 *     ("zstd" → zstandard at file.compression.zstd-level; else an Avro
 *     codec name), see manifest.h.
 *   - ORC: the ORC writer with the table's orc.* options and
 *     `manifest.compression` as its compression (it replaces
 *     file.compression and orc.compress, as Java passes it explicitly);
 *     zstd at orc.compression.zstd.level / file.compression.zstd-level.
 *   - `manifest.format` parquet is PM_EUNSUPPORTED; other values
 *     PM_EINVALID.
 *   The size for rolling is the format writer's estimate (Avro: written +
 *   pending block; ORC: written + 0.2 x buffered, Paimon's estimate).
 */
#ifndef PM_META_MANIFEST_FORMAT_H
#define PM_META_MANIFEST_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/avro/avro.h"
#include "format/orc/orc_writer.h"
#include "io/fileio.h"
#include "meta/options.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"

/* ---- reading ---- */
typedef struct pm_mf_reader pm_mf_reader;

/* Open `path` for batches of `type` (a ROW, borrowed until free). */
pm_error *pm_mf_reader_open(pm_mf_reader **out, pm_fileio *fio, const char *path, const pm_type *type);
/* Next batch (owned by the reader, valid until the next call); NULL at the end. */
pm_error *pm_mf_reader_next(pm_mf_reader *r, pm_batch **out);
void pm_mf_reader_free(pm_mf_reader *r);

/* A batch of `src` conformed to `type` (fields by name, recursively;
 * missing fields null).  *out is a new batch sharing src's columns. */
pm_error *pm_mf_conform(const pm_batch *src, const pm_type *type, pm_batch **out);

/* ---- writing ---- */
/* The Avro codec and level of Avro metadata files (see top). */
pm_error *pm_manifest_avro_options(const pm_options *options, pm_avro_write_options *out);

typedef struct pm_mf_write_options {
    bool orc;                       /* else Avro */
    pm_avro_write_options avro;
    pm_orc_writer_options orc_opts;
    char *orc_names;                /* owned: strings orc_opts points at */
} pm_mf_write_options;

/* From table options (see top).  Free with pm_mf_write_options_clear. */
pm_error *pm_mf_write_options_from(const pm_options *options, pm_mf_write_options *out);
void pm_mf_write_options_clear(pm_mf_write_options *o);

typedef struct pm_mf_writer pm_mf_writer;

/* A writer of rows of `type` into `out` (borrowed until finish/abort). */
pm_error *pm_mf_writer_open(pm_mf_writer **w, pm_output *out, const pm_type *type, const pm_mf_write_options *o);
pm_error *pm_mf_writer_write(pm_mf_writer *w, const pm_batch *b);
uint64_t pm_mf_writer_estimated_size(const pm_mf_writer *w);
/* Finish the file (the output stays open) and free the writer, also on error. */
pm_error *pm_mf_writer_finish(pm_mf_writer *w);
/* Free without finishing; NULL is fine. */
void pm_mf_writer_abort(pm_mf_writer *w);

#endif
