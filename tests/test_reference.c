/* The float64 CPU reference against hand-computed tiny cases and, on every
 * shape of the edge list, its coverage (which dx pixels receive a term)
 * against the definition; the comparison (igemm_verify) against hand-made
 * errors, and the 16-bit reference and rule against hand-computed values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../include/igemm.h"
#include "common.h"

static igemm_problem prob(int n, int c, int h, int w, int k, int y, int x)
{
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.n = n, p.c = c, p.hi = h, p.wi = w, p.k = k, p.y = y, p.x = x;
    return p;
}

static void single_term(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 1, 1, 1, 1, 1);
    float dy[] = {-3.0f}, w[] = {2.0f};
    double dx[1], abs_sum[1];
    unsigned char cov[1];
    assert_int_equal(igemm_reference_bwd_data(&p, dy, w, dx, abs_sum, cov), IGEMM_OK);
    assert_true(dx[0] == -6.0);
    assert_true(abs_sum[0] == 6.0);
    assert_int_equal(cov[0], 1);
}

/* 3x3 filter w[y][x] = 3y + x + 1, pad 1, dy all ones on a 3x3 image:
 * dx[hi][wi] sums the taps with 0 <= hi + 1 - y < 3 and 0 <= wi + 1 - x < 3. */
static void pad_three_by_three(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 3, 3, 1, 3, 3);
    p.pad_h = p.pad_w = 1;
    float dy[9], w[9];
    for (int i = 0; i < 9; i++) {
        dy[i] = 1.0f;
        w[i] = (float)(i + 1);
    }
    double dx[9];
    assert_int_equal(igemm_reference_bwd_data(&p, dy, w, dx, NULL, NULL), IGEMM_OK);
    const double expect[9] = {
        1 + 2 + 4 + 5,         1 + 2 + 3 + 4 + 5 + 6,         2 + 3 + 5 + 6,
        1 + 2 + 4 + 5 + 7 + 8, 45,                            2 + 3 + 5 + 6 + 8 + 9,
        4 + 5 + 7 + 8,         4 + 5 + 6 + 7 + 8 + 9,         5 + 6 + 8 + 9,
    };
    for (int i = 0; i < 9; i++)
        assert_true(dx[i] == expect[i]);
}

/* 1x1 filter, stride 2 on 4x4: only even (hi, wi) get a term. */
static void stride_two_leaves_holes(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 4, 4, 1, 1, 1);
    p.stride_h = p.stride_w = 2;
    float dy[4] = {1, 2, 3, 4}, w[1] = {0.5f};
    double dx[16];
    unsigned char cov[16];
    assert_int_equal(igemm_reference_bwd_data(&p, dy, w, dx, NULL, cov), IGEMM_OK);
    for (int h = 0; h < 4; h++)
        for (int x = 0; x < 4; x++) {
            int i = h * 4 + x;
            if (h % 2 == 0 && x % 2 == 0) {
                assert_int_equal(cov[i], 1);
                assert_true(dx[i] == 0.5 * dy[(h / 2) * 2 + x / 2]);
            } else {
                assert_int_equal(cov[i], 0);
                assert_true(dx[i] == 0.0);
            }
        }
}

/* Two groups: dx channel c only sees dy channel k of its own group. */
static void groups_are_separate(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 2, 1, 1, 2, 1, 1);
    p.groups = 2;
    float dy[2] = {1.0f, 10.0f}, w[2] = {2.0f, 3.0f};
    double dx[2];
    assert_int_equal(igemm_reference_bwd_data(&p, dy, w, dx, NULL, NULL), IGEMM_OK);
    assert_true(dx[0] == 2.0);
    assert_true(dx[1] == 30.0);
}

/* Dilation 2, 3-tap filter on a 5-pixel column: taps land on 0, 2, 4. */
static void dilation_two(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 5, 1, 1, 3, 1);
    p.dil_h = 2;
    assert_int_equal(igemm_problem_ho(&p), 1);
    float dy[1] = {1.0f}, w[3] = {1.0f, 10.0f, 100.0f};
    double dx[5];
    unsigned char cov[5];
    assert_int_equal(igemm_reference_bwd_data(&p, dy, w, dx, NULL, cov), IGEMM_OK);
    const double expect[5] = {1, 0, 10, 0, 100};
    const unsigned char ecov[5] = {1, 0, 1, 0, 1};
    for (int i = 0; i < 5; i++) {
        assert_true(dx[i] == expect[i]);
        assert_int_equal(cov[i], ecov[i]);
    }
}

/* Two output channels, two images: sums over k, separate per n. */
static void sums_over_k(void **state)
{
    (void)state;
    igemm_problem p = prob(2, 1, 1, 1, 2, 1, 1);
    float dy[4] = {1, 2, 3, 4}; /* n0: k0=1 k1=2; n1: k0=3 k1=4 */
    float w[2] = {10, 100};
    double dx[2], abs_sum[2];
    assert_int_equal(igemm_reference_bwd_data(&p, dy, w, dx, abs_sum, NULL), IGEMM_OK);
    assert_true(dx[0] == 210.0);
    assert_true(dx[1] == 430.0);
    assert_true(abs_sum[1] == 430.0);
}

/* Does input position i of one dimension receive a term, i.e. is there a
 * filter tap t < f and an output position o < out with i = o*s - pad + t*d?
 * Written from the definition, apart from the reference's scatter loop. */
static int reached(int i, int f, int s, int d, int pad, int out)
{
    for (int t = 0; t < f; t++) {
        int num = i + pad - t * d;
        if (num >= 0 && num % s == 0 && num / s < out)
            return 1;
    }
    return 0;
}

/* Hole counts worked out by hand for three shapes of the list. */
static const struct {
    const char *args;
    int64_t holes;
} known_holes[] = {
    /* 1x1 stride 2 on 14x14: only the 7x7 even pixels are hit; 2*16*(196-49) */
    {"-n 2 -c 16 -H 14 -W 14 -k 16 -y 1 -x 1 -p 0 -q 0 -u 2 -v 2 -l 1 -j 1 -g 1", 4704},
    /* 2-tap filter, stride 3 on 9: Ho = 3, rows {0,1,3,4,6,7} hit, 6x6 of 9x9; 8*(81-36) */
    {"-n 1 -c 8 -H 9 -W 9 -k 8 -y 2 -x 2 -p 0 -q 0 -u 3 -v 3 -l 1 -j 1 -g 1", 360},
    /* stride 2, dilation 2, pad 2: only even rows/columns are hit, 7 of 13 and
     * 6 of 11; 4*(143-42) */
    {"-n 1 -c 4 -H 13 -W 11 -k 6 -y 3 -x 3 -p 2 -q 2 -u 2 -v 2 -l 2 -j 2 -g 1", 404},
};

/* Coverage depends on the shape alone: on every edge shape the pixels the
 * reference marks covered must be exactly those the definition reaches. */
static void coverage_matches_definition_on_edge_shapes(void **state)
{
    (void)state;
    tc_shape_list edge;
    assert_int_equal(tc_load_shapes(&edge, "edge.txt"), 0);
    int64_t holes_total = 0;
    int known_seen = 0;
    for (int i = 0; i < edge.n; i++) {
        const igemm_problem *p = &edge.s[i].p;
        const char *txt = edge.s[i].text;
        int ho = igemm_problem_ho(p), wo = igemm_problem_wo(p);
        size_t nx = (size_t)p->n * p->c * p->hi * p->wi, ny = (size_t)p->n * p->k * ho * wo,
               nw = (size_t)p->k * (p->c / p->groups) * p->y * p->x;
        float *dy = malloc(ny * 4), *w = malloc(nw * 4);
        double *dx = malloc(nx * sizeof *dx);
        unsigned char *cov = malloc(nx);
        assert_true(dy && w && dx && cov);
        for (size_t j = 0; j < ny; j++)
            dy[j] = 1.0f;
        for (size_t j = 0; j < nw; j++)
            w[j] = 1.0f;
        assert_int_equal(igemm_reference_bwd_data(p, dy, w, dx, NULL, cov), IGEMM_OK);
        int64_t holes = 0;
        for (int n = 0; n < p->n; n++)
            for (int c = 0; c < p->c; c++)
                for (int hi = 0; hi < p->hi; hi++)
                    for (int wi = 0; wi < p->wi; wi++) {
                        size_t e = (((size_t)n * (size_t)p->c + (size_t)c) * (size_t)p->hi + (size_t)hi) *
                                       (size_t)p->wi + (size_t)wi;
                        int r = reached(hi, p->y, p->stride_h, p->dil_h, p->pad_h, ho) &&
                                reached(wi, p->x, p->stride_w, p->dil_w, p->pad_w, wo);
                        if (r != cov[e])
                            fail_msg("%s: reference coverage of element %zu is %d, expected %d", txt, e, cov[e], r);
                        holes += !r;
                    }
        holes_total += holes;
        for (size_t j = 0; j < sizeof known_holes / sizeof known_holes[0]; j++)
            if (!strcmp(txt, known_holes[j].args)) {
                assert_int_equal(holes, known_holes[j].holes);
                known_seen++;
            }
        free(dy);
        free(w);
        free(dx);
        free(cov);
    }
    /* the list holds shapes with holes, among them the three worked out */
    assert_true(holes_total > 0);
    assert_int_equal(known_seen, (int)(sizeof known_holes / sizeof known_holes[0]));
}

/* NHWC (dx N,Hi,Wi,C; dy N,Ho,Wo,K; filter K,Y,X,C/G) against the
 * definition written here in gather form with channels-last indexing, on a
 * strided, dilated, padded, grouped problem with anisotropic sizes. */
static void nhwc_matches_gather_definition(void **state)
{
    (void)state;
    igemm_problem p = prob(2, 6, 5, 7, 4, 3, 2);
    p.layout = IGEMM_LAYOUT_NHWC;
    p.groups = 2, p.stride_h = 2, p.stride_w = 1, p.dil_h = 1, p.dil_w = 2, p.pad_h = 1, p.pad_w = 2;
    int ho = igemm_problem_ho(&p), wo = igemm_problem_wo(&p), cg = p.c / p.groups, kg = p.k / p.groups;
    assert_true(ho > 1 && wo > 1);
    size_t ny = (size_t)p.n * ho * wo * p.k, nw = (size_t)p.k * p.y * p.x * cg, nx = (size_t)p.n * p.hi * p.wi * p.c;
    float *dy = malloc(ny * 4), *w = malloc(nw * 4);
    double *dx = malloc(nx * sizeof *dx);
    assert_non_null(dy);
    assert_non_null(w);
    assert_non_null(dx);
    tc_fill_uniform(dy, ny, 7);
    tc_fill_uniform(w, nw, 8);
    assert_int_equal(igemm_reference_bwd_data(&p, dy, w, dx, NULL, NULL), IGEMM_OK);
    for (int n = 0; n < p.n; n++)
        for (int hi = 0; hi < p.hi; hi++)
            for (int wi = 0; wi < p.wi; wi++)
                for (int c = 0; c < p.c; c++) {
                    int g = c / cg;
                    double want = 0;
                    for (int kl = 0; kl < kg; kl++)
                        for (int y = 0; y < p.y; y++)
                            for (int x = 0; x < p.x; x++) {
                                int th = hi + p.pad_h - y * p.dil_h, tw = wi + p.pad_w - x * p.dil_w;
                                if (th < 0 || tw < 0 || th % p.stride_h || tw % p.stride_w)
                                    continue;
                                int oh = th / p.stride_h, ow = tw / p.stride_w;
                                if (oh >= ho || ow >= wo)
                                    continue;
                                int k = g * kg + kl;
                                want += (double)dy[(((size_t)n * ho + oh) * wo + ow) * p.k + k] *
                                        (double)w[(((size_t)k * p.y + y) * p.x + x) * cg + (c - g * cg)];
                            }
                    double got = dx[(((size_t)n * p.hi + hi) * p.wi + wi) * p.c + c];
                    if (fabs(got - want) > 1e-12 * (1 + fabs(want)))
                        fail_msg("dx[n%d][h%d][w%d][c%d] = %.17g, the definition gives %.17g", n, hi, wi, c, got, want);
                }
    free(dy);
    free(w);
    free(dx);
}

static void invalid_problem_rejected(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 2, 2, 1, 3, 3); /* output 0x0 */
    float dy[1] = {0}, w[9] = {0};
    double dx[4];
    assert_int_equal(igemm_reference_bwd_data(&p, dy, w, dx, NULL, NULL), IGEMM_ERR_INVALID_ARG);
    char why[200];
    assert_int_equal(igemm_problem_check(&p, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    assert_non_null(strstr(why, "output size"));
}

static void verify_detects_errors(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 1, 4, 1, 1, 1);
    double ref[4] = {1.0, -2.0, 0.0, 0.0}, abs_sum[4] = {1.0, 2.0, 0.0, 3.0};
    unsigned char cov[4] = {1, 1, 0, 1};
    float good[4] = {1.0f, -2.0f, 0.0f, 0.0f};
    igemm_verify_result r;
    assert_int_equal(igemm_verify(&p, good, ref, abs_sum, cov, 1e-5, &r), 1);
    float off[4] = {1.0f, -2.0001f, 0.0f, 0.0f}; /* rel err 5e-5 */
    assert_int_equal(igemm_verify(&p, off, ref, abs_sum, cov, 1e-5, &r), 0);
    assert_true(fabs(r.max_rel_err - 5e-5) < 1e-6);
    float hole[4] = {1.0f, -2.0f, 1e-30f, 0.0f}; /* uncovered pixel not exactly 0 */
    assert_int_equal(igemm_verify(&p, hole, ref, abs_sum, cov, 1e-5, &r), 0);
    assert_int_equal(r.uncovered_nonzero, 1);
    float nan[4] = {NAN, -2.0f, 0.0f, 0.0f};
    assert_int_equal(igemm_verify(&p, nan, ref, abs_sum, cov, 1e-5, &r), 0);
    assert_int_equal(r.nan_count, 1);
}

/* The data-type reference: 16-bit dy and w widened exactly (2^-24, the
 * smallest fp16 subnormal, survives), the same dx as the fp32 reference of
 * the same values. */
static void reference_of_16bit_tensors(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 1, 2, 1, 1, 1);
    p.dtype = IGEMM_FP16;
    uint16_t dy[2] = {0x3c00, 0x0001}, w[1] = {0xc000}; /* 1, 2^-24; -2 */
    double dx[2], abs_sum[2];
    unsigned char cov[2];
    assert_int_equal(igemm_reference_bwd_data_ex(&p, dy, w, dx, abs_sum, cov), IGEMM_OK);
    assert_true(dx[0] == -2.0 && dx[1] == -0x1p-23);
    assert_true(abs_sum[0] == 2.0 && abs_sum[1] == 0x1p-23);
    assert_true(cov[0] == 1 && cov[1] == 1);
    p.dtype = IGEMM_BF16;
    uint16_t bdy[2] = {0x3fc0, 0x0001}, bw[1] = {0x4040}; /* 1.5, 2^-133; 3 */
    assert_int_equal(igemm_reference_bwd_data_ex(&p, bdy, bw, dx, NULL, NULL), IGEMM_OK);
    assert_true(dx[0] == 4.5 && dx[1] == 3 * 0x1p-133);
    p.dtype = IGEMM_FP32;
    float fdy[2] = {0.25f, -1.0f}, fw[1] = {8.0f};
    assert_int_equal(igemm_reference_bwd_data_ex(&p, fdy, fw, dx, NULL, NULL), IGEMM_OK);
    assert_true(dx[0] == 2.0 && dx[1] == -8.0);
    assert_int_equal(igemm_reference_bwd_data_ex(&p, NULL, fw, dx, NULL, NULL), IGEMM_ERR_INVALID_ARG);
}

/* One dx element of a 1x1 fp16/bf16 problem against ref and sum |terms|. */
static int verify_one(igemm_dtype d, uint16_t dx, double ref, double abs_sum, unsigned char cov,
                      igemm_verify_result *r)
{
    igemm_problem p = prob(1, 1, 1, 1, 1, 1, 1);
    p.dtype = d;
    return igemm_verify_ex(&p, &dx, &ref, &abs_sum, &cov, 1e-5, r);
}

/* The 16-bit rule: half an ulp of the format at the reference plus 1e-5 of
 * sum |terms|; IEEE overflow to inf; NaN only where the reference is NaN;
 * uncovered and all-zero-term elements exactly 0. */
static void verify_16bit_rule(void **state)
{
    (void)state;
    igemm_verify_result r;
    const double tiny = 1e-12; /* sum |terms| that leaves the half ulp alone */
    /* fp16 at 1: ulp 2^-10, half 2^-11 */
    assert_int_equal(verify_one(IGEMM_FP16, 0x3c00, 1 + 0x1p-11, tiny, 1, &r), 1); /* the tie, either side */
    assert_int_equal(verify_one(IGEMM_FP16, 0x3c01, 1 + 0x1p-11, tiny, 1, &r), 1);
    assert_int_equal(verify_one(IGEMM_FP16, 0x3c01, 1 + 0x1p-12, tiny, 1, &r), 0); /* 3/4 ulp off */
    assert_int_equal(r.over_tolerance, 1);
    assert_true(fabs(r.max_err_ratio - 1.5) < 1e-6);
    assert_int_equal(verify_one(IGEMM_FP16, 0x3c02, 1.0, tiny, 1, &r), 0);
    /* the accumulation allowance: 1000 with sum |terms| 1e6 allows 10 + 0.25 */
    assert_int_equal(verify_one(IGEMM_FP16, 0x63e4, 1000.0, 1e6, 1, &r), 1);  /* 1010 */
    assert_int_equal(verify_one(IGEMM_FP16, 0x63e6, 1000.0, 1e6, 1, &r), 0);  /* 1011 */
    /* subnormal results: spacing 2^-24 */
    assert_int_equal(verify_one(IGEMM_FP16, 0x01f7, 3e-5, 3e-5, 1, &r), 1);   /* 503 * 2^-24 */
    assert_int_equal(verify_one(IGEMM_FP16, 0x01f9, 3e-5, 3e-5, 1, &r), 0);
    /* overflow: inf where the reference rounds beyond 65504, with its sign */
    assert_int_equal(verify_one(IGEMM_FP16, 0x7c00, 65530.0, 65530.0, 1, &r), 1);
    assert_int_equal(verify_one(IGEMM_FP16, 0xfc00, -70000.0, 70000.0, 1, &r), 1);
    assert_int_equal(verify_one(IGEMM_FP16, 0x7c00, -70000.0, 70000.0, 1, &r), 0);
    assert_int_equal(verify_one(IGEMM_FP16, 0x7c00, 65000.0, 65000.0, 1, &r), 0);
    assert_int_equal(r.nan_count, 1);
    assert_int_equal(verify_one(IGEMM_FP16, 0x7bff, 70000.0, 70000.0, 1, &r), 0); /* finite but should be inf */
    /* NaN */
    assert_int_equal(verify_one(IGEMM_FP16, 0x7e00, 1.0, 1.0, 1, &r), 0);
    assert_int_equal(r.nan_count, 1);
    assert_int_equal(verify_one(IGEMM_FP16, 0x7e00, NAN, NAN, 1, &r), 1);  /* a NaN input reached it */
    assert_int_equal(verify_one(IGEMM_FP16, 0x0000, NAN, NAN, 1, &r), 0);
    assert_int_equal(verify_one(IGEMM_FP16, 0x7c00, INFINITY, INFINITY, 1, &r), 1);
    assert_int_equal(verify_one(IGEMM_FP16, 0xfc00, INFINITY, INFINITY, 1, &r), 0);
    /* exactly 0 without terms, or with all terms 0 */
    assert_int_equal(verify_one(IGEMM_FP16, 0x0000, 0.0, 0.0, 0, &r), 1);
    assert_int_equal(verify_one(IGEMM_FP16, 0x0001, 0.0, 0.0, 0, &r), 0);
    assert_int_equal(r.uncovered_nonzero, 1);
    assert_int_equal(verify_one(IGEMM_FP16, 0x8001, 0.0, 0.0, 1, &r), 0);
    assert_int_equal(r.zero_terms_nonzero, 1);
    /* bf16 at 1: ulp 2^-7, half 2^-8 */
    assert_int_equal(verify_one(IGEMM_BF16, 0x3f80, 1 + 0x1p-9, tiny, 1, &r), 1);
    assert_int_equal(verify_one(IGEMM_BF16, 0x3f80, 1 + 0x1p-8 + 0x1p-12, tiny, 1, &r), 0);
    assert_int_equal(verify_one(IGEMM_BF16, 0x3f81, 1 + 0x1p-8 + 0x1p-12, tiny, 1, &r), 1);
    assert_int_equal(verify_one(IGEMM_BF16, 0x7f80, 0x1.ffp127, 0x1.ffp127, 1, &r), 1);
}

/* igemm_verify reads fp32 and applies the rule of the problem's type: a
 * widened fp16 result half an fp16 ulp off passes there, not under fp32. */
static void verify_fp32_storage_16bit_rule(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 1, 1, 1, 1, 1);
    double ref = 1 + 0x1p-11, abs_sum = 1e-12;
    unsigned char cov = 1;
    float dx = 1.0f;
    igemm_verify_result r;
    assert_int_equal(igemm_verify(&p, &dx, &ref, &abs_sum, &cov, 1e-5, &r), 0);
    p.dtype = IGEMM_FP16;
    assert_int_equal(igemm_verify(&p, &dx, &ref, &abs_sum, &cov, 1e-5, &r), 1);
    p.dtype = IGEMM_FP32;
    assert_int_equal(igemm_verify_ex(&p, &dx, &ref, &abs_sum, &cov, 1e-5, &r), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_term),      cmocka_unit_test(pad_three_by_three),
        cmocka_unit_test(stride_two_leaves_holes), cmocka_unit_test(groups_are_separate),
        cmocka_unit_test(dilation_two),     cmocka_unit_test(sums_over_k),
        cmocka_unit_test(coverage_matches_definition_on_edge_shapes),
        cmocka_unit_test(invalid_problem_rejected), cmocka_unit_test(verify_detects_errors),
        cmocka_unit_test(nhwc_matches_gather_definition), cmocka_unit_test(reference_of_16bit_tensors),
        cmocka_unit_test(verify_16bit_rule), cmocka_unit_test(verify_fp32_storage_16bit_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
