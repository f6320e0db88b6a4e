/*
 * compact/compact_auto.h — TEMPORARY on the api branch: the names the
 * compact branch gives the automatic round and the write stall.
 */
#ifndef PM_COMPACT_AUTO_H
#define PM_COMPACT_AUTO_H
#include "compact/compact_run.h"
#include "compact/pk_compact.h"
#define pm_compact_write_stall pm_compact_pk_stall
#endif
