/* A handle's kernels as the selection heuristic sees them: what the kernel
 * of a solver allocates in the handle's code object (its descriptor, read
 * once when the handle is created: emu_load_info). For the callers of the
 * heuristic outside the handle (igemm plan --estimates, the MIOpen
 * comparison's picks), so that they estimate as the handle selects. */
#ifndef IGEMM_KALLOC_H
#define IGEMM_KALLOC_H

#include "../arch/occupancy.h"
#include "../conv/solver.h"
#include "../include/igemm.h"

/* The VGPRs, AGPRs, SGPRs and LDS bytes the kernel of v4r1 solver s
 * allocates in h's code object into *a: 0, or -1 when h could not read its
 * descriptors or has no such kernel. */
int handle_kernel_alloc(const igemm_handle *h, const solver *s, kernel_alloc *a);

#endif
