/* Kernel configuration choice for a handle: the heuristic of heuristic.c
 * over the solvers the handle can run. (handle.c consults the performance
 * database first; see perfdb.h.) */
#include "select.h"

typedef struct {
    igemm_handle *h;
    const igemm_shape *sh;
} handle_ctx;

static int handle_ok(void *ctx, const solver *s)
{
    handle_ctx *c = ctx;
    return handle_solver_ok(c->h, s, c->sh);
}

const solver *select_solver(igemm_handle *h, const igemm_shape *sh)
{
    handle_ctx c = {h, sh};
    return select_heuristic(sh, handle_target(h), handle_ok, &c);
}
