/*
 * base/fault.h — the one fault-injection facility of the library (tests
 * only).
 *
 * The environment variable PAIMON_FAULT_INJECT holds a comma-separated
 * list of point names; pm_fault(name) is true when `name` is one of them.
 * The variable is read on every call (tests set and unset it between
 * steps) and only in builds without NDEBUG: a release build (-DNDEBUG)
 * compiles every point to false.  Nothing is cached, so there is no
 * global state.
 *
 * Points (each name is checked at exactly one place; a point makes its
 * step fail with PM_EIO, or PM_EUNCERTAIN where stated):
 *   commit-before-publish          table/table_commit.c: after the
 *                                  attempt's manifests are written, before
 *                                  snapshot-N is published (the attempt's
 *                                  files are removed)
 *   commit-after-publish           table/table_commit.c: after snapshot-N
 *                                  was published, report PM_EUNCERTAIN
 *   compact-commit-before-publish  compact/compact_commit.c: before the
 *                                  COMPACT snapshot's table commit starts
 *   writer-open                    compaction writers (compact_writer.c):
 *                                  before an output file is created
 *   writer-close                   compaction writers: after an output
 *                                  file was closed, before its metadata is
 *                                  kept (the file is deleted)
 *   execute-after-first-input      compact/compact_execute.c: after the
 *                                  first input file of a task
 *   pk-execute-after-first-step    compact/pk_execute.c: after the first
 *                                  step of a primary-key task
 *   de-execute-after-first-group   compact/de/de_execute.c: after the
 *                                  first row-ID group of a data-evolution
 *                                  task
 *   de-rebase-after-write          compact/de/de_commit.c: after the
 *                                  commit attempt's moved deletion
 *                                  vectors were written to a new index file
 *   global-index-after-write       compact/global_index_maint.c: after a
 *                                  round's first payload file was written
 *                                  (the round deletes what it wrote)
 *   lookup-file-write              table/lookup_file.c: a Lookup File's
 *                                  block cannot be written (a full disk;
 *                                  the build removes what it wrote)
 *   pk-prepass-merge               compact/pk/pk_superseded.c: nothing
 *                                  fails; the key pre-pass takes the
 *                                  general merge where its direct scan
 *                                  would apply (tests compare the two)
 *   pq-bytes-generic               format/parquet/pq_write_column.c:
 *                                  nothing fails; PLAIN byte strings of
 *                                  contiguous rows skip their inner loop
 *                                  and take the general step (tests
 *                                  compare the bytes of the two)
 *   pk-lazy-pages-off              compact/pk/pk_execute.c: nothing
 *                                  fails; page copies offer every page
 *                                  with its values (no lazy offers, no
 *                                  value columns read on demand: tests
 *                                  compare the two)
 */
#ifndef PM_BASE_FAULT_H
#define PM_BASE_FAULT_H

#include <stdbool.h>

/* Whether the point `name` is listed in PAIMON_FAULT_INJECT (always false
 * with NDEBUG).  Exact, case-sensitive match of one list item. */
bool pm_fault(const char *name);

#endif
