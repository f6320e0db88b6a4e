/*
 * format/parquet/pq_footer_json.h — describe a Parquet footer as JSON (the
 * layout is in pq_footer_json.c).
 */
#ifndef PM_PQ_FOOTER_JSON_H
#define PM_PQ_FOOTER_JSON_H

#include "io/fileio.h"
#include "paimon/error.h"

/* The footer of the Parquet file at `path` as indented JSON (malloc'd). */
pm_error *pm_pq_footer_json(pm_fileio *fio, const char *path, char **out);

#endif
