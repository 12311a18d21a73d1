/* Kernel configuration choice: the heuristic of heuristic.c (no handle, no
 * device). A handle consults its performance database first and the
 * heuristic after it (handle.c); the static-twin generator uses the
 * heuristic alone. */
#ifndef IGEMM_SELECT_H
#define IGEMM_SELECT_H

#include "../arch/occupancy.h"
#include "solver.h"
#include "v4r1_config.h"

/* What the caller of the heuristic knows of the solvers. ok(ctx, s): may s
 * be picked. alloc(ctx, s, a) (may be NULL): the registers and LDS the
 * kernel of v4r1 solver s allocates, from its code object's descriptor (what
 * the timing model's occupancy counts), returning 0; or -1 when unknown,
 * where the configuration's own estimate counts (v4r1_config.vgprs, agprs,
 * lds_bytes: an upper bound, before the kernel exists). */
typedef struct {
    int (*ok)(void *ctx, const solver *s);
    int (*alloc)(void *ctx, const solver *s, kernel_alloc *a);
    void *ctx;
} heuristic_view;

/* The heuristic's pick among the solvers v->ok admits: the v4r1
 * configuration of least estimated time on t, or the naive solver when its
 * estimate (naive_estimate) is less or no v4r1 one is ok; NULL when nothing
 * is ok. */
const solver *select_heuristic(const igemm_shape *sh, const target *t, const heuristic_view *v);
/* The heuristic's estimated time of a v4r1 configuration (model cycles) for
 * a problem the v4r1 solvers accept, its kernel allocating a (NULL: the
 * configuration's estimate); *work (may be NULL) receives its estimated
 * issue cycles. */
double v4r1_estimate(const v4r1_config *c, const igemm_shape *sh, const target *t, const kernel_alloc *a,
                     double *work);
/* The same estimate with its terms (model cycles; `igemm plan --estimates`
 * prints them): total = (busy^6 + latency^6)^(1/6) + extra, where busy =
 * max(issue, l2, hbm, path) + zeros. issue: CU 0's issue cycles with the
 * exposed memory latency; l2: the tiles' bytes and lines through the L2;
 * hbm: the re-reads that miss the L2 (0 where none); path: a CU's address
 * path; zeros: the empty phases' stores that no GEMM workgroup hides;
 * latency: CU 0's chain of loads and epilogues over its workgroup slots;
 * extra: dispatches, a fill, a split's reduction, the _kyxc copy. work:
 * the issue cycles of every wave (the least-work rule). occ: the
 * workgroups a CU holds, from a. */
typedef struct {
    double total, issue, l2, hbm, path, zeros, latency, extra, work;
    int occ;
} v4r1_terms;
double v4r1_estimate_terms(const v4r1_config *c, const igemm_shape *sh, const target *t, const kernel_alloc *a,
                           v4r1_terms *terms);
/* Find mode's filter for the naive kernel: whether no v4r1 configuration is
 * ok or the naive estimate is within 2x of the best v4r1 one (elsewhere it
 * is the slowest by far, and find leaves it out). */
bool heuristic_naive_worth_timing(const igemm_shape *sh, const target *t, const heuristic_view *v);
/* The heuristic's estimated time of the naive kernel, in the same units. */
double naive_estimate(const igemm_shape *sh, const target *t);

#endif
