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

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static void run_target(const char *arch)
{
    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    char why[512];

    int64_t max_dx = 0, max_dy = 0, max_w = 0, holes_total = 0;
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

        for (size_t j = 0; j < nx; j++)
            holes_total += !cov[j];
    }
    /* The list holds shapes with holes; the exact-zero check is not vacuous. */
    assert_true(holes_total > 0);

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
