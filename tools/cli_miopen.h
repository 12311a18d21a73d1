/* MIOpenDriver's output lines for backward data (driver/conv_driver.hpp:
 * RunBackwardDataGpuFind, PrintBackwardDataTime, VerifyBackward), printed
 * by `igemm conv` besides its own report. */
#ifndef IGEMM_CLI_MIOPEN_H
#define IGEMM_CLI_MIOPEN_H

#include <stdbool.h>
#include <stddef.h>

#include "../include/igemm.h"

/* MIOpenDriver's average of per-iteration times: the first iteration left
 * out when there are more (ComputeAverageTime). */
double miopen_average(double total, double first, int iters);

/* With -t 1: "MIOpen Backward Data Conv. Algorithm: A, Solution: ID/NAME",
 * "GPU Kernel Time Backward Data Conv. Elapsed: X ms (average)" (modeled:
 * "Modeled Kernel Time ..." with the target), and the two `stats:` lines,
 * with MIOpenDriver's formulas. */
void miopen_print_time(const igemm_problem *p, const char *solution, double avg_ms, const char *modeled_arch);

/* MIOpenDriver's verify measure: the RMS of (ref - dx) over the largest
 * magnitude of either (miopen::rms_range), and its tolerance for p's type
 * and the configuration (GetDefaultTolerance, times 10 for implicit GEMM). */
double miopen_rms_range(const igemm_problem *p, const double *ref, const void *dx, size_t n);
double miopen_tolerance(const igemm_problem *p, const char *solution);

/* "Backward Convolution Data Verifies OK on CPU reference (E < T)" or
 * "Backward Convolution Data FAILED: E > T"; returns whether it passed. */
bool miopen_print_verify(double err, double tol);

#endif
