/*
 * tests/unit/support/pm_test_pq.h — a Parquet file of the group's
 * temporary directory opened for reading in one call (file I/O, input and
 * reader), for the Parquet unit tests.
 */
#ifndef PM_TEST_PQ_H
#define PM_TEST_PQ_H

#include "format/parquet/parquet_reader.h"
#include "io/fileio.h"

typedef struct pm_test_pq_file {
    pm_fileio *fio;
    pm_input *in;
    pm_pq_reader *r;
} pm_test_pq_file;

/* Opens <pm_test_dir>/<name> with default reader options; fails the test on
 * an error. */
void pm_test_pq_open(pm_test_pq_file *f, const char *name);
void pm_test_pq_close(pm_test_pq_file *f);

#endif
