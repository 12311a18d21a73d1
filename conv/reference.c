/* Float64 CPU reference for backward data and the comparison against it. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "problem.h"

uint64_t igemm_fill_random_dtype(void *v, size_t n, igemm_dtype d, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        igemm_elem_set(d, v, i, (double)(z >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    }
    return seed;
}

uint64_t igemm_fill_random(float *v, size_t n, uint64_t seed) { return igemm_fill_random_dtype(v, n, IGEMM_FP32, seed); }

/* Element i of a tensor of type d, as a double (fp32 read directly);
 * alt: rounded to bf16 (to nearest even), as fp16_mode alt's kernels stage
 * it (include/igemm.h). */
static inline double ld(igemm_dtype d, const void *base, int64_t i, bool alt)
{
    double v = d == IGEMM_FP32 ? (double)((const float *)base)[i] : igemm_elem_get(d, base, (size_t)i);
    return alt ? igemm_bf16_to_f64(igemm_f64_to_bf16(v)) : v;
}

/* The reference in any layout, through element strides (NCHW dx n, c, h, w
 * and the filter K, C/G, Y, X; NHWC n, h, w, c and K, Y, X, C/G), reading dy
 * and w as type d. It allocates nothing: a caller that allocated dx,
 * abs_sum and covered before a run needs no more memory after it. */
static void reference(const igemm_problem *p, const igemm_shape *sp, igemm_dtype d, const void *dy, const void *w,
                      double *dx, double *abs_sum, unsigned char *covered)
{
    const igemm_shape s = *sp;
    memset(dx, 0, sizeof *dx * (size_t)s.dx_elems);
    if (abs_sum)
        memset(abs_sum, 0, sizeof *abs_sum * (size_t)s.dx_elems);
    if (covered)
        memset(covered, 0, (size_t)s.dx_elems);
    const bool nhwc = p->layout == IGEMM_LAYOUT_NHWC, alt = p->fp16_mode == IGEMM_FP16_ALT;
    const int64_t hw_in = (int64_t)p->hi * p->wi, hw_out = (int64_t)s.ho * s.wo, yx = (int64_t)p->y * p->x;
    const int64_t xn = (int64_t)p->c * hw_in, xc = nhwc ? 1 : hw_in, xh = nhwc ? (int64_t)p->wi * p->c : p->wi,
                  xw = nhwc ? p->c : 1;
    const int64_t yn = (int64_t)p->k * hw_out, yk = nhwc ? 1 : hw_out, yh = nhwc ? (int64_t)s.wo * p->k : s.wo,
                  yw = nhwc ? p->k : 1;
    const int64_t wk = (int64_t)s.cg * yx, wc = nhwc ? 1 : yx, wy = nhwc ? (int64_t)p->x * s.cg : p->x,
                  wx = nhwc ? s.cg : 1;
    /* Scatter form of the definition: every (n, k, ho, wo, c, y, x) term lands
     * on dx[n][c][ho*S - P + y*D][wo*S - P + x*D] when that is inside dx. */
    for (int n = 0; n < p->n; n++)
        for (int k = 0; k < p->k; k++) {
            int g = k / s.kg;
            const int64_t dyk = n * yn + k * yk;
            for (int cl = 0; cl < s.cg; cl++) {
                int c = g * s.cg + cl;
                const int64_t wkc = k * wk + cl * wc, dxc = n * xn + c * xc;
                for (int y = 0; y < p->y; y++)
                    for (int x = 0; x < p->x; x++) {
                        double wv = ld(d, w, wkc + y * wy + x * wx, alt);
                        for (int ho = 0; ho < s.ho; ho++) {
                            int hi = ho * p->stride_h - p->pad_h + y * p->dil_h;
                            if (hi < 0 || hi >= p->hi)
                                continue;
                            for (int wo = 0; wo < s.wo; wo++) {
                                int wi = wo * p->stride_w - p->pad_w + x * p->dil_w;
                                if (wi < 0 || wi >= p->wi)
                                    continue;
                                double t = wv * ld(d, dy, dyk + ho * yh + wo * yw, alt);
                                int64_t o = dxc + hi * xh + wi * xw;
                                dx[o] += t;
                                if (abs_sum)
                                    abs_sum[o] += fabs(t);
                                if (covered)
                                    covered[o] = 1;
                            }
                        }
                    }
            }
        }
}

igemm_status igemm_reference_bwd_data(const igemm_problem *p, const float *dy, const float *w,
                                      double *dx, double *abs_sum, unsigned char *covered)
{
    igemm_shape s;
    if (igemm_shape_init(&s, p, NULL, 0) != IGEMM_OK || !dy || !w || !dx)
        return IGEMM_ERR_INVALID_ARG;
    reference(p, &s, IGEMM_FP32, dy, w, dx, abs_sum, covered);
    return IGEMM_OK;
}

/* The data-type form: 16-bit dy and w read as their exact values. */
igemm_status igemm_reference_bwd_data_ex(const igemm_problem *p, const void *dy, const void *w, double *dx,
                                         double *abs_sum, unsigned char *covered)
{
    igemm_shape s;
    if (igemm_shape_init(&s, p, NULL, 0) != IGEMM_OK || !dy || !w || !dx)
        return IGEMM_ERR_INVALID_ARG;
    reference(p, &s, p->dtype, dy, w, dx, abs_sum, covered);
    return IGEMM_OK;
}

const char *igemm_status_name(igemm_status s)
{
    switch (s) {
    case IGEMM_OK: return "IGEMM_OK";
    case IGEMM_ERR_INVALID_ARG: return "IGEMM_ERR_INVALID_ARG";
    case IGEMM_ERR_UNSUPPORTED: return "IGEMM_ERR_UNSUPPORTED";
    case IGEMM_ERR_NOT_APPLICABLE: return "IGEMM_ERR_NOT_APPLICABLE";
    case IGEMM_ERR_NO_DEVICE: return "IGEMM_ERR_NO_DEVICE";
    case IGEMM_ERR_NO_CODE_OBJECT: return "IGEMM_ERR_NO_CODE_OBJECT";
    case IGEMM_ERR_BACKEND: return "IGEMM_ERR_BACKEND";
    case IGEMM_ERR_EMU_FAULT: return "IGEMM_ERR_EMU_FAULT";
    case IGEMM_ERR_NO_MEMORY: return "IGEMM_ERR_NO_MEMORY";
    case IGEMM_ERR_IO: return "IGEMM_ERR_IO";
    }
    return "IGEMM_ERR_UNKNOWN";
}
