/*
 * format/avro/avro_file.h — reading and writing the Avro object container
 * file framing (not the values inside blocks).
 *
 * Layout:
 *   header  "Obj\x01", metadata map<bytes> (avro.schema, avro.codec, ...),
 *           16-byte sync marker
 *   block*  long object count, long byte size, `size` bytes of (compressed)
 *           concatenated objects, the 16-byte sync marker again
 * Codecs: null, deflate (raw), snappy (raw block + 4-byte big-endian CRC32
 * of the uncompressed bytes), zstandard (zstd frames, streamed).  bzip2 and
 * xz are valid Avro codecs we do not support (PM_EUNSUPPORTED).
 *
 * The reader holds one block at a time (memory bounded by a block); block
 * data returned by next_block stays valid until the next call or close.
 */
#ifndef PM_FORMAT_AVRO_FILE_H
#define PM_FORMAT_AVRO_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "codec/codec.h"
#include "format/avro/avro_schema.h"
#include "io/fileio.h"
#include "paimon/error.h"

typedef struct pm_avro_file pm_avro_file;

typedef struct pm_avro_file_options {
    /* Largest decompressed block accepted (0 = 1 GiB). */
    size_t max_block_bytes;
} pm_avro_file_options;

/* Open over an input (borrowed: it must outlive the file). opt may be NULL. */
pm_error *pm_avro_file_open(pm_input *in, const pm_avro_file_options *opt, pm_avro_file **out);
/* Open over bytes in memory (borrowed); `name` is used in messages. */
pm_error *pm_avro_file_open_memory(const uint8_t *data, size_t len, const char *name,
                                   const pm_avro_file_options *opt, pm_avro_file **out);
void pm_avro_file_close(pm_avro_file *f);

/* The writer schema JSON exactly as stored (owned by f, NUL-terminated). */
const char *pm_avro_file_schema_json(const pm_avro_file *f);
/* Codec name as stored in avro.codec ("null" when absent); owned by f. */
const char *pm_avro_file_codec(const pm_avro_file *f);
/* Parsed writer schema; owned by f. */
const pm_avro_schema *pm_avro_file_schema(const pm_avro_file *f);
/* Any metadata value (NULL if absent); owned by f. */
const uint8_t *pm_avro_file_meta(const pm_avro_file *f, const char *key, size_t *len);
const char *pm_avro_file_name(const pm_avro_file *f);

/* Next block: *count objects encoded in data[0..len).  *count = 0 and
 * *data = NULL after the last block. */
pm_error *pm_avro_file_next_block(pm_avro_file *f, const uint8_t **data, size_t *len,
                                  int64_t *count);

/* Map an avro.codec name to a codec id (null, deflate, snappy, zstandard). */
pm_error *pm_avro_codec_from_name(const char *name, pm_codec_id *out);
/* The avro.codec name for a codec id ("null", "deflate", "snappy", "zstandard"). */
pm_error *pm_avro_codec_name(pm_codec_id id, const char **out);

/* ---- writing the framing ---- */

/* Header: magic, metadata {avro.schema, avro.codec}, sync marker. */
pm_error *pm_avro_write_header(pm_buf *out, const char *schema_json, size_t schema_len,
                               const char *codec_name, const uint8_t sync[16]);
/* One block: count, size, compressed objects (+ CRC for snappy), sync. */
pm_error *pm_avro_write_block(pm_buf *out, pm_codec_ctx *ctx, pm_codec_id codec, int level,
                              int64_t count, const uint8_t *objects, size_t n,
                              const uint8_t sync[16]);

#endif
