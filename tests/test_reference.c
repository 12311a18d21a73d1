/* The float64 CPU reference against hand-computed tiny cases, and the
 * comparison (igemm_verify) against hand-made errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "../runtime/igemm.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_term),      cmocka_unit_test(pad_three_by_three),
        cmocka_unit_test(stride_two_leaves_holes), cmocka_unit_test(groups_are_separate),
        cmocka_unit_test(dilation_two),     cmocka_unit_test(sums_over_k),
        cmocka_unit_test(invalid_problem_rejected), cmocka_unit_test(verify_detects_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
