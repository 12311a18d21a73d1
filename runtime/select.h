/* Kernel configuration choice (selection heuristic, performance database). */
#ifndef IGEMM_SELECT_H
#define IGEMM_SELECT_H

#include "igemm.h"
#include "solver.h"

/* The configuration to run sh with on h's target: the performance
 * database's entry when there is one, else the heuristic's pick; NULL when
 * nothing applies. */
const solver *select_solver(igemm_handle *h, const igemm_shape *sh);

/* The heuristic on its own (no handle): the best of the solvers for which
 * ok(ctx, s) holds. Used by select_solver and by the static-twin generator. */
const solver *select_heuristic(const igemm_shape *sh, const target *t, int (*ok)(void *ctx, const solver *s),
                               void *ctx);
/* The heuristic's estimated time of a v4r1 configuration (model cycles);
 * *work (may be NULL) receives its estimated issue cycles. */
#include "v4r1_config.h"
double v4r1_estimate(const v4r1_config *c, const igemm_shape *sh, const target *t, double *work);

/* Handle internals the selection needs (handle.c). */
int handle_solver_ok(igemm_handle *h, const solver *s, const igemm_shape *sh);
const target *handle_target(const igemm_handle *h);

#endif
