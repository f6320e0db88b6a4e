/*
 * format/blob/blob_file.h — Paimon's `.blob` data files (one BLOB column
 * of a data-evolution table, BlobFormatWriter's layout), read only.
 *
 * Layout (all integers little-endian):
 *   records   back to back from offset 0; a non-null value is
 *             magic int32 0x584E11CF | payload | record length int64
 *             (= 4 + payload + 8 + 4) | CRC32 int32 over the bytes before it
 *   index     one length per row: the record length, -1 for null (no
 *             bytes), -2 for a placeholder (the value lives in an older
 *             file); delta-encoded (the first against 0), ZigZag, unsigned
 *             LEB128 varints
 *   footer    index byte length int32 | version byte 1
 * A record starts where the previous non-negative length ended.
 *
 * Reading checks the footer, every varint, that the records exactly fill
 * the bytes before the index, each record's magic and stored length, and
 * (when asked) its CRC; anything else is PM_ECORRUPT naming the file.
 * Placeholders are PM_EUNSUPPORTED (they need the older file's value).
 */
#ifndef PM_FORMAT_BLOB_BLOB_FILE_H
#define PM_FORMAT_BLOB_BLOB_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "io/fileio.h"
#include "paimon/error.h"
#include "types/column.h"

#define PM_BLOB_MAGIC 0x584E11CFu
#define PM_BLOB_VERSION 1

typedef struct pm_blob_reader pm_blob_reader;

/* Open and parse the index of `path` (the input is owned by the reader). */
pm_error *pm_blob_reader_open(pm_fileio *fio, const char *path, bool verify_crc, pm_blob_reader **out);
/* Rows in the file. */
int64_t pm_blob_reader_rows(const pm_blob_reader *r);
/* Append rows [row, row + n) to `col` (a BLOB/VARBINARY column). */
pm_error *pm_blob_reader_append(pm_blob_reader *r, int64_t row, int64_t n, pm_column *col);
void pm_blob_reader_free(pm_blob_reader *r);

/* Parse an index (the bytes between the records and the footer) into
 * lengths[0..*rows) (malloc'd).  Exposed for tests. */
pm_error *pm_blob_parse_index(const uint8_t *p, size_t n, int64_t **lengths, int64_t *rows);

#endif
