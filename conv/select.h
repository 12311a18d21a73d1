/* Kernel configuration choice: the heuristic of heuristic.c (no handle, no
 * device). A handle consults its performance database first and the
 * heuristic after it (handle.c); the static-twin generator uses the
 * heuristic alone. */
#ifndef IGEMM_SELECT_H
#define IGEMM_SELECT_H

#include "solver.h"
#include "v4r1_config.h"

/* The heuristic's pick among the solvers for which ok(ctx, s) holds: the v4r1
 * configuration of least estimated time on t, or the naive solver when its
 * estimate (naive_estimate) is less or no v4r1 one is ok; NULL when nothing
 * is ok. */
const solver *select_heuristic(const igemm_shape *sh, const target *t, int (*ok)(void *ctx, const solver *s),
                               void *ctx);
/* The heuristic's estimated time of a v4r1 configuration (model cycles) for
 * a problem the v4r1 solvers accept; *work (may be NULL) receives its
 * estimated issue cycles. */
double v4r1_estimate(const v4r1_config *c, const igemm_shape *sh, const target *t, double *work);
/* The same estimate with its terms (model cycles; `igemm plan --estimates`
 * prints them): total = max(busy, latency) + extra, where busy = max(issue,
 * l2, hbm, path) + zeros. issue: CU 0's issue cycles with the exposed
 * memory latency; l2: the tiles' bytes and lines through the L2; hbm: the
 * re-reads that miss the L2 (0 where none); path: a CU's address path;
 * zeros: the empty phases' stores; latency: the chain of loads, round
 * after round; extra: dispatches, a fill, a split's reduction, the _kyxc
 * copy. work: the issue cycles of every wave (the least-work rule). */
typedef struct {
    double total, issue, l2, hbm, path, zeros, latency, extra, work;
} v4r1_terms;
double v4r1_estimate_terms(const v4r1_config *c, const igemm_shape *sh, const target *t, v4r1_terms *terms);
/* Find mode's filter for the naive kernel: whether no v4r1 configuration is
 * ok or the naive estimate is within 2x of the best v4r1 one (elsewhere it
 * is the slowest by far, and find leaves it out). */
bool heuristic_naive_worth_timing(const igemm_shape *sh, const target *t, int (*ok)(void *ctx, const solver *s),
                                  void *ctx);
/* The heuristic's estimated time of the naive kernel, in the same units. */
double naive_estimate(const igemm_shape *sh, const target *t);

#endif
