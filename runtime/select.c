/* Kernel configuration choice. */
#include "select.h"

const solver *select_solver(igemm_handle *h, const igemm_shape *sh)
{
    for (int i = 0; i < solver_count(); i++)
        if (handle_solver_ok(h, solver_get(i), sh))
            return solver_get(i);
    return NULL;
}
