/*
 * tests/unit/support/pm_test_pq.c — see pm_test_pq.h.
 */
#include "pm_test_pq.h"

#include "pm_test.h"
#include "types/column.h"

void pm_test_pq_open_path(pm_test_pq_file *f, const char *path, const pm_pq_reader_options *o)
{
    PM_OK_OR_FAIL(pm_fileio_local_new(&f->fio));
    PM_OK_OR_FAIL(pm_input_open(f->fio, path, &f->in));
    PM_OK_OR_FAIL(pm_pq_reader_open(&f->r, f->in, o));
}

void pm_test_pq_open(pm_test_pq_file *f, const char *name)
{
    char *path = pm_test_path(name);
    pm_test_pq_open_path(f, path, NULL);
    free(path);
}

void pm_test_pq_write(const char *path, const pm_batch *b, const pm_pq_writer_options *o, uint64_t *size)
{
    pm_fileio *fio;
    PM_OK_OR_FAIL(pm_fileio_local_new(&fio));
    pm_output *out;
    PM_OK_OR_FAIL(pm_output_create(fio, path, true, &out));
    pm_pq_writer *w;
    PM_OK_OR_FAIL(pm_pq_writer_new(&w, out, b->type, o));
    PM_OK_OR_FAIL(pm_pq_writer_write(w, b));
    pm_pq_write_result res;
    PM_OK_OR_FAIL(pm_pq_writer_close(w, &res));
    pm_pq_write_result_free(&res);
    PM_OK_OR_FAIL(pm_output_close(out, false));
    if (size) {
        pm_input *in;
        PM_OK_OR_FAIL(pm_input_open(fio, path, &in));
        *size = pm_input_size(in);
        pm_input_close(in);
    }
    pm_fileio_free(fio);
}

void pm_test_pq_close(pm_test_pq_file *f)
{
    pm_pq_reader_free(f->r);
    pm_input_close(f->in);
    pm_fileio_free(f->fio);
}
