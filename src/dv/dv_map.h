/*
 * dv/dv_map.h — data file name → deletion vector, in insertion order (the
 * Map<String, DeletionVector> of Paimon's maintainers and index-file
 * writers).  Entries are written to index files in this order.
 *
 * Storage: an array of (name, dv) in insertion order plus an open-addressing
 * hash table of array indexes (FNV-1a of the name), rebuilt on removal.
 * Replacing the vector of an existing name keeps its position, like Java's
 * LinkedHashMap.  The map owns names and vectors.
 */
#ifndef PM_DV_DV_MAP_H
#define PM_DV_DV_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "dv/deletion_vector.h"
#include "paimon/error.h"

typedef struct pm_dv_map pm_dv_map;

pm_error *pm_dv_map_new(pm_dv_map **out);
void pm_dv_map_free(pm_dv_map *m);
size_t pm_dv_map_count(const pm_dv_map *m);
/* Entry i (0 <= i < count) in insertion order; owned by the map. */
const char *pm_dv_map_name(const pm_dv_map *m, size_t i);
pm_dv *pm_dv_map_at(const pm_dv_map *m, size_t i);
/* The vector of `name` or NULL; owned by the map. */
pm_dv *pm_dv_map_get(const pm_dv_map *m, const char *name);
/* Insert or replace; takes `dv` (freed on failure too). */
pm_error *pm_dv_map_put(pm_dv_map *m, const char *name, pm_dv *dv);
/* Remove `name`; returns its vector (caller owns) or NULL when absent. */
pm_dv *pm_dv_map_take(pm_dv_map *m, const char *name);

#endif
