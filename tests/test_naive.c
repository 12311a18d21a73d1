/* The naive kernel ("naive", the device-side reference) on every shape of
 * the edge list, for every target, through the public API on the emulator,
 * against the float64 CPU reference: relative error (error / sum of |terms|)
 * within 1e-5, no NaN, and dx pixels that receive no contribution exactly 0
 * (dx is prefilled with NaN, so a pixel the kernel skips shows up).
 *
 * The shape list is edge.txt, read by tc_load_shapes (../shared/shapes/, else
 * the vendored tests/shapes/); test_v4r1 checks that it is complete and that
 * the two copies agree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/igemm.h"
#include "../runtime/problem.h"
#include "common.h"

#define REL_TOL 1e-5

static const char *const archs[] = {"gfx906", "gfx908", "gfx90a", "gfx942"};

static tc_shape_list edge;

static int setup(void **state)
{
    (void)state;
    return tc_load_shapes(&edge, "edge.txt");
}

/* splitmix64 -> uniform floats in [-1, 1), independent of the CLI's data. */
static void fill(float *v, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        v[i] = (float)((double)(z >> 40) / 16777216.0 * 2.0 - 1.0);
    }
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

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static void run_target(const char *arch)
{
    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    char why[512];

    int64_t max_dx = 0, max_dy = 0, max_w = 0, holes_total = 0;
    int known_seen = 0;
    for (int i = 0; i < edge.n; i++) {
        igemm_shape sh;
        assert_int_equal(igemm_shape_init(&sh, &edge.s[i].p, why, sizeof why), IGEMM_OK);
        max_dx = max64(max_dx, sh.dx_elems);
        max_dy = max64(max_dy, sh.dy_elems);
        max_w = max64(max_w, sh.w_elems);
    }
    float *hdy = malloc((size_t)max_dy * 4), *hw = malloc((size_t)max_w * 4), *hdx = malloc((size_t)max_dx * 4);
    double *ref = malloc((size_t)max_dx * sizeof *ref), *abs_sum = malloc((size_t)max_dx * sizeof *abs_sum);
    unsigned char *cov = malloc((size_t)max_dx);
    void *dx = NULL, *dy = NULL, *w = NULL;
    assert_true(hdy && hw && hdx && ref && abs_sum && cov);
    assert_int_equal(igemm_alloc(h, &dx, (size_t)max_dx * 4), IGEMM_OK);
    assert_int_equal(igemm_alloc(h, &dy, (size_t)max_dy * 4), IGEMM_OK);
    assert_int_equal(igemm_alloc(h, &w, (size_t)max_w * 4), IGEMM_OK);

    for (int i = 0; i < edge.n; i++) {
        const igemm_problem *p = &edge.s[i].p;
        const char *txt = edge.s[i].text;
        igemm_shape sh;
        igemm_shape_init(&sh, p, NULL, 0);
        size_t nx = (size_t)sh.dx_elems, ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems;
        fill(hdy, ny, 1000u + (uint64_t)i);
        fill(hw, nw, 2000u + (uint64_t)i);
        for (size_t j = 0; j < nx; j++)
            hdx[j] = NAN;
        assert_int_equal(igemm_copy_to_device(h, dy, hdy, ny * 4), IGEMM_OK);
        assert_int_equal(igemm_copy_to_device(h, w, hw, nw * 4), IGEMM_OK);
        assert_int_equal(igemm_copy_to_device(h, dx, hdx, nx * 4), IGEMM_OK);

        igemm_run_info ri;
        igemm_status st = igemm_conv_bwd_data_ex(h, p, "naive", dx, dy, w, &ri);
        if (st != IGEMM_OK)
            fail_msg("%s %s: %s: %s", arch, txt, igemm_status_name(st), igemm_last_error(h));
        assert_string_equal(ri.solution, "naive");
        assert_true(ri.launches >= 1);
        assert_true(ri.insts > 0);
        assert_int_equal(igemm_copy_to_host(h, hdx, dx, nx * 4), IGEMM_OK);

        assert_int_equal(igemm_reference_bwd_data(p, hdy, hw, ref, abs_sum, cov), IGEMM_OK);
        igemm_verify_result vr;
        int ok = igemm_verify(p, hdx, ref, abs_sum, cov, REL_TOL, &vr);
        if (!ok || vr.nan_count || vr.uncovered_nonzero || vr.zero_terms_nonzero || !(vr.max_rel_err <= REL_TOL))
            fail_msg("%s %s: max rel err %.3g (limit %g) at element %lld, max abs err %.3g, %lld NaN/Inf, "
                     "%lld uncovered pixels not 0",
                     arch, txt, vr.max_rel_err, REL_TOL, (long long)vr.worst_index, vr.max_abs_err,
                     (long long)vr.nan_count, (long long)vr.uncovered_nonzero);

        /* Pixels without a term, counted from the definition, must be
         * exactly the ones the reference marks uncovered, and +-0 in dx. */
        int64_t holes = 0;
        for (int n = 0; n < p->n; n++)
            for (int c = 0; c < p->c; c++)
                for (int hi = 0; hi < p->hi; hi++)
                    for (int wi = 0; wi < p->wi; wi++) {
                        size_t e = (((size_t)n * (size_t)p->c + (size_t)c) * (size_t)p->hi + (size_t)hi) *
                                       (size_t)p->wi + (size_t)wi;
                        int r = reached(hi, p->y, p->stride_h, p->dil_h, p->pad_h, sh.ho) &&
                                reached(wi, p->x, p->stride_w, p->dil_w, p->pad_w, sh.wo);
                        if (r != cov[e])
                            fail_msg("%s %s: reference coverage of element %zu is %d, expected %d", arch, txt, e,
                                     cov[e], r);
                        if (!r) {
                            holes++;
                            if (hdx[e] != 0.0f)
                                fail_msg("%s %s: dx[%zu] gets no contribution but is %g", arch, txt, e,
                                         (double)hdx[e]);
                        }
                    }
        holes_total += holes;
        for (size_t j = 0; j < sizeof known_holes / sizeof known_holes[0]; j++)
            if (!strcmp(txt, known_holes[j].args)) {
                assert_int_equal(holes, known_holes[j].holes);
                known_seen++;
            }
    }
    /* The list holds shapes with holes; the exact-zero check is not vacuous. */
    assert_true(holes_total > 0);
    assert_int_equal(known_seen, (int)(sizeof known_holes / sizeof known_holes[0]));

    igemm_free(h, dx);
    igemm_free(h, dy);
    igemm_free(h, w);
    free(hdy);
    free(hw);
    free(hdx);
    free(ref);
    free(abs_sum);
    free(cov);
    igemm_destroy(h);
}

static void naive_gfx906(void **state)
{
    (void)state;
    run_target(archs[0]);
}
static void naive_gfx908(void **state)
{
    (void)state;
    run_target(archs[1]);
}
static void naive_gfx90a(void **state)
{
    (void)state;
    run_target(archs[2]);
}
static void naive_gfx942(void **state)
{
    (void)state;
    run_target(archs[3]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(naive_gfx906),
        cmocka_unit_test(naive_gfx908),
        cmocka_unit_test(naive_gfx90a),
        cmocka_unit_test(naive_gfx942),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
