/* MIOpenDriver's output lines (see cli_miopen.h). Numbers are printed as
 * MIOpenDriver prints them: printf's %f where it uses printf, %g (C++
 * stream default, 6 significant digits) where it uses std::cout. */
#include "cli_miopen.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../conv/half.h"
#include "../conv/problem.h"
#include "../conv/solver.h"
#include "miopen_solvers.h"

double miopen_average(double total, double first, int iters)
{
    return iters > 1 ? (total - first) / (iters - 1) : total;
}

/* MIOpen's algorithm numbers (miopenConvBwdDataAlgorithm_t): the naive
 * kernel is a direct convolution (1), v4r1 an implicit GEMM (5). The
 * solution id is MIOpen's of the corresponding solver (miopen_solvers.c). */
static int algorithm(const solver *s) { return s && s->kind == SOLVER_NAIVE ? 1 : 5; }

void miopen_print_time(const igemm_problem *p, const char *solution, double avg_ms, const char *modeled_arch)
{
    printf("MIOpen Backward Data Conv. Algorithm: %d, Solution: %d/%s\n", algorithm(solver_find(solution)),
           miopen_solver_id_of(solution), solution);
    if (modeled_arch)
        printf("Modeled Kernel Time Backward Data Conv. Elapsed: %f ms (average; timing model of %s, not measured)\n",
               avg_ms, modeled_arch);
    else
        printf("GPU Kernel Time Backward Data Conv. Elapsed: %f ms (average)\n", avg_ms);
    igemm_shape sh;
    igemm_shape_init(&sh, p, NULL, 0);
    size_t es = (size_t)igemm_dtype_get(p->dtype)->bytes;
    /* PrintBackwardDataTime's formulas as they are, bytesRead's n*c*k
       "input" term included */
    size_t flop = (size_t)2 * p->n * p->c * p->y * p->x * p->k * sh.ho * sh.wo / p->groups;
    size_t read = (size_t)p->n * p->c * p->k * es + (size_t)sh.w_elems * es;
    size_t written = (size_t)sh.dy_elems * es;
    /* the columns of MIOpen 3.5 (ROCm 7, after ROCm/MIOpen#3854): each value
       under its own header, one space before flopCnt */
    printf("stats: name, n, c, ho, wo, y, x, k, flopCnt, bytesRead, bytesWritten, GFLOPs, GB/s, timeMs\n");
    printf("stats: %s%dx%du%d, %d, %d, %d, %d, %d, %d, %d, %zu, %zu, %zu, %.0f, %.0f, %f\n", "bwdd-conv", p->y, p->x,
           p->stride_h, p->n, p->c, sh.ho, sh.wo, p->y, p->x, p->k, flop, read, written, (double)flop / avg_ms / 1e6,
           (double)(read + written) / avg_ms / 1e6, avg_ms);
}

double miopen_rms_range(const igemm_problem *p, const double *ref, const void *dx, size_t n)
{
    if (!n)
        return 0;
    double sq = 0, mag_ref = 0, mag_dx = 0;
    for (size_t i = 0; i < n; i++) {
        double d = igemm_elem_get(p->dtype, dx, i), rr = ref[i];
        sq += (rr - d) * (rr - d);
        if (fabs(rr) > mag_ref)
            mag_ref = fabs(rr);
        if (fabs(d) > mag_dx || isnan(d))
            mag_dx = fabs(d);
    }
    double mag = fmax(fmax(mag_ref, mag_dx), DBL_MIN);
    return sqrt(sq) / (sqrt((double)n) * mag);
}

double miopen_tolerance(const igemm_problem *p, const char *solution)
{
    double tol = p->dtype == IGEMM_FP32 ? 1.5e-6 : 8.2e-3;
    if (p->dtype == IGEMM_BF16)
        tol *= 8.0;
    const solver *s = solver_find(solution);
    return s && s->kind == SOLVER_V4R1 ? tol * 10 : tol;
}

bool miopen_print_verify(double err, double tol)
{
    if (!isfinite(err) || err > tol) {
        printf("Backward Convolution Data FAILED: %g > %g\n", err, tol);
        return false;
    }
    printf("Backward Convolution Data Verifies OK on CPU reference (%g < %g)\n", err, tol);
    return true;
}
