/*
 * tests/unit/support/pm_test_pq.h — a Parquet file of the group's
 * temporary directory opened for reading in one call (file I/O, input and
 * reader), and a batch written as a Parquet file in one call, for the
 * Parquet unit tests.
 */
#ifndef PM_TEST_PQ_H
#define PM_TEST_PQ_H

#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"

typedef struct pm_test_pq_file {
    pm_fileio *fio;
    pm_input *in;
    pm_pq_reader *r;
} pm_test_pq_file;

/* Opens <pm_test_dir>/<name> with default reader options; fails the test on
 * an error. */
void pm_test_pq_open(pm_test_pq_file *f, const char *name);
/* Opens the file at `path` with reader options o (NULL = defaults). */
void pm_test_pq_open_path(pm_test_pq_file *f, const char *path, const pm_pq_reader_options *o);
void pm_test_pq_close(pm_test_pq_file *f);
/* Writes batch b (rows of its type) as a new Parquet file at `path` with
 * writer options o; *size (may be NULL) = the file's size. */
void pm_test_pq_write(const char *path, const pm_batch *b, const pm_pq_writer_options *o, uint64_t *size);

#endif
