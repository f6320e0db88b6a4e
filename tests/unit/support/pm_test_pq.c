/*
 * tests/unit/support/pm_test_pq.c — see pm_test_pq.h.
 */
#include "pm_test_pq.h"

#include "pm_test.h"

void pm_test_pq_open(pm_test_pq_file *f, const char *name)
{
    char *path = pm_test_path(name);
    PM_OK_OR_FAIL(pm_fileio_local_new(&f->fio));
    PM_OK_OR_FAIL(pm_input_open(f->fio, path, &f->in));
    free(path);
    PM_OK_OR_FAIL(pm_pq_reader_open(&f->r, f->in, NULL));
}

void pm_test_pq_close(pm_test_pq_file *f)
{
    pm_pq_reader_free(f->r);
    pm_input_close(f->in);
    pm_fileio_free(f->fio);
}
