/* The handle's glue to the performance database (perfdb.c): the lookup
 * the selection makes and the record find mode writes. */
#include <stdio.h>
#include <string.h>

#include "handle_int.h"

/* The record of sh whose unit is this backend's cost unit. */
const solver *handle_perfdb_solver(igemm_handle *h, const igemm_shape *sh)
{
    char key[160];
    perfdb_key(&sh->p, h->b->num_cu, key, sizeof key);
    const perfdb_rec *r = perfdb_find(&h->db, h->t->name, key, h->b->ops->cost_unit);
    if (!r)
        return NULL;
    const solver *s = solver_find(r->solution);
    return s && handle_solver_ok(h, s, sh) ? s : NULL;
}

/* Find's best so far into the handle's records and, with store and a
 * database file, into the file (perfdb_store: locked, merged). Returns the
 * status with the reason in why (the caller reports it). */
igemm_status handle_perfdb_remember(igemm_handle *h, const igemm_problem *p, const igemm_perf *best, bool store,
                                    char *why, size_t len)
{
    perfdb_rec rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.arch, sizeof rec.arch, "%s", h->t->name);
    perfdb_key(p, h->b->num_cu, rec.key, sizeof rec.key);
    snprintf(rec.solution, sizeof rec.solution, "%s", best->solution);
    rec.cost = best->cost;
    snprintf(rec.unit, sizeof rec.unit, "%s", best->unit);
    if (perfdb_put(&h->db, &rec)) {
        why_printf(why, len, "out of memory");
        return IGEMM_ERR_NO_MEMORY;
    }
    return h->perfdb && store ? perfdb_store(h->perfdb, &rec, why, len) : IGEMM_OK;
}
