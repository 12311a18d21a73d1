/* Float64 CPU reference for backward data and the comparison against it. */
#include <math.h>
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

/* The reference in NCHW (dx, dy and the filter K, C/G, Y, X). */
static void reference_nchw(const igemm_problem *p, const igemm_shape *sp, const float *dy, const float *w, double *dx,
                           double *abs_sum, unsigned char *covered)
{
    const igemm_shape s = *sp;
    memset(dx, 0, sizeof *dx * (size_t)s.dx_elems);
    if (abs_sum)
        memset(abs_sum, 0, sizeof *abs_sum * (size_t)s.dx_elems);
    if (covered)
        memset(covered, 0, (size_t)s.dx_elems);

    const int64_t hw_in = (int64_t)p->hi * p->wi, hw_out = (int64_t)s.ho * s.wo;
    /* Scatter form of the definition: every (n, k, ho, wo, c, y, x) term lands
     * on dx[n][c][ho*S - P + y*D][wo*S - P + x*D] when that is inside dx. */
    for (int n = 0; n < p->n; n++)
        for (int k = 0; k < p->k; k++) {
            int g = k / s.kg;
            const float *dyk = dy + ((int64_t)n * p->k + k) * hw_out;
            for (int cl = 0; cl < s.cg; cl++) {
                int c = g * s.cg + cl;
                const float *wkc = w + ((int64_t)k * s.cg + cl) * p->y * p->x;
                double *dxc = dx + ((int64_t)n * p->c + c) * hw_in;
                double *asc = abs_sum ? abs_sum + ((int64_t)n * p->c + c) * hw_in : NULL;
                unsigned char *cvc = covered ? covered + ((int64_t)n * p->c + c) * hw_in : NULL;
                for (int y = 0; y < p->y; y++)
                    for (int x = 0; x < p->x; x++) {
                        double wv = wkc[y * p->x + x];
                        for (int ho = 0; ho < s.ho; ho++) {
                            int hi = ho * p->stride_h - p->pad_h + y * p->dil_h;
                            if (hi < 0 || hi >= p->hi)
                                continue;
                            for (int wo = 0; wo < s.wo; wo++) {
                                int wi = wo * p->stride_w - p->pad_w + x * p->dil_w;
                                if (wi < 0 || wi >= p->wi)
                                    continue;
                                double t = wv * dyk[(int64_t)ho * s.wo + wo];
                                int64_t o = (int64_t)hi * p->wi + wi;
                                dxc[o] += t;
                                if (asc)
                                    asc[o] += fabs(t);
                                if (cvc)
                                    cvc[o] = 1;
                            }
                        }
                    }
            }
        }
}

/* An (a, b, inner) array with b and inner swapped, or back: out[x][j][i] =
 * in[x][i][j] for i < ni, j < nj, per outer index x < na; elem bytes each. */
static void swap_inner(void *out, const void *in, int64_t na, int64_t ni, int64_t nj, size_t elem)
{
    char *o = out;
    const char *s = in;
    for (int64_t x = 0; x < na; x++)
        for (int64_t i = 0; i < ni; i++)
            for (int64_t j = 0; j < nj; j++)
                memcpy(o + ((x * nj + j) * ni + i) * (int64_t)elem, s + ((x * ni + i) * nj + j) * (int64_t)elem, elem);
}

igemm_status igemm_reference_bwd_data(const igemm_problem *p, const float *dy, const float *w,
                                      double *dx, double *abs_sum, unsigned char *covered)
{
    igemm_shape s;
    if (igemm_shape_init(&s, p, NULL, 0) != IGEMM_OK || !dy || !w || !dx)
        return IGEMM_ERR_INVALID_ARG;
    if (p->layout == IGEMM_LAYOUT_NCHW) {
        reference_nchw(p, &s, dy, w, dx, abs_sum, covered);
        return IGEMM_OK;
    }
    /* NHWC: the same definition on NCHW copies (dy N,Ho,Wo,K -> N,K,Ho,Wo;
       the filter K,Y,X,C/G -> K,C/G,Y,X), the results moved back to
       N,Hi,Wi,C */
    int64_t hw_in = (int64_t)p->hi * p->wi, hw_out = (int64_t)s.ho * s.wo, yx = (int64_t)p->y * p->x;
    float *dy_t = malloc(sizeof *dy_t * (size_t)s.dy_elems), *w_t = malloc(sizeof *w_t * (size_t)s.w_elems);
    double *dx_t = malloc(sizeof *dx_t * (size_t)s.dx_elems);
    double *abs_t = abs_sum ? malloc(sizeof *abs_t * (size_t)s.dx_elems) : NULL;
    unsigned char *cov_t = covered ? malloc((size_t)s.dx_elems) : NULL;
    igemm_status st = IGEMM_ERR_NO_MEMORY;
    if (dy_t && w_t && dx_t && (!abs_sum || abs_t) && (!covered || cov_t)) {
        swap_inner(dy_t, dy, p->n, hw_out, p->k, sizeof *dy_t);
        swap_inner(w_t, w, p->k, yx, s.cg, sizeof *w_t);
        reference_nchw(p, &s, dy_t, w_t, dx_t, abs_t, cov_t);
        swap_inner(dx, dx_t, p->n, p->c, hw_in, sizeof *dx);
        if (abs_sum)
            swap_inner(abs_sum, abs_t, p->n, p->c, hw_in, sizeof *abs_sum);
        if (covered)
            swap_inner(covered, cov_t, p->n, p->c, hw_in, 1);
        st = IGEMM_OK;
    }
    free(dy_t);
    free(w_t);
    free(dx_t);
    free(abs_t);
    free(cov_t);
    return st;
}

/* The data-type form: 16-bit dy and w widened exactly to fp32 copies. */
igemm_status igemm_reference_bwd_data_ex(const igemm_problem *p, const void *dy, const void *w, double *dx,
                                         double *abs_sum, unsigned char *covered)
{
    igemm_shape s;
    if (igemm_shape_init(&s, p, NULL, 0) != IGEMM_OK || !dy || !w || !dx)
        return IGEMM_ERR_INVALID_ARG;
    if (p->dtype == IGEMM_FP32)
        return igemm_reference_bwd_data(p, dy, w, dx, abs_sum, covered);
    float *dy32 = malloc(sizeof *dy32 * (size_t)s.dy_elems), *w32 = malloc(sizeof *w32 * (size_t)s.w_elems);
    igemm_status st = IGEMM_ERR_NO_MEMORY;
    if (dy32 && w32) {
        for (int64_t i = 0; i < s.dy_elems; i++)
            dy32[i] = (float)igemm_elem_get(p->dtype, dy, (size_t)i);
        for (int64_t i = 0; i < s.w_elems; i++)
            w32[i] = (float)igemm_elem_get(p->dtype, w, (size_t)i);
        st = igemm_reference_bwd_data(p, dy32, w32, dx, abs_sum, covered);
    }
    free(dy32);
    free(w32);
    return st;
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
