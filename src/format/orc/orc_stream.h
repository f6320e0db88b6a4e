/*
 * format/orc/orc_stream.h — ORC's compression framing, for reading and for
 * writing one stream.
 *
 * Layout of a compressed stream: chunks, each a 3-byte little-endian header
 * h = (length << 1) | original followed by `length` bytes: the chunk's
 * bytes as they are (original = 1) or compressed independently of the
 * other chunks with the file's codec.  No chunk expands beyond the
 * compression block size of the PostScript.  Without a codec a stream is
 * its bytes, no headers.  Codecs: ZLIB = raw deflate, SNAPPY = raw snappy
 * block, LZ4 = raw LZ4 block, ZSTD = zstd frame; LZO is unsupported.
 *
 * Reading (orc_in): the stream's bytes (borrowed) are decoded one chunk
 * at a time into a buffer of at most the block size, so memory stays at
 * one chunk per open stream however large the stream is.
 *
 * Writing (orc_out) follows orc-core's OutStream: bytes collect in a
 * buffer of `block_size` bytes; a buffer is closed only when a byte is
 * written past its end (or at flush), compressed, and kept compressed
 * only when that is smaller than the original (zstd also needs at least
 * 10 bytes, as Paimon's ZstdCodec does).  Positions for the row index are
 * (chunk start in the stream, bytes in the open chunk) with a codec and
 * (bytes written) without one.
 */
#ifndef PM_ORC_STREAM_H
#define PM_ORC_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "codec/codec.h"
#include "paimon/error.h"

/* Make room for `need` elements of `size` bytes in the array *pp of
 * capacity *cap (geometric growth; *pp kept on failure). */
pm_error *orc_reserve(void *pp, size_t *cap, size_t need, size_t size);

/* Largest compression block size we accept from a file: orc-core writes
 * less than 8 MiB (OutStream.assertBufferSizeValid). */
#define ORC_MAX_BLOCK_SIZE ((uint64_t)1 << 23)

typedef struct orc_codec {
    uint32_t kind;         /* orc_compression */
    pm_codec_id id;        /* paimon codec for kind (unused for NONE) */
    size_t block_size;     /* compression block size */
    int level;             /* compression level (writer) */
    pm_codec_ctx *ctx;     /* borrowed, may be NULL */
} orc_codec;

/* Map an ORC CompressionKind to our codec (PM_EUNSUPPORTED for LZO, unknown). */
pm_error *orc_codec_init(orc_codec *c, uint32_t kind, uint64_t block_size, pm_codec_ctx *ctx);

/* Decode a whole compressed stream into `out` (appended); `limit` caps the
 * decoded size (PM_ECORRUPT beyond). */
pm_error *orc_decompress_all(const orc_codec *c, const uint8_t *p, size_t n, size_t limit, pm_buf *out);

typedef struct orc_in {
    const orc_codec *codec;
    const uint8_t *src, *src_end;   /* undecoded input */
    const uint8_t *cur, *end;       /* decoded bytes of the current chunk */
    pm_buf chunk;                   /* decompressed chunk storage */
    uint64_t consumed;              /* decoded bytes handed out before the current chunk */
} orc_in;

void orc_in_init(orc_in *s, const orc_codec *codec, const uint8_t *p, size_t n);
void orc_in_free(orc_in *s);
/* Decode the next chunk; *got = false at the end of the stream. */
pm_error *orc_in_refill(orc_in *s, bool *got);
/* True when no byte is left (decoding chunks as needed). */
pm_error *orc_in_at_end(orc_in *s, bool *at_end);
/* Copy n bytes; PM_ECORRUPT naming `what` when the stream ends first. */
pm_error *orc_in_read(orc_in *s, void *dst, size_t n, const char *what);
pm_error *orc_in_skip(orc_in *s, uint64_t n, const char *what);

static inline pm_error *orc_in_byte(orc_in *s, uint8_t *b, const char *what)
{
    if (s->cur < s->end) {
        *b = *s->cur++;
        return NULL;
    }
    return orc_in_read(s, b, 1, what);
}

/* Row index positions being collected for one entry. */
typedef struct orc_positions {
    uint64_t *v;
    size_t n, cap;
} orc_positions;
pm_error *orc_positions_add(orc_positions *p, uint64_t v);
void orc_positions_free(orc_positions *p);

typedef struct orc_out {
    const orc_codec *codec;
    size_t limit;               /* bytes per open buffer (block size; 64 KiB uncompressed) */
    bool open;                  /* `cur` is an open buffer */
    pm_buf cur;                 /* the open buffer's original bytes */
    pm_buf out;                 /* finished chunks: the stream's bytes so far */
    pm_buf scratch;             /* compression output */
    uint64_t total;             /* bytes written since the last reset */
} orc_out;

void orc_out_init(orc_out *s, const orc_codec *codec);
void orc_out_free(orc_out *s);
pm_error *orc_out_write(orc_out *s, const void *p, size_t n);
static inline pm_error *orc_out_byte(orc_out *s, uint8_t b)
{
    if (s->open && s->cur.len < s->limit) {
        s->cur.data[s->cur.len++] = b;
        s->total++;
        return NULL;
    }
    return orc_out_write(s, &b, 1);
}
/* Close the open buffer (if any) into `out`; the stream can go on. */
pm_error *orc_out_flush(orc_out *s);
/* Append the current position (2 numbers with a codec, 1 without). */
pm_error *orc_out_position(const orc_out *s, orc_positions *pos);
/* Forget everything written (the next stripe). */
void orc_out_reset(orc_out *s);
/* Bytes held in memory: finished chunks plus the open buffer. */
uint64_t orc_out_buffered(const orc_out *s);

#endif
