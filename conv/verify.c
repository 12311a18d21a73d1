/* igemm_verify and igemm_verify_ex: a kernel's dx against the float64
 * reference by the rule include/igemm.h spells out (fp32 accumulation
 * allowance, plus half an ulp of the 16-bit output format). */
#include <float.h>
#include <math.h>

#include "half.h"
#include "problem.h"

/* One element under the rule. Returns 1 when it passes; counts into r. */
static int check_elem(igemm_dtype rule, double v, double ref, double abs_sum, int covered, double rel_tol,
                      igemm_verify_result *r, int64_t i)
{
    if (isnan(ref) || isinf(ref)) { /* a NaN or Inf input reaches it */
        if ((isnan(ref) && isnan(v)) || v == ref)
            return 1;
        if (!isfinite(v))
            r->nan_count++;
        else
            r->over_tolerance++;
        r->max_err_ratio = INFINITY;
        return 0;
    }
    if (!isfinite(v) && abs_sum * (1 + rel_tol) >= FLT_MAX)
        return 1; /* the fp32 sum of the terms may overflow on the way: Inf, or NaN from Inf - Inf */
    if (isnan(v)) {
        r->nan_count++;
        return 0;
    }
    if (!covered || abs_sum == 0.0) { /* no terms, or all of them 0: exactly 0 */
        if (v == 0.0)
            return 1;
        if (isinf(v))
            r->nan_count++;
        else if (!covered)
            r->uncovered_nonzero++;
        else
            r->zero_terms_nonzero++;
        return 0;
    }
    if (isinf(v)) { /* IEEE overflow, when the result may round beyond the format */
        if (signbit(v) == signbit(ref) && fabs(ref) + rel_tol * abs_sum >= igemm_overflow_threshold(rule))
            return 1;
        r->nan_count++;
        return 0;
    }
    double allow = rel_tol * abs_sum + (rule == IGEMM_FP32 ? 0.0 : igemm_half_ulp(rule, ref));
    double err = fabs(v - ref), rel = err / abs_sum, ratio = err / allow;
    if (err > r->max_abs_err)
        r->max_abs_err = err;
    if (rel > r->max_rel_err || r->worst_index < 0) {
        if (rel > r->max_rel_err)
            r->max_rel_err = rel;
        r->worst_index = i;
    }
    if (ratio > r->max_err_ratio)
        r->max_err_ratio = ratio;
    if (err > allow) {
        r->over_tolerance++;
        return 0;
    }
    return 1;
}

/* dx stored as `store`, judged by the rule of p->dtype. */
static int verify(const igemm_problem *p, igemm_dtype store, const void *dx, const double *ref,
                  const double *abs_sum, const unsigned char *covered, double rel_tol, igemm_verify_result *out)
{
    igemm_verify_result r = {.worst_index = -1};
    if (out)
        *out = r;
    /* nothing passes that was not compared: NULL buffers, an invalid
       problem (whose size would be meaningless), a tolerance that is NaN */
    if (!p || !dx || !ref || !abs_sum || !covered || !(rel_tol >= 0) || igemm_problem_check(p, NULL, 0) != IGEMM_OK)
        return 0;
    int64_t n = (int64_t)p->n * p->c * p->hi * p->wi;
    int ok = 1;
    for (int64_t i = 0; i < n; i++)
        ok &= check_elem(p->dtype, igemm_elem_get(store, dx, (size_t)i), ref[i], abs_sum[i], covered[i], rel_tol, &r,
                         i);
    if (out)
        *out = r;
    return ok;
}

int igemm_verify(const igemm_problem *p, const float *dx, const double *ref, const double *abs_sum,
                 const unsigned char *covered, double rel_tol, igemm_verify_result *out)
{
    return verify(p, IGEMM_FP32, dx, ref, abs_sum, covered, rel_tol, out);
}

int igemm_verify_ex(const igemm_problem *p, const void *dx, const double *ref, const double *abs_sum,
                    const unsigned char *covered, double rel_tol, igemm_verify_result *out)
{
    return verify(p, p ? p->dtype : IGEMM_FP32, dx, ref, abs_sum, covered, rel_tol, out);
}
